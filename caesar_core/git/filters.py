"""When git's content filters are no-ops, so bytes can be copied instead of filtered.

Checkout and check-in in libgit2 load the filter list (CRLF conversion, ``ident``, custom
drivers) for every file, and finding the ``.gitattributes`` that apply costs a ``realpath``
and a few ``stat`` calls per file. On a 20,000-file tree that is a large share of the work,
and almost always for nothing. These checks say when it is provably for nothing: no
configuration asks for a conversion and no attributes file could apply.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

import pygit2

from caesar_core.git.repo import common_dir

ATTRIBUTES = ".gitattributes"


def configured_filters_are_noops(repo: pygit2.Repository) -> bool:
    """No config conversion, and no attributes file outside the tree (global, system, info)."""
    config = repo.config
    for key, bad in (("core.autocrlf", {"true", "input"}), ("core.eol", {"crlf"})):
        if key in config and str(config[key]).strip().lower() in bad:
            return False
    if "core.attributesFile" in config:
        return False
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    candidates = (
        Path(xdg) / "git" / "attributes",
        Path("/etc/gitattributes"),
        common_dir(repo) / "info" / "attributes",
    )
    return not any(path.exists() for path in candidates)


def tree_has_attributes(tree: pygit2.Tree) -> bool:
    """Whether any directory of ``tree`` holds a ``.gitattributes`` (only subtrees are read)."""
    pending = [tree]
    while pending:
        current = pending.pop()
        if ATTRIBUTES in current:
            return True
        pending.extend(entry for entry in current if isinstance(entry, pygit2.Tree))
    return False


class AttributeProbe:
    """Per path: could an attributes file make check-in filters change its bytes?

    Attributes for a path come from ``.gitattributes`` in its directory and every parent
    (read from disk, else from the index), plus the files ``configured_filters_are_noops``
    checks. Directories are looked at once each.
    """

    def __init__(self, repo: pygit2.Repository, workdir: Path) -> None:
        self._workdir = workdir
        self._index = repo.index  # already read (content.index_of) by the one caller
        self._global = configured_filters_are_noops(repo)
        self._dirs: dict[str, bool] = {}

    def plain(self, path: str) -> bool:
        """True when the file at ``path`` is stored exactly as its bytes on disk."""
        return self._global and not self._attributed(posixpath.dirname(path))

    def _attributed(self, folder: str) -> bool:
        known = self._dirs.get(folder)
        if known is None:
            rel = posixpath.join(folder, ATTRIBUTES) if folder else ATTRIBUTES
            known = (self._workdir / rel).exists() or rel in self._index
            if not known and folder:
                known = self._attributed(posixpath.dirname(folder))
            self._dirs[folder] = known
        return known
