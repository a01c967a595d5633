"""A page's metadata from its own markup: title, authors, publication date, site name,
language, canonical URL, description (issue 30).

Each field is taken from the most deliberate statement the page makes of it, in this
order, and the first that gives a usable value wins:

1. **schema.org JSON-LD** (``<script type="application/ld+json">``): what publishers
   write for search engines; the article-like object of the page (``Article``,
   ``NewsArticle``, ``BlogPosting``, ``Product``, ... also inside ``@graph``):
   ``headline`` / ``name``, ``author``, ``datePublished``, ``publisher``,
   ``inLanguage``.
2. **meta tags**: Open Graph (``og:title``, ``og:site_name``, ``article:published_time``,
   ``og:locale``), Dublin Core and the common CMS names (``author``, ``parsely-*``,
   ``sailthru.*``, ``pubdate``, ``date``...).
3. **microdata and markup**: ``itemprop`` (``author``, ``datePublished``,
   ``headline``), ``rel="author"`` links, ``<time datetime>``, elements whose class or
   id says byline or author, a date in the page's URL (``/2024/05/17/``), then the
   ``<h1>`` and ``<title>``.

Choices, and why:

- The **title** is the article's headline, not the ``<title>``: a headline stated in
  JSON-LD, else an ``<h1>`` that shares most of its words with the ``<title>`` or
  ``og:title`` (the page's own main heading), else ``og:title`` or the ``<title>``
  without the site's name (the segment after `` | `` or `` - `` that names the site, or
  is shorter than the rest), else the first ``<h1>``.
- **Authors** are people's names: "By", "Written by", roles after a comma (", Staff
  Writer") and e-mail addresses are removed; organisations named as authors are kept
  only when no person is named; several authors are joined by ", ".
- The **date** is the publication date as ``YYYY-MM-DD`` (a modification date only when
  nothing else is given). Dates written out ("May 17, 2024", "17 May 2024") are read in
  English; a day-first or month-first numeric date ("05/06/2024") is left alone, as it
  is ambiguous.
- The **language** is what the text is written in, as :func:`denoise.language.detect_language`
  tells it from the main text (or, without one, the body's text) and the page's declared
  language (``<html lang>``, ``content-language``, ``og:locale``, JSON-LD's
  ``inLanguage``; the primary subtag, ``en`` of ``en-US``): templates often declare
  English over text in another language.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urljoin

from lxml import etree

from denoise.arguments import expect_page
from denoise.head import declared_language
from denoise.html import parse_html
from denoise.language import SAMPLE_CHARS, detect_language, primary_subtag
from denoise.page import Page

__all__ = ["Metadata", "extract_metadata", "page_metadata"]

_ARTICLE_TYPES = {
    "article", "newsarticle", "blogposting", "reportagenewsarticle", "analysisnewsarticle",
    "opinionnewsarticle", "reviewnewsarticle", "scholarlyarticle", "techarticle",
    "socialmediaposting", "liveblogposting", "report", "review", "recipe", "howto",
    "product", "webpage", "itempage", "aboutpage", "faqpage", "qapage", "medicalwebpage",
    "event", "course", "videoobject", "podcastepisode", "creativework", "discussionforumposting",
}
_PAGE_TYPES = {"webpage", "itempage", "aboutpage", "faqpage", "qapage", "medicalwebpage",
               "collectionpage", "searchresultspage", "profilepage", "website"}
_AUTHOR_META = ("author", "article:author", "parsely-author", "sailthru.author", "dc.creator",
                "dcterms.creator", "byl", "citation_author", "book:author")
_DATE_META = ("article:published_time", "og:published_time", "published_time",
              "datepublished", "pubdate", "publishdate", "publish_date", "publish-date",
              "parsely-pub-date", "sailthru.date", "dc.date.issued", "dcterms.issued",
              "dc.date", "dcterms.date", "date", "citation_publication_date",
              "citation_date", "article.published", "og:article:published_time",
              "article:published", "cxenseparse:recs:publishtime", "published",
              "publication_date", "release_date")
_MODIFIED_META = ("article:modified_time", "og:updated_time", "datemodified",
                  "dcterms.modified", "last-modified")
_BYLINE = re.compile(r"\b(?:by[-_ ]?line|author|byline|writer|contributor)", re.I)
_DATE_CLASS = re.compile(r"(?:date|time|publish|posted|dateline|timestamp)", re.I)
_BY = re.compile(r"^\s*(?:(?:written|posted|published|reviewed|reported|words|story)\s+)?"
                 r"(?:by|from)\s*:?\s+", re.I)
_EMAIL = re.compile(r"\S+@\S+")
_SEPARATORS = re.compile(r"\s+(?:[|\u2013\u2014\u00b7\u2022:]|-|::|\u00bb|/)\s+")
_ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_SLASHED_YMD = re.compile(r"\b(\d{4})[/.](\d{1,2})[/.](\d{1,2})\b")
_DOTTED_DMY = re.compile(r"\b(\d{1,2})\.(\d{1,2})\.((?:19|20)\d{2})\b")  # 23.07.2025: day first
_SCRIPT_DATE = re.compile(r'"(?:datePublished|publishDate|publishedDate|published_at|publishedAt|'
                          r'publish_date|pubDate|firstPublished|first_published_at)"\s*:\s*'
                          r'"([^"]{8,40})"')
_URL_DATE = re.compile(r"/((?:19|20)\d{2})[/-](\d{1,2})[/-](\d{1,2})(?:/|$|[-_])")
_MONTHS = {name: number for number, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
    ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
    ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
    ("december", "dec")), 1) for name in names}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_MDY = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+((?:19|20)\d{{2}})\b",
                  re.I)
_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\.?,?\s+"
                  r"((?:19|20)\d{2})\b", re.I)
_WORD = re.compile(r"\w+")
#: Values of author fields that name nobody (placeholders, form labels, site roles).
_NOT_NAMES = {"undefined", "null", "none", "admin", "administrator", "webmaster", "name",
              "guest", "anonymous", "unknown", "author", "staff"}
#: First words of a link or button's text, never of a name ("Write a Review").
_ACTION_WORDS = {"write", "visit", "view", "see", "read", "follow", "contact", "shop",
                 "sign", "log", "subscribe", "share", "more", "all", "click"}
FORM_CHARS = 1000
_AUTHOR_LINK = re.compile(r"/(?:author|authors|writer|writers|contributor|contributors)/",
                          re.I)
_ROLE_WORDS = {"editor", "writer", "reporter", "correspondent", "staff", "contributor",
               "columnist", "expert", "author", "journalist", "producer", "analyst",
               "md", "phd", "rd", "senior", "associate", "managing", "news"}


@dataclass(frozen=True, slots=True)
class Metadata:
    """What a page says of itself; an empty string where it says nothing usable."""

    title: str = ""
    author: str = ""
    date: str = ""  # YYYY-MM-DD
    site_name: str = ""
    language: str = ""
    url: str = ""  # canonical
    description: str = ""

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def extract_metadata(page: Page, text: str | None = None) -> Metadata:
    """The metadata of ``page`` (parsed here, its scripts kept for their JSON-LD, its
    hidden elements for their microdata: search engines read what a page hides);
    ``text``, its main text where the caller has it, tells its language. Raises
    :class:`~denoise.errors.PageError` for a page that cannot be parsed."""
    page = expect_page(page, "extract_metadata")
    root = parse_html(page.html, page.id, dropped=("style", "noscript", "template"),
                      hidden_elements=True)
    return page_metadata(root, page.url, text)


def page_metadata(root: etree._Element, url: str | None = None,
                  text: str | None = None) -> Metadata:
    """The metadata of a parsed page whose ``<script>`` elements were kept; its
    language is told by ``text`` (its main text), else by its body's text."""
    metas = _metas(root)
    linked = _json_ld(root)
    main = _main_object(linked)
    site_name = (_text(metas.get("og:site_name")) or _publisher(main, linked)
                 or _text(metas.get("application-name")))
    return Metadata(
        title=_title(root, metas, main, site_name),
        author=_author(root, metas, main),
        date=_date(root, metas, main, url),
        site_name=site_name,
        language=detect_language(_body_text(root) if text is None else text,
                                 _language(root, metas, main)),
        url=_canonical(root, metas, url),
        description=_text(metas.get("description") or metas.get("og:description")
                          or metas.get("twitter:description")),
    )


