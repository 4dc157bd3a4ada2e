"""The Prolog rules against an independent reference on every reachable state."""
import pytest

from educable.bridge import games
from educable.bridge import graphs as graphs_mod
from reference_games import GAMES, assert_graph_matches, solve

FACTS = {
    "tictactoe": {"positions": 5478, "terminal": 958, "x": 626, "o": 316, "draw": 16, "classes": 765},
    "hexapawn": {"positions": 135, "terminal": 65},
}


@pytest.mark.parametrize("game", ["tictactoe", "hexapawn"])
def test_every_state_moves_and_results_match_reference(graphs, game):
    assert_graph_matches(graphs[game], GAMES[game])


@pytest.mark.parametrize("game", ["tictactoe", "hexapawn"])
def test_position_counts_are_the_known_facts(graphs, game):
    graph = graphs[game]
    facts = FACTS[game]
    assert graph.size == facts["positions"]
    assert int((graph.winner != -1).sum()) == facts["terminal"]
    if game == "tictactoe":
        wins = [graph.players[w] if w < 2 else "draw" for w in graph.winner if w != -1]
        assert (wins.count("x"), wins.count("o"), wins.count("draw")) == (626, 316, 16)
    else:
        assert int((graph.winner == -1).sum()) == 70


def test_canonical_keys_group_exactly_the_symmetric_images(graphs):
    """Reference: the 8 symmetries of the square as index permutations."""
    perms = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8], [6, 3, 0, 7, 4, 1, 8, 5, 2], [8, 7, 6, 5, 4, 3, 2, 1, 0],
        [2, 5, 8, 1, 4, 7, 0, 3, 6], [2, 1, 0, 5, 4, 3, 8, 7, 6], [6, 7, 8, 3, 4, 5, 0, 1, 2],
        [0, 3, 6, 1, 4, 7, 2, 5, 8], [8, 5, 2, 7, 4, 1, 6, 3, 0],
    ]
    graph = graphs["tictactoe"]
    for key, canon in zip(graph.keys, games.canonical_keys("tictactoe", graph.keys)):
        b = key.replace("/", "")
        images = {"".join(b[i] for i in p) for p in perms}
        assert canon.replace("/", "") in images
        assert canon.replace("/", "") == min(images)  # '.' < 'o' < 'x': least image


def test_hexapawn_canonical_is_the_mirror_class(graphs):
    graph = graphs["hexapawn"]
    mirror = {1: 3, 2: 2, 3: 1, 4: 6, 5: 5, 6: 4, 7: 9, 8: 8, 9: 7}
    for key, canon in zip(graph.keys, games.canonical_keys("hexapawn", graph.keys)):
        board, side = key.split(" ")
        w, b = board.split("-")
        m = "".join(sorted(str(mirror[int(c)]) for c in w)) + "-" + "".join(sorted(str(mirror[int(c)]) for c in b))
        assert canon in (key, f"{m} {side}")


@pytest.mark.parametrize("game", ["tictactoe", "hexapawn"])
def test_exact_values_match_reference_solver(graphs, game):
    ref = GAMES[game]
    expected = solve(ref)
    graph = graphs[game]
    for i, key in enumerate(graph.keys):
        v = int(graph.value[i])
        mover = int(graph.mover[i])
        got = "draw" if v == 0 else graph.players[mover if v > 0 else 1 - mover]
        assert got == expected[key], key


@pytest.mark.parametrize("game", ["tictactoe", "hexapawn"])
def test_folded_graph_stands_for_every_position_once(graphs, game):
    """The solved (folded) graph: one node per symmetry class, orbits adding up to the known counts."""
    folded, _ = graphs_mod.solved_graph(None, game)
    facts = FACTS[game]
    assert folded.folded
    assert folded.positions == facts["positions"] and folded.terminal == facts["terminal"]
    canon = games.canonical_keys(game, graphs[game].keys)
    assert sorted(folded.keys) == sorted(set(canon))
    sizes = {c: canon.count(c) for c in set(canon)}
    assert all(sizes[k] == int(o) for k, o in zip(folded.keys, folded.orbit))
    if game == "tictactoe":
        assert folded.size == facts["classes"]
    # values agree with the unfolded graph's, class by class
    full = graphs[game]
    value_of = dict(zip(folded.keys, folded.value.tolist()))
    assert all(value_of[c] == int(v) for c, v in zip(canon, full.value))
