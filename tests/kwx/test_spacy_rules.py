"""kwx.spacy_rules: every shortcut kwx takes past spaCy's tokenizer gives spaCy's tokens
and rows exactly, and is taken only on the rules it was checked on.

The first test fails on any spaCy release that changes a rule the imitation depends on
(its expressions, special cases, or lexeme attribute functions): see kwx.spacy_rules,
"When spaCy changes a rule".
"""

import random
import re

import numpy as np
import pytest
import spacy
from test_kwx import TRICKY_LINES

from kwx import spacy_rules
from kwx import text as module
from kwx.spacy_rules import TailSuffixSearch, expression_of

try:
    import re._constants as sre_constants
    import re._parser as sre_parse
except ImportError:  # Python < 3.11
    import sre_constants
    import sre_parse

PUNCTUATION = [*".,;:!?()[]{}<>\"'-/&_#*%=+@~^|`\\", "...", "--", "\u201c", "\u201d",
               "\u2018", "\u2019", "\u00ab", "\u00bb", "\u2014", "\u2013", "\u2026", "\u00e9",
               ":)", ";-)", "e.g.", "'s", "n't", "'ll", "U.S.", "No.", "10", "3", "$", "US$",
               "\u00b0F", "km"]


def _word(rng: random.Random) -> str:
    letters = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(
        rng.choice([1, 1, 2, 3, 4, 6, 9, 14])))
    return rng.choice([letters, letters.title(), letters.upper(), letters[:-1] +
                       letters[-1].upper()])


def generated_chunks(seed: int, count: int) -> list[str]:
    """Words and punctuation glued together the ways web text glues them."""
    rng = random.Random(seed)
    chunks = []
    while len(chunks) < count:
        pieces = [rng.choice(PUNCTUATION) if rng.random() < 0.45 else _word(rng)
                  for _ in range(rng.choice([1, 2, 2, 3, 3, 4, 5]))]
        chunk = "".join(pieces)
        if chunk and not any(c.isspace() for c in chunk):
            chunks.append(chunk)
    return chunks


def spacy_cuts(chunks: list[str]) -> list[tuple[tuple[int, int], ...]]:
    rows, counts = module._spacy_chunk_rows(chunks)
    starts = rows[:, module._IDX].tolist()
    ends = (rows[:, module._IDX] + rows[:, module._LENGTH]).tolist()
    out, first = [], 0
    for count in counts:
        out.append(tuple(zip(starts[first:first + count], ends[first:first + count],
                             strict=True)))
        first += count
    return out


@pytest.fixture
def afresh():
    """kwx.text's tokenizer, shortcuts and chunk cache made anew for the test, and again
    after it (after any change it made to kwx.spacy_rules is undone)."""
    module.reset()
    yield
    module.reset()


# --- the guard: the rules the imitation was checked on ------------------------------------

def test_the_installed_spacy_has_the_rules_the_imitation_was_checked_on(afresh):
    """Fails on any spaCy whose English expressions, special cases or lexeme attribute
    functions are not spaCy 3.8's, which every shortcut was checked on. kwx stays right
    there (every shortcut is off: slower); read kwx.spacy_rules, "When spaCy changes a
    rule", before writing the new digests down."""
    stock = spacy.blank("en").tokenizer
    assert spacy_rules.rules_digest(stock) == spacy_rules.CHECKED_RULES
    assert spacy_rules.specials_digest(stock) == spacy_rules.CHECKED_SPECIALS
    assert spacy_rules.lexeme_digest(stock) == spacy_rules.CHECKED_LEXEMES
    # kwx's own tokenizer, set up for speed, has the same rules: every shortcut is on
    own = module.tokenizer()
    assert isinstance(own.suffix_search, TailSuffixSearch)
    assert len(own.vocab.lex_attr_getters) == len(spacy_rules.LEXEME_ATTRS)
    for digest, checked in ((spacy_rules.rules_digest, spacy_rules.CHECKED_RULES),
                            (spacy_rules.specials_digest, spacy_rules.CHECKED_SPECIALS),
                            (spacy_rules.lexeme_digest, spacy_rules.CHECKED_LEXEMES)):
        assert digest(own) == checked
    imitation = module._imitation()
    assert imitation.active and imitation.by_shape.enabled
    assert imitation.compiled == (spacy_rules._kernels is not None)


def _changed(change: str):
    """An English pipeline whose tokenizer has one rule ``change``d."""
    from spacy.attrs import ORTH

    nlp = spacy.blank("en")
    tokenizer = nlp.tokenizer
    pattern = {name: expression_of(getattr(tokenizer, name)) for name in
               ("prefix_search", "suffix_search", "infix_finditer", "url_match")}
    if change == "prefix":
        tokenizer.prefix_search = re.compile(pattern["prefix_search"].pattern + "|^§").search
    elif change == "suffix":
        tokenizer.suffix_search = re.compile(pattern["suffix_search"].pattern + "|§$").search
    elif change == "infix":
        tokenizer.infix_finditer = re.compile(pattern["infix_finditer"].pattern + "|§").finditer
    elif change == "url":
        tokenizer.url_match = re.compile(pattern["url_match"].pattern + "|x§").match
    elif change == "token match":
        tokenizer.token_match = re.compile("x§").match
    elif change == "a new special case":
        tokenizer.add_special_case("kwx's", [{ORTH: "kwx"}, {ORTH: "'s"}])
    elif change == "a special case's tokens":
        tokenizer.add_special_case("e.g.", [{ORTH: "e."}, {ORTH: "g."}])
    elif change == "heuristics":
        tokenizer.faster_heuristics = not tokenizer.faster_heuristics
    return nlp


