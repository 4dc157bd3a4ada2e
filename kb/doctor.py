"""`educable doctor`: is the knowledge base file sound, and can educable read every row it holds?

Checks SQLite's own integrity, the schema version, every table and column the program needs, and
every row it would interpret (agents' parameters, learned values, members, rules, solved values
and stored graphs).  Each problem says what is wrong and how to repair it; `--repair` deletes what
can be recomputed (a damaged solved graph is rebuilt on next use) and leaves learned knowledge to
the user, since it cannot be recomputed.
"""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from educable.kb import store
from educable.kb.db import KBError, describe, read_only_uri
from educable.kb.schema import MIGRATIONS, VERSION
from educable.kb.store import finite_number, json_object, sql_text


@dataclass
class Problem:
    """One thing wrong, where, and how to repair it; ``repair`` is SQL that fixes it by deleting
    what educable can recompute (None when only the user can decide)."""

    where: str
    what: str
    how: str
    repair: str | None = None
    args: tuple = ()
    game: str | None = None       # a game whose solved graph the repair deletes (to be solved again)

    def line(self) -> str:
        return f"{self.where}: {self.what} — {self.how}"


def expected_schema() -> dict[str, set[str]]:
    """Every table and its columns, as the migrations make them."""
    conn = sqlite3.connect(":memory:")
    for script in MIGRATIONS:
        conn.executescript(script)
    return {t: {c[1] for c in conn.execute(f"PRAGMA table_info({t})")}
            for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def examine(path: Path, learners: Collection[str] | None = None,
            is_game: Callable[[str], bool] | None = None) -> list[Problem]:
    """Every problem found in the knowledge base at ``path`` (which must exist); with ``learners``
    (the learner names this educable knows) and ``is_game``, also agents that no learner or game
    of this educable can read."""
    try:
        conn = sqlite3.connect(read_only_uri(path), uri=True, timeout=5.0)
        verdict = conn.execute("PRAGMA integrity_check").fetchall()
    except sqlite3.DatabaseError as exc:
        if "locked" in str(exc) or "busy" in str(exc):     # sound, but another process is writing it
            raise KBError(describe(exc, path)) from None
        return [Problem(str(path), f"SQLite cannot read it ({exc})",
                        "restore a copy, try `sqlite3 FILE .recover`, or move it away to start afresh")]
    problems: list[Problem] = []
    if verdict != [("ok",)]:
        problems.append(Problem(str(path), f"SQLite's integrity check: {verdict[0][0]}",
                                "restore a copy or try `sqlite3 FILE .recover`; educable cannot repair it"))
        return problems
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > VERSION:
        return [Problem(str(path), f"schema {version}, newer than this educable's {VERSION}",
                        "use the newer educable that made it")]
    if version < VERSION:
        problems.append(Problem(str(path), f"schema {version} of {VERSION}",
                                "any educable command migrates it (nothing is lost)"))
        return problems
    have = {t: {c[1] for c in conn.execute(f"PRAGMA table_info({t})")}
            for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table, columns in expected_schema().items():
        if table not in have:
            problems.append(Problem(f"table {table}", "missing", "move the file away and start afresh "
                                    "(a table cannot be rebuilt with its rows)"))
        elif columns - have[table]:
            problems.append(Problem(f"table {table}", f"lacks columns {sorted(columns - have[table])}",
                                    "move the file away and start afresh"))
    if problems:
        return problems
    problems += _rows(conn)
    problems += _agents_known(conn, learners, is_game)
    return problems


def _agents_known(conn: sqlite3.Connection, learners: Collection[str] | None,
                  is_game: Callable[[str], bool] | None) -> list[Problem]:
    out: list[Problem] = []
    for name, game, learner in conn.execute("SELECT name, game, learner FROM agents"):
        delete = f"delete the agent (DELETE FROM agents WHERE name = {sql_text(name)})"  # noqa: S608  (a statement suggested in a message, never run; names quoted (sql_text))
        if learners is not None and learner not in learners:
            out.append(Problem(f"table agents, agent {name!r}", f"made by learner {learner!r}, which this educable "
                               f"does not know (known: {', '.join(sorted(learners))})",
                               f"fix the row, or {delete}"))
        elif is_game is not None and not is_game(game):
            out.append(Problem(f"table agents, agent {name!r}", f"plays {game!r}, which no loaded game file defines",
                               f"put the game's file back in a games folder (--games-dir), or {delete}"))
    return out


def _rows(conn: sqlite3.Connection) -> list[Problem]:
    out: list[Problem] = []
    for name, params, trained in conn.execute("SELECT name, params, games_trained FROM agents"):
        if json_object(params) is None or not isinstance(trained, int):
            out.append(Problem(f"table agents, agent {name!r}", "params is not a JSON object or games_trained "
                               "not a number", f"fix the row, or delete the agent (DELETE FROM agents WHERE name = "  # noqa: S608  (a statement suggested in a message, never run; names quoted (sql_text))
                               f"{sql_text(name)})"))
    for agent, position, move, value, visits, upper, vs_random in conn.execute(
            "SELECT agent, position, move, value, visits, upper, vs_random FROM learned_values"):
        if not store.value_row_ok(position, value, visits, upper, vs_random):
            out.append(Problem(f"table learned_values, agent {agent!r} position {position!r} move {move!r}",
                               f"value {value!r} / visits {visits!r} / upper {upper!r} / vs_random {vs_random!r} "
                               "are not numbers",
                               "fix the row, or delete it (the agent then knows nothing of that move)"))
    for agent, rank, weight, born in conn.execute("SELECT agent, rank, weight, born FROM members"):
        if not store.member_row_ok(rank, weight, born):
            out.append(Problem(f"table members, agent {agent!r} rank {rank!r}", "weight or born is not a number",
                               "fix the row, or delete the agent"))
    for agent, member, idx, pattern, action, priority, weight in conn.execute(
            "SELECT agent, member, idx, pattern, action, priority, weight FROM rules"):
        if not store.rule_row_ok(pattern, action, priority, weight):
            out.append(Problem(f"table rules, agent {agent!r} member {member} rule {idx}",
                               "not (text, text, integer, number)", "fix the row, or delete the agent"))
    for run, seed, boards, turns, geomean, seconds, moves in conn.execute(
            "SELECT id, seed, boards, turns, geomean, seconds, moves FROM race_runs"):
        if not (all(isinstance(x, int) for x in (seed, boards, turns))
                and all(x is None or finite_number(x) for x in (geomean, seconds, moves))):
            out.append(Problem(f"table race_runs, run {run!r}", "a field that should be a number is not",
                               f"fix the row, or delete the run (DELETE FROM race_runs WHERE id = {run!r})"))  # noqa: S608  (a statement suggested in a message, never run; the id is an integer)
    for run, board, score, genomes in conn.execute("SELECT run, board, score, genomes FROM race_boards"):
        try:
            ok = isinstance(score, int) and isinstance(json.loads(genomes), list)
        except (TypeError, ValueError):
            ok = False
        if not ok:
            out.append(Problem(f"table race_boards, run {run!r} board {board!r}",
                               "score is not a number or genomes not a JSON list", "fix the row, or delete the run"))
    for table, key, column in (("matches", "id", "moves"), ("runs", "id", "results"), ("sweeps", "id", "args"),
                               ("sweeps", "id", "grid"), ("sweep_runs", "rowid", "setting"),
                               ("sweep_runs", "rowid", "result")):
        for rid, text in conn.execute(f"SELECT {key}, {column} FROM {table}"):  # noqa: S608  (names in this SQL are fixed in this code; values are bound as ?)
            try:
                json.loads(text)
            except (TypeError, ValueError):
                out.append(Problem(f"table {table}, row {rid!r}", f"{column} is not JSON",
                                   f"fix the row, or delete it (DELETE FROM {table} WHERE {key} = {rid!r}); "  # noqa: S608  (a statement suggested in a message, never run; the id is an integer)
                                   "educable only writes these"))
    for game, players in conn.execute("SELECT name, players FROM games"):
        try:
            store.stored_players(game, players)
        except KBError:
            out.append(Problem(f"table games, game {game!r}", "players is not a JSON list of player names",
                               f"solve the game again (educable solve '{game}'), which writes the row anew"))
    for rid, results in conn.execute("SELECT id, results FROM tournaments"):
        problem = store.tournament_results_problem(json_object(results))
        if problem is not None:
            out.append(Problem(f"table tournaments, tournament {rid!r}", problem,
                               f"fix the row, or delete it (DELETE FROM tournaments WHERE id = {rid!r}); "  # noqa: S608  (a statement suggested in a message, never run; the id is an integer)
                               "educable only writes these"))
    for (agent,) in conn.execute("SELECT name FROM agents WHERE learner = 'ga' AND name NOT IN "
                                 "(SELECT agent FROM members)"):
        out.append(Problem(f"table agents, agent {agent!r}", "a rule-set population without members",
                           f"delete the agent (DELETE FROM agents WHERE name = {sql_text(agent)}) and evolve it again"))  # noqa: S608  (a statement suggested in a message, never run; names quoted (sql_text))
    for agent, params in conn.execute("SELECT name, params FROM agents WHERE learner = 'ntuple'"):
        for table, where, what in store.read_ntuple(conn, agent, json_object(params) or {})[2]:
            out.append(Problem(f"table {table}, {where}", what, "fix the row; or delete the agent (DELETE FROM "  # noqa: S608  (a statement suggested in a message, never run; names quoted (sql_text))
                               f"agents WHERE name = {sql_text(agent)}) and train it again"))
    for (agent,) in conn.execute("SELECT DISTINCT agent FROM ntuple_weights WHERE agent NOT IN "
                                 "(SELECT name FROM agents WHERE learner = 'ntuple')"):
        out.append(Problem(f"table ntuple_weights, agent {agent!r}", "weights of no n-tuple agent",
                           f"delete them (DELETE FROM ntuple_weights WHERE agent = {sql_text(agent)})"))  # noqa: S608  (a statement suggested in a message, never run; names quoted (sql_text))
    stale = set()
    for game, folded in conn.execute("SELECT DISTINCT game, folded FROM positions WHERE value NOT IN (-1, 0, 1)"):
        out.append(_stale_graph(game, folded, "a value that is not -1, 0 or 1"))
        stale.add((game, folded))
    for game, folded, nodes, edges, start, target, move in conn.execute(
            "SELECT game, folded, nodes, edges, start, target, move FROM graphs"):
        if not (isinstance(start, bytes) and isinstance(target, bytes) and isinstance(move, bytes)
                and len(start) == 8 * (nodes + 1) and len(target) == 4 * edges == len(move)):
            out.append(_stale_graph(game, folded, "arrays of the wrong size"))
        elif (game, folded) not in stale and not store.graph_row_readable(conn, game, folded):
            out.append(_stale_graph(game, folded, "arrays that do not fit together (an edge to no node, a "
                                    "move or value out of range)"))
    return out


def _stale_graph(game: str, folded: int, what: str) -> Problem:
    return Problem(f"the stored {'solved ' if folded else ''}graph of {game}", f"has {what}",
                   "--repair deletes it and solves the game again",
                   "DELETE FROM positions WHERE game = ? AND folded = ?; DELETE FROM graphs WHERE game = ? AND "
                   "folded = ?; DELETE FROM games WHERE name = ?", (game, folded, game, folded, game), game)


def repair(path: Path, problems: list[Problem]) -> int:
    """Apply the repairs that delete recomputable data, in one transaction; how many were applied."""
    fixable = [p for p in problems if p.repair]
    if not fixable:
        return 0
    conn = sqlite3.connect(path, timeout=5.0, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    try:
        for p in fixable:
            statements = (p.repair or "").split("; ")
            args = list(p.args)
            for sql in statements:
                n = sql.count("?")
                conn.execute(sql, args[:n])
                args = args[n:]
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:        # SQLite rolls back by itself on some errors (a full disk)
            conn.execute("ROLLBACK")
        raise
    return len(fixable)
