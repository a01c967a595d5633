"""Never silently empty: pages whose gold has text, where an extractor returns none.

Run from the repository root (needs the ``bench`` extra for trafilatura, and the shared
corpora; ~10 minutes for every page):

    python benchmarks/never_empty.py [--sets SET ...] [--limit N] [--heldout DIR]
                                     [--markdown PATH]

Issue 33's goal: no empty output on a page whose gold main text has at least
:data:`GOLD_CHARS` characters (trafilatura's set: a snippet to keep) and where
trafilatura returns text (a page trafilatura also finds nothing on may have no
extractable article). Every page of the content sets and of the dev news sites with a
human extraction, one pass, each extractor in turn:

- ``trafilatura``: ``trafilatura.extract(html, url=url, include_comments=False)``.
- ``main``: ``denoise.main_text`` (with ``--heldout DIR``, each page scored by the
  main-content model trained without its source, as ``main_content.py --heldout``).
- ``page``: ``denoise apply``'s default: the shipped template detector at its stored
  operating point, every block it does not call template, with its fallback
  (:meth:`denoise.detector.PageScores.or_fallback`).
- ``page, no fallback``: the same cut without the fallback (what ``denoise apply``
  wrote before it), the baseline of the same run.

Printed per set: the pages, those the goal counts (gold >= 200 characters, trafilatura
text), the empty outputs of each extractor among them and over all pages, the pages that
fell back, and the mean word 4-gram F1 against the gold of ``page`` with and without
the fallback on the pages that fell back (what the fallback's text is worth).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

from benchmarks_common import emit
from content_scoring import score_shingles, shingles, words
from main_content import (
    NEWS_SITES,
    HeldOut,
    _denoise,
    _on_alarm,
    _trafilatura,
    news_site_pages,
    run_extractor,
)

from corpora.content import ALL_SETS, GoldPage, iter_content_pages
from denoise import Cleaner, TemplateDetector
from denoise.detector import block_lines
from denoise.errors import PageError
from denoise.page import Page, site_of
from denoise.reader import Skipped

#: Shortest gold main text the goal counts, in characters (the issue's figure).
GOLD_CHARS = 200
NAMES = ("trafilatura", "main", "page", "page, no fallback")


@dataclass
class Count:
    """One set's counts."""

    pages: int = 0
    counted: int = 0  # gold >= GOLD_CHARS and trafilatura text
    empty: dict[str, int] = field(default_factory=lambda: dict.fromkeys(NAMES, 0))
    empty_counted: dict[str, int] = field(default_factory=lambda: dict.fromkeys(NAMES, 0))
    fell_back: int = 0
    f1_fallback: list[float] = field(default_factory=list)
    f1_without: list[float] = field(default_factory=list)


def page_mode() -> Callable[[GoldPage], tuple[str, str, bool]]:
    """``denoise apply``'s default on a page: its text with and without the fallback,
    and whether it fell back."""
    cleaner = Cleaner("page", detector=TemplateDetector.load())

    def run(page: GoldPage) -> tuple[str, str, bool]:
        parsed = cleaner.parse(Page(id=page.page_id, html=page.html, url=page.url,
                                    site=site_of(page.url)))
        cleaned = cleaner.keep(parsed)
        text = cleaned.text
        if not cleaned.fallback or cleaned.scores is None:
            return text, text, False
        features = cleaned.scores.features
        cut = cleaner.detector.score_features(features).content_chunks()
        return text, block_lines(features.blocks, cut), True

    return run


def gold_chars(page: GoldPage) -> int:
    """The length of a page's gold main text; trafilatura's set gives snippets of it
    only, so a page with one to keep counts as long enough."""
    return len(page.gold_text) if page.gold_text is not None else (
        GOLD_CHARS if page.keep else 0)


