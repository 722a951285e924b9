"""``caesar bridge`` and ``caesar hook <client>``: the per-tool-call entry, without click.

``caesar bridge`` reads one lifecycle request (JSON) on stdin and writes one response on
stdout, always exit 0: a request it cannot read (not JSON, not UTF-8, nested too deep, too
large) is answered with decision ``error`` and a reason, never a traceback, so a client
adapter can always parse what it gets and decide how to fail. The response is one line of
ASCII JSON (non-ASCII escaped, so no byte of it can fail to encode or split the line), its
strings scanned for secrets like everything the bridge writes. ``caesar hook <client>`` hands
over to ``caesar_core.bridge.clients.<client>.main``, imported by name only when asked for.
"""

from __future__ import annotations

import os
import sys

from caesar_core.bridge import cjson

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs ~3 ms of a ~30 ms budget
    from typing import IO, Any

MAX_REQUEST = 16 << 20
"""A request larger than this is refused rather than read into memory."""
CLIENTS = ("claude-code", "codex", "gemini", "vscode", "copilot", "qwen")

BRIDGE_USAGE = """\
usage: caesar bridge < request.json

Read one caesar.lifecycle/v1 request (op: begin, pre-tool, post-tool, telemetry, finalize,
abort) on stdin; write one response on stdout; exit 0.
Schema: caesar protocol schema lifecycle
State: $CAESAR_STATE_DIR, else $XDG_STATE_HOME/caesar, else ~/.local/state/caesar
"""
HOOK_USAGE = f"usage: caesar hook {{{'|'.join(CLIENTS)}}} [--integration-mode MODE] < payload\n"


def main(argv: list[str]) -> int:
    """``argv`` after ``caesar``: ``["bridge", ...]`` or ``["hook", client, ...]``."""
    command, args = argv[0], argv[1:]
    if command == "hook":
        return hook(args, sys.stdout, sys.stderr)
    return bridge(args, sys.stdin.buffer, sys.stdout)


def bridge(args: list[str], stdin: IO[bytes], stdout: IO[str]) -> int:
    if args and args[0] in ("-h", "--help"):
        stdout.write(BRIDGE_USAGE)
        return 0
    try:
        from caesar_core.bridge.scan import dumps

        line = dumps(_serve(args, stdin))
    except BaseException as problem:  # the contract: exit 0 and a response, whatever happens
        line = cjson.dumps(_error(f"internal error ({type(problem).__name__})"))
    stdout.write(line + "\n")
    stdout.flush()
    return 0


def _serve(args: list[str], stdin: IO[bytes]) -> dict[str, Any]:
    if args:
        return _error(f"caesar bridge takes no arguments, got {' '.join(args)!r}; see --help")
    raw = stdin.read(MAX_REQUEST + 1)
    if len(raw) > MAX_REQUEST:
        return _error(f"request larger than {MAX_REQUEST} bytes")
    try:
        request = cjson.loads(raw, parse_constant=_no_constant)
    except ValueError as problem:  # UnicodeDecodeError included; the text quotes no input
        return _error(f"request is not JSON: {problem}")
    except RecursionError:
        return _error("invalid request: nested too deeply to read")
    from caesar_core.bridge.core import handle

    return handle(request, env=os.environ)


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _error(reason: str) -> dict[str, Any]:
    from caesar_core.bridge.core import error

    return error("unknown", reason)


def hook(args: list[str], stdout: IO[str], stderr: IO[str]) -> int:
    """Dispatch to a client adapter; an unknown client is a usage error (exit 2)."""
    if not args or args[0] in ("-h", "--help"):
        (stdout if args else stderr).write(HOOK_USAGE)
        return 0 if args else 2
    client = args[0]
    if client not in CLIENTS:
        stderr.write(f"caesar hook: unknown client {client!r}\n{HOOK_USAGE}")
        return 2
    name = f"caesar_core.bridge.clients.{client.replace('-', '_')}"
    try:
        __import__(name)  # importlib would import warnings too (~0.5 ms)
    except ImportError as problem:  # exit 2: clients read it as "block", failing closed
        stderr.write(f"caesar hook: the {client} adapter cannot load: {problem}\n")
        return 2
    code = sys.modules[name].main(args[1:])
    return code if isinstance(code, int) else 0
