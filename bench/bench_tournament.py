"""A round robin of four tic-tac-toe players, 100 games a pairing (issue target: within 30 s), on a
fresh knowledge base: the agent is trained first (not timed), then the tournament is timed.

    .venv/bin/python bench/bench_tournament.py
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

import common  # noqa: F401  (puts the project on the path)

from educable.bridge import commands, tournament
from educable.kb.db import open_kb

TARGET_SECONDS = 30.0


def main() -> None:
    db = open_kb(Path(tempfile.mkdtemp()) / "bench.db")
    commands.train(db, "tictactoe", "ntuple", "td", 2000, "self", "both", 1, {})
    players = ["random", "minimax", "alphabeta:2", "td"]
    t0 = time.perf_counter()
    data = tournament.run(db, "tictactoe", players, 100, 0)
    seconds = time.perf_counter() - t0
    print(f"tournament of {len(players)} tic-tac-toe players, 100 games a pairing (6 pairings, exact judgements "
          f"included): {seconds:.1f} s; target {TARGET_SECONDS:.0f} s: {seconds / TARGET_SECONDS:.2f}x of it")
    for r in data["ratings"]:
        print(f"  {r['player']:<12} {r['rating'] if r['rating'] is not None else '-':>8}  score {100 * r['score']:.1f}%")


if __name__ == "__main__":
    main()
