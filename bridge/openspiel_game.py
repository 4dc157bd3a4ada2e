"""Every game educable can load as an OpenSpiel game (pyspiel's Python games), so that OpenSpiel's
own algorithms (minimax, value iteration, MCTS, tabular learners) run on a game written in Prolog.

Actions are the game's numbered moves (bridge/field.py); chance's outcomes are numbered apart, in
the order of their texts, each with its exact probability.  ``str(state)`` is the position's text
form (mover included), which identifies a state as OpenSpiel's value iteration expects.  Returns:
+1/-1 to the winner and the loser, 0 each for a draw; in a game of score (one player), the points.
A game of hidden information (sees/4) is an imperfect-information game: a player's information
state string is its view, so OpenSpiel's CFR and exploitability run on it; its payoff(N) is N and -N.
OpenSpiel is the optional extra ``openspiel`` (``pip install 'educable[openspiel]'``).
"""
from __future__ import annotations

import re
from functools import cache
from typing import Any

import numpy as np

from educable.bridge import field, games
from educable.bridge.engine import BadInput, engine, quote
from educable.bridge.pettingzoo_env import need

EXTRA = "openspiel"
LONGEST = 10**6         # the length OpenSpiel is told of a game whose graph has cycles or does not fit


def short_name(game: str) -> str:
    """The name pyspiel registers ``game`` under: educable_ and the name's letters and digits."""
    return "educable_" + re.sub(r"[^A-Za-z0-9]+", "_", game).strip("_")


def _longest(graph: Any) -> int:
    """The most moves a game can last: the height of its start (the layer of the start when the
    graph is peeled leaves first), or LONGEST where positions can come back."""
    if graph is None or not graph.acyclic():
        return LONGEST
    return next(i for i, level in enumerate(graph.levels()) if 0 in level)


