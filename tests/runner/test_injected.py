"""Per-run configuration files: laid down for the run, then put back exactly as they were."""

from __future__ import annotations

from pathlib import Path

import pytest

from caesar_core.runner.injected import injected


def test_a_users_file_is_restored_byte_for_byte_and_a_new_one_removed(tmp_path: Path) -> None:
    mine = tmp_path / "opencode.json"
    mine.write_bytes(b'{"mine": true}\r\n')
    new = tmp_path / "sub" / "mcp.json"

    with injected({mine: '{"caesar": 1}', new: "{}"}):
        assert mine.read_text() == '{"caesar": 1}'
        assert new.read_text() == "{}"

    assert mine.read_bytes() == b'{"mine": true}\r\n'
    assert not new.exists()


def test_files_are_put_back_when_the_run_fails(tmp_path: Path) -> None:
    mine = tmp_path / "settings.json"
    mine.write_text("original")

    with pytest.raises(RuntimeError), injected({mine: "ours"}):
        raise RuntimeError("the agent could not start")

    assert mine.read_text() == "original"
