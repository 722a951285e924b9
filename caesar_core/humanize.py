"""Texts for people: a long text clipped, a value quoted in an error, an age, a duration.

The one spelling of each, for every front end (the CLI's tables and lines, the event log's
summaries, the watch's panes, the bridge's reasons). Standard library only and nothing costly
to import: the hook path (``caesar bridge``, ``caesar hook``) uses it once per tool call.
A duration as configuration spells it (``"1h30m"``, parsed back) is ``config.durations``'.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # datetime costs ~2 ms of imports on the hot path
    from datetime import datetime

ELLIPSIS = "…"


def clip(text: str, limit: int) -> str:
    """At most ``limit`` characters; a cut shows as an ellipsis (spaces before it dropped)."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + ELLIPSIS


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` on one line (every run of whitespace, newlines too, a single space), clipped
    to ``limit`` characters when one is given."""
    flat = " ".join(text.split())
    return flat if limit is None else clip(flat, limit)


def quoted(value: object, limit: int = 40) -> str:
    """``value`` as an error quotes it: ``repr`` (controls escaped), and past ``limit``
    characters clipped with its length said (``'aaaa…' (10,000 characters)``): it may be
    anything a person pasted or an agent wrote."""
    text = repr(value)
    if len(text) <= limit:
        return text
    size = len(value) if isinstance(value, str) else len(text)
    return f"{text[: max(1, limit - 8)]}{ELLIPSIS}' ({size:,} characters)"


def age(seconds: float) -> str:
    """How long ago, compact, in its largest whole unit: ``12s``, ``4m``, ``3h``, ``2d``."""
    whole = max(0, int(seconds))
    for unit, size in (("d", 86_400), ("h", 3_600), ("m", 60)):
        if whole >= size:
            return f"{whole // size}{unit}"
    return f"{whole}s"


def duration(seconds: float, *, tenths: bool = True) -> str:
    """How long something ran or has left: ``0.4s``, ``12.0s``, ``3m 05s``, ``1h 02m``.

    Under a minute in tenths of a second (whole seconds, ``12s``, without ``tenths``); beyond,
    in whole seconds counted down (a running call's time never reads ahead of the clock).
    """
    seconds = max(0.0, seconds)
    if tenths and round(seconds, 1) < 60:
        return f"{seconds:.1f}s"
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {secs:02d}s"


def took(start: datetime, end: datetime) -> str:
    """:func:`duration` of ``start`` to ``end`` (none when ``end`` is earlier)."""
    return duration((end - start).total_seconds())


__all__ = ["ELLIPSIS", "age", "clip", "duration", "one_line", "quoted", "took"]
