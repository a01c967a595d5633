"""``table-chunk``: Ma, Goharian & Chowdhury's table text chunks (section 3).

The text between the closest table (or image-map) tags is a chunk. Near-identical
pages are removed first with I-Match (Chowdhury et al. 2002): a page's signature
is a digest of its distinct words after dropping the most frequent ones, and pages
sharing a signature are counted once. Then, over the remaining pages, a chunk on
at least ``theta`` of them is template and every other chunk is content (the
paper has no third class). The paper leaves the threshold open; we default to the
10% used by the other methods. I-Match drops "the most frequent terms"; we drop
words on more than half of the site's pages, which removes the template's own
words and keeps what tells articles apart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import ClassVar, Self

import numpy as np

from denoise.blocks import PageBlocks
from denoise.site.base import (
    REASON,
    Label,
    LabeledPage,
    SiteMethod,
    check_fraction,
    digest,
    page_frequencies,
    page_key,
)
from denoise.site.counts import MemoryCounts

#: I-Match drops words on more than this share of the site's pages.
IMATCH_MAX_SHARE = 0.5
#: Namespace of chunk-text digests.
CHUNK_KIND = 0x63


class TableChunkMethod(SiteMethod):
    """Table text chunks on at least ``theta`` of a site's distinct pages are template."""

    name: ClassVar[str] = "table-chunk"
    scheme: ClassVar[str] = "table-chunks"

    def __init__(self, *, theta: float = 0.1) -> None:
        self.theta = theta

    def fit(self, pages: Iterable[PageBlocks]) -> Self:
        """Remove near-duplicate pages (I-Match), then count chunk digests (one site)."""
        check_fraction("theta", self.theta)
        words_of: list[tuple[str, frozenset[str], np.ndarray]] = []
        word_df: Counter[str] = Counter()
        for page in pages:
            words = frozenset(page.text.lower().split())
            word_df.update(words)
            words_of.append((page_key(page), words, page.block_digests(CHUNK_KIND)))
        limit = IMATCH_MAX_SHARE * len(words_of)
        counts = MemoryCounts()
        signatures: set[int] = set()
        self.duplicates_: list[str] = []
        for key, words, digests_ in words_of:
            kept = sorted(w for w in words if word_df[w] <= limit)
            signature = digest(" ".join(kept), b"i")
            if kept and signature in signatures:  # an empty signature tells nothing apart
                self.duplicates_.append(key.rpartition("#")[0])
                continue
            signatures.add(signature)
            counts.add(key, digests_, "chunk")
        self.counts_ = counts
        self.pages_ = counts.pages("chunk")
        return self

    def label(self, page: PageBlocks) -> LabeledPage:
        """Label each chunk of ``page``: template on >= theta of the distinct pages."""
        self._check_fitted()
        df, pages = page_frequencies(self.counts_, page_key(page),
                                     page.block_digests(CHUNK_KIND), "chunk")
        share = df / max(pages, 1)
        template = (share >= self.theta) & (df >= 2)
        labels = np.where(template, Label.TEMPLATE, Label.CONTENT).astype(np.int8)
        reasons = np.where(template, REASON["text"], REASON["frequent"]).astype(np.uint8)
        reasons[df == 1] = REASON["unique"]
        return LabeledPage(blocks=page, labels=labels, support=share.astype(np.float32),
                           reasons=reasons, example=np.ones(len(labels), dtype=bool))
