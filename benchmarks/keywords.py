"""Keyword extraction across domains: Kołcz & Yih's Tables 1 and 2 on our benchmark, and
three established extractors on the same test pages in the same run.

Run: python benchmarks/keywords.py BENCH [--detector BENCH/detector.npz] [--recall 0.5]
                                         [--main-content MODEL.npz [--main-listing L.npz]
                                          [--main-template T.npz]]
                                         [--markdown benchmarks/out/keywords.md]

BENCH is a folder made by ``python -m corpora.keyword_bench BENCH`` (``train/`` and
``test/``: KPCrowd stories placed into real pages; the test pages all come from one
site no training page comes from). The detector must not have seen the test site:
the builder's instructions train one with ``denoise train --exclude-site``.

Baselines (in issue 31's section), each given the page's body text (all of it, as
they would be used on pages), its ``<p>`` text, and again the de-noised texts (to
tell the ranker's share from the de-noising's):

- YAKE (Campos et al. 2020; the ``yake`` package with its defaults, n-grams up to 3,
  and again with single words, which suits these keywords better);
- TextRank (Mihalcea & Tarau 2004; the ``summa`` package by Barrios et al.);
- TF-IDF over our candidates, DF from the training pages (ORD's table).

Goals (issue 4): DN at least 20% over ORD at Top-10 with DN-DF best overall, and
kwx DN at least 20% over each baseline at Top-5 and Top-10. Issue 31: the shipped
configuration at least 1.2x the best baseline at Top-10, and at least 1.2x its
ranker on the whole page; phrases of two or more words in the top 10 at least as
often as among the annotated keywords.

Issue 31's section: the shipped configuration (ranker trained and tested on
de-noised pages, with its forest, as a list with ``DEFAULT_PHRASES`` of the slots
for phrases) on the page-level detector's text (DN) and on the main-content text
(DN-main: ``--main-content`` must be a model that never saw the test site, e.g. one
trained by ``corpora.train_main_content`` without sites-dev-news, read at the shipped
model's parameters as ``benchmarks/main_content.py --heldout`` reads it (the template
model mixed in is ``--main-template``, else the benchmark's detector: give one trained
as ``template-repetition.npz`` is, on site-level labels alone, without the test site,
as main-content mode mixes that model); with
``--main-listing``, step 8's listing model trained without the same source, else no
step 8: the shipped listing model saw the news sites), beside the paper's
ranker alone and the list without phrase slots; the share of phrases of two or more
words in the top 10 against their share among the annotated keywords; the same
configurations left out one story category at a time (trained on the other
categories' training pages, tested on the test site's pages of that category: a new
site *and* a new topic); and the baselines on the text each would be given: the
whole page's, its ``<p>`` elements', and the de-noised texts, with the ten most
frequent non-stop words of the ``<p>`` text as the trivial baseline.

The ceiling of de-noising: the rows ``STORY`` (trained on whole pages) and
``STORY_both`` give the ranker each page's story alone (its title and paragraphs, as
placed, on a page of their own: what a perfect de-noiser would leave), so a
de-noiser's gain over ORD can be read against the most any de-noiser could gain with
this ranker on these pages.
"""

from __future__ import annotations

import argparse
import html as html_module
import json
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import lxml.html
import numpy as np
from benchmarks_common import emit

from corpora.keyword_bench import load_stories
from denoise.cleaning import Cleaner, Mode
from denoise.detector import TemplateDetector
from denoise.main_content import MainContentExtractor
from denoise.shipped import shipped
from kwx.evaluation import (
    CONFIGURATIONS,
    TOP_N,
    Configuration,
    PreparedPage,
    choose_recall,
    compare,
    document_frequencies,
    fit_ranker,
    paired_p_values,
    prepare,
    top_n_scores,
)
from kwx.extractor import (
    DEFAULT_DF,
    DEFAULT_PHRASES,
    DEFAULT_QUERYLOG,
    PhraseStatistics,
    ScoredCandidates,
)
from kwx.labelled import LabelledPage, read_labelled
from kwx.ranker import KeywordRanker
from kwx.tables import PhraseTable, TableFile
from kwx.text import key_hash, words


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


