"""Linux's inotify as ``caesar watch`` uses it: what changes is told at once, new directories
are followed with what they already hold, and nothing an agent builds deeper, or links to,
is watched."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from caesar_tui.inotify import Inotify, Root, available

pytestmark = pytest.mark.skipif(not available(), reason="inotify is Linux's")


class Told:
    """Every path a notifier told, gathered as the loop runs."""

    def __init__(self, notifier: Inotify) -> None:
        self.paths: set[str] = set()
        self._stream: AsyncIterator[set[str]] = notifier.batches()
        self._task = asyncio.ensure_future(self._gather())

    async def _gather(self) -> None:
        async for batch in self._stream:
            self.paths |= batch

    async def until(self, path: Path) -> None:
        for _ in range(200):
            if str(path) in self.paths:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"{path} was never told; told: {sorted(self.paths)}")

    async def close(self) -> None:
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


def task_dirs(parts: tuple[str, ...]) -> bool:
    return parts[0].startswith("t_") and (len(parts) == 1 or parts[1] == "questions")


async def test_an_append_and_a_new_directory_with_its_files_are_told(tmp_path: Path) -> None:
    (tmp_path / "t_1").mkdir()
    log = tmp_path / "t_1" / "events.jsonl"
    log.write_text("")
    notifier = Inotify([Root(tmp_path, 2, task_dirs)])
    told = Told(notifier)
    try:
        with log.open("a") as out:
            out.write("{}\n")
        await told.until(log)
        # A task directory and its mailbox made after the watch began, a file in each at once:
        # what they held before their watches existed is told too.
        (tmp_path / "t_2" / "questions").mkdir(parents=True)
        question = tmp_path / "t_2" / "questions" / "q_1.json"
        question.write_text("{}")
        await told.until(question)
        later = tmp_path / "t_2" / "questions" / "q_2.json"
        later.write_text("{}")
        await told.until(later)
    finally:
        await told.close()
        notifier.close()


async def test_nothing_deeper_unwanted_or_linked_is_watched(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    tasks = tmp_path / "tasks"
    (tasks / "t_1" / "questions" / "deep").mkdir(parents=True)
    (tasks / "t_1" / "node_modules").mkdir()
    (tasks / "t_1" / "answers").symlink_to(outside, target_is_directory=True)
    (tasks / "elsewhere").mkdir()
    notifier = Inotify([Root(tasks, 2, task_dirs)])
    assert notifier.watched == 3  # tasks, t_1, t_1/questions
    told = Told(notifier)
    try:
        (tasks / "t_1" / "questions" / "deep" / "x.json").write_text("{}")
        (tasks / "t_1" / "node_modules" / "x.js").write_text("")
        (outside / "x.json").write_text("{}")
        (tasks / "elsewhere" / "x").write_text("")
        marker = tasks / "t_1" / "questions" / "marker.json"
        marker.write_text("{}")  # told after the others, were they told at all
        await told.until(marker)
        assert told.paths == {str(marker)}
    finally:
        await told.close()
        notifier.close()


async def test_a_directory_replaced_by_a_link_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    notifier = Inotify([Root(tasks, 2, task_dirs)])
    told = Told(notifier)
    try:
        os.symlink(outside, tasks / "t_9")
        await told.until(tasks / "t_9")
        (outside / "x.json").write_text("{}")
        marker = tasks / "marker"
        marker.write_text("")
        await told.until(marker)
        assert str(outside / "x.json") not in told.paths
        assert notifier.watched == 1
    finally:
        await told.close()
        notifier.close()
