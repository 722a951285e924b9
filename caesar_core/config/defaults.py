"""What caesar starts from: the built-in roles, the config file ``caesar init`` writes, the
role prompts, and the lines ``.gitignore`` needs.

The built-in roles are plain data (not models) so this module imports nothing from the rest
of the package: the models take their defaults from here, and the config text below is
checked against those models by the tests (it must load to exactly the defaults, commented
or uncommented), so the documentation cannot drift from the code.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Final, TypedDict

FALLBACK_AGENTS: Final = ("codex", "claude", "opencode", "gemini", "copilot", "qwen", "demo")
"""Default agent order of the built-in roles: the first one installed and allowed runs."""


class BuiltinRole(TypedDict):
    """A built-in role as the TOML a person would write for it."""

    name: str
    purpose: str
    agents: list[str]
    mode: str
    isolation: str
    network: str
    timeout: str
    system_prompt_file: str


BUILTIN_ROLES: Final[tuple[BuiltinRole, ...]] = (
    {
        "name": "reviewer",
        "purpose": "Reviews code or a change and reports findings; never edits.",
        "agents": list(FALLBACK_AGENTS),
        "mode": "read-only",
        "isolation": "auto",
        "network": "auto",
        "timeout": "10m",
        "system_prompt_file": "roles/reviewer.md",
    },
    {
        "name": "implementer",
        "purpose": "Makes a change in a git worktree of its own; you review and apply the diff.",
        "agents": list(FALLBACK_AGENTS),
        "mode": "write",
        "isolation": "worktree",
        "network": "auto",
        "timeout": "30m",
        "system_prompt_file": "roles/implementer.md",
    },
    {
        "name": "investigator",
        "purpose": "Answers a question about the code base by reading it; never edits.",
        "agents": list(FALLBACK_AGENTS),
        "mode": "read-only",
        "isolation": "auto",
        "network": "auto",
        "timeout": "15m",
        "system_prompt_file": "roles/investigator.md",
    },
)
"""Roles every project has without configuring anything; ``[[role]]`` with a name replaces."""

BRIDGE_APPROVAL_TIMEOUT_MS: Final = 120_000
"""``[bridge] approval_timeout``'s default: how long a held tool call waits for a person."""
BRIDGE_ON_APPROVAL_TIMEOUT: Final = "deny"
"""``[bridge] on_approval_timeout``'s default: what a held call gets when nobody answered."""

WATCH_KEYS: Final[Mapping[str, str]] = {
    "quit": "q",
    "help": "?",
    "down": "j,down",
    "up": "k,up",
    "detail": "enter",
    "activity": "1",
    "questions": "2",
    "diff": "3",
    "report": "4",
    "log": "5",
    "next": "n",
    "answer": "a",
    "apply": "A",
    "cancel": "x",
    "discard": "d",
    "filter": "/",
    "allow": "y",
    "deny": "n",
    "toggle_file": "space",
    "toggle_all": "a",
    "copy": "c",
    "next_hunk": "],J",
    "prev_hunk": "[,K",
    "next_file": "}",
    "prev_file": "{",
    "toggle_hunk": "space",
    "select_lines": "v",
    "side_by_side": "s",
    "reject": "R",
    "comment": "c",
    "comments": "C",
    "resolve_comment": "x",
    "request_changes": "r",
}
"""The actions of ``caesar watch`` that ``[watch.keys]`` may rebind, with their default keys.

The app's bindings take their keys from here (``caesar_tui.keys``), so the documented
defaults below are the keys the app binds."""

GITIGNORE_LINES: Final = [
    ".caesar/config.local.toml",
    ".caesar/tasks/",
    ".caesar/wt/",
    ".caesar/state/",
]
"""What ``caesar init`` adds to ``.gitignore``: personal settings, task files, worktrees."""

