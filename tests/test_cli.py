"""The command line, through click's runner and as a real process."""
import json
import os
import subprocess
import sqlite3
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


from conftest import EDUCABLE
from conftest import cli as run
from conftest import cli_json as run_json


def test_games_lists_both_seed_games(db_path):
    names = {g["game"] for g in run_json("games")}
    assert {"tictactoe", "hexapawn"} <= names


def test_solve_json_facts(db_path):
    t = run_json("solve", "tictactoe")
    assert (t["positions"], t["terminal"], t["winner"]) == (5478, 958, None)
    h = run_json("solve", "hexapawn")
    assert (h["positions"], h["terminal"], h["winner"]) == (135, 65, "black")


def test_show_draws_the_start(db_path):
    r = run("show", "hexapawn")
    assert r.exit_code == 0
    assert r.output.splitlines()[0].split() == ["B", "B", "B"]
    assert "123-789 w" in r.output


def test_query_lists_moves_with_exact_values(db_path):
    q = run_json("query", "tictactoe", "xo./.../...")
    by_move = {m["move"]: m["exact"] for m in q["moves"]}
    assert q["to_move"] == "x" and q["exact"] == "x"
    assert by_move["5"] == "x" and by_move["9"] == "draw" or by_move["9"] == "x"
    assert len(by_move) == 7
    assert run_json("query", "hexapawn", "123-789 w")["exact"] == "black"


def test_query_terminal_position(db_path):
    q = run_json("query", "tictactoe", "xxx/oo./...")
    assert q["result"] == "x" and q["moves"] == []


def test_eval_series_json_shape_and_counts(db_path):
    d = run_json("eval", "tictactoe", "minimax", "--vs", "random", "--games", "40", "--seed", "3")
    for side in ("as_first", "as_second"):
        assert set(d[side]) == {"win", "draw", "loss", "interval95", "cut"}
        counts = {k: d[side][k] for k in ("win", "draw", "loss")}
        assert sum(counts.values()) == 20
        assert d[side]["loss"] == 0  # minimax never loses
        for k, n in counts.items():
            lo, hi = d[side]["interval95"][k]
            assert lo <= n / 20 <= hi
        # Wilson's interval for 0 of 20: [0, z^2/(n+z^2)] = [0, 0.1611]
        assert d[side]["interval95"]["loss"] == [0.0, 0.1611]
    assert d == run_json("eval", "tictactoe", "minimax", "--vs", "random", "--games", "40", "--seed", "3")


def test_eval_exact_json(db_path):
    d = run_json("eval", "hexapawn", "minimax", "--exact")
    assert d["as_first"]["guaranteed"] == "loss" and d["as_first"]["perfect"] is True
    assert d["as_second"] == {"guaranteed": "win", "perfect": True, "mistakes": 0, "subgame_perfect": True}
    r = run_json("eval", "tictactoe", "random", "--exact")
    assert r["as_first"]["perfect"] is False


def test_eval_exact_pairing_probabilities(db_path):
    d = run_json("eval", "tictactoe", "random", "--vs", "random", "--exact")
    assert round(100 * d["as_first"]["win"], 3) == 58.492


@pytest.mark.parametrize("args, words", [
    (["show", "chess"], "unknown game 'chess'"),
    (["query", "tictactoe", "xxxx"], "bad tic-tac-toe position"),
    (["eval", "tictactoe", "nobody", "--vs", "random"], "unknown agent 'nobody'"),
    (["eval", "tictactoe", "random"], "--vs"),
    (["eval", "tictactoe", "random", "--vs", "random", "--games", "0"], "at least 2"),
    (["play", "tictactoe", "--as", "z"], "--as must be one of"),
])
def test_bad_input_is_one_line_and_exit_2(db_path, args, words):
    r = run(*args)
    assert r.exit_code == 2
    lines = [l for l in r.output.splitlines() if l.strip()]
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in r.output


def test_missing_database_folder_is_one_line(tmp_path):
    r = run("games", "--db", str(tmp_path / "no" / "kb.db"))
    assert r.exit_code == 2 and "does not exist" in r.output


