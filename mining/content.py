"""The text a mining task sees of each page: all of it, or what a template detector keeps.

Chakrabarti, Kumar & Punera (6.2, 6.3) compare three inputs, and so do we:

- ``none`` (their FULLTEXT): the page's visible body text;
- ``site`` (SITELEVEL): the text the site-level fingerprint method does not call
  template, fitted on the pages of each site in the batch (so it needs several pages
  of a site: a page alone on its site keeps all its text). The method is the one whose
  labels train the page-level model (:func:`denoise.training.site_labeller`: Kołcz &
  Yih's fingerprints over the ``regions`` segmentation, which gives every text of the
  body a block, with Chakrabarti's 85% containment rule and structure matching);
- ``page`` (PAGELEVEL): the text the page-level detector keeps, page by page, at its
  stored operating point (90% cross-site precision) unless told otherwise.

Texts come one line per block (:func:`denoise.detector.block_lines`), so block
boundaries stay visible to whoever splits them into words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from enum import StrEnum

from denoise.blocks import segment
from denoise.detector import TemplateDetector, block_lines
from denoise.errors import PageError
from denoise.features import SCHEME
from denoise.page import Page
from denoise.site.batch import label_sites
from denoise.training import site_labeller


class Denoise(StrEnum):
    """What is removed before mining, by command-line name."""

    none = "none"
    site = "site"
    page = "page"


def page_texts(pages: Iterable[Page], mode: Denoise | str, *,
               detector: TemplateDetector | None = None,
               on_error: Callable[[PageError], None] | None = None) -> Iterator[tuple[Page, str]]:
    """Each page with its text under ``mode``, in input order for ``none`` and ``page``
    (``site`` groups the batch by site first: sites in order of first appearance).

    A page that cannot be parsed goes to ``on_error`` (raised without one). ``detector``
    is the page-level detector for ``page`` (default: the shipped one, loaded once).
    """
    mode = Denoise(mode)
    if mode is Denoise.site:
        for labelled in label_sites(pages, lambda _: site_labeller(), on_error=on_error):
            blocks = labelled.blocks
            keep = ~labelled.template_chunks() & (blocks.chunk_block >= 0)
            yield labelled.page, block_lines(blocks, keep)
        return
    if mode is Denoise.page and detector is None:
        detector = TemplateDetector.load()
    for page in pages:
        try:
            if mode is Denoise.page:
                text = detector.score(page).main_text()
            else:
                blocks = segment(page, SCHEME)
                text = block_lines(blocks, blocks.chunk_block >= 0)
        except PageError as error:
            if on_error is None:
                raise
            on_error(error)
            continue
        yield page, text

