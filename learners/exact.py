"""Judge play exactly over a state graph, not by sampling.

A *support* says, for each state, which edges a player may choose (it picks
uniformly among the entries; an edge listed twice is twice as likely); ``None`` for a state means all legal moves.
A learner's greedy choices may instead come as a boolean mask over the graph's edges (``Chosen``),
which the judgements read as arrays without building a list a state.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from educable.learners.graph import DRAW, ONGOING, StateGraph, ranges

Support = list[list[int]]
Chosen = np.ndarray          # bool, one entry an edge: the edges a player may choose, each once

OUTCOME_NAMES = {1: "win", 0: "draw", -1: "loss"}


@dataclass
class Guarantee:
    """What a player guarantees on one side against a best-responding opponent."""

    guaranteed: str          # win, draw or loss
    perfect: bool            # the guarantee equals the game's value for that side
    mistakes: int            # states it can reach (against any opponent) where it may pick a value-losing move
    subgame_perfect: bool    # mistakes == 0: optimal wherever it can get to

    def as_dict(self) -> dict:
        return {"guaranteed": self.guaranteed, "perfect": self.perfect,
                "mistakes": self.mistakes, "subgame_perfect": self.subgame_perfect}


def all_moves(graph: StateGraph) -> Support:
    """The support of a uniformly random player."""
    start = graph.start.tolist()            # Python's ints: each state's range without numpy's per-item reads
    return [list(range(start[s], start[s + 1])) for s in range(graph.size)]


def optimal_moves(graph: StateGraph) -> Support:
    """The support of a perfect (minimax) player, from the graph's exact values."""
    sup: Support = []
    for s in range(graph.size):
        v = int(graph.value[s])
        sup.append([e for e in graph.edges(s) if graph.value_after(e) == v])
    return sup


def guarantee(graph: StateGraph, player: int, support: Support) -> Guarantee:
    """Exact worst case for ``player`` choosing within ``support`` against any opponent."""
    return _guarantee(graph, player, _Choices.of(graph, support))


def _guarantee(graph: StateGraph, player: int, mine: _Choices) -> Guarantee:
    anything = _Choices.every_move(graph)
    over = graph.winner != ONGOING
    worst = np.zeros(graph.size, dtype=np.int64)
    worst[over] = _outcomes(graph, player)[over]
    target = graph.target
    for layer in graph.levels():
        live = layer[~over[layer]]
        ours = graph.mover[live] == player
        for nodes, choices in ((live[ours], mine), (live[~ours], anything)):
            edges, first = choices.of_states(nodes)
            if nodes.size:
                worst[nodes] = np.minimum.reduceat(worst[target[edges]], first)
    got = int(worst[0])
    mistakes = _mistakes(graph, player, mine, anything)
    return Guarantee(OUTCOME_NAMES[got], got == graph.game_value(player), mistakes, mistakes == 0)


def _outcomes(graph: StateGraph, player: int) -> np.ndarray:
    """Each state's result for ``player`` were the game over there: 1, 0 or -1."""
    w = graph.winner
    return np.where(w == player, 1, np.where((w == DRAW) | (w == ONGOING), 0, -1))


def _mistakes(graph: StateGraph, player: int, mine: _Choices, anything: _Choices) -> int:
    """Positions reachable (player within support, opponent anything) where the support loses value;
    on a folded graph a class counts its positions (its orbit): the support chooses alike in
    symmetric positions, so every member of a reachable class is reachable."""
    over = graph.winner != ONGOING
    reached = np.zeros(graph.size, dtype=bool)
    reached[0] = True
    for layer in reversed(graph.levels()):          # a state's predecessors lie in later layers
        live = layer[reached[layer] & ~over[layer]]
        ours = graph.mover[live] == player
        for nodes, choices in ((live[ours], mine), (live[~ours], anything)):
            reached[graph.target[choices.of_states(nodes)[0]]] = True
    after = graph.value[graph.target[mine.edges]] * np.where(graph.turn_passes[mine.edges], -1, 1)
    chooser = np.repeat(np.arange(graph.size), np.diff(mine.ptr))
    loses = np.zeros(graph.size, dtype=bool)
    loses[chooser[after != graph.value[chooser]]] = True
    counted = reached & ~over & (graph.mover == player) & loses
    return int(graph.orbit[counted].sum())


def outcome_probabilities(graph: StateGraph, first: Support, second: Support) -> dict[str, float]:
    """Exact probabilities of each result when both players pick uniformly within their supports.

    Keys are the players' names and ``draw``.
    """
    one = _Choices.of(graph, first)
    return _outcome_probabilities(graph, one, one if second is first else _Choices.of(graph, second))


def _outcome_probabilities(graph: StateGraph, first: _Choices, second: _Choices) -> dict[str, float]:
    over = graph.winner != ONGOING
    p0 = (graph.winner == 0).astype(np.float64)      # P(first player wins), leaves first
    p1 = (graph.winner == 1).astype(np.float64)      # P(second player wins)
    for layer in graph.levels():
        live = layer[~over[layer]]
        firsts = graph.mover[live] == 0
        for nodes, choices in ((live[firsts], first), (live[~firsts], second)):
            if not nodes.size:
                continue
            edges, start = choices.of_states(nodes)
            k = choices.ptr[nodes + 1] - choices.ptr[nodes]        # how many moves each node chooses among
            nxt = graph.target[edges]
            p0[nodes] = np.add.reduceat(p0[nxt], start) / k
            p1[nodes] = np.add.reduceat(p1[nxt], start) / k
    a, b = float(p0[0]), float(p1[0])
    return {graph.players[0]: a, graph.players[1]: b, "draw": max(0.0, 1.0 - a - b)}


