"""The retrieval benchmark builder (``corpora.retrieval_bench``), on made-up stories and
host pages (those of the keyword benchmark's tests)."""

import json
from dataclasses import replace

from test_keyword_bench import GOLD, host_html, make_story

from corpora.hosts import HostPage
from corpora.retrieval_bench import make_queries, place_stories, write_benchmark
from denoise.reader import read_pages


def hosts(sites=4, pages=3):
    return [HostPage(id=f"news/{site}.example/{n}.html", site=f"news/{site}.example",
                     html=host_html(site=f"Site {site}"), gold_text=GOLD, source="made-up")
            for site in range(sites) for n in range(pages)]


def stories():
    shared = ("glass frogs", "us")  # "us" is too short to be a query alone
    return [replace(make_story(n), keyphrases=(*shared, f"frog number {n}")) for n in range(3)]


def test_each_story_goes_to_pages_of_different_sites_and_queries_judge_them(tmp_path):
    placed = place_stories(stories(), hosts(), copies=2)
    assert len(placed) == 6
    for story in {page.story.id for page in placed}:
        sites = [page.id.split("/")[0] for page in placed if page.story.id == story]
        assert len(sites) == len(set(sites)) == 2
    assert len({page.host.id for page in placed}) == 6  # a host page is used once
    queries = make_queries(placed, min_stories=3)
    topical = [q for q in queries if q.kind == "topical"]
    assert [q.query for q in topical] == ["glass frogs"]
    assert set(topical[0].relevant) == {page.id for page in placed}
    known = [q for q in queries if q.kind == "known-item"]
    assert len(known) == 3
    first = next(q for q in known if q.query == make_story(0).title)
    assert {p.story.id for p in placed if p.id in first.relevant} == {make_story(0).id}

    write_benchmark(placed, queries, tmp_path)
    ids = {page.id for page in read_pages([tmp_path / "pages"])}
    assert ids == {page.id for page in placed}  # the ids the queries name are read_pages's
    lines = [json.loads(line) for line in (tmp_path / "queries.jsonl").open()]
    assert {q["kind"] for q in lines} == {"topical", "known-item"}
    page = (tmp_path / "pages" / placed[0].id).read_text()
    assert placed[0].story.title in page and "Contact the editors" in page  # template kept
