"""The page text's joins: chunks glued where inline markup cuts a word, one space apart
where an element breaks the text or the source has whitespace (denoise.blocks' text
model), alike in both walks and in everything that re-joins chunks."""

import numpy as np
import pytest

from denoise import blocks
from denoise.blocks import INLINE_TAGS, index_dom, segment
from denoise.detector import block_lines
from denoise.evaluate import xpath_main_text
from denoise.html import parse_html
from denoise.page import Page
from denoise.texthash import index_chunks

COMPILED = blocks.WALK == "compiled"
WALKS = [False, True] if COMPILED else [False]

#: A body's markup and the page text both walks must make of it.
CASES = [
    ("<p>re<i>sea</i>rchers</p>", "researchers"),  # markup inside a word
    ("<p><span class='drop'>W</span>hale ahoy</p>", "Whale ahoy"),  # a drop cap
    ("<p><a href='/a'>Apple</a>'s shares</p>", "Apple's shares"),
    ("<p>10 km<sup>2</sup> of CO<sub>2</sub>, 1<sup>st</sup></p>", "10 km2 of CO2, 1st"),
    ("<p>super<wbr>cali<b><i>fragi</i></b>listic</p>", "supercalifragilistic"),
    ("<ul><li>a</li><li>b</li></ul>", "a b"),  # block elements break
    ("<p>a<br>b</p>", "a b"),
    ("<p>a<br/><br/>b</p>", "a b"),
    ("<p>a</p><p>b</p>", "a b"),
    ("<div>a<div>b</div>c</div>", "a b c"),
    ("<table><tr><td>a</td><td>b</td></tr></table>", "a b"),
    ("<p>word <b>bold</b> word</p>", "word bold word"),  # the source's spaces stay
    ("<p>word<b> bold </b>word</p>", "word bold word"),
    ("<p>a <b></b>b</p>", "a b"),
    ("<p>a<b> </b>b</p>", "a b"),  # a whitespace-only text between
    ("<p>a<b></b>b</p>", "ab"),  # an empty inline element
    ("<p>a\u00a0<i>b</i>\u3000c<i>d</i></p>", "a b cd"),  # Unicode spaces count
    ("<p>x<img src='y.png'>z</p>", "x z"),  # images, controls, unknown tags break
    ("<p>x<input>z</p>", "x z"),
    ("<p>x<custom-tag>y</custom-tag>z</p>", "x y z"),
    ("<p><a href='/1'>Home</a><a href='/2'>News</a></p>", "Home News"),  # two links
    ("<p><a href='/1'>Home</a>|<a href='/2'>News</a></p>", "Home|News"),
    ("<p><a href='/1'>re<i>sea</i>rch</a>ers</p>", "researchers"),
    ("<h1>Title<small>subtitle</small></h1>", "Title subtitle"),  # small breaks
    # a lower-case letter or a digit, then a capital: styled boxes, not one word
    ("<li><a href='/a'>About<span>How I got here</span></a></li>", "About How I got here"),
    ("<li><span>01</span><a href='/p'>Phelps wins</a></li>", "01 Phelps wins"),
    ("<p>408<span>Facebook Likes</span></p>", "408 Facebook Likes"),
    ("<p><b>A</b>1 and <b>MAC</b>OS and <b>Mc</b>Donald's</p>", "A1 and MACOS and Mc Donald's"),
    ("<p>a<script>var x;</script>b</p>", "ab"),  # dropped elements leave one text
    # a ruby's readings (furigana) are no text of the page, and the word they annotate
    # is one word
    ("<p>ruby <ruby>\u6f22<rt>kan</rt></ruby></p>", "ruby \u6f22"),
    ("<p><ruby>\u5b50<rp>(</rp><rt>\u3053</rt><rp>)</rp></ruby>\u3069\u3082 <ruby>"
     "<rb>\u4f53</rb><rt>\u305f\u3044</rt></ruby></p>", "\u5b50\u3069\u3082 \u4f53"),
    # a formula's other encodings (its TeX, content markup) are never rendered; its
    # symbols are text
    ("<p>so <math><semantics><mi>a</mi><mo>=</mo><mn>2</mn><annotation encoding="
     "'application/x-tex'>{\\displaystyle a=2}</annotation></semantics></math>.</p>",
     "so a = 2 ."),
    ("<p><math><semantics><mi>b</mi><annotation-xml encoding='MathML-Content'><ci>b"
     "</ci></annotation-xml></semantics></math> holds</p>", "b holds"),
    # soft hyphens, as characters and as references, are not text
    ("<p>Mit\u00adtel\u00adal\u00adter</p>", "Mittelalter"),
    ("<p>Mit&shy;tel&#173;al&#xad;ter &#xAD;Wein</p>", "Mittelalter Wein"),
    # Unicode's form C: a letter and its combining mark are one character, and a
    # character Unicode excludes from composition is two
    ("<p>cafe\u0301 <b>re</b>sume\u0301 A\u030a</p>", "caf\u00e9 resum\u00e9 \u00c5"),
    ("<p>\u09df and \u09af\u09bc, ko&#x72;&#x101;&#x301;n</p>",
     "\u09af\u09bc and \u09af\u09bc, kor\u0101\u0301n"),
]


