"""Gaia's "Ejemplos de Vida": a population of rule-set players evolved by a genetic algorithm.

One cycle: the agents play in pairs (``pair_games`` games a pair, the first
move alternating); a win gives +1 to the agent and to every rule it used
in that game, a loss -1, a draw nothing; the agents are ranked by weight
(this cycle's points) and the best breed into the places of the rest.  All
games of a cycle run together as numpy arrays over the state graph.
"""
from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from educable.learners.ga_exact import ExactJudge
from educable.learners.graph import DRAW
from educable.learners.options import option
from educable.learners.rulespace import RuleSpace

# Which ranks breed and which are replaced: (best fraction, worst fraction that also breeds).
SELECTIONS = {"half": (0.5, 0.0), "top10": (0.1, 0.0), "top20": (0.2, 0.0), "top40-worst10": (0.4, 0.1)}
ORDERS = ("weight", "random")
# How a cycle measures the agents: Gaia's games in pairs (the default), a round robin within the
# population, games against a fixed opponent (random; minimax, a perfect player; champion, the best
# agent of the previous cycle), or exactly on the state graph (learners.ga_exact).
FITNESS = ("pairs", "round-robin", "random", "minimax", "champion", "exact")


MAX_AGENTS = 10_000
MAX_RULES = 100_000
MAX_PRIORITIES = 100
MAX_PAIR_GAMES = 10_000
MAX_AGENT_RULES = 10_000_000     # about 100 MB of conditions on a 9-cell board


