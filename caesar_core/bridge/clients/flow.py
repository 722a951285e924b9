"""From one client event to the bridge's lifecycle: which op, on which admission.

Clients speak in sessions and turns; the bridge in admissions. An admission here is one turn:
it begins at the user's prompt (``UserPromptSubmit``, Gemini's ``BeforeAgent``), so the prompt
is scanned at ``begin``, and ends at the turn's end (``Stop``/``AfterAgent`` -> finalize;
``StopFailure``, an interrupt, or a session ending mid-turn -> abort). The open admission of a
session is remembered in :class:`~caesar_core.bridge.clients.common.Sessions`.

A hook that needs an admission when none is open (hooks installed mid-turn, a client whose
prompt event is not hooked, ``SessionStart`` having no prompt) begins one with an empty prompt:
the trace then shows a turn whose prompt the bridge never saw, rather than no trace at all.
"""

from __future__ import annotations

from caesar_core.bridge.clients.common import Sessions, adapter_version, call_bridge

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from caesar_core.bridge.clients.taskevents import TaskLog

STAYS_OPEN = frozenset({"allow", "quarantine", "halt"})
"""Begin decisions after which the admission stays the session's: a quarantined or halted
admission must keep answering the session's later calls (with denials)."""


class Step:
    """One client event, as the lifecycle sees it. ``op`` is ``None`` for events the bridge
    does not hear about (they may still feed the task's log).

    ``message`` is an assistant message for the task's log (redacted there); ``interrupted``
    marks a post-tool whose interrupt ends the turn (abort follows it).
    """

    def __init__(
        self,
        op: str | None,
        *,
        session: str | None = None,
        project: str | None = None,
        prompt: str | None = None,
        turn: str | None = None,
        tool: str = "",
        tool_input: Any = None,
        tool_use_id: str | None = None,
        status: str | None = None,
        duration_ms: int | None = None,
        result: Any = None,
        stop_reason: str | None = None,
        reason: str | None = None,
        telemetry: dict[str, Any] | None = None,
        message: str | None = None,
        progress: str | None = None,
        interrupted: bool = False,
    ) -> None:
        self.op = op
        self.session = session
        self.project = project
        self.prompt = prompt
        self.turn = turn
        self.tool = tool
        self.tool_input = tool_input
        self.tool_use_id = tool_use_id
        self.status = status
        self.duration_ms = duration_ms
        self.result = result
        self.stop_reason = stop_reason
        self.reason = reason
        self.telemetry = telemetry or {}
        self.message = message
        self.progress = progress
        self.interrupted = interrupted


def turn_finished(session: str | None, project: str | None, message: object) -> Step:
    """The turn's end (Claude ``Stop``, Gemini ``AfterAgent``): finalize, with the assistant's
    last message for the task's log when the payload has one."""
    return Step(
        "finalize",
        session=session,
        project=project,
        stop_reason="completed",
        message=message if isinstance(message, str) else None,
    )


def session_ended(session: str | None, project: str | None, why: str | None) -> Step:
    """``SessionEnd``: abort, for the turn that is still open."""
    reason = f"session ended ({why or 'other'}) before the turn finished"
    return Step("abort", session=session, project=project, reason=reason)


def close_refused(step: Step, response: Mapping[str, Any], env: Mapping[str, str]) -> None:
    """After a refused pre-tool: tell the bridge the call ended, denied. For clients that run
    no post-tool hook for a call their pre-tool hook refused (Gemini CLI, Copilot CLI, Qwen
    Code): left pending, a refused call without an id would pair with the next call of the
    same tool, whose success would then read as "refused but ran"."""
    if response.get("op") != "pre-tool" or response.get("decision") == "allow":
        return
    admission = response.get("admission_id")
    if not isinstance(admission, str) or not admission:
        return
    request: dict[str, Any] = {
        "op": "post-tool",
        "admission_id": admission,
        "tool": step.tool,
        "status": "denied",
        "duration_ms": None,
        "result": None,
    }
    if step.tool_use_id:
        request["tool_use_id"] = step.tool_use_id
    call_bridge(request, env)


class Client:
    """Who is calling: our adapter's name (claude-code, codex, gemini, vscode), the seed's
    ``clientContext.client`` for it (gemini is ``unknown``), and what is declared."""

    def __init__(
        self,
        name: str,
        schema_client: str,
        client_version: str | None = None,
        integration_mode: str = "project_hook",
    ) -> None:
        self.name = name
        self.schema_client = schema_client
        self.client_version = client_version
        self.integration_mode = integration_mode


