"""Q-learning (the CA425 practical) from the bridge: options, the table between the knowledge base and Prolog, runs.

Training happens in learners/qlearn.py on the compiled state graph (no
Prolog query per move); the Prolog agent (rules/qtable.pl) plays from the
stored table.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from educable.bridge import games, graphs
from educable.bridge.compile import TooLarge
from educable.bridge.engine import ROWS_PER_CALL, BadInput, engine, quote
from educable.bridge.options import checked, existing_agent
from educable.bridge.wording import score_result
from educable.kb import store
from educable.learners import exact
from educable.learners.graph import DRAW, StateGraph
from educable.learners.options import declared, run_option
from educable.learners.qlearn import LazyStates, QOptions, QTable, grow_table, train
from educable.learners.training import Commits, Curve, TrainingRun, result_name

if TYPE_CHECKING:
    import sqlite_utils  # in annotations only: kb.db imports it when a database is opened

NAME = "qlearn"
OPTIONS = declared(QOptions, NAME) + (
    run_option("until_perfect", bool, False, "Stop at the first checkpoint (at most 500 games apart) where eval --exact "
               "says perfect on both sides.", NAME, off=""),)


def options_from(params: dict[str, Any]) -> QOptions:
    """Stored or typed parameters as checked options; BadInput names a bad one.  An agent stored
    before tables could be folded has no ``fold``: it is not folded."""
    return checked(QOptions, {"fold": False, **params}, NAME)


def new_agent_options(game: str, params: dict[str, Any]) -> QOptions:
    """A new agent's options: those given, and by default bounds (negamax where illegal moves are
    tried, which bounds cannot learn from, or a step size is given, which bounds takes none of) and
    a table folded where the game declares symmetries and it can be (reachable states, illegal moves
    never tried)."""
    resample = params.get("illegal", "resample") == "resample"
    defaults = {"update": "bounds" if resample and params.get("alpha") is None else "negamax",
                "fold": graphs.has_symmetry(game) and resample and params.get("table", "reachable") == "reachable"}
    return options_from({**defaults, **params})


def board_codes(graph: StateGraph) -> tuple[list[int], int]:
    """Each reachable state's board code (cells/4 read as base 3, first cell most significant,
    as cells_code/4 in Prolog) and the number of cells."""
    cells = games.board_cells(graph).astype(np.int64)
    if cells.size and cells.max() > 2:
        raise BadInput(f"game {graph.game}'s cells/4 gives the value {cells.max()}; --table full needs cells of "
                       "0 (empty), 1 (the mover's) or 2 (the opponent's)")
    n = cells.shape[1]
    return (cells @ (3 ** np.arange(n - 1, -1, -1, dtype=np.int64))).tolist(), n


def make_table(graph: StateGraph, opts: QOptions) -> QTable:
    """An empty table of the agent's kind over ``graph``."""
    if opts.table == "full":
        codes, n_cells = board_codes(graph)
        return QTable(graph, opts, codes, n_cells)
    if opts.fold:
        return QTable(graph, opts, class_keys=class_keys(graph))
    return QTable(graph, opts)


_CLASS_KEYS: dict[tuple[str, int, str], list[str]] = {}


def class_keys(graph: StateGraph) -> list[str]:
    """Each state's class key (its least symmetric image), asked of Prolog once per graph; a folded
    graph's nodes are classes already, keyed by their least image."""
    if graph.folded:
        return graph.keys
    key = (graph.game, graph.size, graph.keys[-1])
    if key not in _CLASS_KEYS:
        _CLASS_KEYS[key] = games.canonical_keys(graph.game, graph.keys)
    return _CLASS_KEYS[key]


def load(db: sqlite_utils.Database, row: dict) -> None:
    """Put a stored agent's table into Prolog (entries as stored; no graph needed).  An agent that
    learns bounds plays by tie(lower bound, score against random), never-learned entries tie(-1, 0)."""
    opts = options_from(row["params"])
    kind = "code" if opts.table == "full" else "class" if opts.fold else "text"
    bounds = opts.update == "bounds"
    unknown = "tie(-1.0, 0.0)" if bounds else "0"
    engine().call(f"qtable:q_load({quote(row['name'])}, {quote(row['game'])}, {kind}, {unknown}, []), Out = true")
    values = store.load_values(db, row["name"], bounds=bounds)
    for i in range(0, len(values), ROWS_PER_CALL):
        data = ", ".join(f"[{quote(x)}, {quote(m)}, {value_term(v, *more[2:])}]"     # more: visits[, upper, vs_random]
                         for x, m, v, *more in values[i:i + ROWS_PER_CALL])
        engine().call(f"qtable:q_add({quote(row['name'])}, [{data}]), Out = true")


