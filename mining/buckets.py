"""(key, row) entries partitioned by key into bucket files, so a join holds one bucket.

Two rows can only share a key inside one bucket (a key's top bits pick its bucket), so
joining each bucket alone finds every pair a join of all the entries would find, with
the memory of one bucket. Entries are buffered and written :data:`FLUSH_ENTRIES` at a
time (a few writes per thousand pages, not one per page); rows arrive in ascending
order and stay so inside each bucket, which the joins' stable sorts rely on.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

__all__ = ["BUCKET_BITS", "ENTRY", "FLUSH_ENTRIES", "KeyBuckets"]

#: 2**8 = 256 buckets: 10 million pages' LSH keys (9 a page) make ~5 MB buckets.
BUCKET_BITS = 8
#: Entries held before they are written to their buckets (16 bytes each).
FLUSH_ENTRIES = 1 << 16
#: One entry on disk: a 64-bit key and the row (page number) it belongs to.
ENTRY = np.dtype([("key", "<u8"), ("row", "<i8")])


class KeyBuckets:
    """Bucket files ``NAME-NNN.bin`` in ``folder``: :meth:`add` entries as pages come,
    then read each bucket back with :meth:`buckets`."""

    def __init__(self, folder: Path, name: str, bits: int = BUCKET_BITS) -> None:
        self.folder, self.name, self.bits = folder, name, bits
        self._keys: list[np.ndarray] = []
        self._rows: list[np.ndarray] = []
        self._held = 0

    def add(self, keys: np.ndarray, rows: np.ndarray) -> None:
        """Add flat entries (uint64 keys, row numbers), rows not below earlier ones."""
        self._keys.append(np.asarray(keys, dtype=np.uint64))
        self._rows.append(np.asarray(rows, dtype=np.int64))
        self._held += len(keys)
        if self._held >= FLUSH_ENTRIES:
            self.flush()

    def flush(self) -> None:
        """Append the held entries to their bucket files."""
        if not self._held:
            return
        keys, rows = np.concatenate(self._keys), np.concatenate(self._rows)
        self._keys.clear()
        self._rows.clear()
        self._held = 0
        bucket = (keys >> np.uint64(64 - self.bits)).astype(np.intp)
        order = np.argsort(bucket, kind="stable")  # rows stay ascending in each bucket
        entries = np.empty(len(keys), dtype=ENTRY)
        entries["key"], entries["row"] = keys[order], rows[order]
        ends = np.cumsum(np.bincount(bucket, minlength=1 << self.bits))
        for number in np.flatnonzero(np.diff(np.r_[0, ends])).tolist():
            with self._path(number).open("ab") as handle:
                handle.write(entries[ends[number - 1] if number else 0:ends[number]].tobytes())

    def buckets(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Each non-empty bucket's (keys, rows), one bucket in memory at a time."""
        self.flush()
        for number in range(1 << self.bits):
            path = self._path(number)
            if path.exists():
                entries = np.fromfile(path, dtype=ENTRY)
                yield entries["key"].copy(), entries["row"].copy()

    def _path(self, number: int) -> Path:
        return self.folder / f"{self.name}-{number:03d}.bin"
