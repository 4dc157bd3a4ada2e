"""The TD(λ) n-tuple learner: judged exactly, read back from the knowledge base by a value function
written here, played by Prolog as learned, and refusing what it cannot learn."""
import json
import math
import os
import sqlite3

import numpy as np
import pytest

from conftest import ROOT, cli, cli_json, kb_dump
from educable.bridge import agents, commands, games, ntuple
from educable.kb import store
from educable.learners import exact
from educable.learners.ntuple import derive_permutations, random_walk_tuples


def dihedral_3x3() -> list[list[int]]:
    """The eight symmetries of a 3x3 board as 'cell i shows cell p[i]', written out by rotation and mirror."""
    rot = [6, 3, 0, 7, 4, 1, 8, 5, 2]          # rotate a quarter turn: new cell i shows old rot[i]
    mir = [2, 1, 0, 5, 4, 3, 8, 7, 6]
    out, p = [], list(range(9))
    for _ in range(4):
        out.append(p)
        out.append([p[mir[i]] for i in range(9)])
        p = [p[rot[i]] for i in range(9)]
    return out


def test_tictactoe_symmetries_are_read_as_the_eight_cell_permutations(kb):
    sample = ntuple.engine().call("ntuple:nt_random_images(tictactoe, 100, Out)")
    base, images = ntuple.states_of(sample)
    perms = derive_permutations(base, images[:, 1:])
    assert sorted(map(tuple, perms)) == sorted(map(tuple, dihedral_3x3()))
    sample = ntuple.engine().call("ntuple:nt_random_images(hexapawn, 50, Out)")
    base, images = ntuple.states_of(sample)
    assert sorted(map(tuple, derive_permutations(base, images[:, 1:]))) == sorted(
        [tuple(range(9)), (2, 1, 0, 5, 4, 3, 8, 7, 6)])


