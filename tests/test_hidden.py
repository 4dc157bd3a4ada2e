"""Games of hidden information against facts computed apart: Kuhn poker's value -1/18 (Kuhn 1950),
the uniform policy's exploitability 0.458333 (OpenSpiel's definition), and OpenSpiel itself, run
here: the shipped Kuhn, Leduc and Liar's Dice play state for state as its kuhn_poker, leduc_poker
and liars_dice, and educable's exploitability of a policy equals ``pyspiel.exploitability``'s."""
import json
import sqlite3
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from conftest import EDUCABLE, cli, cli_json, one_line

pyspiel = pytest.importorskip("pyspiel")

KUHN_VALUE = Fraction(-1, 18)


def openspiel_name(game: str) -> tuple[str, dict]:
    return {"kuhn": ("kuhn_poker", {}), "leduc": ("leduc_poker", {}),
            "liars_dice(1,3)": ("liars_dice", {"numdice": 1, "dice_sides": 3})}[game]


def walk_both(game: str):
    """Walk educable's tree of ``game`` and OpenSpiel's game in step, asserting at every state the same
    mover, the same moves (numbered by actions/2 and chance_actions/2), the same chance probabilities
    and the same returns; yields (our node, OpenSpiel state) pairs of every decision node."""
    from educable.bridge import field, trees

    found = trees.tree(game)
    g = found.graph
    actions = field._declared(game, "actions")
    outcomes = field._declared(game, "chance_actions")
    name, params = openspiel_name(game)
    spiel = pyspiel.load_game(name, params)
    stack = [(0, spiel.new_initial_state())]
    while stack:
        h, s = stack.pop()
        edges = {g.moves[int(g.move[e])]: e for e in g.edges(h)}
        if s.is_terminal():
            assert not edges, g.keys[h]
            assert found.payoff[h] == pytest.approx(s.returns()[0], abs=1e-12), g.keys[h]
            continue
        if s.is_chance_node():
            assert g.mover[h] == 3, g.keys[h]
            chances = dict(s.chance_outcomes())
            assert sorted(edges) == sorted(outcomes[a] for a in chances), g.keys[h]
            for a, p in chances.items():
                e = edges[outcomes[a]]
                assert g.prob[e] == pytest.approx(p, abs=1e-15)
                stack.append((int(g.target[e]), s.child(a)))
            continue
        assert int(g.mover[h]) == s.current_player(), g.keys[h]
        assert sorted(edges) == sorted(actions[a] for a in s.legal_actions()), g.keys[h]
        yield h, s
        for a in s.legal_actions():
            stack.append((int(g.target[edges[actions[a]]]), s.child(a)))


@pytest.mark.parametrize("game", ["kuhn", "leduc", "liars_dice(1,3)"])
def test_the_shipped_games_play_as_openspiels_and_their_information_sets_are_its(game):
    from educable.bridge import trees

    found = trees.tree(game)
    ours_by_theirs: dict[str, int] = {}
    for h, s in walk_both(game):
        mine = int(found.node_set[h])
        theirs = s.information_state_string()
        assert ours_by_theirs.setdefault(theirs, mine) == mine, (found.graph.keys[h], theirs)
    assert len(ours_by_theirs) == found.sets             # one to one: the same partition into information sets
    assert len(set(ours_by_theirs.values())) == found.sets


def tabular(game: str, strategy):
    """An OpenSpiel TabularPolicy playing educable's ``strategy`` (a probability a slot)."""
    from open_spiel.python import policy as policy_lib

    from educable.bridge import field, trees
    found = trees.tree(game)
    actions = field._declared(game, "actions")
    name, params = openspiel_name(game)
    table = policy_lib.TabularPolicy(pyspiel.load_game(name, params))
    for h, s in walk_both(game):
        i = int(found.node_set[h])
        row = table.policy_for_key(s.information_state_string())
        for a in s.legal_actions():
            row[a] = strategy[int(found.slot0[i]) + found.moves[i].index(actions[a])]
    return table


