"""``mining dedup``: near-duplicate pages, templates removed first if asked.

The pipeline is :func:`engine.dedup.find_duplicates` (``--engine spark``:
:func:`engine.spark_dedup.dedup_on_spark`); this module holds the options, the
messages, the progress on a terminal, the JSON lines and the exit codes.
"""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated, TextIO

import typer
from rich.console import Console

from commands.common import (
    DEFAULT_PAGE_TIMEOUT,
    Engine,
    EngineOption,
    InputsArg,
    JobsOption,
    MaxBytesOption,
    OutOption,
    PageTimeoutOption,
    ResumeOption,
    SiteOption,
    SparkMasterOption,
    cannot_write,
    fail,
    page_progress,
    say,
    writable,
)
from commands.mining import app
from denoise.cleaning import PAGE_RECALL, Mode
from denoise.decode import DEFAULT_MAX_BYTES
from denoise.errors import DenoiseError, PageError, SparkJobError
from denoise.output import atomic_text
from denoise.reader import Skipped
from engine.batch import BatchSummary
from engine.checkpoint import CHECKPOINT_PAGES, checkpoint_beside
from engine.dedup import NO_WORDS, SKETCH_BATCH, Duplicates, find_duplicates
from engine.spark_dedup import dedup_on_spark
from mining.dedup import DedupConfig, NearDuplicateIndex, Rule

#: Pages sketched together (:data:`engine.dedup.SKETCH_BATCH`); with ``CHECKPOINT_PAGES``
#: handed to :func:`find_duplicates` as they are at the call (the command's tests shrink
#: them).
_BATCH = SKETCH_BATCH


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}{'' if number == 1 else 's'}"


def _config(err: Console, explicit: dict[str, object], index: Path | None
            ) -> tuple[DedupConfig, NearDuplicateIndex]:
    """The parameters of this run and the index to match against (empty without
    ``--index``): a saved index's parameters unless an option asks for others, which is
    refused."""
    lsh_only = [f"--{name.replace('_', '-')}" for name in ("threshold", "num_perm", "seed")
                if name in explicit]
    belong = f"{', '.join(lsh_only)} belong{'s' if len(lsh_only) == 1 else ''} to --rule lsh"
    if explicit.get("rule") == Rule.paper and lsh_only:
        raise typer.BadParameter(belong)
    if index is None:
        try:
            config = DedupConfig(**explicit)  # type: ignore[arg-type]
        except ValueError as error:
            raise typer.BadParameter(str(error)) from None
        loaded = NearDuplicateIndex(config)
    else:
        try:
            loaded = NearDuplicateIndex.load(index, expect=explicit)
        except DenoiseError as error:
            raise fail(err, error) from None
    if loaded.config.rule is Rule.paper and lsh_only:
        if index is not None:
            raise typer.BadParameter(f"{belong} (the --index's rule is paper)")
        raise typer.BadParameter(f"{belong} (the default rule is paper): add --rule lsh")
    return loaded.config, loaded


def _sketched(err: Console, cleanup: ExitStack, inputs: list[str],
              index: NearDuplicateIndex, *, out: Path, jobs: int | None, site: str | None,
              max_bytes: int, resume: bool, page_timeout: float) -> Duplicates:
    """The embedded engine's run (:func:`find_duplicates`), open until ``cleanup`` ends:
    its progress on a terminal, what it skips named on stderr, its errors as one line."""
    config = index.config
    # sketches saved beside --out for --resume (a site's pages go in one run: not saved)
    folder = None if str(out) == "-" or config.denoise is Mode.site else checkpoint_beside(out)
    try:
        with page_progress(err, "shingling and sketching") as progress:
            task = progress.add_task("shingling and sketching", total=None)
            return cleanup.enter_context(find_duplicates(
                inputs, index=index, jobs=jobs, site=site, max_bytes=max_bytes,
                checkpoint=folder, resume=resume, on_skip=lambda item: _skipped(err, item),
                on_empty=lambda page_id: _no_words(err, page_id, config),
                on_page=lambda: progress.advance(task), own_process=True,
                batch_pages=_BATCH, checkpoint_pages=CHECKPOINT_PAGES,
                page_timeout=page_timeout))
    except DenoiseError as error:  # a model cannot be loaded; nothing to resume
        raise fail(err, error) from None
    except OSError as error:  # the sketches or the checkpoint cannot be written
        where = f"{out}: cannot save the sketches for --resume" \
            if folder is not None and error.filename == str(folder) else \
            f"{error.filename}: cannot write the sketches"
        raise fail(err, f"{where} ({error.strerror or error})", 1) from None


