"""``denoise site --out FILE`` written site by site, so an interrupted run can be resumed.

The output goes to ``FILE.partial`` and is renamed to ``FILE`` when the run completes, as
with the per-page commands (:class:`engine.batch.ResumableOutput`). What is done is
counted in sites, not input items: a site's labels need all its pages, so a site is the
unit of work. Sites come out in the order they first appear in the input, so the sites an
interrupted run finished are a prefix of a complete run's; a resumed run drops their
pages before parsing them and labels the others exactly as a complete run would, which
makes the resumed ``FILE`` the same, byte for byte.

``FILE.progress`` is JSON lines, appended to: a header (format and the run's settings,
which must match on resume), then one line per finished site (its name, the output's
size after its blocks, its report). A list rewritten at every checkpoint would cost a
crawl of 100,000 sites quadratic time. The output is flushed to disk before the lines
that name it are written, so a line never points past what is on disk; a line torn by a
kill is ignored (its sites are labelled again) and cut off before new lines follow it.
Saving (an fsync) waits until :data:`CHECKPOINT_PAGES` pages or
:data:`CHECKPOINT_SECONDS` have passed since the last save, at the end of a site; an
interrupted run saves the sites finished since (:meth:`SiteProgress.close`).

With a ``--db`` store, the store commits before each save, so a site recorded as done
has its counts on disk. A site counted but not recorded is counted again on resume,
which changes nothing: a store counts a page once (by id and text digest). An
interrupted run with a store does not save, as the interrupt may have come in the middle
of a page's counts: the store's transaction is rolled back instead.

Input items that cannot be read have no site, so a resumed run names and counts them
again; pages of sites done that failed to parse are among the pages "done by an
earlier run".
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import fields
from pathlib import Path
from typing import BinaryIO

from denoise.errors import ResumeError
from denoise.site.batch import SiteReport
from engine.batch import CHECKPOINT_EVERY, resumable_paths

FORMAT_VERSION = 1
#: Labelled pages, and seconds, between two saves of the progress (each costs an fsync).
CHECKPOINT_PAGES = CHECKPOINT_EVERY
CHECKPOINT_SECONDS = 5.0


class SiteProgress:
    """``PATH.partial`` and ``PATH.progress`` of a ``denoise site`` run.

    ``before_save`` runs before the output is flushed at each save: a ``--db`` store
    commits there, so the counts of a site recorded as done are on disk with it.
    ``done`` holds the reports of the sites an interrupted run finished (on resume).
    """

    def __init__(self, path: Path, settings: dict[str, object], *, resume: bool,
                 before_save: Callable[[], None] | None = None) -> None:
        self.path, self.direct, self.partial, self.progress = resumable_paths(
            path, resume=resume)
        self.settings = json.loads(json.dumps(settings))  # as it reads back from JSON
        self.before_save = before_save
        self.done: dict[str, SiteReport] = {}
        self._pending: list[bytes] = []  # progress lines of sites finished since the save
        self._pages = 0  # pages of those sites
        self._saved_at = time.monotonic()
        self._log: BinaryIO | None = None
        if self.direct:
            self.size = 0
            self.stream: BinaryIO = self.path.open("wb")
        elif resume:
            self.size, kept = self._read_progress()
            self.stream = self.partial.open("r+b")
            self.stream.truncate(self.size)
            self.stream.seek(self.size)
            self._log = self.progress.open("r+b")
            self._log.truncate(kept)
            self._log.seek(kept)
        else:
            self.progress.unlink(missing_ok=True)  # before its partial is emptied
            self.size = 0
            self.stream = self.partial.open("wb")
            self._log = self.progress.open("wb")
            header = {"format": FORMAT_VERSION, "settings": self.settings}
            self._log.write(json.dumps(header).encode() + b"\n")
            self._log.flush()  # resumable from the first site on

    def _read_progress(self) -> tuple[int, int]:
        """The output size of the last finished site, and the bytes of whole lines."""
        if not self.progress.exists() or not self.partial.exists():
            raise ResumeError(f"{self.path}: nothing to resume (no {self.progress.name} or "
                              f"{self.partial.name}); run without --resume")
        lines = self.progress.read_bytes().splitlines(keepends=True)
        header = _whole(lines[0]) if lines else None
        if not isinstance(header, dict) or header.get("format") != FORMAT_VERSION:
            raise ResumeError(f"{self.progress}: unreadable progress file (not a denoise site "
                              f"progress, format {FORMAT_VERSION}); run without --resume")
        if header.get("settings") != self.settings:
            raise ResumeError(f"{self.path}: the interrupted run had other inputs or options; "
                              "resume with the same ones, or run without --resume")
        size, kept = 0, len(lines[0])
        for line in lines[1:]:
            record = _whole(line)
            site = _site_record(record)
            if site is None:  # torn by a kill: what follows it is not trusted either
                break
            if not size <= record["bytes"] <= self.partial.stat().st_size:
                raise ResumeError(f"{self.progress}: records more output than "
                                  f"{self.partial.name} holds; run without --resume")
            self.done[site.site] = site
            size, kept = record["bytes"], kept + len(line)
        return size, kept

    def write(self, text: str) -> None:
        """Output lines (of the site being written)."""
        data = text.encode("utf-8")
        self.stream.write(data)
        self.size += len(data)

    def site_done(self, report: SiteReport) -> None:
        """Every block of ``report``'s site is written; saved with the next checkpoint."""
        record = {"site": report.site, "bytes": self.size, "report": report.as_dict()}
        self._pending.append(json.dumps(record, ensure_ascii=False).encode() + b"\n")
        self._pages += report.pages
        if (self._pages >= CHECKPOINT_PAGES
                or time.monotonic() - self._saved_at >= CHECKPOINT_SECONDS):
            self.save()

    def save(self) -> None:
        """Record the sites finished since the last save, their output on disk first."""
        if not self._pending:
            return
        if self.before_save is not None:
            self.before_save()
        self.stream.flush()
        if not self.direct:  # a pipe or a device cannot be synced
            os.fsync(self.stream.fileno())
        # taken first: an interrupt while they are written must not write them twice
        pending, self._pending, self._pages = self._pending, [], 0
        self._saved_at = time.monotonic()
        if self._log is not None:
            self._log.write(b"".join(pending))
            self._log.flush()

    def finish(self) -> None:
        """The run is complete: the output takes its name, the progress file goes (a
        ``--db`` store commits first, so a complete output never lacks its counts)."""
        if self.before_save is not None:
            self.before_save()
        self.stream.flush()
        if self.direct:
            self.stream.close()
            return
        os.fsync(self.stream.fileno())
        self.stream.close()
        if self._log is not None:
            self._log.close()
        self.partial.replace(self.path)
        self.progress.unlink(missing_ok=True)

    def close(self, *, save: bool) -> None:
        """Stop without finishing (an interrupted run): keep partial and progress, with
        the sites finished since the last save when ``save`` (and the disk allows)."""
        # on an OSError (the disk that stopped the run), those sites are done again
        with suppress(OSError):
            if save:
                self.save()
        for stream in (self.stream, self._log):
            with suppress(OSError):
                if stream is not None:
                    stream.close()

    def discard(self) -> None:
        """Stop a run that cannot be resumed (its input or options are at fault, and would
        be again): partial output and progress go."""
        self.close(save=False)
        if self.direct:
            return
        for path in (self.partial, self.progress):
            with suppress(OSError):
                path.unlink(missing_ok=True)


def forget_interrupted(path: Path) -> None:
    """Remove ``PATH.partial`` and ``PATH.progress`` of an interrupted run, once a run
    that does not resume (``--engine spark``) has written ``PATH`` whole: as a new
    embedded run replaces them, so a later ``--resume`` cannot continue the old run."""
    for leftover in (path.with_name(path.name + ".partial"),
                     path.with_name(path.name + ".progress")):
        leftover.unlink(missing_ok=True)


def _whole(line: bytes) -> object:
    """A whole JSON line's value; None for a line cut short or garbled."""
    if not line.endswith(b"\n"):
        return None
    try:
        return json.loads(line)
    except ValueError:
        return None


def _site_record(record: object) -> SiteReport | None:
    """The report of a finished site's progress line; None if it is not one."""
    if not isinstance(record, dict) or not isinstance(record.get("bytes"), int):
        return None
    report = record.get("report")
    counts = [f.name for f in fields(SiteReport) if f.name != "site"]
    if (not isinstance(report, dict) or not isinstance(record.get("site"), str)
            or report.get("site") != record["site"]
            or not all(isinstance(report.get(name), int) for name in counts)):
        return None
    return SiteReport(record["site"], **{name: report[name] for name in counts})
