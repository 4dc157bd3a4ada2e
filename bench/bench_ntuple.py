"""The TD(λ) n-tuple learner (after GBG): self-play games and seconds until perfect, judged exactly.

For each setting and seed an agent learns by self-play and is judged exactly (`eval --exact` on
both sides) every 50 games; the figures are the first checkpoint perfect on both sides, whether
the agent is perfect at the end of the budget, and the training seconds (judging excluded).

Anchor (measured apart from this project and copied here, labelled): GBG's TD-n-tuple agent
(W. Konen, TH Köln, WolfgangKonen/GBG, its result files; 10 runs each): tic-tac-toe, 7 of 10 runs
never lose to minimax after 1,000 games, 8 of 10 after 10,000.  Connect Four, first player against
a perfect alpha-beta agent: +0.565 after 1 million games, +0.893 after 2 million, +0.978 after 3
million (8 of 10 runs winning every game), 6 million games in about 3.6 hours a run on one core;
70 fixed 8-tuples.  Thill's summary: 80% wins against minimax after 350,000-1,600,000 games
(0.5-1.7 h on one core).  GBG is Java and not on a package registry, so it is not run here.

    .venv/bin/python bench/bench_ntuple.py [--game tictactoe] [--games 2000] [--seeds 5]
                                          [--sweep] [--json]
    .venv/bin/python bench/bench_ntuple.py --game 'connect(4,7,6)' --lazy 4096 [--workers 2]
    .venv/bin/python bench/bench_ntuple.py --adversary [--seeds 25]
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import common  # noqa: F401  (puts the project on the path)

from bridge import commands, graphs, ntuple
from kb.db import open_kb
from learners import exact
from learners.ntuple import train_on_graph

GBG_TTT = "GBG (copied, not run): 7/10 runs never lose after 1,000 games, 8/10 after 10,000"
GBG_C4 = ("GBG (copied, not run): vs perfect as first +0.565 @1M, +0.893 @2M, +0.978 @3M games; "
          "6M games ~3.6 h/run on one core")
SETTINGS = {
    "default (18 tuples of 6, TD(0), alpha 0.5->0.05, epsilon 0.3)": {},
    "lambda 0.5": {"lam": 0.5},
}
SWEEP = {
    f"a{a}->{ae} e{e}->{ee} lam{lam} {t}x{n}": {"alpha": a, "alpha_end": ae, "epsilon": e, "epsilon_end": ee,
                                                 "lam": lam, "tuples": t, "length": n}
    for a, ae in ((0.5, 0.05), (0.1, 0.1))
    for e, ee in ((0.3, 0.3), (0.5, 0.1))
    for lam in (0.0, 0.5)
    for t, n in ((18, 6), (10, 8))
}


def judge_run(db, game: str, graph, opts: dict, seed: int, n_games: int, every: int = 50) -> dict:
    """Train a fresh net by self-play for ``n_games`` (no knowledge base writes), judging exactly every
    ``every`` games; the first perfect checkpoint, perfect at the end, and the training seconds."""
    net, o, _ = ntuple.start(db, f"bench{seed}", game, opts, seed)
    feats = ntuple.graph_features(graph, net)
    first, done, seconds, point = None, 0, 0.0, None
    while done < n_games:
        t = time.perf_counter()
        train_on_graph(net, graph.start, graph.target, graph.winner, graph.mover, feats, o, every,
                       seed * 1_000_003 + done, done, n_games, [3], None)
        seconds += time.perf_counter() - t
        done += every
        point = exact.checkpoint(graph, ntuple.greedy_support(graph, net, feats), done)
        if first is None and point["as_first"]["perfect"] and point["as_second"]["perfect"]:
            first = done
    assert point is not None
    return {"first_perfect": first, "perfect_at_end": point["as_first"]["perfect"] and point["as_second"]["perfect"],
            "seconds": round(seconds, 3), "end": point}


GBG_C4_GAMES_PER_SECOND = 6_000_000 / (3.6 * 3600)     # copied: 6 million games in about 3.6 hours, one core


def lazy_throughput(game: str, n_games: int, seed: int, workers: int = 1) -> None:
    """Self-play games a second on a game too large to enumerate (one Prolog query a ply for a batch
    of games), against GBG's Connect Four figure (copied, not run)."""
    db = open_kb(Path(tempfile.mkdtemp()) / "bench.db")
    r = commands.train(db, game, "ntuple", "lazy", n_games, "self", "both", seed, {}, workers=workers)
    rate = r["games"] / r["seconds"]
    print(f"{game}, {workers} worker(s): {r['games']} self-play games in {r['seconds']:.1f} s = {rate:.0f} games/s "
          f"({r['net']['tuples']} tuples of {r['net']['lengths']}, {r['lazy']['prolog_queries']} Prolog queries); "
          f"GBG (copied, not run) {GBG_C4_GAMES_PER_SECOND:.0f} games/s on one core: ratio {rate / GBG_C4_GAMES_PER_SECOND:.2f}")


