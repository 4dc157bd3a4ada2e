"""Genetic rule sets (Gaia's "Ejemplos de Vida") from the bridge: populations in the knowledge base, runs, rule files.

Evolution runs in learners/ga.py on the compiled state graph; an agent's
rules go into Prolog (rules/ruleset.pl), which chooses its moves in play,
eval and query.  A population is one agent row; its members are addressed
as NAME#k (k = 1 is the best, and plain NAME means NAME#1).  A rule file
imported by hand makes an agent of learner ``rules`` with one member.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from educable.bridge import files, games, graphs
from educable.bridge.agents import split_member
from educable.bridge.engine import ROWS_PER_CALL, BadInput, engine, quote
from educable.bridge.options import checked, existing_agent
from educable.kb import store
from educable.learners import exact, ga
from educable.learners.ga import GAOptions, Population
from educable.learners.options import declared, run_option, stored_names
from educable.learners.rulespace import RuleSpace
from educable.learners.training import Commits, Stopped

if TYPE_CHECKING:
    import sqlite_utils  # in annotations only: kb.db imports it when a database is opened

NAME = "ga"
IMPORTED = "rules"
OPTIONS = declared(GAOptions, NAME) + (
    run_option("cycles", int, 500, "Cycles to run (play, rank, breed).", NAME, low=0, high=1_000_000),
    run_option("judge_every", int, None, "Judge the best agent exactly every N cycles (default: cycles/20).", NAME,
               low=1))
FIXED = ("agents", "rules", "priorities")      # the shape of a population, fixed when it is made


_SPACES: dict[int, RuleSpace] = {}


def rule_space(game: str, db: sqlite_utils.Database | None = None, keep: bool = True) -> RuleSpace:
    """What rules can say in ``game``, over its state graph (from ``db`` when given; built once per
    process; ``keep=False``: not stored in ``db`` if it is not there yet)."""
    if not games.moves(games.initial(game)):      # asked before the graph is compiled and stored: a refusal writes nothing
        raise BadInput(f"{game} is over at its start: there is no move for a rule to choose")
    graph = graphs.state_graph(db, game, what="rule sets need every position", keep=keep)
    space = _SPACES.get(id(graph))
    if space is None or space.graph is not graph:
        try:
            space = RuleSpace(graph, games.board_cells(graph), games.lines(game), games.layout(game))
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        _SPACES[id(graph)] = space
    return space


def options_from(params: dict[str, Any]) -> GAOptions:
    """Stored or typed parameters as checked options; BadInput names a bad one."""
    return checked(GAOptions, params, NAME)


# -- between arrays and rows ------------------------------------------------------
def drawn(pattern: str, layout: tuple[int, str] | None) -> str:
    """A stored condition (rows from cell 1) as `show` draws the board: its rows reversed when the
    game draws cell 1's row at the bottom."""
    if layout is None or layout[1] != "bottom":
        return pattern
    turn, colon, board = pattern.rpartition(":")
    return turn + colon + "/".join(reversed(board.split("/")))


def member_rows(space: RuleSpace, pop: Population, k: int) -> list[tuple[str, str, int, float]]:
    """Agent ``k``'s rules as (pattern, action, priority, weight) texts."""
    return [(space.condition_text(pop.cond[k, r]), space.actions[int(pop.action[k, r])],
             int(pop.priority[k, r]), float(pop.rule_weight[k, r])) for r in range(pop.cond.shape[1])]


def population_from_kb(db: sqlite_utils.Database, name: str, space: RuleSpace, cycles: int) -> Population:
    """A stored population as arrays, best first."""
    members = store.load_members(db, name)
    rules = store.load_rules(db, name)
    if not members or len(rules) % len(members):
        raise store.bad_row("members", f"agent {name!r}", f"{len(members)} members hold {len(rules)} rules; "
                            "a population needs members with the same number of rules each")
    n_rules = len(rules) // len(members)
    try:
        cond = np.array([space.parse_condition(p) for _, p, _, _, _ in rules], dtype=np.int8)
        action = np.array([space.action_index[a] for _, _, a, _, _ in rules], dtype=np.int16)
    except (ValueError, KeyError) as exc:
        raise store.bad_row("rules", f"agent {name!r}", f"a rule does not fit the game: {exc}") from None
    shape = (len(members), n_rules)
    return Population(cond.reshape(*shape, -1), action.reshape(shape),
                      np.array([r[3] for r in rules], dtype=np.int8).reshape(shape),
                      np.array([r[4] for r in rules], dtype=np.float64).reshape(shape),
                      np.array([m["weight"] for m in members], dtype=np.float64),
                      np.array([m["born"] for m in members], dtype=np.int64), cycles)


