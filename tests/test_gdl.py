"""GDL games (rules/gdl.pl): our own GDL tic-tac-toe and Nim 1-3-5 agree with the native games on
every reachable position (counts, results, exact values, moves), every learner trains on them, and
what GDL educable does not play is refused in one line naming the reason."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EDUCABLE

ROOT = Path(__file__).resolve().parent.parent
GDL = ROOT / "examples" / "gdl"
EXE = EDUCABLE          # the fork server's client (tests/zygote.py)

# Run in a fresh process with the GDL folder added (the engine loads game folders once, at start).
COMPARE = r'''
import json, re, sys
from educable.bridge import graphs
from educable.learners.graph import DRAW, ONGOING

gdl_game, native_game, to_native, move_to_native = sys.argv[1:5]
to_native = eval(to_native); move_to_native = eval(move_to_native) if move_to_native != "None" else None
g, n = graphs.state_graph(None, gdl_game), graphs.state_graph(None, native_game)
def result(graph, s):
    w = int(graph.winner[s])
    return None if w == ONGOING else ("draw" if w == DRAW else graph.players[w])
bad = []
for s, key in enumerate(g.keys):
    nk = to_native(key)
    t = n.index.get(nk)
    if t is None:
        bad.append(f"{key}: no native state {nk}"); continue
    if n.players[int(n.mover[t])] != {"xplayer": "x", "oplayer": "o"}.get(g.players[int(g.mover[s])], g.players[int(g.mover[s])]):
        bad.append(f"{key}: mover differs")
    if int(g.value[s]) != int(n.value[t]):
        bad.append(f"{key}: value {g.value[s]} vs {n.value[t]}")
    gr, nr = result(g, s), result(n, t)
    if {"xplayer": "x", "oplayer": "o"}.get(gr, gr) != nr:
        bad.append(f"{key}: result {gr} vs {nr}")
    gm = {(move_to_native(g.moves[g.move[e]]) if move_to_native else "")+"->"+to_native(g.keys[g.target[e]])
          for e in range(g.start[s], g.start[s + 1])}
    nm = {(n.moves[n.move[e]] if move_to_native else "")+"->"+n.keys[n.target[e]] for e in range(n.start[t], n.start[t + 1])}
    if gm != nm:
        bad.append(f"{key}: moves {sorted(gm)} vs {sorted(nm)}")
print(json.dumps({"gdl": g.size, "native": n.size, "terminal": int((g.winner != ONGOING).sum()),
                  "value": int(g.value[0]), "bad": bad[:5], "n_bad": len(bad)}))
'''

TTT_TO_NATIVE = r'''lambda key: "/".join("".join({"b": ".", "x": "x", "o": "o"}[m] for r2, c, m in sorted(re.findall(r"\(cell (\d) (\d) (\w)\)", key)) if r2 == r) for r in "123")'''
TTT_MOVE = r'''lambda text: str((int(text[6]) - 1) * 3 + int(text[8]))'''
BOXES_TO_NATIVE = r'''lambda key: (",".join(sorted(re.findall(r"\(drawn (\d+)\)", key), key=int)) or "-") + " " + "".join(dict(re.findall(r"\(owner (\d) (\w)\)", key)).get(str(b), ".") for b in range(1, 5)) + " " + re.search(r"\(control (\w)\)", key).group(1)'''
BOXES_MOVE = r'''lambda text: text[6:-1]'''
NIM_TO_NATIVE = r'''lambda key: "-".join(h for _, h in sorted(re.findall(r"\(heap (\w) (\d)\)", key))) + " " + re.search(r"\(control (\w+)\)", key).group(1)'''


def with_gdl(**extra):
    return {**os.environ, "EDUCABLE_GAMES": str(GDL), **extra}


def compare(gdl_game, native_game, to_native, move_to_native):
    p = subprocess.run([sys.executable, "-c", COMPARE, gdl_game, native_game, to_native, move_to_native],
                       capture_output=True, text=True, cwd=ROOT, env=with_gdl(), timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_gdl_tictactoe_is_the_native_game_position_for_position():
    r = compare("tictactoe_gdl", "tictactoe", TTT_TO_NATIVE, TTT_MOVE)
    assert (r["gdl"], r["native"], r["terminal"]) == (5478, 5478, 958)     # the known counts
    assert r["value"] == 0                                                   # a draw
    assert r["n_bad"] == 0, r["bad"]


def test_gdl_nim_is_the_native_game_position_for_position():
    r = compare("nim_gdl", "nim(1,3,5)", NIM_TO_NATIVE, "None")   # move names differ (a size, not a take): compared by where they lead
    assert (r["gdl"], r["native"], r["terminal"]) == (88, 88, 2)
    assert r["value"] == 1                                                   # 1 xor 3 xor 5 != 0: p1 wins
    assert r["n_bad"] == 0, r["bad"]


def run(*args, input=None):
    return subprocess.run([EXE, *args], capture_output=True, text=True, env=with_gdl(), input=input, timeout=300)


def test_every_learner_trains_on_a_gdl_game_and_exact_judgement_works(tmp_path):
    """The table learners on nim (1,3,5) (a small graph: each run ends judged exactly), rule sets on
    tic-tac-toe (they need cells/4, which only its sheet defines)."""
    db = str(tmp_path / "kb.db")
    for game, args in (("nim_gdl", ["--learner", "punish", "--agent", "p", "--games", "100"]),
                       ("nim_gdl", ["--learner", "qlearn", "--agent", "q", "--games", "300"]),
                       ("tictactoe_gdl", ["--learner", "ga", "--agent", "g", "--cycles", "5"])):
        r = run("train", game, *args, "--seed", "1", "--db", db, "--json")
        assert r.returncode == 0, r.stderr
    r = run("eval", "nim_gdl", "q", "--exact", "--db", db, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["value"] == "p1"        # heaps 1, 3, 5: a nim-sum of 7, not 0, wins for the first player
    r = run("play", "tictactoe_gdl", "--opponent", "g", "--seed", "1", "--db", db, input="(mark 2 2)\nq\n")
    assert r.returncode == 0 and "g plays (mark" in r.stdout, r.stdout + r.stderr


def kif(tmp_path, name, text):
    folder = tmp_path / "games"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.kif").write_text(text)
    return folder


TWO_ROLES = "(role a) (role b)\n(init (control a))\n"


@pytest.mark.parametrize("name, text, words", [
    ("three", "(role a) (role b) (role c)\n(init (control a))\n", "3 roles"),
    ("solo", "(role a)\n(init (control a))\n", "1 roles"),
    ("unclosed", TWO_ROLES + "(<= (legal a noop)\n   (true (control a))\n", "unclosed.kif:3: '(' without its ')'"),
    ("stray", TWO_ROLES + "(legal a noop))\n", "stray.kif:3: unexpected ')'"),
    ("higher", TWO_ROLES + "(<= ((legal) a noop) (true (control a)))\n", "higher.kif:3: a list where a name was expected"),
])
def test_what_educable_does_not_play_is_one_line_naming_the_reason(tmp_path, name, text, words):
    folder = kif(tmp_path, name, text)
    r = subprocess.run([EXE, "--games-dir", str(folder), "show", name], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert words in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_gdl_import_checks_then_copies_and_the_game_works_from_its_folder(tmp_path):
    folder = tmp_path / "mygames"
    folder.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "EDUCABLE_GAMES"}
    r = subprocess.run([EXE, "gdl", "import", str(GDL / "nim_gdl.kif"), "--name", "nim135", "--into", str(folder),
                        "--json"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["players"] == ["p1", "p2"] and sum(data["trial_results"].values()) == data["trial_games"]
    assert (folder / "nim135.kif").read_text() == (GDL / "nim_gdl.kif").read_text()
    r = subprocess.run([EXE, "--games-dir", str(folder), "solve", "nim135", "--db", str(tmp_path / "kb.db"), "--json"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and json.loads(r.stdout)["positions"] == 88 and json.loads(r.stdout)["winner"] == "p1"
    again = subprocess.run([EXE, "gdl", "import", str(GDL / "nim_gdl.kif"), "--name", "nim135", "--into", str(folder)],
                           capture_output=True, text=True, env=env, timeout=120)
    assert again.returncode == 2 and "exists (--replace replaces it)" in again.stderr


@pytest.mark.parametrize("text, words", [
    ("(role a) (role b)\n(init (control a)\n", "bad.kif:2: '(' without its ')'"),
    ("(role a) (role b) (role c)\n(init (control a))\n", "3 roles"),
])
def test_gdl_import_of_a_bad_file_is_one_line_and_writes_nothing(tmp_path, text, words):
    (tmp_path / "bad.kif").write_text(text)
    folder = tmp_path / "mygames"
    folder.mkdir()
    r = subprocess.run([EXE, "gdl", "import", str(tmp_path / "bad.kif"), "--into", str(folder)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert list(folder.iterdir()) == []


def test_gdl_dots_and_boxes_is_the_native_game_position_for_position():
    """A player who completes a box moves again: the GDL game keeps the turn by its control fluent,
    the native one by next_mover/5; both must give the same states, movers, results and values."""
    r = compare("boxes_gdl", "boxes(2,2)", BOXES_TO_NATIVE, BOXES_MOVE)
    assert (r["gdl"], r["native"], r["terminal"]) == (5559, 5559, 28)     # the reference's counts (test_game_families)
    assert r["value"] == 1                                                   # a, the first player, wins
    assert r["n_bad"] == 0, r["bad"]


def test_check_names_the_gdl_rule_behind_a_fault(tmp_path):
    """A GDL Nim whose terminal rule never holds: check finds the position with no moves (every
    heap empty) and points at the first legal rule."""
    text = (GDL / "nim_gdl.kif").read_text()
    assert text.count("(<= terminal (not nonempty))") == 1
    text = text.replace("(<= terminal (not nonempty))", "(<= terminal (true (heap a 9)))")
    path = tmp_path / "stuck.kif"
    path.write_text(text)
    first_legal = next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("(<= (legal"))
    r = subprocess.run([EXE, "check", str(path), "--json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    problem = json.loads(r.stdout)["games"][0]["problems"][0]
    assert problem["where"] == f"{path}:{first_legal}" and "no legal moves" in problem["message"], problem
    assert all(f"(heap {h} 0)" in problem["position"] for h in "abc"), problem       # every heap empty


def board_classes(rows_only: bool) -> tuple[int, int, int]:
    """Reference, written apart from educable: tic-tac-toe (or its variant won by rows only) by
    breadth-first search; (positions, terminal, classes under the board symmetries the rules keep:
    all eight, or the four that map rows to rows)."""
    lines = [(3 * r, 3 * r + 1, 3 * r + 2) for r in range(3)]
    if not rows_only:
        lines += [(c, c + 3, c + 6) for c in range(3)] + [(0, 4, 8), (2, 4, 6)]

    def over(b):
        return any(b[i] != "." and b[i] == b[j] == b[k] for i, j, k in lines) or "." not in b

    seen, todo = {("." * 9, "x")}, [("." * 9, "x")]
    while todo:
        b, m = todo.pop()
        if over(b):
            continue
        for i in range(9):
            if b[i] == ".":
                s = (b[:i] + m + b[i + 1:], "o" if m == "x" else "x")
                if s not in seen:
                    seen.add(s)
                    todo.append(s)
    maps = [lambda r, c: (r, c), lambda r, c: (2 - r, c), lambda r, c: (r, 2 - c), lambda r, c: (2 - r, 2 - c)]
    if not rows_only:
        maps += [lambda r, c, f=f: f(c, r) for f in list(maps)]
    images = lambda b: ["".join(b[3 * f(r, c)[0] + f(r, c)[1]] for r in range(3) for c in range(3)) for f in maps]
    return len(seen), sum(over(b) for b, _ in seen), len({min(images(b)) for b, _ in seen})


@pytest.mark.parametrize("rows_only", [False, True])
def test_a_gdl_board_and_its_symmetries_are_found_and_checked_on_the_rules(tmp_path, rows_only):
    """tests/data/gdl/marks.kif is tic-tac-toe with another board fluent ((mark Row Column Player),
    only where marked, rows a-c): educable finds the board, draws it, and folds the game by the
    eight symmetries; won by rows only, the rules bear out only the four that keep rows rows, and
    the class count is the reference's."""
    text = (ROOT / "tests" / "data" / "gdl" / "marks.kif").read_text()
    if rows_only:
        keep = [line for line in text.splitlines()
                if not line.startswith("(<= (line ?p) (true (mark a")]
        assert len(keep) == len(text.splitlines()) - 3
        text = "\n".join(keep)
    (tmp_path / "marks.kif").write_text(text)
    env = {**os.environ, "EDUCABLE_GAMES": str(tmp_path), "EDUCABLE_DB": str(tmp_path / "kb.db")}
    r = subprocess.run([EXE, "solve", "marks", "--json"], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert (got["positions"], got["terminal"], got["classes"]) == board_classes(rows_only)
    r = subprocess.run([EXE, "show", "marks", "(turn black) (mark a 1 white) (mark c 2 black)"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:4] == ["white . .", ". . .", ". black .", "(turn black)"], r.stdout


def test_q_learning_on_a_gdl_game_folds_as_on_the_native_game(tmp_path):
    """With its symmetries found, ggp-base-style GDL tic-tac-toe learns as the native game does:
    Q-learning is perfect on both sides after the same 500 games (it was not, after 1,000, when
    GDL games had no symmetries)."""
    for game in ("tictactoe", "tictactoe_gdl"):
        r = run("train", game, "--learner", "qlearn", "--agent", "q", "--games", "500", "--seed", "1",
                "--db", str(tmp_path / f"{game}.db"), "--json")
        assert r.returncode == 0, r.stderr
        exact = json.loads(r.stdout)["exact"]
        assert exact["as_first"]["perfect"] and exact["as_second"]["perfect"], (game, exact)


ENDLESS = """(role a) (role b)
(init (control a))
(<= (legal a tick) (true (control a))) (<= (legal b noop) (true (control a)))
(<= (legal b tick) (true (control b))) (<= (legal a noop) (true (control b)))
(<= (next (control b)) (true (control a))) (<= (next (control a)) (true (control b)))
(<= terminal (true (control nobody)))
(goal a 50) (goal b 50)
"""


def test_a_gdl_game_that_never_ends_imports_and_plays_as_draws(tmp_path):
    """A game whose rules never reach terminal (its two states take turns for ever): every game
    played (the import's trial games, a sampled eval) is taken not to end after 2,000 moves and
    scored a draw, as solve scores such a line; before, the import ran for ever.  (A count in the
    state, as a line that never comes back, made each of those moves copy a term 2,000 deep: 14 s
    of CPU for the same facts.)"""
    source = tmp_path / "endless.kif"
    source.write_text(ENDLESS)
    into = tmp_path / "games"
    into.mkdir()
    r = run("gdl", "import", str(source), "--into", str(into), "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)         # as many trial games as 5 s allow, at least one: all draws
    assert 1 <= data["trial_games"] <= 20 and data["trial_results"] == {"draw": data["trial_games"]}
    assert data["trial_cut"] == data["trial_games"]        # none ended: each cut after 2,000 moves
    r = subprocess.run([EXE, "eval", "endless", "random", "--vs", "random", "--games", "2", "--json"],
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, "EDUCABLE_GAMES": str(into), "EDUCABLE_DB": str(tmp_path / "kb.db")})
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["as_first"]["draw"] == 1


def test_a_kif_and_a_pl_of_one_game_name_say_two_files_define_it(tmp_path):
    """count3.kif beside count3.pl: the Prolog file was blamed for players/2 (both files' players
    answered); now it is listed broken for defining a game the GDL sheet defines already."""
    games = tmp_path / "g"
    games.mkdir()
    (games / "count3.pl").write_text((ROOT / "tests" / "data" / "count3.pl").read_text())
    (games / "count3.kif").write_text((GDL / "nim_gdl.kif").read_text())
    p = subprocess.run([EXE, "--games-dir", str(games), "games"], capture_output=True, text=True, timeout=120,
                       cwd=tmp_path, env={**os.environ, "EDUCABLE_CACHE": str(tmp_path / "cache")})
    assert p.returncode == 0, p.stderr
    lines = [line for line in p.stdout.splitlines() if line.startswith("count3 ")]
    assert lines == ["count3            players p1/p2  start '(control p1) (heap a 1) (heap b 3) (heap c 5)'  not solved yet",
                     "count3            BROKEN: g/count3.pl: defines game count3, which g/count3.kif defines already "
                     "(rename one of them)"], lines
