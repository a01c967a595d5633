"""Main-content extraction ("give me the article"): our extractor against five others.

Run from the repository root (needs the ``bench`` extra, ``pip install -e ".[bench]"``,
or the same packages and ``PYTHONPATH=.``; and the shared corpora):

    python benchmarks/main_content.py [--sets SET ...] [--limit N] [--extractors NAME ...]
                                      [--heldout DIR] [--markdown PATH]
                                      [--pages-out PATH.jsonl]

Every extractor runs on the same pages in one pass, page by page (so a noisy shared
machine affects all of them alike): the sets of ``content-dev.tar.xz``, WCXB's
development split (``content-dev-wcxb.tar.xz``) and the dev news sites' pages with a
human extraction (``news-sites``). Each is scored per set with :mod:`content_scoring`:
trafilatura's own snippet method on its set, WCXB's own word measure on WCXB (bags of
lower-cased ``\\w+`` words, per page; also broken down by page type), word 4-gram
shingles against the gold text on the others. ``--limit N`` takes N pages a set,
evenly spread over it. Speed is pages per CPU-second, :func:`time.process_time`
around each extractor call alone (it includes the extractor's own HTML parsing).

**Held out** (``--heldout DIR``, the headline protocol): ``denoise`` scores each page with
the main-content model trained without that page's source (``python -m
corpora.train_main_content --heldout DIR``: one model per source left out, WCXB in
domain-disjoint folds), and with the listing model trained without it when ``DIR`` has
them (``python -m corpora.train_listing --heldout DIR``; without them, no step 8), so
every ``denoise`` figure is on pages no model it used was trained on; trafilatura's set
is no model's training data. Without ``--heldout``,
``denoise`` runs the shipped model, trained on every source but trafilatura's set: its
figures on the other sets are then *training-data* figures.

The extractors, all given the same decoded page text (``str``) and defaults except
where noted:

- ``all-text``: every visible text outside ``<head>`` (:func:`corpora.content.html_text`):
  what doing nothing scores.
- ``denoise``: ``denoise.main_text(html, url)``; skipped while it does not exist.
- ``trafilatura``: ``trafilatura.extract(html, url=url, include_comments=False)``,
  plain text; comments are not the article (and trafilatura's own evaluation leaves
  them out too). Precision / recall balance, tables, fallbacks: defaults.
- ``trafilatura-recall``, ``trafilatura-precision``: the same with ``favor_recall`` or
  ``favor_precision``, the balance a user may choose; ``trafilatura-comments``: with
  comments, trafilatura's own default. Each set's best trafilatura is the bar a user
  who tunes it would hold us to.
- ``readability``: readability-lxml ``Document(html).summary(html_partial=True)``, its
  HTML turned into text with ``html_text`` (block-aware; ``text_content()`` would glue
  the last word of a paragraph to the first of the next).
- ``justext``: ``justext.justext(html, get_stoplist("English"))``, the paragraphs not
  classed boilerplate, one a line. The English stoplist holds for every page, so pages
  in other languages (many in trafilatura's set) come out mostly empty.
- ``boilerpy3``: ``extractors.ArticleExtractor().get_content(html)``, the extractor
  boilerpy3 (like boilerpipe) recommends for news articles.
- ``resiliparse``: ``extract_plain_text(HTMLTree.parse(html), main_content=True)``.

A call that raises (or runs over ``--timeout`` seconds) is a failure and scores as an
empty extraction. ``empty`` counts pages whose output has no word (failures included).

**How sure a difference is**: the last table gives ``denoise``'s F1 less each other
extractor's, per set and WCXB page type, with the 95% interval of a paired bootstrap
over the set's pages (:func:`content_scoring.paired_difference`).
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from importlib.metadata import PackageNotFoundError, version
from itertools import chain
from pathlib import Path
from typing import Any, TextIO

from benchmarks_common import emit
from content_scoring import (
    ShingleScore,
    SnippetCounts,
    count_snippets,
    mean_scores,
    paired_difference,
    pooled,
    score_shingles,
    shingles,
    words,
)

from corpora.content import ALL_SETS, WCXB, GoldPage, html_text, iter_content_pages
from corpora.sites import NEWS_SITES, news_site_pages
from corpora.train_listing import LISTING_INDEX
from corpora.train_main_content import HELDOUT_INDEX, part_of, source_of_set
from denoise.page import Page, site_of
from denoise.reader import Skipped

#: Sets scored by WCXB's word measure (bags of words, no shingles).
WORD_SCORED = frozenset({WCXB})

Extract = Callable[[str, str | None], str | None]

_WARM_UP = "<html><head><title>t</title></head><body><p>A short warm-up page.</p></body></html>"


def _all_text() -> Extract:
    return lambda html, url: html_text(html, skip_head=True)


def _denoise() -> Extract:
    from denoise import main_text

    return lambda html, url: main_text(html, url=url)


class HeldOut:
    """``denoise`` with, for each page, the main-content model trained without the page's
    source (the folder ``corpora.train_main_content --heldout`` wrote), at the shipped
    model's parameters (or these ``params``)."""

    def __init__(self, folder: Path | None, params: dict[str, Any] | None = None) -> None:
        from denoise.main_content import MainContentExtractor

        self.folder = folder
        self.index = (json.loads((folder / HELDOUT_INDEX).read_text(encoding="utf-8"))
                      if folder is not None else {"models": {}})
        listing = folder / LISTING_INDEX if folder is not None else None
        # each part's listing model (corpora.train_listing); a part without one: no step 8
        self.listing: dict[str, str] = (json.loads(listing.read_text(encoding="utf-8"))
                                        if listing is not None and listing.exists() else {})
        self.params = params or {}
        self.models: dict[str | None, Any] = {}
        self.load = MainContentExtractor.load

    def __call__(self, html: str, url: str | None) -> str | None:  # the warm-up
        return self.for_page(None)(html, url)

    def for_page(self, page: GoldPage | None) -> Extract:
        """The extraction of ``page``: by the model without its part, else the shipped."""
        extractor = self.extractor_for(page)
        return lambda html, url: extractor.extract(Page(
            id=url or "<html>", html=html, url=url, site=site_of(url)))

    def extractor_for(self, page: GoldPage | None) -> Any:
        """The extractor that scores ``page``: the model without its part, else the shipped."""
        source = "news" if page is not None and page.set_name == NEWS_SITES else (
            source_of_set(page.set_name) if page is not None else None)
        part = part_of(source, page.domain) if source is not None and page is not None else None
        name = self.index["models"].get(part) if part is not None else None
        if name not in self.models:
            shipped = self.load()  # the shipped parameters, whatever a model's header says
            listing = self.listing.get(part) if part is not None else None
            loaded = (self.load(content=self.folder / name,
                                listing=self.folder / listing if listing else None,
                                listing_step=listing is not None)
                      if name and self.folder else shipped)
            if self.folder is not None and not self.listing:  # no held-out listing models
                loaded = replace(loaded, listing_model=None)
            self.models[name] = replace(loaded, **{**shipped.parameters(), **self.params})
        return self.models[name]


