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
    doc = tokenizer()(text)
    if not len(doc):
        empty = np.zeros(0, dtype=np.int64)
        return Words(empty.astype(np.uint64), empty, empty.astype(bool), empty.astype(bool),
                     empty.astype(bool), empty, empty)
    table = doc.to_array(_ATTRS)
    ids = table[:, 0]
    punct, space, stop, title, upper = (table[:, k].astype(bool) for k in range(1, 6))
    starts = table[:, 6].astype(np.int64)
    ends = starts + table[:, 7].astype(np.int64)
    glued_after = table[:, 8] == 0  # no whitespace after the token
    wordlike = ~punct & ~space & _has_alnum(ids, doc.vocab.strings)
    # a joiner glued between two words is dropped without a break
    before = np.concatenate(([False], wordlike[:-1] & glued_after[:-1]))
    after = np.concatenate((wordlike[1:], [False]))
    joiner = ~wordlike & before & glued_after & after & _is_joiner(ids, doc.vocab.strings)
    breaks = ~wordlike & ~joiner
    runs = np.cumsum(breaks)
    keep = wordlike
    return Words(ids[keep], runs[keep], stop[keep], (title | upper)[keep],
                 upper[keep] & (ends - starts >= 2)[keep], starts[keep], ends[keep])


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
