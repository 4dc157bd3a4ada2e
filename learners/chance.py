"""Exact values of a game with chance nodes, its graph's cycles included.

A two-player game's value is the expected result for the first player
(+1 a win, 0 a draw, -1 a loss): the first player takes the move of
highest value, the second the lowest, and a chance node the mean of its
outcomes weighted by their probabilities (expectimax).  Where play can
come back to a position (in Pig both players may roll a 1 for ever) the
values are the fixed point of those equations, found by value iteration.

The graph is cut into its strongly connected parts (Tarjan's algorithm,
which finds each part after every part it leads to), and each part is
solved in that order, its successors outside it already exact: a part of
one position without a loop to itself takes one step, a larger part sweeps
its positions (Gauss-Seidel, each sweep using the values the sweep has
already updated) until no value moves by more than the tolerance.  A
position on a cycle no chance can leave keeps the value 0: a line that
never ends is a draw, as `solve` scores it on games without chance.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from learners.graph import CHANCE, DRAW, ONGOING, StateGraph
from learners.jit import njit

TOLERANCE = 1e-13           # the largest change a sweep may still make when a part counts as solved
MAX_SWEEPS = 1_000_000      # of one part: past it, the part is said not to converge


@dataclass
class ChanceSolution:
    """Every node's value for the first player, and what solving took."""

    value: np.ndarray           # float64, a node's expected result for the first player
    parts: int                  # strongly connected parts
    largest: int                # positions in the largest part
    cyclic_parts: int           # parts of more than one position (or one with a loop)
    sweeps: int                 # sweeps summed over the cyclic parts
    most_sweeps: int            # of the part that took the most
    tolerance: float


MAX, MIN, MEAN, OVER = 0, 1, 2, 3      # what a node's value is of its successors' (OVER: its result)


def solve(graph: StateGraph, tolerance: float = TOLERANCE) -> ChanceSolution:
    """Expectimax values of every node, for the first player (see the module); in a game of score,
    each node's expected score from there on with best play (its moves' points and its end's).
    Found once a graph at the default tolerance (kept as ``graph.solution``, which a graph read
    from the knowledge base brings with it)."""
    if tolerance == TOLERANCE and graph.solution is not None:
        return graph.solution
    kind = np.where(graph.mover == CHANCE, MEAN, np.where(graph.mover == 0, MAX, MIN))
    found = _values(graph, kind, _edge_probabilities(graph), _terminal(graph), tolerance)
    if tolerance == TOLERANCE:
        graph.solution = found
    return found


def expected_score(graph: StateGraph, policy: np.ndarray, tolerance: float = TOLERANCE) -> ChanceSolution:
    """A game of score: every node's expected score from there on when the player plays ``policy``
    (each edge's probability at its node, as ``policy_of`` gives it)."""
    prob = np.where(graph.mover[graph.source] == CHANCE, _edge_probabilities(graph), policy)
    return _values(graph, np.full(graph.size, MEAN), prob, _terminal(graph), tolerance)


def against_best_response(graph: StateGraph, player: int, policy: np.ndarray,
                          tolerance: float = TOLERANCE) -> ChanceSolution:
    """The values, for the first player, when ``player`` plays ``policy`` (each edge's probability at
    its node, as ``policy_of`` gives it) and the other player answers as well as it can."""
    other = MIN if player == 0 else MAX
    kind = np.where((graph.mover == CHANCE) | (graph.mover == player), MEAN, other)
    prob = np.where(graph.mover[graph.source] == player, policy, _edge_probabilities(graph))
    return _values(graph, kind, prob, _results(graph, 0) - _results(graph, 1), tolerance)


