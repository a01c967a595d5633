"""``denoise apply --format json``: the article with the page's metadata."""

import json

from typer.testing import CliRunner

from commands.denoise import app

runner = CliRunner()

PAGE = """<html lang="en"><head><title>Ferry timetable under review | Harbour Gazette</title>
<script type="application/ld+json">{"@type": "NewsArticle", "headline":
"Ferry timetable under review", "author": {"@type": "Person", "name": "Jane Roe"},
"datePublished": "2024-05-17"}</script>
<meta property="og:site_name" content="Harbour Gazette"></head><body>
<ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li></ul>
<article><h1>Ferry timetable under review</h1>
<p>The harbour council met on Tuesday to discuss the new ferry timetable for winter,
and residents asked for an earlier morning crossing and cheaper tickets for students.</p>
<p>The council promised to publish a revised plan before the end of the month, after
hearing from the ferry company and from the harbour's business association.</p>
</article><footer>Copyright Harbour Gazette</footer></body></html>"""


def test_one_json_object_a_page_with_metadata_and_the_article(tmp_path):
    path = tmp_path / "ferry.html"
    path.write_text(PAGE, encoding="utf-8")
    result = runner.invoke(app, ["apply", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["page"] == str(path)
    assert (record["title"], record["author"], record["date"], record["site_name"],
            record["language"]) == ("Ferry timetable under review", "Jane Roe", "2024-05-17",
                                    "Harbour Gazette", "en")
    assert "earlier morning crossing" in record["text"]
    assert list(record)[-1] == "text"


def test_a_page_with_a_url_has_one_url_key(tmp_path):
    # the page's address and the metadata's canonical URL were two "url" keys on a line
    lines = tmp_path / "pages.jsonl"
    lines.write_text(json.dumps({"url": "https://harbour.example/ferry?ref=home",
                                 "html": PAGE.replace("</head>", '<link rel="canonical" '
                                                      'href="/ferry"></head>')}) + "\n")
    result = runner.invoke(app, ["apply", str(lines), "--format", "json"])
    assert result.exit_code == 0, result.output
    keys = json.loads(result.stdout, object_pairs_hook=lambda pairs: [k for k, _ in pairs])
    assert keys.count("url") == 1
    record = json.loads(result.stdout)
    assert record["url"] == "https://harbour.example/ferry"  # canonical
    assert record["page"] == "https://harbour.example/ferry?ref=home"  # where it was read


def test_json_refuses_the_options_of_the_template_cut(tmp_path):
    path = tmp_path / "ferry.html"
    path.write_text(PAGE, encoding="utf-8")
    result = runner.invoke(app, ["apply", str(path), "--format", "json", "--recall", "0.5"])
    assert result.exit_code == 2
