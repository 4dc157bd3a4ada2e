"""A value function over n-tuples of a game's cells, learned by TD(λ) from self-play.

The generic agent of GBG, the General Board Game framework (W. Konen, TH
Köln; Thill, Bagheri, Koch & Konen, CIG 2014): a position is seen through
its cells (the game's cells/4, from one player's point of view: 0 empty, 1
that player's, 2 the opponent's, or any small numbers); an *n-tuple* is a
list of cells, and each tuple has a lookup table with one weight for every
combination of values its cells can hold.  The value of a position for a
player is ``tanh`` of the sum of the weights its tuples point at.  Because
the same tuple sees many positions, what one position teaches reaches every
position that shares a pattern with it: the learner generalises, where the
Q-table and the punishment learner do not.

- Tuples are placed by random walks over the board's neighbourhood (cells
  next to each other in the game's rows, diagonals included), as GBG does,
  or given by the user.
- Weight sharing: every tuple is also read through each of the game's
  symmetries (cell permutations), so symmetric positions have one value.
- Learning: TD(λ) on *afterstates* (the position right after a move), from
  the point of view of the player who made the move.  Each player's
  afterstates form its own sequence, so a game where a player moves twice
  (dots and boxes) needs nothing special; both sides share one set of
  weights, since values are always from the mover's side.  Eligibility
  traces reach back ``horizon`` afterstates (where λ^k falls under 1%).
  A player's last afterstate learns toward the value of its best move
  next (as Q-learning does), even when it then explores (ε-greedy); an
  exploring move cuts the trace.
- Moves: the afterstate of highest value; a move that ends the game is
  worth its result exactly (+1, 0, -1).
- Per-player weights (``per_player``): each player has its own set of the
  same tuples, as in Thill's Connect Four agent, so that a pattern may be
  worth more to the player who moves first than to the other.
- Temporal coherence (``tcl``, Beal & Smith; TCL-EXP of Bagheri, Thill,
  Koch & Konen, as GBG's Connect Four agent): every weight has its own step
  size, exp(β(|N|/A - 1)) times the run's, where N sums the changes the
  weight was asked for and A their sizes: a weight pushed one way keeps its
  step, one pushed back and forth slows down.  The sums live as long as a
  run.

Defaults depend on the board (``board_defaults``): small boards learn with
TD(0) on shared weights; boards of 30 cells or more (Connect Four) with
GBG's published Connect Four settings (70 tuples of 8, per-player weights, TCL,
TD(0) with a constant step of 3.7), exploring from 0.1 to 0.05 over the run,
half the games from a random first move (GBG's chooseStart01).

This module never asks Prolog anything: it sees cells as numpy arrays.
"""
from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from educable.learners.graph import CHANCE, CUT
from educable.learners.jit import njit
from educable.learners.options import option
from educable.learners.training import ENDLESS_PLIES

MAX_TUPLES = 1000            # tuples of one agent (--tuples, --tuples-file)
MAX_LENGTH = 16             # cells of one tuple
MAX_TABLE = 1 << 24          # weights in one tuple's table (K^length): 16M, 128 MB (a 6-tuple of 2048's 16 values)
DEFAULT_TABLE = 1 << 22      # ... in a default random-walk tuple's table: 4M, 32 MB (longer walks are shortened)
MAX_WEIGHTS = 1 << 26        # weights in all tables together
ONGOING_CODE = -9            # an afterstate's outcome code while the game goes on
SCORE_SCALE = 1e9            # values compared as integers of 1e-9 (Prolog and Python alike)


