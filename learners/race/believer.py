"""``believer``: our rat-race player.  The genome holds a belief about every colour; the specimen plans with it.

Colour c's 6 genome bits (first bit most significant) are a number v:
v & 3 is what the specimen believes c is (empty; a wall; a trap; a
teleporter), and v >> 2 (0..15) the detail: for a trap, which cell of its
3x3 it makes deadly ((v >> 2) % 9); for a teleporter, whether it is worth
stepping on (odd) or to be avoided (even).

Each turn the specimen marks the cells of its 5x5 view it believes deadly
(out of bounds, cells a believed trap points at, teleporters it avoids)
and the walls it cannot enter, then sweeps the view from the right edge
inwards: a cell's worth is the furthest column a path of forward steps
(dx = +1, any dy) can reach from it through cells it believes safe, and a
teleporter it trusts is worth a jump ahead.  It takes the move into the
cell worth most, then the one going furthest right now, ties at random;
moving into a wall is staying put.  Selection keeps the specimens whose
beliefs about the colours around them are right.
"""
from __future__ import annotations

import numba
import numpy as np

from learners.race.players import Kernel

BELIEVE_EMPTY, BELIEVE_WALL, BELIEVE_TRAP, BELIEVE_TELEPORTER = range(4)
JUMP = 3                                 # what a trusted teleporter is believed worth, in columns
NONE = -100
EXPLORE = 0.125                          # chance of a random believed-safe move


@numba.njit(cache=True, error_model="numpy")
def beliefs(genome, out):
    """Per colour c: out[3c] the believed kind, out[3c+1], out[3c+2] the detail (trap offset, or trust)."""
    for c in range(16):
        v = 0
        for i in range(6):
            v = (v << 1) | genome[c * 6 + i]
        kind = v & 3
        detail = v >> 2
        out[3 * c] = kind
        if kind == BELIEVE_TRAP:
            out[3 * c + 1] = detail % 9 % 3 - 1
            out[3 * c + 2] = detail % 9 // 3 - 1
        else:
            out[3 * c + 1] = detail & 1
            out[3 * c + 2] = 0


@numba.njit(cache=True, error_model="numpy")
def believer_move(view, belief, u0, u1):
    """One move: see the module's text."""
    deadly = np.zeros((5, 5), dtype=np.bool_)
    wall = np.zeros((5, 5), dtype=np.bool_)
    jump = np.zeros((5, 5), dtype=np.int64)
    for i in range(5):
        for j in range(5):
            c = view[i, j]
            if c < 0:
                deadly[i, j] = True
                continue
            kind = belief[3 * c]
            if kind == BELIEVE_WALL:
                wall[i, j] = True
            elif kind == BELIEVE_TRAP:
                ti, tj = i + belief[3 * c + 1], j + belief[3 * c + 2]
                if 0 <= ti < 5 and 0 <= tj < 5:
                    deadly[ti, tj] = True
            elif kind == BELIEVE_TELEPORTER:
                jump[i, j] = JUMP if belief[3 * c + 1] else -JUMP
    worth = np.full((5, 5), NONE, dtype=np.int64)
    for j in range(5):
        if not deadly[4, j] and not wall[4, j]:
            worth[4, j] = 2 + jump[4, j]
    for i in range(3, -1, -1):
        for j in range(5):
            if deadly[i, j] or wall[i, j]:
                continue
            if jump[i, j]:
                worth[i, j] = i - 2 + jump[i, j]
                continue
            best = i - 2
            for dj in range(-1, 2):
                if 0 <= j + dj < 5 and worth[i + 1, j + dj] > best:
                    best = worth[i + 1, j + dj]
            worth[i, j] = best
    best_score, ties = NONE * 16, 0
    cand = np.empty((9, 2), dtype=np.int64)
    for dx in range(-1, 2):
        for dy in range(-1, 2):
            i, j = dx + 2, dy + 2
            if (dx == 0 and dy == 0) or wall[i, j]:
                continue                     # never idle: staying put earns nothing
            w = worth[i, j]
            score = w * 4 + dx if w != NONE else NONE * 8 + dx     # if all looks deadly, risk a step ahead
            if view[i, j] < 0:
                score = NONE * 16
            if score > best_score:
                best_score, ties = score, 0
            if score == best_score:
                cand[ties, 0], cand[ties, 1] = dx, dy
                ties += 1
    if ties == 0:
        return 1, 0
    if u1 < EXPLORE:                         # now and then any move it does not believe deadly: no memory,
        ties = 0                             # so this is how it leaves a dead end
        for dx in range(-1, 2):
            for dy in range(-1, 2):
                if (dx != 0 or dy != 0) and not wall[dx + 2, dy + 2] and worth[dx + 2, dy + 2] != NONE:
                    cand[ties, 0], cand[ties, 1] = dx, dy
                    ties += 1
        if ties == 0:
            return 1, 0
    k = min(int(u0 * ties), ties - 1)
    return cand[k, 0], cand[k, 1]

believer = Kernel(believer_move, beliefs, 48, "Ours: the genome holds beliefs about colours; plans a path with them.")