@pytest.mark.slow
@pytest.mark.parametrize("change", [
    "prefix", "suffix", "infix", "url", "token match", "a new special case",
    "a special case's tokens", "heuristics"])
def test_any_changed_rule_turns_every_shortcut_off(change):
    nlp = _changed(change)
    tokenizer = nlp.tokenizer
    assert (spacy_rules.rules_digest(tokenizer), spacy_rules.specials_digest(tokenizer)) != \
        (spacy_rules.CHECKED_RULES, spacy_rules.CHECKED_SPECIALS)
    assert not spacy_rules.active(tokenizer)
    getters = len(tokenizer.vocab.lex_attr_getters)
    assert not spacy_rules.tune(nlp)  # the tokenizer is left as spaCy made it
    assert not isinstance(tokenizer.suffix_search, TailSuffixSearch)
    assert len(tokenizer.vocab.lex_attr_getters) == getters > len(spacy_rules.LEXEME_ATTRS)
    imitation = spacy_rules.Imitation(tokenizer, module._our_flags)
    assert not imitation.active and not imitation.compiled and not imitation.by_shape.enabled
    chunks = ["word", "1990", "word,", "(Yes),", "other,"]
    assert imitation.plain(chunks) == ([], chunks)
    imitation.learn_shapes(chunks, *module._spacy_chunk_rows(chunks))
    assert not imitation.by_shape.shapes
    assert imitation.cut_by_shape(chunks) == ([], [], chunks)
    assert imitation.one_per_new_shape(chunks) == (chunks, [])


def test_the_unchanged_rules_leave_the_shortcuts_on():
    nlp = _changed("nothing")
    assert spacy_rules.active(nlp.tokenizer)
    assert spacy_rules.tune(nlp)
    assert isinstance(nlp.tokenizer.suffix_search, TailSuffixSearch)
    assert spacy_rules.Imitation(nlp.tokenizer, module._our_flags).active


@pytest.mark.parametrize("attr", ["LOWER", "IS_PUNCT", "IS_STOP", "IS_TITLE"])
def test_a_changed_lexeme_function_turns_every_shortcut_off(attr):
    """And the probe refuses the compiled rows, whatever the switch says."""
    from spacy import attrs

    nlp = spacy.blank("en")
    getters = nlp.vocab.lex_attr_getters
    changed = (lambda string: string.upper()) if attr == "LOWER" else (lambda string: False)
    nlp.vocab.lex_attr_getters = {**getters, getattr(attrs, attr): changed}
    assert spacy_rules.lexeme_digest(nlp.tokenizer) != spacy_rules.CHECKED_LEXEMES
    assert not spacy_rules.active(nlp.tokenizer)
    assert not spacy_rules.tune(nlp)
    imitation = spacy_rules.Imitation(nlp.tokenizer, module._our_flags)
    assert not imitation.active and not imitation.compiled
    assert not imitation.rows_agree or spacy_rules._kernels is None


_LOWER, _UPPER = set(range(97, 123)), set(range(65, 91))
#: What a branch must also hold where it reads letters as written: a digit class, "$",
#: "°", or an apostrophe (see kwx.spacy_rules).
_GUARDS = {ord("$"), ord("\u00b0"), ord("'"), ord("\u2019")}


def _walk(items, visit) -> bool:
    """Whether ``visit`` is true of any (op, argument) in a parsed pattern."""
    for op, av in items:
        if visit(op, av):
            return True
        if op is sre_constants.BRANCH and any(_walk(b, visit) for b in av[1]):
            return True
        if op is sre_constants.SUBPATTERN and _walk(av[-1], visit):
            return True
        if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) and _walk(av[2], visit):
            return True
        if op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT) and _walk(av[1], visit):
            return True
    return False


def _members(av) -> set[int]:
    members = set()
    for kind, value in av:
        if kind is sre_constants.LITERAL:
            members.add(value)
        elif kind is sre_constants.RANGE:
            members |= set(range(value[0], value[1] + 1))
    return members


def _reads_letters(op, av) -> bool:
    """A letter as written, or a class with some letters of a case but not all."""
    if op is sre_constants.LITERAL:
        return av in _LOWER | _UPPER
    if op is sre_constants.IN:
        members = _members(av)
        return any(members & cls and not cls <= members for cls in (_LOWER, _UPPER))
    return False


def _guarded(op, av) -> bool:
    if op is sre_constants.LITERAL:
        return av in _GUARDS
    return op is sre_constants.IN and (set(range(48, 58)) <= _members(av) or
                                       bool(_members(av) & _GUARDS))


@pytest.mark.slow
def test_the_expressions_read_ascii_letters_only_by_case_away_from_digits_dollars_and_degrees():
    tokenizer = module.tokenizer()
    checked = 0
    for search in (tokenizer.prefix_search, tokenizer.suffix_search,
                   tokenizer.infix_finditer, tokenizer.url_match):
        pattern = expression_of(search)
        assert not pattern.flags & re.IGNORECASE
        parsed = list(sre_parse.parse(pattern.pattern, pattern.flags))
        branches = parsed[0][1][1] if len(parsed) == 1 and \
            parsed[0][0] is sre_constants.BRANCH else [parsed]
        for branch in branches:
            if _walk(branch, _reads_letters):
                checked += 1
                assert _walk(branch, _guarded), branch
    assert checked >= 5  # the units, currencies and possessives were found


_DIGITS = set(range(48, 58))


