"""Words and candidate phrases: spaCy's tokenizer, its stop list, 64-bit phrase hashes.

A *phrase* is a run of 1 to ``max_words`` words that crosses no break and neither
starts nor ends with a stop word. Breaks are every token that is not a word
(sentence and clause punctuation, line ends between blocks) except a hyphen, slash,
ampersand or apostrophe that spaCy splits off between two words ("3-Day",
"AT&T"): the joiner is dropped, so "3-Day Festival" and "3 day festival" are the
same phrase. Forms spaCy keeps whole ("COVID-19", "and/or": a hyphen before a digit,
its exceptions) stay one word and match only as written. Words are compared in
lower case.

Phrases are identified by a 64-bit hash folded from spaCy's lexeme hashes of their
lower-cased words (``h = h * P ^ word``), computed for all n-grams of a page with a
few numpy operations; tables (document and query frequencies) store the same hashes,
so a lookup never builds a string. spaCy's string hashes are MurmurHash64 of the
UTF-8 text, stable across spaCy 3 releases; every table stores the hash of a test
phrase and is refused when today's tokenizer disagrees (:func:`hash_check`).

``spacy.blank("en")`` is the default: its tokenizer is rule-based and needs no
model download. A page in another language is tokenized by its language's blank
pipeline, whose stop words are that language's (:func:`language_tokenizer`;
:func:`page_language` says which); the hashes are the same function of the lower-cased
word, so tables built from English text still answer for the words they share. Where
the paper wants linguistic features (noun phrases) a trained pipeline would be needed;
Kołcz & Yih left them out too. kwx calls the English tokenizer through its public API,
from a cache of the chunks it has tokenized; the shortcuts that imitate its internals
for chunks not seen, and what guards them, are all in :mod:`kwx.spacy_rules`. Other
languages' tokenizers take a page's text in slices of :data:`SLICE_CHARS`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import compress, repeat
from typing import Any

import numpy as np
from spacy.attrs import IDX, IS_PUNCT, IS_SPACE, IS_STOP, IS_TITLE, IS_UPPER, LENGTH, LOWER, SPACY

from denoise.arrays import ragged_arange, sorted_unique
from denoise.language import SAMPLE_CHARS, detect_language, primary_subtag
from kwx import spacy_rules
from kwx.spacy_rules import Cuts, Imitation

try:
    from kwx import _kernels
except ImportError:  # the compiled extension is optional
    _kernels = None

#: Longest candidate phrase, in words (Yih et al. and the issue: up to 5).
MAX_WORDS = 5
#: Odd 64-bit multiplier of the phrase hash (the golden-ratio constant).
_MIX = np.uint64(0x9E3779B97F4A7C15)
_MASK = (1 << 64) - 1
#: Tokens that join two words when glued to both ("e-mail", "AT&T", "and/or").
_JOINERS = frozenset("-/&'\u2019")  # \u2019: the typographic apostrophe
_ATTRS = [LOWER, IS_PUNCT, IS_SPACE, IS_STOP, IS_TITLE, IS_UPPER, IDX, LENGTH, SPACY]
#: Test phrase whose hash every saved table records.
_CHECK_PHRASE = "New York Stock-Exchange"
#: The language of kwx's tables, its ranker's training pages and its fast tokenizer path.
ENGLISH = "en"
#: A text at least this share of whose words are English stop words is English, and its
#: language is not identified (which would load the identifier, and cost half a
#: millisecond a page). The main texts of trafilatura's set and WCXB's development
#: split (50 words or more) in English: 5% of them under 0.24, 1% under 0.13; in
#: German, French, Spanish and 6 other languages: 1% over 0.12, one page at 0.33.
ENGLISH_STOP_SHARE = 0.2
#: ...unless this share of its words or more are stop words of another language that
#: English's list lacks ("und", "les", "que"): a German text can pass the screen above on
#: words both languages have ("in", "an", "so", "also") or on a quoted English speech,
#: and it is then identified. Chosen (an ad hoc count) on the kept texts (``kwx
#: extract``'s) of the same pages and of 1,000 dev pages that pass the screen above: in
#: English, 99% under 0.05 (21 of 2,410 at or over, all then identified as English); in
#: German, 4 pages from 0.10 to 0.27 (2 then identified as German, whose keywords had
#: "ich" and "eine").
FOREIGN_STOP_SHARE = 0.05
#: The languages whose stop words :data:`FOREIGN_STOP_SHARE` counts: those of the
#: non-English pages here that are written in Latin letters and share words with English.
_SCREENED_LANGUAGES = ("de", "es", "fr", "it", "nl", "pt")
#: spaCy's name of a language where it differs from the identifier's, and the settings of
#: its blank pipeline: Chinese words come from jieba (the ``cjk`` extra). Not spaCy's
#: default, a word a character: it cuts Latin words into letters too, and on the Chinese
#: technical blogs of the dev sites the keywords were letters ("r", "c", "S").
_SPACY_NAMES = {"no": "nb"}
_SEGMENTED = {"zh": {"nlp": {"tokenizer": {"segmenter": "jieba"}}}}
#: The package a language's tokenizer needs, looked for before spaCy builds anything.
_NEEDS = {"zh": "jieba", "ja": "sudachipy"}


@cache
def tokenizer():
    """spaCy's English tokenizer (a blank pipeline: rules only, no model files), set up
    for speed by :func:`kwx.spacy_rules.tune` where its rules are those kwx's shortcuts
    were checked on (the same tokens and rows)."""
    import spacy

    english = spacy.blank("en")
    spacy_rules.tune(english)
    return english.tokenizer


@cache
def _imitation() -> Imitation:
    """kwx's shortcuts past :func:`tokenizer` for chunks not seen (:mod:`kwx.spacy_rules`),
    all off where its rules are not those they were checked on."""
    return Imitation(tokenizer(), _our_flags)


def language_tokenizer(language: str) -> Any:
    """The tokenizer of spaCy's blank pipeline for ``language`` (an ISO 639 code), with
    that language's stop words; None where spaCy has no such language, or its tokenizer
    needs a package that is not installed (Chinese: jieba; Japanese: SudachiPy; Korean,
    Thai, Vietnamese: theirs): the page is then tokenized as English. Loaded once a
    process: most in a fraction of a second, French in some 4 s (its exceptions).
    jieba, Chinese's segmenter, logs its dictionary's loading to standard error (its own
    logger's handler) and keeps a cache file in the temporary folder."""
    if language == ENGLISH:
        return tokenizer()
    name = _spacy_name(language)
    return None if name is None else _blank_tokenizer(name)


def spacy_has(language: str) -> bool:
    """Whether spaCy has a blank pipeline for ``language``, without loading it (the
    package a tokenizer needs may still be missing: :func:`language_tokenizer` says)."""
    from importlib.util import find_spec

    if language == ENGLISH:
        return True
    name = _spacy_name(language)
    return name is not None and find_spec(f"spacy.lang.{name}") is not None


def _spacy_name(language: str) -> str | None:
    """spaCy's name of ``language``; None for what is no language code (and so no module
    name to import)."""
    return _SPACY_NAMES.get(language, language) if primary_subtag(language) == language \
        else None


#: spaCy's blank tokenizers by name, each loaded once (None: spaCy has no such language,
#: or the package its tokenizer needs is missing). A dict, not a cache of the function:
#: :func:`_vocabulary_full` lets go of one language's, not of every one a service loaded.
_BLANK: dict[str, Any] = {}


def _blank_tokenizer(name: str) -> Any:
    if name not in _BLANK:  # two threads may both load it: the same tokenizer either way
        from importlib.util import find_spec

        import spacy

        if name in _NEEDS and find_spec(_NEEDS[name]) is None:
            _BLANK[name] = None
            return None
        try:
            _BLANK[name] = spacy.blank(name, config=_SEGMENTED.get(name, {})).tokenizer
        except ImportError:
            _BLANK[name] = None
    return _BLANK[name]


def page_language(found: Words, text: str, more: Sequence[str] = (), page: str = "",
                  declared: str = "") -> str:
    """The language to tokenize ``text`` in, given its English ``found`` words: English
    when enough of them are English stop words (:data:`ENGLISH_STOP_SHARE`) and few are
    other languages' (:data:`FOREIGN_STOP_SHARE`), else the language
    :func:`denoise.language.detect_language` identifies in the text's start and the
    ``more`` lines after it (a title: they tell where the text is short), or where that
    tells nothing (too short, or the identifier unsure), in ``page``, the start of the
    whole page's text (a German blog post whose kept text was its one-line title read as
    English: "der" came out a keyword), weighed against the language the page
    ``declared`` in its ``<html lang>`` if spaCy can tokenize that one, as
    :func:`denoise.language.detect_language` weighs them for the metadata (the
    declared one unless the identifier is sure: a German page of one sentence read as
    English gave "Der Zitronenkuchen ist saftig und" as a keyword). The language found
    if spaCy has a tokenizer for it; English when it has none or nothing tells."""
    if _plainly_english(found):
        return ENGLISH
    language = detect_language("\n".join((text[:SAMPLE_CHARS], *more)))
    if not language:
        if declared and language_tokenizer(declared) is None:
            declared = ""  # no answer: the text's likely language may have a tokenizer
        language = detect_language(page[:SAMPLE_CHARS], declared)
    return language if language and language_tokenizer(language) is not None else ENGLISH


def _plainly_english(found: Words) -> bool:
    """Whether ``found`` passes both stop-word screens, so the identifier need not run."""
    n = len(found)
    if not n or float(found.stop.mean()) < ENGLISH_STOP_SHARE:
        return False
    theirs = _foreign_stops()  # sorted; none of them is an English stop word
    ids = found.ids[~found.stop]
    foreign = theirs.take(np.searchsorted(theirs, ids), mode="clip") == ids
    return int(foreign.sum()) < FOREIGN_STOP_SHARE * n


@cache
def _foreign_stops() -> np.ndarray:
    """Sorted hashes of the stop words of :data:`_SCREENED_LANGUAGES` that are not English
    ones. Read from the lists' source files: importing them would import their languages'
    packages (French's tokenizer exceptions: 3 s)."""
    from spacy.lang.en.stop_words import STOP_WORDS
    from spacy.strings import get_string_id

    words = set().union(*map(_stop_words_of, _SCREENED_LANGUAGES)) - STOP_WORDS
    # the ids :class:`Words` holds: a word that is a spaCy symbol ("aux") has its symbol's
    return np.array(sorted({get_string_id(word) for word in words}), dtype=np.uint64)


def _stop_words_of(language: str) -> set[str]:
    """The lower-cased words of the string literals of spaCy's stop-word list of
    ``language`` (each list is one literal, split on white space); imported where its
    file cannot be read so (a spaCy that lays its lists out otherwise)."""
    import ast
    from importlib import import_module
    from importlib.resources import files

    try:
        source = (files("spacy.lang") / language / "stop_words.py").read_text(
            encoding="utf-8")
        listed = {node.value for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)}
        words = {word for text in listed for word in text.split()}
    except (OSError, SyntaxError, ValueError):
        words = set(import_module(f"spacy.lang.{language}.stop_words").STOP_WORDS)
    return {word.lower() for word in words}


