"""The page-level detector: operating points, smoothing, main text, clean and shaded HTML."""

import re

import numpy as np
import pytest
from lxml import etree
from sitegen import generated_site, labelled_pages, site_page, site_template

from denoise import main_content
from denoise.detector import TemplateDetector, block_lines
from denoise.errors import PageError
from denoise.features import extract
from denoise.model import ModelError, TemplateModel, default_model_path
from denoise.page import Page
from denoise.render import clean_html, shaded_html
from denoise.training import cross_validate
from denoise.validation import Curve, pr_curve

#: Generated sites the detector never trains on (labelled_pages() covers sites 0-5).
NEW_SITES = (6, 7, 8, 10, 14)

# PageScores is a frozen dataclass with slots, which leaves cached_property no __dict__
# to cache in: every use of block_scores raises TypeError (see the report).


@pytest.fixture(scope="module")
def detector():
    """A detector trained on generated sites, with its cross-site operating curve."""
    pages = labelled_pages()
    report = cross_validate(pages, lambda train: TemplateDetector(TemplateModel().fit(train)),
                            n_folds=3)
    return TemplateDetector(TemplateModel().fit(pages), curve=report.curve())


@pytest.fixture(scope="module")
def shipped():
    """The default model shipped with the package."""
    if not default_model_path().exists():
        pytest.skip(f"no shipped model at {default_model_path()} yet")
    return TemplateDetector.load()


def article_sentences(page: Page) -> list[str]:
    """The sentences of the page's article paragraphs."""
    root = etree.HTML(page.html)
    return [s.strip() + "." for p in root.iter("p") for s in p.text.split(".") if s.strip()
            and "rights reserved" not in p.text and "©" not in p.text]


def template_phrases(number: int) -> list[str]:
    """Texts of the links and the copyright line of generated site ``number``."""
    nav, _ = site_template(number)
    links = [a.text for a in etree.HTML(nav).iter("a")]
    return [*links, "rights reserved"]


# --- operating points -----------------------------------------------------------------


@pytest.fixture(scope="module")
def random_curve():
    rng = np.random.default_rng(5)
    labels = (rng.random(400) < 0.5).astype(int)
    return pr_curve(np.clip(0.35 * labels + 0.65 * rng.random(400), 0, 1), labels)


def test_at_recall_cuts_at_the_curves_threshold_for_that_recall(detector, random_curve):
    base = TemplateDetector(detector.model, curve=random_curve, smoothing=0.02)
    for recall in (0.1, 0.5, 0.8, 0.95, 1.0):
        chosen = base.at_recall(recall)
        assert chosen.threshold == pytest.approx(random_curve.threshold_for_recall(recall))
        precision, expected_recall = chosen.expected()
        assert expected_recall >= recall
        assert (precision, expected_recall) == random_curve.at(chosen.threshold)
        higher = random_curve.thresholds[random_curve.thresholds > chosen.threshold]
        assert all(random_curve.at(float(t))[1] < recall for t in higher)
        assert chosen.model is base.model and chosen.smoothing == 0.02
    assert base.threshold == 0.5  # a copy: the original keeps its threshold
    # more recall, lower threshold
    thresholds = [base.at_recall(r).threshold for r in (0.2, 0.4, 0.6, 0.8, 1.0)]
    assert thresholds == sorted(thresholds, reverse=True)


def test_at_precision_cuts_where_the_curve_keeps_that_precision(detector, random_curve):
    base = TemplateDetector(detector.model, curve=random_curve)
    for precision in (0.6, 0.75, 0.9):
        chosen = base.at_precision(precision)
        assert chosen.threshold == pytest.approx(
            random_curve.threshold_for_precision(precision))
        expected_precision, _ = chosen.expected()
        assert expected_precision >= precision
    # more precision, higher threshold
    thresholds = [base.at_precision(p).threshold for p in (0.6, 0.7, 0.8, 0.9)]
    assert thresholds == sorted(thresholds)


