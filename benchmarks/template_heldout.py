"""The template detector on site families it never saw, and whether its operating point
keeps its promise there.

Run: python benchmarks/template_heldout.py [--archives dev train] [--folds 10]
                                           [--labels region|region-dev|site]
                                           [--markdown benchmarks/out/template_heldout.md]
     python benchmarks/template_heldout.py --model MODEL.npz ... --archives train
     python benchmarks/template_heldout.py --content-model MAIN.npz [--weights 1 0.5]

With ``--model``, no cross-validation: every page is scored by that model, at its
stored operating point, and each site's precision and recall there are its promise on
a site it never saw, *provided the model never saw the archives' sites* (a model trained
on the dev sites alone, ``--archives train``: the 65 documentation sites of
``sites-train-docs``). The shipped model has seen every archive since 2026-12-01: its
held-out figures are the cross-validation's, by family.

Pages: the dev sites (``sites-dev-docs``, ``sites-dev-news``) and, with ``train``, the 65
training documentation sites (``sites-train-docs``), labelled by the site-level
fingerprint method as ``denoise train`` labels them. Every block is scored by a forest
trained on folds that never held its site's family (10-fold cross-site validation,
smoothed as shipped); with ``--labels region`` (the default, as the shipped detector is
trained: ``denoise train --main-xpaths``) the training folds' pages of the documentation
sites whose main-content XPath is known (the dev sites' and the training sites',
:func:`corpora.sites.docs_main_xpaths`) are labelled by it, ``--labels region-dev``
uses the dev sites' XPaths alone (the recipe before the training sites had theirs), and
``--labels site`` trains on repetition alone. Each figure is measured against the
truth it names, whichever labels trained. Then:

1. **Against site-level labels** (Kołcz & Yih's protocol): template recall at 90%
   precision, pooled and averaged over sites.
2. **Calibration**: how the operating point for 90% precision is chosen. For each
   family, a threshold is chosen on the *other* families' scores by one rule, and the
   family's own precision and recall are measured there: the promise on a new site. The
   rules: the pooled curve (each block counts once, what shipped before), the families'
   mean precision, and their median, lower quartile and 10th percentile. Reported: how
   many families get >= 90% precision, the mean, median and worst precision, mean recall.
3. **Against region truth** (template = text outside the main content), on the pages
   whose main region is known: the dev news sites' human extractions and every docs
   site's main-content XPath, whichever ``--labels`` trained (blocks with >= 80% of
   their text in the main text are content, <= 20% template,
   :func:`denoise.training.gold_labels`): per site, precision at each
   family's held-out threshold, and recall at 90% precision.

With ``--content-model``, each page's cross-validated scores are also mixed with a
main-content model's (``corpora.train_main_content``) as main-content mode mixes its
two models (the detector's share, then smoothed), and the figures above are given for
each share in ``--weights``. The model must never have seen these sites: the shipped
one was trained on the dev sites' gold, and WCXB's development split holds pages of
upstream sites of some training documentation sites (docs.python.org,
doc.rust-lang.org, docs.sqlalchemy.org, docs.celeryq.dev), so ``--leave-out news
--leave-out docs --leave-out wcxb`` makes one that saw no documentation site (its
sources still hold ~30 pages of the dev news publishers, of other years).
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from benchmarks_common import emit

from corpora.locate import corpus_path
from corpora.sites import dev_docs_main_xpaths, docs_main_xpaths, gold_main_texts
from denoise.detector import DEFAULT_SMOOTHING, TemplateDetector
from denoise.model import TemplateModel
from denoise.reader import Skipped, read_pages
from denoise.training import (
    NO_LABEL,
    CrossSiteReport,
    TrainingPage,
    cross_validate,
    gold_labels,
    training_pages,
    with_main_xpaths,
)
from denoise.validation import FamilyCurves, pr_curve, site_family

ARCHIVES = {"dev": ("sites-dev-docs.tar.xz", "sites-dev-news.tar.xz"),
            "train": ("sites-train-docs.tar.xz",)}
#: The calibration rules compared: name -> quantile of the families' precision (None: mean).
RULES: dict[str, float | None] = {"mean": None, "median": 0.5, "quartile": 0.25,
                                  "decile": 0.1}
TARGET = 0.9


def labelled_pages(archives: list[str]) -> tuple[list[str], list[TrainingPage]]:
    """The archives' file names, and their pages with a site-level label (the site
    labeller's, :func:`~denoise.training.training_pages`; no main-content XPath)."""
    names = [name for key in archives for name in ARCHIVES[key]]
    read = (p for name in names for p in read_pages([corpus_path(name)])
            if not isinstance(p, Skipped))
    return names, [p for p in training_pages(read) if p.example.any()]