@dataclass
class GAOptions:
    """Every option of Gaia's "Ejemplos de Vida", with its example as defaults where it gives one."""

    agents: int = option(40, "Population size (even: the agents play in pairs).", low=2, high=MAX_AGENTS)
    rules: int = option(100, "Rules per agent.", low=1, high=MAX_RULES)
    priorities: int = option(4, "Rule priorities 0..N-1.", low=1, high=MAX_PRIORITIES)
    pair_games: int = option(5, "Games each pair plays a cycle.", low=1, high=MAX_PAIR_GAMES)
    mutation: float = option(0.01, "Chance a child's rule is a new random rule.", low=0.0, high=1.0)
    burst: float | None = option(None, "Accumulated mutations: the chance of another right after a mutated rule "
                                       "(default off).", low=0.0, high=1.0)
    selection: str = option("half", "Who breeds: half, the best 50% over the rest; top10, the best 10% over 90%; "
                                    "top20, the best 20% over 80%; top40-worst10, the best 40% and the worst 10% "
                                    "over the middle 50%.",
                            choices=tuple(SELECTIONS))
    parents: str = option("weight", "Couple parents in weight order or at random.", choices=ORDERS)
    pairing: str = option("weight", "Pair players in weight order or at random.", choices=ORDERS)
    identical: bool = option(False, "Two identical parents give fully mutated children.")
    sharing: float = option(0.0, "Fitness sharing: this many points off for each other agent holding the same rule "
                                 "in at least a share --similar of places (0: off).", low=0.0)
    similar: float = option(0.9, "Share of equal rules that makes two agents very similar.", low=0.0, high=1.0)
    shared: bool = option(False, "Shared knowledge: a used rule's points go to every equal rule in the population.")
    nudge: float = option(0.0, "Biased generation ('empujoncito'): a new rule is, with this chance, two of mine (or "
                               "theirs) and an empty cell in a line, the action that cell (games with line/2).",
                             low=0.0, high=1.0)
    turn_rules: float = option(0.0, "Ours: a new rule names, with this chance, whose turn it must be (white:…), so a "
                                    "pawn game can have rules for one side.", low=0.0, high=1.0)
    inherit: str = option("alternate", "Children take their parents' rules alternately, or always the heavier of the "
                                       "two.", choices=("alternate", "heavier"))
    dedupe: bool = option(False, "Replace an agent's repeated rules by mutations, each cycle.")
    weak: float | None = option(None, "Replace rules of weight at most this by mutations every --weak-every cycles "
                                      "(default off).")
    weak_every: int = option(1, "... every this many cycles.", low=1)
    fitness: str = option("pairs", "How a cycle measures the agents: Gaia's --pair-games in pairs; a round robin "
                                   "within the population; --pair-games against random, a perfect (minimax) player, "
                                   "or the last cycle's best; or exact (on the state graph: score against random, "
                                   "less a point per position where a choice throws the game away).", choices=FITNESS)
    wildcards: float | None = option(None, "Ours: chance a new rule's cell is '*' (anything); default: every symbol "
                                           "alike, as Gaia's (1/4 on a 3-value board).", low=0.0, high=1.0)

    def check(self) -> GAOptions:
        """Raise ValueError naming the first bad option."""
        if self.agents < 2 or self.agents % 2:
            raise ValueError(f"--agents must be an even number of at least 2 (agents play in pairs), not {self.agents}")
        for name in ("rules", "priorities", "pair_games", "weak_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, not {getattr(self, name)}")
        for name, most, why in (("agents", MAX_AGENTS, "a cycle plays them in pairs"),
                                ("rules", MAX_RULES, "each agent holds them as arrays"),
                                ("priorities", MAX_PRIORITIES, "a priority is a small integer"),
                                ("pair_games", MAX_PAIR_GAMES, "a cycle keeps every game's record"),
                                ("weak_every", 10**9, "it counts cycles")):
            if getattr(self, name) > most:
                raise ValueError(f"--{name.replace('_', '-')} can be at most {most:,} ({why}), "
                                 f"not {getattr(self, name):,}")
        if self.agents * self.rules > MAX_AGENT_RULES:
            raise ValueError(f"--agents x --rules can be at most {MAX_AGENT_RULES:,} rules in all (their conditions "
                             f"live in memory), not {self.agents * self.rules:,}")
        for name in ("mutation", "burst", "nudge", "turn_rules", "similar", "sharing", "weak", "wildcards"):
            v = getattr(self, name)
            if v is not None and isinstance(v, float) and not math.isfinite(v):
                raise ValueError(f"--{name} must be a finite number, not {v}")
        for name in ("mutation", "burst", "nudge", "turn_rules", "similar", "wildcards"):
            v = getattr(self, name)
            if v is not None and not 0.0 <= v <= 1.0:
                raise ValueError(f"--{name.replace('_', '-')} is a probability and must be in [0, 1], not {v}")
        if self.sharing < 0:
            raise ValueError(f"--sharing must be at least 0, not {self.sharing}")
        if self.selection not in SELECTIONS:
            raise ValueError(f"--selection must be one of {', '.join(SELECTIONS)}, not {self.selection!r}")
        for name in ("parents", "pairing"):
            if getattr(self, name) not in ORDERS:
                raise ValueError(f"--{name} must be weight or random, not {getattr(self, name)!r}")
        if self.fitness not in FITNESS:
            raise ValueError(f"--fitness must be one of {', '.join(FITNESS)}, not {self.fitness!r}")
        if self.fitness == "exact":
            for name, on in (("shared", self.shared), ("weak", self.weak is not None),
                             ("inherit heavier", self.inherit == "heavier")):
                if on:
                    raise ValueError(f"--{name} works on rule weights, which only games change; "
                                     "--fitness exact plays no games")
        if self.inherit not in ("alternate", "heavier"):
            raise ValueError(f"--inherit must be alternate or heavier, not {self.inherit!r}")
        best, worst = selection_sizes(self.selection, self.agents)
        if best + worst < 2 or best + worst >= self.agents:
            raise ValueError(f"--selection {self.selection} with {self.agents} agents leaves "
                             f"{best + worst} parents and {self.agents - best - worst} places: too few agents")
        return self

    def as_dict(self) -> dict:
        return asdict(self)


def selection_sizes(selection: str, n: int) -> tuple[int, int]:
    """How many of the best and of the worst breed."""
    best, worst = SELECTIONS[selection]
    return int(round(best * n)), int(round(worst * n))


