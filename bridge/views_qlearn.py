"""Q-learning on a game of hidden information: the CA425 practical's table Q(x, a), its state x a
player's view (its information set), learned by self-play or against random play through the game's
tree (the loop in numba: learners/hidden.q_views_games).  It runs, and its exact judgement, the
exploitability of its greedy play, says how far a table of views falls short of an equilibrium (a
greedy player never mixes, and poker needs mixing).

An agent's table is stored as learned values: position ``PLAYER | VIEW``, the move, Q and its visits.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from educable.bridge import hidden, trees
from educable.bridge.engine import BadInput
from educable.kb import store
from educable.learners.training import TrainingRun

if TYPE_CHECKING:
    import sqlite_utils

NAME = "qlearn"
TAKEN = ("alpha", "gamma", "epsilon", "epsilon_end")      # the Q-learning options that apply to views
DEFAULT_EPSILON = 0.2


def run(db: sqlite_utils.Database, game: str, name: str, options: dict[str, Any], vs: str, side: str,
        n_games: int, seed: int, progress: Callable[..., None] | None = None) -> TrainingRun:
    """Train AGENT's table of views for ``n_games`` (commands.train stores and judges it)."""
    from educable.learners import hidden as algo

    other = sorted(k for k in options if k not in TAKEN)
    if other:
        raise BadInput(f"--{other[0].replace('_', '-')}: on a game of hidden information Q-learning takes only "
                       "--alpha, --gamma, --epsilon and --epsilon-end (its state is the player's view; the update "
                       "backs up the player's next view, as the practical's lookahead)")
    if vs not in ("self", "random"):
        raise BadInput(f"{game} is a game of hidden information: Q-learning trains there by self-play or "
                       "against random play (--vs self or random)")
    row = store.get_agent(db, name)
    if row is not None and (row["learner"], row["game"]) != (NAME, game):
        raise BadInput(f"agent '{name}' is a {row['learner']} agent of {row['game']}; choose another name")
    params = {**(row["params"] if row else {}), **{k: v for k, v in options.items() if k in ("alpha", "gamma")}}
    found = trees.tree(game)
    players = found.graph.players
    q = np.zeros(found.slots)
    visits = np.zeros(found.slots)
    slots = hidden.strategy_rows(found, q)          # slot k is the k-th row: sets in order, their moves in order
    if row is not None:
        at = {key: (value, seen) for key, value, seen in _stored(db, name)}
        for k, (p, view, move, _, _) in enumerate(slots):
            q[k], visits[k] = at.get((p, view, move), (0.0, 0))
    learns = np.array([1, 1] if vs == "self" else [1 if side in ("first", "both") else 0,
                                                   1 if side in ("second", "both") else 0], dtype=np.int64)
    eps = options.get("epsilon", DEFAULT_EPSILON)
    eps_end = options.get("epsilon_end", eps)
    g = found.graph
    chance = g.prob if g.prob is not None else np.ones(len(g.target))
    t0 = time.perf_counter()
    payoffs = algo.q_views_games(g.start, g.target, g.mover.astype(np.int64), found.edge_slot, chance, found.payoff,
                                 found.node_set, found.slot0, np.array([len(m) for m in found.moves], dtype=np.int64),
                                 found.slot_set, q, visits, n_games, seed, float(params.get("alpha") or 0.0),
                                 float(eps), float(eps_end), float(params.get("gamma", 1.0)), learns, vs == "random")
    seconds = time.perf_counter() - t0
    if progress:
        progress(n_games)
    results = [players[0] if x > 0 else players[1] if x < 0 else "draw" for x in payoffs.tolist()]
    mine = [players[p] for p in (0, 1) if learns[p]]
    rows = [(f"{p} | {view}", move, float(q[k]), int(visits[k])) for k, (p, view, move, _, _) in enumerate(slots)]

    def save(run: dict[str, Any]) -> None:
        store.save_agent(db, name, game, NAME, params, rows, n_games, run)
    return TrainingRun(results, [mine] * n_games, seconds, params, save,
                       {"views": True, "mean_payoff": float(payoffs.mean()) if n_games else 0.0})


def _stored(db: sqlite_utils.Database, name: str) -> list[tuple[tuple[str, str, str], float, int]]:
    """An agent's stored table: ((player, view, move), Q, visits)."""
    out = []
    for position, move, value, seen in store.load_values(db, name):
        player, _, view = str(position).partition(" | ")
        out.append(((player, view, move), float(value), int(seen)))
    return out
