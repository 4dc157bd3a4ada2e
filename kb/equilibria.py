"""Games of hidden information in the knowledge base: each game's equilibrium (its value, how it was
found, every information set's strategy and move values) and the CFR+ tables of `cfr` agents.

Rows are read as hostile: a probability that is no number, outside [0, 1], or a set whose
probabilities do not add up to 1 (a row edited by hand) is a KBError in one line, and nothing is used.
"""
from __future__ import annotations

import io
import json
import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from educable.kb.db import KBError, transaction
from educable.kb.store import now

if TYPE_CHECKING:
    import numpy as np
    import sqlite_utils

SUM_TOLERANCE = 1e-6       # how far a set's stored probabilities may add up from 1


def save_equilibrium(db: sqlite_utils.Database, game: str, rules_hash: str, summary: dict[str, Any],
                     rows: Iterable[tuple[str, str, str, float, float | None]]) -> None:
    """Store (replacing) a game's equilibrium: ``summary`` (players, positions, information_sets,
    value, exploitability, method, seconds) and its rows (player, information set, move, probability,
    value or None)."""
    with transaction(db):
        conn = db.conn
        conn.execute("DELETE FROM equilibria WHERE game = ?", (game,))
        conn.execute("INSERT INTO equilibria (game, rules_hash, players, positions, information_sets, value, "
                     "exploitability, method, seconds, solved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     (game, rules_hash, json.dumps(summary["players"]), summary["positions"],
                      summary["information_sets"], summary["value"], summary["exploitability"],
                      summary["method"], summary["seconds"], now()))
        conn.executemany("INSERT INTO equilibrium_moves (game, player, information_set, move, probability, value) "
                         "VALUES (?, ?, ?, ?, ?, ?)", ((game, *r) for r in rows))


def equilibrium_summary(db: sqlite_utils.Database, game: str, rules_hash: str) -> dict[str, Any] | None:
    """The stored equilibrium's summary for these rules, or None; KBError for a row that is no number."""
    row = db.conn.execute("SELECT players, positions, information_sets, value, exploitability, method, seconds "
                          "FROM equilibria WHERE game = ? AND rules_hash = ?", (game, rules_hash)).fetchone()
    if row is None:
        return None
    players, positions, sets, value, exploit, method, seconds = row
    if not all(_number(x) for x in (positions, sets, value, exploit, seconds)):
        raise KBError(f"the knowledge base's equilibrium of {game} holds a value that is no number (edited by "
                      "hand?): delete its row of the equilibria table and solve it again")
    try:
        names = json.loads(players)
    except (TypeError, ValueError):
        names = None
    return {"players": names, "positions": positions, "information_sets": sets, "value": value,
            "exploitability": exploit, "method": method, "seconds": seconds}


def information_set(db: sqlite_utils.Database, game: str, view: str,
                    player: str | None = None) -> list[tuple[str, str, float, float | None]]:
    """The stored equilibrium's rows of the information sets named ``view`` (of ``player`` if given):
    (player, move, probability, value), checked."""
    sql = "SELECT player, move, probability, value FROM equilibrium_moves WHERE game = ? AND information_set = ?"
    args: list[Any] = [game, view]
    if player is not None:
        sql += " AND player = ?"
        args.append(player)
    rows = [tuple(r) for r in db.conn.execute(sql + " ORDER BY player, rowid", args)]
    by_player: dict[str, list] = {}
    for r in rows:
        by_player.setdefault(r[0], []).append(r)
    for who, mine in by_player.items():
        check_probabilities(f"the equilibrium of {game}", who, view, [(m, p) for _, m, p, _ in mine])
        for _, move, _, value in mine:
            if value is not None and not _number(value):
                raise KBError(f"the equilibrium of {game}: {who}'s set {view!r} move {move!r} has the value "
                              f"{value!r}, no number (edited by hand?)")
    return rows


