"""Games of hidden information: information sets, equilibria, best responses and exploitability.

A game whose file gives ``sees/4`` compiles to a tree (learners.graph.StateGraph with each node's
mover's view): a player's *information set* is its view, and perfect recall (the view recalls
everything the player saw and did) is checked here, as is that a player's legal moves depend on its
view alone.  Everything below works on the *sequence form* (Koller, Megiddo and von Stengel 1996): a
player's sequence is an information set and one of its moves (slot), or the empty sequence; an end of
the game is reached through one sequence of each player, with chance's probability and the first
player's payoff.

- ``equilibrium``: a Nash equilibrium and the game's value by the sequence-form linear program
  (scipy's HiGHS), for each player;
- ``best_response``: what a best-responding opponent gains against a strategy, and where;
- ``exploitability``: OpenSpiel's definition, NashConv / 2 (NashConv: the two best responses'
  gains over the profile's values, added);
- ``cfr_plus``: CFR+ (Tammelin 2014: regret matching+, alternating updates, linear averaging),
  its loop in numba, for games too large for the linear program and as the ``cfr`` learner.

Nothing here knows a game: only the tree's arrays.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from educable.learners.graph import CHANCE, DRAW, ONGOING, SCORED, StateGraph
from educable.learners.jit import njit

if TYPE_CHECKING:
    from collections.abc import Callable


class NotHiddenGame(ValueError):
    """The tree breaks a rule of games of hidden information; the message says which, in one line."""


@dataclass
class InfoGame:
    """A game of hidden information as its tree and its players' information sets.

    Information set ``i`` belongs to ``player[i]`` (0 or 1), is named ``key[i]`` (the view), has moves
    ``moves[i]`` (texts) and slots ``slot0[i]:slot0[i]+len(moves[i])`` (one a move; slots number both
    players' sequences together); ``parent[i]`` is its player's sequence before it (a slot, or -1 the
    empty sequence).  Node ``h``'s information set is ``node_set[h]`` (-1 for chance and ends) and edge
    ``e``'s slot ``edge_slot[e]`` (-1 for chance's).  ``payoff[h]`` is the first player's at an end.
    Each end ``z`` of ``ends`` is reached with chance's probability ``end_chance`` through the slots
    ``end_seq[0]``, ``end_seq[1]`` (-1 none).
    """

    graph: StateGraph
    player: np.ndarray
    key: list[str]
    moves: list[list[str]]
    slot0: np.ndarray
    parent: np.ndarray
    node_set: np.ndarray
    edge_slot: np.ndarray
    payoff: np.ndarray
    ends: np.ndarray
    end_chance: np.ndarray
    end_seq: tuple[np.ndarray, np.ndarray]
    slot_set: np.ndarray = field(repr=False)

    @property
    def sets(self) -> int:
        return len(self.key)

    @property
    def slots(self) -> int:
        return len(self.slot_set)

    def uniform(self) -> np.ndarray:
        """The strategy that plays every move of an information set alike (a probability a slot)."""
        counts = np.array([len(m) for m in self.moves], dtype=np.float64)
        return 1.0 / counts[self.slot_set]

    def set_of(self, player: int, view: str) -> int | None:
        """The information set of ``player`` named ``view``, if any."""
        return self._index.get((player, view))

    @property
    def _index(self) -> dict[tuple[int, str], int]:
        found = self.__dict__.get("_index_cache")
        if found is None:
            found = {(int(p), k): i for i, (p, k) in enumerate(zip(self.player.tolist(), self.key, strict=True))}
            self.__dict__["_index_cache"] = found
        return found


def info_game(graph: StateGraph) -> InfoGame:
    """The information sets of a compiled game of hidden information, checked: a tree (each position
    reached by one line of play), two players, moves that depend on a player's view alone, perfect
    recall.  NotHiddenGame names two positions where a rule is broken."""
    if graph.views is None:
        raise NotHiddenGame(f"{graph.game} gives no sees/4: every player sees the whole position")
    if len(graph.players) != 2:
        raise NotHiddenGame(f"{graph.game} has {len(graph.players)} players: equilibria and exploitability "
                            "are for two players whose gains and losses cancel (zero-sum)")
    n = graph.size
    source = graph.source
    parents = np.full(n, -1, dtype=np.int64)
    parent_edge = np.full(n, -1, dtype=np.int64)
    targets = graph.target
    seen = np.zeros(n, dtype=np.int64)
    np.add.at(seen, targets, 1)
    twice = np.flatnonzero(seen > 1)
    if len(twice) or seen[0]:
        at = int(twice[0]) if len(twice) else 0
        raise NotHiddenGame(f"{graph.game}: position {graph.keys[at]!r} is reached by more than one line of play: "
                            "a game of hidden information keeps the moves that matter in its position (a tree), "
                            "so that what each player saw is known")
    parents[targets] = source
    parent_edge[targets] = np.arange(len(targets))
    if not (parents[1:] < np.arange(1, n)).all():           # compiled breadth first: parents first
        raise NotHiddenGame(f"{graph.game}: the tree is not in breadth-first order")
    mover, winner, views = graph.mover, graph.winner, graph.views
    names: dict[tuple[int, str], int] = {}
    set_player: list[int] = []
    set_key: list[str] = []
    set_moves: list[list[str]] = []
    set_first: list[int] = []
    node_set = np.full(n, -1, dtype=np.int64)
    move_text = graph.moves
    for h in np.flatnonzero((winner == ONGOING) & (mover != CHANCE)).tolist():
        p = int(mover[h])
        mine = [move_text[m] for m in graph.move[graph.start[h]:graph.start[h + 1]].tolist()]
        i = names.get((p, views[h]))
        if i is None:
            i = names[(p, views[h])] = len(set_key)
            set_player.append(p)
            set_key.append(views[h])
            set_moves.append(mine)
            set_first.append(h)
        elif sorted(mine) != sorted(set_moves[i]):
            first = set_first[i]
            raise NotHiddenGame(f"{graph.game}: {graph.players[p]} cannot tell {graph.keys[first]!r} from "
                                f"{graph.keys[h]!r} (it sees {views[h]!r} in both) yet its legal moves differ "
                                f"({' '.join(set_moves[i])} against {' '.join(mine)}): a player's moves may depend "
                                "only on what it sees")
        node_set[h] = i
    counts = np.array([len(m) for m in set_moves], dtype=np.int64)
    slot0 = np.zeros(len(set_key), dtype=np.int64)
    if len(counts):
        slot0[1:] = np.cumsum(counts)[:-1]
    slot_set = np.repeat(np.arange(len(set_key)), counts)
    edge_slot = np.full(len(targets), -1, dtype=np.int64)
    decision = np.flatnonzero(node_set >= 0)
    order = [{m: j for j, m in enumerate(ms)} for ms in set_moves]
    for h in decision.tolist():
        i = int(node_set[h])
        for e in range(int(graph.start[h]), int(graph.start[h + 1])):
            edge_slot[e] = slot0[i] + order[i][move_text[int(graph.move[e])]]
    # Each node's sequence of each player (the last slot that player played on the way), breadth first.
    seq = np.full((2, n), -1, dtype=np.int64)
    reach_chance = np.ones(n, dtype=np.float64)
    prob = graph.prob if graph.prob is not None else np.ones(len(targets))
    for h in range(1, n):
        e = int(parent_edge[h])
        g = int(parents[h])
        seq[:, h] = seq[:, g]
        slot = int(edge_slot[e])
        if slot >= 0:
            seq[int(mover[g]), h] = slot
        reach_chance[h] = reach_chance[g] * (prob[e] if mover[g] == CHANCE else 1.0)
    parent = np.full(len(set_key), -2, dtype=np.int64)
    for h in decision.tolist():
        i, p = int(node_set[h]), int(mover[h])
        if parent[i] == -2:
            parent[i] = seq[p, h]
        elif parent[i] != seq[p, h]:
            first = set_first[i]
            raise NotHiddenGame(f"{graph.game}: {graph.players[p]} forgets: it sees {views[h]!r} at {graph.keys[first]!r} "
                                f"and at {graph.keys[h]!r}, yet it saw or did other things before them (a view "
                                "recalls everything its player saw and did: perfect recall)")
    payoff = np.zeros(n, dtype=np.float64)
    ends = np.flatnonzero(winner != ONGOING)
    for z in ends.tolist():
        w = int(winner[z])
        payoff[z] = (graph.score[z] if w == SCORED and graph.score is not None else
                     0.0 if w == DRAW else 1.0 if w == 0 else -1.0)
    return InfoGame(graph, np.array(set_player, dtype=np.int8), set_key, set_moves, slot0, parent, node_set,
                    edge_slot, payoff, ends, reach_chance[ends], (seq[0, ends], seq[1, ends]), slot_set)


# --- realization plans ---------------------------------------------------------------------------

def realization(game: InfoGame, strategy: np.ndarray, player: int) -> np.ndarray:
    """Each slot's realization weight under a behaviour ``strategy`` (a probability a slot), for
    ``player``'s slots (the others' are 0): the product of its moves' probabilities on the way.
    Information sets are numbered as first met breadth first, so a parent sequence comes first."""
    x = np.zeros(game.slots, dtype=np.float64)
    for i in np.flatnonzero(game.player == player).tolist():
        base = 1.0 if game.parent[i] < 0 else x[game.parent[i]]
        a, b = int(game.slot0[i]), int(game.slot0[i]) + len(game.moves[i])
        x[a:b] = base * strategy[a:b]
    return x


def _at(x: np.ndarray, seq: np.ndarray) -> np.ndarray:
    """The realization weight of each end's sequence (1 for the empty one)."""
    return np.where(seq >= 0, x[np.maximum(seq, 0)], 1.0)