@dataclass
class NTupleOptions:
    """Every parameter of an n-tuple agent (stored with it)."""

    tuples: int | None = option(None, "How many tuples, placed by random walks over the board's neighbourhood "
                                "(default by board size: two a cell on small boards, 70 on large ones). Connect "
                                "Four's default is instead GBG's published set of 70 8-tuples; giving --tuples, "
                                "--length or --neighbours places random walks there too.", low=1, high=1000)
    length: int | None = option(None, "Cells per random-walk tuple (default by board size: 3 or 6 on small "
                                "boards, 8 on large ones).", low=1, high=16)
    neighbours: str = option("8", "Cells a random walk may step to next: 8 (diagonals included) or 4 (up, down, left, "
                             "right, as GBG's random walks on Connect Four).", choices=("8", "4"))
    tuple_cells: list[list[int]] | None = None   # tuples given by the user (cell numbers from 1; --tuples-file)
    lam: float = option(0.0, "λ of the eligibility traces (0: plain TD(0), as GBG's Connect Four agent).", flag="lambda", low=0.0, high=1.0)
    alpha: float = option(0.5, "Step size at the start of a run, shared out over the weights a position reads "
                          "(3.7, constant, on boards of 30 cells or more, as GBG's Connect Four agent; 1, constant, on 2048 "
                          "with --tcl, as Jaśkowski's).", low=0.0, high=10.0)
    alpha_end: float | None = option(0.05, "Step size at the end of a run, linear from --alpha (None: as "
                                     "--alpha).", low=0.0, high=10.0)
    epsilon: float = option(0.3, "Exploration at the start of a run (0.1 on boards of 30 cells or more; 0 "
                            "against the adversary).", low=0.0, high=1.0)
    epsilon_end: float | None = option(None, "Exploration at the end of a run, linear from --epsilon (default: "
                                       "as --epsilon; 0.05 on boards of 30 cells or more).", low=0.0, high=1.0)
    fold: bool = option(True, "Share weights across the game's symmetries (symmetry/3).")
    seed: int = 0                    # where the random walks start (the agent's tuples: its first run's --seed)
    values: int | None = option(None, "Distinct cell values (default: the largest cells/4 gives in random games, "
                                "plus one).", low=2, high=64)
    per_player: bool = option(False, "One set of weights for each player over the same tuples, as Thill's "
                              "Connect Four agent (on on boards of 30 cells or more); off: one set for both.",
                              off="one-set")
    tcl: bool = option(False, "Temporal-coherence step sizes (TCL-EXP: a weight pushed back and forth slows "
                       "down), as GBG's Connect Four agent (on on boards of 30 cells or more); on 2048, Beal and Smith's "
                       "|N|/A, as Jaśkowski's 2048 agent (on there).")
    learn_explore: bool = option(True, "Learn on an exploring move: the mover's previous afterstate learns "
                                 "toward its best move's value even when the move it makes is random. Off: "
                                 "nothing is learned on an exploring move, as GBG's learnFromRM false.",
                                 off="no-learn-explore")
    random_openings: float = option(0.0, "Share of training games whose first move is random and taken as the "
                                    "start position (nothing is learned on it), as GBG's chooseStart01 (0.5 on "
                                    "boards of 30 cells or more: the second player then learns the openings "
                                    "the first does not choose).",
                                    low=0.0, high=1.0)
    start_share: float = option(0.0, "Share of training games that start from a position of --starts-file, "
                                "one of them at random; the agent plays on from there as in any game (the "
                                "positions `judge --per-opening --json` lists where it gave games away, for "
                                "instance).", low=0.0, high=1.0)
    starts: list[str] | None = None   # positions to start games from (--starts-file), as `query` takes them

    def check(self) -> NTupleOptions:
        """Raise ValueError naming the first bad option."""
        if self.tuples is not None and not 1 <= self.tuples <= MAX_TUPLES:
            raise ValueError(f"--tuples must be from 1 to {MAX_TUPLES}, not {self.tuples}")
        if self.length is not None and not 1 <= self.length <= MAX_LENGTH:
            raise ValueError(f"--length must be from 1 to {MAX_LENGTH}, not {self.length}")
        if not 0.0 <= self.lam <= 1.0:
            raise ValueError(f"--lambda must be in [0, 1], not {self.lam}")
        if self.alpha_end is None:
            self.alpha_end = self.alpha
        for name in ("alpha", "alpha_end"):
            if not 0.0 < getattr(self, name) <= 10.0:
                raise ValueError(f"--{name.replace('_', '-')} must be in (0, 10], not {getattr(self, name)}")
        if self.epsilon_end is None:
            self.epsilon_end = self.epsilon
        for name in ("epsilon", "epsilon_end"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"--{name.replace('_', '-')} must be in [0, 1], not {getattr(self, name)}")
        if not 0.0 <= self.random_openings <= 1.0:
            raise ValueError(f"--random-openings must be in [0, 1], not {self.random_openings}")
        if not 0.0 <= self.start_share <= 1.0:
            raise ValueError(f"--start-share must be in [0, 1], not {self.start_share}")
        if self.start_share > 0.0 and not self.starts:
            raise ValueError("--start-share needs --starts-file: the positions to start games from")
        if self.starts is not None and not (isinstance(self.starts, list) and self.starts
                                            and all(isinstance(t, str) and t for t in self.starts)):
            raise ValueError("starts must be a non-empty list of positions")
        if self.neighbours not in ("8", "4"):
            raise ValueError(f"--neighbours must be 8 or 4, not {self.neighbours!r}")
        if self.values is not None and not 2 <= self.values <= 64:
            raise ValueError(f"--values must be from 2 to 64, not {self.values}")
        if self.tuple_cells is not None:
            if not self.tuple_cells or not all(isinstance(t, list) and t for t in self.tuple_cells):
                raise ValueError("tuples must be a non-empty list of non-empty cell lists")
            if len(self.tuple_cells) > MAX_TUPLES or max(map(len, self.tuple_cells)) > MAX_LENGTH:
                raise ValueError(f"at most {MAX_TUPLES} tuples of at most {MAX_LENGTH} cells")
            for t in self.tuple_cells:
                if not all(isinstance(c, int) and not isinstance(c, bool) for c in t) or len(set(t)) != len(t):
                    raise ValueError(f"tuple {t} must list distinct whole cell numbers")
        return self

    def as_dict(self) -> dict:
        return asdict(self)


