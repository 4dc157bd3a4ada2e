"""How long a command takes to start, beside the floor measured in the same run: Python with
pyswip loading every rule file (what any command that asks Prolog must pay).

A command's CPU time is shown too: the suite starts about a thousand commands, so their CPU
at start-up is much of its time on two cores.

Targets: `games`, `show` and `query` on a solved game within 1.5x the floor (and `--help` and
these under 0.35 s); `import educable` no slower than `educable games`; no command spends more
than 0.15 s before its own work (its `--help`, which does no work, within 0.15 s of a bare Python
start).

The floor and the commands are run in turns, one run of each a round, and each figure is the
median over the rounds: this machine's speed moves by up to 2x from one second to the next, and
a floor measured apart from the commands it is compared with made the ratios swing from 0.9x to
1.7x between two runs of this bench.

    .venv/bin/python bench/bench_startup.py [--runs 7]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import line

EXE = str(Path(sys.executable).parent / "educable")
ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 0.35
RATIO = 1.5
OVERHEAD_S = 0.15
COMMANDS = ("games", "check", "show", "query", "solve", "play", "eval", "judge", "train", "agents", "rules",
            "gdl", "race", "sweep", "doctor", "demo")


def median_wall(argv: list[str], runs: int, env: dict[str, str]) -> float:
    """Median wall time of ``runs`` runs of ``argv`` (output discarded; a failure stops the bench)."""
    return median_times(argv, runs, env)[0]


def median_times(argv: list[str], runs: int, env: dict[str, str]) -> tuple[float, float]:
    """Median wall time and median CPU time (user and system, every thread) of ``runs`` runs of ``argv``."""
    walls, cpus = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, check=True, capture_output=True, env=env, cwd=ROOT)
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        walls.append(time.perf_counter() - t0)
        cpus.append(c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="runs of each command (the median is shown)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "EDUCABLE_DB": str(Path(tmp) / "kb.db")}
        subprocess.run([EXE, "solve", "tictactoe"], check=True, capture_output=True, env=env)
        bare = median_wall([sys.executable, "-c", "pass"], args.runs, env)
        floor_argv = [sys.executable, "-c", "from educable.bridge.engine import engine; engine()"]
        commands = {"educable --help": ["--help"], "educable games": ["games"],
                    "educable show tictactoe": ["show", "tictactoe"],
                    "educable query tictactoe (solved)": ["query", "tictactoe", "x../.o./..."]}
        rounds: dict[str, list[tuple[float, float]]] = {name: [] for name in ("floor", *commands)}
        for _ in range(args.runs):              # in turns: see the module's docstring
            rounds["floor"].append(median_times(floor_argv, 1, env))
            for name, argv in commands.items():
                rounds[name].append(median_times([EXE, *argv], 1, env))
        floor = statistics.median(w for w, _ in rounds["floor"])
        line("floor: Python + pyswip + every rule file", floor, "s")
        print(f"{'':<52} (bare Python start: {bare:.3f} s)")
        missed, over = [], []
        for name in commands:
            took, cpu = (statistics.median(column) for column in zip(*rounds[name]))
            ratio = statistics.median(w / f for (w, _), (f, _) in zip(rounds[name], rounds["floor"]))
            print(f"{name:<52} {took:>12.4g} s   {ratio:5.2f}x the floor, {took - floor:.3f} s above it;"
                  f" {cpu:.3f} s of CPU")
            if took >= TARGET_S:
                missed.append(name)
            if name != "educable --help" and ratio > RATIO:
                over.append(name)
        print(f"{'':<52} target under {TARGET_S:g} s: {'met' if not missed else 'MISSED: ' + ', '.join(missed)}")
        print(f"{'':<52} target within {RATIO:g}x the floor (median of each round's ratio): "
              f"{'met' if not over else 'MISSED: ' + ', '.join(over)}")
        games_took = median_wall([EXE, "games"], args.runs, env)
        imported = median_wall([sys.executable, "-c", "import educable"], args.runs, env)
        line("import educable (the Python library)", imported, "s", games_took, "educable games")
        print(f"{'':<52} target no slower than educable games: {'met' if imported <= games_took else 'MISSED'}")
        worst = ("", 0.0)
        for command in COMMANDS:
            took = median_wall([EXE, command, "--help"], args.runs, env) - bare
            worst = max(worst, (command, took), key=lambda w: w[1])
        line(f"most before any work: {worst[0]} --help, less bare Python", worst[1], "s")
        print(f"{'':<52} target under {OVERHEAD_S:g} s: {'met' if worst[1] < OVERHEAD_S else 'MISSED'}")


if __name__ == "__main__":
    main()
