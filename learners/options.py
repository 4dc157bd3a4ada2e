"""Learner options, declared once.

A learner's options are the fields of its options dataclass, each made with
``option(default, help, ...)``: its type (from the annotation), default,
help, bounds or choices and command-line flag live in one place.  The
command line builds `train`'s options from them (``declared``), so a
sweep's grid values are typed by the same parser, and the manual's option
tables are printed from them (``table``).  Options of one run only (not
stored with the agent: ``--until-perfect``, ``--cycles``, ``--workers``) are
declared the same way with ``run_option``.
"""
from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from typing import Any

ON = ("true", "on", "yes", "1")     # how a sweep's grid says an on/off option
OFF = ("false", "off", "no", "0")


@dataclass(frozen=True)
class Option:
    """One option of one learner."""

    name: str                              # as stored with the agent and named in a sweep's grid
    type: type                             # int, float, bool or str
    default: Any                           # the learner's default (None: it depends; the help says on what)
    help: str
    learner: str
    flag: str | None = None                # the flag without '--' where it differs from the name (lam: lambda)
    off: str | None = None                 # an on/off option's 'off' flag (None: no-FLAG; '': a flag alone)
    choices: tuple[str, ...] | None = None
    low: float | None = None
    high: float | None = None
    run: bool = False                      # of one run, not stored with the agent
    metavar: str | None = None
    default_text: str | None = None        # the default in words, where the learner decides it
    place: bool = False                    # names a file or an address of the machine that runs the command:
    #                                        taken from its own command line only, never from a request (the page)

    @property
    def flag_name(self) -> str:
        return self.flag or self.name.replace("_", "-")

    @property
    def off_flag(self) -> str:
        return self.off or f"no-{self.flag_name}"

    def default_words(self) -> str:
        """The default as the help and the manual say it ('' where the help explains it)."""
        if self.default_text is not None:
            return self.default_text
        if self.default is None:
            return ""
        return ("on" if self.default else "off") if self.type is bool else f"{self.default:g}" \
            if isinstance(self.default, float) else str(self.default)

    def range_text(self) -> str:
        """'from 1 to 1000', 'at least 1', 'one of a, b' or ''."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        low, high = (None if b is None else (int(b) if self.type is int else b) for b in (self.low, self.high))
        if low is not None and high is not None:
            return f"from {low:,} to {high:,}" if self.type is int else f"in [{low:g}, {high:g}]"
        if low is not None:
            return f"at least {low:,}" if self.type is int else f"at least {low:g}"
        if high is not None:
            return f"at most {high:,}" if self.type is int else f"at most {high:g}"
        return ""


def option(default: Any, help: str, **details: Any) -> Any:
    """A field of an options dataclass that is also a command-line option (``details``: flag, off,
    choices, low, high, metavar)."""
    return dataclasses.field(default=default, metadata={"option": {"help": help, **details}})


def run_option(name: str, type_: type, default: Any, help: str, learner: str, **details: Any) -> Option:
    """An option of one run of ``learner`` (not stored with the agent)."""
    return Option(name, type_, default, help, learner, run=True, **details)


def declared(cls: type, learner: str) -> tuple[Option, ...]:
    """The options an options dataclass declares with ``option`` (fields without it are not options)."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        meta = f.metadata.get("option")
        if meta is not None:
            out.append(Option(f.name, _plain_type(hints[f.name]), f.default, learner=learner, **meta))
    return tuple(out)


def _plain_type(hint: Any) -> type:
    """int for ``int | None``, and so on."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
    return hint


def stored_names(options: tuple[Option, ...]) -> frozenset[str]:
    """The names of the options kept with an agent (not those of one run)."""
    return frozenset(o.name for o in options if not o.run)


def table(options: tuple[Option, ...]) -> list[str]:
    """A Markdown table of ``options`` (the manual's, docs/learners.md)."""
    rows = ["| option | values | default | what it does |", "|---|---|---|---|"]
    for o in options:
        flag = f"--{o.flag_name}/--{o.off_flag}" if o.type is bool and o.off != "" else f"--{o.flag_name}"
        kind = "on/off" if o.type is bool else o.range_text() or {int: "whole number", float: "number",
                                                                      str: "text"}[o.type]
        default = o.default_words() or "(see text)"
        rows.append(f"| `{flag}` | {kind} | {default} | {o.help.replace('|', '/')} |")
    return rows