def test_a_precision_the_curve_never_reaches_calls_nothing_template(detector):
    curve = Curve(np.array([1.0, 0.5]), np.array([0.6, 0.55]), np.array([0.5, 1.0]))
    chosen = TemplateDetector(detector.model, curve=curve).at_precision(0.9)
    scores = chosen.score(site_page(NEW_SITES[0], 0))
    assert not scores.template.any()


def test_operating_points_need_a_curve_and_a_share(detector, random_curve):
    bare = TemplateDetector(detector.model)
    assert bare.expected() is None
    with pytest.raises(ValueError, match="curve"):
        bare.at_recall(0.5)
    with pytest.raises(ValueError, match="curve"):
        bare.at_precision(0.5)
    with_curve = TemplateDetector(detector.model, curve=random_curve)
    for bad in (0.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="recall"):
            with_curve.at_recall(bad)
        with pytest.raises(ValueError, match="precision"):
            with_curve.at_precision(bad)
    with pytest.raises(ValueError, match="smoothing"):
        TemplateDetector(detector.model, smoothing=-0.01)
    with pytest.raises(ValueError, match="threshold"):
        TemplateDetector(detector.model, threshold=1.5)


def test_a_saved_detector_loads_with_its_operating_point(detector, tmp_path):
    path = tmp_path / "model.npz"
    detector.model.save(path, extra={"curve": detector.curve.as_dict(), "threshold": 0.25,
                                     "smoothing": 0.05})
    loaded = TemplateDetector.load(path)
    assert loaded.threshold == 0.25
    assert loaded.smoothing == 0.05
    np.testing.assert_allclose(loaded.curve.thresholds, detector.curve.thresholds, atol=1e-6)
    page = site_page(NEW_SITES[1], 0)
    again = TemplateDetector(detector.model, curve=detector.curve, smoothing=0.05,
                             threshold=0.25)
    np.testing.assert_allclose(loaded.score(page).scores, again.score(page).scores)


def test_a_detector_with_a_corrupt_curve_is_a_model_error(detector, tmp_path):
    path = tmp_path / "model.npz"
    detector.model.save(path, extra={"curve": {"thresholds": [0.5], "precision": []}})
    with pytest.raises(ModelError, match=r"model\.npz.*curve"):
        TemplateDetector.load(path)


def test_the_shipped_model_loads_with_a_curve(shipped):
    assert shipped.curve is not None
    assert 0.0 <= shipped.threshold <= 1.0
    assert shipped.at_recall(0.5).expected()[1] >= 0.5


# --- smoothing ------------------------------------------------------------------------


def smoothing_pages() -> list[Page]:
    pages = [site_page(number, index) for number in (*NEW_SITES, 0, 3) for index in (0, 1)]
    nested = "".join(f"<div>Level {d} of a nested layout with several words in it" for d in
                     range(12)) + "</div>" * 12
    pages.append(Page(id="nested.html", html=f"<body>{nested}</body>"))
    return pages


@pytest.mark.parametrize("smoothing", [0.0, 0.001, 0.01, 0.3])
def test_smoothing_never_puts_a_parent_above_its_child(detector, smoothing):
    smoother = TemplateDetector(detector.model, smoothing=smoothing)
    rng = np.random.default_rng(int(smoothing * 1000))
    for page in smoothing_pages():
        features = extract(page)
        child = features.parents >= 0
        assert child.any()
        for raw in (detector.model.predict_proba(features), rng.random(len(features)),
                    rng.integers(0, 2, len(features)).astype(float)):
            smoothed = smoother.smooth(features, raw)
            assert smoothed.shape == raw.shape
            assert (smoothed[features.parents[child]] <= smoothed[child] + 1e-12).all()
            assert ((smoothed >= 0) & (smoothed <= 1)).all()


