"""A position as a board to draw and click: what the page of `educable serve` shows.

Everything comes from the game file, so that a new game file is drawn unchanged: its cells/4 as the
first player sees them (0 empty, 1 the first player's, 2 the second's, other numbers as they are,
a nim heap's size say), its layout/3 (cells a row, and whether cell 1's row is drawn at the top or
the bottom), and for each legal move the cells it changes, so that a click on a cell (or two, for a
piece that moves) finds the move.  A game without cells/4, or whose cells are not a grid, is drawn
as its text board (board_lines/4) with a button a move.
"""
from __future__ import annotations

import math
from typing import Any

from bridge import games
from bridge.engine import engine, quote


def board_view(game: str, position: str | None = None) -> dict[str, Any]:
    """The board of ``position`` (default: the start) to draw: players, mover, result, text lines,
    and when the game has cells, ``grid`` = {columns, rows, top, cells} and each legal move with
    the cells it changes (``changed``, 0-based)."""
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
    here = cells[0] if cells else []
    if here and all(isinstance(c, int) for c in here) and all(len(c) == len(here) for c in cells):
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
