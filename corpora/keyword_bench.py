"""Cross-domain keyword benchmark: real keyphrase-labelled stories inside real sites' pages.

Run: ``python -m corpora.keyword_bench OUT_DIR [--test-site entertainment.msn.com]
[--test-share 0.33] [--seed 0]``. It writes ``OUT_DIR/train/NAME.html`` beside
``NAME.key`` (one keyphrase a line, the convention of the keyphrase corpora), the same
in ``OUT_DIR/test/``, and ``OUT_DIR/manifest.jsonl`` (per page: split, name, story,
host page, host site, how well the host's main element was found). Nothing of it is
ever written into the repository: the pages hold third-party text.

No public set of raw web pages with keyword labels exists here, so the set is built
from real parts, as the keyword paper's IA / MSN split was: a training page is a
keyphrase-annotated story (500N-KPCrowd, ``keyphrases-dev``) put into a page of a
*different* real site in place of that page's main content; a test page is another
story put into a page of *one* site whose whole family never hosts a training story.
:func:`assemble` takes any stories and any host pages, so other splits can be made;
:func:`build` makes the default one from the shared corpora.

Choices, and why:

- **Stories** (:func:`load_stories`). A file's first line is the title, the rest the
  story. Stories with fewer than :data:`MIN_BODY_CHARS` characters of body are dropped
  (about 40 hold only a title; the rest are teasers too short to be an article), and so
  is a story whose text repeats an earlier one (the corpus files some stories under two
  categories, with two annotations: one copy on each side of the split would leak).
  HTML entities are unescaped and the doubled quotes of the corpus's CSV origin
  (``""word""``) made single. Keyphrases are copied as they are.
- **Split** (:func:`split_stories`): per category, a seeded share goes to test (stratified
  by category). Every seeded choice is a rank: a BLAKE2 digest of the seed and the item's
  name, so the build is the same for a seed on any machine and adding one story moves
  no other.
- **Test hosts**: the pages of the test site (default ``entertainment.msn.com``, 102
  pages of four eras with human-extracted main text in ``sites-dev-news``: a nod to
  the paper's MSN test set). Test stories go round its pages in rank order, so a page
  takes a second story only when stories outnumber pages.
- **Training hosts**: one page per *site*, every site used once, and never a site of the
  test site's family. A site is its registrable domain reduced to the publisher's name
  (:func:`site_key`: ``news.bbc.co.uk``, ``bbc.co.uk_news`` and ``bbc`` are one site,
  so are every era and corpus of a news site). First one page of each other news site
  of ``sites-dev-news`` with gold main text (the other news templates), then the
  ``content-dev`` pages with a gold main text: ``chaos`` (query results from ~240
  sites), ``dragnet``, ``readability``, ``cleaneval-dev``, ``cleaneval-final``, in seeded
  order. Their site is the page URL's host, else the page's canonical / ``og:url`` /
  ``<base>`` URL; pages with neither are left out (their site is unknown, so it could
  repeat another). trafilatura's set is not used: its gold is a few snippets, which
  cannot tell the main element apart from a paragraph of it. Up to :data:`HOST_TRIES`
  pages of a site are tried before the site is skipped.
- **Placement** (:func:`place_story`). The element holding the page's main content is
  found from the gold text in one walk: text is cut into runs at block boundaries; a run
  (or failing that, one of its text nodes) of at least three words whose normalised text
  occurs in the normalised gold is gold; gold and all characters are summed per subtree;
  the element with the best F1 of gold coverage (precision = gold share of its text,
  recall = its share of the page's gold) wins, the innermost on ties. Hosts where it is
  below :data:`MIN_F1`, where the gold is hardly on the page, or where less than
  :data:`MIN_TEMPLATE_CHARS` characters of text stay around it (no template to speak
  of) are skipped and counted. The element's children become the story: an ``<h1>``
  title and ``<p>`` paragraphs of :data:`SENTENCES_PER_PARAGRAPH` sentences (the
  stories are mostly one long line); its attributes stay, so the site's styles apply.
  Elements that may not hold headings and paragraphs (``p``, ``span``, ``table``, ...)
  become a ``div``, and one inside a ``p`` or heading takes that ancestor's place.
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
  page declares ``<meta charset="utf-8">`` and is written as UTF-8, each file atomically.
"""

