"""Q-learning (issue 4): self-play games and time until perfect, win rates against random, throughput, a curve.

Anchors measured on this kind of machine: OpenSpiel's tabular Q-learner
example needs 100,000 self-play episodes (23.5 s) to win 98.3% as X and
91.1% as O against random, and guarantees nothing; tictac's Q-table reaches
92% / 78%.  A player that never loses wins at most 99.48% as X and 91.64% as
O against a uniformly random opponent.

    .venv/bin/python bench/bench_qlearn.py [--seeds 5] [--plot bench/out/qlearn_curve.png]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from common import line

from bridge import commands
from kb.db import open_kb

RULES = {
    "negamax (ours; default)": {},
    "CA425's lookahead, alpha=1/n, gamma=0.9, eps 0.5->0": {"update": "lookahead", "gamma": 0.9, "epsilon_end": 0.0},
}


def fresh_db():
    return open_kb(Path(tempfile.mkdtemp()) / "bench.db")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--limit", type=int, default=150_000)
    ap.add_argument("--plot", default="bench/out/qlearn_curve.png")
    args = ap.parse_args()
    print(f"== Q-learning, tic-tac-toe self-play until eval --exact says perfect on both sides ({args.seeds} seeds) ==")
    best = None
    for label, opts in RULES.items():
        games, seconds, judged, rates = [], [], [], []
        for seed in range(args.seeds):
            db = fresh_db()
            r = commands.train(db, "tictactoe", "qlearn", "q", args.limit, "self", "both", seed, opts, until_perfect=True)
            ok = r["exact"]["as_first"]["perfect"] and r["exact"]["as_second"]["perfect"]
            games.append(r["games"] if ok else float("inf"))
            seconds.append(r["seconds"])
            judged.append(r["checkpoint_seconds"])
            rates.append(r["games_per_second"])
            if ok and best is None:
                best = (db, r)
        reached = sum(g != float("inf") for g in games)
        med = statistics.median(games)
        print(f"  {label:<52} median games {('never' if med == float('inf') else f'{med:,.0f}'):>8}"
              f"  reached {reached}/{args.seeds}  median training {statistics.median(seconds):.2f} s"
              f" (+{statistics.median(judged):.2f} s exact checkpoints)", flush=True)
        line(f"  training throughput, {label[:30]}", statistics.median(rates), "games/s")
    if best:
        db, r = best
        p = commands.evaluate_exact(db, "tictactoe", "q", "random")
        print(f"  a perfect agent against random, exactly: as X wins {100 * p['as_first']['win']:.2f}% "
              f"(ceiling 99.48%, OpenSpiel 98.3%), as O wins {100 * p['as_second']['win']:.2f}% "
              f"(ceiling 91.64%, OpenSpiel 91.1%); never loses")
        line("  games to perfect vs OpenSpiel's 100,000 (which is not perfect)", r["games"], "games", 100_000, "OpenSpiel")
        if args.plot:
            from learners.plot import curve_png
            Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
            cps = r["checkpoints"]
            curve_png(args.plot, {
                "win rate vs random as X": [c["as_first"]["win_vs_random"] for c in cps],
                "win rate vs random as O": [c["as_second"]["win_vs_random"] for c in cps],
                "perfect as X (exact)": [float(c["as_first"]["perfect"]) for c in cps],
                "perfect as O (exact)": [float(c["as_second"]["perfect"]) for c in cps],
            }, cps[0]["games"], "tic-tac-toe Q-learning (negamax), self-play", ylabel="exact, at checkpoints")
            print(f"learning curve: {args.plot}")


if __name__ == "__main__":
    main()
