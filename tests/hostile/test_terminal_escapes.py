"""An agent that writes terminal escapes into everything caesar shows (case 16 of issue 11).

OSC ``ESC ] 0;title BEL`` retitles the window, CR and backspace overwrite caesar's own words,
a newline in a file name forges a line (``fake\\n  a.txt`` listed as ``a.txt``), bidi overrides
reorder text. Whatever the agent wrote reaches the terminal with its controls escaped and its
paths quoted; ``--json`` keeps the exact values.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.hostile.conftest import hostile_agent
from tests.hostile.screen import assert_safe, on_screen

FORGED = "fake\n  a.txt"
TITLE = "t\x1b]0;owned\x07.txt"
ESCAPES = r"""
if [ "$1" = "--version" ]; then printf 'esc 1.0\033]0;owned\007\233\n'; exit 0; fi
nl='
'
esc=$(printf '\033'); bel=$(printf '\007')
echo x > "fake${nl}  a.txt"
echo y > "t${esc}]0;owned${bel}.txt"
echo z > "$(printf 'bad\377.txt')"
ev() {
  head='"protocol":"caesar.event/v1","at":"2026-01-01T00:00:00Z"'
  printf '{%s,"seq":%s,"task_id":"%s",%s}\n' "$head" "$1" "$CAESAR_TASK_ID" "$2" \
    >> "$CAESAR_EVENTS_PATH"
}
ev 0 '"type":"progress","message":"\u001b]0;owned\u0007half\rFORGED\b\u202e"'
ev 1 '"type":"file_changed","path":"fake\n  a.txt","action":"created"'
tool='"type":"tool_use","tool":"Bash\u001b[2J","id":"c1","status":"started"'
ev 2 "$tool"',"input_summary":"ls\u0085"'
finding='{"severity":"info","title":"t\u001b[2J","detail":"d\bX"}'
printf '{"protocol":"caesar.report/v1","status":"success",%s,"findings":[%s]}' \
  '"summary":"\u001b]0;owned\u0007all good\r"' "$finding" > "$CAESAR_REPORT_PATH"
echo "raw ${esc}]0;owned${bel} line"
"""


def forged_line(text: str) -> bool:
    """A line that reads as if caesar listed a file named ``a.txt``."""
    return any(line.strip().endswith("a.txt") and '"' not in line for line in text.splitlines())


def escaping_task(repo: Path) -> str:
    hostile_agent(repo, "esc", ESCAPES)
    done = on_screen(repo, "run", "x", "--agent", "esc", "--isolation", "worktree")
    assert_safe(done)
    assert done.code == 0, done.err
    assert not forged_line(done.out), done.out
    assert '"fake\\n  a.txt"' in done.out and '"t\\x1b]0;owned\\x07.txt"' in done.out
    assert '"bad\\xff.txt"' in done.out
    assert "progress  \\x1b]0;owned\\x07half\\rFORGED\\x08\\u202e" in done.out
    assert "\\x1b]0;owned\\x07all good\\r" in done.out
    assert "[info] t\\x1b[2J: d\\x08X" in done.out
    return done.out.split()[1]


def test_run_logs_diff_and_apply_show_the_agent_s_text_escaped(repo: Path) -> None:
    task_id = escaping_task(repo)

    logs = on_screen(repo, "logs", task_id)
    raw = on_screen(repo, "logs", task_id, "--raw")
    stat = on_screen(repo, "diff", task_id, "--stat")
    patch = on_screen(repo, "diff", task_id)
    applied = on_screen(repo, "apply", task_id)
    ps = on_screen(repo, "ps")
    for screen in (logs, raw, stat, applied, ps):
        assert_safe(screen)
        assert not forged_line(screen.out), screen.out
    assert 'file      created "fake\\n  a.txt"' in logs.out
    assert "▸ Bash\\x1b[2Jls" in logs.out  # NEL (\\x85) counts as blank space there
    assert "raw \\x1b]0;owned\\x07 line" in raw.out
    assert 'created   "fake\\n  a.txt"  +1 -0' in stat.out
    assert '"t\\x1b]0;owned\\x07.txt"' in stat.out
    assert applied.code == 0, applied.err
    assert '  "fake\\n  a.txt"' in applied.out
    # Into a pipe the patch stays exact (for `git apply`); libgit2 quotes its header paths.
    assert patch.code == 0 and '"b/fake\\n  a.txt"' in patch.out
    assert (repo / FORGED).read_text() == "x\n" and (repo / TITLE).read_text() == "y\n"


def test_json_output_keeps_the_exact_values(repo: Path) -> None:
    task_id = escaping_task(repo)

    diff = on_screen(repo, "diff", task_id, "--json")
    logs = on_screen(repo, "logs", task_id, "--json")
    for screen in (diff, logs):
        assert_safe(screen)
    paths = {entry["path"] for entry in json.loads(diff.out)["files"]}
    assert {FORGED, TITLE, "bad\udcff.txt"} == paths
    events = [json.loads(line) for line in logs.out.splitlines()]
    progress = next(event for event in events if event["type"] == "progress")
    assert progress["message"] == "\x1b]0;owned\x07half\rFORGED\x08\u202e"
    tool = next(event for event in events if event["type"] == "tool_use")
    assert tool["input_summary"] == "ls\x85"


def test_an_agent_s_version_line_is_shown_escaped(repo: Path) -> None:
    hostile_agent(repo, "esc", ESCAPES)

    listed = on_screen(repo, "agents", "list")
    doctor = on_screen(repo, "doctor")
    for screen in (listed, doctor):
        assert_safe(screen)
        assert "esc 1.0\\x1b]0;owned\\x07" in screen.out
