"""Make bridge/data/c4_positions.jsonl: Connect Four positions with every legal move's value under
perfect play (bitbully), for `judge`'s move accuracy on a fixed set.

Positions come in three equal parts, from games of random play, of noisy perfect play (a random
move 30% of the time) and of perfect play (ties at random), each at a random ply of its game; a
position is kept only when its moves do not all have the same value (a choice that matters) and
it is not over.  Each line: {"moves": "4453...", "source": ..., "values": {"1": 1, "2": 0, ...}}
with 1 a win, 0 a draw, -1 a loss for the player to move.  Seeded: the same file every time.

    .venv/bin/python scripts/make_c4_positions.py [--count 300] [--seed 2026]
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import bitbully

OUT = Path(__file__).resolve().parent.parent / "bridge" / "data" / "c4_positions.jsonl"
SOURCES = {"random": 1.0, "noisy": 0.3, "perfect": 0.0}     # the share of random moves


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    solver = bitbully.BitBully()
    lines, seen = [], set()
    for source, noise in SOURCES.items():
        kept = 0
        while kept < args.count // len(SOURCES):
            board, moves = bitbully.Board(), []
            stop = rng.randrange(0, 38)
            while len(moves) < stop and not board.is_game_over():
                scores = solver.score_all_moves(board)
                if rng.random() < noise:
                    column = rng.choice(sorted(scores))
                else:
                    best = max(scores.values())
                    column = rng.choice(sorted(c for c, v in scores.items() if v == best))
                board.play(column)
                moves.append(column)
            key = "".join(str(c + 1) for c in moves)
            if board.is_game_over() or key in seen:
                continue
            values = {str(c + 1): (v > 0) - (v < 0) for c, v in sorted(solver.score_all_moves(board).items())}
            if len(set(values.values())) < 2:
                continue
            seen.add(key)
            lines.append(json.dumps({"moves": key, "source": source, "values": values}))
            kept += 1
            if kept % 25 == 0:
                print(f"{source}: {kept}", flush=True)
    OUT.write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} positions written to {OUT}")


if __name__ == "__main__":
    main()
