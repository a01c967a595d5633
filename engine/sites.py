"""Site-level labelling on worker processes: :func:`denoise.site.batch.label_sites` with
the parsing and segmentation of the pages (most of the work) spread over processes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from denoise.blocks import PageBlocks
from denoise.errors import PageError
from denoise.page import Page
from denoise.site import batch as site_batch
from denoise.site.base import LabeledPage, SiteMethod
from engine.batch import map_pages, ready_for_pages


def label_sites(pages: Iterable[Page], method_for: Callable[[str], SiteMethod], *,
                jobs: int = 1, own_process: bool = False,
                **options: Any) -> Iterator[LabeledPage]:
    """:func:`denoise.site.batch.label_sites` (``options`` are its keywords) with the
    pages segmented on ``jobs`` worker processes, each made ready for a long loop over
    pages (:func:`~engine.batch.ready_for_pages`). With ``jobs=1`` they are segmented
    here, and this process is made ready only when it is the toolkit's own
    (``own_process``: a command line's); a library caller's is left as it is."""
    segment_all = partial(segmented, jobs=jobs, own_process=own_process)
    return site_batch.label_sites(pages, method_for, segment_all=segment_all, **options)


@dataclass(frozen=True)
class _SegmentJob:
    """Segment a page in a worker, as its method does; it comes back without its HTML."""

    segment: Callable[[Page], PageBlocks]

    def setup(self) -> None:
        pass

    def __call__(self, page: Page) -> PageBlocks:
        return site_batch.without_html(self.segment(page))


def segmented(pages: Iterable[Page], segment: Callable[[Page], PageBlocks], *, jobs: int,
              own_process: bool) -> Iterator[tuple[Page, PageBlocks | PageError]]:
    """Each page with its blocks (or why it could not be segmented), in input order, on
    ``jobs`` worker processes or here."""
    if jobs > 1:
        yield from map_pages(pages, _SegmentJob(segment), jobs)
        return
    if own_process:
        ready_for_pages()
    yield from site_batch.segmented(pages, segment)
