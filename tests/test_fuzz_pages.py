"""Robustness: real pages, damaged the ways crawled pages are damaged, through the public
library and the batch path.

Seed pages are the shop examples, plus the first pages of a few shared corpora when they
are present. Hypothesis damages them (truncation, random bytes, thousands of unclosed
elements before the content, huge attributes, mixed and mislabelled encodings, byte-order
marks in the middle, NULs and control characters, unclosed comments and scripts, floods of
``<``) and every damaged page must come out of:

- the library (``decode_html``, ``main_text``, ``TemplateDetector.score`` with its text
  and clean HTML, ``KeywordExtractor.extract``, ``mining.page_texts`` in every
  page-by-page mode, then shingles and MinHash sketches) with a result or a
  :class:`~denoise.errors.PageError`, and nothing else, within a deadline;
- the batch path (``run_batch`` over the reader, with the jobs of ``denoise apply`` in
  each format, ``kwx extract --json`` and ``mining dedup``) as exactly one well-formed
  JSON line per page, or one counted skip whose reason is not an internal error;
- and, once, the command lines themselves on one page of every kind of damage.

``WEBDENOISE_FUZZ_EXAMPLES=10000`` explores far more (random, not the fixed sequence of
the default run, and floods and attributes ten times larger); ``WEBDENOISE_FUZZ_DEADLINE``
sets the seconds one example may take (30); ``WEBDENOISE_FUZZ_LOG=DIR`` logs failures to
``DIR/failures.jsonl`` with the damaged pages beside it and goes on, instead of stopping
at the first, e.g. (niced: the machine is shared)::

    WEBDENOISE_FUZZ_EXAMPLES=10000 WEBDENOISE_FUZZ_LOG=/tmp/fuzz \
        nice -n 10 pytest tests/test_fuzz_pages.py -k "page_error or batch_gives"

What is checked is that nothing breaks, not that the text survives: a page nested deeper
than libxml2's limit (255 elements) loses everything below it and is written empty.
"""

from __future__ import annotations

import faulthandler
import gzip
import json
import math
import os
import re
import signal
import tarfile
import time
import traceback
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, note, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from commands.denoise_page import ApplyJob, Format
from commands.kwx import ExtractJob
from corpora.locate import CorpusMissingError, corpus_path
from denoise import PageError, TemplateDetector, decode_html, main_text, read_pages
from denoise.cleaning import Cleaner
from denoise.main_content import default_extractor
from denoise.page import Page
from denoise.reader import Skipped
from denoise.render import clean_html
from engine.batch import map_pages, run_batch
from kwx import KeywordExtractor
from mining import PAGE_RECALL, DedupConfig, Mode, NearDuplicateIndex, page_texts
from mining.content import PageWords
from mining.shingles import shingle_hashes, shingles_of_words

SHOP = Path(__file__).resolve().parent.parent / "examples" / "shop"
#: Corpora that lend their first pages as seeds (archive, pages), when present.
CORPUS_SEEDS = (("sites-dev-news.tar.xz", 2), ("sites-dev-docs.tar.xz", 2),
                ("content-dev.tar.xz", 2), ("content-dev-wcxb.tar.xz", 2))
_GIVEN = os.environ.get("WEBDENOISE_FUZZ_EXAMPLES")
EXAMPLES = int(_GIVEN) if _GIVEN else 50
DEADLINE = float(os.environ.get("WEBDENOISE_FUZZ_DEADLINE", "30"))
#: A folder: failures are written there (a line each in failures.jsonl, the first pages
#: of each kind saved) and the run goes on, to find more than the first. Unset: they fail.
LOG = os.environ.get("WEBDENOISE_FUZZ_LOG")
#: The default run keeps floods and attributes to a tenth of their size (it must be quick);
#: a run with more examples goes up to 200,000 characters of ``<`` and 2 MB attributes.
SCALE = 1 if _GIVEN else 10
#: The default run is the same sequence every time (a CI run must not find a new bug by
#: chance); a run with more examples explores.
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=_GIVEN is None,
                database=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.large_base_example])
