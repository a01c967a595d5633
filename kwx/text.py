"""Words and candidate phrases: spaCy's tokenizer, its stop list, 64-bit phrase hashes.

A *phrase* is a run of 1 to ``max_words`` words that crosses no break and neither
starts nor ends with a stop word. Breaks are every token that is not a word
(sentence and clause punctuation, line ends between blocks) except a hyphen, slash,
ampersand or apostrophe that spaCy splits off between two words ("3-Day",
"AT&T"): the joiner is dropped, so "3-Day Festival" and "3 day festival" are the
same phrase. Forms spaCy keeps whole ("COVID-19", "and/or": a hyphen before a digit,
its exceptions) stay one word and match only as written. Words are compared in
lower case.

Phrases are identified by a 64-bit hash folded from spaCy's lexeme hashes of their
lower-cased words (``h = h * P ^ word``), computed for all n-grams of a page with a
few numpy operations; tables (document and query frequencies) store the same hashes,
so a lookup never builds a string. spaCy's string hashes are MurmurHash64 of the
UTF-8 text, stable across spaCy 3 releases; every table stores the hash of a test
phrase and is refused when today's tokenizer disagrees (:func:`hash_check`).

``spacy.blank("en")`` is the default: its tokenizer is rule-based and needs no
model download. Where the paper wants linguistic features (noun phrases) a trained
pipeline would be needed; Kołcz & Yih left them out too.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from spacy.attrs import IDX, IS_PUNCT, IS_SPACE, IS_STOP, IS_TITLE, IS_UPPER, LENGTH, LOWER, SPACY

#: Longest candidate phrase, in words (Yih et al. and the issue: up to 5).
MAX_WORDS = 5
#: Odd 64-bit multiplier of the phrase hash (the golden-ratio constant).
_MIX = np.uint64(0x9E3779B97F4A7C15)
_MASK = (1 << 64) - 1
#: Tokens that join two words when glued to both ("e-mail", "AT&T", "and/or").
_JOINERS = frozenset("-/&'\u2019")  # \u2019: the typographic apostrophe
_ATTRS = [LOWER, IS_PUNCT, IS_SPACE, IS_STOP, IS_TITLE, IS_UPPER, IDX, LENGTH, SPACY]
#: Test phrase whose hash every saved table records.
_CHECK_PHRASE = "New York Stock-Exchange"


@cache
def tokenizer():
    """spaCy's English tokenizer (a blank pipeline: rules only, no model files)."""
    import spacy

    return spacy.blank("en").tokenizer


@dataclass(frozen=True, slots=True)
class Words:
    """The words of a text, in order, as arrays."""

    ids: np.ndarray  # uint64: spaCy hash of the lower-cased word
    runs: np.ndarray  # int64: words with the same run have no break between them
    stop: np.ndarray  # bool: a stop word
    capitalized: np.ndarray  # bool: Title case or ALL CAPS as written
    upper: np.ndarray  # bool: ALL CAPS (two letters or more)
    starts: np.ndarray  # int64: character offset in the text
    ends: np.ndarray  # int64: one past the last character

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True, slots=True)
class Occurrences:
    """Every candidate phrase occurrence of a text: its hash, first word and length."""

    hashes: np.ndarray  # uint64
    first: np.ndarray  # int64: index of its first word in ``Words``
    lengths: np.ndarray  # int64: words


def words(text: str) -> Words:
    """Tokenize ``text`` and keep its words, with a run number that changes at every break."""
    table = _token_table(text)
    if table is None:
        empty = np.zeros(0, dtype=np.int64)
        return Words(empty.astype(np.uint64), empty, empty.astype(bool), empty.astype(bool),
                     empty.astype(bool), empty, empty)
    ids, punct, space, stop, title, upper, starts, ends, glued_after, newline = table
    strings = tokenizer().vocab.strings
    wordlike = ~punct & ~space & _has_alnum(ids, strings)
    # a joiner glued between two words is dropped without a break
    before = np.concatenate(([False], wordlike[:-1] & glued_after[:-1]))
    after = np.concatenate((wordlike[1:], [False]))
    joiner = ~wordlike & before & glued_after & after & _is_joiner(ids, strings)
    breaks = (~wordlike & ~joiner).astype(np.int64) + newline
    runs = np.cumsum(breaks)
    keep = wordlike
    return Words(ids[keep], runs[keep], stop[keep], (title | upper)[keep],
                 upper[keep] & (ends - starts >= 2)[keep], starts[keep], ends[keep])


