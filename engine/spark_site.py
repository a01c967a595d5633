"""``denoise site --engine spark``: Kołcz & Yih's fingerprint method with the site statistics
counted by Spark, and the same labels as :func:`denoise.site.batch.label_sites`.

The plan:

1. ``mapInArrow`` (:func:`engine.spark_frame.page_rows`): each page segmented the way
   the method segments it; out come its site, its page key, the block digests
   :meth:`FingerprintMethod.fit` counts (recorded from a fit on that page alone, so they
   are exactly those) and the segmented page without its HTML (encoded by
   :mod:`engine.blockcodec`: JSON and raw arrays, never pickle).
2. ``groupBy(site, digest)`` over the distinct (site, page key, digest) rows: on how
   many pages each digest is (a page counted once by its key, as
   :class:`~denoise.site.counts.MemoryCounts` does); ``groupBy(site)``: the site's pages
   and its first page; the frequencies joined back to each page's digests.
3. ``mapInArrow``: each page labelled by :meth:`FingerprintMethod.label`, with counts
   that know that page's digests (:class:`_KnownCounts`); out come its block lines and
   its report numbers, sorted by the site's first page, then input order (the embedded
   engine's order: sites as they first appear, pages in input order), and streamed to
   the driver.

``--structure`` (a second pass over the site's link words) and ``--db`` (counts kept in a
local SQLite file) stay with the embedded engine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from denoise.arrays import sorted_unique
from denoise.decode import DEFAULT_MAX_BYTES
from denoise.errors import PageError
from denoise.page import Page
from denoise.reader import Skipped
from denoise.site.base import LabeledPage, page_key
from denoise.site.batch import SiteReport
from denoise.site.fingerprint import FingerprintMethod
from engine.blockcodec import decode_blocks, encode_blocks
from engine.spark import arrow_schema
from engine.spark_frame import ORDER, page_rows, skip_of

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession

__all__ = ["SitePage", "label_sites_spark", "merge_report"]

_LABELLED = ("input int, file string, item long, first_input int, first_file string, "
             "first_item long, site string, text string, blocks long, template_blocks long, "
             "unknown_blocks long, template_chars long, chars long")
_NUMBERS = ("blocks", "template_blocks", "unknown_blocks", "template_chars", "chars")


@dataclass(frozen=True, slots=True)
class SitePage:
    """One labelled page as the driver gets it: its site, its block lines (None when
    not asked for) and its share of the site's report."""

    site: str
    text: str | None
    report: SiteReport


def merge_report(total: SiteReport, page: SiteReport) -> None:
    """Add one page's report numbers to its site's."""
    for name in _NUMBERS:
        setattr(total, name, getattr(total, name) + getattr(page, name))
    total.pages += page.pages


def label_sites_spark(spark: SparkSession, tag: str, inputs: Sequence[str], *, theta: float,
                      contained: float | None = None, site: str | None = None,
                      max_bytes: int = DEFAULT_MAX_BYTES,
                      lines: Callable[[LabeledPage], str] | None = None
                      ) -> Iterator[Skipped | PageError | SitePage]:
    """The skipped items in input order, then the labelled pages in the embedded order.

    ``lines(page)`` makes a page's output text on the executors (a module-level function:
    it is pickled by name). Run inside :func:`engine.spark_frame.spark_work` (``tag``).
    """
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    rows = page_rows(spark, inputs, _Segment(theta, contained), tag, site=site,
                     max_bytes=max_bytes)
    for row in rows.where(F.col("kind").isNotNull()).orderBy(*ORDER).toLocalIterator():
        yield skip_of(row.kind, row.source, row.reason)
    pages = rows.where(F.col("kind").isNull())
    digests = pages.select(*ORDER, "site", "page_key", F.explode("digests").alias("digest"))
    frequencies = (digests.select("site", "page_key", "digest").distinct()
                   .groupBy("site", "digest").agg(F.count("*").alias("df")))
    sites = pages.groupBy("site").agg(F.countDistinct("page_key").alias("pages"),
                                      F.min(F.struct(*ORDER)).alias("first"))
    known = (digests.join(frequencies, ["site", "digest"])
             .groupBy(*ORDER).agg(F.collect_list(F.struct("digest", "df")).alias("known")))
    labelled = (pages.select(*ORDER, "site", "blocks").join(known, list(ORDER), "left")
                .join(sites, "site")
                .mapInArrow(partial(_label, theta, contained, lines), _LABELLED)
                .persist(StorageLevel.MEMORY_AND_DISK))  # the sort samples it first
    try:
        ordered = labelled.orderBy("first_input", "first_file", "first_item", *ORDER)
        for row in ordered.toLocalIterator(prefetchPartitions=True):
            report = SiteReport(row.site, pages=1, **{name: row[name] for name in _NUMBERS})
            yield SitePage(row.site, row.text, report)
    finally:
        labelled.unpersist()


