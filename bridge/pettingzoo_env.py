"""Every game educable can load as a PettingZoo environment (AEC API), and as a Gymnasium environment
of one agent against an educable opponent.

As PettingZoo's classic board games do: a fixed ``Discrete`` action space (the game's numbered
moves, bridge/field.py) and an observation ``{"observation": planes, "action_mask": legal}``, the
planes being the cells as the observing player sees them (one plane per cell value: for a board of
two players, its own pieces then the opponent's), the mask all zeros for a player not to move.
Rewards: +1 the winner, -1 the loser, 0 a draw; in a game of score (one player), each move's points
and the end's.  Chance moves are drawn inside a step, from the generator that ``reset(seed=...)``
seeds.  A game without cells/4 is observed as the number of its state in the state graph.

A game of hidden information (sees/4: Kuhn, Leduc, Liar's Dice, GDL-II sheets) shows each player
only its own view: its observation is the number of its information set (1, 2, ... over the game's
tree, a player's own numbering; 0 where it has no move to make), ``infos[agent]["view"]`` the view's
text, and the rewards the end's payoff (``payoff(N)``: N to the first player, -N to the second).
The Gymnasium environment refuses such a game: its opponent would have to choose from a view of its
own (``train --learner cfr`` does that).

PettingZoo and Gymnasium are the optional extra ``field`` (``pip install 'educable[field]'``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from educable.bridge import field, games
from educable.bridge.engine import BadInput

EXTRA = "field"


def need(module: str, extra: str = EXTRA) -> Any:
    """Import an optional library, or BadInput in one line naming the extra that installs it."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError:
        raise BadInput(f"this needs {module.split('.')[0]}, an optional library: pip install 'educable[{extra}]'") from None


def _spaces(game: str, limit: int | None, sets: int | None = None) -> tuple[tuple[str, ...], field.Planes | None, Any, Any]:
    """The actions, the planes (None: states observed by their number or, in a game of hidden
    information, by the number of the viewer's information set, at most ``sets``), the action and the
    observation spaces."""
    spaces = need("gymnasium.spaces")
    moves = field.actions(game, limit)
    planes = None if sets is not None else field.planes(game, limit)
    if sets is not None:
        board = spaces.Box(low=0, high=sets, shape=(1,), dtype=np.int64)
    elif planes is None:
        board = spaces.Box(low=0, high=len(field.numbering(game, limit)) - 1, shape=(1,), dtype=np.int64)
    else:
        board = spaces.Box(low=0, high=1, shape=(*planes.shape, planes.values), dtype=np.int8)
    observation = spaces.Dict({"observation": board,
                               "action_mask": spaces.Box(low=0, high=1, shape=(len(moves),), dtype=np.int8)})
    return moves, planes, spaces.Discrete(len(moves)), observation


def _base() -> type:
    return need("pettingzoo").AECEnv


