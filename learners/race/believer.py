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

from learners.race.players import Kernel, colour_scores

BELIEVE_EMPTY, BELIEVE_WALL, BELIEVE_TRAP, BELIEVE_TELEPORTER = range(4)
JUMP = 3                                 # what a trusted teleporter is believed worth, in columns
NONE = -100
EXPLORE = 0.125                          # chance of a random believed-safe move
# the move works on bit masks of the view: cell (i, j) (i = dx+2, j = dy+2) is bit (i+1)*ROW + j+1 of a
# 7x7 grid, so a trap's mark may fall off the view without a bounds check
ROW = 7
PACKED = 48
FEATURES = PACKED + 17
SELF_DEADLY, WALL_BIT, GOOD_BIT, BAD_BIT, TRAP_BIT = 1, 2, 4, 8, 16


@numba.njit(cache=True, error_model="numpy")
def beliefs(genome, out):
    """Per colour c: out[3c] the believed kind, out[3c+1], out[3c+2] the detail (trap offset, or trust)."""
    values = np.zeros(16, dtype=np.int64)
    colour_scores(genome, values)                    # 6 bits a colour, read as the sample reads them
    for c in range(16):
        v = values[c]
        kind = v & 3
        detail = v >> 2
        out[3 * c] = kind
        if kind == BELIEVE_TRAP:
            out[3 * c + 1] = detail % 9 % 3 - 1
            out[3 * c + 2] = detail % 9 // 3 - 1
        else:
            out[3 * c + 1] = detail & 1
            out[3 * c + 2] = 0
    # the same, packed for the move: entry PACKED + c + 1 (PACKED + 0: out of bounds), see _pack
    out[PACKED] = SELF_DEADLY
    for c in range(16):
        out[PACKED + c + 1] = _pack(out[3 * c], out[3 * c + 1], out[3 * c + 2])


@numba.njit(cache=True, error_model="numpy")
def _pack(kind, a, b):
    """One colour's belief as bits: wall, trusted or distrusted teleporter, trap and its mark's shift."""
    if kind == BELIEVE_WALL:
        return WALL_BIT
    if kind == BELIEVE_TELEPORTER:
        return GOOD_BIT if a else BAD_BIT
    if kind == BELIEVE_TRAP:
        return TRAP_BIT | ((a * ROW + b + 8) << 5)
    return 0


@numba.njit(cache=True, error_model="numpy", inline="always")
def _bit(i, j):
    return np.int64(1) << ((i + 1) * ROW + j + 1)


@numba.njit(cache=True, error_model="numpy", inline="always")
def _cell(i, j, prev, blocked, good, bad):
    """Worth of view cell (i, j) given the worth of column i+1."""
    bit = _bit(i, j)
    if blocked & bit:
        return NONE
    if good & bit:
        return i - 2 + JUMP
    if bad & bit:
        return i - 2 - JUMP
    best = i - 2
    for dj in range(-1, 2):
        if 0 <= j + dj < 5 and prev[j + dj] > best:
            best = prev[j + dj]
    return best


@numba.njit(cache=True, error_model="numpy", inline="always")
def _column(i, prev, blocked, good, bad):
    return (_cell(i, 0, prev, blocked, good, bad), _cell(i, 1, prev, blocked, good, bad),
            _cell(i, 2, prev, blocked, good, bad), _cell(i, 3, prev, blocked, good, bad),
            _cell(i, 4, prev, blocked, good, bad))


@numba.njit(cache=True, error_model="numpy")
def believer_move(view, belief, u0, u1):
    """One move: see the module's text.  Cells are bits of masks and columns tuples (no allocation)."""
    deadly, wall, good, bad = np.int64(0), np.int64(0), np.int64(0), np.int64(0)
    for i in range(5):
        for j in range(5):
            f = belief[PACKED + 1 + view[i, j]]
            at = (i + 1) * ROW + j + 1
            deadly |= ((f & SELF_DEADLY) << at) | (((f >> 4) & 1) << (at + ((f >> 5) & 31) - 8))
            wall |= ((f >> 1) & 1) << at
            good |= ((f >> 2) & 1) << at
            bad |= ((f >> 3) & 1) << at
    blocked = deadly | wall
    edge = (NONE, NONE, NONE, NONE, NONE)
    w3 = _column(3, _column(4, edge, blocked, good, bad), blocked, good, bad)
    w2 = _column(2, w3, blocked, good, bad)
    w1 = _column(1, w2, blocked, good, bad)
    explore = u1 < EXPLORE               # now and then any move it does not believe deadly: it has no
    best, ties = NONE * 16, 0            # memory, so this is how it leaves a dead end
    for rnd in range(2):                 # first find the best score and its ties, then take the k-th
        k = min(int(u0 * ties), ties - 1) if rnd else -1
        for dx in range(-1, 2):
            for dy in range(-1, 2):
                i, j = dx + 2, dy + 2
                if (dx == 0 and dy == 0) or wall & _bit(i, j) or view[i, j] < 0:
                    continue             # never idle (staying put earns nothing), never out of bounds
                w = w3[j] if dx == 1 else (w2[j] if dx == 0 else w1[j])
                if explore:
                    score = 0 if w != NONE else NONE
                else:                    # if everything looks deadly, risk a step ahead
                    score = w * 4 + dx if w != NONE else NONE * 8 + dx
                if rnd == 0:
                    if score > best:
                        best, ties = score, 1
                    elif score == best:
                        ties += 1
                elif score == best:
                    if k == 0:
                        return dx, dy
                    k -= 1
        if ties == 0:
            return 1, 0
    return 1, 0

believer = Kernel(believer_move, beliefs, FEATURES, "Ours: the genome holds beliefs about colours; plans a path with them.")
