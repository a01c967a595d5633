"""mining: near-duplicate detection and page classification, with templates removed first.

:func:`page_texts` gives the text a task sees of each page (:class:`Denoise`: all of it,
or what the site-level, page-level or main-content detectors keep);
:class:`NearDuplicateIndex` finds near-duplicates by MinHash or the paper's rule
(:class:`DedupConfig`); :class:`PageClassifier` is the Naive Bayes page classifier.
"""

from mining.classify import PageClassifier
from mining.content import PAGE_RECALL, Denoise, page_texts
from mining.dedup import DedupConfig, NearDuplicateIndex

__all__ = [
    "PAGE_RECALL",
    "DedupConfig",
    "Denoise",
    "NearDuplicateIndex",
    "PageClassifier",
    "page_texts",
]
