"""``caesar mcp serve``: the fourteen tools a main agent drives caesar with, over stdio.

Thin on purpose: each tool validates its arguments (the SDK does, from the signature), calls
the session, and turns a ``CaesarError`` into an error result carrying the core's reason and
remedy. Results are structured content with the same JSON as text, so clients that read
either see the same thing.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from caesar_core import __version__
from caesar_core.config import DurationError, parse_duration
from caesar_core.errors import CaesarError
from caesar_core.mcp.session import AWAIT_DEFAULT_MS, LOG_LIMIT, Session
from caesar_core.protocol.task import Mode
from caesar_core.runner.delegation import Request

T = TypeVar("T")

LOG_LIMIT_MAX = 1_000
"""``caesar_logs`` hands back at most this many events; the input schema says so."""

READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
TOOLS = (
    "caesar_delegate",
    "caesar_continue",
    "caesar_await",
    "caesar_status",
    "caesar_logs",
    "caesar_cancel",
    "caesar_diff",
    "caesar_apply",
    "caesar_reject",
    "caesar_list_agents",
    "caesar_list_roles",
    "caesar_answer",
    "caesar_check",
    "caesar_comment",
)


def _call(action: Callable[[], T]) -> T:
    try:
        return action()
    except CaesarError as error:
        raise ToolError(str(error)) from None


def build_server(root: Path, workspace: Path | None = None) -> tuple[MCPServer, Session]:
    session = Session(root, workspace)

    @contextlib.asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[None]:
        try:
            yield
        finally:
            session.close()

    server = MCPServer(
        name="caesar",
        version=__version__,
        instructions=(
            "Delegate work to coding agents and follow it: caesar_delegate starts a task and "
            "returns at once; caesar_await waits for reports; answer an agent's questions with "
            "caesar_answer; review with caesar_diff, run the project's checks with "
            "caesar_check, comment on lines with caesar_comment, and bring changes in with "
            "caesar_apply; send the agent back to the same work with caesar_continue."
        ),
        log_level="WARNING",
        lifespan=lifespan,
    )

    @server.tool()
    def caesar_delegate(
        objective: str,
        agent: str | None = None,
        role: str | None = None,
        mode: Literal["read-only", "write"] | None = None,
        isolation: Literal["inplace", "worktree", "auto"] | None = None,
        network: Literal["auto", "on", "off"] | None = None,
        context: str = "",
        constraints: list[str] | None = None,
        acceptance_criteria: list[str] | None = None,
        model: str | None = None,
        timeout: str | None = None,
        channel: bool = False,
    ) -> dict[str, Any]:
        """Start a task for an agent (by id) or a role, and return at once with its id.

        ``timeout`` is a duration such as "90s" or "10m"; ``channel`` offers the agent the
        MCP return channel (questions, progress, submit_report).
        """
        try:
            timeout_ms = parse_duration(timeout) if timeout else None
        except DurationError as error:
            raise ToolError(f"timeout: {error}") from None
        request = Request(
            objective=objective,
            agent=agent,
            role=role,
            mode=Mode(mode) if mode else None,
            isolation=isolation,
            network=network,
            timeout_ms=timeout_ms,
            model=model,
            context=context,
            constraints=tuple(constraints or ()),
            acceptance_criteria=tuple(acceptance_criteria or ()),
            channel=channel,
        )
        return _call(lambda: session.delegate(request))

    @server.tool()
    def caesar_continue(
        task_id: str, message: str = "", timeout: str | None = None
    ) -> dict[str, Any]:
        """Send an ended task's agent back to work: a new task (a follow-up turn) in the same
        worktree from the same base, whose brief carries the previous objective, ``message``
        and the review (rejected hunks, failing checks); the agent's own session is resumed
        where its CLI can. Returns at once, as caesar_delegate does, with ``continues`` and
        ``turn``."""
        try:
            timeout_ms = parse_duration(timeout) if timeout else None
        except DurationError as error:
            raise ToolError(f"timeout: {error}") from None
        return _call(lambda: session.continue_task(task_id, message, timeout_ms=timeout_ms))

    @server.tool(annotations=READ_ONLY)
    def caesar_await(
        task_ids: list[str], timeout_ms: Annotated[int, Field(ge=0)] = AWAIT_DEFAULT_MS
    ) -> dict[str, Any]:
        """Wait until the tasks end or ``timeout_ms`` passes; a task still running shows
        ``pending: true`` with the questions it waits on."""
        return _call(lambda: session.await_tasks(task_ids, timeout_ms))

    @server.tool(annotations=READ_ONLY)
    def caesar_status(task_id: str) -> dict[str, Any]:
        """A task's state now, without waiting."""
        return _call(lambda: session.status(task_id))

    @server.tool(annotations=READ_ONLY)
    def caesar_logs(
        task_id: str,
        raw: bool = False,
        limit: Annotated[int, Field(ge=1, le=LOG_LIMIT_MAX)] = LOG_LIMIT,
    ) -> dict[str, Any]:
        """A task's last ``limit`` events (1 to 1000), or the end of its raw output with
        ``raw``."""
        return _call(lambda: session.logs(task_id, raw=raw, limit=limit))

    @server.tool()
    def caesar_cancel(task_id: str) -> dict[str, Any]:
        """Cancel a running task (its agent is stopped; its worktree is kept)."""
        return _call(lambda: session.cancel(task_id))

    @server.tool(annotations=READ_ONLY)
    def caesar_diff(task_id: str, since_previous: bool = False) -> dict[str, Any]:
        """What the task changed, against the commit it started from, with the patch (every
        turn of a task shows the whole work); ``since_previous``: what a follow-up turn alone
        changed."""
        return _call(lambda: session.diff(task_id, since_previous=since_previous))

    @server.tool()
    def caesar_apply(
        task_id: str,
        hunks: Annotated[
            list[str] | None,
            Field(
                description="Only these hunks: ids from caesar_diff's files[].hunks[].id, or "
                "'h_...:N-M' for changed lines N to M of one; absent: everything."
            ),
        ] = None,
    ) -> dict[str, Any]:
        """Bring a worktree task's changes (or only some hunks) into the main working tree
        (three-way, no commit); conflicts are listed and the tree is left as it was."""
        return _call(lambda: session.apply(task_id, hunks))

    @server.tool()
    def caesar_reject(
        task_id: str,
        hunks: Annotated[
            list[str],
            Field(
                description="Hunks to revert out of the task's worktree: ids from "
                "caesar_diff, or 'h_...:N-M' for changed lines N to M of one."
            ),
        ],
        reason: Annotated[str, Field(description="Why, recorded for a follow-up.")] = "",
    ) -> dict[str, Any]:
        """Revert hunks out of a finished task's worktree and record them rejected; they
        leave its diff. The main working tree is not touched."""
        return _call(lambda: session.reject(task_id, hunks, reason))

    @server.tool(annotations=READ_ONLY)
    def caesar_list_agents() -> dict[str, Any]:
        """Every agent caesar knows: installed, version, allowed, capabilities."""
        return {"agents": _call(session.agents)}

    @server.tool(annotations=READ_ONLY)
    def caesar_list_roles() -> dict[str, Any]:
        """Every role of the configuration and the agent it would pick now."""
        return {"roles": _call(session.roles)}

    @server.tool()
    def caesar_answer(task_id: str, question_id: str, answer: str) -> dict[str, Any]:
        """Answer a question an agent asked; refused when unknown or already answered."""
        return _call(lambda: session.answer(task_id, question_id, answer))

    @server.tool()
    def caesar_check(task_id: str, hunks: list[str] | None = None) -> dict[str, Any]:
        """Run the project's checks ([review] checks) on an ended task now, in its worktree;
        with ``hunks`` (ids from caesar_diff, "h_…" or "h_…:N-M") on those alone, in a scratch
        worktree at the task's base commit. ``mark`` is passed or failed; each result has its
        command, exit code, duration, output tail and whether it timed out."""
        return _call(lambda: session.check(task_id, hunks or ()))

    @server.tool()
    def caesar_comment(
        task_id: str,
        path: Annotated[
            str | None, Field(description="The file commented on, as caesar_diff names it.")
        ] = None,
        start_line: Annotated[
            int | None, Field(ge=1, description="First line, in the new side of the diff.")
        ] = None,
        end_line: Annotated[
            int | None, Field(ge=1, description="Last line (absent: start_line alone).")
        ] = None,
        text: Annotated[str | None, Field(description="The comment.")] = None,
        resolve: Annotated[
            str | None, Field(description="Resolve this comment id instead of adding one.")
        ] = None,
    ) -> dict[str, Any]:
        """Comment on lines of a task's diff (path, start_line, text), or resolve a comment
        (resolve); with neither, only list. Returns every comment of the task: where it is
        now, its state (open, addressed by a later turn, outdated: its lines are gone,
        resolved), its code and text. Open comments go to the agent in the next turn's
        brief. Lines not in the diff are refused with the nearest lines that are."""
        return _call(lambda: session.comment(task_id, path, start_line, end_line, text, resolve))

    return server, session


def serve(root: Path, workspace: Path | None = None) -> None:
    server, _ = build_server(root, workspace)
    server.run("stdio")
