import numpy as np
import pytest
from sitegen import article_page, article_site

from denoise.errors import StoreError
from denoise.site import REASONS, FingerprintMethod, Label, SiteStore


def run(pages, **params):
    method = FingerprintMethod(**params)
    blocks = [method.segment(p) for p in pages]
    method.fit(blocks)
    return [method.label(b) for b in blocks]


def labels_by_path(labelled):
    return {b.path: (Label(int(lab)), REASONS[r]) for b, lab, r in zip(
        labelled.blocks.blocks, labelled.labels, labelled.reasons, strict=True)}


def test_shared_header_and_footer_are_template_articles_content():
    for page in run(article_site(20)):
        found = labels_by_path(page)
        assert found["/html/body/div[1]/ul"][0] is Label.TEMPLATE
        assert found["/html/body/div[3]"][0] is Label.TEMPLATE  # footer
        assert found["/html/body/div[2]"] == (Label.CONTENT, "unique")  # article
        # the article's paragraphs are content but only the article is a training example
        paragraphs = [i for i, b in enumerate(page.blocks.blocks) if b.tag == "p"
                      and b.path.startswith("/html/body/div[2]")]
        assert all(page.labels[i] == Label.CONTENT for i in paragraphs)
        assert not page.example[paragraphs].any()


def test_theta_separates_template_frequent_and_unique():
    rare = '<div class="promo">A special promotion that runs on a few pages only this week</div>'
    pages = [article_page(i, extra=rare if i < 3 else "") for i in range(30)]
    promo = "/html/body/div[2]/div"
    assert labels_by_path(run(pages, theta=0.1)[0])[promo] == (Label.TEMPLATE, "text")  # 3/30
    pages = [article_page(i, extra=rare if i < 2 else "") for i in range(30)]
    assert labels_by_path(run(pages, theta=0.1)[0])[promo] == (Label.UNKNOWN, "frequent")  # 2/30
    assert labels_by_path(run(pages, theta=0.05)[0])[promo] == (Label.TEMPLATE, "text")


def test_short_blocks_are_not_labelled():
    page = run(article_site(20))[0]
    found = labels_by_path(page)
    assert found["/html/body/div[1]/ul/li[1]"] == (Label.UNKNOWN, "short")


def test_block_holding_template_is_not_content():
    page = run(article_site(20))[0]
    # <html>/<body> are not block tags; the header div holds only the template list
    body_blocks = [b for b in page.blocks.blocks if b.tag == "div" and b.parent < 0]
    assert body_blocks
    tiny = [article_page(i, extra="") for i in range(2)]
    # on a two-page site the shared footer is frequent (2 of 2): the article stays content
    found = labels_by_path(run(tiny)[0])
    assert found["/html/body/div[3]"][0] is Label.TEMPLATE
    assert found["/html/body/div[2]"][0] is Label.CONTENT


def test_contained_rule_labels_short_children_of_template():
    page = run(article_site(20), contained=0.85)[0]
    found = labels_by_path(page)
    assert found["/html/body/div[1]/ul/li[1]"] == (Label.TEMPLATE, "contained")


def test_structure_finds_navigation_with_varying_words():
    pages = article_site(20, docnav=True)
    plain = labels_by_path(run(pages)[5])
    assert plain["/html/body/div[3]"][0] is not Label.TEMPLATE
    structured = labels_by_path(run(pages, structure=True)[5])
    assert structured["/html/body/div[3]"] == (Label.TEMPLATE, "structure")
    assert structured["/html/body/div[2]"][0] is Label.CONTENT  # articles are not masked away


def test_invalid_theta_is_refused():
    with pytest.raises(ValueError, match="theta"):
        FingerprintMethod(theta=0.0).fit([])


def test_store_accumulates_runs_like_one_in_memory_run(tmp_path):
    pages = article_site(24)
    expected = run(pages)
    settings = {"method": "fingerprint"}
    with SiteStore(tmp_path / "s.sqlite", settings) as store:
        first = FingerprintMethod(counts=store.counts("example.com"))
        first.fit([first.segment(p) for p in pages[:10]])
    with SiteStore(tmp_path / "s.sqlite", settings) as store:
        second = FingerprintMethod(counts=store.counts("example.com"))
        # pages 5..9 come again: counted once
        blocks = [second.segment(p) for p in pages[5:]]
        second.fit(blocks)
        got = [second.label(second.segment(p)) for p in pages]
    for want, have in zip(expected, got, strict=True):
        assert np.array_equal(want.labels, have.labels)
        assert np.allclose(want.support, have.support)


