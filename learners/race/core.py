"""The controller's compiled loops (numba): views, moves, deaths, goals and breeding of many boards.

Specimens live in one table ``sp[2, cap, NCOL]`` (two buffers: each turn
reads one and writes the survivors and the children into the other),
grouped by board in board order, so a board's specimens are one segment.
Genomes live in a pool (``pool[slot, bit]``) with a stack of free slots; a
specimen holds its slot.  Per board, ``st[board, ...]`` keeps the goals,
moves made, peak population, the turn it emptied, the next serial number
and the current count.  ``S`` holds the buffer in use, the specimen count,
the free-slot count and how many children this turn made (their slots in
``new_ids``).  All draws come from ``rand`` (board seed, turn, stream, index).

``enter`` and ``wall`` are the tracks' maps with a cell written as
``(y << 8) | x`` (no division in the loop).

Two drivers share ``finish_turn``: the Python loop in ``sim.Race`` asks a
numpy batch player for all moves of a turn; ``drive`` runs whole games in
compiled code with a compiled per-specimen player (a kernel).
"""
from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np
from numba import types

from educable.learners.race.rand import turn_key, uniform

BOARD, SERIAL, GID, X, Y, AGE, GOALS = range(7)
NCOL = 7
B_GOALS, B_MOVES, B_PEAK, B_ENDED, B_NEXT, B_COUNT = range(6)
NSTAT = 6
P_WIDTH, P_HEIGHT, P_GOAL_X, P_MAX_AGE, P_KIDS, P_BITS, P_GOAL_FIT, P_RADIUS, P_START = range(9)
Q_SWITCH, Q_MUTATION = range(2)
S_CUR, S_N, S_NFREE, S_NNEW = range(4)
DEAD, GOAL = -1, -2
# random streams
S_PLAYER, S_RESPAWN, S_PARENTS, S_START_PARENT, S_SWITCH, S_FLIP, S_PLACE, S_GENOME = range(8)
GAP_BLOCK = 4096               # draw numbers per child reserved for one stream's gaps
NEVER = 1 << 40


@numba.njit(cache=True, error_model="numpy")
def _pop_slot(S, free):
    S[S_NFREE] -= 1
    return free[S[S_NFREE]]


@numba.njit(cache=True, error_model="numpy")
def _push_slot(S, free, slot):
    free[S[S_NFREE]] = slot
    S[S_NFREE] += 1


@numba.njit(cache=True, error_model="numpy")
def _start_row(starts, n_starts, b, u):
    return starts[b, min(int(u * n_starts[b]), n_starts[b] - 1)]


@numba.njit(cache=True, error_model="numpy")
def _newborn(row, b, serial, slot, y, S, new_ids):
    """A new specimen's row (age 0, no goals, on start cell (0, y)); its genome slot joins new_ids."""
    row[BOARD] = b
    row[SERIAL] = serial
    row[GID] = slot
    row[X] = 0
    row[Y] = y
    row[AGE] = 0
    row[GOALS] = 0
    new_ids[S[S_NNEW]] = slot
    S[S_NNEW] += 1


@numba.njit(cache=True, error_model="numpy")
def _gap(key, index, p, log_q):
    """A geometric gap (>= 1) between independent events of chance p."""
    if p <= 0.0:
        return NEVER
    if p >= 1.0:
        return 1
    return 1 + int(np.floor(np.log1p(-uniform(key, index)) / log_q))


@numba.njit(cache=True, error_model="numpy")
def init_population(seeds, P, S, sp, st, pool, free, starts, n_starts, new_ids):
    """The starting specimens of every board: random genomes, random start cells, age 0."""
    n0, bits = P[P_START], P[P_BITS]
    cur = S[S_CUR]
    m = 0
    S[S_NNEW] = 0
    for b in range(len(seeds)):
        kg = turn_key(seeds[b], -1, S_GENOME)
        kp = turn_key(seeds[b], -1, S_PLACE)
        for s in range(n0):
            slot = _pop_slot(S, free)
            for j in range(bits):
                pool[slot, j] = 1 if uniform(kg, s * bits + j) < 0.5 else 0
            _newborn(sp[cur, m], b, s, slot, _start_row(starts, n_starts, b, uniform(kp, s)), S, new_ids)
            m += 1
        st[b, B_NEXT] = n0
        st[b, B_COUNT] = n0
        st[b, B_PEAK] = n0
        st[b, B_ENDED] = -1
    S[S_N] = m


