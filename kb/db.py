"""Opening the knowledge base: one SQLite file, migrated to the current schema.

Every failure a user can cause (missing folder, read-only or locked file, a
file that is not SQLite, a file from a newer educable) is a KBError with a
one-line message.
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from educable.kb.schema import MIGRATIONS, VERSION

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
        sqlite_utils = import_sqlite_utils()

        # execute_plugins=False: no sqlite-utils plugin a user installed runs on educable's database,
        # and opening it skips the scan of every installed package's entry points (40 ms a command)
        db = sqlite_utils.Database(conn, execute_plugins=False)
        _migrate(db, p)
    except sqlite3.DatabaseError as exc:
        raise KBError(describe(exc, p)) from None
    return db


LEAN_IMPORT = False     # set by the command line (cli.main): see import_sqlite_utils


def import_sqlite_utils() -> Any:
    """sqlite_utils, imported here and not at the top: a command that opens no database does not pay
    for it.  sqlite-utils imports numpy (and pandas, where installed) only to name their types in its
    table API, which educable never uses (every read and write is SQL through ``db.execute``,
    ``db.query`` and ``db.conn``).  A command of the command line (LEAN_IMPORT) that has not needed
    numpy yet imports it without them: `educable games` took 0.1 s longer for numpy alone.  The
    library leaves sqlite-utils whole, for the user's own use of it in the same process."""
    import sys
    if "sqlite_utils" in sys.modules or not LEAN_IMPORT or "numpy" in sys.modules:
        import sqlite_utils
        return sqlite_utils
    hidden = {name: sys.modules.get(name) for name in ("numpy", "pandas")}
    try:
        for name in hidden:
            sys.modules[name] = None            # type: ignore[assignment]  # import of it raises ImportError
        import sqlite_utils
    finally:
        for name, module in hidden.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return sqlite_utils


def file_of(db: sqlite_utils.Database) -> str:
    """The file a knowledge base was opened from, as a user would name it."""
    row = db.conn.execute("PRAGMA database_list").fetchone()
    return os.path.relpath(row[2]) if row and row[2] else "(in memory)"


def agents_of_game(path: str | os.PathLike | None, game: str) -> list[str]:
    """The agents a knowledge base file holds for ``game`` (read only; none when it cannot be read):
    the hint for a game whose file was not loaded."""
    p = resolve_path(path)
    if not p.is_file():
        return []
    try:
        conn = sqlite3.connect(read_only_uri(p), uri=True, timeout=1.0)
        return [r[0] for r in conn.execute("SELECT name FROM agents WHERE game = ? ORDER BY name", (game,))]
    except sqlite3.Error:
        return []


def read_only_uri(path: Path) -> str:
    """An SQLite URI that opens ``path`` for reading only: ``mode=ro``, or ``immutable=1`` where the
    file or its folder cannot be written (a read-only mount, ``chattr +i``), since SQLite's read-only
    mode still needs to write a journal's lock files there."""
    from urllib.parse import quote  # '#', '?', '%' in a file name quoted

    writable = os.access(path, os.W_OK) and os.access(path.parent, os.W_OK) and not _immutable(path)
    return f"file:{quote(str(path.resolve()))}?{'mode=ro' if writable else 'immutable=1'}"


def _immutable(path: Path) -> bool:
    """The file carries Linux's immutable attribute (root may pass os.access yet not write it)."""
    try:
        import fcntl
        import struct
        with open(path, "rb") as fh:
            flags = fcntl.ioctl(fh.fileno(), 0x80086601, struct.pack("l", 0))   # FS_IOC_GETFLAGS
        return bool(struct.unpack("l", flags)[0] & 0x10)                         # FS_IMMUTABLE_FL
    except (OSError, ImportError, struct.error):
        return False


def open_kb_read_only(path: str | os.PathLike | None = None) -> sqlite_utils.Database:
    """Open an existing knowledge base for reading only (``doctor``): nothing is migrated or written,
    so a read-only or immutable file can be checked.  KBError in one line when it cannot be read."""
    sqlite_utils = import_sqlite_utils()

    p = resolve_path(path)
    try:
        conn = sqlite3.connect(read_only_uri(p), uri=True, timeout=5.0, isolation_level=None)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        raise KBError(describe(exc, p)) from None
    return sqlite_utils.Database(conn, execute_plugins=False)


def _migrate(db: sqlite_utils.Database, p: Path) -> None:
    # The version and the tables read in one statement, so from one snapshot: read apart, a second
    # process could see version 0 before a first one's commit and its tables after it, and call the
    # file foreign (two `solve` started together on a new file).
    version, tables = db.execute("SELECT (SELECT user_version FROM pragma_user_version), "
                                 "(SELECT count(*) FROM sqlite_master)").fetchone()
    if version > VERSION:
        raise KBError(f"{p}: made by a newer educable (schema {version}; this one knows up to {VERSION})")
    if version < 0 or (version == 0 and tables):
        raise KBError(f"{p}: an SQLite database that educable did not make (schema version {version}"
                      f"{' with tables of its own' if version == 0 else ''}); give another file with --db")
    if version == VERSION:
        return
    # One transaction that holds the write lock from its start: the version is read again inside it,
    # so that a second process opening the same new file waits, then finds the schema made (two
    # `solve` started together on a file that does not exist yet once both made the tables).
    conn = db.conn
    conn.execute("BEGIN IMMEDIATE")
    try:
        for number in range(conn.execute("PRAGMA user_version").fetchone()[0], VERSION):
            for statement in _statements(MIGRATIONS[number]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number + 1}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _statements(script: str) -> list[str]:
    """An SQL script's statements, one by one (executescript would commit the open transaction)."""
    out, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            if pending.strip().strip(";").strip():
                out.append(pending)
            pending = ""
    if pending.strip():
        out.append(pending)
    return out


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


def holds_nothing(path: Path) -> bool:
    """Whether the knowledge base at ``path`` has no row in any table but the schema's own version."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
    try:
        tables = [t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                  if not t.startswith("sqlite_") and t != "schema_version"]
        return all(conn.execute(f'SELECT 1 FROM "{t}" LIMIT 1').fetchone() is None for t in tables)  # noqa: S608  (names from sqlite_master)
    finally:
        conn.close()
