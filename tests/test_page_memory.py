"""Memory per page stays bounded: the parse reads a page up to
``denoise.html.MAX_MARKUP`` tags and attribute values, kwx takes keywords from at most
``kwx.document.MAX_TEXT_CHARS`` characters, and the shingles' numpy path hashes text
piece by piece. Each cap leaves a page under it as it was, and a page over it gives
what its part under the cap gives; a page of many small elements, past the markup cap,
costs a command far less memory than its whole tree would (``benchmarks/page_memory.py``
measures every command at the page size cap).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

import denoise.html
import kwx.document
import mining.shingles
from denoise.detector import TemplateDetector
from denoise.html import parse_html, within_markup
from denoise.page import Page
from kwx.document import read_document
from kwx.extractor import KeywordExtractor
from mining.shingles import word_hashes

SHOP = Path(__file__).resolve().parent.parent / "examples" / "shop"


def _shop_texts() -> list[str]:
    """The text of the shop examples' paragraphs (as HTML: ``&amp;`` stays)."""
    found = []
    for path in sorted(SHOP.glob("*.html")):
        found += [re.sub(r"<[^>]*>", "", paragraph).strip() for paragraph in
                  re.findall(r"<p[ >].*?</p>", path.read_text(encoding="utf-8"))]
    assert len(found) >= 12
    return found


def _shop_paragraphs() -> list[str]:
    return [f"<p>{text}</p>" for text in _shop_texts()]


def _page(body: str, name: str = "big.html") -> Page:
    return Page(id=name, html=f"<html><head><title>Shop</title></head><body>{body}</body></html>")


def _cut_reference(data: bytes, limit: int) -> bytes:
    """What :func:`within_markup` keeps, one character at a time."""
    marks = [i for i, byte in enumerate(data) if byte in b"<="]
    if len(marks) <= limit:
        return data
    tag = data.rfind(b"<", 0, marks[limit] + 1)
    return data[:tag if tag >= 0 else marks[limit]]


def test_within_markup_keeps_the_html_before_the_tag_past_the_limit(monkeypatch):
    html = (SHOP / "oak-shelf.html").read_bytes()
    marks = html.count(b"<") + html.count(b"=")
    for step in (1, 5, 64, 1 << 20):  # the scan's steps change nothing
        monkeypatch.setattr(denoise.html, "_SCAN_BYTES", step)
        for limit in (0, 1, 7, 30, marks - 1):
            cut = within_markup(html, limit)
            assert cut == _cut_reference(html, limit), (step, limit)
            assert cut.count(b"<") + cut.count(b"=") <= limit
        assert within_markup(html, marks) is html
    assert within_markup(b"a=b=c <p>", 1) == b"a=b"  # no tag before: cut at the mark


