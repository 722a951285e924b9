"""``python -m caesar_core``: the CLI, for when the ``caesar`` script is not on PATH (the
MCP channel is started this way from inside an agent's environment). The same entry as the
script, so the hook path (``bridge``, ``hook``) stays fast here too."""

from caesar_core.cli.entry import main

main()
