"""Counter-based random numbers: a draw is a hash of (board seed, turn, stream, index).

Every board's randomness follows from its seed alone, whichever boards are
stepped together, in which order or in which worker.  The hash is
splitmix64's finaliser; a draw is uniform in [0, 1) with 53 bits.  The
functions are compiled (numba) so the controller's loops call them
directly; they work from Python too.
"""
from __future__ import annotations

import numba
import numpy as np

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
ONE = np.uint64(1)
STREAMS = np.uint64(64)
SCALE = 1.0 / (1 << 53)


@numba.njit(cache=True, inline="always", error_model="numpy")
def mix(z: np.uint64) -> np.uint64:
    """splitmix64's finaliser."""
    z = (z ^ (z >> np.uint64(30))) * M1
    z = (z ^ (z >> np.uint64(27))) * M2
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True, error_model="numpy")
def turn_key(seed: int, turn: int, stream: int) -> np.uint64:
    """The key of one board's draws in one (turn, stream); turn -1 is the set-up."""
    t = np.uint64(turn + 1) * STREAMS + np.uint64(stream)
    return mix(mix(np.uint64(seed) * GOLDEN + ONE) ^ (t * GOLDEN))


@numba.njit(cache=True, inline="always", error_model="numpy")
def uniform(key: np.uint64, index: int) -> float:
    """Draw number ``index`` under ``key``: uniform in [0, 1)."""
    z = mix(key ^ (np.uint64(index) * GOLDEN))
    return float(z >> np.uint64(11)) * SCALE