def reset() -> None:
    """Let go of the tokenizers, the shortcuts past them and the chunk cache: the next
    text is tokenized afresh, as :data:`kwx.spacy_rules.ENABLED` says then (tests turn
    the shortcuts off and on; the words are the same either way)."""
    for cached in (tokenizer, _imitation, _chunk_tokens):
        cached.cache_clear()
    _BLANK.clear()


@dataclass(frozen=True, slots=True)
class Words:
    """The words of a text, in order, as arrays."""

    ids: np.ndarray  # uint64: spaCy hash of the lower-cased word
    runs: np.ndarray  # int64: words with the same run have no break between them
    stop: np.ndarray  # bool: a stop word
    capitalized: np.ndarray  # bool: Title case or ALL CAPS as written
    upper: np.ndarray  # bool: ALL CAPS (two letters or more)
    starts: np.ndarray  # int64: character offset in the text
    ends: np.ndarray  # int64: one past the last character

    def __len__(self) -> int:
        return len(self.ids)

    def part(self, start: int, stop: int, offset: int = 0) -> Words:
        """Words ``start:stop``, their character offsets less ``offset`` (the words of a
        text tokenized after another)."""
        return Words(self.ids[start:stop], self.runs[start:stop], self.stop[start:stop],
                     self.capitalized[start:stop], self.upper[start:stop],
                     self.starts[start:stop] - offset, self.ends[start:stop] - offset)