def test_a_page_past_the_markup_cap_parses_as_its_html_up_to_the_cap(monkeypatch):
    links = "".join(f'<li><a href="/item/{n}">{text}</a></li>'
                    for n, text in enumerate(_shop_texts() * 20))
    html = _page(f"<ul>{links}</ul>").html
    marks = html.count("<") + html.count("=")
    whole = etree.tostring(parse_html(html))
    monkeypatch.setattr(denoise.html, "MAX_MARKUP", marks)
    assert etree.tostring(parse_html(html)) == whole  # at the cap: the whole page
    monkeypatch.setattr(denoise.html, "MAX_MARKUP", marks // 3)
    cut = _cut_reference(html.encode(), marks // 3).decode()
    capped = parse_html(html)
    assert etree.tostring(capped) == etree.tostring(parse_html(cut))
    assert 0 < len(capped.findall(".//a")) < len(etree.fromstring(whole).findall(".//a")) / 2
    # the per-page work sees the same part: the detector keeps the same text
    detector = TemplateDetector.load()
    assert detector.score(_page_of(html)).content_text() == detector.score(
        _page_of(cut)).content_text()


def _page_of(html: str) -> Page:
    return Page(id="page.html", html=html)


def test_keywords_of_a_page_past_the_text_cap_are_those_of_its_first_characters(monkeypatch):
    paragraphs = _shop_paragraphs() * 40
    page = _page("".join(paragraphs))
    whole = read_document(page).text
    lines = whole.split("\n")
    first = 25  # paragraphs wholly inside the cap
    limit = len("\n".join(lines[:first]))
    assert len(whole) > 4 * limit
    monkeypatch.setattr(kwx.document, "MAX_TEXT_CHARS", limit)
    capped = read_document(page)
    assert capped.text == "\n".join(lines[:first])
    assert len(capped.chunk_starts) == first
    extractor = KeywordExtractor.load(denoise=False)
    assert extractor.extract(page, top=20) == extractor.extract(
        _page("".join(paragraphs[:first])), top=20)
    # a cap inside a paragraph cuts at its last space before the cap
    monkeypatch.setattr(kwx.document, "MAX_TEXT_CHARS", limit + 30)
    inside = read_document(page).text
    assert inside == whole[:whole.rindex(" ", 0, limit + 31)]
    assert len(read_document(page).chunk_starts) == first + 1


def test_the_text_cap_leaves_the_shop_pages_as_they_were(monkeypatch):
    pages = [Page(id=p.name, html=p.read_text(encoding="utf-8")) for p in SHOP.glob("*.html")]
    extractor = KeywordExtractor.load()
    capped = [extractor.extract(page) for page in pages]
    monkeypatch.setattr(kwx.document, "MAX_TEXT_CHARS", 10**12)
    monkeypatch.setattr(denoise.html, "MAX_MARKUP", 10**12)
    assert capped == [extractor.extract(page) for page in pages]


@pytest.mark.parametrize("piece", [pytest.param(1, marks=pytest.mark.slow), 3, 50,
                                   1 << 16])
def test_word_hashes_piece_by_piece_are_those_of_the_whole_text(monkeypatch, piece):
    text = " ".join(read_document(_page("".join(_shop_paragraphs()))).text.split())
    text = text.replace("shelf", "sh\u00e9lf").replace("steel", "st\u4e2del")
    astral = text.replace("oak", "o\U0001f333ak")  # past the first plane: numpy's path
    spans = (np.array([0, 40, 41, 300]), np.array([35, 41, 200, len(text)]))
    expected = [word_hashes(text), word_hashes(text, spans)]  # compiled where built
    expected_astral = [mining.shingles._numpy_word_hashes(astral, None),
                       mining.shingles._numpy_word_hashes(astral, spans)]
    monkeypatch.setattr(mining.shingles, "_PIECE", piece)
    assert all(np.array_equal(a, b) for a, b in zip(expected, [
        mining.shingles._numpy_word_hashes(text, None),
        mining.shingles._numpy_word_hashes(text, spans)], strict=True))
    assert all(np.array_equal(a, b) for a, b in zip(expected_astral, [
        mining.shingles._numpy_word_hashes(astral, None),
        mining.shingles._numpy_word_hashes(astral, spans)], strict=True))
    long_word = "x" * (3 * piece + 1)  # a word over several pieces
    assert np.array_equal(mining.shingles._numpy_word_hashes(f"a {long_word} b", None),
                          word_hashes(f"a {long_word} b"))


_PEAK = """
import os, subprocess, sys
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
_, status, usage = os.wait4(process.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def _peak_mb(program: str, args: list[str]) -> float:
    """Peak resident memory of a command, in MB (wait4 from a small process of its own,
    so that this test process's memory is not counted as the command's)."""
    command = [sys.executable, "-c", f"from commands.{program} import main; main()", *args]
    done = subprocess.run([sys.executable, "-c", _PEAK, *command], capture_output=True,
                          text=True, check=True, env=os.environ)
    status, peak = done.stdout.split()
    assert status == "0", done.stderr
    return int(peak) / 1024


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KB: Linux")
def test_a_page_of_many_small_elements_costs_far_less_than_its_tree(tmp_path):
    words = " ".join(_shop_texts()).split()
    small = tmp_path / "small.html"
    small.write_text(_page(f"<p>{' '.join(words)}</p>").html, encoding="utf-8")
    big = tmp_path / "big.html"
    cells = "".join(f"<b>{words[n % len(words)]}</b>" for n in range(700_000))
    big.write_text(_page(f"<div>{cells}</div>").html, encoding="utf-8")
    assert cells.count("<") > 1.8 * denoise.html.MAX_MARKUP
    for program, args in (("kwx", ["extract", "--jobs", "1"]),
                          ("denoise", ["apply", "--jobs", "1"])):
        fixed = _peak_mb(program, [*args, str(small)])
        grown = _peak_mb(program, [*args, str(big)]) - fixed
        # the whole page (700,000 elements and text nodes) took kwx 338 MB more than a
        # small page and denoise 300; up to MAX_MARKUP (350,000 of them), 160 and 170
        assert grown < 220, (program, fixed, grown)


def test_the_classifier_lists_a_texts_words_piece_by_piece(monkeypatch):
    # lower-casing and listing the words of a whole 20 MB text took +290 MB; in pieces
    # cut after white space the words are the same, Greek final sigmas included
    import random

    from mining import classify

    rng = random.Random(7)
    alphabet = list("abcdefgh \u03a3\u039f\u0394\u0130\u00df_-'.\n\t0123456789ABCDEFG")
    for _ in range(500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 2000)))
        whole = [w for w in classify._WORD.findall(text.lower())
                 if classify.MIN_WORD <= len(w) <= classify.MAX_WORD]
        monkeypatch.setattr(classify, "_PIECE_CHARS", rng.randint(1, 200))
        assert list(classify.iter_words(text)) == whole


def test_a_huge_pages_lines_are_written_one_by_one():
    # joined, a 19.9 MB page's block lines took 170 MB more ('denoise apply --format
    # blocks' peaked at 660 MB); an ordinary page's are written in one call
    from engine.batch import JOINED_CHARS, BatchSummary, ResultWriter

    class Sink:
        def __init__(self):
            self.writes = []

        def write(self, text):
            self.writes.append(text)

    sink = Sink()
    writer = ResultWriter(sink, BatchSummary())
    small = ["a\n", "b\n"]
    big = ["x" * (JOINED_CHARS // 3) + "\n"] * 4
    writer.add(small)
    writer.add(big)
    assert sink.writes == ["a\nb\n", *big]
    assert writer.summary.written == 2
