"""The ASGI app of `educable serve` (Starlette, Jinja2 templates): pages and the JSON API.

Each handler parses the request, calls one library function on the engine thread (web/engine.py)
and presents what it returns: a page drawn from a template, or under /api/ the JSON that the
matching command's --json prints.  A bad request is a 4xx with {"error": "one line"}; the server
goes on serving.  Only requests addressed to the server's own name are answered, and a POST must
come from its own origin with the secret it wrote into its pages (web/trust.py, docs/window.md);
nothing is stored or taught with --read-only.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import jinja2
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from educable.bridge.textinput import is_whole_number
from educable.web.engine import EngineThread, SolverProcess, user_errors
from educable.web.jobs import Jobs
from educable.web.searches import SEARCH_SECONDS, Searches
from educable.web.trust import TOKEN_HEADER, Boundary, HostGuard

HERE = Path(__file__).resolve().parent
TEMPLATES = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True)
MAX_BODY = 256 * 1024          # bytes a POST may carry (a game's moves)
RUNS_ON_HOME = 12


class Refused(Exception):
    """A request the page refuses with this status and one line."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:500] or type(exc).__name__


def api(handler: Callable[[Request], Awaitable[Any]]) -> Callable[[Request], Awaitable[Response]]:
    """A JSON endpoint: the handler's answer as JSON, or {"error": one line} with a 4xx (5xx for a bug)."""
    async def endpoint(request: Request) -> Response:
        try:
            return JSONResponse(await handler(request))
        except Refused as exc:
            return JSONResponse({"error": str(exc)}, status_code=exc.status)
        except user_errors() as exc:
            return JSONResponse({"error": one_line(exc)}, status_code=400)
        except sqlite3.DatabaseError as exc:
            from educable.kb.db import describe
            return JSONResponse({"error": describe(exc, request.app.state.engine.db_path)}, status_code=503)
        except Exception as exc:                        # a bug: one line, and the server goes on
            return JSONResponse({"error": f"internal error: {type(exc).__name__}: {one_line(exc)}"}, status_code=500)
        except asyncio.CancelledError:                  # Ctrl-C or SIGTERM while it was being answered
            return JSONResponse({"error": "the server is stopping (Ctrl-C or SIGTERM): ask again once it runs"},
                                status_code=503)
    return endpoint


def page(template: str, handler: Callable[[Request], Awaitable[dict]]) -> Callable[[Request], Awaitable[Response]]:
    """An HTML page: the handler's data drawn by ``template``, or the error page with one line."""
    async def endpoint(request: Request) -> Response:
        state = request.app.state
        base = {"read_only": state.read_only, "path": request.url.path, "token": state.boundary.token}
        try:
            data = await handler(request)
        except Refused as exc:
            return _html("error.html", {**base, "error": str(exc)}, exc.status)
        except user_errors() as exc:
            return _html("error.html", {**base, "error": one_line(exc)}, 400)
        except Exception as exc:
            return _html("error.html", {**base, "error": f"internal error: {type(exc).__name__}: {one_line(exc)}"}, 500)
        return _html(template, {**base, **data})
    return endpoint


def _html(template: str, data: dict, status: int = 200) -> HTMLResponse:
    return HTMLResponse(TEMPLATES.get_template(template).render(**data), status_code=status)


def check_typed(name: str, value: str) -> None:
    """A text the page sent: valid UTF-8 without control characters, else 400 in one line."""
    from educable.bridge.textinput import check_text
    try:
        check_text(name, value)
    except user_errors() as exc:
        raise Refused(400, one_line(exc)) from None


def text_param(request: Request, name: str, required: bool = True) -> str | None:
    value = request.query_params.get(name)
    if value is None and required:
        raise Refused(400, f"missing parameter {name!r}")
    if value is not None:
        check_typed(name, value)
    return value


