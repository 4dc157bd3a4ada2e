"""Rat-race players: a batch of 5x5 views and genomes in, one move per specimen out.

A batch player is ``f(views, genomes, noise) -> moves``: views (N, 5, 5)
int8 colours indexed [dx+2, dy+2] (-1 out of bounds), genomes (N, 100)
uint8 bits, noise (N, 2) uniform numbers in [0, 1) for its random choices;
it returns (N, 2) integers (dx, dy) in {-1, 0, 1}.  Mark it with
``@batch``; ``@batch(decode=f)`` also names ``f(genomes) -> features``,
which the controller calls once when specimens are born and then passes
instead of the genomes (decoding 100 bits every turn would cost most of
the time).  A plain function ``f(view, genome, random) -> (dx, dy)`` for
one specimen also works (``random()`` gives a uniform number); it is called
once per specimen, which is slower.  ``find(name)`` takes a built-in name or
``module:function``.
"""
from __future__ import annotations

import importlib
from typing import Callable

import numpy as np

FORWARD = np.array([[1, -1], [1, 0], [1, 1]])
ALL_MOVES = np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)])


def batch(fn: Callable | None = None, *, decode: Callable | None = None) -> Callable:
    """Mark a batch player (it takes whole arrays); ``decode`` turns genomes into its features at birth."""
    def mark(f: Callable) -> Callable:
        f.batch = True
        f.decode = decode
        return f
    return mark(fn) if fn is not None else mark


def colour_bits(genomes: np.ndarray, width: int = 6, colours: int = 16) -> np.ndarray:
    """(N, colours): each colour's ``width`` genome bits read as a number, first bit least significant."""
    chunks = genomes[:, :width * colours].reshape(len(genomes), colours, width).astype(np.int64)
    return (chunks << np.arange(width)).sum(axis=2)


