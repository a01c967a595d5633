"""``read_arrays`` against crafted files: headers that lie, zip bombs, objects, and sizes
that disagree are one ModelError naming the file, found before anything big is made."""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest
from npzfiles import Tripwire

from denoise import arrayfile
from denoise.arrayfile import MAX_BYTES, ModelError, read_arrays, write_arrays
from denoise.model import default_model_path
from denoise.shipped import shipped

KIND = "limits-test-table"
MIB = 1 << 20


def load(path: Path, **options: object) -> tuple[dict, dict[str, np.ndarray]]:
    return read_arrays(path, KIND, 1, what="test table", rebuild="make it again", **options)


def npy_header(shape: tuple[int, ...], descr: str = "<f8", version: tuple[int, int] = (1, 0)
               ) -> bytes:
    """A well-formed .npy header (magic, version, length, dict) for ``shape`` and ``descr``."""
    buffer = io.BytesIO()
    fields = {"descr": descr, "fortran_order": False, "shape": shape}
    if version == (1, 0):
        np.lib.format.write_array_header_1_0(buffer, fields)
    else:
        np.lib.format.write_array_header_2_0(buffer, fields)
    return buffer.getvalue()


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue()


HEADER = npy(np.frombuffer(json.dumps({"kind": KIND, "format_version": 1}).encode(),
                           dtype=np.uint8))


def write_zip(path: Path, members: dict[str, bytes],
              method: int = zipfile.ZIP_DEFLATED) -> Path:
    """A zip of ``members`` (name -> bytes) and a valid JSON header member."""
    with zipfile.ZipFile(path, "w", method) as archive:
        archive.writestr("header.npy", HEADER)
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def write_bomb(path: Path, name: str, header: bytes, zeros: int) -> Path:
    """A zip whose member ``name`` is ``header`` then ``zeros`` zero bytes, deflated as it
    is written (never whole in memory): 1 MiB of zeros takes about 1 KiB."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.npy", HEADER)
        with archive.open(name, "w") as member:
            member.write(header)
            piece = bytes(MIB)
            for _ in range(zeros // MIB):
                member.write(piece)
    return path


def with_stated_size(path: Path, name: str, size: int, crc: int | None = None) -> Path:
    """``path`` with the uncompressed size its central directory states for ``name``
    replaced by ``size`` (a lie: the data is unchanged), and its checksum by ``crc``."""
    data = bytearray(path.read_bytes())
    end = data.rindex(b"PK\x05\x06")
    entries, directory = struct.unpack_from("<H4xI", data, end + 10)
    offset = directory
    for _ in range(entries):
        name_size, extra_size, comment_size = struct.unpack_from("<3H", data, offset + 28)
        if data[offset + 46:offset + 46 + name_size].decode() == name:
            struct.pack_into("<I", data, offset + 24, size)
            if crc is not None:
                struct.pack_into("<I", data, offset + 16, crc)
            path.write_bytes(bytes(data))
            return path
        offset += 46 + name_size + extra_size + comment_size
    raise AssertionError(f"no member {name} in {path}")


def refusal(path: Path, **options: object) -> str:
    """The one-line message ``load`` refuses ``path`` with."""
    with pytest.raises(ModelError) as caught:
        load(path, **options)
    message = str(caught.value)
    assert caught.value.source == str(path)
    assert message.startswith(f"{path}: not a readable test table file (")
    assert "\n" not in message
    return message


def peak_while(action) -> int:
    """The most memory Python and numpy held at once while ``action`` ran."""
    tracemalloc.start()
    try:
        action()
    except ModelError:
        pass
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak


# --- what shipped and well-made files give ---------------------------------------------


def test_a_round_trip_gives_back_every_kind_of_plain_array(tmp_path):
    arrays = {
        "floats": np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4),
        "fortran": np.asfortranarray(np.arange(12, dtype=np.int64).reshape(3, 4)),
        "big_endian": np.arange(5, dtype=">u4"),
        "flags": np.array([True, False, True]),
        "text": np.array(["año", "b", ""]),
        "bytes": np.array([b"ab", b"c"]),
        "complex": np.array([1 + 2j]),
        "empty_text": np.empty((0, 3), dtype="U7"),
        "scalar": np.array(7, dtype=np.int16),
    }
    path = tmp_path / "good.npz"
    write_arrays(path, {"kind": KIND, "format_version": 1, "note": "kept"}, arrays)
    header, loaded = load(path)
    assert header["note"] == "kept"
    assert sorted(loaded) == sorted(arrays)
    for name, array in arrays.items():
        assert loaded[name].dtype == array.dtype, name
        assert loaded[name].shape == array.shape, name
        np.testing.assert_array_equal(loaded[name], array)
        assert loaded[name].flags.writeable, name  # as np.load gave them
    assert loaded["fortran"].flags.f_contiguous


@pytest.mark.parametrize("path", [default_model_path(), shipped("kwx-querylog.npz")],
                         ids=["model", "query log"])
def test_the_shipped_files_read_as_numpy_reads_them(path):
    with np.load(path, allow_pickle=False) as data:
        expected = {name: data[name] for name in data.files}
    kind = json.loads(expected["header"].tobytes())
    header, arrays = read_arrays(path, kind["kind"], kind["format_version"], what="file",
                                 rebuild="")
    assert header == kind
    assert sorted(arrays) == sorted(set(expected) - {"header"})
    for name, array in arrays.items():
        assert array.dtype == expected[name].dtype
        np.testing.assert_array_equal(array, expected[name])


# --- headers that lie -------------------------------------------------------------------


def test_a_header_claiming_ten_trillion_elements_is_refused_before_anything_is_made(tmp_path):
    path = write_zip(tmp_path / "crafted.npz",
                     {"weights.npy": npy_header((10**13,)) + bytes(100)})
    message = refusal(path)
    assert "member 'weights' claims 10000000000000 elements (72.8 TiB)" in message
    assert peak_while(lambda: load(path)) < MIB


def test_the_cap_counts_what_every_header_claims_whatever_the_directory_says(tmp_path):
    """Two members of 600 KiB each under a 1 MiB cap; the directory understates the second
    (with a checksum to match), so only the headers' claims, added up, find it too big."""
    noise = npy(np.random.default_rng(0).integers(0, 256, 600 * 1024, dtype=np.uint8))
    path = write_zip(tmp_path / "two.npz", {"a.npy": noise, "b.npy": noise},
                     method=zipfile.ZIP_STORED)
    assert len(load(path)[1]) == 2
    with_stated_size(path, "b.npy", 200, crc=zlib.crc32(noise[:200]))
    message = refusal(path, max_bytes=MIB)
    assert "its members claim 1.2 MiB once 'b' is counted; a test table file may hold at " \
           "most 1.0 MiB" in message


