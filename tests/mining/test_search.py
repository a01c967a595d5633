import json

import pytest
from sitegen import article_page, article_site

from denoise.errors import PageError, SearchIndexError
from denoise.page import Page
from mining.search import MANIFEST, IndexSettings, SearchIndex, query_words

# "catalog" is a word of every page's navigation bar (sitegen.NAV), never of an article
TEMPLATE_QUERY = "complete widget catalog"


def found(index, query, k=100):
    return {hit.page for hit in index.search(query, k)}


def test_fulltext_finds_a_page_by_its_words_and_says_where(tmp_path):
    pages = article_site(12)
    index = SearchIndex.create(tmp_path / "ix", IndexSettings("none"))
    report = index.add(pages)
    assert (report.added, report.replaced, report.skipped) == (12, 0, 0)
    assert len(index) == 12
    heading = pages[3].html.split("<h1>")[1].split("</h1>")[0]  # "Story 3: four words"
    hits = index.search(heading, k=3)
    assert hits[0].page == "p3.html"
    assert hits[0].url == "http://example.com/p3.html"
    assert [hit.rank for hit in hits] == [1, 2, 3]
    assert hits[0].score > hits[1].score
    assert set(query_words(heading.split(":")[1])) <= set(query_words(hits[0].snippet))
    assert len(index.search(heading, k=2)) == 2
    assert index.search("   ...  ") == []
    with pytest.raises(ValueError, match="k must be"):
        index.search("river", k=0)


def test_template_words_are_not_indexed_once_the_site_method_removes_them(tmp_path):
    pages = article_site(20)
    fulltext = SearchIndex.create(tmp_path / "full", IndexSettings("none"))
    fulltext.add(pages)
    assert len(found(fulltext, TEMPLATE_QUERY)) == 20
    # table-chunk (Ma et al.) splits pages at table cells: these pages have no tables
    for method in ("fingerprint", "shingle", "style-offset"):
        index = SearchIndex.create(tmp_path / method, IndexSettings("site", method=method))
        index.add(pages)
        assert found(index, TEMPLATE_QUERY) == set(), method
        heading = pages[7].html.split("<h1>")[1].split("</h1>")[0]
        assert index.search(heading, k=1)[0].page == "p7.html", method


def test_main_content_keeps_the_article_and_drops_the_menu(tmp_path):
    pages = article_site(6)
    index = SearchIndex.create(tmp_path / "ix")  # the default: main content
    assert index.settings == IndexSettings("main")
    index.add(pages)
    assert found(index, TEMPLATE_QUERY) == set()
    heading = pages[2].html.split("<h1>")[1].split("</h1>")[0]
    assert index.search(heading, k=1)[0].page == "p2.html"


def test_site_counts_accumulate_over_add_calls(tmp_path):
    """Chen et al.'s setting: a page alone on its site keeps its template; once the
    site's pages have arrived, a new page's template is recognised and left out, the
    pages indexed earlier staying as they were indexed."""
    pages = article_site(21)
    index = SearchIndex.create(tmp_path / "ix", IndexSettings("site"))
    index.add(pages[:1])
    assert found(index, TEMPLATE_QUERY) == {"p0.html"}
    index.add(pages[1:20])
    reopened = SearchIndex.open(tmp_path / "ix")
    reopened.add(pages[20:])
    assert "p20.html" not in found(reopened, TEMPLATE_QUERY)
    assert "p0.html" in found(reopened, TEMPLATE_QUERY)
    assert (tmp_path / "ix" / "sites.sqlite").is_file()


def test_reopened_index_adds_and_replaces_pages_by_id(tmp_path):
    SearchIndex.create(tmp_path / "ix", IndexSettings("none")).add(article_site(5))
    index = SearchIndex.open(tmp_path / "ix")
    assert len(index) == 5
    changed = Page(id="p2.html", html="<html><body><p>Entirely new words: zebra quokka "
                   "axolotl narwhal.</p></body></html>", site="example.com")
    report = index.add([changed, article_page(5)])
    assert (report.added, report.replaced) == (2, 1)
    assert len(index) == 6
    assert found(index, "quokka") == {"p2.html"}
    assert "p2.html" not in found(index, pages_words(article_page(2)))


def pages_words(page):
    return page.html.split("<h1>")[1].split("</h1>")[0]


def test_settings_are_kept_and_checked(tmp_path):
    SearchIndex.create(tmp_path / "ix", IndexSettings("page", recall=0.7))
    assert SearchIndex.open(tmp_path / "ix").settings == IndexSettings("page", recall=0.7)
    assert SearchIndex.open_or_create(tmp_path / "ix").settings.recall == 0.7
    with pytest.raises(SearchIndexError, match=r"indexed with page@0\.7, not main"):
        SearchIndex.open_or_create(tmp_path / "ix", IndexSettings("main"))
    with pytest.raises(SearchIndexError, match="not an empty folder"):
        SearchIndex.create(tmp_path / "ix")
    with pytest.raises(SearchIndexError, match="not a search index"):
        SearchIndex.open(tmp_path / "nothing")
    manifest = tmp_path / "ix" / MANIFEST
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "format": 99}))
    with pytest.raises(SearchIndexError, match="index format 99"):
        SearchIndex.open(tmp_path / "ix")
    manifest.write_text(json.dumps({**data, "models": "sha256:0000"}))
    with pytest.raises(SearchIndexError, match="other models"):
        SearchIndex.open(tmp_path / "ix")
    manifest.write_text("{not json")
    with pytest.raises(SearchIndexError, match="unreadable"):
        SearchIndex.open(tmp_path / "ix")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"denoise": "main", "method": "fingerprint"}, "for --denoise site"),
    ({"denoise": "site", "method": "nonsense"}, "unknown site-level method"),
    ({"denoise": "none", "recall": 0.5}, "for --denoise page"),
    ({"denoise": "page", "recall": 1.5}, "recall must be"),
])
def test_settings_refuse_options_of_other_modes(kwargs, message):
    with pytest.raises(ValueError, match=message):
        IndexSettings(**kwargs)


def test_a_bad_page_is_skipped_and_an_interrupted_add_leaves_the_last_commit(tmp_path):
    index = SearchIndex.create(tmp_path / "ix", IndexSettings("none"))
    errors = []
    bad = Page(id="bad.html", html="", site="example.com")
    report = index.add([*article_site(3), bad], on_error=errors.append)
    assert (report.added, report.skipped) == (3, 1)
    assert isinstance(errors[0], PageError)
    assert "bad.html" in str(errors[0])

    def stop(cleaned):
        if cleaned.page.id == "p4.html":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        index.add([article_page(i, seed=1) for i in range(3, 6)], on_page=stop)
    reopened = SearchIndex.open(tmp_path / "ix")
    assert len(reopened) == 3
    assert found(reopened, pages_words(article_page(3, seed=1))) <= {"p0.html", "p1.html",
                                                                     "p2.html"}