def connected(cells: list[int], width: int, diagonals: bool) -> bool:
    """Whether ``cells`` of a board ``width`` wide are one piece, stepping to the 8 cells around a
    cell or (without diagonals) to the 4 beside it."""
    seen, todo = {cells[0]}, [cells[0]]
    while todo:
        a = todo.pop()
        for b in cells:
            dr, dc = abs(a // width - b // width), abs(a % width - b % width)
            if b not in seen and dr <= 1 and dc <= 1 and (diagonals or dr + dc == 1):
                seen.add(b)
                todo.append(b)
    return seen == set(cells)


def test_random_walk_tuples_are_connected_cells_of_the_board():
    for t in random_walk_tuples(42, 7, 70, 8, seed=3):
        assert len(set(t)) == 8 and all(0 <= c < 42 for c in t)
        assert connected(t, 7, diagonals=True)
    assert random_walk_tuples(42, 7, 5, 8, seed=3) == random_walk_tuples(42, 7, 5, 8, seed=3)
    straight = random_walk_tuples(42, 7, 70, 8, seed=3, diagonals=False)
    assert all(len(set(t)) == 8 and connected(t, 7, diagonals=False) for t in straight)
    assert not all(connected(t, 7, diagonals=False) for t in random_walk_tuples(42, 7, 70, 8, seed=3))


def test_neighbours_4_places_a_stored_agents_tuples_without_diagonal_steps(kb, db_path):
    r = cli("train", "tictactoe", "--learner", "ntuple", "--agent", "s", "--games", "20", "--neighbours", "4",
            "--json")
    assert r.exit_code == 0, r.output
    tuples, _ = store.load_ntuple(kb, "s")
    assert len(tuples) == 18 and all(connected(t, 3, diagonals=False) for t in tuples)
    assert cli("train", "tictactoe", "--learner", "ntuple", "--agent", "s", "--neighbours", "5").exit_code == 2


def test_self_play_reaches_perfect_tictactoe_and_prolog_plays_what_python_learned(kb, graphs):
    r = commands.train(kb, "tictactoe", "ntuple", "nt", 2000, "self", "both", 0, {}, until_perfect=True)
    assert r["games"] <= 2000
    assert r["exact"]["as_first"]["perfect"] and r["exact"]["as_second"]["perfect"]
    assert r["exact"]["as_first"]["guaranteed"] == "draw" == r["exact"]["as_second"]["guaranteed"]
    g = graphs["tictactoe"]
    by_prolog = exact.support_from_moves(g, games.policy_table(g, agents.chooser(kb, "tictactoe", "nt")))
    assert [sorted(s) for s in by_prolog] == [sorted(s) for s in ntuple.support(kb, store.get_agent(kb, "nt"), g)]


def reference_value(db_path, agent: str, cells: list[int], set_index: int = 0, per_set: int | None = None) -> float:
    """An agent's value of a board, read straight from the knowledge base's tables with sqlite3:
    tanh of the sum, over every tuple (of the player's set: tuples set_index*per_set onwards) seen
    through every symmetry, of the weight of its pattern."""
    con = sqlite3.connect(db_path)
    params = json.loads(con.execute("SELECT params FROM agents WHERE name = ?", [agent]).fetchone()[0])
    tuples = {t: [int(c) - 1 for c in cs.split()] for t, cs in
              con.execute("SELECT tuple, cells FROM ntuple_tuples WHERE agent = ?", [agent])}
    if per_set is not None:
        tuples = {t: cs for t, cs in tuples.items() if set_index * per_set <= t < (set_index + 1) * per_set}
    weights = {(t, p): w for t, p, w in
               con.execute("SELECT tuple, pattern, weight FROM ntuple_weights WHERE agent = ?", [agent])}
    total = 0.0
    for perm in params["perms"]:
        for t, cs in tuples.items():
            pattern = "".join(str(cells[perm[c]]) for c in cs)
            total += weights.get((t, pattern), 0.0)
    return math.tanh(total)


def test_query_shows_the_value_the_stored_weights_give(kb, db_path):
    commands.train(kb, "tictactoe", "ntuple", "nt", 300, "self", "both", 2, {})
    r = cli("query", "tictactoe", "x../.o./...", "--json")
    assert r.exit_code == 0, r.output
    values = {a["agent"]: a["values"] for a in json.loads(r.output)["agents"]}["nt"]
    # x to move; after x plays 9 the board is x../.o./..x, seen by x: 1 own, 2 the opponent's
    after = {"2": "xx./.o./...", "9": "x../.o./..x"}
    for move, board in after.items():
        cells = [0 if ch == "." else 1 if ch == "x" else 2 for ch in board.replace("/", "")]
        assert values[move] == pytest.approx(reference_value(db_path, "nt", cells), abs=1e-6)


def test_a_later_run_continues_and_counts_its_games(kb):
    commands.train(kb, "hexapawn", "ntuple", "h", 100, "self", "both", 1, {})
    before = dict(((t, p), w) for t, p, w, *_ in store.load_ntuple(kb, "h")[1])
    commands.train(kb, "hexapawn", "ntuple", "h", 100, "random", "second", 2, {"alpha": 0.1})
    after = dict(((t, p), w) for t, p, w, *_ in store.load_ntuple(kb, "h")[1])
    assert set(before) <= set(after) and before != after
    assert store.get_agent(kb, "h")["games_trained"] == 200
    # the schedules may change from run to run, and are stored as the last run's; the tuples may not
    commands.train(kb, "hexapawn", "ntuple", "h", 10, "self", "both", 3, {"random_openings": 0.5, "learn_explore": False})
    assert {k: store.get_agent(kb, "h")["params"][k] for k in ("random_openings", "learn_explore")} == \
        {"random_openings": 0.5, "learn_explore": False}
    with pytest.raises(commands.BadInput, match="fixed when it is made"):
        commands.train(kb, "hexapawn", "ntuple", "h", 10, "self", "both", 3, {"length": 2})


def test_a_continued_run_keeps_the_temporal_coherence_sums(kb, db_path):
    """With --tcl each weight's sum of change sizes only grows while it learns, so after a second run
    every weight's stored sum is at least what the first run stored (a run that started the sums
    afresh would store less for the weights it read less); without --tcl no sums are stored."""
    def sums(agent: str) -> dict:
        con = sqlite3.connect(db_path)
        return {(t, p): (n, a) for t, p, n, a in con.execute(
            "SELECT tuple, pattern, tc_changes, tc_sizes FROM ntuple_weights WHERE agent = ?", [agent])}

    commands.train(kb, "tictactoe", "ntuple", "t", 200, "self", "both", 1, {"tcl": True})
    first = sums("t")
    assert first and all(a > 0 and abs(n) <= a + 1e-12 for n, a in first.values())
    commands.train(kb, "tictactoe", "ntuple", "t", 20, "random", "first", 2, {})
    second = sums("t")
    assert set(first) <= set(second)
    assert all(second[k][1] >= a - 1e-12 for k, (_, a) in first.items())
    assert any(second[k][1] > a for k, (_, a) in first.items())
    commands.train(kb, "tictactoe", "ntuple", "plain", 50, "self", "both", 1, {})
    assert sums("plain") and all(v == (None, None) for v in sums("plain").values())


def test_hexapawn_self_play_is_perfect_for_the_winning_side(kb):
    r = commands.train(kb, "hexapawn", "ntuple", "hx", 1000, "self", "both", 0, {})
    assert r["exact"]["as_second"]["guaranteed"] == "win" and r["exact"]["as_second"]["perfect"]


def test_connect_four_trains_lazily_in_batches_and_plays(kb, db_path):
    r = commands.train(kb, "connect(4,7,6)", "ntuple", "c4", 40, "self", "both", 0, {"tuples": 10, "length": 4})
    assert r["games"] == 40 and r["exact"] is None
    assert sum(r["results"].values()) == 40
    # one query a ply for the batch, not one a move: no game is longer than 42 plies
    assert r["lazy"]["prolog_queries"] <= 43
    # Connect Four's tuple_cells/4 adds a fourth value (an empty cell a piece drops into next), and a
    # board of 42 cells keeps a set of weights for each player: 2 sets x 10 tuples x 4^4 patterns
    assert r["net"] == {"tuples": 10, "lengths": [4], "symmetries": 2, "cell_values": 4, "weight_sets": 2,
                        "weights": 5120, "learned": r["net"]["learned"]}
    assert r["net"]["learned"] > 0
    out = commands.evaluate_series(kb, "connect(4,7,6)", "c4", "random", 2, 0)
    assert out["games"] == 2


def test_extra_turns_train_and_judge_exactly(kb):
    r = commands.train(kb, "boxes(1,2)", "ntuple", "bx", 300, "self", "both", 0, {})
    assert r["exact"] is not None and r["games"] == 300


def test_the_adversary_on_the_graph_plays_what_the_prolog_adversary_searches(kb, graphs):
    """exact.adversary_moves against an n-tuple agent's current choices equals rules/adversary.pl's
    search (a fresh one, nothing remembered) in every hexapawn state where the adversary moves."""
    commands.train(kb, "hexapawn", "ntuple", "v", 20, "self", "both", 3, {"tuples": 4, "length": 3})
    g = graphs["hexapawn"]
    victim = exact.support_from_moves(g, games.policy_table(g, agents.chooser(kb, "hexapawn", "v")))
    ntuple.engine().call("adversary:adversary_forget, Out = true")
    searched = exact.support_from_moves(g, games.policy_table(g, "adversary(agent(v))"))
    mine = exact.adversary_moves(g, victim, 0)
    white = [s for s in range(g.size) if g.mover[s] == 0 and g.winner[s] == -1]
    assert len(white) > 20
    assert all(sorted(mine[s]) == sorted(searched[s]) for s in white)
    # a victim choosing among several moves (a random player): its chances are averaged, not minimised
    searched = exact.support_from_moves(g, games.policy_table(g, "adversary(random)"))
    mine = exact.adversary_moves(g, exact.all_moves(g), 0)
    assert all(sorted(mine[s]) == sorted(searched[s]) for s in white)


def test_against_the_adversary_black_learns_with_few_losses(kb):
    """Hexapawn as black against the adversary: perfect, in fewer games lost than the four the
    punishment learner could not go below (bench_ntuple.py --adversary: median 3 over 25 seeds)."""
    r = commands.train(kb, "hexapawn", "ntuple", "b", 100, "adversary", "second", 0, {})
    assert r["exact"]["as_second"]["perfect"] and r["losses"] <= 4
    assert r["options"]["epsilon"] == 0.0                 # no exploration against the adversary by default


@pytest.mark.parametrize("args, words", [
    (["tictactoe", "--tuples-file", "TUPLES"], "tuple cell 10 is not a cell of tictactoe"),
    (["tictactoe", "--tuples-file", "NOFILE"], "cannot read tuples file"),
    (["tictactoe", "--lambda", "2"], "--lambda must be in [0, 1]"),
    (["connect(4,7,6)", "--vs", "adversary"], "--vs adversary answers every move from the whole game"),
    (["tictactoe", "--length", "12", "--values", "64"], "use shorter tuples"),
    (["tictactoe", "--update", "bounds"], "--update is not an option of the ntuple learner"),
    (["tictactoe", "--start-share", "0.5"], "--start-share needs --starts-file"),
    (["tictactoe", "--starts-file", "NOFILE"], "cannot read starts file"),
    (["tictactoe", "--starts-file", "EMPTY"], "no positions"),
    (["tictactoe", "--starts-file", "OVER"], "position 2 (xxx/oo./...): the game is over there"),
    (["tictactoe", "--starts-file", "BAD"], "--starts-file, position 1: bad tic-tac-toe position"),
    (["connect(4,7,6)", "--starts-file", "OVER"], "position 1: bad connect(4,7,6) position"),
    (["hexapawn", "--starts-file", "UNREACHED"], "position 1 (123-78 w): no game of hexapawn reaches it"),
])
def test_bad_input_one_line_exit_2_nothing_stored(db_path, tmp_path, monkeypatch, made, args, words):
    monkeypatch.setenv("EDUCABLE_GAMES", str(ROOT / "examples"))
    (tmp_path / "t.txt").write_text("1 2 3\n4 5 10\n")
    files = {"TUPLES": "t.txt", "NOFILE": "none.txt", "EMPTY": "empty.txt", "OVER": "over.txt", "BAD": "bad.txt",
             "UNREACHED": "unreached.txt"}
    (tmp_path / "unreached.txt").write_text("123-78 w   # a black pawn gone before white moved\n")
    (tmp_path / "empty.txt").write_text("# only a comment\n\n")
    (tmp_path / "over.txt").write_text("x../.o./...\nxxx/oo./...  # x has won\n")
    (tmp_path / "bad.txt").write_text("xxx/ooo/...\n")
    args = [str(tmp_path / files[a]) if a in files else a for a in args]
    made((("train", "tictactoe", "--agent", "p", "--games", "2"),), db_path)     # made once, copied per case
    before = kb_dump(db_path)
    out = cli("train", *args[:1], "--learner", "ntuple", "--agent", "n", "--games", "10", *args[1:])
    assert out.exit_code == 2, out.output
    assert words in out.output and len(out.output.strip().splitlines()) == 1
    assert kb_dump(db_path) == before


@pytest.mark.parametrize("lazily", [False, True], ids=["graph", "lazily"])
def test_games_start_from_the_positions_of_a_starts_file(tmp_path, lazily):
    """--starts-file: --start-share of the games start from one of its positions (on the graph, and
    lazily past --max-positions).  From a tic-tac-toe position with one empty cell whose filling
    draws, every such game is one move long and drawn; at share 0.5 about half are; the same seed
    plays the same games; a continued run keeps the positions unless given a share of 0."""
    (tmp_path / "starts.txt").write_text("# x's last move fills the board: a draw\nxox/xoo/ox.\n")
    limit = ["--max-positions", "100"] if lazily else []

    def train(agent, *args):
        return cli_json("train", "tictactoe", "--learner", "ntuple", "--agent", agent, "--seed", "3",
                        "--db", str(tmp_path / "kb.db"), *limit, *args)

    def draws(r):
        return r["results"].get("draw", 0)
    starts = ["--starts-file", str(tmp_path / "starts.txt")]
    assert draws(train("all", "--games", "512", *starts, "--start-share", "1")) == 512
    half = train("half", "--games", "1024", *starts)                 # the share is 0.5 unless given
    plain = train("plain", "--games", "1024")
    again = train("again", "--games", "1024", *starts)
    assert half["results"] == again["results"] and half["options"]["start_share"] == 0.5
    # the games not started there draw as often as plain games do: about 512 draws more
    assert 400 <= draws(half) - draws(plain) * 0.5 <= 620, (half["results"], plain["results"])
    assert draws(train("all", "--games", "256")) == 256                # continued: the positions stay
    assert draws(train("all", "--games", "256", "--start-share", "0")) < 200


def test_a_game_without_cells_is_refused_in_one_line_and_nothing_stored(tmp_path):
    """The tutorial's Pile game has no cells/4: one line, exit 2, no agent (in a process of its own,
    with examples/ as a games folder)."""
    import os
    import subprocess
    import sys
    db = tmp_path / "kb.db"
    env = {**os.environ, "EDUCABLE_GAMES": str(ROOT / "examples"), "EDUCABLE_DB": str(db)}
    out = subprocess.run([sys.executable, str(ROOT / "cli.py"), "train", "pile", "--learner", "ntuple",
                          "--agent", "n", "--games", "10"], env=env, capture_output=True, text=True)
    assert out.returncode == 2, out.stderr
    lines = (out.stdout + out.stderr).strip().splitlines()
    assert len(lines) == 1 and "does not define cells/4" in lines[0]
    assert not db.exists() or sqlite3.connect(db).execute("SELECT count(*) FROM agents").fetchone()[0] == 0


def test_tuples_from_a_file_are_the_agents_tuples(kb, tmp_path):
    path = tmp_path / "rows.txt"
    path.write_text("# the three rows\n1 2 3\n4 5 6\n7, 8, 9\n")
    commands.train(kb, "tictactoe", "ntuple", "rows", 50, "self", "both", 0,
                   {"tuple_cells": ntuple.read_tuples(str(path))})
    tuples, _ = store.load_ntuple(kb, "rows")
    assert tuples == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]


