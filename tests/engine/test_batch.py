"""``engine.batch``: ordered multi-process batches, bounded memory, dead workers, resumable
output; and its command-line side (``commands.common``) through ``kwx extract``."""

from __future__ import annotations

import functools
import io
import json
import os
import shutil
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from repo import SHOP
from typer.testing import CliRunner

from commands import common as cli_batch
from commands.kwx import app
from denoise.errors import PageError
from denoise.page import Page
from denoise.reader import Skipped
from denoise.steps import step_by_step
from engine import batch
from engine.batch import (
    WINDOW_PER_JOB,
    BatchSummary,
    ResumableOutput,
    ResumeError,
    map_pages,
    run_batch,
)

SETTINGS = {"command": "test", "top": 3}


# --- jobs: module level, so worker processes (fork) can unpickle them --------------------


class EchoJob:
    """One line per page, with a non-ASCII character (bytes != characters); refuses
    pages whose id starts with ``bad``; pages whose number is a multiple of 3 take longer,
    so with several workers results come back out of order."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.ready = False

    def setup(self) -> None:
        self.ready = True

    def __call__(self, page: Page) -> list[str]:
        if not self.ready:
            raise RuntimeError("setup() did not run in this process")
        if page.id.startswith("bad"):
            raise PageError(page.id, "refused: no text (0 words)")
        if self.delay and _number(page) % 3 == 0:
            time.sleep(self.delay)
        return [f"{page.id}\tcafé ☕ {len(page.html)}\n", f"  second line of {page.id}\n"]


class PidJob:
    """The page id and the process that did it."""

    def setup(self) -> None:
        pass

    def __call__(self, page: Page) -> list[str]:
        return [f"{page.id} {os.getpid()}\n"]


class DyingJob(PidJob):
    """Kills its worker process on page ``die`` (after ``delay`` seconds)."""

    def __init__(self, die: str = "p7", delay: float = 0.0) -> None:
        self.die = die
        self.delay = delay

    def __call__(self, page: Page) -> list[str]:
        if page.id == self.die:
            time.sleep(self.delay)
            os._exit(1)
        return super().__call__(page)


class BuggyJob(PidJob):
    """Fails with an unexpected exception (a bug, not a PageError) on page ``p3``."""

    def __call__(self, page: Page) -> list[str]:
        if page.id == "p3":
            raise KeyError("[")
        return super().__call__(page)


class StepJob(EchoJob):
    """EchoJob's lines, worked a batch at a time (``many``); records each batch's page
    ids in ``batches`` (in this process), and fails unexpectedly on page ``p8``."""

    batches: ClassVar[list[list[str]]] = []

    def many(self, pages: list[Page]) -> list[list[str] | Exception]:
        type(self).batches.append([page.id for page in pages])

        def one(page: Page) -> list[str]:
            if page.id == "p8":
                raise KeyError("[")
            return self(page)

        return step_by_step(pages, [one])


def _number(page: Page) -> int:
    return int("".join(c for c in page.id if c.isdigit()) or 0)


def pages(n: int) -> list[Page]:
    return [Page(id=f"p{i}", html=f"<p>page {i}</p>" * (i % 5 + 1)) for i in range(n)]


def mixed(n: int = 24) -> list[Page | Skipped]:
    """Pages with some unreadable items and some pages the job refuses."""
    items: list[Page | Skipped] = []
    for i, page in enumerate(pages(n)):
        if i % 7 == 3:
            items.append(Skipped(f"item{i}.html", "empty"))
        elif i % 5 == 4:
            items.append(Page(id=f"bad{i}", html="<p></p>"))
        else:
            items.append(page)
    return items


class Sink:
    """A text output that counts the pages written to it."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    @property
    def text(self) -> str:
        return "".join(self.parts)


def run(items, job, jobs=1, **kwargs) -> tuple[str, BatchSummary, list]:
    out = Sink()
    skips: list = []
    summary = run_batch(items, job, out, jobs=jobs,
                        on_skip=lambda item, why: skips.append((item, why)), **kwargs)
    return out.text, summary, skips


# --- order, skips, summary ------------------------------------------------------------


def expected_text(items) -> str:
    job = EchoJob()
    job.setup()
    return "".join("".join(job(p)) for p in items
                   if isinstance(p, Page) and not p.id.startswith("bad"))