# -- reading the markup ---------------------------------------------------------------
def _text(value: object) -> str:
    """``value`` as one line of text in Unicode's form C, as the page text
    (:mod:`denoise.blocks`)."""
    return unicodedata.normalize("NFC", " ".join(str(value).split())) if value else ""


def _element_text(element: etree._Element) -> str:
    return _text("".join(element.itertext()))


def _metas(root: etree._Element) -> dict[str, str]:
    """Meta tags by lower-cased name, property or itemprop: the first non-empty each."""
    found: dict[str, str] = {}
    for meta in root.iter("meta"):
        content = meta.get("content")
        if not content or not content.strip():
            continue
        for key in ("name", "property", "itemprop", "http-equiv"):
            name = (meta.get(key) or "").strip().lower()
            if name:
                found.setdefault(name, content.strip())
    return found


def _json_ld(root: etree._Element) -> list[dict[str, Any]]:
    """Every object of the page's JSON-LD blocks, ``@graph`` members included."""
    objects: list[dict[str, Any]] = []
    for script in root.iter("script"):
        if "ld+json" not in (script.get("type") or "").lower() or not script.text:
            continue
        try:
            data = json.loads(script.text.strip().rstrip(";"), strict=False)
        except ValueError:
            continue
        stack = [data]
        while stack:
            item = stack.pop()
            if isinstance(item, list):
                stack.extend(reversed(item))
            elif isinstance(item, dict):
                objects.append(item)
                if isinstance(item.get("@graph"), list):
                    stack.extend(reversed(item["@graph"]))
    return objects


