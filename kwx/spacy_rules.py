"""kwx's imitation of spaCy's English tokenizer: every shortcut kwx takes past it.

:mod:`kwx.text` tokenizes through spaCy's public API (``spacy.blank("en")``'s tokenizer,
``Doc.to_array``), one space-delimited chunk at a time, from a cache of the chunks it
has seen (``kwx.text._ChunkTokens``). For a chunk it has not seen, this module may give
the token rows spaCy would give without asking spaCy, by imitating what spaCy does
inside:

- **plain words**: a chunk of ASCII letters only or ASCII digits only that is not a
  special case is one token, and its row is what spaCy's lexeme attribute functions
  give (:meth:`Imitation.plain_rows`; compiled for ASCII in ``kwx/_kernels.pyx``,
  ``ascii_token_rows``, and trusted only where it agrees with those functions on a
  probe, :attr:`Imitation.rows_agree`);
- **cuts by shape**: where spaCy cut a chunk of the same shape before (:class:`ShapeCuts`,
  and the argument below; compiled in ``kwx/_kernels.pyx``, ``shape_of`` and
  ``shape_cuts``; ``chunk_rows`` does both shortcuts and the cache's previous
  generation in one pass);
- **the tokenizer's set-up** (:func:`tune`): its vocabulary computes only the six
  lexeme attributes the rows read, and its suffix expression is searched from each
  token's end (:class:`TailSuffixSearch`). The tokens and rows are the same.

Why: it is measured. ``python benchmarks/tokenizer_ab.py`` (887 content-dev pages, 3
rounds) timed :func:`kwx.text.words` on text it had not seen: 3,729 us a page with the
imitation, 11,800 with kwx's chunk cache and spaCy's public tokenizer for every chunk
not seen (``spacy-kwxcache``: 3.26 times, 3.16-3.35 over the rounds; spaCy's tokenizer
on the whole text, 7.2 times). A whole ``KeywordExtractor.extract`` page (12,805 us)
would cost 63% more without it. On text seen before the two are alike (1.02); every
variant gave the same words and phrase hashes on every page. The script's ``kwx-off``
is kwx with every shortcut here off, as under a spaCy whose rules differ.

What guards it: the argument for each shortcut holds for the rules it was checked on.
When :mod:`kwx.text` makes its tokenizer, three digests of it are compared with those
of spaCy 3.8's English: :func:`rules_digest` (the prefix, suffix, infix and URL
expressions, no token_match) with :data:`CHECKED_RULES`, :func:`specials_digest` (the
special-case table) with :data:`CHECKED_SPECIALS`, and :func:`lexeme_digest` (the
lexeme attribute functions the rows imitate, the stop words, spaCy's symbol ids) with
:data:`CHECKED_LEXEMES`. :func:`active` is the one place that decides, and
:data:`ENABLED` turns everything off by hand. The compiled rows are also checked against
the installed lexeme functions on a probe. ``tests/kwx/test_spacy_rules.py`` fails on any
spaCy whose digests differ from the checked ones, re-checks the arguments below on the
installed expressions, compares every shortcut with spaCy on real pages and generated
chunks, and kwx's words and phrase hashes with the imitation off and on.

When spaCy changes a rule: a digest differs, and every shortcut is off: no tuning, no
plain-word rows, no cuts by shape. Every chunk kwx has not seen goes to an untouched
spaCy tokenizer, so the words are right on any spaCy release, only slower (on unseen
text, as ``spacy-kwxcache`` above). The digest test fails: read what the release changed
against the arguments here (the tests re-check most of them), and only then write the
new digests down.

Cuts by shape. spaCy cuts a space-free chunk ("(Yes),", "e-mail.") by regular
expressions (prefixes, suffixes, infixes, URLs) and a table of special cases. The
expressions are slow, and on a crawl most chunks that are not plain words are new: a
word with a comma is a new chunk for every new word.

The English expressions tell ASCII letters apart only by case, except in branches
that also need a digit, a ``$`` or a ``°`` (units "10km", currencies "US$",
"°F.") or an apostrophe before an "s" ("'s"); they never cut inside a run of letters,
look at most two characters around a cut, and count letters only in URLs, up to 63.
So two chunks of at most 60 characters, without a digit, ``$`` or ``°``, that are the
same once every ASCII letter is written ``x`` (lower case) or ``X`` (upper case), the
"s" of a possessive kept, and every run of three or more letters of one case cut to
two, get the same answer from every expression: their *shape* decides the cuts,
unless a special case ("e.g.", ":)") takes part.

Chunks with a digit or ``$`` have another shape when they hold no ASCII letter, no
character from U+00A1 on (so no ``°``) and fewer than three dots ("(2019),", "12:30",
"$5.99"): each ASCII digit written ``0``, every other character as it is. The
prefix, suffix and infix expressions read ASCII digits only as a class of all ten;
the URL pattern reads them one by one only in IP addresses (three dots) and counts
them in ports (the shape keeps the length). Such a shape holds a 0 or ``$``, which no
shape of the first kind does.

Chunks with ASCII letters and digits ("fn2(x)", "x86_64", "10km,") have a third
shape, under the same conditions and without ``$``: digits written 0, letters written
x / X as in the first kind, but a run of letters that follows a digit and is one of
the units' first runs (:data:`UNIT_RUNS_AFTER_DIGIT`), or follows a slash and is one
of their second runs (:data:`UNIT_RUNS_AFTER_SLASH`), kept as it is, and not cut to
two. Next to a digit, the only branches that read letters as written, other than those
needing ``$``, ``°``, a character from U+00A1 on or a possessive's apostrophe, are the
units: a suffix that is one of a list of strings right after a digit, to the end of
the part, each string a run of letters, two runs with a slash between them, or "%"
(``tests/kwx/test_spacy_rules.py`` checks this on the installed expressions, and that the
two sets of runs are theirs). Such a suffix starts at the first letter after a digit
and no suffix ends inside a run of letters (only units and a possessive's "s" take
letters off), so it can match only where a whole run after a digit is a unit's first
run, and, when the unit has a slash, the whole run after it its second run: two chunks
of the same shape match it at the same places, and a run that is neither is read only
by its letters' case, as in the first kind ("10qz," and "7th," share "00xx,"). Writing
all letters as they are instead would make nearly every such chunk a shape of its own
(tried: 94 MB more at 100,000 pages); this way most of them share one ("x0(x" for
"g1(i" and "f2(a"). Keeping every run after a digit or a slash as written, as this
did first, gave enciphered copies of a page shapes of their own ("7th" and "7qz").

A shape's cuts are learnt from the first chunk of that shape spaCy tokenizes with no
special case at any place where spaCy may look a substring up among the special
cases on the way (:func:`_lookup_places`); a chunk whose substring at one of those
places is a special case goes to spaCy, and teaches nothing. After such a chunk, the
shape's later chunks are tried only at the 2nd, 4th, 8th... (a shape every chunk of
which holds one costs few tries; "Don't" and "Can't" do not keep "Xxx'x" from being
learnt from a later "Aizhbbi'e", as four tries did). Special cases of one
character that are their own token (English lists the apostrophes, "—" and
whitespace) cannot change a cut and are not looked for (:func:`_cut_changing`):
without that, a chunk with a quote in it ("'ab',") always went to spaCy. What each
kind saved is in the commits that brought it, and kwx's steps in
``benchmarks/kwx_stages.py``.
"""