@pytest.mark.parametrize("jobs", [1, 2])
def test_output_in_input_order_skips_counted_by_reason(jobs):
    items = mixed()
    text, summary, skips = run(items, EchoJob(delay=0.01), jobs=jobs, window=4)
    assert text == expected_text(items)
    good = [p for p in items if isinstance(p, Page) and not p.id.startswith("bad")]
    assert [line.split("\t")[0] for line in text.splitlines()[::2]] == [p.id for p in good]
    unreadable = [p for p in items if isinstance(p, Skipped)]
    refused = [p for p in items if isinstance(p, Page) and p.id.startswith("bad")]
    assert summary.written == len(good)
    assert summary.skipped == Counter({"empty": len(unreadable), "refused": len(refused)})
    assert summary.read == len(items) and summary.resumed == 0
    # on_skip gets each bad item, in input order, with why it was left out
    assert [item for item, _ in skips] == [p for p in items if p not in good]
    for item, why in skips:
        if isinstance(item, Skipped):
            assert why is item
        else:
            assert isinstance(why, PageError)
            assert (why.source, why.reason) == (item.id, "refused: no text (0 words)")
    line = summary.line()
    assert line.startswith(f"{len(items)} pages read, {len(good)} written, "
                           f"{len(unreadable) + len(refused)} skipped (")
    assert f"{len(unreadable)} empty" in line and f"{len(refused)} refused" in line


def test_one_and_two_jobs_give_identical_output_and_summary():
    items = mixed(40)
    one, summary_one, skips_one = run(items, EchoJob(), jobs=1)
    two, summary_two, skips_two = run(items, EchoJob(delay=0.005), jobs=2, window=3)
    assert one == two
    assert summary_one.skipped == summary_two.skipped
    assert summary_one.written == summary_two.written
    assert [(i, str(w)) for i, w in skips_one] == [(i, str(w)) for i, w in skips_two]


def test_no_work_and_bad_jobs():
    text, summary, _ = run([], EchoJob(), jobs=2)
    assert text == "" and summary.read == 0
    with pytest.raises(ValueError, match="jobs"):
        run(pages(2), EchoJob(), jobs=0)


# --- memory bound ---------------------------------------------------------------------


def counted(items, out: Sink, ahead: list[int]) -> Iterator[Page]:
    """``items``, noting at every pull how many items are pulled but not yet written."""
    for pulled, item in enumerate(items, 1):
        ahead.append(pulled - len(out.parts))
        yield item


@pytest.mark.parametrize(("jobs", "window", "bound"),
                         [(2, 4, 4), (1, None, 1), (2, None, WINDOW_PER_JOB * 2)])
def test_pulls_at_most_a_window_ahead_of_the_output(jobs, window, bound):
    out = Sink()
    ahead: list[int] = []
    n = 80
    summary = run_batch(counted(pages(n), out, ahead), EchoJob(), out, jobs=jobs,
                        window=window)
    assert summary.written == n and len(ahead) == n
    assert max(ahead) <= bound + 2, ahead
    if jobs > 1:
        assert max(ahead) >= 2  # it does work ahead: the workers are kept busy


# --- dead workers ---------------------------------------------------------------------


@pytest.mark.slow
def test_a_page_that_kills_its_worker_is_skipped_and_the_rest_go_on():
    n = 40
    text, summary, skips = run(pages(n), DyingJob(), jobs=2, window=4)
    lines = text.splitlines()
    assert [line.split()[0] for line in lines] == [f"p{i}" for i in range(n) if i != 7]
    assert summary.written == n - 1
    assert summary.skipped == Counter({"worker died": 1})
    assert len(skips) == 1
    page, why = skips[0]
    assert page.id == "p7" and isinstance(why, PageError) and why.reason == "worker died"
    # a fresh pool of (at most) 2 workers did the pages after the retries, none here
    pids = {i: int(line.split()[1]) for i, line in
            ((int(line.split()[0][1:]), line) for line in lines)}
    before = {pids[i] for i in range(3)}
    after = {pids[i] for i in range(n - 15, n)}
    assert os.getpid() not in after
    assert not before & after
    assert len(after) <= 2


class SlowSink(Sink):
    """An output whose first write takes a while (a slow disk, a slow reader)."""

    def write(self, text: str) -> int:
        if not self.parts:
            time.sleep(0.5)
        return super().write(text)


@pytest.mark.slow
def test_a_worker_dying_while_the_output_is_written():
    # p0 is done, p1 kills its worker while p0 is being written: the pool is broken
    # when the runner hands it the next page
    out = SlowSink()
    summary = run_batch(pages(12), DyingJob(die="p1", delay=0.1), out, jobs=2, window=4)
    assert [line.split()[0] for line in out.text.splitlines()] == [
        f"p{i}" for i in range(12) if i != 1]
    assert summary.skipped == Counter({"worker died": 1})


