"""One de-noising step: a page in, what a mode keeps of it out.

Every application of the toolkit reads pages through here: ``kwx`` takes keywords from
the kept text, ``mining`` shingles or classifies it, ``denoise apply`` writes it. A
*mode* names what is removed (Chakrabarti, Kumar & Punera 6.2 compare the first three):

- ``none`` (FULLTEXT): nothing; the page's visible body text.
- ``site`` (SITELEVEL): what the site-level fingerprint method calls template, fitted on
  the other pages of the site (:func:`clean_pages`; a page alone on its site keeps all
  its text). The method is the one whose labels train the page-level model, beside
  the main regions of the documentation sites where they are known
  (:func:`denoise.training.site_labeller`).
- ``page`` (PAGELEVEL): what the page-level detector calls template at its operating
  point, page by page: by default the shipped detector cut at :data:`PAGE_RECALL`. A
  page the cut would leave with (next to) no text falls back to the blocks that look
  least like template (:meth:`denoise.detector.PageScores.or_fallback`, the rule and
  its measurements), marked on the result (:attr:`Cleaned.fallback`).
- ``main``: everything but the page's main content (:mod:`denoise.main_content`:
  template model and a model of gold main texts, one best region, never empty when the
  page has text). The default: on pages of sites no model saw it finds 97% of the
  near-duplicate pairs copied across sites against 92% for ``page`` and 63% for
  ``none`` (``benchmarks/dedup.py --heldout``), and it is the best input of the
  classifier on templated pages (``benchmarks/webkb_templated.py``).

The result (:class:`Cleaned`) keeps the page's blocks, which chunks of text are kept,
the block scores and the operating point, and the page's title and meta description,
so an application needs nothing below this module. A page is parsed once: the tree is
let go as soon as the walks that read it are done.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from denoise.arguments import expect_page, expect_pages
from denoise.blocks import DomIndex, PageBlocks, index_dom, segment_dom
from denoise.detector import PageScores, TemplateDetector, block_lines, repetition_model_path
from denoise.errors import PageError
from denoise.features import SCHEME, markup_stats, page_features
from denoise.head import declared_language, head_texts
from denoise.html import parse_html
from denoise.main_content import (
    MainContentExtractor,
    default_extractor,
    listing_model_path,
    main_content_model_path,
)
from denoise.model import default_model_path
from denoise.page import Page
from denoise.site import METHODS, SiteStore
from denoise.site.base import SiteMethod
from denoise.site.batch import label_sites
from denoise.training import site_labeller

#: The page-level detector's operating point for ``page``: the template recall it cuts at
#: (Kołcz & Yih's recall operating points). A deeper cut helps mining (a template left in
#: sets copies of one article apart and teaches a classifier its words) until it takes
#: the content too. Chosen among 0.5 to 0.95 for the detector shipped since 2026-12-01,
#: whose curve puts 0.9 at 0.30, under its stored point (0.62). With models that never
#: saw the sites, 0.9 finds 92.3% of the near-duplicate pairs (0.5: 74.3%;
#: ``benchmarks/dedup.py --heldout``), raises the accuracy on WebKB's pages inside news
#: templates 33.9% over FULLTEXT (0.5: 10.8%; ``benchmarks/webkb_templated.py``) and
#: BM25's nDCG@10 on topical queries 1.107x (0.5: 1.042x; ``benchmarks/retrieval.py``).
#: Against the main-content gold of 3,100 hosts no template model saw it keeps 91.8% of
#: the gold text on average (0.5: 97.3%) at 84.73 F1 (0.5: 78.69;
#: ``benchmarks/template_gold.py``), and on WebKB's own pages, which share no template,
#: it cuts 19% of the text for a change within 1% (``benchmarks/webkb.py``). Past it the
#: content goes: 0.95 (a cut at 0.13) keeps 84.4% of the gold text and cuts 37% of
#: WebKB's, for 0.7 more points of duplicates found and 2.1 of templated accuracy. The
#: price: the cut at 0.30 leaves more pages with (next to) no text, which fall back to
#: their least template-like blocks (337 of those 5,069 pages; 6 at 0.5).
PAGE_RECALL = 0.9


class Mode(StrEnum):
    """What is removed from a page (see the module notes), by command-line name."""

    none = "none"
    site = "site"
    page = "page"
    main = "main"

    @classmethod
    def _missing_(cls, value: object) -> None:
        raise ValueError(f"{value!r} is not a mode: one of "
                         f"{', '.join(repr(mode.value) for mode in cls)}")


#: The mode every command and function uses unless told otherwise.
DEFAULT_MODE = Mode.main


@dataclass(frozen=True, slots=True)
class Parsed:
    """A page once parsed and segmented, its tree already let go."""

    page: Page
    dom: DomIndex  # without its tree
    blocks: PageBlocks
    markup: tuple[np.ndarray, np.ndarray, np.ndarray] | None  # for the detector's features
    head: tuple[str, str, str]  # title, meta keywords, meta description
    declared_language: str = ""  # what its <html lang> declares (a primary subtag)


def parse(page: Page, *, markup: bool = True) -> Parsed:
    """Parse ``page`` once and gather what scoring and keeping read: its index, blocks,
    head texts and, with ``markup``, the markup counts the detector's features need."""
    root = parse_html(page.html, page.id)
    dom = index_dom(root)
    counts = markup_stats(root) if markup else None
    head = head_texts(root)
    language = declared_language(root)
    blocks = segment_dom(page, dom, SCHEME)
    del root
    dom = dom.without_tree()  # the last hold on the tree: it is freed here
    return Parsed(page=page, dom=dom, blocks=blocks, markup=counts, head=head,
                  declared_language=language)


