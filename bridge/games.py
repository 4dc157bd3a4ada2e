"""Games through the bridge: typed Python calls over the Prolog protocol.

Positions and moves cross as their text forms (the game file defines them),
so Python never holds a game's own terms.  Per-move calls here are for
interactive play and queries; training uses the state graph (bridge/graphs.py).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from educable.bridge.engine import RULES_DIR, BadInput, engine, quote
from educable.bridge.errors import UnknownGame
from educable.bridge.registry import SCORE_LEARNERS

if TYPE_CHECKING:              # numpy and the graphs only in annotations: `show` and `play` start without them
    import numpy as np

    from educable.learners.graph import StateGraph


GRAPH_FORMAT = "2"      # bump when compilation changes what a stored graph holds


_HASHES: dict[str, str] = {}


def rules_hash(game: str) -> str:
    """A hash of the files that define ``game``'s rules (its own file, a GDL game's sheet, and the
    protocol) and of the stored graphs' format: a stored graph or solution is used only with the
    rules it came from.  Read once per process (every graph lookup asks for it)."""
    if game not in _HASHES:
        g = quote(check_game(game))
        _HASHES[game] = _digest(engine().call(f"findall(F, {_rule_file(g)}, Out)"))
    return _HASHES[game]


def _rule_file(g: str) -> str:
    """A Prolog goal binding F to each file that defines the game quoted ``g``."""
    return (f"((game:protocol_clause(players({g}, _), Body, R), catch(Body, _, fail), "
            f"clause_property(R, file(F))) ; gdl:gdl_file({g}, F))")


def _digest(files: list[str]) -> str:
    digest = hashlib.sha256(GRAPH_FORMAT.encode())
    for path in sorted(set(files)) + [str(RULES_DIR / "game.pl")]:
        digest.update(_file_bytes(path))
    return digest.hexdigest()


@cache
def _file_bytes(path: str) -> bytes:
    return Path(path).read_bytes()


def catalog(names: list[str]) -> dict[str, dict[str, Any]]:
    """For each game of ``names``, in one query: why it cannot be played (``unplayable``, as
    unplayable/1 says; or ``fails``: its players/2 or initial/3 fails or throws), else its players
    and start; its rules' hash remembered as rules_hash finds it (`educable games` asked five queries
    a game)."""
    listed = "[" + ", ".join(quote(n) for n in names) + "]"
    rows = engine().call(
        f"findall([G, W, Ps, K, Fs], ( member(G, {listed}), "
        f"( catch(check:unplayable(G, Why0), E0, term_to_atom(E0, Why0)) -> W = [unplayable, Why0], Ps = null, "
        f"K = null, Fs = [] ; catch(( game:players(G, Ps), game:initial(G, P, M), game:position_text(G, P, M, K) ), "
        f"_, fail) -> W = null, findall(F, {_rule_file('G')}, Fs) ; W = [fails, ''], Ps = null, K = null, Fs = [] ) "
        f"), Out)")
    out: dict[str, dict[str, Any]] = {}
    for g, why, players_, key, files in rows:
        if why is not None:
            out[g] = {why[0]: why[1]}
            continue
        _HASHES.setdefault(g, _digest(files))
        out[g] = {"players": players_, "initial": key}
    return out


@dataclass(frozen=True)
class State:
    """A position with the player to move, in the game's text form."""

    game: str
    key: str
    mover: str


def games() -> list[str]:
    """Names of the games found under rules/games/."""
    return sorted(engine().call("findall(G, game:game(G), Out)"))


@cache
def check_game(game: str) -> str:
    """Return ``game`` if it is a game (listed, or a member of a family such as connect(3,5,4)) that
    can be played (two players, a start), else raise BadInput saying why."""
    why = unplayable(known_game(game))
    if why is not None:
        raise BadInput(f"game '{game}' cannot be played: {why} (educable check '{game}' says more)")
    return game


def unplayable(game: str) -> str | None:
    """Why a known game cannot be played at all (its players/2 or initial/3 breaks the protocol),
    or None when it can."""
    return engine().call(f"( check:unplayable({quote(game)}, Why) -> Out = Why ; Out = null )")