LARGE_BOARD = 30        # cells from which a board learns with GBG's Connect Four settings
TCL_BETA = 2.7          # TCL-EXP's β (GBG's default)


def board_defaults(n_cells: int) -> dict:
    """Options that differ from NTupleOptions' defaults on a board of ``n_cells`` (the user's own
    options override them): on 30 cells or more, the settings of GBG's published Connect Four agent
    (TCL-EXP-NT3-al37-lam000-6000k-epsfin0: per-player weights, TCL with a constant step of 3.7,
    TD(0)), exploring from 0.1 to 0.05 over the run: GBG's 0.1 to 0 spans 6 million games, so within
    the 3-4 million that two hours give it never falls below about 0.05, and at 500,000 games 0.1 to
    0.05 won 21 and 24 of 50 games against the perfect player where 0.1 to 0 won 0 and 15
    (bench/sweep_c4.py); and half the games from a random first move (GBG's chooseStart01, off in
    its published agent): at 4,000,000 games on two workers, seed 1 from the empty board held the
    opening's value as second in 17% of games against the perfect player (53% in mcts:800+AGENT),
    three seeds with random openings 47-77% (86-97% wrapped), as strong as first (bench/results/)."""
    if n_cells < LARGE_BOARD:
        return {}
    return {"per_player": True, "tcl": True, "lam": 0.0, "alpha": 3.7, "alpha_end": 3.7,
            "epsilon": 0.1, "epsilon_end": 0.05, "random_openings": 0.5}


def default_shape(n_cells: int) -> tuple[int, int]:
    """(tuples, length) when the user gives none: GBG's Connect Four agent has 70 tuples of 8 on 42
    cells; smaller boards get tuples of 3 or 6 cells, two tuples a cell (measured on tic-tac-toe:
    bench/bench_ntuple.py --sweep)."""
    length = 3 if n_cells <= 4 else 6 if n_cells <= 20 else 8
    return (70 if n_cells >= 30 else max(4, 2 * n_cells)), min(length, n_cells)


def neighbours(n_cells: int, columns: int | None, diagonals: bool = True) -> list[list[int]]:
    """Each cell's neighbours (0-based) on a grid of ``columns`` (8 around, or 4 without
    ``diagonals``; a board without a layout is square when it can be, else one row)."""
    if columns is None:
        root = math.isqrt(n_cells)
        columns = root if root * root == n_cells else n_cells
    out = []
    for i in range(n_cells):
        r, c = divmod(i, columns)
        around = []
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                rr, cc = r + dr, c + dc
                j = rr * columns + cc
                if (dr or dc) and (diagonals or not (dr and dc)) and 0 <= cc < columns and rr >= 0 and j < n_cells:
                    around.append(j)
        out.append(around)
    return out


