"""Games of any size: the stored graph, the size bound, and what still works on a game
too large to enumerate (search opponents, sampled eval, depth-limited query, training)."""

import pytest

from conftest import cli as run
from conftest import cli_json as run_json
from conftest import kb_dump
from educable.bridge import games, graphs, limits

C4 = "connect(4,7,6)"




def refused(r, *words):
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("educable: error:"), r.output
    for w in words:
        assert w in lines[0], lines[0]


# ------------------------------------------------------------ the size bound
def test_a_game_past_the_limit_is_refused_in_one_line_and_the_kb_is_unchanged(db_path):
    run_json("solve", "tictactoe")
    before = kb_dump(db_path)
    refused(run("solve", C4), "too large", "4,531,985,219,092", "mcts")           # its file's lower bound
    refused(run("solve", "connect(3,4,4)", "--max-positions", "1000"), "too large", "past the limit of 1,000")
    refused(run("eval", "connect(3,4,4)", "random", "--exact", "--max-positions", "1000"), "too large")
    assert kb_dump(db_path) == before


@pytest.mark.parametrize("value", ["0", "-5", "200000001", "lots"])
def test_max_positions_out_of_range_is_one_line(db_path, value):
    refused(run("solve", "tictactoe", "--max-positions", value), "--max-positions")


def test_the_environment_variable_sets_the_limit(db_path, monkeypatch):
    monkeypatch.setenv(limits.ENV_MAX, "500")
    refused(run("solve", "tictactoe"), "past the limit of 500")
    monkeypatch.setenv(limits.ENV_MAX, "nonsense")
    refused(run("solve", "tictactoe"), limits.ENV_MAX)


# --------------------------------------------------------- the stored graph
def test_a_solved_game_is_read_back_not_compiled(db_path, monkeypatch):
    first = run_json("solve", "connect(3,4,4)")
    assert (first["positions"], first["terminal"], first["classes"], first["winner"]) == (41750, 17820, 20890, "x")
    graphs._CACHE.clear()                      # as a new process would start

    def no_compiling(*a, **k):
        raise AssertionError("compiled again although the graph is stored")
    monkeypatch.setattr(graphs, "compile_graph", no_compiling)
    again = run_json("solve", "connect(3,4,4)")
    assert again["stored"] is True and again["positions"] == 41750
    q = run_json("query", "connect(3,4,4)", "..../..../..../....")
    assert q["exact_source"] == "stored" and q["exact"] == "x"
    e = run_json("eval", "connect(3,4,4)", "random", "--exact")
    assert e["as_first"]["guaranteed"] == "loss"          # random can always be beaten
    # a changed game file makes the stored graph stale: it is rebuilt
    monkeypatch.setattr(games, "rules_hash", lambda game: "another version of the file")
    graphs._CACHE.clear()
    with pytest.raises(AssertionError, match="compiled again"):
        graphs.solved_graph(__import__("educable.kb.db", fromlist=["open_kb"]).open_kb(db_path), "connect(3,4,4)")


# ------------------------------------------------------- search opponents
@pytest.mark.parametrize("chooser", ["alphabeta:2", "mcts:300"])
def test_search_opponents_take_a_win_and_block_a_loss(db_path, chooser):
    # x to move with three in the bottom row: column 4 wins at once
    win = "......./......./......./......./ooo..../xxx...."
    # (o to move would answer x's threat in column 4)
    from educable.bridge import agents, games
    from educable.kb.db import open_kb
    term = agents.chooser(open_kb(db_path), C4, chooser)
    games.seed_random(1)
    assert games.choose(games.parse(C4, win), term) == "4"
    block = "......./......./......./......./o....../xxx...o"
    assert games.choose(games.parse(C4, block), term) == "4"


def test_full_depth_alphabeta_plays_tictactoe_perfectly(db_path):
    d = run_json("eval", "tictactoe", "alphabeta:9", "--exact")
    assert d["as_first"]["perfect"] and d["as_second"]["perfect"]
    assert d["as_first"]["subgame_perfect"] and d["as_second"]["subgame_perfect"]


@pytest.mark.parametrize("name,words", [
    ("alphabeta:0", ["alphabeta:N", "1 to 12"]), ("mcts:lots", ["mcts:N", "playouts"]),
    ("mcts:", ["mcts:N"]), ("alphabeta:99", ["1 to 12"]),
])
def test_bad_search_opponents_are_one_line(db_path, name, words):
    refused(run("eval", C4, name, "--vs", "random", "--games", "2"), *words)


