"""Digests of many substrings of one page text at once, vectorised with numpy.

A block's text is a substring of the page text, and the fingerprint methods need
a digest of every block's text: nested blocks make that quadratic if each text is
hashed on its own. Instead the page's UTF-8 bytes get one prefix sum of a
polynomial hash (mod 2^64, multiplier ``Q``), from which any substring's hash is
two lookups and a multiply; the length and a namespace are mixed in and the result
goes through the SplitMix64 finalizer. Equal texts get equal digests wherever they
sit. The hash is not cryptographic: it separates natural texts (collisions about
2^-64), and crafted inputs (Thue-Morse strings) could collide.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

Q = 0x9E3779B97F4A7C15
_MASK = (1 << 64) - 1
_Q_INV = pow(Q, -1, 1 << 64)


@lru_cache(maxsize=40)
def _powers(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Q**k and Q**-k for k < size (uint64, wrapping), for a power-of-two size."""
    forward = np.empty(size, dtype=np.uint64)
    backward = np.empty(size, dtype=np.uint64)
    forward[0] = backward[0] = 1
    if size > 1:
        forward[1:] = np.cumprod(np.full(size - 1, Q, dtype=np.uint64))
        backward[1:] = np.cumprod(np.full(size - 1, _Q_INV, dtype=np.uint64))
    return forward, backward


def _mix(values: np.ndarray) -> np.ndarray:
    values = values ^ (values >> np.uint64(30))
    values = values * np.uint64(0xBF58476D1CE4E5B9)
    values = values ^ (values >> np.uint64(27))
    values = values * np.uint64(0x94D049BB133111EB)
    return values ^ (values >> np.uint64(31))


def index_text(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The arrays behind :class:`PageText`: hash prefix, space prefix, char-to-byte map.

    ``prefix[k]`` is the sum of ``byte[i] * Q**-i`` for ``i < k`` (mod 2**64),
    ``spaces[k]`` the spaces among the first ``k`` bytes, and ``byte_of[c]`` the
    byte offset of character ``c`` (None when the text is ASCII). The compiled walk
    computes the same arrays in its own loop.
    """
    data = np.frombuffer(text.encode("utf-8", "replace"), dtype=np.uint8)
    size = len(data)
    byte_of = None
    if size != len(text):
        byte_of = np.append(np.flatnonzero((data & 0xC0) != 0x80), size)
    _, backward = _powers(1 << max(size, 1).bit_length())
    prefix = np.zeros(size + 1, dtype=np.uint64)
    np.cumsum(data.astype(np.uint64) * backward[:size], out=prefix[1:])
    spaces = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(data == 32, out=spaces[1:])
    return prefix, spaces, byte_of


class PageText:
    """One page text, indexed for substring digests and word counts by character offsets."""

    def __init__(self, text: str,
                 arrays: tuple[np.ndarray, np.ndarray, np.ndarray | None] | None = None) -> None:
        self._prefix, self._spaces, self._byte_of = arrays or index_text(text)
        self._size = len(self._prefix) - 1
        self._forward, _ = _powers(1 << max(self._size, 1).bit_length())

    def _bytes(self, offsets: np.ndarray) -> np.ndarray:
        offsets = np.asarray(offsets, dtype=np.int64)
        return offsets if self._byte_of is None else self._byte_of[offsets]

    def digests(self, starts: np.ndarray, ends: np.ndarray, kind: int = 0) -> np.ndarray:
        """Signed 64-bit digest of ``text[starts[i]:ends[i]]`` for each i."""
        first, stop = self._bytes(starts), self._bytes(ends)
        last = np.maximum(stop - 1, 0)
        hashes = (self._prefix[stop] - self._prefix[first]) * self._forward[last]
        lengths = (stop - first).astype(np.uint64)
        salted = hashes ^ (lengths * np.uint64(0xD6E8FEB86659FD93)) ^ np.uint64(kind & _MASK)
        return _mix(salted).view(np.int64)

    def word_counts(self, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """Words in ``text[starts[i]:ends[i]]`` (the text is whitespace-collapsed)."""
        first, stop = self._bytes(starts), self._bytes(ends)
        return np.where(stop > first, self._spaces[stop] - self._spaces[first] + 1, 0)


def text_digests(texts: list[str], kind: int = 0) -> np.ndarray:
    """:meth:`PageText.digests` of whole texts: the same digest a substring would get."""
    joined = " ".join(texts)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    ends = np.cumsum(lengths + 1) - 1
    return PageText(joined).digests(ends - lengths, ends, kind)
