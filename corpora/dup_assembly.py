"""Assembling the near-duplicate benchmark (:mod:`corpora.dup_bench`) from real parts.

:func:`assemble` takes the pages of sites (with gold main text) and single pages of
other sites, and returns the pages to write and the labelled pairs.

Choices, and why:

- **Sites**: of each site, the :data:`POOL_PAGES` gold pages of lowest seeded rank are
  the only ones that can be written (memory and output size), less the pages whose gold
  has a near-duplicate among them: a gold repeated over a site is no article of its own
  (``lilypond``'s XPath selects the table of contents; ``rust-book`` has many copies of
  one "no longer distributed" stub), and two copies of a story on a site look like
  template to the site level. A site left with fewer than :data:`MIN_SITE_PAGES` is
  left out (the site level needs many pages of a site). A site's identity is
  :func:`corpora.hosts.site_key` (``www.cnn.com`` and ``cnn`` of the two news corpora
  are one publisher); its output folder is the last part of its path.
- **Contents**: half from the sites' own pages (the page stays in its folder, one of
  the duplicates), half from the single pages (their one page alone is no site, so it
  is not written): gold texts that are articles (:func:`corpora.articles.content_of`),
  in seeded rank order. Left out: a near-duplicate of a content already taken (two
  reports of one agency story would be an unlabelled duplicate pair, and two copies on
  one site look like template to the site level); an own page showing less than
  :data:`MIN_SHOWN` of its gold's shingles (then it is not the gold's page).
- **Duplicates**: every content is on :data:`COPIES` sites of different families, as a
  song was on three lyrics sites, and every two of its pages are a duplicate pair: an
  own page and its copies (the real article beside the text a person extracted from
  it), or copies only.
- **Hosts**: a copy goes to the site with the fewest copies so far (ties by seeded
  rank) whose family is neither the content's nor another copy's and none of whose
  pool pages is a near-duplicate of the content (no second copy of the story on the
  site); there, up to :data:`HOST_TRIES` unused pages are tried in rank order. A page
  is used once: as a host, or as itself. Pages :func:`corpora.placement.place` refuses
  are counted by reason; a site whose first :data:`DEAD_AFTER` tries all fail hosts no
  more (``cppreference``'s XPath covers the whole page: no template around it). A
  content left with fewer than :data:`COPIES` pages is dropped.
- **Distinct pairs**: two pages of one site with different articles (their contents
  not near-duplicates, so a real near-duplicate pair of the site is never called
  distinct), from sites that took a copy (so a template around the main element
  exists). News pages are paired within one capture year (file prefix
  ``2005__``): one template, the hard case. Pairs are disjoint, taken round the sites in
  rank order. Most are two real pages (the paper's kind); :data:`PLACED_DISTINCT_SHARE`
  are two placed pages, so placed pages stand on both sides of the labels and a
  detector that treats them differently (dropping a placed article, say) is caught
  either way.
- **Site folders** with pages get more of their real pages, in rank order, up to
  :data:`MIN_SITE_PAGES`, so site-level statistics rest on many pages (the paper's
  SITELEVEL ran on whole sites); those are in no pair.
- **Near-duplicates**: Jaccard of the paper's word shingles of at least
  :data:`corpora.articles.NEAR_DUPLICATE` (:func:`corpora.articles.jaccard`).
- **Pages**: real pages go through :func:`corpora.placement.clean_page`, the cleaning
  placed pages get, so the two kinds differ only in what was placed. A real page keeps
  its corpus file name; a placed page is ``<host name>--<content name>``. Every seeded
  choice is a :func:`corpora.hosts.rank`: the same benchmark for a seed on any machine.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TypeVar

import numpy as np

from corpora.articles import NEAR_DUPLICATE, Content, common, content_of, jaccard, shingles
from corpora.content import html_text
from corpora.hosts import HostPage, rank, site_key
from corpora.placement import PlacementError, clean_page, place

log = logging.getLogger(__name__)

COPIES = 3  # pages (sites) each content is on
PLACED_DISTINCT_SHARE = 0.25
POOL_PAGES = 40  # real pages of a site that can be written
MIN_SITE_PAGES = 20  # gold pages a site needs; pages its folder is filled up to
HOST_TRIES = 3  # pages of a site tried for one copy
DEAD_AFTER = 6  # failed tries, none successful, before a site hosts no more
MIN_SHOWN = 0.8  # share of its gold's shingles an own page must show

_ERA = re.compile(r"^(\d{4})__")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_HTML_SUFFIX = re.compile(r"\.html?(?:\.gz)?$", re.I)
_Item = TypeVar("_Item")


@dataclass(frozen=True, slots=True, kw_only=True)
class BenchPage:
    """One page to write: a real page of a site, or a content placed into one."""

    id: str  # ``<site folder>/<name>.html``, as read_pages gives it under pages/
    kind: str  # "real" or "placed"
    page: str  # the corpus page: the page itself, or the host
    content: str  # the corpus page whose main content it shows
    content_source: str
    html: str = field(repr=False)
    shingles: np.ndarray = field(repr=False, compare=False)  # of the content it shows
    f1: float | None = None  # placed: how well the host's main element was found
    removed_chars: int = 0

    def record(self) -> dict[str, object]:
        """The page's manifest line."""
        record: dict[str, object] = {
            "id": self.id, "site": self.id.split("/", 1)[0], "kind": self.kind,
            "page": self.page, "content": self.content, "content_source": self.content_source}
        if self.f1 is not None:
            record |= {"f1": round(self.f1, 3), "removed_chars": self.removed_chars}
        return record


