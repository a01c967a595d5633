"""kwx's words of a text (its imitation of spaCy's tokenizer) against spaCy's public API.

Run: python benchmarks/tokenizer_ab.py [--limit 175] [--rounds 3] [--batch-size 1000]
                                       [--contenders a,b] [--no-denoise] [--markdown FILE]

The question of issue 29: is the imitation of spaCy's tokenizer inside kwx (the
shortcuts of ``kwx.spacy_rules`` past it for chunks ``kwx.text``'s chunk cache has not
seen: rows of plain words, cuts by shape, the tokenizer's set-up with its suffix search,
and their compiled parts in ``kwx/_kernels.pyx``) worth its risk?
The step timed is :func:`kwx.text.words` on the texts ``kwx extract`` gives it (a page's
kept text and its head lines, joined as :func:`kwx.candidates._words_with` joins them),
against the same words made with spaCy's public API alone:

- ``kwx``: :func:`kwx.text.words` as shipped;
- ``kwx-noshapes``: the same without cuts by shape (``ShapeCuts.enabled`` off), and
  ``kwx-noshapes-spacytok`` also with an untouched ``spacy.blank("en")`` tokenizer
  (spaCy's suffix search, every lexeme attribute): what each part of the imitation
  saves (the rest, rows made without spaCy for chunks of ASCII letters or digits alone,
  is the gap to ``spacy-kwxcache``);
- ``kwx-off``: :func:`kwx.text.words` with every shortcut off (``kwx.spacy_rules.ENABLED``
  False when its tokenizer and shortcuts are made): what kwx does under a spaCy whose
  rules are not the ones the imitation was checked on;
- ``spacy-whole``: ``nlp.tokenizer(text)`` of the whole text and ``Doc.to_array`` of the
  same attributes (spaCy's own cache of the chunks it has seen is all the caching);
- ``spacy-pipe``: a dict of our own, space-delimited chunk -> its token rows; the
  chunks not in it are tokenized one ``Doc`` each by ``nlp.tokenizer.pipe`` and read by
  ``Doc.to_array``;
- ``spacy-lines``: the same dict, the new chunks of a page tokenized by one
  ``nlp.tokenizer`` call, one chunk a line (as kwx asks spaCy for the chunks it cannot
  cut itself);
- ``spacy-kwxcache``: kwx's own chunk cache (its compiled lookup and assembly of a
  page's words, which imitate nothing of spaCy's) with every chunk it has not seen
  tokenized as ``spacy-lines`` does: what kwx would be without the imitation.

The spaCy contenders use an untouched ``spacy.blank("en")`` (every lexeme
attribute, spaCy's own suffix search). The words' breaks, joiners and the 2,000
character cap on a chunk are kwx's rules, written again here over the rows spaCy gives.

The pages: the content-dev sets, evenly sampled (``--limit`` a set), their text kept as
``KeywordExtractor.load()`` keeps it (with the shipped detector unless ``--no-denoise``).
Each round starts every contender with empty caches (and a new tokenizer), runs the
pages once (``cold``: caches filling, as at a crawl's start; its second half of the
pages apart, caches part full) and again (``warm``: every chunk seen), page by page,
the contenders in turns (their order rotating by round), so each sees the same machine
state. CPU time per page, the median ratio of the rounds, and whether every
contender's words and phrase hashes are kwx's, page by page. Last,
``KeywordExtractor.extract`` of each page once (kwx's caches emptied first), for the
share of a page's whole cost that the step is.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import itertools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for folder in (ROOT, HERE):  # run as `python benchmarks/tokenizer_ab.py` without installing
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from benchmarks_common import emit  # noqa: E402

import kwx.text as kwx_text  # noqa: E402
from corpora.content import iter_content_pages  # noqa: E402
from denoise.arrays import ragged_arange, sorted_unique  # noqa: E402
from denoise.page import Page  # noqa: E402
from kwx import spacy_rules  # noqa: E402
from kwx.candidates import _head_lines  # noqa: E402
from kwx.document import read_document  # noqa: E402
from kwx.extractor import KeywordExtractor  # noqa: E402
from kwx.text import MAX_SPACY_CHUNK_CHARS, Words, occurrences, words  # noqa: E402

#: spaCy's attributes read per token: lexeme hash of the lower case, five flags, then
#: the offset, the length and whether a space follows.
ATTRS = ["LOWER", "IS_PUNCT", "IS_SPACE", "IS_STOP", "IS_TITLE", "IS_UPPER", "IDX", "LENGTH",
         "SPACY"]
#: Tokens that join two words when glued to both (kwx's rule: "3-Day", "AT&T").
JOINERS = frozenset("-/&'\u2019")
#: Columns of a row: the nine attributes, then has-a-letter-or-digit and is-a-joiner.
_IDX, _LENGTH, _SPACY, _ALNUM, _JOINER = 6, 7, 8, 9, 10
COLUMNS = 11
EMPTY = np.zeros((0, COLUMNS), dtype=np.uint64)


def doc_rows(doc) -> np.ndarray:
    """A Doc's token rows (tokens x :data:`COLUMNS`, uint64), by ``Doc.to_array``."""
    if not len(doc):
        return EMPTY
    rows = np.empty((len(doc), COLUMNS), dtype=np.uint64)
    rows[:, :9] = doc.to_array(ATTRS)
    tokens = [token.text for token in doc]
    rows[:, _ALNUM] = [any(c.isalnum() for c in t) for t in tokens]
    rows[:, _JOINER] = [t in JOINERS for t in tokens]
    return rows