from __future__ import annotations

import hashlib
import inspect
import re
from collections.abc import Callable, Collection, Sequence
from functools import cache, cached_property

import numpy as np
from spacy.attrs import IS_PUNCT, IS_SPACE, IS_STOP, IS_TITLE, IS_UPPER, LOWER
from spacy.strings import get_string_id

try:
    from kwx import _kernels
except ImportError:  # the compiled extension is optional
    _kernels = None

try:  # re's own parser: private, but what measures an expression's width
    import re._parser as _sre_parse
    from re._constants import AT as _AT
    from re._constants import AT_END as _AT_END
    from re._constants import MAXREPEAT as _MAXREPEAT
except ImportError:  # another Python: spaCy's own suffix search stays
    _sre_parse = None

# --- the switch and the guard ------------------------------------------------------------

#: The switch: False turns every shortcut off, whatever spaCy is installed (tests; a
#: suspicion that the imitation is wrong). :mod:`kwx.text` reads it when it makes its
#: tokenizer and its :class:`Imitation`: after changing it, call ``kwx.text.reset()``.
ENABLED = True
#: Digest of the expressions and options the shortcuts were checked for (spaCy 3.8's
#: English: prefix, suffix and infix patterns, URL pattern, no token_match).
CHECKED_RULES = "bf39835f2a2bc0118c8ecf5c5481a9b0bfe0c69804197695a76af5c376164463"
#: Digest of the special-case table they were checked with (spaCy 3.8's English, 1,347
#: cases, ``faster_heuristics`` on).
CHECKED_SPECIALS = "4444eb9ca739793cfc25a26575522fb03d9e7cccec7a48f1a891de7a68f33dbe"
#: Digest of the lexeme attribute functions, stop words and symbol ids the rows imitate
#: (spaCy 3.8's English; the compiled rows are also checked on a probe at run time,
#: :attr:`Imitation.rows_agree`).
CHECKED_LEXEMES = "019d7b146f47dd9b403eafe27b849b8fee593879fcd5c4fc6248bc493c06528e"


def active(tokenizer: object) -> bool:
    """Whether kwx may take its shortcuts past ``tokenizer``: :data:`ENABLED`, and its
    expressions, special cases and lexeme functions are those the shortcuts were checked
    on. The one place that decides: every shortcut is on, or none."""
    return ENABLED and rules_digest(tokenizer) == CHECKED_RULES and \
        specials_digest(tokenizer) == CHECKED_SPECIALS and \
        lexeme_digest(tokenizer) == CHECKED_LEXEMES


