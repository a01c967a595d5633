"""Near-duplicate pages of a batch of any size: the pipeline behind ``mining dedup``.

:func:`find_duplicates` reads the inputs, works out each page's words on worker
processes (its text under the config's ``denoise`` mode:
:class:`mining.content.PageWords`), shingles and sketches the pages a batch at a time,
and keeps the sketches, page ids and join keys on disk in a private temporary folder
(:mod:`mining.sketchfiles`), so memory does not grow with the input; the matches are
found one bucket of keys at a time (:mod:`mining.spill`). Given a ``checkpoint``
folder, the sketches are also saved there as they are made (:mod:`engine.checkpoint`):
after an interruption, ``resume=True`` sketches only the pages the first run had not
reached. :func:`engine.spark_dedup.dedup_on_spark` finds the same on Apache Spark.

What a run found (:class:`Duplicates`) is data: pairs and clusters of page ids
(:class:`DuplicatePair`, :class:`DuplicateCluster`), or the rows
(:class:`~mining.matches.Matches`). Writing them out is the caller's business
(``mining dedup`` writes JSON lines).

Example::

    with find_duplicates(["pages/"], DedupConfig(), jobs=2) as found:
        for pair in found.pairs():
            print(pair.a, pair.b, pair.similarity)
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import numpy as np

from denoise.cleaning import Mode
from denoise.decode import DEFAULT_MAX_BYTES
from denoise.errors import PageError
from denoise.page import Page
from denoise.reader import Skipped, read_pages
from engine.batch import default_jobs, map_pages, skip_reason
from engine.checkpoint import CHECKPOINT_PAGES, SketchCheckpoint, SketchState
from mining.content import PageWords, page_texts
from mining.dedup import DedupConfig, NearDuplicateIndex
from mining.matches import Matches, iter_pairs
from mining.shingles import shingles_of_words, word_hashes
from mining.sketchfiles import SketchFiles
from mining.spill import match_files, sketch_files

__all__ = ["NO_WORDS", "SKETCH_BATCH", "DuplicateCluster", "DuplicatePair", "Duplicates",
           "find_duplicates"]

#: Pages sketched together (one numpy product each): large enough to amortise the
#: per-call cost, small enough that a page's shingles are not held for long.
SKETCH_BATCH = 256
#: Why a page without words is skipped (its ``PageError``'s reason).
NO_WORDS = "no words to shingle"

#: What is told of an input item that is skipped: unreadable, or a page that cannot be
#: parsed.
OnSkip = Callable[[Skipped | PageError], None]


@dataclass(frozen=True, slots=True)
class DuplicatePair:
    """Two pages found alike: ``a`` of the batch, ``b`` of the batch too or, when
    ``indexed``, of the index. ``similarity`` is the estimated Jaccard similarity of
    their shingle sets, ``shared`` the matching hashes (the paper's rule) or the equal
    MinHash values (lsh)."""

    a: str
    b: str
    similarity: float
    shared: int
    indexed: bool


@dataclass(frozen=True, slots=True)
class DuplicateCluster:
    """Pages that are duplicates of each other, directly or through other pages: the
    batch's (``pages``, in input order) and the index's (``indexed``). ``similarity``
    is the lowest similarity of the pairs that link them."""

    pages: list[str]
    indexed: list[str]
    similarity: float

    @property
    def size(self) -> int:
        """How many pages it holds."""
        return len(self.pages) + len(self.indexed)


class Duplicates:
    """What a run found among the pages it sketched, and between them and its index.

    ``ids`` are the sketched pages' ids by row, in input order; ``skipped`` the input
    items that were not sketched (unreadable, unparsable, or without words: reason
    :data:`NO_WORDS`); ``short`` how many pages were shorter than a shingle (each
    shingled whole); ``resumed_items`` and ``resumed_pages`` what an interrupted run had
    done already (input items, of which pages sketched; their skips are not in
    ``skipped``). From :func:`find_duplicates`, it reads the run's temporary files:
    use it inside the ``with`` block.
    """

    def __init__(self, index: NearDuplicateIndex, ids: Sequence[str], *, short: int,
                 skipped: list[Skipped | PageError], match: Callable[[], Matches | None],
                 sketches: Callable[[], np.ndarray], resumed_items: int = 0,
                 resumed_pages: int = 0) -> None:
        self.index = index
        self.ids = ids
        self.short = short
        self.skipped = skipped
        self.resumed_items = resumed_items
        self.resumed_pages = resumed_pages
        self._match = match
        self._sketches = sketches
        self._matches: Matches | None = None
        self._matched = False

    @property
    def config(self) -> DedupConfig:
        """The parameters the pages were sketched and matched with (the index's)."""
        return self.index.config

    def matches(self) -> Matches | None:
        """The duplicate pairs by batch row (and index row), matched on the first call;
        None when no page was sketched."""
        if not self._matched:
            self._matches = self._match()
            self._matched = True
        return self._matches

    def pairs(self) -> Iterator[DuplicatePair]:
        """Every duplicate pair, by ``a``'s row, batch pairs before index pairs, then
        by ``b``'s row."""
        matches = self.matches()
        if matches is None:
            return
        indexed_ids = self.index.ids
        for a, b, indexed, similarity, shared in iter_pairs(matches.pairs()):
            yield DuplicatePair(self.ids[a], indexed_ids[b] if indexed else self.ids[b],
                                similarity, shared, indexed)

    def clusters(self) -> Iterator[DuplicateCluster]:
        """The clusters of duplicates (connected components of the pairs), by their
        first page."""
        matches = self.matches()
        if matches is None:
            return
        indexed_ids = self.index.ids
        for cluster in matches.clusters():
            yield DuplicateCluster([self.ids[row] for row in cluster.rows.tolist()],
                                   [indexed_ids[row] for row in cluster.indexed.tolist()],
                                   cluster.similarity)

    def sketches(self) -> np.ndarray:
        """Every sketched page's sketch, by row, in memory (to remember the batch in an
        index: ``index.add(list(found.ids), found.sketches())``)."""
        return self._sketches()


@contextmanager
def find_duplicates(inputs: Sequence[str], config: DedupConfig | None = None, *,
                    index: NearDuplicateIndex | None = None, jobs: int | None = None,
                    site: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
                    checkpoint: str | os.PathLike[str] | None = None, resume: bool = False,
                    on_skip: OnSkip | None = None, on_empty: Callable[[str], None] | None = None,
                    on_page: Callable[[], None] | None = None, own_process: bool = False,
                    batch_pages: int = SKETCH_BATCH, checkpoint_pages: int = CHECKPOINT_PAGES,
                    page_timeout: float | None = None) -> Iterator[Duplicates]:
    """Sketch the pages of ``inputs`` and match them with each other and with ``index``;
    a context manager whose value, :class:`Duplicates`, is usable inside the block.

    Args:
        inputs: What :func:`denoise.reader.read_pages` reads (folders, archives, WARC
            and JSON lines files, ``-``).
        config: The parameters (default :class:`DedupConfig`'s); with ``index``, its
            config (another is a ``ValueError``).
        index: Saved pages to match the batch against too; not changed.
        jobs: Worker processes (default: the machine's cores). ``denoise`` ``site``
            works in this process only (a site's pages are compared with each other).
        site: Treat every page as one site (default: the URL's host, or the folder).
        max_bytes: Pages larger than this are skipped.
        checkpoint: A folder where the sketches are saved as they are made, so that an
            interrupted run can be resumed; removed when the ``with`` block ends without
            an error. Not for ``denoise`` ``site``.
        resume: Go on from what an interrupted run with the same inputs and parameters
            saved in ``checkpoint`` (:class:`~denoise.errors.ResumeError` when there is
            nothing to use); without it, an earlier run's checkpoint is removed first.
        on_skip: Called with each input item that is skipped (unreadable, or a page
            that cannot be parsed), in input order.
        on_empty: Called with the id of each page without words (skipped too).
        on_page: Called for each page read and worked (a progress count).
        own_process: The process is the caller's own (a command line's), to be set up
            for a long loop over pages (:func:`engine.batch.map_pages`).
        batch_pages: Pages sketched together.
        checkpoint_pages: Pages sketched between two saves of the checkpoint.
        page_timeout: Seconds a page's text may take; a page over it is skipped
            (:func:`engine.batch.map_pages`: in worker processes and a command line's
            own process; not for ``denoise`` ``site``).

    Raises:
        DenoiseError: A de-noising model cannot be loaded, or (``ResumeError``) the
            checkpoint cannot be resumed.
        OSError: The sketches cannot be written: the error's ``filename`` is the
            temporary folder of the sketches, or ``checkpoint``.
    """
    index = _index_for(config, index)
    config = index.config
    if jobs is not None and jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if config.denoise is Mode.site and (jobs is not None or checkpoint is not None):
        raise ValueError("denoise 'site' compares a site's pages with each other in one "
                         "process: no jobs, no checkpoint")
    if resume and checkpoint is None:
        raise ValueError("resume needs the checkpoint folder of the interrupted run")
    saved = None if checkpoint is None else SketchCheckpoint(
        Path(checkpoint), _settings(inputs, site, max_bytes, config), resume=resume)
    skipped: list[Skipped | PageError] = []

    def skip(item: Skipped | PageError) -> None:
        skipped.append(item)
        if on_skip is not None:
            on_skip(item)

    with sketch_files(index) as files:
        try:
            state = saved.restore(files.add) if resume and saved is not None \
                else SketchState()
            resumed_items, resumed_pages = state.items, state.pages
            words = _page_words(inputs, config, jobs=jobs, site=site, max_bytes=max_bytes,
                                done=state.items, skip=skip, own_process=own_process,
                                page_timeout=page_timeout)
            _sketch(words, index, state, files, saved, skipped, on_empty=on_empty,
                    on_page=on_page, batch_pages=batch_pages,
                    checkpoint_pages=checkpoint_pages)
        except OSError as error:  # the sketch files name their folder; the rest is saving
            if saved is None or error.filename == str(files.folder):
                raise
            raise OSError(error.errno, error.strerror, str(saved.folder)) from None
        yield Duplicates(index, files.ids, short=state.short, skipped=skipped,
                         match=lambda: match_files(index, files) if len(files) else None,
                         sketches=files.read_sketches, resumed_items=resumed_items,
                         resumed_pages=resumed_pages)
    if saved is not None:
        saved.finish()  # the caller has what it wanted: nothing to resume


def _index_for(config: DedupConfig | None, index: NearDuplicateIndex | None
               ) -> NearDuplicateIndex:
    if index is None:
        return NearDuplicateIndex(config if config is not None else DedupConfig())
    if config is not None and config != index.config:
        raise ValueError(f"the config ({config.describe()}) is not the index's "
                         f"({index.config.describe()})")
    return index


def _settings(inputs: Sequence[str], site: str | None, max_bytes: int,
              config: DedupConfig) -> dict[str, object]:
    """What a checkpoint must have been made with to be resumed (``mining dedup``'s
    name stays: a run interrupted there resumes here, and the other way round)."""
    return {"command": "mining dedup", "inputs": [str(i) for i in inputs], "site": site,
            "max_bytes": max_bytes, "config": config.parameters()}


def _page_words(inputs: Sequence[str], config: DedupConfig, *, jobs: int | None,
                site: str | None, max_bytes: int, done: int, skip: OnSkip,
                own_process: bool, page_timeout: float | None
                ) -> Iterator[tuple[Page, np.ndarray]]:
    """Each page with the word hashes of its text, in input order: on ``jobs`` worker
    processes, except for ``site`` (a site's pages are compared with each other). The
    first ``done`` input items (an interrupted run's) are passed over unparsed."""
    items = read_pages(inputs, site=site, max_bytes=max_bytes)
    if config.denoise is Mode.site:
        texts = page_texts(_readable(items, skip), config.denoise, on_error=skip)
        yield from ((page, word_hashes(text)) for page, text in texts)
        return
    job = PageWords(config.denoise)
    job.setup()  # here first: a model that cannot load is one clear error, not dead workers
    for item, result in map_pages(islice(items, done, None), job, jobs or default_jobs(),
                                  own_process=own_process, page_timeout=page_timeout):
        if isinstance(result, Skipped | PageError):
            skip(result)
        else:
            yield item, result


def _readable(items: Iterator[Page | Skipped], skip: OnSkip) -> Iterator[Page]:
    """The pages; the items that cannot be read go to ``skip``."""
    for item in items:
        if isinstance(item, Skipped):
            skip(item)
        else:
            yield item


def _sketch(words: Iterator[tuple[Page, np.ndarray]], index: NearDuplicateIndex,
            state: SketchState, files: SketchFiles, checkpoint: SketchCheckpoint | None,
            skipped: list[Skipped | PageError], *, on_empty: Callable[[str], None] | None,
            on_page: Callable[[], None] | None, batch_pages: int, checkpoint_pages: int,
            ) -> None:
    """Sketch the pages that have words into ``files`` (which may hold an earlier run's
    already), counted in ``state``; pages without words are skipped. With a
    ``checkpoint``, the state is saved every ``checkpoint_pages`` pages and at the end."""
    config = index.config
    earlier_items, earlier_pages, earlier_skips = state.items, state.pages, state.skipped
    pending: list[str] = []
    batch: list[np.ndarray] = []

    def flush() -> None:
        if batch:
            sketches = index.sketch(batch)
            files.add(pending, sketches)
            if checkpoint is not None:
                checkpoint.add(pending[:], sketches)
            state.pages += len(pending)
            batch.clear()
            pending.clear()

    def save() -> None:
        assert checkpoint is not None  # noqa: S101
        state.items = earlier_items + state.pages - earlier_pages + len(skipped)
        state.skipped = earlier_skips + Counter(map(skip_reason, skipped))
        checkpoint.save(state)

    for page, page_words in words:
        if on_page is not None:
            on_page()
        if not page_words.size:
            skipped.append(PageError(page.id, NO_WORDS))
            if on_empty is not None:
                on_empty(page.id)
            continue
        state.short += page_words.size < config.shingle
        pending.append(page.id)
        batch.append(shingles_of_words(page_words, config.shingle))
        if len(batch) == batch_pages:
            flush()
            if checkpoint is not None and checkpoint.unsaved >= checkpoint_pages:
                save()
    flush()
    if checkpoint is not None:
        save()