def trained_and_liar(kb, game: str, games_: int, name: str = "hx", liar: str = "liar") -> None:
    """Agent ``name`` trained by self-play on ``game``, and ``liar``: the same with every weight
    negated (made here with SQL)."""
    commands.train(kb, game, "ntuple", name, games_, "self", "both", 0, {})
    kb.execute("INSERT INTO agents SELECT ?, game, learner, params, games_trained, created, updated "
               "FROM agents WHERE name = ?", [liar, name])
    kb.execute("INSERT INTO ntuple_tuples SELECT ?, tuple, cells FROM ntuple_tuples WHERE agent = ?", [liar, name])
    kb.execute("INSERT INTO ntuple_weights (agent, tuple, pattern, weight) SELECT ?, tuple, pattern, -weight "
               "FROM ntuple_weights WHERE agent = ?", [liar, name])
    kb.conn.commit()


def test_an_agent_values_the_leaves_of_mcts(kb):
    """mcts:N+AGENT values a new leaf with the agent instead of a random game.  Ten playouts a move
    guided by a trained n-tuple agent play hexapawn perfectly as black (black wins hexapawn); guided
    by the same agent with every weight negated (a liar) they do not."""
    trained_and_liar(kb, "hexapawn", 1000)
    for seed in (0, 1):
        games.seed_random(seed)
        assert commands.evaluate_exact(kb, "hexapawn", "mcts:10+hx")["as_second"]["perfect"]
        games.seed_random(seed)
        assert not commands.evaluate_exact(kb, "hexapawn", "mcts:10+liar")["as_second"]["perfect"]


