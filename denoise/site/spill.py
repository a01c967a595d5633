"""The spill file of ``denoise site``: waiting pages on disk, in a layout private to the run.

A spilled page is written once and read back by the same process, so its record need
not describe itself as :mod:`engine.blockcodec`'s public records do (a JSON header
naming every array's dtype and shape and every tag name, parsed and written for every
record). Instead the file keeps in memory one *layout* per kind of page it has seen (the
arrays' names, dtypes and numbers of dimensions, the same for every page segmented
alike) and one table of the tag names of the run, and a record holds numbers only
besides its arrays and text: a count, that many little-endian int64s (its layout, the
arrays' shapes, the tag names' numbers, the strings' lengths), then its *keys* (what
the site's method counts of the page to fit, :meth:`SiteMethod.page_keys`, so that
fitting reads a few hundred bytes of a spilled page, not all of it), then its arrays
(one run per dtype, largest items first, each run padded to 8 bytes: every array read
back is aligned) and its strings as one UTF-8 run. Never pickle: a record is read as
numbers, arrays and text.
"""

from __future__ import annotations

import math
import shutil
import struct
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import fields
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import BinaryIO, TypeVar

import numpy as np

from denoise.blocks import DomShape, PageBlocks
from denoise.page import Page
from denoise.site.base import PageKeys
from denoise.texthash import ChunkIndex

_Record = TypeVar("_Record")

#: The record layout this module writes and reads, written first in the file.
FORMAT_VERSION = 1
_MAGIC = b"denoise-site-spill\x00"
_COUNT = struct.Struct("<I")  # how many int64s the record's header holds
#: PageBlocks fields that are not arrays, each written by name below.
_OTHER = frozenset({"page", "scheme", "text", "vocab", "shape", "attrs", "chunk_index", "notes"})
_ARRAY_FIELDS = tuple(f.name for f in fields(PageBlocks) if f.name not in _OTHER)
_INDEX_FIELDS = tuple(f.name for f in fields(ChunkIndex))
#: The header's fixed part: page layout, keys layout (-1: none), the keys' bytes, the
#: number of tag names of ``vocab`` and of ``shape.vocab`` (-1: the same list), attrs
#: (-1: None), whether there is a URL, the strings' UTF-8 bytes.
_FIXED = 8


class _Layout:
    """The arrays of a kind of page: names (``shape.``, ``chunk_index.`` and ``notes.``
    for the nested ones), dtypes and numbers of dimensions; a record holds the dimensions.

    A record holds the arrays of one dtype as one run (the dtypes by falling item size,
    each run padded to 8 bytes), so reading a page back makes a few arrays and slices
    them, rather than making each of its ~17 arrays from the buffer, at a fixed cost
    apiece."""

    def __init__(self, names: tuple[str, ...], dtypes: tuple[np.dtype, ...],
                 ndims: tuple[int, ...]) -> None:
        self.names, self.dtypes, self.ndims = names, dtypes, ndims
        by_size = sorted(dict.fromkeys(dtypes), key=lambda dtype: -dtype.itemsize)
        self.runs = [(dtype, [i for i, d in enumerate(dtypes) if d == dtype])
                     for dtype in by_size]
        self.dims = sum(ndims)  # how many ints a record's array dimensions take
        self.reshaped = [i for i, ndim in enumerate(ndims) if ndim != 1]
        self.flat = not self.reshaped
        # the nested arrays' names, and what they are called inside their holder
        self.notes = [(name, name[6:]) for name in names if name.startswith("notes.")]
        self.index = [(name, name[12:]) for name in names if name.startswith("chunk_index.")]

    def parts(self, arrays: list[np.ndarray]) -> list[bytes]:
        """The bytes of ``arrays`` (laid out as this says), run by run: each array's own
        (``tobytes`` is the cheapest way to them, a copy of a few KB)."""
        parts: list[bytes] = []
        for _, members in self.runs:
            size = 0
            for i in members:
                parts.append(arrays[i].tobytes())
                size += len(parts[-1])
            if size % 8:
                parts.append(bytes(8 - size % 8))
        return parts

    def shapes(self, dims: Sequence[int]) -> tuple[list[tuple[int, ...]], list[int], int]:
        """Each array's shape (none when all are 1-d) and items, given all their
        dimensions in a row, and the bytes they take."""
        if self.flat:  # every array is 1-d: its dimension is its count
            shapes, counts = [], list(dims)
        else:
            shapes, counts, at = [], [], 0
            for ndim in self.ndims:
                shape = tuple(dims[at:at + ndim])
                shapes.append(shape)
                counts.append(math.prod(shape))
                at += ndim
        size = 0
        for dtype, members in self.runs:
            size += (dtype.itemsize * sum([counts[i] for i in members]) + 7) & ~7
        return shapes, counts, size

    def arrays(self, body: bytearray, dims: Sequence[int],
               measured: tuple[list[tuple[int, ...]], list[int], int] | None = None
               ) -> tuple[dict[str, np.ndarray], int]:
        """The arrays laid out at the start of ``body``, by name, and where they end
        (``measured``: what :meth:`shapes` gave for ``dims``, if the caller has it)."""
        shapes, counts, _ = measured or self.shapes(dims)
        found: list[np.ndarray] = [_EMPTY] * len(self.names)
        at = 0
        for dtype, members in self.runs:
            run = np.frombuffer(body, dtype, sum([counts[i] for i in members]), at)
            start = 0
            for i in members:
                found[i] = run[start:start + counts[i]]
                start += counts[i]
            at += (run.nbytes + 7) & ~7
        for i in self.reshaped:
            found[i] = found[i].reshape(shapes[i])
        return dict(zip(self.names, found, strict=True)), at


