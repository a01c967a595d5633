"""Per-page batches on Apache Spark (``--engine spark``): the same :class:`PageJob` as the
embedded engine (:mod:`engine.batch`), the same output lines in the same input order.

What runs where:

- **Local paths** (folders, tar archives, WARC, JSON lines, single files, ``-``) are read on
  the driver by :func:`read_pages`, exactly as the embedded engine reads them (same page
  ids, same skipped items), and go to the executors in chunks of at most ``chunk_pages``
  pages or ``chunk_bytes`` of HTML, two chunks in flight: the driver reads and writes one
  while the executors work on the other, and its memory stays bounded.
- **URIs** (``hdfs://``, ``s3a://``, ``gs://``, ``abfss://``, ``file://``, any Hadoop
  filesystem) are read on the executors: ``SparkContext.binaryFiles`` gives the bytes of
  each file the URI names (a file, a folder of files or a glob; not sub-folders), and
  :func:`read_file_bytes` parses them there: WARC, JSON lines or HTML by the file's suffix.
  The pages are then spread over the executors for the per-page work, and the results
  are sorted by (input, file, item) and streamed to the driver with ``toLocalIterator``
  (persisted first, so the sort's sampling does not run the work twice).
- **The per-page work** is one ``mapInArrow`` over a DataFrame of pages (Arrow record
  batches in and out). The job is pickled into its closure; each Python worker runs its
  ``setup()`` once (the loaded job is kept in this module, keyed by the run) and calls it
  on every page. The files a dataclass job's ``Path`` fields name (models, tables given
  on the command line) are shipped with ``SparkContext.addFile`` and the executors' copies
  are used: executors need not see the driver's disk. The shipped default models come
  with the package, which every executor's Python must have installed.
- **The driver** writes each page's lines in input order, names skipped items, counts
  them by reason and closes with the embedded engine's :class:`BatchSummary` line.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import os
import re
import shutil
import sys
import uuid
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import closing, contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from denoise.decode import DEFAULT_MAX_BYTES
from denoise.errors import PageError, SparkJobError, SparkUnavailable
from denoise.page import Page
from denoise.reader import Skipped, is_url, read_file_bytes, read_pages
from engine.batch import CHECKPOINT_EVERY, BatchSummary, PageJob, ResultWriter, internal_reason

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, Row, SparkSession

    from denoise.fetch import Fetcher

# With the entry points, the plumbing the other Spark stages share (engine.spark_frame,
# engine.spark_site, engine.spark_dedup): reading, chunking, shipping jobs, Arrow schemas.
__all__ = [
    "CHUNK_BYTES", "CHUNK_PAGES", "DEFAULT_MASTER", "PAGES_SCHEMA", "REFUSED", "SESSION_SETTINGS",
    "SKIPPED", "SparkJobError", "SparkUnavailable", "arrow_frame", "arrow_schema", "is_uri",
    "listing_error", "one_line", "page_chunks", "pages_frame", "pandas_warning_ignored",
    "read_uri_file", "run_pages_spark", "session_conf", "ship_files", "spark_errors",
    "spark_session", "worker_job",
]

DEFAULT_MASTER = "local[*]"
#: Pages (and bytes of HTML) the driver sends to the executors at a time, from local paths.
CHUNK_PAGES = 1000
CHUNK_BYTES = 64 << 20
#: Pages in one Arrow record batch of the per-page work (Spark's default, 10,000, would
#: hold hundreds of megabytes of HTML).
ARROW_BATCH_ROWS = 64
SESSION_SETTINGS = {"spark.sql.execution.arrow.maxRecordsPerBatch": str(ARROW_BATCH_ROWS),
             # pyspark 3.5 makes a DataFrame from pandas through Arrow only when asked
             "spark.sql.execution.arrow.pyspark.enabled": "true"}
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+://")  # two letters at least: not a drive (C:/)

PAGES_SCHEMA = ("input int, file string, item long, id string, url string, site string, "
                 "html string, skip_source string, skip_reason string")
_RESULTS_SCHEMA = ("input int, file string, item long, text string, kind string, "
                   "source string, reason string")
_PAGES = tuple(column.split()[0] for column in PAGES_SCHEMA.split(", "))
_RESULTS = tuple(column.split()[0] for column in _RESULTS_SCHEMA.split(", "))
SKIPPED, REFUSED = "skipped", "refused"  # a reader's Skipped; a job's PageError

_MISSING = "--engine spark needs {}: pip install 'webdenoise[spark]'"


def _require(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise SparkUnavailable(_MISSING.format(module.partition(".")[0])) from None


@contextmanager
def spark_session(master: str | None = None,
                  config: dict[str, str] | None = None) -> Iterator[SparkSession]:
    """The active Spark session, or a new one on ``master`` (default ``local[*]``) that is
    stopped on exit.

    pyspark is imported here, not before: without it (or without pyarrow and pandas,
    which ``mapInArrow`` needs) :class:`SparkUnavailable` says how to install it. A local
    master runs its Python workers in this interpreter (``PYSPARK_PYTHON`` is set to it
    unless already set). Other settings come from ``config``, or from Spark's own places:
    ``spark-defaults.conf`` in ``$SPARK_CONF_DIR`` and ``PYSPARK_SUBMIT_ARGS``.
    """
    sql = _require("pyspark.sql")
    _require("pyarrow")
    _require("pandas")
    with pandas_warning_ignored():
        active = sql.SparkSession.getActiveSession()
        if active is not None:
            yield active
        else:
            with _new_session(sql, master or DEFAULT_MASTER, config or {}) as spark:
                yield spark


@contextmanager
def pandas_warning_ignored() -> Iterator[None]:
    """pyspark 4 warns on each ``mapInArrow`` that it does not "fully support" pandas 3: it
    checks pandas' version there, but our Arrow batches never become pandas frames."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas",
                                FutureWarning)
        yield


