"""The rat race (the PPCG rat-race challenge) from the command line: runs stored in the knowledge base, pictures.

The controller is compiled numpy code (learners/race/); the specification's
numbers are Prolog facts (rules/race.pl) read once.  Boards run one at a
time for a compiled player and in batches of ten for a numpy one; with
``workers`` > 1 or a Dask scheduler, one board a task on Dask
(bridge.cluster), a free worker taking the next.  Each finished batch is
committed as it arrives, so a run stopped by a player's error, Ctrl-C or a
lost machine keeps what it completed, and ``--resume`` finishes it.
"""
from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from educable.bridge import cluster, files
from educable.bridge.engine import BadInput, engine
from educable.bridge.limits import RACE_MAX_BOARDS, RACE_MAX_SEED, RACE_MAX_TURNS, RACE_SEED_STRIDE
from educable.kb import store
from educable.kb.db import transaction
from educable.learners.race import players
from educable.learners.race.sim import PlayerError, Race, Result
from educable.learners.race.spec import RaceSpec
from educable.learners.race.track import generate
from educable.learners.training import Stopped

if TYPE_CHECKING:
    import sqlite_utils  # in annotations only: kb.db imports it when a database is opened

SEED_STRIDE = RACE_SEED_STRIDE
BATCH = 10                     # boards stepped together for a numpy batch player (long arrays pay)


@lru_cache(maxsize=1)
def spec() -> RaceSpec:
    """The specification's numbers from rules/race.pl."""
    try:
        return RaceSpec.from_pairs(engine().call("race:race_spec(Out)"))
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def board_seeds(seed: int, boards: int) -> list[int]:
    return [seed * SEED_STRIDE + i for i in range(boards)]


def check_player(name: str) -> Callable | players.Kernel:
    try:
        return players.find(name)
    except LookupError as exc:
        raise BadInput(str(exc)) from None


def race_boards(seeds: list[int], player_name: str, the_spec: RaceSpec, turns: int) -> list[Result]:
    """Race ``seeds`` together (also the worker processes' entry point); a player that breaks is
    BadInput, for race run and sweep race alike."""
    player = players.find(player_name)
    race = Race([generate(s, the_spec) for s in seeds], player, player_name)
    try:
        return race.run(turns)
    except PlayerError as exc:
        raise BadInput(str(exc)) from None


def geomean(scores: list[int]) -> float:
    return math.exp(sum(math.log(s) for s in scores) / len(scores)) if scores else 0.0


def run(db: sqlite_utils.Database, player: str, boards: int, seed: int, workers: int = 1,
        turns: int | None = None, progress: Callable[[int], None] | None = None,
        scheduler: str | None = None, resume: int | None = None) -> dict[str, Any]:
    """Race ``player`` on ``boards`` boards and store the run; its scores and speed.

    With ``workers`` > 1 or a ``scheduler`` the boards run on Dask (bridge.cluster), the boards
    whose length an earlier run of the player measured longest first; each finished batch is
    committed as it arrives.  ``resume`` = a stored run's id: race its missing boards (its player,
    seed, boards and turns; the arguments are ignored) and complete it.
    """
    if workers < 1:
        raise BadInput("--workers must be at least 1")
    if resume is not None:
        run_id, player, boards, seed, n_turns, the_spec, done = resumed(db, resume)
        fn = check_player(player)
    else:
        if boards < 1:
            raise BadInput("--boards must be at least 1")
        player = players.builtin_name(player)          # stored under the built-in's own name, whatever alias was typed
        fn = check_player(player)
        the_spec = spec()
        n_turns = the_spec.turns if turns is None else turns
        if n_turns < 1:
            raise BadInput("--turns must be at least 1")
        done = []
        run_id = None
    address = cluster.scheduler_address(scheduler)
    parallel = workers > 1 or address is not None
    have = {r.seed for r in done}
    seeds = [s for s in board_seeds(seed, boards) if s not in have]
    size = 1 if isinstance(fn, players.Kernel) or parallel else BATCH   # spread boards; a compiled player gains nothing from batching
    seeds = longest_first(db, player, seeds) if parallel else seeds
    batches = [seeds[i:i + size] for i in range(0, len(seeds), size)]
    started = store.now()
    with cluster.engine(workers, address) as c:          # a bad address: refused before anything is stored
        if progress and done:
            progress(len(done))
        new: list[Result] = []
        t0 = time.perf_counter()
        error = None

        def keep(results: list[Result]) -> None:
            nonlocal run_id
            with transaction(db):
                if run_id is None:            # stored with its first boards: a player that fails at once leaves no run
                    params = {"spec": asdict(the_spec), "workers": workers, "batch": size}
                    run_id = db.conn.execute(
                        "INSERT INTO race_runs (player, seed, boards, turns, params, status, started) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (player, seed, boards, n_turns, json.dumps(params), "running", started)).lastrowid
                db.conn.executemany(
                    "INSERT INTO race_boards (run, board, seed, score, turns, peak, moves, genomes) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(run_id, r.seed - seed * SEED_STRIDE, r.seed, r.score, r.turns, r.peak, r.moves,
                      json.dumps(r.best_genomes)) for r in results])
            new.extend(results)
            if progress:
                progress(len(results))

        try:
            cluster.run_tasks(c, race_boards, [(b, player, the_spec, n_turns) for b in batches], keep)
        except BadInput as exc:                           # the player broke (race_boards)
            error = str(exc)
        except KeyboardInterrupt:
            if run_id is None:
                raise Stopped(0, "boards", "no board had finished") from None
            finish(db, run_id, done + new, time.perf_counter() - t0,
                   "stopped: interrupted (race run --resume continues it)")
            raise Stopped(len(done) + len(new), "boards", f"educable race run --resume {run_id} finishes the run") from None
    seconds = time.perf_counter() - t0
    every = done + new
    status = "complete" if error is None else f"stopped: {error}"
    if run_id is None:                    # no board finished: nothing was stored
        raise BadInput(error or "no board was raced")
    finish(db, run_id, every, seconds, status)
    if error is not None:
        raise BadInput(f"{error}; {len(every)} of {boards} boards completed and kept (run {run_id})")
    scores = [r.score for r in sorted(every, key=lambda r: r.seed)]
    moves = sum(r.moves for r in new)
    return {"run": run_id, "player": player, "seed": seed, "boards": boards, "turns": n_turns, "workers": workers,
            "scheduler": address, "resumed": len(done) if resume is not None else None,
            "geomean": round(geomean(scores), 4), "scores": scores,
            "median": float(np.median(scores)), "share_of_ones": round(sum(s == 1 for s in scores) / len(scores), 4),
            "seconds": round(seconds, 3), "moves": moves,
            "moves_per_second": round(moves / seconds) if seconds else None,
            "board_seeds": [r.seed for r in sorted(every, key=lambda r: r.seed)]}


