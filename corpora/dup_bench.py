"""Near-duplicate benchmark, LYRICS-style: one main content on pages of different sites.

Run: ``python -m corpora.dup_bench OUT_DIR [--seed 0] [--contents 100] [--distinct 300]``.
It writes ``OUT_DIR/pages/<site>/<name>.html`` (one folder a site, so site-level
template detection has each site's pages to fit on), ``OUT_DIR/pairs.tsv`` (no header;
``a<TAB>b<TAB>label``, label ``duplicate`` or ``distinct``, ``a`` and ``b`` page ids as
:func:`denoise.reader.read_pages` gives them for ``OUT_DIR/pages``: the path under it)
and ``OUT_DIR/manifest.jsonl`` (per page: its site folder, ``real`` or ``placed``, the
corpus page it is or the host it was made from, and the corpus page whose content it
shows). Nothing of it is ever written into the repository: the pages hold third-party
text.

Chakrabarti, Kumar & Punera (2007, 6.2) took the lyrics of one song from three lyrics
sites as duplicates and the lyrics of two songs on one site as non-duplicates, then
shingled each page's text with and without template removal (their Table 2). No such
crawl exists here, so the set is built from real parts: a content (the gold main text
of a real page) is put into real pages of other sites in place of their main content
(:mod:`corpora.placement`), their templates kept; non-duplicates are real pages of one
site with different articles. How contents, hosts and pairs are chosen is
:mod:`corpora.dup_assembly`'s docstring.

Choices here, and why:

- **Sites**: the ``sites-dev-news`` and ``sites-dev-docs`` folders with gold main text
  (:func:`corpora.hosts.site_hosts`): heavy real templates, many pages a site.
- **Contents**: the news pages' own gold (a person's extraction; the docs gold is an
  XPath's text with its paragraphs lost, so docs pages only host) and the
  ``content-dev`` pages with gold and a known site (:func:`corpora.hosts.content_hosts`:
  chaos, Dragnet, readability, CleanEval; pages of ~1,000 other sites).
- **Files**: every file is written atomically as UTF-8; ``.html`` files under ``pages/``
  that this build does not have are removed (and folders left empty).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from corpora.dup_assembly import COPIES, DupBench, assemble
from corpora.hosts import HostPage, content_hosts, site_hosts
from corpora.locate import builder_logging, corpus_path
from corpora.sites import news_gold_texts
from denoise.output import atomic_text
from denoise.reader import Skipped

log = logging.getLogger(__name__)

NEWS_ARCHIVE = "sites-dev-news.tar.xz"
SITE_ARCHIVES = (NEWS_ARCHIVE, "sites-dev-docs.tar.xz")
OWN_SOURCES = ("sites-dev-news",)  # site pages whose gold is a person's extraction
DEFAULT_CONTENTS = 100
DEFAULT_DISTINCT = 300


def site_pages() -> Iterator[HostPage]:
    """The dev sites' pages with gold main text, the news gold decoded right."""
    gold = news_gold_texts()
    for name in SITE_ARCHIVES:
        for page in site_hosts(corpus_path(name)):
            better = gold.get(page.id) if name == NEWS_ARCHIVE else None
            yield dataclasses.replace(page, gold_text=better) if better else page


def write_benchmark(bench: DupBench, out_dir: str | Path) -> None:
    """``pages/<site>/<name>.html``, ``pairs.tsv`` and ``manifest.jsonl`` under
    ``out_dir``, every file atomically; ``.html`` files under ``pages/`` that this
    build does not have are removed (and folders left empty)."""
    out = Path(out_dir)
    root = out / "pages"
    for page in bench.pages:
        (root / page.id).parent.mkdir(parents=True, exist_ok=True)  # atomic_text makes none
        with atomic_text(root / page.id) as stream:
            stream.write(page.html)
    kept = {page.id for page in bench.pages}
    for path in sorted(root.rglob("*.html")) if root.is_dir() else ():
        if path.relative_to(root).as_posix() not in kept:
            path.unlink()
    for folder in sorted(root.iterdir()) if root.is_dir() else ():
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    with atomic_text(out / "pairs.tsv") as stream:
        stream.writelines(f"{pair.a}\t{pair.b}\t{pair.label}\n" for pair in bench.pairs)
    with atomic_text(out / "manifest.jsonl") as stream:
        stream.writelines(json.dumps(page.record()) + "\n" for page in bench.pages)


def build(out_dir: str | Path, *, seed: int = 0, contents: int = DEFAULT_CONTENTS,
          distinct: int = DEFAULT_DISTINCT) -> tuple[DupBench, float]:
    """Build the default benchmark from the shared corpora into ``out_dir``; return it
    and the seconds it took."""
    started = time.perf_counter()
    unknown: list[Skipped] = []
    bench = assemble(site_pages(), content_hosts(skipped=unknown), contents=contents,
                     distinct=distinct, seed=seed, own_sources=OWN_SOURCES)
    write_benchmark(bench, out_dir)
    return bench, time.perf_counter() - started


def summary(bench: DupBench) -> str:
    """What was built and what was left out, for people."""
    kinds = Counter((pair.label, pair.kind) for pair in bench.pairs)
    labels = Counter(pair.label for pair in bench.pairs)

    def pairs(label: str) -> str:
        parts = ", ".join(f"{kind}: {n}" for (name, kind), n in sorted(kinds.items())
                          if name == label)
        return f"{labels[label]} {label} pairs ({parts or 'none'})"

    sites = Counter(page.id.split("/", 1)[0] for page in bench.pages)
    placed = sum(page.kind == "placed" for page in bench.pages)
    used = ", ".join(f"{source}: {n}" for source, n in sorted(bench.contents.items()))
    left = "; ".join(f"{reason}: {n}" for reason, n in sorted(bench.left_out.items()))
    return (f"{len(bench.pages)} pages ({placed} placed, {len(bench.pages) - placed} real) "
            f"in {len(sites)} site folders of {min(sites.values(), default=0)} to "
            f"{max(sites.values(), default=0)} pages\n{pairs('duplicate')}\n"
            f"{pairs('distinct')}\ncontents: {sum(bench.contents.values())} ({used})\n"
            f"left out: {left or 'nothing'}")


# --- command line --------------------------------------------------------------------

app = typer.Typer(add_completion=False, help=__doc__.split("\n")[0])


@app.command()
def main(
    out_dir: Annotated[Path, typer.Argument(help="Where to write pages/, pairs.tsv and "
                                             "manifest.jsonl.", show_default=False)],
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    contents: Annotated[int, typer.Option(
        min=1, help=f"Contents, each on {COPIES} sites ({COPIES * (COPIES - 1) // 2} "
        "duplicate pairs each).")] = DEFAULT_CONTENTS,
    distinct: Annotated[int, typer.Option(min=0, help="Distinct pairs.")] = DEFAULT_DISTINCT,
    verbose: Annotated[bool, typer.Option(help="Log every content and host left out.")] = False,
) -> None:
    """Build the near-duplicate benchmark: one content on pages of different sites."""
    builder_logging(verbose)
    try:
        bench, seconds = build(out_dir, seed=seed, contents=contents, distinct=distinct)
    except (ValueError, OSError) as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"{out_dir}: {summary(bench)}\n{seconds:.0f} s")


if __name__ == "__main__":
    app()