def test_refused_pages_are_not_mistaken_for_dead_workers():
    # a PageError crosses the process boundary and keeps its reason
    items = [Page(id="bad1", html=""), *pages(5), Page(id="bad2", html="")]
    text, summary, skips = run(items, EchoJob(), jobs=2)
    assert summary.skipped == Counter({"refused": 2})
    assert [why.reason for _, why in skips] == ["refused: no text (0 words)"] * 2
    assert text == expected_text(items)


# --- resumable output -----------------------------------------------------------------


def interrupted(items, after: int) -> Iterator:
    """``items``, then a Ctrl-C once ``after`` of them were read."""
    for i, item in enumerate(items):
        if i == after:
            raise KeyboardInterrupt
        yield item


def complete_run(path: Path, items, jobs: int = 1) -> str:
    output = ResumableOutput(path, SETTINGS, resume=False)
    run_batch(items, EchoJob(), output.stream, jobs=jobs, checkpoint=output.checkpoint,
              checkpoint_every=3)
    output.finish()
    return path.read_text(encoding="utf-8")


def test_output_takes_its_name_only_when_finished(tmp_path):
    path = tmp_path / "out.jsonl"
    output = ResumableOutput(path, SETTINGS, resume=False)
    run_batch(pages(5), EchoJob(), output.stream, checkpoint=output.checkpoint)
    assert not path.exists()
    assert output.partial.exists() and output.progress.exists()
    output.finish()
    assert path.read_text(encoding="utf-8") == expected_text(pages(5))
    assert not output.partial.exists() and not output.progress.exists()
    # run again without resume: a fresh start, the old output replaced on finish
    again = ResumableOutput(path, SETTINGS, resume=False)
    run_batch(pages(2), EchoJob(), again.stream, checkpoint=again.checkpoint)
    assert path.read_text(encoding="utf-8") == expected_text(pages(5))
    again.finish()
    assert path.read_text(encoding="utf-8") == expected_text(pages(2))


@pytest.mark.parametrize(("jobs", "after", "every"), [(1, 13, 3), (2, 17, 3), (1, 2, 100)])
def test_interrupted_run_resumes_to_the_same_output(tmp_path, jobs, after, every):
    items = mixed(30)
    whole = complete_run(tmp_path / "whole.txt", items)
    assert whole == expected_text(items)

    path = tmp_path / "out.txt"
    output = ResumableOutput(path, SETTINGS, resume=False)
    with pytest.raises(KeyboardInterrupt):
        run_batch(interrupted(items, after), EchoJob(), output.stream, jobs=jobs, window=4,
                  checkpoint=output.checkpoint, checkpoint_every=every)
    output.close()
    assert not path.exists()
    assert output.partial.exists() and output.progress.exists()
    state = json.loads(output.progress.read_text(encoding="utf-8"))
    if jobs == 1:
        assert state["items"] == after // every * every
    else:  # pages in flight when the reader stopped are not done: at most a window less
        assert state["items"] % every == 0
        assert after - 4 - every < state["items"] <= after
    partial = output.partial.read_bytes()
    assert whole.encode().startswith(partial)  # what is there is right, in order
    assert len(partial) >= state["bytes"]
    if jobs == 1 and after % every:
        assert len(partial) > state["bytes"]  # written after the checkpoint: to truncate

    resumed = ResumableOutput(path, SETTINGS, resume=True)
    assert resumed.skip == state["items"]
    assert resumed.partial.stat().st_size == state["bytes"]  # cut back to the checkpoint
    summary = run_batch(items, EchoJob(), resumed.stream, jobs=jobs,
                        checkpoint=resumed.checkpoint, checkpoint_every=every,
                        skip_first=resumed.skip)
    resumed.finish()
    assert summary.resumed == state["items"]
    assert summary.read == len(items) - state["items"]
    assert path.read_text(encoding="utf-8") == whole  # nothing twice, nothing lost
    assert not resumed.partial.exists() and not resumed.progress.exists()


