"""Reports caesar did not receive as a file: found in what the agent said, or synthesized.

Each name loads with its module on first use (:mod:`caesar_core.lazy`): a brief needs the
example report, not the extractor.
"""

from __future__ import annotations

from caesar_core.lazy import exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from caesar_core.report.example import EXAMPLE_REPORT
    from caesar_core.report.extract import Extraction, extract_from_files, extract_report
    from caesar_core.report.synthesize import synthesize_report

__getattr__ = exports(
    __name__,
    {
        "caesar_core.report.example": ("EXAMPLE_REPORT",),
        "caesar_core.report.extract": ("Extraction", "extract_from_files", "extract_report"),
        "caesar_core.report.synthesize": ("synthesize_report",),
    },
)

__all__ = [
    "EXAMPLE_REPORT",
    "Extraction",
    "extract_from_files",
    "extract_report",
    "synthesize_report",
]
