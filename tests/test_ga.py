"""Genetic rule sets (Gaia's "Ejemplos de Vida"): the choice rule, scoring, breeding, every option, rule files, the CLI."""
import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from conftest import kb_dump
from educable.bridge import agents, games, graphs
from educable.bridge import ga as ga_bridge
from educable.cli import main
from educable.learners import exact, ga
from educable.learners.ga import GAOptions, Population
from reference_games import TTT, reachable, solve

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "never_lose_as_x.pl"


def run(*args):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def ttt():
    return ga_bridge.rule_space("tictactoe")


@pytest.fixture(scope="module")
def hexa():
    return ga_bridge.rule_space("hexapawn")


def population(space, rows):
    """A Population from rule rows per agent: (condition text, action text, priority, weight)."""
    n_rules = len(rows[0])
    cond = np.array([[space.parse_condition(c) for c, _, _, _ in agent] for agent in rows], dtype=np.int8)
    action = np.array([[space.action_index[a] for _, a, _, _ in agent] for agent in rows], dtype=np.int16)
    prio = np.array([[p for _, _, p, _ in agent] for agent in rows], dtype=np.int8)
    weight = np.array([[w for _, _, _, w in agent] for agent in rows], dtype=np.float64)
    assert cond.shape[1] == n_rules
    return Population(cond, action, prio, weight, np.zeros(len(rows)), np.zeros(len(rows), dtype=np.int64))


# ---------------------------------------------------------------- the choice rule
def reference_choice(board: str, mover: str, rules) -> list[str]:
    """"Ejemplos de Vida"'s B/C/D, written here from Gaia's text over the reference board strings."""
    me = {"x": "m", "o": "t", ".": "."} if mover == "x" else {"o": "m", "x": "t", ".": "."}
    seen = [me[ch] for ch in board]
    legal = [str(i + 1) for i in range(9) if board[i] == "."]
    b = [r for r in rules if all(c in ("*", s) for c, s in zip(r[0].replace("/", ""), seen)) and r[1] in legal]
    if not b:
        return sorted(legal)
    c = [r for r in b if r[2] == max(r[2] for r in b)]
    d = [r for r in c if r[3] == max(r[3] for r in c)]
    return sorted(r[1] for r in d)


def random_rule_rows(rng: random.Random, n: int):
    rows = []
    for _ in range(n):
        cond = "".join(rng.choice(".mt*") for _ in range(9))
        cond = cond[:3] + "/" + cond[3:6] + "/" + cond[6:]
        # any action: rules with an occupied action square must simply never fire
        rows.append((cond, str(rng.randint(1, 9)), rng.randint(0, 2), rng.choice([0, 0, 1, 2])))
    return rows


def test_prolog_agent_chooses_as_the_seed_says_on_every_state(kb):
    """rules/ruleset.pl against the reference on all 4,520 live tic-tac-toe states, multiplicity included."""
    rng = random.Random(5)
    # many conditions with wildcards so that B, C and D all have ties somewhere
    rules = random_rule_rows(rng, 60) + [("***/*.*/***", "5", 2, 0), ("***/*.*/***", "5", 2, 0),
                                         ("*.*/***/***", "2", 2, 0)]
    from educable.kb import store
    store.save_rule_sets(kb, "ref", "tictactoe", "rules", {}, [(0.0, 0, rules)], 0)
    table = games.policy_table(graphs.state_graph(None, "tictactoe"), agents.chooser(kb, "tictactoe", "ref"))
    graph = graphs.state_graph(None, "tictactoe")
    states = reachable(TTT)
    compared = 0
    for s, key in enumerate(graph.keys):
        board, mover = states[key]
        if TTT["result"]((board, mover)):
            assert table[s] == []
            continue
        assert sorted(table[s]) == reference_choice(board, mover, rules), key
        compared += 1
    assert compared == 5478 - 958


@pytest.mark.parametrize("game, turn_rules", [("tictactoe", 0.0), ("hexapawn", 0.0), ("hexapawn", 0.5),
                                               ("nim(1,3,5)", 0.5)])
def test_numpy_choice_equals_prolog_choice(kb, game, turn_rules):
    """The training side (numpy) and the playing side (Prolog) give the same candidates everywhere,
    rules that name whose turn it is and boards of more than three values (Nim's heaps) included."""
    space = ga_bridge.rule_space(game)
    rng = np.random.default_rng(3)
    pop = Population.random(space, GAOptions(agents=4, rules=40, priorities=2, turn_rules=turn_rules).check(), rng)
    if turn_rules:
        assert (pop.cond[..., -1] != space.any).any() and (pop.cond[..., -1] == space.any).any()
    pop.rule_weight[:] = rng.integers(-1, 2, size=pop.rule_weight.shape)
    ga_bridge.save_population(kb, "pop", game, "ga", {}, space, pop, 0, None)
    for k in range(2):
        table = games.policy_table(graphs.state_graph(None, game), agents.chooser(kb, game, f"pop#{k + 1}"))
        from_prolog = exact.support_from_moves(space.graph, table)
        assert [sorted(e) for e in from_prolog] == [sorted(e) for e in ga.agent_support(space, pop, k)]