def outcome_probabilities(graph: StateGraph, first: np.ndarray, second: np.ndarray,
                          tolerance: float = TOLERANCE) -> dict[str, float]:
    """The chances of each result when the first player plays the policy ``first`` and the second
    ``second``: the first player's win, the second's, and a draw (play that never ends included)."""
    mover = graph.mover[graph.source]
    prob = np.where(mover == 0, first, np.where(mover == 1, second, _edge_probabilities(graph)))
    kind = np.full(graph.size, MEAN)
    wins = [float(_values(graph, kind, prob, _results(graph, p), tolerance).value[0]) for p in (0, 1)]
    first_name, second_name = graph.players
    return {first_name: wins[0], second_name: wins[1], "draw": max(0.0, 1.0 - wins[0] - wins[1])}


def policy_of(graph: StateGraph, chosen: np.ndarray) -> np.ndarray:
    """Each edge's probability at its node for a player who picks uniformly among the edges of the
    boolean mask ``chosen`` (a node none of whose edges is chosen: all of them)."""
    source = graph.source
    chosen = chosen.astype(bool)
    picked = np.bincount(source[chosen], minlength=graph.size)
    degree = np.diff(graph.start)
    none = picked[source] == 0
    return np.where(none, 1.0 / degree[source], np.where(chosen, 1.0 / np.maximum(picked[source], 1), 0.0))


def policy_of_support(graph: StateGraph, support: list[list[int]] | np.ndarray) -> np.ndarray:
    """policy_of for a support as learners.exact gives one (a list of each state's edges, an edge
    listed twice twice as likely, or a boolean mask)."""
    if isinstance(support, np.ndarray):
        return policy_of(graph, support)
    counts = np.bincount(np.fromiter((e for edges in support for e in edges), dtype=np.int64),
                         minlength=len(graph.target)).astype(np.float64)
    per_node = np.bincount(graph.source, weights=counts, minlength=graph.size)
    degree = np.diff(graph.start)
    source = graph.source
    return np.where(per_node[source] > 0, counts / np.maximum(per_node[source], 1), 1.0 / degree[source])


def best_moves(graph: StateGraph, value: np.ndarray, tolerance: float = 1e-9) -> np.ndarray:
    """The edges that keep a node's value for its mover (within ``tolerance``), as a mask: a perfect
    player of a game of chance picks among them."""
    after = move_values(graph, value)
    best = np.where(graph.mover == 0, np.maximum.reduceat(after, graph.start[:-1].clip(max=len(after) - 1)),
                    np.minimum.reduceat(after, graph.start[:-1].clip(max=len(after) - 1)))
    return np.abs(after - best[graph.source]) <= tolerance


def move_values(graph: StateGraph, value: np.ndarray) -> np.ndarray:
    """Each edge's value for the mover: the value of where it leads, and in a game of score the
    points the move scores on the way."""
    after = value[graph.target]
    return after + graph.reward if graph.reward is not None else after


def _terminal(graph: StateGraph) -> np.ndarray:
    """Each end's value: the first player's result (+1, 0, -1), or a game of score's end points."""
    if graph.score is not None:
        return graph.score
    return _results(graph, 0) - _results(graph, 1)


def _results(graph: StateGraph, player: int) -> np.ndarray:
    """1.0 where ``player`` has won, else 0."""
    return (graph.winner == player).astype(np.float64)


def _edge_probabilities(graph: StateGraph) -> np.ndarray:
    return graph.prob if graph.prob is not None else np.ones(len(graph.target), dtype=np.float64)


