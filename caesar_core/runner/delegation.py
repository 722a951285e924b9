"""From what the caller asked to what will run: every decision before anything touches disk.

Each decision follows one precedence (explicit request, then role, then policy) and each
refusal names where the deciding value came from, so the remedy points at the right flag or
file. Nothing here writes: a refused delegation leaves no trace.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from caesar_core.agents.base import Adapter, NetworkControl
from caesar_core.agents.listing import pick_for_role
from caesar_core.agents.registry import catalogue, resolve_binary
from caesar_core.config import LoadedConfig, Role
from caesar_core.errors import CaesarError, ExitCode
from caesar_core.git import find_repository, head_commit
from caesar_core.protocol.report import Finding, Severity
from caesar_core.protocol.task import Isolation, Mode
from caesar_core.protocol.taskdir import ENV_DEPTH, ENV_TASK_ID
from caesar_core.store.ids import is_task_id, shown_id

IsolationChoice = Literal["inplace", "worktree", "auto"]
NetworkChoice = Literal["auto", "on", "off"]


class DelegationError(CaesarError):
    """The request cannot run as asked; nothing was created."""

    exit_code = ExitCode.USAGE


@dataclass(frozen=True)
class Request:
    """What a caller (``caesar run``, ``caesar_delegate``) asks for."""

    objective: str
    agent: str | None = None
    role: str | None = None
    mode: Mode | None = None
    isolation: IsolationChoice | None = None
    network: NetworkChoice | None = None
    timeout_ms: int | None = None
    model: str | None = None
    context: str = ""
    constraints: Sequence[str] = ()
    acceptance_criteria: Sequence[str] = ()
    channel: bool = False
    extra_args: Sequence[str] = ()
    task_id: str | None = None


@dataclass(frozen=True)
class Plan:
    """A delegation decided: what runs, where, how long, with which guarantees."""

    request: Request
    adapter: Adapter
    role: Role | None
    mode: Mode
    isolation: Isolation
    network: bool
    """The task's ``network`` field: false only when caesar knows it is cut."""
    network_off: bool
    """Whether the adapter must be told to cut the network."""
    model: str | None
    timeout_ms: int
    depth: int
    parent_id: str | None
    workspace: Path
    """Where the task was asked from: the user's tree, never a worktree."""
    repo_root: Path | None
    system_prompt: str
    findings: list[Finding] = field(default_factory=list)


def decide(
    request: Request,
    loaded: LoadedConfig,
    *,
    workspace: Path,
    root: Path,
    env: Mapping[str, str] | None = None,
) -> Plan:
    """Resolve a request against the configuration, or refuse with a reason and a remedy."""
    env = os.environ if env is None else env
    config = loaded.config
    if not request.objective.strip():
        raise DelegationError("the objective is empty", "say what the agent should do")
    role = _role(request, loaded)
    adapter = _agent(request, role, loaded)
    findings: list[Finding] = []

    allowed, why = config.policy.permits(adapter.id)
    if not allowed:
        raise DelegationError(
            f"agent {adapter.id} is not allowed by the policy: {why}",
            _policy_remedy(config.policy.deciding_key(adapter.id), loaded),
        )
    if resolve_binary(adapter.bin) is None:
        raise DelegationError(
            f"agent {adapter.id}: its executable {adapter.bin!r} is not installed or not on PATH",
            "install it, or point `bin` of its [[agent]] entry at the executable",
        )

    depth = _inherited_depth(env) + 1
    if depth >= config.policy.max_depth:
        raise DelegationError(
            f"delegation depth {depth} reaches policy.max_depth = {config.policy.max_depth} "
            "(a task's depth must be below it)",
            f"do the work yourself, or raise max_depth ({loaded.source_of('policy.max_depth')})",
        )
    parent = env.get(ENV_TASK_ID)
    parent_id = parent if parent and is_task_id(parent) else None

    mode = request.mode or (role.mode if role else None) or Mode(config.policy.default_mode)
    repo_root = find_repository(workspace)
    has_commit = repo_root is not None and head_commit(repo_root) is not None
    isolation = _isolation(request, role, loaded, adapter, mode, repo_root, has_commit, findings)
    network, network_off = _network(request, role, loaded, adapter, mode, findings)
    model = _model(request, role, loaded, adapter, findings)
    timeout_ms = request.timeout_ms or (role.timeout_ms if role else config.policy.timeout_ms)
    system_prompt = _system_prompt(role, root)
    return Plan(
        request=request,
        adapter=adapter,
        role=role,
        mode=mode,
        isolation=isolation,
        network=network,
        network_off=network_off,
        model=model,
        timeout_ms=timeout_ms,
        depth=depth,
        parent_id=parent_id,
        workspace=workspace,
        repo_root=repo_root,
        system_prompt=system_prompt,
        findings=findings,
    )


def _role(request: Request, loaded: LoadedConfig) -> Role | None:
    if request.role is None:
        if request.agent is None:
            raise DelegationError(
                "no agent and no role: caesar cannot tell who should do this",
                "pass --agent ID or --role NAME (see `caesar agents list`)",
            )
        return None
    roles = {role.name: role for role in loaded.config.roles}
    if request.role not in roles:
        known = ", ".join(roles) or "none configured"
        raise DelegationError(
            f"unknown role {shown_id(request.role)} (known: {known})",
            "pick a known role, or declare it with [[role]] in .caesar/config.toml",
        )
    return roles[request.role]


