"""The cross-domain keyword benchmark builder (``corpora.keyword_bench``).

Pages and stories here are made up; one test reads the shared corpora and is skipped
when they are absent.
"""

import io
import json
import tarfile

import pytest
from lxml import etree
from typer.testing import CliRunner

from corpora.hosts import HostPage, site_key
from corpora.keyword_bench import (
    Story,
    app,
    assemble,
    load_stories,
    split_stories,
    write_benchmark,
)
from corpora.locate import CorpusMissingError, corpus_path
from corpora.placement import PlacementError, place_story, split_sentences

ARTICLE = [
    "The harbour council met on Tuesday to discuss the new ferry timetable for winter.",
    "Residents asked for an earlier morning crossing and cheaper tickets for students.",
    "The council promised to publish a revised plan before the end of the month.",
]
NAV = ["Home", "World news", "Local sport", "Weather and travel", "Contact the editors"]
FOOTER = "Copyright Example Harbour Gazette, all rights reserved. Read our privacy notice."
RELATED = ('<div class="related"><h4>Related stories</h4><ul>'
           + "".join(f"<li><a href='/r{n}'>{title}</a></li>" for n, title in enumerate([
               "Bridge repairs will close the east road for two weeks in March",
               "New bus routes connect the harbour with the university campus",
               "Fishing fleet celebrates its best season in a decade",
               "Volunteers clean the beach after the winter storms"]))
           + "</ul></div>")


def host_html(*, layout: str = "div", headline_outside: bool = True, site: str = "Gazette"
              ) -> str:
    """A small news page: navigation, an article, a sidebar and a footer."""
    nav = "".join(f'<li><a href="/{i}">{word}</a></li>' for i, word in enumerate(NAV))
    headline = "<h1>Ferry timetable under review</h1>"
    paragraphs = "".join(f"<p>{sentence}</p>" for sentence in ARTICLE)
    article = (f'<div id="story" class="article-body">{"" if headline_outside else headline}'
               f"{paragraphs}</div>")
    if layout == "table":
        article = f'<table><tr><td class="main">{paragraphs}</td></tr></table>'
    elif layout == "p":
        article = f'<div id="wrap"><p class="lead">{" ".join(ARTICLE)}</p></div>'
    return (
        "<!DOCTYPE html>\n<html><head><meta http-equiv='Content-Type' "
        "content='text/html; charset=iso-8859-1'>"
        f"<title>Ferry timetable under review - {site}</title>"
        '<meta name="description" content="The ferry timetable is under review.">'
        '<meta name="keywords" content="ferry, timetable">'
        '<meta property="og:title" content="Ferry timetable under review">'
        '<link rel="stylesheet" href="/site.css"><script>var tracker = 1;</script>'
        "</head><body>"
        "<!-- BEGIN WAYBACK TOOLBAR INSERT --><div id='wm-ipp'>Wayback toolbar text here "
        "with many words</div><!-- END WAYBACK TOOLBAR INSERT -->"
        f'<div id="masthead"><ul class="nav">{nav}</ul></div>'
        f'<div id="content">{headline if headline_outside else ""}'
        '<p class="byline">By Jane Roe, harbour correspondent</p>'
        f"{article}{RELATED}</div>"
        '<div id="sidebar"><h3>Most read today</h3><p>Lighthouse keeper retires after forty '
        "years of service on the point.</p></div>"
        f'<div id="footer">{FOOTER}</div></body></html>'
    )


GOLD = "Ferry timetable under review\nBy Jane Roe, harbour correspondent\n" + "\n".join(ARTICLE)


def make_story(number: int = 0, category: str = "science") -> Story:
    return Story(
        id=f"{category}-{1000 + number}", category=category,
        title=f"Glass frogs hide their blood while asleep {number}",
        text=("Researchers filmed sleeping glass frogs under green light. The frogs stored "
              "most of their red blood cells in the liver. Dr. Ada Byron said the finding "
              "was a surprise. It may help the study of blood clots. The team will now look "
              "at other species. Field work starts in spring."),
        keyphrases=("glass frogs", "red blood cells", "blood clots"))


def text_of(element) -> str:
    return " ".join("".join(element.itertext()).split())


# --- placement -----------------------------------------------------------------------


