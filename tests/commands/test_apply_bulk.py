"""``denoise apply --bulk``: OpenSearch's and Elasticsearch's bulk NDJSON, embedded and on
Spark."""

import json

import pytest
from repo import SHOP
from typer.testing import CliRunner

from commands.denoise import app
from engine.bulk import MAX_ID_BYTES, action_line, check_index_name, document_id

runner = CliRunner()


def bulk_pairs(text: str) -> list[tuple[dict, dict]]:
    """The action and document of each page, the body checked against the bulk API's
    shape: newline-delimited JSON ending in a newline, an action line naming one
    operation with its index and id before every document."""
    assert text.endswith("\n")
    lines = text[:-1].split("\n")
    assert len(lines) % 2 == 0
    pairs = []
    for action_text, document_text in zip(lines[::2], lines[1::2], strict=True):
        action, document = json.loads(action_text), json.loads(document_text)
        assert list(action) == ["index"]
        assert set(action["index"]) == {"_index", "_id"}
        assert isinstance(document, dict)
        pairs.append((action, document))
    return pairs


@pytest.mark.parametrize("output", ["text", "main"])
def test_each_page_is_indexed_under_its_id(output):
    result = runner.invoke(app, ["apply", str(SHOP), "--format", output, "--bulk", "shop"])
    assert result.exit_code == 0, result.output
    pairs = bulk_pairs(result.stdout)
    assert len(pairs) == len(list(SHOP.glob("*.html")))
    for action, document in pairs:
        assert action["index"] == {"_index": "shop", "_id": document["page"]}
        assert document["text"]


def test_a_single_page_is_a_bulk_pair_too():
    page = next(iter(sorted(SHOP.glob("*.html"))))
    result = runner.invoke(app, ["apply", str(page), "--bulk", "shop"])
    assert result.exit_code == 0, result.output
    (action, document), = bulk_pairs(result.stdout)
    assert action["index"]["_id"] == document["page"] == str(page)


@pytest.mark.parametrize(("name", "reason"), [
    ("Shop", "lower case"), ("a/b", "refuse"), ("_x", "starts with"), ("..", "not an index"),
    ("x" * 256, "over 255 bytes")])
def test_index_names_the_engines_refuse_are_refused(name, reason):
    with pytest.raises(ValueError, match=reason):
        check_index_name(name)
    result = runner.invoke(app, ["apply", str(SHOP), "--bulk", name])
    assert result.exit_code == 2


def test_long_ids_become_digests_and_strings_are_escaped():
    assert document_id("a" * MAX_ID_BYTES) == "a" * MAX_ID_BYTES
    assert document_id("a" * (MAX_ID_BYTES + 1)).startswith("sha256:")
    assert json.loads(action_line("pages", 'x"\n\u00e9')) == {
        "index": {"_index": "pages", "_id": 'x"\n\u00e9'}}
    result = runner.invoke(app, ["apply", str(SHOP), "--bulk", "shop", "--blocks"])
    assert result.exit_code == 2


def test_spark_writes_the_same_bulk_body(spark):
    embedded = runner.invoke(app, ["apply", str(SHOP), "--format", "main", "--bulk", "shop",
                                   "--jobs", "1"])
    on_spark = runner.invoke(app, ["apply", str(SHOP), "--format", "main", "--bulk", "shop",
                                   "--engine", "spark", "--spark-master", "local[2]"])
    assert embedded.exit_code == on_spark.exit_code == 0, on_spark.output
    assert on_spark.stdout == embedded.stdout
    assert len(bulk_pairs(on_spark.stdout)) == len(list(SHOP.glob("*.html")))
