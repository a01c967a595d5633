"""The ``denoise`` command line: a thin Typer layer over the library."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, nullcontext
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Annotated, TextIO

import typer
from rich.console import Console
from rich.table import Table

from commands.common import (
    Engine,
    EngineOption,
    InputsArg,
    JobsOption,
    MethodName,
    ResumeOption,
    SiteOption,
    SparkMasterOption,
    VersionOption,
    cannot_write,
    fraction,
    page_progress,
    run,
    say,
    version_command,
    writable,
)
from denoise.decode import DEFAULT_MAX_BYTES
from denoise.errors import DenoiseError, PageError
from denoise.output import atomic_text
from denoise.page import Page
from denoise.reader import Skipped, read_pages
from denoise.site import METHODS, REASONS, Label, LabeledPage, SiteMethod, SiteStore
from denoise.site.batch import NotGroupedError, SiteReport
from engine.batch import BatchSummary, default_jobs
from engine.jsonstr import json_str as _json_str
from engine.site_progress import SiteProgress, forget_interrupted
from engine.sites import label_sites
from engine.spark import SparkJobError, spark_session
from engine.spark_frame import spark_work
from engine.spark_site import label_sites_spark, merge_report

app = typer.Typer(
    help="Find the template blocks of web pages (navigation, footers, boilerplate).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # help texts are reflowed as Markdown paragraphs, so docstrings wrap at any width
    rich_markup_mode="markdown",
)


@app.callback()
def _main(version: VersionOption = False) -> None:
    """Find the template blocks of web pages and remove them."""


def main() -> None:
    """The ``denoise`` program."""
    run(app)

_STORE_METHODS = ("fingerprint", "shingle")

def _method_factory(method: str, theta: float, structure: bool, contained: float | None,
                    store: SiteStore | None) -> Callable[[str], SiteMethod]:
    """A maker of one unfitted method per site, bound to that site's stored counts."""
    cls = METHODS[method]

    def make(site: str) -> SiteMethod:
        params: dict[str, object] = {"theta": theta}
        if method == "fingerprint":
            params.update(structure=structure, contained=contained)
        if store is not None:
            params["counts"] = store.counts(site)
        return cls(**params)

    return make


#: A label's name by its value, as the output writes it.
_LABEL_NAMES = tuple(str(label) for label in sorted(Label))


def _block_lines(page: LabeledPage, method: type[SiteMethod]) -> str:
    """The ``--out`` lines of a labelled page (made on Spark's executors too): per block,
    ``{"page", "site", "path", "tag", "text", "label", "evidence": {SUPPORT, "reason"},
    "example"}`` as ``json.dumps(record, ensure_ascii=False)`` writes it.

    Put together from the page's arrays with json's own string encoder: a ``Block`` and
    a dict per block, then ``json.dumps``, made writing the lines take three times as
    long as labelling the page (a site's pages have hundreds of blocks each).
    """
    blocks = page.blocks
    text = blocks.text
    starts, ends = blocks.bounds
    head = (f'{{"page": {_json_str(page.page.id)}, "site": {_json_str(page.page.site)}, '
            '"path": ')
    support = _json_str(method.support_name)
    names = _LABEL_NAMES
    return "".join(
        f'{head}{_json_str(path)}, "tag": {_json_str(tag)}, "text": {_json_str(text[a:b])}, '
        f'"label": "{names[label]}", "evidence": {{{support}: {round(share, 4)!r}, '
        f'"reason": "{REASONS[reason]}"}}, "example": {"true" if example else "false"}}}\n'
        for path, tag, a, b, label, share, reason, example in zip(
            blocks.shape.paths(blocks.elements), blocks.tags, starts.tolist(), ends.tolist(),
            page.labels.tolist(), page.support.tolist(), page.reasons.tolist(),
            page.example.tolist(), strict=True))


app.command("version")(version_command)


def _print_report(reports: list[SiteReport], stream: TextIO, as_json: bool) -> None:
    if as_json:
        for report in reports:
            stream.write(json.dumps(report.as_dict()) + "\n")
        return
    table = Table(title="Site-level template detection", title_justify="left")
    for column in ("site", "pages", "blocks", "template blocks", "unknown blocks",
                   "template share of text"):
        table.add_column(column, justify="left" if column == "site" else "right")
    for r in reports:
        table.add_row(r.site, str(r.pages), str(r.blocks), str(r.template_blocks),
                      str(r.unknown_blocks), f"{100 * r.template_share:.1f}%")
    Console(file=stream, width=120).print(table)


