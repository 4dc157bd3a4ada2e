"""The punishment learner (the six-pawns practical): what it changes after a game, that it learns, and its errors."""
import json

import pytest
from click.testing import CliRunner

from conftest import assert_adversary_remembers, kb_dump
from educable.bridge import commands, games, punish
from educable.bridge.engine import BadInput, engine, quote
from educable.cli import main
from reference_games import HEX, hex_key

PLAIN = {"cascade": False, "fold": False}


def values(name):
    return {k: v for k, _, v, _ in engine().call(f"punish:punish_values({quote(name)}, Out)")}


def learn(name, keys, result, side):
    engine().call(f"punish:punish_learn_game({quote(name)}, hexapawn, [{', '.join(map(quote, keys))}], "
                  f"{quote(result)}, {quote(side)}), Out = true")


def random_game(seed, want):
    """Key sequences of random hexapawn games from the independent reference, until ``want(keys)``."""
    import random
    rng = random.Random(seed)
    while True:
        s = HEX["initial"]
        keys = [hex_key(s)]
        while not HEX["result"](s):
            s = rng.choice(list(HEX["moves"](s).values()))
            keys.append(hex_key(s))
        if want(keys, HEX["result"](s)):
            return keys, HEX["result"](s)


def black_lost(keys, result):
    return result == "white" and len(keys) >= 5


def test_last_move_only_lowers_the_last_losing_move(kb):
    punish.start(kb, "p1", "hexapawn", PLAIN)
    keys, result = random_game(1, black_lost)
    learn("p1", keys, result, "black")
    black_moves = keys[2::2]  # positions black moved into: after black's moves (even indices from 2)
    assert values("p1") == {black_moves[-1]: 0.0}


def test_punish_all_lowers_every_losing_move_by_its_step(kb):
    punish.start(kb, "p2", "hexapawn", {**PLAIN, "punish": "all", "step": 2.0, "earlier_step": 0.5})
    keys, result = random_game(2, lambda k, r: r == "white" and len(k) >= 6)
    learn("p2", keys, result, "black")
    black_moves = keys[2::2]
    expected = {k: 0.5 for k in black_moves[:-1]}
    expected[black_moves[-1]] = -1.0
    assert values("p2") == expected


def test_reward_raises_the_winners_moves_and_nothing_else(kb):
    punish.start(kb, "p3", "hexapawn", {**PLAIN, "reward": 1.0})
    keys, result = random_game(3, black_lost)
    learn("p3", keys, result, "white")  # the agent played white and won
    assert values("p3") == {k: 2.0 for k in keys[1::2]}


def test_cascade_punishes_the_move_before_when_no_move_is_left(kb):
    """A game where black's last decision had a single legal move: that box empties, so the move before pays too."""
    def last_black_choice_forced(keys, result):
        if result != "white" or len(keys) < 6:
            return False
        from_key = keys[-3]  # black moved from here into keys[-2]
        w, b = from_key.split(" ")[0].split("-")
        state = (frozenset(map(int, w)), frozenset(map(int, b)), "black")
        return len(HEX["moves"](state)) == 1 and keys[-2] in [hex_key(n) for n in HEX["moves"](state).values()]
    keys, result = random_game(4, last_black_choice_forced)
    black_moves = keys[2::2]
    punish.start(kb, "c1", "hexapawn", {"fold": False, "cascade": True})
    learn("c1", keys, result, "black")
    got = values("c1")
    assert got[black_moves[-1]] == 0.0 and got[black_moves[-2]] == 0.0
    punish.start(kb, "c0", "hexapawn", {"fold": False, "cascade": False})
    learn("c0", keys, result, "black")
    assert values("c0") == {black_moves[-1]: 0.0}


def test_folding_stores_one_value_for_mirror_images(kb):
    punish.start(kb, "f", "hexapawn", {"cascade": False, "fold": True})
    keys, result = random_game(5, black_lost)
    learn("f", keys, result, "black")
    (key,) = values("f")
    assert key == games.canonical(games.parse("hexapawn", keys[2::2][-1]))


def test_learns_to_be_perfect_as_black_against_an_adversary(kb):
    r = commands.train(kb, "hexapawn", "punish", "her", 150, "adversary", "second", 1, {})
    assert r["exact"]["as_second"] == {"guaranteed": "win", "perfect": True, "mistakes": 0, "subgame_perfect": True}
    assert 0 < r["losses"] and r["last_loss"] < 150
    assert r["losses"] == sum(r["curve"]) and r["results"]["white"] == r["losses"]


