"""Exact values of a game with chance nodes, its graph's cycles included.

A two-player game's value is the expected result for the first player
(+1 a win, 0 a draw, -1 a loss): the first player takes the move of
highest value, the second the lowest, and a chance node the mean of its
outcomes weighted by their probabilities (expectimax).  A line of play
that never ends is a draw (worth 0); in a game of score it scores what
its moves score, and best play that scores without end is refused
(``Unsolvable``).

The graph is cut into its strongly connected parts (Tarjan's algorithm,
which finds each part after every part it leads to), and each part is
solved in that order, its successors outside it already exact.  A part
of one position without a loop to itself takes one step.  A cyclic part
(in Pig both players may roll a 1 for ever) is solved to its fixed point
by policy iteration: sweeps of value iteration (Gauss-Seidel, until no
value moves by more than 1e-9, at most 500) give each player a move; the part's values under those
moves are then solved exactly as a linear system (Gaussian elimination
in the GTH form, whose pivots are sums of the chances of leaving a
position, so that a cycle left once in 10^14 tosses is solved as exactly
as one left every other toss); a player with a better move by those
values takes it, and the part is solved again, until none has one.  A
part of more than ``DENSE_LIMIT`` positions is left to value iteration
alone, which stops only when the error bounded by its sweeps' rate of
contraction is within the tolerance, and refuses (``Unsolvable``) when
it cannot settle.

Where a game can be drawn (a drawn end, or positions its players can
keep from ending), a value is not a chance of winning: ``solve`` then
also finds each position's chance of a win for the first player when
both play their best moves (each picking among them at random), from
which the chances of a draw and of a loss follow.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from educable.learners.errors import Unsolvable
from educable.learners.graph import CHANCE, DRAW, ONGOING, StateGraph
from educable.learners.jit import njit

TOLERANCE = 1e-13           # value iteration's stopping change (and, on a part too large to solve, its error bound)
MAX_SWEEPS = 1_000_000      # of one part left to value iteration: past it, the part cannot settle
PRESWEEPS = 500             # of value iteration on a part before its policy is solved exactly, ...
PRESWEEP_CHANGE = 1e-9      # ... or fewer, once a sweep changes no value by more (the solve makes it exact)
DENSE_LIMIT = 2500          # positions of the largest part solved exactly (its elimination holds a square of them)
MAX_IMPROVEMENTS = 200      # policy improvements of one part (two players switching at once may circle)
SWITCH_MARGIN = 1e-12       # a move is better than the one played when it is by more than this (relative)
FAILED_TO_SETTLE, UNBOUNDED = 1, 2      # what solving a part may end in, besides success


@dataclass
class ChanceSolution:
    """Every node's value for the first player, and what solving took."""

    value: np.ndarray           # float64, a node's expected result for the first player
    parts: int                  # strongly connected parts
    largest: int                # positions in the largest part
    cyclic_parts: int           # parts of more than one position (or one with a loop)
    sweeps: int                 # sweeps summed over the cyclic parts
    most_sweeps: int            # of the part that took the most
    tolerance: float
    exact_parts: int = 0        # cyclic parts solved exactly (policy iteration); the rest by value iteration alone
    improvements: int = 0       # policy improvements summed over those parts
    win: np.ndarray | None = field(default=None, repr=False)   # where the game can be drawn: the first
    #                             player's chance of winning from each node with best play (None elsewhere)

    @property
    def drawable(self) -> bool:
        """Whether the game can end in a draw or be kept from ending (``can_draw``)."""
        return self.win is not None

    def win_probability(self, graph: StateGraph, node: int = 0) -> float | None:
        """The first player's chance of winning from ``node`` with best play; None in a game of score."""
        if graph.scored:
            return None
        if self.win is not None:
            return float(self.win[node])
        return (1.0 + float(self.value[node])) / 2.0

    def draw_probability(self, graph: StateGraph, node: int = 0) -> float | None:
        """The chance of a draw from ``node`` with best play (a line that never ends included): 0 where
        the game cannot be drawn, None in a game of score."""
        win = self.win_probability(graph, node)
        if win is None:
            return None
        if self.win is None:
            return 0.0
        loss = win - float(self.value[node])
        return min(1.0, max(0.0, 1.0 - win - loss))