@pytest.mark.parametrize("game", ["kuhn", "leduc"])
def test_exploitability_of_three_policies_equals_openspiels(game):
    from open_spiel.python.algorithms import exploitability as openspiel_exploitability

    from educable.bridge import trees
    from educable.learners import hidden as algo
    found = trees.tree(game)
    uniform = found.uniform()
    always_call = uniform.copy()
    for i in range(found.sets):
        moves = found.moves[i]
        keep = "call" if "call" in moves else "bet" if "bet" in moves else moves[0]
        always_call[found.slot0[i]:found.slot0[i] + len(moves)] = [1.0 if m == keep else 0.0 for m in moves]
    cfr = algo.cfr_plus(found, algo.CFRState.fresh(found), 100).average(found)
    name, params = openspiel_name(game)
    spiel = pyspiel.load_game(name, params)
    for strategy in (uniform, always_call, cfr):
        ours = algo.exploitability(found, strategy)[0]
        theirs = openspiel_exploitability.exploitability(spiel, tabular(game, strategy))
        assert ours == pytest.approx(theirs, abs=1e-9)


def test_kuhn_solves_to_minus_one_eighteenth_and_random_is_exploitable_by_0_458333(db_path):
    data = cli_json("solve", "kuhn")
    assert abs(data["value"] - float(KUHN_VALUE)) < 1e-9
    assert data["exploitability"] < 1e-9 and data["information_sets"] == 12
    judged = cli_json("eval", "kuhn", "random", "--exact")
    assert judged["exploitability"] == pytest.approx(11 / 24, abs=1e-12)       # 0.458333...
    assert judged["nash_conv"] == pytest.approx(11 / 12, abs=1e-12)
    # a best response to random: p1 gains 1/2 - (-1/18)..., each side's guarantee and the value add up
    assert judged["as_first"]["guaranteed"] + judged["as_second"]["guaranteed"] == pytest.approx(-11 / 12, abs=1e-12)
    assert cli_json("eval", "kuhn", "equilibrium", "--exact")["exploitability"] < 1e-9


def test_query_gives_every_move_its_equilibrium_probability_and_value(db_path):
    data = cli_json("query", "kuhn", "K pb")            # p1 holds the king, passed, p2 bet: always call
    assert data["player"] == "p1"
    moves = {m["move"]: m for m in data["moves"]}
    assert moves["bet"]["probability"] == pytest.approx(1.0) and moves["bet"]["value"] == pytest.approx(2.0)
    assert moves["pass"]["value"] == pytest.approx(-1.0)
    by_position = cli_json("query", "kuhn", "J K pb")    # a position: its mover's view
    assert by_position["information_set"] == "J pb" and by_position["player"] == "p1"
    one_line(cli("query", "kuhn", "K Z pb"), 2, "no information set")


def test_the_cfr_learner_converges_and_continues_where_it_stopped(db_path):
    first = cli_json("train", "kuhn", "--learner", "cfr", "--agent", "c", "--iterations", "500")
    assert first["exploitability"] < 2e-3
    more = cli_json("train", "kuhn", "--learner", "cfr", "--agent", "c", "--iterations", "1500")
    assert more["total_iterations"] == 2000 and more["exploitability"] < first["exploitability"]
    assert abs(more["value"] - float(KUHN_VALUE)) < 1e-3
    judged = cli_json("eval", "kuhn", "c", "--exact")
    assert judged["exploitability"] == pytest.approx(more["exploitability"], abs=1e-12)
    points = sqlite3.connect(db_path).execute("SELECT games, strength FROM curve_points WHERE agent = 'c'").fetchall()
    assert len(points) >= 20 and all("exploitability" in json.loads(s) for _, s in points)


def test_a_strategy_row_edited_by_hand_is_one_line_and_changes_nothing(db_path):
    cli_json("train", "kuhn", "--learner", "cfr", "--agent", "c", "--iterations", "50")
    cli_json("solve", "kuhn")
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE learned_values SET value = 3 WHERE agent = 'c' AND position = 'p1 | K' AND move = 'bet'")
        conn.execute("UPDATE equilibrium_moves SET probability = 0.7 WHERE information_set = 'Q p' AND move = 'bet'")
    before = sqlite3.connect(db_path).execute("SELECT count(*), sum(value) FROM learned_values").fetchone()
    one_line(cli("eval", "kuhn", "c", "--exact"), 2, "'K'", "probability")
    one_line(cli("query", "kuhn", "Q p"), 2, "adding up to")
    assert sqlite3.connect(db_path).execute("SELECT count(*), sum(value) FROM learned_values").fetchone() == before


