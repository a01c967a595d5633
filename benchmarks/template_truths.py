"""How far the template detector's two truths agree, and the best any detector could
score against both.

Run: python benchmarks/template_truths.py [--archives dev train]
                                          [--markdown benchmarks/out/template_truths.md]

Issue 33 asks for template recall at 90% precision >= 0.90 pooled (>= 0.60 averaged
over sites) against two truths at once: the site-level labels (repetition across a
site's pages, Kołcz & Yih's protocol) and region truth (template = text outside the main
content: the dev news sites' human extractions and each documentation site's
main-content XPath, :func:`corpora.sites.gold_main_texts`). No model is trained here:
the figures are of the labels alone, on the pages ``template_heldout.py`` reads.

On a block both truths label, they can disagree: ``b`` blocks are template by
repetition and content by region (an API reference's inherited members, repeated inside
every page's main content), ``c`` blocks the reverse (a page's own breadcrumbs and
"Next / Up" bars). Any detector ranks blocks; recall at 90% precision against a truth is
read at the deepest point of that ranking where the truth's precision is >= 90%. Two
points of one ranking are nested, so one of the two truths' points lies inside the
other's, and the best ranking (:func:`ceiling`) puts first every block that is template
by both truths or by the only truth that labels it, then either as many ``b`` blocks as
the other truth's precision can absorb (at most a ninth of its template) and every
``c`` block, giving that truth recall 1, or the reverse. The ceiling is the better of
the two orders' lower recall: no detector, whatever its features, exceeds it against
both truths at once.
"""

from __future__ import annotations

import argparse
import math
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from benchmarks_common import emit
from template_heldout import ARCHIVES, TARGET, labelled_pages, pct

from corpora.sites import docs_main_xpaths, gold_main_texts
from denoise.training import NO_LABEL, gold_labels


@dataclass
class Counts:
    """Template blocks of each truth, and the blocks the two truths disagree on."""

    site_template: int = 0  # template by the site-level labels (examples)
    region_template: int = 0  # template by region truth (blocks it labels)
    site_only: int = 0  # b: template by repetition, content by region
    region_only: int = 0  # c: template by region, content by repetition

    def add(self, other: Counts) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def page_counts(site_labels: np.ndarray, example: np.ndarray, region: np.ndarray | None
                ) -> Counts:
    """One page's :class:`Counts` (``region`` None: the page has no region truth)."""
    site = np.where(example, site_labels, NO_LABEL)
    counts = Counts(site_template=int((site == 1).sum()))
    if region is not None:
        counts.region_template = int((region == 1).sum())
        counts.site_only = int(((site == 1) & (region == 0)).sum())
        counts.region_only = int(((site == 0) & (region == 1)).sum())
    return counts


def ceiling(counts: Counts, target: float = TARGET) -> tuple[float, float]:
    """The best (site-label recall, region recall) at ``target`` precision that one
    ranking of the blocks reaches against both truths, the order whose lower recall is
    higher (see the module's docstring). NaN for a truth with no template."""
    ts, tr = counts.site_template, counts.region_template
    if not (ts and tr):
        return (1.0 if ts else float("nan"), 1.0 if tr else float("nan"))

    def absorbed(template: int) -> int:  # false calls a truth's precision takes, whole
        return math.floor(template * (1 - target) / target + 1e-9)

    orders = [  # b blocks early: region recall 1, site recall as far as region allows
        ((ts - counts.site_only + min(counts.site_only, absorbed(tr))) / ts, 1.0),
        (1.0, (tr - counts.region_only + min(counts.region_only, absorbed(ts))) / tr)]
    return max(orders, key=min)


def lower(recalls: tuple[float, float]) -> float:
    """The lower of the two recalls; NaN if either truth has no template."""
    return float("nan") if any(r != r for r in recalls) else min(recalls)


def _row(name: str, sites: int, counts: Counts) -> str:
    site_recall, region_recall = ceiling(counts)
    return (f"| {name} | {sites} | {counts.site_template:,} | {counts.region_template:,} | "
            f"{pct(_share(counts.site_only, counts.site_template))} | "
            f"{pct(_share(counts.region_only, counts.region_template))} "
            f"| {pct(site_recall)} | {pct(region_recall)} | "
            f"{pct(lower((site_recall, region_recall)))} |")


def _share(part: int, whole: int) -> float:
    return part / whole if whole else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--archives", nargs="+", choices=list(ARCHIVES),
                        default=list(ARCHIVES))
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    started = time.time()
    names, pages = labelled_pages(args.archives)
    gold = gold_main_texts([p.page for p in pages])
    docs = docs_main_xpaths()
    by_site: dict[str, Counts] = defaultdict(Counts)
    kind: dict[str, str] = {}
    for page in pages:
        main = gold.get(page.page.id)
        region = None
        if main is not None:
            region = gold_labels(page.features, main)
            kind[page.site] = "documentation" if page.site in docs else "news"
        by_site[page.site].add(page_counts(page.labels, page.example, region))
    kinds = {"news": Counts(), "documentation": Counts(), "no region truth": Counts()}
    sites_of = defaultdict(int)
    for site, counts in by_site.items():
        name = kind.get(site, "no region truth")
        kinds[name].add(counts)
        sites_of[name] += 1
    pooled = Counts()
    for counts in kinds.values():
        pooled.add(counts)
    per_site = [ceiling(c) for site, c in by_site.items()
                if site in kind and c.site_template and c.region_template]
    site_mean = float(np.mean([s for s, _ in per_site]))
    region_mean = float(np.mean([r for _, r in per_site]))
    worst = sorted((lower(ceiling(by_site[site])), site) for site in kind
                   if by_site[site].site_template and by_site[site].region_template)[:12]
    header = ("| sites | count | template blocks, site labels | template blocks, region "
              "truth | site template that region calls content (b) | region template that "
              "repetition calls content (c) | ceiling: recall at 90% P, site labels | "
              "region truth | the lower |")
    lines = [
        f"Archives: {', '.join(names)}; {len(pages)} pages with site-level labels, "
        f"{len(by_site)} sites, {sum(p.page.id in gold for p in pages)} pages with region "
        "truth; no model; "
        f"{time.time() - started:.0f} s.", "",
        "### Template blocks, and the best recall at 90% precision against both truths", "",
        header, "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        *[_row(name, sites_of[name], counts) for name, counts in kinds.items()],
        _row("**pooled**", len(by_site), pooled), "",
        f"Over the {len(per_site)} sites with template by both truths, each ranked apart: "
        f"the ceiling averages {pct(site_mean)} against site labels and "
        f"{pct(region_mean)} against region truth.", "",
        "### The sites where the truths disagree most (lowest ceiling)", "",
        "| site | ceiling, the lower recall | b | c | site template | region template |",
        "|---|---:|---:|---:|---:|---:|",
        *[f"| {site} | {pct(value)} | {by_site[site].site_only:,} | "
          f"{by_site[site].region_only:,} | {by_site[site].site_template:,} | "
          f"{by_site[site].region_template:,} |" for value, site in worst], ""]
    emit("\n".join(lines), args.markdown)


if __name__ == "__main__":
    main()
