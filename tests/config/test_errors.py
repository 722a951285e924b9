"""Every configuration error names the file, line, column and key where it was written."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from caesar_core.config import ConfigError, Layer
from caesar_core.errors import CaesarError, ExitCode
from tests.config.conftest import Layers


def error_of(layers: Layers, layer: Layer, text: str) -> ConfigError:
    layers.write(layer, text)
    with pytest.raises(ConfigError) as caught:
        layers.load()
    return caught.value


def lines(error: ConfigError, path: Path) -> list[str]:
    """The problems, with the path shown however the error showed it, as ``<file>:...``."""
    shown = {str(path), os.path.relpath(path)}
    out = []
    for line in error.reason.splitlines():
        file, _, rest = line.partition(":")
        assert file in shown, line
        out.append("<file>:" + rest)
    return out


def test_unknown_key_in_policy(layers: Layers) -> None:
    text = "# project settings\n\n[policy]\nmax_parallel = 2\n\n\nmax_paralel = 3\n"
    error = error_of(layers, "project", text)
    assert lines(error, layers.path("project")) == [
        "<file>:7:1: policy.max_paralel: unknown key; did you mean max_parallel?"
    ]
    assert (error.line, error.col, error.key) == (7, 1, "policy.max_paralel")
    assert error.path == layers.path("project")
    assert isinstance(error, CaesarError) and error.exit_code is ExitCode.USAGE
    assert "max_parallel, max_depth" in error.remedy  # the known keys of [policy]
    assert "caesar init" in error.remedy
    assert str(layers.path("project").name) in error.remedy


def test_unknown_table(layers: Layers) -> None:
    error = error_of(layers, "global", "[polcy]\nmax_parallel = 3\n")
    assert lines(error, layers.path("global")) == [
        "<file>:1:2: polcy: unknown key; did you mean policy?"
    ]


def test_dotted_keys_and_inline_tables_are_located_too(layers: Layers) -> None:
    text = 'policy.max_parallel = 2\npolicy.extra = 1\nbridge = { approval_timeout = "1y" }\n'
    error = error_of(layers, "local", text)
    out = lines(error, layers.path("local"))
    assert out[0] == "<file>:2:8: policy.extra: unknown key"
    assert out[1].startswith("<file>:3:12: bridge.approval_timeout: '1y' is not a duration")


NAME_RULE = "is not a valid name: use lowercase letters, digits, '-' and '_', starting with"
WRONG = [
    ('[policy]\nmax_parallel = "4"', 'policy.max_parallel: expected an integer, got string "4"'),
    ("[policy]\nmax_parallel = 4.0", "policy.max_parallel: expected an integer, got float 4.0"),
    (
        "[policy]\nallow_inplace_write = 1",
        "policy.allow_inplace_write: expected a boolean (true or false), got integer 1",
    ),
    ('[policy]\ndenied = "codex"', 'policy.denied: expected an array, got string "codex"'),
    ("policy = 3", "policy: expected a table, got integer 3"),
    ("worktree = []", "worktree: expected a table, got array []"),
    ("[policy]\nmax_depth = -1", "policy.max_depth: must be greater than or equal to 0, got -1"),
    (
        '[policy]\ndefault_mode = "writ"',
        "policy.default_mode: must be 'read-only' or 'write', got \"writ\"",
    ),
    (
        '[policy]\ndefault_isolation = "none"',
        "policy.default_isolation: must be 'inplace', 'worktree' or 'auto', got \"none\"",
    ),
    ('[policy]\nallowed = ["Codex"]', f"policy.allowed[0]: 'Codex' {NAME_RULE}"),
    ('[models]\n"Big Model" = "x"', f"models.\"Big Model\": 'Big Model' {NAME_RULE}"),
    ('[models]\ncodex = ""', "models.codex: must not be empty"),
]


@pytest.mark.parametrize(("text", "expected"), WRONG)
def test_wrong_types_and_values(layers: Layers, text: str, expected: str) -> None:
    """Each value is on line 2 (line 1 for a top-level key), found where its key starts."""
    error = error_of(layers, "project", text + "\n")
    (line,) = lines(error, layers.path("project"))
    where = "2:1" if "\n" in text else "1:1"
    if "allowed = [" in text:
        where = "2:12"  # an array element is located at the element itself
    assert line.startswith(f"<file>:{where}: {expected}")


def test_an_element_of_a_multiline_array(layers: Layers) -> None:
    error = error_of(layers, "project", '[policy]\nallowed = [\n  "codex",\n  3,\n]\n')
    assert lines(error, layers.path("project")) == [
        "<file>:4:3: policy.allowed[1]: expected a string, got integer 3"
    ]


def test_bad_duration(layers: Layers) -> None:
    error = error_of(layers, "project", '[policy]\ndefault_timeout = "10 minutes"\n')
    (line,) = lines(error, layers.path("project"))
    assert line.startswith("<file>:2:1: policy.default_timeout: '10 minutes' is not a duration;")
    assert '"1h30m"' in line


def test_role_missing_mode(layers: Layers) -> None:
    text = (
        '[[role]]\nname = "reviewer"\nagents = ["codex"]\n\n'
        '[[role]]\nname = "docs"\nagents = ["claude"]\n'
    )
    error = error_of(layers, "project", text)
    assert lines(error, layers.path("project")) == [
        '<file>:1:1: role "reviewer".mode: is required but missing',
        '<file>:5:1: role "docs".mode: is required but missing',
    ]


def test_role_with_no_agents_or_twice_the_same(layers: Layers) -> None:
    text = (
        '[[role]]\nname = "a"\nmode = "write"\nagents = []\n'
        '[[role]]\nname = "b"\nmode = "write"\nagents = ["x", "x"]\n'
    )
    error = error_of(layers, "project", text)
    assert lines(error, layers.path("project")) == [
        '<file>:4:1: role "a".agents: must not be empty',
        "<file>:8:1: role \"b\".agents: lists 'x' twice",
    ]


def test_agent_without_prompt(layers: Layers) -> None:
    text = '[[agent]]\nid = "jqagent"\nbin = "/path/agent.sh"\nargs = "--json"\n'
    error = error_of(layers, "project", text)
    assert lines(error, layers.path("project")) == [
        '<file>:4:1: agent "jqagent".args: must contain {{prompt}}, '
        "or the agent never receives the task"
    ]


def test_agent_with_unknown_token(layers: Layers) -> None:
    text = '[[agent]]\nid = "jqagent"\nbin = "x"\nargs = "{{prompt}} --ws {{workdir}}"\n'
    error = error_of(layers, "project", text)
    (line,) = lines(error, layers.path("project"))
    assert line.startswith('<file>:4:1: agent "jqagent".args: unknown token {{workdir}} (known: ')


def test_agent_entries_without_an_id_are_named_by_index(layers: Layers) -> None:
    text = '[[agent]]\nid = "ok"\nbin = "x"\n[[agent]]\nbin = "y"\nflavour = 1\n'
    error = error_of(layers, "project", text)
    assert lines(error, layers.path("project")) == [
        "<file>:4:1: agent[1].id: is required but missing",
        "<file>:6:1: agent[1].flavour: unknown key",
    ]
    assert "display_name" in error.remedy


def test_bad_agent_id_and_env_name(layers: Layers) -> None:
    text = '[[agent]]\nid = "My Agent"\nbin = "x"\n[agent.env]\n"NOT OK" = "1"\n'
    error = error_of(layers, "project", text)
    out = lines(error, layers.path("project"))
    assert out[0].startswith("<file>:2:1: agent \"My Agent\".id: 'My Agent' is not a valid name")
    assert out[1] == (
        '<file>:5:1: agent "My Agent".env."NOT OK": \'NOT OK\' is not an environment variable name'
    )


def test_duplicate_ids_in_one_file_point_at_the_second(layers: Layers) -> None:
    text = '[[agent]]\nid = "a"\nbin = "x"\n\n[[agent]]\nbin = "y"\n  id = "a"\n'
    error = error_of(layers, "local", text)
    assert lines(error, layers.path("local")) == [
        '<file>:7:3: agent "a".id: [[agent]] entry [0] of this file already has id = "a"; '
        "give each entry its own id"
    ]


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("../secrets", "must not go up with '..'"),
        ("a/../../b", "must not go up with '..'"),
        ("/etc/passwd", "must be relative to the repository root"),
        ("./node_modules", "is not normalized; write 'node_modules'"),
        ("node_modules/", "is not normalized; write 'node_modules'"),
        (".git/hooks", "is under .git, which is never shared"),
        (".caesar/state", "is under .caesar, which is never shared"),
        ("", "an empty path names the whole repository"),
    ],
)
def test_worktree_paths(layers: Layers, path: str, problem: str) -> None:
    error = error_of(layers, "project", f'[worktree]\nlink = ["ok", {path!r}]\n')
    shown = f"'{path}' {problem}" if path else problem
    assert lines(error, layers.path("project")) == [f"<file>:2:15: worktree.link[1]: {shown}"]


def test_bridge_rule_errors(layers: Layers) -> None:
    text = '[[bridge.rule]]\ntool = "Bash"\ndecision = "ask"\n'
    error = error_of(layers, "project", text)
    (line,) = lines(error, layers.path("project"))
    assert line.startswith("<file>:3:1: bridge.rule[0].decision: must be 'allow', 'deny', ")
    assert line.endswith(', got "ask"')


def test_toml_syntax_error_keeps_tomllib_position(layers: Layers) -> None:
    error = error_of(layers, "project", "[policy]\nmax_parallel = 4\nmax_depth = = 2\n")
    (line,) = lines(error, layers.path("project"))
    assert re.fullmatch(r"<file>:3:13: invalid TOML: .+", line), line
    assert "(at line" not in line  # the position moved to the front, not repeated
    assert error.exit_code is ExitCode.USAGE


def test_toml_error_at_the_end_of_the_document(layers: Layers) -> None:
    error = error_of(layers, "global", '[policy]\nallowed = ["codex"')
    (line,) = lines(error, layers.path("global"))
    assert line.startswith("<file>:2:19: invalid TOML: ")


def test_a_duplicate_key_is_a_toml_error(layers: Layers) -> None:
    error = error_of(layers, "project", "[policy]\nmax_depth = 1\nmax_depth = 2\n")
    assert "invalid TOML" in error.reason


def test_a_file_that_is_not_utf8(layers: Layers) -> None:
    path = layers.write("project", "")
    path.write_bytes(b'[policy]\nallowed = ["caf\xe9"]\n')
    with pytest.raises(ConfigError) as caught:
        layers.load()
    (line,) = lines(caught.value, path)
    assert line == "<file>:2:16: is not UTF-8 text (TOML files are UTF-8)"


def test_a_directory_where_the_file_should_be(layers: Layers) -> None:
    layers.path("local").mkdir(parents=True)
    with pytest.raises(ConfigError, match="cannot be read"):
        layers.load()


def test_each_layer_is_validated_on_its_own(layers: Layers) -> None:
    """The error is located in the file that has it, whichever layers come after."""
    layers.write("global", "[policy]\n\nmax_depth = 'deep'\n")
    layers.write("project", "[policy]\nmax_depth = 3\n")
    with pytest.raises(ConfigError) as caught:
        layers.load()
    assert caught.value.path == layers.path("global")
    assert (caught.value.line, caught.value.col) == (3, 1)


def test_errors_of_one_file_come_in_file_order_and_all_at_once(layers: Layers) -> None:
    text = '[worktree]\ncopy = [".."]\n[policy]\nmax_parallel = 0\nbogus = 1\n'
    error = error_of(layers, "project", text)
    assert [line.split(": ")[1] for line in lines(error, layers.path("project"))] == [
        "worktree.copy[0]",
        "policy.max_parallel",
        "policy.bogus",
    ]
    assert len(error.problems) == 3


def test_arrays_nested_500_deep_are_refused_before_parsing(layers: Layers) -> None:
    error = error_of(layers, "project", "[policy]\nallowed = " + "[" * 500 + "]" * 500 + "\n")
    assert lines(error, layers.path("project")) == [
        "<file>:2:75: arrays and inline tables nest deeper than 64 levels here"
    ]
    assert error.exit_code is ExitCode.USAGE


def test_inline_tables_and_dotted_keys_nested_too_deep(layers: Layers) -> None:
    inline = error_of(layers, "local", "x = " + "{a = " * 300 + "1" + "}" * 300 + "\n")
    dotted = error_of(layers, "local", "[policy]\n" + ".".join(["k"] * 100) + " = 1\n")
    assert "nest deeper than 64 levels" in inline.reason
    assert dotted.reason.endswith(": nests deeper than 64 levels")
    assert dotted.line == 2


def test_a_byte_order_mark_is_skipped(layers: Layers) -> None:
    path = layers.path("project")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xef\xbb\xbf[policy]\nmax_parallel = 3\n")
    assert layers.load().config.policy.max_parallel == 3
    path.write_bytes(b"\xef\xbb\xbfmax_parallel = 3\n")
    with pytest.raises(ConfigError) as caught:
        layers.load()
    assert (caught.value.line, caught.value.col) == (1, 1)


def test_a_dangling_link_is_not_read_as_no_configuration(layers: Layers, tmp_path: Path) -> None:
    path = layers.path("global")
    path.parent.mkdir(parents=True)
    path.symlink_to(tmp_path / "moved-away.toml")
    with pytest.raises(ConfigError) as caught:
        layers.load()
    assert "is a symbolic link to" in caught.value.reason
    assert str(tmp_path / "moved-away.toml") in caught.value.reason
    assert caught.value.path == path and caught.value.exit_code is ExitCode.USAGE


def test_durations_longer_than_a_week_are_refused_where_written(layers: Layers) -> None:
    error = error_of(layers, "project", '[policy]\ndefault_timeout = "99999999999999999h"\n')
    [problem] = lines(error, layers.path("project"))
    assert problem.startswith("<file>:2:1: policy.default_timeout: '99999999999999999h'")
    assert "longer than 168h" in problem
