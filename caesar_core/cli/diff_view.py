"""What ``caesar diff ID --json`` prints, without click.

One implementation for both ways in: the click command (:func:`caesar_core.cli.review.diff`)
prints :func:`json_answer_text` of the record the store read; the console script
(:mod:`caesar_core.cli.entry`) answers ``diff ID --json`` itself with :func:`show_json`, from the
record's few fields read without pydantic (:mod:`caesar_core.store.diffsource`), and only when
the answer is certain to be the click command's: anything else (a record the store would read
otherwise, an error to report, a diff that git alone cannot tell) is declined, for click.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from caesar_core.git.changes import TreeDiff


def json_answer_text(task_id: str, changes: TreeDiff | None) -> str:
    """``caesar diff TASK_ID --json``'s stdout for the diff ``changes`` (None: no git to ask)."""
    from caesar_core.cli.render import json_text
    from caesar_core.runner.taskdiff import diff_json

    return json_text(diff_json(task_id, changes))


def show_json(root: Path, task_id: str) -> tuple[str, str, int] | None:
    """(stdout, stderr, exit code) of ``caesar diff TASK_ID --json`` in the project at ``root``;
    None where the click command must answer (see the module's docstring). What the reading
    and the diff raise besides (an ``OSError``, a ``CaesarError``) goes to the caller."""
    from caesar_core.store.diffsource import read_diff_source

    source = read_diff_source(root, task_id)
    if source is None:
        return None
    from caesar_core.runner.taskdiff import start_task_diff

    started = start_task_diff(source)  # git stats the work while the rest is imported
    from caesar_core.runner.taskdiff import GitCannotTellError, task_diff

    try:
        changes = task_diff(source, with_patch=True, pygit2=False, started=started)
    except GitCannotTellError:
        return None
    return json_answer_text(task_id, changes), "", 0