def test_scores_are_smoothed_raw_scores_cut_at_the_threshold(detector):
    plain = TemplateDetector(detector.model, smoothing=None, threshold=0.4)
    for page in smoothing_pages():
        scores = plain.score(page)
        np.testing.assert_array_equal(scores.scores, scores.raw)
        np.testing.assert_array_equal(scores.template, scores.raw >= 0.4)
        smoothed = detector.score(page)
        np.testing.assert_array_equal(smoothed.raw, scores.raw)
        np.testing.assert_array_equal(smoothed.template, smoothed.scores >= detector.threshold)


# --- main text ------------------------------------------------------------------------


@pytest.mark.parametrize("number", NEW_SITES)
def test_main_text_keeps_the_article_and_drops_the_template(detector, number):
    for page in generated_site(number, 2):
        text = detector.score(page).content_text()
        for sentence in article_sentences(page):
            assert sentence in text
        for phrase in template_phrases(number):
            assert phrase not in text, phrase


def test_main_text_with_the_shipped_model(shipped):
    for number in (0, 1):  # an ul.nav menu with div#footer, a <nav> with <footer>
        page = site_page(number, 0)
        text = main_content.main_text(page.html, url=page.url)
        for sentence in article_sentences(page):
            assert sentence in text
        for phrase in template_phrases(number):
            assert phrase not in text, phrase


def test_module_main_text_uses_the_default_extractor(detector, monkeypatch):
    extractor = main_content.MainContentExtractor(detector)
    monkeypatch.setattr(main_content, "default_extractor", lambda: extractor)
    page = site_page(NEW_SITES[2], 3)
    text = main_content.main_text(page.html, url=page.url)
    assert text == extractor.extract(page)
    for sentence in article_sentences(page):
        assert sentence in text
    with pytest.raises(PageError, match=r"http://example\.org/empty\.html"):
        main_content.main_text("", url="http://example.org/empty.html")
    with pytest.raises(PageError, match="<html>"):
        main_content.main_text("   ")


def test_an_empty_page_is_a_page_error_naming_it(detector):
    for html in ("", "   \n", "<!-- nothing but a comment -->"):
        with pytest.raises(PageError, match=r"empty\.html"):
            detector.score(Page(id="empty.html", html=html))


@pytest.mark.parametrize(("html", "kept"), [
    ("<p>", ""),
    ("<html><body></body></html>", ""),
    ("<p>hi</p>", "hi"),
    ("<div><p>unclosed <b>bold text", "unclosed bold text"),
    ("</p></div>stray closing tags</span>", "stray closing tags"),
    ("\x00binary\x01 junk", "binary"),
])
def test_main_text_of_tiny_or_malformed_html_is_a_string(detector, html, kept):
    text = detector.score(Page(id="odd.html", html=html)).content_text()
    assert isinstance(text, str)
    assert kept in text


def test_hidden_blocks_take_their_scored_ancestors_score(detector):
    scores = detector.score(site_page(NEW_SITES[0], 0))
    features = scores.features
    node_of = features.node_of_block()
    expected = np.where(node_of >= 0, scores.scores[np.maximum(node_of, 0)], 0.0)
    np.testing.assert_array_equal(scores.block_scores, expected)
    assert len(scores.block_scores) == len(features.blocks)


def test_content_chunks_are_the_non_template_chunks_of_the_body(detector):
    page = site_page(NEW_SITES[3], 0)
    scores = detector.score(page)
    chunks = scores.features.blocks.chunks
    content = scores.content_chunks()
    template = scores.template_chunks()
    assert not (content & template).any()
    title = etree.HTML(page.html).findtext(".//title")
    assert chunks[0] == title and not content[0]  # the <title> is no content
    kept = " ".join(c for c, keep in zip(chunks, content, strict=True) if keep)
    assert all(sentence in kept for sentence in article_sentences(page))