def pct(value: float) -> str:
    """A share as a percentage with one decimal; "-" for NaN (nothing to measure)."""
    return "-" if value != value else f"{100 * value:.1f}"


def calibration_rows(report, families: FamilyCurves) -> tuple[list[str], dict]:
    """One table row per rule, and each rule's per-family thresholds."""
    rows, chosen = [], {}
    pooled = {}
    names, inverse = np.unique(report.sites, return_inverse=True)
    of_example = np.array([site_family(str(s)) for s in names])[inverse]
    for family in families.families:
        keep = of_example != family
        pooled[family] = pr_curve(report.smoothed[keep], report.labels[keep]
                                  ).threshold_for_precision(TARGET)
    thresholds = np.array([pooled[f] for f in families.families])
    results = {"pooled": (thresholds, *families.at(thresholds))}
    for name, quantile in RULES.items():
        results[name] = families.held_out(TARGET, quantile)
    for name, (threshold, precision, recall) in results.items():
        chosen[name] = dict(zip(families.families.tolist(), threshold.tolist(), strict=True))
        rows.append(f"| {name} | {np.median(threshold):.3f} | "
                    f"{int((precision >= TARGET).sum())} of {len(precision)} | "
                    f"{pct(precision.mean())} | {pct(float(np.median(precision)))} | "
                    f"{pct(precision.min())} | {pct(float(np.nanmean(recall)))} |")
    return rows, chosen


def region_rows(pages, report, gold: dict[str, str], chosen: dict[str, dict[str, float]],
                rule: str) -> list[str]:
    """Per site with region truth: precision at the rule's held-out threshold, recall at
    90% precision; and the same pooled."""
    by_site: dict[str, list[tuple[np.ndarray, np.ndarray]]] = defaultdict(list)
    for page, scores in zip(pages, report.page_scores, strict=True):
        main = gold.get(page.page.id)
        if main is None:
            continue
        labels = gold_labels(page.features, main)
        known = labels != NO_LABEL
        by_site[page.site].append((scores[1][known], labels[known]))
    rows, all_scores, all_labels, all_called = [], [], [], []
    for site in sorted(by_site):
        scores = np.concatenate([s for s, _ in by_site[site]])
        labels = np.concatenate([lab for _, lab in by_site[site]])
        threshold = chosen[rule][site_family(site)]
        called = scores >= threshold
        hits = int((called & (labels == 1)).sum())
        precision = hits / int(called.sum()) if called.any() else float("nan")
        recall_at = pr_curve(scores, labels).recall_at(TARGET) if (labels == 1).any() else 0.0
        rows.append(f"| {site} | {len(by_site[site])} | {int((labels == 1).sum())} | "
                    f"{threshold:.3f} | {pct(precision)} | "
                    f"{pct(hits / max(int((labels == 1).sum()), 1))} | {pct(recall_at)} |")
        all_scores.append(scores)
        all_labels.append(labels)
        all_called.append(called)
    scores, labels, called = map(np.concatenate, (all_scores, all_labels, all_called))
    hits = int((called & (labels == 1)).sum())
    rows.append(f"| **pooled** | {sum(len(v) for v in by_site.values())} | "
                f"{int((labels == 1).sum())} | | {pct(hits / max(int(called.sum()), 1))} | "
                f"{pct(hits / max(int((labels == 1).sum()), 1))} | "
                f"{pct(pr_curve(scores, labels).recall_at(TARGET))} |")
    return rows


