"""The punishment learner of the six-pawns practical from Python: options, loading, training, saving.

The learning itself is Prolog (rules/punish.pl); this module only moves an
agent's values between the knowledge base and Prolog and drives batches of
games, one query per batch.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from educable.bridge import games
from educable.bridge.engine import ROWS_PER_CALL, BadInput, engine, quote
from educable.bridge.options import existing_agent
from educable.kb import store
from educable.learners.options import declared, option
from educable.learners.training import Commits, TrainingRun

if TYPE_CHECKING:
    import sqlite_utils  # in annotations only: kb.db imports it when a database is opened

NAME = "punish"


@dataclass
class PunishOptions:
    """The six-pawns practical's learner (after Gardner's HER; MENACE's beads as an option)."""

    punish: str = option("last", "Punish the loser's last move only, or all its moves.", choices=("last", "all"))
    step: float = option(1.0, "Value taken off the last losing move.")
    earlier_step: float = option(1.0, "Value taken off each earlier losing move (--punish all).")
    reward: float = option(0.0, "Value added to each of the winner's moves (the practical's 'reward after wins'; 0: "
                                "none).")
    beads: float = option(1.0, "The initial value of every position, like the beads in HER's matchboxes.")
    cascade: bool = option(True, "HER's empty box: when a punished move leaves no move of its position above 0, the "
                                 "loser's move before it is punished too.")
    fold: bool = option(True, "One value for symmetric positions (hexapawn's mirror, tic-tac-toe's 8 symmetries).")
    choice: str = option("best", "best: the skeleton's choice, a move of best value; beads: Michie's MENACE, in "
                                 "training each move is drawn with probability proportional to its value, its beads "
                                 "(values never go below 0; a box with no beads left draws every move alike, and "
                                 "with --cascade the move into it is punished). Outside training (play, eval) a "
                                 "beads agent plays a move of most beads.", choices=("best", "beads"))
    draw_reward: float = option(0.0, "Value added to each of the player's moves after a draw (MENACE: 1).")


DEFAULTS: dict[str, Any] = asdict(PunishOptions())
OPTIONS = declared(PunishOptions, NAME)


VALUE_BOUND = 1e6


def validate(options: dict[str, Any]) -> dict[str, Any]:
    """Complete ``options`` with defaults and check them; BadInput names the bad one."""
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise BadInput(f"unknown punish option(s): {', '.join(sorted(unknown))}")
    opts = {**DEFAULTS, **options}
    if opts["punish"] not in ("last", "all"):
        raise BadInput(f"--punish must be 'last' or 'all', not {opts['punish']!r}")
    if opts["choice"] not in ("best", "beads"):
        raise BadInput(f"--choice must be 'best' or 'beads', not {opts['choice']!r}")
    for key in ("step", "earlier_step", "reward", "beads", "draw_reward"):
        try:
            opts[key] = float(opts[key])
        except (TypeError, ValueError):
            raise BadInput(f"--{key.replace('_', '-')} must be a number, not {opts[key]!r}") from None
        if not math.isfinite(opts[key]) or abs(opts[key]) > VALUE_BOUND:
            raise BadInput(f"--{key.replace('_', '-')} must be a number within ±{VALUE_BOUND:,.0f}, not {opts[key]} "
                           "(values are added up over many games and must stay finite)")
    if opts["step"] <= 0:
        raise BadInput("--step must be greater than 0")
    if opts["earlier_step"] < 0 or opts["reward"] < 0 or opts["draw_reward"] < 0:
        raise BadInput("--earlier-step, --reward and --draw-reward must not be negative")
    if opts["beads"] <= 0:
        raise BadInput("--beads must be greater than 0")
    opts["cascade"] = bool(opts["cascade"])
    opts["fold"] = bool(opts["fold"])
    return opts


def _options_term(opts: dict[str, Any]) -> str:
    def val(v: Any) -> str:
        return ("true" if v else "false") if isinstance(v, bool) else str(v) if isinstance(v, float) else quote(v)
    return "[" + ", ".join(f"{k}={val(v)}" for k, v in opts.items()) + "]"


def _create(name: str, game: str, opts: dict[str, Any], rows: list[tuple]) -> None:
    engine().call(f"punish:punish_load({quote(name)}, {quote(game)}, {_options_term(opts)}, []), Out = true")
    for i in range(0, len(rows), ROWS_PER_CALL):
        data = ", ".join(f"[{quote(k)}, {quote(view)}, {float(v)}, {int(n)}]"
                         for k, view, v, n in rows[i:i + ROWS_PER_CALL])
        engine().call(f"punish:punish_add({quote(name)}, {quote(game)}, [{data}]), Out = true")


def load(db: sqlite_utils.Database, row: dict) -> None:
    """Put a stored agent's options and values into Prolog."""
    _create(row["name"], row["game"], validate(row["params"]), store.load_values(db, row["name"]))


def save(db: sqlite_utils.Database, name: str, game: str, opts: dict[str, Any], games_added: int,
         run: dict[str, Any] | None = None) -> None:
    """Write the agent's values from Prolog to the knowledge base in one transaction."""
    rows: list = []
    while True:
        page = engine().call(f"punish:punish_values({quote(name)}, {len(rows)}, {ROWS_PER_CALL}, Out)")
        rows += page
        if len(page) < ROWS_PER_CALL:
            break
    store.save_agent(db, name, game, NAME, opts, ((k, view, v, n) for k, view, v, n in rows), games_added, run)


