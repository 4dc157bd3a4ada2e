"""Parallel work on Dask: a real scheduler and two workers started as processes here, a race on them
equal to a local run, a worker killed mid-run, a run interrupted and resumed, and bad addresses."""
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import EDUCABLE, REAL_EDUCABLE, interruptible, once_per_run

BIN = Path(sys.executable).parent
TURNS = "1500"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def educable(db, *args, check=True):
    r = subprocess.run([EDUCABLE, *args, "--db", str(db)], capture_output=True, text=True, timeout=600)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def race_json(db, *args):
    return json.loads(educable(db, "race", "run", *args, "--json").stdout)


def rows_stored(db, table: str = "race_boards") -> int:
    """Rows of a table of the knowledge base (0 before it exists)."""
    try:
        with sqlite3.connect(db) as conn:
            return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    except sqlite3.Error:
        return 0


def boards_stored(db) -> int:
    return rows_stored(db, "race_boards")


def interrupted_after_first_row(db, table: str, *args) -> tuple[int, str, int]:
    """Start `educable ARGS --db DB`, send it SIGINT once TABLE has a row; its exit code, stderr and
    the rows it kept."""
    run = subprocess.Popen([REAL_EDUCABLE, *args, "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, preexec_fn=interruptible)
    deadline = time.time() + 300
    while rows_stored(db, table) < 1 and time.time() < deadline and run.poll() is None:
        time.sleep(0.01)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=60)
    return run.returncode, err, rows_stored(db, table)


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """A Dask scheduler and two single-thread workers, each its own process on localhost."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    logs = tmp_path_factory.mktemp("dask")
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=open(logs / "scheduler", "w"))]
    for k in range(2):
        procs.append(subprocess.Popen([str(BIN / "dask"), "worker", address, "--nthreads", "1", "--no-dashboard",
                                       "--name", f"w{k}", "--no-nanny"],
                                      stdout=subprocess.DEVNULL, stderr=open(logs / f"worker{k}", "w")))
    from distributed import Client
    with Client(address, timeout="60s") as c:
        c.wait_for_workers(2, timeout=120)
    yield address, procs
    for p in [*procs[1:], procs[0]]:            # the workers first: with their scheduler gone first, a worker
        if p.poll() is None:                    # waited out its reconnection timeouts (20 s) before it exited
            p.terminate()
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=20)


def test_a_race_on_the_cluster_scores_as_a_local_run(scheduler, tmp_path):
    address, _ = scheduler
    local = race_json(tmp_path / "a.db", "--player", "colorscore", "--boards", "6", "--seed", "2", "--turns", TURNS)
    remote = race_json(tmp_path / "b.db", "--player", "colorscore", "--boards", "6", "--seed", "2", "--turns", TURNS,
                       "--scheduler", address)
    assert remote["scheduler"] == address
    assert remote["scores"] == local["scores"] and remote["board_seeds"] == local["board_seeds"]
    env = {**os.environ, "EDUCABLE_SCHEDULER": address}
    r = subprocess.run([EDUCABLE, "race", "run", "--boards", "6", "--seed", "2", "--turns", TURNS, "--json",
                        "--db", str(tmp_path / "c.db")], capture_output=True, text=True, env=env, timeout=600)
    assert json.loads(r.stdout)["scores"] == local["scores"] and json.loads(r.stdout)["scheduler"] == address


def test_monte_carlo_cfr_on_scheduler_workers_adds_their_rounds_as_merged_here(scheduler, tmp_path):
    """`train leduc --learner cfr --sampling external` on the scheduler's workers: each round, each
    worker runs its iterations from the same tables with a seed of its own, and the run's tables are
    theirs merged (regret changes averaged, strategy sums added) as merged here from rounds run in this
    process; the exploitability falls (0.28 after 10,000 iterations in one process: far below the
    uniform policy's 2.37)."""
    import numpy as np

    from educable.bridge import trees
    from educable.learners import hidden as algo
    address, _ = scheduler
    db = tmp_path / "kb.db"
    run = json.loads(educable(db, "train", "leduc", "--learner", "cfr", "--agent", "m", "--sampling", "external",
                              "--iterations", "40000", "--judge-every", "20000", "--seed", "3", "--scheduler", address,
                              "--json").stdout)
    n = run["workers"]                          # the scheduler's workers (one, after the test that kills one)
    assert run["total_iterations"] == 40000 and run["exploitability"] < 0.5 and n in (1, 2)
    found = trees.tree("leduc")
    state = algo.CFRState.fresh(found)
    for _ in range(2):                          # two rounds (a judgement after each) of 20,000 iterations
        start = (state.regret.copy(), state.total.copy(), state.iterations)
        for w in range(n):
            part = algo.CFRState(start[0].copy(), start[1].copy(), start[2])
            algo.external_sampling(found, part, 20_000 // n, 3 * 64 + w)
            state.regret += (part.regret - start[0]) / n
            state.total += part.total - start[1]
        state.iterations += 20_000
    expected = algo.exploitability(found, state.average(found))[0]
    assert run["exploitability"] == pytest.approx(expected, abs=1e-12)
    stored = dict(((p, m), v) for p, m, v in sqlite3.connect(db).execute(
        "SELECT position, move, value FROM learned_values WHERE agent = 'm'"))
    average = state.average(found)
    for i in range(found.sets):
        for j, move in enumerate(found.moves[i]):
            key = (f"{found.graph.players[int(found.player[i])]} | {found.key[i]}", move)
            assert stored[key] == pytest.approx(float(average[found.slot0[i] + j]), abs=1e-12)
    assert np.isfinite(average).all()


def test_a_sweep_on_the_cluster_equals_a_local_sweep(scheduler, tmp_path):
    address, _ = scheduler
    args = ["sweep", "train", "hexapawn", "--learner", "punish", "--vs", "adversary", "--as", "second",
            "--games", "20", "--grid", "reward=0,1", "--seeds", "2", "--json"]
    local = json.loads(educable(tmp_path / "a.db", *args, "--workers", "1").stdout)
    remote = json.loads(educable(tmp_path / "b.db", *args, "--scheduler", address).stdout)
    assert [sorted(s["values"]) for s in remote["settings"]] == [sorted(s["values"]) for s in local["settings"]]
    assert [s["median"] for s in remote["settings"]] == [s["median"] for s in local["settings"]]
    race = ["sweep", "race", "--player", "colorscore,random", "--boards", "2", "--turns", "300", "--json"]
    local = json.loads(educable(tmp_path / "a.db", *race, "--workers", "1").stdout)
    remote = json.loads(educable(tmp_path / "b.db", *race, "--scheduler", address).stdout)
    assert [sorted(s["values"]) for s in remote["settings"]] == [sorted(s["values"]) for s in local["settings"]]


BOARDS = 8
INTERRUPTED = ["--player", "colorscore", "--boards", str(BOARDS), "--seed", "5", "--turns", "1500"]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """The race a worker is killed in, and the run and the sweep are stopped in, run whole in one process
    (once a run of the suite, whichever test process meets it first)."""
    return once_per_run(tmp_path_factory, "uninterrupted_race",
                        lambda: race_json(tmp_path_factory.mktemp("full") / "full.db", *INTERRUPTED))


def test_a_killed_worker_does_not_change_the_result(scheduler, tmp_path, uninterrupted):
    address, procs = scheduler
    local = uninterrupted
    db = tmp_path / "b.db"
    run = subprocess.Popen([EDUCABLE, "race", "run", *INTERRUPTED, "--scheduler", address, "--json", "--db", str(db)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while boards_stored(db) < 1 and time.time() < deadline and run.poll() is None:
        time.sleep(0.05)
    procs[2].kill()                                   # one worker dies with whatever board it holds
    out, err = run.communicate(timeout=600)
    assert run.returncode == 0, err
    got = json.loads(out)
    assert got["scores"] == local["scores"] and boards_stored(db) == BOARDS


def test_an_interrupted_run_keeps_its_boards_and_resumes(tmp_path, uninterrupted):
    db = tmp_path / "r.db"
    n = str(BOARDS)
    full = uninterrupted
    code, err, kept = interrupted_after_first_row(db, "race_boards", "race", "run", *INTERRUPTED)
    assert code == 130 and 1 <= kept < int(n) and f"{kept} boards committed" in err, err
    status = json.loads(educable(db, "race", "results", "--json").stdout)[0]["status"]
    assert status.startswith("stopped: interrupted")
    resumed = race_json(db, "--resume", "1", "--workers", "2")
    assert resumed["resumed"] == kept and resumed["scores"] == full["scores"] and boards_stored(db) == int(n)
    assert json.loads(educable(db, "race", "results", "--json").stdout)[0]["status"] == "complete"
    again = educable(db, "race", "run", "--resume", "1", check=False)
    assert again.returncode == 2 and "is complete" in again.stderr


@pytest.mark.parametrize("args,words", [
    (["--boards", "2", "--turns", "10", "--scheduler", "tcp://127.0.0.1:1"], "cannot reach the Dask scheduler"),
    (["--boards", "2", "--turns", "10", "--scheduler", "not an address"], "cannot reach the Dask scheduler"),
    (["--resume", "99"], "no race run 99"),
    (["--resume", "1", "--boards", "5"], "--resume RUN takes the run's own --boards"),
])
def test_bad_cluster_input_one_line_nothing_stored(tmp_path, args, words):
    db = tmp_path / "bad.db"
    r = educable(db, "race", "run", *args, check=False)
    assert r.returncode == 2 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert boards_stored(db) == 0


def test_an_interrupted_sweep_keeps_its_runs_and_resumes(tmp_path, uninterrupted):
    db = tmp_path / "s.db"
    full = uninterrupted
    code, err, kept = interrupted_after_first_row(db, "sweep_runs", "sweep", "race", *INTERRUPTED, "--workers", "1")
    assert code == 130 and 1 <= kept < BOARDS, err
    assert f"{kept} runs committed before the stop are kept (educable sweep resume 1 finishes the sweep)" in err
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT status FROM sweeps").fetchone()[0].startswith("stopped: interrupted")
    resumed = json.loads(educable(db, "sweep", "resume", "1", "--workers", "2", "--json").stdout)
    assert sorted(resumed["settings"][0]["values"]) == sorted(full["scores"]) and rows_stored(db, "sweep_runs") == BOARDS
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT status FROM sweeps").fetchone()[0] == "complete"


def test_connect_four_on_scheduler_workers_that_keep_the_net_equals_a_local_run(scheduler, tmp_path):
    """Self-play on the scheduler's two worker processes, each given the whole net once and keeping
    it, learns the same weights as the same seed on a local cluster (tests/test_ntuple.py follows
    the kept nets over two rounds against a merge recomputed in one process)."""
    address, _ = scheduler
    args = ["train", "connect(4,7,6)", "--learner", "ntuple", "--agent", "k", "--games", "1200", "--tuples", "8",
            "--length", "4", "--seed", "3", "--workers", "2", "--json"]
    there = json.loads(educable(tmp_path / "there.db", *args, "--scheduler", address).stdout)
    here = json.loads(educable(tmp_path / "here.db", *args).stdout)
    assert there["lazy"]["rounds"] == here["lazy"]["rounds"] >= 1
    assert there["lazy"]["bytes_first_round"] == here["lazy"]["bytes_first_round"] > 0

    def weights(db):
        with sqlite3.connect(db) as conn:
            return conn.execute("SELECT tuple, pattern, weight FROM ntuple_weights ORDER BY tuple, pattern").fetchall()
    a, b = weights(tmp_path / "there.db"), weights(tmp_path / "here.db")
    assert len(a) == len(b) > 0
    assert all(x[:2] == y[:2] and abs(x[2] - y[2]) < 1e-9 for x, y in zip(a, b))


def test_a_round_going_on_when_a_run_ends_is_cancelled_and_leaves_no_net_on_the_workers(scheduler, kb, monkeypatch):
    """The next round starts while the client commits the last one, so a run stopped then still has
    a round going on: it is cancelled, and the workers' copies of the net are freed, also the copy a
    task of the ended run sets up after the end (a long-lived worker would otherwise keep 220 MB a run)."""
    from distributed import Client

    from educable.bridge import ntuple
    monkeypatch.setattr(ntuple, "ROUND_GAMES", 32)
    address, _ = scheduler
    net, opts, _ = ntuple.start(kb, "r", "connect(4,7,6)", {"tuples": 4, "length": 3}, 1)

    def kept(c, run, settle=False):
        """The copies of run's net the workers hold (``settle``: once a task still running has ended)."""
        deadline = time.monotonic() + 60
        while True:
            n = sum(c.run(lambda: sum(k[0] == run for k in ntuple._KEPT)).values())
            if not (settle and n) or time.monotonic() > deadline:
                return n
            time.sleep(0.2)

    with Client(address, timeout="60s") as c:
        rounds = ntuple.Rounds(c, 2, "connect(4,7,6)", net, opts, [3], 10**6, 1, ntuple.Moved())
        rounds.start(0)
        going = rounds.pending[2]
        rounds.close()
        assert rounds.pending is None and all(f.status == "cancelled" for f in going)
        assert kept(c, rounds.run, settle=True) == 0
        # a round whose tasks run after their run was ended (the stop came first): they keep nothing
        late = ntuple.Rounds(c, 2, "connect(4,7,6)", net, opts, [3], 10**6, 1, ntuple.Moved())
        c.run(ntuple.drop_kept, late.run)
        late.start(0)
        winners, _ = late.finish()
        assert len(winners) == 64
        assert kept(c, late.run) == 0
        going_on = ntuple.Rounds(c, 2, "connect(4,7,6)", net, opts, [3], 10**6, 1, ntuple.Moved())
        going_on.start(0)
        going_on.finish()
        assert kept(c, going_on.run) == 2           # a run going on keeps its copies between rounds
        going_on.close()
        assert kept(c, going_on.run) == 0


def test_rounds_find_the_workers_when_the_clients_cached_identity_lists_none(scheduler, kb, monkeypatch):
    """distributed's client refreshes the identity scheduler_info() returns every 2 s, asking for no
    workers; read at that moment it listed none, and a 2,000,000-game run stopped with a modulo by
    zero. A round asks the scheduler for its workers, and is placed on both whatever that cache says."""
    from distributed import Client

    from educable.bridge import ntuple
    monkeypatch.setattr(ntuple, "ROUND_GAMES", 32)
    address, _ = scheduler
    net, opts, _ = ntuple.start(kb, "r", "connect(4,7,6)", {"tuples": 4, "length": 3}, 1)
    with Client(address, timeout="60s") as c:
        monkeypatch.setattr(c, "scheduler_info", lambda *args, **kwargs: {"workers": {}})
        rounds = ntuple.Rounds(c, 2, "connect(4,7,6)", net, opts, [3], 10**6, 1, ntuple.Moved())
        rounds.start(0)
        winners, _ = rounds.finish()
        rounds.close()
    assert len(winners) == 64


def test_a_round_the_workers_cannot_play_is_one_line_naming_the_troubled_workers(scheduler, kb, monkeypatch):
    """Two workers paused by Dask for memory made a 4,000,000-game run die after 1 h 20 min with a
    100-line traceback (TimeoutError: No valid workers found).  A round that distributed cannot play
    is BadInput now: one line, what failed, the workers not running as the scheduler says, and that
    the commits are kept."""
    from distributed import Client

    from educable.bridge import cluster, ntuple
    from educable.bridge.engine import BadInput
    monkeypatch.setattr(ntuple, "ROUND_GAMES", 32)
    address, _ = scheduler
    net, opts, _ = ntuple.start(kb, "r", "connect(4,7,6)", {"tuples": 4, "length": 3}, 1)

    def no_valid_workers(futures, add):
        raise TimeoutError("No valid workers found")
    with Client(address, timeout="60s") as c:
        real = c.scheduler_info

        def paused(*args, **kwargs):
            info = real(*args, **kwargs)
            first = sorted(info["workers"])[0]
            return {**info, "workers": {**info["workers"], first: {**info["workers"][first], "status": "paused"}}}
        monkeypatch.setattr(c, "scheduler_info", paused)
        monkeypatch.setattr(cluster, "collect", no_valid_workers)
        rounds = ntuple.Rounds(c, 2, "connect(4,7,6)", net, opts, [3], 10**6, 1, ntuple.Moved())
        rounds.start(0)
        with pytest.raises(BadInput) as refused:
            rounds.finish()
        rounds.close()
    line = str(refused.value)
    assert "\n" not in line and line.startswith("the Dask workers could not play a round: TimeoutError: No valid "
                                                "workers found (workers: tcp://")
    assert " paused); the games committed before are kept" in line

