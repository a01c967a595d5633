"""read_pages on damaged input: a bad gzip member or WARC record costs that record only,
stray NULs do not cost a page, and entries named as pages that cannot be read are counted."""

from __future__ import annotations

import codecs
import io
import os
import random
import re
import socket
import sys
import tarfile
import types
from pathlib import Path

import pytest
from repo import SHOP
from test_reader import split
from typer.testing import CliRunner
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from corpora.locate import CorpusMissingError, corpus_path
from denoise.decode import decode_html
from denoise.errors import PageError
from denoise.page import Page
from denoise.reader import Skipped, read_file_bytes, read_pages

RECORDS = 10


def shop_bodies() -> list[bytes]:
    return [path.read_bytes() for path in sorted(SHOP.glob("*.html"))]


def build_warc(bodies: list[bytes], *, gzipped: bool) -> tuple[bytes, list[int]]:
    """A WARC of one response record a body (URL ``http://shop.example/N``), and the
    offset of every record (in a .warc.gz, of its gzip member) plus the file's end.
    Record ids and dates are fixed: the same bodies give the same bytes, run after run."""
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=gzipped)
    offsets = []
    for number, body in enumerate(bodies):
        offsets.append(buffer.tell())
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")],
                                protocol="HTTP/1.1")
        fixed = {"WARC-Record-ID": f"<urn:uuid:00000000-0000-4000-8000-{number:012d}>",
                 "WARC-Date": "2024-05-01T12:00:00Z"}
        writer.write_record(writer.create_warc_record(
            f"http://shop.example/{number}", "response", payload=io.BytesIO(body),
            http_headers=http, warc_headers_dict=fixed,
        ))
    offsets.append(buffer.tell())
    return buffer.getvalue(), offsets


def shop_warc(*, gzipped: bool = True) -> tuple[bytes, list[int]]:
    bodies = shop_bodies()
    return build_warc([bodies[n % len(bodies)] for n in range(RECORDS)], gzipped=gzipped)


def flipped(data: bytes, start: int, count: int = 8) -> bytes:
    damaged = bytearray(data)
    for index in range(start, start + count):
        damaged[index] ^= 0xFF
    return bytes(damaged)


def numbers(pages: list[Page]) -> list[int]:
    return [int(page.id.rsplit("/", 1)[1]) for page in pages]


def all_but(*lost: int) -> list[int]:
    return [number for number in range(RECORDS) if number not in lost]


def read_bytes_as(tmp_path: Path, name: str, data: bytes) -> tuple[list[Page], list[Skipped]]:
    path = tmp_path / name
    path.write_bytes(data)
    return split(read_pages([path]))


