"""The listing model (step 8 of main-content mode): learns which reading to return, saves
and loads numbers only, refuses files that do not fit."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from denoise.arrayfile import ModelError, read_arrays, write_arrays
from denoise.listing import FORMAT_KIND, FORMAT_VERSION, LISTING_FEATURES, ListingModel
from denoise.main_content import listing_model_path


def rows(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pages whose items reading wins when the first reading keeps little of the page."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, len(LISTING_FEATURES)))
    first_share = LISTING_FEATURES.index("first_share")
    better = X[:, first_share] < 0
    return X, better, np.abs(X[:, first_share]) + 0.01


def test_it_learns_which_reading_wins():
    X, better, weight = rows()
    model = ListingModel().fit(X, better, weight)
    test, truth, _ = rows(seed=1)
    assert (model.is_listing(test) == truth).mean() > 0.9


def test_a_higher_threshold_reads_fewer_pages_as_listings():
    X, better, weight = rows()
    low = ListingModel(threshold=0.3).fit(X, better, weight)
    high = ListingModel(threshold=0.8).fit(X, better, weight)
    assert high.is_listing(X).sum() < low.is_listing(X).sum()


def test_save_and_load_give_the_same_probabilities(tmp_path):
    X, better, weight = rows()
    model = ListingModel(threshold=0.6).fit(X, better, weight)
    model.save(tmp_path / "listing.npz", extra={"training": {"pages": len(X)}})
    loaded = ListingModel.load(tmp_path / "listing.npz")
    assert loaded.threshold == 0.6 and loaded.header_["training"] == {"pages": len(X)}
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("param", [{"C": 0}, {"threshold": 1.0}, {"threshold": 0}])
def test_bad_parameters_are_refused(param):
    X, better, weight = rows()
    with pytest.raises(ValueError, match=next(iter(param))):
        ListingModel(**param).fit(X, better, weight)


def test_training_needs_both_outcomes_and_matching_rows():
    X, better, weight = rows()
    with pytest.raises(ValueError, match="each reading"):
        ListingModel().fit(X, np.ones(len(X), dtype=bool), weight)
    with pytest.raises(ValueError, match="one label"):
        ListingModel().fit(X[:, :3], better, weight)


def test_an_unfitted_model_says_so():
    with pytest.raises(NotFittedError):
        ListingModel().predict_proba(np.zeros((1, len(LISTING_FEATURES))))


def _write(path, header_changes: dict[str, object], arrays: dict[str, np.ndarray]) -> None:
    header = {"kind": FORMAT_KIND, "format_version": FORMAT_VERSION,
              "features": list(LISTING_FEATURES), "intercept": 0.0, "C": 1.0,
              "threshold": 0.5, **header_changes}
    write_arrays(path, header, arrays)


GOOD = {name: np.ones(len(LISTING_FEATURES)) for name in ("mean", "scale", "coef")}


@pytest.mark.parametrize(("header", "arrays", "message"), [
    ({"features": ["log_first"]}, GOOD, "other features"),
    ({}, {**GOOD, "coef": np.ones(3)}, "do not match"),
    ({}, {**GOOD, "scale": np.zeros(len(LISTING_FEATURES))}, "scales positive"),
    ({"threshold": 2.0}, GOOD, "threshold"),
    ({"intercept": "x"}, GOOD, "corrupt listing model"),
    ({}, {"mean": GOOD["mean"]}, "corrupt listing model"),
])
def test_a_file_that_does_not_fit_is_a_model_error(tmp_path, header, arrays, message):
    path = tmp_path / "listing.npz"
    _write(path, header, arrays)
    with pytest.raises(ModelError, match=message) as caught:
        ListingModel.load(path)
    assert str(path) in str(caught.value)


def test_the_shipped_model_reads_and_says_what_it_was_trained_on():
    model = ListingModel.load(listing_model_path())
    header, _ = read_arrays(listing_model_path(), FORMAT_KIND, FORMAT_VERSION,
                            what="listing model", rebuild="")
    assert 0 < model.threshold < 1 and header["training"]["pages"] > 1000


def test_a_listing_model_given_without_the_step_is_refused(tmp_path):
    from denoise.main_content import MainContentExtractor

    with pytest.raises(ValueError, match="listing_step=False"):
        MainContentExtractor.load(listing=tmp_path / "listing.npz", listing_step=False)
    assert MainContentExtractor.load(listing_step=False).listing_model is None