def frequent_ranked(text: str) -> list[str]:
    """The ten most frequent non-stop words (ties: first seen first)."""
    found = words(text)
    counts = Counter(text[a:b].lower() for a, b, stop in zip(
        found.starts.tolist(), found.ends.tolist(), found.stop.tolist(), strict=True)
        if not stop and any(ch.isalpha() for ch in text[a:b]))
    return [word for word, _ in counts.most_common(max(TOP_N))]


def paragraph_text(html: str) -> str:
    """The text of a page's ``<p>`` elements, one a line."""
    try:
        root = lxml.html.fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return ""
    return "\n".join(" ".join(p.text_content().split()) for p in root.iter("p"))


def baseline_scores(pages: list[PreparedPage], texts: list[str], documents: PhraseTable,
                    frequent: bool = False, tfidf: bool = True) -> dict[str, np.ndarray]:
    """Each baseline's top-N scores on ``texts`` (TF-IDF ranks ``pages``' candidates,
    the candidates of those texts: left out with ``tfidf=False``)."""
    rows: dict[str, list[np.ndarray]] = {"YAKE (n=3)": [], "YAKE (n=1)": [], "TextRank": []}
    if tfidf:
        rows["TF-IDF"] = []
    if frequent:
        rows["10 most frequent words"] = []
    for page, text in zip(pages, texts, strict=True):
        rows["YAKE (n=3)"].append(top_n_scores(_hashes(yake_ranked(text, 3)), page.keys))
        rows["YAKE (n=1)"].append(top_n_scores(_hashes(yake_ranked(text, 1)), page.keys))
        rows["TextRank"].append(top_n_scores(_hashes(textrank_ranked(text)), page.keys))
        if tfidf:
            rows["TF-IDF"].append(top_n_scores(tfidf_ranked(page, documents), page.keys))
        if frequent:
            rows["10 most frequent words"].append(top_n_scores(
                _hashes(frequent_ranked(text)), page.keys))
    return {name: np.array(values) for name, values in rows.items()}


def listed(ranker: KeywordRanker, pages: list[PreparedPage], statistics: PhraseStatistics,
           phrases: float) -> tuple[np.ndarray, float]:
    """Top-N scores of each page's keyword list (pages x TOP_N), and the share of
    phrases of two or more words in the lists' top 10."""
    rows, long, listed_all = [], 0, 0
    for page in pages:
        scored = ScoredCandidates(page.candidates,
                                  ranker.predict_proba(statistics.features(page.candidates)),
                                  phrases=phrases)
        best = scored.best(max(TOP_N))
        rows.append(top_n_scores(page.candidates.hashes[best], page.keys))
        long += int((page.candidates.lengths[best] > 1).sum())
        listed_all += len(best)
    return np.array(rows).reshape(len(pages), len(TOP_N)), long / max(listed_all, 1)


def story_pages(bench: Path, labelled: dict[str, list[LabelledPage]],
                ) -> dict[str, list[LabelledPage]]:
    """Each labelled page replaced by its story alone (title and paragraphs as placed,
    on a page of their own, its keys unchanged): what a perfect de-noiser would leave.
    The stories come from the corpus the benchmark was built from (its manifest)."""
    stories = {story.id: story for story in load_stories()}
    story_of = {}
    with (bench / "manifest.jsonl").open(encoding="utf-8") as manifest:
        for line in manifest:
            record = json.loads(line)
            story_of[f"{record['name']}.html"] = record["story"]
    pages: dict[str, list[LabelledPage]] = {}
    for split, split_pages in labelled.items():
        pages[split] = []
        for labelled_page in split_pages:
            story = stories[story_of[labelled_page.page.id]]
            title = html_module.escape(story.title)
            body = "".join(f"<p>{html_module.escape(p)}</p>" for p in story.paragraphs())
            html = (f"<html><head><title>{title}</title></head><body><h1>{title}</h1>"
                    f"{body}</body></html>")
            pages[split].append(LabelledPage(replace(labelled_page.page, html=html),
                                             labelled_page.keys))
    return pages


def category(page: PreparedPage) -> str:
    """A benchmark page's story category (its name is ``<category>-<id>.html``)."""
    return page.id.split("-")[0]


