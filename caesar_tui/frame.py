"""``caesar watch --once``: one plain-text frame of the project, for pipes and scripts.

Built from the same monitor as the app, with no Textual: the tree with each task's state and
headline, then the tool calls waiting for approval and the pending questions.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from caesar_core.humanize import age
from caesar_core.runner.slots import pid_alive
from caesar_core.store import build_tree, walk_tree
from caesar_core.store.record import ChecksMark, checks_mark
from caesar_core.terminal import safe_text
from caesar_core.watch import ProjectMonitor
from caesar_tui.clock import countdown
from caesar_tui.marks import NEEDS_INPUT, STATUS


def text_frame(root: Path, now: datetime, only: tuple[str, ...] = ()) -> str:
    monitor = ProjectMonitor(root, only=only)
    try:
        monitor.scan()
        views = {task_id: monitor.view(task_id, now) for task_id in monitor.ids()}
    finally:
        monitor.close()
    broken = [safe_text(f"broken {problem}") for problem in monitor.problems]
    if not views:
        if broken:
            return "\n".join(broken) + "\n"
        return "no tasks yet: start one with `caesar run OBJECTIVE --agent demo`\n"
    counts: dict[str, int] = {}
    for view in views.values():
        counts[view.record.status.value] = counts.get(view.record.status.value, 0) + 1
    waiting = sum(1 for v in views.values() if v.needs_input)
    lines = [
        "caesar  "
        + "  ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        + (f"  {waiting} need input" if waiting else "")
    ]
    tree = list(walk_tree(build_tree(v.record for v in views.values())))
    # Ids of other tools (the reference's own, up to 128 characters) are padded like caesar's.
    id_width = max(len(safe_text(record.id)) + 2 * level for level, record in tree)
    for level, record in tree:
        view = views[record.id]
        mark = NEEDS_INPUT.glyph if view.needs_input else STATUS[record.status].glyph
        headline = safe_text(view.asking if view.needs_input else view.activity.headline)
        stalled = " (stalled)" if view.activity.stalled else ""
        if view.problem:
            stalled += f"  [broken: {safe_text(view.problem)}]"
        checked = checks_mark(record.checks, pid_alive)
        if checked is not ChecksMark.NOT_RUN:
            stalled += f"  [checks {checked.value}]"
        lines.append(
            f"{'  ' * level}{mark} {safe_text(record.id):<{id_width - 2 * level}}  "
            f"{safe_text(record.role or record.agent):<10} "
            f"{age((now - record.created_at).total_seconds()):>4}  "
            f"{f'turn {record.turn} ' if record.chained else ''}"
            f"{f'{record.executor.label} ' if record.executor else ''}{headline}{stalled}"
        )
    for view in views.values():
        for held in view.approvals if view.needs_input else ():
            summary = safe_text(" ".join(f"{held.tool} {held.summary}".split()))
            reason = f" ({safe_text(held.reason)})" if held.reason else ""
            lines.append(f"approval {view.id} {held.id}: {summary}{reason}, {countdown(held, now)}")
    for view in views.values():
        for question in view.pending:
            options = f" [{' / '.join(question.options)}]" if question.options else ""
            asked = safe_text(question.question + options)
            lines.append(f"question {view.id} {question.id}: {asked}")
    return "\n".join(lines + broken) + "\n"
