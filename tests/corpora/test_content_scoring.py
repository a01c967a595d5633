"""Scores of main-content extraction (benchmarks/content_scoring.py) and the content loader."""

import codecs

import pytest
from repo import load_benchmark

from corpora.content import (
    SETS,
    GoldPage,
    cleaneval_gold,
    decode_text,
    dragnet_gold,
    html_text,
    iter_content_pages,
    unwrap_cleaneval,
)
from corpora.locate import CorpusMissingError, corpus_path

scoring = load_benchmark("content_scoring", "content_scoring")


# --- snippets: trafilatura's counting -------------------------------------------------


def test_snippets_found_and_missing():
    text = "The cat sat on the mat.\nIt was warm."
    counts = scoring.count_snippets(
        text, keep=["cat sat", "It was warm", "a dog barked"], drop=["the mat", "Subscribe now"]
    )
    assert counts == scoring.SnippetCounts(tp=2, fp=1, fn=1, tn=1)
    assert counts.precision == pytest.approx(2 / 3)
    assert counts.recall == pytest.approx(2 / 3)
    assert counts.f1 == pytest.approx(4 / 6)
    assert counts.accuracy == pytest.approx(3 / 5)


def test_snippets_whitespace_normalised_but_case_sensitive():
    text = "first  line\n\n   second\tline "
    counts = scoring.count_snippets(text, keep=["line second line", "First line"], drop=[])
    assert (counts.tp, counts.fn) == (1, 1)


def test_snippets_failed_extraction_is_a_full_miss():
    counts = scoring.count_snippets(None, keep=["a", "b"], drop=["c"])
    assert counts == scoring.SnippetCounts(tp=0, fp=0, fn=2, tn=1)
    assert scoring.count_snippets("", keep=["a", "b"], drop=["c"]) == counts
    assert counts.precision == 0.0
    assert counts.f1 == 0.0


def test_snippet_counts_pool_and_empty_denominators():
    total = scoring.SnippetCounts(tp=1, fn=1) + scoring.SnippetCounts(fp=1, tn=2)
    assert total == scoring.SnippetCounts(tp=1, fp=1, fn=1, tn=2)
    empty = scoring.SnippetCounts()
    assert (empty.precision, empty.recall, empty.f1, empty.accuracy) == (0.0, 0.0, 0.0, 0.0)


# --- word 4-gram shingles -------------------------------------------------------------


def test_shingles_lowercase_words_multiset():
    got = scoring.shingles("One, two THREE four -- one two three four")
    assert got[("one", "two", "three", "four")] == 2
    assert sum(got.values()) == 5
    assert scoring.shingles("Just three words") == {("just", "three", "words"): 1}
    assert scoring.shingles("  ... ") == {}


def test_score_identical_and_empty():
    gold = "alpha beta gamma delta epsilon zeta"
    same = scoring.score_shingles(gold.upper(), gold)
    assert (same.precision, same.recall, same.f1) == (1.0, 1.0, 1.0)
    for extracted in ("", None, "!!!"):
        score = scoring.score_shingles(extracted, gold)
        assert (score.precision, score.recall, score.f1) == (0.0, 0.0, 0.0)
        assert score.gold == 3


def test_score_partial_and_duplicated_output():
    gold = "a b c d e f"  # shingles abcd bcde cdef
    half = scoring.score_shingles("a b c d e   x y z w", gold)  # abcd bcde + 4 others
    assert (half.matched, half.extracted, half.gold) == (2, 6, 3)
    assert half.precision == pytest.approx(2 / 6)
    assert half.recall == pytest.approx(2 / 3)
    assert half.f1 == pytest.approx(2 * (1 / 3) * (2 / 3) / (1 / 3 + 2 / 3))
    twice = scoring.score_shingles("a b c d e f a b c d e f", gold)  # multiset: 9 shingles
    assert twice.recall == 1.0
    assert twice.matched == 3
    assert twice.precision == pytest.approx(3 / 9)


def test_score_accepts_precomputed_gold():
    gold = "one two three four five"
    assert scoring.score_shingles("one two three four", scoring.shingles(gold)) == \
        scoring.score_shingles("one two three four", gold)


def test_mean_and_pooled_differ_by_weight():
    small = scoring.ShingleScore(matched=1, extracted=1, gold=1)  # perfect
    large = scoring.ShingleScore(matched=0, extracted=9, gold=9)  # all wrong
    mean = scoring.mean_scores([small, large])
    assert (mean.precision, mean.recall, mean.f1, mean.pages) == (0.5, 0.5, 0.5, 2)
    total = scoring.pooled([small, large])
    assert total == scoring.ShingleScore(matched=1, extracted=10, gold=10)
    assert total.f1 == pytest.approx(0.1)
    assert scoring.mean_scores([]).pages == 0


# --- gold formats ---------------------------------------------------------------------


def test_cleaneval_gold_drops_url_line_and_markers():
    raw = "\ufeffURL: http://example.org/a\n\n<h> Title here\n<p>First para.\n<l> * item\n"
    assert cleaneval_gold(raw).split() == ["Title", "here", "First", "para.", "*", "item"]
    assert cleaneval_gold("<P>No header line") == "No header line"


@pytest.mark.parametrize("delimiter", ["!@#$%^&*()  COMMENTS", "!@ $%^&*() COMMENTS",
                                       "@#$%^&*() COMMENTS\t"])
