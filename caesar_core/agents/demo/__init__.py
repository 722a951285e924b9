"""The built-in demo agent: a conformant OACP agent that needs no model and no API key.

Run as ``python -m caesar_core.agents.demo`` with the ``CAESAR_*`` variables set, it behaves
like an outside agent: it reads ``$CAESAR_TASK_FILE``, narrates its work as ``caesar.event/v1``
lines through the shared event writer (never ``started`` nor ``finished``, which are the
orchestrator's), really touches its workspace, and writes ``$CAESAR_REPORT_PATH`` atomically as
its last action. ``make demo`` and the test suite drive it; it doubles as proof that a program
with no SDK can play the sub-agent, and as a cast of well-behaved and misbehaving agents for
testing the orchestrator.

The task's ``context`` is a JSON object: ``{"script": NAME, "delay": SECONDS, ...}``. The
script defaults to ``work``, the pace between steps to 0; ``CAESAR_DEMO_DELAY`` overrides the
pace. The scripts (see :mod:`caesar_core.agents.demo.scripts`):

``quick``     a thinking, one tool call, a message; report ``success``.
``work``      edits and commits a tracked file, leaves another uncommitted; a full report.
``ask``       asks a question through the mailbox and waits for the answer until the deadline;
              ``success`` with the answer, else ``blocked`` with the question.
``delegate``  runs ``caesar run … --agent demo --json`` for a child task; ``success`` naming it,
              ``failed`` with the child command's stderr when it fails.
``fail``      an error event (fatal) and a ``failed`` report; exit code 1.
``hang``      one event, then sleeps until killed (``ignore_sigterm``: survives SIGTERM, and so
              does the grandchild it spawns).
``lie``       declares a change it did not make and hides the file it did create.
``silent``    works but writes no report; only a final message on stdout (``say_report``:
              with a fenced ``caesar:report`` block, for the degraded tier).
"""

from __future__ import annotations

from caesar_core.agents.demo.main import main
from caesar_core.agents.demo.run import Options, Outcome, Run, options_of
from caesar_core.agents.demo.scripts import SCRIPTS

__all__ = ["SCRIPTS", "Options", "Outcome", "Run", "main", "options_of"]
