"""One interactive game between a person and an agent, move by move.

Per-move Prolog calls are fine here (people are slow); the finished game is
stored as a match, and an agent that learns from games (its learner
registered an after-game hook) learns from it and is saved.
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING

from educable.bridge import agents, games, judge
from educable.bridge.engine import BadInput
from educable.bridge.wording import score_result
from educable.kb import store

if TYPE_CHECKING:
    import sqlite_utils  # in annotations only: kb.db imports it when a database is opened

class PlaySession:
    """A game of ``game`` with the person on side ``human`` against agent ``opponent``."""

    def __init__(self, db: sqlite_utils.Database, game: str, opponent: str, human: str | None, seed: int) -> None:
        self.db = db
        self.game = games.check_game(game)
        sides = games.players(game)
        self.alone = len(sides) == 1          # a game of score: the person plays it alone, chance aside
        self.human = human or sides[0]
        if self.human not in sides:
            raise BadInput(f"--as must be one of {', '.join(sides)} for {game}")
        self.opponent = ALONE if self.alone else opponent
        if not self.alone:
            agents.check_agent(db, game, opponent)
            self.chooser = judge.chooser_for(db, game, opponent, random.Random(seed))
        games.seed_random(seed)
        self.state = games.initial(game)
        self.keys = [self.state.key]
        self.moves: list[str] = []
        self.result: str | None = None
        self.score = 0.0                      # a game of score's points so far (its end's score added at the end)

    @property
    def human_to_move(self) -> bool:
        return self.result is None and self.state.mover == self.human

    def legal_moves(self) -> list[str]:
        return [m for m, _ in games.moves(self.state)]

    def board(self) -> list[str]:
        return games.board(self.state)

    def _advance(self, move: str) -> None:
        after = games.play(self.state, move)            # BadInput first, if the move is illegal
        if self.alone:
            self.score += games.points(self.state, move)
        self.state = after
        self.keys.append(self.state.key)
        self.moves.append(move)
        self.result = games.result(self.state)
        if self.alone and self.result is not None:
            self.score += games.end_score(self.state)
            self.result = score_result(self.score)

    def human_move(self, text: str) -> str:
        """Play the person's move; BadInput (state unchanged) if malformed or illegal."""
        if not self.human_to_move:
            raise BadInput("it is not your move")
        self._advance(text.strip())
        return self.moves[-1]

    @property
    def chance_to_move(self) -> bool:
        """Whether chance moves next (a die to read, a tile to fall): no one chooses."""
        return self.result is None and self.state.mover == games.CHANCE

    def computer_move(self) -> str:
        """Let the agent choose and play its move, or chance draw its outcome."""
        move = games.choose(self.state, "chance") if self.chance_to_move else self.chooser(self.state, self.moves)
        self._advance(move)
        return move

    def finish(self, source: str = "play", teach: bool = True) -> int:
        """Store the match (result NULL if abandoned) and, with ``teach``, let a learning agent learn;
        returns the match id."""
        if self.alone:
            return store.record_match(self.db, self.game, "human", ALONE, self.moves, self.result, source)
        first, second = games.two_players(self.game)
        names = (self.opponent, "human") if self.human == second else ("human", self.opponent)
        match_id = store.record_match(self.db, self.game, names[0], names[1], self.moves, self.result, source)
        row = store.get_agent(self.db, self.opponent)
        if teach and self.result is not None and row is not None:
            side = second if self.human == first else first
            agents.learner_of(row).learn_game(self.db, row, self.game, self.keys, self.result, side)
        return match_id


def reply(db: sqlite_utils.Database, game: str, position: str, opponent: str, moves: list[str] | None = None,
          seed: int = 0) -> dict:
    """The move ``opponent`` plays in ``position`` (``moves`` is the game so far, which the perfect
    player reads) and where it leads: the page's and `POST /api/move`'s one step."""
    state = games.parse(game, position)
    if games.result(state) is not None:
        raise BadInput(f"the game is over in {position}: no move to play")
    if state.mover == games.CHANCE:         # chance draws (in a game of score too, where no opponent plays)
        games.seed_random(seed)
        move = games.choose(state, "chance")
    else:
        agents.check_agent(db, game, opponent)
        chooser = judge.chooser_for(db, game, opponent, random.Random(seed))
        games.seed_random(seed)
        move = chooser(state, list(moves or []))
    after = games.play(state, move)
    return {"game": game, "position": state.key, "opponent": opponent, "move": move, "next": after.key,
            "to_move": after.mover, "result": games.result(after)}


def record_game(db: sqlite_utils.Database, game: str, opponent: str, human: str, moves: list[str],
                teach: bool = True) -> dict:
    """Store a game a person played against ``opponent`` on side ``human`` (its moves from the start,
    each checked by the rules) as `play` stores it, and, with ``teach`` and a finished game, let a
    learning opponent learn from it exactly as after `play`.  Its match id, result and whether the
    agent learned."""
    if len(moves) > MAX_MOVES:
        raise BadInput(f"a game of more than {MAX_MOVES:,} moves")
    session = PlaySession(db, game, opponent, human, 0)
    for text in moves:
        if session.result is not None:
            raise BadInput(f"move {text!r} after the end of the game")
        session._advance(text)
    before = store.get_agent(db, opponent)
    match_id = session.finish("serve", teach)
    after = store.get_agent(db, opponent)
    trained = (before["games_trained"], after["games_trained"]) if before and after else (None, None)
    return {"match": match_id, "result": session.result, "learned": trained[1] != trained[0],
            "games_trained": trained[1]}


ALONE = "none"          # the second side stored for a game of score: nobody plays against the person
MAX_MOVES = 2000        # a game still going after this many moves is scored a draw elsewhere
