"""Command-line templates of ``[[agent]]`` entries: one string, split like a shell would.

A template is one string (``args = "exec --model {{model}} {{prompt}}"``) rather than a
TOML array because that is how people already write command lines; ``shlex`` splits it with
shell quoting, *then* tokens are substituted inside each piece, so a prompt full of spaces
and quotes stays exactly one argument and is never re-split or interpreted by a shell.
"""

from __future__ import annotations

import difflib
import re
import shlex
from collections.abc import Mapping

TOKENS: tuple[str, ...] = ("prompt", "workspace", "taskDir", "reportPath", "model", "session")
"""Every ``{{token}}`` a template may use; anything else is refused at load time
(``{{session}}``, the session a follow-up turn resumes, has a value in ``resume_args`` only)."""

_TOKEN = re.compile(r"\{\{(.*?)\}\}")
_KNOWN = ", ".join("{{" + name + "}}" for name in TOKENS)


class TemplateError(ValueError):
    """A template that cannot be split or names a token caesar does not provide."""


def split_template(template: str) -> list[str]:
    """The template's arguments, split with POSIX shell quoting (no expansion of any kind)."""
    try:
        return shlex.split(template)
    except ValueError as exc:  # "No closing quotation", "No escaped character"
        raise TemplateError(f"cannot be split like a shell command line: {exc}") from None


def check_template(template: str, *, require_prompt: bool) -> None:
    """Refuse what would only fail at launch: bad quoting, unknown tokens, no prompt.

    An agent that never receives the objective cannot do the task, so the main ``args``
    template must carry ``{{prompt}}``; the appended ones (read-only, network) need not.
    """
    arguments = split_template(template)
    for match in _TOKEN.finditer(template):
        name = match.group(1)
        if name not in TOKENS:
            close = difflib.get_close_matches(name.strip(), TOKENS, n=1)
            hint = f"; did you mean {{{{{close[0]}}}}}?" if close else ""
            raise TemplateError(f"unknown token {match.group(0)} (known: {_KNOWN}){hint}")
    if require_prompt and not any("{{prompt}}" in argument for argument in arguments):
        raise TemplateError("must contain {{prompt}}, or the agent never receives the task")


def render_template(template: str, values: Mapping[str, str | None]) -> list[str]:
    """The template's arguments with every token replaced by its value.

    A token whose value is missing (``None`` or absent from ``values``) drops the whole
    argument that contains it, because an empty ``--model=`` is worse than no option at all.
    When the dropped argument directly follows a literal option flag (a piece that starts with
    ``-``, is not ``-`` or ``--``, has no ``=`` and no token), the flag goes too: in
    ``--model {{model}}`` the flag only made sense with its value, and left alone it would
    swallow the next argument. The price: in ``--verbose {{model}}`` ``--verbose`` is dropped
    as well; write ``--model={{model}}`` or put the positional elsewhere when that matters.
    """
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


def uses_token(template: str | None, name: str) -> bool:
    """Whether ``template`` mentions ``{{name}}`` (e.g. to know if a model can be chosen)."""
    return template is not None and ("{{" + name + "}}") in template


def _is_bare_flag(argument: str) -> bool:
    return argument.startswith("-") and argument not in ("-", "--") and "=" not in argument
