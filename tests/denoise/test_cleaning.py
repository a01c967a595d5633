"""denoise.cleaning (``denoise.clean``): the one de-noising step every application reads
pages through."""

from __future__ import annotations

import numpy as np
import pytest
from sitegen import article_site

from denoise import Cleaned, Cleaner, Mode, Page, PageError, clean, clean_pages
from denoise.cleaning import DEFAULT_MODE, PAGE_RECALL, default_detector
from denoise.main_content import default_extractor

PAGE = Page(id="shop.html", html=(
    "<html><head><title>Oak shelf</title><meta name='description' content='A shelf.'>"
    "<meta name='keywords' content='oak, shelf'></head><body>"
    "<nav><a href='/'>Home</a> <a href='/shop'>Shop</a> <a href='/about'>About us</a></nav>"
    "<article><h1>The oak shelf</h1><p>Solid oak, oiled by hand, holds forty kilos on each "
    "board and hangs on two hidden brackets that come in the box.</p><p>Every shelf is "
    "cut from one plank, so the grain runs from end to end without a joint.</p></article>"
    "<footer>Copyright 2026 The Shelf Shop. All rights reserved.</footer></body></html>"))


def test_the_default_mode_is_the_main_content():
    assert DEFAULT_MODE is Mode.main and set(Mode) == {"none", "site", "page", "main"}
    cleaned = clean(PAGE)
    assert isinstance(cleaned, Cleaned) and cleaned.mode is Mode.main
    assert "forty kilos" in cleaned.text and "grain runs" in cleaned.text
    assert "Copyright" not in cleaned.text and "About us" not in cleaned.text
    assert cleaned.scores is not None and cleaned.threshold == cleaned.scores.threshold
    assert (cleaned.title, cleaned.meta_description, cleaned.meta_keywords) == (
        "Oak shelf", "A shelf.", "oak, shelf")


def test_each_mode_keeps_what_it_says():
    whole = clean(PAGE, "none")
    assert whole.scores is None and whole.threshold is None and whole.removed_chars == 0
    for word in ("About us", "forty kilos", "Copyright"):
        assert word in whole.text
    page = clean(PAGE, Mode.page)
    assert page.threshold == default_detector().threshold == min(
        default_detector().curve.threshold_for_recall(PAGE_RECALL), 1.0)
    assert "forty kilos" in page.text
    main = clean(PAGE, "main")
    assert main.removed_chars > 0 and len(main.text) < len(whole.text)
    # the kept chunks are the text, one line per block
    assert main.keep.dtype == bool and len(main.keep) == len(main.blocks.chunk_block)
    assert not (main.keep & (main.blocks.chunk_block < 0)).any()


def test_the_text_is_what_the_models_give_whole():
    # the step is the detector's and the extractor's own reading of the page, nothing else
    assert clean(PAGE, "main").text == default_extractor().extract(PAGE)
    assert clean(PAGE, "page").text == default_detector().score(PAGE).content_text()


def test_a_cleaner_runs_as_steps_with_the_same_result():
    cleaner = Cleaner("main")
    value = PAGE
    for step in cleaner.steps():
        value = step(value)
    assert value.text == cleaner(PAGE).text == clean(PAGE).text
    assert np.array_equal(value.keep, clean(PAGE).keep)


def test_site_mode_needs_the_sites_other_pages():
    with pytest.raises(ValueError, match="clean_pages"):
        clean(PAGE, "site")
    with pytest.raises(ValueError, match="clean_pages"):
        Cleaner("site")
    pages = article_site(12)
    kept = {cleaned.page.id: cleaned for cleaned in clean_pages(pages, "site")}
    assert set(kept) == {page.id for page in pages}
    one = kept[pages[3].id]
    assert one.mode is Mode.site and one.scores is None
    assert "Story 3" in one.text and "All rights reserved" not in one.text


def test_bad_pages_are_raised_or_passed_on():
    empty = Page(id="empty.html", html="")
    with pytest.raises(PageError, match=r"empty\.html"):
        clean(empty)
    errors = []
    kept = list(clean_pages([empty, PAGE], "none", on_error=errors.append))
    assert [c.page.id for c in kept] == ["shop.html"] and errors[0].source == "empty.html"
    with pytest.raises(ValueError, match="'article' is not a mode: one of 'none', 'site'"):
        clean(PAGE, "article")
    with pytest.raises(TypeError):
        clean("<p>not a page</p>")