def test_minimax_is_refused_at_once_on_a_game_it_cannot_table(db_path):
    refused(run("eval", C4, "random", "--vs", "minimax", "--games", "2"), "minimax", "alphabeta:DEPTH")


def test_mcts_beats_random_at_connect_four_with_intervals(db_path):
    d = run_json("eval", C4, "mcts:200", "--vs", "random", "--games", "6", "--seed", "2")
    for side in ("as_first", "as_second"):
        assert d[side]["win"] == 3
        lo, hi = d[side]["interval95"]["win"]
        assert 0.43 < lo < 0.44 and hi == 1.0            # Wilson, 3 of 3: [0.4385, 1]


# ------------------------------------------------------ depth-limited query
def test_query_of_a_huge_game_is_a_labelled_depth_limited_search(kb, monkeypatch):
    from educable.bridge import perfect, querying
    position = "......./......./......./......./ooo..../xxx...."
    q = querying.query(kb, C4, position)                 # the perfect player installed: its values
    assert q["exact_source"] == "the perfect player (bitbully)" and q["exact"] == "x"
    assert q["perfect"]["4"] == {"score": 18, "result": "win", "moves": 1}
    monkeypatch.setattr(perfect, "available", lambda: False)       # without it: a depth-limited search
    q = querying.query(kb, C4, position, depth=3)
    assert q["exact_source"] == "depth-limited search (3 plies)"
    by_move = {m["move"]: (m["exact"], m["plies"]) for m in q["moves"]}
    assert by_move["4"] == ("x", 1)
    assert q["exact"] == "x"
    assert by_move["1"][0] in ("o", "unknown")          # o then wins in column 4, or later
    refused(run("query", C4, "......./......./......./......./......./.......", "--depth", "0"), "--depth")


def test_query_below_a_small_enough_position_is_exact(db_path):
    q = run_json("query", "connect(3,4,4)", "x.../o.../x.../o...")
    assert q["exact_source"] == "searched"


# ----------------------------------------------------------------- training
def test_punish_trains_on_connect_four_and_skips_the_exact_judgement(db_path):
    before = run_json("agents")
    d = run_json("train", C4, "--agent", "c4", "--games", "60", "--vs", "random", "--seed", "1")
    assert d["games"] == 60 and d["exact"] is None and "too large" in d["exact_skipped"]
    assert len(run_json("agents")) == len(before) + 1
    e = run_json("eval", C4, "c4", "--vs", "random", "--games", "4")
    assert sum(e["as_first"][k] for k in ("win", "draw", "loss")) == 2


def test_qlearn_trains_on_states_it_meets_expanded_in_batches(db_path):
    d = run_json("train", C4, "--learner", "qlearn", "--agent", "q4", "--games", "300", "--vs", "random", "--seed", "3")
    lazy = d["lazy"]
    assert d["games"] == 300 and d["exact"] is None
    assert lazy["expanded"] == lazy["states_met"] > 300 * 4      # every game meets several new states
    assert lazy["prolog_queries"] < lazy["states_met"] / 20       # batches, never a query per move
    again = run_json("train", C4, "--learner", "qlearn", "--agent", "q5", "--games", "300", "--vs", "random",
                     "--seed", "3")
    assert again["results"] == d["results"]                      # the same seed, the same run
    e = run_json("eval", C4, "q4", "--vs", "random", "--games", "4")
    assert e["as_first"]["win"] + e["as_first"]["draw"] + e["as_first"]["loss"] == 2
    refused(run("train", C4, "--learner", "qlearn", "--agent", "q6", "--vs", "mcts:10"), "self or random")
    refused(run("train", C4, "--learner", "qlearn", "--agent", "q7", "--illegal", "stay"), "--illegal resample")


