"""Confidence intervals: for rates measured by sampling games, for a median over seeds, for a geometric mean."""
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


def median_interval(values: list[float]) -> tuple[float, float, float]:
    """The median and a distribution-free 95% interval for it: [x(c+1), x(n-c)] for the largest c
    with P(Binomial(n, 1/2) <= c) <= 0.025 (n = 25: the 8th and 18th values).  Below 9 values
    that is the whole range, whose coverage is under 95% for fewer than 6."""
    v = sorted(values)
    n = len(v)
    mid = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    cdf, total = [], 0.0
    for i in range(n):
        total += math.comb(n, i) / 2 ** n
        cdf.append(total)
    c = max((i for i in range(n) if cdf[i] <= 0.025), default=0)
    return mid, v[c], v[n - 1 - c]


def geomean_interval(scores: list[int]) -> tuple[float, float, float]:
    """Geometric mean with a 95% interval (normal on the logs)."""
    logs = [math.log(s) for s in scores]
    n = len(logs)
    mean = sum(logs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (n - 1)) if n > 1 else 0.0
    half = Z95 * sd / math.sqrt(n)
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)
