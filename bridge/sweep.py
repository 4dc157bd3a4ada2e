"""`educable sweep`: one command over a grid of options and seeds, in parallel on Dask, every run kept.

``sweep train GAME [train options] --grid NAME=V1,V2 ... --seeds N`` runs
one training (commands.train_agent, what ``educable train`` runs) per
setting of the grid and seed (each in a fresh knowledge base, on a worker) and reports, per setting, the median of a
measure taken from the run's ``--json`` output with a 95% interval.
``sweep race --player a,b --boards N`` races each player on the same boards
and reports its geometric mean with a 95% interval and its share of boards
scoring 1.  Every run's options, seed, measure and whole result are stored
in the knowledge base (tables sweeps, sweep_runs) as it finishes, so
``sweep resume SWEEP`` runs only what an interrupted sweep is missing.
"""
from __future__ import annotations

import itertools
import json
import math
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from educable.bridge import cluster, registry
from educable.bridge.engine import BadInput
from educable.kb import store
from educable.kb.db import transaction
from educable.learners.training import Stopped

if TYPE_CHECKING:
    import sqlite_utils  # in annotations only: kb.db imports it when a database is opened

DEFAULT_MEASURE = {"punish": "losses", "qlearn": "games_to_perfect", "ntuple": "games_to_perfect",
                   "ga": "best.as_first.vs_random.loss"}
MAX_RUNS = 100_000
SET_BY_SWEEP = ("seed", "db", "json", "agent", "plot")     # train options a sweep gives each run itself


# -- the grid ---------------------------------------------------------------------------
def parse_grid(items: list[str]) -> dict[str, list[str]]:
    """'NAME=V1,V2' items as {name: [values]}; BadInput on an empty or malformed grid."""
    if not items:
        raise BadInput("a sweep needs at least one --grid NAME=V1,V2 (use train for a single setting)")
    grid: dict[str, list[str]] = {}
    for item in items:
        name, eq, values = item.partition("=")
        name = name.strip().lstrip("-")
        vals = [v.strip() for v in values.split(",") if v.strip()]
        if not eq or not name:
            raise BadInput(f"--grid {item!r}: write NAME=V1,V2 (e.g. --grid reward=0,1)")
        if not vals:
            raise BadInput(f"--grid {item!r}: no values (e.g. --grid {name}=0,1)")
        if name in grid:
            raise BadInput(f"--grid {name} is given twice; list all its values in one --grid")
        repeated = sorted({v for v in vals if vals.count(v) > 1})
        if repeated:
            raise BadInput(f"--grid {name} lists {repeated[0]} twice; each setting is run once (with --seeds for more)")
        if name.replace("_", "-") in SET_BY_SWEEP:
            raise BadInput(f"--grid {name}: the sweep sets --{name} itself (use --seeds N for seeds 0..N-1)")
        grid[name] = vals
    runs = math.prod(len(v) for v in grid.values())
    if runs > MAX_RUNS:
        raise BadInput(f"the grid has {runs:,} settings; a sweep runs at most {MAX_RUNS:,}")
    return grid


def settings(grid: dict[str, list[str]]) -> list[dict[str, str]]:
    """Every combination of the grid's values, in the order given."""
    names = list(grid)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(grid[n] for n in names))]


def check_train(game: str, runs: list[tuple[dict[str, str], dict[str, Any]]], measure_name: str | None) -> str:
    """Check every setting before anything is stored (one game, or one cycle, of each runs here) and
    return the measure (the learner's default when none is named; BadInput if the report has none)."""
    learner, dry = "punish", {}
    for setting, request in runs:
        learner = request["learner"]
        try:
            dry = run_train(game, tiny(request), 0)
        except BadInput as exc:
            raise BadInput(f"{setting_text(setting)}: {exc}") from None
    name = measure_name or DEFAULT_MEASURE[learner]
    if measure(dry, name) is None:
        raise BadInput(f"--measure {name}: train's output gives no number there")
    return name


def tiny(request: dict[str, Any]) -> dict[str, Any]:
    """A request cut to one game (or one cycle): the sweep's check of a setting."""
    if not registry.plays_games(request["learner"]):
        return {**request, "given": {**request["given"], "cycles": 1}}
    return {**request, "n_games": min(request["n_games"], 1)}     # 0 (or less) stays, to be refused as train refuses it


# -- one run (also the workers' entry point) ----------------------------------------------
def run_train(game: str, request: dict[str, Any], seed: int) -> dict[str, Any]:
    """One training run of a sweep, in a fresh knowledge base, in this process: the library's
    training (commands.train_agent) with the setting's checked options (``request``: learner,
    given, n_games, vs, side); its report as `train --json` prints it."""
    from educable.bridge import commands
    from educable.kb.db import open_kb

    with tempfile.TemporaryDirectory() as tmp:
        try:
            db = open_kb(Path(tmp) / "sweep.db")
            data = commands.train_agent(db, game, request["learner"], "sweep", seed, request["given"],
                                        request["n_games"], request["vs"], request["side"])
            db.conn.close()
        finally:
            quiet_exit()                # after Prolog is loaded, so that it runs before Prolog's own
        return json.loads(json.dumps(data))