def value_term(value: float, vs_random: float | None = None) -> str:
    """An entry's value as Prolog plays by it: the value, or tie(lower bound, score against random)."""
    if vs_random is not None:
        return f"tie({float(value)!r}, {float(vs_random)!r})"
    return repr(float(value))


def support(db: sqlite_utils.Database, row: dict, graph: StateGraph) -> exact.Support:
    """The moves the stored agent plays in every state of ``graph`` (legal moves of highest value,
    as rules/qtable.pl plays them), computed on the graph without Prolog."""
    opts = options_from(row["params"])
    table = make_table(graph, opts)
    table.restore(store.load_values(db, row["name"], bounds=opts.update == "bounds"))
    return table.greedy_support()


def learn_game(db: sqlite_utils.Database, row: dict, game: str, keys: list[str], result: str, side: str) -> None:
    """Q-learning agents learn only in `train`; a game against a person changes nothing."""


def start(db: sqlite_utils.Database, name: str, game: str, options: dict[str, Any]) -> tuple[QOptions, dict | None]:
    """The agent's options (new: from ``options``; existing: stored, which ``options`` may not change)."""
    row = existing_agent(db, name, game, NAME)
    if row is None:
        return new_agent_options(game, options), None
    stored = options_from(row["params"])
    # the exploration schedule belongs to a run; everything else is fixed at creation
    per_run = {"epsilon", "epsilon_end"}
    merged = options_from({**stored.as_dict(), **options})
    changed = [k for k, v in merged.as_dict().items() if k not in per_run and stored.as_dict()[k] != v]
    if changed:
        raise BadInput(f"agent '{name}' exists with {', '.join(f'{k}={stored.as_dict()[k]}' for k in changed)}; "
                       "options are fixed when an agent is made (train a new agent to change them)")
    return merged, row


