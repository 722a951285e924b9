"""The safefs additions for files caesar owns in a task directory: ``claim``, ``claim_write``,
``move_aside``, ``describe``, ``refused_entries``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from caesar_core import reclaim, safefs


def hostile(root: Path, secret: Path, kind: str) -> Path:
    entry = root / "owned"
    if kind == "symlink":
        entry.symlink_to(secret)
    elif kind == "dangling":
        entry.symlink_to(secret.parent / "nowhere")
    elif kind == "hardlink":
        entry.hardlink_to(secret)
    elif kind == "directory":
        entry.mkdir()
        (entry / "inside").write_text("kept")
    else:
        os.mkfifo(entry)
    return entry


KINDS = ["symlink", "dangling", "hardlink", "directory", "fifo"]
SAID = {
    "symlink": "a symbolic link to",
    "dangling": "a symbolic link to",
    "hardlink": "a hard link to another file",
    "directory": "a directory",
    "fifo": "a FIFO",
}


@pytest.mark.parametrize("kind", KINDS)
def test_claim_moves_the_hostile_entry_aside_and_opens_a_file_of_its_own(
    root: Path, secret: Path, kind: str
) -> None:
    hostile(root, secret, kind)
    fd, moved = reclaim.claim(root, "owned", os.O_RDWR | os.O_APPEND)
    try:
        os.write(fd, b"caesar's own\n")
    finally:
        os.close(fd)
    assert secret.read_text() == "secret"
    assert not (secret.parent / "nowhere").exists()
    assert (root / "owned").read_bytes() == b"caesar's own\n"
    [said] = moved
    assert said.startswith(f"owned was {SAID[kind]}") and "owned.refused-1" in said
    assert reclaim.refused_entries(root) == [("owned", "owned.refused-1")]
    assert reclaim.describe(root, "owned.refused-1").startswith(SAID[kind])


def test_claim_of_a_plain_file_moves_nothing(root: Path) -> None:
    (root / "owned").write_text("mine\n")
    fd, moved = reclaim.claim(root, "owned")
    os.close(fd)
    assert moved == [] and reclaim.refused_entries(root) == []


@pytest.mark.parametrize("kind", KINDS)
def test_claim_write_replaces_or_moves_aside_and_never_writes_through(
    root: Path, secret: Path, kind: str
) -> None:
    hostile(root, secret, kind)
    moved = reclaim.claim_write(root, "owned", b"{}")
    assert (root / "owned").read_bytes() == b"{}"
    assert secret.read_text() == "secret"
    assert bool(moved) == (kind == "directory")  # a rename replaces the rest, never follows
    if moved:
        assert (root / "owned.refused-1" / "inside").read_text() == "kept"


def test_move_aside_takes_the_next_free_number(root: Path) -> None:
    for n in range(3):
        (root / "owned").mkdir()
        assert reclaim.move_aside(root, "owned") == f"owned.refused-{n + 1}"
    assert [aside for _, aside in reclaim.refused_entries(root)] == [
        "owned.refused-1",
        "owned.refused-2",
        "owned.refused-3",
    ]
    with pytest.raises(FileNotFoundError):
        reclaim.move_aside(root, "owned")


def test_claim_never_fixes_a_directory_above_the_file(root: Path, tmp_path: Path) -> None:
    (root / "sub").symlink_to(tmp_path)
    with pytest.raises(safefs.UnsafeFileError, match="symbolic link"):
        reclaim.claim(root, "sub/owned")
    assert not (tmp_path / "owned").exists()
