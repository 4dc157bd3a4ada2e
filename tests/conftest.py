import os
import signal
import sqlite3
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture
def db_path(tmp_path, monkeypatch):
    """A fresh knowledge base file per test, also as EDUCABLE_DB."""
    path = tmp_path / "kb.db"
    monkeypatch.setenv("EDUCABLE_DB", str(path))
    return path


@pytest.fixture
def kb(db_path):
    from kb.db import open_kb
    return open_kb(db_path)


@pytest.fixture(scope="session")
def graphs():
    from bridge import graphs
    return {g: graphs.state_graph(None, g) for g in ("tictactoe", "hexapawn")}


def kb_dump(path) -> list[str]:
    """The whole database as SQL, to check a refused command changed nothing."""
    return list(sqlite3.connect(path).iterdump())


def cli(*args, input=None):
    """Run the command line in-process (click's runner)."""
    from click.testing import CliRunner
    from cli import main
    return CliRunner().invoke(main, list(args), input=input)


def cli_json(*args):
    """Run a command with --json; it must succeed, and its output is returned parsed."""
    import json
    r = cli(*args, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def interruptible() -> None:
    """``preexec_fn`` for a process a test stops with SIGINT (Ctrl-C): a suite started in the
    background (``make test &``) ignores SIGINT, and its children would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
