"""Output files that are never half-written: write to a temporary file, then rename.

Only a regular file (or a new one) can be replaced whole. What a user names may be
something else, and then it is written to as it is:

- ``-``: standard output;
- a FIFO, a character device (``/dev/null``, a terminal) or a socket: opened and written
  directly, since renaming a file over it would replace the device or the pipe for every
  other user of that name (a reader of the FIFO would get nothing);
- a symbolic link: followed, so the file it points to is replaced and the link stays.

A missing parent folder is an error naming it, never created: a typo in a path must not
scatter folders over the disk.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TextIO

__all__ = ["OutputTarget", "atomic_binary", "atomic_text", "output_target"]


@dataclass(frozen=True)
class OutputTarget:
    """Where output named ``path`` really goes: ``path`` with symbolic links followed,
    and whether it is a stream (FIFO, device, socket) to write directly."""

    path: Path
    stream: bool


def output_target(path: str | os.PathLike[str]) -> OutputTarget:
    """What writing to ``path`` means (see the module's docstring).

    Raises ``FileNotFoundError`` naming the missing folder, ``IsADirectoryError`` for a
    folder.
    """
    try:  # what the name leads to, links followed: /dev/stdout's is a pipe, not a path
        mode = Path(path).stat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        return OutputTarget(Path(path), True)  # opened by its name, as the shell's >
    target = Path(os.path.realpath(path))  # links followed, even a dangling one's target
    if mode is not None and stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "a folder, not a file", str(path))
    if mode is None and not target.parent.is_dir():
        raise FileNotFoundError(errno.ENOENT, f"no folder {target.parent}", str(path))
    return OutputTarget(target, False)


@contextmanager
def atomic_text(path: str | Path) -> Iterator[TextIO]:
    """Open ``path`` for text writing; it appears only when the block ends without error.

    ``-`` writes to standard output. An earlier file at ``path`` stays untouched
    until the new one is complete.
    """
    if str(path) == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    with _atomic(path, "w") as stream:
        yield stream


@contextmanager
def atomic_binary(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """:func:`atomic_text` for bytes (no standard output)."""
    with _atomic(path, "wb") as stream:
        yield stream


@contextmanager
def _atomic(path: str | os.PathLike[str], mode: str) -> Iterator:
    target = output_target(path)
    encoding = None if "b" in mode else "utf-8"
    if target.stream:
        with target.path.open(mode, encoding=encoding) as stream:
            yield stream
        return
    handle, temporary = _new_file(target.path)
    try:
        with os.fdopen(handle, mode, encoding=encoding) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        temporary.replace(target.path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _new_file(target: Path) -> tuple[int, Path]:
    """A new, empty file beside ``target`` and its descriptor. Made with mode 0o666 less
    the umask, as a plain ``open()`` makes a file (``tempfile.mkstemp`` makes it private,
    and reading the umask means setting it, for every thread of the process)."""
    while True:
        temporary = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), temporary
        except FileExistsError:
            continue