def test_store_labels_a_new_page_of_a_known_site_at_once(tmp_path):
    with SiteStore(tmp_path / "s.sqlite", {}) as store:
        FingerprintMethod(counts=store.counts("example.com")).fit(
            FingerprintMethod().segment(p) for p in article_site(20))
    with SiteStore(tmp_path / "s.sqlite", {}) as store:
        method = FingerprintMethod(counts=store.counts("example.com")).fit([])
        new = article_page(99, seed=7)
        found = labels_by_path(method.label(method.segment(new)))
    assert found["/html/body/div[1]/ul"][0] is Label.TEMPLATE
    assert found["/html/body/div[2]"][0] is Label.CONTENT


def test_store_refuses_other_settings_and_corrupt_files(tmp_path):
    SiteStore(tmp_path / "s.sqlite", {"method": "fingerprint"}).close()
    with pytest.raises(StoreError, match="settings"):
        SiteStore(tmp_path / "s.sqlite", {"method": "shingle"})
    (tmp_path / "bad.sqlite").write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(StoreError, match=r"bad\.sqlite"):
        SiteStore(tmp_path / "bad.sqlite", {})


def test_structure_leaves_prose_with_links_alone():
    pages = [article_page(i, extra=f'<div>See <a href="/a{i}">report{i} appendix{i}</a> and '
                                   f'the <a href="/b{i}">budget{i} summary{i}</a> for the '
                                   "numbers behind this story.</div>") for i in range(20)]
    found = labels_by_path(run(pages, structure=True)[3])
    assert found["/html/body/div[2]/div"] == (Label.CONTENT, "unique")


def test_structure_does_not_take_the_container_of_article_and_navigation():
    pages = article_site(20, docnav=True)
    wrapped = [type(p)(id=p.id, url=p.url, site=p.site, html=p.html.replace(
        '<div id="main">', '<div id="wrap"><div id="main">').replace(
        '<div id="footer">', '</div><div id="footer">')) for p in pages]
    found = labels_by_path(run(wrapped, structure=True)[5])
    assert found["/html/body/div[2]/div[2]"] == (Label.TEMPLATE, "structure")  # the bar
    assert found["/html/body/div[2]"][0] is not Label.TEMPLATE  # article + bar


def test_store_counts_a_changed_page_again(tmp_path):
    pages = article_site(20)
    with SiteStore(tmp_path / "s.sqlite", {}) as store:
        method = FingerprintMethod(counts=store.counts("example.com"))
        method.fit([method.segment(p) for p in pages])
        changed = article_page(0, seed=5)  # same id, new article
        method.fit([method.segment(changed)])
        assert method.pages_ == 21
        again = FingerprintMethod(counts=store.counts("example.com"))
        assert again.fit([again.segment(changed)]).pages_ == 21  # same text: counted once


@pytest.mark.parametrize(("min_chars", "min_unique_words"), [(40, 3), (10, 1), (0, 2), (100, 8)])
def test_compiled_keys_and_eligibility_are_the_numpy_ones_on_real_pages(
        dev_site_pages, min_chars, min_unique_words):
    from denoise.blocks import segment
    from denoise.site.fingerprint import (
        TEXT_KIND,
        _compiled,
        eligible_blocks,
        eligible_blocks_numpy,
        text_keys,
    )

    if _compiled is None:
        pytest.skip("the compiled extension is not built")
    for page in dev_site_pages[:60]:
        blocks = segment(page, "blocks")
        eligible, keys = text_keys(blocks, min_chars, min_unique_words)
        expected = eligible_blocks_numpy(blocks, min_chars, min_unique_words)
        assert np.array_equal(eligible, expected)
        assert np.array_equal(eligible_blocks(blocks, min_chars, min_unique_words), expected)
        assert np.array_equal(keys, np.where(expected, blocks.block_digests(TEXT_KIND), 0))


@pytest.mark.parametrize("theta", [0.1, 0.5, 1.0])
def test_compiled_labels_are_the_numpy_ones_on_real_sites(dev_site_pages, monkeypatch, theta):
    from collections import defaultdict

    from denoise.site import fingerprint

    if fingerprint._compiled is None:
        pytest.skip("the compiled extension is not built")
    by_site = defaultdict(list)
    for page in dev_site_pages[:300]:
        by_site[page.site].append(FingerprintMethod().segment(page))
    methods = {site: FingerprintMethod(theta=theta).fit(pages) for site, pages in by_site.items()}
    pages = [page for site_pages in by_site.values() for page in site_pages]
    compiled = [methods[page.page.site].label(page) for page in pages]
    monkeypatch.setattr(fingerprint, "_compiled", None)
    for page, fast in zip(pages, compiled, strict=True):
        slow = methods[page.page.site].label(page)
        for name in ("labels", "reasons", "support", "example"):
            got, expected = getattr(fast, name), getattr(slow, name)
            assert got.dtype == expected.dtype and np.array_equal(got, expected), name
    assert any((labelled.labels == Label.TEMPLATE).any() for labelled in compiled)
    assert any((labelled.reasons == REASONS.index("holds-template")).any()
               for labelled in compiled)