DEFAULT_ROLE_PROMPTS: Final[Mapping[str, str]] = {
    "reviewer": """\
# Reviewer

You review code; you do not change it.

- Read the change or the files named in the objective, and the code around them.
- Report concrete findings: a file and line, what is wrong, why it matters, how to fix it.
- Rank findings by severity; say plainly when you found nothing worth reporting.
- Do not edit, create or delete files, and do not run commands that modify the workspace.
""",
    "implementer": """\
# Implementer

You make the change the objective asks for, in a workspace of your own.

- Read the surrounding code first and follow its conventions.
- Keep the change as small as the objective allows; no unrelated refactoring.
- Add or update tests for what you change, and run them.
- In your report, list the files you changed, the commands you ran and their outcome, and
  anything you could not finish.
""",
    "investigator": """\
# Investigator

You answer a question about the code base by reading it; you do not change it.

- Find the code that decides the answer and cite it by file and line.
- Separate what you verified from what you infer.
- Say what you could not determine and where one would look next.
- Do not edit, create or delete files.
""",
}
"""System prompts of the built-in roles, written to ``.caesar/roles/<name>.md`` by init."""


def _role_block(role: BuiltinRole, *, first: bool) -> str:
    """One built-in role as commented TOML, in the order a person reads a role.

    JSON string syntax is a subset of TOML's basic strings, so ``json.dumps`` quotes safely.
    The first block also shows ``model``, which no built-in role sets.
    """
    lines = ["# [[role]]"]
    for key, value in role.items():
        lines.append(f"# {key} = {json.dumps(value, ensure_ascii=False)}")
    if first:
        lines.append('## model = "sonnet"  # default none: [models] decides per agent')
    return "\n".join([*lines, ""])


