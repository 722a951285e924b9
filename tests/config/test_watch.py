"""``[watch]``: strict like every section, and its key table checked against the actions."""

from __future__ import annotations

from caesar_core.config import WATCH_KEYS, Config
from caesar_core.errors import ExitCode
from tests.config.conftest import Layers
from tests.config.test_errors import error_of, lines


def test_the_defaults_notify_and_remap_nothing() -> None:
    assert Config().watch.notify is True
    assert Config().watch.keys == {}


def test_keys_merge_by_action_across_layers(layers: Layers) -> None:
    layers.write("global", '[watch.keys]\nanswer = "ctrl+a"\nquit = "ctrl+x"\n')
    path = layers.write("local", '[watch]\nnotify = false\n[watch.keys]\nquit = "Q"\n')
    loaded = layers.load()
    assert loaded.config.watch.keys == {"answer": "ctrl+a", "quit": "Q"}
    assert loaded.config.watch.notify is False
    assert loaded.source_of("watch.keys.quit") == str(path)
    assert loaded.source_of("watch.notify") == str(path)


def test_an_unknown_action_is_refused_where_it_is_written(layers: Layers) -> None:
    error = error_of(layers, "project", '[watch.keys]\nanswr = "a"\n')
    [line] = lines(error, layers.path("project"))
    assert line.startswith("<file>:2:1: watch.keys.answr: 'answr' is not an action")
    assert "did you mean 'answer'?" in line
    assert error.exit_code == ExitCode.USAGE


def test_a_key_list_with_a_blank_is_refused(layers: Layers) -> None:
    error = error_of(layers, "project", '[watch.keys]\ndown = "j, ,down"\n')
    [line] = lines(error, layers.path("project"))
    assert "watch.keys.down: 'j, ,down' is not a list of keys" in line


def test_unknown_watch_keys_and_wrong_types_are_refused(layers: Layers) -> None:
    error = error_of(layers, "project", "[watch]\nnotfy = false\n")
    assert "watch.notfy: unknown key; did you mean notify?" in error.reason
    error = error_of(layers, "project", '[watch]\nnotify = "no"\n')
    assert "watch.notify: expected a boolean" in error.reason


def test_every_action_has_a_default_key() -> None:
    assert all(keys.strip() for keys in WATCH_KEYS.values())
