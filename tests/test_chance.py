"""Games of chance, the foundation (issue: games of chance and of score): chance nodes in the protocol,
their probabilities compiled exactly, and expectimax values by value iteration over the graph's cycles,
checked against Pig's values computed here apart (Neller and Presser's equations) and against
strongly connected parts found by brute force."""
import functools
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import EDUCABLE

ROOT = Path(__file__).resolve().parent.parent
EXE = EDUCABLE          # the fork server's client (tests/zygote.py)


def educable(*args, games_dir=ROOT / "examples" / "chance", db=None, input=None):
    env = {k: v for k, v in os.environ.items() if k not in ("EDUCABLE_DB", "EDUCABLE_GAMES")}
    return subprocess.run([EXE, "--games-dir", str(games_dir), *args, *(["--db", str(db)] if db else [])],
                          capture_output=True, text=True, timeout=300, env=env, input=input)


@functools.cache
def pig_reference(goal: int, faces: int = 6, tol: float = 1e-15, random: bool = False) -> dict:
    """The first player's chance of winning Pig, from Neller and Presser's equations: P(i, j, k), the
    chance that the player to move wins with score i, the opponent's j and turn total k, is 1 once
    i + k reaches the goal, else the better of rolling and (with k > 0) holding (``random``: their
    mean, both players picking uniformly among their moves)."""
    states = [(i, j, k) for i in range(goal) for j in range(goal) for k in range(goal - i)]
    p = dict.fromkeys(states, 0.0)

    def get(i, j, k):
        return 1.0 if i + k >= goal else p[(i, j, k)]
    while True:
        delta = 0.0
        for i, j, k in states:
            roll = ((1 - get(j, i, 0)) + sum(get(i, j, k + r) for r in range(2, faces + 1))) / faces
            hold = 1 - get(j, i + k, 0)
            v = roll if k == 0 else (roll + hold) / 2 if random else max(roll, hold)
            delta = max(delta, abs(v - p[(i, j, k)]))
            p[(i, j, k)] = v
        if delta < tol:
            return p


def test_solve_pig_gives_neller_and_pressers_value(tmp_path):
    r = educable("solve", "pig(12,6)", "--json", db=tmp_path / "kb.db")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["win_probability"] == pytest.approx(pig_reference(12)[(0, 0, 0)], abs=1e-10)
    assert data["chance_nodes"] > 0 and data["cyclic_parts"] > 0 and data["sweeps"] > 0
    assert data["winner"] == "p1"


def test_query_gives_each_moves_chance_of_winning(tmp_path):
    ref = pig_reference(12)
    r = educable("query", "pig(12,6)", "3 4 5 p1", "--json", db=tmp_path / "kb.db")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    shown = {m["move"]: float(m["exact"].removeprefix("p1 wins ").removesuffix("%")) / 100 for m in data["moves"]}
    hold = 1 - ref[(4, 8, 0)]                     # p2 to move with 4 against p1's 8
    roll = (1 - ref[(4, 3, 0)] + sum(ref[(3, 4, 5 + r)] if 3 + 5 + r < 12 else 1 for r in range(2, 7))) / 6
    assert shown == pytest.approx({"hold": hold, "roll": roll}, abs=5e-7)
    assert data["exact"] == f"p1 wins {max(hold, roll):.4%}"


