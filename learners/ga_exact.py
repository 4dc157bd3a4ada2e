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
``outcome_probabilities``) computed for a whole population at once, compiled
with numba: each agent's choices everywhere, then a pass from the start over
the states it can reach and one back from the leaves.  Which states a rule's condition matches is
computed once per distinct condition and kept: children inherit their
parents' rules, so a cycle meets only its new mutations.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from educable.learners.graph import DRAW, ONGOING
from educable.learners.jit import njit
from educable.learners.rulespace import CHUNK, RuleSpace


@dataclass
class SideScores:
    """One side's exact figures for each judged agent (arrays of the agents' length)."""

    blunders: np.ndarray     # reachable positions where a choice turns a not-lost game into a lost one
    win: np.ndarray          # P(win) against a uniformly random opponent
    loss: np.ndarray         # P(loss) against a uniformly random opponent
    worst: np.ndarray        # guaranteed result against a best response: 1, 0, -1


@njit(cache=True)
def _judge_side(counts, succ, mine, topo, over, outcome, after, value):  # pragma: no cover - compiled
    """Per agent: the states it can reach (choosing where counts > 0 in its states, anything in the
    opponent's), its blunders there, and, over them from the leaves, P(win) and P(loss) against a
    uniformly random opponent and the guaranteed result."""
    n_agents, n, n_actions = counts.shape
    blunders = np.zeros(n_agents, np.int64)
    win_out = np.zeros(n_agents)
    loss_out = np.zeros(n_agents)
    worst_out = np.zeros(n_agents, np.int64)
    reach = np.zeros(n, np.bool_)
    win = np.zeros(n)
    loss = np.zeros(n)
    worst = np.zeros(n, np.int64)
    for a in range(n_agents):
        reach[:] = False
        reach[0] = True
        for s in topo:
            if not reach[s] or over[s]:
                continue
            bad = False
            for k in range(n_actions):
                t = succ[s, k]
                if t < 0:
                    continue
                if mine[s]:
                    if counts[a, s, k] == 0:
                        continue
                    if after[s, k] == -1:
                        bad = True
                reach[t] = True
            if bad and value[s] >= 0:
                blunders[a] += 1
        for i in range(len(topo) - 1, -1, -1):
            s = topo[i]
            if not reach[s]:
                continue
            if over[s]:
                win[s] = 1.0 if outcome[s] == 1 else 0.0
                loss[s] = 1.0 if outcome[s] == -1 else 0.0
                worst[s] = outcome[s]
                continue
            total = 0.0
            w = 0.0
            lo = 0.0
            least = 1
            for k in range(n_actions):
                t = succ[s, k]
                if t < 0:
                    continue
                c = float(counts[a, s, k]) if mine[s] else 1.0
                if c == 0.0:
                    continue
                total += c
                w += c * win[t]
                lo += c * loss[t]
                if worst[t] < least:
                    least = worst[t]
            win[s] = w / total
            loss[s] = lo / total
            worst[s] = least
        win_out[a] = win[0]
        loss_out[a] = loss[0]
        worst_out[a] = worst[0]
    return blunders, win_out, loss_out, worst_out


@njit(cache=True)
def _choice_counts(states, offsets, action, priority, weight, legal, live, counts):  # pragma: no cover - compiled
    """Fill counts (A, S, n_actions): in each live state, one entry per rule of the highest priority,
    then highest weight, among the agent's rules that match there with a legal action (rule k of
    agent a matches states[offsets[a*R+k]:offsets[a*R+k+1]]); every legal move where none does."""
    n_agents, n_rules = action.shape
    n, n_actions = legal.shape
    best_p = np.empty(n, np.int64)
    best_w = np.empty(n)
    for a in range(n_agents):
        best_p[:] = -1
        best_w[:] = -np.inf
        for r in range(n_rules):
            k = a * n_rules + r
            act, p, w = action[a, r], priority[a, r], weight[a, r]
            for i in range(offsets[k], offsets[k + 1]):
                s = states[i]
                if legal[s, act] and (p > best_p[s] or (p == best_p[s] and w > best_w[s])):
                    best_p[s] = p
                    best_w[s] = w
        for r in range(n_rules):
            k = a * n_rules + r
            act, p, w = action[a, r], priority[a, r], weight[a, r]
            for i in range(offsets[k], offsets[k + 1]):
                s = states[i]
                if legal[s, act] and p == best_p[s] and w == best_w[s]:
                    counts[a, s, act] += 1
        for s in range(n):
            if best_p[s] < 0 and live[s]:
                for j in range(n_actions):
                    counts[a, s, j] = 1 if legal[s, j] else 0


MAX_KEPT = 1_000_000       # distinct conditions whose matches are kept


class ExactJudge:
    """Judges rule sets of one RuleSpace exactly; the graph's order and values are computed once."""

    def __init__(self, space: RuleSpace) -> None:
        graph = space.graph
        if graph.value is None:
            raise ValueError(f"{graph.game}: exact fitness needs the solved graph")
        order = graph.order_leaves_first()[::-1]          # ValueError on a cycle
        self.space = space
        self.topo = np.array(order, dtype=np.int64)          # every state after those that lead to it
        succ, legal = space.succ, space.legal
        children = np.where(legal, succ, 0)
        passes = graph.mover[:, None] != graph.mover[children]
        child_value = graph.value[children].astype(np.int8)
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
            new = list(missing)
            forbid = space.forbid_masks(cond[np.fromiter(missing.values(), dtype=np.int64)])
            for i in range(0, len(new), CHUNK):
                hit = space.matches(space.state_masks[:, None, space.live], forbid[i:i + CHUNK, None, :])
                for key, row in zip(new[i:i + CHUNK], hit, strict=True):
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
        offsets = np.zeros(n_agents * n_rules + 1, dtype=np.int64)
        np.cumsum([len(x) for x in states], out=offsets[1:])
        flat = np.concatenate(states) if states else np.zeros(0, dtype=np.int64)
        counts = np.zeros((n_agents, n, len(space.actions)), dtype=np.int16)
        _choice_counts(flat, offsets, action.astype(np.int64), priority.astype(np.int64),
                       weight.astype(np.float64), space.legal, space.graph.winner == ONGOING, counts)
        return counts

    def side(self, counts: np.ndarray, player: int) -> SideScores:
        """Exact figures of each rule set (its ``choice_counts``) playing ``player`` (0 first, 1 second)."""
        graph = self.space.graph
        over = graph.winner != ONGOING
        outcome = np.where(graph.winner == player, 1, np.where((graph.winner == DRAW) | ~over, 0, -1)).astype(np.int8)
        blunders, win, loss, worst = _judge_side(counts, self.space.succ, graph.mover == player, self.topo, over,
                                                 outcome, self.after, self.value)
        return SideScores(blunders, win, loss, worst)

    def fitness(self, cond: np.ndarray, action: np.ndarray, priority: np.ndarray,
                weight: np.ndarray) -> tuple[np.ndarray, list[SideScores]]:
        """Each rule set's (arrays (A, R, ...)) exact fitness: on both sides, its expected score
        against random (P(win) - P(loss)) less one point per blunder; and the figures of each side."""
        counts = self.choice_counts(cond, action, priority, weight)
        sides = [self.side(counts, p) for p in (0, 1)]
        return sum((s.win - s.loss) - s.blunders for s in sides), sides