def _trafilatura(**options: bool) -> Callable[[], Extract]:
    """trafilatura's ``extract``, comments left out unless ``options`` say otherwise."""

    def factory() -> Extract:
        import trafilatura

        chosen = {"include_comments": False, **options}
        return lambda html, url: trafilatura.extract(html, url=url, **chosen)

    return factory


def _readability() -> Extract:
    from readability import Document

    return lambda html, url: html_text(Document(html).summary(html_partial=True))


def _justext() -> Extract:
    import justext

    stoplist = justext.get_stoplist("English")

    def extract(html: str, url: str | None) -> str:
        paragraphs = justext.justext(html, stoplist)
        return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    return extract


def _boilerpy3() -> Extract:
    from boilerpy3 import extractors

    extractor = extractors.ArticleExtractor()
    return lambda html, url: extractor.get_content(html)


def _resiliparse() -> Extract:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    return lambda html, url: extract_plain_text(HTMLTree.parse(html), main_content=True)


#: name -> (factory, distribution whose version is reported)
EXTRACTORS: dict[str, tuple[Callable[[], Extract], str | None]] = {
    "all-text": (_all_text, None),
    "denoise": (_denoise, "webdenoise"),
    "trafilatura": (_trafilatura(), "trafilatura"),
    "trafilatura-recall": (_trafilatura(favor_recall=True), "trafilatura"),
    "trafilatura-precision": (_trafilatura(favor_precision=True), "trafilatura"),
    "trafilatura-comments": (_trafilatura(include_comments=True), "trafilatura"),
    "readability": (_readability, "readability-lxml"),
    "justext": (_justext, "justext"),
    "boilerpy3": (_boilerpy3, "boilerpy3"),
    "resiliparse": (_resiliparse, "resiliparse"),
}