def _agent(request: Request, role: Role | None, loaded: LoadedConfig) -> Adapter:
    agents = catalogue(loaded.config)
    if request.agent is not None:
        if request.agent not in agents:
            raise DelegationError(
                f"unknown agent {shown_id(request.agent)} (known: {', '.join(agents)})",
                "pick a known agent, or declare it with [[agent]] in .caesar/config.toml",
            )
        return agents[request.agent]
    assert role is not None
    picked, skipped = pick_for_role(role, loaded)
    if picked is not None:
        return picked
    raise DelegationError(
        f"role {role.name!r} has no usable agent ({'; '.join(skipped) or 'its list is empty'})",
        "install one of its agents, or pass --agent (see `caesar agents list`)",
    )


def _inherited_depth(env: Mapping[str, str]) -> int:
    try:
        return max(0, int(env.get(ENV_DEPTH, "0")))
    except ValueError:
        return 0


def _isolation(
    request: Request,
    role: Role | None,
    loaded: LoadedConfig,
    adapter: Adapter,
    mode: Mode,
    repo_root: Path | None,
    has_commit: bool,
    findings: list[Finding],
) -> Isolation:
    policy = loaded.config.policy
    if request.isolation is not None:
        choice, origin = request.isolation, f"--isolation {request.isolation}"
    elif role is not None and role.isolation != "auto":
        choice, origin = role.isolation, f"role {role.name!r}"
    else:
        choice = role.isolation if role is not None else policy.default_isolation
        origin = f"policy.default_isolation ({loaded.source_of('policy.default_isolation')})"

    if choice == "worktree":
        if repo_root is None:
            raise DelegationError(
                f"worktree isolation ({origin}) needs a git repository, and this is not one",
                "run `git init` and make a first commit, or use --isolation inplace",
            )
        if not has_commit:
            raise DelegationError(
                f"worktree isolation ({origin}) needs a commit to start from; "
                "the repository has none",
                "make a first commit (git add -A && git commit -m init), then run again",
            )
        return Isolation.WORKTREE

    if choice == "inplace":
        if mode is Mode.WRITE and has_commit and not policy.allow_inplace_write:
            raise DelegationError(
                f"a write task in place ({origin}) would let the agent edit your working tree "
                "directly; policy.allow_inplace_write is false "
                f"({loaded.source_of('policy.allow_inplace_write')})",
                "use --isolation worktree, or set allow_inplace_write = true under [policy] in "
                ".caesar/config.local.toml",
            )
        if mode is Mode.READ_ONLY and not adapter.capabilities.native_read_only and has_commit:
            findings.append(
                Finding(
                    severity=Severity.LOW,
                    title="Isolation changed to worktree",
                    detail=f"{adapter.id} cannot be held read-only in place ({origin}); it ran "
                    "in a worktree so your tree stays untouched.",
                )
            )
            return Isolation.WORKTREE
        return Isolation.INPLACE

    # auto
    if mode is Mode.WRITE:
        if has_commit:
            return Isolation.WORKTREE
        findings.append(
            Finding(
                severity=Severity.LOW,
                title="Degraded isolation",
                detail="The workspace is not a git repository with a commit: the agent works "
                "in place and its changes cannot be verified by git.",
            )
        )
        return Isolation.INPLACE
    if adapter.capabilities.native_read_only or not has_commit:
        return Isolation.INPLACE
    return Isolation.WORKTREE


def _network(
    request: Request,
    role: Role | None,
    loaded: LoadedConfig,
    adapter: Adapter,
    mode: Mode,
    findings: list[Finding],
) -> tuple[bool, bool]:
    """``(task.network, cut)``: the task says false only when caesar really cuts it."""
    choice = request.network or (role.network if role else loaded.config.policy.default_network)
    control = adapter.capabilities.network
    if control is NetworkControl.WRITE_ONLY and mode is Mode.READ_ONLY:
        if choice == "on":
            raise DelegationError(
                f"{adapter.id} has no network in read-only mode, and the network was asked for",
                "use --mode write --isolation worktree, or another agent",
            )
        if choice == "auto":
            findings.append(
                Finding(
                    severity=Severity.INFO,
                    title="No network",
                    detail=f"{adapter.id} runs read-only without network access.",
                )
            )
        return False, True
    if choice != "off":
        return True, False
    if control in (NetworkControl.TOGGLE, NetworkControl.WRITE_ONLY):
        return False, True
    findings.append(
        Finding(
            severity=Severity.LOW,
            title="Network not guaranteed off",
            detail=f"{adapter.id} offers no way to cut its network; it ran with access. Declare "
            "network_args in its [[agent]] entry to make --network off enforceable.",
        )
    )
    return True, False


def _model(
    request: Request,
    role: Role | None,
    loaded: LoadedConfig,
    adapter: Adapter,
    findings: list[Finding],
) -> str | None:
    if request.model is not None:
        if not adapter.capabilities.model:
            raise DelegationError(
                f"{adapter.id} cannot be told which model to use",
                "drop --model, or add {{model}} to its [[agent]] args",
            )
        return request.model
    configured = (role.model if role else None) or loaded.config.models.get(adapter.id)
    if configured and not adapter.capabilities.model:
        findings.append(
            Finding(
                severity=Severity.INFO,
                title="Model not applied",
                detail=f"{adapter.id} cannot be told which model to use; {configured!r} from "
                "the configuration was not applied.",
            )
        )
        return None
    return configured


def _system_prompt(role: Role | None, root: Path) -> str:
    return "" if role is None else role.read_system_prompt(root)


def _policy_remedy(key: str, loaded: LoadedConfig) -> str:
    """Where to change the rule that refused an agent: the key that decided, in its file."""
    if key == "policy.allow_recursion":
        return f"set [policy] allow_recursion = true ({loaded.source_of(key)})"
    return f"change [policy] allowed/denied ({loaded.source_of(key)})"
