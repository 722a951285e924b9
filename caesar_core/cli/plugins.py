"""Commands added through the ``caesar.commands`` entry points: ``caesar watch`` and
``caesar config`` (caesar_tui joins the CLI this way, so caesar_core never imports the TUI),
and any other distribution's.

Finding one by name does not read every installed distribution's metadata first: caesar's
own distribution is looked up as ``importlib.metadata`` looks up any (the first
``caesar-*.dist-info`` directory along ``sys.path``) and its ``entry_points.txt`` read with
:mod:`configparser`, which costs a directory listing or two where ``importlib.metadata``
costs its import (~20 ms with email, zipfile and csv) and a scan of every distribution. The
scan is still what answers for a name caesar's own distribution does not name, and for the
help's list; and wherever caesar's metadata is not a plain ``.dist-info`` directory (an egg,
a zip), the scan answers everything.
"""

from __future__ import annotations

import os
import re
import sys
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

PLUGIN_GROUP = "caesar.commands"
"""The entry point group of commands."""
DISTRIBUTION = "caesar"
"""caesar's own distribution, whose metadata names ``watch`` and ``config``."""
_TARGET = re.compile(r"[\w.]+:[\w.]+")
"""An entry point's value as a module and an attribute, nothing else."""


def all_plugins() -> list[EntryPoint]:
    """Every distribution's commands: scans every installed distribution's metadata."""
    from importlib.metadata import entry_points

    return list(entry_points(group=PLUGIN_GROUP))


def own_plugins() -> dict[str, str] | None:
    """caesar's own distribution's commands (name -> ``module:attribute``), or None when its
    metadata cannot be read this way (then :func:`all_plugins` has the answer)."""
    folder = _own_metadata()
    if folder is None:
        return None
    import configparser

    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # names kept as written
    try:
        with open(os.path.join(folder, "entry_points.txt"), encoding="utf-8") as handle:
            parser.read_file(handle)
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, configparser.Error):
        return None
    if not parser.has_section(PLUGIN_GROUP):
        return {}
    # Only what ``EntryPoint`` reads as plain ``module:attribute``; anything else (extras) is
    # left to the scan, which reads it as importlib.metadata does.
    return {
        name: value.strip()
        for name, value in parser.items(PLUGIN_GROUP)
        if _TARGET.fullmatch(value.strip())
    }


def load(target: str) -> object:
    """The object a ``module:attribute`` of :func:`own_plugins` names (``a.b:c.d`` too)."""
    module, _, attribute = target.partition(":")
    loaded: object = import_module(module)
    for part in attribute.split("."):
        loaded = getattr(loaded, part)
    return loaded


def _own_metadata() -> str | None:
    """The ``caesar-<version>.dist-info`` directory ``importlib.metadata.distribution("caesar")``
    would read: the first along ``sys.path``; None when the first match is anything else (an
    ``.egg-info``, a zip) or there is none."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        found = {suffix: name for name in sorted(names, reverse=True) if (suffix := _ours(name))}
        if "dist-info" in found:
            folder = os.path.join(entry or ".", found["dist-info"])
            return folder if os.path.isdir(folder) else None
        if found:
            return None  # an egg's metadata: importlib.metadata reads it, not this
    return None


def _ours(name: str) -> str | None:
    """``dist-info`` or ``egg-info`` when ``name`` is caesar's metadata directory, else None."""
    stem, dot, suffix = name.rpartition(".")
    if not dot or suffix not in ("dist-info", "egg-info"):
        return None
    return suffix if _normalized(stem.partition("-")[0]) == DISTRIBUTION else None


def _normalized(name: str) -> str:
    """A distribution's name as the packaging specs compare them (PEP 503)."""
    return name.lower().replace("_", "-").replace(".", "-")
