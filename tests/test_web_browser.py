"""The page of `educable serve` in a real browser: Debian's chromium (installed by make setup),
driven by Playwright with executable_path (no browser download), against a real server process.

A person's session: a whole tic-tac-toe game by clicks to a draw against minimax, the values
shown equal to `query --json`, a position set up by typing and a bad one refused in one line, a
hostile agent name shown as text with no script run, a punishment agent taught by one game of
hexapawn played by clicks (its games trained grows), and a live curve gaining points while
`educable train` runs in another process.  No page logs a JavaScript error.  With
EDUCABLE_SCREENSHOTS=DIR the pages are saved there (docs/window/ holds the ones docs/window.md shows).
"""
import json
import os
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from conftest import EDUCABLE

EXE = EDUCABLE          # the fork server's client (tests/zygote.py)
SHOTS = os.environ.get("EDUCABLE_SCREENSHOTS")


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    chromium = shutil.which("chromium")
    assert chromium, "chromium is missing: make setup installs Debian's chromium for these tests"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A page whose JavaScript errors and failed requests are collected; none allowed."""
    context = browser.new_context(viewport={"width": 1200, "height": 860})
    pg = context.new_page()
    pg.errors = []
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.dialogs = []
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    yield pg
    context.close()
    assert pg.errors == [], pg.errors


def shot(pg, name):
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def cli_json(db_path, *args):
    p = subprocess.run([EXE, *args, "--json", "--db", str(db_path)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def train(db_path, *args):
    p = subprocess.run([EXE, "train", *args, "--db", str(db_path)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr


def wait_turn(pg, after: int = 0):
    """Until it is the person's move (or the game is over) with more than ``after`` moves played."""
    pg.wait_for_function(f"(document.getElementById('status').textContent.startsWith('your move') || "
                         f"document.getElementById('status').textContent.startsWith('game over')) && "
                         f"document.querySelectorAll('#movelist li').length > {after} - 1 && "
                         f"document.querySelectorAll('#values tbody tr').length + "
                         f"(document.getElementById('status').textContent.startsWith('game over') ? 1 : 0) > 0",
                         timeout=60_000)


def played(pg) -> int:
    return pg.evaluate("() => document.querySelectorAll('#movelist li').length")


def values_table(pg):
    """The values table as {move: [cells...]}."""
    return pg.evaluate("""() => Object.fromEntries(Array.from(document.querySelectorAll('#values tbody tr[data-move]'))
        .map(tr => [tr.dataset.move, Array.from(tr.cells).map(td => td.textContent)]))""")


def test_a_whole_game_by_clicks_is_a_draw_against_minimax_and_the_values_are_querys(db_path, served, page):
    train(db_path, "tictactoe", "--learner", "qlearn", "--agent", "q", "--games", "500")
    s = served()
    page.goto(f"{s.url}/play?game=tictactoe&opponent=minimax&as=x&agent=q")
    wait_turn(page)
    expected = cli_json(db_path, "query", "tictactoe", ".../.../...", "--agent", "q")
    shown = values_table(page)
    assert set(shown) == {m["move"] for m in expected["moves"]}
    for m in expected["moves"]:
        assert shown[m["move"]][1] == "draw"                              # every first move draws
        assert shown[m["move"]][2] == f"{expected['agents'][0]['values'][m['move']]:.3f}"
    assert "-1 a loss, 0 a draw, +1 a win" in page.text_content("#scales span[data-agent='q']")   # Q's rewards
    shot(page, "play-tictactoe")
    while not page.text_content("#status").startswith("game over"):
        table = values_table(page)
        move = next(m for m, cells in table.items() if cells[1] in ("draw", "x wins"))   # keep the draw
        cell, n = int(move) - 1, played(page)
        page.click(f"#board g[data-cell='{cell}']")
        wait_turn(page, n + 1)
    assert page.text_content("#status") == "game over: draw"
    page.wait_for_function("document.getElementById('teach').textContent.startsWith('stored as match')")
    rows = sqlite3.connect(db_path).execute("SELECT first, second, result, source FROM matches").fetchall()
    assert rows == [("human", "minimax", "draw", "serve")]


