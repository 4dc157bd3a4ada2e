"""Independent references for the game families (Nim, hexapawn on any board,
N in a row with and without gravity), written from the games' rules for the
tests only; they never call the project.  Each is a dict in the shape of
reference_games: initial, moves (text -> next state), result, key, players,
plus images (the symmetric images of a state, itself included).
"""
from __future__ import annotations

from functools import reduce
from operator import xor


# ----------------------------------------------------------------------- nim
def nim(heaps: tuple[int, ...]) -> dict:
    """Normal play: the player who takes the last object wins."""
    def result(state):
        hs, mover = state
        return ("p2" if mover == "p1" else "p1") if sum(hs) == 0 else None

    def moves(state):
        hs, mover = state
        if result(state):
            return {}
        other = "p2" if mover == "p1" else "p1"
        return {f"{i + 1}:{k}": (hs[:i] + (h - k,) + hs[i + 1:], other)
                for i, h in enumerate(hs) for k in range(1, h + 1)}

    return {"initial": (tuple(heaps), "p1"), "moves": moves, "result": result,
            "key": lambda s: "-".join(map(str, s[0])) + " " + s[1], "players": ("p1", "p2"),
            "images": lambda s: [s]}


def nim_first_player_wins(heaps) -> bool:
    """Bouton's theorem: the player to move wins iff the heaps' xor is not 0."""
    return reduce(xor, heaps, 0) != 0


# ------------------------------------------------------------ hexapawn W x H
def hexapawn(w: int, h: int) -> dict:
    """A state is (board, mover): board a tuple of w*h of 'w', 'b', '.', row 0 white's home row."""
    def raw_moves(board, mover):
        me, enemy, dy = ("w", "b", 1) if mover == "white" else ("b", "w", -1)
        out = []
        for sq, v in enumerate(board):
            if v != me:
                continue
            y, x = divmod(sq, w)
            y2 = y + dy
            if not 0 <= y2 < h:
                continue
            if board[y2 * w + x] == ".":
                out.append((sq, y2 * w + x))
            for dx in (-1, 1):
                if 0 <= x + dx < w and board[y2 * w + x + dx] == enemy:
                    out.append((sq, y2 * w + x + dx))
        return out

    def result(state):
        board, mover = state
        last = "black" if mover == "white" else "white"
        if "w" in board[(h - 1) * w:]:
            return "white"
        if "b" in board[:w]:
            return "black"
        if not raw_moves(board, mover):
            return last
        return None

    def moves(state):
        board, mover = state
        if result(state):
            return {}
        me = "w" if mover == "white" else "b"
        other = "black" if mover == "white" else "white"
        out = {}
        for f, t in raw_moves(board, mover):
            b = list(board)
            b[f], b[t] = ".", me
            out[f"{f + 1}-{t + 1}"] = (tuple(b), other)
        return out

    def key(state):
        board, mover = state
        rows = ["".join(board[y * w:(y + 1) * w]) for y in reversed(range(h))]
        return "/".join(rows) + " " + mover[0]

    def images(state):
        board, mover = state
        mirrored = tuple(board[y * w + (w - 1 - x)] for y in range(h) for x in range(w))
        return [state, (mirrored, mover)]

    start = tuple("w" if i < w else "b" if i >= (h - 1) * w else "." for i in range(w * h))
    return {"initial": (start, "white"), "moves": moves, "result": result, "key": key,
            "players": ("white", "black"), "images": images}


