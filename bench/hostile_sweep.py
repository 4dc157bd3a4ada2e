"""A hostile sweep: every command run as a careless or hostile user would, each case in a process
of its own, and every outcome classified.  Not part of the test suite (it takes a quarter of an
hour); the suite holds a regression test for each class it found.

Classes counted: crashes (a signal: SIGSEGV, SIGABRT), internal errors, tracebacks, refusals that
are not one line or not exit 2, a refusal that changed the knowledge base, silent waits (a case
still running after 10 s with nothing printed), files written or commands run by a GDL file
(a file named pwned appearing), and agents merged by two writers.

    .venv/bin/python bench/hostile_sweep.py [--limit N] [--out bench/results/hostile_sweep.json]
    .venv/bin/python bench/hostile_sweep.py --only-trust --out bench/results/hostile_trust.json   # issue 69's classes
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

EXE = str(Path(sys.executable).parent / "educable")
ROOT = Path(__file__).resolve().parent.parent
SILENT_SECONDS = 10
CASE_SECONDS = 60

VALUES = ["", " ", "x" * 5000, "../../etc/passwd", "/dev/zero", "FIFO", "-1", "nan", "inf", "1e309", "9" * 40,
          "<script>alert(1)</script>", "'; DROP TABLE agents;--", "tictactoe(0,0,0)", "connect(99,99,99)",
          "hexapawn(1,1)", "nim()", "mcts:0", "alphabeta:99", "mcts:10+", "alphabeta:2+", "perfect", "ünï",
          "$(touch pwned)", "`touch pwned`", "a\tb", "x.o/.x./..o", "xxx/ooo/...", "1-4", "tictactoe", "p",
          "random", "connect(4,7,6)", "%s%s%n", "{}", "[]", "0", "2147483648", "²", "٣", "mcts:²", "alphabeta:٣+n"]

COMMANDS = [
    ["show", "{v}"], ["show", "tictactoe", "{v}"], ["query", "tictactoe", "{v}"], ["query", "{v}", ".../.../..."],
    ["query", "tictactoe", ".../.../...", "--agent", "{v}"], ["query", "tictactoe", ".../.../...", "--depth", "{v}"],
    ["solve", "{v}"], ["eval", "tictactoe", "{v}", "--vs", "random", "--games", "4"],
    ["eval", "tictactoe", "random", "--vs", "{v}", "--games", "4"], ["eval", "tictactoe", "{v}", "--exact"],
    ["train", "tictactoe", "--agent", "{v}", "--games", "5"], ["train", "{v}", "--agent", "t", "--games", "5"],
    ["train", "tictactoe", "--learner", "{v}", "--agent", "t"],
    ["train", "tictactoe", "--learner", "ntuple", "--agent", "t", "--games", "5", "--tuples-file", "{v}"],
    ["train", "tictactoe", "--learner", "ntuple", "--agent", "t", "--games", "{v}"],
    ["train", "tictactoe", "--learner", "ntuple", "--agent", "t", "--games", "5", "--neighbours", "{v}"],
    ["train", "tictactoe", "--agent", "t", "--games", "5", "--vs", "{v}"],
    ["agents", "{v}"], ["agents", "--game", "{v}"], ["runs", "--agent", "{v}"], ["judge", "{v}", "random", "--games", "2"],
    ["check", "{v}"], ["rules", "import", "{v}", "--agent", "r"], ["rules", "export", "{v}", "out.pl"],
    ["gdl", "import", "{v}", "--into", "gdlout"], ["doctor", "--db", "{v}"], ["race", "run", "--player", "{v}",
                                                                                 "--boards", "1", "--turns", "50"],
    ["race", "run", "--seed", "{v}", "--boards", "1", "--turns", "50"],
    ["sweep", "train", "hexapawn", "--learner", "punish", "--games", "3", "--grid", "{v}", "--seeds", "1", "--workers", "1"],
]

KIF_CALLS = ["(shell \"touch pwned\")", "(catch (shell \"touch pwned\"))", "(call shell \"touch pwned\")",
             "(assertz (pwned 1))", "(tell pwned)", "(open pwned write)", "(halt)", "(consult pwned)",
             "(not (shell \"touch pwned\"))", "(or (shell \"touch pwned\") (true (control a)))",
             "(process_create /bin/touch (pwned))", "(forall (shell \"touch pwned\"))"]
KIF_GAME = ["(role a)", "(role b)", "(init (control a))", "(init (cell 1 b))", "(init (cell 2 b))",
            "(<= (legal ?p (mark ?x)) (true (control ?p)) (true (cell ?x b)){0})",
            "(<= (legal a noop) (true (control b)))", "(<= (legal b noop) (true (control a)))",
            "(<= (next (cell ?x ?p)) (does ?p (mark ?x)))",
            "(<= (next (cell ?x ?p)) (true (cell ?x ?p)) (distinct ?p b))",
            "(<= (next (cell ?x b)) (true (cell ?x b)) (not (does a (mark ?x))) (not (does b (mark ?x))))",
            "(<= (next (control b)) (true (control a)))", "(<= (next (control a)) (true (control b)))",
            "(<= open (true (cell ?x b)))", "(<= terminal (not open){1})", "(<= terminal{2} (true (control z)))",
            "(goal a 50)", "(goal b 50)"]

EDITS = ["UPDATE ntuple_tuples SET cells = '1 2 99' WHERE tuple = 0", "UPDATE ntuple_tuples SET cells = 'a b c'",
         "UPDATE ntuple_weights SET pattern = '9x9' WHERE rowid = 1", "UPDATE ntuple_weights SET tuple = 999",
         "UPDATE agents SET params = json_set(params, '$.values', 2) WHERE name = 'n'",
         "UPDATE agents SET params = json_remove(params, '$.perms') WHERE name = 'n'", "DELETE FROM ntuple_tuples",
         "UPDATE agents SET params = 'x'", "UPDATE learned_values SET value = 'abc'", "UPDATE agents SET learner = 'zz'",
         "UPDATE agents SET game = 'nogame'", "UPDATE runs SET results = 'x'", "UPDATE agents SET games_trained = 'x'",
         "UPDATE learned_values SET visits = 1e400", "UPDATE rules SET pattern = 'zz'", "DELETE FROM members",
         "PRAGMA user_version = 0", "PRAGMA user_version = -1", "DROP TABLE runs", "UPDATE agents SET name = '<b>x'"]
EDIT_COMMANDS = [["agents"], ["eval", "tictactoe", "n", "--vs", "random", "--games", "2"], ["query", "tictactoe", ".../.../..."],
                 ["train", "tictactoe", "--learner", "ntuple", "--agent", "n", "--games", "5"], ["doctor"], ["runs"],
                 ["eval", "hexapawn", "p", "--exact"], ["play", "tictactoe", "--opponent", "n"]]


def dump(db: Path) -> list[str] | None:
    if not db.exists():
        return None
    try:
        return list(sqlite3.connect(db).iterdump())
    except sqlite3.Error:
        return ["unreadable"]


def classify(args: list[str], cwd: Path, db: Path, env: dict | None = None, stdin: str = "") -> dict:
    """Run one case; its outcome and the classes it falls in."""
    before = dump(db)
    t0 = time.perf_counter()
    proc = subprocess.Popen([EXE, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.PIPE,
                            text=True, errors="replace", env={**os.environ, "EDUCABLE_DB": str(db), **(env or {})})
    try:
        out, err = proc.communicate(stdin, timeout=CASE_SECONDS)
        timed_out = False
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        timed_out = True
    seconds = time.perf_counter() - t0
    classes = []
    rc = proc.returncode
    if rc < 0 and not timed_out:
        classes.append(f"crash (signal {-rc})")
    if "internal error" in err:
        classes.append("internal error")
    if "Traceback" in err or "Traceback" in out:
        classes.append("traceback")
    if rc == 2 and len(err.strip().splitlines()) != 1:
        classes.append("refusal not one line")
    if rc == 2 and dump(db) != before:
        classes.append("refusal changed the knowledge base")
    if seconds > SILENT_SECONDS and not (out.strip() or err.strip()):
        classes.append("silent wait over 10 s")
    if timed_out:
        classes.append("ran past the case's time")
    if rc == 0 and "--json" in args:
        try:
            json.loads(out)
        except ValueError:
            classes.append("--json output that is not JSON")
    if list(cwd.rglob("pwned*")):
        classes.append("a file written by input")
        for p in cwd.rglob("pwned*"):
            p.unlink()
    return {"args": [a[:60] for a in args], "rc": rc, "seconds": round(seconds, 2), "classes": classes,
            "line": (err.strip().splitlines() or [""])[-1][:200]}


def prepared(folder: Path) -> Path:
    """A knowledge base with a punishment, an n-tuple, a Q-learning and a rule-set agent."""
    db = folder / "base.db"
    for args in (["train", "hexapawn", "--agent", "p", "--games", "10"],
                 ["train", "tictactoe", "--learner", "ntuple", "--agent", "n", "--games", "100"],
                 ["train", "tictactoe", "--learner", "qlearn", "--agent", "q", "--games", "50"],
                 ["rules", "import", str(ROOT / "examples" / "never_lose_as_x.pl"), "--agent", "g"]):
        subprocess.run([EXE, *args], check=True, capture_output=True, env={**os.environ, "EDUCABLE_DB": str(db)})
    return db


def cases(folder: Path, base: Path):
    """(args, db, env, label) of every case."""
    os.mkfifo(folder / "FIFO")
    (folder / "gdlout").mkdir()
    for template, v in itertools.product(COMMANDS, VALUES):
        db = folder / "kb.db"
        shutil.copy(base, db)
        yield [a.replace("{v}", v) for a in template], db, None, "argument"
    for k, (slot, call) in enumerate(itertools.product(range(3), KIF_CALLS)):
        games = folder / f"kif{k}"
        games.mkdir()
        calls = ["", "", ""]
        calls[slot] = " " + call
        (games / "sheet.kif").write_text("\n".join(KIF_GAME).format(*calls) + "\n")
        for args in (["games"], ["check", "sheet"], ["gdl", "import", str(games / "sheet.kif"), "--into", str(folder / "gdlout"),
                                                    "--replace"], ["solve", "sheet"],
                     ["eval", "sheet", "random", "--vs", "random", "--games", "4"]):
            yield args, folder / "kb.db", {"EDUCABLE_GAMES": str(games)}, "gdl"
    for edit, command in itertools.product(EDITS, EDIT_COMMANDS):
        db = folder / "edited.db"
        shutil.copy(base, db)
        try:
            with sqlite3.connect(db) as conn:
                conn.executescript(edit)
        except sqlite3.Error:
            continue
        yield command, db, None, "edited"


PILE = (ROOT / "examples" / "pile.pl").read_text()
LEGAL = "game:legal(pile, Stones, _, Take) :-"
GAME_FILES = {   # a folder of its own each: (file, text); the commands below run with it as EDUCABLE_GAMES
    "prints": ("pile.pl", PILE.replace(LEGAL, 'game:legal(pile, _, _, _) :- format("hello~n"), fail.\n' + LEGAL)),
    "board": ("pile.pl", PILE.replace("game:board_lines(pile, Stones, _, [Line]) :-",
                                      'game:board_lines(pile, _, _, "abc") :- !.\ngame:board_lines(pile, Stones, _, [Line]) :-')),
    "halts": ("pile.pl", PILE.replace(LEGAL, "game:legal(pile, S, _, _) :- S < 9, halt.\n" + LEGAL)),
    "aborts": ("pile.pl", PILE.replace(LEGAL, "game:legal(pile, S, _, _) :- S < 9, abort.\n" + LEGAL)),
    "divides": ("pile.pl", PILE.replace(LEGAL, "game:legal(pile, S, _, _) :- S < 9, X is 1/0, X > 0.\n" + LEGAL)),
    "abolishes": ("pile.pl", PILE.replace(":- module(pile, []).", ":- module(pile, []).\n:- abolish(game:other_player/3).")),
    "expands": ("aaa.pl", ":- module(aaa, []).\nuser:term_expansion(game:game(_), []).\n"),
    "latin": ("latin.pl", ":- module(latin, []).\n% caf\xe9\ngame:game(latin).\n"),
}
GAME_FILE_COMMANDS = [["games"], ["check", "pile", "--json"], ["solve", "pile", "--json"], ["show", "pile"],
                      ["solve", "tictactoe", "--json"], ["eval", "pile", "random", "--vs", "random", "--games", "4"]]
QUITTERS = "import sys\ndef exits(v, g, n):\n    sys.exit(3)\ndef interrupts(v, g, n):\n    raise KeyboardInterrupt\n"
CLASS_CASES = [   # (args, edit of the copied knowledge base or None)
    (["train", "nim(0)", "--learner", "ga", "--agent", "g0", "--cycles", "2"], None),
    (["sweep", "train", "hexapawn", "--learner", "punish", "--grid", "games=0,2", "--seeds", "1", "--workers", "1"], None),
    (["sweep", "train", "hexapawn", "--learner", "punish", "--grid", "plot=x.png", "--seeds", "1", "--workers", "1"], None),
    (["sweep", "race", "--player", "quitters:exits,random", "--boards", "2", "--turns", "20", "--workers", "1"], None),
    (["race", "run", "--player", "quitters:exits", "--boards", "2", "--turns", "20"], None),
    (["race", "run", "--player", "quitters:interrupts", "--boards", "2", "--turns", "20"], None),
    (["train", "connect(4,7,6)", "--learner", "ntuple", "--agent", "c", "--games", "10", "--until-perfect"], None),
    (["train", "connect(4,7,6)", "--learner", "qlearn", "--agent", "c", "--games", "10", "--until-perfect"], None),
    (["solve", "tictactoe", "--max-positions", ""], None),
    (["show", "boxes(2,2)", "1 aaaa a"], None),
    (["gdl", "import", str(ROOT / "examples" / "gdl" / "nim_gdl.kif"), "--name", "", "--into", "gdlout"], None),
    (["query", "tictactoe", ".../.../...", "--agent", "n"], "UPDATE agents SET learner = 'zz' WHERE name = 'n'"),
    (["query", "tictactoe", ".../.../..."], "UPDATE agents SET learner = 'zz' WHERE name = 'n'"),
    (["race", "run", "--resume", "1"], "UPDATE race_runs SET boards = 'abc', status = 'stopped'"),
    (["race", "run", "--resume", "1"], "UPDATE race_runs SET turns = 99999999999999, status = 'stopped'"),
    (["race", "run", "--resume", "1"], "UPDATE race_runs SET seed = 'q', status = 'stopped'"),
]


COIN = (ROOT / "examples" / "chance" / "coin.pl").read_text()
CHANCE_FILES = {   # issue 86's classes: each a coin.pl edited; the commands below run with its folder as EDUCABLE_GAMES
    "slow cycle": COIN.replace("game:next(coin, tossing, chance, Side, Side).",
                               "game:next(coin, tossing, chance, heads, start).\ngame:next(coin, tossing, chance, tails, tails).")
                      .replace("chance_weight(coin, tossing, heads, 3)", "chance_weight(coin, tossing, heads, 100000000000000)")
                      .replace("game:next_mover(coin, _, _, _, p2).", "game:next_mover(coin, _, _, start, p1) :- !.\n"
                               "game:next_mover(coin, _, _, _, p2)."),
    "endless draw": COIN.replace("game:next(coin, start, p1, stop, stopped).", "game:next(coin, start, p1, stop, start).")
                        .replace("game:next_mover(coin, _, _, _, p2).", "game:next_mover(coin, _, _, start, p1) :- !.\n"
                                 "game:next_mover(coin, _, _, _, p2)."),
    "huge weight": COIN.replace("chance_weight(coin, tossing, heads, 3)",
                                "chance_weight(coin, tossing, heads, 1000000000000000000000000000000)"),
    # the text forms left out: solve ended in an IndexError of an empty graph, the library in a LookupError
    "no text forms": "\n".join(line for line in COIN.splitlines()
                               if not line.startswith(("game:position_text", "game:parse_position", "game:parse_move",
                                                       "game:move_text", "game:board_lines"))),
}
CHANCE_COMMANDS = [["check", "coin", "--json"], ["solve", "coin"], ["solve", "coin", "--json"], ["query", "coin", "start p1"],
                   ["games"], ["eval", "coin", "random", "--exact"], ["eval", "coin", "random", "--vs", "random", "--games", "4"],
                   # training on a game that may never end: its games reported cut, not drawn
                   ["train", "coin", "--agent", "t", "--learner", "punish", "--games", "3"],
                   ["train", "coin", "--agent", "q", "--learner", "qlearn", "--games", "3"]]
OUTPUT_CASES = ["FIFO", "socket", "/dev/null", "/dev/full"]     # rules export AGENT onto each


def class_cases(folder: Path, base: Path):
    """A case or more for each class of wrong answer issue 50 named, after the sweep of 1,562."""
    (folder / "quitters.py").write_text(QUITTERS)
    subprocess.run([EXE, "race", "run", "--boards", "2", "--turns", "20"], check=True, capture_output=True,
                   env={**os.environ, "EDUCABLE_DB": str(base)})
    for args, edit in CLASS_CASES:
        db = folder / "cls.db"
        shutil.copy(base, db)
        if edit:
            with sqlite3.connect(db) as conn:
                conn.executescript(edit)
        yield args, db, {"PYTHONPATH": str(folder)}, "class"
    for kind, (name, text) in GAME_FILES.items():
        games = folder / f"gf-{kind}"
        games.mkdir()
        (games / name).write_bytes(text.encode("latin-1") if kind == "latin" else text.encode())
        for args in GAME_FILE_COMMANDS:
            yield args, folder / "kb.db", {"EDUCABLE_GAMES": str(games)}, "game file"
    for kind, text in CHANCE_FILES.items():
        games = folder / f"chance-{kind.replace(' ', '-')}"
        games.mkdir()
        (games / "coin.pl").write_text(text)
        for args in CHANCE_COMMANDS:
            yield args, folder / "kb.db", {"EDUCABLE_GAMES": str(games)}, f"chance: {kind}"
    import socket
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(folder / "socket"))
    for target in OUTPUT_CASES:                 # a FIFO without a reader, a socket, devices: never replaced
        db = folder / "out.db"
        shutil.copy(base, db)
        yield ["rules", "export", "g", target if target.startswith("/") else str(folder / target)], db, None, "output"


def signal_cases(folder: Path, base: Path) -> Counter:
    """Ctrl-C (to the whole process group, as a terminal sends it) on commands running on two
    workers, and two `solve` on one new file, 20 pairs: their classes."""
    out: Counter = Counter()
    for args in (["race", "run", "--boards", "400", "--workers", "2"],
                 ["train", "connect(4,7,6)", "--learner", "ntuple", "--agent", "w", "--games", "100000", "--workers", "2"]):
        for wait in (4, 8, 12):
            db = folder / "sig.db"
            shutil.copy(base, db)
            p = subprocess.Popen([EXE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 start_new_session=True, env={**os.environ, "EDUCABLE_DB": str(db)})
            time.sleep(wait)
            os.killpg(p.pid, signal.SIGINT)
            _, err = p.communicate(timeout=120)
            out["ctrl-c cases"] += 1
            if "Traceback" in err or "internal error" in err or p.returncode != 130:
                out["ctrl-c not one clean line"] += 1
    for i in range(20):
        db = folder / f"pair{i}.db"
        procs = [subprocess.Popen([EXE, "solve", "hexapawn", "--db", str(db)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True) for _ in range(2)]
        codes = [p.wait(timeout=120) for p in procs]
        out["solve pairs"] += 1
        if codes != [0, 0]:
            out["solve pairs with a failure"] += 1
    return out


def races(folder: Path, base: Path, n: int) -> Counter:
    """``n`` races of an n-tuple training and a rule import making one new agent: merged agents."""
    out: Counter = Counter()
    for i in range(n):
        db = folder / f"race{i}.db"
        shutil.copy(base, db)
        env = {**os.environ, "EDUCABLE_DB": str(db)}
        train = subprocess.Popen([EXE, "train", "tictactoe", "--learner", "ntuple", "--agent", "wz", "--games", "3000"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
        time.sleep(0.2 + 0.1 * (i % 8))
        imp = subprocess.run([EXE, "rules", "import", str(ROOT / "examples" / "never_lose_as_x.pl"), "--agent", "wz"],
                             capture_output=True, env=env, text=True)
        train.wait()
        conn = sqlite3.connect(db)
        learner = conn.execute("SELECT learner FROM agents WHERE name = 'wz'").fetchone()
        weights = conn.execute("SELECT count(*) FROM ntuple_weights WHERE agent = 'wz'").fetchone()[0]
        rules = conn.execute("SELECT count(*) FROM rules WHERE agent = 'wz'").fetchone()[0]
        merged = learner is None or (weights and rules) or (learner[0] == "rules" and weights) or (
            learner[0] == "ntuple" and rules)
        out["merged" if merged else "whole"] += 1
        out[f"exits {sorted([train.returncode, imp.returncode])}"] += 1
    return out


OPTION_LIKE = ["--games-dir", "--games-dir={folder}", "--db", "--db={folder}/other.db", "-h", "--", "--help",
               "--tuples-file={folder}/evil.pl", "--scheduler=tcp://127.0.0.1:1"]
PLACES = {"starts_file": "/etc/passwd", "tuples_file": "/etc/passwd", "scheduler": "tcp://127.0.0.1:1"}
GAME = {"game": "tictactoe", "opponent": "random", "human": "x", "moves": ["1", "4", "2", "5", "3"]}


def trust_cases(folder: Path, base: Path) -> Counter:
    """The trust boundary of issue 69, each case checked against what must hold: a forged Host or
    Origin, a post without the secret, a name that looks like an option in every job field, every
    field naming a file or an address of the server, the requests that were 500s, an output onto the
    knowledge base through a link, an included game file edited to hang.  Its problems by class."""
    import re

    import httpx
    out: Counter = Counter()
    evil = folder / "evil"
    evil.mkdir()
    mark = evil / "pwned"
    (evil / "evil.pl").write_text(f":- open('{mark}', write, S), close(S).\n")
    db = folder / "trust.db"
    shutil.copy(base, db)
    before = dump(db)
    server = subprocess.Popen([EXE, "serve", "--port", "0", "--db", str(db)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    url = re.search(r"at (http://[^/\s]+)/", line).group(1)
    token = re.search(r"X-Educable-Token: (\S+)", line).group(1)
    port = int(url.rsplit(":", 1)[1])

    def check(name: str, ok: bool) -> None:
        out["cases"] += 1
        if not ok:
            out[name] += 1
            print(f"  trust: {name}", flush=True)
    try:
        for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1:{port + 1}", f"localhost.evil:{port}", ""):
            for path in ("/", "/api/games", "/api/agents", "/lab", "/runs", "/api/jobs", "/static/play.js"):
                r = httpx.get(url + path, headers={"Host": host}, timeout=30)
                check("a forged Host answered", r.status_code == 403 and token not in r.text)
            r = httpx.post(url + "/api/finish", json=GAME, timeout=30,
                           headers={"Host": host, "Origin": f"http://{host}", "X-Educable-Token": token})
            check("a forged Host stored a game", r.status_code == 403)
        for origin in ("http://evil.example", f"http://127.0.0.1:{port + 1}", "null", f"https://127.0.0.1:{port}"):
            for path, body in (("/api/finish", GAME), ("/api/move", {**GAME, "position": ".../.../..."}),
                               ("/api/jobs", {"kind": "tournament", "game": "tictactoe", "players": ["random", "minimax"],
                                              "games": 2})):
                r = httpx.post(url + path, json=body, headers={"Origin": origin, "X-Educable-Token": token}, timeout=30)
                check("a forged Origin posted", r.status_code == 403)
        for secret in (None, "", "guess", token[:-1]):
            headers = {} if secret is None else {"X-Educable-Token": secret}
            r = httpx.post(url + "/api/finish", json=GAME, headers=headers, timeout=30)
            check("a post without the secret", r.status_code == 403)
        good = {"X-Educable-Token": token}
        train = {"kind": "train", "game": "tictactoe", "learner": "qlearn", "agent": "lab", "games": 10, "seed": 1}
        for v in OPTION_LIKE:
            v = v.format(folder=evil)
            bodies = [{"kind": "tournament", "game": "tictactoe", "players": ["random", v], "games": 2},
                      {"kind": "tournament", "game": v, "players": ["random", "minimax"], "games": 2},
                      {**train, "agent": v}, {**train, "game": v}, {**train, "learner": v},
                      {**train, "options": {"alpha": v}}, {**train, "kind": v}]
            for body in bodies:
                r = httpx.post(url + "/api/jobs", json=body, headers=good, timeout=60)
                check("a name became an option", r.status_code == 400 and not mark.exists()
                      and not (evil / "other.db").exists())
        for name, value in PLACES.items():
            r = httpx.post(url + "/api/jobs", json={**train, "learner": "ntuple", "options": {name: value}}, headers=good,
                           timeout=60)
            check("a request named a server path or address", r.status_code == 400 and "root:" not in r.text)
        for path in ("/api/runs/99999999999999999999999", "/runs/99999999999999999999999", "/api/runs/0",
                     "/api/replay?match=99999999999999999999999"):
            check("a 500", httpx.get(url + path, timeout=30).status_code < 500)
        for body in ("[" * 100_000 + "]" * 100_000, '{"a":' * 5000 + "1" + "}" * 5000):
            r = httpx.post(url + "/api/move", content=body, headers={**good, "Content-Type": "application/json"}, timeout=30)
            check("a 500", r.status_code == 400)
        check("a job left running or started", httpx.get(url + "/api/jobs", timeout=30).json() == [])
    finally:
        server.terminate()
        server.wait(timeout=30)
    check("the knowledge base changed", dump(db) == before)
    for suffix, args in ((".txt", ["judge", "tictactoe", "q", "--per-opening", "1", "--openings", "0", "--games", "2",
                                   "--starts-out"]),
                         (".pl", ["rules", "export", "g"]), (".png", ["train", "tictactoe", "--learner", "qlearn",
                                                                      "--agent", "q", "--games", "10", "--plot"])):
        for link in (os.symlink, os.link):
            target = folder / f"kb-link{suffix}"
            target.unlink(missing_ok=True)
            link(db, target)
            r = subprocess.run([EXE, *args, str(target), "--db", str(db)], capture_output=True, text=True, timeout=120)
            check("an output went onto the knowledge base", r.returncode == 2 and dump(db) == before)
    games = folder / "inc"
    games.mkdir()
    (games / "count3.pl").write_text((ROOT / "tests" / "data" / "count3.pl").read_text() + ":- include(part).\n")
    (games / "part.pl").write_text("count3_note(1).\n")
    env = {**os.environ, "EDUCABLE_CACHE": str(folder / "cache"), "EDUCABLE_GAMES": str(games)}
    subprocess.run([EXE, "games"], capture_output=True, env=env, timeout=120)
    (games / "part.pl").write_text(":- repeat, fail.\n")
    try:
        r = subprocess.run([EXE, "games"], capture_output=True, text=True, env=env, timeout=CASE_SECONDS)
        check("an included file edited to hang hung", r.returncode == 0 and "count3            BROKEN" in r.stdout)
    except subprocess.TimeoutExpired:
        check("an included file edited to hang hung", False)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="run only the first N cases")
    ap.add_argument("--races", type=int, default=20)
    ap.add_argument("--out", default="bench/results/hostile_sweep.json")
    ap.add_argument("--only-trust", action="store_true", help="only the trust boundary's cases (issue 69), in a minute")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="hostile-"))
    base = prepared(folder)
    if args.only_trust:
        trust = trust_cases(folder, base)
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"trust": dict(trust)}, indent=1))
        print(json.dumps(dict(trust), indent=1))
        return
    results, counts, kinds = [], Counter(), Counter()
    t0 = time.perf_counter()
    every = itertools.chain(cases(folder, base), class_cases(folder, base))
    for n, (case_args, db, env, kind) in enumerate(itertools.islice(every, args.limit), 1):
        r = classify(case_args, folder, db, env)
        r["kind"] = kind
        results.append(r)
        kinds[kind] += 1
        counts.update(r["classes"])
        if r["classes"]:
            print(f"  {kind}: {' '.join(r['args'])[:100]} -> {r['classes']} {r['line'][:120]}", flush=True)
        if n % 100 == 0:
            print(f"{n} cases, {time.perf_counter() - t0:.0f} s", flush=True)
    race = races(folder, base, args.races)
    signals = signal_cases(folder, base)
    trust = trust_cases(folder, base)
    summary = {"cases": len(results), "by_kind": dict(kinds), "problems": dict(counts), "races": dict(race),
               "signals": dict(signals), "trust": dict(trust),
               "exit_codes": dict(Counter(r["rc"] for r in results)), "seconds": round(time.perf_counter() - t0)}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"summary": summary, "problem_cases": [r for r in results if r["classes"]]},
                                         indent=1))
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
