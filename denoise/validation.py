"""Cross-site validation (Kołcz & Yih 4.1): never a site in both training and test.

Sites are grouped into *families* first: the same publisher captured in two
corpora or eras (``github-news-ctf/www.cnn.com`` and ``github-news-msv/cnn``) is one
site for the folds, or its template would be learnt in training and "found" in
test.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

_PREFIXES = re.compile(r"^(www\d?|news|entertainment|m|en)\.")


def site_family(site: str) -> str:
    """The publisher a site belongs to: its folder or host without common prefixes and
    suffixes (``news.bbc.co.uk``, ``bbc.co.uk_news`` and ``bbc`` are all ``bbc``)."""
    name = site.rstrip("/").rsplit("/", 1)[-1].lower()
    while True:
        stripped = _PREFIXES.sub("", name)
        if stripped == name:
            break
        name = stripped
    return re.split(r"[._]", name)[0] or name


def site_folds(sites: Sequence[str], n_folds: int) -> list[np.ndarray]:
    """Indices of ``sites`` in ``n_folds`` test folds, whole site families per fold.

    Families are dealt largest first to the fold with the fewest items so far, so
    folds come out near equal in size; deterministic for the same input.
    """
    families = np.array([site_family(s) for s in sites])
    names, counts = np.unique(families, return_counts=True)
    if n_folds < 2:
        raise ValueError(f"need at least 2 folds, got {n_folds}")
    if len(names) < n_folds:
        raise ValueError(f"{len(names)} site families cannot fill {n_folds} folds: "
                         "give more sites or fewer folds")
    sizes = np.zeros(n_folds, dtype=np.int64)
    fold_of: dict[str, int] = {}
    for index in np.argsort(-counts, kind="stable"):
        fold = int(np.argmin(sizes))
        fold_of[str(names[index])] = fold
        sizes[fold] += counts[index]
    assigned = np.array([fold_of[f] for f in families])
    return [np.flatnonzero(assigned == fold) for fold in range(n_folds)]


def cross_site_predictions(items: Sequence, n_folds: int,
                           fit_and_score: Callable[[list, list], list[np.ndarray]],
                           on_fold: Callable[[int], None] | None = None) -> list[np.ndarray]:
    """Scores of every item from a model that never saw its site.

    ``items`` have a ``site``; ``fit_and_score(train, test)`` fits on the train items
    and returns one score array per test item.
    """
    out: list[np.ndarray | None] = [None] * len(items)
    for fold, test in enumerate(site_folds([item.site for item in items], n_folds)):
        test_set = set(test.tolist())
        train = [item for index, item in enumerate(items) if index not in test_set]
        for index, scores in zip(test.tolist(), fit_and_score(train, [items[i] for i in test]),
                                 strict=True):
            out[index] = scores
        if on_fold is not None:
            on_fold(fold)
    missing = [index for index, scores in enumerate(out) if scores is None]
    if missing:  # folds cover every item; a gap would be a bug in site_folds
        raise RuntimeError(f"items {missing[:5]} were in no test fold")
    return out  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Curve:
    """A precision-recall curve: at each threshold, what scoring >= it achieves."""

    thresholds: np.ndarray  # decreasing
    precision: np.ndarray
    recall: np.ndarray

    def recall_at(self, precision: float) -> float:
        """The best recall with at least ``precision`` (0 if never reached)."""
        ok = self.precision >= precision
        return float(self.recall[ok].max()) if ok.any() else 0.0

    def threshold_for_recall(self, recall: float) -> float:
        """The highest threshold whose recall reaches ``recall``."""
        ok = np.flatnonzero(self.recall >= recall)
        return float(self.thresholds[ok[0]]) if len(ok) else float(self.thresholds[-1])

    def threshold_for_precision(self, precision: float) -> float:
        """The threshold giving the most recall at ``precision`` or better (the point
        :meth:`recall_at` reports); the highest such threshold. Above the top score
        when no threshold reaches the precision: nothing is then called template."""
        ok = np.flatnonzero(self.precision >= precision)
        if not len(ok):
            return float(self.thresholds[0]) + 1e-9
        best = ok[self.recall[ok] == self.recall[ok].max()]
        return float(self.thresholds[best[0]])

    def at(self, threshold: float) -> tuple[float, float]:
        """Precision and recall of scoring >= ``threshold``."""
        index = np.searchsorted(-self.thresholds, -threshold, side="right") - 1
        if index < 0:
            return 1.0, 0.0
        return float(self.precision[index]), float(self.recall[index])

    def sampled(self, points: int = 201) -> Curve:
        """At most ``points`` points of the curve, evenly spaced in recall."""
        if len(self.thresholds) <= points:
            return self
        targets = np.linspace(0.0, 1.0, points)
        index = np.unique(np.minimum(np.searchsorted(self.recall, targets), len(self.recall) - 1))
        return Curve(self.thresholds[index], self.precision[index], self.recall[index])

    def as_dict(self) -> dict[str, list[float]]:
        """Plain lists, for JSON."""
        return {"thresholds": [round(float(v), 6) for v in self.thresholds],
                "precision": [round(float(v), 6) for v in self.precision],
                "recall": [round(float(v), 6) for v in self.recall]}

    @classmethod
    def from_dict(cls, data: dict[str, list[float]]) -> Curve:
        """The inverse of :meth:`as_dict`."""
        arrays = [np.asarray(data[k], dtype=np.float64)
                  for k in ("thresholds", "precision", "recall")]
        if not len(arrays[0]) or len({len(a) for a in arrays}) != 1:
            raise ValueError("operating curve arrays are empty or differ in length")
        return cls(*arrays)


def pr_curve(scores: np.ndarray, labels: np.ndarray,
             weights: np.ndarray | None = None) -> Curve:
    """Precision and recall of "template" (label 1) at every distinct score."""
    if not len(scores):
        raise ValueError("no examples to draw a precision-recall curve from")
    if weights is None:
        weights = np.ones(len(scores))
    order = np.argsort(-scores, kind="stable")
    scores, labels, weights = scores[order], labels[order], weights[order]
    true = np.cumsum(weights * (labels == 1))
    false = np.cumsum(weights * (labels == 0))
    last = np.r_[np.flatnonzero(scores[1:] != scores[:-1]), len(scores) - 1]
    positives = max(true[-1], 1e-12) if len(true) else 1.0
    precision = true[last] / np.maximum(true[last] + false[last], 1e-12)
    return Curve(scores[last], precision, true[last] / positives)
