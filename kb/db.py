"""Opening the knowledge base: one SQLite file, migrated to the current schema.

Every failure a user can cause (missing folder, read-only or locked file, a
file that is not SQLite, a file from a newer educable) is a KBError with a
one-line message.
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

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
        db = _database(conn)
        _migrate(db, p)
    except sqlite3.DatabaseError as exc:
        raise KBError(describe(exc, p)) from None
    return db


LEAN_IMPORT = False     # set by the command line (cli.main): see _database and import_sqlite_utils


def _database(conn: sqlite3.Connection) -> sqlite_utils.Database:
    """The handle every module of educable reads and writes through: sqlite-utils' Database for the
    library (the user's ``KnowledgeBase.db``, its whole table API theirs to use), and for a command
    of the command line (LEAN_IMPORT) a CommandDatabase, which answers the three calls educable makes
    of it without importing sqlite-utils (48 ms of a `query` that takes 0.3 s)."""
    if LEAN_IMPORT:
        return cast("sqlite_utils.Database", CommandDatabase(conn))
    # execute_plugins=False: no sqlite-utils plugin a user installed runs on educable's database,
    # and opening it skips the scan of every installed package's entry points (40 ms a command)
    return import_sqlite_utils().Database(conn, execute_plugins=False)


class CommandDatabase:
    """sqlite-utils' Database as educable's own code uses it: ``conn``, ``execute`` and ``query``, with
    their meaning on a connection in autocommit mode (``isolation_level=None``, as open_kb makes
    it): ``execute`` returns the cursor, ``query`` yields each row as a dict keyed by column, a
    repeated column name numbered ``_2``, ``_3`` as sqlite-utils numbers it.  Any other attribute
    (its table API: ``db["agents"].rows``, ``db.tables``) loads sqlite-utils then and is answered by
    its Database on the same connection, so nothing a user's code asks of it is missing."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._whole: sqlite_utils.Database | None = None

    def execute(self, sql: str, parameters: Any = None) -> sqlite3.Cursor:
        """Run one statement; its cursor."""
        return self.conn.execute(sql) if parameters is None else self.conn.execute(sql, parameters)

    def query(self, sql: str, params: Any = None) -> Iterator[dict]:
        """The rows of one statement that returns rows, each a dict."""
        cursor = self.execute(sql, params)
        if cursor.description is None:
            raise ValueError("query() can only be used with SQL that returns rows - use execute() for other "
                             "statements")
        keys = _numbered(column[0] for column in cursor.description)
        return (dict(zip(keys, row, strict=True)) for row in cursor)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_whole":
            raise AttributeError(name)
        return getattr(self._sqlite_utils(), name)

    def __getitem__(self, table: str) -> Any:
        """``db["agents"]``: sqlite-utils' table."""
        return self._sqlite_utils()[table]

    def _sqlite_utils(self) -> sqlite_utils.Database:
        if self._whole is None:
            self._whole = import_sqlite_utils().Database(self.conn, execute_plugins=False)
        return self._whole


def _numbered(names: Iterable[str]) -> list[str]:
    """Column names made unique as sqlite-utils makes them: a repeat gets ``_2``, ``_3``, ... (a
    suffix another column already has is skipped)."""
    names = list(names)
    taken, seen, out = set(names), set(), []
    for name in names:
        unique, suffix = name, 2
        while name in seen and (unique in seen or unique in taken):
            unique, suffix = f"{name}_{suffix}", suffix + 1
        seen.add(unique)
        out.append(unique)
    return out


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
    p = resolve_path(path)
    try:
        conn = sqlite3.connect(read_only_uri(p), uri=True, timeout=5.0, isolation_level=None)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        raise KBError(describe(exc, p)) from None
    return _database(conn)


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
