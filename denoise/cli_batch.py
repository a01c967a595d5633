"""The command-line side of :mod:`denoise.batch`, shared by every per-page batch command
(``denoise apply``, ``kwx extract``, ``mining classify predict``): the ``--jobs`` and
``--resume`` options, a progress bar with pages per second (on a terminal only), bad
items named on stderr, the closing summary line, and the exit codes.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from denoise.batch import BatchSummary, PageJob, ResumableOutput, default_jobs, run_batch
from denoise.errors import DenoiseError, PageError
from denoise.page import Page
from denoise.reader import Skipped, read_pages

JobsOption = Annotated[int, typer.Option(
    "--jobs", "-j", min=1, help="Worker processes (default: the machine's cores). Output "
    "stays in input order.", show_default=False)]
ResumeOption = Annotated[bool, typer.Option(
    "--resume", help="Continue an interrupted run with the same inputs and options: "
    "pages already written to --out are not done again. Output goes to OUT.partial "
    "(with OUT.progress) until the run completes.")]


def _say(console: Console, line: str) -> None:
    console.print(line, markup=False, highlight=False, soft_wrap=True)


def _progress(err: Console, what: str) -> Progress:
    return Progress(SpinnerColumn(), TextColumn(what), TextColumn("{task.completed} pages"),
                    TextColumn("{task.speed} pages/s"),
                    TimeElapsedColumn(), console=err, transient=True,
                    disable=not err.is_terminal)


def run_pages(err: Console, inputs: Sequence[str], job: PageJob, *, out: Path, jobs: int | None,
              resume: bool, settings: dict[str, object], max_bytes: int, site: str | None = None,
              what: str = "pages", quiet_single: bool = False) -> BatchSummary:
    """Read ``inputs``, run ``job`` over their pages, write to ``out`` (``-``: standard
    output), print the summary; exit 1 when nothing was written, 2 on unusable output
    or resume state, 130 on an interrupt (the partial output stays, resumable)."""
    if resume and str(out) == "-":
        raise typer.BadParameter("--resume needs --out FILE (standard output cannot be resumed)")
    try:
        job.setup()  # load models here first: a bad model is one clear line, before any work
    except DenoiseError as error:
        _say(err, f"error: {error}")
        raise typer.Exit(2) from None
    output = None
    try:
        if str(out) != "-":
            output = ResumableOutput(out, {**settings, "inputs": [str(i) for i in inputs]},
                                     resume=resume)
    except (DenoiseError, OSError) as error:
        _say(err, f"error: {error}" if isinstance(error, DenoiseError)
             else f"error: {out}: cannot write ({error.strerror or error})")
        raise typer.Exit(2) from None

    def skip(item: Page | Skipped, reason: PageError | Skipped) -> None:
        _say(err, f"skipped {reason}")

    stream = output.stream if output is not None else sys.stdout
    workers = jobs or default_jobs()
    try:
        with _progress(err, what) as progress:
            task = progress.add_task(what, total=None)
            summary = run_batch(read_pages(inputs, site=site, max_bytes=max_bytes), job, stream,
                                jobs=workers, skip_first=output.skip if output else 0,
                                checkpoint=output.checkpoint if output else None,
                                on_skip=skip, on_page=lambda: progress.advance(task))
        if output is not None:
            output.finish()
    except BrokenPipeError:  # a reader like `head` left: not an error
        sys.stderr.close()
        raise typer.Exit(0) from None
    except KeyboardInterrupt:
        if output is not None:
            output.close()
            _say(err, f"interrupted: {output.partial} holds what was done; run again with "
                 "--resume to continue")
        raise typer.Exit(130) from None
    except OSError as error:
        if output is not None:
            output.close()
        _say(err, f"error: {out}: cannot write ({error.strerror or error})")
        raise typer.Exit(1) from None
    if not (quiet_single and summary.written == 1 and not summary.skipped):
        _say(err, summary.line())
    if not summary.written and not summary.resumed:
        raise typer.Exit(1)
    return summary
