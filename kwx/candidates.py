"""Candidate phrases of a document, each with the per-page counts its features need.

Yih, Goodman & Carvalho (2006) built one example per candidate phrase of a page
(their "monolithic" combiner): its occurrences are pooled, and the features say how
often, where first, how written, and in which parts of the page it occurs. We do
the same, with every count taken over the phrase's occurrences by one
``np.unique`` and a few ``bincount`` calls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate

import numpy as np

from denoise.arrays import sorted_positions, unique_groups
from kwx.document import KeywordDocument
from kwx.text import ENGLISH, MAX_WORDS, Occurrences, Words, occurrences, page_language, words

try:
    from kwx import _kernels
except ImportError:  # the compiled extension is optional
    _kernels = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidates:
    """A document's distinct candidate phrases; arrays line up with ``hashes``."""

    document: KeywordDocument
    hashes: np.ndarray  # uint64: the phrase (see kwx.text)
    lengths: np.ndarray  # int64: words
    tf: np.ndarray  # int64: occurrences in the kept text
    first: np.ndarray  # int64: word index of the first occurrence
    spans: np.ndarray  # int64 (n, 2): characters of the first occurrence in the text
    capitalized: np.ndarray  # float64: share of occurrences with every word capitalized
    upper: np.ndarray  # float64: share in ALL CAPS
    anchor: np.ndarray  # float64: share of occurrences wholly inside anchor text
    heading: np.ndarray  # float64: share wholly inside headings
    template: np.ndarray  # float64: mean template score of the occurrences' blocks
    stop_inside: np.ndarray  # bool: a stop word between its first and last word
    cohesion: np.ndarray  # float64: its words together rather than apart (1: one word)
    contained: np.ndarray  # float64: most of its occurrences inside one longer candidate
    in_title: np.ndarray  # bool
    in_meta_keywords: np.ndarray  # bool
    in_meta_description: np.ndarray  # bool
    n_words: int  # words in the kept text
    language: str  # the language its words were tokenized in (kwx.text.page_language)
    occurrences: Occurrences  # every occurrence, as :func:`kwx.text.occurrences` gives
    occurrence_of: np.ndarray  # int64: each occurrence's candidate

    def __len__(self) -> int:
        return len(self.hashes)

    def phrase(self, index: int) -> str:
        """Candidate ``index`` as first written on the page."""
        return self.phrases([index])[0]

    def phrases(self, indices: np.ndarray | list[int]) -> list[str]:
        """Candidates ``indices`` as first written on the page."""
        text = self.document.text
        return [" ".join(text[a:b].split()) for a, b in self.spans[indices].tolist()]


def find_candidates(document: KeywordDocument, max_words: int = MAX_WORDS,
                    language: str | None = None) -> Candidates:
    """The candidate phrases of ``document`` with their occurrence statistics; its words
    are tokenized in ``language`` (None: the language of its text, title and meta tags,
    :func:`kwx.text.page_language`)."""
    heads = (document.title, document.meta_keywords, document.meta_description)
    lines, kept = _head_lines(heads)
    if language in (None, ENGLISH):
        found, head_words = _words_with(document.text, lines)
        if language is None:  # the head's lines tell too, where the kept text is short
            language = page_language(found, document.text, lines, document.page_start,
                                     document.declared_language)
    if language != ENGLISH:
        found, head_words = _words_with(document.text, lines, language)
    occ = occurrences(found, max_words)
    hashes, first_index, inverse, tf = unique_groups(occ.hashes)
    first_word, lengths, spans, stop_inside = _candidate_spans(found, occ, first_index)
    shares, template = _occurrence_shares(document, found, occ, inverse, tf)
    cohesion, contained = phrase_structure(found, occ, inverse, tf, first_word, lengths)
    return Candidates(
        document=document, hashes=hashes, lengths=lengths, tf=tf, first=first_word,
        spans=spans, capitalized=shares[0], upper=shares[1], anchor=shares[2],
        heading=shares[3], template=template, stop_inside=stop_inside, cohesion=cohesion,
        contained=contained,
        **dict(zip(("in_title", "in_meta_keywords", "in_meta_description"), _present_words(
            hashes, head_words, lines, kept, len(heads), max_words), strict=True)),
        n_words=len(found), language=language, occurrences=occ, occurrence_of=inverse,
    )


