"""Which BM25 library ``mining index`` stands on: three candidates measured on our pages.

Run (from the repository root; needs the shared corpora and ``pip install bm25s``):

    python benchmarks/bm25_libraries.py [--sizes 10000,100000] [--queries 1000]
                                        [--markdown benchmarks/out/bm25_libraries.md]

The candidates (issue 32): bm25s (numpy and scipy, Lucene's variant, k1 and b settable,
an index built once, kept in memory), tantivy's Python binding (Rust, an index on disk
that takes more documents later, k1 = 1.2 and b = 0.75) and SQLite's FTS5 (in Python's
standard library, on disk, incremental, the same fixed k1 and b).

Every library gets the same words: the visible text of the 6,672 dev-site pages
(``mining.page_texts`` in mode ``none``, templates and all, as FULLTEXT indexes them),
lower-cased runs of letters and digits, joined by spaces, so no library's own analyzer
makes the difference. A collection of N documents cycles those pages. The queries are
the first distinct queries of the TREC 2005 Terabyte efficiency log (real web queries),
split the same way, any word matching (OR), ten results each.

Each library and size runs in a subprocess of its own (its peak RSS, ``ru_maxrss``, is
the memory figure; its CPU seconds the speed):

- indexing: documents per CPU-second, the index's bytes (on disk, or ``bm25s``'s saved
  arrays), peak memory;
- queries: per CPU-second on one thread (tantivy's searcher is given no thread pool);
- exactness, at the smallest size: against Lucene's BM25 computed here from the same
  words with numpy (``idf = ln(1 + (N - n + 0.5) / (n + 0.5))``, ``tf / (tf + k1 (1 - b
  + b dl / avgdl))``, k1 = 1.2, b = 0.75): the share of the reference's ten best found in
  the library's ten, and the largest relative deviation of a returned score from the
  reference's, once the library's constant factor (tantivy's ``k1 + 1``) is divided
  out. Lucene itself stores each length in one byte (``SmallFloat``): a library that
  does the same deviates a little from the exact formula, as Lucene does.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy import sparse

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmarks_common import emit, load_pages, log_queries

LIBRARIES = ("bm25s", "tantivy", "fts5")
K1, B = 1.2, 0.75
WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def prepare(work: Path, queries: int) -> None:
    """The dev pages' words and the queries' words, once, as JSON lines in ``work``."""
    from mining import page_texts

    pages = load_pages()
    with (work / "docs.jsonl").open("w", encoding="utf-8") as out:
        for _, text in page_texts(pages, "none", on_error=lambda error: None):
            out.write(json.dumps(" ".join(words(text))) + "\n")
    seen = log_queries(queries, lambda query: " ".join(words(query)))
    (work / "queries.json").write_text(json.dumps(list(seen)), encoding="utf-8")


def _peak_mb() -> float:
    """This process's peak RSS (``VmHWM``: unlike ``ru_maxrss`` it starts anew at exec,
    so the parent's memory is not counted)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() \
        else path.stat().st_size


def run_library(library: str, work: Path, size: int, exact: bool) -> dict[str, object]:
    """Index ``size`` documents and run the queries with one library (in this process)."""
    base = [json.loads(line) for line in (work / "docs.jsonl").open(encoding="utf-8")]
    docs = [base[i % len(base)] for i in range(size)]
    queries: list[str] = json.loads((work / "queries.json").read_text(encoding="utf-8"))
    store = work / f"{library}-{size}"
    shutil.rmtree(store, ignore_errors=True)
    start = time.process_time()
    search = _index(library, docs, store)
    indexing = time.process_time() - start
    start = time.process_time()
    results = [search(query) for query in queries]
    querying = time.process_time() - start
    out: dict[str, object] = {
        "library": library, "size": size, "index_cpu": indexing, "query_cpu": querying,
        "queries": len(queries), "bytes": _folder_bytes(store),
        "peak_mb": _peak_mb(),
    }
    if exact:
        out.update(_exactness(docs, queries, results))
    shutil.rmtree(store, ignore_errors=True)
    return out


