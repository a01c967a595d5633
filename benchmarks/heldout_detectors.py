"""Detectors that never saw a benchmark's sites: cross-validation by site family.

Run: python benchmarks/heldout_detectors.py BENCH/pages --out BENCH/detectors [--folds 3]

The shipped template and main-content models were trained on the dev sites, which
the near-duplicate benchmark's pages come from (the template models from their
site-level labels, with the training docs sites', and the shipped detector also from
the documentation sites' main regions; the main-content model from their gold, with
the other gold sources'). The per-fold template models here are trained on site-level
labels alone, as ``template-repetition.npz`` is: what main mode mixes. Measuring PAGELEVEL with
them would test sites they learned. This script splits the site families of the
folders under PAGES into folds and, per fold, trains both models on every other
family (``denoise train --exclude-site``, ``python -m corpora.train_main_content
--exclude-site``). ``folds.json`` maps each family to its fold's models; a benchmark
scores a page with the models of its family's fold. About 12 minutes a fold.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from corpora.locate import corpus_path
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
    plan = {}
    for k, fold in enumerate(folds):
        template, main = args.out / f"template-{k}.npz", args.out / f"main-{k}.npz"
        excluded = [arg for family in fold for arg in ("--exclude-site", family)]
        print(f"fold {k}: without {', '.join(fold)}", flush=True)
        subprocess.run([sys.executable, "-c", "from commands.denoise import app; app()", "train",
                        *archives, "--out", str(template), *excluded], check=True)
        subprocess.run([sys.executable, "-m", "corpora.train_main_content", "--out", str(main),
                        *excluded], check=True)
        plan.update({family: {"template": template.name, "main": main.name} for family in fold})
    (args.out / "folds.json").write_text(json.dumps(plan, indent=1) + "\n", encoding="utf-8")
    print(f"{args.out / 'folds.json'}: {len(families)} families in {args.folds} folds")


if __name__ == "__main__":
    main()