class _Board:
    """What both environments share: the game, its numbered moves, the state and how it is observed."""

    def __init__(self, game: str, limit: int | None, views: bool = True) -> None:
        self.hidden = games.is_hidden(game)
        if self.hidden and not views:
            raise BadInput(games.hidden_refusal(game, "Gymnasium's environment would have its opponent choose from the "
                                                      "whole position: educable.env gives each player its own view"))
        self.game = games.check_game(game)
        self.players = games.players(game)
        self.scored = len(self.players) == 1
        self.set_numbers: list[dict[str, int]] = []          # a game of hidden information: each player's views
        if self.hidden:
            from educable.bridge import trees
            found = trees.tree(game, limit)
            for p in range(len(self.players)):
                mine = [k for k, who in zip(found.key, found.player.tolist(), strict=True) if who == p]
                self.set_numbers.append({v: n for n, v in enumerate(mine, start=1)})
        most = max((len(n) for n in self.set_numbers), default=0) if self.hidden else None
        self.moves, self.planes, self.action_space_, self.observation_space_ = _spaces(game, limit, most)
        self.index = field.action_index(game)
        self.numbered_apart = field.numbered_apart(game)
        self.state = field.start(game)

    def observe(self, viewer: str, to_move: bool) -> dict[str, np.ndarray]:
        """What ``viewer`` sees (the cells the last step brought back; legal moves only if it is to move)."""
        s = self.state
        legal = s.moves if to_move and s.result is None else ()
        if self.hidden:
            mask = np.zeros(len(self.moves), dtype=np.int8)
            mask[[self.index[m] for m in legal]] = 1
            number = self.set_numbers[self.players.index(viewer)].get(self.view(viewer), 0) if legal else 0
            return {"observation": np.array([number], dtype=np.int64), "action_mask": mask}
        return field.observation(self.game, s.key, viewer, legal, s.seen[self.players.index(viewer)] if s.seen else None)

    def view(self, viewer: str) -> str:
        """What ``viewer`` sees now, in a game of hidden information."""
        return field.view(self.game, self.state.key, viewer)

    def views(self) -> dict[str, dict[str, str]]:
        """Each player's infos: its view where the game hides information, else nothing."""
        return {p: ({"view": self.view(p)} if self.hidden else {}) for p in self.players}

    def play(self, action: Any, rng: np.random.Generator) -> float:
        """Play legal action number ``action`` for the player to move, then chance; the points scored."""
        move = self.moves[int(action)]
        if self.numbered_apart:                 # a game of chance: the move and chance's moves in one query
            after = field.step_settled(self.game, self.state.key, move, rng)
        else:                                   # else the step is remembered (a search asks it again)
            after = field.step(self.game, self.state.key, move)
        settled, chance_points = field.settle(self.game, after, rng)
        self.state = settled
        return after.points + chance_points + settled.end_points

    def legal(self, action: Any) -> bool:
        """Whether ``action`` (a number of the action space) is legal now; ValueError outside the space."""
        if not isinstance(action, (int, np.integer)) or not 0 <= action < len(self.moves):
            raise ValueError(f"action {action!r} is not one of 0..{len(self.moves) - 1} of {self.game}")
        return self.moves[int(action)] in self.state.moves

    def text(self) -> str:
        return "\n".join(games.board(games.State(self.game, self.state.key, self.state.mover)))


def aec_env(game: str, render_mode: str | None = None, max_positions: int | None = None) -> Any:
    """A PettingZoo AEC environment of ``game`` (any game educable can load)."""

    class EducableEnv(_base()):       # type: ignore[misc]  # PettingZoo is optional: the class is made on demand
        metadata = {"render_modes": ["ansi"], "name": "educable_v0", "is_parallelizable": False}

        def __init__(self) -> None:
            super().__init__()
            if render_mode not in (None, "ansi"):
                raise BadInput(f"render_mode {render_mode!r}: educable draws boards as text (render_mode='ansi')")
            self.render_mode = render_mode
            self._board = _Board(game, max_positions)
            self.possible_agents = list(self._board.players)
            self.metadata = {**self.metadata, "name": f"educable_{game}"}
            self.np_random = np.random.default_rng()
            self.reset()

        def observation_space(self, agent: str) -> Any:
            return self._board.observation_space_

        def action_space(self, agent: str) -> Any:
            return self._board.action_space_

        def observe(self, agent: str) -> dict[str, np.ndarray]:
            return self._board.observe(agent, agent == self.agent_selection)

        def reset(self, seed: int | None = None, options: dict | None = None) -> None:
            if seed is not None or not hasattr(self, "agents"):
                self.np_random = np.random.default_rng(seed)
            b = self._board
            b.state, _ = field.settle(b.game, field.start(b.game), self.np_random)
            self.agents = self.possible_agents[:]
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
            self.terminations = dict.fromkeys(self.agents, False)
            self.truncations = dict.fromkeys(self.agents, False)
            self.infos: dict[str, dict] = b.views()
            self.agent_selection = b.state.mover if b.state.result is None else self.agents[0]

        def step(self, action: Any) -> None:
            if not self.agents:
                from educable.bridge.errors import Error
                raise Error("the game is over and every player has left: reset() starts another")
            if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
                self._was_dead_step(action)
                return
            b = self._board
            agent = self.agent_selection
            self._cumulative_rewards[agent] = 0.0
            self.rewards = dict.fromkeys(self.agents, 0.0)
            if not b.legal(action):            # as PettingZoo's TerminateIllegalWrapper: the game ends, -1 to who did it
                self.rewards[agent] = -1.0
                self.infos[agent] = {"illegal_move": b.moves[int(action)]}
                self.terminations = dict.fromkeys(self.agents, True)
                self._accumulate_rewards()
                return
            points = b.play(action, self.np_random)
            if b.hidden:
                self.infos = b.views()
            if b.scored:
                self.rewards[agent] = points
            if b.state.result is not None:
                if b.state.result == "payoff":          # N to the first player from the second
                    first, second = self.agents
                    self.rewards[first], self.rewards[second] = b.state.end_points, -b.state.end_points
                elif b.state.result in self.rewards:
                    for a in self.agents:
                        self.rewards[a] = 1.0 if a == b.state.result else -1.0
                self.terminations = dict.fromkeys(self.agents, True)
                self.agent_selection = self.agents[(self.agents.index(agent) + 1) % len(self.agents)]
            else:
                self.agent_selection = b.state.mover
            self._accumulate_rewards()

        def render(self) -> str | None:
            return self._board.text() if self.render_mode == "ansi" else None

        def close(self) -> None:
            pass

    return EducableEnv()