def _index(library: str, docs: list[str], store: Path
           ) -> Callable[[str], list[tuple[int, float]]]:
    """Build the index; return its query function (query -> [(doc, score)], best
    first; FTS5's ``bm25()``, smaller for better, negated)."""
    if library == "bm25s":
        import bm25s

        retriever = bm25s.BM25(method="lucene", k1=K1, b=B)
        retriever.index([doc.split() for doc in docs], show_progress=False)
        retriever.save(str(store))

        def search(query: str) -> list[tuple[int, float]]:
            scores = retriever.get_scores(query.split())
            top = np.argsort(-scores, kind="stable")[:10]
            return [(int(d), float(scores[d])) for d in top if scores[d] > 0]

        return search
    if library == "tantivy":
        import tantivy

        builder = tantivy.SchemaBuilder()
        builder.add_text_field("text", stored=False, tokenizer_name="whitespace")
        builder.add_integer_field("id", stored=True, fast=True)
        store.mkdir()
        index = tantivy.Index(builder.build(), path=str(store))
        writer = index.writer(heap_size=128_000_000, num_threads=1)
        for number, doc in enumerate(docs):
            writer.add_document(tantivy.Document(text=doc, id=number))
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        searcher = index.searcher()

        def search(query: str) -> list[tuple[int, float]]:
            parsed = index.parse_query(" ".join(f'"{w}"' for w in query.split()), ["text"])
            hits = searcher.search(parsed, 10).hits
            return [(searcher.doc(address)["id"][0], score) for score, address in hits]

        return search
    db = sqlite3.connect(store)
    db.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='unicode61 "
               "remove_diacritics 0')")
    db.executemany("INSERT INTO t(rowid, text) VALUES (?, ?)", enumerate(docs))
    db.commit()

    def search(query: str) -> list[tuple[int, float]]:
        match = " OR ".join(f'"{w}"' for w in query.split())
        rows = db.execute("SELECT rowid, bm25(t) FROM t WHERE t MATCH ? ORDER BY bm25(t) "
                          "LIMIT 10", (match,)).fetchall()
        return [(int(d), -float(s)) for d, s in rows]

    return search


def _exactness(docs: list[str], queries: list[str], results: list[list[tuple[int, float]]],
               ) -> dict[str, float]:
    """Top-10 agreement with, and score deviation from, Lucene's BM25 computed here."""
    vocabulary: dict[str, int] = {}
    rows, cols = [], []
    for number, doc in enumerate(docs):
        for word in doc.split():
            cols.append(vocabulary.setdefault(word, len(vocabulary)))
            rows.append(number)
    tf = sparse.csc_matrix((np.ones(len(rows), np.float32), (rows, cols)),
                           shape=(len(docs), len(vocabulary)))
    tf.sum_duplicates()
    lengths = np.asarray(tf.sum(axis=1)).ravel()
    norm = K1 * (1 - B + B * lengths / lengths.mean())
    n = np.diff(tf.indptr)
    idf = np.log(1 + (len(docs) - n + 0.5) / (n + 0.5))
    overlap, deviation = [], []
    for query, found in zip(queries, results, strict=True):
        scores = np.zeros(len(docs))
        for word in set(query.split()):
            column = vocabulary.get(word)
            if column is None:
                continue
            start, end = tf.indptr[column], tf.indptr[column + 1]
            docs_of, counts = tf.indices[start:end], tf.data[start:end]
            scores[docs_of] += idf[column] * counts / (counts + norm[docs_of])
        best = np.argsort(-scores, kind="stable")[:10]
        best = best[scores[best] > 0]
        if not len(best):
            continue
        cut = scores[best[-1]]  # ties at the tenth score count as agreeing
        overlap.append(sum(scores[d] >= cut - 1e-9 for d, _ in found[:len(best)]) / len(best))
        ratios = np.array([s / scores[d] for d, s in found if scores[d] > 0])
        if len(ratios):
            deviation.append(float(np.max(np.abs(ratios / np.median(ratios) - 1))))
    return {"top10_agreement": float(np.mean(overlap)),
            "max_score_deviation": float(np.max(deviation)),
            "median_score_deviation": float(np.median(deviation))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--libraries", default=",".join(LIBRARIES))
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--child", nargs=4, metavar=("LIBRARY", "WORK", "SIZE", "EXACT"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        library, work, size, exact = args.child
        print(json.dumps(run_library(library, Path(work), int(size), exact == "1")))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        prepare(work, args.queries)
        rows = []
        for size in sizes:
            for library in args.libraries.split(","):
                child = subprocess.run(
                    [sys.executable, __file__, "--child", library, str(work), str(size),
                     "1" if size == sizes[0] else "0"],
                    check=True, capture_output=True, text=True,
                    env={**os.environ, "RAYON_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"})
                rows.append(json.loads(child.stdout.strip().splitlines()[-1]))
                print(rows[-1], flush=True)
    emit(_table(rows, args.queries), args.markdown)


def _table(rows: list[dict], queries: int) -> str:
    lines = [f"BM25 libraries on the dev pages' words ({queries} TREC 2005 log queries, "
             "OR, top 10; CPU seconds of one process)", "",
             "| library | documents | indexing docs/s | index MB | peak RSS MB | "
             "queries/s | top-10 = Lucene | score deviation: median, max |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        agreement = row.get("top10_agreement")
        exact = (f"{agreement:.3f} | {row['median_score_deviation']:.2g}, "
                 f"{row['max_score_deviation']:.2g}" if agreement is not None else " | ")
        lines.append(
            f"| {row['library']} | {row['size']:,} | {row['size'] / row['index_cpu']:,.0f} | "
            f"{row['bytes'] / 1e6:,.1f} | {row['peak_mb']:,.0f} | "
            f"{row['queries'] / row['query_cpu']:,.0f} | {exact} |")
    lines += ["", "Score deviation: per query, the largest relative deviation of a returned "
              "score from the reference's; its median and its largest over the queries."]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
