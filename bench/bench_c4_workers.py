"""Where two Dask workers lose against one process: Connect Four self-play, whole `train` commands.

The same fresh agent (GBG's net, the defaults, one seed) trains the same games five ways, each
printing its games a second over the whole command and its ratio to one process:

- one process, no Dask (``--workers 1``), at the start and again at the end (their mean is the anchor);
- two such processes side by side (what the two cores give with no Dask at all);
- one and two Dask workers already running (``dask scheduler`` and ``dask worker --no-nanny`` started
  here as processes, ``--scheduler ADDRESS``): what a worker costs over the same games in-process;
- two workers of the local cluster ``--workers 2`` starts itself (its start-up is in its time).

    .venv/bin/python bench/bench_c4_workers.py [--games 49152] [--seed 7] [--json]

Measured on an otherwise idle two-core machine: docs/experiments.md, bench/results/c4_workers.json.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

BIN = Path(sys.executable).parent
GAME = "connect(4,7,6)"


def train(db: Path, games: int, seed: int, *extra: str) -> subprocess.Popen:
    """A `train` command of a fresh agent, started (its --json on stdout)."""
    return subprocess.Popen([str(BIN / "educable"), "train", GAME, "--learner", "ntuple", "--agent", "w", "--games",
                             str(games), "--seed", str(seed), "--db", str(db), "--json", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def rate(proc: subprocess.Popen) -> float:
    """The finished command's games a second over the whole run (its --json)."""
    out, _ = proc.communicate()
    if proc.returncode:
        raise SystemExit(f"train failed (exit {proc.returncode})")
    return float(json.loads(out[out.index("{"):out.rindex("}") + 1])["games_per_second"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=49_152, help="games a command (12 rounds of two workers' 4,096)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench_workers"))
    n = iter(range(100))

    def db() -> Path:
        return folder / f"{next(n)}.db"

    got: dict[str, float] = {}
    got["one process"] = rate(train(db(), args.games, args.seed))
    pair = [train(db(), args.games, args.seed) for _ in range(2)]
    got["two processes side by side (sum)"] = sum(rate(p) for p in pair)
    address = f"tcp://127.0.0.1:{common.free_port()}"
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1],
                               "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        from distributed import Client
        for k in range(2):
            procs.append(subprocess.Popen([str(BIN / "dask"), "worker", address, "--nthreads", "1", "--no-dashboard",
                                           "--no-nanny", "--name", f"w{k}"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            with Client(address, timeout="60s") as c:
                c.wait_for_workers(k + 1, timeout=120)
            got[f"{k + 1} Dask worker{'s' if k else ''}, already running"] = rate(
                train(db(), args.games, args.seed, "--scheduler", address, "--workers", str(k + 1)))
    finally:
        for p in reversed(procs):
            p.terminate()
            p.wait(timeout=30)
    got["2 workers of a local cluster (its start-up included)"] = rate(train(db(), args.games, args.seed, "--workers", "2"))
    got["one process, again"] = rate(train(db(), args.games, args.seed))
    anchor = (got["one process"] + got["one process, again"]) / 2
    if args.json:
        print(json.dumps({"games": args.games, "seed": args.seed, "games_per_second": got,
                          "ratios_to_one_process": {k: round(v / anchor, 2) for k, v in got.items()}}, indent=1))
        return
    print(f"{GAME}: {args.games:,} self-play games a command, seed {args.seed}, games a second over the whole command")
    for name, value in got.items():
        common.line(name, value, "games/s", anchor, "one process (mean of two)", higher_is_better=True,
                    words=("the speed of", "the speed of"))


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
