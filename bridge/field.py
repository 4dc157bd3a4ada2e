"""A game as the libraries of the field see it: numbered actions, one call a step, cells as planes.

PettingZoo's environments (bridge/pettingzoo_env.py) and OpenSpiel's games
(bridge/openspiel_game.py) both need what educable's protocol leaves open: a
fixed numbering of every move a player can ever make (the game's
``actions/2``, else the moves of its state graph in the order of their
texts), a step that answers in one call into Prolog what the next state is
and what can be done there, and an observation of fixed shape (one plane
per cell value of cells/4, as PettingZoo's board games give one plane per
player).  Chance is drawn here from the caller's generator, with the
outcomes' exact weights, so that a seed gives the same game.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np

from educable.bridge import games, graphs
from educable.bridge.engine import BadInput, engine, quote
from educable.bridge.limits import ENV_MAX, max_positions
from educable.learners.graph import CHANCE as CHANCE_NODE  # a chance node's mover in a state graph
from educable.learners.graph import StateGraph

CHANCE = games.CHANCE
PLAYOUTS = 50           # random games whose cells bound the cell values of a game too large for its graph


@dataclass(frozen=True)
class Step:
    """A state as a step leaves it: its key and mover, the result when over (a winner, ``draw`` or
    ``score``), the legal moves (chance's outcomes with their weights at a chance node), the points
    the step scored, for a game of score's end the end's points, and the cells as each player sees
    them (in the order of the players; empty for a game without cells)."""

    key: str
    mover: str
    result: str | None
    moves: tuple[str, ...]
    weights: tuple[float, ...]
    points: float
    end_points: float
    seen: tuple[tuple[int, ...], ...] = ()


def natural(text: str) -> list:
    """A sort key that puts '2' before '10' (moves are often numbers)."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


MAX_CELL_VALUES = 10_000     # cell_values/2's largest (as rules/check.pl holds it)
FIELD_POSITIONS = 100_000     # the state graph an environment enumerates by default (a few seconds at most)


def fitted_graph(game: str, limit: int | None = None) -> StateGraph:
    """The game's graph of every state (chance nodes and games of score included), for an environment
    of a game that does not number its moves itself (actions/2) or has no cells; TooLarge past
    ``limit`` (FIELD_POSITIONS unless given or set in $EDUCABLE_MAX_POSITIONS: a game larger than that
    needs actions/2 and cells/4, or a larger max_positions, which the refusal says)."""
    if limit is None and os.environ.get(ENV_MAX):       # the commands' own setting, where one is made
        limit = max_positions()
    try:
        return graphs.state_graph(None, game, FIELD_POSITIONS if limit is None else limit,
                                  what="an environment of it numbers its moves and states over every position "
                                       "(the game's actions/2 and cells/4 spare that; max_positions= raises the limit)")
    except graphs.ChanceGame as chance_game:
        return chance_game.graph


_ACTIONS: dict[str, tuple[str, ...]] = {}       # by game: the limit a first call gave is kept with the result
_NUMBERING: dict[str, dict[str, int]] = {}


def actions(game: str, limit: int | None = None) -> tuple[str, ...]:
    """Every move a player can make in ``game``, each once, in a fixed order: action ``i`` is the
    ``i``-th.  The game's actions/2 where it declares them, else its graph's moves (chance's
    outcomes left out) in the order of their texts (``limit`` positions at most: FIELD_POSITIONS
    unless given).  Worked out once a game."""
    if game not in _ACTIONS:
        _ACTIONS[game] = _actions(game, limit)
    return _ACTIONS[game]


def _actions(game: str, limit: int | None) -> tuple[str, ...]:
    declared = _declared(game, "actions")
    if declared is not None:
        return declared
    if games.is_hidden(game):              # a game of hidden information: its tree (the graph of histories)
        from educable.bridge import trees
        graph = trees.tree(game, limit).graph
    else:
        graph = fitted_graph(game, limit)
    seen: set[int] = set()
    for s in range(graph.size):
        if graph.mover[s] != CHANCE_NODE:
            seen.update(graph.move[graph.start[s]:graph.start[s + 1]].tolist())
    return tuple(sorted((graph.moves[m] for m in seen), key=natural))


@cache
def chance_actions(game: str) -> tuple[str, ...] | None:
    """Every outcome chance can draw in ``game``, in the game's order, where it declares them
    (chance_actions/2); None where it does not."""
    return _declared(game, "chance_actions")


def _declared(game: str, name: str) -> tuple[str, ...] | None:
    """The move texts of the list the game's ``name``/2 (actions/2, chance_actions/2) gives, or None
    where the game gives none; BadInput for a move named twice."""
    g = quote(games.check_game(game))
    declared = engine().call(f"( game:{name}({g}, Ms) -> findall(T, (member(Mv, Ms), game:move_text({g}, Mv, T)), Out)"
                             " ; Out = null )")
    if declared is not None and len(set(declared)) != len(declared):
        raise BadInput(f"{name}/2 of {game} names a move twice (educable check {game} says more)")
    return None if declared is None else tuple(declared)


def numbered_apart(game: str) -> bool:
    """Whether ``game`` numbers its players' moves and chance's outcomes itself (actions/2 and
    chance_actions/2): an environment of it is then built without enumerating its state graph."""
    return chance_actions(game) is not None and _declared(game, "actions") is not None


@cache
def action_index(game: str) -> dict[str, int]:
    """Each move's action number."""
    return {m: i for i, m in enumerate(actions(game))}


def numbering(game: str, limit: int | None = None) -> dict[str, int]:
    """Each state's number in the state graph: how a game without cells/4 is observed (worked out
    once a game, ``limit`` as for actions)."""
    if game not in _NUMBERING:
        _NUMBERING[game] = {k: i for i, k in enumerate(fitted_graph(game, limit).keys)}
    return _NUMBERING[game]


def observation(game: str, key: str, viewer: str, legal: Iterable[str],
                seen: list[int] | tuple[int, ...] | None = None) -> dict[str, np.ndarray]:
    """What a player sees of the state ``key`` (PettingZoo's classic form): the planes of the cells
    as ``viewer`` sees them (``seen`` when the caller has them) or, without cells/4, the state's
    number; and the mask of the ``legal`` moves (none for a player not to move)."""
    mask = np.zeros(len(actions(game)), dtype=np.int8)
    index = action_index(game)
    mask[[index[m] for m in legal]] = 1
    shape = planes(game)
    if shape is None:
        board = np.array([numbering(game)[key]], dtype=np.int64)
    else:
        board = shape.encode(seen if seen is not None else cells(game, key, viewer) or [])
    return {"observation": board, "action_mask": mask}


def forget() -> None:
    """Forget what was worked out of the games (a game file was loaded since)."""
    for remembered in (chance_actions, action_index, start, step, planes):
        remembered.cache_clear()
    _ACTIONS.clear()
    _NUMBERING.clear()
    engine().call("nb_setval(play_env_last, none), Out = true")     # the state env_position/4 remembers


STEPS_KEPT = 20_000      # steps remembered (a search or a replay asks the same ones again)


@lru_cache(maxsize=1024)
def start(game: str) -> Step:
    """The game's first state."""
    g = quote(games.check_game(game))
    return _step(engine().call(f"play:env_start({g}, Out)"))


@lru_cache(maxsize=STEPS_KEPT)
def step(game: str, key: str, move: str) -> Step:
    """The state after ``move`` from the state ``key`` (its mover moving), in one call into Prolog;
    BadInput for a malformed or illegal move."""
    g = quote(game)
    return _step(engine().call(f"play:env_step({g}, {quote(key)}, {quote(move)}, Out)"))


SETTLE_DRAWS = 4        # chance's moves one step_settled may make (2048's opening has two tiles)


def step_settled(game: str, key: str, move: str, rng: np.random.Generator) -> Step:
    """The state after ``move`` and the chance moves after it (each outcome drawn with its weight by a
    number of ``rng``), in one call into Prolog: an environment's step.  Its points are those of the
    move and of chance's moves; if chance is still to move (more than SETTLE_DRAWS of its moves), the
    caller settles the rest."""
    g = quote(game)
    draws = repr(rng.random(SETTLE_DRAWS).tolist())           # [u1, u2, ...]: floats written exactly
    return _step(engine().call(f"play:env_step_settled({g}, {quote(key)}, {quote(move)}, {draws}, Out)"))


def at(game: str, key: str) -> Step:
    """The state whose text is ``key`` (as a step to it would leave it, no points scored)."""
    g = quote(games.check_game(game))
    return _step(engine().call(f"play:env_at({g}, {quote(key)}, Out)"))


def _step(fields: list) -> Step:
    key, mover, result, moves, weights, points, end, seen = fields
    return Step(key, mover, result, tuple(moves), tuple(weights), points, end, tuple(tuple(c) for c in seen))


def view(game: str, key: str, viewer: str) -> str:
    """What ``viewer`` sees in the state ``key`` of a game of hidden information (sees/4)."""
    g = quote(game)
    return engine().call(f"game:parse_position({g}, {quote(key)}, P, _), game:sees({g}, P, {quote(viewer)}, Out)")


def cells(game: str, key: str, viewer: str) -> list[int] | None:
    """The board's cells as ``viewer`` sees it (cells/4 with the viewer in the mover's place); None
    for a game without cells."""
    g = quote(game)
    return engine().call(f"game:parse_position({g}, {quote(key)}, P, _), "
                         f"( catch(game:cells({g}, P, {quote(viewer)}, C), _, fail) -> Out = C ; Out = null )")


def draw(step: Step, rng: np.random.Generator) -> str:
    """One of a chance node's outcomes, drawn with its weight."""
    weights = np.asarray(step.weights, dtype=float)
    return step.moves[int(rng.choice(len(weights), p=weights / weights.sum()))]


def settle(game: str, state: Step, rng: np.random.Generator) -> tuple[Step, float]:
    """Let chance move until a player is to move or the game is over; the state, and the points the
    chance moves scored."""
    points = 0.0
    while state.result is None and state.mover == CHANCE:
        state = step(game, state.key, draw(state, rng))
        points += state.points
    return state, points


@dataclass(frozen=True)
class Planes:
    """How a state's cells become an observation: ``values`` planes (cell value 1, 2, ... each a
    plane of 0/1) over ``shape`` (rows and columns where the game gives a layout)."""

    shape: tuple[int, ...]
    values: int

    def encode(self, cells: list[int] | tuple[int, ...]) -> np.ndarray:
        board = np.asarray(cells, dtype=np.int64).reshape(self.shape)
        return (board[..., None] == np.arange(1, self.values + 1)).astype(np.int8)


@cache
def planes(game: str, limit: int | None = None) -> Planes | None:
    """The observation of ``game``'s cells, or None when it declares no cells/4.  The number of
    planes is the largest cell value: the game's cell_values/2 where it gives them (2048, Pig,
    EinStein); else over the state graph where it fits, or over a few hundred random games (seeded)."""
    first = start(game)
    found = cells(game, first.key, games.players(game)[0])
    if found is None:
        return None
    columns = games.layout(game)
    shape = (len(found) // columns[0], columns[0]) if columns and len(found) % columns[0] == 0 else (len(found),)
    values = engine().call(f"( catch(game:cell_values({quote(game)}, V), _, fail) -> term_to_atom(V, Out) ; Out = null )")
    if values is not None:              # declared (check holds the cells to it): no graph, no playouts
        if not values.isdigit() or not 1 <= int(values) <= MAX_CELL_VALUES:
            raise BadInput(f"cell_values/2 of {game} gives {values[:40]}: an observation holds a plane a value, "
                           f"so want a whole number from 1 to {MAX_CELL_VALUES:,} (educable check {game} says more)")
        return Planes(shape, max(1, int(values) - 1))
    return Planes(shape, max(2, _largest_cell(game, limit)))


def _largest_cell(game: str, limit: int | None) -> int:
    if not numbered_apart(game):
        try:
            graph = fitted_graph(game, limit)
            return int(games.board_cells(graph).max())
        except BadInput:
            pass
    rng = np.random.default_rng(0)
    largest = 0
    for _ in range(PLAYOUTS):
        state = start(game)
        while True:
            for viewer in games.players(game):
                largest = max(largest, *(cells(game, state.key, viewer) or [0]))
            if state.result is not None:
                break
            move = draw(state, rng) if state.mover == CHANCE else state.moves[int(rng.integers(len(state.moves)))]
            state = step(game, state.key, move)
    return largest
