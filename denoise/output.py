"""Output files that are never half-written: write to a temporary file, then rename."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, TextIO


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
    with _atomic(Path(path), "w") as stream:
        yield stream


@contextmanager
def atomic_binary(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """:func:`atomic_text` for bytes (no standard output)."""
    with _atomic(Path(path), "wb") as stream:
        yield stream


@contextmanager
def _atomic(target: Path, mode: str) -> Iterator:
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                         dir=target.parent)
    try:
        encoding = None if "b" in mode else "utf-8"
        with os.fdopen(handle, mode, encoding=encoding) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        # mkstemp makes the file private; give it the mode a plain open() would
        umask = os.umask(0)
        os.umask(umask)
        Path(temporary).chmod(0o666 & ~umask)
        Path(temporary).replace(target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
