"""numpy steps the toolkit takes where numpy's own way is slow here."""

from __future__ import annotations

import numpy as np

try:
    from denoise import _compiled
except ImportError:  # the compiled extension is optional
    _compiled = None

__all__ = ["SortedKeys", "ragged_arange", "sorted_positions", "sorted_unique",
           "unique_groups"]


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values of an integer array, ascending: ``np.unique(values)``, by one
    sort.

    Since numpy 2.3, ``np.unique`` of integers builds a hash table and then sorts its
    result. On distinct 64-bit keys one sort does less, the more so the more keys: a
    page's few hundred digests, and the 775,088 phrase hashes of kwx's three tables,
    joined when a keyword extractor loads.
    """
    ordered = np.sort(values, axis=None)
    if len(ordered) < 2:
        return ordered
    new = np.empty(len(ordered), dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    return ordered[new]


def sorted_positions(keys: np.ndarray, needles: np.ndarray) -> np.ndarray:
    """Each needle's index in the sorted distinct ``keys``, -1 when absent (int64), by
    binary search."""
    if not len(keys):
        return np.full(len(needles), -1, dtype=np.int64)
    where = np.minimum(np.searchsorted(keys, needles), len(keys) - 1)
    return np.where(keys[where] == needles, where, -1)


def unique_groups(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                np.ndarray]:
    """``np.unique(values, return_index=True, return_inverse=True, return_counts=True)``
    of a 1-d integer array: for 64-bit unsigned keys, compiled where built (grouped by a
    hash table, then only the distinct values sorted:
    :func:`denoise._compiled.unique_groups`); else by one unstable sort.

    ``np.unique`` sorts stably to find each value's first position; the minimum of each
    group's positions gives the same after a cheaper, unstable sort.
    """
    values = np.asarray(values)
    if not len(values):
        empty = np.zeros(0, dtype=np.int64)
        return values.copy(), empty, empty.copy(), empty.copy()
    if _compiled is not None and values.dtype == np.uint64 and values.ndim == 1:
        return _compiled.unique_groups(np.ascontiguousarray(values))
    return _unique_groups_numpy(values)


def _unique_groups_numpy(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                      np.ndarray]:
    """:func:`unique_groups` by numpy steps (other dtypes; the tests' reference)."""
    order = values.argsort()
    ordered = values[order]
    new = np.empty(len(ordered), dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    inverse = np.empty(len(values), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    counts = np.empty(len(starts), dtype=np.int64)
    np.subtract(starts[1:], starts[:-1], out=counts[:-1])
    counts[-1] = len(values) - starts[-1]
    return ordered[starts], np.minimum.reduceat(order, starts), inverse, counts


#: Top bits a :class:`SortedKeys` directory splits on at most (32 MB of directory).
_MAX_RADIX_BITS = 22
#: Presence bits a :class:`SortedKeys` keeps per directory bucket, as a power of two
#: (8 bits: with about a key a bucket, ~1 in 8 is set).
_PRESENCE_PER_BUCKET_BITS = 3


class SortedKeys:
    """Sorted distinct 64-bit hashes, found by a radix directory instead of a binary
    search.

    The directory holds, for each value of a key's top ``bits`` bits, where such keys
    start; with about one key a bucket, finding a key reads the directory and one or two
    keys. For well-mixed hashes (phrase hashes) that is two cache misses where
    ``np.searchsorted`` over a table of 700,000 takes ~20 steps, most of them misses.

    Most needles are absent (a page's phrases of two words and more are rarely in a
    table), so a bit per value of the top ``bits + 3`` bits says whether any key has
    them: 1 MB for kwx's ~690,000 phrases, which a cache keeps between pages where it
    cannot keep the directory and keys (14 MB), and about 7 in 8 absent needles are
    turned away before either is read.
    """

    def __init__(self, keys: np.ndarray) -> None:
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        if len(keys) > 1 and not (keys[1:] > keys[:-1]).all():
            raise ValueError("SortedKeys needs distinct keys in ascending order")
        self.keys = keys
        self.bits = int(min(max(len(keys) - 1, 1).bit_length(), _MAX_RADIX_BITS))
        self.shift = 64 - self.bits
        buckets = np.bincount((keys >> np.uint64(self.shift)).astype(np.intp),
                              minlength=2**self.bits)
        self.directory = np.zeros(2**self.bits + 1, dtype=np.int64)
        np.cumsum(buckets, out=self.directory[1:])
        # (at most 58: one 64-bit word of bits at least)
        self.present_shift = min(self.shift - _PRESENCE_PER_BUCKET_BITS, 58)
        self.present = _presence_bits(keys, self.present_shift)

    def positions(self, needles: np.ndarray) -> np.ndarray:
        """Each needle's index in ``keys``, -1 when absent (int64)."""
        needles = np.ascontiguousarray(needles, dtype=np.uint64)
        if _compiled is not None:
            return _compiled.radix_positions(self.keys, self.directory, self.shift,
                                             self.present, self.present_shift, needles)
        return sorted_positions(self.keys, needles)


def _presence_bits(keys: np.ndarray, shift: int) -> np.ndarray:
    """Bit ``p`` (of 64-bit words) set when some key's ``keys >> shift`` is ``p``."""
    present = np.zeros(1 << (58 - shift), dtype=np.uint64)
    if len(keys):
        tops = keys >> np.uint64(shift)
        words, first = np.unique(tops >> np.uint64(6), return_index=True)
        present[words.astype(np.intp)] = np.bitwise_or.reduceat(
            np.left_shift(np.uint64(1), tops & np.uint64(63)), first)
    return present


def ragged_arange(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``starts[0], starts[0] + 1, ...`` (``counts[0]`` values), then the same for each
    next start, as one int64 array: the positions of many slices at once, without a
    Python step per slice (one cumulative sum of steps)."""
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    if not total:
        return np.empty(0, dtype=np.int64)
    nonempty = counts > 0
    first = (np.cumsum(counts) - counts)[nonempty]
    head = np.asarray(starts, dtype=np.int64)[nonempty]
    steps = np.ones(total, dtype=np.int64)
    steps[first] = head
    steps[first[1:]] -= head[:-1] + counts[nonempty][:-1] - 1
    return np.cumsum(steps)
