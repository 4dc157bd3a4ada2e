"""The games of chance and of score at the edges of the solver's methods, each value computed apart in
the test: a cycle left once in 10^14 tosses (value iteration alone stopped after one sweep at the
wrong value), a line its player may keep from ending (a draw, never half a win), best play that
scores for ever (refused), and sampled games of score that would never end (counted as cut)."""
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from conftest import EDUCABLE, ROOT
from test_chance import TEXT_FORMS

#   a tosses a coin that comes back to the start (weight AGAIN), wins (WIN) or loses (LOSS).
SLOW = """
:- module(slow, []).
game:game(slow).
game:players(slow, [a, b]).
game:initial(slow, start, a).
game:legal(slow, start, a, toss).
game:legal(slow, tossing, chance, O) :- member(O, OUTCOMES).
game:next(slow, start, a, toss, tossing).
game:next(slow, tossing, chance, again, start).
game:next(slow, tossing, chance, won, won).
game:next(slow, tossing, chance, lost, lost).
game:next_mover(slow, start, a, tossing, chance) :- !.
game:next_mover(slow, _, _, _, a).
game:chance_weight(slow, tossing, again, AGAIN).
game:chance_weight(slow, tossing, won, WIN).
game:chance_weight(slow, tossing, lost, LOSS).
game:over(slow, won, _, a).
game:over(slow, lost, _, b).
""" + TEXT_FORMS.replace("GAME", "slow")

#   a may wait for ever (the start comes back: a draw) or toss a coin that wins one time in four.
WAITING = """
:- module(waiting, []).
game:game(waiting).
game:players(waiting, [a, b]).
game:initial(waiting, start, a).
game:legal(waiting, start, a, wait).
game:legal(waiting, start, a, toss).
game:legal(waiting, tossing, chance, heads).
game:legal(waiting, tossing, chance, tails).
game:next(waiting, start, a, wait, start).
game:next(waiting, start, a, toss, tossing).
game:next(waiting, tossing, chance, S, S).
game:next_mover(waiting, start, a, start, a) :- !.
game:next_mover(waiting, start, a, tossing, chance) :- !.
game:next_mover(waiting, _, _, _, b).
game:chance_weight(waiting, tossing, heads, 1).
game:chance_weight(waiting, tossing, tails, 3).
game:over(waiting, heads, _, a).
game:over(waiting, tails, _, b).
""" + TEXT_FORMS.replace("GAME", "waiting")

#   One player: `step` scores a point and tosses a coin that comes back (weight BACK) or ends the game
#   (weight 1); `stop` ends it.  BACK = loop: `step` comes straight back, and best play scores for ever.
SCORE = """
:- module(points, []).
game:game(points).
game:players(points, [p]).
game:initial(points, start, p).
game:legal(points, start, p, step).
game:legal(points, start, p, stop) :- STOPS.
game:legal(points, tossing, chance, back).
game:legal(points, tossing, chance, out).
game:next(points, start, p, step, AFTER).
game:next(points, start, p, stop, done).
game:next(points, tossing, chance, back, start).
game:next(points, tossing, chance, out, done).
game:next_mover(points, _, _, tossing, chance) :- !.
game:next_mover(points, _, _, _, p).
game:chance_weight(points, tossing, back, BACK).
game:chance_weight(points, tossing, out, 1).
game:points(points, start, p, step, 1).
game:over(points, done, _, score(0)).
""" + TEXT_FORMS.replace("GAME", "points")


def educable(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("EDUCABLE_DB", "EDUCABLE_GAMES")}
    return subprocess.run([EDUCABLE, "--games-dir", str(folder), *args, "--db", str(folder / "kb.db")],
                          capture_output=True, text=True, timeout=300, env=env)


