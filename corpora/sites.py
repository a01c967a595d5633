"""The dev sites: ``sites-dev-docs`` (27 documentation sites) and ``sites-dev-news``.

Gold main content: for news sites, a human-extracted text beside each page
(``<site>/_gold/<stem>.txt``); for 17 docs sites, one XPath that selects the main
content (``sites-dev-docs-main-xpath.tsv``), and for the training documentation sites
(``sites-train-docs``) where one XPath does, ours (:data:`TRAIN_DOCS_XPATHS`, beside this
module: written for this project by reading each site's pages, with its coverage and
share of the text). Pages are read with the toolkit's own reader, one folder a site.
"""

from __future__ import annotations

import re
import tarfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from corpora.content import GoldPage, decode_text
from corpora.locate import corpus_path
from denoise.evaluate import xpath_main_text
from denoise.page import Page
from denoise.reader import Skipped, read_pages
from denoise.training import read_main_xpath_tables, read_main_xpaths

SITE_ARCHIVES = ("sites-dev-docs.tar.xz", "sites-dev-news.tar.xz")
DOCS_XPATHS = "sites-dev-docs-main-xpath.tsv"
#: The training documentation sites' main-content XPaths (ours, shipped with the package).
TRAIN_DOCS_XPATHS = Path(__file__).with_name("sites-train-docs-main-xpath.tsv")


def dev_docs_main_xpaths() -> dict[str, str]:
    """Site folder -> XPath of its main content, for the dev docs sites that have one (read
    as ``denoise train --main-xpaths`` reads the file)."""
    return read_main_xpaths(corpus_path(DOCS_XPATHS))


def docs_main_xpaths() -> dict[str, str]:
    """Site folder -> XPath of its main content, for every documentation site that has one:
    the dev sites' and the training sites' (a site in both tables is an error)."""
    return read_main_xpath_tables([corpus_path(DOCS_XPATHS), TRAIN_DOCS_XPATHS])


#: The dev news sites' pages with gold, as a set of main-content pages.
NEWS_SITES = "news-sites"


def news_site_pages(limit: int | None = None) -> Iterator[GoldPage]:
    """The dev news sites' pages with gold, ``limit`` of them evenly spread."""
    gold = news_gold_texts()
    pages = [p for p in read_pages([corpus_path("sites-dev-news.tar.xz")])
             if not isinstance(p, Skipped) and p.id in gold and re.search(r"\w", gold[p.id])]
    if limit is not None and limit < len(pages):
        pages = [pages[int(i * len(pages) / limit)] for i in range(limit)]
    for page in pages:
        yield GoldPage(set_name=NEWS_SITES, page_id=page.id, url=page.url, html=page.html,
                       gold_text=gold[page.id], domain=page.site)


def news_gold_texts(archive: str | Path | None = None) -> dict[str, str]:
    """Page id (archive member path) -> human-extracted main text, for the news sites.

    A third of the gold files are windows-1252, not UTF-8: they are decoded as
    ``content-dev``'s gold is (:func:`corpora.content.decode_text`)."""
    path = Path(archive) if archive else corpus_path("sites-dev-news.tar.xz")
    gold: dict[str, str] = {}
    with tarfile.open(path, "r|*") as tar:
        for member in tar:
            name = PurePosixPath(member.name)
            if member.isfile() and name.parent.name == "_gold" and name.suffix == ".txt":
                stream = tar.extractfile(member)
                if stream is None:
                    continue
                page_id = str(name.parent.parent / (name.stem + ".html"))
                gold[page_id] = decode_text(stream.read())
    return gold


def iter_archives() -> Iterator[Path]:
    """The dev site archives that are present."""
    for name in SITE_ARCHIVES:
        yield corpus_path(name)


def gold_main_texts(pages: list[Page]) -> dict[str, str]:
    """Page id -> gold main text, for the pages of ``pages`` that have gold."""
    gold = news_gold_texts()
    xpaths = docs_main_xpaths()
    for page in pages:
        if page.site in xpaths:
            text = xpath_main_text(page.html, xpaths[page.site])
            if text is not None:
                gold[page.id] = text
    return gold
