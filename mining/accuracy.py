"""How well predicted labels match the true ones: accuracy, per-class figures, confusion."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class ClassificationReport:
    """Predictions against the truth.

    ``labels`` are every label seen (true or predicted), sorted; ``confusion[i, j]``
    counts pages of true label ``labels[i]`` predicted ``labels[j]``.
    """

    labels: tuple[str, ...]
    confusion: np.ndarray  # int64, labels x labels

    @classmethod
    def of(cls, truth: Sequence[str], predicted: Sequence[str]) -> ClassificationReport:
        """The report of ``predicted`` against ``truth`` (same length)."""
        if len(truth) != len(predicted):
            raise ValueError(f"{len(truth)} true labels but {len(predicted)} predictions")
        labels = tuple(sorted({*map(str, truth), *map(str, predicted)}))
        index = {label: i for i, label in enumerate(labels)}
        confusion = np.zeros((len(labels), len(labels)), dtype=np.int64)
        for true, guess in zip(truth, predicted, strict=True):
            confusion[index[str(true)], index[str(guess)]] += 1
        return cls(labels, confusion)

    @property
    def total(self) -> int:
        """Pages counted."""
        return int(self.confusion.sum())

    @property
    def correct(self) -> int:
        """Pages given their true label."""
        return int(np.trace(self.confusion))

    @property
    def accuracy(self) -> float:
        """Share of pages given their true label (0 for no pages)."""
        return self.correct / self.total if self.total else 0.0

    def support(self) -> np.ndarray:
        """Pages of each true label."""
        return self.confusion.sum(axis=1)

    def precision(self) -> np.ndarray:
        """Per label: the share of pages predicted so that are so (0 where none is)."""
        predicted = self.confusion.sum(axis=0)
        return np.divide(np.diag(self.confusion), predicted, out=np.zeros(len(self.labels)),
                         where=predicted > 0)

    def recall(self) -> np.ndarray:
        """Per label: the share of its pages predicted so (0 where it has none)."""
        support = self.support()
        return np.divide(np.diag(self.confusion), support, out=np.zeros(len(self.labels)),
                         where=support > 0)

    def f1(self) -> np.ndarray:
        """Per label: the harmonic mean of precision and recall."""
        p, r = self.precision(), self.recall()
        return np.divide(2 * p * r, p + r, out=np.zeros(len(self.labels)), where=(p + r) > 0)

    def as_dict(self) -> dict[str, object]:
        """The report as plain data, for JSON."""
        return {
            "pages": self.total, "correct": self.correct, "accuracy": round(self.accuracy, 6),
            "classes": {label: {"precision": round(float(p), 6), "recall": round(float(r), 6),
                                "f1": round(float(f), 6), "support": int(s)}
                        for label, p, r, f, s in zip(self.labels, self.precision(),
                                                     self.recall(), self.f1(), self.support(),
                                                     strict=True)},
            "labels": list(self.labels), "confusion": self.confusion.tolist(),
        }
