"""The library functions behind the command line, one per command.

Each drives Prolog through the bridge and reads or writes the knowledge
base; the CLI only parses arguments and prints what these return.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from educable.bridge import agents, games, graphs, limits, outside, perfect, registry
from educable.bridge import compile as compile_mod
from educable.bridge import judge as judging
from educable.bridge.compile import ProgressFn as CompileProgressFn
from educable.bridge.engine import BadInput
from educable.kb import store
from educable.learners import exact, training
from educable.learners.graph import CHANCE, CyclicGraph, StateGraph
from educable.learners.options import stored_names
from educable.learners.sampling import wilson_interval

if TYPE_CHECKING:
    import sqlite_utils  # in annotations only: kb.db imports it when a database is opened

# progress(n) after n more steps (games, cycles, positions); progress(0, stage) names a stage of no
# steps (a training compiling its game's graph first), progress(0, "") ends it
ProgressFn = Callable[..., None]




def solve(db: sqlite_utils.Database, game: str, limit: int | None = None,
          progress: CompileProgressFn | None = None) -> dict[str, Any]:
    """Solve ``game`` exactly (retrograde analysis over its graph, folded by its symmetries) and store it.

    A game solved before from the same rule files is read back, not solved
    again.  A game with symmetries is compiled folded only: the graph of
    every position waits for the first command that needs it (exact
    judgement of an agent that may play symmetric positions differently,
    training on the graph).
    """
    if games.is_hidden(game):
        from educable.bridge import hidden
        return hidden.solve(db, game, limit, progress)
    t0 = time.perf_counter()
    try:
        graph, seconds = graphs.solved_graph(db, game, limit, progress)
    except graphs.ChanceGame as chance_game:
        return chance_summary(chance_game.graph, t0, chance_game.from_kb)
    summary = store.game_summary(db, game)
    assert summary is not None  # noqa: S101  (narrows a type for mypy; true by construction)
    summary.pop("solved_at", None)
    summary.update({"nodes": graph.size, "folded": graph.folded, "stored": seconds is None,
                    "seconds": round(time.perf_counter() - t0, 4)})
    return summary


def chance_summary(graph: StateGraph, t0: float, from_kb: bool) -> dict[str, Any]:
    """``solve``'s answer for a game of chance: the first player's expected result and winning chance
    under best play, by expectimax, each cycle of the graph solved exactly (learners/chance.py);
    ``stored`` when the solved graph was read from the knowledge base (``from_kb``)."""
    from educable.learners import chance
    found = chance.solve(graph)
    first, value = graph.players[0], float(found.value[0])
    return {"game": graph.game, "players": graph.players, "positions": graph.positions, "terminal": graph.terminal,
            "chance_nodes": int(graph.orbit[graph.mover == CHANCE].sum()), "classes": None,
            "value": value, "win_probability": found.win_probability(graph),
            "draw_probability": found.draw_probability(graph),
            "expected_score": value if graph.scored else None,
            "winner": None if graph.scored or value == 0 else first if value > 0 else graph.players[1],
            "parts": found.parts, "cyclic_parts": found.cyclic_parts, "largest_part": found.largest,
            "sweeps": found.sweeps, "tolerance": found.tolerance, "exact_parts": found.exact_parts,
            "improvements": found.improvements, "nodes": graph.size, "folded": graph.folded,
            "stored": from_kb, "seconds": round(time.perf_counter() - t0, 4)}


def ensure_graph(db: sqlite_utils.Database, game: str, what: str = "judging exactly needs every position",
                 limit: int | None = None, progress: CompileProgressFn | None = None) -> StateGraph:
    """The game's graph of every state with exact values, from the knowledge base (built and stored if new)."""
    return graphs.state_graph(db, game, limit=limit, progress=progress, what=what)


def list_agents(db: sqlite_utils.Database, game: str | None = None) -> list[dict[str, Any]]:
    """Every learned agent with its learner, game, games trained and parameters."""
    return [{k: row[k] for k in ("name", "game", "learner", "games_trained", "params", "created", "updated")}
            for row in store.list_agents(db, game)]


def last_judgements(db: sqlite_utils.Database) -> dict[str, str]:
    """Each agent's last exact judgement that a run stored (its last checkpoint: what it guarantees
    on each side against a best responder), in words."""
    out = {}
    for agent, results in db.execute("SELECT agent, results FROM runs ORDER BY id"):
        checkpoints = (store.json_object(results) or {}).get("checkpoints")
        point = checkpoints[-1] if isinstance(checkpoints, list) and checkpoints else None
        if isinstance(point, dict) and all(isinstance(point.get(s), dict) for s in ("as_first", "as_second")):
            words = ", ".join(f"{side.replace('_', ' ')}: "
                              f"{'perfect' if point[side].get('perfect') else point[side].get('guaranteed', '?')}"
                              for side in ("as_first", "as_second"))
            games = point.get("games")
            out[agent] = f"{words} (after {games:,} games)" if isinstance(games, int) else words
    return out


