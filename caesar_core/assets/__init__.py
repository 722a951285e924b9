"""What ``caesar init`` gives a main agent: a skill and slash commands, as package data.

``files/skill/SKILL.md`` teaches delegating through caesar's MCP tools; ``files/commands/``
holds ``/caesar-delegate``, ``/caesar-review`` and ``/caesar-tasks`` in one neutral form
(Markdown, a ``description`` and an ``argument-hint``, ``$ARGUMENTS`` for what follows the
command), rendered by :mod:`caesar_core.assets.install` into each client's own format.
"""