def body(markup: str) -> str:
    return f"<html><head><title>T</title></head><body>{markup}</body></html>"


def walk(html: str, compiled: bool):
    return index_dom(parse_html(html), compiled=compiled)


def check_offsets(dom) -> None:
    """Each chunk is its slice of the text, and nothing or one space lies between two."""
    text, first, last = dom.text, dom.chunk_first.tolist(), dom.chunk_last.tolist()
    for i, (a, b) in enumerate(zip(first, last, strict=True)):
        piece = text[a:b]
        assert piece and piece == " ".join(piece.split())
        if i:
            assert text[last[i - 1]:a] in ("", " ")
    assert text == "".join(text[a:b] + (text[b:first[i + 1]] if i + 1 < len(first) else "")
                           for i, (a, b) in enumerate(zip(first, last, strict=True)))
    assert not first or (first[0] == 0 and last[-1] == len(text))


@pytest.mark.parametrize("compiled", WALKS)
@pytest.mark.parametrize(("markup", "expected"), CASES, ids=[c[1] for c in CASES])
def test_the_page_text_glues_inline_markup_and_breaks_elsewhere(markup, expected, compiled):
    dom = walk(body(markup), compiled)
    assert dom.text == "T " + expected
    check_offsets(dom)


def test_a_picture_of_the_page_keeps_the_readings_and_every_element():
    # the parse behind render.py shows what a browser draws, ruby's readings too
    html = body("<p><ruby>\u5b50<rp>(</rp><rt>\u3053</rt><rp>)</rp></ruby>\u3069\u3082</p>")
    shown, read = parse_html(html, undrawn_text=True), parse_html(html)
    assert "\u3053" in "".join(shown.itertext()) and "\u3053" not in "".join(read.itertext())
    assert [e.tag for e in shown.iter()] == [e.tag for e in read.iter()]
    # a <noscript> kept or dropped by how much text lies outside it: the readings, which
    # may double a page's text, do not tip that one way in one parse and not in the other
    notice = "<noscript><p>" + "Enable scripts to read this page in full, please. " * 6
    html = body(notice + "</p><div><span>x</span></div></noscript><p>" + "".join(
        "<ruby>\u6f22<RT>kanjireading</RT></ruby>" for _ in range(30)) + "</p>")
    shown, read = parse_html(html, undrawn_text=True), parse_html(html)
    assert [e.tag for e in shown.iter()] == [e.tag for e in read.iter()]
    assert "kanji" not in "".join(read.itertext())  # upper-case tags too


def test_glued_chunks_are_still_chunks_of_their_own():
    dom = walk(body("<p>re<i>sea</i>rchers</p>"), False)
    assert dom.chunks == ["T", "re", "sea", "rchers"]
    assert dom.chunk_first.tolist() == [0, 2, 4, 7] and dom.chunk_last.tolist() == [1, 4, 7, 13]
    assert [dom.tags[o] for o in dom.chunk_owner.tolist()] == ["title", "p", "i", "p"]


def test_small_and_the_block_tags_break_the_text():
    # every block of the element schemes begins and ends at a break: glued chunks
    # always share their blocks, so a block's text never ends inside a word
    assert "small" not in INLINE_TAGS
    assert not INLINE_TAGS & (blocks.BLOCK_TAGS | blocks.LAYOUT_TAGS | blocks.REGION_TAGS)


def test_blocks_words_digests_and_link_text_follow_the_glued_text():
    page = Page(id="g.html", html=body(
        "<div><p>The re<i>sea</i>rchers of <a href='/x'>Apple</a>'s lab</p>"
        "<p>Other <a href='/y'>li<b>nk</b></a> and <a href='/z'>more</a></p></div>"))
    for scheme in ("blocks", "regions", "nodes"):
        cut = segment(page, scheme)
        texts = [b.text for b in cut.blocks]
        spans = cut.spans
        assert np.array_equal(cut.text_index.word_counts(spans),
                              [len(t.split()) for t in texts]), scheme
        # a digest is of the text alone, however markup cut it into chunks
        same = index_chunks(" ".join(texts), *_whole(texts))
        assert np.array_equal(cut.block_digests(), same.digests(_one_each(texts))), scheme
    by_tag = {b.tag: b for b in segment(page, "regions").blocks}
    assert by_tag["div"].text == "The researchers of Apple's lab Other link and more"
    assert by_tag["div"].link_text == "Apple link more"
    assert [b.text for b in segment(page, "regions").blocks if b.tag == "p"] == [
        "The researchers of Apple's lab", "Other link and more"]


