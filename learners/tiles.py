"""2048 at machine speed for the n-tuple learner: the slide of one line as a table, TD(0) on afterstates.

Szubert and Jaśkowski ("Temporal Difference Learning of N-Tuple Networks
for the Game 2048", CIG 2014) learn the value of the *afterstate* (the
board right after the player's slide, before the new tile): the move
chosen is the one of most points plus the afterstate's value, and the
afterstate left before it learns toward that sum (TD(0); at the end,
toward 0).  The value is the sum of the weights the tuples point at under
each symmetry (no squashing: it estimates the points still to come).

A game of 2048 that reaches the 2048 tile takes about a thousand moves, so
training needs hundreds of millions of moves: this module plays them
without Prolog.  A move slides every line of the board alike, so the rules
are read once as tables (``LineTables``: for each direction and each
content of a line, what the line becomes and the points it scores), which
bridge/tiles.py builds by asking the game's own rules and checks against
them on whole boards before any game is played.  The new tile's chances
(a 2 with weight 9, a 4 with weight 1, on a uniformly chosen empty cell)
are checked there too.

The weights are laid out as learners/ntuple.NTupleNet's (tuple t under
symmetry s reads cell ``perms[s][tuples[t][j]]``, the first cell least
significant), so the agent is stored and read as any n-tuple agent.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from educable.learners.jit import njit

DIRECTIONS = ("up", "down", "left", "right")
BEYOND = -1          # a line whose slide makes a tile past the agent's cell values
NEW_TILE_WEIGHTS = (9, 1)    # a 2 (exponent 1), a 4 (exponent 2): Cirulli's chances, checked against the rules
TWO_CHANCE = NEW_TILE_WEIGHTS[0] / sum(NEW_TILE_WEIGHTS)    # the kernels' constants, from the weights above
TWO_IN = sum(NEW_TILE_WEIGHTS)


@dataclass
class LineTables:
    """How each direction slides a board: ``lines[d, i]`` the cells of direction d's line i, the cell
    tiles slide toward first (-1 past a shorter line's end); ``slid[d, code]`` the code of line
    content ``code`` after the slide (the cells' values read in base ``values``, first cell least
    significant; BEYOND for a merge past the values); ``points[d, code]`` the points it scores."""

    rows: int
    columns: int
    values: int
    lines: np.ndarray        # (4, lines, length) int64
    slid: np.ndarray         # (4, values ** length) int64
    points: np.ndarray       # (4, values ** length) int64


def direction_lines(rows: int, columns: int) -> np.ndarray:
    """Each direction's lines as cell numbers (0-based, row by row from the top left), listed from
    the side the tiles slide toward: up reads each column from the top, left each row from the left."""
    width = max(rows, columns)
    count = max(rows, columns)
    out = np.full((4, count, width), -1, dtype=np.int64)
    for c in range(columns):
        out[0, c, :rows] = [r * columns + c for r in range(rows)]
        out[1, c, :rows] = [r * columns + c for r in reversed(range(rows))]
    for r in range(rows):
        out[2, r, :columns] = [r * columns + c for c in range(columns)]
        out[3, r, :columns] = [r * columns + c for c in reversed(range(columns))]
    return out


@njit(cache=True)
def _seed(seed):
    np.random.seed(seed)


@njit(cache=True)
def _slide(board, out, d, lines, slid, points, k):
    """Board ``board`` slid toward direction d into ``out``: the points scored, -1 if nothing moved
    (not a move), -2 if a merge went past the values."""
    out[:] = board
    total = 0
    moved = False
    for i in range(lines.shape[1]):
        if lines[d, i, 0] < 0:
            break
        code = 0
        mult = 1
        n = 0
        for j in range(lines.shape[2]):
            c = lines[d, i, j]
            if c < 0:
                break
            code += board[c] * mult
            mult *= k
            n += 1
        new = slid[d, code]
        if new == -1:
            return -2
        if new != code:
            moved = True
            total += points[d, code]
            for j in range(n):
                out[lines[d, i, j]] = new % k
                new //= k
    return total if moved else -1


@njit(cache=True)
def _index(board, tuples, offsets, perms, k, s, t):
    """The weight tuple t points at under symmetry s."""
    idx = 0
    mult = 1
    for j in range(tuples.shape[1]):
        c = tuples[t, j]
        if c < 0:
            break
        idx += mult * board[perms[s, c]]
        mult *= k
    return offsets[t] + idx


@njit(cache=True)
def _value(w, board, tuples, offsets, perms, k):
    total = 0.0
    for s in range(perms.shape[0]):
        for t in range(tuples.shape[0]):
            total += w[_index(board, tuples, offsets, perms, k, s, t)]
    return total


@njit(cache=True)
def _update(w, tcn, tca, board, tuples, offsets, perms, k, delta, dirty):
    """Every weight ``board`` reads moved by ``delta``; with temporal coherence (``tcn`` as large as
    ``w``) each by |N|/A of it (Beal and Smith's, as Jaśkowski learned 2048: N the sum of the changes
    asked of the weight so far, A the sum of their sizes; all of it before any), its sums kept."""
    tcl = tcn.shape[0] == w.shape[0]
    for s in range(perms.shape[0]):
        for t in range(tuples.shape[0]):
            i = _index(board, tuples, offsets, perms, k, s, t)
            if tcl:
                a = tca[i]
                w[i] += (abs(tcn[i]) / a if a > 0.0 else 1.0) * delta
                tcn[i] += delta
                tca[i] += abs(delta)
            else:
                w[i] += delta
            dirty[i] = 1


@njit(cache=True)
def _new_tile(board):
    """A 2 or a 4 (NEW_TILE_WEIGHTS) on an empty cell chosen uniformly; False if none is empty."""
    empty = 0
    for c in range(board.shape[0]):
        if board[c] == 0:
            empty += 1
    if empty == 0:
        return False
    pick = np.random.randint(empty)
    for c in range(board.shape[0]):
        if board[c] == 0:
            if pick == 0:
                board[c] = 1 if np.random.randint(TWO_IN) < NEW_TILE_WEIGHTS[0] else 2
                return True
            pick -= 1
    return False


@njit(cache=True)
def _greedy(w, board, after, tuples, offsets, perms, k, lines, slid, points):
    """The direction of most points plus afterstate value from ``board`` and that sum; direction -1
    when no move is legal, -2 when the only moves merge past the agent's values."""
    best = -1e300
    best_d = -1
    beyond = False
    for d in range(4):
        pts = _slide(board, after[d], d, lines, slid, points, k)
        if pts == -2:
            beyond = True
        elif pts >= 0:
            v = pts + _value(w, after[d], tuples, offsets, perms, k)
            if v > best:
                best = v
                best_d = d
    if best_d < 0 and beyond:
        return -2, 0.0
    return best_d, best


@njit(cache=True)
def _chance_value(w, after, scratch, tuples, offsets, perms, k, lines, slid, points):
    """The expected value of afterstate ``after`` over its new tiles (each weighed by its chance),
    each followed by the greedy move (a board with no move then is worth 0)."""
    board = after.copy()
    total = 0.0
    empty = 0
    for c in range(after.shape[0]):
        if after[c] != 0:
            continue
        empty += 1
        for e in range(1, 3):
            board[c] = e
            d, v = _greedy(w, board, scratch, tuples, offsets, perms, k, lines, slid, points)
            total += (TWO_CHANCE if e == 1 else 1.0 - TWO_CHANCE) * (v if d >= 0 else 0.0)
        board[c] = 0
    return total / empty if empty else 0.0


@njit(cache=True)
def _best(w, board, after, scratch, tuples, offsets, perms, k, lines, slid, points, depth):
    """The best direction from ``board`` searched ``depth`` player moves deep (1: greedy by the
    afterstate's value; 2: each afterstate worth its new tiles' expected greedy value) and its
    value; -1 when no move is legal, -2 when the only moves merge past the agent's values."""
    if depth <= 1:
        return _greedy(w, board, after, tuples, offsets, perms, k, lines, slid, points)
    best = -1e300
    best_d = -1
    beyond = False
    for d in range(4):
        pts = _slide(board, after[d], d, lines, slid, points, k)
        if pts == -2:
            beyond = True
        elif pts >= 0:
            v = pts + _chance_value(w, after[d], scratch, tuples, offsets, perms, k, lines, slid, points)
            if v > best:
                best = v
                best_d = d
    if best_d < 0 and beyond:
        return -2, 0.0
    return best_d, best


@njit(cache=True)
def _games(w, tcn, tca, dirty, tuples, offsets, perms, k, lines, slid, points, n_cells, n_games, alpha0, alpha1,
           first, total, learn, depth, scores, tops, moves):
    """Play ``n_games`` games (games ``first``.. of a run of ``total``, the step size linear from
    alpha0 to alpha1 over the run), learning when ``learn``: each game's score, highest exponent and
    moves.  A game stopped by a merge past the values has its top set to ``k``."""
    board = np.zeros(n_cells, dtype=np.int64)
    after = np.empty((4, n_cells), dtype=np.int64)
    scratch = np.empty((4, n_cells), dtype=np.int64)
    prev = np.zeros(n_cells, dtype=np.int64)
    features = tuples.shape[0] * perms.shape[0]
    for g in range(n_games):
        frac = (first + g) / max(1, total - 1)
        step = (alpha0 + (alpha1 - alpha0) * frac) / features
        board[:] = 0
        _new_tile(board)
        _new_tile(board)
        have_prev = False
        score = 0
        count = 0
        stop = False
        while True:
            d, v = _best(w, board, after, scratch, tuples, offsets, perms, k, lines, slid, points, depth)
            if d == -2:
                stop = True
                d = -1
            if learn and have_prev:
                target = v if d >= 0 else 0.0
                delta = step * (target - _value(w, prev, tuples, offsets, perms, k))
                _update(w, tcn, tca, prev, tuples, offsets, perms, k, delta, dirty)
            if d < 0:
                break
            score += _slide(board, prev, d, lines, slid, points, k)
            have_prev = True
            count += 1
            board[:] = prev
            _new_tile(board)
        top = 0
        for c in range(n_cells):
            if board[c] > top:
                top = board[c]
        scores[g] = score
        tops[g] = k if stop else top
        moves[g] = count


def play(w: np.ndarray, dirty: np.ndarray, tuples: np.ndarray, offsets: np.ndarray, perms: np.ndarray,
         tables: LineTables, n_games: int, seed: int, alpha: tuple[float, float] = (0.0, 0.0), first: int = 0,
         total: int = 1, learn: bool = False, depth: int = 1, coherence: tuple[np.ndarray, np.ndarray] | None = None
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play ``n_games`` games of 2048 by the net's values, ``depth`` player moves deep (1: the
    afterstate's value alone; 2: expectimax over the new tiles), learning by TD(0) with step sizes
    ``alpha`` (start, end of the run) when ``learn``, with temporal coherence when ``coherence`` holds
    the sums N and A, one a weight (_update); each game's score, highest tile exponent and moves.
    The same seed gives the same games."""
    _seed(int(seed) % (2**32))
    scores = np.zeros(n_games, dtype=np.int64)
    tops = np.zeros(n_games, dtype=np.int64)
    moves = np.zeros(n_games, dtype=np.int64)
    tcn, tca = coherence if coherence is not None else (np.zeros(0), np.zeros(0))
    _games(w, tcn, tca, dirty, tuples, offsets, perms, tables.values, tables.lines, tables.slid, tables.points,
           tables.rows * tables.columns, n_games, float(alpha[0]), float(alpha[1]), first, total, learn, depth,
           scores, tops, moves)
    return scores, tops, moves


def slide_board(board: np.ndarray, direction: int, tables: LineTables) -> tuple[int, np.ndarray]:
    """One board slid toward ``DIRECTIONS[direction]`` by the tables: (points, board after); points
    -1 when nothing moves, -2 when a merge goes past the values."""
    out = np.empty_like(board)
    pts = _slide(np.ascontiguousarray(board, dtype=np.int64), out, direction, tables.lines, tables.slid,
                 tables.points, tables.values)
    return int(pts), out
