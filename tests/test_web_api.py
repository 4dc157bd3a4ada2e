"""`educable serve` without a browser: a real server process over a real knowledge base, asked as
a script would.  Its API returns what the matching command's --json prints; a bad request is a 4xx
with one line and the server goes on; writes come only by POST from the page's own origin and
never with --read-only; names from the knowledge base are escaped; concurrent requests are served
one after another by the one engine thread, none crashing it."""
import json
import os
import sqlite3
import statistics
import subprocess
import threading
from pathlib import Path

import pytest

from conftest import EDUCABLE, http, kb_dump

EXE = EDUCABLE          # the fork server's client (tests/zygote.py)
COUNT3 = (Path(__file__).parent / "data" / "count3.pl").read_text()


def cli_json(db_path, *args, env=None):
    p = subprocess.run([EXE, *args, "--json", "--db", str(db_path)], capture_output=True, text=True, timeout=300,
                       env={**os.environ, **(env or {})})
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


TRAINED = (("train", "tictactoe", "--learner", "qlearn", "--agent", "q", "--games", "300"),
           ("train", "hexapawn", "--agent", "her", "--games", "20"))


@pytest.fixture
def trained(db_path, made):
    return made(TRAINED, db_path)


@pytest.fixture(scope="module")
def asked(tmp_path_factory, made):
    """One server over one trained knowledge base for the requests that must change nothing (started
    once: each bad request's test checks the knowledge base is as it was)."""
    from conftest import Server
    db_path = made(TRAINED, tmp_path_factory.mktemp("asked") / "kb.db")
    server = Server(db_path)
    yield db_path, server
    server.stop()


def test_the_api_answers_what_the_commands_json_prints(trained, served):
    s = served()
    assert s.get("/api/games").json() == cli_json(trained, "games")
    assert s.get("/api/agents").json() == cli_json(trained, "agents")
    assert s.get("/api/agents", game="hexapawn").json() == cli_json(trained, "agents", "--game", "hexapawn")
    for position in (".../.../...", "x../.o./...", "xx./oo./..."):
        assert s.get("/api/query", game="tictactoe", position=position).json() == \
            cli_json(trained, "query", "tictactoe", position)
    assert s.get("/api/runs").json() == cli_json(trained, "runs")
    assert s.get("/api/runs/1").json() == cli_json(trained, "runs", "1")


def test_values_are_the_known_facts(trained, served):
    """Independent facts: every move of the start is a draw with perfect play, and x to move in
    xx./oo./... wins by 3 (minimax plays it), loses nothing by 4, 5 and 6 cannot be played."""
    s = served()
    start = s.get("/api/query", game="tictactoe", position=".../.../...").json()
    assert [m["exact"] for m in start["moves"]] == ["draw"] * 9
    r = s.get("/api/query", game="tictactoe", position="xx./oo./...").json()
    exact = {m["move"]: m["exact"] for m in r["moves"]}
    assert exact["3"] == "x" and set(exact) == {"3", "6", "7", "8", "9"}
    assert s.post("/api/move", {"game": "tictactoe", "position": "xx./oo./...", "opponent": "minimax"}).json()["move"] == "3"
    board = s.get("/api/view", game="hexapawn").json()["board"]
    assert board["grid"]["cells"] == [1, 1, 1, 0, 0, 0, 2, 2, 2] and board["to_move"] == "white"
    assert {m["move"]: m["changed"] for m in board["moves"]} == {"1-4": [0, 3], "2-5": [1, 4], "3-6": [2, 5]}
    over = s.get("/api/query", game="tictactoe", position="xxx/oo./...").json()      # x has won: no moves to value
    assert over["result"] == "x" and over["moves"] == [] and [a["values"] for a in over["agents"]] == [{}]
    assert "-1 a loss, 0 a draw, +1 a win" in s.get("/api/query", game="tictactoe", position=".../.../...").json()["agents"][0]["scale"]
    # a board clicked together: one x in a corner, one o in the centre is x's move; hexapawn's white pawn
    # on 5 and black's on 7 and 9, with black to move, is what hexapawn's text writes 5-79 b
    setup = s.get("/api/setup", game="tictactoe", cells="1,0,0,0,2,0,0,0,0", mover="x").json()
    assert setup["position"] == "x../.o./..." and setup["to_move"] == "x"
    setup = s.get("/api/setup", game="hexapawn", cells="0,0,0,0,1,0,2,0,2", mover="black").json()
    assert setup["position"] == "5-79 b" and setup["to_move"] == "black"


