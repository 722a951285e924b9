"""``[review] checks``: a command string or a table with its timeout; strict and located."""

from __future__ import annotations

from caesar_core.config import Config
from caesar_core.errors import ExitCode
from tests.config.conftest import Layers
from tests.config.test_errors import error_of, lines


def test_no_checks_by_default() -> None:
    assert Config().review.checks == []


def test_strings_and_tables_with_a_timeout(layers: Layers) -> None:
    path = layers.write(
        "project",
        '[review]\nchecks = ["pytest -q", { command = "ruff check .", timeout = "5m" }]\n',
    )
    loaded = layers.load()
    first, second = loaded.config.review.checks
    assert (first.command, str(first.timeout)) == ("pytest -q", "10m")
    assert (second.command, second.timeout.ms) == ("ruff check .", 300_000)
    assert loaded.source_of("review.checks") == str(path)


def test_a_later_layer_replaces_the_list_whole(layers: Layers) -> None:
    layers.write("project", '[review]\nchecks = ["pytest -q", "ruff check ."]\n')
    layers.write("local", '[review]\nchecks = ["make test"]\n')
    assert [c.command for c in layers.load().config.review.checks] == ["make test"]


def test_bad_entries_are_refused_where_they_are_written(layers: Layers) -> None:
    error = error_of(layers, "project", '[review]\nchecks = ["ok", 3]\n')
    [line] = lines(error, layers.path("project"))
    assert line.startswith("<file>:2:")
    assert "review.checks[1]: expected a command (a string) or a table" in line
    assert error.exit_code == ExitCode.USAGE

    error = error_of(layers, "project", '[review]\nchecks = [{ command = "x", timout = "1s" }]\n')
    [line] = lines(error, layers.path("project"))
    assert line.startswith("<file>:2:28: review.checks[0].timout: unknown key")
    assert "did you mean timeout?" in line

    error = error_of(layers, "project", '[review]\nchecks = [{ command = "x", timeout = "1y" }]\n')
    assert "review.checks[0].timeout: '1y' is not a duration" in error.reason

    error = error_of(layers, "project", '[review]\nchecks = [""]\n')
    assert "review.checks[0].command: must not be empty" in error.reason

    error = error_of(layers, "project", '[review]\nchecks = [{ timeout = "1s" }]\n')
    assert "review.checks[0].command: is required but missing" in error.reason

    error = error_of(layers, "project", '[review]\ncheck = ["x"]\n')
    assert "review.check: unknown key; did you mean checks?" in error.reason