def rules_digest(tokenizer: object) -> str:
    """A digest of what decides a tokenizer's cuts besides its special cases."""
    parts = []
    for name in ("prefix_search", "suffix_search", "infix_finditer", "url_match"):
        pattern = expression_of(getattr(tokenizer, name, None))
        if pattern is None:
            return ""
        parts.append(f"{name}:{pattern.flags}:{pattern.pattern}")
    parts.append(f"token_match:{getattr(tokenizer, 'token_match', None) is None}")
    return _sha256(parts)


def specials_digest(tokenizer: object) -> str:
    """A digest of a tokenizer's special cases: each string with its tokens' attributes,
    and whether it matches them by spaCy's faster heuristics. Empty without a table."""
    rules = getattr(tokenizer, "rules", None)
    if not isinstance(rules, dict):
        return ""
    parts = [f"faster_heuristics:{getattr(tokenizer, 'faster_heuristics', None)}"]
    for special in sorted(rules):
        pieces = rules[special]
        parts.append(repr((special, [sorted(piece.items()) if isinstance(piece, dict)
                                     else repr(piece) for piece in pieces])))
    return _sha256(parts)


def lexeme_digest(tokenizer: object) -> str:
    """A digest of what makes the six attributes of a new lexeme that the rows read: the
    source of the vocabulary's functions for :data:`LEXEME_ATTRS` (with the arguments
    bound to them: the stop words), the stop words the compiled rows read
    (:func:`_stop_words`), and spaCy's fixed symbol ids (:func:`_symbols`). Empty when a
    function or its source is missing."""
    getters = getattr(getattr(tokenizer, "vocab", None), "lex_attr_getters", None) or {}
    parts = []
    for attr in LEXEME_ATTRS:
        getter = getters.get(attr)
        function = getattr(getter, "func", getter)  # a functools.partial's own
        try:
            source = inspect.getsource(function)
        except (OSError, TypeError):
            return ""
        bound = sorted((name, sorted(value) if isinstance(value, set | frozenset) else value)
                       for name, value in getattr(getter, "keywords", {}).items())
        parts.append(f"{attr}:{source}:{getattr(getter, 'args', ())!r}:{bound!r}")
    parts.append(repr(sorted(_stop_words())))
    parts.append(repr(sorted(_symbols().items())))
    return _sha256(parts)


def _sha256(parts: list[str]) -> str:
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


# --- the token row -----------------------------------------------------------------------

#: A token's row, as ``kwx._kernels`` writes it and :mod:`kwx.text` reads it (uint64):
#: the lexeme hash of its lower case, five flags (punct, space, stop, title, upper),
#: kwx's two (a letter or digit, a joiner), its offset in the chunk, its length, and
#: whether no whitespace follows it.
ID, FLAGS, IDX, LENGTH, SPACE_AFTER = 0, slice(1, 8), 8, 9, 10
COLUMNS = 11
#: The lexeme attributes a token row reads (LENGTH is set without one).
LEXEME_ATTRS = (LOWER, IS_PUNCT, IS_SPACE, IS_STOP, IS_TITLE, IS_UPPER)


# --- the tokenizer's set-up --------------------------------------------------------------

def tune(nlp: object) -> bool:
    """Set up ``nlp``'s tokenizer (an English ``Language``) for speed, where
    :func:`active`: whether it did.

    Its vocabulary computes only the six lexeme attributes the token rows read: spaCy
    runs every attribute function on each word it meets for the first time (17 more,
    shape, prefix, suffix and like_num among them), which made ~10% of tokenizing new
    text and left strings for the vocabulary to keep. Tokens are cut by the tokenizer's
    rules alone, so they are the same. Its suffix expression is searched from each
    token's end (:class:`TailSuffixSearch`), with the same answers.
    """
    tokenizer = nlp.tokenizer
    if not active(tokenizer):
        return False
    getters = tokenizer.vocab.lex_attr_getters
    tokenizer.vocab.lex_attr_getters = {attr: getters[attr] for attr in LEXEME_ATTRS}
    search = TailSuffixSearch.of(tokenizer, nlp.Defaults.suffixes or ())
    if search is not None:
        tokenizer.suffix_search = search
    return True


