"""Small hand-written sites with known templates, for the tests."""

from __future__ import annotations

import random

from denoise.page import Page

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
