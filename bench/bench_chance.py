"""Solving a game of chance: Pig (rules/games/pig.pl) by expectimax over its strongly connected parts,
each cyclic part by policy iteration with exact solves, against the same parts by value iteration alone
(the solver's fallback, and its method before) and a plain value iteration over all states written here,
both run beside it on the same graph.

Neller and Presser ("Optimal Play of the Dice Game Pig", 2004) give the first player 53.06% with optimal
play of pig(100,6) (a figure copied from the paper, not run here); the anchor measured in the same run is
the plain loop: numpy sweeps over every node at once (Jacobi: each sweep from the last one's values) until
no value moves by more than the tolerance.  Targets: the whole `educable solve pig` under 60 s on one core
(the bench pins its commands to one), and its value iteration at least 3x faster than the plain loop.  Then,
as the command stored it: solving again (read back) and a query at the start, and the knowledge base's size.

    .venv/bin/python bench/bench_chance.py [--game 'pig(100,6)'] [--json]
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

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["EDUCABLE_GAMES"] = str(ROOT / "examples" / "chance")     # where Pig is, for this process's Prolog

from educable.bridge.compile import compile_graph  # noqa: E402  (after the path is set)
from educable.learners import chance  # noqa: E402
from educable.learners.graph import CHANCE, ONGOING, StateGraph  # noqa: E402

PAPER = 0.5306        # Neller and Presser's figure for pig(100,6), copied


def plain_value_iteration(graph: StateGraph, tolerance: float) -> tuple[np.ndarray, int]:
    """Every node's value for the first player by whole-graph Jacobi sweeps in numpy; the sweeps taken."""
    n = graph.size
    value = np.where(graph.winner == 0, 1.0, np.where(graph.winner == 1, -1.0, 0.0))
    live = np.flatnonzero(graph.winner == ONGOING)
    offsets = graph.start[live]
    prob = graph.prob if graph.prob is not None else np.ones(len(graph.target))
    kind = graph.mover[live]
    sweeps = 0
    while True:
        sweeps += 1
        after = value[graph.target]
        best = np.maximum.reduceat(after, offsets)
        worst = np.minimum.reduceat(after, offsets)
        mean = np.add.reduceat(after * prob, offsets)
        new = np.where(kind == CHANCE, mean, np.where(kind == 0, best, worst))
        change = float(np.abs(new - value[live]).max()) if len(live) else 0.0
        value[live] = new
        if change <= tolerance or sweeps > 10 * n:
            return value, sweeps


