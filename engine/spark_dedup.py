"""``mining dedup --engine spark``: near-duplicates with the per-page work and the LSH join
done by Spark, and the embedded engine's matches.

The plan:

1. ``mapInArrow`` (:func:`engine.spark_frame.page_rows`): each page's words, as
   ``--denoise none|page|main`` reads it (the command's own per-page job), its
   shingles and its sketch (:meth:`NearDuplicateIndex.sketch`, the same config).
2. The driver reads the page ids (and what was skipped) in input order; the sketched
   pages are numbered in that order (a sort, then ``zipWithIndex``): the embedded
   engine's rows.
3. ``groupBy(sketch)``: identical sketches collapse to their first row, as
   :meth:`NearDuplicateIndex.match` collapses them.
4. ``mapInArrow``: the keys of each distinct sketch (the index's own: LSH band keys, or
   the paper rule's subset keys), exploded to (row, key) rows.
5. A self-join on the key (``a < b``), ``distinct``: the candidate pairs; joined to both
   sketches and verified in ``mapInArrow`` by the index's own verification. With
   ``--index`` the saved sketches' keys are joined with the batch's the same way.

The verified pairs and the copies of identical sketches come back to the driver as the
:class:`~mining.matches.Matches` the embedded engine builds, so the clusters (connected
components) and pairs are written by the same code. :func:`dedup_on_spark` is the whole
run (a session, the page job, the plan) with the embedded engine's result,
:class:`~engine.dedup.Duplicates`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from denoise.cleaning import Mode
from denoise.decode import DEFAULT_MAX_BYTES
from denoise.errors import PageError
from denoise.page import Page
from denoise.reader import Skipped
from engine.dedup import NO_WORDS, Duplicates
from engine.spark import arrow_frame, arrow_schema, spark_session
from engine.spark_frame import ORDER, page_rows, skip_of, spark_work
from mining.banding import flatten_keys
from mining.content import PageWords
from mining.dedup import DedupConfig, NearDuplicateIndex, Rule
from mining.matches import Matches, Pairs
from mining.minhash import EMPTY
from mining.shingles import shingles_of_words

if TYPE_CHECKING:
    from collections.abc import Iterator

    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["SparkMatches", "dedup_on_spark", "match_on_spark"]

_KEYS = "row long, key long"
_VERIFIED = "a long, b long, similarity double, shared long"


@dataclass(frozen=True, slots=True)
class SparkMatches:
    """What the Spark run found: the sketched pages' ids in input order, their matches
    (None when no page was sketched), how many were shorter than a shingle, and the
    sketches themselves when they are to be saved."""

    ids: list[str]
    matches: Matches | None
    short: int
    sketches: np.ndarray | None


def dedup_on_spark(inputs: Sequence[str], index: NearDuplicateIndex, *,
                   spark_master: str | None = None, site: str | None = None,
                   max_bytes: int = DEFAULT_MAX_BYTES, keep_sketches: bool = False,
                   on_skip: Callable[[Skipped | PageError], None] | None = None,
                   on_empty: Callable[[str], None] | None = None) -> Duplicates:
    """:func:`engine.dedup.find_duplicates` on Spark: the pages of ``inputs`` sketched
    and matched with each other and with ``index`` (its config; ``denoise`` ``site``
    excepted), on ``spark_master`` (:func:`engine.spark.spark_session`). ``on_skip``
    and ``on_empty`` are told what is skipped, in input order. ``keep_sketches``
    brings the sketches back to the driver, for :meth:`Duplicates.sketches`.

    Raises ``SparkUnavailable`` (or another ``DenoiseError``) when Spark or a model
    cannot be loaded, ``SparkJobError`` when a job fails.
    """
    if index.config.denoise is Mode.site:
        raise ValueError("denoise 'site' compares a site's pages with each other in one "
                         "process: use engine.dedup.find_duplicates")
    skipped: list[Skipped | PageError] = []

    def skip(item: Skipped | PageError) -> None:
        skipped.append(item)
        if on_skip is not None:
            on_skip(item)

    def empty(page_id: str) -> None:
        skipped.append(PageError(page_id, NO_WORDS))
        if on_empty is not None:
            on_empty(page_id)

    words = PageWords(index.config.denoise)
    words.setup()  # here first: a model that cannot load is one clear error
    with spark_session(spark_master) as spark, spark_work(spark) as tag:
        found = match_on_spark(spark, tag, inputs, words, index, site=site,
                               max_bytes=max_bytes, keep_sketches=keep_sketches,
                               on_skip=skip, on_empty=empty)
    return Duplicates(index, found.ids, short=found.short, skipped=skipped,
                      match=lambda: found.matches,
                      sketches=lambda: _kept(found.sketches))


def _kept(sketches: np.ndarray | None) -> np.ndarray:
    if sketches is None:
        raise ValueError("the sketches stayed on the executors: run with keep_sketches")
    return sketches


def match_on_spark(spark: SparkSession, tag: str, inputs: Sequence[str], words: PageWords,
                   index: NearDuplicateIndex, *, site: str | None = None,
                   max_bytes: int = DEFAULT_MAX_BYTES, keep_sketches: bool = False,
                   on_skip: Callable[[Skipped | PageError], None] | None = None,
                   on_empty: Callable[[str], None] | None = None) -> SparkMatches:
    """Sketch the pages of ``inputs`` and match them with each other and with ``index``.

    Skipped items go to ``on_skip`` and pages without words to ``on_empty``, in input
    order. Run inside :func:`engine.spark_frame.spark_work` (``tag``).
    """
    from pyspark.sql import functions as F

    config = index.config
    rows = page_rows(spark, inputs, _Sketch(words, config), tag, site=site,
                     max_bytes=max_bytes)
    ids: list[str] = []
    filled: list[int] = []
    short = 0
    for row in (rows.select(*ORDER, "kind", "source", "reason", "id", "words", "filled")
                .orderBy(*ORDER).toLocalIterator(prefetchPartitions=True)):
        if row.kind is not None:
            if on_skip is not None:
                on_skip(skip_of(row.kind, row.source, row.reason))
        elif not row.words:
            if on_empty is not None:
                on_empty(row.id)
        else:
            short += row.words < config.shingle
            ids.append(row.id)
            filled.append(row.filled)
    if not ids:
        return SparkMatches(ids, None, short, None)
    signed = rows.where(F.col("sketch").isNotNull()).select(*ORDER, "sketch").orderBy(*ORDER)
    numbered = spark.createDataFrame(
        signed.rdd.zipWithIndex().map(lambda pair: (pair[1], pair[0].sketch)),
        "row long, sketch binary").localCheckpoint(eager=True)

    first = numbered.groupBy("sketch").agg(F.min("row").alias("first"))
    rowed = numbered.join(first, "sketch")
    representative = np.arange(len(ids))
    copies = rowed.where(F.col("row") != F.col("first")).select("row", "first").collect()
    if copies:
        representative[[c.row for c in copies]] = [c.first for c in copies]
    distinct = rowed.where(F.col("row") == F.col("first")).select("row", "sketch")

    keys = distinct.mapInArrow(partial(_keys, config), _KEYS)
    left, right = keys.alias("l"), keys.alias("r")
    candidates = (left.join(right, (F.col("l.key") == F.col("r.key"))
                            & (F.col("l.row") < F.col("r.row")))
                  .select(F.col("l.row").alias("a"), F.col("r.row").alias("b")).distinct())
    batch = _verified(candidates, distinct, distinct, config, indexed=False)
    if len(index):
        saved = arrow_frame(spark, {"row": range(len(index)), "sketch": [
            sketch.tobytes() for sketch in index.sketches]}, "row long, sketch binary")
        saved_keys = saved.mapInArrow(partial(_keys, config), _KEYS)
        against = (keys.alias("k").join(saved_keys.alias("s"), F.col("k.key") == F.col("s.key"))
                   .select(F.col("k.row").alias("a"), F.col("s.row").alias("b")).distinct())
        indexed = _verified(against, distinct, saved, config, indexed=True)
    else:
        indexed = _pairs([], indexed=True)
    shared = np.array(filled, dtype=np.int64)
    matches = Matches(representative, batch, indexed, shared, len(index))
    sketches = None
    if keep_sketches:
        sketches = np.stack([np.frombuffer(row.sketch, dtype=index.dtype) for row in
                             numbered.orderBy("row").toLocalIterator(prefetchPartitions=True)])
    return SparkMatches(ids, matches, short, sketches)


def _verified(candidates: DataFrame, left: DataFrame, right: DataFrame, config: DedupConfig,
              *, indexed: bool) -> Pairs:
    """The candidate pairs (``a`` rows of ``left``, ``b`` rows of ``right``) the rule keeps,
    sorted."""
    from pyspark.sql import functions as F

    joined = (candidates
              .join(left.select(F.col("row").alias("a"), F.col("sketch").alias("x")), "a")
              .join(right.select(F.col("row").alias("b"), F.col("sketch").alias("y")), "b"))
    kept = joined.mapInArrow(partial(_verify, config), _VERIFIED).collect()
    return _pairs(sorted(kept, key=lambda row: (row.a, row.b)), indexed=indexed)


def _pairs(rows: list, *, indexed: bool) -> Pairs:
    return Pairs(np.array([r.a for r in rows], dtype=np.int64),
                 np.array([r.b for r in rows], dtype=np.int64),
                 np.full(len(rows), indexed),
                 np.array([r.similarity for r in rows], dtype=np.float64),
                 np.array([r.shared for r in rows], dtype=np.int64))


# --- on the executors ------------------------------------------------------------------


@dataclass
class _Sketch:
    """Step 1 (a :class:`~engine.spark_frame.RowJob`): a page's id, its word count, the
    shingle-sketch values a copy would share, and its sketch."""

    words: PageWords
    config: DedupConfig
    columns: ClassVar[str] = "id string, words long, filled long, sketch binary"

    def setup(self) -> None:
        self.words.setup()
        self._index = NearDuplicateIndex(self.config)

    def __call__(self, page: Page) -> tuple[object, ...]:
        words = self.words(page)
        if not words.size:
            return page.id, 0, 0, None
        sketch = self._index.sketch([shingles_of_words(words, self.config.shingle)])[0]
        filled = (self.config.num_perm if self.config.rule is Rule.lsh
                  else int((sketch != EMPTY).sum()))
        return page.id, int(words.size), filled, sketch.tobytes()


def _sketches(values: list[bytes], index: NearDuplicateIndex) -> np.ndarray:
    return np.stack([np.frombuffer(value, dtype=index.dtype) for value in values])


def _keys(config: DedupConfig, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Step 4, ``mapInArrow``'s function: (row, key) for every key of every sketch."""
    import pyarrow as pa

    index = NearDuplicateIndex(config)
    schema = arrow_schema(_KEYS)
    for batch in batches:
        if not batch.num_rows:
            continue
        rows = np.asarray(batch.column("row").to_numpy(zero_copy_only=False))
        keys, at = flatten_keys(*index.join_keys(
            _sketches(batch.column("sketch").to_pylist(), index)), rows)
        yield pa.RecordBatch.from_pydict({"row": at, "key": keys.view(np.int64)},
                                         schema=schema)


def _verify(config: DedupConfig, batches: Iterator[pa.RecordBatch]
            ) -> Iterator[pa.RecordBatch]:
    """Step 5, ``mapInArrow``'s function: the candidate pairs the rule keeps."""
    import pyarrow as pa

    index = NearDuplicateIndex(config)
    schema = arrow_schema(_VERIFIED)
    for batch in batches:
        if not batch.num_rows:
            continue
        a = np.asarray(batch.column("a").to_numpy(zero_copy_only=False))
        b = np.asarray(batch.column("b").to_numpy(zero_copy_only=False))
        x = _sketches(batch.column("x").to_pylist(), index)
        y = _sketches(batch.column("y").to_pylist(), index)
        at = np.arange(len(a))
        kept = index.verified(at, at, x, y, indexed=False)
        yield pa.RecordBatch.from_pydict({"a": a[kept.a], "b": b[kept.b],
                                          "similarity": kept.similarity.astype(np.float64),
                                          "shared": kept.shared.astype(np.int64)},
                                         schema=schema)
