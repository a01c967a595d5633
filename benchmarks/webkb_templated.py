"""Does removing templates help page classification when each site has a template?
Chakrabarti, Kumar & Punera's 6.3 design on WebKB pages placed into news-site templates.

Run: python benchmarks/webkb_templated.py DATA_DIR --heldout DETECTORS
[--markdown benchmarks/out/webkb_templated.md] [--archive webkb.tar.xz] [--shipped]
[--recalls R ...]

DATA_DIR is made by ``python -m corpora.webkb_templated DATA_DIR``: every page of the
four classes (course, faculty, project, student) of each WebKB university, its text put
in place of the main content of a real page of one news site per university (cornell
in bbc, texas in cnn, washington in foxnews, wisconsin in yahoo by default), the site's
template kept. A CONSTRUCTED experiment: it gives WebKB the mechanism of the paper's
CNET / PCConnection problems (the classes' training pages come from differently
templated sites, so a FULLTEXT classifier learns template words), which 1996
university pages lack (``benchmarks/webkb.py``: SITELEVEL finds no template there).

DETECTORS is a folder made by ``benchmarks/heldout_detectors.py`` (for example
``/tmp/dupbench/detectors``): ``folds.json`` maps site families to models
(``template-K.npz``, ``page-K.npz``, ``main-K.npz``) trained without them. The shipped models were
trained on these news sites, so PAGELEVEL and MAIN use the fold whose models never saw
any of the four host families (checked in folds.json and in the models' own headers);
``--shipped`` adds the shipped models' rows, which did see them, for comparison.

Protocols and classifier: those of ``benchmarks/webkb.py`` (its functions, unchanged):
leave one university out over the four classes, and the cross-site binary problems
(6 class pairs x 12 ordered university pairs, per class pair then overall), with the
toolkit's multinomial Naive Bayes. Here ``misc`` takes no part anywhere (its pages have
no university, so no host site): the leave-one-out training sets are three
universities' pages.

Rows (``mining.content.page_texts``; made once per page, reused by every fold):

- FULLTEXT: ``"none"``, the page's body text, host template and all.
- SITELEVEL: ``"site"``, fitted on each university's folder, which is now one template
  site (its pages of the four classes; each host page is used two or three times, see
  ``corpora.webkb_templated``).
- PAGELEVEL: ``"page"``, the held-out detector of the shipped recipe (``page-K.npz``) at
  ``at_recall(PAGE_RECALL)``, or one row for each of ``--recalls``.
- MAIN: ``"main"``, the held-out main-content extractor (held-out template and content
  models).

A page that fails to parse under any row is left out of all. For reference
(``--no-reference`` skips it): the same pages' plain (untemplated) WebKB FULLTEXT, from
the archive, under the same protocols, and what each row keeps of the WebKB page's
words and of the host's.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
from benchmarks_common import add_recalls, emit, pagelevel, read_folds
from webkb import Setting, binary_problems, gain, leave_one_out, removed_share, report

from corpora.webkb import MAIN_CLASSES, UNIVERSITIES, WebKBPage, read_webkb
from corpora.webkb_templated import PAGES, read_manifest
from denoise.detector import TemplateDetector
from denoise.errors import PageError
from denoise.main_content import MainContentExtractor
from denoise.model import TemplateModel
from denoise.page import Page
from denoise.reader import Skipped, read_pages
from denoise.validation import site_family
from mining.classify import words
from mining.content import page_texts

#: A row of the tables: its name, and what makes its text of pages (skipping with the
#: callback the pages that fail to parse).
Row = tuple[str, Callable[[list[Page], Callable[[PageError], None]], Iterator[tuple[Page, str]]]]


def heldout_models(folder: Path, families: set[str]) -> tuple[Path, Path, Path]:
    """The template, page and main-content models of the fold that excludes all of
    ``families``: named for each of them in ``folds.json`` and saying so in their own
    headers."""
    plan = read_folds(folder)
    missing = families - set(plan)
    if missing:
        raise SystemExit(f"{folder / 'folds.json'} has no fold for "
                         f"{', '.join(sorted(missing))}")
    chosen = {(plan[f]["template"], plan[f]["page"], plan[f]["main"]) for f in families}
    if len(chosen) != 1:
        raise SystemExit(f"the host families {sorted(families)} are in different folds "
                         f"({sorted(chosen)}): no one model pair excludes them all")
    template, page, main = (folder / name for name in chosen.pop())
    for path in (template, page, main):
        header = TemplateModel.load(path).header_
        excluded = set(header.get("training", {}).get("excluded_families", []))
        if not families <= excluded:
            raise SystemExit(f"{path} does not say it was trained without "
                             f"{', '.join(sorted(families - excluded))}")
    return template, page, main


def load_pages(data: Path) -> tuple[list[WebKBPage], dict[str, str]]:
    """The placed pages as the toolkit's reader reads them (site = the university
    folder), labelled from the manifest; also page id -> its WebKB file."""
    rows = {row["path"]: row for row in read_manifest(data)}
    pages: list[WebKBPage] = []
    for item in read_pages([data / PAGES]):
        if isinstance(item, Skipped):
            print(f"  unreadable: {item}")
            continue
        row = rows.get(f"{PAGES}/{item.id}")
        if row is None:
            print(f"  not in the manifest: {item.id}")
            continue
        if item.site != row["university"]:
            raise SystemExit(f"{item.id}: in folder {item.site}, manifest says "
                             f"{row['university']}")
        page = Page(id=row["path"], html=item.html, url=None, site=item.site)
        pages.append(WebKBPage(page=page, label=row["class"], university=row["university"]))
    order = {path: n for n, path in enumerate(rows)}
    pages.sort(key=lambda p: order[p.page.id])
    return pages, {path: row["webkb_file"] for path, row in rows.items()}


def make_settings(pages: Sequence[WebKBPage], rows: Sequence[Row]) -> list[Setting]:
    """Every row's text of every page; pages unparsable under any row are left out of all."""
    failed: set[str] = set()

    def skip(error: PageError) -> None:
        failed.add(error.source)

    chosen = [p.page for p in pages]
    settings = []
    for name, make in rows:
        started = time.perf_counter()
        texts = {page.id: text for page, text in make(chosen, skip)}
        settings.append(Setting(name, texts))
        print(f"  {name}: {time.perf_counter() - started:.1f} s")
    if failed:
        print(f"  left out (unparsable): {', '.join(sorted(failed))}")
    return [Setting(s.name, {k: v for k, v in s.texts.items() if k not in failed})
            for s in settings]