def test_compiled_content_chunks_are_the_numpy_steps(shipped, dev_site_pages):
    """The compiled pass keeps the same chunks as the numpy steps, at every operating
    point (a threshold at or below 0 makes blocks under no scored node template too),
    with NaN scores, and refuses parents out of preorder."""
    import dataclasses

    for page in dev_site_pages[:60]:
        scores = shipped.score(page)
        nan = dataclasses.replace(scores, scores=np.where(
            np.arange(len(scores.scores)) % 3 == 0, np.nan, scores.scores))
        for threshold in (-0.1, 0.0, 0.3, 0.5, 1.0, 1.1):
            for each in (dataclasses.replace(scores, threshold=threshold),
                         dataclasses.replace(nan, threshold=threshold)):
                np.testing.assert_array_equal(each.content_chunks(),
                                              each.content_chunks_numpy(), page.id)
    from denoise import _compiled
    if _compiled is not None:
        with pytest.raises(ValueError, match="preorder"):
            _compiled.content_chunks(np.array([1, -1], dtype=np.int32),
                                     np.zeros(0, dtype=np.int64), np.zeros(0), 0.5,
                                     np.zeros(0, dtype=np.int32))


@pytest.mark.parametrize("number", NEW_SITES[:3])
def test_block_lines_puts_each_blocks_kept_chunks_on_a_line_of_its_own(shipped, number):
    blocks = shipped.score(site_page(number, 1)).features.blocks
    rng = np.random.default_rng(number)
    for keep in (blocks.chunk_block >= 0, rng.random(len(blocks.chunk_block)) < 0.5):
        kept = np.flatnonzero(keep).tolist()
        expected = "".join(
            ("" if i == 0 else "\n" if blocks.chunk_block[c] != blocks.chunk_block[kept[i - 1]]
             else " ") + blocks.chunks[c] for i, c in enumerate(kept))
        assert block_lines(blocks, keep) == expected
    assert block_lines(blocks, np.zeros(len(blocks.chunk_block), dtype=bool)) == ""

@pytest.mark.parametrize("smoothing", [float("nan"), float("inf"), -0.1])
def test_a_smoothing_constant_must_be_finite_and_not_negative(smoothing):
    model = TemplateDetector.load().model
    with pytest.raises(ValueError, match="smoothing must be a finite number"):
        TemplateDetector(model, smoothing=smoothing)


def test_compiled_block_lines_equal_the_numpy_steps(dev_site_pages):
    from denoise import detector as module
    from denoise.blocks import segment

    if module._compiled is None:
        pytest.skip("the compiled extension is not built")
    wide = Page(id="wide.html", html="<body><p>caf\u00e9 one</p><div>\u4e2d two "
                "<b>\U0001f600</b></div><p>plain</p><p>Gr\u00fc\u00dfe</p></body>")
    rng = np.random.default_rng(3)
    for page in [*dev_site_pages[:40], wide, Page(id="empty.html", html="<p></p>")]:
        blocks = segment(page, "regions")
        n = len(blocks.chunk_block)
        for keep in (blocks.chunk_block >= 0, rng.random(n) < 0.5, rng.random(n) < 0.1,
                     np.ones(n, dtype=bool), np.zeros(n, dtype=bool)):
            got = block_lines(blocks, keep)
            assert got == module.block_lines_numpy(blocks, keep), page.id
            assert got.isascii() == all(ord(c) < 128 for c in got)  # the narrowest kind
    text = "\u4e2d ab cd"  # wide text, the wide chunk dropped: an ASCII result
    starts, ends = np.array([0, 2, 5]), np.array([1, 4, 7])
    got = module._compiled.kept_text(text, starts, ends, np.zeros(3, dtype=np.int32),
                                     np.array([False, True, True]))
    assert got == "ab cd" and got.isascii()
    with pytest.raises(ValueError, match="inside the text"):
        module._compiled.kept_text("ab", starts, ends, np.zeros(3, dtype=np.int32),
                                   np.array([False, True, False]))
    with pytest.raises(ValueError, match="in order"):  # a run's end going backwards
        module._compiled.kept_text("abcdefgh", np.array([0, 2]), np.array([8, 5]),
                                   np.zeros(2, dtype=np.int32), np.array([True, True]))
    with pytest.raises(TypeError):
        module._compiled.kept_text(None, starts, ends, np.zeros(3, dtype=np.int32),
                                   np.array([False, True, False]))
    with pytest.raises(ValueError, match="every chunk"):
        module._compiled.kept_text("ab", starts[:1], ends[:1], np.zeros(1, dtype=np.int32),
                                   np.array([True, False]))