@contextmanager
def _new_session(sql: Any, master: str, config: dict[str, str]) -> Iterator[SparkSession]:
    if master.startswith("local"):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (sql.SparkSession.builder.master(master).appName("webdenoise")
               .config("spark.ui.showConsoleProgress", "false"))
    for key, value in config.items():
        builder = builder.config(key, value)
    try:
        spark = builder.getOrCreate()
    except Exception as error:  # pyspark says "Java gateway process exited", and more
        raise SparkUnavailable(f"Spark did not start on {master} ({one_line(error)}); it "
                               "needs Java 17 or later: java -version") from None
    spark.sparkContext.setLogLevel("ERROR")
    try:
        yield spark
    finally:
        spark.stop()


def run_pages_spark(
    spark: SparkSession,
    inputs: Sequence[str],
    job: PageJob,
    out: TextIO,
    *,
    site: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    skip_first: int = 0,
    checkpoint: Callable[[int], None] | None = None,
    checkpoint_every: int = CHECKPOINT_EVERY,
    on_skip: Callable[[PageError | Skipped], None] | None = None,
    on_page: Callable[[], None] | None = None,
    chunk_pages: int = CHUNK_PAGES,
    chunk_bytes: int = CHUNK_BYTES,
    fetcher: Fetcher | None = None,
) -> BatchSummary:
    """Run ``job`` over the pages of ``inputs`` on ``spark``; write the lines to ``out`` in
    input order (as :func:`engine.batch.run_batch` does, with the same summary).

    ``inputs`` are local paths and web pages (read here, web pages by ``fetcher``:
    :func:`denoise.reader.read_pages`) or URIs (read on the executors). The first
    ``skip_first`` items are passed over (done by an earlier run): those of local paths
    are never sent, those of URIs are worked on again and dropped.
    ``checkpoint(items_done)`` is called every ``checkpoint_every`` items and at the end,
    after ``out`` was flushed. A failed Spark job raises :class:`SparkJobError`.
    """
    if chunk_pages < 1 or chunk_bytes < 1:
        raise ValueError(f"chunks must hold something, not {chunk_pages} pages / "
                         f"{chunk_bytes} bytes")
    errors = spark_errors()
    summary = BatchSummary()
    writer = ResultWriter(out, summary, checkpoint, checkpoint_every, on_page)
    run = _Run(spark, job, skip_first)
    try:
        with (session_conf(spark, SESSION_SETTINGS), pandas_warning_ignored(),
              closing(run.results(inputs, site, max_bytes, chunk_pages, chunk_bytes,
                                  fetcher)) as results):
            for result in results:
                if result is None:
                    writer.resumed()
                    continue
                text, skipped = result
                if skipped is not None and on_skip is not None:
                    on_skip(skipped)
                writer.add(text, skipped=skipped)
    except errors as error:
        raise SparkJobError(f"the Spark job failed: {one_line(error)}") from None
    finally:
        run.close()
    writer.close()
    return summary


