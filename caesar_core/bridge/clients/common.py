"""What every hook adapter shares: reading the payload, calling the bridge, answering (the
reason shown for a decision, which decisions stop the agent).

An adapter must never crash its client: a hook that dies with a traceback is a *non-blocking*
error in every client (the tool call runs). So the pieces here turn every failure into a value
the adapter can render, and the adapter decides whether that value fails closed (a deny, exit
2) or only warns (events where blocking makes no sense).

Hot path: this runs once per tool call, so like the bridge's own modules it avoids
``typing``, ``dataclasses``, ``pathlib`` and ``caesar_core.fs`` (~15 ms of imports together):
plain classes, string paths, and the bridge's own lock and atomic write.
"""

from __future__ import annotations

import os

from caesar_core import __version__
from caesar_core.bridge import cjson

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing and collections cost ~4 ms of imports on the hot path
    from collections.abc import Mapping
    from typing import IO, Any

    from caesar_core.bridge.state import Lock, State

SCHEMA_VERSION = "caesar.lifecycle/v1"
ENV_RESPONSES = "CAESAR_HOOK_RESPONSES"
"""Debug aid: a file to which every bridge response of a hook process is appended (JSON
lines). Responses carry ids, decisions and reasons, never raw inputs."""
MAX_STDIN = 16 << 20
"""A hook payload larger than this is refused rather than read into memory."""
STOPPING = frozenset({"halt", "quarantine"})
"""Decisions that stop the agent, not only the call: every client says so its own way."""


class PayloadError(Exception):
    """The client's payload cannot be understood; the message becomes the deny reason."""


class Answer:
    """What the hook process says back: JSON on stdout (or nothing), stderr, an exit code."""

    def __init__(
        self, stdout: dict[str, Any] | None = None, stderr: str = "", exit_code: int = 0
    ) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.exit_code = exit_code

    def emit(self, out: IO[str], err: IO[str]) -> int:
        """Write the answer: JSON in ASCII (it cannot fail to encode), every string scanned."""
        if self.stdout is not None:
            from caesar_core.bridge.scan import dumps

            out.write(dumps(self.stdout) + "\n")
            out.flush()
        if self.stderr:
            err.write(self.stderr.rstrip("\n") + "\n")
            err.flush()
        return self.exit_code


def read_payload(stream: IO[str]) -> dict[str, Any]:
    """The hook's JSON object from stdin; :class:`PayloadError` for anything else.

    Read as bytes and decoded as strict UTF-8, whatever the locale (under the C locale Python
    would decode stdin with ``surrogateescape`` and let broken bytes through as text): a
    payload that is not UTF-8 is refused, so ``PreToolUse`` fails closed the same everywhere.
    """
    source = getattr(stream, "buffer", None)
    try:
        data = (source if source is not None else stream).read(MAX_STDIN + 1)
        if len(data) > MAX_STDIN:
            raise PayloadError(f"the hook payload is larger than {MAX_STDIN} bytes")
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except (OSError, UnicodeDecodeError) as exc:
        raise PayloadError(f"the hook payload could not be read: {type(exc).__name__}") from None
    return parse_payload(text)


def parse_payload(text: str) -> dict[str, Any]:
    if not text.strip():
        raise PayloadError("the hook payload is empty (expected one JSON object on stdin)")
    try:
        data = cjson.loads(text)
    except (ValueError, RecursionError):
        raise PayloadError("the hook payload is not JSON") from None
    if not isinstance(data, dict):
        raise PayloadError("the hook payload is not a JSON object")
    return data


def text_field(payload: Mapping[str, Any], *names: str) -> str | None:
    """The first of ``names`` holding a non-empty string."""
    for name in names:
        value = payload.get(name)
        if isinstance(value, str) and value:
            return value
    return None


def int_field(payload: Mapping[str, Any], name: str) -> int | None:
    """A non-negative number as an int; None for anything else (NaN and infinity included)."""
    value = payload.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not 0 <= value < 2**63:  # NaN fails every comparison
        return None
    return int(value) if value >= 0 else None


# -- the bridge ---------------------------------------------------------------------------


def reason_of(response: Mapping[str, Any]) -> str:
    """The reason a client shows for a decision: the bridge's, else the decision named."""
    reason = response.get("reason")
    text = reason if isinstance(reason, str) and reason else f"decision {response['decision']}"
    return f"caesar: {text}"


def error_response(op: str, reason: str) -> dict[str, Any]:
    """A schema-valid ``error`` response made here, when the bridge itself could not answer."""
    return {
        "op": op,
        "schema_version": SCHEMA_VERSION,
        "decision": "error",
        "admission_id": None,
        "trace_id": None,
        "reason": reason,
        "warnings": [],
    }


def call_bridge(request: dict[str, Any], env: Mapping[str, str]) -> dict[str, Any]:
    """``caesar_core.bridge.core.handle`` in-process; never raises."""
    op = str(request.get("op", "unknown"))
    try:
        from caesar_core.bridge.core import handle

        response = handle(request, env=env)
    except Exception as exc:
        # The type only: an exception's text may quote the input we must not repeat.
        response = error_response(op, f"the bridge failed internally ({type(exc).__name__})")
    if not isinstance(response, dict) or not isinstance(response.get("decision"), str):
        response = error_response(op, "the bridge returned no decision")
    _record_response(response, env)
    return response


def _record_response(response: dict[str, Any], env: Mapping[str, str]) -> None:
    target = env.get(ENV_RESPONSES, "")
    if not target:
        return
    from caesar_core.bridge.scan import dumps

    line = (dumps(response) + "\n").encode()
    try:
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError:
        pass


# -- the session map ----------------------------------------------------------------------


class Sessions:
    """Which admission is open for a client session, so later hooks of the session find it.

    One file per session under ``bridge/sessions/`` in the bridge's state directory, named by
    the salted hash of the client and session id (the raw id is never written), holding the
    admission id and whether the admission saw a prompt.
    """

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self._state: State | None = None

    def _bridge_state(self) -> State:
        if self._state is None:
            from caesar_core.bridge.state import State, state_dir

            self._state = State(state_dir(self.env))
        return self._state

    def key(self, client: str, session: str) -> str:
        return self._bridge_state().hash("hook-session", f"{client}\0{session}")

    def _path(self, key: str, suffix: str = ".json") -> str:
        return os.path.join(self._bridge_state().bridge, "sessions", key + suffix)

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            with open(self._path(key), "rb") as file:
                data = cjson.loads(file.read())
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or not isinstance(data.get("admission_id"), str):
            return None
        return data

    def put(self, key: str, entry: dict[str, Any]) -> None:
        from caesar_core.bridge.scan import dumps
        from caesar_core.bridge.state import replace

        replace(self._path(key), (dumps(entry, sort_keys=True) + "\n").encode())

    def drop(self, key: str, admission_id: str) -> None:
        """Forget the session's admission, unless another hook has replaced it meanwhile."""
        entry = self.get(key)
        if entry is not None and entry.get("admission_id") == admission_id:
            try:
                os.unlink(self._path(key))
            except FileNotFoundError:
                return  # another hook of the session dropped it first

    def locked(self, key: str) -> Lock:
        """Serialises begin-if-missing: parallel tool hooks of one session share one admission.

        Use as ``with sessions.locked(key):``.
        """
        from caesar_core.bridge.state import Lock

        return Lock(self._path(key, ".lock"))


def adapter_version(client: str) -> str:
    return f"caesar-hook-{client}/{__version__}"
