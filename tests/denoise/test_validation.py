"""Cross-site validation: folds by site family, precision-recall curves, operating points."""

import json
from dataclasses import dataclass

import numpy as np
import pytest
from sitegen import labelled_pages
from sklearn.metrics import precision_recall_curve

from denoise.detector import TemplateDetector
from denoise.model import TemplateModel
from denoise.training import CrossSiteReport, cross_validate
from denoise.validation import (
    Curve,
    FamilyCurves,
    cross_site_predictions,
    pr_curve,
    site_family,
    site_folds,
)

# --- site families and folds ----------------------------------------------------------


@pytest.mark.parametrize(("site", "family"), [
    ("news.bbc.co.uk", "bbc"), ("bbc.co.uk_news", "bbc"), ("bbc", "bbc"),
    ("github-news-ctf/www.cnn.com", "cnn"), ("github-news-msv/cnn", "cnn"),
    ("www.example.com", "example"), ("www2.example.com", "example"),
    ("WWW.Example.COM", "example"), ("m.facebook.com", "facebook"),
    ("en.wikipedia.org", "wikipedia"), ("www.news.example.org", "example"),
    ("corpus/shop/", "shop"), ("example.com", "example"),
])
def test_site_family(site, family):
    assert site_family(site) == family


def random_sites(rng: np.random.Generator, families: int) -> list[str]:
    """Sites of ``families`` publishers, each with 1-3 spellings and 1-40 items."""
    sites = []
    for number in range(families):
        spellings = [f"www.pub{number}.com", f"pub{number}.co.uk_news", f"crawl/pub{number}"]
        for _ in range(int(rng.integers(1, 40))):
            sites.append(spellings[int(rng.integers(0, int(rng.integers(1, 4))))])
    rng.shuffle(sites)
    return sites


@pytest.mark.parametrize("seed", range(8))
def test_site_folds_keep_families_whole_and_balance_sizes(seed):
    rng = np.random.default_rng(seed)
    sites = random_sites(rng, int(rng.integers(4, 15)))
    n_folds = int(rng.integers(2, 5))
    folds = site_folds(sites, n_folds)
    assert len(folds) == n_folds
    everything = np.concatenate(folds)
    assert sorted(everything.tolist()) == list(range(len(sites)))
    fold_of_family: dict[str, int] = {}
    for fold, indices in enumerate(folds):
        for index in indices.tolist():
            family = site_family(sites[index])
            assert fold_of_family.setdefault(family, fold) == fold, family
    # dealt largest first to the smallest fold: sizes differ by at most one family
    largest_family = max(np.unique([site_family(s) for s in sites], return_counts=True)[1])
    sizes = [len(fold) for fold in folds]
    assert max(sizes) - min(sizes) <= largest_family
    assert all(sizes)
    # deterministic
    again = site_folds(sites, n_folds)
    assert all(np.array_equal(a, b) for a, b in zip(folds, again, strict=True))


def test_site_folds_of_equal_families_are_equal():
    sites = [f"site{k}.com" for k in range(12) for _ in range(5)]
    assert [len(fold) for fold in site_folds(sites, 4)] == [15, 15, 15, 15]


def test_site_folds_refuse_too_few_families_or_folds():
    with pytest.raises(ValueError, match="2 site families cannot fill 3 folds"):
        site_folds(["www.a.com", "a.com", "b.com"], 3)
    with pytest.raises(ValueError, match="at least 2 folds"):
        site_folds(["a.com", "b.com"], 1)


@dataclass
class Item:
    site: str
    number: int


def test_cross_site_predictions_score_each_item_by_a_model_blind_to_its_family():
    rng = np.random.default_rng(3)
    items = [Item(site, number) for number, site in enumerate(random_sites(rng, 7))]
    folds_seen = []

    def fit_and_score(train, test):
        trained = {site_family(item.site) for item in train}
        assert not trained & {site_family(item.site) for item in test}
        assert len(train) + len(test) == len(items)
        return [np.array([item.number, len(train)]) for item in test]

    scores = cross_site_predictions(items, 3, fit_and_score, on_fold=folds_seen.append)
    assert folds_seen == [0, 1, 2]
    assert [int(s[0]) for s in scores] == [item.number for item in items]


# --- precision-recall curves ----------------------------------------------------------