@pytest.mark.parametrize("args", [
    ("train", "kuhn", "--learner", "qlearn", "--agent", "q", "--vs", "minimax"),
    ("train", "kuhn", "--learner", "qlearn", "--agent", "q", "--update", "bounds"),
    ("train", "kuhn", "--learner", "ntuple", "--agent", "n"),
    ("train", "kuhn", "--learner", "punish", "--agent", "p"),
    ("train", "kuhn", "--learner", "ga", "--agent", "g", "--cycles", "1"),
    ("eval", "kuhn", "random", "--vs", "random", "--games", "10"),
    ("eval", "kuhn", "minimax", "--exact"),
    ("train", "tictactoe", "--learner", "cfr", "--agent", "c"),
])
def test_what_does_not_know_hidden_information_refuses_in_one_line(db_path, args):
    r = cli(*args)
    one_line(r, 2)
    assert "hidden information" in r.output or "no agent" in r.output


LEAKY = """
:- module(leaky, []).
game:game(leaky).
game:players(leaky, [p1, p2]).
game:initial(leaky, deal, chance).
game:legal(leaky, deal, chance, C) :- member(C, [lo, hi]).
game:legal(leaky, card(C), p1, M) :- MOVES.
game:legal(leaky, card(C, M1), p2, M) :- member(M, [fold, call]), M1 \\== none.
game:next(leaky, deal, chance, C, card(C)).
game:next(leaky, card(C), p1, M, card(C, M)).
game:next(leaky, card(C, M1), p2, M, done(C, M1, M)).
game:next_mover(leaky, _, _, card(_), p1) :- !.
game:next_mover(leaky, _, _, card(_, _), p2) :- !.
game:next_mover(leaky, _, _, _, p1).
game:over(leaky, done(C, M1, M2), _, payoff(N)) :-
    ( M2 == fold -> N = 1 ; M1 == check -> N = 0 ; C == hi -> N = 2 ; N = -2 ).
game:sees(leaky, P, Player, View) :- SEES.
game:position_text(leaky, P, _, T) :- term_to_atom(P, T).
game:parse_position(leaky, T, P, M) :- term_to_atom(P, T), ( P = card(_) -> M = p1 ; P = card(_, _) -> M = p2 ; P = deal -> M = chance ; M = p1 ).
game:parse_move(leaky, T, T).
game:move_text(leaky, M, M).
game:board_lines(leaky, P, _, [S]) :- term_to_atom(P, S).
"""
def no_equilibrium(db_path) -> bool:
    """Whether the knowledge base holds no equilibrium (or was never made)."""
    if not db_path.exists():
        return True
    tables = {t for (t,) in sqlite3.connect(db_path).execute("SELECT name FROM sqlite_master")}
    return "equilibria" not in tables or not sqlite3.connect(db_path).execute("SELECT 1 FROM equilibria").fetchone()


def educable(folder, *args):
    """A command with --games-dir FOLDER, in a process of its own, as click's runner's result reads."""
    r = subprocess.run([EDUCABLE, "--games-dir", str(folder), *args], capture_output=True, text=True, timeout=120)
    return type("Result", (), {"exit_code": r.returncode, "output": r.stdout + r.stderr})()


BLIND_P1 = "( P = card(_) -> View = '-' ; P = card(_, M) -> View = M ; View = '-' )"


def test_moves_that_depend_on_a_card_the_player_cannot_see_are_named_in_one_line(tmp_path, db_path):
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "leaky.pl").write_text(LEAKY.replace("MOVES", "( C == hi -> member(M, [check, bet]) ; M = check )")
                                     .replace("SEES", BLIND_P1))
    one_line(educable(folder, "solve", "leaky"), 2, "p1 cannot tell", "legal moves differ", "card(lo)", "card(hi)")
    assert no_equilibrium(db_path)


def kuhn_copy(tmp_path, sees: str):
    """A folder holding Kuhn poker as `kuhnx`, its sees/4 replaced by ``sees``."""
    from educable.bridge.files import RULES_DIR
    text = (RULES_DIR / "games" / "kuhn.pl").read_text().replace("kuhn", "kuhnx")
    start = text.index("game:sees(kuhnx")
    end = text.index("\n\n", start)
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "kuhnx.pl").write_text(text[:start] + sees + text[end:])
    return folder


