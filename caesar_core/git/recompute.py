"""A diff recomputed now: the ``git`` program first (:mod:`caesar_core.git.viagit`), pygit2
(:mod:`caesar_core.git.diff`, loaded here only then) when git cannot tell it.

For the callers that must not load pygit2 unless git cannot answer: the runner's conclusion
and ``caesar diff`` (``diff.changes_since``/``changes_between``, in the module that holds the
fallback, make the same choice there).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from caesar_core.git.changes import TreeDiff
from caesar_core.git.staging import Staging
from caesar_core.git.viagit import changes as changes_by_git


def changes(
    workdir: Path,
    base: str,
    *,
    peel: str,
    exclude: Sequence[str] = (),
    with_patch: bool = False,
    paths: Sequence[str] | None = None,
    started: Staging | None = None,
) -> TreeDiff:
    """What differs between ``base`` (a commit for ``peel="commit"``, a snapshot tree for
    ``"tree"``) and ``workdir``'s content (``started``: see ``viagit.changes``)."""
    found = changes_by_git(
        workdir, base, peel=peel, exclude=exclude, with_patch=with_patch, paths=paths,
        started=started,
    )  # fmt: skip
    if found is not None:
        return found
    from caesar_core.git.diff import (  # pygit2: only when git cannot answer
        Snapshot,
        changes_between_by_pygit2,
        changes_since_by_pygit2,
    )

    if peel == "commit":
        return changes_since_by_pygit2(
            workdir, base, exclude=exclude, with_patch=with_patch, paths=paths
        )
    return changes_between_by_pygit2(
        workdir, Snapshot(base), exclude=exclude, with_patch=with_patch, paths=paths
    )
