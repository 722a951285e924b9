"""The console script answers some argv shapes without click (``caesar_core.cli.entry.DIRECT``):
for every shape, and every argv near one (bad documents, unknown statuses, unusable roots,
help, misspelt or extra options, shell completion), its output, errors and exit code are the
click command's, byte for byte. And the shapes it answers load no click."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from caesar_core.cli.entry import DIRECT, PS_OPTIONS, WORD, direct, ps_shapes
from caesar_core.published import DESCRIPTIONS

DOCUMENTS = sorted(DESCRIPTIONS)
ARGVS: list[list[str]] = [
    [],
    ["--version"],
    ["--version", "x"],
    ["--help"],
    ["protocol"],
    ["protocol", "--help"],
    ["protocol", "schema"],
    ["protocol", "schema", "--strict"],
    ["protocol", "schema", "--strict", "--strict"],
    *(["protocol", "schema", name] for name in DOCUMENTS),
    *(["protocol", "schema", name, "--strict"] for name in DOCUMENTS),
    *(["protocol", "schema", "--strict", name] for name in DOCUMENTS),
    ["protocol", "schema", "nosuch"],
    ["protocol", "schema", "nosuch", "--strict"],
    ["protocol", "schema", "--strict", "nosuch"],
    ["protocol", "schema", "REPORT"],
    ["protocol", "schema", "protocol"],
    ["protocol", "schema", ""],
    ["protocol", "schema", "-"],
    ["protocol", "schema", "--help"],
    ["protocol", "schema", "-h"],
    ["protocol", "schema", "report", "--help"],
    ["protocol", "schema", "report", "task"],
    ["protocol", "schema", "report", "--strict", "task"],
    ["protocol", "schema", "--stric", "report"],
    ["protocol", "schema", "--strict=1", "report"],
    ["protocol", "schema", "--", "report"],
    ["protocol", "schema", "report", "-x"],
    ["protocol", "validate"],
    ["schema", "report"],
    ["diff"],
    ["diff", "--json"],
    ["diff", "t_nosuch", "--json"],
    ["diff", "t_nosuch", "--json", "--json"],
    ["diff", "t_nosuch", "--json", "--help"],
    ["diff", "--root=.", "t_nosuch", "--json"],
    ["diff", "t_nosuch", "--json", "--root"],
    ["diff", "t_nosuch", "--json", "--root", "/nonexistent"],
]
HARNESS = """
import io, json, sys
from caesar_core.cli.{module} import main
results = []
real = sys.stdout, sys.stderr
for argv in json.loads(sys.argv[1]):
    out, err = io.BytesIO(), io.BytesIO()
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    sys.stderr = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
    sys.argv = ["caesar", *argv]
    try:
        main()
        code = 0
    except SystemExit as stop:
        code = stop.code
    results.append([code, out.getvalue().decode(), err.getvalue().decode()])