def test_lazy_expansion_meets_exactly_the_states_of_a_compiled_graph(db_path):
    """On a game small enough to compile, the lazily grown graph agrees with the compiled one
    on every state it met: same mover, result and moves."""
    from educable.bridge import games as games_mod
    from educable.bridge import qlearn as q_bridge
    from educable.learners.qlearn import LazyStates
    full = graphs.state_graph(None, "connect(3,4,4)")
    lazy = LazyStates(games_mod.initial("connect(3,4,4)").key, q_bridge.expander("connect(3,4,4)", full.players))
    frontier = [0]
    for _ in range(4):                                  # four plies, breadth first
        lazy.expand(frontier)
        frontier = [lazy.follow(s, a) for s in frontier for a in lazy.legal[s]]
    for s, key in enumerate(lazy.keys):
        if not lazy.expanded[s]:
            continue
        i = full.index[key]
        assert lazy.mover[s] == int(full.mover[i]) and lazy.winner[s] == int(full.winner[i])
        got = {lazy.actions[a]: lazy.keys[lazy.nxt[s][a]] for a in lazy.legal[s] if lazy.nxt[s][a] >= 0}
        want = {full.move_text[e]: full.keys[full.target[e]] for e in full.edges(i)}
        assert got.items() <= want.items() and set(lazy.actions[a] for a in lazy.legal[s]) == set(want)


@pytest.mark.parametrize("learner", ["punish", "qlearn"])
def test_agents_move_in_and_out_of_prolog_in_pages(db_path, monkeypatch, learner):
    """A large agent is loaded and saved in pages of ROWS_PER_CALL rows; pages of 7 rows give
    the same agent as one page would."""
    from educable.bridge import agents, punish, qlearn
    from educable.bridge.engine import engine, quote
    from educable.kb import store
    from educable.kb.db import open_kb
    run_json("train", "tictactoe", "--learner", learner, "--agent", "a", "--games", "200", "--vs", "random")
    kb = open_kb(db_path)
    stored = store.load_values(kb, "a")
    assert len(stored) > 50
    monkeypatch.setattr(punish if learner == "punish" else qlearn, "ROWS_PER_CALL", 7)
    agents.learner_of(store.get_agent(kb, "a")).load(kb, store.get_agent(kb, "a"))
    if learner == "punish":
        inside = engine().call(f"punish:punish_values({quote('a')}, Out)")
        assert sorted((k, view, float(v), n) for k, view, v, n in inside) == sorted(
            (k, view, float(v), n) for k, view, v, n in stored)
        punish.save(kb, "a", "tictactoe", store.get_agent(kb, "a")["params"], 0)
        assert sorted(store.load_values(kb, "a")) == sorted(stored)
    else:
        inside = engine().call(f"findall([X, M, L, R], qtable:q({quote('a')}, X, M, tie(L, R)), Out)")
        bounds = store.load_values(kb, "a", bounds=True)    # the default agent plays by (lower bound, vs random)
        assert len(inside) == len(stored) == len(bounds)
        assert sorted(map(tuple, inside)) == sorted((x, m, float(lo), float(vr)) for x, m, lo, _, _, vr in bounds)


def test_demo_solves_the_shipped_games_and_shows_a_huge_one(kb):
    from educable.bridge import demo
    lines = list(demo.solve_all(kb)) + list(demo.too_large(kb))
    text = "\n".join(lines)
    assert "connect(3,4,4)   41,750 positions" in text and "x wins" in text
    assert "nim(1,3,5)           88 positions" in text
    assert "refused at once" in text and "won 10 of 10" in text


def test_minimax_on_an_unsolved_game_of_unknown_size_is_sized_first(db_path):
    refused(run("eval", "connect(3,5,4)", "random", "--vs", "minimax", "--games", "2"), "run educable solve")
    d = run_json("eval", "nim(1,3,5)", "random", "--vs", "minimax", "--games", "4")   # small: solved on the way
    assert d["as_second"]["loss"] == 2      # 1 xor 3 xor 5 is not 0: minimax as first beats random every time


def test_a_stated_size_refuses_what_needs_every_position_but_lets_a_folded_solve_through(db_path):
    """4x4 tic-tac-toe states its 9,722,011 positions: every position is past the default limit,
    but its 8 symmetries bring the solved graph under it (so solve is not refused at once, and
    eval --exact of random would judge on the classes); under a limit of 1,000,000 the classes are
    past it too, and exact judgement is refused at once with the plain reason."""
    from educable.kb.db import open_kb
    open_kb(db_path)
    before = kb_dump(db_path)
    refused(run("eval", "tictactoe(4,4,4)", "random", "--exact", "--max-positions", "1000000"),
            "judging exactly needs every position", "9,722,011 positions", "past the limit of 1,000,000")
    refused(run("eval", "tictactoe(4,4,4)", "random", "--vs", "minimax", "--games", "2"), "minimax", "9,722,011")
    refused(run("solve", "tictactoe(4,4,4)", "--max-positions", "1000000"), "1,215,251 symmetry classes")
    assert kb_dump(db_path) == before
