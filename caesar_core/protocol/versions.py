"""Which protocol versions this build reads and writes, kept as data.

A reader that meets an unknown version must refuse rather than guess (spec, "Versioning").
Supporting ``caesar.report/v2`` beside v1 during a transition is one more tuple entry here,
not a code change at every reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

from caesar_core.errors import CaesarError, ExitCode


class DocumentKind(StrEnum):
    """The three versioned documents of the contract."""

    TASK = "task"
    REPORT = "report"
    EVENT = "event"


TASK_V1 = "caesar.task/v1"
REPORT_V1 = "caesar.report/v1"
EVENT_V1 = "caesar.event/v1"

SUPPORTED: Mapping[DocumentKind, tuple[str, ...]] = {
    DocumentKind.TASK: (TASK_V1,),
    DocumentKind.REPORT: (REPORT_V1,),
    DocumentKind.EVENT: (EVENT_V1,),
}
"""Versions read, per document; the last of each tuple is the one written."""

CURRENT: Mapping[DocumentKind, str] = {kind: versions[-1] for kind, versions in SUPPORTED.items()}
"""The version this build writes, per document."""

PROTOCOL_VERSION = "1"
"""The value of ``CAESAR_PROTOCOL_VERSION`` handed to agents."""


class UnsupportedProtocolError(CaesarError):
    """A document declares a protocol version this build does not read."""

    exit_code = ExitCode.FAILURE

    def __init__(self, kind: DocumentKind | None, found: object) -> None:
        self.kind = kind
        self.found = found
        self.supported = supported_versions(kind)
        super().__init__(
            f"unsupported protocol {found!r}; this caesar reads {', '.join(self.supported)}",
            "write the document with a supported version, or upgrade caesar to one that reads "
            f"{found!r}",
        )


def supported_versions(kind: DocumentKind | None) -> tuple[str, ...]:
    """The versions read for ``kind``, or for every document when ``kind`` is unknown."""
    if kind is None:
        return tuple(v for versions in SUPPORTED.values() for v in versions)
    return SUPPORTED[kind]


def kind_of_protocol(value: object) -> DocumentKind | None:
    """The document kind a ``protocol`` value names (``caesar.report/v9`` -> report), if any."""
    if isinstance(value, str) and value.startswith("caesar.") and "/" in value:
        name = value[len("caesar.") : value.index("/")]
        try:
            return DocumentKind(name)
        except ValueError:
            return None
    return None


def _checker(kind: DocumentKind) -> AfterValidator:
    supported = SUPPORTED[kind]

    def check(value: str) -> str:
        if value not in supported:
            raise PydanticCustomError(
                "unsupported_protocol",
                "unsupported protocol {found}; supported: {supported}",
                {"found": value, "supported": ", ".join(supported)},
            )
        return value

    return AfterValidator(check)


def _published(kind: DocumentKind) -> Any:
    """What the published schema says of ``protocol``: exactly the versions read (``const``
    for one), so a schema never accepts a document its reader refuses."""
    supported = SUPPORTED[kind]
    pinned: dict[str, Any] = (
        {"const": supported[0]} if len(supported) == 1 else {"enum": list(supported)}
    )
    return Field(json_schema_extra=pinned)


TaskProtocol = Annotated[str, _checker(DocumentKind.TASK), _published(DocumentKind.TASK)]
ReportProtocol = Annotated[str, _checker(DocumentKind.REPORT), _published(DocumentKind.REPORT)]
EventProtocol = Annotated[str, _checker(DocumentKind.EVENT), _published(DocumentKind.EVENT)]
