"""WebKB pages inside real news-site templates: one template site per university.

Run: ``python -m corpora.webkb_templated OUT_DIR [--seed 0] [--host UNIVERSITY=SITE ...]``.
It writes ``OUT_DIR/pages/<university>/<name>.html``, ``OUT_DIR/labels.tsv``
(``path<TAB>label``, the class: what ``mining classify`` reads) and
``OUT_DIR/manifest.tsv`` (per page: path, class, university, WebKB file and URL, host
site and page, how well the host's main element was found). Nothing of it is ever
written into the repository: the pages hold third-party text.

Why: Chakrabarti, Kumar & Punera (2007, 6.3) show template removal helping Naive Bayes
on binary problems whose two classes' training pages come from two different templated
sites: a FULLTEXT classifier learns the sites' template words. WebKB's 1996 university
pages have almost no template, so no de-noising can help there. This set gives WebKB
the paper's mechanism, from real parts: each university's pages are put into the
pages of one real news site, in place of the site's main content, the site's
template kept. It is a constructed experiment, and is to be reported as one.

Choices, and why:

- **Host sites** (:data:`DEFAULT_HOSTS`, fixed, not seeded): cornell in ``bbc``, texas
  in ``cnn``, washington in ``foxnews``, wisconsin in ``yahoo`` (universities and
  families both in alphabetical order). ``--host`` changes one. A name is a site folder
  of ``sites-dev-news`` (its last part, e.g. ``www.cnn.com``) or a site family
  (:func:`corpora.hosts.site_key`); a family means its folder with the most pages with
  gold (the ``github-news-ctf`` one: about 100 pages, 25 from each of four eras, 2000 to
  2015, so one site shows up to four templates, as a real site does over time). Four
  different families are required: two universities in one template would share it.
  A name is taken for a full folder path first, then for a family, then for a folder's
  last part (``bbc`` is a family and also a ``github-news-msv`` folder: the family wins;
  ``github-news-msv/bbc`` names that folder).
- **Host pages**: the site's pages with a gold main text that
  :func:`corpora.placement.check_host` accepts (refused ones are counted by reason), in
  seeded rank order (:func:`corpora.hosts.rank`). A university's WebKB pages, in seeded
  rank order, go round them: page *i* into host page *i* mod *n*. A university has 2.2
  to 3.1 times as many pages as its site has hosts, so **each host page is used two to
  four times**, by pages of whatever classes come up: no host page, era or left-over
  sidebar (the removed article's "related stories", which stay: they are the host's,
  not the placed page's) goes with one class.
- **What is placed** (:func:`webkb_text`): the WebKB page's visible body text as the
  toolkit's FULLTEXT reads it (``mining.content.page_texts(..., "none")``: one line per
  block, the source's line breaks inside a block joined, so a paragraph wrapped in the
  1996 source stays one paragraph; frameset and "Frame ALERT!" pages come out empty),
  blank lines dropped. The title is its ``<title>``, else its first line; a first body
  line that repeats the title is dropped (the page shows its title once, as the host's
  headline). The lines
  become paragraphs (:class:`corpora.placement.Text`: a long line is cut every three
  sentences). The WebKB page's own markup (links, lists, tables) is not kept: the placed
  content is plain paragraphs, the host's template all markup of its own, which makes
  the content easier for a page-level detector to keep than the real page's link lists
  would be. A page with no body text is skipped. Characters XML cannot hold (control
  characters) are dropped.
- **Placement**: :func:`corpora.placement.place`: the host's main element gets the
  title and paragraphs, the old headline the title, the rest of the old article outside
  it is removed, the host's template (navigation, sidebars, footer, styles) is kept.
- **Pages**: the four classes (course, faculty, project, student) of the four
  universities; ``misc`` (no university, so no host site) and the other classes are not
  placed. URLs filed under two classes are dropped as in
  :func:`corpora.webkb.drop_conflicting_urls` (none of these classes has one). A page's
  file name is a digest of its WebKB file (``pages/<university>/<10 hex>.html``): names
  say nothing of the class. Files are UTF-8, each written atomically; ``.html`` files of
  an earlier build that this one does not have are removed.
"""

from __future__ import annotations

import csv
import hashlib
import io
import logging
import re
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import typer

