"""The catalogue: built-ins by id, loaded on first use, in the order listings show them."""

from __future__ import annotations

import sys

from caesar_core.agents.registry import BUILTIN_IDS, builtin_adapter, catalogue
from caesar_core.config import Config


def test_each_built_in_is_found_under_its_own_id() -> None:
    assert BUILTIN_IDS == ("demo", "codex", "claude", "opencode", "gemini", "copilot", "qwen")
    for agent_id in BUILTIN_IDS:
        assert builtin_adapter(agent_id).id == agent_id
        assert builtin_adapter(agent_id) is builtin_adapter(agent_id)


def test_declared_entries_replace_a_built_in_in_its_place_and_add_after() -> None:
    entry = {"bin": "/bin/true", "args": "{{prompt}}"}
    config = Config.model_validate({"agent": [{"id": "zeta", **entry}, {"id": "claude", **entry}]})
    agents = catalogue(config)
    assert list(agents) == [*BUILTIN_IDS, "zeta"]
    assert len(agents) == len(BUILTIN_IDS) + 1
    assert agents["claude"].bin == "/bin/true"
    assert "zeta" in agents and "nobody" not in agents and agents.get("nobody") is None


def test_looking_one_up_loads_only_its_module() -> None:
    """In a fresh interpreter: asking for ``codex`` imports codex's module, no other."""
    import subprocess

    code = (
        "import sys\n"
        "from caesar_core.agents.registry import catalogue\n"
        "from caesar_core.config import Config\n"
        "catalogue(Config())['codex']\n"
        "print(' '.join(m for m in sys.modules if m.startswith('caesar_core.agents.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(out.stdout.split())
    assert "caesar_core.agents.codex" in loaded
    assert not loaded & {f"caesar_core.agents.{n}" for n in ("claude", "gemini", "qwen")}