def gym_env(game: str, opponent: str = "random", side: str | None = None, db: Any = None,
            render_mode: str | None = None, max_positions: int | None = None) -> Any:
    """A Gymnasium environment: one agent plays ``game`` as ``side`` (the first player unless said)
    against ``opponent``, any educable player (random, minimax, alphabeta:D, perfect, an agent
    stored in the knowledge base ``db``), which moves inside each step.  A game of score is played
    alone (no opponent)."""
    gymnasium = need("gymnasium")
    import random

    from educable.bridge import agents
    from educable.bridge.judge import chooser_for
    from educable.kb.db import open_kb

    class EducableGym(gymnasium.Env):      # type: ignore[name-defined]  # made on demand, as above
        metadata = {"render_modes": ["ansi"], "render_fps": 1}

        def __init__(self) -> None:
            if render_mode not in (None, "ansi"):
                raise BadInput(f"render_mode {render_mode!r}: educable draws boards as text (render_mode='ansi')")
            self.render_mode = render_mode
            self._board = _Board(game, max_positions, views=False)
            players = self._board.players
            self.side = side or players[0]
            if self.side not in players:
                raise BadInput(f"side {self.side!r}: {game}'s players are {', '.join(players)}")
            self.action_space = self._board.action_space_
            self.observation_space = self._board.observation_space_
            self._db = db if hasattr(db, "conn") else open_kb(db)
            self._rng = random.Random(0)
            self._opponent = None
            if not self._board.scored:
                agents.check_agent(self._db, self._board.game, opponent)
                self._opponent = chooser_for(self._db, self._board.game, opponent, self._rng)

        def _observe(self) -> dict[str, np.ndarray]:
            b = self._board
            return b.observe(self.side, b.state.mover == self.side)

        def _reply(self) -> None:
            """The opponent moves (chance after each) until the agent is to move or the game is over."""
            b = self._board
            while b.state.result is None and b.state.mover != self.side and self._opponent is not None:
                move = self._opponent(games.State(b.game, b.state.key, b.state.mover), [])
                b.play(b.index[move], self.np_random)

        def _reward(self, points: float) -> float:
            b = self._board
            if b.scored or b.state.result is None or b.state.result == "draw":
                return points
            return 1.0 if b.state.result == self.side else -1.0

        def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
            super().reset(seed=seed)
            drawn = int(self.np_random.integers(2**31))
            self._rng.seed(drawn)
            games.seed_random(drawn)
            b = self._board
            b.state, _ = field.settle(b.game, field.start(b.game), self.np_random)
            self._reply()
            return self._observe(), {}

        def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
            b = self._board
            if not b.legal(action):            # the episode ends: -1 (0 in a game of score), as PettingZoo's classic games do
                return self._observe(), 0.0 if b.scored else -1.0, True, False, {"illegal_move": b.moves[int(action)]}
            points = self._board.play(action, self.np_random)
            self._reply()
            over = self._board.state.result is not None
            return self._observe(), self._reward(points), over, False, {}

        def render(self) -> str | None:
            return self._board.text() if self.render_mode == "ansi" else None

    return EducableGym()
