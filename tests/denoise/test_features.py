"""Page features: compiled and Python markup passes agree; the numbers mean what they say."""

import numpy as np
import pytest
from lxml import etree
from sitegen import article_site, generated_site

from denoise import features
from denoise.errors import PageError
from denoise.features import (
    ASIDE_BIT,
    CAPTION_BIT,
    COMMENT_BIT,
    CUES,
    DIALOG_BIT,
    FEATURE_NAMES,
    FREE_BIT,
    IMAGE_AREA,
    PAYWALL_BIT,
    cue_bits,
    extract,
    host_hash,
    link_host_hash,
    markup_stats_python,
)
from denoise.html import parse_html
from denoise.page import Page

COLUMN = {name: index for index, name in enumerate(FEATURE_NAMES)}
compiled = pytest.mark.skipif(features._compiled is None,
                              reason="the compiled extension is not built here")


def page_of(html: str, url: str | None = None) -> Page:
    return Page(id="hand.html", html=html, url=url)


def node_named(feats, text_start: str, tag: str | None = None) -> int:
    """The scored node whose block text starts with ``text_start`` (and has ``tag``)."""
    blocks = feats.blocks
    found = [node for node, block in enumerate(feats.nodes.tolist())
             if blocks.block_text(block).startswith(text_start)
             and (tag is None or blocks.tags[block] == tag)]
    assert found, f"no scored block starts with {text_start!r}"
    return found[-1]  # the innermost


def assert_same_markup(html: str) -> None:
    root = parse_html(html)
    got = features._compiled.markup_stats(root)
    want = markup_stats_python(root)
    for name, a, b in zip(("bytes", "hosts", "cues"), got, want, strict=True):
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, err_msg=f"{name} differ for {html[:80]!r}")


# --- compiled and Python markup pass ---------------------------------------------------


@compiled
@pytest.mark.parametrize("page", [
    *generated_site(0, 2), *generated_site(4, 2), *generated_site(8, 2),
    *article_site(2, docnav=True),
], ids=lambda page: page.url)
def test_markup_stats_compiled_equals_python_on_generated_pages(page):
    assert_same_markup(page.html)


EDGE_CASES = {
    "link kinds": (
        '<p><a href="http://example.com/x">a</a><a href="/relative/page">b</a>'
        '<a href="#top">c</a><a href="javascript:void(0)">d</a><a href="JavaScript:go()">e</a>'
        '<a href="mailto:me@example.com">f</a><a href="tel:123">g</a><a href="">h</a>'
        '<a>no href</a><a href=" \n #sp">i</a></p>'),
    "wayback": (
        '<a href="/web/20050101000000/http://www.host.com/page">w</a>'
        '<a href="http://web.archive.org/web/2005id_/https://news.example.org:80/a">x</a>'
        '<a href="/web/2005/">no inner url</a>'),
    "hosts": (
        '<a href="https://www.example.com:8080/x">a</a><a href="//cdn.example.com/x">b</a>'
        '<a href="relative//x">c</a><a href="  http://Example.COM?q=1">d</a>'
        '<a href="HTTP://WWW.EXAMPLE.COM/">e</a><a href="http://">f</a><a href="http://www.">g</a>'
        '<a href="http:example.com">h</a><a href="http://host#frag">i</a>'),
    "cue words": (
        '<div class="nav main-content" id="footer"><ul id="MainMenu"><li class="sidebar-widget">'
        'x</li></ul><p class="Comment reply">y</p><form id="search-box"><input disabled>'
        '</form><span class="promo share cookie-banner">z</span><div id="masthead">h</div>'
        '<div class="copyright legal">c</div><div class="entry story">e</div></div>'),
    "long class": '<div class="' + "x" * 252 + 'nav">a</div><div class="' + "y" * 400 + '">b</div>',
    "attributes": (
        '<div data-x="é ü" title="&amp; &lt;" class="">a<img src="i.png" alt="" width=3>'
        '<br/><input type=checkbox checked></div><A HREF="http://upper.com">u</A>'),
    "href elsewhere": (
        '<link href="http://style.com/s.css"><area href="http://map.com/"><div href="http://x.y">'
        'div with href</div><a name="anchor" id="nav">named</a>'),
    "inputs": (
        '<form><input><input type=TEXT><input type="email"><input type="Password">'
        '<input type="tel"><input type="url"><input type=""><input type="hidden">'
        '<input type="checkbox"><input type="search"><input type="number"><input type="text2">'
        '<input TYPE="Tel" type="hidden"><input type=" text"><input type><p type="text">'
        'not an input</p></form>'),
    "non-ascii links": '<a href="http://exämple.com/ü">x</a><a href="/wiki/Ünïcode">y</a>',
    "malformed": '<div><p>unclosed <b>bold <a href="http://a.com/">link<table><td>cell',
}