def _reads_digits(op, av) -> bool:
    """A digit as written, or a class with some ASCII digits but not all."""
    if op in (sre_constants.LITERAL, sre_constants.NOT_LITERAL):
        return av in _DIGITS
    if op is sre_constants.IN:
        members = _members(av)
        return bool(members & _DIGITS) and not members >= _DIGITS
    return False


def test_the_affix_expressions_read_ascii_digits_only_as_a_class():
    tokenizer = module.tokenizer()
    for search in (tokenizer.prefix_search, tokenizer.suffix_search,
                   tokenizer.infix_finditer):
        pattern = expression_of(search)
        assert not _walk(sre_parse.parse(pattern.pattern, pattern.flags), _reads_digits)
    url = expression_of(tokenizer.url_match)
    assert _walk(sre_parse.parse(url.pattern, url.flags), _reads_digits)  # IPs, ports


def _unit_alternatives(branch) -> list[str] | None:
    """The alternatives of a units branch (:func:`_unit_branch`) as text, else None."""
    if len(branch) != 3 or branch[1][0] is not sre_constants.BRANCH:
        return None
    alternatives = branch[1][1][1]
    if any(op is not sre_constants.LITERAL for each in alternatives for op, _ in each):
        return None
    return ["".join(chr(value) for _, value in each) for each in alternatives]


def _unit_branch(branch) -> bool:
    """A suffix that is one of a list of strings right after a digit, to the end: the
    alternatives of the ASCII characters shapes keep are runs of letters, two runs
    with a slash between them, or "%" (the others hold a character from U+00A1 on)."""
    if len(branch) != 3 or branch[0][0] is not sre_constants.ASSERT or \
            branch[1][0] is not sre_constants.BRANCH or branch[2][0] is not sre_constants.AT:
        return False
    direction, behind = branch[0][1]
    if direction != -1 or len(behind) != 1 or behind[0][0] is not sre_constants.IN or \
            _members(behind[0][1]) != _DIGITS_SET:
        return False
    for alternative in branch[1][1][1]:
        if any(op is not sre_constants.LITERAL for op, _ in alternative):
            return False
        text = "".join(chr(value) for _, value in alternative)
        if max(text) < "\u00a1" and not re.fullmatch(r"[A-Za-z]+(?:/[A-Za-z]+)?|%", text):
            return False
    return True


_DIGITS_SET = set(range(48, 58))


def test_next_to_digits_the_expressions_read_letters_as_written_only_in_units():
    """Chunks with letters and digits are shaped with their letters x / X but for the
    runs after a digit or a slash: so every branch that reads letters as written must
    also need "$", "°" or a character from U+00A1 on (chunks with letters and those are
    not shaped), an apostrophe (a possessive: its "s" is kept), or be the units."""
    tokenizer = module.tokenizer()
    units = 0
    found_runs: tuple[set[str], set[str]] = (set(), set())
    for search in (tokenizer.prefix_search, tokenizer.suffix_search,
                   tokenizer.infix_finditer, tokenizer.url_match):
        pattern = expression_of(search)
        parsed = list(sre_parse.parse(pattern.pattern, pattern.flags))
        branches = parsed[0][1][1] if len(parsed) == 1 and \
            parsed[0][0] is sre_constants.BRANCH else [parsed]
        for branch in branches:
            if not _walk(branch, _reads_letters):
                continue
            if search == tokenizer.suffix_search and _unit_branch(branch):
                units += 1
                for unit in _unit_alternatives(branch) or ():
                    if re.fullmatch("[A-Za-z/]+", unit):
                        first, _, second = unit.partition("/")
                        found_runs[0].add(first)
                        if second:
                            found_runs[1].add(second)
                continue
            alternatives = branch[1][1][1] if len(branch) == 3 and \
                branch[1][0] is sre_constants.BRANCH else [branch]
            for alternative in alternatives:  # each needs one of the excluded characters
                assert not _walk(alternative, _reads_letters) or _walk(
                    alternative, lambda op, av: op is sre_constants.LITERAL and (
                        av in _GUARDS or av >= 0xA1)), alternative
    assert units == 1
    # the runs shapes keep as written are exactly the units' (and only a unit with a
    # slash has a run after one)
    assert found_runs == (spacy_rules.UNIT_RUNS_AFTER_DIGIT, spacy_rules.UNIT_RUNS_AFTER_SLASH)


def test_numbers_are_shaped_unless_an_ip_address_may_be_in_them():
    """The URL pattern reads digits one by one only in IP addresses (three dots): there
    the shape could not tell "1.2.3.4/5-6" (a URL, one token) from "0.2.3.4/5-6"."""
    same_shape = ["1.2.3.4/5-6", "0.2.3.4/5-6"]
    assert spacy_cuts(same_shape) == [((0, 11),), ((0, 9), (9, 10), (10, 11))]
    assert [spacy_rules.shape(chunk) for chunk in same_shape] == [None, None]
    for chunk, written in [("1.2.3", "0.0.0"), ("(2019),", "(0000),"), ("$5.99", "$0.00"),
                           ("1:2@3.4", "0:0@0.0")]:
        assert spacy_rules.shape(chunk) == (written, written)
    for chunk in ("US$", "US$5", "5US$", "\u00b0F.", "(\u0663.5)", "5\u20ac", "a1.2.3.4",
                  "h\u00e91"):
        assert spacy_rules.shape(chunk) is None  # "$" with letters, U+00A1 on, an IP address


