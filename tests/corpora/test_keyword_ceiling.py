"""The keyword benchmark's ceiling rows (benchmarks/keywords.py): each page replaced by
its story alone, what a perfect de-noiser would leave."""

import json

from repo import load_benchmark

from corpora.keyword_bench import Story
from denoise.page import Page
from kwx.labelled import LabelledPage

keywords = load_benchmark("keywords", "keywords_benchmark")


def test_story_pages_keep_the_story_and_its_keys_and_nothing_else(tmp_path, monkeypatch):
    story = Story(id="science-1", category="science", title="Polar bears & ice",
                  text="Polar bears hunt seals on the ice. They swim far. The ice melts.",
                  keyphrases=("polar bear",))
    monkeypatch.setattr(keywords, "load_stories", lambda: [story])
    (tmp_path / "manifest.jsonl").write_text(json.dumps(
        {"split": "test", "name": "science-1~1", "story": "science-1"}) + "\n")
    host = ("<html><body><nav>Home Sport Weather</nav><h1>Polar bears &amp; ice</h1>"
            "<p>Polar bears hunt seals on the ice.</p><footer>BBC 2017</footer></body></html>")
    labelled = LabelledPage(Page(id="science-1~1.html", html=host, site="test"),
                            ("polar bear", "seals"))
    [alone] = keywords.story_pages(tmp_path, {"test": [labelled]})["test"]
    assert alone.keys == labelled.keys and alone.page.id == labelled.page.id
    html = alone.page.html
    assert "<h1>Polar bears &amp; ice</h1>" in html and "<title>Polar bears &amp; ice" in html
    assert all(f"<p>{p}</p>" in html for p in story.paragraphs())
    assert "Sport" not in html and "BBC" not in html
