"""The test suite's time beside the machine's own speed, sampled before and after it in the same run.

The suite's target is 6 minutes for `make test` on a fresh clone of two cores.  On the two-core
machine this project is built on, a fixed loop of Python (ten million additions) took from 0.93 s
to 2.00 s a few seconds apart while the machine was idle: fresh clones of one version took 6 min
5 s and 6 min 55 s.  This bench runs the loop before and after the suite (in processes of their
own) and prints its spread beside the suite's wall time, so that two runs of the suite are
compared with the speed the machine had for each.

    .venv/bin/python bench/suite_time.py [--samples 5] [PYTEST ARGS...]     (not in make bench: it runs the suite)

Without PYTEST ARGS it runs the suite as `make test` does (-n 3 --dist worksteal) in this checkout
(no set-up: numba's cache and the rules' quick-load files as they are).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import line

ROOT = Path(__file__).resolve().parent.parent
LOOP = "s = 0\nfor i in range(10_000_000):\n    s += i\n"
SUITE = ["-m", "pytest", "-q", "-n", "3", "--dist", "worksteal"]


def loop_seconds() -> float:
    """Wall seconds of the reference loop in a Python process of its own."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", LOOP], check=True)      # noqa: S603  (this Python, a fixed loop)
    return time.perf_counter() - t0


def samples(n: int) -> list[float]:
    """``n`` runs of the reference loop, one after another."""
    return [loop_seconds() for _ in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=5, help="runs of the loop before and after the suite")
    args, pytest_args = ap.parse_known_args()       # the rest: the suite's arguments (default: as make test)
    before = samples(args.samples)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    t0 = time.perf_counter()
    argv = [sys.executable, *(["-m", "pytest", *pytest_args] if pytest_args else SUITE)]
    suite = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)  # noqa: S603  (pytest, the user's arguments)
    wall = time.perf_counter() - t0
    after = samples(args.samples)
    out = suite.stdout.strip().splitlines()
    for failed in (text for text in out if text.startswith(("FAILED ", "ERROR "))):
        print(failed)
    print(out[-1] if out else suite.stderr[-500:])
    for name, got in (("before", before), ("after", after)):
        line(f"reference loop {name} the suite, median", statistics.median(got), "s")
        print(f"{'':<52} from {min(got):.3f} s to {max(got):.3f} s over {len(got)} runs")
    fastest = min(before + after)
    line("slowest run of the loop", max(before + after), "s", fastest, "its fastest", words=("faster", "slower"))
    line("suite wall time (pytest, without set-up)", wall, "s")
    print(f"{'':<52} target of 6 minutes for make test on a fresh clone, set-up included: "
          f"{'within reach' if wall < 320 else 'missed here'} (set-up takes 35-45 s)")
    sys.exit(suite.returncode)


if __name__ == "__main__":
    main()
