"""Filling a new worktree with a tree's files, as fast as git does.

libgit2 loads the filter list (CRLF, ident, custom drivers) for every file it writes, and
finding the ``.gitattributes`` that apply costs a ``realpath`` per file: on a 20,000-file
tree that is ~40% of the checkout. When no attributes exist anywhere and no configuration
asks for a conversion, every filter is a no-op, so the checkout runs with filters disabled.
pygit2 does not expose ``disable_filters``; it is set through pygit2's own cffi binding, the
same calls pygit2 makes, and any missing piece falls back to the public checkout.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pygit2
from pygit2.enums import CheckoutStrategy

from caesar_core.git.repo import common_dir


def checkout_files(repo: pygit2.Repository, tree: pygit2.Tree, *, fast: bool | None = None) -> None:
    """Write ``tree`` into ``repo``'s (empty) working directory and its index.

    ``fast`` None decides by :func:`filters_are_noops`; tests force either path.
    """
    if fast is None:
        fast = filters_are_noops(repo, tree)
    if fast and _checkout_unfiltered(repo, tree):
        return
    checkout: Callable[..., None] = repo.checkout_tree
    checkout(tree, strategy=CheckoutStrategy.FORCE)


def filters_are_noops(repo: pygit2.Repository, tree: pygit2.Tree) -> bool:
    """True when no attribute file and no config could make a checkout filter change bytes."""
    config = repo.config
    for key, bad in (("core.autocrlf", {"true"}), ("core.eol", {"crlf"})):
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
    if any(path.exists() for path in candidates):
        return False
    return not _has_attributes_file(tree)


def _has_attributes_file(tree: pygit2.Tree) -> bool:
    """Whether any directory of ``tree`` holds a ``.gitattributes`` (only subtrees are read)."""
    pending = [tree]
    while pending:
        current = pending.pop()
        if ".gitattributes" in current:
            return True
        pending.extend(entry for entry in current if isinstance(entry, pygit2.Tree))
    return False


def _checkout_unfiltered(repo: pygit2.Repository, tree: pygit2.Tree) -> bool:
    """``git_checkout_tree`` with ``disable_filters``; False when pygit2's binding differs."""
    try:
        from pygit2.errors import check_error
        from pygit2.ffi import C, ffi

        native: Any = ffi
        lib: Any = C
        repo_ptr: Any = repo._repo
        tree_bytes: bytes = tree._pointer
        options: Any = native.new("git_checkout_options *")
        check_error(lib.git_checkout_options_init(options, 1))
        options.checkout_strategy = int(CheckoutStrategy.FORCE)
        options.disable_filters = 1
        tree_ptr: Any = native.new("git_object **")
        native.buffer(tree_ptr)[:] = tree_bytes[:]
    except (ImportError, AttributeError, TypeError):
        return False
    check_error(lib.git_checkout_tree(repo_ptr, tree_ptr[0], options))
    return True
