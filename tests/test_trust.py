"""The page's trust boundary (docs/window.md): only requests addressed to the server by its own name
are answered (DNS rebinding is the attack), a POST needs its origin and its secret, and a job from
the page is an argument list of checked values: no name becomes an option, no request names a file
or an address of the server."""
import json
import sqlite3
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from conftest import http

GAME = {"game": "tictactoe", "opponent": "random", "human": "x", "moves": ["1", "4", "2", "5", "3"]}


def stored_games(db_path) -> int:
    return sqlite3.connect(db_path).execute("SELECT count(*) FROM matches").fetchone()[0]


def port_of(server) -> int:
    return int(server.url.rsplit(":", 1)[1])


@pytest.fixture(scope="module")
def one_server(tmp_path_factory):
    """One server for the requests that must be refused (each test checks nothing was stored)."""
    from conftest import Server, cli
    db_path = tmp_path_factory.mktemp("trust") / "kb.db"
    assert cli("solve", "tictactoe", "--db", str(db_path)).exit_code == 0
    server = Server(db_path)
    yield db_path, server
    server.stop()


@pytest.mark.parametrize("host", ["evil.example:{port}", "evil.example", "127.0.0.1:{other}", "localhost.evil.example:{port}",
                                  "127.0.0.1:{port}@evil.example", ""])
def test_a_request_addressed_to_another_name_is_refused_reads_included(one_server, host):
    db_path, s = one_server
    port = port_of(s)
    forged = host.format(port=port, other=port + 1)
    for path in ("/api/games", "/", "/lab", "/static/play.js"):
        r = http().get(s.url + path, headers={"Host": forged}, timeout=30)
        assert r.status_code == 403, (path, r.text)
        assert "\n" not in r.text.strip() and "DNS rebinding" in r.text
        assert s.token not in r.text
    r = http().post(s.url + "/api/finish", json=GAME, timeout=30,
                   headers={"Host": forged, "Origin": f"http://{forged}", "X-Educable-Token": s.token})
    assert r.status_code == 403 and "DNS rebinding" in r.json()["error"]
    assert stored_games(db_path) == 0


def test_the_servers_own_names_are_answered(one_server):
    _, s = one_server
    port = port_of(s)
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
        assert http().get(s.url + "/api/games", headers={"Host": host}, timeout=30).status_code == 200, host


@pytest.mark.parametrize("headers, words", [
    ({"Origin": "http://evil.example:{port}"}, "only the page itself"),
    ({"Origin": "http://127.0.0.1:{other}"}, "only the page itself"),           # another local server's page
    ({"Origin": "null"}, "only the page itself"),
    ({"X-Educable-Token": None}, "secret"),
    ({"X-Educable-Token": "guessed"}, "secret"),
])
def test_a_post_needs_the_pages_origin_and_the_servers_secret(one_server, headers, words):
    db_path, s = one_server
    port = port_of(s)
    sent = {"X-Educable-Token": s.token}
    for k, v in headers.items():
        if v is None:
            sent.pop(k)
        else:
            sent[k] = v.format(port=port, other=port + 1)
    for path, body in (("/api/finish", GAME), ("/api/jobs", {"kind": "tournament", "game": "tictactoe",
                                                               "players": ["random", "minimax"], "games": 2})):
        r = http().post(s.url + path, json=body, headers=sent, timeout=30)
        assert r.status_code == 403 and words in r.json()["error"], r.text
    assert stored_games(db_path) == 0 and http().get(s.url + "/api/jobs", timeout=30).json() == []


def test_the_page_carries_the_secret_and_a_script_with_it_may_post(db_path, served):
    s = served()
    html = http().get(s.url + "/play", timeout=30).text
    assert f'<meta name="educable-token" content="{s.token}">' in html
    r = http().post(s.url + "/api/finish", json=GAME, headers={"X-Educable-Token": s.token}, timeout=60)
    assert r.status_code == 200 and r.json()["result"] == "x"
    assert stored_games(db_path) == 1
    other = served()
    assert other.token != s.token, "each start makes a new secret"


def test_allow_host_adds_a_name_and_a_bad_one_is_one_line(db_path, served):
    s = served("--allow-host", "lab.example.org")
    port = port_of(s)
    assert http().get(s.url + "/api/games", headers={"Host": f"lab.example.org:{port}"}, timeout=30).status_code == 200
    assert http().get(s.url + "/api/games", headers={"Host": f"other.example.org:{port}"}, timeout=30).status_code == 403
    from conftest import cli, one_line
    one_line(cli("serve", "--allow-host", "lab.example.org:80", "--db", str(db_path)), 2, "without a port")


@pytest.fixture(scope="module")
def evil_folder(tmp_path_factory):
    """A folder of game files whose directive would leave a mark: a job that loaded it leaves the mark."""
    folder = tmp_path_factory.mktemp("evil")
    mark = folder / "loaded"
    (folder / "evil.pl").write_text(f":- open('{mark}', write, S), close(S).\n")
    return folder, mark


