"""A learner's options and existing agent, checked, with one-line errors."""
from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from educable.bridge.engine import BadInput
from educable.kb import store

if TYPE_CHECKING:
    import sqlite_utils  # in annotations only: kb.db imports it when a database is opened

T = TypeVar("T", bound="Checked")


class Checked(Protocol):
    """An options dataclass: its check() validates it and fills in what follows from the rest."""

    def check(self) -> Any: ...


def option_names(cls: type) -> frozenset[str]:
    """The option names of an options dataclass."""
    return frozenset(f.name for f in fields(cls))


def checked(cls: type[T], params: dict[str, Any], learner: str) -> T:
    """``cls(**params).check()``; BadInput names an unknown or bad option."""
    unknown = set(params) - option_names(cls)
    if unknown:
        raise BadInput(f"unknown {learner} option(s): {', '.join(sorted(unknown))}")
    try:
        return cls(**params).check()
    except (TypeError, ValueError) as exc:
        raise BadInput(str(exc)) from None


def existing_agent(db: sqlite_utils.Database, name: str, game: str, learner: str) -> dict | None:
    """Agent ``name``'s row if it exists (None if new); BadInput if another learner made it or it plays another game."""
    row = store.get_agent(db, name)
    if row is None:
        return None
    if row["learner"] != learner:
        raise BadInput(f"agent '{name}' was made by learner '{row['learner']}', not '{learner}'")
    if row["game"] != game:
        raise BadInput(f"agent '{name}' plays {row['game']}, not {game}")
    return row
