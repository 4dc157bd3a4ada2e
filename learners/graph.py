"""A game compiled into its state graph, as numpy arrays.

Learners and evaluators train on this instead of asking Prolog once per
move.  It knows nothing of any particular game: states are indices, moves
are the game's own move texts, players are indices 0 (first) and 1.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

ONGOING = -1
DRAW = 2


@dataclass
class StateGraph:
    """Every reachable state of a game; state 0 is the initial one.

    ``winner[s]`` is ONGOING, DRAW, or the index of the winning player;
    ``value[s]`` is the exact value for the mover (1, 0, -1); the moves of
    state ``s`` are edges ``start[s]:start[s+1]`` with ``move_text[e]`` and
    target ``target[e]``.
    """

    game: str
    players: list[str]
    keys: list[str]
    canonical: list[str]
    mover: np.ndarray
    winner: np.ndarray
    value: np.ndarray
    start: np.ndarray
    target: np.ndarray
    move_text: list[str]
    index: dict[str, int] = field(init=False, repr=False)
    _order: list[int] | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        self.index = {k: i for i, k in enumerate(self.keys)}

    @classmethod
    def from_nodes(cls, game: str, players: list[str], nodes: list[list]) -> "StateGraph":
        """Build from state_graph/2's nodes: [key, mover, result, canonical, value, edges]."""
        pidx = {p: i for i, p in enumerate(players)}
        n = len(nodes)
        mover = np.fromiter((pidx[nd[1]] for nd in nodes), dtype=np.int8, count=n)
        winner = np.fromiter(
            (ONGOING if nd[2] is None else DRAW if nd[2] == "draw" else pidx[nd[2]] for nd in nodes),
            dtype=np.int8, count=n)
        value = np.fromiter((nd[4] for nd in nodes), dtype=np.int8, count=n)
        counts = np.fromiter((len(nd[5]) for nd in nodes), dtype=np.int64, count=n)
        start = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=start[1:])
        target = np.fromiter((t for nd in nodes for _, t in nd[5]), dtype=np.int64, count=int(start[-1]))
        move_text = [m for nd in nodes for m, _ in nd[5]]
        return cls(game, list(players), [nd[0] for nd in nodes], [nd[3] for nd in nodes],
                   mover, winner, value, start, target, move_text)

    @property
    def size(self) -> int:
        return len(self.keys)

    def edges(self, state: int) -> range:
        """The edge indices of ``state``'s moves."""
        return range(int(self.start[state]), int(self.start[state + 1]))

    def is_terminal(self, state: int) -> bool:
        return bool(self.winner[state] != ONGOING)

    def outcome_for(self, state: int, player: int) -> int:
        """+1, 0 or -1 for ``player`` in a terminal state."""
        w = int(self.winner[state])
        return 0 if w == DRAW else (1 if w == player else -1)

    def game_value(self, player: int) -> int:
        """The exact value of the game for ``player`` (1, 0, -1)."""
        v = int(self.value[0])
        return v if int(self.mover[0]) == player else -v

    def order_leaves_first(self) -> list[int]:
        """States ordered so every successor comes before its predecessors (computed once).

        Raises ValueError if the graph has a cycle (exact evaluation then
        needs another method).
        """
        if self._order is None:
            self._order = self._topological_order()
        return self._order

    def _topological_order(self) -> list[int]:
        n = self.size
        order: list[int] = []
        mark = np.zeros(n, dtype=np.int8)  # 0 new, 1 on stack, 2 done
        for root in range(n):
            if mark[root]:
                continue
            stack = [(root, iter(self.edges(root)))]
            mark[root] = 1
            while stack:
                s, it = stack[-1]
                for e in it:
                    t = int(self.target[e])
                    if mark[t] == 1:
                        raise ValueError(f"{self.game}: the state graph has a cycle")
                    if mark[t] == 0:
                        mark[t] = 1
                        stack.append((t, iter(self.edges(t))))
                        break
                else:
                    stack.pop()
                    mark[s] = 2
                    order.append(s)
        return order