def phrase_structure(found: Words, occ: Occurrences, inverse: np.ndarray, tf: np.ndarray,
                     first_word: np.ndarray, lengths: np.ndarray,
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate, the evidence that it is a whole phrase and not a piece of one
    (issue 31): its *cohesion*, how often its words occur together rather than apart
    (the generalized Dice coefficient: words x tf over the sum of its words' tf, stop
    words left out; 1 for a single word, 0.5 for "Warner Bros" beside two more
    "Warner"),
    and *contained*, the largest share of its occurrences that sit inside one candidate
    a word longer ("Warner" in "Time Warner": a fragment). In an ad hoc ablation on the
    keyword benchmark's MSN test pages (not a benchmark command, and so a choice made
    on test pages) the ranker without *contained* lost 3.6 points of Top-10 and
    cohesion was level; cohesion is kept as the issue's named evidence at little cost.
    A feature for numbers was level too and went: the list leaves bare numbers out
    (:mod:`kwx.listing`).

    A longer candidate's occurrence (first word f, n words) holds the occurrences of
    n - 1 words at f and at f + 1 when those are candidates. One compiled pass where
    built (:func:`kwx._kernels.phrase_structure`), else numpy steps."""
    if _kernels is not None:
        def int64(values: np.ndarray) -> np.ndarray:
            return np.ascontiguousarray(values, dtype=np.int64)

        return _kernels.phrase_structure(
            int64(occ.first), int64(occ.lengths), int64(inverse), int64(tf), int64(first_word),
            int64(lengths), len(found))
    return _phrase_structure_numpy(found, occ, inverse, tf, first_word, lengths)


def _phrase_structure_numpy(found: Words, occ: Occurrences, inverse: np.ndarray,
                            tf: np.ndarray, first_word: np.ndarray, lengths: np.ndarray,
                            ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`phrase_structure` by numpy steps (the tests' reference): occurrences come
    by length, then by first word, so each child is found by one binary search per
    length."""
    n = len(tf)
    if not n:
        return np.zeros(0), np.zeros(0)
    bounds = np.searchsorted(occ.lengths, np.arange(1, int(occ.lengths[-1]) + 2))
    word_tf = np.zeros(len(found) + int(lengths.max()), dtype=np.int64)  # 0: a stop word
    word_tf[occ.first[: bounds[1]]] = tf[inverse[: bounds[1]]]
    total, counted = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    for k in range(int(lengths.max())):
        counts = np.where(k < lengths, word_tf[first_word + k], 0)
        total += counts
        counted += counts > 0
    cohesion = counted * tf / np.maximum(total, 1)
    children, parents = [], []
    for length in range(2, len(bounds)):
        lo, hi, child_lo = bounds[length - 1], bounds[length], bounds[length - 2]
        child_first = occ.first[child_lo:lo]
        if hi == lo or not len(child_first):
            continue
        for shift in (0, 1):
            wanted = occ.first[lo:hi] + shift
            at = np.minimum(np.searchsorted(child_first, wanted), len(child_first) - 1)
            hit = child_first[at] == wanted
            children.append(inverse[child_lo + at[hit]])
            parents.append(inverse[lo:hi][hit])
    contained = np.zeros(n)
    if children:
        child, parent = np.concatenate(children), np.concatenate(parents)
        _, first, _, together = unique_groups(child.astype(np.uint64) * np.uint64(n)
                                              + parent.astype(np.uint64))
        np.maximum.at(contained, child[first], together)
        contained /= tf
    return cohesion, contained


