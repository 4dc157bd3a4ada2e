"""Reading and writing the knowledge base: games, positions, agents, values, runs, matches.

Every function that writes does so in one transaction.
"""
from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Iterable

import sqlite_utils

from kb.db import transaction
from learners.graph import DRAW, ONGOING, StateGraph

BUILTIN_AGENTS = ("random", "minimax")


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def result_name(graph: StateGraph, state: int) -> str | None:
    w = int(graph.winner[state])
    return None if w == ONGOING else "draw" if w == DRAW else graph.players[w]


def exact_name(graph: StateGraph, state: int) -> str:
    v = int(graph.value[state])
    mover = int(graph.mover[state])
    return "draw" if v == 0 else graph.players[mover if v > 0 else 1 - mover]


def store_graph(db: sqlite_utils.Database, graph: StateGraph) -> dict[str, Any]:
    """Replace the game's positions and moves with ``graph`` and its exact values; return the game's summary."""
    positions = [
        (graph.game, i, graph.keys[i], graph.canonical[i], graph.players[int(graph.mover[i])],
         result_name(graph, i), int(graph.value[i]), exact_name(graph, i))
        for i in range(graph.size)
    ]
    moves = [
        (graph.game, graph.keys[s], graph.move_text[e], graph.keys[int(graph.target[e])])
        for s in range(graph.size) for e in graph.edges(s)
    ]
    summary = {
        "game": graph.game,
        "players": graph.players,
        "positions": graph.size,
        "terminal": int((graph.winner != ONGOING).sum()),
        "classes": len(set(graph.canonical)),
        "winner": None if exact_name(graph, 0) == "draw" else exact_name(graph, 0),
    }
    with transaction(db):
        conn = db.conn
        conn.execute("DELETE FROM moves WHERE game = ?", (graph.game,))
        conn.execute("DELETE FROM positions WHERE game = ?", (graph.game,))
        conn.execute(
            "INSERT OR REPLACE INTO games (name, players, positions, terminal, classes, winner, solved_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (graph.game, json.dumps(graph.players), summary["positions"], summary["terminal"],
             summary["classes"], exact_name(graph, 0), now()))
        conn.executemany("INSERT INTO positions VALUES (?, ?, ?, ?, ?, ?, ?, ?)", positions)
        conn.executemany("INSERT INTO moves VALUES (?, ?, ?, ?)", moves)
    return summary


def game_summary(db: sqlite_utils.Database, game: str) -> dict[str, Any] | None:
    """The stored summary of a solved game, or None."""
    rows = list(db.query("SELECT * FROM games WHERE name = ?", [game]))
    if not rows:
        return None
    row = rows[0]
    return {"game": row["name"], "players": json.loads(row["players"]), "positions": row["positions"],
            "terminal": row["terminal"], "classes": row["classes"],
            "winner": None if row["winner"] == "draw" else row["winner"], "solved_at": row["solved_at"]}


INSERT_MATCH = ("INSERT INTO matches (game, first, second, moves, result, source, played_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)")


def record_match(db: sqlite_utils.Database, game: str, first: str, second: str,
                 moves: list[str], result: str | None, source: str) -> int:
    """Store one game played; returns its id."""
    with transaction(db):
        cur = db.conn.execute(INSERT_MATCH, (game, first, second, json.dumps(moves), result, source, now()))
    return int(cur.lastrowid)


def record_series(db: sqlite_utils.Database, game: str, first: str, second: str,
                  counts: dict[str, int], source: str) -> None:
    """Store a series' results (one row a result, moves not kept) in one transaction."""
    rows = [(game, first, second, json.dumps({"games": n}), result, source, now()) for result, n in counts.items()]
    with transaction(db):
        db.conn.executemany(INSERT_MATCH, rows)


def get_agent(db: sqlite_utils.Database, name: str) -> dict[str, Any] | None:
    """An agent's row with params decoded, or None."""
    rows = list(db.query("SELECT * FROM agents WHERE name = ?", [name]))
    if not rows:
        return None
    row = dict(rows[0])
    row["params"] = json.loads(row["params"])
    return row


def list_agents(db: sqlite_utils.Database, game: str | None = None) -> list[dict[str, Any]]:
    """Every agent (of ``game`` if given), oldest first."""
    sql = "SELECT * FROM agents" + (" WHERE game = ?" if game else "") + " ORDER BY created, name"
    out = []
    for row in db.query(sql, [game] if game else []):
        row = dict(row)
        row["params"] = json.loads(row["params"])
        out.append(row)
    return out


