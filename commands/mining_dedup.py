"""``mining dedup``: near-duplicate pages, templates removed first if asked."""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from itertools import islice
from pathlib import Path
from typing import Annotated, TextIO

import numpy as np
import typer
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from commands.common import (
    Engine,
    EngineOption,
    InputsArg,
    JobsOption,
    MaxBytesOption,
    OutOption,
    ResumeOption,
    SparkMasterOption,
    fail,
    read_inputs,
    say,
    skipper,
)
from commands.mining import app
from denoise.clean import Mode
from denoise.decode import DEFAULT_MAX_BYTES
from denoise.errors import DenoiseError, PageError
from denoise.output import atomic_text
from denoise.page import Page
from denoise.reader import Skipped, read_pages
from engine.batch import BatchSummary, default_jobs, map_pages, skip_reason
from engine.checkpoint import CHECKPOINT_PAGES, SketchCheckpoint, SketchState
from engine.spark import SparkJobError, spark_session
from engine.spark_dedup import SparkMatches, match_on_spark
from engine.spark_frame import spark_work
from mining.content import PageWords, page_texts
from mining.dedup import DedupConfig, NearDuplicateIndex, Rule
from mining.matches import Matches, iter_pairs
from mining.shingles import shingles_of_words, word_hashes
from mining.sketchfiles import SketchFiles
from mining.spill import match_files, sketch_files

#: Pages sketched together (one numpy product each): large enough to amortise the
#: per-call cost, small enough that a page's shingles are not held for long.
_BATCH = 256


def _progress(err: Console) -> Progress:
    return Progress(SpinnerColumn(), TextColumn("{task.description}"),
                    TextColumn("{task.completed} pages"), TimeElapsedColumn(), console=err,
                    transient=True, disable=not err.is_terminal)


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}{'' if number == 1 else 's'}"


def _config(err: Console, explicit: dict[str, object], index: Path | None
            ) -> tuple[DedupConfig, NearDuplicateIndex]:
    """The parameters of this run and the index to match against (empty without
    ``--index``): a saved index's parameters unless an option asks for others, which is
    refused."""
    lsh_only = [f"--{name.replace('_', '-')}" for name in ("threshold", "num_perm", "seed")
                if name in explicit]
    if explicit.get("rule") == Rule.paper and lsh_only:
        raise typer.BadParameter(f"{', '.join(lsh_only)} belong to --rule lsh")
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
        whose = "the --index's rule" if index is not None else "the default rule"
        raise typer.BadParameter(f"{', '.join(lsh_only)} belong to --rule lsh ({whose} is "
                                 "paper)")
    return loaded.config, loaded


def _page_words(inputs: list[str], config: DedupConfig, jobs: int | None, max_bytes: int,
                site: str | None, skipped: list[Skipped | PageError],
                err: Console, done: int = 0) -> Iterator[tuple[Page, np.ndarray]]:
    """Each page with the word hashes of its text, in input order: on ``jobs`` worker
    processes, except for ``site`` (a site's pages are compared with each other)."""
    if config.denoise is Mode.site:
        texts = page_texts(read_inputs(inputs, max_bytes, skipped, err, site=site), config.denoise,
                           on_error=skipper(skipped, err))
        yield from ((page, word_hashes(text)) for page, text in texts)
        return
    job = PageWords(config.denoise)
    job.setup()  # here first: a model that cannot load is one clear line, not dead workers
    # the first ``done`` items were sketched by an interrupted run: read, not parsed
    items = islice(read_pages(inputs, site=site, max_bytes=max_bytes), done, None)
    for item, result in map_pages(items, job, jobs or default_jobs(), own_process=True):
        if isinstance(result, Skipped | PageError):
            skipped.append(result)
            say(err, f"skipped {result}")
        else:
            yield item, result


def _pages_signed(texts: Iterator[tuple[Page, np.ndarray]], index: NearDuplicateIndex,
                  config: DedupConfig, skipped: list[Skipped | PageError], err: Console,
                  progress: Progress, state: SketchState, files: SketchFiles,
                  checkpoint: SketchCheckpoint | None) -> None:
    """Sketch the pages that have words into ``files`` (which may hold an earlier run's
    already), counted in ``state``; pages without words are named on stderr and skipped.
    With a ``checkpoint``, the state is saved every :data:`CHECKPOINT_PAGES` pages and at
    the end."""
    task = progress.add_task("shingling and sketching", total=None)
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

    for page, words in texts:
        progress.advance(task)
        if not words.size:
            _no_words(err, skipped, page.id, config)
            continue
        state.short += words.size < config.shingle
        pending.append(page.id)
        batch.append(shingles_of_words(words, config.shingle))
        if len(batch) == _BATCH:
            flush()
            if checkpoint is not None and checkpoint.unsaved >= CHECKPOINT_PAGES:
                save()
    flush()
    if checkpoint is not None:
        save()


