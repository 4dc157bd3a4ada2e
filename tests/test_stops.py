"""Every command stops: a game file's remembered trial load covers every file it loaded, and a load
that loops where Prolog hears no signal still ends the command on Ctrl-C or SIGTERM, in one line."""
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import interruptible

EXE = str(Path(sys.executable).parent / "educable")
ROOT = Path(__file__).resolve().parent.parent
COUNT3 = (Path(__file__).parent / "data" / "count3.pl").read_text()


def games_listed(env, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([EXE, "--games-dir", "g", "games"], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=120, stdin=subprocess.DEVNULL)


def test_an_included_file_edited_to_loop_is_tried_again_not_loaded_blind(tmp_path):
    """The trial was remembered by the game file's own bytes only: a file it includes, edited to loop,
    was then loaded in the command's own process, which hung at 100% CPU.  Now the remembered trial
    names every file it loaded, and a changed one is tried again, in a process of its own."""
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "count3.pl").write_text(COUNT3 + "\n:- include('parts/extra').\n")
    (tmp_path / "g" / "parts").mkdir()
    extra = tmp_path / "g" / "parts" / "extra.pl"
    extra.write_text("count3_note(fine).\n")
    env = {**os.environ, "EDUCABLE_CACHE": str(tmp_path / "cache")}
    first = games_listed(env, tmp_path)
    assert first.returncode == 0 and "count3 " in first.stdout and "BROKEN" not in first.stdout, first.stdout
    remembered = next((tmp_path / "cache" / "preflight").iterdir()).read_text()
    assert str(extra) in remembered
    extra.write_text(":- repeat, fail.\n")
    second = games_listed(env, tmp_path)
    assert second.returncode == 0
    assert [line for line in second.stdout.splitlines() if line.startswith("count3 ")] == \
        [f"count3            BROKEN: g/count3.pl: loading it did not finish within {os.environ['EDUCABLE_LOAD_SECONDS']} s "
         "(a directive that never ends or allocates without end?)"]