@dataclass(frozen=True, slots=True)
class Pair:
    """Two page ids and their label; ``kind`` says which pages (real / placed) they are."""

    a: str
    b: str
    label: str  # "duplicate" or "distinct"
    kind: str  # "real-placed", "placed-placed" or "real-real"


@dataclass(frozen=True, slots=True, kw_only=True)
class DupBench:
    """The pages, the labelled pairs, and counts of everything left out, by reason."""

    pages: tuple[BenchPage, ...]
    pairs: tuple[Pair, ...]
    contents: dict[str, int]  # contents used, by source
    left_out: dict[str, int]  # contents, sites and host pages left out, by reason


@dataclass(slots=True)
class _Site:
    """A site's pool of real pages and what became of them."""

    folder: str
    key: str  # corpora.hosts.site_key: the publisher
    pages: list[HostPage]  # the pool, in rank order
    gold: dict[str, np.ndarray]  # page id -> shingles of its gold text
    hosts: set[str] = field(default_factory=set)  # pages a content was placed into
    tried: set[str] = field(default_factory=set)  # pages placement refused
    originals: set[str] = field(default_factory=set)  # own pages of contents
    placed: list[BenchPage] = field(default_factory=list)

    @property
    def hosting(self) -> bool:
        """Whether the site still takes copies: it took one, or not all tries failed yet."""
        return bool(self.placed) or len(self.tried) < DEAD_AFTER

    def near(self, content: Content) -> bool:
        """Whether a pool page is a near-duplicate of ``content``."""
        return any(jaccard(content.shingles, gold) >= NEAR_DUPLICATE
                   for gold in self.gold.values())


