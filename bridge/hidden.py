"""Commands on games of hidden information (a file that gives sees/4): solve, query, exact judgement.

The game's tree is compiled from Prolog as any state graph (bridge/compile.py, each node with its
mover's view), its information sets checked (learners/hidden.py: a tree, moves that depend on the
view alone, perfect recall), and solved by the sequence-form linear program where its sequences fit,
else by CFR+ to a stated exploitability.  The equilibrium is stored per information set
(kb/equilibria.py); ``query`` reads it back without the tree.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from educable.bridge import games
from educable.bridge.compile import ProgressFn
from educable.bridge.engine import BadInput, engine, quote
from educable.bridge.trees import tree
from educable.kb import equilibria

if TYPE_CHECKING:
    import sqlite_utils

    from educable.learners.hidden import InfoGame

LP_SLOTS = 60_000          # both players' sequences: the linear program up to here (Leduc's 2,184: 0.24 s; Liar's
#                            Dice's 49,140: 6 s), CFR+ past it
CFR_TARGET = 1e-6          # the exploitability CFR+ solves to where the linear program is too large
CFR_MOST = 20_000          # iterations CFR+ may take to reach it
TOP_GAINS = 3              # information sets named where a best response gains most

def solve(db: sqlite_utils.Database, game: str, limit: int | None = None, progress: ProgressFn | None = None,
          stage: Callable[[str], None] | None = None) -> dict[str, Any]:
    """An equilibrium of ``game`` and its value, found (or read back) and stored per information set."""
    t0 = time.perf_counter()
    digest = games.rules_hash(game)
    stored = equilibria.equilibrium_summary(db, game, digest)
    if stored is not None:
        return {"game": game, "hidden": True, **stored, "stored": True, "seconds": round(time.perf_counter() - t0, 4)}
    found = tree(game, limit, progress)
    from educable.learners import hidden
    if found.slots <= LP_SLOTS:
        if stage:
            stage(f"the sequence-form linear program: {found.slots:,} sequences")
        eq = hidden.equilibrium(found)
        strategy, exploit, method = eq.strategy, eq.exploitability, "sequence-form LP (HiGHS)"
    else:
        state = hidden.CFRState.fresh(found)
        reached: list[float] = []

        def report(s: hidden.CFRState) -> bool:
            reached.append(hidden.exploitability(found, s.average(found))[0])
            if stage:
                stage(f"CFR+: {s.iterations:,} iterations, exploitability {reached[-1]:.2e} (to {CFR_TARGET:g})")
            return reached[-1] <= CFR_TARGET
        hidden.cfr_plus(found, state, CFR_MOST, every=100, report=report)
        strategy, exploit = state.average(found), reached[-1]
        method = f"CFR+ ({state.iterations:,} iterations)"
    value = hidden.expected_payoff(found, strategy)
    values = hidden.move_values(found, strategy)
    summary = {"players": found.graph.players, "positions": found.graph.size, "information_sets": found.sets,
               "value": value, "exploitability": exploit, "method": method,
               "seconds": round(time.perf_counter() - t0, 4)}
    equilibria.save_equilibrium(db, game, digest, summary, strategy_rows(found, strategy, values))
    return {"game": game, "hidden": True, **summary, "stored": False}


def strategy_rows(found: InfoGame, strategy: np.ndarray,
                  values: np.ndarray | None = None) -> list[tuple[str, str, str, float, float | None]]:
    """(player, view, move, probability, value or None) for every slot."""
    import math
    players = found.graph.players
    out = []
    for i, view in enumerate(found.key):
        a = int(found.slot0[i])
        for j, move in enumerate(found.moves[i]):
            v = None if values is None or math.isnan(values[a + j]) else float(values[a + j])
            out.append((players[int(found.player[i])], view, move, float(strategy[a + j]), v))
    return out


def view_of(game: str, position: str) -> tuple[str, str]:
    """The player to move in a position given as text, and its view there (sees/4); BadInput for a
    position where chance moves or the game is over."""
    g = quote(games.check_game(game))
    mover, view, over = engine().call(
        f"game:parse_position({g}, {quote(position)}, P, M), "
        f"( game:over({g}, P, M, _) -> O = true ; O = false ), "
        f"( game:chance_mover(M) -> V = '' ; game:sees({g}, P, M, V) ), "
        f"Out = [M, V, O]")
    if over:
        raise BadInput(f"{game}: the game is over at {position!r}: nobody moves there")
    if not view:
        raise BadInput(f"{game}: chance moves at {position!r}: query a position where a player moves")
    return mover, view


def query(db: sqlite_utils.Database, game: str, text: str, player: str | None = None,
          limit: int | None = None, progress: ProgressFn | None = None) -> dict[str, Any]:
    """Each move's probability in the stored equilibrium (solving first if needed) and its value, at
    the information set named by ``text``: a view (sees/4's text) or a position (its mover's view)."""
    solved = solve(db, game, limit, progress)
    rows = equilibria.information_set(db, game, text, player)
    source = "view"
    if not rows:
        try:
            mover, view = view_of(game, text)
        except BadInput as exc:
            raise BadInput(f"{game}: {text!r} is no information set (a view, as sees/4 writes it) of "
                           f"{player or ' or '.join(games.players(game))}, and as a position: {exc}") from None
        rows = equilibria.information_set(db, game, view, mover)
        text, source = view, f"position {text!r}"
    if not rows:
        raise BadInput(f"{game}: no player ever sees {text!r}")
    players = sorted({r[0] for r in rows})
    if len(players) > 1:
        raise BadInput(f"{game}: {text!r} is an information set of {' and of '.join(players)}: say which with --as")
    return {"game": game, "information_set": text, "player": players[0], "from": source,
            "value": solved["value"], "exploitability": solved["exploitability"], "method": solved["method"],
            "moves": [{"move": m, "probability": p, "value": v} for _, m, p, v in rows]}


def strategy_of(db: sqlite_utils.Database, game: str, agent: str, found: InfoGame) -> np.ndarray:
    """An agent's strategy on the tree: `random` plays each move alike, `equilibrium` the stored
    equilibrium, a `cfr` agent its average strategy (uniform in a set it never stored)."""
    from educable.kb.store import get_agent

    strategy = found.uniform()
    if agent == "random":
        return strategy
    from educable.bridge import outside
    if outside.named(agent):
        return _policy_strategy(game, agent, found, strategy)
    if agent == "equilibrium":
        solve(db, game)
        rows = db.conn.execute("SELECT player, information_set, move, probability FROM equilibrium_moves "
                               "WHERE game = ?", (game,)).fetchall()
        table: dict[tuple[str, str], list[tuple[str, Any]]] = {}
        for p, view, move, prob in rows:
            table.setdefault((p, view), []).append((move, prob))
        for (p, view), moves in table.items():
            equilibria.check_probabilities(f"the equilibrium of {game}", p, view, moves)
    else:
        row = get_agent(db, agent)
        if row is None or row["game"] != game:
            raise BadInput(f"no agent '{agent}' for {game} (a game of hidden information: random, equilibrium, "
                           "or an agent of the cfr or qlearn learner)")
        if row["learner"] == "qlearn":          # its greedy play: the moves of the highest Q alike
            return _greedy_of(db, agent, found, strategy)
        if row["learner"] != "cfr":
            raise BadInput(games.hidden_refusal(game, f"agent {agent!r} of the {row['learner']} learner sees every card"))
        table = equilibria.strategy_rows(db, agent)
    players = found.graph.players
    for (p, view), moves in table.items():
        if p not in players:
            continue
        i = found.set_of(players.index(p), view)
        if i is None:
            continue
        a = int(found.slot0[i])
        given = dict(moves)
        if set(given) != set(found.moves[i]):
            raise BadInput(f"{agent}: {p}'s information set {view!r} holds the moves {sorted(given)}, but the game's "
                           f"are {sorted(found.moves[i])} (the rules changed since it learned?)")
        for j, move in enumerate(found.moves[i]):
            strategy[a + j] = float(given[move])
    return strategy


def judge(db: sqlite_utils.Database, game: str, agent: str, limit: int | None = None,
          progress: ProgressFn | None = None, vs: str | None = None) -> dict[str, Any]:
    """An agent's exact judgement on a game of hidden information: its exploitability (OpenSpiel's:
    NashConv / 2), what it guarantees on each side against a best response beside the game's value,
    and the information sets where the best response gains most.  With ``vs``: the agent's expected
    payoff against that player on each side, exactly."""
    from educable.learners import hidden

    found = tree(game, limit, progress)
    solved = solve(db, game, limit)
    strategy = strategy_of(db, game, agent, found)
    value = float(solved["value"])
    players = found.graph.players
    if vs is not None:
        other = strategy_of(db, game, vs, found)
        mine0 = np.where(found.player[found.slot_set] == 0, strategy, other)
        mine1 = np.where(found.player[found.slot_set] == 1, strategy, other)
        return {"game": game, "agent": agent, "vs": vs, "hidden": True, "value": value,
                "as_first": {"player": players[0], "expected": hidden.expected_payoff(found, mine0)},
                "as_second": {"player": players[1], "expected": -hidden.expected_payoff(found, mine1)}}
    br = [hidden.best_response(found, strategy, p) for p in (0, 1)]
    exploit = (br[0].value + br[1].value) / 2.0
    gains = []
    balanced = strategy_of(db, game, "equilibrium", found)
    for responder in (0, 1):        # the best responder's sets: what its move gains there over equilibrium play
        mixed = np.where(found.player[found.slot_set] == responder, balanced, strategy)
        regrets, choice = hidden.set_regrets(found, mixed, responder)
        for i in np.flatnonzero((found.player == responder) & (regrets > 1e-12)).tolist():
            gains.append({"player": players[responder], "information_set": found.key[i], "gain": float(regrets[i]),
                          "best_move": found.moves[i][int(choice[i] - found.slot0[i])]})
    gains.sort(key=lambda g: -g["gain"])
    sides = {}
    for side, me, guard in (("as_first", 0, -br[1].value), ("as_second", 1, -br[0].value)):
        best = value if me == 0 else -value
        sides[side] = {"player": players[me], "guaranteed": guard, "value": best,
                       "given_away": max(0.0, best - guard)}       # (never below the value but by rounding)
    return {"game": game, "agent": agent, "hidden": True, "exploitability": exploit, "nash_conv": 2 * exploit,
            "value": value, **sides, "expected_vs_itself": hidden.expected_payoff(found, strategy),
            "best_response_gains": gains[:TOP_GAINS]}


def _greedy_of(db: sqlite_utils.Database, agent: str, found: InfoGame, strategy: np.ndarray) -> np.ndarray:
    """A Q-learning agent's greedy strategy on views (uniform where it stored nothing)."""
    from educable.kb.store import load_values
    from educable.learners.hidden import greedy

    q = np.zeros(found.slots)
    players = found.graph.players
    for position, move, value, _ in load_values(db, agent):
        player, _, view = str(position).partition(" | ")
        i = found.set_of(players.index(player), view) if player in players else None
        if i is not None and move in found.moves[i]:
            q[int(found.slot0[i]) + found.moves[i].index(move)] = float(value)
    return greedy(found, q)


