"""A game compiled into its state graph, as numpy arrays.

Learners and evaluators train on this instead of asking Prolog once per
move.  It knows nothing of any particular game: states are indices, moves
are indices into the game's move texts, players are indices 0 (first) and 1.
A *folded* graph has one node per class of symmetric states (its least
image), and ``orbit[s]`` says how many states the class holds.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

ONGOING = -1
DRAW = 2


@dataclass
class StateGraph:
    """Every reachable state (or class of states) of a game; node 0 is the start.

    ``winner[s]`` is ONGOING, DRAW, or the index of the winning player;
    ``value[s]`` is the exact value for the mover (1, 0, -1); the moves of
    node ``s`` are edges ``start[s]:start[s+1]`` with move ``moves[move[e]]``
    and target ``target[e]``.
    """

    game: str
    players: list[str]
    keys: list[str]
    mover: np.ndarray
    winner: np.ndarray
    start: np.ndarray
    target: np.ndarray
    move: np.ndarray
    moves: list[str]
    orbit: np.ndarray
    folded: bool = False
    value: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    class_keys: list[str] | None = field(default=None, repr=False)   # each state's class key, when compiled with them
    _order: list[int] | None = field(init=False, repr=False, default=None)

    @property
    def size(self) -> int:
        return len(self.keys)

    @cached_property
    def index(self) -> dict[str, int]:
        """Node number by key."""
        return {k: i for i, k in enumerate(self.keys)}

    @cached_property
    def move_text(self) -> list[str]:
        """Each edge's move text."""
        names = self.moves
        return [names[m] for m in self.move.tolist()]

    @property
    def positions(self) -> int:
        """States the graph stands for (its nodes' orbits added up)."""
        return int(self.orbit.sum())

    @property
    def terminal(self) -> int:
        """States where the game is over."""
        return int(self.orbit[self.winner != ONGOING].sum())

    def edges(self, state: int) -> range:
        """The edge indices of ``state``'s moves."""
        return range(int(self.start[state]), int(self.start[state + 1]))

    def is_terminal(self, state: int) -> bool:
        return bool(self.winner[state] != ONGOING)

    def outcome_for(self, state: int, player: int) -> int:
        """+1, 0 or -1 for ``player`` in a terminal state."""
        w = int(self.winner[state])
        return 0 if w == DRAW else (1 if w == player else -1)

    @cached_property
    def source(self) -> np.ndarray:
        """Each edge's state (the one whose move it is)."""
        return np.repeat(np.arange(self.size), np.diff(self.start))

    @cached_property
    def turn_passes(self) -> np.ndarray:
        """For each edge, whether the other player moves next (False where the game gives the
        player who moved another move)."""
        return self.mover[self.source] != self.mover[self.target]

    def value_after(self, edge: int) -> int:
        """The exact value of the state ``edge`` leads to, for the player who made the move."""
        v = int(self.value[self.target[edge]])
        return -v if self.turn_passes[edge] else v

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
        start = self.start.tolist()
        target = self.target.tolist()
        for root in range(n):
            if mark[root]:
                continue
            stack = [(root, iter(range(start[root], start[root + 1])))]
            mark[root] = 1
            while stack:
                s, it = stack[-1]
                for e in it:
                    t = target[e]
                    if mark[t] == 1:
                        raise ValueError(f"{self.game}: the state graph has a cycle")
                    if mark[t] == 0:
                        mark[t] = 1
                        stack.append((t, iter(range(start[t], start[t + 1]))))
                        break
                else:
                    stack.pop()
                    mark[s] = 2
                    order.append(s)
        return order


def fold(graph: StateGraph, class_keys: list[str]) -> StateGraph:
    """The graph folded by symmetry: one node per class (``class_keys[s]`` is state s's class key,
    the key of one member, its least image), with that member's moves, leading to classes.

    Node 0 stays the start's class; classes are numbered as first met.  Only
    valid when the reachable states are closed under the symmetries (the
    symmetries fix the start), so that every class key is a state of ``graph``.
    """
    class_ids: dict[str, int] = {}
    class_of = np.fromiter((class_ids.setdefault(k, len(class_ids)) for k in class_keys), np.int64, len(class_keys))
    keys = list(class_ids)
    index = graph.index
    rep = np.fromiter((index[k] for k in keys), np.int64, len(keys))        # the member standing for each class
    counts = np.diff(graph.start)[rep]
    start = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    # the representatives' edges, in order: edge j of class c is graph edge start[rep[c]] + j
    offsets = np.arange(int(start[-1]), dtype=np.int64) - np.repeat(start[:-1], counts)
    edges = np.repeat(graph.start[rep], counts) + offsets
    orbit = np.bincount(class_of, minlength=len(keys)).astype(np.int64)
    return StateGraph(graph.game, list(graph.players), keys, graph.mover[rep], graph.winner[rep], start,
                      class_of[graph.target[edges]], graph.move[edges], list(graph.moves), orbit, True)
