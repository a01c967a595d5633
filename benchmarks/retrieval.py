"""BM25 with and without templates: the papers' indexing experiments on one run.

Run (from the repository root; needs the shared corpora):

    python -m corpora.retrieval_bench BENCH --families DETECTORS/folds.json
    python benchmarks/retrieval.py BENCH [--heldout DETECTORS] [--speed-pages 100000]
                                         [--markdown benchmarks/out/retrieval.md]

``BENCH`` is :mod:`corpora.retrieval_bench`'s set (its docstring says what it can and
cannot show). ``DETECTORS`` is what ``benchmarks/heldout_detectors.py`` makes from the
dev sites' folders: per fold of site families, a template model of repetition, a
detector of the shipped recipe (mode ``page``'s) and a main-content model trained
without them; with ``--heldout`` every page is de-noised by its family's
fold (``page`` and ``main`` rows: sites those models never saw). Without it the
shipped models are used, which learned these sites: the rows say so.

One index per configuration (:class:`mining.search.SearchIndex`, the library
``mining index`` runs): FULLTEXT (``none``); the site-level methods of the papers
(fingerprint, Ma et al.'s table-chunk, Chen et al.'s style-offset, shingle), each fitted
on the benchmark's pages of a site; the page-level detector at several template recalls;
the main content; and the placed stories themselves (gold: what perfect removal would
index). Per configuration:

- the index: postings (distinct words of each page, summed: the words as
  :func:`mining.search.query_words` splits them, before stemming), bytes on disk (the
  stored text for snippets included), CPU seconds to de-noise and to index;
- per query kind (topical, known-item): nDCG@10, MAP, P@10, MRR from ``ir_measures``
  (pytrec_eval underneath) over each query's 100 best, a query that finds nothing
  scoring 0; and a paired test against FULLTEXT on nDCG@10 per query (Wilcoxon's
  signed-rank, two-sided; scipy).

With ``--speed-pages N``: the main-content texts of the dev sites' pages, cycled to N
pages, indexed, then the first 1,000 distinct queries of the TREC 2005 Terabyte
efficiency log run against it one after the other, with snippets, as
``mining search`` does (queries per CPU-second of this process, one thread). Indexing
speed against ``denoise apply`` alone: ``benchmarks/retrieval.py --against-apply``
runs ``mining index --denoise main`` and ``denoise apply --format main --jobs 1`` on the
benchmark's pages as subprocesses (CPU seconds of each).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import ir_measures
import numpy as np
from ir_measures import AP, RR, P, nDCG
from scipy.stats import wilcoxon

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmarks_common import emit, heldout_folds, log_queries, read_folds

from corpora.keyword_bench import load_stories
from denoise.cleaning import Mode, SiteMethods, clean_pages
from denoise.detector import TemplateDetector
from denoise.main_content import MainContentExtractor
from denoise.page import Page
from denoise.reader import Skipped, read_pages
from mining.search import IndexSettings, SearchIndex, query_words

RECALLS = (0.3, 0.5, 0.7, 0.9)
SITE_METHODS = ("fingerprint", "table-chunk", "style-offset", "shingle")
MEASURES = (nDCG @ 10, AP, P @ 10, RR)
DEPTH = 100
Texts = dict[str, str]


def load_bench(bench: Path) -> tuple[list[Page], list[dict], dict[str, str]]:
    """The pages, the queries, and each page's story id."""
    pages = [p for p in read_pages([bench / "pages"]) if not isinstance(p, Skipped)]
    queries = [json.loads(line) for line in (bench / "queries.jsonl").open(encoding="utf-8")]
    stories = {r["page"]: r["story"] for r in map(json.loads, (bench / "manifest.jsonl").open(
        encoding="utf-8"))}
    return pages, queries, stories


def site_texts(pages: list[Page], method: str) -> Texts:
    return {c.page.id: c.text for c in clean_pages(pages, Mode.site,
                                                   site_method=SiteMethods(method))}


