"""``mining dedup --engine spark`` (engine.spark_dedup): sketches made by the executors,
candidates from a Spark join on the band keys, verified there, and the embedded engine's
clusters, pairs and saved index, byte for byte; what it does not run is refused."""

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from commands.mining import app

runner = CliRunner()


def dedup(*args: object) -> tuple[int, str, list[str]]:
    """``mining dedup ARGS``: exit code, stdout, stderr lines."""
    result = runner.invoke(app, ["dedup", *(str(a) for a in args)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr.splitlines()


def told(errors: list[str]) -> list[str]:
    """What was skipped and found, without Spark's log lines and the times."""
    return [re.sub(r"; [0-9.]+ s, [0-9.]+ CPU s here, [0-9,]+ pages/s", "", line)
            for line in errors if line.startswith(("skipped ", "error: ")) or " sketched, " in line]


@pytest.fixture(scope="module")
def crawl(dev_site_pages, tmp_path_factory):
    """JSON lines of 30 real pages, some copied whole, some with a sentence added, one
    without words, one that cannot be parsed, and two halves for an index."""
    lines = []

    def add(url: str, html: str) -> None:
        lines.append(json.dumps({"url": url, "html": html}))

    for number, page in enumerate(dev_site_pages[:30]):
        add(f"http://crawl.example/{number}", page.html)
        if number % 4 == 0:
            add(f"http://mirror.example/{number}", page.html)
        if number % 5 == 0:
            add(f"http://edited.example/{number}", page.html.replace(
                "</body>", "<p>one more sentence of seven words here</p></body>"))
    add("http://crawl.example/picture", "<html><body><img src=x></body></html>")
    add("http://crawl.example/broken", "<!-- nothing -->")
    folder = tmp_path_factory.mktemp("crawl")
    (folder / "all.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "old.jsonl").write_text("\n".join(lines[::2]) + "\n", encoding="utf-8")
    (folder / "new.jsonl").write_text("\n".join(lines[1::2]) + "\n", encoding="utf-8")
    return folder


@pytest.mark.spark
@pytest.mark.parametrize("options", [
    (), ("--rule", "paper", "--pairs", "--denoise", "main"),
    ("--rule", "lsh", "--threshold", "0.5", "--pairs", "--denoise", "page")])
def test_spark_finds_what_the_embedded_engine_finds(spark, crawl, options):
    embedded = dedup(crawl / "all.jsonl", *options, "--jobs", "1")
    on_spark = dedup(crawl / "all.jsonl", *options, "--engine", "spark")
    assert embedded[0] == on_spark[0] == 0
    assert on_spark[1] == embedded[1]
    assert len(embedded[1].splitlines()) >= 8
    assert told(on_spark[2]) == told(embedded[2])
    assert sum(line.startswith("skipped ") for line in told(embedded[2])) == 2


@pytest.mark.spark
def test_an_index_saved_and_matched_on_spark_is_the_embedded_one(spark, crawl, tmp_path):
    found = {}
    for engine in ("embedded", "spark"):
        old = tmp_path / f"old-{engine}.npz"
        assert dedup(crawl / "old.jsonl", "--save-index", old,
                     "--engine", engine)[0] == 0
        found[engine] = dedup(crawl / "new.jsonl", "--index", old, "--pairs",
                              "--save-index", tmp_path / f"both-{engine}.npz",
                              "--engine", engine)
    assert found["spark"][0] == found["embedded"][0] == 0
    assert found["spark"][1] == found["embedded"][1]
    assert '"indexed": true' in found["spark"][1]
    for name in ("old", "both"):
        with np.load(tmp_path / f"{name}-embedded.npz") as embedded, \
                np.load(tmp_path / f"{name}-spark.npz") as on_spark:
            assert sorted(on_spark.files) == sorted(embedded.files)
            for array in embedded.files:
                assert np.array_equal(on_spark[array], embedded[array]), (name, array)


@pytest.mark.parametrize(("options", "message"), [
    (("--denoise", "site"), "--denoise site is for --engine embedded"),
    (("--jobs", "2"), "--jobs is for --engine embedded"),
])
def test_what_spark_does_not_run_is_refused_in_one_line(options, message, tmp_path):
    code, stdout, errors = dedup(tmp_path, "--engine", "spark", *options)
    assert code == 2
    assert message in " ".join(re.sub("[\u2500-\u257f]", " ", " ".join(errors)).split())
    assert stdout == ""
