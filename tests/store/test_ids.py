"""Ids are validated before they name a path, and a refused one is echoed back clipped."""

from __future__ import annotations

import pytest

from caesar_core.errors import UsageError
from caesar_core.store.ids import check_name, check_task_id, new_task_id, shown_id


def test_a_huge_invalid_id_is_clipped_with_its_length() -> None:
    for check in (check_task_id, check_name):
        with pytest.raises(UsageError) as refused:
            check("\x1b]0;x\x07" + "a" * 100_000)
        reason = refused.value.reason
        assert len(reason) < 200 and "100,006 characters" in reason
        assert "\x1b" not in reason and "\\x1b" in reason


def test_short_ids_are_shown_whole_and_good_ones_pass() -> None:
    assert shown_id("t_1") == "'t_1'"
    task_id = new_task_id()
    assert check_task_id(task_id) == task_id
    assert check_name("q_1.a-b") == "q_1.a-b"