async def json_body(request: Request) -> dict:
    """A POST's JSON object, from this page's own origin only and with the server's secret (a page
    elsewhere cannot make the server work or write); 403 with --read-only."""
    if request.app.state.read_only and request.url.path in WRITES:
        raise Refused(403, "this server is read-only (educable serve --read-only): nothing is stored or taught")
    boundary: Boundary = request.app.state.boundary
    origin = request.headers.get("origin")
    port = request.scope.get("server", (None, None))[1]
    if not boundary.origin_ok(origin, port):
        raise Refused(403, f"a request from {str(origin)[:80]} is refused: only the page itself may post")
    if not boundary.token_ok(request.headers.get(TOKEN_HEADER)):
        raise Refused(403, f"a post without this server's secret is refused: only the page itself may post (a script "
                      f"sends the header {TOKEN_HEADER.title()} that `educable serve` printed at start)")
    if not request.headers.get("content-type", "").startswith("application/json"):
        raise Refused(415, "post JSON (Content-Type: application/json)")
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise Refused(413, f"a request body of more than {MAX_BODY:,} bytes")
    try:
        body = json.loads(raw)
    except ValueError:
        raise Refused(400, "the request body is not JSON") from None
    except RecursionError:
        raise Refused(400, "the request body is JSON nested too deep (the page sends a flat object)") from None
    if nesting(body) > MAX_NESTING:
        raise Refused(400, f"the request body is JSON nested more than {MAX_NESTING} deep (the page sends a flat object)")
    if not isinstance(body, dict):
        raise Refused(400, "the request body must be a JSON object")
    return body


MAX_NESTING = 8            # levels of JSON a request body may hold (the page's deepest: options in a job)


def nesting(value: Any) -> int:
    """How deep a parsed JSON value nests (0 for a number or a text), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return deepest


def stored_id(value: Any, what: str) -> int:
    """A row's number from a request: a whole number SQLite can hold, else 404 naming ``what``."""
    if not isinstance(value, int) or not 1 <= value < 2**63:
        raise Refused(404, f"no {what} {str(value)[:40]} (numbers start at 1)")
    return value


def field(body: dict, name: str, kind: type, default: Any = None) -> Any:
    value = body.get(name, default)
    if value is None and default is None:
        raise Refused(400, f"missing field {name!r}")
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise Refused(400, f"field {name!r} must be {kind.__name__}")
    return value


# ---------------------------------------------------------------------------- the library, on the engine thread

def _home(db: Any) -> dict:
    from educable.bridge import catalog, commands
    agents = commands.list_agents(db)
    judged = commands.last_judgements(db)
    for a in agents:
        a["judgement"] = judged.get(a["name"])
        a["options"] = commands.option_summary(a)
    return {"games": catalog.list_games(db), "agents": agents, "runs": commands.list_runs(db)[:RUNS_ON_HOME]}


def _view(db: Any, game: str, position: str | None, agents: list[str]) -> dict:
    from educable.bridge import boards, querying
    from educable.bridge.errors import BadInput
    board = boards.board_view(game, position)
    query = None
    if board["result"] is None:
        try:
            query = querying.query(db, game, board["position"], agent_names=agents, quick=True)
        except BadInput:
            if board["to_move"] != "chance":     # a chance node too large to value below: the board alone
                raise
    return {"board": board, "query": query}


def _play_page(db: Any, game: str | None) -> dict:
    from educable.bridge import catalog
    from educable.kb import store
    games_list = [g for g in catalog.list_games(db) if "broken" not in g]
    names = [g["game"] for g in games_list]
    chosen = game if game is not None else (names[0] if names else None)
    players = next((g["players"] for g in games_list if g["game"] == chosen), None)
    if chosen is not None and players is None:
        from educable.bridge import games as games_mod
        games_mod.check_game(chosen)                    # the one line: unknown game, or why it is broken
        players = games_mod.players(chosen)             # a family's member (pig(12,6)): listed as chosen
        names = [*names, chosen]
    from educable.bridge import outside
    learned = [a["name"] for a in store.list_agents(db, chosen)] if chosen else []
    from educable.bridge import boards
    setup = chosen is not None and boards.can_set_up(chosen)
    from educable.bridge import games as games_mod
    hidden = chosen is not None and games_mod.is_hidden(chosen)      # a hand: each side sees only its own view
    return {"games": names, "game": chosen, "players": players or [], "learned": learned, "setup": setup,
            "outside": outside.registered(), "hidden": hidden}   # (outside: the Python policies `serve --player` gave)


