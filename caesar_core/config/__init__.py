"""caesar's configuration: three TOML layers (global, project, local), merged and validated.

``load_config(root)`` is the entry point; ``LoadedConfig.source_of`` says which file set a
value, so every refusal elsewhere can point at the line to change.
"""

from __future__ import annotations

from caesar_core.config.defaults import (
    BUILTIN_ROLES,
    DEFAULT_PROJECT_CONFIG,
    DEFAULT_ROLE_PROMPTS,
    FALLBACK_AGENTS,
    GITIGNORE_LINES,
    WATCH_KEYS,
)
from caesar_core.config.durations import Duration, DurationError, format_duration, parse_duration
from caesar_core.config.errors import ConfigError, ConfigProblem
from caesar_core.config.layers import (
    DEFAULT_SOURCE,
    LAYERS,
    Layer,
    LoadedConfig,
    layer_path,
    load_config,
    xdg_config_home,
)
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
from caesar_core.config.templates import TOKENS, TemplateError, render_template, split_template

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