SUMMARY_CHARS = 160       # of an agent's options as `agents` prints them


def option_summary(agent: dict[str, Any]) -> str:
    """An agent's options in a line people read: scalars as name=value, and lists (an n-tuple agent's
    cell permutations, its tuples) as how many there are; `agents --json` keeps them all."""
    parts = []
    for k, v in sorted(agent["params"].items()):
        if isinstance(v, (list, dict)):
            parts.append(f"{k}: {len(v)}")
        elif v is not None:
            parts.append(f"{k}={v}")
    text = " ".join(parts)
    return text if len(text) <= SUMMARY_CHARS else text[:SUMMARY_CHARS - 1] + "…"


def rule_sets(db: sqlite_utils.Database, name: str) -> dict[str, Any]:
    """A rule-set agent's members (NAME: all, best first; NAME#k: that one) with their rules."""
    from educable.bridge import ga

    row, member = ga.rule_set_agent(db, name)
    members = ga.members_with_rules(db, row)
    if member is not None:
        k, _ = ga.check_member(db, row, member)
        members = [members[k - 1]]
    return {"agent": row["name"], "game": row["game"], "learner": row["learner"], "params": row["params"], "members": members}


def train(db: sqlite_utils.Database, game: str, learner: str, agent: str, n_games: int, vs: str, side: str,
          seed: int, options: dict[str, Any], progress: ProgressFn | None = None,
          until_perfect: bool = False, limit: int | None = None, workers: int = 1,
          scheduler: str | None = None) -> dict[str, Any]:
    """Train AGENT with LEARNER for ``n_games`` against VS, store it, and judge it exactly.

    ``vs`` is ``self`` (both sides the agent), ``random``, ``minimax``,
    ``adversary`` (punish only: best response to the agent's current
    values) or another agent; ``side`` is ``first``, ``second`` or ``both``
    (alternating).  ``workers``/``scheduler``: the n-tuple learner's self-play on a game too large to
    enumerate runs on Dask (bridge/ntuple.run_lazily).  A long run commits the agent every few seconds; stopped
    (Ctrl-C, SIGTERM) it raises training.Stopped saying how many games were
    kept.  On a
    game past the position ``limit`` the closing exact judgement is skipped
    (``exact`` is None and ``exact_skipped`` says why).
    """
    if learner not in agents.LEARNERS:
        raise BadInput(f"unknown learner '{learner}' (known: {', '.join(agents.LEARNERS)})")
    if outside.named(vs):
        raise BadInput(f"--vs {vs}: a player from Python is judged, played and rated (eval, judge, tournament, play), "
                       "not trained against: its moves are asked from Python, training runs inside Prolog")
    if games.is_score_game(game) and learner not in registry.SCORE_LEARNERS:
        raise BadInput(games.score_game_refusal(game))
    if games.is_score_game(game) and vs != "self":
        raise BadInput(f"{game} is a game of score (one player): the agent plays it alone (leave out --vs)")
    if n_games < 1:
        raise BadInput("--games must be at least 1")
    if side not in ("first", "second", "both"):
        raise BadInput("--as must be first, second or both")
    agents.check_name(agent)
    if vs == agent:
        vs = "self"
    if vs in perfect.PLAYERS:
        raise BadInput("the perfect player judges agents (eval --vs perfect, judge) but is no training opponent")
    if vs not in ("self", "adversary"):
        agents.check_agent(db, game, vs)
    bound = compile_mod.known_lower_bound(game) if vs == "adversary" else None
    if bound is not None and bound > limits.max_positions(limit):
        raise BadInput(f"--vs adversary answers every move from the whole game, and {game} has at least {bound:,} "
                       f"positions (past --max-positions {limits.max_positions(limit):,}): train with --vs self")
    module = registry.learner_module(learner)
    foreign = sorted(set(options) - stored_names(module.OPTIONS) - {"tuple_cells", "starts"})   # the files read
    if foreign:
        raise BadInput(f"--{foreign[0].replace('_', '-')} is not an option of the {learner} learner")
    parallel = {"workers": workers, "scheduler": scheduler} if workers != 1 or scheduler else {}
    if parallel and learner != "ntuple":
        raise BadInput("--workers and --scheduler are for the ntuple learner's self-play on large games")
    commits = training.Commits()
    try:
        run = module.run(db, game, agent, options, vs, side, n_games, seed, agents.Opponents(db, game),
                         progress, until_perfect, limit, commits, **parallel)
    except KeyboardInterrupt as stop:
        store.record_stopped_run(db, agent, commits.kept, round(commits.kept_seconds, 4),
                                 {"vs": vs, "as": side, "seed": seed})
        raise training.Stopped(commits.kept) from stop
    summary = training.summarise(run.results, run.sides)
    params = {"vs": vs, "as": side, "seed": seed}
    run.save({"games": len(run.results), "seconds": run.seconds, "results": {**summary, **params, **run.extra}})
    out = {"agent": agent, "game": game, "learner": learner, **summary, "seconds": round(run.seconds, 4),
           "games_per_second": round(len(run.results) / run.seconds, 1) if run.seconds else None,
           "options": run.options, **params, **run.extra}
    if learner == "ntuple" and games.is_score_game(game):
        out["exact"] = None
        out["exact_skipped"] = ("no exact judgement here: eval judges an n-tuple agent of a game of score by its "
                                "games, and with --exact where the board's state graph fits")
        return out
    try:
        with graphs.compiling_as_stage(progress, "judging it exactly: ") as stage:    # not "N of N done" for minutes
            judged = evaluate_exact(db, game, agent, limit=limit, progress=stage)
        out["exact"] = {k: v for k, v in judged.items()
                        if k in ("as_first", "as_second", "folded", "expected_score", "best_expected_score", "perfect",
                                 "exploitability")}
    except (compile_mod.TooLarge, Unjudgeable) as exc:
        out["exact"] = None
        out["exact_skipped"] = f"no exact judgement: {exc}"
    return out