def test_dragnet_gold_keeps_content_before_comments(delimiter):
    raw = f"Headline\n\nBody text.\n{delimiter}\nA reader wrote this.\n"
    assert dragnet_gold(raw) == "Headline\n\nBody text."
    assert dragnet_gold("Only content.\n") == "Only content."


def test_decode_text_boms_fallback_and_mojibake():
    assert decode_text(codecs.BOM_UTF16_LE + "Hi there".encode("utf-16-le")) == "Hi there"
    assert decode_text(codecs.BOM_UTF8 + b"caf\xc3\xa9\r\nx") == "caf\u00e9\nx"
    assert decode_text(b"caf\xe9 \x93quoted\x94") == "caf\u00e9 \u201cquoted\u201d"
    broken = "it\u2019s".encode().decode("cp1252").encode()  # UTF-8 read as cp1252, saved
    assert decode_text(broken + b"\nplain") == "it\u2019s\nplain"


def test_unwrap_cleaneval():
    html = '<text id="http://example.org/?a=1&amp;b=2" title="T" encoding="utf8">\n' \
           "<html><body><p>x</p></body></html>\n</text>\n"
    inner, url = unwrap_cleaneval(html)
    assert url == "http://example.org/?a=1&b=2"
    assert inner.strip() == "<html><body><p>x</p></body></html>"
    assert unwrap_cleaneval("<html></html>") == ("<html></html>", None)


def test_html_text_blocks_split_inline_joins():
    html = ("<html><head><title>Tab</title><style>p{}</style></head><body><p>one</p><p>two"
            "</p><div>wo<b>rd</b> <i>three</i><br>four</div><script>no()</script></body></html>")
    assert html_text(html).split("\n") == ["Tab", "one", "two", "word three", "four"]
    assert html_text(html, skip_head=True).split("\n") == ["one", "two", "word three", "four"]


def test_gold_page_needs_exactly_one_kind_of_gold():
    page = GoldPage(set_name="s", page_id="p", url=None, html="<p>x</p>", gold_text="x")
    assert not page.has_snippets
    assert GoldPage(set_name="s", page_id="p", url=None, html="", keep=("x",)).has_snippets
    with pytest.raises(ValueError, match="gold"):
        GoldPage(set_name="s", page_id="p", url=None, html="")
    with pytest.raises(ValueError, match="gold"):
        GoldPage(set_name="s", page_id="p", url=None, html="", gold_text="x", drop=("y",))


def test_unknown_set_is_refused():
    with pytest.raises(ValueError, match="unknown content set"):
        next(iter_content_pages(["no-such-set"]))


# --- the real corpus (skipped when absent) --------------------------------------------


@pytest.mark.corpus
def test_every_set_yields_pages_with_gold():
    try:
        corpus_path("content-dev.tar.xz")
    except CorpusMissingError as missing:
        pytest.skip(str(missing))
    skipped = []
    seen = {name: 0 for name in SETS}
    for page in iter_content_pages(limit=3, skipped=skipped):
        seen[page.set_name] += 1
        assert page.html.strip()
        if page.has_snippets:
            assert page.keep
            assert all(snippet.strip() for snippet in page.keep + page.drop)
        else:
            assert scoring.words(page.gold_text)
            assert not page.gold_text.startswith("URL:")
            assert "COMMENTS" not in page.gold_text
    assert seen == dict.fromkeys(SETS, 3)


# --- how sure a difference is: the paired bootstrap ----------------------------------


def test_one_draw_of_every_page_gives_the_set_f1():
    import numpy as np

    snippets = [scoring.SnippetCounts(3, 0, 0), scoring.SnippetCounts(1, 2, 1),
                scoring.SnippetCounts(0, 1, 3)]
    pooled_f1 = sum(snippets, scoring.SnippetCounts()).f1
    assert scoring.resampled_f1(snippets, np.ones((1, 3)))[0] == pooled_f1
    shingles = [scoring.ShingleScore(5, 10, 5), scoring.ShingleScore(2, 2, 8)]
    assert scoring.resampled_f1(shingles, np.ones((1, 2)))[0] == scoring.mean_scores(
        shingles).f1
    # pooled: a page drawn twice counts its snippets twice
    assert scoring.resampled_f1(snippets, np.array([[2, 0, 1]]))[0] == 12 / (12 + 1 + 3)


def test_pages_are_drawn_together():
    # pages of every difficulty, the other extractor a little worse on each: paired, the
    # gap is sure; drawn apart, the pages' spread would hide it
    ours = [scoring.ShingleScore(m, 100, 100) for m in range(10, 100, 3)]
    theirs = [scoring.ShingleScore(m - 2, 100, 100) for m in range(10, 100, 3)]
    assert scoring.paired_difference(ours, theirs) == pytest.approx((2.0, 2.0, 2.0))


def test_pages_that_disagree_leave_the_difference_unsure():
    ours = [scoring.SnippetCounts(3, 0, 0), scoring.SnippetCounts(1, 1, 2)] * 15
    theirs = [scoring.SnippetCounts(1, 1, 2), scoring.SnippetCounts(3, 0, 0)] * 15
    gap, low, high = scoring.paired_difference(ours, theirs)
    assert gap == 0 and low < 0 < high


def test_a_difference_needs_the_same_pages():
    with pytest.raises(ValueError, match="same pages"):
        scoring.paired_difference([scoring.ShingleScore(1, 1, 1)], [])
