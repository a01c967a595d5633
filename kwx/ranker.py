"""The keyword ranker: logistic regression over candidate features (Yih et al. 2006 found
it the best of their learners; Kołcz & Yih kept it), and a random forest that re-orders
each page's shortlist.

Logistic regression scores every candidate of a page (thousands) by one matrix
product; the forest re-scores the page's ``shortlist`` best of them. Why a second
stage (issue 31): on the keyword benchmark's two sites never seen
(``benchmarks/keywords.py``), a forest over the same features ranks better (Top-10
+14% and +8% without phrase slots): it learns interactions, such as a capitalized run
of two words that always occur together, that one weight a feature cannot. Walking
its trees for every candidate would cost more than the rest of ``kwx extract``; on
the shortlist it costs little, and it is trained on the shortlists of the training
pages, the rows it will see. 100 rows and 50 trees were chosen for speed (a quarter
of the walk of 200 and 100; no benchmark command compares the sizes).
``shortlist=0`` is the paper's ranker alone.

Scikit-learn fits both; what is kept is plain arrays (mean, scale, coefficients; the
forest's nodes, :mod:`denoise.forest`) and a versioned JSON header, so a model file
holds numbers only.
"""

from __future__ import annotations

import os
from typing import Self

import numpy as np

from denoise.arrayfile import ModelError, linear_arrays, read_arrays, write_arrays
from denoise.errors import not_fitted
from denoise.forest import checked_forest, flatten_forest, forest_proba
from kwx.features import FEATURE_NAMES

FORMAT_KIND = "webdenoise-keyword-ranker"
FORMAT_VERSION = 2
_FOREST = ("feature", "threshold", "left", "right", "value", "roots")


