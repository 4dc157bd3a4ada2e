"""Players from outside educable: a Python policy, judged, played and rated like educable's own.

A policy sees what an environment of ``educable.env`` gives a player (bridge/pettingzoo_env.py):
``{"observation": planes, "action_mask": legal}``, with the position's text beside them
(``"position"``: what an OpenSpiel bot needs to find its state), and answers an action number.  It is a function
of that observation, an object with ``act(observation)``, or an object with Stable-Baselines3's
``predict(observation, action_masks=...)``.  On a command line it is named ``FILE.py:NAME`` or
``module:NAME`` (loaded, which runs that file's code, only where the person typing the command
allows it: the command line does, a page served to a browser does not); from Python it is passed
as an object.  The knowledge base only ever records its name: nothing stored runs code.
"""
from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from educable.bridge import perfect
from educable.bridge.errors import BadInput
from educable.kb import store

if TYPE_CHECKING:        # the command line asks allow_loading of every command: this module stays light until used

    from educable.bridge import games
    from educable.learners import exact
    from educable.learners.graph import StateGraph

Policy = Callable[[dict[str, Any]], Any]
NAMED = re.compile(r"(?P<source>[^:]+\.py|[A-Za-z_][\w.]*):(?P<attribute>[A-Za-z_]\w*)")
SEARCH_KINDS = ("alphabeta", "mcts", "expectimax")

_policies: dict[str, Policy] = {}       # name -> policy, for this process
_loading_allowed = False                 # whether a FILE.py:NAME or module:NAME may be loaded by name


def allow_loading(allowed: bool = True) -> None:
    """Let names of the form FILE.py:NAME and module:NAME load the code they name (the command line
    and the Python library do; `serve` does not: its names come from requests)."""
    global _loading_allowed
    _loading_allowed = allowed


def named(name: str) -> bool:
    """Whether ``name`` names an outside player: registered in this process, or FILE.py:NAME /
    module:NAME (search players such as alphabeta:3 are not)."""
    if name in _policies:
        return True
    found = NAMED.fullmatch(name)
    return found is not None and found["source"] not in SEARCH_KINDS


def registered() -> list[str]:
    """The outside players of this process (what `serve --player` gave the page)."""
    return sorted(_policies)


BUILT_IN = (*store.BUILTIN_AGENTS, "human", "self", *perfect.PLAYERS)     # names every command reads as its own


def register(name: str, policy: Any) -> str:
    """Make ``policy`` (a function or an object, see the module) a player called ``name`` in this
    process; returns the name.  BadInput for a name that could be read as an option or is a built-in
    player's (``random``, ``alphabeta:3``...): every command would mean that player by it."""
    if not isinstance(name, str) or not name.strip() or name.startswith("-") or not name.isprintable():
        raise BadInput(f"player name {str(name)[:80]!r}: give a printable name that does not start with '-'")
    if name.lower() in BUILT_IN or name.split(":")[0].lower() in SEARCH_KINDS:
        raise BadInput(f"player name {name[:80]!r} is a built-in player's: choose another")
    _policies[name] = as_policy(policy, name)
    return name


def as_policy(thing: Any, name: str) -> Policy:
    """A policy function of an object: itself if callable, else its ``act``, else its Stable-Baselines3
    ``predict`` (given the action mask, deterministically)."""
    if hasattr(thing, "predict") and not hasattr(thing, "act"):
        def predict(observation: dict[str, Any]) -> Any:
            action, _state = thing.predict(observation["observation"], action_masks=observation["action_mask"],
                                           deterministic=True)
            return action
        return predict
    if hasattr(thing, "act"):
        return thing.act
    if hasattr(thing, "policy_for_key"):        # OpenSpiel's TabularPolicy: its probabilities at the view
        return lambda observation: thing.policy_for_key(observation["information_state"])
    if callable(thing):
        return thing
    raise BadInput(f"player {name}: {type(thing).__name__} is not a policy (a function of an observation, or an "
                   "object with act(observation) or predict(observation, action_masks=...))")