def test_the_story_replaces_the_main_element_and_the_template_stays():
    story = make_story()
    html = place_story(host_html(), GOLD, story)
    root = etree.HTML(html.encode())
    main = root.find(".//div[@id='story']")
    assert main is not None and main.get("class") == "article-body"  # attributes kept
    assert [p.text for p in main.iter("p")] == story.paragraphs()
    assert story.paragraphs() == [
        "Researchers filmed sleeping glass frogs under green light. The frogs stored most of "
        "their red blood cells in the liver. Dr. Ada Byron said the finding was a surprise.",
        "It may help the study of blood clots. The team will now look at other species. "
        "Field work starts in spring."]
    page = text_of(root)
    for word in NAV:
        assert word in page
    assert FOOTER in page
    assert "Lighthouse keeper retires" in page
    for sentence in ARTICLE:  # the old article is gone ...
        assert sentence not in page
    assert "Jane Roe" not in page  # ... and so is its byline outside the main element
    assert "Wayback" not in html and "tracker" not in html
    # the old headline (an <h1> outside the main element) now holds the story title, once
    assert [text_of(h) for h in root.iter("h1")] == [story.title]
    assert root.find(".//div[@id='content']/h1").text == story.title
    head = root.find("head")
    assert head[0].tag == "meta" and head[0].get("charset") == "utf-8"
    assert [m for m in root.iter("meta") if m.get("charset") or m.get("http-equiv")] == [head[0]]
    assert head.find("title").text == f"{story.title} - Gazette"
    assert not [m for m in root.iter("meta") if m.get("name") or m.get("property")]
    assert head.find("link").get("href") == "/site.css"  # styles stay
    assert html.startswith("<!DOCTYPE html>")


def test_without_an_outside_headline_the_story_brings_its_own():
    story = make_story()
    root = etree.HTML(place_story(host_html(headline_outside=False), GOLD, story).encode())
    main = root.find(".//div[@id='story']")
    assert main[0].tag == "h1" and main[0].text == story.title
    assert len(list(root.iter("h1"))) == 1


@pytest.mark.parametrize("layout", ["table", "p"])
def test_elements_that_cannot_hold_paragraphs_become_divs(layout):
    story = make_story()
    html = place_story(host_html(layout=layout), GOLD, story)
    root = etree.HTML(html.encode())
    paragraph = next(p for p in root.iter("p") if p.text == story.paragraphs()[0])
    holder = paragraph.getparent()
    assert holder.tag in ("td", "div")
    assert all(a.tag not in ("p", "h1") for a in holder.iterancestors())
    if layout == "p":
        assert holder.get("class") == "lead" and holder.tag == "div"
    # parsing the output again gives the same tree: nothing was auto-closed
    again = etree.HTML(etree.tostring(root, method="html"))
    assert [p.text for p in again.iter("p")] == [p.text for p in root.iter("p")]


def test_a_site_name_before_the_headline_is_kept():
    html = host_html().replace("<title>Ferry timetable under review - Gazette</title>",
                               "<title>Gazette | Harbour | Ferry timetable under review</title>")
    root = etree.HTML(place_story(html, GOLD, make_story()).encode())
    assert root.find("head/title").text == f"Gazette | Harbour | {make_story().title}"


def test_hosts_that_cannot_take_a_story_are_refused():
    with pytest.raises(PlacementError, match="gold text hardly on the page"):
        place_story(host_html(), "Something else entirely that is not on this page", make_story())
    bare = (f"<html><body><div>{''.join(f'<p>{s}</p>' for s in ARTICLE)}</div>"
            "<p>Home</p></body></html>")
    with pytest.raises(PlacementError, match="no template around"):
        place_story(bare, "\n".join(ARTICLE), make_story())
    scattered = "".join(f"<div>{sentence}</div><div>{RELATED}</div>"
                        for sentence in [*ARTICLE, "The ferry company declined to comment."])
    with pytest.raises(PlacementError, match="no element covers the gold"):
        place_story(f"<html><body>{scattered}</body></html>",
                    "\n".join([*ARTICLE, "The ferry company declined to comment."]), make_story())


# --- stories -------------------------------------------------------------------------


def story_archive(tmp_path, docs: dict[str, str], keys: dict[str, str]):
    path = tmp_path / "keyphrases-dev.tar.xz"
    with tarfile.open(path, "w:xz") as tar:
        for folder, files, suffix in (("docs", docs, ".txt"), ("keys", keys, ".key")):
            for stem, text in files.items():
                data = text.encode()
                info = tarfile.TarInfo(f"keyphrases-dev/kpcrowd/{folder}/{stem}{suffix}")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return path


def test_load_stories_cleans_text_and_leaves_out_short_and_repeated_stories(tmp_path):
    body = ('He said ""hello"" to the R&amp;D team. ' * 12).strip()
    archive = story_archive(tmp_path, {
        "business-1": f"Tom &amp; Jerry open a shop\r\n{body}\r\n",
        "business-2": "A title only\r\n",
        "crime-1": f"Another title\r\n{body}\r\n",  # same text under another category
        "crime-2": f"Title repeated\r\nTitle repeated {body.replace('hello', 'bye')}",
    }, {"business-1": "shop\r\nTom\r\n\r\n", "business-2": "x\n", "crime-1": "y\n",
        "crime-2": "z\n"})
    skipped = []
    stories = load_stories(archive, skipped=skipped)
    assert [s.id for s in stories] == ["business-1", "crime-2"]
    first = stories[0]
    assert first.title == "Tom & Jerry open a shop"
    assert first.text.startswith('He said "hello" to the R&D team.')
    assert first.keyphrases == ("shop", "Tom")
    assert first.category == "business"
    assert stories[1].text.startswith("He said")  # the repeated title is not story text
    assert sorted(item.source.split(":")[-1] for item in skipped) == ["business-2", "crime-1"]
    assert "same text as business-1" in str(skipped[1])


