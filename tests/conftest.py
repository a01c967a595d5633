import importlib.util
import os
import shutil
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
