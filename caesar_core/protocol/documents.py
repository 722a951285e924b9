"""Reading whole documents from disk, writing the report, and telling which document a file is."""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from caesar_core import reclaim, safefs
from caesar_core.fs import dump_json
from caesar_core.layout import kept_report
from caesar_core.protocol.event import EVENT_ADAPTER, Event
from caesar_core.protocol.parse import parse
from caesar_core.protocol.report import REPORT_ADAPTER, Report
from caesar_core.protocol.task import TASK_ADAPTER, Task
from caesar_core.protocol.versions import DocumentKind, UnsupportedProtocolError, kind_of_protocol
from caesar_core.safefs import TooDeepError, loads

_ADAPTERS: dict[DocumentKind, TypeAdapter[Any]] = {
    DocumentKind.TASK: TASK_ADAPTER,
    DocumentKind.REPORT: REPORT_ADAPTER,
    DocumentKind.EVENT: EVENT_ADAPTER,
}


def read_task(path: Path) -> Task:
    """``task.json`` of a task directory (``path.parent``, trusted; nothing below it is)."""
    return parse(TASK_ADAPTER, safefs.read_bytes(path.parent, path.name), DocumentKind.TASK)


def read_report(path: Path) -> Report:
    """``report.json`` of a task directory, read through :mod:`caesar_core.safefs`.

    ``UnsafeFileError`` (an ``OSError``) when it is a link, a FIFO, a directory, a hard link or
    larger than ``MAX_DOCUMENT_BYTES``; ``ValueError`` when it nests too deep or is not a
    report; ``UnsupportedProtocolError`` for a version this build does not read.
    """
    return parse(REPORT_ADAPTER, safefs.read_bytes(path.parent, path.name), DocumentKind.REPORT)


def write_report(path: Path, report: Report) -> list[str]:
    """Replace ``report.json`` of a task directory with caesar's ``report`` in one rename.

    A link or a FIFO in its place is replaced, never written through; a directory is moved
    aside. Returns what was moved aside, one sentence each (see ``reclaim.claim_write``).
    """
    return reclaim.claim_write(path.parent, path.name, dump_json(report.to_json_dict()))


def write_concluded_report(path: Path, report: Report) -> list[str]:
    """The report caesar concludes a task with: kept in caesar's state directory (see
    ``layout.kept_report``), then written as the task directory's ``report.json``. The kept
    copy is the durable one (what ``read_shown_report`` shows once the task ended); the task
    directory's is not fsynced when there is a kept copy."""
    data = dump_json(report.to_json_dict())
    kept = kept_report(path.parent)
    if kept is not None:
        safefs.atomic_write(*kept, data)
    return reclaim.claim_write(path.parent, path.name, data, durable=kept is None)


def read_shown_report(path: Path) -> Report:
    """The report to show for the task whose ``report.json`` is ``path``: caesar's kept copy
    once the task is concluded, else what the task directory holds (a task still running, or
    concluded before copies were kept)."""
    kept = kept_report(path.parent)
    if kept is not None:
        try:
            return parse(REPORT_ADAPTER, safefs.read_bytes(*kept), DocumentKind.REPORT)
        except FileNotFoundError:
            pass
    return read_report(path)


def parse_event(line: bytes | str) -> Event:
    return parse(EVENT_ADAPTER, line, DocumentKind.EVENT)


@dataclass(frozen=True)
class Problem:
    """One reason a document is invalid, placed as precisely as the input allows."""

    message: str
    line: int | None = None
    """1-based line number, for JSONL files."""
    location: str = ""
    """Dotted path of the offending field, when known."""

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        field_ = f"{self.location}: " if self.location else ""
        return f"{where}{field_}{self.message}"


@dataclass
class Validation:
    """What ``caesar protocol validate`` found in one file."""

    path: Path
    kind: DocumentKind | None
    problems: list[Problem] = field(default_factory=list)
    documents: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems and self.kind is not None


def describe(error: Exception, line: int | None = None) -> list[Problem]:
    """Turn any parse failure into problems a person can act on."""
    if isinstance(error, ValidationError):
        return [
            Problem(err["msg"], line, ".".join(str(part) for part in err["loc"]))
            for err in error.errors(include_url=False)
        ]
    if isinstance(error, UnsupportedProtocolError):
        return [Problem(error.reason, line, "protocol")]
    if isinstance(error, TooDeepError):
        return [Problem(f"refused: {error}", line)]
    return [Problem(f"not JSON: {error}", line)]


_NOT_JSON = object()
_PROTOCOL_FIELD = re.compile(rb'"protocol"\s*:\s*"(caesar\.[a-z]+/[^"\\]*)"')
"""A ``protocol`` member in text that does not parse, to name the document of a broken file."""


@dataclass(frozen=True)
class _Sniffed:
    kind: DocumentKind | None
    whole: bool
    """The file is one JSON value (pretty-printed or not), not a JSONL stream."""


def sniff_kind(path: Path, content: bytes) -> DocumentKind | None:
    """Which document ``content`` holds: by its ``protocol`` field, else by the file's name."""
    return _sniff(path, content).kind


def _sniff(path: Path, content: bytes) -> _Sniffed:
    """The kind from the parsed JSON: the whole file as one value first (a pretty-printed
    document, under any name), else its first line holding an object (a JSONL log); failing
    both, a ``protocol`` member found in the text; last, the name of the file."""
    whole: Any = _NOT_JSON
    with contextlib.suppress(ValueError):  # depth-checked: 5,000 levels is a problem, later
        whole = loads(content)
    if isinstance(whole, dict):
        return _Sniffed(kind_of_protocol(whole.get("protocol")) or _by_name(path), True)
    if whole is not _NOT_JSON:
        return _Sniffed(_by_name(path), True)
    for line in content.splitlines():
        if not line.strip():
            continue
        try:
            first: Any = loads(line)
        except ValueError:
            break
        kind = kind_of_protocol(first.get("protocol")) if isinstance(first, dict) else None
        if kind is not None:
            return _Sniffed(kind, False)
        break
    found = _PROTOCOL_FIELD.search(content[:65536])
    named = kind_of_protocol(found.group(1).decode()) if found else None
    return _Sniffed(named or _by_name(path), False)


def _by_name(path: Path) -> DocumentKind | None:
    name = path.name
    if name.endswith(".jsonl"):
        return DocumentKind.EVENT
    if name == "task.json":
        return DocumentKind.TASK
    if name == "report.json":
        return DocumentKind.REPORT
    return None


def validate_file(path: Path) -> Validation:
    """Validate a task.json, a report.json or an events.jsonl (every line of it), whatever the
    file is named: the document is known by its ``protocol`` field."""
    content = path.read_bytes()
    sniffed = _sniff(path, content)
    kind = sniffed.kind
    result = Validation(path, kind)
    if kind is None:
        result.problems.append(
            Problem(
                "cannot tell which document this is: no caesar protocol field, and the "
                "name is not task.json, report.json or *.jsonl"
            )
        )
        return result
    if kind is DocumentKind.EVENT and not sniffed.whole:
        for number, line in enumerate(content.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                parse(EVENT_ADAPTER, line, DocumentKind.EVENT)
                result.documents += 1
            except (ValueError, UnsupportedProtocolError) as error:
                result.problems.extend(describe(error, number))
        return result
    adapter = _ADAPTERS[kind]
    try:
        parse(adapter, content, kind)
        result.documents = 1
    except (ValueError, UnsupportedProtocolError) as error:
        result.problems.extend(describe(error))
    return result
