"""The shipped game families (Nim, hexapawn W x H, N in a row with and without
gravity, dots and boxes, where a player moves again) against independent references on every reachable state, and
against facts from the literature (position counts, Bouton's theorem)."""
import pytest

from educable.bridge import games, graphs
from reference_families import boxes, hexapawn, in_a_row, nim, nim_first_player_wins
from reference_games import assert_graph_matches, reachable, solve

CASES = {
    "nim(1,3,5)": nim((1, 3, 5)),
    "nim(2,2,3)": nim((2, 2, 3)),
    "hexapawn(3,3)": hexapawn(3, 3),
    "hexapawn(4,4)": hexapawn(4, 4),
    "hexapawn(3,4)": hexapawn(3, 4),
    "connect(3,4,4)": in_a_row(3, 4, 4, True),
    "connect(3,4,3)": in_a_row(3, 4, 3, True),
    "tictactoe(3,3,3)": in_a_row(3, 3, 3, False),
    "tictactoe(3,4,2)": in_a_row(3, 4, 2, False),
    "tictactoe(2,2,3)": in_a_row(2, 2, 3, False),
    "boxes(1,1)": boxes(1, 1),
    "boxes(1,3)": boxes(1, 3),
    "boxes(2,2)": boxes(2, 2),
}

# Facts from outside this project: the counts for octopawn and
# connect-three, 88 states of 1-3-5 Nim (2x4x6 heap vectors with either side
# to move, less the unreachable ones), tic-tac-toe's 5,478.  One box: 16
# states (any set of lines, drawn alternately, with a to move after an even
# number), the last only when all four are drawn, and the second player
# draws the fourth line.
KNOWN = {
    "nim(1,3,5)": {"positions": 88},
    "hexapawn(3,3)": {"positions": 135, "terminal": 65, "winner": "black"},
    "hexapawn(4,4)": {"positions": 20286},
    "connect(3,4,4)": {"positions": 41750, "terminal": 17820, "classes": 20890, "winner": "x"},
    "tictactoe(3,3,3)": {"positions": 5478, "terminal": 958, "classes": 765, "winner": "draw"},
    "boxes(1,1)": {"positions": 16, "terminal": 1, "winner": "b"},
}


@pytest.fixture(scope="module")
def graph_of():
    cache = {}

    def get(game):
        if game not in cache:
            cache[game] = graphs.state_graph(None, game)
        return cache[game]
    return get


def exact_name(graph, i):
    v, m = int(graph.value[i]), int(graph.mover[i])
    return "draw" if v == 0 else graph.players[m if v > 0 else 1 - m]


@pytest.mark.parametrize("game", list(CASES))
def test_every_state_matches_the_reference(graph_of, game):
    assert_graph_matches(graph_of(game), CASES[game])


@pytest.mark.parametrize("game", list(CASES))
def test_exact_values_match_the_reference_solver(graph_of, game):
    expected = solve(CASES[game])
    graph = graph_of(game)
    assert all(exact_name(graph, i) == expected[k] for i, k in enumerate(graph.keys))


@pytest.mark.parametrize("game", [g for g in CASES if not g.startswith("nim")])
def test_folded_graph_has_one_node_per_reference_class(game):
    ref = CASES[game]
    states = reachable(ref)
    classes = {frozenset(ref["key"](im) for im in ref["images"](s)) for s in states.values()}
    folded, _ = graphs.solved_graph(None, game)
    assert folded.folded and folded.size == len(classes)
    assert folded.positions == len(states)
    class_of = {key: c for c in classes for key in c}
    assert {class_of[k] for k in folded.keys} == classes        # one member stands for each class
    assert all(int(o) == len(class_of[k]) for k, o in zip(folded.keys, folded.orbit))


@pytest.mark.parametrize("game", ["connect(3,4,3)", "tictactoe(3,4,2)"])
def test_class_keys_and_learner_cells_match_the_reference(game):
    """A class's key is its least image as text ('.' < o < x, the top left first), and the cells
    the n-tuple learner reads are the board from the viewer's side (1 own, 2 the other's, 0 empty;
    with gravity 3 for an empty cell a piece can drop into), on every reachable state: the
    connect family computes both on bitboards (on a board wider than high, so that rows and
    columns cannot be confused; 4 rows as well took 10 s more)."""
    from educable.bridge.engine import engine, quote
    ref = CASES[game]
    states = reachable(ref)
    keys = sorted(states)
    assert games.canonical_keys(game, keys) == [min(ref["key"](im) for im in ref["images"](states[k]))
                                                 for k in keys]
    gravity = game.startswith("connect")
    w = int(game.split(",")[1])

    def cell(board, i, viewer):
        if board[i] != ".":
            return "1" if board[i] == viewer else "2"
        on_floor = i + w >= len(board) or board[i + w] != "."
        return "3" if gravity and on_floor else "0"

    for page in range(0, len(keys), 2000):             # each state as x sees it, then as o does
        part = keys[page:page + 2000]
        got = engine().call(f"ntuple:nt_cells({quote(game)}, [{', '.join(quote(k) for k in part)}], [x, o], Out)")
        want = "".join(cell(states[k][0], i, viewer) for k in part for viewer in ("x", "o")
                       for i in range(len(states[k][0])))
        assert got == want, part[0]