def _values(graph: StateGraph, kind: np.ndarray, prob: np.ndarray, terminal: np.ndarray,
            tolerance: float) -> ChanceSolution:
    """Every node's value: OVER nodes keep ``terminal``, the others back their successors up as
    ``kind`` says, part by part (see the module)."""
    kind = np.where(graph.winner != ONGOING, OVER, kind).astype(np.int8)
    reward = graph.reward if graph.reward is not None else np.zeros(0, dtype=np.float64)     # none: no points
    order, part_start = _strong_parts(graph.size, graph.start, graph.target)
    value = terminal.astype(np.float64).copy()
    stats = np.zeros(4, dtype=np.int64)
    ok = _solve_parts(order, part_start, graph.start, graph.target, prob.astype(np.float64), reward, kind, value,
                      tolerance, MAX_SWEEPS, stats)
    if not ok:
        raise ArithmeticError(f"{graph.game}: a strongly connected part did not settle within {MAX_SWEEPS:,} sweeps")
    sizes = np.diff(part_start)
    return ChanceSolution(value, len(sizes), int(sizes.max()) if len(sizes) else 0, int(stats[0]),
                          int(stats[1]), int(stats[2]), tolerance)


def win_probability(graph: StateGraph, value: np.ndarray, node: int = 0) -> float | None:
    """The first player's chance of winning from ``node`` where the game has no draws ((1 + v) / 2); None if
    some position ends in a draw (the value is then wins less losses, not a probability), or in a game of score."""
    if graph.scored or (graph.winner == DRAW).any():
        return None
    return (1.0 + float(value[node])) / 2.0


@njit(cache=True)
def _strong_parts(n, start, target):
    """Tarjan's strongly connected parts, without recursion: ``order[part_start[p]:part_start[p+1]]``
    are part p's nodes, and every part comes after each part it leads to."""
    index = np.full(n, -1, dtype=np.int64)
    low = np.zeros(n, dtype=np.int64)
    on_stack = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    sp = 0
    call_node = np.empty(n, dtype=np.int64)
    call_edge = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    filled = 0
    part_start = np.empty(n + 1, dtype=np.int64)
    parts = 0
    part_start[0] = 0
    counter = 0
    for root in range(n):
        if index[root] != -1:
            continue
        depth = -1
        t = root
        push = True                         # t is met for the first time: number it, stack it, descend
        while True:
            if push:
                index[t] = counter
                low[t] = counter
                counter += 1
                stack[sp] = t
                sp += 1
                on_stack[t] = True
                depth += 1
                call_node[depth] = t
                call_edge[depth] = start[t]
                push = False
            if depth < 0:
                break
            v = call_node[depth]
            e = call_edge[depth]
            if e < start[v + 1]:
                call_edge[depth] = e + 1
                t = target[e]
                if index[t] == -1:
                    push = True
                elif on_stack[t] and index[t] < low[v]:
                    low[v] = index[t]
            else:
                if low[v] == index[v]:
                    while True:
                        sp -= 1
                        u = stack[sp]
                        on_stack[u] = False
                        order[filled] = u
                        filled += 1
                        if u == v:
                            break
                    parts += 1
                    part_start[parts] = filled
                depth -= 1
                if depth >= 0:
                    p = call_node[depth]
                    if low[v] < low[p]:
                        low[p] = low[v]
    return order, part_start[:parts + 1].copy()