def _types(item: dict[str, Any]) -> set[str]:
    kind = item.get("@type")
    kinds = kind if isinstance(kind, list) else [kind]
    return {str(k).lower() for k in kinds if k}


def _main_object(objects: list[dict[str, Any]]) -> dict[str, Any]:
    """The article-like object the page is about: the first of an article type, else
    the first page type, else nothing."""
    for wanted in (_ARTICLE_TYPES - _PAGE_TYPES, _PAGE_TYPES & _ARTICLE_TYPES):
        for item in objects:
            if _types(item) & wanted:
                return item
    return {}


def _names(value: object, *, people_only: bool) -> list[str]:
    """Names in a JSON-LD author value (a string, an object with a name, a list)."""
    values = value if isinstance(value, list) else [value]
    names = []
    for item in values:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, dict):
            if people_only and "organization" in _types(item):
                continue
            name = item.get("name")
            if isinstance(name, str):
                names.append(name)
    return [_text(n) for n in names if _text(n) and not n.strip().startswith("http")]


def _publisher(main: dict[str, Any], objects: list[dict[str, Any]]) -> str:
    publisher = main.get("publisher")
    names = _names(publisher, people_only=False) if publisher else []
    if names:
        return names[0]
    for item in objects:
        if _types(item) & {"website", "organization", "newsmediaorganization"}:
            name = item.get("name")
            if isinstance(name, str) and name.strip():
                return _text(name)
    return ""


# -- title ----------------------------------------------------------------------------
def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _without_site(title: str, site_name: str) -> str:
    """``title`` without the segment naming the site (`` | Site``, ``Site - ``)."""
    parts = _SEPARATORS.split(title)
    if len(parts) < 2:
        return title
    site = _words(site_name)
    if site:
        kept = [p for p in parts if not (_words(p) and _words(p) <= site)]
        if kept and len(kept) < len(parts):
            return " - ".join(kept) if len(kept) > 1 else kept[0]
    return max(parts, key=len)  # the headline is the longest segment


def _title(root: etree._Element, metas: dict[str, str], main: dict[str, Any],
           site_name: str) -> str:
    headline = main.get("headline") or (main.get("name") if _types(main) - _PAGE_TYPES
                                        else None)
    if isinstance(headline, str) and _text(headline):
        return _text(headline)
    element = root.find(".//head/title")
    page_title = _text(element.text) if element is not None else ""
    og = _text(metas.get("og:title") or metas.get("twitter:title"))
    headings = [_element_text(h) for h in root.iter("h1")]
    headings = [h for h in headings if h]
    reference = _words(og or page_title)
    for heading in headings:
        words = _words(heading)
        if words and reference and len(words & reference) >= 0.6 * len(words):
            return heading
    if og:
        return _without_site(og, site_name)
    if page_title:
        return _without_site(page_title, site_name)
    return headings[0] if headings else ""