def test_sentences_are_not_cut_after_abbreviations_or_initials():
    text = ('Mr. Smith met Dr. Jones in the U.S. Senate. "It went well." Then J. R. Hartley '
            "left! Sales rose 5.5 percent? Yes. 2011 was hard.")
    assert split_sentences(text) == [
        "Mr. Smith met Dr. Jones in the U.S. Senate.", '"It went well."',
        "Then J. R. Hartley left!", "Sales rose 5.5 percent?", "Yes.", "2011 was hard."]


def test_the_split_is_stratified_and_deterministic():
    stories = [make_story(n, category) for category in ("crime", "sports", "fashion")
               for n in range(9)]
    train, test = split_stories(stories, test_share=1 / 3, seed=0)
    assert len(test) == 9 and len(train) == 18
    assert {s.category for s in test} == {"crime", "sports", "fashion"}
    assert all(sum(s.category == c for s in test) == 3 for c in ("crime", "sports", "fashion"))
    assert not {s.id for s in train} & {s.id for s in test}
    assert split_stories(reversed(stories), test_share=1 / 3, seed=0) == (train, test)
    assert split_stories(stories, test_share=1 / 3, seed=1) != (train, test)
    with pytest.raises(ValueError, match="test_share"):
        split_stories(stories, test_share=1.0, seed=0)


# --- sites and the assembled benchmark -----------------------------------------------


def test_site_keys_group_one_publisher():
    assert {site_key(s) for s in ("news.bbc.co.uk", "github-news-cpe/bbc.co.uk_news",
                                  "github-news-msv/bbc", "www.bbc.com")} == {"bbc"}
    assert site_key("entertainment.msn.com") == site_key("money.msn.com") == "msn"
    assert site_key("blogs.nytimes.com") == "nytimes"
    assert site_key("alice.blogspot.com") != site_key("bob.blogspot.com")


def hosts_of(site: str, pages: int, *, name: str, priority: int = 1) -> list[HostPage]:
    return [HostPage(id=f"{site}/{index}.html", site=site, source="made-up",
                     html=host_html(site=name), gold_text=GOLD, priority=priority)
            for index in range(pages)]


@pytest.fixture(scope="module")
def made_up():
    """Stories, test-site pages and training hosts (some of the test site's family)."""
    stories = [make_story(n, category) for category in ("crime", "sports") for n in range(6)]
    test_hosts = hosts_of("entertainment.example.com", 3, name="Example Entertainment")
    train_hosts = [
        *hosts_of("news.example.com", 2, name="Example News"),  # the test site's family
        *hosts_of("github-news-ctf/www.example.com", 2, name="Example", priority=0),
        *hosts_of("www.harbour.org", 3, name="Harbour"),
        *hosts_of("news.harbour.org", 1, name="Harbour News"),  # the same site again
        *[host for n in range(12) for host in hosts_of(f"site{n}.net", 1, name=f"Site {n}")],
        HostPage(id="nogold.net/1.html", site="nogold.net", source="made-up",
                 html=host_html(), gold_text="nothing of this page is here at all"),
    ]
    return stories, test_hosts, train_hosts


def test_training_pages_never_come_from_the_test_family_and_each_site_is_used_once(made_up):
    stories, test_hosts, train_hosts = made_up
    bench = assemble(stories, train_hosts, test_hosts, test_share=0.34, seed=0)
    train = [p for p in bench.pages if p.split == "train"]
    test = [p for p in bench.pages if p.split == "test"]
    assert len(test) == 4 and len(train) == 8  # 2 of 6 per category to test
    assert {p.host.site for p in test} == {"entertainment.example.com"}
    assert bench.test_hosts == 3  # four stories go round three pages
    assert bench.held_out == 4  # news.example.com and the example.com news folder
    keys = [site_key(p.host.site) for p in train]
    assert "example" not in keys
    assert len(keys) == len(set(keys))
    assert {p.name for p in bench.pages} == {s.id for s in stories}
    assert bench.train_unplaced == 0