def test_generated_rules_are_valid(ttt, hexa):
    """Gaia's page: generated rules are always valid: here, the action is legal in every reachable position
    the condition matches (checked on the reference game)."""
    rng = np.random.default_rng(0)
    cond, action, _ = ttt.random_rules(rng, 400, 4)
    live = [s for s in reachable(TTT).values() if not TTT["result"](s)]
    for c, a in zip(cond, action):
        cell = int(ttt.actions[a]) - 1
        text = "".join(".mt*"[x] for x in c)
        for board, mover in live:
            mine = {"x": "m", "o": "t", ".": "."} if mover == "x" else {"o": "m", "x": "t", ".": "."}
            if all(t in ("*", mine[b]) for t, b in zip(text, board)):
                assert board[cell] == ".", (text, ttt.actions[a], board)
    cond, action, _ = hexa.random_rules(rng, 300, 4)
    assert all(hexa.counterexample(c, int(a)) is None for c, a in zip(cond, action))


# ---------------------------------------------------------------- scoring
X_ROW = [(".**/***/***", "1", 3, 0), ("m.*/***/***", "2", 3, 0), ("mm./***/***", "3", 3, 0),
         ("ttt/ttt/ttt", "1", 0, 0)]       # the last never matches
O_COL = [("***/.**/***", "4", 3, 0), ("***/m.*/***", "5", 3, 0), ("***/***/***", "9", 0, 0),
         ("ttt/ttt/ttt", "1", 0, 0)]


def test_win_and_loss_score_agent_and_used_rules(ttt):
    pop = population(ttt, [X_ROW, O_COL])
    sides, winner, used, stats = ga.play_pairs(ttt, pop, np.array([[0, 1]]), 1, np.random.default_rng(0))
    assert winner.tolist() == [0]                     # x1 o4 x2 o5 x3: X wins
    assert (stats.rule_moves, stats.random_moves, stats.draws) == (5, 0, 0)
    ga.score(ttt, pop, sides, winner, used, shared=False)
    assert pop.weight.tolist() == [1.0, -1.0]
    assert pop.rule_weight.tolist() == [[1, 1, 1, 0], [-1, -1, 0, 0]]


def test_second_game_of_a_pair_swaps_sides(ttt):
    pop = population(ttt, [X_ROW, O_COL])
    sides, _, _, _ = ga.play_pairs(ttt, pop, np.array([[0, 1]]), 3, np.random.default_rng(0))
    assert sides.tolist() == [[0, 1], [1, 0], [0, 1]]


def test_shared_knowledge_rewards_equal_rules_everywhere(ttt):
    third = [X_ROW[0], ("ttt/ttt/ttt", "2", 0, 0), ("ttt/ttt/ttt", "3", 0, 0), ("ttt/ttt/ttt", "4", 0, 0)]
    pop = population(ttt, [X_ROW, O_COL, third, third])
    sides, winner, used, _ = ga.play_pairs(ttt, pop, np.array([[0, 1]]), 1, np.random.default_rng(0))
    ga.score(ttt, pop, sides, winner, used, shared=True)
    assert pop.rule_weight[2].tolist() == [1, 0, 0, 0]     # holds X's opening rule, never played
    assert pop.rule_weight[0].tolist() == [1, 1, 1, 0]
    assert pop.weight.tolist() == [1, -1, 0, 0]


# ---------------------------------------------------------------- breeding and options
def numbered_population(ttt, n_agents, n_rules, seed=0):
    pop = Population.random(ttt, GAOptions(agents=n_agents, rules=n_rules).check(), np.random.default_rng(seed))
    pop.rule_weight[:] = np.arange(n_agents)[:, None] * 100 + np.arange(n_rules)[None, :] + 1
    return pop


def test_children_take_rules_alternately(ttt):
    pop = numbered_population(ttt, 4, 6)
    before = pop.rule_weight.copy()
    ga.breed(ttt, pop, GAOptions(agents=4, rules=6, mutation=0.0).check(), np.random.default_rng(0))
    mother, father = before[0], before[1]
    assert pop.rule_weight[2].tolist() == [mother[0], father[1], mother[2], father[3], mother[4], father[5]]
    assert pop.rule_weight[3].tolist() == [father[0], mother[1], father[2], mother[3], father[4], mother[5]]
    assert pop.weight[2:].tolist() == [0, 0]


def test_inherit_heavier_takes_the_heavier_rule(ttt):
    pop = numbered_population(ttt, 4, 6)
    pop.rule_weight[0] = [5, 0, 5, 0, 5, 0]
    pop.rule_weight[1] = [0, 7, 0, 7, 0, 7]
    ga.breed(ttt, pop, GAOptions(agents=4, rules=6, mutation=0.0, inherit="heavier").check(),
             np.random.default_rng(0))
    assert pop.rule_weight[2].tolist() == [5, 7, 5, 7, 5, 7] == pop.rule_weight[3].tolist()


