"""A working directory's content recorded as a tree by the ``git`` program; pygit2 when git
cannot.

An in-place ``caesar run`` records its workspace before the agent starts, and a ``caesar
continue`` records where the new turn starts (``start_snapshot``, ``turn_base``). The first
steps of ``git.viagit``'s reconciliation are exactly that tree: ``add -A`` into a private
copy of the index (excluded paths left out by pathspec, so left as the index has them, as
``content.content_tree`` leaves them), then ``write-tree``. Whatever git might answer
otherwise than libgit2 -- a submodule or nested repository anywhere in the tree, a
``core.abbrev``, a directory under ``.caesar/``, any refusal (a conflict, an unreadable file,
a damaged index, no git) -- is left to :func:`~caesar_core.git.diff.snapshot_by_pygit2`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from caesar_core.git.changes import Snapshot
from caesar_core.git.paths import exclusions
from caesar_core.git.program import GitFailed
from caesar_core.git.staging import staged

_GITLINK_ENTRY = b"160000 "


def snapshot(workdir: Path, *, exclude: Sequence[str] = ()) -> Snapshot:
    """Record ``workdir``'s content (untracked-not-ignored files included) as a tree."""
    tree = _tree_by_git(workdir, exclusions(exclude))
    if tree is not None:
        return Snapshot(tree=tree)
    from caesar_core.git.diff import snapshot_by_pygit2  # pygit2: only when git cannot

    return snapshot_by_pygit2(workdir, exclude=exclude)


def _tree_by_git(workdir: Path, excludes: Sequence[str]) -> str | None:
    """The tree ``add -A`` and ``write-tree`` make of ``workdir``; None when git cannot tell
    it as libgit2 would."""
    try:
        with staged(workdir, "HEAD^{tree}", excludes) as work:
            if work is None:
                return None
            listed = work.git.run(["ls-files", "-s", "-z"], work.top, index=work.index)
            if listed.startswith(_GITLINK_ENTRY) or b"\0" + _GITLINK_ENTRY in listed:
                return None
            return work.git.run(["write-tree"], work.top, index=work.index).decode().strip()
    except GitFailed:
        return None