def test_a_view_that_forgets_what_its_player_did_is_named_in_one_line(tmp_path, db_path):
    folder = kuhn_copy(tmp_path, "game:sees(kuhnx, kuhnx(C1, C2, _), Player, View) :-\n"
                                 "    ( Player == p1 -> C = C1 ; C = C2 ), card_text(C, View).")
    one_line(educable(folder, "solve", "kuhnx"), 2, "p1 forgets")
    assert no_equilibrium(db_path)


def test_a_view_that_leaks_the_others_card_is_a_warning_of_check(tmp_path, db_path):
    folder = kuhn_copy(tmp_path, "game:sees(kuhnx, kuhnx(C1, C2, Ms), _, View) :-\n"
                                 "    term_to_atom(C1-C2-Ms, View).")
    r = educable(folder, "check", "kuhnx")
    assert r.exit_code == 0 and "p1's view tells every position apart" in r.output, r.output
    assert "sound" in r.output


def test_a_deal_whose_weights_do_not_add_up_to_one_is_refused_in_one_line(tmp_path, db_path):
    folder = kuhn_copy(tmp_path, "game:sees(kuhnx, kuhnx(C1, C2, Ms), Player, View) :-\n"
                                 "    ( Player == p1 -> C = C1 ; C = C2 ), card_text(C, CT), moves_text(Ms, MT),\n"
                                 "    atomic_list_concat([CT, MT], ' ', View).\n"
                                 "game:chance_weight(kuhnx, kuhnx(-, -, []), _, 1r2).")
    one_line(educable(folder, "solve", "kuhnx"), 2, "add up to 3r2", "'- - -'")
    assert no_equilibrium(db_path)
    r = educable(folder, "check", "kuhnx")
    assert r.exit_code == 1 and "add up to 3r2" in r.output, r.output


def test_q_learning_on_views_learns_the_sure_values_and_falls_short_of_an_equilibrium(db_path):
    """Q-learning's state is the player's view.  Facts of Kuhn poker: holding the king after a pass
    and a bet, calling always wins the pot of 2 and folding loses the ante; and no player who never
    mixes is at equilibrium (the second player's equilibrium bluffs with the jack one time in three,
    Kuhn 1950), so greedy play keeps an exploitability above 0."""
    data = cli_json("train", "kuhn", "--learner", "qlearn", "--agent", "q", "--games", "20000", "--seed", "3")
    assert data["exact"]["exploitability"] > 0.01
    values = {(p, m): (v, n) for p, m, v, n in sqlite3.connect(db_path).execute(
        "SELECT position, move, value, visits FROM learned_values WHERE agent = 'q'")}
    assert values[("p1 | K pb", "bet")][0] == pytest.approx(2.0) and values[("p1 | K pb", "bet")][1] > 0
    assert values[("p1 | K pb", "pass")][0] == pytest.approx(-1.0)
    judged = cli_json("eval", "kuhn", "q", "--exact")
    assert judged["exploitability"] == pytest.approx(data["exact"]["exploitability"], abs=1e-12)
    again = cli_json("train", "kuhn", "--learner", "qlearn", "--agent", "q", "--games", "1000")
    visits = sqlite3.connect(db_path).execute("SELECT sum(visits) FROM learned_values WHERE agent = 'q'").fetchone()[0]
    assert again["games"] == 1000 and visits > sum(n for _, n in values.values())


