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


class CyclicGraph(ValueError):
    """The game's positions can repeat: exact judgement of an agent (values backed up leaves first) does not apply."""


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
    value: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]  # None until solved
    _order: list[int] | None = field(init=False, repr=False, default=None)
    _cycle: CyclicGraph | None = field(init=False, repr=False, default=None)

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

        Raises CyclicGraph if the graph has a cycle (exact evaluation then
        needs another method).
        """
        if self._cycle is not None:
            raise self._cycle
        if self._order is None:
            try:
                self._order = self._topological_order()
            except CyclicGraph as cycle:
                self._cycle = cycle             # searched once, not at every checkpoint
                raise
        return self._order

    def acyclic(self) -> bool:
        """Whether no position can come back (what judging an agent exactly needs)."""
        try:
            self.order_leaves_first()
        except CyclicGraph:
            return False
        return True

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
                        raise CyclicGraph(f"{self.game}: a position can come back (its state graph has a cycle), "
                                          "and judging an agent exactly needs a game whose positions never repeat")
                    if mark[t] == 0:
                        mark[t] = 1
                        stack.append((t, iter(range(start[t], start[t + 1]))))
                        break
                else:
                    stack.pop()
                    mark[s] = 2
                    order.append(s)
        return order
