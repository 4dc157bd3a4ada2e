"""How long `educable check` takes on games of tens of thousands of positions (target: under 5 s
for a game of 50,000 positions), with the time `solve` needs on the same game as the anchor: a
check should cost no more than compiling the game once.

--advice: what following check's advice gains (target: at least 2x).  bench/games/naive_connect3.pl
is connect three written as a newcomer would (the lines worked out in over/4 at every position, the
cells a list read with nth1/3); check's advice for it is printed, and advised_connect3.pl is the same
file after those changes and no others.  `solve` of each, median of --runs, the naive file as the
anchor.

    .venv/bin/python bench/bench_check.py [--advice [--runs 5]]
"""
from __future__ import annotations

import json
import statistics
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


GAMES = Path(__file__).resolve().parent / "games"


def advice(runs: int) -> None:
    _, report = wall("check", str(GAMES / "naive_connect3.pl"), "--json")
    print("check's advice for naive_connect3.pl:")
    for a in report["games"][0]["advice"]:
        print(f"  {a['where']}: {a['change']}")
    times = {}
    env_games = ["--games-dir", str(GAMES)]
    for game in ("naive_connect3", "advised_connect3"):
        took = []
        for _ in range(runs):
            with tempfile.TemporaryDirectory() as tmp:
                t, data = wall(*env_games, "solve", game, "--db", str(Path(tmp) / "kb.db"), "--json")
                took.append(data["seconds"])
        times[game] = statistics.median(took)
    line("solve naive_connect3 (41,750 positions)", times["naive_connect3"], "s")
    line("solve advised_connect3 (advice followed)", times["advised_connect3"], "s",
         anchor=times["naive_connect3"], anchor_name="the naive file")
    gain = times["naive_connect3"] / times["advised_connect3"]
    print(f"{'':<52} target at least 2x: {'met' if gain >= 2 else 'MISSED'} ({gain:.2f}x)")


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--advice", action="store_true", help="what following check's advice gains")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    if args.advice:
        advice(args.runs)
    else:
        main()
