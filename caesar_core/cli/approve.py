"""``caesar approve``: allow or deny a tool call an agent is held on.

The bridge (``require_approval`` in a ``[[bridge.rule]]``) writes the request into the task's
``approvals/`` and waits for the answer file; this command writes it. The answer is created
exclusively, so of this command, ``caesar watch`` and the bridge's own timeout, exactly one
decides and the others are told who did.
"""

from __future__ import annotations

from pathlib import Path

import click

from caesar_core.cli.common import emit_json, project_options


@click.command()
@click.argument("task_id")
@click.argument("approval_id")
@click.argument("decision", type=click.Choice(["allow", "deny"]))
@project_options
def approve(task_id: str, approval_id: str, decision: str, root: Path, as_json: bool) -> None:
    """Allow or deny a tool call waiting for approval (as shown by `caesar watch`).

    Exits 1 when the approval is unknown or was already answered (by someone else, or by
    its timeout).
    """
    from caesar_core.protocol.approvals import ApprovalDecision
    from caesar_core.store import TaskStore
    from caesar_core.store.approvals import answer_approval

    store = TaskStore(root)
    store.get(task_id)  # an unknown task is refused before anything is written
    verdict: ApprovalDecision = "allow" if decision == "allow" else "deny"
    answer = answer_approval(store.paths(task_id).root, approval_id, verdict, by="cli")
    if as_json:
        emit_json({"answered": True, **answer.to_json_dict()})
    else:
        click.echo(f"{answer.decision} {approval_id} of {task_id}")
