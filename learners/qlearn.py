"""Lookup-table Q-learning (the CA425 practical) on a compiled state graph.

The CA425 practical's formulation: a state x is the board as the learner sees it, an
action a is one of the game's moves (tic-tac-toe: squares 1-9, the practical's
0-8), and Q(x, a) is a table.  By default the table has one row per
reachable state; the full table has one row per possible board (3^cells),
as the practical's "testEnumeration".

Rewards, from the learner's side: +1 for completing a line (winning), -1
when the opponent wins, 0 for a draw.  Updates, selectable:

- ``assign``:    Q(x,a) := r when a reward or punishment arrives;
- ``average``:   Q(x,a) := (1-α)Q(x,a) + α r after every move, α = 1/n(x,a);
- ``lookahead``: Q(x,a) := (1-α)Q(x,a) + α (r + γ max_b Q(y,b)), y the
  learner's next state (after the opponent's reply), max 0 when the game ended.

and one of ours, not the practical's:

- ``negamax``:   the lookahead seen through the copy's eyes: Q(x,a) :=
  (1-α)Q(x,a) + α (r - γ max_b Q(y',b)), y' the state right after the move,
  where the opponent (a copy using the same table) is to move (+ γ max
  when the game gives the learner another move).  The practical's
  lookahead learns a best response to the opponent it actually meets (an
  exploring copy, or random), which can lose to a better one; negamax
  learns the minimax values whatever the opponent does, so its greedy play
  becomes perfect.  Its updates are applied when the game ends, last move
  first, so a result reaches the first move in one game.
- ``bounds`` (ours, the default): negamax with what is not known yet kept
  apart from a draw.  Each entry holds the lowest and the highest value
  still possible given what the agent has seen (never seen: -1 and +1; a
  move that ends the game: its result), backed up like negamax when a game
  ends, for every move of every state the game passed through (the agent
  sees where each of its moves leads, as an afterstate learner does; it
  never looks further).  Training plays the most hopeful move (highest
  upper bound); the agent plays the safest (highest lower bound), so a move
  whose refutation has not been met yet is never mistaken for a draw.
  Among equally safe moves it prefers the one that scores most against a
  random opponent: a third number per entry, learned by the same backups
  (the mean over the opponent's replies of what the agent would then play).

α is 1/n(x,a) for the practical's average and lookahead and 1 for negamax
(bounds takes no α: its backups are exact),
unless a fixed α is given.  Illegal actions (the practical's three
ways): ``stay`` (the learner stays in x and chooses again, at most
``max_stay`` times, then a random legal move), ``lose`` (the illegal action
loses the game), ``resample`` (a hand-written checker: only legal actions
are ever tried).

Exploration (the practical is silent): ε-greedy; ε moves linearly from
``epsilon`` at the start of a run to ``epsilon_end`` at its end (default
0.5 throughout: half the moves explore, which reaches every reply a
perfect player must answer sooner than a decaying schedule did; 0.3 for
bounds, which also explores by its upper bounds: with none the tie-break
meets too few of a random opponent's replies, with more perfection comes
later).

Folding (``fold``): one row per class of symmetric states (the game's
symmetry/3), and in that row one column per class of positions a move
leads to, so the symmetric moves of symmetric states share one entry.  Greedy
choices break ties at random.  All randomness comes from one seed.

This module never asks Prolog anything: it sees only the StateGraph.
"""
from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from educable.learners import exact
from educable.learners.graph import CHANCE, CUT, DRAW, StateGraph
from educable.learners.options import option
from educable.learners.training import ENDLESS_PLIES

WIN, LOSS, DRAW_REWARD = 1.0, -1.0, 0.0
UPDATES = ("assign", "average", "lookahead", "negamax", "bounds", "expected")
ILLEGAL_MODES = ("stay", "lose", "resample")
TABLES = ("reachable", "full")


