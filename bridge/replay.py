"""A stored game (table ``matches``: from `play`, the page, `eval`, a tournament) stepped through:
each position with its board, the move played, its value for the player who made it against the
best value there, and the mistakes marked — a win thrown to a draw or a loss, a draw thrown to a
loss; in a game of chance or of score, any chance of winning or expected point given away (chance's own
moves are drawn, not valued).  Values are `query`'s: exact where the game is solved or small below the position, the
perfect player's on Connect Four, otherwise a depth-limited search (whose 'unknown' marks nothing).
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from educable.bridge import games, querying
from educable.bridge.engine import BadInput
from educable.kb import store

if TYPE_CHECKING:
    import sqlite_utils

RANK = {"win": 2, "draw": 1, "loss": 0}
MISTAKES = {("win", "draw"): "a win thrown to a draw", ("win", "loss"): "a win thrown to a loss",
            ("draw", "loss"): "a draw thrown to a loss"}


def stored_match(db: sqlite_utils.Database, match_id: int) -> dict[str, Any]:
    """Match ``match_id`` as stored; BadInput when there is none or it has no moves."""
    row = next(iter(db.query("SELECT * FROM matches WHERE id = ?", [match_id])), None)
    if row is None:
        raise BadInput(f"no match {match_id} in this knowledge base")
    try:
        moves = json.loads(row["moves"])
    except (TypeError, ValueError):
        raise store.bad_row("matches", f"match {match_id}", "moves is not JSON") from None
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise store.bad_row("matches", f"match {match_id}", "moves is not a list of move texts")
    if not moves:
        raise BadInput(f"match {match_id} has no moves stored (a series of `eval` keeps only its results)")
    return {**dict(row), "moves": moves}


def replay(db: sqlite_utils.Database, match_id: int) -> dict[str, Any]:
    """Every ply of match ``match_id``: position, board, mover, the move played with its value for
    the mover and the best value there, and the mistake it was (or None); and the final position."""
    match = stored_match(db, match_id)
    game = match["game"]
    state = games.initial(game)
    plies = []
    for k, move in enumerate(match["moves"]):
        if state.mover == games.CHANCE:     # chance draws: nothing to value, no mistake to make
            if move not in [m for m, _ in games.moves(state)]:
                raise store.bad_row("matches", f"match {match_id}", f"move {k + 1} ({move!r}) is not legal there")
            plies.append({"ply": k, "position": state.key, "board": games.board(state), "mover": state.mover,
                          "move": move, "value": "drawn by chance", "best": None, "values": {}, "source": "chance",
                          "mistake": None})
            state = games.play(state, move)
            continue
        q = querying.query(db, game, state.key, with_agents=False, quick=games.is_score_game(game))
        numbers = {m["move"]: m.get("value") for m in q["moves"]}      # chance or score: the mover's number
        words = {m["move"]: m["exact"] if numbers[m["move"]] is not None else word_for(m["exact"], state.mover)
                 for m in q["moves"]}
        if move not in words:
            raise store.bad_row("matches", f"match {match_id}", f"move {k + 1} ({move!r}) is not legal there")
        mine = numbers[move]
        if mine is not None:                # a game of chance or of score: the mover's chance or points
            top = max(v for v in numbers.values() if v is not None)
            best, played = next(words[m] for m, v in numbers.items() if v == top), words[move]
            lost = top - mine
            unit = "points" if games.is_score_game(game) else "percentage points of winning"
            mistake = f"{lost:.4g} {unit} given away" if lost > 1e-6 * max(1.0, abs(top)) else None
        else:
            best = max((w for w in words.values() if w in RANK), key=RANK.__getitem__, default=None)
            played = words[move]
            mistake = MISTAKES.get((best, played)) if best else None
        plies.append({"ply": k, "position": state.key, "board": games.board(state), "mover": state.mover,
                      "move": move, "value": played, "best": best, "values": words,
                      "source": q["exact_source"], "mistake": mistake})
        state = games.play(state, move)
    return {"match": match_id, "game": game, "first": match["first"], "second": match["second"],
            "result": match["result"], "source": match["source"], "played_at": match["played_at"],
            "plies": plies, "final": {"position": state.key, "board": games.board(state), "result": games.result(state)},
            "mistakes": sum(p["mistake"] is not None for p in plies)}


def word_for(exact: str, mover: str) -> str:
    """A move's exact result (a player, 'draw' or 'unknown') in the mover's words: win, draw, loss."""
    if exact == "draw":
        return "draw"
    if exact == "unknown":
        return "unknown"
    return "win" if exact == mover else "loss"


def recent_matches(db: sqlite_utils.Database, limit: int = 50) -> list[dict[str, Any]]:
    """The latest stored games that have moves, newest first."""
    return [dict(r) for r in db.query("SELECT id, game, first, second, result, source, played_at FROM matches "
                                      "WHERE moves != '[]' ORDER BY id DESC LIMIT ?", [limit])]
