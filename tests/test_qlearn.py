"""Q-learning (the CA425 practical): each update rule's arithmetic, illegal actions, tables, learning, storage, errors."""

import pytest
from click.testing import CliRunner

import reference_games
from conftest import kb_dump
from educable.bridge import agents, commands, games
from educable.cli import main
from educable.kb import store
from educable.learners import exact
from educable.learners.qlearn import QOptions, QTable, train


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
    assert r["games"] < 80000 and r["games"] % 500 == 0       # it stops at a checkpoint, at most 500 games apart
    assert r["exact"]["as_first"]["guaranteed"] == "draw" and r["exact"]["as_first"]["perfect"]
    assert r["exact"]["as_second"]["guaranteed"] == "draw" and r["exact"]["as_second"]["perfect"]
    # the Prolog agent's candidates equal the learner's greedy choices everywhere
    g = graphs["tictactoe"]
    from educable.bridge.qlearn import make_table, options_from
    from educable.kb import store
    table = make_table(g, options_from(store.get_agent(kb, "q")["params"]))
    table.restore(store.load_values(kb, "q", bounds=True))
    by_prolog = exact.support_from_moves(g, games.policy_table(g, agents.chooser(kb, "tictactoe", "q")))
    assert [sorted(s) for s in by_prolog] == [sorted(s) for s in table.greedy_support()]
    p = commands.evaluate_exact(kb, "tictactoe", "q", "random")
    assert p["as_first"]["loss"] == 0 and p["as_second"]["loss"] == 0
    # the default agent (bounds, ties broken by the score against random) wins nearly as often as a
    # never-losing player can, computed apart in the reference
    for side, player, floor in (("as_first", "x", 0.99), ("as_second", "o", 0.90)):
        ceiling = float(reference_games.best_safe_wins(reference_games.TTT, player))
        assert floor <= p[side]["win"] <= ceiling + 1e-12


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
    (["--vs", "adversary"], "adversary is for the punish and ntuple learners"),
    (["--step", "2"], "--step is not an option of the qlearn learner"),
    (["--agent", "p"], "made by learner 'punish'"),
    (["--alpha", "0.5"], "--alpha does not apply to --update bounds"),
    (["--table", "full"], "--fold needs --table reachable"),
    (["--illegal", "lose"], "--update bounds needs --illegal resample"),
    (["--agent", "new", "--fold", "--illegal", "stay"], "--fold needs --illegal resample"),
    (["--agent", "new", "--update", "bounds", "--illegal", "stay"], "--update bounds needs --illegal resample"),
    (["--epsilon", "1.5"], "--epsilon must be in [0, 1]"),
    (["--agent", "new", "--update", "expected"], "tictactoe has no chance: --update expected is for games of chance"),
])
def test_bad_input_one_line_exit_2_kb_untouched(db_path, made, args, words):
    r = CliRunner()
    made((("train", "tictactoe", "--learner", "qlearn", "--agent", "q", "--games", "10"),
          ("train", "tictactoe", "--agent", "p", "--games", "2")), db_path)      # made once, copied per case
    before = kb_dump(db_path)
    cmd = ["train", "tictactoe", "--learner", "qlearn", "--agent", "q", *args]
    out = r.invoke(main, cmd)
    assert out.exit_code == 2, out.output
    assert words in out.output and len(out.output.strip().splitlines()) == 1
    assert kb_dump(db_path) == before


def test_interrupted_run_keeps_the_last_committed_table(kb, db_path):
    commands.train(kb, "tictactoe", "qlearn", "q", 100, "self", "both", 1, {})
    before = kb_dump(db_path)

    def interrupt(n, stage=None):        # at the first game (a stage, such as compiling the graph, has none)
        if n:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        commands.train(kb, "tictactoe", "qlearn", "q", 5000, "self", "both", 2, {}, progress=interrupt)
    assert kb_dump(db_path) == before


def test_q_support_on_the_graph_is_the_prolog_agents_play(kb):
    """eval --exact reads a Q agent's play off the graph; it must be what the Prolog agent plays."""
    from educable.bridge import agents, graphs
    from educable.bridge import qlearn as q_bridge
    from educable.learners import exact as exact_mod
    commands.train(kb, "tictactoe", "qlearn", "qs", 300, "random", "both", 4, {})
    graph = graphs.state_graph(kb, "tictactoe")
    row = store.get_agent(kb, "qs")
    by_prolog = exact_mod.support_from_moves(graph, games.policy_table(graph, agents.chooser(kb, "tictactoe", "qs")))
    assert [sorted(s) for s in q_bridge.support(kb, row, graph)] == [sorted(s) for s in by_prolog]
    by_prolog = exact_mod.support_from_moves(graph, games.policy_table(graph, "minimax"))
    assert [sorted(s) for s in agents.support(kb, graph, "minimax")] == [sorted(s) for s in by_prolog]


