"""Any program that reads and writes JSON is an agent: the spec's own shell agent, and every
degraded tier of report retrieval."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from tests.runner.conftest import run_json, write_config

JQ_AGENT = textwrap.dedent(
    """\
    #!/usr/bin/env bash
    objective=$(jq -r .objective "$CAESAR_TASK_FILE")

    # … do the work …

    jq -n --arg s "Handled: $objective" '{
      protocol: "caesar.report/v1",
      status: "success",
      summary: $s
    }' > "$CAESAR_REPORT_PATH"
    """
)


def script_agent(root: Path, name: str, body: str, args: str = "{{prompt}}") -> None:
    path = root.parent / f"{name}.sh"
    path.write_text(body)
    path.chmod(0o755)
    config = root / ".caesar" / "config.toml"
    previous = config.read_text() if config.exists() else ""
    write_config(root, previous + f'[[agent]]\nid = "{name}"\nbin = "{path}"\nargs = "{args}"\n')


@pytest.mark.skipif(shutil.which("jq") is None, reason="the spec's agent is written with jq")
def test_the_spec_shell_agent_is_orchestrable(repo: Path) -> None:
    script_agent(repo, "jqagent", JQ_AGENT)
    out = run_json(repo, "Fix the parser", "--agent", "jqagent")
    assert out["_exit"] == 0, out["_stderr"]
    assert out["report"]["summary"] == "Handled: Fix the parser"
    assert out["report_source"] == "file"


def test_a_fenced_report_in_stdout_is_extracted(repo: Path) -> None:
    script_agent(
        repo,
        "talker",
        "#!/bin/sh\necho 'working'\necho '```json caesar:report'\n"
        'echo \'{"protocol":"caesar.report/v1","status":"partial","summary":"said it"}\'\n'
        "echo '```'\necho 'bye'\n",
    )
    out = run_json(repo, "talk", "--agent", "talker")
    assert out["report_source"] == "extracted"
    assert out["report"]["summary"] == "said it" and out["report"]["status"] == "partial"


def test_a_report_on_stderr_is_found_in_raw_log(repo: Path) -> None:
    script_agent(
        repo,
        "whisperer",
        "#!/bin/sh\necho 'noise' \n"
        'echo \'{"protocol":"caesar.report/v1","status":"success","summary":"from stderr"}\' >&2\n',
    )
    out = run_json(repo, "whisper", "--agent", "whisperer")
    assert out["report_source"] == "extracted" and out["report"]["summary"] == "from stderr"


def test_no_report_at_all_is_synthesized(repo: Path) -> None:
    script_agent(repo, "mute", "#!/bin/sh\necho 'did things'\necho 'x' > made.txt\nexit 0\n")
    out = run_json(repo, "mute", "--agent", "mute")
    assert out["report_source"] == "synthesized"
    assert out["report"]["status"] == "partial"  # something changed, nothing was said
    assert out["diff"]["files"] == ["made.txt"]
    assert out["_exit"] == 1  # the report does not say success


def test_a_nonzero_exit_without_report_is_failed(repo: Path) -> None:
    script_agent(repo, "crash", "#!/bin/sh\necho 'boom' >&2\nexit 7\n")
    out = run_json(repo, "crash", "--agent", "crash")
    assert out["status"] == "failed" and out["report"]["status"] == "failed"
    assert "boom" in out["report"]["summary"]


def test_an_unknown_report_version_is_refused_by_name(repo: Path) -> None:
    script_agent(
        repo,
        "future",
        "#!/bin/sh\n"
        'echo \'{"protocol":"caesar.report/v9","status":"success","summary":"from the future"}\''
        ' > "$CAESAR_REPORT_PATH"\n',
    )
    out = run_json(repo, "future", "--agent", "future")
    assert out["report_source"] == "synthesized"
    details = " ".join(f["detail"] for f in out["report"]["findings"])
    assert "caesar.report/v9" in details


def test_the_demo_silent_agent_said_report(repo: Path) -> None:
    out = run_json(
        repo, "quiet", "--agent", "demo", "--context", '{"script": "silent", "say_report": true}'
    )
    assert out["report_source"] == "extracted"


def test_a_spawn_failure_is_a_failed_task_not_a_crash(repo: Path) -> None:
    script_agent(repo, "broken", "not a script at all")
    (repo.parent / "broken.sh").chmod(0o755)
    out = run_json(repo, "x", "--agent", "broken")
    assert out["status"] == "failed"
    assert any(f["title"] == "Agent did not start" for f in out["report"]["findings"])