#: One item's outcome: its text, or what skipped it; None for an item done by an earlier run.
_Result = tuple[str, None] | tuple[None, PageError | Skipped] | None
_RESUMED = object()  # stands for an item an earlier run did


class _Run:
    """One run's Spark side: the shipped job, its job tag, and the items still to pass over."""

    def __init__(self, spark: SparkSession, job: PageJob, skip_first: int) -> None:
        self.spark = spark
        self.tag = f"webdenoise-{uuid.uuid4().hex}"
        self.work = partial(_run_job, self.tag, job, ship_files(spark, job))
        self.skip = skip_first
        self.pool = ThreadPoolExecutor(2, thread_name_prefix="webdenoise-spark")
        self.finished = False

    def results(self, inputs: Sequence[str], site: str | None, max_bytes: int,
                chunk_pages: int, chunk_bytes: int, fetcher: Fetcher | None = None
                ) -> Iterator[_Result]:
        """Every item's result, in input order: runs of local paths, then of URIs, ..."""
        group: list[str] = []
        for index, name in enumerate(inputs):
            group.append(name)
            last = index + 1 == len(inputs)
            if last or is_uri(name) != is_uri(inputs[index + 1]):
                if is_uri(name):
                    yield from self._remote(group, site, max_bytes)
                else:
                    items = self._resumed(read_pages(group, site=site, max_bytes=max_bytes,
                                                     fetcher=fetcher, named=len(inputs) > 1))
                    yield from self._local(items, chunk_pages, chunk_bytes)
                group = []
        self.finished = True

    def close(self) -> None:
        """Cancel what is still running (an interrupted or failed run)."""
        self.pool.shutdown(wait=False, cancel_futures=True)
        if not self.finished:
            self.spark.sparkContext.cancelJobsWithTag(self.tag)

    def _resumed(self, items: Iterable[Page | Skipped]) -> Iterator[Page | Skipped | object]:
        for item in items:
            if self.skip > 0:
                self.skip -= 1
                yield _RESUMED
            else:
                yield item

    # --- local paths: read here, worked on in chunks --------------------------------------

    def _local(self, items: Iterator[Page | Skipped | object], chunk_pages: int,
               chunk_bytes: int) -> Iterator[_Result]:
        pending: deque[tuple[list[Page | Skipped | object], Future[list[Row]] | None]] = deque()
        for chunk in page_chunks(items, chunk_pages, chunk_bytes):
            rows = [(0, "", number, item.id, item.url, item.site, item.html, None, None)
                    for number, item in enumerate(chunk) if isinstance(item, Page)]
            pending.append((chunk, self.pool.submit(self._collect, rows) if rows else None))
            if len(pending) == 2:
                yield from _merged(*pending.popleft())
        while pending:
            yield from _merged(*pending.popleft())

    def _collect(self, rows: list[tuple[object, ...]]) -> list[Row]:
        context = self.spark.sparkContext
        context.addJobTag(self.tag)  # tags belong to the thread that starts the job
        try:
            return pages_frame(self.spark, rows).mapInArrow(self.work, _RESULTS_SCHEMA).collect()
        finally:
            context.removeJobTag(self.tag)

    # --- URIs: read and worked on by the executors ----------------------------------------

    def _remote(self, uris: list[str], site: str | None, max_bytes: int) -> Iterator[_Result]:
        from pyspark import StorageLevel

        context = self.spark.sparkContext
        files, missing = [], {}
        for number, uri in enumerate(uris):
            rdd = context.binaryFiles(uri)
            try:
                partitions = rdd.getNumPartitions()  # lists the files now: a bad URI is named
            except Exception as error:  # py4j's Py4JJavaError, carrying Hadoop's
                missing[number] = Skipped(uri, listing_error(error))
                continue
            if partitions:
                files.append(rdd.flatMap(partial(read_uri_file, number, site, max_bytes)))
            else:
                missing[number] = Skipped(uri, "no files found")
        results = None
        if files:
            context.addJobTag(self.tag)
            pages = self.spark.createDataFrame(context.union(files), PAGES_SCHEMA)
            spread = max(4 * context.defaultParallelism, sum(f.getNumPartitions() for f in files))
            results = (pages.repartition(spread).mapInArrow(self.work, _RESULTS_SCHEMA)
                       .persist(StorageLevel.MEMORY_AND_DISK))
        try:
            rows = (results.orderBy("input", "file", "item").toLocalIterator(True)
                    if results is not None else iter(()))
            for row in rows:
                yield from self._missing(missing, row.input)
                yield None if self._take() else _result(row)
            yield from self._missing(missing, len(uris))
        finally:
            if results is not None:
                results.unpersist()
                context.removeJobTag(self.tag)

    def _missing(self, missing: dict[int, Skipped], before: int) -> Iterator[_Result]:
        """The inputs before input ``before`` that could not be listed or hold no files."""
        for number in sorted(n for n in missing if n < before):
            yield None if self._take() else (None, missing.pop(number))

    def _take(self) -> bool:
        if self.skip > 0:
            self.skip -= 1
            return True
        return False