def words_of_rows(rows: np.ndarray, starts: np.ndarray, glued_after: np.ndarray,
                  newline: np.ndarray) -> Words:
    """kwx's words from token rows: a token with a letter or digit that is neither
    punctuation nor space is a word; a joiner glued between two words is dropped; any
    other token that is not a word, and a line break, is a break."""
    punct, space, stop, title, upper = (rows[:, k].astype(bool) for k in range(1, 6))
    wordlike = ~punct & ~space & rows[:, _ALNUM].astype(bool)
    before = np.concatenate(([False], wordlike[:-1] & glued_after[:-1]))
    after = np.concatenate((wordlike[1:], [False]))
    joiner = ~wordlike & before & glued_after & after & rows[:, _JOINER].astype(bool)
    runs = np.cumsum((~wordlike & ~joiner).astype(np.int64) + newline)
    ends = starts + rows[:, _LENGTH].astype(np.int64)
    keep = wordlike
    return Words(rows[keep, 0], runs[keep], stop[keep], (title | upper)[keep],
                 upper[keep] & (ends - starts >= 2)[keep], starts[keep], ends[keep])


def no_words() -> Words:
    empty = np.zeros(0, dtype=np.int64)
    return Words(empty.astype(np.uint64), empty, empty.astype(bool), empty.astype(bool),
                 empty.astype(bool), empty, empty)


def has_empty_chunk(text: str) -> bool:
    """Whether the text is not single-space-separated chunks on lines."""
    return (not text or text[0] in " \n" or text[-1] in " \n" or "  " in text
            or " \n" in text or "\n " in text or "\n\n" in text)


class SpacyWhole:
    """The whole text through ``nlp.tokenizer``, rows by ``Doc.to_array``."""

    def __init__(self) -> None:
        import spacy

        self.tokenize = spacy.blank("en").tokenizer

    def words(self, text: str) -> Words:
        rows = doc_rows(self.tokenize(text))
        if not len(rows):
            return no_words()
        starts = rows[:, _IDX].astype(np.int64)
        return words_of_rows(rows, starts, rows[:, _SPACY] == 0,
                             np.zeros(len(rows), dtype=np.int64))


