"""Two writers never merge an agent: whoever creates or changes an agent checks its learner and game
inside the write's own transaction, so the second of two processes that both found a name free
is refused in one line and writes nothing."""
import os
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from conftest import EDUCABLE, kb_dump

ROOT = Path(__file__).resolve().parent.parent
EXE = EDUCABLE          # the fork server's client (tests/zygote.py)
RULES = str(ROOT / "examples" / "never_lose_as_x.pl")


def test_a_save_by_another_learner_is_refused_inside_its_transaction(kb, db_path):
    """The race's second writer, without the race: a rules agent exists (made after the n-tuple run
    checked the name), and the n-tuple run's save of the same name is refused, writing nothing."""
    from educable.kb import store
    from educable.kb.db import KBError
    store.save_rule_sets(kb, "wz", "tictactoe", "rules", {}, [(0.0, 0, [("m........", "5", 1, 1.0)])], 0)
    before = kb_dump(db_path)
    with pytest.raises(KBError, match="made meanwhile by learner 'rules'"):
        store.save_ntuple(kb, "wz", "tictactoe", "ntuple", {}, [[0, 1, 2]], [(0, "000", 0.5, None, None)], 3000,
                          {"games": 3000, "seconds": 1.0})
    assert kb_dump(db_path) == before
    with pytest.raises(KBError, match="for tictactoe"):
        store.save_agent(kb, "wz", "hexapawn", "rules", {}, [], 1)       # same learner, another game
    assert kb_dump(db_path) == before


def test_training_and_importing_one_new_agent_at_once_leave_one_whole_agent(db_path):
    """Two processes race to make agent wz: an n-tuple training and a rule import.  Whichever
    wins, wz is one learner's agent with only that learner's rows, and the other exits 2 in one line."""
    env = {**os.environ, "EDUCABLE_DB": str(db_path)}
    train = subprocess.Popen([EXE, "train", "tictactoe", "--learner", "ntuple", "--agent", "wz", "--games", "3000"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(0.5)
    imported = subprocess.run([EXE, "rules", "import", RULES, "--agent", "wz"], capture_output=True, text=True,
                              env=env, timeout=120)
    out, err = train.communicate(timeout=300)
    codes = sorted([train.returncode, imported.returncode])
    assert codes == [0, 2], (train.returncode, err, imported.returncode, imported.stderr)
    loser = err if train.returncode else imported.stderr
    assert len(loser.strip().splitlines()) == 1 and "Traceback" not in loser, loser
    conn = sqlite3.connect(db_path)
    learner, games = conn.execute("SELECT learner, games_trained FROM agents WHERE name = 'wz'").fetchone()
    weights = conn.execute("SELECT count(*) FROM ntuple_weights WHERE agent = 'wz'").fetchone()[0]
    rules = conn.execute("SELECT count(*) FROM rules WHERE agent = 'wz'").fetchone()[0]
    if learner == "ntuple":
        assert (rules, games) == (0, 3000) and weights > 0
    else:
        assert (learner, weights, games, rules) == ("rules", 0, 0, 69)
