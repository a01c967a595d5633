"""Where a page's time goes in the fingerprint method, stage by stage, against bare parsing.

Run: python benchmarks/stages.py [--every 4]

Each page of the dev sites (every Nth) is parsed bare by lxml, then taken through the
per-page stages of ``fingerprint`` one after the other; each stage's CPU time is
summed and printed as a multiple of the bare parse (which includes freeing the tree).
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from benchmarks_common import load_pages
from lxml import etree

from denoise.blocks import WALK, index_dom, segment_dom
from denoise.html import parse_html
from denoise.site.fingerprint import TEXT_KIND, eligible_blocks


def main() -> None:
    """Time the stages and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=4, help="take every Nth page")
    args = parser.parse_args()
    pages = load_pages()[::args.every]
    bare_parser = etree.HTMLParser(encoding="utf-8")
    seconds: dict[str, float] = defaultdict(float)
    clock = time.process_time
    for page in pages:
        started = clock()
        etree.fromstring(page.html.encode("utf-8", "replace"), bare_parser)
        seconds["bare parse (and free)"] += clock() - started
        started = clock()
        root = parse_html(page.html, page.id)
        parsed = clock()
        dom = index_dom(root)
        walked = clock()
        blocks = segment_dom(page, dom, "blocks")
        segmented = clock()
        del dom, root
        freed = clock()
        eligible_blocks(blocks, 40, 3)
        checked = clock()
        blocks.block_digests(TEXT_KIND)
        digested = clock()
        for name, (a, b) in {"parse_html": (started, parsed), "walk": (parsed, walked),
                             "segment": (walked, segmented), "free tree": (segmented, freed),
                             "eligibility": (freed, checked),
                             "digests": (checked, digested)}.items():
            seconds[name] += b - a
    bare = seconds["bare parse (and free)"]
    print(f"{len(pages)} pages, page walk: {WALK}")
    print("| stage | x bare parse |\n|---|---:|")
    for name, value in seconds.items():
        print(f"| {name} | {value / bare:.2f} |")


if __name__ == "__main__":
    main()