def random_walk_tuples(n_cells: int, columns: int | None, count: int, length: int, seed: int,
                       diagonals: bool = True) -> list[list[int]]:
    """``count`` tuples of ``length`` distinct cells (0-based), each a random walk over the neighbours
    (see ``neighbours``)."""
    rng = random.Random(seed)
    near = neighbours(n_cells, columns, diagonals)
    length = min(length, n_cells)
    out: list[list[int]] = []
    for _ in range(count):
        cell = rng.randrange(n_cells)
        walk = [cell]
        for _step in range(1000 * length):
            if len(walk) == length:
                break
            cell = rng.choice(near[cell]) if near[cell] else rng.randrange(n_cells)
            if cell not in walk:
                walk.append(cell)
        while len(walk) < length:       # a board in pieces: finish with any cell
            walk.append(rng.choice([c for c in range(n_cells) if c not in walk]))
        out.append(sorted(walk))
    return out


def derive_permutations(base: np.ndarray, images: np.ndarray) -> list[list[int]]:
    """The cell permutations behind a game's symmetries, from examples: ``base[k]`` is a state's
    cells and ``images[k, s]`` the cells of its s-th symmetric image (in the order symmetry/3 gives
    them).  Symmetry s is kept when one permutation p explains every example (images[k, s, i] ==
    base[k, p[i]]); the identity is always first."""
    n = base.shape[1]
    perms = [list(range(n))]
    for s in range(images.shape[1]):
        img = images[:, s, :]
        matches = [np.nonzero((base == img[:, i:i + 1]).all(axis=0))[0].tolist() for i in range(n)]
        if any(not m for m in matches):
            continue                      # no permutation of cells gives this image: not a board symmetry
        perm, used = [-1] * n, set()
        for i in sorted(range(n), key=lambda i: len(matches[i])):   # cells the examples tell apart first
            free = [j for j in matches[i] if j not in used]
            if not free:
                break
            perm[i] = free[0]
            used.add(free[0])
        if -1 not in perm and perm not in perms:
            perms.append(perm)
    return perms


@dataclass
class NTupleNet:
    """Tuples, symmetries and weights: everything an n-tuple agent knows.

    ``tuples`` are 0-based cell lists, in ``sets`` equal parts of the same
    cells (2: the first player's, then the second's); ``perms`` the
    symmetries as cell permutations (the identity first); weights of tuple
    t live at ``offsets[t] : offsets[t] + values ** len(tuples[t])``, the
    cells' values read as a number in base ``values``, first cell least
    significant.  ``tc_n``/``tc_a`` are the temporal-coherence sums (one a
    weight, or of size 1 without them), stored beside the weights.
    """

    tuples: list[list[int]]
    perms: list[list[int]]
    values: int
    n_cells: int
    weights: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]  # made in __post_init__
    sets: int = 1

    def __post_init__(self) -> None:
        n = len(self.tuples) // self.sets
        if self.sets not in (1, 2) or n * self.sets != len(self.tuples) or any(
                self.tuples[i] != self.tuples[i % n] for i in range(len(self.tuples))):
            raise ValueError(f"{len(self.tuples)} tuples do not make {self.sets} equal sets")
        sizes = [self.values ** len(t) for t in self.tuples]
        if max(sizes) > MAX_TABLE or sum(sizes) > MAX_WEIGHTS:
            raise ValueError(f"tuples of {max(len(t) for t in self.tuples)} cells with {self.values} values need "
                             f"{sum(sizes):,} weights, more than {MAX_WEIGHTS:,} ({MAX_TABLE:,} a tuple): "
                             "use shorter tuples (--length)")
        self.offsets = offsets_of(sizes)
        self.set_size = int(self.offsets[n])          # weights of one set
        if self.weights is None:
            self.weights = np.zeros(int(self.offsets[-1]))
        width = max(len(t) for t in self.tuples)
        self.tuple_array = np.full((n, width), -1, dtype=np.int64)
        for i, t in enumerate(self.tuples[:n]):
            self.tuple_array[i, :len(t)] = t
        self.perm_array = np.array(self.perms, dtype=np.int64)
        self.start_coherence(False)

    @property
    def features(self) -> int:
        """Weights one position reads: a tuple of its player's set under each symmetry."""
        return len(self.tuple_array) * len(self.perms)

    @property
    def coherent(self) -> bool:
        """Whether the net keeps temporal-coherence sums (one a weight)."""
        return self.tc_a.size == self.weights.size

    def start_coherence(self, on: bool) -> None:
        """Fresh temporal-coherence sums for a run (one a weight), or none."""
        size = self.weights.size if on else 1
        self.tc_n, self.tc_a = np.zeros(size), np.zeros(size)

    def indices(self, cells: np.ndarray, player: int | np.ndarray = 0) -> np.ndarray:
        """(positions, features) flat weight indices of each row of ``cells``, seen by ``player``
        (an index, or one a row), whose set of tuples they read."""
        cells = np.ascontiguousarray(cells, dtype=np.int64).reshape(-1, self.n_cells)
        if cells.size and (cells.min() < 0 or cells.max() >= self.values):
            raise ValueError(f"a cell holds {int(cells.max())}, beyond the agent's {self.values} cell values")
        out = _indices(cells, self.tuple_array, self.offsets, self.perm_array, self.values)
        if self.sets > 1:
            out += (np.asarray(player, dtype=np.int64) * self.set_size).reshape(-1, 1)
        return out

    def value(self, cells: np.ndarray, player: int | np.ndarray = 0) -> np.ndarray:
        """The value of each row of ``cells`` for the player they are seen by."""
        return np.tanh(self.weights[self.indices(cells, player)].sum(axis=1))