def run(db: sqlite_utils.Database, game: str, name: str, options: dict[str, Any], vs: str, side: str,
        n_games: int, seed: int, opponents: Any, progress: Callable[..., None] | None = None,
        until_perfect: bool = False, limit: int | None = None, commits: Commits | None = None) -> TrainingRun:
    """Train a Q-learning agent on the state graph (expanded lazily when the game is past the
    position ``limit``); see commands.train.  ``commits`` says when to store the table mid-run."""
    commits = commits or Commits()
    if games.is_hidden(game):               # its state is a player's view: bridge/views_qlearn.py
        from educable.bridge import views_qlearn
        return views_qlearn.run(db, game, name, options, vs, side, n_games, seed, progress)
    if vs == "adversary":
        raise BadInput("--vs adversary is for the punish and ntuple learners; use self, random, minimax or an agent")
    opts, row = start(db, name, game, options)
    solved = None                   # a game of chance's solution, for its exact checkpoints
    try:
        with graphs.compiling_as_stage(progress) as stage:
            graph = graphs.state_graph(db, game, limit, stage, what="Q-learning on the whole graph needs every position")
    except graphs.ChanceGame as chance_game:
        graph = chance_game.graph
        if row is None and ("update" not in options or "fold" not in options):
            opts = options_from({**opts.as_dict(), "update": options.get("update", "negamax"),
                                 "fold": options.get("fold", False)})
        if opts.update not in ("negamax", "expected") or opts.fold or opts.table != "reachable" or opts.illegal != "resample":
            raise BadInput(f"{game} is a game of chance: Q-learning learns it with --update negamax (the sampled "
                           "update, averaged) or expected, --no-fold, --table reachable and --illegal resample") from None
        if opts.update == "expected" and (vs != "self" or graph.scored):
            raise BadInput("--update expected learns a game of chance of two players by self-play (leave out --vs)") from None
        if vs not in ("self", "random", "minimax"):
            raise BadInput(f"{game} is a game of chance: Q-learning trains there against self, random or minimax") from None
        if graph.scored and vs != "self":
            raise BadInput(f"{game} is a game of score (one player): the agent plays it alone (leave out --vs)") from None
        from educable.learners import chance
        solved = chance.solve(graph)
    except TooLarge:
        graph = None
        asked = options.get("fold") is True or (row is not None and opts.fold)
        if asked and vs in ("self", "random", "minimax") and graphs.has_symmetry(game):
            try:                # a folded table learns as well on the graph of classes, if that fits
                graph = graphs.solved_graph(db, game, limit)[0]
            except TooLarge:
                pass            # and if not, run_lazily says why it cannot fold
        if graph is None and until_perfect:
            raise graphs.cannot_judge(game, "is too large to judge exactly") from None
        if graph is None:
            if row is None:     # the defaults where there is no graph: nothing to fold, negamax (bounds needs every move)
                opts = options_from({"fold": False, "update": "negamax", **options})
            return run_lazily(db, game, name, opts, row, vs, side, n_games, seed, progress, commits)
    assert graph is not None  # noqa: S101  (narrows a type for mypy; true by construction)
    if opts.update == "expected" and solved is None:
        raise BadInput(f"{game} has no chance: --update expected is for games of chance (negamax is its "
                       "counterpart here)")
    if until_perfect and solved is None and not graph.acyclic():
        raise graphs.cannot_judge(game, "has positions that repeat, which have no exact judgement")
    table = make_table(graph, opts)
    if row is not None:
        table.restore(store.load_values(db, name, bounds=table.bounds))
    players = graph.players
    learner_sides = [[0]] if graph.scored else sides_of(vs, side)
    if solved is not None:
        from educable.learners import chance
        opponent = None if vs == "self" else exact.all_moves(graph) if vs == "random" else (
            exact.support_of(graph, chance.best_moves(graph, solved.value)))
    else:
        opponent = None if vs == "self" else exact.all_moves(graph) if vs == "random" else (
            exact.optimal_moves(graph) if vs == "minimax" else opponents.support(graph, vs))
    checkpoints: list[dict] = []
    judged = [0.0]

    def checkpoint(done: int, last: bool = False) -> bool:
        t = time.perf_counter()
        try:
            return _checkpoint(done, last)
        finally:
            judged[0] += time.perf_counter() - t

    def _checkpoint(done: int, last: bool) -> bool:
        if commits.due():               # the table is written back before each checkpoint
            commits.commit(done, lambda new: store.save_agent(db, name, game, NAME, opts.as_dict(), table.entries(),
                                                              new))
        if not (last or schedule.due(done)):      # between the curve's points: only a chance to commit
            return False
        if solved is not None:          # a game of chance: judged by expectimax, its cycles included
            from educable.learners import chance
            with schedule.judging():
                if graph.scored:
                    point = chance.score_checkpoint(graph, table.greedy_choices(), done, solved)
                else:
                    point = chance.checkpoint(graph, table.greedy_choices(), done, solved)
            checkpoints.append(point)
            if graph.scored:
                return until_perfect and point["perfect"]
            return until_perfect and point["as_first"]["perfect"] and point["as_second"]["perfect"]
        if not graph.acyclic():         # positions repeat: no exact judgement
            return False
        with schedule.judging():
            point = exact.checkpoint(graph, table.greedy_choices(), done)
        checkpoints.append(point)
        return until_perfect and point["as_first"]["perfect"] and point["as_second"]["perfect"]

    t0 = time.perf_counter()
    schedule = Curve(n_games, until_perfect, exact.checkpoint_guess(graph))
    scores: list[float] = []
    raw = train(table, learner_sides, opponent, n_games, seed, progress, checkpoint, schedule.tick, score_log=scores)
    seconds = time.perf_counter() - t0 - judged[0]
    played = len(raw)
    if not checkpoints or checkpoints[-1]["games"] != played:
        checkpoint(played, last=True)
    extra: dict[str, Any] = {"checkpoints": checkpoints, "checkpoint_seconds": round(judged[0], 4)}
    if opts.table == "full":
        reachable = len(set(table.rows))
        extra["enumeration"] = {"boards": table.n_rows, "actions": len(table.actions),
                                "entries": table.n_rows * len(table.actions), "reachable_boards": reachable,
                                "reachable_states": graph.size}
    if graph.scored:
        extra["mean_score"] = sum(scores) / len(scores) if scores else None
    return finished_run(db, name, game, opts, table, players, learner_sides, raw, seconds, extra, commits,
                        scores if graph.scored else None)


LOCKSTEP = 256      # games played side by side on a lazily expanded graph: one Prolog query per step of all


