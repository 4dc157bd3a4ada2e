"""``believer``: our rat-race player.  The genome holds a belief about every colour; the specimen plans with it.

The genome (first bit of each field most significant):

* bits 5c..5c+4, colour c (0..15): a number v; v & 3 is the kind and
  v >> 2 (0..7) the detail.  Kind 0: empty.  Kind 1: a wall when detail
  bit 0 is set, else empty.  Kind 2: a trap, the detail saying which of
  the 8 other cells of its 3x3 it makes deadly (``TRAP_MARKS``, in reading
  order: dy = -1 first, dx from -1; a trap that kills on its own cell is
  believed a wall, which comes to the same).  Kind 3: a teleporter,
  trusted when detail bit 2 is set, bit 0 then saying which of the two
  jumps it makes and bit 1 whether that jump is negated (the track's four
  teleporters are two jumps and their negations); untrusted, it is to be
  avoided when bit 0 is set, else believed empty.  So a random genome
  believes a colour empty 14 times in 32, a wall 4, a trap 8, a trusted
  teleporter 4 and one to avoid 2: nearer the board's own shares (8, 2, 2
  and 4 colours of 16).  With each kind equally likely, as first written,
  populations settled on calling empty colours walls, which is safe but
  blocks the way: 62% and 69% of boards reached 10 goals (100 boards each
  of seeds 40 and 41), 86% and 90% with these shares and the wander rule
  below at 0.5, 92% and 90% at 0.7;
* bits 80..95, the two jumps: 4 bits of dx and 4 of dy each (value % 9 - 4);
* bits 96..99, how often it explores: (value + 1) / 40 of its moves.

Each turn the specimen marks the cells of its 5x5 view it believes deadly
(out of bounds, the cells a believed trap marks), the walls, and the cells
it will not step on (teleporters it does not trust, and trusted ones whose
landing it cannot see or sees deadly).  A trusted teleporter whose landing
it sees safe is worth the landing's column.  Then it sweeps the view from
the right edge inwards: a cell's worth is the furthest column a path of
forward steps (dx = +1, any dy) can reach from it through cells it may
enter.  It takes the move into the cell worth most, then the one going
furthest right now, ties at random; it never stays put or walks into a
wall (both earn nothing), and now and then (its explore rate) it takes any
move it believes safe, which is how a specimen without memory leaves a
dead end; when nothing in view leads even a column ahead it wanders so
with probability ``STUCK`` (or its explore rate, if higher) instead of
pacing at the end of the dead end.  Selection keeps the specimens whose
beliefs are right for the board, including how much to explore.
"""
from __future__ import annotations

import numba
import numpy as np

from educable.learners.race.players import Kernel, genome_field

BELIEVE_EMPTY, BELIEVE_WALL, BELIEVE_TRAP, BELIEVE_TELEPORTER = range(4)
COLOUR_BITS, JUMPS_AT, EXPLORE_AT = 5, 80, 96
TRAP_MARKS = ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1))
NONE = -100
STUCK = 0.7                              # chance of a random believed-safe move when nothing in view leads ahead
# Features.  Per colour c (and -1, out of bounds) a flag word at FLAGS + c + 1; the move works on bit masks of
# the view: cell (i, j) (i = dx+2, j = dy+2) is bit (i+1)*ROW + j+1 of a 7x7 grid, so a trap's mark may fall
# off the view without a bounds check.
ROW = 7
SELF_DEADLY, WALL_BIT, TRUSTED_BIT, AVOID_BIT, TRAP_BIT = 1, 2, 4, 8, 16
MARK_SHIFT, JUMP_SHIFT = 5, 12           # a trap's mark as a bit shift + 8; a teleporter's jump (dx+4)*9 + dy+4
FLAGS, EXPLORE, FEATURES = 0, 17, 18
EXPLORE_SCALE = 1 << 20                  # the explore rate as a fraction of this


@numba.njit(cache=True, error_model="numpy")
def beliefs(genome, out):
    """The genome read as above: out[FLAGS + c + 1] colour c's flag word, out[EXPLORE] the explore rate."""
    out[FLAGS] = SELF_DEADLY                         # out of bounds
    for c in range(16):
        v = genome_field(genome, COLOUR_BITS * c, COLOUR_BITS)
        kind, detail = v & 3, v >> 2
        f = 0
        if kind == BELIEVE_WALL:
            if detail & 1:
                f = WALL_BIT
        elif kind == BELIEVE_TRAP:
            dx, dy = TRAP_MARKS[detail]
            f = TRAP_BIT | ((dx * ROW + dy + 8) << MARK_SHIFT)
        elif kind == BELIEVE_TELEPORTER:
            if detail >> 2:
                at = JUMPS_AT + 8 * (detail & 1)
                dx, dy = genome_field(genome, at, 4) % 9 - 4, genome_field(genome, at + 4, 4) % 9 - 4
                if detail & 2:
                    dx, dy = -dx, -dy
                f = TRUSTED_BIT | (((dx + 4) * 9 + dy + 4) << JUMP_SHIFT)
            elif detail & 1:
                f = AVOID_BIT
        out[FLAGS + c + 1] = f
    out[EXPLORE] = (genome_field(genome, EXPLORE_AT, 4) + 1) * EXPLORE_SCALE // 40