# -- author ---------------------------------------------------------------------------
def _spaced_text(element: etree._Element) -> str:
    """An element's text with its parts spaced: a byline's "By" and its name are often
    separate elements with no space between them."""
    return " ".join(" ".join(element.itertext()).split())


def _clean_author(text: str) -> str:
    text = _EMAIL.sub("", _BY.sub("", _text(text)))
    text = re.split(r"\s*(?:\||\blast\s+updated\b|\bupdated\b|\bpublished\b|\bposted\b"
                    r"|\bon\s+\w+day\b)", text, maxsplit=1, flags=re.I)[0]
    parts = [p.strip(" ,;:-") for p in re.split(r",|\s+and\s+|\s*&\s*", text)]
    names = []
    for part in parts:
        words = part.split()
        if not words or len(words) > 5 or any(c.isdigit() for c in part):
            continue
        if {w.lower().strip(".") for w in words} & _ROLE_WORDS:
            continue
        if (part.lower() in _NOT_NAMES or part.endswith("*")
                or words[0].lower() in _ACTION_WORDS):
            continue
        names.append(part)
    return ", ".join(dict.fromkeys(names))


def _author(root: etree._Element, metas: dict[str, str], main: dict[str, Any]) -> str:
    if main.get("author"):
        for people_only in (True, False):
            names = [_clean_author(n) for n in _names(main["author"], people_only=people_only)]
            if any(names):
                return ", ".join(dict.fromkeys(n for n in names if n))
    handle = ""  # a user name ("jdoe", "j.doe") is kept only when no name is found
    for name in _AUTHOR_META:
        value = metas.get(name)
        if value and not value.startswith(("http", "@")):
            cleaned = _clean_author(value)
            if cleaned and " " not in cleaned:
                handle = handle or cleaned
            elif cleaned:
                return cleaned
    for found in (_marked_author(root), _byline(root)):
        if found:
            return found
    return handle


def _in_small_form(element: etree._Element) -> bool:
    """Whether ``element`` sits in a form of little text: a comment form, whose "Name *"
    field is marked author too (some sites wrap the whole page in one form)."""
    form = next(element.iterancestors("form"), None)
    return form is not None and len(_element_text(form)) < FORM_CHARS


def _marked_author(root: etree._Element) -> str:
    """A name marked as the author: ``itemprop="author"``, ``rel="author"``, or a link to
    an author's page."""
    for element in root.iter(etree.Element):
        itemprop = (element.get("itemprop") or "").lower()
        link = element.tag == "a" and ("author" in (element.get("rel") or "").lower()
                                       or _AUTHOR_LINK.search(element.get("href") or ""))
        if (itemprop == "author" or link) and not _in_small_form(element):
            inner = element.find('.//*[@itemprop="name"]')
            text = (inner.get("content") or _spaced_text(inner)) if inner is not None else (
                element.get("content") or _spaced_text(element))
            cleaned = _clean_author(text)
            if cleaned:
                return cleaned
    return ""


def _byline(root: etree._Element) -> str:
    """The text of a short element whose class or id says byline or author."""
    for element in root.iter(etree.Element):
        cue = f"{element.get('class') or ''} {element.get('id') or ''}"
        if (_BYLINE.search(cue) and element.tag not in ("html", "body", "article", "main")
                and not _in_small_form(element)):
            text = _spaced_text(element)
            if 0 < len(text) <= 80:
                cleaned = _clean_author(text)
                if cleaned:
                    return cleaned
    return ""


# -- date -----------------------------------------------------------------------------
def parse_date(text: str) -> str:
    """``YYYY-MM-DD`` of the first unambiguous date in ``text``, or ""."""
    for pattern, order in ((_ISO, "ymd"), (_SLASHED_YMD, "ymd"), (_MDY, "mdy"),
                           (_DMY, "dmy"), (_DOTTED_DMY, "dmy")):
        match = pattern.search(text)
        if not match:
            continue
        parts = dict(zip(order, match.groups(), strict=True))
        month = parts["m"]
        number = _MONTHS.get(month.lower().rstrip(".")) if not month.isdigit() else int(month)
        year, day = int(parts["y"]), int(parts["d"])
        if number and 1 <= number <= 12 and 1 <= day <= 31 and 1990 <= year <= 2100:
            return f"{year:04d}-{number:02d}-{day:02d}"
    return ""