@pytest.mark.parametrize(("chunk", "shaped"), [
    ("Ab1.io:80,", ("Xx0.xx:00,", "Xx0.xx:00,")),
    ("27-inch", ("00-xx", "00-xxxx")),
    ("10km", ("00km", "00km")),  # a unit after a digit: as written
    ("5m/s.", ("0m/s.", "0m/s.")),  # and after a slash
    ("10kmh", ("00kmh", "00kmh")),  # a unit's run kept as it is is not cut
    ("10kx", ("00xx", "00xx")),  # no unit: x / X, as anywhere else
    ("7th,", ("0xx,", "0xx,")),
    ("5m/z.", ("0m/x.", "0m/x.")),
    ("abcd1xxxx", ("xx0xx", "xxxx0xxxx")),
    ("10Km", ("00Xx", "00Xx")),  # the units' runs are read as written: "Km" is none
    ("Thomas's2", ("Xxx's0", "Xxxxxx's0")),
])
def test_letters_with_digits_keep_the_runs_a_unit_may_be(chunk, shaped):
    assert spacy_rules.shape(chunk) == shaped
    assert spacy_rules.shape_python(chunk) == shaped


def test_every_unit_run_is_kept_after_a_digit_and_no_other():
    """The compiled shapes keep the same runs as written as the Python steps."""
    for run in sorted(spacy_rules.UNIT_RUNS_AFTER_DIGIT):
        for chunk in (f"4{run}", f"(4{run}),", f"4{run}x", f"4{run}/s", f"4{run}/q"):
            assert spacy_rules.shape(chunk) == spacy_rules.shape_python(chunk), chunk
        assert spacy_rules.shape(f"4{run}")[0] == f"0{run}"
        assert spacy_rules.shape(f"4{run}q")[0] != f"0{run}q"
    for run in sorted(spacy_rules.UNIT_RUNS_AFTER_SLASH):
        assert spacy_rules.shape(f"5m/{run}")[0] == f"0m/{run}"


UNITS = ["km", "kg", "m", "m/s", "km/h", "kmh", "hPa", "Pa", "MB", "mb", "K", "T", "G",
         "M", "%", "in", "ft", "mph", "lb", "oz", "g", "t", "mm", "cm", "GB", "kb", "KB"]


def unit_chunks(seed: int, count: int) -> list[str]:
    """Letters, digits and punctuation glued together: units, versions, code."""
    return glued_to_numbers(seed, count, [
        *PUNCTUATION, *UNITS, "x", "X", "xx", "a", "B", "Cd", "'s", "am", "a.m.", "th",
        "http://", "www.", "io", "_", "=="], share=0.6, digits=3)


@pytest.mark.slow
def test_cuts_of_shaped_letters_with_digits_are_spacys_cuts():
    later, found = _cuts_checked_against_spacy(unit_chunks, 10000)
    mixed = [cuts for chunk, cuts in zip(later, found, strict=True)
             if re.search("[0-9]", chunk) and re.search("[A-Za-z]", chunk)]
    assert sum(cuts is not None for cuts in mixed) > 800
    assert sum(cuts is not None and len(cuts) > 2 for cuts in mixed) > 20
    units = _learnt(["10km,", "(5m/s).", "x86_64,", "Ab12cd)"])
    for chunk in ("25km,", "(7m/s).", "y42_77,", "Xy99cd)", "25kq,", "(7m/z).", "Xy99ce)"):
        assert units.cuts(chunk) in (None, spacy_cuts([chunk])[0]), chunk
    assert [units.cuts(c) is not None for c in ("25km,", "(7m/s).", "25kq,", "(7m/z).")] \
        == [True, True, False, False]  # a unit's letters are the shape's own
    if spacy_rules._kernels is not None:
        assert [spacy_rules.shape(c) for c in later] == [spacy_rules.shape_python(c) for c in later]


NUMERIC_PIECES = [*".,;:!?()[]{}<>\"'-/&_#*%=+@~^|`\\", "...", "--", "$", "\u00a0",
                  "\u201c", "\u2019", "\u20ac", "\u00b0", ":)", ":3", "<3", "8)", "0.0",
                  "0_0", "1a.m.", "km", "kg", "x", "K", "inch", "io", "com", "www.", "http://",
                  "v", "QSDPZ", "\u00e9t\u00e9", "\u0436", "C$", "US$", "\u00b0F", "\u00bd"]


def numeric_chunks(seed: int, count: int) -> list[str]:
    """Numbers glued to punctuation, a few to letters or specials."""
    return glued_to_numbers(seed, count, NUMERIC_PIECES, share=0.5, digits=5)


def glued_to_numbers(seed: int, count: int, pieces: list[str], *, share: float,
                     digits: int) -> list[str]:
    """Chunks of 1 to 5 pieces: one of ``pieces`` (a ``share`` of them) or a number of
    up to ``digits`` digits."""
    rng = random.Random(seed)
    chunks = []
    while len(chunks) < count:
        chunk = "".join(rng.choice(pieces) if rng.random() < share else
                        str(rng.randrange(10 ** rng.randrange(1, digits + 1)))
                        for _ in range(rng.choice([1, 2, 2, 3, 3, 4, 5])))
        if not any(c.isspace() for c in chunk):
            chunks.append(chunk)
    return chunks


@pytest.mark.slow
def test_cuts_of_shaped_numbers_are_spacys_cuts():
    _, found = _cuts_checked_against_spacy(numeric_chunks, 8000)
    assert sum(cuts is not None for cuts in found) > 3000
    assert sum(cuts is not None and len(cuts) > 1 for cuts in found) > 600


