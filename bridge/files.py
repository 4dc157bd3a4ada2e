"""The one way educable reads a file a user names: a regular file only, at most a size, as UTF-8.

A FIFO would block for ever, /dev/zero or /dev/urandom would fill memory, and a file of gigabytes
is not a rule file or a tuple list: each is refused in one line before anything is read (and a
file that grows while it is read is cut at the limit and refused).
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from bridge.errors import BadInput

MAX_INPUT_BYTES = 16 * 1024 * 1024      # a rule file of 100,000 rules is about 5 MB


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
