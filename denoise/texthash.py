"""Digests of block texts, all of a page's blocks at once, vectorised with numpy.

A block's text is a run of whole chunks of the page text, and the fingerprint
methods need a digest of every block's text: nested blocks make that quadratic if
each text is hashed on its own. Instead the page's UTF-8 bytes get one prefix sum
of a polynomial hash (mod 2**64, multiplier ``Q``), sampled at the chunk bounds,
from which any run of chunks gets its hash with two lookups and a multiply; the
length and a namespace are mixed in and the result goes through the SplitMix64
finalizer. Equal texts get equal digests wherever they sit on the page and however
their markup cut them into chunks. The hash is not cryptographic: it separates
natural texts (collisions about 2**-64), and crafted inputs (Thue-Morse strings)
could collide.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

try:
    from denoise import _compiled
except ImportError:  # the compiled extension is optional
    _compiled = None

Q = 0x9E3779B97F4A7C15
_MASK = (1 << 64) - 1
_Q_INV = pow(Q, -1, 1 << 64)


@lru_cache(maxsize=40)
def _powers(size: int, base: int) -> np.ndarray:
    """base**k for k < size (uint64, wrapping), for a power-of-two size."""
    powers = np.empty(size, dtype=np.uint64)
    powers[0] = 1
    if size > 1:
        powers[1:] = np.cumprod(np.full(size - 1, base, dtype=np.uint64))
    return powers


def _bucket(size: int) -> int:
    return 1 << max(size, 1).bit_length()


def _mix(values: np.ndarray) -> np.ndarray:
    values = values ^ (values >> np.uint64(30))
    values = values * np.uint64(0xBF58476D1CE4E5B9)
    values = values ^ (values >> np.uint64(27))
    values = values * np.uint64(0x94D049BB133111EB)
    return values ^ (values >> np.uint64(31))


@dataclass(frozen=True, slots=True)
class ChunkIndex:
    """Per chunk of a page text: its byte bounds, and the hash and space prefixes there.

    ``prefix_first[c]`` is the sum of ``byte[i] * Q**-i`` over the bytes before chunk
    ``c`` (mod 2**64), ``spaces_first[c]`` the spaces before it; ``*_last`` the same
    at the chunk's end.
    """

    byte_first: np.ndarray  # int64
    byte_last: np.ndarray  # int64
    prefix_first: np.ndarray  # uint64
    prefix_last: np.ndarray  # uint64
    spaces_first: np.ndarray  # int64
    spaces_last: np.ndarray  # int64

    @staticmethod
    def _runs(spans: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Which runs ``[start, end)`` are empty, and each run's first and last chunk."""
        start, end = spans[:, 0], spans[:, 1]
        empty = start >= end
        return empty, np.where(empty, 0, start), np.where(empty, 0, end - 1)

    def digests(self, spans: np.ndarray, kind: int = 0) -> np.ndarray:
        """Signed 64-bit digest of the text of each run of chunks ``[start, end)``.

        ``denoise._compiled.text_keys`` repeats these steps in C: change both together
        (``tests/denoise/site/test_fingerprint.py`` compares them)."""
        if not len(self.byte_first):
            return np.zeros(len(spans), dtype=np.int64)
        empty, first, last = self._runs(spans)
        stop = self.byte_last[last]
        hashes = (self.prefix_last[last] - self.prefix_first[first])
        powers = _powers(_bucket(int(self.byte_last[-1]) + 1), Q)
        hashes = hashes * powers[np.maximum(stop - 1, 0)]
        lengths = (stop - self.byte_first[first]).astype(np.uint64)
        salted = hashes ^ (lengths * np.uint64(0xD6E8FEB86659FD93)) ^ np.uint64(kind & _MASK)
        return np.where(empty, 0, _mix(salted).view(np.int64))

    def word_counts(self, spans: np.ndarray) -> np.ndarray:
        """Words in the text of each run of chunks (the text is whitespace-collapsed)."""
        if not len(self.byte_first):
            return np.zeros(len(spans), dtype=np.int64)
        empty, first, last = self._runs(spans)
        return np.where(empty, 0, self.spaces_last[last] - self.spaces_first[first] + 1)


def index_chunks(text: str, chunk_first: np.ndarray, chunk_last: np.ndarray) -> ChunkIndex:
    """:class:`ChunkIndex` of ``text`` whose chunks span ``[chunk_first, chunk_last)``.

    The compiled walk computes the same arrays in its own loop over the bytes.
    """
    data = np.frombuffer(text.encode("utf-8", "replace"), dtype=np.uint8)
    size = len(data)
    if size == len(text):
        byte_of = None
        byte_first, byte_last = chunk_first.astype(np.int64), chunk_last.astype(np.int64)
    else:
        byte_of = np.append(np.flatnonzero((data & 0xC0) != 0x80), size)
        byte_first, byte_last = byte_of[chunk_first], byte_of[chunk_last]
    prefix = np.zeros(size + 1, dtype=np.uint64)
    np.cumsum(data.astype(np.uint64) * _powers(_bucket(size), _Q_INV)[:size], out=prefix[1:])
    spaces = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(data == 32, out=spaces[1:])
    return ChunkIndex(byte_first, byte_last, prefix[byte_first], prefix[byte_last],
                      spaces[byte_first], spaces[byte_last])


def distinct_words_python(text: str, starts: np.ndarray, ends: np.ndarray,
                          wanted: int) -> np.ndarray:
    """Per span ``text[starts[i]:ends[i]]``, whether it has ``wanted`` distinct words."""
    return np.array([len(set(text[a:b].split())) >= wanted
                     for a, b in zip(starts.tolist(), ends.tolist(), strict=True)], dtype=bool)


def distinct_words(text: str, starts: np.ndarray, ends: np.ndarray, wanted: int) -> np.ndarray:
    """:func:`distinct_words_python`, compiled where available (``wanted`` <= 8 there)."""
    if _compiled is None or wanted > 8:
        return distinct_words_python(text, starts, ends, wanted)
    return _compiled.distinct_words(text, starts.astype(np.int64, copy=False),
                                    ends.astype(np.int64, copy=False), wanted)


def text_digests(texts: list[str], kind: int = 0) -> np.ndarray:
    """Digests of whole texts: the digest a block with the same text gets."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    last = np.cumsum(lengths + 1) - 1
    index = index_chunks(" ".join(texts), last - lengths, last)
    spans = np.stack((np.arange(len(texts)), np.arange(1, len(texts) + 1)), axis=1)
    return index.digests(spans, kind)