@dataclass
class Population:
    """Rule sets as arrays: agent a's rule r has condition cond[a, r], action, priority, weight."""

    cond: np.ndarray        # (A, R, n_codes) int8: cell codes, then the turn (RuleSpace)
    action: np.ndarray      # (A, R) int16, index into the space's actions
    priority: np.ndarray    # (A, R) int8
    rule_weight: np.ndarray  # (A, R) float64
    weight: np.ndarray      # (A,) float64: points in the last cycle (after ranking: rank order)
    born: np.ndarray        # (A,) int64: the cycle an agent was made in
    cycles: int = 0
    judged: np.ndarray | None = field(default=None, repr=False)   # (A,) bool: weight is the exact fitness of its rules
    champion: tuple[np.ndarray, ...] | None = field(default=None, repr=False)  # the last cycle's best (cond, action, priority, rule_weight)

    @classmethod
    def random(cls, space: RuleSpace, opts: GAOptions, rng: np.random.Generator) -> Population:
        a, r = opts.agents, opts.rules
        cond, action, priority = space.random_rules(rng, a * r, opts.priorities, opts.nudge, opts.turn_rules,
                                                    opts.wildcards)
        return cls(cond.reshape(a, r, -1), action.reshape(a, r), priority.reshape(a, r),
                   np.zeros((a, r)), np.zeros(a), np.zeros(a, dtype=np.int64))

    @property
    def size(self) -> int:
        return len(self.weight)


@dataclass
class CycleStats:
    """What Gaia's program shows for each cycle."""

    games: int
    draws: int
    rule_moves: int       # moves made by a rule
    random_moves: int     # moves made at random (no rule matched)
    best_weight: float


def play_pairs(space: RuleSpace, pop: Population, pairs: np.ndarray, n_games: int,
               rng: np.random.Generator, opponent: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, CycleStats]:
    """Every pair plays ``n_games`` games at once (pair[0] first in even games).

    A pair member -1 is a fixed opponent choosing uniformly among the moves ``opponent`` (S,
    n_actions) allows; A (the population's size) is ``pop.champion``.  Returns (player of each
    side (G, 2), winner side per game (0, 1 or DRAW), rules used (G, 2, R), stats without best_weight).
    """
    sides = np.repeat(pairs, n_games, axis=0)
    swap = np.tile(np.arange(n_games) % 2 == 1, len(pairs))
    sides[swap] = sides[swap][:, ::-1]
    graph = space.graph
    cond, action, priority, weight = pop.cond, pop.action, pop.priority, pop.rule_weight
    if pop.champion is not None and (sides == pop.size).any():
        cond, action, priority, weight = (np.concatenate([x, c[None]]) for x, c in
                                          zip((cond, action, priority, weight), pop.champion, strict=True))
    g = len(sides)
    forbid = space.forbid_masks(cond)                          # (A, R, 3)
    state = np.zeros(g, dtype=np.int64)
    used = np.zeros((g, 2, cond.shape[1]), dtype=bool)
    active = np.arange(g)
    rule_moves = random_moves = 0
    while True:
        active = active[graph.winner[state[active]] == -1]
        if not len(active):
            break
        st = state[active]
        side = graph.mover[st].astype(np.int64)
        ag = sides[active, side]
        move = np.empty(len(active), dtype=np.int64)
        fixed = ag < 0
        if fixed.any():
            assert opponent is not None          # noqa: S101  (narrows a type for mypy; true by construction); a side with no agent plays the opponent's moves
            fs = st[fixed]
            move[fixed] = np.where(opponent[fs], rng.random((len(fs), opponent.shape[1])), -1.0).argmax(axis=1)
        ruled = ~fixed
        a, s_ = ag[ruled], st[ruled]
        m, rule, by_rule = space.choose(s_, forbid[a], action[a], priority[a], weight[a], rng)
        move[ruled] = m
        rows = active[ruled]
        used[rows[by_rule], side[ruled][by_rule], rule[by_rule]] = True
        n_rule = int(by_rule.sum())
        rule_moves += n_rule
        random_moves += len(a) - n_rule
        state[active] = space.succ[st, move]
    winner = graph.winner[state].astype(np.int64)
    return sides, winner, used, CycleStats(g, int((winner == DRAW).sum()), rule_moves, random_moves, 0.0)


