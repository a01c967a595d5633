"""A page as the keyword extractor sees it: its kept text, where that text came from
(anchor, heading, a block's template score), and the page's title and meta tags.

One parse per page. Without a detector every block of the page's body is kept and
every template score is 0; with one, the blocks it calls template at its operating
point are removed (Kołcz & Yih's DN) and the kept text carries each block's
smoothed score, a feature the ranker may use.

Keywords are taken from at most the first :data:`MAX_TEXT_CHARS` characters of the
kept text. Finding and ranking candidates costs some 30 bytes a character of ordinary
prose and 90 of text whose every word is new (the phrase occurrences, their grouping,
a feature row per distinct phrase: ``benchmarks/page_memory.py``), so a page of 20 MB
of prose took 835 MB before the cap, and one of new words 3 GB. An advertising keyword
list needs no more than a page's first 150,000 words or so, where its keywords are
anyway (the ranker weighs first positions); the cap keeps the worst page of new words
under 600 MB a process. Of the pages of the shared corpora's site archives and
content-dev it changes four, manuals of book length on one page, with 1.2 to 2.1
million characters of text (8 or 9 of their 10 best keywords stay).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

from denoise.blocks import PageBlocks
from denoise.cleaning import Cleaned, Cleaner, Mode
from denoise.detector import PageScores, TemplateDetector, block_lines
from denoise.language import SAMPLE_CHARS
from denoise.page import Page

try:
    from kwx import _kernels
except ImportError:  # the compiled extension is optional
    _kernels = None

_HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
#: The most characters of a page's kept text that keywords are taken from (see the
#: module notes): ~150,000 words of English. The text is cut at its last space or line
#: break before this, so no part of a word is left at the end.
MAX_TEXT_CHARS = 1_000_000
#: A reference mark, a chunk of its own ("[1]" in a wiki's ``<sup><a>``; "[a]" a note):
#: glued to the word before it, "Foundation[2][3]" would be one word, no candidate.
_REFERENCE = re.compile(r"\[(?:\d{1,3}|[a-z])\]")


@dataclass(frozen=True, slots=True, kw_only=True)
class KeywordDocument:
    """The text keywords are taken from, chunk by chunk.

    ``text`` joins the kept chunks (:func:`denoise.detector.block_lines`): neighbours in
    a block as the page text has them (glued inside a word, else one space apart), other
    chunks of a block one space apart, a line break between blocks (a break no phrase
    crosses). Per-chunk arrays line up with ``chunk_starts``.
    """

    page: Page
    text: str
    chunk_starts: np.ndarray  # int64: offset of each kept chunk in ``text``
    chunk_link: np.ndarray  # bool: anchor text
    chunk_heading: np.ndarray  # bool: inside h1-h6
    chunk_template: np.ndarray  # float64: the block's template score (0 without a detector)
    title: str
    meta_keywords: str
    meta_description: str
    removed_chars: int  # characters of body text removed (as template; reference marks)
    #: the start of the whole page's text (kept or not): its language where the kept
    #: text is too short to tell (:func:`kwx.text.page_language`)
    page_start: str = ""
    #: the language the page's ``<html lang>`` declares, weighed against that text's
    declared_language: str = ""

    def chunk_of(self, offsets: np.ndarray) -> np.ndarray:
        """The kept chunk holding each character offset of ``text``."""
        return np.maximum(np.searchsorted(self.chunk_starts, offsets, side="right") - 1, 0)


def read_document(page: Page, detector: TemplateDetector | None = None) -> KeywordDocument:
    """Parse ``page`` once and keep its body text, without the template blocks when a
    ``detector`` is given (mode ``page`` at its operating point; else ``none``)."""
    mode = Mode.none if detector is None else Mode.page
    return kept_document(Cleaner(mode, detector=detector)(page))


def kept_document(cleaned: Cleaned) -> KeywordDocument:
    """The text keywords are taken from: what the de-noising step kept of the page
    (:class:`denoise.cleaning.Cleaned`) but its reference marks (:data:`_REFERENCE`),
    with each kept chunk's block score (0 in modes that score no block) and the page's
    head texts."""
    blocks = cleaned.blocks
    keep, offsets, link, heading, template, removed = _kept_chunks(
        blocks, cleaned.keep & ~_references(blocks), cleaned.scores)
    text, chunks = _within_cap(blocks, keep, (offsets, link, heading, template))
    offsets, link, heading, template = chunks
    return KeywordDocument(page=cleaned.page, text=text,
                           chunk_starts=offsets, chunk_link=link, chunk_heading=heading,
                           chunk_template=template, title=cleaned.title,
                           meta_keywords=cleaned.meta_keywords,
                           meta_description=cleaned.meta_description, removed_chars=removed,
                           page_start=blocks.text[:SAMPLE_CHARS],
                           declared_language=cleaned.declared_language)


def _references(blocks: PageBlocks) -> np.ndarray:
    """Per chunk: a reference mark alone ("[1]", :data:`_REFERENCE`), which no keyword
    holds; a page without a "[" has none (the one search most pages cost)."""
    found = np.zeros(len(blocks.chunk_starts), dtype=bool)
    if "[" not in blocks.text:
        return found
    starts = blocks.chunk_starts.tolist()
    ends = blocks.chunk_ends.tolist()
    for match in _REFERENCE.finditer(blocks.text):
        at = bisect_right(starts, match.start()) - 1
        if at >= 0 and starts[at] == match.start() and ends[at] == match.end():
            found[at] = True
    return found


def _within_cap(blocks: PageBlocks, keep: np.ndarray, chunks: tuple[np.ndarray, ...],
                ) -> tuple[str, tuple[np.ndarray, ...]]:
    """The text of the kept chunks (``keep``) up to :data:`MAX_TEXT_CHARS`, and the
    per-kept-chunk arrays ``chunks`` (the first: where each starts in the text) of the
    chunks that start inside it. Chunks starting past the cap are left out before the
    text is made, so it is never made whole."""
    offsets = chunks[0]
    limit = MAX_TEXT_CHARS
    if len(offsets) and offsets[-1] > limit:
        inside = int(np.searchsorted(offsets, limit))
        keep = keep.copy()
        keep[np.flatnonzero(keep)[inside:]] = False
        chunks = tuple(values[:inside] for values in chunks)
    text = block_lines(blocks, keep)
    if len(text) > limit:  # its last chunk runs past the cap
        text = text[:_cut(text, limit)]
        inside = int(np.searchsorted(chunks[0], len(text)))
        chunks = tuple(values[:inside] for values in chunks)
    return text, chunks


def _cut(text: str, limit: int) -> int:
    """Where to cut ``text`` to at most ``limit`` characters: at its last space or line
    break up to ``limit`` (chunks are single words apart), inside a word only when the
    first ``limit + 1`` characters hold no break. Never 0: a chunk starts each text."""
    at = max(text.rfind(" ", 0, limit + 1), text.rfind("\n", 0, limit + 1))
    return at if at > 0 else limit


def _kept_chunks(blocks: PageBlocks, keep: np.ndarray, scores: PageScores | None,
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Per chunk whether it is kept (``keep``, within the body's blocks); per kept chunk
    where :func:`block_lines` puts it, whether it is anchor text, in a heading, and its
    block's score; and the characters of body text removed. One compiled pass where
    built, else numpy steps."""
    if _kernels is None:
        return _kept_chunks_numpy(blocks, keep, scores)
    block_scores = np.zeros(0) if scores is None else scores.block_scores
    keep, offsets, link, heading, template, removed = _kernels.kept_chunks(
        blocks.chunk_block.astype(np.int32, copy=False),
        blocks.chunk_starts.astype(np.int64, copy=False),
        blocks.chunk_ends.astype(np.int64, copy=False),
        blocks.chunk_in_link.astype(bool, copy=False),
        np.ascontiguousarray(keep, dtype=bool),
        np.ascontiguousarray(block_scores, dtype=np.float64),
        blocks.has_tag(_HEADINGS))
    return keep, offsets, link, heading, template, int(removed)


