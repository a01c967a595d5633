"""The text a mining task sees of each page: what a de-noising mode keeps of it.

The modes are :class:`denoise.cleaning.Mode` (``none``, ``site``, ``page``, ``main``:
Chakrabarti, Kumar & Punera's FULLTEXT, SITELEVEL and PAGELEVEL, and the main content);
this module only turns what :func:`denoise.cleaning.clean_pages` keeps into text, one line
per block, so block boundaries stay visible to whoever splits them into words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from denoise.arguments import expect_pages
from denoise.cleaning import PAGE_RECALL, Cleaned, Cleaner, Mode, clean_pages, models_used
from denoise.detector import TemplateDetector
from denoise.errors import PageError
from denoise.main_content import MainContentExtractor
from denoise.page import Page
from denoise.steps import step_by_step
from mining.shingles import word_hashes

__all__ = ["PAGE_RECALL", "Mode", "PageWords", "models_used", "page_texts", "text_steps"]


def page_texts(pages: Iterable[Page], mode: Mode | str, *,
               detector: TemplateDetector | None = None,
               extractor: MainContentExtractor | None = None,
               on_error: Callable[[PageError], None] | None = None) -> Iterator[tuple[Page, str]]:
    """Each page with its text under ``mode``, in input order except for ``site``
    (which groups the batch by site first: sites in order of first appearance, and
    hands back copies of the pages without their HTML, so match them by ``id``).

    A page that cannot be parsed goes to ``on_error`` (raised without one). ``detector``
    is the page-level detector for ``page`` (default: the shipped one at
    :data:`PAGE_RECALL`), ``extractor`` the main-content extractor for ``main``
    (default: the shipped one); each is loaded once.
    """
    pages = expect_pages(pages, "page_texts")
    for cleaned in clean_pages(pages, mode, detector=detector, extractor=extractor,
                               on_error=on_error):
        yield cleaned.page, cleaned.text


def text_steps(mode: Mode | str, *, detector: TemplateDetector | None = None,
               extractor: MainContentExtractor | None = None) -> list[Callable[[Any], Any]]:
    """The steps from a page to its text under ``mode`` (any but ``site``, which needs
    the other pages of the site): applied in turn to one page they give its text as
    :func:`page_texts` does (which runs them), and a batch can go through them one step
    at a time (:func:`denoise.steps.step_by_step`), each step finding its tables warm.
    ``detector`` and ``extractor`` default as in :func:`page_texts`."""
    cleaner = Cleaner(mode, detector=detector, extractor=extractor)
    return [*cleaner.steps(), _text]


def _text(cleaned: Cleaned) -> str:
    return cleaned.text


@dataclass
class PageWords:
    """The word hashes (:func:`mining.shingles.word_hashes`) of a page's text under a
    mode other than ``site``: a page job (call :meth:`setup` first, where the models
    load; a pickled job leaves them behind, for a worker process to load its own)."""

    mode: Mode
    cleaner: Cleaner | None = field(default=None, repr=False)

    def setup(self) -> None:
        if self.cleaner is None:
            self.cleaner = Cleaner(self.mode)

    def __getstate__(self) -> dict[str, object]:
        return {**self.__dict__, "cleaner": None}

    def __call__(self, page: Page) -> np.ndarray:
        assert self.cleaner is not None, "call setup() first"  # noqa: S101
        return word_hashes(self.cleaner(page).text)

    def many(self, pages: list[Page]) -> list[np.ndarray | Exception]:
        """Each page's word hashes, worked step by step over the batch
        (:func:`denoise.steps.step_by_step`: the same words as one page at a time)."""
        assert self.cleaner is not None, "call setup() first"  # noqa: S101
        return step_by_step(pages, [*self.cleaner.steps(), _text, word_hashes])