def offsets_of(lengths: Sequence[int] | np.ndarray) -> np.ndarray:
    """Where each of consecutive blocks of ``lengths`` starts, and (last) where they all end."""
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def score(v: np.ndarray | float) -> np.ndarray:
    """Values as the integers moves are compared by (1e-9 steps), so ties agree with Prolog's."""
    return np.rint(np.asarray(v) * SCORE_SCALE).astype(np.int64)


@njit(cache=True)
def _indices(cells, tuples, offsets, perms, k):
    n, width = tuples.shape
    s_count = perms.shape[0]
    out = np.empty((cells.shape[0], n * s_count), dtype=np.int64)
    for r in range(cells.shape[0]):
        f = 0
        for s in range(s_count):
            for t in range(n):
                idx = 0
                mult = 1
                for j in range(width):
                    c = tuples[t, j]
                    if c < 0:
                        break
                    idx += mult * cells[r, perms[s, c]]
                    mult *= k
                out[r, f] = offsets[t] + idx
                f += 1
    return out


@njit(cache=True)
def _v(w, feats):
    total = 0.0
    for i in range(feats.shape[0]):
        total += w[feats[i]]
    return np.tanh(total)


@njit(cache=True)
def _td(w, tcn, tca, hist, hist_g, count, newest, target, step, lam, dirty):
    """One TD(λ) update of a player's latest afterstate toward ``target``, reaching back over its
    ``count`` earlier afterstates (ring ``hist`` of feature rows, newest at ``newest``).  With
    temporal coherence (``tcn`` as large as ``w``), each weight's step is scaled by
    exp(β(|N|/A - 1)) of the changes asked of it so far.  ``dirty`` (as large as ``w``, or empty):
    set to 1 at every weight the update reaches, so that a worker knows what it touched."""
    horizon = hist.shape[0]
    delta = target - _v(w, hist[newest])
    decay = 1.0
    tcl = tcn.shape[0] == w.shape[0]
    mark = dirty.shape[0] == w.shape[0]
    for k in range(count):
        slot = (newest - k) % horizon
        change = step * delta * decay * hist_g[slot]
        if mark:
            for f in range(hist.shape[1]):
                dirty[hist[slot, f]] = 1
        if tcl:
            for f in range(hist.shape[1]):
                i = hist[slot, f]
                a = tca[i]
                factor = np.exp(TCL_BETA * (abs(tcn[i]) / a - 1.0)) if a > 0.0 else 1.0
                w[i] += factor * change
                tcn[i] += change
                tca[i] += abs(change)
        else:
            for f in range(hist.shape[1]):
                w[hist[slot, f]] += change
        decay *= lam
        if decay == 0.0:
            break


