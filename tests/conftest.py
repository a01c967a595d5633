import sys
from pathlib import Path

# tests/sitegen.py builds the hand-written sites the tests share
sys.path.insert(0, str(Path(__file__).parent))

import pytest

from corpora.locate import CorpusMissingError, corpus_path


@pytest.fixture(scope="session")
def dev_site_pages():
    """A sample of real pages from the dev sites (skips when the corpora are absent)."""
    from denoise.reader import Skipped, read_pages

    try:
        archive = corpus_path("sites-dev-news.tar.xz")
    except CorpusMissingError as missing:
        pytest.skip(str(missing))
    pages = [p for p in read_pages([archive]) if not isinstance(p, Skipped)]
    return pages[::15]
