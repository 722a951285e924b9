"""Repository-relative paths in git's form, and the prefixes that select or leave them out."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from caesar_core.errors import ExitCode
from caesar_core.git.errors import GitError
from caesar_core.layout import CAESAR_DIR


def normalize_rel(path: str, what: str = "path") -> str:
    """A repository-relative path in git's form: ``/``-separated, no ``.``, no trailing ``/``.

    Absolute paths and ``..`` components are refused: every path caesar handles must stay
    inside the working tree it names.
    """
    if path.startswith("/"):
        raise GitError(
            f"{what} {path!r} is absolute",
            "give paths relative to the repository root",
            exit_code=ExitCode.USAGE,
        )
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise GitError(
            f"{what} {path!r} leaves the repository",
            "give paths inside the repository, without '..'",
            exit_code=ExitCode.USAGE,
        )
    return posixpath.join(*parts) if parts else ""


def is_under(path: str, prefix: str) -> bool:
    """Prefix semantics on path components: ``a/b`` is under ``a``; ``ab`` is not."""
    return not prefix or path == prefix or path.startswith(prefix + "/")


def under_any(path: str, prefixes: Iterable[str]) -> bool:
    return any(is_under(path, prefix) for prefix in prefixes)


def exclusions(exclude: Iterable[str]) -> tuple[str, ...]:
    """Normalized exclusion prefixes, always with ``.caesar`` (caesar's own files)."""
    found = {CAESAR_DIR}
    for raw in exclude:
        path = normalize_rel(raw, "excluded path")
        if path:
            found.add(path)
    return tuple(sorted(found))