def test_resume_drops_a_torn_tail_longer_than_the_rest(interrupted_output):
    # killed mid-write: bytes after the checkpoint, more than the rest of the run makes
    partial = interrupted_output.with_name(interrupted_output.name + ".partial")
    with partial.open("ab") as stream:
        stream.write(b"\xe2\x98 torn line" * 500)
    output = ResumableOutput(interrupted_output, SETTINGS, resume=True)
    run_batch(pages(20), EchoJob(), output.stream, skip_first=output.skip,
              checkpoint=output.checkpoint)
    output.finish()
    assert interrupted_output.read_text(encoding="utf-8") == expected_text(pages(20))


def test_resume_twice(tmp_path):
    items = mixed(30)
    whole = complete_run(tmp_path / "whole.txt", items)
    path = tmp_path / "out.txt"
    output = ResumableOutput(path, SETTINGS, resume=False)
    with pytest.raises(KeyboardInterrupt):
        run_batch(interrupted(items, 8), EchoJob(), output.stream,
                  checkpoint=output.checkpoint, checkpoint_every=3)
    output.close()
    again = ResumableOutput(path, SETTINGS, resume=True)
    with pytest.raises(KeyboardInterrupt):
        run_batch(interrupted(items, 20), EchoJob(), again.stream, skip_first=again.skip,
                  checkpoint=again.checkpoint, checkpoint_every=3)
    again.close()
    assert json.loads(again.progress.read_text(encoding="utf-8"))["items"] == 18
    last = ResumableOutput(path, SETTINGS, resume=True)
    run_batch(items, EchoJob(), last.stream, skip_first=last.skip,
              checkpoint=last.checkpoint, checkpoint_every=3)
    last.finish()
    assert path.read_text(encoding="utf-8") == whole


@pytest.fixture
def interrupted_output(tmp_path) -> Path:
    """The output path of a run stopped after 7 of 20 pages (checkpoint every 3)."""
    path = tmp_path / "out.txt"
    output = ResumableOutput(path, SETTINGS, resume=False)
    with pytest.raises(KeyboardInterrupt):
        run_batch(interrupted(pages(20), 7), EchoJob(), output.stream,
                  checkpoint=output.checkpoint, checkpoint_every=3)
    output.close()
    return path


def _state(path: Path) -> tuple[bytes, bytes]:
    partial = path.with_name(path.name + ".partial")
    progress = path.with_name(path.name + ".progress")
    return partial.read_bytes(), progress.read_bytes()


def test_resume_with_other_settings_is_refused_and_keeps_the_run(interrupted_output):
    before = _state(interrupted_output)
    with pytest.raises(ResumeError, match="other inputs or options") as error:
        ResumableOutput(interrupted_output, {**SETTINGS, "top": 4}, resume=True)
    assert str(interrupted_output) in str(error.value)
    assert _state(interrupted_output) == before  # still resumable with the right settings
    assert ResumableOutput(interrupted_output, SETTINGS, resume=True).skip == 6


@pytest.mark.parametrize("progress", [
    "{not json", "", "[1, 2]", '"items"', '{"items": 3}', '{"items": "x", "bytes": 0}',
    '{"items": null, "bytes": 0}', '{"items": -1, "bytes": 0, "settings": %s}',
])
def test_corrupt_progress_file(interrupted_output, progress):
    progress_file = interrupted_output.with_name(interrupted_output.name + ".progress")
    progress_file.write_text(progress.replace("%s", json.dumps(SETTINGS)), encoding="utf-8")
    with pytest.raises(ResumeError) as error:
        ResumableOutput(interrupted_output, SETTINGS, resume=True)
    assert str(interrupted_output) in str(error.value)


def test_progress_recording_more_than_the_partial_holds(interrupted_output):
    partial = interrupted_output.with_name(interrupted_output.name + ".partial")
    progress = interrupted_output.with_name(interrupted_output.name + ".progress")
    state = json.loads(progress.read_text(encoding="utf-8"))
    assert state["bytes"] > 10
    partial.write_bytes(partial.read_bytes()[: state["bytes"] - 10])  # the disk lost a tail
    with pytest.raises(ResumeError, match="records more output") as error:
        ResumableOutput(interrupted_output, SETTINGS, resume=True)
    assert partial.name in str(error.value)


def test_nothing_to_resume(tmp_path):
    path = tmp_path / "out.txt"
    with pytest.raises(ResumeError, match="nothing to resume") as error:
        ResumableOutput(path, SETTINGS, resume=True)
    assert str(path) in str(error.value)
    assert not path.with_name("out.txt.partial").exists()
    complete_run(path, pages(3))  # a finished run leaves nothing to resume either
    with pytest.raises(ResumeError, match="nothing to resume"):
        ResumableOutput(path, SETTINGS, resume=True)
    assert path.read_text(encoding="utf-8") == expected_text(pages(3))