_QUIET: list[bool] = []


def quiet_exit() -> None:
    """In a worker process, leave without SWI-Prolog's clean-up at exit, which warns that it cannot
    stop the Prolog threads Dask's task threads attached (nothing is lost: the process ends)."""
    import atexit
    import os
    import threading
    if not _QUIET and threading.current_thread() is not threading.main_thread():
        atexit.register(os._exit, 0)
        _QUIET.append(True)


def measure(result: dict[str, Any], name: str) -> float | None:
    """The measure ``name`` of a training run's --json output (None where it has none): last_loss
    (0: never lost), games_to_perfect (the games played if the agent ended perfect on both sides,
    else infinite), perfect (1 or 0), or a dotted path into the output (losses, games, seconds,
    exact.as_first.mistakes, ...)."""
    exact = result.get("exact") or {}
    perfect = bool(exact) and all(exact.get(s, {}).get("perfect") for s in ("as_first", "as_second"))
    if name == "last_loss":
        return float(result.get("last_loss") or 0)
    if name == "games_to_perfect":
        return float(result["games"]) if perfect else math.inf
    if name == "perfect":
        return 1.0 if perfect else 0.0
    value: Any = result
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    if isinstance(value, bool):
        return float(value)
    return float(value) if isinstance(value, (int, float)) else None


# -- sweeps ---------------------------------------------------------------------------------
_STARTED_HERE: set[int] = set()     # sweeps this process stored and has not run yet: a refusal removes them


