"""Keyword extraction across domains: Kołcz & Yih's Tables 1 and 2 on our benchmark, and
three established extractors on the same test pages in the same run.

Run: python benchmarks/keywords.py BENCH [--detector BENCH/detector.npz] [--recall 0.5]
                                         [--markdown benchmarks/out/keywords.md]

BENCH is a folder made by ``python -m corpora.keyword_bench BENCH`` (``train/`` and
``test/``: KPCrowd stories placed into real pages; the test pages all come from one
site no training page comes from). The detector must not have seen the test site:
the builder's instructions train one with ``denoise train --exclude-site``.

Baselines, each given the page's body text (all of it, as they would be used on
pages; and again de-noised by the same detector, to tell the ranker's share from
the de-noising's):

- YAKE (Campos et al. 2020; the ``yake`` package with its defaults, n-grams up to 3,
  and again with single words, which suits these keywords better);
- TextRank (Mihalcea & Tarau 2004; the ``summa`` package by Barrios et al.);
- TF-IDF over our candidates, DF from the training pages (ORD's table).

Goals (the issue): DN at least 20% over ORD at Top-10 with DN-DF best overall, and
kwx DN at least 20% over each baseline at Top-5 and Top-10.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from benchmarks_common import emit

from denoise.detector import TemplateDetector
from denoise.shipped import shipped
from kwx.evaluation import (
    TOP_N,
    PreparedPage,
    choose_recall,
    compare,
    document_frequencies,
    paired_p_values,
    prepare,
    top_n_scores,
)
from kwx.extractor import DEFAULT_DF, DEFAULT_QUERYLOG, PhraseStatistics
from kwx.labelled import read_labelled
from kwx.tables import PhraseTable, TableFile
from kwx.text import key_hash


def _hashes(phrases: list[str]) -> np.ndarray:
    found = [key_hash(p) for p in phrases]
    return np.array([h for h in found if h is not None], dtype=np.uint64)


def yake_ranked(text: str, n: int) -> list[str]:
    import yake

    extractor = yake.KeywordExtractor(lan="en", n=n, top=max(TOP_N))
    return [phrase for phrase, _ in extractor.extract_keywords(text)]


def textrank_ranked(text: str) -> list[str]:
    from summa import keywords

    try:
        found = keywords.keywords(text, words=max(TOP_N), split=True, scores=True)
    except (ValueError, IndexError, ZeroDivisionError):  # too little text for a graph
        return []
    return [phrase for phrase, _ in found]


def tfidf_ranked(page: PreparedPage, documents: PhraseTable) -> np.ndarray:
    c = page.candidates
    idf = np.log((documents.total + 1.0) / (documents.lookup(c.hashes) + 1.0))
    order = np.lexsort((c.first, -(c.tf * idf)))
    return c.hashes[order[: max(TOP_N)]]


def baseline_scores(pages: list[PreparedPage], texts: list[str],
                    documents: PhraseTable) -> dict[str, np.ndarray]:
    rows: dict[str, list[np.ndarray]] = {"YAKE (n=3)": [], "YAKE (n=1)": [], "TextRank": [],
                                         "TF-IDF": []}
    for page, text in zip(pages, texts, strict=True):
        rows["YAKE (n=3)"].append(top_n_scores(_hashes(yake_ranked(text, 3)), page.keys))
        rows["YAKE (n=1)"].append(top_n_scores(_hashes(yake_ranked(text, 1)), page.keys))
        rows["TextRank"].append(top_n_scores(_hashes(textrank_ranked(text)), page.keys))
        rows["TF-IDF"].append(top_n_scores(tfidf_ranked(page, documents), page.keys))
    return {name: np.array(values) for name, values in rows.items()}


def _row(name: str, scores: np.ndarray, p_values: np.ndarray | None = None) -> str:
    cells = [f"{100 * m:.2f}" + ("*" if p_values is not None and p < 0.05 else "")
             for m, p in zip(scores.mean(axis=0), p_values if p_values is not None
                             else np.ones(len(TOP_N)), strict=True)]
    return f"| {name} | " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bench", type=Path)
    parser.add_argument("--detector", type=Path, default=None)
    parser.add_argument("--recall", type=float, default=None,
                        help="the detector's operating point (default: chosen by "
                        "cross-validation on the training pages, kwx.evaluation.choose_recall)")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args()
    detector_path = args.detector or args.bench / "detector.npz"
    started = time.process_time()
    labelled = {split: list(read_labelled(args.bench / split)) for split in ("train", "test")}
    queries = TableFile.load(shipped(DEFAULT_QUERYLOG)).tables
    detector = TemplateDetector.load(detector_path)
    chosen = []
    recall = args.recall or choose_recall(
        labelled["train"], detector, statistics=lambda train: PhraseStatistics(
            document_frequencies(train), queries["query"], queries["query_part"]),
        on_recall=lambda r, score: chosen.append(f"{r}: {100 * score:.2f}"))
    detector = detector.at_recall(recall)
    train = {dn: prepare(labelled["train"], detector=detector if dn else None)
             for dn in (False, True)}
    test = {dn: prepare(labelled["test"], detector=detector if dn else None)
            for dn in (False, True)}
    other = TableFile.load(shipped(DEFAULT_DF)).tables["documents"]
    results = compare(train, test, queries=queries["query"],
                      query_parts=queries["query_part"], other_df=other)
    header = "| configuration | " + " | ".join(f"Top{n}" for n in TOP_N) + " |\n|---|" + \
        "---:|" * len(TOP_N)
    lines = [f"Cross-domain keyword extraction: {len(train[False])} training pages, "
             f"{len(test[False])} test pages; detector {detector_path.name} at recall "
             f"{recall} (threshold {detector.threshold:.3f}). * = significant against "
             "ORD (two-tailed paired t-test, 95%).", ""]
    if chosen:
        lines += ["Recall chosen on the training pages (5-fold, mean top-N score of DN): "
                  + ", ".join(chosen) + ".", ""]
    lines.append(header)
    lines += [_row(r.configuration.name, r.scores, r.p_values) for r in results]
    ord_means = results[0].means
    lines.append("")
    lines.append("Relative to ORD: " + "; ".join(
        f"{r.configuration.name} " + " / ".join(
            f"{100 * (m / o - 1):+.1f}%" for m, o in zip(r.means, ord_means, strict=True))
        for r in results[1:]) + " (Top1 / 2 / 3 / 5 / 10)")

    dn = next(r for r in results if r.configuration.name == "DN").scores
    ord_df = document_frequencies(train[False])
    lines += ["", "Baselines on the same test pages (* = kwx DN significantly different; "
              "the last columns: kwx DN's gain over it):", "",
              header.replace(" |\n", " | DN gain Top5 | DN gain Top10 |\n") + "---:|---:|",
              _row("kwx ORD", results[0].scores) + " | |", _row("kwx DN", dn) + " | |"]
    for variant, pages in (("page text", test[False]), ("de-noised text", test[True])):
        texts = [p.candidates.document.text for p in pages]
        for name, scores in baseline_scores(pages, texts, ord_df).items():
            p_values = paired_p_values(dn, scores)
            lines.append(_row(f"{name}, {variant}", scores, p_values))
            gains = dn.mean(axis=0) / np.maximum(scores.mean(axis=0), 1e-9) - 1
            lines[-1] += f" {100 * gains[3]:+.0f}% | {100 * gains[4]:+.0f}% |"
    lines += ["", f"{time.process_time() - started:.0f} CPU seconds"]
    emit("\n".join(lines), args.markdown)


if __name__ == "__main__":
    main()
