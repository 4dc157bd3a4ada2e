"""Lookup-table Q-learning (seed 001, CA425) on a compiled state graph.

The seed's formulation: a state x is the board as the learner sees it, an
action a is one of the game's moves (tic-tac-toe: squares 1-9, the seed's
0-8), and Q(x, a) is a table.  By default the table has one row per
reachable state; the full table has one row per possible board (3^cells),
as the seed's "testEnumeration".

Rewards, from the learner's side: +1 for completing a line (winning), -1
when the opponent wins, 0 for a draw.  Updates, selectable:

- ``assign``:    Q(x,a) := r when a reward or punishment arrives;
- ``average``:   Q(x,a) := (1-α)Q(x,a) + α r after every move, α = 1/n(x,a);
- ``lookahead``: Q(x,a) := (1-α)Q(x,a) + α (r + γ max_b Q(y,b)), y the
  learner's next state (after the opponent's reply), max 0 when the game ended.

and one of ours, not the seed's:

- ``negamax``:   the lookahead seen through the copy's eyes: Q(x,a) :=
  (1-α)Q(x,a) + α (r - γ max_b Q(y',b)), y' the state right after the move,
  where the opponent (a copy using the same table) is to move.  The seed's
  lookahead learns a best response to the opponent it actually meets (an
  exploring copy, or random), which can lose to a better one; negamax
  learns the minimax values whatever the opponent does, so its greedy play
  becomes perfect.  Its updates are applied when the game ends, last move
  first, so a result reaches the first move in one game.

α is 1/n(x,a) for the seed's average and lookahead and 1 for negamax,
unless a fixed α is given.  Illegal actions (seed's three
ways): ``stay`` (the learner stays in x and chooses again, at most
``max_stay`` times, then a random legal move), ``lose`` (the illegal action
loses the game), ``resample`` (a hand-written checker: only legal actions
are ever tried).

Exploration (the seed is silent): ε-greedy; ε moves linearly from
``epsilon`` at the start of a run to ``epsilon_end`` at its end (default
0.5 throughout: half the moves explore, which reaches every reply a
perfect player must answer sooner than a decaying schedule did).  Greedy
choices break ties at random.  All randomness comes from one seed.

This module never asks Prolog anything: it sees only the StateGraph.
"""
from __future__ import annotations

import random
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import numpy as np

from learners.graph import DRAW, StateGraph

WIN, LOSS, DRAW_REWARD = 1.0, -1.0, 0.0
UPDATES = ("assign", "average", "lookahead", "negamax")
ILLEGAL_MODES = ("stay", "lose", "resample")
TABLES = ("reachable", "full")


@dataclass
class QOptions:
    """Every parameter of a Q-learning agent (stored with it)."""

    update: str = "negamax"
    gamma: float = 1.0
    alpha: float | None = None      # None: 1/n(x,a) for average and lookahead (the seed's), 1 for negamax
    illegal: str = "resample"
    table: str = "reachable"
    epsilon: float = 0.5
    epsilon_end: float = 0.5
    max_stay: int = 20

    def check(self) -> "QOptions":
        """Raise ValueError naming the first bad option."""
        if self.update not in UPDATES:
            raise ValueError(f"--update must be one of {', '.join(UPDATES)}, not {self.update!r}")
        if self.illegal not in ILLEGAL_MODES:
            raise ValueError(f"--illegal must be one of {', '.join(ILLEGAL_MODES)}, not {self.illegal!r}")
        if self.table not in TABLES:
            raise ValueError(f"--table must be one of {', '.join(TABLES)}, not {self.table!r}")
        if not 0.0 <= self.gamma <= 1.0:
            raise ValueError(f"--gamma must be in [0, 1], not {self.gamma}")
        if self.alpha is not None and not 0.0 < self.alpha <= 1.0:
            raise ValueError(f"--alpha must be in (0, 1], not {self.alpha}")
        for name in ("epsilon", "epsilon_end"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"--{name.replace('_', '-')} must be in [0, 1], not {getattr(self, name)}")
        if self.max_stay < 1:
            raise ValueError("--max-stay must be at least 1")
        return self

    def as_dict(self) -> dict:
        return asdict(self)


def action_vocabulary(graph: StateGraph) -> list[str]:
    """Every move text of the game, in a stable order (numbers numerically)."""
    return sorted(set(graph.move_text), key=lambda t: (len(t), t))