def count_pages(pages: Iterable[GoldPage], main: Callable, timeout: float) -> dict[str, Count]:
    """Run the extractors on every page; counts by set."""
    trafilatura, page = _trafilatura()(), page_mode()  # the benchmark's settings
    counts: dict[str, Count] = defaultdict(Count)
    started = time.monotonic()
    for number, gold in enumerate(pages, 1):
        extract = main.for_page(gold) if isinstance(main, HeldOut) else main
        outputs = {"trafilatura": run_extractor(trafilatura, gold, timeout)[0],
                   "main": run_extractor(extract, gold, timeout)[0]}
        try:
            outputs["page"], outputs["page, no fallback"], fell_back = page(gold)
        except PageError:  # a page the parser refuses: empty, as a failure
            outputs["page"] = outputs["page, no fallback"] = None
            fell_back = False
        count = counts[gold.set_name]
        count.pages += 1
        counted = gold_chars(gold) >= GOLD_CHARS and bool(words(outputs["trafilatura"] or ""))
        count.counted += counted
        for name, text in outputs.items():
            empty = not words(text or "")
            count.empty[name] += empty
            count.empty_counted[name] += empty and counted
        if fell_back:
            count.fell_back += 1
            if gold.gold_text:
                reference = shingles(gold.gold_text, 4)
                count.f1_fallback.append(score_shingles(outputs["page"], reference, 4).f1)
                count.f1_without.append(
                    score_shingles(outputs["page, no fallback"], reference, 4).f1)
        if number % 500 == 0:
            print(f"{number} pages, {time.monotonic() - started:.0f} s", file=sys.stderr,
                  flush=True)
    return counts


def table(counts: dict[str, Count]) -> list[str]:
    """The per-set table, with a total row."""
    total = Count()
    for count in counts.values():
        total.pages += count.pages
        total.counted += count.counted
        total.fell_back += count.fell_back
        total.f1_fallback += count.f1_fallback
        total.f1_without += count.f1_without
        for name in NAMES:
            total.empty[name] += count.empty[name]
            total.empty_counted[name] += count.empty_counted[name]
    head = " | ".join(f"empty: {name} (counted / all)" for name in NAMES)
    lines = [f"| set | pages | counted | {head} | fell back | F1 fallback / cut |",
             "|---|---:|---:|" + "---:|" * len(NAMES) + "---:|---:|"]

    def mean(values: list[float]) -> str:
        return f"{100 * sum(values) / len(values):.1f}" if values else "-"

    for name, count in [*sorted(counts.items()), ("**all**", total)]:
        cells = " | ".join(f"{count.empty_counted[n]} / {count.empty[n]}" for n in NAMES)
        lines.append(f"| {name} | {count.pages} | {count.counted} | {cells} | "
                     f"{count.fell_back} | {mean(count.f1_fallback)} / "
                     f"{mean(count.f1_without)} |")
    return lines


def main() -> None:
    """Count the empty outputs and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", choices=[*ALL_SETS, NEWS_SITES],
                        default=[*ALL_SETS, NEWS_SITES])
    parser.add_argument("--limit", type=int, help="pages a set (evenly spread); default all")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds an extractor may spend on one page (default 60)")
    parser.add_argument("--heldout", type=Path, metavar="DIR",
                        help="main: the model trained without each page's source "
                             "(python -m corpora.train_main_content --heldout DIR)")
    parser.add_argument("--markdown", type=Path, help="also write the table here")
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)
    signal.signal(signal.SIGALRM, _on_alarm)
    main_text = HeldOut(args.heldout) if args.heldout else _denoise()
    skipped: list[Skipped] = []
    content_sets = [s for s in args.sets if s != NEWS_SITES]
    pages = chain(iter_content_pages(content_sets, args.limit, skipped=skipped)
                  if content_sets else (),
                  news_site_pages(args.limit) if NEWS_SITES in args.sets else ())
    wall = time.monotonic()
    counts = count_pages(pages, main_text, args.timeout)
    lines = [
        f"Pages with gold; limit {args.limit or 'none'} a set; {len(skipped)} skipped. "
        f"Counted: gold >= {GOLD_CHARS} characters and trafilatura returns text. main: "
        + (f"held out ({args.heldout})" if args.heldout else
           "the shipped model (trained on every set but trafilatura's)")
        + f". page: the shipped detector at its stored operating point. "
        f"{time.monotonic() - wall:.0f} s.",
        "",
        *table(counts),
    ]
    emit("\n".join(lines), args.markdown)


if __name__ == "__main__":
    main()