class _Timeout(Exception):
    """An extractor call ran over the time limit."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Timeout


@dataclass
class Tally:
    """What one extractor did on one set."""

    pages: int = 0
    failures: int = 0
    empty: int = 0
    seconds: float = 0.0
    page_snippets: list[SnippetCounts] = field(default_factory=list)
    shingle_scores: list[ShingleScore] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)

    @property
    def snippets(self) -> SnippetCounts:
        """The pages' snippet counts, pooled."""
        return sum(self.page_snippets, SnippetCounts())

    def f1_p_r(self) -> tuple[float, float, float]:
        """The set's headline F1, P, R: pooled snippets, or per-page mean of shingles."""
        if self.shingle_scores:
            mean = mean_scores(self.shingle_scores)
            return mean.f1, mean.precision, mean.recall
        return self.snippets.f1, self.snippets.precision, self.snippets.recall

    def page_scores(self) -> list[SnippetCounts] | list[ShingleScore]:
        """The set's scores, one a page (in the pages' order)."""
        return self.shingle_scores or self.page_snippets


def load_extractors(names: list[str]) -> dict[str, Extract]:
    """The named extractors that can run here, warmed up; the others are reported."""
    ready: dict[str, Extract] = {}
    for name in names:
        factory, _ = EXTRACTORS[name]
        try:
            extract = factory()
            extract(_WARM_UP, None)  # pay lazy imports and set-up before timing
        except (ImportError, AttributeError) as missing:
            print(f"skipping {name}: {type(missing).__name__}: {missing}", file=sys.stderr)
            continue
        except Exception as error:  # a warm-up failure is not fatal
            print(f"{name}: warm-up failed ({error!r}); running anyway", file=sys.stderr)
        ready[name] = extract
    return ready


def run_extractor(extract: Extract, page: GoldPage, timeout: float) -> tuple[str | None, float,
                                                                              str | None]:
    """Output (None on failure), CPU seconds and error name of one extractor call."""
    signal.setitimer(signal.ITIMER_REAL, timeout)
    started = time.process_time()
    try:
        output = extract(page.html, page.url)
        error = None
    except _Timeout:
        output, error = None, "timeout"
    except Exception as exc:  # any crash is a per-page failure
        output, error = None, type(exc).__name__
    finally:
        seconds = time.process_time() - started
        signal.setitimer(signal.ITIMER_REAL, 0)
    if output is not None and not isinstance(output, str):
        output, error = None, f"returned {type(output).__name__}"
    return output, seconds, error


def benchmark(
    pages: Iterable[GoldPage], extractors: dict[str, Extract], timeout: float,
    pages_out: TextIO | None = None, by_type: dict[str, dict[str, Tally]] | None = None,
) -> dict[str, dict[str, Tally]]:
    """Run every extractor on every page; tallies by set, then extractor (and, into
    ``by_type``, by page type where a page has one)."""
    tallies: dict[str, dict[str, Tally]] = defaultdict(lambda: {n: Tally() for n in extractors})
    types = by_type if by_type is not None else defaultdict(
        lambda: {n: Tally() for n in extractors})
    started = time.monotonic()
    for count, page in enumerate(pages, 1):
        size = 1 if page.set_name in WORD_SCORED else 4
        gold = None if page.has_snippets else shingles(page.gold_text, size)
        for name, extract in extractors.items():
            if isinstance(extract, HeldOut):
                extract = extract.for_page(page)
            output, seconds, error = run_extractor(extract, page, timeout)
            tally = tallies[page.set_name][name]
            tally.pages += 1
            tally.seconds += seconds
            if error is not None:
                tally.failures += 1
                tally.errors[error] += 1
            if not words(output or ""):
                tally.empty += 1
            record: dict[str, Any] = {"set": page.set_name, "page": page.page_id,
                                      "extractor": name, "cpu_s": round(seconds, 4),
                                      "error": error}
            if gold is None:
                counts = count_snippets(output, page.keep, page.drop)
                tally.page_snippets.append(counts)
                record.update(tp=counts.tp, fp=counts.fp, fn=counts.fn, tn=counts.tn)
            else:
                score = score_shingles(output, gold, size)
                tally.shingle_scores.append(score)
                if page.page_type:
                    types[page.page_type][name].shingle_scores.append(score)
                    record["type"] = page.page_type
                record.update(p=round(score.precision, 4), r=round(score.recall, 4),
                              f1=round(score.f1, 4))
            if pages_out is not None:
                pages_out.write(json.dumps(record) + "\n")
        if count % 250 == 0:
            print(f"{count} pages, {time.monotonic() - started:.0f} s", file=sys.stderr,
                  flush=True)
    return tallies


def _pct(value: float) -> str:
    return f"{100 * value:.1f}"


def _speed(pages: int, seconds: float) -> str:
    return f"{pages / seconds:,.0f}" if seconds > 0 else "-"


