"""The perfect Connect Four player (bitbully) against facts found apart: the first player wins
Connect Four (Allis 1988; Allen 1988) and only by starting in the centre column, and its move values
agree with educable's own exact search wherever that search can reach the end."""
import functools
import random

import pytest

from conftest import cli
from educable.bridge import commands, games, graphs, judge, perfect, querying
from educable.bridge.session import PlaySession
from educable.kb import store

C4 = "connect(4,7,6)"


def test_the_first_player_wins_when_both_play_perfectly(kb):
    out = commands.evaluate_series(kb, C4, "perfect", "perfect", 2, 0)
    assert out["as_first"]["win"] == 1 and out["as_second"]["loss"] == 1


def test_the_centre_is_the_only_winning_first_move(kb):
    s = perfect.scores([])
    assert [m for m, v in s.items() if v > 0] == ["4"]
    session = PlaySession(kb, C4, "perfect", "o", seed=1)
    assert session.computer_move() == "4"


def test_move_values_agree_with_educables_exact_search_near_the_end(kb):
    rng = random.Random(7)
    checked = 0
    while checked < 6:
        state, moves = games.initial(C4), []
        while len(moves) < 30 and games.result(state) is None:
            move = rng.choice([m for m, _ in games.moves(state)])
            state, moves = games.play(state, move), moves + [move]
        if games.result(state) is not None:
            continue
        sub, _ = graphs.subgraph(C4, state.key)          # educable's own exact search below the position
        exact = {m: store.exact_name(sub, sub.index[nxt.key]) for m, nxt in games.moves(state)}
        ours = {m: (0 if r == "draw" else 1 if r == state.mover else -1) for m, r in exact.items()}
        theirs = {m: perfect.sign(v) for m, v in perfect.scores(moves).items()}
        assert ours == theirs
        q = querying.query(kb, C4, state.key)          # query asks the perfect player alone, and shows it
        assert q["exact_source"] == "the perfect player (bitbully)"
        assert {m["move"]: m["exact"] for m in q["moves"]} == exact
        checked += 1


@pytest.fixture
def tenth_of_the_fixed_positions(tmp_path, monkeypatch):
    """judge asks bitbully for every tenth of the fixed positions (ten from each source), not all 300 (8 s)."""
    sample = tmp_path / "positions.jsonl"
    sample.write_text("".join(line + "\n" for line in perfect.POSITIONS.read_text().splitlines()[::10]))
    fixed_accuracy = judge.fixed_accuracy
    monkeypatch.setattr(judge, "fixed_accuracy", lambda db, game, agent: fixed_accuracy(db, game, agent, sample))


def test_judging_the_perfect_player_finds_no_mistake(kb, tenth_of_the_fixed_positions):
    # from the start only: from each opening, the next test judges it against both perfect players
    data = commands.judge(kb, C4, "perfect", 2, 0, openings=0)
    assert all(a["accuracy"] == 1.0 for a in data["accuracy"].values())
    assert all(r["at_value"] == r["games"] for r in data["vs_perfect"].values())
    assert [r["games"] for r in data["vs_perfect"].values()] == [1, 1]
    assert data["vs_perfect"]["start as first"]["win"] == 1
    assert data["fixed"]["positions"] == 30 and data["fixed"]["accuracy"] == 1.0
    assert data["fixed"]["by_source"] == {"random": 1.0, "noisy": 1.0, "perfect": 1.0}


def test_the_fixed_positions_values_agree_with_educables_exact_search_near_the_end(kb):
    """The shipped positions (bitbully's values) against educable's own search wherever it reaches
    the end: the positions 30 or more moves in."""
    import json
    checked = 0
    for raw in perfect.POSITIONS.read_text().splitlines():
        item = json.loads(raw)
        if len(item["moves"]) < 30:
            continue
        state = games.initial(C4)
        for m in item["moves"]:
            state = games.play(state, m)
        sub, _ = graphs.subgraph(C4, state.key)          # educable's own exact search below the position
        ours = {m: (0 if (r := store.exact_name(sub, sub.index[nxt.key])) == "draw" else 1 if r == state.mover else -1)
                for m, nxt in games.moves(state)}
        assert ours == item["values"], item["moves"]
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("args, words", [
    (["eval", "tictactoe", "perfect", "--vs", "random"], "plays only connect(4,7,6)"),
    (["judge", "tictactoe", "random"], "plays only connect(4,7,6)"),
    (["judge", C4, "random", "--openings", "3"], "--openings must be 0, 1 or 2"),
    (["judge", C4, "random", "--starts-out", "lost.txt"], "--starts-out needs --per-opening"),
    (["judge", C4, "random", "--per-opening", "1", "--starts-out", "no/such/folder/lost.txt"], "does not exist"),
    (["judge", C4, "random", "--per-opening", "1", "--starts-out", "lost.csv"], "must end in .txt"),
    (["train", C4, "--learner", "ntuple", "--agent", "n", "--vs", "perfect"], "no training opponent"),
    (["train", "tictactoe", "--agent", "perfect"], "bad agent name"),
])
def test_refused_in_one_line(db_path, args, words):
    out = cli(*args)
    assert out.exit_code == 2, out.output
    assert words in out.output and len(out.output.strip().splitlines()) == 1


