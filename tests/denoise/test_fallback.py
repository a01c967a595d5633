"""Never silently empty (issue 33): a cut that would leave a page (next to) no text keeps
the blocks that look least like template instead, and says so."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from sitegen import article_page

from denoise import Page, TemplateDetector, clean
from denoise.cleaning import default_detector
from denoise.detector import FALLBACK_MARGIN, FALLBACK_SHARE, PageScores
from denoise.main_content import default_extractor

STORY = "The river keeper counted the boats at dawn and wrote each name in the harbour book."
#: A tiny block, the long story's six paragraphs and a footer.
PAGE = Page(id="harbour.html", html=(
    "<html><body><div id='top'><p>Go.</p></div><div id='main'>"
    + "".join(f"<p>{STORY} {STORY} {STORY} Part {i}.</p>" for i in range(6))
    + "</div><div id='foot'><p>Copyright the harbour office, all rights reserved.</p></div>"
    "</body></html>"))


@pytest.fixture(scope="module")
def shipped():
    return TemplateDetector.load()


@pytest.fixture(scope="module")
def all_template(shipped):
    """The shipped detector cut at 0: every block scores as template."""
    return TemplateDetector(shipped.model, curve=shipped.curve, smoothing=shipped.smoothing,
                            threshold=0.0)


def kept_share(scores: PageScores) -> float:
    blocks = scores.features.blocks
    chars = blocks.chunk_chars()
    return chars[scores.content_chunks()].sum() / chars[blocks.chunk_block >= 0].sum()


def test_a_page_whose_every_block_scores_as_template_still_has_text(all_template):
    page = article_page(3)
    cut = all_template.score(page)
    assert cut.content_text() == ""  # what 'denoise apply' wrote before
    cleaned = clean(page, "page", detector=all_template)
    assert cleaned.fallback and cleaned.scores is not None and cleaned.scores.fallback
    assert cleaned.text and cleaned.threshold > 0.0
    # the blocks within the margin of the page's least template-like text
    lowest = float(cut.block_scores[cut.features.blocks.chunk_block].min())
    assert cleaned.threshold == pytest.approx(lowest + FALLBACK_MARGIN)
    story = [part.split("</p>")[0] for part in article_page(3).html.split("<p>")[1:-1]]
    assert any(paragraph in cleaned.text for paragraph in story)  # the article's
    assert "Copyright" not in cleaned.text


def test_a_cut_that_keeps_a_sliver_falls_back_and_one_that_keeps_more_does_not(shipped):
    scores = shipped.score(PAGE)
    tags = [scores.features.blocks.tags[i] for i in scores.features.nodes]
    assert tags == ["body", "div", *["p"] * 6, "div", "p"]
    mine = np.array([0.1, 0.7, *[0.7] * 6, 0.9, 0.9])  # body (holding "Go."), story, footer
    cut = PageScores(scores.features, mine, mine, 0.5)
    assert cut.content_text() == "Go." and 0 < kept_share(cut) < FALLBACK_SHARE
    widened = cut.or_fallback()
    assert widened.fallback and widened.threshold == pytest.approx(0.7 + FALLBACK_MARGIN)
    assert "Go." in widened.content_text() and "Part 5." in widened.content_text()
    assert "Copyright" not in widened.content_text()
    story = PageScores(scores.features, mine, mine, 0.8)  # keeps the story: no fallback
    assert story.or_fallback() is story and not story.fallback


def test_the_fallback_follows_its_rule_at_every_threshold(shipped):
    """Fallback exactly where the cut keeps under FALLBACK_SHARE of the scored text;
    it then keeps a superset, cut at the margin above the lowest removed text."""
    for page in (PAGE, article_page(1), article_page(2, docnav=True)):
        scores = shipped.score(page)
        chunk_block = scores.features.blocks.chunk_block
        for threshold in [0.0, *np.unique(scores.scores).tolist(), 1.0]:
            cut = dataclasses.replace(scores, threshold=threshold)
            after = cut.or_fallback()
            assert after.fallback == (kept_share(cut) < FALLBACK_SHARE), (page.id, threshold)
            if after.fallback:
                before = cut.content_chunks()
                assert (after.content_chunks() >= before).all() and after.content_text()
                removed = (chunk_block >= 0) & ~before
                lowest = cut.block_scores[chunk_block[removed]].min()
                assert after.threshold == pytest.approx(lowest + FALLBACK_MARGIN)


def test_a_page_the_cut_keeps_is_not_touched(shipped):
    scores = shipped.score(article_page(1))
    assert scores.or_fallback() is scores
    cleaned = clean(article_page(1), "page")
    assert not cleaned.fallback and cleaned.threshold == default_detector().threshold


def test_main_content_mode_says_when_it_falls_back():
    page = article_page(3)
    assert not clean(page).fallback and not clean(page, "none").fallback
    boiler = dataclasses.replace(default_extractor(), threshold=0.0)
    cleaned = clean(page, "main", extractor=boiler)
    assert cleaned.fallback and cleaned.text
    keep, fallback = boiler.kept(cleaned.scores)
    assert fallback and (keep == cleaned.keep).all()
    assert (boiler.kept_chunks(cleaned.scores) == keep).all()
