"""Memory a page waiting for its site takes in ``denoise site``, whole and reduced.

Run: python benchmarks/site_hold.py [--limit N]

Segments dev-site pages as ``denoise site``'s default method does (fingerprint,
``blocks``), without their HTML, as a waiting page is kept, and holds them: once whole
(``--out``: their text is written) and once reduced to their text shares
(:meth:`denoise.blocks.PageBlocks.text_shares_only`, the per-site report alone). For
each, the bytes a held page takes as ``tracemalloc`` counts them, the batch driver's
estimate (``denoise.site.batch._held_size``, which the budget is spent by) over that,
and how many such pages the budget (``HOLD_BYTES``) holds before the rest spill.
"""

from __future__ import annotations

import argparse
import gc
import tracemalloc

from benchmarks_common import load_pages

from denoise.blocks import PageBlocks
from denoise.site.batch import HOLD_BYTES, _held_size, without_html
from denoise.site.fingerprint import FingerprintMethod


def held(pages: list, reduce: bool) -> tuple[float, float]:
    """Mean bytes per held page (tracemalloc) and mean estimated bytes."""
    segment = FingerprintMethod().segmenter(shares_only=reduce)  # as the batch driver's
    kept: list[PageBlocks] = []
    estimated = 0
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for page in pages:
        blocks = without_html(segment(page))
        kept.append(blocks)
        estimated += _held_size(blocks)
    gc.collect()
    traced = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return traced / len(kept), estimated / len(kept)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=3000, help="pages (evenly sampled)")
    args = parser.parse_args()
    pages = load_pages()
    pages = pages[::max(len(pages) // args.limit, 1)][:args.limit]
    print(f"{len(pages):,} dev-site pages; budget {HOLD_BYTES / 2**20:.0f} MB")
    print("| waiting page | KB held (tracemalloc) | estimate / held | pages in the budget |")
    print("|---|---:|---:|---:|")
    for name, reduce in (("whole (--out)", False), ("text shares (report only)", True)):
        traced, estimated = held(pages, reduce)
        print(f"| {name} | {traced / 1024:.1f} | {estimated / traced:.2f} | "
              f"{HOLD_BYTES / estimated:,.0f} |")


if __name__ == "__main__":
    main()
