"""read_pages: every kind of input to pages, every bad item to one Skipped."""

from __future__ import annotations

import codecs
import gzip
import io
import json
import os
import sys
import tarfile
import types
from pathlib import Path

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from denoise.decode import clean_text, decode_html
from denoise.errors import PageError
from denoise.html import parse_html
from denoise.page import Page
from denoise.reader import Skipped, read_pages

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def html(title: str, body: str = "") -> str:
    return (
        f"<!DOCTYPE html><html><head><title>{title}</title></head>"
        f"<body><nav>Home | About</nav><p>{body or title} text of the page.</p></body></html>"
    )


def split(items) -> tuple[list[Page], list[Skipped]]:
    items = list(items)
    pages = [item for item in items if isinstance(item, Page)]
    skipped = [item for item in items if isinstance(item, Skipped)]
    assert len(pages) + len(skipped) == len(items)
    return pages, skipped


def text_of(page: Page) -> str:
    return parse_html(page.html, page.id).xpath("string(//p)")


# --- directories and tar archives ----------------------------------------------------

TREE = {
    "index.html": html("Top"),
    "a/one.html": html("One"),
    "a/_notes.html": html("Underscore file"),  # files starting with _ are pages
    "a/b/two.htm": html("Two"),
    "a/b/three.html.gz": html("Three"),
    "a/b/readme.txt": "not a page",
    "_gold/one.txt": "gold text",
    "_gold/one.html": html("Gold, not a page"),
    ".cache/x.html": html("Hidden"),
    "a/.hidden.html": html("Hidden file"),
}
EXPECTED_IDS = ["a/_notes.html", "a/b/three.html.gz", "a/b/two.htm", "a/one.html", "index.html"]


def _bytes(name: str, text: str) -> bytes:
    data = text.encode("utf-8")
    return gzip.compress(data) if name.endswith(".gz") else data


def make_tree(root: Path) -> Path:
    for name, text in TREE.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_bytes(name, text))
    return root


def test_directory_ids_sites_and_order(tmp_path):
    root = make_tree(tmp_path / "corpus")
    pages, skipped = split(read_pages([root]))
    assert skipped == []
    assert [page.id for page in pages] == EXPECTED_IDS
    by_id = {page.id: page for page in pages}
    assert by_id["index.html"].site == "corpus"
    assert by_id["a/one.html"].site == "a"
    assert by_id["a/b/two.htm"].site == "a/b"
    assert text_of(by_id["a/b/three.html.gz"]) == "Three text of the page."
    assert all(page.url is None for page in pages)


def test_directory_site_argument_wins(tmp_path):
    root = make_tree(tmp_path / "corpus")
    pages, _ = split(read_pages([str(root)], site="example.org"))
    assert {page.site for page in pages} == {"example.org"}


def test_directory_without_pages_says_so(tmp_path):
    (tmp_path / "notes.txt").write_text("no pages here")
    pages, skipped = split(read_pages([tmp_path]))
    assert pages == []
    assert len(skipped) == 1
    assert "no .html or .htm files" in skipped[0].reason


def test_two_folders_of_the_same_names_give_their_pages_distinct_ids(tmp_path):
    # two crawls of one site: named with the folder as given, as grep names files when
    # it reads several; the sites are the folders' as for one folder
    first, second = make_tree(tmp_path / "crawl-a"), make_tree(tmp_path / "crawl-b")
    index = {"index.html": _bytes("index.html", TREE["index.html"])}
    archive = make_tar(tmp_path / "crawl-c.tgz", index, "w:gz")
    pages, skipped = split(read_pages([first, str(second) + "/", archive]))
    assert skipped == []
    ids = [page.id for page in pages]
    assert len(set(ids)) == len(ids) == 2 * len(EXPECTED_IDS) + 1
    assert ids[:len(EXPECTED_IDS)] == [f"{first.as_posix()}/{i}" for i in EXPECTED_IDS]
    assert f"{second.as_posix()}/a/one.html" in ids  # a trailing slash adds none
    assert ids[-1] == f"{archive.as_posix()}/index.html"
    assert {p.site for p in pages if p.id.endswith("/index.html")} == {
        "crawl-a", "crawl-b", "crawl-c"}
    # the engine reading one of several inputs at a time names them the same way
    alone = split(read_pages([second], named=True))[0]
    assert [p.id for p in alone] == ids[len(EXPECTED_IDS):2 * len(EXPECTED_IDS)]


