"""Record a real CLI's stream: ``python -m tests.live.record CLI…`` (codex, claude, opencode,
gemini, copilot, qwen; all of them by default).

Runs the standard scenario against the scripted model server (as the live tests do) and
writes the CLI's JSON lines, workspace path made stable, to
``tests/fixtures/streams/<cli>-<version>.jsonl``: the replay tests' input, and the evidence
behind the README's table of what each agent shows live.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from tests.live.clis import PROJECT, cli_version
from tests.live.scenario import capture_lines, dialect_module, run_live, standard_script
from tests.runner.conftest import git

STREAMS = PROJECT / "tests" / "fixtures" / "streams"


def record(cli: str) -> Path:
    with tempfile.TemporaryDirectory(prefix="caesar-record-") as tmp:
        root = Path(tmp)
        repo = root / "project"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        (repo / "README.md").write_text("# project\n")
        (repo / ".gitignore").write_text(".caesar/\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "initial")
        tier = getattr(dialect_module(cli), "TIER", "file")
        run = run_live(cli, repo, root / "home", standard_script(tier))
        lines = capture_lines(run)
        if not lines:
            raise SystemExit(f"{cli} printed no JSON; raw.log:\n" + "\n".join(run.raw_lines()))
        out = STREAMS / f"{cli}-{cli_version(cli)}.jsonl"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("\n".join(lines) + "\n")
        return out


def main() -> None:
    for cli in sys.argv[1:] or ["codex", "claude", "opencode", "gemini", "copilot", "qwen"]:
        print(record(cli))
    subprocess.run(["git", "status", "--short", str(STREAMS)], check=False)


if __name__ == "__main__":
    main()
