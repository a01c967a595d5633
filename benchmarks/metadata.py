"""Title, author and date of a page: ours against trafilatura's, on WCXB's development split.

Run (from the repository root; needs the shared corpora and the [bench] extra):

    python benchmarks/metadata.py [--limit N] [--markdown benchmarks/out/metadata.md]
                                  [--misses tune.jsonl]

WCXB's gold gives every page's title and, where the page states them, its author (739
pages of 1,497) and publication date (782). Both extractors read the same decoded HTML
and URL: ours is :func:`denoise.metadata.extract_metadata`, trafilatura's its
``extract_metadata`` (htmldate underneath for dates). Scoring, the same for both:

- **title**: correct when its words (lower-cased ``\\w+``) have an F1 of at least 0.9
  with the gold title's; the mean word F1 is shown too.
- **author**: over every page: where the gold names none, correct when nothing is
  returned; where it names someone, correct when the words of one contain the words of
  the other (the gold often adds a role: "Paul Frew, Home and Digital Security Expert").
- **date**: over every page: where the gold has none, correct when nothing is returned;
  else correct when the day is the same (``YYYY-MM-DD``).

Held out by domain: the pages are split into two halves by a seeded rank of their
domain (:func:`corpora.hosts.rank`). The rules of :mod:`denoise.metadata` were written
before either half was looked at; any later change may look at the misses of the
``tune`` half only (``--misses`` writes them), and the ``test`` half is the headline.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmarks_common import emit

from corpora.content import WCXB, WCXB_ARCHIVE, iter_content_pages, unpacked
from corpora.hosts import rank
from corpora.locate import corpus_path
from denoise.errors import PageError
from denoise.metadata import extract_metadata
from denoise.page import Page

FIELDS = ("title", "author", "date")
_WORD = re.compile(r"\w+")


def words(text: str | None) -> list[str]:
    return _WORD.findall((text or "").lower())


def word_f1(found: str | None, gold: str | None) -> float:
    a, b = words(found), words(gold)
    if not a or not b:
        return float(not a and not b)
    common = sum(min(a.count(w), b.count(w)) for w in set(a))
    if not common:
        return 0.0
    precision, recall = common / len(a), common / len(b)
    return 2 * precision * recall / (precision + recall)


def correct(field: str, found: str | None, gold: str | None) -> bool:
    if field == "title":
        return word_f1(found, gold) >= 0.9
    if not gold:
        return not (found or "").strip()
    if field == "date":
        return (found or "")[:10] == gold[:10]
    a, b = set(words(found)), set(words(gold))
    return bool(a) and (a <= b or b <= a)


def trafilatura_metadata(html: str, url: str | None) -> dict[str, str]:
    from trafilatura.metadata import extract_metadata as theirs

    try:
        found = theirs(html, default_url=url)
    except Exception:  # a third-party failure is a miss, counted
        return {}
    return {"title": found.title or "", "author": found.author or "", "date": found.date or ""}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int)
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--misses", type=Path, help="write our misses on the tune half here")
    args = parser.parse_args()
    root = unpacked(corpus_path(WCXB_ARCHIVE)) / "wcxb-dev" / "dev" / "ground-truth"
    rows = []
    seconds = {"ours": 0.0, "trafilatura": 0.0}
    for page in iter_content_pages([WCXB], limit=args.limit):
        gold = json.loads((root / f"{page.page_id}.json").read_bytes())["ground_truth"]
        gold = {"title": gold.get("title"), "author": gold.get("author"),
                "date": gold.get("publish_date")}
        start = time.process_time()
        try:
            ours = extract_metadata(Page(id=page.page_id, html=page.html, url=page.url))
            mine = {"title": ours.title, "author": ours.author, "date": ours.date}
        except PageError:
            mine = {}
        seconds["ours"] += time.process_time() - start
        start = time.process_time()
        theirs = trafilatura_metadata(page.html, page.url)
        seconds["trafilatura"] += time.process_time() - start
        half = "tune" if rank(0, "metadata-half", page.domain or page.page_id)[0] < 128 \
            else "test"
        rows.append({"id": page.page_id, "type": page.page_type, "half": half, "gold": gold,
                     "ours": mine, "trafilatura": theirs})
    if args.misses:
        with args.misses.open("w", encoding="utf-8") as out:
            for row in rows:
                if row["half"] == "tune" and not all(
                        correct(f, row["ours"].get(f), row["gold"][f]) for f in FIELDS):
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
    emit(report(rows, seconds), args.markdown)


def report(rows: list[dict], seconds: dict[str, float]) -> str:
    def accuracy(chosen: list[dict], who: str, field: str) -> float:
        return 100 * sum(correct(field, r[who].get(field), r["gold"][field])
                         for r in chosen) / max(len(chosen), 1)

    lines = [f"Metadata on WCXB's development split: {len(rows)} pages; accuracy (%), ours / "
             "trafilatura", "",
             "| pages | n | title | title word F1 | author | date |",
             "|---|---:|---:|---:|---:|---:|"]
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups[f"{row['half']} half"].append(row)
        groups["all"].append(row)
    by_type: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if row["half"] == "test":
            by_type[f"test half: {row['type']}"].append(row)
    for name in ("test half", "tune half", "all", *sorted(by_type)):
        chosen = groups.get(name) or by_type.get(name) or []
        f1 = {who: 100 * sum(word_f1(r[who].get("title"), r["gold"]["title"])
                             for r in chosen) / max(len(chosen), 1)
              for who in ("ours", "trafilatura")}
        cells = [f"{accuracy(chosen, 'ours', f):.1f} / {accuracy(chosen, 'trafilatura', f):.1f}"
                 for f in FIELDS]
        lines.append(f"| {name} | {len(chosen)} | {cells[0]} | {f1['ours']:.1f} / "
                     f"{f1['trafilatura']:.1f} | {cells[1]} | {cells[2]} |")
    with_author = [r for r in rows if r["half"] == "test" and r["gold"]["author"]]
    with_date = [r for r in rows if r["half"] == "test" and r["gold"]["date"]]
    lines += ["", f"Test half, pages whose gold names an author ({len(with_author)}): "
              f"{accuracy(with_author, 'ours', 'author'):.1f} / "
              f"{accuracy(with_author, 'trafilatura', 'author'):.1f}; with a date "
              f"({len(with_date)}): {accuracy(with_date, 'ours', 'date'):.1f} / "
              f"{accuracy(with_date, 'trafilatura', 'date'):.1f}.",
              f"CPU seconds over all pages: ours {seconds['ours']:.1f} (parsing included), "
              f"trafilatura {seconds['trafilatura']:.1f}: "
              f"{seconds['trafilatura'] / max(seconds['ours'], 1e-9):.1f}x."]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
