"""The listing trainer's held-out choices, on synthetic readings (no corpus needed)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from corpora.train_listing import (
    Reading,
    best_threshold,
    held_out_probabilities,
    median_threshold,
    set_gains,
    word_f1,
    words,
)
from denoise.listing import LISTING_FEATURES


def readings(seed: int = 0) -> list[Reading]:
    """Two parts; the items reading wins where the first reading keeps little."""
    rng = np.random.default_rng(seed)
    column = LISTING_FEATURES.index("first_share")
    out = []
    for i in range(300):
        row = rng.normal(size=(1, len(LISTING_FEATURES)))
        wins = row[0, column] < -0.5
        out.append(Reading("wcxb:0" if i % 2 else "dragnet", "listing" if i % 2 else "dragnet",
                           str(i), row, 0.5, 0.9 if wins else 0.2))
    return out


def test_words_are_those_of_wcxbs_measure():
    assert words("Re-read: the ITEMS, items!") == Counter({"items": 2, "re": 1, "read": 1,
                                                          "the": 1})
    assert word_f1("a b", words("a b")) == 1.0 and word_f1("c", words("a b")) == 0.0


def test_each_rows_probability_comes_from_a_model_without_its_part():
    rows = readings()
    probabilities = held_out_probabilities(rows)
    flipped = [Reading(r.part, r.group, r.page_id, r.row, r.first,
                       1.0 - r.items if r.part == "dragnet" else r.items) for r in rows]
    # changing one part's labels moves only the other part's probabilities
    moved = held_out_probabilities(flipped) != probabilities
    assert not moved[[r.part == "dragnet" for r in rows]].any()
    assert moved[[r.part == "wcxb:0" for r in rows]].any()


def test_the_threshold_and_the_gains_count_every_page_of_a_set():
    rows = readings()
    probabilities = held_out_probabilities(rows)
    pages = Counter({("dragnet", "dragnet"): 300, ("wcxb:0", "listing"): 150})
    gains = set_gains(rows, probabilities, 0.5, pages)
    assert set(gains) == {"dragnet", "wcxb"} and gains["wcxb"] > 0
    assert best_threshold(rows, probabilities, pages) in (0.5, 0.6, 0.7, 0.8)


def test_the_shipped_threshold_is_the_parts_lower_median():
    assert median_threshold([0.5, 0.6, 0.7]) == 0.6
    assert median_threshold([0.7, 0.5, 0.6, 0.5]) == 0.5
    assert median_threshold([0.5, 0.5, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.7, 0.7]) == 0.6