def test_an_agent_values_the_horizon_of_alphabeta(kb):
    """alphabeta:D+AGENT values the positions at its horizon with the agent.  At depth 1 it plays in
    every reachable hexapawn state exactly the moves the agent plays on its own (a liar's too); it
    values only positions the searching player has just moved into, so in a game whose turns
    alternate depth 2 gives every move the score depth 3 gives; a search two plies deep is perfect
    as x on tic-tac-toe led by a trained agent and not led by a liar; a search that sees every game
    to its end (hexapawn lasts at most 12 plies) is perfect whatever values the horizon, which it
    never reaches."""
    from educable.bridge import graphs as graph_store
    trained_and_liar(kb, "hexapawn", 100, "hp", "hpliar")
    graph = graph_store.state_graph(kb, "hexapawn", None)
    for name in ("hp", "hpliar"):
        plain = games.policy_table(graph, agents.chooser(kb, "hexapawn", name))
        searched = games.policy_table(graph, agents.chooser(kb, "hexapawn", f"alphabeta:1+{name}"))
        assert [sorted(m) for m in plain] == [sorted(m) for m in searched]
        assert sum(map(len, plain)) > 0
        two, three = (agents.chooser(kb, "hexapawn", f"alphabeta:{d}+{name}") for d in (2, 3))
        for key in graph.keys[::7]:
            scores = [ntuple.engine().call(f"game:parse_position(hexapawn, {ntuple.quote(key)}, P, M), "
                                           f"(game:over(hexapawn, P, M, _) -> Out = [] ; "
                                           f"search:search_scores({c}, hexapawn, P, M, Out))")
                      for c in (two, three)]
            assert scores[0] == scores[1], key
    assert not commands.evaluate_exact(kb, "hexapawn", "alphabeta:1+hpliar")["as_second"]["perfect"]
    deep = commands.evaluate_exact(kb, "hexapawn", "alphabeta:12+hpliar")
    assert deep["as_first"]["perfect"] and deep["as_second"]["perfect"]
    trained_and_liar(kb, "tictactoe", 2000)
    assert commands.evaluate_exact(kb, "tictactoe", "alphabeta:2+hx")["as_first"]["perfect"]
    assert not commands.evaluate_exact(kb, "tictactoe", "alphabeta:2+liar")["as_first"]["perfect"]


@pytest.mark.parametrize("opponent, words", [
    ("mcts:100+p", "needs an agent that values positions"),
    ("mcts:100+nobody", "unknown agent 'nobody'"),
    ("alphabeta:2+p", "needs an agent that values positions"),
])
def test_a_search_guided_by_an_unfit_agent_is_refused_in_one_line(db_path, opponent, words):
    assert cli("train", "hexapawn", "--agent", "p", "--games", "2").exit_code == 0
    out = cli("eval", "hexapawn", opponent, "--vs", "random", "--games", "2")
    assert out.exit_code == 2, out.output
    assert words in out.output and len(out.output.strip().splitlines()) == 1


