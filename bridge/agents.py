"""Agents by name: the built-in choosers and learned agents from the knowledge base.

A learned agent is put into Prolog by its learner's module (LEARNERS) and
then plays as the chooser ``agent(Name)``.  Rule-set agents (bridge/ga.py,
learners ``ga`` and ``rules``) are populations: ``NAME#k`` is member k
(1 the best) and plain ``NAME`` its best member.  A learner module provides
``NAME``, ``OPTIONS`` (its option names), ``load(db, row)``, ``save(...)``, ``run(...)`` (see
commands.train) and ``learn_game(db, row, game, keys, result, side)``.
"""
from __future__ import annotations

import re
from types import ModuleType
from typing import TYPE_CHECKING

from educable.bridge import field, games, graphs, limits, outside, perfect
from educable.bridge.compile import TooLarge, known_lower_bound
from educable.bridge.engine import BadInput, engine, quote
from educable.bridge.registry import LEARNERS, RULE_SETS, learner_module
from educable.bridge.textinput import is_whole_number, whole_number
from educable.kb import store
from educable.kb.db import file_of
from educable.learners import exact
from educable.learners.graph import StateGraph

if TYPE_CHECKING:
    import sqlite_utils  # in annotations only: kb.db imports it when a database is opened

RESERVED = set(store.BUILTIN_AGENTS) | {"self", "adversary", "human", *perfect.PLAYERS}
NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}$")


def check_name(name: str) -> str:
    """A new agent's name: a letter, then letters, digits, '_', '.', '-'; not a reserved word."""
    if not NAME_PATTERN.match(name) or name in RESERVED:
        raise BadInput(f"bad agent name {name!r}: use a letter then letters, digits, _ . - "
                       f"(not {', '.join(sorted(RESERVED))})")
    return name


def known_learners() -> set[str]:
    """Every learner name an agent row may carry."""
    return set(LEARNERS) | set(RULE_SETS)


def learner_of(row: dict) -> ModuleType:
    if row["learner"] not in known_learners():
        raise BadInput(f"agent '{row['name']}' was made by learner '{row['learner']}', which this educable does not know")
    return learner_module(row["learner"])


def split_member(name: str) -> tuple[str, int | None]:
    """'pop#3' -> ('pop', 3); 'pop' -> ('pop', None): member k (1 the best) of a rule-set population."""
    if "#" not in name:
        return name, None
    base, _, k = name.partition("#")
    if not is_whole_number(k) or len(k) > 9 or int(k) < 1:
        raise BadInput(f"bad member {name!r}: use NAME#k with k = 1 for the best")
    return base, int(k)


SEARCHERS = {"alphabeta": (1, 12, "plies"), "mcts": (1, 1_000_000, "playouts"), "expectimax": (1, 8, "moves")}
MINIMAX_LIMIT = 1_000_000     # positions the tabled minimax in Prolog may meet (about 1 GB of tables)


def search_chooser(name: str) -> str | None:
    """The Prolog term of a built-in search opponent written ``alphabeta:DEPTH``, ``mcts:PLAYOUTS``,
    ``alphabeta:DEPTH+AGENT`` (the horizon valued by AGENT) or ``mcts:ITERATIONS+AGENT`` (AlphaZero-style
    PUCT around AGENT, as GBG's MCTS wrapper: rules/search.pl); None when ``name`` is not of that form;
    BadInput when its number is bad."""
    kind, sep, number = name.partition(":")
    if not sep or kind not in SEARCHERS:
        return None
    number, plus, guide = number.partition("+")
    lo, hi, unit = SEARCHERS[kind]
    whole_number(number, f"{kind}:N", lo, hi, unit)
    if plus:
        if not guide:
            raise BadInput(f"{kind}:{number}+AGENT: name the agent after the + (e.g. {kind}:{number}+c4)")
        if kind == "mcts":                  # AlphaZero-style, as GBG's MCTS wrapper (rules/search.pl, puct/2)
            return f"puct({int(number)}, agent({quote(guide)}))"
        return f"{kind}({int(number)}, agent({quote(guide)}))"
    if kind == "expectimax":                # the horizon valued 0 without an agent
        return f"expectimax({int(number)}, none)"
    return f"{kind}({int(number)})"


def search_guide(name: str) -> str | None:
    """AGENT of ``alphabeta:DEPTH+AGENT`` or ``mcts:PLAYOUTS+AGENT``, else None."""
    if search_chooser(name) is None:
        return None
    return name.partition("+")[2] or None


