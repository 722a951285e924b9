"""Command-line templates of ``[[agent]]`` entries: one string split like a shell would, or a
TOML array of arguments.

A template is either one string (``args = "exec --model {{model}} {{prompt}}"``), how people
already write command lines, which ``shlex`` splits with shell quoting; or an array
(``args = ["exec", "{{prompt}}"]``), one argument per item, the only form the reference
implementation (Koumalabs/caesar) reads, so its configuration files are read unchanged. Either
way tokens are substituted inside each argument *after* the split, so a prompt full of spaces
and quotes stays exactly one argument and is never re-split or interpreted by a shell.

The two forms drop a token without a value differently, each as its own writers expect (see
:func:`render_template`).
"""

from __future__ import annotations

import difflib
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import TypeAlias

TOKENS: tuple[str, ...] = ("prompt", "workspace", "taskDir", "reportPath", "model", "session")
"""Every ``{{token}}`` a template may use; anything else is refused at load time
(``{{session}}``, the session a follow-up turn resumes, has a value in ``resume_args`` only)."""

_TOKEN = re.compile(r"\{\{(.*?)\}\}")
_KNOWN = ", ".join("{{" + name + "}}" for name in TOKENS)


Template: TypeAlias = str | Sequence[str]
"""One command-line string, or the arguments one by one (a TOML array)."""


class TemplateError(ValueError):
    """A template that cannot be split or names a token caesar does not provide."""


def split_template(template: Template) -> list[str]:
    """The template's arguments: a string split with POSIX shell quoting (no expansion of any
    kind), an array taken item by item as it is."""
    if not isinstance(template, str):
        return list(template)
    try:
        return shlex.split(template)
    except ValueError as exc:  # "No closing quotation", "No escaped character"
        raise TemplateError(f"cannot be split like a shell command line: {exc}") from None


def check_template(template: Template, *, require_prompt: bool) -> None:
    """Refuse what would only fail at launch: bad quoting, unknown tokens, no prompt.

    An agent that never receives the objective cannot do the task, so the main ``args``
    template must carry ``{{prompt}}``; the appended ones (read-only, network) need not.
    """
    arguments = split_template(template)
    for piece in [template] if isinstance(template, str) else arguments:
        for match in _TOKEN.finditer(piece):
            name = match.group(1)
            if name not in TOKENS:
                close = difflib.get_close_matches(name.strip(), TOKENS, n=1)
                hint = f"; did you mean {{{{{close[0]}}}}}?" if close else ""
                raise TemplateError(f"unknown token {match.group(0)} (known: {_KNOWN}){hint}")
    if require_prompt and not any("{{prompt}}" in argument for argument in arguments):
        raise TemplateError("must contain {{prompt}}, or the agent never receives the task")


def render_template(template: Template, values: Mapping[str, str | None]) -> list[str]:
    """The template's arguments with every token replaced by its value.

    A token whose value is missing (``None`` or absent from ``values``) drops the whole
    argument that contains it, because an empty ``--model=`` is worse than no option at all.

    In a string template, when the dropped argument directly follows a literal option flag (a
    piece that starts with ``-``, is not ``-`` or ``--``, has no ``=`` and no token), the flag
    goes too: in ``--model {{model}}`` the flag only made sense with its value, and left alone
    it would swallow the next argument. The price: in ``--verbose {{model}}`` ``--verbose`` is
    dropped as well; write ``--model={{model}}`` or put the positional elsewhere when that
    matters.

    An array drops the item alone, nothing before it: that is what the reference
    implementation does with the arrays it writes, and a file shared by both must build the
    same command line in both. Write ``"--model={{model}}"`` as one item to lose the flag with
    its value.
    """
    if not isinstance(template, str):
        return _render_items(template, values)
    out: list[str] = []
    last_is_bare_flag = False
    for argument in split_template(template):
        names = _TOKEN.findall(argument)
        if any(values.get(name) is None for name in names):
            if last_is_bare_flag:
                out.pop()
            last_is_bare_flag = False
            continue
        out.append(_TOKEN.sub(lambda match: values.get(match.group(1)) or "", argument))
        last_is_bare_flag = not names and _is_bare_flag(argument)
    return out


def _render_items(items: Sequence[str], values: Mapping[str, str | None]) -> list[str]:
    out: list[str] = []
    for item in items:
        names = _TOKEN.findall(item)
        if any(values.get(name) is None for name in names):
            continue
        out.append(_TOKEN.sub(lambda match: values.get(match.group(1)) or "", item))
    return out


def uses_token(template: Template | None, name: str) -> bool:
    """Whether ``template`` mentions ``{{name}}`` (e.g. to know if a model can be chosen)."""
    if template is None:
        return False
    token = "{{" + name + "}}"
    if isinstance(template, str):
        return token in template
    return any(token in item for item in template)


def _is_bare_flag(argument: str) -> bool:
    return argument.startswith("-") and argument not in ("-", "--") and "=" not in argument