MAX, MIN, MEAN, OVER = 0, 1, 2, 3      # what a node's value is of its successors' (OVER: its result)


def solve(graph: StateGraph, tolerance: float = TOLERANCE) -> ChanceSolution:
    """Expectimax values of every node, for the first player (see the module); in a game of score,
    each node's expected score from there on with best play (its moves' points and its end's).
    Found once a graph at the default tolerance (kept as ``graph.solution``, which a graph read
    from the knowledge base brings with it)."""
    if tolerance == TOLERANCE and graph.solution is not None:
        return graph.solution
    kind = np.where(graph.mover == CHANCE, MEAN, np.where(graph.mover == 0, MAX, MIN))
    found = _values(graph, kind, _edge_probabilities(graph), _terminal(graph), tolerance)
    if not graph.scored and can_draw(graph):
        best = policy_of(graph, best_moves(graph, found.value))
        prob = np.where(graph.mover[graph.source] == CHANCE, _edge_probabilities(graph), best)
        found.win = _values(graph, np.full(graph.size, MEAN), prob, _results(graph, 0), tolerance).value
    if tolerance == TOLERANCE:
        graph.solution = found
    return found


def expected_score(graph: StateGraph, policy: np.ndarray, tolerance: float = TOLERANCE) -> ChanceSolution:
    """A game of score: every node's expected score from there on when the player plays ``policy``
    (each edge's probability at its node, as ``policy_of`` gives it)."""
    prob = np.where(graph.mover[graph.source] == CHANCE, _edge_probabilities(graph), policy)
    return _values(graph, np.full(graph.size, MEAN), prob, _terminal(graph), tolerance)


def against_best_response(graph: StateGraph, player: int, policy: np.ndarray,
                          tolerance: float = TOLERANCE) -> ChanceSolution:
    """The values, for the first player, when ``player`` plays ``policy`` (each edge's probability at
    its node, as ``policy_of`` gives it) and the other player answers as well as it can."""
    other = MIN if player == 0 else MAX
    kind = np.where((graph.mover == CHANCE) | (graph.mover == player), MEAN, other)
    prob = np.where(graph.mover[graph.source] == player, policy, _edge_probabilities(graph))
    return _values(graph, kind, prob, _results(graph, 0) - _results(graph, 1), tolerance)


def outcome_probabilities(graph: StateGraph, first: np.ndarray, second: np.ndarray,
                          tolerance: float = TOLERANCE) -> dict[str, float]:
    """The chances of each result when the first player plays the policy ``first`` and the second
    ``second``: the first player's win, the second's, and a draw (play that never ends included)."""
    mover = graph.mover[graph.source]
    prob = np.where(mover == 0, first, np.where(mover == 1, second, _edge_probabilities(graph)))
    kind = np.full(graph.size, MEAN)
    wins = [float(_values(graph, kind, prob, _results(graph, p), tolerance).value[0]) for p in (0, 1)]
    first_name, second_name = graph.players
    return {first_name: wins[0], second_name: wins[1], "draw": max(0.0, 1.0 - wins[0] - wins[1])}


def policy_of(graph: StateGraph, chosen: np.ndarray) -> np.ndarray:
    """Each edge's probability at its node for a player who picks uniformly among the edges of the
    boolean mask ``chosen`` (a node none of whose edges is chosen: all of them)."""
    source = graph.source
    chosen = chosen.astype(bool)
    picked = np.bincount(source[chosen], minlength=graph.size)
    degree = np.diff(graph.start)
    none = picked[source] == 0
    return np.where(none, 1.0 / degree[source], np.where(chosen, 1.0 / np.maximum(picked[source], 1), 0.0))


