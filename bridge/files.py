"""The one way educable reads a file a user names (a regular file only, at most a size, as UTF-8),
and the one way it writes one (never over the knowledge base or a rule file, whole or not at all).

A FIFO would block for ever, /dev/zero or /dev/urandom would fill memory, and a file of gigabytes
is not a rule file or a tuple list: each is refused in one line before anything is read (and a
file that grows while it is read is cut at the limit and refused).
"""
from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from educable.bridge.errors import BadInput

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
    """Write what ``write`` puts into a temporary file beside ``path`` into the file ``path`` names,
    whole or not at all.  A regular file (or a new one) is replaced by it atomically, keeping an
    existing file's owner and mode; where they cannot be kept (a file of another owner, for a user who
    may not give files away) or the file has other names (hard links), it is written in place.  A link
    named ``path`` is replaced, never written through.  A character device or a FIFO with a reader is
    written to as it is (never replaced); a FIFO without a reader, a socket or a block device is
    refused.  BadInput when it cannot."""
    target = Path(path)
    try:
        info: os.stat_result | None = target.lstat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise BadInput(f"cannot write {path}: {exc.strerror}") from None
    special = info is not None and not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode))
    end = _open_special(path, info) if info is not None and special else None
    # beside the file it replaces (the same file system), or for a device or a FIFO in a folder of its own
    folder = Path(tempfile.mkdtemp(prefix="educable-")) if special else target.parent
    scratch = folder / f".{target.stem}.{os.getpid()}.tmp{target.suffix}"   # the suffix tells the format
    try:
        write(scratch)
        if end is not None:
            _copy_into(scratch, end)
        elif info is None or stat.S_ISLNK(info.st_mode):
            os.replace(scratch, target)
        else:
            _replace_keeping(scratch, target, info)
    except OSError as exc:
        raise BadInput(f"cannot write {path}: {exc.strerror}") from None
    finally:
        if end is not None:
            os.close(end)
        if scratch.exists():
            scratch.unlink(missing_ok=True)
        if special:
            folder.rmdir()


def _open_special(path: str | os.PathLike, info: os.stat_result) -> int:
    """A descriptor to write into the device or FIFO ``path``, opened before any work (so that a FIFO's
    reader is there to be found, and stays); BadInput for what is not a file to write an output into."""
    if stat.S_ISDIR(info.st_mode):
        raise BadInput(f"cannot write {path}: it is a folder; name a file in it")
    if stat.S_ISSOCK(info.st_mode):
        raise BadInput(f"refused to write to {path}: it is a socket; name a regular file")
    if stat.S_ISBLK(info.st_mode):
        raise BadInput(f"refused to write to {path}: it is a block device (a disk); name a regular file")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOFOLLOW)     # a FIFO with no reader: ENXIO, never a wait
    except OSError as exc:
        if stat.S_ISFIFO(info.st_mode) and exc.errno == errno.ENXIO:
            raise BadInput(f"refused to write to {path}: it is a pipe (FIFO) with no reader; start its reader first") from None
        raise BadInput(f"cannot write {path}: {exc.strerror}") from None
    now = os.fstat(fd)
    if (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
        os.close(fd)
        raise BadInput(f"cannot write {path}: it changed while being opened")
    os.set_blocking(fd, True)
    return fd


def _replace_keeping(scratch: Path, target: Path, info: os.stat_result) -> None:
    """``scratch`` in place of the regular file ``target``, with its owner and mode; written into it
    instead where they cannot be kept or where it has other names."""
    if info.st_nlink == 1:
        try:
            os.chmod(scratch, stat.S_IMODE(info.st_mode))
            if (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
                os.chown(scratch, info.st_uid, info.st_gid)
        except PermissionError:
            pass                                # not ours to give away: written in place below
        else:
            os.replace(scratch, target)
            return
    fd = os.open(target, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW)
    try:
        _copy_into(scratch, fd)
    finally:
        os.close(fd)


def _copy_into(scratch: Path, fd: int) -> None:
    """The bytes of ``scratch`` written into the open descriptor ``fd``."""
    with open(scratch, "rb") as source:
        while chunk := source.read(1 << 20):
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view):]


def write_text_whole(path: str | os.PathLike, text: str, append: bool = False) -> None:
    """``text`` into ``path`` whole or not at all (``append``: after what the file holds)."""
    before = ""
    if append and Path(path).exists():
        before = read_text(path, "file to add to")
    write_whole(path, lambda scratch: scratch.write_text(before + text, encoding="utf-8"))