def test_copies_put_each_training_story_into_other_sites_while_sites_last(made_up):
    stories, test_hosts, train_hosts = made_up
    bench = assemble(stories, train_hosts, test_hosts, test_share=0.34, seed=0, copies=2)
    train = [p for p in bench.pages if p.split == "train"]
    assert len(train) == 13 and bench.train_unplaced == 3  # 16 placements, 13 usable sites
    keys = [site_key(p.host.site) for p in train]
    assert len(keys) == len(set(keys))  # still one page a site
    firsts = [p for p in train if p.copy == 0]
    assert {p.name for p in firsts} == {p.story.id for p in firsts} and len(firsts) == 8
    assert all(p.name == f"{p.story.id}~1" for p in train if p.copy == 1)
    assert [p.copy for p in train] == sorted(p.copy for p in train)  # every story once first
    assert [p for p in bench.pages if p.split == "test"] == [
        p for p in assemble(stories, train_hosts, test_hosts, test_share=0.34, seed=0).pages
        if p.split == "test"]  # the test pages do not change
    with pytest.raises(ValueError, match="copies"):
        assemble(stories, train_hosts, test_hosts, copies=0)


def test_assembly_is_deterministic_for_a_seed(made_up):
    stories, test_hosts, train_hosts = made_up
    records = [[(p.record(), p.html) for p in assemble(
        stories, train_hosts, test_hosts, test_share=0.34, seed=seed).pages]
        for seed in (3, 3, 4)]
    assert records[0] == records[1]
    assert records[0] != records[2]


def test_a_host_without_its_gold_on_the_page_is_skipped(made_up):
    stories, test_hosts, train_hosts = made_up
    only = [h for h in train_hosts if h.site in ("nogold.net", "site0.net")]
    bench = assemble(stories[:3], only, test_hosts, test_share=0.34, seed=0)
    assert [p.host.site for p in bench.pages if p.split == "train"] == ["site0.net"]
    assert bench.hosts_skipped == 1 and bench.pages_skipped == 1
    assert bench.skip_reasons == {"gold text hardly on the page": 1}
    assert bench.train_unplaced == 1  # three stories, two sites, one of them unusable


def test_write_benchmark_writes_pages_keys_and_manifest(made_up, tmp_path):
    stories, test_hosts, train_hosts = made_up
    (tmp_path / "train").mkdir()
    (tmp_path / "train" / "stale.html").write_text("old")
    (tmp_path / "train" / "notes.txt").write_text("mine")
    bench = assemble(stories, train_hosts, test_hosts, test_share=0.34, seed=0)
    write_benchmark(bench, tmp_path)
    for page in bench.pages:
        html = (tmp_path / page.split / f"{page.name}.html").read_text(encoding="utf-8")
        assert html == page.html
        keys = (tmp_path / page.split / f"{page.name}.key").read_text(encoding="utf-8")
        assert keys.splitlines() == list(page.story.keyphrases)
    assert not (tmp_path / "train" / "stale.html").exists()
    assert (tmp_path / "train" / "notes.txt").exists()
    lines = [json.loads(line) for line in (tmp_path / "manifest.jsonl").read_text().splitlines()]
    assert [line["name"] for line in lines] == [p.name for p in bench.pages]
    assert set(lines[0]) >= {"split", "name", "story", "host_page", "host_site"}
    assert not list(tmp_path.rglob(".*"))  # no temporary files left


# --- the real corpora ----------------------------------------------------------------


def test_the_command_refuses_a_bad_share(tmp_path):
    result = CliRunner().invoke(app, [str(tmp_path), "--test-share", "1.5"])
    assert result.exit_code == 2
    assert not list(tmp_path.iterdir())


@pytest.mark.corpus
def test_build_on_the_shared_corpora(tmp_path):
    try:
        for name in ("keyphrases-dev.tar.xz", "sites-dev-news.tar.xz", "content-dev.tar.xz"):
            corpus_path(name)
    except CorpusMissingError as missing:
        pytest.skip(str(missing))
    result = CliRunner().invoke(app, [str(tmp_path), "--seed", "0"])
    assert result.exit_code == 0, result.output
    assert "training pages" in result.stdout
    stories = load_stories()
    lines = [json.loads(line) for line in (tmp_path / "manifest.jsonl").read_text().splitlines()]
    train = [line for line in lines if line["split"] == "train"]
    test = [line for line in lines if line["split"] == "test"]
    assert len(stories) > 300 and len(lines) == len(stories)  # every story found a host
    assert len(test) == pytest.approx(0.33 * len(stories), abs=8)
    assert len({line["host_page"] for line in test}) > 90
    assert {line["host_site"].rsplit("/", 1)[-1] for line in test} == {"entertainment.msn.com"}
    keys = [site_key(line["host_site"]) for line in train]
    assert "msn" not in keys and len(keys) == len(set(keys))
    assert len(list((tmp_path / "train").glob("*.key"))) == len(train)
    assert min(line["f1"] for line in lines) >= 0.5
