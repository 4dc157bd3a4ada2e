"""2048's rules read into line tables for the n-tuple learner's kernel (learners/tiles.py), and checked.

A slide of 2048 moves every line of the board alike, so for each direction
and each content a line may hold, the game's own rules (its Prolog file)
are asked once what the line becomes and what it scores: the board holds
that line and nothing else.  Before a game is played, the tables are held
to the rules on whole boards reached by random play: the legal moves, the
board after each and its points, the new tile's outcomes and their
weights, and the opening's two tiles.  Any difference is refused in one
line, so a rule file edited into another game never trains on rules it
does not have.  Everything sent to Prolog is built here from integers.

Reading 2048 4x4's tables asks Prolog for 262,144 slides (about 20 s of
CPU), so they are remembered in educable's cache folder under a hash of
the game, its cell values and its rule files; what is read back is held
to the tables' shape and ranges and then checked on random play as if
it had just been read, so an edited or damaged file is read anew.
"""
from __future__ import annotations

import hashlib
import io
import random
import zipfile
from functools import lru_cache
from pathlib import Path

import numpy as np

from educable.bridge import games
from educable.bridge.engine import cache_folder, engine, quote, remember
from educable.bridge.errors import BadInput
from educable.learners.tiles import BEYOND, DIRECTIONS, NEW_TILE_WEIGHTS, LineTables, direction_lines, slide_board

MAX_CODES = 1 << 20       # line contents a direction's table may hold (values ** line length)
PAGE = 2048               # boards asked of Prolog in one query
CHECK_GAMES = 12          # random games whose boards the tables are held to
CHECK_BOARDS = 240        # boards of those games checked, at most
TABLES_FORMAT = "line-tables-1"     # of the remembered tables: a change of their layout reads them anew


def board_text(cells: list[int] | np.ndarray, columns: int, tile: bool = False) -> str:
    """2048's text form of a board of tile exponents (0 empty): rows by '/', cells by ',', '.' empty;
    ' tile' while a new tile is to appear."""
    words = ["." if v == 0 else str(2 ** int(v)) for v in cells]
    rows = ["," .join(words[r:r + columns]) for r in range(0, len(words), columns)]
    return "/".join(rows) + (" tile" if tile else "")


def shape(game: str) -> tuple[int, int]:
    """(rows, columns) of a game the kernel may play: one player, of score, its cells laid out in rows
    (whether its moves are 2048's, check says); BadInput naming what differs."""
    why = f"the n-tuple learner plays games of score through 2048's line tables, and {game}"
    if not games.is_score_game(game):
        raise BadInput(f"{why} is not a game of score")
    laid = games.layout(game)
    if laid is None:
        raise BadInput(f"{why} does not lay its cells out in rows (layout/3)")
    g = quote(games.check_game(game))
    n = engine().call(f"game:initial({g}, P, M), game:learner_cells({g}, P, M, Cs), length(Cs, Out)")
    columns = laid[0]
    if n % columns:
        raise BadInput(f"{why} has {n} cells, not rows of {columns}")
    return n // columns, columns


@lru_cache(maxsize=4)
def tables_for(game: str, values: int) -> LineTables:
    """The line tables of ``game`` for cells of ``values`` values (tile exponents 0 .. values-1), read
    from its rules and checked against them (check); kept for the process (a Dask worker builds them
    once a run)."""
    rows, columns = shape(game)
    if rows < 2 or columns < 2:
        raise BadInput(f"{game}: 2048's line tables need two rows and two columns at least")
    lines = direction_lines(rows, columns)
    length = max(rows, columns)
    codes = values ** length
    if codes > MAX_CODES:
        raise BadInput(f"{game}: lines of {length} cells with {values} values make {codes:,} line contents, more "
                       f"than {MAX_CODES:,}: use fewer cell values (--values)")
    remembered = _remembered_path(game, values)
    kept = _read_remembered(remembered, codes)
    if kept is not None:
        tables = LineTables(rows, columns, values, lines, *kept)
        try:
            check(game, tables)
            return tables
        except BadInput:
            pass                # not what these rules make: read them from the rules again
    slid, points = _read_tables(game, values, rows, columns, lines, codes)
    tables = LineTables(rows, columns, values, lines, slid, points)
    check(game, tables)
    _remember(remembered, slid, points)
    return tables