def check_probabilities(what: str, player: str, view: str, moves: list[tuple[str, Any]]) -> None:
    """KBError in one line unless every probability is a number in [0, 1] and they add up to 1."""
    for move, p in moves:
        if not _number(p) or not 0.0 <= float(p) <= 1.0:
            raise KBError(f"{what}: {player}'s information set {view!r} gives move {move!r} the probability "
                          f"{p!r}, not a number from 0 to 1 (edited by hand?)")
    total = sum(float(p) for _, p in moves)
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise KBError(f"{what}: {player}'s information set {view!r} has probabilities adding up to {total:.6g}, "
                      "not 1 (edited by hand?)")


def save_cfr(db: sqlite_utils.Database, agent: str, game: str, params: dict[str, Any], rules_hash: str,
             rows: Iterable[tuple[str, str, float]], regret: np.ndarray, total: np.ndarray, iterations: int,
             run: dict[str, Any] | None, points: list[tuple[int, float]], started: str) -> None:
    """Store a `cfr` agent: its average strategy as learned values (the set's view, prefixed by the
    player, the move, the probability), its CFR+ tables (to continue), its run (None: a commit of a run
    still going, whose curve the page draws live) and its curve (the exploitability after each number of
    iterations of the run that began at ``started``)."""
    import numpy as np

    from educable.kb.store import _upsert_agent
    buffer = io.BytesIO()
    np.savez_compressed(buffer, regret=regret, total=total)
    with transaction(db):
        conn = _upsert_agent(db, agent, game, "cfr", params, 0, run)
        conn.execute("UPDATE agents SET games_trained = ? WHERE name = ?", (iterations, agent))
        conn.execute("DELETE FROM learned_values WHERE agent = ?", (agent,))
        conn.executemany("INSERT INTO learned_values (agent, position, move, value, visits) VALUES (?, ?, ?, ?, 0)",
                         ((agent, *r) for r in rows))
        conn.execute("DELETE FROM cfr_tables WHERE agent = ?", (agent,))
        conn.execute("INSERT INTO cfr_tables (agent, rules_hash, iterations, data) VALUES (?, ?, ?, ?)",
                     (agent, rules_hash, iterations, buffer.getvalue()))
        conn.executemany("INSERT OR REPLACE INTO curve_points (agent, started, games, lost, draws, at, strength) "
                         "VALUES (?, ?, ?, 0, 0, ?, ?)",
                         ((agent, started, n, now(), json.dumps({"exploitability": e})) for n, e in points))


def load_cfr(db: sqlite_utils.Database, agent: str, rules_hash: str, slots: int) -> tuple[Any, Any, int] | None:
    """A `cfr` agent's CFR+ tables (regret, total, iterations) if stored for these rules and this many
    slots, else None (a later run then starts afresh)."""
    import numpy as np

    row = db.conn.execute("SELECT rules_hash, iterations, data FROM cfr_tables WHERE agent = ?", (agent,)).fetchone()
    if row is None or row[0] != rules_hash or not isinstance(row[2], bytes):
        return None
    try:
        with np.load(io.BytesIO(row[2]), allow_pickle=False) as data:
            regret, total = data["regret"], data["total"]
    except (OSError, ValueError, KeyError):
        return None
    if regret.shape != (slots,) or total.shape != (slots,) or not (np.isfinite(regret).all() and np.isfinite(total).all()):
        return None
    return regret.astype(np.float64), total.astype(np.float64), int(row[1])


def strategy_rows(db: sqlite_utils.Database, agent: str) -> dict[tuple[str, str], list[tuple[str, Any]]]:
    """A `cfr` agent's stored strategy: (player, view) -> [(move, probability)], every set checked."""
    out: dict[tuple[str, str], list[tuple[str, Any]]] = {}
    for position, move, value in db.conn.execute("SELECT position, move, value FROM learned_values WHERE agent = ? "
                                                 "ORDER BY rowid", (agent,)):
        player, _, view = str(position).partition(" | ")
        out.setdefault((player, view), []).append((move, value))
    for (player, view), moves in out.items():
        check_probabilities(f"agent {agent!r}", player, view, moves)
    return out


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
