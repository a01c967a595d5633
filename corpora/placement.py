"""A story in place of a real page's main content, the page's template kept.

:func:`place_story` finds the element holding a page's main content from the page's
gold main text and replaces its children with a story's title and paragraphs. The
benchmark builders (:mod:`corpora.keyword_bench`, :mod:`corpora.dup_bench`) make
their pages with it; anything with a ``title`` and ``paragraphs()`` (:class:`Placeable`,
e.g. :class:`Text`) can be placed.

Choices, and why:

- **Placement** (:func:`place_story`). The element holding the page's main content is
  found from the gold text in one walk: text is cut into runs at block boundaries; a run
  (or failing that, one of its text nodes) of at least three words whose normalised text
  occurs in the normalised gold is gold; gold and all characters are summed per subtree;
  the element with the best F1 of gold coverage (precision = gold share of its text,
  recall = its share of the page's gold) wins, the innermost on ties. Hosts where it is
  below :data:`MIN_F1`, where the gold is hardly on the page, or where less than
  :data:`MIN_TEMPLATE_CHARS` characters of text stay around it (no template to speak
  of) are refused (:class:`PlacementError`). The element's children become the story:
  an ``<h1>`` title and ``<p>`` paragraphs of :data:`SENTENCES_PER_PARAGRAPH` sentences
  (:func:`paragraphs`: the stories are mostly one long line); its attributes stay, so
  the site's styles apply. Elements that may not hold headings and paragraphs (``p``,
  ``span``, ``table``, ...) become a ``div``, and one inside a ``p`` or heading takes
  that ancestor's place.
- **The old article elsewhere on the page.** The first ``<h1>`` outside the element that
  holds gold text (the old headline) gets the story title, and then the story's own
  ``<h1>`` is left out (a page shows its headline once); other gold text outside the
  element (byline, captions, a headline in a ``<font>``) is removed: it is neither the
  story nor the site's template. The ``<title>`` becomes the story title, keeping a site
  name the old title had before or after a separator (`` - MSN Entertainment``); meta
  descriptions, keywords and their Open Graph / Twitter / Dublin Core kin are removed
  (they describe the old article).
- **Clean pages.** The Wayback Machine toolbar (a capture artefact, see the corpora
  README), scripts, ``noscript``, templates and comments are dropped; styles stay. The
  page declares ``<meta charset="utf-8">``; callers write it as UTF-8. :func:`clean_page`
  does the same to a page without placing anything, so a benchmark's real pages can be
  written as its placed pages are.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Protocol

from lxml import etree

MIN_F1 = 0.5  # the main element must cover the gold at least this well
MIN_GOLD_CHARS = 200  # gold text found on the page, or the page is not the gold's
MIN_TEMPLATE_CHARS = 100  # text left around the main element, or there is no template
MIN_WORDS = 3  # a text run shorter than this is never matched against the gold
SENTENCES_PER_PARAGRAPH = 3
MAX_NAME_WORDS = 6  # a longer title segment is not a site or section name

# Elements whose boundaries cut text runs (as corpora.content.html_text reads pages).
_BLOCK_TAGS = frozenset(
    "address article aside blockquote body br caption center dd details dialog dir div dl dt "
    "fieldset figcaption figure footer form frame h1 h2 h3 h4 h5 h6 header hr html iframe "
    "img input legend li main menu nav ol option p pre section select summary table tbody "
    "td textarea tfoot th thead title tr ul".split()
)
_NO_TEXT_TAGS = frozenset(("style", "head", "title", "textarea"))
# May hold an <h1> and paragraphs as they are; another chosen element becomes a div.
_CONTAINERS = frozenset(
    "div td th article main section aside center blockquote li dd form header footer "
    "figure fieldset nav".split()
)
# Never chosen: the page itself, or elements that cannot become a div in place.
_NOT_CHOSEN = frozenset(
    "html head body tr tbody thead tfoot colgroup col option optgroup select br hr img "
    "input textarea iframe frame frameset area map caption legend".split()
)
_AUTO_CLOSED = frozenset(("p", "h1", "h2", "h3", "h4", "h5", "h6"))  # a div inside closes them
_DROPPED = ("script", "noscript", "template")
_OLD_META = re.compile(r"^(?:og:|twitter:|dc\.|dcterms\.|article:)?"
                       r"(?:title|description|keywords|news_keywords|subject|abstract|tag)$")
_WAYBACK_TOOLBAR = re.compile(  # as denoise.decode strips it from every page it reads
    r"<!--\s*BEGIN WAYBACK TOOLBAR INSERT\s*-->.*?<!--\s*END WAYBACK TOOLBAR INSERT\s*-->",
    re.S | re.I)
_TITLE_SEPARATOR = re.compile(r"(\s+(?:[-|:\u2013\u2014\u00bb\u00b7\u2022]|::)\s+)")
_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"(?<=[.!?])([\"'\u201d\u2019)\]]*)\s+(?=[\"'\u201c\u2018(\[]*[A-Z0-9])")
_ABBREVIATION = re.compile(
    r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|St|Sen|Rep|Gov|Gen|Col|Lt|Sgt|Capt|Jr|Sr|Inc|Corp|Co|Ltd|No|"
    r"vs|Jan|Feb|Mar|Apr|Aug|Sep|Sept|Oct|Nov|Dec|Mt|Ft)|\b[A-Z]|\b(?:[A-Za-z]\.)+[A-Za-z])\.$")


class PlacementError(ValueError):
    """A host page that cannot take a story; the message says why."""


class Placeable(Protocol):
    """What a page is given in place of its main content: a title and paragraphs."""

    @property
    def title(self) -> str: ...

    def paragraphs(self) -> list[str]: ...


@dataclass(frozen=True, slots=True)
class Text:
    """A title and a text (line breaks separate paragraphs): the plainest placeable."""

    title: str
    text: str

    def paragraphs(self) -> list[str]:
        """The text cut into paragraphs (see :func:`paragraphs`)."""
        return paragraphs(self.text)


@dataclass(frozen=True, slots=True)
class Placement:
    """A placed page: its HTML and how its host's main content was found and removed."""

    html: str
    f1: float  # how well the replaced element covered the host's gold
    removed_chars: int  # old-article text removed outside that element


