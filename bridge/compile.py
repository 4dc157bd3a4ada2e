"""Compile a game's state graph from Prolog in batches, in bounded memory, with a size bound.

Prolog (rules/graph.pl) keeps the set of states found (a trie) and the
frontier; each query expands the next batch of nodes and hands them over
as flat JSON lists, which become numpy arrays here.  Nothing holds the
whole graph as one Prolog list, and a game past the position limit stops
with one line that says how far enumeration got.
"""
from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from educable.bridge.engine import BadInput, engine, quote
from educable.bridge.limits import ENV_MAX
from educable.learners.graph import CHANCE, ONGOING, SCORED, StateGraph, ranges

# numpy is imported where a graph is built, not by the modules that only name these functions:
# `educable query` on a solved game never builds one
if TYPE_CHECKING:
    from fractions import Fraction

    import numpy as np

BATCH = 4000


class TooLarge(BadInput):
    """The game has more positions than the limit allows for what was asked."""


@dataclass
class CompileProgress:
    """How far a compilation has got (for a progress line)."""

    found: int
    expanded: int
    seconds: float
    rss_mb: float


ProgressFn = Callable[[CompileProgress], None]


def rss_mb() -> float:
    """This process's resident memory in MB (Prolog runs inside it)."""
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def known_lower_bound(game: str) -> int | None:
    """A lower bound on the game's reachable positions that its file states (size_at_least/2), if any."""
    found = engine().call(f"findall(N, game:size_at_least({quote(game)}, N), Out)")
    return max(found) if found else None


def symmetry_count(game: str) -> int:
    """How many symmetries (the identity included) the game declares, counted at its start."""
    return engine().call(f"game:initial({quote(game)}, P, _), findall(I, game:image({quote(game)}, P, I), L), "
                         f"length(L, Out)")


def compile_graph(game: str, players: list[str], fold: bool, limit: int, what: str,
                  progress: ProgressFn | None = None, start: str = "") -> StateGraph:
    """The graph of every state reachable from ``start`` ('' the initial state), one node per
    symmetry class when ``fold``; TooLarge when more than ``limit`` nodes are found.

    ``what`` names the command's need in the refusal ("solve needs the whole graph").
    """
    import numpy as np

    stated = known_lower_bound(game) if not start else None
    if stated is not None:
        # folded, a node is a class of at most as many positions as there are symmetries
        nodes = stated // symmetry_count(game) if fold is True else stated
        if nodes > limit:
            classes = f" (so at least {nodes:,} symmetry classes)" if fold is True else ""
            raise TooLarge(too_large(game, what, limit, f"its file states at least {stated:,} positions{classes}"))
    eng = engine()
    t0 = time.perf_counter()
    eng.call(f"graph:graph_open({quote(game)}, {quote(start)}, {'true' if fold else 'false'}), Out = true")
    moves: list[str] = []              # texts by number (rules/graph.pl numbers them)
    keys: list[str] = []
    weights: list[str | int] = []      # each move of a chance node's weight, in order: a whole number or 'N/D'
    points: list[str] = []             # a game of score: 'N/D' for each move, and for each end
    scores: list[str] = []
    views: list[str] = []              # a game of hidden information: each node's mover's view ('' elsewhere)
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("mover", "winner", "orbit", "count", "target", "move")}
    expanded, found = 0, 1
    try:
        while expanded < found:
            to = min(found, expanded + BATCH)
            nodes, found = eng.call(f"graph:graph_batch({expanded}, {to}, N, F), Out = [N, F]")
            keys += nodes["keys"]
            parts["mover"].append(np.asarray(nodes["movers"], dtype=np.int8))
            parts["winner"].append(np.asarray(nodes["results"], dtype=np.int8))    # ONGOING, DRAW or a player
            parts["orbit"].append(np.asarray(nodes["orbits"], dtype=np.int32))
            parts["count"].append(np.asarray(nodes["counts"], dtype=np.int64))
            parts["target"].append(np.asarray(nodes["targets"], dtype=np.int64))
            parts["move"].append(np.asarray(nodes["moves"], dtype=np.int32))
            moves += nodes["new_moves"]
            weights += nodes["weights"]
            points += nodes["points"]
            scores += nodes["scores"]
            views += nodes["views"]
            expanded = to
            if progress:
                progress(CompileProgress(found, expanded, time.perf_counter() - t0, rss_mb()))
            if found > limit:
                raise TooLarge(too_large(game, what, limit, f"enumeration found {found:,} positions "
                                          f"({expanded:,} expanded) in {time.perf_counter() - t0:.0f} s"))
    finally:
        eng.call("graph:graph_close, Out = true")
    cat = {k: np.concatenate(v) if v else np.zeros(0, dtype=np.int64) for k, v in parts.items()}
    starts = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(cat["count"], out=starts[1:])
    stuck = np.flatnonzero((cat["winner"] == ONGOING) & (cat["count"] == 0))
    if len(stuck):
        raise BadInput(f"{game}: position {keys[int(stuck[0])]!r} is not over but has no legal move "
                       "(over/4 and legal/4 disagree)")
    graph = StateGraph(game, list(players), keys, cat["mover"], cat["winner"], starts, cat["target"],
                       cat["move"].astype(np.int32), moves, cat["orbit"].astype(np.int64), fold)
    if (cat["mover"] == CHANCE).any():
        graph.prob = chance_probabilities(cat["mover"], starts, weights, keys)
    if len(players) == 1:
        graph.reward = exact_numbers(points)
    if len(players) == 1 or scores:       # one player's score, or the first player's payoff(N) of two
        graph.score = np.zeros(len(keys), dtype=np.float64)
        graph.score[cat["winner"] == SCORED] = exact_numbers(scores)
    if views:
        graph.views = views
    return graph