def save_population(db: sqlite_utils.Database, name: str, game: str, learner: str, params: dict[str, Any],
                    space: RuleSpace, pop: Population, games_added: int, run: dict[str, Any] | None) -> None:
    members = [(float(pop.weight[k]), int(pop.born[k]), member_rows(space, pop, k)) for k in range(pop.size)]
    store.save_rule_sets(db, name, game, learner, params, members, games_added, run)


# -- agents in Prolog --------------------------------------------------------------
def check_member(db: sqlite_utils.Database, row: dict, member: int | None) -> tuple[int, list[dict[str, Any]]]:
    """The rank ``member`` names (default 1, the best) and the agent's members; BadInput if there is no such one."""
    k = member or 1
    members = store.load_members(db, row["name"])
    if k > len(members):
        raise BadInput(f"agent '{row['name']}' has {len(members)} member(s); there is no #{k}")
    return k, members


def rule_set_agent(db: sqlite_utils.Database, name: str) -> tuple[dict, int | None]:
    """The row of rule-set agent NAME[#k] and k (None for plain NAME); BadInput if unknown or not a rule set."""
    base, k = split_member(name)
    row = store.get_agent(db, base)
    if row is None:
        raise BadInput(f"unknown agent '{base}'")
    if row["learner"] not in (NAME, IMPORTED):
        raise BadInput(f"agent '{base}' is a {row['learner']} agent, not a rule set (learner ga or rules)")
    return row, k


def load_member(db: sqlite_utils.Database, row: dict, member: int | None) -> str:
    """Put member ``member`` (default the best) of a rule-set agent into Prolog; its Prolog agent name."""
    k, _ = check_member(db, row, member)
    atom = f"{row['name']}#{k}"
    data = ", ".join(f"[{quote(p)}, {quote(a)}, {int(pr)}, {float(w)!r}]"
                     for _, p, a, pr, w in store.load_rules(db, row["name"], k))
    try:
        engine().call(f"ruleset:rules_load({quote(atom)}, {quote(row['game'])}, [{data}]), Out = true")
    except LookupError:
        raise store.bad_row("rules", f"agent {row['name']!r} member {k}",
                            f"a rule's condition does not fit a {row['game']} board") from None
    return atom


def learn_game(db: sqlite_utils.Database, row: dict, game: str, keys: list[str], result: str, side: str) -> None:
    """Rule sets learn only in `train` (in cycles of the population); a game against a person changes nothing."""


# -- training ------------------------------------------------------------------------
def start(db: sqlite_utils.Database, name: str, game: str, options: dict[str, Any]) -> tuple[GAOptions, dict | None]:
    """The run's options: a new population's from ``options``; an existing one's stored options
    updated by ``options``, except its shape (agents, rules, priorities)."""
    row = existing_agent(db, name, game, NAME)
    if row is None:
        return options_from(options), None
    stored = {k: v for k, v in row["params"].items() if k in stored_names(OPTIONS)}
    changed = [k for k in FIXED if k in options and options[k] != stored[k]]
    if changed:
        raise BadInput(f"population '{name}' has {', '.join(f'{k}={stored[k]}' for k in changed)}; "
                       "its shape is fixed when it is made (train a new agent to change it)")
    return options_from({**stored, **options}), row


def judge(space: RuleSpace, pop: Population, k: int = 0) -> dict[str, Any]:
    """Member ``k`` exactly: what it guarantees on each side, and its exact results against random."""
    graph = space.graph
    sup, rnd = ga.agent_support(space, pop, k), exact.all_moves(graph)
    first, second = graph.players
    px = exact.outcome_probabilities(graph, sup, rnd)
    po = exact.outcome_probabilities(graph, rnd, sup)
    out: dict[str, Any] = {}
    for label, p, probs, me, them in (("as_first", 0, px, first, second), ("as_second", 1, po, second, first)):
        g = exact.guarantee(graph, p, sup)
        out[label] = {"guaranteed": g.guaranteed, "perfect": g.perfect,
                      "vs_random": {"win": round(probs[me], 6), "draw": round(probs["draw"], 6),
                                    "loss": round(probs[them], 6)}}
    return out