def paragraphs(text: str, sentences: int = SENTENCES_PER_PARAGRAPH) -> list[str]:
    """``text`` cut into paragraphs of ``sentences`` sentences, each line on its own (the
    story corpus mostly keeps a story on one line, which no article page shows)."""
    out = []
    for line in text.split("\n"):
        parts = split_sentences(line)
        out += [" ".join(parts[i:i + sentences]) for i in range(0, len(parts), sentences)]
    return out


def split_sentences(text: str) -> list[str]:
    """``text`` cut after ``.``, ``!`` or ``?`` (and closing quotes) before a capital or
    digit, except after a common abbreviation or an initial."""
    sentences, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        if _ABBREVIATION.search(text, start, match.start()):
            continue
        sentences.append(text[start:match.end(1)].strip())
        start = match.end()
    sentences.append(text[start:].strip())
    return [s for s in sentences if s]


@dataclass(frozen=True, slots=True)
class _Located:
    element: etree._Element  # the main element
    f1: float
    outside_gold: tuple[tuple[etree._Element, bool], ...]  # (holder, is tail) of old text
    headline: etree._Element | None  # the old headline's <h1> outside the element


def place_story(html: str, gold_text: str, story: Placeable) -> str:
    """``html`` with ``story`` in place of its main content (located by ``gold_text``).

    Raises :class:`PlacementError` when no element covers the gold well enough, the
    gold is hardly on the page, or no template would stay around the story.
    """
    return place(html, gold_text, story).html


def check_host(html: str, gold_text: str) -> float:
    """The F1 with which ``html``'s main element covers ``gold_text``, or
    :class:`PlacementError` when the page could take no story."""
    return _locate(_parse(html), gold_text).f1


def place(html: str, gold_text: str, story: Placeable) -> Placement:
    """:func:`place_story`, with how well the host's main content was found."""
    root = _parse(html)
    old_title = _title_text(root)
    found = _locate(root, gold_text)
    removed = 0
    for holder, is_tail in found.outside_gold:  # the old headline's text too: replaced below
        if is_tail:
            removed += len(holder.tail or "")
            holder.tail = " "
        else:
            removed += len(holder.text or "")
            holder.text = None
    if found.headline is not None:
        _set_text(found.headline, story.title)
    main = found.element
    tail = main.tail
    main.text = None
    for child in list(main):
        main.remove(child)
    main.tail = tail
    if main.tag not in _CONTAINERS:
        main.tag = "div"
    if found.headline is None:
        etree.SubElement(main, "h1").text = story.title
    for paragraph in story.paragraphs():
        etree.SubElement(main, "p").text = paragraph
    _set_head(root, _new_title(old_title, story.title, gold_text))
    return Placement(html=_serialize(root), f1=found.f1, removed_chars=removed)


