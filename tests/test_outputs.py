"""Outputs never overwrite what the user keeps: a file a command writes (judge --starts-out, rules
export, --plot) is refused in one line, before any work, when it is the knowledge base, a rule file
or a game file in use (the same file, through a symbolic or a hard link); and it is written whole,
through a temporary file renamed into place, so a link in its place is replaced, never written
through."""
import os
import sqlite3
from pathlib import Path

import pytest

from conftest import cli, kb_dump, one_line

ROOT = Path(__file__).resolve().parent.parent
TRAINED = (("train", "tictactoe", "--learner", "qlearn", "--agent", "q", "--games", "200"),
           ("train", "tictactoe", "--learner", "ga", "--agent", "gaia", "--cycles", "2", "--agents", "4"))


@pytest.fixture
def trained(db_path, made):
    return made(TRAINED, db_path)


def is_sqlite(path) -> bool:
    return Path(path).read_bytes()[:16] == b"SQLite format 3\x00"


def outputs(target):
    """Each command that writes a file, writing it to ``target``."""
    return [("judge", "tictactoe", "q", "--per-opening", "1", "--openings", "0", "--games", "2", "--starts-out", str(target)),
            ("rules", "export", "gaia", str(target)),
            ("train", "tictactoe", "--learner", "qlearn", "--agent", "q", "--games", "10", "--plot", str(target))]


@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_no_output_goes_onto_the_knowledge_base_through_a_link(trained, tmp_path, link):
    before = kb_dump(trained)
    for suffix in (".txt", ".pl", ".png"):
        target = tmp_path / f"kb{suffix}"
        target.unlink(missing_ok=True)
        (os.symlink if link == "symbolic" else os.link)(trained, target)
        for args in outputs(target):
            if {"judge": ".txt", "train": ".png"}.get(args[0], suffix) != suffix:     # rules export takes any name
                continue
            r = cli(*args, "--db", str(trained))
            one_line(r, 2, "refused", "the knowledge base")
            assert is_sqlite(trained) and kb_dump(trained) == before, args


def test_the_knowledge_base_named_as_the_output_is_refused(tmp_path, made):
    kb_txt = made(TRAINED, tmp_path / "kb.txt")
    before = kb_dump(kb_txt)
    one_line(cli(*outputs(kb_txt)[0], "--db", str(kb_txt)), 2, "refused", "it is the knowledge base")
    one_line(cli("rules", "export", "gaia", str(kb_txt), "--db", str(kb_txt)), 2, "refused")
    assert kb_dump(kb_txt) == before


def test_no_output_goes_onto_a_rule_or_game_file_in_use(trained, tmp_path, monkeypatch):
    games = tmp_path / "games"
    games.mkdir()
    mine = games / "pile.pl"
    mine.write_text((ROOT / "examples" / "pile.pl").read_text())
    monkeypatch.setenv("EDUCABLE_GAMES", str(games))
    kept = {p: p.read_bytes() for p in (mine, ROOT / "rules" / "games" / "nim.pl", ROOT / "rules" / "bridge.pl")}
    (tmp_path / "via.pl").symlink_to(ROOT / "rules" / "bridge.pl")
    for target in (mine, ROOT / "rules" / "games" / "nim.pl", tmp_path / "via.pl"):
        r = cli("rules", "export", "gaia", str(target), "--db", str(trained))
        one_line(r, 2, "refused", "file")
    assert all(p.read_bytes() == b for p, b in kept.items())


def test_an_output_replaces_a_link_in_its_place_and_never_writes_through_it(trained, tmp_path):
    elsewhere = tmp_path / "keep.txt"
    elsewhere.write_text("mine\n")
    link = tmp_path / "best.pl"
    link.symlink_to(elsewhere)
    r = cli("rules", "export", "gaia", str(link), "--db", str(trained))
    assert r.exit_code == 0, r.output
    assert elsewhere.read_text() == "mine\n"
    assert not link.is_symlink() and "rule(" in link.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best.pl", "kb.db", "keep.txt"], "no scratch file left"
    assert sqlite3.connect(trained).execute("SELECT count(*) FROM agents").fetchone()[0] == 2


# -- an output writes into what the user names: a device, a FIFO, a file of another owner ----------------
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="mknod and chown need root (CI runs as root)")


@needs_root
def test_an_output_to_a_character_device_writes_into_it_and_leaves_it_a_device(trained, tmp_path):
    import stat
    null = tmp_path / "null"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))      # the same device as /dev/null
    r = cli("rules", "export", "gaia", str(null), "--db", str(trained))
    assert r.exit_code == 0, r.output
    assert stat.S_ISCHR(os.lstat(null).st_mode) and os.lstat(null).st_rdev == os.makedev(1, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kb.db", "null"], "no scratch file left"


def test_an_output_to_a_fifo_reaches_its_reader_and_one_without_a_reader_is_refused(trained, tmp_path):
    import stat
    import threading
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    one_line(cli("rules", "export", "gaia", str(fifo), "--db", str(trained)), 2, "no reader")
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    for _ in range(200):                     # the reader has opened its end
        r = cli("rules", "export", "gaia", str(fifo), "--db", str(trained))
        if r.exit_code == 0:
            break
    reader.join(timeout=30)
    assert r.exit_code == 0, r.output
    assert got and "rule(" in got[0], got
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@needs_root
def test_an_output_over_a_file_of_another_owner_keeps_its_owner_and_mode(trained, tmp_path):
    import stat
    theirs = tmp_path / "theirs.pl"
    theirs.write_text("% theirs\n")
    os.chown(theirs, 4321, 4321)
    os.chmod(theirs, 0o640)
    r = cli("rules", "export", "gaia", str(theirs), "--db", str(trained))
    assert r.exit_code == 0, r.output
    info = os.stat(theirs)
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (4321, 4321, 0o640)
    assert "rule(" in theirs.read_text()


def test_an_output_to_a_socket_is_refused_in_one_line(trained, tmp_path):
    import socket
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        one_line(cli("rules", "export", "gaia", str(path), "--db", str(trained)), 2, "socket")
