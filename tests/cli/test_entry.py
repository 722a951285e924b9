"""The console script answers some argv shapes without click (``caesar_core.cli.entry.DIRECT``):
for every shape, and every argv near one (bad documents, help, misspelt or extra options,
shell completion), its output, errors and exit code are the click command's, byte for byte.
And the shapes it answers load no click."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from caesar_core.cli.entry import DIRECT, WORD
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


def answers(module: str, argvs: list[list[str]], env: dict[str, str]) -> list[list[object]]:
    done = subprocess.run(
        [sys.executable, "-c", HARNESS.format(module=module), json.dumps(argvs)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    results: list[list[object]] = json.loads(done.stdout)
    return results


def plain_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("_CAESAR", "COMP_"))}


def fits(shape: tuple[str, ...], argv: list[str]) -> bool:
    return len(shape) == len(argv) and all(
        part == arg or (part == WORD and arg[:1] not in ("", "-"))
        for part, arg in zip(shape, argv, strict=True)
    )


def test_every_shape_of_the_table_is_among_the_argvs_tried() -> None:
    for shape in DIRECT:
        assert any(fits(shape, argv) for argv in ARGVS), shape


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