def clean_page(html: str) -> str:
    """``html`` cleaned and written as :func:`place` writes a page, its content kept
    (title too): a benchmark's real pages then differ from its placed ones only in what
    was placed. Raises :class:`PlacementError` for a page without a ``<body>``."""
    root = _parse(html)
    _set_head(root, _title_text(root))
    return _serialize(root)


def _serialize(root: etree._Element) -> str:
    doctype = root.getroottree().docinfo.doctype
    out = etree.tostring(root, method="html", encoding="unicode")
    return f"{doctype}\n{out}" if doctype else out


def _parse(html: str) -> etree._Element:
    parser = etree.HTMLParser(remove_comments=True, remove_pis=True, no_network=True,
                              recover=True, encoding="utf-8", default_doctype=False)
    text = _WAYBACK_TOOLBAR.sub("", html)
    try:
        root = etree.fromstring(text.encode("utf-8", errors="replace"), parser)
    except etree.LxmlError as error:
        raise PlacementError(f"unparsable HTML ({error})") from None
    if root is None or root.find("body") is None:
        raise PlacementError("no <body>")
    etree.strip_elements(root, *_DROPPED, with_tail=False)
    return root


def _norm(text: str) -> str:
    """Text for matching against the gold: its words, lower case, one space apart
    (gold texts drop or change punctuation: CleanEval's lost curly quotes)."""
    return " ".join(_WORD.findall(unicodedata.normalize("NFKC", text.replace("\u00ad", ""))
                                  .lower()))


def _locate(root: etree._Element, gold_text: str) -> _Located:
    """The element holding the page's main content: the best F1 of gold coverage."""
    gold = f" {_norm(gold_text)} "  # padded: a match starts and ends at word boundaries
    body = root.find("body")
    elements: list[etree._Element] = []
    parents: list[int] = []
    depths: list[int] = []
    # text pieces: (owner index, holder element, is tail, raw text)
    pieces: list[tuple[int, etree._Element, bool, str]] = []
    is_gold: list[bool] = []
    run: list[int] = []

    def flush() -> None:
        if not run:
            return
        text = _norm("".join(pieces[i][3] for i in run))
        if text.count(" ") >= MIN_WORDS - 1 and f" {text} " in gold:
            for i in run:
                is_gold[i] = True
        else:
            for i in run:
                piece = _norm(pieces[i][3])
                is_gold[i] = piece.count(" ") >= MIN_WORDS - 1 and f" {piece} " in gold
        run.clear()

    def add(owner: int, holder: etree._Element, is_tail: bool, text: str) -> None:
        pieces.append((owner, holder, is_tail, text))
        is_gold.append(False)
        run.append(len(pieces) - 1)

    stack: list[tuple[etree._Element, int]] = [(body, -1)]  # (element, its index once opened)
    while stack:
        element, index = stack.pop()
        block = element.tag in _BLOCK_TAGS
        if index >= 0:  # closing
            if block:
                flush()
            if element.tail and element is not body:
                add(parents[index], element, True, element.tail)
            continue
        index = len(elements)
        parent = element.getparent()
        parent_index = -1 if element is body else _index_of(elements, parents, index, parent)
        elements.append(element)
        parents.append(parent_index)
        depths.append(0 if parent_index < 0 else depths[parent_index] + 1)
        if block:
            flush()
        stack.append((element, index))
        if element.tag in _NO_TEXT_TAGS:
            continue
        if element.text:
            add(index, element, False, element.text)
        stack.extend((child, -1) for child in reversed(element) if isinstance(child.tag, str))
    flush()

    total = [0] * len(elements)
    found = [0] * len(elements)
    for (owner, _, _, text), gold_piece in zip(pieces, is_gold, strict=True):
        size = len(_norm(text))
        total[owner] += size
        if gold_piece:
            found[owner] += size
    size_of = [1] * len(elements)  # subtree sizes: element i's subtree is i .. i + size - 1
    for i in range(len(elements) - 1, 0, -1):
        total[parents[i]] += total[i]
        found[parents[i]] += found[i]
        size_of[parents[i]] += size_of[i]
    all_gold = found[0]
    if all_gold < MIN_GOLD_CHARS:
        raise PlacementError(f"gold text hardly on the page ({all_gold} characters found)")
    best, best_key = -1, (0.0, 0)
    for i in range(1, len(elements)):
        if elements[i].tag in _NOT_CHOSEN or not found[i]:
            continue
        key = (2 * found[i] / (total[i] + all_gold), depths[i])
        if key > best_key:
            best, best_key = i, key
    f1 = best_key[0]
    if best < 0 or f1 < MIN_F1:
        raise PlacementError(f"no element covers the gold (best F1 {f1:.2f} < {MIN_F1})")
    for i in range(best - 1, 0, -1):  # out of a <p> or heading that would close around a div
        if best < i + size_of[i] and elements[i].tag in _AUTO_CLOSED:
            best = i
    if total[0] - total[best] < MIN_TEMPLATE_CHARS:
        raise PlacementError(f"no template around the main content "
                             f"({total[0] - total[best]} characters)")
    inside = range(best, best + size_of[best])
    headline = None
    for (owner, _, _, _), gold_piece in zip(pieces, is_gold, strict=True):
        if gold_piece and owner not in inside:
            headline = _heading_h1(elements[owner], elements[best])
            if headline is not None:
                break
    outside = tuple((holder, is_tail) for (owner, holder, is_tail, _), gold_piece
                    in zip(pieces, is_gold, strict=True) if gold_piece and owner not in inside)
    return _Located(elements[best], f1, outside, headline)


