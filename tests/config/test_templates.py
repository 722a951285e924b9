"""Agent command-line templates: shell-like splitting, substitution, missing values."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from caesar_core.config import AgentConfig, TemplateError, render_template, split_template
from caesar_core.config.templates import check_template, uses_token

VALUES: dict[str, str | None] = {
    "prompt": 'fix "the" bug; rm -rf $HOME',
    "workspace": "/work/my repo",
    "taskDir": "/work/my repo/.caesar/tasks/t_1",
    "reportPath": "/work/my repo/.caesar/tasks/t_1/report.json",
    "model": None,
}


def agent(args: str, **extra: object) -> AgentConfig:
    return AgentConfig.model_validate(
        {"id": "jqagent", "bin": "/path/agent.sh", "args": args, **extra}
    )


def test_the_default_args_are_the_prompt_alone() -> None:
    config = AgentConfig.model_validate({"id": "jqagent", "bin": "/path/agent.sh"})
    assert config.args == "{{prompt}}"
    assert config.render_args(VALUES) == [VALUES["prompt"]]


def test_values_are_substituted_after_splitting_so_they_stay_one_argument() -> None:
    """A prompt with spaces, quotes and shell syntax is one argument, never re-split."""
    rendered = agent('exec --cd {{workspace}} "--title=a b" {{prompt}}').render_args(VALUES)
    assert rendered == ["exec", "--cd", "/work/my repo", "--title=a b", VALUES["prompt"]]


def test_tokens_embedded_in_text_keep_the_text_around_them() -> None:
    rendered = agent("--out={{reportPath}} --dir {{taskDir}}/logs -p{{prompt}}").render_args(VALUES)
    assert rendered == [
        "--out=/work/my repo/.caesar/tasks/t_1/report.json",
        "--dir",
        "/work/my repo/.caesar/tasks/t_1/logs",
        "-p" + str(VALUES["prompt"]),
    ]


def test_single_quotes_and_escapes_follow_shell_rules() -> None:
    assert split_template(r"""a 'b c' "d \"e\"" f\ g""") == ["a", "b c", 'd "e"', "f g"]


def test_a_missing_model_drops_its_argument_and_the_flag_before_it() -> None:
    config = agent("run --model {{model}} --json {{prompt}}")
    assert config.render_args(VALUES) == ["run", "--json", VALUES["prompt"]]
    assert config.render_args({**VALUES, "model": "gpt-5"}) == [
        "run",
        "--model",
        "gpt-5",
        "--json",
        VALUES["prompt"],
    ]


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("--model={{model}} {{prompt}}", ["P"]),  # one argument: dropped alone
        ("-m {{model}} {{prompt}}", ["P"]),  # short flags count too
        ("-- {{model}} {{prompt}}", ["--", "P"]),  # "--" is not an option flag
        ("--x=1 {{model}} {{prompt}}", ["--x=1", "P"]),  # a flag with its value stays
        ("{{workspace}} {{model}} {{prompt}}", ["W", "P"]),  # a previous token value stays
        ("--a {{model}} {{model}} {{prompt}}", ["P"]),  # only one flag per dropped argument
    ],
)
def test_dropping_rules(template: str, expected: list[str]) -> None:
    values: dict[str, str | None] = {"prompt": "P", "workspace": "W", "model": None}
    assert render_template(template, values) == expected


def test_a_token_absent_from_the_values_counts_as_missing() -> None:
    assert render_template("--model {{model}} {{prompt}}", {"prompt": "P"}) == ["P"]


def test_render_args_needs_the_prompt() -> None:
    with pytest.raises(ValueError, match="prompt"):
        agent("{{prompt}}").render_args({**VALUES, "prompt": None})


def test_extra_templates_render_with_the_same_rules() -> None:
    config = agent("{{prompt}}", read_only_args="--sandbox read-only --model {{model}}")
    assert config.read_only_args is not None
    assert config.render_template(config.read_only_args, VALUES) == ["--sandbox", "read-only"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ("exec --json", "must contain {{prompt}}"),
        ("", "must contain {{prompt}}"),
        ("{{prompt}} {{modle}}", "unknown token {{modle}}"),
        ("{{ prompt }}", "unknown token {{ prompt }}"),
        ("'{{prompt}}", "cannot be split"),
    ],
)
def test_bad_templates_are_refused(args: str, fragment: str) -> None:
    with pytest.raises(ValidationError, match=fragment.replace("{", r"\{").replace("}", r"\}")):
        agent(args)


def test_unknown_token_suggests_the_near_one() -> None:
    with pytest.raises(TemplateError, match="did you mean"):
        check_template("{{prompt}} {{taskdir}}", require_prompt=True)


def test_extra_templates_need_no_prompt_but_known_tokens() -> None:
    assert agent("{{prompt}}", network_args="--offline").network_args == "--offline"
    with pytest.raises(ValidationError, match="unknown token"):
        agent("{{prompt}}", network_args="--net {{network}}")


def test_cwd_mode_flag_needs_the_workspace_in_args() -> None:
    with pytest.raises(ValidationError, match="must pass"):
        agent("{{prompt}}", cwd_mode="flag")
    assert agent("--cd {{workspace}} {{prompt}}", cwd_mode="flag").cwd_mode == "flag"


def test_uses_token() -> None:
    assert uses_token("--model {{model}} {{prompt}}", "model")
    assert not uses_token("{{prompt}}", "model")
    assert not uses_token(None, "model")


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ({"resume_args": "--resume {{session}} {{prompt}}"}, "needs session_from"),
        ({"session_from": "/id", "resume_args": "--resume {{prompt}}"}, "must contain {{session}}"),
        ({"session_from": "/id", "resume_args": "--resume {{session}}"}, "must contain {{prompt}}"),
        ({"session_from": "session_id"}, "not a JSON pointer"),
    ],
)
def test_resume_args_need_the_session_the_prompt_and_where_the_id_is(
    extra: dict[str, str], fragment: str
) -> None:
    with pytest.raises(ValidationError, match=fragment.replace("{", r"\{").replace("}", r"\}")):
        agent("{{prompt}}", **extra)


def test_resume_args_render_the_session() -> None:
    config = agent("{{prompt}}", session_from="/id", resume_args="-r {{session}} {{prompt}}")
    assert config.resume_args is not None
    assert render_template(config.resume_args, {**VALUES, "session": "s1"}) == [
        "-r",
        "s1",
        VALUES["prompt"],
    ]