# --------------------------------------------------------- N in a row, W x H
def in_a_row(n: int, w: int, h: int, gravity: bool) -> dict:
    """A state is (board, mover): board a string of w*h of 'x', 'o', '.', row 0 the top."""
    lines = []
    for y in range(h):
        for x in range(w):
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(x + k * dx, y + k * dy) for k in range(n)]
                if all(0 <= cx < w and 0 <= cy < h for cx, cy in cells):
                    lines.append([cy * w + cx for cx, cy in cells])

    def result(state):
        board, _ = state
        for line in lines:
            v = board[line[0]]
            if v != "." and all(board[i] == v for i in line):
                return v
        return "draw" if "." not in board else None

    def moves(state):
        board, mover = state
        if result(state):
            return {}
        other = "o" if mover == "x" else "x"
        out = {}
        if gravity:
            for x in range(w):
                free = [y for y in range(h) if board[y * w + x] == "."]
                if free:
                    i = max(free) * w + x
                    out[str(x + 1)] = (board[:i] + mover + board[i + 1:], other)
        else:
            for i, v in enumerate(board):
                if v == ".":
                    out[str(i + 1)] = (board[:i] + mover + board[i + 1:], other)
        return out

    def key(state):
        return "/".join(state[0][y * w:(y + 1) * w] for y in range(h))

    def images(state):
        board, mover = state
        maps = [lambda x, y: (x, y), lambda x, y: (w - 1 - x, y)]
        if not gravity:
            maps += [lambda x, y: (x, h - 1 - y), lambda x, y: (w - 1 - x, h - 1 - y)]
            if w == h:
                maps += [lambda x, y: (y, x), lambda x, y: (h - 1 - y, x),
                         lambda x, y: (y, w - 1 - x), lambda x, y: (h - 1 - y, w - 1 - x)]
        out = []
        for f in maps:
            img = ["."] * (w * h)
            for y in range(h):
                for x in range(w):
                    x1, y1 = f(x, y)
                    img[y1 * w + x1] = board[y * w + x]
            out.append(("".join(img), mover))
        return out

    return {"initial": ("." * (w * h), "x"), "moves": moves, "result": result, "key": key,
            "players": ("x", "o"), "images": images}


# ------------------------------------------------------------ dots and boxes
def boxes(rows: int, cols: int) -> dict:
    """A state is (drawn lines, owners, mover).  Lines are dot pairs, numbered as the game's
    documentation says: horizontal ones row by row from the top, then vertical ones.  A
    player who completes a box owns it and moves again."""
    numbered = [((y, x), (y, x + 1)) for y in range(rows + 1) for x in range(cols)]
    numbered += [((y, x), (y + 1, x)) for y in range(rows) for x in range(cols + 1)]
    number = {seg: i + 1 for i, seg in enumerate(numbered)}
    box_sides = [{((y, x), (y, x + 1)), ((y + 1, x), (y + 1, x + 1)), ((y, x), (y + 1, x)), ((y, x + 1), (y + 1, x + 1))}
                 for y in range(rows) for x in range(cols)]

    def result(state):
        drawn, owners, _ = state
        if len(drawn) < len(numbered):
            return None
        a, b = owners.count("a"), owners.count("b")
        return "a" if a > b else "b" if b > a else "draw"

    def moves(state):
        drawn, owners, mover = state
        if result(state):
            return {}
        out = {}
        for seg in numbered:
            if seg in drawn:
                continue
            now = drawn | {seg}
            won = [i for i, sides in enumerate(box_sides) if owners[i] == "." and sides <= now]
            new_owners = "".join(mover if i in won else o for i, o in enumerate(owners))
            out[str(number[seg])] = (now, new_owners, mover if won else ("b" if mover == "a" else "a"))
        return out

    def key(state):
        drawn, owners, mover = state
        lines = ",".join(str(n) for n in sorted(number[s] for s in drawn)) or "-"
        return f"{lines} {owners} {mover}"

    def images(state):
        drawn, owners, mover = state
        maps = [lambda y, x: (y, x), lambda y, x: (rows - y, x), lambda y, x: (y, cols - x),
                lambda y, x: (rows - y, cols - x)]
        if rows == cols:
            maps += [lambda y, x, f=f: f(x, y) for f in maps]
        out = []
        for f in maps:
            seg = {s: tuple(sorted((f(*s[0]), f(*s[1])))) for s in numbered}
            corner = [(min(f(y, x)[0], f(y + 1, x + 1)[0]), min(f(y, x)[1], f(y + 1, x + 1)[1]))
                      for y in range(rows) for x in range(cols)]
            img = ["."] * (rows * cols)
            for i, (y, x) in enumerate(corner):
                img[y * cols + x] = owners[i]
            out.append((frozenset(seg[s] for s in drawn), "".join(img), mover))
        return out

    return {"initial": (frozenset(), "." * (rows * cols), "a"), "moves": moves, "result": result, "key": key,
            "players": ("a", "b"), "images": images}