def test_a_header_of_absurd_length_is_refused_without_reading_it(tmp_path):
    # .npy 2.0 keeps the header's length in 4 bytes: this one says 4 GiB
    lying = b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFFF) + b"{" + b" " * 20_000
    path = write_zip(tmp_path / "long-header.npz", {"weights.npy": lying})
    assert "member 'weights' has no readable .npy header" in refusal(path)


def test_a_header_that_is_not_a_header_is_refused(tmp_path):
    path = write_zip(tmp_path / "garbled.npz",
                     {"weights.npy": b"\x93NUMPY\x01\x00" + b"\x10\x00" + b"not a dict at all"})
    assert "member 'weights' has no readable .npy header" in refusal(path)


def test_a_version_2_header_is_read(tmp_path):
    data = np.arange(6, dtype="<i2")
    path = write_zip(tmp_path / "v2.npz",
                     {"counts.npy": npy_header((2, 3), "<i2", (2, 0)) + data.tobytes()})
    np.testing.assert_array_equal(load(path)[1]["counts"], data.reshape(2, 3))


# --- data that disagrees with its header ------------------------------------------------


@pytest.mark.parametrize(("held", "words"), [(80, "holds 80 bytes of data; its header says 800"),
                                             (808, "holds 808 bytes of data; its header says "
                                                   "800")],
                         ids=["shorter", "longer"])
def test_data_shorter_or_longer_than_the_header_says_is_refused(tmp_path, held, words):
    path = write_zip(tmp_path / "sized.npz", {"weights.npy": npy_header((100,)) + bytes(held)})
    assert f"member 'weights' {words}" in refusal(path)


def test_a_directory_that_overstates_a_member_cannot_stretch_its_data(tmp_path):
    """The zip's directory says the member is as long as its header claims; the data ends
    before: the shortfall is found while reading, not taken as zeros."""
    header = npy_header((100,))
    path = write_zip(tmp_path / "overstated.npz", {"weights.npy": header + bytes(80)},
                     method=zipfile.ZIP_STORED)
    with_stated_size(path, "weights.npy", len(header) + 800)
    assert "member 'weights' holds 80 bytes of data; its header says 800" in refusal(path)


@pytest.mark.slow
def test_a_directory_that_understates_a_bomb_stops_its_decompression(tmp_path):
    """A member whose header and directory say 16 bytes, followed by 64 MiB of zeros: only
    the 16 bytes (and a piece) are ever decompressed; the checksum then fails."""
    header = npy_header((2,))
    path = write_bomb(tmp_path / "understated.npz", "weights.npy", header + bytes(16),
                      64 * MIB)
    with_stated_size(path, "weights.npy", len(header) + 16)
    assert "CRC" in refusal(path)
    assert peak_while(lambda: load(path)) < 4 * MIB


# --- zip bombs --------------------------------------------------------------------------


def test_a_zip_bomb_over_the_callers_cap_is_refused_before_decompression(tmp_path):
    path = write_bomb(tmp_path / "bomb.npz", "zeros.npy", npy_header((8 * MIB,), "|u1"),
                      8 * MIB)
    assert path.stat().st_size < 64 * 1024
    message = refusal(path, max_bytes=MIB)
    assert "its members claim 8.0 MiB in all; a test table file may hold at most 1.0 MiB" \
        in message
    assert peak_while(lambda: load(path, max_bytes=MIB)) < MIB


