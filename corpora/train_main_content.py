"""Train the shipped main-content model (``denoise/models/main_content.npz``).

Run: python -m corpora.train_main_content [--out denoise/models/main_content.npz]
                                         [--exclude-site HOST ...]

Blocks of the dev sites' pages with gold main text (news: human extractions; docs:
the main-content XPath) are labelled by the gold (:func:`denoise.training.
gold_training_page`: >= 80% of a block's text in the main text = content, <= 20% =
boilerplate) and the page-level model is trained on them, with the same features
and classifier as the template model. The extractor's parameters
(:class:`denoise.main_content.MainContentExtractor`) are stored in its header.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from corpora.sites import gold_main_texts, iter_archives
from denoise.main_content import MainContentExtractor, main_content_model_path
from denoise.model import TemplateModel
from denoise.reader import Skipped, read_pages
from denoise.training import gold_training_page
from denoise.validation import site_family

#: The extractor's parameters stored with the shipped model (see denoise.main_content).
PARAMS = {"weight": 0.5, "threshold": 0.55, "link_density": 0.5, "one_region": True}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=main_content_model_path())
    parser.add_argument("--exclude-site", action="append", default=[], metavar="HOST",
                        help="leave out this site's whole family (a held-out model)")
    args = parser.parse_args()
    started = time.time()
    excluded = {site_family(host) for host in args.exclude_site}
    pages = [p for archive in iter_archives() for p in read_pages([archive])
             if not isinstance(p, Skipped) and site_family(p.site) not in excluded]
    gold = gold_main_texts(pages)
    labelled = [gold_training_page(p, gold[p.id]) for p in pages if p.id in gold]
    model = TemplateModel().fit(labelled)
    MainContentExtractor(detector=None, **PARAMS)  # type: ignore[arg-type] # checks PARAMS
    model.save(args.out, extra={"role": "main-content", "main_content": PARAMS, "training": {
        "pages": len(labelled), "sites": len({p.site for p in labelled}),
        "examples": model.n_examples_, "labels": "gold main text",
        "excluded_families": sorted(excluded)}})
    print(f"{args.out}: {len(labelled)} pages with gold, {model.n_examples_} examples, "
          f"{time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