class TailSuffixSearch:
    """A drop-in for a tokenizer's ``suffix_search``: the same match spans, from fewer
    places. ``expression`` is the one it stands for.

    spaCy finds a token's suffix with ``re.search`` of one expression: every English
    suffix followed by ``$``, joined by ``|``. The engine tries all of them at every
    position of the token, so a long token ("sqlalchemy.sql.expression.False_") costs
    its length times the alternatives: much of spaCy's time on the chunks kwx still
    gives it.

    Every English suffix of spaCy 3.8 but ``\\.\\.+`` matches at most five characters
    (the widths ``re``'s parser gives; a look-behind has none), so a match of one of them
    starts in the token's last five: they are searched from there
    (``Pattern.search(text, pos)``, whose look-behinds still see the characters before
    ``pos``). The suffixes of no bounded width are searched over the whole token, and the
    leftmost match of the two is the answer, as the leftmost is in the one expression.
    Which suffix matched does not matter: spaCy reads only the match's length, and every
    match ends where the token does (``$``; a token with a line break, before which
    ``$`` also matches, is searched by the one expression). ``tests/kwx/test_spacy_rules.py``
    compares the two on real and generated tokens, and spaCy's tokens with each.
    """

    def __init__(self, expression: re.Pattern[str], reach: int, bounded: Sequence[str],
                 unbounded: Sequence[str]) -> None:
        self.expression = expression
        self._reach = reach
        self._bounded = _joined(bounded, expression.flags)
        self._unbounded = _joined(unbounded, expression.flags)

    @classmethod
    def of(cls, tokenizer: object, suffixes: Sequence[str]) -> TailSuffixSearch | None:
        """The search for ``tokenizer``, whose suffix expression must be ``suffixes``
        joined as spaCy joins them; None when it is not, or when a suffix's match may not
        end at the end (a ``|`` of its own: "a|b" then "$" anchors only b)."""
        expression = expression_of(getattr(tokenizer, "suffix_search", None))
        suffixes = [suffix for suffix in suffixes if suffix.strip()]  # as spaCy drops them
        if expression is None or _sre_parse is None or not suffixes:
            return None
        if _joined(suffixes, expression.flags) != expression:
            return None
        bounded, unbounded, reach = [], [], 0
        for suffix in suffixes:
            parsed = _sre_parse.parse(f"{suffix}$", expression.flags)
            if not len(parsed) or parsed[-1] != (_AT, _AT_END):
                return None
            width = parsed.getwidth()[1]
            if width >= _MAXREPEAT:
                unbounded.append(suffix)
            else:
                bounded.append(suffix)
                reach = max(reach, width)
        return cls(expression, reach, bounded, unbounded)

    def __call__(self, text: str) -> re.Match[str] | None:
        if "\n" in text:
            return self.expression.search(text)
        found = None
        if self._bounded is not None:
            found = self._bounded.search(text, max(len(text) - self._reach, 0))
        if self._unbounded is not None:
            other = self._unbounded.search(text)
            if other is not None and (found is None or other.start() < found.start()):
                found = other
        return found


def expression_of(search: object) -> re.Pattern[str] | None:
    """The expression a tokenizer's search function runs: a compiled expression's bound
    method, or a :class:`TailSuffixSearch`; None for anything else."""
    if isinstance(search, TailSuffixSearch):
        return search.expression
    pattern = getattr(search, "__self__", None)
    return pattern if isinstance(pattern, re.Pattern) else None


def _joined(suffixes: Sequence[str], flags: int) -> re.Pattern[str] | None:
    """The suffixes (none blank) as spaCy's ``compile_suffix_regex`` joins them."""
    if not suffixes:
        return None
    return re.compile("|".join(f"{suffix}$" for suffix in suffixes), flags)


# --- the shortcuts for chunks not seen -----------------------------------------------------

#: Chunks of letters only, or digits only: one token each, unless a special case.
_SIMPLE = re.compile(r"(?:[A-Za-z]+|[0-9]+)\Z")

Cuts = tuple[tuple[int, int], ...]


