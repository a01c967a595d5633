"""Compiled steps against the Python or numpy steps they replace, in this checkout: each
pair called in turns on the same inputs, in one process.

Run (from the repository root; needs the shared corpora or a JSON lines input):

    python benchmarks/references_ab.py [--pages 1500] [--input FILE.jsonl] [--markdown FILE]

``kernels_ab.py`` compares a kernel with a base revision's build of it, so it cannot time
a step the base does not have. Here the other side is the reference the tests compare the
compiled step with: lxml's own lookups for the head texts, json's string encoder for a
page's text in apply's JSON lines, the numpy steps of ``PageScores.content_chunks``.
Printed per step: microseconds a page for each, their ratio, and whether the outputs are
the same.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from json.encoder import encode_basestring
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for folder in (ROOT, HERE):  # run as `python benchmarks/references_ab.py` without installing
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from benchmarks_common import emit  # noqa: E402
from kernels_ab import difference, pages_of  # noqa: E402

from denoise import _compiled  # noqa: E402
from denoise.detector import PageScores, TemplateDetector  # noqa: E402
from denoise.head import head_texts_python  # noqa: E402
from denoise.html import parse_html  # noqa: E402
from denoise.page import Page  # noqa: E402
from engine import _kernels as engine_kernels  # noqa: E402

#: step -> (the reference, the compiled step), each called with the step's arguments.
PAIRS: dict[str, tuple[Callable, Callable]] = {
    "head_texts": (head_texts_python, _compiled.head_texts),
    "json_string": (encode_basestring, engine_kernels.json_string),
    "content_chunks": (lambda s: _uncached(s).content_chunks_numpy(),
                       lambda s: _uncached(s).content_chunks()),
}


def _uncached(scores: PageScores) -> PageScores:
    """``scores`` without the block scores the numpy steps cache on it (as a page's
    first call finds it)."""
    scores.__dict__.pop("block_scores", None)
    return scores


def step_calls(page: Page, detector: TemplateDetector) -> Iterator[tuple[str, tuple]]:
    """Each step's arguments for ``page``; the head texts read a tree parsed just before."""
    yield "head_texts", (parse_html(page.html, page.id),)
    scores: PageScores = detector.score(page)
    yield "content_chunks", (scores,)
    yield "json_string", (scores.content_text(),)


def measure(pages: list[Page], detector: TemplateDetector) -> dict[str, dict[str, float]]:
    results = {k: {"reference": 0.0, "compiled": 0.0, "difference": 0.0} for k in PAIRS}
    for index, page in enumerate(pages):
        for name, args in step_calls(page, detector):
            sides = list(zip(("reference", "compiled"), PAIRS[name], strict=True))
            outputs = {}
            for side, function in (sides if index % 2 else sides[::-1]):
                started = time.perf_counter()
                outputs[side] = function(*args)
                results[name][side] += time.perf_counter() - started
            results[name]["difference"] = max(
                results[name]["difference"],
                difference(outputs["reference"], outputs["compiled"]))
    return results


def report(results: dict[str, dict[str, float]], pages: int) -> str:
    lines = [f"Compiled steps against their references, {pages} pages, in turns in one "
             "process (us a page)", "",
             "| step | reference | compiled | compiled / reference | outputs |",
             "|---|---:|---:|---:|---|"]
    for name, r in results.items():
        same = "the same" if r["difference"] == 0 else "differ"
        lines.append(f"| {name} | {1e6 * r['reference'] / pages:.1f} | "
                     f"{1e6 * r['compiled'] / pages:.1f} | "
                     f"{r['compiled'] / r['reference']:.3f} | {same} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=1500)
    parser.add_argument("--input", type=Path, default=None,
                        help="a JSON lines file of pages (default: the dev-site pages)")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args()
    pages = pages_of(args.input, args.pages)
    results = measure(pages, TemplateDetector.load())
    emit(report(results, len(pages)), args.markdown)


if __name__ == "__main__":
    main()
