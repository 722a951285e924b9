"""The configuration edits of the CLI (``policy``, ``agents``, ``role``) and ``caesar config``.

Each one opens the one layer it targets (``config.edit``), changes what that layer declares,
and returns a :class:`Change`: the checked edit, a sentence saying what it did, and notes a
person must see (a list the layer now owns whole, an agent that still cannot run). Nothing is
written here; the caller shows the diff or writes it.

Refusals (exit 2) say why and what to do: an unknown agent or role lists the known ones;
removing what the layer does not declare names the layer that does; a more specific layer
that would override the edit is named with the option that targets it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from caesar_core.config import Layer, LoadedConfig, load_config
from caesar_core.config.edit import Edit, EditRefusedError, LayerFile, open_layer
from caesar_core.config.paths import LAYERS
from caesar_core.config.provenance import FLAGS, layers_declaring, layers_setting


@dataclass(frozen=True)
class Change:
    edit: Edit
    summary: str
    """What the edit does, in one sentence."""
    notes: tuple[str, ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict)
    """The command's own fields for ``--json``."""


class Editor:
    """The edits of one project's configuration (``config_home``: tests' global layer)."""

    def __init__(self, root: Path, config_home: Path | None = None) -> None:
        self.root = root
        self.config_home = config_home

    def load(self) -> LoadedConfig:
        return load_config(self.root, config_home=self.config_home)

    def open(self, layer: Layer) -> LayerFile:
        return open_layer(self.root, layer, config_home=self.config_home)

    # -- policy ------------------------------------------------------------------------------

    def allow(self, layer: Layer, agent_id: str) -> Change:
        """``policy.allowed`` gains the agent (and ``policy.denied`` loses it, so it can run)."""
        loaded = self.load()
        known_agent(loaded, agent_id)
        file = self.open(layer)
        notes: list[str] = []
        was_empty = not loaded.config.policy.allowed
        allowed = self._list_edit(file, loaded, "allowed", agent_id, present=True, notes=notes)
        if agent_id in loaded.config.policy.denied:
            self._list_edit(file, loaded, "denied", agent_id, present=False, notes=notes)
            notes.append(f"{agent_id} was denied; policy.denied no longer lists it")
        if was_empty:
            notes.append(
                "policy.allowed was empty (every agent not denied could run); it now lists "
                f"only {', '.join(allowed)}: the other agents cannot run. To stop one agent "
                "without restricting the others, use `caesar policy deny ID` instead"
            )
        edit = self._finish(file, agent_id, runs=True)
        return Change(
            edit,
            f"policy.allowed in the {layer} layer lists {agent_id}",
            tuple(notes),
            {"agent": agent_id, "allowed": allowed},
        )

    def deny(self, layer: Layer, agent_id: str) -> Change:
        """``policy.denied`` gains the agent: it never runs (denied wins over allowed)."""
        loaded = self.load()
        known_agent(loaded, agent_id)
        file = self.open(layer)
        notes: list[str] = []
        denied = self._list_edit(file, loaded, "denied", agent_id, present=True, notes=notes)
        edit = self._finish(file, agent_id, runs=False)
        return Change(
            edit,
            f"policy.denied in the {layer} layer lists {agent_id}",
            tuple(notes),
            {"agent": agent_id, "denied": denied},
        )

    def enable(self, layer: Layer, agent_id: str) -> Change:
        """The agent may run: out of ``policy.denied``, and into a non-empty ``allowed``."""
        loaded = self.load()
        known_agent(loaded, agent_id)
        file = self.open(layer)
        notes: list[str] = []
        policy = loaded.config.policy
        if agent_id in policy.denied:
            self._list_edit(file, loaded, "denied", agent_id, present=False, notes=notes)
        if policy.allowed and agent_id not in policy.allowed:
            self._list_edit(file, loaded, "allowed", agent_id, present=True, notes=notes)
        edit = self._finish(file, agent_id, runs=True)
        return Change(
            edit, f"{agent_id} may run (the {layer} layer's policy)", tuple(notes), _agent(agent_id)
        )

    def disable(self, layer: Layer, agent_id: str) -> Change:
        change = self.deny(layer, agent_id)
        return Change(
            change.edit,
            f"{agent_id} cannot run: {change.summary}",
            change.notes,
            change.data,
        )

    # -- agents ------------------------------------------------------------------------------

    def add_agent(self, layer: Layer, agent_id: str, fields: Mapping[str, Any]) -> Change:
        """An ``[[agent]]`` entry, whole (a same-id entry of this layer is replaced)."""
        from caesar_core.agents.registry import BUILTIN_IDS

        file = self.open(layer)
        replaced = file.put_entry("agent", agent_id, fields)
        notes = []
        if replaced:
            notes.append(f"the {layer} layer's [[agent]] {agent_id} was replaced whole")
        if agent_id in BUILTIN_IDS:
            notes.append(f"this entry replaces caesar's built-in {agent_id} adapter")
        edit = file.finish()
        return Change(
            edit, f"[[agent]] {agent_id} in the {layer} layer", tuple(notes), _agent(agent_id)
        )

    def remove_agent(self, layer: Layer, agent_id: str) -> Change:
        from caesar_core.agents.registry import BUILTIN_IDS

        file = self.open(layer)
        if not file.drop_entry("agent", agent_id):
            loaded = self.load()
            known_agent(loaded, agent_id)
            declaring = layers_declaring(self.root, "agent", agent_id, self.config_home)
            builtin = agent_id in BUILTIN_IDS
            if declaring:
                raise _elsewhere(f"[[agent]] {agent_id}", layer, declaring)
            raise EditRefusedError(
                f"{agent_id} is {'built into caesar' if builtin else 'declared by no layer'}: "
                f"the {layer} layer has no [[agent]] {agent_id} to remove",
                f"`caesar agents disable {agent_id}` stops it from running",
            )
        return Change(file.finish(), f"[[agent]] {agent_id} removed from the {layer} layer")

    def set_model(self, layer: Layer, agent_id: str, model: str) -> Change:
        known_agent(self.load(), agent_id)
        change = self.set_value(layer, ("models", agent_id), model)
        return Change(change.edit, change.summary, change.notes, {"agent": agent_id, **change.data})

    def unset_model(self, layer: Layer, agent_id: str) -> Change:
        if not self.open(layer).declares(("models", agent_id)):
            known_agent(self.load(), agent_id)
        return self.unset_value(layer, ("models", agent_id))

    # -- any key -----------------------------------------------------------------------------

    def set_value(self, layer: Layer, key: tuple[str, ...], value: Any) -> Change:
        """``key`` (``("policy", "max_parallel")``) set in the layer; the loader judges it."""
        file = self.open(layer)
        notes = self._overridden(key, layer)
        file.set(key, value)
        dotted = ".".join(key)
        return Change(
            file.finish(),
            f"{dotted} = {json.dumps(value, ensure_ascii=False)} in the {layer} layer",
            tuple(notes),
            {"key": dotted, "value": value},
        )

    def unset_value(self, layer: Layer, key: tuple[str, ...]) -> Change:
        """``key`` removed from the layer: the value comes from a less specific one again."""
        file = self.open(layer)
        dotted = ".".join(key)
        if not file.unset(key):
            setting = layers_setting(self.root, key, self.config_home)
            if setting:
                raise _elsewhere(dotted, layer, setting)
            raise EditRefusedError(
                f"no layer sets {dotted}: its value is caesar's default",
                "nothing to unset",
            )
        return Change(
            file.finish(), f"{dotted} removed from the {layer} layer", (), {"key": dotted}
        )

    # -- roles -------------------------------------------------------------------------------

    def add_role(self, layer: Layer, name: str, fields: Mapping[str, Any]) -> Change:
        """A ``[[role]]`` entry, whole. Keys not given keep the effective role's values (a
        built-in's too), so ``--agents`` alone changes only the agents."""
        loaded = self.load()
        given = {key: value for key, value in fields.items() if value is not None}
        for agent_id in given.get("agents", ()):
            known_agent(loaded, agent_id)
        current = loaded.config.role(name)
        values: dict[str, Any] = {}
        if current is not None:
            values = current.model_dump(mode="json", exclude_none=True)
        elif "mode" not in given or "agents" not in given:
            raise EditRefusedError(
                f"{name!r} is a new role: it needs its agents and its mode",
                f"add --agents A,B (fallback order) and --mode read-only|write; "
                f"known roles: {', '.join(r.name for r in loaded.config.roles)}",
            )
        values.update(given)
        file = self.open(layer)
        notes = self._overridden(("role", name), layer, kind="role")
        replaced = file.put_entry("role", name, values)
        if replaced:
            notes.append(f"the {layer} layer's [[role]] {name} was replaced whole")
        return Change(
            file.finish(), f"[[role]] {name} in the {layer} layer", tuple(notes), {"role": name}
        )

    def remove_role(self, layer: Layer, name: str) -> Change:
        file = self.open(layer)
        if not file.drop_entry("role", name):
            loaded = self.load()
            known_role(loaded, name)
            declaring = layers_declaring(self.root, "role", name, self.config_home)
            if declaring:
                raise _elsewhere(f"[[role]] {name}", layer, declaring)
            raise EditRefusedError(
                f"{name} is one of caesar's built-in roles: no layer declares it, so none can "
                "remove it",
                f"`caesar role add {name} ...` replaces it with your own",
            )
        return Change(file.finish(), f"[[role]] {name} removed from the {layer} layer")

    # -- shared ------------------------------------------------------------------------------

    def _list_edit(
        self,
        file: LayerFile,
        loaded: LoadedConfig,
        name: str,
        agent_id: str,
        *,
        present: bool,
        notes: list[str],
    ) -> list[str]:
        """``policy.<name>`` with or without ``agent_id``, written whole into the layer.

        Lists replace, they never merge: a layer that did not set the list starts from the
        effective one (what it inherits) and owns it from now on, which the notes say."""
        key = ("policy", name)
        setting = layers_setting(self.root, key, self.config_home)
        order = LAYERS.index(file.layer)
        wins = [other for other in setting if LAYERS.index(other) > order]
        if wins:
            raise _overriding(f"policy.{name}", file.layer, wins[-1])
        own = file.get(key)
        current = list(own) if isinstance(own, list) else list(getattr(loaded.config.policy, name))
        if (agent_id in current) == present:
            return current  # already so: nothing to write
        if present:
            current.append(agent_id)
        else:
            current = [item for item in current if item != agent_id]
        inherited = [other for other in setting if LAYERS.index(other) < order]
        if own is None and inherited:
            notes.append(
                f"the {file.layer} layer now sets policy.{name} whole, {json.dumps(current)}: "
                f"lists replace, so the {inherited[-1]} layer's policy.{name} no longer "
                "reaches it"
            )
        file.set(key, current)
        return current

    def _overridden(self, key: tuple[str, ...], layer: Layer, kind: str = "") -> list[str]:
        """A note when a more specific layer sets ``key`` too and wins."""
        found = (
            layers_declaring(self.root, kind, key[1], self.config_home)
            if kind
            else layers_setting(self.root, key, self.config_home)
        )
        wins = [other for other in found if LAYERS.index(other) > LAYERS.index(layer)]
        if not wins:
            return []
        shown = f"[[{kind}]] {key[1]}" if kind else ".".join(key)
        return [f"the {wins[-1]} layer sets {shown} too and wins over the {layer} layer"]

    def _finish(self, file: LayerFile, agent_id: str, *, runs: bool) -> Edit:
        """The edit, refused when the agent would still (not) run once it is written."""
        edit = file.finish()
        allowed, why = edit.config.config.policy.permits(agent_id)
        if allowed != runs:
            raise EditRefusedError(
                f"after this edit {agent_id} still {'cannot' if runs else 'can'} run: {why}",
                "see `caesar policy show` for the layer each list comes from",
            )
        return edit