@njit(cache=True)
def _solve_parts(order, part_start, start, target, prob, reward, kind, value, tol, max_sweeps, stats):
    """Solve each part in order (see the module); stats: cyclic parts, sweeps, most sweeps, unused.

    A node's value comes from its successors' values (and in a game of score, from the points of
    its edges, ``reward``; empty otherwise), as its kind says: MAX, MIN, the MEAN weighted by the
    edges' probabilities (a chance node, or a player whose policy is fixed), or OVER (kept).  The
    backup is written out in the sweep, each kind its own loop and no reward added where there is
    none: the sweeps of Pig's cyclic parts run it half a billion times, and a function for it (even
    inlined) or a reward of 0 added each time took 3-5 times as long."""
    scored = len(reward) > 0
    for p in range(len(part_start) - 1):
        a, b = part_start[p], part_start[p + 1]
        cyclic = b - a > 1
        if not cyclic:
            v = order[a]
            for e in range(start[v], start[v + 1]):
                if target[e] == v:
                    cyclic = True                   # a loop to itself
        if cyclic:
            stats[0] += 1
        sweeps = 0
        while True:
            sweeps += 1
            change = 0.0
            for i in range(a, b):
                v = order[i]
                k = kind[v]
                if k == 3:
                    continue
                e0, e1 = start[v], start[v + 1]
                if k == 2:
                    x = 0.0
                    if scored:
                        for e in range(e0, e1):
                            x += prob[e] * (reward[e] + value[target[e]])
                    else:
                        for e in range(e0, e1):
                            x += prob[e] * value[target[e]]
                elif scored:
                    x = reward[e0] + value[target[e0]]
                    for e in range(e0 + 1, e1):
                        y = reward[e] + value[target[e]]
                        if (k == 0 and y > x) or (k == 1 and y < x):
                            x = y
                elif k == 0:
                    x = value[target[e0]]
                    for e in range(e0 + 1, e1):
                        y = value[target[e]]
                        if y > x:
                            x = y
                else:
                    x = value[target[e0]]
                    for e in range(e0 + 1, e1):
                        y = value[target[e]]
                        if y < x:
                            x = y
                d = abs(x - value[v])
                if d > change:
                    change = d
                value[v] = x
            if not cyclic or change <= tol:
                break
            if sweeps >= max_sweeps:
                return False
        if cyclic:
            stats[1] += sweeps
            if sweeps > stats[2]:
                stats[2] = sweeps
    return True


def judged_side(graph: StateGraph, player: int, policy: np.ndarray, solved: ChanceSolution) -> dict:
    """One side of an agent's exact judgement on a game of chance: its chance of winning against a best
    response (its expected result where there are draws), the game's value for that side, whether they
    are equal (perfect), and its chance of winning against a uniformly random opponent."""
    sign = 1.0 if player == 0 else -1.0
    draws = bool((graph.winner == DRAW).any())

    def measure(v: float) -> float:
        return v if draws else (1.0 + v) / 2.0
    got = sign * float(against_best_response(graph, player, policy).value[0])
    best = sign * float(solved.value[0])
    uniform = policy_of(graph, np.ones(len(graph.target), dtype=bool))
    pair = (policy, uniform) if player == 0 else (uniform, policy)
    vs_random = outcome_probabilities(graph, *pair)[graph.players[player]]
    shown = f"{measure(got):.2%} won" if not draws else f"{got:+.4f} expected"
    return {"guaranteed": shown, "perfect": abs(got - best) <= 1e-9, "subgame_perfect": abs(got - best) <= 1e-9,
            "mistakes": 0, "against_best_response": measure(got), "game_value": measure(best),
            "win_vs_random": round(vs_random, 6)}


def checkpoint(graph: StateGraph, chosen: np.ndarray, games: int, solved: ChanceSolution) -> dict:
    """A learning curve's point on a game of chance after ``games``: each side judged (judged_side) for
    an agent that picks among the edges ``chosen`` marks."""
    policy = policy_of(graph, chosen)
    return {"games": games, **{label: judged_side(graph, p, policy, solved)
                               for label, p in (("as_first", 0), ("as_second", 1))}}


def score_judgement(graph: StateGraph, policy: np.ndarray, solved: ChanceSolution) -> dict:
    """A game of score: the exact expected score of a player who plays ``policy`` (policy_of's form),
    beside the best (``solved``'s), and whether it is the best."""
    got = float(expected_score(graph, policy).value[0])
    best = float(solved.value[0])
    return {"expected_score": got, "best_expected_score": best, "perfect": abs(best - got) <= 1e-9 * max(1.0, abs(best))}


def score_checkpoint(graph: StateGraph, chosen: np.ndarray, games: int, solved: ChanceSolution) -> dict:
    """A learning curve's point on a game of score after ``games``: score_judgement of an agent that
    picks among the edges ``chosen`` marks."""
    return {"games": games, **score_judgement(graph, policy_of(graph, chosen), solved)}
