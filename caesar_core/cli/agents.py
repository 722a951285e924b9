"""``caesar agents``: list the agents, declare and remove them, let them run or not, pick
their model, and try one with a real micro-task."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from caesar_core.cli.common import emit_json, project_options, table
from caesar_core.cli.layered import layer_options, show_change
from caesar_core.errors import CaesarError, ExitCode
from caesar_core.terminal import safe_text

if TYPE_CHECKING:
    from caesar_core.config import Layer

TEST_OBJECTIVE = (
    "This is a connectivity check started by `caesar agents test`. Do not read, create or "
    "change any file and run no command. End at once with your report: status success, "
    'summary "OK".'
)
"""The micro-task of ``agents test``: read-only, asks for nothing but a report."""


@click.group()
def agents() -> None:
    """The agents caesar can delegate to."""


@agents.command("list")
@project_options
def agents_list(root: Path, as_json: bool) -> None:
    """Every known agent: installed or not, allowed or not, and what it can do."""
    from caesar_core.agents.describe import agent_rows, short_capabilities

    rows = agent_rows(root)
    if as_json:
        emit_json(rows)
        return
    table(
        [
            [
                r["id"],
                r["version"] or ("missing" if not r["installed"] else "?"),
                "yes" if r["allowed"] else "denied",
                short_capabilities(r["capabilities"]),
                r["model"] or "-",
                r["source"],
            ]
            for r in rows
        ],
        ["AGENT", "VERSION", "ALLOWED", "CAN", "MODEL", "FROM"],
    )


@agents.command("enable")
@click.argument("agent_id")
@layer_options
@project_options
def agents_enable(agent_id: str, layer: Layer, dry_run: bool, root: Path, as_json: bool) -> None:
    """Let AGENT_ID run: out of policy.denied, and into policy.allowed when that lists any."""
    from caesar_core.configure import Editor

    show_change(Editor(root).enable(layer, agent_id), dry_run=dry_run, as_json=as_json)


@agents.command("disable")
@click.argument("agent_id")
@layer_options
@project_options
def agents_disable(agent_id: str, layer: Layer, dry_run: bool, root: Path, as_json: bool) -> None:
    """Stop AGENT_ID from running: into policy.denied."""
    from caesar_core.configure import Editor

    show_change(Editor(root).disable(layer, agent_id), dry_run=dry_run, as_json=as_json)


@agents.command("add")
@click.argument("agent_id")
@click.option("--bin", "binary", required=True, help="A command on PATH, or a path.")
@click.option("--args", "args", help='The command-line template (default "{{prompt}}").')
@click.option("--display-name", help="The name shown (default: the id).")
@click.option("--cwd-mode", type=click.Choice(["process", "flag"]))
@click.option("--native-read-only", is_flag=True, default=None, help="The CLI enforces read-only.")
@click.option("--read-only-args", help="Template appended to read-only tasks' arguments.")
@layer_options
@project_options
def agents_add(
    agent_id: str,
    binary: str,
    args: str | None,
    display_name: str | None,
    cwd_mode: str | None,
    native_read_only: bool | None,
    read_only_args: str | None,
    layer: Layer,
    dry_run: bool,
    root: Path,
    as_json: bool,
) -> None:
    """Declare AGENT_ID as an [[agent]] (an entry of that layer with the id is replaced whole;
    a built-in's id replaces the built-in)."""
    from caesar_core.configure import Editor

    fields = {
        "bin": binary,
        "args": args,
        "display_name": display_name,
        "cwd_mode": cwd_mode,
        "native_read_only": native_read_only,
        "read_only_args": read_only_args,
    }
    change = Editor(root).add_agent(layer, agent_id, fields)
    show_change(change, dry_run=dry_run, as_json=as_json)


@agents.command("remove")
@click.argument("agent_id")
@layer_options
@project_options
def agents_remove(agent_id: str, layer: Layer, dry_run: bool, root: Path, as_json: bool) -> None:
    """Remove that layer's [[agent]] AGENT_ID."""
    from caesar_core.configure import Editor

    show_change(Editor(root).remove_agent(layer, agent_id), dry_run=dry_run, as_json=as_json)


@agents.command("set-model")
@click.argument("agent_id")
@click.argument("model")
@layer_options
@project_options
def agents_set_model(
    agent_id: str, model: str, layer: Layer, dry_run: bool, root: Path, as_json: bool
) -> None:
    """Ask AGENT_ID for MODEL ([models] in that layer; a role's own model wins)."""
    from caesar_core.configure import Editor

    change = Editor(root).set_model(layer, agent_id, model)
    show_change(change, dry_run=dry_run, as_json=as_json)


@agents.command("unset-model")
@click.argument("agent_id")
@layer_options
@project_options
def agents_unset_model(
    agent_id: str, layer: Layer, dry_run: bool, root: Path, as_json: bool
) -> None:
    """Remove AGENT_ID's model from [models] in that layer."""
    from caesar_core.configure import Editor

    show_change(Editor(root).unset_model(layer, agent_id), dry_run=dry_run, as_json=as_json)


@agents.command("test")
@click.argument("agent_id")
@click.option("--yes", is_flag=True, help="Run it: a real task, on the agent's real quota.")
@click.option("--timeout", default="2m", show_default=True, help="How long the agent gets.")
@project_options
def agents_test(agent_id: str, yes: bool, timeout: str, root: Path, as_json: bool) -> None:
    """Give AGENT_ID a real read-only micro-task through the normal runner; "responded" only
    when a report of its own came back (not one caesar had to synthesize)."""
    from caesar_core.cli.tasks import execute_live
    from caesar_core.config import DurationError, load_config, parse_duration
    from caesar_core.configure import known_agent
    from caesar_core.protocol.task import Mode
    from caesar_core.runner.delegation import Request
    from caesar_core.runner.engine import Runner, StartFailed

    loaded = load_config(root)
    known_agent(loaded, agent_id)
    if not yes:
        raise CaesarError(
            f"`caesar agents test {agent_id}` starts a real task: {agent_id} is asked, "
            "read-only, to reply with a report and nothing else. It counts against "
            "max_parallel and uses the agent's own account and quota.",
            f"add --yes to run it: caesar agents test {agent_id} --yes",
            exit_code=ExitCode.USAGE,
        )
    try:
        timeout_ms = parse_duration(timeout)
    except DurationError as error:
        raise click.BadParameter(str(error), param_hint="--timeout") from None
    request = Request(
        objective=TEST_OBJECTIVE, agent=agent_id, mode=Mode.READ_ONLY, timeout_ms=timeout_ms
    )
    runner = Runner(root, loaded)
    started = time.monotonic()
    try:
        # quietly (no event lines), Ctrl-C stopping the agent and still concluding the task
        outcome = execute_live(runner, runner.prepare(request, root), as_json=True)
    except StartFailed as failed:
        outcome = failed.outcome
    took_ms = int((time.monotonic() - started) * 1000)
    source = outcome.record.report_source
    responded = source is not None and source.value != "synthesized"
    result = {
        "agent": agent_id,
        "task_id": outcome.record.id,
        "responded": responded,
        "status": outcome.record.status.value,
        "report_source": source.value if source else None,
        "report_status": outcome.report.status.value,
        "summary": outcome.report.summary,
        "duration_ms": took_ms,
    }
    if as_json:
        emit_json(result)
    else:
        _say_tested(result)
    if not responded:
        raise SystemExit(int(ExitCode.FAILURE))


def _say_tested(result: dict[str, Any]) -> None:
    from caesar_core.humanize import duration, one_line

    took = duration(result["duration_ms"] / 1000)
    summary = one_line(str(result["summary"]), 200)
    if result["responded"]:
        line = (
            f"{result['agent']} responded in {took}: its report came by the "
            f"{result['report_source']} tier, status {result['report_status']}: {summary}"
        )
    else:
        line = (
            f"{result['agent']} did not respond with a report in {took} (task "
            f"{result['status']}; caesar synthesized one): {summary}"
        )
    click.echo(safe_text(line))
    task_id = result["task_id"]
    click.echo(f"  task {task_id}: `caesar logs {task_id} --raw` shows its output")
