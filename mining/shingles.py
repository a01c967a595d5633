"""Text to word shingles: the set a page is compared by in near-duplicate detection.

Chakrabarti et al. (6.2) lower-case the text, keep only alphanumeric characters and
take every window of 6 consecutive words. We do the same, with Unicode's idea of
alphanumeric (``str.isalnum``, so "café" and "Москва" are words; the underscore is
not), and windows that run across block boundaries (the paper moves one window over
the whole text). Chinese and Japanese are written without spaces: there, each Han
character and each kana is a word (6-character shingles, the usual unit of
near-duplicate detection in those scripts), where runs of alphanumerics would make a
word of a whole clause, and one changed character a different word (issue 30). A word
segmenter would cost far more than the rest of the hashing, and shingles need no
dictionary's words, only the same cut on both copies.

Each word is hashed once and a shingle's hash combines its k word hashes, all in
numpy: a page costs a handful of array operations, not a Python step per word.
Lower-casing and the alphanumeric test are one look-up table over code points
(``str.lower`` alone costs more than all the hashing on a non-ASCII page).

- A word's hash is a polynomial over its lower-cased code points modulo 2**64,
  taken for every word at once from one prefix sum over the text, then mixed with
  the MurmurHash3 64-bit finalizer. (Polynomial hashes modulo 2**64 can be made to
  collide by crafted strings thousands of bytes long; words are not such strings.)
- A shingle's hash is the polynomial (Horner) combination of its k word hashes,
  mixed again: k array operations whatever the text's length.
- A text shorter than k words (but not empty) is **one shingle of all its words**:
  two identical short texts are then duplicates and any two different ones are not,
  which is the exact Jaccard answer for texts too short to share a partial window.
  Skipping them instead would silently drop real duplicates (two copies of the same
  short notice). Callers count such texts (:func:`word_hashes` tells the length).
- An empty text has no shingles; it has no set to compare, so callers skip it.

:func:`reference_shingle_hash` is the same hash in plain Python, one shingle at a
time: the tests and the speed benchmark use it to check the arrays.
"""

from __future__ import annotations

import numpy as np

try:
    from mining import _kernels
except ImportError:  # not built: numpy does it all
    _kernels = None

__all__ = [
    "DEFAULT_SHINGLE",
    "SHINGLE_HASH",
    "TOKENS",
    "fmix64",
    "reference_shingle_hash",
    "shingle_hashes",
    "shingles_of_words",
    "word_hashes",
    "words",
]

#: Chakrabarti et al.'s window: 6 consecutive words.
DEFAULT_SHINGLE = 6
#: Names of the tokenization and the hash, saved with every index and checked on load.
TOKENS = "lower-unicode-alnum-cjk-char-v2"
SHINGLE_HASH = "poly64-fmix64-v1"

_MASK64 = (1 << 64) - 1
# Odd multipliers (invertible modulo 2**64): one for characters within a word, one
# for words within a shingle.
_CHAR_BASE = 0x100000001B3  # the FNV-1 64-bit prime
_WORD_BASE = 0x9E3779B97F4A7C15  # 2**64 / golden ratio, odd
_CHAR_BASE_INVERSE = pow(_CHAR_BASE, -1, 1 << 64)
_FMIX = (33, 0xFF51AFD7ED558CCD, 33, 0xC4CEB9FE1A85EC53, 33)  # MurmurHash3 fmix64
_BMP = 1 << 16


