"""Speed of ``kwx extract`` per page, with and without de-noising, against bare parsing.

Run: python benchmarks/keyword_speed.py [--limit 1500] [--repeat 1]

The pages: the content-dev sets (single pages of several hundred sites), evenly
sampled. Interleaved page by page so every contender sees the same machine state
(this machine is shared and noisy): bare ``lxml`` parsing of the page, the
extractor without the detector, the extractor with it (the shipped models and
tables, loaded once). Prints pages per CPU-second and the ratios to bare parsing
(the crawl-scale goal of issue 6 is >= 0.33x), and the extractor's stages.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from corpora.content import iter_content_pages
from denoise.html import parse_html
from denoise.page import Page
from kwx.candidates import find_candidates
from kwx.document import read_document
from kwx.extractor import KeywordExtractor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=250, help="pages a content set")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    pages = [Page(id=f"{g.set_name}/{g.page_id}", html=g.html, url=g.url)
             for g in iter_content_pages(limit=args.limit)]
    plain = KeywordExtractor.load(denoise=False)
    denoised = KeywordExtractor.load(denoise=True)
    clock: dict[str, float] = defaultdict(float)
    stages: dict[str, float] = defaultdict(float)
    done = 0
    for _ in range(args.repeat):
        for page in pages:
            start = time.process_time()
            parse_html(page.html, page.id)
            middle = time.process_time()
            plain.extract(page)
            after_plain = time.process_time()
            denoised.extract(page)
            end = time.process_time()
            clock["parse"] += middle - start
            clock["kwx --no-denoise"] += after_plain - middle
            clock["kwx (de-noised)"] += end - after_plain
            # the de-noised extractor's stages, measured apart
            marks = [time.process_time()]
            document = read_document(page, denoised.detector)
            marks.append(time.process_time())
            found = find_candidates(document)
            marks.append(time.process_time())
            features = denoised.statistics.features(found)
            marks.append(time.process_time())
            denoised.ranker.predict_proba(features)
            marks.append(time.process_time())
            for name, a, b in zip(("parse + detector + text", "candidates (spaCy + n-grams)",
                                   "features (table lookups)", "ranker"), marks, marks[1:],
                                  strict=False):
                stages[name] += b - a
            done += 1
    print(f"{done} page extractions ({len(pages)} pages x {args.repeat})")
    print("| contender | pages per CPU-second | relative to bare parsing |\n|---|---:|---:|")
    for name, seconds in clock.items():
        print(f"| {name} | {done / seconds:.0f} | {clock['parse'] / seconds:.2f}x |")
    total = sum(stages.values())
    print("\nDe-noised extractor, by stage (share of its time; CPU seconds relative to parsing):")
    for name, seconds in stages.items():
        print(f"- {name}: {100 * seconds / total:.0f}% ({seconds / clock['parse']:.2f}x parse)")


if __name__ == "__main__":
    main()
