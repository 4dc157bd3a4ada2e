"""Rat-race players: a specimen's 5x5 view and genome in, one move (dx, dy) out.

Two ways to write one.  A compiled player (a ``Kernel``, numba) is called
per specimen inside the controller's compiled loop, which is what makes
whole games fast: ``move(view, features, u0, u1) -> (dx, dy)`` with view
(5, 5) int8 indexed [dx+2, dy+2] (-1 out of bounds), the specimen's
features (int64, decoded from its genome once at birth by
``decode(genome, out)``) and two uniform numbers for its random choices.
A numpy batch player ``f(views, genomes, noise) -> moves`` takes every
specimen of a turn at once: views (N, 5, 5), genomes (N, 100) uint8 bits
(or what ``@batch(decode=g)`` makes of them at birth), noise (N, 2); it
returns (N, 2) integers in {-1, 0, 1}.  A plain per-specimen function
``f(view, genome, random) -> (dx, dy)`` also works through an adapter
(``random()`` gives a uniform number); it is the slowest.  ``find(name)``
takes a built-in name or ``module:function``.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable

import numba
import numpy as np


def batch(fn: Callable | None = None, *, decode: Callable | None = None) -> Callable:
    """Mark a batch player (it takes whole arrays); ``decode`` turns genomes into its features at birth."""
    def mark(f: Callable) -> Callable:
        f.batch = True  # type: ignore[attr-defined]  # marks on the player function itself
        f.decode = decode  # type: ignore[attr-defined]
        return f
    return mark(fn) if fn is not None else mark


class Kernel:
    """A compiled player: ``move`` and ``decode`` are numba functions; ``features`` per specimen."""

    def __init__(self, move: Callable, decode: Callable, features: int, doc: str = "") -> None:
        self.move, self.decode, self.features = move, decode, features
        self.__doc__ = doc or move.__doc__
        self.kernel = self

    def as_batch(self) -> Callable:
        """The same player as a numpy batch player (the controller's slow path; for tests and mixing)."""
        move, decode, width = self.move, self.decode, self.features

        def decode_all(genomes: np.ndarray) -> np.ndarray:
            out = np.zeros((len(genomes), width), dtype=np.int64)
            decode_rows(decode, genomes, out)
            return out

        @batch(decode=decode_all)
        def run(views: np.ndarray, feats: np.ndarray, noise: np.ndarray) -> np.ndarray:
            out = np.zeros((len(views), 2), dtype=np.int64)
            _move_rows(move, views, feats, noise, out)
            return out
        return run


@numba.njit(error_model="numpy")          # these take a kernel: compiled per process, never cached
def decode_rows(decode, genomes, out):
    """A kernel's ``decode`` on each genome (row) into the matching row of ``out``."""
    for i in range(len(genomes)):
        decode(genomes[i], out[i])


@numba.njit(error_model="numpy")
def _move_rows(move, views, feats, noise, out):
    for i in range(len(views)):
        out[i, 0], out[i, 1] = move(views[i], feats[i], noise[i, 0], noise[i, 1])


@numba.njit(cache=True, error_model="numpy", inline="always")
def genome_field(genome, start, bits):
    """Genome bits start..start+bits-1 as a number, first bit most significant."""
    v = 0
    for i in range(bits):
        v = (v << 1) | genome[start + i]
    return v


@numba.njit(cache=True, error_model="numpy")
def colour_scores(genome, out):
    """Each colour's 6 genome bits as a number, first bit most significant (as the sample reads them)."""
    for c in range(16):
        out[c] = genome_field(genome, 6 * c, 6)


@numba.njit(cache=True, error_model="numpy")
def color_score_move(view, scores, u0, u1):
    """ColorScorePlayer: the best-scoring of the three cells ahead (never out of bounds), ties at random."""
    best, ties = -1, 0
    for dy in range(-1, 2):
        c = view[3, dy + 2]
        if c < 0:
            continue
        s = scores[c]
        if s > best:
            best, ties = s, 1
        elif s == best:
            ties += 1
    pick = min(int(u0 * ties), ties - 1)
    for dy in range(-1, 2):
        c = view[3, dy + 2]
        if c >= 0 and scores[c] == best:
            if pick == 0:
                return 1, dy
            pick -= 1
    return 1, 0


@numba.njit(cache=True, error_model="numpy")
def no_features(genome, out):
    """For players that ignore the genome."""
    return


@numba.njit(cache=True, error_model="numpy")
def random_forward_move(view, feats, u0, u1):
    """Straight ahead or diagonally, at random: the baseline."""
    return 1, min(int(u0 * 3), 2) - 1


color_score = Kernel(color_score_move, colour_scores, 16,
                     "The challenge's sample ColorScorePlayer: each colour scores 6 genome bits.")
random_forward = Kernel(random_forward_move, no_features, 1, "Straight ahead or diagonally, at random.")


BUILTIN = {"colorscore": "educable.learners.race.players:color_score",     # built-in names and where they live
           "believer": "educable.learners.race.believer:believer",
           "random": "educable.learners.race.players:random_forward"}


def per_specimen(fn: Callable) -> Callable:
    """A batch player that calls ``fn(view, genome, random)`` once per specimen."""
    @batch
    def run(views: np.ndarray, genomes: np.ndarray, noise: np.ndarray) -> np.ndarray:
        out = np.empty((len(views), 2), dtype=np.int64)
        for i in range(len(views)):
            draws = iter(noise[i].tolist())
            out[i] = fn(views[i], genomes[i], lambda draws=draws: next(draws, 0.5))
        return out
    return run


# Other names people know the built-in players by (the challenge calls its sample ColorScorePlayer).
ALIASES = {"colorscoreplayer": "colorscore", "color_score": "colorscore", "colorscore_player": "colorscore"}


def builtin_name(name: str) -> str:
    """The built-in player's own name for ``name`` in any case or under an alias (ColorScorePlayer is
    colorscore); any other name unchanged."""
    key = name.lower()
    key = ALIASES.get(key, key)
    return key if key in BUILTIN else name


def find(name: str) -> Callable | Kernel:
    """A built-in player by name (any case, or an alias), or ``module:function``; LookupError says
    what was not found."""
    name = BUILTIN.get(builtin_name(name), name)
    if ":" not in name:
        raise LookupError(f"unknown player '{name}' (built in: {', '.join(BUILTIN)}; or module:function)")
    module_name, _, attr = name.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise LookupError(f"player '{name}': cannot import {module_name} ({type(exc).__name__}: {exc})") from None
    fn = getattr(module, attr, None)
    if isinstance(fn, Kernel):
        return fn
    if not callable(fn):
        raise LookupError(f"player '{name}': {module_name} has no function {attr}")
    return fn if getattr(fn, "batch", False) else per_specimen(fn)
