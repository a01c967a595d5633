"""Ranked advertising keywords for a page: de-noise, find candidates, score, sort.

The defaults ship with the toolkit (``denoise/models``): a ranker trained by
``kwx train --denoise`` on the cross-domain benchmark's training pages, a
document-frequency table and a query-log table. The template detector is the shipped
model of repetition alone (:func:`denoise.detector.repetition_model_path`: for keywords
it de-noises better than ``denoise``'s default), cut at the recall the ranker was trained with
(stored in its file: chosen by cross-validation on its training pages, see
:func:`kwx.evaluation.choose_recall`), or at the recall the caller asks for.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Self

import numpy as np

from denoise.arguments import expect_page, expect_pages
from denoise.cleaning import Cleaner, Mode
from denoise.detector import TemplateDetector, repetition_model_path
from denoise.page import Page
from denoise.shipped import shipped
from denoise.steps import step_by_step
from kwx.candidates import Candidates, find_candidates
from kwx.document import kept_document
from kwx.features import feature_matrix
from kwx.listing import distinct_best
from kwx.ranker import KeywordRanker
from kwx.tables import JointTable, PhraseTable, TableFile
from kwx.text import MAX_WORDS, language_tokenizer

try:
    from kwx import _kernels
except ImportError:  # the compiled extension is optional
    _kernels = None

DEFAULT_RANKER = "kwx-ranker.npz"
DEFAULT_DF = "kwx-df.npz"
DEFAULT_QUERYLOG = "kwx-querylog.npz"
#: Share of a keyword list's slots for phrases of two or more words (kwx.listing).
DEFAULT_PHRASES = 0.3
#: Template recall of the detector when the ranker stores none (Kołcz & Yih 5.2 used 50%).
DEFAULT_RECALL = 0.5

PathLike = str | os.PathLike[str]


def ranker_recall(header: dict[str, object]) -> float:
    """The detector recall a ranker's header records (:data:`DEFAULT_RECALL` if none)."""
    recall = header.get("recall")
    return float(recall) if isinstance(recall, int | float) and 0 < recall <= 1 \
        else DEFAULT_RECALL


@dataclass(frozen=True, slots=True)
class Keyword:
    """One ranked keyword of a page."""

    phrase: str  # as first written on the page
    score: float  # the ranker's probability that it is a keyword
    count: int  # occurrences in the kept text


@dataclass(frozen=True, slots=True)
class PhraseStatistics:
    """The collection statistics features look up: document and query frequencies."""

    documents: PhraseTable | None = None
    queries: PhraseTable | None = None
    query_parts: PhraseTable | None = None
    joint: JointTable = field(init=False, repr=False, compare=False)  # the three, together

    @classmethod
    def load(cls, df: PathLike | None, querylog: PathLike | None) -> Self:
        """Tables from a DF file and a query-log file (either may be None)."""
        documents = TableFile.load(df, ["documents"]).tables["documents"] if df else None
        queries = query_parts = None
        if querylog:
            tables = TableFile.load(querylog, ["query", "query_part"]).tables
            queries, query_parts = tables["query"], tables["query_part"]
        return cls(documents, queries, query_parts)

    def __post_init__(self) -> None:
        object.__setattr__(self, "joint", JointTable(  # frozen: set once, here
            t for t in (self.documents, self.queries, self.query_parts) if t is not None))

    def features(self, candidates: Candidates) -> np.ndarray:
        """The candidates' feature matrix with these tables (one lookup for all three)."""
        found = iter(self.joint.lookup(candidates.hashes).T)
        df, query, part = (next(found) if t is not None else None
                           for t in (self.documents, self.queries, self.query_parts))
        return feature_matrix(
            candidates, df=df, query=query, query_part=part,
            pages=self.documents.total if self.documents is not None else 0,
            queries=self.query_parts.total if self.query_parts is not None else 0)


#: Up to this many best candidates are picked by one compiled pass (its cost grows with
#: the number asked for); more are sorted.
_FEW = 64


@dataclass(frozen=True, slots=True)
class ScoredCandidates:
    """A page's candidates with the ranker's scores, best first on demand: as a list
    (:func:`kwx.listing.distinct_best`: no fragment below the phrase that covers it, no
    second inflection, no bare number), or with ``distinct=False`` as ranked."""

    candidates: Candidates
    scores: np.ndarray  # float64 per candidate
    distinct: bool = True
    phrases: float = DEFAULT_PHRASES  # share of a list's slots for 2+ word phrases

    def top(self, n: int) -> list[Keyword]:
        """The ``n`` best candidates (ties: earlier on the page first)."""
        best = self.best(n)
        return [Keyword(phrase, score, tf) for phrase, score, tf in zip(
            self.candidates.phrases(best), self.scores[best].tolist(),
            self.candidates.tf[best].tolist(), strict=True)]

    def ranked_hashes(self, n: int) -> np.ndarray:
        """The hashes of the ``n`` best candidates (for evaluation)."""
        return self.candidates.hashes[self.best(n)]

    def best(self, n: int) -> np.ndarray:
        """Indices of the ``n`` best, in order (as a list unless ``distinct`` is off)."""
        if self.distinct:
            return distinct_best(self.candidates, self.scores, self._ranked, n, self.phrases)
        return self._ranked(n)

    def _ranked(self, n: int) -> np.ndarray:
        """Indices of the ``n`` best by score, in order: in one compiled pass for a few
        (:func:`kwx._kernels.best_indices`), else by sorting only those scoring at
        least the n-th best (a page has thousands of candidates and wants ten)."""
        scores = self.scores
        if _kernels is not None and 0 < n <= _FEW:
            return _kernels.best_indices(np.ascontiguousarray(scores, dtype=np.float64),
                                         np.ascontiguousarray(self.candidates.first,
                                                              dtype=np.int64), n)
        pool = np.arange(len(scores))
        if 0 < n < len(scores):
            nth = np.partition(scores, len(scores) - n)[len(scores) - n]
            pool = np.flatnonzero(scores >= nth)
        return pool[np.lexsort((self.candidates.first[pool], -scores[pool]))][:max(n, 0)]