from corpora.hosts import HostPage, rank, site_hosts, site_key
from corpora.locate import builder_logging, corpus_path
from corpora.placement import PlacementError, Text, check_host, place
from corpora.webkb import MAIN_CLASSES, UNIVERSITIES, WebKBPage, drop_conflicting_urls, read_webkb
from denoise.blocks import segment
from denoise.detector import block_lines
from denoise.errors import PageError
from denoise.features import SCHEME
from denoise.html import parse_html
from denoise.output import atomic_text
from denoise.page import Page
from denoise.reader import Skipped

log = logging.getLogger(__name__)

NEWS_ARCHIVE = "sites-dev-news.tar.xz"
#: University -> host site (a family or a site folder of ``sites-dev-news``).
DEFAULT_HOSTS = {"cornell": "bbc", "texas": "cnn", "washington": "foxnews", "wisconsin": "yahoo"}
LABELS = "labels.tsv"
MANIFEST = "manifest.tsv"
PAGES = "pages"
MANIFEST_FIELDS = ("path", "class", "university", "webkb_file", "webkb_url", "host_site",
                   "host_page", "f1", "removed_chars")

_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


@dataclass(frozen=True, slots=True, kw_only=True)
class TemplatedPage:
    """A WebKB page placed into a page of its university's host site."""

    path: str  # pages/<university>/<name>.html, relative to the output folder
    label: str
    university: str
    webkb: WebKBPage = field(repr=False)
    host: HostPage = field(repr=False)
    html: str = field(repr=False)
    f1: float  # how well the replaced element covered the host's gold
    removed_chars: int  # old-article text removed outside that element

    def record(self) -> dict[str, str]:
        """The page's manifest line."""
        return {"path": self.path, "class": self.label, "university": self.university,
                "webkb_file": self.webkb.page.id, "webkb_url": self.webkb.page.url or "",
                "host_site": self.host.site, "host_page": self.host.id,
                "f1": f"{self.f1:.3f}", "removed_chars": str(self.removed_chars)}


@dataclass(frozen=True, slots=True, kw_only=True)
class TemplatedSet:
    """The placed pages, and what was left out, by reason."""

    pages: tuple[TemplatedPage, ...]
    hosts: dict[str, str]  # university -> host site
    host_pages: dict[str, int]  # university -> host pages that took pages
    hosts_refused: dict[str, int]  # reason -> host pages placement refused
    skipped: dict[str, int]  # reason -> WebKB pages not placed


def webkb_text(html: str, source: str = "<html>") -> Text | None:
    """A WebKB page as a placeable: its title and body text lines (None without body
    text). Raises :class:`~denoise.errors.PageError` for a page lxml cannot parse."""
    root = parse_html(html, source)
    title = next((" ".join("".join(t.itertext()).split()) for t in root.iter("title")), "")
    blocks = segment(Page(id=source, html=html), SCHEME)
    lines = [" ".join(_XML_ILLEGAL.sub("", line).split())
             for line in block_lines(blocks, blocks.chunk_block >= 0).split("\n")]
    lines = [line for line in lines if line]
    if not lines:
        return None
    title = " ".join(_XML_ILLEGAL.sub("", title).split()) or lines[0]
    if lines[0].lower() == title.lower():
        lines = lines[1:]
    return Text(title, "\n".join(lines))


def page_name(webkb_file: str) -> str:
    """The file name of a placed page: a digest of its WebKB file, saying nothing of
    its class."""
    return hashlib.blake2b(webkb_file.encode(), digest_size=5).hexdigest() + ".html"


def resolve_hosts(hosts: Iterable[HostPage],
                  wanted: Mapping[str, str]) -> dict[str, list[HostPage]]:
    """University -> the host pages of its site (see the module doc for names)."""
    by_site: dict[str, list[HostPage]] = {}
    for host in hosts:
        by_site.setdefault(host.site, []).append(host)
    chosen: dict[str, list[HostPage]] = {}
    for university, name in wanted.items():
        if name in by_site:  # a folder's full path
            folders = [name]
        elif name in {site_key(s) for s in by_site}:  # a family: its largest folder
            folders = sorted((s for s in by_site if site_key(s) == name),
                             key=lambda s: (-len(by_site[s]), s))[:1]
        else:  # a folder's last part
            folders = [s for s in by_site if s.rstrip("/").rsplit("/", 1)[-1] == name]
        if len(folders) != 1:
            known = sorted({site_key(s) for s in by_site})
            raise ValueError(f"{university}: no single host site {name!r} "
                             f"(found {folders or 'none'}; families: {', '.join(known)})")
        chosen[university] = by_site[folders[0]]
    families = Counter(site_key(pages[0].site) for pages in chosen.values())
    if any(n > 1 for n in families.values()):
        raise ValueError(f"two universities in one site family: {dict(families)}")
    return chosen


