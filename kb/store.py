"""Reading and writing the knowledge base: games, positions, agents, values, runs, matches.

Every function that writes does so in one transaction.
"""
from __future__ import annotations

import io
import json
import math
import zipfile
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from educable.kb.db import KBError, transaction
from educable.learners.graph import CHANCE, DRAW, ONGOING, SCORED, StateGraph

if TYPE_CHECKING:                   # numpy imported where arrays are made: listing games needs none
    import numpy as np
    import sqlite_utils  # in annotations only: kb.db imports it when a database is opened

BUILTIN_AGENTS = ("random", "minimax")

# an n-tuple weight's row: tuple, pattern, weight, and its temporal-coherence sums (None without them)
WeightRow = tuple[int, str, float, float | None, float | None]
CurvePoint = tuple[str, int, int, int, "dict | None"]   # (run started, games so far, lost, draws, strength)


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def result_name(graph: StateGraph, state: int) -> str | None:
    w = int(graph.winner[state])
    return None if w == ONGOING else "draw" if w == DRAW else graph.players[w]


def exact_name(graph: StateGraph, state: int) -> str:
    v = int(graph.value[state])
    mover = int(graph.mover[state])
    return "draw" if v == 0 else graph.players[mover if v > 0 else 1 - mover]


def save_graph(db: sqlite_utils.Database, graph: StateGraph, rules_hash: str, seconds: float,
               summary: bool) -> dict[str, Any]:
    """Replace the stored graph of ``graph.game`` (folded or not) with ``graph`` and its exact values.

    With ``summary`` it is the game's solved graph: the games row gets its
    counts and winner.  Returns the game's summary.
    """
    import numpy as np
    folded = int(graph.folded)
    players = graph.players
    mover, winner, value, orbit = (a.tolist() for a in (graph.mover, graph.winner, graph.value, graph.orbit))

    def rows() -> Iterable[tuple]:
        for i, key in enumerate(graph.keys):
            w, v, m = winner[i], value[i], mover[i]
            result = None if w == ONGOING else "draw" if w == DRAW else players[w]
            exact = "draw" if v == 0 else players[m if v > 0 else 1 - m]
            yield graph.game, folded, i, key, players[m], result, v, exact, orbit[i]

    out = {"game": graph.game, "players": players, "positions": graph.positions, "terminal": graph.terminal,
           "classes": graph.size if graph.folded else None, "winner": None if exact_name(graph, 0) == "draw"
           else exact_name(graph, 0), "nodes": graph.size, "edges": int(len(graph.target))}
    # a graph for judging and training only: nodes as arrays, not rows (keys joined by newlines)
    packed = not summary and not any("\n" in k for k in graph.keys)
    keys = "\n".join(graph.keys).encode() if packed else None
    nodes = np.stack([graph.mover, graph.winner, graph.value]).T.astype("<i1").tobytes() if packed else None
    with transaction(db):
        conn = db.conn
        _replace_graph_row(conn, graph, rules_hash, seconds, keys, nodes)
        if not packed:
            conn.executemany("INSERT INTO positions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows())
        if summary:
            conn.execute(
                "INSERT OR REPLACE INTO games (name, players, positions, terminal, classes, winner, solved_at, "
                "rules_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (graph.game, json.dumps(players), out["positions"], out["terminal"], out["classes"],
                 exact_name(graph, 0), now(), rules_hash))
    return out


GRAPH_ROW = ("SELECT rules_hash, moves, start, target, move, keys, node_data, chance_data, solution FROM graphs "
             "WHERE game = ? AND folded = ?")


def load_graph(db: sqlite_utils.Database, game: str, players: list[str], folded: bool,
               rules_hash: str) -> StateGraph | None:
    """The stored graph, or None when there is none or its game file has changed since."""
    row = db.execute(GRAPH_ROW, [game, int(folded)]).fetchone()
    if row is None or row[0] != rules_hash:
        return None
    try:
        graph = _graph_from_row(row, game, players, folded, db)
    except (ValueError, KeyError, TypeError, OverflowError, UnicodeDecodeError, OSError, EOFError, zipfile.BadZipFile):
        return None                # damaged by hand: stale, like a changed game file, and rebuilt
    return graph if _consistent(graph) else None


