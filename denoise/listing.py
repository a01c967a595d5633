"""Listing pages: tell a page of items (a news front page, a shop's best sellers, a
topic's index) from an article, so that main-content mode reads it as one (step 8 of
:mod:`denoise.main_content`).

Main-content mode is made for articles: its models score teaser cards and linked item
titles as boilerplate (an article's "related stories" look the same), and its
link-density step drops lists of links. On a listing those items *are* the content,
and the article reading keeps a heading or an intro. The other reading, every block
as content and no link-density step (the furniture, landmark, comment, copy and tail
steps still choosing), keeps the items and ruins an article. On WCXB's development
split, read by held-out models, taking the better of the two on each page would lift
listings from 58.9 to 79.1 F1 and collections from 54.9 to 69.7 (an ad hoc script, not
a benchmark command); a fixed rule on the ratio of what the two keep
(``benchmarks/RESULTS.md``) gained at most a third of that on listings and lost on
Dragnet's blog posts, whose items reading adds the sidebars.

So a small model chooses: a logistic regression over the two readings (how much each
keeps, of the page and of each other, the share of it in anchors, headings and linked
headings, blocks and their lengths, and how boilerplate the models found what each
keeps and what the items reading adds), trained on pages of every main-content source
labelled by which reading matched their gold better, weighted by the difference.
Logistic regression: a score read in one product, twenty weights that carry across
sources; its threshold is chosen on held-out pages (:mod:`corpora.train_listing`).
"""

from __future__ import annotations

import os
from typing import Self

import numpy as np

from denoise.arrayfile import ModelError, linear_arrays, read_arrays, write_arrays
from denoise.errors import not_fitted

FORMAT_KIND = "webdenoise-listing-model"
FORMAT_VERSION = 1

#: The features of a page's two readings (:func:`denoise.main_content.listing_row`).
LISTING_FEATURES = (
    "log_first", "log_items", "log_page", "first_of_items", "first_in_items", "first_share",
    "items_share",
    "first_links", "items_links", "log_item_headings", "linked_headings",
    "log_first_blocks", "log_item_blocks", "log_first_block_chars", "log_item_block_chars",
    "items_comments", "content_share", "mean_score", "first_score", "added_score",
)


class ListingModel:
    """The probability that a page's items reading beats its article reading.

    Parameters
    ----------
    C : inverse regularization strength of the logistic regression.
    threshold : the probability above which a page is read as a listing (the trainer
        chooses it on held-out pages, :mod:`corpora.train_listing`).
    """

    def __init__(self, *, C: float = 1.0, threshold: float = 0.5) -> None:
        self.C = C
        self.threshold = threshold

    def fit(self, X: np.ndarray, better: np.ndarray, weight: np.ndarray) -> Self:
        """Learn from rows ``X`` (columns :data:`LISTING_FEATURES`): ``better`` says where
        the items reading scored higher, ``weight`` by how much either way."""
        from sklearn.linear_model import LogisticRegression

        self._check_params()
        X = np.asarray(X, dtype=np.float64)
        better = np.asarray(better, dtype=bool)
        weight = np.asarray(weight, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != len(LISTING_FEATURES) or not (
                len(X) == len(better) == len(weight)):
            raise ValueError(f"X must be (pages, {len(LISTING_FEATURES)}) beside one label "
                             f"and weight a page, got {X.shape}, {better.shape}, {weight.shape}")
        if better.all() or not better.any():
            raise ValueError("training needs pages where each reading is the better")
        self.mean_ = X.mean(axis=0)
        scale = X.std(axis=0)
        self.scale_ = np.where(scale > 0, scale, 1.0)
        model = LogisticRegression(C=self.C, max_iter=5000)
        model.fit((X - self.mean_) / self.scale_, better, sample_weight=weight)
        self.coef_ = model.coef_[0].astype(np.float64)
        self.intercept_ = float(model.intercept_[0])
        return self

    def _check_params(self) -> None:
        if not (isinstance(self.C, int | float) and self.C > 0):
            raise ValueError(f"C must be a positive number, got {self.C!r}")
        if not (isinstance(self.threshold, int | float) and 0 < self.threshold < 1):
            raise ValueError(f"threshold must be in (0, 1), got {self.threshold!r}")

    def is_listing(self, X: np.ndarray) -> np.ndarray:
        """Per row of ``X``: read the page as a listing (the items reading)."""
        return self.predict_proba(X) > self.threshold

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Per row of ``X``: the probability that the items reading is the better."""
        if not hasattr(self, "coef_"):
            raise not_fitted(self)
        z = (np.asarray(X, dtype=np.float64) - self.mean_) / self.scale_ @ self.coef_
        return 1.0 / (1.0 + np.exp(-(z + self.intercept_)))

    def save(self, path: str | os.PathLike[str], extra: dict[str, object] | None = None) -> None:
        """Write the model to ``path`` (``.npz``) atomically; ``extra`` joins the header."""
        if not hasattr(self, "coef_"):
            raise not_fitted(self)
        header = {"kind": FORMAT_KIND, "format_version": FORMAT_VERSION,
                  "features": list(LISTING_FEATURES), "intercept": self.intercept_,
                  "C": self.C, "threshold": self.threshold, **(extra or {})}
        write_arrays(path, header, {"mean": self.mean_, "scale": self.scale_,
                                    "coef": self.coef_})

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Self:
        """Read a model written by :meth:`save`; :class:`ModelError` names the file and
        the problem."""
        source = str(path)
        header, arrays = read_arrays(path, FORMAT_KIND, FORMAT_VERSION, what="listing model",
                                     rebuild="retrain it with 'python -m corpora.train_listing'")
        if header.get("features") != list(LISTING_FEATURES):
            raise ModelError(source, "trained on other features: retrain it with "
                             "'python -m corpora.train_listing'")
        try:
            model = cls(C=float(header["C"]), threshold=float(header["threshold"]))
            model._check_params()
            model.mean_, model.scale_, model.coef_, model.intercept_ = linear_arrays(
                arrays, header["intercept"], len(LISTING_FEATURES))
        except (KeyError, TypeError, ValueError) as error:
            raise ModelError(source, f"corrupt listing model ({error})") from None
        model.header_ = header
        return model