class QTable:
    """Q(x, a) and n(x, a) for one agent over one game's state graph.

    ``rows[s]`` is the table row of state s: s itself (reachable table) or
    the base-3 code of its board (full table, codes given by the caller).
    """

    def __init__(self, graph: StateGraph, options: QOptions, codes: Sequence[int] | None = None,
                 n_cells: int | None = None) -> None:
        self.graph = graph
        self.options = options
        self.actions = action_vocabulary(graph)
        self.action_index = {t: i for i, t in enumerate(self.actions)}
        if options.table == "full":
            if codes is None or n_cells is None:
                raise ValueError("the full table needs each state's board code")
            self.n_rows = 3 ** n_cells
            self.rows = [int(c) for c in codes]
        else:
            self.n_rows = graph.size
            self.rows = list(range(graph.size))
        self.q = np.zeros((self.n_rows, len(self.actions)))
        self.n = np.zeros((self.n_rows, len(self.actions)), dtype=np.int64)

    # -- storage: rows of (x, action text, value, visits) -------------------------
    def x_label(self, row: int) -> str:
        return f"#{row}" if self.options.table == "full" else self.graph.keys[row]

    def entries(self) -> list[tuple[str, str, float, int]]:
        """Every learned entry (visited or non-zero)."""
        rs, acts = np.nonzero((self.n > 0) | (self.q != 0))
        return [(self.x_label(int(r)), self.actions[int(a)], float(self.q[r, a]), int(self.n[r, a]))
                for r, a in zip(rs, acts)]

    def restore(self, entries: Sequence[tuple[str, str, float, int]]) -> int:
        """Put stored entries back; returns how many did not fit this graph (ignored)."""
        skipped = 0
        for x, move, value, visits in entries:
            a = self.action_index.get(move)
            if self.options.table == "full":
                row = int(x[1:]) if x.startswith("#") and x[1:].isdigit() and int(x[1:]) < self.n_rows else None
            else:
                row = self.graph.index.get(x)
            if a is None or row is None:
                skipped += 1
                continue
            self.q[row, a] = value
            self.n[row, a] = visits
        return skipped

    # -- the greedy policy, for exact judgement ----------------------------------
    def greedy_support(self) -> list[list[int]]:
        """For every state, the legal edges of highest Q (what the agent plays)."""
        g = self.graph
        if not hasattr(self, "_edge_cols"):
            src = np.repeat(np.arange(g.size), np.diff(g.start))
            self._edge_rows = np.asarray(self.rows)[src]
            self._edge_cols = np.array([self.action_index[t] for t in g.move_text], dtype=np.int64)
            self._edge_src = src
        values = self.q[self._edge_rows, self._edge_cols]
        best = np.full(g.size, -np.inf)
        np.maximum.at(best, self._edge_src, values)
        chosen = np.nonzero(values == best[self._edge_src])[0].tolist()
        out: list[list[int]] = [[] for _ in range(g.size)]
        src = self._edge_src.tolist()
        for e in chosen:
            out[src[e]].append(e)
        return out


