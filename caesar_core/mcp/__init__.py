"""caesar's MCP servers: ``channel`` (one task's return channel), ``orchestrator`` with
``session`` (the ``caesar_*`` tools), and ``install`` (registering them with clients).

Nothing is imported here: importing this package loads no MCP SDK, so ``caesar protocol``
and the hook path stay free of it; each command imports the module it runs.
"""