def test_play_scripted_against_minimax_is_stored(db_path):
    # a bad move, an illegal move, then X plays square by square; minimax as O never loses
    r = run("play", "tictactoe", "--opponent", "minimax", "--seed", "1", input="zz\n5\n5\n1\n2\n3\n4\n6\n7\n8\n9\n")
    assert r.exit_code == 0, r.output
    assert "bad tic-tac-toe move" in r.output
    assert "illegal move 5" in r.output
    assert "game over" in r.output and "you win" not in r.output
    from educable.kb.db import open_kb
    row = open_kb(db_path).execute("SELECT first, second, result, moves FROM matches WHERE source='play'").fetchone()
    assert row[0] == "human" and row[1] == "minimax" and row[2] in ("o", "draw")
    assert json.loads(row[3])[0] == "5"


def test_play_end_of_input_abandons_cleanly(db_path):
    r = run("play", "hexapawn", "--opponent", "random", "--as", "black", "--seed", "2", input="")
    assert r.exit_code == 0 and "abandoned" in r.output
    from educable.kb.db import open_kb
    row = open_kb(db_path).execute("SELECT first, second, result FROM matches").fetchone()
    assert row == ("random", "human", None)


def test_real_process_play_and_error(tmp_path):
    exe = Path(sys.executable).parent / "educable"
    env = dict(os.environ, EDUCABLE_DB=str(tmp_path / "kb.db"))
    p = subprocess.run([str(exe), "play", "hexapawn", "--opponent", "minimax", "--seed", "5"],
                       input="2-5\n1-4\n3-6\n4-7\n5-8\n6-9\n1-5\n", capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "game over: black wins" in p.stdout  # black wins hexapawn with perfect play
    bad = subprocess.run([str(exe), "show", "hexapawn", "9-1 x"], capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("educable: error: bad hexapawn position")


def test_games_kept_anywhere_load_from_games_dir_and_the_environment(tmp_path):
    """tests/data/count3.pl (add 1 or 2 to a counter; who reaches 3 wins) from a folder outside
    rules/: by hand, 6 states (0 a, 1 b, 2 b, 2 a, 3 a, 3 b) and the second player wins."""
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "count3.pl").write_text((ROOT / "tests" / "data" / "count3.pl").read_text())
    exe = EDUCABLE
    env = {**os.environ, "EDUCABLE_DB": str(tmp_path / "kb.db")}
    p = subprocess.run([exe, "--games-dir", str(folder), "solve", "count3", "--json"], capture_output=True,
                       text=True, env=env, timeout=60)
    d = json.loads(p.stdout)
    assert (d["positions"], d["terminal"], d["winner"]) == (6, 2, "b")
    p = subprocess.run([exe, "query", "count3", "1 b", "--json"], capture_output=True, text=True,
                       env={**env, "EDUCABLE_GAMES": str(folder)}, timeout=60)
    assert json.loads(p.stdout)["exact"] == "b"
    p = subprocess.run([exe, "--games-dir", str(tmp_path / "nowhere"), "games"], capture_output=True, text=True,
                       env=env, timeout=60)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "does not exist" in p.stderr


def test_moves_written_alike_are_one_move_of_the_stored_graph(tmp_path):
    """count3 with every move made twice, as add(K, left) and add(K, right), both written K: the
    solved graph lists each move text once, and the start (count 0) has four edges, two written 1
    leading to count 1 and two written 2 leading to count 2 (by hand)."""
    import sqlite3

    import numpy as np
    text = (ROOT / "tests" / "data" / "count3.pl").read_text().replace("count3", "twice3")
    for old, new in (("game:legal(twice3, N, _, K) :- member(K, [1, 2]), N + K =< 3.",
                      "game:legal(twice3, N, _, add(K, S)) :- member(K, [1, 2]), N + K =< 3, member(S, [left, right])."),
                     ("game:next(twice3, N, _, K, N1)", "game:next(twice3, N, _, add(K, _), N1)"),
                     ("game:move_text(twice3, K, T)", "game:move_text(twice3, add(K, _), T)"),
                     ("atom_number(A, K), memberchk(K, [1, 2]) -> true", "atom_number(A, K), memberchk(K, [1, 2]) -> M = add(K, left)"),
                     ("game:parse_move(twice3, Text, K)", "game:parse_move(twice3, Text, M)")):
        assert old in text, old
        text = text.replace(old, new)
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "twice3.pl").write_text(text)
    exe = EDUCABLE
    db = tmp_path / "kb.db"
    p = subprocess.run([exe, "--games-dir", str(folder), "solve", "twice3", "--json"], capture_output=True,
                       text=True, env={**os.environ, "EDUCABLE_DB": str(db)}, timeout=60)
    assert p.returncode == 0, p.stderr
    with sqlite3.connect(db) as conn:
        moves, start, target, move = conn.execute("SELECT moves, start, target, move FROM graphs").fetchone()
        key_of = dict(conn.execute("SELECT id, key FROM positions"))
    moves = json.loads(moves)
    assert sorted(moves) == ["1", "2"]
    start, target, move = (np.frombuffer(b, t) for b, t in ((start, "<i8"), (target, "<i4"), (move, "<i4")))
    edges = sorted((moves[move[e]], key_of[int(target[e])]) for e in range(start[0], start[1]))
    assert edges == [("1", "1 b"), ("1", "1 b"), ("2", "2 b"), ("2", "2 b")]