def test_a_full_key_cache_is_emptied_without_changing_what_is_learned(tmp_path):
    """The agent remembers states' keys and successors in a trie that is emptied when full; a
    cache of 40 keys (emptied every few moves, also while one state's successors are being
    keyed) learns exactly what the default cache learns from the same games."""
    from educable.kb.db import open_kb

    def learned(cache):
        engine().call(f"retractall(punish:key_cache(_)), assertz(punish:key_cache({cache})), Out = true")
        try:
            commands.train(open_kb(tmp_path / f"{cache}.db"), "tictactoe", "punish", "p", 300, "random", "both", 4,
                           {"reward": 1.0})
        finally:
            engine().call("retractall(punish:key_cache(_)), assertz(punish:key_cache(100000)), Out = true")
        return sorted(map(tuple, engine().call("punish:punish_values(p, Out)")))

    small = learned(40)
    assert len(small) > 100 and small == learned(100000)


def test_keeps_learning_across_runs_and_same_seed_same_run(tmp_path):
    from educable.kb import store
    from educable.kb.db import open_kb
    runs = []
    for d in ("a", "b"):
        db = open_kb(tmp_path / f"{d}.db")
        commands.train(db, "hexapawn", "punish", "s", 40, "self", "both", 7, {"reward": 1.0})
        commands.train(db, "hexapawn", "punish", "s", 40, "self", "both", 8, {})
        runs.append((store.load_values(db, "s"), store.get_agent(db, "s")["games_trained"]))
    assert runs[0] == runs[1] and runs[0][1] == 80


def test_playing_a_person_teaches_and_saves_the_agent(db_path):
    r = CliRunner()
    assert r.invoke(main, ["train", "hexapawn", "--agent", "her", "--games", "1", "--vs", "random", "--as", "second",
                           "--reward", "1"]).exit_code == 0
    out = r.invoke(main, ["play", "hexapawn", "--opponent", "her", "--seed", "1"],
                   input="\n".join(["1-4", "2-5", "3-6", "4-7", "5-8", "6-9", "4-8", "5-9", "6-8"]) + "\n")
    assert "game over" in out.output, out.output
    agent = json.loads(r.invoke(main, ["agents", "her", "--json"]).output)[0]
    assert agent["games_trained"] == 2


@pytest.mark.parametrize("args, words", [
    (["--learner", "nope"], "unknown learner"),
    (["--games", "0"], "at least 1"),
    (["--games", "-3"], "at least 1"),
    (["--vs", "ghost"], "unknown agent 'ghost'"),
    (["--step", "0"], "--step"),
    (["--agent", "random"], "bad agent name"),
    (["--punish", "all"], "options are fixed"),
    (["--game-is-other"], "plays hexapawn, not tictactoe"),
    (["--agent", "m", "--choice", "magic"], "--choice must be 'best' or 'beads'"),
    (["--agent", "m", "--draw-reward", "-1"], "must not be negative"),
])
def test_bad_training_input_is_one_line_and_changes_nothing(db_path, args, words):
    r = CliRunner()
    assert r.invoke(main, ["train", "hexapawn", "--agent", "a", "--games", "3"]).exit_code == 0
    before = kb_dump(db_path)
    if args == ["--game-is-other"]:
        cmd = ["train", "tictactoe", "--agent", "a"]
    else:
        cmd = ["train", "hexapawn", "--agent", "a", *args]
        if "--agent" in args:
            cmd = ["train", "hexapawn", *args]
    out = r.invoke(main, cmd)
    assert out.exit_code == 2, out.output
    assert words in out.output and len(out.output.strip().splitlines()) == 1
    assert kb_dump(db_path) == before


def test_agent_of_another_learner_is_refused(kb):
    kb.conn.execute("INSERT INTO agents (name, game, learner, params, created) VALUES ('q', 'hexapawn', 'qlearn', '{}', 'now')")
    with pytest.raises(BadInput, match="learner 'qlearn'"):
        commands.train(kb, "hexapawn", "punish", "q", 5, "self", "both", 1, {})


def test_values_stored_before_extra_turns_load_for_the_player_who_moved(kb):
    """Rows written before a value named its player (move column '') are read as the values of the
    player not to move in the position, as they were then; saving writes that player's name."""
    from educable.kb import store
    r = CliRunner().invoke(main, ["train", "hexapawn", "--learner", "punish", "--agent", "old", "--games", "30",
                                  "--seed", "1"])
    assert r.exit_code == 0, r.output
    written = sorted(store.load_values(kb, "old"))
    assert written and all(view == ("black" if key.endswith(" w") else "white") for key, view, _, _ in written)
    kb.execute("UPDATE learned_values SET move = '' WHERE agent = 'old'")
    kb.conn.commit()
    row = store.get_agent(kb, "old")
    punish.load(kb, row)
    punish.save(kb, "old", "hexapawn", row["params"], 0)
    assert sorted(store.load_values(kb, "old")) == written