@njit(cache=True)
def _graph_games(start, target, winner, mover, feats, w, tcn, tca, n_games, seed, done, total,
                 eps0, eps1, alpha0, alpha1, lam, horizon, learn_sides, opp_start, opp_edges, max_plies,
                 learn_explore, open_p, start_states, start_p, prob):
    """Play ``n_games`` on a state graph, learning as it goes; returns each game's winner.

    ``feats[t, p]`` are afterstate t's feature rows as player p sees it;
    ``learn_sides[g % len]`` has bit p set when the agent plays side p in
    game g (the other side plays uniformly among ``opp_edges[opp_start[s]:
    opp_start[s+1]]``, or any move where that is empty).  A game still going after ``max_plies``
    moves is scored a draw.  With probability ``start_p`` a game starts from one of ``start_states``
    (at random), else with probability ``open_p`` its first move is random and taken as its start;
    without ``learn_explore`` nothing is learned on an exploring move.  In a game of chance a chance
    node (mover CHANCE) draws an edge with its probability ``prob[e]``: the afterstate a player
    learns the value of is the position its move leaves, before chance acts (Szubert and Jaśkowski's
    afterstates)."""
    np.random.seed(seed)
    unmarked = np.zeros(0, dtype=np.uint8)
    n_feat = feats.shape[2]
    hist = np.zeros((2, horizon, n_feat), dtype=np.int64)
    hist_g = np.zeros((2, horizon))
    count = np.zeros(2, dtype=np.int64)
    newest = np.zeros(2, dtype=np.int64)
    results = np.empty(n_games, dtype=np.int64)
    vals = np.empty(max(1, np.max(start[1:] - start[:-1])))
    for g in range(n_games):
        frac = (done + g) / max(1, total - 1)
        eps = eps0 + (eps1 - eps0) * frac
        step = (alpha0 + (alpha1 - alpha0) * frac) / n_feat
        sides = learn_sides[(done + g) % learn_sides.shape[0]]
        count[:] = 0
        s = 0
        plies = 0
        if start_p > 0.0 and np.random.random() < start_p:
            s = start_states[np.random.randint(start_states.shape[0])]
        elif open_p > 0.0 and winner[0] == -1 and mover[0] != CHANCE and np.random.random() < open_p:
            s = target[start[0] + np.random.randint(start[1] - start[0])]     # a random opening: the start
        while winner[s] == -1 and plies < max_plies:
            plies += 1
            m = mover[s]
            e0, e1 = start[s], start[s + 1]
            if m == CHANCE:
                r = np.random.random()
                e = e0
                while e < e1 - 1 and r >= prob[e]:
                    r -= prob[e]
                    e += 1
                t = target[e]
            elif (sides >> m) & 1:
                for ee in range(e0, e1):
                    vals[ee - e0] = _afterstate_value(w, feats, winner, target[ee], m)
                k = _pick_best(vals, e1 - e0)
                e, v = e0 + k, vals[k]
                explore = np.random.random() < eps
                if count[m] > 0 and (learn_explore or not explore):   # toward the best move's value
                    _td(w, tcn, tca, hist[m], hist_g[m], count[m], newest[m], v, step, lam, unmarked)
                if explore:
                    e = e0 + np.random.randint(e1 - e0)
                    count[m] = 0            # an exploring move cuts the trace
                t = target[e]
                if winner[t] == -1:
                    newest[m] = (newest[m] + 1) % horizon
                    hist[m, newest[m]] = feats[t, m]
                    vt = _v(w, feats[t, m])
                    hist_g[m, newest[m]] = 1.0 - vt * vt
                    count[m] = min(count[m] + 1, horizon)
                else:
                    count[m] = 0            # a move that ends the game is worth its result: nothing to learn
            else:
                o0, o1 = opp_start[s], opp_start[s + 1]
                if o1 > o0:
                    e = opp_edges[o0 + np.random.randint(o1 - o0)]
                else:
                    e = e0 + np.random.randint(e1 - e0)
                t = target[e]
            s = t
        res = winner[s] if winner[s] != -1 else 2          # a game still going at max_plies: learned as a draw
        results[g] = res if winner[s] != -1 else CUT       # ... and reported cut
        for p in range(2):
            if count[p] > 0:
                r = 0.0 if res == 2 else (1.0 if res == p else -1.0)
                _td(w, tcn, tca, hist[p], hist_g[p], count[p], newest[p], r, step, lam, unmarked)
    return results


@njit(cache=True)
def _pick_best(vals, n):
    """The index of a highest of ``vals[:n]`` (compared in 1e-9 steps), ties broken at random."""
    best = -1 << 62
    ties = 0
    k = 0
    for i in range(n):
        sc = np.int64(np.rint(vals[i] * 1e9))
        if sc > best:
            best, ties, k = sc, 1, i
        elif sc == best:
            ties += 1
            if np.random.randint(ties) == 0:
                k = i
    return k


