"""Running a task end to end: decide, lay out, spawn, wait, retrieve, reconcile, conclude."""