def test_a_solved_game_of_chance_is_stored_and_later_commands_read_it(tmp_path):
    """solve stores the graph with its chances and solved values; solving again, query and eval --exact
    read it (the values the same, from Neller and Presser's equations); a changed game file makes it
    stale; a damaged row is named by doctor and solved again."""
    import shutil
    import sqlite3
    games = tmp_path / "games"
    games.mkdir()
    shutil.copy(ROOT / "examples" / "chance" / "coin.pl", games / "coin.pl")
    db, ref = tmp_path / "kb.db", pig_reference(12)

    def solved() -> dict:
        r = educable("solve", "pig(12,6)", "--json", games_dir=games, db=db)
        assert r.returncode == 0, r.stderr
        data = json.loads(r.stdout)
        assert data["win_probability"] == pytest.approx(ref[(0, 0, 0)], abs=1e-10)
        return data
    def listed() -> dict:
        r = educable("games", "--json", games_dir=games, db=db)
        assert r.returncode == 0, r.stderr
        return {row["game"]: row for row in json.loads(r.stdout)}
    assert solved()["stored"] is False
    assert solved()["stored"] is True
    row = listed()["pig(12,6)"]            # a family member no file names, listed once solved
    assert row["solved"] and row["win_probability"] == pytest.approx(ref[(0, 0, 0)], abs=1e-10)
    r = educable("query", "pig(12,6)", "3 4 5 p1", "--json", games_dir=games, db=db)
    data = json.loads(r.stdout)
    assert data["exact_source"] == "stored"
    hold = {m["move"]: m["value"] for m in data["moves"]}["hold"]
    assert hold == pytest.approx(100 * (1 - ref[(4, 8, 0)]), abs=1e-8)
    r = educable("eval", "pig(12,6)", "minimax", "--exact", "--json", games_dir=games, db=db)
    assert json.loads(r.stdout)["as_first"]["game_value"] == pytest.approx(ref[(0, 0, 0)], abs=1e-10)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE graphs SET chance_data = x'00' WHERE game = 'pig(12,6)'")
    r = educable("doctor", games_dir=games, db=db)
    assert r.returncode != 0 and "pig(12,6)" in r.stdout + r.stderr
    assert solved()["stored"] is False                  # solved again, over the damaged row

    def coin() -> dict:
        r = educable("solve", "coin", "--json", games_dir=games, db=db)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)
    assert coin()["stored"] is False and coin()["stored"] is True
    assert coin()["win_probability"] == 0.75
    (games / "coin.pl").write_text((games / "coin.pl").read_text() + "\n% edited\n")
    assert "coin" in listed() and not listed()["coin"]["solved"]     # its solution is of another version of the file
    assert coin()["stored"] is False                    # another version of the file: solved again
    assert coin()["stored"] is True


def pig_random_references(goal: int, faces: int = 6, tol: float = 1e-15) -> tuple[float, float]:
    """Pig with a random player (rolls, or holds once it has something to bank, each half the time),
    computed apart: its chance of winning as first against another random player, and against an
    opponent that answers it as well as possible."""
    keys = [(i, j, k) for i in range(goal) for j in range(goal) for k in range(goal - i)]

    def sweep(get_me, get_other, best):
        """One player's table from the other's: the mover's chance of winning (best: the mover plays
        to win, else at random)."""
        def win(i, j, k):
            return 1.0 if i + k >= goal else get_me((i, j, k))
        out = {}
        for i, j, k in keys:
            roll = ((1 - get_other((j, i, 0))) + sum(win(i, j, k + r) for r in range(2, faces + 1))) / faces
            if k == 0:
                out[(i, j, k)] = roll
            else:
                hold = 1 - get_other((j, i + k, 0))
                out[(i, j, k)] = max(roll, hold) if best else (roll + hold) / 2
        return out

    both = dict.fromkeys(keys, 0.0)
    while True:                         # both random: one table, the mover's chance
        new = sweep(both.get, both.get, best=False)
        if max(abs(new[x] - both[x]) for x in keys) < tol:
            break
        both = new
    me, them = dict.fromkeys(keys, 0.0), dict.fromkeys(keys, 0.0)
    while True:                         # random against its best response: a table for each
        new_me, new_them = sweep(me.get, them.get, best=False), sweep(them.get, me.get, best=True)
        if max(max(abs(new_me[x] - me[x]), abs(new_them[x] - them[x])) for x in keys) < tol:
            break
        me, them = new_me, new_them
    return both[(0, 0, 0)], me[(0, 0, 0)]


