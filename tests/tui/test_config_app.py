"""``caesar config`` driven by keys, read from the screen, against real layer files."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from caesar_core.config import Layer, layer_path, load_config
from caesar_tui.config_app import ConfigApp
from caesar_tui.modals.value import ValueModal
from tests.tui.screen import cells, static_text, until

SIZE = (130, 34)
PROJECT = """\
# the team's settings
[policy]
denied = ["codex"]  # not on this project
# max_parallel = 4
"""


class Layers:
    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.home = home

    def path(self, layer: Layer) -> Path:
        return layer_path(self.root, layer, self.home)

    def write(self, layer: Layer, text: str) -> None:
        self.path(layer).parent.mkdir(parents=True, exist_ok=True)
        self.path(layer).write_text(text)

    def app(self) -> ConfigApp:
        return ConfigApp(self.root, config_home=self.home)


@pytest.fixture
def layers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layers:
    """A project and a global layer in tmp_path; no agent CLI on PATH but the demo agent's
    (the interpreter, by its full path), so what is installed is the same everywhere."""
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    root = tmp_path / "project"
    root.mkdir()
    made = Layers(root, tmp_path / "xdg")
    made.write("global", "[policy]\nmax_parallel = 2\n")
    made.write("project", PROJECT)
    return made


def table(app: ConfigApp, name: str) -> list[tuple[str, ...]]:
    return cells(app.config_screen.query_one(f"#{name}-table", DataTable))


def said(app: ConfigApp) -> str:
    return static_text(app.config_screen.query_one("#said", Static))


def where(app: ConfigApp) -> str:
    return static_text(app.config_screen.query_one("#where", Static))


def row(app: ConfigApp, name: str, first: str) -> tuple[str, ...]:
    return next(cells for cells in table(app, name) if cells[0] == first)


async def loaded(pilot: Pilot[Any], app: ConfigApp) -> None:
    await until(pilot, lambda: table(app, "agents"), "the agents")


async def select(pilot: Pilot[Any], app: ConfigApp, name: str, first: str) -> None:
    """Move the cursor down the table to the row starting with ``first``, by keys."""
    keys = [cells[0] for cells in table(app, name)]
    await pilot.press("home", *["down"] * keys.index(first))


async def type_in(pilot: Pilot[Any], app: ConfigApp, key: str, text: str) -> None:
    """``key`` opens the input; once it is on screen, its text replaced by ``text``, enter."""
    await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen, ValueModal), "the input")
    await pilot.press("ctrl+a", "ctrl+k", *text, "enter")
    await until(pilot, lambda: app.screen is app.config_screen, "the input closed")


async def test_agents_roles_and_the_policy_with_where_each_value_came_from(
    layers: Layers,
) -> None:
    app = layers.app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        demo, codex = row(app, "agents", "demo"), row(app, "agents", "codex")
        assert demo[1].startswith("caesar") and demo[2] == "yes"
        assert codex[1:3] == ("no", "denied")
        assert "events" in codex[3] and "net:write-only" in codex[3]
        assert "project layer: .caesar/config.toml" in where(app)

        await pilot.press("2")
        assert row(app, "roles", "reviewer") == (
            "reviewer",
            "read-only",
            "codex > claude > opencode > gemini > copilot > qwen > demo",
            "demo",
            "default",
        )
        await pilot.press("3")
        assert row(app, "policy", "max_parallel") == ("max_parallel", "2", "global")
        assert row(app, "policy", "denied") == ("denied", '["codex"]', "project")
        assert row(app, "policy", "default_timeout") == ("default_timeout", '"10m"', "default")


async def test_enable_writes_the_project_layer_keeping_its_comments(layers: Layers) -> None:
    app = layers.app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        await select(pilot, app, "agents", "codex")
        await pilot.press("e")
        await until(pilot, lambda: "wrote" in said(app), "the write")
        await until(pilot, lambda: row(app, "agents", "codex")[2] == "yes", "codex allowed")

    text = layers.path("project").read_text()
    assert text.startswith("# the team's settings\n[policy]\n")
    assert "# not on this project" in text and "# max_parallel = 4" in text
    assert tomllib.loads(text)["policy"]["denied"] == []
    assert layers.path("global").read_text() == "[policy]\nmax_parallel = 2\n"


async def test_l_chooses_the_layer_the_edits_go_to(layers: Layers) -> None:
    app = layers.app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        await pilot.press("l")
        assert "local layer" in where(app) and "created by the first edit" in where(app)
        await select(pilot, app, "agents", "gemini")
        await pilot.press("d")
        await until(pilot, lambda: "created" in said(app), "the new local layer")
        await until(pilot, lambda: row(app, "agents", "gemini")[2] == "denied", "denied")
        await pilot.press("l")
        assert "global layer" in where(app)

    local = tomllib.loads(layers.path("local").read_text())
    assert local == {"policy": {"denied": ["codex", "gemini"]}}
    assert layers.path("project").read_text() == PROJECT


async def test_a_value_that_would_make_the_config_invalid_is_refused(layers: Layers) -> None:
    app = layers.app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        await pilot.press("3")
        await select(pilot, app, "policy", "max_parallel")
        await type_in(pilot, app, "c", "0")
        await until(pilot, lambda: "invalid" in said(app), "the refusal")
        assert "policy.max_parallel" in said(app) and "nothing was written" in said(app)
        assert app.config_screen.query_one("#said").has_class("-refused")

        await type_in(pilot, app, "c", "3")
        await until(pilot, lambda: row(app, "policy", "max_parallel")[2] == "project", "3")
        assert row(app, "policy", "max_parallel")[1] == "3"

    assert tomllib.loads(layers.path("project").read_text())["policy"]["max_parallel"] == 3


async def test_a_model_and_a_roles_agents_typed_in(layers: Layers) -> None:
    app = layers.app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        await select(pilot, app, "agents", "claude")
        await type_in(pilot, app, "m", "sonnet")
        await until(pilot, lambda: row(app, "agents", "claude")[4] == "sonnet", "the model")

        await pilot.press("2")
        await select(pilot, app, "roles", "reviewer")
        await type_in(pilot, app, "enter", "demo, claude")
        await until(pilot, lambda: row(app, "roles", "reviewer")[4] == "project", "the role")
        assert row(app, "roles", "reviewer")[2:4] == ("demo > claude", "demo")

    config = load_config(layers.root, config_home=layers.home).config
    assert config.models == {"claude": "sonnet"}
    reviewer = config.role("reviewer")
    assert reviewer is not None and reviewer.mode.value == "read-only"
    assert reviewer.agents == ["demo", "claude"]


async def test_a_layer_that_does_not_parse_is_said_and_left_alone(layers: Layers) -> None:
    layers.write("project", "[policy\n")
    app = layers.app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "invalid TOML" in said(app), "the problem")
        assert "config.toml:1:" in said(app) and table(app, "agents") == []
        await pilot.press("3", "u")
        assert layers.path("project").read_text() == "[policy\n"
