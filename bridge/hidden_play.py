"""A person plays a game of hidden information against an agent that sees only its own view.

The person is shown only what their side sees (sees/4), never the other's cards or dice, nor
chance's outcomes dealt to the other; the agent chooses from its strategy at its own view (random,
the stored equilibrium, a cfr agent's average strategy, a qlearn agent's greedy play).  At the end:
the whole position, the payoff, each of the person's decisions valued against the equilibrium (where
it is stored or the game small enough to solve now), and the agent's exploitability.
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from educable.bridge import field, games, hidden, trees
from educable.bridge.engine import BadInput
from educable.kb import equilibria, store

if TYPE_CHECKING:
    import sqlite_utils


class HiddenSession:
    """A game of ``game`` with the person on side ``human`` against ``opponent``; the same face as
    bridge/session.PlaySession, so that `play` drives either."""

    alone = False

    def __init__(self, db: sqlite_utils.Database, game: str, opponent: str, human: str | None, seed: int) -> None:
        self.db = db
        self.game = games.check_game(game)
        self.players = games.players(game)
        self.human = human or self.players[0]
        if self.human not in self.players:
            raise BadInput(f"--as must be one of {', '.join(self.players)} for {game}")
        self.opponent = opponent
        self.found = trees.tree(game)
        self.strategy = hidden.strategy_of(db, game, opponent, self.found)
        self.rng = random.Random(seed)
        games.seed_random(seed)
        self.state = games.initial(game)
        self.moves: list[str] = []
        self.decisions: list[tuple[str, str]] = []          # the person's: (view, move)
        self.result: str | None = None
        self.payoff = 0.0
        self._settle()

    def _step(self) -> field.Step:
        return field.at(self.game, self.state.key)

    def _settle(self) -> None:
        """Let chance deal until someone chooses, unseen (the person sees what it dealt them in their view)."""
        while self.result is None and self.state.mover == games.CHANCE:
            self._advance(games.choose(self.state, "chance"))

    def _advance(self, move: str) -> None:
        self.state = games.play(self.state, move)
        self.moves.append(move)
        step = self._step()
        if step.result is not None:
            self.payoff = step.end_points if step.result == "payoff" else (
                0.0 if step.result == "draw" else 1.0 if step.result == self.players[0] else -1.0)
            self.result = self.players[0] if self.payoff > 0 else self.players[1] if self.payoff < 0 else "draw"

    @property
    def human_to_move(self) -> bool:
        return self.result is None and self.state.mover == self.human

    @property
    def chance_to_move(self) -> bool:
        return False                            # chance deals unseen (_settle)

    def view(self) -> str:
        return field.view(self.game, self.state.key, self.human)

    def legal_moves(self) -> list[str]:
        return [m for m, _ in games.moves(self.state)]

    def board(self) -> list[str]:
        """What the person may see: their view while the game goes on, the whole position at its end."""
        if self.result is not None:
            return games.board(self.state)
        return [f"you ({self.human}) see: {self.view()}"]

    def human_move(self, text: str) -> str:
        if not self.human_to_move:
            raise BadInput("it is not your move")
        view = self.view()
        after = games.play(self.state, text.strip())              # BadInput first, if malformed or illegal
        move = next(m for m, s in games.moves(self.state) if s.key == after.key)    # its own text ('r': raise)
        self._advance(move)
        self.decisions.append((view, move))
        self._settle()
        return self.moves[-1]

    def computer_move(self) -> str:
        """The agent's move, chosen from its strategy at its own view; then chance deals, unseen."""
        mover = self.state.mover
        view = field.view(self.game, self.state.key, mover)
        i = self.found.set_of(self.players.index(mover), view)
        if i is None:
            raise BadInput(f"{self.game}: {mover} sees {view!r}, which the game's tree does not hold")
        a = int(self.found.slot0[i])
        weights = [float(w) for w in self.strategy[a:a + len(self.found.moves[i])]]
        move = self.rng.choices(self.found.moves[i], weights=weights)[0]
        self._advance(move)
        self._settle()
        return move

    def finish(self, source: str = "play", teach: bool = True) -> int:
        first, second = self.players
        names = (self.opponent, "human") if self.human == second else ("human", self.opponent)
        return store.record_match(self.db, self.game, names[0], names[1], self.moves, self.result, source)

    def review(self, may_solve: bool = True) -> dict[str, Any]:
        """The person's decisions against the equilibrium (its value of the move made and of the best),
        where the equilibrium is stored or can be found now (the linear program, unless ``may_solve`` is
        False), and the agent's exploitability."""
        digest = games.rules_hash(self.game)
        if equilibria.equilibrium_summary(self.db, self.game, digest) is None and (
                self.found.slots > hidden.LP_SLOTS or not may_solve):
            return {"decisions": None, "why": f"{self.game} is not solved yet (educable solve {self.game})"}
        solved = hidden.solve(self.db, self.game)
        out = []
        for view, move in self.decisions:
            rows = equilibria.information_set(self.db, self.game, view, self.human)
            values = {m: v for _, m, _, v in rows}
            best = max((v for v in values.values() if v is not None), default=None)
            out.append({"view": view, "move": move, "value": values.get(move), "best": best})
        judged = hidden.judge(self.db, self.game, self.opponent)
        mine = 1.0 if self.human == self.players[0] else -1.0
        return {"decisions": out, "payoff": mine * self.payoff, "value": mine * float(solved["value"]),
                "exploitability": judged["exploitability"]}