class KeywordRanker:
    """Scores candidates: the probability that a candidate is one of the page's keywords.

    Parameters
    ----------
    C : inverse regularization strength of the logistic regression.
    max_iter : iterations of the solver.
    shortlist : a page's best candidates by the logistic regression that the forest
        re-scores (0: no forest).
    n_estimators, min_samples_leaf : the forest's trees and smallest leaf (large
        leaves: probabilities that hold on new sites, and a small file).
    random_state : seed of the forest.
    """

    def __init__(self, *, C: float = 1.0, max_iter: int = 2000, shortlist: int = 100,
                 n_estimators: int = 50, min_samples_leaf: int = 50,
                 random_state: int = 0) -> None:
        self.C = C
        self.max_iter = max_iter
        self.shortlist = shortlist
        self.n_estimators = n_estimators
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state

    def _check_params(self) -> None:
        if not (isinstance(self.C, int | float) and self.C > 0):
            raise ValueError(f"C must be a positive number, got {self.C!r}")
        for name in ("max_iter", "n_estimators", "min_samples_leaf"):
            value = getattr(self, name)
            if not (isinstance(value, int) and value > 0):
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not (isinstance(self.shortlist, int) and self.shortlist >= 0):
            raise ValueError(f"shortlist must be an integer >= 0, got {self.shortlist!r}")
        if not isinstance(self.random_state, int):
            raise ValueError(f"random_state must be an integer, got {self.random_state!r}")

    def fit(self, X: np.ndarray, y: np.ndarray, groups: np.ndarray | None = None) -> Self:
        """Learn from candidate rows ``X`` (columns FEATURE_NAMES) and labels ``y``;
        ``groups`` gives each row's page (the forest learns from each page's shortlist;
        None: all rows are one page)."""
        from sklearn.linear_model import LogisticRegression

        self._check_params()
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=bool)
        groups = np.zeros(len(y), dtype=np.int64) if groups is None else np.asarray(groups)
        if X.ndim != 2 or X.shape[1] != len(FEATURE_NAMES) or len(X) != len(y):
            raise ValueError(f"X must be (candidates, {len(FEATURE_NAMES)}) beside y, "
                             f"got {X.shape} and {y.shape}")
        if groups.shape != y.shape:
            raise ValueError(f"groups must give one page a row, got {groups.shape}")
        if y.all() or not y.any():
            raise ValueError("training needs candidates of both kinds: keywords and others "
                             f"(got {int(y.sum())} keywords of {len(y)} candidates)")
        self.mean_ = X.mean(axis=0)
        scale = X.std(axis=0)
        self.scale_ = np.where(scale > 0, scale, 1.0)
        model = LogisticRegression(C=self.C, max_iter=self.max_iter)
        model.fit((X - self.mean_) / self.scale_, y)
        self.coef_ = model.coef_[0].astype(np.float64)
        self.intercept_ = float(model.intercept_[0])
        self.n_examples_ = len(y)
        self.forest_ = self._fit_forest(X, y, groups) if self.shortlist else None
        return self

    def _fit_forest(self, X: np.ndarray, y: np.ndarray, groups: np.ndarray,
                    ) -> dict[str, np.ndarray] | None:
        """The forest, fitted on each page's shortlist by the fitted logistic regression
        (None when the shortlists hold one kind of candidate only)."""
        from sklearn.ensemble import RandomForestClassifier

        linear = self.decision_function(X)
        order = np.lexsort((-linear, groups))
        page = groups[order]
        starts = np.flatnonzero(np.r_[True, page[1:] != page[:-1]])
        rank = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
        rows = np.sort(order[rank < self.shortlist])
        if y[rows].all() or not y[rows].any():
            return None
        forest = RandomForestClassifier(n_estimators=self.n_estimators,
                                        min_samples_leaf=self.min_samples_leaf,
                                        random_state=self.random_state)
        return flatten_forest(forest.fit(X[rows].astype(np.float32), y[rows]))

    def _check_fitted(self) -> None:
        if not hasattr(self, "coef_"):
            raise not_fitted(self)

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """The logistic regression's log-odds per candidate (the first stage). The
        standardization is folded into the weights: one product instead of two passes
        over a page's whole feature matrix first."""
        self._check_fitted()
        weights = self.coef_ / self.scale_
        return np.asarray(X, dtype=np.float64) @ weights + (
            self.intercept_ - float(self.mean_ @ weights))

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Probability that each candidate of *one page* (``X``) is a keyword: the
        forest's for the page's shortlist, the logistic regression's for the rest, held
        at or below the shortlist's lowest (so the shortlist ranks first)."""
        # clipped: a ranker fitted on a few pages can give scores whose exp overflows
        linear = 1.0 / (1.0 + np.exp(-np.clip(self.decision_function(X), -500.0, 500.0)))
        if self.forest_ is None or not len(linear):
            return linear
        if len(linear) > self.shortlist:
            short = np.argpartition(-linear, self.shortlist - 1)[: self.shortlist]
        else:
            short = np.arange(len(linear))
        chosen = forest_proba(self.forest_, np.asarray(X)[short])
        out = np.minimum(linear, chosen.min())
        out[short] = chosen
        return out

    def weights(self) -> dict[str, float]:
        """Each feature's coefficient (on standardized features): what the ranker learned."""
        self._check_fitted()
        return dict(zip(FEATURE_NAMES, self.coef_.tolist(), strict=True))

    def save(self, path: str | os.PathLike[str], extra: dict[str, object] | None = None) -> None:
        """Write the ranker to ``path`` (``.npz``) atomically; ``extra`` joins the header."""
        self._check_fitted()
        params = {name: getattr(self, name) for name in (
            "C", "max_iter", "shortlist", "n_estimators", "min_samples_leaf", "random_state")}
        header = {"kind": FORMAT_KIND, "format_version": FORMAT_VERSION,
                  "features": list(FEATURE_NAMES), "intercept": self.intercept_,
                  "params": params, "forest": self.forest_ is not None,
                  "n_examples": self.n_examples_, **(extra or {})}
        forest = {f"forest_{key}": self.forest_[key] for key in _FOREST} \
            if self.forest_ is not None else {}
        write_arrays(path, header, {"mean": self.mean_, "scale": self.scale_,
                                    "coef": self.coef_, **forest})

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Self:
        """Read a ranker written by :meth:`save` (its header kept as ``header_``);
        :class:`ModelError` names the file and the problem."""
        source = str(path)
        header, arrays = read_arrays(path, FORMAT_KIND, FORMAT_VERSION, what="keyword ranker",
                                     rebuild="retrain it with 'kwx train'")
        if header.get("features") != list(FEATURE_NAMES):
            raise ModelError(source, "trained on other features: retrain it with 'kwx train'")
        try:
            ranker = cls(**dict(header["params"]))
            ranker._check_params()
            ranker.mean_, ranker.scale_, ranker.coef_, ranker.intercept_ = linear_arrays(
                arrays, header["intercept"], len(FEATURE_NAMES))
            ranker.n_examples_ = int(header.get("n_examples", 0))
            ranker.forest_ = checked_forest(
                {key: arrays[f"forest_{key}"] for key in _FOREST},
                len(FEATURE_NAMES)) if header.get("forest") is True else None
        except (KeyError, TypeError, ValueError) as error:
            raise ModelError(source, f"corrupt keyword ranker ({error})") from None
        ranker.header_ = header
        return ranker