BAD = [
    ("get", "/api/query", {"game": "chess", "position": "x"}, None, 400, "unknown game"),
    ("get", "/api/query", {"game": "tictactoe", "position": "zz"}, None, 400, "bad tic-tac-toe position"),
    ("get", "/api/query", {"game": "tictactoe"}, None, 400, "missing parameter 'position'"),
    ("get", "/api/query", {"game": "tictactoe", "position": "...", "depth": "x"}, None, 400, "depth"),
    ("get", "/api/query", {"game": "tictactoe", "position": ".../.../...", "agent": "nobody"}, None, 400, "unknown agent"),
    ("get", "/api/view", {"game": "tictactoe", "position": "a\x01b"}, None, 400, "control character"),
    ("get", "/api/runs/99", {}, None, 400, "no run 99"),
    ("get", "/api/setup", {"game": "tictactoe", "cells": "1,1,0,0,0,0,0,0,0", "mover": "o"}, None, 400,
     "2 x and 0 o cannot happen"),
    ("get", "/api/setup", {"game": "tictactoe", "cells": "1,0", "mover": "o"}, None, 400, "gives 9 cells"),
    ("get", "/api/setup", {"game": "tictactoe", "cells": "1,x", "mover": "o"}, None, 400, "0, 1 or 2"),
    ("get", "/api/setup", {"game": "nim(3,4,5)", "cells": "1,1,1", "mover": "a"}, None, 400, "type its text"),
    ("get", "/api/nothing", {}, None, 404, "no such endpoint"),
    ("get", "/api/move", {}, None, 405, "is not how"),
    ("post", "/api/move", {}, {"game": "tictactoe", "position": "xxx/oo./...", "opponent": "minimax"}, 400, "game is over"),
    ("post", "/api/move", {}, {"game": "tictactoe", "position": ".../.../...", "opponent": "nobody"}, 400, "unknown agent"),
    ("post", "/api/move", {}, {"game": "tictactoe", "opponent": "random"}, 400, "missing field 'position'"),
    ("post", "/api/move", {}, {"game": "tictactoe", "position": 5, "opponent": "random"}, 400, "must be str"),
    ("post", "/api/move", {}, [1, 2], 400, "JSON object"),
    ("post", "/api/finish", {}, {"game": "tictactoe", "opponent": "random", "human": "x", "moves": ["1", "1"]}, 400,
     "illegal"),
    ("post", "/api/finish", {}, {"game": "tictactoe", "opponent": "random", "human": "z", "moves": []}, 400, "--as"),
    ("get", "/api/runs/99999999999999999999999", {}, None, 404, "no run 99999999999999999999999"),
    ("get", "/api/runs/0", {}, None, 404, "no run 0"),
    ("post", "/api/move", {}, {"game": "tictactoe", "position": ".../.../...", "opponent": "random",
                               "moves": [[[[[[[[[["1"]]]]]]]]]]}, 400, "nested more than 8 deep"),
]


@pytest.mark.parametrize("method, path, params, body, status, words", BAD, ids=[f"{b[1]} {b[5]}" for b in BAD])
def test_a_bad_request_is_a_4xx_with_one_line_and_the_server_goes_on(asked, method, path, params, body, status, words):
    trained, s = asked
    before = kb_dump(trained)
    r = s.get(path, **params) if method == "get" else s.post(path, body)
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert words in error and "\n" not in error and "Traceback" not in error, error
    assert s.get("/api/games").status_code == 200
    assert kb_dump(trained) == before