@pytest.mark.parametrize("players", [
    ["random", "minimax", "--games-dir", "{folder}"],
    ["random", "--games-dir={folder}"],
    ["random", "minimax", "--db", "{folder}/other.db"],
    ["-h", "random"],
    ["random", "--", "--games-dir", "{folder}"],
    ["random", "nosuchagent"],
])
def test_a_tournaments_player_names_never_become_options(one_server, evil_folder, players):
    db_path, s = one_server
    folder, mark = evil_folder
    body = {"kind": "tournament", "game": "tictactoe", "players": [p.format(folder=folder) for p in players], "games": 2}
    r = s.post("/api/jobs", body)
    assert r.status_code == 400, r.text
    assert "\n" not in r.json()["error"]
    assert not mark.exists() and not (folder / "other.db").exists()
    assert http().get(s.url + "/api/jobs", timeout=30).json() == []


@pytest.mark.parametrize("field_, value, words", [
    ("options", {"starts_file": "/etc/passwd"}, "names a file or an address"),
    ("options", {"tuples_file": "/etc/passwd"}, "names a file or an address"),
    ("options", {"scheduler": "tcp://10.0.0.1:8786"}, "names a file or an address"),
    ("options", {"tuples": "--games-dir=X"}, "--tuples"),
    ("agent", "--games-dir", "bad agent name"),
    ("game", "--games-dir", "unknown game"),
    ("learner", "--db", "unknown learner"),
])
def test_a_training_request_names_no_file_no_address_and_no_option(one_server, evil_folder, field_, value, words):
    db_path, s = one_server
    folder, mark = evil_folder
    body = {"kind": "train", "game": "tictactoe", "learner": "ntuple", "agent": "lab", "games": 10, "seed": 1,
            field_: json.loads(json.dumps(value).replace("X", str(folder)))}
    r = s.post("/api/jobs", body)
    assert r.status_code == 400 and words in r.json()["error"], r.text
    assert "root:" not in r.text                                 # a refusal never quotes a file
    assert not mark.exists()


def test_the_lab_form_offers_no_file_or_address_and_shows_the_servers_own(one_server):
    _, s = one_server
    learners = http().get(s.url + "/api/learners", timeout=30).json()
    places = {o["name"] for x in learners for o in x["options"] if o["place"]}
    assert places == {"starts_file", "tuples_file", "scheduler"}
    html = http().get(s.url + "/lab", timeout=30).text
    assert "this server's own settings" in html and "a local cluster" in html


# ---------------------------------------------------------------------------- in a real browser

ATTACK = """<!doctype html><title>elsewhere</title><script>
window.results = {};
(async () => {
  const target = TARGET;
  try { const r = await fetch(target + "/api/games"); results.read = "read " + r.status + " " + (await r.text()); }
  catch (e) { results.read = "blocked"; }
  try { const r = await fetch(target + "/"); results.page = "read " + r.status + " " + (await r.text()); }
  catch (e) { results.page = "blocked"; }
  try {
    const r = await fetch(target + "/api/finish", {method: "POST", headers: {"Content-Type": "application/json"},
                                                  body: JSON.stringify(GAME)});
    results.write = "answered " + r.status;
  } catch (e) { results.write = "blocked"; }
  try {      // a 'simple' request, which a browser sends without asking first: its answer stays hidden
    await fetch(target + "/api/finish", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"},
                                          body: JSON.stringify(GAME)});
    results.simple = "sent";
  } catch (e) { results.simple = "blocked"; }
  results.done = true;
})();
</script>"""


def test_a_page_of_another_origin_can_neither_read_nor_write_through_the_server(db_path, served, tmp_path):
    """A second local server on another port serves a page whose script asks the first for its data
    and posts a game to it; and the server's own address reached under another name (the browser
    resolves evil.test to 127.0.0.1, as DNS rebinding does) runs that script as a same-origin page.
    Neither reads anything or stores anything."""
    import shutil

    from playwright.sync_api import sync_playwright
    s = served()
    port = port_of(s)
    (tmp_path / "index.html").write_text(ATTACK.replace("TARGET", json.dumps(s.url)).replace("GAME", json.dumps(GAME)))

    class Quiet(SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(tmp_path), **kwargs)

        def log_message(self, *args):
            pass
    elsewhere = ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=elsewhere.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"),
                                        args=["--no-sandbox", "--host-resolver-rules=MAP evil.test 127.0.0.1"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{elsewhere.server_address[1]}/")
            page.wait_for_function("window.results && window.results.done", timeout=30_000)
            other_origin = page.evaluate("window.results")
            rebound = browser.new_page()
            answer = rebound.goto(f"http://evil.test:{port}/")
            shown = rebound.content()
            rebound.evaluate(ATTACK.split("<script>")[1].split("</script>")[0]
                             .replace("TARGET", '""').replace("GAME", json.dumps(GAME)))
            rebound.wait_for_function("window.results && window.results.done", timeout=30_000)
            same_name = rebound.evaluate("window.results")
            browser.close()
    finally:
        elsewhere.shutdown()
    assert other_origin["read"] == "blocked" and other_origin["page"] == "blocked", other_origin
    assert other_origin["write"] == "blocked", other_origin
    assert answer.status == 403 and "DNS rebinding" in shown and s.token not in shown
    assert same_name["read"].startswith("read 403") and same_name["page"].startswith("read 403"), same_name
    assert s.token not in json.dumps(same_name)
    assert same_name["write"] == "answered 403", same_name
    assert stored_games(db_path) == 0, "a page elsewhere stored a game"
    assert Path(db_path).exists()
