"""A package's re-exported names, each loaded with its module on first use.

``caesar_core.store``, ``caesar_core.protocol`` and ``caesar_core.events`` name what their
modules define, for ``from caesar_core.store import TaskStore``; importing every module to
offer those names would make each command pay for all of them (``caesar ps`` reading records
would build every pydantic model of the contract). A package instead sets its module
``__getattr__`` to :func:`exports` and imports the names under ``TYPE_CHECKING`` for the type
checker. Stdlib only, and none of it imported at run time but ``sys``.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs ~4 ms: the bridge's begin imports a lazy package
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any


def exports(package: str, homes: Mapping[str, Sequence[str]]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: each name of ``homes`` (module -> the names it
    defines) imported from its module when first asked for, then kept in the package."""
    home_of = {name: module for module, names in homes.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = home_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        __import__(module)  # importlib.import_module, without importing importlib
        value = getattr(sys.modules[module], name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
