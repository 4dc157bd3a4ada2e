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
    .venv/bin/python bench/bench_ntuple.py --c4-db COPY.db --agent c4 --games 50 [--mcts-games 10]
      (train first: educable train 'connect(4,7,6)' --learner ntuple --agent c4 --games 1200000)
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import common  # noqa: F401  (puts the project on the path)

from educable.bridge import commands, graphs, ntuple
from educable.kb.db import open_kb
from educable.learners import exact
from educable.learners.ntuple import train_on_graph

GBG_TTT = "GBG (copied, not run): 7/10 runs never lose after 1,000 games, 8/10 after 10,000"
GBG_C4 = ("GBG (copied, not run): vs perfect as first +0.565 @1M, +0.893 @2M, +0.978 @3M games; "
          "6M games ~3.6 h/run on one core")
SETTINGS = {
    "default (TD(0), alpha 0.5->0.05, epsilon 0.3; tuples by board size)": {},
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


TARGET_GAMES_PER_SECOND = {1: 1000, 2: 1800}          # issue: twice the games an hour (one core; two workers)


def lazy_throughput(game: str, n_games: int, seed: int, workers: int = 1) -> tuple[float, float]:
    """Self-play games a second on a game too large to enumerate (one Prolog query a ply for a batch
    of games), counted over the training alone and over the whole command (commits included), against
    the target and GBG's Connect Four figure (copied, not run); on several workers (that keep the
    net), the bytes moved and the seconds a round.  Returns the whole command's games a second and
    the training's once running: one worker's over the run, several workers' over the rounds after
    the first (which sends the whole net, once a run of hundreds of rounds)."""
    db = open_kb(Path(tempfile.mkdtemp()) / "bench.db")
    t0 = time.perf_counter()
    r = commands.train(db, game, "ntuple", "lazy", n_games, "self", "both", seed, {}, workers=workers)
    wall = time.perf_counter() - t0
    rate, whole = r["games"] / r["seconds"], r["games"] / wall
    target = TARGET_GAMES_PER_SECOND.get(workers)
    print(f"{game}, {workers} worker(s): {r['games']:,} self-play games in {r['seconds']:.1f} s of training = {rate:.0f} "
          f"games/s; the whole command {wall:.1f} s = {whole:.0f} games/s, commits included "
          f"({r['net']['tuples']} tuples of {r['net']['lengths']}, {r['lazy']['prolog_queries']:,} Prolog queries)")
    if target:
        print(f"  target {target:,} games/s: {whole / target:.2f}x of it ({'met' if whole >= target else 'missed'})")
    print(f"  GBG (copied, not run) {GBG_C4_GAMES_PER_SECOND:.0f} games/s on one core: {whole / GBG_C4_GAMES_PER_SECOND:.2f}x")
    lazy = r["lazy"]
    if lazy.get("rounds"):
        print(f"  {lazy['rounds']} rounds of {workers} x {ntuple.ROUND_GAMES:,} games, {r['seconds'] / lazy['rounds']:.1f} s a "
              f"round; the whole net {lazy['bytes_first_round'] / 1e6:.1f} MB once, then {lazy['bytes_per_round'] / 1e6:.2f} "
              "MB a round (both ways)")
        after = lazy.get("seconds_a_round_after")
        if after:
            steady = workers * ntuple.ROUND_GAMES / after
            print(f"  the first round {lazy['seconds_first_round']:.1f} s; each after it {after:.2f} s (median) = "
                  f"{steady:.0f} games/s once running, of which the slower worker's games "
                  f"{lazy['seconds_playing_a_round_after']:.2f} s")
            return whole, steady
    return whole, rate


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


GBG_C4_ANCHOR = [
    ("GBG TD-n-tuple (copied, not run): score as first vs perfect alpha-beta", "+0.565 @1M, +0.893 @2M, +0.978 @3M games "
     "(8/10 runs win every game at 3M); 6M games ~3.6 h a run on one core"),
    ("Thill's summary (copied, not run): wins vs minimax", "80% after 350,000-1,600,000 games (0.5-1.7 h on one core)"),
]


def c4_strength(db_path: str, agent: str, n_games: int, mcts_games: int, seed: int = 0,
                accuracy_games: int | None = None, openings: int = 2) -> dict:
    """The issue's Connect Four targets for a trained agent: wins as first against perfect (ties at
    random) and against mcts:1000 (``mcts_games`` a side, none with 0), move accuracy over the
    positions of ``accuracy_games`` games (default ``n_games``) in self-play, against random and
    against perfect, results from the openings of up to ``openings`` moves; beside GBG's figures
    (copied, not run)."""
    from educable.bridge import judge, perfect
    db = open_kb(Path(db_path))
    game = "connect(4,7,6)"
    from educable.kb import store
    runs = list(db.query("SELECT games, seconds FROM runs WHERE agent = ?", [agent]))
    trained, secs = store.get_agent(db, agent)["games_trained"], sum(r["seconds"] for r in runs)
    rate = sum(r["games"] for r in runs) / secs if secs else None
    timing = (f" in {secs / 3600:.2f} h of training ({rate:.0f} games/s)" if rate
              else " (a run still going: no time recorded yet)")
    print(f"{game}: agent {agent}, {trained:,} self-play games{timing}")
    for label, figure in GBG_C4_ANCHOR:
        print(f"  anchor  {label}: {figure}")
    report: dict = {"games_trained": trained, "training_hours": round(secs / 3600, 3),
                    "games_per_second": round(rate) if rate else None}
    t = time.perf_counter()
    vs_perfect = judge.play_series(db, game, (agent, perfect.NAME), n_games, seed)
    wins = vs_perfect.get("x", 0)
    report["vs_perfect_as_first"] = {"games": n_games, "wins": wins, "draws": vs_perfect.get("draw", 0)}
    print(f"  as first vs perfect (random tie-breaks): {wins}/{n_games} won, {vs_perfect.get('draw', 0)} drawn "
          f"(target 90% won; GBG +0.978 at 3M games)  [{time.perf_counter() - t:.0f} s]", flush=True)
    if mcts_games:
        t = time.perf_counter()
        r = commands.evaluate_series(db, game, agent, "mcts:1000", 2 * mcts_games, seed)
        report["vs_mcts1000"] = {"as_first": r["as_first"], "as_second": r["as_second"]}
        print(f"  vs mcts:1000: as first {r['as_first']['win']}/{mcts_games} won, as second {r['as_second']['win']}/"
              f"{mcts_games} won (target 95% as first)  [{time.perf_counter() - t:.0f} s]", flush=True)
    t = time.perf_counter()
    j = judge.judge(db, game, agent, accuracy_games or n_games, seed, openings=openings)
    report["accuracy"] = {k: v["accuracy"] for k, v in j["accuracy"].items()}
    report["vs_perfect_openings"] = j["vs_perfect"]
    acc = ", ".join(f"{k} {100 * v:.1f}%" for k, v in report["accuracy"].items())
    print(f"  move accuracy: {acc} (target 90% in self-play)  [{time.perf_counter() - t:.0f} s]", flush=True)
    if "two moves" in j["vs_perfect"]:
        two = j["vs_perfect"]["two moves"]
        print(f"  from the 49 two-move openings vs perfect: {two['win']} won, {two['draw']} drawn, {two['at_value']} at "
              f"value", flush=True)
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="tictactoe")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--sweep", action="store_true", help="the settings sweep (step sizes, exploration, λ, tuples)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--every", type=int, default=50, help="judge exactly every this many games")
    ap.add_argument("--lazy", type=int, default=0, metavar="GAMES",
                    help="measure self-play games/s on a game too large to enumerate (Connect Four) instead")
    ap.add_argument("--workers", type=int, nargs="+", default=[1],
                    help="with --lazy: Dask workers (a local cluster); several: each in turn, with the ratio to the first")
    ap.add_argument("--adversary", action="store_true", help="hexapawn as black against the adversary instead")
    ap.add_argument("--c4-db", metavar="PATH", help="judge the Connect Four agent --agent of this knowledge base "
                    "against the issue's targets (a copy: the judgement records its games)")
    ap.add_argument("--agent", default="c4")
    ap.add_argument("--mcts-games", type=int, default=10, help="with --c4-db: games a side against mcts:1000")
    args = ap.parse_args()
    if args.adversary:
        return vs_adversary(args.seeds)
    if args.c4_db:
        report = c4_strength(args.c4_db, args.agent, args.games, args.mcts_games)
        if args.json:
            print(json.dumps(report))
        return None
    if args.lazy:
        runs: dict[int, list[tuple[float, float]]] = {}
        for w in args.workers:          # a count given twice runs twice: alternate them on a noisy machine
            runs.setdefault(w, []).append(lazy_throughput(args.game, args.lazy, 0, w))
        base = args.workers[0]
        medians = {w: tuple(statistics.median(r[i] for r in rs) for i in (0, 1)) for w, rs in runs.items()}
        for w in list(runs)[1:]:
            (whole, steady), (whole0, steady0) = medians[w], medians[base]
            print(f"{w} workers against {base} (medians of {len(runs[w])} and {len(runs[base])} runs): "
                  f"{whole / whole0:.2f}x the games a second over the whole command, {steady / steady0:.2f}x once "
                  "running (training alone)")
        return None
    db = open_kb(Path(tempfile.mkdtemp()) / "bench.db")
    graph = graphs.state_graph(db, args.game, None)
    settings = SWEEP if args.sweep else SETTINGS
    report = {}
    print(f"{args.game}: TD(λ) n-tuple self-play, {args.games} games, {args.seeds} seeds, judged exactly every "
          f"{args.every} games")
    for label, opts in settings.items():
        runs = [judge_run(db, args.game, graph, opts, seed, args.games, args.every) for seed in range(args.seeds)]
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
