"""EinStein würfelt nicht! on GBG's 3x3 board (rules/games/einstein.pl), checked against a solver
written here from GBG's rules (WolfgangKonen/GBG, src/games/EWN), apart from the game file."""
from __future__ import annotations

import functools
import json
import sqlite3

import pytest

from test_chance import educable

SIZE, FACES = 3, 3
Cell = tuple[str, int] | None


def parse(text: str) -> tuple[tuple[Cell, ...], str, int]:
    """A position in the game file's text form: the squares, whose turn, the die (0: to be read)."""
    board, turn, die = text.split()
    cells = tuple(None if c == "." else (c[0], int(c[1:])) for row in board.split("/") for c in row.split(","))
    return cells, turn, 0 if die == "rolls" else int(die)


def winner(cells: tuple[Cell, ...]) -> str | None:
    """x on o's corner or o on x's, or a side without pieces."""
    if cells[-1] is not None and cells[-1][0] == "x":
        return "x"
    if cells[0] is not None and cells[0][0] == "o":
        return "o"
    sides = {c[0] for c in cells if c is not None}
    return None if sides == {"x", "o"} else sides.pop() if sides else None


def moves(cells: tuple[Cell, ...], turn: str, die: int) -> list[tuple[int, int]]:
    """(from, to) squares, 0-based: the die's piece, or the nearest numbers above and below it."""
    mine = {c[1]: i for i, c in enumerate(cells) if c is not None and c[0] == turn}
    nearest = min(abs(v - die) for v in mine)
    out = []
    for v in sorted(mine, key=lambda v: (v < die, v)):
        if abs(v - die) != nearest:
            continue
        i = mine[v]
        r, c = divmod(i, SIZE)
        sign = 1 if turn == "x" else -1
        for dr, dc in ((0, 1), (1, 0), (1, 1)):
            r1, c1 = r + sign * dr, c + sign * dc
            if 0 <= r1 < SIZE and 0 <= c1 < SIZE:
                out.append((i, r1 * SIZE + c1))
    return out


@functools.cache
def x_wins(cells: tuple[Cell, ...], turn: str, die: int) -> float:
    """x's chance of winning with best play on both sides."""
    w = winner(cells)
    if w is not None:
        return 1.0 if w == "x" else 0.0
    if die == 0:
        return sum(x_wins(cells, turn, d) for d in range(1, FACES + 1)) / FACES
    values = []
    for a, b in moves(cells, turn, die):
        after = list(cells)
        after[b], after[a] = after[a], None
        values.append(x_wins(tuple(after), "o" if turn == "x" else "x", 0))
    return max(values) if turn == "x" else min(values)


def test_the_reference_moves_as_gbg():
    cells, turn, die = parse("x1,x3,./x2,.,o2/.,o3,o1 x 2")
    assert moves(cells, turn, die) == [(3, 4), (3, 6), (3, 7)]         # x2 on square 4: right, down, diagonal
    cells, _, _ = parse("x1,.,./.,.,o2/.,o3,o1 x 2")
    assert sorted(moves(cells, "x", 2)) == [(0, 1), (0, 3), (0, 4)]   # x2 gone: x1 is the nearest
    assert winner(parse("x1,.,./.,.,./.,.,. o rolls")[0]) == "x"


def test_query_below_a_position_gives_the_references_chances():
    """The position after x's first move (x3 to the centre), o to read the die, and then each of o's
    moves after a 2: every value against the solver written here."""
    position = "x1,.,./x2,x3,o2/.,o3,o1 o rolls"
    p = educable("query", "einstein(3)", position, "--json")
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    for m in data["moves"]:
        want = x_wins(*parse(m["next"]))
        assert m["exact"].startswith("x wins ") and float(m["exact"][7:-1]) == pytest.approx(100 * want, abs=5e-5)
    assert float(data["exact"][7:-1]) == pytest.approx(100 * x_wins(*parse(position)), abs=5e-5)


def test_the_ntuple_learner_learns_afterstates_of_a_game_of_chance_to_near_perfect_play(tmp_path):
    """The n-tuple learner on einstein(3): each afterstate is the position a move leaves, before the
    die is read (Szubert and Jaśkowski's afterstates); trained by self-play, the agent is judged
    exactly against a best-responding opponent, beside the game's value from the solver here."""
    p = educable("train", "einstein(3)", "--learner", "ntuple", "--agent", "n", "--games", "10000", "--seed", "3",
                 "--json", db=tmp_path / "kb.db")
    assert p.returncode == 0, p.stderr
    judged = json.loads(p.stdout)["exact"]
    start = ((("x", 1), ("x", 3), None, ("x", 2), None, ("o", 2), None, ("o", 3), ("o", 1)), "x", 0)
    value = x_wins(*start)
    assert judged["as_first"]["game_value"] == pytest.approx(value, abs=1e-9)
    assert value - 0.02 <= judged["as_first"]["against_best_response"] <= value + 1e-9
    assert 1 - value - 0.02 <= judged["as_second"]["against_best_response"] <= 1 - value + 1e-9
    # the agent plays the game through Prolog's chooser, chance drawn: a series against random play
    p = educable("eval", "einstein(3)", "n", "--vs", "random", "--games", "60", "--json", db=tmp_path / "kb.db")
    assert p.returncode == 0, p.stderr
    series = json.loads(p.stdout)
    assert series["as_first"]["win"] > 30 * 0.7 and series["as_second"]["win"] > 30 * 0.6


def test_on_a_game_of_chance_too_large_to_enumerate_chance_is_drawn_in_prolog_from_the_seed(tmp_path):
    """einstein(4) past --max-positions: games played side by side, the die read in Prolog after each
    move (rules/ntuple.pl); the same seed gives the same games, another seed others."""
    def trained(seed: int, name: str) -> list:
        p = educable("train", "einstein(4)", "--learner", "ntuple", "--agent", "n", "--games", "120", "--seed",
                     str(seed), "--max-positions", "1000", "--json", db=tmp_path / name)
        assert p.returncode == 0, p.stderr
        assert sum(json.loads(p.stdout)["results"].values()) == 120
        return sqlite3.connect(tmp_path / name).execute(
            "SELECT tuple, pattern, weight FROM ntuple_weights ORDER BY tuple, pattern").fetchall()
    first = trained(1, "a.db")
    assert first and first == trained(1, "b.db") and first != trained(2, "c.db")