def test_mutation_one_replaces_every_child_rule(ttt):
    pop = numbered_population(ttt, 4, 6)
    ga.breed(ttt, pop, GAOptions(agents=4, rules=6, mutation=1.0).check(), np.random.default_rng(0))
    assert (pop.rule_weight[2:] == 0).all() and (pop.rule_weight[:2] > 0).all()


def test_identical_parents_give_fully_mutated_children(ttt):
    pop = numbered_population(ttt, 4, 6)
    for name in ("cond", "action", "priority"):
        getattr(pop, name)[1] = getattr(pop, name)[0]
    ga.breed(ttt, pop, GAOptions(agents=4, rules=6, mutation=0.0, identical=True).check(), np.random.default_rng(0))
    assert (pop.rule_weight[2:] == 0).all()
    pop2 = numbered_population(ttt, 4, 6)
    for name in ("cond", "action", "priority"):
        getattr(pop2, name)[1] = getattr(pop2, name)[0]
    ga.breed(ttt, pop2, GAOptions(agents=4, rules=6, mutation=0.0).check(), np.random.default_rng(0))
    assert (pop2.rule_weight[2:] > 0).all()


@pytest.mark.parametrize("selection,parents,places", [
    ("half", 20, range(20, 40)), ("top10", 4, range(4, 40)), ("top20", 8, range(8, 40)),
    ("top40-worst10", 20, range(16, 36))])
def test_selection_schemes_replace_the_right_ranks(ttt, selection, parents, places):
    best, worst = ga.selection_sizes(selection, 40)
    assert best + worst == parents
    pop = numbered_population(ttt, 40, 3)
    pop.cycles = 7
    ga.breed(ttt, pop, GAOptions(selection=selection, rules=3, mutation=0.0).check(), np.random.default_rng(0))
    assert np.flatnonzero(pop.born == 7).tolist() == list(places)


def test_parents_in_weight_order_or_at_random():
    parents = np.arange(6)
    assert ga.couples(parents, 4, "weight", np.random.default_rng(0)) == [(0, 1), (2, 3), (4, 5), (0, 1)]
    pairs = ga.couples(parents, 200, "random", np.random.default_rng(0))
    assert all(a != b for a, b in pairs) and len(set(pairs)) > 10


def test_accumulated_mutations_follow_a_mutation():
    rng = np.random.default_rng(0)
    mask = ga.mutation_mask(rng, (2000, 50), 0.01, 0.9)
    after_mut = mask[:, 1:][mask[:, :-1]].mean()
    after_keep = mask[:, 1:][~mask[:, :-1]].mean()
    assert after_mut == pytest.approx(0.9, abs=0.03) and after_keep == pytest.approx(0.01, abs=0.005)
    plain = ga.mutation_mask(rng, (2000, 50), 0.01, None)
    assert plain[:, 1:][plain[:, :-1]].mean() < 0.05


def test_fitness_sharing_ranks_down_clones(ttt):
    pop = numbered_population(ttt, 4, 5)
    for name in ("cond", "action", "priority"):
        getattr(pop, name)[1] = getattr(pop, name)[0]
    pop.weight[:] = [3, 3, 2, 0]
    plain = ga.rank(ttt, pop, GAOptions(agents=4, rules=5).check(), np.random.default_rng(0))
    assert set(plain[:2].tolist()) == {0, 1}
    shared = ga.rank(ttt, pop, GAOptions(agents=4, rules=5, sharing=2.0).check(), np.random.default_rng(0))
    assert shared[0] == 2


def test_dedupe_and_weak_rules_become_mutations(ttt):
    pop = numbered_population(ttt, 4, 6)
    for name in ("cond", "action", "priority"):
        getattr(pop, name)[0, 3] = getattr(pop, name)[0, 1]
    ga.tidy(ttt, pop, GAOptions(agents=4, rules=6, dedupe=True).check(), np.random.default_rng(0))
    assert pop.rule_weight[0].tolist() == [1, 2, 3, 0, 5, 6]
    pop = numbered_population(ttt, 4, 6)
    pop.cycles = 3
    ga.tidy(ttt, pop, GAOptions(agents=4, rules=6, weak=2, weak_every=2).check(), np.random.default_rng(0))
    assert pop.rule_weight[0].tolist() == [1, 2, 3, 4, 5, 6]          # cycle 3: not this time
    pop.cycles = 4
    ga.tidy(ttt, pop, GAOptions(agents=4, rules=6, weak=2, weak_every=2).check(), np.random.default_rng(0))
    assert pop.rule_weight[0].tolist() == [0, 0, 3, 4, 5, 6]


