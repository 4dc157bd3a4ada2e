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
    out = [game_row(db, g) for g in games.games()]
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


def game_row(db: sqlite_utils.Database | None, g: str) -> dict[str, Any]:
    """``games``'s row of one game: its players and start and, if solved, the stored summary; or
    ``broken`` saying why it cannot start."""
    why = games.unplayable(g)
    if why is not None:
        return {"game": g, "broken": f"{why} (educable check '{g}' says more)"}
    try:
        row: dict[str, Any] = {"game": g, "players": games.players(g), "initial": games.initial(g).key}
    except (LookupError, BadInput, PrologError) as exc:
        return {"game": g, "broken": f"its players/2 or initial/3 is missing or fails ({exc})"}
    summary = store.game_summary(db, g, games.rules_hash(g)) if db is not None else None
    chanced = store.stored_chance_summary(db, g, games.rules_hash(g)) if db is not None and summary is None else None
    row["solved"] = summary is not None or chanced is not None
    if summary:
        row.update({k: summary[k] for k in ("positions", "terminal", "classes", "winner")})
    if chanced:                 # a game of chance or of score: its value, not a winner
        row.update(chanced, classes=None, winner=None)
    return row