def _token_table(text: str) -> tuple[np.ndarray, ...] | None:
    """Per token of ``text``: lexeme hash, punct, space, stop, title, upper (bool), start,
    end (int64), no whitespace after (bool), and line breaks just before it (int64, for a
    text tokenized line by line); None for no token.

    spaCy splits text at spaces first and tokenizes each space-delimited chunk on its
    own, so a text of single-space-separated chunks on lines (what :mod:`kwx.document`
    makes) is tokenized chunk by chunk from a cache of chunks seen before (most of a
    page's words were seen on earlier pages), and spaCy is called once per page on the
    chunks it has not met. Any other text goes to spaCy whole. ``tests/test_kwx.py``
    checks the two agree on real pages.
    """
    lines = text.split("\n")
    chunks = [line.split(" ") for line in lines]
    if not text or any(not chunk for line in chunks for chunk in line):
        return _spacy_table(text)
    flat = [chunk for line in chunks for chunk in line]
    distinct = dict.fromkeys(flat)
    missing = [c for c in distinct if c not in _CHUNKS]
    if len(_CHUNKS) + len(missing) > _MAX_CHUNKS or _vocabulary_full():
        _CHUNKS.clear()  # full: start again with this page's
        missing = list(distinct)
    if missing:
        _learn_chunks(missing)
    entries = [_CHUNKS[c] for c in flat]
    counts = np.fromiter((e[0].shape[0] for e in entries), dtype=np.int64, count=len(entries))
    table = np.concatenate([e[0] for e in entries]) if entries else np.zeros((0, 9), np.uint64)
    if not len(table):
        return None
    lengths = np.fromiter(map(len, flat), dtype=np.int64, count=len(flat))
    chunk_starts = np.zeros(len(flat), dtype=np.int64)
    np.cumsum(lengths[:-1] + 1, out=chunk_starts[1:])  # one separator after each chunk
    owner = np.repeat(np.arange(len(flat)), counts)
    starts = chunk_starts[owner] + table[:, 6].astype(np.int64)
    ends = starts + table[:, 7].astype(np.int64)
    last = np.cumsum(counts) - 1  # the last token of each chunk: whitespace follows it
    glued_after = table[:, 8] == 0
    glued_after[last[counts > 0]] = False
    line_sizes = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
    first_chunk_of_line = np.zeros(len(flat), dtype=np.int64)
    first_chunk_of_line[np.cumsum(line_sizes)[:-1]] = 1  # a line break before these chunks
    newline = np.zeros(len(table), dtype=np.int64)
    token_of_chunk = np.cumsum(counts) - counts
    breaks_before = np.flatnonzero(first_chunk_of_line)
    # a chunk without tokens cannot start a line here (chunks are never empty strings)
    newline[token_of_chunk[breaks_before]] = 1
    return (table[:, 0], *(table[:, k].astype(bool) for k in range(1, 6)), starts, ends,
            glued_after, newline)


def _spacy_table(text: str) -> tuple[np.ndarray, ...] | None:
    _vocabulary_full()
    doc = tokenizer()(text)
    if not len(doc):
        return None
    table = doc.to_array(_ATTRS)
    starts = table[:, 6].astype(np.int64)
    return (table[:, 0], *(table[:, k].astype(bool) for k in range(1, 6)), starts,
            starts + table[:, 7].astype(np.int64), table[:, 8] == 0,
            np.zeros(len(table), dtype=np.int64))


#: spaCy keeps every string it has tokenized: past this many (~30 MB), a fresh one takes
#: over (lexeme hashes depend on the string alone, so nothing else changes).
_MAX_STRINGS = 300_000


def _vocabulary_full() -> bool:
    """Start a fresh tokenizer when the current one holds too many strings (a crawl's
    vocabulary has no end); True when it did."""
    if len(tokenizer().vocab.strings) <= _MAX_STRINGS:
        return False
    tokenizer.cache_clear()
    return True


#: Space-delimited chunk -> (its tokens' attribute rows, offsets inside the chunk); bounded.
_CHUNKS: dict[str, tuple[np.ndarray]] = {}
_MAX_CHUNKS = 100_000  # ~25 MB at most: a crawl's long tail of chunks is not kept


