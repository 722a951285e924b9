"""Files created whole and only under a free name, never seen with two links by a reader."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from caesar_core import noreplace, safefs


def test_a_rename_that_refuses_to_replace(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("new")
    (tmp_path / "b").write_text("old")
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.raises(FileExistsError):
            noreplace.rename_noreplace("a", "b", fd)
        assert (tmp_path / "b").read_text() == "old" and (tmp_path / "a").exists()
        assert noreplace.rename_noreplace("a", "c", fd) in (True, False)
    finally:
        os.close(fd)


def test_without_the_call_nothing_is_renamed_and_the_caller_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(noreplace, "_LIBC", [None])
    (tmp_path / "a").write_text("x")
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert noreplace.rename_noreplace("a", "c", fd) is False
    finally:
        os.close(fd)
    assert (tmp_path / "a").exists() and not (tmp_path / "c").exists()
    safefs.create_exclusive(tmp_path, "answers/q.json", b"{}")
    assert safefs.read_bytes(tmp_path, "answers/q.json") == b"{}"
    assert sorted(os.listdir(tmp_path / "answers")) == ["q.json"]


def test_a_reader_never_sees_a_file_being_created_as_a_hard_link(tmp_path: Path) -> None:
    """An answer read the moment it appears is read whole, never refused as a second link
    of another file (the instant between a link and the removal of its temporary name)."""
    names = [f"q_{n:04d}.json" for n in range(300)]
    refused: list[str] = []
    done = threading.Event()

    def read() -> None:
        pending = list(names)
        while pending and not done.is_set():
            name = pending[0]
            try:
                assert safefs.read_bytes(tmp_path, f"answers/{name}") == b'{"answer": "yes"}'
            except FileNotFoundError:
                continue
            except safefs.UnsafeFileError as error:
                refused.append(str(error))
            pending.pop(0)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for name in names:
            safefs.create_exclusive(tmp_path, f"answers/{name}", b'{"answer": "yes"}')
    finally:
        reader.join(timeout=60)
        done.set()
    assert refused == []
    with pytest.raises(FileExistsError):
        safefs.create_exclusive(tmp_path, f"answers/{names[0]}", b"{}")
