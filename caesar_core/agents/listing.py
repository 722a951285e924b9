"""The agents and roles as a person or a main agent sees them: one shape for CLI and MCP.

``caesar agents list``, ``caesar doctor``, ``caesar_list_agents`` and ``caesar_list_roles``
all answer from here, so they can never disagree about what is installed, allowed or picked.
"""

from __future__ import annotations

from typing import Any

from caesar_core.agents.base import Adapter
from caesar_core.agents.registry import (
    BUILTIN_IDS,
    catalogue,
    outdated,
    probe_version,
    resolve_binary,
)
from caesar_core.config import LoadedConfig, Role


def agent_rows(loaded: LoadedConfig) -> list[dict[str, Any]]:
    """Every known agent with its install state, version, policy and capabilities.

    Versions are probed in parallel: each CLI may take a second to print one (a Node start),
    and the listing should cost one probe, not four.
    """
    from concurrent.futures import ThreadPoolExecutor  # not for `caesar run`, which picks one

    agents = catalogue(loaded.config)
    binaries = {agent_id: resolve_binary(adapter.bin) for agent_id, adapter in agents.items()}
    with ThreadPoolExecutor(max_workers=max(1, len(agents))) as pool:
        futures = {
            agent_id: pool.submit(probe_version, adapter) if binaries[agent_id] else None
            for agent_id, adapter in agents.items()
        }
        versions = {k: f.result() if f else None for k, f in futures.items()}
    builtin_ids = set(BUILTIN_IDS)
    declared = {entry.id for entry in loaded.config.agents}
    rows = []
    for agent_id, adapter in agents.items():
        binary, version = binaries[agent_id], versions[agent_id]
        allowed, why = loaded.config.policy.permits(agent_id)
        builtin = agent_id in builtin_ids and agent_id not in declared
        rows.append(
            {
                "id": agent_id,
                "display_name": adapter.display_name,
                "bin": adapter.bin,
                "path": str(binary) if binary else None,
                "installed": binary is not None,
                "version": version,
                "min_version": adapter.min_version,
                "outdated": outdated(adapter, version),
                "allowed": allowed,
                "policy": {"allowed": allowed, "reason": why},
                "source": "built-in" if builtin else loaded.source_of(f"agent.{agent_id}"),
                "capabilities": capabilities(adapter),
                "model": loaded.config.models.get(agent_id),
            }
        )
        if agent_id in loaded.config.models:  # the reference implementation's name for it
            rows[-1]["default_model"] = loaded.config.models[agent_id]
    return rows


def capabilities(adapter: Adapter) -> dict[str, Any]:
    caps = adapter.capabilities
    return {
        "json_events": caps.json_events,
        "output_schema": caps.output_schema,
        "final_message_file": caps.final_message_file,
        "native_read_only": caps.native_read_only,
        "network": caps.network.value,
        "mcp": caps.mcp.value,
        "model": caps.model,
        "resume": caps.resume,
    }


def pick_for_role(role: Role, loaded: LoadedConfig) -> tuple[Adapter | None, list[str]]:
    """The agent a role would run now (the first installed and allowed), and why the
    others before it were passed over."""
    agents = catalogue(loaded.config)
    skipped: list[str] = []
    for candidate in role.agents:
        adapter = agents.get(candidate)
        if adapter is None:
            skipped.append(f"{candidate}: unknown")
        elif not loaded.config.policy.permits(candidate)[0]:
            skipped.append(f"{candidate}: denied by the policy")
        elif resolve_binary(adapter.bin) is None:
            skipped.append(f"{candidate}: not installed")
        else:
            return adapter, skipped
    return None, skipped


def role_rows(loaded: LoadedConfig) -> list[dict[str, Any]]:
    rows = []
    for role in loaded.config.roles:
        picked, skipped = pick_for_role(role, loaded)
        rows.append(
            {
                "name": role.name,
                "purpose": role.purpose,
                "mode": role.mode.value,
                "isolation": role.isolation,
                "network": role.network,
                "timeout_ms": role.timeout_ms,
                "model": role.model,
                "agents": list(role.agents),
                "would_pick": picked.id if picked else None,
                "reason": None if picked else "no usable agent: " + ("; ".join(skipped) or "-"),
                "skipped": skipped,
            }
        )
    return rows
