"""The keyword ranker: logistic regression over candidate features (Yih et al. 2006 found
it the best of their learners; Kołcz & Yih kept it).

Scikit-learn fits it on standardized features; what is kept is plain arrays (mean,
scale, coefficients) and a versioned JSON header, and scoring is one matrix product,
so a model file holds numbers only.
"""

from __future__ import annotations

import os
from typing import Self

import numpy as np

from denoise.arrayfile import ModelError, read_arrays, write_arrays
from denoise.errors import not_fitted
from kwx.features import FEATURE_NAMES

FORMAT_KIND = "webdenoise-keyword-ranker"
FORMAT_VERSION = 1


class KeywordRanker:
    """Scores candidates: the probability that a candidate is one of the page's keywords.

    Parameters
    ----------
    C : inverse regularization strength of the logistic regression.
    max_iter : iterations of the solver.
    """

    def __init__(self, *, C: float = 1.0, max_iter: int = 2000) -> None:
        self.C = C
        self.max_iter = max_iter

    def _check_params(self) -> None:
        if not (isinstance(self.C, int | float) and self.C > 0):
            raise ValueError(f"C must be a positive number, got {self.C!r}")
        if not (isinstance(self.max_iter, int) and self.max_iter > 0):
            raise ValueError(f"max_iter must be a positive integer, got {self.max_iter!r}")

    def fit(self, X: np.ndarray, y: np.ndarray) -> Self:
        """Learn from candidate rows ``X`` (columns FEATURE_NAMES) and labels ``y``."""
        from sklearn.linear_model import LogisticRegression

        self._check_params()
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=bool)
        if X.ndim != 2 or X.shape[1] != len(FEATURE_NAMES) or len(X) != len(y):
            raise ValueError(f"X must be (candidates, {len(FEATURE_NAMES)}) beside y, "
                             f"got {X.shape} and {y.shape}")
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
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "coef_"):
            raise not_fitted(self)

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Log-odds per candidate (ranks like the probability, cheaper). The
        standardization is folded into the weights: one product instead of two passes
        over a page's whole feature matrix first."""
        self._check_fitted()
        weights = self.coef_ / self.scale_
        return np.asarray(X, dtype=np.float64) @ weights + (
            self.intercept_ - float(self.mean_ @ weights))

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Probability that each candidate is a keyword."""
        return 1.0 / (1.0 + np.exp(-self.decision_function(X)))

    def weights(self) -> dict[str, float]:
        """Each feature's coefficient (on standardized features): what the ranker learned."""
        self._check_fitted()
        return dict(zip(FEATURE_NAMES, self.coef_.tolist(), strict=True))

    def save(self, path: str | os.PathLike[str], extra: dict[str, object] | None = None) -> None:
        """Write the ranker to ``path`` (``.npz``) atomically; ``extra`` joins the header."""
        self._check_fitted()
        header = {"kind": FORMAT_KIND, "format_version": FORMAT_VERSION,
                  "features": list(FEATURE_NAMES), "intercept": self.intercept_,
                  "params": {"C": self.C, "max_iter": self.max_iter},
                  "n_examples": self.n_examples_, **(extra or {})}
        write_arrays(path, header, {"mean": self.mean_, "scale": self.scale_,
                                    "coef": self.coef_})

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
            ranker.mean_, ranker.scale_, ranker.coef_ = (
                arrays["mean"].astype(np.float64), arrays["scale"].astype(np.float64),
                arrays["coef"].astype(np.float64))
            ranker.intercept_ = float(header["intercept"])
            ranker.n_examples_ = int(header.get("n_examples", 0))
            width = (len(FEATURE_NAMES),)
            if not all(a.shape == width for a in (ranker.mean_, ranker.scale_, ranker.coef_)):
                raise ValueError("coefficients do not match the features")
            if not (np.isfinite(ranker.coef_).all() and np.isfinite(ranker.mean_).all()
                    and (ranker.scale_ > 0).all() and np.isfinite(ranker.intercept_)):
                raise ValueError("coefficients must be finite, scales positive")
        except (KeyError, TypeError, ValueError) as error:
            raise ModelError(source, f"corrupt keyword ranker ({error})") from None
        ranker.header_ = header
        return ranker