class SpacyChunks(SpacyWhole):
    """A dict of our own, chunk -> number, and one growing table of the chunks' rows;
    new chunks by ``nlp.tokenizer.pipe`` (one Doc a chunk) or, with ``lines``, by one
    ``nlp.tokenizer`` call, a chunk a line."""

    def __init__(self, batch_size: int, *, lines: bool) -> None:
        super().__init__()
        self.batch_size = batch_size
        self.lines = lines
        self.number: dict[str, int] = {}
        self.first = np.zeros(1024, dtype=np.int64)  # first row of each chunk
        self.count = np.zeros(1024, dtype=np.int64)  # rows of each chunk
        self.table = np.zeros((4096, COLUMNS), dtype=np.uint64)
        self.used = 0

    def words(self, text: str) -> Words:
        if has_empty_chunk(text):  # then spaCy's whitespace rules apply
            return super().words(text)
        chunks = [line.split(" ") for line in text.split("\n")]
        flat = [chunk for line in chunks for chunk in line]
        number = self.number
        new = list({chunk: None for chunk in flat if chunk not in number})
        if new:
            self._add(new)
        numbers = np.fromiter(map(number.__getitem__, flat), dtype=np.int64, count=len(flat))
        counts = self.count[numbers]
        rows = self.table[ragged_arange(self.first[numbers], counts)]
        if not len(rows):
            return no_words()
        lengths = np.fromiter(map(len, flat), dtype=np.int64, count=len(flat))
        chunk_starts = np.zeros(len(flat), dtype=np.int64)
        np.cumsum(lengths[:-1] + 1, out=chunk_starts[1:])
        owner = np.repeat(np.arange(len(flat)), counts)
        starts = chunk_starts[owner] + rows[:, _IDX].astype(np.int64)
        last = np.cumsum(counts) - 1
        glued_after = rows[:, _SPACY] == 0
        glued_after[last[counts > 0]] = False  # a space or line break follows a chunk
        line_sizes = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
        line_first = np.cumsum(line_sizes)[:-1]  # the first chunk of every line but one
        newline = np.zeros(len(rows), dtype=np.int64)
        newline[(np.cumsum(counts) - counts)[line_first]] = 1
        return words_of_rows(rows, starts, glued_after, newline)

    def _add(self, chunks: list[str]) -> None:
        if self.lines:
            made = rows_by_lines(self.tokenize, chunks)
        else:
            cut = [chunk[:MAX_SPACY_CHUNK_CHARS] for chunk in chunks]  # kwx's cap on a chunk
            made = [doc_rows(doc) for doc in self.tokenize.pipe(cut, batch_size=self.batch_size)]
        rows = np.concatenate(made)
        counts = np.fromiter(map(len, made), dtype=np.int64, count=len(made))
        start = len(self.number)
        end = start + len(chunks)
        if end > len(self.first):  # room by doubling, as a list grows
            size = max(end, 2 * len(self.first))
            self.first = np.resize(self.first, size)
            self.count = np.resize(self.count, size)
        if self.used + len(rows) > len(self.table):
            grown = np.empty((max(self.used + len(rows), 2 * len(self.table)), COLUMNS),
                             dtype=np.uint64)
            grown[:self.used] = self.table[:self.used]
            self.table = grown
        self.table[self.used:self.used + len(rows)] = rows
        self.first[start:end] = self.used + np.cumsum(counts) - counts
        self.count[start:end] = counts
        self.used += len(rows)
        self.number.update(zip(chunks, range(start, end), strict=True))



def rows_by_lines(tokenize, chunks: list[str]) -> list[np.ndarray]:
    """Each chunk's rows, from one Doc of the chunks a line apart (the line break tokens
    between them dropped, offsets made the chunk's own), each cut at kwx's cap."""
    chunks = [chunk[:MAX_SPACY_CHUNK_CHARS] for chunk in chunks]
    rows = doc_rows(tokenize("\n".join(chunks)))
    lengths = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
    starts = np.zeros(len(chunks), dtype=np.int64)
    np.cumsum(lengths[:-1] + 1, out=starts[1:])
    offsets = rows[:, _IDX].astype(np.int64)
    owner = np.searchsorted(starts, offsets, side="right") - 1
    inside = offsets < (starts + lengths)[owner]
    rows, owner = rows[inside], owner[inside]
    rows[:, _IDX] -= starts[owner].astype(np.uint64)
    bounds = np.searchsorted(owner, np.arange(len(chunks) + 1))
    return [rows[a:b] for a, b in itertools.pairwise(bounds)]


