"""``mining index`` and ``mining search``: BM25 search over de-noised pages.

The library is :class:`mining.search.SearchIndex`; this module holds the options, the
progress on a terminal, the JSON lines, the messages and the exit codes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from commands.common import (
    InputsArg,
    MaxBytesOption,
    MethodName,
    OutOption,
    SiteOption,
    cannot_write,
    fail,
    fraction,
    page_progress,
    read_inputs,
    say,
    skipper,
)
from commands.mining import app
from denoise.cleaning import PAGE_RECALL, Mode
from denoise.decode import DEFAULT_MAX_BYTES
from denoise.errors import DenoiseError, PageError
from denoise.output import atomic_text
from denoise.reader import Skipped
from engine.batch import BatchSummary
from mining.search import IndexSettings, SearchIndex

IndexOption = Annotated[Path, typer.Option(
    "--index", "-i", help="The index folder.", show_default=False)]


@app.command("index")
def index_command(
    inputs: InputsArg,
    index: IndexOption,
    denoise: Annotated[Mode | None, typer.Option(
        help="What is indexed of each page: none = all its text (FULLTEXT); site = what a "
        "site-level method keeps (--method), its site counts kept in the index so that "
        "they grow as pages arrive; page = what the page-level detector keeps at --recall; "
        "main = the main content alone, which ranked best on sites no model saw "
        "(benchmarks/retrieval.py: nDCG@10 1.14x full text on topical queries, no loss on "
        "titles, a third smaller index). [default: main, or the index's]",
        show_default=False)] = None,
    method: Annotated[MethodName | None, typer.Option(
        help="--denoise site: the site-level method (fingerprint, the papers' table-chunk "
        "of Ma et al., shingle, Chen et al.'s style-offset). [default: fingerprint]",
        show_default=False)] = None,
    recall: Annotated[float | None, typer.Option(
        callback=fraction, help="--denoise page: the detector's template recall. "
        f"[default: {PAGE_RECALL:g}]", show_default=False)] = None,
    site: SiteOption = None,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Index pages for BM25 search, templates removed first.

    Makes the index folder on first use; later runs add to it, with the settings it was
    made with (an option asking for others is refused). A page whose id is already
    there replaces it: a page's id is its path inside the folder given, after the
    folder's name when several inputs are given (a single file's: its path as given),
    so name a folder the same way, alone or not, each time it is indexed again. Pages
    that cannot be read or parsed are named, counted and skipped; an interrupted run
    leaves the index as it was at its last commit.

    Example: mining index pages/ --index pages.index && mining search -i pages.index "polar bears"
    """
    err = Console(stderr=True)
    asked = {"denoise": denoise, "method": method, "recall": recall}
    try:
        settings = None if all(v is None for v in asked.values()) else IndexSettings(
            denoise=denoise or Mode.main, method=method and method.value, recall=recall)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None
    try:
        search_index = SearchIndex.open_or_create(index, settings)
    except DenoiseError as error:
        raise fail(err, error) from None
    summary = BatchSummary()
    skipped: list[Skipped | PageError] = []
    before = len(search_index)
    try:
        with page_progress(err, f"indexing ({search_index.settings.name})") as progress:
            task = progress.add_task("indexing", total=None)
            report = search_index.add(
                read_inputs(inputs, max_bytes, skipped, err, site=site),
                on_error=skipper(skipped, err), on_page=lambda _: progress.advance(task))
    except KeyboardInterrupt:
        say(err, f"interrupted: {index} holds the pages of its last commit")
        raise typer.Exit(130) from None
    except DenoiseError as error:
        raise fail(err, error) from None
    except OSError as error:
        raise fail(err, cannot_write(error.filename or index, error), 1) from None
    summary.written = report.added
    summary.count(skipped)
    replaced = f", {report.replaced} replacing pages with their id" if report.replaced else ""
    empty = f", {report.empty} with no text kept" if report.empty else ""
    say(err, f"{summary.line('indexed')}{replaced}{empty}; {index}: {len(search_index)} pages "
         f"({len(search_index) - before:+d})")
    if not report.added:
        raise typer.Exit(1)


@app.command("search")
def search_command(
    index: IndexOption,
    queries: Annotated[list[str] | None, typer.Argument(
        help="Queries (words; any of them may match). Without any, --queries or standard "
        "input gives one a line.", show_default=False, metavar="QUERY...")] = None,
    queries_file: Annotated[Path | None, typer.Option(
        "--queries", "-q", help="A file of queries, one a line ('-': standard input).",
        show_default=False)] = None,
    top: Annotated[int, typer.Option("--top", "-k", min=1, help="Pages per query.")] = 10,
    snippets: Annotated[bool, typer.Option(
        help="A snippet of each page's indexed text around the query's words.")] = True,
    out: OutOption = Path("-"),
) -> None:
    """Rank the indexed pages for each query by BM25.

    One JSON line per page found: {"query", "rank", "page", "url", "score", "snippet"},
    best first, queries in the order given. A query none of whose words is indexed finds
    nothing (no line); the closing summary on stderr counts them.

    Example: mining search -i pages.index "polar bears" "climate change" -k 5
    """
    err = Console(stderr=True)
    if queries and queries_file is not None:
        raise typer.BadParameter("give queries as arguments or --queries, not both")
    try:
        search_index = SearchIndex.open(index)
    except DenoiseError as error:
        raise fail(err, error) from None
    asked = queries if queries else _lines(queries_file or Path("-"), err)
    answered = unanswered = 0
    try:
        with atomic_text(out) as stream:
            for query in asked:
                hits = search_index.search(query, top, snippets=snippets)
                answered += bool(hits)
                unanswered += not hits
                for hit in hits:
                    stream.write(json.dumps(hit.as_dict(), ensure_ascii=False) + "\n")
    except BrokenPipeError:  # a reader like `head` left: not an error
        sys.stderr.close()
        raise typer.Exit(0) from None
    except OSError as error:
        raise fail(err, cannot_write(out, error), 1) from None
    asked_count = answered + unanswered
    say(err, f"{asked_count} quer{'y' if asked_count == 1 else 'ies'} over {len(search_index)} "
         f"pages, {unanswered} found nothing")


def _lines(path: Path, err: Console) -> Iterator[str]:
    """The non-empty lines of a query file (or standard input)."""
    try:
        stream = sys.stdin if str(path) == "-" else path.open(encoding="utf-8")
    except OSError as error:
        raise fail(err, f"{path}: cannot read ({error.strerror or error})") from None
    with stream:
        try:
            for line in stream:
                if line.strip():
                    yield line.strip()
        except UnicodeDecodeError:
            raise fail(err, f"{path}: not UTF-8 text") from None