def policy_of_support(graph: StateGraph, support: list[list[int]] | np.ndarray) -> np.ndarray:
    """policy_of for a support as learners.exact gives one (a list of each state's edges, an edge
    listed twice twice as likely, or a boolean mask)."""
    if isinstance(support, np.ndarray):
        return policy_of(graph, support)
    counts = np.bincount(np.fromiter((e for edges in support for e in edges), dtype=np.int64),
                         minlength=len(graph.target)).astype(np.float64)
    per_node = np.bincount(graph.source, weights=counts, minlength=graph.size)
    degree = np.diff(graph.start)
    source = graph.source
    return np.where(per_node[source] > 0, counts / np.maximum(per_node[source], 1), 1.0 / degree[source])


def best_moves(graph: StateGraph, value: np.ndarray, tolerance: float = 1e-9) -> np.ndarray:
    """The edges that keep a node's value for its mover (within ``tolerance``), as a mask: a perfect
    player of a game of chance picks among them."""
    after = move_values(graph, value)
    best = np.where(graph.mover == 0, np.maximum.reduceat(after, graph.start[:-1].clip(max=len(after) - 1)),
                    np.minimum.reduceat(after, graph.start[:-1].clip(max=len(after) - 1)))
    return np.abs(after - best[graph.source]) <= tolerance


def move_values(graph: StateGraph, value: np.ndarray) -> np.ndarray:
    """Each edge's value for the mover: the value of where it leads, and in a game of score the
    points the move scores on the way."""
    after = value[graph.target]
    return after + graph.reward if graph.reward is not None else after


def _terminal(graph: StateGraph) -> np.ndarray:
    """Each end's value: the first player's result (+1, 0, -1), or a game of score's end points."""
    if graph.score is not None:
        return graph.score
    return _results(graph, 0) - _results(graph, 1)


def _results(graph: StateGraph, player: int) -> np.ndarray:
    """1.0 where ``player`` has won, else 0."""
    return (graph.winner == player).astype(np.float64)


def _edge_probabilities(graph: StateGraph) -> np.ndarray:
    return graph.prob if graph.prob is not None else np.ones(len(graph.target), dtype=np.float64)


def _values(graph: StateGraph, kind: np.ndarray, prob: np.ndarray, terminal: np.ndarray,
            tolerance: float) -> ChanceSolution:
    """Every node's value: OVER nodes keep ``terminal``, the others back their successors up as
    ``kind`` says, part by part (see the module)."""
    kind = np.where(graph.winner != ONGOING, OVER, kind).astype(np.int8)
    reward = graph.reward if graph.reward is not None else np.zeros(0, dtype=np.float64)     # none: no points
    order, part_start = _strong_parts(graph.size, graph.start, graph.target)
    value = terminal.astype(np.float64).copy()
    stats = np.zeros(5, dtype=np.int64)
    status, at = _solve_parts(order, part_start, graph.start, graph.target, prob.astype(np.float64), reward, kind,
                              value, tolerance, MAX_SWEEPS, DENSE_LIMIT, stats)
    if status == UNBOUNDED:
        raise Unsolvable(f"{graph.game}: the expected score is unbounded: best play never ends "
                         f"(it scores for ever from {graph.keys[at]})")
    if status == FAILED_TO_SETTLE:
        raise Unsolvable(f"{graph.game}: the positions that come back to {graph.keys[at]} cannot be solved "
                         f"exactly (too many, or their players' best moves do not settle) and value iteration "
                         f"cannot bound their error within {tolerance:g} in {MAX_SWEEPS:,} sweeps")
    sizes = np.diff(part_start)
    return ChanceSolution(value, len(sizes), int(sizes.max()) if len(sizes) else 0, int(stats[0]),
                          int(stats[1]), int(stats[2]), tolerance, int(stats[3]), int(stats[4]))


def can_draw(graph: StateGraph) -> bool:
    """Whether some play of the game is won by neither player: an end that is a draw, or positions its
    players can keep from ending (a set of positions in which each player has a move that stays and
    every outcome of chance stays: what is left of the positions not over once those that cannot
    stay are taken away, one by one)."""
    if (graph.winner == DRAW).any():
        return True
    return bool(_trap(graph.start, graph.target, _edge_probabilities(graph), graph.mover == CHANCE,
                      graph.winner == ONGOING).any())