#: Our columns in the order of kwx's rows (``kwx.text``: the six attributes, the two
#: flags, then offset, length, space after).
KWX_ORDER = [0, 1, 2, 3, 4, 5, _ALNUM, _JOINER, _IDX, _LENGTH, _SPACY]


class KwxCachePublic(kwx_text._ChunkTokens):
    """kwx's own chunk cache (its compiled chunk lookup and word assembly), but every
    chunk it has not seen goes to spaCy's public API (:func:`rows_by_lines`): no rows
    predicted for plain words, no cuts by shape, spaCy's own suffix search."""

    tokenize = None  # set on the instance

    def _add(self, chunks: list[str]) -> None:
        made = rows_by_lines(self.tokenize, chunks)
        rows = np.concatenate(made)[:, KWX_ORDER]
        self._append(chunks, rows, np.fromiter(map(len, made), dtype=np.int64,
                                               count=len(made)))


class SpacyKwxCache(SpacyWhole):
    """:class:`KwxCachePublic` for texts of chunks on lines, the whole text else."""

    def __init__(self) -> None:
        super().__init__()
        self.cache = KwxCachePublic(kwx_text._MAX_CHUNKS)
        self.cache.tokenize = self.tokenize

    def words(self, text: str) -> Words:
        found = self.cache.words(text)
        return found if found is not None else super().words(text)


#: kwx.text's cached module functions that hold its tokenizer's state.
_STATE = ("tokenizer", "_chunk_tokens", "_imitation")
_SHIPPED = {name: getattr(kwx_text, name).__wrapped__ for name in _STATE}


class Kwx:
    """:func:`kwx.text.words` with caches of its own (kwx.text's cached functions, put in
    place by :meth:`enter` before each call, outside the timing): as shipped, or with
    parts of the imitation (kwx.spacy_rules) switched off. ``shapes``: cuts by shape;
    ``own_tokenizer``: kwx's tokenizer set-up (its suffix search and its six lexeme
    attributes) rather than an untouched ``spacy.blank("en")``; ``imitation``: any
    shortcut at all (False: every one off, as its guard turns them off)."""

    def __init__(self, *, shapes: bool = True, own_tokenizer: bool = True,
                 imitation: bool = True) -> None:
        bodies = dict(_SHIPPED)
        if not own_tokenizer or not imitation:
            bodies["tokenizer"] = plain_tokenizer
        if not shapes:
            def no_shapes():
                made = _SHIPPED["_imitation"]()
                made.by_shape.enabled = False
                return made

            bodies["_imitation"] = no_shapes
        if not imitation:
            def switched_off():
                spacy_rules.ENABLED = False
                try:
                    return _SHIPPED["_imitation"]()
                finally:
                    spacy_rules.ENABLED = True

            bodies["_imitation"] = switched_off
        self.state = {name: functools.cache(body) for name, body in bodies.items()}
        self.enter()
        for name in ("tokenizer", "_imitation", "_chunk_tokens"):  # built untimed
            self.state[name]()

    def enter(self) -> None:
        for name, cached in self.state.items():
            setattr(kwx_text, name, cached)

    @staticmethod
    def words(text: str) -> Words:
        return words(text)


def plain_tokenizer():
    import spacy

    return spacy.blank("en").tokenizer


def reset_kwx() -> None:
    """kwx.text as shipped, its caches empty (a new spaCy tokenizer, chunk cache and
    shapes), built outside any timing."""
    Kwx()


def run(contender: object, text: str) -> Words:
    """A contender's words of ``text`` (untimed: a kwx variant's state put in place)."""
    if isinstance(contender, Kwx):
        contender.enter()
    return contender.words(text)


def step_texts(document) -> list[str]:
    """The texts ``find_candidates`` gives :func:`kwx.text.words` for a document."""
    lines, _ = _head_lines((document.title, document.meta_keywords, document.meta_description))
    if document.text and lines:
        return [document.text + "\n" + "\n".join(lines)]
    return [document.text, "\n".join(lines)]