def test_json_nested_past_what_python_reads_and_a_huge_run_page_are_4xx(asked):
    """A body of 100,000 nested lists made json.loads raise RecursionError (a 500); a run number
    past SQLite's integers made the run page an OverflowError (a 500)."""
    trained, s = asked
    deep = "[" * 100_000 + "]" * 100_000
    r = http().post(s.url + "/api/move", content=deep, timeout=60,
                   headers={"Content-Type": "application/json", "X-Educable-Token": s.token})
    assert r.status_code == 400 and "nested too deep" in r.json()["error"], r.text
    r = s.get("/runs/99999999999999999999999")
    assert r.status_code == 404 and "no run 99999999999999999999999" in r.text and "Traceback" not in r.text


def test_rows_edited_by_hand_are_a_4xx_on_the_page_and_found_by_doctor(trained, served):
    """A tournaments row whose results were edited made /lab a 500 (a Jinja traceback on the server's
    stderr) and doctor called it sound; a games row whose players were edited made games and query
    an internal error (JSONDecodeError)."""
    p = subprocess.run([EXE, "tournament", "tictactoe", "random", "minimax", "--games", "2", "--db", str(trained)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    with sqlite3.connect(trained) as c:
        c.execute("""UPDATE tournaments SET results = '{"game": "tictactoe", "players": ["a"], "games": 2, "seed": 0,
                     "ratings": [{"player": "a", "score": "x"}], "cross": {}}'""")
    s = served()
    for path in ("/lab", "/api/tournaments"):
        r = s.get(path)
        assert r.status_code == 400 and "table tournaments, tournament 1" in r.text, (path, r.text)
    with sqlite3.connect(trained) as c:
        c.execute("UPDATE games SET players = 'oops' WHERE name = 'tictactoe'")
    r = s.get("/api/query", game="tictactoe", position=".../.../...")
    assert r.status_code == 400 and "table games, game 'tictactoe': players" in r.json()["error"]
    for args in (("games",), ("query", "tictactoe", ".../.../...")):
        p = subprocess.run([EXE, *args, "--db", str(trained)], capture_output=True, text=True, timeout=300)
        assert p.returncode == 2 and p.stderr.strip().count("\n") == 0 and "table games" in p.stderr, p.stderr
    p = subprocess.run([EXE, "doctor", "--db", str(trained)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 1 and "table tournaments, tournament 1" in p.stdout and "table games, game 'tictactoe'" in p.stdout
    s.stop()
    assert "Traceback" not in s.proc.stderr.read()


def test_writes_only_from_the_page_itself_and_never_read_only(trained, served):
    s = served()
    game = {"game": "tictactoe", "opponent": "random", "human": "x", "moves": ["1", "4", "2", "5", "3"]}
    r = s.post("/api/finish", game, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and "only the page itself" in r.json()["error"]
    r = s.post("/api/finish", game, headers={"Origin": s.url})
    assert r.status_code == 200 and r.json()["result"] == "x"
    row = sqlite3.connect(trained).execute("SELECT first, second, result, source FROM matches").fetchone()
    assert row == ("human", "random", "x", "serve")
    ro = served("--read-only")
    r = ro.post("/api/finish", game)
    assert r.status_code == 403 and "read-only" in r.json()["error"]
    assert sqlite3.connect(trained).execute("SELECT count(*) FROM matches").fetchone() == (1,)
    assert "read-only" in ro.get("/").text


def test_a_finished_game_teaches_a_punishment_agent_as_play_does(trained, served):
    """Against the six-pawns agent her, a game the person wins as white: her learns (games_trained
    + 1, and the value of her losing move falls)."""
    s = served()
    agent = lambda: [a for a in s.get("/api/agents").json() if a["name"] == "her"][0]
    before = agent()["games_trained"]
    moves, position = [], s.get("/api/view", game="hexapawn").json()["board"]["position"]
    # white plays the first legal move each time; black (her) answers through the API
    while True:
        view = s.get("/api/view", game="hexapawn", position=position).json()["board"]
        if view["result"] is not None:
            break
        if view["to_move"] == "white":
            move = view["moves"][0]["move"]
        else:
            move = s.post("/api/move", {"game": "hexapawn", "position": position, "opponent": "her", "moves": moves}).json()["move"]
        moves.append(move)
        position = next(m["next"] for m in view["moves"] if m["move"] == move)
    r = s.post("/api/finish", {"game": "hexapawn", "opponent": "her", "human": "white", "moves": moves}).json()
    assert r["learned"] and r["games_trained"] == before + 1 == agent()["games_trained"]


def test_a_hostile_agent_name_is_text(trained, served):
    name = "<img src=x onerror=alert(1)>"
    with sqlite3.connect(trained) as conn:
        conn.execute("UPDATE agents SET name = ? WHERE name = 'q'", (name,))
    s = served()
    html = s.get("/").text
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "<img src=x" not in html
    assert name in [a["name"] for a in s.get("/api/agents").json()]


def test_concurrent_clients_are_served_one_after_another(trained, served):
    s = served()
    failures = []

    def client(k):
        for i in range(8):
            r = (s.get("/api/query", game="tictactoe", position="x../.o./...", agent="q") if i % 2 else
                 s.post("/api/move", {"game": "tictactoe", "position": ".../.../...", "opponent": "random", "seed": k * 10 + i}))
            if r.status_code != 200:
                failures.append(r.text)
    threads = [threading.Thread(target=client, args=(k,)) for k in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == [] and s.proc.poll() is None


def test_a_rule_that_never_ends_fails_that_request_in_one_line_and_the_next_works(tmp_path, db_path, served):
    games = tmp_path / "games"
    games.mkdir()
    (games / "loop3.pl").write_text(COUNT3.replace("count3", "loop3").replace(
        "game:legal(loop3, N, _, K) :-", "game:legal(loop3, 2, _, _) :- !, repeat, fail.\ngame:legal(loop3, N, _, K) :-"))
    s = served(env={"EDUCABLE_GAMES": str(games), "EDUCABLE_RULE_INFERENCES": "10000000"})    # a tenth of the default
    r = s.get("/api/view", game="loop3", position="2 a")
    assert r.status_code == 400 and "legal/4" in r.json()["error"], r.text
    assert s.get("/api/view", game="loop3", position="3 a").status_code == 200      # over: nothing to expand
    assert s.get("/api/query", game="tictactoe", position=".../.../...").status_code == 200


def test_the_sweeps_page_gives_the_medians_the_sweep_printed(db_path, served):
    printed = cli_json(db_path, "sweep", "train", "hexapawn", "--learner", "punish", "--vs", "adversary", "--as",
                       "second", "--games", "30", "--grid", "reward=0,1", "--seeds", "3", "--workers", "1")
    s = served()
    [sweep] = s.get("/api/sweeps").json()
    assert {r["setting"]: (r["runs"], r["centre"], r["interval95"]) for r in sweep["settings"]} == \
        {r["setting"]: (r["runs"], r["median"], r["interval95"]) for r in printed["settings"]}
    assert "reward=1" in s.get("/sweeps").text
    # the curves: at each 10 games, the median over the 3 seeds of the share lost in those 10, and the
    # seeds' lowest and highest (with 3 values, the median's 95% interval is their range)
    rows = sqlite3.connect(db_path).execute("SELECT setting, result FROM sweep_runs").fetchall()
    by_setting: dict = {}
    for setting, result in rows:
        label = ", ".join(f"{k}={v}" for k, v in json.loads(setting).items())
        by_setting.setdefault(label, []).append([lost / 10 for lost in json.loads(result)["curve"]])
    drawn = {c["setting"]: c for c in sweep["curves"]}
    assert set(drawn) == set(by_setting) == {"reward=0", "reward=1"}
    for label, seeds in by_setting.items():
        assert drawn[label]["games"] == [10, 20, 30]
        assert drawn[label]["median"] == [statistics.median(col) for col in zip(*seeds, strict=True)]
        assert drawn[label]["low"] == [min(col) for col in zip(*seeds, strict=True)]
        assert drawn[label]["high"] == [max(col) for col in zip(*seeds, strict=True)]


def test_home_shows_each_agents_last_exact_judgement(db_path, served):
    """The n-tuple learner checks itself exactly as it trains; tic-tac-toe after 2,000 self-play games
    with seed 1 is perfect on both sides (the README's example), and home says so."""
    p = subprocess.run([EXE, "train", "tictactoe", "--learner", "ntuple", "--agent", "td", "--games", "2000", "--seed",
                        "1", "--db", str(db_path)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and "as first: guarantees a draw against any opponent, as perfect play does" in p.stdout, p.stdout
    html = served().get("/").text
    assert "as first: perfect, as second: perfect (after 2,000 games)" in html


def test_jobs_start_only_from_the_page_itself_never_read_only_and_say_a_refusal_in_one_line(trained, served,
                                                                                            tmp_path):
    s = served(env={"TMPDIR": str(tmp_path)})
    body = {"kind": "train", "game": "tictactoe", "learner": "qlearn", "agent": "jobq", "games": 50, "seed": 1}
    r = s.post("/api/jobs", body, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and "only the page itself" in r.json()["error"]
    r = s.post("/api/jobs", {**body, "game": "nosuch"})
    assert r.status_code == 400 and r.json()["error"].startswith("unknown game 'nosuch'")
    r = s.post("/api/jobs", {**body, "options": {"nosuch": 1}})
    assert r.status_code == 400 and "qlearn has no option 'nosuch'" in r.json()["error"]
    r = s.post("/api/jobs", {**body, "options": {"alpha": "abc"}})
    assert r.status_code == 400 and "--alpha" in r.json()["error"]
    r = s.post("/api/jobs", body)
    assert r.status_code == 200, r.text
    learners = {x["learner"]: {o["name"] for o in x["options"]} for x in s.get("/api/learners").json()}
    assert "alpha" in learners["qlearn"] and "cycles" in learners["ga"]
    ro = served("--read-only")
    r = ro.post("/api/jobs", body)
    assert r.status_code == 403 and "read-only" in r.json()["error"]
    assert ro.post("/api/jobs/stop", {"id": 1}).status_code == 403
    assert [p.name for p in tmp_path.glob("educable-jobs-*")], "the job's log was kept while the server ran"
    s.stop()
    assert not list(tmp_path.glob("educable-jobs-*")), "the server left its jobs' logs behind"


SLOW_C4 = "......./......./......./.ox...o/.xx.x.x/oox.oox"     # 14 moves in: bitbully searches past its book


def test_a_long_connect_four_search_holds_up_no_other_request(db_path, served):
    """The perfect player's search of a position past its opening book (most of a second, holding
    Python's GIL) runs in a process of its own: a tic-tac-toe request sent while it runs is answered
    first, and the values are bitbully's, as `query --json` gives them."""
    pytest.importorskip("bitbully")
    s = served()
    done = []

    def slow():
        done.append(("c4", s.get("/api/query", game="connect(4,7,6)", position=SLOW_C4)))
    worker = threading.Thread(target=slow)
    worker.start()
    import time
    time.sleep(0.3)                                   # the Connect Four request is in: its search has begun
    done.append(("tictactoe", s.get("/api/query", game="tictactoe", position=".../.../...")))
    worker.join(timeout=120)
    assert [name for name, _ in done] == ["tictactoe", "c4"]
    assert all(r.status_code == 200 for _, r in done)
    page = done[1][1].json()
    assert page["perfect"] == cli_json(db_path, "query", "connect(4,7,6)", SLOW_C4)["perfect"]


def test_a_request_cut_short_by_the_servers_stop_is_answered_in_one_line():
    """A handler still running when Ctrl-C or SIGTERM stops the server is cancelled (uvicorn's graceful
    shutdown): the endpoint answers 503 with one line, not a bare 500 and a traceback."""
    import asyncio

    from educable.web.app import api

    async def cut_short(request):
        raise asyncio.CancelledError("Task cancelled, timeout graceful shutdown exceeded")

    response = asyncio.run(api(cut_short)(None))
    assert response.status_code == 503
    assert json.loads(response.body) == {"error": "the server is stopping (Ctrl-C or SIGTERM): ask again once it runs"}
