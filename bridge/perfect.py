"""A perfect Connect Four player and a judge of agents against it.

The player is ``bitbully`` (Markus Thill's Connect-4 solver, C++ with Python
bindings, AGPL-3.0): an optional extra that `make` installs
(``pip install -e '.[perfect]'``), imported only here, never copied into
educable.  It knows one game, ``connect(4,7,6)``; it scores every move of a
position reached by a list of moves, and the ``perfect`` agent plays a move
of best score, ties broken at random from a seed.

Games with ``perfect`` are played move by move from Python (Prolog choosers
asked once a move, as in `play`): fine for judging, never for training.

The judge (``judge``): move accuracy — the share of positions where the agent
plays a move of the same game-theoretic value as the best (a win stays a
win, a draw a draw), over the positions of games against random, against
itself and against ``perfect`` — and results against ``perfect`` from the
start on each side and from every opening of one and two moves, with the
agent playing the side to move.
"""
from __future__ import annotations

import json
import random
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from bridge import games
from bridge.engine import BadInput

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
    for the player to move (more the sooner), 0 draws, negative loses."""
    board = _solver().Board("".join(str(int(m) - 1) for m in moves))
    return {str(c + 1): int(v) for c, v in _agent().score_all_moves(board).items()}


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
    loss, in how many of the winner's own moves, counting this one; bitbully's score beside it."""
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


def choose(moves: list[str], rng: random.Random, by_value: bool = False) -> str:
    """A move of best score after ``moves``, ties broken by ``rng``; ``by_value``: any move of the
    best game-theoretic value (win, draw, loss), however soon or late it ends the game."""
    s = scores(moves)
    if by_value:
        s = {m: sign(v) for m, v in s.items()}
    best = max(s.values())
    return rng.choice(sorted(m for m, v in s.items() if v == best))


Chooser = Callable[[games.State, list[str]], str]


def chooser_for(db: Any, game: str, name: str, rng: random.Random) -> Chooser:
    """A move chooser for ``name`` in a game played from Python: the perfect player, or any agent
    (its Prolog chooser asked once a move)."""
    if name in PLAYERS:
        return lambda state, moves: choose(moves, rng, by_value=name == RANDOM_ONCE_LOST)
    from bridge import agents
    term = agents.chooser(db, game, name)
    return lambda state, moves: games.choose(state, term)


def play_out(state: games.State, moves: list[str], choosers: dict[str, Chooser],
             visit: Callable[[games.State, list[str], str], None] | None = None) -> str:
    """Play from ``state`` (reached by ``moves``) to the end; the result.  ``visit(state, moves,
    move)`` sees every move before it is played."""
    moves = list(moves)
    while (result := games.result(state)) is None:
        move = choosers[state.mover](state, moves)
        if visit:
            visit(state, moves, move)
        state = games.play(state, move)
        moves.append(move)
    return result


def play_series(db: Any, game: str, names: tuple[str, str], n_games: int, seed: int) -> dict[str, int]:
    """``n_games`` games from the start between ``names`` (first's, second's; one of them may be
    perfect): how often each player won and how many were drawn, as games.play_series counts them."""
    check(game)
    rng = random.Random(seed)
    games.seed_random(seed)
    choosers = {p: chooser_for(db, game, n, rng) for p, n in zip(games.players(game), names)}
    counts: dict[str, int] = {}
    for _ in range(n_games):
        r = play_out(games.initial(game), [], choosers)
        counts[r] = counts.get(r, 0) + 1
    return counts


