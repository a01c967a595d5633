"""A segmented page as bytes and back, without pickle: a JSON header and raw arrays.

``denoise site``'s Spark engine ships segmented pages between stages and reads back what
it wrote, and never unpickles (a pickle runs code when loaded). (The embedded engine's
spill file, read only by the process that wrote it, has a leaner layout of its own:
:mod:`denoise.site.spill`.) A record is the header's length (8 bytes, little-endian), the
header (JSON: the format and its version, the page's fields, the strings, and each
array's name, dtype and shape), then every array's bytes in header order. Decoding
checks the format, the version and that the sizes add up, and names what is wrong.
"""

from __future__ import annotations

import json
import math
from dataclasses import fields
from typing import BinaryIO

import numpy as np

from denoise.blocks import DomShape, PageBlocks
from denoise.page import Page
from denoise.texthash import ChunkIndex

__all__ = ["decode_blocks", "encode_blocks", "read_blocks"]

FORMAT = "webdenoise page blocks"
FORMAT_VERSION = 2  # 2: a page's notes
_SIZE = 8  # bytes of the header length
#: PageBlocks fields that are not arrays, encoded by name below.
_OTHER = {"page", "scheme", "text", "vocab", "shape", "attrs", "chunk_index", "notes"}


def encode_blocks(blocks: PageBlocks) -> bytes:
    """``blocks`` as one record."""
    arrays: dict[str, np.ndarray] = {}
    for field in fields(blocks):
        value = getattr(blocks, field.name)
        if isinstance(value, np.ndarray):
            arrays[field.name] = value
        elif field.name not in _OTHER:
            raise TypeError(f"PageBlocks.{field.name} has no encoding")
    arrays["shape.tag_ids"], arrays["shape.parents"] = blocks.shape.tag_ids, blocks.shape.parents
    if blocks.chunk_index is not None:
        for field in fields(blocks.chunk_index):
            arrays[f"chunk_index.{field.name}"] = getattr(blocks.chunk_index, field.name)
    for name, array in blocks.notes.items():
        arrays[f"notes.{name}"] = array
    texts = {"html": blocks.page.html.encode("utf-8", "surrogatepass"),
             "text": blocks.text.encode("utf-8", "surrogatepass")}
    page = blocks.page
    header = {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "page": {"id": page.id, "url": page.url, "site": page.site},
        "scheme": blocks.scheme, "vocab": blocks.vocab, "shape_vocab": blocks.shape.vocab,
        "attrs": list(blocks.attrs) if blocks.attrs is not None else None,
        "texts": [[name, len(data)] for name, data in texts.items()],
        "arrays": [[name, array.dtype.str, list(array.shape)] for name, array in arrays.items()],
    }
    encoded = json.dumps(header, ensure_ascii=False).encode("utf-8", "surrogatepass")
    parts = [len(encoded).to_bytes(_SIZE, "little"), encoded, *texts.values()]
    parts += [np.ascontiguousarray(array).tobytes() for array in arrays.values()]
    return b"".join(parts)


def read_blocks(stream: BinaryIO) -> PageBlocks:
    """The record at the stream's position (which moves past it)."""
    size = int.from_bytes(_exactly(stream, _SIZE), "little")
    header = _header(_exactly(stream, size))
    body = bytearray(_body_size(header))
    if stream.readinto(body) != len(body):
        raise ValueError("a page-blocks record ends early")
    return _blocks(header, body)


def decode_blocks(record: bytes) -> PageBlocks:
    """:func:`encode_blocks`'s ``blocks`` back."""
    if len(record) < _SIZE:
        raise ValueError("a page-blocks record ends early")
    size = int.from_bytes(record[:_SIZE], "little")
    header = _header(record[_SIZE:_SIZE + size])
    body = bytearray(record[_SIZE + size:])  # writable arrays, as segmenting makes them
    if len(body) != _body_size(header):
        raise ValueError("a page-blocks record's size disagrees with its header")
    return _blocks(header, body)


def _exactly(stream: BinaryIO, size: int) -> bytes:
    data = stream.read(size)
    if len(data) != size:
        raise ValueError("a page-blocks record ends early")
    return data


def _header(data: bytes) -> dict:
    try:
        header = json.loads(data.decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, ValueError):
        raise ValueError("not a page-blocks record (unreadable header)") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ValueError("not a page-blocks record")
    if header.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"page-blocks format {header.get('format_version')!r}; this version "
                         f"reads format {FORMAT_VERSION}")
    return header


def _body_size(header: dict) -> int:
    texts = sum(size for _, size in header["texts"])
    return texts + sum(np.dtype(dtype).itemsize * math.prod(shape)
                       for _, dtype, shape in header["arrays"])


def _blocks(header: dict, body: bytearray) -> PageBlocks:
    view = memoryview(body)
    at = 0
    texts: dict[str, str] = {}
    for name, size in header["texts"]:
        texts[name] = bytes(view[at:at + size]).decode("utf-8", "surrogatepass")
        at += size
    arrays: dict[str, np.ndarray] = {}
    for name, dtype, shape in header["arrays"]:
        count = math.prod(shape)
        array = np.frombuffer(view, dtype=np.dtype(dtype), count=count, offset=at)
        arrays[name] = array.reshape(shape)
        at += array.nbytes
    page = header["page"]
    index, notes = _prefixed(arrays, "chunk_index."), _prefixed(arrays, "notes.")
    shape = DomShape(arrays.pop("shape.tag_ids"), header["shape_vocab"],
                     arrays.pop("shape.parents"))
    return PageBlocks(
        page=Page(id=page["id"], html=texts["html"], url=page["url"], site=page["site"]),
        scheme=header["scheme"], text=texts["text"], vocab=header["vocab"], shape=shape,
        attrs=tuple(header["attrs"]) if header["attrs"] is not None else None,
        chunk_index=ChunkIndex(**index) if index else None, notes=notes, **arrays)


def _prefixed(arrays: dict[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    """The arrays named ``prefix`` + a name, taken out of ``arrays``, by that name."""
    return {name[len(prefix):]: arrays.pop(name) for name in list(arrays)
            if name.startswith(prefix)}