def score(space: RuleSpace, pop: Population, sides: np.ndarray, winner: np.ndarray, used: np.ndarray,
          shared: bool) -> None:
    """A win: +1 to the agent and each rule it used; a loss: -1; a draw: nothing.

    With ``shared``, the rule points go to every equal rule in the population instead.
    """
    decided = winner != DRAW
    delta = np.zeros((len(winner), 2))
    delta[decided, winner[decided]] = 1.0
    delta[decided, 1 - winner[decided]] = -1.0
    ours = (sides >= 0) & (sides < pop.size)                   # not a fixed opponent or the champion
    np.add.at(pop.weight, sides[ours], delta[ours])
    if not shared:
        for side in (0, 1):
            mine = ours[:, side]
            np.add.at(pop.rule_weight, sides[mine, side], delta[mine, side, None] * used[mine, side])
        return
    ids = space.rule_ids(pop.cond, pop.action)                 # (A, R)
    game_ids, game_delta = [], []
    for side in (0, 1):
        gi, ri = np.nonzero(used[:, side] & ours[:, side, None])
        game_ids.append(ids[sides[gi, side], ri])
        game_delta.append(delta[gi, side])
    all_ids, all_delta = np.concatenate(game_ids), np.concatenate(game_delta)
    uniq, inv = np.unique(all_ids, return_inverse=True)
    per_id = np.zeros(len(uniq))
    np.add.at(per_id, inv, all_delta)
    pos = np.searchsorted(uniq, ids).clip(0, len(uniq) - 1)
    hit = uniq[pos] == ids
    pop.rule_weight[hit] += per_id[pos[hit]]


def similarity(space: RuleSpace, pop: Population) -> np.ndarray:
    """(A, A): the share of rule places where two agents hold the same rule."""
    ids = space.rule_ids(pop.cond, pop.action)
    return (ids[:, None, :] == ids[None, :, :]).mean(axis=2)


def rank(space: RuleSpace, pop: Population, opts: GAOptions, rng: np.random.Generator) -> np.ndarray:
    """Agents best first: by weight, less ``sharing`` for each very similar agent, ties at random."""
    fitness = pop.weight.copy()
    if opts.sharing > 0:
        close = (similarity(space, pop) >= opts.similar).sum(axis=1) - 1
        fitness -= opts.sharing * close
    tiebreak = rng.random(pop.size)
    return np.lexsort((tiebreak, -fitness))


def reorder(pop: Population, order: np.ndarray) -> None:
    """Put the agents in ``order`` (rank 0 first)."""
    for name in ("cond", "action", "priority", "rule_weight", "weight", "born", "judged"):
        if getattr(pop, name) is not None:
            setattr(pop, name, getattr(pop, name)[order])


def couples(parents: np.ndarray, n: int, how: str, rng: np.random.Generator) -> list[tuple[int, int]]:
    """``n`` couples of distinct parents: neighbours in weight order (round and round), or at random."""
    k = len(parents)
    if how == "random":
        return [(int(a), int(b)) for a, b in (rng.choice(parents, 2, replace=False) for _ in range(n))]
    out = []
    for i in range(n):
        j = (2 * i) % k if k % 2 == 0 else i % k
        out.append((int(parents[j]), int(parents[(j + 1) % k])))
    return out