@pytest.mark.parametrize("game", list(KNOWN))
def test_counts_are_the_known_facts(graph_of, game):
    facts = KNOWN[game]
    graph = graph_of(game)
    assert graph.positions == facts["positions"]
    if "terminal" in facts:
        assert graph.terminal == facts["terminal"]
    if "classes" in facts:
        assert graphs.solved_graph(None, game)[0].size == facts["classes"]
    if "winner" in facts:
        assert exact_name(graph, 0) == facts["winner"]


def test_nim_values_follow_boutons_theorem(graph_of):
    graph = graph_of("nim(1,3,5)")
    for i, key in enumerate(graph.keys):
        heaps = [int(h) for h in key.split()[0].split("-")]
        assert (int(graph.value[i]) == 1) == nim_first_player_wins(heaps), key


def test_tictactoe_family_member_is_the_classic_game(graph_of):
    classic = graphs.state_graph(None, "tictactoe")
    member = graph_of("tictactoe(3,3,3)")
    assert dict(zip(classic.keys, classic.value.tolist())) == dict(zip(member.keys, member.value.tolist()))


def test_family_members_are_games_and_bad_names_are_refused():
    assert games.check_game("connect(3,5,4)") == "connect(3,5,4)"
    assert games.check_game("nim(2,4,6)") == "nim(2,4,6)"
    assert games.check_game("boxes(1,2)") == "boxes(1,2)"
    for bad in ("connect(9,3,3)", "connect(a,b,c)", "hexapawn(1,1)", "nim()", "nim(1,99)", "connect(3,4,4",
                "boxes(0,2)", "boxes(4,4)", "boxes(2)"):
        with pytest.raises(games.BadInput, match="unknown game"):
            games.check_game(bad)


@pytest.mark.parametrize("game,text,why", [
    ("connect(3,4,4)", "..../..../x.../....", "float"),
    ("connect(3,4,4)", "..../..../..../xx..", "cannot happen"),
    ("connect(3,4,4)", "..../....", "rows"),
    ("hexapawn(4,4)", "bbbb/..../..../wwww", "rows of"),
    ("hexapawn(4,4)", "bbbb/..../w.../wwww w", "at most 4 pawns"),
    ("nim(1,3,5)", "1-3-6 p1", "only shrink"),
    ("nim(1,3,5)", "1-3 p1", "3 heap sizes"),
    ("boxes(2,2)", "1,13 .... a", "lines \\(1-12\\)"),
    ("boxes(2,2)", "1,1 .... a", "lines"),
    ("boxes(2,2)", "- ... a", "owner"),
])
def test_bad_positions_get_one_clear_line(game, text, why):
    with pytest.raises(games.BadInput, match=why):
        games.parse(game, text)


def test_games_lists_each_family_member_the_knowledge_base_has_solved(db_path):
    """connect(3,4,3), which no game file names, is listed by `games` once solved, with the counts of
    the reference; a row naming no game these files define (another family's bounds, text that is no
    name) is not listed, and `games` still answers."""
    import json
    import sqlite3

    from conftest import cli
    ref = in_a_row(3, 4, 3, True)
    states = reachable(ref)
    assert cli("solve", "connect(3,4,3)").exit_code == 0
    with sqlite3.connect(db_path) as conn:
        conn.executemany("INSERT INTO games (name, players) VALUES (?, '[\"x\", \"o\"]')",
                         [("connect(4,9999,9999)",), ("'), halt, ('",), ("nim(٣,4)",)])
    r = cli("games", "--json")
    assert r.exit_code == 0, r.output
    rows = {row["game"]: row for row in json.loads(r.stdout)}
    row = rows["connect(3,4,3)"]
    assert row["solved"] and row["winner"] == solve(ref)[ref["key"](ref["initial"])]
    assert (row["positions"], row["terminal"]) == (len(states), sum(ref["result"](s) is not None for s in states.values()))
    assert not {"connect(4,9999,9999)", "'), halt, ('", "nim(٣,4)"} & set(rows)
