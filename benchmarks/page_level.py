"""The page-level detector on sites it never saw: 10-fold cross-site validation.

Run: python benchmarks/page_level.py [--classifiers naive-bayes logistic forest]
         [--trees N] [--markdown benchmarks/out/page_level.md]
         [--plot benchmarks/out/page_level_pr.png]

Labels come from the site-level fingerprint method on the dev sites (as
``denoise train`` makes them); folds hold whole site families. For each classifier
(text-only Naive Bayes, logistic regression, random forest), Basic (classifier
scores) and Smooth (after tree isotonic smoothing): template recall at 90%
precision pooled over all examples and averaged over sites, and the
precision-recall curves as a picture. On the pages with gold main text (news:
human extractions; docs: main-content XPath): word-level precision / recall / F1
of the text called template (Chakrabarti et al. 6.1) at the 90%-precision cut, and
the adjusted Rand index between the predicted and gold template / content split
of the page's text chunks, Basic vs Smooth. ``--trees`` sets the forest's size (the
shipped default otherwise), for weighing a smaller forest's accuracy against its
cost per page.
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

import numpy as np
from benchmarks_common import emit, load_pages

from corpora.sites import gold_main_texts
from denoise.detector import DEFAULT_SMOOTHING, PageScores, TemplateDetector, add_site_evidence
from denoise.evaluate import TextScore, bag_of_words
from denoise.model import TemplateModel
from denoise.training import (
    CrossSiteReport,
    TrainingPage,
    cross_validate,
    gold_chunks,
    training_pages,
)

_WORD = re.compile(r"\w")


def cross_validate_both(pages: list[TrainingPage], classifier: str, folds: int,
                        smoothing: float, trees: int | None = None,
                        ) -> tuple[CrossSiteReport, list[np.ndarray]]:
    """Out-of-fold scores of every node of every page: raw, smoothed, and smoothed with
    site evidence (the page's own site-level template labels, what `denoise apply
    --site-evidence` would find in a batch of the site). ``trees``: the forest's size
    (None: the default)."""
    size = {} if trees is None else {"n_trees": trees}
    report = cross_validate(pages, lambda train: TemplateDetector(
        TemplateModel(classifier=classifier, **size).fit(train), smoothing=smoothing), folds)
    smoother = TemplateDetector(TemplateModel(), smoothing=smoothing)
    scored = [np.vstack((scores, smoother.smooth(page.features, add_site_evidence(
        scores[0], page.labels == 1)))) for page, scores in zip(pages, report.page_scores,
                                                                strict=True)]
    return report, scored


#: Penalty constants tried on the same out-of-fold scores (Chakrabarti et al. used 0.01).
SMOOTHING_SWEEP = (0.0, 0.001, 0.002, 0.003, 0.005, 0.01, 0.03, 0.1)


def smoothing_sweep(classifier: str, pages: list[TrainingPage], scored: list[np.ndarray],
                    report: CrossSiteReport) -> list[str]:
    """Recall at 90% precision, pooled and averaged over sites, for each penalty
    constant, re-smoothing the same out-of-fold classifier scores."""
    rows = []
    for c in SMOOTHING_SWEEP:
        detector = TemplateDetector(TemplateModel(), smoothing=c)
        smoothed = np.concatenate([detector.smooth(p.features, s[0])[p.example]
                                   for p, s in zip(pages, scored, strict=True)])
        swept = CrossSiteReport(report.sites, report.labels, report.raw, smoothed)
        rows.append(f"| {classifier} | {c:g} | {swept.curve(True).recall_at(0.9):.1%} "
                    f"| {swept.site_mean_recall(0.9, True):.1%} |")
    return rows


def gold_chunk_labels(chunks: tuple[str, ...], gold_text: str) -> np.ndarray:
    """Per chunk: gold template (it has words, and most are not in the gold main text;
    see :func:`denoise.training.gold_chunks`)."""
    has_words = np.array([_WORD.search(chunk) is not None for chunk in chunks], dtype=bool)
    return has_words & ~gold_chunks(chunks, gold_text)


def text_scores(pages: list[TrainingPage], scored: list[np.ndarray], gold: dict[str, str],
                threshold: float, row: int) -> tuple[TextScore, float, int]:
    """Word-level template score and mean adjusted Rand index over the gold pages."""
    from sklearn.metrics import adjusted_rand_score

    total, rand, n = TextScore(), [], 0
    for page, scores in zip(pages, scored, strict=True):
        main = gold.get(page.page.id)
        if main is None:
            continue
        result = PageScores(page.features, scores[0], scores[row], threshold)
        chunks = page.features.blocks.chunks
        mask = result.template_chunks()
        page_words = bag_of_words(" ".join(chunks))
        gold_template = page_words - (bag_of_words(main) & page_words)
        predicted = bag_of_words(" ".join(c for c, t in zip(chunks, mask, strict=True) if t))
        total += TextScore(sum((predicted & gold_template).values()),
                           sum(predicted.values()), sum(gold_template.values()))
        if len(chunks) > 1:
            rand.append(adjusted_rand_score(gold_chunk_labels(chunks, main), mask))
        n += 1
    return total, float(np.mean(rand)) if rand else float("nan"), n


def operating_point_row(classifier: str, report: CrossSiteReport) -> str:
    """Pooled and per-site precision / recall at the 90%-pooled-precision threshold."""
    threshold = report.curve(True).threshold_for_precision(0.9)
    pooled_p, pooled_r = report.curve(True).at(threshold)
    per_site = []
    for site in sorted(set(report.sites.tolist())):
        mask = report.sites == site
        called = report.smoothed[mask] >= threshold
        template = report.labels[mask] == 1
        hits = int((called & template).sum())
        per_site.append((hits / max(int(called.sum()), 1) if called.any() else 1.0,
                         hits / int(template.sum()) if template.any() else 1.0))
    precision, recall = np.array(per_site).T
    return (f"| {classifier} | {threshold:.3f} | {pooled_p:.1%} | {pooled_r:.1%} "
            f"| {precision.mean():.1%} | {recall.mean():.1%} | {int((precision < 0.9).sum())} "
            f"of {len(per_site)} |")


def plot(curves: dict[str, tuple[np.ndarray, np.ndarray]], path: Path) -> None:
    """Precision-recall curves, one line per configuration."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 5))
    for label, (recall, precision) in curves.items():
        axes.plot(recall, precision, label=label, linestyle="--" if "smooth" in label else "-")
    axes.axhline(0.9, color="grey", linewidth=0.6)
    axes.set(xlabel="template recall", ylabel="template precision", xlim=(0, 1),
             ylim=(0.5, 1.005), title="Cross-site 10-fold, dev sites (unseen sites)")
    axes.legend(loc="lower left")
    axes.grid(alpha=0.3)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120, bbox_inches="tight")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--classifiers", nargs="+", default=["naive-bayes", "logistic", "forest"])
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--smoothing", type=float, default=DEFAULT_SMOOTHING)
    parser.add_argument("--trees", type=int, help="trees of the forest (default: the "
                        "shipped model's setting)")
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--plot", type=Path, default=Path("benchmarks/out/page_level_pr.png"))
    args = parser.parse_args()

    started = time.time()
    pages = [p for p in training_pages(load_pages()) if p.example.any()]
    gold = gold_main_texts([p.page for p in pages])
    print(f"{len(pages)} labelled pages, {len({p.site for p in pages})} sites, "
          f"{sum(int(p.example.sum()) for p in pages)} examples, {len(gold)} pages with gold "
          f"({time.time() - started:.0f} s)")
    lines = ["| classifier | pooled recall@90P basic | smooth | site mean basic | smooth "
             "| gold words P / R / F1 basic | smooth | smooth + site evidence "
             "| ARI basic | smooth | + site evidence |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    curves: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    per_site: dict[str, list] = {}
    operating: list[str] = []
    sweep: list[str] = []
    for classifier in args.classifiers:
        report, scored = cross_validate_both(pages, classifier, args.folds, args.smoothing,
                                             args.trees)
        cells = [classifier]
        cells += [f"{report.curve(s).recall_at(0.9):.1%}" for s in (False, True)]
        cells += [f"{report.site_mean_recall(0.9, s):.1%}" for s in (False, True)]
        rand = []
        for row, name in enumerate(("basic", "smooth", "smooth + site evidence")):
            curve = report.curve(row > 0)
            if row < 2:
                curves[f"{classifier} {name}"] = (curve.recall, curve.precision)
            threshold = curve.threshold_for_precision(0.9)
            score, ari, n = text_scores(pages, scored, gold, threshold, row)
            cells.append(f"{score.precision:.1%} / {score.recall:.1%} / {score.f1:.1%}")
            rand.append(f"{ari:.3f}")
        cells += rand
        lines.append("| " + " | ".join(cells) + " |")
        per_site[f"{classifier} basic"] = report.per_site(0.9, False)
        per_site[f"{classifier} smooth"] = report.per_site(0.9, True)
        operating.append(operating_point_row(classifier, report))
        sweep += smoothing_sweep(classifier, pages, scored, report)
        print(lines[-1], f"({time.time() - started:.0f} s)", flush=True)
    site_lines = ["| site | examples | template | " + " | ".join(per_site) + " |",
                  "|---|---:|---:|" + "---:|" * len(per_site)]
    first = next(iter(per_site.values()))
    for index, (site, n, template, _) in enumerate(first):
        cells = [site, str(n), str(template)]
        cells += ["-" if rows[index][3] != rows[index][3] else f"{rows[index][3]:.0%}"
                  for rows in per_site.values()]
        site_lines.append("| " + " | ".join(cells) + " |")
    text = ("\n".join(lines)
            + "\n\nAt the operating point (the smoothed threshold giving 90% pooled "
            "precision), pooled and per site (a site with nothing called has precision 1):"
            "\n\n| classifier | threshold | pooled P | pooled R | mean site P | mean site R "
            "| sites under 90% P |\n|---|---:|---:|---:|---:|---:|---:|\n"
            + "\n".join(operating)
            + "\n\nSmoothing penalty constant c, on the same out-of-fold scores (recall at "
            "90% precision):\n\n| classifier | c | pooled | mean over sites |\n"
            "|---|---:|---:|---:|\n" + "\n".join(sweep)
            + "\n\nPer site, recall at 90% precision:\n\n" + "\n".join(site_lines))
    emit("\n" + text, args.markdown)
    try:
        plot(curves, args.plot)
        print(f"\nprecision-recall curves: {args.plot}")
    except ImportError:
        print("\n(matplotlib not installed: pip install '.[bench]' for the picture)")
    print(f"{time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
