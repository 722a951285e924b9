"""``caesar diff ID --json`` (and ``--root DIR``, in any order) is answered by the console script
without click (``caesar_core.cli.diff_view``): on real tasks (worktree and in place, hostile
paths and text, a missing worktree, records it must not vouch for), its output, errors and exit
code are the click command's, byte for byte; and what it answers loads no click, pydantic or
pygit2."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from caesar_core.cli.entry import direct
from tests.cli.test_entry import answers, plain_env

AGENT = textwrap.dedent(
    """\
    #!/bin/sh
    printf 'changed\\n\\033[31mred\\033]0;title\\007 \\342\\200\\256rtl\\n' >> README.md
    printf 'new\\n' > "$(printf 'we\\033ird \\342\\200\\256name\\ttab.txt')"
    printf 'x\\r\\ny\\n' > 'quote"back\\slash.txt'
    mkdir -p sub && printf 'deep\\n' > sub/file.txt
    ln -s /etc/passwd outside-link
    rm -f gone.txt
    printf '{"protocol": "caesar.report/v1", "status": "success", "summary": "ok"}' \\
      > "$CAESAR_REPORT_PATH"
    """
)


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def caesar(cwd: Path, *args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", "from caesar_core.cli.main import main; main()", *args, "--json"],
        cwd=cwd,
        env=plain_env(),
        capture_output=True,
        check=False,
    )
    loaded: dict[str, object] = json.loads(done.stdout)
    return loaded


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("diffproject") / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    (root / "README.md").write_text("# project\n")
    (root / "gone.txt").write_text("bye\n")
    (root / ".gitignore").write_text(".caesar/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    script = root.parent / "agent.sh"
    script.write_text(AGENT)
    script.chmod(0o755)
    config = root / ".caesar" / "config.toml"
    config.parent.mkdir()
    config.write_text(f'[[agent]]\nid = "sh"\nbin = "{script}"\nargs = "{{{{prompt}}}}"\n')
    return root


def task(project: Path, *options: str) -> str:
    out = caesar(project, "run", "change things", "--agent", "sh", *options)
    return str(out["task_id"])


def record_path(project: Path, task_id: str) -> Path:
    return project / ".caesar" / "state" / "tasks" / f"{task_id}.json"


def both(argvs: list[list[str]], cwd: Path) -> None:
    env = plain_env()
    assert answers("entry", argvs, env, cwd) == answers("main", argvs, env, cwd)


def diff_argvs(task_id: str, root: Path) -> list[list[str]]:
    parts = [[task_id], ["--json"], ["--root", str(root)]]
    orders = [
        ["diff", *itertools.chain.from_iterable(order)]
        for count in (2, 3)
        for order in itertools.permutations(parts, count)
        if [task_id] in order and ["--json"] in order
    ]
    return [*orders, ["diff", task_id], ["diff", task_id, "--json", "--stat"]]


def test_a_worktree_task_is_answered_as_click_does(project: Path, tmp_path: Path) -> None:
    task_id = task(project, "--isolation", "worktree")
    assert direct(["diff", task_id, "--json", "--root", str(project)]) is not None
    both(diff_argvs(task_id, project), project)
    both([["diff", task_id, "--json"]], tmp_path)  # another project: no such task


@pytest.mark.parametrize("ignored", [False, True])
def test_an_in_place_task_is_answered_as_click_does(
    tmp_path: Path, project: Path, ignored: bool
) -> None:
    """With ``.caesar/`` ignored or not, git tells the diff, and both paths answer alike."""
    copy = tmp_path / "inplace"
    shutil.copytree(project, copy, ignore=shutil.ignore_patterns("wt", "state", "tasks"))
    if not ignored:
        git(copy, "rm", "-q", ".gitignore")
        git(copy, "commit", "-q", "-m", "nothing ignored")
    (copy / ".caesar" / "config.local.toml").write_text("[policy]\nallow_inplace_write = true\n")
    task_id = task(copy, "--isolation", "inplace")
    assert direct(["diff", task_id, "--json", "--root", str(copy)]) is not None
    both(diff_argvs(task_id, copy), copy)


def test_a_missing_worktree_is_answered_as_click_does(tmp_path: Path, project: Path) -> None:
    task_id = task(project, "--isolation", "worktree")
    worktree = json.loads(record_path(project, task_id).read_text())["worktree_path"]
    shutil.rmtree(worktree)
    both(diff_argvs(task_id, project), project)


@pytest.mark.parametrize(
    "change",
    [
        {"base_ref": None},
        {"created_at": "yesterday"},
        {"excluded_paths": None},
        {"excluded_paths": ["a", 1]},
        {"protocol": None},
        {"status": "weird"},
        {"turn": 0},
        {"unknown_key": 1},
        {"checks": {"state": "passed"}},
        {"worktree_path": 7},
    ],
)
def test_records_it_cannot_vouch_for_go_to_click(project: Path, change: dict[str, object]) -> None:
    task_id = task(project, "--isolation", "worktree")
    path = record_path(project, task_id)
    data = json.loads(path.read_text())
    for key, value in change.items():
        if value is None:
            data.pop(key, None) if key == "protocol" else data.__setitem__(key, None)
        else:
            data[key] = value
    path.write_text(json.dumps(data))
    assert direct(["diff", task_id, "--json", "--root", str(project)]) is None
    both([["diff", task_id, "--json"]], project)


def test_other_ids_go_to_click(project: Path) -> None:
    task_id = task(project, "--isolation", "worktree")
    for other in (task_id[:8], "t_imposed", "nosuch", task_id + "0"):
        assert direct(["diff", other, "--json", "--root", str(project)]) is None
    both([["diff", task_id[:8], "--json"], ["diff", "t_imposed", "--json"]], project)


def test_a_symlinked_record_is_read_as_click_reads_it(project: Path, tmp_path: Path) -> None:
    task_id = task(project, "--isolation", "worktree")
    path = record_path(project, task_id)
    elsewhere = tmp_path / "record.json"
    path.rename(elsewhere)
    path.symlink_to(elsewhere)
    both([["diff", task_id, "--json"]], project)


def test_diff_json_loads_no_click_pydantic_or_pygit2(project: Path) -> None:
    task_id = task(project, "--isolation", "worktree")
    code = (
        "import sys; from caesar_core.cli.entry import direct; "
        f"assert direct(['diff', {task_id!r}, '--json']) is not None; "
        "print(' '.join(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=project, env=plain_env(), capture_output=True, check=True
    )
    loaded = set(done.stdout.decode().split())
    assert not {"click", "pydantic", "pydantic_core", "pygit2"} & loaded
    assert "caesar_core.store.record" not in loaded
