"""The OpenAI Responses API as codex speaks it: ``POST /v1/responses``, streamed as SSE.

codex (0.171.0) sends every turn to ``<base_url>/responses`` with ``stream: true`` and the
whole conversation in ``input``; a tool result comes back as a ``function_call_output``
(for ``exec_command``) or a ``custom_tool_call_output`` (for the freeform ``apply_patch``),
so counting those items gives the step to play. Shell steps become an ``exec_command``
function call, file writes an ``apply_patch`` custom tool call, ``Say`` an assistant message.
Each answer also carries a short reasoning summary, so the capture shows codex's
``reasoning`` items.

MCP tools (the task's return channel) are never in ``tools``: codex defers them behind a
``tool_search`` tool (``{"type": "tool_search", "execution": "client"}``). A
``CallTool("tool_search", {"query": ...})`` becomes a ``tool_search_call`` output item
(``execution: "client"``, ``arguments`` an object, not a string); codex answers with a
``tool_search_output`` whose ``tools`` are namespaces (``{"type": "namespace", "name":
"mcp__caesar", "tools": [...]}``). An MCP tool is then called as a ``function_call`` carrying
that namespace and the bare tool name, so ``CallTool("mcp__caesar__submit_report", ...)``
renders as ``{"name": "submit_report", "namespace": "mcp__caesar"}``; a plain
``function_call`` named ``mcp__caesar__submit_report`` is an "unsupported call". codex
accepts the namespaced call without a search first, but a real model searches.

How codex is pointed here (found by running codex 0.171.0 against this server):

- ``CODEX_HOME`` is a throwaway directory holding ``config.toml`` with a custom provider
  (``wire_api = "responses"``, ``env_key`` naming a variable we set). A custom provider is
  never offered websockets, so codex goes straight to HTTP + SSE.
- The model is ``gpt-5.5``: a slug from codex's bundled model catalog whose metadata offers
  ``apply_patch`` (freeform) and ``exec_command``. An unknown slug works too, but codex
  then prints a "Model metadata ... not found" warning item and offers no file tool.
- Update checks and analytics are off; retries are off so a dialect bug fails fast.
"""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path
from typing import Any

from tests.live.modelserver import (
    CallTool,
    Reply,
    Say,
    Script,
    Seen,
    Shell,
    SseReply,
    Step,
    WriteFile,
    read_brief,
    split_at_brief,
)

TIER = "schema"
MODEL = "gpt-5.5"
PROVIDER = "caesar_test"
KEY_ENV = "CAESAR_TEST_KEY"
TOOL_RESULTS = (
    "function_call_output",
    "custom_tool_call_output",
    "mcp_tool_call_output",
    "tool_search_output",
)

SEARCHES = 60
"""How many times an empty ``tool_search`` is made again, at most."""
SEARCH_AGAIN_S = 0.25
"""The pause before a search is made again: a model's answer is never instant."""

_ids = itertools.count(1)


def _id(prefix: str) -> str:
    return f"{prefix}_{next(_ids):04d}"


class ResponsesDialect:
    name = "openai-responses"

    def handles(self, method: str, path: str) -> bool:
        return method == "POST" and path.rstrip("/").endswith("/responses")

    def answer(self, seen: Seen, script: Script) -> Reply:
        body = seen.body if isinstance(seen.body, dict) else {}
        items = body.get("input")
        history = items if isinstance(items, list) else []
        if not body.get("tools"):
            return _stream([_message("OK")], body)
        brief = read_brief(body)
        earlier, now = split_at_brief(history, brief)
        results, again = played(now)
        if again:
            time.sleep(SEARCH_AGAIN_S)  # a model's answer is never instant
        step = script.step(results, brief, _tool_results(earlier))
        return _stream([_reasoning(step), _render(step, _offered(body))], body)


def _tool_results(items: list[Any]) -> int:
    return sum(1 for item in items if _kind(item) in TOOL_RESULTS)


def played(items: list[Any]) -> tuple[int, bool]:
    """How many steps this turn's ``items`` have played (its tool results, but an empty
    search that was made again), and whether the last item is an empty search (to be made
    again). Past :data:`SEARCHES` empty searches, each counts as a result."""
    empty = sum(
        1 for item in items if _kind(item) == "tool_search_output" and not item.get("tools")
    )
    if not 0 < empty <= SEARCHES:
        return _tool_results(items), False
    last = items[-1]
    again = _kind(last) == "tool_search_output" and not last.get("tools")
    return _tool_results(items) - empty, again


def _kind(item: object) -> str:
    return str(item.get("type", "")) if isinstance(item, dict) else ""


def _offered(body: dict[str, Any]) -> set[str]:
    tools = body.get("tools")
    return {str(t.get("name")) for t in tools if isinstance(t, dict)} if tools else set()


