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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:                   # numpy imported where arrays are made: listing games needs none
    import numpy as np

ONGOING = -1
DRAW = 2
CUT = 3        # a game in training still going after ENDLESS_PLIES moves: learned from as a draw, reported cut
CHANCE = 3          # the mover of a chance node (rules/graph.pl's code for `chance`)
SCORED = 4          # the result of a game of score's end (its points are in ``StateGraph.score``)


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
    prob: np.ndarray | None = field(default=None, repr=False)   # each edge's probability; None: no chance node
    reward: np.ndarray | None = field(default=None, repr=False)  # a game of score: each edge's points
    score: np.ndarray | None = field(default=None, repr=False)   # a game of score: each end's points (0 elsewhere)
    solution: Any = field(default=None, repr=False)   # a game of chance or of score: learners.chance.solve's, once found
    views: list[str] | None = field(default=None, repr=False)   # hidden information: each node's mover's view ('' none)
    _order: list[int] | None = field(init=False, repr=False, default=None)
    _levels: list[np.ndarray] | None = field(init=False, repr=False, default=None)
    _cycle: CyclicGraph | None = field(init=False, repr=False, default=None)

    @property
    def size(self) -> int:
        return len(self.keys)

    @property
    def has_chance(self) -> bool:
        """Whether some node is a chance node (its edges carry probabilities)."""
        return self.prob is not None

    @property
    def hidden(self) -> bool:
        """Whether this is a game of hidden information (its file gives sees/4: each node has its mover's view)."""
        return self.views is not None

    @property
    def scored(self) -> bool:
        """Whether this is a game of score (one player: the value is an expected score)."""
        return len(self.players) == 1

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
        import numpy as np
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
        import numpy as np
        if self._order is None:
            self._order = np.concatenate(self.levels()).tolist()
        return self._order

    def levels(self) -> list[np.ndarray]:
        """The states in layers, leaves first: every successor of a layer's state lies in an earlier
        layer, so a value backed up from the leaves can be computed a whole layer at a time
        (computed once; raises CyclicGraph if a position can come back)."""
        if self._cycle is not None:
            raise self._cycle
        if self._levels is None:
            try:
                self._levels = self._peel()
            except CyclicGraph as cycle:
                self._cycle = cycle             # searched once, not at every checkpoint
                raise
        return self._levels

    def acyclic(self) -> bool:
        """Whether no position can come back (what judging an agent exactly needs)."""
        try:
            self.levels()
        except CyclicGraph:
            return False
        return True

    def _peel(self) -> list[np.ndarray]:
        """Kahn's algorithm a layer at a time: the states whose moves all lead into earlier layers."""
        import numpy as np
        n = self.size
        left = np.diff(self.start).astype(np.int64)          # each state's moves into states not yet layered
        by_target = np.argsort(self.target, kind="stable")
        into = np.zeros(n + 1, dtype=np.int64)                # the moves into state t: by_target[into[t]:into[t+1]]
        np.cumsum(np.bincount(self.target, minlength=n), out=into[1:])
        source = self.source[by_target]
        layer = np.flatnonzero(left == 0)
        layers: list[np.ndarray] = []
        while layer.size:
            layers.append(layer)
            preds, moves = np.unique(source[ranges(into, layer)], return_counts=True)
            left[preds] -= moves
            layer = preds[left[preds] == 0]
        if sum(len(x) for x in layers) < n:
            raise CyclicGraph(f"{self.game}: a position can come back (its state graph has a cycle), "
                              "and judging an agent exactly needs a game whose positions never repeat")
        return layers


def ranges(ptr: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """The indices ``ptr[s]:ptr[s+1]`` of every state ``s`` in ``nodes``, concatenated in order."""
    import numpy as np
    lens = ptr[nodes + 1] - ptr[nodes]
    total = int(lens.sum())
    first = np.cumsum(lens) - lens                           # where each state's run begins in the result
    return np.arange(total, dtype=np.int64) + np.repeat(ptr[nodes] - first, lens)
