"""Build the phrase tables that ship with kwx (``denoise/models/kwx-df.npz``,
``denoise/models/kwx-querylog.npz``).

Run: python -m corpora.build_kwx_tables [--out denoise/models]

- Query log: every file of ``querylogs.tar.xz`` (TREC Terabyte 2005 with its real
  repeats, the TREC million-query track, MS MARCO / TREC DL, Natural Questions):
  166,816 queries with a word. What counts is whole queries and the phrases inside them.
- Document frequency: the ``content-dev`` pages (~3,600 single pages from several
  hundred sites: news, blogs, shops, reference), a diverse collection in the spirit of
  the paper's ODP table, whole pages (templates included, as a crawl would count them);
  phrases on fewer than ``--min-df`` pages are left out to keep the file small.

Only 64-bit phrase hashes and counts are stored: no third-party text.
"""

from __future__ import annotations

import argparse
import tarfile
import tempfile
import time
from pathlib import Path

from corpora.content import iter_content_pages
from corpora.locate import corpus_path
from denoise.page import Page
from denoise.shipped import MODELS
from kwx.build import document_frequency, query_frequency, read_queries
from kwx.extractor import DEFAULT_DF, DEFAULT_QUERYLOG
from kwx.tables import save_tables


def build_querylog(out: Path) -> str:
    """Count the queries of every log in the archive into ``out``."""
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(corpus_path("querylogs.tar.xz")) as archive:
            archive.extractall(folder, filter="data")
        files = sorted(p for p in Path(folder).rglob("*") if p.suffix in (".txt", ".tsv"))
        whole, parts = query_frequency(q for path in files for q in read_queries(path))
        save_tables(out, {"query": whole, "query_part": parts},
                    {"files": [p.name for p in files], "min_count": 1})
    return f"{whole.total} queries, {len(whole)} distinct, {len(parts)} phrases"


def build_df(out: Path, min_df: int) -> str:
    """Count candidate phrases over the content-dev pages into ``out``."""
    pages = (Page(id=f"{g.set_name}/{g.page_id}", html=g.html, url=g.url)
             for g in iter_content_pages())
    table = document_frequency(pages, min_df=min_df, on_error=lambda error: None)
    save_tables(out, {"documents": table}, {"collection": "content-dev", "min_df": min_df})
    return f"{len(table)} phrases over {table.total} pages"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=MODELS)
    parser.add_argument("--min-df", type=int, default=3)
    args = parser.parse_args()
    for name, build in ((DEFAULT_QUERYLOG, build_querylog),
                        (DEFAULT_DF, lambda out: build_df(out, args.min_df))):
        started = time.time()
        summary = build(args.out / name)
        print(f"{args.out / name}: {summary}, {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
