"""Editing one configuration layer's file, the way a careful person would by hand.

``open_layer`` reads the file of one layer (global, project or local) with tomlkit, so what
the user wrote stays: comments, order, quoting, blank lines. The edits (``set``, ``unset``,
``put_entry``, ``drop_entry``) change that document alone. ``LayerFile.finish`` then checks
the *whole* effective configuration as it would be with the new text, with the loader every
other command uses (``load_config(texts=...)``), and only then hands back an :class:`Edit`:
its diff (``--dry-run``) and ``write``, atomic, refused if the file changed meanwhile.

A file that does not parse is refused and never rewritten (exit 2): it may hold the only copy
of settings the user cares about. A layer whose file does not exist is created by the first
edit. Keys are given as paths (``("policy", "denied")``), entries by kind and name
(``("agent", "jq")``), so a key the schema gains later needs no code here.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.container import Container
from tomlkit.exceptions import ParseError, TOMLKitError
from tomlkit.items import AoT, Array, InlineTable, Item, Table
from tomlkit.toml_document import TOMLDocument

from caesar_core.config.errors import DOCUMENTED, ConfigError, ConfigProblem
from caesar_core.config.layers import LoadedConfig, load_config
from caesar_core.config.layers import _read as read_layer
from caesar_core.config.paths import Layer, layer_path
from caesar_core.config.problems import KEYED
from caesar_core.errors import CaesarError, ExitCode
from caesar_core.fs import atomic_write

_BOM = "\ufeff"


class EditRefusedError(CaesarError):
    """An edit that cannot be made as asked; nothing was written."""

    exit_code = ExitCode.USAGE


@dataclass(frozen=True)
class Edit:
    """A layer's file before and after one edit, already checked whole."""

    layer: Layer
    path: Path
    before: str | None
    """The file's text when it was opened; None: it does not exist yet."""
    after: str
    config: LoadedConfig
    """The effective configuration once the edit is written."""

    @property
    def changed(self) -> bool:
        return self.before != self.after

    @property
    def created(self) -> bool:
        return self.before is None

    def diff(self) -> str:
        lines = difflib.unified_diff(
            (self.before or "").splitlines(keepends=True),
            self.after.splitlines(keepends=True),
            fromfile=f"{self.path} (now)" if self.before is not None else "/dev/null",
            tofile=str(self.path),
        )
        return "".join(lines)

    def write(self) -> None:
        """Replace the file atomically (through a link: the link stays, its target changes),
        unless someone else changed it since it was opened."""
        if not self.changed:
            return
        if _current_text(self.path) != self.before:
            raise EditRefusedError(
                f"{self.path} changed while this edit was being prepared",
                "run the command again: it will start from the file as it is now",
            )
        target = self.path.resolve() if self.path.is_symlink() else self.path
        try:
            mode = target.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o644
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, self.after.encode(), mode=mode)