@compiled
@pytest.mark.parametrize("html", EDGE_CASES.values(), ids=EDGE_CASES.keys())
def test_markup_stats_compiled_equals_python_on_edge_cases(html):
    assert_same_markup(html)


@compiled
def test_the_walk_marks_the_inputs_one_types_into():
    got = features._compiled.markup_stats(parse_html(EDGE_CASES["inputs"]))[2]
    root = parse_html(EDGE_CASES["inputs"])
    marked = [bool(bits >> features.FIELD_BIT & 1)
              for bits, element in zip(got.tolist(), root.iter(etree.Element), strict=True)
              if element.tag in ("input", "p")]
    # no type, TEXT, email, Password, tel, url, "" / hidden, checkbox, search, number,
    # text2 / the first of two types (Tel) / " text" / a bare type / a <p type=text>
    assert marked == [True] * 7 + [False] * 5 + [True, False, True, False]


def test_a_form_to_fill_in_holds_two_fields_and_no_article():
    def filled(body: str) -> list[str]:
        feats = extract(page_of(f"<html><body>{body}<p>{'Text of the page. ' * 20}</p>"
                                "</body></html>"))
        blocks = feats.blocks
        return [blocks.tags[i] + ":" + blocks.block_text(i).split()[0]
                for i in np.flatnonzero(feats.block_cues >> features.FILL_IN_BIT & 1)]

    field = '<input name="n{}">'
    assert filled(f"<form><p>Login</p>{field.format(1)}<input type=password></form>") == [
        "form:Login"]
    assert filled(f"<form><p>Search</p>{field.format(1)}<input type=submit></form>") == []
    assert filled("<form><p>Reply</p><div><textarea></textarea></div></form>") == [
        "form:Reply"]  # a text area alone makes a form to write in
    assert filled(f"<p>Outside</p>{field.format(1)}{field.format(2)}") == []
    # nested: both forms hold the two fields; a form holding the article is the layout's
    assert filled(f"<form><p>Outer</p><div><form><p>Inner</p>{field.format(1)}"
                  f"{field.format(2)}</form></div></form>") == ["form:Outer", "form:Inner"]
    assert filled(f"<form><p>Page</p>{field.format(1)}{field.format(2)}<main><p>Story"
                  "</p></main></form>") == []


@compiled
def test_markup_stats_agree_on_every_cue_word():
    # one element a word, in upper case too: the compiled list and the Python one agree
    from denoise.features import _CUE_WORDS

    words = sorted({word for _, word in _CUE_WORDS})
    assert_same_markup("".join(f'<div class="x-{word}">{word}</div><p id="{word.upper()}2">'
                               f"{word}</p>" for word in words))


@compiled
def test_markup_stats_agree_on_non_ascii_tag_names():
    assert_same_markup("<body><café>x</café></body>")


@compiled
def test_compiled_host_hash_equals_python():
    for host in ("example.com", "www.example.com", "WWW.Example.com", "news.bbc.co.uk", "a",
                 "ü.de"):
        assert features._compiled.host_hash(host.encode()) == host_hash(host), host