def _on_spark(err: Console, inputs: list[str], index: NearDuplicateIndex, *,
              site: str | None, max_bytes: int, spark_master: str | None,
              keep_sketches: bool) -> Duplicates:
    """``--engine spark`` (:func:`dedup_on_spark`): what it found; skipped items named
    as the embedded run names them."""
    try:
        return dedup_on_spark(inputs, index, spark_master=spark_master, site=site,
                              max_bytes=max_bytes, keep_sketches=keep_sketches,
                              on_skip=lambda item: _skipped(err, item),
                              on_empty=lambda page_id: _no_words(err, page_id, index.config))
    except SparkJobError as error:
        raise fail(err, error, 1) from None
    except DenoiseError as error:  # Spark is missing or did not start; a model
        raise fail(err, error) from None


def _skipped(err: Console, item: Skipped | PageError) -> None:
    say(err, f"skipped {item}")


def _no_words(err: Console, page_id: str, config: DedupConfig) -> None:
    """Name a page without words to shingle (it is skipped)."""
    after = "" if config.denoise is Mode.none else " once its template is removed"
    say(err, f"skipped {page_id}: {NO_WORDS}{after}")


def _write_pairs(stream: TextIO, found: Duplicates, with_index: bool) -> int:
    paper = found.config.rule is Rule.paper
    count = 0
    for pair in found.pairs():
        record: dict[str, object] = {"a": pair.a, "b": pair.b,
                                     "similarity": round(pair.similarity, 4)}
        if paper:
            record["matches"] = pair.shared
        if with_index:
            record["indexed"] = pair.indexed
        stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        count += 1
    return count


def _write_clusters(stream: TextIO, found: Duplicates, with_index: bool) -> tuple[int, int]:
    clusters = pages = 0
    for cluster in found.clusters():
        record: dict[str, object] = {"size": cluster.size, "pages": cluster.pages,
                                     "similarity": round(cluster.similarity, 4)}
        if with_index:
            record["indexed"] = cluster.indexed
        stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        clusters += 1
        pages += len(cluster.pages)
    return clusters, pages


def _refuse_on_spark(config: DedupConfig, jobs: int | None, resume: bool) -> None:
    """The options ``--engine spark`` does not run, as one usage error each."""
    if resume:
        raise typer.BadParameter("--resume is for --engine embedded (Spark reruns the "
                                 "tasks it loses by itself)")
    if config.denoise is Mode.site:
        raise typer.BadParameter("--denoise site is for --engine embedded (it fits the "
                                 "site-level method on each site's pages in one process)")
    if jobs is not None:
        raise typer.BadParameter("--jobs is for --engine embedded; Spark's cores come from "
                                 "--spark-master (local[N]) or the cluster")