def test_self_play_on_two_dask_workers_that_keep_the_net_equals_merging_rounds_here(kb, monkeypatch):
    """--workers 2 on a game too large to enumerate, two rounds: each worker keeps its copy of the
    net between rounds and receives only the merged values; the stored net equals one recomputed
    here from the same start, round by round: both workers play a round from the same weights, a
    weight one worker changed takes its change, one both changed the mean of the two (not their
    sum), and the next round starts from that.  After the first round only sparse changes travel.

    The local cluster's workers start without MALLOC_TRIM_THRESHOLD_, which Dask's nanny sets and
    which turns glibc's adaptive mmap threshold off: Connect Four's self-play there mapped and zeroed
    its large arrays afresh every step, about 13% slower (bench/results/c4_workers.json)."""
    import contextlib

    from educable.bridge import cluster
    from educable.learners.ntuple import NTupleNet
    monkeypatch.setattr(ntuple, "ROUND_GAMES", 64)
    real_client, seen = cluster.client, []

    @contextlib.contextmanager
    def client(*args, **kwargs):
        with real_client(*args, **kwargs) as c:
            seen.append(c.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_")))
            yield c
    monkeypatch.setattr(cluster, "client", client)
    opts = {"tuples": 6, "length": 4}
    r = commands.train(kb, "connect(4,7,6)", "ntuple", "w", 256, "self", "both", 5, opts, workers=2)
    assert [list(workers.values()) for workers in seen] == [[None, None]]
    assert os.environ.get("MALLOC_TRIM_THRESHOLD_") is None
    lazy = r["lazy"]
    assert r["games"] == 256 and lazy["workers"] == 2 and lazy["rounds"] == 2
    assert 0 < lazy["bytes_per_round"] < lazy["bytes_first_round"]      # (on GBG's net, a few percent: bench)
    net, stored = ntuple.net_from_row(kb, store.get_agent(kb, "w"), coherence=True)
    assert stored.tcl                    # Connect Four's default: the coherence sums are merged too, and stored
    got = (net.weights, net.tc_n, net.tc_a)
    net.start_coherence(True)
    here = [np.zeros_like(a) for a in (net.weights, net.tc_n, net.tc_a)]
    overlapped = False
    for done in (0, 128):
        parts = []
        for first in (done, done + 64):
            copy = NTupleNet(net.tuples, net.perms, net.values, net.n_cells, here[0].copy(), sets=net.sets)
            copy.tc_n, copy.tc_a = here[1].copy(), here[2].copy()
            (touched, after), winners, _ = ntuple.play_touched("connect(4,7,6)", copy, stored.as_dict(), 64, first,
                                                               256, [3], 5 * 1_000_003 + first)
            assert len(winners) == 64
            deltas = [v - a[touched] for a, v in zip(here, after)]
            moved = (deltas[0] != 0) | (deltas[2] != 0)           # what the games changed, weights or sums
            assert moved.any() and np.isin(np.flatnonzero(copy.weights != here[0]), touched).all()  # none unreported
            parts.append((touched[moved], [d[moved] for d in deltas]))
        hits = np.zeros(net.weights.size)
        for touched, _ in parts:
            hits[touched] += 1
        overlapped |= bool((hits == 2).any())
        summed = here[0].copy()
        for touched, deltas in parts:
            summed[touched] += deltas[0]
            for array, d in zip(here, deltas):
                array[touched] += d / hits[touched]
    assert overlapped
    for g, want in zip(got, here):
        np.testing.assert_allclose(g, want, atol=1e-12)
    assert not np.allclose(net.weights, summed)


def test_connect_four_tuple_cells_mark_the_empty_cells_a_piece_drops_into_next(kb):
    """tuple_cells/4 of connect(4,7,6) on positions of random games of an independent reference:
    1 the viewer's, 2 the other's, 3 an empty cell on the floor or on a piece, 0 any other empty."""
    import random

    from reference_families import in_a_row
    ref = in_a_row(4, 7, 6, True)
    rng = random.Random(3)
    states = []
    for _ in range(20):
        s = ref["initial"]
        while ref["moves"](s):
            states.append(s)
            s = rng.choice(list(ref["moves"](s).values()))
    keys = [ref["key"](s) for s in states]
    for viewer in ("x", "o"):
        text = ntuple.engine().call(f"ntuple:nt_cells('connect(4,7,6)', [{', '.join(ntuple.quote(k) for k in keys)}], "
                                    f"[{viewer}], Out)")
        got = ntuple._cells(text, 42)
        for (board, _), row in zip(states, got):
            want = []
            for i, v in enumerate(board):
                if v == ".":
                    want.append(3 if i >= 35 or board[i + 7] != "." else 0)
                else:
                    want.append(1 if v == viewer else 2)
            assert row.tolist() == want


def reference_td_with_coherence(w, tcn, tca, rows, gains, target, step, lam, beta=2.7):
    """TD(λ) with TCL-EXP written from its description, weight by weight: the newest afterstate's
    error δ = target - tanh(Σ w); afterstate k back gets r = step·δ·λ^k·gain_k at each of its weights,
    scaled by exp(β(|N|/A - 1)) (1 while A is 0); then N += r, A += |r|."""
    w, tcn, tca = w.copy(), tcn.copy(), tca.copy()
    delta = target - math.tanh(sum(w[i] for i in rows[0]))
    for k, (row, gain) in enumerate(zip(rows, gains)):
        r = step * delta * lam ** k * gain
        for i in row:
            factor = math.exp(beta * (abs(tcn[i]) / tca[i] - 1)) if tca[i] > 0 else 1.0
            w[i] += factor * r
            tcn[i] += r
            tca[i] += abs(r)
    return w, tcn, tca


def test_temporal_coherence_scales_each_weights_step_as_written():
    from educable.learners.ntuple import _td
    rng = np.random.default_rng(0)
    w = rng.normal(0, 0.3, 12)
    tcn = rng.normal(0, 1, 12)
    tca = np.abs(tcn) + rng.uniform(0, 2, 12)
    tca[[0, 5]] = 0.0                                  # weights never changed yet: full step
    tcn[[0, 5]] = 0.0
    rows = [[0, 3, 5, 7], [1, 3, 8, 11], [2, 4, 5, 9]]  # newest first; weights 3 and 5 are shared
    gains = [0.9, 0.7, 0.5]
    hist = np.zeros((4, 4), dtype=np.int64)
    hist_g = np.zeros(4)
    newest = 2
    for k, (row, g) in enumerate(zip(rows, gains)):
        hist[(newest - k) % 4], hist_g[(newest - k) % 4] = row, g
    want = reference_td_with_coherence(w, tcn, tca, rows, gains, 0.8, 0.05, 0.5)
    got = [w.copy(), tcn.copy(), tca.copy()]
    _td(got[0], got[1], got[2], hist, hist_g, 3, newest, 0.8, 0.05, 0.5, np.zeros(0, np.uint8))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
    plain = w.copy()                                    # without coherence (sums of size 1): the plain step
    _td(plain, np.zeros(1), np.zeros(1), hist, hist_g, 3, newest, 0.8, 0.05, 0.5, np.zeros(0, np.uint8))
    np.testing.assert_allclose(plain, reference_td_with_coherence(w, np.zeros(12), np.zeros(12), rows, gains,
                                                                  0.8, 0.05, 0.5, beta=0.0)[0], rtol=1e-12)


def test_per_player_weights_value_each_move_with_the_movers_own_set(kb, db_path):
    """An agent with a set of tuples for each player (stored as tuples 0..n-1 for x, n..2n-1 for o):
    query's value of a move is the mover's set read from the tables, and o's moves do not read x's.
    (Connect three on 4 columns of 3 rows: 7,157 positions, where 4 rows took six times as long.)"""
    commands.train(kb, "connect(3,4,3)", "ntuple", "pp", 300, "self", "both", 4,
                   {"per_player": True, "tuples": 6, "length": 3})
    con = sqlite3.connect(db_path)
    n_tuples = con.execute("SELECT COUNT(*) FROM ntuple_tuples WHERE agent = 'pp'").fetchone()[0]
    assert n_tuples == 12
    checked = 0
    for position, mover, set_index in (("..../..../x...", "o", 1), ("..../..../xo..", "x", 0)):
        values = {a["agent"]: a["values"] for a in cli_json("query", "connect(3,4,3)", position)["agents"]}["pp"]
        board = position.replace("/", "")
        for move, value in values.items():
            col = int(move) - 1
            row = max(y for y in range(3) if board[y * 4 + col] == ".")
            after = board[:row * 4 + col] + mover + board[row * 4 + col + 1:]
            if (value in (1, -1)):
                continue                                # a move that ends the game is worth its result
            cells = [(1 if v == mover else 2) if v != "." else (3 if i >= 8 or after[i + 4] != "." else 0)
                     for i, v in enumerate(after)]
            assert value == pytest.approx(reference_value(db_path, "pp", cells, set_index, n_tuples // 2), abs=1e-6)
            checked += 1
    assert checked == 8


def test_gbgs_connect_four_tuple_set_is_shipped_in_our_cell_numbers():
    """learners/tuples/connect4_gbg70.txt: 70 tuples of 8 distinct cells of the 42; GBG's first and
    last tuples (its numbering: column * 6 + row from the bottom) read back as GBG's cells."""
    from pathlib import Path

    from educable.bridge.ntuple import read_tuples
    tuples = read_tuples(str(Path(__file__).resolve().parent.parent / "learners" / "tuples" / "connect4_gbg70.txt"))
    assert len(tuples) == 70 and all(len(set(t)) == 8 and all(1 <= c <= 42 for c in t) for t in tuples)

    def gbg(cell):            # ours (from 1, rows from the top, 7 a row) as GBG's number
        row_from_top, column = divmod(cell - 1, 7)
        return column * 6 + (5 - row_from_top)
    assert [gbg(c) for c in tuples[0]] == [0, 6, 7, 12, 13, 14, 19, 21]
    assert [gbg(c) for c in tuples[-1]] == [1, 2, 3, 4, 5, 6, 11, 12]


def test_a_new_connect_four_agent_takes_gbgs_tuples_unless_given_a_shape(kb, db_path):
    """Connect Four's default tuples are GBG's published set (its first tuple in GBG's numbering as
    above); --tuples/--length place random walks of that shape instead.  Its games start half the
    time from a random first move (0 when asked; small boards never by default)."""
    commands.train(kb, "connect(4,7,6)", "ntuple", "gbg", 2, "self", "both", 1, {})
    commands.train(kb, "connect(4,7,6)", "ntuple", "walks", 2, "self", "both", 1, {"tuples": 5, "length": 3})
    con = sqlite3.connect(db_path)
    rows = {name: [list(map(int, c.split())) for (c,) in con.execute(
        "SELECT cells FROM ntuple_tuples WHERE agent = ? ORDER BY tuple", (name,))] for name in ("gbg", "walks")}
    first = [c for c in rows["gbg"][0]]
    assert len(rows["gbg"]) == 140 and rows["gbg"][:70] == rows["gbg"][70:]        # one set a player
    assert sorted((c - 1) % 7 * 6 + (5 - (c - 1) // 7) for c in first) == [0, 6, 7, 12, 13, 14, 19, 21]
    assert len(rows["walks"]) == 10 and all(len(t) == 3 for t in rows["walks"])
    # half of Connect Four's games start from a random first move unless the user says otherwise
    commands.train(kb, "connect(4,7,6)", "ntuple", "empty", 2, "self", "both", 1, {"random_openings": 0.0})
    commands.train(kb, "tictactoe", "ntuple", "small", 2, "self", "both", 1, {})
    assert {n: store.get_agent(kb, n)["params"]["random_openings"] for n in ("gbg", "empty", "small")} == \
        {"gbg": 0.5, "empty": 0.0, "small": 0.0}


def reference_tuple_cells(board: str, viewer: str, w: int) -> list[int]:
    """Connect Four's learner cells written from their description: 1 the viewer's, 2 the other's,
    3 an empty cell on the floor or on a piece, 0 any other empty cell."""
    out = []
    for i, v in enumerate(board):
        if v == ".":
            out.append(3 if i >= len(board) - w or board[i + w] != "." else 0)
        else:
            out.append(1 if v == viewer else 2)
    return out


@pytest.mark.parametrize("game, n, w, h, bits", [("connect(4,7,6)", 4, 7, 6, 2), ("connect(4,7,6)", 4, 7, 6, 6),
                                                 ("connect(3,4,4)", 3, 4, 4, 2)])
def test_a_batch_step_packs_every_successors_cells_as_the_reference_sees_them(kb, game, n, w, h, bits):
    """Self-play's batch step (nt_batch_step/2) against the independent in-a-row reference, move for
    move through random games: each successor's cells (tuple_code/4 packed 2 bits a cell, or the
    cells packed 6 bits a cell), its outcome for the mover, and the mover, unpacked by the bridge."""
    import random

    from reference_families import in_a_row
    ref = in_a_row(n, w, h, True)
    rng = random.Random(5)
    words = -(-bits * w * h // ntuple.WORD_BITS)
    for _ in range(6):
        ntuple.engine().call(f"ntuple:nt_batch_start({ntuple.quote(game)}, 1, {bits}, {words}), Out = true")
        state, choice, plies = ref["initial"], -1, 0
        while True:
            out = ntuple.engine().call(f"ntuple:nt_batch_step([{choice}], Out)")
            moves = ref["moves"](state)
            if not moves:
                assert out["movers"] == [-1] and out["counts"] == [0]
                break
            board, mover = state
            succ = [moves[m] for m in sorted(moves, key=int)]
            assert out["movers"] == ["xo".index(mover)] and out["counts"] == [len(succ)]
            got = ntuple.unpack(out["codes"], w * h, bits)
            assert got.tolist() == [reference_tuple_cells(b, mover, w) for b, _ in succ]
            results = [ref["result"](s) for s in succ]
            assert out["outcomes"] == [-9 if r is None else 0 if r == "draw" else 1 if r == mover else -1
                                       for r in results]
            choice = rng.randrange(len(succ))
            state = succ[choice]
            plies += 1
        assert plies >= n + n - 1


def test_a_batch_step_keeps_the_turn_where_a_box_is_completed(kb):
    """Dots and boxes (a player who completes a box moves again, next_mover/5) through the batch step,
    against the independent reference: the mover, the successors and their outcomes at every step."""
    import random

    from reference_families import boxes
    ref, game = boxes(2, 2), "boxes(2,2)"
    n_cells = ntuple.engine().call(f"game:initial({ntuple.quote(game)}, P, M), "
                                   f"game:learner_cells({ntuple.quote(game)}, P, M, C), length(C, Out)")
    words = -(-6 * n_cells // ntuple.WORD_BITS)
    rng = random.Random(2)
    extra_turns = 0
    for _ in range(20):
        ntuple.engine().call(f"ntuple:nt_batch_start({ntuple.quote(game)}, 1, 6, {words}), Out = true")
        state, choice = ref["initial"], -1
        while True:
            out = ntuple.engine().call(f"ntuple:nt_batch_step([{choice}], Out)")
            moves = ref["moves"](state)
            if not moves:
                assert out["movers"] == [-1]
                break
            mover = state[2]
            succ = [moves[m] for m in sorted(moves, key=int)]
            assert out["movers"] == [ref["players"].index(mover)] and out["counts"] == [len(succ)]
            results = [ref["result"](s) for s in succ]
            assert out["outcomes"] == [-9 if r is None else 0 if r == "draw" else 1 if r == mover else -1
                                       for r in results]
            choice = rng.randrange(len(succ))
            extra_turns += succ[choice][2] == mover and results[choice] is None
            state = succ[choice]
    assert extra_turns > 0


def toy_graph(edges: dict[int, list[int]], winner: list[int], mover: list[int]):
    """A game graph as the trainer takes it (CSR edges; each state its own feature for either player)."""
    n = len(winner)
    start = np.concatenate([[0], np.cumsum([len(edges.get(s, [])) for s in range(n)])]).astype(np.int64)
    target = np.array([t for s in range(n) for t in edges.get(s, [])], dtype=np.int64)
    feats = np.repeat(np.arange(n, dtype=np.int64).reshape(n, 1, 1), 2, axis=1)
    return start, target, np.array(winner, dtype=np.int64), np.array(mover, dtype=np.int64), feats


def toy_train(graph, n_games: int, **options) -> tuple[np.ndarray, np.ndarray]:
    """Self-play on a toy graph with one weight a state: (the weights, each game's winner)."""
    from types import SimpleNamespace

    from educable.learners.ntuple import NTupleOptions, train_on_graph
    start, target, winner, mover, feats = graph
    net = SimpleNamespace(weights=np.zeros(len(winner)), tc_n=np.zeros(1), tc_a=np.zeros(1))
    opts = NTupleOptions(alpha=0.5, alpha_end=0.5, **options).check()
    won = train_on_graph(net, start, target, winner, mover, feats, opts, n_games, 7, 0, n_games, [3], None)
    return net.weights, won


# x (0) opens with a or b (1, 2); o moves to c (3); x ends it: win (4) or draw (5)
TWO_MOVES_EACH = ({0: [1, 2], 1: [3], 2: [3], 3: [4, 5]}, [-1, -1, -1, -1, 0, 2], [0, 1, 1, 0, 0, 0])


def test_without_learning_on_exploring_moves_only_the_final_updates_learn():
    graph = toy_graph(*TWO_MOVES_EACH)
    # every move explores: x's openings learn toward c's best move (a win) only when exploring moves learn
    taught, _ = toy_train(graph, 200, epsilon=1.0)
    assert taught[1] > 0.3 and taught[2] > 0.3
    quiet, _ = toy_train(graph, 200, epsilon=1.0, learn_explore=False)
    assert quiet[1] == quiet[2] == 0.0
    assert quiet[3] < -0.1                        # o's afterstate c still learns the result at the end
    # no move explores: the option changes nothing
    greedy = [toy_train(graph, 200, epsilon=0.0, learn_explore=flag)[0] for flag in (True, False)]
    np.testing.assert_array_equal(*greedy)
    assert greedy[0][1] + greedy[0][2] > 0.3


def test_a_random_opening_is_taken_as_the_start_position():
    # x's one move wins (1) or loses (2): greedy x always wins; a random opening wins half the games
    win_or_lose = toy_graph({0: [1, 2]}, [-1, 0, 1], [0, 0, 0])
    for share, low, high in ((0.0, 4000, 4000), (1.0, 1800, 2200), (0.5, 2800, 3200)):
        _, won = toy_train(win_or_lose, 4000, epsilon=0.0, random_openings=share)
        assert low <= int(np.sum(won == 0)) <= high, share
    # x's opening is not learned as x's afterstate: a and b keep their weights, o's c learns the result
    weights, _ = toy_train(toy_graph(*TWO_MOVES_EACH), 200, epsilon=0.0, random_openings=1.0)
    assert weights[1] == weights[2] == 0.0 and weights[3] < -0.1


def test_lockstep_games_take_random_openings_and_skip_learning_on_exploring_moves():
    from educable.learners.ntuple import ONGOING_CODE, Lockstep, NTupleNet, NTupleOptions
    games = 400
    net = NTupleNet([[0], [1]], [[0, 1]], 3, 2)
    movers, active, learn = np.zeros(games, dtype=np.int64), np.ones(games, dtype=bool), np.full(games, 3)
    # two successors a game: the first ends it won for the mover, the second goes on
    off = np.arange(0, 2 * games + 1, 2, dtype=np.int64)
    cells = np.tile([[1, 0], [0, 1]], (games, 1))
    out = np.tile([1, ONGOING_CODE], games).astype(np.int64)
    for share, opening, low, high in ((1.0, True, 150, 250), (1.0, False, 0, 0), (0.0, True, 0, 0)):
        lock = Lockstep(net, NTupleOptions(epsilon=0.0, random_openings=share).check(), games, 3)
        choice, ended = lock.ply(off, cells, out, movers, active, learn, 0.0, opening=np.full(games, opening))
        assert low <= int(np.sum(choice == 1)) <= high, (share, opening)
        assert (ended[choice == 0] == 1).all()
        assert (lock.count[:, 0] == 0).all()           # a random opening is the start: nothing to learn from
    # a game that went on (one successor, going on) then explores: its afterstate learns only if allowed
    for flag in (True, False):
        net.weights[:] = 0.0
        lock = Lockstep(net, NTupleOptions(epsilon=1.0, learn_explore=flag).check(), games, 3)
        one = np.arange(games + 1, dtype=np.int64)
        lock.ply(one, np.tile([[0, 1]], (games, 1)), np.full(games, ONGOING_CODE), movers, active, learn, 0.0)
        before = net.weights.copy()
        lock.ply(off, cells, out, movers, active, learn, 0.0)
        assert bool((net.weights != before).any()) == flag


def reference_puct(state, iterations, value_for, memo=None):
    """AlphaZero-style search as GBG's MCTS wrapper describes it, written here from that description
    over the game's moves and results (bridge.games) and a leaf evaluator ``value_for(state, player)``:
    a node expands by valuing each child for its mover (a finished child: 1 won, 0 drawn, -1 lost),
    priors the softmax of those values, its value their best; selection by Q + P·sqrt(ΣN + 1e-8)/(1 + N)
    (c = 1, Q 0 while unvisited, the first of equals); values pass up negated where the turn passed.
    The root's visit counts by move.  ``memo`` keeps each position's moves, result and value across
    the searches of one test (each is asked of Prolog once)."""
    import math
    memo = {} if memo is None else memo

    def remembered(what, f, *args):
        if (what, *args) not in memo:
            memo[(what, *args)] = f(*args)
        return memo[(what, *args)]

    def moves(s):
        return remembered("moves", games.moves, s)

    def result(s):
        return remembered("result", games.result, s)

    def result_value(result, mover):
        return 0.0 if result == "draw" else 1.0 if result == mover else -1.0

    def node(s):
        return {"state": s, "result": result(s), "edges": None}

    def walk(n):
        s = n["state"]
        if n["result"] is not None:
            return result_value(n["result"], s.mover)
        if n["edges"] is None:
            kids = moves(s)
            vals = [result_value(result(c), s.mover) if result(c) is not None
                    else remembered("value", value_for, c, s.mover) for _, c in kids]
            best = max(vals)
            z = sum(math.exp(v - best) for v in vals)
            n["edges"] = [{"move": m, "p": math.exp(v - best) / z, "n": 0, "w": 0.0, "child": c, "node": None}
                          for (m, c), v in zip(kids, vals)]
            return best
        sq = math.sqrt(sum(e["n"] for e in n["edges"]) + 1e-8)
        pick, top = None, -math.inf
        for e in n["edges"]:
            u = (e["w"] / e["n"] if e["n"] else 0.0) + e["p"] * sq / (1 + e["n"])
            if u > top:
                pick, top = e, u
        if pick["node"] is None:
            pick["node"] = node(pick["child"])
        v1 = walk(pick["node"])
        v = v1 if pick["child"].mover == s.mover else -v1
        pick["n"] += 1
        pick["w"] += v
        return v

    root = node(state)
    for _ in range(iterations):
        walk(root)
    return {e["move"]: e["n"] for e in root["edges"]}


@pytest.mark.parametrize("game, games_trained", [("tictactoe", 300), ("boxes(2,2)", 200)])
def test_the_puct_wrapper_visits_as_a_reference_search_written_here(kb, game, games_trained):
    """mcts:N+AGENT (rules/search.pl, puct/2) against reference_puct over the same agent's leaf
    values: the same visit counts at the root after 1, 9 and 120 iterations, from the start and from
    positions of a random game (dots and boxes: a player who closes a box moves again, so the
    sign does not simply alternate)."""
    import random

    from educable.bridge.engine import engine, quote
    assert cli("train", game, "--learner", "ntuple", "--agent", "pz", "--games", str(games_trained)).exit_code == 0
    agents.chooser(kb, game, "mcts:5+pz")             # loads the agent into Prolog
    g = quote(game)

    def value_for(state, player):
        return engine().call(f"game:parse_position({g}, {quote(state.key)}, P, _), "
                             f"play:leaf_value(agent(pz), {g}, P, {quote(player)}, Out)")

    rng = random.Random(4)
    state, states = games.initial(game), []
    while games.result(state) is None:
        states.append(state)
        state = rng.choice(games.moves(state))[1]
    memo: dict = {}
    for s in states[:4]:
        for n in (1, 9, 120):
            got = dict(engine().call(f"game:parse_position({g}, {quote(s.key)}, P, M), "
                                     f"search:search_scores(puct({n}, agent(pz)), {g}, P, M, S), "
                                     f"findall([T, V], (member(V-Mv, S), game:move_text({g}, Mv, T)), Out)"))
            assert got == reference_puct(s, n, value_for, memo), (s.key, n)


def test_the_puct_wrapper_with_one_iteration_plays_as_the_agent_and_lifts_a_weak_one(kb):
    """mcts:1+AGENT plays the agent's own move everywhere (the exact judgements agree); with more
    iterations a weak connect-three agent (connect(3,4,3), a first player's win) that loses as first
    wins. (Tic-tac-toe shows the same, but judging a search at each of its 5,478 positions took
    four times as long.)"""
    game = "connect(3,4,3)"
    assert cli("train", game, "--learner", "ntuple", "--agent", "weak", "--games", "100").exit_code == 0
    alone = commands.evaluate_exact(kb, game, "weak")
    one = commands.evaluate_exact(kb, game, "mcts:1+weak")
    assert [alone[s]["guaranteed"] for s in ("as_first", "as_second")] == \
        [one[s]["guaranteed"] for s in ("as_first", "as_second")]
    assert alone["as_first"]["guaranteed"] == "loss" and not alone["as_first"]["perfect"]
    lifted = commands.evaluate_exact(kb, game, "mcts:20+weak")         # 20 iterations are enough
    assert lifted["as_first"]["perfect"] and lifted["as_second"]["perfect"]


def test_connect_four_fixed_positions_are_measured_as_the_agent_plays_them(kb):
    """The strength curve's measure on Connect Four (FixedPositions, in numpy) picks, in every fixed
    position where the agent's best move is unique, the move Prolog's own n-tuple chooser scores
    best; the accuracy it stores with each commit is read back by `runs`."""
    from educable.bridge.engine import engine, quote
    r = commands.train(kb, "connect(4,7,6)", "ntuple", "c4m", 1500, "self", "both", 2, {"tuples": 12, "length": 4})
    assert r["strength"] and r["strength"][-1]["games"] == 1500
    fixed = ntuple.FixedPositions("connect(4,7,6)")
    net, _ = ntuple.net_from_row(kb, store.get_agent(kb, "c4m"))
    agents.chooser(kb, "connect(4,7,6)", "c4m")
    g = quote("connect(4,7,6)")
    checked = 0
    for line, texts, k in zip(fixed.lines, fixed.texts, fixed.choices(net)):
        state = games.initial("connect(4,7,6)")
        for m in line:
            state = games.play(state, m)
        scored = engine().call(f"game:parse_position({g}, {quote(state.key)}, P, M), "
                               f"play:scored_moves(agent(c4m), {g}, P, M, S), "
                               f"findall([V, T], (member(V-Mv, S), game:move_text({g}, Mv, T)), Out)")
        best = max(v for v, _ in scored)
        top = [t for v, t in scored if v == best]
        if len(top) == 1:
            assert texts[k] == top[0], line
            checked += 1
    assert checked > 200
    right = sum(good[k] for good, k in zip(fixed.good, fixed.choices(net)))
    assert r["strength"][-1]["accuracy"] == round(right / 300, 4)
    points = commands.run_detail(kb, commands.list_runs(kb, "c4m")[0]["id"])["points"]
    assert points[-1]["strength"] == {"kind": "accuracy", "positions": 300, "accuracy": r["strength"][-1]["accuracy"]}


def test_tic_tac_toe_curve_reaches_perfect_where_the_run_says(kb):
    """The strength stored with a tic-tac-toe run's last curve point is the run's own end judgement
    (perfect as both sides after 2,000 games with the defaults, as the README says)."""
    r = commands.train(kb, "tictactoe", "ntuple", "ttc", 2000, "self", "both", 0, {})
    points = commands.run_detail(kb, commands.list_runs(kb, "ttc")[0]["id"])["points"]
    last = points[-1]["strength"]
    assert points[-1]["games"] == 2000 and last["kind"] == "exact"
    for side in ("as_first", "as_second"):
        assert last[side]["perfect"] == r["exact"][side]["perfect"]
        assert last[side]["guaranteed"] == r["exact"][side]["guaranteed"]
    assert last["share"] == 1.0
