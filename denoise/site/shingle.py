"""``shingle``: the pagelet-and-shingle baseline the papers compare against.

Bar-Yossef & Rajagopalan (2002), as cited by Chen et al. and Chakrabarti et al.:
a page is cut into *pagelets* (the topmost elements none of whose children holds
3 or more links), each pagelet is identified by a shingle fingerprint of its text,
and a fingerprint on at least ``theta`` of a site's pages is template. Our
fingerprint is Broder's: the 8 smallest hashes of the word 4-grams of the
lower-cased text, so a small edit far from those 4-grams keeps the fingerprint;
a text of fewer than 4 words is fingerprinted whole.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable
from typing import ClassVar, Self

import numpy as np

from denoise.arrays import sorted_unique
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
    rule_labels,
)
from denoise.site.counts import DigestCounts, MemoryCounts

SHINGLE_WORDS = 4
SKETCH_SIZE = 8
_WORD = re.compile(r"\w+")
# Odd 64-bit multipliers that mix the four word hashes of a shingle.
_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                 0xD6E8FEB86659FD93], dtype=np.uint64)


def shingle_fingerprint(text: str) -> int:
    """Signed 64-bit fingerprint of ``text``: its 8 smallest word-4-gram hashes, digested."""
    words = _WORD.findall(text.lower())
    if len(words) < SHINGLE_WORDS:
        return digest(" ".join(words), b"g")
    ids = np.fromiter((zlib.crc32(w.encode()) for w in words), dtype=np.uint64, count=len(words))
    n = len(words) - SHINGLE_WORDS + 1
    hashes = np.zeros(n, dtype=np.uint64)
    for offset in range(SHINGLE_WORDS):
        hashes = hashes * np.uint64(31) + ids[offset:offset + n] * _MIX[offset]
    sketch = sorted_unique(hashes)[:SKETCH_SIZE]
    return digest(sketch.tobytes().hex(), b"g")


class ShingleMethod(SiteMethod):
    """Pagelets whose shingle fingerprint is on at least ``theta`` of the pages are template."""

    name: ClassVar[str] = "shingle"
    scheme: ClassVar[str] = "pagelets"

    def __init__(self, *, theta: float = 0.1, min_chars: int = 1,
                 counts: DigestCounts | None = None) -> None:
        self.theta = theta
        self.min_chars = min_chars
        self.counts = counts

    def fit(self, pages: Iterable[PageBlocks]) -> Self:
        """Count the pagelet fingerprints of ``pages`` (one site)."""
        check_fraction("theta", self.theta)
        self.counts_ = self.counts if self.counts is not None else MemoryCounts()
        for page in pages:
            eligible, keys = self._keys(page)
            self.counts_.add(page_key(page), keys[eligible], "shingle")
        self.pages_ = self.counts_.pages("shingle")
        return self

    def _keys(self, page: PageBlocks) -> tuple[np.ndarray, np.ndarray]:
        eligible = page.block_chars() >= self.min_chars
        keys = np.fromiter((shingle_fingerprint(page.block_text(i)) if ok else 0
                            for i, ok in enumerate(eligible.tolist())),
                           dtype=np.int64, count=len(page))
        return eligible, keys

    def label(self, page: PageBlocks) -> LabeledPage:
        """Label each pagelet of ``page``: template, content (unique) or unknown."""
        self._check_fitted()
        eligible, keys = self._keys(page)
        df, pages = page_frequencies(self.counts_, page_key(page), keys, "shingle")
        df = np.where(eligible, df, 0)
        labels, reasons = rule_labels(df, pages, self.theta)
        labels[~eligible] = Label.UNKNOWN
        reasons[~eligible] = REASON["short"]
        return LabeledPage(blocks=page, labels=labels,
                           support=(df / max(pages, 1)).astype(np.float32),
                           reasons=reasons, example=labels != Label.UNKNOWN)
