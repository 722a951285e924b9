"""The screen of ``caesar config``: agents, roles and the policy, and the edits of each.

The screen owns its panes: a line naming the layer edits go to, three tabs of tables (the
agents, installed or not, with what they can do; the roles with the agent each would pick
now; every ``[policy]`` key with the layer that set it) and a line saying what the last edit
did or why it was refused. Reading (versions are probed) and writing run
:mod:`caesar_tui.config_data` in thread workers; what they find comes back as
:class:`ConfigScreen.Read` and :class:`ConfigScreen.Edited`, and only the screen touches its
widgets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static, TabbedContent, TabPane

from caesar_core.agents.describe import short_capabilities
from caesar_core.config import Layer
from caesar_core.configure import Change, Editor, toml_value
from caesar_core.terminal import safe_text
from caesar_tui.config_data import EditOutcome, Settings, read_settings, run_edit, value_text
from caesar_tui.modals.value import ValueModal
from caesar_tui.workers import WorkerFailures

LAYER_ORDER: tuple[Layer, ...] = ("project", "local", "global")
"""The layers ``l`` steps through, the project's first (where the CLI writes by default)."""
READY = (
    "each edit is checked with the whole configuration before it is written; the rest of "
    "the file, comments included, stays as it is"
)
Reader = Callable[[Path, Path | None], Settings]
COLUMNS = {
    "agents": ("AGENT", "INSTALLED", "ALLOWED", "CAN", "MODEL", "FROM"),
    "roles": ("ROLE", "MODE", "AGENTS", "WOULD PICK", "FROM"),
    "policy": ("KEY", "VALUE", "FROM"),
}


def _cell(value: object) -> Text:
    """A cell as plain text: no markup read, control characters made visible."""
    return Text(safe_text(str(value)))


