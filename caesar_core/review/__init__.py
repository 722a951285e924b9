"""Reviewing a task's work: hunks, selections, checks."""
