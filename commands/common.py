"""What every command line of the toolkit shares (``denoise``, ``kwx``, ``mining``).

One plain line on a console, the one-line error that ends a command, ``--version``,
how a command's own process is set up (:func:`run`); the input argument and the
options of a batch over pages; and the batch runner of every per-page command
(``denoise apply``, ``kwx extract``, ``mining classify predict``): the ``--jobs``,
``--resume`` and ``--engine`` options, a progress bar with pages per second (on a
terminal only), bad items named on stderr, the closing summary line, and the exit
codes. ``--engine spark`` runs the same job on Apache Spark (:mod:`engine.spark`).
"""

from __future__ import annotations

import errno
import io
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, TextIO, cast

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from denoise.errors import DenoiseError, PageError, SparkJobError
from denoise.fetch import Fetcher
from denoise.output import output_target
from denoise.page import Page
from denoise.reader import Skipped, is_url, read_pages
from denoise.shipped import toolkit_version
from engine.batch import BatchSummary, PageJob, ResumableOutput, default_jobs, run_batch
from engine.spark import DEFAULT_MASTER, run_pages_spark, spark_session

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def say(console: Console, line: str) -> None:
    """One plain line on ``console``: no markup, no colours, no wrapping."""
    console.print(line, markup=False, highlight=False, soft_wrap=True)


def fail(err: Console, message: object, code: int = 2) -> typer.Exit:
    """Print ``error: message`` on ``err``; the exit to raise (2: unusable input or
    option, 1: nothing could be done)."""
    say(err, f"error: {message}")
    return typer.Exit(code)


def _show_version(value: bool) -> None:
    if not value:
        return
    found = toolkit_version()
    if found is None:
        typer.echo("error: webdenoise is not installed, so it has no version "
                   "(pip install -e .)", err=True)
        raise typer.Exit(1)
    typer.echo(f"webdenoise {found}")
    raise typer.Exit()


VersionOption = Annotated[bool, typer.Option(
    "--version", callback=_show_version, is_eager=True,
    help="Print the toolkit's version and exit.")]


def version_command() -> None:
    """Print the toolkit's version."""
    _show_version(True)


def _terminated(signum: int, frame: object) -> NoReturn:
    raise KeyboardInterrupt


def run(app: typer.Typer) -> None:
    """Run ``app`` as a program (the console scripts' entry point): SIGTERM then ends a
    command as Ctrl-C does, so a batch keeps what it wrote (resumable) and shuts its
    workers down. Set here and not on import or in the apps themselves: the process
    is the command's own, never a program that embeds the library (or a test that
    invokes an app in-process)."""
    signal.signal(signal.SIGTERM, _terminated)
    if sys.stdout is None:  # started with standard output closed (`>&-`)
        sys.stdout = _ClosedOutput()
    try:
        app()
    except OSError as error:  # a write no command caught (click's help, say)
        if not isinstance(sys.stdout, _ClosedOutput) or error.errno != errno.EBADF:
            raise
        say(Console(stderr=True), f"error: {error.strerror}")
        raise SystemExit(1) from None  # outside the app, where typer.Exit is not caught


