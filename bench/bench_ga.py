"""Genetic rule sets (issue 5): 500 cycles of Gaia's default run, the best agent's strength, a curve.

Anchor: Gaia's program needed about a day for 500 cycles (example 2)
and stayed weak.  Target: under 30 s for 500 cycles of the default run.
A uniformly random player loses 28.81% as X and 58.49% as O against random.

    .venv/bin/python bench/bench_ga.py [--cycles 500] [--seeds 3] [--plot bench/out/ga_curve.png]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from common import line

from bridge import commands, ga
from kb.db import open_kb
from learners.plot import curve_png

DAY = 24 * 3600.0
VARIANTS = {
    "default (Gaia's example 2)": {},
    "nudge 0.2 (biased generation)": {"nudge": 0.2},
    "nudge 0.2, shared knowledge": {"nudge": 0.2, "shared": True},
    "nudge 0.2, top20 selection, weak rules <= -2 replaced": {"nudge": 0.2, "selection": "top20", "weak": -2.0},
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cycles", type=int, default=500)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--games", type=int, default=2000, help="sampled games against random (half on each side)")
    ap.add_argument("--plot", default="bench/out/ga_curve.png")
    args = ap.parse_args()
    Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
    print(f"== Genetic rule sets, tic-tac-toe, {args.cycles} cycles of 40 agents x 100 rules, 20 pairs x 5 games ==")
    curves = {}
    for label, options in VARIANTS.items():
        times, lx, lo, sx, so, guar = [], [], [], [], [], []
        for seed in range(args.seeds):
            db = open_kb(Path(tempfile.mkdtemp()) / "bench.db")
            r = ga.train(db, "tictactoe", "g", args.cycles, seed, options, judge_every=max(1, args.cycles // 25))
            times.append(r["seconds"])
            lx.append(r["best"]["as_first"]["vs_random"]["loss"])
            lo.append(r["best"]["as_second"]["vs_random"]["loss"])
            guar.append(f"{r['best']['as_first']['guaranteed']}/{r['best']['as_second']['guaranteed']}")
            ev = commands.evaluate_series(db, "tictactoe", "g", "random", args.games, seed)
            sx.append(ev["as_first"]["loss"] / (args.games // 2))
            so.append(ev["as_second"]["loss"] / (args.games // 2))
            if seed == 0:
                curves[label] = r["curve"]
        print(f"-- {label}")
        line("  wall time for the cycles (median)", statistics.median(times), "s", DAY, "Gaia's program (a day)")
        line("  ... target", 30.0, "s")
        line("  best agent, exact loss vs random as X (median)", 100 * statistics.median(lx), "%")
        line("  best agent, exact loss vs random as O (median)", 100 * statistics.median(lo), "%")
        line(f"  best agent, sampled loss as X ({args.games // 2} games, median)", 100 * statistics.median(sx), "%")
        line(f"  best agent, sampled loss as O ({args.games // 2} games, median)", 100 * statistics.median(so), "%")
        print(f"  {'eval --exact guarantees (X/O) per seed':<52} {', '.join(guar)}")
    every = curves[next(iter(curves))][0]["cycle"]
    series = {}
    for label, curve in curves.items():
        short = label.split(" (")[0]
        series[f"{short}: as X"] = [c["as_first"]["vs_random"]["loss"] for c in curve]
        series[f"{short}: as O"] = [c["as_second"]["vs_random"]["loss"] for c in curve]
    curve_png(args.plot, series, every, "best agent's exact loss rate vs random (seed 0)", xlabel="cycles",
              ylabel="loss rate")
    print(f"learning curves: {args.plot}")


if __name__ == "__main__":
    main()