# ---------------------------------------------------------------------------- handlers

async def home(request: Request) -> dict:
    return await request.app.state.engine.run(_home, db=True)


async def play(request: Request) -> dict:
    game = text_param(request, "game", required=False)
    data = await request.app.state.engine.run(_play_page, game, db=True)
    opponent = text_param(request, "opponent", required=False) or ("equilibrium" if data["hidden"] else "minimax")
    human = text_param(request, "as", required=False) or (data["players"][0] if data["players"] else "")
    position = text_param(request, "position", required=False) or ""
    shown = request.query_params.getlist("agent")
    return {**data, "opponent": opponent, "human": human, "position": position, "shown": shown}


async def runs_page(request: Request) -> dict:
    from educable.bridge import commands
    return {"runs": await request.app.state.engine.run(commands.list_runs, None, db=True)}


async def run_page(request: Request) -> dict:
    run_id = request.path_params.get("run_id")
    if run_id is not None:
        stored_id(run_id, "run")
    agent, started = text_param(request, "agent", run_id is None), text_param(request, "started", run_id is None)
    from educable.bridge import commands
    detail = await request.app.state.engine.run(commands.run_detail, run_id, agent, started, db=True)
    return {"run": detail}


async def sweeps_page(request: Request) -> dict:
    from educable.bridge import sweep
    return {"sweeps": await request.app.state.engine.run(sweep.summaries, db=True)}


def _lab(db: Any) -> dict:
    from educable.bridge import catalog, commands, tournament
    games_list = [g["game"] for g in catalog.list_games(db) if "broken" not in g]
    return {"games": games_list, "learners": commands.learner_options(), "tournaments": tournament.stored(db, 10)}


def server_settings(db_path: Path) -> dict[str, str]:
    """What a job started from the page uses of this server's own settings (shown on the lab page)."""
    import os

    from educable.bridge.engine import GAMES_ENV
    scheduler = os.environ.get("EDUCABLE_SCHEDULER")
    return {"db": str(db_path), "games_dirs": os.environ.get(GAMES_ENV) or "rules/games/ only",
            "scheduler": f"scheduler {scheduler} (EDUCABLE_SCHEDULER)" if scheduler else "a local cluster when workers > 1"}


async def lab_page(request: Request) -> dict:
    data = await request.app.state.engine.run(_lab, db=True)
    return {**data, "jobs": request.app.state.jobs.list(), "settings": server_settings(request.app.state.jobs.db_path)}


async def api_learners(request: Request) -> Any:
    from educable.bridge import commands
    return await request.app.state.engine.run(commands.learner_options)


async def api_jobs(request: Request) -> Any:
    return request.app.state.jobs.list()


async def api_start_job(request: Request) -> Any:
    """A training run or a tournament, started as a process of its own (web/jobs.py)."""
    from educable.bridge import commands
    body = await json_body(request)
    kind = field(body, "kind", str)
    game = field(body, "game", str)
    seed = field(body, "seed", int, 0)
    n = field(body, "games", int, 0)
    for name, value in body.items():
        if isinstance(value, str):
            check_typed(name, value)
    if kind == "train":
        agent = field(body, "agent", str)
        options = field(body, "options", dict, {})
        for name, value in options.items():
            if isinstance(value, str):
                check_typed(name, value)
        args = await request.app.state.engine.run(commands.train_arguments, game, field(body, "learner", str), agent,
                                                  n, seed, options)
    elif kind == "tournament":
        players = field(body, "players", list)
        if not players or not all(isinstance(p, str) and p for p in players):
            raise Refused(400, "field 'players' must be a list of player names")
        for p in players:
            check_typed("players", p)
        agent = None
        args = await request.app.state.engine.run(commands.tournament_arguments, game, players, n, seed, db=True)
    else:
        raise Refused(400, "field 'kind' must be train or tournament")
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(None, request.app.state.jobs.start, kind, args, agent)
    except ValueError as exc:
        raise Refused(400, one_line(exc)) from None


