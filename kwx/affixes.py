"""Where spaCy's English tokenizer cuts a new chunk, known from the chunks of its shape.

spaCy cuts a space-free chunk ("(Yes),", "e-mail.") by regular expressions (prefixes,
suffixes, infixes, URLs) and a table of special cases. The expressions are slow, and
on a crawl most chunks that are not plain words are new: a word with a comma is a new
chunk for every new word.

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
(``tests/test_affixes.py`` checks this on the installed expressions, and that the two
sets of runs are theirs). Such a suffix starts at the first letter after a digit and
no suffix ends inside a run of letters (only units and a possessive's "s" take
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
without that, a chunk with a quote in it ("'ab',") always went to spaCy.

The argument holds for the expressions it was checked on: :data:`CHECKED_RULES` is a
digest of them, and another spaCy whose expressions differ gets no shapes (every new
chunk goes to spaCy). ``tests/test_affixes.py`` re-checks the argument on the
installed expressions and compares the cuts with spaCy's on real pages and generated
chunks. What each kind saved is in the commits that brought it, and kwx's steps in
``benchmarks/kwx_stages.py``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection

from kwx.suffix_search import expression_of

try:
    from denoise import _compiled
except ImportError:  # the compiled extension is optional
    _compiled = None

#: Digest of the expressions and options the shape argument was checked for (spaCy
#: 3.8's English: prefix, suffix and infix patterns, URL pattern, no token_match).
CHECKED_RULES = "bf39835f2a2bc0118c8ecf5c5481a9b0bfe0c69804197695a76af5c376164463"
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
#: a digit ("10km", "5m/s"), and those after their slash: such runs are shaped as written.
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

Cuts = tuple[tuple[int, int], ...]


def rules_digest(tokenizer: object) -> str:
    """A digest of what decides a tokenizer's cuts besides its special cases."""
    parts = []
    for name in ("prefix_search", "suffix_search", "infix_finditer", "url_match"):
        pattern = expression_of(getattr(tokenizer, name))
        if pattern is None:
            return ""
        parts.append(f"{name}:{pattern.flags}:{pattern.pattern}")
    parts.append(f"token_match:{getattr(tokenizer, 'token_match', None) is None}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def shape(chunk: str) -> tuple[str, str] | None:
    """The chunk's shape and the chunk written out (:func:`shape_python`; compiled where
    built)."""
    if _compiled is not None:
        return _compiled.shape_of(chunk, MAX_CHARS)
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
    and cuts fall only between segments.
    """

    def __init__(self, tokenizer: object, specials: Collection[str]) -> None:
        self.specials = _cut_changing(tokenizer, specials)
        self.enabled = rules_digest(tokenizer) == CHECKED_RULES
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
        if _compiled is not None:  # the steps below, in one compiled pass
            return _compiled.shape_cuts(chunk, self.shapes, self.specials, MAX_CHARS)
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
        places = _lookup_places(chunk, spacy_cuts) if len(spacy_cuts) <= MAX_TOKENS else ()
        if any(chunk[a:b] in self.specials for a, b in places):
            self.specials_met.setdefault(key, 1)
            return
        self.specials_met.pop(key, None)
        self.shapes[key] = None  # unless all is well below
        if len(spacy_cuts) > MAX_TOKENS:
            return
        segment = {start: number for number, start in enumerate(_segment_starts(written))}
        # a cut or place inside a run of letters: the shape cannot tell where
        if all(a in segment and b in segment for a, b in places):  # (the cuts are places)
            self.shapes[key] = (  # segment numbers, below MAX_CHARS + 2: bytes hold them
                bytes(segment[at] for pair in spacy_cuts for at in pair),
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