class LayerFile:
    """One layer's file opened for editing (see the module's docstring)."""

    def __init__(
        self, root: Path | None, layer: Layer, path: Path, before: str | None, home: Path | None
    ) -> None:
        self.root = root
        self.layer: Layer = layer
        self.path = path
        self.before = before
        self._config_home = home
        text = (before or "").removeprefix(_BOM)
        self._bom = before is not None and before.startswith(_BOM)
        self.document: TOMLDocument = tomlkit.parse(text)

    # -- reading ---------------------------------------------------------------------------

    def get(self, key: Sequence[str]) -> Any:
        """The value this layer sets at ``key`` (plain Python), or None when it sets none."""
        node: Any = self.document
        for part in key:
            if not isinstance(node, Mapping) or part not in node:
                return None
            node = node[part]
        return _plain(node)

    def declares(self, key: Sequence[str]) -> bool:
        return self.get(key) is not None

    def entry(self, kind: str, name: str) -> dict[str, Any] | None:
        """The ``[[kind]]`` entry of this layer named ``name`` (plain Python), or None."""
        entries: Any = self.document.get(kind)
        index = _entry_index(entries, kind, name)
        return None if index is None else dict(_plain(entries[index]))

    def entry_names(self, kind: str) -> list[str]:
        entries: Any = self.document.get(kind)
        if not isinstance(entries, list):
            return []
        return [str(item.get(KEYED[kind])) for item in entries if isinstance(item, Mapping)]

    # -- editing ---------------------------------------------------------------------------

    def set(self, key: Sequence[str], value: Any) -> None:
        """Set ``key`` to ``value``, creating the tables on the way (``[policy]``)."""
        *tables, last = key
        self._table(tables)[last] = value

    def unset(self, key: Sequence[str]) -> bool:
        """Remove ``key`` from this layer; False when the layer did not set it. A table left
        empty by it stays (with its comments): removing what the user wrote is not ours."""
        *tables, last = key
        node: Any = self.document
        for part in tables:
            if not isinstance(node, Mapping) or part not in node:
                return False
            node = node[part]
        if not isinstance(node, MutableMapping) or last not in node:
            return False
        del node[last]
        return True

    def put_entry(self, kind: str, name: str, fields: Mapping[str, Any]) -> bool:
        """Replace this layer's ``[[kind]]`` named ``name`` whole, or add it after the others.
        True when it replaced one."""
        key = KEYED[kind]
        values = {key: name, **{k: v for k, v in fields.items() if k != key and v is not None}}
        entries: Any = self.document.get(kind)
        if entries is None:
            array = tomlkit.aot()
            array.append(_table(values))
            self.document.append(kind, array)
            return False
        index = _entry_index(entries, kind, name)
        if isinstance(entries, AoT):
            if index is None:
                entries.append(_table(values))
            else:
                entries[index] = _table(values)
        elif isinstance(entries, Array):
            inline = tomlkit.inline_table()
            inline.update(values)
            if index is None:
                entries.append(inline)
            else:
                entries[index] = inline
        else:
            raise EditRefusedError(
                f"{self.path}: {kind} is not an array of tables",
                f"fix {kind} in {self.path} (entries are written [[{kind}]]), then retry",
            )
        return index is not None

    def drop_entry(self, kind: str, name: str) -> bool:
        """Remove this layer's ``[[kind]]`` named ``name``; False when the layer has none."""
        entries: Any = self.document.get(kind)
        index = _entry_index(entries, kind, name)
        if index is None:
            return False
        if len(entries) == 1:
            del self.document[kind]
        else:
            del entries[index]
        return True

    # -- the result ------------------------------------------------------------------------

    def text(self) -> str:
        after = tomlkit.dumps(self.document)
        if after.endswith("\n\n") and not (self.before or "").endswith("\n\n"):
            after = after.rstrip("\n") + "\n"  # what a removed entry's blank line leaves
        return (_BOM if self._bom else "") + after

    def finish(self) -> Edit:
        """The edit, once the whole configuration with the new text is valid.

        Raises :class:`EditRefusedError` (exit 2) naming each problem, nothing written."""
        after = self.text()
        if self.before is None and not after.strip():
            after = ""
        try:
            loaded = load_config(self.root, config_home=self._config_home, texts={self.path: after})
        except ConfigError as error:
            if self._invalid_before():
                raise EditRefusedError(
                    "the configuration is invalid, and stays so with this edit; nothing was "
                    "written:\n" + error.reason,
                    f"fix what is named above first; {DOCUMENTED}",
                ) from None
            raise EditRefusedError(
                "this edit would leave the configuration invalid, so nothing was written:\n"
                + error.reason
                + f"\n(lines of {self.path.name} as the edit would leave it)",
                f"change the values asked for; {DOCUMENTED}",
            ) from None
        return Edit(self.layer, self.path, self.before, after, loaded)

    def _invalid_before(self) -> bool:
        try:
            load_config(
                self.root, config_home=self._config_home, texts={self.path: self.before or ""}
            )
        except ConfigError:
            return True
        return False

    def _table(self, path: Sequence[str]) -> Container | Table | InlineTable:
        node: Container | Table | InlineTable = self.document
        for part in path:
            found = node.get(part)
            if found is None:
                fresh = tomlkit.table()
                node.append(part, fresh)
                found = node[part]
            if not isinstance(found, Table | InlineTable):
                raise EditRefusedError(
                    f"{self.path}: {'.'.join(path)} is not a table",
                    f"fix {'.'.join(path)} in {self.path}, then retry",
                )
            node = found
        return node


def open_layer(root: Path | None, layer: Layer, *, config_home: Path | None = None) -> LayerFile:
    """The file of ``layer`` (``root``'s, or the global one), ready to edit.

    A file that cannot be read or parsed raises :class:`~caesar_core.config.ConfigError`
    (exit 2) as the loader words and locates it; nothing is written. A file that parses but
    holds a bad value opens: the edit may be what fixes it (``finish`` checks the whole)."""
    path = layer_path(root, layer, config_home)
    before = _current_text(path)
    try:
        return LayerFile(root, layer, path, before, config_home)
    except (ParseError, TOMLKitError) as error:  # tomllib read it, tomlkit does not
        line, col = getattr(error, "line", 1), getattr(error, "col", 1)
        raise ConfigError(
            [ConfigProblem(path, line, col, "", f"cannot be edited: {error}")],
            f"rewrite that spot of {path} by hand, then retry; nothing was written",
        ) from None


def _current_text(path: Path) -> str | None:
    """The file's text, None when it does not exist. What the loader refuses (a link to
    nothing, unreadable, not UTF-8, not TOML, nested too deep) raises its located error."""
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        read_layer(path)  # a link to nothing is refused there
        return None
    except OSError:
        read_layer(path)
        raise  # not reached: the loader refuses a file it cannot read
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        read_layer(path)
        raise  # not reached: the loader refuses bytes that are not UTF-8
    read_layer(path, text)
    return text


def _entry_index(entries: object, kind: str, name: str) -> int | None:
    if not isinstance(entries, list):
        return None
    key = KEYED[kind]
    return next(
        (
            index
            for index, item in enumerate(entries)
            if isinstance(item, Mapping) and item.get(key) == name
        ),
        None,
    )


def _table(values: Mapping[str, Any]) -> Table:
    table = tomlkit.table()
    for key, value in values.items():
        table[key] = value
    return table


def _plain(value: Any) -> Any:
    """tomlkit's items as plain dicts, lists, strings and numbers."""
    if isinstance(value, Item):
        return value.unwrap()
    if isinstance(value, TOMLDocument):
        return value.unwrap()
    return value
