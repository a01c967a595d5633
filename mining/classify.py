"""Page classification: multinomial Naive Bayes over the words of a page's text.

Chakrabarti, Kumar & Punera (6.3) classify pages with "a Naive Bayes classifier" and
say no more; the choices here are the textbook ones (McCallum & Nigam 1998's
multinomial model): word counts, Laplace smoothing (``alpha=1``), class priors from
the training counts. Words are lower-cased runs of letters and digits of 2 to 40
characters (single letters carry little; longer runs are URLs and encoded data);
no stop list, no stemming (NB weighs common words down on its own).

Scikit-learn fits the model; what is kept is plain arrays (the vocabulary as UTF-8
text, the class log priors, the per-class word log probabilities) and a versioned
JSON header, and prediction is numpy sums over those arrays, so a model file holds
numbers and words only, never code.

The classifier works on texts. Which text of a page it was trained on (``denoise``:
``none``, ``site``, ``page``, ``main``; ``recall``: the page-level detector's operating point)
is a parameter stored with it, so :meth:`PageClassifier.texts` makes the same text
of new pages.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Self

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from denoise.arrayfile import ModelError, read_arrays, write_arrays
from denoise.cleaning import DEFAULT_MODE, PAGE_RECALL, Mode
from denoise.detector import TemplateDetector
from denoise.errors import PageError, not_fitted
from denoise.page import Page
from mining.content import page_texts, text_steps

FORMAT_KIND = "webdenoise-page-classifier"
FORMAT_VERSION = 1
#: A word: a run of letters and digits (no underscore), 2 to 40 characters, lower-cased.
WORD_PATTERN = r"[^\W_]+"
MIN_WORD, MAX_WORD = 2, 40
_WORD = re.compile(WORD_PATTERN)
#: What the header says of the tokenizer; a model made with another one is refused.
TOKENIZER = {"pattern": WORD_PATTERN, "min": MIN_WORD, "max": MAX_WORD, "lowercase": True}


#: Characters of a text lower-cased and split at once: the words of a piece are listed
#: whole, so memory follows this, not a 20 MB page's length.
_PIECE_CHARS = 1 << 20
_SPACE = re.compile(r"\s")


def words(text: str) -> list[str]:
    """The words of ``text`` as the classifier counts them."""
    return list(iter_words(text))


def iter_words(text: str) -> Iterator[str]:
    """:func:`words`, one at a time: the text is lower-cased and split in pieces of about
    :data:`_PIECE_CHARS`, each cut just after white space (which no word holds, and which
    ends a final sigma's context for ``str.lower``), so the words are those of the whole
    text."""
    start = 0
    while start < len(text):
        end = start + _PIECE_CHARS
        space = _SPACE.search(text, end) if end < len(text) else None
        end = space.end() if space is not None else len(text)
        for word in _WORD.findall(text[start:end].lower()):
            if MIN_WORD <= len(word) <= MAX_WORD:
                yield word
        start = end


class PageClassifier(ClassifierMixin, BaseEstimator):
    """Multinomial Naive Bayes over the words of a page's text.

    Parameters
    ----------
    alpha : additive (Laplace / Lidstone) smoothing of the word counts, > 0.
    fit_prior : learn the class priors from the training counts (else uniform).
    min_df : leave out words on fewer training texts than this.
    denoise : the text of a page the classifier reads (``none``: all of it; ``site``:
        without what the site-level method calls template; ``page``: without what
        the page-level detector calls template; ``main``: the page's main content
        alone; the default, :data:`denoise.cleaning.DEFAULT_MODE`: on templated pages of
        sites no model saw it scores 81.0% where ``none`` scores 55.2%). Stored, not
        used by :meth:`fit`.
    recall : for ``denoise="page"``, the detector's operating point (the share of an
        unseen site's template blocks it finds); None: ``mining.content.PAGE_RECALL``.

    Fitted attributes: ``classes_`` (labels, sorted), ``vocabulary_`` (words, in
    column order), ``class_log_prior_`` (n_classes), ``feature_log_prob_``
    (n_classes x n_words), ``class_count_`` (training texts per class).
    """

    def __init__(self, *, alpha: float = 1.0, fit_prior: bool = True, min_df: int = 1,
                 denoise: str = DEFAULT_MODE, recall: float | None = None) -> None:
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.min_df = min_df
        self.denoise = denoise
        self.recall = recall

    def _check_params(self) -> None:
        if not (isinstance(self.alpha, int | float) and not isinstance(self.alpha, bool)
                and np.isfinite(self.alpha) and self.alpha > 0):
            raise ValueError(f"alpha must be a positive number, got {self.alpha!r}")
        if not isinstance(self.fit_prior, bool | np.bool_):
            raise ValueError(f"fit_prior must be True or False, got {self.fit_prior!r}")
        if not (isinstance(self.min_df, int) and not isinstance(self.min_df, bool)
                and self.min_df >= 1):
            raise ValueError(f"min_df must be an integer >= 1, got {self.min_df!r}")
        if self.denoise not in set(Mode):
            raise ValueError(f"denoise must be one of {', '.join(Mode)}, "
                             f"got {self.denoise!r}")
        if self.recall is not None:
            if self.denoise != Mode.page:
                raise ValueError("recall is the page-level detector's: it needs denoise='page'")
            if not (isinstance(self.recall, int | float) and 0.0 < self.recall <= 1.0):
                raise ValueError(f"recall must be in (0, 1], got {self.recall!r}")

    def fit(self, X: Sequence[str], y: Sequence[str]) -> Self:
        """Learn from texts ``X`` and their labels ``y`` (at least two distinct labels)."""
        from sklearn.feature_extraction.text import CountVectorizer
        from sklearn.naive_bayes import MultinomialNB

        self._check_params()
        texts, labels = _texts(X), np.asarray([str(label) for label in y])
        if len(texts) != len(labels):
            raise ValueError(f"{len(texts)} texts but {len(labels)} labels")
        if len(set(labels.tolist())) < 2:
            raise ValueError("training needs texts of at least two labels, got "
                             f"{sorted(set(labels.tolist()))}")
        vectorizer = CountVectorizer(analyzer=words, min_df=self.min_df)
        try:
            counts = vectorizer.fit_transform(texts)
        except ValueError as error:  # "empty vocabulary": no text has a word
            raise ValueError(f"no words to learn from ({error})") from None
        model = MultinomialNB(alpha=float(self.alpha), fit_prior=bool(self.fit_prior))
        model.fit(counts, labels)
        self.classes_ = model.classes_.astype(str)
        self.vocabulary_ = vectorizer.get_feature_names_out().astype(str)
        self.class_log_prior_ = model.class_log_prior_.astype(np.float64)
        self.feature_log_prob_ = model.feature_log_prob_.astype(np.float64)
        self.class_count_ = model.class_count_.astype(np.int64)
        self._index = {word: i for i, word in enumerate(self.vocabulary_.tolist())}
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "feature_log_prob_"):
            raise not_fitted(self)

    def joint_log_likelihood(self, X: Sequence[str]) -> np.ndarray:
        """log P(label) + sum of log P(word | label) over each text's known words
        (texts x classes); words the model never saw are left out."""
        self._check_fitted()
        index, table = self._index, self.feature_log_prob_
        rows = []
        for text in _texts(X):
            known = np.fromiter((i for w in iter_words(text) if (i := index.get(w)) is not None),
                                dtype=np.intp)
            rows.append(table[:, known].sum(axis=1))
        scores = np.asarray(rows, dtype=np.float64).reshape(len(rows), len(self.classes_))
        return scores + self.class_log_prior_

    def predict_log_proba(self, X: Sequence[str]) -> np.ndarray:
        """Log posterior of each class (texts x classes)."""
        joint = self.joint_log_likelihood(X)
        top = joint.max(axis=1, keepdims=True)
        return joint - (top + np.log(np.exp(joint - top).sum(axis=1, keepdims=True)))

    def predict_proba(self, X: Sequence[str]) -> np.ndarray:
        """Posterior of each class (texts x classes). Naive Bayes posteriors are
        overconfident: they rank well, but are not calibrated."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X: Sequence[str]) -> np.ndarray:
        """The most probable label of each text (ties: the first label in sorted order)."""
        self._check_fitted()
        return self.classes_[self.joint_log_likelihood(X).argmax(axis=1)]

    def texts(self, pages: Iterable[Page], *, detector: TemplateDetector | None = None,
              on_error: Callable[[PageError], None] | None = None
              ) -> Iterator[tuple[Page, str]]:
        """Each page with the text this classifier reads (see ``denoise``), in input
        order; ``detector`` for ``page`` (default: the shipped one), cut at ``recall``
        (default :data:`mining.content.PAGE_RECALL`). Pages that cannot be parsed go
        to ``on_error`` (raised without one).

        Lazy for ``none``, ``page`` and ``main``; ``site`` reads the whole batch first (a page's
        template is what recurs on the other pages of its site in the batch).
        """
        self._check_params()
        if self.denoise != Mode.site:
            return page_texts(pages, self.denoise, detector=self._page_detector(detector),
                              on_error=on_error)
        held = list(pages)
        # page_texts groups by site, and hands back its own copies of the pages (without
        # their HTML): input order by id, a repeated id keeping its pages' own order
        order: dict[str, int] = {}
        for n, page in enumerate(held):
            order.setdefault(page.id, n)
        found = list(page_texts(held, self.denoise, on_error=on_error))
        found.sort(key=lambda pair: order[pair[0].id])
        return iter(found)

    def text_steps(self, detector: TemplateDetector | None = None
                   ) -> list[Callable[[Any], Any]]:
        """The steps from a page to the text :meth:`texts` gives this classifier (for
        ``none``, ``page`` and ``main``: :func:`mining.content.text_steps`), so that a
        batch can go through them one step at a time."""
        self._check_params()
        return text_steps(self.denoise, detector=self._page_detector(detector))

    def _page_detector(self, detector: TemplateDetector | None) -> TemplateDetector | None:
        """``detector`` (default: the shipped one) cut at this classifier's recall, for
        ``page``; None for the other modes."""
        if self.denoise != Mode.page:
            return None
        return (detector or TemplateDetector.load()).at_recall(
            float(self.recall) if self.recall is not None else PAGE_RECALL)

    def save(self, path: str | os.PathLike[str], extra: dict[str, object] | None = None) -> None:
        """Write the classifier to ``path`` (``.npz``) atomically; ``extra`` joins the header."""
        self._check_fitted()
        # fit_prior may be a numpy bool, which JSON cannot write
        params = {**self.get_params(), "fit_prior": bool(self.fit_prior)}
        header = {"kind": FORMAT_KIND, "format_version": FORMAT_VERSION,
                  "params": params, "tokenizer": TOKENIZER,
                  "classes": self.classes_.tolist(),
                  "class_count": self.class_count_.tolist(), **(extra or {})}
        vocabulary = np.frombuffer("\n".join(self.vocabulary_.tolist()).encode(), dtype=np.uint8)
        write_arrays(path, header, {"vocabulary": vocabulary,
                                    "class_log_prior": self.class_log_prior_,
                                    "feature_log_prob": self.feature_log_prob_})

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Self:
        """Read a classifier written by :meth:`save` (its header kept as ``header_``);
        :class:`ModelError` names the file and the problem."""
        source = str(path)
        header, arrays = read_arrays(path, FORMAT_KIND, FORMAT_VERSION, what="page classifier",
                                     rebuild="retrain it with 'mining classify train'")
        if header.get("tokenizer") != TOKENIZER:
            raise ModelError(source, "made with another tokenizer: retrain it with "
                             "'mining classify train'")
        try:
            model = cls(**dict(header["params"]))  # type: ignore[arg-type]
            model._check_params()
            model._set_arrays(header, arrays)
        except (KeyError, TypeError, ValueError, UnicodeDecodeError) as error:
            raise ModelError(source, f"corrupt page classifier ({error})") from None
        model.header_ = header
        return model

    def _set_arrays(self, header: dict[str, object], arrays: dict[str, np.ndarray]) -> None:
        """Fitted attributes from a saved file, every shape and value checked."""
        classes = header["classes"]
        if not (isinstance(classes, list) and len(classes) >= 2
                and all(isinstance(c, str) and c for c in classes)
                and len(set(classes)) == len(classes)):
            raise ValueError("classes must be two or more distinct labels")
        counts = np.asarray(header.get("class_count", [0] * len(classes)), dtype=np.int64)
        blob, prior, table = (arrays["vocabulary"], arrays["class_log_prior"],
                              arrays["feature_log_prob"])
        if blob.dtype != np.uint8 or blob.ndim != 1:
            raise ValueError("vocabulary must be UTF-8 bytes")
        vocabulary = blob.tobytes().decode("utf-8").split("\n") if len(blob) else []
        if prior.dtype.kind != "f" or table.dtype.kind != "f":
            raise ValueError("log probabilities must be floating point")
        if prior.shape != (len(classes),) or table.shape != (len(classes), len(vocabulary)) \
                or counts.shape != (len(classes),):
            raise ValueError(f"{len(classes)} classes and {len(vocabulary)} words do not match "
                             f"arrays of shape {prior.shape} and {table.shape}")
        if not vocabulary or len(set(vocabulary)) != len(vocabulary) \
                or any(words(w) != [w] for w in vocabulary):
            raise ValueError("vocabulary must be distinct words of the tokenizer")
        if not (np.isfinite(prior).all() and np.isfinite(table).all()
                and (prior <= 0).all() and (table <= 0).all()):
            raise ValueError("log probabilities must be finite and <= 0")
        if not (np.allclose(np.exp(prior).sum(), 1.0, atol=1e-6)
                and np.allclose(np.exp(table).sum(axis=1), 1.0, atol=1e-6)):
            raise ValueError("probabilities must sum to 1")
        self.classes_ = np.asarray(classes, dtype=str)
        self.vocabulary_ = np.asarray(vocabulary, dtype=str)
        self.class_log_prior_ = prior.astype(np.float64)
        self.feature_log_prob_ = table.astype(np.float64)
        self.class_count_ = counts
        self._index = {word: i for i, word in enumerate(vocabulary)}


def _texts(X: Sequence[str]) -> list[str]:
    """``X`` as a list of texts; a lone string is refused (it would be read letter by letter)."""
    if isinstance(X, str | bytes):
        raise ValueError("X must be a sequence of texts, not one string")
    texts = list(X)
    wrong = next((t for t in texts if not isinstance(t, str)), None)
    if wrong is not None:
        raise ValueError(f"X must hold texts (str), found a {type(wrong).__name__}")
    return texts