@app.command("site")
def site_command(
    inputs: InputsArg,
    method: Annotated[MethodName, typer.Option(
        help="fingerprint: Kołcz & Yih's block-text digests; table-chunk: Ma et al.'s text "
        "between table tags; style-offset: Chen et al.'s block styles and word-offset "
        "signatures; shingle: pagelet shingles (the papers' baseline).",
    )] = MethodName.fingerprint,
    theta: Annotated[float, typer.Option(
        callback=fraction, help="A block on at least this share of a site's pages is template.",
    )] = 0.1,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", callback=writable,
        help="Write one JSON line per block here (- for standard output).",
    )] = None,
    db: Annotated[Path | None, typer.Option(
        help="SQLite file keeping fingerprint counts across runs: a site's statistics "
        "accumulate, and a new page of a known site is labelled at once. A run's counts "
        "are saved as each site is written with --out FILE, else when the run ends.",
    )] = None,
    site: SiteOption = None,
    structure: Annotated[bool, typer.Option(
        help="fingerprint: also match link blocks by structure, with varying words masked "
        "(navigation bars like 'Next: X / Up: Y').",
    )] = False,
    contained: Annotated[float | None, typer.Option(
        callback=fraction, help="fingerprint: a block with at least this share of its text in "
        "template blocks is template too (Chakrabarti et al. use 0.85).",
    )] = None,
    max_bytes: Annotated[int, typer.Option(
        min=1, help="Skip pages larger than this many bytes.",
    )] = DEFAULT_MAX_BYTES,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the per-site report as JSON lines.",
    )] = False,
    jobs: JobsOption = None,
    engine: EngineOption = Engine.EMBEDDED,
    spark_master: SparkMasterOption = None,
    resume: ResumeOption = False,
) -> None:
    """Label the blocks of many pages as template / content / unknown from site statistics.

    Pages are grouped by site; a block whose text is on at least THETA of its site's
    pages is template, a block on exactly one page is content. Prints a per-site report.

    With `--out FILE`, the blocks go to FILE.partial site by site, and FILE.progress
    records the sites done; an interrupted run continues with `--resume` (the pages of
    the sites done are not parsed again), and the run's FILE is the same as without
    the interruption.

    Example: denoise site pages/ --out blocks.jsonl
    """
    name = str(method.value)
    if (structure or contained is not None) and name != "fingerprint":
        raise typer.BadParameter("--structure and --contained need --method fingerprint")
    if db is not None and name not in _STORE_METHODS:
        raise typer.BadParameter(f"--db works with {' and '.join(_STORE_METHODS)} only")
    if db is not None and structure:
        # layout keys mask words by the site's word counts at the time they are made,
        # so keys stored by earlier runs would not match later ones
        raise typer.BadParameter("--structure cannot accumulate in --db; run it in one batch")
    if resume and (out is None or str(out) == "-"):
        raise typer.BadParameter("--resume needs --out FILE (standard output cannot be resumed)")
    if engine is Engine.SPARK:
        _refuse_on_spark(name, structure, db, jobs, resume)
    err = Console(stderr=True)
    tally = _SiteTally(err)
    if engine is Engine.SPARK:
        _site_on_spark(inputs, tally, theta=theta, contained=contained, site=site,
                       max_bytes=max_bytes, out=out, spark_master=spark_master)
        _site_summary(tally, out, as_json)
        return
    settings: dict[str, object] = {
        "command": "denoise site", "method": name, "theta": theta, "structure": structure,
        "contained": contained, "site": site, "max_bytes": max_bytes,
        "db": None if db is None else str(db), "inputs": [str(i) for i in inputs]}
    with ExitStack() as stack:  # a --db store rolls back when the run does not complete
        store, output = _open_site_run(err, stack, name, db, out, settings, resume)
        earlier = 0
        if output is not None:
            tally.reports.update(output.done)
            earlier = sum(report.pages for report in output.done.values())
        try:
            _label_to_output(inputs, tally, _method_factory(name, theta, structure, contained,
                                                            store),
                             name, site=site, max_bytes=max_bytes, jobs=jobs, output=output,
                             to_stdout=out is not None and str(out) == "-")
            if output is not None:
                output.finish()
        except BaseException as error:
            if output is not None and not isinstance(error, KeyboardInterrupt | OSError):
                # bad input or options would stop a resumed run again, or worse: a site
                # not grouped would be dropped as done, its later pages left out
                output.discard()
                output = None
            elif output is not None:
                # a store's transaction may end in the middle of a page's counts: it is
                # rolled back, and the sites saved with it are labelled again on resume
                output.close(save=store is None)
            if store is not None and (out is None or str(out) == "-"):  # no commit yet
                say(err, f"stopped before the end: {db} keeps the counts it had before "
                     "this run")
            raise _site_failed(err, error, output, out) from None
    _site_summary(tally, out, as_json, earlier)


