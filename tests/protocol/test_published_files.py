"""The schema files caesar ships are the schemas its models generate now."""

from __future__ import annotations

import pytest

from caesar_core.protocol.schema import DOCUMENTS, published_text
from caesar_core.published import DESCRIPTIONS, schema_text
from tests.runner.conftest import caesar

REGENERATE = "regenerate them: .venv/bin/python -m caesar_core.published.generate"


@pytest.mark.parametrize("strict", [False, True], ids=["loose", "strict"])
@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_every_published_file_is_up_to_date(name: str, strict: bool) -> None:
    assert schema_text(name, strict=strict) == published_text(name, strict=strict), REGENERATE


def test_every_document_is_published_with_its_description() -> None:
    assert {name: description for name, (_, description) in DOCUMENTS.items()} == DESCRIPTIONS


@pytest.mark.parametrize("strict", [False, True], ids=["loose", "strict"])
def test_the_command_prints_the_published_file(strict: bool) -> None:
    args = ["protocol", "schema", "report", *(["--strict"] if strict else [])]
    printed = caesar(None, *args)
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == published_text("report", strict=strict)