def test_a_position_set_up_by_typing_and_a_bad_one_refused_in_one_line(db_path, served, page):
    s = served()
    page.goto(f"{s.url}/play?game=tictactoe&opponent=random&as=o")
    wait_turn(page)
    page.fill("#postext", "x../.o./..x")
    page.click("#setpos button")
    page.wait_for_function("document.querySelectorAll('#board circle').length === 3")
    cells = page.evaluate("() => Array.from(document.querySelectorAll('#board g')).map(g => g.querySelectorAll('circle').length)")
    assert cells == [1, 0, 0, 0, 1, 0, 0, 0, 1]
    assert page.text_content("#status").startswith("your move")          # o to move, the person
    page.fill("#postext", "zz")
    page.click("#setpos button")
    page.wait_for_function("document.getElementById('error').textContent.length > 0")
    error = page.text_content("#error")
    assert "bad tic-tac-toe position" in error and "\n" not in error
    shot(page, "bad-position")
    page.errors = [e for e in page.errors if "400" not in e]          # the refused request itself


def test_a_hostile_agent_name_is_text_and_runs_no_script(db_path, served, page):
    train(db_path, "tictactoe", "--learner", "qlearn", "--agent", "q", "--games", "50")
    name = "<img src=x onerror=alert(1)>"
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE agents SET name = ? WHERE name = 'q'", (name,))
    s = served()
    page.goto(s.url + "/")
    assert name in page.text_content("#agents")
    page.goto(f"{s.url}/play?game=tictactoe&opponent=random&agent={name}")
    wait_turn(page)
    assert name in page.text_content("#values thead")
    page.wait_for_timeout(300)
    assert page.dialogs == [] and page.evaluate("() => document.querySelectorAll('img').length") == 0


def test_one_game_by_clicks_teaches_a_punishment_agent(db_path, served, page):
    """Hexapawn against the six-pawns learner her, the person white, moving a pawn by two clicks
    (from, to): after the game her has one game more, as after educable play."""
    train(db_path, "hexapawn", "--agent", "her", "--games", "10")
    before = [a for a in cli_json(db_path, "agents") if a["name"] == "her"][0]["games_trained"]
    s = served()
    page.goto(f"{s.url}/play?game=hexapawn&opponent=her&as=white&agent=her")
    wait_turn(page)
    assert "This game will teach her" in page.text_content("#teach")
    shot(page, "play-hexapawn")
    while not page.text_content("#status").startswith("game over"):
        moves = page.evaluate("() => Array.from(document.querySelectorAll('#values tbody tr[data-move]')).map(tr => tr.dataset.move)")
        frm, to = (int(c) - 1 for c in moves[0].split("-"))
        n = played(page)
        page.click(f"#board g[data-cell='{frm}']")
        page.click(f"#board g[data-cell='{to}']")
        wait_turn(page, n + 1)
    page.wait_for_function("document.getElementById('teach').textContent.includes('learned')")
    after = [a for a in cli_json(db_path, "agents") if a["name"] == "her"][0]["games_trained"]
    assert after == before + 1
    page.goto(s.url + "/")
    assert f"{after:,}" in page.text_content("#agents")
    shot(page, "home")


def open_live_run(s, page):
    """Wait (two minutes at most) for a training to commit its first curve point, then open its live
    curve from the runs page."""
    deadline = time.time() + 120
    running = []
    while not running and time.time() < deadline:
        running = [r for r in s.get("/api/runs").json() if r["running"]]
        time.sleep(0.5)
    assert running, "the training committed no curve point within two minutes"
    page.goto(s.url + "/runs")
    page.click("#runs a:text('live')")
    page.wait_for_selector("#curve", timeout=60_000)    # the live page loaded (a check before it ran on /runs)