def digest(found: list[Words]) -> bytes:
    """What a page's words and phrase hashes are, in 16 bytes."""
    h = hashlib.blake2b(digest_size=16)
    for w in found:
        for array in (w.ids, w.runs, w.stop, w.capitalized, w.upper, w.starts, w.ends):
            h.update(np.ascontiguousarray(array).tobytes())
        h.update(sorted_unique(occurrences(w).hashes).tobytes())
    return h.digest()


def first_difference(text: str, mine: Words, theirs: Words) -> str:
    """Where two words of a text first differ, as a line for the report."""
    n = min(len(mine), len(theirs))
    for field in ("starts", "ends", "ids", "runs", "stop", "capitalized", "upper"):
        a, b = getattr(mine, field)[:n], getattr(theirs, field)[:n]
        wrong = np.flatnonzero(a != b)
        if len(wrong):
            i = int(wrong[0])
            at = int(min(mine.starts[i], theirs.starts[i]))
            return (f"word {i} ({field}): kwx {text[mine.starts[i]:mine.ends[i]]!r} vs "
                    f"{text[theirs.starts[i]:theirs.ends[i]]!r} near "
                    f"{text[max(at - 30, 0):at + 40]!r}")
    if len(mine) != len(theirs):
        return f"kwx has {len(mine)} words, the other {len(theirs)}"
    return "the words are the same; the phrase hashes differ"


