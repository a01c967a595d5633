"""engine.blockcodec: segmented pages to bytes and back, without pickle."""

import io
from dataclasses import fields

import numpy as np
import pytest

from denoise.blocks import SCHEMES, segment
from denoise.page import Page
from engine.blockcodec import decode_blocks, encode_blocks, read_blocks


def same(a, b) -> None:
    for field in fields(a):
        x, y = getattr(a, field.name), getattr(b, field.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and np.array_equal(x, y), field.name
        elif field.name == "shape":
            assert x.vocab == y.vocab and np.array_equal(x.tag_ids, y.tag_ids)
            assert np.array_equal(x.parents, y.parents)
        elif field.name == "notes":
            assert x.keys() == y.keys()
            for name in x:
                assert x[name].dtype == y[name].dtype and np.array_equal(x[name], y[name])
        elif field.name == "chunk_index":
            assert (x is None) == (y is None)
            if x is not None:
                for part in fields(x):
                    assert np.array_equal(getattr(x, part.name), getattr(y, part.name))
        else:
            assert x == y, field.name


@pytest.mark.parametrize("scheme", SCHEMES)
def test_real_pages_come_back_whole(dev_site_pages, scheme):
    stream = io.BytesIO()
    pages = [segment(page, scheme) for page in dev_site_pages[:12]]
    for blocks in pages:
        record = encode_blocks(blocks)
        same(decode_blocks(record), blocks)
        stream.write(record)
    stream.seek(0)
    for blocks in pages:
        back = read_blocks(stream)
        same(back, blocks)
        back.chunk_block[:1] = back.chunk_block[:1]  # writable, as segmenting makes them
        assert back.blocks[0].text == blocks.blocks[0].text


def test_a_site_methods_notes_come_back_with_the_page(dev_site_pages):
    from denoise.site import FingerprintMethod

    for page in dev_site_pages[:5]:
        blocks = FingerprintMethod().segment(page)
        assert blocks.notes  # its text keys, made once when segmented
        same(decode_blocks(encode_blocks(blocks)), blocks)


def test_odd_pages_come_back_whole():
    for page in (Page(id="empty.html", html="<html></html>"),
                 Page(id="caf\u00e9 \U0001f600.html", html="<p>na\u00efve \ud800 \u65e5\u672c</p>",
                      url="https://x.example/a", site="x.example")):
        blocks = segment(page, "blocks")
        same(decode_blocks(encode_blocks(blocks)), blocks)


def test_broken_records_are_refused_not_run():
    record = encode_blocks(segment(Page(id="p.html", html="<p>some text here</p>"), "blocks"))
    with pytest.raises(ValueError, match="ends early"):
        read_blocks(io.BytesIO(record[:-3]))
    with pytest.raises(ValueError, match="size disagrees"):
        decode_blocks(record + b"x")
    with pytest.raises(ValueError, match="not a page-blocks record"):
        decode_blocks(record[:8] + b"[" + record[9:])
    import pickle

    with pytest.raises(ValueError):
        decode_blocks(pickle.dumps([1, 2, 3]))
