"""``<noscript>``: dropped as a notice, kept where a script-drawn page put its content."""

from __future__ import annotations

from denoise import Page, clean
from denoise.html import NOSCRIPT_CHARS, parse_html

POST = ("I measured the pier after the January storm and the seaward end had moved about "
        "four centimetres, which the harbour engineers say is within the safe range. ")


def text_of(html: str) -> str:
    return " ".join("".join(parse_html(html).itertext()).split())


def test_a_notice_in_noscript_is_dropped():
    html = (f"<html><body><noscript><p>Please enable JavaScript to use this site.</p>"
            f'<img src="/pixel.gif"></noscript><article><p>{POST}</p></article></body></html>')
    assert "JavaScript" not in text_of(html) and POST.strip() in text_of(html)


def test_a_script_drawn_page_keeps_what_it_put_in_noscript():
    # A forum that draws its threads with scripts and serves them to readers without
    # scripts inside <noscript>: the noscript text is most of the page's text.
    posts = "".join(f'<div class="post"><p>{POST} Reply {i}.</p></div>' for i in range(3))
    html = (f'<html><head><title>Pier thread</title></head><body><div id="app"></div>'
            f'<script>window.app = {{}};</script><noscript><div class="crawler-view">'
            f"<h1>Pier movement after the storm</h1>{posts}</div></noscript>"
            f'<footer><a href="/about">About</a></footer></body></html>')
    assert len(POST) * 3 >= NOSCRIPT_CHARS
    assert text_of(html).count(POST.strip()) == 3
    kept = clean(Page(id="thread.html", html=html, url="https://forum.example.org/t/1",
                      site="forum.example.org")).text
    assert POST.strip() in kept


def test_noscript_is_kept_only_when_it_outweighs_the_page():
    article = f"<article><p>{POST * 3}</p></article>"
    html = f"<html><body>{article}<noscript><p>{POST}</p></noscript></body></html>"
    assert text_of(html).count(POST.strip()) == 3  # the article's three, not the fourth


def test_tags_written_as_text_in_noscript_are_not_content():
    # A page saved from a browser running its scripts: each noscript's tags were
    # serialised as text, and together they outweigh the article's text.
    pixel = ('<noscript>&lt;div style="position:absolute;"&gt;&lt;img width=1 height=1 '
             'src="https://beacon.example.com/b?P=' + "x" * 300 + '"&gt;&lt;/div&gt;</noscript>')
    html = f"<html><body>{pixel * 4}<article><p>{POST}</p></article>{pixel * 4}</body></html>"
    assert text_of(html) == POST.strip()
