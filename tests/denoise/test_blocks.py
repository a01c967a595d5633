import numpy as np
import pytest

from denoise.blocks import SCHEMES, segment
from denoise.page import Page


def page(html: str) -> Page:
    return Page(id="t.html", html=html)


HTML = """<html><head><title>T</title><style>p {}</style></head>
<body>
  <div id="a" class="x">Hello   <b>big</b>
     world <a href="/1">first link</a>
     <ul><li>one</li><li><a href="/2">two</a></li></ul>
  </div>
  <!-- a comment -->
  <noscript>enable scripts</noscript>
  <table><tr><td>cell <a href="/3">three</a></td><td>four</td></tr></table>
  <p>tail text</p>
</body></html>"""


def test_blocks_keep_text_links_parents_paths_and_lines():
    blocks = segment(page(HTML), "blocks")
    by_tag = {b.tag: b for b in blocks.blocks}
    div = by_tag["div"]
    assert div.text == "Hello big world first link one two"
    assert div.link_text == "first link two"
    assert div.path == "/html/body/div"
    assert div.parent == -1
    assert div.line == 3
    assert div.depth == 2
    ul = by_tag["ul"]
    assert blocks.blocks[ul.parent] is div
    assert [b.text for b in blocks.blocks if b.tag == "li"] == ["one", "two"]


def test_invisible_content_is_dropped():
    blocks = segment(page(HTML), "nodes")
    text = " ".join(blocks.chunks)
    assert "p {}" not in text
    assert "comment" not in text
    assert "enable scripts" not in text
    assert "T" in blocks.chunks  # the title is text too


def test_nodes_cover_every_element():
    blocks = segment(page(HTML), "nodes")
    assert blocks.blocks[0].tag == "html"
    assert {"b", "a", "td", "tr", "table", "title"} <= {b.tag for b in blocks.blocks}


def test_layout_blocks_omit_table_rows_and_cells():
    tags = {b.tag for b in segment(page(HTML), "layout").blocks}
    assert "table" in tags
    assert not tags & {"td", "tr", "li"}


def test_table_chunks_split_at_table_tags_only():
    chunks = segment(page(HTML), "table-chunks").blocks
    texts = [c.text for c in chunks]
    assert texts == ["T Hello big world first link one two", "cell three four", "tail text"]
    assert chunks[1].link_text == "three"


def test_pagelets_are_topmost_elements_without_link_heavy_children():
    html = ("<html><body><div><ul>" + "".join(f'<li><a href="/{i}">l{i}</a></li>'
                                              for i in range(5))
            + "</ul><p>Body text with no links at all.</p></div></body></html>")
    pagelets = segment(page(html), "pagelets").blocks
    assert [b.tag for b in pagelets] == ["ul", "p"]


def test_chunk_block_maps_text_to_its_innermost_block():
    blocks = segment(page(HTML), "blocks")
    li_two = next(b for b in blocks.blocks if b.text == "two")
    assert blocks.chunk_block[li_two.span[0]] == li_two.index


def test_every_scheme_handles_a_page_without_text():
    for scheme in SCHEMES:
        assert segment(page("<html><body><div></div></body></html>"), scheme).chunks == ()


@pytest.mark.parametrize("scheme", ["blocks", "regions", "nodes", "layout", "pagelets"])
def test_covered_chunks_are_the_chunks_segmenting_puts_in_a_block(dev_site_pages, scheme):
    from denoise.blocks import covered_chunks, index_dom, segment_dom
    from denoise.html import parse_html

    uncovered = 0
    for page in dev_site_pages[:40]:
        dom = index_dom(parse_html(page.html, page.id))
        covered = covered_chunks(dom, scheme)
        assert np.array_equal(covered, segment_dom(page, dom, scheme).chunk_block >= 0)
        uncovered += int((~covered).sum())
    assert scheme == "nodes" or uncovered > 0  # the head's title is in no block


def test_covered_chunks_want_a_segmentation_of_elements():
    from denoise.blocks import covered_chunks, index_dom
    from denoise.html import parse_html

    dom = index_dom(parse_html("<p>a</p>", "p.html"))
    with pytest.raises(ValueError, match="table-chunks"):
        covered_chunks(dom, "table-chunks")


