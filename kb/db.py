"""Opening the knowledge base: one SQLite file, migrated to the current schema.

Every failure a user can cause (missing folder, read-only or locked file, a
file that is not SQLite, a file from a newer educable) is a KBError with a
one-line message.
"""
from __future__ import annotations

import os
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from kb.schema import MIGRATIONS, VERSION

DEFAULT_PATH = "educable.db"
SQLITE_MAGIC = b"SQLite format 3\x00"

if TYPE_CHECKING:
    import sqlite_utils


class KBError(Exception):
    """The knowledge base cannot be used; the message says why in one line."""


def resolve_path(path: str | os.PathLike | None = None) -> Path:
    """``path``, else $EDUCABLE_DB, else educable.db in the working directory."""
    return Path(path or os.environ.get("EDUCABLE_DB") or DEFAULT_PATH)


def open_kb(path: str | os.PathLike | None = None) -> sqlite_utils.Database:
    """Open (creating if needed) and migrate the knowledge base."""
    p = resolve_path(path)
    try:
        parent_there, there, folder, regular = p.parent.is_dir(), p.exists(), p.is_dir(), p.is_file()
    except OSError as exc:                      # a name too long, a loop of links, ...
        raise KBError(f"{str(p)[:60]}...: {exc.strerror}") from None
    if not parent_there:
        raise KBError(f"{p}: folder {p.parent} does not exist")
    if folder:
        raise KBError(f"{p}: is a folder, not a database file")
    if there and not regular:
        raise KBError(f"{p}: is not a regular file (a pipe or a device?)")
    if p.exists():
        with open(p, "rb") as fh:
            head = fh.read(16)
        if head and head != SQLITE_MAGIC:
            raise KBError(f"{p}: not an SQLite database")
        if not os.access(p, os.W_OK):
            raise KBError(f"{p}: the database file is read-only")
    elif not os.access(p.parent, os.W_OK):
        raise KBError(f"{p}: cannot create the database, folder {p.parent} is read-only")
    try:
        conn = sqlite3.connect(p, timeout=5.0, isolation_level=None)
        conn.execute("PRAGMA foreign_keys = ON")
        import sqlite_utils      # here, not at the top: a command that opens no database does not pay for it

        db = sqlite_utils.Database(conn)
        _migrate(db, p)
    except sqlite3.DatabaseError as exc:
        raise KBError(describe(exc, p)) from None
    return db


def _migrate(db: sqlite_utils.Database, p: Path) -> None:
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > VERSION:
        raise KBError(f"{p}: made by a newer educable (schema {version}; this one knows up to {VERSION})")
    if version < 0 or (version == 0 and db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]):
        raise KBError(f"{p}: an SQLite database that educable did not make (schema version {version}"
                      f"{' with tables of its own' if version == 0 else ''}); give another file with --db")
    for number in range(version, VERSION):
        # executescript commits any open transaction first, so each migration
        # is one script that opens and commits its own.
        try:
            db.conn.executescript(
                "BEGIN IMMEDIATE;" + MIGRATIONS[number] + f";PRAGMA user_version = {number + 1}; COMMIT;")
        except BaseException:
            if db.conn.in_transaction:
                db.conn.execute("ROLLBACK")
            raise


def describe(exc: sqlite3.Error, p: Path | str) -> str:
    """One line for an SQLite error."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return f"{p}: the database is locked by another process; try again when it finishes"
    if "readonly" in text or "read-only" in text:
        return f"{p}: the database file is read-only"
    if "not a database" in text or "malformed" in text:
        return f"{p}: not an SQLite database, or damaged (restore a copy, or move it away to start afresh)"
    if "disk is full" in text or "disk I/O" in text:
        return (f"{p}: the disk is full (or failing): the write in progress was not saved; what earlier "
                "commits saved is there")
    if "no such table" in text or "no such column" in text:
        return (f"{p}: {text}: the knowledge base lacks something educable needs (edited by hand?); "
                "move it away to start afresh")
    return f"{p}: {text}"


@contextmanager
def transaction(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """All writes inside commit together or not at all (Ctrl-C included)."""
    conn = db.conn
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if conn.in_transaction:        # SQLite rolls back by itself on some errors (a full disk)
            conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")