@numba.njit(cache=True, error_model="numpy")
def finish_turn(t, seeds, P, Q, S, sp, moves, enter, wall, starts, n_starts, st, pool, free, new_ids, cum):
    """Apply this turn's moves (old specimens die instead), then breed; the table switches buffers."""
    w, max_age, kids, bits, goal_fit = P[P_WIDTH], P[P_MAX_AGE], P[P_KIDS], P[P_BITS], P[P_GOAL_FIT]
    ew = w + 2
    p_switch, p_flip = Q[Q_SWITCH], Q[Q_MUTATION]
    lq_switch = np.log1p(-p_switch) if 0.0 < p_switch < 1.0 else 0.0
    lq_flip = np.log1p(-p_flip) if 0.0 < p_flip < 1.0 else 0.0
    cur = S[S_CUR]
    out = 1 - cur
    m = 0
    i0 = 0
    S[S_NNEW] = 0
    for b in range(len(seeds)):
        seed = seeds[b]
        cnt = st[b, B_COUNT]
        first = m
        k_respawn = turn_key(seed, t, S_RESPAWN)
        for i in range(i0, i0 + cnt):
            age = sp[cur, i, AGE]
            if age >= max_age:
                _push_slot(S, free, sp[cur, i, GID])
                continue
            st[b, B_MOVES] += 1
            x, y = sp[cur, i, X], sp[cur, i, Y]
            tx, ty = x + moves[i, 0], y + moves[i, 1]
            if wall[b, (ty + 1) * ew + tx + 1]:
                o = enter[b, (y + 1) * ew + x + 1]
            else:
                o = enter[b, (ty + 1) * ew + tx + 1]
            if o == DEAD:
                _push_slot(S, free, sp[cur, i, GID])
                continue
            for c in range(NCOL):
                sp[out, m, c] = sp[cur, i, c]
            if o == GOAL:
                sp[out, m, GOALS] += 1
                st[b, B_GOALS] += 1
                sp[out, m, X] = 0
                sp[out, m, Y] = _start_row(starts, n_starts, b, uniform(k_respawn, sp[cur, i, SERIAL]))
                sp[out, m, AGE] = 0
            else:
                sp[out, m, X] = o & 255
                sp[out, m, Y] = o >> 8
                sp[out, m, AGE] = age + 1
            m += 1
        i0 += cnt
        alive = m - first
        if alive >= 2:
            total = 0
            for j in range(alive):
                total += 1 + sp[out, first + j, X] + goal_fit * sp[out, first + j, GOALS]
                cum[j] = total
            k_par = turn_key(seed, t, S_PARENTS)
            k_first = turn_key(seed, t, S_START_PARENT)
            k_switch = turn_key(seed, t, S_SWITCH)
            k_flip = turn_key(seed, t, S_FLIP)
            k_place = turn_key(seed, t, S_PLACE)
            for c in range(kids):
                # first parent in proportion to fitness; the second likewise among the others
                r1 = min(int(uniform(k_par, 2 * c) * total), total - 1)
                p1 = np.searchsorted(cum[:alive], r1, side="right")
                f1 = cum[p1] - (cum[p1 - 1] if p1 > 0 else 0)
                r2 = min(int(uniform(k_par, 2 * c + 1) * (total - f1)), total - f1 - 1)
                if r2 >= cum[p1] - f1:
                    r2 += f1
                p2 = np.searchsorted(cum[:alive], r2, side="right")
                g1 = pool[sp[out, first + p1, GID]]
                g2 = pool[sp[out, first + p2, GID]]
                slot = _pop_slot(S, free)
                child = pool[slot]
                second = uniform(k_first, c) >= 0.5
                n_sw, n_fl = 0, 0
                sw = _gap(k_switch, c * GAP_BLOCK, p_switch, lq_switch) - 1
                fl = _gap(k_flip, c * GAP_BLOCK, p_flip, lq_flip) - 1
                for j in range(bits):
                    bit = g2[j] if second else g1[j]
                    if j == fl:
                        bit ^= 1
                        n_fl += 1
                        fl += _gap(k_flip, c * GAP_BLOCK + n_fl, p_flip, lq_flip)
                    child[j] = bit
                    if j == sw:
                        second = not second
                        n_sw += 1
                        sw += _gap(k_switch, c * GAP_BLOCK + n_sw, p_switch, lq_switch)
                _newborn(sp[out, m], b, st[b, B_NEXT] + c, slot,
                         _start_row(starts, n_starts, b, uniform(k_place, c)), S, new_ids)
                m += 1
            st[b, B_NEXT] += kids
        count = m - first
        st[b, B_COUNT] = count
        if count > st[b, B_PEAK]:
            st[b, B_PEAK] = count
        if count == 0 and st[b, B_ENDED] < 0:
            st[b, B_ENDED] = t + 1
    S[S_CUR] = out
    S[S_N] = m