def make_tar(path: Path, files: dict[str, bytes], mode: str) -> Path:
    with tarfile.open(path, mode) as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize(("file_name", "mode"), [("corpus.tar.xz", "w:xz"), ("corpus.tgz", "w:gz")])
def test_tar_archive_same_rules_as_directory(tmp_path, file_name, mode):
    files = {name: _bytes(name, text) for name, text in sorted(TREE.items())}
    archive = make_tar(tmp_path / file_name, files, mode)
    pages, skipped = split(read_pages([archive]))
    assert skipped == []
    assert sorted(page.id for page in pages) == EXPECTED_IDS
    by_id = {page.id: page for page in pages}
    assert by_id["index.html"].site == "corpus"  # archive name without its suffixes
    assert by_id["a/b/two.htm"].site == "a/b"
    assert text_of(by_id["a/b/three.html.gz"]) == "Three text of the page."


def test_tar_bad_member_is_skipped_and_the_rest_read(tmp_path):
    files = {
        "site/good1.html": html("Good 1").encode(),
        "site/empty.html": b"",
        "site/good2.html": html("Good 2").encode(),
    }
    archive = make_tar(tmp_path / "pages.tar", files, "w")
    pages, skipped = split(read_pages([archive]))
    assert [page.id for page in pages] == ["site/good1.html", "site/good2.html"]
    assert [str(item) for item in skipped] == [f"{archive}:site/empty.html: empty file"]


def test_truncated_tar_ends_with_one_skipped(tmp_path):
    files = {f"site/p{i:02d}.html": html(f"Page {i}", os.urandom(2000).hex()).encode()
             for i in range(20)}
    archive = make_tar(tmp_path / "full.tar.xz", files, "w:xz")
    cut = tmp_path / "cut.tar.xz"
    data = archive.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    pages, skipped = split(read_pages([cut]))
    assert 0 < len(pages) < 20
    assert len(skipped) == 1
    assert skipped[0].source == str(cut)


# --- WARC ----------------------------------------------------------------------------

LATIN1_BODY = b"<html><body><p>Caf\xe9 cr\xe8me</p></body></html>"


