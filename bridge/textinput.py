"""Values people type: the one place both front ends (cli.py and web/) read them.

A typed value reaches names, positions and Prolog goals, so it must be valid UTF-8 with no control
characters; a typed count is ASCII digits only (Python's ``str.isdigit`` also takes '²' and '٣',
which ``int`` then refuses or reads as a number nobody typed); an empty value is refused, not
silently read as the default.  Imports nothing heavy: the command line reads it before any work.
"""
from __future__ import annotations

from typing import Any

from educable.bridge.errors import BadInput


def check_text(name: str, value: Any) -> None:
    """An argument or option typed on the command line or sent to the page: valid UTF-8 and no
    control characters; BadInput otherwise.  Anything but a string passes."""
    if not isinstance(value, str):
        return
    what = name.replace("_path", "").replace("_", "-")
    if any("\udc80" <= c <= "\udcff" for c in value):
        raise BadInput(f"{what}: {value.encode('utf-8', 'surrogateescape')!r} is not valid UTF-8")
    if any(not c.isprintable() for c in value):
        raise BadInput(f"{what}: {value!r} contains a control character")


def is_whole_number(text: str) -> bool:
    """``text`` is a whole number written in ASCII digits (no sign, no space, not empty)."""
    return text.isascii() and text.isdigit()


def whole_number(text: Any, what: str, lo: int, hi: int, unit: str = "") -> int:
    """``text`` read as a whole number from ``lo`` to ``hi``; BadInput naming ``what`` otherwise
    (empty, not ASCII digits, or out of range)."""
    words = f" of {unit}" if unit else ""
    if not isinstance(text, str) or not is_whole_number(text) or len(text) > 30 or not lo <= int(text) <= hi:
        raise BadInput(f"{what} takes a whole number{words} from {lo:,} to {hi:,} (got {str(text)[:40]!r})")
    return int(text)


def check_argv(args: list[str]) -> None:
    """Every word of a command line valid UTF-8 (checked before click reads it, so no option's value,
    a learner's own or a sweep's pass-through included, reaches the library undecoded)."""
    for word in args:
        if any("\udc80" <= c <= "\udcff" for c in word):
            raise BadInput(f"{word.encode('utf-8', 'surrogateescape')!r} is not valid UTF-8; "
                           "type names, positions and values in UTF-8")
