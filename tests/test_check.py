"""educable check: each fault planted, one at a time, in a copy of the shipped hexapawn is found
with the file, the line of the predicate at fault and a position that shows it; shipped games are
sound."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EDUCABLE

ROOT = Path(__file__).resolve().parent.parent
EXE = EDUCABLE          # the fork server's client (tests/zygote.py)
HEXAPAWN = (ROOT / "rules" / "games" / "hexapawn.pl").read_text()


def run(*args, cwd=None):
    return subprocess.run([EXE, *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def planted(tmp_path, old, new):
    """A copy of hexapawn.pl with ``old`` replaced by ``new`` (which must occur once)."""
    assert HEXAPAWN.count(old) == 1, old
    path = tmp_path / "hexapawn.pl"
    path.write_text(HEXAPAWN.replace(old, new))
    return path


def line_of(path, text):
    """The 1-based line of the first line of ``path`` that starts with ``text``."""
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith(text):
            return i
    raise AssertionError(text)


FAULTS = [
    # (id, old, new, the clause at fault (its first line starts so), words in the report, a position or None)
    ("missing predicate",
     "game:board_lines(hexapawn, W-B, _, Lines) :-", "board_lines_gone(W-B, _, Lines) :-",
     "game:game(hexapawn)", ["no clause for board_lines/4"], None),
    ("text does not name the side to move",
     "    side_letter(Mover, L),\n    format(atom(Text)", "    side_letter(Mover, _), L = w,\n    format(atom(Text)",
     "game:parse_position(hexapawn", ["parse_position/4", "with white to move, not black"], "-"),
    ("text does not read back",
     '"~w-~w ~w", [WA, BA, L]', '"~w-~w ~w", [BA, WA, L]',
     "game:parse_position(hexapawn", ["reads back as [7,8,9]-[1,2,3]"], "789-123 w"),
    ("legal/4 throws",
     "game:legal(hexapawn, W-B, white, From-To) :-\n    member(From, W),",
     "game:legal(hexapawn, W-B, white, From-To) :-\n    member(From, W), ( From =:= 5 -> _ is foo + From ; true ),",
     "game:legal(hexapawn", ["legal/4", "foo/0"], "5"),
    ("legal/4 repeats a move",
     "game:legal(hexapawn, W-B, black, From-To) :-\n    member(From, B),",
     "game:legal(hexapawn, W-B, black, From-To) :-\n    member(From, B), member(_, [once, twice]),",
     "game:legal(hexapawn", ["gives the move", "more than once"], " b"),
    ("next/5 fails for a legal move",
     "    selectchk(From, W, Rest), msort([To|Rest], W1),",
     "    selectchk(From, W, Rest), To =\\= 5, msort([To|Rest], W1),",
     "game:next(hexapawn", ["next/5 fails for the legal move 2-5"], "123-789 w"),
    ("no moves before the end",
     "    ;   \\+ game:legal(hexapawn, W-B, Mover, _)\n    ->  game:other_player(hexapawn, Mover, Result)",
     "    ;   fail, \\+ game:legal(hexapawn, W-B, Mover, _)\n    ->  game:other_player(hexapawn, Mover, Result)",
     "game:legal(hexapawn", ["no legal moves, yet over/4 says the game goes on"], "-"),
    ("over/4 gives something that is not a result",
     "    (   member(S, W), S >= 7 -> Result = white",
     "    (   member(S, W), S >= 7 -> Result = whitey",
     "game:over(hexapawn", ["over/4 must give one result", "whitey"], "-"),
    ("symmetries without the identity",
     "game:symmetry(hexapawn, Pos, Pos).", "%  (the identity was here)",
     "game:symmetry(hexapawn", ["do not include itself"], "-"),
    ("a symmetry that changes the rules",
     "    maplist(mirror, B, B0), msort(B0, B1).", "    B0 = B, msort(B0, B1).",
     "game:symmetry(hexapawn", ["its symmetric image", "symmetr"], "-"),
    ("cells/4 of the wrong length",
     "findall(C, ( between(1, 9, S), hex_cell(W, B, Mover, S, C) ), Cells).",
     "findall(C, ( between(1, 9, S), \\+ ( S =:= 5, memberchk(5, W) ), hex_cell(W, B, Mover, S, C) ), Cells).",
     "game:cells(hexapawn", ["cells/4 gives 8 cells here and 9 at the start"], "5"),
    ("a layout that does not fit the cells",
     "game:layout(hexapawn, 3, bottom).", "game:layout(hexapawn, 4, bottom).",
     "game:layout(hexapawn", ["layout/3 gives 4 cells a row"], None),
    ("a board set up by clicks that is not the one clicked",
     "    findall(S, nth1(S, Cells, 1), W),\n    findall(S, nth1(S, Cells, 2), B),",
     "    findall(S, nth1(S, Cells, 2), W),\n    findall(S, nth1(S, Cells, 1), B),",
     "game:setup_text(hexapawn", ["setup_text/4 gives '789-123 w'", "parse_position/4 reads as '789-123 w', not '123-789 w'"], "123-789 w"),
    ("a drawing that does not fit the cells",
     "game:layout(hexapawn, 3, bottom).", "game:layout(hexapawn, 3, bottom).\ngame:drawn_as(hexapawn, dots_and_boxes(1, 1)).",
     "game:drawn_as(hexapawn", ["draws 4 lines and 1 box(es) from 5 cells; cells/4 gives 9"], None),
    ("a reserved player name",
     "game:players(hexapawn, [white, black]).", "game:players(hexapawn, [white, draw]).",
     "game:players(hexapawn", ["player name draw is reserved"], None),
    ("legal/4 never ends at one position",
     "game:legal(hexapawn, W-B, black, From-To) :-\n    member(From, B),",
     "game:legal(hexapawn, W-B, black, From-To) :-\n    ( W == [1,3,5] -> repeat, fail ; true ),\n    member(From, B),",
     "game:legal(hexapawn", ["legal/4 did not finish within"], "135-789 b"),
    ("over/4 never ends at one position",
     "    (   member(S, W), S >= 7 -> Result = white",
     "    (   W == [1,3,5], repeat, fail -> true\n    ;   member(S, W), S >= 7 -> Result = white",
     "game:over(hexapawn", ["over/4 did not finish within"], "135-789 b"),
    ("legal/4 gives moves without end",
     "game:legal(hexapawn, W-B, black, From-To) :-\n    member(From, B),",
     "game:legal(hexapawn, W-B, black, From-To) :-\n    W == [1,3,5], !, between(1, inf, From), To = 0.\n"
     "game:legal(hexapawn, W-B, black, From-To) :-\n    member(From, B),",
     "game:legal(hexapawn", ["legal/4 gives more than 10,000 moves"], "135-789 b"),
    ("a move text play reads as a command",
     '    format(atom(Text), "~w-~w", [From, To]).',
     '    ( From-To == 2-5 -> Text = q ; format(atom(Text), "~w-~w", [From, To]) ).',
     "game:move_text(hexapawn", ["the move text q is one of play's commands"], "123-789 w"),
]


@pytest.mark.parametrize("old, new, clause, words, position", [f[1:] for f in FAULTS], ids=[f[0] for f in FAULTS])
def test_each_planted_fault_is_found_where_it_is(tmp_path, old, new, clause, words, position):
    path = planted(tmp_path, old, new)
    r = run("check", str(path), "--json")
    assert r.returncode == 1, r.stdout + r.stderr
    report = json.loads(r.stdout)
    assert not report["sound"]
    problems = report["games"][0]["problems"]
    where = f"{path}:{line_of(path, clause)}"
    hits = [p for p in problems if p["where"] == where and all(w in p["message"] + p["predicate"] for w in words)]
    assert hits, (where, problems)
    if position is not None:
        assert position in hits[0]["position"], hits[0]


def test_the_report_as_people_read_it_has_a_line_a_problem_where_the_json_says(tmp_path):
    _, old, new, clause, words, position = FAULTS[1]
    path = planted(tmp_path, old, new)
    problems = json.loads(run("check", str(path), "--json").stdout)["games"][0]["problems"]
    assert problems
    text = run("check", str(path))
    assert text.returncode == 1 and "Traceback" not in text.stderr
    lines = [line.strip() for line in text.stdout.splitlines()]
    for p in problems:
        assert any(line.startswith(f"{p['where']}: {p['predicate']}: {p['message']}") for line in lines), (p, lines)


def test_the_shared_text_fault_names_both_states(tmp_path):
    path = planted(tmp_path, "    format(atom(Text), \"~w-~w ~w\", [WA, BA, L]).",
                   "    format(atom(Text), \"~w ~w\", [WA, L]), BA = BA.")
    r = run("check", str(path), "--json")
    assert r.returncode == 1
    kinds = {p["kind"]: p for p in json.loads(r.stdout)["games"][0]["problems"]}
    assert "shared_text" in kinds and "two states share this text" in kinds["shared_text"]["message"]
    assert kinds["shared_text"]["where"] == f"{path}:{line_of(path, 'game:position_text(hexapawn')}"


def test_a_syntax_error_is_reported_with_its_line_and_nothing_else_runs(tmp_path):
    path = planted(tmp_path, "capture(white, From, To), memberchk(To, B)", "capture(white, From, To),, memberchk(To, B)")
    r = run("check", str(path))
    assert r.returncode == 1
    assert f"{path}:{line_of(path, '    ;   capture(white, From, To),,')}" in r.stdout
    assert "syntax error" in r.stdout and "Traceback" not in r.stderr


def test_warnings_are_shown_and_not_fatal(tmp_path):
    path = planted(tmp_path, "column(Sq, C) :- C is (Sq - 1) mod 3.",
                   "column(Sq, C) :- C is (Sq - 1) mod 3.\nunused(X, Y) :- true.")
    r = run("check", str(path))
    assert r.returncode == 0, r.stdout
    assert "warning:" in r.stdout and "Singleton" in r.stdout and ": sound" in r.stdout


def test_an_incomplete_game_lists_what_is_missing(tmp_path):
    path = tmp_path / "half.pl"
    path.write_text(":- module(half, []).\ngame:game(half).\ngame:players(half, [a, b]).\n")
    r = run("check", str(path), "--json")
    assert r.returncode == 1
    missing = sorted(p["message"].split()[3] for p in json.loads(r.stdout)["games"][0]["problems"])
    assert missing == sorted(["initial/3", "legal/4", "next/5", "over/4", "position_text/4", "parse_position/4",
                              "move_text/3", "parse_move/3", "board_lines/4"])


@pytest.mark.parametrize("target, positions", [("tictactoe", 5478), ("hexapawn", 135), ("nim(1,3,5)", 88),
                                               ("boxes(1,2)", 143),
                                               (str(ROOT / "tests" / "data" / "count3.pl"), 6)])
def test_shipped_games_are_sound_and_small_ones_checked_whole(target, positions):
    r = run("check", target, "--json")
    assert r.returncode == 0, r.stdout
    game = json.loads(r.stdout)["games"][0]
    assert game["problems"] == [] and game["exhaustive"] and game["positions"] == positions
    assert {t["predicate"] for t in game["timings"]} >= {"legal/4", "next/5", "over/4", "parse_position/4"}
    assert game["advice"] == []            # nothing redone at every position: no advice to follow


def test_a_next_mover_that_names_no_player_is_found_where_it_is(tmp_path):
    """Dots and boxes says who moves after a completed box; a copy that names someone else is caught
    at its next_mover/5 clause, at the first position where a box is completed."""
    text = (ROOT / "rules" / "games" / "boxes.pl").read_text()
    old = "game:next_mover(G, _-Owners, Mover, _-Owners1, Mover) :-"
    assert text.count(old) == 1
    path = tmp_path / "boxes.pl"
    path.write_text(text.replace(old, "game:next_mover(G, _-Owners, _, _-Owners1, nobody) :-"))
    r = run("check", str(path), "--game", "boxes(1,2)", "--json")       # the smallest board with two boxes
    assert r.returncode == 1, r.stdout
    problems = json.loads(r.stdout)["games"][0]["problems"]
    hits = [p for p in problems if p["predicate"] == "next_mover/5"]
    assert hits and hits[0]["where"] == f"{path}:{line_of(path, 'game:next_mover(G')}", problems
    assert "nobody" in hits[0]["message"] and "not one of the players" in hits[0]["message"]
    assert hits[0]["position"].count(",") == 2          # three lines drawn: the fewest that close a box


def test_a_large_game_is_sampled_and_sound():
    r = run("check", "connect(3,4,4)", "--json", "--limit", "2000", "--playouts", "50")
    assert r.returncode == 0, r.stdout
    game = json.loads(r.stdout)["games"][0]
    assert not game["exhaustive"] and 2000 <= game["positions"] < 41750


def test_a_copy_of_a_shipped_game_is_checked_on_its_own(tmp_path):
    path = tmp_path / "hexapawn.pl"                      # same module and game names as the original
    path.write_text((ROOT / "rules" / "games" / "hexapawn.pl").read_text())
    r = run("check", str(path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{path}: game hexapawn: 135 positions every one checked: sound" in r.stdout


@pytest.mark.parametrize("args, words", [
    (["nosuchgame"], "unknown game 'nosuchgame'"),
    (["no/such/file.pl"], "no/such/file.pl: no such game file"),
    (["tictactoe", "--game", "x"], "--game picks a member of a family FILE"),
])
def test_bad_targets_are_one_line(args, words):
    r = run("check", *args)
    assert r.returncode == 2
    assert words in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_rule_that_never_ends_is_reported_not_waited_for(tmp_path):
    """legal/4 looping on one position: the check stops at its inference limit and says where."""
    path = planted(tmp_path, "game:legal(hexapawn, W-B, black, From-To) :-\n    member(From, B),",
                   "game:legal(hexapawn, W-B, black, From-To) :-\n    ( W == [1,3,5] -> repeat, fail ; true ),\n"
                   "    member(From, B),")
    script = ("import json, sys; from pathlib import Path; from educable.bridge.engine import engine_with_only; "
              "print(json.dumps(engine_with_only(Path(sys.argv[1])).call("
              "'check:check_game(hexapawn, [inferences(2000000)], Out)')))")
    p = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    stopped = [n for n in json.loads(p.stdout)["problems"] if n["kind"] == "time_limit"]
    assert stopped and "135-789 b" in stopped[0]["position"], json.loads(p.stdout)["problems"]


DEEP_GAME = """:- module(deep, []).
game:game(deep).
game:players(deep, [a, b]).
game:initial(deep, s(0, z), a).
game:legal(deep, s(N, _), _, 1) :- N < 3.
game:next(deep, s(N, _), _, _, s(N1, T)) :- N1 is N + 1, nest(N1, T).
game:over(deep, s(3, _), _, draw).
game:position_text(deep, s(N, _), M, T) :- format(atom(T), "~w ~w", [N, M]).
game:parse_position(deep, T, s(N, z), M) :- atomic_list_concat([A, M], ' ', T), atom_number(A, N).
game:move_text(deep, M, T) :- format(atom(T), "~w", [M]).
game:parse_move(deep, T, M) :- atom_number(T, M).
game:board_lines(deep, s(N, _), _, [L]) :- format(string(L), "~w", [N]).
nest(N, T) :- ( N >= 2 -> deep(200000, T) ; T = z ).
deep(0, z) :- !.
deep(N, f(T)) :- N1 is N - 1, deep(N1, T).
"""


@pytest.mark.parametrize("where, pred, start", [("initial", "initial/3", True), ("next", "next/5", False)])
def test_a_position_nested_too_deep_is_refused_not_a_crash(tmp_path, where, pred, start):
    """A term nested 200,000 deep made the embedded Prolog overflow its C stack (SIGSEGV) in
    check; now it is a problem at the line of the predicate that made it."""
    text = DEEP_GAME.replace("game:initial(deep, s(0, z), a).",
                             "game:initial(deep, s(0, T), a) :- deep(200000, T).") if start else DEEP_GAME
    path = tmp_path / "deep.pl"
    path.write_text(text)
    r = run("check", str(path))
    assert r.returncode == 1, r.stdout + r.stderr
    line = line_of(path, f"game:{where}(deep")
    assert any(l.strip().startswith(f"{path}:{line}: {pred}") and "nested more than 10,000 deep" in l
               for l in r.stdout.splitlines()), r.stdout


BENCH_GAMES = ROOT / "bench" / "games"


def test_check_says_what_a_slow_file_redoes_at_every_position_and_following_it_keeps_the_game(tmp_path):
    """bench/games/naive_connect3.pl works out every line of three in over/4 at every position and
    reads its list of cells with nth1/3: check names both, at the clause's line, with the change to
    make.  advised_connect3.pl, the same file after those two changes, gets no advice and is the
    same game (the counts and winner of the shipped connect(3,4,4), checked against a reference in
    tests/test_game_families.py)."""
    naive = BENCH_GAMES / "naive_connect3.pl"
    r = run("check", str(naive), "--json", "--limit", "2000")        # 2,000 positions show the habits
    assert r.returncode == 0, r.stdout
    advice = json.loads(r.stdout)["games"][0]["advice"]
    assert len(advice) == 2, advice
    tabling, lists = advice
    assert tabling["where"].endswith(f"naive_connect3.pl:{line_of(naive, 'game:over(naive_connect3, Board, _, Winner)')}")
    assert tabling["goal"] == "all_lines/1" and tabling["inferences"] > 100
    assert "`:- table all_lines/1.`" in tabling["change"]
    assert lists["predicate"] == "legal/4, over/4" and "arg/3" in lists["change"]
    r = run("check", str(BENCH_GAMES / "advised_connect3.pl"), "--json", "--limit", "2000")
    assert r.returncode == 0 and json.loads(r.stdout)["games"][0]["advice"] == []
    env = {**os.environ, "EDUCABLE_GAMES": str(BENCH_GAMES), "EDUCABLE_DB": str(tmp_path / "kb.db")}
    p = subprocess.run([EXE, "solve", "advised_connect3", "--json"], capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)            # connect(3,4,4)'s counts (test_game_families); the naive file is slow to solve
    assert (d["positions"], d["terminal"], d["winner"]) == (41750, 17820, "x")


@pytest.mark.parametrize("extra, sound", [(0, True), (1, False)])
def test_tuple_code_is_held_to_the_cells_it_packs(tmp_path, extra, sound):
    """tuple_code/4 (the learner's cells as one number, 2 bits a cell, the first most significant) is
    optional, and check holds it equal to the cells: packed here from cells/4 in Prolog, then off by
    ``extra``."""
    clause = (f"game:tuple_code(hexapawn, W-B, Mover, Code) :-\n"
              f"    game:cells(hexapawn, W-B, Mover, Cells),\n"
              f"    foldl([C, A0, A]>>(A is A0 * 4 + C), Cells, 0, Code0),\n"
              f"    Code is Code0 + {extra}.\n")
    path = tmp_path / "hexapawn.pl"
    path.write_text(HEXAPAWN + "\n" + clause)
    r = run("check", str(path), "--json")
    report = json.loads(r.stdout)
    assert report["sound"] is sound, r.stdout
    problems = [p for p in report["games"][0]["problems"] if p["predicate"] == "tuple_code/4"]
    if sound:
        assert not problems
    else:
        assert problems[0]["where"] == f"{path}:{line_of(path, 'game:tuple_code(hexapawn')}"
        assert problems[0]["count"] == 135 * 2 and "2 bits a cell" in problems[0]["message"]