def _method(theta: float, contained: float | None, counts: object) -> FingerprintMethod:
    return FingerprintMethod(theta=theta, contained=contained,
                             counts=counts)  # type: ignore[arg-type]


class _RecordedCounts:
    """A :class:`~denoise.site.counts.DigestCounts` that keeps what a fit counts."""

    def __init__(self) -> None:
        self.keys = np.zeros(0, dtype=np.int64)

    def add(self, page_key: str, keys: np.ndarray, kind: str = "text") -> bool:
        self.keys = sorted_unique(keys)
        return True

    def pages(self, kind: str = "text") -> int:
        return 1

    def counted(self, page_key: str, kind: str = "text") -> bool:
        return True

    def lookup(self, keys: np.ndarray, kind: str = "text") -> np.ndarray:
        return np.ones(len(keys), dtype=np.int64)


class _KnownCounts:
    """A :class:`~denoise.site.counts.DigestCounts` holding a site's counts of one page's
    digests (Spark's groupBy made them; that page is counted among them)."""

    def __init__(self, frequencies: dict[int, int], pages: int) -> None:
        self.frequencies = frequencies
        self.site_pages = pages

    def add(self, page_key: str, keys: np.ndarray, kind: str = "text") -> bool:
        return False  # counted already

    def pages(self, kind: str = "text") -> int:
        return self.site_pages

    def counted(self, page_key: str, kind: str = "text") -> bool:
        return True

    def lookup(self, keys: np.ndarray, kind: str = "text") -> np.ndarray:
        get = self.frequencies.get
        return np.fromiter((get(key, 0) for key in keys.tolist()), dtype=np.int64,
                           count=len(keys))


@dataclass(frozen=True)
class _Segment:
    """Step 1 (a :class:`~engine.spark_frame.RowJob`): a page's site, key, counted
    digests, and its segmented blocks without the HTML."""

    theta: float
    contained: float | None
    columns: ClassVar[str] = ("site string, page_key string, digests array<long>, "
                              "blocks binary")

    def setup(self) -> None:
        pass

    def __call__(self, page: Page) -> tuple[object, ...]:
        recorded = _RecordedCounts()
        method = _method(self.theta, self.contained, recorded)
        blocks = method.segment(page)
        method.fit([blocks])
        kept = replace(blocks, page=replace(page, html=""))
        return (page.site, page_key(blocks), recorded.keys.tolist(),
                encode_blocks(kept))


def _label(theta: float, contained: float | None, lines: Callable[[LabeledPage], str] | None,
           batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Step 3, ``mapInArrow``'s function: each page labelled with its digests' counts."""
    import pyarrow as pa

    schema = arrow_schema(_LABELLED)
    for batch in batches:
        out: dict[str, list[object]] = {name: [] for name in schema.names}
        for row in batch.to_pylist():
            blocks = decode_blocks(row["blocks"])
            known = {pair["digest"]: pair["df"] for pair in row["known"] or ()}
            page = _method(theta, contained, _KnownCounts(known, row["pages"])).fit(
                [blocks]).label(blocks)
            report = SiteReport(row["site"])
            report.add(page)
            first = row["first"]
            for name, value in zip(schema.names, (
                    row["input"], row["file"], row["item"], first["input"], first["file"],
                    first["item"], row["site"], lines(page) if lines is not None else None,
                    *(getattr(report, name) for name in _NUMBERS)), strict=True):
                out[name].append(value)
        yield pa.RecordBatch.from_pydict(out, schema=schema)
