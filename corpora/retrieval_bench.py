"""Retrieval benchmark: keyphrase-labelled stories inside real sites' pages, and queries.

Run: ``python -m corpora.retrieval_bench OUT_DIR [--copies 3] [--min-stories 3]
[--seed 0]``. It writes ``OUT_DIR/pages/<site>/<story>~<k>.html`` (one folder a site,
so the site-level methods have each site's pages to fit on), ``OUT_DIR/queries.jsonl``
(per query: ``id``, ``kind``, ``query``, ``relevant`` page ids as
:func:`denoise.reader.read_pages` names them for ``OUT_DIR/pages``) and
``OUT_DIR/manifest.jsonl`` (per page: its id, story, host page and site). Nothing of it
is ever written into the repository: the pages hold third-party text.

Ma, Goharian & Chowdhury measured BM25 on a crawl of news sites with and without their
templates; no judged crawl exists here, so the set is built from real parts, as the
keyword benchmark is (:mod:`corpora.keyword_bench`): each 500N-KPCrowd story
(``keyphrases-dev``; :func:`corpora.keyword_bench.load_stories`) is put in place of the
main content of real pages of ``copies`` different sites (the ``sites-dev-news`` and
``sites-dev-docs`` pages with gold main text, :func:`corpora.dup_bench.site_pages`),
their templates kept (:func:`corpora.placement.place`). Every page of the index is
such a page: its template is real, its content a story.

Queries are text people wrote, and relevance comes from the annotations, never from
the system under test:

- **topical**: a keyphrase (lower-cased) that the crowd gave to at least
  ``min_stories`` stories; relevant: every page holding one of them. Many pages compete,
  and a site's template words (menus of sections, "Sport", "Politics") match such
  queries on every page of the site: where template removal should help.
- **known-item**: a story's title; relevant: the pages holding that story (its
  copies). A remover that drops headlines or first paragraphs loses here.

What it can show: how much a site's template, repeated on its pages, misleads BM25,
and what each remover costs in content. What it cannot: judgments are incomplete (a
story about a topic that its annotators did not name is counted not relevant, for
every system alike); the stories are 2010-2012 news, the hosts news and documentation
sites of 2000-2023; and the placed story sits where the host's article was, so a
remover that finds that spot finds the story (a real page's content is not always
one block).
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from corpora.dup_bench import site_pages
from corpora.hosts import HostPage, rank, site_key
from corpora.keyword_bench import Story, load_stories
from corpora.locate import builder_logging
from corpora.placement import PlacementError, place
from denoise.output import atomic_text
from denoise.validation import site_family

log = logging.getLogger(__name__)

DEFAULT_COPIES = 3
DEFAULT_MIN_STORIES = 3
MIN_QUERY_CHARS = 3  # a shorter keyphrase ("us", "uk") is not a query people type alone


@dataclass(frozen=True, slots=True)
class RetrievalPage:
    """A story in a host page."""

    id: str  # ``<site>/<story>~<copy>.html``, the id read_pages gives it under pages/
    story: Story
    host: HostPage
    html: str

    def record(self) -> dict[str, object]:
        return {"page": self.id, "story": self.story.id, "category": self.story.category,
                "host_page": self.host.id, "host_site": self.host.site}


@dataclass(frozen=True, slots=True)
class Query:
    """A query with the pages judged relevant to it."""

    id: str
    kind: str  # "topical" or "known-item"
    query: str
    relevant: tuple[str, ...]

    def record(self) -> dict[str, object]:
        return {"id": self.id, "kind": self.kind, "query": self.query,
                "relevant": list(self.relevant)}


def place_stories(stories: Sequence[Story], hosts: Iterable[HostPage], *,
                  copies: int = DEFAULT_COPIES, seed: int = 0) -> list[RetrievalPage]:
    """Each story into pages of ``copies`` different sites: sites taken in turn (so
    every site hosts about as many stories), a host page used once; a host that
    refuses a story (:class:`PlacementError`) is skipped and the next page of its site
    tried."""
    by_site: dict[str, list[HostPage]] = defaultdict(list)
    for host in hosts:
        by_site[site_key(host.site)].append(host)
    queues = {site: sorted(pages, key=lambda h: rank(seed, "host", h.id), reverse=True)
              for site, pages in by_site.items()}
    sites = sorted(queues, key=lambda s: rank(seed, "site", s))
    if len(sites) < copies:
        raise ValueError(f"{copies} copies need as many sites, there are {len(sites)}")
    reasons: Counter[str] = Counter()
    placed: list[RetrievalPage] = []
    turn = 0
    for story in sorted(stories, key=lambda s: rank(seed, "story", s.id)):
        used: set[str] = set()
        for _ in range(len(sites)):
            if len(used) == copies:
                break
            site = sites[turn % len(sites)]
            turn += 1
            queue = queues[site]
            while queue:
                host = queue.pop()
                try:
                    html = place(host.html, host.gold_text, story).html
                except PlacementError as error:
                    reasons[str(error).split(" (")[0]] += 1
                    continue
                folder = host.site.rsplit("/", 1)[-1]
                placed.append(RetrievalPage(
                    id=f"{folder}/{story.id}~{len(used)}.html", story=story, host=host,
                    html=html))
                used.add(site)
                break
        if len(used) < copies:
            log.warning("story %s placed %d times of %d: sites ran out of host pages",
                        story.id, len(used), copies)
    if reasons:
        log.info("host pages refused: %s", dict(reasons))
    return placed


def make_queries(pages: Sequence[RetrievalPage], *,
                 min_stories: int = DEFAULT_MIN_STORIES) -> list[Query]:
    """Topical queries (keyphrases of at least ``min_stories`` placed stories) and
    known-item queries (each placed story's title)."""
    pages_of: dict[str, list[str]] = defaultdict(list)
    stories: dict[str, Story] = {}
    for page in pages:
        pages_of[page.story.id].append(page.id)
        stories[page.story.id] = page.story
    tagged: dict[str, set[str]] = defaultdict(set)
    for story in stories.values():
        for phrase in story.keyphrases:
            phrase = " ".join(phrase.lower().split())
            if len(phrase) >= MIN_QUERY_CHARS and any(c.isalpha() for c in phrase):
                tagged[phrase].add(story.id)
    queries = []
    for phrase in sorted(tagged):
        if len(tagged[phrase]) >= min_stories:
            relevant = sorted(p for s in tagged[phrase] for p in pages_of[s])
            queries.append(Query(f"t{len(queries)}", "topical", phrase, tuple(relevant)))
    for story_id in sorted(stories):
        title = stories[story_id].title
        if title:
            queries.append(Query(f"k{story_id}", "known-item", title,
                                 tuple(sorted(pages_of[story_id]))))
    return queries


def write_benchmark(pages: Sequence[RetrievalPage], queries: Sequence[Query],
                    out_dir: str | Path) -> None:
    """Pages, queries and manifest under ``out_dir``, every file atomically."""
    out = Path(out_dir)
    for page in pages:
        path = out / "pages" / page.id
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_text(path) as stream:
            stream.write(page.html)
    with atomic_text(out / "queries.jsonl") as stream:
        stream.writelines(json.dumps(q.record(), ensure_ascii=False) + "\n" for q in queries)
    with atomic_text(out / "manifest.jsonl") as stream:
        stream.writelines(json.dumps(p.record(), ensure_ascii=False) + "\n" for p in pages)


def main(
    out_dir: Annotated[Path, typer.Argument(help="Folder to write the benchmark into.")],
    copies: Annotated[int, typer.Option(min=1, help="Sites each story is placed on.")
                      ] = DEFAULT_COPIES,
    min_stories: Annotated[int, typer.Option(
        min=2, help="Stories a keyphrase must be given to, to be a topical query.")
                           ] = DEFAULT_MIN_STORIES,
    families: Annotated[Path | None, typer.Option(
        help="A folds.json of benchmarks/heldout_detectors.py: only sites of the families "
        "it maps host stories, so that its held-out models cover every page.",
        show_default=False)] = None,
    seed: Annotated[int, typer.Option(help="Seed of every choice.")] = 0,
    verbose: Annotated[bool, typer.Option("--verbose", "-v")] = False,
) -> None:
    """Build the retrieval benchmark from the shared corpora."""
    builder_logging(verbose)
    start = time.perf_counter()
    hosts: Iterable[HostPage] = site_pages()
    if families is not None:
        covered = set(json.loads(families.read_text(encoding="utf-8")))
        hosts = (host for host in hosts if site_family(host.site) in covered)
    pages = place_stories(load_stories(), hosts, copies=copies, seed=seed)
    queries = make_queries(pages, min_stories=min_stories)
    write_benchmark(pages, queries, out_dir)
    kinds = Counter(q.kind for q in queries)
    sites = len({p.id.split("/")[0] for p in pages})
    typer.echo(f"{len(pages)} pages on {sites} sites, {kinds['topical']} topical and "
          f"{kinds['known-item']} known-item queries in {out_dir} "
          f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    typer.run(main)