_HEADER = """\
## caesar configuration.
##
## Three layers are read, the later one winning key by key:
##   global   $XDG_CONFIG_HOME/caesar/config.toml (default ~/.config/caesar/config.toml)
##   project  .caesar/config.toml        (this file, meant to be committed)
##   local    .caesar/config.local.toml  (yours alone, git-ignored)
## Tables merge key by key. A list set in a later layer replaces the earlier list whole.
## [[agent]] entries merge by id and [[role]] entries by name: an entry with a known id
## replaces that entry entirely, a new one is added after the others.
##
## Every setting below is commented out and shows its default: uncomment one to change it.
## Durations read "500ms", "90s", "10m", "1h", "1h30m", or an integer number of milliseconds.
## Unknown keys are errors, so a typo never passes silently.
## The sections only caesar reads ([bridge], [watch], [review], [executor]) are commented
## out, header included, so the reference implementation (Koumalabs/caesar), which refuses a
## section it does not know, reads this file too: uncomment a section's header with its
## settings.

[policy]
## Agents that may run; empty means every agent that is not denied.
# allowed = []
## Agents that may never run; denied wins over allowed.
# denied = []
## Tasks running at the same time in this project, whoever started them.
# max_parallel = 4
## How deep delegation may nest: a task's depth (yours is 0) must be below it, so 2 lets you
## delegate, 3 lets that agent delegate too, 1 or 0 refuses every delegation (the
## reference's meaning; its default is 2).
# max_depth = 3
## Mode of a task that does not ask for one: "read-only" or "write".
# default_mode = "write"
## Where a task works: "inplace" (your tree), "worktree" (a git worktree of its own), or
## "auto" (a worktree whenever the agent could otherwise touch your tree and git allows one).
# default_isolation = "auto"
## Network access: "on", "off" (cut, when the agent offers a way), or "auto" (left as the
## agent has it).
# default_network = "auto"
## How long a task may run before it is stopped.
# default_timeout = "10m"
## Whether a write task may edit your working tree directly ("inplace").
# allow_inplace_write = false
## false refuses the agent "claude" (delegating to Claude Code from Claude Code is
## recursion), as the reference implementation reads this key; its own default is false.
# allow_recursion = true

[worktree]
## Untracked files a fresh worktree needs, relative to the repository root, copied or
## symlinked in (e.g. copy = [".env"], link = ["node_modules"]); never under .git or .caesar.
# copy = []
# link = []
## Shell commands run in a fresh worktree before the agent starts (e.g. ["npm ci"]).
# setup = []

[models]
## The model to ask for, by agent id, for agents whose args use {{model}}; a role's own
## `model` wins. None by default, e.g.:
## codex = "gpt-5-codex"
## claude = "sonnet"

# [bridge]
## How long an agent's tool call waits for your approval, and what happens when nobody
## answers in time: "allow" or "deny".
# approval_timeout = "120s"
# on_approval_timeout = "deny"
## Rules for agents' tool calls, first match wins; none by default. `tool` is a glob on the
## tool name, `match` (optional) a glob on the call's input (a shell command, a path);
## decision is "allow", "deny", "block", "require_approval", "halt" or "quarantine".
## [[bridge.rule]]
## tool = "Bash"
## match = "git push*"
## decision = "require_approval"
## reason = "pushing is yours to decide"

# [watch]
## `caesar watch` tells you when a task asks a question, holds a tool call for your approval
## or ends, unless that task is the one on screen: a desktop notification (OSC 9 or OSC 777;
## inside tmux it needs `set -g allow-passthrough on`) and the terminal bell.
## `caesar watch --no-notify` turns them off for one session.
# notify = true
## Keys by action id, replacing that action's default keys: a value may list alternatives
## ("k,up") and names keys as Textual does ("ctrl+a", "space", "enter"). The footer and the
## help screen (?) show the keys in force. The actions, with their default keys:
## [watch.keys]
{watch_keys}

# [review]
## The project's checks, which caesar runs itself (never taking the agent's word for them):
## in the task's worktree at the project's root (in the project itself for an in-place
## task, read-only ones included: what the checks write, caches, lands there) when the
## agent has finished, before the task is concluded, and on demand with `caesar check ID`.
## Each is a shell command (`/bin/sh -c`), or a table with its own timeout (default "10m"):
## a check still running then is stopped with every process it started, and fails. A failed
## check fails the task; the results go into the report (`commands_run`, "by": "caesar").
## None by default, e.g.:
## checks = ["pytest -q", { command = "ruff check .", timeout = "2m" }]

# [executor]
## Where `caesar run` runs tasks: unset, on this machine; a Dask scheduler's address
## ("tcp://HOST:PORT"), on that cluster's workers (`dask worker ADDRESS --resources
## agent_slots=N` with caesar installed). `caesar run --on ADDRESS` or `--on local` decides
## for one run; see README "More than one machine".
## address = "tcp://scheduler:8786"

## Agents: `caesar agents list` shows the built-in ones. Any other CLI (or script) becomes
## an agent with [[agent]]; an entry whose id is a built-in's replaces the built-in.
## `args` is one string split like a shell command line, or an array of strings, one
## argument each (["exec", "{{prompt}}"], the form the reference implementation writes); its
## tokens are {{prompt}} (required), {{workspace}}, {{taskDir}}, {{reportPath}} and
## {{model}}. An argument whose token has no value (no model configured) is dropped; in a
## string, together with an option flag right before it ("--model {{model}}" disappears
## whole), in an array the item alone. The other *_args keys take either form too.
## Every key, with its default where it has one:
## [[agent]]
## id = "jqagent"              # required: lowercase letters, digits, "-" and "_"
## bin = "/path/agent.sh"      # required: a command on PATH, or a path
## args = "{{prompt}}"
## display_name = "jq agent"   # default: the id
## cwd_mode = "process"        # "process": runs in the workspace; "flag": runs in the task
##                             # directory and is told the workspace by {{workspace}}
## native_read_only = false    # true when the CLI itself enforces read-only tasks
## read_only_args = "--read-only"  # appended for read-only tasks; default none
## network_args = "--allow-net"    # appended when the task has the network (the CLI is
##                                 # confined without it); default none
## offline_args = "--offline"      # appended when the network must be cut; default none
## session_from = "/session_id"    # JSON pointer to the session id in its JSON output lines
## resume_args = "--resume {{session}} {{prompt}}"  # args of a follow-up turn (caesar
##                                 # continue) resuming that session; default none: fresh
## env = { JQ_COLORS = "0" }       # extra environment; default none

## Roles: a job with its agents in fallback order (the first installed and allowed one runs).
## The built-in roles are shown below as they are; a [[role]] with one of their names
## replaces it, a new name adds a role. system_prompt_file is relative to .caesar/.

"""

_WATCH_KEYS_BLOCK = "\n".join(
    f"## {action} = {json.dumps(keys)}" for action, keys in WATCH_KEYS.items()
)

DEFAULT_PROJECT_CONFIG: Final = _HEADER.replace("{watch_keys}", _WATCH_KEYS_BLOCK) + "\n".join(
    _role_block(role, first=number == 0) for number, role in enumerate(BUILTIN_ROLES)
)
"""The ``.caesar/config.toml`` that ``caesar init`` writes: every key documented, with its
default, commented out so the file pins nothing and the global layer stays in effect."""
