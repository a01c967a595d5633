"""Issue 31: whole phrases and lists. The candidates' phrase structure (cohesion,
containment) and the keyword list built from a ranking (no covered fragment
below its phrase, one inflection, no bare number, phrase slots)."""

import numpy as np
import pytest

from denoise.page import Page
from kwx.candidates import Candidates, find_candidates
from kwx.document import read_document
from kwx.extractor import DEFAULT_PHRASES, KeywordExtractor, ScoredCandidates

STORY = (
    "Time Warner Cable agreed at 12:41 to buy Comcast in 2010. Time Warner Cable shares "
    "rose 15 percent on November 27. Warner Bros stayed apart. Polar bears hunt seals, "
    "and a polar bear swims far. The iPhone 4 sold well."
)


def candidates_of(text: str) -> Candidates:
    html = f"<html><head><title>Deal</title></head><body><p>{text}</p></body></html>"
    return find_candidates(read_document(Page(id="story.html", html=html)))


@pytest.fixture(scope="module")
def story() -> Candidates:
    return candidates_of(STORY)


def at(found: Candidates, phrase: str) -> int:
    """The index of the candidate written ``phrase`` (in lower case)."""
    written = [p.lower() for p in found.phrases(np.arange(len(found)))]
    return written.index(phrase.lower())


def test_cohesion_is_high_for_words_seen_only_together(story):
    # "Time" occurs twice, both times in "Time Warner"; "Warner" three times
    assert story.cohesion[at(story, "Time Warner")] == pytest.approx(2 * 2 / (2 + 3))
    assert story.cohesion[at(story, "Warner Bros")] == pytest.approx(2 * 1 / (3 + 1))
    assert story.cohesion[at(story, "Comcast")] == 1.0
    # stop words inside a phrase do not count as its words
    assert story.cohesion[at(story, "polar bear swims")] == pytest.approx(3 * 1 / (2 + 1 + 1))


def test_containment_marks_fragments_of_longer_candidates(story):
    assert story.contained[at(story, "Cable")] == 1.0  # always "Warner Cable"
    assert story.contained[at(story, "Warner")] == pytest.approx(2 / 3)  # once in "Warner Bros"
    assert story.contained[at(story, "Time Warner Cable")] == pytest.approx(0.5)  # "... shares"
    assert story.contained[at(story, "Comcast")] == 1.0  # "buy Comcast", "Comcast in 2010"
    assert story.contained[at(story, "iPhone 4 sold")] == 0.0  # "well": a stop word


def test_the_compiled_structure_pass_equals_the_numpy_steps(story):
    from kwx import _kernels
    from kwx.candidates import _phrase_structure_numpy, phrase_structure

    if _kernels is None:
        pytest.skip("the compiled extension is not built")
    pages = [story, *(candidates_of(text) for text in (
        "A b. " * 50, "New York New York New York is a song about New York.", "x",
        " ".join(f"word{i % 37} word{i % 11} the word{i % 5}" for i in range(400))))]
    for found in pages:
        words = np.zeros(found.n_words)  # only its length is read
        both = [step(words, found.occurrences, found.occurrence_of, found.tf, found.first,
                     found.lengths) for step in (phrase_structure, _phrase_structure_numpy)]
        for compiled, reference in zip(*both, strict=True):
            np.testing.assert_allclose(compiled, reference)


def test_the_features_of_an_empty_page_are_empty():
    found = candidates_of("")
    assert len(found) == 0 and found.cohesion.shape == found.contained.shape == (0,)


def listing(found: Candidates, order: list[str], phrases: float = 0.0, n: int = 10) -> list[str]:
    """The list made when candidates rank in ``order`` (then by tf)."""
    scores = found.tf.astype(float) / 100
    for rank, phrase in enumerate(order):
        scores[at(found, phrase)] = 100.0 - rank
    return [k.phrase for k in ScoredCandidates(found, scores, phrases=phrases).top(n)]


def test_a_fragment_below_the_phrase_that_covers_it_is_left_out(story):
    order = ["Time Warner Cable", "Warner Cable", "Cable", "Time", "Warner", "Comcast"]
    listed = listing(story, order, n=4)
    # "Warner Cable", "Cable" and "Time" only occur inside "Time Warner Cable": gone;
    # "Warner" also occurs in "Warner Bros": kept
    assert listed[:3] == ["Time Warner Cable", "Warner", "Comcast"]
    # ranked above its phrase, a fragment stays (the ranker put it there)
    assert listing(story, ["Cable", "Time Warner Cable"], n=2) == ["Cable", "Time Warner Cable"]
    # without the list, the ranking as it is
    scores = np.zeros(len(story))
    scores[[at(story, p) for p in order]] = np.arange(len(order), 0, -1)
    assert [k.phrase for k in ScoredCandidates(story, scores, distinct=False).top(3)] == \
        order[:3]


def test_one_inflection_of_a_phrase_and_no_bare_numbers(story):
    listed = listing(story, ["polar bear", "Polar bears", "12:41", "2010", "November 27",
                             "iPhone 4", "seals"], n=3)
    assert listed == ["polar bear", "iPhone 4", "seals"]
    updated = candidates_of("Updated 16:11 ET. Shares of Ford rose at 4 pm in Detroit, "
                            "and fell at 5pm.")
    assert listing(updated, ["16:11 ET", "4 pm", "5pm", "Ford"], n=1) == ["Ford"]


def test_phrase_slots_take_the_best_phrases_left(story):
    words = ["Comcast", "seals", "percent", "shares", "Warner", "Cable", "Polar", "bears",
             "iPhone", "Bros"]
    listed = listing(story, [*words, "Time Warner Cable", "polar bear"], phrases=0.3)
    assert len(listed) == 10
    assert [i for i, p in enumerate(listed) if " " in p] == [3, 6, 9]  # slots 4, 7, 10
    assert listed[3] == "Time Warner Cable" and listed[6] == "polar bear"
    # "Cable" ranks above "Time Warner Cable", which slot 4 lifts over it: a fragment
    # below its phrase in the list, so left out; "Warner" also occurs in "Warner Bros"
    assert "Cable" not in listed and "Warner" in listed
    assert listing(story, words, phrases=0.0) == words
    # the slots cannot take more phrases than the page has
    assert len(listing(candidates_of("Rain. Snow. Hail."), [], phrases=0.5, n=3)) == 3


def test_the_extractor_lists_phrases_by_default(tmp_path):
    extractor = KeywordExtractor.load(denoise=False)
    html = f"<html><head><title>Time Warner Cable</title></head><body><p>{STORY}</p></body></html>"
    listed = [k.phrase for k in extractor.extract(Page(id="p.html", html=html), top=10)]
    assert len(listed) == 10 and len(set(p.lower() for p in listed)) == 10
    assert sum(" " in p for p in listed) >= int(DEFAULT_PHRASES * 10)
    assert not any(p.replace(":", "").isdigit() for p in listed)