def test_a_live_curve_gains_points_while_a_training_runs(db_path, served, page):
    s = served()
    trainer = subprocess.Popen([EXE, "train", "tictactoe", "--learner", "ntuple", "--agent", "live", "--games",
                                "3000000", "--db", str(db_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        open_live_run(s, page)
        page.wait_for_function("Number(document.getElementById('curve').dataset.points || 0) > 0", timeout=60_000)
        first = int(page.get_attribute("#curve", "data-points"))
        page.wait_for_function(f"Number(document.getElementById('curve').dataset.points) > {first}", timeout=60_000)
        # the strength the commits stored (tic-tac-toe: the exact judgement; a commit is judged while
        # the judgements keep within 5% of the run, so a busy machine may leave one out) is drawn
        with sqlite3.connect(db_path) as conn:
            kinds = [json.loads(x)["kind"] for (x,) in conn.execute(
                "SELECT strength FROM curve_points WHERE agent = 'live' AND strength IS NOT NULL")]
        assert kinds and set(kinds) == {"exact"}
        assert page.locator("#strength-line").count() == 1
        shot(page, "live-curve")
    finally:
        trainer.terminate()
        trainer.wait(timeout=60)


def test_a_2048_runs_live_curve_shows_the_tiles_reached_and_the_score(db_path, served, page):
    """The n-tuple learner on 2048(3,3), trained in another process: its commits store the share of
    games reaching each tile and their mean score, and the page draws a line for each."""
    s = served()
    env = {**os.environ, "EDUCABLE_GAMES": str(Path(__file__).resolve().parent.parent / "examples" / "chance")}
    trainer = subprocess.Popen([EXE, "train", "2048(3,3)", "--learner", "ntuple", "--agent", "tiles", "--games",
                                "3000000", "--db", str(db_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=env)
    try:
        open_live_run(s, page)
        page.wait_for_function("Number(document.getElementById('curve').dataset.points || 0) > 1", timeout=60_000)
        with sqlite3.connect(db_path) as conn:
            shown = [json.loads(x) for (x,) in conn.execute(
                "SELECT strength FROM curve_points WHERE agent = 'tiles' AND strength IS NOT NULL")]
        assert shown and all(set(p["reached"]) == {"1024", "2048", "4096", "8192"} for p in shown)
        assert page.locator("#score-line").count() == 1 and page.locator("#tile-1024").count() == 1
        shot(page, "live-curve-2048")
    finally:
        trainer.terminate()
        trainer.wait(timeout=60)


def test_a_training_started_and_stopped_by_clicks_keeps_what_it_learned(db_path, served, page):
    """The lab's form (built from the learner's own option declarations) starts `educable train` as a
    process of its own; its live curve gains points on the runs page; Stop ends it as Ctrl-C does,
    and the agent keeps the games it committed."""
    s = served()
    page.goto(s.url + "/lab")
    page.select_option("#train-form select[name=game]", "tictactoe")
    page.select_option("#learner", "ntuple")
    assert page.locator("#options [name=alpha]").count() == 1          # the learner's own option is in the form
    page.fill("#train-form input[name=agent]", "clicked")
    page.fill("#train-form input[name=games]", "3000000")
    page.click("#start-train")
    page.wait_for_selector("#jobs tr[data-running=yes]", timeout=60_000)
    deadline = time.time() + 120
    running = []
    while not running and time.time() < deadline:
        running = [r for r in s.get("/api/runs").json() if r["running"] and r["agent"] == "clicked"]
        time.sleep(0.5)
    assert running, "the run committed no curve point within two minutes"
    shot(page, "lab-training")
    page.click("#jobs button.stop")
    page.wait_for_selector("#jobs tr[data-running=no]", timeout=90_000)
    job = s.get("/api/jobs").json()[0]
    assert job["exit_code"] == 130 and "kept" in job["last_line"], job
    agent = [a for a in cli_json(db_path, "agents") if a["name"] == "clicked"][0]
    assert agent["games_trained"] > 0


def test_a_tournament_by_clicks_shows_the_table_tournament_json_stored(db_path, served, page):
    train(db_path, "tictactoe", "--learner", "ntuple", "--agent", "td", "--games", "2000", "--seed", "1")
    s = served()
    page.goto(s.url + "/lab")
    page.select_option("#tournament-form select[name=game]", "tictactoe")
    page.fill("#tournament-form input[name=players]", "random minimax td")
    page.fill("#tournament-form input[name=games]", "20")
    page.click("#start-tournament")
    page.wait_for_selector("#jobs tr[data-running=no]", timeout=120_000)
    page.goto(s.url + "/lab")
    stored = s.get("/api/tournaments").json()[0]
    shown = page.evaluate("""() => Array.from(document.querySelectorAll('table.ratings tbody tr'))
        .map(tr => [tr.cells[0].textContent, tr.cells[1].textContent])""")
    assert [name for name, _ in shown] == [r["player"] for r in stored["ratings"]]
    assert [rating for _, rating in shown] == [f"{r['rating']:.0f}" if r["rating"] is not None else "–"
                                               for r in stored["ratings"]]
    assert stored["players"] == ["random", "minimax", "td"] and stored["games"] == 20
    shot(page, "lab-tournament")


def test_a_stored_game_is_replayed_with_its_mistake_marked(db_path, served, page):
    """x takes a corner, o answers on an edge (a draw thrown to a loss: the exact solver says only
    the centre holds), then the game goes on: the replay marks that move and only that one."""
    from educable.kb import store
    from educable.kb.db import open_kb
    db = open_kb(db_path)
    match = store.record_match(db, "tictactoe", "me", "you", ["1", "2", "5", "3", "9"], "x", "play")
    s = served()
    page.goto(s.url + f"/replay?match={match}")
    assert page.text_content("#mistake-count") == "1"
    page.click("#forward")
    page.wait_for_function("document.getElementById('replay').dataset.at === '1'")
    section = page.locator("section.ply[data-ply='1']")
    assert "mistake: a draw thrown to a loss" in section.text_content()
    assert page.locator("section.ply .mistake").count() == 1
    page.click("#forward")
    assert page.url.endswith("#ply=2")
    page.goto(s.url + "/matches")
    page.goto(s.url + f"/replay?match={match}#ply=1")                  # a shared link opens there
    page.wait_for_function("document.getElementById('replay').dataset.at === '1'")
    shot(page, "replay")


def test_a_position_set_up_by_clicks_is_judged_by_the_games_rules_then_played(db_path, served, page):
    """Tic-tac-toe's rules: x moves first, so with one x and one o it is x's move, with two x and one
    o it is o's; Connect Four's: no piece above an empty cell.  The page says so as the squares are
    clicked, and plays from the position it accepted (whose URL can be shared)."""
    s = served()
    page.goto(f"{s.url}/play?game=tictactoe&opponent=random&as=o")
    wait_turn(page)
    page.click("#edit")
    status = "document.getElementById('editstatus').textContent"
    page.wait_for_function(f"{status}.startsWith('legal')")
    page.click("#editclear")
    page.click("#board g[data-cell='0']")                               # x
    page.click("#board g[data-cell='4']")
    page.click("#board g[data-cell='4']")                               # o
    page.select_option("#editmover", "x")
    page.wait_for_function(f"{status} === 'legal: x to move — x../.o./...'")
    page.click("#board g[data-cell='8']")                               # a second x: o's move
    page.wait_for_function(f"{status}.includes('it is o to move, not x')")
    assert page.is_disabled("#editplay")
    page.select_option("#editmover", "o")
    page.wait_for_function(f"{status} === 'legal: o to move — x../.o./..x'")
    shot(page, "set-up-by-clicks")
    page.click("#editplay")
    page.wait_for_function("document.querySelectorAll('#board circle').length === 3")
    wait_turn(page)
    assert page.is_hidden("#editor")
    assert "position=x..%2F.o.%2F..x" in page.url
    cells = page.evaluate("() => Array.from(document.querySelectorAll('#board g')).map(g => g.querySelectorAll('circle').length)")
    assert cells == [1, 0, 0, 0, 1, 0, 0, 0, 1]
    assert set(values_table(page)) == {"2", "3", "4", "6", "7", "8"}
    page.goto(f"{s.url}/play?game=connect(3,4,4)&opponent=random&as=o")
    wait_turn(page)
    page.click("#edit")
    page.wait_for_function(f"{status}.startsWith('legal')")
    page.click("#editclear")
    page.click("#board g[data-cell='0']")                               # the top row, over an empty column
    page.wait_for_function(f"{status}.includes('cannot float above an empty cell')")
    assert "\n" not in page.text_content("#editstatus")
    page.errors = [e for e in page.errors if "400" not in e]          # the refused requests themselves


def test_dots_and_boxes_is_drawn_as_dots_lines_and_boxes_and_played_by_clicking_lines(db_path, served, page):
    """boxes(2,2): 9 dots, 12 lines, 4 boxes.  With lines 1, 3 and 7 drawn (three sides of the top
    left box), a's click on line 8 closes the box: it is a's, and a moves again (the rule)."""
    s = served()
    page.goto(f"{s.url}/play?game=boxes(2,2)&opponent=random&as=a&position=1,3,7%20....%20a")
    wait_turn(page)
    assert page.locator("#board circle.dot").count() == 9
    assert page.locator("#board g.line").count() == 12
    assert page.locator("#board g.box").count() == 4
    drawn = page.evaluate("() => Array.from(document.querySelectorAll('#board g.line.drawn')).map(g => g.dataset.line)")
    assert sorted(drawn, key=int) == ["1", "3", "7"]
    page.click("#board g.line[data-line='8'] rect.hit")
    page.wait_for_function("document.querySelectorAll('#board rect.owned').length === 1")
    assert page.evaluate("() => document.querySelector('#board g.box[data-box=\"0\"] text').textContent") == "a"
    assert page.text_content("#status") == "your move (a)"                # a closed a box: a moves again
    assert page.evaluate("() => Array.from(document.querySelectorAll('#movelist li')).map(li => li.textContent)") == ["8"]
    shot(page, "dots-and-boxes")


def test_a_sweeps_settings_are_drawn_as_curves_with_their_intervals(db_path, served, page):
    """Two settings of three seeds each, stored as a sweep stores them: each is drawn as its median
    line (from 100% lost to 0%, the seeds agreeing at the start) with its interval shaded."""
    from educable.kb.db import open_kb
    db = open_kb(db_path)
    with db.conn:
        db.conn.execute("INSERT INTO sweeps (id, command, args, grid, seeds, measure, status, started) "
                        "VALUES (1, 'train', '{}', '{\"reward\": [\"0\", \"1\"]}', 3, 'losses', 'complete', '2026-01-01')")
        for reward, curves in (("0", [[10, 6, 3], [10, 5, 1], [10, 7, 0]]), ("1", [[10, 9, 8], [10, 8, 8], [10, 9, 9]])):
            for seed, curve in enumerate(curves):
                db.conn.execute("INSERT INTO sweep_runs VALUES (1, ?, ?, ?, ?)",
                                (json.dumps({"reward": reward}), seed, sum(curve), json.dumps({"curve": curve})))
    s = served()
    page.goto(s.url + "/sweeps")
    page.wait_for_selector(".sweepcurve svg")
    assert page.evaluate("() => Array.from(document.querySelectorAll('.sweepcurve polyline.median')).map(p => p.dataset.setting)") \
        == ["reward=0", "reward=1"]
    assert page.locator(".sweepcurve polygon.band").count() == 2
    # reward=0: the medians of the seeds are 100%, 60% and 10% lost; the line falls in that proportion
    ys = page.evaluate("() => document.querySelector('.sweepcurve polyline.median').getAttribute('points')"
                       ".split(' ').map(p => Number(p.split(',')[1]))")
    top, bottom = ys[0], ys[-1]
    assert (ys[1] - top) / (bottom - top) == pytest.approx(0.4 / 0.9, abs=0.01)
    shot(page, "sweeps")


def test_a_connect_four_game_against_perfect_by_clicks_shows_every_moves_value(db_path, served, page):
    """Connect Four is a first-player win only by the centre column (Allis, 1988): perfect play as x
    opens there, and from then on every reply of o loses.  Clicked through to the end, each of o's
    turns shows every playable column with its value ("x wins in N moves"), and x wins."""
    pytest.importorskip("bitbully")
    s = served()
    page.goto(f"{s.url}/play?game=connect(4,7,6)&opponent=perfect&as=o")
    wait_turn(page)
    assert page.evaluate("() => Array.from(document.querySelectorAll('#movelist li')).map(li => li.textContent)") == ["4"]
    turns = 0
    while not page.text_content("#status").startswith("game over"):
        table = values_table(page)
        full = page.evaluate("() => document.querySelectorAll('#board .movebuttons button').length")
        assert len(table) == full and full >= 1
        assert all(cells[1].startswith("x wins in ") for cells in table.values()), table
        if turns == 0 and SHOTS:
            page.wait_for_timeout(500)                                  # the piece has dropped
            shot(page, "play-connect-four")
        move, n = next(iter(table)), played(page)
        page.click(f"#board .movebuttons button[data-move='{move}']")
        wait_turn(page, n + 2)
        turns += 1
    assert page.text_content("#status") == "game over: x wins"
    assert 3 <= turns <= 20


def test_2048_is_drawn_as_tiles_played_by_the_arrow_keys_and_stored_with_its_score(db_path, served, page):
    """2048(2,2), a game of score: its tiles drawn (drawn_as tiles), the person plays alone by the arrow
    keys, chance places the tiles, the running score shown; the finished game is stored with the
    score its moves made, as the reference written in tests/test_score.py replays it."""
    from test_score import moved
    s = served(env={"EDUCABLE_GAMES": str(Path(__file__).resolve().parent.parent / "examples" / "chance")})
    page.goto(f"{s.url}/play?game=2048(2,2)")
    wait_turn(page)
    assert page.locator("#board svg.tiles g.tile").count() == 4
    assert sorted(page.evaluate("() => Array.from(document.querySelectorAll('#board g.tile')).map(g => g.dataset.value)"),
                  key=int)[:2] == ["0", "0"]                     # two tiles on an empty board, two cells still empty
    assert page.locator("#movebuttons button, .movebuttons button").count() >= 2
    for k in range(200):
        if page.text_content("#status").startswith("game over"):
            break
        legal = page.evaluate("() => Array.from(document.querySelectorAll('.movebuttons button')).map(b => b.dataset.move)")
        before = played(page)               # counted before the key: the move may be listed before it is read
        page.keyboard.press({"up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight"}[legal[k % len(legal)]])
        wait_turn(page, before + 1)
    page.wait_for_function("document.getElementById('teach').textContent.startsWith('stored as match')")
    shot(page, "2048")
    moves, result = sqlite3.connect(db_path).execute("SELECT moves, result FROM matches").fetchone()
    board, total = (0, 0, 0, 0), 0
    for move in json.loads(moves):
        if "@" in move:
            value, cell = map(int, move.split("@"))
            board = board[:cell - 1] + (value,) + board[cell:]
        else:
            board, points = moved(board, 2, 2, move)
            total += points
    assert result == f"score({total})"
    assert page.text_content("#status") == f"game over: you scored {total}"


def test_pig_draws_the_face_the_die_last_showed(db_path, served, page):
    """pig(12,6): the person rolls by a button; chance reads the die (no button offers its faces) and
    the page draws the face it read, as the move list has it."""
    s = served(env={"EDUCABLE_GAMES": str(Path(__file__).resolve().parent.parent / "examples" / "chance")})
    page.goto(f"{s.url}/play?game=pig(12,6)&opponent=random&as=p1")
    wait_turn(page)
    assert page.locator(".die svg").count() == 0
    page.click(".movebuttons button[data-move='roll']")
    wait_turn(page, 2)
    moves = page.evaluate("() => Array.from(document.querySelectorAll('#movelist li')).map(li => li.textContent)")
    faces = [m for m in moves if m.isdigit()]
    assert moves[0] == "roll" and faces and 1 <= int(faces[-1]) <= 6
    assert page.get_attribute(".die svg", "data-face") == faces[-1]
    assert all(b.isalpha() for b in page.evaluate(
        "() => Array.from(document.querySelectorAll('.movebuttons button')).map(b => b.dataset.move)"))
    shot(page, "pig")


def test_a_run_on_a_game_of_score_shows_its_exact_expected_score(db_path, served, page):
    """A Q-learning run on 2048(2,2): its page names the last exact checkpoint as an expected score
    beside best play's, as `train --json` reported it."""
    chance_games = {"EDUCABLE_GAMES": str(Path(__file__).resolve().parent.parent / "examples" / "chance")}
    p = subprocess.run([EXE, "train", "2048(2,2)", "--learner", "qlearn", "--agent", "q", "--games", "2000", "--json",
                        "--db", str(db_path)], capture_output=True, text=True, timeout=300, env={**os.environ, **chance_games})
    assert p.returncode == 0, p.stderr
    exact = json.loads(p.stdout)["exact"]
    s = served(env=chance_games)
    page.goto(f"{s.url}/runs/1")
    page.wait_for_function("document.getElementById('checkpoints').textContent.length > 0")
    assert page.text_content("#checkpoints") == (f"Last exact checkpoint (after 2,000 games): expects a score of "
                                                 f"{exact['expected_score']:.3f} (best play {exact['best_expected_score']:.3f})")


DEEP_SEARCH = {"game": "2048", "position": "2,.,.,./.,.,.,./.,.,.,./.,.,.,2", "opponent": "expectimax:8", "moves": []}


def test_the_deepest_search_on_the_largest_board_is_refused_in_one_line_and_the_page_serves_meanwhile(served, page):
    """expectimax:8 on 2048's 4x4 board (minutes of search) runs in the page's search process: while it
    runs another page loads, and past its bound (--search-seconds) it is stopped and refused in one line.
    (The bound is the default 8 s: with 3, a loaded machine took longer to load the other page.)"""
    s = served()
    page.goto(f"{s.url}/play?game=2048")
    try:
        searched_meanwhile(s, page)
    finally:
        page.errors[:] = [e for e in page.errors if "503" not in e]       # the refusal's own console line


def searched_meanwhile(s, page) -> None:
    page.evaluate("""([token, body]) => {
        window.searchDone = false;
        window.searched = fetch('/api/move', {method: 'POST', body: JSON.stringify(body),
                                 headers: {'Content-Type': 'application/json', 'X-Educable-Token': token}})
            .then(r => r.json().then(j => { window.searchDone = true; return [r.status, j]; }));
    }""", [s.token, DEEP_SEARCH])
    other = page.context.new_page()
    other.goto(f"{s.url}/play?game=tictactoe")
    assert "tictactoe" in other.content()
    assert s.get("/api/games").status_code == 200
    assert page.evaluate("window.searchDone") is False, "the other requests were served while the search ran"
    status, answer = page.evaluate("window.searched")
    assert status == 503 and "ran past its bound of 8 s" in answer["error"] and "\n" not in answer["error"], answer
    reply = s.post("/api/move", {**DEEP_SEARCH, "opponent": "expectimax:1"})     # a new search process answers
    assert reply.status_code == 200 and reply.json()["move"] in ("up", "down", "left", "right"), reply.text


def test_ctrl_c_stops_the_server_while_a_search_runs(served):
    import signal
    import threading
    s = served()
    answers = []
    search = threading.Thread(target=lambda: answers.append(s.post("/api/move", DEEP_SEARCH)))
    search.start()
    time.sleep(2)                           # the search process has started and is searching
    s.proc.send_signal(signal.SIGINT)
    s.proc.wait(timeout=6)                  # before the search's own bound of 8 s would end it
    search.join(timeout=30)
    assert s.proc.returncode is not None
    assert "Traceback" not in s.proc.stderr.read()


def test_a_hand_of_poker_by_clicks_shows_only_your_card_until_the_end(db_path, served, page):
    """Kuhn poker on the page, against the equilibrium: while the hand goes on the page holds the
    person's view only (their card and the moves: never the other's card, nor chance's deal); at the
    end the whole position, the payoff, each decision against the equilibrium and the agent's
    exploitability (0, the equilibrium's).  The hand is stored as a match."""
    s = served()
    for _ in range(3):
        page.goto(f"{s.url}/play?game=kuhn&as=p2")
        seen = []
        while True:
            page.wait_for_function("document.querySelectorAll('.handmove').length > 0 || "
                                   "!document.getElementById('handend').hidden", timeout=60_000)
            if not page.evaluate("document.getElementById('handend').hidden"):
                break
            seen.append(page.text_content("#hand"))
            page.click(".handmove >> nth=0")               # pass (check or fold) whenever asked
            page.wait_for_function(f"document.querySelectorAll('#handlog li').length > {len(seen)}", timeout=60_000)
        mine = page.text_content("#handboard").split("p2 holds ")[1][0]
        theirs = page.text_content("#handboard").split("p1 holds ")[1][0]
        assert seen and all("holds" not in text for text in seen)
        assert all(theirs not in text.split("you see:")[1].split("(")[0] or theirs == mine for text in seen)
        assert not any(word in text for text in seen for word in ("Jack", "Queen", "King"))
        review = page.text_content("#handreview")
        assert "exploitability 0.000000" in review and ("against the equilibrium" in review or "never reaches" in review)
    shot(page, "play-kuhn")
    assert sqlite3.connect(db_path).execute("SELECT count(*) FROM matches WHERE game = 'kuhn'").fetchone()[0] == 3


def test_a_cfr_runs_live_curve_draws_its_exploitability(db_path, served, page):
    """The cfr learner on Leduc, trained in another process: each commit stores the exploitability
    measured exactly, and the page draws it live while the run goes on (then the finished run's)."""
    s = served()
    trainer = subprocess.Popen([EXE, "train", "leduc", "--learner", "cfr", "--agent", "cfrlive", "--iterations",
                                "200000", "--judge-every", "50", "--db", str(db_path)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        open_live_run(s, page)
        page.wait_for_function("Number(document.getElementById('curve').dataset.points || 0) > 1", timeout=60_000)
        first = int(page.get_attribute("#curve", "data-points"))
        page.wait_for_function(f"Number(document.getElementById('curve').dataset.points) > {first}", timeout=60_000)
        assert page.locator("#exploitability-line").count() == 1
        with sqlite3.connect(db_path) as conn:
            shown = [json.loads(x)["exploitability"] for (x,) in conn.execute(
                "SELECT strength FROM curve_points WHERE agent = 'cfrlive' ORDER BY games")]
        assert len(shown) > first and shown[-1] < shown[0]          # measured at each commit, and falling
        shot(page, "live-curve-cfr")
    finally:
        trainer.terminate()
        trainer.wait(timeout=60)