class _ClosedOutput(io.TextIOBase):
    """Standard output a command was started without: a write is an ``OSError``, which
    each command reports as one line naming its output, as any other it cannot write."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


JobsOption = Annotated[int, typer.Option(
    "--jobs", "-j", min=1, help="Worker processes (default: the machine's cores). Output "
    "stays in input order.", show_default=False)]
#: A page's generous time limit in batch commands: pages take milliseconds, so one that
#: takes minutes is pathological, not slow.
DEFAULT_PAGE_TIMEOUT = 120.0
PageTimeoutOption = Annotated[float, typer.Option(
    "--page-timeout", min=0.001, metavar="SECONDS", help="Skip (and count) a page whose work "
    "takes longer than this; the run goes on. Checked between Python steps (one lxml "
    "parse finishes first); the embedded engine only.")]


def cannot_write(path: object, error: OSError) -> str:
    """The one line saying an output cannot be written, naming it."""
    return f"{path}: cannot write ({error.strerror or error})"


def writable(path: Path | None) -> Path | None:
    """An output option's callback: a path that cannot be written (its folder missing or
    read-only, a folder, a device or pipe it may not write to) ends the command with one
    line naming it, exit 2, before any work. A file is written beside itself and renamed
    over (:mod:`denoise.output`), so its folder is what must be writable."""
    if path is not None and str(path) != "-":
        try:
            target = output_target(path)
            where = target.path if target.stream else target.path.parent
            if not os.access(where, os.W_OK):
                raise PermissionError(errno.EACCES, "permission denied", str(path))
        except OSError as error:
            raise fail(Console(stderr=True), cannot_write(path, error)) from None
    return path


OutOption = Annotated[Path, typer.Option(
    "--out", "-o", callback=writable,
    help="Write here instead of standard output (atomically).")]
ResumeOption = Annotated[bool, typer.Option(
    "--resume", help="Continue an interrupted run with the same inputs and options: "
    "what is already written to --out (pages; whole sites for denoise site) is not done "
    "again. Output goes to OUT.partial (with OUT.progress) until the run completes.")]


class Engine(StrEnum):
    """Where a batch runs: worker processes here, or an Apache Spark cluster."""

    EMBEDDED = "embedded"
    SPARK = "spark"


EngineOption = Annotated[Engine, typer.Option(
    "--engine", case_sensitive=False, help="embedded: worker processes on this machine "
    "(--jobs); spark: Apache Spark (pip install 'webdenoise[spark]'), on --spark-master. "
    "Same output either way.")]
SparkMasterOption = Annotated[str | None, typer.Option(
    "--spark-master", envvar="WEBDENOISE_SPARK_MASTER", metavar="URL",
    help=f"Spark master for --engine spark (default {DEFAULT_MASTER}: this machine's "
    "cores; spark://HOST:7077, yarn, k8s://...). Other Spark settings: spark-defaults.conf "
    "or PYSPARK_SUBMIT_ARGS. Inputs with a URI scheme (hdfs://, s3a://, file://) are read "
    "by the executors.", show_default=False)]


class _PagesPerSecond(ProgressColumn):
    def render(self, task: Task) -> Text:
        return Text(f"{task.speed:,.0f} pages/s" if task.speed else "")


def page_progress(err: Console, what: str) -> Progress:
    """A batch's progress on a terminal (pages done, pages per second, time); nothing when
    standard error is piped."""
    return Progress(SpinnerColumn(), TextColumn(what), TextColumn("{task.completed} pages"),
                    _PagesPerSecond(), TimeElapsedColumn(), console=err, transient=True,
                    disable=not err.is_terminal)


@dataclass(frozen=True)
class PageNote:
    """Written pages the closing summary counts apart, picked out by their output: whether
    a page's output says so (``says``: given what the batch wrote for the page, one line
    a page, as the notes are only made for jobs of one line a page), and what the count
    is called in the summary line (``what``: "fell back to ...").

    A single page's output (``quiet_single``: the page's text as it is, no record) may
    say nothing; its page is then worked in this process, by the driver's own job, so
    that ``says`` can ask the job (the embedded engine; on Spark it says nothing)."""

    what: str
    says: Callable[[str], bool]


class Noting:
    """``stream``, counting the written pages each of ``notes`` picks out, as they are
    written (each page's output in one write)."""

    def __init__(self, stream: TextIO, notes: Sequence[PageNote]) -> None:
        self.stream, self.notes, self.counts = stream, notes, [0] * len(notes)

    def write(self, text: str) -> int:
        for index, note in enumerate(self.notes):
            self.counts[index] += note.says(text)
        return self.stream.write(text)

    def said(self) -> str:
        """The summary line's end: each note's count, where it picked out a page."""
        return noted(zip(self.counts, (note.what for note in self.notes), strict=True))

    def flush(self) -> None:
        self.stream.flush()


def noted(counts: Iterable[tuple[int, str]]) -> str:
    """The closing summary's end for pages counted apart (count, what they did): "; 2
    fell back to ...; 1 had no text", nothing for a count of 0."""
    return "".join(f"; {count} {what}" for count, what in counts if count)


def run_pages(err: Console, inputs: Sequence[str], job: PageJob, *, out: Path, jobs: int | None,
              resume: bool, settings: dict[str, object], max_bytes: int, site: str | None = None,
              what: str = "pages", quiet_single: bool = False, engine: Engine = Engine.EMBEDDED,
              spark_master: str | None = None, notes: Sequence[PageNote] = (),
              page_timeout: float | None = DEFAULT_PAGE_TIMEOUT,
              fetcher: Fetcher | None = None) -> BatchSummary:
    """Read ``inputs``, run ``job`` over their pages, write to ``out`` (``-``: standard
    output), print the summary; exit 1 when nothing was written (or a Spark job failed),
    2 on unusable output, resume state or a Spark that cannot start, 130 on an interrupt
    (the partial output stays, resumable; by either engine, as the output is the same).

    Each of ``notes`` counts the written pages whose output says something (a fallback,
    no text) at the end of the summary line ("; K what"), which is then printed even for
    a single page."""
    if resume and str(out) == "-":
        raise typer.BadParameter("--resume needs --out FILE (standard output cannot be resumed)")
    if engine is Engine.SPARK and jobs is not None:
        raise typer.BadParameter("--jobs is for --engine embedded; Spark's cores come from "
                                 "--spark-master (local[N]) or the cluster")
    clocks = time.perf_counter(), time.process_time()  # the summary counts model loading
    with ExitStack() as stack:
        spark = None
        try:
            if engine is Engine.SPARK:
                spark = stack.enter_context(spark_session(spark_master))
            job.setup()  # load models here first: a bad model is one clear line, before any work
        except DenoiseError as error:
            say(err, f"error: {error}")
            raise typer.Exit(2) from None
        return _run(err, inputs, job, out=out, jobs=jobs, resume=resume, settings=settings,
                    max_bytes=max_bytes, site=site, what=what, quiet_single=quiet_single,
                    spark=spark, clocks=clocks, notes=notes, page_timeout=page_timeout,
                    fetcher=fetcher)


def _run(err: Console, inputs: Sequence[str], job: PageJob, *, out: Path, jobs: int | None,
         resume: bool, settings: dict[str, object], max_bytes: int, site: str | None,
         what: str, quiet_single: bool, spark: SparkSession | None,
         clocks: tuple[float, float], notes: Sequence[PageNote],
         page_timeout: float | None, fetcher: Fetcher | None) -> BatchSummary:
    output = None
    try:
        if str(out) != "-":
            output = ResumableOutput(out, {**settings, "inputs": [str(i) for i in inputs]},
                                     resume=resume)
    except (DenoiseError, OSError) as error:
        say(err, f"error: {error}" if isinstance(error, DenoiseError)
             else f"error: {cannot_write(out, error)}")
        raise typer.Exit(2) from None

    def skip(item: Page | Skipped, reason: PageError | Skipped) -> None:
        say(err, f"skipped {reason}")

    stream: TextIO = output.stream if output is not None else sys.stdout
    noting = None
    if notes:  # writing and flushing are all a batch asks of its output
        noting = Noting(stream, notes)
        stream = cast(TextIO, noting)
    # one page: no pool to start; with a note, none whatever --jobs (see PageNote)
    workers = 1 if quiet_single and notes else jobs or (
        1 if quiet_single else default_jobs())
    try:
        with page_progress(err, what) as progress:
            task = progress.add_task(what, total=None)
            if spark is None:
                pages = read_pages(inputs, site=site, max_bytes=max_bytes, fetcher=fetcher)
                summary = run_batch(pages, job, stream, jobs=workers,
                                    skip_first=output.skip if output else 0,
                                    checkpoint=output.checkpoint if output else None,
                                    on_skip=skip, on_page=lambda: progress.advance(task),
                                    own_process=True, page_timeout=page_timeout)
            else:
                summary = run_pages_spark(spark, inputs, job, stream, site=site,
                                          max_bytes=max_bytes,
                                          skip_first=output.skip if output else 0,
                                          checkpoint=output.checkpoint if output else None,
                                          on_skip=lambda reason: skip(reason, reason),
                                          on_page=lambda: progress.advance(task),
                                          fetcher=fetcher)
        if output is not None:
            output.finish()
    except BrokenPipeError:  # a reader like `head` left: not an error
        sys.stderr.close()
        raise typer.Exit(0) from None
    except KeyboardInterrupt:
        if output is not None:
            output.close()
            if not output.direct:
                say(err, f"interrupted: {output.partial} holds what was done; run again "
                     "with --resume to continue")
        raise typer.Exit(130) from None
    except SparkJobError as error:
        if output is not None and not output.direct:
            output.close()
            say(err, f"error: {error}; {output.partial} holds what was done: --resume "
                 "continues")
        else:
            if output is not None:
                output.close()
            say(err, f"error: {error}")
        raise typer.Exit(1) from None
    except OSError as error:
        if output is not None:
            output.close()
        say(err, f"error: {cannot_write(out, error)}")
        raise typer.Exit(1) from None
    summary.started, summary.cpu_started = clocks
    said = noting.said() if noting is not None else ""
    if not (quiet_single and summary.written == 1 and not summary.skipped and not said):
        say(err, summary.line() + said)
    if not summary.written and not summary.resumed:
        raise typer.Exit(1)
    return summary


class MethodName(StrEnum):
    """The site-level methods, by command-line name (``denoise site``, ``mining index``)."""

    fingerprint = "fingerprint"
    table_chunk = "table-chunk"
    shingle = "shingle"
    style_offset = "style-offset"


_INPUTS_HELP = ("Pages to read: folders of .html/.htm/.html.gz files, .tar/.tar.gz/.tar.xz "
                "archives, WARC files, JSON lines files of {url, html}, single .html files, "
                "http(s):// URLs (fetched), or - for standard input.")
InputsArg = Annotated[
    list[str],
    typer.Argument(help=_INPUTS_HELP, show_default=False, metavar="INPUT..."),
]
#: The inputs of a command that also takes ``--urls`` (then none is needed).
PageInputsArg = Annotated[
    list[str] | None,
    typer.Argument(help=_INPUTS_HELP, show_default=False, metavar="[INPUT...]"),
]
UrlsOption = Annotated[Path | None, typer.Option(
    "--urls", metavar="FILE", help="A file of URLs to fetch, one a line (after the INPUTs; "
    "'-': standard input; blank lines and lines starting with # are passed over).",
    show_default=False)]
AllowPrivateOption = Annotated[bool, typer.Option(
    "--allow-private", help="Fetch URLs whose host is on a loopback, private or link-local "
    "address too (refused by default, after DNS and after every redirect, so that nobody "
    "can point this at the network it runs in).")]


def web_inputs(err: Console, inputs: list[str] | None, urls: Path | None) -> list[str]:
    """``inputs`` and then the URLs of the ``--urls`` file; a usage error when there is
    nothing to read."""
    given = list(inputs or [])
    if urls is not None:
        try:
            stream = sys.stdin if str(urls) == "-" else urls.open(encoding="utf-8")
            with stream:
                given += [line.strip() for line in stream
                          if line.strip() and not line.lstrip().startswith("#")]
        except (OSError, UnicodeDecodeError) as error:
            raise fail(err, f"{urls}: cannot read ({getattr(error, 'strerror', None) or error})"
                       ) from None
    if not given:
        raise typer.BadParameter("give pages to read (INPUT...) or --urls FILE")
    return given


def one_page(inputs: list[str]) -> bool:
    """Whether the inputs are one page: an .html / .htm file (gzipped too), or a URL (its
    output is then the page's own, not a JSON line)."""
    if len(inputs) != 1:
        return False
    name = inputs[0]
    return is_url(name) or (name != "-" and Path(name).is_file() and name.lower().endswith(
        (".html", ".htm", ".html.gz", ".htm.gz")))


def page_fetcher(max_bytes: int, allow_private: bool) -> Fetcher:
    """The fetcher of a command's URL inputs."""
    return Fetcher(max_bytes=max_bytes, allow_private=allow_private)


SiteOption = Annotated[str | None, typer.Option(
    help="Treat every page as one site (default: the URL's host, or the page's folder).",
    show_default=False)]
MaxBytesOption = Annotated[int, typer.Option(min=1, help="Skip pages larger than this many bytes.")]


def fraction(value: float | None) -> float | None:
    """Typer callback: a share in (0, 1]."""
    if value is not None and not 0.0 < value <= 1.0:
        raise typer.BadParameter(f"must be in (0, 1], got {value}")
    return value


def progress_bar(err: Console) -> Progress:
    """A progress bar on ``err`` with a count of a known total (on a terminal only)."""
    return Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                    TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                    console=err, transient=True, disable=not err.is_terminal)


def skipper(skipped: list[Skipped | PageError], err: Console) -> Callable[[PageError], None]:
    """What a batch does with a page it cannot use: name it on stderr, keep it (to count
    it by reason), go on."""
    def skip(error: PageError) -> None:
        skipped.append(error)
        say(err, f"skipped {error}")

    return skip


def read_inputs(inputs: list[str], max_bytes: int, skipped: list[Skipped | PageError],
                err: Console, site: str | None = None, *,
                fetcher: Fetcher | None = None) -> Iterator[Page]:
    """The pages of ``inputs`` (URLs fetched by ``fetcher``); an item that cannot be
    read is named on stderr and kept in ``skipped``."""
    for item in read_pages(inputs, site=site, max_bytes=max_bytes, fetcher=fetcher):
        if isinstance(item, Skipped):
            skipped.append(item)
            say(err, f"skipped {item}")
        else:
            yield item