def judge(db: Any, game: str, agent: str, n_games: int, seed: int, openings: int = 2,
          progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Move accuracy over the positions of ``n_games`` games each against random, itself and perfect
    (the agent's side alternating), and results against perfect from the start and from every opening
    of up to ``openings`` (0-2) moves."""
    check(game)
    first, second = games.players(game)
    rng = random.Random(seed)
    games.seed_random(seed)
    me = chooser_for(db, game, agent, rng)
    accuracy: dict[str, dict[str, Any]] = {}
    for vs in ("random", "self", NAME):
        them = me if vs == "self" else chooser_for(db, game, vs, rng)
        seen = {"positions": 0, "perfect": 0}
        for i in range(n_games):
            mine = first if i % 2 == 0 else second
            other = second if mine == first else first
            sides = {first, second} if vs == "self" else {mine}

            def visit(state: games.State, moves: list[str], move: str) -> None:
                if state.mover in sides:
                    s = scores(moves)
                    seen["positions"] += 1
                    seen["perfect"] += sign(s[move]) == sign(max(s.values()))

            play_out(games.initial(game), [], {mine: me, other: them}, visit)
            if progress:
                progress(1)
        accuracy[vs] = {**seen, "accuracy": round(seen["perfect"] / seen["positions"], 4) if seen["positions"] else None}
    rng_p = chooser_for(db, game, NAME, rng)
    results: dict[str, dict[str, Any]] = {}
    starts = [("start as first", [], first), ("start as second", [], second)]
    one = [m for m, _ in games.moves(games.initial(game))]
    if openings >= 1:
        starts += [("one move", [a], None) for a in one]
    if openings >= 2:
        starts += [("two moves", [a, b], None) for a in one for b in one]      # no column fills in two moves
    for label, opening, side in starts:
        state = games.initial(game)
        for m in opening:
            state = games.play(state, m)
        mine = side or state.mover
        best = sign(max(scores(opening).values()))          # the opening's value for the side to move
        value = best if mine == state.mover else -best
        other = second if mine == first else first
        r = play_out(state, opening, {mine: me, other: rng_p})
        got = 0 if r == "draw" else 1 if r == mine else -1
        row = results.setdefault(label, {"games": 0, "win": 0, "draw": 0, "loss": 0, "at_value": 0})
        row["games"] += 1
        row[{1: "win", 0: "draw", -1: "loss"}[got]] += 1
        row["at_value"] += got >= value
        if progress:
            progress(1)
    return {"game": game, "agent": agent, "games": n_games, "seed": seed, "accuracy": accuracy, "vs_perfect": results}


POSITIONS = Path(__file__).resolve().parent / "data" / "c4_positions.jsonl"     # scripts/make_c4_positions.py


def fixed_accuracy(db: Any, game: str, agent: str, positions: Path = POSITIONS) -> dict[str, Any]:
    """Move accuracy on a fixed set of positions (scripts/make_c4_positions.py: from random, noisy
    and perfect play, every move's value found by bitbully): the share where ``agent`` plays a move
    of the best value, overall and by where the positions came from."""
    check(game)
    me = chooser_for(db, game, agent, random.Random(0))
    seen: dict[str, list[int]] = {}
    for raw in positions.read_text().splitlines():
        item = json.loads(raw)
        moves = list(item["moves"])
        state = games.initial(game)
        for m in moves:
            state = games.play(state, m)
        move = me(state, moves)
        row = seen.setdefault(item["source"], [0, 0])
        row[0] += 1
        row[1] += item["values"][move] == max(item["values"].values())
    total = [sum(r[0] for r in seen.values()), sum(r[1] for r in seen.values())]
    return {"positions": total[0], "perfect": total[1], "accuracy": round(total[1] / total[0], 4) if total[0] else None,
            "by_source": {k: round(v[1] / v[0], 4) for k, v in seen.items()}}


def judge_openings(db: Any, game: str, agent: str, n_games: int, seed: int,
                   progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """``agent`` from each opening against both perfect players, ``n_games`` games each (their ties,
    and perfect-random's every move once lost, at random): as first from the start, and as second
    after each of the first player's opening moves.  Per opening: its value for the agent under
    perfect play, and against each player the games won, drawn, lost and at that value.  The
    summary holds the issue's targets: the share won as first, and as second the share at value
    over the openings that do not lose for the agent."""
    check(game)
    first, second = games.players(game)
    rng = random.Random(seed)
    games.seed_random(seed)
    me = chooser_for(db, game, agent, rng)
    start = scores([])
    rows = [{"opening": "start", "as": first, "value": ("loss", "draw", "win")[sign(max(start.values())) + 1]}]
    rows += [{"opening": f"after {m}", "as": second, "value": ("win", "draw", "loss")[sign(v) + 1]}
             for m, v in sorted(start.items())]
    for row in rows:
        opening = [] if row["opening"] == "start" else [row["opening"].split()[1]]
        value = {"win": 1, "draw": 0, "loss": -1}[row["value"]]
        mine = row["as"]
        other = second if mine == first else first
        for name in PLAYERS:
            them = chooser_for(db, game, name, rng)
            counts = {"games": 0, "win": 0, "draw": 0, "loss": 0, "at_value": 0}
            for _ in range(n_games):
                state = games.initial(game)
                for m in opening:
                    state = games.play(state, m)
                r = play_out(state, opening, {mine: me, other: them})
                got = 0 if r == "draw" else 1 if r == mine else -1
                counts["games"] += 1
                counts[{1: "win", 0: "draw", -1: "loss"}[got]] += 1
                counts["at_value"] += got >= value
                if progress:
                    progress(1)
            row[name] = counts
    summary = {}
    for name in PLAYERS:
        as_first = rows[0][name]
        seconds = [r[name] for r in rows[1:] if r["value"] != "loss"]
        summary[name] = {"won_as_first": round(as_first["win"] / as_first["games"], 4) if as_first["games"] else None,
                         "second_at_value": round(sum(r["at_value"] for r in seconds) / sum(r["games"] for r in seconds), 4)
                         if seconds and sum(r["games"] for r in seconds) else None}
    return {"game": game, "agent": agent, "games_per_opening": n_games, "seed": seed, "openings": rows,
            "summary": summary}


def judge_steps(n_games: int, openings: int = 2) -> int:
    """How many progress steps judge() reports: the games of each accuracy series and the openings."""
    return 3 * n_games + 2 + (7 if openings >= 1 else 0) + (7 * 7 if openings >= 2 else 0)
