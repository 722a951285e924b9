"""The CLIs that take the brief as ``-p``'s value (``agents.base.prompt_option``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from caesar_core.agents.base import Adapter
from caesar_core.agents.copilot import CopilotAdapter
from caesar_core.agents.gemini import GeminiAdapter
from caesar_core.agents.qwen import QwenAdapter
from tests.agents.replay import worktree_invocation

ADAPTERS = [CopilotAdapter(), GeminiAdapter(), QwenAdapter()]


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.id)
def test_the_brief_is_the_value_of_p(tmp_path: Path, adapter: Adapter) -> None:
    argv = adapter.launch(worktree_invocation(adapter.id, tmp_path)).argv
    assert argv[-2:] == ["-p", "# the brief"]


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.id)
def test_a_brief_starting_with_a_dash_is_never_read_as_a_flag(
    tmp_path: Path, adapter: Adapter
) -> None:
    argv = adapter.launch(worktree_invocation(adapter.id, tmp_path, prompt="- do it")).argv
    assert argv[-1] == "--prompt=- do it"