def known_game(game: str) -> str:
    """Return ``game`` if a game file defines it, playable or not (what `check` looks at); else
    BadInput listing the known ones."""
    if any(c.isdigit() and not c.isascii() for c in game):      # Prolog reads ٣ as 3: one game, two names
        raise UnknownGame(f"unknown game '{game}': a family's numbers are written in ASCII digits (0-9)", game)
    if not engine().call(f"( game:game({quote(game)}) -> Out = true ; Out = false )"):
        broken = {Path(f).stem: (f, m) for f, m in engine().broken.items()}
        if game in broken:
            raise BadInput(f"game '{game}': {broken[game][0]} did not load: {broken[game][1]}")
        from educable.bridge.files import game_folders
        searched = " and ".join(str(f) for f in game_folders())
        raise UnknownGame(f"unknown game '{game}' (known: {', '.join(games())}; families take their numbers, "
                          f"e.g. connect(3,5,4), hexapawn(4,5), pig(50,6); searched {searched}; another folder: "
                          "--games-dir FOLDER)", game)
    return game


@cache
def players(game: str) -> list[str]:
    """The players in turn order."""
    return engine().call(f"game:players({quote(check_game(game))}, Out)")


def is_score_game(game: str) -> bool:
    """Whether ``game`` is a game of score: one player, who seeks the highest expected score."""
    return len(players(game)) == 1


@cache
def is_hidden(game: str) -> bool:
    """Whether ``game`` is a game of hidden information: its file says what each player sees (sees/4)."""
    return bool(engine().call(f"( game:declares({quote(check_game(game))}, sees) -> Out = true ; Out = false )"))


HIDDEN_COMMANDS = "solve, query, play, eval --exact, judge, the cfr learner and qlearn (on views)"


def hidden_refusal(game: str, what: str) -> str:
    """The one line for a command or player that does not know games of hidden information: ``what``
    names it ("minimax sees every card")."""
    return (f"{game} is a game of hidden information: {HIDDEN_COMMANDS} know it ({what}; "
            "docs/hidden.md says what works)")


def two_players(game: str) -> tuple[str, str]:
    """The two players in turn order; BadInput in one line for a game of score (one player), which
    tournaments and most learners do not know yet."""
    found = players(game)
    if len(found) != 2:
        raise BadInput(score_game_refusal(game))
    return found[0], found[1]


def score_game_refusal(game: str) -> str:
    """The one line for a command that does not know games of score yet."""
    learners = " and ".join(SCORE_LEARNERS)
    return (f"{game} is a game of score (one player): solve, query, show, check, play, eval and the {learners} learners "
            "know it (ntuple where it slides tiles as 2048); the other learners and tournaments do not yet")


def initial(game: str) -> State:
    """The initial state."""
    key, mover = engine().call(
        f"game:initial({quote(check_game(game))}, P, M), game:position_text({quote(game)}, P, M, K), Out = [K, M]")
    return State(game, key, mover)


def _pos(state: State) -> str:
    """A goal prefix binding P and M to the state's position and mover."""
    return f"game:parse_position({quote(state.game)}, {quote(state.key)}, P, M)"


def parse(game: str, text: str) -> State:
    """Parse a position's text; BadInput on malformed text. The key is normalised."""
    g = quote(check_game(game))
    key, mover = engine().call(
        f"game:parse_position({g}, {quote(text)}, P, M), game:position_text({g}, P, M, K), Out = [K, M]")
    return State(game, key, mover)


def result(state: State) -> str | None:
    """The winner or ``draw`` if the game is over, else None."""
    g = quote(state.game)
    return engine().call(f"{_pos(state)}, ( game:over({g}, P, M, R) -> Out = R ; Out = null )")


def moves(state: State) -> list[tuple[str, State]]:
    """The legal moves with the state each leads to ([] when over)."""
    g = quote(state.game)
    triples = engine().call(
        f"{_pos(state)}, game:successors({g}, P, M, S), "
        f"findall([MT, K, M1], (member(Mv-(P1/M1), S), game:move_text({g}, Mv, MT), "
        f"game:position_text({g}, P1, M1, K)), Out)")
    return [(mt, State(state.game, k, m1)) for mt, k, m1 in triples]


