"""What template removal keeps, against the main-content gold of sites template models never saw.

Run from the repository root (needs the shared corpora; about a minute a model):

    python benchmarks/template_gold.py [MODEL.npz ...] [--recalls R ...] [--sets SET ...]
                                       [--limit N] [--markdown PATH]

The page-level template detector is trained on site-level labels and, where a
documentation site's main region is known, on that region (``denoise train
--main-xpaths``); its promise is about sites it never saw. The pages here are those of
the main-content benchmark (``main_content.py``): trafilatura's, readability's,
CleanEval's, Dragnet's, chaos's and WCXB's sets come from thousands of sites (3,100
hosts among the pages with a URL, which the run prints) that no template model trained
on, but for 30 pages (of those with a URL; Dragnet's have none; counted once, by hand)
of the dev news sites' publishers in other years, 19 of them the BBC's; the dev news
sites' own pages (``news-sites``) are in every model's training data, so their row is
*not* held out. Each model (default: the shipped ``denoise/models/default.npz``) cuts
every page at its stored point and at each recall asked, as the toolkit does:

- ``point``: at the model's stored operating point, with the fallback of a page whose
  cut keeps under 1% of its scored text: ``denoise apply``'s default text;
- ``recall R``: at each of ``--recalls`` (default :data:`denoise.cleaning.PAGE_RECALL`,
  mode ``page``: ``clean(page, "page")``, ``mining ... --denoise page``), the threshold
  the model's stored curve gives for that recall, with the same fallback.

The last row counts, for each cut, the held-out pages that fell back.

What is kept is scored as ``main_content.py`` scores an extractor (trafilatura's
snippets pooled on its set, WCXB's word measure on WCXB, word 4-gram shingles against
the gold text elsewhere; mean per page, as ``main_content.Tally`` does): template
removal keeps more than the article (a listing's items, a page's own table of contents),
so its precision is low by design; what the figures compare is two models on the same
pages, in the same run. Each page is parsed once and every cut reads that parse.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from itertools import chain
from pathlib import Path

from benchmarks_common import add_recalls, emit
from content_scoring import count_snippets, score_shingles, shingles
from main_content import WORD_SCORED, Tally

from corpora.content import ALL_SETS, iter_content_pages
from corpora.sites import NEWS_SITES, news_site_pages
from denoise.cleaning import Cleaner
from denoise.detector import TemplateDetector
from denoise.errors import PageError
from denoise.model import default_model_path
from denoise.page import Page, site_of


def main() -> None:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path,
                        help="template models (default: the shipped one)")
    add_recalls(parser, "also cut at these template recalls")
    parser.add_argument("--sets", nargs="+", choices=[*ALL_SETS, NEWS_SITES],
                        default=[*ALL_SETS, NEWS_SITES])
    parser.add_argument("--limit", type=int, help="pages a set (evenly spread); default all")
    parser.add_argument("--markdown", type=Path, help="also write the table here")
    args = parser.parse_args()
    paths = args.models or [default_model_path()]
    cleaners: dict[str, Cleaner] = {}
    for path in paths:
        detector = TemplateDetector.load(path)
        cuts = [("point", detector)] + [(f"recall {r:g}", detector.at_recall(r))
                                        for r in args.recalls]
        for label, cut in cuts:
            name = f"{path.name} {label} ({cut.threshold:.2f})"
            if name in cleaners:
                sys.exit(f"{path}: another model has its file name; rename one")
            cleaners[name] = Cleaner("page", detector=cut)
    started = time.monotonic()
    content_sets = [s for s in args.sets if s != NEWS_SITES]
    pages = chain(iter_content_pages(content_sets, args.limit) if content_sets else (),
                  news_site_pages(args.limit) if NEWS_SITES in args.sets else ())
    tallies: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    hosts: set[str] = set()  # of the held-out sets' pages with a URL
    fell_back: Counter[str] = Counter()  # of the held-out sets' pages, by cut
    first = next(iter(cleaners.values()))
    for gold_page in pages:
        page = Page(id=gold_page.page_id, html=gold_page.html, url=gold_page.url,
                    site=site_of(gold_page.url))
        if page.site and gold_page.set_name != NEWS_SITES:
            hosts.add(page.site)
        size = 1 if gold_page.set_name in WORD_SCORED else 4
        gold = None if gold_page.has_snippets else shingles(gold_page.gold_text, size)
        try:
            parsed = first.parse(page)
        except PageError:
            parsed = None
        for name, cleaner in cleaners.items():
            kept = cleaner.keep(parsed) if parsed is not None else None
            text = kept.text if kept is not None else ""
            if kept is not None and kept.fallback and gold_page.set_name != NEWS_SITES:
                fell_back[name] += 1
            tally = tallies[gold_page.set_name][name]
            tally.pages += 1
            if gold is None:
                tally.page_snippets.append(count_snippets(text, gold_page.keep,
                                                          gold_page.drop))
            else:
                tally.shingle_scores.append(score_shingles(text, gold, size))
    names = list(cleaners)
    lines = [f"Models: {', '.join(str(p) for p in paths)}; {time.monotonic() - started:.0f} s; "
             f"{len(hosts):,} hosts among the held-out sets' pages with a URL.",
             "", "| set | pages | " + " | ".join(names) + " |",
             "|---|---:|" + "---:|" * len(names)]
    means: dict[str, list[float]] = defaultdict(list)
    for set_name, by_name in tallies.items():
        cells = []
        for name in names:
            f1, precision, recall = by_name[name].f1_p_r()
            cells.append(f"{100 * f1:.2f} (P {100 * precision:.1f}, R {100 * recall:.1f})")
            if set_name != NEWS_SITES:
                means[name].append(f1)
        held = "" if set_name != NEWS_SITES else " (trained on)"
        lines.append(f"| {set_name}{held} | {by_name[names[0]].pages} | "
                     + " | ".join(cells) + " |")
    if means:
        lines.append("| **mean, sites never seen** | | " + " | ".join(
            f"{100 * sum(means[n]) / len(means[n]):.2f}" for n in names) + " |")
        lines.append("| pages that fell back, sites never seen | | "
                     + " | ".join(f"{fell_back[n]:,}" for n in names) + " |")
    emit("\n".join(lines), args.markdown)


if __name__ == "__main__":
    main()