def test_link_host_hash_tells_relative_nowhere_and_external_links_apart():
    for relative in ("/a/b", "page.html", "relative//x", "?q=1", "http:example.com"):
        assert link_host_hash(relative) == 0, relative
    for nowhere in ("", "#top", "  #x", "javascript:void(0)", "mailto:a@b.c", "tel:123"):
        assert link_host_hash(nowhere) == 1, nowhere
    example = host_hash("example.com")
    assert example > 1
    for same in ("http://example.com/x", "https://www.example.com:8080/x", "//example.com/y",
                 " http://EXAMPLE.com?q", "http://example.com#frag",
                 "/web/20050101000000/http://www.example.com/page",
                 "http://web.archive.org/web/2005/http://example.com/"):
        assert link_host_hash(same) == example, same
    assert host_hash("www.example.com") == example
    assert link_host_hash("http://other.org/") not in (0, 1, example)
    assert link_host_hash("http://sub.example.com/") != example


def test_link_host_hash_drops_upper_case_www():
    assert link_host_hash("HTTP://WWW.EXAMPLE.COM/") == host_hash("www.example.com")


def test_cue_bits_find_class_and_id_words():
    bit = {name: 1 << index for index, name in enumerate(CUES)}
    assert cue_bits("nav") == bit["navigation"]
    assert cue_bits("NavBar") == bit["navigation"]
    assert cue_bits("site-footer") == bit["footer"]
    assert cue_bits("main-content") == bit["content"]
    assert cue_bits("sidebar-widget") == bit["sidebar"]
    assert cue_bits("search-box") == bit["search"]
    assert cue_bits("nav footer") == bit["navigation"] | bit["footer"]
    assert cue_bits("") == 0
    assert cue_bits("xyz q") == 0


def test_cue_bits_name_dialogs_past_the_model_families():
    dialog = 1 << DIALOG_BIT
    assert len(CUES) == DIALOG_BIT
    assert cue_bits("c-modal-overlay") == dialog
    assert cue_bits("update-browser-popup") == dialog
    assert cue_bits("popover2") == dialog  # a box laid over the page on a click
    assert cue_bits("cookie-notice") == dialog | 1 << CUES.index("promotion")
    assert cue_bits("modal-content") == dialog | 1 << CUES.index("content")
    assert cue_bits("row paywall") == 1 << PAYWALL_BIT
    assert cue_bits("non-paywall") == 1 << PAYWALL_BIT | 1 << FREE_BIT
    assert cue_bits("entry__content steady-paywall-container") == 1 << PAYWALL_BIT | (
        1 << CUES.index("content"))
    assert cue_bits("wp-caption-text") == 1 << CAPTION_BIT | 1 << CUES.index("content")
    assert cue_bits("photo-credit") == 1 << CAPTION_BIT
    assert cue_bits("related-posts") == 1 << ASIDE_BIT | 1 << CUES.index("sidebar") \
        | 1 << CUES.index("content")
    assert cue_bits("entry-tags") == 1 << ASIDE_BIT | 1 << CUES.index("content")
    comments = 1 << CUES.index("comments")
    assert cue_bits("commentlist") == 1 << COMMENT_BIT | comments
    assert cue_bits("reply") == comments  # a thread's replies: the family, not the bit
    assert cue_bits("commentary-body") == comments | 1 << CUES.index("content")  # opinion
    assert cue_bits("commentary comment") == 1 << COMMENT_BIT | comments