def play(state: State, move_text: str) -> State:
    """The state after ``move_text``; BadInput if the move is malformed or illegal."""
    g = quote(state.game)
    key, mover = engine().call(
        f"{_pos(state)}, game:parse_move({g}, {quote(move_text)}, Mv), game:play_move({g}, P, M, Mv, P1, M1), "
        f"game:position_text({g}, P1, M1, K), Out = [K, M1]")
    return State(state.game, key, mover)


def board(state: State) -> list[str]:
    """The board drawn for people, one string a line."""
    lines = engine().call(f"{_pos(state)}, game:board_lines({quote(state.game)}, P, M, Out)")
    if not (isinstance(lines, list) and lines and all(isinstance(x, str) for x in lines)):
        raise BadInput(f"board_lines/4 of {state.game} gives {str(lines)[:60]!r}, not a list of texts, one a line "
                       f"(educable check {state.game} says more)")
    return lines


def canonical(state: State) -> str:
    """The key shared by every symmetric image of the state."""
    return engine().call(f"{_pos(state)}, game:canonical({quote(state.game)}, P, M, Out)")


def exact_result(state: State) -> str:
    """The result under perfect play from this state: winner or ``draw``."""
    return engine().call(f"{_pos(state)}, solver:state_result({quote(state.game)}, P, M, Out)")


def _batched(goal: str, keys: list[str], size: int = 2000) -> list:
    """Run ``goal`` (with ``{keys}`` standing for a list of state keys) over ``keys`` in batches; the answers joined."""
    out: list = []
    for i in range(0, len(keys), size):
        out += engine().call(goal.format(keys="[" + ", ".join(quote(k) for k in keys[i:i + size]) + "]"))
    return out


def canonical_keys(game: str, keys: list[str]) -> list[str]:
    """The class key (least symmetric image) of each state, in batches."""
    return _batched(f"graph:keys_canonical({quote(check_game(game))}, {{keys}}, Out)", keys)


def board_cells(graph: StateGraph) -> np.ndarray:
    """(states, cells): every state of ``graph`` as its mover sees it (cells/4: 0 empty, 1 own, 2 theirs)."""
    import numpy as np
    return np.array(_batched(f"graph:keys_cells({quote(graph.game)}, {{keys}}, Out)", graph.keys), dtype=np.int8)


def policy_table(graph: StateGraph, chooser: str) -> list[list[str]]:
    """For every state of ``graph``, the moves ``chooser`` picks among ([] where the game is over)."""
    return _batched(f"graph:keys_policy({quote(graph.game)}, {chooser}, {{keys}}, Out)", graph.keys)


@cache
def layout(game: str) -> tuple[int, str] | None:
    """How the game lays its cells out, if it says (layout/3): cells a row, and 'top' or 'bottom'
    for where `show` draws cell 1's row."""
    found = engine().call(f"( catch(game:layout({quote(check_game(game))}, C, O), _, fail) -> Out = [C, O] "
                          "; Out = null )")
    return (int(found[0]), str(found[1])) if found else None


def lines(game: str) -> list[list[int]]:
    """The game's lines (line/2; none for games without them)."""
    return engine().call(f"findall(L, game:line({quote(check_game(game))}, L), Out)")


CHANCE = "chance"      # the mover of a chance node (rules/game.pl's chance_mover/1)


def choose(state: State, chooser: str) -> str:
    """The move text ``chooser`` (a Prolog chooser term) plays in ``state``."""
    g = quote(state.game)
    return engine().call(f"{_pos(state)}, play:choose_move({chooser}, {g}, P, M, Mv), game:move_text({g}, Mv, Out)")


def seed_random(seed: int) -> None:
    """Seed Prolog's random generator."""
    engine().call(f"set_random(seed({int(seed)})), Out = true")