def graph_row_readable(conn: Any, game: str, folded: int) -> bool:
    """Whether the stored graph of ``game`` reads back whole, as load_graph would read it (doctor's
    check; the players come from the games row, or the positions' movers)."""
    row = conn.execute(GRAPH_ROW, [game, int(folded)]).fetchone()
    names = conn.execute("SELECT players FROM games WHERE name = ?", [game]).fetchone()
    try:
        players = stored_players(game, names[0]) if names else sorted(
            {m for (m,) in conn.execute("SELECT DISTINCT mover FROM positions WHERE game = ?", [game])})
        return row is not None and _consistent(_graph_from_row(row, game, players, bool(folded), conn))
    except (ValueError, KeyError, TypeError, OverflowError, UnicodeDecodeError, IndexError, KBError, OSError,
            EOFError, zipfile.BadZipFile):
        return False


def _consistent(graph: StateGraph) -> bool:
    """The arrays of a graph read back fit together (a hand-edited row may not)."""
    import numpy as np
    n, e = graph.size, len(graph.target)
    edges = (len(graph.start) == n + 1 and int(graph.start[0]) == 0 and int(graph.start[-1]) == e
             and bool((np.diff(graph.start) >= 0).all()) and len(graph.move) == e
             and (e == 0 or (0 <= int(graph.target.min()) and int(graph.target.max()) < n
                             and 0 <= int(graph.move.min()) and int(graph.move.max()) < len(graph.moves)))
             and len(graph.mover) == len(graph.winner) == len(graph.orbit) == n)
    if graph.solution is not None:             # a game of chance or of score
        win = graph.solution.win
        return (edges and _finite(graph.solution.value, n) and (win is None or _finite(win, n))
                and (graph.prob is None or (_finite(graph.prob, e) and bool(((graph.prob >= 0) & (graph.prob <= 1)).all())))
                and (graph.reward is None or _finite(graph.reward, e)) and (graph.score is None or _finite(graph.score, n))
                and bool(np.isin(graph.mover, (0, 1, CHANCE)).all())
                and bool(np.isin(graph.winner, (ONGOING, 0, 1, DRAW, SCORED)).all()))
    return (edges and len(graph.value) == n
            and bool(np.isin(graph.value, (-1, 0, 1)).all()) and bool(np.isin(graph.mover, (0, 1)).all())
            and bool(np.isin(graph.winner, (ONGOING, 0, 1, DRAW)).all()))


def _finite(array: np.ndarray, length: int) -> bool:
    import numpy as np
    return len(array) == length and bool(np.isfinite(array).all())


def _graph_from_row(row: Any, game: str, players: list[str], folded: bool, db: sqlite_utils.Database) -> StateGraph:
    import numpy as np
    pidx = {p: i for i, p in enumerate(players)}
    if row[5] is not None:
        keys = row[5].decode().split("\n")
        nodes = np.frombuffer(row[6], "<i1").reshape(-1, 3)
        mover, winner, value = (nodes[:, k].astype(np.int8) for k in range(3))
        orbit = np.ones(len(keys), dtype=np.int64)
    else:
        rows = db.execute("SELECT key, mover, result, value, orbit FROM positions WHERE game = ? AND folded = ? "
                          "ORDER BY id", [game, int(folded)]).fetchall()
        n = len(rows)
        keys = [r[0] for r in rows]
        mover = np.fromiter((pidx[r[1]] for r in rows), np.int8, n)
        winner = np.fromiter((ONGOING if r[2] is None else DRAW if r[2] == "draw" else pidx[r[2]] for r in rows),
                             np.int8, n)
        value = np.fromiter((r[3] for r in rows), np.int8, n)
        orbit = np.fromiter((r[4] for r in rows), np.int64, n)
    graph = StateGraph(
        game, list(players), keys, mover, winner,
        np.frombuffer(row[2], "<i8").astype(np.int64), np.frombuffer(row[3], "<i4").astype(np.int64),
        np.frombuffer(row[4], "<i4").astype(np.int32), json.loads(row[1]), orbit, folded)
    if row[7] is not None:
        _read_chance(graph, row[7], row[8])
    else:
        graph.value = value
    return graph


CHANCE_ARRAYS = ("prob", "reward", "score", "orbit", "value", "win")     # chance_data's arrays (an empty one: None)