def _cuts_checked_against_spacy(make, count: int):
    """The chunks ``make(2, count)`` and their cuts by the shapes learnt from
    ``make(1, count)``, each checked to be spaCy's (or None) and, compiled, the Python
    steps'."""
    shapes = _learnt(make(1, count))
    later = make(2, count)
    found = [shapes.cuts(chunk) for chunk in later]
    for chunk, cuts, exact in zip(later, found, spacy_cuts(later), strict=True):
        assert cuts is None or cuts == exact, chunk
    if spacy_rules._kernels is not None:
        assert found == [shapes.cuts_python(chunk) for chunk in later]
    return later, found


def _learnt(chunks: list[str]) -> spacy_rules.ShapeCuts:
    shapes = spacy_rules.ShapeCuts(module.tokenizer(), module._imitation().exceptions)
    for chunk, cuts in zip(chunks, spacy_cuts(chunks), strict=True):
        shapes.learn(chunk, cuts)
    return shapes


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_cuts_by_shape_are_spacys_cuts_on_generated_chunks(seed):
    shapes = _learnt(generated_chunks(seed, 6000))
    later = generated_chunks(seed + 100, 6000)
    found = [shapes.cuts(chunk) for chunk in later]
    for chunk, cuts, exact in zip(later, found, spacy_cuts(later), strict=True):
        assert cuts is None or cuts == exact, chunk
    assert sum(cuts is not None for cuts in found) > 2000  # the shapes did the work


def test_cuts_by_shape_are_spacys_cuts_on_real_pages(dev_site_pages):
    from kwx.document import read_document

    chunks = list(dict.fromkeys(chunk for page in dev_site_pages[:120] for line in
                                read_document(page).text.split("\n")
                                for chunk in line.split(" ") if chunk))
    half = len(chunks) // 2
    shapes = _learnt(chunks[:half])
    later = chunks[half:]
    found = [shapes.cuts(chunk) for chunk in later]
    for chunk, cuts, exact in zip(later, found, spacy_cuts(later), strict=True):
        assert cuts is None or cuts == exact, chunk
    assert sum(cuts is not None and len(cuts) > 1 for cuts in found) > 500


@pytest.mark.parametrize(("first", "then"), [
    ("eg.", "e.g."),  # a special case at a place the first chunk's shape looks up
    ("Xy.", "No."),
    ("ab's", "he's"),
    ("(ab", "(:"),
])
def test_a_special_case_sends_the_chunk_to_spacy(first, then):
    shapes = _learnt([first])
    assert shapes.cuts(then) is None or shapes.cuts(then) == spacy_cuts([then])[0]


def test_a_special_case_every_chunk_of_the_shape_holds_still_refuses_it():
    # "(:" is a special case in "(:a" and in "(:p"; but in "(:p" spaCy also finds ":p"
    pairs = [("(:a", "(:p"), ("(:A", "(:D"), ("(:5", "(:3"), ("5):", "8):"),
             ("(:-A", "(:-P"), ("'Jagidu", "'Other"), (":0", ":5"), ("0_0,", "1_2,")]
    for learnt, later in pairs:
        assert _learnt([learnt]).cuts(later) in (None, spacy_cuts([later])[0]), later
    assert spacy_cuts(["(:p", ":0", ":5"]) == [((0, 1), (1, 3)), ((0, 2),), ((0, 1), (1, 2))]


def test_quotes_apostrophes_and_dashes_alone_do_not_send_a_shape_to_spacy():
    """English lists the apostrophes and "—" as special cases of one token, themselves:
    they cannot change a cut, so a quoted word is cut by its shape ("'ab'," as "'cd',")."""
    shapes = _learnt(["'ab',", "\u2019Cd\u2019.", "x\u2014y", "('a',"])
    assert "'" not in shapes.specials and "e.g." in shapes.specials
    later = ["'gh',", "'tu',", "\u2019Ef\u2019.", "u\u2014v", "('b',", "'em',", "'s',"]
    found = [shapes.cuts(chunk) for chunk in later]
    assert found[:5] == spacy_cuts(later[:5]) and None not in found[:5]
    assert found[5] is None  # "'em" is a special case of two characters: spaCy's
    assert found[6] in (None, spacy_cuts(later[6:])[0])


def test_a_shape_whose_first_chunk_is_a_special_case_is_learnt_from_the_next():
    shapes = _learnt(["and/or", "input/output"])  # "and/or" is one token, a special case
    assert shapes.cuts("left/right") == spacy_cuts(["left/right"])[0] == (
        (0, 4), (4, 5), (5, 10))
    assert shapes.cuts("and/or") is None  # the special case itself still goes to spaCy


def test_a_shape_every_chunk_of_which_holds_a_special_case_is_tried_ever_more_rarely(
        monkeypatch):
    tries = []
    looked_up = spacy_rules._lookup_places
    monkeypatch.setattr(spacy_rules, "_kernels", None)  # the Python steps look places up
    monkeypatch.setattr(spacy_rules, "_lookup_places",
                        lambda chunk, cuts: tries.append(chunk) or looked_up(chunk, cuts))
    stubborn = _learnt([f"(:{c}" for c in "abcdefghijk"])  # "(:" in every one
    assert stubborn.cuts("(:z") is None
    assert spacy_rules.shape("(:z")[0] not in stubborn.shapes
    assert tries == ["(:a", "(:b", "(:d", "(:h"]  # the 1st, 2nd, 4th and 8th