def start(db: sqlite_utils.Database, command: str, args: dict[str, Any], grid: Any, seeds: int, measure_name: str) -> int:
    """Store a new sweep (its runs are stored as they finish); its id.  Until its first run is
    kept, a refusal (execute) removes it again, so that a mistake leaves the knowledge base as it was."""
    with transaction(db):
        sweep_id = db.conn.execute(
            "INSERT INTO sweeps (command, args, grid, seeds, measure, status, started) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (command, json.dumps(args), json.dumps(grid), seeds, measure_name, "running", store.now())).lastrowid or 0
    _STARTED_HERE.add(sweep_id)
    return sweep_id


def keep_run(db: sqlite_utils.Database, sweep_id: int, setting: Any, seed: int, value: float | None,
             result: dict[str, Any]) -> None:
    with transaction(db):
        db.conn.execute("INSERT INTO sweep_runs (sweep, setting, seed, value, result) VALUES (?, ?, ?, ?, ?)",
                        (sweep_id, *stored_key(setting, seed),
                         value if value is None or math.isfinite(value) else None, json.dumps(result)))


def stored(db: sqlite_utils.Database, sweep_id: int) -> dict[str, Any]:
    """A stored sweep: command, args, grid (JSON decoded), seeds, measure, status; BadInput if none."""
    row = db.conn.execute("SELECT command, args, grid, seeds, measure, status FROM sweeps WHERE id = ?",
                          (sweep_id,)).fetchone()
    if row is None:
        raise BadInput(f"no sweep {sweep_id} in this knowledge base")
    command, args, grid, seeds, measure_name, status = row
    out = {"command": command, "args": _json(args), "grid": _json(grid), "seeds": seeds, "measure": measure_name,
           "status": status}
    problem = _stored_problem(out)
    if problem:
        raise store.bad_row("sweeps", f"row {sweep_id}", problem)
    return out


def _json(text: Any) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def _stored_problem(row: dict[str, Any]) -> str | None:
    """Why a stored sweep cannot be resumed as it was started (edited by hand?), or None."""
    args, grid, seeds = row["args"], row["grid"], row["seeds"]
    if row["command"] not in ("train", "race") or not isinstance(row["measure"], str):
        return f"command {row['command']!r} or measure {row['measure']!r} is not one educable writes"
    if not isinstance(seeds, int) or isinstance(seeds, bool) or not 1 <= seeds <= MAX_RUNS:
        return f"seeds {seeds!r} is not a whole number from 1 to {MAX_RUNS:,}"
    texts = lambda xs: isinstance(xs, list) and bool(xs) and all(isinstance(x, str) for x in xs)  # noqa: E731
    if row["command"] == "race":
        if not (isinstance(args, dict) and all(isinstance(args.get(k), int) for k in ("seed", "turns"))
                and args["seed"] >= 0 and args["turns"] >= 1):
            return "args is not a JSON object with a seed and turns"
        return None if texts(grid) else "grid is not a JSON list of player names"
    if not (isinstance(args, dict) and isinstance(args.get("game"), str)
            and isinstance(args.get("args"), list) and all(isinstance(a, str) for a in args["args"])):
        return "args is not a JSON object with a game and a list of train options"
    if not (isinstance(grid, dict) and grid and all(texts(v) for v in grid.values())):
        return "grid is not a JSON object of option names and their values"
    try:
        parse_grid([f"{name}={','.join(values)}" for name, values in grid.items()])
    except BadInput as exc:
        return f"grid: {exc}"
    return None


def finished(db: sqlite_utils.Database, sweep_id: int) -> dict[tuple[str, int], float]:
    """(setting as stored, seed) -> measure (inf where the run did not give it) of the sweep's runs."""
    rows = db.conn.execute("SELECT setting, seed, value FROM sweep_runs WHERE sweep = ? ORDER BY seed",
                           (sweep_id,)).fetchall()
    return {(setting, seed): math.inf if value is None else value for setting, seed, value in rows}


def stored_key(setting: Any, seed: int) -> tuple[str, int]:
    """How a run's setting and seed are keyed in sweep_runs."""
    return json.dumps(setting, sort_keys=True), seed


def finish(db: sqlite_utils.Database, sweep_id: int, status: str) -> None:
    with transaction(db):
        db.conn.execute("UPDATE sweeps SET status = ? WHERE id = ?", (status, sweep_id))


def execute(db: sqlite_utils.Database, sweep_id: int, engine: Any, fn: Callable,
            tasks: list[tuple[Any, int, tuple]], on_result: Callable[[Any, int, Any], None],
            progress: Callable[[int], None] | None) -> None:
    """Run ``fn(*args)`` for each (setting, seed, args) task on ``engine`` (cluster.engine);
    ``on_result(setting, seed, result)`` as each finishes; the sweep's status at the end."""
    def task_result(item: tuple[Any, int, Any]) -> None:
        on_result(*item)
        if progress:
            progress(1)

    new = sweep_id in _STARTED_HERE
    _STARTED_HERE.discard(sweep_id)
    status_before = db.conn.execute("SELECT status FROM sweeps WHERE id = ?", (sweep_id,)).fetchone()[0]
    kept_before = len(finished(db, sweep_id))
    finish(db, sweep_id, "running")
    try:
        cluster.run_tasks(engine, tagged, [(fn, setting, seed, args) for setting, seed, args in tasks], task_result)
    except KeyboardInterrupt:
        finish(db, sweep_id, "stopped: interrupted")
        kept = len(finished(db, sweep_id))
        raise Stopped(kept, "runs", f"educable sweep resume {sweep_id} finishes the sweep") from None
    except BadInput as exc:             # a race player that breaks, say
        if len(finished(db, sweep_id)) > kept_before:
            finish(db, sweep_id, f"stopped: {exc}")
        elif new:                       # refused before any run finished: the knowledge base as it was
            with transaction(db):
                db.conn.execute("DELETE FROM sweeps WHERE id = ?", (sweep_id,))
        else:
            finish(db, sweep_id, status_before)
        raise
    finish(db, sweep_id, "complete")


@dataclass
class Plan:
    """What a sweep still has to run: its tasks (setting, seed, arguments of ``fn``), the values it
    has stored per setting, and how a finished run is kept (``keep(setting, seed, result)``,
    which returns the run's value)."""

    fn: Callable
    tasks: list[tuple[Any, int, tuple]]
    values: dict[str, list[float]]
    keep: Callable[[Any, int, Any], float]
    label: Callable[[Any], str]


def train_plan(db: sqlite_utils.Database, sweep_id: int, game: str, runs: list[tuple[dict[str, str], dict]],
               seeds: int, measure_name: str) -> Plan:
    """The (setting, seed) runs of a train sweep not stored yet (``runs``: each setting with its
    training request)."""
    done = finished(db, sweep_id)
    values = {setting_text(s): [done[k] for seed in range(seeds) if (k := stored_key(s, seed)) in done]
              for s, _ in runs}

    def keep(setting: dict, seed: int, result: dict) -> float:
        value = measure(result, measure_name)
        keep_run(db, sweep_id, setting, seed, value, result)
        return math.inf if value is None else value

    tasks = [(s, seed, (game, request, seed)) for s, request in runs for seed in range(seeds)
             if stored_key(s, seed) not in done]
    return Plan(run_train, tasks, values, keep, setting_text)


def race_plan(db: sqlite_utils.Database, sweep_id: int, names: list[str], boards: int, seed: int,
              n_turns: int) -> Plan:
    """The (player, board) races of a race sweep not stored yet."""
    from educable.bridge import race

    the_spec = race.spec()
    board_seeds = race.board_seeds(seed, boards)
    done = finished(db, sweep_id)
    values = {n: [done[k] for s in board_seeds if (k := stored_key(n, s)) in done] for n in names}

    def keep(player: str, board_seed: int, results: list) -> float:
        r = results[0]
        keep_run(db, sweep_id, player, board_seed, float(r.score),
                 {"score": r.score, "turns": r.turns, "peak": r.peak, "moves": r.moves})
        return float(r.score)

    tasks = [(n, s, ([s], n, the_spec, n_turns)) for s in board_seeds for n in names
             if stored_key(n, s) not in done]
    return Plan(race.race_boards, tasks, values, keep, str)


def run_plan(db: sqlite_utils.Database, sweep_id: int, engine: Any, plan: Plan,
             progress: Callable[[int], None] | None) -> dict[str, list[float]]:
    """Run a plan's tasks on ``engine`` (cluster.engine), keeping each run as it finishes; every
    setting's values, stored earlier and new."""
    def got(setting: Any, seed: int, result: Any) -> None:
        plan.values[plan.label(setting)].append(plan.keep(setting, seed, result))

    execute(db, sweep_id, engine, plan.fn, plan.tasks, got, progress)
    return plan.values


def tagged(fn: Callable, setting: Any, seed: int, args: tuple) -> tuple[Any, int, Any]:
    """A task's result with its setting and seed (results arrive in the order they finish)."""
    return setting, seed, fn(*args)


def setting_text(setting: dict[str, str]) -> str:
    """'reward=0 punish=last'."""
    return " ".join(f"{k}={v}" for k, v in setting.items())


def summaries(db: sqlite_utils.Database) -> list[dict[str, Any]]:
    """Every stored sweep, newest first, with the centre of each setting's runs so far and its 95%
    interval: the median for a train sweep, the geometric mean of the scores for a race (as the
    sweep's own table gives them; a run that gave no measure counts as infinite)."""
    from educable.learners.sampling import geomean_interval, median_interval
    out = []
    rows = db.conn.execute("SELECT id, command, measure, status, started FROM sweeps ORDER BY id DESC").fetchall()
    for sweep_id, command, measure_name, status, started in rows:
        by_setting: dict[str, list[float]] = {}
        for (setting, _seed), value in finished(db, sweep_id).items():
            by_setting.setdefault(setting, []).append(value)
        settings = []
        for setting, values in by_setting.items():
            decoded = _json(setting)
            label = setting_text(decoded) if isinstance(decoded, dict) else str(decoded)
            if command == "race":
                finite = [int(v) for v in values if math.isfinite(v) and v > 0]
                centre = geomean_interval(finite) if finite else (math.nan,) * 3
            else:
                centre = median_interval(values)
            settings.append({"setting": label, "runs": len(values), "centre": _number(centre[0]),
                             "interval95": [_number(centre[1]), _number(centre[2])]})
        out.append({"id": sweep_id, "command": command, "measure": measure_name, "status": status,
                    "started": started, "centre": "geometric mean" if command == "race" else "median",
                    "settings": settings, "curves": curves(db, sweep_id) if command == "train" else None})
    return out


def curves(db: sqlite_utils.Database, sweep_id: int, points: int = 60) -> list[dict[str, Any]]:
    """Each setting of a train sweep as a learning curve over its seeds: at up to ``points`` marks
    (games played), the median share of games lost since the mark before (in self-play, lost by one
    of the agent's sides) and its 95% interval over the seeds (median_interval, as the table's)."""
    from educable.learners.sampling import median_interval
    from educable.learners.training import WINDOW
    runs: dict[str, list[list[int]]] = {}
    for setting, result in db.conn.execute("SELECT setting, result FROM sweep_runs WHERE sweep = ? ORDER BY seed",
                                           (sweep_id,)):
        decoded_result = _json(result)
        curve = decoded_result.get("curve") if isinstance(decoded_result, dict) else None
        if isinstance(curve, list) and curve:
            runs.setdefault(setting, []).append(curve)
    out = []
    for setting, seeds in runs.items():
        windows = min(len(c) for c in seeds)              # the seeds' common length (a stopped run is shorter)
        step = max(1, math.ceil(windows / points))
        marks = list(range(step, windows + 1, step)) or [windows]
        rows: dict[str, list] = {"games": [], "median": [], "low": [], "high": []}
        before = 0
        for mark in marks:
            shares = [sum(c[before:mark]) / (WINDOW * (mark - before)) for c in seeds]
            centre, low, high = median_interval(shares)
            for key, value in zip(("games", "median", "low", "high"), (mark * WINDOW, centre, low, high), strict=True):
                rows[key].append(round(value, 4) if key != "games" else value)
            before = mark
        decoded = _json(setting)
        out.append({"setting": setting_text(decoded) if isinstance(decoded, dict) else str(decoded),
                    "seeds": len(seeds), **rows})
    return out


def _number(x: float) -> float | None:
    return x if math.isfinite(x) else None