LEAF_LEARNERS = ("ntuple",)      # learners whose agents value positions (play:leaf_value/5)


MINIMAX_PROBE = 50_000       # positions enumerated (a few seconds) to size an unsolved game for minimax


def check_minimax(db: sqlite_utils.Database, game: str) -> None:
    """Minimax plays by tabled search over the whole game: refuse a game past MINIMAX_LIMIT positions,
    at once when its size is known (solved, or stated by its file); an unsolved game of unknown size
    is sized by enumerating at most MINIMAX_PROBE positions (and solved and stored when it fits)."""
    summary = store.game_summary(db, game) if db is not None else None
    positions = summary["positions"] if summary is not None else known_lower_bound(game)
    if positions is None:
        try:
            positions = graphs.solved_graph(db, game, MINIMAX_PROBE)[0].positions
        except TooLarge:
            raise BadInput(f"minimax searches the whole of {game}, which has more than {MINIMAX_PROBE:,} positions "
                           f"and is not solved: run educable solve '{game}' first, or use alphabeta:DEPTH or "
                           "mcts:PLAYOUTS") from None
    if positions > MINIMAX_LIMIT:
        raise BadInput(f"minimax searches the whole of {game} ({positions:,} positions, more than the "
                       f"{MINIMAX_LIMIT:,} it can table); use alphabeta:DEPTH or mcts:PLAYOUTS")


def chooser(db: sqlite_utils.Database, game: str, name: str) -> str:
    """The Prolog chooser term for agent ``name`` playing ``game``: a built-in (random, minimax,
    alphabeta:DEPTH, mcts:PLAYOUTS[+AGENT]) or a learned agent, loaded into Prolog; BadInput if
    unknown or of another game."""
    row = check_agent(db, game, name)
    if outside.named(name):
        raise BadInput(f"{name} is a player from Python: it plays in eval, tournament, play and judge (asked from Python), "
                       "not inside Prolog")
    if name in perfect.PLAYERS:
        raise BadInput("the perfect player plays in eval --vs, play --opponent and judge, not here "
                       "(it is not a Prolog chooser)")
    if row is None:
        if name == "minimax":
            check_minimax(db, game)
        guide = search_guide(name)
        if guide is not None:
            guide_row = agent_row(db, game, guide)
            load(db, guide_row)
        return search_chooser(name) or name
    if row["learner"] in RULE_SETS:
        return f"agent({quote(learner_of(row).load_member(db, row, split_member(name)[1]))})"
    load(db, row)
    return f"agent({quote(name)})"


_LOADED: dict[str, tuple] | None = None     # agent -> the version of it Prolog holds, when kept (keep_loaded)


def keep_loaded() -> None:
    """From now on in this process, an agent put into Prolog stays there until its row changes
    (its games trained or its update time): for a long-lived process that asks the same agents
    again and again (educable serve), where loading a large n-tuple agent each request took a
    second.  A command loads every agent it uses afresh, so a row edited by hand is always read."""
    global _LOADED
    if _LOADED is None:
        _LOADED = {}


def load(db: sqlite_utils.Database, row: dict) -> None:
    """Put a stored agent into Prolog (its learner's load), unless keep_loaded holds it already."""
    version = (row["learner"], row["game"], row["games_trained"], row["updated"], row["created"])
    if _LOADED is not None and _LOADED.get(row["name"]) == version:
        return
    learner_of(row).load(db, row)
    if _LOADED is not None:
        _LOADED[row["name"]] = version


def check_agent(db: sqlite_utils.Database, game: str, name: str) -> dict | None:
    """BadInput unless ``name`` can play ``game``; the stored agent's row, or None for a built-in or
    a search opponent.  Checks only and loads nothing, so a command can refuse before any work."""
    if games.is_hidden(game):
        raise BadInput(games.hidden_refusal(game, "sampled eval and tournaments would show the players every card: "
                                                  "they do not play it yet; play and eval --exact do"))
    if name in store.BUILTIN_AGENTS:
        return None
    if outside.named(name):
        outside.policy(name)                    # loaded (or refused) now, before any game is played
        field.actions(game, limits.max_positions())    # its moves numbered (the commands' limit), as its actions are
        return None
    if search_chooser(name) is not None:
        guide = search_guide(name)
        if guide is not None and agent_row(db, game, guide)["learner"] not in LEAF_LEARNERS:
            raise BadInput(f"{name.partition(':')[0]}:N+AGENT needs an agent that values positions ({', '.join(LEAF_LEARNERS)}); "
                           f"'{guide}' is not one")
        return None
    if name in perfect.PLAYERS:
        perfect.check(game)
        return None
    base, member = split_member(name)
    row = agent_row(db, game, base)
    if row["learner"] in RULE_SETS:
        learner_of(row).check_member(db, row, member)
    elif member is not None:
        raise BadInput(f"agent '{base}' is a single {row['learner']} agent; NAME#k is for rule-set populations")
    return row


