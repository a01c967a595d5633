"""Training and evaluating the keyword ranker, and Kołcz & Yih's comparison (5.2).

Top-N score of one page (Yih et al. 2006): ``|A ∩ K_N| / min(|A|, N)``, with A the
annotated keywords and K_N the ranker's N best candidates, averaged over pages. A
keyword and a candidate match when their words agree in lower case (joiners like
the hyphen of "3-day" dropped, see :mod:`kwx.text`).

The configurations (Tables 1 and 2, and issue 31's main-content rows), all with the
same features and query log:

=============  ==============  ==============  ===================================
name           train pages     test pages      document frequencies from
=============  ==============  ==============  ===================================
ORD            as they are     as they are     the training pages
DN             as they are     de-noised       the training pages
DF             as they are     as they are     training and test pages
DN-DF          as they are     de-noised       training and test pages
DN_both        de-noised       de-noised       the training pages
DN-DF_both     de-noised       de-noised       training and test pages
other-DF       as they are     as they are     another collection (a DF table)
DN-main        as they are     main content    the training pages
DN-main_both   main content    main content    the training pages
=============  ==============  ==============  ===================================

"De-noised" is Kołcz & Yih's template removal by the page-level detector (text
``"page"``); "main content" keeps the main-content mode's text (``"main"``); "as
they are" is the whole page (``"none"``).

Where the paper is vague we chose: document frequencies always count whole pages
(a collection statistic, also for the ``_both`` rows); pages are counted once per
phrase. Significance: two-tailed paired t-test on the per-page scores against ORD at
95%, as the paper's footnote 3.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from denoise.cleaning import Cleaner
from denoise.detector import TemplateDetector
from denoise.errors import PageError
from kwx.candidates import Candidates, find_candidates
from kwx.document import kept_document, read_document
from kwx.extractor import PhraseStatistics, ScoredCandidates
from kwx.labelled import LabelledPage
from kwx.ranker import KeywordRanker
from kwx.tables import PhraseCounter, PhraseTable
from kwx.text import MAX_WORDS, key_hash

#: The N of the top-N scores the paper reports.
TOP_N = (1, 2, 3, 5, 10)


@dataclass(frozen=True, slots=True)
class PreparedPage:
    """A labelled page's candidates and its keywords' hashes."""

    id: str
    candidates: Candidates
    keys: np.ndarray  # uint64, distinct: the annotated keywords

    def labels(self) -> np.ndarray:
        """Per candidate: one of the annotated keywords."""
        return np.isin(self.candidates.hashes, self.keys)


def prepare(pages: Iterable[LabelledPage], *, detector: TemplateDetector | None = None,
            cleaner: Cleaner | None = None, max_words: int = MAX_WORDS,
            on_page: Callable[[LabelledPage], None] | None = None,
            on_error: Callable[[PageError], None] | None = None) -> list[PreparedPage]:
    """Candidates of each labelled page (de-noised when a ``detector`` is given, or by
    ``cleaner``: main-content mode, say). A page that cannot be parsed goes to
    ``on_error`` (raised without one)."""
    prepared = []
    for labelled in pages:
        keys = {key_hash(key) for key in labelled.keys} - {None}
        try:
            document = kept_document(cleaner(labelled.page)) if cleaner is not None \
                else read_document(labelled.page, detector)
            found = find_candidates(document, max_words)
        except PageError as error:
            if on_error is None:
                raise
            on_error(error)
            continue
        prepared.append(PreparedPage(labelled.page.id, found,
                                     np.array(sorted(keys), dtype=np.uint64)))
        if on_page is not None:
            on_page(labelled)
    return prepared


def document_frequencies(*collections: Sequence[PreparedPage]) -> PhraseTable:
    """The DF table of prepared pages: on how many pages each candidate occurs."""
    counter = PhraseCounter()
    for pages in collections:
        for page in pages:
            counter.add(page.candidates.hashes)
    return counter.table()


def fit_ranker(pages: Sequence[PreparedPage], statistics: PhraseStatistics,
               ranker: KeywordRanker | None = None) -> KeywordRanker:
    """Train ``ranker`` (a default :class:`KeywordRanker`) on every candidate of ``pages``."""
    if not pages:
        raise ValueError("no labelled pages to train on")
    X = np.concatenate([statistics.features(p.candidates) for p in pages])
    y = np.concatenate([p.labels() for p in pages])
    groups = np.repeat(np.arange(len(pages)), [len(p.candidates) for p in pages])
    return (ranker or KeywordRanker()).fit(X, y, groups)


def top_n_scores(ranked: np.ndarray, keys: np.ndarray, ns: Sequence[int] = TOP_N) -> np.ndarray:
    """``|A ∩ K_N| / min(|A|, N)`` for each N, for one page (``ranked``: best first)."""
    hits = np.cumsum(np.isin(ranked[: max(ns)], keys))
    scores = []
    for n in ns:
        found = hits[min(n, len(hits)) - 1] if len(hits) else 0
        scores.append(found / min(len(keys), n) if len(keys) else 0.0)
    return np.array(scores)


def page_scores(ranker: KeywordRanker, pages: Sequence[PreparedPage],
                statistics: PhraseStatistics, ns: Sequence[int] = TOP_N) -> np.ndarray:
    """Top-N scores of every page (pages x ns)."""
    rows = []
    for page in pages:
        scored = ScoredCandidates(page.candidates,
                                  ranker.predict_proba(statistics.features(page.candidates)))
        rows.append(top_n_scores(scored.ranked_hashes(max(ns)), page.keys, ns))
    return np.array(rows).reshape(len(pages), len(ns))


def paired_p_values(scores: np.ndarray, baseline: np.ndarray) -> np.ndarray:
    """Two-tailed paired t-test p-value per column (1.0 where the two never differ)."""
    from scipy.stats import ttest_rel

    values = []
    for column in range(scores.shape[1]):
        a, b = scores[:, column], baseline[:, column]
        values.append(1.0 if np.allclose(a, b) else float(ttest_rel(a, b).pvalue))
    return np.array(values)


def story_folds(pages: Sequence[LabelledPage], folds: int) -> np.ndarray:
    """Each page's fold: its story (the set of its keywords: copies of one story in
    several templates have the same) dealt into ``folds`` in turn, in order of first
    appearance, so no story is on both sides of a fold."""
    stories: dict[frozenset[str], int] = {}
    story = [stories.setdefault(frozenset(page.keys), len(stories)) for page in pages]
    return np.array(story, dtype=np.int64) % folds


#: Template recalls :func:`choose_recall` tries.
RECALLS = (0.3, 0.5, 0.7, 0.9)


def choose_recall(pages: Sequence[LabelledPage], detector: TemplateDetector, *,
                  statistics: Callable[[Sequence[PreparedPage]], PhraseStatistics],
                  denoise_train: bool = False, recalls: Sequence[float] = RECALLS,
                  folds: int = 5, on_recall: Callable[[float, float], None] | None = None,
                  on_error: Callable[[PageError], None] | None = None) -> float:
    """The detector's operating point, chosen on training pages alone.

    Cross-validation over ``pages``, dealt into folds in turn by story
    (:func:`story_folds`: copies of a story in other templates share a fold; the folds
    are cross-domain tests when each page is from its own site, as in the keyword
    benchmark; pages of one site in several folds make them easier): a ranker trained
    on the other folds (as they are, or de-noised with ``denoise_train``; tables from
    ``statistics(training folds)``) scores the held-out fold de-noised at each recall;
    the recall with the best mean top-N score wins. Test pages are never looked at, so
    a comparison stays fair; Kołcz & Yih fixed 50% without saying why.

    A page that cannot be parsed goes to ``on_error`` (raised without one) and is left
    out. ``ValueError`` when fewer than ``folds`` pages remain, or a training fold
    holds no keyword.
    """
    parsed: list[LabelledPage] = []
    raw = prepare(pages, on_page=parsed.append, on_error=on_error)
    if len(raw) < folds:
        raise ValueError(f"{len(raw)} pages cannot make {folds} folds")
    fold_of = story_folds(parsed, folds)
    best, best_score = recalls[0], -1.0
    for recall in recalls:
        denoised = prepare(parsed, detector=detector.at_recall(recall))
        learn_from = denoised if denoise_train else raw
        scores = []
        for fold in range(folds):
            train = [p for p, f in zip(learn_from, fold_of, strict=True) if f != fold]
            test = [p for p, f in zip(denoised, fold_of, strict=True) if f == fold]
            tables = statistics([p for p, f in zip(raw, fold_of, strict=True) if f != fold])
            scores.append(page_scores(fit_ranker(train, tables), test, tables))
        score = float(np.concatenate(scores).mean())
        if on_recall is not None:
            on_recall(recall, score)
        if score > best_score:
            best, best_score = recall, score
    return best


@dataclass(frozen=True, slots=True)
class Configuration:
    """One row of the tables: the text the ranker is trained and tested on (``"none"``,
    ``"page"`` or ``"main"``: see the module notes) and where DF comes from."""

    name: str
    train_text: str
    test_text: str
    df: str  # "train", "both" or "other"


CONFIGURATIONS = (
    Configuration("ORD", "none", "none", "train"),
    Configuration("DN", "none", "page", "train"),
    Configuration("DF", "none", "none", "both"),
    Configuration("DN-DF", "none", "page", "both"),
    Configuration("DN_both", "page", "page", "train"),
    Configuration("DN-DF_both", "page", "page", "both"),
    Configuration("other-DF", "none", "none", "other"),
    Configuration("DN-main", "none", "main", "train"),
    Configuration("DN-main_both", "main", "main", "train"),
)


@dataclass(frozen=True, slots=True)
class ConfigurationResult:
    """A configuration's per-page top-N scores and its test against ORD."""

    configuration: Configuration
    scores: np.ndarray  # pages x TOP_N
    p_values: np.ndarray  # per N, against the first configuration compared (ORD)

    @property
    def means(self) -> np.ndarray:
        return self.scores.mean(axis=0) if len(self.scores) else np.zeros(self.scores.shape[1])