#: Flag of a code in the word table: the character is a word by itself (Han, kana).
LONE = 1 << 31
#: Blocks of characters that are each a word: kana (Hiragana, Katakana and its
#: extensions, half-width Katakana) and Han (the CJK Unified Ideographs and their
#: extensions, compatibility ideographs).
_LONE_BLOCKS = ((0x3040, 0x30FF), (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
                (0xF900, 0xFAFF), (0xFF66, 0xFF9F), (0x20000, 0x3134F))


def _word_char(char: str) -> int:
    """The code point ``char`` stands for in a word (lower-cased), with :data:`LONE` set
    for a character that is a word by itself, or 0 for a separator.

    The few characters whose lower case is two characters ("İ") stay as they are."""
    if not char.isalnum():
        return 0
    code = ord(char)
    if any(low <= code <= high for low, high in _LONE_BLOCKS):
        return code | LONE
    lower = char.lower()
    return ord(lower) if len(lower) == 1 else code


def _word_table() -> np.ndarray:
    table = np.fromiter((_word_char(chr(code)) for code in range(_BMP)), dtype=np.uint32,
                        count=_BMP)
    table.flags.writeable = False
    return table


#: Code point -> lower-cased code point, 0 for non-alphanumeric (the Basic Multilingual
#: Plane; the rare characters above it are looked up one by one).
_WORD_TABLE = _word_table()


def _power_table(base: int, length: int) -> np.ndarray:
    """base**0, base**1, ... modulo 2**64 (``length`` of them)."""
    powers = np.full(length, base, dtype=np.uint64)
    powers[:1] = 1
    return np.multiply.accumulate(powers)


#: Powers of the character base and of its inverse for pieces of up to 64k characters
#: (1 MB, read-only): the numpy path hashes a text piece by piece.
_TABLE_LENGTH = 1 << 16
#: Characters of text the numpy path hashes at once.
_PIECE = _TABLE_LENGTH
_POWERS = _power_table(_CHAR_BASE, _TABLE_LENGTH)
_INVERSE_POWERS = _power_table(_CHAR_BASE_INVERSE, _TABLE_LENGTH)
_POWERS.flags.writeable = _INVERSE_POWERS.flags.writeable = False


def words(text: str) -> list[str]:
    """The words of ``text`` in plain Python: runs of alphanumeric characters,
    lower-cased, a Han character or kana alone (the definition :func:`word_hashes`
    implements with arrays)."""
    chars = (f" {chr(code & ~LONE)} " if code & LONE else chr(code) if code else " "
             for code in map(_word_char, text))
    return "".join(chars).split()


def fmix64(values: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finalizer, element-wise (a bijection that mixes every bit)."""
    s1, m1, s2, m2, s3 = (np.uint64(c) for c in _FMIX)
    values = values ^ (values >> s1)
    values = values * m1
    values = values ^ (values >> s2)
    values = values * m2
    return values ^ (values >> s3)


def _code_points(text: str) -> np.ndarray:
    """The text as word code points (lower-cased; 0 between words), uint32."""
    raw = np.frombuffer(text.encode("utf-32-le", errors="surrogatepass"), dtype=np.uint32)
    codes = _WORD_TABLE[np.minimum(raw, _BMP - 1)]
    astral = np.flatnonzero(raw >= _BMP)
    if astral.size:  # emoji, rare CJK: a Python look-up each, there are few
        codes[astral] = [_word_char(chr(code)) for code in raw[astral].tolist()]
    return codes


def word_hashes(text: str, spans: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """The 64-bit hash of every word of ``text``, in order (uint64; empty for no words).

    With ``spans`` (start and end offsets in ``text``), only the words inside them: the
    words of a page's kept chunks straight from the page text, without joining them
    first. Spans that touch are one run of text (chunks glued inside a word, as the
    page text has them: :mod:`denoise.blocks`), so a word may run over their edge; a
    gap between spans ends a word.
    """
    if _kernels is not None:  # one pass over the characters, not a dozen over arrays
        bounds = spans if spans is not None else (np.zeros(1, np.int64),
                                                  np.full(1, len(text), np.int64))
        found = _kernels.span_word_hashes(text, bounds[0].astype(np.int64, copy=False),
                                          bounds[1].astype(np.int64, copy=False),
                                          _WORD_TABLE, _CHAR_BASE)
        if found is not None:  # None: characters past the first plane
            return found
    return _numpy_word_hashes(text, spans)


def _numpy_word_hashes(text: str, spans: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    """:func:`word_hashes` in numpy: the words of each piece of :data:`_PIECE` characters
    at once from one prefix sum, a word that runs over a piece's end carried into the
    next. Pieces keep the arrays at some 30 bytes a character of one piece, not of the
    text: whole, a 10 MB text made 500 MB of them (``benchmarks/page_memory.py``)."""
    if spans is not None:  # coverage by counts of sorted starts and ends, piece by piece
        starts = np.sort(np.asarray(spans[0], dtype=np.int64))
        ends = np.sort(np.asarray(spans[1], dtype=np.int64))
    found: list[np.ndarray] = []
    carry, carried = 0, 0  # hash so far and length of a word that ran over a piece's end
    for low in range(0, len(text), _PIECE):
        codes = _code_points(text[low:low + _PIECE])
        size = codes.size
        if spans is not None:
            codes = np.where(_covered(starts, ends, low, low + size), codes, np.uint32(0))
        lone = (codes & np.uint32(LONE)) != 0
        codes &= np.uint32(~LONE & 0xFFFFFFFF)
        word = codes != 0
        # a cut between two characters where either is a separator or a lone character
        cut = np.concatenate(([True], ~(word[:-1] & word[1:]) | lone[:-1] | lone[1:], [True]))
        first = np.flatnonzero(word & cut[:-1])
        last = np.flatnonzero(word & cut[1:]) + 1
        # prefix[i] = sum of code_j * B**j for j < i, so a word's slice of it is its
        # polynomial times B**start: B**-start brings it back (all modulo 2**64, where
        # uint64 arithmetic wraps).
        prefix = np.zeros(size + 1, dtype=np.uint64)
        np.cumsum(codes * _POWERS[:size], out=prefix[1:])
        values = (prefix[last] - prefix[first]) * _INVERSE_POWERS[first]
        if carried:
            if first.size and first[0] == 0 and not lone[0]:  # the carried word goes on
                values[0] = (carry + int(values[0]) * pow(_CHAR_BASE, carried, 1 << 64)) \
                    & _MASK64
                if last[0] == size:  # ... and over this piece's end too
                    carry, carried = int(values[0]), carried + size
                    continue
            else:  # it ended with the last piece
                found.append(fmix64(np.array([carry], dtype=np.uint64)))
            carried = 0
        if last.size and last[-1] == size and low + size < len(text) and not lone[-1]:
            carry, carried = int(values[-1]), int(last[-1] - first[-1])
            values = values[:-1]
        found.append(fmix64(values))
    if carried:
        found.append(fmix64(np.array([carry], dtype=np.uint64)))
    return np.concatenate(found) if found else np.empty(0, dtype=np.uint64)


def _covered(starts: np.ndarray, ends: np.ndarray, low: int, high: int) -> np.ndarray:
    """Per position ``low <= i < high``: inside a span (``starts`` and ``ends`` sorted
    apart). The spans covering ``i`` are those starting at or before it less those ended
    by then: a count at ``low``, and the starts and ends in between."""
    before = int(np.searchsorted(starts, low, side="right"))
    ended = int(np.searchsorted(ends, low, side="right"))
    size = high - low
    steps = np.bincount(starts[before:np.searchsorted(starts, high)] - low, minlength=size) \
        - np.bincount(ends[ended:np.searchsorted(ends, high)] - low, minlength=size)
    return np.cumsum(steps) + (before - ended) > 0


def shingles_of_words(words: np.ndarray, k: int = DEFAULT_SHINGLE) -> np.ndarray:
    """The hash of every window of ``k`` consecutive words (uint64, ``len(words) - k + 1``
    of them; one over all the words when there are fewer than ``k``; none for none)."""
    if k < 1:
        raise ValueError(f"a shingle needs at least one word, not {k}")
    count = words.size
    if count == 0:
        return np.empty(0, dtype=np.uint64)
    width = min(k, count)
    windows = count - width + 1
    base = np.uint64(_WORD_BASE)
    combined = words[:windows].copy()
    for offset in range(1, width):
        combined *= base
        combined += words[offset:offset + windows]
    return fmix64(combined)


def shingle_hashes(text: str, k: int = DEFAULT_SHINGLE) -> np.ndarray:
    """The hashes of the ``k``-word shingles of ``text`` (see the module notes)."""
    return shingles_of_words(word_hashes(text), k)


def _fmix64_int(value: int) -> int:
    s1, m1, s2, m2, s3 = _FMIX
    value ^= value >> s1
    value = (value * m1) & _MASK64
    value ^= value >> s2
    value = (value * m2) & _MASK64
    return value ^ (value >> s3)


def reference_shingle_hash(shingle: str | bytes) -> int:
    """The hash :func:`shingle_hashes` gives a shingle, computed in plain Python from
    its :func:`words` joined by single spaces (UTF-8 bytes or text): a check for the
    arrays, and a ``hashfunc`` for datasketch's own per-shingle loop."""
    text = shingle.decode("utf-8") if isinstance(shingle, bytes) else shingle
    combined = 0
    for word in text.split(" "):
        value, power = 0, 1
        for char in word:
            value = (value + ord(char) * power) & _MASK64
            power = (power * _CHAR_BASE) & _MASK64
        combined = (combined * _WORD_BASE + _fmix64_int(value)) & _MASK64
    return _fmix64_int(combined)
