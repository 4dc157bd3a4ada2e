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


def solve(graph: StateGraph, tolerance: float = TOLERANCE) -> ChanceSolution:
    """Expectimax values of every node of a two-player graph, for the first player (see the module)."""
    if len(graph.players) != 2:
        raise ValueError("solving a game of chance needs two players")
    n = graph.size
    terminal = np.zeros(n, dtype=np.float64)
    w = graph.winner
    terminal[w == 0] = 1.0
    terminal[w == 1] = -1.0
    kind = np.where(w != ONGOING, 3, np.where(graph.mover == CHANCE, 2, graph.mover)).astype(np.int8)
    prob = graph.prob if graph.prob is not None else np.ones(len(graph.target), dtype=np.float64)
    order, part_start = _strong_parts(n, graph.start, graph.target)
    value = terminal.copy()
    stats = np.zeros(4, dtype=np.int64)
    ok = _solve_parts(order, part_start, graph.start, graph.target, prob, kind, value, tolerance, MAX_SWEEPS, stats)
    if not ok:
        raise ArithmeticError(f"{graph.game}: a strongly connected part did not settle within {MAX_SWEEPS:,} sweeps")
    sizes = np.diff(part_start)
    return ChanceSolution(value, len(sizes), int(sizes.max()) if len(sizes) else 0, int(stats[0]),
                          int(stats[1]), int(stats[2]), tolerance)


def win_probability(graph: StateGraph, value: np.ndarray, node: int = 0) -> float | None:
    """The first player's chance of winning from ``node`` where the game has no draws ((1 + v) / 2); None if
    some position ends in a draw (the value is then wins less losses, not a probability)."""
    if (graph.winner == DRAW).any():
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
        depth = 0
        call_node[0] = root
        call_edge[0] = start[root]
        index[root] = counter
        low[root] = counter
        counter += 1
        stack[sp] = root
        sp += 1
        on_stack[root] = True
        while depth >= 0:
            v = call_node[depth]
            e = call_edge[depth]
            if e < start[v + 1]:
                call_edge[depth] = e + 1
                t = target[e]
                if index[t] == -1:
                    index[t] = counter
                    low[t] = counter
                    counter += 1
                    stack[sp] = t
                    sp += 1
                    on_stack[t] = True
                    depth += 1
                    call_node[depth] = t
                    call_edge[depth] = start[t]
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
def _backup(v, start, target, prob, kind, value):
    """The value of node v from its successors' values: max for the first player, min for the second,
    the weighted mean at a chance node."""
    k = kind[v]
    if k == 3:
        return value[v]
    a, b = start[v], start[v + 1]
    if k == 2:
        s = 0.0
        for e in range(a, b):
            s += prob[e] * value[target[e]]
        return s
    best = value[target[a]]
    for e in range(a + 1, b):
        x = value[target[e]]
        if (k == 0 and x > best) or (k == 1 and x < best):
            best = x
    return best


@njit(cache=True)
def _solve_parts(order, part_start, start, target, prob, kind, value, tol, max_sweeps, stats):
    """Solve each part in order (see the module); stats: cyclic parts, sweeps, most sweeps, unused."""
    for p in range(len(part_start) - 1):
        a, b = part_start[p], part_start[p + 1]
        if b - a == 1:
            v = order[a]
            loop = False
            for e in range(start[v], start[v + 1]):
                if target[e] == v:
                    loop = True
            if not loop:
                value[v] = _backup(v, start, target, prob, kind, value)
                continue
        stats[0] += 1
        sweeps = 0
        while True:
            sweeps += 1
            change = 0.0
            for i in range(a, b):
                v = order[i]
                x = _backup(v, start, target, prob, kind, value)
                d = abs(x - value[v])
                if d > change:
                    change = d
                value[v] = x
            if change <= tol:
                break
            if sweeps >= max_sweeps:
                return False
        stats[1] += sweeps
        if sweeps > stats[2]:
            stats[2] = sweeps
    return True