def on_one_core() -> None:
    """Run (the command about to start) on one core only, as the target says."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def graph_start(game: str) -> str:
    """The text of the game's start (Pig's: '0 0 0 p1'), asked of educable."""
    exe = str(Path(sys.executable).parent / "educable")
    shown = subprocess.run([exe, "--games-dir", str(ROOT / "examples" / "chance"), "show", game, "--json"],
                           capture_output=True, text=True, check=True)
    return json.loads(shown.stdout)["position"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="pig(100,6)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    exe = str(Path(sys.executable).parent / "educable")
    with tempfile.TemporaryDirectory() as folder:
        def timed(*command: str) -> tuple[dict, float]:
            t0 = time.perf_counter()
            done = subprocess.run([exe, "--games-dir", str(ROOT / "examples" / "chance"), *command, "--json",
                                   "--db", str(Path(folder) / "kb.db")], capture_output=True, text=True, check=True,
                                  preexec_fn=on_one_core)
            return json.loads(done.stdout), time.perf_counter() - t0
        solved, command_seconds = timed("solve", args.game)
        again, again_seconds = timed("solve", args.game)          # read back from the knowledge base
        start = graph_start(args.game)
        queried, query_seconds = timed("query", args.game, start)
        stored_mb = (Path(folder) / "kb.db").stat().st_size / 2**20
    t0 = time.perf_counter()
    graph = compile_graph(args.game, ["p1", "p2"], False, 10**8, "the bench solves every position")
    compile_seconds = time.perf_counter() - t0
    chance.solve(graph)                                   # numba compiles (or reads its cache) once
    graph.solution = None                                 # and solved again, timed (solve keeps a graph's solution)
    t0 = time.perf_counter()
    ours = chance.solve(graph)
    ours_seconds = time.perf_counter() - t0
    graph.solution = None
    limit, chance.DENSE_LIMIT = chance.DENSE_LIMIT, 0       # every cyclic part by value iteration alone
    t0 = time.perf_counter()
    alone = chance.solve(graph)
    alone_seconds = time.perf_counter() - t0
    chance.DENSE_LIMIT = limit
    t0 = time.perf_counter()
    plain, plain_sweeps = plain_value_iteration(graph, chance.TOLERANCE)
    plain_seconds = time.perf_counter() - t0
    out = {
        "game": args.game, "positions": graph.size, "chance_nodes": int((graph.mover == CHANCE).sum()),
        "first_player_wins": round((1 + float(ours.value[0])) / 2, 6),
        "paper_copied": PAPER if args.game == "pig(100,6)" else None,
        "plain_first_player_wins": round((1 + float(plain[0])) / 2, 6),
        "largest_difference_from_plain": float(np.abs(ours.value - plain).max()),
        "whole_command_seconds": round(command_seconds, 2), "whole_command_on_one_core": True,
        "command_said": solved["win_probability"],
        "stored_mb": round(stored_mb, 1), "solve_again_seconds": round(again_seconds, 2),
        "solve_again_read_back": again["stored"], "query_at_start_seconds": round(query_seconds, 2),
        "query_source": queried["exact_source"],
        "compile_seconds": round(compile_seconds, 2),
        "ours": {"seconds": round(ours_seconds, 3), "parts": ours.parts, "cyclic_parts": ours.cyclic_parts,
                 "largest_part": ours.largest, "sweeps": ours.sweeps, "exact_parts": ours.exact_parts,
                 "improvements": ours.improvements},
        "value_iteration_alone": {"seconds": round(alone_seconds, 3), "sweeps": alone.sweeps,
                                  "first_player_wins": round((1 + float(alone.value[0])) / 2, 6),
                                  "largest_difference": float(np.abs(ours.value - alone.value).max())},
        "ratio_alone_to_ours": round(alone_seconds / ours_seconds, 2),
        "plain": {"seconds": round(plain_seconds, 3), "sweeps_of_the_whole_graph": plain_sweeps},
        "ratio_plain_to_ours": round(plain_seconds / ours_seconds, 1),
    }
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"{args.game}: {out['positions']:,} positions ({out['chance_nodes']:,} chance nodes)")
    print(f"first player wins {out['first_player_wins']:.6f}  (Neller and Presser, copied: {PAPER})"
          if args.game == "pig(100,6)" else f"first player wins {out['first_player_wins']:.6f}")
    print(f"educable solve, the whole command: {command_seconds:.1f} s  (target: under 60 s on one core); "
          f"compiling the graph {compile_seconds:.1f} s of it")
    print(f"stored ({stored_mb:.0f} MB): solve again {again_seconds:.1f} s (read back: {again['stored']}), "
          f"query at the start {query_seconds:.1f} s (from: {queried['exact_source']})")
    print(f"policy iteration by strongly connected parts: {ours_seconds:.2f} s, {ours.exact_parts:,} of "
          f"{ours.cyclic_parts:,} cyclic parts solved exactly, {ours.sweeps:,} sweeps first, "
          f"{ours.improvements:,} improvements")
    print(f"value iteration alone (the fallback, its error bounded), same run: {alone_seconds:.2f} s, "
          f"{alone.sweeps:,} sweeps; {out['ratio_alone_to_ours']}x ours; largest difference "
          f"{out['value_iteration_alone']['largest_difference']:.1e}")
    print(f"plain numpy value iteration, same run: {plain_seconds:.2f} s, {plain_sweeps:,} sweeps of all "
          f"{graph.size:,} nodes; {out['ratio_plain_to_ours']}x ours  (target: at least 3x); "
          f"largest difference {out['largest_difference_from_plain']:.1e}")


if __name__ == "__main__":
    main()
