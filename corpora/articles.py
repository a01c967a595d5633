"""Gold texts as articles, and how alike two texts are, as the duplicate paper measures it.

Choices, and why:

- **Articles** (:func:`content_of`): a gold text is an article when its first block (up
  to a blank line) has at most :data:`MAX_TITLE_WORDS` words (the title) and the rest
  holds :data:`MIN_CONTENT_CHARS` to :data:`MAX_CONTENT_CHARS` characters (shorter is
  a stub; longer - whole reports - would drown any template around it, as a song's
  lyrics never do). Blocks are joined line by line with spaces (CleanEval's gold is
  wrapped at 70 characters); :func:`corpora.placement.paragraphs` cuts the body anew.
- **Near-duplicates** (:func:`shingles`, :func:`jaccard`): Chakrabarti, Kumar & Punera
  (6.2) shingle lower-case alphanumeric words in windows of :data:`SHINGLE_WORDS`; two
  texts with a Jaccard of their shingle sets of at least :data:`NEAR_DUPLICATE` are
  one article. Shingles are stable BLAKE2 hashes in sorted uint64 arrays (8 bytes a
  shingle: a site's pages' gold fits in a few megabytes).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

import numpy as np

from corpora.hosts import HostPage
from corpora.placement import paragraphs

SHINGLE_WORDS = 6
NEAR_DUPLICATE = 0.5  # Jaccard of shingles from which two texts are one article
MIN_CONTENT_CHARS = 500
MAX_CONTENT_CHARS = 8000
MAX_TITLE_WORDS = 20

_WORD = re.compile(r"[^\W_]+")
_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")


def shingles(text: str, words: int = SHINGLE_WORDS) -> np.ndarray:
    """The hashed ``words``-word shingles of ``text`` (lower case, alphanumeric words;
    a shorter text is one shingle): sorted distinct uint64, 8 bytes a shingle."""
    tokens = _WORD.findall(text.lower())
    grams = ([" ".join(tokens[i:i + words]) for i in range(len(tokens) - words + 1)]
             if len(tokens) >= words else [" ".join(tokens)] if tokens else [])
    return np.unique(np.fromiter(
        (int.from_bytes(hashlib.blake2b(g.encode(), digest_size=8).digest(), "big")
         for g in grams), dtype=np.uint64, count=len(grams)))


def common(a: np.ndarray, b: np.ndarray) -> int:
    """How many shingles two shingle arrays share."""
    return len(np.intersect1d(a, b, assume_unique=True))


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Jaccard similarity of two shingle arrays (0 when either is empty)."""
    shared = common(a, b)
    return shared / (len(a) + len(b) - shared) if len(a) and len(b) else 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Content:
    """A real page's gold main text as a title and a body: what duplicate pages share."""

    id: str  # the page it comes from
    site: str
    source: str
    title: str
    text: str  # paragraphs one a line
    shingles: np.ndarray = field(repr=False, compare=False)

    def paragraphs(self) -> list[str]:
        """The body in paragraphs of a few sentences (:func:`corpora.placement.paragraphs`)."""
        return paragraphs(self.text)


def content_of(page: HostPage) -> Content | None:
    """``page``'s gold as an article (first block the title), or None when it is none."""
    text = page.gold_text.replace("\r\n", "\n").replace("\r", "\n")
    blocks = [block for block in (" ".join(b.split()) for b in _BLANK_LINE.split(text)) if block]
    if len(blocks) < 2 or len(blocks[0].split()) > MAX_TITLE_WORDS:
        return None
    body = "\n".join(blocks[1:])
    if not MIN_CONTENT_CHARS <= len(body) <= MAX_CONTENT_CHARS:
        return None
    return Content(id=page.id, site=page.site, source=page.source, title=blocks[0], text=body,
                   shingles=shingles(f"{blocks[0]}\n{body}"))