def model_texts(pages: list[Page], mode: Mode, recall: float | None,
                heldout: Path | None) -> Texts:
    """Mode ``page`` (at ``recall``) or ``main``, by the held-out fold of each page's
    family, or by the shipped models."""
    if heldout is None:
        detector = TemplateDetector.load().at_recall(recall) if mode is Mode.page else None
        return {c.page.id: c.text for c in clean_pages(pages, mode, detector=detector)}
    texts: Texts = {}
    for models, members in heldout_folds(heldout, pages):
        if mode is Mode.page:
            detector = TemplateDetector.load(models["page"]).at_recall(recall)
            cleaned = clean_pages(members, mode, detector=detector)
        else:
            extractor = MainContentExtractor.load(template=models["template"],
                                                  content=models["main"])
            cleaned = clean_pages(members, mode, extractor=extractor)
        texts |= {c.page.id: c.text for c in cleaned}
    return texts


def gold_texts(pages: list[Page], stories: dict[str, str]) -> Texts:
    by_id = {s.id: s for s in load_stories()}
    return {p.id: f"{by_id[stories[p.id]].title}\n{by_id[stories[p.id]].text}" for p in pages}


def configurations(pages: list[Page], stories: dict[str, str], heldout: Path | None
                   ) -> list[tuple[str, Callable[[], Texts]]]:
    models = "held-out" if heldout else "shipped, seen"
    out: list[tuple[str, Callable[[], Texts]]] = [
        ("FULLTEXT", lambda: {c.page.id: c.text for c in clean_pages(pages, Mode.none)})]
    out += [(f"site: {m}", lambda m=m: site_texts(pages, m)) for m in SITE_METHODS]
    out += [(f"page @ recall {r} ({models})",
             lambda r=r: model_texts(pages, Mode.page, r, heldout)) for r in RECALLS]
    out += [(f"main ({models})", lambda: model_texts(pages, Mode.main, None, heldout)),
            ("gold (the placed stories)", lambda: gold_texts(pages, stories))]
    return out


