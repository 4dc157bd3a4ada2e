"""The tree of a game of hidden information and its information sets, compiled once a process.

Its own module so that the commands on such games (bridge/hidden.py), the environments (bridge/field.py,
bridge/pettingzoo_env.py) and the learners (bridge/cfr.py, bridge/views_qlearn.py) share one compiled
tree without importing each other.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from educable.bridge import games
from educable.bridge.compile import ProgressFn, compile_graph
from educable.bridge.engine import BadInput
from educable.bridge.limits import max_positions

if TYPE_CHECKING:
    from educable.learners.hidden import InfoGame

_TREES: dict[str, tuple[str, InfoGame]] = {}


def tree(game: str, limit: int | None = None, progress: ProgressFn | None = None) -> InfoGame:
    """The game's tree and information sets, compiled once a process (BadInput in one line for a game
    past the position limit, or whose views break a rule of hidden information)."""
    from educable.learners.hidden import NotHiddenGame, info_game

    games.check_game(game)
    digest = games.rules_hash(game)
    cached = _TREES.get(game)
    if cached is not None and cached[0] == digest:
        return cached[1]
    graph = compile_graph(game, games.players(game), False, max_positions(limit),
                          "a game of hidden information is solved over its whole tree", progress)
    try:
        found = info_game(graph)
    except NotHiddenGame as exc:
        raise BadInput(str(exc)) from None
    _TREES[game] = (digest, found)
    return found
