"""``denoise apply`` never writes an empty page silently (issue 33): a page whose cut
would leave it no text keeps its least template-like blocks, its JSON line says
``"fallback": true`` and the closing summary counts it; a page with no text at all is
counted too."""

from __future__ import annotations

import json
import re

import pytest
from sitegen import article_page
from typer.testing import CliRunner

from commands.denoise import app
from commands.denoise_page import FELL_BACK, NO_TEXT
from denoise.detector import TemplateDetector

runner = CliRunner()
#: The closing line's shape, which scripts read (tests/test_fuzz_pages.py too).
SUMMARY = re.compile(r"(\d+) pages read, (\d+) written, (\d+) skipped; .*pages/s(; .*)?$")
PAGES = 3


def run(args: list[str]):
    result = runner.invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def summary(result) -> tuple[int, int, int, str]:
    line = next(line for line in result.stderr.splitlines() if " pages read, " in line)
    found = SUMMARY.search(line)
    assert found, line
    read, written, skipped = map(int, found.groups()[:3])
    return read, written, skipped, found.group(4) or ""


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pages")
    for index in range(PAGES):
        page = article_page(index)
        (folder / page.id).write_text(page.html, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def all_template(tmp_path_factory):
    """The shipped model with its operating point at 0: every block scores as template."""
    shipped = TemplateDetector.load()
    path = tmp_path_factory.mktemp("model") / "all-template.npz"
    TemplateDetector(shipped.model, curve=shipped.curve, smoothing=shipped.smoothing,
                     threshold=0.0).save(path)
    return path


def story(index: int) -> list[str]:
    """The paragraphs of the article (the last ``<p>`` is the footer's)."""
    return [part.split("</p>")[0] for part in article_page(index).html.split("<p>")[1:-1]]


def kept_story(index: int, text: str) -> bool:
    """A paragraph of the article is in ``text`` (the least template-like text), and not
    the footer."""
    return any(paragraph in text for paragraph in story(index)) and "Copyright" not in text


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_pages_whose_every_block_is_template_keep_text_and_are_counted(pages, all_template,
                                                                        jobs):
    result = run(["apply", pages, "--model", all_template, "--jobs", jobs])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(records) == PAGES
    for index, record in enumerate(records):
        assert record["fallback"] is True and kept_story(index, record["text"])
        assert list(record) == ["page", "fallback", "text"]  # files: no url
    assert summary(result) == (PAGES, PAGES, 0, f"; {PAGES} {FELL_BACK}")


def test_a_single_page_that_falls_back_says_so(pages, all_template):
    page = pages / article_page(1).id
    result = run(["apply", page, "--model", all_template])
    assert result.exit_code == 0
    assert kept_story(1, result.stdout)
    assert summary(result) == (1, 1, 0, f"; 1 {FELL_BACK}")
    html = run(["apply", pages, "--model", all_template, "--format", "html"])
    assert all(kept_story(i, json.loads(line)["html"]) and json.loads(line)["fallback"]
               for i, line in enumerate(html.stdout.splitlines()))
    assert summary(html)[3] == f"; {PAGES} {FELL_BACK}"


def test_pages_the_cut_keeps_say_nothing(pages):
    result = run(["apply", pages])
    assert all("fallback" not in json.loads(line) for line in result.stdout.splitlines())
    assert summary(result) == (PAGES, PAGES, 0, "")
    single = run(["apply", pages / article_page(0).id])
    assert single.stderr == "" and "Copyright" not in single.stdout
    assert all(paragraph in single.stdout for paragraph in story(0)[:2])  # of three


def test_block_lines_give_the_call_at_the_operating_point(pages, all_template):
    result = run(["apply", pages, "--model", all_template, "--blocks"])
    blocks = [json.loads(line) for line in result.stdout.splitlines()]
    assert blocks and all(block["template"] for block in blocks)
    assert summary(result)[3] == ""


def test_site_evidence_counts_its_fallbacks_too(pages, all_template):
    result = run(["apply", pages, "--model", all_template, "--site-evidence"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(records) == PAGES and all(record["fallback"] for record in records)
    assert summary(result)[3] == f"; {PAGES} {FELL_BACK}"


@pytest.mark.parametrize("extra", [[], ["--site-evidence"]])
def test_a_page_with_no_text_is_counted_not_silent(pages, tmp_path, extra):
    # a page of an image alone: its output is empty, and the summary says why
    blank = tmp_path / "blank.html"
    blank.write_text('<html><body><img src="chart.png"></body></html>', encoding="utf-8")
    single = run(["apply", blank, *extra])
    assert single.exit_code == 0 and single.stdout == "\n"
    assert summary(single) == (1, 1, 0, f"; 1 {NO_TEXT}")
    # --site-evidence is for the template formats (main content has its own point)
    for name in ("text",) if extra else ("text", "markdown", "json"):
        batch = run(["apply", blank, pages / article_page(0).id, "--format", name, *extra])
        records = [json.loads(line) for line in batch.stdout.splitlines()]
        assert records[0]["markdown" if name == "markdown" else "text"] == ""
        assert summary(batch) == (2, 2, 0, f"; 1 {NO_TEXT}")
    html = run(["apply", blank, "--format", "html", *extra])  # the page's markup is kept
    assert "chart.png" in html.stdout and html.stderr == ""
