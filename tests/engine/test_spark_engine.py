"""``--engine spark`` (engine.spark): the same output as the embedded engine, on the
one local[2] Spark session of the test run (conftest's ``spark``). The Spark tests are marked
``spark`` and skip without pyspark (the [spark] extra) or Java."""

import io
import re
import shutil
import sys
from pathlib import Path

import pytest
from kwxpages import GARDEN, garden_html
from repo import SHOP
from typer.testing import CliRunner
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from commands.kwx import ExtractJob, app
from denoise.page import Page
from denoise.reader import Skipped, read_file_bytes, read_pages
from denoise.shipped import shipped
from engine.spark import SparkJobError, run_pages_spark
from kwx.extractor import DEFAULT_DF, DEFAULT_RANKER

runner = CliRunner()
REFUSED = b"<!-- a comment and nothing else: no element to parse -->"


def extract(*args: object) -> tuple[int, str, list[str]]:
    """``kwx extract ARGS`` through the CLI: exit code, stdout, stderr lines."""
    result = runner.invoke(app, ["extract", *(str(a) for a in args)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr.splitlines()


def summary(errors: list[str]) -> str:
    """The summary line without its timings: what was read, written and skipped."""
    line = next(e for e in errors if " pages read, " in e)
    return line.split(";")[0]


def skipped(errors: list[str]) -> list[str]:
    return [e for e in errors if e.startswith("skipped ")]


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    """The example shop, an empty page, a binary one, and one the extractor refuses."""
    folder = tmp_path_factory.mktemp("shop")
    for page in sorted(SHOP.glob("*.html")):
        shutil.copy(page, folder / page.name)
    (folder / "empty.html").write_bytes(b"")
    (folder / "binary.html").write_bytes(bytes(range(256)) * 4)
    (folder / "comment.html").write_bytes(REFUSED)
    return folder


def make_warc(path: Path) -> Path:
    """Garden pages as WARC responses, with a request, an image, a binary "HTML" response
    and a page the extractor refuses."""
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True)
    writer.write_record(writer.create_warcinfo_record(path.name, {"software": "pytest"}))

    def response(url: str, content_type: str, body: bytes) -> None:
        http = StatusAndHeaders("200 OK", [("Content-Type", content_type)], protocol="HTTP/1.1")
        writer.write_record(writer.create_warc_record(
            url, "response", payload=io.BytesIO(body), http_headers=http))

    request = StatusAndHeaders("GET / HTTP/1.1", [("Host", "greenleaf.example")],
                               is_http_request=True)
    writer.write_record(writer.create_warc_record(
        "http://greenleaf.example/", "request", payload=io.BytesIO(b""), http_headers=request))
    for index in range(len(GARDEN)):
        response(f"http://greenleaf.example/p{index}", "text/html; charset=utf-8",
                 garden_html(index).encode())
        if index == 2:
            response("http://greenleaf.example/logo.png", "image/png", b"\x89PNG\r\n\x1a\n")
            response("http://greenleaf.example/bin", "text/html", bytes(range(256)) * 4)
            response("http://greenleaf.example/comment", "text/html", REFUSED)
    path.write_bytes(buffer.getvalue())
    return path


# --- without Spark ----------------------------------------------------------------------


def test_without_pyspark_one_line_says_how_to_install_it_and_exits_2(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)  # import pyspark.sql fails
    out = tmp_path / "out.jsonl"
    code, stdout, errors = extract(SHOP, "--engine", "spark", "-o", out)
    assert code == 2
    assert errors == ["error: --engine spark needs pyspark: pip install 'webdenoise[spark]'"]
    assert stdout == ""
    assert list(tmp_path.iterdir()) == []  # no output, no partial output


def test_jobs_belongs_to_the_embedded_engine():
    code, _, errors = extract(SHOP, "--engine", "spark", "--jobs", "2")
    assert code == 2
    assert any("--jobs is for --engine embedded" in line for line in errors)


def test_file_bytes_read_as_the_file_of_that_name_would_be(tmp_path):
    warc = make_warc(tmp_path / "crawl.warc.gz")
    uri = "hdfs://namenode:8020/crawls/crawl.warc.gz"
    local = list(read_pages([warc]))
    remote = list(read_file_bytes(uri, warc.read_bytes()))
    assert [p for p in remote if isinstance(p, Page)] == [
        p for p in local if isinstance(p, Page)]
    assert [Skipped(s.source.replace(uri, str(warc)), s.reason) for s in remote
            if isinstance(s, Skipped)] == [s for s in local if isinstance(s, Skipped)]
    page, = read_file_bytes("s3a://bucket/shop/oak.html", (SHOP / "oak-shelf.html").read_bytes())
    assert (page.id, page.site) == ("s3a://bucket/shop/oak.html", "shop")


# --- on Spark ---------------------------------------------------------------------------


@pytest.mark.spark
def test_a_folder_gives_the_same_output_and_the_same_skips_on_both_engines(spark, shop, tmp_path):
    embedded = extract(shop, "--json", "--jobs", "1")
    on_spark = extract(shop, "--json", "--engine", "spark", "--spark-master", "local[2]")
    assert embedded[0] == on_spark[0] == 0
    assert on_spark[1] == embedded[1]
    assert len(on_spark[1].splitlines()) == 6
    assert skipped(on_spark[2]) == skipped(embedded[2])
    assert summary(on_spark[2]) == summary(embedded[2])
    assert summary(on_spark[2]).startswith("9 pages read, 6 written, 3 skipped (")


@pytest.mark.spark
def test_a_warc_gives_the_same_output_read_here_or_by_the_executors(spark, tmp_path):
    warc = make_warc(tmp_path / "crawl.warc.gz")
    embedded = extract(warc, "--top", "5", "--jobs", "1")
    here = extract(warc, "--top", "5", "--engine", "spark")
    executors = extract(warc.as_uri(), "--top", "5", "--engine", "spark")
    assert embedded[0] == here[0] == executors[0] == 0
    assert here[1] == executors[1] == embedded[1]
    assert summary(here[2]) == summary(executors[2]) == summary(embedded[2])
    assert summary(here[2]).startswith(
        f"{len(GARDEN) + 2} pages read, {len(GARDEN)} written, 2 skipped (")
    assert skipped(here[2]) == skipped(embedded[2])
    # the executors name the file by its URI
    assert [re.sub(r"^skipped file:/+", "skipped /", line) for line in skipped(executors[2])] == (
        skipped(embedded[2]))


@pytest.mark.spark
def test_inputs_in_order_local_and_uris_mixed_a_missing_uri_named(spark, shop, tmp_path):
    warc = make_warc(tmp_path / "crawl.warc.gz")
    missing = (tmp_path / "nowhere.warc.gz").as_uri()
    pages = [shop / "oak-shelf.html", shop / "wool-blanket.html"]
    code, stdout, errors = extract(pages[0], warc.as_uri(), missing, pages[1], "--json",
                                   "--engine", "spark")
    assert code == 0
    ids = [re.match(r'\{"page": "([^"]+)"', line)[1] for line in stdout.splitlines()]
    assert ids == [str(pages[0]), *(f"http://greenleaf.example/p{i}" for i in
                                    range(len(GARDEN))), str(pages[1])]
    assert f"skipped {missing}: no such file or directory" in errors


@pytest.mark.spark
def test_models_given_on_the_command_line_are_shipped_to_the_executors(spark, shop, tmp_path):
    ranker = shutil.copy(shipped(DEFAULT_RANKER), tmp_path / "my-ranker.npz")
    df = shutil.copy(shipped(DEFAULT_DF), tmp_path / "my-df.npz")
    pages = [shop / "oak-shelf.html", shop / "linen-apron.html"]
    given = extract(*pages, "-m", ranker, "--df", df, "--engine", "spark")
    default = extract(*pages, "--jobs", "1")
    assert given[0] == 0
    assert given[1] == default[1]
    from pyspark import SparkFiles  # the executors read copies named by their content

    staged = [p.name for p in Path(SparkFiles.getRootDirectory()).glob("*-my-*.npz")]
    assert sorted(re.sub("^[0-9a-f]{16}-", "", name) for name in staged) == [
        "my-df.npz", "my-ranker.npz"]


@pytest.mark.spark
def test_a_resumed_run_passes_over_what_was_done(spark, shop, tmp_path):
    job = ExtractJob(model=None, df=None, querylog=None, denoise=True, detector=None,
                     recall=None, top=3, lines=False)
    warc = make_warc(tmp_path / "crawl.warc.gz")
    # the first 4 items: binary, brass-kettle, clay-planter, comment; p0, p1, p2, bin
    for inputs, pages_done in (([str(shop)], 2), ([warc.as_uri()], 3)):
        whole, rest = io.StringIO(), io.StringIO()
        everything = run_pages_spark(spark, inputs, job, whole)
        done = run_pages_spark(spark, inputs, job, rest, skip_first=4)
        assert (done.resumed, done.written) == (4, everything.written - pages_done)
        assert whole.getvalue().splitlines()[pages_done:] == rest.getvalue().splitlines()


@pytest.mark.spark
def test_an_executor_failure_is_one_line(spark, shop, tmp_path):
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a model" * 10)
    job = ExtractJob(model=broken, df=None, querylog=None, denoise=True, detector=None,
                     recall=None, top=3, lines=False)  # set up on the executors only
    with pytest.raises(SparkJobError) as failed:
        run_pages_spark(spark, [str(shop)], job, io.StringIO())
    message = str(failed.value)
    assert message.startswith("the Spark job failed: ")
    assert "broken.npz" in message
    assert "\n" not in message
