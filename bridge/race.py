"""The rat race (the PPCG rat-race challenge) from the command line: runs stored in the knowledge base, pictures.

The controller is compiled numpy code (learners/race/); the specification's
numbers are Prolog facts (rules/race.pl) read once.  Boards run one at a
time for a compiled player and in batches of ten for a numpy one, in
worker processes with ``workers`` > 1 (each takes the next board when it
is free); each finished batch is committed, so a run stopped by a player's
error keeps what it completed.
"""
from __future__ import annotations

import json
import math
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict
from functools import lru_cache
from typing import Any, Callable

import numpy as np
import sqlite_utils

from bridge.engine import BadInput, engine
from kb import store
from kb.db import transaction
from learners.race import players
from learners.race.sim import PlayerError, Race, Result
from learners.race.spec import RaceSpec
from learners.race.track import generate

SEED_STRIDE = 1_000_000
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


def check_player(name: str) -> Callable:
    try:
        return players.find(name)
    except LookupError as exc:
        raise BadInput(str(exc)) from None


def race_boards(seeds: list[int], player_name: str, the_spec: RaceSpec, turns: int) -> list[Result]:
    """Race ``seeds`` together (also the worker processes' entry point)."""
    player = players.find(player_name)
    race = Race([generate(s, the_spec) for s in seeds], player, player_name)
    return race.run(turns)


def geomean(scores: list[int]) -> float:
    return math.exp(sum(math.log(s) for s in scores) / len(scores)) if scores else 0.0


def run(db: sqlite_utils.Database, player: str, boards: int, seed: int, workers: int = 1,
        turns: int | None = None, progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Race ``player`` on ``boards`` boards and store the run; its scores and speed."""
    if boards < 1:
        raise BadInput("--boards must be at least 1")
    if workers < 1:
        raise BadInput("--workers must be at least 1")
    player = players.builtin_name(player)          # stored under the built-in's own name, whatever alias was typed
    fn = check_player(player)
    the_spec = spec()
    n_turns = the_spec.turns if turns is None else turns
    if n_turns < 1:
        raise BadInput("--turns must be at least 1")
    seeds = board_seeds(seed, boards)
    size = 1 if isinstance(fn, players.Kernel) else BATCH    # a compiled player gains nothing from batching
    batches = [seeds[i:i + size] for i in range(0, boards, size)]
    params = {"spec": asdict(the_spec), "workers": workers, "batch": size}
    with transaction(db):
        run_id = db.conn.execute(
            "INSERT INTO race_runs (player, seed, boards, turns, params, status, started) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (player, seed, boards, n_turns, json.dumps(params), "running", store.now())).lastrowid
    done: list[Result] = []
    t0 = time.perf_counter()
    error = None

    def keep(results: list[Result]) -> None:
        with transaction(db):
            db.conn.executemany(
                "INSERT INTO race_boards (run, board, seed, score, turns, peak, moves, genomes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(run_id, r.seed - seed * SEED_STRIDE, r.seed, r.score, r.turns, r.peak, r.moves,
                  json.dumps(r.best_genomes)) for r in results])
        done.extend(results)
        if progress:
            progress(len(results))

    try:
        if workers == 1:
            for b in batches:
                keep(race_boards(b, player, the_spec, n_turns))
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                futures = [pool.submit(race_boards, b, player, the_spec, n_turns) for b in batches]
                for f in as_completed(futures):
                    keep(f.result())
    except PlayerError as exc:
        error = str(exc)
    seconds = time.perf_counter() - t0
    scores = [r.score for r in sorted(done, key=lambda r: r.seed)]
    moves = sum(r.moves for r in done)
    status = "complete" if error is None else f"stopped: {error}"
    with transaction(db):
        db.conn.execute("UPDATE race_runs SET geomean = ?, seconds = ?, moves = ?, status = ? WHERE id = ?",
                        (geomean(scores) if scores else None, seconds, moves, status, run_id))
    if error is not None:
        raise BadInput(f"{error}; {len(done)} of {boards} boards completed and kept (run {run_id})")
    return {"run": run_id, "player": player, "seed": seed, "boards": boards, "turns": n_turns, "workers": workers,
            "geomean": round(geomean(scores), 4), "scores": scores,
            "median": float(np.median(scores)), "share_of_ones": round(sum(s == 1 for s in scores) / len(scores), 4),
            "seconds": round(seconds, 3), "moves": moves,
            "moves_per_second": round(moves / seconds) if seconds else None,
            "board_seeds": [r.seed for r in sorted(done, key=lambda r: r.seed)]}


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
    from learners.race.picture import track_gif, track_png

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
            draw(path)
        except (OSError, ValueError) as exc:
            raise BadInput(f"cannot write {path}: {getattr(exc, 'strerror', None) or exc}") from None
    meaning = {int(c): {"kind": ["empty", "teleporter", "trap", "wall"][int(track.kind[c])],
                        "offset": [int(v) for v in track.offset[c]]} for c in range(the_spec.colours)}
    return {"seed": seed, "png": png, "gif": gif, "frames": len(shots) if gif else 0, "turn": race.turn,
            "player": player, "specimens": len(where), "score": 1 + int(race.goals_total[0]),
            "start_rows": [int(y) for y in track.starts], "attempts": track.attempts, "colours": meaning}