@dataclass(frozen=True, eq=False)
class Cleaned:
    """What a mode keeps of a page.

    ``keep`` marks the kept chunks of ``blocks`` (text outside the body's blocks, as in
    ``<head>``, is never kept); ``scores`` are the block scores the mode cut
    (``page``, ``main``; None for ``none`` and ``site``), and ``threshold`` the score
    from which a block was removed. ``head`` (title, meta keywords and description) and
    ``declared_language`` are empty in mode ``site``, whose pages were segmented by the
    site-level method. ``fallback`` says the mode's cut would have left the page (next
    to) no text and its least template-like blocks were kept instead (modes ``page``
    and ``main``; ``threshold`` is then the raised cut in mode ``page``).
    """

    page: Page
    mode: Mode
    blocks: PageBlocks
    keep: np.ndarray  # bool per chunk
    scores: PageScores | None = None
    head: tuple[str, str, str] = ("", "", "")  # title, meta keywords, meta description
    fallback: bool = False
    declared_language: str = ""  # what its <html lang> declares (a primary subtag)

    @cached_property
    def text(self) -> str:
        """The kept text, one line per block (chunks of a block joined by a space)."""
        return block_lines(self.blocks, self.keep)

    @property
    def threshold(self) -> float | None:
        """The operating point: the smoothed score from which a block was removed."""
        return None if self.scores is None else self.scores.threshold

    @property
    def title(self) -> str:
        """The page's ``<title>``."""
        return self.head[0]

    @property
    def meta_keywords(self) -> str:
        """The page's first non-empty meta keywords."""
        return self.head[1]

    @property
    def meta_description(self) -> str:
        """The page's first non-empty meta (or Open Graph) description."""
        return self.head[2]

    @property
    def removed_chars(self) -> int:
        """Characters of body text the mode removed."""
        blocks = self.blocks
        removed = (blocks.chunk_block >= 0) & ~self.keep
        return int((blocks.chunk_ends - blocks.chunk_starts)[removed].sum())


