"""Games of hidden information against OpenSpiel, measured in the same run.

- Kuhn poker: educable's value against -1/18 (Kuhn 1950).
- Leduc hold'em and Liar's Dice (1 die, 6 faces): educable's value (the sequence-form LP on Leduc,
  CFR+ on Liar's Dice) against what OpenSpiel's C++ CFRPlusSolver converges to here.
- Exploitability of three policies (uniform, always call, educable's CFR+ after 100 iterations):
  educable's against ``pyspiel.exploitability`` of the same policy.
- Q-learning on views (Kuhn, 100,000 self-play games, five seeds): its exploitability beside CFR's.
- External-sampling Monte Carlo CFR on Leduc, 100,000 iterations: educable's numba loop against
  OpenSpiel's C++ ExternalSamplingMCCFRSolver (iterations only, both), and the exploitability each reached.
- Monte Carlo CFR on two Dask workers: `train leduc --learner cfr --sampling external --iterations
  20000000` in one process and with --workers 2 (whole commands), the time and the exploitability each reached.
- Time to an exploitability: `educable train leduc --learner cfr --target E` (the whole command,
  compiling the game included, in a process of its own) against OpenSpiel's CFRPlusSolver (its
  iterations only; the exploitability checks between them not counted), both on one core.

    .venv/bin/python bench/bench_hidden.py [--quick]      # --quick: Kuhn and Leduc only
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

from common import line

EXE = str(Path(sys.executable).parent / "educable")


def openspiel_cfr_to(game_name: str, params: dict, target: float, most: int,
                     every: int) -> tuple[float, int, float, float]:
    """OpenSpiel's CFRPlusSolver until its average policy's exploitability is at most ``target``:
    the seconds its iterations took, how many, the exploitability reached and the first player's
    expected payoff under the average policy."""
    import pyspiel
    game = pyspiel.load_game(game_name, params)
    solver = pyspiel.CFRPlusSolver(game)
    spent, done, reached = 0.0, 0, float("inf")
    while done < most:
        t0 = time.perf_counter()
        for _ in range(every):
            solver.evaluate_and_update_policy()
        spent += time.perf_counter() - t0
        done += every
        reached = pyspiel.exploitability(game, solver.average_policy())
        if reached <= target:
            break
    value = pyspiel.expected_returns(game.new_initial_state(), solver.average_policy(), -1, True)[0]
    return spent, done, reached, value


def educable_to(game: str, target: float, most: int, every: int) -> tuple[float, dict]:
    """`educable train GAME --learner cfr --target T` as a user runs it (a fresh knowledge base)."""
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        out = subprocess.run([EXE, "train", game, "--learner", "cfr", "--agent", "c", "--iterations", str(most),
                              "--judge-every", str(every), "--target", str(target), "--json",
                              "--db", str(Path(tmp) / "kb.db")],
                             check=True, capture_output=True, text=True, env={**os.environ, "NUMBA_NUM_THREADS": "1"})
        return time.perf_counter() - t0, json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="Kuhn and Leduc only (Liar's Dice takes minutes)")
    args = ap.parse_args()
    import pyspiel
    from open_spiel.python.algorithms import exploitability as os_exploitability

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from test_hidden import tabular         # the same mapping the suite checks, state for state

    from educable.bridge import trees
    from educable.learners import hidden as algo

    found = trees.tree("kuhn")
    eq = algo.equilibrium(found)
    line("kuhn: |value - (-1/18)|", abs(eq.value + 1 / 18), "")

    t0 = time.perf_counter()
    leduc = trees.tree("leduc")
    compiled = time.perf_counter() - t0
    t0 = time.perf_counter()
    leq = algo.equilibrium(leduc)
    line("leduc: tree compiled from Prolog (9,457 positions)", compiled, "s")
    line("leduc: sequence-form LP", time.perf_counter() - t0, "s")
    spent, done, reached, value = openspiel_cfr_to("leduc_poker", {}, 1e-6, 20_000, 500)
    print(f"leduc: educable's value {leq.value:+.9f} (exploitability {leq.exploitability:.1e}); OpenSpiel's "
          f"CFR+ after {done:,} iterations ({spent:.1f} s): {value:+.9f} (exploitability {reached:.1e})", flush=True)
    line("leduc: |educable's value - OpenSpiel's CFR+'s|", abs(leq.value - value), "")

    spiel = pyspiel.load_game("leduc_poker")
    uniform = leduc.uniform()
    always_call = uniform.copy()
    for i in range(leduc.sets):
        moves = leduc.moves[i]
        always_call[leduc.slot0[i]:leduc.slot0[i] + len(moves)] = [1.0 if m == "call" else 0.0 for m in moves]
    cfr100 = algo.cfr_plus(leduc, algo.CFRState.fresh(leduc), 100).average(leduc)
    worst = 0.0
    for name, strategy in (("uniform", uniform), ("always call", always_call), ("CFR+ 100", cfr100)):
        ours = algo.exploitability(leduc, strategy)[0]
        theirs = os_exploitability.exploitability(spiel, tabular("leduc", strategy))
        worst = max(worst, abs(ours - theirs))
        print(f"leduc: exploitability of {name}: educable {ours:.12f}, OpenSpiel {theirs:.12f}", flush=True)
    line("leduc: largest difference of the three", worst, "")

    for target in (1e-3, 1e-4):
        os_time, os_done, os_reached, _ = openspiel_cfr_to("leduc_poker", {}, target, 50_000, 50)
        ours_time, ours = educable_to("leduc", target, 50_000, 50)
        print(f"leduc to {target:g}: educable {ours['total_iterations']:,} iterations, reached "
              f"{ours['exploitability']:.2e}; OpenSpiel {os_done:,} iterations, reached {os_reached:.2e}", flush=True)
        line(f"leduc: whole command to exploitability {target:g}", ours_time, "s", os_time,
             "OpenSpiel's CFRPlusSolver iterations")
    algo.external_sampling(leduc, algo.CFRState.fresh(leduc), 1, seed=0)     # numba's compiled loop loaded first
    t0 = time.perf_counter()
    sampled = algo.external_sampling(leduc, algo.CFRState.fresh(leduc), 100_000, seed=1)
    ours_time = time.perf_counter() - t0
    solver = pyspiel.ExternalSamplingMCCFRSolver(spiel, 1, pyspiel.MCCFRAverageType.SIMPLE)
    t0 = time.perf_counter()
    for _ in range(100_000):
        solver.run_iteration()
    os_time = time.perf_counter() - t0
    print(f"leduc: external-sampling MCCFR, 100,000 iterations: educable reached "
          f"{algo.exploitability(leduc, sampled.average(leduc))[0]:.4f}, OpenSpiel "
          f"{pyspiel.exploitability(spiel, solver.average_policy()):.4f}", flush=True)
    line("leduc: external-sampling MCCFR, 100,000 iterations", ours_time, "s", os_time,
         "OpenSpiel's ExternalSamplingMCCFRSolver")
    with tempfile.TemporaryDirectory() as tmp:
        reached = []
        for seed in range(5):               # Q-learning on views: how far a table of views falls short
            out = subprocess.run([EXE, "train", "kuhn", "--learner", "qlearn", "--agent", f"q{seed}", "--games",
                                  "100000", "--seed", str(seed), "--json", "--db", str(Path(tmp) / "kb.db")],
                                 check=True, capture_output=True, text=True)
            reached.append(json.loads(out.stdout)["exact"]["exploitability"])
        cfr = subprocess.run([EXE, "train", "kuhn", "--learner", "cfr", "--agent", "c", "--iterations", "1000",
                              "--json", "--db", str(Path(tmp) / "kb.db")], check=True, capture_output=True, text=True)
        print("kuhn: qlearn on views, 100,000 self-play games, seeds 0-4: exploitability "
              + ", ".join(f"{e:.4f}" for e in reached) + f"; cfr after 1,000 iterations: "
              f"{json.loads(cfr.stdout)['exploitability']:.2e}", flush=True)
    if args.quick:
        return
    with tempfile.TemporaryDirectory() as tmp:
        took = {}
        for workers in (1, 2):
            t0 = time.perf_counter()
            out = subprocess.run([EXE, "train", "leduc", "--learner", "cfr", "--agent", f"m{workers}", "--sampling",
                                  "external", "--iterations", "20000000", "--judge-every", "5000000", "--seed", "1",
                                  "--workers", str(workers), "--json", "--db", str(Path(tmp) / "kb.db")],
                                 check=True, capture_output=True, text=True)
            took[workers] = time.perf_counter() - t0
            print(f"leduc: MCCFR, 20,000,000 iterations on {workers} worker(s): exploitability "
                  f"{json.loads(out.stdout)['exploitability']:.4f}", flush=True)
        line("leduc: MCCFR 20,000,000 iterations, --workers 2", took[2], "s", took[1], "one process")
    ours_time, ours = educable_to("liars_dice", 2e-3, 2_000, 25)
    line("liars_dice: whole command to exploitability 2e-3", ours_time, "s")
    os_time, os_done, os_reached, os_value = openspiel_cfr_to("liars_dice", {"numdice": 1, "dice_sides": 6}, 2e-3,
                                                              2_000, 25)
    line("liars_dice: OpenSpiel's CFRPlusSolver to 2e-3", os_time, "s")
    t0 = time.perf_counter()
    dice = algo.equilibrium(trees.tree("liars_dice"))
    line("liars_dice: tree and sequence-form LP", time.perf_counter() - t0, "s")
    print(f"liars_dice: educable's value {dice.value:+.9f} (exploitability {dice.exploitability:.1e}); OpenSpiel's "
          f"CFR+ {os_value:+.9f} at exploitability {os_reached:.1e} (the gap {abs(dice.value - os_value):.1e} within it)",
          flush=True)
    print(f"liars_dice: educable {ours['total_iterations']:,} iterations ({ours['exploitability']:.2e}), value "
          f"{ours['value']:+.6f}; OpenSpiel {os_done:,} iterations ({os_reached:.2e}), value {os_value:+.6f}",
          flush=True)


if __name__ == "__main__":
    main()
