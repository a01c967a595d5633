"""Per-page rows as a Spark DataFrame, for the commands whose work goes on in Spark after
the per-page step: ``denoise site`` (digests counted with ``groupBy``) and ``mining dedup``
(band keys joined). :mod:`engine.spark` streams each page's output *lines* back to
the driver; here each page becomes a *row* of columns that stays on the executors.

Inputs are read as :mod:`engine.spark` reads them, with its helpers: local paths
on the driver by :func:`read_pages`, sent in chunks; URIs by the executors with
``binaryFiles``. Every chunk's rows are checkpointed on the executors
(``localCheckpoint``) as soon as they are made, so the driver keeps none of the HTML it
sent (a DataFrame made from driver data would hold it for its lineage), and the groupBys
and joins that follow read the rows again without redoing the per-page work.
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial, reduce
from typing import TYPE_CHECKING, Protocol

from denoise.decode import DEFAULT_MAX_BYTES
from denoise.errors import PageError
from denoise.page import Page
from denoise.reader import Skipped, read_pages
from engine.batch import internal_reason
from engine.spark import (
    CHUNK_BYTES,
    CHUNK_PAGES,
    PAGES_SCHEMA,
    REFUSED,
    SESSION_SETTINGS,
    SKIPPED,
    SparkJobError,
    arrow_schema,
    is_uri,
    listing_error,
    one_line,
    page_chunks,
    pages_frame,
    pandas_warning_ignored,
    read_uri_file,
    session_conf,
    ship_files,
    spark_errors,
    worker_job,
)

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["ORDER", "REFUSED", "SKIPPED", "RowJob", "page_rows", "skip_of", "spark_work"]

#: The columns that sort the rows in input order.
ORDER = ("input", "file", "item")
_STATUS = "input int, file string, item long, kind string, source string, reason string"
#: Checkpointed frames are unioned (and checkpointed again) by this many, so the plan of
#: a crawl's thousands of chunks stays shallow.
_UNION_WIDTH = 64


class RowJob(Protocol):
    """One command's per-page work whose result is a row of values, not output lines;
    must pickle (it is sent to the executors, and set up there once per worker)."""

    #: The columns it makes, in Spark's DDL: ``"site string, digests array<long>"``.
    columns: str

    def setup(self) -> None:
        """Load what the work needs, once per process."""

    def __call__(self, page: Page) -> tuple[object, ...]:
        """The values of one page's columns (raise :class:`PageError` to refuse it)."""


@contextmanager
def spark_work(spark: SparkSession) -> Iterator[str]:
    """One command's Spark jobs: the batch settings of :mod:`engine.spark`, a
    failed job as one-line :class:`SparkJobError`, the run's jobs cancelled when it stops
    early. Yields the run's job tag (threads that start jobs must add it)."""
    errors = spark_errors()
    tag = f"webdenoise-{uuid.uuid4().hex}"
    context = spark.sparkContext
    context.addJobTag(tag)
    try:
        with session_conf(spark, SESSION_SETTINGS), pandas_warning_ignored():
            yield tag
    except errors as error:
        raise SparkJobError(f"the Spark job failed: {one_line(error)}") from None
    except BaseException:  # an interrupt: stop what still runs
        context.cancelJobsWithTag(tag)
        raise
    finally:
        context.removeJobTag(tag)


def page_rows(spark: SparkSession, inputs: Sequence[str], job: RowJob, tag: str, *,
              site: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
              chunk_pages: int = CHUNK_PAGES, chunk_bytes: int = CHUNK_BYTES) -> DataFrame:
    """One row per input item, computed now and kept on the executors: ``input``,
    ``file``, ``item`` (sorted by them, the rows are in input order), ``kind``, ``source``,
    ``reason`` (a skipped or refused item; null for a page the job did), then the job's
    columns (null for a skipped item). Run it inside :func:`spark_work` (``tag``)."""
    schema = f"{_STATUS}, {job.columns}"
    work = partial(_map_rows, f"{tag}-{uuid.uuid4().hex[:8]}", job, ship_files(spark, job),
                   schema)
    frames: list[tuple[int, DataFrame]] = []
    start = 0
    while start < len(inputs):
        end = start + 1
        while end < len(inputs) and is_uri(inputs[end]) == is_uri(inputs[start]):
            end += 1
        if is_uri(inputs[start]):
            for frame in _remote(spark, work, schema, inputs, range(start, end), site,
                                 max_bytes):
                _push(frames, frame)
        else:
            items = read_pages(inputs[start:end], site=site, max_bytes=max_bytes,
                               named=len(inputs) > 1)  # ids as the embedded engine's
            _local(spark, work, schema, tag, start, items, chunk_pages, chunk_bytes, frames)
        start = end
    if not frames:
        return spark.createDataFrame([], schema)
    return _union([frame for _, frame in frames])


def skip_of(kind: str, source: str, reason: str) -> Skipped | PageError:
    """The reader's :class:`Skipped`, or the job's :class:`PageError`, of a row's status."""
    return Skipped(source, reason) if kind == SKIPPED else PageError(source, reason)


def _union(frames: list[DataFrame]) -> DataFrame:
    return reduce(lambda left, right: left.unionByName(right), frames)