def test_a_dialog_s_class_marks_the_block_but_no_feature_column():
    notice = ('<div class="cookie-notice"><p>This site uses cookies to measure how often '
              "each page is read and which links are followed.</p></div>")
    story = "The river stone was found by the ford. " * 4
    body = f'{notice}<div class="story"><p>{story}</p></div>'
    plain = extract(page_of(f"<html><body>{body}</body></html>"))
    renamed = extract(page_of(
        f"<html><body>{body.replace('cookie-notice', 'promos-notice')}</body></html>"))
    marked = np.flatnonzero(plain.block_cues >> DIALOG_BIT & 1)
    assert [plain.blocks.tags[int(block)] for block in marked] == ["div"]
    assert plain.blocks.block_text(int(marked[0])).startswith("This site uses cookies")
    assert not (renamed.block_cues >> DIALOG_BIT & 1).any()
    # the same markup bytes, both in the promotion family: the same rows
    assert np.array_equal(plain.matrix, renamed.matrix)


# --- the feature matrix -----------------------------------------------------------------

HAND_PAGE = (
    "<html><head><title>Quarterly lantern harvest report from the meadow</title></head><body>"
    '<ul class="nav"><li><a href="/a">Home page of the example shop</a></li>'
    '<li><a href="http://www.example.com/b">Browse the complete widget catalog</a></li>'
    '<li><a href="https://example.com/c">Contact our friendly support team</a></li></ul>'
    '<div class="main-content"><h1>Quarterly lantern harvest report from the meadow</h1>'
    "<p>The river stone lantern glowed over the copper meadow, and the harbor stayed quiet "
    "all night long while the engine hummed.</p>"
    '<div class="gallery"><img src="a.png"><img src="b.png">Two pictures of the copper '
    "meadow at dawn.</div></div>"
    '<div id="footer">Copyright 2026 Example Widgets Incorporated, all rights reserved. '
    '<a href="http://other.org/">Elsewhere</a> <a href="http://far.net/">Far away</a></div>'
    "</body></html>"
)


@pytest.fixture(scope="module")
def hand():
    return extract(page_of(HAND_PAGE, url="http://www.example.com/report.html"))


@pytest.mark.parametrize("page", [
    page_of(HAND_PAGE), *generated_site(1, 2), *generated_site(5, 1), *article_site(2, docnav=True),
    page_of("<body><table><tr><td>" + "word " * 30 + "</td></tr></table></body>"),
    page_of("<body><div>" + "x" * 5000 + " a b c</div></body>"),
], ids=lambda page: page.url or page.html[:20])
def test_feature_matrix_is_finite_with_a_row_per_node(page):
    feats = extract(page)
    n = len(feats.nodes)
    assert n > 0
    assert feats.matrix.shape == (n, len(FEATURE_NAMES))
    assert feats.matrix.dtype == np.float32
    assert np.isfinite(feats.matrix).all()
    assert feats.parents.shape == feats.weights.shape == feats.areas.shape == (n,)
    assert feats.token_spans.shape == (n, 2)
    assert len(feats) == n


def test_nodes_are_the_blocks_with_enough_text_and_parents_a_preorder_tree(hand):
    blocks = hand.blocks
    texts = [blocks.block_text(b) for b in hand.nodes.tolist()]
    for text in texts:
        assert len(text) >= 40 and len(set(text.split())) >= 3, text
    assert (np.diff(hand.nodes) > 0).all()
    assert hand.parents[0] == -1
    assert (hand.parents < np.arange(len(hand))).all()
    # a node's parent is its nearest scored ancestor block
    scored = set(hand.nodes.tolist())
    for node, block in enumerate(hand.nodes.tolist()):
        ancestor = int(blocks.parents[block])
        while ancestor >= 0 and ancestor not in scored:
            ancestor = int(blocks.parents[ancestor])
        expected = hand.nodes.tolist().index(ancestor) if ancestor >= 0 else -1
        assert hand.parents[node] == expected


def test_navigation_list_is_anchor_text_and_paragraph_is_not(hand):
    nav = node_named(hand, "Home page", "ul")
    paragraph = node_named(hand, "The river stone", "p")
    anchor = hand.matrix[:, COLUMN["anchor_text"]]
    assert anchor[nav] > 0.95
    assert anchor[paragraph] == 0.0
    links = hand.matrix[:, COLUMN["links_per_word"]]
    assert links[nav] > links[paragraph] == 0.0
    assert hand.matrix[nav, COLUMN["own_list"]] == 1.0
    assert hand.matrix[paragraph, COLUMN["own_p"]] == 1.0


