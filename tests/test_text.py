"""The text form of positions and moves: round trips and clear errors."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from educable.bridge import games
from educable.bridge.engine import BadInput


@pytest.mark.parametrize("game", ["tictactoe", "hexapawn"])
def test_every_reachable_position_round_trips(graphs, game):
    for key in graphs[game].keys:
        assert games.parse(game, key).key == key


def test_tictactoe_accepts_loose_spacing_case_and_side_suffix():
    assert games.parse("tictactoe", "X.O/.X./..O").key == "x.o/.x./..o"
    assert games.parse("tictactoe", "  x.o/.x./..o x ").mover == "x"
    assert games.parse("tictactoe", "x.o/.x./... o").mover == "o"
    assert games.parse("tictactoe", "x........").key == "x../.../..."


@pytest.mark.parametrize("text, words", [
    ("xx/..", "9 squares"),
    ("xxx/.../...", "cannot happen"),
    ("x.o/.x./..o o", "x to move, not o"),
])
def test_tictactoe_bad_positions_say_why(text, words):
    with pytest.raises(BadInput, match=words):
        games.parse("tictactoe", text)


@pytest.mark.parametrize("text", ["123-789", "1234-78 w", "12-28 b", "12-78 q", "0-78 w", "ab-cd w"])
def test_hexapawn_bad_positions(text):
    with pytest.raises(BadInput, match="bad hexapawn position"):
        games.parse("hexapawn", text)


@pytest.mark.parametrize("game, move", [("tictactoe", "10"), ("tictactoe", "a"), ("hexapawn", "25"), ("hexapawn", "2-0")])
def test_bad_move_text(game, move):
    with pytest.raises(BadInput, match="bad .* move"):
        games.play(games.initial(game), move)


def test_illegal_move_is_explained():
    s = games.play(games.initial("tictactoe"), "5")
    with pytest.raises(BadInput, match="illegal move 5"):
        games.play(s, "5")
    with pytest.raises(BadInput, match="illegal move 1-7"):
        games.play(games.initial("hexapawn"), "1-7")


text = st.text(alphabet=st.sampled_from(list("xo.XO/ -123456789wb'\"\\()[],.;:%abc\n")), max_size=16)


@settings(max_examples=300, deadline=None)
@given(text, st.sampled_from(["tictactoe", "hexapawn"]))
def test_any_text_parses_or_gives_a_clear_error(t, game):
    try:
        state = games.parse(game, t)
    except BadInput as exc:
        assert str(exc).startswith(f"bad {game.replace('tictactoe', 'tic-tac-toe')} position")
        assert "\n" not in str(exc).strip()
    else:
        assert games.parse(game, state.key) == state


@settings(max_examples=200, deadline=None)
@given(text, st.sampled_from(["tictactoe", "hexapawn"]))
def test_any_move_text_is_played_or_refused_clearly(t, game):
    try:
        games.play(games.initial(game), t)
    except BadInput as exc:
        assert str(exc).startswith(("bad ", "illegal move"))


def drawn(rows: list[str], wide: int) -> list[str]:
    """A board as the families draw it, written here apart: every item right-aligned in `wide` columns."""
    return ["".join(item.rjust(wide) for item in row) for row in rows]


@pytest.mark.parametrize("game, position, rows, wide", [
    ("connect(4,7,6)", "......./......./......./......./......./x.....o",
     [["."] * 7] * 5 + [["X", ".", ".", ".", ".", ".", "O"], [str(c) for c in range(1, 8)]], 3),
    ("tictactoe(4,4,3)", "x.../..o./....",
     [["X", "2", "3", "4"], ["5", "6", "O", "8"], ["9", "10", "11", "12"]], 3),
    ("hexapawn(4,4)", "bbbb/..../..../wwww w",
     [["B"] * 4, ["9", "10", "11", "12"], ["5", "6", "7", "8"], ["W"] * 4], 3),
])
def test_boards_are_drawn_in_columns(game, position, rows, wide):
    """Every cell of a family's board takes the same width, a number of two digits included."""
    assert games.board(games.parse(game, position)) == drawn(rows, wide)
