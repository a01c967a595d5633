"""Cost of isotonic smoothing (denoise.smooth) against the number of nodes, next to parsing.

Run: python benchmarks/smoothing.py [--markdown benchmarks/out/smoothing.md]

For each size, a random DOM-like tree (preorder; each inner node has 1 to 8 children,
one child 40% of the time, like wrapper elements) with continuous scores (so as many
candidate values as nodes) and the paper's area penalties (subtree sizes standing in
for areas). Times one call of ``isotonic_smooth`` with the compiled and the Python
kernel, exact (levels=None) and on the grid of 101 values (levels=100), and, in the
same run, lxml parsing a synthetic HTML page with the same tree of elements: the
baseline every page pays anyway. Times are medians of repeated calls, in ms.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import lxml.html
import numpy as np
from benchmarks_common import emit

from denoise import smooth
from denoise.smooth import area_penalties, isotonic_smooth

SIZES = (100, 300, 1_000, 3_000, 10_000)
TAGS = ("div", "section", "span", "article", "em", "aside", "b", "nav")
WORDS = ("home", "news", "about", "contact", "story", "the", "of", "page", "more", "search")


def dom_like_tree(rng: np.random.Generator, n: int) -> np.ndarray:
    """Parents of a random tree with ``n`` nodes, in preorder."""
    parents = [-1]
    frontier = [0]
    while len(parents) < n:
        # grow mostly the newest nodes (depth, as in real pages), sometimes any
        at = len(frontier) - 1 if rng.random() < 0.5 else int(rng.integers(len(frontier)))
        node = frontier.pop(at)
        kids = 1 if rng.random() < 0.4 else int(rng.integers(2, 9))
        for _ in range(min(kids, n - len(parents))):
            frontier.append(len(parents))
            parents.append(node)
    children: list[list[int]] = [[] for _ in range(n)]
    for node, parent in enumerate(parents[1:], start=1):
        children[parent].append(node)
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(children[node]))
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    relabelled = np.full(n, -1, dtype=np.int64)
    for node in order[1:]:
        relabelled[position[node]] = position[parents[node]]
    return relabelled


def html_page(rng: np.random.Generator, parents: np.ndarray) -> bytes:
    """A page whose body holds one element per node, nested as the tree, with some text."""
    closing: list[str] = []
    depth = np.zeros(len(parents), dtype=np.int64)
    parts = ["<!DOCTYPE html><html><head><title>t</title></head><body>"]
    for node, parent in enumerate(parents.tolist()):
        depth[node] = 0 if parent < 0 else depth[parent] + 1
        while len(closing) > depth[node]:
            parts.append(closing.pop())
        tag = TAGS[int(rng.integers(len(TAGS)))]
        text = " ".join(WORDS[int(i)] for i in rng.integers(0, len(WORDS), rng.integers(0, 6)))
        parts.append(f'<{tag} class="c{node % 7}">{text}')
        closing.append(f"</{tag}>")
    parts.extend(reversed(closing))
    parts.append("</body></html>")
    return "".join(parts).encode("utf-8")


def subtree_sizes(parents: np.ndarray) -> np.ndarray:
    """Nodes under each node, itself included (the benchmark's stand-in for area)."""
    size = np.ones(len(parents))
    for node in range(len(parents) - 1, 0, -1):
        size[parents[node]] += size[node]
    return size


def median_ms(call: Callable[[], object], budget: float) -> float:
    """Median wall time of ``call`` in ms, over as many runs as fit ``budget`` seconds
    (at least 3, at most 200; a single run when one takes longer than the budget)."""
    times: list[float] = []
    while len(times) < 200:
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
        if sum(times) > budget and (len(times) >= 3 or times[0] > budget):
            break
    return 1000 * float(np.median(times))


def main() -> None:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", type=Path, help="also write the table here")
    parser.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    parser.add_argument("--no-python", action="store_true", help="skip the Python kernel")
    parser.add_argument("--budget", type=float, default=0.5,
                        help="seconds of repeated calls per measurement (default 0.5)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    has_compiled = smooth._isotonic is not None
    rows = []
    for n in args.sizes:
        parents = dom_like_tree(rng, n)
        scores = rng.beta(0.7, 0.7, n)
        penalties = area_penalties(subtree_sizes(parents), parents=parents)
        page = html_page(rng, parents)
        elements = sum(1 for _ in lxml.html.document_fromstring(page).iter()) - 4
        parse = median_ms(lambda page=page: lxml.html.document_fromstring(page), args.budget)
        for levels in (None, 100):
            def run(compiled: bool, parents=parents, scores=scores, penalties=penalties,
                    levels=levels) -> np.ndarray:
                return isotonic_smooth(scores, parents, penalties=penalties, levels=levels,
                                       compiled=compiled)
            fast = median_ms(lambda run=run: run(True), args.budget) if has_compiled else None
            slow = None if args.no_python else median_ms(lambda run=run: run(False), args.budget)
            if fast is not None and slow is not None:
                assert np.array_equal(run(True), run(False))
            shown = fast if fast is not None else slow
            rows.append(
                f"| {n:,} | {elements:,} | {'exact' if levels is None else levels} | "
                f"{'-' if fast is None else f'{fast:.2f}'} | "
                f"{'-' if slow is None else f'{slow:.1f}'} | {parse:.2f} | "
                f"{'-' if shown is None else f'{shown / parse:.2f}'} |")
            print(rows[-1], flush=True)
    lines = [
        "Isotonic smoothing (denoise.smooth.isotonic_smooth, area penalties, continuous scores)"
        " on random DOM-like trees; ms per call (median), next to lxml parsing a page with "
        "that many elements in the same run. levels: exact = every distinct score a "
        "candidate (m = n), 100 = scores rounded to the grid k/100 (m <= 101). "
        f"Kernel available: {smooth.KERNEL}.",
        "",
        "| nodes | parsed elements | levels | compiled ms | Python ms | lxml parse ms "
        "| smoothing / parse |",
        "|---:|---:|---|---:|---:|---:|---:|",
        *rows,
    ]
    emit("\n".join(lines), args.markdown)


if __name__ == "__main__":
    main()