def policy(name: str) -> Policy:
    """The policy ``name`` names, loaded on first use; BadInput in one line when it cannot be."""
    if name in _policies:
        return _policies[name]
    found = NAMED.fullmatch(name)
    if found is None or found["source"] in SEARCH_KINDS:
        raise BadInput(f"'{name}' is not an outside player (FILE.py:NAME or module:NAME)")
    if not _loading_allowed:
        raise BadInput(f"player '{name}': code is loaded by name only on the command line (the page takes the players "
                       "given to `educable serve --player`)")
    source, attribute = found["source"], found["attribute"]
    try:
        if source.endswith(".py"):
            path = Path(source)
            if not path.is_file():
                raise BadInput(f"player '{name}': no file {source}")
            spec = importlib.util.spec_from_file_location(f"educable_player_{len(_policies)}_{path.stem}", path)
            if spec is None or spec.loader is None:
                raise BadInput(f"player '{name}': {source} is not a Python file")
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(source)
    except BadInput:
        raise
    except Exception as exc:      # the user's own code failed to load: said in one line
        raise BadInput(f"player '{name}': loading {source} failed: {type(exc).__name__}: {exc}") from None
    if not hasattr(module, attribute):
        raise BadInput(f"player '{name}': {source} has no {attribute}")
    register(name, getattr(module, attribute))
    return _policies[name]


def observation(game: str, key: str, mover: str, legal: list[str],
                seen: list[int] | tuple[int, ...] | None = None) -> dict[str, Any]:
    """What a policy sees: the environment's observation of the state ``key`` for ``mover`` and the
    position's text beside it."""
    from educable.bridge import field
    return {**field.observation(game, key, mover, legal, seen), "position": key}


def chosen(name: str, game: str, obs: dict[str, Any], legal: list[str], where: str) -> str:
    """The move policy ``name`` chooses given ``obs``; BadInput when it answers no legal action."""
    import numpy as np

    from educable.bridge import field, limits
    moves = field.actions(game, limits.max_positions())     # a command's limit, as check_agent numbered them
    try:
        action = policy(name)(obs)
    except BadInput:
        raise
    except Exception as exc:
        raise BadInput(f"player '{name}' failed in {where}: {type(exc).__name__}: {exc}") from None
    try:
        number = int(np.asarray(action).reshape(-1)[0]) if np.size(action) == 1 else None
    except (TypeError, ValueError):
        number = None
    if number is None or not 0 <= number < len(moves) or moves[number] not in legal:
        raise BadInput(f"player '{name}' chose {action!r} in {where}: not a legal action "
                       f"(legal: {', '.join(str(moves.index(m)) for m in legal)})")
    return moves[number]


def choose(name: str, state: games.State) -> str:
    """The move ``name`` plays in ``state``."""
    from educable.bridge import games
    legal = [m for m, _ in games.moves(state)]
    return chosen(name, state.game, observation(state.game, state.key, state.mover, legal), legal, repr(state.key))


def support(graph: StateGraph, name: str) -> exact.Support:
    """The move ``name`` chooses in every state of ``graph`` where a player moves: the policy asked
    once a state, which exact judgement then follows."""
    from educable.bridge import field, games
    from educable.learners import exact
    from educable.learners.graph import CHANCE
    # every state's cells in one batch where cells/4 can be asked of any node (no chance nodes)
    cells = games.board_cells(graph) if field.planes(graph.game) is not None and not graph.has_chance else None
    table: list[list[str]] = []
    for s in range(graph.size):
        legal = [graph.moves[m] for m in graph.move[graph.start[s]:graph.start[s + 1]]]
        if not legal or graph.mover[s] == CHANCE:
            table.append(legal)
            continue
        key = graph.keys[s]
        obs = observation(graph.game, key, graph.players[graph.mover[s]], legal,
                          None if cells is None else cells[s].tolist())
        table.append([chosen(name, graph.game, obs, legal, repr(key))])
    return exact.support_from_moves(graph, table)
