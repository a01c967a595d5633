"""Label a stream of pages from many sites: group by site, fit once per site, label.

A site's labels need its statistics over all its pages, so every page waits until its
site is complete. Waiting pages (segmented, without their HTML) are held in memory up
to a budget for the whole run (:data:`HOLD_BYTES`); past it they are spilled to a
private temporary folder, so memory stays flat whatever the input size and however the
input interleaves its sites, at the cost of writing each spilled page and reading it
back (:mod:`denoise.site.spill`: numbers, raw arrays and text, never pickle). A method
that fits from a few keys of each page (:meth:`SiteMethod.page_keys`, the fingerprint
method's text digests) has them written beside the page and fits from them alone, so a
spilled page is read back whole once, to be labelled; else twice (to fit, then to
label). The spill file is this run's own, in a private folder deleted after it. A caller
that reads only labels and text shares (a per-site report) says so (``text=False``), and
such a method's pages are reduced to those as they are segmented
(:meth:`SiteMethod.segmenter`'s ``shares_only``, :meth:`PageBlocks.text_shares_only`):
~13 KB a page instead of ~52 (``benchmarks/site_hold.py``), so about four times as many
are held, and what spills is written and read faster.

A site is fitted only once it is complete, one site at a time: counting each page as it
comes would save a read of the spill, but keep the counts of every unfinished site at
once, which grow with the input (634 -> 746 MB peak at 100,000 interleaved pages).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import chain
from operator import attrgetter

import numpy as np

from denoise.blocks import PageBlocks
from denoise.errors import NotGroupedError, PageError
from denoise.page import Page
from denoise.site.base import TEMPLATE, UNKNOWN, Label, LabeledPage, PageKeys, SiteMethod
from denoise.site.spill import Spill

#: How a batch of pages is segmented: ``(pages, segment)`` to each page with its blocks
#: (without the page's HTML) or the :class:`PageError` it raised, in input order.
SegmentAll = Callable[[Iterable[Page], Callable[[Page], PageBlocks]],
                      Iterator[tuple[Page, "PageBlocks | PageError"]]]


@dataclass(slots=True)
class SiteReport:
    """What a site-level method found on one site (the columns of Ma et al.'s Table 1)."""

    site: str
    pages: int = 0
    blocks: int = 0
    template_blocks: int = 0
    unknown_blocks: int = 0
    template_chars: int = 0
    chars: int = 0

    @property
    def template_share(self) -> float:
        """Share of the site's text characters inside template blocks."""
        return self.template_chars / self.chars if self.chars else 0.0

    def add(self, page: LabeledPage) -> None:
        """Account for one labelled page."""
        template, total = page.template_share()
        per_label = np.bincount(page.labels, minlength=len(Label)).tolist()
        self.pages += 1
        self.blocks += len(page.labels)
        self.template_blocks += per_label[TEMPLATE]
        self.unknown_blocks += per_label[UNKNOWN]
        self.template_chars += template
        self.chars += total

    def as_dict(self) -> dict[str, object]:
        """The report as plain data, for JSON."""
        return {"site": self.site, "pages": self.pages, "blocks": self.blocks,
                "template_blocks": self.template_blocks, "unknown_blocks": self.unknown_blocks,
                "template_chars": self.template_chars, "chars": self.chars,
                "template_share": round(self.template_share, 4)}


#: Estimated bytes of segmented pages held in memory before the next ones are spilled
#: (about 9,100 whole dev-site pages, or 33,500 reduced to their text shares:
#: ``benchmarks/site_hold.py``; a run's peak RSS is ~130 MB more, the interpreter,
#: models and allocator included: 574 MB at 100k pages in ``benchmarks/scale.py``).
HOLD_BYTES = 448 << 20


def label_sites(
    pages: Iterable[Page],
    method_for: Callable[[str], SiteMethod],
    *,
    on_error: Callable[[PageError], None] | None = None,
    on_page: Callable[[Page], None] | None = None,
    grouped: bool = False,
    hold_bytes: int = HOLD_BYTES,
    text: bool = True,
    segment_all: SegmentAll | None = None,
) -> Iterator[LabeledPage]:
    """Segment every page once, fit one method per site, and yield the labelled pages.

    ``method_for(site)`` makes the (unfitted) method of a site, so a caller can bind
    each site to its own store; every site's method must segment alike (the same
    method and settings: pages are segmented before their site is known to need them,
    on workers too), else ``ValueError``. Pages that fail to parse go to ``on_error``
    and are left out. Sites come out in the order they first appeared, pages in input
    order.

    A site's statistics need all its pages, so its pages wait until it can be labelled:
    to the end of the input, or, with ``grouped`` (the input gives each site's pages
    together, as folders and archives of site folders do), until the next site begins.
    A site that comes back after another began raises :class:`NotGroupedError` then
    (its statistics would be split). Waiting pages past ``hold_bytes`` go to disk.
    Without ``text``, the labelled pages of a method that fits from keys hold only what
    labels and text shares need (:meth:`PageBlocks.text_shares_only`: no text, HTML or
    DOM shape), so that more of them wait in memory.

    ``segment_all(pages, segment)`` runs the parsing and segmentation (most of the
    work): each page with its blocks or the :class:`PageError` it raised, in input
    order; by default here, one page after the other. :func:`engine.sites.label_sites`
    gives it worker processes.
    """
    pages = iter(pages)
    first = next(pages, None)
    if first is None:
        return
    methods = {first.site: method_for(first.site)}
    segmenter = _segmenter(methods[first.site], text)
    finished: set[str] = set()
    current: str | None = None
    with _Waiting(hold_bytes) as waiting:
        for page, blocks in (segment_all or segmented)(chain([first], pages), segmenter):
            if on_page is not None:
                on_page(page)
            if grouped and page.site != current:
                if current is not None:
                    yield from _label_site(methods.pop(current), waiting.pop(current))
                    finished.add(current)
                if page.site in finished:
                    raise NotGroupedError(f"the input is not grouped by site: {page.site!r} "
                                          "comes again after other sites")
                current = page.site
            if page.site not in methods:
                method = methods[page.site] = method_for(page.site)
                if _segmenter(method, text) != segmenter:
                    raise ValueError(f"the method of site {page.site!r} segments pages "
                                     "otherwise than the first site's: give every site "
                                     "the same method and settings")
            if isinstance(blocks, PageError):
                if on_error is None:
                    raise blocks
                on_error(blocks)
                continue
            waiting.add(page.site, blocks, methods[page.site])
        for site in list(methods):  # a labelled site's method (and counts) is let go
            yield from _label_site(methods.pop(site), waiting.pop(site))


def _segmenter(method: SiteMethod, text: bool) -> Callable[[Page], PageBlocks]:
    """The method's segmenter; without ``text``, one that may reduce pages to their
    text shares (asked for only then, so a method whose ``segmenter`` takes no
    ``shares_only`` still runs with ``text``)."""
    return method.segmenter() if text else method.segmenter(shares_only=True)


def without_html(blocks: PageBlocks) -> PageBlocks:
    """``blocks`` without its page's HTML, which no method reads once the page is
    segmented: a waiting page neither holds it nor writes it to the spill file."""
    page = blocks.page.without_html()
    return blocks if page is blocks.page else replace(blocks, page=page)


def segmented(pages: Iterable[Page], segment: Callable[[Page], PageBlocks],
              ) -> Iterator[tuple[Page, PageBlocks | PageError]]:
    """Each page with its blocks without its HTML (or why it could not be segmented),
    in input order, one page after the other in this process."""
    for page in pages:
        try:
            yield page, without_html(segment(page))
        except PageError as error:
            yield page, error


def _label_site(method: SiteMethod, site_pages: _SitePages) -> Iterator[LabeledPage]:
    if not len(site_pages):
        return
    if site_pages.keyed:  # its spilled pages are read back once, to be labelled
        method = method.fit_keys(site_pages.keys(method))
    else:
        method = method.fit(site_pages)
    for blocks in site_pages:
        yield method.label(blocks)


class _SitePages:
    """One site's waiting pages in input order: the held ones, then the spilled ones.

    Iterable again and again (a method's ``fit`` may read them twice, ``label`` once
    more); a spilled page is a fresh object each time, dropped after its step. When the
    site's method fits from :meth:`SiteMethod.page_keys`, its spilled pages were written
    with them (``keyed``), and :meth:`keys` reads those alone.
    """

    def __init__(self) -> None:
        self.held: list[PageBlocks] = []
        self.held_bytes = 0
        self.spill: Spill | None = None
        self.offsets = array("q")  # where each spilled page starts in the spill file
        self.keyed = False

    def __len__(self) -> int:
        return len(self.held) + len(self.offsets)

    def __iter__(self) -> Iterator[PageBlocks]:
        yield from self.held
        if self.offsets and self.spill is not None:
            yield from self.spill.read(self.offsets)

    def keys(self, method: SiteMethod) -> Iterator[PageKeys]:
        """Each page's :meth:`SiteMethod.page_keys`, in input order."""
        for blocks in self.held:
            keys = method.page_keys(blocks)
            if keys is None:
                raise TypeError(f"{type(method).__name__}.page_keys gave keys for some "
                                "pages only")
            yield keys
        if self.offsets and self.spill is not None:
            yield from self.spill.read_keys(self.offsets)


class _Waiting:
    """Every site's waiting pages, held up to ``hold_bytes`` in all, spilled past it."""

    def __init__(self, hold_bytes: int) -> None:
        self.hold_bytes = hold_bytes
        self.held_bytes = 0
        self.sites: dict[str, _SitePages] = {}
        self.spill: Spill | None = None

    def add(self, site: str, blocks: PageBlocks, method: SiteMethod) -> None:
        """Hold or spill a page of ``site``; a spilled page's ``method.page_keys`` go with it."""
        pages = self.sites.get(site)
        if pages is None:
            pages = self.sites[site] = _SitePages()
        size = _held_size(blocks)
        # once a site spills, its later pages spill too, so input order is kept
        if not pages.offsets and self.held_bytes + size <= self.hold_bytes:
            pages.held.append(blocks)
            pages.held_bytes += size
            self.held_bytes += size
            return
        if self.spill is None:
            self.spill = Spill()
        keys = method.page_keys(blocks)
        pages.spill, pages.keyed = self.spill, keys is not None
        pages.offsets.append(self.spill.write(blocks, keys))

    def pop(self, site: str) -> _SitePages:
        """The site's pages, no longer counted against the budget."""
        pages = self.sites.pop(site, None) or _SitePages()
        self.held_bytes -= pages.held_bytes
        return pages

    def __enter__(self) -> _Waiting:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sites.clear()
        if self.spill is not None:
            self.spill.close()


_HELD_ARRAYS = attrgetter("chunk_starts", "chunk_ends", "chunk_in_link", "chunk_block",
                          "parents", "spans", "tag_ids", "depths", "lines", "elements")


def _held_size(blocks: PageBlocks) -> int:
    """Estimated bytes a segmented page holds while it waits: its text as Python keeps
    it, its arrays and notes, 48 bytes a chunk for a text index, and 2.5 KB of objects:
    within 5% of what ``tracemalloc`` counts for a held dev-site page, whole (~52 KB)
    or reduced to its text shares (~13 KB): ``benchmarks/site_hold.py``."""
    arrays = chain(_HELD_ARRAYS(blocks), (blocks.shape.tag_ids, blocks.shape.parents),
                   blocks.notes.values())
    index = 48 * len(blocks.chunk_starts) if blocks.chunk_index is not None else 0
    return sys.getsizeof(blocks.text) + sum(array.nbytes for array in arrays) + index + 2560
