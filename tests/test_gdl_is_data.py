"""A GDL file is data: whatever relation names its rules use, loading, listing, checking, importing
and playing it never runs a Prolog built-in (a file written, a shell command, a clause asserted
outside the game's module).  GDL rule sheets come from the internet; GDL itself says a relation the
sheet does not define is simply false.

A property test (hypothesis) puts built-in calls into the bodies of a small valid game, inside
`not` and `or` too, and defines relations named like built-ins; each example runs in a process of
its own, as a user's command would, in a folder of its own where a built-in that ran would leave
a file.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import EDUCABLE

EXE = EDUCABLE          # the fork server's client (tests/zygote.py)

# Built-ins that would leave a trace in the folder (a file) or in Prolog (a clause of pwned/1).
CALLS = ["(shell \"touch pwned\")", "(shell >pwned)", "(catch (shell \"touch pwned\"))",
         "(call shell \"touch pwned\")", "(tell pwned)", "(open pwned write)", "(assert (pwned 1))",
         "(assertz (pwned 1))", "(asserta (pwned 1))", "(call assertz (pwned 1))",
         "(ignore (shell \"touch pwned\"))", "(once (shell \"touch pwned\"))", "(forall (shell \"touch pwned\"))",
         "(findall ?x (shell \"touch pwned\"))", "(halt)", "(halt 3)", "halt", "(abort)", "abort",
         "(consult pwned)", "(make_directory pwned)", "(setenv pwned 1)", "(thread_create (shell \"touch pwned\"))",
         "(not (shell \"touch pwned\"))", "(or (shell \"touch pwned\") (true (control a)))",
         "(not (not (assertz (pwned 1))))", "(process_create /bin/touch (pwned))", "(nb_setval pwned 1)"]
# Relations a sheet may define whose names Prolog reserves for built-ins (with the state arguments).
DEFINED = ["(<= (catch ?x) (true (control ?x)))", "(between 1 2)", "(<= forall (true (control a)))",
           "(call 1 2)", "(shell a)", "(<= (assertz ?x) (true (control ?x)))", "(succ 1 2)"]

GAME = ["(role a)", "(role b)", "(init (control a))", "(init (cell 1 b))", "(init (cell 2 b))",
        "(<= (legal ?p (mark ?x)) (true (control ?p)) (true (cell ?x b)){0})",
        "(<= (legal a noop) (true (control b)){1})", "(<= (legal b noop) (true (control a)))",
        "(<= (next (cell ?x ?p)) (does ?p (mark ?x)){2})",
        "(<= (next (cell ?x ?p)) (true (cell ?x ?p)) (distinct ?p b))",
        "(<= (next (cell ?x b)) (true (cell ?x b)) (not (does a (mark ?x))) (not (does b (mark ?x))))",
        "(<= (next (control b)) (true (control a)))", "(<= (next (control a)) (true (control b)))",
        "(<= open (true (cell ?x b)){3})", "(<= terminal (not open){4})",
        "(<= (goal a 50) (true (control ?p)){5})", "(goal b 50)"]
SLOTS = 6


def sheet(calls: list[str], defined: list[str]) -> str:
    return "\n".join(GAME).format(*(f" {c}" if c else "" for c in calls)) + "\n" + "\n".join(defined) + "\n"


def run(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "EDUCABLE_DB": str(folder / "kb.db")}
    return subprocess.run([EXE, "--games-dir", str(folder / "games"), *args], capture_output=True, text=True,
                          cwd=folder, env=env, timeout=120)


# In one process: every command that loads and plays the game, then whether pwned/1 exists anywhere.
PLAY = r'''
import sys
from educable.bridge import engine, graphs, games

e = engine.engine()
try:                      # a built-in call makes its rule false, which may leave no playable game: refused
    graphs.state_graph(None, "sheet")
    s = games.initial("sheet")
    while games.result(s) is None and games.moves(s):
        s = games.moves(s)[0][1]
except (engine.BadInput, engine.PrologError) as exc:
    print("refused:", exc)
print("pwned/1 asserted" if e.call("( current_predicate(_:pwned/1) -> Out = 1 ; Out = 0 )") else "clean")
'''


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(calls=st.lists(st.one_of(st.just(""), st.sampled_from(CALLS)), min_size=SLOTS, max_size=SLOTS)
       .filter(any),
       defined=st.lists(st.sampled_from(DEFINED), max_size=3, unique=True))
@example(calls=["", "", "", "", "(catch (shell >pwned))", ""], defined=[])
@example(calls=[CALLS[6], CALLS[1], CALLS[3], CALLS[0], CALLS[2], CALLS[-2]], defined=DEFINED)
def test_a_gdl_sheet_never_runs_a_builtin(tmp_path_factory, calls, defined):
    folder = tmp_path_factory.mktemp("sheet")
    (folder / "games").mkdir()
    kif = folder / "games" / "sheet.kif"
    kif.write_text(sheet(calls, defined))
    listed = run(folder, "games")
    assert listed.returncode == 0 and "sheet" in listed.stdout, listed.stderr
    checked = run(folder, "check", "sheet")
    assert checked.returncode in (0, 1) and "Traceback" not in checked.stderr, checked.stderr
    imported = run(folder, "gdl", "import", str(kif), "--into", str(folder / "imported"))
    assert "Traceback" not in imported.stderr, imported.stderr
    env = {**os.environ, "EDUCABLE_GAMES": str(folder / "games")}
    played = subprocess.run([sys.executable, "-c", PLAY], capture_output=True, text=True, cwd=folder, env=env,
                            timeout=120)
    assert played.returncode == 0, played.stderr
    assert played.stdout.strip().endswith("clean"), played.stdout      # no clause of pwned/1 in any module
    assert not list(folder.rglob("pwned*")), "a built-in ran"
    assert "pwned" not in os.environ


def test_an_undefined_relation_is_false_and_a_builtin_name_is_the_sheets_own(tmp_path):
    """GDL semantics kept: `(shell a)` in a body is false while the sheet does not define shell (the
    game is played out: 6 positions); once the sheet says `(shell a)`, that is its own relation and
    true (the game is over at the start: 1 position)."""
    (tmp_path / "games").mkdir()
    kif = tmp_path / "games" / "sheet.kif"
    kif.write_text(sheet([""] * SLOTS, []) + "(<= terminal (shell a))\n")
    r = run(tmp_path, "solve", "sheet", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["positions"] == 6
    kif.write_text(kif.read_text() + "(shell a)\n")          # the stored graph is stale: rebuilt
    r = run(tmp_path, "solve", "sheet", "--json")
    assert r.returncode == 0, r.stderr
    assert (json.loads(r.stdout)["positions"], json.loads(r.stdout)["terminal"]) == (1, 1)


def test_a_sheet_that_cannot_be_played_to_its_end_is_one_line(tmp_path):
    """A built-in call in terminal's body is false, so the game never ends and a position with no
    legal move is not over: eval said 'internal error: LookupError' (the hostile sweep)."""
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "sheet.kif").write_text(sheet(["", "", "", "", " (shell a)", ""], []))
    r = run(tmp_path, "eval", "sheet", "random", "--vs", "random", "--games", "4")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "could not be played to its end" in r.stderr