async def api_stop_job(request: Request) -> Any:
    body = await json_body(request)
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(None, request.app.state.jobs.stop, field(body, "id", int))
    except ValueError as exc:
        raise Refused(404, one_line(exc)) from None


async def api_tournaments(request: Request) -> Any:
    from educable.bridge import tournament
    return await request.app.state.engine.run(tournament.stored, 20, db=True)


def match_param(request: Request) -> int:
    value = request.query_params.get("match", "")
    if not is_whole_number(value) or not 1 <= int(value) < 2**63:
        raise Refused(400, "match must be the number of a stored game (see /matches)")
    return int(value)


async def replay_page(request: Request) -> dict:
    from educable.bridge import replay
    return {"replay": await request.app.state.engine.run(replay.replay, match_param(request), db=True)}


async def api_replay(request: Request) -> Any:
    from educable.bridge import replay
    return await request.app.state.engine.run(replay.replay, match_param(request), db=True)


async def matches_page(request: Request) -> dict:
    from educable.bridge import replay
    return {"matches": await request.app.state.engine.run(replay.recent_matches, db=True)}


async def api_matches(request: Request) -> Any:
    from educable.bridge import replay
    return await request.app.state.engine.run(replay.recent_matches, db=True)


async def api_sweeps(request: Request) -> Any:
    from educable.bridge import sweep
    return await request.app.state.engine.run(sweep.summaries, db=True)


async def api_games(request: Request) -> Any:
    from educable.bridge import catalog
    return await request.app.state.engine.run(catalog.list_games, db=True)


async def api_agents(request: Request) -> Any:
    from educable.bridge import commands
    return await request.app.state.engine.run(commands.list_agents, text_param(request, "game", False), db=True)


async def api_query(request: Request) -> Any:
    from educable.bridge import querying
    game, position = text_param(request, "game"), text_param(request, "position")
    depth = request.query_params.get("depth", "5")
    if not is_whole_number(depth):
        raise Refused(400, "depth must be a whole number of plies from 1 to 12")
    agents = request.query_params.getlist("agent")
    from educable.bridge import perfect
    if game != perfect.GAME:                # a search below the position: in the search process, bounded
        return await searched(request, "query", game, position, int(depth), agents)
    await solved_first(request, game, position)
    return await request.app.state.engine.run(querying.query, game, position, int(depth), agents, db=True)


async def searched(request: Request, task: str, *args: Any) -> Any:
    """``task`` of web/searches.py in the search process: a search holds up no other request, and one
    past its bound is stopped and refused in one line (503)."""
    from educable.web.searches import SearchRefused
    try:
        return await request.app.state.searches.run(task, *args)
    except SearchRefused as exc:
        raise Refused(503, str(exc)) from None


def _open_key(game: str, position: str) -> str | None:
    from educable.bridge import games
    state = games.parse(game, position)
    return state.key if games.result(state) is None else None


async def solved_first(request: Request, game: str | None, position: str | None) -> None:
    """On Connect Four, the perfect player's values of ``position`` worked out in the solver's process
    before the engine thread is asked (which then finds them remembered): a long search holds up no
    other request.  Anything wrong with the position is left for the engine's own answer to say."""
    from educable.bridge import perfect
    if game != perfect.GAME or not position or not perfect.available():
        return
    try:
        key = await request.app.state.engine.run(_open_key, game, position)
        if key is not None and not perfect.known(key):
            perfect.remember(key, await request.app.state.solver.position_values(key))
    except Exception:      # noqa: BLE001  (a bad position, or the solver's process gone: the engine answers)
        return


async def api_view(request: Request) -> Any:
    game = text_param(request, "game")
    position = text_param(request, "position", required=False) or None
    await solved_first(request, game, position)
    return await request.app.state.engine.run(_view, game, position, request.query_params.getlist("agent"), db=True)


