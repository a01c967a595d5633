"""A ``mining dedup`` run's sketches, page ids and join keys, on disk as they are made.

A crawl's sketches (512 bytes a page), ids and keys would grow the memory of a run with
its input; here they go to files in a private temporary folder (removed at the end, an
error or an interrupt included) as each batch is sketched: the sketches one after the
other (read back through a memmap, by row), the ids as UTF-8 with their end offsets,
the join keys in bucket files (:class:`~mining.buckets.KeyBuckets`: the band or subset
keys, and each sketch's whole key for finding copies). :mod:`mining.spill` matches them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

import numpy as np

from mining.banding import flatten_keys, whole_keys
from mining.buckets import KeyBuckets

__all__ = ["PageIds", "SketchFiles"]

#: A batch's keys: (pages, keys per page) and which are real (None: all).
KeysOf = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray | None]]


class SketchFiles:
    """The files of one run, used as a context manager (which removes them)."""

    def __init__(self, width: int, dtype: type[np.unsignedinteger], keys_of: KeysOf) -> None:
        self.width, self.dtype, self.keys_of = width, np.dtype(dtype), keys_of
        self.folder = Path(tempfile.mkdtemp(prefix="mining-dedup-"))
        self._owner = os.getpid()  # a forked worker holding a copy leaves the folder be
        self._pages = 0
        self._id_bytes = 0
        self._handles: list[BinaryIO] = []
        try:
            self._sketches, self._ids, self._ends = (self._open(name) for name in (
                "sketches.bin", "ids.bin", "id-ends.bin"))
        except BaseException:
            self.close()
            raise
        self.bands = KeyBuckets(self.folder, "band")
        self.wholes = KeyBuckets(self.folder, "whole")

    def __enter__(self) -> SketchFiles:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def _open(self, name: str) -> BinaryIO:
        handle = (self.folder / name).open("wb")
        self._handles.append(handle)
        return handle

    def close(self) -> None:
        """Remove the folder and everything in it."""
        for handle in self._handles:
            with suppress(OSError):  # a full disk: the flush fails, the file closes all the same
                handle.close()
        if os.getpid() == self._owner:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __len__(self) -> int:
        return self._pages

    def add(self, ids: Sequence[str], sketches: np.ndarray) -> None:
        """Append pages: their ids and sketches, row for row, and their keys."""
        if sketches.shape != (len(ids), self.width) or sketches.dtype != self.dtype:
            raise ValueError(f"{len(ids)} ids need a ({len(ids)}, {self.width}) "
                             f"{self.dtype.name} array of sketches, not {sketches.shape} "
                             f"{sketches.dtype}")
        rows = np.arange(self._pages, self._pages + len(ids))
        encoded = [page_id.encode("utf-8", errors="surrogatepass") for page_id in ids]
        ends = self._id_bytes + np.cumsum([len(e) for e in encoded], dtype=np.int64)
        try:
            self.bands.add(*flatten_keys(*self.keys_of(sketches), rows))
            self.wholes.add(whole_keys(sketches), rows)
            self._sketches.write(np.ascontiguousarray(sketches).tobytes())
            self._ids.write(b"".join(encoded))
            self._ends.write(ends.tobytes())
        except OSError as error:  # a full disk: say where
            raise OSError(error.errno, error.strerror, str(self.folder)) from None
        self._pages += len(ids)
        self._id_bytes = int(ends[-1]) if len(ids) else self._id_bytes

    def sketches(self) -> np.ndarray:
        """The sketches by row, read-only from the file (a fresh memmap: let it go after
        a step, and the pages it read leave the process's memory with it)."""
        self._sketches.flush()
        if not self._pages:
            return np.empty((0, self.width), dtype=self.dtype)
        return np.memmap(self._sketches.name, dtype=self.dtype, mode="r",
                         shape=(self._pages, self.width))

    def read_sketches(self) -> np.ndarray:
        """Every sketch in memory (to save them in an index, which holds them all)."""
        self._sketches.flush()
        return np.fromfile(self._sketches.name, dtype=self.dtype).reshape(-1, self.width)

    @property
    def ids(self) -> PageIds:
        """The page ids by row, read from the files when asked for."""
        self._ids.flush()
        self._ends.flush()
        return PageIds(Path(self._ids.name), Path(self._ends.name), self._pages)


class PageIds:
    """Page ids by row from a file of UTF-8 ids and one of their end offsets (int64)."""

    def __init__(self, ids: Path, ends: Path, pages: int) -> None:
        self._pages = pages
        self._blob = np.memmap(ids, dtype=np.uint8, mode="r") if ids.stat().st_size \
            else np.empty(0, dtype=np.uint8)
        self._ends = np.memmap(ends, dtype=np.int64, mode="r", shape=(pages,)) if pages \
            else np.empty(0, dtype=np.int64)

    def __len__(self) -> int:
        return self._pages

    def __getitem__(self, row: int) -> str:
        if not 0 <= row < self._pages:
            raise IndexError(f"page row {row} out of 0..{self._pages - 1}")
        start = int(self._ends[row - 1]) if row else 0
        return self._blob[start:int(self._ends[row])].tobytes().decode(
            "utf-8", errors="surrogatepass")

    def tolist(self) -> list[str]:
        """Every id (to save them in an index, which holds them all)."""
        return [self[row] for row in range(self._pages)]
