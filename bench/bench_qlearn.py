"""Q-learning (the CA425 practical and ours): self-play games and seconds until perfect, with and
without the tie-break, per update rule and game, against OpenSpiel's tabular Q-learner.

For each seed a run of self-play games is judged exactly every 25 games (`eval --exact` on both
sides, and the exact win rate against a uniformly random opponent); the figures are the first
checkpoint that is perfect on both sides, and the first that is also at or above the tie-break
targets (99.0% wins as X and 90.0% as O; a never-losing player's ceilings are 99.48% / 91.64%).

Anchors: OpenSpiel's tabular Q-learner (its tic_tac_toe_qlearner example: two learners, step 0.1,
epsilon 0.2) trained in this same run when `open_spiel` is installed (pip install -e '.[bench]'),
judged exactly on its own game tree.  Measured apart from this project and copied here (labelled):
fcarsten's "TQPlayer" is unexploitable on both sides from game 7,091 unfolded and from game 1,015
folded by the eight symmetries.

    .venv/bin/python bench/bench_qlearn.py [--seeds 25] [--quick] [--no-openspiel] [--plot FILE.png]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from common import line

from educable.bridge import commands
from educable.kb.db import open_kb

TARGETS = (0.990, 0.900)          # wins against random as first and as second, with the tie-break
TQPLAYER_FOLDED = 1_015           # measured apart (fcarsten's TQPlayer, folded): labelled, not re-run here
RULES = {
    "bounds, folded (default)": {},
    "negamax, folded": {"update": "negamax"},
    "negamax, unfolded": {"update": "negamax", "fold": False},
    "CA425's lookahead, alpha=1/n, gamma=0.9, eps 0.5->0": {"update": "lookahead", "gamma": 0.9,
                                                             "epsilon_end": 0.0, "fold": False},
}


def fresh_db():
    return open_kb(Path(tempfile.mkdtemp()) / "bench.db")


def first_checkpoint(r: dict, targets: tuple[float, float] | None) -> int | None:
    """The games at the first checkpoint perfect on both sides (and at the win-rate targets)."""
    for c in r["checkpoints"]:
        a, b = c["as_first"], c["as_second"]
        if a["perfect"] and b["perfect"] and (targets is None or (a["win_vs_random"] >= targets[0]
                                                                   and b["win_vs_random"] >= targets[1])):
            return c["games"]
    return None


def run_seed(game: str, opts: dict, seed: int, budgets: tuple[int, ...], tie_break: bool) -> dict:
    """Self-play until perfect (and the targets) on the smallest budget that reaches them."""
    for budget in budgets:
        db = fresh_db()
        r = commands.train(db, game, "qlearn", "q", budget, "self", "both", seed, opts)
        perfect = first_checkpoint(r, None)
        both = first_checkpoint(r, TARGETS) if tie_break else None
        if perfect is not None and (both is not None or not tie_break):
            break
    return {"perfect": perfect, "targets": both, "seconds": r["seconds"] * (perfect or budget) / r["games"],
            "games_per_second": r["games_per_second"], "run": r}


def median_games(values: list[int | None]) -> str:
    known = [v if v is not None else float("inf") for v in values]
    med = statistics.median(known)
    return "never" if med == float("inf") else f"{med:,.0f}"


def summarise(label: str, rows: list[dict], tie_break: bool) -> None:
    reached = sum(r["perfect"] is not None for r in rows)
    text = (f"  {label:<46} perfect: median {median_games([r['perfect'] for r in rows]):>7} games "
            f"(max {max((r['perfect'] or 0) for r in rows):,}; {reached}/{len(rows)})")
    if tie_break:
        text += (f"; and >= {TARGETS[0]:.1%}/{TARGETS[1]:.1%} vs random: median "
                 f"{median_games([r['targets'] for r in rows])} "
                 f"({sum(r['targets'] is not None for r in rows)}/{len(rows)})")
    text += f"; training to perfect {statistics.median(r['seconds'] for r in rows):.3f} s"
    print(text, flush=True)


def openspiel_qlearner(episodes: int, seed: int) -> dict | None:
    """OpenSpiel's tic_tac_toe_qlearner example, trained here, then judged exactly on its tree."""
    try:
        import numpy as np
        import pyspiel
        from open_spiel.python import rl_environment
        from open_spiel.python.algorithms import tabular_qlearner
    except ImportError:
        return None
    np.random.seed(seed)
    env = rl_environment.Environment("tic_tac_toe")
    n_actions = env.action_spec()["num_actions"]
    agents = [tabular_qlearner.QLearner(player_id=p, num_actions=n_actions) for p in range(2)]
    t0 = time.perf_counter()
    for _ in range(episodes):
        step = env.reset()
        while not step.last():
            p = step.observations["current_player"]
            step = env.step([agents[p].step(step).action])
        for agent in agents:
            agent.step(step)
    seconds = time.perf_counter() - t0
    game = pyspiel.load_game("tic_tac_toe")

    def greedy(p: int, state) -> list[int]:
        q = agents[p]._q_values[str(state.observation_tensor(p))]
        legal = state.legal_actions()
        best = max(q[a] for a in legal)
        return [a for a in legal if q[a] == best]

    def judge(p: int) -> tuple[float, bool]:
        """p's exact win probability against random, and whether it never loses to any reply."""
        memo: dict[str, tuple[float, bool]] = {}

        def walk(state) -> tuple[float, bool]:
            key = str(state)
            if key in memo:
                return memo[key]
            if state.is_terminal():
                r = state.returns()[p]
                out = (float(r > 0), r >= 0)
            else:
                mine = state.current_player() == p
                moves = greedy(p, state) if mine else state.legal_actions()
                kids = [walk(state.child(a)) for a in moves]
                out = (sum(w for w, _ in kids) / len(kids), all(safe for _, safe in kids))
            memo[key] = out
            return out
        return walk(game.new_initial_state())

    (x_win, x_safe), (o_win, o_safe) = judge(0), judge(1)
    return {"seconds": seconds, "x_win": x_win, "o_win": o_win, "never_loses": (x_safe, o_safe)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=25)
    ap.add_argument("--quick", action="store_true", help="the default rule on tic-tac-toe only")
    ap.add_argument("--no-openspiel", action="store_true")
    ap.add_argument("--openspiel-episodes", type=int, default=100_000)
    ap.add_argument("--plot", default="")
    args = ap.parse_args()
    seeds = range(args.seeds)
    print(f"== tic-tac-toe self-play until eval --exact says perfect on both sides ({args.seeds} seeds) ==")
    default_rows: list[dict] = []
    for label, opts in RULES.items():
        default = opts == {}
        if args.quick and not default:
            continue
        n = args.seeds if default else min(args.seeds, 5)
        budgets = (1_000, 4_000, 20_000) if default else (5_000, 40_000, 150_000)
        rows = [run_seed("tictactoe", opts, s, budgets, default) for s in seeds[:n]]
        summarise(label + ("" if default else f" [{n} seeds]"), rows, default)
        if default:
            default_rows = rows
    med = statistics.median(r["perfect"] or float("inf") for r in default_rows)
    line("  games to perfect, default, vs TQPlayer folded (measured apart)", med, "games",
         TQPLAYER_FOLDED, "TQPlayer")
    best = min((r for r in default_rows if r["targets"]), key=lambda r: r["targets"], default=None)
    if best:
        cp = next(c for c in best["run"]["checkpoints"] if c["games"] == best["targets"])
        print(f"  e.g. a default agent at game {best['targets']}: never loses; exactly against random it wins "
              f"{cp['as_first']['win_vs_random']:.2%} as X and {cp['as_second']['win_vs_random']:.2%} as O "
              f"(ceilings 99.48% / 91.64%)")
    if not args.no_openspiel:
        os_ = openspiel_qlearner(args.openspiel_episodes, 1)
        if os_ is None:
            print("  (OpenSpiel is not installed: pip install -e '.[bench]' adds the anchor)")
        else:
            print(f"  OpenSpiel's tabular Q-learner, {args.openspiel_episodes:,} episodes in {os_['seconds']:.1f} s: "
                  f"exactly against random wins {os_['x_win']:.2%} as X and {os_['o_win']:.2%} as O; never loses "
                  f"as X: {os_['never_loses'][0]}, as O: {os_['never_loses'][1]}")
            line("  training seconds to perfect, default, vs OpenSpiel's run",
                 statistics.median(r["seconds"] for r in default_rows), "s", os_["seconds"], "OpenSpiel")
    if args.quick:
        return
    print(f"\n== other games, default options (bounds, folded where the game has symmetries) ==")
    for game, n in (("hexapawn", args.seeds), ("nim(3,4,5)", args.seeds), ("boxes(2,2)", 5),
                    ("connect(3,4,4)", 5), ("hexapawn(4,4)", 3)):
        rows = [run_seed(game, {}, s, (1_000, 10_000, 50_000), False) for s in seeds[:n]]
        r0 = rows[0]["run"]
        summarise(f"{game} [{n} seeds, {r0['games_per_second']:,.0f} games/s]", rows, False)
    if args.plot and default_rows:
        from educable.learners.plot import curve_png
        cps = default_rows[0]["run"]["checkpoints"]
        Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
        curve_png(args.plot, {
            "win rate vs random as X": [c["as_first"]["win_vs_random"] for c in cps],
            "win rate vs random as O": [c["as_second"]["win_vs_random"] for c in cps],
            "perfect as X (exact)": [float(c["as_first"]["perfect"]) for c in cps],
            "perfect as O (exact)": [float(c["as_second"]["perfect"]) for c in cps],
        }, cps[0]["games"], "tic-tac-toe Q-learning (bounds, folded), self-play", ylabel="exact, at checkpoints")
        print(f"learning curve: {args.plot}")


if __name__ == "__main__":
    main()