def _candidate_spans(found: Words, occ: Occurrences, first_index: np.ndarray,
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per candidate (``first_index``: its first occurrence): its first word, its
    length in words, the characters of that occurrence (n, 2) and whether a stop word
    is among its words. One compiled pass where built, else numpy steps."""
    if _kernels is not None:
        def int64(values: np.ndarray) -> np.ndarray:
            return np.ascontiguousarray(values, dtype=np.int64)

        return _kernels.candidate_spans(
            int64(first_index), int64(occ.first), int64(occ.lengths), int64(found.starts),
            int64(found.ends), np.ascontiguousarray(found.stop, dtype=bool))
    return _candidate_spans_numpy(found, occ, first_index)


def _candidate_spans_numpy(found: Words, occ: Occurrences, first_index: np.ndarray,
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_candidate_spans` by numpy steps (the tests' reference)."""
    first_word = occ.first[first_index]
    lengths = occ.lengths[first_index]
    last_word = first_word + lengths - 1
    spans = np.stack([found.starts[first_word], found.ends[last_word]], axis=1) if len(
        first_index) else np.zeros((0, 2), dtype=np.int64)
    inner_stops = np.concatenate(([0], np.cumsum(found.stop)))
    stop_inside = (inner_stops[last_word + 1] - inner_stops[first_word]) > 0
    return first_word, lengths, spans, stop_inside


def _occurrence_shares(document: KeywordDocument, found: Words, occ: Occurrences,
                       inverse: np.ndarray, tf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate (``inverse``: each occurrence's; ``tf``: each candidate's number of
    occurrences), the share of its occurrences with every word capitalized, in ALL CAPS,
    in anchor text, in a heading (4 x candidates, float64), and the mean of its
    occurrences' template scores, each read at its first word (a phrase never leaves its block, and
    the score is the block's). One compiled pass where built
    (:func:`kwx._kernels.occurrence_shares`), else numpy steps."""
    if _kernels is not None:
        return _kernels.occurrence_shares(
            occ.first, occ.lengths, inverse, tf, found.starts, document.chunk_starts,
            found.capitalized, found.upper, document.chunk_link, document.chunk_heading,
            document.chunk_template)
    return _occurrence_shares_numpy(document, found, occ, inverse, tf)


def _occurrence_shares_numpy(document: KeywordDocument, found: Words, occ: Occurrences,
                             inverse: np.ndarray, tf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_occurrence_shares` by numpy steps (the tests' reference): per word flags,
    then per occurrence whether all its words have them, by prefix sums over the words."""
    n = len(tf)
    chunk = document.chunk_of(found.starts)
    last_of_occ = occ.first + occ.lengths - 1

    def count_all(flags: np.ndarray) -> np.ndarray:
        prefix = np.concatenate(([0], np.cumsum(flags)))
        every = (prefix[last_of_occ + 1] - prefix[occ.first]) == occ.lengths
        return np.bincount(inverse, weights=every, minlength=n).astype(np.int64)

    counts = np.stack([count_all(found.capitalized), count_all(found.upper),
                       count_all(document.chunk_link[chunk] if len(chunk) else found.stop),
                       count_all(document.chunk_heading[chunk] if len(chunk) else found.stop)])
    values = document.chunk_template[chunk[occ.first]] if len(chunk) else np.zeros(0)
    occurrences = np.maximum(tf, 1)
    return counts / occurrences, np.bincount(inverse, weights=values, minlength=n) / occurrences


#: Whitespace that is not one single space: spaCy makes a token of it, a break.
_BREAKING_SPACE = re.compile(r"(?! )\s+| \s+")


def _head_lines(texts: tuple[str, ...]) -> tuple[list[str], list[int]]:
    """The texts that are not empty, each with its whitespace other than single spaces
    made a line break, and their indices among ``texts``.

    Both end phrases as before, and joined by line breaks the texts are then chunks on
    lines, which the chunk cache tokenizes (raw meta tags' line breaks and double
    spaces sent every page's head to spaCy whole).
    """
    lines = [_BREAKING_SPACE.sub("\n", text.strip()) for text in texts]
    kept = [i for i, line in enumerate(lines) if line]
    return [lines[i] for i in kept], kept


def _words_with(text: str, lines: list[str], language: str = ENGLISH,
                ) -> tuple[Words, Words]:
    """The words of ``text`` and those of ``lines`` joined by line breaks, by one call:
    the lines follow the text, a line break apart. Chunks are tokenized alone and a
    line break ends every phrase, so the words are the same; a page's head then costs
    no second pass over the chunk cache, nor a second spaCy call for its new chunks.
    ``language``: as :func:`kwx.text.words` has it."""
    if not text or not lines:
        return words(text, language), words("\n".join(lines), language)
    both = words(text + "\n" + "\n".join(lines), language)
    cut = int(np.searchsorted(both.starts, len(text) + 1))
    return both.part(0, cut), both.part(cut, len(both), len(text) + 1)


def _present_words(hashes: np.ndarray, found: Words, lines: list[str], kept: list[int],
                   texts: int, max_words: int) -> list[np.ndarray]:
    """Per text (``texts`` of them), whether each phrase of ``hashes`` (sorted) is one of
    its phrases, from ``found``: the words of the texts' lines that are not empty
    (:func:`_head_lines`: ``lines``, the ``kept`` ones) joined by line breaks, which end
    every phrase."""
    occ = occurrences(found, max_words)
    text_starts = np.array(list(accumulate((len(line) + 1 for line in lines[:-1]), initial=0)))
    line = np.array(kept, dtype=np.int64)[
        np.searchsorted(text_starts, found.starts[occ.first], side="right") - 1]
    at = sorted_positions(hashes, occ.hashes)
    hit = at >= 0
    present = np.zeros((texts, len(hashes)), dtype=bool)
    present[line[hit], at[hit]] = True
    return list(present)
