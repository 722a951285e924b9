"""caesar's core: the contract as code, the task store, the event log; all but the screen.

Nothing here imports ``textual``, ``rich`` or ``caesar_tui``; ``tests/test_import_hygiene.py``
proves it in a fresh interpreter.
"""

from __future__ import annotations

__version__ = "0.1.0"
