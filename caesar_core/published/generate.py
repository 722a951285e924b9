"""Regenerate the published schema files from the models.

Run: ``python -m caesar_core.published.generate``.
"""

from __future__ import annotations

from pathlib import Path

from caesar_core.protocol.schema import DOCUMENTS, published_text
from caesar_core.published import HERE, file_name


def write_published() -> list[Path]:
    """Every published schema file written anew from the models; the paths written."""
    written = []
    for name in DOCUMENTS:
        for strict in (False, True):
            path = Path(HERE) / file_name(name, strict=strict)
            path.write_text(published_text(name, strict=strict), encoding="utf-8")
            written.append(path)
    return written


if __name__ == "__main__":
    for path in write_published():
        print(path)