def pick_best(score: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """Index of the highest score in each row, ties broken uniformly with ``noise``."""
    best = score == score.max(axis=1, keepdims=True)
    rank = np.cumsum(best, axis=1)
    chosen = np.floor(noise * best.sum(axis=1)).astype(np.int64) + 1
    return np.argmax(best & (rank == chosen[:, None]), axis=1)


@batch(decode=colour_bits)
def color_score(views: np.ndarray, scores: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """The challenge's sample ColorScorePlayer: each colour scores 6 genome bits; move to the best
    of the three cells ahead (out of bounds never), ties at random."""
    ahead = views[:, 3, 1:4].astype(np.int64)                 # dx = +1, dy = -1, 0, 1
    s = np.where(ahead >= 0, np.take_along_axis(scores, ahead.clip(0), axis=1), -1)
    s0, s1, s2 = s[:, 0], s[:, 1], s[:, 2]
    top = np.maximum(np.maximum(s0, s1), s2)
    b0, b1, b2 = s0 == top, s1 == top, s2 == top
    c = np.floor(noise[:, 0] * (b0.astype(np.int64) + b1 + b2)).astype(np.int64)   # which of the tied ones
    pick = np.where(b0 & (c == 0), 0, np.where(b1 & (c == b0), 1, 2))
    return FORWARD[pick]


@batch
def random_forward(views: np.ndarray, genomes: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """Straight ahead or diagonally, at random: the baseline."""
    return FORWARD[(noise[:, 0] * 3).astype(np.int64)]


SAFE, AVOID, TRAP, JUMP = 0, 1, 2, 3


def beliefs(genomes: np.ndarray) -> np.ndarray:
    """(N, 2, 17): believer's kind and trap pointer of each colour (index 16: out of bounds)."""
    bits = colour_bits(genomes)
    n = len(genomes)
    kind = np.concatenate([bits & 3, np.full((n, 1), AVOID)], axis=1)
    point = np.concatenate([(bits >> 2) % 9, np.zeros((n, 1), dtype=np.int64)], axis=1)
    return np.stack([kind, point], axis=1).astype(np.int8)


@batch(decode=beliefs)
def believer(views: np.ndarray, belief: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """Ours: the genome holds a belief about every colour, and the specimen plans a path with it.

    Colour c's 6 bits: 2 say what it is (safe; to avoid, as walls; a trap;
    a teleporter worth taking) and 4 where a trap points (one of its 3x3).
    The specimen marks the cells of its view it believes deadly (avoided
    colours, cells trapped by a believed trap, out of bounds), finds how far
    right each cell can lead through believed-safe cells, and takes the move
    whose cell leads furthest, preferring progress now, ties at random.
    Selection keeps the specimens whose beliefs are right.
    """
    n = len(views)
    kind, point = belief[:, 0], belief[:, 1]
    cols = np.where(views < 0, 16, views).astype(np.int64).reshape(n, 25)
    k = np.take_along_axis(kind, cols, axis=1).reshape(n, 5, 5)
    p = np.take_along_axis(point, cols, axis=1).reshape(n, 5, 5)
    deadly = k == AVOID
    trap = k == TRAP
    for off in range(9):
        ox, oy = off % 3 - 1, off // 3 - 1
        src = trap & (p == off)
        shifted = np.zeros_like(src)
        xs = slice(max(0, -ox), 5 - max(0, ox))
        ys = slice(max(0, -oy), 5 - max(0, oy))
        xd = slice(max(0, ox), 5 - max(0, -ox))
        yd = slice(max(0, oy), 5 - max(0, -oy))
        shifted[:, xd, yd] = src[:, xs, ys]
        deadly |= shifted
    safe = ~deadly
    dx = np.arange(5)[None, :, None] - 2
    reach = np.where(safe, dx + 2 * (k == JUMP), -9).astype(np.int64)   # how far right a cell leads
    for _ in range(4):
        best = reach.copy()
        for sx in (-1, 0, 1):
            for sy in (-1, 0, 1):
                if sx == 0 and sy == 0:
                    continue
                moved = np.full_like(reach, -9)
                moved[:, max(0, -sx):5 - max(0, sx), max(0, -sy):5 - max(0, sy)] = \
                    reach[:, max(0, sx):5 - max(0, -sx), max(0, sy):5 - max(0, -sy)]
                best = np.maximum(best, moved)
        reach = np.where(safe, best, -9)
    cand = reach[:, ALL_MOVES[:, 0] + 2, ALL_MOVES[:, 1] + 2] * 4 + ALL_MOVES[:, 0][None, :]
    return ALL_MOVES[pick_best(cand, noise[:, 0])]


BUILTIN: dict[str, Callable] = {"colorscore": color_score, "believer": believer, "random": random_forward}


def decoder(player: Callable) -> Callable | None:
    """The player's genome decoder, if it has one."""
    return getattr(player, "decode", None)


def per_specimen(fn: Callable) -> Callable:
    """A batch player that calls ``fn(view, genome, random)`` once per specimen."""
    @batch
    def run(views: np.ndarray, genomes: np.ndarray, noise: np.ndarray) -> np.ndarray:
        out = np.empty((len(views), 2), dtype=np.int64)
        for i in range(len(views)):
            draws = iter(noise[i].tolist())
            out[i] = fn(views[i], genomes[i], lambda: next(draws, 0.5))
        return out
    return run


def find(name: str) -> Callable:
    """A built-in player by name, or ``module:function``; LookupError says what was not found."""
    if name in BUILTIN:
        return BUILTIN[name]
    if ":" not in name:
        raise LookupError(f"unknown player '{name}' (built in: {', '.join(BUILTIN)}; or module:function)")
    module_name, _, attr = name.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise LookupError(f"player '{name}': cannot import {module_name} ({type(exc).__name__}: {exc})") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise LookupError(f"player '{name}': {module_name} has no function {attr}")
    return fn if getattr(fn, "batch", False) else per_specimen(fn)
