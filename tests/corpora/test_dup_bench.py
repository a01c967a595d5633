"""The near-duplicate benchmark builder (``corpora.dup_bench``, ``corpora.dup_assembly``,
``corpora.articles``).

Sites, pages and articles here are made up; one test reads the shared corpora and is
skipped when they are absent.
"""

import json
import random
from collections import Counter

import pytest
from lxml import etree
from sitegen import sentence
from typer.testing import CliRunner

from corpora.articles import (
    MIN_CONTENT_CHARS,
    content_of,
    jaccard,
    shingles,
)
from corpora.content import html_text
from corpora.dup_assembly import DEAD_AFTER, MIN_SITE_PAGES, assemble
from corpora.dup_bench import app, write_benchmark
from corpora.hosts import HostPage, site_key
from corpora.locate import CorpusMissingError, corpus_path
from corpora.placement import clean_page
from denoise.reader import Skipped, read_pages

SITES = ("news.alpha.com", "github-news-x/alpha", "www.beta.org", "gamma.net",
         "docs.delta.co.uk", "epsilon.io")


def article(key: str, sentences: int = 9) -> tuple[str, list[str]]:
    """A made-up title and paragraphs, the same for the same key."""
    rng = random.Random(key)
    title = " ".join(sentence(rng, 5).rstrip(".").split()[:5])
    body = [" ".join(sentence(rng) for _ in range(3)) for _ in range(sentences // 3)]
    return title, body


def page_html(site: str, title: str, body: list[str], *, template: bool = True) -> str:
    """A page of ``site``: its navigation, sidebar and footer around an article."""
    name = site_key(site).title()
    nav = "".join(f'<li><a href="/{n}">{name} section {word}</a></li>'
                  for n, word in enumerate(("world", "sport", "money", "travel")))
    article_html = (f'<div id="article"><h1>{title}</h1>'
                    + "".join(f"<p>{p}</p>" for p in body) + "</div>")
    if not template:
        return f"<html><head><title>{title}</title></head><body>{article_html}</body></html>"
    return ("<!DOCTYPE html>\n<html><head><meta charset='iso-8859-1'>"
            f"<title>{title} - {name} Daily</title><script>var t = 1;</script></head><body>"
            f'<ul id="nav">{nav}</ul>{article_html}'
            f'<div id="side"><h3>Most read at {name}</h3><p>The {name} weekly column about '
            "harbours, ferries and the weather returns next week.</p></div>"
            f'<div id="footer">Copyright {name} Daily, all rights reserved. Privacy.</div>'
            "</body></html>")


def site_pages(site: str, pages: int, *, source: str = "made-news", eras: bool = False,
               template: bool = True) -> list[HostPage]:
    out = []
    for n in range(pages):
        title, body = article(f"{site}/{n}")
        stem = f"{2005 + 4 * (n % 2)}__story{n}" if eras else f"story{n}"
        out.append(HostPage(id=f"{site}/{stem}.html", site=site, source=source,
                            html=page_html(site, title, body, template=template),
                            gold_text=title + "\n\n" + "\n\n".join(body)))
    return out


def single_pages(count: int) -> list[HostPage]:
    """Pages of other sites, one each (one of them of the beta family)."""
    out = []
    for n in range(count):
        site = "blog.beta.org" if n == 0 else f"www.single{n}.com"
        title, body = article(f"single/{n}")
        out.append(HostPage(id=f"content-dev/made/{n}", site=site, source="made-single",
                            html=page_html(site, title, body),
                            gold_text=title + "\n\n" + "\n\n".join(body)))
    return out


def made_sites() -> list[HostPage]:
    return [p for site in SITES for p in site_pages(site, 10, eras=site == "gamma.net")]


CORPUS = {page.id: page for page in [*made_sites(), *single_pages(8)]}


def made_bench(seed: int = 0, *, contents: int = 6, distinct: int = 8, sites=None, **kwargs):
    return assemble(made_sites() if sites is None else sites, single_pages(8),
                    contents=contents, distinct=distinct, seed=seed, min_site_pages=6,
                    pool_pages=10, own_sources=("made-news",), **kwargs)


@pytest.fixture(scope="module")
def bench():
    return made_bench()


def pages_by_id(bench):
    return {page.id: page for page in bench.pages}


# --- articles and shingles -----------------------------------------------------------


def test_an_article_is_a_short_first_block_and_a_body_of_sensible_length():
    body = article("x")[1]
    page = single_pages(1)[0]
    content = content_of(page)
    assert content is not None and content.title == article("single/0")[0]
    assert content.paragraphs()[0].startswith(article("single/0")[1][0][:40])
    wrapped = HostPage(id="w", site="w.org", source="s", html="",
                       gold_text="A title\n\n" + "\n   ".join(" ".join(body).split(". ")))
    assert "\n" not in content_of(wrapped).text  # CleanEval's wrapped lines are joined
    long_title = HostPage(id="t", site="t.org", source="s", html="",
                          gold_text=" ".join(body) + "\n\n" + " ".join(body))
    assert content_of(long_title) is None  # no title block
    short = HostPage(id="s", site="s.org", source="s", html="",
                     gold_text=f"Title\n\n{'x ' * (MIN_CONTENT_CHARS // 2 - 10)}")
    assert content_of(short) is None


def test_jaccard_of_shingles_as_the_paper_shingles():
    text = " ".join(article("a")[1])
    assert jaccard(shingles(text), shingles(text.upper().replace(" ", " , "))) == 1.0
    assert jaccard(shingles(text), shingles(" ".join(article("b")[1]))) == 0.0
    assert len(shingles("one two three")) == 1 and len(shingles("")) == 0
    half = text.split()
    assert 0.2 < jaccard(shingles(text), shingles(" ".join(half[: len(half) // 2]))) < 0.6


def test_clean_page_keeps_the_content_and_cleans_like_placement():
    html = page_html("gamma.net", *article("c"))
    cleaned = clean_page(html)
    root = etree.HTML(cleaned.encode())
    assert "var t" not in cleaned
    assert root.find("head")[0].get("charset") == "utf-8"
    assert root.find("head/title").text.endswith("Gamma Daily")
    assert html_text(cleaned, skip_head=True) == html_text(html, skip_head=True)


# --- the assembled benchmark ---------------------------------------------------------


def first_sentence(page: HostPage) -> str:
    return content_of(page).paragraphs()[0].split(". ")[0]


def test_duplicates_are_one_content_on_sites_of_different_families(bench):
    pages = pages_by_id(bench)
    duplicates = [p for p in bench.pairs if p.label == "duplicate"]
    assert len(duplicates) == 3 * 6  # six contents on three sites each
    assert Counter(p.kind for p in duplicates) == {"placed-placed": 12, "real-placed": 6}
    assert bench.contents == {"made-news": 3, "made-single": 3}
    for pair in duplicates:
        a, b = pages[pair.a], pages[pair.b]
        assert a.content == b.content
        assert site_key(pair.a.split("/")[0]) != site_key(pair.b.split("/")[0])
    for page in pages.values():
        text = html_text(page.html, skip_head=True)
        folder = page.id.split("/")[0]
        assert f"{site_key(folder).title()} section world" in text  # the site's template
        content = CORPUS[page.content]
        assert content_of(content).title in text and first_sentence(content) in text
        if page.kind == "placed":  # the host's own article is gone
            assert site_key(folder) != site_key(content.site)
            assert first_sentence(CORPUS[page.page]) not in text
            assert page.f1 > 0.9


def test_every_corpus_page_is_used_once_and_folders_are_filled(bench):
    pages = bench.pages
    assert len({page.page for page in pages}) == len(pages)
    folders = Counter(page.id.split("/")[0] for page in pages)
    assert folders and min(folders.values()) >= 6
    assert set(folders) <= {site.rsplit("/", 1)[-1] for site in SITES}
    in_pairs = {page_id for pair in bench.pairs for page_id in (pair.a, pair.b)}
    assert {page.id for page in pages} > in_pairs  # filling pages are in no pair


def test_distinct_pairs_are_one_site_one_year_and_different_articles(bench):
    pages = pages_by_id(bench)
    distinct = [p for p in bench.pairs if p.label == "distinct"]
    assert len(distinct) == 8
    assert Counter(p.kind for p in distinct) == {"placed-placed": 2, "real-real": 6}
    for pair in distinct:
        a, b = pages[pair.a], pages[pair.b]
        assert pair.a.split("/")[0] == pair.b.split("/")[0]
        assert a.content != b.content and jaccard(a.shingles, b.shingles) < 0.5
        if pair.a.startswith("gamma.net/"):
            assert pair.a.split("/")[1][:4] == pair.b.split("/")[1][:4]  # one year
    assert len({p for pair in distinct for p in (pair.a, pair.b)}) == 2 * len(distinct)


def test_near_duplicates_never_stand_as_two_contents():
    others = single_pages(8)
    twin = HostPage(id="content-dev/made/twin", site="www.twin.com", source="made-single",
                    html=others[1].html, gold_text=others[1].gold_text)
    bench = assemble(made_sites(), [*others, twin], contents=12, distinct=0, seed=0,
                     min_site_pages=6, pool_pages=10, own_sources=("made-news",))
    used = {page.content for page in bench.pages}
    assert not {others[1].id, twin.id} <= used
    assert bench.left_out.get("content: near-duplicate of another content", 0) >= 1


def test_pages_whose_gold_repeats_on_their_site_are_never_used():
    sites = made_sites()
    first = sites[0]
    copy = HostPage(id=f"{first.site}/story-again.html", site=first.site, source=first.source,
                    html=first.html, gold_text=first.gold_text)
    bench = made_bench(sites=[*sites, copy])
    assert bench.left_out["site page: a near-duplicate on its site"] == 2
    assert not {first.id, copy.id} & {page.page for page in bench.pages}


def test_a_site_without_template_hosts_nothing_and_small_sites_are_left_out():
    sites = [*made_sites(), *site_pages("bare.org", 10, template=False, source="made-docs"),
             *site_pages("tiny.org", 3)]
    bench = made_bench(sites=sites)
    assert not [p for p in bench.pages if p.id.startswith(("bare.org/", "tiny.org/"))]
    assert bench.left_out["site: too few pages with gold of their own"] == 1
    assert 1 <= bench.left_out["host page: no template around the main content"] <= DEAD_AFTER


def test_assembly_is_deterministic_for_a_seed(bench):
    again = made_bench()
    assert [(p.id, p.html) for p in again.pages] == [(p.id, p.html) for p in bench.pages]
    assert again.pairs == bench.pairs
    assert made_bench(seed=1).pairs != bench.pairs


def test_written_page_ids_are_what_read_pages_gives(bench, tmp_path):
    (tmp_path / "pages" / "stale").mkdir(parents=True)
    (tmp_path / "pages" / "stale" / "old.html").write_text("<p>old</p>")
    write_benchmark(bench, tmp_path)
    read = {page.id: page for page in read_pages([tmp_path / "pages"])
            if not isinstance(page, Skipped)}
    assert set(read) == {page.id for page in bench.pages}
    assert all(page.site == page_id.split("/")[0] for page_id, page in read.items())
    rows = [line.split("\t") for line in (tmp_path / "pairs.tsv").read_text().splitlines()]
    assert [tuple(row) for row in rows] == [(p.a, p.b, p.label) for p in bench.pairs]
    assert all(a in read and b in read for a, b, _ in rows)
    lines = [json.loads(line) for line in (tmp_path / "manifest.jsonl").read_text().splitlines()]
    assert [line["id"] for line in lines] == [page.id for page in bench.pages]
    assert not (tmp_path / "pages" / "stale").exists()
    assert not list(tmp_path.rglob(".*"))  # no temporary files left
    page = bench.pages[0]
    assert read[page.id].html.strip() == page.html.strip()  # UTF-8, declared so


# --- the real corpora ----------------------------------------------------------------


@pytest.mark.corpus
def test_build_on_the_shared_corpora(tmp_path):
    try:
        for name in ("sites-dev-news.tar.xz", "sites-dev-docs.tar.xz", "content-dev.tar.xz"):
            corpus_path(name)
    except CorpusMissingError as missing:
        pytest.skip(str(missing))
    result = CliRunner().invoke(app, [str(tmp_path), "--contents", "10", "--distinct", "20"])
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in (tmp_path / "pairs.tsv").read_text().splitlines()]
    labels = Counter(label for _, _, label in rows)
    assert labels == {"duplicate": 30, "distinct": 20}
    read = {page.id for page in read_pages([tmp_path / "pages"])
            if not isinstance(page, Skipped)}
    assert all(a in read and b in read for a, b, _ in rows)
    for a, b, label in rows:
        if label == "duplicate":
            assert site_key(a.split("/")[0]) != site_key(b.split("/")[0])
        else:
            assert a.split("/")[0] == b.split("/")[0]
    assert min(Counter(page_id.split("/")[0] for page_id in read).values()) >= MIN_SITE_PAGES
    lines = [json.loads(line) for line in (tmp_path / "manifest.jsonl").read_text().splitlines()]
    sources = {line["content_source"] for line in lines if line["kind"] == "placed"}
    assert "sites-dev-news" in sources and len(sources) > 1  # content-dev contents too
