"""Training keeps its progress: a real process, a real signal, the committed games kept and continued."""
import os
import re
import signal
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import EDUCABLE, REAL_EDUCABLE, interruptible

RUNS = {
    "qlearn": (["--learner", "qlearn", "--games", "3000000"], "games"),
    "punish": (["--learner", "punish", "--games", "3000000"], "games"),
    "ga": (["--learner", "ga", "--cycles", "100000"], "cycles"),
    "ntuple": (["--learner", "ntuple", "--games", "3000000"], "games"),
}


def trained(db: Path) -> int | None:
    """The agent's games trained as committed, or None before the first commit."""
    if not db.exists():
        return None
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            row = conn.execute("SELECT games_trained, params FROM agents WHERE name = 'a'").fetchone()
    except sqlite3.OperationalError:      # the schema is still being made
        return None
    return None if row is None else row[0]


def cycles(db: Path) -> int:
    import json
    with sqlite3.connect(db) as conn:
        return json.loads(conn.execute("SELECT params FROM agents WHERE name = 'a'").fetchone()[0])["cycles"]


@pytest.mark.parametrize("learner, sig, game", [("qlearn", signal.SIGINT, "tictactoe"),
                                                ("punish", signal.SIGTERM, "tictactoe"),
                                                ("ga", signal.SIGTERM, "tictactoe"),
                                                # too large to enumerate: Q-learning expands it lazily
                                                ("qlearn", signal.SIGINT, "connect(4,7,6)"),
                                                ("ntuple", signal.SIGTERM, "tictactoe"),
                                                # the n-tuple learner's batches of games, one Prolog query a ply
                                                ("ntuple", signal.SIGINT, "connect(4,7,6)")])
def test_a_stopped_run_keeps_what_it_committed_and_a_later_run_continues(tmp_path, learner, sig, game):
    db = tmp_path / "kb.db"
    env = {**os.environ, "EDUCABLE_DB": str(db)}
    args, unit = RUNS[learner]
    proc = subprocess.Popen([REAL_EDUCABLE, "train", game, "--agent", "a", *args, "--seed", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=interruptible)
    try:
        deadline = time.monotonic() + 120
        while not trained(db):                       # the first commit of games, a few seconds in (a new
                                                     # agent's row may be stored before, with none)
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no commit within two minutes"
            time.sleep(0.2)
        if learner == "ntuple" and game != "tictactoe":
            # the run going on is shown with its curve so far (what the page's live curve draws)
            import json
            committed = trained(db)
            r = subprocess.run([EDUCABLE, "runs", "now", "--agent", "a", "--json"], capture_output=True,
                               text=True, timeout=60, env=env)
            assert r.returncode == 0, r.stderr
            going = json.loads(r.stdout)
            assert going["running"] and going["agent"] == "a" and going["games"] >= committed
            assert going["points"][-1]["games"] == going["games"]
            assert going["points"][0]["strength"]["positions"] == 300
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    said = re.search(rf"interrupted; (\d+) {unit} committed before the stop are kept", err)
    assert said, err
    assert "Traceback" not in err
    kept = int(said.group(1))
    assert kept > 0
    if learner == "ga":
        assert cycles(db) == kept
        more = ["--cycles", "3"]
    else:
        assert trained(db) == kept
        more = ["--games", "10"]
        with sqlite3.connect(db) as conn:     # the stopped run's kept games and time are a run of their own
            runs = conn.execute("SELECT games, seconds, json_extract(results, '$.stopped') FROM runs").fetchall()
        assert len(runs) == 1 and runs[0][0] == kept and runs[0][1] > 0 and runs[0][2] == 1, runs
    before = trained(db)
    # the kept agent is whole: it plays, and the same command goes on from it (no signal here: the
    # suite's fork server runs these, tests/zygote.py)
    r = subprocess.run([EDUCABLE, "eval", game, "a", "--vs", "random", "--games", "4"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([EDUCABLE, "train", game, "--agent", "a", "--learner", learner,
                        *more, "--seed", "2"], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    if learner == "ga":
        assert cycles(db) == kept + 3
    else:
        assert trained(db) == before + 10


def test_a_slow_commit_spaces_the_next_ones():
    """A commit rewrites all that was learned; one that took 3 s makes the next due 57 s later
    (nineteen times as long), not 2 s (so a large table is not rewritten for much of a run); quick
    ones stay 2 s apart."""
    from educable.learners.training import Commits
    now = [0.0]
    commits = Commits(every=2.0)
    commits._clock = lambda: now[0]
    commits.last = 0.0
    now[0] = 1.9
    assert not commits.due()
    now[0] = 2.0
    assert commits.due()
    now[0] = 5.0                        # the commit took 3 s
    commits.mark(10)
    now[0] = 61.9
    assert not commits.due()
    now[0] = 62.0
    assert commits.due()
    commits.mark(20)                    # an instant commit
    now[0] = 64.0
    assert commits.due() and commits.added(25) == 5


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_during_a_commit_takes_effect_once_the_commit_is_marked(sig):
    """A stop that arrives while a commit is being saved waits until the save is done and marked,
    then stops the run: what the run reports kept is what was saved (a stop between the save and
    its mark reported nothing kept while the knowledge base held the games)."""
    from educable.learners.training import Commits
    saved = []
    commits = Commits()

    def save(new):
        signal.pthread_kill(threading.main_thread().ident, sig)   # the stop arrives mid-save
        time.sleep(0.05)
        saved.append(new)

    # both stops raise KeyboardInterrupt here, as educable's commands make them do: what a test
    # worker process inherited for SIGINT (some ignore it) must not decide the test
    stop = lambda *_: (_ for _ in ()).throw(KeyboardInterrupt())  # noqa: E731
    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        with pytest.raises(KeyboardInterrupt):
            commits.commit(120, save)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    assert saved == [120] and commits.kept == 120