def plain_texts(pages: Sequence[WebKBPage], webkb_file: dict[str, str],
                archive: Path | None) -> dict[str, str]:
    """Placed page id -> the FULLTEXT of its WebKB page as crawled (no host template)."""
    originals = {p.page.id: p.page for p in read_webkb(archive, classes=MAIN_CLASSES,
                                                       universities=UNIVERSITIES)}
    file_text = {page.id: text for page, text in page_texts(
        [originals[webkb_file[p.page.id]] for p in pages], "none", on_error=lambda _: None)}
    return {p.page.id: file_text[webkb_file[p.page.id]] for p in pages
            if webkb_file[p.page.id] in file_text}


def reference_table(plain: dict[str, str], pages: Sequence[WebKBPage]) -> str:
    """The same pages' plain WebKB FULLTEXT under both protocols."""
    same = [p for p in pages if p.page.id in plain]
    loo = leave_one_out(plain, same, misc=False)
    binary = binary_problems(plain, same)
    mean_bin = float(np.mean(list(binary.values())))
    return ("\n### For reference: the same pages without a host template (plain WebKB, "
            "FULLTEXT)\n\n"
            "| protocol | " + " | ".join(UNIVERSITIES) + " | mean |\n|---|"
            + "---:|" * (len(UNIVERSITIES) + 1) + "\n"
            "| leave one university out | " + " | ".join(f"{100 * a:.1f}" for a in loo)
            + f" | {100 * np.mean(loo):.2f} |\n\n"
            "| protocol | " + " | ".join(binary) + " | mean |\n|---|"
            + "---:|" * (len(binary) + 1) + "\n"
            "| cross-site binary | " + " | ".join(f"{100 * v:.1f}" for v in binary.values())
            + f" | {100 * mean_bin:.2f} |\n\n"
            f"({len(same)} pages; the leave-one-out row is without misc, unlike "
            "benchmarks/webkb.py's.)")


def kept_table(settings: Sequence[Setting], plain: dict[str, str],
               pages: Sequence[WebKBPage]) -> str:
    """What each row keeps of the WebKB page's words and of the host's, in word counts
    (the classifier's words). A page's WebKB words are its plain FULLTEXT's words found
    in its templated FULLTEXT; the host's are the rest (a word of both is counted as
    WebKB first): approximate, but it tells a row that drops content from one that
    leaves template in."""
    full = settings[0].texts
    ids = [p.page.id for p in pages if p.page.id in plain]
    content = {i: Counter(words(plain[i])) & Counter(words(full[i])) for i in ids}
    host = {i: Counter(words(full[i])) - content[i] for i in ids}
    out = ["\n### What each row keeps (word counts over all pages)\n",
           "| text | WebKB words kept | host words kept |", "|---|---:|---:|"]
    for setting in settings:
        kept_content = kept_host = 0
        for i in ids:
            row = Counter(words(setting.texts[i]))
            kept_content += (row & content[i]).total()
            kept_host += ((row - content[i]) & host[i]).total()
        total_content = sum(c.total() for c in content.values())
        total_host = sum(h.total() for h in host.values())
        out.append(f"| {setting.name} | {100 * kept_content / max(total_content, 1):.1f}% | "
                   f"{100 * kept_host / max(total_host, 1):.1f}% |")
    share = total_content / max(total_content + total_host, 1)
    out.append(f"\n(The WebKB text is {100 * share:.1f}% of the templated pages' words.)")
    return "\n".join(out)