HEAVY = ("numba", "dask", "distributed", "matplotlib", "sqlite_utils", "numpy")


def test_cli_starts_without_the_heavy_libraries():
    """`import cli` (all `educable --help` needs) loads none of numba, dask, matplotlib, sqlite-utils
    or numpy, nor does `show`, nor `games`, which opens the knowledge base (a command reads it through
    kb.db.CommandDatabase: sqlite-utils' import was 48 ms of a command taking 0.3 s)."""
    probe = ("import sys; sys.argv = ['educable'] + sys.argv[1:]\n"
             "from educable import cli\n"
             "if len(sys.argv) > 1:\n"
             "    try: cli.main()\n"
             "    except SystemExit: pass\n"
             f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))")
    alone = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    assert alone.stdout.split("\n")[-2] == ""
    show = subprocess.run([sys.executable, "-c", probe, "show", "tictactoe"], capture_output=True, text=True,
                          cwd=ROOT)
    assert show.stdout.split("\n")[-2] == "", show.stdout      # drawing a board: no numpy, no database either
    games = subprocess.run([sys.executable, "-c", probe, "games"], capture_output=True, text=True, cwd=ROOT)
    assert games.returncode == 0 and "tictactoe" in games.stdout, games.stderr
    assert games.stdout.split("\n")[-2] == "", games.stdout


def test_a_command_reads_the_knowledge_base_without_sqlite_utils_and_the_library_keeps_it_whole(tmp_path):
    """A command of the command line (LEAN_IMPORT) reads and writes through kb.db.CommandDatabase:
    sqlite-utils is not imported, and its rows are what sqlite-utils' own Database gives for the same
    statements on the same file (a repeated column numbered as sqlite-utils numbers it).  Anything
    else asked of it (the table API) loads sqlite-utils then, still without numpy.  The library, in
    the user's own process, hands out sqlite-utils' Database whole (its numpy types mapped)."""
    probe = ("import json, sys\n"
             "from educable.kb import db\n"
             "db.LEAN_IMPORT = sys.argv[1] == 'lean'\n"
             "kb = db.open_kb(sys.argv[2])\n"
             "kb.execute(\"INSERT INTO agents (name, game, learner, created) VALUES (?, 'g', 'qlearn', 'now')\", ['a'])\n"
             "kb.execute(\"INSERT INTO agents (name, game, learner, created) VALUES (:n, 'g', 'qlearn', 'now')\", {'n': 'b'})\n"
             "rows = list(kb.query('SELECT name, game AS name, name AS name_2, 1 AS name FROM agents ORDER BY name'))\n"
             "before = 'sqlite_utils' in sys.modules\n"
             "count = kb['agents'].count\n"
             "import sqlite_utils.db as su\n"
             "print(json.dumps([rows, before, count, 'numpy' in sys.modules, su.np is not None]))")
    lean = subprocess.run([sys.executable, "-c", probe, "lean", str(tmp_path / "a.db")], capture_output=True,
                          text=True, cwd=ROOT, check=True)
    whole = subprocess.run([sys.executable, "-c", probe, "library", str(tmp_path / "b.db")], capture_output=True,
                           text=True, cwd=ROOT, check=True)
    lean_rows, lean_before, lean_count, lean_numpy, lean_np = json.loads(lean.stdout)
    whole_rows, whole_before, whole_count, whole_numpy, whole_np = json.loads(whole.stdout)
    expected = [{"name": n, "name_3": "g", "name_2": n, "name_4": 1} for n in ("a", "b")]
    assert lean_rows == whole_rows == expected
    assert [list(r) for r in lean_rows] == [list(r) for r in whole_rows]      # the same keys in the same order
    assert (lean_before, lean_count, lean_numpy, lean_np) == (False, 2, False, False)
    assert (whole_before, whole_count, whole_numpy, whole_np) == (True, 2, True, True)
    with pytest.raises(ValueError, match="returns rows"):
        from educable.kb.db import CommandDatabase
        CommandDatabase(sqlite3.connect(":memory:")).query("CREATE TABLE t (x)")