@dataclass(frozen=True, slots=True)
class Occurrences:
    """Every candidate phrase occurrence of a text: its hash, first word and length."""

    hashes: np.ndarray  # uint64
    first: np.ndarray  # int64: index of its first word in ``Words``
    lengths: np.ndarray  # int64: words


def words(text: str, language: str = ENGLISH) -> Words:
    """Tokenize ``text`` (written in ``language``, a code :func:`language_tokenizer` has a
    tokenizer for) and keep its words, with a run number that changes at every break."""
    if language != ENGLISH:
        return _words_of_table(text, language)
    if _kernels is not None:
        found = _chunk_tokens().words(text)
        if found is not None:
            return found
    return _words_of_table(text)


def _words_of_table(text: str, language: str = ENGLISH) -> Words:
    """:func:`words` by numpy steps over :func:`_token_table` (and the only way for a
    text that is not single-space-separated chunks on lines, or not in English: spaCy
    tokenizes those whole)."""
    table = _token_table(text) if language == ENGLISH else _sliced_table(text, language)
    if table is None:
        empty = np.zeros(0, dtype=np.int64)
        return Words(empty.astype(np.uint64), empty, empty.astype(bool), empty.astype(bool),
                     empty.astype(bool), empty, empty)
    ids, flags, starts, ends, glued_after, newline = table
    punct, space, stop, title, upper, alnum, joins = (flags[:, k] for k in range(7))
    wordlike = ~punct & ~space & alnum
    # a joiner glued between two words is dropped without a break
    before = np.concatenate(([False], wordlike[:-1] & glued_after[:-1]))
    after = np.concatenate((wordlike[1:], [False]))
    joiner = ~wordlike & before & glued_after & after & joins
    breaks = (~wordlike & ~joiner).astype(np.int64) + newline
    runs = np.cumsum(breaks)
    keep = wordlike
    return Words(ids[keep], runs[keep], stop[keep], (title | upper)[keep],
                 upper[keep] & (ends - starts >= 2)[keep], starts[keep], ends[keep])