@njit(cache=True)
def _trap(start, target, prob, chance, live):
    """The largest set of ``live`` nodes that play can stay in for ever (see can_draw), as a mask."""
    n = len(start) - 1
    inside = live.copy()
    into = np.zeros(n + 1, dtype=np.int64)            # the edges into each node, by their source
    for e in range(len(target)):
        into[target[e] + 1] += 1
    for v in range(n):
        into[v + 1] += into[v]
    fill = into[:-1].copy()
    edge_from = np.empty(len(target), dtype=np.int64)
    by_target = np.empty(len(target), dtype=np.int64)
    for v in range(n):
        for e in range(start[v], start[v + 1]):
            t = target[e]
            edge_from[fill[t]] = v
            by_target[fill[t]] = e
            fill[t] += 1
    staying = np.zeros(n, dtype=np.int64)             # a player's moves that stay
    queue = np.empty(n, dtype=np.int64)
    queued = np.zeros(n, dtype=np.bool_)
    tail = 0
    for v in range(n):
        if not inside[v]:
            continue
        out = False
        for e in range(start[v], start[v + 1]):
            if inside[target[e]]:
                staying[v] += 1
            elif not chance[v] or prob[e] > 0.0:
                out = True
        if (chance[v] and out) or (not chance[v] and staying[v] == 0):
            queue[tail] = v
            tail += 1
            queued[v] = True
    head = 0
    while head < tail:
        u = queue[head]
        head += 1
        inside[u] = False
        for i in range(into[u], into[u + 1]):
            p = edge_from[i]
            if not inside[p] or queued[p]:
                continue
            staying[p] -= 1
            if (chance[p] and prob[by_target[i]] > 0.0) or (not chance[p] and staying[p] == 0):
                queue[tail] = p
                tail += 1
                queued[p] = True
    return inside


@njit(cache=True)
def _strong_parts(n, start, target):
    """Tarjan's strongly connected parts, without recursion: ``order[part_start[p]:part_start[p+1]]``
    are part p's nodes, and every part comes after each part it leads to."""
    index = np.full(n, -1, dtype=np.int64)
    low = np.zeros(n, dtype=np.int64)
    on_stack = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    sp = 0
    call_node = np.empty(n, dtype=np.int64)
    call_edge = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    filled = 0
    part_start = np.empty(n + 1, dtype=np.int64)
    parts = 0
    part_start[0] = 0
    counter = 0
    for root in range(n):
        if index[root] != -1:
            continue
        depth = -1
        t = root
        push = True                         # t is met for the first time: number it, stack it, descend
        while True:
            if push:
                index[t] = counter
                low[t] = counter
                counter += 1
                stack[sp] = t
                sp += 1
                on_stack[t] = True
                depth += 1
                call_node[depth] = t
                call_edge[depth] = start[t]
                push = False
            if depth < 0:
                break
            v = call_node[depth]
            e = call_edge[depth]
            if e < start[v + 1]:
                call_edge[depth] = e + 1
                t = target[e]
                if index[t] == -1:
                    push = True
                elif on_stack[t] and index[t] < low[v]:
                    low[v] = index[t]
            else:
                if low[v] == index[v]:
                    while True:
                        sp -= 1
                        u = stack[sp]
                        on_stack[u] = False
                        order[filled] = u
                        filled += 1
                        if u == v:
                            break
                    parts += 1
                    part_start[parts] = filled
                depth -= 1
                if depth >= 0:
                    p = call_node[depth]
                    if low[v] < low[p]:
                        low[p] = low[v]
    return order, part_start[:parts + 1].copy()