def _no_words(err: Console, skipped: list[Skipped | PageError], page_id: str,
              config: DedupConfig) -> None:
    """Name a page without words to shingle (it is skipped)."""
    skipped.append(PageError(page_id, "no words to shingle"))
    after = "" if config.denoise is Mode.none else " once its template is removed"
    say(err, f"skipped {page_id}: no words to shingle{after}")


def _matched_on_spark(err: Console, inputs: list[str], config: DedupConfig,
                      index: NearDuplicateIndex, *, site: str | None, max_bytes: int,
                      spark_master: str | None, keep_sketches: bool,
                      skipped: list[Skipped | PageError]) -> SparkMatches:
    """``--engine spark`` (:mod:`engine.spark_dedup`): the matches; skipped items named
    as the embedded run names them."""

    def skip(item: Skipped | PageError) -> None:
        skipped.append(item)
        say(err, f"skipped {item}")

    def no_words(page_id: str) -> None:
        _no_words(err, skipped, page_id, config)

    words = PageWords(config.denoise)
    try:
        words.setup()  # here first: a model that cannot load is one clear line
        with spark_session(spark_master) as spark, spark_work(spark) as tag:
            found = match_on_spark(spark, tag, inputs, words, index, site=site,
                                   max_bytes=max_bytes, keep_sketches=keep_sketches,
                                   on_skip=skip, on_empty=no_words)
    except SparkJobError as error:
        raise fail(err, error, 1) from None
    except DenoiseError as error:  # Spark is missing or did not start; a model
        raise fail(err, error) from None
    return found


def _write_pairs(stream: TextIO, matches: Matches, ids: Sequence[str], old_ids: list[str],
                 with_index: bool, paper: bool) -> int:
    pairs = matches.pairs()
    for a, b, indexed, similarity, shared in iter_pairs(pairs):
        record: dict[str, object] = {"a": ids[a], "b": old_ids[b] if indexed else ids[b],
                                     "similarity": round(similarity, 4)}
        if paper:
            record["matches"] = shared
        if with_index:
            record["indexed"] = indexed
        stream.write(json.dumps(record, ensure_ascii=False) + "\n")
    return len(pairs)


