"""The toolkit's file format for learned things: named numpy arrays plus a JSON header.

Every model and table the toolkit saves is one ``.npz`` whose ``header`` member is
UTF-8 JSON with a ``kind`` and a ``format_version``. A reader names the kind and
version it understands and gets a :class:`ModelError` naming the file for anything
else: a missing file, another kind, an old format, a broken zip. What the arrays must
look like is the reader's to check.

A model may come from anyone (``denoise apply --model theirs.npz``), so the zip is read
here, not by ``np.load``, and nothing is decompressed before it is known to be small
enough: each member's ``.npy`` header is read first and must describe a plain array
(numbers, booleans, fixed-width text; never Python objects, so nothing is unpickled)
whose size fits :data:`MAX_BYTES` and :data:`MAX_RATIO` times the file's own size
beyond :data:`FREE_BYTES` (a few megabytes of zip cannot claim gigabytes); then
exactly the bytes the header claims are read, and a member holding more or less is
refused.
"""

from __future__ import annotations

import json
import math
import os
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import IO

import numpy as np

from denoise.errors import ModelError
from denoise.output import atomic_binary

#: Most bytes one file's arrays may hold once decompressed (headers included), unless the
#: caller allows more: room for a near-duplicate index of some 25 million pages (512
#: bytes of sketch and an id each); the shipped models and tables hold under 8 MB.
MAX_BYTES = 16 << 30
#: Arrays up to this many bytes are read from a file of any size: far above any shipped or
#: trained model (2.4 MB), so :data:`MAX_RATIO` only ever concerns big indexes and bombs.
FREE_BYTES = 256 << 20
#: Beyond :data:`FREE_BYTES`, a file's arrays may hold at most this many times the file's
#: own size. The shipped files hold 1.5 to 3.0 times theirs (their best-compressed member
#: 21 times); deflate reaches about 1000 times on zeros, which only a zip bomb needs.
MAX_RATIO = 100

#: The dtype kinds read: booleans, integers, floats, complex numbers, bytes, text.
_PLAIN_KINDS = frozenset("biufcSU")
#: What the other kinds hold, for the message that refuses them.
_OTHER_KINDS = {"O": "Python objects (pickled objects are never loaded)",
                "V": "structured records", "M": "datetimes", "m": "time spans"}
_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")  # a member first, or an empty archive
#: Bytes an .npy header may take: magic and version, its length, numpy's longest header.
_HEADER_ROOM = 8 + 4 + 10_000
#: Array data is read in pieces of this size, straight into the array (as numpy does:
#: 4 MiB pieces made loading the shipped query log 25% slower).
_CHUNK = 1 << 18