def test_links_to_the_pages_own_host_count_as_within_the_site(hand):
    intra = hand.matrix[:, COLUMN["intra_site_links"]]
    # relative, www.example.com and example.com: all the page's own site
    assert intra[node_named(hand, "Home page", "ul")] == 1.0
    # other.org and far.net
    assert intra[node_named(hand, "Copyright", "div")] == 0.0
    # no links at all: neither
    assert intra[node_named(hand, "The river stone", "p")] == 0.5


def test_wayback_page_links_to_its_captured_site_are_within_the_site():
    html = ('<body><ul><li><a href="/web/20050101000000/http://www.example.com/a">First link of '
            'the archived site</a></li><li><a href="/web/20050101000000/http://other.org/b">'
            "A link to another archived site</a></li></ul></body>")
    url = "http://web.archive.org/web/20050101000000/http://www.example.com/"
    feats = extract(page_of(html, url=url))
    intra = feats.matrix[node_named(feats, "First link", "ul"), COLUMN["intra_site_links"]]
    assert intra == pytest.approx(0.5)


def test_class_and_id_words_mark_the_block_and_its_descendants(hand):
    nav = node_named(hand, "Home page", "ul")
    paragraph = node_named(hand, "The river stone", "p")
    footer = node_named(hand, "Copyright", "div")
    row = hand.matrix
    assert row[nav, COLUMN["cue_navigation"]] == 1.0
    assert row[footer, COLUMN["cue_footer"]] == 1.0
    assert row[paragraph, COLUMN["cue_content"]] == 0.0
    assert row[paragraph, COLUMN["inherited_content"]] == 1.0
    assert row[nav, COLUMN["inherited_content"]] == 0.0
    assert row[paragraph, COLUMN["inherited_navigation"]] == 0.0


def test_title_words_high_for_a_block_repeating_the_title():
    # (a bare <h1> repeating a short title would be too short to be scored)
    html = ("<html><head><title>Copper meadow harvest festival report</title></head><body>"
            "<div>Copper meadow harvest festival report: the copper meadow harvest</div>"
            "<p>The river stone lantern glowed over the walnut orchard and the quiet harbor.</p>"
            "</body></html>")
    feats = extract(page_of(html))
    title = feats.matrix[:, COLUMN["title_words"]]
    repeat = node_named(feats, "Copper meadow", "div")
    other = node_named(feats, "The river stone", "p")
    assert title[repeat] == pytest.approx(8 / 9)  # all but "the"
    assert title[other] == 0.0


def test_hidden_short_blocks_add_to_their_scored_ancestors_weight():
    items = "".join(f"<li>item {i}</li>" for i in range(5))
    html = (f"<body><div>A long enough introduction to the list below it<ul>{items}</ul>"
            "<p>short</p></div><p>Another paragraph that is long enough to be scored</p></body>")
    feats = extract(page_of(html))
    div = node_named(feats, "A long enough", "div")
    # the ul (too short with its items), five li and the short p fold into the div
    assert feats.weights[div] == 1 + 1 + 5 + 1
    alone = node_named(feats, "Another paragraph", "p")
    assert feats.weights[alone] == 1
    # every block takes its own node or its nearest scored ancestor's
    node_of = feats.node_of_block()
    tags = feats.blocks.tags
    for block, tag in enumerate(tags):
        if tag in ("ul", "li"):
            assert node_of[block] == div
    assert (node_of[feats.nodes] == np.arange(len(feats))).all()


def test_area_counts_characters_and_images(hand):
    gallery = node_named(hand, "Two pictures", "div")
    text = hand.blocks.block_text(int(hand.nodes[gallery]))
    assert hand.areas[gallery] == len(text) + 2 * IMAGE_AREA
    paragraph = node_named(hand, "The river stone", "p")
    assert hand.areas[paragraph] == len(hand.blocks.block_text(int(hand.nodes[paragraph])))