def _open_site_run(err: Console, stack: ExitStack, name: str, db: Path | None,
                   out: Path | None, settings: dict[str, object],
                   resume: bool) -> tuple[SiteStore | None, SiteProgress | None]:
    """The ``--db`` store and the resumable ``--out`` file (none for standard output);
    exit 2 when either cannot be used. The store commits before each save of the
    progress, so a site recorded as done is counted (:mod:`engine.site_progress` says
    why counting a site again on resume is harmless)."""
    try:
        store = None if db is None else stack.enter_context(
            SiteStore(db, {"method": name, "scheme": METHODS[name].scheme}))
        if out is None or str(out) == "-":
            return store, None
        commit = store.commit if store is not None else None
        return store, SiteProgress(out, settings, resume=resume, before_save=commit)
    except DenoiseError as error:
        say(err, f"error: {error}")
        raise typer.Exit(2) from None
    except OSError as error:
        say(err, f"error: {cannot_write(out, error)}")
        raise typer.Exit(2) from None


def _site_failed(err: Console, error: BaseException, output: SiteProgress | None,
                 out: Path | None) -> BaseException:
    """What a run that stopped exits with, its reason said: 130 on an interrupt (``--resume``
    continues), 2 on bad input or options, 1 on output that cannot be written, 0 when
    the reader of standard output left."""
    if output is not None and output.direct:  # a pipe or a device: nothing to resume
        output = None
    kept = f"; {output.partial} holds what was done: --resume continues" if output else ""
    if isinstance(error, KeyboardInterrupt):
        say(err, "interrupted" if output is None else f"interrupted: {output.partial} holds "
             "what was done; run again with --resume to continue")
        return typer.Exit(130)
    if isinstance(error, NotGroupedError):  # a folder or archive whose sites come back
        say(err, f"error: {error}; give each site's pages together, or one --site")
        return typer.Exit(2)
    if isinstance(error, DenoiseError):
        say(err, f"error: {error}")
        return typer.Exit(2)
    if isinstance(error, BrokenPipeError):  # a reader like `head` left: not an error
        sys.stderr.close()
        return typer.Exit(0)
    if isinstance(error, OSError):
        say(err, f"error: {cannot_write(error.filename or out, error)}"
             + kept)
        return typer.Exit(1)
    return error


@dataclass
class _SiteTally:
    """What a ``denoise site`` run has counted so far, for its report and closing line:
    each site's report, the inputs skipped (each said on ``err`` as it is met) and the
    batch summary."""

    err: Console
    reports: dict[str, SiteReport] = field(default_factory=dict)
    skipped: list[Skipped | PageError] = field(default_factory=list)
    summary: BatchSummary = field(default_factory=BatchSummary)

    def skip(self, item: Skipped | PageError) -> None:
        self.skipped.append(item)
        say(self.err, f"skipped {item}")

    def report(self, site: str) -> SiteReport:
        """The report of ``site``, started on first use."""
        return self.reports.setdefault(site, SiteReport(site))


def _label_to_output(inputs: list[str], tally: _SiteTally, make: Callable[[str], SiteMethod],
                     name: str, *, site: str | None, max_bytes: int, jobs: int | None,
                     output: SiteProgress | None, to_stdout: bool) -> None:
    """Label the pages of ``inputs`` and write their blocks to ``output`` (or standard
    output). The pages of the sites an interrupted run finished (``output.done``) are
    counted as resumed and dropped before they are parsed: the other sites are labelled
    from the same pages as in a complete run, as sites are independent."""
    done = set(output.done) if output is not None else set()
    with page_progress(tally.err, "reading and segmenting") as progress:
        task = progress.add_task("", total=None)

        def pages() -> Iterator[Page]:
            for item in read_pages(inputs, site=site, max_bytes=max_bytes):
                if isinstance(item, Skipped):
                    tally.skip(item)
                elif item.site in done:
                    tally.summary.resumed += 1
                else:
                    progress.advance(task)
                    yield item

        write = output.write if output is not None else sys.stdout.write if to_stdout else None
        labelled = label_sites(pages(), make, on_error=tally.skip,
                               grouped=_grouped_by_site(inputs, site),
                               jobs=jobs or default_jobs(), text=write is not None,
                               own_process=True)
        _write_sites(labelled, METHODS[name], tally, write,
                     output.site_done if output is not None else None)
    if to_stdout:
        sys.stdout.flush()


