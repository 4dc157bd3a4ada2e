"""Counter-based random numbers: a draw is a hash of (board seed, turn, stream, index).

Every board's randomness follows from its seed alone, whichever boards are
stepped together or in which worker, and all draws of a turn are computed
as numpy arrays at once (splitmix64's finaliser; uniform in [0, 1) with 53 bits).
"""
from __future__ import annotations

import numpy as np

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
S30, S27, S31, S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
SCALE = 1.0 / (1 << 53)


def mix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser on uint64 arrays."""
    z = (z ^ (z >> S30)) * M1
    z = (z ^ (z >> S27)) * M2
    return z ^ (z >> S31)


def turn_keys(seeds: np.ndarray, turn: int, stream: int) -> np.ndarray:
    """One key per board for (turn, stream)."""
    with np.errstate(over="ignore"):
        t = np.uint64((turn + 1) * 64 + stream)
        return mix(mix(seeds.astype(np.uint64) * GOLDEN + np.uint64(1)) ^ (t * GOLDEN))


def uniform(keys: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Uniform [0, 1) draws for board keys ``keys`` (broadcast) and draw numbers ``index``."""
    with np.errstate(over="ignore"):
        z = mix(keys ^ (index.astype(np.uint64) * GOLDEN))
    return (z >> S11).astype(np.float64) * SCALE
