"""One interactive game between a person and an agent, move by move.

Per-move Prolog calls are fine here (people are slow); the finished game is
stored as a match, and an agent that learns from games (its learner
registered an after-game hook) learns from it and is saved.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import random

from bridge import agents, games, perfect
from bridge.engine import BadInput
from kb import store

if TYPE_CHECKING:
    import sqlite_utils      # in annotations only: kb.db imports it when a database is opened

class PlaySession:
    """A game of ``game`` with the person on side ``human`` against agent ``opponent``."""

    def __init__(self, db: sqlite_utils.Database, game: str, opponent: str, human: str | None, seed: int) -> None:
        self.db = db
        self.game = games.check_game(game)
        first, second = games.players(game)
        self.human = human or first
        if self.human not in (first, second):
            raise BadInput(f"--as must be one of {first}, {second} for {game}")
        self.opponent = opponent
        agents.check_agent(db, game, opponent)
        self.chooser = perfect.chooser_for(db, game, opponent, random.Random(seed))
        games.seed_random(seed)
        self.state = games.initial(game)
        self.keys = [self.state.key]
        self.moves: list[str] = []
        self.result: str | None = None

    @property
    def human_to_move(self) -> bool:
        return self.result is None and self.state.mover == self.human

    def legal_moves(self) -> list[str]:
        return [m for m, _ in games.moves(self.state)]

    def board(self) -> list[str]:
        return games.board(self.state)

    def _advance(self, move: str) -> None:
        self.state = games.play(self.state, move)
        self.keys.append(self.state.key)
        self.moves.append(move)
        self.result = games.result(self.state)

    def human_move(self, text: str) -> str:
        """Play the person's move; BadInput (state unchanged) if malformed or illegal."""
        if not self.human_to_move:
            raise BadInput("it is not your move")
        self._advance(text.strip())
        return self.moves[-1]

    def computer_move(self) -> str:
        """Let the agent choose and play its move."""
        move = self.chooser(self.state, self.moves)
        self._advance(move)
        return move

    def finish(self) -> int:
        """Store the match (result NULL if abandoned) and let a learning agent learn; returns the match id."""
        first, second = games.players(self.game)
        names = (self.opponent, "human") if self.human == second else ("human", self.opponent)
        match_id = store.record_match(self.db, self.game, names[0], names[1], self.moves, self.result, "play")
        row = store.get_agent(self.db, self.opponent)
        if self.result is not None and row is not None:
            side = second if self.human == first else first
            agents.learner_of(row).learn_game(self.db, row, self.game, self.keys, self.result, side)
        return match_id