def test_token_spans_cover_each_nodes_words(hand):
    for node, block in enumerate(hand.nodes.tolist()):
        start, end = hand.token_spans[node]
        assert end - start == len(hand.blocks.block_text(block).split(" "))


@pytest.mark.parametrize("html", [
    "<html></html>", "<p>hi</p>", "plain text without tags", "<img src=x>",
    "<html><body><script>var a = 'long enough script text, never seen';</script></body></html>",
    "<<<>>>", "\x00\x01", "<ul><li>one</li><li>two</li><li>three</li></ul>",
])
def test_pages_without_scored_blocks_give_zero_nodes(html):
    feats = extract(page_of(html))
    assert len(feats) == 0
    assert feats.matrix.shape == (0, len(FEATURE_NAMES))
    assert feats.parents.shape == feats.weights.shape == feats.areas.shape == (0,)
    assert (feats.node_of_block() == -1).all()


@pytest.mark.parametrize("html", ["", "   ", "<!-- only a comment -->"])
def test_a_page_with_no_element_is_a_page_error_naming_it(html):
    with pytest.raises(PageError, match=r"hand\.html"):
        extract(page_of(html))


@pytest.mark.parametrize("seed", range(5))
def test_compiled_kl_divergence_equals_python(seed):
    from denoise import _compiled
    from denoise.features import _kl_python

    rng = np.random.default_rng(seed)
    vocabulary = int(rng.integers(1, 60))
    ids = rng.integers(0, vocabulary, int(rng.integers(1, 400))).astype(np.int64)
    spans = np.sort(rng.integers(0, len(ids) + 1, (30, 2)), axis=1).astype(np.int64)
    assert np.allclose(_compiled.node_kl(ids, spans, vocabulary),
                       _kl_python(ids, spans, vocabulary))


def test_compiled_kl_divergence_of_a_page_past_the_kept_table_of_logarithms():
    # the logarithms of counts come from a table kept up to 2**20 entries; a bigger
    # page gets a table of its own, with the same answers
    from denoise import _compiled
    from denoise.features import _kl_python

    rng = np.random.default_rng(7)
    ids = rng.integers(0, 5_000, (1 << 20) + 10).astype(np.int64)
    spans = np.array([[0, len(ids)], [10, 100_000], [500_000, 500_003], [7, 7]])
    assert np.allclose(_compiled.node_kl(ids, spans, 5_000), _kl_python(ids, spans, 5_000))
    small = np.array([0, 1, 1], dtype=np.int64)
    assert np.allclose(_compiled.node_kl(small, np.array([[0, 2]]), 2),
                       _kl_python(small, np.array([[0, 2]]), 2))


# --- compiled and Python feature paths ---------------------------------------------------


def both_paths(page: Page, monkeypatch) -> tuple:
    """``page``'s features by the compiled passes and by the Python reference steps,
    from the same walk."""
    root = parse_html(page.html, page.id)
    dom = features.index_dom(root)
    blocks = features.segment_dom(page, dom, features.SCHEME)
    markup = features.markup_stats(root)
    fast = features.page_features(dom, blocks, markup)
    with monkeypatch.context() as patch:
        patch.setattr(features, "_compiled", None)
        slow = features.page_features(dom, blocks, markup)
    return fast, slow


