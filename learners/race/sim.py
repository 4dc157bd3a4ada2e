"""The controller: many boards stepped together, every specimen of every board in flat numpy arrays.

Each turn, for every specimen: if it has lived max_age turns it dies; else
its age grows by one and it moves (the player maps its 5x5 view and genome
to (dx, dy)); death removes it at once; reaching a goal scores a point,
sends it to a random start cell and resets its age.  Then each board with
at least 2 specimens breeds children_per_turn children: two distinct
parents drawn in proportion to fitness 1 + x + goal_fitness * goals among
the specimens alive before the births; crossover starts from a random
parent and switches after each bit with probability crossover_switch; each
bit flips with probability mutation.  Score of a board: 1 + goals.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from learners.race import rand
from learners.race.spec import RaceSpec
from learners.race.track import DEAD, GOAL, Track

Player = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
N_RAND = 2                     # uniform numbers handed to the player per specimen and turn
# random streams (a draw is hash(board seed, turn, stream, index))
S_PLAYER, S_RESPAWN, S_PARENTS, S_START_PARENT, S_SWITCH, S_FLIP, S_PLACE, S_GENOME = range(8)
GAPS = 24                      # geometric gaps drawn per child at once (more if they do not cover the genome)


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
    """Boards raced together; ``step()`` plays one turn on all of them."""

    def __init__(self, tracks: list[Track], player: Player, name: str = "player") -> None:
        self.tracks, self.player, self.name = tracks, player, name
        self.decode = getattr(player, "decode", None) or (lambda g: g)
        spec = self.spec = tracks[0].spec
        nb = len(tracks)
        self.seeds = np.array([t.seed for t in tracks], dtype=np.uint64)
        r = spec.view_radius
        self.grid = np.stack([t.view_grid() for t in tracks]).reshape(nb, -1)
        self.gh, self.gw = spec.height + 2 * r, spec.width + 2 * r
        side = 2 * r + 1
        # view[:, dx+r, dy+r]: first index x, as the challenge's players read it
        self.view_offsets = np.array([dy * self.gw + dx for dx in range(side) for dy in range(side)], dtype=np.int64)
        self.enter = np.stack([t.enter for t in tracks]).reshape(nb, -1)
        self.wall = np.stack([t.wall for t in tracks]).reshape(nb, -1)
        self.ew = spec.width + 2
        self.n_starts = np.array([len(t.starts) for t in tracks], dtype=np.int64)
        self.starts = np.zeros((nb, spec.height), dtype=np.int64)
        for i, t in enumerate(tracks):
            self.starts[i, :len(t.starts)] = t.starts
        self.turn = 0
        self.goals_total = np.zeros(nb, dtype=np.int64)
        self.moves = np.zeros(nb, dtype=np.int64)
        self.peak = np.zeros(nb, dtype=np.int64)
        self.ended_at = np.full(nb, -1, dtype=np.int64)
        n0 = spec.start_specimens
        self.board = np.repeat(np.arange(nb), n0)
        self.serial = np.tile(np.arange(n0), nb)                  # per board: k-th specimen made
        self.next_serial = np.full(nb, n0, dtype=np.int64)
        keys = rand.turn_keys(self.seeds, -1, S_GENOME)[self.board]
        bits = np.arange(spec.genome_bits)
        genome = (rand.uniform(keys[:, None], self.serial[:, None] * spec.genome_bits + bits) < 0.5).astype(np.uint8)
        # genomes (and the player's decoded features) live in a pool the specimens index, so a
        # death or birth copies a few integers, not 100 bits; the pool is compacted when full
        self.pool_genome, self.pool_features = genome, self._decode(genome)
        self.pool_used = len(genome)
        self.gid = np.arange(len(genome))
        self.x = np.zeros(len(self.board), dtype=np.int64)
        self.y = self._start_cells(rand.turn_keys(self.seeds, -1, S_PLACE)[self.board], self.board, self.serial)
        self.age = np.zeros(len(self.board), dtype=np.int64)
        self.goals = np.zeros(len(self.board), dtype=np.int64)
        self.peak[:] = n0

    # -- helpers -------------------------------------------------------------------------
    def _start_cells(self, keys: np.ndarray, board: np.ndarray, index: np.ndarray) -> np.ndarray:
        u = rand.uniform(keys, index)
        return self.starts[board, (u * self.n_starts[board]).astype(np.int64)]

    def views(self) -> np.ndarray:
        """(N, 5, 5) colours around each specimen, -1 out of bounds; [dx+2, dy+2]."""
        base = self.board * (self.gh * self.gw) + self.y * self.gw + self.x
        side = 2 * self.spec.view_radius + 1
        return self.grid.reshape(-1)[base[:, None] + self.view_offsets].reshape(-1, side, side)

    def _decode(self, genomes: np.ndarray) -> np.ndarray:
        try:
            return np.asarray(self.decode(genomes))
        except Exception as exc:
            raise PlayerError(f"player {self.name}'s decoder raised {type(exc).__name__}: {exc} "
                              f"(board seed {self.tracks[0].seed})") from exc

    def _add_genomes(self, genome: np.ndarray) -> np.ndarray:
        """Store new genomes in the pool; their pool indices."""
        k = len(genome)
        if self.pool_used + k > len(self.pool_genome):
            live = self.gid
            self.pool_genome, self.pool_features = self.pool_genome[live], self.pool_features[live]
            self.gid = np.arange(len(live))
            self.pool_used = len(live)
            cap = max(2 * (self.pool_used + k), 1024)
            extra = cap - len(self.pool_genome)
            self.pool_genome = np.concatenate([self.pool_genome, np.zeros((extra,) + self.pool_genome.shape[1:], self.pool_genome.dtype)])
            feats = self._decode(genome)
            self.pool_features = np.concatenate([self.pool_features, np.zeros((extra,) + feats.shape[1:], feats.dtype)])
        else:
            feats = self._decode(genome)
        ids = np.arange(self.pool_used, self.pool_used + k)
        self.pool_genome[ids] = genome
        self.pool_features[ids] = feats
        self.pool_used += k
        return ids

    def _keep(self, mask: np.ndarray) -> None:
        for name in ("board", "serial", "gid", "x", "y", "age", "goals"):
            setattr(self, name, getattr(self, name)[mask])

    # -- one turn ------------------------------------------------------------------------
    def step(self) -> None:
        spec, t = self.spec, self.turn
        n = len(self.board)
        if n:
            old = self.age >= spec.max_age          # dies before moving (its move below is ignored)
            self.age += 1
            keys = rand.turn_keys(self.seeds, t, S_PLAYER)[self.board]
            noise = rand.uniform(keys[:, None], self.serial[:, None] * N_RAND + np.arange(N_RAND))
            moves = self._ask_player(self.views(), noise)
            self.moves += np.bincount(self.board[~old], minlength=len(self.tracks))
            base = self.board * ((spec.height + 2) * self.ew)
            cur = base + (self.y + 1) * self.ew + (self.x + 1)
            tgt = base + (self.y + moves[:, 1] + 1) * self.ew + (self.x + moves[:, 0] + 1)
            out = np.where(self.wall.reshape(-1)[tgt], self.enter.reshape(-1)[cur], self.enter.reshape(-1)[tgt])
            out[old] = DEAD
            goal = out == GOAL
            if goal.any():
                gi = np.flatnonzero(goal)
                self.goals[gi] += 1
                self.age[gi] = 0
                np.add.at(self.goals_total, self.board[gi], 1)
                keys = rand.turn_keys(self.seeds, t, S_RESPAWN)[self.board[gi]]
                self.y[gi] = self._start_cells(keys, self.board[gi], self.serial[gi])
                self.x[gi] = 0
            live = out >= 0
            self.x[live] = out[live] % spec.width
            self.y[live] = out[live] // spec.width
            self._keep(out != DEAD)
            self._breed(t)
        counts = np.bincount(self.board, minlength=len(self.tracks))
        np.maximum(self.peak, counts, out=self.peak)
        self.turn += 1
        gone = (counts == 0) & (self.ended_at < 0)
        self.ended_at[gone] = self.turn

    def _ask_player(self, views: np.ndarray, noise: np.ndarray) -> np.ndarray:
        try:
            moves = np.asarray(self.player(views, self.pool_features[self.gid], noise))
        except Exception as exc:                       # a player's own bug: name it and the board
            raise PlayerError(f"player {self.name} raised {type(exc).__name__}: {exc} "
                              f"(board seed {self.tracks[int(self.board[0])].seed}, turn {self.turn})") from exc
        whole = moves.dtype.kind in "iu" or (moves.dtype.kind == "f" and np.array_equal(moves, np.round(moves)))
        if moves.shape != (len(views), 2) or not whole:
            raise PlayerError(f"player {self.name} returned moves of shape {moves.shape} ({moves.dtype}); "
                              f"expected ({len(views)}, 2) integers (board seed {self.tracks[int(self.board[0])].seed})")
        moves = moves.astype(np.int64)
        bad = np.flatnonzero((np.abs(moves) > 1).any(axis=1))
        if len(bad):
            i = int(bad[0])
            raise PlayerError(f"player {self.name} returned move {tuple(int(v) for v in moves[i])}, "
                              f"outside {{-1,0,1}}^2 (board seed {self.tracks[int(self.board[i])].seed}, "
                              f"turn {self.turn})")
        return moves

    def _breed(self, t: int) -> None:
        spec = self.spec
        nb = len(self.tracks)
        counts = np.bincount(self.board, minlength=nb)
        breeding = np.flatnonzero(counts >= 2)
        if not len(breeding):
            return
        k = spec.children_per_turn
        order = np.argsort(self.board, kind="stable")
        fit = (1 + self.x + spec.goal_fitness * self.goals)[order].astype(np.float64)
        cum = np.cumsum(fit)
        seg_end = np.cumsum(counts)
        seg_start = seg_end - counts
        before = np.concatenate([[0.0], cum])                          # cum before position i
        total = before[seg_end] - before[seg_start]                    # per board
        cb = np.repeat(breeding, k)                                    # child's board
        child = np.tile(np.arange(k), len(breeding))
        keys = rand.turn_keys(self.seeds, t, S_PARENTS)[cb]
        u = rand.uniform(keys[:, None], child[:, None] * 2 + np.arange(2))
        # first parent in proportion to fitness; the second likewise among the others
        v1 = before[seg_start[cb]] + u[:, 0] * total[cb]
        p1 = np.searchsorted(cum, v1, side="right").clip(seg_start[cb], seg_end[cb] - 1)
        f1 = fit[p1]
        v2 = before[seg_start[cb]] + u[:, 1] * (total[cb] - f1)
        v2 = np.where(v2 >= before[p1], v2 + f1, v2)
        p2 = np.searchsorted(cum, v2, side="right").clip(seg_start[cb], seg_end[cb] - 1)
        p2 = np.where(p2 == p1, np.where(p1 + 1 < seg_end[cb], p1 + 1, seg_start[cb]), p2)  # float edge
        g1, g2 = self.pool_genome[self.gid[order[p1]]], self.pool_genome[self.gid[order[p2]]]
        bits = spec.genome_bits
        first = rand.uniform(rand.turn_keys(self.seeds, t, S_START_PARENT)[cb], child) < 0.5
        switch_at = self._gap_positions(cb, child, t, S_SWITCH, spec.crossover_switch, bits - 1) + 1
        flips = self._gap_positions(cb, child, t, S_FLIP, spec.mutation, bits)
        toggles = np.zeros((len(cb), bits + 1), dtype=np.int8)
        rows, cols = np.nonzero(switch_at >= 1)
        toggles[rows, switch_at[rows, cols].clip(0, bits)] = 1
        from_second = (np.cumsum(toggles[:, :bits], axis=1) % 2).astype(bool) ^ ~first[:, None]
        genome = np.where(from_second, g2, g1)
        flip = np.zeros((len(cb), bits + 1), dtype=np.uint8)
        rows, cols = np.nonzero(flips >= 0)
        flip[rows, flips[rows, cols].clip(0, bits)] = 1
        genome ^= flip[:, :bits]
        serial = self.next_serial[cb] + child
        self.next_serial[breeding] += k
        y = self._start_cells(rand.turn_keys(self.seeds, t, S_PLACE)[cb], cb, child)
        self.board = np.concatenate([self.board, cb])
        self.serial = np.concatenate([self.serial, serial])
        ids = self._add_genomes(genome)            # may compact the pool (and renumber gid) first
        self.gid = np.concatenate([self.gid, ids])
        self.x = np.concatenate([self.x, np.zeros(len(cb), dtype=np.int64)])
        self.y = np.concatenate([self.y, y])
        self.age = np.concatenate([self.age, np.zeros(len(cb), dtype=np.int64)])
        self.goals = np.concatenate([self.goals, np.zeros(len(cb), dtype=np.int64)])

    def _gap_positions(self, cb: np.ndarray, child: np.ndarray, t: int, stream: int, p: float,
                       limit: int) -> np.ndarray:
        """Positions (< limit, else -1) of independent events of chance ``p`` at 0, 1, ..., limit-1:
        the sums of geometric gaps, drawn until they pass ``limit``."""
        keys = rand.turn_keys(self.seeds, t, stream)[cb]
        log_q = np.log1p(-p) if p < 1 else -np.inf
        out, start, pos = [], 0, np.full(len(cb), -1, dtype=np.int64)
        while True:
            idx = child[:, None] * 4096 + start + np.arange(GAPS)
            u = rand.uniform(keys[:, None], idx)
            if p <= 0:
                gaps = np.full(u.shape, limit + 1, dtype=np.int64)
            else:
                gaps = (np.floor(np.log1p(-u) / log_q) + 1).astype(np.int64) if p < 1 else np.ones(u.shape, np.int64)
            steps = pos[:, None] + np.cumsum(gaps, axis=1)
            out.append(np.where(steps < limit, steps, -1))
            pos = steps[:, -1]
            if (pos >= limit).all() or start + GAPS >= 4096:
                break
            start += GAPS
        return np.concatenate(out, axis=1)

    # -- the whole game ------------------------------------------------------------------
    def run(self, turns: int | None = None, progress: Callable[[int], None] | None = None,
            every: int = 100) -> list[Result]:
        total = self.spec.turns if turns is None else turns
        while self.turn < total:
            if not len(self.board):
                break
            self.step()
            if progress and self.turn % every == 0:
                progress(every)
        if progress and self.turn % every:
            progress(self.turn % every)
        return self.results()

    def results(self, n_best: int = 3) -> list[Result]:
        out = []
        fit = 1 + self.x + self.spec.goal_fitness * self.goals
        for i, t in enumerate(self.tracks):
            mine = np.flatnonzero(self.board == i)
            best = mine[np.argsort(-fit[mine], kind="stable")[:n_best]]
            hexes = [np.packbits(self.pool_genome[self.gid[j]]).tobytes().hex() for j in best]
            turns = int(self.ended_at[i]) if self.ended_at[i] >= 0 else self.turn
            out.append(Result(t.seed, int(1 + self.goals_total[i]), turns, int(self.peak[i]), int(self.moves[i]), hexes))
        return out
