"""The checked scalars of the configuration's fields: names, paths, templates, keys.

Each is an ``Annotated`` strict type with its check (:mod:`caesar_core.config.model` builds
the sections from them), and each check's error is a located, plain sentence
(:func:`problem`): what is wrong with the value, and what would be right.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from pathlib import Path, PurePosixPath
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, Field, StrictStr
from pydantic_core import PydanticCustomError

from caesar_core.config.defaults import WATCH_KEYS

_IDENTIFIER = re.compile(r"[a-z0-9][a-z0-9_-]*")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def problem(kind: str, message: str) -> PydanticCustomError:
    """A validation error whose text is ``message`` verbatim (braces and all)."""
    return PydanticCustomError(kind, "{problem}", {"problem": message})


def _identifier(value: str) -> str:
    """Ids and role names become file names and CLI arguments: keep them plain."""
    if not _IDENTIFIER.fullmatch(value):
        raise problem(
            "identifier",
            f"{value!r} is not a valid name: use lowercase letters, digits, '-' and '_', "
            "starting with a letter or a digit",
        )
    return value


def _env_name(value: str) -> str:
    if not _ENV_NAME.fullmatch(value):
        raise problem("env_name", f"{value!r} is not an environment variable name")
    return value


def _repository_path(value: str) -> str:
    """A path inside the repository that caesar may copy or link into a worktree.

    Absolute paths and ``..`` would reach outside the repository; ``.git`` and ``.caesar``
    are caesar's and git's own state, which a worktree must never share.
    """
    if not value:
        raise problem("repository_path", "an empty path names the whole repository")
    if value.startswith("/") or "\\" in value:
        raise problem("repository_path", f"{value!r} must be relative to the repository root")
    parts = PurePosixPath(value).parts
    if ".." in parts:
        raise problem("repository_path", f"{value!r} must not go up with '..'")
    normal = posixpath.normpath(value)
    if normal != value:
        raise problem("repository_path", f"{value!r} is not normalized; write {normal!r}")
    if parts[0] in (".git", ".caesar"):
        raise problem("repository_path", f"{value!r} is under {parts[0]}, which is never shared")
    return value


def _relative_file(value: str) -> str:
    if not value or Path(value).is_absolute() or value.startswith("~"):
        raise problem("relative_file", f"{value!r} must be a path relative to .caesar/")
    return value


def _watch_action(value: str) -> str:
    """A key of ``[watch.keys]``: one of the actions ``caesar watch`` binds."""
    if value not in WATCH_KEYS:
        close = difflib.get_close_matches(value, list(WATCH_KEYS), n=1)
        raise problem(
            "watch_action",
            f"{value!r} is not an action of caesar watch"
            + (f"; did you mean {close[0]!r}?" if close else "")
            + f" (actions: {', '.join(WATCH_KEYS)})",
        )
    return value


def _key_list(value: str) -> str:
    """Key names separated by commas (``"k,up"``, ``"ctrl+a"``), as Textual binds them."""
    parts = value.split(",")
    if any(not part.strip() or len(part.strip().split()) > 1 for part in parts):
        raise problem(
            "key_list",
            f"{value!r} is not a list of keys: write key names separated by commas, "
            'e.g. "k,up", "ctrl+a", "space"',
        )
    return value


def _template_shape(value: object) -> object:
    """An args template is a command-line string or an array of strings (one per argument)."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise problem(
                    "template_item",
                    f"item [{index}] is {type(item).__name__} {item!r:.40}: every item of an "
                    "args array is one argument, a string",
                )
        return value
    if isinstance(value, str):
        return value
    raise problem(
        "template_shape",
        "expected a command line (a string, split like a shell would) or an array of "
        f'strings (one argument each, e.g. ["exec", "{{{{prompt}}}}"]), got {type(value).__name__}',
    )


Identifier = Annotated[StrictStr, AfterValidator(_identifier)]
ArgsTemplate = Annotated[StrictStr | list[StrictStr], BeforeValidator(_template_shape)]
"""``"exec {{prompt}}"`` (caesar's form) or ``["exec", "{{prompt}}"]`` (the reference's)."""
NonEmpty = Annotated[StrictStr, Field(min_length=1)]
RepositoryPath = Annotated[StrictStr, AfterValidator(_repository_path)]
RelativeFile = Annotated[StrictStr, AfterValidator(_relative_file)]
EnvName = Annotated[StrictStr, AfterValidator(_env_name)]
WatchAction = Annotated[StrictStr, AfterValidator(_watch_action)]
KeyList = Annotated[StrictStr, AfterValidator(_key_list)]


def no_duplicates(values: list[str]) -> list[str]:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise problem("duplicate_item", f"lists {value!r} twice")
        seen.add(value)
    return values
