"""How long `educable check` takes on games of tens of thousands of positions (target: under 5 s
for a game of 50,000 positions), with the time `solve` needs on the same game as the anchor: a
check should cost no more than compiling the game once.

    .venv/bin/python bench/bench_check.py
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import line

EXE = str(Path(sys.executable).parent / "educable")
TARGET_S = 5.0


def wall(*args: str) -> tuple[float, dict | None]:
    t0 = time.perf_counter()
    p = subprocess.run([EXE, *args], capture_output=True, text=True)
    took = time.perf_counter() - t0
    return took, (json.loads(p.stdout) if p.stdout.startswith("{") else None)


def main() -> None:
    for game, positions in (("hexapawn(4,4)", 20_286), ("connect(3,4,4)", 41_750), ("tictactoe", 5_478)):
        took, report = wall("check", game, "--json")
        g = report["games"][0]
        how = "all" if g["exhaustive"] else "sampled"
        with tempfile.TemporaryDirectory() as tmp:
            solve_s, _ = wall("solve", game, "--db", str(Path(tmp) / "kb.db"), "--json")
        line(f"check {game} ({positions:,} positions, {g['positions']:,} {how})", took, "s",
             anchor=solve_s, anchor_name="solve, same game")
        print(f"{'':<52} target under {TARGET_S:g} s: {'met' if took < TARGET_S else 'MISSED'}")


if __name__ == "__main__":
    main()