class _Builder:
    """One assembly: the sites, the contents taken, the pages to write, the pairs."""

    def __init__(self, sites: list[_Site], *, seed: int, copies: int) -> None:
        self.sites, self.seed, self.copies = sites, seed, copies
        self.left_out: Counter[str] = Counter()
        self.contents: list[Content] = []
        self.pairs: list[Pair] = []
        self.written: dict[str, BenchPage] = {}  # by page id
        self._real: dict[str, BenchPage | None] = {}  # cleaned real pages by corpus id

    def real_page(self, site: _Site, page: HostPage) -> BenchPage | None:
        """``page`` as itself, cleaned (None when it cannot be parsed)."""
        if page.id not in self._real:
            try:
                html = clean_page(page.html)
            except PlacementError as error:
                self.left_out[f"real page: {_reason(error)}"] += 1
                self._real[page.id] = None
            else:
                self._real[page.id] = BenchPage(
                    id=f"{site.folder}/{_stem(page.id)}.html", kind="real", page=page.id,
                    content=page.id, content_source=page.source, html=html,
                    shingles=site.gold[page.id])
        return self._real[page.id]

    def _write(self, *pages: BenchPage) -> None:
        for page in pages:
            if self.written.setdefault(page.id, page).page != page.page:
                raise ValueError(f"two pages would be written as {page.id}")

    def add(self, candidates: Iterator[tuple[Content, _Site | None]], wanted: int) -> int:
        """Take up to ``wanted`` contents from ``candidates`` (each with its own site
        when its own page is to be one of its duplicates), in order; return how many."""
        taken = 0
        while taken < wanted and (item := next(candidates, None)) is not None:
            content, own = item
            reason, copies = self._refused(content, own), None
            if reason is None:
                original = self._shown(own, content) if own is not None else None
                if own is not None and original is None:
                    reason = "its page does not show its gold"
                elif (copies := self._place(content, original)) is None:
                    reason = "too few host sites"
            if copies is None:
                self.left_out[f"content: {reason}"] += 1
                log.info("content %s left out: %s", content.id, reason)
                continue
            self.contents.append(content)
            self._write(*copies)
            self.pairs += [Pair(a.id, b.id, "duplicate", f"{a.kind}-{b.kind}")
                           for a, b in itertools.combinations(copies, 2)]
            taken += 1
        return taken

    def _refused(self, content: Content, own: _Site | None) -> str | None:
        if own is not None and content.id in own.hosts:
            return "its page is a host"
        if any(jaccard(content.shingles, c.shingles) >= NEAR_DUPLICATE for c in self.contents):
            return "near-duplicate of another content"
        return None

    def _shown(self, site: _Site, content: Content) -> tuple[_Site, BenchPage] | None:
        """The content's own page, when it shows at least MIN_SHOWN of its shingles."""
        page = self.real_page(site, next(p for p in site.pages if p.id == content.id))
        if page is None:
            return None
        shown = shingles(html_text(page.html, skip_head=True))
        enough = common(content.shingles, shown) >= MIN_SHOWN * len(content.shingles)
        return (site, page) if enough else None

    def _place(self, content: Content, original: tuple[_Site, BenchPage] | None
               ) -> list[BenchPage] | None:
        """The content's pages (its own first), committed only when all are found."""
        chosen = [original] if original is not None else []
        families = {site_key(content.site)}
        order = sorted((s for s in self.sites if s.hosting), key=lambda s: (
            len(s.placed), rank(self.seed, "site", content.id, s.folder)))
        for site in order:
            if len(chosen) == self.copies:
                break
            if site.key not in families and not site.near(content):
                page = self._host(site, content)
                if page is not None:
                    chosen.append((site, page))
                    families.add(site.key)
        if len(chosen) < self.copies:
            return None
        for site, page in chosen:
            if page.kind == "placed":
                site.hosts.add(page.page)
                site.placed.append(page)
            else:
                site.originals.add(page.page)
        return [page for _, page in chosen]

    def _host(self, site: _Site, content: Content) -> BenchPage | None:
        """``content`` in the first of up to HOST_TRIES unused pages that takes it."""
        tries = 0
        for host in site.pages:
            if tries == HOST_TRIES or not site.hosting:
                break
            if host.id in site.hosts or host.id in site.tried or host.id in site.originals:
                continue
            tries += 1
            try:
                placed = place(host.html, host.gold_text, content)
            except PlacementError as error:
                site.tried.add(host.id)  # never tried again; it can still be a real page
                self.left_out[f"host page: {_reason(error)}"] += 1
                log.info("host %s refused %s: %s", host.id, content.id, error)
                continue
            name = f"{_stem(host.id)[:100]}--{_UNSAFE.sub('-', _stem(content.id))[:60]}"
            return BenchPage(id=f"{site.folder}/{name}.html", kind="placed", page=host.id,
                             content=content.id, content_source=content.source,
                             html=placed.html, shingles=content.shingles, f1=placed.f1,
                             removed_chars=placed.removed_chars)
        return None

    def distinct(self, wanted: int) -> None:
        """Distinct pairs of hosting sites: a share of placed pages, the rest (and what
        the placed pages could not fill) of real pages."""
        sites = sorted((s for s in self.sites if s.placed),
                       key=lambda s: rank(self.seed, "distinct", s.folder))
        placed = [_disjoint_pairs(s.placed, lambda p: p.page, lambda p: p.shingles)
                  for s in sites]
        taken = self._take(sites, placed, round(wanted * PLACED_DISTINCT_SHARE),
                           lambda _, page: page)
        real = [_disjoint_pairs([p for p in s.pages if p.id not in s.hosts],
                                lambda p: p.id, lambda p, s=s: s.gold[p.id]) for s in sites]
        self._take(sites, real, wanted - taken, self.real_page)

    def _take(self, sites: list[_Site], queues: list[list[tuple[_Item, _Item]]], wanted: int,
              page_of: Callable[[_Site, _Item], BenchPage | None]) -> int:
        """Up to ``wanted`` pairs, one from each site's queue in turn."""
        taken = 0
        while taken < wanted and any(queues):
            for site, queue in zip(sites, queues, strict=True):
                if taken < wanted and queue:
                    first, second = queue.pop(0)
                    a, b = page_of(site, first), page_of(site, second)
                    if a is not None and b is not None:
                        self._write(a, b)
                        self.pairs.append(Pair(a.id, b.id, "distinct", f"{a.kind}-{b.kind}"))
                        taken += 1
        return taken

    def fill(self, min_pages: int) -> list[BenchPage]:
        """Every page to write, each site folder filled up to ``min_pages`` with more of
        its real pages (in no pair), sorted by id."""
        per_folder = Counter(page_id.split("/", 1)[0] for page_id in self.written)
        for site in self.sites:
            for page in site.pages:
                if not per_folder[site.folder] or per_folder[site.folder] >= min_pages:
                    break
                real = None if page.id in site.hosts else self.real_page(site, page)
                if real is not None and real.id not in self.written:
                    self._write(real)
                    per_folder[site.folder] += 1
        return [self.written[page_id] for page_id in sorted(self.written)]


