"""Filling a new worktree with a tree's files, as fast as git does.

libgit2 loads the filter list (CRLF, ident, custom drivers) for every file it writes; on a
20,000-file tree finding the attributes that apply is ~40% of the checkout. When no
attributes exist anywhere and no configuration asks for a conversion (``filters.py``),
every filter is a no-op, so the checkout runs with filters disabled. pygit2 does not expose
``disable_filters``; it is set through pygit2's own cffi binding, the same calls pygit2
makes, and any missing piece falls back to the public checkout.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pygit2
from pygit2.enums import CheckoutStrategy

from caesar_core.git.filters import configured_filters_are_noops, tree_has_attributes


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
    return configured_filters_are_noops(repo) and not tree_has_attributes(tree)


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
