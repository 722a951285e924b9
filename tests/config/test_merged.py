"""The merged whole is validated too; an error there is traced back to the file that set it.

Layers validated one by one merge into a valid whole today, so this safety net is exercised
by corrupting a merged result directly, through the loader's own internals.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from caesar_core.config import BUILTIN_ROLES, Config, ConfigError, ConfigProblem
from caesar_core.config.layers import _Layer, _merge, _merged_problem, _read
from tests.config.conftest import Layers


def merge(layers: Layers) -> tuple[dict[str, Any], dict[tuple[str, ...], str], list[_Layer]]:
    read = [
        layer
        for layer in (_read(layers.path(name)) for name in ("global", "project", "local"))
        if layer is not None
    ]
    merged: dict[str, Any] = {"role": [dict(role) for role in BUILTIN_ROLES]}
    sources: dict[tuple[str, ...], str] = {}
    for layer in read:
        _merge(merged, layer.data, str(layer.path), sources)
    return merged, sources, read


def problems(
    merged: dict[str, Any], sources: dict[tuple[str, ...], str], read: list[_Layer]
) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        Config.model_validate(merged)
    return [str(_merged_problem(err, merged, sources, read)) for err in caught.value.errors()]


def test_an_entry_error_is_located_in_the_entry_of_the_file_that_won(layers: Layers) -> None:
    layers.write("global", '[[agent]]\nid = "a"\nbin = "x"\n[[agent]]\nid = "b"\nbin = "x"\n')
    project = layers.write(
        "project", '[[agent]]\nid = "c"\nbin = "x"\n\n[[agent]]\nid = "b"\nbin = "y"\n'
    )
    merged, sources, read = merge(layers)
    assert [entry["id"] for entry in merged["agent"]] == ["a", "b", "c"]
    merged["agent"][1]["bin"] = ""
    assert problems(merged, sources, read) == [f'{project}:7:1: agent "b".bin: must not be empty']


def test_a_table_value_is_located_in_the_layer_that_set_it(layers: Layers) -> None:
    layers.write("global", "[policy]\nmax_depth = 3\n")
    local = layers.write("local", "[policy]\n\nmax_depth = 4\n")
    merged, sources, read = merge(layers)
    merged["policy"]["max_depth"] = -1
    assert problems(merged, sources, read) == [
        f"{local}:3:1: policy.max_depth: must be greater than or equal to 0, got -1"
    ]


def test_a_default_value_has_no_file(layers: Layers) -> None:
    merged, sources, read = merge(layers)
    merged["bridge"] = {"on_approval_timeout": "maybe"}
    (line,) = problems(merged, sources, read)
    assert line.startswith("<caesar defaults>:1:1: bridge.on_approval_timeout: must be ")


def test_config_error_shape(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least one problem"):
        ConfigError([])
    problem = ConfigProblem(tmp_path / "c.toml", 2, 3, "policy.x", "unknown key", "try y")
    error = ConfigError([problem])
    assert str(error).startswith(
        f"{tmp_path / 'c.toml'}:2:3: policy.x: unknown key\n  remedy: edit "
    )
    assert "(try y)" in error.remedy
    assert ConfigError([problem], "do this").remedy == "do this"
    assert str(ConfigProblem(None, 1, 1, "", "bad")) == "<caesar defaults>:1:1: bad"