def test_nudge_makes_two_in_a_line_rules(ttt):
    cond, action, _ = ttt.random_rules(np.random.default_rng(0), 300, 4, nudge=1.0)
    for c, a in zip(cond, action):
        cell = int(ttt.actions[a])
        lines = [line for line in ttt.lines if cell in line]
        assert any(c[cell - 1] == 0 and len({int(c[x - 1]) for x in line if x != cell} - {0, 3}) == 1
                   and all(c[x - 1] in (1, 2) for x in line if x != cell) for line in lines)


def test_options_are_checked():
    for bad in (dict(agents=0), dict(agents=3), dict(rules=0), dict(mutation=1.5), dict(nudge=-0.1),
                dict(burst=2.0), dict(selection="best"), dict(agents=4, selection="top10")):
        with pytest.raises(ValueError):
            GAOptions(**bad).check()


# ---------------------------------------------------------------- runs, the knowledge base, the CLI
def train_json(*extra):
    r = run("train", "tictactoe", "--learner", "ga", *extra, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def test_same_seed_same_population(tmp_path, monkeypatch):
    dumps = []
    for i in range(2):
        monkeypatch.setenv("EDUCABLE_DB", str(tmp_path / f"{i}.db"))
        train_json("--agent", "g", "--cycles", "15", "--agents", "10", "--rules", "20", "--seed", "4")
        dumps.append([l for l in kb_dump(tmp_path / f"{i}.db") if "INSERT INTO \"rules\"" in l
                      or "INSERT INTO \"members\"" in l])
    assert dumps[0] == dumps[1] and len(dumps[0]) == 10 + 200


def test_train_stores_population_and_continues(db_path):
    d = train_json("--agent", "g", "--cycles", "12", "--agents", "8", "--rules", "10", "--judge-every", "4")
    assert d["games"] == 12 * 4 * 5 and [c["cycle"] for c in d["curve"]] == [4, 8, 12]
    assert len(d["per_cycle"]["draws"]) == 12
    assert all(rm + rd > 0 for rm, rd in zip(d["per_cycle"]["rule_moves"], d["per_cycle"]["random_moves"]))
    d2 = train_json("--agent", "g", "--cycles", "3", "--mutation", "0.2")
    assert d2["total_cycles"] == 15 and d2["options"]["mutation"] == 0.2 and d2["options"]["agents"] == 8
    r = run("agents", "g", "--rules", "--json")
    members = json.loads(r.output)["members"]
    assert [m["member"] for m in members] == [f"g#{k}" for k in range(1, 9)]
    assert all(len(m["rules"]) == 10 for m in members)
    assert members[0]["weight"] >= max(m["weight"] for m in members[1:] if m["born"] < 15)
    one = json.loads(run("agents", "g#2", "--rules", "--json").output)["members"]
    assert [m["member"] for m in one] == ["g#2"]


def test_any_member_plays_and_is_judged(db_path):
    train_json("--agent", "g", "--cycles", "3", "--agents", "4", "--rules", "10")
    r = run("eval", "tictactoe", "g#4", "--vs", "random", "--games", "20", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert sum(d[s][k] for s in ("as_first", "as_second") for k in ("win", "draw", "loss")) == 20
    assert run("eval", "tictactoe", "g#5", "--exact").exit_code == 2
    moves = "1\n2\n3\n4\n5\n6\n7\n8\n9\n"
    r = CliRunner().invoke(main, ["play", "tictactoe", "--opponent", "g#2", "--seed", "1"], input=moves * 2)
    assert r.exit_code == 0, r.output


def test_example_never_loses_as_x(db_path):
    """The shipped hand-written file: at most 100 rules, and X never loses (exact)."""
    r = run("rules", "import", str(EXAMPLE), "--agent", "careful", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["rules"] <= 100
    d = json.loads(run("eval", "tictactoe", "careful", "--exact", "--json").output)
    assert d["as_first"]["guaranteed"] == "draw"


def test_export_import_round_trip_plays_the_same(db_path, tmp_path):
    train_json("--agent", "g", "--cycles", "5", "--agents", "4", "--rules", "30")
    out = tmp_path / "g3.pl"
    assert run("rules", "export", "g#3", str(out)).exit_code == 0
    assert run("rules", "import", str(out), "--agent", "copy").exit_code == 0
    from educable.kb.db import open_kb
    db = open_kb(db_path)
    a = games.policy_table(graphs.state_graph(None, "tictactoe"), agents.chooser(db, "tictactoe", "g#3"))
    b = games.policy_table(graphs.state_graph(None, "tictactoe"), agents.chooser(db, "tictactoe", "copy"))
    assert [sorted(x) for x in a] == [sorted(x) for x in b]


def test_hand_edit_changes_play(db_path, tmp_path):
    f = tmp_path / "mine.pl"
    f.write_text("rule_set(tictactoe).\nrule('mm./***/***', '3', 3, 0).\n")
    assert run("rules", "import", str(f), "--agent", "finisher").exit_code == 0
    from educable.kb.db import open_kb
    state = games.parse("tictactoe", "xx./oo./...")
    ch = agents.chooser(open_kb(db_path), "tictactoe", "finisher")
    assert {games.choose(state, ch) for _ in range(10)} == {"3"}


BAD_FILES = [
    ("rule_set(tictactoe).\nrule('mm./***/***', '3', 3, 0).\nrule('mm./***/**', '3', 3, 0).\n", ":3:", "has 8 cells"),
    ("rule_set(tictactoe).\nrule('mx./***/***', '3', 3, 0).\n", ":2:", "bad symbol 'x'"),
    ("rule_set(tictactoe).\nrule('mm*/***/***', '3', 3, 0).\n", ":2:", "not legal"),
    ("rule_set(tictactoe).\nrule('mm./***/***', '10', 3, 0).\n", ":2:", "not a tictactoe move"),
    ("rule_set(tictactoe).\n\nrule('mm./***/***', '3', 3,, 0).\n", ":3:", "syntax error"),
    ("rule_set(tictactoe).\nrule(a, b).\n", ":2:", "expected rule("),
    ("rule('mm./***/***', '3', 3, 0).\n", "", "no rule_set"),
    ("rule_set(hexapawn).\nrule('mm./***/***', '1-4', 3, 0).\n", "", "not tictactoe"),
]


@pytest.mark.parametrize("text,where,words", BAD_FILES)
def test_bad_rule_files_one_line_nothing_imported(db_path, tmp_path, text, where, words):
    run("solve", "tictactoe")
    f = tmp_path / "bad.pl"
    f.write_text(text)
    before = kb_dump(db_path)
    r = run("rules", "import", str(f), "--agent", "bad", "--game", "tictactoe")
    assert r.exit_code == 2
    line = r.output.strip()
    assert "\n" not in line and "Traceback" not in line and where in line and words in line, line
    assert kb_dump(db_path) == before


@pytest.mark.parametrize("args,words", [
    (["--agents", "0"], "--agents"), (["--agents", "7"], "even"), (["--rules", "0"], "--rules"),
    (["--mutation", "1.5"], "[0, 1]"), (["--nudge", "-1"], "[0, 1]"), (["--cycles", "0"], "--cycles"),
    (["--games", "10"], "--games"), (["--vs", "random"], "--vs"), (["--agents", "4", "--selection", "top10"], "too few"),
])
def test_bad_training_input_one_line_kb_untouched(db_path, args, words):
    train_json("--agent", "g", "--cycles", "2", "--agents", "4", "--rules", "5")
    before = kb_dump(db_path)
    r = run("train", "tictactoe", "--learner", "ga", "--agent", "h", *args)
    assert r.exit_code == 2 and words in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert kb_dump(db_path) == before


def test_ga_options_refused_by_other_learners(db_path):
    r = run("train", "tictactoe", "--agent", "p", "--nudge", "0.1")
    assert r.exit_code == 2 and "ga learner" in r.output


def test_hexapawn_population(db_path):
    d = json.loads(run("train", "hexapawn", "--learner", "ga", "--agent", "hx", "--cycles", "5",
                       "--agents", "6", "--rules", "20", "--json").output)
    assert d["games"] == 5 * 3 * 5
    r = run("eval", "hexapawn", "hx#2", "--exact", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["as_first"]["guaranteed"] == "loss"   # black wins hexapawn
    assert "line/2" in run("train", "hexapawn", "--learner", "ga", "--agent", "h2", "--nudge", "0.5").output


# ---------------------------------------------------------------- boards that fit the game
def test_nim_rules_read_heap_sizes_not_mine_and_theirs():
    space = ga_bridge.rule_space("nim(1,3,5)")
    assert (space.n_values, space.symbols) == (6, "012345")            # heaps of up to 5
    cond = space.parse_condition("p2:1*5")
    assert cond.tolist() == [1, space.any, 5, 1]                         # the second player's turn
    assert space.condition_text(cond) == "p2:1*5"
    start = space.graph.index["1-3-5 p1"]
    forbid = space.forbid_masks(space.parse_condition("135"))
    assert space.matches(space.state_masks[:, [start]], forbid[None])[0]
    assert not space.matches(space.state_masks[:, [start]], space.forbid_masks(space.parse_condition("p2:135"))[None])[0]


def test_hexapawn_conditions_are_written_as_show_draws_the_board():
    """`show hexapawn` draws black's home row (cells 7-9) on top; so do rule texts in files."""
    space = ga_bridge.rule_space("hexapawn")
    stored = space.parse_condition("mmm/.../ttt")                        # cell order: white's home first
    assert space.condition_text(stored, drawn=True) == "ttt/.../mmm"
    assert space.parse_condition("ttt/.../mmm", drawn=True).tolist() == stored.tolist()
    assert ga_bridge.drawn("white:mmm/.../ttt", (3, "bottom")) == "white:ttt/.../mmm"


HEXAPAWN_RULE = "rule_set(hexapawn).\n{layout}rule('{cond}', '2-5', 1, 0).\n"


@pytest.mark.parametrize("layout, cond", [
    ("rule_layout(drawn).\n", "white:ttt/.../mmm"),     # as show draws it, white's turn only
    ("", "mmm/.../ttt"),                                # a file from before layouts: cells from cell 1
])
def test_a_rule_file_in_either_layout_plays_its_rule(db_path, tmp_path, layout, cond):
    path = tmp_path / "r.pl"
    path.write_text(HEXAPAWN_RULE.format(layout=layout, cond=cond))
    assert run("rules", "import", str(path), "--agent", "opener").exit_code == 0
    p = CliRunner().invoke(main, ["play", "hexapawn", "--opponent", "opener", "--as", "black", "--seed", "1"],
                           input="q\n")
    assert "opener plays 2-5" in p.output, p.output
    out = tmp_path / "back.pl"
    assert run("rules", "export", "opener", str(out)).exit_code == 0
    text = out.read_text()
    assert "rule_layout(drawn)." in text and "ttt/.../mmm" in text


def test_a_turn_rule_for_the_other_side_never_fires(db_path, tmp_path):
    path = tmp_path / "r.pl"
    path.write_text(HEXAPAWN_RULE.format(layout="rule_layout(drawn).\n", cond="black:ttt/.../mmm"))
    assert run("rules", "import", str(path), "--agent", "never").exit_code == 0
    from educable.kb.db import open_kb
    table = games.policy_table(graphs.state_graph(None, "hexapawn"), agents.chooser(open_kb(db_path), "hexapawn", "never"))
    start = graphs.state_graph(None, "hexapawn").index["123-789 w"]
    assert sorted(table[start]) == ["1-4", "2-5", "3-6"]           # the rule is black's: white moves at random
    bad = tmp_path / "bad.pl"
    bad.write_text(HEXAPAWN_RULE.format(layout="rule_layout(drawn).\n", cond="grey:ttt/.../mmm"))
    r = run("rules", "import", str(bad), "--agent", "grey")
    assert r.exit_code == 2 and "not a player of hexapawn" in r.output


def test_ga_trains_with_turn_rules_on_nim(db_path):
    r = run("train", "nim(1,3,5)", "--learner", "ga", "--agent", "nimga", "--cycles", "5", "--turn-rules", "0.5",
            "--seed", "1", "--json")
    assert r.exit_code == 0, r.output
    rules = json.loads(run("agents", "nimga", "--rules", "--json").output)
    patterns = [rule["pattern"] for m in rules["members"] for rule in m["rules"]]
    assert any(p.startswith(("p1:", "p2:")) for p in patterns) and any(":" not in p for p in patterns)
    assert all(set(p.split(":")[-1]) <= set("012345*") for p in patterns)


# ---------------------------------------------------------------- fitness options
def never_matching(space, n_agents=2, n_rules=3):
    """Agents whose rules match no position ('m' in every cell): uniformly random players."""
    return population(space, [[("mmm/mmm/mmm", "1", 0, 0.0)] * n_rules] * n_agents)


def test_exact_fitness_of_a_random_player_is_the_known_random_game(ttt):
    # random vs random tic-tac-toe: X wins 737/1260 ... = 58.49%, O 28.81% (every game enumerated)
    pop = never_matching(ttt)
    _, (x, o) = ga.exact_judge(ttt).fitness(pop.cond, pop.action, pop.priority, pop.rule_weight)
    assert x.win[0] == pytest.approx(0.584920, abs=1e-5) and x.loss[0] == pytest.approx(0.288095, abs=1e-5)
    assert o.win[0] == pytest.approx(0.288095, abs=1e-5) and o.loss[0] == pytest.approx(0.584920, abs=1e-5)
    assert x.worst[0] == o.worst[0] == -1


def reference_blunders(rules, player: str) -> tuple[int, int]:
    """Positions (reachable with the rule set choosing by reference_choice, the opponent anything)
    where a choice turns a not-lost game into a lost one, and the guaranteed result; on the
    reference game written in the tests (reference_games.TTT, solved there)."""
    result = solve(TTT)
    moves_of = TTT["moves"]

    def value(state):                     # for the player to move
        r = result[TTT["key"](state)]
        return 0 if r == "draw" else (1 if r == state[1] else -1)

    def choices(state):
        nexts = moves_of(state)
        return reference_choice(state[0], state[1], rules) if state[1] == player else list(nexts)

    worst = {}

    def guarantee(state):
        r = TTT["result"](state)
        if r:
            return 0 if r == "draw" else (1 if r == player else -1)
        if state not in worst:
            worst[state] = min(guarantee(moves_of(state)[m]) for m in choices(state))
        return worst[state]

    seen, stack, blunders = set(), [TTT["initial"]], 0
    while stack:
        state = stack.pop()
        if state in seen or TTT["result"](state):
            continue
        seen.add(state)
        picks = choices(state)
        if state[1] == player and value(state) >= 0 and any(value(moves_of(state)[m]) == 1 for m in picks):
            blunders += 1
        stack.extend(moves_of(state)[m] for m in set(picks))
    return blunders, guarantee(TTT["initial"])


def test_exact_fitness_counts_blunders_as_the_reference_game_does(ttt):
    rules = ga_bridge.read_rule_file(str(EXAMPLE), "tictactoe")[1]
    half = rules[::2]                           # fewer rules: some positions left to chance
    pop = population(ttt, [rules, half + half[:len(rules) - len(half)]])
    _, (x, o) = ga.exact_judge(ttt).fitness(pop.cond, pop.action, pop.priority, pop.rule_weight)
    assert (x.blunders[0], x.worst[0]) == (0, 0)              # the example never loses as X
    for k, agent in enumerate([rules, half + half[:len(rules) - len(half)]]):
        for side, got in (("x", x), ("o", o)):
            assert (got.blunders[k], got.worst[k]) == reference_blunders(agent, side)
    assert x.blunders[1] > 0


def test_exact_fitness_equals_exact_judging_of_each_member(ttt, hexa):
    for space in (ttt, hexa):
        rng = np.random.default_rng(3)
        pop = Population.random(space, GAOptions(agents=6, turn_rules=0.5), rng)
        pop.rule_weight = rng.integers(0, 2, pop.rule_weight.shape).astype(float)
        _, sides = ga.exact_judge(space).fitness(pop.cond, pop.action, pop.priority, pop.rule_weight)
        rnd = exact.all_moves(space.graph)
        for k in range(pop.size):
            sup = ga.agent_support(space, pop, k)
            for p, got in enumerate(sides):
                probs = exact.outcome_probabilities(space.graph, *((sup, rnd) if p == 0 else (rnd, sup)))
                assert got.win[k] == pytest.approx(probs[space.graph.players[p]], abs=1e-6)
                assert got.loss[k] == pytest.approx(probs[space.graph.players[1 - p]], abs=1e-6)
                g = exact.guarantee(space.graph, p, sup)
                assert got.worst[k] == {"win": 1, "draw": 0, "loss": -1}[g.guaranteed]


def test_nobody_scores_against_a_perfect_player(ttt):
    pop = Population.random(ttt, GAOptions(nudge=0.3), np.random.default_rng(0))
    opts = GAOptions(fitness="minimax", pair_games=4).check()
    sides, winner, used, stats = ga.play_cycle(ttt, pop, opts, np.random.default_rng(1))
    assert stats.games == 40 * 4 and ((sides < 0).sum(axis=1) == 1).all()
    assert all(winner[g] in (2, int(np.flatnonzero(sides[g] < 0)[0])) for g in range(len(winner)))
    ga.score(ttt, pop, sides, winner, used, shared=False)
    assert (pop.weight <= 0).all() and (pop.rule_weight <= 0).all() and (pop.weight < 0).any()


def test_random_opponent_and_round_robin_play_every_agent(ttt):
    pop = never_matching(ttt, n_agents=6)
    for fitness, per_agent in (("random", 4), ("round-robin", 5 * 4)):
        opts = GAOptions(agents=6, fitness=fitness, pair_games=4).check()
        sides, winner, _, stats = ga.play_cycle(ttt, pop, opts, np.random.default_rng(2))
        counts = Counter(int(a) for a in sides.ravel() if a >= 0)
        assert counts == {a: per_agent for a in range(6)}
        firsts = Counter(int(a) for a in sides[:, 0] if a >= 0)
        assert all(firsts[a] == per_agent // 2 for a in range(6))      # half the games as first player


def test_champion_is_the_last_cycles_best_and_is_not_scored(ttt):
    rng = np.random.default_rng(4)
    opts = GAOptions(agents=8, fitness="champion", nudge=0.2).check()
    pop = Population.random(ttt, opts, rng)
    ga.cycle(ttt, pop, opts, rng)
    best = [x.copy() for x in pop.champion]
    assert (best[0] == pop.cond[0]).all() and (best[1] == pop.action[0]).all()   # the best breeds unchanged
    sides, winner, used, _ = ga.play_cycle(ttt, pop, opts, rng)
    assert (sides == pop.size).sum() == pop.size * opts.pair_games
    before = pop.weight.copy()
    pop.weight[:] = 0
    ga.score(ttt, pop, sides, winner, used, shared=False)
    assert len(pop.weight) == 8 and before.shape == pop.weight.shape


def test_exact_fitness_run_is_reproducible_and_improves(db_path):
    out = [json.loads(run("train", "tictactoe", "--learner", "ga", "--agent", f"e{k}", "--cycles", "15",
                          "--fitness", "exact", "--nudge", "0.3", "--seed", "5", "--db", db_path, "--json").output)
           for k in range(2)]
    same = [[{k: v for k, v in c.items() if k != "seconds"} for c in o["curve"]] for o in out]
    assert same[0] == same[1] and out[0]["games"] == 0
    per = out[0]["per_cycle"]["best_weight"]
    assert per[-1] >= per[0] and per == sorted(per)            # the best survives: fitness never falls


@pytest.mark.parametrize("args,words", [
    (["--fitness", "exact", "--shared"], "--shared works on rule weights"),
    (["--fitness", "exact", "--weak", "0"], "--weak works on rule weights"),
    (["--fitness", "exact", "--inherit", "heavier"], "--inherit heavier works on rule weights"),
    (["--fitness", "tournament"], "--fitness must be one of pairs, round-robin"),
])
def test_bad_fitness_options_one_line_kb_untouched(db_path, args, words):
    train_json("--agent", "g", "--cycles", "2", "--agents", "4", "--rules", "5")
    before = kb_dump(db_path)
    r = run("train", "tictactoe", "--learner", "ga", "--agent", "bad", "--cycles", "2", "--db", db_path, *args)
    assert r.exit_code == 2 and words in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert kb_dump(db_path) == before


def test_wildcards_make_general_rules(ttt):
    rng = np.random.default_rng(0)
    for wild in (0.5, 0.7):
        cond, action, _ = ttt.random_rules(rng, 2000, 4, wild=wild)
        # the action's cell must be empty to be legal wherever the rule matches: '*' only in a
        # rule that matches no position where the game goes on
        cell = np.array([int(ttt.actions[a]) - 1 for a in action])
        assert (cond[np.arange(2000), cell] != 0).mean() < 0.15
        others = np.ones((2000, 9), dtype=bool)
        others[np.arange(2000), cell] = False
        share = (cond[:, :9][others] == ttt.any).mean()
        assert abs(share - wild) < 0.05, (wild, share)
    cond, _, _ = ttt.random_rules(rng, 2000, 4)                 # Gaia's: every symbol alike
    assert abs((cond[:, :9] == ttt.any).mean() - 0.25) < 0.03
    r = run("train", "tictactoe", "--learner", "ga", "--agent", "w", "--wildcards", "1.5", "--cycles", "1")
    assert r.exit_code == 2 and "[0, 1]" in r.output


def test_exact_fitness_with_general_rules_evolves_a_player_that_never_loses_as_x(db_path):
    """The bench's best option on one seed: the best agent's guarantee as X, judged exactly by
    eval --exact (learners.exact), becomes a draw, the game's value."""
    out = json.loads(run("train", "tictactoe", "--learner", "ga", "--agent", "best", "--cycles", "200",
                         "--fitness", "exact", "--nudge", "0.3", "--selection", "top20", "--wildcards", "0.7",
                         "--seed", "3", "--judge-every", "200", "--json").output)
    assert out["best"]["as_first"]["guaranteed"] == "draw" and out["best"]["as_first"]["perfect"]
    judged = json.loads(run("eval", "tictactoe", "best", "--exact", "--json").output)
    assert judged["as_first"]["guaranteed"] == "draw"


def test_a_rule_file_larger_than_a_page_is_read_in_pages(db_path, tmp_path, monkeypatch):
    """Prolog hands a rule file over a page of rules at a time (20,000; here 2,000), never one list:
    2,501 rules come through whole and in order, and a mistake after the first page is reported at
    its own line, with nothing imported."""
    monkeypatch.setattr(ga_bridge, "ROWS_PER_CALL", 2_000)
    rng = random.Random(3)
    lines = ["rule_set(tictactoe)."]
    for _ in range(2_501):
        action = rng.randint(1, 9)
        cells = [rng.choice("mt.*") for _ in range(9)]
        cells[action - 1] = "."                   # the move is legal wherever the condition matches
        cond = "".join(cells)
        lines.append(f"rule('{cond[:3]}/{cond[3:6]}/{cond[6:]}', '{action}', {rng.randint(0, 100)}, 0.5).")
    good = tmp_path / "big.pl"
    good.write_text("\n".join(lines) + "\n")
    game, rules = ga_bridge.read_rule_file(str(good))
    assert game == "tictactoe" and len(rules) == 2_501
    assert [(c.replace("/", ""), a, p) for c, a, p, _ in rules] == [
        (l.split("'")[1].replace("/", ""), l.split("'")[3], int(l.split(", ")[2])) for l in lines[1:]]
    bad = tmp_path / "bad.pl"
    bad.write_text("\n".join(lines[:2_200] + ["rule('...'"] + lines[2_200:]) + "\n")
    assert run("agents").exit_code == 0          # the knowledge base exists
    before = kb_dump(db_path)
    r = run("rules", "import", str(bad), "--agent", "big")
    assert r.exit_code == 2 and "bad.pl:2201: syntax error" in r.output, r.output
    assert kb_dump(db_path) == before
