"""mining: near-duplicates, page classification and search, with templates removed first.

:func:`page_texts` gives the text a task sees of each page (:class:`Mode`: all of it,
or what the site-level, page-level or main-content detectors keep);
:class:`NearDuplicateIndex` finds near-duplicates by MinHash or the paper's rule
(:class:`DedupConfig`); :class:`PageClassifier` is the Naive Bayes page classifier;
:class:`SearchIndex` a BM25 index of what a mode keeps (:class:`IndexSettings`).
"""

from typing import TYPE_CHECKING

from mining.content import PAGE_RECALL, Mode, page_texts
from mining.dedup import DedupConfig, NearDuplicateIndex

if TYPE_CHECKING:
    from mining.classify import PageClassifier
    from mining.search import IndexSettings, SearchIndex

__all__ = [
    "PAGE_RECALL",
    "DedupConfig",
    "IndexSettings",
    "Mode",
    "NearDuplicateIndex",
    "PageClassifier",
    "SearchIndex",
    "page_texts",
]


def __getattr__(name: str) -> object:
    """:class:`PageClassifier` on first use: it brings scikit-learn, whose import (about
    a second of CPU) ``mining dedup`` has no use for; the search classes likewise
    (tantivy)."""
    if name == "PageClassifier":
        from mining.classify import PageClassifier

        return PageClassifier
    if name in ("IndexSettings", "SearchIndex"):
        from mining import search

        return getattr(search, name)
    raise AttributeError(f"module 'mining' has no attribute {name!r}")