@pytest.mark.slow
def test_a_zip_bomb_past_the_free_allowance_is_refused_by_its_ratio(tmp_path, monkeypatch):
    """Zeros expand 1000 times; real arrays do not: beyond FREE_BYTES (lowered here to keep
    the test small) a file may expand MAX_RATIO times its size."""
    monkeypatch.setattr(arrayfile, "FREE_BYTES", MIB)
    bomb = write_bomb(tmp_path / "bomb.npz", "zeros.npy", npy_header((8 * MIB,), "|u1"),
                      8 * MIB)
    message = refusal(bomb)
    assert "its members claim 8.0 MiB in all; a file of " in message
    assert "KiB may expand to at most 1.0 MiB" in message
    # as much data that does not compress is read
    noise = tmp_path / "noise.npz"
    random = np.random.default_rng(1).integers(0, 256, 8 * MIB, dtype=np.uint8)
    write_arrays(noise, {"kind": KIND, "format_version": 1}, {"random": random})
    np.testing.assert_array_equal(load(noise)[1]["random"], random)


def test_a_directory_stating_gigabytes_is_refused_at_the_default_cap(tmp_path):
    """The directory's sizes are checked before any member is opened: a member stated at
    4 GiB in a file of a few hundred bytes is refused as it stands."""
    path = write_zip(tmp_path / "stated.npz", {"weights.npy": npy(np.zeros(3))})
    with_stated_size(path, "weights.npy", 0xFFFFFFF0)
    message = refusal(path)
    assert f"its members claim 4.0 GiB in all; a file of {path.stat().st_size} bytes may " \
           "expand to at most 256.0 MiB" in message
    assert arrayfile.FREE_BYTES < 4 << 30 < MAX_BYTES


# --- what a member may hold --------------------------------------------------------------


def test_an_object_member_is_refused_and_never_unpickled(tmp_path):
    marker = tmp_path / "unpickled"
    path = write_zip(tmp_path / "objects.npz",
                     {"weights.npy": npy(np.array([Tripwire(str(marker))], dtype=object))})
    assert "member 'weights' holds Python objects" in refusal(path)
    assert not marker.exists()


@pytest.mark.parametrize(("array", "words"), [
    (np.zeros(2, dtype=[("a", "<i4"), ("b", "<f8")]), "holds structured records"),
    (np.array(["2024-01-01"], dtype="datetime64[D]"), "holds datetimes"),
], ids=["structured", "dates"])
def test_members_other_than_plain_arrays_are_refused(tmp_path, array, words):
    path = write_zip(tmp_path / "odd.npz", {"weights.npy": npy(array)})
    assert f"member 'weights' {words}, not plain numbers or text" in refusal(path)


def test_members_of_zero_byte_items_or_negative_lengths_are_refused(tmp_path):
    empty = write_zip(tmp_path / "empty.npz",
                      {"weights.npy": npy_header((10**15,), "|S0")})
    assert "member 'weights' has items of 0 bytes" in refusal(empty)
    negative = write_zip(tmp_path / "negative.npz", {"weights.npy": npy_header((-4,))})
    assert "member 'weights' has a negative length" in refusal(negative)


def test_members_compressed_otherwise_than_deflate_or_named_twice_are_refused(tmp_path):
    bzip = write_zip(tmp_path / "bzip.npz", {"weights.npy": npy(np.zeros(4))},
                     method=zipfile.ZIP_BZIP2)
    assert "is compressed with zip method 12; only deflate is read" in refusal(bzip)
    twice = tmp_path / "twice.npz"
    with pytest.warns(UserWarning, match="Duplicate name"):
        write_zip(twice, {"weights.npy": npy(np.zeros(4)), "header.npy": HEADER})
    assert "member 'header' appears twice" in refusal(twice)


# --- through the command line -------------------------------------------------------------


@pytest.mark.slow
def test_apply_with_a_crafted_model_says_one_line_and_exits_2(tmp_path):
    """The shipped model with one member whose header claims 10^13 floats: numpy would
    try to allocate 73 TiB and fail with a traceback."""
    crafted = tmp_path / "crafted.npz"
    with np.load(default_model_path(), allow_pickle=False) as shipped, \
            zipfile.ZipFile(crafted, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in shipped.files:
            archive.writestr(f"{name}.npy", npy(shipped[name]))
        archive.writestr("weights.npy", npy_header((10**13,)) + bytes(100))
    page = tmp_path / "page.html"
    page.write_text("<html><body><p>Some text of a page to clean.</p></body></html>")
    run = subprocess.run([sys.executable, "-c", "from commands.denoise import app; app()",
                          "apply", str(page), "--model", str(crafted)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 2, run.stderr
    assert run.stdout == ""
    assert "Traceback" not in run.stderr
    [line] = run.stderr.splitlines()
    assert line.startswith(f"error: {crafted}: not a readable template model file (member "
                           "'weights' claims 10000000000000 elements (72.8 TiB); a file of ")
    assert line.endswith(" may expand to at most 256.0 MiB)")
