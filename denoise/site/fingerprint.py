"""``fingerprint``: Kołcz & Yih's block-text digests counted over a site (sections 3, 4.1).

A block (one of the block tags) with at least 40 characters and 3 distinct words
is identified by a digest of its normalized text. Over a site's pages, a digest on
at least ``theta`` of the pages is template, a digest on exactly one page is
content, anything in between is left unknown (too uncertain to train on). Nested
unique blocks: only the topmost is kept as a training example, and no block that
holds a template or frequent block may be content.

Options beyond the paper:

- ``contained`` (Chakrabarti et al. 5.1): a block with at least this share of its
  text inside template blocks is template too. The paper measures HTML content;
  we measure text characters, which is what the toolkit labels.
- ``structure``: navigation bars whose words change from page to page ("Prev Up
  Chapter 5. Data Definition Home Next") escape a text digest. With this option a
  block is also identified by its *layout*: its DOM path, then its text with every
  run of non-link text masked as one ``*`` and each anchor text kept in brackets,
  its words masked unless they are in the anchor texts of at least ``theta`` of
  the site's pages. A block enters only with at least two links and two such fixed
  link words ("prev", "up", "home", "next") and at most 160 characters outside its
  links, so neither a paragraph of prose with links in it (rare anchor words) nor a
  container holding an article and its navigation bar is matched by layout.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import ClassVar, Self

import numpy as np

from denoise.blocks import PageBlocks, index_dom, segment_dom
from denoise.html import parse_html
from denoise.page import Page
from denoise.site.base import (
    REASON,
    Label,
    LabeledPage,
    PageKeys,
    SiteMethod,
    check_fraction,
    digest,
    page_frequencies,
    page_key,
    rule_labels,
)
from denoise.site.counts import DigestCounts, MemoryCounts
from denoise.texthash import distinct_words, text_digests
from denoise.treeops import and_down, or_up

try:
    from denoise import _compiled
except ImportError:  # the compiled extension is optional
    _compiled = None

#: Blocks of up to this many words have their distinct words counted exactly; a
#: longer block is taken to have at least 3: 40+ characters of 17+ words drawn from
#: two distinct words is degenerate repetition, and counting costs a Python call per
#: block on the per-page path.
_EXACT_WORDS_UP_TO = 16
#: What ``_compiled.counted_labels`` writes: label values, then reason codes.
_LABEL_CODES = (int(Label.CONTENT), int(Label.TEMPLATE), int(Label.UNKNOWN),
                *(REASON[name] for name in ("short", "unique", "frequent", "text",
                                            "holds-template")))
#: Namespaces of block-text and link-word digests.
TEXT_KIND = 0x74
WORD_KIND = 0x77
#: A navigation layout needs at least this many links, and as many fixed link words,
#: and at most this much text outside its links (a bar's varying titles are short;
#: a container that also holds the article is not a navigation bar).
MIN_FIXED_LINKS = 2
MAX_PROSE_CHARS = 160


def _link_words(page: PageBlocks) -> set[str]:
    """The distinct lower-cased words of the page's anchor texts."""
    return {w for chunk, link in zip(page.chunks, page.chunk_in_link.tolist(), strict=True)
            if link for w in chunk.lower().split()}


def eligible_blocks(page: PageBlocks, min_chars: int, min_unique_words: int) -> np.ndarray:
    """Blocks with enough text to be identified by it (bool per block).

    A block under a too-short block is skipped with it (Kołcz & Yih 4.1). Compiled
    where available (the loop of :func:`text_keys`, without the digests).
    """
    if not _compiled_fits(min_unique_words):
        return eligible_blocks_numpy(page, min_chars, min_unique_words)
    return _compiled_keys(page, min_chars, min_unique_words, digests=False)[0]


def eligible_blocks_numpy(page: PageBlocks, min_chars: int, min_unique_words: int
                          ) -> np.ndarray:
    """:func:`eligible_blocks` in numpy: the reference the compiled loop is tested on."""
    starts, ends = page.bounds
    words = page.text_index.word_counts(page.spans)
    eligible = ((ends - starts) >= min_chars) & (words >= min_unique_words)
    check = np.flatnonzero(eligible & (words <= _EXACT_WORDS_UP_TO))
    if len(check):
        eligible[check] = distinct_words(page.text, starts[check], ends[check],
                                         min_unique_words)
    return and_down(page.parents, eligible)