def assemble(pages: Iterable[WebKBPage], hosts: Mapping[str, Sequence[HostPage]], *,
             seed: int = 0) -> TemplatedSet:
    """Every page of the four classes of a university in ``hosts`` placed into that
    university's host pages, round them in seeded order; pages of other universities
    are skipped, pages of other classes ignored (they only count for
    :func:`~corpora.webkb.drop_conflicting_urls`)."""
    refused: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    usable: dict[str, list[HostPage]] = {}
    for university, site_pages in hosts.items():
        usable[university] = []
        for host in sorted(site_pages, key=lambda h: rank(seed, "host", h.id)):
            try:
                check_host(host.html, host.gold_text)
            except PlacementError as error:
                refused[_reason(error)] += 1
                log.info("host %s refused: %s", host.id, error)
                continue
            usable[university].append(host)
        if not usable[university]:
            raise ValueError(f"{university}: no page of its host site can take a page "
                             f"({dict(refused)})")
    kept, dropped = drop_conflicting_urls(pages)  # over every class given, as webkb.py does
    skipped["URL filed under two classes"] += sum(p.label in MAIN_CLASSES for p in dropped)
    by_university: dict[str, list[WebKBPage]] = {}
    for item in kept:
        if item.label not in MAIN_CLASSES:
            continue
        if item.university in usable:
            by_university.setdefault(item.university, []).append(item)
        else:
            skipped["no host site for its university"] += 1
    placed: list[TemplatedPage] = []
    names: set[str] = set()
    used_hosts: dict[str, int] = {}
    for university in hosts:
        queue = sorted(by_university.get(university, []),
                       key=lambda p: rank(seed, "page", p.page.id))
        site_pages = usable[university]
        taken: set[str] = set()
        number = 0
        for item in queue:
            try:
                text = webkb_text(item.page.html, item.page.id)
            except PageError as error:
                skipped[f"unparsable ({error.reason})"] += 1
                continue
            if text is None:
                skipped["no body text"] += 1
                continue
            host = site_pages[number % len(site_pages)]
            try:
                result = place(host.html, host.gold_text, text)
            except (PlacementError, ValueError) as error:
                skipped[f"placement failed ({_reason(error)})"] += 1
                log.info("%s not placed into %s: %s", item.page.id, host.id, error)
                continue
            number += 1
            taken.add(host.id)
            path = f"{PAGES}/{university}/{page_name(item.page.id)}"
            if path in names:
                raise ValueError(f"two pages would be written as {path}")
            names.add(path)
            placed.append(TemplatedPage(path=path, label=item.label, university=university,
                                        webkb=item, host=host, html=result.html, f1=result.f1,
                                        removed_chars=result.removed_chars))
        used_hosts[university] = len(taken)
    return TemplatedSet(pages=tuple(placed),
                        hosts={u: pages[0].site for u, pages in hosts.items() if pages},
                        host_pages=used_hosts, hosts_refused=dict(refused), skipped=dict(skipped))


def _reason(error: Exception) -> str:
    return str(error).split(" (")[0]


def write_set(templated: TemplatedSet, out_dir: str | Path) -> None:
    """The pages, ``labels.tsv`` and ``manifest.tsv``, each file written atomically;
    ``.html`` files under ``pages/`` that this build does not have are removed."""
    out = Path(out_dir)
    for page in templated.pages:
        (out / page.path).parent.mkdir(parents=True, exist_ok=True)  # atomic_text makes none
        with atomic_text(out / page.path) as stream:
            stream.write(page.html)
    kept = {out / page.path for page in templated.pages}
    if (out / PAGES).is_dir():
        for path in (out / PAGES).glob("*/*.html"):
            if path not in kept:
                path.unlink()
    with atomic_text(out / LABELS) as stream:
        stream.write("path\tlabel\n")
        stream.writelines(f"{page.path}\t{page.label}\n" for page in templated.pages)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=MANIFEST_FIELDS, delimiter="\t",
                            lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writeheader()
    writer.writerows(page.record() for page in templated.pages)
    with atomic_text(out / MANIFEST) as stream:
        stream.write(buffer.getvalue())