def describe(features: np.ndarray) -> tuple[list[tuple], float]:
    """What ``beliefs`` decoded, readable: per colour ("empty",), ("wall",), ("avoid",), ("trap", dx, dy)
    (the cell it marks) or ("teleporter", dx, dy) (a trusted jump); and the explore rate."""
    out: list[tuple] = []
    for c in range(16):
        f = int(features[FLAGS + c + 1])
        if f & WALL_BIT:
            out.append(("wall",))
        elif f & AVOID_BIT:
            out.append(("avoid",))
        elif f & TRAP_BIT:
            mark = ((f >> MARK_SHIFT) & 127) - 8 + ROW + 1       # (dx+1)*ROW + dy+1
            out.append(("trap", mark // ROW - 1, mark % ROW - 1))
        elif f & TRUSTED_BIT:
            code = f >> JUMP_SHIFT
            out.append(("teleporter", code // 9 - 4, code % 9 - 4))
        else:
            out.append(("empty",))
    return out, int(features[EXPLORE]) / EXPLORE_SCALE


@numba.njit(cache=True, error_model="numpy", inline="always")
def _bit(i, j):
    return np.int64(1) << ((i + 1) * ROW + j + 1)


@numba.njit(cache=True, error_model="numpy", inline="always")
def _landing(i, j, view, belief):
    """The view cell a trusted teleporter at (i, j) is believed to send a specimen to (maybe off the view)."""
    code = belief[FLAGS + 1 + view[i, j]] >> JUMP_SHIFT
    return i + code // 9 - 4, j + code % 9 - 4


@numba.njit(cache=True, error_model="numpy", inline="always")
def _cell(i, j, prev, blocked, tele, view, belief):
    """Worth of view cell (i, j) given the worth of column i+1."""
    bit = _bit(i, j)
    if blocked & bit:
        return NONE
    if tele & bit:                       # a teleporter with a safe landing in view: the landing's column
        return _landing(i, j, view, belief)[0] - 2
    best = i - 2
    for dj in range(-1, 2):
        if 0 <= j + dj < 5 and prev[j + dj] > best:
            best = prev[j + dj]
    return best


@numba.njit(cache=True, error_model="numpy", inline="always")
def _column(i, prev, blocked, tele, view, belief):
    return (_cell(i, 0, prev, blocked, tele, view, belief), _cell(i, 1, prev, blocked, tele, view, belief),
            _cell(i, 2, prev, blocked, tele, view, belief), _cell(i, 3, prev, blocked, tele, view, belief),
            _cell(i, 4, prev, blocked, tele, view, belief))


@numba.njit(cache=True, error_model="numpy")
def believer_move(view, belief, u0, u1):
    """One move: see the module's text.  Cells are bits of masks and columns tuples (no allocation)."""
    deadly, wall, avoid, trusted = np.int64(0), np.int64(0), np.int64(0), np.int64(0)
    for i in range(5):
        for j in range(5):
            f = belief[FLAGS + 1 + view[i, j]]
            at = (i + 1) * ROW + j + 1
            deadly |= ((f & SELF_DEADLY) << at) | (((f >> 4) & 1) << (at + ((f >> MARK_SHIFT) & 127) - 8))
            wall |= ((f >> 1) & 1) << at
            trusted |= ((f >> 2) & 1) << at
            avoid |= ((f >> 3) & 1) << at
    unsafe = deadly | wall               # where a teleport must not land
    tele = np.int64(0)                   # trusted teleporters whose landing is in view and believed safe
    if trusted:
        for i in range(5):
            for j in range(5):
                if trusted & _bit(i, j):
                    li, lj = _landing(i, j, view, belief)
                    if 0 <= li < 5 and 0 <= lj < 5 and not unsafe & _bit(li, lj):
                        tele |= _bit(i, j)
    blocked = deadly | wall | avoid | (trusted & ~tele)
    edge = (NONE, NONE, NONE, NONE, NONE)
    w3 = _column(3, _column(4, edge, blocked, tele, view, belief), blocked, tele, view, belief)
    w2 = _column(2, w3, blocked, tele, view, belief)
    w1 = _column(1, w2, blocked, tele, view, belief)
    explore = u1 * EXPLORE_SCALE < belief[EXPLORE]
    if not explore and u1 < STUCK:       # stuck: no cell in view leads a column ahead
        ahead = NONE
        for j in range(5):
            ahead = max(ahead, w1[j], w2[j], w3[j])
        explore = ahead <= 0
    best, ties = NONE * 16, 0
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