_EMPTY = np.zeros(0)
_FIELDS_OF = attrgetter(*_ARRAY_FIELDS)
_INDEX_OF = attrgetter(*_INDEX_FIELDS)
_DTYPE, _NDIM, _SHAPE = attrgetter("dtype"), attrgetter("ndim"), attrgetter("shape")


def _page_arrays(blocks: PageBlocks) -> tuple[tuple, list[np.ndarray]]:
    """Every array of ``blocks`` in a fixed order, and what names them (:func:`_names`):
    whether there is a chunk index, and the notes' names."""
    shape, index, notes = blocks.shape, blocks.chunk_index, blocks.notes
    arrays = [*_FIELDS_OF(blocks), shape.tag_ids, shape.parents]
    if index is not None:
        arrays += _INDEX_OF(index)
    arrays += notes.values()
    return ("page", index is not None, *notes), arrays


def _names(what: tuple) -> tuple[str, ...]:
    """The names of a layout's arrays: a page's (:func:`_page_arrays`), or the kinds of
    a page's keys."""
    if what[0] == "keys":
        return what[1:]
    _, has_index, *notes = what
    return (*_ARRAY_FIELDS, "shape.tag_ids", "shape.parents",
            *(f"chunk_index.{name}" for name in (_INDEX_FIELDS if has_index else ())),
            *(f"notes.{name}" for name in notes))