def test_openspiels_own_cfr_runs_on_educables_kuhn_and_both_exploitabilities_agree():
    """educable.openspiel_game gives each player its view as OpenSpiel's information state: OpenSpiel's
    Python CFR+ runs on the Prolog game, and the exploitability OpenSpiel computes there equals
    educable's of the same policy, and OpenSpiel's on its own kuhn_poker."""
    from open_spiel.python.algorithms import cfr
    from open_spiel.python.algorithms import exploitability as openspiel_exploitability

    import educable
    from educable.bridge import field, trees
    from educable.learners import hidden as algo
    spiel = educable.openspiel_game("kuhn")
    assert spiel.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    solver = cfr.CFRPlusSolver(spiel)
    for _ in range(20):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    theirs = openspiel_exploitability.exploitability(spiel, average)
    found = trees.tree("kuhn")
    actions = field._declared("kuhn", "actions")
    strategy = found.uniform()
    for i in range(found.sets):
        row = average.policy_for_key(found.key[i])
        for j, move in enumerate(found.moves[i]):
            strategy[found.slot0[i] + j] = row[actions.index(move)]
    assert algo.exploitability(found, strategy)[0] == pytest.approx(theirs, abs=1e-9)
    native = openspiel_exploitability.exploitability(pyspiel.load_game("kuhn_poker"), tabular("kuhn", strategy))
    assert native == pytest.approx(theirs, abs=1e-9) and theirs > 1e-4


def test_playing_poker_shows_only_your_own_card_until_the_end(db_path):
    """`play` on Kuhn: before the end the person sees their view only (never the other's card, nor
    chance's deal to it); at the end the whole position, the payoff and the review."""
    from educable.bridge import games
    for seed in range(6):
        r = cli("play", "kuhn", "--seed", str(seed), "--as", "p2", input="pass\npass\npass\n")
        assert r.exit_code == 0, r.output
        playing, _, end = r.output.partition("game over")
        shown = [line for line in playing.splitlines() if line.startswith("you (p2) see:")]
        assert shown and all(len(line.split(": ")[1].split()[0]) == 1 for line in shown)
        whole = [line for line in playing.splitlines() if line.startswith("p1 holds")]
        assert len(whole) == 1                              # the whole position, once, when the game is over
        mine = shown[0].split(": ")[1].split()[0]
        theirs = whole[0].split("p1 holds ")[1].split(",")[0]
        assert mine != theirs and theirs not in "".join(shown)     # the other's card appears only at the end
        assert "Jack" not in playing and "Queen" not in playing and "King" not in playing    # chance's deals unseen
        assert "exploitability 0.000000" in end
    stored = sqlite3.connect(db_path).execute("SELECT count(*) FROM matches WHERE game = 'kuhn'").fetchone()[0]
    assert stored == 6
    assert games.is_hidden("kuhn")


def test_any_policy_from_python_is_judged_exactly_and_openspiels_average_policy_as_it_plays(tmp_path):
    """A function of the view (always bet with the king, else pass) is judged by educable as a
    reference written here computes it; OpenSpiel's own average policy on openspiel_game('kuhn') is
    judged as OpenSpiel judges it; a policy that answers an illegal action is one line."""
    from open_spiel.python.algorithms import cfr
    from open_spiel.python.algorithms import exploitability as openspiel_exploitability

    import educable
    kb = educable.KnowledgeBase(tmp_path / "kb.db")

    def king_bets(obs):
        return 1 if obs["information_state"].startswith("K") else 0      # actions: pass 0, bet 1

    judged = kb.evaluate("kuhn", king_bets, exact=True)
    # Worked out by hand.  As p1 it bets only the king, so a best-responding p2 folds to a bet (p1 wins
    # 1) and bets after a pass, which p1 (no king) folds: 1/3 - 2/3 = -1/3.  As p2 it bets or calls
    # only the king; p1's best: with the jack bet (-1/2: p2 folds the queen, calls the king), with the
    # queen pass (0), with the king anything (+1): p1 gets 1/6.  Exploitability (1/3 + 1/6) / 2 = 1/4.
    assert judged["as_first"]["guaranteed"] == pytest.approx(-1 / 3, abs=1e-12)
    assert judged["as_second"]["guaranteed"] == pytest.approx(-1 / 6, abs=1e-12)
    assert judged["exploitability"] == pytest.approx(1 / 4, abs=1e-12)
    spiel = educable.openspiel_game("kuhn")
    solver = cfr.CFRSolver(spiel)
    for _ in range(5):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    theirs = openspiel_exploitability.exploitability(spiel, average)
    assert kb.evaluate("kuhn", average, exact=True)["exploitability"] == pytest.approx(theirs, abs=1e-9)
    with pytest.raises(educable.Error, match="probabilities of its legal"):
        kb.evaluate("kuhn", lambda obs: [0.5, 0.6], exact=True)


# ---------------------------------------------------------------- GDL-II: sees rules and moves made at once

