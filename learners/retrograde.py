"""Exact values by retrograde analysis over a compiled state graph.

Start from the positions where the game is over and work backwards: a
position is won for its mover as soon as one move reaches a position lost
for the player to move there, and settled (lost, or drawn) once every move
is.  Each pass settles every position whose moves were settled by the
passes before, over all edges at once in numpy, so a graph takes as many
passes as its longest forced line (16 for 4x4 tic-tac-toe).  Positions that
no pass settles (play that can go round forever) are draws.  Works on
folded graphs too: a value does not change under a symmetry.
"""
from __future__ import annotations

import numpy as np

from educable.learners.graph import DRAW, ONGOING, StateGraph

UNSETTLED = -2


def solve(graph: StateGraph) -> np.ndarray:
    """The exact value of every node for its mover (1 win, 0 draw, -1 loss), as int8."""
    n = graph.size
    start, target = graph.start, graph.target
    degree = np.diff(start)
    # a successor's value seen by the mover before the move: negated when the turn passes
    sign = np.where(graph.turn_passes, -1, 1).astype(np.int8)
    value = np.zeros(n, dtype=np.int8)
    over = graph.winner != ONGOING
    w = graph.winner[over]
    value[over] = np.where(w == DRAW, 0, np.where(w == graph.mover[over], 1, -1))
    settled = over.copy()
    inner = np.flatnonzero(degree > 0)         # nodes with moves (reduceat needs non-empty runs)
    offsets = start[inner]
    while True:
        seen = np.where(settled[target], value[target] * sign, UNSETTLED).astype(np.int8)
        best = np.maximum.reduceat(seen, offsets) if len(inner) else seen[:0]
        worst = np.minimum.reduceat(seen, offsets) if len(inner) else seen[:0]
        fresh = ~settled[inner] & ((best == 1) | (worst > UNSETTLED))
        if not fresh.any():
            return value
        nodes = inner[fresh]
        value[nodes] = best[fresh]
        settled[nodes] = True