def _render(step: Step, offered: set[str]) -> dict[str, Any]:
    if isinstance(step, Shell):
        return _function("exec_command", {"cmd": step.command, "tty": False})
    if isinstance(step, WriteFile):
        if "apply_patch" not in offered:  # no file tool offered: fall back to the shell
            heredoc = f"cat > {step.path} <<'CAESAR_EOF'\n{step.content}CAESAR_EOF"
            return _function("exec_command", {"cmd": heredoc})
        return _custom("apply_patch", _add_file_patch(step.path, step.content))
    if isinstance(step, CallTool):
        return _call_tool(step)
    return _message(step.text)


def _call_tool(step: CallTool) -> dict[str, Any]:
    """``tool_search`` is codex's own search call; ``mcp__<server>__<tool>`` a namespaced call."""
    if step.name == "tool_search":
        return {
            "type": "tool_search_call",
            "id": _id("tsc"),
            "call_id": _id("call"),
            "execution": "client",
            "arguments": step.arguments,
            "status": "completed",
        }
    if step.name.startswith("mcp__"):
        prefix, server, tool = step.name.split("__", 2)
        return {**_function(tool, step.arguments), "namespace": f"{prefix}__{server}"}
    return _function(step.name, step.arguments)


def _add_file_patch(path: str, content: str) -> str:
    lines = content.splitlines() or [""]
    added = "".join(f"+{line}\n" for line in lines)
    return f"*** Begin Patch\n*** Add File: {path}\n{added}*** End Patch\n"


def _function(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": _id("fc"),
        "call_id": _id("call"),
        "name": name,
        "arguments": json.dumps(arguments),
        "status": "completed",
    }


def _custom(name: str, text: str) -> dict[str, Any]:
    return {
        "type": "custom_tool_call",
        "id": _id("ctc"),
        "call_id": _id("call"),
        "name": name,
        "input": text,
        "status": "completed",
    }


def _message(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": _id("msg"),
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def _reasoning(step: Step) -> dict[str, Any]:
    title = {
        Shell: "Running the command",
        WriteFile: "Writing the file",
        CallTool: "Calling the tool",
        Say: "Reporting back",
    }[type(step)]
    return {
        "type": "reasoning",
        "id": _id("rs"),
        "summary": [{"type": "summary_text", "text": f"**{title}**"}],
        "encrypted_content": None,
    }


def _stream(output: list[dict[str, Any]], body: dict[str, Any]) -> SseReply:
    """One response: created, each item added (text streamed as a delta) and done, completed."""
    response_id = _id("resp")
    model = str(body.get("model") or MODEL)
    head = {"id": response_id, "object": "response", "model": model, "status": "in_progress"}
    events: list[tuple[str | None, Any]] = [
        ("response.created", {"type": "response.created", "response": {**head, "output": []}}),
        ("response.in_progress", {"type": "response.in_progress", "response": head}),
    ]
    for index, item in enumerate(output):
        opened = {**item, "status": "in_progress"}
        if item["type"] == "message":
            opened["content"] = []
        events.append(
            (
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": index, "item": opened},
            )
        )
        if item["type"] == "message":
            text = item["content"][0]["text"]
            events.append(
                (
                    "response.output_text.delta",
                    {
                        "type": "response.output_text.delta",
                        "item_id": item["id"],
                        "output_index": index,
                        "content_index": 0,
                        "delta": text,
                    },
                )
            )
        events.append(
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": index, "item": item},
            )
        )
    usage = {
        "input_tokens": 1200,
        "input_tokens_details": {"cached_tokens": 200},
        "output_tokens": 40,
        "output_tokens_details": {"reasoning_tokens": 8},
        "total_tokens": 1240,
    }
    done = {**head, "status": "completed", "output": output, "usage": usage}
    events.append(("response.completed", {"type": "response.completed", "response": done}))
    return SseReply(events)


DIALECTS = [ResponsesDialect()]


def config_toml(server_url: str) -> str:
    return f"""\
model_provider = "{PROVIDER}"
model = "{MODEL}"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.{PROVIDER}]
name = "caesar scripted test server"
base_url = "{server_url}/v1"
wire_api = "responses"
env_key = "{KEY_ENV}"
request_max_retries = 0
stream_max_retries = 0
"""


def environment(server_url: str, home: Path) -> dict[str, str]:
    """A throwaway ``CODEX_HOME`` whose config points codex at the scripted server.

    ``TMPDIR`` moves next to it, out of ``/tmp``: codex's Linux sandbox runs commands as
    ``bwrap ... codex-linux-sandbox`` (by name, when it uses a system ``bwrap``), a helper
    link codex makes under ``$CODEX_HOME/tmp/arg0-linux`` at startup, but it refuses to make
    it when ``CODEX_HOME`` is inside the temp directory ("Refusing to create helper binaries
    under temporary dir"), and pytest's homes are under ``/tmp``. Without this every
    sandboxed command fails with ``bwrap: execvp codex-linux-sandbox: No such file``. A real
    ``CODEX_HOME`` (``~/.codex``) never is under the temp directory.
    """
    codex_home = home / "codex-home"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(config_toml(server_url))
    tmp = home / "tmp"
    tmp.mkdir(exist_ok=True)
    return {"CODEX_HOME": str(codex_home), KEY_ENV: "caesar-test-key", "TMPDIR": str(tmp)}