def page_chunks(items: Iterator[Page | Skipped | object], pages: int,
            size: int) -> Iterator[list[Page | Skipped | object]]:
    chunk: list[Page | Skipped | object] = []
    count = held = 0
    for item in items:
        chunk.append(item)
        if isinstance(item, Page):
            count += 1
            held += len(item.html)
        if count >= pages or held >= size:
            yield chunk
            chunk, count, held = [], 0, 0
    if chunk:
        yield chunk


def _merged(chunk: list[Page | Skipped | object],
            future: Future[list[Row]] | None) -> Iterator[_Result]:
    """A chunk's items in order: skipped ones from the driver, pages from the executors."""
    done = {row.item: row for row in future.result()} if future is not None else {}
    for number, item in enumerate(chunk):
        if item is _RESUMED:
            yield None
        elif isinstance(item, Skipped):
            yield None, item
        else:
            yield _result(done[number])


def _result(row: Row) -> _Result:
    if row.kind == SKIPPED:
        return None, Skipped(row.source, row.reason)
    if row.kind == REFUSED:
        return None, PageError(row.source, row.reason)
    return row.text, None


def is_uri(name: str) -> bool:
    """An input the executors read (hdfs://, s3a://, file://...); web pages
    (``http(s)://``) are fetched here, as the embedded engine fetches them."""
    return bool(_URI.match(name)) and not is_url(name)


def listing_error(error: Exception) -> str:
    text = str(error)
    if "does not exist" in text or "FileNotFoundException" in text:
        return "no such file or directory"
    if "matches 0 files" in text:
        return "no files found"
    return f"cannot list: {one_line(error)}"


