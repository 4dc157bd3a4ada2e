"""Q-learning (the CA425 practical): each update rule's arithmetic, illegal actions, tables, learning, storage, errors."""
import sqlite3

import pytest
from click.testing import CliRunner

from bridge import agents, commands, games
from kb import store
from bridge.engine import BadInput
from cli import main
from learners import exact
from learners.qlearn import QOptions, QTable, train
from conftest import kb_dump


def one_game(graph, **kw):
    """X learns, O plays the first legal move always; one greedy game (ties at random, seeded)."""
    first_move = [list(graph.edges(s))[:1] for s in range(graph.size)]
    table = QTable(graph, QOptions(epsilon=0.0, epsilon_end=0.0, **kw).check())
    (winner,) = train(table, [[0]], first_move, 1, seed=3)
    return table, winner


def touched(table):
    return {(table.x_label(int(r)), table.actions[int(a)]): float(table.q[r, a])
            for r, a in zip(*((table.n > 0) | (table.q != 0)).nonzero())}


def reward_for_x(graph, winner):
    return 0.0 if winner == 2 else (1.0 if winner == 0 else -1.0)


def test_assign_sets_only_the_final_move_to_the_reward(graphs):
    table, w = one_game(graphs["tictactoe"], update="assign")
    vals = touched(table)
    assert list(vals.values()) == [reward_for_x(graphs["tictactoe"], w)]


def test_average_updates_every_move_towards_its_feedback(graphs):
    g = graphs["tictactoe"]
    table, w = one_game(g, update="average")
    vals = touched(table)
    assert sorted(vals.values()) == sorted([0.0] * (len(vals) - 1) + [reward_for_x(g, w)])
    assert int(table.n.sum()) == len(vals)  # each move once, alpha = 1/1


def test_lookahead_with_empty_table_gives_reward_at_the_end_only(graphs):
    g = graphs["tictactoe"]
    table, w = one_game(g, update="lookahead", gamma=0.5)
    assert sorted(touched(table).values()) == sorted([0.0] * (len(touched(table)) - 1) + [reward_for_x(g, w)])


def test_negamax_replays_backwards_through_both_sides(graphs):
    """The last move gets r; the opponent's move before it gets -gamma * r (its best reply value negated)."""
    g = graphs["tictactoe"]
    table, w = one_game(g, update="negamax", gamma=0.5)
    assert w == 0  # X beats an opponent that always takes the first empty square
    vals = sorted(touched(table).values())
    assert vals[-1] == 1.0 and vals[0] == -0.5
    assert all(v == 0.0 for v in vals[1:-1])


def test_illegal_lose_punishes_illegal_actions_and_resample_never_tries_them(graphs):
    g = graphs["tictactoe"]
    lose = QTable(g, QOptions(illegal="lose", update="average", epsilon=1.0, epsilon_end=1.0).check())
    results = train(lose, [[0, 1]], None, 300, seed=1)
    assert len(results) == 300
    illegal = [(s, a) for s in range(g.size) for a in range(9)
               if str(a + 1) not in {g.move_text[e] for e in g.edges(s)} and lose.n[s, a] > 0]
    assert illegal and all(lose.q[s, a] == -1.0 for s, a in illegal)
    resample = QTable(g, QOptions(illegal="resample", update="average").check())
    train(resample, [[0, 1]], None, 300, seed=1)
    assert not any(resample.n[s, a] for s in range(g.size) for a in range(9)
                   if str(a + 1) not in {g.move_text[e] for e in g.edges(s)})


def test_illegal_stay_is_bounded(graphs):
    g = graphs["tictactoe"]
    table = QTable(g, QOptions(illegal="stay", update="lookahead", max_stay=3, epsilon=0.0, epsilon_end=0.0).check())
    assert len(train(table, [[0, 1]], None, 200, seed=2)) == 200


def test_full_table_is_the_seeds_enumeration(kb):
    r = commands.train(kb, "tictactoe", "qlearn", "full", 200, "self", "both", 1, {"table": "full"})
    e = r["enumeration"]
    assert (e["boards"], e["actions"], e["entries"]) == (19683, 9, 177147)
    assert e["reachable_states"] == 5478 and e["reachable_boards"] == 5478