@dataclass
class QOptions:
    """Every parameter of a Q-learning agent (stored with it)."""

    update: str = option("bounds", "The practical's three rules: assign, Q := r when a reward or punishment arrives; "
                                   "average, Q := (1-α)Q + αr with α = 1/n(x,a) after every move; lookahead, Q := "
                                   "(1-α)Q + α(r + γ max Q(y,·)), y the learner's next state. Two of ours: negamax, "
                                   "the lookahead through the copy's eyes (Q := (1-α)Q + α(r − γ max Q(y′,·)), y′ "
                                   "the state right after the move, replayed from the last move back when a game "
                                   "ends), which learns the minimax values so that greedy play becomes perfect; and "
                                   "bounds, a lower and an upper bound per entry, ties broken by the score against "
                                   "random play (negamax with --illegal stay or lose, and on games too large to "
                                   "enumerate); and on a game of chance by self-play, expected: negamax whose target "
                                   "after a roll of the dice is the mean over every outcome, weighted by its "
                                   "probability, instead of the one drawn (α 1 by default).",
                         choices=UPDATES)
    gamma: float = option(1.0, "The discount of the next state's best value.", low=0.0, high=1.0)
    alpha: float | None = option(None, "A fixed step size in (0, 1] (default 1/n(x,a) for average and lookahead, the "
                                       "practical's; 1 for negamax, 1/n on a game of chance); bounds takes none (its backups are exact), so with "
                                       "--alpha the default update is negamax.",
                                     low=0.0, high=1.0)
    illegal: str = option("resample", "Illegal actions (the practical's three ways): stay in the same state and "
                                      "choose again (at most --max-stay, then a random legal move), lose the game, "
                                      "or resample: a hand-written checker draws again until legal.",
                          choices=ILLEGAL_MODES)
    table: str = option("reachable", "One row per reachable state, or the full 3^9 x 9 = 177,147-entry table of "
                                     "tic-tac-toe (the CA425 practical's testEnumeration; the run reports 19,683 "
                                     "boards of which 5,478 are reachable).", choices=TABLES)
    epsilon: float | None = option(None, "ε-greedy exploration at the start of a run, moving linearly to "
                                         "--epsilon-end (0.3 for bounds, which also explores by its upper bounds; "
                                         "else 0.5).", low=0.0, high=1.0)
    epsilon_end: float | None = option(None, "Exploration at the end of a run, linear from --epsilon (default: as "
                                             "--epsilon).", low=0.0, high=1.0)
    max_stay: int = option(20, "Tries before a random legal move (--illegal stay).", low=1, high=1000)
    fold: bool = option(False, "One table row per class of symmetric states, moves mapped through the same symmetry "
                               "(needs --table reachable and --illegal resample).",
                        default_text="on where the game declares symmetries")

    def check(self) -> QOptions:
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
        if self.update == "bounds" and self.alpha is not None:
            raise ValueError("--alpha does not apply to --update bounds (its backups are exact)")
        if self.update == "bounds" and self.illegal != "resample":
            raise ValueError("--update bounds needs --illegal resample (it learns the moves a state has)")
        if self.epsilon is None:
            self.epsilon = 0.3 if self.update == "bounds" else 0.5
        if self.epsilon_end is None:
            self.epsilon_end = self.epsilon
        for name in ("epsilon", "epsilon_end"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"--{name.replace('_', '-')} must be in [0, 1], not {getattr(self, name)}")
        if self.max_stay < 1:
            raise ValueError("--max-stay must be at least 1")
        if self.fold and self.table == "full":
            raise ValueError("--fold needs --table reachable (the full table is one row per board as the "
                             "CA425 practical enumerates them)")
        if self.fold and self.illegal != "resample":
            raise ValueError("--fold needs --illegal resample (a folded row holds only the moves a class has)")
        return self

    def as_dict(self) -> dict:
        return asdict(self)


def reward_for(winner: int, p: int) -> float:
    """Player p's reward when a game ends with ``winner`` (a player index or DRAW)."""
    return DRAW_REWARD if winner == DRAW else (WIN if winner == p else LOSS)


def action_vocabulary(graph: StateGraph) -> list[str]:
    """Every move text of the game, in a stable order (numbers numerically)."""
    return sorted(set(graph.move_text), key=lambda t: (len(t), t))