# -- folding by symmetry, bounds and the tie-break ---------------------------------------------
def ttt_class(board: str) -> str:
    """The least of a board's eight images (rotations and reflections), written here apart from
    the game files' symmetry/3."""
    grid = [board[0:3], board[3:6], board[6:9]]
    images = []
    for _ in range(4):
        grid = ["".join(grid[2 - c][r] for c in range(3)) for r in range(3)]   # a quarter turn
        images += ["".join(grid), "".join(row[::-1] for row in grid)]          # and its mirror
    return min(images)


def test_folded_table_has_one_row_per_class_and_one_column_per_class_of_afterstate(graphs):
    from educable.bridge.qlearn import make_table
    g = graphs["tictactoe"]
    table = make_table(g, QOptions(fold=True).check())
    states = reference_games.reachable(reference_games.TTT)
    classes = {ttt_class(s[0]) for s in states.values()}
    assert len(classes) == 765 == table.n_rows        # the 765 essentially different positions
    for s, key in enumerate(g.keys):
        after = {ttt_class(n[0]) for n in reference_games.ttt_moves(states[key]).values()}
        assert {k.replace("/", "") for k in table.fold_columns(table.rows[s])} == after, key
    # symmetric states share a row: the four corners' openings are one entry
    corners = {table.rows[g.index[k]] for k in ("x../.../...", "..x/.../...", ".../.../x..", ".../.../..x")}
    assert len(corners) == 1
    assert len(table.fold_columns(table.rows[0])) == 3   # the opening: a corner, an edge or the centre


def test_hexapawn_folds_by_its_mirror(graphs):
    from educable.bridge.qlearn import make_table
    g = graphs["hexapawn"]
    table = make_table(g, QOptions(fold=True).check())
    states = reference_games.reachable(reference_games.HEX)

    def mirror(sq):
        r, c = (sq - 1) // 3, (sq - 1) % 3
        return r * 3 + (2 - c) + 1

    def cls(s):
        w, b, m = s
        return min((tuple(sorted(w)), tuple(sorted(b)), m),
                   (tuple(sorted(map(mirror, w))), tuple(sorted(map(mirror, b))), m))
    assert table.n_rows == len({cls(s) for s in states.values()}) < g.size


@pytest.mark.parametrize("seed", [2, 3])
def test_bounds_are_perfect_on_tictactoe_within_1000_self_play_games(kb, seed):
    r = commands.train(kb, "tictactoe", "qlearn", "b", 1000, "self", "both", seed, {}, until_perfect=True)
    assert r["options"]["update"] == "bounds" and r["options"]["fold"] is True
    assert r["exact"]["as_first"]["perfect"] and r["exact"]["as_second"]["perfect"]
    assert r["games"] < 1000


def test_bounds_on_hexapawn_and_the_prolog_agent_plays_as_the_table(kb, graphs):
    r = commands.train(kb, "hexapawn", "qlearn", "h", 300, "self", "both", 1, {}, until_perfect=True)
    assert r["exact"]["as_second"] == {"guaranteed": "win", "perfect": True, "mistakes": 0, "subgame_perfect": True}
    assert r["exact"]["as_first"]["perfect"]
    g = graphs["hexapawn"]
    by_prolog = exact.support_from_moves(g, games.policy_table(g, agents.chooser(kb, "hexapawn", "h")))
    by_table = agents.support(kb, g, "h")
    assert [sorted(s) for s in by_prolog] == [sorted(s) for s in by_table]


def test_learned_bounds_hold_the_exact_value_between_them(kb, graphs):
    """Every entry learned so far, mid-training: lower bound <= the solved value <= upper bound
    (the reference's own solver), and an entry whose bounds met is that value."""
    from educable.bridge.qlearn import make_table, options_from
    commands.train(kb, "tictactoe", "qlearn", "mid", 60, "self", "both", 5, {})
    g = graphs["tictactoe"]
    table = make_table(g, options_from(store.get_agent(kb, "mid")["params"]))
    table.restore(store.load_values(kb, "mid", bounds=True))
    solved = reference_games.solve(reference_games.TTT)
    met = checked = 0
    for e in range(len(g.move_text)):
        s, y = int(g.source[e]), int(g.target[e])
        r, c = table.rows[s], int(table.edge_cols[e])
        if table.n[r, c] == 0:
            continue
        mover = g.players[int(g.mover[s])]
        truth = 0 if solved[g.keys[y]] == "draw" else 1 if solved[g.keys[y]] == mover else -1
        assert table.q[r, c] <= truth <= table.hi[r, c], g.keys[s]
        checked += 1
        met += table.q[r, c] == table.hi[r, c]
    assert checked > 1000 and 0 < met < checked