def test_eval_exact_judges_a_player_of_chance_against_best_response_and_another(tmp_path):
    vs_random, vs_best = pig_random_references(10)
    r = educable("eval", "pig(10,6)", "random", "--vs", "random", "--exact", "--json", db=tmp_path / "kb.db")
    assert r.returncode == 0, r.stderr
    first = json.loads(r.stdout)["as_first"]
    assert first["win"] == pytest.approx(vs_random, abs=1e-9) and first["draw"] == pytest.approx(0, abs=1e-9)
    r = educable("eval", "pig(10,6)", "random", "--exact", "--json", db=tmp_path / "kb.db")
    data = json.loads(r.stdout)
    assert data["as_first"]["against_best_response"] == pytest.approx(vs_best, abs=1e-9)
    assert data["as_first"]["game_value"] == pytest.approx(pig_reference(10)[(0, 0, 0)], abs=1e-9)
    r = educable("eval", "pig(10,6)", "minimax", "--exact", "--json", db=tmp_path / "kb.db")
    assert all(json.loads(r.stdout)[side]["perfect"] for side in ("as_first", "as_second"))


TEXT_FORMS = """
game:position_text(GAME, P, M, T) :- format(atom(T), "~w ~w", [P, M]).
game:parse_position(GAME, T, P, M) :- atomic_list_concat([P, M], ' ', T).
game:parse_move(GAME, T, T).
game:move_text(GAME, M, M).
game:board_lines(GAME, P, _, [P]).
"""


COIN = """
:- module(coin, []).
%   A biased coin decides: heads (weight W1) p1 wins, tails (weight W2) p2 wins; before it, p1 may
%   also stop for a draw.
game:game(coin).
game:players(coin, [p1, p2]).
game:initial(coin, start, p1).
game:legal(coin, start, p1, toss).
game:legal(coin, start, p1, stop).
game:legal(coin, tossing, chance, heads).
game:legal(coin, tossing, chance, tails).
game:next(coin, start, p1, toss, tossing).
game:next(coin, start, p1, stop, stopped).
game:next(coin, tossing, chance, Side, Side).
game:next_mover(coin, start, p1, tossing, chance) :- !.
game:next_mover(coin, _, _, _, p2).
game:chance_weight(coin, tossing, heads, W1).
game:chance_weight(coin, tossing, tails, W2).
game:over(coin, heads, _, p1).
game:over(coin, tails, _, p2).
game:over(coin, stopped, _, draw).
""" + TEXT_FORMS.replace("GAME", "coin")


@pytest.mark.parametrize("w1, w2, value", [
    ("9", "1", 0.8),            # whole weights: heads 9 in 10, so tossing is worth 0.9 - 0.1
    ("3r4", "1r4", 0.5),        # rationals adding up to 1
    ("1", "3", 0.0),            # tossing worth -0.5: p1 stops for the draw
])
def test_weights_become_exact_probabilities(tmp_path, w1, w2, value):
    (tmp_path / "coin.pl").write_text(COIN.replace("W1", w1).replace("W2", w2))
    r = educable("solve", "coin", "--json", games_dir=tmp_path, db=tmp_path / "kb.db")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["value"] == pytest.approx(value, abs=1e-15)


def test_a_float_weight_is_refused_and_check_names_bad_weights(tmp_path):
    (tmp_path / "coin.pl").write_text(COIN.replace("W1", "0.9").replace("W2", "1"))
    r = educable("solve", "coin", games_dir=tmp_path, db=tmp_path / "kb.db")
    assert r.returncode == 2 and "never a float" in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
    (tmp_path / "coin.pl").write_text(COIN.replace("W1", "1r2").replace("W2", "1r3"))
    r = educable("check", str(tmp_path / "coin.pl"), games_dir=tmp_path)
    assert "add up to 5r6" in r.stdout and "exactly 1" in r.stdout, r.stdout
    r = educable("solve", "coin", games_dir=tmp_path, db=tmp_path / "kb.db")    # solve refuses what check reports
    assert r.returncode == 2 and "add up to 5r6" in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr


def test_commands_that_assume_no_chance_refuse_a_game_of_chance_in_one_line(tmp_path):
    for command in (["tournament", "pig(12,6)", "random", "minimax", "--games", "4"],
                    ["eval", "pig(12,6)", "alphabeta:2", "--vs", "random", "--exact"],
                    ["eval", "pig(12,6)", "minimax", "--vs", "random", "--games", "2"]):
        r = educable(*command, db=tmp_path / "kb.db")
        assert r.returncode == 2 and "chance" in r.stderr and len(r.stderr.splitlines()) == 1, (command, r.stderr)