def test_contractions_first_do_not_keep_a_shape_from_being_learnt():
    """"Don't", "Can't"... are special cases of "Xxx'x" (as written: runs of letters are
    cut to two); an enciphered possessive "Aizhbbi'e" of that shape is not."""
    plain = ["Aizhbbi'e", "Kxby'e", "Nvyr'e", "Gsym'w"]
    shapes = _learnt(["Don't", "Can't", "Won't", "Isn't", *plain])
    assert len({spacy_rules.shape(c)[0] for c in ["Don't", *plain]}) == 1
    for chunk in ("Tsntivh'e", "Xyz'q"):
        assert shapes.cuts(chunk) == spacy_cuts([chunk])[0]
    assert shapes.cuts("Didn't") is None  # itself a special case: spaCy's


def test_chunks_the_shapes_cannot_speak_for_go_to_spacy():
    shapes = _learnt(["word,", "Ab.", "x" * 70 + ","])
    for chunk in ("10km,", "US$.", "\u00b0F.", "y" * 70 + ","):
        assert shapes.cuts(chunk) is None
    assert shapes.cuts("other,") == ((0, 5), (5, 6))
    off = spacy_rules.ShapeCuts(module.tokenizer(), module._imitation().exceptions)
    off.enabled = False
    off.learn("word,", ((0, 4), (4, 5)))
    assert off.cuts("other,") is None


@pytest.mark.slow
@pytest.mark.skipif(spacy_rules._kernels is None, reason="the compiled extension is not built")
def test_the_compiled_cuts_are_the_python_steps():
    shapes = _learnt([*generated_chunks(3, 6000), "Ab's,", "ab\u2019S.", "(\U0001f600x)"])
    later = [
        *generated_chunks(4, 6000), "", "x" * 60 + ",", "x" * 61 + ",", "Cd's,",
        "cd\u2019S.", "cd's's", "'s", "(\U0001f600y)", "(10)", "a$.",
        "\u00b0C,", "e.g.", "Word,", "WORD,", "wORd,"]
    found = [shapes.cuts(chunk) for chunk in later]
    assert found == [shapes.cuts_python(chunk) for chunk in later]
    assert sum(cuts is not None for cuts in found) > 2000


@pytest.mark.skipif(spacy_rules._kernels is None, reason="the compiled extension is not built")
@pytest.mark.parametrize("max_tokens", [spacy_rules.MAX_TOKENS, 64])
def test_the_compiled_learning_is_the_python_steps(max_tokens, monkeypatch):
    """Learnt cuts and places, refusals (too many tokens, a cut inside a run of
    letters) and special cases met, on chunks of every kind: code glued by inline
    markup ("session.query(Node)"), numbers, and generated ones."""
    chunks = [*generated_chunks(5, 1500), *numeric_chunks(5, 500), "session.query(Node).",
              "sqlalchemy.orm.Session.__init__(bind=None,", "(:3", "and/or", "Don't", "x" * 60,
              "e.g.,", "a.b.c.d.e.f.g.h.i.j", "\u00e9t\u00e9's", "(((((a)))))", "10km/h."]
    monkeypatch.setattr(spacy_rules, "MAX_TOKENS", max_tokens)
    shapes = spacy_rules.ShapeCuts(module.tokenizer(), module._imitation().exceptions)
    kinds = set()
    for chunk, cuts in zip(chunks, spacy_cuts(chunks), strict=True):
        shaped = spacy_rules.shape(chunk)
        if shaped is None:
            continue
        learnt = spacy_rules._kernels.learnt_shape(chunk, shaped[1], cuts, shapes.specials,
                                                   max_tokens)
        assert learnt == shapes.learnt_python(chunk, shaped[1], cuts), chunk
        kinds.add(type(learnt))
    assert kinds == ({tuple, bool, type(None)} if max_tokens < 20 else {tuple, bool})


def test_the_compiled_learning_leaves_cuts_past_the_chunk_to_the_python_steps():
    """spaCy's row of a lone tab ends past it; a cut that ends before it starts is
    refused."""
    if spacy_rules._kernels is None:
        pytest.skip("the compiled extension is not built")
    shapes = spacy_rules.ShapeCuts(module.tokenizer(), module._imitation().exceptions)
    for chunk, written, cuts in (("\t", "\t", ((0, 5),)), ("ab,", "xx,", ((0, 2), (2, 9)))):
        assert spacy_rules._kernels.learnt_shape(chunk, written, cuts, shapes.specials, 8) \
            is NotImplemented  # left to the Python steps
        assert shapes.learnt_python(chunk, written, cuts) is None
    with pytest.raises(ValueError, match="before"):
        spacy_rules._kernels.learnt_shape("ab,", "xx,", ((2, 1),), frozenset(), 8)


@pytest.mark.slow
def test_the_chunk_cache_rows_of_shaped_chunks_are_spacys_rows(monkeypatch):
    cache = module._ChunkTokens(10**6)
    monkeypatch.setattr(module, "_chunk_tokens", lambda: cache)
    shapes = _learnt(generated_chunks(7, 4000))
    imitation = spacy_rules.Imitation(module.tokenizer(), module._our_flags)
    imitation.by_shape = shapes
    monkeypatch.setattr(module, "_imitation", lambda: imitation)
    later = list(dict.fromkeys(generated_chunks(8, 4000)))
    rows, counts, _ = cache.rows(later)
    exact, exact_counts = module._spacy_chunk_rows(later)
    assert counts.tolist() == exact_counts
    last = np.cumsum(counts) - 1  # a chunk's last token: the space after it is the text's
    rows[last, module._SPACE_AFTER] = exact[last, module._SPACE_AFTER]
    assert np.array_equal(rows, exact)
    assert sum(shapes.cuts(chunk) is not None for chunk in later) > 1000


