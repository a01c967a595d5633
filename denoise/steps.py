"""A batch of pages worked step by step: every page through one step before any goes on
to the next.

A page's steps read different code and tables (the parser; the detector's forest and
vocabulary; the keyword extractor's chunk cache and phrase tables), and on a crawl each
page's parse evicts what the page before it warmed. Run over a batch, a step finds its
tables where the previous page left them (``benchmarks/ab.py`` measures what that is
worth to a command).

The results are each page's own, as if it had gone through all the steps alone, when
the steps keep no state between pages or keep it in one step only (that step still
meets the pages in their order).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def step_by_step(values: Sequence[Any], steps: Sequence[Callable[[Any], Any]],
                 ) -> list[Any]:
    """Each of ``values`` through ``steps`` in turn, one step over all of them at a time:
    each one's last result, or the :class:`Exception` a step raised on it (which then
    skips the steps after; the others go on). Steps must not return exceptions."""
    results: list[Any] = list(values)
    failed = [False] * len(results)
    for step in steps:
        for index, value in enumerate(results):
            if failed[index]:
                continue
            try:
                results[index] = step(value)
            except Exception as error:  # this page's problem, not the batch's
                results[index], failed[index] = error, True
    return results