def save_agent(db: sqlite_utils.Database, name: str, game: str, learner: str, params: dict[str, Any],
               values: Iterable[tuple[str, str, float, int]], games_added: int,
               run: dict[str, Any] | None = None) -> None:
    """Create or update an agent and replace its learned values, in one transaction.

    ``values`` rows are (position, move, value, visits); ``run`` (optional) is
    recorded in the runs table.
    """
    with transaction(db):
        conn = _upsert_agent(db, name, game, learner, params, games_added, run)
        conn.execute("DELETE FROM learned_values WHERE agent = ?", (name,))
        conn.executemany("INSERT INTO learned_values (agent, position, move, value, visits) VALUES (?, ?, ?, ?, ?)",
                         ((name, p, m, float(v), int(n)) for p, m, v, n in values))


def save_rule_sets(db: sqlite_utils.Database, name: str, game: str, learner: str, params: dict[str, Any],
                   members: list[tuple[float, int, list[tuple[str, str, int, float]]]], games_added: int,
                   run: dict[str, Any] | None = None) -> None:
    """Create or update a rule-set agent (a population, best first) in one transaction.

    ``members`` are (weight, born, rules) with rules (pattern, action, priority, weight).
    """
    with transaction(db):
        conn = _upsert_agent(db, name, game, learner, params, games_added, run)
        conn.execute("DELETE FROM members WHERE agent = ?", (name,))
        conn.executemany("INSERT INTO members (agent, rank, weight, born) VALUES (?, ?, ?, ?)",
                         ((name, k, float(w), int(b)) for k, (w, b, _) in enumerate(members, 1)))
        conn.executemany(
            "INSERT INTO rules (agent, member, idx, pattern, action, priority, weight) VALUES (?, ?, ?, ?, ?, ?, ?)",
            ((name, k, i, p, a, int(pr), float(w))
             for k, (_, _, rules) in enumerate(members, 1) for i, (p, a, pr, w) in enumerate(rules)))


def load_members(db: sqlite_utils.Database, agent: str) -> list[dict[str, Any]]:
    """A rule-set agent's members, best first: rank, weight, born."""
    return [dict(r) for r in db.query("SELECT rank, weight, born FROM members WHERE agent = ? ORDER BY rank", [agent])]


def load_rules(db: sqlite_utils.Database, agent: str, member: int | None = None) -> list[tuple[int, str, str, int, float]]:
    """Rules as (member, pattern, action, priority, weight), by member then place; one member if given."""
    sql = "SELECT member, pattern, action, priority, weight FROM rules WHERE agent = ?"
    args: list[Any] = [agent]
    if member is not None:
        sql += " AND member = ?"
        args.append(member)
    return [tuple(r) for r in db.execute(sql + " ORDER BY member, idx", args)]


def _upsert_agent(db: sqlite_utils.Database, name: str, game: str, learner: str, params: dict[str, Any],
                  games_added: int, run: dict[str, Any] | None) -> Any:
    """Inside a transaction: create the agent or add to its games, and record ``run``; the connection."""
    conn = db.conn
    existing = conn.execute("SELECT games_trained FROM agents WHERE name = ?", (name,)).fetchone()
    if existing is None:
        conn.execute(
            "INSERT INTO agents (name, game, learner, params, games_trained, created, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (name, game, learner, json.dumps(params, sort_keys=True), games_added, now(), now()))
    else:
        conn.execute("UPDATE agents SET params = ?, games_trained = ?, updated = ? WHERE name = ?",
                     (json.dumps(params, sort_keys=True), existing[0] + games_added, now(), name))
    if run is not None:
        conn.execute(
            "INSERT INTO runs (agent, learner, games, seconds, params, results, started) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (name, learner, run["games"], run["seconds"], json.dumps(params, sort_keys=True),
             json.dumps(run.get("results", {})), run.get("started", now())))
    return conn


def load_values(db: sqlite_utils.Database, agent: str) -> list[tuple[str, str, float, int]]:
    """An agent's learned values as (position, move, value, visits)."""
    return [tuple(r) for r in db.execute(
        "SELECT position, move, value, visits FROM learned_values WHERE agent = ? ORDER BY position, move", [agent])]