@pytest.mark.parametrize("compiled", [True, False])
def test_chunks_of_one_new_shape_go_to_spacy_one_first(monkeypatch, compiled):
    """A page of API docs brings hundreds of chunks of one new shape: spaCy cuts one,
    the shape it teaches cuts the others; one that holds a special case, or a shape
    its first chunk could not teach, goes to a second call."""
    if compiled and spacy_rules._kernels is None:
        pytest.skip("the compiled extension is not built")
    imitation = spacy_rules.Imitation(module.tokenizer(), module._our_flags)  # no shapes yet
    if not compiled:
        imitation.rows_agree = False
    assert imitation.compiled == compiled
    monkeypatch.setattr(module, "_imitation", lambda: imitation)
    cache = module._ChunkTokens(10**6)
    monkeypatch.setattr(module, "_chunk_tokens", lambda: cache)
    calls = []
    spacy_rows = module._spacy_chunk_rows
    monkeypatch.setattr(module, "_spacy_chunk_rows",
                        lambda chunks: calls.append(list(chunks)) or spacy_rows(chunks))
    methods = [f"PrependMagickMethod(Destroy{name}Options)," for name in
               ("Locale", "Image", "Pixel", "Quantum", "Blob", "Cache", "Draw", "Font")]
    page = [*methods, "Don't", "Aizhbbi'e", "Can't", "(:a", "(:b", "(:c"]
    rows, counts, _ = cache.rows(page)
    assert calls[0] == [methods[0], "Don't", "(:a"]
    assert calls[1] == ["Aizhbbi'e", "Can't", "(:b", "(:c"]  # "Don't" taught nothing
    exact, exact_counts = spacy_rows(page)
    assert counts.tolist() == exact_counts
    last = np.cumsum(counts) - 1
    rows[last, module._SPACE_AFTER] = exact[last, module._SPACE_AFTER]
    assert np.array_equal(rows, exact)


# --- the suffix search from a token's end (TailSuffixSearch) ------------------------------

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


@pytest.mark.slow
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


# --- the tokenizer's set-up and the rows of plain words -----------------------------------

def test_the_slim_vocabulary_gives_the_token_rows_of_spacys_own(dev_site_pages):
    from kwx.document import read_document

    stock = spacy.blank("en").tokenizer  # computes every lexeme attribute
    texts = [*TRICKY_LINES, *(read_document(page).text for page in dev_site_pages[:20])]
    for text in texts:
        assert np.array_equal(module.tokenizer()(text).to_array(module._ATTRS),
                              stock(text).to_array(module._ATTRS))


def test_compiled_token_rows_are_the_getters_rows(dev_site_pages):
    from kwx.document import read_document

    if spacy_rules._kernels is None:
        pytest.skip("the compiled extension is not built")
    imitation = module._imitation()
    assert imitation.rows_agree
    rng = random.Random(5)
    tokens = list(dict.fromkeys(
        [token.text for page in dev_site_pages[:60]
         for token in module.tokenizer()(read_document(page).text)]
        + ["".join(rng.choice("aZ09_-'. \t!&/\u00e9") for _ in range(rng.randrange(1, 7)))
           for _ in range(3000)]
        # past the 64 bytes lowered on the stack, and symbol names written otherwise
        + ["a" * 64, "A" * 65, "The" + "x" * 70, "AUX", "Nsubj", "ORTH", "And"]))
    assert sum(not token.isascii() for token in tokens) > 50
    assert np.array_equal(imitation.lexeme_rows(tokens), imitation.getter_rows(tokens))


def test_compiled_token_rows_that_disagree_with_the_getters_are_not_used(monkeypatch):
    if spacy_rules._kernels is None:
        pytest.skip("the compiled extension is not built")
    spacy_rules._lexicon.cache_clear()  # made of the stop words
    monkeypatch.setattr(spacy_rules, "_stop_words", lambda: frozenset())  # another spaCy's
    try:
        imitation = spacy_rules.Imitation(module.tokenizer(), module._our_flags)
        assert not imitation.rows_agree and not imitation.compiled
        tokens = ["The", "cat", "and", "a", "dog"]
        assert np.array_equal(imitation.lexeme_rows(tokens), imitation.getter_rows(tokens))
    finally:
        spacy_rules._lexicon.cache_clear()


def _rows_by_chunk(chunks, rows, counts):
    """chunk -> its rows, from rows laid out chunk after chunk (counts < 0: no rows)."""
    at, out = 0, {}
    for chunk, count in zip(chunks, counts.tolist(), strict=True):
        if count >= 0:
            out[chunk] = rows[at:at + count]
            at += count
    assert at == len(rows)
    return out


