"""Shared helpers for the benchmarks: timing and a figure line with a ratio to an anchor."""
from __future__ import annotations

import socket
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def timed(fn: Callable, repeat: int = 1) -> tuple[float, object]:
    """Best wall time of ``repeat`` runs and the last result."""
    best = float("inf")
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def line(name: str, value: float, unit: str, anchor: float | None = None, anchor_name: str = "",
         higher_is_better: bool = False, words: tuple[str, str] = ("faster", "slower")) -> None:
    """Print one figure, with its ratio to an anchor when one is given (``words``: better, worse)."""
    text = f"{name:<52} {value:>12.4g} {unit}"
    if anchor:
        ratio = value / anchor if higher_is_better else anchor / value
        joint = "" if words[0].endswith(" of") else " than"
        shown = ratio if ratio >= 1 else 1 / ratio          # "2.00x slower", never "0.50x slower"
        text += f"   {shown:6.2f}x {words[0] if ratio >= 1 else words[1]}{joint} {anchor_name} ({anchor:g} {unit})"
    print(text, flush=True)


def free_port() -> int:
    """A port of 127.0.0.1 that no one listens on now (for a scheduler started by a bench)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