async def api_setup(request: Request) -> Any:
    """The board clicked together on the play page, read by the game's own rules (one line if it cannot happen)."""
    from educable.bridge import boards
    game, mover = text_param(request, "game"), text_param(request, "mover")
    text = text_param(request, "cells") or ""
    if not all(part.strip() in ("0", "1", "2") for part in text.split(",")):
        raise Refused(400, "parameter 'cells' must be the cells as 0, 1 or 2 separated by commas")
    cells = [int(part) for part in text.split(",")]
    return await request.app.state.engine.run(boards.set_up, game, cells, mover)


async def api_move(request: Request) -> Any:
    from educable.bridge import session
    body = await json_body(request)
    moves = field(body, "moves", list, [])
    if not all(isinstance(m, str) for m in moves):
        raise Refused(400, "field 'moves' must be a list of move texts")
    seed = field(body, "seed", int, 0)
    game, position, opponent = field(body, "game", str), field(body, "position", str), field(body, "opponent", str)
    from educable.bridge import outside, perfect
    if opponent.lower() in perfect.PLAYERS:
        await solved_first(request, game, position)
    elif not outside.named(opponent):      # a Python policy of --player lives in this process only
        return await searched(request, "move", game, position, opponent, moves, seed)
    return await request.app.state.engine.run(session.reply, game, position, opponent, moves, seed, db=True)


HANDS = 32          # hands of hidden information the server keeps going at once (the oldest dropped past it)


def _hand_new(db: Any, game: str, opponent: str, human: str | None, seed: int, keep: bool) -> tuple[Any, dict]:
    from educable.bridge.hidden_play import HiddenSession
    hand = HiddenSession(db, game, opponent, human, seed)
    return hand, _hand_on(hand, None, keep)


def _hand_on(hand: Any, move: str | None, keep: bool) -> dict:
    """The person's move (if any), then the agent's until the person is to move or the hand is over:
    what the person may see now (their view, the agent's moves), and at the end everything (the hand
    stored as a match, and the equilibrium found for the review if need be, unless ``keep`` is False:
    a read-only server)."""
    if move is not None:
        hand.human_move(move)
    played = []
    while hand.result is None and not hand.human_to_move:
        played.append(hand.computer_move())
    out: dict = {"game": hand.game, "human": hand.human, "opponent": hand.opponent, "played": played,
                 "over": hand.result is not None}
    if hand.result is None:
        out.update(view=hand.view(), legal=hand.legal_moves())
        return out
    if keep:
        hand.finish("serve")
    mine = hand.payoff if hand.human == hand.players[0] else -hand.payoff
    out.update(board=hand.board(), payoff=mine, review=hand.review(may_solve=keep))
    return out


async def api_hand(request: Request) -> Any:
    """POST {game, opponent, as, seed}: a new hand of a game of hidden information against ``opponent``,
    dealt on the server; the person sees only their view."""
    import secrets
    body = await json_body(request)
    game, opponent = field(body, "game", str), field(body, "opponent", str)
    human = body.get("as") if isinstance(body.get("as"), str) else None
    hand, out = await request.app.state.engine.run(_hand_new, game, opponent, human, field(body, "seed", int, 0),
                                                   not request.app.state.read_only, db=True)
    hands = request.app.state.hands
    key = secrets.token_urlsafe(12)
    hands[key] = hand
    while len(hands) > HANDS:
        hands.pop(next(iter(hands)))
    if out["over"]:
        hands.pop(key, None)
    return {"hand": key, **out}


async def api_hand_move(request: Request) -> Any:
    """POST {hand, move}: the person's move in a hand, then the agent's; what the person may see."""
    body = await json_body(request)
    key, move = field(body, "hand", str), field(body, "move", str)
    hand = request.app.state.hands.get(key)
    if hand is None:
        raise Refused(404, "no such hand (over, or dropped for newer ones): deal a new one")
    out = await request.app.state.engine.run(_hand_on, hand, move, not request.app.state.read_only)
    if out["over"]:
        request.app.state.hands.pop(key, None)
    return {"hand": key, **out}


async def api_finish(request: Request) -> Any:
    from educable.bridge import session
    body = await json_body(request)
    moves = field(body, "moves", list, [])
    if not all(isinstance(m, str) for m in moves):
        raise Refused(400, "field 'moves' must be a list of move texts")
    return await request.app.state.engine.run(session.record_game, field(body, "game", str),
                                              field(body, "opponent", str), field(body, "human", str), moves,
                                              not request.app.state.read_only, db=True)