#: Skip reasons that are bugs, not verdicts on a page.
BUG_REASONS = ("internal error", "worker died")


# --- seed pages --------------------------------------------------------------------------


@cache
def seed_pages() -> dict[str, bytes]:
    """Name -> raw bytes of every seed page (gzipped members unpacked)."""
    seeds = {f"shop/{path.name}": path.read_bytes() for path in sorted(SHOP.glob("*.html"))}
    for archive, count in CORPUS_SEEDS:
        try:
            path = corpus_path(archive)
        except CorpusMissingError:
            continue
        seeds.update(_first_pages(path, count))
    return seeds


def _first_pages(archive: Path, count: int) -> Iterator[tuple[str, bytes]]:
    """The first ``count`` HTML members of ``archive``, read as a stream (quick)."""
    with tarfile.open(archive, "r|*") as tar:
        for member in tar:
            name = member.name
            if not member.isfile() or not name.endswith((".html", ".htm", ".html.gz")) \
                    or "/_" in name:
                continue
            stream = tar.extractfile(member)
            data = stream.read() if stream is not None else b""
            if data.startswith(b"\x1f\x8b"):
                data = gzip.decompress(data)
            yield f"{archive.name}:{name}", data
            count -= 1
            if count == 0:
                return


# --- damage ------------------------------------------------------------------------------

_BODY = re.compile(rb"<body[^>]*>", re.I)
_HEAD = re.compile(rb"<head[^>]*>", re.I)
#: Charset labels a page may declare wrongly: real ones that misread UTF-8 or Latin-1,
#: wide ones, and Python codec names that are no web encoding at all.
CHARSETS = ("utf-16", "utf-16be", "utf-32", "shift_jis", "iso-2022-jp", "koi8-r", "cp037",
            "big5", "x-user-defined", "bogus-charset", "utf-7", "latin1", "ascii",
            "undefined", "idna", "raw_unicode_escape", "unicode_escape", "rot13", "hex",
            "base64", "zlib", "punycode")
BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
#: Control characters, C1 controls, non-characters, invalid UTF-8, odd character references.
CONTROLS = [bytes([c]) for c in (*range(1, 9), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F)] + [
    bytes([c]) for c in range(0x80, 0xA0)] + [
    b"\xef\xbf\xbe", b"\xef\xbf\xbf", b"\xe2\x80\xa8", b"\xed\xa0\x80", b"\xc0\xaf",
    b"\xf4\x90\x80\x80", b"&#0;", b"&#xD800;", b"&#1114112;", b"&#x0b;", b"\\ud800"]
#: Elements left open, so that the rest of the page is inside them.
UNCLOSED = (b"<!--", b"<!-- -- >", b"<script>", b"<script type='text/javascript'>var s='",
            b"<style>", b"<textarea>", b"<title>", b"<xmp>", b"<plaintext>", b"<![CDATA[",
            b"<noscript>", b"<template>", b"<iframe>", b"<svg><script>", b"<math><mi>",
            b"<!DOCTYPE", b"<?xml ", b"<a href=\"", b"<table><tr><td>")


def _where(draw: st.DrawFn, data: bytes) -> int:
    return draw(st.integers(0, len(data)))


def _at(data: bytes, where: int, insert: bytes) -> bytes:
    return data[:where] + insert + data[where:]


def _before_content(draw: st.DrawFn, data: bytes) -> int:
    """Just inside ``<body>`` when there is one, else anywhere."""
    body = _BODY.search(data)
    return body.end() if body and draw(st.booleans()) else _where(draw, data)


def truncate(draw: st.DrawFn, data: bytes) -> tuple[bytes, str]:
    cut = _where(draw, data)
    return data[:cut], f"truncated at byte {cut}"


def insert_bytes(draw: st.DrawFn, data: bytes) -> tuple[bytes, str]:
    where, extra = _where(draw, data), draw(st.binary(min_size=1, max_size=64))
    return _at(data, where, extra), f"inserted {extra!r} at {where}"


