"""Every error the toolkit raises on purpose, in one tree.

Exception tree::

    DenoiseError
    ├── PageError            one input page cannot be used (empty, binary, huge, ...)
    ├── StoreError           a fingerprint store is unreadable or was built differently
    ├── ModelError           a saved model, table or index cannot be used
    ├── LabelFileError       a labels file is malformed (mining classify)
    ├── NotGroupedError      input said to give each site's pages together did not
    ├── ResumeError          an interrupted run cannot be resumed
    ├── SparkUnavailable     Spark cannot run here (pyspark missing, did not start)
    └── SparkJobError        a Spark job failed beyond one page

An estimator used before it is fitted raises scikit-learn's
``sklearn.exceptions.NotFittedError`` (:func:`not_fitted`), as scikit-learn's own do;
it is imported only then, since importing scikit-learn takes seconds that
``denoise apply`` or ``mining dedup`` would otherwise pay at start.

Arguments of the wrong type raise ``TypeError``, values out of range ``ValueError``
(:mod:`denoise.arguments`): mistakes in the calling code, not in the data.
"""

from __future__ import annotations

__all__ = [
    "DenoiseError",
    "LabelFileError",
    "ModelError",
    "NotGroupedError",
    "PageError",
    "ResumeError",
    "SparkJobError",
    "SparkUnavailable",
    "StoreError",
    "not_fitted",
]


class DenoiseError(Exception):
    """Base class of every error the toolkit raises on purpose."""


class PageError(DenoiseError, ValueError):
    """One input page cannot be used; ``source`` names it, ``reason`` says why."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason


class StoreError(DenoiseError):
    """A fingerprint store cannot be opened or does not match the current settings."""


class SearchIndexError(DenoiseError):
    """A search index cannot be opened or written, or was made with other settings."""


class ModelError(DenoiseError):
    """A saved model or table cannot be used; the message names the file and the reason."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason


class LabelFileError(DenoiseError):
    """A label file cannot be used; the message names ``file:line`` and the reason."""

    def __init__(self, source: str, reason: str, line: int | None = None) -> None:
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {reason}")
        self.source = source
        self.line = line
        self.reason = reason


class NotGroupedError(DenoiseError, ValueError):
    """Input promised to give each site's pages together, and a site came back."""


class ResumeError(DenoiseError):
    """A run cannot be resumed: its progress file is missing, corrupt or disagrees."""


class SparkUnavailable(DenoiseError):
    """Spark cannot run here: pyspark (or pyarrow, pandas) is missing, or it did not start."""


class SparkJobError(DenoiseError):
    """A Spark job failed: an executor error that is not one page's :class:`PageError`."""


def not_fitted(estimator: object) -> Exception:
    """scikit-learn's ``NotFittedError`` for ``estimator``, to raise."""
    from sklearn.exceptions import NotFittedError

    name = type(estimator).__name__
    return NotFittedError(f"this {name} is not fitted yet: call fit() or load()")