async def api_runs(request: Request) -> Any:
    from educable.bridge import commands
    return await request.app.state.engine.run(commands.list_runs, text_param(request, "agent", False), db=True)


async def api_run(request: Request) -> Any:
    from educable.bridge import commands
    return await request.app.state.engine.run(commands.run_detail, stored_id(request.path_params["run_id"], "run"),
                                              db=True)


async def api_curve(request: Request) -> Any:
    from educable.bridge import commands
    return await request.app.state.engine.run(commands.run_detail, None, text_param(request, "agent"),
                                              text_param(request, "started"), db=True)


WRITES = {"/api/finish", "/api/jobs", "/api/jobs/stop"}


async def not_found(request: Request, exc: Exception) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": f"no such endpoint {request.url.path[:80]} (see docs/commands.md, the API)"},
                            status_code=404)
    return _html("error.html", {"error": f"no page {request.url.path[:80]}", "read_only": request.app.state.read_only,
                                "path": request.url.path, "token": request.app.state.boundary.token}, 404)


async def not_allowed(request: Request, exc: Exception) -> Response:
    return JSONResponse({"error": f"{request.method} is not how {request.url.path[:80]} is asked"}, status_code=405)


def create_app(db_path: Path, read_only: bool = False, boundary: Boundary | None = None,
               search_seconds: float = SEARCH_SECONDS) -> Starlette:
    """The app serving the knowledge base at ``db_path`` (``read_only``: nothing stored or taught) to
    the requests ``boundary`` lets in (by default: addressed to this machine's loopback, a new secret);
    a request that searches is stopped past ``search_seconds``."""
    routes = [
        Route("/", page("home.html", home)),
        Route("/play", page("play.html", play)),
        Route("/runs", page("runs.html", runs_page)),
        Route("/runs/live", page("run.html", run_page)),
        Route("/runs/{run_id:int}", page("run.html", run_page)),
        Route("/sweeps", page("sweeps.html", sweeps_page)),
        Route("/lab", page("lab.html", lab_page)),
        Route("/matches", page("matches.html", matches_page)),
        Route("/replay", page("replay.html", replay_page)),
        Route("/api/learners", api(api_learners)),
        Route("/api/jobs", api(api_jobs)),
        Route("/api/jobs", api(api_start_job), methods=["POST"]),
        Route("/api/jobs/stop", api(api_stop_job), methods=["POST"]),
        Route("/api/tournaments", api(api_tournaments)),
        Route("/api/matches", api(api_matches)),
        Route("/api/replay", api(api_replay)),
        Route("/api/games", api(api_games)),
        Route("/api/agents", api(api_agents)),
        Route("/api/query", api(api_query)),
        Route("/api/view", api(api_view)),
        Route("/api/setup", api(api_setup)),
        Route("/api/move", api(api_move), methods=["POST"]),
        Route("/api/finish", api(api_finish), methods=["POST"]),
        Route("/api/hand", api(api_hand), methods=["POST"]),
        Route("/api/hand/move", api(api_hand_move), methods=["POST"]),
        Route("/api/runs", api(api_runs)),
        Route("/api/runs/{run_id:int}", api(api_run)),
        Route("/api/curve", api(api_curve)),
        Route("/api/sweeps", api(api_sweeps)),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    jobs = Jobs(db_path)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        jobs.close()                     # the server stops: its jobs stop too, keeping what they committed
        app.state.solver.close()
        app.state.searches.close()

    boundary = boundary or Boundary()
    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_allowed}, lifespan=lifespan,
                    middleware=[Middleware(HostGuard, boundary=boundary)])
    app.state.boundary = boundary
    app.state.engine = EngineThread(db_path)
    app.state.read_only = read_only
    app.state.hands = {}                # hands of hidden information going on: their key -> bridge/hidden_play.py
    app.state.jobs = jobs
    app.state.solver = SolverProcess()
    app.state.searches = Searches(db_path, search_seconds)
    return app
