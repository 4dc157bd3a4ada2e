"""Exact judgement of play against the known facts and a separate reference."""

import pytest

from educable.learners import exact
from reference_games import GAMES, random_play_probabilities


def test_random_vs_random_tictactoe_is_the_known_exact_distribution(graphs):
    g = graphs["tictactoe"]
    p = exact.outcome_probabilities(g, exact.all_moves(g), exact.all_moves(g))
    assert round(100 * p["x"], 3) == 58.492
    assert round(100 * p["o"], 3) == 28.810
    assert round(100 * p["draw"], 3) == 12.698


def test_random_vs_random_hexapawn_white_wins_59_95_percent(graphs):
    g = graphs["hexapawn"]
    p = exact.outcome_probabilities(g, exact.all_moves(g), exact.all_moves(g))
    assert round(100 * p["white"], 2) == 59.95
    assert p["draw"] == 0


@pytest.mark.parametrize("game", ["tictactoe", "hexapawn"])
def test_probabilities_agree_with_reference_fractions(graphs, game):
    g = graphs[game]
    ref = random_play_probabilities(GAMES[game])
    p = exact.outcome_probabilities(g, exact.all_moves(g), exact.all_moves(g))
    for result, frac in ref.items():
        assert p[result] == pytest.approx(float(frac), abs=1e-12)


def test_game_values(graphs):
    assert graphs["tictactoe"].game_value(0) == 0
    assert graphs["hexapawn"].game_value(1) == 1  # black, the second player, wins


def test_minimax_is_perfect_and_random_is_not(graphs):
    for g in graphs.values():
        opt = exact.optimal_moves(g)
        for side in (0, 1):
            r = exact.guarantee(g, side, opt)
            assert r.perfect and r.subgame_perfect
    t = graphs["tictactoe"]
    assert exact.guarantee(t, 0, exact.all_moves(t)).guaranteed == "loss"


def test_never_losing_ceilings_against_random(graphs):
    """The issue's ceilings: a never-losing X wins at most 99.48% against random, O 91.64%."""
    g = graphs["tictactoe"]
    import numpy as np
    # best win probability against uniform random among never-losing strategies, by recursion
    order = g.order_leaves_first()
    best = {0: np.zeros(g.size), 1: np.zeros(g.size)}
    for side in (0, 1):
        safe = np.zeros(g.size, dtype=bool)
        for s in order:
            if g.is_terminal(s):
                safe[s] = g.outcome_for(s, side) >= 0
                best[side][s] = 1.0 if g.outcome_for(s, side) == 1 else 0.0
                continue
            kids = [int(g.target[e]) for e in g.edges(s)]
            if int(g.mover[s]) == side:
                ok = [k for k in kids if safe[k]]
                safe[s] = bool(ok)
                best[side][s] = max((best[side][k] for k in ok), default=0.0)
            else:
                safe[s] = all(safe[k] for k in kids)
                best[side][s] = float(np.mean([best[side][k] for k in kids]))
    assert round(100 * best[0][0], 2) == 99.48
    assert round(100 * best[1][0], 2) == 91.64


def test_guarantee_detects_a_single_blunder(graphs):
    """Minimax everywhere except one reachable state where X may also pick a losing move."""
    g = graphs["tictactoe"]
    sup = exact.optimal_moves(g)
    # after 1 (x in the corner) and o in the adjacent edge 2, x has a forced win; allow every move there
    s = g.index["xo./.../..."]
    sup[s] = list(g.edges(s))
    r = exact.guarantee(g, 0, sup)
    assert r.guaranteed == "draw"  # o cannot force a win from here; x keeps the draw
    assert r.mistakes >= 1 and not r.subgame_perfect
    # O is the one who errs: allow O to play anything at the start reply; it can lose
    sup2 = exact.optimal_moves(g)
    after = g.index["x../.../..."]
    sup2[after] = list(g.edges(after))
    r2 = exact.guarantee(g, 1, sup2)
    assert r2.guaranteed == "loss" and not r2.perfect