def set_table(name: str, tallies: dict[str, Tally], how_words: bool = False) -> list[str]:
    """Markdown lines of one set's table."""
    snippets = not any(t.shingle_scores for t in tallies.values())
    extra = "accuracy" if snippets else "pooled F1"
    how = ("snippets, trafilatura's method, pooled" if snippets
           else "WCXB's words, mean per page; pooled F1 over all words" if how_words
           else "word 4-gram shingles, mean per page; pooled F1 over all shingles")
    lines = [f"### {name} ({how})", "",
             f"| extractor | F1 | P | R | {extra} | pages | failures | empty | pages/CPU-s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for extractor, tally in tallies.items():
        f1, p, r = tally.f1_p_r()
        other = (tally.snippets.accuracy if snippets
                 else pooled(tally.shingle_scores).f1)
        lines.append(f"| {extractor} | {_pct(f1)} | {_pct(p)} | {_pct(r)} | {_pct(other)} | "
                     f"{tally.pages} | {tally.failures} | {tally.empty} | "
                     f"{_speed(tally.pages, tally.seconds)} |")
    return [*lines, ""]


def overall_table(by_set: dict[str, dict[str, Tally]], names: list[str]) -> list[str]:
    """Markdown lines of the table over all sets: each set's F1 / P / R weighs the same."""
    lines = ["### overall (mean of the sets' F1 / P / R; each set counts once)", "",
             "| extractor | F1 | P | R | pages | failures | empty | pages/CPU-s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name in names:
        tallies = [by_set[s][name] for s in by_set]
        figures = [t.f1_p_r() for t in tallies]
        n = len(figures)
        pages = sum(t.pages for t in tallies)
        seconds = sum(t.seconds for t in tallies)
        lines.append(
            f"| {name} | {_pct(sum(f[0] for f in figures) / n)} | "
            f"{_pct(sum(f[1] for f in figures) / n)} | {_pct(sum(f[2] for f in figures) / n)} | "
            f"{pages} | {sum(t.failures for t in tallies)} | {sum(t.empty for t in tallies)} | "
            f"{_speed(pages, seconds)} |")
    return [*lines, ""]


def selection_table(by_set: dict[str, dict[str, Tally]], names: list[str]) -> list[str]:
    """Markdown lines choosing among the ``denoise`` variants without looking at the set
    scored: for each set, the variant with the best mean F1 over the *other* sets, and
    its F1 on this one (parameters held out by source, like the models)."""
    variants = [n for n in names if n.split(":")[0] == "denoise"]
    if len(variants) < 2:
        return []
    f1 = {(s, v): by_set[s][v].f1_p_r()[0] for s in by_set for v in variants}
    lines = ["### denoise variants chosen on the other sets", "",
             "| set | chosen (by the other sets) | its F1 | best variant here | F1 |",
             "|---|---|---:|---|---:|"]
    for name in by_set:
        others = [s for s in by_set if s != name] or [name]
        chosen = max(variants, key=lambda v: sum(f1[s, v] for s in others))
        best = max(variants, key=lambda v: f1[name, v])
        lines.append(f"| {name} | {chosen} | {_pct(f1[name, chosen])} | {best} | "
                     f"{_pct(f1[name, best])} |")
    overall = max(variants, key=lambda v: sum(f1[s, v] for s in by_set))
    return [*lines, "", f"Chosen on every set (what to ship): {overall}.", ""]


def type_table(by_type: dict[str, dict[str, Tally]], names: list[str]) -> list[str]:
    """Markdown lines of F1 by page type (WCXB's labels), one column an extractor."""
    if not by_type:
        return []
    lines = ["### WCXB by page type (F1, WCXB's words, mean per page)", "",
             "| page type | pages | " + " | ".join(names) + " |",
             "|---|---:|" + "---:|" * len(names)]
    for kind in sorted(by_type, key=lambda k: -len(by_type[k][names[0]].shingle_scores)):
        row = by_type[kind]
        lines.append(f"| {kind} | {len(row[names[0]].shingle_scores)} | " + " | ".join(
            _pct(row[n].f1_p_r()[0]) for n in names) + " |")
    return [*lines, ""]


def difference_table(by_set: dict[str, dict[str, Tally]], by_type: dict[str, dict[str, Tally]],
                     names: list[str]) -> list[str]:
    """Markdown lines: ``denoise``'s F1 less each other extractor's, per set and page type,
    with the 95% interval of a paired bootstrap over the pages (module doc)."""
    others = [n for n in names if n != "denoise" and not n.startswith("denoise:")]
    if "denoise" not in names or not others:
        return []
    lines = ["### denoise less each extractor (F1 points; 95% interval, paired bootstrap "
             "over the pages)", "",
             "| set | pages | " + " | ".join(others) + " |",
             "|---|---:|" + "---:|" * len(others)]
    groups = [*by_set.items(), *((f"WCXB {kind}", row) for kind, row in sorted(
        by_type.items(), key=lambda item: -len(next(iter(item[1].values())).shingle_scores)))]
    for name, row in groups:
        pages = row["denoise"].page_scores()
        if not pages:
            continue
        cells = ["{:+.2f} ({:+.2f} to {:+.2f})".format(
            *paired_difference(pages, row[other].page_scores())) for other in others]
        lines.append(f"| {name} | {len(pages)} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _versions(names: list[str]) -> str:
    found = []
    for name in names:
        distribution = EXTRACTORS[name.split(":")[0]][1]
        if ":" in name:
            continue
        if distribution is None:
            continue
        try:
            found.append(f"{distribution} {version(distribution)}")
        except PackageNotFoundError:
            found.append(f"{distribution} ?")
    return ", ".join(found)


def main() -> None:
    """Run the benchmark and print its tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", choices=[*ALL_SETS, NEWS_SITES],
                        default=[*ALL_SETS, NEWS_SITES])
    parser.add_argument("--limit", type=int, help="pages a set (evenly spread); default all")
    parser.add_argument("--extractors", nargs="+", choices=list(EXTRACTORS),
                        default=list(EXTRACTORS))
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds an extractor may spend on one page (default 60)")
    parser.add_argument("--heldout", type=Path, metavar="DIR",
                        help="score each page with the model trained without its source "
                             "(python -m corpora.train_main_content --heldout DIR)")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=JSON",
                        help="also run denoise with these extractor parameters, e.g. "
                             "'nolinks={\"link_density\": 1.0}' (held out like denoise)")
    parser.add_argument("--markdown", type=Path, help="also write the tables here")
    parser.add_argument("--pages-out", type=Path, help="per-page scores, JSON lines")
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)  # failures are counted, not logged
    signal.signal(signal.SIGALRM, _on_alarm)
    extractors = load_extractors(args.extractors)
    if args.heldout is not None and "denoise" in extractors:
        extractors["denoise"] = HeldOut(args.heldout)
    for variant in args.variant:
        name, _, params = variant.partition("=")
        extractors[f"denoise:{name}"] = HeldOut(args.heldout, json.loads(params))
    if not extractors:
        sys.exit("no extractor can run")
    names = list(extractors)
    skipped: list[Skipped] = []
    wall, cpu = time.monotonic(), time.process_time()
    content_sets = [s for s in args.sets if s != NEWS_SITES]
    pages = chain(iter_content_pages(content_sets, args.limit, skipped=skipped) if content_sets
                  else (), news_site_pages(args.limit) if NEWS_SITES in args.sets else ())
    by_type: dict[str, dict[str, Tally]] = defaultdict(lambda: {n: Tally() for n in extractors})
    if args.pages_out:
        args.pages_out.parent.mkdir(parents=True, exist_ok=True)
        with args.pages_out.open("w", encoding="utf-8") as stream:
            by_set = benchmark(pages, extractors, args.timeout, stream, by_type)
    else:
        by_set = benchmark(pages, extractors, args.timeout, by_type=by_type)
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    skips = Counter(item.source.split(":", 1)[0] for item in skipped)
    counts = ", ".join(f"{s} {next(iter(by_set[s].values())).pages}"
                       + (f" (+{skips[s]} skipped)" if skips[s] else "") for s in by_set)
    errors: Counter[str] = Counter()
    for tallies in by_set.values():
        for name, tally in tallies.items():
            errors.update({f"{name} {kind}": n for kind, n in tally.errors.items()})
    lines = [
        f"Pages: {counts}; limit {args.limit or 'none'} a set.",
        "denoise: " + (f"held out (each page scored by the model trained without its source, "
                       f"{args.heldout})" if args.heldout else
                       "the shipped models (trained on every set but trafilatura's: the "
                       "other sets' figures are training-data figures)") + ".",
        f"Versions: {_versions(names)}.",
        f"Run: {wall:.0f} s wall, {cpu:.0f} s CPU (loading, extraction and scoring).",
        "Failures: " + (", ".join(f"{k} x{n}" for k, n in sorted(errors.items())) or "none") + ".",
        "",
        *[line for s in by_set for line in set_table(s, by_set[s], s in WORD_SCORED)],
        *overall_table(by_set, names),
        *selection_table(by_set, names),
        *type_table(by_type, names),
        *difference_table(by_set, by_type, names),
    ]
    emit("\n".join(lines), args.markdown)


if __name__ == "__main__":
    main()
