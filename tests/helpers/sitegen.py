"""Small hand-written sites with known templates, for the tests."""

from __future__ import annotations

import functools
import random
from typing import TYPE_CHECKING

from denoise.page import Page

if TYPE_CHECKING:
    from denoise.training import TrainingPage

WORDS = (
    "river stone lantern copper meadow harbor violet engine quiet marble thunder orchard "
    "signal pepper velvet canyon ember glacier saddle timber falcon cobalt prairie mirror "
    "compass ribbon walnut beacon tundra lagoon anchor summit cedar maple willow crystal "
    "garnet harvest island jungle kettle ladder magnet needle oyster pillar quarry raven"
).split()

NAV = (
    '<div id="header"><ul class="nav">'
    '<li><a href="/">Home page of the example widget shop</a></li>'
    '<li><a href="/catalog">Browse the complete widget catalog here</a></li>'
    '<li><a href="/contact">Contact our friendly support team today</a></li>'
    "</ul></div>"
)
FOOTER = (
    '<div id="footer"><p>Copyright 2026 Example Widgets Incorporated. '
    "All rights reserved in every country.</p></div>"
)


def sentence(rng: random.Random, words: int = 12) -> str:
    """A made-up sentence of ``words`` words."""
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def article_page(index: int, *, seed: int = 0, extra: str = "", nav: str = NAV,
                 footer: str = FOOTER, docnav: bool = False, site: str = "example.com") -> Page:
    """One page: shared header and footer, a unique article, optional extra HTML."""
    rng = random.Random(seed * 1000 + index)
    title = " ".join(rng.choice(WORDS) for _ in range(4))
    paragraphs = "".join(f"<p>{sentence(rng)} {sentence(rng)}</p>" for _ in range(3))
    bar = ""
    if docnav:
        next_title = f"Gizmo{index + 1} and the Widget{index + 1} manual"
        bar = (f'<div class="docnav"><a href="p{index - 1}.html">Prev</a> '
               f'<a href="index.html">Up</a> Next: <a href="p{index + 1}.html">Chapter '
               f"{index + 1}. {next_title}</a></div>")
    html = (
        f"<html><head><title>{title}</title><script>var x = 1;</script></head><body>"
        f"{nav}<div id=\"main\"><h1>Story {index}: {title}</h1>{paragraphs}{extra}</div>"
        f"{bar}{footer}</body></html>"
    )
    return Page(id=f"p{index}.html", html=html, url=f"http://{site}/p{index}.html", site=site)


def article_site(pages: int = 20, **kwargs: object) -> list[Page]:
    """``pages`` article pages of one site."""
    return [article_page(i, **kwargs) for i in range(pages)]  # type: ignore[arg-type]


# --- many sites, each with its own template and layout, for the page-level model --------

SITE_NAMES = ("acme", "globex", "initech", "umbrella", "hooli", "vandelay", "wonka", "stark",
              "tyrell", "cyberdyne")
MENU_ITEMS = ("Home", "About us", "Contact", "Products", "Services", "Blog", "News", "Careers",
              "Support", "Shop", "Events", "Help")


def site_host(number: int) -> str:
    """Host of generated site ``number``; every number is a site family of its own."""
    suffix = number // len(SITE_NAMES) or ""
    return f"www.{SITE_NAMES[number % len(SITE_NAMES)]}{suffix}.com"


def site_template(number: int) -> tuple[str, str]:
    """Navigation and footer HTML of generated site ``number``: its own words and
    markup, with menu words and copyright phrases common across sites."""
    rng = random.Random(7919 * (number + 1))
    name = site_host(number)[4:-4].capitalize()
    links = [f'<a href="/{item.lower().replace(" ", "-")}">{item} at {name}</a>'
             for item in rng.sample(MENU_ITEMS, 6)]
    style = number % 3
    if style == 0:
        nav = ('<div id="header"><ul class="nav">'
               + "".join(f"<li>{link}</li>" for link in links) + "</ul></div>")
        footer = (f'<div id="footer"><p>Copyright {2000 + number} {name} Limited. '
                  "All rights reserved. Privacy policy and terms of use.</p></div>")
    elif style == 1:
        nav = '<nav class="menu">' + " | ".join(links) + "</nav>"
        footer = (f"<footer><p>&copy; {name} {2010 + number}. All rights reserved. "
                  '<a href="/privacy">Privacy policy</a> <a href="/terms">Terms of use</a>'
                  "</p></footer>")
    else:
        nav = ('<table class="topbar"><tr>' + "".join(f"<td>{link}</td>" for link in links)
               + "</tr></table>")
        footer = (f'<div class="copyright">{name} Corporation, all rights reserved. '
                  f'<a href="/contact">Contact {name}</a> about this site.</div>')
    return nav, footer


def site_page(number: int, index: int) -> Page:
    """Page ``index`` of generated site ``number``: the site's navigation and footer
    around a unique article (a heading and 2 to 4 paragraphs), laid out in one of
    three ways (wrapped in a ``div``, bare in the body, in a table cell)."""
    rng = random.Random(number * 1000 + index)
    nav, footer = site_template(number)
    heading = " ".join(rng.choice(WORDS) for _ in range(5)).capitalize()
    paragraphs = "".join(
        f"<p>{' '.join(sentence(rng, rng.randint(8, 16)) for _ in range(rng.randint(2, 4)))}</p>"
        for _ in range(rng.randint(2, 4)))
    article = f"<h2>{heading}</h2>{paragraphs}"
    layout = (number // 3) % 3
    if layout == 0:
        article = f'<div id="main">{article}</div>'
    elif layout == 2:
        article = f'<table><tr><td class="body-text">{article}</td></tr></table>'
    html = (f"<html><head><title>{heading}</title></head><body>{nav}{article}{footer}"
            "</body></html>")
    host = site_host(number)
    return Page(id=f"p{index}.html", html=html, url=f"http://{host}/p{index}.html", site=host)


def generated_site(number: int, pages: int = 12) -> list[Page]:
    """``pages`` pages of generated site ``number``."""
    return [site_page(number, index) for index in range(pages)]


@functools.cache
def labelled_pages(sites: int = 6, pages: int = 10) -> tuple[TrainingPage, ...]:
    """The pages of generated sites ``0 .. sites - 1`` with their site-level labels (made
    once a test session: the page-level model tests train on them)."""
    from denoise.training import training_pages

    site_pages = [page for number in range(sites) for page in generated_site(number, pages)]
    return tuple(training_pages(site_pages, min_pages=5))
