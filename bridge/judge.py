"""The judge of agents against the perfect Connect Four player (bridge/perfect.py).

Games with ``perfect`` are played move by move from Python (Prolog choosers
asked once a move, as in `play`): fine for judging, never for training.

The judge (``judge``): move accuracy — the share of positions where the agent
plays a move of the same game-theoretic value as the best (a win stays a
win, a draw a draw), over the positions of games against random, against
itself and against ``perfect`` — and results against ``perfect`` from the
start on each side and from every opening of one and two moves, with the
agent playing the side to move.  A module of its own, above both
bridge/agents.py (the agents' choosers) and bridge/perfect.py (the player).
"""
from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from educable.bridge import agents, files, games, outside
from educable.bridge.perfect import NAME, PLAYERS, POSITIONS, RANDOM_ONCE_LOST, check, choose, scores, sign

Chooser = Callable[[games.State, list[str]], str]
RESULTS = ("loss", "draw", "win")      # a value's word for the side it belongs to, indexed by the value + 1
Played = list[tuple[list[str], str, str]]      # a side's moves in a game: the moves before each, the move, the position


def chooser_for(db: Any, game: str, name: str, rng: random.Random) -> Chooser:
    """A move chooser for ``name`` in a game played from Python: the perfect player, or any agent
    (its Prolog chooser asked once a move)."""
    if name in PLAYERS:
        return lambda state, moves: choose(state.key, rng, by_value=name == RANDOM_ONCE_LOST)
    if outside.named(name):
        return lambda state, moves: outside.choose(name, state)
    term = agents.chooser(db, game, name)
    return lambda state, moves: games.choose(state, term)


def outcome(result: str, side: str) -> int:
    """A finished game's ``result`` (the winner or draw) for ``side``: 1 won, 0 drawn, -1 lost."""
    return 0 if result == "draw" else 1 if result == side else -1


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


def play_series(db: Any, game: str, names: tuple[str, str], n_games: int, seed: int,
                mistakes: dict[tuple[str, str], dict[str, Any]] | None = None) -> dict[str, int]:
    """``n_games`` games from the start between ``names`` (first's, second's; one of them may be
    perfect, or from outside: bridge/outside.py): how often each player won and how many were drawn,
    as games.play_series counts them.  ``mistakes``: where the player that is not perfect gave away
    each game it ended below the start's value for its side is counted into it (count_mistake)."""
    if set(names) & set(PLAYERS) or mistakes is not None:
        check(game)
    rng = random.Random(seed)
    games.seed_random(seed)
    sides = list(games.two_players(game))
    choosers = {p: chooser_for(db, game, n, rng) for p, n in zip(sides, names, strict=True)}
    traced = {p for p, n in zip(sides, names, strict=True) if n not in PLAYERS} if mistakes is not None else set()
    start = sign(max(scores([]).values())) if traced else 0
    counts: dict[str, int] = {}
    for _ in range(n_games):
        visit, played = recorder(traced)
        r = play_out(games.initial(game), [], choosers, visit if traced else None)
        counts[r] = counts.get(r, 0) + 1
        for p in traced:
            if outcome(r, p) < (start if p == sides[0] else -start) and mistakes is not None:
                count_mistake(mistakes, played[p], names[1 - sides.index(p)])
    return counts


def recorder(sides: set[str]) -> tuple[Callable[[games.State, list[str], str], None], dict[str, Played]]:
    """A visit for play_out that records the moves of ``sides``, and where it records them."""
    played: dict[str, Played] = {p: [] for p in sides}

    def visit(state: games.State, moves: list[str], move: str) -> None:
        if state.mover in played:
            played[state.mover].append((list(moves), move, state.key))

    return visit, played


