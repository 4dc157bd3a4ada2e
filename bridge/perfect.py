"""A perfect Connect Four player.

The player is ``bitbully`` (Markus Thill's Connect-4 solver, C++ with Python
bindings, AGPL-3.0): an optional extra that `make` installs
(``pip install -e '.[perfect]'``), imported only here, never copied into
educable.  It knows one game, ``connect(4,7,6)``; it scores every move of a
position reached by a list of moves, and the ``perfect`` agent plays a move
of best score, ties broken at random from a seed.

The judge of agents against it is bridge/judge.py; the fixed positions every
move of which it valued are bridge/data/c4_positions.jsonl (POSITIONS).
"""
from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path
from typing import Any

from educable.bridge.engine import BadInput

NAME = "perfect"                     # best score: the quickest win, and a loss delayed longest (GBG's AB-DL)
RANDOM_ONCE_LOST = "perfect-random"   # the best value, at random among moves of it (GBG's AB): once lost, any move
PLAYERS = (NAME, RANDOM_ONCE_LOST)
GAME = "connect(4,7,6)"
INSTALL = "pip install -e '.[perfect]' (make setup does it)"


def check(game: str) -> None:
    """BadInput unless the perfect player knows ``game``."""
    if game != GAME:
        raise BadInput(f"the perfect player (bitbully) plays only {GAME}, not {game}")


@lru_cache(maxsize=1)
def _solver() -> Any:
    try:
        import bitbully
    except ImportError:
        raise BadInput(f"the perfect player needs the bitbully package: {INSTALL}") from None
    return bitbully


@lru_cache(maxsize=1)
def _agent() -> Any:
    return _solver().BitBully()


def scores(moves: list[str]) -> dict[str, int]:
    """bitbully's score of every legal move after ``moves`` (move texts, columns 1-7): positive wins
    for the player to move (more the sooner), 0 draws, negative loses.  Asked of the position the
    moves reach, so that a position met again (by the same moves or others) is not solved again."""
    return {m: v["score"] for m, v in _position_values(key_after(moves)).items()}


def key_after(moves: list[str]) -> str:
    """The position key (rows from the top separated by '/', x first) the columns ``moves`` reach
    from the empty board."""
    columns: list[list[str]] = [[] for _ in range(7)]
    for i, m in enumerate(moves):
        columns[int(m) - 1].append("xo"[i % 2])
    return "/".join("".join(col[r] if r < len(col) else "." for col in columns) for r in range(5, -1, -1))


def available() -> bool:
    """Whether the perfect player (bitbully) is installed."""
    try:
        _solver()
    except BadInput:
        return False
    return True


def position_values(key: str) -> dict[str, dict[str, Any]]:
    """The perfect value of every legal move in the Connect Four position ``key`` (rows from the top
    separated by '/', x first): result for the player to move (win, draw, loss) and, for a win or
    loss, in how many of the winner's own moves, counting this one; bitbully's score beside it.
    Positions asked before are answered from memory (the page asks the same ones again)."""
    return {move: dict(v) for move, v in _position_values(key).items()}


KNOWN_MOST = 100_000                  # positions whose values are kept in memory
_KNOWN: dict[str, dict[str, dict[str, Any]]] = {}


def remember(key: str, values: dict[str, dict[str, Any]]) -> None:
    """Keep the values of ``key`` worked out elsewhere (the page solves in a process of its own, so
    that a long search never holds up other requests), as if solved here."""
    if len(_KNOWN) >= KNOWN_MOST:
        _KNOWN.pop(next(iter(_KNOWN)))               # the oldest goes
    _KNOWN[key] = {move: dict(v) for move, v in values.items()}


def known(key: str) -> bool:
    """Whether the values of ``key`` are in memory already."""
    return key in _KNOWN


def _position_values(key: str) -> dict[str, dict[str, Any]]:
    if key not in _KNOWN:
        remember(key, _solved(key))
    return _KNOWN[key]


def _solved(key: str) -> dict[str, dict[str, Any]]:
    rows = [[{"x": 1, "o": 2}.get(c, 0) for c in row] for row in key.split("/")]
    board = _solver().Board(rows)
    stones = {1: sum(r.count(1) for r in rows), 2: sum(r.count(2) for r in rows)}
    mover = 1 if stones[1] == stones[2] else 2
    out = {}
    for column, score in sorted(_agent().score_all_moves(board).items()):
        # a win with the winner's (22 - |score|)-th stone (Pons' scoring, which bitbully keeps)
        winner = mover if score > 0 else 3 - mover
        out[str(column + 1)] = {"score": int(score), "result": ("win", "draw", "loss")[1 - sign(score)],
                                "moves": 22 - abs(int(score)) - stones[winner] if score else None}
    return out


def sign(v: int) -> int:
    return (v > 0) - (v < 0)


def choose(key: str, rng: random.Random, by_value: bool = False) -> str:
    """A move of best score in the position ``key``, ties broken by ``rng``; ``by_value``: any move of
    the best game-theoretic value (win, draw, loss), however soon or late it ends the game.  Read from
    the position itself: a page or a script that sends a position without the moves that led there
    is answered for that position (before, an empty move list was read as the empty board)."""
    s = {m: v["score"] for m, v in _position_values(key).items()}
    if by_value:
        s = {m: sign(v) for m, v in s.items()}
    best = max(s.values())
    return rng.choice(sorted(m for m, v in s.items() if v == best))


POSITIONS = Path(__file__).resolve().parent / "data" / "c4_positions.jsonl"     # scripts/make_c4_positions.py