def solved(folder: Path, game: str) -> dict:
    r = educable(folder, "solve", game, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("again, win, loss", [(10**14, 1, 0), (10**6, 1, 0), (10**14, 1, 2), (10**15, 3, 7)])
def test_a_cycle_left_once_in_many_tosses_is_solved_to_its_fixed_point(tmp_path, again, win, loss):
    """Tossing until the coin stops: a wins with probability WIN / (WIN + LOSS), however rarely it stops."""
    outcomes = "[again, won, lost]" if loss else "[again, won]"
    (tmp_path / "slow.pl").write_text(SLOW.replace("OUTCOMES", outcomes).replace("AGAIN", str(again))
                                      .replace("WIN", str(win)).replace("LOSS", str(loss)))
    data = solved(tmp_path, "slow")
    p = Fraction(win, win + loss)
    assert data["win_probability"] == pytest.approx(float(p), abs=1e-12)
    assert data["value"] == pytest.approx(float(2 * p - 1), abs=1e-12)
    assert data["draw_probability"] == 0 and data["exact_parts"] == 1
    r = educable(tmp_path, "solve", "slow")
    assert f"a wins with probability {float(p):.6f}" in r.stdout, r.stdout


def test_a_line_that_never_ends_is_a_draw_not_half_a_win(tmp_path):
    (tmp_path / "waiting.pl").write_text(WAITING)
    data = solved(tmp_path, "waiting")
    # waiting for ever is a draw (0); tossing is worth 1/4 - 3/4 = -1/2: best play waits
    assert (data["value"], data["win_probability"], data["draw_probability"]) == (0.0, 0.0, 1.0)
    r = educable(tmp_path, "solve", "waiting")
    assert "a wins with probability 0.000000, a draw 1.000000, b wins 0.000000" in r.stdout, r.stdout
    r = educable(tmp_path, "query", "waiting", "start a")
    wait = next(line for line in r.stdout.splitlines() if line.strip().startswith("wait"))
    toss = next(line for line in r.stdout.splitlines() if line.strip().startswith("toss"))
    assert "a wins 0.0000%, draw 100.0000%" in wait and "a wins 25.0000%, draw 0.0000%" in toss, r.stdout
    r = educable(tmp_path, "games")
    assert "a wins 0.0000%, draw 100.0000%, b wins 0.0000%" in r.stdout, r.stdout
    # random play tosses sooner or later (each turn with chance 1/2): its expected result is -1/2 as first;
    # as second it has no move, and the game's value for b is 0
    r = educable(tmp_path, "eval", "waiting", "random", "--exact", "--json")
    data = json.loads(r.stdout)
    assert data["measure"].startswith("expected result")
    assert data["as_first"]["against_best_response"] == pytest.approx(-0.5, abs=1e-12)
    assert data["as_first"]["game_value"] == 0.0 and not data["as_first"]["perfect"]


def test_best_play_that_scores_for_ever_is_refused_in_one_line(tmp_path):
    (tmp_path / "points.pl").write_text(SCORE.replace("STOPS", "true").replace("AFTER", "start")
                                        .replace("BACK", "1"))
    r = educable(tmp_path, "solve", "points")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "the expected score is unbounded: best play never ends" in r.stderr


@pytest.mark.parametrize("back", [3, 10**12])
def test_a_game_of_score_that_ends_with_certainty_has_its_exact_expected_score(tmp_path, back):
    """Stepping until the coin ends it: 1 point a step, a geometric number of steps of mean BACK + 1."""
    (tmp_path / "points.pl").write_text(SCORE.replace("STOPS", "true").replace("AFTER", "tossing")
                                        .replace("BACK", str(back)))
    data = solved(tmp_path, "points")
    assert data["expected_score"] == pytest.approx(back + 1, rel=1e-12)


def test_sampled_games_of_score_that_never_end_are_counted_as_cut(tmp_path):
    (tmp_path / "points.pl").write_text(SCORE.replace("STOPS", "fail").replace("AFTER", "start")
                                        .replace("BACK", "1"))
    r = educable(tmp_path, "eval", "points", "random", "--games", "2", "--max-moves", "5000", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["cut"] == 2 and data["mean_score"] == data["cut_after"] == 5000
    r = educable(tmp_path, "eval", "points", "random", "--games", "2", "--max-moves", "5000")
    assert "2 of 2 games were cut" in r.stdout and "lower bound" in r.stdout, r.stdout


# -- the solver against brute force on random small games with cycles ------------------------------------
def random_game(seed: int):
    """A random two-player game of chance with cycles: 6 player nodes (2 or 3 moves each, first or second
    player's), 3 chance nodes (2 or 3 outcomes, weights from 1 to 10^k), 3 ends (a win each, a draw)."""
    import numpy as np

    from educable.learners.graph import CHANCE, DRAW, ONGOING, StateGraph
    rng = np.random.default_rng(seed)
    players, chances, ends = 6, 3, 3
    n = players + chances + ends
    mover = np.array([rng.integers(0, 2) for _ in range(players)] + [CHANCE] * chances + [0] * ends, dtype=np.int8)
    winner = np.array([ONGOING] * (players + chances) + [0, 1, DRAW], dtype=np.int8)
    start, target, exact = [0], [], []
    for v in range(players + chances):
        k = int(rng.integers(2, 4))
        tos = rng.choice(n, size=k, replace=False)
        target += [int(t) for t in tos]
        if v >= players:
            w = [10 ** int(x) for x in rng.integers(0, 7, size=k)]
            exact += [Fraction(x, sum(w)) for x in w]
        else:
            exact += [Fraction(1)] * k
        start.append(len(target))
    start += [len(target)] * ends
    graph = StateGraph("random", ["a", "b"], [str(i) for i in range(n)], mover, winner, np.array(start),
                       np.array(target, dtype=np.int64), np.zeros(len(target), dtype=np.int64), ["m"],
                       np.ones(n, dtype=np.int64), prob=np.array([float(p) for p in exact]))
    return graph, exact


def solve_exactly(a: list[list[Fraction]], b: list[Fraction]) -> list[Fraction]:
    """x with a x = b, by Gauss-Jordan elimination in fractions."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        pivot = next(r for r in range(c, n) if m[r][c] != 0)
        m[c], m[pivot] = m[pivot], m[c]
        for r in range(n):
            if r != c and m[r][c] != 0:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


def brute_force_value(graph, exact) -> Fraction:
    """max over the first player's pure stationary policies of min over the second's of the start's
    value (a line that never ends worth 0), each pair solved as a linear system in fractions."""
    import itertools

    from educable.learners.graph import CHANCE, ONGOING
    n = graph.size
    choosers = [v for v in range(n) if graph.winner[v] == ONGOING and graph.mover[v] != CHANCE]
    first = [v for v in choosers if graph.mover[v] == 0]
    second = [v for v in choosers if graph.mover[v] == 1]
    options = {v: range(int(graph.start[v]), int(graph.start[v + 1])) for v in choosers}
    ends = [Fraction(int(w == 0) - int(w == 1)) for w in graph.winner]

    def evaluate(choice: dict) -> Fraction:
        p = [[Fraction(0)] * n for _ in range(n)]
        for v in range(n):
            if graph.winner[v] != ONGOING:
                continue
            edges = [choice[v]] if v in choice else range(int(graph.start[v]), int(graph.start[v + 1]))
            for e in edges:
                p[v][int(graph.target[e])] += exact[e]
        reach = {v for v in range(n) if graph.winner[v] != ONGOING}     # the others never end: worth 0
        while True:
            more = reach | {v for v in range(n) if any(p[v][t] > 0 for t in reach)}
            if more == reach:
                break
            reach = more
        live = [v for v in sorted(reach) if graph.winner[v] == ONGOING]
        if 0 not in live:
            return ends[0] if graph.winner[0] != ONGOING else Fraction(0)
        a = [[Fraction(int(i == j)) - p[i][j] for j in live] for i in live]
        b = [sum((p[i][t] * ends[t] for t in range(n) if graph.winner[t] != ONGOING), Fraction(0)) for i in live]
        return solve_exactly(a, b)[live.index(0)]
    best = Fraction(-2)
    for pick1 in itertools.product(*(options[v] for v in first)):
        worst = Fraction(2)
        for pick2 in itertools.product(*(options[v] for v in second)):
            worst = min(worst, evaluate(dict(zip(first + second, pick1 + pick2, strict=True))))
        best = max(best, worst)
    return best


def brute_force_can_draw(graph) -> bool:
    """A set play can stay in for ever, by trying every set of the positions not over."""
    import itertools

    from educable.learners.graph import CHANCE, DRAW, ONGOING
    if (graph.winner == DRAW).any():
        return True
    live = [v for v in range(graph.size) if graph.winner[v] == ONGOING]
    for size in range(1, len(live) + 1):
        for subset in itertools.combinations(live, size):
            s = set(subset)
            if all((all(int(graph.target[e]) in s for e in graph.edges(v) if graph.prob[e] > 0)
                    if graph.mover[v] == CHANCE else any(int(graph.target[e]) in s for e in graph.edges(v)))
                   for v in s):
                return True
    return False


@pytest.mark.parametrize("seed", range(24))
def test_random_games_with_cycles_solve_to_their_brute_force_value(seed):
    from educable.learners import chance
    graph, exact = random_game(seed)
    assert chance.solve(graph).value[0] == pytest.approx(float(brute_force_value(graph, exact)), abs=1e-12)


@pytest.mark.parametrize("seed", range(24))
def test_whether_a_game_can_be_kept_from_ending_is_found_as_by_trying_every_set(seed):
    from educable.learners import chance
    graph, _ = random_game(seed)
    graph.winner[-1] = 0                    # no drawn end: only play that never ends can draw
    assert chance.can_draw(graph) == brute_force_can_draw(graph)


def test_points_past_the_float_range_are_refused_in_the_same_line_by_check_solve_and_eval(tmp_path):
    huge = str(10**400)
    (tmp_path / "points.pl").write_text(SCORE.replace("STOPS", "true").replace("AFTER", "tossing")
                                        .replace("BACK", "1").replace("step, 1).", f"step, {huge})."))
    line = "points past the float range"
    r = educable(tmp_path, "solve", "points")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and line in r.stderr, r.stderr
    r = educable(tmp_path, "eval", "points", "random", "--games", "2")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and line in r.stderr and "Prolog" not in r.stderr, r.stderr
    r = subprocess.run([EDUCABLE, "--games-dir", str(tmp_path), "check", str(tmp_path / "points.pl")],
                       capture_output=True, text=True, timeout=120)
    assert line in r.stdout and "problem" in r.stdout, r.stdout


def test_weights_too_large_to_add_are_refused_with_the_true_reason(tmp_path):
    (tmp_path / "slow.pl").write_text(SLOW.replace("OUTCOMES", "[again, won]").replace("AGAIN", str(10**30))
                                      .replace("WIN", "1").replace("LOSS", "1"))
    r = educable(tmp_path, "solve", "slow")
    assert r.returncode == 2 and "too large to add up exactly" in r.stderr and "denominator" not in r.stderr, r.stderr


def test_the_librarys_learner_options_are_held_to_their_declared_range(tmp_path):
    import educable as library
    kb = library.KnowledgeBase(tmp_path / "kb.db")
    for workers in (0, 1000):
        with pytest.raises(library.Error, match="from 1 to 64"):
            kb.train("2048(2,2)", "x", learner="ntuple", workers=workers)


LOOP = """
:- module(loop, []).
%   Two players who can only pass: no game ever ends.
game:game(loop).
game:players(loop, [a, b]).
game:initial(loop, here, a).
game:legal(loop, here, _, pass).
game:next(loop, here, _, pass, here).
game:next_mover(loop, here, a, here, b) :- !.
game:next_mover(loop, here, b, here, a).
""" + TEXT_FORMS.replace("GAME", "loop")


def test_sampled_two_player_games_that_never_end_are_counted_as_cut_draws(tmp_path):
    (tmp_path / "loop.pl").write_text(LOOP)
    r = educable(tmp_path, "eval", "loop", "random", "--vs", "random", "--games", "4", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert (data["as_first"]["draw"], data["as_first"]["cut"], data["as_second"]["cut"]) == (2, 2, 2)
    r = educable(tmp_path, "eval", "loop", "random", "--vs", "random", "--games", "4")
    assert "4 of 4 games were cut" in r.stdout and "counted as draws" in r.stdout, r.stdout


@pytest.mark.parametrize("old, new, words", [
    ("game:legal(coin, tossing, chance, tails).", "game:legal(coin, tossing, chance, tails).\ngame:legal(coin, tossing, chance, tails).",
     "tails twice"),
    ("game:next(coin, tossing, chance, Side, Side).", "game:next(coin, tossing, chance, heads, heads).",
     "next/5 fails for chance's outcome tails")])
def test_solve_refuses_an_outcome_of_chance_listed_twice_or_that_leads_nowhere(tmp_path, old, new, words):
    """Counted twice, tails had twice its weight; dropped, heads had its chance: both gave a wrong value."""
    coin = (Path(__file__).resolve().parent.parent / "examples" / "chance" / "coin.pl").read_text()
    assert old in coin
    (tmp_path / "coin.pl").write_text(coin.replace(old, new))
    r = educable(tmp_path, "solve", "coin")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and words in r.stderr, r.stderr


def test_a_file_without_the_text_forms_is_refused_naming_them(tmp_path):
    """A game whose file gives no position_text/4 (and the other text forms) used to end `solve` in an
    internal IndexError (an empty graph) and the library in a bare LookupError: now one line that
    names what is missing, exit 2, from every command and the library alike."""
    (tmp_path / "bare.pl").write_text(LOOP.replace("loop", "bare").split("\ngame:position_text")[0])
    for args in (("solve", "bare"), ("play", "bare", "--opponent", "random"), ("eval", "bare", "random")):
        r = educable(tmp_path, *args)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1, (args, r.stderr)
        assert "no clause for position_text/4, parse_position/4, move_text/3, parse_move/3, board_lines/4" in lines[0]
    code = ("import sys, educable\neducable.load_games(sys.argv[1])\ntry:\n    educable.env('bare')\n"
            "except educable.Error as e:\n    print('Error', e)\n")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "bare.pl")], capture_output=True, text=True, timeout=120)
    assert r.stdout.startswith("Error game 'bare' cannot be played: its file gives no clause for position_text/4"), r


def test_check_holds_cells_to_the_declared_cell_values(tmp_path):
    """cell_values/2 sizes an environment's planes without its graph; a cell at or past it is a problem."""
    game = (LOOP.replace("loop", "celled") + "game:cells(celled, here, _, [0, 3]).\n"
            "game:over(celled, here, _, draw) :- fail.\ngame:cell_values(celled, 3).\n")
    (tmp_path / "celled.pl").write_text(game)
    r = subprocess.run([EDUCABLE, "check", str(tmp_path / "celled.pl")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "cells/4 gives the value 3, past cell_values/2's 3 (values 0 to 2)" in r.stdout, r.stdout


def test_pigs_environment_is_built_without_its_state_graph(tmp_path):
    """Pig gives actions/2, chance_actions/2, cells/4 and cell_values/2: its environment is ready without
    enumerating its two million states (84 s before), and each observation plane says the numbers of the
    position text read apart here: the viewer's score, the opponent's, the turn total, whose turn."""
    code = r"""
import sys, numpy as np
from educable.bridge import graphs
def refused(*a, **k):
    raise AssertionError("the state graph was enumerated")
graphs.state_graph = refused
import educable
env = educable.env('pig')
env.reset(seed=3)
seen = 0
for agent in env.agent_iter():
    obs, _, done, trunc, _ = env.last()
    if done or trunc:
        env.step(None)
        continue
    planes = obs['observation']
    assert planes.shape == (4, 105) and planes.sum(axis=1).max() <= 1
    numbers = [int(np.flatnonzero(row)[0]) + 1 if row.any() else 0 for row in planes]
    s1, s2, k, turn = env.unwrapped._board.state.key.split()[:4]
    own, other = (int(s1), int(s2)) if agent == 'p1' else (int(s2), int(s1))
    assert numbers == [own, other, int(k), 1 if turn == agent else 2], (numbers, env.unwrapped._board.state.key)
    seen += 1
    mask = obs['action_mask']
    env.step(int(np.flatnonzero(mask)[-1]) if seen % 3 else int(np.flatnonzero(mask)[0]))
print(seen)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0 and int(r.stdout) > 20, r.stderr[-2000:]


def test_query_says_what_it_is_doing_while_it_works(tmp_path):
    """A query on a board too large to solve at once names its stage on stderr (every
    EDUCABLE_HEARTBEAT seconds) instead of working in silence (14 s without a word on 6x6 before)."""
    env = {k: v for k, v in os.environ.items() if k not in ("EDUCABLE_DB", "EDUCABLE_GAMES")}
    r = subprocess.run([EDUCABLE, "query", "tictactoe(5,5,5)", "...../...../...../...../.....", "--db", str(tmp_path / "kb.db")],
                       capture_output=True, text=True, timeout=300, env={**env, "EDUCABLE_HEARTBEAT": "0.3"})
    assert r.returncode == 0, r.stderr
    assert "querying tictactoe(5,5,5): still working; enumerating the game below the position" in r.stderr, r.stderr
    assert "too large to solve: searching 5 plies deep" in r.stderr and "within 5 plies (depth-limited" in r.stdout


@pytest.mark.parametrize("learner", ["punish", "qlearn"])
def test_a_training_whose_games_never_end_says_they_were_cut(tmp_path, learner):
    """Games of training still going after 2,000 moves are learned from as draws and reported as cut
    (they were reported "drawn"), and the judgement after the run names its stage."""
    (tmp_path / "loop.pl").write_text(LOOP)
    r = educable(tmp_path, "train", "loop", "--agent", "a", "--learner", learner, "--games", "3", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["results"] == {"cut": 3}
    r = educable(tmp_path, "train", "loop", "--agent", "b", "--learner", learner, "--games", "2")
    assert "results: 2 never ended (cut after 2,000 moves and learned from as draws)" in r.stdout, r.stdout


COUNT = """
:- module(count, []).
%   Two players count up by one or two to a million: half a million positions and more, no actions/2.
game:game(count).
game:players(count, [a, b]).
game:initial(count, 0, a).
game:legal(count, N, _, K) :- member(K, [1, 2]), N + K =< 1000000.
game:next(count, N, _, K, N1) :- N1 is N + K.
game:over(count, 1000000, M, M).
""" + TEXT_FORMS.replace("GAME", "count")


def test_an_environment_of_a_large_game_without_actions_is_refused_past_a_small_graph(tmp_path):
    """Without actions/2 an environment numbers the moves over the state graph: past 100,000 positions
    (unless max_positions or $EDUCABLE_MAX_POSITIONS says otherwise: 5,000 here, where the 100,000 took 5 s
    of the suite's CPU) it is refused in one line that names actions/2, instead of enumerating toward the
    5,000,000 of the commands' limit for minutes."""
    (tmp_path / "count.pl").write_text(COUNT)
    code = ("import sys, educable\neducable.load_games(sys.argv[1])\ntry:\n    educable.env('count')\n"
            "except educable.Error as e:\n    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "count.pl")], capture_output=True, text=True,
                       timeout=300, env={**os.environ, "EDUCABLE_MAX_POSITIONS": "5000"})
    assert r.returncode == 0, r.stderr
    assert "count is too large" in r.stdout and "actions/2" in r.stdout and "limit of 5,000" in r.stdout, r.stdout


@pytest.mark.parametrize("values", ["1000000000", "2.5", "-3"])
def test_an_environment_refuses_cell_values_it_cannot_hold(tmp_path, values):
    """cell_values/2 sizes an observation's planes: a billion (a plane a value) or a value that is no
    whole number is refused in one line, not allocated."""
    (tmp_path / "celled.pl").write_text(LOOP.replace("loop", "celled") + "game:cells(celled, here, _, [0, 1]).\n"
                                        f"game:cell_values(celled, {values}).\n")
    code = ("import sys, educable\neducable.load_games(sys.argv[1])\ntry:\n    educable.env('celled')\n"
            "except educable.Error as e:\n    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "celled.pl")], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"cell_values/2 of celled gives {values}: ") and "from 1 to 10,000" in r.stdout, r.stdout


def test_an_environments_max_positions_that_is_no_count_is_refused_in_one_line(tmp_path):
    """max_positions= of the library is held as --max-positions is: 2.5 (an AttributeError before),
    True, a non-ASCII number, an option-like text and a huge number each give educable.Error."""
    code = ("import educable\nfor v in (2.5, True, '\\u0661\\u0660\\u0660', '--db x', 10**30):\n    try:\n"
            "        educable.env('tictactoe', max_positions=v)\n        print('built')\n"
            "    except educable.Error as e:\n        print('refused' if 'whole number of positions' in str(e) else e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["refused"] * 5, r.stdout