def mutation_mask(rng: np.random.Generator, shape: tuple[int, int], p: float, burst: float | None) -> np.ndarray:
    """Which rules of each child mutate; with ``burst``, a rule right after a mutated one mutates with that chance."""
    if burst is None:
        return rng.random(shape) < p
    draws = rng.random(shape)
    mask = np.zeros(shape, dtype=bool)
    mask[:, 0] = draws[:, 0] < p
    for r in range(1, shape[1]):
        mask[:, r] = draws[:, r] < np.where(mask[:, r - 1], burst, p)
    return mask


def replace_rules(space: RuleSpace, pop: Population, mask: np.ndarray, opts: GAOptions,
                  rng: np.random.Generator) -> int:
    """Replace the rules under ``mask`` (A, R) by new random rules of weight 0; how many."""
    k = int(mask.sum())
    if k:
        cond, action, priority = space.random_rules(rng, k, opts.priorities, opts.nudge, opts.turn_rules,
                                                    opts.wildcards)
        pop.cond[mask], pop.action[mask], pop.priority[mask] = cond, action, priority
        pop.rule_weight[mask] = 0.0
        if pop.judged is not None:
            pop.judged[mask.any(axis=1)] = False
    return k


def breed(space: RuleSpace, pop: Population, opts: GAOptions, rng: np.random.Generator) -> None:
    """With the agents in rank order, the parents' children take the places of the rest."""
    n = pop.size
    best, worst = selection_sizes(opts.selection, n)
    parents = np.concatenate([np.arange(best), np.arange(n - worst, n)])
    places = np.arange(best, n - worst)
    pairs = couples(parents, (len(places) + 1) // 2, opts.parents, rng)
    r = pop.cond.shape[1]
    mother = np.array([m for m, _ in pairs for _ in (0, 1)])[: len(places)]
    father = np.array([f for _, f in pairs for _ in (0, 1)])[: len(places)]
    second = (np.arange(len(places)) % 2 == 1)[:, None]
    if opts.inherit == "heavier":
        from_mother = pop.rule_weight[mother] >= pop.rule_weight[father]
    else:
        from_mother = (np.arange(r)[None, :] % 2 == 0) ^ second    # the second child starts with the father
    source = np.where(from_mother, mother[:, None], father[:, None])   # (children, R)
    cols = np.arange(r)[None, :]
    child = {name: getattr(pop, name)[source, cols] for name in ("cond", "action", "priority", "rule_weight")}
    mutate = mutation_mask(rng, source.shape, opts.mutation, opts.burst)
    if opts.identical:
        ids = space.rule_ids(pop.cond, pop.action)
        same = (ids[mother] == ids[father]).all(axis=1)
        mutate[same] = True
    for name, value in child.items():
        getattr(pop, name)[places] = value
    pop.weight[places] = 0.0
    pop.born[places] = pop.cycles
    if pop.judged is not None:
        pop.judged[places] = False
    full = np.zeros(pop.rule_weight.shape, dtype=bool)
    full[places] = mutate
    replace_rules(space, pop, full, opts, rng)


def tidy(space: RuleSpace, pop: Population, opts: GAOptions, rng: np.random.Generator) -> None:
    """Gaia's housekeeping options: repeated rules and weak rules become mutations."""
    if opts.dedupe:
        ids = space.rule_ids(pop.cond, pop.action)
        order = np.argsort(ids, axis=1, kind="stable")
        sorted_ids = np.take_along_axis(ids, order, axis=1)
        repeat_sorted = np.zeros(ids.shape, dtype=bool)
        repeat_sorted[:, 1:] = sorted_ids[:, 1:] == sorted_ids[:, :-1]
        repeat = np.zeros(ids.shape, dtype=bool)
        np.put_along_axis(repeat, order, repeat_sorted, axis=1)
        replace_rules(space, pop, repeat, opts, rng)
    if opts.weak is not None and pop.cycles % opts.weak_every == 0:
        replace_rules(space, pop, pop.rule_weight <= opts.weak, opts, rng)


def cycle(space: RuleSpace, pop: Population, opts: GAOptions, rng: np.random.Generator) -> CycleStats:
    """One cycle of Gaia's pseudocode: measure (play in pairs, or the ``fitness`` option), rank,
    breed (then the housekeeping options)."""
    pop.cycles += 1
    if opts.fitness == "exact":
        stats = judge_exactly(space, pop)
    else:
        pop.weight[:] = 0.0
        sides, winner, used, stats = play_cycle(space, pop, opts, rng)
        score(space, pop, sides, winner, used, opts.shared)
    reorder(pop, rank(space, pop, opts, rng))
    stats.best_weight = float(pop.weight[0])
    if opts.fitness == "champion":
        pop.champion = best_rules(pop)
    breed(space, pop, opts, rng)
    tidy(space, pop, opts, rng)
    return stats


def play_cycle(space: RuleSpace, pop: Population, opts: GAOptions,
               rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, CycleStats]:
    """A cycle's games: Gaia's pairs, a round robin, or every agent against a fixed opponent
    (``pair_games`` games a pairing, the first move alternating)."""
    n = pop.size
    if opts.fitness == "pairs":
        order = np.arange(n) if opts.pairing == "weight" else rng.permutation(n)
        return play_pairs(space, pop, order.reshape(-1, 2), opts.pair_games, rng)
    if opts.fitness == "round-robin":
        i, j = np.triu_indices(n, k=1)
        return play_pairs(space, pop, np.stack([i, j], axis=1), opts.pair_games, rng)
    if opts.fitness == "champion":
        if pop.champion is None:
            pop.champion = best_rules(pop)
        return play_pairs(space, pop, np.stack([np.arange(n), np.full(n, n)], axis=1), opts.pair_games, rng)
    moves = space.legal if opts.fitness == "random" else exact_judge(space).optimal
    return play_pairs(space, pop, np.stack([np.arange(n), np.full(n, -1)], axis=1), opts.pair_games, rng, moves)


def best_rules(pop: Population) -> tuple[np.ndarray, ...]:
    """A copy of the first agent's rules (cond, action, priority, rule_weight): the champion."""
    return tuple(x[0].copy() for x in (pop.cond, pop.action, pop.priority, pop.rule_weight))


_JUDGES: weakref.WeakKeyDictionary[RuleSpace, ExactJudge] = weakref.WeakKeyDictionary()


def exact_judge(space: RuleSpace) -> ExactJudge:
    """The space's exact judge, made once."""
    judge = _JUDGES.get(space)
    if judge is None:
        judge = _JUDGES[space] = ExactJudge(space)
    return judge


def judge_exactly(space: RuleSpace, pop: Population) -> CycleStats:
    """``--fitness exact``: each agent's weight is its exact fitness (ExactJudge.fitness), computed
    for the agents whose rules changed since they were last judged."""
    if pop.judged is None:
        pop.judged = np.zeros(pop.size, dtype=bool)
    todo = np.flatnonzero(~pop.judged)
    if len(todo):
        fit, _ = exact_judge(space).fitness(pop.cond[todo], pop.action[todo], pop.priority[todo],
                                            pop.rule_weight[todo])
        pop.weight[todo] = fit
        pop.judged[todo] = True
    return CycleStats(0, 0, 0, 0, 0.0)


def evolve(space: RuleSpace, pop: Population, opts: GAOptions, cycles: int, rng: np.random.Generator,
           after_cycle: Callable[[int, CycleStats], None] | None = None) -> list[CycleStats]:
    """Run ``cycles`` cycles; ``after_cycle(done, stats)`` is called after each."""
    out = []
    for i in range(cycles):
        stats = cycle(space, pop, opts, rng)
        out.append(stats)
        if after_cycle:
            after_cycle(i + 1, stats)
    return out


def agent_support(space: RuleSpace, pop: Population, k: int) -> list[list[int]]:
    """Agent ``k``'s choices in every state, for exact evaluation (learners.exact)."""
    return space.candidates(space.forbid_masks(pop.cond[k]), pop.action[k], pop.priority[k], pop.rule_weight[k])
