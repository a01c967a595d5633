"""Batches at crawl scale: pages streamed through worker processes, output in input order,
memory bounded, an interrupted run resumable.

A command describes its per-page work as a :class:`PageJob`: a picklable object whose
``setup`` loads what the work needs (models, tables) once per process, and whose
``__call__`` turns one page into its output lines (raising :class:`PageError` for a page
it cannot use). :func:`run_batch` streams pages into it:

- ``jobs=1`` runs in this process; ``jobs>1`` in that many worker processes, with at
  most ``window`` pages in flight (so a crawl of millions never sits in memory) and the
  results written in input order as they come.
- A worker that dies (killed, out of memory, a crash in a C library) takes its pages
  with it: the pool is restarted and those pages are tried again one at a time; a page
  that kills a worker on its own is skipped with the reason "worker died".
- Output goes to ``PATH.partial`` and is renamed to ``PATH`` when the run completes, so
  ``PATH`` is never half-written. Every ``checkpoint_every`` pages the output is flushed
  to disk and ``PATH.progress`` records how many input items are done and how many bytes
  of output they made. ``resume=True`` truncates the partial output to the recorded
  size and skips the recorded items: nothing is written twice, nothing lost. Input
  order must be the same (the readers are deterministic for the same inputs).

Skipped items (unreadable input, pages a job refuses, dead workers, pages over the time
limit, and pages the job fails on unexpectedly: a bug, named as "internal error" with its
exception, not a reason to stop a crawl) are counted by reason; :class:`BatchSummary` is
the closing line.

A page time limit (``page_timeout``) is kept by a timer signal (``SIGALRM``), so only in
the processes the toolkit owns: its workers, and a command line's own process
(``own_process``); a program calling the library keeps its signals. A batch of pages
worked step by step gets the limit times its pages; a batch over it is worked again a
page at a time, each with the limit. The signal is seen between Python steps: one C call
(lxml parsing a page) finishes first.
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import signal
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TextIO

from threadpoolctl import threadpool_limits

from denoise.errors import PageError, ResumeError
from denoise.output import output_target
from denoise.page import Page
from denoise.reader import Skipped

#: Pages in flight per worker: enough to keep workers busy, few enough to bound memory.
WINDOW_PER_JOB = 8
CHECKPOINT_EVERY = 200
#: A job that works pages step by step (``many``) takes them in batches of up to this
#: many pages, holding at most this many characters of HTML (or one page) at once.
BATCH_PAGES = 16
BATCH_CHARS = 4_000_000
#: A page's output lines are joined and written in one call up to this many characters;
#: past it they are written one by one (a 19.9 MB page's block lines, joined, took 170 MB).
JOINED_CHARS = 1_000_000


class PageJob(Protocol):
    """One command's per-page work; must pickle (it is sent to worker processes).

    A job may also have ``many(pages)``: the output lines of each page, or the exception
    its work raised, in order, for a batch (:func:`denoise.steps.step_by_step` works one
    so). The engine then gives it batches of consecutive pages instead of single ones.
    """

    def setup(self) -> None:
        """Load what the work needs, once per process."""

    def __call__(self, page: Page) -> list[str]:
        """The output lines of one page (each ending in a newline)."""


@dataclass
class BatchSummary:
    """What a batch did: pages read, written, skipped (by reason), seconds."""

    written: int = 0
    resumed: int = 0  # input items skipped because an earlier run had done them
    skipped: Counter[str] = field(default_factory=Counter)
    started: float = field(default_factory=time.perf_counter)
    cpu_started: float = field(default_factory=time.process_time)

    @property
    def read(self) -> int:
        return self.written + sum(self.skipped.values())

    def count(self, skipped: Iterable[PageError | Skipped]) -> None:
        """Count skipped items by reason."""
        self.skipped.update(skip_reason(item) for item in skipped)

    def line(self, done: str = "written") -> str:
        """The closing summary line; ``done`` says what became of the pages not skipped."""
        wall = time.perf_counter() - self.started
        reasons = ", ".join(f"{n} {reason}" for reason, n in self.skipped.most_common())
        resumed = f", {self.resumed} done by an earlier run" if self.resumed else ""
        return (f"{self.read} pages read{resumed}, {self.written} {done}, "
                f"{sum(self.skipped.values())} skipped" + (f" ({reasons})" if reasons else "")
                + f"; {wall:.1f} s, {time.process_time() - self.cpu_started:.1f} CPU s here, "
                f"{self.written / max(wall, 1e-9):.0f} pages/s")


@dataclass
class ResultWriter:
    """The driver's side of a batch, whichever engine ran it: each input item's output
    written in order (or its skip counted), progress told, checkpoints taken after a
    flush every ``checkpoint_every`` items and at the end."""

    out: TextIO
    summary: BatchSummary
    checkpoint: Callable[[int], None] | None = None
    checkpoint_every: int = CHECKPOINT_EVERY
    on_page: Callable[[], None] | None = None
    done: int = 0  # input items done, resumed ones included

    def resumed(self) -> None:
        """One item an earlier run did: counted, nothing written."""
        self.done += 1
        self.summary.resumed += 1

    def add(self, text: str | list[str] = "", *,
            skipped: PageError | Skipped | None = None) -> None:
        """One item's output (its text, or its lines, written as they are: a big page's
        lines are not joined in memory first), or why it was skipped."""
        self.done += 1
        if skipped is not None:
            self.summary.skipped[skip_reason(skipped)] += 1
        else:
            if isinstance(text, str) or sum(map(len, text)) < JOINED_CHARS:
                self.out.write(text if isinstance(text, str) else "".join(text))
            else:  # a huge page's lines, one by one: never all of them in one string
                for line in text:
                    self.out.write(line)
            self.summary.written += 1
        if self.on_page is not None:
            self.on_page()
        if self.checkpoint is not None and self.done % self.checkpoint_every == 0:
            self.close()

    def close(self) -> None:
        """Flush, then record the items done (when checkpoints are taken)."""
        if self.checkpoint is not None:
            self.out.flush()
            self.checkpoint(self.done)


def ready_for_pages() -> None:
    """Set this process up for a long loop over pages, once its models are loaded.

    Process-wide, so only for processes the toolkit owns: the workers it starts, and a
    command line's own process (``own_process=True``). A program that calls the library
    keeps its process as it was.

    - What is alive now (models, vocabularies, spaCy's tables) is frozen out of the
      cyclic garbage collector, which would otherwise walk it again at every full
      collection. Its share of the CPU (perf): ``denoise apply`` 4.2% -> 1.5% on 1,000
      pages, ``kwx extract`` 9.2% -> 3.1% on 300. Frozen objects are never collected:
      fine for what lives as long as the process.
    - BLAS runs one thread. kwx's ranker multiplies a page's candidates by its weights,
      and OpenBLAS spreads that over threads that then spin: ``kwx extract --jobs 1``
      on 100,000 pages took 696 CPU seconds in 629 of wall time. ``--jobs`` gives the
      cores processes of their own.
    """
    gc.freeze()
    threadpool_limits(1, user_api="blas")


_JOB: PageJob | None = None
_PAGE_SECONDS: float | None = None  # a worker's page time limit
#: How often (seconds) a worker checks that its parent is alive where the kernel cannot
#: tell it (not Linux).
_PARENT_CHECK_SECONDS = 1.0


def _init_worker(job: PageJob, parent: int, page_seconds: float | None) -> None:
    global _JOB, _PAGE_SECONDS  # one job per worker process, set once
    _end_with_parent(parent)
    job.setup()
    ready_for_pages()
    _JOB, _PAGE_SECONDS = job, page_seconds


def _pool(job: PageJob, workers: int, page_seconds: float | None = None
          ) -> ProcessPoolExecutor:
    """``workers`` processes set up for ``job``, each ending when this process ends."""
    return ProcessPoolExecutor(workers, initializer=_init_worker,
                               initargs=(job, os.getpid(), page_seconds))


class _PageTimeout(BaseException):
    """A page's time limit passed (a BaseException: a job's ``except Exception`` must not
    swallow it)."""


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`_PageTimeout` in this thread once ``seconds`` have passed; no limit
    with None or outside the main thread (only it receives signals). Sets ``SIGALRM``'s
    handler for the block: call it only in a process the toolkit owns."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise _PageTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def timeout_reason(seconds: float) -> str:
    """The skip reason of a page over the time limit."""
    return f"over the time limit ({seconds:g} s a page)"


def _end_with_parent(parent: int) -> None:
    """Make this worker end when ``parent`` (the process that made the pool) ends,
    however it ends: killed with SIGKILL, a worker would otherwise live on for good,
    holding its models' memory. A worker holds nothing to save: its pages' results go
    to the parent.

    On Linux the kernel sends SIGKILL when the process that started the worker dies
    (``PR_SET_PDEATHSIG``): the parent itself under the ``fork`` and ``spawn`` start
    methods; under ``forkserver``, the server, which ends with the parent. A parent
    already gone before that call is caught by looking for it after. Elsewhere a thread
    looks for the parent every second."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            told = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):  # no prctl: the thread below does it
            told = False
        if told:
            if not _alive(parent):
                os._exit(1)
            return

    def watch() -> None:
        while _alive(parent):
            time.sleep(_PARENT_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="webdenoise-parent-watch", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's (a pid reused: rare, harmless)
        return True
    return True


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


@dataclass(frozen=True)
class _Refused:
    """A PageError on its way back from a worker (a PageError itself does not unpickle:
    its ``args`` is the one formatted message, its ``__init__`` takes two)."""

    source: str
    reason: str


def _work(pages: list[Page]) -> list[list[str] | _Refused]:
    assert _JOB is not None  # noqa: S101 - set by the initializer
    return [_Refused(result.source, result.reason) if isinstance(result, PageError)
            else result for result in _page_results(_JOB, pages, _PAGE_SECONDS)]


def _page_results(job: PageJob, pages: list[Page], seconds: float | None = None
                  ) -> list[list[str] | PageError]:
    """Each page's lines, or why it was skipped: the ``PageError`` its work raised, the
    time limit (``seconds`` a page: :func:`time_limit`), or an internal error for any
    other exception (one page's bug must not stop a crawl). A batch whose ``many`` fails
    as a whole, or runs over its pages' time, is worked again a page at a time."""
    many = getattr(job, "many", None)
    raw: list[list[str] | Exception] | None = None
    if many is not None:
        try:
            with time_limit(None if seconds is None else seconds * len(pages)):
                raw = many(pages)
        except (Exception, _PageTimeout):  # the batch's own bug or a slow page: each page
            raw = None                   # then says what is wrong with it
    if raw is None:
        raw = []
        for page in pages:
            try:
                with time_limit(seconds):
                    raw.append(job(page))
            except _PageTimeout:
                raw.append(PageError(page.id, timeout_reason(seconds or 0)))
            except Exception as error:
                raw.append(error)
    return [result if not isinstance(result, Exception) or isinstance(result, PageError)
            else PageError(page.id, internal_reason(result))
            for page, result in zip(pages, raw, strict=True)]


def _batches(items: Iterable[Page | Skipped], job: PageJob) -> Iterator[list[Page | Skipped]]:
    """The items in runs of consecutive ones: one page a run for a job of single pages,
    up to :data:`BATCH_PAGES` pages and :data:`BATCH_CHARS` characters of HTML (at least
    one page) for one with ``many``. Skipped items ride along in their place."""
    if getattr(job, "many", None) is None:
        for item in items:
            yield [item]
        return
    batch: list[Page | Skipped] = []
    pages = chars = 0
    for item in items:
        size = len(item.html) if isinstance(item, Page) else 0
        if pages and chars + size > BATCH_CHARS:
            yield batch
            batch, pages, chars = [], 0, 0
        batch.append(item)
        if isinstance(item, Page):
            pages, chars = pages + 1, chars + size
            if pages == BATCH_PAGES:  # full: worked before the next item is read
                yield batch
                batch, pages, chars = [], 0, 0
    if batch:
        yield batch


def internal_reason(error: Exception) -> str:
    """The skip reason of a page the job failed on unexpectedly (a bug: counted, named)."""
    return f"internal error ({type(error).__name__}: {error})"


def _returned(result: list[str] | _Refused) -> list[str] | PageError:
    return PageError(result.source, result.reason) if isinstance(result, _Refused) else result


def _submit(pool: ProcessPoolExecutor, pages: list[Page]) -> Future:
    """``pool.submit``; a pool a worker left broken gives a future that fails like the
    ones it had in flight (so the pages are retried with them)."""
    try:
        return pool.submit(_work, pages)
    except BrokenProcessPool as error:
        future: Future = Future()
        future.set_exception(error)
        return future


def skip_reason(error: PageError | Skipped) -> str:
    """A short reason for the summary's counts (the text before any detail)."""
    return error.reason.split(":")[0].split("(")[0].strip() or "unreadable"


def map_pages(items: Iterable[Page | Skipped], job: PageJob, jobs: int,
              window: int | None = None, *, own_process: bool = False,
              page_timeout: float | None = None
              ) -> Iterator[tuple[Page | Skipped, list[str] | PageError | Skipped]]:
    """Each input item with its result (what ``job`` returned, the ``PageError`` it raised,
    or the ``Skipped`` item itself), in input order: the engine under :func:`run_batch`,
    for commands that gather results instead of writing lines. The worker processes are
    made ready for a long loop (:func:`ready_for_pages`); with ``jobs=1`` the job runs in
    this process, which is readied too only when it is the toolkit's own
    (``own_process``: a command line's). A job with ``many`` gets batches
    (:func:`_batches`), two a worker in flight. ``page_timeout`` (seconds) skips a page
    that takes longer, in the workers and in a command line's own process (see the
    module notes); a library caller's process (``jobs=1`` without ``own_process``) gets
    no limit."""
    if page_timeout is not None and page_timeout <= 0:
        raise ValueError(f"page_timeout must be positive, got {page_timeout}")
    window = window or WINDOW_PER_JOB * jobs
    most_batches = window  # single pages: the window bounds them
    if getattr(job, "many", None) is not None:
        window, most_batches = max(window, 2 * BATCH_PAGES * jobs), 2 * jobs
    if jobs <= 1:
        job.setup()
        if own_process:
            ready_for_pages()
        seconds = page_timeout if own_process else None
        for batch in _batches(items, job):
            results = iter(_page_results(job, [i for i in batch if isinstance(i, Page)],
                                         seconds))
            for item in batch:
                yield item, item if isinstance(item, Skipped) else next(results)
        return
    # per item: the future of its batch and its place there (a Skipped item: itself),
    # and whether it ends its batch
    pending: deque[tuple[Page | Skipped, Future | Skipped, int, bool]] = deque()
    in_flight = 0  # batches
    pool = _pool(job, jobs, page_timeout)
    try:
        batches = _batches(items, job)
        exhausted = False
        while pending or not exhausted:
            while not exhausted and len(pending) < window and in_flight < most_batches:
                batch = next(batches, None)
                if batch is None:
                    exhausted = True
                    break
                pages = [item for item in batch if isinstance(item, Page)]
                future = _submit(pool, pages) if pages else None
                in_flight += 1
                place = 0
                for k, item in enumerate(batch, start=1 - len(batch)):
                    if isinstance(item, Skipped):
                        pending.append((item, item, -1, k == 0))
                    else:
                        pending.append((item, future, place, k == 0))
                        place += 1
            if not pending:
                break
            item, future, place, last = pending.popleft()
            in_flight -= last
            if isinstance(future, Skipped):
                yield item, future
                continue
            try:
                yield item, _returned(future.result()[place])
            except BrokenProcessPool:
                pool.shutdown(wait=False, cancel_futures=True)
                # this page and every page in flight are retried, one at a time
                retry = [item] + [p for p, _, _, _ in pending]
                pending.clear()
                in_flight = 0
                for page in retry:
                    if isinstance(page, Skipped):
                        yield page, page
                        continue
                    pool = _pool(job, 1, page_timeout)
                    try:
                        yield page, _returned(pool.submit(_work, [page]).result()[0])
                    except BrokenProcessPool:
                        yield page, PageError(page.id, "worker died")
                    finally:
                        pool.shutdown(wait=False, cancel_futures=True)
                pool = _pool(job, jobs, page_timeout)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def run_batch(items: Iterable[Page | Skipped], job: PageJob, out: TextIO, *, jobs: int = 1,
              window: int | None = None, checkpoint: Callable[[int], None] | None = None,
              checkpoint_every: int = CHECKPOINT_EVERY, skip_first: int = 0,
              on_skip: Callable[[Page | Skipped, PageError | Skipped], None] | None = None,
              on_page: Callable[[], None] | None = None,
              own_process: bool = False, page_timeout: float | None = None) -> BatchSummary:
    """Run ``job`` over ``items`` and write the lines to ``out`` in input order.

    ``skip_first`` items are passed over unread by the job (done by an earlier run).
    ``checkpoint(items_done)`` is called every ``checkpoint_every`` items and at the end,
    after ``out`` was flushed. ``own_process`` and ``page_timeout``: see
    :func:`map_pages`.
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    summary = BatchSummary()
    writer = ResultWriter(out, summary, checkpoint, checkpoint_every, on_page)
    iterator = iter(items)
    for _ in range(skip_first):
        if next(iterator, None) is None:
            break
        writer.resumed()
    for item, result in map_pages(iterator, job, jobs, window, own_process=own_process,
                                  page_timeout=page_timeout):
        if isinstance(result, PageError | Skipped):
            if on_skip is not None:
                on_skip(item, result)
            writer.add(skipped=result)
        else:
            writer.add(result)
    writer.close()
    return summary


def resumable_paths(path: Path, *, resume: bool) -> tuple[Path, bool, Path, Path]:
    """Where a resumable output named ``path`` goes: the file (symbolic links followed),
    whether it is written directly (a FIFO or a device: :mod:`denoise.output`), its
    partial file (the file itself when direct) and its progress file. A direct output
    cannot be resumed (:class:`ResumeError`)."""
    target = output_target(path)
    if target.stream and resume:
        raise ResumeError(f"{path}: not a regular file (a pipe or a device), so there is "
                          "nothing to resume; run without --resume")
    partial = target.path if target.stream else target.path.with_name(
        target.path.name + ".partial")
    return (target.path, target.stream, partial,
            target.path.with_name(target.path.name + ".progress"))


class ResumableOutput:
    """``PATH.partial`` plus ``PATH.progress``; renamed to ``PATH`` when complete.

    ``PATH`` is the file a symbolic link points to; a FIFO or a device is written
    directly, with no partial file and no resuming (:mod:`denoise.output`).

    ``settings`` (the command and its options) are stored with the progress and must
    match on resume, so a run is never continued with other settings.
    """

    def __init__(self, path: Path, settings: dict[str, object], *, resume: bool) -> None:
        self.path, self.direct, self.partial, self.progress = resumable_paths(
            path, resume=resume)
        self.settings = settings
        self.skip = 0
        size = 0
        if self.direct:
            self.stream: TextIO = self.path.open("w", encoding="utf-8", newline="")
            return
        if resume:
            self.skip, size = self._read_progress()
        elif self.progress.exists() or self.partial.exists():
            self.progress.unlink(missing_ok=True)
        mode = "r+" if resume else "w"
        self.stream = self.partial.open(mode, encoding="utf-8", newline="")
        if resume:
            self.stream.seek(size)
            self.stream.truncate()
        else:
            self.checkpoint(0)  # an interrupted run is resumable from its first page

    def _read_progress(self) -> tuple[int, int]:
        if not self.progress.exists() or not self.partial.exists():
            raise ResumeError(f"{self.path}: nothing to resume (no {self.progress.name} or "
                              f"{self.partial.name}); run without --resume")
        try:
            state = json.loads(self.progress.read_text(encoding="utf-8"))
            items, size = int(state["items"]), int(state["bytes"])
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ResumeError(f"{self.progress}: unreadable progress file ({error})") from None
        if state.get("settings") != self.settings:
            raise ResumeError(f"{self.path}: the interrupted run had other inputs or options; "
                              "resume with the same ones, or run without --resume")
        if size > self.partial.stat().st_size or items < 0 or size < 0:
            raise ResumeError(f"{self.progress}: records more output than "
                              f"{self.partial.name} holds")
        return items, size

    def checkpoint(self, items: int) -> None:
        """Record that ``items`` input items are done (their output is flushed)."""
        self.stream.flush()
        if self.direct:
            return
        os.fsync(self.stream.fileno())
        state = {"items": items, "bytes": self.stream.tell(), "settings": self.settings}
        temporary = self.progress.with_name(self.progress.name + ".tmp")
        temporary.write_text(json.dumps(state), encoding="utf-8")
        temporary.replace(self.progress)

    def finish(self) -> None:
        """The run is complete: the output takes its name, the progress file goes."""
        self.stream.close()
        if self.direct:
            return
        self.partial.replace(self.path)
        self.progress.unlink(missing_ok=True)

    def close(self) -> None:
        """Stop without finishing (an interrupted or failed run): keep partial and
        progress. A flush that fails again (a full disk) is the error being reported,
        and the file is closed all the same."""
        if not self.stream.closed:
            with suppress(OSError):
                self.stream.close()


def default_jobs() -> int:
    """Worker processes by default: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)