sys.stdout, sys.stderr = real
print(json.dumps(results))
"""
"""Runs ``main`` of ``caesar_core.cli.<module>`` over every argv, each as the console script
would (``sys.argv``, exit code, both streams), in one fresh interpreter."""


def answers(
    module: str, argvs: list[list[str]], env: dict[str, str], cwd: Path | None = None
) -> list[list[object]]:
    done = subprocess.run(
        [sys.executable, "-c", HARNESS.format(module=module), json.dumps(argvs)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=True,
    )
    results: list[list[object]] = json.loads(done.stdout)
    return results


def plain_env() -> dict[str, str]:
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("_CAESAR", "COMP_")) and k != "CAESAR_TASK_DIR"
    }


def fits(shape: tuple[str, ...], argv: list[str]) -> bool:
    return len(shape) == len(argv) and all(
        part == arg or (part == WORD and arg[:1] not in ("", "-"))
        for part, arg in zip(shape, argv, strict=True)
    )


def test_every_shape_of_the_table_is_among_the_argvs_tried(tmp_path: Path) -> None:
    from tests.cli.test_entry_diff import diff_argvs

    tried = ARGVS + ps_argvs(tmp_path) + diff_argvs("t_" + "0" * 32, tmp_path)
    for shape in {**DIRECT, **ps_shapes()}:
        assert any(fits(shape, argv) for argv in tried), shape


def make_project(root: Path, *, broken: bool = True, live: bool = True) -> Path:
    """A project whose listing has every kind of row: more than ten ended tasks (``ps``
    without ``--all`` shows ten), a delegated one, a running one (on another host: no sweep)
    with a question waiting, text an agent wrote that must be escaped or clipped, and a
    record that cannot be read."""
    from caesar_core.protocol.task import Isolation, Mode
    from caesar_core.store import TaskRecord, TaskStatus, TaskStore, ask, new_task_id

    (root / ".caesar").mkdir(parents=True)
    store = TaskStore(root)
    start = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
    ids: list[str] = []
    for number in range(14):
        record = TaskRecord(
            id=new_task_id(),
            created_at=start + timedelta(minutes=number),
            agent="demo",
            role="reviewer" if number == 3 else None,
            parent_id=ids[0] if number in (5, 6) else None,
            objective=f"task {number}" + (" \x1b[2J\u202e évité" * 8 if number == 4 else ""),
            workspace=str(root),
            isolation=Isolation.INPLACE,
            mode=Mode.READ_ONLY,
        )
        store.create(record)
        ids.append(record.id)
        if number < 12 or not live:
            status = TaskStatus.FAILED if number % 5 == 1 else TaskStatus.SUCCEEDED
            store.conclude(record.id, status)
    if live:
        store.set(ids[12], status=TaskStatus.RUNNING, orchestrator_pid=1, orchestrator_host="far")
        ask(store.paths(ids[12]), "Which way?", ["left", "right"])
    if broken:
        (root / ".caesar" / "state" / "tasks" / "t_broken.json").write_text("{not json")
    return root


def ps_argvs(root: Path) -> list[list[str]]:
    """Every shape of ``ps`` the table answers, with a root and statuses, and argvs near
    them that it must leave to click."""
    values = {"--root": str(root), "--status": "succeeded,running"}
    shaped = [
        [
            "ps",
            *itertools.chain.from_iterable((o[0], values.get(o[0], ""))[: len(o)] for o in order),
        ]
        for count in range(len(PS_OPTIONS) + 1)
        for order in itertools.permutations(PS_OPTIONS, count)
    ]
    (root / "empty").mkdir(exist_ok=True)
    (root / "a-file").write_text("")
    return [
        *shaped,
        ["ps", "--status", "failed"],
        ["ps", "--status", " failed , pending,"],
        ["ps", "--status", ","],
        ["ps", "--status", "bogus"],
        ["ps", "--status", "bogus", "--json"],
        ["ps", "--status", "done,bogus", "--root", str(root / "nowhere")],
        ["ps", "--root", str(root / "empty")],
        ["ps", "--root", str(root / "empty"), "--json"],
        ["ps", "--root", str(root / "nowhere")],
        ["ps", "--root", str(root / "a-file"), "--all"],
        ["ps", "--root", "."],
        ["ps", f"--root={root}"],
        ["ps", "--root"],
        ["ps", "--status"],
        ["ps", "--all", "--all"],
        ["ps", "--json", "--json", "--all"],
        ["ps", "-h"],
        ["ps", "--help"],
        ["ps", "--al"],
        ["ps", "extra"],
        ["ps", "--all", "--", "x"],
    ]


def test_the_console_script_answers_ps_as_click_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path / "project")
    argvs = ps_argvs(root)
    env = plain_env()
    inside = root / "empty"  # found from the cwd: its parent has .caesar/
    ours, clicks = answers("entry", argvs, env, inside), answers("main", argvs, env, inside)
    monkeypatch.chdir(inside)
    shapes = len(ps_shapes())  # the first argvs, the others after
    answered = [argv for argv in argvs if direct(argv) is not None]
    near = [shapes, shapes + 1, shapes + 2, shapes + 6, shapes + 7, shapes + 10]  # valid ones
    assert answered == argvs[:shapes] + [argvs[index] for index in near]
    for argv, mine, theirs in zip(argvs, ours, clicks, strict=True):
        assert mine == theirs, argv
    outputs = {out for code, out, _ in clicks if code == 0}
    assert len(outputs) > 8  # the listing, --all, --json, statuses, the empty project ...
    assert any("no tasks yet" in str(out) for out in outputs)
    assert all("caesar: skipped" in str(err) for _, out, err in clicks if "TASK" in str(out))
    assert any("\\x1b[2J" in str(out) for out in outputs)
    assert {2}.issubset({code for code, _, _ in clicks})


def test_the_console_script_answers_every_argv_as_click_does() -> None:
    env = plain_env()
    ours, clicks = answers("entry", ARGVS, env), answers("main", ARGVS, env)
    for argv, mine, theirs in zip(ARGVS, ours, clicks, strict=True):
        assert mine == theirs, argv
    assert [code for code, _, _ in clicks].count(0) > len(DIRECT)  # shapes that succeed
    assert {2}.issubset({code for code, _, _ in clicks})  # and usage errors among them


def test_shell_completion_is_left_to_click() -> None:
    argvs = [["protocol", "schema"], ["protocol", "schema", "report"], ["--version"]]
    env = plain_env() | {
        "_CAESAR_COMPLETE": "bash_complete",
        "COMP_WORDS": "caesar protocol schema r",
        "COMP_CWORD": "3",
    }
    assert answers("entry", argvs, env) == answers("main", argvs, env)


def test_the_direct_shapes_load_no_click() -> None:
    probe = (
        "import sys\n"
        "from caesar_core.cli.entry import main\n"
        "for argv in (['--version'], ['protocol', 'schema'], ['protocol', 'schema', 'report',"
        " '--strict']):\n"
        "    sys.argv = ['caesar', *argv]\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = {'click', 'pydantic', 'typing', 'pathlib', 'json', 're'} & set(sys.modules)\n"
        "sys.stderr.write(' '.join(sorted(heavy)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=plain_env(),
        timeout=60,
        check=True,
    )
    assert done.stderr == ""


def test_ps_of_a_project_with_tasks_loads_no_click(tmp_path: Path) -> None:
    """``caesar ps --all`` of a project whose listing was read before: neither click nor git,
    the screen, the MCP SDK, pydantic or a record's model. (A broken record is read whole
    each time, and a running task's questions are models: pydantic, but still no click.)"""
    from caesar_core.store.listing import list_tasks

    root = make_project(tmp_path / "project", broken=False, live=False)
    assert len(list_tasks(root).tasks) == 14  # read whole once: the probe's from the cache
    probe = (
        "import sys\n"
        "from caesar_core.cli.entry import main\n"
        "for argv in (['ps', '--all'], ['ps', '--all', '--json'], ['ps']):\n"
        "    sys.argv = ['caesar', *argv]\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = {'click', 'pygit2', 'textual', 'rich', 'mcp', 'pydantic'}\n"
        "names = {name.partition('.')[0] for name in sys.modules}\n"
        "names |= {'record'} & {name.rpartition('.')[2] for name in sys.modules}\n"
        "sys.stderr.write(' '.join(sorted((heavy | {'record'}) & names)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=plain_env(),
        cwd=root,
        timeout=60,
        check=True,
    )
    assert "TASK" in done.stdout
    assert done.stderr == ""


