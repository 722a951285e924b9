"""``python -m caesar_core.agents.demo``: the demo agent as a process."""

from __future__ import annotations

from caesar_core.agents.demo.main import main

if __name__ == "__main__":
    raise SystemExit(main())
