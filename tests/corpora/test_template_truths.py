"""The two truths' ceiling (benchmarks/template_truths.py): the best recall at a precision
that one ranking of the blocks reaches against both truths, checked against every
ranking of small sets of blocks."""

import itertools

import numpy as np
import pytest
from repo import load_benchmark

from denoise.training import NO_LABEL

truths = load_benchmark("template_truths", "template_truths_benchmark")


def _recall_at(order: list[tuple[int, int]], truth: int, target: float) -> float:
    """Recall against one truth (0: site labels, 1: region) at the deepest prefix of
    ``order`` whose precision is >= ``target``; blocks that truth leaves unlabelled
    (NO_LABEL) count for neither."""
    positives = sum(1 for block in order if block[truth] == 1)
    best = hits = called = 0
    for block in order:
        if block[truth] == NO_LABEL:
            continue
        called += 1
        hits += block[truth] == 1
        if hits / called >= target:
            best = max(best, hits)
    return best / positives


def _brute_force(blocks: list[tuple[int, int]], target: float) -> float:
    return max(min(_recall_at(list(order), 0, target), _recall_at(list(order), 1, target))
               for order in set(itertools.permutations(blocks)))


@pytest.mark.parametrize(("both", "site_only", "region_only", "free_site", "free_region"), [
    (1, 3, 3, 0, 0),  # disagreement beyond what either truth's precision absorbs: 0.5
    (2, 2, 2, 0, 0),  # 0.75: a truth absorbs whole false calls, not a third of one
    (2, 2, 1, 0, 0),
    (1, 1, 1, 1, 1),
    (3, 1, 2, 0, 1),
    (2, 3, 0, 1, 0),
])
def test_the_ceiling_is_the_best_any_ranking_reaches(both, site_only, region_only, free_site,
                                                     free_region):
    blocks = ([(1, 1)] * both + [(1, 0)] * site_only + [(0, 1)] * region_only
              + [(1, NO_LABEL)] * free_site + [(NO_LABEL, 1)] * free_region + [(0, 0)])
    counts = truths.Counts()
    for site, region in blocks:
        counts.add(truths.page_counts(np.array([site]), np.array([site != NO_LABEL]),
                                      np.array([region])))
    target = 0.75
    best = _brute_force(blocks, target)
    assert truths.lower(truths.ceiling(counts, target)) == pytest.approx(best)


def test_disagreement_beyond_what_precision_absorbs_lowers_the_ceiling():
    counts = truths.Counts(site_template=4, region_template=4, site_only=3, region_only=3)
    assert truths.lower(truths.ceiling(counts, 0.75)) == pytest.approx(0.5)
    counts = truths.Counts(site_template=4, region_template=4, site_only=2, region_only=2)
    assert truths.lower(truths.ceiling(counts, 0.75)) == pytest.approx(0.75)


def test_the_lower_recall_is_nan_when_a_truth_has_no_template():
    only_site = truths.Counts(site_template=3)
    assert truths.ceiling(only_site)[0] == 1.0
    assert np.isnan(truths.lower(truths.ceiling(only_site)))
    assert np.isnan(truths.lower((float("nan"), 1.0)))
    assert np.isnan(truths.lower((1.0, float("nan"))))


def test_counts_read_site_labels_on_examples_only():
    counts = truths.page_counts(np.array([1, 1, 0, 1]), np.array([True, False, True, True]),
                                np.array([1, 1, 1, 0]))
    assert (counts.site_template, counts.region_template, counts.site_only,
            counts.region_only) == (2, 3, 1, 1)
    assert truths.page_counts(np.array([1]), np.array([True]), None).region_template == 0