@dataclass(frozen=True)
class _Choices:
    """A support as arrays: state ``s`` may choose the edges ``edges[ptr[s]:ptr[s+1]]``."""

    graph: StateGraph
    ptr: np.ndarray
    edges: np.ndarray

    @classmethod
    def of(cls, graph: StateGraph, support: Support | Chosen) -> _Choices:
        if isinstance(support, np.ndarray):
            edges = np.flatnonzero(support)             # edges are numbered state by state
            ptr = np.zeros(graph.size + 1, dtype=np.int64)
            np.cumsum(np.bincount(graph.source[edges], minlength=graph.size), out=ptr[1:])
            return cls(graph, ptr, edges)
        lens = np.fromiter(map(len, support), dtype=np.int64, count=graph.size)
        ptr = np.zeros(graph.size + 1, dtype=np.int64)
        np.cumsum(lens, out=ptr[1:])
        edges = np.fromiter(itertools.chain.from_iterable(support), dtype=np.int64, count=int(ptr[-1]))
        return cls(graph, ptr, edges)

    @classmethod
    def every_move(cls, graph: StateGraph) -> _Choices:
        """A uniformly random player's choices: every legal move."""
        return cls(graph, graph.start.astype(np.int64), np.arange(len(graph.target), dtype=np.int64))

    def of_states(self, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The edges ``nodes`` may choose, concatenated, and where each node's run begins; a node
        with nothing to choose is refused (values backed up from the leaves would be undefined)."""
        lens = self.ptr[nodes + 1] - self.ptr[nodes]
        if nodes.size and not lens.all():
            s = int(nodes[np.argmin(lens)])
            raise ValueError(f"{self.graph.game}: no move chosen in state {self.graph.keys[s]}")
        return self.edges[ranges(self.ptr, nodes)], np.cumsum(lens) - lens


def adversary_moves(graph: StateGraph, victim: Support, me: int) -> Support:
    """The moves of an adversary playing side ``me`` against a victim choosing uniformly within
    ``victim``: in each of its states, every move that gives it the highest chance of winning (as
    rules/adversary.pl searches it, here over the whole graph at once).  Other states: no moves."""
    target = graph.target.tolist()
    mover = graph.mover.tolist()
    winner = graph.winner.tolist()
    start = graph.start.tolist()
    chance = [0.0] * graph.size
    sup: Support = [[] for _ in range(graph.size)]
    for s in graph.order_leaves_first():
        if winner[s] != -1:
            chance[s] = 1.0 if winner[s] == me else 0.0
        elif mover[s] == me:
            mine = range(start[s], start[s + 1])
            best = max(chance[target[e]] for e in mine)
            sup[s] = [e for e in mine if chance[target[e]] >= best - 1e-12]
            chance[s] = best
        else:
            theirs = victim[s]
            chance[s] = sum(chance[target[e]] for e in theirs) / len(theirs)
    return sup


def checkpoint(graph: StateGraph, support: Support | Chosen, games: int) -> dict:
    """A learning curve's point after ``games``: on each side, what the agent (choosing within
    ``support``, or the edges a ``Chosen`` mask marks) guarantees, whether that is perfect, and its
    exact win rate against random play."""
    mine, random_moves = _Choices.of(graph, support), _Choices.every_move(graph)
    point: dict = {"games": games}
    for label, p in (("as_first", 0), ("as_second", 1)):
        g = _guarantee(graph, p, mine)
        pr = _outcome_probabilities(graph, *((mine, random_moves) if p == 0 else (random_moves, mine)))
        point[label] = {"guaranteed": g.guaranteed, "perfect": g.perfect, "win_vs_random": round(pr[graph.players[p]], 6)}
    return point


def checkpoint_guess(graph: StateGraph) -> float:
    """A guess, in seconds, of what ``checkpoint`` takes on ``graph`` before one has been timed: a
    little more than measured on a two-core machine (1.3 ms on hexapawn's 162 edges, 4.4 ms on
    tic-tac-toe's 16,167, 22 ms on connect(3,4,4)'s 65,756)."""
    return 0.0015 + 3.5e-7 * len(graph.target)


def support_of(graph: StateGraph, chosen: Chosen) -> Support:
    """The support a ``Chosen`` mask marks: each state's chosen edges, in order."""
    edges = np.flatnonzero(chosen)
    cuts = np.searchsorted(graph.source[edges], np.arange(1, graph.size))
    return [part.tolist() for part in np.split(edges, cuts)]


def support_from_moves(graph: StateGraph, table: list[list[str]]) -> Support:
    """Turn per-state lists of move texts (a chooser's candidates) into edge indices.

    One edge per entry, so a move a chooser lists twice (two rule-set rules
    agreeing) is twice as likely.
    """
    sup: Support = []
    for s, moves in enumerate(table):
        edge_of = {graph.move_text[e]: e for e in graph.edges(s)}
        sup.append([edge_of[m] for m in moves if m in edge_of])
    return sup
