"""Learners on games of chance (Q-learning, the n-tuple learner), judged exactly: over seeds, each
agent's chance of winning against a best-responding opponent beside the game's value (what perfect play wins), as first and as second.

On a game of score (2048 on a small board) a "point" is a point of the game's score below best play's
expected score.  The targets of the games-of-chance issue: on pig(30,6) within 1 point of perfect play, on pig(100,6)
within 2, on einstein(3) (EinStein würfelt nicht! on GBG's 3x3 board) within 2; the anchor is the game's
exact value, solved in the same run by `train`'s closing judgement.  Each seed trains a new agent in a
knowledge base of its own (`educable train GAME --learner LEARNER --games N --seed S --json`).

    .venv/bin/python bench/bench_chance_learning.py --game 'einstein(3)' --games 50000 --seeds 3 \\
        [--out bench/results/chance_qlearn_einstein3.json]
    .venv/bin/python bench/bench_chance_learning.py --learner ntuple --game 'einstein(3)' --games 20000 --seeds 5
    .venv/bin/python bench/bench_chance_learning.py --game pig --games 6000000 --seeds 3 --first-seed 0 \
        --target 2 --out F -- --update expected --epsilon 0.3
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXE = str(Path(sys.executable).parent / "educable")


def train(learner: str, game: str, games: int, seed: int, extra: list[str]) -> dict:
    """One agent trained and judged exactly in a knowledge base of its own; train's --json report."""
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "EDUCABLE_GAMES": str(ROOT / "examples" / "chance")}
        p = subprocess.run([EXE, "train", game, "--learner", learner, "--agent", "a", "--games", str(games),  # noqa: S603
                            "--seed", str(seed), "--db", str(Path(folder) / "kb.db"), "--json", *extra],
                           capture_output=True, text=True, env=env, check=False)
        if p.returncode != 0:
            sys.exit(f"train failed for seed {seed}: {p.stderr.strip().splitlines()[-1:]}")
        return json.loads(p.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--learner", default="qlearn", choices=("qlearn", "ntuple"))
    ap.add_argument("--game", default="einstein(3)")
    ap.add_argument("--games", type=int, default=50_000, help="games each seed trains")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--first-seed", type=int, default=0, help="the seeds are first-seed, first-seed + 1, ...")
    ap.add_argument("--target", type=float, default=2.0, help="points below perfect play still on target")
    ap.add_argument("--out", type=Path, help="write the figures here as JSON")
    ap.add_argument("extra", nargs="*", help="more train options, after --")
    args = ap.parse_args()
    rows = []
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        t0 = time.perf_counter()
        report = train(args.learner, args.game, args.games, seed, args.extra)
        row: dict = {"seed": seed, "seconds": round(time.perf_counter() - t0, 1),
                     "games_per_second": report["games_per_second"]}
        if "expected_score" in report["exact"]:          # a game of score: points below best play's expectation
            x = report["exact"]
            row["score"] = {"expected": round(x["expected_score"], 6), "best_play": round(x["best_expected_score"], 6),
                            "points_below": round(x["best_expected_score"] - x["expected_score"], 6)}
            row["as_first"] = row["as_second"] = {"points_below": row["score"]["points_below"]}
            rows.append(row)
            print(f"{args.game} seed {seed}: {args.games:,} games in {row['seconds']} s; expects "
                  f"{row['score']['expected']:.6f} (best play {row['score']['best_play']:.6f}, "
                  f"{row['score']['points_below']:.6f} points below)", flush=True)
            continue
        for side in ("as_first", "as_second"):
            judged = report["exact"][side]
            gap = 100 * (judged["game_value"] - judged["against_best_response"])
            row[side] = {"won": round(judged["against_best_response"], 6), "perfect_play": round(judged["game_value"], 6),
                         "points_below": round(gap, 3)}
        rows.append(row)
        print(f"{args.game} seed {seed}: {args.games:,} games in {row['seconds']} s; "
              + "; ".join(f"{side.replace('_', ' ')} {row[side]['won']:.4%} (perfect play {row[side]['perfect_play']:.4%}, "
                          f"{row[side]['points_below']:.2f} points below)" for side in ("as_first", "as_second")), flush=True)
    worst = max(max(r["as_first"]["points_below"], r["as_second"]["points_below"]) for r in rows)
    on_target = sum(max(r["as_first"]["points_below"], r["as_second"]["points_below"]) <= args.target for r in rows)
    print(f"{args.game}: {on_target} of {len(rows)} seeds within {args.target} points of perfect play on both sides "
          f"after {args.games:,} games; the worst side {worst:.2f} points below")
    if args.out:
        args.out.write_text(json.dumps({"learner": args.learner, "game": args.game, "games": args.games, "target_points": args.target,
                                        "extra": args.extra, "seeds": rows, "on_target": on_target,
                                        "worst_points_below": worst}, indent=1) + "\n")


if __name__ == "__main__":
    main()