def train(table: QTable, learner_sides: Sequence[Sequence[int]], opponent: list[list[int]] | None,
          n_games: int, seed: int, progress: Callable[[int], None] | None = None,
          checkpoint: Callable[[int], bool] | None = None, checkpoint_every: int = 0) -> list[int]:
    """Play ``n_games``; game i's learning sides are ``learner_sides[i % len]``.

    The other side plays uniformly within ``opponent`` (a support, e.g. all
    moves or the minimax moves).  Returns each game's winner index (0, 1) or
    DRAW.  ``checkpoint(games_done)`` runs every ``checkpoint_every`` games
    and may return True to stop early.
    """
    g, o = table.graph, table.options
    rng = random.Random(seed)
    n_actions = len(table.actions)
    # plain Python lists: scalar access is several times faster than numpy's
    q = table.q.tolist()
    n = table.n.tolist()
    rows = table.rows
    mover = g.mover.tolist()
    winner = g.winner.tolist()
    terminal = [w != -1 for w in winner]
    nxt = [[-1] * n_actions for _ in range(g.size)]
    legal: list[list[int]] = [[] for _ in range(g.size)]
    for s in range(g.size):
        for e in g.edges(s):
            a = table.action_index[g.move_text[e]]
            nxt[s][a] = int(g.target[e])
            legal[s].append(a)
    targets = g.target.tolist()
    all_actions = list(range(n_actions))
    rule = UPDATES.index(o.update)
    gamma, fixed_alpha, illegal_mode = o.gamma, o.alpha, o.illegal
    if fixed_alpha is None and rule == 3:
        fixed_alpha = 1.0                  # negamax: a deterministic game needs no averaging
    results: list[int] = []
    batch = max(1, n_games // 100)


    def negamax(r: int, a: int, s: int, p: int) -> None:
        """Update Q(r, a) at once from the state a leads to, as the opponent (same table) sees it."""
        y = nxt[s][a]
        n[r][a] += 1
        alpha = fixed_alpha if fixed_alpha is not None else 1.0 / n[r][a]
        if terminal[y]:
            w = winner[y]
            target = DRAW_REWARD if w == DRAW else (WIN if w == p else LOSS)
        else:
            qy = q[rows[y]]
            target = -gamma * max(qy[b] for b in legal[y])
        q[r][a] += alpha * (target - q[r][a])

    def update(r: int, a: int, reward: float, y: int) -> None:
        """Feedback for Q(r, a); y is the learner's next state, -1 if the game ended."""
        row = q[r]
        if rule == 0:                      # assign, only when reward or punishment arrives
            if y == -1:
                row[a] = reward
                n[r][a] += 1
            return
        n[r][a] += 1
        alpha = fixed_alpha if fixed_alpha is not None else 1.0 / n[r][a]
        target = reward
        if rule == 2 and y != -1:          # lookahead
            qy = q[rows[y]]
            target += gamma * max(qy[b] for b in legal[y])
        row[a] += alpha * (target - row[a])

    def greedy(qr: list[float], acts: list[int]) -> int:
        best = max(qr[a] for a in acts)
        cands = [a for a in acts if qr[a] == best]
        return cands[0] if len(cands) == 1 else cands[rng.randrange(len(cands))]

    for i in range(n_games):
        sides = learner_sides[i % len(learner_sides)]
        eps = o.epsilon + (o.epsilon_end - o.epsilon) * (i / max(1, n_games - 1))
        s = 0
        pending: list[tuple[int, int] | None] = [None, None]
        made: list[tuple[int, int, int, int]] = []   # negamax: (row, action, state, player), replayed backwards
        result = DRAW
        while True:
            if terminal[s]:
                result = winner[s]
                for p in sides:
                    if pending[p] is not None:
                        reward = DRAW_REWARD if result == DRAW else (WIN if result == p else LOSS)
                        update(*pending[p], reward, -1)
                break
            p = mover[s]
            if p not in sides:
                sup = opponent[s]
                e = sup[rng.randrange(len(sup))]
                if rule == 3:                  # negamax learns minimax values from every move made
                    a = table.action_index[g.move_text[e]]
                    made.append((rows[s], a, s, p))
                s = targets[e]
                continue
            if pending[p] is not None:
                update(*pending[p], 0.0, s)
                pending[p] = None
            r = rows[s]
            acts = legal[s] if illegal_mode == "resample" else all_actions
            stays = 0
            while True:
                a = acts[rng.randrange(len(acts))] if rng.random() < eps else greedy(q[r], acts)
                if nxt[s][a] != -1:
                    break
                if illegal_mode == "lose":
                    break
                update(r, a, 0.0, s)       # stay: same state, choose again
                stays += 1
                if stays >= o.max_stay:
                    a = legal[s][rng.randrange(len(legal[s]))]
                    break
            if nxt[s][a] == -1:            # lose: the illegal action ends the game
                update(r, a, LOSS, -1)
                result = 1 - p
                other = 1 - p
                if other in sides and pending[other] is not None:
                    update(*pending[other], WIN, -1)
                break
            if rule == 3:
                made.append((r, a, s, p))
            else:
                pending[p] = (r, a)
            s = nxt[s][a]
        for step in reversed(made):
            negamax(*step)
        results.append(result)
        done = i + 1
        if progress and (done % batch == 0 or done == n_games):
            progress(batch if done % batch == 0 else done % batch)
        if checkpoint and checkpoint_every and done % checkpoint_every == 0 and done < n_games:
            table.q[:] = q
            table.n[:] = n
            if checkpoint(done):
                break
    table.q[:] = q
    table.n[:] = n
    return results