class Imitation:
    """kwx's shortcuts past a spaCy tokenizer: the rows of chunks not seen, without it.

    Made from one of the tokenizers :mod:`kwx.text` makes (they all have the same rules)
    and kept while it makes new ones: it keeps no hold on the tokenizer. When not
    :attr:`active`, every shortcut is off: :meth:`plain` finds no plain word,
    :meth:`cut_by_shape` cuts nothing, :meth:`learn_shapes` learns nothing and
    :attr:`compiled` is False. ``flags`` gives kwx's two columns of a row (a letter or
    digit, a joiner) from tokens in lower case.
    """

    def __init__(self, tokenizer: object, flags: Callable[[list[str]], np.ndarray]) -> None:
        self.active = active(tokenizer)
        #: The special cases ("dont" is two tokens): never a plain word.
        self.exceptions = frozenset(getattr(tokenizer, "rules", None) or ())
        self.by_shape = ShapeCuts(tokenizer, self.exceptions, enabled=self.active)
        getters = tokenizer.vocab.lex_attr_getters
        self._getters = tuple(getters[attr] for attr in LEXEME_ATTRS)
        self._flags = flags

    @cached_property
    def rows_agree(self) -> bool:
        """Whether the compiled rows of ASCII tokens are the lexeme functions' rows on
        :data:`_PROBE` (another spaCy may read its attributes otherwise: then the
        functions make every row)."""
        if _kernels is None:
            return False
        rows, others = _kernels.ascii_token_rows(_PROBE, _lexicon())
        return not others and np.array_equal(rows, self.getter_rows(_PROBE))

    @property
    def compiled(self) -> bool:
        """Whether :meth:`chunk_rows` may be called: active, built and agreeing."""
        return self.active and _kernels is not None and self.rows_agree

    def chunk_rows(self, chunks: list[str], previous: tuple) -> tuple[np.ndarray, np.ndarray]:
        """The rows of the chunks that need no spaCy call, in one compiled pass
        (``kwx._kernels.chunk_rows``): plain words, chunks the previous generation of
        kwx's chunk cache holds (``previous``: its numbers, first rows, counts and
        table, or four None), chunks whose shape is known. Each chunk's number of rows,
        -1 for one left to the caller. Only where :attr:`compiled`."""
        by_shape = self.by_shape
        return _kernels.chunk_rows(
            chunks, self.exceptions, *previous, by_shape.shapes if by_shape.enabled else {},
            by_shape.specials, MAX_CHARS, _lexicon())

    def plain(self, chunks: list[str]) -> tuple[list[str], list[str]]:
        """The chunks that are one token each (ASCII letters only or digits only, not a
        special case), and the others; none when not active."""
        if not self.active:
            return [], chunks
        simple, hard = [], []
        exceptions = self.exceptions
        for chunk in chunks:
            (simple if _SIMPLE.match(chunk) and chunk not in exceptions else hard
             ).append(chunk)
        return simple, hard

    def plain_rows(self, chunks: list[str]) -> np.ndarray:
        """Rows of chunks that are one token each (:meth:`plain`)."""
        rows = self.lexeme_rows(chunks)
        rows[:, SPACE_AFTER] = 1
        return rows

    def lexeme_rows(self, tokens: list[str]) -> np.ndarray:
        """Rows of tokens at offset 0 with no space after, from the vocabulary's
        attribute functions (what spaCy would store in a new lexeme): compiled for ASCII
        tokens, where they agree with the functions on a probe (:attr:`rows_agree`)."""
        if _kernels is not None and self.rows_agree:
            rows, others = _kernels.ascii_token_rows(tokens, _lexicon())
            if others:
                rows[others] = self.getter_rows([tokens[i] for i in others])
            return rows
        return self.getter_rows(tokens)

    def getter_rows(self, tokens: list[str]) -> np.ndarray:
        """:meth:`lexeme_rows` by the attribute functions themselves."""
        lower, punct, space, stop, title, upper = self._getters
        lowered = [lower(c) for c in tokens]
        rows = np.zeros((len(tokens), COLUMNS), dtype=np.uint64)
        rows[:, 0] = [get_string_id(w) for w in lowered]  # a symbol ("aux") has its id
        for column, getter in enumerate((punct, space, stop, title, upper), start=1):
            rows[:, column] = [bool(getter(c)) for c in tokens]
        rows[:, 6:8] = self._flags(lowered)
        rows[:, LENGTH] = [len(c) for c in tokens]
        return rows

    def cut_by_shape(self, chunks: list[str]) -> tuple[list[str], list[Cuts], list[str]]:
        """The chunks their shape cuts, their cuts, and the chunks it does not."""
        if not self.by_shape.enabled:
            return [], [], chunks
        found = [self.by_shape.cuts(c) for c in chunks]
        cut = [c for c, cuts in zip(chunks, found, strict=True) if cuts is not None]
        return cut, [cuts for cuts in found if cuts is not None], \
            [c for c, cuts in zip(chunks, found, strict=True) if cuts is None]

    def cut_rows(self, chunks: list[str], cuts: list[Cuts]) -> np.ndarray:
        """Rows of chunks whose token cuts are known (:meth:`cut_by_shape`): the rows
        spaCy gives them, without asking it."""
        spans = [span for each in cuts for span in each]
        rows = self.lexeme_rows([chunk[a:b] for chunk, each in zip(chunks, cuts, strict=True)
                                 for a, b in each])
        rows[:, IDX] = [a for a, _ in spans]
        return rows

    def one_per_new_shape(self, chunks: list[str]) -> tuple[list[str], list[str]]:
        """The chunks for spaCy now, and those that wait: a chunk waits when its shape
        has no cuts yet and an earlier one of ``chunks`` has the same shape, which may
        teach it (a page of API docs brings hundreds of
        "PrependMagickMethod(DestroyLocaleOptions)" at once, of one new shape)."""
        if not self.by_shape.enabled:
            return chunks, []
        now, waiting, teaching = [], [], set()
        known = self.by_shape.shapes
        for chunk in chunks:
            shaped = shape(chunk)
            key = shaped[0] if shaped is not None else None
            if key is None or key in known:
                now.append(chunk)
            elif key in teaching:
                waiting.append(chunk)
            else:
                teaching.add(key)
                now.append(chunk)
        return now, waiting

    def learn_shapes(self, chunks: list[str], rows: np.ndarray, counts: list[int]) -> None:
        """Learn the cuts of ``chunks`` from spaCy's rows of them (chunk after chunk,
        ``counts`` rows each)."""
        if not self.by_shape.enabled:
            return
        starts = rows[:, IDX].tolist()
        ends = (rows[:, IDX] + rows[:, LENGTH]).tolist()
        first = 0
        for chunk, count in zip(chunks, counts, strict=True):
            self.by_shape.learn(chunk, tuple(zip(starts[first:first + count],
                                                 ends[first:first + count], strict=True)))
            first += count


