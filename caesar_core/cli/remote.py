"""Tasks on a Dask cluster: ``caesar doctor --on`` and the shepherd (``caesar remote shepherd
ID``, started by caesar itself); ``run --on`` is in ``cli.tasks``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from caesar_core.cli.common import emit_json, project_options, table
from caesar_core.errors import ExitCode
from caesar_core.terminal import safe_text


@click.group(hidden=True)
def remote() -> None:
    """caesar's own processes for remote tasks."""


@remote.command("shepherd")
@click.argument("task_id")
@project_options
def shepherd_command(task_id: str, root: Path, as_json: bool) -> None:
    """Follow remote task TASK_ID to its landing (started by caesar; one per task)."""
    from caesar_core.executor.shepherd import shepherd

    raise SystemExit(shepherd(root, task_id))


def doctor_on(root: Path, address: str, as_json: bool) -> None:
    """``caesar doctor --on ADDRESS``: the cluster's workers, their slots, their agents."""
    from caesar_core.config.paths import layer_path
    from caesar_core.executor import worker_calls
    from caesar_core.executor.shepherd import connect

    texts: dict[str, str | None] = {}
    for layer in ("global", "project", "local"):
        path = layer_path(root, layer)
        texts[f"{layer}_text"] = path.read_text(encoding="utf-8") if path.is_file() else None
    with connect(address) as client:
        workers = client.scheduler_info()["workers"]
        described = client.run(worker_calls.describe, texts, on_error="return") if workers else {}
    rows: list[dict[str, Any]] = []
    for addr in sorted(workers):
        info = described.get(addr)
        if not isinstance(info, dict):
            rows.append({"worker": addr, "ok": False, "problem": f"caesar did not answer: {info}"})
            continue
        runnable = [a["id"] for a in info["agents"] if a["installed"] and a["allowed"]]
        rows.append({"worker": addr, "ok": info["slots"] > 0, **info, "can_run": runnable})
    if as_json:
        emit_json({"address": address, "workers": rows})
    else:
        click.echo(f"scheduler {address}: {len(rows)} worker(s)")
        table(
            [
                [
                    r["worker"],
                    str(r.get("slots", "-")),
                    str(r.get("nthreads", "-")),
                    r.get("caesar", "-"),
                    " ".join(r.get("can_run", [])) or safe_text(r.get("problem", "none")),
                ]
                for r in rows
            ],
            ["WORKER", "SLOTS", "THREADS", "CAESAR", "AGENTS"],
        )
        for r in rows:
            if r["ok"] is False and "problem" not in r:
                click.echo(
                    f"-- {r['worker']} declares no agent_slots: caesar sends it no task "
                    "(start it with --resources agent_slots=N)"
                )
    if not any(r["ok"] for r in rows):
        raise SystemExit(int(ExitCode.FAILURE))
