"""The punishment learner (issue 3): losses before perfect play, self-play, speed, a learning curve.

Anchor: Gardner's HER is said to have lost 11 games before becoming
unbeatable as black; an independent simulation of HER (19 mirror-folded
boxes, last-move punishment) against an adversarial white needed a median of
11 losses, last loss at game 22.

    .venv/bin/python bench/bench_punish.py [--seeds 25] [--plot bench/out/punish_curve.png]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from common import line

from bridge import commands
from kb.db import open_kb

VARIANTS = {
    "plain (seed: last move, HER's empty box)": {},
    "last move, no cascade (the practical's text literally)": {"cascade": False},
    "all moves punished": {"punish": "all"},
    "last move + reward winner": {"reward": 1.0},
    "all moves + reward winner": {"punish": "all", "reward": 1.0},
    "plain, no symmetry folding": {"fold": False},
    "plain, 3 beads a position": {"beads": 3.0},
    "MENACE's draw: beads in proportion, else plain": {"choice": "beads"},
    "MENACE's scheme: beads, 3 each, +3 win, -1 all": {"choice": "beads", "beads": 3.0, "reward": 3.0,
                                                        "draw_reward": 1.0, "punish": "all"},
}


def fresh_db():
    return open_kb(Path(tempfile.mkdtemp()) / "bench.db")


def vs_adversary(options: dict, seeds: int, games: int = 300) -> tuple[list, list, int]:
    losses, lasts, perfect = [], [], 0
    for seed in range(seeds):
        r = commands.train(fresh_db(), "hexapawn", "punish", "her", games, "adversary", "second", seed, options)
        ok = r["exact"]["as_second"]["perfect"]
        perfect += ok
        losses.append(r["losses"] if ok else float("inf"))
        lasts.append((r["last_loss"] or 0) if ok else float("inf"))
    return losses, lasts, perfect


def self_play_until_perfect(options: dict, seeds: int, batch: int = 10, limit: int = 1000) -> list:
    out = []
    for seed in range(seeds):
        db = fresh_db()
        done = float("inf")
        for i in range(limit // batch):
            r = commands.train(db, "hexapawn", "punish", "pupil", batch, "self", "both", seed * 1000 + i, options)
            if r["exact"]["as_first"]["subgame_perfect"] and r["exact"]["as_second"]["subgame_perfect"]:
                done = (i + 1) * batch
                break
        out.append(done)
    return out


def med(xs: list) -> str:
    m = statistics.median(xs)
    return "never" if m == float("inf") else f"{m:g}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=25)
    ap.add_argument("--plot", default="bench/out/punish_curve.png")
    args = ap.parse_args()
    print(f"== punishment learner, hexapawn, {args.seeds} seeds ==")
    print("as black against an adversarial white (300 games a seed); HER: median 11 losses, last at game 22")
    for label, opts in VARIANTS.items():
        losses, lasts, perfect = vs_adversary(opts, args.seeds)
        print(f"  {label:<48} median losses {med(losses):>5}  median last loss at game {med(lasts):>5}"
              f"  perfect as black: {perfect}/{args.seeds}", flush=True)
    print("self-play until eval --exact says subgame-perfect on both sides (batches of 10, at most 1000 games)")
    for label in ("plain (seed: last move, HER's empty box)", "all moves punished", "last move + reward winner",
                  "all moves + reward winner"):
        games = self_play_until_perfect(VARIANTS[label], args.seeds)
        reached = sum(g != float("inf") for g in games)
        print(f"  {label:<48} median games {med(games):>6}   reached by {reached}/{args.seeds} seeds", flush=True)
    db = fresh_db()
    r = commands.train(db, "hexapawn", "punish", "speed", 20000, "self", "both", 1, {"reward": 1.0})
    line("self-play training speed, hexapawn (learning included)", r["games_per_second"], "games/s")
    r = commands.train(db, "tictactoe", "punish", "speed3", 20000, "self", "both", 1, {"reward": 1.0})
    line("self-play training speed, tic-tac-toe (learning included)", r["games_per_second"], "games/s")
    print(f"  tic-tac-toe after 20,000 self-play games: as X {r['exact']['as_first']['guaranteed']}, "
          f"as O {r['exact']['as_second']['guaranteed']}")
    if args.plot:
        from learners.plot import curve_png
        Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
        curves = {}
        for label, opts in (("plain", {}), ("all moves", {"punish": "all"}), ("reward", {"reward": 1.0})):
            r = commands.train(fresh_db(), "hexapawn", "punish", "c", 100, "adversary", "second", 3, opts)
            curves[label] = r["curve"]
        curve_png(args.plot, curves, 10, "hexapawn: black learning against an adversarial white (seed 3)",
                  ylabel="losses per 10 games")
        print(f"learning curve: {args.plot}")


if __name__ == "__main__":
    main()
