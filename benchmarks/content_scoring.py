"""Scores of main-content extraction against gold.

Two methods, one per kind of gold (:class:`corpora.content.GoldPage`):

- **Snippets** (trafilatura's set), counted as trafilatura's own evaluation does
  (``tests/eval_common.py``, ``count_item``): with whitespace runs collapsed to one
  space on both sides, a ``keep`` snippet found in the extracted text (exact,
  case-sensitive substring) is a true positive and a missing one a false negative; a
  ``drop`` snippet found is a false positive and an absent one a true negative. An
  extractor that crashed (``None``) finds nothing: every ``keep`` snippet is a false
  negative, every ``drop`` snippet a true negative. Counts are pooled over the pages,
  then precision, recall, accuracy and F1 = 2TP / (2TP + FP + FN), each 0 when its
  denominator is.
- **Word 4-gram shingles** (the other sets). Text is lower-cased and cut into ``\\w+``
  words; shingles are the runs of 4 consecutive words, as a **multiset**, so text
  extracted twice is not free and a phrase the gold repeats must be found as often. A
  text of 1-3 words is one shorter shingle. Per page: precision = shared shingles /
  extracted shingles, recall = shared / gold shingles, F1 their harmonic mean. A page
  whose extraction is empty scores **P = 0, R = 0, F1 = 0** (a failed page costs
  precision too, rather than scoring a vacuous 1). Reported both as the mean of the
  per-page figures (each page counts once) and pooled (sum of the shingle counts over
  the pages; long pages weigh more).

How sure a difference between two extractors is (:func:`paired_difference`): a paired
bootstrap over the pages. Each resample draws as many pages as there are, with
replacement, the same draw for both extractors, and scores it as the set is scored
(snippets pooled again, shingles' F1 averaged again); the interval is the middle 95% of
the resampled differences. A gap whose interval holds 0 is within what another draw of
the same kind of pages could give.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

SHINGLE_WORDS = 4
#: Resamples of :func:`paired_difference`, and their seed: the same scores give the same
#: interval.
BOOTSTRAP_ROUNDS = 2000
BOOTSTRAP_SEED = 0
_WORD = re.compile(r"\w+")
_WHITESPACE = re.compile(r"\s+")


def normalize_space(text: str) -> str:
    """``text`` with each run of whitespace made one space, and stripped, and without soft
    hyphens: they are not seen (except at a line's end), and gold texts were copied with
    them in some pages and without them in others (trafilatura's set has both), so an
    extractor that keeps them and one that leaves them out would each miss some."""
    return _WHITESPACE.sub(" ", text.replace("\u00ad", "")).strip()


@dataclass(frozen=True, slots=True)
class SnippetCounts:
    """Confusion counts of keep / drop snippets (trafilatura's evaluation)."""

    tp: int = 0  # keep snippets found
    fp: int = 0  # drop snippets found
    fn: int = 0  # keep snippets missing
    tn: int = 0  # drop snippets absent

    def __add__(self, other: SnippetCounts) -> SnippetCounts:
        return SnippetCounts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn,
                             self.tn + other.tn)

    @property
    def precision(self) -> float:
        """TP / (TP + FP); 0 when no snippet was found."""
        found = self.tp + self.fp
        return self.tp / found if found else 0.0

    @property
    def recall(self) -> float:
        """TP / (TP + FN); 0 when there is no keep snippet."""
        wanted = self.tp + self.fn
        return self.tp / wanted if wanted else 0.0

    @property
    def accuracy(self) -> float:
        """(TP + TN) / all snippets; 0 when there are none."""
        total = self.tp + self.fp + self.fn + self.tn
        return (self.tp + self.tn) / total if total else 0.0

    @property
    def f1(self) -> float:
        """2TP / (2TP + FP + FN), the harmonic mean of precision and recall."""
        denominator = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / denominator if denominator else 0.0


def count_snippets(text: str | None, keep: Iterable[str], drop: Iterable[str]) -> SnippetCounts:
    """Count ``keep`` / ``drop`` snippets found in ``text`` (None: the extractor failed)."""
    keep, drop = list(keep), list(drop)
    if text is None:
        return SnippetCounts(fn=len(keep), tn=len(drop))
    haystack = normalize_space(text)
    tp = sum(normalize_space(snippet) in haystack for snippet in keep)
    fp = sum(normalize_space(snippet) in haystack for snippet in drop)
    return SnippetCounts(tp=tp, fp=fp, fn=len(keep) - tp, tn=len(drop) - fp)


def words(text: str) -> list[str]:
    """The lower-cased ``\\w+`` words of ``text``, soft hyphens left out (as
    :func:`normalize_space` does)."""
    return _WORD.findall(text.replace("\u00ad", "").lower())


def shingles(text: str, size: int = SHINGLE_WORDS) -> Counter[tuple[str, ...]]:
    """Multiset of the runs of ``size`` consecutive words; one shorter run for short text."""
    tokens = words(text)
    if not tokens:
        return Counter()
    if len(tokens) < size:
        return Counter([tuple(tokens)])
    return Counter(tuple(tokens[i:i + size]) for i in range(len(tokens) - size + 1))


@dataclass(frozen=True, slots=True)
class ShingleScore:
    """Shingle counts of one page or, summed, of many (the pooled score)."""

    matched: int = 0  # shingles both in the extraction and the gold (multiset intersection)
    extracted: int = 0
    gold: int = 0

    def __add__(self, other: ShingleScore) -> ShingleScore:
        return ShingleScore(self.matched + other.matched, self.extracted + other.extracted,
                            self.gold + other.gold)

    @property
    def precision(self) -> float:
        """Share of the extracted shingles that are gold; 0 for an empty extraction."""
        return self.matched / self.extracted if self.extracted else 0.0

    @property
    def recall(self) -> float:
        """Share of the gold shingles that were extracted; 0 for an empty gold."""
        return self.matched / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall; 0 when both are."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def score_shingles(
    extracted: str | None, gold: str | Counter[tuple[str, ...]], size: int = SHINGLE_WORDS
) -> ShingleScore:
    """Score ``extracted`` text against ``gold`` (a text, or its :func:`shingles`)."""
    gold_shingles = gold if isinstance(gold, Counter) else shingles(gold, size)
    found = shingles(extracted or "", size)
    return ShingleScore(
        matched=sum((found & gold_shingles).values()),
        extracted=sum(found.values()),
        gold=sum(gold_shingles.values()),
    )


@dataclass(frozen=True, slots=True)
class MeanScore:
    """Per-page precision, recall and F1 averaged over pages (each page counts once)."""

    precision: float
    recall: float
    f1: float
    pages: int


def mean_scores(scores: Iterable[ShingleScore]) -> MeanScore:
    """Average the per-page figures of ``scores``; all 0 for no pages."""
    scores = list(scores)
    if not scores:
        return MeanScore(0.0, 0.0, 0.0, 0)
    n = len(scores)
    return MeanScore(
        precision=sum(s.precision for s in scores) / n,
        recall=sum(s.recall for s in scores) / n,
        f1=sum(s.f1 for s in scores) / n,
        pages=n,
    )


def pooled(scores: Iterable[ShingleScore]) -> ShingleScore:
    """The sum of ``scores``: precision and recall over all their shingles at once."""
    return sum(scores, ShingleScore())


def resampled_f1(scores: list[SnippetCounts] | list[ShingleScore],
                 weights: np.ndarray) -> np.ndarray:
    """The F1 of ``scores`` (one a page) in each resample: ``weights`` holds, per resample
    (row), how many times each page (column) was drawn. Snippets are pooled, shingles'
    per-page F1 averaged, as each set is scored."""
    if scores and isinstance(scores[0], ShingleScore):
        f1 = np.array([s.f1 for s in scores])
        return weights @ f1 / len(f1)
    counts = np.array([(c.tp, c.fp, c.fn) for c in scores], dtype=np.float64).reshape(-1, 3)
    tp, fp, fn = (weights @ counts).T
    return 2 * tp / np.maximum(2 * tp + fp + fn, 1.0)


def paired_difference(ours: list[SnippetCounts] | list[ShingleScore],
                      theirs: list[SnippetCounts] | list[ShingleScore],
                      ) -> tuple[float, float, float]:
    """F1 points of ``ours`` less ``theirs`` (the same pages, in the same order), and the
    95% interval of a paired bootstrap over the pages (module doc)."""
    if len(ours) != len(theirs) or not ours:
        raise ValueError(f"need the same pages, got {len(ours)} and {len(theirs)}")
    pages = len(ours)
    draws = np.random.default_rng(BOOTSTRAP_SEED).multinomial(
        pages, np.full(pages, 1.0 / pages), size=BOOTSTRAP_ROUNDS)
    everyone = np.ones((1, pages))
    gap = 100 * float(resampled_f1(ours, everyone)[0] - resampled_f1(theirs, everyone)[0])
    low, high = np.percentile(100 * (resampled_f1(ours, draws) - resampled_f1(theirs, draws)),
                              [2.5, 97.5])
    return gap, float(low), float(high)
