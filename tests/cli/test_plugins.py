"""Plugin commands: caesar's own (``watch``, ``config``) found by reading caesar's metadata
alone, exactly as a scan of every distribution finds them; anything else, by that scan."""

from __future__ import annotations

import sys
from importlib.metadata import distribution
from pathlib import Path

import click
import pytest

from caesar_core.cli import plugins
from caesar_core.cli.main import cli
from tests.cli.test_command_table import modules_after


def test_caesars_own_commands_are_what_its_metadata_says() -> None:
    scanned = {
        entry.name: entry.value
        for entry in distribution("caesar").entry_points
        if entry.group == plugins.PLUGIN_GROUP
    }
    assert plugins.own_plugins() == scanned
    assert {"watch", "config"} <= set(scanned)


def test_watch_is_found_without_reading_every_distributions_metadata() -> None:
    loaded = modules_after(
        "import click\n"
        "from caesar_core.cli.main import cli\n"
        "with click.Context(cli) as ctx:\n"
        "    assert cli.get_command(ctx, 'watch').name == 'watch'\n"
    )
    assert "importlib.metadata" not in loaded
    assert "caesar_tui.cli" in loaded


def test_a_name_no_distribution_has_is_no_command() -> None:
    with click.Context(cli) as ctx:
        assert cli.get_command(ctx, "no-such-command") is None


def _metadata(folder: Path, name: str, entry_points: str | None) -> Path:
    meta = folder / name
    meta.mkdir(parents=True)
    if entry_points is not None:
        (meta / "entry_points.txt").write_text(entry_points)
    return meta


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        ([("a", "caesar-1.0.dist-info", "[caesar.commands]\nw = m.n:watch\n")], {"w": "m.n:watch"}),
        ([("a", "caesar-1.0.dist-info", None)], {}),
        ([("a", "caesar-1.0.dist-info", "[console_scripts]\ncaesar = x:y\n")], {}),
        ([("a", "caesar-1.0.dist-info", "[caesar.commands]\nw = m:f [extra]\n")], {}),
        ([("a", "caesar-1.0.dist-info", "not an ini file")], None),
        ([("a", "caesar-1.0.egg-info", "[caesar.commands]\nw = m:f\n")], None),
        (
            [
                ("a", "other-1.0.dist-info", "[caesar.commands]\nx = o:p\n"),
                ("b", "Caesar-2.0.dist-info", "[caesar.commands]\nw = m:g\n"),
                ("c", "caesar-3.0.dist-info", "[caesar.commands]\nw = m:h\n"),
            ],
            {"w": "m:g"},
        ),
        ([], None),
    ],
)
def test_caesars_metadata_is_the_first_along_the_path(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    layout: list[tuple[str, str, str | None]],
    expected: dict[str, str] | None,
) -> None:
    """As importlib.metadata finds a distribution: the first path entry holding it; where
    that is not a readable ``.dist-info``, None (the scan answers)."""
    for folder, name, text in layout:
        _metadata(tmp_path / folder, name, text)
    monkeypatch.setattr(sys, "path", [str(tmp_path / d) for d in ("none", "a", "b", "c")])
    assert plugins.own_plugins() == expected