def make_warc(*, gzipped: bool, extra: list[tuple[str, str | None, bytes]] = ()) -> bytes:
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=gzipped)
    writer.write_record(writer.create_warcinfo_record("test.warc", {"software": "pytest"}))

    def response(url: str, content_type: str | None, body: bytes) -> None:
        headers = [("Content-Type", content_type)] if content_type else []
        http = StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")
        writer.write_record(
            writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http)
        )

    request = StatusAndHeaders(
        "GET /one HTTP/1.1", [("Host", "www.example.com")], is_http_request=True
    )
    writer.write_record(writer.create_warc_record(
        "http://www.example.com/one", "request", payload=io.BytesIO(b""), http_headers=request
    ))
    response("http://www.example.com/one", "text/html; charset=utf-8",
             html("One", "Grüße").encode("utf-8"))
    response("http://www.example.com/logo.png", "image/png", b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    response("https://news.example.org/latin", "text/html; charset=iso-8859-1", LATIN1_BODY)
    for url, content_type, body in extra:
        response(url, content_type, body)
    return buffer.getvalue()


def test_warc_gz_html_responses_only(tmp_path):
    path = tmp_path / "crawl.warc.gz"
    path.write_bytes(make_warc(gzipped=True))
    pages, skipped = split(read_pages([path]))
    assert skipped == []
    assert [page.id for page in pages] == [
        "http://www.example.com/one", "https://news.example.org/latin",
    ]
    one, latin = pages
    assert one.url == one.id
    assert one.site == "www.example.com"
    assert text_of(one) == "Grüße text of the page."
    assert latin.site == "news.example.org"
    assert text_of(latin) == "Café crème"  # charset from the HTTP header


def test_warc_plain_and_sniffed_without_suffix(tmp_path):
    (tmp_path / "crawl.warc").write_bytes(make_warc(gzipped=False))
    (tmp_path / "crawl.bin").write_bytes(make_warc(gzipped=True))  # sniffed: gzip, then WARC/
    for name in ("crawl.warc", "crawl.bin"):
        pages, skipped = split(read_pages([tmp_path / name], site="mine"))
        assert skipped == []
        assert len(pages) == 2
        assert {page.site for page in pages} == {"mine"}


def test_warc_missing_content_type_is_read_bad_record_skipped(tmp_path):
    extra = [
        ("http://www.example.com/binary", "text/html", b"\x00\x01\x02\x03 binary \x00"),
        ("http://www.example.com/untyped", None, html("Untyped").encode()),
    ]
    path = tmp_path / "crawl.warc.gz"
    path.write_bytes(make_warc(gzipped=True, extra=extra))
    pages, skipped = split(read_pages([path]))
    assert [page.id for page in pages][-1] == "http://www.example.com/untyped"
    assert len(pages) == 3
    assert len(skipped) == 1
    assert skipped[0].source == f"{path}#record 6"
    assert "binary" in skipped[0].reason


@pytest.mark.parametrize("gzipped", [True, False])
def test_truncated_warc_keeps_earlier_records_and_ends_with_one_skipped(tmp_path, gzipped):
    extra = [("http://www.example.com/last", "text/html", html("Last", "z" * 3000).encode())]
    data = make_warc(gzipped=gzipped, extra=extra)
    path = tmp_path / ("cut.warc.gz" if gzipped else "cut.warc")
    path.write_bytes(data[:-200])
    pages, skipped = split(read_pages([path]))
    assert [page.id for page in pages] == [
        "http://www.example.com/one", "https://news.example.org/latin",
    ]
    assert len(skipped) == 1
    assert "truncated" in skipped[0].reason
    assert skipped[0].source.startswith(f"{path}#record ")


def test_empty_and_invalid_warc(tmp_path):
    (tmp_path / "empty.warc").write_bytes(b"")
    (tmp_path / "page.warc").write_bytes(html("Not a WARC").encode())
    _, skipped = split(read_pages([tmp_path / "empty.warc", tmp_path / "page.warc"]))
    assert [item.reason.split(" (")[0] for item in skipped] == [
        "empty file: no WARC records", "not a valid WARC",
    ]


# --- JSON lines ----------------------------------------------------------------------


def jsonl_lines() -> list[str]:
    return [
        json.dumps({"url": "https://www.example.com/a", "html": html("A")}),
        json.dumps({"id": "doc-b", "url": "https://www.example.com/b", "html": html("B")}),
        "",
        "{this is not json",
        json.dumps({"url": "https://www.example.com/no-html"}),
        json.dumps({"html": html("No URL", "Naïve ✓")}),
        json.dumps({"url": "https://www.example.com/text", "html": "just words, no tags"}),
        json.dumps(["a", "list"]),
    ]


@pytest.mark.parametrize("file_name", ["pages.jsonl", "pages.jsonl.gz", "pages.ndjson"])
def test_jsonl(tmp_path, file_name):
    data = "\n".join(jsonl_lines()).encode() + b"\n"
    path = tmp_path / file_name
    path.write_bytes(gzip.compress(data) if file_name.endswith(".gz") else data)
    pages, skipped = split(read_pages([path]))
    assert [page.id for page in pages] == ["https://www.example.com/a", "doc-b", f"{path}:6"]
    assert [page.url for page in pages] == [
        "https://www.example.com/a", "https://www.example.com/b", None,
    ]
    assert pages[0].site == "www.example.com"
    assert text_of(pages[2]) == "Naïve ✓ text of the page."
    assert [item.source for item in skipped] == [f"{path}:{n}" for n in (4, 5, 7, 8)]
    reasons = [item.reason for item in skipped]
    assert reasons[0].startswith("not JSON")
    assert reasons[1] == 'no "html" field'
    assert reasons[2] == "no HTML tags: not an HTML page"
    assert reasons[3] == "not a JSON object but list"
    assert all("\n" not in str(item) for item in skipped)


def test_jsonl_html_ignores_meta_charset(tmp_path):
    # The JSON text is already decoded: a <meta charset> in it must not re-decode it.
    page = '<html><head><meta charset="iso-8859-1"></head><body><p>café</p></body></html>'
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"url": "http://x.org/", "html": page}) + "\n", encoding="utf-8")
    pages, _ = split(read_pages([path]))
    assert text_of(pages[0]) == "café"