def gold_phrase_share(pages: list[LabelledPage]) -> float:
    """The share of annotated keywords of two or more words."""
    lengths = [len(words(key)) for page in pages for key in page.keys]
    return sum(n > 1 for n in lengths) / max(sum(n > 0 for n in lengths), 1)


def issue31(labelled: dict[str, list[LabelledPage]], train: dict[str, list[PreparedPage]],
            test: dict[str, list[PreparedPage]], statistics: PhraseStatistics,
            documents: PhraseTable) -> list[str]:
    """Issue 31's section (see the module notes); ``train`` and ``test``: the prepared
    pages by text (``"none"``, ``"page"``, ``"main"``)."""
    names = {"page": "DN", "main": "DN-main"}
    texts = [text for text in names if text in train]
    raw_test = test["none"]
    header = "| configuration | " + " | ".join(f"Top{n}" for n in TOP_N) + \
        " | phrases in top 10 |\n|---|" + "---:|" * (len(TOP_N) + 1)
    lines = ["", f"Issue 31: lists (phrase slots {DEFAULT_PHRASES}), the forest over the "
             "shortlist, the text source. Annotated keywords of two or more words: "
             f"{100 * gold_phrase_share(labelled['test']):.1f}% (test pages), "
             f"{100 * gold_phrase_share(labelled['train']):.1f}% (training pages).", "",
             header]
    shipped_scores: dict[str, np.ndarray] = {}
    prepared = {names[text]: (train[text], test[text]) for text in texts}
    for name, (train_pages, test_pages) in prepared.items():
        for label, ranker, phrases in (
                ("logistic regression alone, no phrase slots", KeywordRanker(shortlist=0), 0.0),
                ("with the forest, no phrase slots", KeywordRanker(), 0.0),
                ("shipped: forest and phrase slots", KeywordRanker(), DEFAULT_PHRASES)):
            scores, share = listed(fit_ranker(train_pages, statistics, ranker), test_pages,
                                   statistics, phrases)
            lines.append(_row(f"kwx {name}_both, {label}", scores) + f" {100 * share:.1f}% |")
            shipped_scores[name] = scores
    lines += ["", "Left out one story category at a time (a new site and a new topic; "
              "shipped configuration, Top-10 of the held-out category's test pages):", "",
              "| category | test pages | " + " | ".join(prepared) + " |",
              "|---|---:|" + "---:|" * len(prepared)]
    held: dict[str, list[np.ndarray]] = {name: [] for name in prepared}
    for cat in sorted({category(p) for p in raw_test}):
        cells = []
        for name, (train_pages, test_pages) in prepared.items():
            ranker = fit_ranker([p for p in train_pages if category(p) != cat], statistics)
            part = [p for p in test_pages if category(p) == cat]
            scores, _ = listed(ranker, part, statistics, DEFAULT_PHRASES)
            held[name].append(scores)
            cells.append(f"{100 * scores[:, -1].mean():.2f}")
        lines.append(f"| {cat} | {len(part)} | " + " | ".join(cells) + " |")
    lines.append("| **all, pooled** | " + f"{len(raw_test)} | " + " | ".join(
        f"**{100 * np.concatenate(held[n])[:, -1].mean():.2f}**" for n in prepared) + " |")
    best = max(shipped_scores, key=lambda n: shipped_scores[n][:, -1].mean())
    lines += ["", f"Baselines on the text each would be given (* = kwx {best}_both, shipped, "
              "significantly different; the last columns: its gain over the row):", "",
              "| extractor | " + " | ".join(f"Top{n}" for n in TOP_N) + " | gain Top5 | "
              "gain Top10 |", "|---|" + "---:|" * (len(TOP_N) + 2),
              _row(f"kwx {best}_both, shipped", shipped_scores[best]) + " | |"]
    sources = {"page text": (raw_test, [p.candidates.document.text for p in raw_test]),
               "<p> text": (raw_test, [paragraph_text(lp.page.html) for lp in labelled["test"]])}
    for name, (_, test_pages) in prepared.items():
        sources[f"{name} text"] = (test_pages, [p.candidates.document.text for p in test_pages])
    for variant, (pages, variant_texts) in sources.items():
        paragraphs = variant == "<p> text"
        for name, scores in baseline_scores(pages, variant_texts, documents, frequent=paragraphs,
                                            tfidf=not paragraphs).items():
            p_values = paired_p_values(shipped_scores[best], scores)
            gains = shipped_scores[best].mean(axis=0) / np.maximum(scores.mean(axis=0), 1e-9) - 1
            lines.append(_row(f"{name}, {variant}", scores, p_values)
                         + f" {100 * gains[3]:+.0f}% | {100 * gains[4]:+.0f}% |")
    return lines