# --- clean and shaded HTML ------------------------------------------------------------


def test_clean_html_drops_the_template_and_keeps_the_article(detector):
    number = NEW_SITES[1]
    page = site_page(number, 2)
    html = clean_html(detector.score(page))
    root = etree.HTML(html)
    text = " ".join(root.itertext())
    for sentence in article_sentences(page):
        assert sentence in text
    for phrase in template_phrases(number):
        assert phrase not in text
    assert root.find(".//body") is not None


SHOW_PAGE = (
    "<html><head><title>Show me</title><style>p { color: red }</style></head><body>"
    "<style>.x { color: blue }</style><script>var hidden = 'never shown';</script>"
    '<noscript>Please enable scripts to see this</noscript>'
    + site_template(0)[0]
    + '<div id="main"><p>The <abbr title="own title">river</abbr> stone lantern glowed over '
    "the copper meadow, and the harbor stayed quiet.</p><style>.y {}</style>"
    '<svg viewBox="0 0 9 9"><title>lantern icon</title><text>40%</text></svg>'
    "<p>A second paragraph of the article with enough words to be scored on its own.</p></div>"
    + site_template(0)[1] + "</body></html>"
)


def test_shaded_html_marks_every_scored_block_with_its_score(detector):
    page = Page(id="show.html", html=SHOW_PAGE, url="http://www.acme.com/show.html")
    scores = detector.score(page)
    html = shaded_html(scores, url="http://www.acme.com/show.html")
    root = etree.HTML(html)
    assert root is not None
    legend = root.find(".//body/div")
    legend_text = "".join(legend.itertext())
    assert "denoise" in legend_text and "template" in legend_text and "content" in legend_text
    template_count = int(scores.template.sum())
    assert f"{template_count} of {len(scores.raw)} scored blocks template" in legend_text
    scored = [e for e in root.iter() if (e.get("title") or "").startswith("template score")]
    assert len(scored) == len(scores.features)
    blocks = scores.features.blocks
    shade = "rgba(255, 60, 60"
    for element, node, block in zip(scored, range(len(scored)), scores.features.nodes.tolist(),
                                    strict=True):
        match = re.fullmatch(r"template score (\d\.\d\d) \(classifier (\d\.\d\d)\)",
                             element.get("title"))
        assert match
        assert float(match[1]) == pytest.approx(scores.scores[node], abs=0.005)
        assert float(match[2]) == pytest.approx(scores.raw[node], abs=0.005)
        # the title sits on the block's own element
        assert element.tag == blocks.tags[block]
        if element.tag != "body":
            own_text = "".join("".join(element.xpath(
                ".//text()[not(parent::style or parent::title)]")).split())  # an icon's
            assert own_text == "".join(blocks.block_text(block).split())
        assert (shade in element.get("style")) == bool(scores.template[node])
    assert root.find(".//head/base").get("href") == "http://www.acme.com/show.html"
    assert root.find(".//abbr[@title='own title']") is not None  # unscored elements' stay
    assert root.find(".//svg/title").text == "lantern icon"  # drawings as drawn
    assert "never shown" not in html  # scripts are gone


def test_shaded_html_of_a_page_without_head_or_scored_blocks(detector):
    scores = detector.score(Page(id="tiny.html", html="<p>just a few words</p>"))
    root = etree.HTML(shaded_html(scores))
    assert "0 of 0 scored blocks" in "".join(root.itertext())
    assert root.find(".//head/meta") is not None
    assert root.find(".//head/base") is None
