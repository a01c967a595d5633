"""WebKB pages placed into news-site templates (``corpora.webkb_templated``).

Pages here are made up; one test reads the shared corpora and is skipped when they
are absent.
"""

from pathlib import Path

import pytest
from lxml import etree

from corpora.hosts import HostPage
from corpora.locate import CorpusMissingError, corpus_path
from corpora.webkb import WebKBPage
from corpora.webkb_templated import (
    LABELS,
    assemble,
    page_name,
    read_manifest,
    resolve_hosts,
    webkb_text,
    write_set,
)
from denoise.page import Page
from mining.labels import labelled_pages, read_label_file

ARTICLE = [
    "The harbour council met on Tuesday to discuss the new ferry timetable for winter.",
    "Residents asked for an earlier morning crossing and cheaper tickets for students.",
    "The council promised to publish a revised plan before the end of the month.",
]
GOLD = "Ferry timetable under review\n" + "\n".join(ARTICLE)


def host_html(site: str, number: int) -> str:
    """A small news page of ``site``: navigation, an article, a sidebar, a footer."""
    nav = "".join(f'<li><a href="/{word.lower()}">{site} {word}</a></li>'
                  for word in ("Home", "World", "Sport", "Weather", "Contact"))
    paragraphs = "".join(f"<p>{sentence}</p>" for sentence in ARTICLE)
    return (f"<html><head><title>Ferry timetable under review - {site}</title></head><body>"
            f'<ul class="nav">{nav}</ul><div id="content"><h1>Ferry timetable under review</h1>'
            f'<div id="story">{paragraphs}</div></div>'
            f'<div id="sidebar"><h3>Most read on {site}</h3><p>Lighthouse keeper number '
            f"{number} retires after forty years of service on the point.</p></div>"
            f'<div id="footer">Copyright {site} Gazette, all rights reserved. Read our '
            "privacy notice and terms of use.</div></body></html>")


def hosts_of(site: str, count: int = 3) -> list[HostPage]:
    return [HostPage(id=f"news/{site}/{n}.html", site=f"news/{site}", html=host_html(site, n),
                     gold_text=GOLD, source="test") for n in range(count)]


def webkb_page(university: str, label: str, number: int, *, title: bool = True) -> WebKBPage:
    """A 1996-style page: a title, a heading, a few lines and links, no template."""
    head = f"<title>{label.title()} page {number} at {university}</title>" if title else ""
    html = (f"<HTML><HEAD>{head}</HEAD><BODY><H1>{label.title()} page {number} at "
            f"{university}</H1>Office: 4130 Upson Hall<BR>Phone: 555-{number:04d}<P>"
            f"Research interests:\n{label} things\x07 and <A HREF='x.html'>more {label} "
            f"work</A>.<UL><LI>Item one of {number}<LI>Item two</UL></BODY></HTML>")
    file = f"pages/{label}/{university}/{number:04d}.http"
    return WebKBPage(page=Page(id=file, html=html, url=f"http://{university}.edu/{label}/{number}",
                               site=university), label=label, university=university)


def text_of(html: str) -> str:
    return " ".join("".join(etree.HTML(html.encode()).itertext()).split())


# --- what is placed ------------------------------------------------------------------


def test_webkb_text_is_the_title_and_the_body_lines():
    page = webkb_page("cornell", "faculty", 7)
    text = webkb_text(page.page.html)
    assert text is not None
    assert text.title == "Faculty page 7 at cornell"
    # one line per block, as FULLTEXT reads it (a wrapped source line joined, <BR> no
    # block, the full stop after a link glued to it); the heading repeats the title:
    # dropped; control characters dropped
    assert text.paragraphs() == ["Office: 4130 Upson Hall Phone: 555-0007",
                                 "Research interests: faculty things and more faculty work.",
                                 "Item one of 7", "Item two"]


def test_without_a_title_the_first_line_is_the_title():
    text = webkb_text(webkb_page("texas", "course", 3, title=False).page.html)
    assert text is not None
    assert text.title == "Course page 3 at texas"
    assert text.paragraphs()[0] == "Office: 4130 Upson Hall Phone: 555-0003"


def test_a_page_without_body_text_is_not_placed():
    assert webkb_text("<html><head><title>Only a title</title></head><body> </body></html>") \
        is None


# --- assembling and writing ----------------------------------------------------------


def make_set(seed: int = 0):
    pages = [webkb_page(university, label, n)
             for university in ("cornell", "texas")
             for label in ("course", "faculty", "student")
             for n in range(2)]
    pages.append(webkb_page("cornell", "other", 9))  # another class: ignored
    pages.append(webkb_page("washington", "course", 1))  # no host site: skipped
    pages.append(WebKBPage(page=Page(id="pages/course/cornell/0099.http",
                                     html="<html><body></body></html>", site="cornell"),
                           label="course", university="cornell"))  # no body text
    hosts = {"cornell": hosts_of("Gazette"), "texas": hosts_of("Herald", 2)}
    return pages, assemble(pages, hosts, seed=seed)


