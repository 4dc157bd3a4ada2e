"""The `cfr` learner: CFR+ (Tammelin 2014; alternating updates, regret matching+, linear averaging)
over the tree of a game of hidden information, or external-sampling Monte Carlo CFR (Lanctot et al.
2009; ``--sampling external``: a path's worth of the tree an iteration, for trees too large to walk
each time), its loop in numba (learners/hidden.py).

The agent's knowledge is its average strategy, a probability for each move of each information set,
stored as learned values (position ``PLAYER | VIEW``), and its CFR+ tables, so that a later run of the
same agent continues where this one stopped.  Every ``--judge-every`` iterations the run measures its
exploitability exactly and stores it as a point of its curve; ``--target`` stops it once reached.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from educable.bridge import cluster, games, hidden, trees
from educable.bridge.engine import BadInput
from educable.kb import equilibria
from educable.kb.store import get_agent
from educable.learners.options import Option, run_option
from educable.learners.training import Commits

if TYPE_CHECKING:
    import numpy as np
    import sqlite_utils

    from educable.learners.hidden import CFRState

NAME = "cfr"
SAMPLINGS = ("full", "external")
OPTIONS = (
    Option("sampling", str, "full", "full: CFR+ walks the whole tree each iteration; external: Monte Carlo CFR "
           "with external sampling (one move of chance and of the other player sampled where they move), for "
           "trees too large to walk each iteration. Kept with the agent.", NAME, choices=SAMPLINGS),
    run_option("iterations", int, 1000, "Iterations to run (each updates both players once).", NAME,
               low=1, high=1_000_000_000),
    run_option("judge_every", int, None, "Measure the exploitability exactly every N iterations, a point of the "
               "curve (default: iterations/20, at least 1).", NAME, low=1, high=10_000_000),
    run_option("target", float, None, "Stop once the exploitability is at most this (default: run every "
               "iteration).", NAME, low=0.0),
    run_option("workers", int, 1, "With --sampling external: on this many Dask workers (a local cluster), each "
               "running up to 500,000 iterations a round from the same tables (their regrets averaged).", NAME,
               low=1, high=64),
    run_option("scheduler", str, None, "... or on the Dask scheduler at ADDRESS (default: $EDUCABLE_SCHEDULER "
               "when --workers is above 1).", NAME, metavar="ADDRESS", place=True),
)
ROUND_ITERATIONS = 500_000    # external-sampling iterations a worker runs from the tables of a round


def sampled_round(game: str, regret: np.ndarray, total: np.ndarray, done: int, seed: int, k: int,
                  index: int) -> tuple[int, np.ndarray, np.ndarray]:
    """A Dask task: ``k`` iterations of external sampling from the tables given (``done`` iterations
    behind them), on the worker's own copy of the game's tree; its index and the tables' changes."""
    from educable.learners import hidden as algo

    state = algo.CFRState(regret.copy(), total.copy(), done)
    algo.external_sampling(trees.tree(game), state, k, seed)
    return index, state.regret - regret, state.total - total


