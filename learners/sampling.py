"""Confidence intervals for rates measured by sampling games."""
from __future__ import annotations

import math

Z95 = 1.959963984540054     # the standard normal's 97.5% quantile


def wilson_interval(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval (95% by default) for a rate of ``hits`` in ``n`` trials.

    Unlike the normal approximation it stays inside [0, 1] and is not empty
    at 0 or n hits (200 wins in 200 games: 98.1% to 100%).
    """
    if n <= 0:
        return 0.0, 1.0
    p = hits / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
