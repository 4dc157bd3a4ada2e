"""The games listing (`educable games`, the page's home, ``educable.games()``): each game the game files
name with its players, its start and what the knowledge base holds solved of it.

Kept apart from bridge/commands.py so that listing the games needs neither numpy nor the solvers:
the game files through the bridge, and the stored summaries (kb/store.py).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from educable.bridge import games
from educable.bridge.engine import BadInput, PrologError, engine
from educable.kb import store

if TYPE_CHECKING:
    import sqlite_utils  # in annotations only: kb.db imports it when a database is opened


def list_games(db: sqlite_utils.Database | None = None) -> list[dict[str, Any]]:
    """Every game the game files name (rules/games/ and the user's folders) with its players and, if
    solved, its stored summary; then each other member of a family (connect(3,5,4), pig(12,6)) the
    knowledge base holds solved from these rule files.  A game file that did not load, or a game that
    cannot start, is listed with ``broken`` saying why."""
    names = games.games()
    facts = games.catalog(names)
    out = [game_row(db, g, facts.get(g)) for g in names]
    listed = {row["game"] for row in out}
    for g in store.solved_game_names(db) if db is not None else []:
        if g in listed:
            continue
        try:                        # a row's name: listed only if these rule files still define that game
            games.check_game(g)
        except (BadInput, LookupError, PrologError):
            continue
        row = game_row(db, g)
        if row.get("solved"):       # (solved from other rule files: stale, not listed)
            out.append(row)
    for path, message in engine().broken.items():
        out.append({"game": Path(path).stem, "file": path, "broken": message})
    return out


def game_row(db: sqlite_utils.Database | None, g: str, facts: dict[str, Any] | None = None) -> dict[str, Any]:
    """``games``'s row of one game: its players and start and, if solved, the stored summary (of a game
    of hidden information, its equilibrium's value); or ``broken`` saying why it cannot start.
    ``facts``: games.catalog's of it, where asked already."""
    if facts is None:
        why = games.unplayable(g)
        facts = {"unplayable": why} if why is not None else {}
    if "unplayable" in facts:
        return {"game": g, "broken": f"{facts['unplayable']} (educable check '{g}' says more)"}
    try:
        row: dict[str, Any] = {"game": g, "players": facts.get("players") or games.players(g),
                               "initial": facts.get("initial") or games.initial(g).key}
    except (LookupError, BadInput, PrologError) as exc:
        return {"game": g, "broken": f"its players/2 or initial/3 is missing or fails ({exc})"}
    digest = games.rules_hash(g) if db is not None else ""
    summary = store.game_summary(db, g, digest) if db is not None else None
    chanced = store.stored_chance_summary(db, g, digest) if db is not None and summary is None else None
    if db is not None and summary is None and chanced is None:
        from educable.kb.equilibria import equilibrium_summary
        balanced = equilibrium_summary(db, g, digest)
        if balanced is not None:
            row.update(solved=True, hidden=True, positions=balanced["positions"], classes=None, winner=None,
                       information_sets=balanced["information_sets"], value=balanced["value"])
            return row
    row["solved"] = summary is not None or chanced is not None
    if summary:
        row.update({k: summary[k] for k in ("positions", "terminal", "classes", "winner")})
    if chanced:                 # a game of chance or of score: its value, not a winner
        row.update(chanced, classes=None, winner=None)
    return row