def _date(root: etree._Element, metas: dict[str, str], main: dict[str, Any],
          url: str | None) -> str:
    """The first of the page's date statements that reads as a date."""
    for value in _date_statements(root, metas, main, url):
        found = parse_date(value) if isinstance(value, str) else ""
        if found:
            return found
    return ""


def _date_statements(root: etree._Element, metas: dict[str, str], main: dict[str, Any],
                     url: str | None) -> Iterator[object]:
    """What may state the publication date, most deliberate first (made lazily: the
    first that reads as a date ends the search)."""
    yield from (main.get(key) for key in ("datePublished", "dateCreated", "uploadDate",
                                          "startDate"))
    yield from (metas.get(name) for name in _DATE_META)
    for element in root.iter(etree.Element):
        if (element.get("itemprop") or "").lower() in ("datepublished", "datecreated"):
            yield element.get("content") or element.get("datetime") or _element_text(element)
    times = list(root.iter("time"))
    yield from (t.get("datetime") for t in times if t.get("pubdate") is not None
                or "publish" in (t.get("class") or "").lower())
    yield from (t.get("datetime") for t in times)
    for script in root.iter("script"):
        match = _SCRIPT_DATE.search(script.text or "")
        if match:
            yield match.group(1)
    match = _URL_DATE.search(url or "")
    if match:
        yield "-".join(match.groups())
    yield _date_line(root)
    for element in root.iter(etree.Element):
        cue = f"{element.get('class') or ''} {element.get('id') or ''}"
        if _DATE_CLASS.search(cue) and element.tag not in ("html", "body"):
            text = _element_text(element)
            if len(text) <= 100:
                yield text
    yield main.get("dateModified")  # a modification date only when nothing else is said
    yield from (metas.get(name) for name in _MODIFIED_META)


def _date_line(root: etree._Element) -> str:
    """The first short element after the page's first ``<h1>`` (or in the body, without
    one) whose text is a date and little else ("April 8, 2024", "Posted 23.07.2025"):
    where a byline's date sits."""
    started = root.find(".//h1") is None
    for element in root.iter(etree.Element):
        if element.tag == "h1":
            started = True
            continue
        if not started or element.tag in ("script", "style", "head"):
            continue
        text = " ".join((element.text or "").split())
        if element.tag == "time":
            text = _element_text(element)
        if not text or len(text) > 40:
            continue
        found = parse_date(text)
        if found and sum(c.isalnum() for c in text) <= 2.5 * len(found):
            return found
    return ""


# -- language, canonical URL ------------------------------------------------------------
def _language(root: etree._Element, metas: dict[str, str], main: dict[str, Any]) -> str:
    """The language the page declares (a primary subtag), "" if none."""
    for value in (declared_language(root), metas.get("content-language"),
                  metas.get("og:locale"), metas.get("language"), main.get("inLanguage")):
        if isinstance(value, str) and (primary := primary_subtag(value)):
            return primary
    return ""


def _body_text(root: etree._Element) -> str:
    """The body's first text, to :data:`~denoise.language.SAMPLE_CHARS` characters,
    scripts left out."""
    parts: list[str] = []
    size = 0
    for piece in root.xpath("//body//text()[not(ancestor::script)]"):
        piece = " ".join(piece.split())
        if piece:
            parts.append(piece)
            size += len(piece) + 1
            if size >= SAMPLE_CHARS:
                break
    return " ".join(parts)


def _canonical(root: etree._Element, metas: dict[str, str], url: str | None) -> str:
    for link in root.iter("link"):
        if "canonical" in (link.get("rel") or "").lower().split() and link.get("href"):
            return urljoin(url or "", link.get("href").strip())
    if metas.get("og:url"):
        return urljoin(url or "", metas["og:url"])
    return url or ""