@cache
def _stop_words() -> frozenset[str]:
    from spacy.lang.en import English

    return frozenset(English.Defaults.stop_words)


@cache
def _symbols() -> dict[str, int]:
    """The strings whose spaCy id is a fixed symbol number rather than their hash."""
    from spacy.symbols import IDS

    return dict(IDS)


@cache
def _lexicon() -> _kernels.AsciiLexicon:
    """The stop words and symbol names the compiled rows look ASCII tokens up in."""
    return _kernels.AsciiLexicon(_stop_words(), _symbols())


#: ASCII tokens the compiled rows are checked on once: every character, and words of
#: every case, stop words, symbols ("aux" has a fixed id), joiners, punctuation runs,
#: and every length from 1 to 23 (the compiled hash reads eight bytes at a time).
_PROBE = [*map(chr, range(128)), "The", "THE", "the", "tHe", "Th", "T", "A1", "a1B", "1a",
          "Ab1C", "ABC1", "x-y", "'s", "n't", "--", "...", "e.g.", "U.S.", "I", "aux",
          "nsubj", " \t", "\x1c\x1f", "Mr.", "\"'", "a_b", "_", "&amp", "also", "Also", "HENCE",
          *("Internationalization.Ok"[:n] for n in range(2, 24))]


# --- cuts by shape -------------------------------------------------------------------------

#: Characters near which the expressions read letters as written: their chunks are
#: shaped only without letters, their digits written 0.
_NUMERIC = re.compile(r"[0-9$\u00b0]")
_DIGITS = str.maketrans(dict.fromkeys("0123456789", "0"))
#: The first character past ASCII letters that a word (or a URL's domain) may hold.
_WIDE = "\u00a1"
_LETTERS = str.maketrans({**{c: "x" for c in "abcdefghijklmnopqrstuvwxyz"},
                          **{c: "X" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}})
#: The letter of a possessive ("'s"), which the suffixes read as written.
_POSSESSIVE = re.compile("['\u2019][sS]")
#: Letters past the second of a run of one case: a shape keeps runs of two at most.
_LONG_RUNS = re.compile(r"(?<=xx)x+|(?<=XX)X+")
#: A shape's segments: a run of letters of one case, or any other character.
_SEGMENTS = re.compile(r"x+|X+|.", re.DOTALL)
_ASCII_LETTER = re.compile(r"[A-Za-z]")
_ASCII_RUN = re.compile(r"[A-Za-z]+")
#: The runs of letters the units of spaCy 3.8's English suffixes start with, right after
#: a digit ("10km", "5m/s"), and those after their slash: such runs are shaped as written
#: (``kwx/_kernels.pyx`` holds the same runs).
UNIT_RUNS_AFTER_DIGIT = frozenset((
    "km", "m", "dm", "cm", "mm", "ha", "nm", "yd", "in", "ft", "kg", "g", "mg", "t", "lb",
    "oz", "kmh", "mph", "hPa", "Pa", "mbar", "mb", "MB", "kb", "KB", "gb", "GB", "tb", "TB",
    "T", "G", "M", "K"))
UNIT_RUNS_AFTER_SLASH = frozenset(("s", "h"))
_DIGIT_CHARS = frozenset("0123456789")
#: Longest chunk shaped: the URL pattern counts up to 63 letters of a run.
MAX_CHARS = 60
#: Most tokens a shape's chunk may have (a chunk of n tokens checks n(n+1)/2 runs).
MAX_TOKENS = 8
#: Shapes kept before starting again (a crawl's shapes are few; this bounds the rest).
MAX_SHAPES = 200_000


def shape(chunk: str) -> tuple[str, str] | None:
    """The chunk's shape and the chunk written out (:func:`shape_python`; compiled where
    built)."""
    if _kernels is not None:
        return _kernels.shape_of(chunk, MAX_CHARS)
    return shape_python(chunk)


def shape_python(chunk: str) -> tuple[str, str] | None:
    """The chunk's shape, and the chunk written out (the same length): its letters x /
    X (possessives' "s" kept); with a digit, ``$`` or ``°`` and no letter, its digits 0;
    with digits and letters, its digits 0 and its letters x / X but for the runs of
    letters a unit may be made of, after a digit or a slash, kept as they are (see the
    module docstring). None when the chunk is too long, or has a digit, ``$`` or ``°``
    and a character from U+00A1 on or three dots (an IP address), or a letter and
    ``$``."""
    if len(chunk) > MAX_CHARS:
        return None
    if _NUMERIC.search(chunk):
        if max(chunk) >= _WIDE or chunk.count(".") >= 3:
            return None
        if _ASCII_LETTER.search(chunk):
            return None if "$" in chunk else _letters_and_digits(chunk)
        written = chunk.translate(_DIGITS)
        return written, written
    written = _letters_written(chunk)
    return _LONG_RUNS.sub("", written), written