def evaluate(index: SearchIndex, queries: list[dict]) -> dict[str, dict[str, np.ndarray]]:
    """Per query kind, per measure: each query's value (0 for a query found nothing)."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for kind in sorted({q["kind"] for q in queries}):
        chosen = [q for q in queries if q["kind"] == kind]
        qrels = [ir_measures.Qrel(q["id"], page, 1) for q in chosen for page in q["relevant"]]
        run = [ir_measures.ScoredDoc(q["id"], hit.page, hit.score) for q in chosen
               for hit in index.search(q["query"], DEPTH, snippets=False)]
        values = {str(m): dict.fromkeys((q["id"] for q in chosen), 0.0) for m in MEASURES}
        for metric in ir_measures.iter_calc(list(MEASURES), qrels, run):
            values[str(metric.measure)][metric.query_id] = metric.value
        out[kind] = {name: np.array([v[q["id"]] for q in chosen]) for name, v in values.items()}
    return out


def index_texts(texts: Texts, pages: list[Page], folder: Path) -> tuple[SearchIndex, float]:
    index = SearchIndex.create(folder, IndexSettings(Mode.none))
    start = time.process_time()
    index.add_texts((p, texts.get(p.id, "")) for p in pages)
    return index, time.process_time() - start


def postings(texts: Iterable[str]) -> int:
    return sum(len(set(query_words(text))) for text in texts)


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run_benchmark(bench: Path, heldout: Path | None) -> str:
    pages, queries, stories = load_bench(bench)
    kinds = sorted({q["kind"] for q in queries})
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for number, (name, make) in enumerate(configurations(pages, stories, heldout)):
            start = time.process_time()
            texts = make()
            denoise_cpu = time.process_time() - start
            index, index_cpu = index_texts(texts, pages, Path(work) / str(number))
            rows.append({"name": name, "postings": postings(texts.values()),
                         "bytes": folder_bytes(index.path), "denoise_cpu": denoise_cpu,
                         "index_cpu": index_cpu, "values": evaluate(index, queries)})
            print(f"{name}: done", flush=True)
    counts = {k: sum(q["kind"] == k for q in queries) for k in kinds}
    return _report(rows, kinds, counts, len(pages), len({p.site for p in pages}))


def _report(rows: list[dict], kinds: list[str], counts: dict[str, int], pages: int,
            sites: int) -> str:
    base = rows[0]
    lines = [f"Retrieval with and without templates: {pages} pages of {sites} sites, "
             f"BM25 (tantivy), {', '.join(f'{counts[k]} {k}' for k in kinds)} queries", ""]
    for kind in kinds:
        lines += [f"**{kind} queries ({counts[kind]})**", "",
                  "| configuration | nDCG@10 | vs FULLTEXT | Wilcoxon p | MAP | P@10 | MRR |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for row in rows:
            values = row["values"][kind]
            ndcg = values["nDCG@10"]
            diff = ndcg - base["values"][kind]["nDCG@10"]
            p = wilcoxon(diff).pvalue if np.any(diff) else 1.0
            lines.append(
                f"| {row['name']} | {ndcg.mean():.4f} | "
                f"{ndcg.mean() / base['values'][kind]['nDCG@10'].mean():.3f}x | "
                f"{p:.2g} | {values['AP'].mean():.4f} | {values['P@10'].mean():.4f} | "
                f"{values['RR'].mean():.4f} |")
        lines.append("")
    lines += ["**index size and time**", "",
              "| configuration | postings | vs FULLTEXT | MB on disk | vs FULLTEXT | "
              "de-noise CPU s | index CPU s |", "|---|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        lines.append(
            f"| {row['name']} | {row['postings']:,} | {row['postings'] / base['postings']:.3f} | "
            f"{row['bytes'] / 1e6:.1f} | {row['bytes'] / base['bytes']:.3f} | "
            f"{row['denoise_cpu']:.1f} | {row['index_cpu']:.1f} |")
    return "\n".join(lines)


def query_speed(size: int) -> str:
    """Queries per CPU-second on an index of ``size`` pages (main-content texts of the
    dev pages, cycled)."""
    from benchmarks_common import load_pages

    base = [(p, c.text) for c in clean_pages(load_pages(), Mode.main,
                                             on_error=lambda error: None) for p in [c.page]]
    queries = log_queries(1000, lambda query: query.strip() if query_words(query) else "")
    with tempfile.TemporaryDirectory() as work:
        index = SearchIndex.create(Path(work) / "ix", IndexSettings(Mode.none))
        start = time.process_time()
        index.add_texts((Page(id=f"{k}:{base[k % len(base)][0].id}", html="",
                              url=base[k % len(base)][0].url), base[k % len(base)][1])
                        for k in range(size))
        indexing = time.process_time() - start
        out = []
        for snippets in (True, False):
            start = time.process_time()
            found = sum(len(index.search(q, 10, snippets=snippets)) for q in queries)
            cpu = time.process_time() - start
            out.append(f"| {size:,} | {'yes' if snippets else 'no'} | {len(queries)} | "
                       f"{len(queries) / cpu:,.0f} | {found / len(queries):.1f} |")
        size_mb = folder_bytes(index.path) / 1e6
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return "\n".join([
        f"**query speed** (index of {size:,} pages built in {indexing:.0f} CPU s, "
        f"{size / indexing:,.0f} pages/s, {size_mb:,.0f} MB; peak RSS {peak:,.0f} MB)", "",
        "| pages | snippets | queries | queries per CPU-second | hits per query |",
        "|---:|---|---:|---:|---:|", *out])


def against_apply(bench: Path) -> str:
    """CPU seconds of ``mining index --denoise main`` and ``denoise apply --format main``
    on the benchmark's pages, each a subprocess."""
    def cpu(argv: list[str]) -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, check=True, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    pages = str(bench / "pages")
    with tempfile.TemporaryDirectory() as work:
        apply = cpu([sys.executable, "-c", "from commands.denoise import main; main()", "apply",
                     pages, "--format",
                     "main", "--jobs", "1", "-o", str(Path(work) / "out.jsonl")])
        index = cpu([sys.executable, "-c", "from commands.mining import main; main()", "index",
                     pages, "--index",
                     str(Path(work) / "ix")])
    return (f"**indexing speed**: `mining index` (main content) {index:.1f} CPU s, "
            f"`denoise apply --format main --jobs 1` {apply:.1f} CPU s on the same pages: "
            f"{apply / index:.2f}x its speed (goal >= 0.5x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bench", type=Path)
    parser.add_argument("--heldout", type=Path)
    parser.add_argument("--speed-pages", type=int, default=0)
    parser.add_argument("--against-apply", action="store_true")
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    if args.heldout:
        read_folds(args.heldout)
    parts = [run_benchmark(args.bench, args.heldout)]
    if args.against_apply:
        parts.append(against_apply(args.bench))
    if args.speed_pages:
        parts.append(query_speed(args.speed_pages))
    emit("\n\n".join(parts), args.markdown)


if __name__ == "__main__":
    main()
