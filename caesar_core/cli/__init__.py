"""The ``caesar`` command line. Subcommands import their machinery lazily, so the hook path
(``caesar bridge``, ``caesar hook``) starts without loading git, MCP or the TUI."""