def test_a_page_without_its_html_keeps_the_rest_and_is_reduced_once():
    page = Page(id="a.html", html="<p>a</p>", url="http://a.org/", site="a.org")
    bare = page.without_html()
    assert bare.html == "" and (bare.id, bare.url, bare.site) == (page.id, page.url, page.site)
    assert page.html == "<p>a</p>" and bare.without_html() is bare


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_page_reduced_to_its_text_shares_measures_every_block_as_the_page_does(
        dev_site_pages, scheme):
    """What the site report and the counting labels read of a waiting page (characters
    per chunk, chunks inside chosen blocks, each block's characters, the innermost block
    of each chunk) sums to the same over any set of blocks, with no text left."""
    rng = np.random.default_rng(7)
    for page in [*dev_site_pages[:25], Page(id="empty.html", html="<p></p>")]:
        blocks = segment(page, scheme)
        blocks.notes["kept"] = np.arange(len(blocks))
        reduced = blocks.text_shares_only()
        assert reduced.text == reduced.page.html == "" and len(reduced) == len(blocks)
        assert reduced.tags == blocks.tags and reduced.notes is blocks.notes
        assert np.array_equal(reduced.parents, blocks.parents)
        assert len(reduced.chunk_starts) <= len(blocks.chunk_starts)
        chars, reduced_chars = blocks.chunk_chars(), reduced.chunk_chars()
        before = np.concatenate(([0], np.cumsum(chars)))  # the page's chunks, no spaces
        assert np.array_equal(reduced.block_chars(),
                              before[blocks.spans[:, 1]] - before[blocks.spans[:, 0]])
        assert reduced_chars.sum() == chars.sum()
        for _ in range(5):
            chosen = rng.random(len(blocks)) < 0.3
            assert (reduced_chars[reduced.covered(chosen)].sum()
                    == chars[blocks.covered(chosen)].sum())
        owned = np.bincount(blocks.chunk_block + 1, chars, minlength=len(blocks) + 1)
        assert np.array_equal(np.bincount(reduced.chunk_block + 1, reduced_chars,
                                          minlength=len(blocks) + 1), owned)
        assert len(reduced.depths) == len(reduced.chunk_in_link) == 0  # gone, not zeros


def compared_pages(module, dev_site_pages) -> list[Page]:
    """The pages a compiled pass of ``module`` is compared with its numpy steps on (a
    skip where the loops are not built)."""
    if module._compiled is None:
        pytest.skip("the compiled loops are not built here")
    return [*dev_site_pages[:25], Page(id="empty.html", html="<p></p>"),
            Page(id="bare.html", html="<html></html>")]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_compiled_text_shares_equal_numpy(dev_site_pages, scheme):
    from denoise import blocks as blocks_module
    from denoise.blocks import text_shares_numpy

    pages = compared_pages(blocks_module, dev_site_pages)
    for one in pages:
        blocks = segment(one, scheme)
        for want, got in zip(text_shares_numpy(blocks), blocks_module._text_shares(blocks),
                             strict=True):
            assert want.dtype == got.dtype and np.array_equal(want, got), one.id


@pytest.mark.parametrize("scheme", SCHEMES)
def test_compiled_block_bounds_equal_numpy(dev_site_pages, scheme):
    from denoise import blocks as blocks_module

    pages = compared_pages(blocks_module, dev_site_pages)
    for one in pages:
        blocks = segment(one, scheme)
        for want, got in zip(blocks.bounds_numpy(), blocks.bounds, strict=True):
            assert want.dtype == got.dtype == np.int64 and np.array_equal(want, got), one.id
    starts, ends = blocks_module._compiled.block_bounds(  # a block without chunks: 0, 0
        np.array([[0, 2], [2, 2], [1, 2]], np.int32), np.array([0, 4]), np.array([3, 9]))
    assert starts.tolist() == [0, 0, 4] and ends.tolist() == [9, 0, 9]
    with pytest.raises(ValueError, match="out of range"):
        blocks_module._compiled.block_bounds(np.array([[0, 3]], np.int32),
                                             np.zeros(2, np.int64), np.ones(2, np.int64))


def test_compiled_text_shares_refuse_spans_outside_the_page():
    from denoise import blocks as blocks_module

    if blocks_module._compiled is None:
        pytest.skip("the compiled loops are not built here")
    starts = np.array([0, 4], dtype=np.int64)
    with pytest.raises(ValueError, match="outside"):
        blocks_module._compiled.text_shares(starts, starts + 3, np.array([[0, 3]], np.int32),
                                            np.zeros(2, dtype=np.int32))
