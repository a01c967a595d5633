"""Where a page's time goes in ``kwx extract``, step by step, against bare parsing.

Run: python benchmarks/kwx_stages.py FILE.jsonl [--skip N] [--pages N]

The first ``--skip`` + ``--pages`` lines of a JSON lines file are run through the real
command (``kwx extract --jobs 1``, its output to a temporary folder), in this process,
with a timer around each step it calls; then the counted pages are parsed bare (each by
``denoise.html.parse_html``, the tree freed). Each step's time is its own, less the
steps it calls, per counted page, and as a share of bare parsing's. The ``--skip`` pages
are not counted: the caches warm, as in a crawl's steady state (the command takes pages
in batches, and counting starts with the first batch starting at ``--skip`` or after).
The timers cost about a microsecond each, and the command's time also holds what no step
covers (reading, JSON, writing). For a change's effect on the command, use ``ab.py``:
this tells where to look, not by how much a change helped.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import denoise.cleaning as cleaning
import denoise.detector as detector
import kwx.candidates as candidates
import kwx.document as document
import kwx.extractor as extractor
import kwx.spacy_rules as spacy_rules
import kwx.text as text
from denoise.blocks import DomIndex
from denoise.html import parse_html
from denoise.reader import Skipped, read_pages

#: (module or class, function name): the steps timed, in the order a page meets them.
STEPS = [
    (cleaning, "parse_html"), (cleaning, "index_dom"), (cleaning, "markup_stats"),
    (cleaning, "head_texts"), (cleaning, "segment_dom"), (DomIndex, "without_tree"),
    (cleaning.Cleaner, "parse"), (cleaning, "page_features"),
    (detector.TemplateDetector, "score_features"), (cleaning.Cleaner, "keep"),
    (document, "block_lines"), (extractor, "kept_document"),
    (candidates, "_head_lines"), (candidates, "_words_with"),
    (text._ChunkTokens, "_add"), (text, "_spacy_chunk_rows"),
    (spacy_rules.Imitation, "learn_shapes"),
    (candidates, "occurrences"), (candidates, "unique_groups"),
    (candidates, "_occurrence_shares"), (candidates, "_present_words"),
    (extractor, "find_candidates"), (extractor.PhraseStatistics, "features"),
    (extractor.KeywordRanker, "predict_proba"), (extractor.ScoredCandidates, "top"),
    (extractor.KeywordExtractor, "extract"), (extractor.KeywordExtractor, "extract_many"),
]


class StepTimers:
    """Exclusive time and calls of each wrapped step (a step's time less its callees')."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.counting = False
        self._inner: list[float] = []

    def wrap(self, owner: object, name: str) -> None:
        step = getattr(owner, name)

        @functools.wraps(step)
        def timed(*args, **kwargs):
            started = time.perf_counter()
            self._inner.append(0.0)
            try:
                return step(*args, **kwargs)
            finally:
                spent = time.perf_counter() - started
                inner = self._inner.pop()
                if self._inner:
                    self._inner[-1] += spent
                if self.counting:
                    self.seconds[name] += spent - inner
                    self.calls[name] += 1

        setattr(owner, name, timed)


def main() -> None:
    """Run the command with the timers, then bare parsing, and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path, help="pages, JSON lines")
    parser.add_argument("--skip", type=int, default=0, help="pages run first, not counted")
    parser.add_argument("--pages", type=int, default=2000, help="pages counted")
    args = parser.parse_args()
    timers = StepTimers()
    for owner, name in STEPS:
        timers.wrap(owner, name)
    # the command takes pages in batches (KeywordExtractor.extract_many): a batch is
    # counted whole when it starts at or past --skip pages
    extract_many = extractor.KeywordExtractor.extract_many
    seen = {"pages": 0, "counted": 0, "first": None}

    def counted(self, pages, top=10):
        timers.counting = seen["pages"] >= args.skip
        if timers.counting:
            seen["first"] = seen["pages"] if seen["first"] is None else seen["first"]
            seen["counted"] += len(pages)
        seen["pages"] += len(pages)
        return extract_many(self, pages, top)

    extractor.KeywordExtractor.extract_many = counted
    from commands.kwx import app

    with tempfile.TemporaryDirectory() as folder:
        pages = Path(folder) / "pages.jsonl"
        with args.file.open("rb") as source, pages.open("wb") as sliced:
            sliced.writelines(itertools.islice(source, args.skip + args.pages))
        started = time.process_time()
        try:
            app(["extract", str(pages), "-o", str(Path(folder) / "out.jsonl"), "--jobs", "1"])
        except SystemExit as done:
            if done.code:
                raise
        command = time.process_time() - started
        counted_pages, first = seen["counted"], seen["first"] or 0
        bare = _bare_parse(pages, first)
    print(f"kwx extract on {counted_pages} pages of {args.file} after {first}: bare "
          f"parsing {1e6 * bare:.0f} us a page (this process, the same pages); the command "
          f"{command:.1f} CPU s in all")
    print("| step | us a page (own) | x bare parse | calls a page |")
    print("|---|---:|---:|---:|")
    for name, seconds in sorted(timers.seconds.items(), key=lambda item: -item[1]):
        per_page = seconds / max(counted_pages, 1)
        print(f"| {name} | {1e6 * per_page:.0f} | {per_page / bare:.2f} | "
              f"{timers.calls[name] / max(counted_pages, 1):.2f} |")


def _bare_parse(path: Path, skip: int) -> float:
    """CPU seconds a page of parsing the pages of ``path`` after the first ``skip``."""
    pages = (p for p in read_pages([str(path)]) if not isinstance(p, Skipped))
    chosen = list(itertools.islice(pages, skip, None))
    started = time.process_time()
    for page in chosen:
        parse_html(page.html, page.id)
    return (time.process_time() - started) / max(len(chosen), 1)


if __name__ == "__main__":
    sys.exit(main())
