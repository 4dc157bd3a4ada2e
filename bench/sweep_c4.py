"""Connect Four n-tuple settings × seeds at a fixed budget of self-play games, each judged by the perfect player.

Every point trains a fresh agent by self-play on one core (`train 'connect(4,7,6)' --learner ntuple`,
a knowledge base of its own) and judges it: games as first against `perfect` (bitbully, ties of
equal score at random) from the start, and move accuracy over the positions of games against
`perfect` and against itself.  Points run ``--jobs`` at a time, each in its own process (one
Prolog each), so two jobs use both cores of a two-core machine.

    .venv/bin/python bench/sweep_c4.py --games 500000 --seeds 1 2 [--settings gbg floor wide] [--jobs 2]
                                       [--judge-games 50] [--out bench/out/c4_sweep.jsonl]

Settings (every other option is the learner's Connect Four default, after GBG's published agent):
  gbg     TD(0), step 3.7, per-player weights, TCL, exploration 0.1 to 0 over the run (the old default)
  floor   as gbg, exploration 0.1 to 0.05, the default since this sweep (GBG's 0.1 to 0 over 6 million
          games is at 0.05 at 3 million)
  lambda  as gbg, λ 0.5 (Thill et al.: eligibility traces halved the games needed; not run yet)
  wide    as gbg, exploration 0.2 to 0.1
  straight as floor, tuples walked over the 4 cells beside a cell (--neighbours 4, GBG's Connect Four
          adjacency) instead of the 8 around it

Measured (500,000 games a point, two points at a time, ~315 games/s each; won of 50 as first vs perfect,
seeds 1 and 2): gbg 0 and 15, floor 24 and 21, wide 0 and 25; move accuracy vs perfect gbg 93.1%/95.4%,
floor 97.3%/96.7%, wide 97.0%/97.9%.  floor became the Connect Four default.  The table and what it
means are in docs/learners.md ("Connect Four: settings × seeds").
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import common  # noqa: F401  (puts the project on the path)

GAME = "connect(4,7,6)"
SETTINGS: dict[str, dict] = {
    "gbg": {"epsilon": 0.1, "epsilon_end": 0.0},
    "floor": {"epsilon": 0.1, "epsilon_end": 0.05},
    "lambda": {"lam": 0.5},
    "wide": {"epsilon": 0.2, "epsilon_end": 0.1},
    "straight": {"epsilon": 0.1, "epsilon_end": 0.05, "neighbours": "4"},
}
JUDGE_SEED = 0          # the same opponents' dice for every point


def point(setting: str, seed: int, n_games: int, judge_games: int) -> dict:
    """Train one agent (``setting``, ``seed``) for ``n_games`` and judge it; its figures."""
    from bridge import commands, perfect
    from kb.db import open_kb
    db = open_kb(Path(tempfile.mkdtemp()) / "sweep.db")
    t = time.perf_counter()
    r = commands.train(db, GAME, "ntuple", "c4", n_games, "self", "both", seed, dict(SETTINGS[setting]))
    seconds = time.perf_counter() - t
    vs = perfect.play_series(db, GAME, ("c4", perfect.NAME), judge_games, JUDGE_SEED)
    j = perfect.judge(db, GAME, "c4", judge_games // 2, JUDGE_SEED, openings=0)
    return {"setting": setting, "seed": seed, "games": r["games"], "train_seconds": round(seconds, 1),
            "games_per_second": round(r["games"] / seconds), "judge_games": judge_games,
            "won_as_first": vs.get("x", 0), "drawn_as_first": vs.get("draw", 0),
            "accuracy_self": j["accuracy"]["self"]["accuracy"], "accuracy_vs_perfect": j["accuracy"][perfect.NAME]["accuracy"],
            "accuracy_vs_random": j["accuracy"]["random"]["accuracy"]}


def run_point(setting: str, seed: int, args: argparse.Namespace) -> dict:
    """One point in a process of its own (its own Prolog); its figures, also appended to ``--out``."""
    cmd = [sys.executable, __file__, "--point", setting, str(seed), "--games", str(args.games),
           "--judge-games", str(args.judge_games)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    row = json.loads(out.strip().splitlines()[-1])
    with open(args.out, "a") as f:
        f.write(json.dumps(row) + "\n")
    print(f"  {setting:<8} seed {seed}: {row['won_as_first']}/{row['judge_games']} won as first vs perfect "
          f"({row['drawn_as_first']} drawn); accuracy self {100 * row['accuracy_self']:.1f}%, vs perfect "
          f"{100 * row['accuracy_vs_perfect']:.1f}%, vs random {100 * row['accuracy_vs_random']:.1f}%; "
          f"{row['games_per_second']} games/s", flush=True)
    return row


def summary(rows: list[dict]) -> None:
    """Median and range per setting over its seeds."""
    print("setting   seeds  won as first vs perfect (median, range)  accuracy self / vs perfect (median)")
    for setting in SETTINGS:
        mine = [r for r in rows if r["setting"] == setting]
        if not mine:
            continue
        won = [r["won_as_first"] for r in mine]
        print(f"  {setting:<8} {len(mine):>4}  {statistics.median(won):>5g} of {mine[0]['judge_games']} "
              f"({min(won)}-{max(won)})  {100 * statistics.median(r['accuracy_self'] for r in mine):.1f}% / "
              f"{100 * statistics.median(r['accuracy_vs_perfect'] for r in mine):.1f}%")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=500_000, help="self-play games a point")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--settings", nargs="+", default=["gbg", "floor", "wide"], choices=sorted(SETTINGS))
    ap.add_argument("--jobs", type=int, default=2, help="points at a time (one core each)")
    ap.add_argument("--judge-games", type=int, default=50)
    ap.add_argument("--out", default="bench/out/c4_sweep.jsonl", help="append each point's figures here (JSON lines)")
    ap.add_argument("--point", nargs=2, metavar=("SETTING", "SEED"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.point:
        print(json.dumps(point(args.point[0], int(args.point[1]), args.games, args.judge_games)))
        return
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    print(f"{GAME}: n-tuple self-play, {args.games:,} games a point, settings {args.settings} x seeds {args.seeds}, "
          f"{args.jobs} at a time; judged by {args.judge_games} games as first vs perfect")
    todo = [(s, seed) for seed in args.seeds for s in args.settings]
    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda p: run_point(p[0], p[1], args), todo))
    summary(rows)


if __name__ == "__main__":
    main()
