"""A scripted model server on 127.0.0.1: the real agent CLIs talk to it instead of a provider.

The test suite owns it: a stdlib HTTP server in a thread, speaking each provider's wire
format through a *dialect* (``tests/live/dialects``), and playing a *script*: the same
steps for every CLI (run a shell command, write a file, say the final message), each step
rendered as that provider's tool call. The server holds no conversation state: the step to
play is the number of tool results already in the request's history, so retries, parallel
side requests (titles, summaries) and a CLI's own bookkeeping calls cannot desynchronize it.

Steps may name ``{workspace}``, ``{report_path}`` and ``{task_id}``; they are read from the
caesar brief inside the request (the latest one, when a conversation holds several), since the
worktree a task runs in only exists once caesar has made it.

A follow-up turn (``caesar continue``) plays the script's ``followups``: its brief says which
turn it is. A resumed session sends the whole conversation, earlier turns included, so a
dialect counts the tool results after the latest brief (``split_at_brief``) as the step, and
those before it as the earlier turns'. A script with ``resumed`` set *checks* that every
request of a later turn carries the earlier turns' briefs and their tool results, and refuses
one that does not (the session was restarted, not resumed): the refusal is answered as an
error and kept in ``Script.violations``.
"""

from __future__ import annotations

import gzip
import json
import re
import threading
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol


@dataclass(frozen=True)
class Shell:
    """Run a command through the CLI's shell tool."""

    command: str


@dataclass(frozen=True)
class WriteFile:
    """Write a file through the CLI's file-writing tool; ``path`` is workspace-relative."""

    path: str
    content: str


@dataclass(frozen=True)
class CallTool:
    """Call a tool by the name the CLI offers it under (an MCP tool, for instance)."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Say:
    """The final message; the turn ends."""

    text: str


Step = Shell | WriteFile | CallTool | Say


@dataclass(frozen=True)
class Brief:
    """What the server learns from the caesar brief it finds in a request: the latest brief's
    workspace, report path, task id and turn, and every task id the conversation names."""

    workspace: str = ""
    report_path: str = ""
    task_id: str = ""
    turn: int = 1
    task_ids: tuple[str, ...] = ()

    def fill(self, text: str) -> str:
        return (
            text.replace("{workspace}", self.workspace)
            .replace("{report_path}", self.report_path)
            .replace("{task_id}", self.task_id)
        )

    def absolute(self, path: str) -> str:
        return path if path.startswith("/") else f"{self.workspace.rstrip('/')}/{path}"


_WORKSPACE = re.compile(r"Stay inside the workspace: (\S+?)\.(?:\s|$)")
_REPORT = re.compile(r"write the report as JSON to `([^`]+)`")
_TASK_ID = re.compile(r"set `task_id` to `([^`]+)`")
_TURN = re.compile(r"# Follow-up: turn (\d+) of task ")


def read_brief(body: object) -> Brief:
    """The workspace, report path, task id and turn of the latest brief in a request body."""
    text = body_text(body)
    found = [pattern.findall(text) for pattern in (_WORKSPACE, _REPORT, _TASK_ID)]
    workspace, report_path, task_id = (matches[-1] if matches else "" for matches in found)
    turns = [int(n) for n in _TURN.findall(text)]
    ids = tuple(dict.fromkeys(found[2]))
    return Brief(workspace, report_path, task_id, max(turns, default=1), ids)


def body_text(body: object) -> str:
    """Every string of a request body, one per line."""
    return "\n".join(_strings(body))


def split_at_brief(items: Sequence[Any], brief: Brief) -> tuple[list[Any], list[Any]]:
    """A conversation's items before the one holding the latest brief, and after it (this
    turn's): every item when no brief names its task."""
    mark = f"set `task_id` to `{brief.task_id}`"
    if brief.task_id:
        for index in range(len(items) - 1, -1, -1):
            if mark in body_text(items[index]):
                return list(items[:index]), list(items[index + 1 :])
    return [], list(items)


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


class NotResumed(AssertionError):
    """A later turn's request without the earlier turns' conversation."""


