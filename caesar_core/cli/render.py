"""What commands print, as text and without click: the aligned table, a JSON document.

:mod:`caesar_core.cli.common` prints them with ``click.echo``; the console script's answers
that need no click (:mod:`caesar_core.cli.entry`, ``caesar ps``) write the same text itself.
Stdlib only, and nothing costly to import.
"""

from __future__ import annotations

from caesar_core.terminal import json_safe, safe_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def json_text(value: Any) -> str:
    """JSON for stdout, one line ending: exact values, with what a terminal would act on as
    ``\\uNNNN``."""
    from caesar_core import jsonindent

    return json_safe(jsonindent.dumps(value)) + "\n"


def table_text(rows: list[list[str]], headers: list[str]) -> str:
    """A plain aligned table, each line ending in a newline: readable in a terminal, greppable
    in a pipe (cells made safe: they hold what agents wrote, such as versions, objectives and
    paths)."""
    rows = [[safe_text(cell) for cell in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]
    lines = [headers, *rows]
    return "".join(
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() + "\n"
        for line in lines
    )