def save_chance_graph(db: sqlite_utils.Database, graph: StateGraph, rules_hash: str, seconds: float) -> None:
    """Replace the stored graph of a game of chance or of score with ``graph`` and its solution
    (``graph.solution``, learners.chance.solve's): nodes packed, the chance arrays as an .npz.  Keys
    with a line break in them cannot be packed: such a graph is not stored (solved again when asked)."""
    import numpy as np
    if any("\n" in k for k in graph.keys):
        return
    buffer = io.BytesIO()
    empty = np.zeros(0)
    np.savez(buffer, prob=empty if graph.prob is None else graph.prob.astype("<f8"),
             reward=empty if graph.reward is None else graph.reward.astype("<f8"),
             score=empty if graph.score is None else graph.score.astype("<f8"),
             orbit=graph.orbit.astype("<i8"), value=graph.solution.value.astype("<f8"),
             win=empty if graph.solution.win is None else graph.solution.win.astype("<f8"))
    how = {k: getattr(graph.solution, k) for k in ("parts", "largest", "cyclic_parts", "sweeps", "most_sweeps",
                                                    "tolerance")}
    how.update(value=float(graph.solution.value[0]), win_probability=graph.solution.win_probability(graph),
               draw_probability=graph.solution.draw_probability(graph),
               exact_parts=graph.solution.exact_parts, improvements=graph.solution.improvements)
    nodes = np.stack([graph.mover, graph.winner, np.zeros(graph.size, np.int8)]).T.astype("<i1").tobytes()
    with transaction(db):
        _replace_graph_row(db.conn, graph, rules_hash, seconds, "\n".join(graph.keys).encode(), nodes,
                           buffer.getvalue(), json.dumps(how))


def _replace_graph_row(conn: Any, graph: StateGraph, rules_hash: str, seconds: float, keys: bytes | None,
                       nodes: bytes | None, chance_data: bytes | None = None, solution: str | None = None) -> None:
    """The graphs row of ``graph`` (its positions rows dropped), in the caller's transaction."""
    folded = int(graph.folded)
    conn.execute("DELETE FROM positions WHERE game = ? AND folded = ?", (graph.game, folded))
    conn.execute("DELETE FROM graphs WHERE game = ? AND folded = ?", (graph.game, folded))
    conn.execute(
        "INSERT INTO graphs (game, folded, rules_hash, nodes, edges, positions, terminal, moves, start, target, "
        "move, seconds, built_at, keys, node_data, chance_data, solution) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (graph.game, folded, rules_hash, graph.size, int(len(graph.target)), graph.positions, graph.terminal,
         json.dumps(graph.moves), graph.start.astype("<i8").tobytes(), graph.target.astype("<i4").tobytes(),
         graph.move.astype("<i4").tobytes(), round(seconds, 4), now(), keys, nodes, chance_data, solution))


def stored_chance_summary(db: sqlite_utils.Database, game: str, rules_hash: str) -> dict[str, Any] | None:
    """What the stored solution of a game of chance or of score says of its start (positions, terminal,
    value, the first player's chance of winning where there are no draws); None when there is none
    for these rule files, or its row is damaged."""
    row = db.execute("SELECT positions, terminal, solution FROM graphs WHERE game = ? AND rules_hash = ? "
                     "AND chance_data IS NOT NULL ORDER BY folded LIMIT 1", [game, rules_hash]).fetchone()
    if row is None:
        return None
    try:
        how = json.loads(row[2])
        value, chance = float(how["value"]), how["win_probability"]
        how["exact_parts"]                  # noqa: B018  (a solution from before cycles were solved exactly: none)
    except (TypeError, ValueError, KeyError):
        return None
    if not (isinstance(row[0], int) and isinstance(row[1], int) and math.isfinite(value)
            and (chance is None or isinstance(chance, (int, float)))):
        return None
    draw = how.get("draw_probability")
    if not (draw is None or (isinstance(draw, (int, float)) and 0 <= draw <= 1)):
        return None
    return {"positions": row[0], "terminal": row[1], "value": value, "win_probability": chance, "draw_probability": draw}