def _learn_chunks(chunks: list[str]) -> None:
    """Tokenize ``chunks`` in one spaCy call and remember each one's token rows."""
    doc = tokenizer()(" ".join(chunks))
    table = doc.to_array(_ATTRS)
    starts = np.zeros(len(chunks), dtype=np.int64)
    np.cumsum(np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))[:-1] + 1,
              out=starts[1:])
    owner = np.searchsorted(starts, table[:, 6].astype(np.int64), side="right") - 1
    table = table.copy()
    table[:, 6] -= starts[owner].astype(np.uint64)  # offsets inside the chunk
    bounds = np.searchsorted(owner, np.arange(len(chunks) + 1))
    for k, chunk in enumerate(chunks):
        _CHUNKS[chunk] = (table[bounds[k]:bounds[k + 1]],)


_ALNUM: dict[int, bool] = {}
_JOINER_IDS: dict[int, bool] = {}


def _flag(ids: np.ndarray, strings, cache_: dict[int, bool], test) -> np.ndarray:
    """A per-token flag computed once per distinct lexeme (cached across pages; the
    cache is dropped when it grows past a million entries, so a crawl stays bounded)."""
    unique, inverse = np.unique(ids, return_inverse=True)
    if len(cache_) > 1_000_000:
        cache_.clear()
    values = np.empty(len(unique), dtype=bool)
    for k, key in enumerate(unique.tolist()):
        value = cache_.get(key)
        if value is None:
            value = cache_[key] = test(strings[key])
        values[k] = value
    return values[inverse]


def _has_alnum(ids: np.ndarray, strings) -> np.ndarray:
    return _flag(ids, strings, _ALNUM, lambda s: any(c.isalnum() for c in s))


def _is_joiner(ids: np.ndarray, strings) -> np.ndarray:
    return _flag(ids, strings, _JOINER_IDS, lambda s: s in _JOINERS)


def occurrences(found: Words, max_words: int = MAX_WORDS) -> Occurrences:
    """Every phrase of 1 to ``max_words`` words in ``found`` (vectorised: one pass per length)."""
    ids, runs, stop = found.ids, found.runs, found.stop
    hashes, firsts, lengths = [], [], []
    rolling = ids.copy()
    for n in range(1, max_words + 1):
        count = len(ids) - n + 1
        if count <= 0:
            break
        if n > 1:
            rolling = (rolling[:count] * _MIX) ^ ids[n - 1:]
        last = np.arange(n - 1, n - 1 + count)
        ok = (runs[:count] == runs[last]) & ~stop[:count] & ~stop[last]
        first = np.flatnonzero(ok)
        hashes.append(rolling[first])
        firsts.append(first)
        lengths.append(np.full(len(first), n, dtype=np.int64))
    if not hashes:
        empty = np.zeros(0, dtype=np.int64)
        return Occurrences(empty.astype(np.uint64), empty, empty)
    return Occurrences(np.concatenate(hashes), np.concatenate(firsts), np.concatenate(lengths))


def phrase_hashes(text: str, max_words: int = MAX_WORDS) -> np.ndarray:
    """The distinct candidate phrase hashes of ``text`` (for tables and titles)."""
    return np.unique(occurrences(words(text), max_words).hashes)


def key_hash(phrase: str) -> int | None:
    """The hash of a whole phrase as written (a gold keyword, a query): all its words,
    stop words and breaks included; None when it has no word."""
    found = words(phrase)
    if not len(found):
        return None
    value, mix = 0, int(_MIX)
    for position, word in enumerate(found.ids.tolist()):
        value = word if position == 0 else ((value * mix) & _MASK) ^ word
    return value


def normal_form(phrase: str) -> str:
    """A phrase as it is compared: its words in lower case, one space apart."""
    found = words(phrase)
    return " ".join(phrase[a:b].lower() for a, b in zip(found.starts.tolist(),
                                                        found.ends.tolist(), strict=True))


def hash_check() -> int:
    """The hash of a fixed test phrase: tables record it, so a table made with another
    tokenizer or hash is refused rather than silently mismatched."""
    value = key_hash(_CHECK_PHRASE)
    assert value is not None  # noqa: S101 - a constant phrase with words
    return value