def agent_row(db: sqlite_utils.Database, game: str, name: str) -> dict:
    """The stored agent ``name`` of ``game``; BadInput if unknown or of another game."""
    row = store.get_agent(db, name)
    if row is None:
        learned = [a["name"] for a in store.list_agents(db, game)]
        known = ", ".join(list(store.BUILTIN_AGENTS) + ["alphabeta:DEPTH", "mcts:PLAYOUTS"]
                          + (list(perfect.PLAYERS) if game == perfect.GAME else []) + learned)
        raise BadInput(f"unknown agent '{name}' for {game} in {file_of(db)} (known: {known})")
    if row["game"] != game:
        raise BadInput(f"agent '{name}' plays {row['game']}, not {game}")
    return row


def support(db: sqlite_utils.Database, graph: StateGraph, name: str) -> exact.Support:
    """The moves agent ``name`` may choose in every state of ``graph``: computed on the graph for
    random, minimax and learners that can (Q-tables), else asked of Prolog in batches."""
    if name == "random":
        return exact.all_moves(graph)
    if name == "minimax":
        return exact.optimal_moves(graph)
    if outside.named(name):
        return outside.support(graph, name)
    base, member = split_member(name)
    if search_chooser(name) is None and member is None:
        row = agent_row(db, graph.game, base)
        module = learner_of(row)
        if hasattr(module, "support"):
            return module.support(db, row, graph)
    return exact.support_from_moves(graph, games.policy_table(graph, chooser(db, graph.game, name)))


# Learners whose agents, stored with "fold" on, value symmetric positions alike (a folded Q-table;
# n-tuple weights shared across the symmetries).
FOLDING_LEARNERS = ("qlearn", "ntuple")


def treats_symmetric_alike(db: sqlite_utils.Database, game: str, name: str) -> bool:
    """Whether agent ``name`` chooses alike in symmetric positions (so that it can be judged exactly
    on the graph of symmetry classes): random and minimax, Q-learning and n-tuple agents stored
    with folding on, and ``alphabeta:D`` and ``alphabeta:D+AGENT`` of such an agent."""
    if name in ("random", "minimax"):
        return True
    if outside.named(name):
        return False
    if search_chooser(name) is not None:
        # Alpha-beta keeps every move of the best depth-D value, and symmetric positions have the
        # same values when what values the horizon (nothing, or AGENT) treats them alike.  MCTS and
        # PUCT keep one move, chosen by chance or by the order of the moves.
        guide = search_guide(name)
        return name.startswith("alphabeta:") and (guide is None or treats_symmetric_alike(db, game, guide))
    base, member = split_member(name)
    if member is not None:
        return False
    row = store.get_agent(db, base)
    return (row is not None and row["game"] == game and row["learner"] in FOLDING_LEARNERS
            and bool(row["params"].get("fold")))


class Opponents:
    """How a learner's run reaches other agents without importing this module (no cycle)."""

    def __init__(self, db: sqlite_utils.Database, game: str) -> None:
        self.db, self.game = db, game

    def chooser(self, name: str) -> str:
        return chooser(self.db, self.game, name)

    def support(self, graph: StateGraph, name: str) -> exact.Support:
        return support(self.db, graph, name)

    def agent(self, name: str) -> dict | None:
        return store.get_agent(self.db, name)


def move_values(db: sqlite_utils.Database, row: dict, state: games.State) -> dict[str, float]:
    """A learned agent's value for each legal move of ``state``."""
    if row["learner"] == "ntuple" and games.is_score_game(state.game):
        from educable.bridge import ntuple
        return ntuple.score_move_values(db, row, state)
    load(db, row)
    pairs, _best = engine().call(
        f"play:move_values(agent({quote(row['name'])}), {quote(state.game)}, {quote(state.key)}, P, B), Out = [P, B]")
    return {m: v for m, v in pairs}
