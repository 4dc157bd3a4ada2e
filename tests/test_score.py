"""Games of score (one player, the highest expected score): 2048 on small boards, solved exactly and
checked against a solver written here from Cirulli's rules, apart from rules/games/2048.pl."""
from __future__ import annotations

import functools
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from test_chance import ROOT, educable


def run_json(*args, db=None) -> dict:
    """A command on the example games of chance (2048 among them) with --json; it must succeed."""
    p = educable(*args, "--json", db=db)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def refused(p, *words) -> None:
    """The command failed in one line naming ``words``."""
    lines = p.stderr.strip().splitlines()
    assert p.returncode != 0 and len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert all(w in lines[0] for w in words), lines[0]


def slide_row(row: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """One line moved toward its start: tiles (values, 0 empty) packed, each equal pair nearest the
    start merged once, the merged values added up."""
    tiles = [v for v in row if v]
    out: list[int] = []
    points = 0
    i = 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            out.append(2 * tiles[i])
            points += 2 * tiles[i]
            i += 2
        else:
            out.append(tiles[i])
            i += 1
    return tuple(out + [0] * (len(row) - len(out))), points


def moved(board: tuple[int, ...], rows: int, cols: int, direction: str) -> tuple[tuple[int, ...], int]:
    """The board after a move, and its points."""
    grid = [list(board[r * cols:(r + 1) * cols]) for r in range(rows)]
    if direction in ("up", "down"):
        lines = [[grid[r][c] for r in range(rows)] for c in range(cols)]
    else:
        lines = [row[:] for row in grid]
    if direction in ("right", "down"):
        lines = [line[::-1] for line in lines]
    done, points = [], 0
    for line in lines:
        new, p = slide_row(tuple(line))
        done.append(list(new))
        points += p
    if direction in ("right", "down"):
        done = [line[::-1] for line in done]
    if direction in ("up", "down"):
        out = [done[c][r] for r in range(rows) for c in range(cols)]
    else:
        out = [v for line in done for v in line]
    return tuple(out), points


def reference(rows: int, cols: int, best: bool = True):
    """The expected score from a board the player moves in, and from one a tile is to appear on
    (``player``, ``tile``), by expectimax over every board reached: with the best move (``best``),
    else with each legal move equally likely."""

    @functools.cache
    def player(board: tuple[int, ...]) -> float:
        values = []
        for d in ("up", "down", "left", "right"):
            after, points = moved(board, rows, cols, d)
            if after != board:
                values.append(points + tile(after))
        if not values:
            return 0.0
        return max(values) if best else sum(values) / len(values)

    @functools.cache
    def tile(board: tuple[int, ...]) -> float:
        empty = [i for i, v in enumerate(board) if v == 0]
        total = 0.0
        for i in empty:
            for value, p in ((2, 0.9), (4, 0.1)):
                b = board[:i] + (value,) + board[i + 1:]
                nxt = tile(b) if sum(1 for v in b if v) == 1 else player(b)
                total += p / len(empty) * nxt
        return total

    return player, tile


def reference_value(rows: int, cols: int, best: bool = True) -> float:
    """The expected score from the empty board (with the best moves, else at random)."""
    return reference(rows, cols, best)[1]((0,) * (rows * cols))


@pytest.mark.parametrize("rows, cols", [(1, 3), (1, 4), (2, 2)])
def test_small_2048_boards_solve_to_a_reference_written_from_the_rules(rows, cols, tmp_path):
    data = run_json("solve", f"2048({rows},{cols})", db=tmp_path / "kb.db")
    assert data["players"] == ["player"] and data["winner"] is None
    assert data["expected_score"] == pytest.approx(reference_value(rows, cols), abs=1e-9)


def test_eval_exact_gives_an_agents_expected_score_beside_the_best(tmp_path):
    for agent, best in (("random", False), ("minimax", True)):
        data = run_json("eval", "2048(2,2)", agent, "--exact", db=tmp_path / "kb.db")
        assert data["expected_score"] == pytest.approx(reference_value(2, 2, best), abs=1e-9)
        assert data["best_expected_score"] == pytest.approx(reference_value(2, 2), abs=1e-9)
        assert data["perfect"] is best
    refused(educable("eval", "2048(2,2)", "random", "--exact", "--vs", "random"), "leave out --vs")
    refused(educable("eval", "2048(2,2)", "alphabeta:2", "--exact"), "random, minimax, expectimax:DEPTH and agents")


def expectimax_player_score(rows: int, cols: int, depth: int) -> float:
    """The exact expected score from the empty board of a player who searches ``depth`` of its moves
    ahead (points counted, each new tile's chances averaged, the horizon valued 0, an end 0) and
    picks uniformly among its best moves: in exact fractions, for moves of equal value tie (at depth
    3 on 2048(2,2) a float sum splits a tie, and the score moves by 0.13)."""
    from fractions import Fraction
    directions = ("up", "down", "left", "right")

    def after_moves(board):
        return [(points, after) for d in directions
                for after, points in [moved(board, rows, cols, d)] if after != board]

    def tiles(board):
        empty = [i for i, v in enumerate(board) if v == 0]
        return [(p / len(empty), board[:i] + (value,) + board[i + 1:])
                for i in empty for value, p in ((2, Fraction(9, 10)), (4, Fraction(1, 10)))]

    @functools.cache
    def search(board, d):          # a board the player moves in, d moves left before the horizon
        options = after_moves(board)
        if not options or d <= 0:
            return Fraction(0)
        return max(points + sum(p * search(b, d - 1) for p, b in tiles(after)) for points, after in options)

    @functools.cache
    def played(board):             # the expected score of the searching player from here
        options = after_moves(board)
        if not options:
            return Fraction(0)
        scores = [points + sum(p * search(b, depth - 1) for p, b in tiles(after)) for points, after in options]
        best = [o for o, v in zip(options, scores, strict=True) if v == max(scores)]
        return sum(points + chanced(after) for points, after in best) / len(best)

    @functools.cache
    def chanced(board):
        return sum(p * (chanced(b) if sum(1 for v in b if v) == 1 else played(b)) for p, b in tiles(board))

    return float(chanced((0,) * (rows * cols)))


@pytest.mark.parametrize("depth", [1, 2])
def test_expectimax_counts_points_and_is_judged_exactly_on_a_game_of_score(depth, tmp_path):
    data = run_json("eval", "2048(2,2)", f"expectimax:{depth}", "--exact", db=tmp_path / "kb.db")
    assert data["expected_score"] == pytest.approx(expectimax_player_score(2, 2, depth), abs=1e-9)


def test_the_reference_slides_as_the_original_game():
    """Cirulli's rules, by hand: the pair nearest the side merges first, a merged tile merges no more."""
    assert slide_row((2, 2, 2, 0)) == ((4, 2, 0, 0), 4)
    assert slide_row((2, 2, 4, 4)) == ((4, 8, 0, 0), 12)
    assert slide_row((4, 4, 8, 0)) == ((8, 8, 0, 0), 8)
    assert moved((2, 0, 2, 4), 2, 2, "up") == ((4, 4, 0, 0), 4)


def test_query_gives_each_moves_points_and_expected_score(tmp_path):
    rows, cols, board = 2, 2, (2, 4, 0, 2)
    _, tile = reference(rows, cols)
    data = run_json("query", "2048(2,2)", "2,4/.,2", db=tmp_path / "kb.db")
    want = {}
    for d in ("up", "down", "left", "right"):
        after, points = moved(board, rows, cols, d)
        if after != board:
            want[d] = points + tile(after)
    assert [m["move"] for m in data["moves"]] == list(want)
    for m in data["moves"]:
        assert m["exact"] == f"{want[m['move']]:.4f} points expected"
    assert data["exact"] == f"{max(want.values()):.4f} points to come"


def test_the_text_forms_read_back_and_bad_ones_are_one_line():
    p = educable("show", "2048(2,2)", "2,4/.,2")
    assert p.returncode == 0 and "player to move" in p.stdout
    refused(educable("show", "2048(2,2)", "2,3/.,2"), "bad 2048(2,2) position")
    refused(educable("show", "2048(2,2)", "2,./.,."), "two tiles")
    refused(educable("show", "2048(2,2)", "2,4/8,2 tile"), "empty")
    refused(educable("show", "2048(9,9)"), "2048(9,9)")


@pytest.mark.parametrize("command, words", [
    (["play", "--opponent", "random"], "leave out --opponent"),
    (["eval", "random", "--vs", "random"], "leave out --vs"),
    (["eval", "minimax"], "--exact"),
    (["eval", "random", "--games", "1"], "at least 2"),
    (["eval", "alphabeta:2"], "random, expectimax:DEPTH and agents learned by qlearn or ntuple"),
    (["train", "--agent", "a", "--learner", "punish"], "the other learners and tournaments do not yet"),
    (["train", "--agent", "a", "--learner", "qlearn", "--vs", "random"], "leave out --vs"),
    (["tournament", "random", "minimax"], "the other learners and tournaments do not yet")])
def test_what_does_not_know_games_of_score_yet_says_so_in_one_line(command, words, tmp_path):
    refused(educable(command[0], "2048(2,2)", *command[1:], db=tmp_path / "kb.db"), "game of", words)


def test_a_game_of_score_is_played_alone_and_stored_with_the_score_its_moves_made(tmp_path):
    # the person types directions over and over (an illegal one is answered and the next line read)
    typed = "\n".join(["left", "up", "right", "down"] * 40) + "\n"
    p = educable("play", "2048(2,2)", "--seed", "5", input=typed, db=tmp_path / "kb.db")
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    first, moves, result = sqlite3.connect(tmp_path / "kb.db").execute(
        "SELECT first, moves, result FROM matches").fetchone()
    board, total = (0, 0, 0, 0), 0
    for move in json.loads(moves):          # replayed by the reference: a tile is VALUE@CELL (1-based)
        if "@" in move:
            value, cell = map(int, move.split("@"))
            assert board[cell - 1] == 0
            board = board[:cell - 1] + (value,) + board[cell:]
        else:
            after, points = moved(board, 2, 2, move)
            assert after != board
            board, total = after, total + points
    assert all(moved(board, 2, 2, d)[0] == board for d in ("up", "down", "left", "right"))   # the end
    assert (first, result) == ("human", f"score({total})")
    assert p.stdout.rstrip().endswith(f"game over: you scored {total}")
    # the page's replay: each of the person's moves valued by its expected points (the reference's), the
    # points given away where another move expected more; chance's tiles drawn, not valued
    probe = ("import json; from educable.kb.db import open_kb; from educable.bridge import replay\n"
             f"print(json.dumps(replay.replay(open_kb({str(tmp_path / 'kb.db')!r}), 1)))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, cwd=ROOT,
                         env={**os.environ, "EDUCABLE_GAMES": str(ROOT / "examples" / "chance")})
    assert out.returncode == 0, out.stderr
    plies = json.loads(out.stdout)["plies"]
    assert [p["move"] for p in plies] == json.loads(moves)
    player, tile = reference(2, 2)
    given_away = 0
    for p in plies:
        if p["mover"] == "chance":
            assert (p["value"], p["mistake"], p["values"]) == ("drawn by chance", None, {})
            continue
        board = tuple(0 if c == "." else int(c) for row in p["position"].split("/") for c in row.split(","))
        expected = {}
        for d in ("up", "down", "left", "right"):
            after, points = moved(board, 2, 2, d)
            if after != board:
                expected[d] = points + tile(after)
        assert {m: float(v.split()[0]) for m, v in p["values"].items()} == pytest.approx(expected, abs=1e-4)
        worse = max(expected.values()) - expected[p["move"]] > 1e-6
        assert (p["mistake"] is not None) == worse, p
        given_away += worse
    assert given_away == json.loads(out.stdout)["mistakes"]


def test_eval_plays_a_game_of_score_alone_and_its_mean_meets_the_exact_expectation(tmp_path):
    data = run_json("eval", "2048(2,2)", "random", "--games", "2000", "--seed", "4", db=tmp_path / "kb.db")
    exact = reference_value(2, 2, best=False)
    low, high = data["interval95"]
    assert low < exact < high and high - low < 2.5
    assert data["mean_score"] == pytest.approx(exact, abs=(high - low) / 2)
    short = run_json("eval", "2048(2,2)", "random", "--games", "150", "--seed", "4", db=tmp_path / "kb.db")
    again = run_json("eval", "2048(2,2)", "random", "--games", "150", "--seed", "4", db=tmp_path / "kb.db")
    assert again == short                      # the same seed, the same games
    data = run_json("eval", "2048(2,2)", "expectimax:1", "--games", "400", "--seed", "1", db=tmp_path / "kb.db")
    low, high = data["interval95"]
    assert low < expectimax_player_score(2, 2, 1) < high


def reference_states(rows: int, cols: int) -> int:
    """Boards reached from the empty one, counted apart for the player and for a tile to appear."""
    seen: set[tuple[str, tuple[int, ...]]] = set()
    todo = [("tile", (0,) * (rows * cols))]
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        who, board = state
        if who == "player":
            todo += [("tile", after) for d in ("up", "down", "left", "right")
                     if (after := moved(board, rows, cols, d)[0]) != board]
        else:
            for i in (i for i, v in enumerate(board) if v == 0):
                for value in (2, 4):
                    b = board[:i] + (value,) + board[i + 1:]
                    todo.append(("tile" if sum(1 for v in b if v) == 1 else "player", b))
    return len(seen)


STEPS = """:- module(steps, []).
game:game(steps).
game:players(steps, [me]).
game:initial(steps, 0, me).
game:legal(steps, N, me, K) :- member(K, [1, 2]), N + K =< 3.
game:next(steps, N, me, K, N1) :- N1 is N + K.
game:points(steps, _, me, K, K).
game:over(steps, 3, me, score(0)).
game:position_text(steps, N, _, T) :- atom_number(T, N).
game:parse_position(steps, T, N, me) :- atom_number(T, N).
game:parse_move(steps, T, K) :- atom_number(T, K).
game:move_text(steps, K, T) :- atom_number(T, K).
game:board_lines(steps, N, _, [S]) :- format(string(S), "~d", [N]).
"""


def test_check_finds_a_small_2048_sound_and_an_end_without_a_score_wrong(tmp_path):
    found = run_json("check", "2048(2,2)")
    assert found["sound"] and found["games"][0]["exhaustive"]
    assert found["games"][0]["positions"] == reference_states(2, 2)
    bad = tmp_path / "steps.pl"
    bad.write_text(STEPS.replace("score(0)", "me"))
    p = educable("check", str(bad), "--json")
    problems = [x for g in json.loads(p.stdout)["games"] for x in g["problems"]]
    assert p.returncode != 0 and any("score(N)" in x["message"] for x in problems), p.stdout[:2000]


def test_q_learning_learns_a_game_of_score_judged_exactly_beside_the_reference(tmp_path):
    """2048(2,2) by Q-learning (the sampled update toward each move's points plus the best expected
    after it): its exact expected score close to best play's from the solver written here, never above
    it; eval --exact says the same, and its games played through Prolog meet it."""
    data = run_json("train", "2048(2,2)", "--learner", "qlearn", "--agent", "q", "--games", "20000", "--seed", "1",
                    "--plot", str(tmp_path / "curve.png"), db=tmp_path / "kb.db")
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"        # the exact expected score, curve by curve
    best = reference_value(2, 2)
    got = data["exact"]["expected_score"]
    assert data["exact"]["best_expected_score"] == pytest.approx(best, abs=1e-9)
    assert best - 1.0 < got <= best + 1e-9
    assert data["mean_score"] < got                 # exploring moves cost points while it learns
    judged = run_json("eval", "2048(2,2)", "q", "--exact", db=tmp_path / "kb.db")
    assert judged["expected_score"] == pytest.approx(got, abs=1e-9)
    sampled = run_json("eval", "2048(2,2)", "q", "--games", "1000", "--seed", "2", db=tmp_path / "kb.db")
    low, high = sampled["interval95"]
    assert low < got < high