def _push(frames: list[tuple[int, DataFrame]], frame: DataFrame) -> None:
    """Add a checkpointed frame; every ``_UNION_WIDTH`` frames of one level become one
    frame of the next (each row is copied once a level: a crawl's plan stays shallow)."""
    frames.append((0, frame))
    while len(frames) >= _UNION_WIDTH and len({level for level, _ in
                                                frames[-_UNION_WIDTH:]}) == 1:
        level = frames[-1][0]
        merged = _union([f for _, f in frames[-_UNION_WIDTH:]]).localCheckpoint(eager=True)
        del frames[-_UNION_WIDTH:]
        frames.append((level + 1, merged))


def _local(spark: SparkSession, work: Callable[..., Iterator[pa.RecordBatch]], schema: str,
           tag: str, number: int, items: Iterator[Page | Skipped], chunk_pages: int,
           chunk_bytes: int, frames: list[tuple[int, DataFrame]]) -> None:
    """The rows of local inputs (input ``number`` onwards): read here, sent in chunks, two
    in flight (the driver reads one while the executors work on the other)."""
    pool = ThreadPoolExecutor(2, thread_name_prefix="webdenoise-spark")
    pending: deque[Future[DataFrame]] = deque()
    item = 0
    try:
        for chunk in page_chunks(items, chunk_pages, chunk_bytes):
            rows = []
            for found in chunk:
                if isinstance(found, Skipped):
                    rows.append((number, "", item, None, None, None, None, found.source,
                                 found.reason))
                else:
                    assert isinstance(found, Page)  # noqa: S101 - read_pages gives no other
                    rows.append((number, "", item, found.id, found.url, found.site,
                                 found.html, None, None))
                item += 1
            pending.append(pool.submit(_checkpointed, spark, tag, rows, work, schema))
            if len(pending) == 2:
                _push(frames, pending.popleft().result())
        while pending:
            _push(frames, pending.popleft().result())
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _checkpointed(spark: SparkSession, tag: str, rows: list[tuple[object, ...]],
                  work: Callable[..., Iterator[pa.RecordBatch]], schema: str) -> DataFrame:
    context = spark.sparkContext
    context.addJobTag(tag)  # tags belong to the thread that starts the job
    try:
        return pages_frame(spark, rows).mapInArrow(work, schema).localCheckpoint(eager=True)
    finally:
        context.removeJobTag(tag)


def _remote(spark: SparkSession, work: Callable[..., Iterator[pa.RecordBatch]], schema: str,
            inputs: Sequence[str], numbers: range, site: str | None,
            max_bytes: int) -> list[DataFrame]:
    """The rows of URIs, read and worked on by the executors; a URI that lists no file
    is one skipped row."""
    context = spark.sparkContext
    files, missing = [], []
    for number in numbers:
        rdd = context.binaryFiles(inputs[number])
        try:
            partitions = rdd.getNumPartitions()  # lists the files now: a bad URI is named
        except Exception as error:  # py4j's Py4JJavaError, carrying Hadoop's
            missing.append((number, inputs[number], listing_error(error)))
            continue
        if partitions:
            files.append(rdd.flatMap(partial(read_uri_file, number, site, max_bytes)))
        else:
            missing.append((number, inputs[number], "no files found"))
    frames = []
    if files:
        pages = spark.createDataFrame(context.union(files), PAGES_SCHEMA)
        spread = max(4 * context.defaultParallelism, sum(f.getNumPartitions() for f in files))
        frames.append(pages.repartition(spread).mapInArrow(work, schema)
                      .localCheckpoint(eager=True))
    if missing:
        width = len(arrow_schema(schema).names) - len(_STATUS.split(", "))
        frames.append(spark.createDataFrame(
            [(number, "", 0, SKIPPED, uri, reason, *(None,) * width)
             for number, uri, reason in missing], schema))
    return frames


# --- on the executors ------------------------------------------------------------------


def _map_rows(run: str, job: RowJob, files: dict[str, str], schema: str,
              batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow``'s function: pages in, each page's row (or why not) out."""
    import pyarrow as pa

    arrow = arrow_schema(schema)
    names = arrow.names
    width = len(names) - len(_STATUS.split(", "))
    work = worker_job(run, job, files)  # type: ignore[arg-type]  # set up once a worker
    for batch in batches:
        out: dict[str, list[object]] = {name: [] for name in names}
        for row in batch.to_pylist():
            status: tuple[object, ...] = (None, None, None)
            values: tuple[object, ...] = (None,) * width
            if row["skip_reason"] is not None:
                status = (SKIPPED, row["skip_source"], row["skip_reason"])
            else:
                page = Page(id=row["id"], html=row["html"], url=row["url"], site=row["site"])
                try:
                    values = tuple(work(page))
                except PageError as error:
                    status = (REFUSED, error.source, error.reason)
                except Exception as error:  # a bug on one page: skipped, as embedded
                    status = (REFUSED, page.id, internal_reason(error))
            for name, value in zip(names, (row["input"], row["file"], row["item"], *status,
                                           *values), strict=True):
                out[name].append(value)
        yield pa.RecordBatch.from_pydict(out, schema=arrow)