def solved_game_names(db: sqlite_utils.Database) -> list[str]:
    """The names of every game the knowledge base holds a solution of (a solved game, or the solved graph
    of a game of chance or of score), from whatever rule files, sorted."""
    rows = db.execute("SELECT name FROM games UNION SELECT game FROM graphs WHERE chance_data IS NOT NULL "
                      "ORDER BY 1").fetchall()
    return [name for (name,) in rows if isinstance(name, str)]


def has_chance_graph(db: sqlite_utils.Database, game: str, rules_hash: str) -> bool:
    """Whether the knowledge base holds the solved graph of every state of ``game``, a game of chance or
    of score, from these rule files."""
    return db.execute("SELECT 1 FROM graphs WHERE game = ? AND folded = 0 AND rules_hash = ? "
                      "AND chance_data IS NOT NULL", [game, rules_hash]).fetchone() is not None


def _read_chance(graph: StateGraph, blob: bytes, solution: str) -> None:
    """The chance arrays and solution save_chance_graph stored, onto ``graph`` (ValueError and the like
    for a damaged row)."""
    import numpy as np

    from educable.learners.chance import ChanceSolution
    with zipfile.ZipFile(io.BytesIO(blob)) as packed:      # as np.savez writes it: stored, not compressed
        if any(m.compress_type != zipfile.ZIP_STORED or m.file_size > len(blob) for m in packed.infolist()):
            raise ValueError("chance_data is not as educable writes it")
    with np.load(io.BytesIO(blob), allow_pickle=False) as stored:
        arrays = {k: np.asarray(stored[k]) for k in CHANCE_ARRAYS}
    how = json.loads(solution)
    if "exact_parts" not in how:            # solved before cycles were solved exactly: solved again
        raise ValueError("a solution by value iteration alone")
    graph.prob = arrays["prob"].astype(np.float64) if len(arrays["prob"]) else None
    graph.reward = arrays["reward"].astype(np.float64) if len(arrays["reward"]) else None
    graph.score = arrays["score"].astype(np.float64) if len(arrays["score"]) else None
    graph.orbit = arrays["orbit"].astype(np.int64)
    graph.solution = ChanceSolution(arrays["value"].astype(np.float64), int(how["parts"]), int(how["largest"]),
                                    int(how["cyclic_parts"]), int(how["sweeps"]), int(how["most_sweeps"]),
                                    float(how["tolerance"]), int(how["exact_parts"]), int(how["improvements"]),
                                    arrays["win"].astype(np.float64) if len(arrays["win"]) else None)


def stored_values(db: sqlite_utils.Database, game: str, folded: bool, keys: list[str]) -> dict[str, tuple[int, str]]:
    """(value for the mover, result under perfect play) of each stored key among ``keys``."""
    out: dict[str, tuple[int, str]] = {}
    for i in range(0, len(keys), 500):
        chunk = keys[i:i + 500]
        marks = ",".join("?" * len(chunk))
        for key, value, ex in db.execute(f"SELECT key, value, exact FROM positions WHERE game = ? AND folded = ? "  # noqa: S608  (names in this SQL are fixed in this code; values are bound as ?)
                                         f"AND key IN ({marks})", [game, int(folded), *chunk]):
            if value not in (-1, 0, 1) or not isinstance(ex, str):
                raise bad_row("positions", f"game {game!r} position {key!r}",
                              f"value {value!r} is not -1, 0 or 1")
            out[key] = (value, ex)
    return out


def stored_players(game: str, text: Any) -> list[str]:
    """A games row's players (a JSON list of names); KBError naming the row otherwise."""
    try:
        players = json.loads(text)
    except (TypeError, ValueError):
        players = None
    if not (isinstance(players, list) and len(players) >= 1 and all(isinstance(p, str) and p for p in players)):
        raise bad_row("games", f"game {game!r}", "players is not a JSON list of player names")
    return players


def game_summary(db: sqlite_utils.Database, game: str, rules_hash: str | None = None) -> dict[str, Any] | None:
    """The stored summary of a solved game (None if unsolved, or solved from another version of its file)."""
    rows = list(db.query("SELECT * FROM games WHERE name = ?", [game]))
    if not rows or (rules_hash is not None and rows[0]["rules_hash"] != rules_hash):
        return None
    row = rows[0]
    return {"game": row["name"], "players": stored_players(row["name"], row["players"]), "positions": row["positions"],
            "terminal": row["terminal"], "classes": row["classes"],
            "winner": None if row["winner"] == "draw" else row["winner"], "solved_at": row["solved_at"]}


