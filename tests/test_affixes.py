"""kwx.affixes: cutting new chunks by their shape gives spaCy's tokens exactly."""

import random
import re

import numpy as np
import pytest

from kwx import affixes
from kwx import text as module
from kwx.suffix_search import expression_of

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


def test_the_installed_expressions_are_the_ones_the_shape_argument_was_checked_for():
    assert affixes.rules_digest(module.tokenizer()) == affixes.CHECKED_RULES
    assert module._shape_cuts().enabled


_LOWER, _UPPER = set(range(97, 123)), set(range(65, 91))
#: What a branch must also hold where it reads letters as written: a digit class, "$",
#: "°", or an apostrophe (see kwx.affixes).
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
    assert found_runs == (affixes.UNIT_RUNS_AFTER_DIGIT, affixes.UNIT_RUNS_AFTER_SLASH)


def test_numbers_are_shaped_unless_an_ip_address_may_be_in_them():
    """The URL pattern reads digits one by one only in IP addresses (three dots): there
    the shape could not tell "1.2.3.4/5-6" (a URL, one token) from "0.2.3.4/5-6"."""
    same_shape = ["1.2.3.4/5-6", "0.2.3.4/5-6"]
    assert spacy_cuts(same_shape) == [((0, 11),), ((0, 9), (9, 10), (10, 11))]
    assert [affixes.shape(chunk) for chunk in same_shape] == [None, None]
    for chunk, written in [("1.2.3", "0.0.0"), ("(2019),", "(0000),"), ("$5.99", "$0.00"),
                           ("1:2@3.4", "0:0@0.0")]:
        assert affixes.shape(chunk) == (written, written)
    for chunk in ("US$", "US$5", "5US$", "\u00b0F.", "(\u0663.5)", "5\u20ac", "a1.2.3.4",
                  "h\u00e91"):
        assert affixes.shape(chunk) is None  # "$" with letters, U+00A1 on, an IP address


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
    assert affixes.shape(chunk) == shaped
    assert affixes.shape_python(chunk) == shaped


def test_every_unit_run_is_kept_after_a_digit_and_no_other():
    """The compiled shapes keep the same runs as written as the Python steps."""
    for run in sorted(affixes.UNIT_RUNS_AFTER_DIGIT):
        for chunk in (f"4{run}", f"(4{run}),", f"4{run}x", f"4{run}/s", f"4{run}/q"):
            assert affixes.shape(chunk) == affixes.shape_python(chunk), chunk
        assert affixes.shape(f"4{run}")[0] == f"0{run}"
        assert affixes.shape(f"4{run}q")[0] != f"0{run}q"
    for run in sorted(affixes.UNIT_RUNS_AFTER_SLASH):
        assert affixes.shape(f"5m/{run}")[0] == f"0m/{run}"


UNITS = ["km", "kg", "m", "m/s", "km/h", "kmh", "hPa", "Pa", "MB", "mb", "K", "T", "G",
         "M", "%", "in", "ft", "mph", "lb", "oz", "g", "t", "mm", "cm", "GB", "kb", "KB"]


def unit_chunks(seed: int, count: int) -> list[str]:
    """Letters, digits and punctuation glued together: units, versions, code."""
    return glued_to_numbers(seed, count, [
        *PUNCTUATION, *UNITS, "x", "X", "xx", "a", "B", "Cd", "'s", "am", "a.m.", "th",
        "http://", "www.", "io", "_", "=="], share=0.6, digits=3)


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
    if affixes._compiled is not None:
        assert [affixes.shape(c) for c in later] == [affixes.shape_python(c) for c in later]


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
    if affixes._compiled is not None:
        assert found == [shapes.cuts_python(chunk) for chunk in later]
    return later, found


def _learnt(chunks: list[str]) -> affixes.ShapeCuts:
    shapes = affixes.ShapeCuts(module.tokenizer(), module._exceptions())
    for chunk, cuts in zip(chunks, spacy_cuts(chunks), strict=True):
        shapes.learn(chunk, cuts)
    return shapes


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
    looked_up = affixes._lookup_places
    monkeypatch.setattr(affixes, "_lookup_places",
                        lambda chunk, cuts: tries.append(chunk) or looked_up(chunk, cuts))
    stubborn = _learnt([f"(:{c}" for c in "abcdefghijk"])  # "(:" in every one
    assert stubborn.cuts("(:z") is None
    assert affixes.shape("(:z")[0] not in stubborn.shapes
    assert tries == ["(:a", "(:b", "(:d", "(:h"]  # the 1st, 2nd, 4th and 8th


def test_contractions_first_do_not_keep_a_shape_from_being_learnt():
    """"Don't", "Can't"... are special cases of "Xxx'x" (as written: runs of letters are
    cut to two); an enciphered possessive "Aizhbbi'e" of that shape is not."""
    plain = ["Aizhbbi'e", "Kxby'e", "Nvyr'e", "Gsym'w"]
    shapes = _learnt(["Don't", "Can't", "Won't", "Isn't", *plain])
    assert len({affixes.shape(c)[0] for c in ["Don't", *plain]}) == 1
    for chunk in ("Tsntivh'e", "Xyz'q"):
        assert shapes.cuts(chunk) == spacy_cuts([chunk])[0]
    assert shapes.cuts("Didn't") is None  # itself a special case: spaCy's


def test_chunks_the_shapes_cannot_speak_for_go_to_spacy():
    shapes = _learnt(["word,", "Ab.", "x" * 70 + ","])
    for chunk in ("10km,", "US$.", "\u00b0F.", "y" * 70 + ","):
        assert shapes.cuts(chunk) is None
    assert shapes.cuts("other,") == ((0, 5), (5, 6))
    off = affixes.ShapeCuts(module.tokenizer(), module._exceptions())
    off.enabled = False
    off.learn("word,", ((0, 4), (4, 5)))
    assert off.cuts("other,") is None


@pytest.mark.skipif(affixes._compiled is None, reason="the compiled extension is not built")
def test_the_compiled_cuts_are_the_python_steps():
    shapes = _learnt([*generated_chunks(3, 6000), "Ab's,", "ab\u2019S.", "(\U0001f600x)"])
    later = [
        *generated_chunks(4, 6000), "", "x" * 60 + ",", "x" * 61 + ",", "Cd's,",
        "cd\u2019S.", "cd's's", "'s", "(\U0001f600y)", "(10)", "a$.",
        "\u00b0C,", "e.g.", "Word,", "WORD,", "wORd,"]
    found = [shapes.cuts(chunk) for chunk in later]
    assert found == [shapes.cuts_python(chunk) for chunk in later]
    assert sum(cuts is not None for cuts in found) > 2000


def test_the_chunk_cache_rows_of_shaped_chunks_are_spacys_rows(monkeypatch):
    cache = module._ChunkTokens(10**6)
    monkeypatch.setattr(module, "_chunk_tokens", lambda: cache)
    shapes = _learnt(generated_chunks(7, 4000))
    monkeypatch.setattr(module, "_shape_cuts", lambda: shapes)
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
    if compiled and affixes._compiled is None:
        pytest.skip("the compiled extension is not built")
    if not compiled:
        monkeypatch.setattr(module, "_compiled_rows_agree", lambda: False)
    cache = module._ChunkTokens(10**6)
    monkeypatch.setattr(module, "_chunk_tokens", lambda: cache)
    shapes = affixes.ShapeCuts(module.tokenizer(), module._exceptions())
    monkeypatch.setattr(module, "_shape_cuts", lambda: shapes)
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