CONTENDERS: dict[str, Callable[[int], object]] = {
    "kwx": lambda batch: Kwx(),
    "kwx-noshapes": lambda batch: Kwx(shapes=False),
    "kwx-noshapes-spacytok": lambda batch: Kwx(shapes=False, own_tokenizer=False),
    "kwx-off": lambda batch: Kwx(imitation=False),
    "spacy-whole": lambda batch: SpacyWhole(),
    "spacy-pipe": lambda batch: SpacyChunks(batch, lines=False),
    "spacy-lines": lambda batch: SpacyChunks(batch, lines=True),
    "spacy-kwxcache": lambda batch: SpacyKwxCache(),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=175, help="pages a content set")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=1000, help="of tokenizer.pipe")
    parser.add_argument("--no-denoise", action="store_true",
                        help="keep every block (no template detector)")
    parser.add_argument("--markdown", type=Path, default=None)
    parser.add_argument("--contenders", default=",".join(CONTENDERS),
                        help="which to run (kwx always runs)")
    args = parser.parse_args()
    if args.limit < 1 or args.rounds < 1 or args.batch_size < 1:
        parser.error("--limit, --rounds and --batch-size must be positive")
    names = ["kwx"] + [n for n in CONTENDERS if n != "kwx" and n in args.contenders.split(",")]
    unknown = set(args.contenders.split(",")) - set(CONTENDERS)
    if unknown:
        parser.error(f"unknown contender(s) {sorted(unknown)}; known: {', '.join(CONTENDERS)}")

    pages = [Page(id=f"{g.set_name}/{g.page_id}", html=g.html, url=g.url)
             for g in iter_content_pages(limit=args.limit)]
    extractor = KeywordExtractor.load(denoise=not args.no_denoise)
    texts = [step_texts(read_document(page, extractor.detector)) for page in pages]
    chars = sum(len(t) for each in texts for t in each)
    # cpu[name][pass] per round; digests[name][page] over every round and pass
    cpu = {name: {"cold": [], "late": [], "warm": []} for name in names}
    half = len(texts) // 2
    digests: dict[str, list[set[bytes]]] = {name: [set() for _ in pages] for name in names}
    for turn in range(args.rounds):
        order = names[turn % len(names):] + names[:turn % len(names)]
        made = {name: CONTENDERS[name](args.batch_size) for name in order}
        for pass_name in ("cold", "warm"):
            spent = dict.fromkeys(order, 0.0)
            late = dict.fromkeys(order, 0.0)  # the cold pass's second half of the pages
            for index, each in enumerate(texts):
                for name in order:
                    contender = made[name]
                    if isinstance(contender, Kwx):
                        contender.enter()
                    step = contender.words
                    start = time.process_time()
                    found = [step(t) for t in each]
                    took = time.process_time() - start
                    spent[name] += took
                    if index >= half:
                        late[name] += took
                    digests[name][index].add(digest(found))
            for name in order:
                cpu[name][pass_name].append(spent[name])
                if pass_name == "cold":
                    cpu[name]["late"].append(late[name])
        print(f"round {turn + 1}: " + ", ".join(
            f"{n} {cpu[n]['cold'][-1]:.1f}/{cpu[n]['warm'][-1]:.1f} s" for n in names),
            file=sys.stderr)

    # the whole command's work on each page once, kwx's caches empty
    reset_kwx()
    start = time.process_time()
    for page in pages:
        extractor.extract(page)
    whole = time.process_time() - start

    per_page = 1e6 / len(pages)
    lines = [f"### kwx.text.words against spaCy's public API: {len(pages)} content-dev pages "
             f"({chars / len(pages):,.0f} characters of step text a page, "
             f"{'no detector' if args.no_denoise else 'de-noised'}), {args.rounds} rounds",
             "", "| contender | cold us/page | cold, 2nd half | warm us/page | cold / kwx | "
             "cold 2nd half / kwx | warm / kwx | same words and hashes as kwx |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    examples = []
    for name in names:
        ratios = {p: [c / k for c, k in zip(cpu[name][p], cpu["kwx"][p], strict=True)]
                  for p in ("cold", "late", "warm")}
        bad = [i for i, (mine, theirs) in enumerate(zip(digests["kwx"], digests[name],
                                                        strict=True))
               if len(mine) != 1 or mine != theirs]
        if bad and name != "kwx":
            i = bad[0]
            shipped, other = Kwx(), CONTENDERS[name](args.batch_size)
            both = [(t, run(shipped, t), run(other, t)) for t in texts[i]]
            detail = "; ".join(first_difference(t, mine, theirs) for t, mine, theirs in both
                               if digest([mine]) != digest([theirs]))
            examples.append(f"- {name}, page {pages[i].id}: {detail or 'only in some runs'}")
        elif bad:
            examples.append(f"- kwx itself gave {len(bad)} pages different words from one "
                            f"run to another (first: {pages[bad[0]].id})")
        lines.append(
            f"| {name} | {statistics.median(cpu[name]['cold']) * per_page:,.0f} | "
            f"{statistics.median(cpu[name]['late']) * 1e6 / (len(pages) - half):,.0f} | "
            f"{statistics.median(cpu[name]['warm']) * per_page:,.0f} | "
            f"{statistics.median(ratios['cold']):.2f} "
            f"({min(ratios['cold']):.2f}-{max(ratios['cold']):.2f}) | "
            f"{statistics.median(ratios['late']):.2f} "
            f"({min(ratios['late']):.2f}-{max(ratios['late']):.2f}) | "
            f"{statistics.median(ratios['warm']):.2f} "
            f"({min(ratios['warm']):.2f}-{max(ratios['warm']):.2f}) | "
            f"{'yes, every page' if not bad else f'NO: {len(bad)} pages differ'} |")
    kwx_cold = statistics.median(cpu["kwx"]["cold"])
    lines += ["", f"`KeywordExtractor.extract`, once a page, kwx's caches empty first: "
              f"{whole * per_page:,.0f} us/page; kwx's step (cold) is "
              f"{100 * kwx_cold / whole:.1f}% of it."]
    for name in names[1:]:
        extra = statistics.median(cpu[name]["cold"]) - kwx_cold
        lines.append(f"- with {name} instead, a page would cost "
                     f"{100 * extra / whole:+.1f}% ({extra * per_page:+,.0f} us/page, cold).")
    if examples:
        lines += ["", "Differences (first page of each contender):", *examples]
    emit("\n".join(lines), args.markdown)


if __name__ == "__main__":
    main()