def _whole(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    last = np.cumsum(lengths + 1) - 1
    return last - lengths, last


def _one_each(texts: list[str]) -> np.ndarray:
    return np.stack((np.arange(len(texts)), np.arange(1, len(texts) + 1)), axis=1)


def test_chunks_text_joins_neighbours_as_the_page_does_and_others_by_a_space():
    cut = segment(Page(id="c.html", html=body("<p>re<i>sea</i>rch x<b>y</b> z</p>")),
                  "regions")
    assert cut.chunks == ("T", "re", "sea", "rch x", "y", "z")
    chosen = np.array([False, True, True, False, True, True])
    assert cut.chunks_text(chosen) == "resea y z"
    assert cut.chunks_text(np.zeros(6, dtype=bool)) == ""


def test_block_lines_and_the_keyword_document_keep_glued_words_whole():
    from kwx import document

    page = Page(id="k.html", html=body(
        "<h1>The re<i>sea</i>rchers</h1><p>Apple<sup>2</sup> <a href='/a'>Ban</a>ana</p>"
        "<p><span>W</span>hale</p>"))
    cut = segment(page, "regions")
    keep = cut.chunk_block >= 0
    assert block_lines(cut, keep) == "The researchers\nApple2 Banana\nWhale"  # no <head>
    for twin in (document._kept_chunks, document._kept_chunks_numpy):
        kept, offsets, *_ = twin(cut, keep, None)
        text = block_lines(cut, kept)
        chunks = [c for c, k in zip(cut.chunks, kept.tolist(), strict=True) if k]
        assert [text[o:o + len(c)] for o, c in zip(offsets.tolist(), chunks, strict=True)] \
            == chunks
    # with a chunk left out, the runs either side are one space apart
    keep[cut.chunks.index("sea")] = False
    assert block_lines(cut, keep).splitlines()[0] == "The re rchers"


def test_near_duplicate_words_run_over_glued_chunks():
    from mining.shingles import word_hashes, words

    dom = walk(body("<p>re<i>sea</i>rchers <b>say</b></p>"), False)
    spans = (dom.chunk_first, dom.chunk_last)
    assert words(dom.text) == ["t", "researchers", "say"]
    assert np.array_equal(word_hashes(dom.text, spans), word_hashes(dom.text))


def test_gold_text_from_an_xpath_has_the_same_joins():
    html = body("<div id='main'><p>re<i>sea</i>rchers</p><p>next</p></div>")
    assert xpath_main_text(html, 'id("main")') == "researchers next"


@pytest.mark.skipif(not COMPILED, reason="the compiled walk is not built here")
def test_the_compiled_walk_without_inline_tags_parts_every_chunk():
    # the old text: every chunk one space apart, with the same chunks and owners
    root = parse_html(body("<p>re<i>sea</i>rchers</p>"))
    old = blocks._compiled.walk(root)
    assert old[8] == "T re sea rchers"


# --- both walks alike on random pages --------------------------------------------------

_TAGS = ["b", "i", "a", "span", "sup", "small", "p", "div", "li", "br", "img", "td", "x-y",
         "em", "wbr", "code", "q"]
_TEXTS = ["", " ", "a", "bc", " d", "e ", " f g ", "\u00a0", "h\u2003i", "\u00e9t\u00e9",
          "Xy", "Q", "9", "\u4e2d", "\U0001f600", "\n\t", "j\u3000", "\x1c", "k\u0085", "'s",
          "2"]


def _random_markup(rng: np.random.Generator, depth: int = 0) -> str:
    parts = []
    for _ in range(int(rng.integers(0, 5))):
        parts.append(_TEXTS[int(rng.integers(len(_TEXTS)))])
        if depth < 5 and rng.random() < 0.6:
            tag = _TAGS[int(rng.integers(len(_TAGS)))]
            if tag in ("br", "img", "wbr"):
                parts.append(f"<{tag}>")
            else:
                parts.append(f"<{tag}>{_random_markup(rng, depth + 1)}</{tag}>")
    return "".join(parts)


@pytest.mark.skipif(not COMPILED, reason="the compiled walk is not built here")
def test_both_walks_give_the_same_arrays_on_random_pages():
    rng = np.random.default_rng(33)
    glued = 0
    for _ in range(400):
        root = parse_html(body(_random_markup(rng)))
        python, compiled = index_dom(root, compiled=False), index_dom(root, compiled=True)
        assert python.text == compiled.text
        for name in ("parents", "chunk_starts", "chunk_ends", "chunk_first", "chunk_last",
                     "chunk_in_link", "chunk_owner"):
            assert np.array_equal(getattr(python, name), getattr(compiled, name)), name
        want = index_chunks(python.text, python.chunk_first, python.chunk_last)
        for name in want.__slots__:
            assert np.array_equal(getattr(compiled.chunk_index, name), getattr(want, name))
        check_offsets(python)
        glued += int((python.chunk_first[1:] == python.chunk_last[:-1]).sum())
    assert glued > 100  # the pages did glue chunks


def test_the_head_s_texts_are_in_unicode_form_c_as_the_page_text():
    # keywords match the title's and meta tags' words against the page text
    from denoise.head import head_texts

    html = ("<html><head><title>Cafe\u0301 Paris</title><meta name='keywords' content="
            "'cafe\u0301'></head><body><p>Cafe\u0301 Paris opens</p></body></html>")
    root = parse_html(html)
    assert head_texts(root)[:2] == ("Caf\u00e9 Paris", "caf\u00e9")
    assert index_dom(root).text.endswith("Caf\u00e9 Paris opens")
