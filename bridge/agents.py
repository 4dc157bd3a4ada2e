"""Agents by name: the built-in choosers and learned agents from the knowledge base.

A learned agent is put into Prolog by its learner's loader (registered here
by learner name) and then plays as the chooser ``agent(Name)``.
"""
from __future__ import annotations

from typing import Callable

import sqlite_utils

from bridge.engine import BadInput, quote
from kb import store

# learner name -> function(db, agent_row) that loads the agent into Prolog
LOADERS: dict[str, Callable[[sqlite_utils.Database, dict], None]] = {}


def register_loader(learner: str):
    """Decorator: the function that loads agents of ``learner`` into Prolog."""
    def wrap(fn: Callable[[sqlite_utils.Database, dict], None]):
        LOADERS[learner] = fn
        return fn
    return wrap


def chooser(db: sqlite_utils.Database, game: str, name: str) -> str:
    """The Prolog chooser term for agent ``name`` playing ``game``; BadInput if unknown or of another game."""
    if name in store.BUILTIN_AGENTS:
        return name
    row = store.get_agent(db, name)
    if row is None:
        learned = [a["name"] for a in store.list_agents(db, game)]
        known = ", ".join(list(store.BUILTIN_AGENTS) + learned)
        raise BadInput(f"unknown agent '{name}' for {game} (known: {known})")
    if row["game"] != game:
        raise BadInput(f"agent '{name}' plays {row['game']}, not {game}")
    loader = LOADERS.get(row["learner"])
    if loader is None:
        raise BadInput(f"agent '{name}' was made by learner '{row['learner']}', which this educable does not know")
    loader(db, row)
    return f"agent({quote(name)})"
