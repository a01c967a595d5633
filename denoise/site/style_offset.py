"""``style-offset``: Chen, Ye & Li (2006), template words found by layout style and word offsets.

Sections 3 to 3.3.3 of the paper, over the ``layout`` segmentation (its layout
tags without TD and TR):

- Block-style clusters (3.1, definition 1). Blocks with the same position and the
  same look attributes form one BSC. A block's position is the sequence of its
  sibling ranks in the block tree, from the top down (the paper's "32": third block
  of the first layer, second of the second); its look is ``Block.attrs``.
- Offset sequences (3.2, 3.3.1). A block's words are its *own* words: those of the
  text chunks whose innermost layout block it is, lower-cased, so nested layout
  blocks are separate units, as in the paper's block tree. A word's offset sequence
  in a block lists its occurrences as difference offsets: the first position, then
  the gaps between consecutive occurrences.
- Signatures (3.3.2). The sequence is split into four segments as equal in length
  as possible (a sequence shorter than four fills the first segments); each offset
  ``v`` sets bit ``v % 32`` of its segment's 32-bit integer, so a signature is four
  ``uint32``. Two signatures are *similar* when their overlap, ``popcount(a & b) /
  max(popcount(a), popcount(b))`` over the 128 bits, is at least ``similarity``
  (0.8). The paper only says the arrays "share a large number of 1's"; dividing by
  the larger popcount makes the test symmetric and keeps a signature with many bits
  from matching a sparse one it merely contains.
- Word-feature clusters (3.2, definition 2). For each (BSC, word), the blocks'
  signatures are clustered in a single pass: a signature joins the first cluster
  whose representative (its first member's signature) it is similar to, else it
  opens a new cluster. A cluster's size is the number of distinct pages in it; as
  positions are unique within a page, that is also its number of blocks.
- Template words and blocks (definition 3, 3.2). A word is a template word of a
  block if its signature falls in a cluster of at least ``min_blocks`` (5) blocks.
  A block is template if at least ``template_ratio`` (0.8) of its distinct own
  words are template words. The paper also stops checking a block once its
  non-template words exceed ``early_exit`` (0.2) of them: it is content. The count
  of non-template words only grows as words are checked, so the exit fires exactly
  when the block's full count exceeds the threshold. The labels are therefore
  computed for all words at once, with the exit as a second condition: template iff
  ``ratio >= template_ratio`` and ``1 - ratio <= early_exit``. (With the defaults
  the two are the same condition; a smaller ``early_exit`` makes the rule stricter.)
  The reported ``support`` is the full template-word ratio, not the partial ratio
  at the exit.
- Low-DF words (3.3.3). Words on fewer than ``min_df`` (3) pages of the site are
  skipped: they count as non-template words.

``fit`` builds the clusters; ``label`` matches every page, fitted or new, against
them the same way: each (BSC, word) signature of the page is matched to the first
similar cluster representative of that (BSC, word), whose size decides. For a page
seen in ``fit`` that is the cluster it joined there. After ``fit``, only the (BSC,
word) pairs that can yield a template word are kept (the word is on ``min_df``
pages and one of its clusters has ``min_blocks`` blocks); for the others every
match gives a non-template word anyway.

Beyond the paper, ``max_clusters`` bounds the clusters of one (BSC, word): a
frequent word of a content block opens a new cluster on nearly every page, and
without a bound the single pass is quadratic in the number of pages. When the bound
is reached, a new signature replaces the oldest cluster that holds a single block,
or is dropped if there is none.

Labels: ``template`` (reason ``offset``), ``content`` (reason
``few-template-words``), and ``unknown`` (reason ``short``) for a block without own
words. ``support`` is the template-word ratio; every labelled block is an example.
A label covers the block's own text only (``LabeledPage.own_text_only``): a
template block may hold content blocks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import chain, repeat
from typing import ClassVar, Self

import numpy as np

from denoise.arrays import sorted_unique
from denoise.blocks import PageBlocks
from denoise.site.base import REASON, Label, LabeledPage, SiteMethod, check_fraction

#: Bits per segment of a signature, and segments per signature (Chen 3.3.2).
SEGMENT_BITS = 32
SEGMENTS = 4
#: Words are runs of word characters, lower-cased.
_WORD = re.compile(r"\w+")
#: A (BSC, word) pair is packed into one int: BSC id above, word id in the low bits.
_KEY_SHIFT = 32
#: Slack for float thresholds compared with counts (0.7 * 10 is 7.000000000000001).
_EPSILON = 1e-9

if hasattr(np, "bitwise_count"):  # numpy >= 2.0

    def popcount_rows(signatures: np.ndarray) -> np.ndarray:
        """Set bits per row of an ``(n, 4)`` uint32 signature array (int32)."""
        return np.bitwise_count(signatures).sum(axis=1, dtype=np.int32)

else:  # pragma: no cover - numpy 1.x
    _BYTE_BITS = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)

    def popcount_rows(signatures: np.ndarray) -> np.ndarray:
        """Set bits per row of an ``(n, 4)`` uint32 signature array (int32)."""
        as_bytes = np.ascontiguousarray(signatures, dtype=np.uint32).view(np.uint8)
        return _BYTE_BITS[as_bytes].sum(axis=1, dtype=np.int32)


def offset_signature(positions: Sequence[int]) -> np.ndarray:
    """The signature of one word in one block, from its ascending positions (4 uint32).

    The positions become difference offsets (first position, then gaps); the offsets
    are split into four segments as equal as possible, the first ones one longer;
    offset ``v`` sets bit ``v % 32`` of its segment's integer.
    """
    signature = np.zeros(SEGMENTS, dtype=np.uint32)
    count = len(positions)
    size, extra = divmod(count, SEGMENTS)
    previous = 0
    index = 0
    for segment in range(SEGMENTS):
        for _ in range(size + (segment < extra)):
            offset = positions[index] - previous
            previous = positions[index]
            index += 1
            signature[segment] |= np.uint32(1 << (offset % SEGMENT_BITS))
    return signature


def overlap(a: np.ndarray, b: np.ndarray) -> float:
    """``popcount(a & b) / max(popcount(a), popcount(b))`` of two signatures."""
    pair = np.stack([a, b]).astype(np.uint32, copy=False)
    bits = popcount_rows(pair)
    common = int(popcount_rows((pair[0] & pair[1])[None, :])[0])
    return common / max(int(bits.max()), 1)


def _similar(reps: np.ndarray, rep_bits: np.ndarray, sigs: np.ndarray, sig_bits: np.ndarray,
             threshold: float) -> np.ndarray:
    """Row-wise similarity test of two aligned signature arrays (bool per row)."""
    common = popcount_rows(reps & sigs)
    return common >= threshold * np.maximum(rep_bits, sig_bits) - _EPSILON


def _own_words(page: PageBlocks) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Every own word of every block: the words, their block and their position in it."""
    words: list[str] = []
    blocks: list[int] = []
    positions: list[int] = []
    counters = [0] * len(page)
    findall = _WORD.findall
    for chunk, block in zip(page.chunks, page.chunk_block.tolist(), strict=True):
        if block < 0:
            continue
        found = findall(chunk.lower())
        if not found:
            continue
        start = counters[block]
        counters[block] = start + len(found)
        words.extend(found)
        blocks.extend(repeat(block, len(found)))
        positions.extend(range(start, start + len(found)))
    return words, np.array(blocks, dtype=np.int64), np.array(positions, dtype=np.int64)