def test_the_compiled_chunk_rows_are_the_python_steps_rows(dev_site_pages):
    from kwx.document import read_document

    if spacy_rules._kernels is None:
        pytest.skip("the compiled extension is not built")
    imitation = module._imitation()
    rng = random.Random(11)
    real = list(dict.fromkeys(chunk for page in dev_site_pages[:40]
                              for chunk in read_document(page).text.split()))
    made = list(dict.fromkeys(
        "".join(rng.choice("aZq09_-'.,()\"$:;!/&\u00e9\u2019") for _ in range(rng.randrange(1, 12)))
        for _ in range(4000)))
    exceptions = sorted(c for c in imitation.exceptions if " " not in c)[:200]
    chunks = list(dict.fromkeys([*real, *made, *exceptions, "aux", "AUX", "nsubj"]))
    old, new = chunks[:len(chunks) // 2], chunks[len(chunks) // 2:]
    cache = module._ChunkTokens(10**6)
    cache._add(old)
    cache._start_again()  # ``old`` is the previous cache now: its rows are copied
    mixed = [*rng.sample(old, 500), *new]
    previous = cache.previous
    kept = (previous.number, previous.first, previous.count, previous.table)
    rows, counts = imitation.chunk_rows(mixed, kept)
    compiled = _rows_by_chunk(mixed, rows, counts)
    assert all(chunk in compiled for chunk in mixed[:500])  # the previous cache's
    cut = [c for c in new if c in compiled and c.isascii() and not c.isalnum()]
    assert len(cut) > 300  # cut by their shapes
    assert sum(c.isalpha() for c in new if c in compiled) > 1000  # one token each
    order, python_rows, sizes = cache._rows_of(mixed)
    python = _rows_by_chunk(order, python_rows, sizes)
    for chunk, found in compiled.items():
        assert np.array_equal(found, python[chunk]), chunk
    # seven tokens a chunk, one shape: more rows than the pass makes room for at first
    words = {"".join(rng.choice("abcdefgh") for _ in range(5)) for _ in range(200)}
    many = [f"({word},{word}-{word})" for word in sorted(words)]
    imitation.learn_shapes(many[:1], *module._spacy_chunk_rows(many[:1]))
    rows, counts = imitation.chunk_rows(many, (None, None, None, None))
    assert (counts == 7).all() and len(rows) > 2 * len(many) + 16
    order, python_rows, sizes = cache._rows_of(many)
    python = _rows_by_chunk(order, python_rows, sizes)
    for chunk, found in _rows_by_chunk(many, rows, counts).items():
        assert np.array_equal(found, python[chunk]), chunk
    with pytest.raises(ValueError, match="previous table"):
        imitation.chunk_rows(mixed[:10], (previous.number, previous.first[:0],
                                          previous.count[:0], previous.table))


@pytest.mark.slow
def test_the_compiled_string_ids_are_spacys():
    from spacy.strings import get_string_id

    if spacy_rules._kernels is None:
        pytest.skip("the compiled extension is not built")
    rng = random.Random(3)
    symbols = spacy_rules._symbols()
    texts = ["", "aux", "nsubj", "ORTH", "a", *symbols,
             *("".join(rng.choice("abcXYZ019-_.' ") for _ in range(rng.randrange(0, 40)))
               for _ in range(20_000))]
    for text in texts:
        assert spacy_rules._kernels.spacy_string_id(text, symbols) == get_string_id(text), text
    assert spacy_rules._kernels.spacy_string_id("caf\u00e9", symbols) is None


# --- kwx.text with the imitation off ------------------------------------------------------

FIELDS = ("ids", "runs", "stop", "capitalized", "upper", "starts", "ends")


def _words_and_hashes(texts: list[str]) -> list[tuple[list, list]]:
    """Each text's words (every field) and distinct phrase hashes, by kwx.text."""
    found = [module.words(text) for text in texts]
    return [([getattr(each, name).tolist() for name in FIELDS],
             module.sorted_unique(module.occurrences(each).hashes).tolist()) for each in found]


@pytest.mark.parametrize("off_by", ["the switch", "other expressions", "other special cases"])
def test_with_the_imitation_off_the_words_and_phrase_hashes_are_the_same(
        off_by, dev_site_pages, monkeypatch, afresh):
    """Off by :data:`kwx.spacy_rules.ENABLED`, or as under a spaCy whose rules are not
    the checked ones: kwx.text gives every chunk it has not seen to an untouched spaCy
    tokenizer, and finds the same words and phrases on real pages as with the
    shortcuts."""
    from kwx.document import read_document

    texts = [read_document(page).text for page in dev_site_pages[:50]]
    texts += [TRICKY_LINES[0], "\n".join(TRICKY_LINES), " ".join(unit_chunks(5, 1500)),
              " ".join(numeric_chunks(5, 1500)), " ".join(generated_chunks(5, 1500)),
              "  leading and  double  spaces ", "a\n\nb"]
    chunks = {chunk for text in texts if not module._has_empty_chunk(text)
              for line in text.split("\n") for chunk in line.split(" ")}
    asked = []
    spacy_rows = module._spacy_chunk_rows
    monkeypatch.setattr(module, "_spacy_chunk_rows",
                        lambda batch: asked.extend(batch) or spacy_rows(batch))
    shortcuts = _words_and_hashes(texts)
    assert module._imitation().active
    assert len(set(asked)) < len(chunks) / 3  # the shortcuts did most of the work

    if off_by == "the switch":
        monkeypatch.setattr(spacy_rules, "ENABLED", False)
    elif off_by == "other expressions":
        monkeypatch.setattr(spacy_rules, "CHECKED_RULES", "another spaCy's")
    else:
        monkeypatch.setattr(spacy_rules, "CHECKED_SPECIALS", "another spaCy's")
    module.reset()
    asked.clear()
    without = _words_and_hashes(texts)
    imitation = module._imitation()
    assert not imitation.active and not imitation.compiled and not imitation.by_shape.shapes
    assert not isinstance(module.tokenizer().suffix_search, TailSuffixSearch)
    assert len(module.tokenizer().vocab.lex_attr_getters) > len(spacy_rules.LEXEME_ATTRS)
    assert sorted(asked) == sorted(chunks)  # every chunk went to spaCy, once
    assert sum(len(fields[0]) for fields, _ in without) > 10_000  # words
    assert without == shortcuts
