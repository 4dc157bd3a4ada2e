"""Learning-curve figures as PNG files (matplotlib, no screen needed)."""
from __future__ import annotations

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