def model_rows(pages, detector: TemplateDetector) -> tuple[list[str], list[str]]:
    """Per site, its precision and recall at ``detector``'s stored threshold against the
    site-level labels, worst first; and a summary line."""
    by_site: dict[str, list[tuple[np.ndarray, np.ndarray]]] = defaultdict(list)
    for page in pages:
        scores = detector.score_features(page.features).scores
        keep = page.example
        by_site[page.site].append((scores[keep], page.labels[keep]))
    rows, measured = [], []
    for site, parts in by_site.items():
        scores = np.concatenate([s for s, _ in parts])
        labels = np.concatenate([lab for _, lab in parts])
        called = scores >= detector.threshold
        template = int((labels == 1).sum())
        hits = int((called & (labels == 1)).sum())
        precision = hits / int(called.sum()) if called.any() else float("nan")
        recall = hits / template if template else float("nan")
        measured.append((precision, recall, site, len(parts), template))
    measured.sort(key=lambda row: (row[0] == row[0], row[0]))  # nan (nothing called) first
    for precision, recall, site, count, template in measured:
        rows.append(f"| {site} | {count} | {template} | {pct(precision)} | {pct(recall)} |")
    precisions = np.array([row[0] for row in measured])
    called = precisions[precisions == precisions]
    promised = detector.expected() or (float("nan"), float("nan"))
    summary = [
        f"Model {detector.threshold:.3f} threshold, promising precision {pct(promised[0])} "
        f"and recall {pct(promised[1])}; {len(measured)} sites, {len(called)} with a "
        f"block called template: precision >= 90% on {int((called >= TARGET).sum())} "
        f"({pct(float((called >= TARGET).mean()) if len(called) else float('nan'))}%), "
        f"median {pct(float(np.median(called)) if len(called) else float('nan'))}, "
        f"mean recall {pct(float(np.nanmean([row[1] for row in measured])))}."]
    return rows, summary


