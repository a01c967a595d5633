"""Speed of ``denoise apply`` per page against bare lxml parsing and trafilatura.

Run: python benchmarks/apply_speed.py [--model M] [--limit N] [--repeat 3]

The same pages (the dev sites and the content-dev sets), interleaved page by page
so every contender sees the same machine state (this machine is shared and
noisy): bare ``lxml`` parsing of the page, the page-level detector (parse, walk,
features, classifier, smoothing, main text) and ``trafilatura.extract``. Prints
pages per CPU-second and the ratios; the goals are >= 0.5x bare parsing and >= 2x
trafilatura. Also the detector's own stages, as shares of its time.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections import defaultdict
from pathlib import Path

from benchmarks_common import load_pages
from lxml import etree

from corpora.content import iter_content_pages
from denoise.blocks import index_dom, segment_dom
from denoise.detector import PageScores, TemplateDetector
from denoise.features import SCHEME, markup_stats, page_features
from denoise.html import parse_html
from denoise.page import Page


def staged(detector: TemplateDetector, page: Page, clock: dict[str, float]) -> PageScores:
    """``detector.score(page).content_text()``, stage by stage, adding CPU seconds to ``clock``."""
    marks = [time.process_time()]
    root = parse_html(page.html, page.id)
    marks.append(time.process_time())
    dom = index_dom(root)
    blocks = segment_dom(page, dom, SCHEME)
    marks.append(time.process_time())
    features = page_features(dom, blocks, markup_stats(root))
    marks.append(time.process_time())
    raw = detector.model.predict_proba(features)
    marks.append(time.process_time())
    scores = PageScores(features, raw, detector.smooth(features, raw), detector.threshold)
    marks.append(time.process_time())
    scores.content_text()
    marks.append(time.process_time())
    for name, start, end in zip(("parse", "walk+segment", "features", "classifier", "smoothing",
                                 "main text"), marks, marks[1:], strict=False):
        clock[name] += end - start
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--limit", type=int, default=3000, help="pages (evenly sampled)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-trafilatura", action="store_true")
    args = parser.parse_args()

    pages = load_pages()
    pages += [Page(id=p.page_id, html=p.html, url=p.url) for p in iter_content_pages()]
    step = max(1, len(pages) // args.limit)
    pages = pages[::step][: args.limit]
    detector = TemplateDetector.load(args.model)
    extract = None
    if not args.no_trafilatura:
        try:
            from trafilatura import extract
        except ImportError:
            print("trafilatura not installed (pip install '.[bench]'): left out")
    bare_parser = etree.HTMLParser(encoding="utf-8")
    clock: dict[str, float] = defaultdict(float)
    stages: dict[str, float] = defaultdict(float)
    for _ in range(args.repeat):
        for page in pages:
            data = page.html.encode("utf-8", "replace")
            started = time.process_time()
            etree.fromstring(data, bare_parser)
            clock["bare lxml parse"] += time.process_time() - started
            started = time.process_time()
            try:
                staged(detector, page, stages)
            except Exception as error:
                print(f"denoise failed on {page.id}: {error}")
            clock["denoise apply"] += time.process_time() - started
            if extract is not None:
                started = time.process_time()
                with contextlib.suppress(Exception):  # a failure's time counts all the same
                    extract(page.html, url=page.url, include_comments=False)
                clock["trafilatura"] += time.process_time() - started
    n = len(pages) * args.repeat
    print(f"{len(pages)} pages x {args.repeat}\n")
    print("| contender | pages per CPU-second | denoise apply speed / this |")
    print("|---|---:|---:|")
    for name, seconds in clock.items():
        ratio = clock["denoise apply"] and seconds / clock["denoise apply"]
        print(f"| {name} | {n / seconds:,.0f} | {ratio:.2f}x |")
    total = sum(stages.values())
    print("\n| denoise stage | share of its time | vs bare parse |")
    print("|---|---:|---:|")
    for name, seconds in stages.items():
        print(f"| {name} | {seconds / total:.0%} | {seconds / clock['bare lxml parse']:.2f}x |")


if __name__ == "__main__":
    main()