@numba.njit(cache=True, error_model="numpy")
def gather(t, seeds, P, S, sp, st, grid, views, noise):
    """Every specimen's view (``views[i, dx+r, dy+r]``, -1 out of bounds) and its two player draws."""
    w, r = P[P_WIDTH], P[P_RADIUS]
    gw = w + 2 * r
    side = 2 * r + 1
    cur = S[S_CUR]
    i = 0
    for b in range(len(seeds)):
        key = turn_key(seeds[b], t, S_PLAYER)
        for _ in range(st[b, B_COUNT]):
            row = sp[cur, i]
            x, y, s = row[X], row[Y], row[SERIAL]
            for dx in range(side):
                for dy in range(side):
                    views[i, dx, dy] = grid[b, (y + dy) * gw + x + dx]
            noise[i, 0] = uniform(key, 2 * s)
            noise[i, 1] = uniform(key, 2 * s + 1)
            i += 1


# Not decorated: cached_drive compiles it, once for the compiled players' kernel types.
def drive(move, decode, t0, t_end, seeds, P, Q, S, sp, moves, enter, wall, grid, starts, n_starts, st, pool,
          feats, free, new_ids, cum, err):
    """Play turns t0.. until t_end with the kernel ``move(view, features, u0, u1) -> (dx, dy)``; children's
    features come from ``decode(genome, out)``.  Returns the turn reached: earlier than t_end when the
    table needs room (the caller grows it and calls again) or every board is empty; -1 when the kernel
    returned a move outside {-1,0,1}^2 (``err`` holds the board, dx and dy)."""
    w, r, max_age, kids = P[P_WIDTH], P[P_RADIUS], P[P_MAX_AGE], P[P_KIDS]
    gw = w + 2 * r
    side = 2 * r + 1
    nb = len(seeds)
    cap = sp.shape[1]
    view = np.empty((side, side), dtype=np.int8)
    t = t0
    while t < t_end:
        n = S[S_N]
        if n == 0 or n + nb * kids > cap:
            return t
        cur = S[S_CUR]
        i = 0
        for b in range(nb):
            key = turn_key(seeds[b], t, S_PLAYER)
            for _ in range(st[b, B_COUNT]):
                if sp[cur, i, AGE] >= max_age:
                    moves[i, 0] = 0
                    moves[i, 1] = 0
                    i += 1
                    continue
                base = sp[cur, i, Y] * gw + sp[cur, i, X]
                for dx in range(side):
                    for dy in range(side):
                        view[dx, dy] = grid[b, base + dy * gw + dx]
                s = sp[cur, i, SERIAL]
                mx, my = move(view, feats[sp[cur, i, GID]], uniform(key, 2 * s), uniform(key, 2 * s + 1))
                if mx < -1 or mx > 1 or my < -1 or my > 1:
                    err[0], err[1], err[2] = b, mx, my
                    return -1
                moves[i, 0] = mx
                moves[i, 1] = my
                i += 1
        finish_turn(t, seeds, P, Q, S, sp, moves, enter, wall, starts, n_starts, st, pool, free, new_ids, cum)
        for j in range(S[S_NNEW]):
            decode(pool[new_ids[j]], feats[new_ids[j]])
        t += 1
    return t


# The compiled players' kernels as first-class function types (see cached_drive).
KERNEL_MOVE = types.FunctionType(types.UniTuple(types.int64, 2)(types.int8[:, ::1], types.int64[::1],
                                                                 types.float64, types.float64))
KERNEL_DECODE = types.FunctionType(types.none(types.uint8[::1], types.int64[::1]))
_CACHED_DRIVES: dict[str, Callable[..., int]] = {}


def cached_drive(arrays: tuple) -> Callable[..., int]:
    """``drive`` compiled for these arrays' types, taking the kernel as first-class functions of the
    compiled players' signature (``move(int8[5,5], int64[:], float64, float64) -> (int64, int64)``,
    ``decode(uint8[:], int64[:])``; numba casts a kernel's results to it).  Compiled once and kept
    in numba's cache: specialised on each kernel instead, numba compiled it anew in every process
    (1.2-1.5 s at every race command and in every Dask worker).  A move is one indirect call, and
    ran as fast (3.78 against 3.83 million specimen-moves a second, believer, 4 boards)."""
    signature = types.int64(KERNEL_MOVE, KERNEL_DECODE, *(numba.typeof(a) for a in arrays))
    key = str(signature)
    if key not in _CACHED_DRIVES:
        _CACHED_DRIVES[key] = numba.njit(signature, cache=True, error_model="numpy")(drive)
    return _CACHED_DRIVES[key]