# -- Michie's MENACE: beads drawn in proportion, draws rewarded, boxes that run empty ------------
MENACE = {**PLAIN, "choice": "beads", "punish": "all", "reward": 3.0, "draw_reward": 1.0, "beads": 3.0}


def test_beads_are_drawn_in_proportion_in_training_and_the_most_beads_played_otherwise(kb):
    """At the start of hexapawn white has three moves; with 6, 3 and 0 beads on the positions they
    lead to, training draws them about 2:1:0, and play outside training takes the 6 only."""
    punish.start(kb, "mb", "hexapawn", MENACE)
    start = HEX["initial"]
    after = {m: hex_key(s) for m, s in HEX["moves"](start).items()}
    moves = sorted(after)
    beads = dict(zip(moves, (6.0, 3.0, 0.0)))
    rows = ", ".join(f"[{quote(after[m])}, white, {b}, 1]" for m, b in beads.items())
    engine().call(f"punish:punish_add(mb, hexapawn, [{rows}]), Out = true")
    draw = ("findall(T, ( between(1, 3000, _), game:initial(hexapawn, P, M), play:choose_move(agent(mb), hexapawn, P, M, Mv), "
            "game:move_text(hexapawn, Mv, T) ), Out)")
    engine().call("punish:punish_training(mb, true), set_random(seed(4)), Out = true")
    drawn = engine().call(draw)
    counts = {m: drawn.count(m) for m in moves}
    assert counts[moves[2]] == 0
    assert 1850 <= counts[moves[0]] <= 2150 and 850 <= counts[moves[1]] <= 1150   # 2000 and 1000 expected
    engine().call("punish:punish_training(mb, false), Out = true")
    assert set(engine().call(draw)) == {moves[0]}


def test_menace_rewards_draws_and_wins_and_never_goes_below_zero_beads(kb):
    punish.start(kb, "mw", "hexapawn", MENACE)
    keys, result = random_game(3, black_lost)
    learn("mw", keys, result, "white")              # won: +3 on each of white's moves
    assert values("mw") == {k: 6.0 for k in keys[1::2]}
    learn("mw", keys, result, "black")              # lost: -1 on each of black's, never below 0 beads
    for k in keys[2::2]:
        assert values("mw")[k] == 2.0
    for _ in range(3):
        learn("mw", keys, result, "black")
    assert all(values("mw")[k] == 0.0 for k in keys[2::2])
    engine().call("punish:punish_new(md, [punish=all, step=1.0, earlier_step=1.0, reward=3.0, beads=3.0, "
                  "cascade=false, fold=false, choice=beads, draw_reward=1.0]), Out = true")
    ttt = ["'.../.../...'", "'x../.../...'", "'x../.o./...'", "'xx./.o./...'", "'xxo/.o./...'", "'xxo/.o./x..'",
           "'xxo/oo./x..'", "'xxo/oox/x..'", "'xxo/oox/xo.'", "'xxo/oox/xox'"]
    engine().call(f"punish:punish_learn_game(md, tictactoe, [{', '.join(ttt)}], draw, x), Out = true")
    assert values("md") == {k.strip("'"): 4.0 for k in ttt[1::2]}     # a draw: +1 on each of x's moves


def test_a_box_with_no_beads_left_draws_uniformly(kb):
    punish.start(kb, "me", "hexapawn", MENACE)
    start = HEX["initial"]
    rows = ", ".join(f"[{quote(hex_key(s))}, white, 0.0, 1]" for s in HEX["moves"](start).values())
    engine().call(f"punish:punish_add(me, hexapawn, [{rows}]), punish:punish_training(me, true), "
                  "set_random(seed(2)), Out = true")
    drawn = engine().call("findall(Mv, ( between(1, 300, _), game:initial(hexapawn, P, M), "
                          "play:choose_move(agent(me), hexapawn, P, M, Mv) ), Out)")
    engine().call("punish:punish_training(me, false), Out = true")
    assert len(set(map(str, drawn))) == 3


@pytest.mark.parametrize("options", [{}, {"punish": "all", "reward": 1.0}, {"choice": "beads", "draw_reward": 1.0}])
def test_remembering_adversary_equals_a_fresh_search_after_every_game(options):
    """The adversary keeps its chances between games and forgets only what a changed value can
    reach; after every game of training, its chance in every state where it moves equals a search
    over the reference hexapawn, asking the victim only for its current candidates."""
    assert_adversary_remembers("hexapawn", HEX, "white", "black", options, 25)
