"""The n-tuple learner on 2048 (Szubert and Jaśkowski's TD(0) on afterstates, played in
learners/tiles.py's kernel): its line tables read from the rules and checked against a slide written
here from Cirulli's rules, a rule file that differs refused, and learning measured against random
play simulated here."""
from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys

import numpy as np
import pytest

from test_chance import ROOT, educable
from test_score import moved, refused, slide_row


def run_json(*args, db, games_dir=ROOT / "examples" / "chance") -> dict:
    p = educable(*args, "--json", db=db, games_dir=games_dir)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.fixture(scope="module")
def tables_2x3():
    """2048(2,3)'s line tables as bridge/tiles.py reads them from rules/games/2048.pl (in a process
    of their own: the example games stay out of this one's Prolog)."""
    from educable.learners.tiles import LineTables
    env = {**os.environ, "EDUCABLE_GAMES": str(ROOT / "examples" / "chance")}
    code = ("import json; from educable.bridge import tiles; t = tiles.tables_for('2048(2,3)', 8); "
            "print(json.dumps([t.rows, t.columns, t.values, t.lines.tolist(), t.slid.tolist(), t.points.tolist()]))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    rows, columns, values, lines, slid, points = json.loads(p.stdout)
    return LineTables(rows, columns, values, *(np.array(a, dtype=np.int64) for a in (lines, slid, points)))


def test_the_line_tables_slide_as_cirulli_wrote(tables_2x3):
    """Every line content of every direction, against slide_row (test_score.py: each equal pair
    nearest the side merged once, the merged values scored)."""
    t = tables_2x3
    k = t.values
    for d in range(4):
        length = int((t.lines[d, 0] >= 0).sum())
        for code in range(k ** length):
            exps = [code // k ** j % k for j in range(length)]
            tiles_in = tuple(2 ** e if e else 0 for e in exps)
            out, points = slide_row(tiles_in)
            if max(out) >= 2 ** k:
                assert t.slid[d, code] == -1            # past the agent's values
                continue
            want = sum((v.bit_length() - 1 if v else 0) * k ** j for j, v in enumerate(out))
            assert t.slid[d, code] == want
            assert want == code or t.points[d, code] == points


def test_line_tables_are_remembered_and_a_damaged_memory_is_read_anew(tables_2x3, tmp_path):
    """Read once from the rules, the tables come back from educable's cache folder without asking
    Prolog; a remembered file whose tables are not what the rules make (rows and columns swapped),
    that is no table file at all, or whose header claims terabytes (a MemoryError before), is read
    from the rules again and replaced."""
    code = """
import json, sys
from pathlib import Path
import numpy as np
from educable.bridge import tiles
asked = []
read = tiles._read_tables
tiles._read_tables = lambda *a: asked.append(1) or read(*a)
def tables():
    tiles.tables_for.cache_clear()
    t = tiles.tables_for('2048(2,3)', 8)
    return [t.slid.tolist(), t.points.tolist()], len(asked)
out = [tables(), tables()]
(kept,) = Path(sys.argv[1]).rglob('*.npz')
with np.load(kept) as f:
    slid, points = f['slid'], f['points']
np.savez(kept, slid=slid[[2, 3, 0, 1]], points=points[[2, 3, 0, 1]])
out.append(tables())
kept.write_bytes(b'not a table')
out.append(tables())
import io, zipfile
header = io.BytesIO()                     # a header that claims terabytes, over a few bytes of data
np.lib.format.write_array_header_1_0(header, {'descr': '<i8', 'fortran_order': False, 'shape': (4, 10**11)})
with zipfile.ZipFile(kept, 'w') as z:
    for name in ('slid.npy', 'points.npy'):
        z.writestr(name, header.getvalue() + bytes(64))
out.append(tables())
print(json.dumps(out))
"""
    cache = tmp_path / "cache"
    env = {**os.environ, "EDUCABLE_GAMES": str(ROOT / "examples" / "chance"), "EDUCABLE_CACHE": str(cache)}
    p = subprocess.run([sys.executable, "-c", code, str(cache)], capture_output=True, text=True, env=env, cwd=ROOT,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    expected = [tables_2x3.slid.tolist(), tables_2x3.points.tolist()]
    assert [asked for _, asked in json.loads(p.stdout)] == [1, 1, 2, 3, 4]    # Prolog asked again only when damaged
    assert all(got == expected for got, _ in json.loads(p.stdout))


def test_whole_boards_move_as_the_reference(tables_2x3):
    from educable.learners.tiles import DIRECTIONS, slide_board
    rng = random.Random(5)
    for _ in range(300):
        board = tuple(rng.choice([0, 0, 1, 1, 2, 3, 4]) for _ in range(6))
        for d, name in enumerate(DIRECTIONS):
            pts, after = slide_board(np.array(board), d, tables_2x3)
            want, want_points = moved(tuple(2 ** e if e else 0 for e in board), 2, 3, name)
            if want == tuple(2 ** e if e else 0 for e in board):
                assert pts == -1
            else:
                assert (tuple(2 ** int(e) if e else 0 for e in after), pts) == (want, want_points)


def random_mean(rows: int, cols: int, games: int, seed: int) -> float:
    """The mean score of uniformly random play, simulated here from the reference slide."""
    rng = random.Random(seed)
    total = 0
    for _ in range(games):
        board = [0] * (rows * cols)
        for _ in range(2):
            board[rng.choice([i for i, v in enumerate(board) if not v])] = 2 if rng.random() < 0.9 else 4
        while True:
            options = [moved(tuple(board), rows, cols, d) for d in ("up", "down", "left", "right")]
            options = [(b, p) for b, p in options if b != tuple(board)]
            if not options:
                break
            b, p = rng.choice(options)
            total += p
            board = list(b)
            board[rng.choice([i for i, v in enumerate(board) if not v])] = 2 if rng.random() < 0.9 else 4
    return total / games


def test_the_learner_scores_far_above_random_play_and_expectimax_over_it_holds(tmp_path):
    db = tmp_path / "kb.db"
    run = run_json("train", "2048(3,3)", "--learner", "ntuple", "--agent", "t", "--games", "500", "--seed", "1",
                   db=db)
    assert run["games"] == 500 and run["tiles"]["moves"] > 500 and len(run["curve"]) == 500 // 12   # every 500 // 40
    assert run["exact"] is None and "eval" in run["exact_skipped"]
    alone = run_json("eval", "2048(3,3)", "t", "--games", "300", "--seed", "2", db=db)
    chance = random_mean(3, 3, 300, 3)
    assert alone["mean_score"] > 5 * chance, (alone["mean_score"], chance)     # random play: about 180; 1,574 here
    assert alone["reached"]["256"] > 0.25                                       # 36% here (49% after 800 games)
    deeper = run_json("eval", "2048(3,3)", "expectimax:2+t", "--games", "20", "--seed", "2", db=db)
    assert deeper["depth"] == 2 and deeper["mean_score"] > 5 * chance


def test_the_kernels_games_meet_the_exact_judgement_over_the_graph(tmp_path):
    """eval --exact judges the agent over Prolog's state graph (its moves: points plus the
    afterstate's value, from Prolog's cells); eval plays it in the kernel: the two must agree."""
    db = tmp_path / "kb.db"
    run_json("train", "2048(2,2)", "--learner", "ntuple", "--agent", "t", "--games", "3000", "--seed", "4", db=db)
    exact = run_json("eval", "2048(2,2)", "t", "--exact", db=db)
    played = run_json("eval", "2048(2,2)", "t", "--games", "4000", "--seed", "5", db=db)
    low, high = played["interval95"]
    half = (high - low) / 2
    assert low - half < exact["expected_score"] < high + half, (exact, played["interval95"])
    assert 40 < exact["expected_score"] <= exact["best_expected_score"] == pytest.approx(66.964149, abs=1e-6)


def test_training_on_two_dask_workers_merges_rounds_and_their_coherence_sums(tmp_path):
    db = tmp_path / "kb.db"
    run = run_json("train", "2048(2,3)", "--learner", "ntuple", "--agent", "t", "--games", "1200", "--workers", "2",
                   db=db)
    assert run["games"] == 1200 and run["tiles"]["workers"] == 2 and run["tiles"]["rounds"] >= 2
    assert run["options"]["tcl"] and run["options"]["alpha"] == 1.0
    with sqlite3.connect(db) as con:
        learned, summed, pushed = con.execute(
            "select count(*), sum(tc_sizes > 0), sum(tc_sizes >= abs(tc_changes)) from ntuple_weights").fetchone()
    assert learned > 100 and summed == learned == pushed      # every learned weight has A >= |N| > 0


def test_without_coherence_every_weight_takes_the_runs_step(tmp_path):
    db = tmp_path / "kb.db"
    run = run_json("train", "2048(2,2)", "--learner", "ntuple", "--agent", "t", "--games", "300", "--no-tcl",
                   "--alpha", "0.1", db=db)
    assert not run["options"]["tcl"] and run["options"]["alpha"] == 0.1
    with sqlite3.connect(db) as con:
        learned, summed = con.execute("select count(*), count(nullif(tc_sizes, 0)) from ntuple_weights").fetchone()
    assert learned > 10 and summed == 0


def test_coherence_switched_off_on_a_stored_agent_stays_off(tmp_path):
    """--no-tcl on an agent made coherent (the 2048 default) is applied and kept: a later run without
    the flag does not turn it back on (it did: a new agent's default overrode the stored choice)."""
    db = tmp_path / "kb.db"
    first = run_json("train", "2048(2,2)", "--learner", "ntuple", "--agent", "t", "--games", "100", db=db)
    assert first["options"]["tcl"]
    off = run_json("train", "2048(2,2)", "--learner", "ntuple", "--agent", "t", "--games", "100", "--no-tcl", db=db)
    assert not off["options"]["tcl"]
    again = run_json("train", "2048(2,2)", "--learner", "ntuple", "--agent", "t", "--games", "100", db=db)
    assert not again["options"]["tcl"] and again["options"]["alpha"] == first["options"]["alpha"]
    with sqlite3.connect(db) as con:
        summed = con.execute("select count(nullif(tc_sizes, 0)) from ntuple_weights").fetchone()[0]
    assert summed == 0


def test_temporal_coherence_slows_a_weight_pushed_back_and_forth():
    """Beal and Smith's temporal coherence, as Jaśkowski learned 2048: a weight's step is |N|/A times the
    change asked, N the sum of the changes asked of it so far and A the sum of their sizes (all of it
    before any)."""
    from educable.learners import tiles
    board = np.array([1, 0, 0, 0], dtype=np.int64)
    tuples, offsets, perms = np.array([[0]]), np.array([0]), np.array([[0, 1, 2, 3]])
    w, n, a, dirty = np.zeros(4), np.zeros(4), np.zeros(4), np.zeros(4, dtype=np.uint8)
    expected, changes, sizes = 0.0, 0.0, 0.0
    for delta in (1.0, -1.0, 1.0, 1.0, -0.5):
        expected += (abs(changes) / sizes if sizes else 1.0) * delta
        changes, sizes = changes + delta, sizes + abs(delta)
        tiles._update(w, n, a, board, tuples, offsets, perms, 3, delta, dirty)
        assert w[1] == pytest.approx(expected) and (n[1], a[1]) == (changes, sizes)
    assert w[0] == w[2] == 0 and dirty.tolist() == [0, 1, 0, 0]
    plain = np.zeros(4)
    tiles._update(plain, np.zeros(0), np.zeros(0), board, tuples, offsets, perms, 3, 0.25, dirty)
    assert plain.tolist() == [0, 0.25, 0, 0]


def test_rules_that_differ_from_2048s_are_refused_in_one_line(tmp_path):
    games = tmp_path / "games"
    games.mkdir()
    text = (ROOT / "rules" / "games" / "2048.pl").read_text()       # as a game of its own: tiles(R,C)
    changed = (text.replace("tile(2, _), 9)", "tile(2, _), 8)").replace("tile(4, _), 1)", "tile(4, _), 2)")
               .replace(":- module(g2048,", ":- module(tiles,").replace("'2048", "'tiles"))
    assert changed.count("'tiles") >= 3
    (games / "tiles.pl").write_text(changed)
    p = educable("train", "tiles(2,3)", "--learner", "ntuple", "--agent", "t", "--games", "10",
                 db=tmp_path / "kb.db", games_dir=games)
    refused(p, "tiles(2,3)", "new tile", "9 to 1")


@pytest.mark.parametrize("args, words", [
    (["--lambda", "0.5"], "--lam"),
    (["--vs", "random"], "leave out --vs"),
    (["--until-perfect"], "two players")])
def test_what_2048s_learner_has_no_use_for_is_refused_in_one_line(args, words, tmp_path):
    refused(educable("train", "2048(2,3)", "--learner", "ntuple", "--agent", "t", "--games", "10", *args,
                     db=tmp_path / "kb.db"), words)


def test_an_unknown_agent_depth_is_refused(tmp_path):
    db = tmp_path / "kb.db"
    run_json("train", "2048(2,2)", "--learner", "ntuple", "--agent", "t", "--games", "50", db=db)
    refused(educable("eval", "2048(2,2)", "expectimax:3+t", db=db), "1 or 2 moves deep")