def finish(db: sqlite_utils.Database, run_id: int, every: list[Result], seconds: float, status: str) -> None:
    """Store a run's summary over all its boards so far (seconds add up over resumed parts)."""
    scores = [r.score for r in every]
    with transaction(db):
        db.conn.execute("UPDATE race_runs SET geomean = ?, seconds = COALESCE(seconds, 0) + ?, moves = ?, status = ? "
                        "WHERE id = ?", (geomean(scores) if scores else None, seconds,
                                         sum(r.moves for r in every), status, run_id))


def resumed(db: sqlite_utils.Database, run_id: int) -> tuple[int, str, int, int, int, RaceSpec, list[Result]]:
    """A stored run to finish: (id, player, boards, seed, turns, spec, the boards it has)."""
    row = next(iter(db.query("SELECT id, player, seed, boards, turns, params, status FROM race_runs WHERE id = ?",
                             [run_id])), None)
    if row is None:
        raise BadInput(f"no race run {run_id} (see educable race results)")
    if row["status"] == "complete":
        raise BadInput(f"race run {run_id} is complete; nothing to resume")
    try:
        the_spec = RaceSpec(**json.loads(row["params"])["spec"])
    except (ValueError, TypeError, KeyError):
        raise store.bad_row("race_runs", f"run {run_id}", "its params do not hold the race's spec") from None
    for column, lo, hi in (("seed", 0, RACE_MAX_SEED), ("boards", 1, RACE_MAX_BOARDS), ("turns", 1, RACE_MAX_TURNS)):
        if not isinstance(row[column], int) or isinstance(row[column], bool) or not lo <= row[column] <= hi:
            raise store.bad_row("race_runs", f"run {run_id}",
                                f"{column} {str(row[column])[:40]!r} is not a whole number from {lo:,} to {hi:,}")
    if not isinstance(row["player"], str):
        raise store.bad_row("race_runs", f"run {run_id}", "its player is not a name")
    have = []
    for r in db.query("SELECT seed, score, turns, peak, moves, genomes FROM race_boards WHERE run = ?", [run_id]):
        numbers = (r["seed"], r["score"], r["turns"], r["peak"], r["moves"])
        try:
            genomes = json.loads(r["genomes"])
        except (TypeError, ValueError):
            genomes = None
        if not all(isinstance(x, int) for x in numbers) or not isinstance(genomes, list):
            raise store.bad_row("race_boards", f"run {run_id}, board seed {str(r['seed'])[:20]}",
                                "its numbers or genomes cannot be read")
        have.append(Result(seed=r["seed"], score=r["score"], turns=r["turns"], peak=r["peak"], moves=r["moves"],
                           best_genomes=genomes))
    return row["id"], row["player"], row["boards"], row["seed"], row["turns"], the_spec, have