class ConfigScreen(WorkerFailures, Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "tab('agents')", "Agents"),
        Binding("2", "tab('roles')", "Roles"),
        Binding("3", "tab('policy')", "Policy"),
        Binding("l", "next_layer", "Layer"),
        Binding("e", "enable", "Enable"),
        Binding("d", "disable", "Disable"),
        Binding("m", "model", "Model"),
        Binding("c", "change", "Change"),
        Binding("u", "unset", "Unset"),
        Binding("r", "reload", "Reload"),
    ]
    ACTIONS_BY_TAB: ClassVar[dict[str, tuple[str, ...]]] = {
        "agents": ("enable", "disable", "model"),
        "roles": ("change",),
        "policy": ("change", "unset"),
    }
    """Actions that act on a row, by the tab whose rows they take."""

    @dataclass
    class Read(Message):
        settings: Settings

    @dataclass
    class Edited(Message):
        outcome: EditOutcome

    def __init__(
        self, root: Path, *, config_home: Path | None = None, read: Reader = read_settings
    ) -> None:
        super().__init__()
        self.root = root
        self.config_home = config_home
        self.reader = read
        self.target: Layer = "project"
        self.settings = Settings()
        self._keys: dict[str, list[str]] = {name: [] for name in COLUMNS}

    def compose(self) -> ComposeResult:
        yield Static(id="where", markup=False)
        with TabbedContent(id="tabs"):
            for name in COLUMNS:
                with TabPane(name.capitalize(), id=name):
                    yield DataTable(id=f"{name}-table", cursor_type="row", zebra_stripes=True)
        yield Static("reading the configuration…", id="said", classes="-reading", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        for name, columns in COLUMNS.items():
            self.query_one(f"#{name}-table", DataTable).add_columns(*columns)
        self._show_where()
        self.query_one("#agents-table", DataTable).focus()
        self.action_reload()

    @on(TabbedContent.TabActivated)
    def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        """The rows of the tab shown take the keys (a click on a tab, or 1, 2, 3)."""
        self.query_one(f"#{event.pane.id}-table", DataTable).focus()
        self.refresh_bindings()  # the footer shows the keys of this tab's rows

    # -- reading -----------------------------------------------------------------------------

    def action_reload(self) -> None:
        self._read()

    @work(thread=True, group="read", exclusive=True, exit_on_error=False)
    def _read(self) -> None:
        self.post_message(self.Read(self.reader(self.root, self.config_home)))

    @on(Read)
    def _shown(self, message: Read) -> None:
        settings = self.settings = message.settings
        self._fill(
            "agents",
            [
                (
                    row["id"],
                    [
                        row["id"],
                        (row["version"] or "yes") if row["installed"] else "no",
                        "yes" if row["allowed"] else "denied",
                        short_capabilities(row["capabilities"]),
                        row["model"] or "-",
                        row["source"],
                    ],
                )
                for row in settings.agents
            ],
        )
        self._fill(
            "roles",
            [
                (
                    row["name"],
                    [
                        row["name"],
                        row["mode"],
                        " > ".join(row["agents"]),
                        row["would_pick"] or "none",
                        row["origin"],
                    ],
                )
                for row in settings.roles
            ],
        )
        self._fill(
            "policy",
            [
                (s.key, [s.key.removeprefix("policy."), value_text(s.value), s.origin])
                for s in settings.policy
            ],
        )
        if settings.problem is not None:
            self._say(False, settings.problem)
        elif self._said().has_class("-reading"):
            self._say(True, READY)

    def _fill(self, name: str, rows: Sequence[tuple[str, list[str]]]) -> None:
        table = self.query_one(f"#{name}-table", DataTable)
        keys = self._keys[name]
        kept = keys[table.cursor_row] if keys and table.cursor_row < len(keys) else None
        table.clear()
        self._keys[name] = [key for key, _ in rows]
        for key, cells in rows:
            table.add_row(*(_cell(cell) for cell in cells), key=key)
        if kept in self._keys[name]:
            table.move_cursor(row=self._keys[name].index(kept), animate=False)

    # -- where edits go ----------------------------------------------------------------------

    def action_next_layer(self) -> None:
        self.target = LAYER_ORDER[(LAYER_ORDER.index(self.target) + 1) % len(LAYER_ORDER)]
        self._show_where()

    def _show_where(self) -> None:
        path = self.settings.paths.get(self.target) or self._layer_path()
        exists = "" if path.exists() else " (created by the first edit)"
        shown = path.relative_to(self.root) if path.is_relative_to(self.root) else path
        self.query_one("#where", Static).update(
            safe_text(f"{self.root.name}  ·  edits go to the {self.target} layer: {shown}{exists}")
        )

    def _layer_path(self) -> Path:
        from caesar_core.config import layer_path

        return layer_path(self.root, self.target, self.config_home)

    # -- the edits ---------------------------------------------------------------------------

    def action_tab(self, name: str) -> None:
        self.query_one(TabbedContent).active = name

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        tabs = [tab for tab, actions in self.ACTIONS_BY_TAB.items() if action in actions]
        return not tabs or self.query_one(TabbedContent).active in tabs

    def action_enable(self) -> None:
        if (agent := self._selected("agents")) is not None:
            self._edit(lambda editor: editor.enable(self.target, agent))

    def action_disable(self) -> None:
        if (agent := self._selected("agents")) is not None:
            self._edit(lambda editor: editor.disable(self.target, agent))

    def action_model(self) -> None:
        agent = self._selected("agents")
        if agent is None:
            return
        row = next(row for row in self.settings.agents if row["id"] == agent)
        layer = self.target

        def typed(text: str | None) -> None:
            if text is None:
                return
            if text:
                self._edit(lambda editor: editor.set_model(layer, agent, text))
            else:
                self._edit(lambda editor: editor.unset_model(layer, agent))

        self.app.push_screen(
            ValueModal(f"model of {agent} ({layer} layer)", row["model"] or "", "empty: no model"),
            typed,
        )

    def action_change(self) -> None:
        tab = self.query_one(TabbedContent).active
        if tab == "roles":
            self._change_role_agents()
        elif tab == "policy":
            self._change_policy_value()

    def action_unset(self) -> None:
        key = self._selected("policy")
        if key is not None:
            parts = tuple(key.split("."))
            self._edit(lambda editor: editor.unset_value(self.target, parts))

    @on(DataTable.RowSelected)
    def _row_chosen(self, event: DataTable.RowSelected) -> None:
        """enter on a row of the roles or the policy changes it (as ``c`` does)."""
        event.stop()
        self.action_change()

    def _change_role_agents(self) -> None:
        name = self._selected("roles")
        if name is None:
            return
        row = next(row for row in self.settings.roles if row["name"] == name)
        layer = self.target

        def typed(text: str | None) -> None:
            if text:
                agents = [part.strip() for part in text.split(",") if part.strip()]
                self._edit(lambda editor: editor.add_role(layer, name, {"agents": agents}))

        self.app.push_screen(
            ValueModal(
                f"agents of role {name}, in fallback order ({layer} layer)",
                ", ".join(row["agents"]),
                "ids separated by commas",
            ),
            typed,
        )

    def _change_policy_value(self) -> None:
        key = self._selected("policy")
        if key is None:
            return
        setting = next(s for s in self.settings.policy if s.key == key)
        layer = self.target
        parts = tuple(key.split("."))

        def typed(text: str | None) -> None:
            if text:
                value = toml_value(text)
                self._edit(lambda editor: editor.set_value(layer, parts, value))

        self.app.push_screen(
            ValueModal(
                f"{key} ({layer} layer; now {setting.origin})",
                value_text(setting.value),
                'as in TOML: 4, true, "write", ["codex"]',
            ),
            typed,
        )

    def _selected(self, name: str) -> str | None:
        keys = self._keys[name]
        row = self.query_one(f"#{name}-table", DataTable).cursor_row
        if not keys or not 0 <= row < len(keys):
            self._say(False, f"no {name[:-1] if name != 'policy' else 'key'} selected")
            return None
        return keys[row]

    @work(thread=True, group="edit", exit_on_error=False)
    def _edit(self, edit: Callable[[Editor], Change]) -> None:
        self.post_message(self.Edited(run_edit(self.root, self.config_home, edit)))

    @on(Edited)
    def _edited(self, message: Edited) -> None:
        outcome = message.outcome
        self._say(outcome.ok, "\n".join([outcome.text, *(f"note: {n}" for n in outcome.notes)]))
        self._show_where()
        if outcome.ok:
            self.action_reload()

    # -- what the last edit did --------------------------------------------------------------

    def _said(self) -> Static:
        return self.query_one("#said", Static)

    def _say(self, ok: bool, text: str) -> None:
        said = self._said()
        said.remove_class("-reading", "-done", "-refused")
        said.add_class("-done" if ok else "-refused")
        said.update(safe_text(text, lines=True))