def train_agent(db: sqlite_utils.Database, game: str, learner: str, agent: str, seed: int, given: dict[str, Any],
                n_games: int = 500, vs: str = "self", side: str = "both", progress: ProgressFn | None = None,
                limit: int | None = None) -> dict[str, Any]:
    """One training run of any learner: what `train` and every run of `sweep train` call.

    ``given`` holds the options the user gave, by the names the learner's
    module declares (its OPTIONS): the agent's own (kept with it; a new agent
    takes the learner's defaults for the rest) and this run's (``run``
    options: --until-perfect, --cycles, --workers, ...).  The ga learner
    runs cycles, not games: ``n_games``, ``vs`` and ``side`` do not concern
    it.  Returns the run's report (train --json prints it).
    """
    if learner not in registry.TRAINABLE:
        raise BadInput(f"unknown learner '{learner}' (known: {', '.join(registry.TRAINABLE)})")
    if learner not in registry.SCORE_LEARNERS:
        games.two_players(game)             # a game of score: refused in one line
    if games.is_hidden(game) and learner not in (*registry.ITERATING, *registry.VIEW_LEARNERS):
        raise BadInput(games.hidden_refusal(game, f"the {learner} learner sees every card; train --learner cfr "
                                                  "or qlearn"))
    module = registry.learner_module(learner)
    declared = {o.name: o for o in module.OPTIONS}
    foreign = [k for k in given if k not in declared]
    if foreign:
        raise BadInput(f"--{foreign[0].replace('_', '-')} is not an option of the {learner} learner")
    options = {k: v for k, v in given.items() if not declared[k].run}
    run = {o.name: given.get(o.name, o.default) for o in module.OPTIONS if o.run}
    if learner in registry.ITERATING:
        agents.check_name(agent)
        workers, scheduler = run["workers"], run["scheduler"]
        if workers > 1 or scheduler:
            from educable.bridge import cluster
            scheduler = cluster.scheduler_address(scheduler)
        return module.train(db, game, agent, run["iterations"], options, progress, run["judge_every"], run["target"],
                            limit, seed, workers, scheduler)
    if not registry.plays_games(learner):
        agents.check_name(agent)
        return module.train(db, game, agent, run["cycles"], seed, options, progress, run["judge_every"])
    if run.get("tuples_file") is not None:
        options["tuple_cells"] = module.read_tuples(run["tuples_file"])
    if run.get("starts_file") is not None:
        options["starts"] = module.read_starts(run["starts_file"])
        options.setdefault("start_share", 0.5)
    workers, scheduler = run.get("workers", 1), run.get("scheduler")
    if workers > 1 or scheduler:
        from educable.bridge import cluster
        scheduler = cluster.scheduler_address(scheduler)
    return train(db, game, learner, agent, n_games, vs, side, seed, options, progress,
                 run.get("until_perfect", False), limit, workers, scheduler)