def _letters_written(chunk: str) -> str:
    """The chunk's ASCII letters written x / X, but a possessive's "s"."""
    written = chunk.translate(_LETTERS)
    if "'" in chunk or "\u2019" in chunk:
        for match in _POSSESSIVE.finditer(chunk):
            at = match.start() + 1
            written = written[:at] + chunk[at] + written[at + 1:]
    return written


def _letters_and_digits(chunk: str) -> tuple[str, str]:
    """The shape and the written-out chunk of a chunk with ASCII letters and digits
    (and no ``$``, ``°``, character from U+00A1 on, or three dots): digits 0, letters as
    :func:`_letters_written` writes them, but each run of letters that a unit may be
    made of as it is (after a digit, one of :data:`UNIT_RUNS_AFTER_DIGIT`: "10km"; after
    a slash, one of :data:`UNIT_RUNS_AFTER_SLASH`: "5m/s"); runs of x / X cut to two in
    the shape, the runs kept as they are whole."""
    written = list(_letters_written(chunk).translate(_DIGITS))
    kept = [False] * len(chunk)
    for match in _ASCII_RUN.finditer(chunk):
        a, b = match.span()
        before = chunk[a - 1] if a else ""
        if (before in _DIGIT_CHARS and chunk[a:b] in UNIT_RUNS_AFTER_DIGIT) or (
                before == "/" and chunk[a:b] in UNIT_RUNS_AFTER_SLASH):
            written[a:b] = chunk[a:b]
            kept[a:b] = [True] * (b - a)
    key, run, last = [], 0, ""
    for c, as_is in zip(written, kept, strict=True):
        run = run + 1 if c == last and c in "xX" and not as_is else 1
        last = "" if as_is else c
        if run <= 2:
            key.append(c)
    return "".join(key), "".join(written)


def _segment_starts(written: str) -> list[int]:
    """Where each segment of a written-out chunk starts, and its length last."""
    return [match.start() for match in _SEGMENTS.finditer(written)] + [len(written)]


class ShapeCuts:
    """Cuts of chunks by shape, learnt from spaCy's answers (see the module docstring).

    ``cuts(chunk)`` gives the (start, end) of each token of a chunk whose shape is known
    and whose special-case places hold no special case, else None; ``learn(chunk, cuts)``
    takes spaCy's cuts of a chunk that had none. A shape keeps its cuts and places as
    segment numbers: a run of letters longer than two is one segment like a run of two,
    and cuts fall only between segments. ``enabled``: whether it cuts and learns at all
    (by default, where the tokenizer is :func:`active`).
    """

    def __init__(self, tokenizer: object, specials: Collection[str],
                 enabled: bool | None = None) -> None:
        self.specials = _cut_changing(tokenizer, specials)
        self.enabled = active(tokenizer) if enabled is None else enabled
        # shape -> (cuts, places to look up), each a bytes of (start, end) segment pairs
        # (~240 bytes a shape with its key; ~900 with tuples), or None: the shape's
        # chunks go to spaCy
        self.shapes: dict[str, tuple[bytes, bytes] | None] = {}
        # shape -> chunks of it given since the first that held a special case, while
        # it has no cuts yet (:meth:`_tried_again`)
        self.specials_met: dict[str, int] = {}

    def cuts(self, chunk: str) -> Cuts | None:
        """The chunk's token cuts from its shape, or None (ask spaCy)."""
        if not self.enabled:
            return None
        if _kernels is not None:  # the steps below, in one compiled pass
            return _kernels.shape_cuts(chunk, self.shapes, self.specials, MAX_CHARS)
        return self.cuts_python(chunk)

    def cuts_python(self, chunk: str) -> Cuts | None:
        """:meth:`cuts` by Python steps (where the extension is not built; the tests'
        reference)."""
        if not self.enabled:
            return None
        shaped = shape_python(chunk)
        known = self.shapes.get(shaped[0]) if shaped is not None else None
        if known is None:
            return None
        cuts, places = known
        at = _segment_starts(shaped[1])
        specials = self.specials
        for a, b in zip(places[::2], places[1::2], strict=True):
            if chunk[at[a]:at[b]] in specials:
                return None
        return tuple((at[a], at[b]) for a, b in zip(cuts[::2], cuts[1::2], strict=True))

    def learn(self, chunk: str, spacy_cuts: Cuts) -> None:
        """Keep spaCy's cuts of ``chunk`` for its shape, unless a special case took
        part in them (then a later chunk of the shape may teach it: :meth:`_tried_again`).

        Even a special case that every chunk of the shape holds at the same place (the
        "(:" of "(:a") teaches nothing: inside it, spaCy may have looked up a part that
        is a special case in another chunk of the shape (":3" in "(:3"), at a place the
        cuts do not show."""
        if not self.enabled:
            return
        shaped = shape(chunk)
        if shaped is None or shaped[0] in self.shapes:
            return
        if len(self.shapes) >= MAX_SHAPES or len(self.specials_met) >= MAX_SHAPES:
            self.shapes.clear()
            self.specials_met.clear()
        key, written = shaped
        if not self._tried_again(key):
            return
        learnt = NotImplemented if _kernels is None else _kernels.learnt_shape(
            chunk, written, spacy_cuts, self.specials, MAX_TOKENS)
        if learnt is NotImplemented:  # no extension, or a cut past the chunk
            learnt = self.learnt_python(chunk, written, spacy_cuts)
        if learnt is False:
            self.specials_met.setdefault(key, 1)
            return
        self.specials_met.pop(key, None)
        self.shapes[key] = learnt

    def learnt_python(self, chunk: str, written: str,
                      spacy_cuts: Cuts) -> tuple[bytes, bytes] | bool | None:
        """What a shape learns from spaCy's cuts of ``chunk`` (written out as
        ``written``): False when a special case took part in them; None when the shape
        cannot speak for its chunks (too many tokens, or a cut or place inside a run of
        letters); else its cuts and places as segment numbers (compiled where built,
        ``kwx._kernels.learnt_shape``: learning runs once for each chunk spaCy cuts)."""
        places = _lookup_places(chunk, spacy_cuts) if len(spacy_cuts) <= MAX_TOKENS else ()
        if any(chunk[a:b] in self.specials for a, b in places):
            return False
        if len(spacy_cuts) > MAX_TOKENS:
            return None
        segment = {start: number for number, start in enumerate(_segment_starts(written))}
        # a cut or place inside a run of letters: the shape cannot tell where
        if not all(a in segment and b in segment for a, b in places):  # (cuts are places)
            return None
        # segment numbers, below MAX_CHARS + 2: bytes hold them
        return (bytes(segment[at] for pair in spacy_cuts for at in pair),
                bytes(segment[at] for pair in places for at in pair))

    def _tried_again(self, key: str) -> bool:
        """Whether to learn from this chunk of shape ``key``: always, until one held a
        special case; after that, at the 2nd, 4th, 8th... chunk of the shape given (a
        try looks every place up, besides the spaCy call that brought the chunk). The first
        chunks of a shape are often special cases themselves ("and/or", one token, is
        the first "xx/xx" of many pages; "Don't" and "Can't" of "Xxx'x"), later ones
        rarely ("input/output"), and a shape whose every chunk holds one ("(:a") never
        stops going to spaCy, however often it is tried."""
        given = self.specials_met.get(key)
        if given is None:
            return True
        self.specials_met[key] = given + 1
        return not given & (given + 1)  # given + 1 is a power of two


