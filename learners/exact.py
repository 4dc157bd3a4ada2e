"""Judge play exactly over a state graph, not by sampling.

A *support* says, for each state, which edges a player may choose (it picks
uniformly among the entries; an edge listed twice is twice as likely); ``None`` for a state means all legal moves.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from learners.graph import StateGraph

Support = list[list[int]]

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
    return [list(graph.edges(s)) for s in range(graph.size)]


def optimal_moves(graph: StateGraph) -> Support:
    """The support of a perfect (minimax) player, from the graph's exact values."""
    sup: Support = []
    for s in range(graph.size):
        v = int(graph.value[s])
        sup.append([e for e in graph.edges(s) if graph.value_after(e) == v])
    return sup


def guarantee(graph: StateGraph, player: int, support: Support) -> Guarantee:
    """Exact worst case for ``player`` choosing within ``support`` against any opponent."""
    worst = [0] * graph.size
    target = graph.target.tolist()
    mover = graph.mover.tolist()
    start = graph.start.tolist()
    for s in graph.order_leaves_first():
        if graph.is_terminal(s):
            worst[s] = graph.outcome_for(s, player)
            continue
        edges = support[s] if mover[s] == player else range(start[s], start[s + 1])
        if not edges:
            raise ValueError(f"{graph.game}: no move chosen in state {graph.keys[s]}")
        worst[s] = min(worst[target[e]] for e in edges)
    value = graph.game_value(player)
    got = int(worst[0])
    mistakes = _mistakes(graph, player, support)
    return Guarantee(OUTCOME_NAMES[got], got == value, mistakes, mistakes == 0)


def _mistakes(graph: StateGraph, player: int, support: Support) -> int:
    """Positions reachable (player within support, opponent anything) where the support loses value;
    on a folded graph a class counts its positions (its orbit): the support chooses alike in
    symmetric positions, so every member of a reachable class is reachable."""
    seen = np.zeros(graph.size, dtype=bool)
    stack = [0]
    seen[0] = True
    count = 0
    while stack:
        s = stack.pop()
        if graph.is_terminal(s):
            continue
        mine = int(graph.mover[s]) == player
        edges = support[s] if mine else graph.edges(s)
        if mine:
            v = int(graph.value[s])
            if any(graph.value_after(e) != v for e in edges):
                count += int(graph.orbit[s])
        for e in edges:
            t = int(graph.target[e])
            if not seen[t]:
                seen[t] = True
                stack.append(t)
    return count


def outcome_probabilities(graph: StateGraph, first: Support, second: Support) -> dict[str, float]:
    """Exact probabilities of each result when both players pick uniformly within their supports.

    Keys are the players' names and ``draw``.
    """
    supports = (first, second)
    target = graph.target.tolist()
    mover = graph.mover.tolist()
    winner = graph.winner.tolist()
    p0 = [0.0] * graph.size     # P(first player wins)
    p1 = [0.0] * graph.size     # P(second player wins)
    for s in graph.order_leaves_first():
        w = winner[s]
        if w != -1:
            p0[s] = 1.0 if w == 0 else 0.0
            p1[s] = 1.0 if w == 1 else 0.0
            continue
        edges = supports[mover[s]][s]
        k = len(edges)
        p0[s] = sum(p0[target[e]] for e in edges) / k
        p1[s] = sum(p1[target[e]] for e in edges) / k
    a, b = p0[0], p1[0]
    return {graph.players[0]: a, graph.players[1]: b, "draw": max(0.0, 1.0 - a - b)}


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


def checkpoint(graph: StateGraph, support: Support, games: int) -> dict:
    """A learning curve's point after ``games``: on each side, what the agent (choosing within
    ``support``) guarantees, whether that is perfect, and its exact win rate against random play."""
    random_moves = all_moves(graph)
    point: dict = {"games": games}
    for label, p in (("as_first", 0), ("as_second", 1)):
        g = guarantee(graph, p, support)
        pr = outcome_probabilities(graph, *((support, random_moves) if p == 0 else (random_moves, support)))
        point[label] = {"guaranteed": g.guaranteed, "perfect": g.perfect, "win_vs_random": round(pr[graph.players[p]], 6)}
    return point


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
