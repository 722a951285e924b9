"""caesar's configuration: three TOML layers (global, project, local), merged and validated.

``load_config(root)`` is the entry point; ``LoadedConfig.source_of`` says which file set a
value, so every refusal elsewhere can point at the line to change.

Each name loads with its module on first use (:mod:`caesar_core.lazy`): the hook's begin reads
``config.paths`` and ``config.defaults`` without loading pydantic, which ``config.model`` needs.
"""

from __future__ import annotations

from caesar_core.lazy import exports

TYPE_CHECKING = False

if TYPE_CHECKING:
    from caesar_core.config.defaults import (
        BUILTIN_ROLES,
        DEFAULT_PROJECT_CONFIG,
        DEFAULT_ROLE_PROMPTS,
        FALLBACK_AGENTS,
        GITIGNORE_LINES,
        WATCH_KEYS,
    )
    from caesar_core.config.durations import (
        Duration,
        DurationError,
        format_duration,
        parse_duration,
    )
    from caesar_core.config.errors import ConfigError, ConfigProblem
    from caesar_core.config.layers import DEFAULT_SOURCE, LoadedConfig, load_config
    from caesar_core.config.model import (
        AgentConfig,
        Bridge,
        BridgeRule,
        Check,
        Config,
        CwdMode,
        Decision,
        IsolationChoice,
        NetworkChoice,
        Policy,
        Review,
        Role,
        Watch,
        Worktree,
    )
    from caesar_core.config.paths import LAYERS, Layer, layer_path, xdg_config_home
    from caesar_core.config.templates import TOKENS, TemplateError, render_template, split_template

_HOMES = {
    "caesar_core.config.defaults": (
        "BUILTIN_ROLES",
        "DEFAULT_PROJECT_CONFIG",
        "DEFAULT_ROLE_PROMPTS",
        "FALLBACK_AGENTS",
        "GITIGNORE_LINES",
        "WATCH_KEYS",
    ),
    "caesar_core.config.durations": (
        "Duration",
        "DurationError",
        "format_duration",
        "parse_duration",
    ),
    "caesar_core.config.errors": (
        "ConfigError",
        "ConfigProblem",
    ),
    "caesar_core.config.layers": ("DEFAULT_SOURCE", "LoadedConfig", "load_config"),
    "caesar_core.config.paths": ("LAYERS", "Layer", "layer_path", "xdg_config_home"),
    "caesar_core.config.model": (
        "AgentConfig",
        "Bridge",
        "BridgeRule",
        "Check",
        "Config",
        "CwdMode",
        "Decision",
        "IsolationChoice",
        "NetworkChoice",
        "Policy",
        "Review",
        "Role",
        "Watch",
        "Worktree",
    ),
    "caesar_core.config.templates": (
        "TOKENS",
        "TemplateError",
        "render_template",
        "split_template",
    ),
}
__getattr__ = exports(__name__, _HOMES)

__all__ = [
    "BUILTIN_ROLES",
    "DEFAULT_PROJECT_CONFIG",
    "DEFAULT_ROLE_PROMPTS",
    "DEFAULT_SOURCE",
    "FALLBACK_AGENTS",
    "GITIGNORE_LINES",
    "LAYERS",
    "TOKENS",
    "WATCH_KEYS",
    "AgentConfig",
    "Bridge",
    "BridgeRule",
    "Check",
    "Config",
    "ConfigError",
    "ConfigProblem",
    "CwdMode",
    "Decision",
    "Duration",
    "DurationError",
    "IsolationChoice",
    "Layer",
    "LoadedConfig",
    "NetworkChoice",
    "Policy",
    "Review",
    "Role",
    "TemplateError",
    "Watch",
    "Worktree",
    "format_duration",
    "layer_path",
    "load_config",
    "parse_duration",
    "render_template",
    "split_template",
    "xdg_config_home",
]