class _Pipe:
    """Standard input that cannot seek, counting the bytes read from it."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)
        self.consumed = 0

    def read(self, size: int | None = -1) -> bytes:
        data = self._data.read(size)
        self.consumed += len(data)
        return data

    def readline(self, size: int | None = -1) -> bytes:
        data = self._data.readline(size)
        self.consumed += len(data)
        return data

    def seekable(self) -> bool:
        return False


def set_stdin(monkeypatch, data: bytes) -> _Pipe:
    pipe = _Pipe(data)
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=pipe))
    return pipe


# --- damaged gzip members ----------------------------------------------------------------


def test_the_shop_warc_reads_whole(tmp_path):
    data, _ = shop_warc()
    pages, skipped = read_bytes_as(tmp_path, "crawl.warc.gz", data)
    assert skipped == []
    assert numbers(pages) == list(range(RECORDS))


@pytest.mark.parametrize("member", [0, 4, RECORDS - 1], ids=["first", "middle", "last"])
def test_a_corrupt_member_costs_its_record_only(tmp_path, member):
    data, offsets = shop_warc()
    middle = (offsets[member] + offsets[member + 1]) // 2
    pages, skipped = read_bytes_as(tmp_path, "crawl.warc.gz", flipped(data, middle))
    assert numbers(pages) == all_but(member)
    assert len(skipped) == 1
    assert skipped[0].source == f"{tmp_path / 'crawl.warc.gz'}@{offsets[member]}"
    assert skipped[0].reason.startswith("corrupt gzip member (")
    assert "1 record lost" in skipped[0].reason
    # the intact pages are whole: the first one's text is the shop page's
    first = pages[0]
    body = shop_bodies()[numbers([first])[0] % len(shop_bodies())].decode()
    assert first.html.strip() == body.strip()


def test_a_bad_checksum_drops_the_member_and_serves_nothing_of_it(tmp_path):
    data, offsets = shop_warc()
    # the CRC-32 is the trailer's first 4 bytes: the data decompress, the check fails
    pages, skipped = read_bytes_as(tmp_path, "crawl.warc.gz", flipped(data, offsets[5] - 8, 2))
    assert numbers(pages) == all_but(4)
    assert [item.reason for item in skipped] == [
        "corrupt gzip member (Error -3 while decompressing data: incorrect data check), "
        "1 record lost",
    ]


def test_a_truncated_member_followed_by_more_members(tmp_path):
    data, offsets = shop_warc()
    cut = offsets[3] + (offsets[4] - offsets[3]) // 2
    pages, skipped = read_bytes_as(tmp_path, "crawl.warc.gz", data[:cut] + data[offsets[4]:])
    assert numbers(pages) == all_but(3)
    assert [item.source.rsplit("@", 1)[1] for item in skipped] == [str(offsets[3])]


def test_two_damaged_members_are_two_skipped(tmp_path):
    data, offsets = shop_warc()
    for member in (4, 5):
        data = flipped(data, (offsets[member] + offsets[member + 1]) // 2)
    pages, skipped = read_bytes_as(tmp_path, "crawl.warc.gz", data)
    assert numbers(pages) == all_but(4, 5)
    assert [item.source.rsplit("@", 1)[1] for item in skipped] == [
        str(offsets[4]), str(offsets[5]),
    ]


def test_bytes_between_members_are_skipped_and_counted(tmp_path):
    data, offsets = shop_warc()
    junk = b"not gzip " * 9
    pages, skipped = read_bytes_as(
        tmp_path, "crawl.warc.gz", data[:offsets[6]] + junk + data[offsets[6]:]
    )
    assert numbers(pages) == list(range(RECORDS))
    assert [str(item) for item in skipped] == [
        f"{tmp_path / 'crawl.warc.gz'}@{offsets[6]}: not gzip data: {len(junk)} bytes skipped"
    ]


def test_zero_padding_between_members_is_no_damage(tmp_path):
    data, offsets = shop_warc()
    padded = data[:offsets[6]] + bytes(64) + data[offsets[6]:] + bytes(16)
    pages, skipped = read_bytes_as(tmp_path, "crawl.warc.gz", padded)
    assert skipped == []
    assert numbers(pages) == list(range(RECORDS))


def test_damaged_first_bytes_of_a_warc_gz(tmp_path):
    # the gzip magic itself is gone: the suffix still says gzip, the second member is found
    data, offsets = shop_warc()
    pages, skipped = read_bytes_as(tmp_path, "crawl.warc.gz", flipped(data, 0, 2))
    assert numbers(pages) == all_but(0)
    assert [item.source.rsplit("@", 1)[1] for item in skipped] == ["0"]
    assert skipped[0].reason == f"not gzip data: {offsets[1]:,} bytes skipped"


def test_a_truncated_warc_gz_keeps_what_precedes_the_cut(tmp_path):
    data, _ = shop_warc()
    pages, skipped = read_bytes_as(tmp_path, "cut.warc.gz", data[:-200])
    assert numbers(pages) == all_but(RECORDS - 1)
    assert len(skipped) == 1
    assert "truncated" in skipped[0].reason


@pytest.mark.parametrize("member", [0, 4])
def test_a_corrupt_member_through_standard_input(monkeypatch, member):
    # no name, no suffix: the stream is sniffed, even when its first member is the bad one
    data, offsets = shop_warc()
    middle = (offsets[member] + offsets[member + 1]) // 2
    set_stdin(monkeypatch, flipped(data, middle))
    pages, skipped = split(read_pages(["-"]))
    assert numbers(pages) == all_but(member)
    assert [item.source for item in skipped] == [f"-@{offsets[member]}"]


@pytest.mark.slow
def test_the_command_line_counts_the_lost_record():
    from commands.denoise import app

    data, offsets = shop_warc()
    damaged = flipped(data, (offsets[4] + offsets[5]) // 2)
    result = CliRunner().invoke(app, ["apply", "-"], input=damaged)
    assert result.exit_code == 0, result.output
    assert result.stdout.count('"page": "http://shop.example/') == RECORDS - 1
    assert f"-@{offsets[4]}: corrupt gzip member" in result.stderr
    assert re.search(r"\b1 skipped \(1 corrupt gzip member\)", result.stderr)


def test_a_damaged_warc_gz_is_read_as_a_stream(monkeypatch):
    """The first page comes before the input is read to its end, damage or not."""
    bodies = shop_bodies()
    data, offsets = build_warc([bodies[n % len(bodies)] for n in range(400)], gzipped=True)
    pipe = set_stdin(monkeypatch, flipped(data, (offsets[1] + offsets[2]) // 2))
    items = read_pages(["-"])
    first = next(items)
    assert isinstance(first, Page)
    assert pipe.consumed < len(data) // 2
    pages, skipped = split(items)
    assert len(pages) == 398 and len(skipped) == 1


def damage_at_random(data: bytes, rng: random.Random) -> bytes:
    """``data`` with one to three stretches of bytes changed, inserted or deleted."""
    damaged = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        at, count = rng.randrange(len(damaged)), rng.randint(1, 64)
        how = rng.choice(["change", "insert", "delete"])
        if how == "change":
            for index in range(at, min(at + count, len(damaged))):
                damaged[index] ^= rng.randrange(1, 256)
        elif how == "insert":
            damaged[at:at] = rng.randbytes(count)
        else:
            del damaged[at:at + count]
    return bytes(damaged)


def test_random_damage_to_a_warc_gz_never_serves_a_garbled_page_nor_loses_one_silently():
    rng = random.Random(2028)
    data, _ = shop_warc()
    bodies = shop_bodies()
    for _ in range(150):
        pages, skipped = split(read_file_bytes("crawl.warc.gz", damage_at_random(data, rng)))
        for page in pages:
            assert page.html == bodies[numbers([page])[0] % len(bodies)].decode()
        if len(pages) < RECORDS:
            assert skipped
        assert all("@" in item.source or "#record" in item.source for item in skipped)


def test_random_damage_to_a_plain_warc_raises_nothing():
    rng = random.Random(2028)
    data, _ = shop_warc(gzipped=False)
    for _ in range(150):
        split(read_file_bytes("crawl.warc", damage_at_random(data, rng)))


@pytest.mark.parametrize("held", [True, False], ids=["held", "served-as-it-comes"])
def test_a_warc_gz_of_one_member_keeps_the_records_before_the_damage(monkeypatch, held):
    """Not one member a record (gzip run over a whole WARC): the records before the
    damage are read, none after it, as the bytes after a damage are garbled."""
    import gzip

    from denoise import reader

    if not held:  # a member longer than what is held is served before it is verified
        monkeypatch.setattr(reader, "_MEMBER_BUFFER", 1 << 16)
    bodies = shop_bodies()
    plain, _ = build_warc([bodies[n % len(bodies)] for n in range(400)], gzipped=False)
    whole = gzip.compress(plain, mtime=0)
    damaged = flipped(whole, len(whole) * 4 // 5)
    pages, skipped = split(read_file_bytes("crawl.warc.gz", damaged))
    assert 200 < len(pages) < 400
    assert numbers(pages) == list(range(len(pages)))  # nothing read past the damage
    whole_pages = [page for page in pages
                   if page.html == bodies[numbers([page])[0] % len(bodies)].decode()]
    assert len(whole_pages) >= len(pages) - 1  # the last may hold bytes zlib got wrong
    assert skipped[-1].source.startswith("crawl.warc.gz@")


# --- garbled records in an uncompressed WARC ----------------------------------------------


def test_a_garbled_record_line_in_a_plain_warc_resyncs_at_the_next_record(tmp_path):
    data, offsets = shop_warc(gzipped=False)
    pages, skipped = read_bytes_as(tmp_path, "crawl.warc", flipped(data, offsets[4], 4))
    assert numbers(pages) == all_but(4)
    assert len(skipped) == 1
    assert skipped[0].source == f"{tmp_path / 'crawl.warc'}#record 5"
    skipped_bytes = offsets[5] - offsets[4]
    assert skipped[0].reason.startswith("not a valid WARC (")
    assert skipped[0].reason.endswith(f"; {skipped_bytes:,} bytes skipped to the next record")


def test_a_garbled_first_record_in_a_plain_warc(tmp_path):
    data, _ = shop_warc(gzipped=False)
    pages, skipped = read_bytes_as(tmp_path, "crawl.warc", flipped(data, 0, 4))
    assert numbers(pages) == all_but(0)
    assert [item.source.rsplit("#", 1)[1] for item in skipped] == ["record 1"]


def test_a_garbled_record_header_block_is_counted(tmp_path):
    # WARC/1.0 intact, the named fields after it garbled: no type, so no page and no word
    data, offsets = shop_warc(gzipped=False)
    pages, skipped = read_bytes_as(tmp_path, "crawl.warc", flipped(data, offsets[4] + 10, 200))
    assert numbers(pages) == all_but(4)
    assert [str(item) for item in skipped] == [
        f"{tmp_path / 'crawl.warc'}#record 5: malformed record header: no WARC-Type"
    ]


@pytest.mark.corpus
def test_corrupt_members_of_a_warc_of_real_pages(tmp_path):
    """A hundred documentation pages in a .warc.gz, three members damaged three ways."""
    try:
        archive = corpus_path("sites-dev-docs.tar.xz")
    except CorpusMissingError as missing:
        pytest.skip(str(missing))
    bodies = []
    with tarfile.open(archive, "r|xz") as tar:
        for member in tar:
            if member.isfile() and member.name.endswith(".html"):
                bodies.append(tar.extractfile(member).read())
                if len(bodies) == 100:
                    break
    data, offsets = build_warc(bodies, gzipped=True)
    data = flipped(data, (offsets[10] + offsets[11]) // 2, 32)  # deflate data
    data = flipped(data, offsets[51] - 3, 1)  # the length in the trailer
    data = data[:offsets[90] + 40] + data[offsets[91]:]  # a member cut short
    path = tmp_path / "docs.warc.gz"
    path.write_bytes(data)
    pages, skipped = split(read_pages([path]))
    lost = {10, 50, 90}
    assert numbers(pages) == [n for n in range(100) if n not in lost]
    assert [item.source for item in skipped] == [f"{path}@{offsets[n]}" for n in sorted(lost)]
    # every page read is whole: the same as its body decoded on its own
    for page in pages:
        number = numbers([page])[0]
        assert page.html == decode_html(bodies[number], page.id, header_charset="utf-8")


# --- stray NUL bytes and binary data ------------------------------------------------------


def shop_page() -> bytes:
    return (SHOP / "oak-shelf.html").read_bytes()


def test_one_nul_byte_in_a_page_is_removed_not_a_reason_to_refuse_it(tmp_path):
    page = shop_page()
    cut = page.index(b"<body>") + len(b"<body>")
    with_nul = page[:cut] + b"\x00" + page[cut:]
    path = tmp_path / "page.html"
    path.write_bytes(with_nul)
    pages, skipped = split(read_pages([path]))
    assert skipped == []
    assert "\x00" not in pages[0].html
    assert pages[0].html == page.decode("utf-8")


def test_nul_bytes_after_the_end_of_a_page_are_removed():
    # as in a 1996 page of WebKB: a few NULs among the blank lines after </HTML>
    page = shop_page() + b"\n\r\x00\x00\x00\x00\n\r" * 2
    assert decode_html(page, "x") == page.replace(b"\x00", b"").decode("utf-8")


def test_a_page_of_nul_bytes_is_binary():
    page = b"<html><body><p>" + b"\x00\x01" * 200 + b"</p></body></html>"
    with pytest.raises(PageError, match="binary data, not HTML"):
        decode_html(page, "x")


def png_bytes() -> bytes:
    """A small real PNG: a signature, an IHDR chunk, compressed rows, an IEND."""
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body)))

    rows = b"".join(b"\x00" + bytes(range(48)) for _ in range(16))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def pdf_bytes() -> bytes:
    return (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
            b"2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>"
            b"\n%%EOF\n")


def elf_bytes() -> bytes:
    return b"\x7fELF\x02\x01\x01" + bytes(9) + b"\x02\x00\x3e\x00" + bytes(200)


def random_bytes() -> bytes:
    return random.Random(28).randbytes(8000)


def headless_executable() -> bytes:  # no signature: its NULs and control bytes tell
    return (b"\x01\x00\x02\x00" + bytes(40) + b"<html>" + bytes(60)) * 40


@pytest.mark.parametrize("make", [png_bytes, pdf_bytes, elf_bytes, random_bytes,
                                  headless_executable])
def test_binary_files_are_still_refused(tmp_path, make):
    path = tmp_path / "not-a-page.html"
    path.write_bytes(make())
    pages, skipped = split(read_pages([path]))
    assert pages == []
    assert [item.reason for item in skipped] == ["binary data, not HTML"]


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_pages_are_still_decoded(codec):
    """With a byte-order mark, or without one and undeclared: its NULs tell."""
    page = shop_page().decode("utf-8").replace("Oak", "Eiche \u00fcber \u6a61")
    text = decode_html(page.encode(codec), "x")
    assert text == page


def test_utf16_declared_by_the_http_header_is_still_decoded():
    page = shop_page().decode("utf-8")
    assert decode_html(page.encode("utf-16-le"), "x", header_charset="utf-16le") == page


def test_utf16_in_a_warc_record_is_read(tmp_path):
    page = shop_page().decode("utf-8")
    data, _ = build_warc([page.encode("utf-16-le"), codecs.BOM_UTF16_BE
                          + page.encode("utf-16-be")], gzipped=True)
    pages, skipped = read_bytes_as(tmp_path, "wide.warc.gz", data)
    assert skipped == []
    assert [p.html for p in pages] == [page, page]


# --- entries of a folder that cannot be read ------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_a_dangling_symbolic_link_is_counted_a_good_one_read(tmp_path):
    root = tmp_path / "site"
    root.mkdir()
    (root / "real.html").write_bytes(shop_page())
    (root / "alias.html").symlink_to("real.html")
    (root / "gone.html").symlink_to("deleted.html")
    (root / "notes.txt").symlink_to("deleted.txt")  # not named as a page: not counted
    pages, skipped = split(read_pages([root]))
    assert sorted(page.id for page in pages) == ["alias.html", "real.html"]
    assert [str(item) for item in skipped] == [f"{root / 'gone.html'}: dangling symbolic link"]


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no Unix sockets here")
def test_a_socket_named_as_a_page_is_counted_not_opened(tmp_path):
    # a socket, not a named pipe: were it opened by mistake, it fails at once, not hangs
    root = tmp_path / "s"
    root.mkdir()
    (root / "real.html").write_bytes(shop_page())
    path = root / "sock.html"
    if len(str(path)) > 100:
        pytest.skip("the temporary folder's path is too long for a socket")
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(path))
        pages, skipped = split(read_pages([root]))
    assert [page.id for page in pages] == ["real.html"]
    assert [str(item) for item in skipped] == [f"{path}: not a regular file"]


@pytest.mark.parametrize("label", ["undefined", "unicode_escape", "raw_unicode_escape",
                                   "utf-7", "rot13", "base64", "punycode", "idna"])
def test_a_charset_no_page_is_written_in_is_taken_as_undeclared(label):
    # Python knows these codecs; a page not valid UTF-8 that declared one was decoded
    # with it ('undefined' raised UnicodeError from decode_html, 'unicode_escape' read
    # backslashes as escapes): now as if undeclared (windows-1252 after UTF-8 fails)
    data = (f'<html><head><meta charset="{label}"></head><body><p>caf\xe9 \\u0041 '
            '\\w +AGEAYgBj-</p></body></html>').encode("latin-1")
    text = decode_html(data, "odd.html")
    assert "caf\u00e9 \\u0041 \\w +AGEAYgBj-" in text
