"""The main-content benchmark's difference table (benchmarks/main_content.py)."""

import sys

from repo import load_benchmark

bench = load_benchmark("main_content", "main_content_bench")
Tally = bench.Tally
SnippetCounts = sys.modules["content_scoring"].SnippetCounts


def _snippet_tally(pages: list[tuple[int, int, int]]) -> object:
    tally = Tally()
    for tp, fp, fn in pages:
        tally.page_snippets.append(SnippetCounts(tp, fp, fn, 0))
    return tally


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
