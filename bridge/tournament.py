"""`educable tournament`: a round robin between agents and built-in players, with ratings.

Every pair plays ``games`` games, half with each side first (commands.evaluate_series, so every game
is also stored in ``matches``).  Ratings are Bradley–Terry on the Elo scale (a draw counts half a
win for each side), fitted by Newton's method with the mean rating 0, each with its 95% interval from
the fit's curvature; a player that won (or lost) every game has no finite rating, and its interval
says so.  On a game whose state graph fits the position limit, each player's exact judgement (what it
guarantees on each side against a best responder) is put beside its rating.  The whole tournament is
stored in the knowledge base (table ``tournaments``).
"""
from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from educable.bridge import agents, commands, games
from educable.bridge.engine import BadInput
from educable.kb import store
from educable.kb.db import transaction

if TYPE_CHECKING:
    import sqlite_utils

ELO = 400 / math.log(10)          # Bradley–Terry strengths on the Elo scale
MAX_PLAYERS = 16


def ratings(names: list[str], score: np.ndarray, played: np.ndarray) -> list[dict[str, Any]]:
    """Bradley–Terry ratings (Elo scale, mean 0) from ``score[i, j]`` (points i took from j: a win 1,
    a draw 1/2) and ``played[i, j]`` games, with 95% intervals; None where the fit has no finite value
    (a player who won or lost everything)."""
    n = len(names)
    total = score.sum(axis=1)
    games = played.sum(axis=1)
    finite = (total > 0) & (total < games)
    idx = np.flatnonzero(finite)
    s, g = score[np.ix_(idx, idx)], played[np.ix_(idx, idx)]      # among the players with finite ratings
    r = np.zeros(len(idx))
    for _ in range(200):                                  # Newton's method, the last rating held at 0
        if len(idx) < 2:
            break
        p = 1 / (1 + np.exp(r[None, :] - r[:, None]))    # p[i, j]: i beats j
        grad = (s - g * p).sum(axis=1)
        w = g * p * (1 - p)
        hess = w - np.diag(w.sum(axis=1))
        step = np.linalg.lstsq(hess[:-1, :-1], grad[:-1], rcond=None)[0]
        r[:-1] -= step
        if np.abs(step).max() < 1e-10:
            break
    r -= r.mean() if len(r) else 0.0
    cov: np.ndarray = np.zeros((len(idx), len(idx)))
    if len(idx) > 1:
        p = 1 / (1 + np.exp(r[None, :] - r[:, None]))
        w = g * p * (1 - p)
        cov = np.linalg.pinv(np.diag(w.sum(axis=1)) - w)  # the mean-0 constraint: the pseudo-inverse
    rating = np.zeros(n)
    var = np.zeros(n)
    rating[idx], var[idx] = r, np.diag(cov)
    out = []
    for i, name in enumerate(names):
        if finite[i] and len(idx) > 1:
            se = math.sqrt(max(float(var[i]), 0.0)) * ELO
            elo = float(rating[i]) * ELO
            out.append({"player": name, "rating": round(elo, 1),
                        "interval95": [round(elo - 1.96 * se, 1), round(elo + 1.96 * se, 1)]})
        else:
            out.append({"player": name, "rating": None, "interval95": None,
                        "why": "won every game" if total[i] == games[i] else "lost every game" if total[i] == 0
                        else "too few players with finite ratings"})
    return out


def run(db: sqlite_utils.Database, game: str, players: list[str], n_games: int, seed: int,
        progress: Callable[..., None] | None = None) -> dict[str, Any]:
    """The round robin of ``players`` on ``game``, ``n_games`` games a pairing; stored and returned
    (``progress(n)`` after each game; ``progress(0, stage)`` names a stage that has no games)."""
    games.two_players(game)
    if len(players) < 2:
        raise BadInput("a tournament needs at least two players")
    if len(players) > MAX_PLAYERS:
        raise BadInput(f"a tournament takes at most {MAX_PLAYERS} players")
    if len(set(players)) != len(players):
        raise BadInput("a player is named twice")
    if n_games < 2:
        raise BadInput("--games must be at least 2 (half are played with each side first)")
    for name in players:
        agents.check_agent(db, game, name)         # every name checked before any game is played
    n = len(players)
    score, played = np.zeros((n, n)), np.zeros((n, n))
    pairings = []
    for k, (i, j) in enumerate(itertools.combinations(range(n), 2)):
        r = commands.evaluate_series(db, game, players[i], players[j], n_games, seed + 2 * k, progress)
        wins = r["as_first"]["win"] + r["as_second"]["win"]
        draws = r["as_first"]["draw"] + r["as_second"]["draw"]
        losses = r["as_first"]["loss"] + r["as_second"]["loss"]
        score[i, j], score[j, i] = wins + draws / 2, losses + draws / 2
        played[i, j] = played[j, i] = n_games
        pairings.append({"players": [players[i], players[j]], "wins": wins, "draws": draws, "losses": losses})
    table = ratings(players, score, played)
    if progress is not None:
        progress(0, f"judging each of the {n} players exactly")
    exact = judged(db, game, players)
    for row in table:
        row["score"] = round(float(score[players.index(row["player"])].sum()
                                   / played[players.index(row["player"])].sum()), 4)
        if exact is not None:
            row["exact"] = exact[row["player"]]
    cross = {a: {b: (round(float(score[i, j] / played[i, j]), 4) if i != j else None)
                 for j, b in enumerate(players)} for i, a in enumerate(players)}
    out = {"game": game, "players": players, "games": n_games, "seed": seed, "pairings": pairings,
           "ratings": sorted(table, key=lambda r: (r["rating"] is None, -(r["rating"] or 0), -r["score"])),
           "cross": cross}
    with transaction(db):
        out["tournament"] = db.conn.execute(
            "INSERT INTO tournaments (game, players, games, seed, results, started) VALUES (?, ?, ?, ?, ?, ?)",
            (game, json.dumps(players), n_games, seed, json.dumps(out), store.now())).lastrowid
    return out


def judged(db: sqlite_utils.Database, game: str, players: list[str]) -> dict[str, Any] | None:
    """Each player's exact judgement (what it guarantees as first and as second), or None where the
    game's graph does not fit the position limit (or its positions repeat)."""
    try:
        out = {}
        for name in players:
            e = commands.evaluate_exact(db, game, name)
            out[name] = {side: {"guaranteed": e[side]["guaranteed"], "perfect": e[side]["perfect"]}
                         for side in ("as_first", "as_second")}
        return out
    except BadInput:
        return None


def stored(db: sqlite_utils.Database, limit: int = 20) -> list[dict[str, Any]]:
    """The latest stored tournaments, newest first, each as `tournament --json` printed it."""
    out = []
    for row in db.query("SELECT id, results, started FROM tournaments ORDER BY id DESC LIMIT ?", [limit]):
        results = store.json_object(row["results"])
        problem = store.tournament_results_problem(results)
        if results is None or problem is not None:
            raise store.bad_row("tournaments", f"tournament {row['id']}", problem or "results is not a JSON object")
        out.append({**results, "tournament": row["id"], "started": row["started"]})
    return out

