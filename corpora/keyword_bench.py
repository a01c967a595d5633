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
  by category). Every seeded choice is a rank (:func:`corpora.hosts.rank`): a BLAKE2
  digest of the seed and the item's name, so the build is the same for a seed on any
  machine and adding one story moves no other.
- **Test hosts**: the pages of the test site (default ``entertainment.msn.com``, 102
  pages of four eras with human-extracted main text in ``sites-dev-news``: a nod to
  the paper's MSN test set). Test stories go round its pages in rank order, so a page
  takes a second story only when stories outnumber pages.
- **Training hosts**: one page per *site*, every site used once, and never a site of the
  test site's family (site identity: :func:`corpora.hosts.site_key`). With
  ``copies`` > 1 each training story goes into that many sites (issue 31: more
  templates to learn from; its copies are named ``<story>~<k>``): first every story
  once, then every story a second time, and so on, while sites last. First one page of
  each other news site of ``sites-dev-news`` with gold main text (the other news
  templates), then the ``content-dev`` pages with a gold main text and a known site
  (:func:`corpora.hosts.content_hosts`), in seeded order. Up to :data:`HOST_TRIES`
  pages of a site are tried before the site is skipped.
- **Placement**: :func:`corpora.placement.place` puts a story in place of the host's
  main element (found from the host's gold text), its template kept; hosts it refuses
  are skipped and counted. The page is written as UTF-8, each file atomically.
"""

from __future__ import annotations

import html as html_module
import json
import logging
import tarfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Annotated

import typer

from corpora.hosts import HostPage, content_hosts, rank, site_hosts, site_key
from corpora.locate import builder_logging, corpus_path
from corpora.placement import (
    SENTENCES_PER_PARAGRAPH,
    PlacementError,
    check_host,
    paragraphs,
    place,
)
from denoise.output import atomic_text
from denoise.reader import Skipped
from denoise.validation import site_family

log = logging.getLogger(__name__)

STORIES_ARCHIVE = "keyphrases-dev.tar.xz"
SITE_ARCHIVES = ("sites-dev-news.tar.xz", "sites-dev-docs.tar.xz")  # test site: first found
DEFAULT_TEST_SITE = "entertainment.msn.com"
DEFAULT_TEST_SHARE = 0.33
MIN_BODY_CHARS = 300  # a story shorter than this is a title or a teaser
HOST_TRIES = 3  # pages of one site tried before the site is skipped


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
        return paragraphs(self.text, sentences)


@dataclass(frozen=True, slots=True, kw_only=True)
class BenchPage:
    """One benchmark page: a story in a host page."""

    split: str  # "train" or "test"
    story: Story
    host: HostPage
    html: str
    f1: float  # how well the replaced element covered the host's gold
    removed_chars: int  # old-article text removed outside that element
    copy: int = 0  # which placement of the story (training stories: one per copy)

    @property
    def name(self) -> str:
        """The file name stem: the story's id, ``~<copy>`` after it for later copies."""
        return self.story.id if not self.copy else f"{self.story.id}~{self.copy}"

    def record(self) -> dict[str, object]:
        """The page's manifest line."""
        return {"split": self.split, "name": self.name, "story": self.story.id,
                "category": self.story.category, "host_page": self.host.id,
                "host_site": self.host.site, "host_source": self.host.source, "copy": self.copy,
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
    train_unplaced: int  # training placements left without a host (sites ran out)


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
        ranked = sorted(by_category[category], key=lambda s: rank(seed, "split", s.id))
        cut = round(len(ranked) * test_share)
        test += ranked[:cut]
        train += ranked[cut:]
    return sorted(train, key=lambda s: s.id), sorted(test, key=lambda s: s.id)


# --- the benchmark -------------------------------------------------------------------


def assemble(stories: Sequence[Story], train_hosts: Iterable[HostPage],
             test_hosts: Sequence[HostPage], *, test_share: float = DEFAULT_TEST_SHARE,
             seed: int = 0, copies: int = 1) -> Benchmark:
    """Place the stories: test stories round ``test_hosts`` (one site), each training
    story into pages of ``copies`` different sites of ``train_hosts`` (every page on a
    site of its own); host pages of the test hosts' site families are left out of
    training."""
    if not test_hosts:
        raise ValueError("no test host pages")
    if copies < 1:
        raise ValueError(f"copies must be at least 1, got {copies}")
    train_stories, test_stories = split_stories(stories, test_share=test_share, seed=seed)
    held_keys = {site_key(h.site) for h in test_hosts}
    held_families = {site_family(h.site) for h in test_hosts}
    reasons: Counter[str] = Counter()
    pages: list[BenchPage] = []

    qualified = []
    for host in sorted(test_hosts, key=lambda h: rank(seed, "test-host", h.id)):
        try:
            check_host(host.html, host.gold_text)
        except PlacementError as error:
            reasons[_reason(error)] += 1
            log.info("test host %s skipped: %s", host.id, error)
            continue
        qualified.append(host)
    if not qualified and test_stories:
        raise ValueError(f"no test host page can take a story: {dict(reasons)}")
    test_order = sorted(test_stories, key=lambda s: rank(seed, "test-order", s.id))
    for number, story in enumerate(test_order):
        host = qualified[number % len(qualified)]
        placed = place(host.html, host.gold_text, story)
        pages.append(BenchPage(split="test", story=story, host=host, html=placed.html,
                               f1=placed.f1, removed_chars=placed.removed_chars))
    test_skipped = len(test_hosts) - len(qualified)

    held_out = 0

    def eligible() -> Iterator[HostPage]:
        nonlocal held_out
        for host in train_hosts:
            if site_key(host.site) in held_keys or site_family(host.site) in held_families:
                held_out += 1
            else:
                yield host

    ordered = sorted(train_stories, key=lambda s: rank(seed, "train-order", s.id))
    waiting = [(story, copy) for copy in range(copies) for story in ordered]
    waiting.reverse()  # pop() takes them in rank order, every story's copy 0 first
    hosts_skipped = pages_skipped = 0
    for site_pages in _sites_in_order(eligible(), seed):
        if not waiting:
            break
        story, copy = waiting[-1]
        for host in site_pages:
            try:
                placed = place(host.html, host.gold_text, story)
            except PlacementError as error:
                pages_skipped += 1
                reasons[_reason(error)] += 1
                log.info("training host %s skipped: %s", host.id, error)
                continue
            waiting.pop()
            pages.append(BenchPage(split="train", story=story, host=host, html=placed.html,
                                   f1=placed.f1, removed_chars=placed.removed_chars, copy=copy))
            break
        else:
            hosts_skipped += 1
    if waiting:
        log.warning("%d training placements found no host site", len(waiting))
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
        group.append(((host.priority, rank(seed, "host", host.id), host.id), host))
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
        folder.mkdir(parents=True, exist_ok=True)  # atomic_text makes no folder
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
          test_share: float = DEFAULT_TEST_SHARE, seed: int = 0, copies: int = 1,
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

    benchmark = assemble(stories, train_hosts(), test_hosts, test_share=test_share, seed=seed,
                         copies=copies)
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
    copies: Annotated[int, typer.Option(
        min=1, help="Sites each training story is placed into (while sites last).")] = 1,
    verbose: Annotated[bool, typer.Option(help="Log every story and host left out.")] = False,
) -> None:
    """Build the cross-domain keyword benchmark: stories placed into real sites' pages."""
    builder_logging(verbose)
    try:
        counts = build(out_dir, test_site=test_site, test_share=test_share, seed=seed,
                       copies=copies)
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