def extra_rows(settings: Sequence[Setting], full: Setting, pages: Sequence[WebKBPage]) -> str:
    """Rows kept out of the main tables (and out of their "best" line): means only."""
    base_loo = float(np.mean(leave_one_out(full.texts, pages, misc=False)))
    base_bin = float(np.mean(list(binary_problems(full.texts, pages).values())))
    out = ["\n### Not held out: the shipped models, trained on these news sites\n",
           "| text | text removed | leave-one-out mean | vs FULLTEXT | binary mean "
           "| vs FULLTEXT |", "|---|---:|---:|---:|---:|---:|"]
    for setting in settings:
        loo = float(np.mean(leave_one_out(setting.texts, pages, misc=False)))
        binary = float(np.mean(list(binary_problems(setting.texts, pages).values())))
        out.append(f"| {setting.name} | {100 * removed_share(setting, full, pages):.2f}% | "
                   f"{100 * loo:.2f} | {gain(loo, base_loo)} | {100 * binary:.2f} | "
                   f"{gain(binary, base_bin)} |")
    return "\n".join(out)


def _page_row(detector: TemplateDetector, recall: float, recalls: list[float]) -> Row:
    """PAGELEVEL's row at ``recall``."""
    cut = detector.at_recall(recall)
    return pagelevel(recall, recalls), lambda chosen, skip: page_texts(
        chosen, "page", detector=cut, on_error=skip)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="made by python -m corpora.webkb_templated")
    parser.add_argument("--heldout", type=Path, required=True,
                        help="folder of folds.json and the held-out models "
                        "(benchmarks/heldout_detectors.py), e.g. /tmp/dupbench/detectors")
    parser.add_argument("--archive", type=Path, help="webkb.tar.xz for the plain reference "
                        "(default: the shared one)")
    parser.add_argument("--no-reference", dest="reference", action="store_false",
                        help="skip the plain WebKB reference and the words-kept table")
    parser.add_argument("--shipped", action="store_true",
                        help="also the shipped models' PAGELEVEL and MAIN (they saw the hosts)")
    add_recalls(parser)
    parser.add_argument("--markdown", type=Path, help="also write the tables here")
    args = parser.parse_args()
    started = time.perf_counter()
    pages, webkb_file = load_pages(args.data)
    hosts = {row["university"]: row["host_site"] for row in read_manifest(args.data)}
    families = {site_family(site) for site in hosts.values()}
    template, page_model, content = heldout_models(args.heldout, families)
    detector = TemplateDetector.load(page_model)
    extractor = MainContentExtractor.load(template=template, content=content)
    print(f"{len(pages)} placed pages; hosts: "
          + ", ".join(f"{u} in {s}" for u, s in sorted(hosts.items()))
          + f"; held-out models {template.name}, {page_model.name}, {content.name}")
    print("making texts")
    rows = [
        ("FULLTEXT", lambda chosen, skip: page_texts(chosen, "none", on_error=skip)),
        ("SITELEVEL", lambda chosen, skip: page_texts(chosen, "site", on_error=skip)),
        *(_page_row(detector, recall, args.recalls) for recall in args.recalls),
        ("MAIN", lambda chosen, skip: page_texts(chosen, "main", extractor=extractor,
                                                 on_error=skip)),
    ]
    heldout = len(rows)
    if args.shipped:
        rows += [
            ("PAGELEVEL, shipped model (saw the hosts)",
             lambda chosen, skip: page_texts(chosen, "page", on_error=skip)),
            ("MAIN, shipped models (saw the hosts)",
             lambda chosen, skip: page_texts(chosen, "main", on_error=skip)),
        ]
    settings = make_settings(pages, rows)
    pages = [p for p in pages if p.page.id in settings[0].texts]
    counts = {u: sum(p.university == u for p in pages) for u in UNIVERSITIES}
    print(f"classifying {len(pages)} pages ({', '.join(f'{u} {n}' for u, n in counts.items())})")
    tables = report(settings[:heldout], pages, misc=False)
    if settings[heldout:]:
        tables += "\n" + extra_rows(settings[heldout:], settings[0], pages)
    if args.reference:
        plain = plain_texts(pages, webkb_file, args.archive)
        tables += "\n" + kept_table(settings, plain, pages)
        tables += "\n" + reference_table(plain, pages)
    models = (f"\nPAGELEVEL and MAIN: held-out models {page_model.name} / {template.name} "
              f"and {content.name} (trained without {', '.join(sorted(families))}), "
              f"PAGELEVEL at recall {', '.join(f'{r:g}' for r in args.recalls)}.")
    emit(f"{tables}\n{models}\n\n({time.perf_counter() - started:.0f} s in all)",
         args.markdown)


if __name__ == "__main__":
    main()
