"""The text each mining task sees: FULLTEXT, SITELEVEL, PAGELEVEL and main content."""

import pytest
from sitegen import FOOTER, article_site, generated_site

from denoise.detector import TemplateDetector
from denoise.errors import PageError
from denoise.page import Page
from mining.content import PAGE_RECALL, Mode, page_texts


@pytest.fixture(scope="module")
def site():
    return article_site(12)


def test_fulltext_keeps_everything_and_site_level_drops_what_recurs(site):
    full = {page.id: text for page, text in page_texts(site, "none")}
    kept = {page.id: text for page, text in page_texts(site, "site")}
    footer_words = "All rights reserved in every country"
    for page in site:
        assert footer_words in full[page.id]
        assert footer_words not in kept[page.id]
        assert kept[page.id]  # the article stays


def test_page_level_cuts_the_shipped_detector_at_the_mining_recall():
    pages = generated_site(3, 4)
    detector = TemplateDetector.load()
    by_default = [text for _, text in page_texts(pages, Mode.page)]
    explicit = [text for _, text in page_texts(pages, "page",
                                               detector=detector.at_recall(PAGE_RECALL))]
    assert by_default == explicit
    stored = [text for _, text in page_texts(pages, "page", detector=detector)]
    assert sum(map(len, stored)) <= sum(map(len, by_default))


def test_main_content_is_the_article_alone_and_in_input_order(site):
    texts = list(page_texts(site, "main"))
    assert [page for page, _ in texts] == site
    for page, text in texts:
        assert text and "Copyright 2026" not in text and "Browse the complete" not in text
        assert text.split("\n")[0] in page.html


def test_a_page_that_cannot_be_parsed_is_passed_on_or_raised():
    bad = Page(id="bad.html", html="")
    good = article_site(1)[0]
    for mode in Mode:
        seen: list[PageError] = []
        texts = list(page_texts([bad, good], mode, on_error=seen.append))
        assert [page.id for page, _ in texts] == [good.id], mode
        assert [error.source for error in seen] == ["bad.html"], mode
        with pytest.raises(PageError, match=r"bad\.html"):
            list(page_texts([bad], mode))


def test_site_level_text_keeps_what_lies_outside_block_tags():
    pages = [Page(id=f"{i}.html", site="one", html=f"<html><body><p>Story {i} about "
                  f"walnut harbors and copper lanterns number {i}.</p>{FOOTER}</body></html>")
             for i in range(4)]
    for page, text in page_texts(pages, "site"):
        assert f"Story {page.id[0]} about walnut" in text


def test_page_words_are_the_words_of_the_fulltext(dev_site_pages):
    import numpy as np

    from mining.content import PageWords
    from mining.shingles import word_hashes

    job = PageWords(Mode.none)
    job.setup()

    pages = [*dev_site_pages[:60], Page(id="tail.html", html="<title>T</title><p>a<b>b</b> c"),
             Page(id="empty-body.html", html="<html><head><title>Only a title</title></head>")]
    texts = dict((page.id, text) for page, text in page_texts(pages, Mode.none))
    counted = 0
    for page in pages:
        expected = word_hashes(texts[page.id])
        assert np.array_equal(job(page), expected), page.id
        counted += len(expected)
    assert counted > 10_000