def _cut_changing(tokenizer: object, specials: Collection[str]) -> Collection[str]:
    """The special cases that may change where a chunk is cut: all but those of one
    character that are their own one token (English's: the apostrophes, "—", and
    whitespace, never in a chunk; the NORM the no-break space's case sets is no cut,
    and the token rows do not read it).

    Such a case takes part only where the part spaCy looks at, or a run of its tokens,
    is that one character, which ends as one token in the same place whatever takes it
    (the case, a prefix, a suffix, or nothing, left between them): the cuts, and so the
    places, are those the expressions alone make. And a shape writes the character as
    itself, so every chunk of the shape holds it at the same places. English holds
    quotes' apostrophes among its special cases: without this, every chunk with a quote
    in it ("'ab',") went to spaCy."""
    from spacy.attrs import ORTH

    rules = getattr(tokenizer, "rules", None)
    if not isinstance(rules, dict):
        return specials

    def own_token(special: str) -> bool:
        pieces = rules.get(special)
        return len(special) == 1 and isinstance(pieces, list) and len(pieces) == 1 and \
            isinstance(pieces[0], dict) and pieces[0].get(ORTH) == special

    return frozenset(s for s in specials if not own_token(s))


def _lookup_places(chunk: str, cuts: Cuts) -> Cuts:
    """Every (start, end) where spaCy may look a substring up among the special cases
    while cutting ``chunk`` into ``cuts``.

    spaCy looks up the part between the affixes taken so far, that part less a prefix
    or a suffix it found, and (its matcher) runs of tokens: each is a run of adjacent
    tokens of the result, except when a prefix and a suffix overlap, where it looks up
    the part less the suffix, which ends inside the prefix. A prefix holds no ASCII
    letter here (only currencies like "US$" do, and chunks with "$" are shaped only
    without letters), so the places inside every token without an ASCII letter are
    added too. A special case found at any of these places would have cut the chunk at
    the place's ends, so none of them being one means none took part.
    """
    runs = {(cuts[i][0], cuts[j][1]) for i in range(len(cuts)) for j in range(i, len(cuts))}
    for a, b in cuts:
        if b - a > 1 and not _ASCII_LETTER.search(chunk, a, b):
            runs.update((a, inner) for inner in range(a + 1, b))
    return tuple(sorted(runs))