def test_long_work_says_so_every_few_seconds_when_stderr_is_no_terminal(db_path):
    """Compiling 4x4 tic-tac-toe's graph for eval --exact printed nothing for over a minute into a
    log; now a line every EDUCABLE_HEARTBEAT seconds (10 by default; the suite sets 0) names the work."""
    import os
    import subprocess
    import sys
    import threading
    from pathlib import Path
    exe = str(Path(sys.executable).parent / "educable")
    proc = subprocess.Popen([exe, "eval", "tictactoe(4,4,4)", "random", "--exact"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "EDUCABLE_HEARTBEAT": "1", "EDUCABLE_DB": str(db_path)})
    stop = threading.Timer(8, proc.kill)   # read until the line comes, for 8 s at most: the compilation runs for minutes
    stop.start()
    err = ""
    try:
        while not ("compiling the state graph:" in err and "positions found" in err) and (line := proc.stderr.readline()):
            err += line
    finally:
        stop.cancel()
        proc.kill()
        proc.wait()
    assert "tictactoe(4,4,4): compiling the state graph:" in err and "positions found" in err, err


def test_global_options_are_taken_before_or_after_the_command(tmp_path):
    """--games-dir and --debug belong to educable itself, --db to each command: typed on the other
    side of the command name they used to be 'No such option'."""
    import shutil
    exe = EDUCABLE
    games = tmp_path / "games"
    games.mkdir()
    shutil.copy(ROOT / "examples" / "pile.pl", games)
    db = str(tmp_path / "kb.db")

    def run(*args):
        return subprocess.run([exe, *args], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    p = run("solve", "pile", "--games-dir", str(games), "--db", db)
    assert p.returncode == 0 and "pile: 20 reachable positions" in p.stdout, p.stderr
    p = run("--db", db, "--games-dir", str(games), "train", "pile", "--agent", "pp", "--games", "10")
    assert p.returncode == 0, p.stderr
    p = run("--db", db, "agents", "--debug")
    assert p.returncode == 0 and "pp" in p.stdout, p.stderr
    p = run("eval", "pile", "pp", "--vs", "random", "--games", "2", "--db", db)       # no --games-dir: the hint
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "holds 1 agent(s) of it (pp)" in p.stderr and "--games-dir FOLDER" in p.stderr
    p = run("query", "tictactoe", ".../.../...", "--agent", "nobody", "--db", db)
    assert p.returncode == 2 and "unknown agent 'nobody' for tictactoe in kb.db" in p.stderr, p.stderr


def test_an_empty_knowledge_base_says_where_to_start_instead_of_printing_nothing(db_path):
    for args, words in ((("agents",), "no learned agents yet"), (("runs",), "no training runs yet"),
                        (("runs", "--agent", "q"), "no training runs of q yet")):
        r = run(*args)
        assert r.exit_code == 0 and r.output.startswith(words) and "educable train --help" in r.output, r.output


@pytest.mark.parametrize("count", ["٤", "4_0", " 4", "+4", "４"])
def test_counts_are_ascii_digits_on_every_command(db_path, count):
    """Python's int() takes Arabic-Indic and full-width digits, '_' and spaces: `tournament --games ٤`
    played 4 games a pairing.  Every whole-number option now reads ASCII digits only."""
    from conftest import one_line
    for args in (("tournament", "tictactoe", "random", "minimax", "--games", count),
                 ("train", "tictactoe", "--agent", "a", "--games", count),
                 ("eval", "tictactoe", "random", "--games", count)):
        one_line(run(*args, "--db", str(db_path)), 2, "is not a whole number (ASCII digits)")
    assert not db_path.exists()


@pytest.mark.parametrize("number", ["١", "0.٥", "1_0", " 1", "１"])
def test_a_learners_numbers_are_ascii_too(db_path, number):
    """Python's float() takes '١' (one), '1_0' and ' 1': `train --alpha ١` trained with a step of 1."""
    from conftest import one_line
    for args in (("train", "tictactoe", "--learner", "ntuple", "--agent", "a", "--alpha", number),
                 ("train", "tictactoe", "--learner", "qlearn", "--agent", "a", "--epsilon", number)):
        one_line(run(*args, "--db", str(db_path)), 2, "is not a number (ASCII digits)")
    assert not db_path.exists()


@pytest.mark.parametrize("name", ["connect(٣,4,4)", "hexapawn(４,4)", "nim(1,3,٥)"])
def test_a_familys_numbers_are_ascii_digits_in_a_game_name(db_path, name):
    """SWI-Prolog reads Arabic-Indic and full-width digits as numbers: connect(٣,4,4) was played, and
    solved and stored, as connect(3,4,4) under a second name."""
    from conftest import one_line
    one_line(run("show", name), 2, "numbers are written in ASCII digits")
    one_line(run("solve", name, "--db", str(db_path)), 2, "numbers are written in ASCII digits")


def test_a_refused_command_leaves_no_new_knowledge_base_behind(db_path):
    """A tournament refused for its players (checked against the knowledge base, so after it was
    opened) created the file all the same."""
    from conftest import one_line
    one_line(run("tournament", "tictactoe", "random", "nobody", "--games", "2", "--db", str(db_path)), 2, "unknown agent")
    one_line(run("tournament", "tictactoe", "random", "--games", "2", "--db", str(db_path)), 2, "two players")
    assert not db_path.exists() and not list(db_path.parent.glob("kb.db*"))
    assert run("solve", "tictactoe", "--db", str(db_path)).exit_code == 0
    one_line(run("tournament", "tictactoe", "random", "nobody", "--games", "2", "--db", str(db_path)), 2, "unknown agent")
    assert db_path.exists(), "a knowledge base that was there before is never removed"


@pytest.mark.parametrize("args, given", [(["show", "tictactoe"], None), (["show", "nosuch"], None),
                                          (["games", "--json"], None),
                                          (["play", "hexapawn", "--opponent", "minimax", "--as", "white", "--seed", "1"],
                                           "2-5\nq\n")])
def test_the_suites_fork_server_runs_a_command_as_the_installed_educable_does(tmp_path, args, given):
    """The suite's commands are forked from a server that has done the imports (tests/zygote.py):
    the same output, errors and exit code as the installed command started from nothing."""
    from conftest import REAL_EDUCABLE
    env = {**os.environ, "EDUCABLE_DB": str(tmp_path / "kb.db")}
    forked, real = (subprocess.run([exe, *args], input=given, capture_output=True, text=True, env=env, timeout=120)
                    for exe in (EDUCABLE, REAL_EDUCABLE))
    assert (forked.returncode, forked.stdout, forked.stderr) == (real.returncode, real.stdout, real.stderr)


def test_the_suites_fork_server_passes_ctrl_c_on_to_the_command(tmp_path):
    """Ctrl-C to a forked command's client reaches the command: one line and exit 130, as for the
    installed command (tests/test_interrupt.py sends the signals to the installed command itself)."""
    import signal
    import time

    from conftest import EDUCABLE, interruptible
    proc = subprocess.Popen([EDUCABLE, "train", "tictactoe", "--learner", "ntuple", "--agent", "z", "--games",
                             "3000000", "--db", str(tmp_path / "kb.db")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=interruptible)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None and not (tmp_path / "kb.db").exists():
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith("interrupted"), err