def judge(db: Any, game: str, agent: str, n_games: int, seed: int, openings: int = 2,
          progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Move accuracy over the positions of ``n_games`` games each against random, itself and perfect
    (the agent's side alternating), and results against perfect from the start and from every opening
    of up to ``openings`` (0-2) moves."""
    check(game)
    first, second = games.two_players(game)
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

            def visit(state: games.State, moves: list[str], move: str, sides: set = sides) -> None:
                if state.mover in sides:
                    s = scores(moves)
                    seen["positions"] += 1  # noqa: B023 (play_out calls visit before the loop goes on)
                    seen["perfect"] += sign(s[move]) == sign(max(s.values()))  # noqa: B023

            play_out(games.initial(game), [], {mine: me, other: them}, visit)
            if progress:
                progress(1)
        accuracy[vs] = {**seen, "accuracy": round(seen["perfect"] / seen["positions"], 4) if seen["positions"] else None}
    rng_p = chooser_for(db, game, NAME, rng)
    results: dict[str, dict[str, Any]] = {}
    starts: list[tuple[str, list[str], str | None]] = [("start as first", [], first), ("start as second", [], second)]
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
        got = outcome(r, mine)
        row = results.setdefault(label, {"games": 0, "win": 0, "draw": 0, "loss": 0, "at_value": 0})
        row["games"] += 1
        row[RESULTS[got + 1]] += 1
        row["at_value"] += got >= value
        if progress:
            progress(1)
    return {"game": game, "agent": agent, "games": n_games, "seed": seed, "accuracy": accuracy, "vs_perfect": results}




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
    first, second = games.two_players(game)
    rng = random.Random(seed)
    games.seed_random(seed)
    me = chooser_for(db, game, agent, rng)
    start = scores([])
    rows: list[dict[str, Any]] = [{"opening": "start", "as": first,
                                   "value": RESULTS[sign(max(start.values())) + 1]}]
    rows += [{"opening": f"after {m}", "as": second, "value": RESULTS[1 - sign(v)]}
             for m, v in sorted(start.items())]
    mistakes: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        opening = [] if row["opening"] == "start" else [row["opening"].split()[1]]
        value = RESULTS.index(row["value"]) - 1
        mine = row["as"]
        other = second if mine == first else first
        for name in PLAYERS:
            them = chooser_for(db, game, name, rng)
            counts = {"games": 0, "win": 0, "draw": 0, "loss": 0, "at_value": 0}
            for _ in range(n_games):
                state = games.initial(game)
                for m in opening:
                    state = games.play(state, m)
                visit, played = recorder({mine})
                r = play_out(state, opening, {mine: me, other: them}, visit)
                got = outcome(r, mine)
                counts["games"] += 1
                counts[RESULTS[got + 1]] += 1
                counts["at_value"] += got >= value
                if got < value:
                    count_mistake(mistakes, played[mine], name)
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
            "summary": summary, "mistakes": commonest(mistakes)}


def commonest(mistakes: dict[tuple[str, str], dict[str, Any]]) -> list[dict[str, Any]]:
    """The positions where games were given away (count_mistake), the commonest first."""
    return sorted(mistakes.values(), key=lambda m: (-m["games"], m["moves"]))


def count_mistake(mistakes: dict[tuple[str, str], dict[str, Any]], played: Played, against: str) -> None:
    """Count the first of ``played`` (the agent's moves of a game it ended below value, ``against``
    a perfect player) that lowered its value.  Against both perfect players the agent's value never
    rises, so the first drop is where the game was given away."""
    for moves, move, position in played:
        s = scores(moves)
        best = max(s.values())
        if sign(s[move]) < sign(best):
            item = mistakes.setdefault(("".join(moves), move), {
                "moves": "".join(moves), "position": position, "played": move, "was": RESULTS[sign(best) + 1],
                "became": RESULTS[sign(s[move]) + 1], "best": sorted(m for m, v in s.items() if sign(v) == sign(best)),
                "games": 0, "against": []})
            item["games"] += 1
            if against not in item["against"]:
                item["against"].append(against)
            return


def write_starts(path: str, mistakes: list[dict[str, Any]], origin: str, append: bool = False) -> int:
    """Write where games were given away (``mistakes``, as commonest() lists them) as train's
    --starts-file reads them: one position a line, each with a comment saying how it was reached,
    what was played and in how many games; ``origin`` (what judged) heads them.  ``append`` adds
    to the file.  How many positions were written."""
    lines = [f"# where {origin} gave games away, the commonest first",
             "# one position a line, for: educable train GAME --learner ntuple --agent NAME --starts-file THIS"]
    for m in mistakes:
        lines.append(f"{m['position']}   # after {m['moves'] or 'no move'}, played {m['played']}: a {m['was']} "
                     f"became a {m['became']} ({m['games']} game{'s' * (m['games'] != 1)} against "
                     f"{' and '.join(m['against'])})")
    files.write_text_whole(path, "\n".join(lines) + "\n", append)
    return len(mistakes)


def judge_steps(n_games: int, openings: int = 2) -> int:
    """How many progress steps judge() reports: the games of each accuracy series and the openings."""
    return 3 * n_games + 2 + (7 if openings >= 1 else 0) + (7 * 7 if openings >= 2 else 0)
