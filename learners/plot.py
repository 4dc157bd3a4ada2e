"""Learning-curve figures as PNG files (matplotlib, no screen needed)."""
from __future__ import annotations

import math
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def curve_png(path: str | Path, series: dict[str, list[float]], x_step: int, title: str,
              xlabel: str = "games played", ylabel: str = "") -> Path:
    """Plot each series (one point every ``x_step`` games) into ``path``."""
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    for label, ys in series.items():
        xs = [x_step * (i + 1) for i in range(len(ys))]
        ax.plot(xs, ys, label=label, linewidth=1.4)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    if len(series) > 1:
        ax.legend()
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path


def strength_png(path: str | Path, points: list[tuple[int, float]], title: str, ylabel: str) -> Path:
    """Plot what a run reached at each commit (games, a share from 0 to 1) into ``path``."""
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    ax.plot([g for g, _ in points], [v for _, v in points], marker="o", markersize=3, linewidth=1.4)
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.set_xlabel("games played")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path


def exploitability_png(path: str | Path, curve: list[dict[str, float]], title: str) -> Path:
    """Plot a CFR run's exploitability after each number of iterations, both axes logarithmic."""
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    points = [(c["iterations"], c["exploitability"]) for c in curve if c["exploitability"] > 0]
    ax.loglog([n for n, _ in points], [e for _, e in points], marker="o", markersize=3, linewidth=1.4)
    ax.set_title(title)
    ax.set_xlabel("iterations")
    ax.set_ylabel("exploitability (NashConv / 2)")
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path


def intervals_png(path: str | Path, groups: dict[str, list[float]], centres: dict[str, tuple[float, float, float]],
                  title: str, ylabel: str) -> Path:
    """Each group's values as points, its centre (a median, a geometric mean) with its 95% interval."""
    fig, ax = plt.subplots(figsize=(max(5, 1.2 * len(groups) + 2), 4), dpi=110)
    for i, (label, values) in enumerate(groups.items()):
        finite = [v for v in values if math.isfinite(v)]
        xs = [i + 0.25 * ((k * 0.618) % 1 - 0.5) for k in range(len(finite))]
        ax.scatter(xs, finite, s=10, alpha=0.45, color="tab:blue")
        mid, lo, hi = centres[label]
        if all(math.isfinite(x) for x in (mid, lo, hi)):
            ax.errorbar([i], [mid], yerr=[[mid - lo], [hi - mid]], fmt="o", color="tab:red", capsize=5)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(list(groups), rotation=20, ha="right", fontsize=8)
    ax.set_title("\n".join(textwrap.wrap(title, 70)), fontsize=9)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path