@pytest.mark.parametrize("value", ["0", "eight", "3601"])
def test_a_bad_time_limit_for_loading_a_game_file_is_one_line(tmp_path, value):
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "count3.pl").write_text(COUNT3)
    env = {**os.environ, "EDUCABLE_CACHE": str(tmp_path / "cache"), "EDUCABLE_LOAD_SECONDS": value}
    r = games_listed(env, tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and r.stdout == "", (r.stdout, r.stderr)
    assert "$EDUCABLE_LOAD_SECONDS takes a whole number of seconds from 1 to 3,600" in r.stderr


LOOPS_ON_A_FLAG = """
:- open('flag.txt', read, S), read(S, T), close(S), ( T == loop -> repeat, fail ; true ).
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_load_that_loops_unheard_still_stops_on_a_signal_in_one_line(tmp_path, sig):
    """A directive that reads a data file (no source file: its trial cannot know it) and loops in
    `repeat, fail`, where Prolog checks for no signal: asked to stop, the goal does not, and the
    command ends by itself within a second of the grace it gives, with one line and the signal's status."""
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "count3.pl").write_text(COUNT3 + LOOPS_ON_A_FLAG)
    (tmp_path / "flag.txt").write_text("fine.\n")
    env = {**os.environ, "EDUCABLE_CACHE": str(tmp_path / "cache")}
    assert games_listed(env, tmp_path).returncode == 0                    # the trial passes and is remembered
    (tmp_path / "flag.txt").write_text("loop.\n")
    proc = subprocess.Popen([EXE, "--games-dir", "g", "games"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=tmp_path, preexec_fn=interruptible, stdin=subprocess.DEVNULL)
    try:
        time.sleep(3)
        assert proc.poll() is None, "the load was meant to loop"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 128 + sig, (proc.returncode, err)
    assert err.strip().splitlines() == [f"educable: stopped by {sig.name}: a rule did not stop when asked (a directive "
                                        "or rule that loops without end?); what was committed is kept"]


def test_long_work_without_steps_still_says_what_it_does(tmp_path):
    """The exact judgement after a tournament's games has no steps of its own: it was silent (184 s
    on tictactoe(4,4,4)).  Now the line comes on time whatever the work, naming the stage."""
    env = {**os.environ, "EDUCABLE_HEARTBEAT": "0.3"}
    p = subprocess.run([EXE, "tournament", "tictactoe", "random", "mcts:50", "--games", "2", "--db",
                        str(tmp_path / "kb.db")], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    judging = [line for line in p.stderr.splitlines() if "judging each of the 2 players exactly" in line]
    assert len(judging) >= 2 and judging[0].startswith("tournament of 2 players: 2 of 2 done; "), p.stderr


@pytest.mark.parametrize("learner", ["qlearn", "ntuple"])
def test_a_training_that_compiles_the_graph_first_says_so(kb, learner, monkeypatch):
    """Q-learning on pig(100,6) compiled its graph for two minutes saying "0 of N done". Its progress
    now names the compilation with the positions found so far (tic-tac-toe has 5,478: a count found
    apart, in tests/reference_games.py), and the stage ends before the first game is counted."""
    from educable.bridge import commands, graphs
    monkeypatch.setattr(graphs, "_CACHE", {})          # compiled here, not taken from an earlier test's
    monkeypatch.setattr(graphs, "_COMPILED", {})
    calls = []
    commands.train(kb, "tictactoe", learner, "a", 30, "self", "both", 1, {},
                   progress=lambda n, stage=None: calls.append((n, stage)))
    ended = calls.index((0, ""))
    staged = [stage for n, stage in calls[:ended] if stage]
    found = [int(re.fullmatch(r"compiling the state graph: ([\d,]+) positions found, [\d,]+ MB", s).group(1)
                 .replace(",", "")) for s in staged]
    assert found and found == sorted(found) and found[-1] == 5478, calls
    assert all(n == 0 for n, _ in calls[:ended]) and sum(n for n, _ in calls[ended:]) == 30, calls
    # the exact judgement after the games names its own stage, if it compiles anything
    after = [stage for _, stage in calls[ended:] if stage]
    assert all(stage.startswith("judging it exactly: compiling the state graph: ") for stage in after), after


LONG = {   # a command that runs for minutes, as a person would start it
    "train": ["train", "tictactoe", "--learner", "qlearn", "--agent", "a", "--games", "5000000"],
    "tournament": ["tournament", "connect(4,7,6)", "mcts:100000", "alphabeta:8", "--games", "100"],
    "judge": ["judge", "connect(4,7,6)", "mcts:200000", "--games", "50"],
    "check": ["check", "tictactoe(5,5,4)"],
    "sweep": ["sweep", "train", "hexapawn", "--learner", "punish", "--games", "3000000", "--grid", "reward=0,1",
              "--seeds", "2", "--workers", "1"],
    "race": ["race", "run", "--player", "colorscore", "--boards", "500"],
    "serve": ["serve", "--port", "0"],
}


# The commands stop on either signal by one handler (cli.py), so each is sent one, the two taking
# turns; the race and the sweep (Dask's workers) and the server (uvicorn's own handlers) get both.
SIGNALS = {"train": [signal.SIGINT], "tournament": [signal.SIGTERM], "judge": [signal.SIGINT],
           "check": [signal.SIGTERM], "sweep": [signal.SIGINT, signal.SIGTERM],
           "race": [signal.SIGINT, signal.SIGTERM], "serve": [signal.SIGINT, signal.SIGTERM]}


@pytest.mark.parametrize("command, sig", [(c, s) for c in LONG for s in SIGNALS[c]])
def test_every_long_command_stops_on_ctrl_c_and_sigterm(tmp_path, command, sig):
    """Each long command, stopped 2 s in, ends soon after with no traceback (the bench measures how
    soon: within a second).  A sweep and a race keep what they committed; a server stops serving."""
    if command == "judge":
        pytest.importorskip("bitbully")
    db = [] if command == "check" else ["--db", str(tmp_path / "kb.db")]
    proc = subprocess.Popen([EXE, *LONG[command], *db], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path, preexec_fn=interruptible,
                            stdin=subprocess.DEVNULL, env={**os.environ, "EDUCABLE_HEARTBEAT": "0"})
    try:
        time.sleep(2)                   # well into its work: a command starts in under a second
        assert proc.poll() is None, (command, proc.communicate())
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode in (0, 130, 128 + sig, -sig), (command, proc.returncode, err)
    assert "Traceback" not in err and "Traceback" not in out, err


def test_check_says_it_is_working_while_its_one_long_query_runs(tmp_path):
    """`check` is one Prolog query: it printed nothing for 34 s of CPU on Connect Four."""
    env = {**os.environ, "EDUCABLE_HEARTBEAT": "0.2"}
    p = subprocess.run([EXE, "check", "tictactoe"], capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert any(line.startswith("checking tictactoe: still working (") for line in p.stderr.splitlines()), p.stderr


STOP_IN_A_CALLBACK = """
import ctypes, os, signal, sys, threading, time
from educable import cli
cli.stop_on_sigterm()
threading.Timer(0.2, os.kill, args=(os.getpid(), signal.SIGTERM)).start()
ctypes.CFUNCTYPE(None)(lambda: time.sleep(0.6))()    # the stop arrives here: raised in a C callback, dropped
t0 = time.time()
try:
    while time.time() - t0 < 10:                      # work after it, in Python
        sum(range(1000))
    print("not stopped")
except KeyboardInterrupt:
    print("stopped after", round(time.time() - t0, 1))
"""


def test_a_stop_dropped_inside_a_c_callback_comes_again():
    """Ctrl-C or SIGTERM while C has called back into Python (numba writing its cache did, in a race
    run stopped 2 s in) raises KeyboardInterrupt where Python can only print and drop it: the command
    went on.  The signal now comes again once the callback has returned, and the command stops."""
    p = subprocess.run([sys.executable, "-c", STOP_IN_A_CALLBACK], capture_output=True, text=True, timeout=60,
                       cwd=ROOT)
    assert p.stdout.startswith("stopped after"), (p.stdout, p.stderr)
    assert float(p.stdout.split()[-1]) < 2.0


HALF_MADE = """
import os, signal, sys
from educable import cli
class HalfMade:                                        # as llvmlite's ObjectRef when a stop cut its making short
    def __del__(self):
        del self._as_parameter_
cli.stop_on_sigterm()
if sys.argv[1] == "stopped":
    try:
        os.kill(os.getpid(), signal.SIGINT)
    except KeyboardInterrupt:
        pass
HalfMade()
print("done")
"""


@pytest.mark.parametrize("stopped", [True, False])
def test_a_finalizer_failing_after_a_stop_prints_no_traceback_and_one_failing_otherwise_does(stopped):
    """A race run stopped 2 s in, while numba was loading a loop, printed llvmlite's "Exception ignored in
    ObjectRef.__del__" and a traceback under its one line: an object the stop cut off half made failed in
    its finalizer.  After a stop that is said nothing of; without a stop it is still printed (a bug)."""
    p = subprocess.run([sys.executable, "-c", HALF_MADE, "stopped" if stopped else "running"], capture_output=True,
                       text=True, timeout=60, cwd=ROOT)
    assert p.stdout == "done\n", p.stderr
    assert ("Traceback" in p.stderr) is not stopped, p.stderr
