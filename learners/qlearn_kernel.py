"""Q-learning's self-play on a compiled game of chance, in numba.

learners/qlearn.py's ``train`` plays each game in Python: about 560 games of
pig(100,6) a second, where getting near perfect play takes millions.  The
case that needs them most, self-play with the sampled update (``--update
negamax``, which a game of chance requires) on a compiled graph, one table
row a state and no points, runs here instead, the same rules move for
move: an epsilon-greedy choice (ties broken at random) among the legal
moves, chance's outcomes drawn with their probabilities, a game still going
after ENDLESS_PLIES moves scored a draw, and at its end every move made
updated, the last first, towards the result or the best the mover can
expect from where the move led (negated when the turn passed), with the
learning rate 1/n (or the fixed one).  Its random numbers are numba's own,
from the run's seed: the same seed gives the same agent, not the one the
Python loop would give.
"""
from __future__ import annotations

import numpy as np

from educable.learners.graph import CHANCE, CUT, StateGraph
from educable.learners.jit import njit
from educable.learners.training import ENDLESS_PLIES


@njit(cache=True)
def _seed(seed):
    np.random.seed(seed)


@njit(cache=True)
def _cumulative(start, mover, prob):
    """Each chance node's outcomes' running totals of their probabilities (0 on a player's edges)."""
    out = np.zeros(len(prob))
    for v in range(len(start) - 1):
        if mover[v] == CHANCE:
            total = 0.0
            for e in range(start[v], start[v + 1]):
                total += prob[e]
                out[e] = total
    return out


@njit(cache=True)
def _settled(y, mover, terminal, start, target, cumulative):
    """The state chance leaves after ``y``: each chance node's outcome drawn with its probability."""
    while mover[y] == CHANCE and not terminal[y]:
        a, b = start[y], start[y + 1]
        x = np.random.random() * cumulative[b - 1]
        k = a
        while k < b - 1 and cumulative[k] <= x:
            k += 1
        y = target[k]
    return y


@njit(cache=True)
def _ahead(y, p, gamma, start, action, mover, winner, terminal, q):
    """What ``p`` can expect from the (settled) state ``y``: its result there, or the best entry of
    y's row, negated when the turn has passed."""
    if terminal[y]:
        w = winner[y]
        return 0.0 if w == 2 else (1.0 if w == p else -1.0)
    a, b = start[y], start[y + 1]
    best = q[y, action[a]]
    for f in range(a + 1, b):
        if q[y, action[f]] > best:
            best = q[y, action[f]]
    return gamma * (best if mover[y] == p else -best)


@njit(cache=True)
def _play(first, count, n_games, eps0, eps_end, gamma, fixed_alpha, expected, start, target, action, mover,
          winner, terminal, prob, cumulative, q, n, results, made_s, made_e, made_y):
    """Games ``first`` .. ``first + count - 1`` of a run of ``n_games`` (for the epsilon schedule),
    each self-play; winners into ``results`` (2 a draw, as learners.graph.DRAW; CUT a game cut off).  ``fixed_alpha``
    below 0: the rate 1/n.  ``expected``: a move into a chance node is updated towards the mean over
    the node's outcomes, weighted by their probabilities, instead of towards the one drawn."""
    for i in range(first, first + count):
        eps = eps0 + (eps_end - eps0) * (i / max(1, n_games - 1))
        s = _settled(0, mover, terminal, start, target, cumulative)
        moves = 0
        result = 2
        while True:
            if terminal[s]:
                result = winner[s]
                break
            if moves >= ENDLESS_PLIES:
                break
            a, b = start[s], start[s + 1]
            if np.random.random() < eps:
                e = a + np.random.randint(b - a)
            else:
                best = q[s, action[a]]
                ties = 1
                e = a
                for f in range(a + 1, b):
                    x = q[s, action[f]]
                    if x > best:
                        best, ties, e = x, 1, f
                    elif x == best:
                        ties += 1
                        if np.random.randint(ties) == 0:     # each of the tied moves equally likely
                            e = f
            y = _settled(target[e], mover, terminal, start, target, cumulative)
            made_s[moves], made_e[moves], made_y[moves] = s, e, y
            moves += 1
            s = y
        results[i - first] = CUT if result == 2 and moves >= ENDLESS_PLIES and not terminal[s] else result
        for m in range(moves - 1, -1, -1):
            s, e, y = made_s[m], made_e[m], made_y[m]
            p = mover[s]
            c = action[e]
            n[s, c] += 1
            alpha = fixed_alpha if fixed_alpha >= 0 else 1.0 / n[s, c]
            z = target[e]
            if expected and mover[z] == CHANCE and not terminal[z]:
                goal = 0.0
                for f in range(start[z], start[z + 1]):
                    y = _settled(target[f], mover, terminal, start, target, cumulative)   # chance after chance: drawn
                    goal += prob[f] * _ahead(y, p, gamma, start, action, mover, winner, terminal, q)
            else:
                goal = _ahead(y, p, gamma, start, action, mover, winner, terminal, q)
            q[s, c] += alpha * (goal - q[s, c])


class SelfPlay:
    """The graph's arrays as the kernel reads them, and a run's random numbers seeded once."""

    def __init__(self, graph: StateGraph, action_index: dict[str, int], seed: int) -> None:
        self.start, self.target = graph.start, graph.target
        self.action = np.asarray([action_index[t] for t in graph.moves], dtype=np.int64)[graph.move]
        self.mover = graph.mover.astype(np.int64)
        self.winner = graph.winner.astype(np.int64)
        self.terminal = graph.winner != -1
        self.prob = graph.prob if graph.prob is not None else np.ones(len(graph.target))
        self.cumulative = _cumulative(self.start, self.mover, self.prob)
        self.made = [np.zeros(ENDLESS_PLIES + 1, dtype=np.int64) for _ in range(3)]
        _seed(seed)

    def play(self, first: int, count: int, n_games: int, eps0: float, eps_end: float, gamma: float,
             fixed_alpha: float | None, expected: bool, q: np.ndarray, n: np.ndarray) -> list[int]:
        """Play games ``first`` .. ``first + count - 1``, learning into ``q`` and ``n`` in place (with
        ``expected``, chance's outcomes weighed rather than drawn); their winners (2 a draw)."""
        results = np.zeros(count, dtype=np.int64)
        _play(first, count, n_games, eps0, eps_end, gamma, -1.0 if fixed_alpha is None else fixed_alpha, expected,
              self.start, self.target, self.action, self.mover, self.winner, self.terminal, self.prob,
              self.cumulative, q, n, results, *self.made)
        return results.tolist()