# --- standard input --------------------------------------------------------------------


class _Pipe:
    """A stream that cannot seek, like a real pipe."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def read(self, size: int | None = -1) -> bytes:
        return self._data.read(size)

    def readline(self, size: int | None = -1) -> bytes:
        return self._data.readline(size)

    def seekable(self) -> bool:
        return False


def set_stdin(monkeypatch, data: bytes, *, pipe: bool = False) -> None:
    buffer = _Pipe(data) if pipe else io.BytesIO(data)
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=buffer))


@pytest.mark.parametrize("pipe", [False, True])
def test_stdin_html(monkeypatch, pipe):
    set_stdin(monkeypatch, html("From stdin").encode(), pipe=pipe)
    pages, skipped = split(read_pages(["-"]))
    assert skipped == []
    assert [(page.id, page.site, page.url) for page in pages] == [("-", "stdin", None)]
    assert text_of(pages[0]) == "From stdin text of the page."


@pytest.mark.parametrize("pipe", [False, True])
def test_stdin_gzipped_html_with_site(monkeypatch, pipe):
    set_stdin(monkeypatch, gzip.compress(html("Zipped").encode()), pipe=pipe)
    pages, _ = split(read_pages(["-"], site="given"))
    assert [(page.id, page.site) for page in pages] == [("-", "given")]
    assert text_of(pages[0]) == "Zipped text of the page."


@pytest.mark.parametrize("pipe", [False, True])
def test_stdin_jsonl(monkeypatch, pipe):
    set_stdin(monkeypatch, "\n".join(jsonl_lines()).encode(), pipe=pipe)
    pages, skipped = split(read_pages(["-"]))
    assert [page.id for page in pages] == ["https://www.example.com/a", "doc-b", "-:6"]
    assert [item.source for item in skipped] == ["-:4", "-:5", "-:7", "-:8"]


@pytest.mark.parametrize(("gzipped", "pipe"), [(True, False), (True, True), (False, True)])
def test_stdin_warc(monkeypatch, gzipped, pipe):
    set_stdin(monkeypatch, make_warc(gzipped=gzipped), pipe=pipe)
    pages, skipped = split(read_pages(["-"]))
    assert skipped == []
    assert [page.site for page in pages] == ["www.example.com", "news.example.org"]
    assert text_of(pages[1]) == "Café crème"


def test_stdin_empty(monkeypatch):
    set_stdin(monkeypatch, b"")
    _, skipped = split(read_pages(["-"]))
    assert [str(item) for item in skipped] == ["-: empty file"]


# --- bad inputs: one Skipped each, the good around them still read -----------------------

MAX = 4000


def make_bad_inputs(root: Path) -> dict[str, str]:
    """Write bad files among good ones; the reason (a fragment) each bad one must give."""
    root.mkdir()
    (root / "a_good.html").write_text(html("Good A"))
    (root / "empty.html").write_bytes(b"")
    (root / "binary.html").write_bytes(bytes(range(256)) * 8)
    (root / "huge.html").write_text(html("Huge", "x" * MAX))
    (root / "plain.html").write_text("Just a sentence, no markup at all.\n")
    (root / "bomb.html.gz").write_bytes(gzip.compress(html("Bomb", "y" * 50 * MAX).encode()))
    whole = gzip.compress(html("Cut", os.urandom(1000).hex()).encode())
    (root / "truncated.html.gz").write_bytes(whole[: len(whole) // 2])
    (root / "z_good.htm").write_text(html("Good Z"))
    reasons = {
        "empty.html": "empty file",
        "binary.html": "binary data",
        "huge.html": "too large",
        "plain.html": "no HTML tags",
        "bomb.html.gz": "too large",
        "truncated.html.gz": "truncated",
    }
    if not IS_ROOT:  # root reads a chmod 000 file anyway
        locked = root / "locked.html"
        locked.write_text(html("Locked"))
        locked.chmod(0)
        reasons["locked.html"] = "permission denied"
    return reasons


@pytest.fixture
def bad_inputs(tmp_path):
    root = tmp_path / "mixed"
    reasons = make_bad_inputs(root)
    yield root, reasons
    for path in root.iterdir():
        path.chmod(0o644)


def test_bad_files_in_a_directory(bad_inputs):
    root, reasons = bad_inputs
    pages, skipped = split(read_pages([root], max_bytes=MAX))
    assert [page.id for page in pages] == ["a_good.html", "z_good.htm"]
    assert sorted(item.source for item in skipped) == sorted(str(root / name) for name in reasons)
    for item in skipped:
        assert reasons[Path(item.source).name] in item.reason, item
        assert str(item) == f"{item.source}: {item.reason}"


def test_bad_files_given_one_by_one_and_a_missing_path(bad_inputs):
    root, reasons = bad_inputs
    missing = root / "missing.html"
    inputs = [root / "a_good.html", *(root / name for name in sorted(reasons)), missing,
              root / "z_good.htm"]
    pages, skipped = split(read_pages(inputs, max_bytes=MAX))
    assert [page.id for page in pages] == [str(root / "a_good.html"), str(root / "z_good.htm")]
    assert [page.site for page in pages] == ["mixed", "mixed"]
    assert [item.source for item in skipped] == [str(path) for path in inputs[1:-1]]
    assert skipped[-1].reason == "no such file or directory"
    for item in skipped[:-1]:
        assert reasons[Path(item.source).name] in item.reason, item
    # a URL of another scheme is no missing file
    assert [s.reason for s in read_pages(["ftp://example.com/a.html"])] == [
        "a URL not fetched (only http and https ones are)"]


@pytest.mark.skipif(IS_ROOT, reason="root can read a chmod 000 file")
def test_unreadable_folder_is_one_skipped(tmp_path):
    root = make_tree(tmp_path / "corpus")
    (root / "a").chmod(0)
    try:
        pages, skipped = split(read_pages([root]))
    finally:
        (root / "a").chmod(0o755)
    assert [page.id for page in pages] == ["index.html"]
    assert [(item.source, item.reason) for item in skipped] == [
        (str(root / "a"), "cannot read: permission denied"),
    ]


def test_too_large_message_names_the_limit(tmp_path):
    path = tmp_path / "big.html"
    path.write_text(html("Big", "x" * 5000))
    _, skipped = split(read_pages([path], max_bytes=1000))
    assert skipped[0].reason.startswith(f"too large: {path.stat().st_size:,} bytes (limit 1,000")


# --- the API -------------------------------------------------------------------------------


def test_read_pages_is_lazy_and_takes_one_path(tmp_path):
    root = make_tree(tmp_path / "corpus")
    first = tmp_path / "first.html"
    first.write_text(html("First"))
    stream = read_pages([first, root])
    assert iter(stream) is stream
    assert next(stream).id == str(first)
    assert [page.id for page in read_pages(str(first))] == [str(first)]


def test_max_bytes_must_be_positive():
    with pytest.raises(ValueError, match="max_bytes"):
        read_pages(["-"], max_bytes=0)


def test_skipped_is_one_line():
    assert str(Skipped("a.warc#record 3", "bad\nrecord\r\n  here")) == (
        "a.warc#record 3: bad record here"
    )


# --- decode_html -------------------------------------------------------------------------


def test_decode_utf8_bom():
    data = codecs.BOM_UTF8 + "<p>Grüße</p>".encode()
    assert decode_html(data, "x") == "<p>Grüße</p>"


def test_decode_utf16_bom():
    data = codecs.BOM_UTF16_LE + "<p>Grüße</p>".encode("utf-16-le")
    assert decode_html(data, "x") == "<p>Grüße</p>"


def test_decode_meta_charset_windows_1252():
    data = b'<html><head><meta charset="windows-1252"></head><p>\x93Caf\xe9\x94 \x80 5</p></html>'
    assert "<p>“Café” € 5</p>" in decode_html(data, "x")


def test_decode_http_header_charset_beats_meta():
    data = b'<html><head><meta charset="utf-8"></head><p>Caf\xe9</p></html>'
    assert "<p>Café</p>" in decode_html(data, "x", header_charset="iso-8859-1")


def test_decode_wrong_declared_charset_that_cannot_decode_falls_back_to_utf8():
    # 0x81 is undefined in windows-1252, so the wrong label fails and UTF-8 wins.
    data = '<meta charset="iso-8859-1"><p>Árvíztűrő</p>'.encode()
    assert "<p>Árvíztűrő</p>" in decode_html(data, "x")


def test_decode_utf8_declared_latin1_stays_readable():
    data = '<meta charset="iso-8859-1"><p>Café naïve</p>'.encode()
    assert "<p>Café naïve</p>" in decode_html(data, "x")


def test_decode_real_latin1_still_follows_its_declaration():
    data = '<meta charset="iso-8859-1"><p>Café naïve</p>'.encode("latin-1")
    assert "<p>Café naïve</p>" in decode_html(data, "x")


def test_decode_utf16_label_on_ascii_page_reads_it_as_utf8():
    data = b'<html><head><meta charset="utf-16"></head><body><p>plain</p></body></html>'
    assert "<p>plain</p>" in decode_html(data, "x")


def test_decode_xml_declaration_kept_and_parsable():
    data = b'<?xml version="1.0" encoding="iso-8859-1"?>\n<html><body><p>Caf\xe9</p></body></html>'
    text = decode_html(data, "x")
    assert text.startswith("<?xml")
    assert parse_html(text, "x").xpath("string(//p)") == "Café"


def test_decode_strips_wayback_toolbar_and_control_characters():
    data = (
        b"<html><body><!-- BEGIN WAYBACK TOOLBAR INSERT --><div id='wm'>Wayback Machine"
        b"</div><!-- END WAYBACK TOOLBAR INSERT --><p>Real\x0b text\x07</p></body></html>"
    )
    text = decode_html(data, "x")
    assert "Wayback" not in text
    assert "<p>Real text</p>" in text


@pytest.mark.parametrize("codec", ["utf-8", "utf-16", "cp1252", "latin-1", "cp500"])
def test_control_characters_go_in_every_codec(codec):
    # the quick look at the bytes first is for codecs whose bytes show the controls
    # (EBCDIC's cp500 writes the bell, \x07, as "/")
    for control in "\x01\x07\x0b\x1f\x7f":
        page = f"<html><body><p>Caf\u00e9{control} cr\u00e8me</p></body></html>"
        text = decode_html(page.encode(codec), "x", header_charset=codec)
        assert "<p>Caf\u00e9 cr\u00e8me</p>" in text, (codec, control)


@pytest.mark.parametrize("page", [
    "<p>plain</p>", "\ufeff<p>after a byte-order mark</p>", "<p>a\x00b\x1fc\x7f</p>",
    "<p>lone \ud800 surrogate</p>", "<p>é\r\n\t\x0c</p>\u2028",
    "<!-- BEGIN WAYBACK TOOLBAR INSERT -->x<!-- END WAYBACK TOOLBAR INSERT --><b>y</b>",
    " \n\t", "", "no tags at all", "\x00" * 10 + "<p>binary</p>", "<p>" + "x" * 300 + "</p>",
])
def test_clean_text_is_decode_html_of_its_utf8(page):
    """JSON lines' text skips decoding, with decode_html's result or error."""
    def outcome(read):
        try:
            return read()
        except PageError as error:
            return error.reason
    assert outcome(lambda: clean_text(page, "x", max_bytes=200)) == outcome(
        lambda: decode_html(page.encode("utf-8", errors="replace"), "x",
                            header_charset="utf-8", max_bytes=200))


def test_wayback_toolbar_stripped_through_read_pages(tmp_path):
    page = html("Archived").replace(
        "<body>",
        "<body><!-- BEGIN WAYBACK TOOLBAR INSERT --><div>Wayback Machine toolbar</div>"
        "<!-- END WAYBACK TOOLBAR INSERT -->",
    )
    path = tmp_path / "archived.html"
    path.write_text(page)
    pages, _ = split(read_pages([path]))
    assert "Wayback" not in pages[0].html


def test_a_gold_xpath_may_look_an_element_up_by_its_id():
    from denoise.evaluate import xpath_main_text

    page = '<html><body><div id="nav">Menu</div><div id="main"><p>Story</p></div></body></html>'
    assert xpath_main_text(page, 'id("main")') == "Story"
    assert xpath_main_text(page, '//div[@id="nav"]') == "Menu"
