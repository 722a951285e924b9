"""The configuration as typed models: every key, its type, its default, its checks.

Everything here is strict on purpose. A config file is written by hand and read by a program
that launches other programs: a typo (``max_paralel``), a number in quotes or a relative
path that escapes the repository must stop caesar with a located error, never be guessed at.
So sections forbid unknown keys, scalars use pydantic's strict types (``"4"`` is not 4,
``true`` is not 1), and each field's check lives next to the field (the checked scalars
every section shares, names, paths, templates, keys: :mod:`caesar_core.config.fields`).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)
from pydantic.dataclasses import dataclass as pydantic_dataclass
from pydantic_core.core_schema import ValidationInfo

from caesar_core.config.defaults import (
    BRIDGE_APPROVAL_TIMEOUT_MS,
    BRIDGE_ON_APPROVAL_TIMEOUT,
    BUILTIN_ROLES,
    DEFAULT_ROLE_PROMPTS,
)
from caesar_core.config.durations import Duration
from caesar_core.config.fields import (
    ArgsTemplate,
    EnvName,
    Identifier,
    KeyList,
    NonEmpty,
    RelativeFile,
    RepositoryPath,
    WatchAction,
    no_duplicates,
    problem,
)
from caesar_core.config.templates import (
    Template,
    TemplateError,
    check_template,
    render_template,
    uses_token,
)
from caesar_core.protocol.task import Mode

IsolationChoice = Literal["inplace", "worktree", "auto"]
NetworkChoice = Literal["auto", "on", "off"]
CwdMode = Literal["process", "flag"]
Decision = Literal["allow", "deny", "block", "require_approval", "halt", "quarantine"]

_STRICT = ConfigDict(extra="forbid", frozen=True, defer_build=True)
RECURSIVE_AGENT = "claude"
"""The agent ``[policy] allow_recursion = false`` refuses (the reference's rule, by name)."""
TEN_MINUTES = Duration(600_000)


class Policy(BaseModel):
    """``[policy]``: who may run, how many at once, and what a task gets when it does not say."""

    model_config = _STRICT

    allowed: list[Identifier] = Field(default_factory=list)
    """Agents that may run; empty means every agent not denied."""
    denied: list[Identifier] = Field(default_factory=list)
    """Agents that may never run; denied wins over allowed."""
    max_parallel: Annotated[StrictInt, Field(ge=1)] = 4
    max_depth: Annotated[StrictInt, Field(ge=0)] = 3
    """0 refuses every delegation."""
    default_mode: Mode = Mode.WRITE
    default_isolation: IsolationChoice = "auto"
    default_network: NetworkChoice = "auto"
    default_timeout: Duration = TEN_MINUTES
    allow_inplace_write: StrictBool = False
    allow_recursion: StrictBool = True
    """False refuses the agent ``claude`` (delegating to Claude Code from Claude Code is the
    recursion it guards against), as the reference implementation reads the key; caesar's
    default is true (the reference's false), its depth limit bounding nesting either way."""

    @property
    def timeout_ms(self) -> int:
        return self.default_timeout.ms

    def permits(self, agent_id: str) -> tuple[bool, str]:
        """Whether ``agent_id`` may run, and the rule that decided, for the refusal message."""
        allowed, why, _ = self._decide(agent_id)
        return allowed, why

    def deciding_key(self, agent_id: str) -> str:
        """The ``[policy]`` key whose value decided :meth:`permits` (``policy.denied``,
        ``policy.allow_recursion`` or ``policy.allowed``): where a refusal's remedy points."""
        return self._decide(agent_id)[2]

    def _decide(self, agent_id: str) -> tuple[bool, str, str]:
        if agent_id in self.denied:
            return False, f"policy.denied lists {agent_id!r}", "policy.denied"
        if agent_id == RECURSIVE_AGENT and not self.allow_recursion:
            return (
                False,
                (
                    f"policy.allow_recursion is false, which refuses {agent_id!r} (delegating to "
                    "Claude Code from Claude Code is recursion); set it to true to allow it"
                ),
                "policy.allow_recursion",
            )
        if not self.allowed:
            why = f"policy.allowed is empty and policy.denied does not list {agent_id!r}"
            return True, why, "policy.allowed"
        if agent_id in self.allowed:
            return True, f"policy.allowed lists {agent_id!r}", "policy.allowed"
        return (
            False,
            (f"policy.allowed does not list {agent_id!r} (it lists {', '.join(self.allowed)})"),
            "policy.allowed",
        )


@pydantic_dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class Worktree:
    """``[worktree]``: what a fresh worktree needs that git does not carry.

    A pydantic dataclass rather than a model because the key ``copy`` would shadow
    ``BaseModel.copy``.
    """

    copy: list[RepositoryPath] = field(default_factory=list)
    """Untracked files copied from the repository into the worktree (``.env``)."""
    link: list[RepositoryPath] = field(default_factory=list)
    """Paths symlinked rather than copied (``node_modules``: large, read-mostly)."""
    setup: list[NonEmpty] = field(default_factory=list)
    """Shell commands run in the worktree before the agent starts."""


class Role(BaseModel):
    """``[[role]]``: a named job, with agents in fallback order and the task's defaults."""

    model_config = _STRICT

    name: Identifier
    purpose: StrictStr = ""
    agents: Annotated[list[Identifier], Field(min_length=1)]
    """Fallback order: the first agent installed and allowed by the policy runs."""
    mode: Mode
    isolation: IsolationChoice = "auto"
    network: NetworkChoice = "auto"
    timeout: Duration = TEN_MINUTES
    system_prompt_file: RelativeFile | None = None
    """Markdown prepended to the agent's prompt, relative to ``<root>/.caesar/``."""
    model: NonEmpty | None = None

    @field_validator("agents")
    @classmethod
    def _distinct_agents(cls, agents: list[str]) -> list[str]:
        return no_duplicates(agents)

    @property
    def timeout_ms(self) -> int:
        return self.timeout.ms

    def system_prompt_path(self, root: Path) -> Path | None:
        return (
            None if self.system_prompt_file is None else root / ".caesar" / self.system_prompt_file
        )

    def read_system_prompt(self, root: Path) -> str:
        """The role's system prompt; a built-in role whose file is missing gets its default.

        Built-in roles exist without ``caesar init``, so their prompt must not depend on the
        file init writes; once the file exists, the user's edits win.
        """
        path = self.system_prompt_path(root)
        if path is None:
            return ""
        try:
            return path.read_text(encoding="utf-8")
        except OSError:
            default = f"roles/{self.name}.md"
            if self.system_prompt_file == default and self.name in DEFAULT_ROLE_PROMPTS:
                return DEFAULT_ROLE_PROMPTS[self.name]
            return ""


class AgentConfig(BaseModel):
    """``[[agent]]``: any CLI as an agent, described by its command-line template."""

    model_config = _STRICT

    id: Identifier
    bin: NonEmpty
    """A command on PATH, or a path to the executable."""
    args: ArgsTemplate = "{{prompt}}"
    """A command line split like a shell would, or an array with one argument per item."""
    display_name: NonEmpty | None = None
    cwd_mode: CwdMode = "process"
    """``process``: runs in the workspace; ``flag``: runs in the task directory and learns
    the workspace from ``{{workspace}}`` in its args."""
    native_read_only: StrictBool = False
    """The CLI itself enforces read-only tasks (with ``read_only_args``)."""
    read_only_args: ArgsTemplate | None = None
    """Template appended to the arguments of read-only tasks."""
    network_args: ArgsTemplate | None = None
    """Template appended when the task has the network (the reference implementation's
    meaning): without it the CLI is confined, so declaring it makes the network
    controllable."""
    offline_args: ArgsTemplate | None = None
    """Template appended when the network must be cut (for a CLI that is open by default)."""
    session_from: StrictStr | None = None
    """Where the agent's output names its session: a JSON pointer (``/session_id``) looked up
    in each stdout line that is a JSON object; the last id found is resumed next turn."""
    resume_args: ArgsTemplate | None = None
    """The args template of a follow-up turn that resumes the session (``{{session}}``, with
    ``{{prompt}}`` the next message), used instead of ``args``; needs ``session_from``."""
    env: dict[EnvName, StrictStr] = Field(default_factory=dict)

    @field_validator("args")
    @classmethod
    def _check_args(cls, args: Template) -> Template:
        try:
            check_template(args, require_prompt=True)
        except TemplateError as exc:
            raise problem("template", str(exc)) from None
        return args

    @field_validator("read_only_args", "network_args", "offline_args")
    @classmethod
    def _check_extra_args(cls, template: Template | None) -> Template | None:
        if template is not None:
            try:
                check_template(template, require_prompt=False)
            except TemplateError as exc:
                raise problem("template", str(exc)) from None
        return template

    @field_validator("session_from")
    @classmethod
    def _check_pointer(cls, pointer: str | None) -> str | None:
        if pointer is not None and not pointer.startswith("/"):
            raise problem(
                "pointer",
                f"{pointer!r} is not a JSON pointer: write the path to the id in the agent's "
                'JSON output, starting with "/" (e.g. "/session_id")',
            )
        return pointer

    @field_validator("resume_args")
    @classmethod
    def _check_resume_args(cls, template: Template | None, info: ValidationInfo) -> Template | None:
        if template is None:
            return None
        try:
            check_template(template, require_prompt=True)
        except TemplateError as exc:
            raise problem("template", str(exc)) from None
        if not uses_token(template, "session"):
            raise problem("template", "must contain {{session}}: the session it resumes")
        if info.data.get("session_from") is None:
            raise problem(
                "template",
                "resume_args needs session_from: where caesar finds the session id to resume",
            )
        return template

    @field_validator("cwd_mode")
    @classmethod
    def _workspace_by_flag(cls, mode: CwdMode, info: ValidationInfo) -> CwdMode:
        args = info.data.get("args")
        if mode == "flag" and args is not None and not uses_token(args, "workspace"):
            raise problem(
                "template",
                'cwd_mode = "flag" runs the agent outside the workspace, so args must pass '
                "{{workspace}}",
            )
        return mode

    def render_args(self, values: Mapping[str, str | None]) -> list[str]:
        """``args`` rendered for one task (see :func:`render_template` for missing values)."""
        if values.get("prompt") is None:
            raise ValueError("render_args needs the prompt: it is the task itself")
        return render_template(self.args, values)

    def render_template(self, template: Template, values: Mapping[str, str | None]) -> list[str]:
        """Any of this agent's templates (``read_only_args``, ``network_args``...) rendered."""
        return render_template(template, values)


class BridgeRule(BaseModel):
    """``[[bridge.rule]]``: what to do with an agent's tool call that matches."""

    model_config = _STRICT

    tool: NonEmpty
    """Glob on the tool name (``Bash``, ``mcp__*``)."""
    match: NonEmpty | None = None
    """Glob on the call's input as text (a shell command, a path); absent matches any."""
    decision: Decision
    reason: StrictStr = ""

    def matches(self, tool: str, subject: str | None = None) -> bool:
        """Case-sensitive glob match; a rule with ``match`` needs a subject to apply."""
        if not fnmatch.fnmatchcase(tool, self.tool):
            return False
        if self.match is None:
            return True
        return subject is not None and fnmatch.fnmatchcase(subject, self.match)


class Bridge(BaseModel):
    """``[bridge]``: approvals of agents' tool calls."""

    model_config = _STRICT

    approval_timeout: Duration = Duration(BRIDGE_APPROVAL_TIMEOUT_MS)
    on_approval_timeout: Literal["allow", "deny"] = BRIDGE_ON_APPROVAL_TIMEOUT
    rules: list[BridgeRule] = Field(default_factory=list, alias="rule")

    def first_match(self, tool: str, subject: str | None = None) -> BridgeRule | None:
        """The first rule that matches the call, in file order, or None."""
        return next((rule for rule in self.rules if rule.matches(tool, subject)), None)


class Watch(BaseModel):
    """``[watch]``: the ``caesar watch`` screen."""

    model_config = _STRICT

    notify: StrictBool = True
    """Desktop notifications (and the bell) for a question, a held tool call, a task's end."""
    keys: dict[WatchAction, KeyList] = Field(default_factory=dict)
    """``[watch.keys]``: keys by action id, replacing that action's default keys."""


class Executor(BaseModel):
    """``[executor]``: where ``caesar run`` runs its tasks when ``--on`` does not say."""

    model_config = _STRICT

    address: NonEmpty | None = None
    """A Dask scheduler (``tcp://HOST:PORT``): tasks run on its workers; unset: here."""


def _check_entry(value: object) -> object:
    """A check is a command string, or a table with ``command`` (and ``timeout``)."""
    if isinstance(value, str):
        return {"command": value}
    if isinstance(value, dict):
        return value
    raise problem(
        "check_entry",
        f'expected a command (a string) or a table {{ command = "...", timeout = "5m" }}, '
        f"got {type(value).__name__} {value!r:.40}",
    )


class Check(BaseModel):
    """One entry of ``[review] checks``: a shell command caesar runs in a task's worktree."""

    model_config = _STRICT

    command: NonEmpty
    """Run with ``/bin/sh -c`` at the project's root in the task's worktree."""
    timeout: Duration = TEN_MINUTES
    """After it, the check and every process it started are stopped: recorded timed out."""


class Review(BaseModel):
    """``[review]``: how caesar judges a task's work itself, not on the agent's word."""

    model_config = _STRICT

    checks: list[Annotated[Check, BeforeValidator(_check_entry)]] = Field(default_factory=list)
    """Run when the agent has finished, before the task is concluded, and by ``caesar check``."""


def builtin_roles() -> list[Role]:
    return [Role.model_validate(role) for role in BUILTIN_ROLES]


class Config(BaseModel):
    """The effective configuration (or one layer of it, when validated on its own)."""

    model_config = _STRICT

    policy: Policy = Field(default_factory=Policy)
    worktree: Worktree = Field(default_factory=Worktree)
    models: dict[Identifier, NonEmpty] = Field(default_factory=dict)
    """Model by agent id, for agents whose args use ``{{model}}``."""
    roles: list[Role] = Field(default_factory=builtin_roles, alias="role")
    agents: list[AgentConfig] = Field(default_factory=list, alias="agent")
    bridge: Bridge = Field(default_factory=Bridge)
    watch: Watch = Field(default_factory=Watch)
    review: Review = Field(default_factory=Review)
    executor: Executor = Field(default_factory=Executor)

    @model_validator(mode="after")
    def _unique_entries(self) -> Config:
        """Safety net for configs built in code; files get located errors from the loader."""
        for kind, names in (
            ("role", [role.name for role in self.roles]),
            ("agent", [agent.id for agent in self.agents]),
        ):
            if len(set(names)) != len(names):
                duplicate = next(name for name in names if names.count(name) > 1)
                raise problem("duplicate_entry", f"two [[{kind}]] entries are named {duplicate!r}")
        return self

    def role(self, name: str) -> Role | None:
        return next((role for role in self.roles if role.name == name), None)

    def agent(self, agent_id: str) -> AgentConfig | None:
        return next((agent for agent in self.agents if agent.id == agent_id), None)

    def model_for(self, agent_id: str, role: Role | None = None) -> str | None:
        """The configured model: the role's own, else ``[models]`` for the agent, else None."""
        return (role.model if role is not None else None) or self.models.get(agent_id)
