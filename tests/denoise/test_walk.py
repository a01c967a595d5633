"""The compiled walk and the Python walk must agree to the last offset."""

import numpy as np
import pytest

from denoise import blocks
from denoise.blocks import SELECTORS, cut_elements_numpy, index_dom
from denoise.html import parse_html
from denoise.texthash import distinct_words, distinct_words_python, index_chunks

PAGES = [
    "<html><body><p>plain text</p></body></html>",
    "<html><body>\u00a0lead <b>bold</b>\u2003tail\u3000end <a href='x'>link <i>in</i> "
    "link</a> after</body></html>",
    "<html><body><div>caf\u00e9 \u2028 na\u00efve\t\n<![CDATA[cdata]]>  x</div>"
    "<ul><li>one</li><li>\u0085two\u1680</li></ul></body></html>",
    "<html><body>" + "<div>" * 300 + "deep" + "</div>" * 300 + "tail</body></html>",
    "<html><body><table><tr><td>a</td><td></td><td>  </td></tr></table>\u200b zero-width "
    "\u200a hair</body></html>",
    "<html><head><title>t</title></head><body><!-- c --><p>x<br>y</p><script>no</script>"
    "</body></html>",
    "",
]


def walks(html: str):
    root = parse_html(html or "<html></html>")
    return index_dom(root, compiled=False), index_dom(root, compiled=True)


@pytest.mark.skipif(blocks.WALK != "compiled", reason="the compiled walk is not built here")
@pytest.mark.parametrize("html", PAGES)
def test_compiled_and_python_walks_agree(html):
    python, compiled = walks(html)
    assert python.text == compiled.text
    assert python.tags == compiled.tags
    for name in ("parents", "depths", "subtree_ends", "chunk_starts", "chunk_ends", "lines",
                 "chunk_first", "chunk_last", "chunk_in_link", "chunk_owner"):
        assert np.array_equal(getattr(python, name), getattr(compiled, name)), name
    # the compiled walk also indexes the chunks for digests, as texthash does in numpy
    want = index_chunks(python.text, python.chunk_first, python.chunk_last)
    for name in want.__slots__:
        assert np.array_equal(getattr(compiled.chunk_index, name), getattr(want, name)), name


@pytest.mark.skipif(blocks.WALK != "compiled", reason="the compiled walk is not built here")
def test_walks_agree_on_real_pages(dev_site_pages):
    for page in dev_site_pages:
        python, compiled = walks(page.html)
        assert python.text == compiled.text, page.id
        assert np.array_equal(python.chunk_first, compiled.chunk_first), page.id
        assert np.array_equal(python.parents, compiled.parents), page.id
        want = index_chunks(python.text, python.chunk_first, python.chunk_last)
        for name in want.__slots__:  # hashed four bytes a step, then the rest
            assert np.array_equal(getattr(compiled.chunk_index, name), getattr(want, name)), \
                (page.id, name)


@pytest.mark.skipif(blocks.WALK != "compiled", reason="the compiled walk is not built here")
def test_a_walk_without_the_text_index_gives_the_same_page(dev_site_pages):
    for page in dev_site_pages[:40]:
        root = parse_html(page.html)
        whole, light = index_dom(root), index_dom(root, text_index=False)
        assert light.chunk_index is None and light.text == whole.text, page.id
        for name in ("parents", "chunk_first", "chunk_last", "chunk_in_link", "chunk_owner"):
            assert np.array_equal(getattr(light, name), getattr(whole, name)), name


def test_a_walked_page_segments_alike_without_its_tree(dev_site_pages):
    from denoise.blocks import SCHEMES, segment_dom

    for page in dev_site_pages[:10]:
        dom = index_dom(parse_html(page.html))
        light = dom.without_tree()
        assert light.root is None and dom.root is not None and light.text == dom.text
        for scheme in (s for s in SCHEMES if s != "layout"):
            want, got = segment_dom(page, dom, scheme), segment_dom(page, light, scheme)
            assert np.array_equal(want.spans, got.spans) and want.text == got.text, scheme
        with pytest.raises(ValueError, match="let go"):  # layout reads the elements
            segment_dom(page, light, "layout")


def test_text_is_whitespace_collapsed_chunks():
    python = index_dom(parse_html(PAGES[1]), compiled=False)
    assert python.chunks == ["lead", "bold", "tail end", "link", "in", "link", "after"]
    assert python.text == " ".join(python.chunks)


@pytest.mark.skipif(blocks.WALK != "compiled", reason="the compiled kernel is not built here")
def test_compiled_distinct_word_count_agrees_with_python():
    text = "a a a b b b c d d e\u00e9 e\u00e9 ee \U0001f600 \U0001f600 x"
    rng = np.random.default_rng(0)
    starts = rng.integers(0, len(text), 300)
    ends = np.minimum(starts + rng.integers(0, 20, 300), len(text))
    # spans must start and end on word bounds, as block spans do
    bounds = [0] + [i + 1 for i, c in enumerate(text) if c == " "] + [len(text) + 1]
    starts = np.array([max(b for b in bounds if b <= s) for s in starts])
    ends = np.array([max(b for b in bounds if b <= e + 1) - 1 for e in ends])
    ends = np.maximum(ends, starts)
    for wanted in (1, 2, 3, 5):
        assert np.array_equal(
            distinct_words(text, starts, ends, wanted),
            distinct_words_python(text, starts, ends, wanted),
        ), wanted


@pytest.mark.skipif(blocks.WALK != "compiled", reason="the compiled walk is not built here")
@pytest.mark.parametrize("scheme", sorted(SELECTORS))
def test_compiled_block_cuts_equal_numpy(scheme, dev_site_pages):
    doms = [index_dom(parse_html(html or "<html></html>")) for html in PAGES]
    doms += [index_dom(parse_html(page.html)) for page in dev_site_pages[:30]]
    for dom in doms:
        selected = SELECTORS[scheme](dom)
        for want, got in zip(cut_elements_numpy(dom, selected),
                             blocks._cut_elements(dom, selected), strict=True):
            assert want.dtype == got.dtype and np.array_equal(want, got)


@pytest.mark.skipif(blocks.WALK != "compiled", reason="the compiled walk is not built here")
def test_compiled_block_cuts_refuse_a_tree_out_of_preorder():
    dom = index_dom(parse_html(PAGES[1]))
    parents = dom.parents.copy()
    parents[1] = 5
    with pytest.raises(ValueError, match="preorder"):
        blocks._compiled.cut_blocks(np.ones(len(parents), dtype=bool), parents,
                                    dom.chunk_starts, dom.chunk_ends, dom.chunk_owner,
                                    dom.tag_ids, dom.depths, dom.lines)


@pytest.mark.parametrize("package, name", [
    ("denoise", "_compiled"), ("denoise", "_isotonic"), ("kwx", "_kernels"),
    ("mining", "_kernels"), ("engine", "_kernels"),
])
def test_a_built_extension_imports(package, name):
    # the extensions are optional: one that was built but cannot be imported (say, it
    # calls a libxml2 function lxml does not export) would fall back to Python silently
    import importlib
    from pathlib import Path

    folder = Path(importlib.import_module(package).__file__).parent
    if not [*folder.glob(f"{name}.*.so"), *folder.glob(f"{name}.*.pyd")]:
        pytest.skip(f"{package}.{name} is not built here")
    importlib.import_module(f"{package}.{name}")
