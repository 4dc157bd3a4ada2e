"""The knowledge base: schema, transactions, and one-line errors."""
import os
import sqlite3

import pytest

from educable.kb import store
from educable.kb.db import KBError, open_kb, transaction
from educable.kb.schema import VERSION


def test_fresh_file_gets_current_schema(db_path):
    db = open_kb(db_path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == VERSION
    assert {"games", "graphs", "positions", "agents", "learned_values", "runs", "matches"} <= set(db.table_names())


def test_default_path_from_environment(db_path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    open_kb(None)
    assert db_path.exists()


def test_missing_folder(tmp_path):
    with pytest.raises(KBError, match="does not exist"):
        open_kb(tmp_path / "nope" / "kb.db")


def test_not_sqlite(tmp_path):
    p = tmp_path / "x.db"
    p.write_text("hello, I am not a database\n" * 10)
    with pytest.raises(KBError, match="not an SQLite database"):
        open_kb(p)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write read-only files")
def test_read_only(tmp_path):
    p = tmp_path / "x.db"
    open_kb(p)
    p.chmod(0o444)
    with pytest.raises(KBError, match="read-only"):
        open_kb(p)


def test_read_only_reported_even_for_root(tmp_path, monkeypatch):
    p = tmp_path / "x.db"
    open_kb(p)
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(KBError, match="read-only"):
        open_kb(p)


def test_newer_schema_refused(tmp_path):
    p = tmp_path / "x.db"
    conn = sqlite3.connect(p)
    conn.execute(f"PRAGMA user_version = {VERSION + 3}")
    conn.close()
    with pytest.raises(KBError, match="newer educable"):
        open_kb(p)


def test_locked_database_is_one_line(tmp_path):
    p = tmp_path / "x.db"
    db = open_kb(p)
    other = sqlite3.connect(p, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        import educable.kb.db as kbdb
        with pytest.raises(sqlite3.OperationalError) as info:
            db.conn.execute("PRAGMA busy_timeout = 50")
            with transaction(db):
                pass
        assert "locked" in kbdb.describe(info.value, p)
    finally:
        other.execute("ROLLBACK")


def test_transaction_rolls_back_on_interrupt(kb):
    with pytest.raises(KeyboardInterrupt):
        with transaction(kb):
            kb.conn.execute("INSERT INTO agents (name, game, learner, created) VALUES ('a', 'g', 'l', 'now')")
            raise KeyboardInterrupt
    assert kb.execute("SELECT count(*) FROM agents").fetchone()[0] == 0


def test_save_graph_replaces_summarises_and_loads_back(kb, graphs):
    g = graphs["hexapawn"]
    store.save_graph(kb, g, "h1", 0.1, summary=True)
    s = store.save_graph(kb, g, "h1", 0.1, summary=True)
    assert (s["positions"], s["terminal"], s["winner"]) == (135, 65, "black")
    assert kb.execute("SELECT count(*) FROM positions WHERE game='hexapawn'").fetchone()[0] == 135
    row = kb.execute("SELECT exact, value FROM positions WHERE key = '123-789 w'").fetchone()
    assert row == ("black", -1)
    back = store.load_graph(kb, "hexapawn", g.players, False, "h1")
    assert back.keys == g.keys and back.move_text == g.move_text
    for a in ("mover", "winner", "value", "start", "target", "orbit"):
        assert (getattr(back, a) == getattr(g, a)).all(), a
    assert store.load_graph(kb, "hexapawn", g.players, False, "another file") is None
    assert store.game_summary(kb, "hexapawn", "another file") is None


def test_a_graph_kept_for_judging_only_is_packed_and_loads_back(kb, graphs):
    g = graphs["tictactoe"]
    store.save_graph(kb, g, "t1", 0.1, summary=False)
    assert kb.execute("SELECT count(*) FROM positions WHERE game='tictactoe'").fetchone()[0] == 0
    assert store.game_summary(kb, "tictactoe") is None            # not the solved graph
    back = store.load_graph(kb, "tictactoe", g.players, False, "t1")
    assert back.keys == g.keys and back.move_text == g.move_text
    for a in ("mover", "winner", "value", "start", "target", "orbit"):
        assert (getattr(back, a) == getattr(g, a)).all(), a


def test_a_knowledge_base_from_before_bounds_is_migrated_and_its_values_kept(tmp_path):
    """A file at schema 5 (before Q-learning bounds) gains the two columns, empty, and keeps its rows."""
    from educable.kb.schema import MIGRATIONS
    p = tmp_path / "old.db"
    conn = sqlite3.connect(p)
    for number in range(5):
        conn.executescript(MIGRATIONS[number] + f";PRAGMA user_version = {number + 1};")
    conn.execute("INSERT INTO agents (name, game, learner, params, games_trained, created) VALUES (?, ?, ?, ?, ?, ?)",
                 ("old", "tictactoe", "qlearn", '{"update": "negamax"}', 10, "2026-01-01"))
    conn.execute("INSERT INTO learned_values (agent, position, move, value, visits) VALUES (?, ?, ?, ?, ?)",
                 ("old", ".../.../...", "5", 0.5, 3))
    conn.commit()
    conn.close()
    db = open_kb(p)
    assert db.execute("PRAGMA user_version").fetchone()[0] == VERSION
    assert store.load_values(db, "old") == [(".../.../...", "5", 0.5, 3)]
    assert db.execute("SELECT upper, vs_random FROM learned_values").fetchall() == [(None, None)]


def test_a_process_that_fills_several_knowledge_bases_compiles_a_game_once(tmp_path, monkeypatch):
    """A sweep fills a fresh knowledge base a run: the graph this process compiled for the first is
    stored in the next without compiling again (hexapawn: 135 positions, a win for black), but not
    past a smaller --max-positions, not for a command that must store nothing, and not once the
    game's rules have changed."""
    from educable.bridge import games, graphs
    from educable.bridge.compile import TooLarge
    monkeypatch.setattr(graphs, "_CACHE", {})
    monkeypatch.setattr(graphs, "_COMPILED", {})
    compiled = []
    real = graphs.compile_graph
    monkeypatch.setattr(graphs, "compile_graph", lambda *a, **k: compiled.append(a[0]) or real(*a, **k))
    first, second, third = (open_kb(tmp_path / f"{n}.db") for n in ("first", "second", "third"))
    a = graphs.state_graph(first, "hexapawn")
    b = graphs.state_graph(second, "hexapawn")
    assert compiled == ["hexapawn"] and a.positions == b.positions == 135
    back = store.load_graph(second, "hexapawn", b.players, False, games.rules_hash("hexapawn"))
    assert back is not None and back.keys == a.keys and (back.value == a.value).all()
    assert a.keys[0] == "123-789 w" and a.value[0] < 0         # white, to move first, loses
    with pytest.raises(TooLarge):                               # compiled again, and refused on the way
        graphs.state_graph(third, "hexapawn", limit=100)
    assert graphs.state_graph(third, "hexapawn", keep=False).positions == 135
    assert store.load_graph(third, "hexapawn", b.players, False, games.rules_hash("hexapawn")) is None
    assert compiled == ["hexapawn"] * 2
    monkeypatch.setattr(games, "rules_hash", lambda game: "the file was edited")
    graphs.state_graph(third, "hexapawn")
    assert compiled == ["hexapawn"] * 3