from __future__ import annotations

import hashlib
import html as html_module
import json
import logging
import re
import tarfile
import time
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Annotated

import typer
from lxml import etree

from corpora.content import iter_content_pages
from corpora.locate import corpus_path
from corpora.sites import gold_main_texts
from denoise.output import atomic_text
from denoise.page import site_of
from denoise.reader import Skipped, read_pages
from denoise.validation import site_family

log = logging.getLogger(__name__)

STORIES_ARCHIVE = "keyphrases-dev.tar.xz"
SITE_ARCHIVES = ("sites-dev-news.tar.xz", "sites-dev-docs.tar.xz")  # test site: first found
DEFAULT_TEST_SITE = "entertainment.msn.com"
DEFAULT_TEST_SHARE = 0.33
#: content-dev sets with a gold main text (trafilatura's gold is snippets: not used).
CONTENT_SETS = ("chaos", "dragnet", "readability", "cleaneval-dev", "cleaneval-final")
MIN_BODY_CHARS = 300  # a story shorter than this is a title or a teaser
MIN_F1 = 0.5  # the main element must cover the gold at least this well
MIN_GOLD_CHARS = 200  # gold text found on the page, or the page is not the gold's
MIN_TEMPLATE_CHARS = 100  # text left around the main element, or there is no template
MIN_WORDS = 3  # a text run shorter than this is never matched against the gold
HOST_TRIES = 3  # pages of one site tried before the site is skipped
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
_URL_TAG = re.compile(r"<(?:link|meta|base)\b[^>]*>", re.I)
_URL_KIND = re.compile(r"""\brel\s*=\s*["']?canonical\b|\bproperty\s*=\s*["']?og:url\b|^<base\b""",
                       re.I)
_ABSOLUTE_URL = re.compile(r"""\b(?:href|content)\s*=\s*["']?(https?://[^"'\s>]+)""", re.I)
_HOST = re.compile(r"^[a-z0-9-]+(?:\.[a-z0-9-]+)+$")
_SECOND_LEVEL = frozenset("ac co com edu gob gov go mil ne net nic or org".split())
_SHARED_HOSTING = frozenset("blogspot.com github.io wordpress.com tumblr.com typepad.com "
                            "livejournal.com tripod.com geocities.com angelfire.com".split())


class PlacementError(ValueError):
    """A host page that cannot take a story; the message says why."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Story:
    """One keyphrase-annotated story: what a benchmark page is about and its labels."""

    id: str  # the corpus file stem, ``<category>-<number>``
    category: str
    title: str
    text: str  # the story without its title; line breaks (rare) separate paragraphs
    keyphrases: tuple[str, ...]

    def paragraphs(self, sentences: int = SENTENCES_PER_PARAGRAPH) -> list[str]:
        """The story cut into paragraphs of ``sentences`` sentences (the corpus mostly
        keeps a story on one line, which no article page shows)."""
        out = []
        for line in self.text.split("\n"):
            parts = split_sentences(line)
            out += [" ".join(parts[i:i + sentences]) for i in range(0, len(parts), sentences)]
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class HostPage:
    """A real page whose main content a story replaces, with the gold that locates it."""

    id: str
    site: str
    html: str
    gold_text: str
    source: str  # the corpus or set it comes from
    priority: int = 1  # training sites are taken lowest priority first, in seeded order


@dataclass(frozen=True, slots=True, kw_only=True)
class BenchPage:
    """One benchmark page: a story in a host page."""

    split: str  # "train" or "test"
    story: Story
    host: HostPage
    html: str
    f1: float  # how well the replaced element covered the host's gold
    removed_chars: int  # old-article text removed outside that element

    @property
    def name(self) -> str:
        """The file name stem (each story is used once)."""
        return self.story.id

    def record(self) -> dict[str, object]:
        """The page's manifest line."""
        return {"split": self.split, "name": self.name, "story": self.story.id,
                "category": self.story.category, "host_page": self.host.id,
                "host_site": self.host.site, "host_source": self.host.source,
                "f1": round(self.f1, 3), "removed_chars": self.removed_chars}


