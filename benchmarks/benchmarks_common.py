"""What the benchmarks share: the dev-site pages, real search queries."""

from __future__ import annotations

import argparse
import json
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path

from corpora.locate import corpus_path
from corpora.sites import iter_archives
from denoise.cleaning import PAGE_RECALL
from denoise.page import Page
from denoise.reader import Skipped, read_pages
from denoise.validation import site_family


def load_pages() -> list[Page]:
    """Every page of the dev site archives, one folder a site."""
    pages: list[Page] = []
    for archive in iter_archives():
        for item in read_pages([archive]):
            if isinstance(item, Skipped):
                print(f"skipped {item}")
            else:
                pages.append(item)
    return pages


def recall_arg(text: str) -> float:
    """A template recall to cut at, from the command line: a number in (0, 1]."""
    value = float(text)
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text}: a recall is in (0, 1]")
    return value


class _Distinct(argparse.Action):
    """Keep each value once, in the order given (a row a value, never two rows named alike)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, list(dict.fromkeys(values)))


def add_recalls(parser: argparse.ArgumentParser,
                help: str = "PAGELEVEL's template recalls, a row each") -> None:
    """``--recalls R ...``: mode ``page``'s recalls to measure (default :data:`PAGE_RECALL`)."""
    parser.add_argument("--recalls", nargs="+", type=recall_arg, action=_Distinct,
                        default=[PAGE_RECALL],
                        help=f"{help} (default {PAGE_RECALL:g}, mode page's)")


def pagelevel(recall: float, recalls: list[float]) -> str:
    """PAGELEVEL's row name: with its recall unless the only one is mode ``page``'s."""
    return "PAGELEVEL" if recalls == [PAGE_RECALL] else f"PAGELEVEL at recall {recall:g}"


def read_folds(folder: Path) -> dict[str, dict[str, str]]:
    """``folds.json`` of ``benchmarks/heldout_detectors.py``: family -> its fold's model
    files (``template``, ``page``, ``main``); a folder without one, or made before the
    ``page`` models, stops the run before any work."""
    path = folder / "folds.json"
    if not path.exists():
        raise SystemExit(f"{path} does not exist (yet): make it with "
                         "benchmarks/heldout_detectors.py, or wait for it")
    plan = json.loads(path.read_text(encoding="utf-8"))
    if any("page" not in entry for entry in plan.values()):
        raise SystemExit(f"{path} names no page model (made before page-K.npz): rebuild it "
                         "with benchmarks/heldout_detectors.py")
    return plan


def heldout_folds(folder: Path, pages: list[Page]
                  ) -> Iterator[tuple[dict[str, Path], list[Page]]]:
    """The fold models ``benchmarks/heldout_detectors.py`` made in ``folder`` (``template``,
    ``page`` and ``main``: paths), each with the pages of the site families it left out."""
    plan = read_folds(folder)
    for fold in sorted({entry["template"] for entry in plan.values()}):
        entry = next(e for e in plan.values() if e["template"] == fold)
        members = [p for p in pages if plan[site_family(p.site)]["template"] == fold]
        yield {role: folder / name for role, name in entry.items()}, members


def emit(text: str, markdown: Path | None) -> None:
    """Print a benchmark's tables, and write them to ``markdown`` when asked."""
    print(text)
    if markdown:
        markdown.parent.mkdir(parents=True, exist_ok=True)
        markdown.write_text(text + "\n", encoding="utf-8")


def log_queries(count: int, normal: Callable[[str], str] = str.strip) -> list[str]:
    """The first ``count`` distinct queries of the TREC 2005 Terabyte efficiency log
    (real web search queries, ``id:query`` lines, in the shared ``querylogs``), each
    through ``normal``; empty ones left out."""
    with tarfile.open(corpus_path("querylogs.tar.xz")) as archive:
        member = archive.extractfile("querylogs/trec-terabyte05-efficiency.txt")
        assert member is not None
        lines = member.read().decode("utf-8", "replace").splitlines()
    seen: dict[str, None] = {}
    for line in lines:
        query = normal(line.partition(":")[2])
        if query:
            seen.setdefault(query)
        if len(seen) == count:
            break
    return list(seen)
