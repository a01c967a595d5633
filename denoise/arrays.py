"""numpy steps the toolkit takes where numpy's own way is slow here."""

from __future__ import annotations

import numpy as np

__all__ = ["sorted_unique"]


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values of an integer array, ascending: ``np.unique(values)``, by one
    sort.

    Since numpy 2.3, ``np.unique`` of integers builds a hash table and then sorts its
    result: on 64-bit keys that is 4x slower than one sort for a page's hundreds of
    digests, and over 100x for the millions of phrases of the keyword tables (4 s
    against 0.03 s for 4.5 million).
    """
    ordered = np.sort(values, axis=None)
    if len(ordered) < 2:
        return ordered
    new = np.empty(len(ordered), dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    return ordered[new]