def _policy_strategy(game: str, agent: str, found: InfoGame, strategy: np.ndarray) -> np.ndarray:
    """A policy from Python asked once an information set: it sees ``{"information_state": view,
    "player", "legal": moves, "action_mask"}`` (actions numbered by actions/2, as openspiel_game's) and
    answers an action's number, or probabilities (a sequence over every action, or a mapping from
    action numbers): OpenSpiel's TabularPolicy of openspiel_game(GAME) is judged as it plays."""
    import math

    from educable.bridge import field, outside
    actions = list(field.actions(game))
    policy = outside.policy(agent)
    players = found.graph.players
    for i in range(found.sets):
        moves = found.moves[i]
        mask = np.zeros(len(actions), dtype=np.int8)
        mask[[actions.index(m) for m in moves]] = 1
        where = f"{players[int(found.player[i])]}'s information set {found.key[i]!r}"
        try:
            answer = policy({"information_state": found.key[i], "player": players[int(found.player[i])],
                             "legal": list(moves), "action_mask": mask})
        except BadInput:
            raise
        except Exception as exc:
            raise BadInput(f"player '{agent}' failed at {where}: {type(exc).__name__}: {exc}") from None
        probs = np.zeros(len(actions))
        try:
            if isinstance(answer, dict):
                for k, v in answer.items():
                    probs[int(k)] = float(v)
            elif np.ndim(answer) == 0:
                probs[int(answer)] = 1.0
            else:
                probs[:] = np.asarray(answer, dtype=np.float64).reshape(len(actions))
        except (TypeError, ValueError, IndexError, OverflowError):
            raise BadInput(f"player '{agent}' answered {str(answer)[:80]} at {where}: an action's number or "
                           f"probabilities over the {len(actions)} actions") from None
        if not np.isfinite(probs).all() or (probs < 0).any() or (probs[mask == 0] > 1e-12).any() \
                or not math.isclose(float(probs.sum()), 1.0, abs_tol=1e-9):
            raise BadInput(f"player '{agent}' answered {str(answer)[:80]} at {where}: probabilities of its legal "
                           f"actions ({', '.join(str(actions.index(m)) for m in moves)}), adding up to 1")
        a = int(found.slot0[i])
        strategy[a:a + len(moves)] = [probs[actions.index(m)] for m in moves]
    return strategy
