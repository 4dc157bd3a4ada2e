"""`query`: everything known about a position, as the command line, the page and the library ask it.

Its own module, and importing only what a position's values need, because `educable query` on a
solved game starts as a command a person waits on: the stored values are read from the knowledge
base, and numpy, the compiler's solvers and the agents' modules are imported only where a query
needs them (a game of chance, a position searched below, an agent's values).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from educable.bridge import games, graphs, perfect
from educable.bridge.compile import TooLarge
from educable.bridge.engine import BadInput
from educable.bridge.registry import LEARNERS, SCORE_SCALE, VALUE_SCALES
from educable.kb import store

if TYPE_CHECKING:
    import sqlite_utils  # in annotations only: kb.db imports it when a database is opened

    from educable.learners.graph import StateGraph

DEFAULT_DEPTH = 5      # plies of query's alpha-beta search when a position is too large to solve


def chance_values(graph: StateGraph, keys: list[str], mover: str) -> tuple[dict[str, str], dict[str, float]]:
    """Each state's value under best play in a game of chance, in words: the first player's chance of
    winning, and where the game can be drawn the chance of a draw and the expected result; in a game of score, the score
    still to come.  A key that is a move of the graph's first node (``move:TEXT``) has the move's
    value: in a game of score, its points and the score expected after it.  Beside the words, the
    same value as a number for ``mover``, to compare moves by: its chance of winning in percent, its
    expected result, or the points.  The moves valued are those of ``keys[0]``'s node."""
    from educable.learners import chance
    solved = chance.solve(graph)
    value = solved.value
    first = graph.players[0]
    words, numbers = {}, {}
    for k in keys:
        v = float(value[graph.index[k]])
        p = solved.win_probability(graph, graph.index[k])
        if graph.scored or p is None:
            words[k], numbers[k] = f"{v:.4f} points to come", v
        elif solved.win is None:
            words[k], numbers[k] = f"{first} wins {p:.4%}", 100 * (p if mover == first else 1 - p)
        else:
            draw = solved.draw_probability(graph, graph.index[k])
            words[k] = f"{first} wins {p:.4%}, draw {draw:.4%} (expects {v:+.4f})"
            numbers[k] = v if mover == first else -v
    if graph.scored:
        at = graph.index[keys[0]]
        edges = range(int(graph.start[at]), int(graph.start[at + 1]))
        after = chance.move_values(graph, value)
        for e in edges:
            words[f"move:{graph.move_text[e]}"] = f"{after[e]:.4f} points expected"
            numbers[f"move:{graph.move_text[e]}"] = float(after[e])
    return words, numbers


CHANCE_DEPTH = 3       # of the players' moves, where query searches a game of chance by expectimax
QUICK_CHANCE_DEPTH = 2  # ... on the page (2048 on 4x4: a quarter of a second a position, 40 s at 3)
QUERY_AGENTS = 4       # agents whose values query shows when none is named: the game's most recent


