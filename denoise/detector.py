"""The site-independent template detector: score every block of one page, smooth the
scores over the DOM tree, cut at an operating point.

The pipeline per page: parse and walk once, features of the scored blocks
(:mod:`denoise.features`), the classifier's probabilities (:mod:`denoise.model`),
regularized tree isotonic regression (:mod:`denoise.smooth`, Chakrabarti et al. 4,
5.3; penalty ``c * A / A_i`` with areas from text and images, hidden tiny blocks as
weights), and a threshold. The threshold comes from the model's *operating curve*:
precision and recall of the smoothed scores on cross-site validation folds, so
``recall=0.5`` means "expect to find half of the template blocks of an unseen
site", at the precision the curve says.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Self

import numpy as np

from denoise.arguments import expect_page
from denoise.blocks import PageBlocks
from denoise.features import PageFeatures, extract
from denoise.model import ModelError, TemplateModel, default_model_path
from denoise.page import Page
from denoise.shipped import shipped
from denoise.smooth import smooth_page
from denoise.validation import Curve

try:
    from denoise import _compiled
except ImportError:  # the compiled extension is optional
    _compiled = None

#: Smoothing penalty constant ``c`` of Chakrabarti et al. 5.3 (gamma_i = c * A / A_i).
#: They settled on 0.01 by eye. On our dev sites' cross-site folds (the sweep in
#: benchmarks/RESULTS.md) 0.002-0.005 give ~96% pooled recall at 90% precision against
#: 94.6% for 0.01 and 85.2% for none; 0.001 has the best average over sites (81.7% vs
#: 79.4%) but 87.7% pooled. Our areas are characters, not pixels.
DEFAULT_SMOOTHING = 0.003
#: Scores are rounded to this grid before smoothing (see denoise.smooth).
SMOOTHING_LEVELS = 100
#: With site evidence, a block the site's own statistics call template gets this
#: probability of template on top of the classifier's (a noisy-OR of the two).
SITE_EVIDENCE = 0.9
#: A cut that leaves a page (next to) no text falls back: the blocks scoring within this
#: margin of the least template-like text it removed are kept after all, as a page has
#: content, however plain (:meth:`PageScores.fallback_scores`; main-content mode's
#: fallback and mode ``page``'s, :meth:`PageScores.or_fallback`).
FALLBACK_MARGIN = 0.1
#: A cut that keeps less than this share of the characters of a page's scored text (its
#: text inside the page's regions) has removed "nearly everything" and falls back; see
#: :meth:`PageScores.or_fallback` for the measurements behind it.
FALLBACK_SHARE = 0.01


def repetition_model_path() -> Path:
    """The shipped template model of repetition alone (site-level labels; the shipped
    detector until 2026-11-30), which main-content mode mixes with its content model and
    ``kwx`` removes templates with. The shipped detector (``default.npz``) also learns
    where the main content of documentation sites lies, which makes it the better
    template detector and the worse helper: mixed into main content it lowered every
    held-out set (mean F1 90.89 -> 90.4), as it agrees more with the content model,
    trained on those regions too; and it lowered the keyword benchmark's Top-10 score with
    templates removed on both test sites (MSN 45.95 -> 43.87, BBC 44.05 -> 39.91;
    ``benchmarks/RESULTS.md``, issue 33)."""
    return shipped("template-repetition.npz")


def add_site_evidence(raw: np.ndarray, site_template: np.ndarray) -> np.ndarray:
    """Classifier scores with site-level evidence: ``1 - (1 - p)(1 - q)`` where the
    site's statistics call the block template, ``p`` elsewhere.

    Only the template label counts: a block unique on its site may still be
    template (a navigation bar whose words change from page to page), so
    uniqueness says nothing the classifier should be overruled with.
    """
    return np.where(site_template, 1.0 - (1.0 - raw) * (1.0 - SITE_EVIDENCE), raw)


@dataclass(frozen=True)
class PageScores:
    """A page's scored blocks: classifier scores, smoothed scores, template or not.

    ``fallback`` marks scores whose cut was raised because the operating point left the
    page (next to) no text (:meth:`or_fallback`); ``threshold`` is then the raised one.
    """

    features: PageFeatures
    raw: np.ndarray  # float64 per node: the classifier's probability of template
    scores: np.ndarray  # float64 per node: after smoothing (= raw without it)
    threshold: float
    fallback: bool = False

    @property
    def template(self) -> np.ndarray:
        """Per node: template at the operating point."""
        return self.scores >= self.threshold

    @cached_property
    def _block_node(self) -> np.ndarray:
        """Per block: the scored node it takes its score from, or -1."""
        return self.features.node_of_block()

    @cached_property
    def block_scores(self) -> np.ndarray:
        """Per block of the page's regions: its node's score (a hidden block takes its
        nearest scored ancestor's; a block under none scores 0, content)."""
        node = self._block_node
        return np.where(node >= 0, np.append(self.scores, 0.0)[node], 0.0)

    @cached_property
    def block_raw(self) -> np.ndarray:
        """Per block of the page's regions: its node's classifier score, before smoothing
        (and, for a site's pages, before the site's evidence), as :attr:`block_scores`."""
        node = self._block_node
        return np.where(node >= 0, np.append(self.raw, 0.0)[node], 0.0)

    def template_chunks(self) -> np.ndarray:
        """Per text chunk of the page: inside a template block."""
        blocks = self.features.blocks
        chunk_block = blocks.chunk_block
        template = np.append(self.block_scores >= self.threshold, False)
        return template[chunk_block]

    def content_chunks(self) -> np.ndarray:
        """Per text chunk: the page's content (not template, and inside the page's
        regions, which leaves out the ``<head>``)."""
        features = self.features
        if _compiled is None:
            return self.content_chunks_numpy()
        return _compiled.content_chunks(
            features.blocks.parents.astype(np.int32, copy=False),
            features.nodes.astype(np.int64, copy=False),
            self.scores.astype(np.float64, copy=False), float(self.threshold),
            features.blocks.chunk_block.astype(np.int32, copy=False))

    def content_chunks_numpy(self) -> np.ndarray:
        """:meth:`content_chunks` by numpy steps (where the extension is not built; the
        tests' reference)."""
        return ~self.template_chunks() & (self.features.blocks.chunk_block >= 0)

    def fallback_scores(self, lowest: float | None = None,
                        margin: float = FALLBACK_MARGIN) -> PageScores:
        """These scores cut at ``margin`` above ``lowest``, marked ``fallback``: the
        blocks scoring within ``margin`` of it are kept too. By default ``lowest`` is the
        lowest block score of the text the cut removes (of all the page's scored text
        when it removes it all), so the fallback keeps what the cut kept and the text
        that looks least like template besides, never nothing (the same scores when the
        cut removes nothing). Main-content mode gives the page's lowest node score."""
        return self._raised(self.content_chunks(), lowest, margin)

    def _raised(self, keep: np.ndarray, lowest: float | None, margin: float) -> PageScores:
        if lowest is None:
            chunk_block = self.features.blocks.chunk_block
            removed = (chunk_block >= 0) & ~keep
            if not removed.any():
                return self
            lowest = float(self.block_scores[chunk_block[removed]].min())
        return replace(self, threshold=lowest + margin, fallback=True)

    def or_fallback(self) -> PageScores:
        """These scores, or :meth:`fallback_scores` when their cut keeps less than
        :data:`FALLBACK_SHARE` (1%) of the characters of the page's scored text.

        The rule, and why. A page falls back when its cut keeps under 1% of the text
        inside its regions (whatever its length, as long as it has such text). On
        ``sites-dev-news`` at the stored operating point of the detector shipped when the
        rule was made (threshold 0.35, then ``denoise apply``'s default; the one shipped
        now cuts at 0.62, and ``benchmarks/never_empty.py`` counts its fallbacks) 171 of
        the 1,505 pages kept nothing and 2 more
        under 1%: stories whose every scored block scored as template (a CNN story of
        2010), a shop's product pages, a blog's posts and tag pages. On the 90 of them
        with gold main text the fallback's text scores a word F1 of 0.77 against 0.00
        for the cut (0.47 for keeping all the text); on ``content-dev``, 385 pages fell
        back, 0.65 against 0.00 on the 286 with gold. Where the cut kept 1% to 5% of the
        text (13 pages) or 5% to 10% (52) the sliver it kept was mostly the article,
        and the fallback would have lowered F1 on the 3 + 3 with gold (0.16 to 0.10,
        0.55 to 0.25), so the share stays at 1%. There is no floor of page length: the
        pages that fell back were content pages down to the shortest (198 characters:
        a blog's tag page listing its posts), and the least template-like blocks are a
        better guess at a short page's content than nothing, as main-content mode
        also finds.

        The margin is main-content mode's (:data:`FALLBACK_MARGIN`), but taken from the
        lowest score of the text the cut removed rather than from the page's lowest
        node: that node may hold no text of its own (a ``<body>`` around a few links
        that the cut kept), and from it 8 of those 173 pages kept nothing still (4 of
        the 5 at recall 0.5), for a word F1 of 0.71 against 0.77.
        """
        keep = self.content_chunks()
        blocks = self.features.blocks
        chars = blocks.chunk_chars()
        scored = int(chars[blocks.chunk_block >= 0].sum())
        if not scored or int(chars[keep].sum()) >= FALLBACK_SHARE * scored:
            return self
        return self._raised(keep, None, FALLBACK_MARGIN)

    def content_text(self) -> str:
        """The text of every block not called template: one line per block (heading,
        paragraph, list item...). Not the article alone: that is
        :func:`denoise.main_text`, or :func:`denoise.clean` in mode ``main``."""
        return block_lines(self.features.blocks, self.content_chunks())


def block_lines(blocks: PageBlocks, keep: np.ndarray) -> str:
    """The kept chunks of a page as text, one line per block. Each run of neighbouring
    kept chunks of one block is a single slice of the page text, so they stay glued or
    one space apart as it has them (:mod:`denoise.blocks`' text model); runs of a block
    are one space apart (compiled: the slices copied into one new string, with no string
    made of each)."""
    if _compiled is not None:
        return _compiled.kept_text(
            blocks.text, blocks.chunk_starts.astype(np.int64, copy=False),
            blocks.chunk_ends.astype(np.int64, copy=False),
            blocks.chunk_block.astype(np.int32, copy=False), keep.astype(bool, copy=False))
    return block_lines_numpy(blocks, keep)


def block_lines_numpy(blocks: PageBlocks, keep: np.ndarray) -> str:
    """:func:`block_lines` by numpy steps, one slice per run and one join (where the
    extension is not built; the tests' reference)."""
    kept = np.flatnonzero(keep)
    if not len(kept):
        return ""
    owners = blocks.chunk_block[kept]
    new_block = owners[1:] != owners[:-1]
    ends_run = np.flatnonzero(new_block | (kept[1:] != kept[:-1] + 1))
    first = kept[np.concatenate(([0], ends_run + 1))]
    last = kept[np.append(ends_run, len(kept) - 1)]
    text = blocks.text
    pieces: list[str] = [""] * (2 * len(first) - 1)
    pieces[0::2] = [text[a:b] for a, b in zip(blocks.chunk_starts[first].tolist(),
                                                blocks.chunk_ends[last].tolist(), strict=True)]
    pieces[1::2] = np.where(new_block[ends_run], "\n", " ").tolist()
    return "".join(pieces)


class TemplateDetector:
    """Page-level template detection with a trained :class:`TemplateModel`.

    Parameters
    ----------
    model : the block classifier.
    curve : its cross-site operating curve (precision / recall by threshold).
    smoothing : the penalty constant ``c``; None scores blocks without smoothing.
    threshold : the operating point; see :meth:`at_recall`, :meth:`at_precision`.
    """

    def __init__(self, model: TemplateModel, *, curve: Curve | None = None,
                 smoothing: float | None = DEFAULT_SMOOTHING, threshold: float = 0.5) -> None:
        if smoothing is not None and not (math.isfinite(smoothing) and smoothing >= 0):
            raise ValueError(f"smoothing must be a finite number >= 0 or None, got {smoothing!r}")
        if not 0.0 <= threshold <= 1.0 + 1e-6:
            raise ValueError(f"threshold must be in [0, 1], got {threshold!r}")
        self.model = model
        self.curve = curve
        self.smoothing = smoothing
        self.threshold = threshold

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> Self:
        """The detector saved at ``path`` (the shipped default model if None), at the
        operating point chosen when it was trained."""
        source = path if path is not None else default_model_path()
        model = TemplateModel.load(source)
        header = model.header_
        if header.get("role", "template") != "template":
            raise ModelError(str(source), f"a {header.get('role')} model, not a template "
                             "model (give it to MainContentExtractor)")
        try:
            curve = Curve.from_dict(header["curve"]) if "curve" in header else None
            smoothing = header.get("smoothing", DEFAULT_SMOOTHING)
            if smoothing is not None:
                smoothing = float(smoothing)
            return cls(model, curve=curve, smoothing=smoothing,
                       threshold=float(header.get("threshold", 0.5)))
        except (KeyError, TypeError, ValueError) as error:
            raise ModelError(str(source), f"corrupt operating curve or point ({error})") from None

    def save(self, path: str | os.PathLike[str], *,
             training: dict[str, object] | None = None) -> None:
        """Write the detector (its model, curve, operating point and smoothing) to
        ``path`` atomically, for :meth:`load`; ``training`` records what it was trained
        on."""
        extra: dict[str, object] = {"role": "template", "threshold": self.threshold,
                                    "smoothing": self.smoothing}
        if self.curve is not None:
            extra["curve"] = self.curve.sampled().as_dict()
        if training is not None:
            extra["training"] = training
        self.model.save(path, extra=extra)

    def _need_curve(self) -> Curve:
        if self.curve is None:
            raise ValueError("this model has no operating curve: train it with "
                             "'denoise train' to pick thresholds by recall or precision")
        return self.curve

    def at_recall(self, recall: float) -> Self:
        """A copy that cuts where the expected template recall is ``recall``."""
        if not 0.0 < recall <= 1.0:
            raise ValueError(f"recall must be in (0, 1], got {recall!r}")
        threshold = self._need_curve().threshold_for_recall(recall)
        return type(self)(self.model, curve=self.curve, smoothing=self.smoothing,
                          threshold=min(threshold, 1.0))

    def at_precision(self, precision: float) -> Self:
        """A copy that cuts where the expected template precision is ``precision``."""
        if not 0.0 < precision <= 1.0:
            raise ValueError(f"precision must be in (0, 1], got {precision!r}")
        threshold = self._need_curve().threshold_for_precision(precision)
        return type(self)(self.model, curve=self.curve, smoothing=self.smoothing,
                          threshold=min(threshold, 1.0 + 1e-6))

    def expected(self) -> tuple[float, float] | None:
        """Precision and recall the curve expects at this threshold (None without one)."""
        return self.curve.at(self.threshold) if self.curve is not None else None

    def smooth(self, features: PageFeatures, raw: np.ndarray) -> np.ndarray:
        """The classifier's scores smoothed over the page's tree of scored blocks."""
        if self.smoothing is None or not len(raw):
            return raw
        return smooth_page(raw, features.parents, features.weights, features.areas,
                           self.smoothing, SMOOTHING_LEVELS)

    def score_features(self, features: PageFeatures,
                       site_template: np.ndarray | None = None) -> PageScores:
        """Score a page already turned into features; ``site_template`` (bool per node)
        adds site-level evidence (:func:`add_site_evidence`) before smoothing."""
        raw = self.model.predict_proba(features)
        combined = raw if site_template is None else add_site_evidence(raw, site_template)
        return PageScores(features, raw, self.smooth(features, combined), self.threshold)

    def score(self, page: Page) -> PageScores:
        """Parse, segment, score and smooth one page."""
        return self.score_features(extract(expect_page(page, "TemplateDetector.score")))