class Spill:
    """One file of segmented pages (and their keys) for the whole run, in a private
    temporary folder (mode 0700), appended to and read back at the offsets the caller
    keeps; deleted by :meth:`close`."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="denoise-site-"))
        self.path = self.folder / "pages.spill"
        self.stream = self.path.open("w+b")
        self.stream.write(_MAGIC + bytes([FORMAT_VERSION]))
        self._layouts: list[_Layout] = []
        self._layout_ids: dict[tuple, int] = {}
        self._names: list[str] = []  # the run's tag names
        self._name_ids: dict[str, int] = {}

    def write(self, blocks: PageBlocks, keys: PageKeys | None = None) -> int:
        """Append a page, and what its method counts of it if given; where it starts."""
        what, arrays = _page_arrays(blocks)
        page, shape, attrs = blocks.page, blocks.shape, blocks.attrs
        shared = shape.vocab is blocks.vocab
        strings = [page.html, blocks.text, page.id, page.url or "", page.site, blocks.scheme,
                   *(attrs or ())]
        joined = "".join(strings).encode("utf-8", "surrogatepass")
        keys_layout, key_dims, key_parts = -1, list[int](), list[bytes]()
        if keys is not None:
            page_key, digests = keys
            key_arrays = [np.asarray(values, dtype=np.int64) for values in digests.values()]
            keys_layout, layout = self._layout(("keys", *digests), key_arrays)
            key_parts = [*layout.parts(key_arrays), page_key.encode("utf-8", "surrogatepass")]
            key_dims = list(chain.from_iterable(map(_SHAPE, key_arrays)))
        page_layout, layout = self._layout(what, arrays)
        ints = [page_layout, keys_layout, sum(map(len, key_parts)), len(blocks.vocab),
                -1 if shared else len(shape.vocab), -1 if attrs is None else len(attrs),
                page.url is not None, len(joined), *key_dims,
                *chain.from_iterable(map(_SHAPE, arrays)), *map(len, strings),
                *self._name_numbers(blocks.vocab),
                *(() if shared else self._name_numbers(shape.vocab))]
        parts = [_COUNT.pack(len(ints)), struct.pack(f"<{len(ints)}q", *ints), *key_parts,
                 *layout.parts(arrays), joined]
        offset = self.stream.tell()  # only this method moves it
        self.stream.write(b"".join(parts))
        return offset

    def read(self, offsets: Iterable[int]) -> Iterator[PageBlocks]:
        """The pages at ``offsets``, one at a time (each a fresh object)."""
        return self._records(offsets, self._page)

    def read_keys(self, offsets: Iterable[int]) -> Iterator[PageKeys]:
        """The keys written with the pages at ``offsets`` (each must have them)."""
        return self._records(offsets, self._keys)

    def _records(self, offsets: Iterable[int], read: Callable[[BinaryIO], _Record]
                 ) -> Iterator[_Record]:
        """``read`` of the record at each of ``offsets``, in order."""
        self.stream.flush()
        with self.path.open("rb") as stream:
            for offset in offsets:
                stream.seek(offset)
                yield read(stream)

    def _keys(self, stream: BinaryIO) -> PageKeys:
        ints = _ints(stream)
        if ints[1] < 0:
            raise ValueError("a spilled page was written without its keys")
        layout = self._layouts[ints[1]]
        body = bytearray(_exactly(stream, ints[2]))
        arrays, at = layout.arrays(body, ints[_FIXED:_FIXED + layout.dims])
        return str(memoryview(body)[at:], "utf-8", "surrogatepass"), arrays

    def _page(self, stream: BinaryIO) -> PageBlocks:
        ints = _ints(stream)
        layout = self._layouts[ints[0]]
        n_vocab, n_shape_vocab, n_attrs, has_url, joined_size = ints[3:_FIXED]
        if ints[2]:
            stream.seek(ints[2], 1)  # the keys
        at = _FIXED + (self._layouts[ints[1]].dims if ints[1] >= 0 else 0)
        dims = ints[at:at + layout.dims]
        at += layout.dims
        measured = layout.shapes(dims)
        body = bytearray(measured[2] + joined_size)
        if stream.readinto(body) != len(body):
            raise ValueError("a spilled page's record ends early")
        arrays, end = layout.arrays(body, dims, measured)
        joined = str(memoryview(body)[end:], "utf-8", "surrogatepass")
        strings, start = [], 0
        for length in ints[at:at + 6 + max(n_attrs, 0)]:
            strings.append(joined[start:start + length])
            start += length
        at += len(strings)
        html, text, page_id, url, site, scheme = strings[:6]
        names = self._names
        vocab = [names[i] for i in ints[at:at + n_vocab]]
        shape_vocab = vocab if n_shape_vocab < 0 else [
            names[i] for i in ints[at + n_vocab:at + n_vocab + n_shape_vocab]]
        notes = {note: arrays.pop(name) for name, note in layout.notes}
        index = {field: arrays.pop(name) for name, field in layout.index}
        shape = DomShape(arrays.pop("shape.tag_ids"), shape_vocab, arrays.pop("shape.parents"))
        return PageBlocks(
            page=Page(id=page_id, html=html, url=url if has_url else None, site=site),
            scheme=scheme, text=text, vocab=vocab, shape=shape,
            attrs=None if n_attrs < 0 else tuple(strings[6:]),
            chunk_index=ChunkIndex(**index) if index else None, notes=notes, **arrays)

    def _layout(self, what: tuple, arrays: list[np.ndarray]) -> tuple[int, _Layout]:
        """The number and layout of ``arrays``, named by ``what`` (a new one if unseen)."""
        key = (what, tuple(map(_DTYPE, arrays)), tuple(map(_NDIM, arrays)))
        found = self._layout_ids.get(key)
        if found is None:
            names = _names(what)
            found = self._layout_ids[key] = len(self._layouts)
            self._layouts.append(_Layout(names, *key[1:]))
        return found, self._layouts[found]

    def _name_numbers(self, names: list[str]) -> list[int]:
        """The numbers of ``names`` in the run's table (new names are added)."""
        found = list(map(self._name_ids.get, names))
        return found if None not in found else list(map(self._name, names))

    def _name(self, name: str) -> int:
        found = self._name_ids.get(name)
        if found is None:
            found = self._name_ids[name] = len(self._names)
            self._names.append(name)
        return found

    def close(self) -> None:
        self.stream.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def _ints(stream: BinaryIO) -> tuple[int, ...]:
    (count,) = _COUNT.unpack(_exactly(stream, _COUNT.size))
    return struct.unpack(f"<{count}q", _exactly(stream, 8 * count))


def _exactly(stream: BinaryIO, size: int) -> bytes:
    data = stream.read(size)
    if len(data) != size:
        raise ValueError("a spilled page's record ends early")
    return data
