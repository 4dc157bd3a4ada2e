"""The TD(λ) n-tuple learner (after GBG) from the bridge: its net between the knowledge base,
Prolog and learners/ntuple.py, and training runs.

On a game that fits the position limit, the learner trains on the compiled
state graph: every state's cells are asked of Prolog once, and whole games
are played in numba.  On a larger one (Connect Four) it plays a batch of
games side by side, with one Prolog query a ply for the whole batch
(rules/ntuple.pl, nt_batch_step/2): each successor's cells cross packed
into a few whole numbers, never a Python object per cell.  The agent plays in Prolog (rules/ntuple.pl) from
its stored weights.
"""
from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from educable.bridge import cluster, files, games, graphs
from educable.bridge.compile import TooLarge
from educable.bridge.engine import ROWS_PER_CALL, BadInput, engine, quote
from educable.bridge.options import checked, existing_agent
from educable.bridge.perfect import GAME as PERFECT_GAME
from educable.bridge.perfect import POSITIONS
from educable.bridge.wording import score_result
from educable.kb import store
from educable.learners import exact
from educable.learners import tiles as tile_games
from educable.learners.graph import CHANCE, CUT, ONGOING, StateGraph
from educable.learners.ntuple import (
    DEFAULT_TABLE,
    MAX_LENGTH,
    MAX_TUPLES,
    MAX_WEIGHTS,
    ONGOING_CODE,
    Lockstep,
    NTupleNet,
    NTupleOptions,
    board_defaults,
    default_shape,
    derive_permutations,
    offsets_of,
    random_walk_tuples,
    score,
    train_on_graph,
)
from educable.learners.options import declared, run_option
from educable.learners.tiles import LineTables
from educable.learners.training import ENDLESS_PLIES, Commits, Curve, TrainingRun, result_name

if TYPE_CHECKING:
    import sqlite_utils  # in annotations only: kb.db imports it when a database is opened

NAME = "ntuple"
OPTIONS = declared(NTupleOptions, NAME) + (      # the tuples' seed is the first run's --seed
    run_option("until_perfect", bool, False, "Stop at the first checkpoint where eval --exact says perfect on both "
               "sides (on a game small enough to enumerate).", NAME, off=""),
    run_option("tuples_file", str, None, "Tuples of your own: one tuple a line, its cell numbers (from 1, as "
               "cells/4 gives them) separated by spaces.", NAME, metavar="FILE", place=True),
    run_option("starts_file", str, None, "Positions to start training games from: one a line, as `query` takes "
               "them ('#' starts a comment); --start-share of the games (0.5 unless given) start from one of them "
               "at random.", NAME, metavar="FILE", place=True),
    run_option("workers", int, 1, "Self-play on a game too large to enumerate on this many Dask workers (a local "
               "cluster), weights merged after every 4,096 games a worker (25 on 2048).", NAME, low=1, high=64),
    run_option("scheduler", str, None, "... or on the Dask scheduler at ADDRESS (default: $EDUCABLE_SCHEDULER "
               "when --workers is above 1).", NAME, metavar="ADDRESS", place=True))
SAMPLE_GAMES = 300        # random games whose states show a game's cell values and symmetries
TUPLES_DIR = Path(__file__).resolve().parent.parent / "learners" / "tuples"
#   Tuple sets published for a game: a new agent of that game takes them when it is given no tuples
#   of its own (--tuples-file) and no random-walk shape (--tuples, --length, --neighbours).
PUBLISHED_TUPLES = {"connect(4,7,6)": TUPLES_DIR / "connect4_gbg70.txt",   # GBG's 70 8-tuples
                    "2048": TUPLES_DIR / "2048_lines_squares.txt"}       # Szubert and Jaśkowski's 17 4-tuples
LOCKSTEP = 256            # games played side by side on a game too large to enumerate


def read_tuples(path: str) -> list[list[int]]:
    """Tuples from a file: one a line, cell numbers (from 1) separated by spaces or commas; '#' starts
    a comment.  At most MAX_TUPLES tuples of MAX_LENGTH cells.  BadInput for a file that cannot be
    read (bridge.files) or a line that is not whole numbers."""
    text = files.read_text(path, "tuples file")
    tuples = []
    for n, raw in enumerate(text.splitlines(), 1):
        words = raw.split("#")[0].replace(",", " ").split()
        if not words:
            continue
        if not all(w.isascii() and w.isdigit() and len(w) <= 6 for w in words):
            raise BadInput(f"{path}:{n}: a tuple is whole cell numbers from 1 separated by spaces, not {raw.strip()[:60]!r}")
        if len(words) > MAX_LENGTH:
            raise BadInput(f"{path}:{n}: a tuple of {len(words)} cells; at most {MAX_LENGTH}")
        tuples.append([int(w) for w in words])
        if len(tuples) > MAX_TUPLES:
            raise BadInput(f"{path}:{n}: more than {MAX_TUPLES:,} tuples")
    if not tuples:
        raise BadInput(f"{path}: no tuples (one a line, cell numbers from 1 separated by spaces)")
    return tuples


MAX_STARTS = 10_000       # positions in a --starts-file


def read_starts(path: str) -> list[str]:
    """Positions from a file: one a line, as the game's position text ('#' starts a comment); at most
    MAX_STARTS.  BadInput for a file that cannot be read or holds none; the positions themselves are
    read by the game's rules when a run starts (start_keys)."""
    text = files.read_text(path, "starts file")
    starts = [line.split("#")[0].strip() for line in text.splitlines()]
    starts = [t for t in starts if t]
    if not starts:
        raise BadInput(f"{path}: no positions (one a line, as `educable query` takes them)")
    if len(starts) > MAX_STARTS:
        raise BadInput(f"{path}: {len(starts):,} positions; at most {MAX_STARTS:,}")
    return starts


def start_keys(game: str, starts: list[str]) -> list[str]:
    """Each position of --starts-file as its key, read by the game's rules; BadInput names the first
    that is malformed, cannot happen, or is over (a game from it has nothing to learn)."""
    keys = []
    for n, text in enumerate(starts, 1):
        try:
            state = games.parse(game, text)
        except BadInput as exc:
            raise BadInput(f"--starts-file, position {n}: {exc}") from None
        if games.result(state) is not None:
            raise BadInput(f"--starts-file, position {n} ({state.key}): the game is over there")
        keys.append(state.key)
    return keys


def options_from(params: dict[str, Any]) -> NTupleOptions:
    """Stored or typed parameters as checked options; BadInput names a bad one."""
    known = {k: v for k, v in params.items() if k not in ("perms", "n_cells")}
    return checked(NTupleOptions, known, NAME)


def _cells(text: str, n_cells: int) -> np.ndarray:
    """Prolog's cell string (one character a cell, code 48 + value) as rows of ``n_cells``."""
    flat = np.frombuffer(text.encode("latin-1"), dtype=np.uint8).astype(np.int64) - 48
    return flat.reshape(-1, n_cells) if n_cells else flat.reshape(0, 0)


WORD_BITS = 60             # bits of one packed number (nt_batch_step/2): a multiple of 2 and of 6