#: The ceiling rows: the ranker given each page's story alone (:func:`story_pages`).
CEILING = (Configuration("STORY", "none", "story", "train"),
           Configuration("STORY_both", "story", "story", "train"))


def held_out_main_content(detector: Path, content: Path, listing: Path | None,
                          ) -> MainContentExtractor:
    """The main-content model ``content`` (and step 8's ``listing`` model, None: no step
    8) at the shipped model's parameters, whatever its header says: today's rules with a
    model that never saw the test site."""
    shipped = MainContentExtractor.load(listing_step=False).parameters()
    return replace(MainContentExtractor.load(detector, content, listing,
                                             listing_step=listing is not None), **shipped)


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
    parser.add_argument("--main-content", type=Path, default=None,
                        help="main-content model for the DN-main rows (one that never saw "
                        "the test site; default: no DN-main rows)")
    parser.add_argument("--main-listing", type=Path, default=None,
                        help="step 8's listing model for the DN-main rows, trained without "
                        "the main-content model's source (corpora.train_listing --heldout; "
                        "default: no step 8)")
    parser.add_argument("--main-template", type=Path, default=None,
                        help="the template model the DN-main rows mix (default: --detector); "
                        "to match main-content mode, one trained as "
                        "denoise/models/template-repetition.npz is, without the test site")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args()
    if args.main_listing is not None and args.main_content is None:
        parser.error("--main-listing needs --main-content")
    if args.main_template is not None and args.main_content is None:
        parser.error("--main-template needs --main-content")
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
    cleaners = {"none": Cleaner(Mode.none), "page": Cleaner(Mode.page, detector=detector)}
    if args.main_content is not None:
        cleaners["main"] = Cleaner(Mode.main, extractor=held_out_main_content(
            args.main_template or detector_path, args.main_content, args.main_listing))
    train = {text: prepare(labelled["train"], cleaner=c) for text, c in cleaners.items()}
    test = {text: prepare(labelled["test"], cleaner=c) for text, c in cleaners.items()}
    alone = story_pages(args.bench, labelled)
    train["story"] = prepare(alone["train"], cleaner=cleaners["none"])
    test["story"] = prepare(alone["test"], cleaner=cleaners["none"])
    other = TableFile.load(shipped(DEFAULT_DF)).tables["documents"]
    results = compare(train, test, queries=queries["query"],
                      query_parts=queries["query_part"], other_df=other,
                      configurations=CONFIGURATIONS + CEILING)
    header = "| configuration | " + " | ".join(f"Top{n}" for n in TOP_N) + " |\n|---|" + \
        "---:|" * len(TOP_N)
    lines = [f"Cross-domain keyword extraction: {len(train['none'])} training pages, "
             f"{len(test['none'])} test pages; detector {detector_path.name} at recall "
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
    by_name = {r.configuration.name: r.means[-1] for r in results}
    gain = by_name["STORY_both"] - by_name["ORD"]
    taken = ", ".join(f"{name} takes {100 * (by_name[name] - by_name['ORD']) / gain:.0f}%"
                      for name in ("DN_both", "DN-main_both") if name in by_name and gain > 0)
    lines += ["", "The ceiling of de-noising (STORY_both: the story alone, what a perfect "
              f"de-noiser would leave): {100 * by_name['STORY_both']:.2f} at Top-10, "
              f"{100 * gain / by_name['ORD']:+.1f}% over ORD"
              + (f"; of that gain {taken}." if taken else ".")]

    ord_df = document_frequencies(train["none"])
    statistics = PhraseStatistics(ord_df, queries["query"], queries["query_part"])
    lines += issue31(labelled, train, test, statistics, ord_df)
    lines += ["", f"{time.process_time() - started:.0f} CPU seconds"]
    emit("\n".join(lines), args.markdown)


if __name__ == "__main__":
    main()