#: Columns of a token row: spaCy's attributes, then two of ours (:func:`_our_flags`),
#: offset, length and no space after (laid out in :mod:`kwx.spacy_rules`, as the
#: compiled kernels write them).
_ID, _FLAGS, _IDX, _LENGTH, _SPACE_AFTER, _COLUMNS = (
    spacy_rules.ID, spacy_rules.FLAGS, spacy_rules.IDX, spacy_rules.LENGTH,
    spacy_rules.SPACE_AFTER, spacy_rules.COLUMNS)


def _token_table(text: str) -> tuple[np.ndarray, ...] | None:
    """Per token of ``text``: lexeme hash (uint64); flags (bool, tokens x 7: punct,
    space, stop, title, upper, has a letter or digit, joiner); start, end (int64); no
    whitespace after (bool); line breaks just before it (int64, for a text tokenized
    line by line). None for no token.

    spaCy splits text at spaces first and tokenizes each space-delimited chunk on its
    own, so a text of single-space-separated chunks on lines (what :mod:`kwx.document`
    makes) is tokenized chunk by chunk from a cache of chunks seen before
    (:class:`_ChunkTokens`; most of a page's words were seen on earlier pages). Any
    other text goes to spaCy whole. ``tests/kwx/test_kwx.py`` checks the two agree on real
    pages.
    """
    if _has_empty_chunk(text):  # then spaCy's whitespace rules apply
        return _spacy_table(text)
    chunks = [line.split(" ") for line in text.split("\n")]
    flat = [chunk for line in chunks for chunk in line]
    table, counts, lengths = _chunk_tokens().rows(flat)
    if not len(table):
        return None
    chunk_starts = np.zeros(len(flat), dtype=np.int64)
    np.cumsum(lengths[:-1] + 1, out=chunk_starts[1:])  # one separator after each chunk
    owner = np.repeat(np.arange(len(flat)), counts)
    starts = chunk_starts[owner] + table[:, _IDX].astype(np.int64)
    ends = starts + table[:, _LENGTH].astype(np.int64)
    last = np.cumsum(counts) - 1  # the last token of each chunk: whitespace follows it
    glued_after = table[:, _SPACE_AFTER] == 0
    glued_after[last[counts > 0]] = False
    line_sizes = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
    first_chunk_of_line = np.zeros(len(flat), dtype=np.int64)
    first_chunk_of_line[np.cumsum(line_sizes)[:-1]] = 1  # a line break before these chunks
    newline = np.zeros(len(table), dtype=np.int64)
    token_of_chunk = np.cumsum(counts) - counts
    breaks_before = np.flatnonzero(first_chunk_of_line)
    # a chunk without tokens cannot start a line here (chunks are never empty strings)
    newline[token_of_chunk[breaks_before]] = 1
    return (table[:, _ID], table[:, _FLAGS].astype(bool), starts, ends, glued_after, newline)


def _has_empty_chunk(text: str) -> bool:
    """Whether splitting at line breaks, then spaces, would give an empty chunk."""
    return (not text or text[0] in " \n" or text[-1] in " \n" or "  " in text
            or " \n" in text or "\n " in text or "\n\n" in text)


#: Characters of a text in another language tokenized in one call, cut where a line or
#: sentence ends (:func:`_slices`): SudachiPy refuses more than 49,149 bytes (Japanese is 3
#: a character), and one call holds the tokens of all it was given.
SLICE_CHARS = 10_000
#: Where a slice may end, best first: a line break (which ends every phrase anyway), a
#: full stop (Chinese and Japanese write no spaces), a space.
_SLICE_ENDS = ("\n", "\u3002", " ")