def random_scores(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    labels = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(np.int8)
    scores = np.clip(0.3 * labels + rng.random(n), 0, 1)
    if rng.random() < 0.5:
        scores = np.round(scores, 1)  # ties
    labels[0] = 1  # at least one template example
    return scores, labels


@pytest.mark.parametrize("seed", range(10))
def test_pr_curve_equals_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    scores, labels = random_scores(rng, int(rng.integers(1, 300)))
    weights = rng.random(len(scores)) if seed % 2 else None
    curve = pr_curve(scores, labels, weights)
    precision, recall, thresholds = precision_recall_curve(labels, scores,
                                                           sample_weight=weights)
    # scikit-learn: increasing thresholds, and a last point (precision 1, recall 0) of none
    np.testing.assert_allclose(curve.thresholds, thresholds[::-1])
    np.testing.assert_allclose(curve.precision, precision[:-1][::-1])
    np.testing.assert_allclose(curve.recall, recall[:-1][::-1])


@pytest.mark.parametrize("seed", range(6))
def test_curve_at_is_the_precision_and_recall_of_scoring_above_a_threshold(seed):
    rng = np.random.default_rng(seed)
    scores, labels = random_scores(rng, 200)
    curve = pr_curve(scores, labels)
    for threshold in [*rng.random(20), *curve.thresholds[:5], 1.5, 0.0]:
        called = scores >= threshold
        hits = int((called & (labels == 1)).sum())
        expected = (hits / called.sum() if called.any() else 1.0, hits / (labels == 1).sum())
        assert curve.at(float(threshold)) == pytest.approx(expected)


@pytest.mark.parametrize("seed", range(6))
def test_threshold_for_recall_is_the_highest_reaching_it(seed):
    curve = pr_curve(*random_scores(np.random.default_rng(seed), 200))
    for target in (0.1, 0.25, 0.5, 0.8, 0.95, 1.0):
        threshold = curve.threshold_for_recall(target)
        assert curve.at(threshold)[1] >= target
        higher = curve.thresholds[curve.thresholds > threshold]
        assert all(curve.at(float(t))[1] < target for t in higher)


@pytest.mark.parametrize("seed", range(6))
def test_threshold_for_precision_gives_the_best_recall_at_that_precision(seed):
    curve = pr_curve(*random_scores(np.random.default_rng(seed), 200))
    for target in (0.5, 0.7, 0.9, 0.99):
        threshold = curve.threshold_for_precision(target)
        if threshold > curve.thresholds[0]:  # no threshold reaches the target
            assert (curve.precision < target).all()
            assert curve.at(threshold) == (1.0, 0.0)
            continue
        precision, recall = curve.at(threshold)
        assert precision >= target
        assert recall == curve.recall_at(target)
        # and it is the highest threshold with that recall
        higher = curve.thresholds > threshold
        assert (curve.recall[higher] < recall).all()


def test_threshold_for_precision_when_even_the_top_score_misses():
    curve = Curve(np.array([0.9, 0.5]), np.array([0.5, 0.6]), np.array([0.5, 1.0]))
    threshold = curve.threshold_for_precision(0.8)
    assert threshold > 0.9
    assert curve.at(threshold) == (1.0, 0.0)


def test_threshold_for_precision_gains_nothing_by_going_lower_at_equal_recall():
    curve = Curve(np.array([0.9, 0.5, 0.1]), np.array([1.0, 0.95, 0.91]),
                  np.array([1.0, 1.0, 1.0]))
    assert curve.threshold_for_precision(0.9) == 0.9


def test_sampled_curve_keeps_at_most_the_points_asked_for():
    rng = np.random.default_rng(0)
    scores, labels = random_scores(rng, 5000)
    scores = rng.random(5000)  # all distinct: 5000 points
    curve = pr_curve(scores, labels)
    sampled = curve.sampled(51)
    assert len(sampled.thresholds) <= 51
    assert set(sampled.thresholds.tolist()) <= set(curve.thresholds.tolist())
    assert sampled.thresholds[0] == curve.thresholds[0]
    assert (np.diff(sampled.thresholds) < 0).all()
    assert (np.diff(sampled.recall) >= 0).all()
    for threshold in sampled.thresholds.tolist():
        assert sampled.at(threshold) == curve.at(threshold)
    assert curve.sampled(len(curve.thresholds)) is curve


def test_curve_survives_json():
    curve = pr_curve(*random_scores(np.random.default_rng(1), 300))
    again = Curve.from_dict(json.loads(json.dumps(curve.as_dict())))
    for name in ("thresholds", "precision", "recall"):
        np.testing.assert_allclose(getattr(again, name), getattr(curve, name), atol=1e-6)
    with pytest.raises(ValueError, match="empty"):
        Curve.from_dict({"thresholds": [], "precision": [], "recall": []})
    with pytest.raises(ValueError, match="differ"):
        Curve.from_dict({"thresholds": [0.5, 0.2], "precision": [1.0], "recall": [0.5]})
    with pytest.raises(KeyError):
        Curve.from_dict({"thresholds": [0.5]})


def test_pr_curve_of_no_examples_is_empty_or_a_value_error():
    try:
        curve = pr_curve(np.zeros(0), np.zeros(0, dtype=np.int8))
    except ValueError:
        return
    assert len(curve.thresholds) == 0


# --- cross-site validation of the page-level model ------------------------------------


def test_cross_validate_scores_every_example_by_a_model_blind_to_its_site():
    pages = labelled_pages()
    trained_on: list[set[str]] = []

    def make(train):
        trained_on.append({page.site for page in train})
        return TemplateDetector(TemplateModel().fit(train))

    report = cross_validate(pages, make, n_folds=3)
    assert isinstance(report, CrossSiteReport)
    assert len(trained_on) == 3
    assert all(len(sites) == 4 for sites in trained_on)  # 6 sites, 2 in each fold
    examples = sum(int(page.example.sum()) for page in pages)
    assert len(report.labels) == len(report.raw) == len(report.smoothed) == examples
    assert len(report.sites) == examples
    assert set(report.labels.tolist()) == {0, 1}
    # every site was tested by exactly the fold whose model did not see it
    assert all(sum(site not in seen for seen in trained_on) == 1 for site in set(report.sites))
    rows = report.per_site(0.9)
    assert [row[0] for row in rows] == sorted({page.site for page in pages})
    assert sum(row[1] for row in rows) == examples
    for _, _, template, recall in rows:
        assert template > 0
        assert recall > 0.9  # generated templates are easy
    assert report.site_mean_recall(0.9) == pytest.approx(np.mean([row[3] for row in rows]))
    pooled = report.curve(smoothed=True)
    assert pooled.recall_at(0.9) > 0.9
    assert report.curve(smoothed=False, site=rows[0][0]).recall[-1] == 1.0


def test_cross_site_report_without_smoothing_has_equal_scores():
    pages = labelled_pages()
    report = cross_validate(
        pages, lambda train: TemplateDetector(TemplateModel(classifier="naive-bayes").fit(
            train), smoothing=None), n_folds=2)
    np.testing.assert_array_equal(report.raw, report.smoothed)


def _families() -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Three families: 'clean' separates template from content, 'noisy' scores its content
    as high as its template, 'plain' has no template at all."""
    scores = np.array([0.9, 0.8, 0.1, 0.2, 0.9, 0.8, 0.85, 0.1, 0.3, 0.2])
    labels = np.array([1, 1, 0, 0, 1, 1, 0, 0, 0, 0])
    sites = ["www.clean.org"] * 4 + ["noisy.com"] * 4 + ["plain.net"] * 2
    return scores, labels, sites


def test_family_curves_count_each_family_once():
    curves = FamilyCurves.of(*_families())
    assert list(curves.families) == ["clean", "noisy", "plain"]
    top = int(np.flatnonzero(curves.thresholds <= 0.8)[0])  # the first threshold at or under 0.8
    assert curves.precision[0, top] == 1.0 and curves.recall[0, top] == 1.0
    assert curves.precision[1, top] == pytest.approx(2 / 3)
    assert curves.precision[2, top] == 1.0  # calls nothing: nothing wrongly removed
    assert np.isnan(curves.recall[2]).all()  # no template to find
    assert curves.curve(None).precision[top] == pytest.approx((1 + 2 / 3 + 1) / 3)
    assert curves.curve(0.0).precision[top] == pytest.approx(2 / 3)  # the worst family


def test_held_out_thresholds_are_chosen_without_the_family():
    curves = FamilyCurves.of(*_families())
    chosen, precision, recall = curves.held_out(0.9, 0.0)
    # Without 'noisy', every threshold over 0.3 keeps the others at 100% precision and
    # 0.8 finds all of 'clean''s template: 'noisy' is cut there and pays for it. With
    # 'noisy' among the others, the worst family forbids any threshold under 0.9.
    noisy = list(curves.families).index("noisy")
    assert precision[noisy] < 0.9
    clean = list(curves.families).index("clean")
    assert chosen[clean] > 0.85 and recall[clean] == pytest.approx(0.5)


def test_each_familys_precision_and_recall_at_its_own_threshold():
    curves = FamilyCurves.of(*_families())
    chosen, precision, recall = curves.held_out(0.9, 0.0)
    got = curves.at(chosen)
    np.testing.assert_array_equal(got[0], precision)
    np.testing.assert_array_equal(got[1], recall)
    # above the grid nothing is called template; at its lowest threshold everything is
    top, bottom = curves.thresholds[0] + 1.0, curves.thresholds[-1]
    above = curves.at(np.full(len(curves.families), top))
    assert above[0].tolist() == [1.0] * len(curves.families)
    assert above[1].tolist() == [0.0] * len(curves.families)
    everything = curves.at(np.full(len(curves.families), bottom))
    np.testing.assert_array_equal(everything[0], curves.precision[:, -1])


def test_the_stored_curve_keeps_pooled_recall_and_family_precision():
    scores, labels, sites = _families()
    curves = FamilyCurves.of(scores, labels, sites)
    stored = curves.operating_curve(0.25)
    pooled = pr_curve(scores, labels)
    for threshold, recall in zip(stored.thresholds, stored.recall, strict=True):
        assert recall == pytest.approx(pooled.at(threshold)[1])
    assert list(stored.precision) == list(curves.curve(0.25).precision)


def test_pooled_recall_counts_only_the_examples_asked():
    scores, labels, sites = _families()
    counted = np.array([True] * 4 + [False] * 6)  # 'clean' alone: 'noisy' only calibrates
    curves = FamilyCurves.of(scores, labels, sites, pooled=counted)
    alone = FamilyCurves.of(scores[:4], labels[:4], sites[:4])
    for threshold, recall in zip(curves.thresholds, curves.pooled_recall, strict=True):
        assert recall == pytest.approx(alone.at([threshold])[1][0])
    assert list(curves.families) == ["clean", "noisy", "plain"]  # its precision still counts
