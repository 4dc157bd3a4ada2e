"""Games where a player moves twice in a row (dots and boxes: completing a box earns another
move).  Every part of educable that follows the turn (the compiled graph, the exact values, the
built-in opponents, the learners, the play loop) is checked against the independent reference
of tests/reference_families.py, whose player who completes a box keeps the turn."""
import json
from fractions import Fraction
from functools import lru_cache

import pytest

from conftest import assert_adversary_remembers, cli_json
from educable.bridge import games
from educable.bridge.engine import engine, quote
from educable.bridge.session import PlaySession
from educable.kb import store
from educable.kb.db import open_kb
from reference_families import boxes
from reference_games import reachable, solve

GAME = "boxes(1,2)"          # 143 states; a draw under perfect play


@pytest.fixture(scope="module")
def ref():
    r = boxes(1, 2)
    return r, reachable(r), solve(r)


def optimal_moves(ref_tuple, key):
    r, states, solved = ref_tuple
    return {m for m, n in r["moves"](states[key]).items() if solved[r["key"](n)] == solved[key]}


def extra_turn_states(ref_tuple):
    """Keys of states where some move keeps the turn."""
    r, states, _ = ref_tuple
    return [k for k, s in states.items() if any(n[-1] == s[-1] for n in r["moves"](s).values())]


@pytest.mark.parametrize("chooser", ["minimax", "alphabeta(12)"])
def test_built_in_opponents_choose_only_best_moves(ref, chooser):
    """minimax (the tabled solver) and a full-depth alpha-beta pick, in every state, only moves
    that keep the reference value: a sign taken wrongly after an extra turn would pick losing ones."""
    _, states, _ = ref
    keys = [k for k in states if ref[0]["moves"](states[k])]
    assert len(extra_turn_states(ref)) > 10
    table = engine().call(f"graph:keys_policy({quote(GAME)}, {chooser}, [{', '.join(map(quote, keys))}], Out)")
    for key, picked in zip(keys, table):
        assert picked and set(picked) <= optimal_moves(ref, key), (key, picked)


def test_mcts_beats_random_from_the_side_that_wins(kb):
    """boxes(2,2) is a win for the first player; Monte Carlo tree search, which credits each move
    to the player who made it, wins nearly every game against random play."""
    out = cli_json("eval", "boxes(2,2)", "mcts:200", "--vs", "random", "--games", "10", "--seed", "1")
    assert out["as_first"]["loss"] == 0 and out["as_first"]["win"] + out["as_second"]["win"] >= 8, out


def test_adversary_win_chance_is_the_exact_best_reply_to_random(ref):
    """The adversary's win chance against a uniformly random victim, from the start, equals the
    value computed by recursion over the reference (its own best move, the victim's average)."""
    r, states, _ = ref

    @lru_cache(maxsize=None)
    def chance(key, me):
        s = states[key]
        res = r["result"](s)
        if res:
            return Fraction(1 if res == me else 0)
        nexts = [r["key"](n) for n in r["moves"](s).values()]
        vals = [chance(k, me) for k in nexts]
        return max(vals) if s[-1] == me else sum(vals) / len(vals)

    start = r["key"](r["initial"])
    for me in ("a", "b"):
        got = engine().call(f"game:parse_position({quote(GAME)}, {quote(start)}, P, M), "
                            f"adversary:win_chance({quote(GAME)}, P, M, {me}, random, Out)")
        assert got == pytest.approx(float(chance(start, me)), abs=1e-9), me


def test_qlearning_self_play_becomes_perfect(kb):
    cli_json("train", GAME, "--learner", "qlearn", "--agent", "q", "--games", "3000", "--seed", "1")
    out = cli_json("eval", GAME, "q", "--exact")
    assert out["as_first"]["perfect"] and out["as_second"]["perfect"], out


def test_punishment_values_are_kept_for_the_player_who_moved(ref, kb, db_path):
    """Each value the punishment learner stores is for the player who moved into the position,
    which after a completed box is the player to move there too."""
    r, states, _ = ref
    cli_json("train", GAME, "--learner", "punish", "--agent", "p", "--games", "300", "--vs", "self", "--seed", "2",
             "--punish", "all", "--reward", "1")
    movers_into: dict[str, set[str]] = {}
    for s in states.values():
        for n in r["moves"](s).values():
            movers_into.setdefault(r["key"](n), set()).add(s[-1])
    rows = store.load_values(open_kb(db_path), "p")
    assert len(rows) > 10
    assert all(view in movers_into[key] for key, view, _, _ in rows), rows
    assert any(key.endswith(view) for key, view, _, _ in rows)       # some kept for a player moving again


def test_a_player_who_completes_a_box_moves_again_in_play(ref, kb, db_path):
    """In a game against a person, the person who completes a box is asked for another move; the
    stored match replays, move for move, as a legal game of the reference."""
    r, states, _ = ref
    db = open_kb(db_path)
    session = PlaySession(db, GAME, "random", "a", seed=3)
    extra = 0
    while session.result is None:
        if session.human_to_move:
            s = states[session.state.key]
            keeping = [m for m, n in r["moves"](s).items() if n[-1] == "a"]
            session.human_move((keeping or sorted(r["moves"](s), key=int))[0])
            extra += bool(keeping) and session.result is None
        else:
            session.computer_move()
    session.finish()
    assert extra >= 1
    match = db.execute("SELECT moves, result FROM matches ORDER BY id DESC LIMIT 1").fetchone()
    s = r["initial"]
    for move in json.loads(match[0]):
        s = r["moves"](s)[move]
    assert r["result"](s) == match[1]


def test_the_start_moves_and_states_name_who_moves_next(ref):
    r, states, _ = ref
    for key, s in list(states.items())[:60]:
        expected = {m: r["key"](n) for m, n in r["moves"](s).items()}
        got = {m: nxt.key for m, nxt in games.moves(games.parse(GAME, key))}
        assert got == expected
        assert all(nxt.mover == nxt.key.split()[-1] for _, nxt in games.moves(games.parse(GAME, key)))


def test_remembering_adversary_equals_a_fresh_search_where_turns_repeat(ref):
    """The adversary keeps its chances between games of training and recomputes only what a
    changed value reaches; here a player who completes a box moves again, so a state's parent can
    be the same player's.  After every game, its chance in each state where it moves equals a
    search over the reference, asking the learning victim only for its current candidates."""
    assert_adversary_remembers(GAME, ref[0], "a", "b", {"punish": "all", "reward": 1.0}, 20, at_least=21)
