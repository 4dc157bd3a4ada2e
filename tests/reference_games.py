"""Independent reference implementations of the original games, written for the
tests only (they never call the project).  Used like perft in chess: the
Prolog rules must agree with these on every reachable state.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

# ---------------------------------------------------------------- tic-tac-toe
# A state is (board, mover): board a 9-character string of 'x', 'o', '.'.
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def ttt_winner(board: str) -> str | None:
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


def ttt_result(state):
    board, _ = state
    w = ttt_winner(board)
    if w:
        return w
    return "draw" if "." not in board else None


def ttt_moves(state):
    board, mover = state
    if ttt_result(state):
        return {}
    other = "o" if mover == "x" else "x"
    return {str(i + 1): (board[:i] + mover + board[i + 1:], other) for i in range(9) if board[i] == "."}


def ttt_key(state) -> str:
    b = state[0]
    return f"{b[0:3]}/{b[3:6]}/{b[6:9]}"


TTT = {"initial": ("." * 9, "x"), "moves": ttt_moves, "result": ttt_result, "key": ttt_key, "players": ("x", "o")}

# ------------------------------------------------------------------ hexapawn
# A state is (white squares, black squares, mover) with frozensets of 1..9;
# squares numbered row by row, white starting on row 1 (squares 1-3).


def _rc(sq):
    return (sq - 1) // 3, (sq - 1) % 3


def _sq(r, c):
    return r * 3 + c + 1


def hex_raw_moves(white, black, mover):
    mine, theirs, step = (white, black, 1) if mover == "white" else (black, white, -1)
    out = []
    for f in sorted(mine):
        r, c = _rc(f)
        r2 = r + step
        if not 0 <= r2 <= 2:
            continue
        ahead = _sq(r2, c)
        if ahead not in white and ahead not in black:
            out.append((f, ahead))
        for dc in (-1, 1):
            if 0 <= c + dc <= 2 and _sq(r2, c + dc) in theirs:
                out.append((f, _sq(r2, c + dc)))
    return out


def hex_result(state):
    white, black, mover = state
    if any(_rc(s)[0] == 2 for s in white):
        return "white"
    if any(_rc(s)[0] == 0 for s in black):
        return "black"
    if not hex_raw_moves(white, black, mover):
        return "black" if mover == "white" else "white"
    return None


def hex_moves(state):
    white, black, mover = state
    if hex_result(state):
        return {}
    out = {}
    for f, t in hex_raw_moves(white, black, mover):
        if mover == "white":
            nxt = ((white - {f}) | {t}, black - {t}, "black")
        else:
            nxt = (white - {t}, (black - {f}) | {t}, "white")
        out[f"{f}-{t}"] = nxt
    return out


def hex_key(state) -> str:
    white, black, mover = state
    return "".join(map(str, sorted(white))) + "-" + "".join(map(str, sorted(black))) + " " + mover[0]


HEX = {"initial": (frozenset({1, 2, 3}), frozenset({7, 8, 9}), "white"), "moves": hex_moves,
       "result": hex_result, "key": hex_key, "players": ("white", "black")}

GAMES = {"tictactoe": TTT, "hexapawn": HEX}


def reachable(ref) -> dict:
    """key -> state for every state reachable from the start."""
    seen = {ref["key"](ref["initial"]): ref["initial"]}
    todo = [ref["initial"]]
    while todo:
        s = todo.pop()
        for nxt in ref["moves"](s).values():
            k = ref["key"](nxt)
            if k not in seen:
                seen[k] = nxt
                todo.append(nxt)
    return seen


def best_reply_chances(ref, me: str, candidates) -> dict:
    """key -> (state, Fraction) for each state met from the start: the chance that ``me`` wins when
    it plays its best move and the other side picks uniformly among ``candidates(key)`` (move texts)."""
    chance: dict = {}

    def search(state):
        key = ref["key"](state)
        if key not in chance:
            res = ref["result"](state)
            nexts = ref["moves"](state)
            if res:
                p = Fraction(1 if res == me else 0)
            elif state[-1] == me:
                p = max(search(n) for n in nexts.values())
            else:
                picks = [nexts[m] for m in candidates(key)]
                p = sum(search(n) for n in picks) / len(picks)
            chance[key] = (state, p)
        return chance[key][1]

    search(ref["initial"])
    return chance


def assert_graph_matches(graph, ref) -> None:
    """Perft: the compiled graph has exactly the reference's states, and in each the same moves
    leading to the same states, the same result and the same side to move."""
    states = reachable(ref)
    assert graph.size == len(states) and set(graph.keys) == set(states)
    for i, key in enumerate(graph.keys):
        s = states[key]
        expected = {m: ref["key"](n) for m, n in ref["moves"](s).items()}
        got = {graph.move_text[e]: graph.keys[graph.target[e]] for e in graph.edges(i)}
        assert got == expected, key
        w = int(graph.winner[i])
        assert (None if w == -1 else "draw" if w == 2 else graph.players[w]) == ref["result"](s), key
        assert graph.players[int(graph.mover[i])] == s[-1], key


def solve(ref):
    """key -> result under perfect play (winner or 'draw'), by plain recursion with a cache."""
    first, second = ref["players"]

    @lru_cache(maxsize=None)
    def value(key):  # for the first player: 1, 0, -1
        s = states[key]
        r = ref["result"](s)
        if r:
            return 0 if r == "draw" else (1 if r == first else -1)
        vals = [value(ref["key"](n)) for n in ref["moves"](s).values()]
        mover = s[-1]
        return max(vals) if mover == first else min(vals)

    states = reachable(ref)
    return {k: ("draw" if value(k) == 0 else first if value(k) == 1 else second) for k in states}


def random_play_probabilities(ref) -> dict[str, Fraction]:
    """Exact result probabilities when both players pick uniformly at random."""
    @lru_cache(maxsize=None)
    def dist(key):
        s = states[key]
        r = ref["result"](s)
        if r:
            return ((r, Fraction(1)),)
        acc: dict[str, Fraction] = {}
        nexts = list(ref["moves"](s).values())
        for n in nexts:
            for res, p in dist(ref["key"](n)):
                acc[res] = acc.get(res, Fraction(0)) + p / len(nexts)
        return tuple(sorted(acc.items()))

    states = reachable(ref)
    return dict(dist(ref["key"](ref["initial"])))


def best_safe_wins(ref, player: str) -> Fraction:
    """The highest chance of winning against a uniformly random opponent for ``player`` keeping the
    minimax value in every state (never a move that does worse than perfect play): the ceiling
    of a never-losing agent's wins against random."""
    states = reachable(ref)
    result = solve(ref)
    rank = {player: 1, "draw": 0}

    def worth(key):
        return rank.get(result[key], -1)

    @lru_cache(maxsize=None)
    def wins(key):
        s = states[key]
        r = ref["result"](s)
        if r:
            return Fraction(int(r == player))
        nexts = [ref["key"](n) for n in ref["moves"](s).values()]
        if s[-1] == player:
            return max(wins(n) for n in nexts if worth(n) == worth(key))
        return sum(wins(n) for n in nexts) / len(nexts)

    return wins(ref["key"](ref["initial"]))