def expected_payoff(game: InfoGame, strategy: np.ndarray) -> float:
    """The first player's expected payoff when both play ``strategy``."""
    x0, x1 = realization(game, strategy, 0), realization(game, strategy, 1)
    return float(np.sum(game.end_chance * game.payoff[game.ends] * _at(x0, game.end_seq[0]) * _at(x1, game.end_seq[1])))


@dataclass
class BestResponse:
    """A best response of ``player`` to the other's strategy: its expected payoff (for ``player``)
    and its move in each of its information sets (a slot; the first move where nothing is at stake)."""

    player: int
    value: float
    choice: np.ndarray

    def as_strategy(self, game: InfoGame, into: np.ndarray) -> np.ndarray:
        """``into`` with this response's moves played with probability 1 in its player's sets."""
        out = into.copy()
        mine = np.flatnonzero(game.player == self.player)
        for i in mine.tolist():
            a = int(game.slot0[i])
            out[a:a + len(game.moves[i])] = 0.0
        out[self.choice[mine]] = 1.0
        return out


def _walk(game: InfoGame, strategy: np.ndarray, player: int, best: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``player``'s sequences valued against the other player's part of ``strategy``, from the last
    information set to the first (a set's moves lead only to later ones): in each of ``player``'s sets
    the best move (``best``) or ``strategy``'s own.  Returns each sequence's value (index slot + 1; 0
    the empty sequence's, the whole game's), each set's chosen slot, and each set's regret: what its
    best move would add over the move(s) played, weighted by how often chance and the other reach it."""
    other = 1 - player
    sign = 1.0 if player == 0 else -1.0
    xo = realization(game, strategy, other)
    weight = sign * game.end_chance * game.payoff[game.ends] * _at(xo, game.end_seq[other])
    v = np.zeros(game.slots + 1, dtype=np.float64)
    np.add.at(v, game.end_seq[player] + 1, weight)
    choice = np.full(game.sets, -1, dtype=np.int64)
    regret = np.zeros(game.sets, dtype=np.float64)
    for i in np.flatnonzero(game.player == player)[::-1].tolist():
        a = int(game.slot0[i])
        values = v[a + 1:a + 1 + len(game.moves[i])]
        top = int(np.argmax(values))
        choice[i] = a + top
        played = float(np.dot(values, strategy[a:a + len(values)]))
        regret[i] = float(values[top]) - played
        v[int(game.parent[i]) + 1] += values[top] if best else played
    return v, choice, regret


def best_response(game: InfoGame, strategy: np.ndarray, player: int) -> BestResponse:
    """``player``'s best response to the other player's part of ``strategy``: its payoff, exact to
    rounding (a walk of ``player``'s sequences)."""
    v, choice, _ = _walk(game, strategy, player, best=True)
    return BestResponse(player, float(v[0]), choice)


def set_regrets(game: InfoGame, strategy: np.ndarray, player: int) -> tuple[np.ndarray, np.ndarray]:
    """For each of ``player``'s information sets, what playing its best move there (and ``strategy``
    elsewhere) would gain against the other player's part of ``strategy`` (where ``player`` gives
    away most; 0 for the other player's sets), and that best move (a slot)."""
    _, choice, regret = _walk(game, strategy, player, best=False)
    return regret, choice


def exploitability(game: InfoGame, strategy: np.ndarray) -> tuple[float, float, float]:
    """OpenSpiel's exploitability of ``strategy`` (NashConv / 2) and the two best responses' payoffs
    (the first player's best against the second's strategy, the second's against the first's)."""
    b0 = best_response(game, strategy, 0).value
    b1 = best_response(game, strategy, 1).value
    return (b0 + b1) / 2.0, b0, b1


# --- the sequence-form linear program ------------------------------------------------------------

@dataclass
class Equilibrium:
    """An equilibrium: each slot's probability, the first player's value, and the profile's
    exploitability (0 up to the linear program's tolerance)."""

    strategy: np.ndarray
    value: float
    exploitability: float


def _constraints(game: InfoGame, player: int):
    """The sequence-form constraints of ``player``: rows the empty sequence and each of its
    information sets, columns the empty sequence and each of its slots (all slots numbered; the
    other player's columns are empty)."""
    from scipy import sparse

    mine = np.flatnonzero(game.player == player)
    rows, cols, vals = [0], [0], [1.0]
    for r, i in enumerate(mine.tolist(), start=1):
        rows.append(r)
        cols.append(int(game.parent[i]) + 1)
        vals.append(-1.0)
        for s in range(int(game.slot0[i]), int(game.slot0[i]) + len(game.moves[i])):
            rows.append(r)
            cols.append(s + 1)
            vals.append(1.0)
    shape = (len(mine) + 1, game.slots + 1)
    return sparse.csr_matrix((vals, (rows, cols)), shape=shape), mine


def _solve_side(game: InfoGame, player: int, payoff) -> tuple[np.ndarray, float]:
    """``player``'s equilibrium realization plan and its value, by the linear program
    max_x,q f'q s.t. F'q <= A'x (against every reply), E x = e, x >= 0 (Koller, Megiddo, von Stengel)."""
    from scipy import sparse
    from scipy.optimize import linprog

    other = 1 - player
    e_mat, _ = _constraints(game, player)
    f_mat, _ = _constraints(game, other)
    a_mat = payoff if player == 0 else -payoff.T        # rows: player's sequences, columns: the other's
    nx, nq = game.slots + 1, f_mat.shape[0]
    cost = np.concatenate([np.zeros(nx), -np.eye(1, nq, 0).ravel()])          # maximise q[0]
    upper = sparse.hstack([-a_mat.T, f_mat.T]).tocsr()                        # F'q - A'x <= 0
    equal = sparse.hstack([e_mat, sparse.csr_matrix((e_mat.shape[0], nq))]).tocsr()
    rhs_eq = np.zeros(e_mat.shape[0])
    rhs_eq[0] = 1.0
    bounds = [(0, None)] * nx + [(None, None)] * nq
    res = linprog(cost, A_ub=upper, b_ub=np.zeros(upper.shape[0]), A_eq=equal, b_eq=rhs_eq, bounds=bounds,
                  method="highs", options={"primal_feasibility_tolerance": 1e-10,
                                           "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:
        raise NotHiddenGame(f"{game.graph.game}: the linear program found no equilibrium ({res.message})")
    return np.asarray(res.x[:nx]), float(-res.fun)


def _payoff_matrix(game: InfoGame):
    """A[s0, s1]: the first player's payoff times chance, added over the ends each pair of
    sequences reaches (index slot + 1; 0 the empty sequence)."""
    from scipy import sparse

    n = game.slots + 1
    return sparse.csr_matrix((game.end_chance * game.payoff[game.ends],
                              (game.end_seq[0] + 1, game.end_seq[1] + 1)), shape=(n, n))


def behaviour(game: InfoGame, plan: np.ndarray, player: int, into: np.ndarray) -> None:
    """Fill ``into`` with the behaviour strategy of a realization plan (index slot + 1): each move's
    weight over its set's; uniform where the set is never reached."""
    for i in np.flatnonzero(game.player == player).tolist():
        a, k = int(game.slot0[i]), len(game.moves[i])
        w = np.maximum(plan[a + 1:a + 1 + k], 0.0)
        total = w.sum()
        into[a:a + k] = w / total if total > 1e-15 else 1.0 / k


def equilibrium(game: InfoGame) -> Equilibrium:
    """A Nash equilibrium by the sequence-form linear program, one for each player."""
    payoff = _payoff_matrix(game)
    strategy = np.zeros(game.slots, dtype=np.float64)
    plan0, value = _solve_side(game, 0, payoff)
    plan1, _ = _solve_side(game, 1, payoff)
    behaviour(game, plan0, 0, strategy)
    behaviour(game, plan1, 1, strategy)
    return Equilibrium(strategy, value, exploitability(game, strategy)[0])


def move_values(game: InfoGame, strategy: np.ndarray) -> np.ndarray:
    """Each slot's value for the player who moves there, when both play ``strategy``: its expected
    payoff given the information set is reached and the move is made (chance and the opponent's
    strategy weighing the positions the set holds); NaN where the set is never reached."""
    g = game.graph
    n = g.size
    sign = np.where(np.arange(2) == 0, 1.0, -1.0)
    prob = np.where(game.edge_slot >= 0, strategy[np.maximum(game.edge_slot, 0)],
                    g.prob if g.prob is not None else 1.0)
    value = game.payoff.copy()                           # the first player's, below each node
    for h in range(n - 1, -1, -1):
        a, b = int(g.start[h]), int(g.start[h + 1])
        if b > a:
            value[h] = float(np.dot(prob[a:b], value[g.target[a:b]]))
    out_num = np.zeros(game.slots)
    out_den = np.zeros(game.slots)
    cf = _counterfactual_reach(game, prob)
    for h in np.flatnonzero(game.node_set >= 0).tolist():
        p = int(g.mover[h])
        for e in range(int(g.start[h]), int(g.start[h + 1])):
            s = int(game.edge_slot[e])
            out_num[s] += cf[h] * sign[p] * value[int(g.target[e])]
            out_den[s] += cf[h]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(out_den > 0, out_num / np.where(out_den > 0, out_den, 1.0), np.nan)


def _counterfactual_reach(game: InfoGame, prob: np.ndarray) -> np.ndarray:
    """Each node's reach by chance and by the player who does not move there (its mover's own moves left out)."""
    g = game.graph
    n = g.size
    reach = np.ones((2, n), dtype=np.float64)        # reach[p, h]: every probability but p's own moves
    for h in range(n):
        m = int(g.mover[h])
        for e in range(int(g.start[h]), int(g.start[h + 1])):
            t = int(g.target[e])
            for p in (0, 1):
                reach[p, t] = reach[p, h] * (1.0 if m == p else prob[e])
    mover = np.where(g.mover <= 1, g.mover, 0).astype(np.int64)
    return reach[mover, np.arange(n)]


# --- CFR+ ----------------------------------------------------------------------------------------

@dataclass
class CFRState:
    """CFR+'s tables: each slot's regret (floored at 0) and weighted strategy sum, and the iterations done."""

    regret: np.ndarray
    total: np.ndarray
    iterations: int = 0

    @classmethod
    def fresh(cls, game: InfoGame) -> CFRState:
        return cls(np.zeros(game.slots), np.zeros(game.slots), 0)

    def average(self, game: InfoGame) -> np.ndarray:
        """The average strategy (each set's strategy sums, normalised; uniform where none)."""
        out = np.zeros(game.slots, dtype=np.float64)
        sums = np.bincount(game.slot_set, weights=self.total, minlength=game.sets)
        counts = np.array([len(m) for m in game.moves], dtype=np.float64)
        s = sums[game.slot_set]
        out[:] = np.where(s > 0, self.total / np.where(s > 0, s, 1.0), 1.0 / counts[game.slot_set])
        return out


def cfr_plus(game: InfoGame, state: CFRState, iterations: int,
             every: int = 0, report: Callable[[CFRState], bool] | None = None) -> CFRState:
    """Run ``iterations`` of CFR+ on ``state`` (changed in place and returned); every ``every``
    iterations ``report(state)`` is called, and a True answer stops the run there."""
    g = game.graph
    chance_prob = g.prob if g.prob is not None else np.ones(len(g.target))
    nmoves = np.array([len(m) for m in game.moves], dtype=np.int64)
    return _in_steps(state, iterations, every, report, lambda k: cfr_plus_iterations(
        g.start, g.target, g.mover.astype(np.int64), game.edge_slot, chance_prob, game.payoff, game.slot_set,
        game.slot0, nmoves, game.player.astype(np.int64), game.parent, state.regret, state.total,
        state.iterations, k))


def _in_steps(state: CFRState, iterations: int, every: int, report: Callable[[CFRState], bool] | None,
              run: Callable[[int], object]) -> CFRState:
    """``run(k)`` for ``iterations`` in all, ``every`` at a time (all at once for 0), the iterations
    counted on ``state`` and ``report(state)`` asked after each step: True stops the run there."""
    done = 0
    step = every if every > 0 else iterations
    while done < iterations:
        k = min(step, iterations - done)
        run(k)
        state.iterations += k
        done += k
        if report is not None and report(state):
            break
    return state


@njit(cache=True)
def cfr_plus_iterations(start, target, mover, edge_slot, chance_prob, payoff, slot_set, slot0, nmoves,
                        set_player, set_parent, regret, total, done, k):  # pragma: no cover  (numba)
    """``k`` iterations of CFR+ after ``done``: for each player in turn (alternating updates), the
    current strategy by regret matching+, the counterfactual values of a walk of the tree, regrets
    floored at 0, and the player's own realization added to ``total`` weighted by the iteration's
    number (linear averaging)."""
    n = len(start) - 1
    slots = len(regret)
    sets = len(slot0)
    sigma = np.empty(slots)
    reach = np.empty(n)
    value = np.empty(n)
    gain = np.empty(slots)
    own = np.empty(slots)
    for it in range(k):
        t = done + it + 1
        for p in range(2):
            for i in range(sets):                    # regret matching+
                a = slot0[i]
                m = nmoves[i]
                positive = 0.0
                for s in range(a, a + m):
                    positive += regret[s]
                for s in range(a, a + m):
                    sigma[s] = regret[s] / positive if positive > 0.0 else 1.0 / m
            reach[0] = 1.0                           # chance's and the other player's reach
            for h in range(n):
                mh = mover[h]
                for e in range(start[h], start[h + 1]):
                    c = target[e]
                    if mh == 3:
                        reach[c] = reach[h] * chance_prob[e]
                    elif mh == p:
                        reach[c] = reach[h]
                    else:
                        reach[c] = reach[h] * sigma[edge_slot[e]]
            sign = 1.0 if p == 0 else -1.0
            for h in range(n - 1, -1, -1):          # each node's value for p, leaves first
                a = start[h]
                b = start[h + 1]
                if a == b:
                    value[h] = sign * payoff[h]
                    continue
                v = 0.0
                mh = mover[h]
                for e in range(a, b):
                    q = chance_prob[e] if mh == 3 else sigma[edge_slot[e]]
                    v += q * value[target[e]]
                value[h] = v
            for s in range(slots):
                gain[s] = 0.0
            for h in range(n):
                if mover[h] != p or start[h] == start[h + 1]:
                    continue
                r = reach[h]
                if r == 0.0:
                    continue
                for e in range(start[h], start[h + 1]):
                    gain[edge_slot[e]] += r * (value[target[e]] - value[h])
            for i in range(sets):
                if set_player[i] != p:
                    continue
                base = 1.0 if set_parent[i] < 0 else own[set_parent[i]]
                for s in range(slot0[i], slot0[i] + nmoves[i]):
                    own[s] = base * sigma[s]
                    total[s] += t * own[s]
                    r = regret[s] + gain[s]
                    regret[s] = r if r > 0.0 else 0.0


# --- Monte Carlo CFR (external sampling) ----------------------------------------------------------

def external_sampling(game: InfoGame, state: CFRState, iterations: int, seed: int,
                      every: int = 0, report: Callable[[CFRState], bool] | None = None) -> CFRState:
    """Run ``iterations`` of external-sampling Monte Carlo CFR (Lanctot et al. 2009) on ``state``: each
    iteration walks, for each player in turn, every move of its own and one sampled move of chance and
    of the other player (regret matching; the other player's strategy added to its average where it
    is sampled).  An iteration visits a path's worth of the tree, not all of it.  ``seed`` and the
    iterations already done fix the samples: the same seed gives the same tables."""
    g = game.graph
    chance_prob = g.prob if g.prob is not None else np.ones(len(g.target))
    nmoves = np.array([len(m) for m in game.moves], dtype=np.int64)
    return _in_steps(state, iterations, every, report, lambda k: external_sampling_iterations(
        g.start, g.target, g.mover.astype(np.int64), game.edge_slot, chance_prob, game.payoff, game.slot0, nmoves,
        game.node_set, state.regret, state.total, (seed * 1_000_003 + state.iterations) % (2 ** 31), k))


@njit(cache=True)
def _positive_regret(regret, s0, m):  # pragma: no cover  (numba)
    """The positive part of the regrets of slots ``s0`` .. ``s0 + m - 1`` (one information set's), added."""
    positive = 0.0
    for s in range(s0, s0 + m):
        if regret[s] > 0.0:
            positive += regret[s]
    return positive


@njit(cache=True)
def _matched(r, positive, m):  # pragma: no cover  (numba)
    """Regret matching: a move's probability from its regret ``r`` and its set's ``positive`` regret
    (``m`` moves alike where none is positive)."""
    return (r if r > 0.0 else 0.0) / positive if positive > 0.0 else 1.0 / m


@njit(cache=True)
def external_sampling_iterations(start, target, mover, edge_slot, chance_prob, payoff, slot0, nmoves, node_set,
                                 regret, total, seed, k):  # pragma: no cover  (numba)
    """``k`` iterations of external-sampling MCCFR, the tree walked depth first with a stack of its own
    (each frame: a node and the next edge to walk, -1 once its edges are done)."""
    np.random.seed(seed)
    n = len(start) - 1
    node = np.empty(n, dtype=np.int64)
    next_edge = np.empty(n, dtype=np.int64)
    edge_value = np.zeros(len(target))
    for _ in range(k):
        for p in range(2):
            sign = 1.0 if p == 0 else -1.0
            depth = 0
            h = 0
            while True:
                # enter h: a leaf gives its value at once; p walks every edge; chance and the other player one
                if start[h] == start[h + 1]:
                    v = sign * payoff[h]
                else:
                    a = start[h]
                    b = start[h + 1]
                    mh = mover[h]
                    if mh == p:
                        e = a
                    else:
                        u = np.random.random()
                        e = b - 1
                        if mh == 3:
                            acc = 0.0
                            for x in range(a, b):
                                acc += chance_prob[x]
                                if u < acc:
                                    e = x
                                    break
                        else:
                            i = node_set[h]
                            positive = _positive_regret(regret, slot0[i], nmoves[i])
                            acc = 0.0
                            chosen = -1
                            for x in range(a, b):
                                s = edge_slot[x]
                                q = _matched(regret[s], positive, nmoves[i])
                                total[s] += q
                                acc += q
                                if chosen < 0 and u < acc:
                                    chosen = x
                            if chosen >= 0:
                                e = chosen
                    node[depth] = h
                    next_edge[depth] = e
                    depth += 1
                    h = target[e]
                    continue
                # h's value v is known: hand it to the frames above, finishing each whose edges are done
                while depth > 0:
                    d = depth - 1
                    ph = node[d]
                    e = next_edge[d]
                    edge_value[e] = v
                    if mover[ph] == p and e + 1 < start[ph + 1]:
                        next_edge[d] = e + 1
                        break
                    if mover[ph] == p:            # every edge walked: regrets, and the node's value
                        i = node_set[ph]
                        positive = _positive_regret(regret, slot0[i], nmoves[i])
                        v = 0.0
                        for x in range(start[ph], start[ph + 1]):
                            v += _matched(regret[edge_slot[x]], positive, nmoves[i]) * edge_value[x]
                        for x in range(start[ph], start[ph + 1]):
                            regret[edge_slot[x]] += edge_value[x] - v
                    depth -= 1                    # chance's and the other player's node: its sample's value
                if depth == 0:
                    break
                h = target[next_edge[depth - 1]]


# --- Q-learning on information sets ----------------------------------------------------------------

def greedy(game: InfoGame, q: np.ndarray) -> np.ndarray:
    """The strategy that plays, in each information set, the moves of the highest Q alike."""
    out = np.zeros(game.slots, dtype=np.float64)
    for i in range(game.sets):
        a, k = int(game.slot0[i]), len(game.moves[i])
        best = q[a:a + k] >= q[a:a + k].max() - 1e-12
        out[a:a + k] = best / best.sum()
    return out


@njit(cache=True)
def q_views_games(start, target, mover, edge_slot, chance_prob, payoff, node_set, slot0, nmoves, slot_set, q, visits,
                  games, seed, alpha, eps_start, eps_end, gamma, learns, random_other):  # pragma: no cover  (numba)
    """``games`` games of Q-learning on information sets (each player's state is its view): chance
    draws its outcomes by their probabilities, a learning player moves epsilon-greedily on Q
    (epsilon linear from ``eps_start`` to ``eps_end``), a player who does not learn (``learns``) at
    random when ``random_other``; after each game every learning player's moves are backed up from
    the last: Q := Q + a (target - Q), the target its payoff after its last move and gamma times the
    best Q of its next information set before it (a: ``alpha``, or 1/n where alpha is 0).  Returns
    each game's payoff to the first player."""
    np.random.seed(seed)
    out = np.empty(games)
    trail = np.empty((2, 256), dtype=np.int64)
    for g in range(games):
        eps = eps_start + (eps_end - eps_start) * g / max(1, games - 1)
        length = np.zeros(2, dtype=np.int64)
        h = 0
        while start[h] < start[h + 1]:
            a = start[h]
            b = start[h + 1]
            if mover[h] == 3:
                u = np.random.random()
                e = a
                acc = chance_prob[a]
                while acc < u and e < b - 1:
                    e += 1
                    acc += chance_prob[e]
            else:
                p = mover[h]
                if (learns[p] and np.random.random() < eps) or (not learns[p] and random_other):
                    e = a + np.random.randint(b - a)
                elif learns[p] or not random_other:
                    best = -1e300
                    ties = 0
                    e = a
                    for f in range(a, b):
                        v = q[edge_slot[f]]
                        if v > best + 1e-12:
                            best = v
                            e = f
                            ties = 1
                        elif v > best - 1e-12:
                            ties += 1
                            if np.random.randint(ties) == 0:
                                e = f
                if length[p] < 256:
                    trail[p, length[p]] = edge_slot[e]
                    length[p] += 1
            h = target[e]
        out[g] = payoff[h]
        for p in range(2):
            if not learns[p]:
                continue
            r = payoff[h] if p == 0 else -payoff[h]
            for k in range(length[p] - 1, -1, -1):
                s = trail[p, k]
                if k == length[p] - 1:
                    goal = r
                else:
                    i = slot_set[trail[p, k + 1]]
                    top = -1e300
                    for t in range(slot0[i], slot0[i] + nmoves[i]):
                        if q[t] > top:
                            top = q[t]
                    goal = gamma * top
                visits[s] += 1
                step = alpha if alpha > 0.0 else 1.0 / visits[s]
                q[s] += step * (goal - q[s])
    return out