def query(db: sqlite_utils.Database, game: str, position: str, depth: int = DEFAULT_DEPTH,
          agent_names: list[str] | None = None, with_agents: bool = True, quick: bool = False,
          progress: Callable[..., None] | None = None) -> dict[str, Any]:
    """Everything known about a state: board, mover, moves with their values, and learned agents' values.

    Values come from the stored solved graph when the game is solved (exact);
    otherwise from the graph below the position when it has at most
    graphs.QUERY_LIMIT positions (exact); otherwise from an alpha-beta
    search ``depth`` plies deep, labelled as such (``exact_source`` says
    which): a move's value is then a player who wins within that many
    plies, or ``unknown``.  On Connect Four with the perfect player
    installed, each move also has its perfect value (bitbully), and the
    exact values come from it where the search could not tell.

    ``agent_names``: whose learned values to show; by default the
    QUERY_AGENTS most recently trained agents of the game (``agents_more``
    says how many others there are).  ``quick`` (the page, a move at a
    time): at most graphs.QUICK_LIMIT positions below and a game of chance
    searched QUICK_CHANCE_DEPTH moves deep, an answer in a second or two.  ``progress(0, stage)``
    hears each stage of the work (enumerating below, searching).
    """
    def stage(words: str) -> None:
        if progress:
            progress(0, words)

    if not 1 <= depth <= 12:
        raise BadInput(f"--depth must be from 1 to 12 plies (got {depth})")
    if games.is_hidden(game):
        from educable.bridge import hidden
        with graphs.compiling_as_stage(progress, "solving: ") as compiling:
            return hidden.query(db, game, position, progress=compiling)
    state = games.parse(game, position)
    over = games.result(state)
    successors = games.moves(state)
    out: dict[str, Any] = {
        "game": game, "position": state.key, "to_move": state.mover, "board": games.board(state),
        "canonical": games.canonical(state), "result": over, "moves": [],
    }
    keys = [state.key] + [nxt.key for _, nxt in successors]
    if game == perfect.GAME and over is None and perfect.available():
        # the perfect player alone: never compile below the position (past the limit) nor search first
        values = perfect.position_values(state.key)
        first, second = games.two_players(game)
        name = {"win": state.mover, "draw": "draw", "loss": second if state.mover == first else first}
        out.update(perfect=values, exact_source="the perfect player (bitbully)",
                   exact=name[max(values.values(), key=lambda v: v["score"])["result"]])
        out["moves"] = [{"move": move, "next": nxt.key, "exact": name[values[move]["result"]], "plies": None}
                        for move, nxt in successors]
        out["agents"], out["agents_more"] = agent_values(db, game, state, agent_names) if with_agents else ([], 0)
        return out
    exact_of, out["exact_source"] = graphs.exact_results(db, game, keys), "stored"
    numbers: dict[str, float] | None = None      # a game of chance or of score: each value for the mover
    if exact_of is not None and not set(keys) <= set(exact_of):
        exact_of = None          # a position the solved game never reaches from its start: searched below
    solved = graphs.stored_chance_graph(db, game) if exact_of is None else None
    if solved is not None and all(k in solved.index for k in keys):
        (exact_of, numbers), out["exact_source"] = chance_values(solved, keys, state.mover), "stored"
    if exact_of is None:
        limit = graphs.QUICK_LIMIT if quick else graphs.QUERY_LIMIT
        stage(f"enumerating the game below the position, to solve it if it has at most {limit:,} positions")
        try:
            sub, _ = graphs.subgraph(game, state.key, limit)
            exact_of, out["exact_source"] = {k: store.exact_name(sub, sub.index[k]) for k in keys}, "searched"
        except graphs.ChanceGame as chance_game:
            (exact_of, numbers), out["exact_source"] = (chance_values(chance_game.graph, keys, state.mover),
                                                        "expectimax below this position")
        except TooLarge:
            out["exact_source"] = f"depth-limited search ({depth} plies)"
    if exact_of is None and state.mover == games.CHANCE:
        raise BadInput(f"{game}: a chance node too large to solve below; query the position a player moves in")
    if exact_of is None:
        out["depth"] = depth
        stage(f"too large to solve: searching {depth} plies deep")
        try:
            out["exact"], plies = games.search_results(state, depth)
        except BadInput as refused:
            if "chance" not in str(refused):
                raise
            out["depth"] = depth = min(depth, QUICK_CHANCE_DEPTH if quick else CHANCE_DEPTH)   # chance: expectimax
            out["exact_source"] = f"expectimax search ({depth} moves, the horizon valued 0)"
            stage(f"too large to solve: an expectimax search {depth} moves deep")
            expected = games.expectimax_values(state, depth)
            out["exact"] = f"{state.mover} expects {max(expected.values()):+.4f}"
            plies = {m: (f"{state.mover} expects {v:+.4f}", None) for m, v in expected.items()}
            numbers = dict(expected)
        for move, nxt in successors:
            out["moves"].append({"move": move, "next": nxt.key, "exact": plies[move][0], "plies": plies[move][1]})
            if numbers is not None:
                out["moves"][-1]["value"] = numbers[move]
    else:
        out["exact"] = exact_of[state.key]
        for move, nxt in successors:
            out["moves"].append({"move": move, "next": nxt.key, "exact": exact_of.get(f"move:{move}", exact_of[nxt.key])})
            if numbers is not None:
                out["moves"][-1]["value"] = numbers.get(f"move:{move}", numbers[nxt.key])
    out["agents"], out["agents_more"] = (agent_values(db, game, state, agent_names, finished=over is not None)
                                         if with_agents else ([], 0))
    return out


def agent_values(db: sqlite_utils.Database, game: str, state: games.State,
                 names: list[str] | None = None, finished: bool = False) -> tuple[list[dict[str, Any]], int]:
    """The learned values for the state's moves of the agents ``names`` (BadInput for one that is not
    a learned agent of the game), or of the game's QUERY_AGENTS most recently trained; and how many
    of the game's learned agents are not shown.  A ``finished`` state has no moves to value: the
    agents are listed (and checked) with no values."""
    every = store.list_agents(db, game)
    if not every and not names:
        return [], 0
    from educable.bridge import agents
    rows = [row for row in every if row["learner"] in LEARNERS]
    if names:
        by_name = {row["name"]: row for row in rows}
        stored = {row["name"]: row for row in every}
        for name in names:
            if name not in by_name:
                if name in stored:
                    agents.learner_of(stored[name])     # an unknown learner says so
                    raise BadInput(f"'{name}' is a rule-set agent: it has no learned values to show "
                                   f"(educable agents {name} --rules shows its rules)")
                agents.check_agent(db, game, name)      # the one-line reason: unknown, another game, ...
                raise BadInput(f"'{name}' has no learned values to show (it is a built-in player)")
        chosen = [by_name[name] for name in dict.fromkeys(names)]
    else:
        chosen = sorted(rows, key=lambda r: (r["updated"] or r["created"] or ""), reverse=True)[:QUERY_AGENTS]
    scored = games.is_score_game(game)
    out = [{"agent": row["name"], "learner": row["learner"], "values": {} if finished else agents.move_values(db, row, state),
            "scale": SCORE_SCALE if scored else VALUE_SCALES.get(row["learner"])} for row in chosen]
    if not names:                       # an agent no learner of this educable reads is named, not dropped
        out += [{"agent": row["name"], "learner": row["learner"], "values": {},
                 "note": f"made by learner '{row['learner']}', which this educable does not know"}
                for row in every if row["learner"] not in agents.known_learners()]
    return out, len(rows) - len(chosen)
