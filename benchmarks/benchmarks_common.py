"""What the benchmarks share: the dev-site pages."""

from __future__ import annotations

from pathlib import Path

from corpora.sites import iter_archives
from denoise.page import Page
from denoise.reader import Skipped, read_pages


def load_pages() -> list[Page]:
    """Every page of the dev site archives, one folder a site."""
    pages: list[Page] = []
    for archive in iter_archives():
        for item in read_pages([archive]):
            if isinstance(item, Skipped):
                print(f"skipped {item}")
            else:
                pages.append(item)
    return pages


def emit(text: str, markdown: Path | None) -> None:
    """Print a benchmark's tables, and write them to ``markdown`` when asked."""
    print(text)
    if markdown:
        markdown.parent.mkdir(parents=True, exist_ok=True)
        markdown.write_text(text + "\n", encoding="utf-8")