INSERT_MATCH = ("INSERT INTO matches (game, first, second, moves, result, source, played_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)")


def record_match(db: sqlite_utils.Database, game: str, first: str, second: str,
                 moves: list[str], result: str | None, source: str) -> int:
    """Store one game played; returns its id."""
    with transaction(db):
        cur = db.conn.execute(INSERT_MATCH, (game, first, second, json.dumps(moves), result, source, now()))
    return int(cur.lastrowid or 0)        # an INSERT always sets it


def record_series(db: sqlite_utils.Database, game: str, first: str, second: str,
                  counts: dict[str, int], source: str) -> None:
    """Store a series' results (one row a result, moves not kept) in one transaction."""
    rows = [(game, first, second, json.dumps({"games": n}), result, source, now()) for result, n in counts.items()]
    with transaction(db):
        db.conn.executemany(INSERT_MATCH, rows)


def bad_row(table: str, where: str, what: str) -> KBError:
    """The one line for a row of the knowledge base that educable cannot read (edited by hand?)."""
    return KBError(f"the knowledge base's table {table}, {where}: {what}; fix or delete that row "
                   "(it was edited outside educable?)")


def sql_text(value: Any) -> str:
    """``value`` as an SQL string literal, for a statement a message suggests (never one educable runs):
    a name from a row edited by hand may hold a quote."""
    return "'" + str(value).replace("'", "''") + "'"


def json_object(text: Any) -> dict | None:
    """``text`` read as a JSON object, or None when it is not one."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _agent(row: Any) -> dict[str, Any]:
    row = dict(row)
    params = json_object(row["params"])
    if params is None:
        raise bad_row("agents", f"agent {row['name']!r}", f"params {str(row['params'])[:40]!r} is not a JSON object")
    if not isinstance(row["games_trained"], int):
        raise bad_row("agents", f"agent {row['name']!r}", f"games_trained {row['games_trained']!r} is not a number")
    row["params"] = params
    return row


def finite_number(value: Any) -> bool:
    """A real number read back from SQLite (not text, not inf or nan)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def tournament_results_problem(results: Any) -> str | None:
    """What is wrong with a tournaments row's results as `tournament --json` wrote them (the shape the
    page and the commands read), or None when nothing is."""
    if not isinstance(results, dict):
        return "results is not a JSON object"
    players = results.get("players")
    if not (isinstance(players, list) and players and all(isinstance(p, str) for p in players)):
        return "players is not a list of names"
    if not isinstance(results.get("game"), str) or not all(isinstance(results.get(k), int) for k in ("games", "seed")):
        return "game, games or seed is missing or of the wrong kind"
    ratings = results.get("ratings")
    if not isinstance(ratings, list) or not all(isinstance(r, dict) for r in ratings):
        return "ratings is not a list of objects"
    for r in ratings:
        interval = r.get("interval95")
        exact = r.get("exact")
        if not (isinstance(r.get("player"), str) and finite_number(r.get("score"))
                and (r.get("rating") is None or finite_number(r.get("rating")))
                and (interval is None or isinstance(interval, list) and len(interval) == 2
                     and all(finite_number(x) for x in interval))
                and (exact is None or isinstance(exact, dict)
                     and all(isinstance(exact.get(s), dict) for s in ("as_first", "as_second")))):
            return f"the rating of {str(r.get('player'))[:40]!r} is not a player, a score and a rating"
    cross = results.get("cross")
    if not (isinstance(cross, dict) and all(isinstance(cross.get(a), dict) for a in players)
            and all(cross[a].get(b) is None or finite_number(cross[a].get(b)) for a in players for b in players)):
        return "cross is not a score for every pair of players"
    return None


def value_row_ok(position: Any, value: Any, visits: Any, *bounds: Any) -> bool:
    """A learned_values row educable can read (bounds: upper and vs_random, None when not kept)."""
    return (isinstance(position, str) and finite_number(value) and isinstance(visits, int)
            and all(x is None or finite_number(x) for x in bounds))