def text_keys(page: PageBlocks, min_chars: int, min_unique_words: int
              ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`eligible_blocks`, and the text digest of each eligible block (0 elsewhere):
    in one compiled loop where available (``min_unique_words`` <= 8 there), instead of
    some twenty numpy calls that cost more than the work on pages of a few hundred blocks.
    """
    if not _compiled_fits(min_unique_words):
        eligible = eligible_blocks_numpy(page, min_chars, min_unique_words)
        return eligible, np.where(eligible, page.block_digests(TEXT_KIND), 0)
    return _compiled_keys(page, min_chars, min_unique_words, digests=True)


def _compiled_fits(min_unique_words: int) -> bool:
    """Whether the compiled loop is built and counts this many distinct words (1..8)."""
    return _compiled is not None and 0 < min_unique_words <= 8


def _compiled_keys(page: PageBlocks, min_chars: int, min_unique_words: int, *,
                   digests: bool) -> tuple[np.ndarray, np.ndarray]:
    return _compiled.text_keys(
        page.text, page.chunk_starts.astype(np.int64, copy=False),
        page.chunk_ends.astype(np.int64, copy=False), page.text_index,
        page.spans.astype(np.int32, copy=False), page.parents.astype(np.int32, copy=False),
        min_chars, min_unique_words, _EXACT_WORDS_UP_TO, TEXT_KIND, digests)


@dataclass(frozen=True)
class TextKeys:
    """Which blocks of a page are identified by their text, and their text digests.

    Fit counts them and label looks them up, so they are computed once, when the page
    is segmented (on a worker process in a batch), and kept in the page's notes: a
    page waiting for the rest of its site, or read back from a spill file, has them.
    The notes are named by the settings, so keys made under others are not reused.
    """

    min_chars: int
    min_unique_words: int

    @property
    def name(self) -> str:
        return f"fingerprint.{self.min_chars}.{self.min_unique_words}"

    def of(self, page: PageBlocks) -> tuple[np.ndarray, np.ndarray]:
        """Eligible blocks (bool) and their digests (0 where not eligible), noted on
        ``page`` the first time (like a cached property: they follow from its text)."""
        notes = page.notes
        keys = notes.get(f"{self.name}.keys")
        if keys is not None:
            return notes[f"{self.name}.eligible"], keys
        eligible, keys = text_keys(page, self.min_chars, self.min_unique_words)
        notes[f"{self.name}.eligible"], notes[f"{self.name}.keys"] = eligible, keys
        return eligible, keys


@dataclass(frozen=True)
class _KeyedSegmenter:
    """Segment a page and note its text keys and page key (picklable, for worker
    processes).

    The text index the keys are made from is let go: nothing else of the method reads
    it, and it is 40% of a waiting page's bytes (:attr:`PageBlocks.text_index` makes it
    again if a caller wants it).
    """

    scheme: str
    keys: TextKeys
    shares_only: bool = False  # reduce the page to its text shares once it is noted

    def __call__(self, page: Page) -> PageBlocks:
        # the keys are made while the parsed tree is alive: freeing it first would push
        # the fresh text and its index out of the caches (in a stream the keys then took
        # nearly three times as long)
        dom = index_dom(parse_html(page.html, page.id))
        blocks = segment_dom(page, dom, self.scheme)
        self.keys.of(blocks)
        page_key(blocks)
        if self.shares_only:
            return blocks.text_shares_only()
        return replace(blocks, chunk_index=None)


class FingerprintMethod(SiteMethod):
    """Template / content labels from block-text digests counted over a site.

    Parameters
    ----------
    theta : share of the site's pages a digest must be on to be template.
    min_chars, min_unique_words : the least text a block needs to be labelled.
    contained : if set, a block with at least this share of its text inside
        template blocks is template too (Chakrabarti et al. use 0.85).
    structure : also match link-bearing blocks by masked structure (see module doc).
    counts : where the digest counts live; a fresh :class:`MemoryCounts` if None,
        or a site of a :class:`~denoise.site.counts.SiteStore` to accumulate runs.
    scheme : the segmentation counted: Kołcz & Yih's ``blocks``, or the ``regions``
        the page-level detector scores (its training labels).
    """

    name: ClassVar[str] = "fingerprint"
    scheme = "blocks"  # the default; an instance may count the page-level ``regions``

    def __init__(
        self,
        *,
        theta: float = 0.1,
        min_chars: int = 40,
        min_unique_words: int = 3,
        contained: float | None = None,
        structure: bool = False,
        counts: DigestCounts | None = None,
        scheme: str = "blocks",
    ) -> None:
        self.scheme = scheme
        self.theta = theta
        self.min_chars = min_chars
        self.min_unique_words = min_unique_words
        self.contained = contained
        self.structure = structure
        self.counts = counts

    def fit(self, pages: Iterable[PageBlocks]) -> Self:
        """Count the block digests of ``pages`` (one site); with ``structure``, two passes."""
        if not self.structure:
            return self.fit_keys(map(self._page_keys, pages))
        counts = self._fresh_counts()
        one_pass = iter(pages) is pages  # a generator cannot be read twice
        held = list(pages) if one_pass else pages
        for page in held:
            eligible, keys = self._text_keys(page)
            counts.add(page_key(page), keys[eligible], "text")
            counts.add(page_key(page), text_digests(_link_words(page), WORD_KIND), "words")
        for page in held:
            counts.add(page_key(page), self._structure_keys(page)[1], "structure")
        self.pages_ = counts.pages("text")
        return self

    def page_keys(self, page: PageBlocks) -> PageKeys | None:
        """The page's key and its eligible blocks' text digests; None with ``structure``
        (its second pass reads each page's links and layout)."""
        return None if self.structure else self._page_keys(page)

    def _page_keys(self, page: PageBlocks) -> PageKeys:
        eligible, keys = self._text_keys(page)
        return page_key(page), {"text": keys[eligible]}

    def fit_keys(self, keys: Iterable[PageKeys]) -> Self:
        """Count the text digests of each page's :meth:`page_keys` (one site)."""
        if self.structure:
            raise NotImplementedError("FingerprintMethod(structure=True) fits from whole "
                                      "pages only")
        counts = self._fresh_counts()
        for key, digests in keys:
            counts.add(key, digests["text"], "text")
        self.pages_ = counts.pages("text")
        return self

    def _fresh_counts(self) -> DigestCounts:
        """Check the settings, and the counts this fit adds to, as ``counts_``."""
        check_fraction("theta", self.theta)
        if self.contained is not None:
            check_fraction("contained", self.contained)
        self.counts_ = self.counts if self.counts is not None else MemoryCounts()
        return self.counts_

    def segmenter(self, *, shares_only: bool = False) -> Callable[[Page], PageBlocks]:
        """Segment, and note each page's text keys (:class:`TextKeys`); with
        ``shares_only``, reduce the page to its text shares, except with ``structure``
        (whose labels read links and layout)."""
        return _KeyedSegmenter(self.scheme, self._key_settings(),
                               shares_only and not self.structure)

    def _key_settings(self) -> TextKeys:
        return TextKeys(self.min_chars, self.min_unique_words)

    def _text_keys(self, page: PageBlocks) -> tuple[np.ndarray, np.ndarray]:
        return self._key_settings().of(page)

    def _structure_keys(self, page: PageBlocks) -> tuple[np.ndarray, np.ndarray]:
        """Indices of the eligible blocks with a navigation layout, and its digests."""
        eligible, _ = self._text_keys(page)
        spans = page.spans
        links_before = np.concatenate(([0], np.cumsum(page.chunk_in_link)))
        prose = page.chunk_chars() * ~page.chunk_in_link
        prose_before = np.concatenate(([0], np.cumsum(prose)))
        with_links = links_before[spans[:, 1]] - links_before[spans[:, 0]] >= MIN_FIXED_LINKS
        little_prose = prose_before[spans[:, 1]] - prose_before[spans[:, 0]] <= MAX_PROSE_CHARS
        chosen = np.flatnonzero(eligible & with_links & little_prose)
        words = sorted(_link_words(page))
        if not len(chosen) or not words:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        pages = max(self.counts_.pages("words"), 1)
        found = self.counts_.lookup(text_digests(words, WORD_KIND), "words")
        common = {w for w, n in zip(words, found.tolist(), strict=True)
                  if n >= 2 and n / pages >= self.theta}
        chunks, in_link = page.chunks, page.chunk_in_link.tolist()
        kept, keys = [], []
        for index, path in zip(chosen.tolist(), page.shape.paths(page.elements[chosen]),
                               strict=True):
            start, end = spans[index].tolist()
            parts, fixed = [path], 0
            for chunk, link in zip(chunks[start:end], in_link[start:end], strict=True):
                if not link:
                    if parts[-1] != "*":
                        parts.append("*")
                    continue
                tokens = [w if w in common else "*" for w in chunk.lower().split()]
                fixed += len(tokens) - tokens.count("*")
                parts.append("[" + " ".join(tokens) + "]")
            if fixed >= MIN_FIXED_LINKS:
                kept.append(index)
                keys.append(digest(" ".join(parts), b"s"))
        return np.array(kept, dtype=np.int64), np.array(keys, dtype=np.int64)

    def label(self, page: PageBlocks) -> LabeledPage:
        """Label the blocks of ``page``; its digests need not have been fitted."""
        self._check_fitted()
        eligible, keys = self._text_keys(page)
        n = len(page)
        df = np.zeros(n, dtype=np.int64)
        df[eligible], pages = page_frequencies(self.counts_, page_key(page), keys[eligible],
                                               "text")
        if _compiled is not None and not self.structure and self.contained is None:
            labels, reasons, support, example = _compiled.counted_labels(
                df, pages, self.theta, eligible, page.parents.astype(np.int32, copy=False),
                _LABEL_CODES)
            return LabeledPage(blocks=page, labels=labels, support=support, reasons=reasons,
                               example=example)
        # the same steps, with the options' rules between them
        labels, reasons = rule_labels(df, pages, self.theta)
        support = (df / max(pages, 1)).astype(np.float32)
        labels[~eligible] = Label.UNKNOWN
        reasons[~eligible] = REASON["short"]
        if self.structure:
            self._label_by_structure(page, labels, reasons, support)
        # A unique block holding a template or frequent block is no content example.
        holds = or_up(page.parents, eligible & ((df > 1) | (labels == Label.TEMPLATE)))
        demoted = (labels == Label.CONTENT) & holds
        labels[demoted] = Label.UNKNOWN
        reasons[demoted] = REASON["holds-template"]
        if self.contained is not None:
            self._label_contained(page, labels, reasons, support)
        parents = page.parents
        content = labels == Label.CONTENT
        parent_content = (parents >= 0) & content[parents]  # content[-1] is masked out
        example = (labels == Label.TEMPLATE) | (content & ~parent_content)
        return LabeledPage(blocks=page, labels=labels, support=support, reasons=reasons,
                           example=example)

    def _label_by_structure(self, page: PageBlocks, labels: np.ndarray, reasons: np.ndarray,
                            support: np.ndarray) -> None:
        indices, keys = self._structure_keys(page)
        if not len(indices):
            return
        df, pages = page_frequencies(self.counts_, page_key(page), keys, "structure")
        share = df / max(pages, 1)
        hit = (share >= self.theta) & (df >= 2) & (labels[indices] != Label.TEMPLATE)
        labels[indices[hit]] = Label.TEMPLATE
        reasons[indices[hit]] = REASON["structure"]
        support[indices[hit]] = share[hit]

    def _label_contained(self, page: PageBlocks, labels: np.ndarray, reasons: np.ndarray,
                         support: np.ndarray) -> None:
        chars = page.chunk_chars()
        template_chars = chars * page.covered(labels == Label.TEMPLATE)
        in_template = np.concatenate(([0], np.cumsum(template_chars)))
        total = np.concatenate(([0], np.cumsum(chars)))
        spans = page.spans
        block_chars = total[spans[:, 1]] - total[spans[:, 0]]
        share = (in_template[spans[:, 1]] - in_template[spans[:, 0]]) / np.maximum(block_chars, 1)
        hit = (share >= self.contained) & (block_chars > 0) & (labels != Label.TEMPLATE)
        labels[hit] = Label.TEMPLATE
        reasons[hit] = REASON["contained"]
        support[hit] = share[hit]