@app.command("dedup")
def dedup_command(
    inputs: InputsArg,
    denoise: Annotated[Mode | None, typer.Option(
        help="What is shingled: none = all the page's text (the paper's FULLTEXT); site = "
        "what the site-level fingerprint method keeps, fitted on each site's pages in the "
        "batch (SITELEVEL; a page alone on its site keeps everything, and text on >= 10% of "
        "a site's pages, such as copies of one article, is removed); page = what the "
        f"page-level detector keeps (PAGELEVEL, at template recall {PAGE_RECALL:g}); main = "
        "the page's main content only, which finds the most copies of an article across sites "
        "(benchmarks/dedup.py). [default: main, or the --index's]",
        show_default=False)] = None,
    rule: Annotated[Rule | None, typer.Option(
        help="lsh: MinHash signatures, LSH banding, pairs verified at --threshold; paper: "
        "Chakrabarti et al.'s 8 smallest hashes, duplicates when >= 4 match, which with "
        "--denoise main found 97% of the copies on sites no model saw, with no false pair "
        "(LSH at 0.8: 87%). [default: paper, or the --index's]", show_default=False)] = None,
    threshold: Annotated[float | None, typer.Option(
        help="lsh: report pairs whose estimated Jaccard similarity of shingle sets is at "
        "least this. [default: 0.8, or the --index's]", show_default=False)] = None,
    num_perm: Annotated[int | None, typer.Option(
        min=2, help="lsh: MinHash permutations. [default: 128, or the --index's]",
        show_default=False)] = None,
    seed: Annotated[int | None, typer.Option(
        help="lsh: seed of datasketch's permutations. [default: 1, or the --index's]",
        show_default=False)] = None,
    shingle: Annotated[int | None, typer.Option(
        min=1, help="Words in a shingle. [default: 6, or the --index's]",
        show_default=False)] = None,
    pairs: Annotated[bool, typer.Option(
        "--pairs", help="One JSON line per duplicate pair instead of per cluster.")] = False,
    index: Annotated[Path | None, typer.Option(
        help="Also match against the pages of this saved index (from --save-index); its "
        "parameters are used, and an option asking for others is refused.",
        show_default=False)] = None,
    save_index: Annotated[Path | None, typer.Option(
        callback=writable, help="Save the sketches of this batch (and of --index's pages) here.",
        show_default=False)] = None,
    out: OutOption = Path("-"),
    site: SiteOption = None,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
    jobs: JobsOption = None,
    engine: EngineOption = Engine.EMBEDDED,
    spark_master: SparkMasterOption = None,
    resume: ResumeOption = False,
    page_timeout: PageTimeoutOption = DEFAULT_PAGE_TIMEOUT,
) -> None:
    """Find near-duplicate pages.

    Each page's main content (by default; `--denoise none|site|page` for all its text or
    what a template detector keeps), in lower-cased alphanumeric words, is cut into
    shingles of 6 consecutive words; a page shorter than a shingle is one shingle of all
    its words, and a page without words is named, counted and skipped. Pages are compared
    by the paper's rule (by default: the 8 smallest shingle hashes, duplicates when >= 4
    match) or by MinHash LSH (`--rule lsh`) over their shingle sets.

    Prints one JSON line per cluster of duplicates, `{"size", "pages", "similarity"}`
    (the lowest similarity of the pairs that link it), or with `--pairs` one per pair,
    `{"a", "b", "similarity"}` (and `"matches"` under the paper's rule). With
    `--index`, pages of the saved index appear under `"indexed"`.

    Sketches, page ids and join keys wait on disk in a private temporary folder (in TMPDIR,
    about 0.7 KB a page with `--rule lsh`, besides the ids; removed at the end), so memory
    does not grow with the input. With `-o FILE`, the sketches are also saved as they are
    made (in FILE.sketches/, removed when FILE is written): after an interruption,
    `--resume` sketches only the pages the first run had not reached.

    Example: mining dedup pages/ --save-index pages.npz
    """
    err = Console(stderr=True)
    summary = BatchSummary()
    explicit = {name: value for name, value in (
        ("shingle", shingle), ("rule", rule), ("denoise", denoise), ("threshold", threshold),
        ("num_perm", num_perm), ("seed", seed)) if value is not None}
    config, index_ = _config(err, explicit, index)
    with ExitStack() as cleanup:  # the embedded run's files, until the output is written
        if engine is Engine.SPARK:
            _refuse_on_spark(config, jobs, resume)
            found = _on_spark(err, inputs, index_, site=site, max_bytes=max_bytes,
                              spark_master=spark_master, keep_sketches=save_index is not None)
        else:
            if resume and str(out) == "-":
                raise typer.BadParameter("--resume needs --out FILE (standard output cannot "
                                         "be resumed)")
            if config.denoise is Mode.site and (jobs is not None or resume):
                raise typer.BadParameter("--denoise site compares a site's pages with each "
                                         "other in one run: --jobs and --resume do not apply")
            found = _sketched(err, cleanup, inputs, index_, out=out, jobs=jobs, site=site,
                              max_bytes=max_bytes, resume=resume, page_timeout=page_timeout)
        summary.resumed = found.resumed_items
        try:  # matching reads the sketches spilled to disk, after their files' last writes
            matches = found.matches()
        except OSError as error:
            raise fail(err, f"{error.filename or 'the temporary folder'}: the sketches "
                       f"spilled to disk failed ({error.strerror or error})", 1) from None
        if matches is None:
            summary.count(found.skipped)  # what was read and skipped is said all the same
            say(err, summary.line("sketched"))
            raise fail(err, "no page had words to shingle", 1)
        indexed = len(index_)
        try:
            with atomic_text(out) as stream:
                if pairs:
                    count = _write_pairs(stream, found, index is not None)
                    found_line = _count(count, "duplicate pair")
                else:
                    clusters, in_clusters = _write_clusters(stream, found, index is not None)
                    found_line = (f"{_count(clusters, 'cluster')} holding {in_clusters} of "
                                  "these pages")
        except BrokenPipeError:  # a reader like `head` left: not an error
            sys.stderr.close()
            raise typer.Exit(0) from None
        except OSError as error:
            raise fail(err, cannot_write(out, error), 1) from None
        saved = ""
        if save_index is not None:  # an index holds every sketch and id in memory
            index_.add(list(found.ids), found.sketches())
            try:
                index_.save(save_index, {"inputs": [str(i) for i in inputs]})
            except OSError as error:
                raise fail(err, cannot_write(save_index, error), 1) from None
            saved = f"; index of {len(index_)} pages saved to {save_index}"
        against = f" (against {indexed} indexed pages in {index})" if index is not None else ""
        # this run's pages; an earlier run's are "resumed"
        summary.written = len(found.ids) - found.resumed_pages
        summary.count(found.skipped)
    # the output is whole: leaving the block removes the sketches (and --resume's)
    say(err, f"{summary.line('sketched')}; {found.short} shorter than a shingle (shingled "
         f"whole); {found_line}{against}; {config.describe()}{saved}")