def _write_clusters(stream: TextIO, matches: Matches, ids: Sequence[str],
                    old_ids: list[str],
                    with_index: bool) -> tuple[int, int]:
    clusters = matches.clusters()
    pages = 0
    for cluster in clusters:
        record: dict[str, object] = {"size": cluster.size,
                                     "pages": [ids[row] for row in cluster.rows.tolist()],
                                     "similarity": round(cluster.similarity, 4)}
        if with_index:
            record["indexed"] = [old_ids[row] for row in cluster.indexed.tolist()]
        stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        pages += len(cluster.rows)
    return len(clusters), pages


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
        "page-level detector keeps (PAGELEVEL, at template recall 0.5); main = the page's "
        "main content only, which finds the most copies of an article across sites "
        "(benchmarks/dedup.py). [default: main, or the --index's]",
        show_default=False)] = None,
    rule: Annotated[Rule | None, typer.Option(
        help="lsh: MinHash signatures, LSH banding, pairs verified at --threshold; paper: "
        "Chakrabarti et al.'s 8 smallest hashes, duplicates when >= 4 match, which with "
        "--denoise main found 96% of the copies on sites no model saw, with no false pair "
        "(LSH at 0.8: 80%). [default: paper, or the --index's]", show_default=False)] = None,
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
        help="Save the sketches of this batch (and of --index's pages) here.",
        show_default=False)] = None,
    out: OutOption = Path("-"),
    site: Annotated[str | None, typer.Option(
        help="Treat every page as one site (default: the URL's host, or the page's "
        "folder).", show_default=False)] = None,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
    jobs: JobsOption = None,
    engine: EngineOption = Engine.EMBEDDED,
    spark_master: SparkMasterOption = None,
    resume: ResumeOption = False,
) -> None:
    """Find near-duplicate pages.

    Each page's text (lower-cased, alphanumeric words; its template removed first with
    `--denoise site|page|main`) is cut into shingles of 6 consecutive words; a page shorter
    than a shingle is one shingle of all its words, and a page without words is named,
    counted and skipped. Pages are compared by MinHash (or the paper's rule) over their
    shingle sets.

    Prints one JSON line per cluster of duplicates, `{"size", "pages", "similarity"}`
    (the lowest similarity of the pairs that link it), or with `--pairs` one per pair,
    `{"a", "b", "similarity"}` (and `"matches"` under the paper's rule). With
    `--index`, pages of the saved index appear under `"indexed"`.

    Sketches, page ids and join keys wait on disk in a private temporary folder (in
    TMPDIR, about 0.7 KB a page besides the ids; removed at the end), so memory does not
    grow with the input. With `-o FILE`, the sketches are also saved as they are made (in
    FILE.sketches/, removed when FILE is written): after an interruption, `--resume`
    sketches only the pages the first run had not reached.

    Example: mining dedup pages/ --save-index pages.npz
    """
    err = Console(stderr=True)
    summary = BatchSummary()
    explicit = {name: value for name, value in (
        ("shingle", shingle), ("rule", rule), ("denoise", denoise), ("threshold", threshold),
        ("num_perm", num_perm), ("seed", seed)) if value is not None}
    config, index_ = _config(err, explicit, index)
    skipped: list[Skipped | PageError] = []
    checkpoint: SketchCheckpoint | None = None
    files: SketchFiles | None = None  # the embedded engine's sketches, ids and keys
    earlier = 0  # pages an interrupted run sketched
    with ExitStack() as cleanup:
        if engine is Engine.SPARK:
            _refuse_on_spark(config, jobs, resume)
            found = _matched_on_spark(err, inputs, config, index_, site=site,
                                      max_bytes=max_bytes, spark_master=spark_master,
                                      keep_sketches=save_index is not None,
                                      skipped=skipped)
            ids: Sequence[str] = found.ids
            sketches, short, matches = found.sketches, found.short, found.matches
        else:
            if resume and str(out) == "-":
                raise typer.BadParameter("--resume needs --out FILE (standard output cannot "
                                         "be resumed)")
            if config.denoise is Mode.site and (jobs is not None or resume):
                raise typer.BadParameter("--denoise site compares a site's pages with each "
                                         "other in one run: --jobs and --resume do not apply")
            checkpoint = None if str(out) == "-" or config.denoise is Mode.site else \
                SketchCheckpoint(out, {"command": "mining dedup",
                                       "inputs": [str(i) for i in inputs], "site": site,
                                       "max_bytes": max_bytes,
                                       "config": config.parameters()}, resume=resume)
            files = cleanup.enter_context(sketch_files(index_))
            try:
                state = checkpoint.restore(files.add) if resume and checkpoint is not None \
                    else SketchState()
                summary.resumed, earlier = state.items, state.pages
                with _progress(err) as progress:
                    words = _page_words(inputs, config, jobs, max_bytes, site, skipped, err,
                                        done=state.items)
                    _pages_signed(words, index_, config, skipped, err, progress, state, files,
                                  checkpoint)
            except DenoiseError as error:  # a model cannot be loaded; nothing to resume
                raise fail(err, error) from None
            except OSError as error:  # the sketches or the checkpoint cannot be written
                where = f"{files.folder}: cannot write the sketches" \
                    if error.filename == str(files.folder) else \
                    f"{out}: cannot save the sketches for --resume"
                raise fail(err, f"{where} ({error.strerror or error})", 1) from None
            ids, short, sketches = files.ids, state.short, None
            matches = match_files(index_, files) if len(files) else None
        if not ids or matches is None:
            summary.count(skipped)  # what was read and skipped is said all the same
            say(err, summary.line("sketched"))
            raise fail(err, "no page had words to shingle", 1)
        indexed = len(index_)
        try:
            with atomic_text(out) as stream:
                if pairs:
                    count = _write_pairs(stream, matches, ids, index_.ids, index is not None,
                                         config.rule is Rule.paper)
                    found_line = _count(count, "duplicate pair")
                else:
                    clusters, in_clusters = _write_clusters(stream, matches, ids, index_.ids,
                                                            index is not None)
                    found_line = (f"{_count(clusters, 'cluster')} holding {in_clusters} of "
                                  "these pages")
        except BrokenPipeError:  # a reader like `head` left: not an error
            sys.stderr.close()
            raise typer.Exit(0) from None
        except OSError as error:
            raise fail(err, f"{out}: cannot write ({error.strerror or error})", 1) from None
        saved = ""
        if save_index is not None:
            if files is not None:  # an index holds every sketch and id in memory
                ids, sketches = files.ids.tolist(), files.read_sketches()
            assert sketches is not None  # noqa: S101 - kept when an index is to be saved
            index_.add(list(ids), sketches)
            try:
                index_.save(save_index, {"inputs": [str(i) for i in inputs]})
            except OSError as error:
                raise fail(err, f"{save_index}: cannot write ({error.strerror or error})",
                            1) from None
            saved = f"; index of {len(index_)} pages saved to {save_index}"
        against = f" (against {indexed} indexed pages in {index})" if index is not None else ""
        if checkpoint is not None:
            checkpoint.finish()  # the output is whole: nothing to resume
        summary.written = len(ids) - earlier  # this run's; an earlier run's are "resumed"
        summary.count(skipped)
    say(err, f"{summary.line('sketched')}; {short} shorter than a shingle (shingled whole); "
         f"{found_line}{against}; {config.describe()}{saved}")
