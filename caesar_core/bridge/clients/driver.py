"""One hook process from stdin to exit code, the same for every client.

The adapter supplies three functions: which event the payload is, the lifecycle step it maps
to, and how a bridge response (or a failure) is said in the client's format. Everything that
can go wrong between reading stdin and writing stdout becomes a failure answer: a crash would
be a non-blocking hook error in every client, i.e. the tool call would run.
"""

from __future__ import annotations

import os
import sys

from caesar_core.bridge.clients.common import PayloadError, read_payload
from caesar_core.bridge.clients.flow import Client, Lifecycle, close_refused
from caesar_core.bridge.clients.taskevents import TaskLog

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import IO, Any

    from caesar_core.bridge.clients.common import Answer
    from caesar_core.bridge.clients.flow import Step

INTEGRATION_MODES = ("casan_owned", "managed_hook", "project_hook", "observed_only")


class Adapter:
    """A client: ``event_of`` names the payload's event (:class:`PayloadError` when none),
    ``parse`` maps it to a step, ``render`` says a response in the client's format, and
    ``fail`` is the fail-closed (or warn-only) answer to a failure during an event (None:
    the event is unknown)."""

    def __init__(
        self,
        client: Client,
        event_of: Callable[[dict[str, Any]], str],
        parse: Callable[[str, dict[str, Any], Mapping[str, str]], Step],
        render: Callable[[str, Step, dict[str, Any] | None, dict[str, Any]], Answer],
        fail: Callable[[str | None, str], Answer],
    ) -> None:
        self.client = client
        self.event_of = event_of
        self.parse = parse
        self.render = render
        self.fail = fail


def closing_refusals(
    render: Callable[[str, Step, dict[str, Any] | None, dict[str, Any]], Answer],
    pre_tool_event: str,
    env: Mapping[str, str],
) -> Callable[[str, Step, dict[str, Any] | None, dict[str, Any]], Answer]:
    """``render``, and after a refused ``pre_tool_event`` the call closed as denied, for
    clients that run no post-tool hook for a call their hook refused (``flow.close_refused``)."""

    def render_and_close(
        event: str, step: Step, response: dict[str, Any] | None, payload: dict[str, Any]
    ) -> Answer:
        answer = render(event, step, response, payload)
        if event == pre_tool_event and response is not None:
            close_refused(step, response, env)
        return answer

    return render_and_close


def options(argv: list[str], client: Client) -> tuple[Client, list[str]]:
    """``--integration-mode MODE`` (declared to the bridge; default project_hook); the rest."""
    rest: list[str] = []
    mode = client.integration_mode
    args = iter(argv)
    for arg in args:
        if arg == "--integration-mode":
            mode = next(args, mode)
        elif arg.startswith("--integration-mode="):
            mode = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    if mode not in INTEGRATION_MODES:
        mode = client.integration_mode
    return Client(client.name, client.schema_client, client.client_version, mode), rest


def drive(
    adapter: Adapter,
    payload_text: IO[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    payload: dict[str, Any] | None = None,
) -> int:
    """Run one hook: read, map, call, answer. Returns the exit code; never raises."""
    env = dict(os.environ) if env is None else env
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    log = TaskLog(env)
    event: str | None = None
    try:
        if payload is None:
            payload = read_payload(payload_text or sys.stdin)
        event = adapter.event_of(payload)
        step = adapter.parse(event, payload, env)
        response = Lifecycle(adapter.client, env, log).run(step)
        answer = adapter.render(event, step, response, payload)
    except PayloadError as exc:
        answer = adapter.fail(event, str(exc))
    except Exception as exc:
        answer = adapter.fail(event, f"the hook adapter failed internally ({type(exc).__name__})")
    try:
        warning = log.flush()
    except Exception as exc:
        warning = f"caesar hook: events not appended ({type(exc).__name__})"
    if warning:
        answer.stderr = f"{answer.stderr}\n{warning}".strip()
    try:
        return answer.emit(out, err)
    except OSError:
        return answer.exit_code
