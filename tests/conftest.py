"""Fixtures every test folder shares, and the markers given by what a test uses.

A test that asks for a fixture reading the shared corpora is marked ``corpus``; a test
that asks for the Spark session is marked ``spark``; ``corpus`` and ``spark`` tests are
also ``slow``, so ``pytest -m "not slow"`` runs without the corpora, Java or Spark. Other
slow tests carry ``@pytest.mark.slow`` themselves. The helpers (``sitegen``, ``kwxpages``,
``npzfiles``, ``repo``) are in tests/helpers/, on the path through pyproject.toml.
"""

import importlib.util
import os
import shutil

import pytest

from corpora.locate import CorpusMissingError, corpus_path

#: Fixtures that read the shared corpora (tests calling ``corpus_path`` themselves are
#: marked ``corpus`` by hand).
CORPUS_FIXTURES = {"dev_site_pages"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if CORPUS_FIXTURES.intersection(item.fixturenames):
            item.add_marker(pytest.mark.corpus)
        if "spark" in item.fixturenames:
            item.add_marker(pytest.mark.spark)
        if item.get_closest_marker("corpus") or item.get_closest_marker("spark"):
            item.add_marker(pytest.mark.slow)


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


@pytest.fixture(scope="session")
def spark():
    """One local[2] Spark session for every ``--engine spark`` test of the run (skips
    without the [spark] extra or Java); the commands find it active and use it."""
    for module in ("pyspark", "pyarrow"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed: pip install '.[spark]'")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java 17 or later")
    from engine.spark import spark_session

    with spark_session("local[2]", {"spark.ui.enabled": "false",
                                     "spark.sql.shuffle.partitions": "4"}) as session:
        yield session