class QTable:
    """Q(x, a) and n(x, a) for one agent over one game's state graph.

    ``rows[s]`` is the table row of state s: s itself (reachable table) or
    the base-3 code of its board (full table, codes given by the caller).
    """

    def __init__(self, graph: StateGraph, options: QOptions, codes: Sequence[int] | None = None,
                 n_cells: int | None = None, class_keys: Sequence[str] | None = None) -> None:
        self.graph = graph
        self.options = options
        self.actions = action_vocabulary(graph)
        self.action_index = {t: i for i, t in enumerate(self.actions)}
        self.cols: np.ndarray | None = None         # folded: cols[s, a], the column of action a in s's row
        if options.fold:
            if class_keys is None:
                raise ValueError("a folded table needs each state's class key")
            self._fold(class_keys)
            return
        if options.table == "full":
            if codes is None or n_cells is None:
                raise ValueError("the full table needs each state's board code")
            self.n_rows = 3 ** n_cells
            self.rows = [int(c) for c in codes]
        else:
            self.n_rows = graph.size
            self.rows = list(range(graph.size))
        self._allocate(len(self.actions))

    @property
    def bounds(self) -> bool:
        """Whether the agent learns bounds (``q`` is then the lower bound)."""
        return self.options.update == "bounds"

    def _allocate(self, width: int) -> None:
        """Entries never learned: 0, or for bounds [-1, +1] and a score of 0 against random."""
        shape = (self.n_rows, width)
        self.q = np.full(shape, -1.0) if self.bounds else np.zeros(shape)
        self.n = np.zeros(shape, dtype=np.int64)
        self.hi = np.ones(shape) if self.bounds else np.zeros((0, 0))     # only bounds keep them
        self.vr = np.zeros(shape) if self.bounds else np.zeros((0, 0))

    def _fold(self, class_keys: Sequence[str]) -> None:
        """One row per class of symmetric states, one column per class of positions a move of the
        class leads to: symmetric moves of symmetric states share their entry (x is the class key,
        a the class key of the position after the move, as rules/qtable.pl looks them up).  Built
        with numpy: 1.2 million classes of 4x4 tic-tac-toe took over 10 minutes and 6 GB as a
        dictionary a row."""
        g = self.graph
        row_of: dict[str, int] = {}
        self.rows = [row_of.setdefault(k, len(row_of)) for k in class_keys]
        self.row_labels = list(row_of)
        self.row_of = row_of
        self.n_rows = len(self.row_labels)
        rows = np.asarray(self.rows, dtype=np.int64)
        src = g.source
        # a column is a (row, class after) pair; a row's columns are its pairs in order
        pairs, edge_pair = np.unique(rows[src] * self.n_rows + rows[g.target], return_inverse=True)
        self.pair_keys = pairs
        self.row_start = np.searchsorted(pairs // self.n_rows, np.arange(self.n_rows + 1))
        self.edge_cols = (np.arange(len(pairs)) - self.row_start[pairs // self.n_rows])[edge_pair.ravel()]
        actions = np.array([self.action_index[t] for t in g.move_text], dtype=np.int64)
        cols = np.full((g.size, len(self.actions)), -1, dtype=np.int64)
        cols[src, actions] = self.edge_cols
        self.cols = cols
        width = int(np.diff(self.row_start).max()) if self.n_rows else 1
        self._allocate(max(1, width))

    def fold_columns(self, row: int) -> list[str]:
        """The labels of ``row``'s columns: the class keys its moves lead to, in column order."""
        lo, hi = int(self.row_start[row]), int(self.row_start[row + 1])
        return [self.row_labels[int(k % self.n_rows)] for k in self.pair_keys[lo:hi]]

    def fold_column(self, row: int, after: str) -> int | None:
        """The column of ``row`` for a move to the class keyed ``after`` (None: no move of the row goes there)."""
        c = self.row_of.get(after)
        if c is None:
            return None
        key = row * self.n_rows + c
        i = int(np.searchsorted(self.pair_keys, key))
        return i - int(self.row_start[row]) if i < len(self.pair_keys) and self.pair_keys[i] == key else None

    # -- storage: rows of (x, action text, value, visits) -------------------------
    def x_label(self, row: int) -> str:
        if self.options.fold:
            return self.row_labels[row]
        return f"#{row}" if self.options.table == "full" else self.graph.keys[row]

    def a_label(self, row: int, col: int) -> str:
        """Column ``col``'s label in ``row``: a move's text, or (folded) the class key the move leads to."""
        if self.options.fold:
            return self.row_labels[int(self.pair_keys[self.row_start[row] + col] % self.n_rows)]
        return self.actions[col]

    def entries(self) -> list[tuple]:
        """Every learned entry (visited or non-zero) as (x, a, value, visits), and for bounds also
        (upper bound, score against random)."""
        if self.bounds:
            rs, acts = np.nonzero(self.n > 0)
            return [(self.x_label(int(r)), self.a_label(int(r), int(a)), float(self.q[r, a]), int(self.n[r, a]),
                     float(self.hi[r, a]), float(self.vr[r, a])) for r, a in zip(rs, acts, strict=True)]
        rs, acts = np.nonzero((self.n > 0) | (self.q != 0))
        return [(self.x_label(int(r)), self.a_label(int(r), int(a)), float(self.q[r, a]), int(self.n[r, a]))
                for r, a in zip(rs, acts, strict=True)]

    def restore(self, entries: Sequence[tuple]) -> int:
        """Put stored entries back (as ``entries`` gives them); returns how many did not fit this graph (ignored)."""
        skipped = 0
        for x, move, value, visits, *more in entries:
            row: int | None
            if self.options.fold:
                row = self.row_of.get(x)
                a = None if row is None else self.fold_column(row, move)
            elif self.options.table == "full":
                a = self.action_index.get(move)
                row = int(x[1:]) if x.startswith("#") and x[1:].isdigit() and int(x[1:]) < self.n_rows else None
            else:
                a = self.action_index.get(move)
                row = self.graph.index.get(x)
            if a is None or row is None:
                skipped += 1
                continue
            self.q[row, a] = value
            self.n[row, a] = visits
            if self.bounds and len(more) == 2:
                self.hi[row, a], self.vr[row, a] = more
        return skipped

    # -- the greedy policy, for exact judgement ----------------------------------
    def greedy_choices(self) -> np.ndarray:
        """The legal edges of highest Q in every state, as a mask over the graph's edges (what the
        agent plays; for bounds, of highest lower bound and among those of highest score against
        random)."""
        g = self.graph
        if not hasattr(self, "_edge_cols"):
            self._edge_rows = np.asarray(self.rows)[g.source]
            self._edge_cols = self.edge_cols if self.options.fold else np.array(
                [self.action_index[t] for t in g.move_text], dtype=np.int64)
        values = self.q[self._edge_rows, self._edge_cols]
        best = np.full(g.size, -np.inf)
        np.maximum.at(best, g.source, values)
        tied = values == best[g.source]
        if self.bounds:                   # the tie-break: the score against random, among the safest
            second = np.where(tied, self.vr[self._edge_rows, self._edge_cols], -np.inf)
            best2 = np.full(g.size, -np.inf)
            np.maximum.at(best2, g.source, second)
            tied &= second == best2[g.source]
        return tied

    def greedy_support(self) -> list[list[int]]:
        """greedy_choices as a support (a list of edges a state)."""
        return exact.support_of(self.graph, self.greedy_choices())


UNNUMBERED = -2     # a legal action whose next state LazyStates has not numbered yet


class LazyStates:
    """The states met so far in a game too large to enumerate, expanded on demand in batches.

    ``expand(keys)`` (given by the bridge, one Prolog query for many states)
    returns for each key (mover index, winner index or -1 or DRAW, move
    texts, keys the moves lead to).  States get numbers as they are met;
    the Q table grows with them, and with the moves (actions) met.
    """

    def __init__(self, start_key: str, expand: Callable[[list[str]], list[tuple[int, int, list[str], list[str]]]]
                 ) -> None:
        self._expand = expand
        self.keys: list[str] = []
        self.index: dict[str, int] = {}
        self.actions: list[str] = []
        self.action_index: dict[str, int] = {}
        self.expanded: list[bool] = []
        self.mover: list[int] = []
        self.winner: list[int] = []
        self.terminal: list[bool] = []
        self.nxt: list[list[int] | None] = []
        self.legal: list[list[int] | None] = []
        self.q: list[list[float]] = []
        self.n: list[list[int]] = []
        self.successor_keys: dict[int, dict[int, str]] = {}
        self.queries = 0
        self.intern(start_key)

    @property
    def size(self) -> int:
        return len(self.keys)

    @property
    def move_text(self) -> list[str]:
        """The moves met so far (QTable's action vocabulary)."""
        return self.actions

    def intern(self, key: str) -> int:
        """The state's number, giving it one (unexpanded) when it is new."""
        s = self.index.get(key)
        if s is None:
            s = len(self.keys)
            self.keys.append(key)
            self.index[key] = s
            self.expanded.append(False)
            self.mover.append(-1)
            self.winner.append(-1)
            self.terminal.append(False)
            self.nxt.append(None)
            self.legal.append(None)
            self.q.append([0.0] * len(self.actions))
            self.n.append([0] * len(self.actions))
        return s

    def action(self, text: str) -> int:
        """The action's column, adding one to every row when the move is new."""
        a = self.action_index.get(text)
        if a is None:
            a = len(self.actions)
            self.actions.append(text)
            self.action_index[text] = a
            for rows, fill in ((self.q, 0.0), (self.n, 0), (self.nxt, -1)):
                for row in rows:
                    if row is not None:
                        row.append(fill)  # type: ignore[arg-type]  # each table's rows take their own fill
        return a

    def expand(self, states: Sequence[int]) -> None:
        """Expand the states not expanded yet, in one call of ``expand``."""
        todo = [s for s in dict.fromkeys(states) if not self.expanded[s]]
        if not todo:
            return
        self.queries += 1
        for s, (mover, winner, moves, nexts) in zip(todo, self._expand([self.keys[s] for s in todo]), strict=True):
            self.expanded[s] = True
            self.mover[s], self.winner[s], self.terminal[s] = mover, winner, winner != -1
            acts = [self.action(t) for t in moves]
            row = [-1] * len(self.actions)
            for a in acts:
                row[a] = UNNUMBERED
            self.nxt[s], self.legal[s] = row, acts
            self.successor_keys[s] = dict(zip(acts, nexts, strict=True))

    def follow(self, s: int, a: int) -> int:
        """The state action a leads to from s, numbered now if this is the first time it is taken
        (states are numbered when met, not when seen as a successor: far fewer rows)."""
        y = self.intern(self.successor_keys[s][a])
        self.nxt[s][a] = y  # type: ignore[index]
        return y

    def restore(self, entries: Sequence[tuple[str, str, float, int]]) -> None:
        """Put stored entries back (their states are met again when play reaches them)."""
        for x, move, value, visits in entries:
            s, a = self.intern(x), self.action(move)
            self.q[s][a] = value
            self.n[s][a] = visits


def train(table: QTable, learner_sides: Sequence[Sequence[int]], opponent: list[list[int]] | None,
          n_games: int, seed: int, progress: Callable[[int], None] | None = None,
          checkpoint: Callable[[int], bool] | None = None, checkpoint_every: int = 0,
          lazy: LazyStates | None = None, lockstep: int = 256, score_log: list[float] | None = None) -> list[int]:
    """Play ``n_games``; game i's learning sides are ``learner_sides[i % len]``.
    On a game of score, each game's total (its moves' and chance's points and its end's score) is
    appended to ``score_log``.

    The other side plays uniformly within ``opponent`` (a support, e.g. all
    moves or the minimax moves; None with ``lazy``: uniformly among the legal
    moves).  Returns each game's winner index (0, 1), DRAW, or CUT (still going after ENDLESS_PLIES moves).
    ``checkpoint(games_done)`` runs every ``checkpoint_every`` games and may
    return True to stop early; with ``lazy`` it runs after every batch of
    expansions instead (with the games finished so far, whose learning the
    table then holds; grow_table makes ``table`` current) and cannot stop
    the run.

    With ``lazy`` (a game too large to enumerate) the states come from it
    instead of ``table.graph``: ``lockstep`` games are played side by side,
    and whenever each has reached a state not expanded yet, all those
    states are expanded in one batch (never a query per move).  The table's
    q and n are then replaced by the grown ones at the end.
    """
    o = table.options
    if (lazy is None and table.graph.has_chance and o.update in ("negamax", "expected") and opponent is None
            and not table.graph.scored and not o.fold and o.table == "reachable"
            and all(sorted(sides) == [0, 1] for sides in learner_sides)):
        return _self_play_in_kernel(table, n_games, seed, progress, checkpoint, checkpoint_every)
    if o.update == "expected":
        raise ValueError("--update expected learns a game of chance by self-play (leave out --vs)")
    rng = random.Random(seed)
    if lazy is None:
        g = table.graph
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
        scored = g.scored                  # a game of score: each move's points, each end's score
        reward = g.reward.tolist() if scored else []  # type: ignore[union-attr]  # scored: reward is set
        end_score = g.score.tolist() if scored else []  # type: ignore[union-attr]  # scored: score is set
        points: list[dict[int, float]] = [{} for _ in range(g.size)] if scored else []
        for s in range(g.size):
            for e in g.edges(s):
                a = table.action_index[g.move_text[e]]
                nxt[s][a] = int(g.target[e])
                legal[s].append(a)
                if scored and reward[e]:
                    points[s][a] = reward[e]
        opp = None if opponent is None else [[table.action_index[g.move_text[e]] for e in sup] for sup in opponent]
        expanded = None
        all_actions = list(range(n_actions))
        cols = table.cols.tolist() if table.cols is not None else [all_actions] * g.size   # column of each action
    else:
        if o.illegal != "resample" or o.table != "reachable":
            raise ValueError("a game too large to enumerate is learned with --illegal resample and "
                             "--table reachable only (the others need every move and board in advance)")
        q, n, mover, winner, terminal, nxt = lazy.q, lazy.n, lazy.mover, lazy.winner, lazy.terminal, lazy.nxt  # type: ignore[assignment]  # rows filled as states are met
        legal = lazy.legal  # type: ignore[assignment]
        rows = _Identity()  # type: ignore[assignment]  # row s is state s
        cols = _Rows(rows)
        opp = None
        expanded = lazy.expanded
        all_actions = []
        scored, points, end_score, reward = False, [], [], []
    rule = UPDATES.index(o.update)
    learns_bounds = rule == 4
    chance = lazy is None and table.graph.has_chance
    if chance and rule != 3:
        raise ValueError("a game of chance is learned with --update negamax (the sampled update, averaged)")
    # a chance node's outcomes, their cumulative chances and (a game of score) their points
    outcomes: dict[int, tuple[list[int], list[float], list[float]]] = {}
    if chance:
        prob = table.graph.prob.tolist()  # type: ignore[union-attr]  # has_chance: prob is set
        for c in np.flatnonzero(table.graph.mover == CHANCE).tolist():
            edges = list(g.edges(c))
            outcomes[c] = ([int(g.target[e]) for e in edges], list(itertools.accumulate(prob[e] for e in edges)),
                           [reward[e] if scored else 0.0 for e in edges])
    if learns_bounds and lazy is not None:
        raise ValueError("--update bounds needs the whole graph (a game too large to enumerate takes negamax)")
    if learns_bounds:
        hi, vr = table.hi.tolist(), table.vr.tolist()
    gamma, fixed_alpha, illegal_mode = o.gamma, o.alpha, o.illegal
    if fixed_alpha is None and rule == 3 and not chance:
        fixed_alpha = 1.0                  # negamax: a deterministic game needs no averaging (chance does: 1/n)
    results: list[int] = []

    drawn = [0.0]                          # the points chance's outcomes scored since the last move
    dirty: set[int] = set()                # the rows learned since the table was last written back

    def settled(y: int) -> int:
        """The state chance leaves after ``y``: each chance node's outcome drawn with its probability
        (its points, in a game of score, added to ``drawn``)."""
        while y in outcomes and not terminal[y]:
            targets, cumulative, gained = outcomes[y]
            k = min(bisect.bisect_right(cumulative, rng.random() * cumulative[-1]), len(targets) - 1)
            drawn[0] += gained[k]
            y = targets[k]
        return y

    def negamax(r: int, a: int, s: int, p: int, y: int, extra: float = 0.0) -> None:
        """Update Q(r, a) at once from the state ``y`` it led to (chance drawn), as its mover (same
        table) sees it.  In a game of score: the move's points, ``extra`` (chance's points on the
        way to ``y``) and the best that can be expected from ``y`` (its end's score when over)."""
        c = cols[s][a]
        n[r][c] += 1
        dirty.add(r)
        alpha = fixed_alpha if fixed_alpha is not None else 1.0 / n[r][c]
        if scored:
            if terminal[y]:
                ahead = end_score[y]
            else:
                qy, cy = q[rows[y]], cols[y]
                ahead = max(qy[cy[b]] for b in legal[y])
            target = points[s].get(a, 0.0) + extra + gamma * ahead
        elif terminal[y]:
            w = winner[y]
            target = reward_for(w, p)
        else:
            qy, cy = q[rows[y]], cols[y]
            best = max(qy[cy[b]] for b in legal[y])
            target = gamma * (best if mover[y] == p else -best)   # negated when the turn passes
        q[r][c] += alpha * (target - q[r][c])

    def update(r: int, a: int, reward: float, y: int) -> None:
        """Feedback for Q(r, a) (a: the table's column); y is the learner's next state, -1 if the game ended."""
        row = q[r]
        dirty.add(r)
        if rule == 0:                      # assign, only when reward or punishment arrives
            if y == -1:
                row[a] = reward
                n[r][a] += 1
            return
        n[r][a] += 1
        alpha = fixed_alpha if fixed_alpha is not None else 1.0 / n[r][a]
        target = reward
        if rule == 2 and y != -1:          # lookahead
            qy, cy = q[rows[y]], cols[y]
            target += gamma * max(qy[cy[b]] for b in legal[y])
        row[a] += alpha * (target - row[a])

    def bound(r: int, a: int, s: int, p: int) -> None:
        """Back up entry (r, a) of state s (p to move) from the entries of the state a leads to:
        its bounds as negamax does, and its score against random play."""
        y = nxt[s][a]
        c = cols[s][a]
        n[r][c] += 1
        dirty.add(r)
        if terminal[y]:
            w = winner[y]
            q[r][c] = hi[r][c] = vr[r][c] = reward_for(w, p)
            return
        ry, cy = rows[y], cols[y]
        low = max(q[ry][cy[b]] for b in legal[y])
        high = max(hi[ry][cy[b]] for b in legal[y])
        if mover[y] == p:
            q[r][c], hi[r][c] = gamma * low, gamma * high
        else:
            q[r][c], hi[r][c] = -gamma * high, -gamma * low
        vr[r][c] = against_random(y, p)

    def against_random(z: int, p: int) -> float:
        """What p scores from state z when p plays as the agent does (safest, then its best score
        against random) and the other side uniformly at random, by the entries learned so far."""
        if terminal[z]:
            w = winner[z]
            return reward_for(w, p)
        rz, cz = rows[z], cols[z]
        if mover[z] == p:
            qz, vz = q[rz], vr[rz]
            safest = max(qz[cz[b]] for b in legal[z])
            return max(vz[cz[b]] for b in legal[z] if qz[cz[b]] == safest)
        return sum(against_random(nxt[z][b], p) for b in legal[z]) / len(legal[z])

    def greedy(qr: list[float], cs: list[int], acts: list[int]) -> int:
        best = max(qr[cs[a]] for a in acts)
        return pick([a for a in acts if qr[cs[a]] == best])

    def hopeful(r: int, cs: list[int], acts: list[int]) -> int:
        """Training's choice when learning bounds: the highest upper bound, then lower bound."""
        hr, qr = hi[r], q[r]
        best = max(hr[cs[a]] for a in acts)
        cands = [a for a in acts if hr[cs[a]] == best]
        if len(cands) > 1:
            low = max(qr[cs[a]] for a in cands)
            cands = [a for a in cands if qr[cs[a]] == low]
        return pick(cands)

    def pick(cands: list[int]) -> int:
        """One of tied actions, at random (the generator is not touched when there is one)."""
        return cands[0] if len(cands) == 1 else cands[rng.randrange(len(cands))]

    choose = hopeful if learns_bounds else (lambda r, cs, acts: greedy(q[r], cs, acts))

    def play(i: int) -> Generator[int, None, int]:
        """Game i; yields a state when it must be expanded first; its result is the return value."""
        sides = learner_sides[i % len(learner_sides)]
        eps0 = o.epsilon or 0.0                                             # check() fills both in
        eps_end = eps0 if o.epsilon_end is None else o.epsilon_end
        eps = eps0 + (eps_end - eps0) * (i / max(1, n_games - 1))
        drawn[0] = 0.0
        s = settled(0)
        total = drawn[0]                   # a game of score's points so far
        made: list[tuple[int, int, int, int, int, float]] = []   # negamax: (row, action, state, player, next, chance's
        #                                                           points on the way), replayed backwards
        pending: list[tuple[int, int] | None] = [None, None]
        result = DRAW
        plies = 0
        while True:
            if expanded is not None and not expanded[s]:
                yield s
            if terminal[s]:
                result = winner[s]
                if scored:
                    total += end_score[s]
                for p in sides:
                    if pending[p] is not None:
                        reward = reward_for(result, p)
                        update(*pending[p], reward, -1)  # type: ignore[misc, call-arg]  # set before the game reaches here
                break
            plies += 1
            if plies > ENDLESS_PLIES:          # a game still going: learned from as a draw, reported cut
                result = CUT
                break
            p = mover[s]
            if p not in sides:
                sup = opp[s] if opp is not None else legal[s]
                a = sup[rng.randrange(len(sup))]
                y = nxt[s][a]
                drawn[0] = 0.0
                y = settled(y) if y >= 0 else lazy.follow(s, a)  # type: ignore[union-attr]
                if rule >= 3:                  # negamax and bounds learn from every move made
                    made.append((rows[s], a, s, p, y, drawn[0]))
                s = y
                continue
            if pending[p] is not None:
                update(*pending[p], 0.0, s)  # type: ignore[call-arg]  # set before the game reaches here
                pending[p] = None
            r, cs = rows[s], cols[s]
            acts = legal[s] if illegal_mode == "resample" else all_actions
            stays = 0
            while True:
                a = acts[rng.randrange(len(acts))] if rng.random() < eps else choose(r, cs, acts)
                if nxt[s][a] != -1:
                    break
                if illegal_mode == "lose":
                    break
                update(r, cs[a], 0.0, s)       # stay: same state, choose again
                stays += 1
                if stays >= o.max_stay:
                    a = legal[s][rng.randrange(len(legal[s]))]
                    break
            if nxt[s][a] == -1:            # lose: the illegal action ends the game
                update(r, cs[a], LOSS, -1)
                result = 1 - p
                other = 1 - p
                if other in sides and pending[other] is not None:
                    update(*pending[other], WIN, -1)  # type: ignore[call-arg]  # set before the game reaches here
                break
            y = nxt[s][a]
            drawn[0] = 0.0
            y = settled(y) if y >= 0 else lazy.follow(s, a)  # type: ignore[union-attr]
            if scored:
                total += points[s].get(a, 0.0) + drawn[0]
            if rule >= 3:
                made.append((r, a, s, p, y, drawn[0]))
            else:
                pending[p] = (r, cs[a])
            s = y
        for r, a, s, p, y, extra in reversed(made):
            if learns_bounds:              # every move of every state passed, last state first
                for b in legal[s]:
                    bound(r, b, s, p)
            else:
                negamax(r, a, s, p, y, extra)
        if scored and score_log is not None:
            score_log.append(total)
        return result

    def write_back() -> None:
        """The rows learned since the last time into the table (a checkpoint judges it): only those, as
        writing all of Pig's two million rows each time took half a run of 20,000 games."""
        learned = sorted(dirty)
        dirty.clear()
        if not learned:
            return
        table.q[learned] = [q[r] for r in learned]
        table.n[learned] = [n[r] for r in learned]
        if learns_bounds:
            table.hi[learned] = [hi[r] for r in learned]
            table.vr[learned] = [vr[r] for r in learned]

    batch = max(1, n_games // 100)
    reported = [0]

    def finished(count: int) -> None:
        if progress and (count % batch == 0 or count == n_games):
            progress(count - reported[0])
            reported[0] = count

    if lazy is None:
        for i in range(n_games):
            game = play(i)
            try:
                next(game)
                raise RuntimeError("a compiled graph never needs expanding")
            except StopIteration as stop:
                results.append(stop.value)
            done = i + 1
            finished(done)
            if checkpoint and checkpoint_every and done % checkpoint_every == 0 and done < n_games:
                write_back()
                if checkpoint(done):
                    break
        write_back()
        return results

    out: list[int] = [DRAW] * n_games
    count = [0]

    def advance(i: int, game: Iterator[int]) -> tuple[int, Iterator[int], int] | None:
        """Run game i on to the next state it needs expanded; None when it has ended."""
        try:
            return i, game, next(game)
        except StopIteration as stop:
            out[i] = stop.value
            count[0] += 1
            finished(count[0])
            return None

    waiting: list[tuple[int, Iterator[int], int]] = []   # (game, its play, the state it waits for)
    started = 0
    while True:
        while started < n_games and len(waiting) < lockstep:
            w = advance(started, play(started))
            started += 1
            if w is not None:
                waiting.append(w)
        if not waiting:
            break
        lazy.expand([s for _, _, s in waiting])
        waiting = [w for w in (advance(i, g) for i, g, _ in waiting) if w is not None]
        if checkpoint:
            checkpoint(count[0])
    grow_table(table, lazy)
    return out


KERNEL_GAMES = 10_000        # games a kernel call plays at most: Ctrl-C and progress are seen between calls


def _self_play_in_kernel(table: QTable, n_games: int, seed: int, progress: Callable[[int], None] | None,
                         checkpoint: Callable[[int], bool] | None, checkpoint_every: int) -> list[int]:
    """train's self-play with the sampled update on a compiled game of chance, played by
    learners/qlearn_kernel.py into the table's own arrays; progress and checkpoints as train's."""
    from educable.learners.qlearn_kernel import SelfPlay
    o = table.options
    eps0 = o.epsilon or 0.0
    eps_end = eps0 if o.epsilon_end is None else o.epsilon_end
    expected = o.update == "expected"          # its target is exact given the next values: a rate of 1
    alpha = 1.0 if expected and o.alpha is None else o.alpha
    run = SelfPlay(table.graph, table.action_index, seed)
    results: list[int] = []
    done = 0
    while done < n_games:
        count = min(max(1, n_games // 100), KERNEL_GAMES, n_games - done)
        if checkpoint and checkpoint_every:
            count = min(count, checkpoint_every - done % checkpoint_every)
        results += run.play(done, count, n_games, eps0, eps_end, o.gamma, alpha, expected, table.q, table.n)
        done += count
        if progress:
            progress(count)
        if checkpoint and checkpoint_every and done % checkpoint_every == 0 and done < n_games and checkpoint(done):
            break
    return results


def grow_table(table: QTable, lazy: LazyStates) -> None:
    """Make ``table`` hold the states and moves ``lazy`` has met, with their q and n (a lazily
    expanded run learns in ``lazy``'s lists)."""
    width = len(lazy.actions)
    table.actions, table.action_index = list(lazy.actions), dict(lazy.action_index)
    table.n_rows = lazy.size
    table.rows = list(range(lazy.size))
    table.q = np.array([row + [0.0] * (width - len(row)) for row in lazy.q]).reshape(lazy.size, width)
    table.n = np.array([row + [0] * (width - len(row)) for row in lazy.n], dtype=np.int64).reshape(lazy.size, width)


class _Identity:
    """rows[s] == s: the reachable table of a lazily grown graph."""

    def __getitem__(self, s: int) -> int:
        return s


class _Rows:
    """The same row for every index (cols[s] of a table that is not folded, grown lazily)."""

    def __init__(self, row: object) -> None:
        self.row = row

    def __getitem__(self, s: int) -> object:
        return self.row