def write_arrays(path: str | os.PathLike[str], header: dict[str, object],
                 arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` and ``header`` (which must hold ``kind`` and ``format_version``)
    to ``path`` atomically: an earlier file stays whole until the new one is."""
    if "kind" not in header or "format_version" not in header:
        raise ValueError("a header needs 'kind' and 'format_version'")
    if "header" in arrays:
        raise ValueError("'header' is reserved for the JSON header")
    members = {**arrays, "header": np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)}
    with atomic_binary(path) as handle:
        np.savez_compressed(handle, **members)


def read_arrays(path: str | os.PathLike[str], kind: str, version: int, *,
                what: str, rebuild: str, max_bytes: int = MAX_BYTES
                ) -> tuple[dict[str, object], dict[str, np.ndarray]]:
    """The header and arrays of a file written by :func:`write_arrays`.

    ``what`` names the kind for people ("template model"), ``rebuild`` says how to
    make a current one ("retrain with 'denoise train'"). ``max_bytes`` bounds what the
    arrays may hold in all; it is checked against their ``.npy`` headers before any
    array is decompressed (see the module's docstring for the other bound).
    """
    source = str(path)
    try:
        with Path(path).open("rb") as handle:
            arrays = _read_npz(handle, source, what, max_bytes)
    except FileNotFoundError:
        raise ModelError(source, f"no such {what} file") from None
    except IsADirectoryError:
        raise ModelError(source, f"a folder, not a {what} file") from None
    except MemoryError:  # within the bounds, but more than this machine has free
        raise ModelError(source, f"not a readable {what} file (its arrays need more memory "
                         "than is free)") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, zlib.error) as error:
        raise ModelError(source, f"not a readable {what} file ({error})") from None
    try:
        header = json.loads(arrays.pop("header").tobytes().decode())
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: "[[[[..."
        raise ModelError(source, f"not a {what} file (no header)") from None
    if not isinstance(header, dict) or header.get("kind") != kind:
        found = header.get("kind") if isinstance(header, dict) else None
        raise ModelError(source, f"not a webdenoise {what}"
                         + (f" (it is a {found})" if isinstance(found, str) else ""))
    if header.get("format_version") != version:
        raise ModelError(source, f"{what} format {header.get('format_version')!r}; this "
                         f"version reads format {version}: {rebuild}")
    return header, arrays


def linear_arrays(arrays: dict[str, np.ndarray], intercept: object, width: int,
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """A standardized linear model's ``mean``, ``scale`` and ``coef`` arrays (one value
    a feature, ``width`` features) and its intercept, checked: finite, scales positive.
    Raises KeyError, TypeError or ValueError (the caller names its file)."""
    mean, scale, coef = (arrays[name].astype(np.float64) for name in ("mean", "scale", "coef"))
    if not all(a.shape == (width,) for a in (mean, scale, coef)):
        raise ValueError("coefficients do not match the features")
    value = float(intercept)  # type: ignore[arg-type]
    if not (np.isfinite(coef).all() and np.isfinite(mean).all() and (scale > 0).all()
            and math.isfinite(value)):
        raise ValueError("coefficients must be finite, scales positive")
    return mean, scale, coef, value


def _read_npz(handle: IO[bytes], source: str, what: str, max_bytes: int
              ) -> dict[str, np.ndarray]:
    """The arrays of the open file ``handle``, each checked before it is decompressed."""

    def refused(reason: str) -> ModelError:
        return ModelError(source, f"not a readable {what} file ({reason})")

    start = handle.read(len(_NPY_MAGIC))
    if start.startswith(_NPY_MAGIC):
        raise ModelError(source, f"not a {what} file (a bare numpy array, not an .npz)")
    if not start:
        raise refused("an empty file")
    if not start.startswith(_ZIP_MAGICS):
        raise refused("not an .npz of plain arrays; pickled objects are never loaded")
    handle.seek(0)
    size = os.fstat(handle.fileno()).st_size
    budget = min(max_bytes, max(FREE_BYTES, MAX_RATIO * size))
    limit = (f"a {what} file may hold at most {_size(max_bytes)}" if budget == max_bytes
             else f"a file of {_size(size)} may expand to at most {_size(budget)}")
    with zipfile.ZipFile(handle) as archive:
        members = archive.infolist()
        # np.savez names each member NAME.npy; anything else was not written by numpy
        names = [member.filename.removesuffix(".npy") for member in members]
        if "header" not in names:
            raise ModelError(source, f"not a {what} file (no header)")
        odd = sorted(name for name, member in zip(names, members, strict=True)
                     if not member.filename.endswith(".npy"))
        if odd:
            raise refused(f"member {odd[0]!r} is not a numpy array")
        twice = sorted(name for name, times in Counter(names).items() if times > 1)
        if twice:
            raise refused(f"member {twice[0]!r} appears twice")
        for name, member in zip(names, members, strict=True):
            if member.flag_bits & 0x1:
                raise refused(f"member {name!r} is encrypted")
            if member.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                # bzip2 and lzma members cannot be decompressed a bounded piece at a time
                raise refused(f"member {name!r} is compressed with zip method "
                              f"{member.compress_type}; only deflate is read")
        # the directory's sizes can lie, but when they already say too much, stop here
        declared = sum(member.file_size for member in members)
        if declared > budget:
            raise refused(f"its members claim {_size(declared)} in all; {limit}")
        arrays: dict[str, np.ndarray] = {}
        used = 0
        for name, member in zip(names, members, strict=True):
            with archive.open(member) as stream:
                arrays[name], used = _read_member(stream, name, member.file_size, used,
                                                  budget, limit, refused)
    return arrays


class _Limited:
    """At most ``left`` bytes of ``stream``: numpy's header reader asks for as many bytes
    as the header's own length field says, up to 4 GiB."""

    def __init__(self, stream: IO[bytes], left: int) -> None:
        self.stream = stream
        self.left = left
        self.used = 0

    def read(self, size: int = -1) -> bytes:
        size = self.left if size < 0 else min(size, self.left)
        data = self.stream.read(size)
        self.left -= len(data)
        self.used += len(data)
        return data


def _read_member(stream: IO[bytes], name: str, stored: int, used: int, budget: int,
                 limit: str, refused: Callable[[str], ModelError]) -> tuple[np.ndarray, int]:
    """The array in the .npy member ``stream`` (``stored`` bytes long, the zip's directory
    says) and the bytes read so far with it (``used`` before), refused when its header is
    not one of a plain array that fits ``budget`` or its data is not the size the header
    says."""
    header = _Limited(stream, _HEADER_ROOM)
    try:
        major, minor = np.lib.format.read_magic(header)
        if (major, minor) == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(header)
        elif (major, minor) == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(header)
        else:  # 3.0 differs only for structured arrays with non-latin-1 names
            raise refused(f"member {name!r} is .npy format {major}.{minor}, not 1.0 or 2.0")
    except (ValueError, RecursionError):  # numpy's messages quote the whole header
        raise refused(f"member {name!r} has no readable .npy header") from None
    if dtype.kind not in _PLAIN_KINDS or dtype.hasobject:
        what = _OTHER_KINDS.get(dtype.kind, f"values of dtype kind {dtype.kind!r}")
        raise refused(f"member {name!r} holds {what}, not plain numbers or text")
    if any(length < 0 for length in shape):
        raise refused(f"member {name!r} has a negative length in its .npy header")
    if dtype.itemsize == 0:  # any number of them would fit the bounds
        raise refused(f"member {name!r} has items of 0 bytes")
    count = math.prod(shape)
    size = count * dtype.itemsize
    if used + header.used + size > budget:
        if header.used + size > budget:
            raise refused(f"member {name!r} claims {_count(count)} elements "
                          f"({_size(size)}); {limit}")
        raise refused(f"its members claim {_size(used + header.used + size)} once {name!r} "
                      f"is counted; {limit}")
    if size != stored - header.used:
        raise refused(f"member {name!r} holds {_count(stored - header.used)} bytes of data; "
                      f"its header says {_count(size)}")
    flat = np.empty(count, dtype=dtype)
    # never more than the header says, whatever the zip's directory claims
    buffer = memoryview(flat.view(np.uint8))
    filled = 0
    while filled < size:
        got = stream.readinto(buffer[filled:filled + _CHUNK])
        if not got:
            raise refused(f"member {name!r} holds {_count(filled)} bytes of data; its header "
                          f"says {_count(size)}")
        filled += got
    if stream.read(1):
        raise refused(f"member {name!r} holds more data than its header says "
                      f"({_count(size)} bytes)")
    array = flat.reshape(shape[::-1]).transpose() if fortran else flat.reshape(shape)
    return array, used + header.used + size


def _count(number: int) -> str:
    """``number`` in digits, or its order of magnitude when a crafted header makes it
    longer than Python will print."""
    if number < 10**30:
        return str(number)
    return f"over 10^{(number.bit_length() - 1) * 30103 // 100000}"


def _size(count: int) -> str:
    """``count`` bytes for people: 17 bytes, 300.5 KiB, 2.0 GiB."""
    if count >= 1 << 70:
        return "over 1024 EiB"
    for unit, shift in (("EiB", 60), ("PiB", 50), ("TiB", 40), ("GiB", 30), ("MiB", 20),
                        ("KiB", 10)):
        if count >= 1 << shift:
            tenths = (count * 10 + (1 << (shift - 1))) >> shift  # rounded
            return f"{tenths // 10}.{tenths % 10} {unit}"
    return f"{count} bytes"
