"""The page time limit of batch runs (``engine.batch``'s ``page_timeout``)."""

from __future__ import annotations

import io
import signal
import time
from dataclasses import dataclass

import pytest
from repo import SHOP
from typer.testing import CliRunner

from commands import denoise_page
from commands.denoise import app
from denoise.page import Page
from engine.batch import map_pages, run_batch

SLOW_SECONDS = 5.0


@dataclass
class Sleepy:
    """A job whose "slow" pages take :data:`SLOW_SECONDS`."""

    def setup(self) -> None:
        pass

    def __call__(self, page: Page) -> list[str]:
        if "slow" in page.id:
            time.sleep(SLOW_SECONDS)
        return [f"{page.id}\n"]


@dataclass
class SleepyMany(Sleepy):
    """The same, worked a batch at a time."""

    def many(self, pages: list[Page]) -> list[list[str] | Exception]:
        return [self(page) for page in pages]


def pages() -> list[Page]:
    return [Page(id=name, html="<p>x</p>") for name in ("a", "slow", "b", "c")]


@pytest.mark.parametrize("job", [Sleepy(), SleepyMany()])
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_page_over_the_limit_is_skipped_and_the_run_goes_on(job, jobs):
    out = io.StringIO()
    skipped = []
    started = time.perf_counter()
    summary = run_batch(pages(), job, out, jobs=jobs, own_process=True, page_timeout=0.3,
                        on_skip=lambda item, error: skipped.append(error))
    assert time.perf_counter() - started < SLOW_SECONDS
    assert out.getvalue() == "a\nb\nc\n"
    assert [error.source for error in skipped] == ["slow"]
    assert "over the time limit (0.3 s a page)" in skipped[0].reason
    assert summary.skipped == {"over the time limit": 1}
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL  # put back as it was


def test_a_library_callers_process_gets_no_timer():
    """In-process (jobs=1) without own_process the caller's signals are left alone: no
    limit, so the slow page is worked to its end."""
    job = Sleepy()
    results = list(map_pages([Page(id="slow", html="<p>x</p>")], job, 1, page_timeout=0.05))
    assert results[0][1] == ["slow\n"]


def test_denoise_apply_skips_and_counts_a_page_over_the_limit(monkeypatch):
    lines = denoise_page.ApplyJob._lines

    def slow_lines(self, scores):
        if scores.features.blocks.page.id.startswith("brass"):
            time.sleep(SLOW_SECONDS)
        return lines(self, scores)

    monkeypatch.setattr(denoise_page.ApplyJob, "_lines", slow_lines)
    result = CliRunner().invoke(app, ["apply", str(SHOP), "--jobs", "1", "--page-timeout",
                                      "0.5"])
    assert result.exit_code == 0, result.output
    assert "skipped brass-kettle.html: over the time limit (0.5 s a page)" in result.stderr
    written = [line for line in result.stdout.splitlines() if line]
    assert len(written) == len(list(SHOP.glob("*.html"))) - 1
    assert "1 skipped (1 over the time limit)" in result.stderr
