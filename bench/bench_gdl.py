"""GDL games against their native twins: random self-play games/s inside Prolog (target: the GDL
tic-tac-toe within 5x of the native game) and the time to solve each.

    .venv/bin/python bench/bench_gdl.py
"""
from __future__ import annotations

import os
from pathlib import Path

os.environ["EDUCABLE_GAMES"] = str(Path(__file__).resolve().parent.parent / "examples" / "gdl")

from common import line, timed  # noqa: E402  (the games folder must be set before the engine starts)

from educable.bridge import games, graphs  # noqa: E402

GAMES = 5000
PAIRS = [("tictactoe_gdl", "tictactoe"), ("nim_gdl", "nim(1,3,5)"), ("boxes_gdl", "boxes(2,2)")]


def rate(game: str) -> float:
    players = games.players(game)
    seconds, _ = timed(lambda: games.play_series(game, {p: "random" for p in players}, GAMES, 1))
    return GAMES / seconds


def main() -> None:
    for gdl, native in PAIRS:
        native_rate, gdl_rate = rate(native), rate(gdl)
        line(f"random self-play, {native} (native)", native_rate, "games/s")
        line(f"random self-play, {gdl} (GDL)", gdl_rate, "games/s")
        print(f"{'':<52} {gdl_rate / native_rate:.2f}x the native speed ({native_rate / gdl_rate:.1f} times "
              f"slower); target within 5 times: {'met' if native_rate / gdl_rate <= 5 else 'MISSED'}")
        for game in (native, gdl):
            seconds, _ = timed(lambda: graphs.state_graph(None, game))
            line(f"compile and solve every state, {game}", seconds, "s")


if __name__ == "__main__":
    main()