def train(db: sqlite_utils.Database, game: str, agent: str, iterations: int, options: dict[str, Any],
          progress: Callable[..., None] | None = None, judge_every: int | None = None,
          target: float | None = None, limit: int | None = None, seed: int = 1, workers: int = 1,
          scheduler: str | None = None) -> dict[str, Any]:
    """Run CFR+ (or external-sampling MCCFR, ``options['sampling']``; its samples fixed by ``seed``,
    on ``workers`` Dask workers or the ``scheduler``'s) for ``iterations`` on AGENT (made, or
    continued from its stored tables) and store it."""
    from educable.learners import hidden as algo

    if not games.is_hidden(game):
        raise BadInput(f"the cfr learner is for games of hidden information (a file with sees/4: kuhn, leduc, "
                       f"liars_dice); {game} shows every player the whole position: solve it, or train qlearn")
    foreign = [k for k in options if k != "sampling"]
    if foreign:
        raise BadInput(f"--{foreign[0].replace('_', '-')} is not an option of the cfr learner")
    row = get_agent(db, agent)
    if row is not None and (row["learner"], row["game"]) != (NAME, game):
        raise BadInput(f"agent '{agent}' is a {row['learner']} agent of {row['game']}; choose another name")
    kept_sampling = (row["params"].get("sampling", "full") if row is not None else None)
    sampling = options.get("sampling", kept_sampling or "full")
    if sampling not in SAMPLINGS:
        raise BadInput(f"--sampling {sampling!r}: one of {', '.join(SAMPLINGS)}")
    if kept_sampling is not None and sampling != kept_sampling:
        raise BadInput(f"agent '{agent}' learns with --sampling {kept_sampling} (its tables are of that method); "
                       f"train another agent with --sampling {sampling}")
    parallel = workers > 1 or scheduler is not None
    if parallel and sampling != "external":
        raise BadInput("--workers and --scheduler are for --sampling external: CFR+ walks the whole tree each "
                       "iteration, a few milliseconds on Leduc, which workers would spend waiting for each other")
    if progress:
        progress(0, "compiling the game's tree")
    found = trees.tree(game, limit)
    if progress:
        progress(0, "")
    digest = games.rules_hash(game)
    state = algo.CFRState.fresh(found)
    kept = equilibria.load_cfr(db, agent, digest, found.slots) if row is not None else None
    if kept is not None:
        state.regret, state.total, state.iterations = kept
    first = state.iterations
    every = judge_every or max(1, iterations // 20)
    points: list[tuple[int, float]] = []
    commits = Commits()
    started = commits.started
    t0 = time.perf_counter()

    def save(s: algo.CFRState, run: dict[str, Any] | None) -> None:
        rows = [(f"{p} | {view}", move, prob) for p, view, move, prob, _ in hidden.strategy_rows(found, s.average(found))]
        equilibria.save_cfr(db, agent, game, {"sampling": sampling}, digest, rows, s.regret, s.total, s.iterations,
                            run, points, started)

    def report(s: algo.CFRState) -> bool:
        e = algo.exploitability(found, s.average(found))[0]
        if progress:
            progress(s.iterations - (points[-1][0] if points else first), f"exploitability {e:.3g}")
        points.append((s.iterations, e))
        if commits.due():               # a commit every few seconds: the page draws the curve live, a stop keeps it
            commits.commit(s.iterations, lambda _: save(s, None))
        return target is not None and e <= target
    if parallel:
        with cluster.engine(workers, scheduler) as client:
            if scheduler is not None:                   # as many tasks a round as the scheduler has workers
                workers = max(1, len(client.scheduler_info()["workers"]))
            _rounds(client, workers, game, state, iterations, seed, every, report)
    elif sampling == "external":
        algo.external_sampling(found, state, iterations, seed, every=every, report=report)
    else:
        algo.cfr_plus(found, state, iterations, every=every, report=report)
    seconds = time.perf_counter() - t0
    strategy = state.average(found)
    players = found.graph.players
    exploit = points[-1][1]
    save(state, {"games": state.iterations - first, "seconds": round(seconds, 4), "started": started,
                 "results": {"iterations": state.iterations, "exploitability": exploit}})
    return {"agent": agent, "game": game, "learner": NAME, "iterations": state.iterations - first,
            "total_iterations": state.iterations, "exploitability": exploit,
            "value": algo.expected_payoff(found, strategy), "players": players,
            "curve": [{"iterations": n, "exploitability": e} for n, e in points], "seconds": round(seconds, 4),
            "information_sets": found.sets, "sampling": sampling,
            **({"workers": workers, "scheduler": scheduler} if parallel else {})}


def _rounds(client: Any, workers: int, game: str, state: CFRState, iterations: int, seed: int, every: int,
            report: Callable[[CFRState], bool]) -> None:
    """External sampling in rounds: each of ``workers`` tasks runs up to ROUND_ITERATIONS iterations from
    the round's tables (its own seed); their regret changes are averaged (each estimates the same
    regrets: added, they would outweigh what came before, and Leduc after 1,000,000 iterations in
    rounds of 50,000 on two workers stood at 0.20 rather than 0.02) and their strategy sums added,
    in the tasks' order (the same seeds give the same tables whichever worker finishes first);
    ``report`` at every ``every`` iterations, as a run in one process does, its True answer stopping
    the run."""
    end = state.iterations + iterations
    while state.iterations < end:
        due = min(end, (state.iterations // every + 1) * every)            # the next judgement
        k = min(ROUND_ITERATIONS, -(-(due - state.iterations) // workers))
        tasks = [(game, state.regret, state.total, state.iterations, seed * 64 + w, k, w) for w in range(workers)]
        changes: list[tuple[int, Any, Any]] = []
        cluster.run_tasks(client, sampled_round, tasks, changes.append)
        for _, regret, total in sorted(changes, key=lambda c: c[0]):
            state.regret += regret / workers
            state.total += total
        state.iterations += k * workers
        if state.iterations >= due and report(state):
            return