class Lifecycle:
    """One hook's walk through the lifecycle; ``responses`` keeps every bridge answer."""

    def __init__(self, client: Client, env: Mapping[str, str], log: TaskLog) -> None:
        self.client = client
        self.env = env
        self.log = log
        self.responses: list[dict[str, Any]] = []
        self.sessions = Sessions(env)

    # -- entry ------------------------------------------------------------------------------

    def run(self, step: Step) -> dict[str, Any] | None:
        """The bridge's response to ``step``, or ``None`` when no op was due."""
        if step.progress:
            self.log.progress(step.progress)
        if step.op is None:
            return None
        handler = {
            "begin": self._begin,
            "pre-tool": self._pre_tool,
            "post-tool": self._post_tool,
            "telemetry": self._telemetry,
            "finalize": self._finalize,
            "abort": self._abort,
        }[step.op]
        return handler(step)

    # -- ops --------------------------------------------------------------------------------

    def _begin(self, step: Step) -> dict[str, Any]:
        key = self._key(step)
        with self.sessions.locked(key):
            stale = self.sessions.get(key)
            if stale is not None:
                self._call(
                    {
                        "op": "abort",
                        "admission_id": stale["admission_id"],
                        "reason": "superseded: a new prompt began before the turn ended",
                    }
                )
                self.sessions.drop(key, stale["admission_id"])
            return self._begin_locked(key, step, step.prompt or "")

    def _pre_tool(self, step: Step) -> dict[str, Any]:
        admission, refused, fresh = self._admission(step)
        if admission is None:
            assert refused is not None
            self.log.tool("failed", step.tool, step.tool_use_id, step.tool_input)
            return refused
        response = self._call(self._pre_request(step, admission))
        if response["decision"] == "error" and not fresh:
            # The remembered admission may be gone (state wiped, finalized elsewhere): one
            # retry on a fresh admission; a second error stands.
            self.sessions.drop(self._key(step), admission)
            admission, refused, _ = self._admission(step)
            if admission is None:
                assert refused is not None
                response = refused
            else:
                response = self._call(self._pre_request(step, admission))
        status = "started" if response["decision"] == "allow" else "failed"
        self.log.tool(status, step.tool, step.tool_use_id, step.tool_input)
        return response

    def _post_tool(self, step: Step) -> dict[str, Any]:
        self.log.tool(
            "succeeded" if step.status == "success" else "failed",
            step.tool,
            step.tool_use_id,
            step.tool_input,
        )
        admission, refused, _ = self._admission(step)
        if admission is None:
            assert refused is not None
            return refused
        request: dict[str, Any] = {
            "op": "post-tool",
            "admission_id": admission,
            "tool": step.tool,
            "status": step.status,
            "duration_ms": step.duration_ms,
            "result": step.result,
        }
        if step.tool_use_id:
            request["tool_use_id"] = step.tool_use_id
        response = self._call(request)
        if step.interrupted:
            self._abort(
                Step("abort", session=step.session, project=step.project, reason="user_interrupt")
            )
        return response

    def _telemetry(self, step: Step) -> dict[str, Any] | None:
        key = self._key(step)
        entry = self.sessions.get(key)
        if entry is None:
            return None
        return self._call(
            {"op": "telemetry", "admission_id": entry["admission_id"], **step.telemetry}
        )

    def _finalize(self, step: Step) -> dict[str, Any] | None:
        self.log.message(step.message)
        key = self._key(step)
        entry = self.sessions.get(key)
        if entry is None:
            if step.prompt is None:
                return None  # nothing open: the turn was already closed, or never seen
            # Codex's notify: the turn is only ever seen whole. Begin (the prompt is scanned)
            # and finalize at once, so the turn still leaves a trace.
            with self.sessions.locked(key):
                begun = self._begin_locked(key, step, step.prompt)
            if begun["decision"] not in STAYS_OPEN or not begun.get("admission_id"):
                return begun
            entry = {"admission_id": begun["admission_id"]}
        response = self._call(
            {
                "op": "finalize",
                "admission_id": entry["admission_id"],
                "stop_reason": step.stop_reason or "completed",
                "assistant_summary": None,
                "changed_files": None,
            }
        )
        if response["decision"] != "block":
            self.sessions.drop(key, entry["admission_id"])
        return response

    def _abort(self, step: Step) -> dict[str, Any] | None:
        key = self._key(step)
        entry = self.sessions.get(key)
        if entry is None:
            return None
        response = self._call(
            {"op": "abort", "admission_id": entry["admission_id"], "reason": step.reason}
        )
        self.sessions.drop(key, entry["admission_id"])
        self.log.error(f"turn aborted: {step.reason or 'no reason given'}")
        return response

    # -- helpers ----------------------------------------------------------------------------

    def _key(self, step: Step) -> str:
        # Without a session id, the project stands in: sessions of one project then share.
        session = step.session or f"project:{step.project or ''}"
        return self.sessions.key(self.client.name, session)

    def _admission(self, step: Step) -> tuple[str | None, dict[str, Any] | None, bool]:
        """(admission id, None, fresh) or (None, the refusing begin response, True)."""
        key = self._key(step)
        entry = self.sessions.get(key)  # the common case needs no lock: one file read
        if entry is not None:
            return str(entry["admission_id"]), None, False
        with self.sessions.locked(key):
            entry = self.sessions.get(key)  # another hook may have begun meanwhile
            if entry is not None:
                return str(entry["admission_id"]), None, False
            begun = self._begin_locked(key, step, "")
        if begun["decision"] != "allow" or not begun.get("admission_id"):
            return None, begun, True
        return str(begun["admission_id"]), None, True

    def _begin_locked(self, key: str, step: Step, prompt: str) -> dict[str, Any]:
        response = self._call(
            {
                "op": "begin",
                "client": self.client.schema_client,
                "client_version": self.client.client_version,
                "adapter_version": adapter_version(self.client.name),
                "project": step.project,
                "session": step.session,
                "actor": None,
                "integration_mode": self.client.integration_mode,
                "prompt": prompt,
                "turn": step.turn,
            }
        )
        admission = response.get("admission_id")
        if not isinstance(admission, str) or not admission:
            return response
        if response["decision"] in STAYS_OPEN:
            self.sessions.put(key, {"admission_id": admission, "prompted": bool(prompt)})
        elif response["decision"] in ("block", "deny"):
            # The client drops a blocked prompt: no turn follows, so its trace closes now.
            self._call({"op": "abort", "admission_id": admission, "reason": "prompt blocked"})
        return response

    def _pre_request(self, step: Step, admission: str) -> dict[str, Any]:
        request: dict[str, Any] = {
            "op": "pre-tool",
            "admission_id": admission,
            "tool": step.tool,
            "tool_input": step.tool_input,
            "project": step.project,
        }
        if step.tool_use_id:
            request["tool_use_id"] = step.tool_use_id
        return request

    def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        response = call_bridge(request, self.env)
        self.responses.append(response)
        return response