def strong_parts_by_reachability(n, edges):
    """Each node's strongly connected part as the set of nodes it reaches and that reach it."""
    reach = np.eye(n, dtype=bool)
    for a, b in edges:
        reach[a, b] = True
    for k in range(n):                      # Warshall's transitive closure
        reach |= reach[:, [k]] & reach[[k], :]
    return reach & reach.T, reach


@pytest.mark.parametrize("seed", range(6))
def test_strong_parts_are_found_and_ordered_successors_first(seed):
    from educable.learners.chance import _strong_parts
    rng = np.random.default_rng(seed)
    n = 40
    edges = sorted({(int(a), int(b)) for a, b in rng.integers(0, n, size=(70, 2))})
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount([a for a, _ in edges], minlength=n), out=start[1:])
    target = np.array([b for _, b in edges], dtype=np.int64)
    order, part_start = _strong_parts(n, start, target)
    same, reach = strong_parts_by_reachability(n, edges)
    part_of = np.empty(n, dtype=np.int64)
    for p in range(len(part_start) - 1):
        part_of[order[part_start[p]:part_start[p + 1]]] = p
    assert sorted(order.tolist()) == list(range(n))
    assert (same == (part_of[:, None] == part_of[None, :])).all()
    assert all(part_of[b] <= part_of[a] for a, b in edges)      # a part comes after every part it leads to


def test_q_learning_learns_pig_to_within_a_point_of_perfect_play(tmp_path):
    """The sampled update on a game of chance: self-play on pig(10,6), then judged exactly against a
    best-responding opponent, as first and as second, beside the values computed apart."""
    r = educable("train", "pig(10,6)", "--learner", "qlearn", "--agent", "q", "--games", "20000", "--seed", "1",
                 "--json", db=tmp_path / "kb.db")
    assert r.returncode == 0, r.stderr
    exact = json.loads(r.stdout)["exact"]
    value = pig_reference(10)[(0, 0, 0)]
    assert exact["as_first"]["game_value"] == pytest.approx(value, abs=1e-9)
    assert exact["as_first"]["against_best_response"] >= value - 0.01
    assert exact["as_second"]["against_best_response"] >= (1 - value) - 0.01
    r = educable("train", "pig(10,6)", "--learner", "qlearn", "--agent", "b", "--update", "bounds", db=tmp_path / "kb.db")
    assert r.returncode == 2 and "negamax" in r.stderr, r.stderr


def test_q_learnings_self_play_kernel_plays_pigs_rules_and_dice(tmp_path):
    """Self-play on a game of chance runs in numba (learners/qlearn_kernel.py): with --epsilon 1 every
    move is uniformly random, so the first player's share of 100,000 games must match the chance that
    random play wins, computed here from the rules (within four standard errors)."""
    r = educable("train", "pig(10,6)", "--learner", "qlearn", "--agent", "r", "--games", "100000", "--seed", "3",
                 "--epsilon", "1", "--json", db=tmp_path / "kb.db")
    assert r.returncode == 0, r.stderr
    won = json.loads(r.stdout)["results"]["p1"] / 100_000
    expected = pig_reference(10, random=True)[(0, 0, 0)]
    assert abs(won - expected) <= 4 * (expected * (1 - expected) / 100_000) ** 0.5, (won, expected)


def test_q_learning_with_expected_updates_plays_pig_perfectly(tmp_path):
    """--update expected weighs every outcome of the dice by its probability instead of drawing one:
    after 20,000 self-play games of pig(20,6) the agent wins exactly what perfect play wins, on both
    sides, against a best-responding opponent (the values from Neller and Presser's equations here);
    it learns by self-play only, and only where there is chance."""
    r = educable("train", "pig(20,6)", "--learner", "qlearn", "--agent", "e", "--update", "expected", "--games", "20000",
                 "--seed", "1", "--json", db=tmp_path / "kb.db")
    assert r.returncode == 0, r.stderr
    exact = json.loads(r.stdout)["exact"]
    value = pig_reference(20)[(0, 0, 0)]
    assert exact["as_first"]["against_best_response"] == pytest.approx(value, abs=1e-9)
    assert exact["as_second"]["against_best_response"] == pytest.approx(1 - value, abs=1e-9)
    r = educable("train", "pig(20,6)", "--learner", "qlearn", "--agent", "v", "--update", "expected", "--vs", "random",
                 db=tmp_path / "kb.db")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "by self-play" in r.stderr, r.stderr


