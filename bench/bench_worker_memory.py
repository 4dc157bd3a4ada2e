"""Does a Dask worker's memory stay flat over a long Connect Four run?  Resident memory a worker and
games a second, sampled as the README's two-worker command trains.

A scheduler and two workers (``dask worker --no-nanny``, one thread each) are started here as
processes, so that their resident memory can be read from /proc; the README's command then trains a
fresh agent on them (``--scheduler ADDRESS --workers 2``).  Every ``--every`` seconds a line: games
committed (the agent's games trained in the knowledge base), games a second since the last line, and each
worker's resident memory.  At the end, each worker's memory against its memory once the first
100,000 games are in (before the fix of the string stacks, 5 KB a game: 4.7 GB at 0.85 M games).

With ``--compare N``, the trained agent is then copied twice and each copy trains N more games on the
same scheduler, once with ``--workers 1`` and once with ``--workers 2``: games a second of each whole
command, and their ratio, measured on the net as it is at the end of the run (not on a fresh one, where
games are shorter and rounds lighter).

    .venv/bin/python bench/bench_worker_memory.py [--games 4000000] [--seed 1] [--every 60] [--compare 200000] [--json]
"""
from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

BIN = Path(sys.executable).parent
GAME = "connect(4,7,6)"
FIRST = 100_000           # games after which a worker's memory is the anchor


def resident(pid: int) -> int:
    """A process's resident memory in bytes (0 once it has gone)."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * 4096
    except OSError:
        return 0


def committed(db: Path) -> int:
    """Games the run has committed so far (its agent's games trained)."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as c:
            row = c.execute("SELECT max(games_trained) FROM agents").fetchone()
        return int(row[0] or 0)
    except sqlite3.Error:
        return 0


def compare(db: Path, address: str, games: int, seed: int, quiet: bool) -> dict:
    """Games a second of ``games`` more games on one worker and on two, each from a copy of ``db``."""
    found: dict = {"games": games, "from_games": committed(db)}
    for workers in (1, 2):
        copy = db.with_name(f"kb_{workers}.db")
        shutil.copyfile(db, copy)
        t0 = time.time()
        subprocess.run([str(BIN / "educable"), "train", GAME, "--learner", "ntuple", "--agent", "c4", "--games",
                        str(games), "--seed", str(seed + 1), "--scheduler", address, "--workers", str(workers),
                        "--db", str(copy)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        found[f"workers_{workers}_games_per_second"] = round(games / (time.time() - t0), 1)
        if not quiet:
            print(f"{workers} worker(s): {found[f'workers_{workers}_games_per_second']} games/s over {games:,} more "
                  f"games from {found['from_games']:,}", flush=True)
    found["ratio_two_to_one"] = round(found["workers_2_games_per_second"] / found["workers_1_games_per_second"], 2)
    if not quiet:
        print(f"two workers against one: {found['ratio_two_to_one']}x  (target: at least 1.7x)")
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=4_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--every", type=float, default=60.0, help="seconds between samples")
    ap.add_argument("--compare", type=int, default=0, metavar="N",
                    help="then N more games on one worker and on two, from copies of the trained agent")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench_worker_memory"))
    db = folder / "kb.db"
    address = f"tcp://127.0.0.1:{common.free_port()}"
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1],
                               "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    samples: list[dict] = []
    compared: dict = {}
    try:
        from distributed import Client
        workers = [subprocess.Popen([str(BIN / "dask"), "worker", address, "--nthreads", "1", "--no-dashboard",
                                     "--no-nanny", "--name", f"w{k}"], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL) for k in range(2)]
        procs += workers
        with Client(address, timeout="60s") as c:
            c.wait_for_workers(2, timeout=120)
        train = subprocess.Popen([str(BIN / "educable"), "train", GAME, "--learner", "ntuple", "--agent", "c4", "--games",
                                  str(args.games), "--seed", str(args.seed), "--scheduler", address, "--workers", "2",
                                  "--db", str(db)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t0 = last_t = time.time()
        last_games = 0
        while train.poll() is None:
            time.sleep(args.every)
            now, games = time.time(), committed(db) or last_games      # 0: the file busy with a commit
            if train.poll() is not None:
                break                        # the workers dropped the net at the end: not a sample of the run
            sample = {"seconds": round(now - t0), "games": games,
                      "games_per_second": round((games - last_games) / (now - last_t), 1),
                      "worker_mb": [round(resident(w.pid) / 2**20) for w in workers]}
            samples.append(sample)
            last_t, last_games = now, games
            if not args.json:
                print(f"{sample['seconds']:>6} s  {games:>10,} games  {sample['games_per_second']:>7} games/s  "
                      f"workers {' '.join(f'{m:,} MB' for m in sample['worker_mb'])}", flush=True)
        if train.returncode:
            print(f"train ended with exit {train.returncode}", file=sys.stderr)
        elif args.compare:
            compared = compare(db, address, args.compare, args.seed, quiet=args.json)
    finally:
        for p in reversed(procs):
            p.terminate()
            p.wait(timeout=30)
    anchor = next((s for s in samples if s["games"] >= FIRST), samples[0] if samples else None)
    end = samples[-1] if samples else None
    if anchor is None or end is None:
        raise SystemExit("no sample taken (a shorter --every?)")
    ratios = [round(e / a, 3) if a else None for e, a in zip(end["worker_mb"], anchor["worker_mb"], strict=True)]
    if args.json:
        print(json.dumps({"games": args.games, "seed": args.seed, "samples": samples, "anchor": anchor,
                          "end_to_anchor_memory": ratios, "compare": compared}, indent=1))
        return
    print(f"each worker's memory at the end against after {anchor['games']:,} games: "
          + ", ".join(f"{r}x" for r in ratios) + "  (target: within 1.10x)")


if __name__ == "__main__":
    main()