def assert_same_features(fast, slow) -> None:
    assert fast.words == slow.words
    for name in ("nodes", "parents", "token_ids", "token_spans"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    for name in ("weights", "areas", "matrix"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.dtype == b.dtype and a.shape == b.shape, name
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=0, err_msg=name)


@compiled
def test_compiled_features_equal_python_on_real_pages(dev_site_pages, monkeypatch):
    for page in dev_site_pages:
        assert_same_features(*both_paths(page, monkeypatch))


TEXT_CASES = {  # the look-alike characters are the point
    "non-ascii": "Ça coûte 12,50 € — « très » cher… Straße ÆØÅ naïve café’s ‘quote’ “Big”",  # noqa: RUF001
    "cjk": ("東京都の天気は晴れです。 日本語のテキスト、句読点！ "  # noqa: RUF001
            "中文：你好，世界。 한국어 문장입니다."),  # noqa: RUF001
    "greek sigma": "ΟΔΟΣ ΟΔΟΣ. ΣΟΦΟΣ (ΣΑΣ) Σ ΑΣ' ΌΣΑ—ΈΣ ΑΣ·ΒΣ οδός",
    "special lower": "İstanbul İİ ǅemal ẞig K Å ﬁle Σ̈ ΑΣ̈ ΑΣ̈Β",  # noqa: RUF001
    "punctuation words": "| > » / · • -- ... «» “” ‘’ … !? a|b |x| ,,, 'quoted' \"dq\" (paren)",  # noqa: RUF001
    "huge word": "start " + "x" * 100_000 + " middle " + "Ü" * 50_000 + "! end " + "x" * 100_000,
    "mixed case": "Home HOME home HoMe home. Home! (home) HOME... ÉTÉ été Été",
    "digits and marks": "2026-11-26 10:30, $1,234.56 (±5%) #1 @user email@example.com",
    "astral": "emoji 😀 😀! 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 text 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ok",  # noqa: RUF001
    "repeats": " ".join(["alpha", "beta", "Alpha", "alpha.", "BETA!"] * 400),
}


def text_stats_both(text: str, starts, ends, title: set[str], monkeypatch) -> tuple:
    starts = np.asarray(starts, dtype=np.int64)
    ends = np.asarray(ends, dtype=np.int64)
    fast = features._text_stats(text, starts, ends, title)
    with monkeypatch.context() as patch:
        patch.setattr(features, "_compiled", None)
        slow = features._text_stats(text, starts, ends, title)
    return fast, slow


@compiled
@pytest.mark.parametrize("text", TEXT_CASES.values(), ids=TEXT_CASES.keys())
def test_compiled_words_and_characters_equal_python(text, monkeypatch):
    rng = np.random.default_rng(len(text))
    size = len(text)
    # spans at word bounds as the blocks give them, and anywhere (inside words, empty, whole)
    spaces = [i for i, char in enumerate(text) if char == " "]
    bounds = [0, size, *spaces, *(s + 1 for s in spaces)]
    cuts = np.sort(rng.choice(bounds, (20, 2)), axis=1)
    anywhere = np.sort(rng.integers(0, size + 1, (20, 2)), axis=1)
    spans = np.vstack((cuts, anywhere, [[0, size], [0, 0], [size, size], [3, 3]]))
    title = set(text.lower().split()[:5]) | {"absent", "é"}
    fast, slow = text_stats_both(text, spans[:, 0], spans[:, 1], title, monkeypatch)
    words, in_title = fast[0], fast[4]
    assert words == slow[0]
    assert words == list(dict.fromkeys(w.strip(features._TRIMMED) for w in text.lower().split(" ")))
    for a, b in zip(fast[1:], slow[1:], strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert in_title.any() or not title & set(words)


@compiled
def test_compiled_words_of_empty_and_blank_text_equal_python(monkeypatch):
    for text in ("", " ", "  ", "x", " x ", "x  y", "!", "« »"):
        fast, slow = text_stats_both(text, [0, 0], [len(text), 0], {"x"}, monkeypatch)
        assert fast[0] == slow[0], text
        for a, b in zip(fast[1:], slow[1:], strict=True):
            assert a.dtype == b.dtype, text
            np.testing.assert_array_equal(a, b, err_msg=repr(text))


EDGE_PAGES = {
    "empty blocks": "<body><div></div><p>" + "one two three four " * 3 + "</p><div><span></span>"
                    "</div><table><tr><td></td></tr></table></body>",
    "non-ascii": "<body><div><p>" + TEXT_CASES["non-ascii"] + "</p><p>"
                 + TEXT_CASES["greek sigma"] + "</p></div></body>",
    "cjk": "<html><head><title>東京都の天気</title></head><body><div><p>" + TEXT_CASES["cjk"]
           + "</p><p>東京都の天気 は晴れです 東京都の天気</p></div></body></html>",
    "huge word": "<body><div><p>" + TEXT_CASES["huge word"] + "</p><p>short words here now</p>"
                 "</div></body>",
    "title words": "<html><head><title>Copper | Meadow — Report «2026»</title></head><body>"
                   "<div><p>The copper meadow report, 2026: copper! MEADOW? «report»</p>"
                   '<ul><li><a href="/a">Copper meadow home page link</a></li>'
                   '<li><a href="http://x.org/">An external link to elsewhere</a></li></ul>'
                   "</div></body></html>",
}


@compiled
@pytest.mark.parametrize("html", EDGE_PAGES.values(), ids=EDGE_PAGES.keys())
def test_compiled_features_equal_python_on_edge_cases(html, monkeypatch):
    fast, slow = both_paths(page_of(html, url="http://www.example.com/p"), monkeypatch)
    assert len(fast) > 0
    assert_same_features(fast, slow)


@compiled
@pytest.mark.parametrize("page", [
    page_of(HAND_PAGE, url="http://www.example.com/report.html"),
    *generated_site(3, 2), *article_site(1, docnav=True),
], ids=lambda page: page.url or "hand")
def test_compiled_features_equal_python_on_generated_pages(page, monkeypatch):
    assert_same_features(*both_paths(page, monkeypatch))


@compiled
def test_compiled_scored_tree_refuses_parents_out_of_preorder():
    with pytest.raises(ValueError, match="preorder"):
        features._compiled.scored_tree(np.ones(3, dtype=bool), np.array([-1, 2, 0], np.int32))
    nodes, parents, weights = features._compiled.scored_tree(
        np.array([True, False, True, False]), np.array([-1, 0, 1, 2], np.int32))
    np.testing.assert_array_equal(nodes, [0, 2])
    np.testing.assert_array_equal(parents, [-1, 0])
    np.testing.assert_array_equal(weights, [2.0, 2.0])


@compiled
@pytest.mark.parametrize("scheme", ["blocks", "table-chunks", "layout"])
def test_compiled_features_equal_python_for_other_segmentations(scheme, monkeypatch):
    # table chunks are not elements nested in document order: the rows fall back
    page = page_of(HAND_PAGE.replace("<body>", "<body><table><tr><td>Left cell with enough "
                                     "words in it</td><td>Right cell, also long enough to "
                                     "count</td></tr></table>"), url="http://example.com/")
    root = parse_html(page.html, page.id)
    dom = features.index_dom(root)
    blocks = features.segment_dom(page, dom, scheme)
    markup = features.markup_stats(root)
    fast = features.page_features(dom, blocks, markup)
    with monkeypatch.context() as patch:
        patch.setattr(features, "_compiled", None)
        slow = features.page_features(dom, blocks, markup)
    assert len(fast) > 0
    assert_same_features(fast, slow)


@compiled
def test_compiled_passes_check_the_indices_they_are_given():
    from denoise import _compiled

    with pytest.raises(ValueError, match="token ids"):
        _compiled.token_sums(np.zeros(2), np.zeros(2, bool), np.array([0, 5]),
                             np.zeros((1, 2), np.int64))
    with pytest.raises(ValueError, match="spans"):
        _compiled.token_sums(np.zeros(2), np.zeros(2, bool), np.array([0, 1]),
                             np.array([[0, 3]]))
    with pytest.raises(ValueError, match="word ids"):
        _compiled.node_kl(np.array([0, 3]), np.array([[0, 2]]), 2)
    with pytest.raises(ValueError, match="spans"):
        _compiled.node_kl(np.array([0, 1]), np.array([[0, 4]]), 2)