def member_row_ok(rank: Any, weight: Any, born: Any) -> bool:
    """A members row educable can read."""
    return isinstance(rank, int) and finite_number(weight) and isinstance(born, int)


def rule_row_ok(pattern: Any, action: Any, priority: Any, weight: Any) -> bool:
    """A rules row educable can read (whether it fits the board is the game's to say)."""
    return isinstance(pattern, str) and isinstance(action, str) and isinstance(priority, int) and finite_number(weight)


def get_agent(db: sqlite_utils.Database, name: str) -> dict[str, Any] | None:
    """An agent's row with params decoded, or None; KBError for a row educable cannot read."""
    rows = list(db.query("SELECT * FROM agents WHERE name = ?", [name]))
    return _agent(rows[0]) if rows else None


def list_agents(db: sqlite_utils.Database, game: str | None = None) -> list[dict[str, Any]]:
    """Every agent (of ``game`` if given), oldest first."""
    sql = "SELECT * FROM agents" + (" WHERE game = ?" if game else "") + " ORDER BY created, name"  # noqa: S608  (names in this SQL are fixed in this code; values are bound as ?)
    return [_agent(row) for row in db.query(sql, [game] if game else [])]


def save_agent(db: sqlite_utils.Database, name: str, game: str, learner: str, params: dict[str, Any],
               values: Iterable[tuple[str, str, float, int]], games_added: int,
               run: dict[str, Any] | None = None) -> None:
    """Create or update an agent and replace its learned values, in one transaction.

    ``values`` rows are (position, move, value, visits), or with two more numbers (upper bound,
    score against random) for an agent that learns bounds; ``run`` (optional) is recorded in the
    runs table.
    """
    with transaction(db):
        conn = _upsert_agent(db, name, game, learner, params, games_added, run)
        conn.execute("DELETE FROM learned_values WHERE agent = ?", (name,))
        conn.executemany("INSERT INTO learned_values (agent, position, move, value, visits, upper, vs_random) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)",
                         ((name, r[0], r[1], float(r[2]), int(r[3]), *((float(r[4]), float(r[5])) if len(r) > 4
                                                                      else (None, None))) for r in values))


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
    rows = [dict(r) for r in db.query("SELECT rank, weight, born FROM members WHERE agent = ? ORDER BY rank",
                                      [agent])]
    for r in rows:
        if not member_row_ok(r["rank"], r["weight"], r["born"]):
            raise bad_row("members", f"agent {agent!r} rank {r['rank']!r}", "weight, rank and born must be numbers")
    return rows


def load_rules(db: sqlite_utils.Database, agent: str, member: int | None = None) -> list[tuple[int, str, str, int, float]]:
    """Rules as (member, pattern, action, priority, weight), by member then place; one member if given."""
    sql = "SELECT member, pattern, action, priority, weight FROM rules WHERE agent = ?"
    args: list[Any] = [agent]
    if member is not None:
        sql += " AND member = ?"
        args.append(member)
    rows = [tuple(r) for r in db.execute(sql + " ORDER BY member, idx", args)]
    for k, pattern, action, priority, weight in rows:
        if not rule_row_ok(pattern, action, priority, weight):
            raise bad_row("rules", f"agent {agent!r} member {k!r}",
                          f"rule ({pattern!r}, {action!r}, {priority!r}, {weight!r}) is not text, text, integer, number")
    return rows


