import json

from sitegen import article_site
from typer.testing import CliRunner

from commands.mining import app

runner = CliRunner()


def write_site(folder, pages):
    folder.mkdir(parents=True)
    for page in pages:
        (folder / page.id).write_text(page.html, encoding="utf-8")


def test_index_then_search_as_json_lines(tmp_path):
    pages = article_site(8)
    write_site(tmp_path / "pages" / "shop", pages)
    (tmp_path / "pages" / "shop" / "broken.html").write_bytes(b"")
    index = str(tmp_path / "ix")
    result = runner.invoke(app, ["index", str(tmp_path / "pages"), "-i", index])
    assert result.exit_code == 0, result.output
    assert "8 indexed, 1 skipped" in result.stderr
    assert "shop/broken.html" in result.stderr
    heading = pages[4].html.split("<h1>")[1].split("</h1>")[0]
    result = runner.invoke(app, ["search", "-i", index, heading, "nothingmatcheszzz", "-k", "2"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["rank"] for line in lines] == [1, 2]
    assert lines[0]["page"] == "shop/p4.html"
    assert set(lines[0]) == {"query", "rank", "page", "url", "score", "snippet"}
    assert "2 queries over 8 pages, 1 found nothing" in result.stderr

    queries = tmp_path / "queries.txt"
    queries.write_text(f"{heading}\n\n{heading}\n")
    result = runner.invoke(app, ["search", "-i", index, "--queries", str(queries), "-k", "1",
                                 "--no-snippets"])
    assert [json.loads(line)["snippet"] for line in result.stdout.splitlines()] == ["", ""]
    result = runner.invoke(app, ["search", "-i", index, "-k", "1"], input=f"{heading}\n")
    assert json.loads(result.stdout)["page"] == "shop/p4.html"


def test_adding_keeps_the_index_settings_and_refuses_others(tmp_path):
    write_site(tmp_path / "pages" / "shop", article_site(4))
    index = str(tmp_path / "ix")
    assert runner.invoke(app, ["index", str(tmp_path / "pages"), "-i", index, "--denoise",
                               "site", "--method", "shingle"]).exit_code == 0
    result = runner.invoke(app, ["index", str(tmp_path / "pages"), "-i", index])
    assert result.exit_code == 0, result.output
    assert "4 replacing pages with their id" in result.stderr
    result = runner.invoke(app, ["index", str(tmp_path / "pages"), "-i", index, "--denoise",
                                 "main"])
    assert result.exit_code == 2
    assert "indexed with site:shingle, not main" in result.stderr
    result = runner.invoke(app, ["index", str(tmp_path / "pages"), "-i", str(tmp_path / "i2"),
                                 "--recall", "0.7"])
    assert result.exit_code == 2
    assert "a recall is for --denoise page" in result.output


def test_search_names_a_folder_that_is_no_index(tmp_path):
    result = runner.invoke(app, ["search", "-i", str(tmp_path), "anything"])
    assert result.exit_code == 2
    assert f"{tmp_path}: not a search index" in result.stderr
