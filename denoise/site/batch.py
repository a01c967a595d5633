"""Label a stream of pages from many sites: group by site, fit once per site, label."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace

import numpy as np

from denoise.batch import map_pages
from denoise.blocks import PageBlocks, segment
from denoise.errors import PageError
from denoise.page import Page
from denoise.site.base import Label, LabeledPage, SiteMethod


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
        self.pages += 1
        self.blocks += len(page.labels)
        self.template_blocks += int(np.count_nonzero(page.labels == Label.TEMPLATE))
        self.unknown_blocks += int(np.count_nonzero(page.labels == Label.UNKNOWN))
        self.template_chars += template
        self.chars += total

    def as_dict(self) -> dict[str, object]:
        """The report as plain data, for JSON."""
        return {"site": self.site, "pages": self.pages, "blocks": self.blocks,
                "template_blocks": self.template_blocks, "unknown_blocks": self.unknown_blocks,
                "template_chars": self.template_chars, "chars": self.chars,
                "template_share": round(self.template_share, 4)}


def label_sites(
    pages: Iterable[Page],
    method_for: Callable[[str], SiteMethod],
    *,
    on_error: Callable[[PageError], None] | None = None,
    on_page: Callable[[Page], None] | None = None,
    grouped: bool = False,
    jobs: int = 1,
    scheme: str | None = None,
) -> Iterator[LabeledPage]:
    """Segment every page once, fit one method per site, and yield the labelled pages.

    ``method_for(site)`` makes the (unfitted) method of a site, so a caller can bind
    each site to its own store. Pages that fail to parse go to ``on_error`` and are
    left out. Sites come out in the order they first appeared, pages in input order.

    A site's statistics need all its pages, so its pages are held until it can be
    labelled: to the end of the input, or, with ``grouped`` (the input gives each site's
    pages together, as folders and archives of site folders do), until the next site
    begins, so memory follows the largest site, not the input. A site that comes back
    after another began raises ``ValueError`` then (its statistics would be split).

    With ``jobs`` > 1 the parsing and segmentation (most of the work) run on that many
    worker processes; ``scheme`` (the methods' segmentation) must be given then.
    """
    by_site: dict[str, list[PageBlocks]] = {}
    methods: dict[str, SiteMethod] = {}
    finished: set[str] = set()
    current: str | None = None
    for page, blocks in _segmented(pages, method_for, methods, jobs, scheme):
        if on_page is not None:
            on_page(page)
        if grouped and page.site != current:
            if current is not None:
                yield from _label_site(methods.pop(current), by_site.pop(current, []))
                finished.add(current)
            if page.site in finished:
                raise ValueError(f"the input is not grouped by site: {page.site!r} comes "
                                 "again after other sites")
            current = page.site
        if page.site not in methods:
            methods[page.site] = method_for(page.site)
        if isinstance(blocks, PageError):
            if on_error is None:
                raise blocks
            on_error(blocks)
            continue
        by_site.setdefault(page.site, []).append(blocks)
    for site, method in methods.items():
        yield from _label_site(method, by_site.get(site, []))


@dataclass(frozen=True)
class _SegmentJob:
    """Parse and segment a page in a worker; the page comes back without its HTML."""

    scheme: str

    def setup(self) -> None:
        pass

    def __call__(self, page: Page) -> PageBlocks:
        blocks = segment(page, self.scheme)
        return replace(blocks, page=replace(page, html=""))


def _segmented(pages: Iterable[Page], method_for: Callable[[str], SiteMethod],
               methods: dict[str, SiteMethod], jobs: int, scheme: str | None
               ) -> Iterator[tuple[Page, PageBlocks | PageError]]:
    """Each page with its blocks (or why it could not be segmented), in input order."""
    if jobs <= 1:
        for page in pages:
            if page.site not in methods:
                methods[page.site] = method_for(page.site)
            method = methods[page.site]
            try:
                yield page, method.segment(page)
            except PageError as error:
                yield page, error
        return
    if scheme is None:
        raise ValueError("label_sites needs the methods' scheme to segment on workers")
    for page, result in map_pages(pages, _SegmentJob(scheme), jobs):
        yield page, result  # PageBlocks, or the PageError a worker sent back


def _label_site(method: SiteMethod, site_pages: list[PageBlocks]) -> Iterator[LabeledPage]:
    if not site_pages:
        return
    method = method.fit(site_pages)
    for blocks in site_pages:
        yield method.label(blocks)