class Cleaner:
    """A mode with its models loaded once: call it on pages, or run its :meth:`steps`
    over a batch one step at a time (:func:`denoise.steps.step_by_step`).

    Parameters
    ----------
    mode : what is removed (any but ``site``, which needs the site's other pages:
        :func:`clean_pages`).
    detector : the page-level detector for ``page`` (default: the shipped one at
        :data:`PAGE_RECALL`); its operating point is the one used.
    extractor : the main-content extractor for ``main`` (default: the shipped one).
    """

    def __init__(self, mode: Mode | str = DEFAULT_MODE, *,
                 detector: TemplateDetector | None = None,
                 extractor: MainContentExtractor | None = None) -> None:
        self.mode = Mode(mode)
        if self.mode is Mode.site:
            raise ValueError("mode 'site' needs the site's other pages: use clean_pages")
        if self.mode is Mode.page and detector is None:
            detector = default_detector()
        if self.mode is Mode.main and extractor is None:
            extractor = default_extractor()
        self.detector = detector if self.mode is Mode.page else None
        self.extractor = extractor if self.mode is Mode.main else None

    def steps(self) -> list[Callable[[Any], Any]]:
        """The steps from a page to its :class:`Cleaned`, to apply in turn."""
        return [self.parse, self.keep]

    def parse(self, page: Page) -> Parsed:
        """The first step: the page parsed once (with the markup counts scoring needs)."""
        return parse(page, markup=self.mode is not Mode.none)

    def keep(self, parsed: Parsed) -> Cleaned:
        """The second step: what the mode keeps of a parsed page."""
        blocks = parsed.blocks
        if self.mode is Mode.none:
            return Cleaned(parsed.page, self.mode, blocks, blocks.chunk_block >= 0,
                           head=parsed.head, declared_language=parsed.declared_language)
        if parsed.markup is None:
            raise ValueError("the page was parsed without the markup counts scoring needs")
        features = page_features(parsed.dom, blocks, parsed.markup)
        if self.extractor is not None:
            scores = self.extractor.scores(features)
            keep, fallback = self.extractor.kept(scores)
        else:
            assert self.detector is not None  # noqa: S101 (set for every mode but none)
            scores = self.detector.score_features(features).or_fallback()
            keep, fallback = scores.content_chunks(), scores.fallback
        return Cleaned(parsed.page, self.mode, blocks, keep, scores, head=parsed.head,
                       fallback=fallback, declared_language=parsed.declared_language)

    def __call__(self, page: Page) -> Cleaned:
        """What the mode keeps of ``page``."""
        return self.keep(self.parse(expect_page(page, "Cleaner")))


@lru_cache(maxsize=1)
def default_detector() -> TemplateDetector:
    """The shipped page-level detector at :data:`PAGE_RECALL`, loaded once a process."""
    return TemplateDetector.load().at_recall(PAGE_RECALL)


@lru_cache(maxsize=4)
def _default_cleaner(mode: Mode) -> Cleaner:
    return Cleaner(mode)


def clean(page: Page, mode: Mode | str = DEFAULT_MODE, *,
          detector: TemplateDetector | None = None,
          extractor: MainContentExtractor | None = None) -> Cleaned:
    """What ``mode`` keeps of ``page`` (``none``, ``page`` or ``main``; ``site`` needs
    the other pages of the site: :func:`clean_pages`). The shipped models are loaded
    once a process; ``detector`` and ``extractor`` replace them. Raises
    :class:`~denoise.errors.PageError` for a page that cannot be parsed."""
    mode = Mode(mode)
    if detector is None and extractor is None and mode is not Mode.site:
        return _default_cleaner(mode)(page)
    return Cleaner(mode, detector=detector, extractor=extractor)(page)


