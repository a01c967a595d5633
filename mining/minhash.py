"""Sketches of shingle sets: datasketch MinHash signatures, and the paper's 8 smallest hashes.

**MinHash.** :class:`MinHasher` computes exactly what datasketch's ``MinHash`` (scheme
``affine32``, its default since 2.0) holds after ``update`` with every shingle, given
a ``hashfunc`` that returns our shingle hash: the input hash is the low 32 bits of
the shingle hash, pre-mixed with MurmurHash3's 32-bit finalizer, and permutation i
maps it to ``a_i * h + b_i mod 2**32`` with datasketch's own ``a`` and ``b`` for the
seed (taken from a ``MinHash`` object, not re-derived). The difference is that all
shingles of many pages go through numpy at once: one (permutations x shingles)
product, then a minimum per page with ``np.minimum.reduceat``. Signatures are plain
uint32 rows; :meth:`MinHasher.minhash` wraps one in a genuine ``LeanMinHash``.

**The paper's rule.** Chakrabarti et al. keep "the 8 minimum hashes" of a page and
call two pages duplicates when "at least 4 matching hashes out of the 8". They do
not say whether the 8 come from 8 hash functions or from one; we read it as Broder's
bottom-k sketch (one hash function, its 8 smallest distinct values), the usual
meaning of "the N smallest hash values are stored" in their description, and
:func:`bottom_k` keeps those, padded with :data:`EMPTY` when a page has fewer.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from datasketch import LeanMinHash, MinHash

__all__ = [
    "DEFAULT_NUM_PERM",
    "DEFAULT_SEED",
    "EMPTY",
    "SCHEME",
    "MinHasher",
    "bottom_k",
    "fmix32",
]

DEFAULT_NUM_PERM = 128
DEFAULT_SEED = 1
#: datasketch's permutation scheme we reproduce (uint32 hash values).
SCHEME = "affine32"
#: Padding of a bottom-k sketch of a page with fewer shingles than k.
EMPTY = np.uint64(np.iinfo(np.uint64).max)

_FMIX32 = (16, 0x85EBCA6B, 13, 0xC2B2AE35, 16)  # MurmurHash3 fmix32, as datasketch
# Cells of the (permutations x shingles) product per step: 4 MB of uint32, the
# fastest on a 2-core test machine (from 1 MB to 8 MB within 20%).
_CHUNK_CELLS = 1 << 20


def fmix32(values: np.ndarray) -> np.ndarray:
    """MurmurHash3's 32-bit finalizer on a uint32 array (datasketch's input pre-mix)."""
    s1, m1, s2, m2, s3 = (np.uint32(c) for c in _FMIX32)
    values = values ^ (values >> s1)
    values = values * m1
    values = values ^ (values >> s2)
    values = values * m2
    return values ^ (values >> s3)


class MinHasher:
    """MinHash signatures of shingle-hash arrays, equal to datasketch's ``MinHash``.

    ``num_perm`` and ``seed`` mean what they mean to datasketch; the permutations are
    datasketch's for that seed.
    """

    def __init__(self, num_perm: int = DEFAULT_NUM_PERM, seed: int = DEFAULT_SEED) -> None:
        if num_perm < 1:
            raise ValueError(f"num_perm must be positive, not {num_perm}")
        self.num_perm = num_perm
        self.seed = seed
        a, b = MinHash(num_perm=num_perm, seed=seed, scheme=SCHEME).permutations
        self._a = np.ascontiguousarray(a, dtype=np.uint32)
        self._b = np.ascontiguousarray(b, dtype=np.uint32)

    def signature(self, shingles: np.ndarray) -> np.ndarray:
        """The signature (uint32, ``num_perm``) of one page's shingle hashes."""
        return self.signatures([shingles])[0]

    def signatures(self, shingle_sets: Sequence[np.ndarray]) -> np.ndarray:
        """Signatures of many pages at once: a (pages, num_perm) uint32 array.

        Every set must have at least one shingle: the MinHash of an empty set is all
        maxima, which would make any two empty pages "identical".
        """
        sizes = np.fromiter((len(s) for s in shingle_sets), dtype=np.intp,
                            count=len(shingle_sets))
        if sizes.size and sizes.min() == 0:
            raise ValueError(f"shingle set {int(np.argmin(sizes))} is empty: an empty set "
                             "has no MinHash signature")
        # permutations x shingles, so each page's minimum runs along contiguous memory
        # (shingles x permutations made it run across rows, several times slower)
        out = np.full((self.num_perm, sizes.size), np.iinfo(np.uint32).max, dtype=np.uint32)
        if not sizes.size:
            return out.T.copy()
        hashes = fmix32(np.concatenate(shingle_sets).astype(np.uint32))
        starts = np.zeros(sizes.size, dtype=np.intp)
        np.cumsum(sizes[:-1], out=starts[1:])
        step = max(1, _CHUNK_CELLS // self.num_perm)
        a, b = self._a[:, None], self._b[:, None]
        for low in range(0, hashes.size, step):
            high = min(low + step, hashes.size)
            permuted = a * hashes[None, low:high]
            permuted += b
            # the pages this chunk touches, and where each starts inside it
            first = int(np.searchsorted(starts, low, side="right")) - 1
            last = int(np.searchsorted(starts, high, side="left"))
            cuts = np.maximum(starts[first:last], low) - low
            minima = np.minimum.reduceat(permuted, cuts, axis=1)
            np.minimum(out[:, first:last], minima, out=out[:, first:last])
        return out.T.copy()

    def minhash(self, signature: np.ndarray) -> LeanMinHash:
        """A signature as a datasketch ``LeanMinHash`` (for ``jaccard``, ``MinHashLSH``...)."""
        return LeanMinHash(seed=self.seed, hashvalues=signature, scheme=SCHEME)


def bottom_k(shingle_sets: Sequence[np.ndarray], k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` smallest distinct shingle hashes of each set, ascending: a (sets, k)
    uint64 array padded with :data:`EMPTY`, and how many each set has (<= k)."""
    sizes = np.fromiter((len(s) for s in shingle_sets), dtype=np.intp, count=len(shingle_sets))
    out = np.full((sizes.size, k), EMPTY, dtype=np.uint64)
    if not sizes.size or not sizes.sum():
        return out, np.zeros(sizes.size, dtype=np.intp)
    values = np.concatenate(shingle_sets).astype(np.uint64)
    owners = np.repeat(np.arange(sizes.size), sizes)
    order = np.lexsort((values, owners))
    values, owners = values[order], owners[order]
    distinct = np.ones(values.size, dtype=bool)
    distinct[1:] = (values[1:] != values[:-1]) | (owners[1:] != owners[:-1])
    values, owners = values[distinct], owners[distinct]
    # rank of each value within its set: position minus where the set's run starts
    run_starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
    counts = np.diff(np.r_[run_starts, owners.size])
    rank = np.arange(owners.size) - np.repeat(run_starts, counts)
    keep = rank < k
    out[owners[keep], rank[keep]] = values[keep]
    have = np.zeros(sizes.size, dtype=np.intp)
    have[owners[run_starts]] = np.minimum(counts, k)
    return out, have
