"""Exact fitness for rule sets: every agent judged on the state graph instead of by a few games.

The fitness options of issue "learners that beat their anchors" for Gaia's
"Ejemplos de Vida": ranking by five games against one partner is mostly luck,
so an agent can instead be scored on everything it could meet.  On each side
the agent's reachable positions are those it can get to choosing within its
rules (every rule of the winning set, or any legal move where none matches)
while the opponent plays anything.  There it counts its *blunders* —
positions where one of its choices throws away a game that was not lost
(its exact value drops to a loss) — and its exact result against a uniformly
random opponent.  The same numbers as ``learners.exact`` (``guarantee``,
``outcome_probabilities``) computed for a whole population at once, layer by
layer over the graph, in numpy.  Which states a rule's condition matches is
computed once per distinct condition and kept: children inherit their
parents' rules, so a cycle meets only its new mutations.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from learners.graph import DRAW, ONGOING
from learners.rulespace import RuleSpace


@dataclass
class SideScores:
    """One side's exact figures for each judged agent (arrays of the agents' length)."""

    blunders: np.ndarray     # reachable positions where a choice turns a not-lost game into a lost one
    win: np.ndarray          # P(win) against a uniformly random opponent
    loss: np.ndarray         # P(loss) against a uniformly random opponent
    worst: np.ndarray        # guaranteed result against a best response: 1, 0, -1


CHUNK = 512                # conditions matched against every state at once
MAX_KEPT = 1_000_000       # distinct conditions whose matches are kept


class ExactJudge:
    """Judges rule sets of one RuleSpace exactly; the graph's layers and values are computed once."""

    def __init__(self, space: RuleSpace) -> None:
        graph = space.graph
        if graph.value is None:
            raise ValueError(f"{graph.game}: exact fitness needs the solved graph")
        order = graph.order_leaves_first()[::-1]          # ValueError on a cycle
        start, target = graph.start.tolist(), graph.target.tolist()
        lay = [0] * graph.size
        for s in order:
            for e in range(start[s], start[s + 1]):
                t = target[e]
                if lay[t] < lay[s] + 1:
                    lay[t] = lay[s] + 1
        layer = np.array(lay, dtype=np.int64)
        live = graph.winner == ONGOING
        self.space = space
        self.layers = [np.flatnonzero((layer == k) & live) for k in range(int(layer.max()) + 1)]
        succ, legal = space.succ, space.legal
        self.children = np.where(legal, succ, 0)
        passes = graph.mover[:, None] != graph.mover[self.children]
        child_value = graph.value[self.children].astype(np.int8)
        # each (state, action)'s exact value after the move, for the player who made it
        self.after = np.where(legal, np.where(passes, -child_value, child_value), 0).astype(np.int8)
        self.value = graph.value.astype(np.int8)
        self.optimal = legal & (self.after == self.value[:, None])    # a perfect player's moves
        self._matched: dict[bytes, np.ndarray] = {}

    def matched(self, cond: np.ndarray) -> list[np.ndarray]:
        """For conditions (k, n_codes): the live states each matches (kept per distinct condition)."""
        keys = [c.tobytes() for c in cond]
        missing = {key: i for i, key in enumerate(keys) if key not in self._matched}
        if missing:
            if len(self._matched) + len(missing) > MAX_KEPT:
                self._matched.clear()
                missing = {key: i for i, key in enumerate(keys)}
            space = self.space
            rows = np.fromiter(missing.values(), dtype=np.int64)
            forbid = space.forbid_masks(cond[rows])
            for i in range(0, len(rows), CHUNK):
                hit = space.matches(space.state_masks[:, None, space.live], forbid[i:i + CHUNK, None, :])
                for key, row in zip(list(missing)[i:i + CHUNK], hit):
                    self._matched[key] = space.live[row]
        return [self._matched[key] for key in keys]

    def choice_counts(self, cond: np.ndarray, action: np.ndarray, priority: np.ndarray,
                      weight: np.ndarray) -> np.ndarray:
        """(A, S, n_actions): how many entries each action has in each rule set's choice in each
        state — one per rule of the winning set, or one per legal move where no rule matches
        (``RuleSpace.candidates`` for many agents at once)."""
        space = self.space
        n_agents, n_rules = action.shape
        n = space.graph.size
        states = self.matched(cond.reshape(n_agents * n_rules, -1))
        sizes = np.array([len(x) for x in states])
        st = np.concatenate(states) if states else np.zeros(0, dtype=np.int64)
        flat = np.repeat(np.arange(n_agents * n_rules), sizes)
        ag = flat // n_rules
        act = action.ravel()[flat]
        ok = space.legal[st, act]
        st, ag, act, flat = st[ok], ag[ok], act[ok], flat[ok]
        pr, w = priority.ravel()[flat].astype(np.float64), weight.ravel()[flat]
        group = ag * n + st
        order = np.lexsort((-w, -pr, group))
        group, pr, w, act, ag, st = group[order], pr[order], w[order], act[order], ag[order], st[order]
        first = np.ones(len(group), dtype=bool)
        first[1:] = group[1:] != group[:-1]
        lead = np.maximum.accumulate(np.where(first, np.arange(len(group)), 0))
        win = (pr == pr[lead]) & (w == w[lead])
        counts = np.broadcast_to(space.legal.astype(np.int16), (n_agents, n, len(space.actions))).copy()
        counts[ag[first], st[first]] = 0
        np.add.at(counts, (ag[win], st[win], act[win]), 1)
        return counts

    def side(self, counts: np.ndarray, player: int) -> SideScores:
        """Exact figures of each rule set (its ``choice_counts``) playing ``player`` (0 first, 1 second)."""
        space, graph = self.space, self.space.graph
        n_agents, n = counts.shape[0], graph.size
        legal = space.legal.astype(np.int16)
        mover_is_me = graph.mover == player
        reach = np.zeros((n_agents, n), dtype=bool)
        reach[:, 0] = True
        blunders = np.zeros(n_agents, dtype=np.int64)
        for st in self.layers:
            if not len(st):
                continue
            c = np.where(mover_is_me[st][None, :, None], counts[:, st], legal[st][None])   # (A, L, n_actions)
            here = reach[:, st]
            mine = mover_is_me[st] & (self.value[st] >= 0)
            bad = ((c > 0) & (self.after[st] == -1)[None]).any(axis=2) & mine[None] & here
            blunders += bad.sum(axis=1)
            a, l, k = np.nonzero((c > 0) & here[:, :, None])
            reach[a, self.children[st[l], k]] = True
        over = graph.winner != ONGOING
        outcome = np.where(graph.winner == player, 1, np.where((graph.winner == DRAW) | ~over, 0, -1))
        odds = np.broadcast_to(np.stack([outcome == 1, outcome == -1], axis=1).astype(np.float32),
                               (n_agents, n, 2)).copy()             # P(win), P(loss) against random
        worst = np.broadcast_to(outcome.astype(np.int8), (n_agents, n)).copy()   # guaranteed result

        for st in reversed(self.layers):
            if not len(st):
                continue
            c = np.where(mover_is_me[st][None, :, None], counts[:, st], legal[st][None])   # (A, L, n_actions)
            kids = self.children[st]
            weights = c.astype(np.float32) / c.sum(axis=2, keepdims=True)
            odds[:, st] = np.einsum("alk,alkj->alj", weights, odds[:, kids])
            worst[:, st] = np.where(c > 0, worst[:, kids], 1).min(axis=2)
        return SideScores(blunders, odds[:, 0, 0].astype(np.float64), odds[:, 0, 1].astype(np.float64),
                          worst[:, 0].astype(np.int64))

    def fitness(self, cond: np.ndarray, action: np.ndarray, priority: np.ndarray,
                weight: np.ndarray) -> tuple[np.ndarray, list[SideScores]]:
        """Each rule set's (arrays (A, R, ...)) exact fitness: on both sides, its expected score
        against random (P(win) - P(loss)) less one point per blunder; and the figures of each side."""
        counts = self.choice_counts(cond, action, priority, weight)
        sides = [self.side(counts, p) for p in (0, 1)]
        return sum((s.win - s.loss) - s.blunders for s in sides), sides