def one_line(error: BaseException) -> str:
    """The telling line of an error that may carry a Java or Python stack trace."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    python = [line for line in lines if re.match(r"[\w.]+(Error|Exception|Exit)\b", line)
              and not line.startswith(("org.", "java.", "py4j.", "scala."))]
    return (python[-1] if python else lines[0] if lines else type(error).__name__)[:500]


def spark_errors() -> tuple[type[BaseException], ...]:
    """What a failed job raises: pyspark's own errors, and py4j's for RDD actions."""
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkException

    return (PySparkException, Py4JError)


def pages_frame(spark: SparkSession, rows: list[tuple[object, ...]]) -> DataFrame:
    """A DataFrame of page rows made here, sent to the JVM as Arrow (not row by row)."""
    return arrow_frame(spark, dict(zip(_PAGES, zip(*rows, strict=True), strict=True)),
                        PAGES_SCHEMA)


def arrow_frame(spark: SparkSession, columns: dict[str, Sequence[object]],
                 schema: str) -> DataFrame:
    """A DataFrame of columns made here (``schema`` in Spark's DDL), sent as Arrow."""
    import pyarrow as pa
    import pyspark

    table = pa.Table.from_pydict(columns, schema=arrow_schema(schema))
    if int(pyspark.__version__.split(".")[0]) >= 4:
        return spark.createDataFrame(table)
    return spark.createDataFrame(table.to_pandas(), schema)  # Arrow: session_conf


def arrow_schema(schema: str) -> pa.Schema:
    """The Arrow schema of one of ours in Spark's DDL (ints, longs, doubles, strings,
    bytes, and arrays of longs)."""
    import pyarrow as pa

    types = {"int": pa.int32(), "long": pa.int64(), "double": pa.float64(),
             "string": pa.string(), "binary": pa.binary(), "array<long>": pa.list_(pa.int64())}
    return pa.schema([(name, types[kind]) for name, kind in
                      (column.split() for column in schema.split(", "))])


@contextmanager
def session_conf(spark: SparkSession, settings: dict[str, str]) -> Iterator[None]:
    """Session settings for the run's duration, then restored."""
    before = {key: spark.conf.get(key, None) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


def ship_files(spark: SparkSession, job: PageJob) -> dict[str, str]:
    """Ship the files a dataclass job's ``Path`` fields name: {field: shipped name}.

    Each goes under a name made of its content digest and its own name, so files of the
    same name (``model.npz`` from two folders) or a file changed between runs never clash.
    """
    if not dataclasses.is_dataclass(job):
        return {}
    from pyspark import SparkFiles

    staging = Path(SparkFiles.getRootDirectory()) / "webdenoise-staged"
    shipped = {}
    for field in dataclasses.fields(job):
        path = getattr(job, field.name)
        if not isinstance(path, Path) or not path.is_file():
            continue
        digest = hashlib.sha256()
        with path.open("rb") as stream:
            while block := stream.read(1 << 20):
                digest.update(block)
        name = f"{digest.hexdigest()[:16]}-{path.name}"
        staged = staging / name
        if not staged.exists():
            staging.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, staged)
            spark.sparkContext.addFile(str(staged))
        shipped[field.name] = name
    return shipped


# --- on the executors ------------------------------------------------------------------

#: On an executor's Python worker: the run whose job is set up here, and that job.
_WORKER_JOB: tuple[str, PageJob] | None = None


def worker_job(run: str, job: PageJob, files: dict[str, str]) -> PageJob:
    """The run's job, set up once per Python worker (workers are reused across tasks)."""
    global _WORKER_JOB  # one set-up job per worker process, replaced by the next run's
    if _WORKER_JOB is None or _WORKER_JOB[0] != run:
        if files:
            from pyspark import SparkFiles

            job = dataclasses.replace(  # type: ignore[type-var]
                job, **{field: Path(SparkFiles.get(name)) for field, name in files.items()})
        job.setup()
        _WORKER_JOB = (run, job)
    return _WORKER_JOB[1]


def _run_job(run: str, job: PageJob, files: dict[str, str],
             batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow``'s function: pages in, each page's lines (or why not) out."""
    import pyarrow as pa

    schema = arrow_schema(_RESULTS_SCHEMA)
    work = worker_job(run, job, files)
    for batch in batches:
        out: dict[str, list[object]] = {name: [] for name in _RESULTS}
        for row in batch.to_pylist():
            text = kind = source = reason = None
            if row["skip_reason"] is not None:
                kind, source, reason = SKIPPED, row["skip_source"], row["skip_reason"]
            else:
                page = Page(id=row["id"], html=row["html"], url=row["url"], site=row["site"])
                try:
                    text = "".join(work(page))
                except PageError as error:
                    kind, source, reason = REFUSED, error.source, error.reason
                except Exception as error:  # a bug on one page: skipped, as embedded
                    kind, source, reason = REFUSED, page.id, internal_reason(error)
            for name, value in zip(_RESULTS, (row["input"], row["file"], row["item"], text,
                                              kind, source, reason), strict=True):
                out[name].append(value)
        yield pa.RecordBatch.from_pydict(out, schema=schema)


def read_uri_file(number: int, site: str | None, max_bytes: int,
               file: tuple[str, bytes]) -> Iterator[tuple[object, ...]]:
    """The page rows of one file's bytes (``binaryFiles``' pairs), skipped items too."""
    path, data = file
    for item, found in enumerate(read_file_bytes(path, data, site=site, max_bytes=max_bytes)):
        if isinstance(found, Skipped):
            yield number, path, item, None, None, None, None, found.source, found.reason
        else:
            yield number, path, item, found.id, found.url, found.site, found.html, None, None