@njit(cache=True)
def _solve_parts(order, part_start, start, target, prob, reward, kind, value, tol, max_sweeps, dense_limit, stats):
    """Solve each part in order (see the module).  Returns (0, -1) when every part is solved, else
    (FAILED_TO_SETTLE or UNBOUNDED, the part's first node).  stats: cyclic parts, sweeps, most sweeps,
    parts solved exactly, policy improvements, the largest error bound of a part left to value iteration
    (as its bits: float64 viewed as int64 is not needed, so kept as 1e-18 units, capped)."""
    n = len(start) - 1
    scored = len(reward) > 0
    local = np.full(n, -1, dtype=np.int64)
    choice = np.full(n, -1, dtype=np.int64)
    largest = 0
    for p in range(len(part_start) - 1):
        m = part_start[p + 1] - part_start[p]
        if m <= dense_limit and m > largest:
            largest = m
    mat = np.zeros((largest, largest))
    present = np.zeros((largest, largest), dtype=np.bool_)
    row_cols = np.empty((largest, largest), dtype=np.int32)
    row_len = np.zeros(largest, dtype=np.int64)
    col_rows = np.empty((largest, largest), dtype=np.int32)
    col_len = np.zeros(largest, dtype=np.int64)
    const = np.zeros(largest)
    leave = np.zeros(largest)
    spin = np.zeros(largest)
    pivot = np.zeros(largest)
    reach = np.zeros(largest, dtype=np.bool_)
    queue = np.empty(largest, dtype=np.int64)
    for p in range(len(part_start) - 1):
        a, b = part_start[p], part_start[p + 1]
        cyclic = b - a > 1
        if not cyclic:
            v = order[a]
            for e in range(start[v], start[v + 1]):
                if target[e] == v:
                    cyclic = True                   # a loop to itself
        if cyclic:
            stats[0] += 1
        exact = b - a <= dense_limit
        budget = 1 if not cyclic else PRESWEEPS if exact else max_sweeps
        sweeps = 0
        change = 0.0
        last = 0.0
        bound = np.inf
        while sweeps < budget:
            sweeps += 1
            last = change
            change = 0.0
            for i in range(a, b):
                # the backup written out here, each kind its own loop and no reward added where there is
                # none: the sweeps of Pig's cyclic parts run it half a billion times, and a function for
                # it (even inlined) or a reward of 0 added each time took 3-5 times as long
                v = order[i]
                k = kind[v]
                if k == 3:
                    continue
                e0, e1 = start[v], start[v + 1]
                if k == 2:
                    x = 0.0
                    if scored:
                        for e in range(e0, e1):
                            x += prob[e] * (reward[e] + value[target[e]])
                    else:
                        for e in range(e0, e1):
                            x += prob[e] * value[target[e]]
                elif scored:
                    x = reward[e0] + value[target[e0]]
                    for e in range(e0 + 1, e1):
                        y = reward[e] + value[target[e]]
                        if (k == 0 and y > x) or (k == 1 and y < x):
                            x = y
                elif k == 0:
                    x = value[target[e0]]
                    for e in range(e0 + 1, e1):
                        y = value[target[e]]
                        if y > x:
                            x = y
                else:
                    x = value[target[e0]]
                    for e in range(e0 + 1, e1):
                        y = value[target[e]]
                        if y < x:
                            x = y
                d = abs(x - value[v])
                if d > change:
                    change = d
                value[v] = x
            if not cyclic:
                break
            if not exact and sweeps > 2 and last > 0.0:
                ratio = change / last               # the sweeps' rate of contraction, as last seen
                if ratio < 1.0:
                    bound = change * ratio / (1.0 - ratio)
            if (exact and change <= PRESWEEP_CHANGE) or (change <= tol and bound <= tol):
                break
        if not cyclic:
            continue
        stats[1] += sweeps
        if sweeps > stats[2]:
            stats[2] = sweeps
        if not exact:
            if change > tol or bound > tol:
                return FAILED_TO_SETTLE, order[a]
            continue
        for i in range(a, b):
            local[order[i]] = i - a
        for i in range(a, b):                       # each player's move: the best as value iteration left it
            v = order[i]
            if kind[v] <= 1:
                choice[v] = _best_edge(v, start, target, reward, kind, value, scored, -1)
        rounds = 0
        while True:
            status = _evaluate(a, b, order, start, target, prob, reward, kind, value, scored, local, choice,
                               mat, present, row_cols, row_len, col_rows, col_len, const, leave, spin, pivot,
                               reach, queue)
            if status != 0:
                for i in range(a, b):
                    local[order[i]] = -1
                return status, order[a]
            switched = False
            for i in range(a, b):                   # improve: a strictly better move for its player
                v = order[i]
                if kind[v] <= 1:
                    e = _best_edge(v, start, target, reward, kind, value, scored, choice[v])
                    if e != choice[v]:
                        choice[v] = e
                        switched = True
            if not switched:
                break
            rounds += 1
            stats[4] += 1
            if rounds > MAX_IMPROVEMENTS:
                for i in range(a, b):
                    local[order[i]] = -1
                return FAILED_TO_SETTLE, order[a]
        for i in range(a, b):
            local[order[i]] = -1
        stats[3] += 1
    return 0, -1


