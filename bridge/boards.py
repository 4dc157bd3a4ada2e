"""A position as a board to draw and click: what the page of `educable serve` shows.

Everything comes from the game file, so that a new game file is drawn unchanged: its cells/4 as the
first player sees them (0 empty, 1 the first player's, 2 the second's, other numbers as they are,
a nim heap's size say), its drawn_as/2 (dots and boxes: lines and boxes, not a grid; 2048's tiles; a
die, drawn beside the board), its layout/3 (cells a row, and whether cell 1's row is drawn at the top or
the bottom), and for each legal move the cells it changes, so that a click on a cell (or two, for a
piece that moves) finds the move.  A game without cells/4, or whose cells are not a grid (a game of
dice without layout/3: Pig's cells are its scores), is drawn as its text board (board_lines/4) with a
button a move.
"""
from __future__ import annotations

import math
from typing import Any

from educable.bridge import games
from educable.bridge.engine import engine, quote
from educable.bridge.errors import BadInput


def board_view(game: str, position: str | None = None) -> dict[str, Any]:
    """The board of ``position`` (default: the start) to draw: players, mover, result, text lines,
    and when the game has cells, ``grid`` = {columns, rows, top, cells} (or, for a game drawn_as
    dots and boxes, ``drawing`` = {kind, rows, columns, lines, boxes}) and each legal move with the
    cells it changes (``changed``, 0-based)."""
    state = games.parse(game, position) if position is not None else games.initial(game)
    successors = games.moves(state) if games.result(state) is None else []
    keys = [state.key] + [nxt.key for _, nxt in successors]
    first = games.players(game)[0]
    g = quote(game)
    cells = engine().call(
        f"findall(C, (member(K, {'[' + ', '.join(quote(k) for k in keys) + ']'}), "
        f"( catch((game:parse_position({g}, K, P, _), game:cells({g}, P, {quote(first)}, C0)), _, fail) "
        f"-> C = C0 ; C = [] )), Out)")
    out: dict[str, Any] = {"game": game, "position": state.key, "to_move": state.mover,
                           "players": games.players(game), "result": games.result(state),
                           "board": games.board(state), "grid": None,
                           "moves": [{"move": m, "next": nxt.key, "changed": []} for m, nxt in successors]}
    # the game's drawing, as [kind, numbers]: dots_and_boxes(R, C), tiles(R, C), dice(Faces)
    kind, numbers = engine().call(f"( catch(game:drawn_as({g}, D), _, fail), compound(D) -> D =.. [K|A], Out = [K, A] "
                                  f"; Out = [none, []] )")
    if not all(isinstance(n, int) and 0 < n <= 10_000 for n in numbers):
        kind, numbers = "none", []      # a drawing the page does not know (check says so): a grid or text
    if kind == "dice" and len(numbers) == 1:
        out["dice"] = numbers[0]        # the page draws the face chance last read (a move 1..faces)
    if len(out["players"]) == 1:        # a game of score: what each move scores (the page adds them up)
        for m in out["moves"]:
            m["points"] = games.points(state, m["move"])
    here = cells[0] if cells else []
    if here and all(isinstance(c, int) for c in here) and all(len(c) == len(here) for c in cells):
        if kind == "dots_and_boxes" and len(numbers) == 2:
            rows, columns = numbers
            lines = (rows + 1) * columns + rows * (columns + 1)
            out["drawing"] = {"kind": "dots_and_boxes", "rows": rows, "columns": columns,
                              "lines": here[:lines], "boxes": here[lines:]}
        elif kind == "tiles" and len(numbers) == 2 and numbers[0] * numbers[1] == len(here):
            out["drawing"] = {"kind": "tiles", "rows": numbers[0], "columns": numbers[1], "cells": here}
        elif kind == "dice" and not games.layout(game):
            pass                        # a die and numbers that are no board (Pig's scores): the text board
        else:
            columns, top = _layout(game, len(here))
            out["grid"] = {"columns": columns, "rows": math.ceil(len(here) / columns), "top": top, "cells": here}
        for m, after in zip(out["moves"], cells[1:], strict=True):
            m["changed"] = [i for i, (a, b) in enumerate(zip(here, after, strict=True)) if a != b]
    return out


def _layout(game: str, n_cells: int) -> tuple[int, bool]:
    """Cells a row and whether cell 1's row is drawn at the top: the game's layout/3, else a square
    board when the cells make one (GDL boards), else one row."""
    found = games.layout(game)
    if found:
        return found[0], found[1] != "bottom"
    side = math.isqrt(n_cells)
    return (side, True) if side * side == n_cells else (n_cells, True)


def can_set_up(game: str) -> bool:
    """Whether the game's file says how a board clicked together becomes its text (setup_text/4)."""
    return bool(engine().call(f"( game:declares({quote(games.check_game(game))}, setup_text) -> Out = true ; Out = false )"))


def set_up(game: str, cells: list[int], mover: str) -> dict[str, Any]:
    """The board of the position whose cells, as the first player sees them (0 empty, 1 the first
    player's, 2 the second's), are ``cells``, with ``mover`` to move where the game's text can say so:
    the game's setup_text/4 writes its text and parse_position/4 reads it, so the game's own rules
    refuse (BadInput, in their words) a position that cannot happen."""
    if not can_set_up(game):
        raise BadInput(f"{game}'s rules do not say how a board is set up by clicks (no setup_text/4): type its text instead")
    players = games.players(game)
    if mover not in players:
        raise BadInput(f"mover {mover!r} is not a player of {game} ({', '.join(players)})")
    start = board_view(game)
    size = len(start["grid"]["cells"]) if start["grid"] else 0
    if len(cells) != size or any(c not in (0, 1, 2) for c in cells):
        raise BadInput(f"a set-up of {game} gives {size} cells, each 0 (empty), 1 ({players[0]}'s) or 2 ({players[1]}'s)")
    text = engine().call(f"game:setup_text({quote(game)}, {list(cells)}, {quote(mover)}, Out)")
    return board_view(game, text)
