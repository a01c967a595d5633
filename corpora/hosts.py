"""Host pages for the benchmark builders, and which site (publisher) a page belongs to.

A host page (:class:`HostPage`) is a real page with a gold main text, so that its main
element can be found and replaced (:mod:`corpora.placement`) while its template stays.

Choices, and why:

- **Site identity** (:func:`site_key`). A site is its registrable domain reduced to the
  publisher's name by :func:`denoise.validation.site_family`: ``news.bbc.co.uk``,
  ``bbc.co.uk_news`` and ``bbc`` are one site, so are every era and corpus of a news
  site. ``*.co.uk``-style second levels and blog hosts (``alice.blogspot.com``) keep one
  more label, so two blogs of one host stay two sites.
- **Dev site hosts** (:func:`site_hosts`): the pages of ``sites-dev-news`` (human-
  extracted main text) and ``sites-dev-docs`` (the main-content XPath) with a non-empty
  gold, their site being their folder.
- **Content hosts** (:func:`content_hosts`): the ``content-dev`` pages with a gold main
  text: ``chaos`` (query results from ~240 sites), ``dragnet``, ``readability``,
  ``cleaneval-dev``, ``cleaneval-final``. Their site is the page URL's host, else the
  page's canonical / ``og:url`` / ``<base>`` URL (:func:`page_url`); pages with neither
  are left out (their site is unknown, so it could repeat another). trafilatura's set
  is not used: its gold is a few snippets, which cannot tell the main element apart
  from a paragraph of it.
- **Seeded choices** (:func:`rank`): a BLAKE2 digest of the seed and the item's name, so
  a build is the same for a seed on any machine and adding one item moves no other.
"""

from __future__ import annotations

import hashlib
import html as html_module
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from corpora.content import iter_content_pages
from corpora.sites import docs_main_xpaths, news_gold_texts
from denoise.evaluate import xpath_main_text
from denoise.page import site_of
from denoise.reader import Skipped, read_pages
from denoise.validation import site_family

#: content-dev sets with a gold main text (trafilatura's gold is snippets: not used).
CONTENT_SETS = ("chaos", "dragnet", "readability", "cleaneval-dev", "cleaneval-final")

_URL_TAG = re.compile(r"<(?:link|meta|base)\b[^>]*>", re.I)
_URL_KIND = re.compile(r"""\brel\s*=\s*["']?canonical\b|\bproperty\s*=\s*["']?og:url\b|^<base\b""",
                       re.I)
_ABSOLUTE_URL = re.compile(r"""\b(?:href|content)\s*=\s*["']?(https?://[^"'\s>]+)""", re.I)
_HOST = re.compile(r"^[a-z0-9-]+(?:\.[a-z0-9-]+)+$")
_SECOND_LEVEL = frozenset("ac co com edu gob gov go mil ne net nic or org".split())
_SHARED_HOSTING = frozenset("blogspot.com github.io wordpress.com tumblr.com typepad.com "
                            "livejournal.com tripod.com geocities.com angelfire.com".split())


@dataclass(frozen=True, slots=True, kw_only=True)
class HostPage:
    """A real page whose main content a story replaces, with the gold that locates it."""

    id: str
    site: str
    html: str
    gold_text: str
    source: str  # the corpus or set it comes from
    priority: int = 1  # a builder may take lower priorities first (keyword_bench does)


def rank(seed: int, *parts: str) -> bytes:
    """A seeded, order-free random rank: the same on every machine and Python version."""
    return hashlib.blake2b("\x1f".join((str(seed), *parts)).encode(), digest_size=8).digest()


def site_key(site: str) -> str:
    """The publisher behind a site: a host's registrable domain (``*.co.uk``, blog hosts
    taken into account) reduced by :func:`denoise.validation.site_family`, so
    ``news.bbc.co.uk``, the folder ``bbc.co.uk_news`` and ``bbc`` are one site."""
    name = site.rstrip("/").rsplit("/", 1)[-1].lower()
    if _HOST.match(name) and not name.replace(".", "").isdigit():
        labels = name.split(".")
        keep = 2
        if len(labels) >= 3 and (".".join(labels[-2:]) in _SHARED_HOSTING or (
                labels[-2] in _SECOND_LEVEL and len(labels[-1]) == 2)):
            keep = 3
        name = ".".join(labels[-keep:])
    return site_family(name)


def page_url(html: str, url: str | None = None) -> str | None:
    """``url``, else the page's canonical, ``og:url`` or ``<base>`` URL (absolute only)."""
    if url:
        return url
    for tag in _URL_TAG.finditer(html, 0, 65536):
        found = _ABSOLUTE_URL.search(tag.group(0))
        if found and _URL_KIND.search(tag.group(0)):
            return html_module.unescape(found.group(1))
    return None


def content_hosts(sets: Sequence[str] = CONTENT_SETS, *,
                  skipped: list[Skipped] | None = None) -> Iterator[HostPage]:
    """The ``content-dev`` pages with a gold main text and a known site."""
    for page in iter_content_pages(sets, skipped=skipped):
        site = site_of(page_url(page.html, page.url))
        source = f"{page.set_name}:{page.page_id}"
        if page.gold_text is None or not site:
            if skipped is not None:
                skipped.append(Skipped(source, "no URL: its site is unknown"
                                       if page.gold_text else "no gold main text"))
            continue
        yield HostPage(id=f"content-dev/{page.set_name}/{page.page_id}", site=site,
                       html=page.html, gold_text=page.gold_text, source=page.set_name)


def site_hosts(archive: str | Path, *, priority: int = 0,
               sites: Iterable[str] | None = None) -> Iterator[HostPage]:
    """Pages of a dev site archive with gold main text (news: human extraction; docs:
    the main-content XPath), of the named ``sites`` only when given (site folder path
    or its last part, e.g. ``entertainment.msn.com``). Read as a stream: one page in
    memory at a time (the docs archive alone decodes to a few hundred megabytes)."""
    wanted = set(sites) if sites is not None else None
    path = Path(archive)
    news_gold = news_gold_texts()
    xpaths = docs_main_xpaths()
    for page in read_pages([path]):
        if isinstance(page, Skipped) or (wanted is not None and page.site not in wanted
                                         and page.site.rsplit("/", 1)[-1] not in wanted):
            continue
        gold = news_gold.get(page.id)
        if page.site in xpaths:
            text = xpath_main_text(page.html, xpaths[page.site])
            gold = gold if text is None else text
        if gold and gold.strip():
            yield HostPage(id=page.id, site=page.site, html=page.html, gold_text=gold,
                           source=_archive_name(path), priority=priority)


def _archive_name(path: Path) -> str:
    return path.name.split(".tar")[0]
