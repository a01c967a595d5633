"""denoise.site.spill: waiting pages written to the run's spill file come back whole."""

from dataclasses import fields

import numpy as np
import pytest

from denoise.blocks import SCHEMES, segment
from denoise.page import Page
from denoise.site import FingerprintMethod
from denoise.site.spill import Spill


def same(a, b) -> None:
    """``a`` and ``b`` are equal in every field, arrays in dtype and shape too."""
    for field in fields(a):
        x, y = getattr(a, field.name), getattr(b, field.name)
        if field.name == "shape":
            assert x.vocab == y.vocab
            x, y = {"tag_ids": x.tag_ids, "parents": x.parents}, \
                {"tag_ids": y.tag_ids, "parents": y.parents}
        elif field.name == "chunk_index":
            assert (x is None) == (y is None)
            if x is None:
                continue
            x, y = ({part.name: getattr(v, part.name) for part in fields(v)} for v in (x, y))
        if isinstance(x, np.ndarray):
            x, y = {field.name: x}, {field.name: y}
        if isinstance(x, dict):
            assert x.keys() == y.keys(), field.name
            for name in x:
                assert x[name].dtype == y[name].dtype, name
                assert x[name].shape == y[name].shape and np.array_equal(x[name], y[name]), name
        else:
            assert x == y, field.name


@pytest.fixture
def spill():
    spill = Spill()
    yield spill
    spill.close()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_real_pages_come_back_whole(dev_site_pages, spill, scheme):
    pages = [segment(page, scheme) for page in dev_site_pages[:12]]
    offsets = [spill.write(blocks) for blocks in pages]
    for blocks, back in zip(pages, spill.read(offsets), strict=True):
        same(back, blocks)
        for name in ("chunk_starts", "parents", "spans"):
            array = getattr(back, name)
            assert array.flags.aligned
            array[:1] = array[:1]  # writable, as segmenting makes them
        assert back.blocks[0] == blocks.blocks[0]


def test_odd_pages_come_back_whole(spill):
    pages = [Page(id="empty.html", html="<html></html>"),
             Page(id="caf\u00e9 \U0001f600.html", html="<p>na\u00efve \ud800 \u65e5\u672c</p>",
                  url="https://x.example/a", site="x.example")]
    blocks = [segment(page, "blocks") for page in pages]
    blocks[1].notes["scalar"] = np.array(7, dtype=np.int16)  # a 0-d array
    blocks[1].notes["table"] = np.arange(6, dtype=np.float32).reshape(3, 2)
    offsets = [spill.write(page) for page in blocks]
    for page, back in zip(blocks, spill.read(offsets), strict=True):
        same(back, page)
    assert [page.page.id for page in spill.read(offsets[::-1])] == [pages[1].id, pages[0].id]


def test_keys_come_back_alone_and_the_page_after_them(dev_site_pages, spill):
    method = FingerprintMethod()
    pages = [method.segment(page) for page in dev_site_pages[:6]]
    keys = [method.page_keys(page) for page in pages]
    offsets = [spill.write(page, key) for page, key in zip(pages, keys, strict=True)]
    for (key, digests), (back_key, back_digests) in zip(keys, spill.read_keys(offsets),
                                                        strict=True):
        assert back_key == key and back_digests.keys() == digests.keys() == {"text"}
        assert back_digests["text"].dtype == np.int64
        assert np.array_equal(back_digests["text"], digests["text"])
    for page, back in zip(pages, spill.read(offsets), strict=True):
        same(back, page)
    with pytest.raises(ValueError, match="without its keys"):
        list(spill.read_keys([spill.write(pages[0])]))


def test_a_cut_record_is_refused(spill):
    offset = spill.write(segment(Page(id="p.html", html="<p>some text here</p>"), "blocks"))
    spill.stream.truncate(spill.stream.tell() - 3)
    with pytest.raises(ValueError, match="ends early"):
        list(spill.read([offset]))


def test_the_file_is_private_and_removed(spill):
    assert spill.folder.stat().st_mode & 0o777 == 0o700
    spill.close()
    assert not spill.folder.exists()