def known_agent(loaded: LoadedConfig, agent_id: str) -> None:
    """Refuse an agent id the catalogue does not have, listing the ones it has."""
    from caesar_core.agents.registry import catalogue

    known = catalogue(loaded.config)
    if agent_id not in known:
        raise EditRefusedError(
            f"unknown agent {agent_id!r}",
            f"known agents: {', '.join(known)}; `caesar agents add {agent_id} --bin CMD` "
            "declares a new one",
        )


def known_role(loaded: LoadedConfig, name: str) -> None:
    """Refuse a role name the configuration does not have, listing the ones it has."""
    if loaded.config.role(name) is None:
        raise EditRefusedError(
            f"unknown role {name!r}",
            f"known roles: {', '.join(role.name for role in loaded.config.roles)}; "
            f"`caesar role add {name} --agents A,B --mode read-only|write` declares a new one",
        )


def _agent(agent_id: str) -> dict[str, Any]:
    return {"agent": agent_id}


def _flag(layer: Layer) -> str:
    return FLAGS[layer] or "no option (the project layer)"


def _elsewhere(what: str, layer: Layer, declaring: Sequence[Layer]) -> EditRefusedError:
    where = " and ".join(f"the {other} layer" for other in declaring)
    return EditRefusedError(
        f"the {layer} layer does not declare {what}: {where} does",
        f"remove it there: run the command again with {_flag(declaring[-1])}",
    )


def _overriding(what: str, layer: Layer, winner: Layer) -> EditRefusedError:
    return EditRefusedError(
        f"the {winner} layer sets {what} too and wins over the {layer} layer: this edit would "
        "change nothing in effect",
        f"edit the {winner} layer instead: run the command again with {_flag(winner)}",
    )


def toml_value(text: str) -> Any:
    """A value as a person types it: TOML (``4``, ``true``, ``"write"``, ``["codex"]``), else
    the text itself as a string (``10m``, ``read-only``)."""
    import tomllib

    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text
