"""Building the phrase tables: document frequency over pages, query frequency over
search logs.

Query log files come in the layouts of the public logs: ``id:query`` (TREC
efficiency and million-query tracks), ``id<TAB>query`` (MS MARCO, TREC DL) and
``query<TAB>answers`` (Natural Questions); a line's layout is recognised from its
first field (digits = an id). A log sampled with repeats (TREC Terabyte 2005) gives
real query frequencies; the others count each query once. Lines are UTF-8, or
Latin-1 where they are not (some million-query lines are).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from denoise.detector import TemplateDetector
from denoise.errors import PageError
from denoise.page import Page
from kwx.document import read_document
from kwx.tables import PhraseCounter, PhraseTable
from kwx.text import MAX_WORDS, key_hash, phrase_hashes

_ID_COLON = re.compile(r"^\d+:")


def document_frequency(pages: Iterable[Page], *, detector: TemplateDetector | None = None,
                       max_words: int = MAX_WORDS, min_df: int = 1,
                       on_page: Callable[[Page], None] | None = None,
                       on_error: Callable[[PageError], None] | None = None) -> PhraseTable:
    """Pages holding each candidate phrase (of the page's body, de-noised when a
    ``detector`` is given); phrases on fewer than ``min_df`` pages left out. A page that
    cannot be parsed goes to ``on_error`` (raised without one)."""
    counter = PhraseCounter()
    for page in pages:
        try:
            text = read_document(page, detector).text
        except PageError as error:
            if on_error is None:
                raise
            on_error(error)
            continue
        counter.add(phrase_hashes(text, max_words))
        if on_page is not None:
            on_page(page)
    return counter.table(min_df)


def read_queries(path: str | os.PathLike[str]) -> Iterator[str]:
    """The queries of one log file, one per line, id and answers removed."""
    with Path(path).open("rb") as stream:
        for raw in stream:
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                line = raw.decode("latin-1")
            line = line.lstrip("\ufeff").rstrip("\r\n")
            if "\t" in line:
                first, rest = line.split("\t", 1)
                line = rest.split("\t", 1)[0] if first.strip().isdigit() else first
            else:
                line = _ID_COLON.sub("", line.strip())
            if line.strip():
                yield line.strip()


def query_frequency(queries: Iterable[str], max_words: int = MAX_WORDS,
                    min_count: int = 1) -> tuple[PhraseTable, PhraseTable]:
    """Two tables over a stream of queries (repeats count): how often each phrase is a
    whole query, and in how many queries each candidate phrase occurs."""
    whole, parts = PhraseCounter(), PhraseCounter()
    batch: list[int] = []
    for query in queries:
        value = key_hash(query)
        if value is None:
            continue
        batch.append(value)
        parts.add(phrase_hashes(query, max_words))
        if len(batch) >= 100_000:
            whole.add_many(np.array(batch, dtype=np.uint64))
            batch = []
    whole.add_many(np.array(batch, dtype=np.uint64))
    return whole.table(min_count), parts.table(min_count)