@pytest.mark.parametrize("w1, w2, win, draw", [("9", "1", 0.9, 0.0), ("1", "3", 0.0, 1.0)])
def test_expectimax_weighs_outcomes_by_their_chances(tmp_path, w1, w2, win, draw):
    """One move ahead on the coin: it tosses when heads (its win) is likelier, stops for the draw when not."""
    (tmp_path / "coin.pl").write_text(COIN.replace("W1", w1).replace("W2", w2))
    r = educable("eval", "coin", "expectimax:1", "--vs", "random", "--exact", "--json", games_dir=tmp_path,
                 db=tmp_path / "kb.db")
    assert r.returncode == 0, r.stderr
    first = json.loads(r.stdout)["as_first"]
    assert (first["win"], first["draw"]) == pytest.approx((win, draw), abs=1e-12)
    r = educable("eval", "coin", "alphabeta:1", "--vs", "random", "--games", "2", games_dir=tmp_path,
                 db=tmp_path / "kb.db")
    assert r.returncode == 2 and "expectimax" in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr


WAIT = """
:- module(wait, []).
%   Either player may wait (the position comes back with the other to move) or end the game: p1 by
%   winning, p2 by a draw.  The two starts form the one cycle.
game:game(wait).
game:players(wait, [p1, p2]).
game:initial(wait, start, p1).
game:legal(wait, start, _, wait).
game:legal(wait, start, _, stop).
game:next(wait, start, _, wait, start).
game:next(wait, start, M, stop, M).
game:over(wait, p1, _, p1).
game:over(wait, p2, _, draw).
""" + TEXT_FORMS.replace("GAME", "wait")


def test_check_says_where_positions_come_back(tmp_path):
    (tmp_path / "wait.pl").write_text(WAIT)
    r = educable("check", str(tmp_path / "wait.pl"), games_dir=tmp_path)
    assert "positions can come back: 2 positions in 1 cycle" in r.stdout, r.stdout
    r = educable("check", str(ROOT / "tests" / "data" / "count3.pl"), games_dir=tmp_path)
    assert "come back" not in r.stdout and "sound" in r.stdout, r.stdout


def test_a_gdl_ii_pig_with_the_random_role_solves_as_the_native_file(tmp_path):
    """GDL-II's random role is chance: examples/gdl/pig_gdl.kif (a 3-faced die, goal 6) has the positions
    and the value of rules/games/pig.pl's pig(6,3)."""
    answers = []
    for folder, game in ((ROOT / "examples" / "gdl", "pig_gdl"), (ROOT / "examples" / "chance", "pig(6,3)")):
        r = educable("solve", game, "--json", games_dir=folder, db=tmp_path / f"{folder.name}.db")
        assert r.returncode == 0, r.stderr
        answers.append(json.loads(r.stdout))
    gdl, native = answers
    for key in ("positions", "chance_nodes", "terminal"):
        assert gdl[key] == native[key], key
    assert gdl["win_probability"] == pytest.approx(native["win_probability"], abs=1e-12)
    sheet = (ROOT / "examples" / "gdl" / "pig_gdl.kif").read_text() + "\n(<= (sees ?p (die ?f)) (does random (die ?f)) (role ?p))\n"
    (tmp_path / "seen.kif").write_text(sheet)
    r = educable("solve", "seen", games_dir=tmp_path, db=tmp_path / "seen.db")      # GDL-II with sees: hidden
    assert r.returncode == 2 and "comes back along a line of play" in r.stderr, r.stdout + r.stderr
