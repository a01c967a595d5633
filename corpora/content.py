"""Single pages with main-content gold: the ``content-dev`` corpus.

Six sets, each read into :class:`GoldPage` items:

- ``trafilatura``: trafilatura's evaluation pages. ``evaldata.json`` maps a URL to a
  file under ``pages/cache/`` or ``pages/eval/`` and to snippets: ``with`` (must be in
  the extracted text) and ``without`` (must not). Gold = ``keep`` / ``drop`` snippets.
- ``readability``: Mozilla readability's test pages, ``<name>/source.html`` and
  ``expected.html`` (readability.js's own output). Gold text = the text of
  ``expected.html``.
- ``cleaneval-dev``, ``cleaneval-final``: CleanEval (2007). Inputs are wrapped in a
  ``<text id="URL" title=... encoding=...>`` element added by the task organisers; the
  wrapper is removed, its URL kept and its ``encoding`` passed to the decoder as the
  HTTP charset. Gold files start with a ``URL: ...`` line (after a byte-order mark in
  some, missing in others) and mark paragraphs, headings and list items with ``<p>``,
  ``<h>`` and ``<l>``: the line and the markers are removed. 59 final inputs have no gold
  file and 7 gold files (6 final, 1 dev) hold only the URL line: those pages are skipped.
- ``dragnet``: the Dragnet benchmark (``dragnet_data/``). A gold file holds the main
  content, then a delimiter line of punctuation and ``COMMENTS`` (typed by hand, so it
  varies: ``!@#$%^&*()  COMMENTS``, ``!@ $%^&*() COMMENTS``, ...), then the reader
  comments. Gold = the content part only: we score "the article", not its comments.
  Gold files come in UTF-8, UTF-16 with a byte-order mark, windows-1252, or UTF-8
  mojibake (``â€™``, repaired line by line where the repair is exact).
- ``chaos``: 360 pages from ~240 sites for 36 search queries; ``manifest.tsv`` names
  the page, its URL and its gold text (mostly windows-1252).
- ``wcxb`` (a separate archive, ``content-dev-wcxb.tar.xz``): WCXB's development split,
  1,497 pages of 1,295 domains in seven page types (``metadata.json``: article, service,
  product, collection, forum, listing, documentation). A page is ``dev/html/N.html.gz``;
  its gold, ``dev/ground-truth/N.json``, holds the reviewed main text
  (``ground_truth.main_content``) and ``with`` / ``without`` snippets. Gold = the main
  text; the page type and domain ride along (:attr:`GoldPage.page_type`, ``domain``).

Some gold is not in its page at all (found by scoring the page's whole text): Dragnet
``R237`` (an iframe wrapper) and ``R427`` (an error page), chaos ``pepsi (9)`` and
``scorpio (10)`` (another article was saved). They are kept: every extractor loses them
alike. CleanEval gold also keeps some image alt texts.

Each archive is unpacked once into a cache folder, ``$XDG_CACHE_HOME/webdenoise`` or
``~/.cache/webdenoise`` (``cache_dir`` overrides), under a name holding a digest of the
archive, so a changed archive is unpacked afresh. Unpacking (~3 s, 385 MB) beats
streaming here: the archive stores every set's inputs before its gold files, so a
streaming reader would hold a whole set in memory, and ``limit`` could not skip pages.

Page bytes are decoded with :func:`denoise.decode.decode_html`; an item that cannot be
used (undecodable page, missing or empty gold) is logged, appended to ``skipped`` when
given, and left out. No page text is ever copied into the repository.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import hashlib
import html as html_module
import json
import logging
import os
import re
import shutil
import tarfile
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from corpora.locate import corpus_path
from denoise.decode import decode_html
from denoise.errors import PageError
from denoise.html import parse_html
from denoise.page import site_of
from denoise.reader import Skipped

log = logging.getLogger(__name__)

ARCHIVE = "content-dev.tar.xz"
#: The ``content-dev`` sets, in the order they are read: what ``iter_content_pages``
#: reads by default (the keyword tables are built on them).
SETS = ("trafilatura", "readability", "cleaneval-dev", "cleaneval-final", "dragnet", "chaos")
#: WCXB's development split, in its own archive.
WCXB = "wcxb"
WCXB_ARCHIVE = "content-dev-wcxb.tar.xz"
#: Every set with main-content gold.
ALL_SETS = (*SETS, WCXB)

# Elements whose boundaries separate words; other elements (a, b, span, ...) run on.
_BLOCK_TAGS = frozenset(
    "address article aside blockquote body br caption center dd details dialog dir div dl dt "
    "fieldset figcaption figure footer form frame h1 h2 h3 h4 h5 h6 head header hr html iframe "
    "img input legend li main menu nav ol option p pre section select summary table tbody "
    "td textarea tfoot th thead title tr ul".split()
)
_TEXT_BOMS = (  # longest first: the UTF-32-LE mark starts with the UTF-16-LE one
    (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_SPACES = re.compile(r"[^\S\n]+")
_BLANK_LINES = re.compile(r"\s*\n\s*")
_CLEANEVAL_WRAPPER = re.compile(r"\A\s*<text\b([^>]*)>(.*)</text>\s*\Z", re.S | re.I)
_WRAPPER_ATTR = re.compile(r"""\b(id|encoding)\s*=\s*"([^"]*)\"""")
_CLEANEVAL_URL_LINE = re.compile(r"\A\s*URL:[^\n]*\n?")
_CLEANEVAL_MARKER = re.compile(r"<[phl]>", re.I)
_DRAGNET_COMMENTS = re.compile(r"^[ \t!@#$%^&*()]*COMMENTS\s*$", re.M)
# UTF-8 read as windows-1252: a lead byte (Â, Ã, â) then a continuation byte (0x80-0xBF).
_CONTINUATION = bytes(range(0x80, 0xC0)).decode("cp1252", errors="ignore")
_MOJIBAKE = re.compile(f"[\u00c2\u00c3\u00e2][{re.escape(_CONTINUATION)}]")
_WRAPPER_ENCODING = re.compile(rb'\A\s*<text\b[^>]*\bencoding="([^"]*)"', re.I)

# A set is listed as (page id, loader) pairs; the loaders read a page only when called.
PageLoader = Callable[[], "GoldPage"]


@dataclass(frozen=True, slots=True, kw_only=True)
class GoldPage:
    """One page and its main-content gold.

    Gold is either ``gold_text`` (the main text, for word-shingle scores) or ``keep``
    and ``drop`` snippets (trafilatura's set: text that must / must not be extracted).
    """

    set_name: str
    page_id: str  # unique within the set: a file name or stem
    url: str | None
    html: str  # decoded with denoise.decode.decode_html
    gold_text: str | None = None
    keep: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()
    page_type: str | None = None  # WCXB's label: article, forum, listing, ...
    domain: str | None = None  # the page's site, where the set names it

    def __post_init__(self) -> None:
        if (self.gold_text is None) == (not (self.keep or self.drop)):
            raise ValueError(
                f"{self.set_name}:{self.page_id}: gold must be gold_text or keep/drop snippets"
            )

    @property
    def has_snippets(self) -> bool:
        """Whether the gold is keep / drop snippets (else a main text)."""
        return self.gold_text is None


def html_text(html: str | etree._Element, *, skip_head: bool = False) -> str:
    """The visible text of ``html``, one line per block element, words never glued.

    Block boundaries (``p``, ``div``, ``li``, ``td``, ``br``, ...) become line breaks;
    inline elements run on, so ``<p>a</p><p>b</p>`` is ``a\\nb`` but ``w<b>or</b>d`` is
    ``word``. Script, style, noscript, template and drop-down (``select``) text is left
    out (our parser drops them), and so is a ``<textarea>``'s or an ``<iframe>``'s
    (emptied); with ``skip_head``, so is the ``<head>`` (the title).
    The head is skipped rather than the body taken: on broken pages lxml leaves body
    text outside ``<body>``.
    """
    root = parse_html(html) if isinstance(html, str) else html
    parts: list[str] = []
    for top in ([root] if not skip_head else [c for c in root if c.tag != "head"]):
        for event, element in etree.iterwalk(top, events=("start", "end")):
            tag = element.tag if isinstance(element.tag, str) else None  # comments: no tag
            block = tag is not None and tag.lower() in _BLOCK_TAGS
            if event == "start":
                if block:
                    parts.append("\n")
                if tag is not None and element.text:
                    parts.append(element.text)
            else:
                if block:
                    parts.append("\n")
                if element.tail and element is not root:
                    parts.append(element.tail)
    if skip_head and root.text:
        parts.insert(0, root.text)
    text = _SPACES.sub(" ", "".join(parts))
    return _BLANK_LINES.sub("\n", text).strip()


def decode_text(data: bytes) -> str:
    """Decode a gold text file: by its byte-order mark, else UTF-8, else windows-1252.

    Lines of UTF-8 mojibake (UTF-8 read as windows-1252 and saved again, ``â€™`` for
    a right quote) are repaired where reversing that is exact. Line breaks become ``\\n``.
    """
    for bom, codec in _TEXT_BOMS:
        if data.startswith(bom):
            text = data[len(bom):].decode(codec, errors="replace")
            break
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("cp1252", errors="replace")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if _MOJIBAKE.search(text):
        text = "\n".join(_unmojibake(line) for line in text.split("\n"))
    return text


def _unmojibake(line: str) -> str:
    if not _MOJIBAKE.search(line):
        return line
    try:
        return line.encode("cp1252").decode("utf-8")
    except UnicodeError:
        return line


def cleaneval_gold(text: str) -> str:
    """CleanEval gold without its ``URL:`` line and ``<p>`` / ``<h>`` / ``<l>`` markers."""
    text = _CLEANEVAL_URL_LINE.sub("", text.lstrip("\ufeff"), count=1)
    return _CLEANEVAL_MARKER.sub("", text).strip()


def dragnet_gold(text: str) -> str:
    """The main-content part of a Dragnet gold text (what precedes the comments delimiter)."""
    return _DRAGNET_COMMENTS.split(text, maxsplit=1)[0].strip()


def unwrap_cleaneval(html: str) -> tuple[str, str | None]:
    """A CleanEval input without its ``<text id=URL ...>`` wrapper, and that URL."""
    match = _CLEANEVAL_WRAPPER.match(html)
    if match is None:
        return html, None
    attrs = dict(_WRAPPER_ATTR.findall(match.group(1)))
    url = html_module.unescape(attrs["id"]) if attrs.get("id") else None
    return match.group(2), url


def content_root(archive: Path | None = None, cache_dir: Path | None = None) -> Path:
    """The unpacked ``content-dev`` folder, unpacking the archive on first use."""
    return unpacked(archive or corpus_path(ARCHIVE), cache_dir) / "content-dev"


def unpacked(archive: Path, cache_dir: Path | None = None) -> Path:
    """The folder ``archive`` is unpacked into (on first use), named by its digest."""
    if cache_dir is None:
        cache_dir = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "webdenoise"
    digest = hashlib.sha256()
    with archive.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    stem = archive.name.split(".")[0]
    target = cache_dir / f"{stem}-{digest.hexdigest()[:16]}"
    if not target.exists():
        cache_dir.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{stem}-", dir=cache_dir))
        try:
            log.info("unpacking %s into %s", archive, target)
            with tarfile.open(archive, "r:*") as tar:
                tar.extractall(staging, filter="data")
            try:
                staging.rename(target)
            except OSError:  # another process finished first
                if not target.exists():
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return target


def iter_content_pages(
    sets: Iterable[str] | None = None,
    limit: int | None = None,
    *,
    cache_dir: Path | None = None,
    skipped: list[Skipped] | None = None,
) -> Iterator[GoldPage]:
    """The gold pages of ``sets`` (default: :data:`SETS`; :data:`ALL_SETS` adds WCXB), set
    by set.

    ``limit`` takes that many pages a set, evenly spread over the set's pages in
    page-id order (so a limited run samples every sub-collection, e.g. Dragnet's three).
    Unusable items are logged, appended to ``skipped`` (source ``set:page``) and left out.
    """
    names = list(SETS) if sets is None else list(sets)
    unknown = [name for name in names if name not in ALL_SETS]
    if unknown:
        raise ValueError(f"unknown content set(s) {unknown}; known: {', '.join(ALL_SETS)}")
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    for name in names:
        root = (unpacked(corpus_path(WCXB_ARCHIVE), cache_dir) / "wcxb-dev" if name == WCXB
                else content_root(cache_dir=cache_dir))
        yield from _spread(_LOADERS[name](root, name), limit, name, skipped)


def _spread(
    loaders: list[tuple[str, PageLoader]], limit: int | None, name: str,
    skipped: list[Skipped] | None,
) -> Iterator[GoldPage]:
    """Run the loaders, evenly spread when limited; a failed pick gives way to a spare."""
    order = list(range(len(loaders)))
    if limit is not None and limit < len(loaders):
        step = len(loaders) / limit
        picks = [int(i * step) for i in range(limit)]
        picked = set(picks)
        rest = [i for i in order if i not in picked]
        order = picks + rest  # spares, used only when picked items fail
    yielded = 0
    for index in order:
        if limit is not None and yielded >= limit:
            return
        page_id, load = loaders[index]
        try:
            page = load()
        except (PageError, OSError, ValueError, KeyError, etree.LxmlError) as error:
            item = Skipped(f"{name}:{page_id}", str(getattr(error, "reason", error)))
            log.warning("skipped %s", item)
            if skipped is not None:
                skipped.append(item)
            continue
        yielded += 1
        yield page


def _natural_key(text: str) -> tuple[object, ...]:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text))


def _page_html(path: Path, source: str, header_charset: str | None = None) -> str:
    return decode_html(path.read_bytes(), source, header_charset=header_charset)


def _require_text(text: str, source: str) -> str:
    if not re.search(r"\w", text):
        raise PageError(source, "empty gold text")
    return text


def _trafilatura(root: Path, name: str) -> list[tuple[str, PageLoader]]:
    folder = root / "trafilatura"
    evaldata = json.loads((folder / "evaldata.json").read_text(encoding="utf-8"))

    def loader(url: str, file: str, keep: tuple[str, ...], drop: tuple[str, ...]) -> PageLoader:
        def load() -> GoldPage:
            source = f"{name}:{file}"
            paths = [folder / "pages" / sub / file for sub in ("cache", "eval")]
            path = next((p for p in paths if p.is_file()), None)
            if path is None:
                raise PageError(source, "page file missing")
            if not keep and not drop:
                raise PageError(source, "no snippets")
            return GoldPage(set_name=name, page_id=file, url=url,
                            html=_page_html(path, source), keep=keep, drop=drop)
        return load

    listed = []
    for url, item in evaldata.items():
        file = str(item["file"])
        keep = tuple(s for s in item.get("with", []) if s.strip())
        drop = tuple(s for s in item.get("without", []) if s.strip())
        listed.append((file, loader(url, file, keep, drop)))
    return sorted(listed, key=lambda pair: _natural_key(pair[0]))


def _readability(root: Path, name: str) -> list[tuple[str, PageLoader]]:
    folder = root / "readability" / "test" / "test-pages"

    def loader(page_dir: Path) -> PageLoader:
        def load() -> GoldPage:
            source = f"{name}:{page_dir.name}"
            expected = decode_html((page_dir / "expected.html").read_bytes(), source + " gold")
            gold = _require_text(html_text(expected), source)
            return GoldPage(set_name=name, page_id=page_dir.name, url=None,
                            html=_page_html(page_dir / "source.html", source), gold_text=gold)
        return load

    dirs = sorted((d for d in folder.iterdir() if d.is_dir()), key=lambda d: _natural_key(d.name))
    return [(d.name, loader(d)) for d in dirs]


def _cleaneval(root: Path, name: str) -> list[tuple[str, PageLoader]]:
    folder = root / name

    def loader(page: Path) -> PageLoader:
        def load() -> GoldPage:
            source = f"{name}:{page.stem}"
            gold_path = folder / "GoldStandard" / f"{page.stem}.txt"
            if not gold_path.is_file():
                raise PageError(source, "no gold text")
            gold = _require_text(cleaneval_gold(decode_text(gold_path.read_bytes())), source)
            data = page.read_bytes()
            charset = _WRAPPER_ENCODING.match(data[:4096])
            header = charset.group(1).decode("ascii", "replace") if charset else None
            html, url = unwrap_cleaneval(decode_html(data, source, header_charset=header))
            return GoldPage(set_name=name, page_id=page.stem, url=url, html=html, gold_text=gold)
        return load

    pages = sorted((folder / "input").glob("*.html"), key=lambda p: _natural_key(p.stem))
    return [(p.stem, loader(p)) for p in pages]


def _dragnet(root: Path, name: str) -> list[tuple[str, PageLoader]]:
    folder = root / "dragnet_data"

    def loader(page: Path) -> PageLoader:
        def load() -> GoldPage:
            source = f"{name}:{page.stem}"
            gold_path = folder / "GoldStandard" / f"{page.stem}.txt"
            if not gold_path.is_file():
                raise PageError(source, "no gold text")
            gold = _require_text(dragnet_gold(decode_text(gold_path.read_bytes())), source)
            return GoldPage(set_name=name, page_id=page.stem, url=None,
                            html=_page_html(page, source), gold_text=gold)
        return load

    pages = sorted((folder / "input").glob("*.html"), key=lambda p: _natural_key(p.stem))
    return [(p.stem, loader(p)) for p in pages]


def _chaos(root: Path, name: str) -> list[tuple[str, PageLoader]]:
    folder = root / "chaos"
    with (folder / "manifest.tsv").open(encoding="utf-8", newline="") as stream:
        rows = list(csv.DictReader(stream, delimiter="\t"))

    def loader(row: dict[str, str]) -> PageLoader:
        def load() -> GoldPage:
            page_id = Path(row["html"]).stem
            source = f"{name}:{page_id}"
            gold_path = folder / row["gold"]
            if not gold_path.is_file():
                raise PageError(source, "no gold text")
            gold = _require_text(decode_text(gold_path.read_bytes()).strip(), source)
            return GoldPage(set_name=name, page_id=page_id, url=row.get("url") or None,
                            html=_page_html(folder / row["html"], source), gold_text=gold)
        return load

    rows.sort(key=lambda row: _natural_key(Path(row["html"]).stem))
    return [(Path(row["html"]).stem, loader(row)) for row in rows]


def _wcxb(root: Path, name: str) -> list[tuple[str, PageLoader]]:
    # metadata.json lists 1,358 of the 1,497 pages; the page type is read from each gold
    # file, as the benchmark's own scorer does ("category" is its old name of "collection").
    listed = json.loads((root / "metadata.json").read_text(encoding="utf-8"))["files"]

    def loader(file_id: str) -> PageLoader:
        def load() -> GoldPage:
            source = f"{name}:{file_id}"
            data = json.loads((root / "dev" / "ground-truth" / f"{file_id}.json").read_bytes())
            gold = _require_text(data["ground_truth"].get("main_content") or "", source)
            kind = (data.get("_internal") or {}).get("page_type") or "article"
            kind = kind.get("primary", "article") if isinstance(kind, dict) else str(kind)
            url = data.get("url") or None
            domain = (listed.get(file_id) or {}).get("domain") or site_of(url)
            html = decode_html(gzip.decompress(
                (root / "dev" / "html" / f"{file_id}.html.gz").read_bytes()), source)
            return GoldPage(set_name=name, page_id=file_id, url=url, html=html, gold_text=gold,
                            page_type="collection" if kind == "category" else kind,
                            domain=domain)
        return load

    ids = sorted(path.name.split(".")[0] for path in (root / "dev" / "html").glob("*.html.gz"))
    return [(file_id, loader(file_id)) for file_id in ids]


_LOADERS: dict[str, Callable[[Path, str], list[tuple[str, PageLoader]]]] = {
    "trafilatura": _trafilatura,
    "readability": _readability,
    "cleaneval-dev": _cleaneval,
    "cleaneval-final": _cleaneval,
    "dragnet": _dragnet,
    "chaos": _chaos,
    WCXB: _wcxb,
}
