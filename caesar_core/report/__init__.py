"""Reports caesar did not receive as a file: found in what the agent said, or synthesized."""

from __future__ import annotations

from caesar_core.report.extract import (
    EXAMPLE_REPORT,
    Extraction,
    extract_from_files,
    extract_report,
)
from caesar_core.report.synthesize import synthesize_report

__all__ = [
    "EXAMPLE_REPORT",
    "Extraction",
    "extract_from_files",
    "extract_report",
    "synthesize_report",
]
