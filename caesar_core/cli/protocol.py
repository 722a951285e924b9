"""``caesar protocol``: publish the contract's schemas and check documents against them."""

from __future__ import annotations

import json
from pathlib import Path

import click

from caesar_core.errors import ExitCode
from caesar_core.terminal import safe_text


@click.group()
def protocol() -> None:
    """The OACP contract: JSON Schemas and document validation."""


@protocol.command()
@click.argument("document", required=False)
@click.option(
    "--strict",
    is_flag=True,
    help="The variant for native structured outputs (codex --output-schema): closed objects, "
    "every property required, optional ones nullable.",
)
def schema(document: str | None, strict: bool) -> None:
    """Print the JSON Schema of DOCUMENT (task, report, event, lifecycle), or list them."""
    from caesar_core.published import DESCRIPTIONS, listing, schema_text

    if document is None:
        click.echo(listing(), nl=False)
        return
    if document not in DESCRIPTIONS:
        raise click.BadParameter(
            f"{document!r} is not a document; choose one of {', '.join(DESCRIPTIONS)}",
            param_hint="DOCUMENT",
        )
    click.echo(schema_text(document, strict=strict), nl=False)


@protocol.command()
@click.argument(
    "paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per file, for scripts.")
def validate(paths: tuple[Path, ...], as_json: bool) -> None:
    """Validate task.json, report.json or events.jsonl files (every line of a JSONL file).

    Exits 0 when every file is valid, 1 otherwise.
    """
    from caesar_core.protocol.documents import validate_file

    results = [validate_file(path) for path in paths]
    for result in results:
        if as_json:
            click.echo(
                json.dumps(
                    {
                        "path": str(result.path),
                        "document": result.kind.value if result.kind else None,
                        "valid": result.ok,
                        "documents": result.documents,
                        "problems": [
                            {"line": p.line, "location": p.location, "message": p.message}
                            for p in result.problems
                        ],
                    }
                )
            )
        elif result.ok:
            unit = "lines" if result.documents != 1 else "document"
            click.echo(f"{result.path}: valid {result.kind} ({result.documents} {unit})")
        else:
            click.echo(f"{result.path}: invalid {result.kind or 'document'}", err=True)
            for problem in result.problems:
                click.echo(safe_text(f"  {problem}"), err=True)
    if not all(result.ok for result in results):
        raise SystemExit(int(ExitCode.FAILURE))