def clean_pages(pages: Iterable[Page], mode: Mode | str = DEFAULT_MODE, *,
                detector: TemplateDetector | None = None,
                extractor: MainContentExtractor | None = None,
                on_error: Callable[[PageError], None] | None = None,
                site_method: Callable[[str], SiteMethod] | None = None) -> Iterator[Cleaned]:
    """What ``mode`` keeps of each page, in input order except for ``site`` (which
    groups the pages by site first: sites in order of first appearance, and hands back
    copies of the pages without their HTML, so match them by ``id``).

    A page that cannot be parsed goes to ``on_error`` (raised without one).
    ``detector`` and ``extractor`` are those of :class:`Cleaner` (``site`` uses
    neither: a ``ValueError``). ``site_method(site)`` makes the unfitted site-level
    method of a site for ``site`` (default: the fingerprint labeller of
    :func:`denoise.training.site_labeller`; another method of the papers, or one bound
    to stored counts, :mod:`denoise.site.counts`).
    """
    mode = Mode(mode)
    pages = expect_pages(pages, "clean_pages")
    if mode is Mode.site:
        if detector is not None or extractor is not None:
            raise ValueError("mode 'site' uses no page-level model: give no detector or "
                             "extractor")
        method_for = site_method or (lambda _: site_labeller())
        for labelled in label_sites(pages, method_for, on_error=on_error):
            blocks = labelled.blocks
            keep = ~labelled.template_chunks() & (blocks.chunk_block >= 0)
            yield Cleaned(labelled.page, mode, blocks, keep)
        return
    if site_method is not None:
        raise ValueError(f"site_method is for mode 'site', not {mode.value!r}")
    cleaner = _default_cleaner(mode) if detector is None and extractor is None else Cleaner(
        mode, detector=detector, extractor=extractor)
    for page in pages:
        try:
            cleaned = cleaner(page)
        except PageError as error:
            if on_error is None:
                raise
            on_error(error)
            continue
        yield cleaned


#: The papers' site-level methods mode ``site`` can fit, by name.
SITE_METHODS: tuple[str, ...] = tuple(METHODS)
#: Those whose per-site counts can be kept in a file and grow from run to run.
STORED_SITE_METHODS = ("fingerprint", "shingle")


class SiteMethods:
    """A maker of one unfitted site-level method per site, for :func:`clean_pages`'s
    ``site_method``: ``name`` is one of :data:`SITE_METHODS` (the fingerprint method is
    :func:`denoise.training.site_labeller`'s, whose labels train the page-level model).
    With ``store`` (a path; :data:`STORED_SITE_METHODS` only), each site's counts live in
    that SQLite file (:class:`denoise.site.counts.SiteStore`), so a page is judged
    against every page of its site counted so far, in this run or earlier ones;
    :meth:`commit` makes them durable, :meth:`close` commits and closes."""

    def __init__(self, name: str = "fingerprint", store: str | Path | None = None) -> None:
        if name not in METHODS:
            raise ValueError(f"unknown site-level method {name!r}: one of "
                             f"{', '.join(SITE_METHODS)}")
        if store is not None and name not in STORED_SITE_METHODS:
            raise ValueError(f"the {name} method keeps no counts: a store is for "
                             f"{' and '.join(STORED_SITE_METHODS)}")
        self.name = name
        self._store = None if store is None else SiteStore(
            store, {"method": name, "scheme": METHODS[name].scheme})

    def __call__(self, site: str) -> SiteMethod:
        counts = None if self._store is None else self._store.counts(site)
        if self.name == "fingerprint":
            return site_labeller(counts=counts)
        return METHODS[self.name]() if counts is None else METHODS[self.name](counts=counts)

    def commit(self) -> None:
        if self._store is not None:
            self._store.commit()

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


@cache
def models_digest(mode: Mode | str) -> str | None:
    """The shipped models ``mode`` reads pages with, as a digest of their files; None when
    it uses none. What a saved search index or page classifier records beside its own
    recall."""
    paths = {Mode.page: (default_model_path(),),
             Mode.main: (repetition_model_path(), main_content_model_path(),
                         listing_model_path())}.get(Mode(mode))
    if paths is None:
        return None
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    return f"sha256:{digest.hexdigest()[:16]}"


def models_used(mode: Mode | str) -> str | None:
    """:func:`models_digest`, and the recall for ``page`` (:data:`PAGE_RECALL`). A saved
    near-duplicate index records it, so sketches made with other models are never
    compared."""
    digest = models_digest(mode)
    if digest is None or Mode(mode) is not Mode.page:
        return digest
    return f"{digest} at recall {PAGE_RECALL}"
