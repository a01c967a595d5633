"""A keyword list, not a bag (issue 31): the best candidates, each saying something the
ones above it do not.

Walking the candidates best first, one is left out when

- it is a *fragment*: every one of its occurrences lies inside occurrences of longer
  phrases already listed ("Warner" below "Time Warner Cable", when "Warner" never
  occurs on its own);
- it is an *inflection* of a phrase already listed: the same words after Snowball's
  stemmer of the page's language (PyStemmer: "polar bears" below "polar bear"; the
  words as they are in a language Snowball has no stemmer for);
- it is only a *number, date or time*: no word with a letter ("15", "12:41",
  "2010"), or only numbers beside month and weekday names and the words of a time
  of day ("November 27", "16:11 ET", "4pm"). A phrase of a number and a word that is
  also a time zone's ("PT 109") goes too: the price of so short a list of words.
  Inside a longer phrase they stay ("iPhone 4", "Windows 7").

A fragment listed *above* its longer phrase stays: both were ranked on their own
evidence, and the ranker's cohesion and containment features (see
:func:`kwx.candidates.phrase_structure`) are what ranks fragments low. "Above" and
"below" are the list's order, slots included: a word ranked over a phrase that a slot
then lifts over it is left out ("Polar" under "Polar bears" in slot 4), since a reader
sees it below the phrase.

Advertisers buy phrases ("polar bear", "Time Warner Cable"), and a ranker trained on
annotated keywords, most of them single words, ranks single words first: a word is
more often one of a page's many keywords than any one phrase is. So ``phrases`` of
the list's slots go to the best phrases of two or more words (slot k is a phrase when
fewer than ``int(phrases * k)`` of the first k are: 0.3 makes slots 4, 7 and 10
phrases unless phrases already rank there). The default, 0.3, is the share of
phrases among annotators' keywords (26-28% on ``benchmarks/keywords.py``'s stories,
23% on the blind ones). It has a price there: on both of the benchmark's sites never
seen, the same ranker's list without slots scores 11-13% more at Top-10 (exact matches
with the annotators' words reward single words), and on one of them (BBC) the list
with slots scores below the paper's ranker alone.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

import numpy as np

from kwx.candidates import Candidates

_CALENDAR = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday "
    "friday saturday sunday mon tue tues wed thu thurs fri sat sun "
    # the words of a time of day: "4 pm", "16:11 ET", "16.11 Uhr"
    "am pm a.m p.m uhr gmt utc bst cet cest et est edt ct cst cdt mt mst mdt pt pst pdt"
    .split())


_LOCAL = threading.local()


#: Snowball's stemmers by the ISO 639 code of their language (PyStemmer's names).
_SNOWBALL = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech",
    "da": "danish", "nl": "dutch", "en": "english", "eo": "esperanto", "et": "estonian",
    "fi": "finnish", "fr": "french", "de": "german", "el": "greek", "hi": "hindi",
    "hu": "hungarian", "id": "indonesian", "ga": "irish", "it": "italian",
    "lt": "lithuanian", "ne": "nepali", "no": "norwegian", "nb": "norwegian",
    "fa": "persian", "pl": "polish", "pt": "portuguese", "ro": "romanian", "ru": "russian",
    "sr": "serbian", "es": "spanish", "sv": "swedish", "ta": "tamil", "tr": "turkish",
    "yi": "yiddish",
}


def _stem_words(language: str = "en") -> Callable[[list[str]], list[str]]:
    """Snowball's stemmer of ``language`` (PyStemmer), one per thread and language: a
    stemmer object is not safe to share between threads. The words as they are where
    Snowball has none."""
    stemmers = getattr(_LOCAL, "stemmers", None)
    if stemmers is None:
        stemmers = _LOCAL.stemmers = {}
    stem = stemmers.get(language)
    if stem is None:
        import Stemmer

        name = _SNOWBALL.get(language)  # PyStemmer 2.2 has no Czech, Polish, Persian ...
        stem = stemmers[language] = (Stemmer.Stemmer(name).stemWords
                                     if name in Stemmer.algorithms() else list)
    return stem


def _words(phrase: str) -> list[str]:
    """The phrase's words in lower case, without the punctuation around them."""
    return [w for w in (word.strip(".,;:!?\"'()[]{}").lower() for word in phrase.split()) if w]


#: A time of day written as one word: "4pm", "10.30am", "16h11".
_TIME = re.compile(r"\d{1,2}(?:[:.]\d{2})?(?:am|pm|a\.m|p\.m|h\d{0,2})")


