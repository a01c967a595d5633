"""Detectors that never saw a benchmark's sites: cross-validation by site family.

Run: python benchmarks/heldout_detectors.py BENCH/pages --out BENCH/detectors [--folds 3]

The shipped template and main-content models were trained on the dev sites, which
the near-duplicate benchmark's pages come from (the template models from their
site-level labels, with the training docs sites', and the shipped detector also from
the documentation sites' main regions; the main-content model from their gold, with
the other gold sources'). Measuring PAGELEVEL or MAIN with them would test sites they
learned. This script splits the site families of the folders under PAGES into folds
and, per fold, trains three models on every other family (``--exclude-site``):

- ``template-K.npz``, on site-level labels alone, as ``template-repetition.npz`` is:
  the template model main mode mixes;
- ``page-K.npz``, by the shipped detector's recipe (``default.npz``: site-level labels,
  and the documentation sites' main regions, ``--main-xpaths``): what mode ``page`` cuts
  with;
- ``main-K.npz``, the main-content model (``python -m corpora.train_main_content``).

``folds.json`` maps each family to its fold's models (``template``, ``page``, ``main``);
a benchmark scores a page with the models of its family's fold. About 20 minutes a fold.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from corpora.locate import corpus_path
from corpora.sites import DOCS_XPATHS, TRAIN_DOCS_XPATHS
from denoise.validation import site_family


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pages", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--folds", type=int, default=3)
    args = parser.parse_args()
    families = sorted({site_family(p.name) for p in args.pages.iterdir() if p.is_dir()})
    folds = [families[k::args.folds] for k in range(args.folds)]
    args.out.mkdir(parents=True, exist_ok=True)
    archives = [str(corpus_path(name)) for name in ("sites-dev-docs.tar.xz",
                                                    "sites-dev-news.tar.xz",
                                                    "sites-train-docs.tar.xz")]
    regions = [arg for table in (corpus_path(DOCS_XPATHS), TRAIN_DOCS_XPATHS)
               for arg in ("--main-xpaths", str(table))]
    train = [sys.executable, "-c", "from commands.denoise import app; app()", "train", *archives]
    plan = {}
    for k, fold in enumerate(folds):
        template, page, main = (args.out / f"{name}-{k}.npz" for name in ("template", "page",
                                                                          "main"))
        excluded = [arg for family in fold for arg in ("--exclude-site", family)]
        print(f"fold {k}: without {', '.join(fold)}", flush=True)
        subprocess.run([*train, "--out", str(template), *excluded], check=True)
        subprocess.run([*train, *regions, "--out", str(page), *excluded], check=True)
        subprocess.run([sys.executable, "-m", "corpora.train_main_content", "--out", str(main),
                        *excluded], check=True)
        plan.update({family: {"template": template.name, "page": page.name, "main": main.name}
                     for family in fold})
    (args.out / "folds.json").write_text(json.dumps(plan, indent=1) + "\n", encoding="utf-8")
    print(f"{args.out / 'folds.json'}: {len(families)} families in {args.folds} folds")


if __name__ == "__main__":
    main()