@dataclass(frozen=True, slots=True, kw_only=True)
class Benchmark:
    """Placed pages and what could not be placed, with the reasons."""

    pages: tuple[BenchPage, ...]
    test_hosts: int  # test-site pages that took stories
    test_pages_skipped: int  # test-site pages no story could go into
    hosts_skipped: int  # training sites none of whose tried pages could take a story
    pages_skipped: int  # training pages tried and given up
    skip_reasons: dict[str, int]
    held_out: int  # training host pages of the test site's family, left out
    train_unplaced: int  # training stories left without a host (sites ran out)


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildCounts:
    """What :func:`build` made, for the report."""

    stories: int
    stories_dropped: int
    train_pages: int
    test_pages: int
    test_hosts: int
    test_pages_skipped: int
    hosts_skipped: int
    pages_skipped: int
    skip_reasons: dict[str, int] = field(default_factory=dict)
    hosts_unknown: int = 0  # content pages without a URL: their site is unknown
    held_out: int = 0
    train_unplaced: int = 0
    seconds: float = 0.0


# --- stories -------------------------------------------------------------------------


def load_stories(archive: str | Path | None = None, *, min_chars: int = MIN_BODY_CHARS,
                 skipped: list[Skipped] | None = None) -> list[Story]:
    """The usable stories of 500N-KPCrowd (``keyphrases-dev``), sorted by id.

    Left out, logged and appended to ``skipped``: stories with fewer than ``min_chars``
    characters of body (title only, or a teaser), without keyphrases, and stories
    whose text repeats an earlier one's (filed under two categories).
    """
    path = Path(archive) if archive else corpus_path(STORIES_ARCHIVE)
    docs: dict[str, bytes] = {}
    keys: dict[str, bytes] = {}
    with tarfile.open(path, "r:*") as tar:
        for member in tar:
            name = PurePosixPath(member.name)
            stream = tar.extractfile(member) if member.isfile() else None
            if stream is None:
                continue
            if name.parent.name == "docs" and name.suffix == ".txt":
                docs[name.stem] = stream.read()
            elif name.parent.name == "keys" and name.suffix == ".key":
                keys[name.stem] = stream.read()
    if not docs:
        raise ValueError(f"{path}: no stories (expected kpcrowd/docs/<category>-<id>.txt)")
    stories: list[Story] = []
    seen: dict[str, str] = {}

    def skip(story_id: str, reason: str) -> None:
        log.info("story %s left out: %s", story_id, reason)
        if skipped is not None:
            skipped.append(Skipped(f"{path.name}:{story_id}", reason))

    for story_id in sorted(docs):
        text = docs[story_id].decode("utf-8", errors="replace").replace("\r\n", "\n")
        title, _, body = text.partition("\n")
        title = _story_text(title)
        lines = [_story_text(line) for line in body.split("\n")]
        body = "\n".join(line for line in lines if line)
        if title and body.lower().startswith(title.lower()):  # some repeat their title
            body = body[len(title):].strip()
        phrases = tuple(line.strip() for line in keys.get(story_id, b"").decode(
            "utf-8", errors="replace").splitlines() if line.strip())
        fingerprint = " ".join(body.lower().split())
        if len(body) < min_chars:
            skip(story_id, f"{len(body)} characters of body (< {min_chars})")
        elif not phrases:
            skip(story_id, "no keyphrases")
        elif fingerprint in seen:
            skip(story_id, f"same text as {seen[fingerprint]}")
        else:
            seen[fingerprint] = story_id
            stories.append(Story(id=story_id, category=story_id.rsplit("-", 1)[0],
                                 title=title, text=body, keyphrases=phrases))
    return stories