def read_manifest(out_dir: str | Path) -> list[dict[str, str]]:
    """The manifest lines of a built set, in file order."""
    with (Path(out_dir) / MANIFEST).open(encoding="utf-8", newline="") as stream:
        return list(csv.DictReader(stream, delimiter="\t"))


def build(out_dir: str | Path, *, hosts: Mapping[str, str] = DEFAULT_HOSTS, seed: int = 0,
          webkb_archive: Path | None = None, news_archive: Path | None = None
          ) -> tuple[TemplatedSet, int, float]:
    """Build the set from the shared corpora into ``out_dir``; also the number of WebKB
    pages of the four classes that could not be read, and the seconds it took."""
    started = time.perf_counter()
    unknown = set(hosts) - set(UNIVERSITIES)
    if unknown:
        raise ValueError(f"not a WebKB university: {', '.join(sorted(unknown))}")
    unreadable: list[Skipped] = []
    pages = read_webkb(webkb_archive, universities=list(hosts), skipped=unreadable)
    chosen = resolve_hosts(site_hosts(news_archive or corpus_path(NEWS_ARCHIVE)), hosts)
    templated = assemble(pages, chosen, seed=seed)
    write_set(templated, out_dir)
    unreadable_main = sum(_class_of(s.source) in MAIN_CLASSES for s in unreadable)
    return templated, unreadable_main, time.perf_counter() - started


def _class_of(webkb_file: str) -> str:
    """The class folder of a WebKB file (``pages/<class>/<university>/NNNN.http``)."""
    parts = webkb_file.split("/")
    return parts[1] if len(parts) > 2 else ""


# --- command line --------------------------------------------------------------------

app = typer.Typer(add_completion=False, help=__doc__.split("\n")[0])


def _parse_hosts(given: list[str]) -> dict[str, str]:
    hosts = dict(DEFAULT_HOSTS)
    for item in given:
        university, equals, site = item.partition("=")
        if not equals or university not in UNIVERSITIES or not site:
            raise typer.BadParameter(f"expected UNIVERSITY=SITE with a university of "
                                     f"{', '.join(UNIVERSITIES)}, got {item!r}",
                                     param_hint="--host")
        hosts[university] = site
    return hosts


@app.command()
def main(
    out_dir: Annotated[Path, typer.Argument(help="Where to write pages/, labels.tsv and "
                                             "manifest.tsv.", show_default=False)],
    seed: Annotated[int, typer.Option(help="Seed of the page and host orders.")] = 0,
    host: Annotated[list[str] | None, typer.Option(
        help="UNIVERSITY=SITE: a university's host site (a sites-dev-news folder or a site "
        "family); repeat for more. Default: cornell=bbc, texas=cnn, washington=foxnews, "
        "wisconsin=yahoo.")] = None,
    webkb_archive: Annotated[Path | None, typer.Option(
        help="webkb.tar.xz (default: the shared one).")] = None,
    verbose: Annotated[bool, typer.Option(help="Log every page and host left out.")] = False,
) -> None:
    """Build the templated WebKB set: each university's pages in one news site's pages."""
    builder_logging(verbose)
    hosts = _parse_hosts(host or [])
    try:
        templated, unreadable, seconds = build(out_dir, hosts=hosts, seed=seed,
                                               webkb_archive=webkb_archive)
    except (ValueError, OSError) as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(1) from None
    counts = Counter((p.university, p.label) for p in templated.pages)
    lines = [f"{out_dir}: {len(templated.pages)} WebKB pages placed into news-site templates"]
    for university in hosts:
        per_class = ", ".join(f"{c} {counts[university, c]}" for c in MAIN_CLASSES)
        placed = sum(counts[university, c] for c in MAIN_CLASSES)
        used = templated.host_pages.get(university, 0)
        lines.append(f"  {university} in {templated.hosts.get(university, '?')}: {placed} pages "
                     f"({per_class}) on {used} host pages "
                     f"({placed / used if used else 0:.1f} pages a host page)")
    skipped = ", ".join(f"{r}: {n}" for r, n in sorted(templated.skipped.items()) if n)
    refused = ", ".join(f"{r}: {n}" for r, n in sorted(templated.hosts_refused.items()))
    lines.append(f"skipped WebKB pages: {unreadable} unreadable; {skipped or 'no other'}")
    lines.append(f"host pages refused by placement: {refused or 'none'}")
    lines.append(f"{seconds:.0f} s")
    typer.echo("\n".join(lines))


if __name__ == "__main__":
    app()