@njit(cache=True)
def _afterstate_value(w, feats, winner, t, p):
    wt = winner[t]
    if wt == -1:
        return _v(w, feats[t, p])
    if wt == 2:
        return 0.0
    return 1.0 if wt == p else -1.0


def horizon_for(lam: float) -> int:
    """Afterstates a trace reaches back over: where λ^k falls under 1% (at most 16)."""
    if lam <= 0.0:
        return 1
    if lam >= 1.0:
        return 16
    return int(min(16, max(1, math.ceil(math.log(0.01) / math.log(lam)) + 1)))


def train_on_graph(net: NTupleNet, start: np.ndarray, target: np.ndarray, winner: np.ndarray, mover: np.ndarray,
                   feats: np.ndarray, options: NTupleOptions, n_games: int, seed: int, done: int, total: int,
                   learn_sides: Sequence[int], opponent: tuple[np.ndarray, np.ndarray] | None,
                   start_states: np.ndarray | None = None, prob: np.ndarray | None = None) -> np.ndarray:
    """Play and learn ``n_games`` (games ``done`` .. of a run of ``total``) on a compiled graph; each
    game's winner (player index, or 2 for a draw).  ``learn_sides`` cycles per game: a bitmask of
    the sides the agent plays; the opponent (a support as CSR arrays, or None) plays the rest.
    ``start_states``: the states of --starts-file, where a share (--start-share) of the games start.
    ``prob``: each edge's probability in a game of chance (the graph's), None without chance nodes."""
    o_start, o_edges = opponent if opponent is not None else (np.zeros(len(start), dtype=np.int64),
                                                               np.zeros(0, dtype=np.int64))
    return _graph_games(start.astype(np.int64), target.astype(np.int64), winner.astype(np.int64),
                        mover.astype(np.int64), feats, net.weights, net.tc_n, net.tc_a, n_games, seed, done, total,
                        options.epsilon, options.epsilon_end, options.alpha, options.alpha_end, options.lam,
                        horizon_for(options.lam), np.asarray(learn_sides, dtype=np.int64), o_start, o_edges,
                        ENDLESS_PLIES, options.learn_explore, options.random_openings,
                        np.zeros(1, dtype=np.int64) if start_states is None else start_states.astype(np.int64),
                        0.0 if start_states is None else options.start_share,
                        np.zeros(1) if prob is None else prob.astype(np.float64))


@njit(cache=True)
def _batch_ply(w, tcn, tca, succ_off, succ_feats, succ_out, movers, active, learn, eps, step, lam,
               hist, hist_g, count, newest, choice, finished, learn_explore, open_p, dirty):
    """One ply of a batch of games expanded lazily: each active game's mover picks a successor
    (learning as in _graph_games); ``succ_out`` is a successor's outcome for the mover (1, 0, -1)
    or ONGOING_CODE.  Writes ``choice`` (index among the game's successors) and, for a game that
    ends, its outcome for the mover in ``finished`` (else ONGOING_CODE), with the final updates.
    ``open_p[i]``: the chance that game i's move is a random opening taken as the start (0 past a
    game's first ply, and for a game started from a position of --starts-file).
    ``dirty``: marks the weights learning touched (see _td)."""
    horizon = hist.shape[2]
    vals = np.empty(max(1, np.max(succ_off[1:] - succ_off[:-1])))
    for i in range(movers.shape[0]):
        finished[i] = ONGOING_CODE
        if not active[i]:
            continue
        m = movers[i]
        j0, j1 = succ_off[i], succ_off[i + 1]
        if open_p[i] > 0.0 and np.random.random() < open_p[i]:
            j = j0 + np.random.randint(j1 - j0)          # a random opening, taken as the start
        elif (learn[i] >> m) & 1:
            for jj in range(j0, j1):
                vals[jj - j0] = _batch_value(w, succ_feats, succ_out, jj)
            k = _pick_best(vals, j1 - j0)
            j, v = j0 + k, vals[k]
            explore = np.random.random() < eps
            if count[i, m] > 0 and (learn_explore or not explore):
                _td(w, tcn, tca, hist[i, m], hist_g[i, m], count[i, m], newest[i, m], v, step, lam, dirty)
            if explore:
                j = j0 + np.random.randint(j1 - j0)
                count[i, m] = 0
            if succ_out[j] == ONGOING_CODE:
                newest[i, m] = (newest[i, m] + 1) % horizon
                hist[i, m, newest[i, m]] = succ_feats[j]
                vt = _v(w, succ_feats[j])
                hist_g[i, m, newest[i, m]] = 1.0 - vt * vt
                count[i, m] = min(count[i, m] + 1, horizon)
            else:
                count[i, m] = 0
        else:
            j = j0 + np.random.randint(j1 - j0)
        choice[i] = j - j0
        if succ_out[j] != ONGOING_CODE:
            finished[i] = succ_out[j]
            for p in range(2):
                if count[i, p] > 0:
                    r = float(succ_out[j]) if p == m else -float(succ_out[j])
                    _td(w, tcn, tca, hist[i, p], hist_g[i, p], count[i, p], newest[i, p], r, step, lam, dirty)
                    count[i, p] = 0