def learn_game(db: sqlite_utils.Database, row: dict, game: str, keys: list[str], result: str, side: str) -> None:
    """Learn from one game played elsewhere (against a person) and save."""
    load(db, row)
    key_list = ", ".join(quote(k) for k in keys)
    engine().call(f"punish:punish_learn_game({quote(row['name'])}, {quote(game)}, [{key_list}], "
                  f"{quote(result)}, {quote(side)}), Out = true")
    save(db, row["name"], game, row["params"], 1)


def start(db: sqlite_utils.Database, name: str, game: str, options: dict[str, Any]) -> dict[str, Any]:
    """Load agent ``name`` (creating it with ``options`` if new) and return its options.

    An existing agent keeps its options: giving different ones is an error.
    """
    row = existing_agent(db, name, game, NAME)
    if row is None:
        opts = validate(options)
        _create(name, game, opts, [])
        return opts
    opts = validate(row["params"])
    changed = {k: v for k, v in validate({**opts, **options}).items() if opts[k] != v}
    if changed:
        raise BadInput(f"agent '{name}' exists with {', '.join(f'{k}={opts[k]}' for k in changed)}; "
                       "options are fixed when an agent is made (train a new agent to change them)")
    load(db, row)
    return opts


def run(db: sqlite_utils.Database, game: str, name: str, options: dict[str, Any], vs: str, side: str,
        n_games: int, seed: int, opponents: Any, progress: Callable[[int], None] | None = None,
        until_perfect: bool = False, limit: int | None = None, commits: Commits | None = None) -> TrainingRun:
    """Train agent ``name`` (made with ``options`` if new) inside Prolog; see commands.train.
    It plays in Prolog and never needs the whole graph, so ``limit`` does not concern it.
    ``commits`` says when to store the agent between batches."""
    commits = commits or Commits()
    if until_perfect:
        raise BadInput("--until-perfect is for the qlearn learner")
    opts = start(db, name, game, options)
    me = f"agent({quote(name)})"
    partner = opponents.agent(vs) if vs not in ("self", "adversary", "random", "minimax") else None
    them = {"self": me, "adversary": f"adversary({me})"}.get(vs) or opponents.chooser(vs)
    p0, p1 = games.two_players(game)
    if vs == "self":
        sets, sides = [{p0: me, p1: me}], [[p0, p1]]
    else:
        both = [({p0: me, p1: them}, [p0]), ({p0: them, p1: me}, [p1])]
        pick = {"first": both[:1], "second": both[1:], "both": both}[side]
        sets, sides = [s for s, _ in pick], [d for _, d in pick]
    learning = [name] + ([vs] if partner is not None and partner["learner"] == NAME else [])
    for agent in learning:
        engine().call(f"punish:punish_training({quote(agent)}, true), Out = true")

    def commit(done: int) -> None:
        if commits.due():
            commits.commit(done, lambda new: save(db, name, game, opts, new))

    try:
        results, seconds = play_batches(sets, game, n_games, seed, progress, commit)
    finally:
        for agent in learning:
            engine().call(f"punish:punish_training({quote(agent)}, false), Out = true")

    def save_all(record: dict) -> None:
        save(db, name, game, opts, commits.added(n_games), record)
        if partner is not None and partner["learner"] == NAME:
            save(db, vs, game, partner["params"], n_games)

    return TrainingRun(results, [sides[i % len(sides)] for i in range(n_games)], seconds, opts, save_all)


def play_batches(chooser_sets: list[dict[str, str]], game: str, n_games: int, seed: int,
                 progress: Callable[[int], None] | None = None,
                 between: Callable[[int], None] | None = None) -> tuple[list[str], float]:
    """Play ``n_games`` with learning inside Prolog, in batches (one query each) of about
    BATCH_SECONDS, so that the progress bar moves and Ctrl-C is answered within a second;
    ``between(games_done)`` runs after each batch.

    Game i uses ``chooser_sets[i % len]``. Returns each game's result and the seconds taken.
    """
    sets = ["[" + ", ".join(f"{quote(p)}-{c}" for p, c in cs.items()) + "]" for cs in chooser_sets]
    k = len(sets)
    batch = k
    games.seed_random(seed)
    results: list[str] = []
    t0 = time.perf_counter()
    while len(results) < n_games:
        n = min(batch, n_games - len(results))
        off = len(results) % k
        rotated = sets[off:] + sets[:off]
        started = time.perf_counter()
        results += engine().call(f"play:play_results({quote(game)}, [{', '.join(rotated)}], {n}, Out)")
        took = time.perf_counter() - started
        if progress:
            progress(n)
        if between:
            between(len(results))
        # the next batch: about BATCH_SECONDS of games, a multiple of the chooser sets
        per_game = took / n
        batch = max(k, min(MAX_BATCH, int(BATCH_SECONDS / max(per_game, 1e-6)) // k * k))
    return results, time.perf_counter() - t0


BATCH_SECONDS = 0.25     # a batch of games in one Prolog query: about this long
MAX_BATCH = 5_000