def _read_tables(game: str, values: int, rows: int, columns: int, lines: np.ndarray, codes: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Each direction's slide and points of every line content, asked of the game's rules."""
    slid = np.full((4, codes), BEYOND, dtype=np.int64)
    points = np.zeros((4, codes), dtype=np.int64)
    g = quote(game)
    for d, name in enumerate(DIRECTIONS):
        line = [int(c) for c in lines[d, 0] if c >= 0]
        # a 2 and a 4 packed at the start of the direction's last line: they never move nor merge,
        # and make every board one the rules accept (two tiles at least)
        last = [int(c) for c in lines[d, (columns if d < 2 else rows) - 1] if c >= 0]
        size = values ** len(line)
        for first in range(0, size, PAGE):
            boards = []
            for code in range(first, min(size, first + PAGE)):
                cells = [0] * (rows * columns)
                cells[last[0]], cells[last[1]] = 1, 2
                for j, c in enumerate(line):
                    cells[c] = code // values ** j % values
                boards.append(cells)
            texts = ", ".join(quote(board_text(b, columns)) for b in boards)
            answers = engine().call(
                f"game:parse_move({g}, {quote(name)}, Mv), findall(R, (member(T, [{texts}]), "
                f"game:parse_position({g}, T, P, M), "
                f"( game:legal({g}, P, M, Mv) -> game:step({g}, P, M, Mv, P1, M1), game:learner_cells({g}, P1, M1, Cs), "
                f"game:move_points({g}, P, M, Mv, N0), N is N0, R = [Cs, N] ; R = none )), Out)")
            for code, cells, answer in zip(range(first, first + len(boards)), boards, answers, strict=True):
                if answer == "none":
                    slid[d, code] = code
                    continue
                after, pts = answer
                if any(after[c] != cells[c] for c in range(len(cells)) if c not in line):
                    raise BadInput(f"{game}: {name} on {board_text(cells, columns)} moves tiles off its line: "
                                   "not a slide line by line as 2048's")
                if max(after) < values:
                    slid[d, code] = sum(after[c] * values ** j for j, c in enumerate(line))
                points[d, code] = int(pts)
    return slid, points


def _remembered_path(game: str, values: int) -> Path:
    key = f"{TABLES_FORMAT}|{game}|{values}|{games.rules_hash(game)}"
    return cache_folder() / "tiles" / f"{hashlib.sha256(key.encode()).hexdigest()}.npz"


def _read_remembered(path: Path, codes: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The remembered (slid, points) if the file holds two integer tables of the shape and ranges
    line tables have, else None.  Each array's header is read first, and nothing is loaded whose
    header says another shape or type (a header may claim terabytes) or that holds pickles."""
    headers = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
    tables = []
    try:
        if not path.is_file():          # a FIFO put in its place would block the read for ever
            return None
        with zipfile.ZipFile(path) as kept:
            for name in ("slid.npy", "points.npy"):
                with kept.open(name) as member:
                    read_header = headers.get(np.lib.format.read_magic(member))
                    if read_header is None or read_header(member) != ((4, codes), False, np.dtype(np.int64)):
                        return None
                    data = member.read(4 * codes * 8 + 1)
                    if len(data) != 4 * codes * 8:
                        return None
                    tables.append(np.frombuffer(data, dtype=np.int64).reshape(4, codes).copy())
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    slid, points = tables
    if not (((slid >= 0) & (slid < codes)) | (slid == BEYOND)).all() or (points < 0).any():
        return None
    return slid, points


def _remember(path: Path, slid: np.ndarray, points: np.ndarray) -> None:
    """Keep the tables for the next command (engine.remember: whole or not at all, never an error)."""
    buffer = io.BytesIO()
    np.savez(buffer, slid=slid, points=points)
    remember(path, buffer.getvalue())


def _random_boards(tables: LineTables, seed: int) -> list[list[int]]:
    """Boards (the player to move) from CHECK_GAMES games of random moves by the tables."""
    rng = random.Random(seed)
    n = tables.rows * tables.columns
    boards: list[list[int]] = []
    for _ in range(CHECK_GAMES):
        board = np.zeros(n, dtype=np.int64)
        for _ in range(2):
            _random_tile(board, rng)
        while True:
            boards.append(board.tolist())
            options = [after for pts, after in (slide_board(board, d, tables) for d in range(4)) if pts >= 0]
            if not options:
                break
            board = rng.choice(options)
            _random_tile(board, rng)
    rng.shuffle(boards)
    return boards[:CHECK_BOARDS]


def _random_tile(board: np.ndarray, rng: random.Random) -> None:
    empty = np.flatnonzero(board == 0)
    board[rng.choice(empty.tolist())] = 1 if rng.random() < 0.9 else 2


def check(game: str, tables: LineTables, seed: int = 2048) -> None:
    """BadInput in one line unless the tables play ``game`` as its rules do, on boards of random play:
    the same legal moves, boards after them and points; after each, the new tile on every empty
    cell as a 2 or a 4 weighing 9 to 1; and an opening of two such tiles, the player moving next."""
    g = quote(game)
    columns = tables.columns
    (player,) = games.players(game)
    start = engine().call(f"game:initial({g}, P, M), game:learner_cells({g}, P, M, Cs), "
                          f"game:successors({g}, P, M, [_-(P1/M1)|_]), game:successors({g}, P1, M1, [_-(_/M2)|_]), "
                          "Out = [Cs, M, M1, M2]")
    if any(start[0]) or start[1:] != [games.CHANCE, games.CHANCE, player]:
        raise BadInput(f"{game} does not start as 2048 (an empty board, two tiles to appear, then the player)")
    for cells in _random_boards(tables, seed):
        text = quote(board_text(cells, columns))
        told = engine().call(
            f"game:parse_position({g}, {text}, P, M), game:successors({g}, P, M, S), "
            f"findall([T, Cs, N, Os], (member(Mv-(P1/M1), S), game:move_text({g}, Mv, T), "
            f"game:learner_cells({g}, P1, M1, Cs), game:move_points({g}, P, M, Mv, N0), N is N0, "
            f"game:successors({g}, P1, M1, S1), findall([Cs1, W, M2], (member(O-(P2/M2), S1), "
            f"game:outcome_weight({g}, P1, O, W0), W is float(W0), game:learner_cells({g}, P2, M2, Cs1)), Os)), Out)")
        mine = {DIRECTIONS[d]: (pts, after.tolist()) for d in range(4)
                for pts, after in [slide_board(np.array(cells), d, tables)] if pts >= 0}
        theirs = {t: (n, cs) for t, cs, n, _ in told}
        if mine != theirs:
            raise BadInput(f"{game}: its rules and 2048's line tables differ on {board_text(cells, columns)}")
        for _, after, _, outcomes in told:
            empty = [c for c in range(len(after)) if after[c] == 0]
            expected = sorted((after[:c] + [e] + after[c + 1:], w / sum(NEW_TILE_WEIGHTS) / len(empty))
                              for c in empty for e, w in zip((1, 2), NEW_TILE_WEIGHTS, strict=True))
            whole = sum(w for _, w, _ in outcomes) or 1.0
            found = sorted((cs, w / whole) for cs, w, _ in outcomes)
            if (len(found) != len(expected) or any(m != player for *_, m in outcomes)
                    or any(a[0] != b[0] or abs(a[1] - b[1]) > 1e-12 for a, b in zip(found, expected, strict=True))):
                raise BadInput(f"{game}: a new tile after a move on {board_text(cells, columns)} does not come as "
                               "2048's (a 2 or a 4, 9 to 1, on any empty cell)")
