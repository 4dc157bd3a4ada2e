"""Track generation (the Gory Details) and what entering each cell does.

Kinds of colour: EMPTY, TELEPORTER, TRAP, WALL.  ``enter[y+1, x+1]`` is
the outcome of arriving on cell (x, y) (x from -1, y from -1: one cell of
out-of-bounds around the track): the flat index y*width+x of the cell the
specimen ends on, DEAD or GOAL.  A teleporter under it moves it once (no
chains); a deadly cell where it ends (a wall, a cell a trap points at, out
of bounds) kills it; a goal cell scores.  So a trap mark on a teleporter
cell does nothing to a specimen stepping on it (it is sent on), but kills
one that a teleporter sends there, as in the reference controllers.  Moving into a
wall is staying put, and then the cell it stands on acts again.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from educable.learners.race.spec import RaceSpec

EMPTY, TELEPORTER, TRAP, WALL = 0, 1, 2, 3
KIND_NAMES = ("empty", "teleporter", "trap", "wall")
DEAD, GOAL = -1, -2
MOVES = np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)], dtype=np.int64)


@dataclass
class Track:
    """One board: its colours, what they mean, and the start rows."""

    seed: int
    spec: RaceSpec
    colour: np.ndarray        # (height, width) int8
    kind: np.ndarray          # (colours,) kind of each colour
    offset: np.ndarray        # (colours, 2) (dx, dy) of teleporters and traps
    deadly: np.ndarray        # (height, width) bool
    enter: np.ndarray         # (height+2, width+2) int64: DEAD, GOAL or the cell index ended on
    wall: np.ndarray          # (height+2, width+2) bool
    starts: np.ndarray        # rows y whose cell (0, y) reaches a goal in time
    attempts: int             # tracks drawn until one had enough start rows

    def view_grid(self) -> np.ndarray:
        """Colours padded with view_radius cells of -1 on every side."""
        r = self.spec.view_radius
        grid = np.full((self.spec.height + 2 * r, self.spec.width + 2 * r), -1, dtype=np.int8)
        grid[r:r + self.spec.height, r:r + self.spec.width] = self.colour
        return grid


def generate(seed: int, spec: RaceSpec) -> Track:
    """The board of ``seed``: draw tracks until at least min_start_rows rows can reach a goal."""
    rng = np.random.default_rng(seed)
    attempts = 0
    while True:
        attempts += 1
        track = _draw(rng, seed, spec, attempts)
        if len(track.starts) >= spec.min_start_rows:
            return track


def _draw(rng: np.random.Generator, seed: int, spec: RaceSpec, attempts: int) -> Track:
    perm = rng.permutation(spec.colours)
    kind = np.empty(spec.colours, dtype=np.int8)
    cut = np.cumsum([spec.empty_colours, spec.teleporter_colours, spec.trap_colours])
    groups = np.split(perm, cut)
    for k, cols in enumerate(groups):
        kind[cols] = k
    offset = np.zeros((spec.colours, 2), dtype=np.int64)
    r = spec.teleport_range
    nonzero = np.array([(dx, dy) for dx in range(-r, r + 1) for dy in range(-r, r + 1) if (dx, dy) != (0, 0)])
    tele = groups[TELEPORTER]
    half = len(tele) // 2
    for i in range(half):
        offset[tele[i]] = nonzero[rng.integers(len(nonzero))]
        offset[tele[half + i]] = -offset[tele[i]]
    for c in groups[TRAP]:
        offset[c] = rng.integers(-1, 2, size=2)
    h, w = spec.height, spec.width
    colour = rng.integers(0, spec.colours, size=(h, w)).astype(np.int8)
    goal_cols = w - spec.goal_x
    colour[:, spec.goal_x:] = groups[EMPTY][rng.integers(len(groups[EMPTY]), size=(h, goal_cols))]
    kinds = kind[colour]
    deadly = kinds == WALL
    ys, xs = np.nonzero(kinds == TRAP)
    ty, tx = ys + offset[colour[ys, xs], 1], xs + offset[colour[ys, xs], 0]
    inside = (ty >= 0) & (ty < h) & (tx >= 0) & (tx < w)
    deadly[ty[inside], tx[inside]] = True
    enter, wall = _enter_map(spec, colour, kind, offset, deadly)
    starts = _start_rows(spec, enter, wall)
    return Track(seed, spec, colour, kind, offset, deadly, enter, wall, starts, attempts)


def _enter_map(spec: RaceSpec, colour, kind, offset, deadly) -> tuple[np.ndarray, np.ndarray]:
    h, w = spec.height, spec.width
    enter = np.full((h + 2, w + 2), DEAD, dtype=np.int64)
    wall = np.zeros((h + 2, w + 2), dtype=bool)
    ys, xs = np.mgrid[0:h, 0:w]
    c = colour[ys, xs]
    k = kind[c]
    is_tele = k == TELEPORTER
    ey = np.where(is_tele, ys + offset[c, 1], ys)
    ex = np.where(is_tele, xs + offset[c, 0], xs)
    inside = (ey >= 0) & (ey < h) & (ex >= 0) & (ex < w)
    eyc, exc = ey.clip(0, h - 1), ex.clip(0, w - 1)
    dies = ~inside | deadly[eyc, exc]
    out = np.where(dies, DEAD, np.where(exc >= spec.goal_x, GOAL, eyc * w + exc))
    enter[1:h + 1, 1:w + 1] = out
    wall[1:h + 1, 1:w + 1] = k == WALL
    return enter, wall


def step_outcome(spec: RaceSpec, enter: np.ndarray, wall: np.ndarray, x: np.ndarray, y: np.ndarray,
                 dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """Where a move from (x, y) ends: DEAD, GOAL or a cell index (one board's maps)."""
    tx, ty = x + dx + 1, y + dy + 1
    into_wall = wall[ty, tx]
    return np.where(into_wall, enter[y + 1, x + 1], enter[ty, tx])


def _start_rows(spec: RaceSpec, enter: np.ndarray, wall: np.ndarray) -> np.ndarray:
    """Rows y from which a goal is reachable within start_reach moves (breadth-first, all rows at once)."""
    h, gx = spec.height, spec.goal_x
    n = h * gx                                    # the cells a specimen can stand on (x < goal_x)
    cells = np.arange(n)
    y, x = cells // gx, cells % gx
    nxt = np.stack([step_outcome(spec, enter, wall, x, y, np.full(n, dx), np.full(n, dy)) for dx, dy in MOVES], axis=1)
    # cell index in the track is y*width+x; map it to y*goal_x+x for live destinations
    live = nxt >= 0
    nxt_idx = np.where(live, (nxt // spec.width) * gx + nxt % spec.width, 0)
    adj = np.zeros((n, n + 1), dtype=np.float32)  # last column: a goal
    src = np.repeat(cells, MOVES.shape[0]).reshape(n, -1)
    adj[src[live], nxt_idx[live]] = 1.0
    adj[src[nxt == GOAL], n] = 1.0
    reach = np.zeros((h, n), dtype=np.float32)
    reach[np.arange(h), np.arange(h) * gx] = 1.0
    ok = np.zeros(h, dtype=bool)
    for _ in range(spec.start_reach):
        step = reach @ adj
        ok |= step[:, n] > 0
        new = (step[:, :n] > 0).astype(np.float32)
        if (new == reach).all():
            break
        reach = new
    return np.flatnonzero(ok)
