"""``denoise site --engine spark`` (engine.spark_site): the fingerprint method's site
statistics counted by Spark give the embedded engine's blocks and report, byte for byte;
the options it does not run are refused in one line."""

import itertools
import json
import re
from collections import Counter

import pytest
from typer.testing import CliRunner

from commands.denoise import app

runner = CliRunner()


def site(*args: object) -> tuple[int, str, list[str]]:
    """``denoise site ARGS``: exit code, stdout, stderr lines."""
    result = runner.invoke(app, ["site", *(str(a) for a in args)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr.splitlines()


def without_time(errors: list[str]) -> list[str]:
    """Stderr without Spark's log lines, and the closing line without its CPU seconds and
    output file."""
    return [re.sub(r"; [0-9.]+ s, [0-9.]+ CPU s here, [0-9,]+ pages/s|; blocks written to .*",
                   "", line)
            for line in errors if line.startswith(("skipped ", "error: ")) or " labelled, " in line]


@pytest.fixture(scope="module")
def interleaved(dev_site_pages, tmp_path_factory):
    """JSON lines of real pages of three sites, interleaved page by page (the sites come
    back, as in a crawl), with a page that cannot be parsed and a line that is no JSON."""
    by_site: dict[str, list] = {}
    for page in dev_site_pages:
        by_site.setdefault(page.site, []).append(page)
    chosen = [name for name, _ in Counter(p.site for p in dev_site_pages).most_common(3)]
    lines = []
    for group in itertools.zip_longest(*(by_site[name][:8] for name in chosen)):
        for page in filter(None, group):
            host = page.site.replace("/", ".").replace("_", "-")
            lines.append(json.dumps({"url": f"http://{host}/{len(lines)}", "html": page.html}))
    lines.insert(4, json.dumps({"url": "http://broken.example/x", "html": "<!-- none -->"}))
    lines.append("not json")
    path = tmp_path_factory.mktemp("sites") / "crawl.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.spark
@pytest.mark.parametrize("options", [("--json",), ("--contained", "0.85", "--theta", "0.3")])
def test_spark_gives_the_embedded_blocks_report_and_skips(spark, interleaved, tmp_path,
                                                          options):
    embedded, on_spark = tmp_path / "embedded.jsonl", tmp_path / "spark.jsonl"
    code, report, errors = site(interleaved, *options, "-o", embedded, "--jobs", "1")
    spark_code, spark_report, spark_errors = site(interleaved, *options, "-o", on_spark,
                                                  "--engine", "spark")
    assert code == spark_code == 0
    assert spark_report == report
    assert on_spark.read_bytes() == embedded.read_bytes()
    assert without_time(spark_errors) == without_time(errors)
    assert len(without_time(errors)) == 3  # two skipped, and the closing line
    sites = [json.loads(line)["site"] for line in embedded.read_text().splitlines()]
    assert len(dict.fromkeys(sites)) == 3  # site by site, in the order they first came


@pytest.mark.spark
def test_a_uri_read_by_the_executors_gives_the_same_blocks(spark, interleaved, tmp_path):
    embedded, on_spark = tmp_path / "embedded.jsonl", tmp_path / "spark.jsonl"
    assert site(interleaved, "--json", "-o", embedded, "--jobs", "1")[0] == 0
    code, report, errors = site(interleaved.as_uri(), "--json", "-o", on_spark,
                                "--engine", "spark")
    assert code == 0
    assert on_spark.read_bytes() == embedded.read_bytes()
    assert report == site(interleaved, "--json", "--jobs", "1")[1]
    last = len(interleaved.read_text().splitlines())
    assert [line.split(": ")[0] for line in errors if line.startswith("skipped ")] == [
        "skipped http://broken.example/x", f"skipped file:{interleaved}:{last}"]


@pytest.mark.parametrize(("options", "message"), [
    (("--method", "shingle"), "--engine spark runs --method fingerprint only"),
    (("--structure",), "--structure is for --engine embedded"),
    (("--db", "counts.sqlite"), "--db is for --engine embedded"),
    (("--jobs", "2"), "--jobs is for --engine embedded"),
])
def test_what_spark_does_not_run_is_refused_in_one_line(options, message, tmp_path):
    code, stdout, errors = site(tmp_path, "--engine", "spark", *options)
    assert code == 2
    assert message in usage_error(errors)
    assert stdout == ""
    assert not list(tmp_path.iterdir())  # nothing made: no store, no output


def usage_error(errors: list[str]) -> str:
    """The message of Typer's usage-error box, on one line."""
    return " ".join(re.sub("[\u2500-\u257f]", " ", " ".join(errors)).split())