def test_an_agent_stored_before_folding_and_bounds_still_plays_unfolded(kb, graphs):
    import json
    commands.train(kb, "tictactoe", "qlearn", "old", 3000, "self", "both", 1, {"update": "negamax", "fold": False})
    before = commands.evaluate_exact(kb, "tictactoe", "old", "random")
    params = json.loads(kb.execute("SELECT params FROM agents WHERE name='old'").fetchone()[0])
    del params["fold"]                     # as stored before folding existed
    kb.execute("UPDATE agents SET params = ? WHERE name='old'", [json.dumps(params)])
    kb.conn.commit()
    assert commands.evaluate_exact(kb, "tictactoe", "old", "random") == before
    r = commands.train(kb, "tictactoe", "qlearn", "old", 100, "self", "both", 2, {})
    assert r["options"]["fold"] is False and r["options"]["update"] == "negamax"


def test_illegal_actions_tried_default_to_negamax_unfolded(kb):
    r = commands.train(kb, "tictactoe", "qlearn", "st", 50, "self", "both", 1, {"illegal": "stay"})
    assert (r["options"]["update"], r["options"]["fold"]) == ("negamax", False)


def test_a_folded_table_trains_on_the_classes_when_every_position_is_past_the_limit(tmp_path):
    """--fold past the position limit of every position: the table learns on the graph of classes
    (765 for tic-tac-toe under a limit of 1,000) instead of being refused; what it learned plays
    in Prolog, and judged on every position (no limit, another knowledge base) it guarantees what
    its own judgement on the classes said."""
    import json
    import shutil
    db, judge = tmp_path / "kb.db", tmp_path / "judge.db"
    runner = CliRunner(env={"EDUCABLE_DB": str(db)})
    r = runner.invoke(main, ["train", "tictactoe", "--learner", "qlearn", "--fold", "--agent", "qf", "--games", "300",
                             "--seed", "1", "--max-positions", "1000", "--json"])
    assert r.exit_code == 0, r.output
    on_classes = json.loads(r.output)["exact"]
    assert on_classes["folded"] is True
    assert runner.invoke(main, ["eval", "tictactoe", "qf", "--vs", "random", "--games", "20"]).exit_code == 0
    shutil.copy(db, judge)
    from educable.bridge import agents, graphs
    from educable.kb.db import open_kb
    from educable.learners import exact
    kb = open_kb(judge)
    every = graphs.state_graph(kb, "tictactoe")               # every position, with no limit
    mine = agents.support(kb, every, "qf")
    for side, p in (("as_first", 0), ("as_second", 1)):
        whole = exact.guarantee(every, p, mine)
        assert whole.guaranteed == on_classes[side]["guaranteed"]
        assert whole.perfect == on_classes[side]["perfect"]
        assert whole.mistakes == on_classes[side]["mistakes"]


def test_a_run_is_judged_about_forty_times_and_until_perfect_at_most_500_games_apart():
    """The strength curve's spacing (docs/learners.md): about 40 exact judgements a run, at least 25
    games apart, a multiple of 500 past 500 (a run may commit every 500 games), and with
    --until-perfect at most 500 apart."""
    from educable.learners.training import checkpoint_every
    assert [checkpoint_every(n) for n in (10, 1000, 2000, 30_000, 100_000)] == [25, 25, 50, 500, 2500]
    assert [checkpoint_every(n, until_perfect=True) for n in (1000, 100_000)] == [25, 500]


def test_the_curves_judgements_keep_within_a_twentieth_of_the_run_on_any_clock():
    """A run whose games are fast beside its judgements (a tiny game) skips points on the spacing
    rather than spend more than 5% of its time judging; a slow run takes every point; the last game
    is always judged, and --until-perfect judges on every point (it stops at the first perfect one).
    A clock made here stands for the machine: each game and each judgement advance it."""
    from educable.learners.training import Curve

    def run(n_games, game_s, judge_s, until_perfect=False, guess=None):      # the guess: no less than a judgement
        now = [0.0]
        curve = Curve(n_games, until_perfect, judge_s if guess is None else guess, clock=lambda: now[0])
        judged = []
        for done in range(1, n_games + 1):
            now[0] += game_s
            if curve.due(done):
                with curve.judging():
                    now[0] += judge_s
                judged.append(done)
                if done < n_games and not until_perfect:     # the last: the run's end judgement
                    assert sum(judge_s for _ in judged) <= 0.05 * now[0] + 1e-12
        return judged, curve.every

    points, every = run(2000, 1e-4, 4e-3)              # 0.2 s of games, 4 ms a judgement: 10 ms may go
    assert points[-1] == 2000 and all(p % every == 0 for p in points[:-1]) and 1 <= len(points) <= 3
    points, every = run(2000, 1e-2, 4e-3)              # 20 s of games: every point, as the spacing says
    assert points == list(range(every, 2001, every))
    points, every = run(2000, 1e-4, 4e-3, until_perfect=True)
    assert points == list(range(every, 2001, every))
    points, _ = run(100, 1e-4, 4e-3, guess=1.0)        # a first guess too large: only the end
    assert points == [100]