def test_agents_that_choose_alike_in_symmetric_positions_are_judged_on_the_classes(tmp_path):
    """Past the position limit of every position, random, minimax, a folded Q-learner, an n-tuple
    agent and alpha-beta searches (plain, or led by that agent) are judged on the graph of symmetry classes, with the same results as on every
    position (computed on the graph of every position, in a knowledge base that has it) and random against
    random at the known 737/1260, 160/1260, 363/1260; a punishment agent, which may choose
    differently in symmetric positions, is refused in one line that says why."""
    import json
    import shutil
    import sqlite3

    from conftest import cli
    whole, classes = tmp_path / "whole.db", tmp_path / "classes.db"

    def educable(db, *args):            # in-process: two dozen commands, each would start Prolog again
        r = cli(*args, "--db", str(db))
        return r.exit_code, (json.loads(r.stdout) if r.exit_code == 0 and "--json" in args else r.stderr)

    for args in (["--learner", "qlearn", "--fold", "--agent", "qf", "--games", "300"],
                 ["--learner", "ntuple", "--agent", "nt", "--games", "300"], ["--agent", "p", "--games", "30"]):
        assert educable(whole, "train", "tictactoe", *args, "--seed", "1")[0] == 0
    shutil.copy(whole, classes)
    with sqlite3.connect(classes) as conn:              # the agents stay, the graphs go
        conn.executescript("DELETE FROM graphs; DELETE FROM games; DELETE FROM positions;")
    from educable.bridge import agents, graphs
    from educable.kb.db import open_kb
    kb = open_kb(whole)
    every = graphs.state_graph(kb, "tictactoe")                   # judged on every position, for reference

    def on_every_position(agent, vs):
        mine = agents.support(kb, every, agent)
        if vs is None:
            return {side: exact.guarantee(every, p, mine).as_dict() for side, p in (("as_first", 0), ("as_second", 1))}
        theirs = agents.support(kb, every, vs)
        p1, p2 = exact.outcome_probabilities(every, mine, theirs), exact.outcome_probabilities(every, theirs, mine)
        return {"as_first": {"win": p1["x"], "draw": p1["draw"], "loss": p1["o"]},
                "as_second": {"win": p2["o"], "draw": p2["draw"], "loss": p2["x"]}}

    for agent, vs in (("random", None), ("minimax", None), ("qf", None), ("nt", None), ("random", "random"),
                      ("qf", "random"), ("nt", "minimax"), ("alphabeta:1+nt", None), ("alphabeta:1", "qf")):
        more = ["--vs", vs] if vs else []
        full = on_every_position(agent, vs)
        code, solved = educable(whole, "eval", "tictactoe", agent, "--exact", *more, "--json")
        assert code == 0 and solved["folded"] is True          # the classes, even where every position is stored
        code, folded = educable(classes, "eval", "tictactoe", agent, "--exact", *more, "--json",
                                "--max-positions", "1000")
        assert code == 0, folded
        assert folded["folded"] is True
        for side in ("as_first", "as_second"):
            assert solved[side] == folded[side]
            if vs:
                assert folded[side] == pytest.approx(full[side], abs=1e-12)
            else:
                assert (folded[side]["guaranteed"], folded[side]["perfect"]) == (full[side]["guaranteed"],
                                                                                 full[side]["perfect"])
                assert folded[side]["mistakes"] == full[side]["mistakes"]     # a class counts its positions
    code, rr = educable(classes, "eval", "tictactoe", "random", "--exact", "--vs", "random", "--json",
                        "--max-positions", "1000")
    assert rr["as_first"] == pytest.approx({"win": 737 / 1260, "draw": 160 / 1260, "loss": 363 / 1260}, abs=1e-12)
    r = cli("eval", "tictactoe", "random", "--exact", "--max-positions", "1000", "--db", str(classes))
    assert "it may throw a position's value away in" in r.stdout
    for odd in ("p", "mcts:20+nt"):                    # may choose differently in symmetric positions
        code, message = educable(classes, "eval", "tictactoe", odd, "--exact", "--json", "--max-positions", "1000")
        assert code == 2 and len(message.strip().splitlines()) == 1, message
        assert f"judging {odd} exactly needs every position" in message


def test_solve_compiles_the_classes_only_and_judging_random_play_uses_them(tmp_path):
    """solve on a game with symmetries compiles its classes, not every position; judging random
    play exactly then runs on them, with the probabilities of random play on every position (from
    the reference written in the tests), and only an agent that may play symmetric positions
    differently makes the graph of every position."""
    from educable.bridge import commands
    from educable.kb.db import open_kb
    from reference_families import in_a_row
    game = "connect(3,4,3)"
    db = open_kb(tmp_path / "kb.db")
    assert commands.solve(db, game)["folded"] is True
    def every_position_stored():
        return db.conn.execute("SELECT count(*) FROM graphs WHERE game = ? AND folded = 0", (game,)).fetchone()[0] > 0

    assert not every_position_stored()
    r = commands.evaluate_exact(db, game, "random", "random")
    assert r["folded"] is True and not every_position_stored()
    want = random_play_probabilities(in_a_row(3, 4, 3, True))
    assert r["as_first"] == pytest.approx({"win": float(want["x"]), "draw": float(want.get("draw", 0)),
                                           "loss": float(want["o"])}, abs=1e-12)
    commands.train(db, game, "punish", "p", 5, "random", "first", 1, {})
    assert commands.evaluate_exact(db, game, "p")["folded"] is False
    assert every_position_stored()


def test_a_mask_of_chosen_edges_is_judged_as_the_support_it_marks(graphs):
    """A learner's greedy choices may come as a mask over the edges (exact.Chosen): the support it
    marks is, state by state, the edges it marks in order (every edge: the random player's, the
    perfect player's edges: the minimax support), and a curve point judged from the mask equals
    one judged from the lists."""
    import numpy as np
    g = graphs["tictactoe"]
    assert exact.support_of(g, np.ones(len(g.target), dtype=bool)) == exact.all_moves(g)
    perfect = np.array([g.value_after(e) == int(g.value[s]) for s in range(g.size) for e in g.edges(s)])
    assert exact.support_of(g, perfect) == exact.optimal_moves(g)
    rng = np.random.default_rng(5)
    some = perfect | (rng.random(len(g.target)) < 0.2)
    assert exact.checkpoint(g, some, 7) == exact.checkpoint(g, exact.support_of(g, some), 7)
    assert exact.checkpoint(g, perfect, 7)["as_second"]["perfect"]
    assert not exact.checkpoint(g, np.ones(len(g.target), dtype=bool), 7)["as_first"]["perfect"]