def test_every_page_goes_into_its_universitys_template_with_its_text():
    _, templated = make_set()
    assert len(templated.pages) == 12
    assert templated.skipped == {"no host site for its university": 1, "no body text": 1,
                                 "URL filed under two classes": 0}
    assert templated.hosts == {"cornell": "news/Gazette", "texas": "news/Herald"}
    assert templated.host_pages == {"cornell": 3, "texas": 2}  # round the hosts
    for page in templated.pages:
        site = "Gazette" if page.university == "cornell" else "Herald"
        assert page.host.site == f"news/{site}"
        assert page.path == f"pages/{page.university}/{page_name(page.webkb.page.id)}"
        assert page.label not in page.path  # names say nothing of the class
        text = text_of(page.html)
        for word in ("Home", "World", "Sport", "Weather", "Contact"):  # the template stays
            assert f"{site} {word}" in text
        assert f"Copyright {site} Gazette" in text
        assert f"Most read on {site}" in text
        for sentence in ARTICLE:  # the host's article is gone
            assert sentence not in text
        placed = webkb_text(page.webkb.page.html)
        assert placed is not None
        for line in (placed.title, *placed.paragraphs()):  # the WebKB page's text is in
            assert line in text
        root = etree.HTML(page.html.encode())
        assert [" ".join(h.itertext()) for h in root.iter("h1")] == [placed.title]
        assert root.find("head/title").text == f"{placed.title} - {site}"
    uses = [sum(p.host.id == h.id for p in templated.pages) for h in hosts_of("Gazette")]
    assert uses == [2, 2, 2]  # each host page used several times


def test_assembly_is_deterministic_and_seeded():
    _, first = make_set(0)
    _, again = make_set(0)
    _, other = make_set(1)
    assert [(p.path, p.host.id, p.html) for p in first.pages] == \
        [(p.path, p.host.id, p.html) for p in again.pages]
    assert [(p.path, p.host.id) for p in first.pages] != [(p.path, p.host.id) for p in other.pages]


def test_the_labels_file_matches_the_manifest_and_the_pages(tmp_path: Path):
    _, templated = make_set()
    stale = tmp_path / "pages" / "cornell" / "old.html"
    stale.parent.mkdir(parents=True)
    stale.write_text("<html></html>")
    write_set(templated, tmp_path)
    assert not stale.exists()
    entries = read_label_file(tmp_path / LABELS)
    manifest = read_manifest(tmp_path)
    assert [(e.path, e.label) for e in entries] == \
        [(tmp_path / row["path"], row["class"]) for row in manifest]
    assert [row["path"] for row in manifest] == [p.path for p in templated.pages]
    assert {row["webkb_file"] for row in manifest} == {p.webkb.page.id for p in templated.pages}
    read = list(labelled_pages(tmp_path / LABELS, entries))
    assert len(read) == len(entries) == 12
    for (page, label), row in zip(read, manifest, strict=True):
        assert label == row["class"]
        assert page.site == row["university"]  # the folder: SITELEVEL's unit
        assert "charset" in page.html[:200]
    assert len(list((tmp_path / "pages").glob("*/*.html"))) == 12


def test_host_names_resolve_to_one_folder_per_family():
    hosts = [*hosts_of("a/news.bbc.co.uk", 3), *hosts_of("b/bbc", 2), *hosts_of("a/www.cnn.com")]
    chosen = resolve_hosts(hosts, {"cornell": "bbc", "texas": "www.cnn.com"})
    assert chosen["cornell"][0].site == "news/a/news.bbc.co.uk"  # the family's largest folder
    assert chosen["texas"][0].site == "news/a/www.cnn.com"
    chosen = resolve_hosts(hosts, {"cornell": "news/b/bbc"})  # a full path names that one
    assert chosen["cornell"][0].site == "news/b/bbc"
    with pytest.raises(ValueError, match="one site family"):
        resolve_hosts(hosts, {"cornell": "bbc", "texas": "news/b/bbc"})
    with pytest.raises(ValueError, match="no single host site"):
        resolve_hosts(hosts, {"cornell": "nytimes"})


# --- the shared corpora --------------------------------------------------------------


@pytest.mark.corpus
def test_real_webkb_pages_in_a_real_news_template():
    try:
        news = corpus_path("sites-dev-news.tar.xz")
        webkb = corpus_path("webkb.tar.xz")
    except CorpusMissingError as missing:
        pytest.skip(str(missing))
    from corpora.hosts import site_hosts
    from corpora.webkb import read_webkb

    pages = read_webkb(webkb, classes=["faculty", "project"], universities=["cornell"])
    hosts = resolve_hosts(site_hosts(news, sites=["news.bbc.co.uk"]), {"cornell": "bbc"})
    assert len(hosts["cornell"]) >= 90
    templated = assemble(pages[:40], hosts, seed=0)
    assert len(templated.pages) >= 35
    for page in templated.pages:
        text = text_of(page.html)
        assert "BBC" in text  # the host's template stays
        placed = webkb_text(page.webkb.page.html)
        assert placed is not None
        assert all(line in text for line in placed.paragraphs()[:5])


def test_a_url_under_two_classes_is_dropped_as_in_the_webkb_benchmark():
    first = webkb_page("cornell", "faculty", 1)
    twin = WebKBPage(page=Page(id="pages/staff/cornell/0001.http", html=first.page.html,
                               url=first.page.url, site="cornell"), label="staff",
                     university="cornell")
    kept = webkb_page("cornell", "student", 2)
    templated = assemble([first, twin, kept], {"cornell": hosts_of("Gazette")})
    assert [p.webkb.page.id for p in templated.pages] == [kept.page.id]
    assert templated.skipped["URL filed under two classes"] == 1  # the faculty copy
