"""kwx.suffix_search: spaCy's suffix expression searched from a token's end gives the
same suffixes, so the same tokens."""

import re

import pytest
import spacy
from test_affixes import generated_chunks, numeric_chunks, unit_chunks

from kwx import text as module
from kwx.suffix_search import TailSuffixSearch, expression_of

#: Tokens whose suffixes sit where the shortcut could go wrong: dot runs longer than the
#: five characters searched (the one suffix of no bounded width), units whose
#: look-behind reads a digit before those five, long code-like tokens, line breaks.
EDGES = ["a......", "......", "x.", "...", "12345km", "1km", "9km/h", "(10mph)", "abc)'s",
         "sqlalchemy.sql.expression.False_", "__STDCPP_MATH_SPEC_FUNCS__", "ab..\n",
         "ab\n..", "\n", "", "'s", "US$", "5US$", "\u2026\u2026", "a\u2019S", "10\u00b0C.",
         "\u201cvout[1-3,5-7]\u201d", "$100,000-i-zim", "6.2.9.4.", "a:)", "km"]


def _span(match: re.Match | None) -> tuple[int, int] | None:
    return None if match is None else (match.start(), match.end())


@pytest.fixture(scope="module")
def search() -> TailSuffixSearch:
    installed = module.tokenizer().suffix_search
    assert isinstance(installed, TailSuffixSearch)  # the English suffixes were taken
    return installed


def _tokens_and_tails(chunks: list[str]) -> list[str]:
    """Each chunk and every tail of it (spaCy searches what is left as it cuts)."""
    return [chunk[i:] for chunk in chunks for i in range(len(chunk))]


def test_the_search_finds_the_expressions_suffix_on_generated_tokens(search):
    chunks = [*EDGES, *generated_chunks(7, 3000), *unit_chunks(7, 3000),
              *numeric_chunks(7, 3000)]
    tokens = [*_tokens_and_tails(chunks), ""]
    assert [_span(search(t)) for t in tokens] == \
        [_span(search.expression.search(t)) for t in tokens]
    assert sum(search(t) is not None for t in tokens) > 10000  # suffixes were found


def test_the_search_finds_the_expressions_suffix_on_real_pages(search, dev_site_pages):
    from kwx.document import read_document

    chunks = list(dict.fromkeys(chunk for page in dev_site_pages[:60] for line in
                                read_document(page).text.split("\n")
                                for chunk in line.split(" ") if chunk))
    tokens = _tokens_and_tails([c for c in chunks if len(c) > 1])
    assert [_span(search(t)) for t in tokens] == \
        [_span(search.expression.search(t)) for t in tokens]


def test_spacys_tokens_are_the_same_with_the_search(dev_site_pages):
    from kwx.document import read_document

    own = spacy.blank("en").tokenizer
    assert not isinstance(own.suffix_search, TailSuffixSearch)
    texts = [read_document(page).text for page in dev_site_pages[:40]]
    texts.append("\n".join([*EDGES, *unit_chunks(3, 2000), *generated_chunks(3, 2000)]))
    for text in texts:
        assert [(t.idx, len(t)) for t in module.tokenizer()(text)] == \
            [(t.idx, len(t)) for t in own(text)]


def test_the_search_stands_in_only_for_the_expression_of_the_suffixes_given():
    english = spacy.blank("en")
    suffixes = list(english.Defaults.suffixes)
    assert TailSuffixSearch.of(english.tokenizer, suffixes) is not None
    assert TailSuffixSearch.of(english.tokenizer, suffixes[1:]) is None
    assert TailSuffixSearch.of(english.tokenizer, []) is None
    assert TailSuffixSearch.of(object(), suffixes) is None


def test_a_suffix_with_an_alternation_of_its_own_is_refused():
    """"a|b" then "$" anchors only b: a match of "a" may end anywhere."""
    class Tokenizer:
        suffix_search = re.compile("a|b$|c$").search

    assert TailSuffixSearch.of(Tokenizer(), ["a|b", "c"]) is None
    Tokenizer.suffix_search = re.compile("(?:a|b)$|c+$").search
    made = TailSuffixSearch.of(Tokenizer(), ["(?:a|b)", "c+"])
    assert made is not None
    for token in ("xa", "xb", "xccc", "ccca", "x", "cxc"):
        assert _span(made(token)) == _span(made.expression.search(token))


def test_expression_of_reads_either_kind_of_search(search):
    pattern = re.compile(r"x$")
    assert expression_of(pattern.search) is pattern
    assert expression_of(search) is search.expression
    assert expression_of(len) is None