def _disjoint_pairs(items: list[_Item], page_of: Callable[[_Item], str],
                    shingles_of: Callable[[_Item], np.ndarray]) -> list[tuple[_Item, _Item]]:
    """Disjoint pairs of ``items`` of one capture year and different contents, greedily
    in order (each with the first later item it can go with)."""
    pairs, free = [], list(items)
    while free:
        a = free.pop(0)
        for j, b in enumerate(free):
            if _era(page_of(a)) == _era(page_of(b)) and jaccard(
                    shingles_of(a), shingles_of(b)) < NEAR_DUPLICATE:
                pairs.append((a, free.pop(j)))
                break
    return pairs


def _era(page_id: str) -> str:
    """A news page's capture year (its file prefix), else ``""``."""
    found = _ERA.match(PurePosixPath(page_id).name)
    return found.group(1) if found else ""


def _stem(page_id: str) -> str:
    return _HTML_SUFFIX.sub("", PurePosixPath(page_id).name)


def _reason(error: PlacementError) -> str:
    return str(error).split(" (")[0]


def _sites(site_pages: Iterable[HostPage], *, seed: int, pool_pages: int, min_pages: int,
           left_out: Counter[str]) -> list[_Site]:
    """The site pools: per site the ``pool_pages`` gold pages of lowest rank, less those
    with a near-duplicate among them; sites left with fewer than ``min_pages`` are out."""
    pools: dict[str, list[tuple[bytes, HostPage]]] = {}
    for page in site_pages:
        pool = pools.setdefault(page.site, [])
        pool.append((rank(seed, "page", page.id), page))
        if len(pool) > pool_pages:
            pool.sort(key=lambda entry: entry[0])
            del pool[pool_pages:]
    sites: list[_Site] = []
    folders: dict[str, str] = {}
    for name, pool in pools.items():
        pages = [page for _, page in sorted(pool, key=lambda entry: entry[0])]
        gold = {page.id: shingles(page.gold_text) for page in pages}
        alike = {page_id for a, b in itertools.combinations(gold, 2)
                 if jaccard(gold[a], gold[b]) >= NEAR_DUPLICATE for page_id in (a, b)}
        left_out["site page: a near-duplicate on its site"] += len(alike)
        pages = [page for page in pages if page.id not in alike]
        if len(pages) < min_pages:
            left_out["site: too few pages with gold of their own"] += 1
            continue
        folder = name.rstrip("/").rsplit("/", 1)[-1]
        if folders.setdefault(folder, name) != name:
            raise ValueError(f"sites {folders[folder]} and {name} share the folder {folder}")
        sites.append(_Site(folder=folder, key=site_key(name), pages=pages,
                           gold={page.id: gold[page.id] for page in pages}))
    return sites


def assemble(site_pages: Iterable[HostPage], other_pages: Iterable[HostPage], *,
             contents: int, distinct: int, seed: int = 0, copies: int = COPIES,
             min_site_pages: int = MIN_SITE_PAGES, pool_pages: int = POOL_PAGES,
             own_sources: Collection[str] | None = None) -> DupBench:
    """``contents`` contents on ``copies`` sites each, half of them from ``site_pages``
    (the sites; only pages of ``own_sources`` when given), half from ``other_pages``
    (single pages of other sites), and ``distinct`` distinct pairs."""
    if copies < 2:
        raise ValueError(f"a content needs at least 2 pages, not {copies}")
    if min(contents, distinct) < 0 or not 0 < min_site_pages <= pool_pages:
        raise ValueError("counts must be >= 0 and 0 < min_site_pages <= pool_pages")
    left_out: Counter[str] = Counter()
    sites = _sites(site_pages, seed=seed, pool_pages=pool_pages, min_pages=min_site_pages,
                   left_out=left_out)
    builder = _Builder(sites, seed=seed, copies=copies)
    own = iter(sorted(((content, site) for site in sites for page in site.pages
                       if (own_sources is None or page.source in own_sources)
                       and (content := content_of(page)) is not None),
                      key=lambda item: rank(seed, "content", item[0].id)))
    others: list[tuple[Content, _Site | None]] = []
    for page in other_pages:
        if (content := content_of(page)) is None:
            left_out["content: not an article (title, length)"] += 1
        else:
            others.append((content, None))
    others.sort(key=lambda item: rank(seed, "content", item[0].id))
    taken = builder.add(own, contents // 2)
    taken += builder.add(iter(others), contents - taken)
    builder.add(own, contents - taken)  # too few others: more of the sites' own
    builder.distinct(distinct)
    pages = builder.fill(min_site_pages)
    return DupBench(pages=tuple(pages), pairs=tuple(builder.pairs),
                    contents=dict(Counter(c.source for c in builder.contents)),
                    left_out=dict(left_out + builder.left_out))