def tables(pages: list[TrainingPage], report: CrossSiteReport, gold: dict[str, str],
           rule: str) -> list[str]:
    """The report's figures: against site-level labels, each calibration rule, the
    families at ``rule``'s thresholds, and against region truth."""
    families = FamilyCurves.of(report.smoothed, report.labels, report.sites)
    calibration, chosen = calibration_rows(report, families)
    threshold, precision, recall = (np.array(list(chosen[rule].values())),
                                    *families.held_out(TARGET, RULES.get(rule))[1:])
    family_rows = [f"| {name} | {t:.3f} | {pct(p)} | {pct(r)} |" for name, t, p, r in sorted(
        zip(families.families.tolist(), threshold, precision, recall, strict=True),
        key=lambda row: row[2])]
    return [
        "### Against site-level labels", "",
        f"Recall at 90% precision: pooled {pct(report.curve(True).recall_at(TARGET))}, "
        f"mean over sites {pct(report.site_mean_recall(TARGET, True))}.", "",
        "### The operating point for 90% precision, chosen without the family it is "
        "measured on", "",
        "| rule | median threshold | families >= 90% P | mean P | median P | worst P "
        "| mean R |", "|---|---:|---:|---:|---:|---:|---:|", *calibration, "",
        f"### Per family, rule {rule} (promised 90% precision)", "",
        "| family | threshold | precision | recall |", "|---|---:|---:|---:|", *family_rows, "",
        f"### Against region truth (text outside the main content), rule {rule}", "",
        "| site | pages | template blocks | threshold | precision | recall | recall at 90% P |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *region_rows(pages, report, gold, chosen, rule), ""]


def mixed(pages: list[TrainingPage], report: CrossSiteReport, theirs: list[np.ndarray],
          weight: float) -> CrossSiteReport:
    """``report`` with each page's raw scores mixed with another model's (``theirs``, per
    page) as main-content mode mixes its two models: ``weight`` of the detector's, the
    rest theirs, smoothed again."""
    smoother = TemplateDetector(TemplateModel(), smoothing=DEFAULT_SMOOTHING)
    page_scores, raw, smoothed = [], [], []
    for page, scores, other in zip(pages, report.page_scores, theirs, strict=True):
        mix = weight * scores[0] + (1 - weight) * other
        both = np.stack((mix, smoother.smooth(page.features, mix)))
        page_scores.append(both)
        raw.append(both[0][page.example])
        smoothed.append(both[1][page.example])
    return CrossSiteReport(report.sites, report.labels, np.concatenate(raw),
                           np.concatenate(smoothed), tuple(page_scores))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--archives", nargs="+", choices=list(ARCHIVES),
                        default=list(ARCHIVES))
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--rule", choices=["pooled", *RULES], default="quartile",
                        help="the rule whose thresholds the per-family tables use")
    parser.add_argument("--model", type=Path, nargs="+", help="score with these models at "
                        "their stored operating points instead of cross-validating (on sites "
                        "they never saw)")
    parser.add_argument("--labels", choices=["region", "region-dev", "site"],
                        default="region",
                        help="cross-validation trains on the main content's region where "
                        "known (as shipped), where known on the dev sites alone, or on the "
                        "site-level labels alone")
    parser.add_argument("--content-model", type=Path, metavar="NPZ",
                        help="mix each block's score with this main-content model's "
                        "(corpora.train_main_content; one that never saw these sites) as "
                        "main-content mode mixes its models, a report per --weights")
    parser.add_argument("--weights", type=float, nargs="+",
                        help="the detector's shares in the mix, each in [0, 1] (1: the "
                        "detector alone; default 1 0.75 0.5 0.25)")
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    if args.content_model is None and args.weights is not None:
        parser.error("--weights are shares of a mix with --content-model")
    if args.content_model is not None and args.model is not None:
        parser.error("--content-model mixes into the cross-validated detector, not --model")
    if any(not 0.0 <= w <= 1.0 for w in args.weights or ()):
        parser.error("each of --weights is in [0, 1]")
    content = None if args.content_model is None else TemplateModel.load(args.content_model)
    if content is not None and content.header_.get("role") != "main-content":
        parser.error(f"{args.content_model}: not a main-content model "
                     "(corpora.train_main_content)")
    started = time.time()
    names, pages = labelled_pages(args.archives)
    if args.model is not None:
        lines = [f"Archives: {', '.join(names)}; {len(pages)} pages with labels.", ""]
        for path in args.model:
            rows, summary = model_rows(pages, TemplateDetector.load(path))
            lines += [f"### {path}", "", *summary, "",
                      "| site | pages | template blocks | precision | recall |",
                      "|---|---:|---:|---:|---:|", *rows, ""]
        emit("\n".join(lines), args.markdown)
        return
    gold = gold_main_texts([p.page for p in pages])
    with_gold = sum(p.page.id in gold for p in pages)
    print(f"{len(pages)} labelled pages, {len({p.site for p in pages})} sites, "
          f"{len({site_family(p.site) for p in pages})} families, {with_gold} with region "
          f"truth ({time.time() - started:.0f} s)", flush=True)
    xpaths = {"region": docs_main_xpaths, "region-dev": dev_docs_main_xpaths,
              "site": dict}[args.labels]()
    taught = {(page.site, page.page.id): new for page, new in zip(
        pages, with_main_xpaths(pages, xpaths), strict=True)}
    report = cross_validate(pages, lambda train: TemplateDetector(
        TemplateModel().fit([taught[page.site, page.page.id] for page in train]),
        smoothing=DEFAULT_SMOOTHING), args.folds)
    print(f"cross-validated ({time.time() - started:.0f} s)", flush=True)
    lines = [
        f"Archives: {', '.join(names)}; {len(pages)} pages with labels, "
        f"{len({site_family(p.site) for p in pages})} site families, "
        f"{len(report.labels):,} examples; {args.folds}-fold cross-site validation by "
        f"family, forest, smoothed (c = {DEFAULT_SMOOTHING}), trained on {args.labels} "
        "labels.", ""]
    if content is None:
        lines += tables(pages, report, gold, args.rule)
    else:
        theirs = [content.predict_proba(page.features) for page in pages]
        for weight in args.weights or (1.0, 0.75, 0.5, 0.25):
            lines += [f"## The detector's share {weight:g}, the rest {args.content_model}'s",
                      "", *tables(pages, mixed(pages, report, theirs, weight), gold, args.rule)]
    lines.append(f"{time.time() - started:.0f} s.")
    emit("\n".join(lines), args.markdown)


if __name__ == "__main__":
    main()
