"""`educable sweep`: a grid of options x seeds, every run stored, medians with intervals, bad input."""
import json
import math
import sqlite3

import pytest
from click.testing import CliRunner

from educable.cli import main
from educable.learners.sampling import geomean_interval, median_interval

PUNISH = ["hexapawn", "--learner", "punish", "--vs", "adversary", "--as", "second", "--games", "30"]


def run(*args):
    return CliRunner().invoke(main, list(args))


def rows(db, sql):
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


def test_median_interval_is_the_textbook_order_statistic_interval():
    # n = 25: the 8th and 18th values (P(B(25, 1/2) <= 7) = 0.0216); n = 9: the 2nd and 8th; n = 5: the range
    assert median_interval(list(range(1, 26))) == (13, 8, 18)
    assert median_interval([9, 1, 8, 2, 7, 3, 6, 4, 5]) == (5, 2, 8)
    assert median_interval([5, 1, 4, 2, 3]) == (3, 1, 5)
    assert median_interval([1, 2, 3, 4]) == (2.5, 1, 4)


def test_geomean_interval():
    g, lo, hi = geomean_interval([1, 100])
    assert g == pytest.approx(10.0) and lo < 10 < hi
    assert geomean_interval([7, 7, 7]) == pytest.approx((7, 7, 7))


