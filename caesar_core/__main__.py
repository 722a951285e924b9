"""``python -m caesar_core``: the CLI, for when the ``caesar`` script is not on PATH (the
MCP channel is started this way from inside an agent's environment)."""

from caesar_core.cli.main import main

main()
