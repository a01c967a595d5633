"""Main-content mode: "give me the article" of one page.

Template detection says what a site repeats; the article is narrower than "not
repeated" (teasers, comments and related-link lists are unique to a page yet not
the article). So the main text combines three things (the whole is measured by
``benchmarks/main_content.py``; each step raised F1 on a 40-pages-a-set sample while
it was developed, a check not kept as a benchmark):

1. The block scores of two models over the same features: the site-level-trained
   template model (:mod:`denoise.detector`) and a *main-content model* trained the
   same way on blocks labelled by gold main texts of the dev sites (news pages'
   human extractions, docs sites' main-content XPath; see
   :mod:`corpora.train_main_content`). Their probabilities are averaged
   (``weight``), smoothed over the tree, and cut at ``threshold``.
   A page where every block scores as boilerplate keeps the blocks closest to
   its lowest score instead (short pages: a product blurb, an error notice).
2. Link density: a kept block whose text is mostly anchor text (a list of links)
   is dropped, as readability and jusText do; so is text whose innermost block,
   scored or too small to be, is mostly links (a short menu inside the article's
   container).
3. One region: the scored block whose content characters minus boilerplate
   characters is largest (readability's "top candidate", over our scores), and only
   the content inside it.

The parameters live in the main-content model's header; they were chosen on a
40-page-a-set sample of the content-dev sets, which the figures in
``benchmarks/RESULTS.md`` then report in full.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from denoise.arguments import expect_page, expect_text
from denoise.blocks import PageBlocks
from denoise.detector import PageScores, TemplateDetector, block_lines
from denoise.features import FEATURE_NAMES, PageFeatures, extract
from denoise.model import ModelError, TemplateModel
from denoise.page import Page, site_of
from denoise.shipped import shipped

_ANCHOR = FEATURE_NAMES.index("anchor_text")
#: When every block scores as boilerplate, the blocks within this margin of the
#: page's lowest score are its content: a page has an article, however plain.
FALLBACK_MARGIN = 0.1


def main_content_model_path() -> Path:
    """The main-content model shipped with the package."""
    return shipped("main_content.npz")


@dataclass(frozen=True)
class MainContentExtractor:
    """The main text of a page from the template detector and a main-content model.

    Parameters
    ----------
    detector : the template detector (its smoothing is used for the mixed scores).
    content_model : the main-content model; None uses the template scores alone.
    weight : share of the template model in the mixed probability.
    threshold : mixed, smoothed score from which a block is boilerplate.
    link_density : a block with more of its text in anchors than this is dropped.
    one_region : keep only the content inside the best region (see module doc).
    """

    detector: TemplateDetector
    content_model: TemplateModel | None = None
    weight: float = 0.5
    threshold: float = 0.55
    link_density: float = 0.5
    one_region: bool = True

    def __post_init__(self) -> None:
        for name in ("weight", "threshold", "link_density"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {value!r}")

    @classmethod
    def load(cls, template: str | Path | None = None,
             content: str | Path | None = None) -> MainContentExtractor:
        """The shipped (or given) models, with the parameters stored with the content model."""
        detector = TemplateDetector.load(template)
        source = content if content is not None else main_content_model_path()
        model = TemplateModel.load(source)
        header = model.header_
        params = header.get("main_content")
        if header.get("role") != "main-content" or not isinstance(params, dict):
            raise ModelError(str(source), "not a main-content model (no main_content "
                             "parameters; see corpora.train_main_content)")
        try:
            return cls(detector, model, **params)
        except (TypeError, ValueError) as error:
            raise ModelError(str(source), f"corrupt main-content parameters ({error})") from None

    def scores(self, features: PageFeatures,
               template_raw: np.ndarray | None = None) -> PageScores:
        """The mixed, smoothed boilerplate scores of the page's blocks (``template_raw``:
        the template model's probabilities, when already computed)."""
        raw = template_raw if template_raw is not None else self.detector.model.predict_proba(
            features)
        if self.content_model is not None:
            raw = self.weight * raw + (1.0 - self.weight) * self.content_model.predict_proba(
                features)
        return PageScores(features, raw, self.detector.smooth(features, raw), self.threshold)

    def content_chunks(self, features: PageFeatures,
                       template_raw: np.ndarray | None = None) -> np.ndarray:
        """Per text chunk of the page: part of the main content."""
        return self.kept_chunks(self.scores(features, template_raw))

    def kept_chunks(self, scores: PageScores) -> np.ndarray:
        """Per text chunk of the page: part of the main content, from the page's mixed
        scores (:meth:`scores`)."""
        features = scores.features
        blocks = features.blocks
        if not len(features.nodes):
            return scores.content_chunks()
        node = features.node_of_block()[blocks.chunk_block]
        linky = np.append(features.matrix[:, _ANCHOR] > self.link_density, False)[node]
        linky |= np.append(_anchor_shares(blocks) > self.link_density, False)[blocks.chunk_block]
        keep = scores.content_chunks() & ~linky
        if not keep.any():  # all looks like boilerplate: keep what looks least like it
            relative = PageScores(features, scores.raw, scores.scores,
                                  float(scores.scores.min()) + FALLBACK_MARGIN)
            keep = relative.content_chunks()
            keep = keep & ~linky if (keep & ~linky).any() else keep
        if self.one_region and keep.any():
            chars = blocks.chunk_chars()
            good = np.concatenate(([0], np.cumsum(chars * keep)))
            bad = np.concatenate(([0], np.cumsum(chars * (~keep & (blocks.chunk_block >= 0)))))
            spans = blocks.spans[features.nodes]
            inside = good[spans[:, 1]] - good[spans[:, 0]]
            margin = np.where(inside > 0, inside - (bad[spans[:, 1]] - bad[spans[:, 0]]), -np.inf)
            if not np.isfinite(margin).any():  # the content lies outside every scored block
                return keep
            start, end = spans[int(np.argmax(margin))]
            region = np.zeros(len(keep), dtype=bool)
            region[start:end] = True
            keep &= region
        return keep

    def text(self, features: PageFeatures, template_raw: np.ndarray | None = None) -> str:
        """The main text: one line per block."""
        return block_lines(features.blocks, self.content_chunks(features, template_raw))

    def extract(self, page: Page) -> str:
        """Parse ``page`` once and return its main text."""
        return self.text(extract(expect_page(page, "MainContentExtractor.extract")))


def _anchor_shares(blocks: PageBlocks) -> np.ndarray:
    """Per block (scored or not): the share of its text in anchors."""
    chars = blocks.chunk_chars()
    anchor = np.concatenate(([0], np.cumsum(chars * blocks.chunk_in_link)))
    total = np.concatenate(([0], np.cumsum(chars)))
    spans = blocks.spans
    return (anchor[spans[:, 1]] - anchor[spans[:, 0]]) / np.maximum(
        total[spans[:, 1]] - total[spans[:, 0]], 1)


@lru_cache(maxsize=1)
def default_extractor() -> MainContentExtractor:
    """The shipped models, loaded once a process."""
    return MainContentExtractor.load()


def main_text(html: str, url: str | None = None) -> str:
    """The main content of one page as text, one line per block.

    Scores the page on its own with the shipped models (no other page of its site
    needed); ``url`` helps tell links within the site from links away. Raises
    :class:`~denoise.errors.PageError` for a page lxml cannot parse at all.
    """
    expect_text(html, "html", "main_text")
    expect_text(url, "url", "main_text", optional=True)
    page = Page(id=url or "<html>", html=html, url=url, site=site_of(url))
    return default_extractor().extract(page)
