"""The text a mining task sees of each page: all of it, or what a template detector keeps.

Chakrabarti, Kumar & Punera (6.2, 6.3) compare three inputs, and so do we:

- ``none`` (their FULLTEXT): the page's visible body text;
- ``site`` (SITELEVEL): the text the site-level fingerprint method does not call
  template, fitted on the pages of each site in the batch (so it needs several pages
  of a site: a page alone on its site keeps all its text). The method is the one whose
  labels train the page-level model (:func:`denoise.training.site_labeller`: Kołcz &
  Yih's fingerprints over the ``regions`` segmentation, which gives every text of the
  body a block, with Chakrabarti's 85% containment rule and structure matching);
- ``page`` (PAGELEVEL): the text the page-level detector keeps, page by page, cut at
  :data:`PAGE_RECALL` unless given another detector. Not its stored operating point
  (90% cross-site precision, 96% recall): there it removes all the text of about one
  page in ten of the near-duplicate benchmark, and a mining task loses more from
  removed content than from a template left in (on the dev benchmarks recall 0.5
  found 89% of the duplicates against 80%, and lost 1% of WebKB accuracy against 6%);
- ``main`` (ours): the page's main content by :mod:`denoise.main_content` (template
  model and a model of gold main texts, one best region, never empty when the page
  has text): the article alone, for tasks about articles.

Texts come one line per block (:func:`denoise.detector.block_lines`), so block
boundaries stay visible to whoever splits them into words.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from enum import StrEnum
from functools import cache
from typing import Any

import numpy as np

from denoise.arguments import expect_pages
from denoise.blocks import covered_chunks, index_dom, segment
from denoise.detector import PageScores, TemplateDetector, block_lines
from denoise.errors import PageError
from denoise.features import SCHEME, features_of, parse_blocks
from denoise.html import parse_html
from denoise.main_content import (
    MainContentExtractor,
    default_extractor,
    main_content_model_path,
)
from denoise.model import default_model_path
from denoise.page import Page
from denoise.site.batch import label_sites
from denoise.training import site_labeller
from mining.shingles import word_hashes

#: The page-level detector's operating point for ``page`` (Kołcz & Yih's 50% recall).
PAGE_RECALL = 0.5


class Denoise(StrEnum):
    """What is removed before mining, by command-line name."""

    none = "none"
    site = "site"
    page = "page"
    main = "main"


@cache
def models_used(mode: Denoise | str) -> str | None:
    """The shipped models ``mode`` reads pages with, as a digest of their files (and the
    recall for ``page``); None when it uses none. A saved near-duplicate index records
    it, so sketches made with other models are never compared."""
    paths = {Denoise.page: (default_model_path(),),
             Denoise.main: (default_model_path(), main_content_model_path())}.get(Denoise(mode))
    if paths is None:
        return None
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    recall = f" at recall {PAGE_RECALL}" if Denoise(mode) is Denoise.page else ""
    return f"sha256:{digest.hexdigest()[:16]}{recall}"


def body_words(page: Page) -> np.ndarray:
    """The word hashes of the page's body text (FULLTEXT, ``none``): the words of every
    body chunk read straight from the page text (:func:`word_hashes` of the text
    :func:`page_texts` gives, without building that text)."""
    dom = index_dom(parse_html(page.html, page.id), text_index=False)
    body = covered_chunks(dom, SCHEME)  # what segmenting would keep, without segmenting
    return word_hashes(dom.text, (dom.chunk_first[body], dom.chunk_last[body]))


def page_texts(pages: Iterable[Page], mode: Denoise | str, *,
               detector: TemplateDetector | None = None,
               extractor: MainContentExtractor | None = None,
               on_error: Callable[[PageError], None] | None = None) -> Iterator[tuple[Page, str]]:
    """Each page with its text under ``mode``, in input order except for ``site``
    (which groups the batch by site first: sites in order of first appearance, and
    hands back copies of the pages without their HTML, so match them by ``id``).

    A page that cannot be parsed goes to ``on_error`` (raised without one). ``detector``
    is the page-level detector for ``page`` (default: the shipped one at
    :data:`PAGE_RECALL`), ``extractor`` the main-content extractor for ``main``
    (default: the shipped one); each is loaded once.
    """
    mode = Denoise(mode)
    pages = expect_pages(pages, "page_texts")
    if mode is Denoise.site:
        for labelled in label_sites(pages, lambda _: site_labeller(), on_error=on_error):
            blocks = labelled.blocks
            keep = ~labelled.template_chunks() & (blocks.chunk_block >= 0)
            yield labelled.page, block_lines(blocks, keep)
        return
    steps = text_steps(mode, detector=detector, extractor=extractor)
    for page in pages:
        try:
            text = page
            for step in steps:
                text = step(text)
        except PageError as error:
            if on_error is None:
                raise
            on_error(error)
            continue
        yield page, text


def text_steps(mode: Denoise | str, *, detector: TemplateDetector | None = None,
               extractor: MainContentExtractor | None = None) -> list[Callable[[Any], Any]]:
    """The steps from a page to its text under ``mode`` (any but ``site``, which needs
    the other pages of the site): applied in turn to one page they give its text as
    :func:`page_texts` does (which runs them), and a batch can go through them one step
    at a time (:func:`denoise.steps.step_by_step`), each step finding its tables warm.
    ``detector`` and ``extractor`` default as in :func:`page_texts`."""
    mode = Denoise(mode)
    if mode is Denoise.site:
        raise ValueError("site texts need the site's other pages: use page_texts")
    if mode is Denoise.none:
        return [_body_text]
    features = [parse_blocks, features_of]
    if mode is Denoise.page:
        detector = detector or TemplateDetector.load().at_recall(PAGE_RECALL)
        return [*features, detector.score_features, PageScores.main_text]
    return [*features, (extractor or default_extractor()).text]


def _body_text(page: Page) -> str:
    """The page's body text (``none``), one line per block."""
    blocks = segment(page, SCHEME)
    return block_lines(blocks, blocks.chunk_block >= 0)

