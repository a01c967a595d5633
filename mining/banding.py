"""Candidate pairs by shared keys: LSH band keys, bottom-k subset keys, and a sort-based join.

Two sketches are candidates when they share a key. For MinHash LSH a key is one band
of a signature (``rows`` consecutive values; datasketch's ``MinHashLSH`` stores the
band's bytes, we store a 64-bit hash of it with the band's number mixed in, so keys
of different bands never meet). For the paper's rule ("at least 4 of the 8 smallest
hashes match") a key is a 4-subset of the 8: two pages share 4 of their 8 exactly
when they share some 4-subset, so the rule becomes a key join too (70 keys a page).

The join sorts the keys once and reads equal runs (:func:`self_join`), or looks keys
up in a sorted table with binary search (:class:`KeyTable`): no Python step per page.
Both also take flat (key, row) entries (:func:`join_rows`, :meth:`KeyTable.join_rows`),
so a crawl's keys are joined one bucket file at a time (:mod:`mining.spill`) by the
same code. A 64-bit key collision only adds a candidate; candidates are verified on
the sketches.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from denoise.arrays import ragged_arange, sorted_unique
from mining.shingles import fmix64

__all__ = ["KeyTable", "band_keys", "equal_runs", "flatten_keys", "join_rows", "run_pairs",
           "self_join", "subset_keys", "whole_keys"]

_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_SALT = np.uint64(0xD6E8FEB86659FD93)


def _combine(columns: np.ndarray, salt: np.ndarray | np.uint64) -> np.ndarray:
    """A 64-bit key from the values along the last axis (Horner modulo 2**64, mixed)."""
    key = np.full(columns.shape[:-1], _SALT, dtype=np.uint64) ^ salt
    for position in range(columns.shape[-1]):
        key = fmix64(key * _MULTIPLIER + columns[..., position].astype(np.uint64))
    return key


def band_keys(signatures: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """The LSH band keys of MinHash signatures: (pages, bands) uint64.

    Band i covers values ``i * rows`` to ``(i + 1) * rows`` (as ``MinHashLSH``'s
    ``hashranges``); values past ``bands * rows`` are in no band.
    """
    if bands * rows > signatures.shape[1]:
        raise ValueError(f"{bands} bands of {rows} rows need {bands * rows} values, the "
                         f"signatures have {signatures.shape[1]}")
    shaped = signatures[:, :bands * rows].reshape(len(signatures), bands, rows)
    return _combine(shaped, np.arange(bands, dtype=np.uint64))


def subset_keys(bottom: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Keys of every ``size``-subset of each bottom-k sketch (ascending, padded with the
    maximum): (pages, C(k, size)) uint64, and which are real (the subset lies within
    the page's own values)."""
    k = bottom.shape[1]
    subsets = np.array(list(combinations(range(k), size)), dtype=np.intp).reshape(-1, size)
    counts = (bottom != np.iinfo(np.uint64).max).sum(axis=1)
    valid = subsets.max(axis=1)[None, :] < counts[:, None]
    return _combine(bottom[:, subsets], np.uint64(size)), valid


def whole_keys(sketches: np.ndarray) -> np.ndarray:
    """One key of each whole sketch: equal sketches, equal keys."""
    return _combine(sketches, np.uint64(sketches.shape[1]) << np.uint64(32))


def flatten_keys(keys: np.ndarray, valid: np.ndarray | None = None,
                 rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The real keys of ``keys`` (pages, keys per page), flat, each beside its page's row
    (``rows[i]`` for page i, or i): the (key, row) form a join reads, whole or a bucket
    of it at a time."""
    numbers = np.arange(len(keys)) if rows is None else np.asarray(rows, dtype=np.int64)
    at = np.broadcast_to(numbers[:, None], keys.shape)
    if valid is None:
        return keys.ravel(), at.ravel()
    return keys[valid], at[valid]


def run_pairs(starts: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of positions ``p < q`` inside the same run (runs of ``sizes[i]``
    positions from ``starts[i]``, not overlapping): the all-pairs of each run, flat."""
    sizes = np.asarray(sizes, dtype=np.intp)
    positions = ragged_arange(np.asarray(starts, dtype=np.intp), sizes)
    run_ends = np.repeat(np.asarray(starts, dtype=np.intp) + sizes, sizes)
    after = run_ends - positions - 1
    return np.repeat(positions, after), ragged_arange(positions + 1, after)


def _unique_pairs(left: np.ndarray, right: np.ndarray, width: int) -> tuple[np.ndarray,
                                                                            np.ndarray]:
    codes = sorted_unique(left.astype(np.int64) * width + right)
    return codes // width, codes % width


def self_join(keys: np.ndarray, valid: np.ndarray | None = None) -> tuple[np.ndarray,
                                                                          np.ndarray]:
    """Pairs ``i < j`` of rows of ``keys`` (pages, keys per page) that share a key,
    once each, sorted; ``valid`` masks out keys that stand for nothing."""
    return join_rows(*flatten_keys(keys, valid))


def join_rows(flat: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of rows ``a < b`` that share a key, once each, sorted, from flat (key, row)
    entries (:func:`flatten_keys`): all of a batch's, or one bucket of them."""
    if not flat.size:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    order = np.argsort(flat, kind="stable")
    flat, rows = flat[order], rows[order]
    starts = np.flatnonzero(np.r_[True, flat[1:] != flat[:-1]])
    sizes = np.diff(np.r_[starts, flat.size])
    shared = sizes > 1  # runs of equal keys: every position pairs with the later ones
    left, right = run_pairs(starts[shared], sizes[shared])
    a, b = rows[left], rows[right]
    a, b = np.minimum(a, b), np.maximum(a, b)
    distinct = a != b
    return _unique_pairs(a[distinct], b[distinct], int(rows.max()) + 1)


def equal_runs(keys: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows sharing a key with an earlier row (earlier in ``rows``' order): each such
    row, and the first row of its key."""
    if not keys.size:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    keys, rows = keys[order], np.asarray(rows, dtype=np.int64)[order]
    starts = np.r_[True, keys[1:] != keys[:-1]]
    run = np.cumsum(starts) - 1
    later = ~starts
    return rows[later], rows[starts][run[later]]


class KeyTable:
    """The keys of a set of sketches, sorted once, for joins against new batches."""

    def __init__(self, keys: np.ndarray, valid: np.ndarray | None = None) -> None:
        flat, rows = flatten_keys(keys, valid)
        order = np.argsort(flat, kind="stable")
        self.keys = flat[order]
        # row numbers in 4 bytes while they fit: a third less memory per band entry
        self.rows = rows[order].astype(np.int32 if len(keys) < 2**31 else np.int64)
        self.pages = len(keys)

    def join(self, keys: np.ndarray, valid: np.ndarray | None = None) -> tuple[np.ndarray,
                                                                             np.ndarray]:
        """Pairs (row of ``keys``, row of the table) that share a key, once each, sorted."""
        return self.join_rows(*flatten_keys(keys, valid))

    def join_rows(self, flat: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`join` of flat (key, row) entries (:func:`flatten_keys`), whole or a
        bucket of them."""
        low = np.searchsorted(self.keys, flat, side="left")
        high = np.searchsorted(self.keys, flat, side="right")
        counts = high - low
        left = np.repeat(rows, counts)
        right = self.rows[ragged_arange(low, counts)]
        return _unique_pairs(left, right, max(self.pages, 1))

    @property
    def nbytes(self) -> int:
        """Memory held by the table."""
        return int(self.keys.nbytes + self.rows.nbytes)
