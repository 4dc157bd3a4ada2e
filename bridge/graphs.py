"""A game's state graph, compiled once, stored in the knowledge base and loaded by every later process.

Two graphs a game may have:

- the *solved* graph, what `solve` builds: one node per class of symmetric
  positions when the game declares symmetries (4x4 tic-tac-toe: 1.2 M
  classes for 9.7 M positions), with every node's exact value;
- the *state* graph, one node per position, which judging an agent exactly
  and training on the graph need (an agent need not play symmetric
  positions alike).  For a game without symmetries the two are one.

Each is stored with a hash of the game's rule files; a changed file makes it
stale, and it is rebuilt on next use.  Within a process each is loaded once.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import hashlib
import time
from functools import lru_cache
from pathlib import Path

from bridge import games
from bridge.compile import ProgressFn, TooLarge, compile_graph, symmetry_count, too_large
from bridge.limits import max_positions
from bridge.engine import RULES_DIR, engine, quote
from kb import store
from learners import retrograde
from learners.graph import StateGraph, fold

if TYPE_CHECKING:
    import sqlite_utils      # in annotations only: kb.db imports it when a database is opened

GRAPH_FORMAT = "2"      # bump when compilation changes what a stored graph holds
_CACHE: dict[tuple, tuple[str, StateGraph]] = {}


@lru_cache(maxsize=None)
def rules_hash(game: str) -> str:
    """A hash of the files that define ``game``'s rules (its own file and the protocol); read once
    per process (every graph lookup asks for it)."""
    files = engine().call(
        f"findall(F, (clause(game:players({quote(games.check_game(game))}, _), Body, R), catch(Body, _, fail), "
        f"clause_property(R, file(F))), Out)")
    digest = hashlib.sha256(GRAPH_FORMAT.encode())
    for path in sorted(set(files)) + [str(RULES_DIR / "game.pl")]:
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()


def has_symmetry(game: str) -> bool:
    """Whether the game file declares symmetries besides the identity (symmetry/3)."""
    return symmetry_count(games.check_game(game)) > 1


def _key(db: sqlite_utils.Database | None, game: str, folded: bool) -> tuple:
    path = db.conn.execute("PRAGMA database_list").fetchone()[2] if db is not None else None
    return (path, game, folded)


def _graph(db: sqlite_utils.Database | None, game: str, folded: bool, what: str, limit: int | None,
           progress: ProgressFn | None, summary: bool, keep: bool = True) -> tuple[StateGraph, float | None]:
    """The graph (loaded, or compiled, solved and stored) and, if it was built now, the seconds that took.
    ``keep=False``: a graph compiled now is neither stored nor remembered (a command that may
    still be refused must leave the knowledge base as it was)."""
    games.check_game(game)
    key = _key(db, game, folded)
    digest = rules_hash(game)
    cached = _CACHE.get(key)
    if cached is not None and cached[0] == digest:
        if db is None or not summary or store.game_summary(db, game, digest) is not None:
            return cached[1], None
        store.save_graph(db, cached[1], digest, 0.0, summary)   # the file was replaced meanwhile
        return cached[1], None
    players = games.players(game)
    graph = store.load_graph(db, game, players, folded, digest) if db is not None else None
    seconds = None
    if graph is None:
        bound = max_positions(limit)
        known = store.game_summary(db, game, digest) if db is not None else None
        count = known and (known["classes"] if folded else known["positions"])
        if count and count > bound:
            raise TooLarge(too_large(game, what, bound, f"it has {count:,} "
                                     f"{'symmetry classes' if folded else 'positions'} (the knowledge base knows)"))
        t0 = time.perf_counter()
        full = _single_pass(game, players, bound, what, progress) if folded else None
        if full is not None:                      # both graphs from one compilation
            graph = fold(full, full.class_keys)
            graph.value = retrograde.solve(graph)
            seconds = time.perf_counter() - t0
            if db is not None:
                store.save_graph(db, full, digest, seconds, False)
            _CACHE[_key(db, game, False)] = (digest, full)
        else:
            graph = compile_graph(game, players, folded, bound, what, progress)
            graph.value = retrograde.solve(graph)
            seconds = time.perf_counter() - t0
        if not keep:
            return graph, seconds
        if db is not None:
            store.save_graph(db, graph, digest, seconds, summary)
    _CACHE[key] = (digest, graph)
    return graph, seconds


SINGLE_PASS = 200_000    # positions a symmetric game is first compiled unfolded to, with class keys
SINGLE_PASS_SYMMETRIES = 2


def _single_pass(game: str, players: list[str], limit: int, what: str,
                 progress: ProgressFn | None) -> StateGraph | None:
    """Every state of a symmetric game with its class key and exact value, when it has at most
    SINGLE_PASS positions (and the limit allows them) and at most SINGLE_PASS_SYMMETRIES
    symmetries; None otherwise, and the folded graph is compiled directly (the graph of every
    state waits for the first command that needs it).  With a mirror only, a class key for every
    position costs little and both graphs come from one compilation (connect-three's solve, with
    the graph exact judgement needs: 2.6 s to 1.6 s); with the square's 8 symmetries the folded
    graph alone is far cheaper (tic-tac-toe: 765 classes, 0.05 s)."""
    if symmetry_count(game) > SINGLE_PASS_SYMMETRIES:
        return None
    try:
        full = compile_graph(game, players, "classes", min(limit, SINGLE_PASS), what, progress)
    except TooLarge:
        return None
    full.value = retrograde.solve(full)
    return full


def solved_graph(db: sqlite_utils.Database | None, game: str, limit: int | None = None,
                 progress: ProgressFn | None = None) -> tuple[StateGraph, float | None]:
    """The game's solved graph (folded when it has symmetries) and the seconds it took if built by this call."""
    return _graph(db, game, has_symmetry(game), "solving needs every position", limit, progress, True)


def state_graph(db: sqlite_utils.Database | None, game: str, limit: int | None = None,
                progress: ProgressFn | None = None, what: str = "this needs every position",
                keep: bool = True) -> StateGraph:
    """The game's graph of every state, with exact values; stored in ``db`` when one is given
    (unless ``keep`` is False: then a graph not stored yet is compiled for this call only)."""
    return _graph(db, game, False, what, limit, progress, not has_symmetry(game), keep)[0]


def is_solved(db: sqlite_utils.Database, game: str) -> bool:
    """Whether the knowledge base holds the game's solved graph for its current rule files."""
    return store.game_summary(db, game, rules_hash(game)) is not None


def exact_results(db: sqlite_utils.Database, game: str, keys: list[str]) -> dict[str, str] | None:
    """The result under perfect play of each state (by key), read from the stored solved graph;
    None when the game is not solved in ``db``."""
    if not is_solved(db, game):
        return None
    folded = has_symmetry(game)
    lookup = games.canonical_keys(game, keys) if folded else keys
    values = store.stored_values(db, game, folded, sorted(set(lookup)))
    return {k: values[c][1] for k, c in zip(keys, lookup) if c in values}


QUERY_LIMIT = 100_000      # positions below a queried position searched exactly (a few seconds) before a depth-limited search


def subgraph(game: str, key: str, limit: int = QUERY_LIMIT) -> tuple[StateGraph, float]:
    """The solved graph of every state reachable from ``key`` (not stored), and the seconds it took."""
    t0 = time.perf_counter()
    graph = compile_graph(game, games.players(game), False, limit,
                          "an exact answer needs every position below this one", start=key)
    graph.value = retrograde.solve(graph)
    return graph, time.perf_counter() - t0
