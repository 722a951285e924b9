"""caesar's process builds its models without looking for pydantic plugins: no scan of every
installed distribution's entry points, and no third-party plugin sees what agents wrote."""

from __future__ import annotations

import os
import subprocess
import sys
import types

import pytest

PROBE = """
import importlib.metadata

def refuse(*args, **kwargs):
    raise AssertionError("entry points scanned")

importlib.metadata.entry_points = refuse
from caesar_core.protocol.report import Report
from caesar_core.store.record import TaskRecord

Report.model_validate({"protocol": "caesar.report/v1", "status": "success", "summary": "ok"})
TaskRecord.model_json_schema()
from pydantic.plugin import _loader
assert _loader._plugins == {}, _loader._plugins
print("built")
"""


def test_the_first_models_built_scan_no_entry_points() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "built\n", "")


def test_the_models_built_import_no_distribution_metadata() -> None:
    """Nor is ``importlib.metadata`` imported for them (~20 ms of every command's start)."""
    probe = (
        "import sys\n"
        "from caesar_core.protocol.report import Report\n"
        "from caesar_core.config import load_config\n"
        "Report.model_validate("
        "{'protocol': 'caesar.report/v1', 'status': 'success', 'summary': 'ok'})\n"
        "print('importlib.metadata' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "False\n", "")


def test_a_name_the_stand_in_does_not_know_comes_from_the_real_loader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A pydantic that asks its loader for more than ``get_plugins`` gets the real module's
    answer, with no plugins loaded all the same."""
    from caesar_core.protocol import _base

    monkeypatch.delitem(sys.modules, _base.LOADER, raising=False)
    _base._no_pydantic_plugins()
    stand_in = sys.modules[_base.LOADER]
    assert list(stand_in.get_plugins()) == []
    assert stand_in.PYDANTIC_ENTRY_POINT_GROUP == "pydantic"
    real = sys.modules[_base.LOADER]
    assert real is not stand_in
    assert real._plugins == {}
    assert list(real.get_plugins()) == []


def test_the_environment_is_left_alone() -> None:
    """Agents and checks inherit caesar's environment: plugins are off in this process only."""
    import caesar_core.protocol._base  # noqa: F401

    assert "PYDANTIC_DISABLE_PLUGINS" not in os.environ


@pytest.mark.parametrize("loaded", [{"a.b:plugin": object()}, "renamed"])
def test_loaded_plugins_or_a_renamed_cache_are_left_as_they_are(
    monkeypatch: pytest.MonkeyPatch, loaded: object
) -> None:
    from caesar_core.protocol import _base

    loader = types.ModuleType("pydantic.plugin._loader")
    if loaded != "renamed":
        loader._plugins = loaded  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pydantic.plugin._loader", loader)
    monkeypatch.setattr(sys.modules["pydantic.plugin"], "_loader", loader, raising=False)
    _base._no_pydantic_plugins()
    assert vars(loader).get("_plugins", "renamed") is loaded