def test_partial_without_progress_is_not_resumable(interrupted_output):
    interrupted_output.with_name(interrupted_output.name + ".progress").unlink()
    with pytest.raises(ResumeError, match="nothing to resume"):
        ResumableOutput(interrupted_output, SETTINGS, resume=True)


# --- the command line: kwx extract ----------------------------------------------------

runner = CliRunner()


def kwx(args: list) -> object:
    result = runner.invoke(app, ["extract", *map(str, args)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Path:
    """The example shop's pages and an empty one."""
    folder = tmp_path_factory.mktemp("shop")
    for page in sorted(SHOP.glob("*.html")):
        shutil.copy(page, folder / page.name)
    (folder / "empty.html").write_bytes(b"")
    return folder


@pytest.fixture(scope="module")
def shop_output(shop) -> str:
    result = kwx([shop, "--jobs", "1"])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.slow
def test_cli_two_jobs_same_output_as_one(shop, shop_output):
    names = sorted(p.name for p in SHOP.glob("*.html"))
    assert [json.loads(line)["page"] for line in shop_output.splitlines()] == names
    result = kwx([shop, "--jobs", "2"])
    assert result.exit_code == 0, result.output
    assert result.stdout == shop_output
    assert "skipped " in result.stderr and "empty.html" in result.stderr
    summary = result.stderr.strip().splitlines()[-1]
    assert summary.startswith(f"{len(names) + 1} pages read, {len(names)} written, 1 skipped (")


@pytest.mark.slow
def test_cli_output_file(shop, shop_output, tmp_path):
    out = tmp_path / "keywords.jsonl"
    result = kwx([shop, "--jobs", "2", "-o", out])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert out.read_text(encoding="utf-8") == shop_output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keywords.jsonl"]


def test_cli_resume_needs_an_output_file(shop):
    result = kwx([shop, "--resume"])
    assert result.exit_code == 2
    assert "--out" in result.output
    assert result.stdout == ""


def test_cli_resume_with_nothing_to_resume(shop, tmp_path):
    out = tmp_path / "k.jsonl"
    result = kwx([shop, "-o", out, "--resume"])
    assert result.exit_code == 2
    assert "nothing to resume" in result.stderr and str(out) in result.stderr
    assert not out.exists()


@pytest.mark.slow
def test_cli_interrupted_run_resumes(shop, shop_output, tmp_path, monkeypatch):
    out = tmp_path / "k.jsonl"
    read_pages = cli_batch.read_pages
    monkeypatch.setattr(cli_batch, "run_batch",
                        functools.partial(batch.run_batch, checkpoint_every=2))
    monkeypatch.setattr(cli_batch, "read_pages",
                        lambda *a, **k: interrupted(read_pages(*a, **k), 5))
    # kwx takes pages in batches: pages read into a batch not yet worked are done
    # again on resume; batches of two let four pages finish before the interrupt
    monkeypatch.setattr(batch, "BATCH_PAGES", 2)
    result = kwx([shop, "-o", out, "--jobs", "1"])
    assert result.exit_code == 130
    assert "interrupted" in result.stderr and "--resume" in result.stderr
    assert not out.exists()
    progress = json.loads(out.with_name("k.jsonl.progress").read_text(encoding="utf-8"))
    assert progress["items"] == 4

    # other options: refused, the interrupted run kept
    result = kwx([shop, "-o", out, "--resume", "--top", "3"])
    assert result.exit_code == 2
    assert str(out) in result.stderr and "other inputs or options" in result.stderr
    assert out.with_name("k.jsonl.partial").exists()

    monkeypatch.setattr(cli_batch, "read_pages", read_pages)
    result = kwx([shop, "-o", out, "--resume", "--jobs", "2"])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == shop_output
    summary = result.stderr.strip().splitlines()[-1]
    assert summary.startswith("3 pages read, 4 done by an earlier run, 3 written, 0 skipped")
    assert not out.with_name("k.jsonl.partial").exists()
    assert not out.with_name("k.jsonl.progress").exists()


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_page_the_job_fails_on_unexpectedly_is_skipped_not_the_run(jobs):
    out = io.StringIO()
    skipped = []
    summary = run_batch(pages(6), BuggyJob(), out, jobs=jobs,
                        on_skip=lambda item, reason: skipped.append(str(reason)))
    assert [line.split()[0] for line in out.getvalue().splitlines()] == [
        "p0", "p1", "p2", "p4", "p5"]
    assert summary.written == 5
    assert skipped == ["p3: internal error (KeyError: '[')"]
    assert summary.skipped == {"internal error": 1}


def test_a_job_runs_with_its_models_out_of_the_gc_walks_and_one_blas_thread():
    # in a command's own process (own_process); a library caller's: test_safe_process.py
    import gc

    from threadpoolctl import threadpool_info, threadpool_limits

    class Loading:
        model: list | None = None

        def setup(self):
            self.model = [{"weights": [1.0, 2.0]}]  # what a model load leaves behind

        def __call__(self, page):
            walked = any(o is self.model for o in gc.get_objects())
            threads = {pool["num_threads"] for pool in threadpool_info()
                       if pool["user_api"] == "blas"}
            return [f"{page.id} walked={walked} blas={sorted(threads)}\n"]

    gc.unfreeze()
    limits = threadpool_limits()  # to put the test process back as it was
    try:
        results = list(map_pages([Page(id="a", html="<p>x</p>")], Loading(), jobs=1,
                                 own_process=True))
    finally:
        gc.unfreeze()
        limits.restore_original_limits()
    assert results[0][1] in (["a walked=False blas=[1]\n"], ["a walked=False blas=[]\n"])


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_job_with_many_gets_batches_and_answers_for_each_page_in_order(jobs, monkeypatch):
    monkeypatch.setattr(batch, "BATCH_PAGES", 4)
    items = mixed(30)
    expected_text, _, expected_skips = run(
        [i for i in items if not (isinstance(i, Page) and i.id == "p8")], EchoJob())
    StepJob.batches = []
    text, summary, skips = run(items, StepJob(delay=0.01), jobs=jobs)
    assert text == expected_text  # in input order, p8 left out
    assert [item.id if isinstance(item, Page) else item.source for item, _ in skips] == [
        i.id if isinstance(i, Page) else i.source for i in items
        if isinstance(i, Skipped) or i.id.startswith("bad") or i.id == "p8"]
    assert [str(why) for item, why in skips if getattr(item, "id", "") == "p8"] == [
        "p8: internal error (KeyError: '[')"]
    assert summary.written == expected_text.count("second line")
    assert len(skips) == len(expected_skips) + 1
    if jobs == 1:  # consecutive pages, four at a time (the unreadable items ride along)
        ids = [i.id for i in items if isinstance(i, Page)]
        assert StepJob.batches == [ids[k:k + 4] for k in range(0, len(ids), 4)]


def test_a_batch_holds_at_most_its_characters_of_html_but_always_a_page(monkeypatch):
    monkeypatch.setattr(batch, "BATCH_CHARS", 100)
    big = [Page(id=f"p{i}", html="x" * size) for i, size in enumerate([60, 30, 20, 500, 10])]
    assert [[p.id for p in b] for b in batch._batches(big, StepJob())] == [
        ["p0", "p1"], ["p2"], ["p3"], ["p4"]]
    assert [len(b) for b in batch._batches(big, EchoJob())] == [1] * 5  # no many: single


def test_step_by_step_takes_each_step_over_all_values_and_keeps_failures_apart():
    calls = []

    def halve(value: int) -> int:
        calls.append(("halve", value))
        if value % 2:
            raise ValueError(f"{value} is odd")
        return value // 2

    def show(value: int) -> str:
        calls.append(("show", value))
        return f"<{value}>"

    results = step_by_step([4, 3, 8], [halve, show])
    assert results[0] == "<2>" and results[2] == "<4>"
    assert isinstance(results[1], ValueError) and str(results[1]) == "3 is odd"
    assert calls == [("halve", 4), ("halve", 3), ("halve", 8), ("show", 2), ("show", 4)]

    def interrupt(value: int) -> int:
        raise KeyboardInterrupt  # not a page's problem: the batch stops

    with pytest.raises(KeyboardInterrupt):
        step_by_step([1, 2], [interrupt])


class BrokenBatchJob(EchoJob):
    """A ``many`` that fails as a whole (a bug of the batch, not of a page)."""

    def many(self, pages: list[Page]) -> list[list[str] | Exception]:
        raise RuntimeError("the batch's own bug")


def test_a_batch_that_fails_as_a_whole_is_worked_again_a_page_at_a_time():
    items = mixed(12)
    assert run(items, BrokenBatchJob())[0] == run(items, EchoJob())[0]
