"""Headings, lists and tables of the main content in Markdown: ours against trafilatura's.

Run (from the repository root; needs the shared corpora and the [bench] extra):

    python benchmarks/structure.py [--heldout DIR] [--limit N]
                                   [--markdown benchmarks/out/structure.md]

WCXB's development split gives each page's main content as Markdown
(``main_content_markdown``), written by its annotators. On the pages whose gold has
headings, list items or table cells, both extractors write Markdown from the same
decoded page: ours :meth:`denoise.main_content.MainContentExtractor.structure` through
:func:`denoise.structure.to_markdown`; trafilatura's ``extract(output_format="markdown",
include_tables=True)``. The same reader takes both apart (a line starting with ``#`` is
a heading, ``-``, ``*``, ``+`` or ``1.`` a list item, ``|`` a table row, separator rows
left out), and each structure of the gold counts as kept when the output has one of
the same kind whose words (lower-cased ``\\w+``) have an F1 of at least 0.8 with it:

- heading recall and precision (a heading written that the gold has as a heading);
- list-item recall; table-cell recall (cells with a word; a cell matches a cell).

With ``--heldout DIR`` (``python -m corpora.train_main_content --heldout DIR``) each page
is read by the main-content model trained without its domain's WCXB fold: the shipped
model learned these pages. Without it the figures are training-data figures.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmarks_common import emit
from main_content import HeldOut

from corpora.content import WCXB, WCXB_ARCHIVE, iter_content_pages, unpacked
from corpora.locate import corpus_path
from denoise.errors import PageError
from denoise.page import Page, site_of
from denoise.structure import to_markdown

_WORD = re.compile(r"\w+")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_HEADING = re.compile(r"^\s*#{1,6}\s+(.*?)\s*#*\s*$")
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def parts(markdown: str) -> dict[str, list[list[str]]]:
    """The words of each heading, list item and table cell of a Markdown text."""
    found: dict[str, list[list[str]]] = {"heading": [], "item": [], "cell": []}
    for line in (markdown or "").splitlines():
        if match := _HEADING.match(line):
            found["heading"].append(words(match.group(1)))
        elif line.lstrip().startswith("|"):
            if not _SEPARATOR.match(line.strip().strip("|")):
                found["cell"] += [words(cell) for cell in line.strip().strip("|").split("|")]
        elif match := _ITEM.match(line):
            found["item"].append(words(match.group(1)))
    return {kind: [w for w in items if w] for kind, items in found.items()}


def f1(a: list[str], b: list[str]) -> float:
    common = sum(min(a.count(w), b.count(w)) for w in set(a))
    return 0.0 if not common else 2 * common / (len(a) + len(b))


def matched(wanted: list[list[str]], given: list[list[str]]) -> int:
    """How many of ``wanted`` have a match (word F1 >= 0.8) in ``given``."""
    return sum(any(f1(w, g) >= 0.8 for g in given) for w in wanted)


def trafilatura_markdown(html: str, url: str | None) -> str:
    import trafilatura

    try:
        return trafilatura.extract(html, url=url, output_format="markdown",
                                   include_tables=True) or ""
    except Exception:  # a third-party failure is a miss, counted
        return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--heldout", type=Path)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    root = unpacked(corpus_path(WCXB_ARCHIVE)) / "wcxb-dev" / "dev" / "ground-truth"
    models = HeldOut(args.heldout)
    totals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    pages = 0
    for page in iter_content_pages([WCXB], limit=args.limit):
        gold = json.loads((root / f"{page.page_id}.json").read_bytes())["ground_truth"]
        wanted = parts(gold.get("main_content_markdown") or "")
        if not any(wanted.values()):
            continue
        pages += 1
        extractor = models.extractor_for(page)
        try:
            ours = to_markdown(extractor.structure(Page(
                id=page.page_id, html=page.html, url=page.url, site=site_of(page.url))))
        except PageError:
            ours = ""
        outputs = {"ours": parts(ours),
                   "trafilatura": parts(trafilatura_markdown(page.html, page.url))}
        for who, given in outputs.items():
            count = totals[who]
            for kind in ("heading", "item", "cell"):
                count[f"{kind}_gold"] += len(wanted[kind])
                count[f"{kind}_found"] += matched(wanted[kind], given[kind])
            count["heading_written"] += len(given["heading"])
            count["heading_right"] += matched(given["heading"], wanted["heading"])
    emit(report(totals, pages, args.heldout is not None), args.markdown)


def report(totals: dict[str, dict[str, int]], pages: int, heldout: bool) -> str:
    def share(a: int, b: int) -> str:
        return f"{100 * a / b:.1f}" if b else "-"

    gold = totals["ours"]
    lines = [f"Structure of the main content in Markdown, WCXB development split: {pages} "
             f"pages whose gold has headings ({gold['heading_gold']}), list items "
             f"({gold['item_gold']}) or table cells ({gold['cell_gold']}); "
             + ("each page read by the model trained without its fold" if heldout else
                "the shipped model (trained on these pages)"), "",
             "| extractor | heading recall | heading precision | list-item recall | "
             "table-cell recall |", "|---|---:|---:|---:|---:|"]
    for who in ("ours", "trafilatura"):
        c = totals[who]
        lines.append(f"| {who} | {share(c['heading_found'], c['heading_gold'])} | "
                     f"{share(c['heading_right'], c['heading_written'])} | "
                     f"{share(c['item_found'], c['item_gold'])} | "
                     f"{share(c['cell_found'], c['cell_gold'])} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