def test_judging_from_each_opening_knows_their_values_and_perfect_play_reaches_them(db_path, tenth_of_the_fixed_positions):
    """Facts of Connect Four (Allis 1988): after the first player's opening in columns 1, 2, 6 or 7
    the second player wins, after 3 or 5 it draws, after 4 it loses; the perfect player, judged from
    each opening against both perfect players, gets every opening's value."""
    import json
    out = cli("judge", C4, "perfect", "--games", "2", "--openings", "0", "--per-opening", "1", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)["by_opening"]
    values = {row["opening"]: (row["as"], row["value"]) for row in data["openings"]}
    assert values == {"start": ("x", "win"), "after 1": ("o", "win"), "after 2": ("o", "win"), "after 3": ("o", "draw"),
                      "after 4": ("o", "loss"), "after 5": ("o", "draw"), "after 6": ("o", "win"), "after 7": ("o", "win")}
    for name in perfect.PLAYERS:
        assert all(row[name]["at_value"] == row[name]["games"] == 1 for row in data["openings"])
        assert data["summary"][name] == {"won_as_first": 1.0, "second_at_value": 1.0}
    assert data["mistakes"] == []


def test_each_game_below_value_is_traced_to_the_first_move_that_gave_its_value_away(kb):
    """The random player judged from each opening: every game it ends below the opening's value is
    counted once, at a move that bitbully (asked here directly) scores below the best of its position,
    and no earlier move of the random player in that position's line had lowered the value."""
    values = bitbully_values
    data = judge.judge_openings(kb, C4, "random", 1, 5)
    below = sum(row[n]["games"] - row[n]["at_value"] for row in data["openings"] for n in perfect.PLAYERS)
    assert below > 0 and sum(m["games"] for m in data["mistakes"]) == below
    lost: dict = {}                        # and in a series from the start: random as first loses a won game
    counts = judge.play_series(kb, C4, ("random", "perfect"), 3, 5, lost)
    assert counts == {"o": 3} and sum(m["games"] for m in lost.values()) == 3
    words = {-1: "loss", 0: "draw", 1: "win"}
    for m in [*data["mistakes"], *lost.values()]:
        v = values(m["moves"])
        best = max(v.values())
        assert v[m["played"]] < best and (m["was"], m["became"]) == (words[best], words[v[m["played"]]])
        assert m["best"] == sorted(c for c, x in v.items() if x == best)
        state = games.initial(C4)
        for c in m["moves"]:
            state = games.play(state, c)
        assert m["position"] == state.key
        line = m["moves"]
        mine = len(line) % 2                               # the agent's moves are those at its parity
        for k in range(mine, len(line), 2):                # before it, the agent kept its value
            earlier = values(line[:k])
            assert earlier[line[k]] == max(earlier.values())


@functools.cache
def bitbully_solver():
    """A solver of this module's own (loading its opening book takes 0.3 s)."""
    import bitbully
    return bitbully.BitBully()


def bitbully_values(moves: str) -> dict[str, int]:
    """Each move's value (1 win, 0 draw, -1 loss) for the side to move after ``moves``, asked of
    bitbully directly."""
    import bitbully
    s = bitbully_solver().score_all_moves(bitbully.Board("".join(str(int(m) - 1) for m in moves)))
    return {str(c + 1): (v > 0) - (v < 0) for c, v in s.items()}


def test_judge_writes_where_games_were_given_away_as_a_starts_file(db_path, tmp_path, tenth_of_the_fixed_positions):
    """judge --starts-out: each position written is where the line in its comment leads, and the
    move named there lowers its value (bitbully asked directly); train's --starts-file reader takes it."""
    import json
    import re

    from educable.bridge import ntuple
    path = tmp_path / "lost.txt"
    out = cli("judge", C4, "random", "--games", "2", "--openings", "0", "--per-opening", "1",
              "--starts-out", str(path), "--json")
    assert out.exit_code == 0, out.output
    written = json.loads(out.stdout)["starts_out"]
    rows = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    assert written == {"file": str(path), "positions": len(rows)} and len(rows) > 0
    for row in rows:
        position, comment = row.split("#", 1)
        found = re.match(r" after (\d+|no move), played (\d)", comment)
        assert found, row
        moves = "" if found.group(1) == "no move" else found.group(1)
        state = games.initial(C4)
        for m in moves:
            state = games.play(state, m)
        assert state.key == position.strip()
        v = bitbully_values(moves)
        assert v[found.group(2)] < max(v.values()), row
    assert len(ntuple.start_keys(C4, ntuple.read_starts(str(path)))) == len(rows)


def test_perfect_random_plays_any_move_once_lost_and_perfect_delays(kb):
    """In a position lost whatever it plays, perfect-random picks among all legal moves and perfect
    only among those that lose latest."""
    moves = list("5353521311155124353")    # found by random play: every move loses, some later than others
    s = perfect.scores(moves)
    assert max(s.values()) < 0 and len(set(s.values())) > 2
    rng = random.Random(1)
    state = games.initial(C4)
    for m in moves:
        state = games.play(state, m)
    chosen = {perfect.choose(state.key, rng, by_value=True) for _ in range(200)}
    assert chosen == set(s)
    latest = max(s.values())
    assert {perfect.choose(state.key, rng) for _ in range(50)} == {m for m, v in s.items() if v == latest}


def test_the_perfect_reply_reads_the_position_not_the_moves_sent_with_it(kb):
    """POST /api/move with a position and no moves: the perfect player answered as if the board were
    empty (it read the moves); now it plays a move of best score in the position itself."""
    from educable.bridge import session
    moves = list("44455")
    state = games.initial(C4)
    for m in moves:
        state = games.play(state, m)
    best = max(perfect.scores(moves).values())
    for seed in range(5):
        got = session.reply(kb, C4, state.key, "perfect", None, seed)["move"]
        assert perfect.scores(moves)[got] == best
