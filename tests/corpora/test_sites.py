"""The documentation sites' main-content XPaths (``corpora.sites``)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from corpora.locate import CorpusMissingError, corpus_path
from corpora.sites import TRAIN_DOCS_XPATHS, dev_docs_main_xpaths, docs_main_xpaths
from denoise.evaluate import xpath_main_text
from denoise.reader import Skipped, read_pages
from denoise.training import read_main_xpaths


def _corpus(name: str) -> Path:
    """The shared corpus file ``name``; the test skips without it."""
    try:
        return corpus_path(name)
    except CorpusMissingError as missing:
        pytest.skip(str(missing))


def _rows() -> list[str]:
    """The table's lines of a site: no comment, no header."""
    return [line for line in TRAIN_DOCS_XPATHS.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith(("#", "site\t"))]


def test_the_training_sites_table_reads():
    xpaths = read_main_xpaths(TRAIN_DOCS_XPATHS)
    assert len(xpaths) == 54 and all(site.startswith("debian/") for site in xpaths)
    assert len(_rows()) == 65  # every training site: an XPath or "-"


@pytest.mark.corpus
def test_every_training_site_is_named_once_and_none_is_a_dev_site():
    with _corpus("sites-train-docs-manifest.tsv").open(encoding="utf-8") as stream:
        sites = {f"debian/{row['site']}" for row in csv.DictReader(stream, delimiter="\t")}
    named = [line.split("\t", 1)[0] for line in _rows()]
    assert sorted(named) == sorted(sites)
    assert not set(read_main_xpaths(TRAIN_DOCS_XPATHS)) & set(dev_docs_main_xpaths())
    assert len(docs_main_xpaths()) == 54 + 17


@pytest.mark.corpus
def test_each_xpath_selects_words_on_its_sites_pages():
    archive = _corpus("sites-train-docs.tar.xz")
    xpaths = read_main_xpaths(TRAIN_DOCS_XPATHS)
    seen: dict[str, int] = {}
    found: dict[str, int] = {}
    for page in read_pages([archive]):
        if isinstance(page, Skipped) or page.site not in xpaths or seen.get(page.site, 0) >= 4:
            continue
        seen[page.site] = seen.get(page.site, 0) + 1
        main = xpath_main_text(page.html, xpaths[page.site])
        found[page.site] = found.get(page.site, 0) + bool(main and main.split())
    assert seen.keys() == xpaths.keys()
    assert {site for site, count in found.items() if count < 3} == set()  # a page may lack it