GDL_SHEETS = Path(__file__).resolve().parent.parent / "examples" / "gdl"


def gdl_games(tmp_path, *names):
    """A games folder holding the example sheets ``names`` (imported as a user would)."""
    folder = tmp_path / "games"
    folder.mkdir(exist_ok=True)
    for name in names:
        r = subprocess.run([EDUCABLE, "gdl", "import", str(GDL_SHEETS / f"{name}.kif"), "--into", str(folder)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
    return folder


def in_folder(folder, *args, db):
    r = subprocess.run([EDUCABLE, "--games-dir", str(folder), *args, "--db", str(db)], capture_output=True,
                       text=True, timeout=300)
    return r


def test_monty_hall_in_gdl_ii_is_solved_and_a_random_candidate_judged_as_worked_out_by_hand(tmp_path):
    """Thielscher's Monty Hall sheet (examples/gdl/montyhall.kif; the host a player): switching wins
    two games in three whatever the host does, so the candidate's value is 2/3 - 1/3 = 1/3.  A random
    candidate (a door, then stay or switch alike) wins half its games: 0 against a best-responding host,
    1/3 given away; a random host gives nothing away (every host leaves switching its 2/3), so random's
    exploitability is (1/3 + 0) / 2 = 1/6."""
    folder = gdl_games(tmp_path, "montyhall")
    db = tmp_path / "kb.db"
    r = in_folder(folder, "solve", "montyhall", "--json", db=db)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["value"] == pytest.approx(1 / 3, abs=1e-9)
    r = in_folder(folder, "judge", "montyhall", "random", "--json", db=db)
    assert r.returncode == 0, r.stderr
    judged = json.loads(r.stdout)
    assert judged["as_first"]["guaranteed"] == pytest.approx(0, abs=1e-9)
    assert judged["as_second"]["guaranteed"] == pytest.approx(-1 / 3, abs=1e-9)
    assert judged["exploitability"] == pytest.approx(1 / 6, abs=1e-9)
    r = in_folder(folder, "query", "montyhall", "noop", db=db)     # the candidate's first choice: any door
    assert r.returncode == 0 and "(choose 1)" in r.stdout and "+0.333333" in r.stdout, r.stdout + r.stderr


GOOFSPIEL_POLICY = '''
import re
def bids(obs):
    """A bid's weight: its card, and 3 more for the card equal to the prize turned up last."""
    prize = int(re.findall(r"deal (\\d)", obs["information_state"])[-1])
    legal = sorted(obs["legal"])
    numbers = sorted(i for i, m in enumerate(obs["action_mask"]) if m)
    cards = [int(m.strip("()").split()[1]) for m in legal]
    weights = [c + 3 * (c == prize) for c in cards]
    return {a: w / sum(weights) for a, w in zip(numbers, weights)}
'''


def openspiel_goofspiel_exploitability(weighted: bool) -> float:
    """OpenSpiel's exploitability on its own goofspiel(num_cards=3) (prizes in random order, win/loss
    returns), made turn-based, of the uniform policy or of the weighted one above, read from its
    information state strings."""
    import re

    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import exploitability

    game = pyspiel.load_game_as_turn_based("goofspiel", {"num_cards": 3})

    class Weighted(policy_lib.Policy):
        def action_probabilities(self, state, player_id=None):
            player = state.current_player()
            info = state.information_state_string(player)
            prize = int(re.search(r"Point card sequence: ([\d ]*)", info).group(1).split()[-1])
            legal = state.legal_actions()
            weights = [a + 1 + 3 * (a + 1 == prize) for a in legal]          # action a bids card a + 1
            return {a: w / sum(weights) for a, w in zip(legal, weights)}

    chosen = Weighted(game, [0, 1]) if weighted else policy_lib.UniformRandomPolicy(game)
    return exploitability.exploitability(game, chosen)


def test_goofspiel_with_moves_made_at_once_is_judged_as_openspiel_judges_its_own(tmp_path):
    """Goofspiel in plain GDL (both bid at once; examples/gdl/goofspiel.kif) against OpenSpiel's
    goofspiel: the uniform policy's exploitability and a weighted policy's (a function of the view,
    from Python) equal pyspiel's on its own game to 1e-9; the value is 0 (the game is symmetric)."""
    folder = gdl_games(tmp_path, "goofspiel")
    db = tmp_path / "kb.db"
    r = in_folder(folder, "solve", "goofspiel", "--json", db=db)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["value"] == pytest.approx(0, abs=1e-9)
    r = in_folder(folder, "judge", "goofspiel", "random", "--json", db=db)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["exploitability"] == pytest.approx(openspiel_goofspiel_exploitability(False), abs=1e-9)
    (tmp_path / "bids.py").write_text(GOOFSPIEL_POLICY)
    r = in_folder(folder, "judge", "goofspiel", f"{tmp_path / 'bids.py'}:bids", "--json", db=db)
    assert r.returncode == 0, r.stderr
    theirs = openspiel_goofspiel_exploitability(True)
    assert theirs > 0.1 and json.loads(r.stdout)["exploitability"] == pytest.approx(theirs, abs=1e-9)


ENDLESS = ("(role a) (role b)\n(init (control a))\n(<= (legal ?r (go 1)) (role ?r))\n(<= (legal ?r (go 2)) (role ?r))\n"
           "(<= (next (control a)) (true (control a)))\n(<= terminal (true (done)))\n(goal a 50) (goal b 50)\n")
LATE = ("(role a) (role b)\n(init (control a))\n(<= (legal a (go 1)) (true (control a)))\n"
        "(<= (legal a (go 2)) (true (control a)))\n(<= (legal b noop) (true (control a)))\n"
        "(<= (legal ?r (pick 1)) (role ?r) (true (control both)))\n(<= (legal ?r (pick 2)) (role ?r) (true (control both)))\n"
        "(<= (next (control both)) (does a (go 2)))\n(<= (next done) (does a (go 1)))\n(<= (next done) (true (control both)))\n"
        "(<= terminal (true done))\n(goal a 50) (goal b 50)\n")


@pytest.mark.parametrize("name, text, words", [
    ("endless", ENDLESS, "comes back along a line of play"),
    ("late", LATE, "which a walk from the start did not meet"),
])
def test_a_sheet_whose_moves_at_once_cannot_be_solved_says_why_in_one_line(tmp_path, name, text, words):
    """Both roles choose for ever: the tree never ends (solve says so, check warns); both choose only
    off the first moves' line: the sheet was read as turn-taking, and solve names the rule."""
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / f"{name}.kif").write_text(text)
    r = in_folder(folder, "solve", name, db=tmp_path / "kb.db")
    assert r.returncode == 2 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    if name == "endless":
        r = subprocess.run([EDUCABLE, "check", str(folder / f"{name}.kif")], capture_output=True, text=True,
                           timeout=120)
        assert words in r.stdout, r.stdout + r.stderr


def test_monte_carlo_cfr_with_external_sampling_converges_as_openspiels_and_repeats_by_seed(db_path):
    """--sampling external: Kuhn after 20,000 iterations is within 0.01 of an equilibrium; on Leduc,
    10,000 iterations reach what OpenSpiel's C++ ExternalSamplingMCCFRSolver reaches in as many (a
    sampled method: within half as much again, over three of its seeds); the same seed gives the same
    strategy, another seed another; an agent keeps its method."""
    kuhn = cli_json("train", "kuhn", "--learner", "cfr", "--agent", "m", "--sampling", "external",
                    "--iterations", "20000", "--seed", "4")
    assert kuhn["exploitability"] < 0.01 and kuhn["sampling"] == "external"
    # a profile's self-play is within what its sides give away (NashConv, twice the exploitability) of
    # the value, -1/18 (Kuhn 1950): v* - g1 <= u(s1, s2) <= v* + g2
    assert abs(kuhn["value"] - float(KUHN_VALUE)) <= 2 * kuhn["exploitability"]
    again = cli_json("train", "kuhn", "--learner", "cfr", "--agent", "m2", "--sampling", "external",
                     "--iterations", "20000", "--seed", "4")
    other = cli_json("train", "kuhn", "--learner", "cfr", "--agent", "m3", "--sampling", "external",
                     "--iterations", "20000", "--seed", "5")
    rows = {a: sqlite3.connect(db_path).execute("SELECT position, move, value FROM learned_values WHERE agent = ? "
                                                "ORDER BY position, move", (a,)).fetchall() for a in ("m", "m2", "m3")}
    assert rows["m"] == rows["m2"] != rows["m3"] and again["exploitability"] == kuhn["exploitability"] \
        != other["exploitability"]
    one_line(cli("train", "kuhn", "--learner", "cfr", "--agent", "m", "--sampling", "full"), 2, "--sampling external")
    one_line(cli("train", "kuhn", "--learner", "cfr", "--agent", "w", "--workers", "2"), 2, "are for --sampling external")
    leduc = cli_json("train", "leduc", "--learner", "cfr", "--agent", "l", "--sampling", "external",
                     "--iterations", "10000", "--seed", "1", "--judge-every", "10000")
    game = pyspiel.load_game("leduc_poker")
    theirs = []
    for seed in (1, 2, 3):
        solver = pyspiel.ExternalSamplingMCCFRSolver(game, seed, pyspiel.MCCFRAverageType.SIMPLE)
        for _ in range(10_000):
            solver.run_iteration()
        theirs.append(pyspiel.exploitability(game, solver.average_policy()))
    assert leduc["exploitability"] < 1.5 * max(theirs), (leduc["exploitability"], theirs)


def test_pettingzoo_shows_each_player_only_its_own_view_and_pays_the_pot():
    """educable.env('kuhn') passes PettingZoo's API test; over many deals a player's observation (the
    number of its information set) is a function of its own card and the moves made, never of the
    other's card; the rewards are Kuhn's pot as a reference written here pays it (the higher card
    takes the pot at a showdown, a fold gives the ante and any bet to the other).  Gymnasium, whose
    opponent would see the whole position, refuses in one line."""
    from pettingzoo.test import api_test

    import educable
    api_test(educable.env("kuhn"), num_cycles=100)
    env = educable.env("kuhn")
    rank = {"J": 0, "Q": 1, "K": 2}
    numbers: dict[tuple, set] = {}
    for seed in range(60):
        env.reset(seed=seed)
        rng = __import__("random").Random(seed)
        moves: list[str] = []
        for agent in env.agent_iter():
            obs, reward, over, _, info = env.last()
            if over:                        # the whole position, read only now: 'K Q pbb'
                first, second = env._board.state.key.split()[:2]
                mine, theirs = (first, second) if agent == "p1" else (second, first)
                line = "".join(moves)
                if line in ("bp", "pbp"):           # a fold: the one who bet last takes the antes
                    bettor = "p1" if line == "bp" else "p2"
                    expected = 1 if agent == bettor else -1
                else:                               # pp for 1; bb, pbb for 2
                    pot = 1 if line == "pp" else 2
                    expected = pot if rank[mine] > rank[theirs] else -pot
                assert reward == expected, (agent, moves, mine, theirs, reward)
                env.step(None)
                continue
            card = info["view"].split()[0]
            numbers.setdefault((agent, card, "".join(moves)), set()).add(int(obs["observation"][0]))
            action = rng.choice([int(a) for a in obs["action_mask"].nonzero()[0]])
            moves.append("pb"[action])
            env.step(action)
    assert all(len(seen) == 1 for seen in numbers.values())            # the same view, the same number
    assert len({next(iter(s)) for k, s in numbers.items() if k[0] == "p1"}) == len([k for k in numbers if k[0] == "p1"])
    with pytest.raises(educable.Error, match="hidden information"):
        educable.gym_env("kuhn")


def test_a_sheet_that_names_a_fluent_as_educable_keeps_what_players_saw_is_refused(tmp_path):
    """A player's history and a choice waiting sit in a hidden sheet's position as ($seen ...) and
    ($chose ...): a sheet writing such a fluent itself (a choice that never happened) is refused in
    one line at load, not played as a move made."""
    folder = tmp_path / "games"
    folder.mkdir()
    sheet = (GDL_SHEETS / "montyhall.kif").read_text().replace("(init (step hide))",
                                                              "(init (step hide)) (init ($chose host (open 1)))")
    (folder / "spoof.kif").write_text(sheet)
    r = in_folder(folder, "solve", "spoof", db=tmp_path / "kb.db")
    assert r.returncode == 2 and "$chose is a name educable keeps" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