def overwrite_bytes(draw: st.DrawFn, data: bytes) -> tuple[bytes, str]:
    where, extra = _where(draw, data), draw(st.binary(min_size=1, max_size=64))
    return data[:where] + extra + data[where + len(extra):], f"overwrote {extra!r} at {where}"


def deep_nesting(draw: st.DrawFn, data: bytes) -> tuple[bytes, str]:
    tag = draw(st.sampled_from([b"<div>", b"<font>", b"<span>", b"<b><i>", b"<table><tr><td>",
                                b"<ul><li>", b"<blockquote>", b"<div><p>"]))
    depth = draw(st.integers(300, 5000))
    where = _before_content(draw, data)
    return _at(data, where, tag * depth), f"{depth} x {tag!r} unclosed at {where}"


def huge_attribute(draw: st.DrawFn, data: bytes) -> tuple[bytes, str]:
    size = draw(st.integers(10_000, 2_000_000 // SCALE))
    fill = draw(st.sampled_from([b"a", b"x ", b"&amp;", b"\xc3\xa9", b"<", b"\""]))
    closed = draw(st.booleans())
    tag = b'<div class="' + fill * (size // len(fill)) + (b'">text</div>' if closed else b"")
    where = _before_content(draw, data)
    return _at(data, where, tag), f"attribute of {size:,} bytes of {fill!r} " + (
        "closed" if closed else "never closed") + f" at {where}"


def latin1_part(draw: st.DrawFn, data: bytes) -> tuple[bytes, str]:
    where = _where(draw, data)
    part = draw(st.sampled_from(["Grüße aus Köln", "café naïve résumé", "£ 5 ½ ©", "Ñandú"]))
    data = _at(data, where, part.encode("cp1252"))
    other = _where(draw, data)  # and some UTF-8 elsewhere, so the page is truly mixed
    return _at(data, other, "über ✓ — ok".encode()), f"latin-1 {part!r} at {where}"


def wrong_charset(draw: st.DrawFn, data: bytes) -> tuple[bytes, str]:
    label = draw(st.sampled_from(CHARSETS))
    form = draw(st.sampled_from([b'<meta charset="%s">', b"<meta http-equiv='Content-Type' "
                                 b"content='text/html; charset=%s'>", b"<meta charset=%s/>"]))
    head = _HEAD.search(data)
    where = head.end() if head else 0
    return _at(data, where, form % label.encode()), f"declared charset {label} at {where}"


def bom_inside(draw: st.DrawFn, data: bytes) -> tuple[bytes, str]:
    bom = draw(st.sampled_from(BOMS))
    where = draw(st.sampled_from([0, _where(draw, data)]))
    return _at(data, where, bom), f"byte-order mark {bom!r} at {where}"


def nuls(draw: st.DrawFn, data: bytes) -> tuple[bytes, str]:
    places = sorted(draw(st.lists(st.integers(0, len(data)), min_size=1, max_size=8)),
                    reverse=True)
    for where in places:
        data = _at(data, where, b"\x00")
    return data, f"NULs at {places}"


def controls(draw: st.DrawFn, data: bytes) -> tuple[bytes, str]:
    found = draw(st.lists(st.tuples(st.integers(0, len(data)), st.sampled_from(CONTROLS)),
                          min_size=1, max_size=12))
    for where, char in sorted(found, reverse=True):
        data = _at(data, where, char)
    return data, f"control characters {found}"


def unclosed(draw: st.DrawFn, data: bytes) -> tuple[bytes, str]:
    opener = draw(st.sampled_from(UNCLOSED))
    where = _before_content(draw, data)
    return _at(data, where, opener), f"unclosed {opener!r} at {where}"


def lt_flood(draw: st.DrawFn, data: bytes) -> tuple[bytes, str]:
    unit = draw(st.sampled_from([b"<", b"</", b"<<a", b"< ", b"<!", b"<a<", b"<=<"]))
    count = draw(st.integers(1_000, 200_000 // SCALE))
    where = _where(draw, data)
    return _at(data, where, unit * count), f"{count:,} x {unit!r} at {where}"


Mutation = Callable[[st.DrawFn, bytes], tuple[bytes, str]]
MUTATIONS: tuple[Mutation, ...] = (truncate, insert_bytes, overwrite_bytes, deep_nesting,
                                   huge_attribute, latin1_part, wrong_charset, bom_inside,
                                   nuls, controls, unclosed, lt_flood)


class Damaged:
    """A damaged page: its seed, its bytes, what was done (a short repr, without the
    page's bytes: not a dataclass, whose fields Hypothesis would print)."""

    __slots__ = ("data", "done", "seed")

    def __init__(self, seed: str, data: bytes, done: tuple[str, ...]) -> None:
        self.seed, self.data, self.done = seed, data, done

    def __repr__(self) -> str:
        return f"Damaged({self.seed!r}, {len(self.data):,} bytes: {'; '.join(self.done)})"


@st.composite
def damaged_pages(draw: st.DrawFn) -> Damaged:
    """A seed page with one to three kinds of damage."""
    seeds = seed_pages()
    name = draw(st.sampled_from(sorted(seeds)))
    data = seeds[name]
    done = []
    for mutation in draw(st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=3)):
        data, what = mutation(draw, data)
        done.append(what)
    return Damaged(name, data, tuple(done))


# --- deadline ------------------------------------------------------------------------------


class Overtime(BaseException):  # not an Exception: no `except Exception` eats it
    """An example ran past its deadline."""


@contextmanager
def deadline(seconds: float, what: str) -> Iterator[None]:
    """Fail ``what`` when it takes more than ``seconds``: an alarm interrupts Python code,
    and a watchdog dumps every thread's stack and ends the run at three times that (a hang
    inside a C library, which no alarm interrupts)."""
    def overtime(signum: int, frame: Any) -> None:
        raise Overtime

    previous = signal.signal(signal.SIGALRM, overtime)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    faulthandler.dump_traceback_later(3 * seconds, exit=True)
    started = time.perf_counter()
    try:
        yield
    except Overtime as error:
        pytest.fail(f"{what}: no result after {seconds:.0f} s (a hang?), busy in "
                    f"{_innermost(error)}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGALRM, previous)
    note(f"{what}: {time.perf_counter() - started:.2f} s")


# --- exploring: failures logged, the run goes on ----------------------------------------


def _innermost(error: BaseException) -> str:
    """Where ``error`` came from in the toolkit's code (file:line function)."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if "/tests/" not in frame.filename and "site-packages" not in frame.filename]
    frame = frames[-1] if frames else traceback.extract_tb(error.__traceback__)[-1]
    return f"{Path(frame.filename).name}:{frame.lineno} {frame.name}"


@contextmanager
def exploring(test: str, pages: list[Damaged]) -> Iterator[None]:
    """Without :data:`LOG`, nothing; with it, a failure is logged instead of raised (the
    pages of the first three of each kind saved), and the example being run is kept in
    ``current.txt``, for a hang that the watchdog ends."""
    if not LOG:
        yield
        return
    folder = Path(LOG)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "current.txt").write_text(f"{test}: {pages!r}\n", encoding="utf-8")
    try:
        yield
    except (Exception, pytest.fail.Exception) as error:
        message = str(error).strip().splitlines()[0][:300] if str(error).strip() else ""
        cause = error.__context__ if isinstance(error, pytest.fail.Exception) else None
        kind = (f"hang in {_innermost(cause)}" if isinstance(cause, Overtime)
                else f"{type(error).__name__} at {_innermost(error)}")
        log = folder / "failures.jsonl"
        seen = log.read_text(encoding="utf-8").count(json.dumps(kind)) if log.exists() else 0
        files = []
        if seen < 3:
            for number, damaged in enumerate(pages):
                path = folder / f"{test}-{zlib.crc32(kind.encode()):08x}-{seen}-{number}.html"
                path.write_bytes(damaged.data)
                files.append(path.name)
        with log.open("a", encoding="utf-8") as stream:
            stream.write(json.dumps({"test": test, "kind": kind, "message": message,
                                     "pages": [repr(d) for d in pages],
                                     "files": files}) + "\n")


# --- the library ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def models() -> dict[str, Any]:
    """Every shipped model, loaded once for the module."""
    detector = TemplateDetector.load()
    return {"detector": detector, "page": detector.at_recall(PAGE_RECALL),
            "main": default_extractor(), "kwx": KeywordExtractor.load(),
            "index": NearDuplicateIndex(DedupConfig())}


def _refused_or(run: Callable[[], Any]) -> Any:
    """What ``run`` returns, or None when it refuses the page with a PageError."""
    try:
        return run()
    except PageError as error:
        assert error.reason and "\n" not in error.reason, repr(error.reason)
        return None


def _text_ok(text: object, what: str) -> None:
    assert isinstance(text, str), f"{what}: {type(text).__name__}, not text"
    text.encode("utf-8")  # no lone surrogates: every output is written as UTF-8


def check_library(name: str, data: bytes, models: dict[str, Any]) -> None:
    """Every public per-page function on one damaged page: a result or a PageError."""
    html = _refused_or(lambda: decode_html(data, name))
    if html is None:
        return
    _text_ok(html, "decode_html")
    page = Page(id=name, html=html, site="fuzz")
    text = _refused_or(lambda: main_text(html))
    if text is not None:
        _text_ok(text, "main_text")
    scores = _refused_or(lambda: models["detector"].score(page))
    if scores is not None:
        _text_ok(scores.content_text(), "PageScores.content_text")
        _text_ok(clean_html(scores), "clean_html")
        assert np.isfinite(scores.scores).all() and np.isfinite(scores.raw).all()
    keywords = _refused_or(lambda: models["kwx"].extract(page, 10))
    for keyword in keywords or ():
        _text_ok(keyword.phrase, "keyword")
        assert keyword.phrase.strip() and keyword.count >= 1
        assert 0.0 <= keyword.score <= 1.0 and math.isfinite(keyword.score)
    for mode in (Mode.none, Mode.page, Mode.main):
        texts = _refused_or(lambda mode=mode: list(page_texts(
            [page], mode, detector=models["page"], extractor=models["main"])))
        if not texts:
            continue
        (_, text), = texts
        _text_ok(text, f"page_texts {mode}")
        shingles = shingle_hashes(text)
        assert shingles.dtype == np.uint64
        if shingles.size:
            sketch = models["index"].sketch([shingles])
            assert sketch.shape[0] == 1


def _shop(name: str, insert: bytes, what: str, *, head: bool = False) -> Damaged:
    """A shop page with ``insert`` just inside ``<body>`` (or ``<head>``)."""
    data = (SHOP / name).read_bytes()
    found = (_HEAD if head else _BODY).search(data)
    where = found.end() if found else 0
    return Damaged(f"shop/{name}", _at(data, where, insert), (f"{what} at {where}",))


#: Damage the 10,000-example run found to break a command (fixed since), kept as examples
#: every run tries: a charset Python has but no page is written in (decode_html raised
#: UnicodeError); characters lxml refuses to set back into a tree (``denoise apply --format
#: html`` skipped the page as an internal error); a 200,000-character run of ``<`` (spaCy
#: took minutes splitting it, one prefix at a time).
FOUND = (
    _shop("clay-planter.html", b'<meta charset="undefined"><p>caf\xe9</p>',
          "charset undefined, a latin-1 byte", head=True),
    _shop("steel-scissors.html", b"\x0c", "a form feed"),
    _shop("steel-scissors.html", b"&#x0b;", "a reference to U+000B"),
    _shop("oak-shelf.html", b"<" * 200_000, "200,000 x '<'"),
)


@pytest.mark.corpus
@FUZZ
@given(damaged=damaged_pages())
@example(damaged=FOUND[0])
@example(damaged=FOUND[1])
@example(damaged=FOUND[2])
@example(damaged=FOUND[3])
def test_damaged_pages_give_a_result_or_a_page_error(damaged, models):
    with exploring("library", [damaged]), deadline(DEADLINE, damaged.seed):
        check_library(damaged.seed, damaged.data, models)


# --- the batch path ------------------------------------------------------------------------


def _jobs(models: dict[str, Any]) -> dict[str, Any]:
    """The per-page jobs of the batch commands, given the loaded models."""
    main = models["main"]
    articles = (Format.main, Format.json, Format.markdown, Format.xml)  # main-content mode
    apply = {f"apply --format {f}": ApplyJob(
        model=None, recall=None, precision=None, output=f, single=False,
        detector=main.detector if f in articles else models["detector"],
        extractor=main if f in articles else None) for f in Format}
    kwx = ExtractJob(model=None, df=None, querylog=None, denoise=True, detector=None,
                     recall=None, top=10, lines=False, extractor=models["kwx"])
    return {**apply, "kwx extract --json": kwx}


def _json_lines(text: str) -> list[str]:
    """JSON lines split at line feeds only: a JSON string may hold U+2028 or U+001E, at
    which ``str.splitlines`` would also split."""
    assert not text or text.endswith("\n"), f"output does not end with a line feed: {text[-80:]!r}"
    return text.split("\n")[:-1] if text else []


def _lines_ok(command: str, lines: list[str], readable: list[str], written: int) -> None:
    """One JSON line per written page, in input order (``--format blocks``: a line per
    block, each naming a readable page, in page order)."""
    records = []
    for line in lines:
        _text_ok(line, command)
        record = json.loads(line)
        assert isinstance(record, dict) and isinstance(record.get("page"), str), line[:200]
        records.append(record)
    order = [readable.index(record["page"]) for record in records]  # ValueError: unknown
    if command.endswith("blocks"):
        assert order == sorted(order), f"{command}: blocks out of page order"
        for record in records:
            assert {"path", "text", "score", "template"} <= set(record), sorted(record)
        return
    assert len(records) == written, f"{command}: {len(records)} lines for {written} pages"
    assert order == sorted(set(order)), f"{command}: pages repeated or out of order"
    key = {"apply --format html": "html", "apply --format markdown": "markdown",
           "apply --format xml": "xml", "kwx extract --json": "keywords"}.get(command, "text")
    for record in records:
        assert key in record, f"{command}: no {key!r} in {sorted(record)}"


def check_batch(pages: list[bytes], folder: Path, models: dict[str, Any]) -> None:
    """The batch commands' jobs over a folder of damaged pages, read by the reader."""
    folder.mkdir()
    for number, data in enumerate(pages):
        (folder / f"p{number}.html").write_bytes(data)
    readable = [item.id for item in read_pages([folder]) if isinstance(item, Page)]
    out = folder.parent / f"{folder.name}.jsonl"
    for command, job in _jobs(models).items():
        bugs: list[str] = []

        def skipped(item: object, why: PageError | Skipped, bugs: list[str] = bugs) -> None:
            if why.reason.startswith(BUG_REASONS):
                bugs.append(f"{why.source}: {why.reason}")

        with out.open("w", encoding="utf-8", newline="") as stream:
            summary = run_batch(read_pages([folder]), job, stream, jobs=1, on_skip=skipped)
        assert summary.read == len(pages), f"{command}: {summary.line()}"
        assert not bugs, f"{command}: {'; '.join(bugs)}"
        lines = _json_lines(out.read_text(encoding="utf-8"))
        _lines_ok(command, lines, readable, summary.written)
    shingle = DedupConfig().shingle
    for mode in (Mode.none, Mode.page, Mode.main):
        job = PageWords(mode, Cleaner(mode, detector=models["page"], extractor=models["main"]))
        results = list(map_pages(read_pages([folder]), job, 1))
        assert len(results) == len(pages)
        sets = []
        for item, result in results:
            if isinstance(result, PageError | Skipped):
                assert not result.reason.startswith(BUG_REASONS), f"dedup {mode}: {result}"
                continue
            assert isinstance(item, Page) and result.dtype == np.uint64, (item, result)
            if result.size:
                sets.append(shingles_of_words(result, shingle))
        if sets:
            assert models["index"].sketch(sets).shape[0] == len(sets)


@pytest.mark.corpus
@FUZZ
@given(batch=st.lists(damaged_pages(), min_size=1, max_size=3))
@example(batch=list(FOUND))
def test_batch_gives_one_json_line_per_page_or_a_counted_skip(batch, models, tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz") / "pages"
    with exploring("batch", batch), deadline(DEADLINE * len(batch), f"batch of {len(batch)}"):
        check_batch([damaged.data for damaged in batch], folder, models)


# --- the command lines, once -----------------------------------------------------------------


def every_kind_of_damage() -> dict[str, bytes]:
    """One page per kind of damage, made deterministically from a shop page."""
    seed = (SHOP / "oak-shelf.html").read_bytes()
    middle = len(seed) // 2
    body = _BODY.search(seed)
    inside = body.end() if body else 0
    head = _HEAD.search(seed)
    return {
        "truncated.html": seed[:middle],
        "random-bytes.html": _at(seed, middle, bytes(range(256))),
        "nested-divs.html": _at(seed, inside, b"<div>" * 3000),
        "nested-fonts.html": _at(seed, inside, b"<font>" * 5000),
        "huge-attribute.html": _at(seed, inside, b'<div title="' + b"a" * 1_000_000 + b'">'),
        "latin1-in-utf8.html": _at(_at(seed, middle, "café".encode("cp1252")), inside,
                                   "über".encode()),
        "wrong-charset.html": _at(seed, head.end() if head else 0,
                                  b'<meta charset="utf-16">'),
        "bom-inside.html": _at(seed, middle, b"\xef\xbb\xbf"),
        "nuls.html": _at(seed, len(seed) - 10, b"\x00" * 3),
        "controls.html": _at(seed, middle, bytes(range(1, 32))),
        "unclosed-comment.html": _at(seed, inside, b"<!--"),
        "unclosed-script.html": _at(seed, inside, b"<script>"),
        "lt-flood.html": _at(seed, middle, b"<" * 100_000),
    }


CLI_RUNS = (
    ("denoise", ["apply", "{dir}", "--jobs", "1", "--format", "text"]),
    ("denoise", ["apply", "{dir}", "--jobs", "1", "--format", "main"]),
    ("denoise", ["apply", "{dir}", "--jobs", "1", "--format", "html"]),
    ("kwx", ["extract", "{dir}", "--json", "--jobs", "1"]),
)
_SUMMARY = re.compile(r"(\d+) pages read.*?, (\d+) \w+, (\d+) skipped")


def _app(name: str) -> Any:
    if name == "denoise":
        from commands.denoise import app
    elif name == "kwx":
        from commands.kwx import app
    else:
        from commands.mining import app
    return app


@pytest.mark.parametrize(("program", "args"), CLI_RUNS, ids=[" ".join(a[:1] + a[-2:])
                                                           for _, a in CLI_RUNS])
def test_commands_write_a_line_or_count_a_skip_for_every_damaged_page(tmp_path, program,
                                                                      args):
    pages = every_kind_of_damage()
    for file_name, data in pages.items():
        (tmp_path / file_name).write_bytes(data)
    result = CliRunner().invoke(_app(program), [a.format(dir=tmp_path) for a in args])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, \
        result.stderr
    read, written, skipped = map(int, _SUMMARY.search(result.stderr).groups())
    assert (read, written + skipped) == (len(pages), len(pages)), result.stderr
    records = [json.loads(line) for line in _json_lines(result.stdout)]
    assert len(records) == written
    assert {r["page"] for r in records} <= set(pages)


def test_dedup_command_sketches_or_skips_every_damaged_page(tmp_path):
    pages = every_kind_of_damage()
    for file_name, data in pages.items():
        (tmp_path / file_name).write_bytes(data)
    result = CliRunner().invoke(_app("mining"), ["dedup", str(tmp_path), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    read, sketched, skipped = map(int, _SUMMARY.search(result.stderr).groups())
    assert read == len(pages) == sketched + skipped, result.stderr
    for line in _json_lines(result.stdout):
        assert set(json.loads(line)["pages"]) <= set(pages)
