"""Near-duplicates with and without templates: Chakrabarti, Kumar & Punera's Table 2 (6.2)
on our LYRICS-style benchmark.

Run: python benchmarks/dedup.py BENCH [--markdown benchmarks/out/dedup.md]

BENCH is made by ``python -m corpora.dup_bench BENCH``: ``pages/<site>/...`` and
``pairs.tsv`` (``a<TAB>b<TAB>duplicate|distinct``): 300 duplicate pairs (one article on
two sites of different families, inside their templates) and 300 distinct pairs (two
articles of one site). For each text (FULLTEXT = ``--denoise none``, SITELEVEL =
``site``, PAGELEVEL = ``page``) and each rule (the paper's 8 smallest hashes with >= 4
matching; LSH with verified Jaccard >= 0.8 and >= 0.5) the benchmark runs ``mining dedup
pages --pairs`` itself, as a user would, and reports the share of duplicate pairs it
flags and of distinct pairs it keeps apart. The paper: 76% of duplicates found with
PAGELEVEL (FULLTEXT 30.9%), 91.6% of distinct pairs kept apart; the goal here is >= 90%
and >= 95%.
"""

from __future__ import annotations

import argparse
import csv
import json
import tempfile
import time
from pathlib import Path

import typer
from benchmarks_common import emit

from mining.cli import app

RULES = (("paper (8 hashes, >= 4 match)", ["--rule", "paper"]),
         ("LSH, Jaccard >= 0.8", ["--rule", "lsh", "--threshold", "0.8"]),
         ("LSH, Jaccard >= 0.5", ["--rule", "lsh", "--threshold", "0.5"]))
TEXTS = (("FULLTEXT", "none"), ("SITELEVEL", "site"), ("PAGELEVEL", "page"))


def labelled_pairs(bench: Path) -> dict[frozenset[str], str]:
    """The benchmark's pairs: {a, b} -> duplicate or distinct."""
    with (bench / "pairs.tsv").open(encoding="utf-8", newline="") as stream:
        return {frozenset((row[0], row[1])): row[2]
                for row in csv.reader(stream, delimiter="\t") if len(row) == 3}


def flagged_pairs(pages: Path, options: list[str]) -> tuple[set[frozenset[str]], float]:
    """The pairs ``mining dedup`` reports, and the CPU seconds it took."""
    command = typer.main.get_command(app)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "pairs.jsonl"
        started = time.process_time()
        command.main(["dedup", str(pages), "--pairs", "-o", str(out), *options],
                     standalone_mode=False)
        seconds = time.process_time() - started
        with out.open(encoding="utf-8") as stream:
            found = {frozenset((r["a"], r["b"])) for r in map(json.loads, stream)}
    return found, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bench", type=Path)
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args()
    pairs = labelled_pairs(args.bench)
    duplicates = {p for p, label in pairs.items() if label == "duplicate"}
    distinct = {p for p, label in pairs.items() if label == "distinct"}
    lines = [f"{len(duplicates)} duplicate pairs, {len(distinct)} distinct pairs "
             f"({args.bench}).", ""]
    for rule, options in RULES:
        lines += [f"### {rule}", "",
                  "| text | duplicates flagged | distinct kept apart | pairs reported | "
                  "CPU seconds |", "|---|---:|---:|---:|---:|"]
        for name, mode in TEXTS:
            found, seconds = flagged_pairs(args.bench / "pages", [*options, "--denoise", mode])
            caught = len(duplicates & found) / len(duplicates)
            apart = 1 - len(distinct & found) / len(distinct)
            lines.append(f"| {name} | {100 * caught:.1f}% | {100 * apart:.1f}% | "
                         f"{len(found)} | {seconds:.1f} |")
        lines.append("")
    lines.append("Goal: >= 90% of duplicates flagged and >= 95% of distinct pairs kept apart "
                 "(the paper: 76% and 91.6% with PAGELEVEL, FULLTEXT 30.9%).")
    emit("\n".join(lines), args.markdown)


if __name__ == "__main__":
    main()