def _story_text(line: str) -> str:
    return " ".join(html_module.unescape(line.replace('""', '"')).split())


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


def split_stories(stories: Iterable[Story], *, test_share: float,
                  seed: int) -> tuple[list[Story], list[Story]]:
    """Training and test stories: per category, the ``test_share`` of lowest seeded
    rank go to test (stratified, so both sides cover every category alike)."""
    if not 0.0 < test_share < 1.0:
        raise ValueError(f"test_share must be in (0, 1), got {test_share}")
    by_category: dict[str, list[Story]] = {}
    for story in stories:
        by_category.setdefault(story.category, []).append(story)
    train: list[Story] = []
    test: list[Story] = []
    for category in sorted(by_category):
        ranked = sorted(by_category[category], key=lambda s: _rank(seed, "split", s.id))
        cut = round(len(ranked) * test_share)
        test += ranked[:cut]
        train += ranked[cut:]
    return sorted(train, key=lambda s: s.id), sorted(test, key=lambda s: s.id)


def _rank(seed: int, *parts: str) -> bytes:
    """A seeded, order-free random rank: the same on every machine and Python version."""
    return hashlib.blake2b("\x1f".join((str(seed), *parts)).encode(), digest_size=8).digest()


# --- placement -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Located:
    element: etree._Element  # the main element
    f1: float
    outside_gold: tuple[tuple[etree._Element, bool], ...]  # (holder, is tail) of old text
    headline: etree._Element | None  # the old headline's <h1> outside the element


def place_story(html: str, gold_text: str, story: Story) -> str:
    """``html`` with ``story`` in place of its main content (located by ``gold_text``).

    Raises :class:`PlacementError` when no element covers the gold well enough, the
    gold is hardly on the page, or no template would stay around the story.
    """
    return _place(html, gold_text, story)[0]


def _place(html: str, gold_text: str, story: Story) -> tuple[str, float, int]:
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
    doctype = root.getroottree().docinfo.doctype
    out = etree.tostring(root, method="html", encoding="unicode")
    return (f"{doctype}\n{out}" if doctype else out), found.f1, removed


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