def _index_of(elements: list[etree._Element], parents: list[int], index: int,
              parent: etree._Element) -> int:
    """Index of ``parent``: walk up from the element opened last (depth-first order)."""
    i = index - 1
    while elements[i] is not parent:
        i = parents[i]
    return i


def _heading_h1(element: etree._Element, main: etree._Element) -> etree._Element | None:
    """The ``<h1>`` that is ``element`` or holds it, unless it holds the main element."""
    for candidate in (element, *element.iterancestors()):
        if candidate.tag == "h1":
            return None if main in candidate.iterdescendants() else candidate
    return None


def _set_text(element: etree._Element, text: str) -> None:
    for child in list(element):
        element.remove(child)
    element.text = text


def _title_text(root: etree._Element) -> str:
    title = root.find("head/title")
    return " ".join("".join(title.itertext()).split()) if title is not None else ""


def _new_title(old: str, title: str, gold_text: str) -> str:
    """``title`` with the site names the ``old`` title had before or after a separator.

    The old headline is the segment found in the old article's gold text; the short
    segments (at most :data:`MAX_NAME_WORDS` words) before and after it are names of the
    site and its section (``The Brat Pack Is Back - MSN Entertainment Channel``). When
    no segment is in the gold, a short last segment is taken for the site name.
    """
    parts = _TITLE_SEPARATOR.split(old)
    segments = parts[0::2]
    if len(segments) < 2:
        return title
    gold = f" {_norm(gold_text)} "
    # one word (a section name like "Harbour") is found in many an article: not a headline
    found = [_norm(s).count(" ") >= 1 and f" {_norm(s)} " in gold for s in segments]

    def names(indices: range) -> bool:
        return all(0 < len(segments[i].split()) <= MAX_NAME_WORDS for i in indices)

    if any(found):
        first, last = found.index(True), len(found) - 1 - found[::-1].index(True)
        prefix = "".join(parts[:2 * first]) if names(range(first)) else ""
        suffix = "".join(parts[2 * last + 1:]) if names(range(last + 1, len(segments))) else ""
        return prefix + title + suffix
    if names(range(len(segments) - 1, len(segments))) and len(segments[-1]) < len(
            "".join(parts[:-2])):
        return title + parts[-2] + parts[-1]
    return title


def _set_head(root: etree._Element, title: str) -> None:
    """Title, ``<meta charset="utf-8">`` first, and no meta about the old article."""
    head = root.find("head")
    if head is None:
        head = etree.Element("head")
        root.insert(0, head)
    for meta in list(root.iter("meta")):  # a stray tag can push them out of the head
        name = (meta.get("name") or meta.get("property") or "").strip().lower()
        equiv = (meta.get("http-equiv") or "").strip().lower()
        if _OLD_META.match(name) or meta.get("charset") is not None or equiv == "content-type":
            meta.getparent().remove(meta)
    element = head.find("title")
    if element is None:
        element = etree.SubElement(head, "title")
    _set_text(element, title)
    charset = etree.Element("meta", charset="utf-8")
    head.insert(0, charset)
