"""The main-content benchmark's difference table (benchmarks/main_content.py): a paired
bootstrap over pages."""

import importlib.util
import sys

import numpy as np
from repo import ROOT


def _load_benchmark():
    # benchmarks/ is a folder of scripts that import each other by name
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        path = ROOT / "benchmarks" / "main_content.py"
        spec = importlib.util.spec_from_file_location("main_content_bench", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return module


bench = _load_benchmark()
Tally = bench.Tally
SnippetCounts = sys.modules["content_scoring"].SnippetCounts
ShingleScore = sys.modules["content_scoring"].ShingleScore


def _snippet_tally(pages: list[tuple[int, int, int]]) -> object:
    tally = Tally()
    for tp, fp, fn in pages:
        counts = SnippetCounts(tp, fp, fn, 0)
        tally.snippets += counts
        tally.page_snippets.append(counts)
    return tally


def test_one_draw_of_every_page_gives_the_headline_f1():
    snippets = _snippet_tally([(3, 0, 0), (1, 2, 1), (0, 1, 3)])
    shingles = Tally(shingle_scores=[ShingleScore(5, 10, 5), ShingleScore(2, 2, 8)])
    for tally in (snippets, shingles):
        once = bench.resampled_f1(tally, np.ones((1, 3 if tally is snippets else 2)))
        assert once[0] == tally.f1_p_r()[0]
    # pooled: a page drawn twice counts its snippets twice
    twice = bench.resampled_f1(snippets, np.array([[2, 0, 1]]))
    assert twice[0] == 2 * 6 / (2 * 6 + 1 + 3)


def _row(ours: list[tuple[int, int, int]], theirs: list[tuple[int, int, int]]) -> dict:
    return {"denoise": _snippet_tally(ours), "other": _snippet_tally(theirs)}


def test_the_interval_holds_zero_only_when_the_pages_disagree():
    better = _row([(3, 0, 0)] * 30, [(2, 1, 1)] * 30)
    mixed = _row([(3, 0, 0), (1, 1, 2)] * 15, [(1, 1, 2), (3, 0, 0)] * 15)
    lines = bench.difference_table({"better": better, "mixed": mixed}, {},
                                   ["denoise", "other"])
    rows = {line.split(" | ")[0].lstrip("| "): line for line in lines if line.startswith("| ")}
    gap, interval = rows["better"].split(" | ")[2].split(" (")
    low, high = (float(x) for x in interval.rstrip(") |").split(" to "))
    assert float(gap) > 0 and low == high == float(gap)  # every page alike: no spread
    gap, interval = rows["mixed"].split(" | ")[2].split(" (")
    low, high = (float(x) for x in interval.rstrip(") |").split(" to "))
    assert float(gap) == 0 and low < 0 < high


def test_no_table_without_denoise_or_a_baseline():
    row = _row([(1, 0, 0)], [(1, 0, 0)])
    assert bench.difference_table({"s": row}, {}, ["other"]) == []
    assert bench.difference_table({"s": {"denoise": row["denoise"]}}, {}, ["denoise"]) == []


def test_pages_are_drawn_together():
    # pages of every difficulty, the other extractor a little worse on each: paired, the
    # gap is sure; drawn apart, the pages' spread would hide it
    ours = [ShingleScore(m, 100, 100) for m in range(10, 100, 3)]
    theirs = [ShingleScore(m - 2, 100, 100) for m in range(10, 100, 3)]
    row = {"denoise": Tally(shingle_scores=ours), "other": Tally(shingle_scores=theirs)}
    line = bench.difference_table({"s": row}, {}, ["denoise", "other"])[-2]
    gap, interval = line.split(" | ")[2].split(" (")
    low, high = (float(x) for x in interval.rstrip(") |").split(" to "))
    assert float(gap) == 2.0 and low == high == 2.0