def test_sweep_train_stores_every_run_and_reports_each_settings_median(db_path):
    r = run("sweep", "train", *PUNISH, "--grid", "reward=0,1", "--seeds", "4", "--workers", "1", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert [s["setting"] for s in out["settings"]] == ["reward=0", "reward=1"] and out["measure"] == "losses"
    stored = rows(db_path, "SELECT setting, seed, value, result FROM sweep_runs ORDER BY setting, seed")
    assert len(stored) == 8
    # each stored run is what `educable train` gives for that setting and seed
    for setting, seed, value, result in stored[::3]:
        reward = json.loads(setting)["reward"]
        alone = json.loads(run("train", *PUNISH, "--agent", f"a{seed}{reward}", "--reward", reward, "--seed",
                               str(seed), "--json").output)
        assert value == alone["losses"] == json.loads(result)["losses"]
    for s in out["settings"]:
        vals = [v for (setting, _, v, _) in stored if json.loads(setting)["reward"] == s["setting"][7:]]
        assert s["median"] == sorted(vals)[1:3][0] / 2 + sorted(vals)[1:3][1] / 2 and s["values"] == s["values"]
    assert rows(db_path, "SELECT command, status, measure FROM sweeps") == [("train", "complete", "losses")]


def test_sweep_measures_and_on_off_options(db_path, tmp_path):
    r = run("sweep", "train", *PUNISH, "--grid", "fold=on,off", "--seeds", "2", "--workers", "1",
            "--measure", "exact.as_second.perfect", "--plot", str(tmp_path / "p.png"), "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert {s["setting"] for s in out["settings"]} == {"fold=on", "fold=off"}
    assert all(v in (0.0, 1.0) for s in out["settings"] for v in s["values"])
    assert (tmp_path / "p.png").stat().st_size > 1000


def test_games_to_perfect_is_never_when_not_perfect(db_path):
    r = run("sweep", "train", "tictactoe", "--learner", "qlearn", "--games", "20", "--grid", "gamma=1",
            "--seeds", "2", "--workers", "1")
    assert r.exit_code == 0 and "never" in r.output, r.output


@pytest.mark.parametrize("args,words", [
    (["--grid", "bogus=1,2"], "No such option '--bogus'"),
    (["--grid", "reward=abc"], "'abc' is not a valid float"),
    (["--grid", "reward="], "no values"),
    (["--grid", "reward"], "write NAME=V1,V2"),
    ([], "at least one --grid"),
    (["--grid", "reward=0,1", "--seeds", "0"], "--seeds must be from 1"),
    (["--grid", "reward=-1,1"], "must not be negative"),
    (["--grid", "fold=maybe"], "--fold is on or off"),
    (["--grid", "reward=0,1", "--seed", "3"], "--seed is set by the sweep"),
    (["--grid", "reward=0,1", "--measure", "nothing.here"], "gives no number there"),
    (["--grid", "reward=0,1", "--scheduler", "tcp://127.0.0.1:1"], "cannot reach the Dask scheduler"),
])
def test_bad_sweeps_one_line_nothing_stored(db_path, args, words):
    run("sweep", "train", *PUNISH, "--grid", "reward=0", "--seeds", "1", "--workers", "1")
    before = rows(db_path, "SELECT COUNT(*) FROM sweeps")
    r = run("sweep", "train", *PUNISH, *args, "--workers", "1")
    assert r.exit_code == 2 and words in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert rows(db_path, "SELECT COUNT(*) FROM sweeps") == before


def test_sweep_race_scores_every_player_on_the_same_boards(db_path):
    r = run("sweep", "race", "--player", "colorscore,random", "--boards", "3", "--turns", "300", "--seed", "2",
            "--workers", "1", "--json")
    assert r.exit_code == 0, r.output
    out = {s["setting"]: s for s in json.loads(r.output)["settings"]}
    alone = json.loads(run("race", "run", "--player", "colorscore", "--boards", "3", "--turns", "300", "--seed", "2",
                           "--json").output)
    assert sorted(out["colorscore"]["values"]) == sorted(alone["scores"])
    g = math.exp(sum(math.log(s) for s in alone["scores"]) / 3)
    assert out["colorscore"]["geometric_mean"] == pytest.approx(g)
    assert out["colorscore"]["share_of_ones"] == pytest.approx(sum(s == 1 for s in alone["scores"]) / 3)
    bad = run("sweep", "race", "--player", "colorscore,nobody", "--boards", "2")
    assert bad.exit_code == 2 and len(bad.output.strip().splitlines()) == 1


def interrupt(db, sweep_id, drop):
    """The state a sweep stopped midway leaves: some runs missing, its status saying why it stopped."""
    with sqlite3.connect(db) as conn:
        for setting, seed in drop:
            conn.execute("DELETE FROM sweep_runs WHERE sweep = ? AND setting = ? AND seed = ?", (sweep_id, setting, seed))
        conn.execute("UPDATE sweeps SET status = 'stopped: interrupted' WHERE id = ?", (sweep_id,))


def test_resume_runs_only_what_a_stopped_sweep_is_missing(db_path):
    full = json.loads(run("sweep", "train", *PUNISH, "--grid", "reward=0,1", "--seeds", "3", "--workers", "1",
                          "--json").output)
    before = rows(db_path, "SELECT setting, seed, value, result FROM sweep_runs ORDER BY setting, seed")
    dropped = [(s, seed) for s, seed, _, _ in before[1::2]]
    interrupt(db_path, 1, dropped)
    r = run("sweep", "resume", "1", "--workers", "1", "--json")
    assert r.exit_code == 0, r.output
    after = rows(db_path, "SELECT setting, seed, value, result FROM sweep_runs ORDER BY setting, seed")
    assert [a[:3] for a in after] == [b[:3] for b in before]            # the same values as the whole run
    kept = [b for b in before if (b[0], b[1]) not in dropped]
    assert [a for a in after if (a[0], a[1]) not in dropped] == kept   # kept runs untouched (not run again)
    assert {s["setting"]: s["median"] for s in json.loads(r.output)["settings"]} == \
        {s["setting"]: s["median"] for s in full["settings"]}
    assert rows(db_path, "SELECT status FROM sweeps") == [("complete",)]


def test_resume_finishes_a_race_sweep_and_refuses_an_unknown_one(db_path):
    args = ["--player", "colorscore,random", "--boards", "3", "--turns", "300", "--seed", "2", "--workers", "1"]
    full = json.loads(run("sweep", "race", *args, "--json").output)
    before = rows(db_path, "SELECT setting, seed, value FROM sweep_runs ORDER BY setting, seed")
    interrupt(db_path, 1, [(s, seed) for s, seed, _ in before[:3]])
    r = run("sweep", "resume", "1", "--workers", "1", "--json")
    assert r.exit_code == 0, r.output
    assert rows(db_path, "SELECT setting, seed, value FROM sweep_runs ORDER BY setting, seed") == before
    assert json.loads(r.output)["settings"][0]["geometric_mean"] == full["settings"][0]["geometric_mean"]
    for sweep_id, words in (("7", "no sweep 7"), ("1", "sweep 1 is complete")):
        bad = run("sweep", "resume", sweep_id)
        assert bad.exit_code == 2 and words in bad.output and len(bad.output.strip().splitlines()) == 1
    assert rows(db_path, "SELECT COUNT(*) FROM sweeps") == [(1,)]
    assert rows(db_path, "SELECT COUNT(*) FROM sweep_runs") == [(6,)]


@pytest.mark.parametrize("sql, words", [
    ("UPDATE sweeps SET grid = '{'", "grid is not a JSON object"),
    ("UPDATE sweeps SET grid = '{\"reward\": []}'", "grid is not a JSON object"),
    ("UPDATE sweeps SET grid = '{\"reward\": [\"0\", \"0\"]}'", "lists 0 twice"),
    ("UPDATE sweeps SET seeds = -1", "seeds -1"),
    ("UPDATE sweeps SET seeds = 'x'", "seeds 'x'"),
    ("UPDATE sweeps SET args = '[]'", "args is not a JSON object"),
    ("UPDATE sweeps SET args = 'nope'", "args is not a JSON object"),
    ("UPDATE sweeps SET command = 'zap'", "command 'zap'"),
])
def test_resuming_a_hand_edited_sweep_is_one_line_naming_the_row(db_path, sql, words):
    """sweep resume of a sweep whose stored grid, seeds or JSON was edited: one line, exit 2, no write
    (it was an internal error)."""
    import sqlite3

    from conftest import cli, kb_dump
    r = cli("sweep", "train", "hexapawn", "--learner", "punish", "--games", "5", "--grid", "reward=0,1",
            "--seeds", "1", "--workers", "1")
    assert r.exit_code == 0, r.output
    conn = sqlite3.connect(db_path)
    conn.execute("UPDATE sweeps SET status = 'stopped: interrupted'")
    conn.execute(sql)
    conn.commit()
    before = kb_dump(db_path)
    r = cli("sweep", "resume", "1", "--workers", "1")
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and "table sweeps, row 1" in lines[0] and words in lines[0], r.output
    assert kb_dump(db_path) == before
