"""Page metadata from the page's own markup (``denoise.metadata``), on made-up pages."""

import json

import pytest

from denoise.errors import PageError
from denoise.metadata import Metadata, extract_metadata, parse_date
from denoise.page import Page


def page(head: str = "", body: str = "", *, url: str | None = None, lang: str = "") -> Page:
    attr = f' lang="{lang}"' if lang else ""
    return Page(id="t.html", url=url,
                html=f"<html{attr}><head>{head}</head><body>{body}</body></html>")


def ld(data: object) -> str:
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


def test_json_ld_comes_first_and_its_graph_is_searched():
    head = (ld({"@context": "https://schema.org", "@graph": [
        {"@type": "WebSite", "name": "Harbour Gazette"},
        {"@type": "NewsArticle", "headline": "Ferry timetable under review",
         "author": [{"@type": "Person", "name": "Jane Roe"},
                    {"@type": "Person", "name": "John Doe"}],
         "datePublished": "2024-05-17T08:30:00+02:00", "inLanguage": "en-GB",
         "publisher": {"@type": "Organization", "name": "Harbour Gazette Ltd"}}]})
            + '<title>Ferry timetable - Harbour Gazette</title>'
            + '<meta name="author" content="Somebody Else">')
    found = extract_metadata(page(head, "<h1>Another heading</h1>"))
    assert found == Metadata(title="Ferry timetable under review", author="Jane Roe, John Doe",
                             date="2024-05-17", site_name="Harbour Gazette Ltd",
                             language="en", url="", description="")


def test_titles_and_names_are_in_unicode_form_c():
    head = ld({"@type": "NewsArticle", "headline": "Cafe\u0301 owners meet",
               "author": {"@type": "Person", "name": "Zoe\u0308 Roe"}})
    found = extract_metadata(page(head, "<h1>x</h1>"))
    assert (found.title, found.author) == ("Caf\u00e9 owners meet", "Zo\u00eb Roe")


def test_meta_tags_when_there_is_no_json_ld():
    head = ('<title>Ferry timetable under review | Harbour Gazette</title>'
            '<meta property="og:site_name" content="Harbour Gazette">'
            '<meta name="author" content="By Jane Roe, Staff Writer">'
            '<meta property="article:published_time" content="2024-05-17T08:30:00Z">'
            '<meta name="description" content="The ferry timetable is under review.">'
            '<link rel="canonical" href="/news/ferry">')
    found = extract_metadata(page(head, "<p>text</p>", url="https://gazette.example/x?y=1"))
    assert found.title == "Ferry timetable under review"
    assert found.author == "Jane Roe"
    assert found.date == "2024-05-17"
    assert found.site_name == "Harbour Gazette"
    assert found.url == "https://gazette.example/news/ferry"
    assert found.description == "The ferry timetable is under review."


def test_the_pages_own_heading_is_the_title_and_markup_gives_author_and_date():
    head = "<title>Harbour Gazette - Ferry timetable under review tonight</title>"
    body = ('<div class="byline">By <span itemprop="author">Jane Roe</span></div>'
            '<h1>Ferry timetable under review</h1>'
            '<time datetime="2024-05-17">Friday</time><p>The council met.</p>')
    found = extract_metadata(page(head, body, lang="fr-CA"))
    assert (found.title, found.author, found.date, found.language) == (
        "Ferry timetable under review", "Jane Roe", "2024-05-17", "fr")


def test_a_byline_and_a_written_date_in_the_text():
    body = ('<h1>Glass frogs hide their blood</h1>'
            '<p class="article-byline">Written by Ada Byron and Alan Turing | Updated</p>'
            '<span class="post-date">Published May 7th, 2023</span><p>Story.</p>')
    found = extract_metadata(page("", body))
    assert found.author == "Ada Byron, Alan Turing"
    assert found.date == "2023-05-07"


def test_the_url_gives_a_date_and_nothing_is_invented():
    found = extract_metadata(page("", "<p>Just text.</p>",
                                  url="https://blog.example/2021/03/09/some-post/"))
    assert found.date == "2021-03-09"
    assert extract_metadata(page("", "<p>Just text, 05/06/2024.</p>")) == Metadata()


def test_broken_json_ld_is_passed_over():
    head = '<script type="application/ld+json">{"@type": "Article", "headline": </script>'
    assert extract_metadata(page(head, "<h1>A heading</h1>")).title == "A heading"


@pytest.mark.parametrize(("text", "day"), [
    ("2024-05-17T08:30:00Z", "2024-05-17"), ("2024/5/7", "2024-05-07"),
    ("March 3, 2019", "2019-03-03"), ("3rd of March 2019", "2019-03-03"),
    ("Sept. 21 2020", "2020-09-21"), ("12/11/2020", ""), ("2024-13-01", ""), ("", "")])
def test_dates_are_read_only_when_unambiguous(text, day):
    assert parse_date(text) == day


def test_a_page_that_cannot_be_parsed_names_itself():
    with pytest.raises(PageError, match=r"t\.html"):
        extract_metadata(Page(id="t.html", html=""))