def _signatures(blocks: np.ndarray, words: np.ndarray, positions: np.ndarray,
                n_words: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per distinct (block, word) of a page: its block, its word, its signature.

    Vectorized :func:`offset_signature` over all tokens of a page (``words`` are ids
    below ``n_words``); the tokens come in document order, so the positions of one
    (block, word) are ascending.
    """
    items, inverse = np.unique(blocks * n_words + words, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    item_of = inverse[order]
    sorted_positions = positions[order]
    count = np.bincount(inverse, minlength=len(items))
    first = np.cumsum(count) - count
    rank = np.arange(len(order)) - first[item_of]
    previous = np.concatenate(([0], sorted_positions[:-1]))
    offsets = np.where(rank == 0, sorted_positions, sorted_positions - previous)
    n = count[item_of]
    size, extra = np.divmod(n, SEGMENTS)
    long_part = extra * (size + 1)  # tokens in the longer first segments
    segment = np.where(rank < long_part, rank // (size + 1),
                       extra + (rank - long_part) // np.maximum(size, 1))
    bits = np.left_shift(np.uint32(1), (offsets % SEGMENT_BITS).astype(np.uint32))
    cell = item_of * SEGMENTS + segment  # nondecreasing: items sorted, segments by rank
    starts = np.flatnonzero(np.diff(cell, prepend=-1))
    signatures = np.zeros(len(items) * SEGMENTS, dtype=np.uint32)
    signatures[cell[starts]] = np.bitwise_or.reduceat(bits, starts)
    return items // n_words, items % n_words, signatures.reshape(-1, SEGMENTS)


def _check_count(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")


class _Clusters:
    """Growing arrays of cluster representatives, their popcounts and sizes."""

    def __init__(self) -> None:
        self.reps = np.zeros((1024, SEGMENTS), dtype=np.uint32)
        self.bits = np.zeros(1024, dtype=np.int32)
        self.sizes = np.zeros(1024, dtype=np.int32)
        self.n = 0

    def reserve(self, extra: int) -> None:
        if self.n + extra <= len(self.sizes):
            return
        capacity = max(2 * len(self.sizes), self.n + extra)
        self.reps = np.resize(self.reps, (capacity, SEGMENTS))
        self.bits = np.resize(self.bits, capacity)
        self.sizes = np.resize(self.sizes, capacity)


class StyleOffsetMethod(SiteMethod):
    """Template / content labels from word offsets within block-style clusters (Chen et al.).

    Parameters
    ----------
    min_blocks : blocks a word-feature cluster needs for its word to be a template
        word (the paper's 5).
    similarity : least overlap of two offset signatures to be similar,
        ``popcount(a & b) / max(popcount(a), popcount(b))`` over the 128 bits (0.8).
    template_ratio : least share of a block's distinct own words that are template
        words for the block to be template (0.8).
    early_exit : a block whose non-template words exceed this share is content
        (the paper's 0.2, which stops the word checks early).
    min_df : words on fewer pages of the site are skipped as non-template words (3).
    max_clusters : most clusters kept per (BSC, word); beyond the paper, see the
        module doc.

    Fitted attributes
    -----------------
    pages_ : distinct pages fitted (a page id fed twice counts once).
    n_words_ : distinct words seen; words not kept get ids from here up in ``label``.
    vocabulary_, styles_, positions_ : ids of the kept words, BSCs ((position,
        attrs) pairs) and interned positions ((parent position, sibling rank) pairs).
    clusters_ : per kept (BSC, word) key, ``bsc << 32 | word``, the (start, count)
        of its clusters, in creation order, in the arrays below.
    representatives_, representative_bits_, sizes_ : per cluster its representative
        signature (uint32, 4 per row), that signature's popcount, its page count.
    """

    name: ClassVar[str] = "style-offset"
    scheme: ClassVar[str] = "layout"
    support_name: ClassVar[str] = "template_word_ratio"

    def __init__(
        self,
        *,
        min_blocks: int = 5,
        similarity: float = 0.8,
        template_ratio: float = 0.8,
        early_exit: float = 0.2,
        min_df: int = 3,
        max_clusters: int = 256,
    ) -> None:
        self.min_blocks = min_blocks
        self.similarity = similarity
        self.template_ratio = template_ratio
        self.early_exit = early_exit
        self.min_df = min_df
        self.max_clusters = max_clusters

    def fit(self, pages: Iterable[PageBlocks]) -> Self:
        """Cluster the offset signatures of ``pages`` (one site; read once, not held)."""
        _check_count("min_blocks", self.min_blocks)
        check_fraction("similarity", self.similarity)
        check_fraction("template_ratio", self.template_ratio)
        check_fraction("early_exit", self.early_exit)
        _check_count("min_df", self.min_df)
        _check_count("max_clusters", self.max_clusters)
        positions: dict[tuple[int, int], int] = {}  # (parent position, rank) -> position
        styles: dict[tuple[int, str], int] = {}  # (position, attrs) -> BSC
        vocabulary: dict[str, int] = {}
        df = np.zeros(1024, dtype=np.int32)
        members: dict[int, list[int]] = {}  # (BSC, word) key -> clusters, in creation order
        clusters = _Clusters()
        seen: set[str] = set()
        for page in pages:
            if page.page.id in seen:  # a page is counted once
                continue
            seen.add(page.page.id)
            bsc = self._styles(page, positions, styles, grow=True)
            words, blocks, offsets = _own_words(page)
            if not words:
                continue
            ids = np.fromiter((vocabulary.setdefault(w, len(vocabulary)) for w in words),
                              dtype=np.int64, count=len(words))
            if len(vocabulary) > len(df):
                df = np.concatenate((df, np.zeros(2 * len(vocabulary) - len(df), np.int32)))
            df[sorted_unique(ids)] += 1
            item_block, item_word, sigs = _signatures(blocks, ids, offsets, len(vocabulary))
            keys = (bsc[item_block] << _KEY_SHIFT) | item_word
            self._join(keys.tolist(), sigs, members, clusters)
        self._keep(positions, styles, vocabulary, df, members, clusters)
        self.pages_ = len(seen)
        return self

    @staticmethod
    def _styles(page: PageBlocks, positions: dict[tuple[int, int], int],
                styles: dict[tuple[int, str], int], grow: bool) -> np.ndarray:
        """BSC id per block (int64; -1 for a style not fitted when ``grow`` is False).

        Positions are interned as (parent position, sibling rank) pairs, so a block's
        position sequence costs one lookup however deep it is.
        """
        n = len(page)
        position = [-1] * n
        children = [0] * n
        roots = 0
        bsc = np.full(n, -1, dtype=np.int64)
        looks = page.attrs or ("",) * n
        for index, (parent, look) in enumerate(zip(page.parents.tolist(), looks, strict=True)):
            if parent < 0:
                roots += 1
                key = (-1, roots)
            else:
                children[parent] += 1
                if position[parent] < 0:
                    continue  # an unknown position has unknown descendants
                key = (position[parent], children[parent])
            if grow:
                here = positions.setdefault(key, len(positions))
                bsc[index] = styles.setdefault((here, look), len(styles))
            else:
                here = positions.get(key, -1)
                if here < 0:
                    continue
                bsc[index] = styles.get((here, look), -1)
            position[index] = here
        return bsc

    def _join(self, keys: list[int], sigs: np.ndarray, members: dict[int, list[int]],
              clusters: _Clusters) -> None:
        """One page's step of the single pass: each signature joins or opens a cluster.

        The keys of one page are distinct (positions are unique within a page), so the
        page's signatures are matched together against the clusters of earlier pages.
        """
        sig_bits = popcount_rows(sigs)
        candidates: list[int] = []
        owners: list[int] = []
        for item, key in enumerate(keys):
            ids = members.get(key)
            if ids:
                candidates.extend(ids)
                owners.extend(repeat(item, len(ids)))
        match = np.full(len(keys), -1, dtype=np.int64)
        if candidates:
            cand = np.array(candidates, dtype=np.int64)
            owner = np.array(owners, dtype=np.int64)
            ok = _similar(clusters.reps[cand], clusters.bits[cand], sigs[owner], sig_bits[owner],
                          self.similarity)
            hit_owner, first = np.unique(owner[ok], return_index=True)  # first similar cluster
            match[hit_owner] = cand[ok][first]
            clusters.sizes[match[hit_owner]] += 1
        unmatched = np.flatnonzero(match < 0)
        clusters.reserve(len(unmatched))
        slots: list[int] = []
        for item in unmatched.tolist():
            key = keys[item]
            ids = members.get(key)
            if ids is None:
                members[key] = [clusters.n + len(slots)]
            elif len(ids) < self.max_clusters:
                ids.append(clusters.n + len(slots))
            else:  # full: reuse the oldest single-block cluster, if any
                singles = np.flatnonzero(clusters.sizes[ids] == 1)
                if not len(singles):
                    continue
                slot = ids.pop(int(singles[0]))
                ids.append(slot)
                clusters.reps[slot] = sigs[item]
                clusters.bits[slot] = sig_bits[item]
                continue
            slots.append(item)
        if slots:
            new = np.arange(clusters.n, clusters.n + len(slots))
            clusters.reps[new] = sigs[slots]
            clusters.bits[new] = sig_bits[slots]
            clusters.sizes[new] = 1
            clusters.n += len(slots)

    def _keep(self, positions: dict[tuple[int, int], int], styles: dict[tuple[int, str], int],
              vocabulary: dict[str, int], df: np.ndarray, members: dict[int, list[int]],
              clusters: _Clusters) -> None:
        """Keep, as fitted state, the (BSC, word) pairs that can yield a template word."""
        self.n_words_ = len(vocabulary)
        keys = np.fromiter(members.keys(), dtype=np.int64, count=len(members))
        counts = np.fromiter(map(len, members.values()), dtype=np.int64, count=len(members))
        ids = np.fromiter(chain.from_iterable(members.values()), dtype=np.int64,
                          count=int(counts.sum()))
        starts = np.cumsum(counts) - counts
        big = (clusters.sizes[ids] >= self.min_blocks).astype(np.int8)
        has_big = np.maximum.reduceat(big, starts) > 0 if len(ids) else np.zeros(0, bool)
        words = keys & ((1 << _KEY_SHIFT) - 1)
        keep = has_big & (df[words] >= self.min_df)
        kept_ids = ids[np.repeat(keep, counts)]
        kept_counts = counts[keep]
        kept_starts = np.cumsum(kept_counts) - kept_counts
        self.clusters_: dict[int, tuple[int, int]] = dict(
            zip(keys[keep].tolist(), zip(kept_starts.tolist(), kept_counts.tolist(),
                                         strict=True), strict=True))
        self.representatives_ = clusters.reps[kept_ids]
        self.representative_bits_ = clusters.bits[kept_ids]
        self.sizes_ = clusters.sizes[kept_ids]
        # Only the words, styles and positions of kept pairs are needed to label.
        kept_words = np.zeros(len(vocabulary), dtype=bool)
        kept_words[words[keep]] = True
        self.vocabulary_ = {w: i for w, i in vocabulary.items() if kept_words[i]}
        kept_styles = np.zeros(len(styles), dtype=bool)
        kept_styles[keys[keep] >> _KEY_SHIFT] = True
        self.styles_ = {s: i for s, i in styles.items() if kept_styles[i]}
        parent = np.full(len(positions), -1, dtype=np.int64)
        for (up, _), here in positions.items():
            parent[here] = up
        kept_positions = np.zeros(len(positions), dtype=bool)
        for here, _ in self.styles_:
            while here >= 0 and not kept_positions[here]:
                kept_positions[here] = True
                here = parent[here]
        self.positions_ = {p: i for p, i in positions.items() if kept_positions[i]}

    def label(self, page: PageBlocks) -> LabeledPage:
        """Label the blocks of ``page``, fitted or not, by matching its signatures."""
        self._check_fitted()
        n = len(page)
        labels = np.full(n, Label.UNKNOWN, dtype=np.int8)
        reasons = np.full(n, REASON["short"], dtype=np.uint8)
        support = np.zeros(n, dtype=np.float32)
        words, blocks, offsets = _own_words(page)
        if words:
            known = self.vocabulary_.get
            unknown: dict[str, int] = {}  # words not kept get ids above the fitted ones
            base = self.n_words_
            ids = np.fromiter(
                (i if (i := known(w)) is not None else unknown.setdefault(w, base + len(unknown))
                 for w in words),
                dtype=np.int64, count=len(words))
            item_block, item_word, sigs = _signatures(blocks, ids, offsets, base + len(unknown))
            bsc = self._styles(page, self.positions_, self.styles_, grow=False)
            template = self._template_words(bsc[item_block], item_word, sigs)
            distinct = np.bincount(item_block, minlength=n)
            found = np.bincount(item_block[template], minlength=n)
            has_words = distinct > 0
            ratio = found / np.maximum(distinct, 1)
            is_template = has_words & (
                (found >= self.template_ratio * distinct - _EPSILON)
                & (distinct - found <= self.early_exit * distinct + _EPSILON))
            labels[has_words] = Label.CONTENT
            reasons[has_words] = REASON["few-template-words"]
            labels[is_template] = Label.TEMPLATE
            reasons[is_template] = REASON["offset"]
            support[:] = ratio
        return LabeledPage(blocks=page, labels=labels, support=support, reasons=reasons,
                           example=labels != Label.UNKNOWN, own_text_only=True)

    def _template_words(self, item_bsc: np.ndarray, item_word: np.ndarray,
                        sigs: np.ndarray) -> np.ndarray:
        """Per (block, word) item: is the word a template word of the block (bool)."""
        template = np.zeros(len(item_word), dtype=bool)
        valid = np.flatnonzero((item_bsc >= 0) & (item_word < self.n_words_))
        if not len(valid) or not self.clusters_:
            return template
        keys = (item_bsc[valid] << _KEY_SHIFT) | item_word[valid]
        get = self.clusters_.get
        spans = [get(key) for key in keys.tolist()]
        hit = [i for i, span in enumerate(spans) if span is not None]
        if not hit:
            return template
        starts = np.fromiter((spans[i][0] for i in hit), dtype=np.int64, count=len(hit))
        counts = np.fromiter((spans[i][1] for i in hit), dtype=np.int64, count=len(hit))
        items = valid[hit]
        owner = np.repeat(items, counts)
        cand = np.repeat(starts - (np.cumsum(counts) - counts), counts) + np.arange(counts.sum())
        ok = _similar(self.representatives_[cand], self.representative_bits_[cand],
                      sigs[owner], popcount_rows(sigs)[owner], self.similarity)
        matched, first = np.unique(owner[ok], return_index=True)  # first similar cluster
        template[matched] = self.sizes_[cand[ok][first]] >= self.min_blocks
        return template