@cache
def openspiel_game(game: str, max_positions: int | None = None) -> Any:
    """Register ``game`` with pyspiel (once a process) and return it loaded."""
    pyspiel = need("pyspiel", EXTRA)
    moves = field.actions(game, max_positions)
    index = field.action_index(game)
    players = games.players(game)
    scored = len(players) == 1
    hidden = games.is_hidden(game)          # each player's information state is its view (sees/4)
    graph = None
    declared_chance = field.chance_actions(game)
    if hidden and (declared_chance is None or not field.numbered_apart(game)):
        raise BadInput(f"{game} is a game of hidden information: OpenSpiel needs its actions/2 and chance_actions/2 "
                       "(its graph is not numbered for it)")
    planes = None if hidden else field.planes(game, max_positions)
    if not hidden and (not field.numbered_apart(game) or planes is None):     # else numbered and observed without the graph
        try:
            graph = field.fitted_graph(game, max_positions)
        except BadInput:
            pass
    has_chance = declared_chance is not None or (graph is not None and graph.has_chance)
    chance_moves: tuple[str, ...] = ()
    if declared_chance is not None:
        chance_moves = declared_chance
    elif graph is not None and has_chance:
        seen = {int(m) for s in range(graph.size) if graph.mover[s] == field.CHANCE_NODE
                for m in graph.move[graph.start[s]:graph.start[s + 1]]}
        chance_moves = tuple(sorted((graph.moves[m] for m in seen), key=field.natural))
    elif graph is None and engine().call(f"( game:initial({quote(game)}, _, M), game:chance_mover(M) -> Out = true ; Out = false )"):
        raise BadInput(f"{game} is a game of chance too large for its state graph: OpenSpiel needs its chance outcomes "
                       "numbered, which takes every position (raise --max-positions if memory allows)")
    chance_index = {m: i for i, m in enumerate(chance_moves)}
    GT = pyspiel.GameType
    game_type = GT(
        short_name=short_name(game), long_name=f"educable {game}", dynamics=GT.Dynamics.SEQUENTIAL,
        chance_mode=GT.ChanceMode.EXPLICIT_STOCHASTIC if has_chance else GT.ChanceMode.DETERMINISTIC,
        information=GT.Information.IMPERFECT_INFORMATION if hidden else GT.Information.PERFECT_INFORMATION,
        utility=GT.Utility.GENERAL_SUM if scored else GT.Utility.ZERO_SUM,
        reward_model=GT.RewardModel.REWARDS if scored else GT.RewardModel.TERMINAL,
        max_num_players=len(players), min_num_players=len(players),
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=not hidden, parameter_specification={})
    longest = _longest(graph) if graph is not None and not has_chance else LONGEST
    bound = float(LONGEST) if scored or hidden else 1.0         # a payoff(N) may be any number of chips
    info = pyspiel.GameInfo(
        num_distinct_actions=len(moves), max_chance_outcomes=len(chance_moves), num_players=len(players),
        min_utility=-bound, max_utility=bound,
        utility_sum=None if scored else 0.0, max_game_length=longest)

    class EducableState(pyspiel.State):      # type: ignore[name-defined]  # pyspiel is optional
        """A state of the game: its text form and what the step to it left."""

        def __init__(self, of: Any, at: field.Step) -> None:
            super().__init__(of)
            self.at = at
            self.scores = [0.0] * len(players)
            self.last_points = [0.0] * len(players)

        def current_player(self) -> int:
            if self.at.result is not None:
                return int(pyspiel.PlayerId.TERMINAL)
            if self.at.mover == field.CHANCE:
                return int(pyspiel.PlayerId.CHANCE)
            return players.index(self.at.mover)

        def _legal_actions(self, player: int) -> list[int]:
            return sorted(index[m] for m in self.at.moves)

        def chance_outcomes(self) -> list[tuple[int, float]]:
            total = sum(self.at.weights)
            return sorted((chance_index[m], w / total) for m, w in zip(self.at.moves, self.at.weights, strict=True))

        def _apply_action(self, action: int) -> None:
            mover = self.at.mover
            move = chance_moves[action] if mover == field.CHANCE else moves[action]
            self.at = field.step(game, self.at.key, move)
            points = self.at.points + self.at.end_points
            # OpenSpiel reads rewards at decision nodes only: they are the points since the last
            # player's move, so a chance step after it (a tile appearing) keeps them
            before = self.last_points[0] if mover == field.CHANCE else 0.0
            self.last_points = [before + points] * len(players)
            if scored:
                self.scores[0] += points

        def _action_to_string(self, player: int, action: int) -> str:
            return chance_moves[action] if player == int(pyspiel.PlayerId.CHANCE) else moves[action]

        def is_terminal(self) -> bool:
            return self.at.result is not None

        def returns(self) -> list[float]:
            if scored:
                return list(self.scores)
            if self.at.result is None or self.at.result == "draw":
                return [0.0, 0.0]
            if self.at.result == "payoff":          # hidden information: N chips to the first player
                return [self.at.end_points, -self.at.end_points]
            return [1.0 if p == self.at.result else -1.0 for p in players]

        def rewards(self) -> list[float]:
            return self.last_points if scored else self.returns() if self.is_terminal() else [0.0] * len(players)

        def information_state_string(self, player: int | None = None) -> str:
            if hidden:          # what the player sees, which recalls all it saw and did (check holds it to that)
                who = self.current_player() if player is None else player
                return field.view(game, self.at.key, players[max(who, 0)])
            return self.at.key

        def observation_string(self, player: int | None = None) -> str:
            return self.information_state_string(player)

        def __str__(self) -> str:
            return self.at.key

    class EducableGame(pyspiel.Game):        # type: ignore[name-defined]
        """``game`` for OpenSpiel."""

        def __init__(self, params: dict | None = None) -> None:
            super().__init__(game_type, info, params or {})

        def new_initial_state(self) -> EducableState:
            return EducableState(self, field.start(game))

        def state_at(self, key: str) -> EducableState:
            """The state whose text is ``key``."""
            return EducableState(self, field.at(game, key))

        def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
            return KeyObserver()

    numbered = None if planes is not None or graph is None else field.numbering(game, max_positions)
    if planes is None and numbered is None and not hidden:
        raise BadInput(f"{game} has no cells/4 and is too large for its state graph: OpenSpiel's observations "
                       "need one or the other")
    shape = (*planes.shape, planes.values) if planes is not None else (len(numbered or ()),)

    class KeyObserver:
        """OpenSpiel's observer: as a tensor, the environment's planes of the cells as the player sees
        them (a game without cells: its state's number, one-hot); as a string, the position's text."""

        def __init__(self) -> None:
            self.tensor = np.zeros(int(np.prod(shape)), np.float32)
            self.dict = {"observation": self.tensor.reshape(shape)}

        def set_from(self, state: EducableState, player: int) -> None:
            self.tensor.fill(0)
            if planes is not None:
                self.dict["observation"][...] = planes.encode(state.at.seen[max(player, 0)])
            else:
                self.tensor[(numbered or {})[state.at.key]] = 1

        def string_from(self, state: EducableState, player: int) -> str:
            return state.information_state_string(player)

    if short_name(game) not in pyspiel.registered_names():
        pyspiel.register_game(game_type, EducableGame)
    return pyspiel.load_game(short_name(game))


def player(game: str, bot: Any) -> Any:
    """A policy (bridge/outside.py) that asks an OpenSpiel bot (``step(state)``, as MCTSBot) or policy
    (``action_probabilities(state)``, as a TabularPolicy, its likeliest action) built on
    ``openspiel_game(game)``: the state found from the position's text."""
    spiel = openspiel_game(game)

    def act(observation: dict[str, Any]) -> int:
        state = spiel.state_at(observation["position"])
        if hasattr(bot, "step"):
            return int(bot.step(state))
        probabilities = bot.action_probabilities(state)
        return int(max(probabilities, key=probabilities.get))
    return act