def _upsert_agent(db: sqlite_utils.Database, name: str, game: str, learner: str, params: dict[str, Any],
                  games_added: int, run: dict[str, Any] | None) -> Any:
    """Inside a transaction: create the agent or add to its games, and record ``run``; the connection.

    The learner and game are checked here, inside the write's own transaction (BEGIN IMMEDIATE), and
    not only when a command starts: two processes may both find the name free, and the second to
    write must not merge its knowledge into the first's agent.  KBError then, and nothing written."""
    conn = db.conn
    existing = conn.execute("SELECT games_trained, learner, game FROM agents WHERE name = ?", (name,)).fetchone()
    if existing is not None and (existing[1], existing[2]) != (learner, game):
        raise KBError(f"agent '{name}' was made meanwhile by learner '{existing[1]}' for {existing[2]} (another "
                      f"process); this {learner} agent of {game} was not saved: choose another name")
    if existing is None:
        conn.execute(
            "INSERT INTO agents (name, game, learner, params, games_trained, created, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (name, game, learner, json.dumps(params, sort_keys=True), games_added, now(), now()))
    else:
        conn.execute("UPDATE agents SET params = ?, games_trained = ?, updated = ? WHERE name = ?",
                     (json.dumps(params, sort_keys=True), existing[0] + games_added, now(), name))
    if run is not None:
        _insert_run(conn, name, learner, params, run)
    return conn


def _insert_run(conn: Any, name: str, learner: str, params: dict[str, Any], run: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO runs (agent, learner, games, seconds, params, results, started) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (name, learner, run["games"], run["seconds"], json.dumps(params, sort_keys=True),
         json.dumps(run.get("results", {})), run.get("started", now())))


def record_stopped_run(db: sqlite_utils.Database, name: str, games: int, seconds: float,
                       results: dict[str, Any]) -> None:
    """Record the part of a stopped run that its commits kept (``games`` in ``seconds``), so that a
    training's time is known even when no run of it ended by itself."""
    row = get_agent(db, name)
    if row is None or games <= 0:
        return
    with transaction(db):
        _insert_run(db.conn, name, row["learner"], row["params"],
                    {"games": games, "seconds": seconds, "results": {**results, "stopped": True}})


def save_ntuple(db: sqlite_utils.Database, name: str, game: str, learner: str, params: dict[str, Any],
                tuples: list[list[int]], weights: Iterable[WeightRow], games_added: int,
                run: dict[str, Any] | None = None, point: CurvePoint | None = None) -> None:
    """Create or update an n-tuple agent and replace its tuples (0-based cells, stored 1-based) and
    weights (tuple, pattern, weight, temporal-coherence sums or None), in one transaction; with
    ``point``, the run's learning curve so far (curve_points) in the same transaction."""
    with transaction(db):
        conn = _upsert_agent(db, name, game, learner, params, games_added, run)
        if point is not None:
            started, games, lost, draws, strength = point
            conn.execute("INSERT OR REPLACE INTO curve_points (agent, started, games, lost, draws, at, strength) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)", (name, started, games, lost, draws, now(),
                                                          None if strength is None else json.dumps(strength)))
        conn.execute("DELETE FROM ntuple_tuples WHERE agent = ?", (name,))
        conn.execute("DELETE FROM ntuple_weights WHERE agent = ?", (name,))
        conn.executemany("INSERT INTO ntuple_tuples (agent, tuple, cells) VALUES (?, ?, ?)",
                         ((name, t, " ".join(str(c + 1) for c in cells)) for t, cells in enumerate(tuples)))
        conn.executemany("INSERT INTO ntuple_weights (agent, tuple, pattern, weight, tc_changes, tc_sizes) "
                         "VALUES (?, ?, ?, ?, ?, ?)", ((name, *row) for row in weights))


def load_ntuple(db: sqlite_utils.Database, agent: str,
                params: dict[str, Any] | None = None) -> tuple[list[list[int]], list[WeightRow]]:
    """An n-tuple agent's tuples (0-based cells) and weights (tuple, pattern, weight, and the
    temporal-coherence sums of its changes and of their sizes, None without them); KBError naming
    the first row that does not fit the agent's parameters (its row's, unless given; ``read_ntuple``)."""
    if params is None:
        row = get_agent(db, agent)
        params = row["params"] if row else {}
    tuples, weights, problems = read_ntuple(db.conn, agent, params)
    if problems:
        raise bad_row(*problems[0])
    return tuples, weights


MAX_CELL_VALUES = 64        # a weight's pattern holds a cell value as one character, code 48 + value


def read_ntuple(conn: Any, agent: str, params: dict[str, Any]) -> tuple[list[list[int]], list[WeightRow],
                                                                        list[tuple[str, str, str]]]:
    """An n-tuple agent's rows and every way they do not fit together, as (table, where, what): the
    one check that loading an agent and `doctor` share, so that no cell number, pattern or tuple
    that would index past a table reaches the numeric code.  The parameters need n_cells, values
    (cell values, at most MAX_CELL_VALUES) and perms (the symmetries, permutations of the cells);
    each tuple lists distinct cells 1..n_cells; each weight names a tuple of the agent and has a
    pattern of one character a cell of it, each a value below ``values``."""
    problems: list[tuple[str, str, str]] = []
    where = f"agent {agent!r}"
    n_cells, values, perms = params.get("n_cells"), params.get("values"), params.get("perms")
    if not (isinstance(n_cells, int) and n_cells >= 1):
        problems.append(("agents", where, f"params n_cells {n_cells!r} is not a whole number from 1"))
        n_cells = None
    if not (isinstance(values, int) and 2 <= values <= MAX_CELL_VALUES):
        problems.append(("agents", where, f"params values {values!r} is not a whole number from 2 to {MAX_CELL_VALUES}"))
        values = None
    if not (isinstance(perms, list) and perms and all(
            isinstance(p, list) and n_cells is not None and sorted(p) == list(range(n_cells)) for p in perms)):
        problems.append(("agents", where, "params perms is not a list of permutations of the agent's cells"))
    tuples: list[list[int]] = []
    for t, cells in conn.execute("SELECT tuple, cells FROM ntuple_tuples WHERE agent = ? ORDER BY tuple", [agent]):
        parts = cells.split() if isinstance(cells, str) else []
        ok = t == len(tuples) and parts and all(p.isascii() and p.isdigit() and len(p) < 10 for p in parts)
        numbers = [int(p) for p in parts] if ok else []
        if not ok or len(set(numbers)) != len(numbers) or (n_cells is not None and not all(
                1 <= c <= n_cells for c in numbers)):
            problems.append(("ntuple_tuples", f"{where} tuple {t!r}", "tuples must be numbered 0, 1, ... and list "
                             f"distinct cell numbers from 1 to {n_cells if n_cells is not None else 'n_cells'}"))
            numbers = []
        tuples.append([c - 1 for c in numbers])
    if not tuples:
        problems.append(("ntuple_tuples", where, "the agent has no tuples"))
    weights = [tuple(r) for r in conn.execute("SELECT tuple, pattern, weight, tc_changes, tc_sizes FROM ntuple_weights "
                                              "WHERE agent = ?", [agent])]
    top = 48 + (values if values is not None else MAX_CELL_VALUES)
    for t, pattern, weight, changes, sizes in weights:
        if not (isinstance(t, int) and 0 <= t < len(tuples) and isinstance(pattern, str)
                and len(pattern) == len(tuples[t]) and all(48 <= ord(c) < top for c in pattern)
                and finite_number(weight) and all(x is None or finite_number(x) for x in (changes, sizes))):
            problems.append(("ntuple_weights", f"{where} tuple {t!r} pattern {str(pattern)[:20]!r}",
                             "a weight needs a tuple of the agent, a pattern of one character a cell of it (a cell "
                             f"value below the agent's {values}) and numbers"))
    return tuples, weights, problems


def curve(db: sqlite_utils.Database, agent: str, started: str) -> list[dict[str, Any]]:
    """A run's learning curve as committed so far: games, lost and draws (cumulative), when, and the
    strength it had reached then (a JSON object: the exact judgement or the fixed positions' move
    accuracy; None where nothing was measured)."""
    rows = [dict(r) for r in db.query("SELECT games, lost, draws, at, strength FROM curve_points WHERE agent = ? "
                                      "AND started = ? ORDER BY games", [agent, started])]
    for r in rows:
        r["strength"] = json_object(r["strength"]) if r["strength"] is not None else None
    return rows


def load_values(db: sqlite_utils.Database, agent: str, bounds: bool = False) -> list[tuple]:
    """An agent's learned values as (position, move, value, visits), with ``bounds`` also (upper bound,
    score against random); KBError for one that is not a number."""
    extra = ", upper, vs_random" if bounds else ""
    rows = [tuple(r) for r in db.execute(
        f"SELECT position, move, value, visits{extra} FROM learned_values WHERE agent = ? ORDER BY position, move",  # noqa: S608  (names in this SQL are fixed in this code; values are bound as ?)
        [agent])]
    for position, move, value, visits, *more in rows:
        if not value_row_ok(position, value, visits, *more) or None in more:
            raise bad_row("learned_values", f"agent {agent!r} position {position!r} move {move!r}",
                          f"value {value!r}, visits {visits!r}{' and its bounds' if more else ''} must be numbers")
    return rows
