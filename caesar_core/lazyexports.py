"""A package's public names loaded from their modules on first use (PEP 562).

A package ``__init__`` that imports every module it re-exports makes importing any one of its
modules pay for all of them: ``import caesar_core.protocol.report`` ran the package's
``__init__``, which built every document's pydantic validator. With :func:`lazy_exports` the
package keeps its names (``from caesar_core.protocol import Report`` works as before, and mypy
reads them from the ``TYPE_CHECKING`` imports), but each is imported when first asked for.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from types import ModuleType
from typing import Any


def lazy_exports(
    package: str, homes: Mapping[str, Sequence[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose ``homes`` maps each of its
    modules (relative name) to the names it exports.

    A name that is also one of those modules (``protocol.parse`` exports ``parse``) stays the
    name: importing the module later would otherwise set the package's attribute to the module
    (an eager ``__init__`` rebound it after its imports, which is what callers rely on).
    """
    where = {name: module for module, names in homes.items() for name in names}
    namespace = import_module(package).__dict__
    shadowed = {name for name in where if name in homes}
    if shadowed:
        sys.modules[package].__class__ = _keeping(frozenset(shadowed))

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *where})

    return __getattr__, __dir__


def _keeping(names: frozenset[str]) -> type[ModuleType]:
    class Package(ModuleType):
        """A package whose ``names`` are what its modules of the same name export."""

        def __setattr__(self, name: str, value: Any) -> None:
            if name in names and isinstance(value, ModuleType):
                value = getattr(value, name)  # the submodule just imported: keep its export
            super().__setattr__(name, value)

    return Package