class KeywordExtractor:
    """Scores a page's candidate phrases with a trained :class:`KeywordRanker`.

    Parameters
    ----------
    ranker : the trained ranker.
    statistics : DF and query-log tables (the ones the ranker was trained with).
    detector : template detector run first (Kołcz & Yih's DN: de-noising mode
        ``page`` at the detector's operating point); None keeps the whole page
        (mode ``none``). Each kept chunk's block score is also a feature.
    max_words : longest candidate phrase.
    phrases : share of a list's slots for phrases of two or more words (see
        :mod:`kwx.listing`).
    language : the language of every page (an ISO 639 code spaCy has a tokenizer for:
        its words and stop words); None tells each page's from its text, or from the
        language it declares where the text is too short (:func:`kwx.text.page_language`).
    """

    def __init__(self, ranker: KeywordRanker, *, statistics: PhraseStatistics,
                 detector: TemplateDetector | None = None, max_words: int = MAX_WORDS,
                 phrases: float = DEFAULT_PHRASES, language: str | None = None) -> None:
        if language is not None and language_tokenizer(language) is None:
            raise ValueError(f"no tokenizer for language {language!r}: spaCy has no such "
                             f"language, or the package its tokenizer needs is missing "
                             f"(Chinese and Japanese: the cjk extra)")
        if not (isinstance(max_words, int) and 1 <= max_words <= 10):
            raise ValueError(f"max_words must be an integer in [1, 10], got {max_words!r}")
        if not (isinstance(phrases, int | float) and 0.0 <= phrases <= 1.0):
            raise ValueError(f"phrases must be a share in [0, 1], got {phrases!r}")
        self.phrases = float(phrases)
        self.ranker = ranker
        self.statistics = statistics
        self.max_words = max_words
        self.language = language
        self.cleaner = Cleaner(Mode.none if detector is None else Mode.page, detector=detector)

    @property
    def detector(self) -> TemplateDetector | None:
        """The template detector run first (None: the whole page is kept)."""
        return self.cleaner.detector

    @classmethod
    def load(cls, *, ranker: PathLike | None = None, df: PathLike | None = None,
             querylog: PathLike | None = None, denoise: bool = True,
             detector: PathLike | None = None, recall: float | None = None,
             phrases: float = DEFAULT_PHRASES, language: str | None = None) -> Self:
        """An extractor from files; None means the shipped default of each. ``recall``
        is the detector's operating point (None: the one the ranker was trained with,
        else :data:`DEFAULT_RECALL`); ``phrases`` and ``language`` as in the class."""
        model = KeywordRanker.load(ranker or shipped(DEFAULT_RANKER))
        header = model.header_
        if recall is None:
            recall = ranker_recall(header)
        statistics = PhraseStatistics.load(df or shipped(DEFAULT_DF),
                                           querylog or shipped(DEFAULT_QUERYLOG))
        template = None
        if denoise:
            template = TemplateDetector.load(
                detector if detector is not None else repetition_model_path())
            template = template.at_recall(recall)
        return cls(model, statistics=statistics, detector=template, phrases=phrases,
                   language=language)

    def candidates(self, page: Page) -> Candidates:
        """The page's candidates (de-noised first when there is a detector)."""
        expect_page(page, "KeywordExtractor")
        return find_candidates(kept_document(self.cleaner(page)), self.max_words,
                               self.language)

    def score(self, page: Page) -> ScoredCandidates:
        """Every candidate of ``page`` with its score."""
        found = self.candidates(page)
        return ScoredCandidates(found, self.ranker.predict_proba(self.statistics.features(found)),
                                phrases=self.phrases)

    def extract(self, page: Page, top: int = 10) -> list[Keyword]:
        """The ``top`` best keywords of ``page``, best first."""
        return self.score(page).top(top)

    def extract_many(self, pages: Sequence[Page], top: int = 10,
                     ) -> list[list[Keyword] | Exception]:
        """:meth:`extract` of each page, or the exception it raised (a
        :class:`~denoise.errors.PageError` for a page that cannot be used), in order;
        worked step by step over all the pages (:func:`denoise.steps.step_by_step`), with
        the same keywords."""
        pages = list(expect_pages(pages, "KeywordExtractor.extract_many"))
        return step_by_step(pages, [
            *self.cleaner.steps(), kept_document,
            partial(find_candidates, max_words=self.max_words, language=self.language),
            lambda found: ScoredCandidates(found, self.ranker.predict_proba(
                self.statistics.features(found)), phrases=self.phrases),
            lambda ranked: ranked.top(top)])
