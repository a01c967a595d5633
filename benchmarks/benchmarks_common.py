"""What the benchmarks share: the dev-site pages, real search queries."""

from __future__ import annotations

import tarfile
from collections.abc import Callable
from pathlib import Path

from corpora.locate import corpus_path
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


def log_queries(count: int, normal: Callable[[str], str] = str.strip) -> list[str]:
    """The first ``count`` distinct queries of the TREC 2005 Terabyte efficiency log
    (real web search queries, ``id:query`` lines, in the shared ``querylogs``), each
    through ``normal``; empty ones left out."""
    with tarfile.open(corpus_path("querylogs.tar.xz")) as archive:
        member = archive.extractfile("querylogs/trec-terabyte05-efficiency.txt")
        assert member is not None
        lines = member.read().decode("utf-8", "replace").splitlines()
    seen: dict[str, None] = {}
    for line in lines:
        query = normal(line.partition(":")[2])
        if query:
            seen.setdefault(query)
        if len(seen) == count:
            break
    return list(seen)
