"""What every node that runs workers shares: an unexpected error is said, not swallowed.

The app's workers run with ``exit_on_error=False`` (one failed read must not end the app), so
an error nobody expected, an ``OSError`` while applying, say, would only change the
worker's state. ``Worker.StateChanged`` does not bubble, so each node that starts workers
mixes this in and the person sees a notification naming the work and the error.
"""

from __future__ import annotations

from textual.worker import Worker, WorkerState


class WorkerFailures:
    """Mixin for a widget, screen or app: its failed workers become error notifications."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state is not WorkerState.ERROR or worker.error is None:
            return
        what = worker.name.strip("_").replace("_", " ") or "work"
        error = worker.error
        text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        worker.node.app.notify(text, title=f"{what} failed", severity="error", markup=False)