def _slices(text: str, size: int = SLICE_CHARS) -> list[tuple[int, str]]:
    """``text`` cut into pieces of at most ``size`` characters, each with its offset: after
    the last line break of the window's second half, else its last full stop or space,
    else at ``size`` (a word 5,000 characters long is no phrase)."""
    pieces, start = [], 0
    while len(text) - start > size:
        window = text[start + size // 2:start + size]
        cut = next((at + 1 for mark in _SLICE_ENDS if (at := window.rfind(mark)) >= 0),
                   len(window))
        end = start + size // 2 + cut
        pieces.append((start, text[start:end]))
        start = end
    pieces.append((start, text[start:]))
    return pieces


def _sliced_table(text: str, language: str) -> tuple[np.ndarray, ...] | None:
    """:func:`_spacy_table` of ``text`` in ``language``, slice by slice (:func:`_slices`)."""
    tables = []
    for offset, piece in _slices(text):
        table = _spacy_table(piece, language)
        if table is not None:
            ids, flags, starts, ends, glued_after, newline = table
            tables.append((ids, flags, starts + offset, ends + offset, glued_after, newline))
    return tuple(np.concatenate(column) for column in zip(*tables, strict=True)) \
        if tables else None


def _spacy_table(text: str, language: str = ENGLISH) -> tuple[np.ndarray, ...] | None:
    table = _spacy_rows(text, language)
    if not len(table):
        return None
    starts = table[:, _IDX].astype(np.int64)
    return (table[:, _ID], table[:, _FLAGS].astype(bool), starts,
            starts + table[:, _LENGTH].astype(np.int64), table[:, _SPACE_AFTER] == 0,
            np.zeros(len(table), dtype=np.int64))


def _spacy_rows(text: str, language: str = ENGLISH) -> np.ndarray:
    """spaCy's token rows of ``text`` (tokens x :data:`_COLUMNS`, uint64), by
    ``language``'s tokenizer."""
    if language_tokenizer(language) is None:
        raise ValueError(f"no tokenizer for language {language!r}: spaCy has none, or the "
                         f"package its tokenizer needs is missing (Chinese and Japanese: "
                         f"the cjk extra)")
    _vocabulary_full(language)  # may start a fresh one
    doc = language_tokenizer(language)(text)
    if not len(doc):
        return np.zeros((0, _COLUMNS), dtype=np.uint64)
    spacy_columns = doc.to_array(_ATTRS)
    rows = np.empty((len(doc), _COLUMNS), dtype=np.uint64)
    rows[:, :6] = spacy_columns[:, :6]
    # a token's text is its slice of the text (spaCy keeps every character), and the
    # flags read nothing that lower-casing changes: no Token object per token
    rows[:, 6:8] = _our_flags([text[a:a + n] for a, n in zip(
        spacy_columns[:, 6].tolist(), spacy_columns[:, 7].tolist(), strict=True)])
    rows[:, 8:] = spacy_columns[:, 6:]
    return rows


#: A letter or digit (``str.isalnum`` of one character: re's ``\w`` less the underscore).
_ALNUM = re.compile(r"[^\W_]")


def _our_flags(tokens: list[str]) -> np.ndarray:
    """Per token: whether it holds a letter or digit, and whether it is a joiner."""
    flags = np.empty((len(tokens), 2), dtype=np.uint64)
    flags[:, 0] = [s.isalnum() or _ALNUM.search(s) is not None for s in tokens]
    flags[:, 1] = [s in _JOINERS for s in tokens]
    return flags


#: spaCy keeps every string it has tokenized: past this many (~30 MB), a fresh one takes
#: over (lexeme hashes depend on the string alone, so nothing else changes).
_MAX_STRINGS = 300_000


def _vocabulary_full(language: str = ENGLISH) -> bool:
    """Start a fresh tokenizer when ``language``'s holds too many strings (a crawl's
    vocabulary has no end); True when it did."""
    if len(language_tokenizer(language).vocab.strings) <= _MAX_STRINGS:
        return False
    if language == ENGLISH:
        tokenizer.cache_clear()
    else:
        _BLANK.pop(_spacy_name(language), None)
    return True


class _ChunkTokens:
    """Space-delimited chunk -> its tokens' rows, kept in one growing array.

    A page's rows are gathered with one fancy index, whatever its number of chunks.
    Bounded: past ``limit`` chunks the cache becomes the *previous* one and a new one
    starts; a chunk found only in the previous one is copied over, so the chunks a
    crawl keeps meeting (a site's template, common words) survive, and its long tail
    is dropped. A chunk not in the cache goes to spaCy's tokenizer, once per page for
    all of them, unless kwx's shortcuts past it (:mod:`kwx.spacy_rules`, where its rules
    are those they were checked on) give its rows: chunks of ASCII letters or digits
    alone (most words) are one token, whose row is what the vocabulary's own attribute
    functions give; others are cut by their shape where spaCy cut a chunk of that shape
    before. A page's new chunks then go through one compiled pass, which leaves only
    spaCy's (and those with a token that is not ASCII) to Python steps. The rows spaCy
    made are also kept apart (:class:`_SpacyMade`), past the cache's generations.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        # chunk -> number, in the order added (compiled: a text is looked up chunk by chunk
        # without a string made of each)
        self.number = _kernels.ChunkTable() if _kernels is not None else _ChunkNumbers()
        self.first = np.zeros(1024, dtype=np.int64)  # first row of each chunk
        self.count = np.zeros(1024, dtype=np.int64)  # rows of each chunk
        self.length = np.zeros(1024, dtype=np.int64)  # characters of each chunk
        self.table = np.zeros((4096, _COLUMNS), dtype=np.uint64)
        self.used = 0
        self.previous: _ChunkTokens | None = None
        self.spacy_made = _SpacyMade(_MAX_SPACY_CHUNKS)

    def rows(self, flat: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The token rows of the chunks ``flat`` in order, and each chunk's number of
        tokens and length."""
        numbers = self.number.numbers(flat)
        if (numbers < 0).any():
            number = self.number
            missing = list(dict.fromkeys([c for c in flat if c not in number]))
            if self._made_room(missing):
                missing = list(dict.fromkeys(flat))
            self._add(missing)
            numbers = self.number.numbers(flat)
            if (numbers < 0).any():  # _add numbers every chunk it is given
                raise RuntimeError("the chunk cache lost a chunk it had just added")
        counts = self.count[numbers]
        return (self.table[ragged_arange(self.first[numbers], counts)], counts,
                self.length[numbers])

    def words(self, text: str) -> Words | None:
        """The words of ``text`` in one compiled pass over its chunks' cached rows; None
        when the text is not single-space-separated chunks on lines."""
        split = self.number.split(text)
        if split is None:
            return None
        numbers, starts, lines, missing_at, missing = split
        if missing:
            distinct = list(dict.fromkeys(missing))
            if self._made_room(distinct):  # every chunk is missing now
                numbers, starts, lines, missing_at, missing = self.number.split(text)
                distinct = list(dict.fromkeys(missing))
            self._add(distinct)
            numbers[missing_at] = self.number.numbers(missing)
        return Words(*_kernels.assemble_words(numbers, starts, lines, self.first,
                                              self.count, self.table))

    def _made_room(self, missing: list[str]) -> bool:
        """Start again if adding ``missing`` would overflow the cache; whether it did."""
        if len(self.number) + len(missing) <= self.limit:
            return False
        self._start_again()
        return True

    def _start_again(self) -> None:
        previous = _ChunkTokens(self.limit)
        previous.number, previous.first, previous.count = self.number, self.first, self.count
        previous.length = self.length
        previous.table, previous.used = self.table, self.used
        spacy_made = self.spacy_made
        self.__init__(self.limit)
        self.previous, self.spacy_made = previous, spacy_made
        # the new generation grows as large as the last one did: room for it at once,
        # rather than doubling up to it, copying as it goes (table rows past ``used``
        # and entries past the chunks numbered are never read, so they need no zeros)
        self.first, self.count, self.length, self.table = (
            np.empty_like(a) for a in (previous.first, previous.count, previous.length,
                                       previous.table))

    def _add(self, chunks: list[str]) -> None:
        """Number ``chunks`` (none in the cache), with their token rows: in one compiled
        pass for those that need no spaCy call (:meth:`kwx.spacy_rules.Imitation.chunk_rows`,
        where the shortcuts are on), by :meth:`_rows_of` for the rest."""
        imitation = _imitation()
        if not imitation.compiled:
            self._append(*self._rows_of(chunks))
            return
        previous = self.previous
        kept = (previous.number, previous.first, previous.count, previous.table) \
            if previous is not None else (None, None, None, None)
        rows, counts = imitation.chunk_rows(chunks, kept)
        left = counts < 0
        if not left.any():
            self._append(chunks, rows, counts)
            return
        done = list(compress(chunks, (~left).tolist()))
        rest, rest_rows, rest_counts = self._rows_of(list(compress(chunks, left.tolist())))
        self._append(done + rest, np.concatenate((rows, rest_rows)),
                     np.concatenate((counts[~left], rest_counts)))

    def _rows_of(self, chunks: list[str]) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The chunks in a new order, their token rows and each one's number of rows, by
        Python steps: one the previous cache numbered, or spaCy tokenized before
        (:class:`_SpacyMade`), has its rows there; spaCy tokenizes the rest, in one
        call. Where the shortcuts are on (:class:`kwx.spacy_rules.Imitation`), a chunk of
        letters or digits alone is one token, one whose shape is known is cut by it, and
        chunks of a shape another of them may teach wait for spaCy's first call
        (:meth:`~kwx.spacy_rules.Imitation.one_per_new_shape`): those are cut by what it
        taught, and a second call takes the ones it did not."""
        parts: list[np.ndarray] = []
        sizes: list[int] = []
        kept = self.previous.number if self.previous is not None else {}
        imitation = _imitation()
        simple, hard = imitation.plain(chunks)
        known = [c for c in hard if c in kept]
        hard = [c for c in hard if c not in kept]
        made = self.spacy_made
        again = [c for c in hard if c in made]
        hard = [c for c in hard if c not in made]
        cut, cuts, hard = imitation.cut_by_shape(hard)
        hard, waiting = imitation.one_per_new_shape(hard)
        order = simple + known + again + cut + hard
        if simple:
            parts.append(imitation.plain_rows(simple))
            sizes += [1] * len(simple)
        for chunk in known:
            number = kept[chunk]
            first, count = self.previous.first[number], self.previous.count[number]
            parts.append(self.previous.table[first:first + count])
            sizes.append(int(count))
        for chunk in again:
            parts.append(made[chunk])
            sizes.append(len(made[chunk]))

        def add(cut: list[str], cuts: list[Cuts], rest: list[str]) -> None:
            """Rows of chunks cut by their shape, then of the rest, by spaCy (whose cuts
            the shapes learn)."""
            if cut:
                parts.append(imitation.cut_rows(cut, cuts))
                sizes.extend(map(len, cuts))
            if rest:
                rows, counts = _spacy_chunk_rows(rest)
                imitation.learn_shapes(rest, rows, counts)
                made.keep(rest, rows, counts)
                parts.append(rows)
                sizes.extend(counts)

        add(cut, cuts, hard)
        if waiting:  # cut by the shapes the first call taught, where it did
            cut, cuts, rest = imitation.cut_by_shape(waiting)
            order += cut + rest
            add(cut, cuts, rest)
        rows = np.concatenate(parts) if parts else np.zeros((0, _COLUMNS), dtype=np.uint64)
        return order, rows, np.array(sizes, dtype=np.int64)

    def _append(self, chunks: list[str], rows: np.ndarray, counts: np.ndarray) -> None:
        start = len(self.number)
        end = start + len(chunks)
        if end > len(self.first):
            size = max(end, 2 * len(self.first))
            self.first = np.resize(self.first, size)
            self.count = np.resize(self.count, size)
            self.length = np.resize(self.length, size)
        if self.used + len(rows) > len(self.table):
            grown = np.empty((max(self.used + len(rows), 2 * len(self.table)), _COLUMNS),
                             dtype=np.uint64)
            grown[:self.used] = self.table[:self.used]
            self.table = grown
        self.table[self.used:self.used + len(rows)] = rows
        self.first[start:end] = self.used + np.cumsum(counts) - counts
        self.count[start:end] = counts
        self.length[start:end] = np.fromiter(map(len, chunks), dtype=np.int64,
                                             count=len(chunks))
        self.used += len(rows)
        self.number.add(chunks)


class _SpacyMade(dict[str, np.ndarray]):
    """Chunk -> the token rows spaCy made of it, kept when the chunk cache starts again.

    A chunk spaCy must tokenize (code, version numbers, long or non-ASCII chunks) costs
    far more than a plain word's rows, and a crawl meets many again later than the
    cache's two generations reach: on the scale input's fourth copy (its third
    enciphered one), a quarter of the chunks spaCy was asked for it had tokenized
    before. Bounded: cleared when full (a batch of more chunks than the bound is not
    kept).
    """

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def keep(self, chunks: list[str], rows: np.ndarray, counts: list[int]) -> None:
        """Keep each chunk's rows (a read-only copy): ``rows`` holds them chunk after
        chunk, ``counts`` a chunk."""
        if len(chunks) > self.limit:
            return
        if len(self) + len(chunks) > self.limit:
            self.clear()
        rows = rows.copy()
        rows.flags.writeable = False
        first = 0
        for chunk, count in zip(chunks, counts, strict=True):
            self[chunk] = rows[first:first + count]
            first += count


class _ChunkNumbers(dict[str, int]):
    """Chunk -> number, numbered in the order added: :class:`kwx._kernels.ChunkTable`
    as a dict, where the extension is not built."""

    def add(self, chunks: list[str]) -> None:
        """Number ``chunks`` (none in the table yet, each once) from ``len(self)`` on."""
        if len(set(chunks)) != len(chunks) or any(chunk in self for chunk in chunks):
            raise ValueError("a chunk is numbered already, or twice in one call")
        self.update(zip(chunks, range(len(self), len(self) + len(chunks)), strict=True))

    def numbers(self, chunks: list[str]) -> np.ndarray:
        return np.fromiter(map(self.get, chunks, repeat(-1)), dtype=np.int64, count=len(chunks))


#: Chunks the cache holds before it starts again (~100 bytes each with their rows, and
#: up to 64 more of the table's slots, which stays at most half full).
_MAX_CHUNKS = 200_000
#: The most characters of one chunk (a run without white space) that spaCy tokenizes
#: (:func:`_spacy_chunk_rows`): far above a word, a URL or a path.
MAX_SPACY_CHUNK_CHARS = 2_000


#: Chunks spaCy tokenized kept past the cache's generations (~400-550 bytes each with
#: their rows, their views and keys).
_MAX_SPACY_CHUNKS = 50_000


@cache
def _chunk_tokens() -> _ChunkTokens:
    return _ChunkTokens(_MAX_CHUNKS)


def _spacy_chunk_rows(chunks: list[str]) -> tuple[np.ndarray, list[int]]:
    """Tokenize ``chunks`` in one spaCy call: their rows (offsets inside each chunk), and
    how many tokens each has.

    The chunks go one a line: spaCy's special cases match across spaces (after
    "(potential)", ":p)." would give ":" "p"), and a line break token between chunks
    keeps each chunk's tokens independent of its neighbours in the batch.

    A chunk is tokenized up to its :data:`MAX_SPACY_CHUNK_CHARS`-th character: spaCy
    splits affixes off a chunk one at a time, each a new string, so a chunk's cost grows
    with the square of its length (a page with 200,000 ``<`` in a row took 40 s). Past
    that length a chunk is a run of symbols or glued text, no phrase.
    """
    chunks = [chunk[:MAX_SPACY_CHUNK_CHARS] for chunk in chunks]
    rows = _spacy_rows("\n".join(chunks))
    starts = np.zeros(len(chunks), dtype=np.int64)
    np.cumsum(np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))[:-1] + 1,
              out=starts[1:])
    offsets = rows[:, _IDX].astype(np.int64)
    owner = np.searchsorted(starts, offsets, side="right") - 1
    inside = offsets < (starts + np.fromiter(map(len, chunks), dtype=np.int64,
                                             count=len(chunks)))[owner]
    rows, owner = rows[inside], owner[inside]  # the line breaks between chunks go
    rows[:, _IDX] -= starts[owner].astype(np.uint64)  # offsets inside the chunk
    return rows, np.bincount(owner, minlength=len(chunks)).tolist()


def occurrences(found: Words, max_words: int = MAX_WORDS) -> Occurrences:
    """Every phrase of 1 to ``max_words`` words in ``found``, by length, then by first
    word (compiled; else vectorised, one pass per length)."""
    if _kernels is not None:
        return Occurrences(*_kernels.phrase_occurrences(
            np.ascontiguousarray(found.ids, dtype=np.uint64),
            np.ascontiguousarray(found.runs, dtype=np.int64),
            np.ascontiguousarray(found.stop, dtype=bool), max_words, int(_MIX)))
    return _occurrences_numpy(found, max_words)


def _occurrences_numpy(found: Words, max_words: int = MAX_WORDS) -> Occurrences:
    """:func:`occurrences` by numpy steps (where the extension is not built; the tests'
    reference)."""
    ids, runs, stop = found.ids, found.runs, found.stop
    hashes, firsts, lengths = [], [], []
    rolling = ids.copy()
    for n in range(1, max_words + 1):
        count = len(ids) - n + 1
        if count <= 0:
            break
        if n > 1:
            rolling = (rolling[:count] * _MIX) ^ ids[n - 1:]
        last = np.arange(n - 1, n - 1 + count)
        ok = (runs[:count] == runs[last]) & ~stop[:count] & ~stop[last]
        first = np.flatnonzero(ok)
        hashes.append(rolling[first])
        firsts.append(first)
        lengths.append(np.full(len(first), n, dtype=np.int64))
    if not hashes:
        empty = np.zeros(0, dtype=np.int64)
        return Occurrences(empty.astype(np.uint64), empty, empty)
    return Occurrences(np.concatenate(hashes), np.concatenate(firsts), np.concatenate(lengths))


def phrase_hashes(text: str, max_words: int = MAX_WORDS) -> np.ndarray:
    """The distinct candidate phrase hashes of ``text`` (for tables and titles)."""
    return sorted_unique(occurrences(words(text), max_words).hashes)


def key_hash(phrase: str) -> int | None:
    """The hash of a whole phrase as written (a gold keyword, a query): all its words,
    stop words and breaks included; None when it has no word."""
    found = words(phrase)
    if not len(found):
        return None
    value, mix = 0, int(_MIX)
    for position, word in enumerate(found.ids.tolist()):
        value = word if position == 0 else ((value * mix) & _MASK) ^ word
    return value


def normal_form(phrase: str) -> str:
    """A phrase as it is compared: its words in lower case, one space apart."""
    found = words(phrase)
    return " ".join(phrase[a:b].lower() for a, b in zip(found.starts.tolist(),
                                                        found.ends.tolist(), strict=True))


def hash_check() -> int:
    """The hash of a fixed test phrase: tables record it, so a table made with another
    tokenizer or hash is refused rather than silently mismatched."""
    value = key_hash(_CHECK_PHRASE)
    assert value is not None  # noqa: S101 - a constant phrase with words
    return value
