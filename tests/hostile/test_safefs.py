"""The safe file module on its own: every kind of hostile entry an agent can leave behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from caesar_core import safefs


def test_a_symlinked_file_is_neither_read_nor_written_through(root: Path, secret: Path) -> None:
    (root / "report.json").symlink_to(secret)
    with pytest.raises(safefs.UnsafeFileError, match="symbolic link"):
        safefs.read_bytes(root, "report.json")
    with pytest.raises(safefs.UnsafeFileError, match="symbolic link"):
        safefs.open_append(root, "report.json")
    safefs.atomic_write(root, "report.json", b"{}")
    assert secret.read_text() == "secret"
    assert (root / "report.json").read_bytes() == b"{}"


def test_a_symlinked_directory_is_refused(root: Path, tmp_path: Path) -> None:
    (root / "answers").symlink_to(tmp_path)
    with pytest.raises(safefs.UnsafeFileError, match="symbolic link"):
        safefs.create_exclusive(root, "answers/a.json", b"x")
    with pytest.raises(safefs.UnsafeFileError, match="symbolic link"):
        safefs.entries(root, "answers")
    assert not (tmp_path / "a.json").exists()


def test_a_fifo_answers_at_once(root: Path) -> None:
    os.mkfifo(root / "report.json")
    with pytest.raises(safefs.UnsafeFileError, match="FIFO"):
        safefs.read_bytes(root, "report.json")
    with pytest.raises(safefs.UnsafeFileError, match="FIFO"):
        safefs.open_append(root, "report.json")


def test_a_directory_where_a_file_belongs(root: Path) -> None:
    (root / "events.jsonl").mkdir()
    with pytest.raises(safefs.UnsafeFileError, match="directory"):
        safefs.read_bytes(root, "events.jsonl")
    with pytest.raises(safefs.UnsafeFileError, match="directory"):
        safefs.atomic_write(root, "events.jsonl", b"x")


def test_a_hard_link_to_an_outside_file(root: Path, secret: Path) -> None:
    os.link(secret, root / "raw.log")
    with pytest.raises(safefs.UnsafeFileError, match="hard link"):
        safefs.read_bytes(root, "raw.log")
    with pytest.raises(safefs.UnsafeFileError, match="hard link"):
        safefs.open_append(root, "raw.log")
    assert secret.read_text() == "secret"


def test_reads_are_bounded_and_missing_files_are_missing(root: Path) -> None:
    (root / "big").write_bytes(b"x" * 100)
    with pytest.raises(safefs.UnsafeFileError, match="larger"):
        safefs.read_bytes(root, "big", limit=10)
    with pytest.raises(FileNotFoundError):
        safefs.read_bytes(root, "nope")
    assert safefs.read_tail(root, "big", 3) == b"xxx"


def test_paths_that_leave_the_directory_are_refused(root: Path) -> None:
    for bad in ("../x", "/etc/passwd", "a/../../x"):
        with pytest.raises(safefs.UnsafeFileError):
            safefs.read_bytes(root, bad)


def test_deep_json_is_refused_before_any_parser_recurses() -> None:
    deep = b"[" * 3000 + b"]" * 3000
    with pytest.raises(safefs.TooDeepError):
        safefs.loads(deep)
    assert safefs.json_depth(b'{"a":"[[[[\\"[","b":[1,[2]]}') == 3
    assert safefs.loads(b'{"a": [1, {"b": 2}]}') == {"a": [1, {"b": 2}]}
