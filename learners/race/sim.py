"""The controller: many boards raced together, their specimens in one table (see ``core``).

Each turn, for every specimen: if it has lived max_age turns it dies; else
its age grows by one and it moves (the player maps its 5x5 view and genome
to (dx, dy)); death removes it at once; reaching a goal scores a point,
sends it to a random start cell and resets its age.  Then each board with
at least 2 specimens breeds children_per_turn children: two distinct
parents drawn in proportion to fitness 1 + x + goal_fitness * goals among
the specimens alive before the births; crossover starts from a random
parent and switches after each bit with probability crossover_switch; each
bit flips with probability mutation.  Score of a board: 1 + goals.

A compiled player (``players.Kernel``) plays whole games inside compiled
code; a numpy batch player is asked once a turn for every specimen of
every board.  Both see the same views and draws, so the same player
written either way plays the same games.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from educable.learners.race import core, players
from educable.learners.race.core import AGE, BOARD, GID, GOALS, SERIAL, X, Y
from educable.learners.race.track import Track
from educable.learners.training import signalled

Player = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


# What a player's code may raise that is its fault: any error, sys.exit() (SystemExit), and a
# KeyboardInterrupt it raised itself (no Ctrl-C reached the process: training.signalled()).
PLAYER_FAULTS = (Exception, SystemExit, KeyboardInterrupt)


def own_fault(exc: BaseException) -> None:
    """Raise the user's stop instead of blaming the player: a KeyboardInterrupt when a stopping signal
    reached the process, and any error once one has (a Ctrl-C that lands inside numba's dispatch of a
    compiled player comes out as a TypeError from numba's own code)."""
    if signalled():
        if isinstance(exc, KeyboardInterrupt):
            raise exc
        raise KeyboardInterrupt from exc


class PlayerError(Exception):
    """A player returned something other than one move in {-1,0,1}^2 per specimen, or raised."""


@dataclass
class Result:
    """One board's outcome."""

    seed: int
    score: int                 # 1 + goals
    turns: int                 # turns played (fewer only if every specimen died)
    peak: int                  # most specimens alive at once
    moves: int                 # specimen-moves made
    best_genomes: list[str] = field(default_factory=list)   # hex, by fitness at the end


class Race:
    """Boards raced together; ``step()`` plays one turn on all of them, ``run()`` a whole game."""

    sp: np.ndarray            # the specimens' rows, genome slots and features (_allocate makes them)
    pool: np.ndarray
    free: np.ndarray
    new_ids: np.ndarray

    def __init__(self, tracks: list[Track], player, name: str = "player", capacity: int = 4096) -> None:
        self.tracks, self.player, self.name = tracks, player, name
        self.kernel = getattr(player, "kernel", None)
        spec = self.spec = tracks[0].spec
        nb = len(tracks)
        self.seeds = np.array([t.seed for t in tracks], dtype=np.int64)
        self.P = np.array([spec.width, spec.height, spec.goal_x, spec.max_age, spec.children_per_turn,
                           spec.genome_bits, spec.goal_fitness, spec.view_radius, spec.start_specimens],
                          dtype=np.int64)
        self.Q = np.array([spec.crossover_switch, spec.mutation], dtype=np.float64)
        self.grid = np.stack([t.view_grid() for t in tracks]).reshape(nb, -1)
        enter = np.stack([t.enter for t in tracks]).reshape(nb, -1)
        self.enter = np.where(enter >= 0, ((enter // spec.width) << 8) | (enter % spec.width), enter)
        self.wall = np.stack([t.wall for t in tracks]).reshape(nb, -1)
        self.n_starts = np.array([len(t.starts) for t in tracks], dtype=np.int64)
        self.starts = np.zeros((nb, spec.height), dtype=np.int64)
        for i, t in enumerate(tracks):
            self.starts[i, :len(t.starts)] = t.starts
        self.st = np.zeros((nb, core.NSTAT), dtype=np.int64)
        self.S = np.zeros(4, dtype=np.int64)
        self.err = np.zeros(3, dtype=np.int64)
        self.turn = 0
        cap = max(capacity, nb * (spec.start_specimens + spec.children_per_turn))
        self._allocate(cap)
        core.init_population(self.seeds, self.P, self.S, self.sp, self.st, self.pool, self.free, self.starts,
                             self.n_starts, self.new_ids)
        self._decode_new()

    # -- storage ---------------------------------------------------------------------------
    def _allocate(self, cap: int) -> None:
        """Room for ``cap`` specimens (their rows, genome slots and features), keeping what exists."""
        old = getattr(self, "sp", None)
        sp = np.zeros((2, cap, core.NCOL), dtype=np.int64)
        pool = np.zeros((cap, self.spec.genome_bits), dtype=np.uint8)
        in_use = np.zeros(cap, dtype=bool)
        if old is not None:
            sp[:, :old.shape[1]] = old
            pool[:len(self.pool)] = self.pool
            in_use[self.gid] = True
        free = np.zeros(cap, dtype=np.int64)             # a stack: the free slots, lowest on top
        unused = np.flatnonzero(~in_use)[::-1]
        free[:len(unused)] = unused
        self.S[core.S_NFREE] = len(unused)
        self.sp, self.pool, self.free = sp, pool, free
        self.moves_buf = np.zeros((cap, 2), dtype=np.int64)
        self.cum = np.zeros(cap, dtype=np.int64)
        self.new_ids = np.zeros(cap, dtype=np.int64)
        self.feats = self._grow_features(cap)

    def _grow_features(self, cap: int):
        old = getattr(self, "feats", None)
        if old is None:
            if self.kernel is not None:
                return np.zeros((cap, self.kernel.features), dtype=np.int64)
            return None                                  # shaped by the batch decoder's first answer
        new = np.zeros((cap,) + old.shape[1:], dtype=old.dtype)
        new[:len(old)] = old
        return new

    def _decode_new(self) -> None:
        ids = self.new_ids[:self.S[core.S_NNEW]]
        if self.kernel is not None:
            feats = np.zeros((len(ids), self.kernel.features), dtype=np.int64)
            players.decode_rows(self.kernel.decode, self.pool[ids], feats)
            self.feats[ids] = feats
            return
        decode = getattr(self.player, "decode", None)
        genomes = self.pool[ids]
        if decode is None:
            feats = genomes
        else:
            try:
                feats = np.asarray(decode(genomes))
            except PLAYER_FAULTS as exc:
                own_fault(exc)
                raise PlayerError(f"player {self.name}'s decoder raised {type(exc).__name__}: {exc} "
                                  f"(board seed {self.tracks[0].seed})") from exc
        if self.feats is None:
            self.feats = np.zeros((len(self.pool),) + feats.shape[1:], dtype=feats.dtype)
        self.feats[ids] = feats

    def _room(self) -> None:
        need = int(self.S[core.S_N]) + len(self.tracks) * self.spec.children_per_turn
        if need > self.sp.shape[1]:
            self._allocate(max(2 * self.sp.shape[1], need))

    # -- the specimens, as views of the table (board order) -----------------------------------
    def _col(self, c: int) -> np.ndarray:
        return self.sp[self.S[core.S_CUR], :self.S[core.S_N], c]

    board = property(lambda self: self._col(BOARD))
    serial = property(lambda self: self._col(SERIAL))
    gid = property(lambda self: self._col(GID))
    x = property(lambda self: self._col(X))
    y = property(lambda self: self._col(Y))
    age = property(lambda self: self._col(AGE))
    goals = property(lambda self: self._col(GOALS))
    goals_total = property(lambda self: self.st[:, core.B_GOALS])
    moves = property(lambda self: self.st[:, core.B_MOVES])

    def genomes(self) -> np.ndarray:
        """(N, bits) the genomes of the living specimens, in table order."""
        return self.pool[self.gid]

    # -- turns ---------------------------------------------------------------------------------
    def step(self) -> None:
        """One turn on every board."""
        if self.kernel is not None:
            self._drive(self.turn + 1)
            return
        self._room()
        n = int(self.S[core.S_N])
        side = 2 * self.spec.view_radius + 1
        views = np.empty((n, side, side), dtype=np.int8)
        noise = np.empty((n, 2), dtype=np.float64)
        core.gather(self.turn, self.seeds, self.P, self.S, self.sp, self.st, self.grid, views, noise)
        self.moves_buf[:n] = self._ask_player(views, noise)
        self._finish()

    def _finish(self) -> None:
        core.finish_turn(self.turn, self.seeds, self.P, self.Q, self.S, self.sp, self.moves_buf, self.enter,
                         self.wall, self.starts, self.n_starts, self.st, self.pool, self.free, self.new_ids,
                         self.cum)
        self._decode_new()
        self.turn += 1

    def _drive(self, until: int) -> None:
        k = self.kernel
        assert k is not None                  # noqa: S101  (narrows a type for mypy; true by construction); only a compiled player is driven here
        while self.turn < until and self.S[core.S_N]:
            self._room()
            try:
                arrays = (self.turn, until, self.seeds, self.P, self.Q, self.S, self.sp, self.moves_buf, self.enter,
                          self.wall, self.grid, self.starts, self.n_starts, self.st, self.pool, self.feats, self.free,
                          self.new_ids, self.cum, self.err)
                t = core.cached_drive(arrays)(k.move, k.decode, *arrays)
            except PLAYER_FAULTS as exc:
                own_fault(exc)
                raise PlayerError(f"player {self.name} raised {type(exc).__name__}: {exc} "
                                  f"(board seeds {self._seed_range()})") from exc
            if t < 0:
                b, dx, dy = (int(v) for v in self.err)
                raise PlayerError(f"player {self.name} returned move ({dx}, {dy}), outside {{-1,0,1}}^2 "
                                  f"(board seed {self.tracks[b].seed}, turn {self.turn})")
            self.turn = t

    def _seed_range(self) -> str:
        first, last = self.tracks[0].seed, self.tracks[-1].seed
        return str(first) if first == last else f"{first}..{last}"

    def _ask_player(self, views: np.ndarray, noise: np.ndarray) -> np.ndarray:
        n = len(views)
        board = self.board
        try:
            moves = np.asarray(self.player(views, self.feats[self.gid], noise))
        except PLAYER_FAULTS as exc:                   # a player's own bug: name it and the boards
            own_fault(exc)
            raise PlayerError(f"player {self.name} raised {type(exc).__name__}: {exc} "
                              f"(board seeds {self._seed_range()}, turn {self.turn})") from exc
        whole = moves.dtype.kind in "iu" or (moves.dtype.kind == "f" and np.array_equal(moves, np.round(moves)))
        if moves.shape != (n, 2) or not whole:
            raise PlayerError(f"player {self.name} returned moves of shape {moves.shape} ({moves.dtype}); "
                              f"expected ({n}, 2) integers (board seeds {self._seed_range()})")
        moves = moves.astype(np.int64)
        bad = np.flatnonzero((np.abs(moves) > 1).any(axis=1))
        if len(bad):
            i = int(bad[0])
            raise PlayerError(f"player {self.name} returned move {tuple(int(v) for v in moves[i])}, "
                              f"outside {{-1,0,1}}^2 (board seed {self.tracks[int(board[i])].seed}, "
                              f"turn {self.turn})")
        return moves

    # -- the whole game --------------------------------------------------------------------------
    def run(self, turns: int | None = None, progress: Callable[[int], None] | None = None,
            every: int = 100) -> list[Result]:
        """Play until ``turns`` (default: the spec's) or until every board is empty; the results."""
        total = self.spec.turns if turns is None else turns
        reported = self.turn
        while self.turn < total and self.S[core.S_N]:
            if self.kernel is not None:
                self._drive(min(total, (self.turn // every + 1) * every))
            else:
                self.step()
            if progress and (self.turn % every == 0 or self.turn >= total):
                progress(self.turn - reported)
                reported = self.turn
        return self.results()

    def results(self, n_best: int = 3) -> list[Result]:
        out = []
        fit = 1 + self.x + self.spec.goal_fitness * self.goals
        board, gid = self.board, self.gid
        for i, t in enumerate(self.tracks):
            mine = np.flatnonzero(board == i)
            best = mine[np.argsort(-fit[mine], kind="stable")[:n_best]]
            hexes = [np.packbits(self.pool[gid[j]]).tobytes().hex() for j in best]
            ended = int(self.st[i, core.B_ENDED])
            turns = ended if ended >= 0 else self.turn
            out.append(Result(t.seed, int(1 + self.st[i, core.B_GOALS]), turns, int(self.st[i, core.B_PEAK]),
                              int(self.st[i, core.B_MOVES]), hexes))
        return out