@njit(cache=True)
def _best_edge(v, start, target, reward, kind, value, scored, current):
    """A player's best edge at v by ``value``: ``current`` unless another is better by more than a
    rounding error (so that improving a policy ends), else the first best."""
    best_e = current
    best = 0.0
    if current >= 0:
        best = value[target[current]] + (reward[current] if scored else 0.0)
    for e in range(start[v], start[v + 1]):
        y = value[target[e]] + (reward[e] if scored else 0.0)
        if best_e < 0:
            best_e, best = e, y
            continue
        margin = SWITCH_MARGIN * max(1.0, abs(best))
        if (kind[v] == 0 and y > best + margin) or (kind[v] == 1 and y < best - margin):
            best_e, best = e, y
    return best_e


@njit(cache=True)
def _link(i, j, present, row_cols, row_len, col_rows, col_len):
    """Note that the part's matrix has an entry at (i, j): in row i's columns and column j's rows."""
    if not present[i, j]:
        present[i, j] = True
        row_cols[i, row_len[i]] = j
        row_len[i] += 1
        col_rows[j, col_len[j]] = i
        col_len[j] += 1


@njit(cache=True)
def _evaluate(a, b, order, start, target, prob, reward, kind, value, scored, local, choice,
              mat, present, row_cols, row_len, col_rows, col_len, const, leave, spin, pivot, reach, queue):
    """The exact values of part order[a:b] when each player plays its ``choice`` (chance and fixed
    policies their probabilities), written into ``value``: the part as a linear system, solved by
    Gaussian elimination in the GTH form (Grassmann, Taksar and Heyman 1985), whose pivots are sums
    of probabilities of leaving a node, never differences, so that a chance of 1e-14 of leaving a
    cycle is as exact as one of 1/2.  A node from which play under this policy never leaves the part
    is worth 0 (a line that never ends is a draw); in a game of score, it is UNBOUNDED if points are
    scored on the way (0 if none).  Returns 0 or UNBOUNDED."""
    m = b - a
    for i in range(m):
        const[i] = 0.0
        leave[i] = 0.0
        spin[i] = 0.0
        row_len[i] = 0
        col_len[i] = 0
        reach[i] = False
    for i in range(m):
        v = order[a + i]
        if kind[v] <= 1:
            e0, e1 = choice[v], choice[v] + 1
        else:
            e0, e1 = start[v], start[v + 1]
        for e in range(e0, e1):
            w = 1.0 if kind[v] <= 1 else prob[e]
            if w == 0.0:
                continue
            r = reward[e] if scored else 0.0
            t = target[e]
            j = local[t]
            const[i] += w * r
            spin[i] += w * abs(r)
            if j < 0:
                leave[i] += w
                const[i] += w * value[t]
            else:
                _link(i, j, present, row_cols, row_len, col_rows, col_len)
                mat[i, j] += w
    head, tail = 0, 0                               # the nodes that can leave the part: backward from the exits
    for i in range(m):
        if leave[i] > 0.0:
            reach[i] = True
            queue[tail] = i
            tail += 1
    while head < tail:
        j = queue[head]
        head += 1
        for c in range(col_len[j]):
            i = col_rows[j, c]
            if not reach[i]:
                reach[i] = True
                queue[tail] = i
                tail += 1
    status = 0
    for i in range(m):
        if not reach[i]:
            value[order[a + i]] = 0.0
            if spin[i] > 0.0:
                status = UNBOUNDED
    if status == 0:
        for i in range(m):                          # a move into a part that never ends leaves at value 0
            if reach[i]:
                for c in range(row_len[i]):
                    j = row_cols[i, c]
                    if not reach[j]:
                        leave[i] += mat[i, j]
                        mat[i, j] = 0.0
        for k in range(m):                          # eliminate k: the others' equations without it
            if not reach[k]:
                continue
            d = leave[k]
            for c in range(row_len[k]):
                j = row_cols[k, c]
                if j > k and reach[j]:
                    d += mat[k, j]
            pivot[k] = d
            if d <= 0.0:                            # no way out left: only by underflow
                status = UNBOUNDED if scored else 0
                d = 1.0
                pivot[k] = 1.0
            for c in range(col_len[k]):
                i = col_rows[k, c]
                if i <= k or not reach[i]:
                    continue
                f = mat[i, k] / d
                if f == 0.0:
                    continue
                mat[i, k] = 0.0
                const[i] += f * const[k]
                leave[i] += f * leave[k]
                for cc in range(row_len[k]):
                    j = row_cols[k, cc]
                    if j <= k or not reach[j]:
                        continue
                    _link(i, j, present, row_cols, row_len, col_rows, col_len)
                    mat[i, j] += f * mat[k, j]
        for k in range(m - 1, -1, -1):              # back substitution, the last eliminated first
            if not reach[k]:
                continue
            x = const[k]
            for c in range(row_len[k]):
                j = row_cols[k, c]
                if j > k and reach[j]:
                    x += mat[k, j] * value[order[a + j]]
            value[order[a + k]] = x / pivot[k]
    for i in range(m):                              # clean for the next part
        for c in range(row_len[i]):
            j = row_cols[i, c]
            mat[i, j] = 0.0
            present[i, j] = False
    return status