# --- sites and hosts -----------------------------------------------------------------


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
    or its last part, e.g. ``entertainment.msn.com``)."""
    wanted = set(sites) if sites is not None else None
    path = Path(archive)
    pages = [p for p in read_pages([path]) if not isinstance(p, Skipped)
             and (wanted is None or p.site in wanted or p.site.rsplit("/", 1)[-1] in wanted)]
    gold = gold_main_texts(pages) if pages else {}
    for page in pages:
        if gold.get(page.id, "").strip():
            yield HostPage(id=page.id, site=page.site, html=page.html, gold_text=gold[page.id],
                           source=_archive_name(path), priority=priority)


def _archive_name(path: Path) -> str:
    return path.name.split(".tar")[0]


# --- the benchmark -------------------------------------------------------------------


def assemble(stories: Sequence[Story], train_hosts: Iterable[HostPage],
             test_hosts: Sequence[HostPage], *, test_share: float = DEFAULT_TEST_SHARE,
             seed: int = 0) -> Benchmark:
    """Place the stories: test stories round ``test_hosts`` (one site), each training
    story into a page of a different site of ``train_hosts``; host pages of the test
    hosts' site families are left out of training."""
    if not test_hosts:
        raise ValueError("no test host pages")
    train_stories, test_stories = split_stories(stories, test_share=test_share, seed=seed)
    held_keys = {site_key(h.site) for h in test_hosts}
    held_families = {site_family(h.site) for h in test_hosts}
    reasons: Counter[str] = Counter()
    pages: list[BenchPage] = []

    qualified = []
    for host in sorted(test_hosts, key=lambda h: _rank(seed, "test-host", h.id)):
        try:
            _locate(_parse(host.html), host.gold_text)
        except PlacementError as error:
            reasons[_reason(error)] += 1
            log.info("test host %s skipped: %s", host.id, error)
            continue
        qualified.append(host)
    if not qualified and test_stories:
        raise ValueError(f"no test host page can take a story: {dict(reasons)}")
    test_order = sorted(test_stories, key=lambda s: _rank(seed, "test-order", s.id))
    for number, story in enumerate(test_order):
        host = qualified[number % len(qualified)]
        html, f1, removed = _place(host.html, host.gold_text, story)
        pages.append(BenchPage(split="test", story=story, host=host, html=html, f1=f1,
                               removed_chars=removed))
    test_skipped = len(test_hosts) - len(qualified)

    held_out = 0

    def eligible() -> Iterator[HostPage]:
        nonlocal held_out
        for host in train_hosts:
            if site_key(host.site) in held_keys or site_family(host.site) in held_families:
                held_out += 1
            else:
                yield host

    waiting = sorted(train_stories, key=lambda s: _rank(seed, "train-order", s.id))
    waiting.reverse()  # pop() takes them in rank order
    hosts_skipped = pages_skipped = 0
    for site_pages in _sites_in_order(eligible(), seed):
        if not waiting:
            break
        story = waiting[-1]
        for host in site_pages:
            try:
                html, f1, removed = _place(host.html, host.gold_text, story)
            except PlacementError as error:
                pages_skipped += 1
                reasons[_reason(error)] += 1
                log.info("training host %s skipped: %s", host.id, error)
                continue
            pages.append(BenchPage(split="train", story=waiting.pop(), host=host, html=html,
                                   f1=f1, removed_chars=removed))
            break
        else:
            hosts_skipped += 1
    if waiting:
        log.warning("%d training stories found no host site", len(waiting))
    return Benchmark(pages=tuple(pages), test_hosts=len({p.host.id for p in pages
                                                         if p.split == "test"}),
                     test_pages_skipped=test_skipped, hosts_skipped=hosts_skipped,
                     pages_skipped=pages_skipped, skip_reasons=dict(reasons), held_out=held_out,
                     train_unplaced=len(waiting))


def _reason(error: PlacementError) -> str:
    return str(error).split(" (")[0]


def _sites_in_order(hosts: Iterable[HostPage], seed: int) -> list[list[HostPage]]:
    """Host pages grouped by site (:func:`site_key`): per site the :data:`HOST_TRIES`
    pages of lowest seeded rank; sites by priority, then by their best page's rank.
    Only those pages are kept, so the content corpora are never all in memory."""
    best: dict[str, list[tuple[tuple[int, bytes, str], HostPage]]] = {}
    for host in hosts:
        group = best.setdefault(site_key(host.site), [])
        group.append(((host.priority, _rank(seed, "host", host.id), host.id), host))
        group.sort(key=lambda entry: entry[0])
        del group[HOST_TRIES:]
    ordered = sorted(best.values(), key=lambda group: group[0][0])
    return [[host for _, host in group] for group in ordered]


def write_benchmark(benchmark: Benchmark, out_dir: str | Path) -> None:
    """``train/`` and ``test/`` folders of ``NAME.html`` + ``NAME.key``, and
    ``manifest.jsonl``; every file written atomically. ``.html`` / ``.key`` files of an
    earlier build that this one does not have are removed from those folders."""
    out = Path(out_dir)
    names: dict[str, set[str]] = {"train": set(), "test": set()}
    for page in benchmark.pages:
        folder = out / page.split
        with atomic_text(folder / f"{page.name}.html") as stream:
            stream.write(page.html)
        with atomic_text(folder / f"{page.name}.key") as stream:
            stream.write("".join(f"{phrase}\n" for phrase in page.story.keyphrases))
        names[page.split].add(page.name)
    for split, kept in names.items():
        folder = out / split
        if folder.is_dir():
            for path in folder.iterdir():
                if path.suffix in (".html", ".key") and path.stem not in kept:
                    path.unlink()
    with atomic_text(out / "manifest.jsonl") as stream:
        for page in benchmark.pages:
            stream.write(json.dumps(page.record()) + "\n")


