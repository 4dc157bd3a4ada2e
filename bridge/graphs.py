"""A game's state graph, compiled once, stored in the knowledge base and loaded by every later process.

Two graphs a game may have:

- the *solved* graph, what `solve` builds: one node per class of symmetric
  positions when the game declares symmetries (4x4 tic-tac-toe: 1.2 M
  classes for 9.7 M positions), with every node's exact value;
- the *state* graph, one node per position, which judging an agent exactly
  and training on the graph need (an agent need not play symmetric
  positions alike).  For a game without symmetries the two are one.

Each is stored with a hash of the game's rule files; a changed file makes it
stale, and it is rebuilt on next use.  Within a process each is loaded once, and compiled
at most once for all the knowledge bases it fills (a sweep's runs).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from educable.bridge import games
from educable.bridge.compile import ProgressFn, TooLarge, compile_graph, symmetry_count, too_large
from educable.bridge.engine import BadInput
from educable.bridge.limits import max_positions
from educable.kb import store
from educable.learners.graph import StateGraph

if TYPE_CHECKING:
    import sqlite_utils  # in annotations only: kb.db imports it when a database is opened

_CACHE: dict[tuple, tuple[str, StateGraph]] = {}
# The graphs this process compiled, by game and folding, with the rules hash and the seconds it took:
# a process that fills several knowledge bases (a sweep's runs, each in a fresh one) compiles a game once.
_COMPILED: dict[tuple[str, bool], tuple[str, StateGraph, float]] = {}


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
    if games.is_hidden(game):                # its tree and information sets: bridge/hidden.py
        raise BadInput(games.hidden_refusal(game, f"{what}, seeing every card"))
    key = _key(db, game, folded)
    digest = games.rules_hash(game)
    cached = _CACHE.get(key)
    if cached is not None and cached[0] == digest:
        refuse_chance(cached[1], from_kb=db is not None)
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
        compiled = _COMPILED.get((game, folded))
        if compiled is not None and compiled[0] == digest and compiled[1].size <= bound:
            graph, seconds = compiled[1], compiled[2]
        else:
            t0 = time.perf_counter()
            graph = compile_graph(game, players, folded, bound, what, progress)
            if not (graph.has_chance or graph.scored):
                from educable.learners import retrograde
                graph.value = retrograde.solve(graph)
            seconds = time.perf_counter() - t0
            if keep:
                _COMPILED[(game, folded)] = (digest, graph, seconds)
        if not keep:
            refuse_chance(graph)
            return graph, seconds
        if db is not None and (graph.has_chance or graph.scored):
            t0 = time.perf_counter()
            from educable.learners import chance
            chance.solve(graph)             # stored with its solution (found once a graph)
            store.save_chance_graph(db, graph, digest, seconds + time.perf_counter() - t0)
        elif db is not None:
            store.save_graph(db, graph, digest, seconds, summary)
    _CACHE[key] = (digest, graph)
    refuse_chance(graph, from_kb=seconds is None)     # a game of chance or of score: read back, or solved now
    return graph, seconds


@contextmanager
def compiling_as_stage(progress: Callable[..., None] | None, doing: str = "") -> Iterator[ProgressFn | None]:
    """A graph's compilation as a stage of a run's own progress (``progress(0, stage)``), cleared when
    the block ends: a training that compiles a large game's graph first (pig(100,6): two minutes)
    says so, not "0 of N done"; ``doing`` says what for ("judging it exactly: ", after a run)."""
    if progress is None:
        yield None
        return
    try:
        yield lambda p: progress(0, f"{doing}compiling the state graph: {p.found:,} positions found, {p.rss_mb:,.0f} MB")
    finally:
        progress(0, "")


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
    return store.game_summary(db, game, games.rules_hash(game)) is not None


def exact_results(db: sqlite_utils.Database, game: str, keys: list[str]) -> dict[str, str] | None:
    """The result under perfect play of each state (by key), read from the stored solved graph;
    None when the game is not solved in ``db``."""
    if not is_solved(db, game):
        return None
    folded = has_symmetry(game)
    lookup = games.canonical_keys(game, keys) if folded else keys
    values = store.stored_values(db, game, folded, sorted(set(lookup)))
    return {k: values[c][1] for k, c in zip(keys, lookup, strict=True) if c in values}


def stored_chance_graph(db: sqlite_utils.Database, game: str) -> StateGraph | None:
    """The graph of every state of a game of chance or of score, solved, as the knowledge base holds
    it for the current rule files (read once a process); None when it holds none."""
    digest = games.rules_hash(game)
    key = _key(db, game, False)
    cached = _CACHE.get(key)
    if cached is None or cached[0] != digest:
        if not store.has_chance_graph(db, game, digest):
            return None
        graph = store.load_graph(db, game, games.players(game), False, digest)
        if graph is None:
            return None
        cached = _CACHE[key] = (digest, graph)
    return cached[1] if cached[1].solution is not None else None


QUERY_LIMIT = 100_000      # positions below a queried position searched exactly (a few seconds) before a depth-limited search
QUICK_LIMIT = 10_000       # ... on the page, which asks at every move


def subgraph(game: str, key: str, limit: int = QUERY_LIMIT) -> tuple[StateGraph, float]:
    """The solved graph of every state reachable from ``key`` (not stored), and the seconds it took."""
    t0 = time.perf_counter()
    graph = compile_graph(game, games.players(game), False, limit,
                          "an exact answer needs every position below this one", start=key)
    refuse_chance(graph)
    from educable.learners import retrograde
    graph.value = retrograde.solve(graph)
    return graph, time.perf_counter() - t0


class ChanceGame(BadInput):
    """A graph with chance nodes, or of a game of score, where a command needs a game of two players without
    chance: ``graph`` is the graph compiled."""

    def __init__(self, graph: StateGraph, from_kb: bool = False) -> None:
        self.from_kb = from_kb          # the graph, solved, was read from the knowledge base
        if graph.scored:
            super().__init__(games.score_game_refusal(graph.game))
        else:
            super().__init__(f"{graph.game} is a game of chance: solve, query, play, eval (--exact too) and the "
                             "qlearn and punish learners know chance; search players and the other learners do not yet")
        self.graph = graph


def refuse_chance(graph: StateGraph, from_kb: bool = False) -> None:
    """ChanceGame when the graph has chance nodes or one player (retrograde analysis and everything built
    on it assume two players and no chance; solve and query catch it and value the graph by expectimax)."""
    if graph.has_chance or graph.scored:
        raise ChanceGame(graph, from_kb)


def cannot_judge(game: str, why: str) -> BadInput:
    """The refusal of --until-perfect on a game that cannot be judged exactly (``why``): the run would
    never stop early, and say nothing of it."""
    return BadInput(f"--until-perfect stops when the exact judgement says perfect, and {game} {why}; give --games alone")