ADVERSARY = {
    "n-tuple, defaults (no exploration against the adversary)": ("ntuple", {}),
    "n-tuple, lambda 0.5": ("ntuple", {"lam": 0.5}),
    "n-tuple, exploring as in self-play (epsilon 0.3)": ("ntuple", {"epsilon": 0.3}),
    "anchor: punishment learner, plain (HER)": ("punish", {}),
    "anchor: punishment learner, last move + reward winner": ("punish", {"reward": 1.0}),
}


def vs_adversary(seeds: int, games: int = 100) -> None:
    """Hexapawn as black against the adversary (white plays the moves most likely to beat the agent's
    current choices): games lost until perfect, per learner, median over ``seeds``; the punishment
    learner, whose floor this was (4 with the reward), measured in the same run."""
    print(f"hexapawn as black against the adversary, {games} games, {seeds} seeds: losses (inf: not perfect at the end)")
    for label, (learner, opts) in ADVERSARY.items():
        losses, perfect = [], 0
        for seed in range(seeds):
            db = open_kb(Path(tempfile.mkdtemp()) / "bench.db")
            r = commands.train(db, "hexapawn", learner, "a", games, "adversary", "second", seed, opts)
            ok = r["exact"]["as_second"]["perfect"]
            perfect += ok
            losses.append(r["losses"] if ok else float("inf"))
        print(f"  {label:<56} median losses {statistics.median(losses):>4g}  range {min(losses):g}-{max(losses):g}"
              f"  perfect as black {perfect}/{seeds}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="tictactoe")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--sweep", action="store_true", help="the settings sweep (step sizes, exploration, λ, tuples)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--lazy", type=int, default=0, metavar="GAMES",
                    help="measure self-play games/s on a game too large to enumerate (Connect Four) instead")
    ap.add_argument("--workers", type=int, default=1, help="with --lazy: Dask workers (a local cluster)")
    ap.add_argument("--adversary", action="store_true", help="hexapawn as black against the adversary instead")
    args = ap.parse_args()
    if args.adversary:
        return vs_adversary(args.seeds)
    if args.lazy:
        return lazy_throughput(args.game, args.lazy, 0, args.workers)
    db = open_kb(Path(tempfile.mkdtemp()) / "bench.db")
    graph = graphs.state_graph(db, args.game, None)
    settings = SWEEP if args.sweep else SETTINGS
    report = {}
    print(f"{args.game}: TD(λ) n-tuple self-play, {args.games} games, {args.seeds} seeds, judged exactly every 50 games")
    for label, opts in settings.items():
        runs = [judge_run(db, args.game, graph, opts, seed, args.games) for seed in range(args.seeds)]
        firsts = [r["first_perfect"] for r in runs]
        ends = sum(r["perfect_at_end"] for r in runs)
        secs = statistics.median(r["seconds"] for r in runs)
        reached = sorted(f for f in firsts if f is not None)
        med = statistics.median(reached) if len(reached) == len(runs) else None
        report[label] = {"first_perfect": firsts, "perfect_at_end": ends, "median_seconds": secs}
        print(f"{label:<44} perfect at the end {ends}/{len(runs)}; first perfect at {firsts} "
              f"(median {med}); {secs:.2f} s of training (median)", flush=True)
    if args.game == "tictactoe":
        print(f"{'anchor':<44} {GBG_TTT}")
    if args.json:
        print(json.dumps(report))


if __name__ == "__main__":
    main()