def train(db: sqlite_utils.Database, game: str, name: str, cycles: int, seed: int, options: dict[str, Any],
          progress: Callable[[int], None] | None = None, judge_every: int | None = None,
          commits: Commits | None = None) -> dict[str, Any]:
    """Evolve population ``name`` for ``cycles`` cycles (made on first use) and store it.

    Every ``judge_every`` cycles (default: a twentieth of the run) the best
    member is judged exactly (``judge``): the learning curve.  The population
    is committed every few seconds (``commits``); stopped (Ctrl-C, SIGTERM),
    the run raises training.Stopped with the cycles kept.
    """
    commits = commits or Commits()
    try:
        return _train(db, game, name, cycles, seed, options, progress, judge_every, commits)
    except KeyboardInterrupt as stop:
        raise Stopped(commits.kept, "cycles") from stop


def _train(db: sqlite_utils.Database, game: str, name: str, cycles: int, seed: int, options: dict[str, Any],
           progress: Callable[[int], None] | None, judge_every: int | None, commits: Commits) -> dict[str, Any]:
    if cycles < 1:
        raise BadInput("--cycles must be at least 1")
    opts, row = start(db, name, game, options)
    space = rule_space(game, db)
    if opts.nudge > 0 and not space.lines:
        raise BadInput(f"--nudge needs lines (line/2), and {game} defines none")
    if opts.nudge > 0 and any(str(c) not in space.action_index for line in space.lines for c in line):
        raise BadInput(f"--nudge needs a game whose moves are its cell numbers; {game}'s are not")
    if opts.fitness in ("exact", "minimax"):
        try:
            ga.exact_judge(space)
        except ValueError as exc:
            raise BadInput(f"--fitness {opts.fitness}: {exc}") from None
    rng = np.random.default_rng(seed)
    done_before = int(row["params"].get("cycles", 0)) if row else 0
    t0 = time.perf_counter()
    pop = (population_from_kb(db, name, space, done_before) if row
           else Population.random(space, opts, rng))
    if pop.size != opts.agents or pop.cond.shape[1] != opts.rules:
        raise BadInput(f"population '{name}' in the knowledge base does not have {opts.agents} x {opts.rules} rules")
    every = judge_every or max(1, cycles // 20)
    curve: list[dict[str, Any]] = []
    judged = [0.0]

    games_done = [0, 0]         # games played, games committed

    def after(done: int, stats: ga.CycleStats) -> None:
        games_done[0] += stats.games
        if commits.due() and done < cycles:
            def save(_new: int) -> None:
                save_population(db, name, game, NAME, {**opts.as_dict(), "cycles": done_before + done}, space, pop,
                                games_done[0] - games_done[1], None)
                games_done[1] = games_done[0]
            commits.commit(done, save)
        if done % every == 0 or done == cycles:
            t = time.perf_counter()
            curve.append({"cycle": done_before + done, "seconds": round(t - t0 - judged[0], 4), **judge(space, pop)})
            judged[0] += time.perf_counter() - t
        if progress:
            progress(1)

    stats = ga.evolve(space, pop, opts, cycles, rng, after)
    seconds = time.perf_counter() - t0 - judged[0]
    per_cycle = {"draws": [s.draws for s in stats], "rule_moves": [s.rule_moves for s in stats],
                 "random_moves": [s.random_moves for s in stats], "best_weight": [s.best_weight for s in stats]}
    n_games = sum(s.games for s in stats)
    params = {**opts.as_dict(), "cycles": done_before + cycles}
    report = {"cycles": cycles, "seed": seed, "per_cycle": per_cycle, "curve": curve}
    save_population(db, name, game, NAME, params, space, pop, n_games - games_done[1],
                    {"games": n_games, "seconds": seconds, "results": report})
    last = stats[-1]
    return {"agent": name, "game": game, "learner": NAME, "cycles": cycles, "total_cycles": done_before + cycles,
            "games": n_games, "seconds": round(seconds, 4), "judge_seconds": round(judged[0], 4),
            "cycles_per_second": round(cycles / seconds, 1) if seconds else None, "seed": seed,
            "options": opts.as_dict(), "last_cycle": {"draws": last.draws, "rule_moves": last.rule_moves,
                                                      "random_moves": last.random_moves,
                                                      "best_weight": last.best_weight},
            "per_cycle": per_cycle, "curve": curve, "best": curve[-1]}


# -- rule files ----------------------------------------------------------------------
HEADER = """\
% educable rule set for {game}{origin}.
%
% Each rule reads: if I see Condition, I play Action.
%   rule(Condition, Action, Priority, Weight).
% Condition  the board as the player to move sees it, one symbol a cell,
%            {layout}:
{symbols}
%            A leading 'PLAYER:' ({players}) makes the rule apply only
%            when it is that player's turn.
% Action     the move to play, as {game} writes moves (e.g. {example}); it
%            must be legal in every position the condition matches.
% Priority   an integer from 0; Weight a number (points the rule has won).
%
% Choosing a move (Gaia's "Ejemplos de Vida"): B = the rules whose condition matches; none:
% a random legal move.  Otherwise the rules of B with the highest priority,
% of those the ones with the highest weight, and a random one of those.
% Edit freely, then:  educable rules import FILE.pl --agent NEW_NAME
"""

STANDARD_SYMBOLS = """\
%              m  my piece       t  their piece
%              .  empty          *  anything"""


def export_rules(db: sqlite_utils.Database, name: str, path: str) -> dict[str, Any]:
    """Write agent NAME[#k]'s rules to ``path`` as a rule file, conditions drawn as `show` draws
    the board; what was written."""
    row, member = rule_set_agent(db, name)
    base = row["name"]
    k, members = check_member(db, row, member)
    rules = store.load_rules(db, base, k)
    space = rule_space(row["game"], db)
    width, upward = space.rows()
    if width == space.n_cells:
        layout = f"cells 1..{space.n_cells} in order"
    else:
        layout = (f"rows of {width} as `educable show` draws them, '/' between rows"
                  + (" (cell 1's row last)" if upward else ""))
    symbols = (STANDARD_SYMBOLS if space.symbols == ".mt" else
               f"%              0-{space.n_values - 1}  the cell's value     *  anything")
    origin = f", agent {base}#{k} ({row['learner']}, weight {members[k - 1]['weight']:g})"
    lines = [HEADER.format(game=row["game"], origin=origin, layout=layout, symbols=symbols,
                           players=", ".join(space.graph.players), example=repr(space.actions[0])),
             f"rule_set({quote(row['game'])}).", "rule_layout(drawn).", ""]
    layout_of = games.layout(row["game"])
    lines += [f"rule({quote(drawn(p, layout_of))}, {quote(a)}, {pr}, {w:g})." for _, p, a, pr, w in rules]
    files.write_text_whole(path, "\n".join(lines) + "\n")
    return {"agent": f"{base}#{k}", "game": row["game"], "rules": len(rules), "file": path}


MAX_PRIORITY = 100            # as train's --priorities
MAX_WEIGHT = 1e12             # weights add up over games and are stored as SQLite reals
MAX_NESTING = 64              # a rule is four flat arguments; far deeper nesting only crashes readers


def too_deep(path: Path) -> None:
    """BadInput naming the line where the file's brackets nest deeper than MAX_NESTING (outside
    quotes and comments); such a term would never be a rule, and reading it can crash Prolog."""
    depth, quote_char, line = 0, "", 1
    text = files.read_text(path, "rule file")
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\n":
            line += 1
        if quote_char:
            if c == "\\":
                i += 1
            elif c == quote_char:
                quote_char = ""
        elif c in "'\"`":
            quote_char = c
        elif c == "%":
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        elif c in "([{":
            depth += 1
            if depth > MAX_NESTING:
                raise BadInput(f"{path}:{line}: a term nested more than {MAX_NESTING} deep; a rule is "
                               "rule(Condition, Action, Priority, Weight)")
        elif c in ")]}":
            depth = max(0, depth - 1)
        i += 1


def read_rule_file(path: str, game: str | None = None, db: sqlite_utils.Database | None = None,
                   progress: Callable[[int], None] | None = None) -> tuple[str, list[tuple[str, str, int, float]]]:
    """Read and check a rule file: (game, rules).  BadInput names the file and line of the first problem.
    Prolog reads it a page of rules at a time; ``progress(n)`` as each n rules are checked."""
    p = Path(path)
    if not p.exists():
        raise BadInput(f"no rule file {path}")
    too_deep(p)                           # reads it through bridge.files: a regular file of bounded size
    raw: list = []
    engine().call(f"ruleset:rule_file_open({quote(str(p))}), Out = true")
    try:
        done = False
        while not done:
            page, done = engine().call(f"ruleset:rule_file_page({ROWS_PER_CALL}, R, D), Out = [R, D]")
            raw += page
            if len(raw) > ga.MAX_AGENT_RULES:
                raise BadInput(f"{path}: more than {ga.MAX_AGENT_RULES:,} rules, what educable holds of one "
                               "agent's conditions")
    finally:
        engine().call("ruleset:rule_file_close, Out = true")
    file_game, layout = engine().call("ruleset:rule_file_header(G, L), Out = [G, L]")
    if game is not None and file_game != game:
        raise BadInput(f"{path}: the rules are for {file_game}, not {game}")
    games.check_game(file_game)
    if not raw:
        raise BadInput(f"{path}: no rule(Condition, Action, Priority, Weight) facts")
    space = rule_space(file_game, db, keep=False)     # a refused file must leave the knowledge base as it was
    rules = []
    for line, cond_text, action, priority, weight in raw:
        where = f"{path}:{line}"
        try:
            cond = space.parse_condition(cond_text, drawn=layout == "drawn")
        except ValueError as exc:
            raise BadInput(f"{where}: {exc}") from None
        if action not in space.action_index:
            raise BadInput(f"{where}: {action!r} is not a {file_game} move")
        if not isinstance(priority, int) or isinstance(priority, bool) or not 0 <= priority <= MAX_PRIORITY:
            raise BadInput(f"{where}: priority must be an integer from 0 to {MAX_PRIORITY}, not {priority!r}")
        if not isinstance(weight, (int, float)) or isinstance(weight, bool) or not abs(weight) <= MAX_WEIGHT:
            raise BadInput(f"{where}: weight must be a number within ±{MAX_WEIGHT:,.0f}, not {weight!r}")
        bad = space.counterexample(cond, space.action_index[action])
        if bad is not None:
            raise BadInput(f"{where}: action {action!r} is not legal in every position {cond_text!r} matches "
                           f"(not in {bad!r})")
        rules.append((space.condition_text(cond), action, priority, float(weight)))
        if progress and len(rules) % 10_000 == 0:
            progress(10_000)
    if progress:
        progress(len(rules) % 10_000)
    return file_game, rules


def import_rules(db: sqlite_utils.Database, path: str, name: str, game: str | None = None,
                 replace: bool = False, progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Make agent NAME (learner ``rules``, one member) from a rule file; it plays at once."""
    file_game, rules = read_rule_file(path, game, db, progress)
    row = store.get_agent(db, name)
    if row is not None and not (replace and row["learner"] == IMPORTED):
        raise BadInput(f"agent '{name}' exists" + ("" if row["learner"] == IMPORTED
                                                     else f" ({row['learner']})") + "; choose another name"
                       + (" or --replace" if row["learner"] == IMPORTED else ""))
    params = {"file": Path(path).name, "rules": len(rules)}
    store.save_rule_sets(db, name, file_game, IMPORTED, params, [(0.0, 0, rules)], 0)
    return {"agent": name, "game": file_game, "rules": len(rules), "file": path}


def members_with_rules(db: sqlite_utils.Database, row: dict) -> list[dict[str, Any]]:
    """Every member of a rule-set agent, best first, with its rules (``agents NAME --rules``)."""
    by_member: dict[int, list[dict[str, Any]]] = {}
    layout = games.layout(row["game"])
    for k, p, a, pr, w in store.load_rules(db, row["name"]):
        by_member.setdefault(k, []).append({"pattern": drawn(p, layout), "action": a, "priority": pr, "weight": w})
    return [{"member": f"{row['name']}#{m['rank']}", **m, "rules": by_member.get(m["rank"], [])}
            for m in store.load_members(db, row["name"])]