def _write_sites(labelled: Iterable[LabeledPage], method: type[SiteMethod],
                 tally: _SiteTally, write: Callable[[str], object] | None,
                 site_done: Callable[[SiteReport], None] | None) -> None:
    """Each page's block lines written and counted in its site's report; ``site_done``
    told of each site once all its lines are written. A site's pages come together
    (:func:`label_sites`), so it is done when the next site begins or the input ends."""
    current: SiteReport | None = None
    for page in labelled:
        if current is None or page.page.site != current.site:
            if current is not None and site_done is not None:
                site_done(current)
            current = tally.report(page.page.site)
        current.add(page)
        if write is not None:
            write(_block_lines(page, method))
    if current is not None and site_done is not None:
        site_done(current)


def _site_summary(tally: _SiteTally, out: Path | None, as_json: bool, earlier: int = 0,
                  ) -> None:
    """The per-site report (an interrupted run's sites too), the closing line (``earlier``:
    the pages of those sites), and exit 1 when no page was labelled."""
    report_stream = sys.stderr if out is not None and str(out) == "-" else sys.stdout
    reports, summary = tally.reports, tally.summary
    _print_report(list(reports.values()), report_stream, as_json)
    pages_done = sum(r.pages for r in reports.values())
    summary.written = pages_done - earlier
    summary.count(tally.skipped)
    say(tally.err, f"{summary.line('labelled')}; {len(reports)} sites"
         + (f"; blocks written to {out}" if out is not None and str(out) != "-" else ""))
    if not pages_done:
        say(tally.err, "error: no page could be labelled")
        raise typer.Exit(1)


def _refuse_on_spark(method: str, structure: bool, db: Path | None, jobs: int | None,
                     resume: bool = False) -> None:
    """The options ``--engine spark`` does not run, as one usage error each."""
    if resume:
        raise typer.BadParameter("--resume is for --engine embedded (a Spark run writes "
                                 "--out whole when it completes)")
    if method != "fingerprint":
        raise typer.BadParameter(f"--engine spark runs --method fingerprint only, not {method}: "
                                 "use --engine embedded")
    if structure:
        raise typer.BadParameter("--structure is for --engine embedded (its second pass over "
                                 "each site's link words is not done on Spark)")
    if db is not None:
        raise typer.BadParameter("--db is for --engine embedded (its counts live in a local "
                                 "SQLite file; Spark counts each run's pages in the cluster)")
    if jobs is not None:
        raise typer.BadParameter("--jobs is for --engine embedded; Spark's cores come from "
                                 "--spark-master (local[N]) or the cluster")


def _site_on_spark(inputs: list[str], tally: _SiteTally, *, theta: float,
                   contained: float | None, site: str | None, max_bytes: int,
                   out: Path | None, spark_master: str | None) -> None:
    """``--engine spark``: the fingerprint method, its counts made by Spark's groupBy
    (:mod:`engine.spark_site`); fills ``tally`` as the embedded run does."""
    err = tally.err
    lines = partial(_block_lines, method=METHODS["fingerprint"]) if out is not None else None
    try:
        with (spark_session(spark_master) as spark, spark_work(spark) as tag,
              atomic_text(out) if out is not None else nullcontext() as stream):
            for item in label_sites_spark(spark, tag, inputs, theta=theta, contained=contained,
                                          site=site, max_bytes=max_bytes, lines=lines):
                if isinstance(item, Skipped | PageError):
                    tally.skip(item)
                    continue
                merge_report(tally.report(item.site), item.report)
                if stream is not None and item.text:
                    stream.write(item.text)
        if out is not None and str(out) != "-":
            forget_interrupted(out)
    except SparkJobError as error:
        say(err, f"error: {error}")
        raise typer.Exit(1) from None
    except DenoiseError as error:  # Spark is missing or did not start
        say(err, f"error: {error}")
        raise typer.Exit(2) from None


def _grouped_by_site(inputs: list[str], site: str | None) -> bool:
    """Whether the pages come site by site: one --site, or folders and archives (read
    folder by folder, a folder a site). WARC and JSON lines interleave hosts."""
    if site:
        return True
    return all(Path(i).is_dir() or Path(i).name.endswith((".tar", ".tar.gz", ".tgz", ".tar.xz"))
               for i in inputs if i != "-") and "-" not in inputs


# the page-level commands (train, apply, evaluate, show) register on the same app
from commands import denoise_page  # noqa: E402, F401