def words_per_state(n_cells: int, bits: int) -> int:
    """Packed numbers of WORD_BITS bits that hold ``n_cells`` cells of ``bits`` bits."""
    return -(-bits * n_cells // WORD_BITS)


def packing(net: NTupleNet) -> tuple[int, int]:
    """How a successor's cells cross from nt_batch_step/2: (bits a cell, numbers a successor)."""
    bits = 2 if net.values <= 4 else 6
    return bits, words_per_state(net.n_cells, bits)


def unpack(words: list[int], n_cells: int, bits: int) -> np.ndarray:
    """Rows of ``n_cells`` cells from nt_batch_step/2's packed numbers (each successor's cells read as
    one number, ``bits`` a cell, the first cell most significant, cut into numbers of WORD_BITS bits,
    the least significant first)."""
    packed = np.asarray(words, dtype=np.int64).reshape(-1, words_per_state(n_cells, bits))
    at = bits * np.arange(n_cells - 1, -1, -1)          # the first cell is the most significant
    return (packed[:, at // WORD_BITS] >> (at % WORD_BITS)) & ((1 << bits) - 1)


def new_net(game: str, opts: NTupleOptions, sample: dict) -> tuple[NTupleNet, NTupleOptions]:
    """An agent's net with no weights yet: tuples from the options (or random walks over the board),
    symmetries read from ``sample`` (nt_random_images' answer), cell values as the options or the sample say."""
    base, images = states_of(sample)
    n_cells = base.shape[1]
    values = opts.values or max(2, int(images.max()) + 1)
    sets = 2 if opts.per_player else 1
    if opts.tuple_cells is not None:
        bad = [c for t in opts.tuple_cells for c in t if not 1 <= c <= n_cells]
        if bad:
            raise BadInput(f"tuple cell {bad[0]} is not a cell of {game} (its cells/4 gives cells 1-{n_cells})")
        tuples = [[c - 1 for c in t] for t in opts.tuple_cells]
    else:
        count, length = default_shape(n_cells)
        count, length = opts.tuples or count, min(opts.length or length, n_cells)
        while opts.length is None and length > 1 and (values ** length > DEFAULT_TABLE
                                                      or count * sets * values ** length > MAX_WEIGHTS):
            length -= 1         # the board's default length, shortened where its cells take many values
        layout = games.layout(game)
        tuples = random_walk_tuples(n_cells, layout[0] if layout else None, count, length, opts.seed,
                                    diagonals=opts.neighbours == "8")
    perms = derive_permutations(base, images[:, 1:]) if opts.fold else [list(range(n_cells))]
    opts.values = values
    try:
        return NTupleNet(tuples * sets, perms, values, n_cells, sets=sets), opts
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def states_of(sample: dict) -> tuple[np.ndarray, np.ndarray]:
    """nt_random_images' answer as (cells of each state, cells of its images), for the states that have
    the usual number of images; a state's own cells are those of its first image (symmetry/3 gives
    the identity first)."""
    counts = sample["counts"]
    total = sum(counts)
    text = sample["cells"]
    if not total or len(text) % total or not len(text):
        raise BadInput("the n-tuple learner needs cells/4 to give the same number of cells (at least one) "
                       "in every position")
    rows = _cells(text, len(text) // total)
    common = max(set(counts), key=counts.count)
    base, images, at = [], [], 0
    for c in counts:
        if c == common:
            base.append(rows[at])
            images.append(rows[at:at + c])
        at += c
    return np.array(base), np.array(images)


def net_from_row(db: sqlite_utils.Database, row: dict, coherence: bool = False) -> tuple[NTupleNet, NTupleOptions]:
    """A stored agent's net, weights included, and with ``coherence`` its temporal-coherence sums
    when it keeps them (training goes on with them; playing needs none)."""
    params = row["params"]
    opts = options_from(params)
    tuples, weights = store.load_ntuple(db, row["name"], params)
    perms, n_cells = params["perms"], params["n_cells"]
    if opts.values is None:          # a stored agent always has its cell values (read_ntuple checks them)
        raise store.bad_row("agents", f"agent {row['name']!r}", "its params give no cell values")
    try:
        net = NTupleNet(tuples, perms, opts.values, n_cells, sets=2 if opts.per_player else 1)
    except ValueError as exc:
        raise BadInput(f"agent '{row['name']}': {exc}") from None
    k = opts.values
    coherent = coherence and any(sizes is not None for *_, sizes in weights)
    net.start_coherence(coherent)
    for t, pattern, w, changes, sizes in weights:
        index = int(net.offsets[t]) + sum((ord(ch) - 48) * k ** i for i, ch in enumerate(pattern))
        net.weights[index] = w
        if coherent:
            net.tc_n[index], net.tc_a[index] = changes or 0.0, sizes or 0.0
    return net, opts


def weight_rows(net: NTupleNet) -> list[store.WeightRow]:
    """The net's learned weights as (tuple, pattern, weight, temporal-coherence sums): the pattern is
    the tuple's cell values in its cell order, one character each (code 48 + value), the first cell
    least significant in the index.  A weight is listed when it is not 0 or (with coherence sums) it
    was ever asked to change; its sums are None when the net keeps none."""
    coherent = net.coherent
    rows: list[store.WeightRow] = []
    for t, cells in enumerate(net.tuples):
        lo, hi = int(net.offsets[t]), int(net.offsets[t + 1])
        learned = net.weights[lo:hi] != 0
        if coherent:
            learned |= net.tc_a[lo:hi] != 0
        nz = np.nonzero(learned)[0]
        digits = (nz[:, None] // net.values ** np.arange(len(cells))[None, :]) % net.values + 48
        texts = digits.astype(np.uint8).view(f"S{len(cells)}").ravel()
        sums = zip(net.tc_n[lo + nz].tolist(), net.tc_a[lo + nz].tolist(), strict=True) if coherent else [(None, None)] * len(nz)
        rows += ((t, b.decode("latin-1"), w, n, a) for b, w, (n, a) in
                 zip(texts, net.weights[lo + nz].tolist(), sums, strict=True))
    return rows


def save(db: sqlite_utils.Database, name: str, game: str, net: NTupleNet, opts: NTupleOptions, games_added: int,
         run: dict | None = None, point: store.CurvePoint | None = None) -> None:
    params = {**opts.as_dict(), "perms": net.perms, "n_cells": net.n_cells}
    store.save_ntuple(db, name, game, NAME, params, net.tuples, weight_rows(net), games_added, run, point)


CUT_CODE = -8      # a lazily expanded game still going after ENDLESS_PLIES plies (ONGOING_CODE is -9)


def curve_point(started: str, winners: list[int], masks: list[int], strength: dict | None = None) -> store.CurvePoint:
    """The run's learning curve so far: (started, games, lost, draws, strength), a game lost when its
    winner (player index, 2 a draw) is not a side the agent played (in self-play, every decisive
    game); ``strength`` what the agent has reached (exact_strength, FixedPositions.strength)."""
    w = np.asarray(winners, dtype=np.int64)
    mask = np.asarray(masks, dtype=np.int64)[np.arange(len(w)) % len(masks)]
    decisive = (w != 2) & (w != CUT)                                    # a game cut off counts as a draw
    theirs = ((mask >> np.where(decisive, w, 0)) & 1) == 0          # the winner is not the agent's side
    lost = decisive & ((mask == 3) | theirs)
    return started, len(w), int(lost.sum()), int((~decisive).sum()), strength


def exact_strength(point: dict | None) -> dict | None:
    """An exact checkpoint (exact.checkpoint) as a curve point's strength: what the agent guarantees
    on each side and whether that is perfect, and the share of sides that are (0, 0.5 or 1)."""
    if point is None:
        return None
    sides = {side: {k: point[side][k] for k in ("guaranteed", "perfect")} for side in ("as_first", "as_second")}
    share = sum(s["perfect"] for s in sides.values()) / 2
    return {"kind": "exact", "games": point["games"], "share": share, **sides}


class FixedPositions:
    """Connect Four's fixed positions (bridge/data/c4_positions.jsonl: from random, noisy and perfect
    play, every move's value found by the perfect player) made ready to measure a net on, in numpy:
    each position's afterstates as cells (one Prolog query, at the start of a run), so that the move
    accuracy at a commit costs milliseconds.  The move a net plays is the one `query` and `play`
    show: the best afterstate value for the mover (a won end 1, a drawn one 0)."""

    def __init__(self, game: str) -> None:
        items = [json.loads(line) for line in POSITIONS.read_text().splitlines()]
        lines = ", ".join("[" + ", ".join(quote(m) for m in item["moves"]) + "]" for item in items)
        out = engine().call(f"ntuple:nt_afterstates({quote(game)}, [{lines}], Out)")
        self.movers, self.fixed, self.rows, self.good, self.texts = [], [], [], [], []
        self.lines = [item["moves"] for item in items]
        cells: list[str] = []
        for item, (mover, children) in zip(items, out, strict=True):
            best = max(item["values"].values())
            self.movers.append(mover)
            self.texts.append([t for t, _, _ in children])
            self.fixed.append([np.nan if r == "none" else float(r) for _, r, _ in children])
            self.rows.append([len(cells) + j for j in range(sum(r == "none" for _, r, _ in children))])
            self.good.append([item["values"].get(t) == best for t, _, _ in children])
            cells += [c for _, r, c in children if r == "none"]
        self.cells = _cells("".join(cells), len(cells[0]) if cells else 0)
        self.viewer = np.repeat(self.movers, [len(r) for r in self.rows]).astype(np.int64)

    def choices(self, net: NTupleNet) -> list[int]:
        """The move (its index among the position's legal moves) ``net`` plays in each position: the
        best afterstate value for the mover, the first of equals."""
        values = score(net.value(self.cells, self.viewer)) if len(self.cells) else np.zeros(0, np.int64)
        out = []
        for fixed, rows in zip(self.fixed, self.rows, strict=True):
            it = iter(values[rows].tolist())
            scored = [int(score(f)) if not np.isnan(f) else next(it) for f in fixed]
            out.append(int(np.argmax(scored)))
        return out

    def strength(self, net: NTupleNet) -> dict:
        """The share of positions where ``net`` plays a move of the best value."""
        right = sum(good[k] for good, k in zip(self.good, self.choices(net), strict=True))
        return {"kind": "accuracy", "positions": len(self.good), "accuracy": round(right / len(self.good), 4)}


def load(db: sqlite_utils.Database, row: dict) -> None:
    """Put a stored agent into Prolog (rules/ntuple.pl), its non-zero weights in pages."""
    net, _opts = net_from_row(db, row)
    engine().call(f"ntuple:nt_load({quote(row['name'])}, {quote(row['game'])}, {net.values}, {net.sets}, "
                  f"{net.tuples}, {net.perms}), Out = true")
    nz = np.nonzero(net.weights)[0]
    for i in range(0, len(nz), ROWS_PER_CALL):
        page = nz[i:i + ROWS_PER_CALL]
        data = ", ".join(f"[{int(j)}, {float(net.weights[j])!r}]" for j in page)
        engine().call(f"ntuple:nt_weights({quote(row['name'])}, [{data}]), Out = true")


PAGE = 2000                 # states whose cells one Prolog query gives


@contextmanager
def cell_values_checked() -> Iterator[None]:
    """A cell value past what the agent's tables hold (the game file changed since it was made) is
    one line, not a numpy error."""
    try:
        yield
    except ValueError as exc:
        raise BadInput(f"{exc}: train a new agent with --values") from None


def _pages(graph: StateGraph, net: NTupleNet):
    """(player index, first state, the cells of states first.. as that player sees them), a page at a
    time (each page's positions read once in Prolog for every player)."""
    players = len(graph.players)
    for i in range(0, graph.size, PAGE):
        keys = graph.keys[i:i + PAGE]
        text = engine().call(f"ntuple:nt_cells({quote(graph.game)}, [{', '.join(quote(k) for k in keys)}], "
                             f"[{', '.join(quote(p) for p in graph.players)}], Out)")
        cells = _cells(text, net.n_cells)
        for p in range(players):
            yield p, i, cells[p::players]


def graph_features(graph: StateGraph, net: NTupleNet) -> np.ndarray:
    """(states, 2, features): each state's weight indices as each player sees it (for training on
    the graph; one Prolog query per 2,000 states and player).  The last one made, when it is small,
    is remembered for graph_values (a run's closing judgement reads the same features again)."""
    global _LAST_FEATURES
    out = np.empty((graph.size, 2, net.features), dtype=np.int64)
    with cell_values_checked():
        for p, i, cells in _pages(graph, net):
            out[i:i + len(cells), p] = net.indices(cells, p)
    _LAST_FEATURES = (_features_key(graph, net), out) if out.nbytes <= FEATURES_KEPT else None
    return out


FEATURES_KEPT = 256 << 20       # bytes of features graph_features keeps for the next graph_values
_LAST_FEATURES: tuple[tuple, np.ndarray] | None = None


def _features_key(graph: StateGraph, net: NTupleNet) -> tuple:
    """What a graph's features depend on: the graph (this process's object) and the net's tuples,
    symmetries, cell values and sets."""
    return (id(graph), graph.game, graph.size, net.n_cells, net.values, net.sets, net.tuple_array.tobytes(),
            net.perm_array.tobytes())


def graph_values(graph: StateGraph, net: NTupleNet, feats: np.ndarray | None = None, squash: bool = True) -> np.ndarray:
    """(states, 2): each state's value as each player sees it, a page of states at a time, from
    ``feats`` when given, else from Prolog's cells (no array of every state's features: judging
    the 1.2 million classes of 4x4 tic-tac-toe took 10 GB that way); not ``squash``: the sums
    of the weights, without tanh (a game of score's points to come)."""
    out = np.empty((graph.size, 2))
    if feats is None and _LAST_FEATURES is not None and _LAST_FEATURES[0] == _features_key(graph, net):
        feats = _LAST_FEATURES[1]
    if feats is not None:
        for i in range(0, graph.size, 65_536):
            out[i:i + 65_536] = net.weights[feats[i:i + 65_536]].sum(axis=2)
    else:
        with cell_values_checked():
            for p, i, cells in _pages(graph, net):
                out[i:i + len(cells), p] = net.weights[net.indices(cells, p)].sum(axis=1)
    return np.tanh(out) if squash else out


def greedy_choices(graph: StateGraph, net: NTupleNet, feats: np.ndarray | None = None) -> exact.Chosen:
    """The moves the agent plays in every state of ``graph``, as a mask over its edges: those whose
    afterstate is worth most to the mover (a move that ends the game: its result), ties kept (as
    rules/ntuple.pl plays).  On a game of score: the move of most points plus the afterstate's value
    (the points still to come; at an end, its score), as learners/tiles.py plays."""
    values = graph_values(graph, net, feats, squash=not graph.scored)     # (states, 2)
    src = graph.source
    tgt = graph.target.astype(np.int64)
    m = graph.mover.astype(np.int64)[src]
    drawn = m == CHANCE                                       # chance's edges: all kept (chance draws, no one chooses)
    m = np.where(drawn, 0, m)
    after = values[tgt, m]
    w = graph.winner[tgt].astype(np.int64)
    done = w != ONGOING
    if graph.scored:
        end = graph.score[tgt] if graph.score is not None else 0.0
        after = (graph.reward if graph.reward is not None else 0.0) + np.where(done, end, after)
    else:
        after = np.where(done, np.where(w == 2, 0.0, np.where(w == m, 1.0, -1.0)), after)
    sc = score(after)
    best = np.full(graph.size, np.iinfo(np.int64).min)
    np.maximum.at(best, src, sc)
    return (sc == best[src]) | drawn


def greedy_support(graph: StateGraph, net: NTupleNet, feats: np.ndarray | None = None) -> exact.Support:
    """greedy_choices as a support (a list of edges a state)."""
    return exact.support_of(graph, greedy_choices(graph, net, feats))


def support(db: sqlite_utils.Database, row: dict, graph: StateGraph) -> exact.Support:
    """The stored agent's moves in every state of ``graph``, computed on the graph."""
    net, _ = net_from_row(db, row)
    return greedy_support(graph, net)


def score_move_values(db: sqlite_utils.Database, row: dict, state: games.State) -> dict[str, float]:
    """An n-tuple agent's value of each move of a game of score: its points plus the value of the
    position it leads to (the sum of the weights: the points still to come; at an end, its score),
    as it plays."""
    net, _ = net_from_row(db, row)
    g = quote(state.game)
    found = engine().call(
        f"game:parse_position({g}, {quote(state.key)}, P, M), game:successors({g}, P, M, S), "
        f"findall([T, N, E, Cs], (member(Mv-(P1/M1), S), game:move_text({g}, Mv, T), "
        f"game:move_points({g}, P, M, Mv, N0), N is float(N0), game:learner_cells({g}, P1, M1, Cs), "
        f"( game:over({g}, P1, M1, R) -> ( R = score(E0) -> E is float(E0) ; E = 0.0 ) ; E = none )), Out)")
    if not found:
        return {}
    with cell_values_checked():
        after = net.weights[net.indices(np.array([cs for *_, cs in found]))].sum(axis=1)
    return {t: n + (float(v) if e == "none" else e) for (t, n, e, _), v in zip(found, after.tolist(), strict=True)}


def learn_game(db: sqlite_utils.Database, row: dict, game: str, keys: list[str], result: str, side: str) -> None:
    """N-tuple agents learn only in `train`; a game against a person changes nothing."""


def start(db: sqlite_utils.Database, name: str, game: str, options: dict[str, Any], seed: int
          ) -> tuple[NTupleNet, NTupleOptions, dict | None]:
    """The agent's net and options: new (tuples placed with ``seed``), or stored (whose options other
    than the schedules a run may not change)."""
    row = existing_agent(db, name, game, NAME)
    if row is None:
        options_from({**options, "seed": seed})            # bad options are refused before Prolog is asked
        shaped = {"tuple_cells", "tuples", "length", "neighbours"} & {k for k, v in options.items() if v is not None}
        if game in PUBLISHED_TUPLES and not shaped:
            options = {**options, "tuple_cells": read_tuples(str(PUBLISHED_TUPLES[game]))}
        sample = engine().call(f"ntuple:nt_random_images({quote(games.check_game(game))}, {SAMPLE_GAMES}, Out)")
        n_cells = states_of(sample)[0].shape[1]
        net, opts = new_net(game, options_from({**board_defaults(n_cells), **options, "seed": seed}), sample)
        return net, opts, None
    net, stored = net_from_row(db, row, coherence=True)
    per_run = {"alpha", "alpha_end", "epsilon", "epsilon_end", "lam", "tcl", "learn_explore", "random_openings",
               "start_share", "starts"}
    merged = options_from({**stored.as_dict(), **options})
    changed = [k for k, v in merged.as_dict().items() if k not in per_run and stored.as_dict()[k] != v]
    if changed:
        raise BadInput(f"agent '{name}' exists with {', '.join(f'{k}={stored.as_dict()[k]}' for k in changed)}; "
                       "its tuples are fixed when it is made (train a new agent to change them)")
    return net, merged, row


def csr(sup: exact.Support) -> tuple[np.ndarray, np.ndarray]:
    """A support as (start, edges) arrays: state s's choices are edges[start[s]:start[s+1]]."""
    starts = offsets_of([len(x) for x in sup])
    edges = np.array([e for x in sup for e in x], dtype=np.int64)
    return starts, edges


def side_masks(vs: str, side: str) -> list[int]:
    """Bitmasks of the sides the agent plays, game after game: both against itself, else first,
    second or alternating."""
    return [3] if vs == "self" else {"first": [1], "second": [2], "both": [1, 2]}[side]


def run(db: sqlite_utils.Database, game: str, name: str, options: dict[str, Any], vs: str, side: str,
        n_games: int, seed: int, opponents: Any, progress: Callable[..., None] | None = None,
        until_perfect: bool = False, limit: int | None = None, commits: Commits | None = None,
        workers: int = 1, scheduler: str | None = None) -> TrainingRun:
    """Train an n-tuple agent by TD(λ) (on the state graph, or lazily past the position ``limit``, there
    on ``workers`` Dask workers or a ``scheduler``'s).  Against the adversary, its moves are computed
    again before every game from what the agent would play then (exact.adversary_moves)."""
    commits = commits or Commits()
    if games.is_score_game(game):
        return run_tiles(db, game, name, options, vs, n_games, seed, progress, until_perfect, commits, workers,
                         scheduler)
    if vs == "adversary" and "epsilon" not in options:
        # every exploring move is one the adversary punishes: it explores for the agent
        options = {**options, "epsilon": 0.0, "epsilon_end": options.get("epsilon_end", 0.0)}
    net, opts, row = start(db, name, game, options, seed)
    starting = bool(opts.starts) and opts.start_share > 0.0
    if starting:
        opts.starts = start_keys(game, opts.starts or [])
    if opts.tcl != net.coherent:
        net.start_coherence(opts.tcl)       # a stored agent's sums go on (a run stopped and continued)
    solved = None                           # a game of chance's solution, for its exact checkpoints
    try:
        with graphs.compiling_as_stage(progress) as stage:
            graph = graphs.state_graph(db, game, limit, stage, what="training on the whole graph needs every position",
                                       keep=not starting)     # a start no game reaches is refused with nothing written
    except graphs.ChanceGame as chance_game:
        graph = chance_game.graph
        if graph.scored:
            raise
        if vs not in ("self", "random", "minimax"):
            raise BadInput(f"{game} is a game of chance: the n-tuple learner trains there against self, random or "
                           "minimax") from None
        from educable.learners import chance
        solved = chance.solve(graph)
    except TooLarge as exc:
        if vs == "adversary":
            raise BadInput(f"--vs adversary needs the whole state graph: {exc}") from None
        if until_perfect:
            raise graphs.cannot_judge(game, "is too large to judge exactly") from None
        return run_lazily(db, game, name, net, opts, vs, side, n_games, seed, progress, commits, workers, scheduler)
    if until_perfect and solved is None and not graph.acyclic():
        raise graphs.cannot_judge(game, "has positions that repeat, which have no exact judgement")
    feats = graph_features(graph, net)
    starts = graph_states(graph, opts.starts or []) if starting else None
    masks = side_masks(vs, side)
    if solved is not None:
        from educable.learners import chance
        opponent = None if vs in ("self", "random") else csr(exact.support_of(graph, chance.best_moves(graph, solved.value)))
    else:
        opponent = None if vs in ("self", "random", "adversary") else csr(
            exact.optimal_moves(graph) if vs == "minimax" else opponents.support(graph, vs))
    checkpoints: list[dict] = []
    schedule = Curve(n_games, until_perfect, exact.checkpoint_guess(graph))
    winners: list[int] = []
    judged = 0.0
    t0 = time.perf_counter()
    while len(winners) < n_games:
        chunk = min(schedule.tick - len(winners) % schedule.tick, n_games - len(winners))
        done = len(winners)
        if vs == "adversary":
            for g in range(done, done + chunk):
                mask = masks[g % len(masks)]
                adversary = csr(exact.adversary_moves(graph, greedy_support(graph, net, feats), 0 if mask == 2 else 1))
                winners += train_on_graph(net, graph.start, graph.target, graph.winner, graph.mover, feats, opts, 1,
                                          seed * 1_000_003 + g, g, n_games, [mask], adversary, starts).tolist()
        else:
            winners += train_on_graph(net, graph.start, graph.target, graph.winner, graph.mover, feats, opts, chunk,
                                      seed * 1_000_003 + done, done, n_games, masks, opponent, starts,
                                      graph.prob).tolist()
        if progress:
            progress(chunk)
        t = time.perf_counter()
        on_curve = schedule.due(len(winners))
        due = commits.due()                     # a commit's curve point shows the strength reached then
        point = None
        if solved is not None and (on_curve or due and schedule.affordable()):   # chance: by expectimax, cycles too
            from educable.learners import chance
            with schedule.judging():
                point = chance.checkpoint(graph, greedy_choices(graph, net, feats), len(winners), solved)
        elif graph.acyclic() and (on_curve or due and schedule.affordable()):    # repeating positions: no judgement
            with schedule.judging():
                point = exact.checkpoint(graph, greedy_choices(graph, net, feats), len(winners))
        if point is not None and on_curve:
            checkpoints.append(point)
        if due:
            curve = curve_point(commits.started, winners, masks, exact_strength(point))
            commits.commit(len(winners), lambda new: save(db, name, game, net, opts, new, None, curve))  # noqa: B023 (called at once)
        judged += time.perf_counter() - t
        if until_perfect and on_curve and point and point["as_first"]["perfect"] and point["as_second"]["perfect"]:
            break
    seconds = time.perf_counter() - t0 - judged
    extra = {"checkpoints": checkpoints, "checkpoint_seconds": round(judged, 4), "net": describe(net)}
    return finished(db, name, game, net, opts, graph.players, masks, winners, seconds, extra, commits,
                    exact_strength(checkpoints[-1] if checkpoints else None))


def graph_states(graph: StateGraph, starts: list[str]) -> np.ndarray:
    """The graph's states of the positions of --starts-file (their classes on a folded graph); BadInput
    names one that no game reaches."""
    keys = games.canonical_keys(graph.game, starts) if graph.folded else starts
    index = {k: i for i, k in enumerate(graph.keys)}
    for n, (key, given) in enumerate(zip(keys, starts, strict=True), 1):
        if key not in index:
            raise BadInput(f"--starts-file, position {n} ({given}): no game of {graph.game} reaches it")
    return np.array([index[k] for k in keys], dtype=np.int64)


def describe(net: NTupleNet) -> dict[str, Any]:
    """The net's shape for a run's report."""
    return {"tuples": len(net.tuple_array), "lengths": sorted(set(len(t) for t in net.tuples)),
            "symmetries": len(net.perms), "cell_values": net.values, "weight_sets": net.sets,
            "weights": int(net.weights.size), "learned": int(np.count_nonzero(net.weights))}


def finished(db: sqlite_utils.Database, name: str, game: str, net: NTupleNet, opts: NTupleOptions,
             players: list[str], masks: list[int], winners: list[int], seconds: float, extra: dict[str, Any],
             commits: Commits, strength: dict | None = None) -> TrainingRun:
    """A run's report from its games' winners, with the save that stores the net (and its last curve
    point, with the ``strength`` the agent reached)."""
    results = [result_name(w, players) for w in winners]
    sides = [[players[p] for p in (0, 1) if masks[i % len(masks)] >> p & 1] for i in range(len(winners))]

    def save_run(record: dict) -> None:
        save(db, name, game, net, opts, commits.added(len(winners)), {**record, "started": commits.started},
             curve_point(commits.started, winners, masks, strength))

    return TrainingRun(results, sides, seconds, opts.as_dict(), save_run, extra)


def play_batch(game: str, net: NTupleNet, lock: Lockstep, batch: int, first: int, n_games: int,
               masks: list[int]) -> tuple[list[int], int]:
    """Play ``batch`` games (games ``first``.. of a run of ``n_games``) side by side, learning as they
    go, with one Prolog query a ply: each game's winner (player index, 2 a draw) and the queries."""
    learn = np.array([masks[(first + i) % len(masks)] for i in range(batch)], dtype=np.int64)
    bits, words = packing(net)
    starts = lock.pick_starts(first, batch)
    positions = lock.options.starts or []
    terms = ", ".join("initial" if k is None else f"position({quote(positions[k])})" for k in starts)
    # chance's draws (rules/ntuple.pl's settle/6) come from Prolog's generator, seeded per batch
    engine().call(f"set_random(seed({lock.seed * 1_000_003 + first})), "
                  f"ntuple:nt_batch_start({quote(game)}, [{terms}], {bits}, {words}), Out = true")
    opening = np.array([k is None for k in starts])
    choices = [-1] * batch
    result = np.full(batch, ONGOING_CODE, dtype=np.int64)
    mover_at_end = np.zeros(batch, dtype=np.int64)
    lock.reset()
    queries = 0
    while True:
        out = engine().call(f"ntuple:nt_batch_step({choices}, Out)")
        queries += 1
        movers = np.array(out["movers"], dtype=np.int64)
        active = movers >= 0
        if not active.any():
            break
        if queries > ENDLESS_PLIES:                 # the games still going: learned from as draws, reported cut
            result[active] = CUT_CODE
            break
        cells = unpack(out["codes"], net.n_cells, bits)
        with cell_values_checked():
            choice, ended = lock.ply(offsets_of(out["counts"]), cells, np.array(out["outcomes"], dtype=np.int64),
                                     movers, active, learn, first / max(1, n_games - 1),
                                     opening=opening if queries == 1 else None)
        for i in np.nonzero(ended != ONGOING_CODE)[0].tolist():
            result[i], mover_at_end[i] = ended[i], movers[i]
        choices = [int(c) if a else -1 for c, a in zip(choice.tolist(), active.tolist(), strict=True)]
    winners = [CUT if r == CUT_CODE else 2 if r == 0 else m if r == 1 else 1 - m
               for r, m in zip(result.tolist(), mover_at_end.tolist(), strict=True)]
    return winners, queries


def play_touched(game: str, net: NTupleNet, options: dict[str, Any], n: int, first: int, n_games: int,
                 masks: list[int], seed: int, dirty: np.ndarray | None = None, tables: LineTables | None = None
                 ) -> tuple[tuple[np.ndarray, list[np.ndarray]], list, int]:
    """Play and learn games ``first`` .. ``first + n`` of a run on ``net`` in batches; what they
    touched as (the indices learning reached, each array's values there after the games; an array
    without coherence travels empty), the winners and the Prolog queries.  A round touches a small
    part of a large net, and only that part travels: the client, which holds the net as it was
    before the games, turns it into changes (changes_from).  ``dirty``: one byte a weight, all 0,
    that learning marks (a worker keeps it from round to round); it is left all 0 again.  With 2048's
    line ``tables`` the games are played in learners/tiles.py's kernel, and each game's record is
    (score, highest tile exponent, moves) where others give a winner."""
    if dirty is None:
        dirty = np.zeros(net.weights.size, dtype=np.uint8)
    winners: list = []
    queries = 0
    if tables is not None:
        opts = checked(NTupleOptions, options, NAME)
        records = tile_games.play(net.weights, dirty, net.tuple_array, net.offsets, net.perm_array, tables, n,
                                      seed, (opts.alpha, opts.alpha_end or opts.alpha), first, n_games, learn=True,
                                      coherence=(net.tc_n, net.tc_a) if net.coherent else None)
        winners = list(zip(*(r.tolist() for r in records), strict=True))
    else:
        lock = Lockstep(net, checked(NTupleOptions, options, NAME), LOCKSTEP, seed, dirty)
    while tables is None and len(winners) < n:
        w, q = play_batch(game, net, lock, min(LOCKSTEP, n - len(winners)), first + len(winners), n_games, masks)
        winners += w
        queries += q
    touched = np.flatnonzero(dirty)
    dirty[touched] = 0
    values = [a[touched] if a.size == net.weights.size else np.zeros(0) for a in (net.weights, net.tc_n, net.tc_a)]
    return (touched, values), winners, queries


def changes_from(arrays: Sequence[np.ndarray], reports: Sequence[tuple[np.ndarray, list[np.ndarray]]]
                 ) -> list[tuple[np.ndarray, list[np.ndarray]]]:
    """The workers' reports of a round (play_touched: indices and values there) as changes of
    ``arrays``, the net every worker started the round from: at each index, the value after less
    the value before, keeping only the indices where a weight or a coherence sum moved."""
    changes = []
    for touched, values in reports:
        deltas = [v - a[touched] if v.size else v for a, v in zip(arrays, values, strict=True)]
        moved = deltas[0] != 0
        if deltas[2].size:
            moved |= deltas[2] != 0
        changes.append((touched[moved], [d[moved] if d.size else d for d in deltas]))
    return changes


class NetMissing(Exception):
    """A worker asked to go on with a net it does not hold (it was restarted): send it the whole net."""


_KEPT: dict[tuple[str, int], tuple[NTupleNet, np.ndarray]] = {}   # on a worker: (run, slot) -> its net and marks
_DROPPED: set[str] = set()     # on a worker: runs ended (drop_kept), whose late tasks must keep nothing


def kept_selfplay_task(run: str, slot: int, game: str, shape: tuple, options: dict[str, Any],
                       whole: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
                       merged: tuple[np.ndarray, list[np.ndarray]] | None, n: int, first: int, n_games: int,
                       masks: list[int], seed: int, tables: LineTables | None = None
                       ) -> tuple[int, tuple[np.ndarray, list[np.ndarray]], list, int, float]:
    """A Dask task on the worker that holds slot ``slot`` of run ``run``: its copy of the net stays
    there between rounds.  ``whole`` (the weights and coherence sums) starts it; after that only the
    last round's merged change arrives (``merged``: indices and the merged values there, the same for
    every worker), which makes the copy equal to the client's net again.  Then it plays its games
    and sends back only the values it touched (play_touched; with 2048's ``tables``, in its kernel)."""
    key = (run, slot)
    if whole is not None:
        tuples, perms, values, n_cells, sets = shape
        net = NTupleNet(tuples, perms, values, n_cells, whole[0].copy(), sets=sets)
        net.tc_n, net.tc_a = whole[1].copy(), whole[2].copy()
        _KEPT[key] = net, np.zeros(net.weights.size, dtype=np.uint8)
    elif key not in _KEPT:
        raise NetMissing(f"worker lost the net of slot {slot}")
    net, dirty = _KEPT[key]
    if merged is not None:
        where, values_there = merged
        for array, v in zip((net.weights, net.tc_n, net.tc_a), values_there, strict=True):
            if v.size:
                array[where] = v
    t0 = time.perf_counter()
    report, winners, queries = play_touched(game, net, options, n, first, n_games, masks, seed, dirty, tables)
    if run in _DROPPED:         # the run ended (stopped) while this task ran, or before it started
        _KEPT.pop(key, None)
    return first, report, winners, queries, time.perf_counter() - t0


def drop_kept(run: str) -> int:
    """On a worker: forget the nets of run ``run`` (its end), and keep none a late task of it would
    leave; how many there were."""
    _DROPPED.add(run)
    keys = [k for k in _KEPT if k[0] == run]
    for k in keys:
        del _KEPT[k]
    return len(keys)


def merged_values(arrays: Sequence[np.ndarray], changes: Sequence[tuple[np.ndarray, list[np.ndarray]]],
                  where: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """What every worker needs after a round's merge: the indices any worker changed (``where``, from
    merge_changes) and the merged arrays' values there (an array no worker changes travels empty)."""
    sized = [any(change[i].size for _, change in changes) for i in range(len(arrays))]
    return where, [a[where] if size else np.zeros(0) for a, size in zip(arrays, sized, strict=True)]


def nbytes(obj: Any) -> int:
    """The bytes of the arrays in ``obj`` (nested tuples and lists): what a message carries."""
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, (tuple, list)):
        return sum(nbytes(x) for x in obj)
    return 0


ROUND_GAMES = 16 * LOCKSTEP    # games each worker plays from the same weights before they are merged
WORKERS_BACK_SECONDS = 60      # how long a run waits for a worker when none is left (restarted)


def merge_changes(arrays: Sequence[np.ndarray], changes: Sequence[tuple[np.ndarray, list[np.ndarray]]],
                  hits: np.ndarray | None = None) -> np.ndarray:
    """Apply the workers' changes of one round (each: the distinct indices it changed, the change of
    each array there) to ``arrays``: a weight one worker changed takes that change, one that k
    workers changed the mean of theirs.  Summing them would move a weight every game reads (the
    opening's patterns) k times as far as one worker found it should go, since each worker started
    from the same value.  Returns the indices any worker changed, in order.  ``hits``: a counter a
    weight, all 0 (the caller may keep it from round to round; it is left all 0): counting there
    costs a pass over the touched indices, where sorting them cost ten times as much."""
    if hits is None:
        hits = np.zeros(arrays[0].size, dtype=np.uint16)
    for touched, _ in changes:
        hits[touched] += 1
    for touched, change in changes:
        share = hits[touched]
        for array, d in zip(arrays, change, strict=True):
            if d.size:
                array[touched] += d / share
    where = np.flatnonzero(hits)
    hits[where] = 0
    return where


TILE_ROUND_GAMES = 25      # 2048's games a worker plays a round: in rounds of 250 the nets drifted apart (2048_sweep.json)
TILE_OPTIONS = ("lam", "per_player", "epsilon", "epsilon_end", "random_openings", "start_share", "starts",
                "learn_explore")     # options 2048's kernel has no use for (it learns by TD(0), greedily)
TILE_TCL_ALPHA = 1.0    # the step a 2048 run takes with temporal coherence (Jaśkowski's)
TILES = (1024, 2048, 4096, 8192)   # the tiles whose share of games a 2048 run's curve follows


def tile_curve_point(records: list[tuple[int, int, int]], games: int) -> dict[str, Any]:
    """A 2048 run's curve at ``games``: the mean score of ``records`` (the games since the last point)
    and the share of them whose highest tile reached each of TILES."""
    tops = np.array([r[1] for r in records], dtype=np.int64)
    return {"games": games, "mean_score": round(statistics.fmean(r[0] for r in records), 1),
            "reached": {str(t): round(float(np.mean(tops >= t.bit_length() - 1)), 4) for t in TILES}}


def run_tiles(db: sqlite_utils.Database, game: str, name: str, options: dict[str, Any], vs: str, n_games: int,
              seed: int, progress: Callable[..., None] | None, until_perfect: bool, commits: Commits,
              workers: int = 1, scheduler: str | None = None) -> TrainingRun:
    """Szubert and Jaśkowski's TD(0) on afterstates for a game of score that slides tiles as 2048 does
    (bridge/tiles.py reads and checks its line tables), by default with temporal coherence as Jaśkowski
    (2018) learned 2048 (Beal and Smith's |N|/A, a constant step of TILE_TCL_ALPHA): games played
    greedily in learners/tiles.py's kernel, on ``workers`` Dask workers in rounds of TILE_ROUND_GAMES
    games a worker (Rounds).  The curve (the report's): every fortieth of the run, the mean score and
    the share of games reaching each of TILES; each commit stores the same of the games since the
    last one (the page's live curve)."""
    from educable.bridge import tiles
    if vs != "self":
        raise BadInput(f"{game} is a game of score (one player): the agent plays it alone (leave out --vs)")
    if until_perfect:
        raise BadInput(f"--until-perfect judges a game of two players; {game} is a game of score")
    given = sorted(k for k in TILE_OPTIONS if options.get(k) not in (None, NTupleOptions.__dataclass_fields__[k].default))
    if given:
        raise BadInput(f"{game}: the n-tuple learner plays a game of score greedily and learns by TD(0) on "
                       f"afterstates, as Szubert and Jaśkowski; --{given[0].replace('_', '-')} has no use there")
    rows, columns = tiles.shape(game)
    if existing_agent(db, name, game, NAME) is None:    # a new agent's defaults; a stored one keeps its own
        if options.get("tcl") is None:     # on one worker: 90% reached 2048 after 40,000 games, TD(0) 76% after 50,000
            options = {**options, "tcl": True}
        if options["tcl"] and options.get("alpha") is None:
            options = {**options, "alpha": TILE_TCL_ALPHA, "alpha_end": options.get("alpha_end") or TILE_TCL_ALPHA}
        if "values" not in options:        # the largest tile a board can hold: 2 ** (cells + 1), 32768 at most
            options = {**options, "values": min(16, rows * columns + 2)}
        shaped = {"tuple_cells", "tuples", "length", "neighbours"} & {k for k, v in options.items() if v is not None}
        if not shaped and game not in PUBLISHED_TUPLES:     # random walks of 4 cells, as the published 2048 net's
            options = {**options, "length": min(4, rows * columns)}
    net, opts, row = start(db, name, game, {**options, "epsilon": 0.0}, seed)
    if opts.tcl != net.coherent:
        net.start_coherence(opts.tcl)       # a stored agent's sums go on (a run stopped and continued)
    if progress:
        progress(0, "reading the rules into line tables")
    tables = tiles.tables_for(game, int(opts.values or 16))
    if progress:
        progress(0, "")
    records: list[tuple[int, int, int]] = []
    curve: list[dict[str, Any]] = []
    every = max(1, n_games // 40)
    moved = Moved()
    t0 = time.perf_counter()
    committing = 0.0
    dirty = np.zeros(net.weights.size, dtype=np.uint8)
    with cluster.engine(workers, scheduler) as client:
        rounds = None if client is None else Rounds(client, workers, game, net, opts, [1], n_games, seed, moved)
        if rounds is not None:
            rounds.tables, rounds.round_games = tables, TILE_ROUND_GAMES
        try:
            if rounds is not None:
                rounds.start(0)
            while len(records) < n_games:
                done = len(records)
                if rounds is None:
                    n = min(TILE_ROUND_GAMES, n_games - done)
                    new = play_touched(game, net, opts.as_dict(), n, done, n_games, [1], seed * 1_000_003 + done,
                                       dirty, tables)[1]
                else:
                    new = rounds.finish()[0]
                records += new
                if progress:
                    progress(len(new))
                if rounds is not None and len(records) < n_games:
                    rounds.start(len(records))
                while (len(curve) + 1) * every <= len(records):
                    at = (len(curve) + 1) * every
                    curve.append(tile_curve_point(records[at - every:at], at))
                if commits.due():       # the live curve: the games since the last commit
                    t = time.perf_counter()
                    since = records[commits.kept:] or records[-1:]
                    point = (commits.started, len(records), 0, 0, tile_curve_point(since, len(records)))
                    commits.commit(len(records), lambda new: save(db, name, game, net, opts, new, None, point))  # noqa: B023 (called at once)
                    committing += time.perf_counter() - t
        finally:
            if rounds is not None:
                rounds.close()
    seconds = time.perf_counter() - t0 - committing
    scores = [float(r[0]) for r in records]
    last = tile_curve_point(records[commits.kept:] or records[-1:], len(records)) if records else None
    extra = {"curve": curve, "mean_score": statistics.fmean(scores) if scores else None,
             "tiles": {"workers": workers, "round_games": TILE_ROUND_GAMES, "moves": sum(r[2] for r in records),
                       **moved.report()}, "net": describe(net)}

    def save_run(record: dict) -> None:
        save(db, name, game, net, opts, commits.added(len(records)), {**record, "started": commits.started},
             (commits.started, len(records), 0, 0, last))

    (player,) = games.players(game)
    return TrainingRun([score_result(x) for x in scores], [[player]] * len(scores), seconds, opts.as_dict(),
                       save_run, extra)


TILE_PAGE = 50      # 2048's games played between two progress reports of eval


def evaluate_tiles(db: sqlite_utils.Database, game: str, shown: str, name: str, depth: int, n_games: int, seed: int,
                   progress: Callable[..., None] | None = None) -> dict[str, Any]:
    """``eval`` of n-tuple agent ``name`` on a game of score that slides tiles as 2048 does: ``n_games``
    games played in learners/tiles.py's kernel by its values, ``depth`` moves deep (2: expectimax over
    the new tiles, the agent valuing the horizon); the mean score with a 95% interval, the lowest and
    highest, and the share of games whose highest tile reached each tile from 256 up."""
    from educable.bridge import tiles
    row = store.get_agent(db, name)
    assert row is not None  # noqa: S101  (narrows a type for mypy; commands.tile_player found it)
    net, opts = net_from_row(db, row)
    if progress:
        progress(0, "reading the rules into line tables")
    tables = tiles.tables_for(game, int(opts.values or 16))
    if progress:
        progress(0, "")
    parts = []
    for first in range(0, n_games, TILE_PAGE):
        n = min(TILE_PAGE, n_games - first)
        parts.append(tile_games.play(net.weights, np.zeros(1, dtype=np.uint8), net.tuple_array, net.offsets,
                                     net.perm_array, tables, n, seed * 1_000_003 + first, depth=depth))
        if progress:
            progress(n)
    scores, tops, moves = (np.concatenate([p[i] for p in parts]) for i in range(3))
    mean = float(scores.mean())
    half = 1.96 * float(scores.std(ddof=1)) / len(scores) ** 0.5
    reached = {str(2 ** e): round(float(np.mean(tops >= e)), 4) for e in range(8, int(tops.max()) + 1)}
    return {"game": game, "agent": shown, "games": n_games, "seed": seed, "score": True, "mean_score": mean,
            "interval95": [mean - half, mean + half], "lowest": int(scores.min()), "highest": int(scores.max()),
            "reached": reached, "mean_moves": float(moves.mean()), "depth": depth}


def run_lazily(db: sqlite_utils.Database, game: str, name: str, net: NTupleNet, opts: NTupleOptions, vs: str,
               side: str, n_games: int, seed: int, progress: Callable[[int], None] | None,
               commits: Commits, workers: int = 1, scheduler: str | None = None) -> TrainingRun:
    """TD(λ) on a game too large to enumerate: LOCKSTEP games side by side, one Prolog query a ply.

    With several workers (Dask), training goes in rounds: each worker plays ROUND_GAMES games from
    the same weights with a seed of its own, and the round ends by merging the workers' changes
    (merge_changes: a weight changed by several workers takes the mean of their changes)."""
    if vs not in ("self", "random"):
        raise BadInput(f"{game} is too large to enumerate: the n-tuple learner trains there against self or "
                       f"random (--vs {vs} needs every position)")
    masks = side_masks(vs, side)
    players = games.players(game)
    winners: list[int] = []
    queries = 0
    t0 = time.perf_counter()
    committing = 0.0
    moved = Moved()
    fixed = FixedPositions(game) if game == PERFECT_GAME else None    # the strength curve's measure
    measured: list[dict] = []
    with cluster.engine(workers, scheduler) as client:
        lock = Lockstep(net, opts, LOCKSTEP, seed) if client is None else None
        rounds = None if client is None else Rounds(client, workers, game, net, opts, masks, n_games, seed, moved)
        try:
            if rounds is not None:
                rounds.start(0)
            while len(winners) < n_games:
                done = len(winners)
                if rounds is None:
                    assert lock is not None  # noqa: S101  (narrows a type for mypy; true by construction)
                    new, q = play_batch(game, net, lock, min(LOCKSTEP, n_games - done), done, n_games, masks)
                else:
                    new, q = rounds.finish()
                winners += new
                queries += q
                if progress:
                    progress(len(new))
                if rounds is not None and len(winners) < n_games:
                    rounds.start(len(winners))  # the workers play the next round while this one is committed
                if commits.due():
                    t = time.perf_counter()
                    strength = fixed.strength(net) if fixed is not None else None
                    if strength is not None:
                        measured.append({"games": len(winners), **strength})
                    curve = curve_point(commits.started, winners, masks, strength)
                    commits.commit(len(winners), lambda new: save(db, name, game, net, opts, new, None, curve))  # noqa: B023 (called at once)
                    committing += time.perf_counter() - t
        finally:
            if rounds is not None:
                rounds.close()
    seconds = time.perf_counter() - t0 - committing
    last = fixed.strength(net) if fixed is not None else None
    if last is not None:
        measured.append({"games": len(winners), **last})
    extra = {"lazy": {"prolog_queries": queries, "lockstep": LOCKSTEP, "workers": workers, **moved.report()},
             "net": describe(net), "strength": measured}
    return finished(db, name, game, net, opts, players, masks, winners, seconds, extra, commits, last)


@dataclass
class Moved:
    """The bytes that crossed between the client and the workers, and each round's seconds."""

    rounds: int = 0
    to_workers: int = 0
    from_workers: int = 0
    first_round: int = 0            # the whole net, sent once to each worker
    seconds: list[float] = field(default_factory=list)
    playing: list[float] = field(default_factory=list)     # a round's longest task, its games alone

    def report(self) -> dict[str, Any]:
        if not self.rounds:
            return {}
        later = max(1, self.rounds - 1)
        timing = {"seconds_first_round": round(self.seconds[0], 2)} if self.seconds else {}
        if len(self.seconds) > 1:
            timing["seconds_a_round_after"] = round(statistics.median(self.seconds[1:]), 2)
            timing["seconds_playing_a_round_after"] = round(statistics.median(self.playing[1:]), 2)
        return {"rounds": self.rounds, "bytes_first_round": self.first_round,
                "bytes_per_round": round((self.to_workers + self.from_workers - self.first_round) / later), **timing}


class Rounds:
    """Self-play on Dask workers that keep the net: worker slot k holds its own copy between rounds
    (kept_selfplay_task), plays ROUND_GAMES games a round from it with a seed of its own, and sends
    back its sparse change; the client merges the changes (merge_changes: a weight k workers changed
    takes the mean of their changes) and the next round's tasks carry only the merged values at the
    indices any worker touched.  The whole net travels once, at the start (and again to a worker
    that was restarted).  The same seed gives the same net as one process merging the same rounds."""

    def __init__(self, client: Any, workers: int, game: str, net: NTupleNet, opts: NTupleOptions,
                 masks: list[int], n_games: int, seed: int, moved: Moved) -> None:
        import uuid
        self.client, self.workers, self.game, self.net, self.opts = client, workers, game, net, opts
        self.masks, self.n_games, self.seed, self.moved = masks, n_games, seed, moved
        self.run = uuid.uuid4().hex
        self.shape = (net.tuples, net.perms, net.values, net.n_cells, net.sets)
        self.holding: set[int] = set()          # slots whose worker holds the net as the client has it
        self.merged: tuple[np.ndarray, list[np.ndarray]] | None = None
        self.hits = np.zeros(net.weights.size, dtype=np.uint16)     # merge_changes's counter, kept
        self.pending: tuple[int, float, list[Any]] | None = None   # the round going on: from, since, its tasks
        self.tables: LineTables | None = None      # 2048's line tables: the games are played in its kernel
        self.round_games: int | None = None        # games a worker plays a round (None: ROUND_GAMES)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.net.weights, self.net.tc_n, self.net.tc_a

    def start(self, done: int) -> None:
        """Start the round from game ``done`` on the workers and return at once: the client may commit
        the net as the last round left it while the workers play (``finish`` waits for them)."""
        each = self.round_games or ROUND_GAMES
        sizes = [min(each, max(0, self.n_games - done - k * each)) for k in range(self.workers)]
        slots = [k for k, n in enumerate(sizes) if n]
        try:
            self.pending = (done, time.perf_counter(), self._submit(done, sizes, slots))
        except (BadInput, NetMissing):
            raise
        except Exception as exc:               # distributed's own: no valid worker, a lost connection, ...
            raise BadInput(self.failure(exc)) from None

    def finish(self) -> tuple[list, int]:
        """Wait for the round started: merge it into the net; the winners of its games, in game
        order, and the queries."""
        assert self.pending is not None, "finish() before start()"  # noqa: S101  (narrows a type for mypy; true by construction)
        done, t0, futures = self.pending
        parts: list[tuple] = []
        try:
            cluster.collect(futures, parts.append)
        except NetMissing:                      # a worker restarted: every slot gets the whole net again
            self.holding.clear()
            self.start(done)
            return self.finish()
        except BadInput:
            raise
        except Exception as exc:               # distributed's own: a worker killed, paused, lost, ...
            raise BadInput(self.failure(exc)) from None
        finally:
            self.pending = None
        parts.sort(key=lambda part: part[0])    # merged in game order: the same seed, the same net
        reports = [part[1] for part in parts]
        changes = changes_from(self.arrays(), reports)
        where = merge_changes(self.arrays(), changes, self.hits)
        self.merged = merged_values(self.arrays(), changes, where)
        self.moved.rounds += 1
        self.moved.from_workers += nbytes(reports)
        self.moved.seconds.append(time.perf_counter() - t0)
        self.moved.playing.append(max(part[4] for part in parts))
        return [w for part in parts for w in part[2]], sum(part[3] for part in parts)

    def _submit(self, done: int, sizes: list[int], slots: list[int]) -> list[Any]:
        addresses = self._addresses()
        pin = {k: addresses[k % len(addresses)] for k in slots}
        starting = [k for k in slots if k not in self.holding]
        going_on = [k for k in slots if k in self.holding]
        whole = self.arrays() if starting else None
        # scattered to the workers that need them, not embedded in the tasks: Dask would send a
        # large argument through the scheduler and warn of a "large graph" every round
        whole_sent = self._scatter(whole, [pin[k] for k in starting]) if whole is not None else None
        merged_sent = (self._scatter(self.merged, [pin[k] for k in going_on])
                       if going_on and self.merged is not None else None)
        tasks = []
        for k in slots:
            start = whole_sent if k not in self.holding else None
            merged = None if start is not None else merged_sent
            sent = nbytes(whole) if start is not None else nbytes(self.merged) if merged is not None else 0
            self.moved.to_workers += sent
            if start is not None:
                self.moved.first_round += sent
            first = done + k * (self.round_games or ROUND_GAMES)
            tasks.append((self.run, k, self.game, self.shape, self.opts.as_dict(), start, merged, sizes[k], first,
                          self.n_games, self.masks, self.seed * 1_000_003 + first, self.tables))
        futures = cluster.submit_tasks(self.client, kept_selfplay_task, tasks, [pin[k] for k in slots])
        self.holding.update(slots)
        return futures

    def failure(self, exc: BaseException) -> str:
        """The one line for a round the workers could not play: what failed, the workers that are not
        running (paused for memory, closing) as the scheduler says, and that the commits are kept."""
        try:
            states = {address: info.get("status") for address, info in self.client.scheduler_info()["workers"].items()}
            troubled = ", ".join(f"{a} {st}" for a, st in sorted(states.items()) if st not in ("running", None))
        except Exception:                       # the scheduler itself gone: say what failed
            troubled = ""
        text = " ".join(str(exc).split())[:200] or type(exc).__name__
        workers = f" (workers: {troubled})" if troubled else ""
        return (f"the Dask workers could not play a round: {type(exc).__name__}: {text}{workers}; the games "
                "committed before are kept (educable agents shows them; train again to go on)")

    def _addresses(self) -> list[str]:
        """The workers' addresses, asked of the scheduler now.  Not scheduler_info(): distributed's
        client refreshes the identity it returns every 2 s asking for no workers, and read at that
        moment it listed none (a 2,000,000-game run stopped on it).  After a restart of every worker,
        waits WORKERS_BACK_SECONDS for one to come back."""
        addresses = sorted(self.client.nthreads())
        if not addresses:
            try:
                self.client.wait_for_workers(1, timeout=WORKERS_BACK_SECONDS)
            except TimeoutError:
                raise BadInput(f"no Dask worker left to train on (none came back within {WORKERS_BACK_SECONDS} s); "
                               "the games committed so far are kept") from None
            addresses = sorted(self.client.nthreads())
        return addresses

    def _scatter(self, data: Any, workers: list[str]) -> Any:
        """``data`` placed on ``workers`` ahead of the tasks that read it: a future to pass them."""
        [future] = self.client.scatter([data], workers=sorted(set(workers)), broadcast=True, hash=False)
        return future

    def close(self) -> None:
        """Cancel a round still going (a run stopped during a commit) and free the workers' copies of the net."""
        if self.pending is not None:
            for future in self.pending[2]:
                future.cancel()
            self.pending = None
        try:
            self.client.run(drop_kept, self.run)
        except Exception:                       # noqa: S110  (nothing to report: see the comment); a worker gone or the cluster closing: its memory goes with it
            pass