def test_self_play_until_perfect_and_prolog_plays_what_python_learned(kb, graphs):
    r = commands.train(kb, "tictactoe", "qlearn", "q", 80000, "self", "both", 1, {}, until_perfect=True)
    assert r["games"] < 80000
    assert r["exact"]["as_first"]["guaranteed"] == "draw" and r["exact"]["as_first"]["perfect"]
    assert r["exact"]["as_second"]["guaranteed"] == "draw" and r["exact"]["as_second"]["perfect"]
    # the Prolog agent's candidates equal the learner's greedy choices everywhere
    g = graphs["tictactoe"]
    from kb import store
    from bridge.qlearn import make_table, options_from
    table = make_table(g, options_from(store.get_agent(kb, "q")["params"]))
    table.restore(store.load_values(kb, "q"))
    assert agents.support(kb, g, "q") == table.greedy_support()
    p = commands.evaluate_exact(kb, "tictactoe", "q", "random")
    assert p["as_first"]["loss"] == 0 and p["as_second"]["loss"] == 0
    assert p["as_first"]["win"] <= 0.9948 and p["as_second"]["win"] <= 0.9164  # the never-losing ceilings


def test_generic_on_hexapawn(kb):
    r = commands.train(kb, "hexapawn", "qlearn", "hq", 3000, "self", "both", 1, {})
    assert r["exact"]["as_second"] == {"guaranteed": "win", "perfect": True, "mistakes": 0, "subgame_perfect": True}


def test_a_later_run_continues_the_table(kb):
    commands.train(kb, "hexapawn", "qlearn", "c", 50, "random", "both", 1, {})
    before = {r[0] for r in kb.execute("SELECT position FROM learned_values WHERE agent='c'")}
    r = commands.train(kb, "hexapawn", "qlearn", "c", 50, "random", "both", 2, {})
    after = {r[0] for r in kb.execute("SELECT position FROM learned_values WHERE agent='c'")}
    assert before <= after
    assert kb.execute("SELECT games_trained FROM agents WHERE name='c'").fetchone()[0] == 100


@pytest.mark.parametrize("args, words", [
    (["--gamma", "1.5"], "--gamma must be in [0, 1]"),
    (["--alpha", "0"], "--alpha must be in (0, 1]"),
    (["--games", "0"], "at least 1"),
    (["--update", "magic"], "--update must be one of"),
    (["--illegal", "ignore"], "--illegal must be one of"),
    (["--vs", "adversary"], "adversary is for the punish learner"),
    (["--step", "2"], "--step is not an option of the qlearn learner"),
    (["--agent", "p"], "made by learner 'punish'"),
])
def test_bad_input_one_line_exit_2_kb_untouched(db_path, args, words):
    r = CliRunner()
    assert r.invoke(main, ["train", "tictactoe", "--learner", "qlearn", "--agent", "q", "--games", "10"]).exit_code == 0
    assert r.invoke(main, ["train", "tictactoe", "--agent", "p", "--games", "2"]).exit_code == 0
    before = kb_dump(db_path)
    cmd = ["train", "tictactoe", "--learner", "qlearn", "--agent", "q", *args]
    out = r.invoke(main, cmd)
    assert out.exit_code == 2, out.output
    assert words in out.output and len(out.output.strip().splitlines()) == 1
    assert kb_dump(db_path) == before


def test_interrupted_run_keeps_the_last_committed_table(kb, db_path):
    commands.train(kb, "tictactoe", "qlearn", "q", 100, "self", "both", 1, {})
    before = kb_dump(db_path)

    def interrupt(n):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        commands.train(kb, "tictactoe", "qlearn", "q", 5000, "self", "both", 2, {}, progress=interrupt)
    assert kb_dump(db_path) == before


def test_q_support_on_the_graph_is_the_prolog_agents_play(kb):
    """eval --exact reads a Q agent's play off the graph; it must be what the Prolog agent plays."""
    from bridge import agents, graphs, qlearn as q_bridge
    from learners import exact as exact_mod
    commands.train(kb, "tictactoe", "qlearn", "qs", 300, "random", "both", 4, {})
    graph = graphs.state_graph(kb, "tictactoe")
    row = store.get_agent(kb, "qs")
    by_prolog = exact_mod.support_from_moves(graph, games.policy_table(graph, agents.chooser(kb, "tictactoe", "qs")))
    assert [sorted(s) for s in q_bridge.support(kb, row, graph)] == [sorted(s) for s in by_prolog]
    by_prolog = exact_mod.support_from_moves(graph, games.policy_table(graph, "minimax"))
    assert [sorted(s) for s in agents.support(kb, graph, "minimax")] == [sorted(s) for s in by_prolog]
