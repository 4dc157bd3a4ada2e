"""The one way educable reads a file a user names (a regular file only, at most a size, as UTF-8),
and the one way it writes one (never over the knowledge base or a rule file, whole or not at all).

A FIFO would block for ever, /dev/zero or /dev/urandom would fill memory, and a file of gigabytes
is not a rule file or a tuple list: each is refused in one line before anything is read (and a
file that grows while it is read is cut at the limit and refused).
"""
from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from bridge.errors import BadInput

MAX_INPUT_BYTES = 16 * 1024 * 1024      # a rule file of 100,000 rules is about 5 MB
RULES_DIR = Path(__file__).resolve().parent.parent / "rules"


GAMES_ENV = "EDUCABLE_GAMES"


def game_folders(rules_dir: Path = RULES_DIR) -> list[Path]:
    """rules/games/, then the folders in $EDUCABLE_GAMES (separated as in PATH); BadInput for one
    that does not exist."""
    extra = [Path(p) for p in os.environ.get(GAMES_ENV, "").split(os.pathsep) if p]
    for folder in extra:
        if not folder.is_dir():
            raise BadInput(f"game folder {folder} (from --games-dir or {GAMES_ENV}) does not exist")
    return [rules_dir / "games", *extra]


GAME_SUFFIXES = (".pl", ".kif")      # Prolog game files, and GDL games (rules/gdl.pl)


def game_files(folder: Path) -> list[Path]:
    """The game files of a folder, in name order."""
    return sorted(p for p in folder.iterdir() if p.suffix in GAME_SUFFIXES and p.is_file())


def checked_file(path: str | os.PathLike, what: str, limit: int = MAX_INPUT_BYTES) -> Path:
    """``path`` when it is a regular file of at most ``limit`` bytes; BadInput naming ``what`` the file
    was to be (\"rule file\", \"tuples file\", ...) otherwise.  For files another reader (Prolog) opens."""
    p = Path(path)
    try:
        info = p.stat()
    except OSError as exc:
        raise BadInput(f"cannot read {what} {path}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = ("a folder" if stat.S_ISDIR(info.st_mode) else "a pipe" if stat.S_ISFIFO(info.st_mode)
                else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else "not a regular file")
        raise BadInput(f"{what} {path} is {kind}; give a regular file")
    if info.st_size > limit:
        raise BadInput(f"{what} {path} holds {info.st_size:,} bytes, more than the {limit:,} educable reads")
    return p


def read_text(path: str | os.PathLike, what: str, limit: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of the regular file ``path`` (``checked_file``), read without blocking and at
    most ``limit`` bytes; BadInput for anything else."""
    p = checked_file(path, what, limit)
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise BadInput(f"cannot read {what} {path}: {exc.strerror}") from None
    if len(data) > limit:
        raise BadInput(f"{what} {path} holds more than the {limit:,} bytes educable reads")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise BadInput(f"{path}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x}); save the {what} as UTF-8") from None


def _same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: the same path once every link is followed, or the same
    inode (a hard link)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        sa, sb = a.stat(), b.stat()
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def kept_files(db_path: str | os.PathLike | None) -> list[tuple[Path, str]]:
    """The files a command must never write over, each with what it is: the knowledge base and its
    journal files, educable's rule files and every game file it loads."""
    kept: list[tuple[Path, str]] = []
    if db_path is not None:
        db = Path(db_path)
        kept += [(db, "the knowledge base")] + [(Path(f"{db}{s}"), "the knowledge base's journal")
                                                 for s in ("-wal", "-shm", "-journal")]
    kept += [(p, "a rule file of educable") for p in sorted(RULES_DIR.glob("*.pl"))]
    try:
        folders = game_folders()
    except BadInput:                         # a missing game folder is said where the games load
        folders = [RULES_DIR / "games"]
    for folder in folders:
        try:
            kept += [(p, "a game file in use") for p in game_files(folder)]
        except OSError:
            continue
    return kept


def check_output(path: str | os.PathLike, what: str, db_path: str | os.PathLike | None) -> Path:
    """``path`` as a file a command may write ``what`` to; BadInput, before any work, when it is the
    knowledge base, a rule file or a game file in use — the same file, through any link."""
    p = Path(path)
    try:
        folder = p.is_dir() or p.name in ("", ".", "..")
    except OSError:                          # a name too long, a loop of links: said where it is written
        folder = False
    if folder:
        raise BadInput(f"cannot write the {what} to {path}: it is a folder; name a file in it")
    for kept, which in kept_files(db_path):
        if _same_file(p, kept):
            through = "" if os.path.abspath(p) == os.path.abspath(kept) else " (through a link)"
            raise BadInput(f"refused to write the {what} to {path}: it is {which} {kept}{through}; name another file")
    return p


def write_whole(path: str | os.PathLike, write: Callable[[Path], object]) -> None:
    """Write a file whole or not at all: ``write`` fills a temporary file beside ``path``, which then
    replaces it (a link named ``path`` is replaced, never written through).  BadInput when it cannot."""
    target = Path(path)
    scratch = target.with_name(f".{target.stem}.{os.getpid()}.tmp{target.suffix}")   # the suffix tells the format
    try:
        write(scratch)
        os.replace(scratch, target)
    except OSError as exc:
        raise BadInput(f"cannot write {path}: {exc.strerror}") from None
    finally:
        if scratch.exists():
            scratch.unlink(missing_ok=True)


def write_text_whole(path: str | os.PathLike, text: str, append: bool = False) -> None:
    """``text`` into ``path`` whole or not at all (``append``: after what the file holds)."""
    before = ""
    if append and Path(path).exists():
        before = read_text(path, "file to add to")
    write_whole(path, lambda scratch: scratch.write_text(before + text, encoding="utf-8"))