def evaluate_series(db: sqlite_utils.Database, game: str, agent: str, vs: str | None, n_games: int, seed: int,
                    progress: ProgressFn | None = None, max_moves: int = games.SCORE_PLIES) -> dict[str, Any]:
    """AGENT plays ``n_games`` against VS, half on each side; win/draw/loss counts per side, each
    rate with its 95% (Wilson) interval.  Needs no state graph: works on games of any size.  On a
    game of score (one player), AGENT plays alone: its mean score (evaluate_score_series)."""
    if games.is_score_game(game):
        return evaluate_score_series(db, game, agent, vs, n_games, seed, progress, max_moves)
    if vs is None:
        raise BadInput("give --vs AGENT for a match series, or --exact")
    if n_games < 2:
        raise BadInput("--games must be at least 2 (half are played on each side)")
    first, second = games.two_players(game)
    for name in (agent, vs):
        agents.check_agent(db, game, name)       # both named right before either is loaded
    # the perfect player and players from outside (bridge/outside.py) are asked from Python, move by move
    from_python = bool(set(perfect.PLAYERS) & {agent, vs}) or outside.named(agent) or outside.named(vs)
    if not from_python:
        me = agents.chooser(db, game, agent)
        them = agents.chooser(db, game, vs)
    out: dict[str, Any] = {"game": game, "agent": agent, "vs": vs, "games": n_games, "seed": seed}
    halves = {"as_first": (n_games + 1) // 2, "as_second": n_games // 2}
    for i, (side, n) in enumerate(halves.items()):
        if side == "as_first":
            mine, theirs, names = first, second, (agent, vs)
        else:
            mine, theirs, names = second, first, (vs, agent)
        if from_python:
            counts = judging.play_series(db, game, names, n, seed + i)
        else:
            choosers = {first: me, second: them} if side == "as_first" else {first: them, second: me}
            counts = games.play_series(game, choosers, n, seed + i)
        cut = counts.pop("cut", 0)              # still going after endless_plies/1 moves: scored a draw
        if cut:
            counts["draw"] = counts.get("draw", 0) + cut
        store.record_series(db, game, names[0], names[1], counts, "eval")
        tally = {"win": counts.get(mine, 0), "draw": counts.get("draw", 0), "loss": counts.get(theirs, 0)}
        out[side] = {**tally, "interval95": {k: [round(x, 4) for x in wilson_interval(v, n)] for k, v in tally.items()},
                     "cut": cut}
        if progress:
            progress(n)
    return out


def judge(db: sqlite_utils.Database, game: str, agent: str, n_games: int, seed: int, openings: int = 2,
          progress: ProgressFn | None = None, per_opening: int = 0) -> dict[str, Any]:
    """Judge AGENT against the perfect Connect Four player (bridge/perfect.py): move accuracy in
    games and on the fixed set of positions, results from the start and from every opening of one
    and two moves, and with ``per_opening`` that many games from each opening against both perfect
    players (perfect, perfect-random).  A game of hidden information: the agent's exploitability
    (bridge/hidden.judge)."""
    if games.is_hidden(game):
        from educable.bridge import hidden
        return hidden.judge(db, game, agent)
    perfect.check(game)
    if n_games < 2:
        raise BadInput("--games must be at least 2 (the agent's side alternates)")
    agents.check_agent(db, game, agent)
    if openings not in (0, 1, 2):
        raise BadInput("--openings must be 0, 1 or 2 (moves made before the agent takes over)")
    if not 0 <= per_opening <= 10_000:
        raise BadInput("--per-opening must be from 0 to 10,000 games")
    out = judging.judge(db, game, agent, n_games, seed, openings, progress)
    out["fixed"] = judging.fixed_accuracy(db, game, agent) if perfect.POSITIONS.is_file() else None
    if per_opening:
        out["by_opening"] = judging.judge_openings(db, game, agent, per_opening, seed, progress)
    return out


class Unjudgeable(BadInput):
    """Exact judgement does not apply to the game: its positions can repeat."""


def evaluate_exact(db: sqlite_utils.Database, game: str, agent: str, vs: str | None = None,
                   limit: int | None = None, progress: CompileProgressFn | None = None) -> dict[str, Any]:
    """Judge AGENT exactly over the state graph.

    Without ``vs``: on each side, the outcome it guarantees against a best
    responder.  With ``vs``: the exact win/draw/loss probabilities of the pairing.
    Unjudgeable for a game whose positions can repeat.
    """
    if games.is_hidden(game):
        from educable.bridge import hidden
        return hidden.judge(db, game, agent, limit, progress, vs)
    try:
        return _evaluate_exact(db, game, agent, vs, limit, progress)
    except graphs.ChanceGame as chance_game:
        return evaluate_exact_chance(db, chance_game.graph, agent, vs)
    except CyclicGraph as exc:
        raise Unjudgeable(str(exc)) from None


def evaluate_exact_chance(db: sqlite_utils.Database, graph: StateGraph, agent: str, vs: str | None) -> dict[str, Any]:
    """``eval --exact`` on a game of chance: without ``vs``, the agent's chance of winning (or expected
    result) on each side against a best-responding opponent, beside the game's value for that side;
    with ``vs``, the chances of each result.  ``minimax`` is the expectimax player (among best moves
    at random); a learned agent plays as it would (learners.exact's supports)."""
    from educable.learners import chance
    if graph.scored:
        return evaluate_exact_score(db, graph, agent, vs)
    for name in (agent, vs):
        if name is not None and ((agents.search_chooser(name) is not None and not name.startswith("expectimax:"))
                                 or name in judging.PLAYERS):
            raise BadInput(f"{graph.game} is a game of chance: {name!r} does not search chance nodes "
                           "(expectimax:DEPTH does)")
    solved = chance.solve(graph)

    def policy(name: str) -> np.ndarray:
        if name == "minimax":
            return chance.policy_of(graph, chance.best_moves(graph, solved.value))
        return chance.policy_of_support(graph, agents.support(db, graph, name))

    first, second = graph.players
    draws = solved.drawable
    out: dict[str, Any] = {"game": graph.game, "agent": agent, "chance": True,
                           "value": {first: float(solved.value[0]), second: -float(solved.value[0])},
                           "measure": "expected result (1 a win, -1 a loss)" if draws else "chance of winning"}
    if vs is None:
        mine = policy(agent)
        for side, player in (("as_first", 0), ("as_second", 1)):
            out[side] = chance.judged_side(graph, player, mine, solved)
        return out
    out["vs"] = vs
    p1 = chance.outcome_probabilities(graph, policy(agent), policy(vs))
    p2 = chance.outcome_probabilities(graph, policy(vs), policy(agent))
    out["as_first"] = {"win": p1[first], "draw": p1["draw"], "loss": p1[second]}
    out["as_second"] = {"win": p2[second], "draw": p2["draw"], "loss": p2[first]}
    return out


def check_score_agent(game: str, agent: str, vs: str | None, exact: bool) -> None:
    """BadInput in one line unless ``eval`` can judge ``agent`` on the game of score ``game``: random,
    expectimax:DEPTH, a learned agent, and with --exact best play (minimax)."""
    how = "eval --exact" if exact else "eval"
    if vs is not None:
        raise BadInput(f"{game} is a game of score (one player): {how} judges {agent} alone; leave out --vs")
    if agent == "minimax" and not exact:
        raise BadInput(f"{game} is a game of score (one player): best play (minimax) is judged with --exact")
    builtin = agent in store.BUILTIN_AGENTS or agents.search_chooser(agent) is not None or agent in perfect.PLAYERS
    if builtin and agent not in ("random", "minimax") and not (agent.startswith("expectimax:") and "+" not in agent):
        names = "random, minimax, expectimax:DEPTH" if exact else "random, expectimax:DEPTH"
        raise BadInput(f"{game} is a game of score (one player): {how} judges {names} and agents learned by "
                       f"{' or '.join(registry.SCORE_LEARNERS)} "
                       f"so far, not {agent!r}")


SCORE_PAGE = 100        # games of score played in one Prolog query


def tile_player(db: sqlite_utils.Database, game: str, agent: str) -> tuple[str, int] | None:
    """(the n-tuple agent, the depth) when ``agent`` is an n-tuple agent of a game of score, alone
    (depth 1: its afterstate values) or as ``expectimax:DEPTH+AGENT`` (1 or 2 moves deep): learners/
    tiles.py's kernel plays it.  None for any other agent."""
    name, depth = agent, 1
    guide = agents.search_guide(agent) if agent.startswith("expectimax:") else None   # its number checked there
    if guide is not None:
        name, depth = guide, int(agent.partition(":")[2].partition("+")[0])
    row = store.get_agent(db, name)
    if row is None or row["learner"] != "ntuple" or row["game"] != game:
        return None
    if depth > 2:
        raise BadInput(f"{agent}: an n-tuple agent of {game} searches 1 or 2 moves deep (expectimax:1+{name} or "
                       f"expectimax:2+{name})")
    return name, depth


def evaluate_score_series(db: sqlite_utils.Database, game: str, agent: str, vs: str | None, n_games: int, seed: int,
                          progress: ProgressFn | None = None, max_moves: int = games.SCORE_PLIES) -> dict[str, Any]:
    """AGENT plays ``n_games`` of the game of score ``game`` alone (chance drawn with its exact
    chances): its mean score with a 95% interval (normal, from the games' spread), the lowest and
    the highest.  Needs no state graph."""
    import random
    import statistics
    tile_agent = tile_player(db, game, agent)
    if tile_agent is None:
        check_score_agent(game, agent, vs, exact=False)
    if n_games < 2:
        raise BadInput(f"{game} is a game of score: --games must be at least 2 (the interval comes from the games' spread)")
    if tile_agent is not None:
        from educable.bridge import ntuple
        return ntuple.evaluate_tiles(db, game, agent, *tile_agent, n_games, seed, progress)
    agents.check_agent(db, game, agent)
    (player,) = games.players(game)
    chooser = agents.chooser(db, game, agent)
    pages = random.Random(seed)
    scores: list[float] = []
    cut = 0
    while len(scores) < n_games:
        n = min(SCORE_PAGE, n_games - len(scores))
        totals, page_cut = games.play_scores(game, {player: chooser}, n, pages.randrange(2**31), max_moves)
        scores += totals
        cut += page_cut
        if progress:
            progress(n)
    mean = statistics.fmean(scores)
    half = 1.96 * statistics.stdev(scores) / len(scores) ** 0.5
    return {"game": game, "agent": agent, "games": n_games, "seed": seed, "score": True, "mean_score": mean,
            "interval95": [mean - half, mean + half], "lowest": min(scores), "highest": max(scores),
            "cut": cut, "cut_after": max_moves}


def evaluate_exact_score(db: sqlite_utils.Database, graph: StateGraph, agent: str, vs: str | None) -> dict[str, Any]:
    """``eval --exact`` on a game of score (one player): the agent's exact expected score beside the
    best expected score (the gap is what its choices give away).  Judges ``random``, ``minimax``
    (best play), ``expectimax:D`` (points counted to its horizon) and a learned agent."""
    from educable.learners import chance
    check_score_agent(graph.game, agent, vs, exact=True)
    solved = chance.solve(graph)
    if agent == "minimax":
        policy = chance.policy_of(graph, chance.best_moves(graph, solved.value))
    elif agent == "random":
        policy = chance.policy_of(graph, np.ones(len(graph.target), dtype=bool))
    else:
        policy = chance.policy_of_support(graph, agents.support(db, graph, agent))
    return {"game": graph.game, "agent": agent, "score": True, **chance.score_judgement(graph, policy, solved)}


def _evaluate_exact(db: sqlite_utils.Database, game: str, agent: str, vs: str | None,
                    limit: int | None, progress: CompileProgressFn | None) -> dict[str, Any]:
    games.check_game(game)
    for name in (agent, vs):
        if name is not None:
            agents.check_agent(db, game, name)
    graph = judging_graph(db, game, [n for n in (agent, vs) if n is not None], limit, progress)
    mine = agents.support(db, graph, agent)
    out: dict[str, Any] = {"game": game, "agent": agent, "value": store.exact_name(graph, 0),
                           "folded": graph.folded}
    if vs is None:
        for side, player in (("as_first", 0), ("as_second", 1)):
            out[side] = exact.guarantee(graph, player, mine).as_dict()
        return out
    theirs = agents.support(db, graph, vs)
    out["vs"] = vs
    first, second = graph.players
    p1 = exact.outcome_probabilities(graph, mine, theirs)
    p2 = exact.outcome_probabilities(graph, theirs, mine)
    out["as_first"] = {"win": p1[first], "draw": p1["draw"], "loss": p1[second]}
    out["as_second"] = {"win": p2[second], "draw": p2["draw"], "loss": p2[first]}
    return out


def judging_graph(db: sqlite_utils.Database, game: str, names: list[str], limit: int | None,
                  progress: CompileProgressFn | None) -> StateGraph:
    """The graph exact judgement runs on.  When every agent named chooses alike in symmetric
    positions, a member of a class stands for all of it and the results are the same on the
    solved graph of symmetry classes, which is smaller and needs no class key asked of Prolog (a
    folded Q-table on every position does).  Otherwise the graph of every position (compiled and
    stored if new); TooLarge when that is past the limit, saying which agents kept the classes out."""
    stated = compile_mod.known_lower_bound(game)
    classes_fit = graphs.has_symmetry(game) and not (
        stated is not None and stated // compile_mod.symmetry_count(game) > limits.max_positions(limit))
    odd = [n for n in names if not agents.treats_symmetric_alike(db, game, n)]
    what = "judging exactly needs every position"
    if classes_fit and odd:
        what = (f"judging {', '.join(odd)} exactly needs every position (only agents that choose alike in "
                "symmetric positions — random, minimax, Q-learning with --fold, n-tuple — are judged on its "
                "symmetry classes)")
    if classes_fit and not odd:
        return graphs.solved_graph(db, game, limit=limit, progress=progress)[0]
    return ensure_graph(db, game, what, limit=limit, progress=progress)


def rule_set_problems(db: sqlite_utils.Database, is_game: Callable[[str], bool]) -> list[Any]:
    """Rule-set populations whose rules do not fit their game's board (a pattern of the wrong
    size, an action the game has not): what training or play would refuse, found without either."""
    from educable.bridge import ga
    from educable.kb.db import KBError
    from educable.kb.doctor import Problem

    out = []
    for row in db.query("SELECT name, game FROM agents WHERE learner = 'ga' ORDER BY name"):
        if not is_game(row["game"]):
            continue                              # reported already as an agent of an unknown game
        try:
            ga.population_from_kb(db, row["name"], ga.rule_space(row["game"], db, keep=False), 0)
        except compile_mod.TooLarge:
            continue
        except (BadInput, KBError) as exc:
            what = str(exc).split(": ", 1)[-1].split("; fix or delete")[0]
            out.append(Problem(f"table rules, agent {row['name']!r}", what,
                               f"fix the rule, or delete the agent (DELETE FROM agents WHERE name = {store.sql_text(row['name'])})"))  # noqa: S608  (a statement suggested in a message, never run; names quoted (sql_text))
    return out


def doctor(path: Path, repair: bool = False) -> tuple[list[Any], int, list[str]]:
    """Examine the knowledge base file at ``path`` (kb/doctor.py): its problems, how many were
    repaired (``repair``: what can be recomputed is deleted) and the games solved again after."""
    from educable.kb import doctor as doctor_mod
    from educable.kb.db import open_kb, open_kb_read_only

    if not path.is_file():
        raise BadInput(f"{path}: no such knowledge base file")

    def is_game(name: str) -> bool:
        try:
            games.check_game(name)
            return True
        except BadInput:
            return False

    problems = doctor_mod.examine(path, agents.known_learners(), is_game)
    if not problems:
        problems = rule_set_problems(open_kb_read_only(path), is_game)
    repaired = doctor_mod.repair(path, problems) if repair else 0
    rebuilt = []
    if repaired:                                  # solve again what --repair deleted
        db = open_kb(path)
        for game in sorted({p.game for p in problems if p.game}):
            try:
                solve(db, game)
                rebuilt.append(game)
            except BadInput:
                pass                              # a game no longer known, or too large: rebuilt on demand
    return problems, repaired, rebuilt


def list_runs(db: sqlite_utils.Database, agent: str | None = None) -> list[dict[str, Any]]:
    """Training runs, newest first: finished ones (the runs table) and ones still going or stopped
    without a record, known by the curve points they committed (``id`` None, ``running`` True)."""
    where, args = (" WHERE agent = ?", [agent]) if agent else ("", [])
    rows = [{"id": r["id"], "agent": r["agent"], "learner": r["learner"], "games": r["games"],
             "seconds": r["seconds"], "started": r["started"], "running": False}
            for r in db.query(f"SELECT id, agent, learner, games, seconds, started FROM runs{where}", args)]  # noqa: S608  (names in this SQL are fixed in this code; values are bound as ?)
    finished = {(r["agent"], r["started"]) for r in rows}
    for r in db.query(f"SELECT p.agent, p.started, MAX(p.games) AS games, a.learner FROM curve_points p "  # noqa: S608  (names in this SQL are fixed in this code; values are bound as ?)
                      f"JOIN agents a ON a.name = p.agent{where.replace('agent', 'p.agent')} "
                      "GROUP BY p.agent, p.started", args):
        if (r["agent"], r["started"]) not in finished:
            rows.append({"id": None, "agent": r["agent"], "learner": r["learner"], "games": r["games"],
                         "seconds": None, "started": r["started"], "running": True})
    return sorted(rows, key=lambda r: (r["started"], r["id"] or 0), reverse=True)


def run_detail(db: sqlite_utils.Database, run_id: int | None = None, agent: str | None = None,
               started: str | None = None) -> dict[str, Any]:
    """One run (by ``run_id``, or by ``agent`` and ``started`` while it goes on): its record, the
    curve it committed as it went (games, lost, draws, cumulative) and, once finished, its losses
    per window and exact checkpoints.  BadInput when there is no such run."""
    if run_id is not None:
        row = next(iter(db.query("SELECT * FROM runs WHERE id = ?", [run_id])), None)
        if row is None:
            raise BadInput(f"no run {run_id} in this knowledge base (educable runs lists them)")
        results = store.json_object(row["results"])
        params = store.json_object(row["params"])
        if results is None or params is None:
            raise store.bad_row("runs", f"run {run_id}", "params and results must be JSON objects")
        out = {"id": row["id"], "agent": row["agent"], "learner": row["learner"], "games": row["games"],
               "seconds": row["seconds"], "started": row["started"], "running": False, "params": params,
               "results": results}
        agent, started = row["agent"], row["started"]
    else:
        if not agent or not started:
            raise BadInput("name a run by its id, or by its agent and when it started")
        out = {"id": None, "agent": agent, "started": started, "running": True}
    out["points"] = store.curve(db, agent, started)
    if run_id is None and not out["points"]:
        raise BadInput(f"no run of agent '{agent}' started at {started}")
    return out


def run_going(db: sqlite_utils.Database, agent: str | None = None) -> dict[str, Any]:
    """The newest run still going (or stopped without a record), of ``agent`` if given: as
    ``run_detail`` gives it, with its learner and the games committed so far.  BadInput when none is."""
    going = [r for r in list_runs(db, agent) if r["running"]]
    if not going:
        raise BadInput(f"no run{f' of {agent}' if agent else ''} is going on (educable runs lists the runs)")
    newest = going[0]
    return {**run_detail(db, agent=newest["agent"], started=newest["started"]),
            "learner": newest["learner"], "games": newest["games"]}


def learner_options() -> list[dict[str, Any]]:
    """Every trainable learner with its options as it declares them (the one declaration the command
    line, the sweeps, the manual and the page's training form are all built from)."""
    out = []
    for name, what in registry.TRAINABLE.items():
        opts = []
        for o in registry.learner_module(name).OPTIONS:
            opts.append({"name": o.name, "flag": o.flag_name, "off_flag": o.off_flag if o.type is bool and o.off != "" else None,
                         "type": o.type.__name__, "default": o.default, "default_words": o.default_words(),
                         "help": o.help, "choices": list(o.choices) if o.choices else None, "low": o.low, "high": o.high,
                         "range": o.range_text(), "place": o.place})
        out.append({"learner": name, "what": what, "plays_games": registry.plays_games(name), "options": opts})
    return out


def train_arguments(game: str, learner: str, agent: str, n_games: int, seed: int, options: dict[str, Any]) -> list[str]:
    """The `educable train` command line for a training asked by the page, built from checked values
    only: the learner known, the agent's name a new agent's name, every option declared by the
    learner and none that names a file or an address (``place``: the server's own settings hold),
    each written ``--flag=value`` and the game after ``--``, so that no value can be read as an option."""
    if learner not in registry.TRAINABLE:
        raise BadInput(f"unknown learner '{learner}' (known: {', '.join(registry.TRAINABLE)})")
    declared = {o["name"]: o for o in next(x["options"] for x in learner_options() if x["learner"] == learner)}
    games.check_game(game)
    agents.check_name(agent)
    args = ["train", f"--learner={learner}", f"--agent={agent}", f"--seed={seed}"]
    args += [f"--games={n_games}"] if registry.plays_games(learner) else [f"--cycles={n_games}"]
    for name, value in options.items():
        if name == "cycles" and not registry.plays_games(learner):
            continue                                # the count above is the cycles
        o = declared.get(name)
        if o is None:
            raise BadInput(f"{learner} has no option '{name}'")
        if isinstance(value, str) and outside.named(value):
            raise BadInput(f"option '{name}': a player from Python is never named by a request")
        if o["place"]:
            raise BadInput(f"option '{name}' names a file or an address on the server: it is set where the server "
                           "runs, never by a request")
        if o["type"] == "bool":
            if not isinstance(value, bool):
                raise BadInput(f"option '{name}' is on or off (true or false)")
            if value:
                args.append(f"--{o['flag']}")
            elif o["off_flag"]:
                args.append(f"--{o['off_flag']}")
        elif value is not None and value != "":
            if not isinstance(value, (str, int, float)) or isinstance(value, bool):
                raise BadInput(f"option '{name}' takes a {o['type']}")
            args.append(f"--{o['flag']}={value}")
    return [*args, "--", game]


def tournament_arguments(db: sqlite_utils.Database, game: str, players: list[str], n_games: int, seed: int) -> list[str]:
    """The `educable tournament` command line for one asked by the page: the game known and every
    player a built-in player or an agent of the knowledge base that can play it (checked here, so a
    name is never an option), the names after ``--``."""
    games.check_game(game)
    for name in players:
        if name.startswith("-"):
            raise BadInput(f"player {name[:80]!r}: a player's name never starts with '-'")
        if outside.named(name):
            raise BadInput(f"player {name[:80]!r}: a player from Python plays on the page's boards, not in its tournaments")
        agents.check_agent(db, game, name)
    return ["tournament", f"--games={n_games}", f"--seed={seed}", "--", game, *players]