def judged_side(graph: StateGraph, player: int, policy: np.ndarray, solved: ChanceSolution) -> dict:
    """One side of an agent's exact judgement on a game of chance: its chance of winning against a best
    response (its expected result where there are draws), the game's value for that side, whether they
    are equal (perfect), and its chance of winning against a uniformly random opponent."""
    sign = 1.0 if player == 0 else -1.0
    draws = solved.drawable

    def measure(v: float) -> float:
        return v if draws else (1.0 + v) / 2.0
    got = sign * float(against_best_response(graph, player, policy).value[0]) + 0.0     # never -0.0
    best = sign * float(solved.value[0]) + 0.0
    uniform = policy_of(graph, np.ones(len(graph.target), dtype=bool))
    pair = (policy, uniform) if player == 0 else (uniform, policy)
    vs_random = outcome_probabilities(graph, *pair)[graph.players[player]]
    shown = f"{measure(got):.2%} won" if not draws else f"{got:+.4f} expected"
    return {"guaranteed": shown, "perfect": abs(got - best) <= 1e-9, "subgame_perfect": abs(got - best) <= 1e-9,
            "mistakes": 0, "against_best_response": measure(got), "game_value": measure(best),
            "win_vs_random": round(vs_random, 6)}


def checkpoint(graph: StateGraph, chosen: np.ndarray, games: int, solved: ChanceSolution) -> dict:
    """A learning curve's point on a game of chance after ``games``: each side judged (judged_side) for
    an agent that picks among the edges ``chosen`` marks."""
    policy = policy_of(graph, chosen)
    return {"games": games, **{label: judged_side(graph, p, policy, solved)
                               for label, p in (("as_first", 0), ("as_second", 1))}}


def score_judgement(graph: StateGraph, policy: np.ndarray, solved: ChanceSolution) -> dict:
    """A game of score: the exact expected score of a player who plays ``policy`` (policy_of's form),
    beside the best (``solved``'s), and whether it is the best."""
    got = float(expected_score(graph, policy).value[0])
    best = float(solved.value[0])
    return {"expected_score": got, "best_expected_score": best, "perfect": abs(best - got) <= 1e-9 * max(1.0, abs(best))}


def score_checkpoint(graph: StateGraph, chosen: np.ndarray, games: int, solved: ChanceSolution) -> dict:
    """A learning curve's point on a game of score after ``games``: score_judgement of an agent that
    picks among the edges ``chosen`` marks."""
    return {"games": games, **score_judgement(graph, policy_of(graph, chosen), solved)}
