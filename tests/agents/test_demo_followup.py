"""The demo agent's ``followup`` script on a follow-up turn's task file laid out by hand: it
answers each item of the review it is given, in the workspace."""

from __future__ import annotations

from collections.abc import Callable

from caesar_core.protocol import Mode, ReportStatus
from caesar_core.protocol.task import FollowUp, FollowUpCheck, FollowUpComment, FollowUpHunk
from tests.agents.test_demo_scripts import TASK_ID, Agent, agent_of, workspace

__all__ = ["agent_of", "workspace"]

PREVIOUS = "t_" + "0" * 31 + "0"


def review(**fields: object) -> FollowUp:
    return FollowUp.model_validate(
        {
            "continues": PREVIOUS,
            "first_turn": PREVIOUS,
            "turn": 2,
            "first_objective": "Fix the parser",
            "previous_objective": "Fix the parser",
            "message": "handle the empty case too",
            **fields,
        }
    )


def test_followup_answers_comments_rejections_and_checks_in_the_workspace(
    agent_of: Callable[..., Agent],
) -> None:
    comment = FollowUpComment(
        path="app.py", start_line=1, end_line=1, text="say hello to the world", code=["print"]
    )
    hunk = FollowUpHunk(path="README.md", header="@@ -1 +1 @@", reason="keep the title")
    check = FollowUpCheck(command="pytest -q", outcome="exit 1", output="1 failed")
    agent = agent_of(
        {}, followup=review(comments=[comment], rejected_hunks=[hunk], failed_checks=[check])
    )

    result = agent.run()

    assert result.returncode == 0, result.stderr
    code = (agent.workspace / "app.py").read_text()
    assert code.splitlines() == [
        "print('hello')  # review (turn 2): say hello to the world (addressed by the demo agent)"
    ]
    compile(code, "app.py", "exec")
    notes = (agent.workspace / "DEMO_NOTES.md").read_text().splitlines()
    assert notes == [
        "- turn 2: handle the empty case too",
        "- turn 2: addressed app.py:1: say hello to the world",
        "- turn 2: left README.md out (keep the title)",
        "- turn 2: check `pytest -q` failed (exit 1)",
    ]
    report = agent.report()
    assert report.status is ReportStatus.SUCCESS and report.task_id == TASK_ID
    assert sorted(c.path for c in report.changes) == ["DEMO_NOTES.md", "app.py"]
    assert "1 comment(s), 1 rejected hunk(s), 1 failed check(s)" in report.summary
    agent.events()


def test_followup_rewrites_the_commented_lines_and_keeps_each_file_valid(
    agent_of: Callable[..., Agent],
) -> None:
    """The last line of each range that can end in a note does, in the file's own syntax; a
    line a backslash continues does not; a format without line comments gets a line under."""
    files = {
        "calc.py": "total = 1 + \\\n    2\n",
        "notes.md": "# title\n\nfirst\n",
        "blank.txt": "a\n\n\nb\n",
        "conf.json": '{"a": 1}\n',
        "main.go": "package main\r\n",
    }
    comments = [
        FollowUpComment(path="calc.py", start_line=1, end_line=2, text="name it"),
        FollowUpComment(path="notes.md", start_line=3, end_line=3, text="say more"),
        FollowUpComment(path="blank.txt", start_line=2, end_line=3, text="fill in"),
        FollowUpComment(path="conf.json", start_line=1, end_line=1, text="b too"),
        FollowUpComment(path="main.go", start_line=1, end_line=1, text="doc it"),
    ]
    agent = agent_of({}, followup=review(comments=comments))
    for name, text in files.items():
        (agent.workspace / name).write_bytes(text.encode())

    assert agent.run().returncode == 0
    note = "review (turn 2): {} (addressed by the demo agent)"
    read = {name: (agent.workspace / name).read_bytes().decode() for name in files}
    assert read["calc.py"] == f"total = 1 + \\\n    2  # {note.format('name it')}\n"
    compile(read["calc.py"], "calc.py", "exec")
    assert read["notes.md"] == f"# title\n\nfirst -- {note.format('say more')}\n"
    assert read["blank.txt"] == f"a\n\n{note.format('fill in')}\nb\n"
    assert read["conf.json"] == f'{{"a": 1}}\n# {note.format("b too")}\n'
    assert read["main.go"] == f"package main  // {note.format('doc it')}\r\n"


def test_followup_leaves_alone_a_comment_outside_the_workspace(
    agent_of: Callable[..., Agent],
) -> None:
    outside = FollowUpComment(path="../escape.py", start_line=1, end_line=1, text="x")
    missing = FollowUpComment(path="nowhere.py", start_line=3, end_line=4, text="y")
    agent = agent_of({}, followup=review(comments=[outside, missing]))

    assert agent.run().returncode == 0
    assert not (agent.workspace.parent / "escape.py").exists()
    assert [c.path for c in agent.report().changes] == ["DEMO_NOTES.md"]


def test_followup_read_only_changes_nothing(agent_of: Callable[..., Agent]) -> None:
    agent = agent_of({}, mode=Mode.READ_ONLY, followup=review())
    assert agent.run().returncode == 0
    assert not (agent.workspace / "DEMO_NOTES.md").exists()
    assert "nothing changed" in agent.report().summary


def test_followup_of_a_first_turn_has_nothing_to_do(agent_of: Callable[..., Agent]) -> None:
    agent = agent_of({"script": "followup"})
    assert agent.run().returncode == 0
    assert agent.report().summary.startswith("Nothing to follow up")