def build(out_dir: str | Path, *, test_site: str = DEFAULT_TEST_SITE,
          test_share: float = DEFAULT_TEST_SHARE, seed: int = 0,
          stories: Sequence[Story] | None = None) -> BuildCounts:
    """Build the default benchmark from the shared corpora into ``out_dir``.

    Test hosts: the pages of ``test_site`` (looked up in the dev site archives, news
    first); training hosts: the other news sites, then the content-dev pages.
    """
    started = time.perf_counter()
    dropped: list[Skipped] = []
    if stories is None:
        stories = load_stories(skipped=dropped)
    test_hosts: list[HostPage] = []
    for name in SITE_ARCHIVES:
        test_hosts = list(site_hosts(corpus_path(name), sites=[test_site]))
        if test_hosts:
            break
    if not test_hosts:
        raise ValueError(f"no pages of {test_site} with gold main text in "
                         f"{', '.join(SITE_ARCHIVES)}")
    unknown: list[Skipped] = []

    def train_hosts() -> Iterator[HostPage]:
        yield from site_hosts(corpus_path(SITE_ARCHIVES[0]), priority=0)
        yield from content_hosts(skipped=unknown)

    benchmark = assemble(stories, train_hosts(), test_hosts, test_share=test_share, seed=seed)
    write_benchmark(benchmark, out_dir)
    splits = Counter(page.split for page in benchmark.pages)
    return BuildCounts(
        stories=len(stories), stories_dropped=len(dropped), train_pages=splits["train"],
        test_pages=splits["test"], test_hosts=benchmark.test_hosts,
        test_pages_skipped=benchmark.test_pages_skipped, hosts_skipped=benchmark.hosts_skipped,
        pages_skipped=benchmark.pages_skipped, skip_reasons=benchmark.skip_reasons,
        hosts_unknown=sum(1 for s in unknown if "site is unknown" in s.reason),
        held_out=benchmark.held_out, train_unplaced=benchmark.train_unplaced,
        seconds=time.perf_counter() - started)


# --- command line --------------------------------------------------------------------

app = typer.Typer(add_completion=False, help=__doc__.split("\n")[0])


@app.command()
def main(
    out_dir: Annotated[Path, typer.Argument(help="Where to write train/, test/ and "
                                             "manifest.jsonl.", show_default=False)],
    test_site: Annotated[str, typer.Option(
        help="The site whose pages hold the test stories; its whole family hosts no "
        "training story.")] = DEFAULT_TEST_SITE,
    test_share: Annotated[float, typer.Option(
        min=0.01, max=0.99, help="Share of the stories (per category) that go to test.",
    )] = DEFAULT_TEST_SHARE,
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    verbose: Annotated[bool, typer.Option(help="Log every story and host left out.")] = False,
) -> None:
    """Build the cross-domain keyword benchmark: stories placed into real sites' pages."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if not verbose:
        logging.getLogger("corpora.content").setLevel(logging.ERROR)
    try:
        counts = build(out_dir, test_site=test_site, test_share=test_share, seed=seed)
    except (ValueError, OSError) as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(1) from None
    reasons = ", ".join(f"{reason}: {n}" for reason, n in sorted(counts.skip_reasons.items()))
    typer.echo(
        f"{out_dir}: {counts.train_pages} training pages, {counts.test_pages} test pages "
        f"(on {counts.test_hosts} pages of {test_site}; {counts.test_pages_skipped} of its "
        f"pages could take no story)\n"
        f"stories: {counts.stories} used, {counts.stories_dropped} left out (short, no "
        f"keyphrases or repeated)\n"
        f"training sites skipped: {counts.hosts_skipped} ({counts.pages_skipped} pages tried "
        f"and given up; reasons over all pages: {reasons or 'none'}); "
        f"{counts.held_out} pages of the test site's family held out; {counts.hosts_unknown} "
        f"content pages of unknown site; {counts.train_unplaced} training stories without "
        f"a host\n{counts.seconds:.0f} s")


if __name__ == "__main__":
    app()