SCHEMA = ["protocol", "schema", "lifecycle"]


@pytest.mark.parametrize("module", ["entry", "main"])
def test_a_closed_pipe_exits_1_in_silence_either_way(module: str) -> None:
    read, write = os.pipe()
    os.close(read)  # nobody reads: the first write fails with EPIPE
    done = subprocess.run(
        [sys.executable, "-c", f"from caesar_core.cli.{module} import main; main()", *SCHEMA],
        stdout=write,
        stderr=subprocess.PIPE,
        env=plain_env(),
        timeout=60,
        check=False,
    )
    os.close(write)
    assert (done.returncode, done.stderr) == (1, b"")


@pytest.mark.parametrize("argv", [SCHEMA, ["--version"]], ids=["schema", "version"])
@pytest.mark.parametrize("module", ["entry", "main"])
def test_no_stdout_at_all_prints_nothing_and_succeeds_either_way(
    module: str, argv: list[str]
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", f"from caesar_core.cli.{module} import main; main()", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=plain_env(),
        timeout=60,
        check=False,
        preexec_fn=lambda: os.close(1),
    )
    assert (done.returncode, done.stderr) == (0, b"")


@pytest.mark.parametrize("closed", ["pipe", "stdout"])
@pytest.mark.parametrize("module", ["entry", "main"])
def test_ps_to_a_closed_pipe_or_no_stdout_either_way(
    tmp_path: Path, module: str, closed: str
) -> None:
    """A closed pipe: exit 1 in silence; no stdout at all: nothing printed, exit 0 (the
    broken record's line still on stderr)."""
    root = make_project(tmp_path / "project")
    read, write = os.pipe()
    os.close(read)
    done = subprocess.run(
        [sys.executable, "-c", f"from caesar_core.cli.{module} import main; main()", "ps"],
        stdout=write if closed == "pipe" else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=plain_env(),
        cwd=root,
        timeout=60,
        check=False,
        preexec_fn=(lambda: os.close(1)) if closed == "stdout" else None,
    )
    os.close(write)
    assert done.returncode == (1 if closed == "pipe" else 0)
    assert done.stderr.decode().startswith("caesar: skipped ")
    assert done.stderr.count(b"\n") == 1


@pytest.mark.parametrize("encoding", ["ascii", "utf-8:surrogateescape"])
def test_ps_to_streams_of_another_encoding_either_way(tmp_path: Path, encoding: str) -> None:
    """click writes UTF-8 to a stream that says ASCII; the console script leaves such streams
    to it, and answers UTF-8 ones itself, with the same bytes."""
    root = make_project(tmp_path / "project")
    env = plain_env() | {"PYTHONIOENCODING": encoding}
    runs = [
        subprocess.run(
            [sys.executable, "-c", f"from caesar_core.cli.{module} import main; main()", "ps"],
            capture_output=True,
            env=env,
            cwd=root,
            timeout=60,
            check=False,
        )
        for module in ("entry", "main")
    ]
    ours, clicks = ((done.returncode, done.stdout, done.stderr) for done in runs)
    assert ours == clicks
    assert "…".encode() in clicks[1]