@njit(cache=True)
def _batch_value(w, succ_feats, succ_out, j):
    if succ_out[j] == ONGOING_CODE:
        return _v(w, succ_feats[j])
    return float(succ_out[j])


class Lockstep:
    """Games played side by side on a game too large to enumerate: the caller expands every game's
    successors (one Prolog query a ply) and this picks and learns, one numba call a ply.
    ``dirty`` (one byte a weight): learning sets 1 at every weight it touches, for a worker that
    sends back only what it changed; the caller reads and clears it."""

    def __init__(self, net: NTupleNet, options: NTupleOptions, games: int, seed: int,
                 dirty: np.ndarray | None = None) -> None:
        self.net, self.options = net, options
        self.dirty = np.zeros(0, dtype=np.uint8) if dirty is None else dirty
        h = horizon_for(options.lam)
        self.hist = np.zeros((games, 2, h, net.features), dtype=np.int64)
        self.hist_g = np.zeros((games, 2, h))
        self.count = np.zeros((games, 2), dtype=np.int64)
        self.newest = np.zeros((games, 2), dtype=np.int64)
        self.choice = np.zeros(games, dtype=np.int64)
        self.finished = np.zeros(games, dtype=np.int64)
        self.seed = seed
        _seed(seed)

    def pick_starts(self, first: int, games: int) -> list[int | None]:
        """For games ``first`` .. ``first + games`` of a run: the index in --starts-file of the
        position each starts from, or None (the game's initial position), --start-share of them
        at random (the same for the same seed and games)."""
        o = self.options
        if not o.starts or o.start_share <= 0.0:
            return [None] * games
        rng = np.random.default_rng([self.seed, first])
        started = rng.random(games) < o.start_share
        which = rng.integers(len(o.starts), size=games)
        return [int(k) if s else None for s, k in zip(started.tolist(), which.tolist(), strict=True)]

    def reset(self) -> None:
        self.count[:] = 0

    def ply(self, succ_off: np.ndarray, succ_cells: np.ndarray, succ_out: np.ndarray, movers: np.ndarray,
            active: np.ndarray, learn: np.ndarray, frac: float, opening: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray]:
        """Each active game's choice (successor index) and, where the game ended, the outcome for its
        mover; ``opening``: the games at their first ply from the initial position (where
        --random-openings applies)."""
        o = self.options
        eps_end = o.epsilon if o.epsilon_end is None else o.epsilon_end      # check() fills both in
        alpha_end = o.alpha if o.alpha_end is None else o.alpha_end
        eps = o.epsilon + (eps_end - o.epsilon) * frac
        step = (o.alpha + (alpha_end - o.alpha) * frac) / self.net.features
        counts = np.diff(succ_off)
        feats = self.net.indices(succ_cells, np.repeat(np.where(active, movers, 0), counts))
        _batch_ply(self.net.weights, self.net.tc_n, self.net.tc_a, succ_off, feats, succ_out, movers, active, learn, eps, step, o.lam,
                   self.hist, self.hist_g, self.count, self.newest, self.choice, self.finished, o.learn_explore,
                   np.where(opening, o.random_openings, 0.0) if opening is not None else np.zeros(len(movers)),
                   self.dirty)
        n = len(movers)
        return self.choice[:n], self.finished[:n]


@njit(cache=True)
def _seed(seed):
    np.random.seed(seed)
