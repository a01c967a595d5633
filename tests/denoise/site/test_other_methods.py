import numpy as np
import pytest
from sitegen import article_site

from denoise.page import Page
from denoise.site import REASONS, Label, ShingleMethod, TableChunkMethod
from denoise.site.shingle import shingle_fingerprint


def run(method, pages):
    blocks = [method.segment(p) for p in pages]
    method.fit(blocks)
    return [method.label(b) for b in blocks]


def texts_with(page, label):
    return [b.text for b, lab in zip(page.blocks.blocks, page.labels, strict=True) if lab == label]


def test_shingle_finds_link_bars_and_footer_and_keeps_articles():
    for page in run(ShingleMethod(), article_site(20)):
        template = " ".join(texts_with(page, Label.TEMPLATE))
        assert "Browse the complete widget catalog here" in template
        assert "All rights reserved" in template
        content = texts_with(page, Label.CONTENT)
        assert any(text.startswith("Story") for text in content)


def test_shingle_fingerprint_survives_an_edit_far_from_its_minimum_shingles():
    words = " ".join(f"w{i}" for i in range(200))
    assert shingle_fingerprint(words) == shingle_fingerprint(words)
    edited = [shingle_fingerprint(words.replace(f"w{i} ", f"x{i} ", 1)) for i in range(200)]
    assert sum(f == shingle_fingerprint(words) for f in edited) > 150
    assert shingle_fingerprint("one two") != shingle_fingerprint("one three")


def table_page(index: int, body: str) -> Page:
    html = (
        "<html><body><table><tr><td><a href='/'>Home</a> | <a href='/news'>News and "
        "stories</a> | <a href='/help'>Help desk</a></td></tr></table>"
        f"<table><tr><td>{body}</td></tr></table>"
        "<table><tr><td>Terms of use and privacy policy of the site</td></tr></table>"
        "</body></html>"
    )
    return Page(id=f"t{index}.html", html=html, site="tables.example")


def test_table_chunks_over_threshold_are_template():
    pages = [table_page(i, f"Article number {i} about item{i} and thing{i}.") for i in range(20)]
    for page in run(TableChunkMethod(), pages):
        assert texts_with(page, Label.TEMPLATE) == [
            "Home | News and stories | Help desk", "Terms of use and privacy policy of the site"]
        assert len(texts_with(page, Label.CONTENT)) == 1
        assert Label.UNKNOWN not in page.labels


def test_table_chunk_removes_near_duplicate_pages_before_counting():
    pages = [table_page(i, f"Article number {i} about item{i} and thing{i}.") for i in range(20)]
    copies = [table_page(100 + i, "The same story copied under many URLs.") for i in range(5)]
    method = TableChunkMethod(theta=0.2)
    labelled = run(method, pages + copies)
    assert len(method.duplicates_) == 4
    assert method.pages_ == 21
    copy = labelled[-1]
    assert texts_with(copy, Label.CONTENT) == ["The same story copied under many URLs."]
    # without I-Match the copied story (5 of 25 pages = 20%) would have been template
    reasons = [REASONS[r] for r in copy.reasons]
    assert "text" in reasons


def test_methods_label_a_site_too_small_for_templates_as_content_or_unknown():
    pages = article_site(1)
    for method in (ShingleMethod(), TableChunkMethod()):
        page = run(method, pages)[0]
        assert not np.any(page.labels == Label.TEMPLATE)


@pytest.mark.parametrize("method", [ShingleMethod(theta=2.0), TableChunkMethod(theta=-1)])
def test_methods_refuse_bad_theta(method):
    with pytest.raises(ValueError, match="theta"):
        method.fit([])



def test_style_offset_labels_a_page_with_text_but_no_layout_block():
    from denoise.site import StyleOffsetMethod

    stub = Page(id="moved.html", html="<html><head><title>Moved</title></head></html>",
                site="example.com")
    method = StyleOffsetMethod()
    page = run(method, [*article_site(6), stub])[-1]
    assert not page.template_chunks().any()
    assert page.template_share() == (0, len("Moved"))


def test_imatch_keeps_pages_apart_whose_signature_is_empty():
    # every word of these pages is on more than half of them: the signatures are empty
    pages = [table_page(i, "Shared words only here") for i in range(4)]
    pages = [Page(id=f"s{i}.html", html=p.html.replace("Shared words only here", " ".join(
        ["Shared words only here"] * (i + 1))), site=p.site) for i, p in enumerate(pages)]
    method = TableChunkMethod()
    labelled = run(method, pages)
    assert method.duplicates_ == []
    assert method.pages_ == 4
    assert "Home | News and stories | Help desk" in texts_with(labelled[0], Label.TEMPLATE)
