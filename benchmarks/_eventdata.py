"""Realistic ``events.jsonl`` content for benchmarks, byte-identical to what the writer emits.

A benchmark on uniform lines would flatter the tail: real logs mix short tool edges with long
messages and reasoning, carry non-ASCII text, and pair every tool start with its end by id.
The stream below imitates a codex session (items named ``item_<n>``, shell commands and
patches, reasoning before each burst of calls, the agent's message after it).

Lines are built as plain dicts for speed (a million lines in seconds); ``verify`` re-encodes
a sample through the real models and :func:`caesar_core.events.encode_line`, so the format
cannot drift from the writer's.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from caesar_core.events import encode_line, format_at
from caesar_core.protocol.event import PAYLOAD_ADAPTER
from caesar_core.protocol.versions import EVENT_V1

START = datetime(2026, 8, 9, 10, 0, 0, tzinfo=UTC)
TASK_ID = "t-bench"

_PROSE = (
    "the parser keeps a byte offset so each poll reads only new lines; "
    "vérifier que le résultat reste identique — 検証 ok. "
    "refactor the fold into apply and snapshot, then re-run the failing test"
)
_WORDS = tuple(_PROSE.split())
_COMMANDS = (
    "bash -lc 'rg -n \"EventWriter\" caesar_core'",
    "bash -lc 'sed -n 1,120p caesar_core/events/tail.py'",
    "bash -lc '.venv/bin/pytest tests/events -q'",
    "bash -lc 'git status --short'",
    "bash -lc 'ls -la src/'",
    "bash -lc 'python -m mypy caesar_core'",
)
_FILES = (
    "caesar_core/events/tail.py",
    "caesar_core/events/writer.py",
    "tests/events/test_tail.py",
    "docs/spec/événements.md",
)


def _text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(low, high)))


def _payloads(rng: random.Random) -> Iterator[dict[str, Any]]:
    """An endless codex-like session, as payload dicts in model field order."""
    item = 0
    pct = 0.0
    while True:
        for _ in range(rng.randint(1, 3)):
            yield {"type": "thinking", "text": _text(rng, 8, 60)}
        for _ in range(rng.randint(1, 4)):
            item += 1
            call_id = f"item_{item}"
            if rng.random() < 0.25:
                tool, summary = "apply_patch", rng.choice(_FILES)
            else:
                tool, summary = "shell", rng.choice(_COMMANDS)
            yield {
                "type": "tool_use",
                "tool": tool,
                "id": call_id,
                "input_summary": summary,
                "status": "started",
            }
            if tool == "apply_patch":
                action = rng.choice(("modified", "modified", "created"))
                yield {"type": "file_changed", "path": summary, "action": action}
            status = "failed" if rng.random() < 0.05 else "succeeded"
            yield {
                "type": "tool_use",
                "tool": tool,
                "id": call_id,
                "input_summary": "",
                "status": status,
            }
        for _ in range(rng.randint(1, 5)):
            yield {"type": "message", "text": _text(rng, 3, 40)}
        if rng.random() < 0.3:
            pct = min(100.0, pct + rng.uniform(1, 5))
            yield {"type": "progress", "message": _text(rng, 2, 8), "pct": round(pct, 1)}


def event_lines(
    count: int, *, seed: int = 0, task_id: str = TASK_ID, start: datetime = START
) -> list[bytes]:
    """``count`` wire lines, each ending in ``\\n``, with ``seq`` 0..count-1."""
    rng = random.Random(seed)
    stream = _payloads(rng)
    lines: list[bytes] = []
    millis = 0
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
    for seq in range(count):
        millis += rng.randint(1, 900)
        wire: dict[str, Any] = {
            "protocol": EVENT_V1,
            "seq": seq,
            "at": format_at(start + timedelta(milliseconds=millis)),
            "task_id": task_id,
        }
        wire.update(next(stream))
        lines.append(dumps(wire).encode() + b"\n")
    return lines


def event_log(count: int, *, seed: int = 0, task_id: str = TASK_ID) -> bytes:
    """The whole log as one bytes object, as found on disk."""
    return b"".join(event_lines(count, seed=seed, task_id=task_id))


def verify(lines: list[bytes], sample: int = 200) -> None:
    """Fail loudly if the generated lines differ from what the real writer would write."""
    for raw in lines[:sample]:
        data = json.loads(raw)
        envelope = {key: data.pop(key) for key in ("protocol", "seq", "at", "task_id")}
        payload = PAYLOAD_ADAPTER.validate_python(data)
        at = datetime.fromisoformat(envelope["at"])
        expected = encode_line(payload, seq=envelope["seq"], at=at, task_id=envelope["task_id"])
        if expected != raw:
            raise AssertionError(f"generated line drifted from the writer:\n{raw!r}\n{expected!r}")


if __name__ == "__main__":
    import sys
    import time

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    began = time.perf_counter()
    generated = event_lines(n)
    elapsed = time.perf_counter() - began
    verify(generated)
    size = sum(map(len, generated))
    print(f"{n} lines, {size / 1e6:.1f} MB in {elapsed:.2f}s; sample verified against the writer")