def stored_boards(db: sqlite_utils.Database, run_id: int) -> int:
    """How many boards stored run ``run_id`` races in all (BadInput if there is no such run, or it
    cannot be resumed; KBError for a row edited out of range)."""
    return resumed(db, run_id)[2]


def longest_first(db: sqlite_utils.Database, player: str, seeds: list[int]) -> list[int]:
    """``seeds`` with the boards an earlier run of ``player`` found longest (most specimen-moves)
    first, then the boards never raced (in order)."""
    if not seeds:
        return seeds
    known: dict[int, int] = {}
    for i in range(0, len(seeds), 900):
        chunk = seeds[i:i + 900]
        for r in db.query(f"SELECT b.seed, MAX(b.moves) AS moves FROM race_boards b JOIN race_runs r ON r.id = b.run "  # noqa: S608  (names in this SQL are fixed in this code; values are bound as ?)
                          f"WHERE r.player = ? AND b.seed IN ({','.join('?' * len(chunk))}) GROUP BY b.seed",
                          [player, *chunk]):
            known[r["seed"]] = r["moves"]
    return sorted(seeds, key=lambda s: (s in known, -known.get(s, 0)))


def results(db: sqlite_utils.Database, player: str | None = None) -> list[dict[str, Any]]:
    """Stored runs, newest first."""
    sql = "SELECT id, player, seed, boards, turns, geomean, seconds, moves, status, started FROM race_runs"
    args: list[Any] = []
    if player:
        sql += " WHERE player = ?"
        args.append(players.builtin_name(player))
    out = []
    for row in db.query(sql + " ORDER BY id DESC", args):
        row = dict(row)
        row["scores"] = [r["score"] for r in db.query(
            "SELECT score FROM race_boards WHERE run = ? ORDER BY board", [row["id"]])]
        numbers = [row[k] for k in ("seed", "boards", "turns")] + row["scores"]
        optional = [row[k] for k in ("geomean", "seconds", "moves")]
        if not all(isinstance(x, int) for x in numbers) or not all(
                x is None or store.finite_number(x) for x in optional):
            raise store.bad_row("race_runs", f"run {row['id']}", "seed, boards, turns, geomean, seconds, moves "
                                "and its boards' scores must be numbers")
        out.append(row)
    return out


def show(seed: int, png: str | None, turn: int = 0, player: str = "colorscore", gif: str | None = None,
         frames: int = 25) -> dict[str, Any]:
    """Draw the board of ``seed`` (a board seed) with ``player``'s specimens after ``turn`` turns (``png``),
    and/or a GIF of turns 0..``turn`` in ``frames`` evenly spaced frames."""
    from educable.learners.race.picture import track_gif, track_png

    the_spec = spec()
    if png is None and gif is None:
        raise BadInput("say where to draw: --png FILE and/or --gif FILE")
    if turn < 0 or turn > the_spec.turns:
        raise BadInput(f"--turn must be in 0..{the_spec.turns}")
    if not 2 <= frames <= 1000:
        raise BadInput("--frames must be in 2..1000")
    player = players.builtin_name(player)
    fn = check_player(player)
    track = generate(seed, the_spec)
    race = Race([track], fn, player)

    def snapshot() -> tuple[np.ndarray, str]:
        return (np.stack([race.x, race.y], axis=1),
                f"board seed {seed}: {len(track.starts)} start rows; {player} after {race.turn} turns: "
                f"{len(race.x)} specimens, score {1 + int(race.goals_total[0])}")

    stops = sorted(set(np.linspace(0, turn, frames).round().astype(int).tolist())) if gif else [turn]
    shots = []
    try:
        for t in stops:
            race.run(t)
            shots.append(snapshot())
    except PlayerError as exc:
        raise BadInput(str(exc)) from None
    where, title = shots[-1]
    for path, draw in ((png, lambda p: track_png(p, track, where, title)),
                       (gif, lambda p: track_gif(p, track, shots))):
        if path is None:
            continue
        try:
            files.write_whole(path, draw)
        except (OSError, ValueError) as exc:
            raise BadInput(f"cannot write {path}: {getattr(exc, 'strerror', None) or exc}") from None
    meaning = {int(c): {"kind": ["empty", "teleporter", "trap", "wall"][int(track.kind[c])],
                        "offset": [int(v) for v in track.offset[c]]} for c in range(the_spec.colours)}
    return {"seed": seed, "png": png, "gif": gif, "frames": len(shots) if gif else 0, "turn": race.turn,
            "player": player, "specimens": len(where), "score": 1 + int(race.goals_total[0]),
            "start_rows": [int(y) for y in track.starts], "attempts": track.attempts, "colours": meaning}
