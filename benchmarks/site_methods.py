"""Site-level methods on the dev sites: template share, precision / recall against gold, speed.

Run: python benchmarks/site_methods.py [--markdown benchmarks/out/site_methods.md]

For every site of ``sites-dev-docs`` and ``sites-dev-news`` and every method, prints
the share of text called template and, where gold exists (news: human main text;
docs: the main-content XPath of ``sites-dev-docs-main-xpath.tsv``), the word-level
precision and recall of the text called template (template = text outside the main
content). Speed: pages per CPU-second of each method (parse, segment, fit, label)
and of bare lxml parsing of the same pages in the same run, and their ratio.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from benchmarks_common import emit, load_pages
from lxml import etree

from corpora.sites import gold_main_texts
from denoise import blocks, treeops
from denoise.blocks import WALK
from denoise.evaluate import TextScore, score_template_text
from denoise.page import Page
from denoise.site import METHODS, LabeledPage, SiteMethod
from denoise.site.batch import SiteReport

VARIANTS: dict[str, Callable[[], SiteMethod]] = {
    "fingerprint": lambda: METHODS["fingerprint"](),
    "fingerprint+structure": lambda: METHODS["fingerprint"](structure=True),
    "fingerprint+contained": lambda: METHODS["fingerprint"](contained=0.85),
    "table-chunk": lambda: METHODS["table-chunk"](),
    "shingle": lambda: METHODS["shingle"](),
}
if "style-offset" in METHODS:
    VARIANTS["style-offset"] = lambda: METHODS["style-offset"]()


def run_variant(
    make: Callable[[], SiteMethod], pages: list[Page]
) -> tuple[float, float, list[LabeledPage]]:
    """CPU seconds of the method and of bare parsing, interleaved page by page.

    Each page is parsed bare by lxml, then segmented by the method, one right after
    the other, so both see the same machine state (this machine is shared and
    noisy); fitting and labelling are timed per site and added to the method.
    """
    parser = etree.HTMLParser(encoding="utf-8")
    by_site: dict[str, list[Page]] = defaultdict(list)
    for page in pages:
        by_site[page.site].append(page)
    method_seconds = bare_seconds = 0.0
    labelled: list[LabeledPage] = []
    for site_pages in by_site.values():
        method = make()
        segmented = []
        for page in site_pages:
            started = time.process_time()
            etree.fromstring(page.html.encode("utf-8", "replace"), parser)
            parsed = time.process_time()
            segmented.append(method.segment(page))
            bare_seconds += parsed - started
            method_seconds += time.process_time() - parsed
        started = time.process_time()
        method.fit(segmented)
        site_labelled = [method.label(page) for page in segmented]
        method_seconds += time.process_time() - started
        labelled.extend(site_labelled)
    return method_seconds, bare_seconds, labelled


def main() -> None:
    """Run the benchmark and print its tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", type=Path, help="also write the tables here")
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS))
    parser.add_argument("--walk", choices=("auto", "python"), default="auto",
                        help="python: measure the pure-Python fallback of the compiled kernel")
    args = parser.parse_args()
    walk = WALK
    if args.walk == "python":
        blocks._walk_compiled = None
        treeops._compiled = None
        walk = "python"
    pages = load_pages()
    gold = gold_main_texts(pages)
    sites = sorted({page.site for page in pages})
    speed_rows = []
    shares: dict[str, dict[str, SiteReport]] = {}
    scores: dict[str, dict[str, TextScore]] = {}
    for name in args.variants:
        seconds, bare, labelled = run_variant(VARIANTS[name], pages)
        speed_rows.append(f"| {name} | {len(pages) / seconds:,.0f} | {len(pages) / bare:,.0f} | "
                          f"{bare / seconds:.2f} |")
        shares[name] = {}
        scores[name] = defaultdict(TextScore)
        for page in labelled:
            shares[name].setdefault(page.page.site, SiteReport(page.page.site)).add(page)
            if page.page.id in gold:
                scores[name][page.page.site] += score_template_text(page, gold[page.page.id])
        print(f"{name}: {seconds:.1f} CPU s", flush=True)
    lines = [
        f"Pages: {len(pages)} in {len(sites)} sites; pages with gold: {len(gold)}.",
        "",
        "Speed (pages per CPU-second: the method, whole (parse, segment, fit, label), and bare "
        "lxml parsing of the same pages interleaved with it; ratio = method / bare):",
        "",
        f"Page walk: {walk}.",
        "",
        "| method | method pages/CPU-s | bare parse pages/CPU-s | x bare parse |",
        "|---|---:|---:|---:|",
        *speed_rows,
        "",
        "Per site: template share of text / precision / recall of template text (word level) "
        "against the gold main content; `-` where the site has no gold.",
        "",
        "| site | pages | " + " | ".join(args.variants) + " |",
        "|---|---:|" + "---|" * len(args.variants),
    ]
    totals = {name: TextScore() for name in args.variants}
    for site in sites:
        cells = []
        for name in args.variants:
            report = shares[name].get(site, SiteReport(site))
            score = scores[name].get(site)
            if score is not None:
                totals[name] += score
                cells.append(f"{100 * report.template_share:.0f}% / {100 * score.precision:.0f}"
                             f" / {100 * score.recall:.0f}")
            else:
                cells.append(f"{100 * report.template_share:.0f}% / - / -")
        page_count = shares[args.variants[0]].get(site, SiteReport(site)).pages
        lines.append(f"| {site} | {page_count} | " + " | ".join(cells) + " |")
    lines.append("| **pooled (sites with gold)** | | " + " | ".join(
        f"P {100 * totals[n].precision:.0f} / R {100 * totals[n].recall:.0f} / "
        f"F1 {100 * totals[n].f1:.0f}" for n in args.variants) + " |")
    emit("\n".join(lines), args.markdown)


if __name__ == "__main__":
    main()
