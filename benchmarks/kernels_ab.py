"""A change's effect on the compiled per-page kernels: this checkout's extension against a
base revision's, both loaded in one process and called in turns on the same inputs.

Run (from the repository root; needs git, a C compiler and the shared corpora):

    python benchmarks/kernels_ab.py --base REV [--pages 800] [--input FILE.jsonl]
                                    [--kernels walk,markup_stats,...] [--markdown FILE]

``ab.py`` times whole commands, whose runs on this shared machine vary by 5-10%: more
than a change to one kernel can move them. Here each page is parsed once and every
kernel's base and head versions are called on the same input one after the other (the
order alternating from page to page), so both meet the tree or arrays equally warm, as
the command's next step would, and the host's drift falls on both alike. The base is
checked out into a temporary git worktree and its extension built there, then loaded
under another name. Printed per kernel: microseconds a page for each, their ratio, and
how far the outputs differ (exact, or the largest relative difference of floats). A
kernel the base does not have is skipped. Inputs: the dev-site pages (every Nth, to
``--pages``), or the first ``--pages`` of a JSON lines file (``scale.py --distinct``'s).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for folder in (ROOT, HERE):  # run as `python benchmarks/kernels_ab.py` without installing
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from ab import base_tree, drop_tree  # noqa: E402
from benchmarks_common import emit, load_pages  # noqa: E402

from denoise import _compiled as head  # noqa: E402
from denoise import features  # noqa: E402
from denoise.detector import TemplateDetector  # noqa: E402
from denoise.forest import _packed  # noqa: E402
from denoise.html import parse_html  # noqa: E402
from denoise.page import Page  # noqa: E402
from denoise.reader import Skipped, read_pages  # noqa: E402

#: Kernels timed, in the order a page meets them.
KERNELS = ("walk", "markup_stats", "head_texts", "page_words", "node_kl", "forest_proba")


def load_extension(tree: Path):
    """The compiled module built in ``tree``, loaded beside this checkout's."""
    built = sorted((tree / "denoise").glob("_compiled*.so"))
    if not built:
        sys.exit(f"error: no compiled extension in {tree / 'denoise'}")
    spec = importlib.util.spec_from_file_location("base_tree._compiled", built[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pages_of(source: Path | None, count: int) -> list[Page]:
    if source is None:
        pages = load_pages()
        return pages[::max(len(pages) // count, 1)][:count]
    return [p for p in itertools.islice(read_pages([str(source)]), count)
            if not isinstance(p, Skipped)]


def kernel_calls(page: Page, detector: TemplateDetector) -> Iterator[tuple[str, tuple]]:
    """Each kernel's arguments for ``page``, in the order the page's steps make them;
    the tree kernels get a tree parsed just before (as the command's walk does)."""
    root = parse_html(page.html, page.id)
    yield "walk", (root, True)
    yield "markup_stats", (root,)
    yield "head_texts", (root,)
    dom, blocks, markup = features.parse_blocks(page)
    nodes, _, _ = features._scored_tree(features.eligible_blocks(
        blocks, features.MIN_CHARS, features.MIN_UNIQUE_WORDS), blocks.parents)
    starts, ends = blocks.bounds
    positions, _ = features._sorted_positions(starts[nodes], ends[nodes])
    yield "page_words", (blocks.text, positions, features._CLASSES, features._TRIMMED,
                         features._title_words(dom))
    found = features.features_of((dom, blocks, markup))
    yield "node_kl", (found.token_ids, np.ascontiguousarray(found.token_spans),
                      len(found.words))
    model = detector.model
    if model.classifier == "forest" and len(found):
        width = found.matrix.shape[1]
        X = np.empty((len(found), width + (3 if model.text else 0)), dtype=np.float32)
        X[:, :width] = found.matrix
        if model.text:
            X[:, width:] = model.word_scores(found)
        packed, steps = _packed(model.forest_)
        yield "forest_proba", (packed, np.ascontiguousarray(model.forest_["roots"],
                                                            dtype=np.int32), steps, X)


def difference(a: object, b: object) -> float:
    """0 when equal; the largest relative difference of floats; inf when unlike."""
    if isinstance(a, tuple | list) and isinstance(b, tuple | list):
        if len(a) != len(b):
            return float("inf")
        return max((difference(x, y) for x, y in zip(a, b, strict=True)), default=0.0)
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if a.shape != b.shape or a.dtype != b.dtype:
            return float("inf")
        if a.dtype.kind == "f":
            scale = np.maximum(np.abs(a), np.finfo(a.dtype).tiny)
            return float(np.max(np.abs(a - b) / scale, initial=0.0))
        return 0.0 if np.array_equal(a, b) else float("inf")
    if hasattr(a, "__slots__") and type(a) is type(b):  # ChunkIndex and the like
        return difference([getattr(a, n) for n in a.__slots__],
                          [getattr(b, n) for n in b.__slots__])
    return 0.0 if a == b else float("inf")


def measure(pages: list[Page], base, kernels: list[str], detector: TemplateDetector,
            ) -> dict[str, dict[str, float]]:
    """Per kernel: seconds of base and head over the pages, calls, largest difference."""
    results = {k: {"base": 0.0, "head": 0.0, "calls": 0, "difference": 0.0} for k in kernels}
    for index, page in enumerate(pages):
        for name, args in kernel_calls(page, detector):
            if name not in results:
                continue
            sides: list[tuple[str, Callable]] = [("base", getattr(base, name)),
                                                 ("head", getattr(head, name))]
            outputs = {}
            for side, function in (sides if index % 2 else sides[::-1]):
                started = time.perf_counter()
                outputs[side] = function(*args)
                results[name][side] += time.perf_counter() - started
            results[name]["calls"] += 1
            results[name]["difference"] = max(results[name]["difference"],
                                               difference(outputs["base"], outputs["head"]))
    return results


def report(results: dict[str, dict[str, float]], pages: int, base: str,
           skipped: list[str]) -> str:
    lines = [f"Compiled kernels, this checkout against `{base}`, {pages} pages, in turns "
             "in one process (us a page)", "",
             "| kernel | base | head | head / base | outputs |", "|---|---:|---:|---:|---|"]
    for name, r in results.items():
        ratio = r["head"] / r["base"] if r["base"] else float("nan")
        same = "the same" if r["difference"] == 0 else (
            "differ" if r["difference"] == float("inf")
            else f"floats within {r['difference']:.1e}")
        lines.append(f"| {name} | {1e6 * r['base'] / pages:.1f} | "
                     f"{1e6 * r['head'] / pages:.1f} | {ratio:.3f} | {same} |")
    if skipped:
        lines += ["", f"Not in the base, not timed: {', '.join(skipped)}."]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the revision to compare with")
    parser.add_argument("--pages", type=int, default=800)
    parser.add_argument("--input", type=Path, default=None,
                        help="a JSON lines file of pages (default: the dev-site pages)")
    parser.add_argument("--kernels", default=",".join(KERNELS))
    parser.add_argument("--git", default="git")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args()
    wanted = args.kernels.split(",")
    unknown = sorted(set(wanted) - set(KERNELS))
    if unknown:
        parser.error(f"unknown kernels: {', '.join(unknown)} (known: {', '.join(KERNELS)})")
    pages = pages_of(args.input, args.pages)
    detector = TemplateDetector.load()
    with tempfile.TemporaryDirectory(prefix="kernels-ab-") as work:
        tree = Path(work) / "base"
        try:
            base = load_extension(base_tree(args.git, args.base, tree))
            kernels = [k for k in wanted if hasattr(base, k)]
            skipped = [k for k in wanted if k not in kernels]
            results = measure(pages, base, kernels, detector)
        finally:
            drop_tree(args.git, tree)
    emit(report(results, len(pages), args.base, skipped), args.markdown)


if __name__ == "__main__":
    main()
