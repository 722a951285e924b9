"""The git layer's errors, apart from pygit2: the path that runs the ``git`` program
(``git.program``) raises them without loading libgit2."""

from __future__ import annotations

from collections.abc import Sequence

from caesar_core.errors import CaesarError
from caesar_core.terminal import quote_path


class GitError(CaesarError):
    """A git operation refused or failed; the reason names the repository or path involved."""


class LocalChangesError(GitError):
    """Applying would overwrite work the user has not committed; ``paths`` lists it."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.paths = sorted(paths)
        shown = ", ".join(map(quote_path, self.paths[:10])) + (
            " ..." if len(self.paths) > 10 else ""
        )
        super().__init__(
            f"{len(self.paths)} file(s) the task changes have local changes in the main "
            f"working tree: {shown}",
            "commit or stash those changes (or move the files out of the way), then apply again",
        )


class OutsideLinksError(GitError):
    """The task leaves symbolic links pointing out of the repository; ``links`` are
    ``(path, target)``. Nothing was written."""

    def __init__(self, links: Sequence[tuple[str, str]]) -> None:
        self.links = sorted(links)
        shown = ", ".join(f"{quote_path(path)} -> {quote_path(to)}" for path, to in self.links[:10])
        super().__init__(
            f"not applied: the task adds {len(self.links)} symbolic link(s) pointing outside "
            f"the repository: {shown}{' ...' if len(self.links) > 10 else ''}; nothing was written",
            "review them with `caesar diff`; apply them anyway with --allow-outside-links, or "
            "leave them out by applying the other files with --path",
        )


class DamagedWorktreeError(GitError):
    """A working tree's git data (its index) cannot be read: nothing about its changes can be
    told, so nothing is applied from it and nothing in it is judged clean."""