def sides_of(vs: str, side: str) -> list[list[int]]:
    """The sides (player indices) the agent learns in game i (cycling): both against itself, else
    first, second or alternating against ``vs``."""
    return [[0, 1]] if vs == "self" else {"first": [[0]], "second": [[1]], "both": [[0], [1]]}[side]


def finished_run(db: sqlite_utils.Database, name: str, game: str, opts: QOptions, table: QTable,
                 players: list[str], learner_sides: list[list[int]], raw: list[int], seconds: float,
                 extra: dict[str, Any], commits: Commits, scores: list[float] | None = None) -> TrainingRun:
    """A run's report from its games' winners (a game of score: their ``scores``), with the save that
    stores the table (and counts the games not committed yet)."""
    if scores is not None:
        results = [score_result(x) for x in scores]
    else:
        results = [result_name(w, players) for w in raw]
    sides = [[players[p] for p in learner_sides[i % len(learner_sides)]] for i in range(len(raw))]

    def save(record: dict) -> None:
        store.save_agent(db, name, game, NAME, opts.as_dict(), table.entries(), commits.added(len(raw)), record)

    return TrainingRun(results, sides, seconds, opts.as_dict(), save, extra)


def expander(game: str, players: list[str]) -> Callable[[list[str]], list[tuple[int, int, list[str], list[str]]]]:
    """The batch expansion a LazyStates asks for: one Prolog query (graph:keys_expand/3) per call."""
    pidx = {p: i for i, p in enumerate(players)}

    def expand(keys: list[str]) -> list[tuple[int, int, list[str], list[str]]]:
        nodes = engine().call(f"graph:keys_expand({quote(game)}, [{', '.join(quote(k) for k in keys)}], Out)")
        out, at = [], 0
        for mover, result, count in zip(nodes["movers"], nodes["results"], nodes["counts"], strict=True):
            winner = -1 if result is None else DRAW if result == "draw" else pidx[result]
            out.append((pidx[mover], winner, nodes["moves"][at:at + count], nodes["next"][at:at + count]))
            at += count
        return out
    return expand


def run_lazily(db: sqlite_utils.Database, game: str, name: str, opts: QOptions, row: dict | None, vs: str,
               side: str, n_games: int, seed: int, progress: Callable[[int], None] | None,
               commits: Commits) -> TrainingRun:
    """Q-learning on a game too large to enumerate: over the states it meets, expanded in batches."""
    if vs not in ("self", "random"):
        raise BadInput(f"{game} is too large to enumerate: Q-learning trains there against self or random "
                       f"(--vs {vs} needs every position)")
    if opts.fold:
        raise BadInput(f"{game} is too large to enumerate: its Q-table cannot be folded there (--no-fold; "
                       "folding needs every position's class)")
    if opts.update in ("bounds", "expected"):
        raise BadInput(f"{game} is too large to enumerate: --update {opts.update} needs every position "
                       "(--update negamax learns there)")
    if opts.illegal != "resample" or opts.table != "reachable":
        raise BadInput(f"{game} is too large to enumerate: Q-learning takes --illegal resample and --table reachable "
                       "there (the others need every move and board in advance)")
    players = games.players(game)
    lazy = LazyStates(games.initial(game).key, expander(game, players))
    if row is not None:
        lazy.restore(store.load_values(db, name))
    table = QTable(lazy, opts)  # type: ignore[arg-type]
    learner_sides = sides_of(vs, side)
    committing = [0.0]

    def commit(done: int) -> bool:
        """Store the games finished so far when a commit is due (never stops the run)."""
        if commits.due():
            t = time.perf_counter()
            grow_table(table, lazy)
            commits.commit(done, lambda new: store.save_agent(db, name, game, NAME, opts.as_dict(), table.entries(),
                                                              new))
            committing[0] += time.perf_counter() - t
        return False

    t0 = time.perf_counter()
    raw = train(table, learner_sides, None, n_games, seed, progress, commit, lazy=lazy, lockstep=LOCKSTEP)
    seconds = time.perf_counter() - t0 - committing[0]
    extra: dict[str, Any] = {"lazy": {"states_met": lazy.size, "expanded": sum(lazy.expanded),
                                      "prolog_queries": lazy.queries, "lockstep": LOCKSTEP}}
    return finished_run(db, name, game, opts, table, players, learner_sides, raw, seconds, extra, commits)