def compare(train: dict[str, Sequence[PreparedPage]], test: dict[str, Sequence[PreparedPage]],
            *, queries: PhraseTable | None, query_parts: PhraseTable | None,
            other_df: PhraseTable | None, configurations: Sequence[Configuration] = CONFIGURATIONS,
            ranker: Callable[[], KeywordRanker] = KeywordRanker,
            ns: Sequence[int] = TOP_N) -> list[ConfigurationResult]:
    """Score every configuration whose texts are given; ``train`` and ``test`` map a
    text (``"none"``, ``"page"``, ``"main"``) to the prepared pages (DF comes from
    ``train["none"]``, with ``test["none"]`` for ``both``; other-DF needs ``other_df``).
    p-values are against the first configuration scored (ORD in
    :data:`CONFIGURATIONS`)."""
    frequencies: dict[str, PhraseTable | None] = {"other": other_df}

    def frequency(source: str) -> PhraseTable | None:
        if source not in frequencies:
            frequencies[source] = document_frequencies(
                train["none"], *((test["none"],) if source == "both" else ()))
        return frequencies[source]

    rankers: dict[tuple[str, str], tuple[KeywordRanker, PhraseStatistics]] = {}
    results: list[ConfigurationResult] = []
    baseline = None
    for configuration in configurations:
        if (configuration.df == "other" and other_df is None) or \
                configuration.train_text not in train or configuration.test_text not in test:
            continue
        key = (configuration.train_text, configuration.df)
        if key not in rankers:
            statistics = PhraseStatistics(frequency(configuration.df), queries, query_parts)
            rankers[key] = (fit_ranker(train[configuration.train_text], statistics,
                                       ranker()), statistics)
        fitted, statistics = rankers[key]
        scores = page_scores(fitted, test[configuration.test_text], statistics, ns)
        if baseline is None:
            baseline = scores
        results.append(ConfigurationResult(configuration, scores,
                                           paired_p_values(scores, baseline)))
    return results
