"""Phrase frequency tables: document frequency over a collection, query frequency over
a search log. Sorted 64-bit phrase hashes beside their counts, looked up by binary
search (``np.searchsorted``): 12 bytes a phrase, no strings, no third-party text.

A file (``.npz`` with a JSON header, :mod:`denoise.arrayfile`) holds named tables:
a DF file ``documents`` (phrase -> pages containing it, total = pages); a query log
file ``query`` (the phrase is a whole query, counted with repeats) and
``query_part`` (queries that contain the phrase, total = queries).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Self

import numpy as np

from denoise.arrayfile import ModelError, read_arrays, write_arrays
from denoise.arrays import SortedKeys, sorted_positions, sorted_unique
from kwx.text import hash_check

FORMAT_KIND = "webdenoise-phrase-tables"
FORMAT_VERSION = 1


@dataclass(frozen=True, slots=True)
class PhraseTable:
    """Counts of phrases (by hash) and the total they are out of."""

    hashes: np.ndarray  # uint64, sorted, distinct
    counts: np.ndarray  # int64
    total: int  # documents or queries counted

    def lookup(self, hashes: np.ndarray) -> np.ndarray:
        """The count of each phrase in ``hashes`` (0 when absent)."""
        if not len(self.hashes):
            return np.zeros(len(hashes), dtype=np.int64)
        at = sorted_positions(self.hashes, hashes)
        return np.where(at >= 0, self.counts[at], 0)

    def __len__(self) -> int:
        return len(self.hashes)


class JointTable:
    """Several tables over the union of their phrases, looked up at once: the features
    read a page's candidates in the DF and both query-log tables, and one search over
    the union costs a third of three. The union is found by a radix directory
    (:class:`~denoise.arrays.SortedKeys`), its counts kept one row a phrase with a zero
    row last, for the phrases it lacks."""

    def __init__(self, tables: Iterable[PhraseTable]) -> None:
        tables = list(tables)
        hashes = sorted_unique(np.concatenate([t.hashes for t in tables])) if tables \
            else np.zeros(0, dtype=np.uint64)
        self.keys = SortedKeys(hashes)
        self.counts = np.zeros((len(hashes) + 1, len(tables)), dtype=np.int64)
        for column, table in enumerate(tables):
            self.counts[:-1, column] = table.lookup(hashes)

    def lookup(self, hashes: np.ndarray) -> np.ndarray:
        """The counts of ``hashes`` in every table: (len(hashes), tables), 0 when absent."""
        return self.counts[self.keys.positions(hashes)]  # -1, absent: the zero row


class PhraseCounter:
    """Counts phrase hashes batch by batch, merging sorted runs every ``flush_every``
    hashes so memory follows the number of distinct phrases, not of occurrences."""

    def __init__(self, flush_every: int = 2_000_000) -> None:
        self.flush_every = flush_every
        self.total = 0
        self._pending: list[np.ndarray] = []
        self._pending_size = 0
        self._hashes = np.zeros(0, dtype=np.uint64)
        self._counts = np.zeros(0, dtype=np.int64)

    def add(self, hashes: np.ndarray) -> None:
        """Count each of ``hashes`` once, as one more unit of the total (a document)."""
        self.total += 1
        self._push(hashes)

    def add_many(self, hashes: np.ndarray) -> None:
        """Count each of ``hashes`` once, each its own unit of the total (whole queries)."""
        self.total += len(hashes)
        self._push(hashes)

    def _push(self, hashes: np.ndarray) -> None:
        self._pending.append(np.asarray(hashes, dtype=np.uint64))
        self._pending_size += len(hashes)
        if self._pending_size >= self.flush_every:
            self._flush()

    def _flush(self) -> None:
        if not self._pending:
            return
        merged = np.concatenate([self._hashes, *self._pending])
        weights = np.concatenate([self._counts, np.ones(self._pending_size, dtype=np.int64)])
        self._hashes, inverse = np.unique(merged, return_inverse=True)
        self._counts = np.bincount(inverse, weights=weights).astype(np.int64)
        self._pending, self._pending_size = [], 0

    def table(self, min_count: int = 1) -> PhraseTable:
        """The counts so far, phrases seen fewer than ``min_count`` times left out."""
        self._flush()
        keep = self._counts >= min_count
        return PhraseTable(self._hashes[keep], self._counts[keep], self.total)


def save_tables(path: str | os.PathLike[str], tables: dict[str, PhraseTable],
                info: dict[str, object] | None = None) -> None:
    """Write named tables to ``path`` (atomically), with ``info`` in the header."""
    arrays: dict[str, np.ndarray] = {}
    for name, table in tables.items():
        arrays[f"{name}_hashes"] = table.hashes
        arrays[f"{name}_counts"] = table.counts.astype(np.uint32 if table.counts.max(
            initial=0) < 2**32 else np.int64)
    header = {"kind": FORMAT_KIND, "format_version": FORMAT_VERSION, "hash_check": hash_check(),
              "tables": {name: {"total": t.total, "phrases": len(t)} for name, t in tables.items()},
              "info": info or {}}
    write_arrays(path, header, arrays)


@dataclass(frozen=True, slots=True)
class TableFile:
    """The tables of one file and what its header says about them."""

    tables: dict[str, PhraseTable]
    info: dict[str, object]

    @classmethod
    def load(cls, path: str | os.PathLike[str], required: Iterable[str] = ()) -> Self:
        """Read a file written by :func:`save_tables`; :class:`ModelError` names the file
        and the problem (not a table file, built by another tokenizer, corrupt)."""
        source = str(path)
        header, arrays = read_arrays(path, FORMAT_KIND, FORMAT_VERSION, what="phrase table",
                                     rebuild="rebuild it with 'kwx df build' or "
                                     "'kwx querylog build'")
        if header.get("hash_check") != hash_check():
            raise ModelError(source, "built with another tokenizer or phrase hash: rebuild it")
        tables = {}
        try:
            for name, meta in dict(header["tables"]).items():
                hashes = arrays[f"{name}_hashes"]
                counts = arrays[f"{name}_counts"].astype(np.int64)
                if hashes.dtype != np.uint64 or hashes.ndim != 1 or counts.shape != hashes.shape:
                    raise ValueError(f"table {name!r} has malformed arrays")
                if len(hashes) > 1 and not (hashes[1:] > hashes[:-1]).all():
                    raise ValueError(f"table {name!r} is not sorted")
                total = int(meta["total"])
                if (counts < 0).any() or total < 0:
                    raise ValueError(f"table {name!r} has negative counts")
                tables[name] = PhraseTable(hashes, counts, total)
        except (KeyError, TypeError, ValueError) as error:
            raise ModelError(source, f"corrupt phrase table file ({error})") from None
        missing = [name for name in required if name not in tables]
        if missing:
            raise ModelError(source, f"has no {', '.join(missing)} table (found: "
                             f"{', '.join(tables) or 'none'})")
        info = header.get("info")
        return cls(tables, info if isinstance(info, dict) else {})