def _kept_chunks_numpy(blocks: PageBlocks, keep: np.ndarray, scores: PageScores | None,
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """:func:`_kept_chunks` by numpy steps (the tests' reference)."""
    in_body = blocks.chunk_block >= 0
    keep = keep & in_body
    if scores is None:
        template = np.zeros(len(blocks.chunk_block))
    else:
        template = np.append(scores.block_scores, 0.0)[blocks.chunk_block]
    kept = np.flatnonzero(keep)
    starts, ends = blocks.chunk_starts, blocks.chunk_ends
    lengths = (ends - starts)[kept]
    owners = blocks.chunk_block[kept]
    offsets = np.zeros(len(kept), dtype=np.int64)  # where block_lines puts each chunk
    if len(kept):  # after a neighbour of its block, what the page text has between them
        # (nothing or a space); else a separator (a space, or a line break)
        run_on = (kept[1:] == kept[:-1] + 1) & (owners[1:] == owners[:-1])
        separators = np.where(run_on, starts[kept[1:]] - ends[kept[:-1]], 1)
        offsets[1:] = np.cumsum(lengths[:-1] + separators)
    heading = np.append(blocks.has_tag(_HEADINGS), False)[owners]  # -1, no block: False
    removed = int(((ends - starts)[in_body & ~keep]).sum())
    return (keep, offsets, blocks.chunk_in_link[kept], heading,
            template[kept].astype(np.float64), removed)