@dataclass
class Script:
    """The steps of one conversation; past the end, the last step (a ``Say``) repeats.

    ``followups`` are the scripts of the turns after it (turn 2, 3...); ``resumed`` says those
    turns must go on in the first one's session (see the module's docstring)."""

    steps: Sequence[Step] = (Say("Nothing to do."),)
    followups: Sequence[Script] = ()
    resumed: bool = False
    violations: list[str] = field(default_factory=list)

    @property
    def tool_steps(self) -> int:
        """How many tool results playing the whole script yields."""
        return len(self.steps) - 1

    def _check_resumed(self, brief: Brief, current: int, earlier_results: int) -> None:
        """A later turn's request must carry every earlier turn's brief and tool results."""
        earlier = len(brief.task_ids) - 1
        expected = sum(script.tool_steps for script in [self, *self.followups][:current])
        if earlier >= current and earlier_results >= expected:
            return
        problem = (
            f"turn {brief.turn} ({brief.task_id}) sent {earlier} of its {current} earlier "
            f"brief(s) and {earlier_results} of their {expected} tool result(s): the session "
            "was restarted, not resumed"
        )
        self.violations.append(problem)
        raise NotResumed(problem)

    def step(self, tool_results: int, brief: Brief, earlier_results: int = 0) -> Step:
        """The step to play after ``tool_results`` tool results of this turn (those after its
        brief; ``earlier_results`` came before it), placeholders filled."""
        turns = [self, *self.followups]
        current = min(brief.turn, len(turns)) - 1
        if current and self.resumed:
            self._check_resumed(brief, current, earlier_results)
        script = turns[current]
        step = script.steps[min(tool_results, len(script.steps) - 1)]
        if isinstance(step, Shell):
            return Shell(brief.fill(step.command))
        if isinstance(step, WriteFile):
            return WriteFile(brief.fill(step.path), brief.fill(step.content))
        if isinstance(step, CallTool):
            return replace(step, arguments=json.loads(brief.fill(json.dumps(step.arguments))))
        return Say(brief.fill(step.text))


@dataclass(frozen=True)
class Seen:
    """One request as received, for tests to inspect."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any

    @property
    def agentic(self) -> bool:
        """A call of the agent loop (it offers tools), not a side request (a title)."""
        return isinstance(self.body, dict) and bool(self.body.get("tools"))

    @property
    def text(self) -> str:
        return body_text(self.body)


class Reply(Protocol):
    """How a dialect answers: a status, headers, and the body in chunks (SSE events)."""

    status: int
    headers: dict[str, str]

    def chunks(self) -> Iterable[bytes]: ...


@dataclass
class JsonReply:
    payload: Any
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "application/json"})

    def chunks(self) -> Iterable[bytes]:
        yield json.dumps(self.payload).encode()


@dataclass
class SseReply:
    """Server-sent events: ``(event name or None, data object)`` pairs."""

    events: Sequence[tuple[str | None, Any]]
    status: int = 200
    headers: dict[str, str] = field(
        default_factory=lambda: {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
    )

    def chunks(self) -> Iterable[bytes]:
        for name, data in self.events:
            head = f"event: {name}\n" if name else ""
            text = data if isinstance(data, str) else json.dumps(data)
            yield f"{head}data: {text}\n\n".encode()


class Dialect(Protocol):
    """One provider's wire format."""

    name: str

    def handles(self, method: str, path: str) -> bool: ...

    def answer(self, seen: Seen, script: Script) -> Reply: ...


class ModelServer:
    """The server; ``url`` once started. Use as a context manager."""

    def __init__(self, dialects: Sequence[Dialect], script: Script | None = None) -> None:
        self.dialects = list(dialects)
        self.script = script or Script()
        self.requests: list[Seen] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def seen(self, path_part: str = "") -> list[Seen]:
        with self._lock:
            return [r for r in self.requests if path_part in r.path]

    def turn_requests(self, task_id: str) -> list[Seen]:
        """The agent-loop requests of one turn: those whose latest brief is ``task_id``'s."""
        with self._lock:
            return [r for r in self.requests if r.agentic and read_brief(r.body).task_id == task_id]

    def _record(self, seen: Seen) -> None:
        with self._lock:
            self.requests.append(seen)


def _handler_for(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base's name)
            """Quiet: the requests are kept in ``server.requests``."""

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def do_HEAD(self) -> None:
            self._serve("HEAD")

        def _serve(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            raw = _decoded(raw, self.headers.get("Content-Encoding", ""))
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", errors="replace")
            seen = Seen(method, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            server._record(seen)
            dialect = next((d for d in server.dialects if d.handles(method, self.path)), None)
            if dialect is None:
                reply: Reply = JsonReply({"error": f"no dialect for {method} {self.path}"}, 404)
            else:
                try:
                    reply = dialect.answer(seen, server.script)
                except Exception as error:  # a dialect bug answers 500, visibly
                    reply = JsonReply({"error": f"{type(error).__name__}: {error}"}, 500)
            self.send_response(reply.status)
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.send_header("Connection", "close")
            self.end_headers()
            if method != "HEAD":
                for chunk in reply.chunks():
                    self.wfile.write(chunk)
                    self.wfile.flush()
            self.close_connection = True

    return Handler


def _decoded(raw: bytes, encoding: str) -> bytes:
    encoding = encoding.strip().lower()
    if encoding == "gzip":
        return gzip.decompress(raw)
    if encoding == "deflate":
        return zlib.decompress(raw)
    return raw
