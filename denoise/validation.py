"""Cross-site validation (Kołcz & Yih 4.1): never a site in both training and test.

Sites are grouped into *families* first: the same publisher captured in two
corpora or eras (``github-news-ctf/www.cnn.com`` and ``github-news-msv/cnn``) is one
site for the folds, or its template would be learnt in training and "found" in
test.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

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


#: Points of the threshold grid per-family curves are drawn on.
GRID_POINTS = 400


@dataclass(frozen=True, slots=True)
class FamilyCurves:
    """Precision and recall of each site family at each threshold of one grid.

    What a pooled curve hides: pooled over examples, a threshold's precision is carried
    by the sites with the most blocks, and on a new site it may be far lower. Here each
    family counts once. A family that calls nothing template at a threshold has
    precision 1 there (it removed nothing it should not have); one without template
    examples has no recall (``nan``).
    """

    families: np.ndarray  # str per family
    thresholds: np.ndarray  # decreasing
    precision: np.ndarray  # (families, thresholds)
    recall: np.ndarray  # (families, thresholds), nan for a family without template
    pooled_recall: np.ndarray  # per threshold, over every family's template examples

    @classmethod
    def of(cls, scores: np.ndarray, labels: np.ndarray, sites: Sequence[str],
           points: int = GRID_POINTS, pooled: np.ndarray | None = None) -> FamilyCurves:
        """The curves of out-of-fold ``scores`` (template = label 1) by the family of
        each example's site; ``pooled`` (bool per example, default all): the examples
        whose template blocks the pooled recall counts."""
        families = np.array([site_family(str(s)) for s in sites])
        names = np.unique(families)
        grid = np.unique(scores)
        if len(grid) > points:  # the scores' quantiles: as many examples between two points
            grid = np.unique(np.quantile(scores, np.linspace(0.0, 1.0, points)))
        grid = grid[::-1]
        precision = np.ones((len(names), len(grid)))
        recall = np.full((len(names), len(grid)), np.nan)
        counted = np.ones(len(labels), dtype=bool) if pooled is None else pooled
        found = np.zeros(len(grid))
        for row, name in enumerate(names):
            mask = families == name
            own, template = np.sort(scores[mask]), np.sort(scores[mask & (labels == 1)])
            called = len(own) - np.searchsorted(own, grid, side="left")
            hits = len(template) - np.searchsorted(template, grid, side="left")
            precision[row] = np.where(called > 0, hits / np.maximum(called, 1), 1.0)
            pooled_template = template if pooled is None else np.sort(
                scores[mask & (labels == 1) & counted])
            found += len(pooled_template) - np.searchsorted(pooled_template, grid, side="left")
            if len(template):
                recall[row] = hits / len(template)
        return cls(names, grid, precision, recall,
                   found / max(int(((labels == 1) & counted).sum()), 1))

    def curve(self, quantile: float | None = 0.5, without: str | None = None) -> Curve:
        """One curve for a new site: at each threshold, the ``quantile`` of the families'
        precisions (None: their mean) and their mean recall; ``without`` leaves a family
        out (to choose a threshold for it on the others)."""
        keep = self.families != without
        precision = self.precision[keep]
        value = (precision.mean(axis=0) if quantile is None
                 else np.quantile(precision, quantile, axis=0))
        return Curve(self.thresholds, value, np.nanmean(self.recall[keep], axis=0))

    def operating_curve(self, quantile: float | None = 0.5) -> Curve:
        """The curve a model stores: :meth:`curve`'s precision for a new site, and the
        recall pooled over every template block, so that a recall asked of the model
        (``--recall 0.5``) means what it meant with a pooled curve."""
        return replace(self.curve(quantile), recall=self.pooled_recall)

    def held_out(self, precision: float, quantile: float | None) -> tuple[np.ndarray, ...]:
        """Per family: the threshold chosen on the *other* families for ``precision``
        (:meth:`curve` with ``quantile``), and this family's precision and recall there."""
        chosen = np.array([self.curve(quantile, without=name).threshold_for_precision(precision)
                           for name in self.families])
        return (chosen, *self.at(chosen))

    def at(self, thresholds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each family's precision and recall at its own threshold (``thresholds``, one a
        family): at the grid's last threshold at or above it (precision 1 and recall 0
        above the grid)."""
        columns = np.minimum(np.searchsorted(-self.thresholds, -np.asarray(thresholds),
                                             side="right") - 1, len(self.thresholds) - 1)
        rows = np.arange(len(columns))
        inside = columns >= 0
        safe = np.maximum(columns, 0)
        return (np.where(inside, self.precision[rows, safe], 1.0),
                np.where(inside, self.recall[rows, safe], 0.0))