def exact_fraction(text: str | int) -> Fraction:
    """A number written 'N/D' (or a whole number as it is), rules/graph.pl's exact form of a weight or of points."""
    from fractions import Fraction  # here: `query` on a solved game imports this module and needs none (6 ms)
    return Fraction(text) if isinstance(text, int) else Fraction(*map(int, text.split("/")))


def exact_numbers(texts: list[str]) -> np.ndarray:
    """Numbers written 'N/D' as floats, each distinct text read once; BadInput for one past the float
    range (SCORE_RANGE)."""
    import numpy as np

    try:
        read = {t: float(exact_fraction(t)) for t in dict.fromkeys(texts)}
    except OverflowError:
        raise BadInput(SCORE_RANGE) from None
    return np.fromiter((read[t] for t in texts), dtype=np.float64, count=len(texts))


SCORE_RANGE = "points past the float range: educable counts a game's points as floats, at most about 1.8e308"
# (rules/play.pl's play_scores/6 refuses a sampled game's total in these words, check.pl a game's points)


def _fractions_add_up(chance: np.ndarray, starts: np.ndarray, weights: list[str | int], keys: list[str] | None) -> None:
    """BadInput naming the first chance node whose weights, some written as fractions (rationals), do
    not add up to exactly 1 (as check reports it; they were made to by dividing by their total before)."""
    at = 0
    for node in chance.tolist():
        count = int(starts[node + 1] - starts[node])
        mine = weights[at:at + count]
        at += count
        if any(isinstance(w, str) for w in mine):
            total = sum(exact_fraction(w) for w in mine)
            if total != 1:
                where = f" at {keys[node]!r}" if keys is not None else ""
                raise BadInput(f"the chance weights{where} add up to {total.numerator}r{total.denominator}: written "
                               "as fractions (rationals) they "
                               "must add up to exactly 1 (educable check says where)")


def chance_probabilities(mover: np.ndarray, starts: np.ndarray, weights: list[str | int],
                         keys: list[str] | None = None) -> np.ndarray:
    """Each edge's probability: 1 for a player's move; for a chance node's outcome, its weight over
    the node's total.  The weights are brought to one denominator and added as whole numbers, so the
    total is exact and each probability is one division."""
    import numpy as np

    prob = np.ones(int(starts[-1]), dtype=np.float64)
    chance = np.flatnonzero((mover == CHANCE) & (np.diff(starts) > 0))    # a chance node where the game is over has none
    edges = ranges(starts, chance)
    if len(edges) != len(weights):
        raise BadInput(f"the chance nodes have {len(edges):,} outcomes but {len(weights):,} weights came back")
    if not len(edges):
        return prob
    whole: dict = {}
    try:
        w = np.asarray(weights, dtype=np.int64)         # whole numbers (a die's faces): as they are
        largest = int(w.max())
    except (ValueError, TypeError, OverflowError):      # some 'N/D': all to one denominator
        distinct = {x: exact_fraction(x) for x in dict.fromkeys(weights)}
        common = math.lcm(*(f.denominator for f in distinct.values()))
        whole = {x: f.numerator * (common // f.denominator) for x, f in distinct.items()}
        largest = max(whole.values())
    if whole:                           # where a node's weights are written as fractions, they add up to 1 exactly
        _fractions_add_up(chance, starts, weights, keys)
    if largest * int(np.diff(starts).max()) >= 2**62:
        raise BadInput("the chance weights are too large to add up exactly (a weight of "
                       f"{len(str(largest))} digits"
                       f"{' once brought to a common denominator' if any(isinstance(x, str) for x in weights) else ''}; "
                       "educable adds them as 64-bit whole numbers: scale them down, 1 to 10^15 keeps every chance)")
    if whole:
        w = np.fromiter((whole[x] for x in weights), dtype=np.int64, count=len(weights))
    counts = (starts[chance + 1] - starts[chance]).astype(np.int64)
    totals = np.add.reduceat(w, np.cumsum(counts) - counts)
    prob[edges] = w / np.repeat(totals, counts)
    return prob


def too_large(game: str, what: str, limit: int, how_far: str) -> str:
    """The one line that refuses a game past the position limit, saying what still works."""
    return (f"{game} is too large: {what}, and {how_far}, past the limit of {limit:,} "
            f"(--max-positions or {ENV_MAX} raises it); show, play and sampled eval (with opponents such as "
            f"alphabeta:DEPTH or mcts:PLAYOUTS), query (depth-limited search), judge (connect(4,7,6)) and training by punish, qlearn or ntuple "
            f"still work")