def _numbers_only(words: list[str]) -> bool:
    """No word with a letter ("15", "12:41", "4pm"), or only such words beside month and
    weekday names and a time of day's words ("November 27", "4 pm")."""
    return all(w in _CALENDAR or not any(ch.isalpha() for ch in w) or _TIME.fullmatch(w)
               for w in words) and not all(w in _CALENDAR for w in words)


def distinct_best(candidates: Candidates, scores: np.ndarray,
                  ranked: Callable[[int], np.ndarray], n: int, phrases: float = 0.0,
                  ) -> np.ndarray:
    """Indices of the ``n`` best candidates by ``scores`` that make a list (see the
    module notes), in order, ``phrases`` of the slots for phrases of two or more words.
    ``ranked(k)`` gives the indices of the ``k`` best candidates, best first (ties:
    earlier on the page first). The best few overall and the best few phrases are
    looked at, and more only when those run out."""
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    wanted = int(phrases * n)
    growth = 1
    while True:
        size = max(4 * n, 32) * growth
        pool = _pool(candidates, scores, ranked(min(size, len(candidates))),
                     4 * wanted * growth)
        listed, short = _list(candidates, pool, n, phrases)
        if not short or size >= len(candidates):
            return np.array(listed, dtype=np.int64)
        growth *= 4


def _pool(candidates: Candidates, scores: np.ndarray, best: np.ndarray,
          phrases: int) -> list[int]:
    """``best`` (indices, best first) and the ``phrases`` best phrases of two or more
    words, merged in rank order (score, then first position)."""
    if not phrases:
        return best.tolist()
    multi = np.flatnonzero(candidates.lengths > 1)
    if len(multi) > phrases:
        multi = multi[np.argpartition(-scores[multi], phrases - 1)[:phrases]]
    merged = np.union1d(best, multi)
    return merged[np.lexsort((candidates.first[merged], -scores[merged]))].tolist()


def _list(candidates: Candidates, pool: list[int], n: int, phrases: float,
          ) -> tuple[list[int], bool]:
    """The list from ``pool`` (best first), slot by slot: slot k takes the best phrase
    left when fewer than ``int(phrases * k)`` of the first k are phrases, else the best
    candidate left; one is left out when what is listed *above it* covers it, is its
    inflection, or when it is only a number (module notes), so the rules hold in the
    order a reader sees, slots included. Also whether the pool ran short (of
    candidates, or of phrases for a slot). Plain Python over the pool's few candidates
    and their occurrences (numpy calls per candidate cost more)."""
    owner = candidates.occurrence_of
    in_pool = np.zeros(len(candidates), dtype=bool)
    in_pool[pool] = True
    mine = np.flatnonzero(in_pool[owner])
    starts: dict[int, list[int]] = {}
    for index, first in zip(owner[mine].tolist(), candidates.occurrences.first[mine].tolist(),
                            strict=True):
        starts.setdefault(index, []).append(first)
    text, stems = candidates.document.text, _stem_words(candidates.language)
    lengths = candidates.lengths[pool].tolist()
    spans = dict(zip(pool, candidates.spans[pool].tolist(), strict=True))
    length_of = dict(zip(pool, lengths, strict=True))
    covered: set[int] = set()
    seen: set[tuple[str, ...]] = set()
    done: set[int] = set()  # listed, or left out for good (what is above only grows)

    def fits(index: int) -> bool:
        done.add(index)
        length = length_of[index]
        if covered and all(f + k in covered for f in starts[index] for k in range(length)):
            return False
        a, b = spans[index]
        words = _words(text[a:b])
        if _numbers_only(words):
            return False
        key = tuple(stems(words))
        if key in seen:
            return False
        seen.add(key)
        if length > 1:
            covered.update(f + k for f in starts[index] for k in range(length))
        return True

    def best_left(queue: list[int], at: list[int]) -> int | None:
        while at[0] < len(queue):
            index = queue[at[0]]
            at[0] += 1
            if index not in done and fits(index):
                return index
        return None

    multi = [index for index, length in zip(pool, lengths, strict=True) if length > 1]
    at_all, at_multi = [0], [0]
    listed: list[int] = []
    n_phrases = 0
    short = False
    while len(listed) < n:
        take = None
        if n_phrases < int(phrases * (len(listed) + 1)):
            take = best_left(multi, at_multi)
            short = short or take is None
        if take is None:
            take = best_left(pool, at_all)
            if take is None:
                return listed, True
        listed.append(take)
        n_phrases += length_of[take] > 1
    return listed, short