def play_series(game: str, choosers: dict[str, str], n: int, seed: int) -> dict[str, int]:
    """Play ``n`` games inside Prolog in one query; counts of each result."""
    pairs = ", ".join(f"{quote(p)}-{c}" for p, c in choosers.items())
    try:
        return engine().call(f"play:play_series({quote(check_game(game))}, [{pairs}], {int(n)}, {int(seed)}, Out)")
    except LookupError:
        raise BadInput(f"{game}: a game could not be played to its end (a position that is not over has no legal "
                       f"move, or a rule failed); educable check '{game}' says where") from None


SCORE_PLIES = 1_000_000     # moves after which a sampled game of score is cut (random play on 2048(8,8) passes 120,000)


def play_scores(game: str, choosers: dict[str, str], n: int, seed: int, max_moves: int = SCORE_PLIES) -> tuple[list[float], int]:
    """Play ``n`` games of a game of score inside Prolog in one query (keep ``n`` to a page); each
    game's total score (its moves' points plus its end's score), and how many were cut, still going
    after ``max_moves`` moves (their totals those of the moves made)."""
    pairs = ", ".join(f"{quote(p)}-{c}" for p, c in choosers.items())
    totals, cut = engine().call(f"play:play_scores({quote(check_game(game))}, [{pairs}], {int(n)}, {int(seed)}, "
                                f"{int(max_moves)}, Out)")
    return totals, int(cut)


def points(state: State, move_text: str) -> float:
    """The points ``move_text`` scores in ``state`` (0 in a game that gives none)."""
    g = quote(state.game)
    return engine().call(f"{_pos(state)}, game:parse_move({g}, {quote(move_text)}, Mv), "
                         f"game:move_points({g}, P, M, Mv, N), Out is float(N)")


def end_score(state: State) -> float:
    """The score a finished game of score's end adds (its over/4's score(N)); 0 for any other end."""
    g = quote(state.game)
    return engine().call(f"{_pos(state)}, game:over({g}, P, M, R), ( R = score(N) -> Out is float(N) ; Out = 0.0 )")


def expectimax_values(state: State, depth: int) -> dict[str, float]:
    """Each move's expected result for the mover (1 a win, -1 a loss) by an expectimax search ``depth``
    of the players' moves deep, the horizon valued 0 (rules/search.pl): what ``query`` shows on a game of
    chance too large to solve below the position."""
    g = quote(state.game)
    scored = engine().call(f"{_pos(state)}, search:search_scores(expectimax({int(depth)}, none), {g}, P, M, S), "
                           f"findall([F, T], (member(V-Mv, S), F is float(V), game:move_text({g}, Mv, T)), Out)")
    return {text: float(v) for v, text in scored}


def search_results(state: State, depth: int) -> tuple[str, dict[str, tuple[str, int | None]]]:
    """A depth-limited alpha-beta search from ``state``: the result it proves for the state (a
    player, or 'unknown'), and for each move (by text) the result it proves after that move with
    the plies to the end, or ('unknown', None) when the end lies beyond ``depth`` plies."""
    g = quote(state.game)
    scored = engine().call(f"{_pos(state)}, search:search_scores(alphabeta({int(depth)}), {g}, P, M, S), "
                           f"findall([F, T], (member(V-Mv, S), F is float(V), game:move_text({g}, Mv, T)), Out)")
    other = next(p for p in players(state.game) if p != state.mover)
    moves: dict[str, tuple[str, int | None]] = {}
    for score, text in scored:
        if score > 0:
            moves[text] = (state.mover, 1000 - score)
        elif score < 0:
            moves[text] = (other, 1000 + score)
        else:
            moves[text] = ("unknown", None)
    results = {r for r, _ in moves.values()}
    overall = state.mover if state.mover in results else other if results == {other} else "unknown"
    return overall, moves


def show(game: str, position: str | None) -> dict[str, Any]:
    """A state drawn as a board (``educable show``): the start where ``position`` is None."""
    state = parse(game, position) if position is not None else initial(game)
    return {"game": game, "position": state.key, "to_move": state.mover, "board": board(state),
            "result": result(state)}
