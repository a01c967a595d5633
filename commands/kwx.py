"""The ``kwx`` command line: advertising keywords, the ranker's training and evaluation,
and the phrase tables they use."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from commands.common import (
    DEFAULT_PAGE_TIMEOUT,
    AllowPrivateOption,
    Engine,
    EngineOption,
    InputsArg,
    JobsOption,
    MaxBytesOption,
    OutOption,
    PageInputsArg,
    PageTimeoutOption,
    ResumeOption,
    SparkMasterOption,
    UrlsOption,
    VersionOption,
    cannot_write,
    fail,
    fraction,
    one_page,
    page_fetcher,
    progress_bar,
    read_inputs,
    run,
    run_pages,
    say,
    skipper,
    version_command,
    web_inputs,
    writable,
)
from denoise.cleaning import Cleaner, Mode
from denoise.decode import DEFAULT_MAX_BYTES
from denoise.detector import TemplateDetector, repetition_model_path
from denoise.errors import DenoiseError, PageError
from denoise.main_content import MainContentExtractor
from denoise.page import Page
from denoise.reader import Skipped
from denoise.shipped import shipped
from engine.batch import default_jobs
from engine.serve import WARM_LANGUAGES, ServeSettings, run_server
from kwx.build import document_frequency, query_frequency, read_queries
from kwx.evaluation import (
    CONFIGURATIONS,
    RECALLS,
    TOP_N,
    ConfigurationResult,
    PreparedPage,
    choose_recall,
    compare,
    document_frequencies,
    fit_ranker,
    page_scores,
    prepare,
)
from kwx.extractor import (
    DEFAULT_DF,
    DEFAULT_PHRASES,
    DEFAULT_QUERYLOG,
    DEFAULT_RANKER,
    DEFAULT_RECALL,
    Keyword,
    KeywordExtractor,
    PhraseStatistics,
    ranker_recall,
)
from kwx.labelled import LabelledPage, read_labelled
from kwx.ranker import KeywordRanker
from kwx.tables import TableFile, save_tables
from kwx.text import language_tokenizer, spacy_has

app = typer.Typer(
    help="Contextual-advertising keywords from web pages, with their template blocks "
    "removed first.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
)
df_app = typer.Typer(help="Document-frequency tables.", no_args_is_help=True,
                     rich_markup_mode="markdown")
querylog_app = typer.Typer(help="Query-frequency tables from search logs.",
                           no_args_is_help=True, rich_markup_mode="markdown")
app.add_typer(df_app, name="df")
app.add_typer(querylog_app, name="querylog")

TopOption = Annotated[int, typer.Option("--top", "-n", min=1, help="Keywords per page.")]
PhrasesOption = Annotated[float, typer.Option(
    min=0.0, max=1.0, help="Share of the list's slots for the best phrases of two or more "
    "words (0: the ranking as it is; the default matches the share of phrases among "
    "annotators' keywords).")]
DenoiseOption = Annotated[bool, typer.Option(
    "--denoise/--no-denoise", help="Remove the page's template blocks first (the shipped "
    "template model of repetition alone, or --detector).")]
_RECALL_HELP = ("The detector's operating point: the share of an unseen site's template "
                "blocks it should find (default: {}).")
RecallOption = Annotated[float | None, typer.Option(
    callback=fraction, help=_RECALL_HELP.format(
        "the recall the ranker was trained with; Kołcz & Yih used 0.5"),
    show_default=False)]
ChosenRecallOption = Annotated[float | None, typer.Option(
    callback=fraction, help=_RECALL_HELP.format(
        "chosen by 5-fold cross-validation on the training pages"), show_default=False)]
FixedRecallOption = Annotated[float | None, typer.Option(
    callback=fraction, help=_RECALL_HELP.format(f"{DEFAULT_RECALL}, Kołcz & Yih's"),
    show_default=False)]
DetectorOption = Annotated[Path | None, typer.Option(
    help="Template model from 'denoise train' (default: the shipped template-repetition.npz, "
    "trained on site-level labels alone, which de-noises for keywords better than "
    "denoise's default.npz).",
    show_default=False)]
RankerOption = Annotated[Path | None, typer.Option(
    "--model", "-m", help="Keyword ranker from 'kwx train' (default: the shipped one).",
    show_default=False)]
DfOption = Annotated[Path | None, typer.Option(
    "--df", help="Document-frequency table from 'kwx df build' (default: the shipped one).",
    show_default=False)]
QuerylogOption = Annotated[Path | None, typer.Option(
    "--querylog", help="Query table from 'kwx querylog build' (default: the shipped one).",
    show_default=False)]
LanguageOption = Annotated[str | None, typer.Option(
    "--language", metavar="CODE", help="The pages' language (ISO 639: de, fr, es, zh, ...): "
    "their words and stop words. Default: each page's, told by its text.",
    show_default=False)]
JsonOption = Annotated[bool, typer.Option("--json", help="JSON lines on standard output.")]


@app.callback()
def _main(version: VersionOption = False) -> None:
    """Contextual-advertising keywords from web pages, template blocks removed first."""


def main() -> None:
    """The ``kwx`` program."""
    run(app)


def _named(error: Exception, path: Path) -> str:
    """An error about an output file, as one line naming it."""
    if isinstance(error, OSError):
        return cannot_write(path, error)
    return str(error)


@app.command("extract")
def extract_command(
    inputs: PageInputsArg = None,
    top: TopOption = 10,
    phrases: PhrasesOption = DEFAULT_PHRASES,
    language: LanguageOption = None,
    denoise: DenoiseOption = True,
    recall: RecallOption = None,
    df: DfOption = None,
    querylog: QuerylogOption = None,
    model: RankerOption = None,
    detector: DetectorOption = None,
    as_json: JsonOption = False,
    out: OutOption = Path("-"),
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
    jobs: JobsOption = None,
    resume: ResumeOption = False,
    engine: EngineOption = Engine.EMBEDDED,
    spark_master: SparkMasterOption = None,
    page_timeout: PageTimeoutOption = DEFAULT_PAGE_TIMEOUT,
    urls: UrlsOption = None,
    allow_private: AllowPrivateOption = False,
) -> None:
    """Rank a page's advertising keywords.

    The page's template blocks (navigation, footers, sidebars) are removed first,
    candidate phrases of up to 5 words are scored by a logistic-regression ranker
    over term, document and query-log frequencies, where and how each phrase is
    written and whether it is a whole phrase, its shortlist re-ordered by a random
    forest, and the best come out first as a list: no fragment below the phrase that
    covers it ("Warner" under "Time Warner Cable"), one inflection of a phrase, no
    bare number or date, and --phrases of the slots for phrases of two or more words.
    A page in another language is read with its language's words and stop words
    (German, French, Spanish and some 60 more; Chinese and Japanese words need
    `pip install "webdenoise[cjk]"`).

    One page prints `phrase<TAB>score` lines; several pages (or `--json`) print one
    JSON line per page: `{"page", "url", "keywords": [{"phrase", "score", "count"}]}`,
    in input order, as they are done (`--jobs` worker processes, or `--engine spark`;
    `--resume` continues an interrupted `-o` run).

    Example: kwx extract page.html --top 5;  kwx extract https://example.com/story.html
    """
    inputs = web_inputs(Console(stderr=True), inputs, urls)
    if not denoise and (detector is not None or recall is not None):
        raise typer.BadParameter("--detector and --recall need --denoise")
    if language is not None and language_tokenizer(language) is None:
        raise typer.BadParameter(f"no tokenizer for {language!r}: spaCy has no such "
                                 "language, or the package its tokenizer needs is missing "
                                 "(Chinese and Japanese: the cjk extra)",
                                 param_hint="--language")
    single = not as_json and one_page(inputs)
    job = ExtractJob(model=model, df=df, querylog=querylog, denoise=denoise, detector=detector,
                     recall=recall, top=top, lines=single, phrases=phrases, language=language)
    run_pages(Console(stderr=True), inputs, job, out=out, jobs=jobs, resume=resume,
              settings={"command": "kwx extract", **job.settings()}, max_bytes=max_bytes,
              what="extracting keywords", quiet_single=single, engine=engine,
              spark_master=spark_master, page_timeout=page_timeout,
              fetcher=page_fetcher(max_bytes, allow_private))


@dataclass
class ExtractJob:
    """``kwx extract``'s work on one page (sent to worker processes: models load there)."""

    model: Path | None
    df: Path | None
    querylog: Path | None
    denoise: bool
    detector: Path | None
    recall: float | None
    top: int
    lines: bool  # phrase<TAB>score lines (one page) instead of a JSON line
    phrases: float = DEFAULT_PHRASES
    language: str | None = None
    extractor: KeywordExtractor | None = field(default=None, repr=False)

    def settings(self) -> dict[str, object]:
        """What shapes the output (a resumed run must have the same)."""
        return {"model": str(self.model), "df": str(self.df), "querylog": str(self.querylog),
                "denoise": self.denoise, "detector": str(self.detector), "recall": self.recall,
                "top": self.top, "lines": self.lines, "phrases": self.phrases,
                "language": self.language}

    def setup(self) -> None:
        if self.extractor is None:
            self.extractor = KeywordExtractor.load(
                ranker=self.model, df=self.df, querylog=self.querylog, denoise=self.denoise,
                detector=self.detector, recall=self.recall, phrases=self.phrases,
                language=self.language)

    def __getstate__(self) -> dict[str, object]:
        return {**self.__dict__, "extractor": None}  # workers load their own models

    def __call__(self, page: Page) -> list[str]:
        assert self.extractor is not None  # noqa: S101 - setup() ran
        return self._lines(page, self.extractor.extract(page, self.top))

    def many(self, pages: list[Page]) -> list[list[str] | Exception]:
        """The lines of each page, worked step by step over the batch (the same
        keywords: :meth:`KeywordExtractor.extract_many`)."""
        assert self.extractor is not None  # noqa: S101 - setup() ran
        return [found if isinstance(found, Exception) else self._lines(page, found)
                for page, found in zip(pages, self.extractor.extract_many(pages, self.top),
                                       strict=True)]

    def _lines(self, page: Page, keywords: list[Keyword]) -> list[str]:
        if self.lines:
            return [f"{k.phrase}\t{k.score:.3f}\n" for k in keywords]
        return [json.dumps({"page": page.id, "url": page.url,
                            "keywords": [{"phrase": k.phrase, "score": round(k.score, 4),
                                          "count": k.count} for k in keywords]},
                           ensure_ascii=False) + "\n"]


def _read_labelled(folder: Path, err: Console) -> list[LabelledPage]:
    """The labelled pages of ``folder``; unreadable ones named on stderr and skipped."""
    try:
        pages = list(read_labelled(folder, on_skip=lambda item: say(err, f"skipped {item}")))
    except FileNotFoundError as error:
        raise typer.BadParameter(str(error)) from None
    if not pages:
        say(err, f"error: {folder}: no labelled pages (NAME.html beside NAME.key)")
        raise typer.Exit(1)
    return pages


def _prepare(pages: list[LabelledPage], err: Console, detector: TemplateDetector | None,
             what: str, cleaner: Cleaner | None = None) -> list[PreparedPage]:
    """Candidates of labelled pages, with a progress bar; pages that do not parse skipped."""
    with progress_bar(err) as progress:
        task = progress.add_task(f"reading {what}", total=len(pages))
        prepared = prepare(pages, detector=detector, cleaner=cleaner,
                           on_page=lambda _: progress.advance(task),
                           on_error=lambda error: say(err, f"skipped {error}"))
    if not prepared:
        say(err, f"error: none of the {what} could be parsed")
        raise typer.Exit(1)
    return prepared


def _base_detector(err: Console, denoise: bool, detector: Path | None,
                   recall: float | None) -> TemplateDetector | None:
    """The template detector (None without --denoise), not yet cut at a recall."""
    if not denoise:
        if detector is not None or recall is not None:
            raise typer.BadParameter("--detector and --recall need --denoise")
        return None
    return _load_detector(err, detector)


def _load_detector(err: Console, detector: Path | None) -> TemplateDetector:
    try:
        return TemplateDetector.load(
            detector if detector is not None else repetition_model_path())
    except DenoiseError as error:
        raise fail(err, error) from None


def _chosen_recall(err: Console, pages: list[LabelledPage], detector: TemplateDetector,
                   statistics: Callable[[Sequence[PreparedPage]], PhraseStatistics],
                   denoise_train: bool) -> float:
    """choose_recall with a progress bar and its figures on stderr."""
    tried: list[str] = []
    with progress_bar(err) as progress:
        task = progress.add_task("choosing the detector's recall (5-fold)",
                                 total=len(RECALLS))

        def done(recall: float, score: float) -> None:
            tried.append(f"{recall}: {100 * score:.2f}")
            progress.advance(task)

        try:
            # a page that does not parse is named once, where the pages are prepared
            recall = choose_recall(pages, detector, statistics=statistics,
                                   denoise_train=denoise_train, on_recall=done,
                                   on_error=lambda _: None)
        except ValueError as error:
            raise fail(err, f"cannot choose the detector's recall by cross-validation "
                        f"({error}): give --recall", 1) from None
    say(err, f"detector recall {recall} (mean top-N score in 5-fold cross-validation on the "
         f"training pages: {', '.join(tried)})")
    return recall


def _statistics(err: Console, df: Path | None, querylog: Path | None) -> PhraseStatistics:
    try:
        return PhraseStatistics.load(df or shipped(DEFAULT_DF),
                                     querylog or shipped(DEFAULT_QUERYLOG))
    except DenoiseError as error:
        raise fail(err, error) from None


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0: every "
                                      "interface).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    workers: Annotated[int | None, typer.Option(
        min=1, help="Worker processes, each with its own models, each request going to a "
        "free one (default: the machine's cores).", show_default=False)] = None,
    model: RankerOption = None,
    detector: DetectorOption = None,
    max_bytes: Annotated[int, typer.Option(
        min=1, help="The largest request body, and the largest page fetched for a "
        "\"url\" request.")] = DEFAULT_MAX_BYTES,
    timeout: Annotated[float, typer.Option(
        min=0.001, help="Seconds a page may take before the request answers 504.")] = 30.0,
    allow_private: AllowPrivateOption = False,
    languages: Annotated[str, typer.Option(
        metavar="CODES", help="Languages whose tokenizers every worker loads before it "
        "answers, comma-separated ('' for none): a page in another language loads its "
        "own on its first request (Chinese and Japanese need the cjk extra, or are read "
        "as English).")] = ",".join(WARM_LANGUAGES),
) -> None:
    """Serve keywords over HTTP, models loaded once per worker.

    POST /extract with a JSON object, {"html": "..."} (with the page's "url" if known) or
    {"url": "..."} alone, fetched (optional: "id",
    "top", "include": ["text", "metadata"]), answers {"page", "url", "keywords": [{"phrase",
    "score", "count"}]} (and "text", "metadata" when included); GET /health answers
    {"status": "ok"} once the models are loaded. Errors are {"error": {"code",
    "message"}} with their status (400, 413, 415, 422, 504, 500).

    Example: `kwx serve --port 8000 &` then `curl -s localhost:8000/extract -H
    'Content-Type: application/json' -d '{"html": "<p>Polar bears on sea ice</p>"}'`
    """
    err = Console(stderr=True)
    codes = tuple(code.strip() for code in languages.split(",") if code.strip())
    unknown = [code for code in codes if not spacy_has(code)]
    if unknown:
        raise typer.BadParameter(f"spaCy has no language {', '.join(unknown)}",
                                 param_hint="--languages")
    settings = ServeSettings(ranker=str(model) if model else None,
                             detector=str(detector) if detector else None,
                             max_bytes=max_bytes, timeout=timeout, allow_private=allow_private,
                             workers=workers or default_jobs(), languages=codes)
    try:  # a model that cannot load is one clear line here, not a worker's traceback
        KeywordExtractor.load(ranker=model, detector=detector)
    except DenoiseError as error:
        raise fail(err, error) from None
    say(err, f"serving on http://{host}:{port} (POST /extract, GET /health); Ctrl-C stops")
    run_server(settings, host=host, port=port)


@app.command("train")
def train_command(
    folder: Annotated[Path, typer.Argument(help="Labelled pages: NAME.html beside NAME.key "
                                           "(one keyword a line).", show_default=False)],
    out: Annotated[Path, typer.Option("--out", "-o", callback=writable,
                                      help="Where to write the ranker (.npz).")],
    denoise: Annotated[bool, typer.Option(
        "--denoise/--no-denoise", help="Remove template blocks from the training pages "
        "first (Kołcz & Yih's DN_both; they found it does not help).")] = False,
    recall: ChosenRecallOption = None,
    detector: DetectorOption = None,
    df: DfOption = None,
    querylog: QuerylogOption = None,
    c: Annotated[float, typer.Option("--C", min=1e-6, help="Inverse regularization "
                                     "strength of the logistic regression.")] = 1.0,
) -> None:
    """Train the keyword ranker on labelled pages.

    Every candidate phrase of every page is an example, positive when it is one of
    the page's keywords (compared in lower case). The document-frequency and query
    tables given here must be the ones used at extraction time.

    With `--denoise` and no `--recall`, the detector's recall is chosen by 5-fold
    cross-validation on the training pages and stored in the ranker: `kwx extract`
    de-noises at that recall.

    Example: kwx train bench/train --out ranker.npz --denoise
    """
    err = Console(stderr=True)
    statistics = _statistics(err, df, querylog)
    template = _base_detector(err, denoise, detector, recall)
    labelled = _read_labelled(folder, err)
    if template is not None:
        if recall is None:
            recall = _chosen_recall(err, labelled, template, lambda _: statistics, True)
        template = template.at_recall(recall)
    pages = _prepare(labelled, err, template, "training pages")
    try:
        ranker = fit_ranker(pages, statistics, KeywordRanker(C=c))
    except ValueError as error:
        raise fail(err, error, 1) from None
    try:
        ranker.save(out, extra={"recall": recall, "training": {
            "pages": len(pages), "denoise": denoise, "df": str(df or DEFAULT_DF),
            "querylog": str(querylog or DEFAULT_QUERYLOG)}})
    except OSError as error:
        raise fail(err, _named(error, out), 1) from None
    weights = ", ".join(f"{name} {value:+.2f}" for name, value in sorted(
        ranker.weights().items(), key=lambda item: -abs(item[1]))[:8])
    say(err, f"ranker written to {out}: {len(pages)} pages, {ranker.n_examples_} candidates; "
         f"largest weights: {weights}")


def _score_table(title: str, rows: list[tuple[str, np.ndarray, np.ndarray | None]],
                 ns: tuple[int, ...]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("")
    for n in ns:
        table.add_column(f"Top{n}", justify="right")
    for name, means, p_values in rows:
        cells = [f"{100 * m:.2f}" + ("*" if p_values is not None and p < 0.05 else "")
                 for m, p in zip(means, p_values if p_values is not None else means, strict=True)]
        table.add_row(name, *cells)
    return table


@app.command("evaluate")
def evaluate_command(
    folder: Annotated[Path, typer.Argument(help="Labelled pages: NAME.html beside NAME.key.",
                                           show_default=False)],
    denoise: DenoiseOption = True,
    recall: RecallOption = None,
    detector: DetectorOption = None,
    model: RankerOption = None,
    df: DfOption = None,
    querylog: QuerylogOption = None,
    as_json: JsonOption = False,
) -> None:
    """Top-N scores of a ranker on labelled pages.

    Top-N score of a page = |A ∩ K_N| / min(|A|, N): A its keywords, K_N the N
    best candidates (Yih et al. 2006), averaged over pages, for N = 1, 2, 3, 5, 10.

    Example: kwx evaluate bench/test --no-denoise
    """
    err = Console(stderr=True)
    try:
        ranker = KeywordRanker.load(model or shipped(DEFAULT_RANKER))
        header = ranker.header_
    except DenoiseError as error:
        raise fail(err, error) from None
    statistics = _statistics(err, df, querylog)
    template = _base_detector(err, denoise, detector, recall)
    if template is not None:
        template = template.at_recall(recall or ranker_recall(header))
    pages = _prepare(_read_labelled(folder, err), err, template, "test pages")
    means = page_scores(ranker, pages, statistics).mean(axis=0)
    if as_json:
        sys.stdout.write(json.dumps({"pages": len(pages), "denoise": denoise, **{
            f"top{n}": round(float(m), 4) for n, m in zip(TOP_N, means, strict=True)}}) + "\n")
        return
    Console(width=100).print(_score_table(
        f"{len(pages)} pages, {'de-noised' if denoise else 'as they are'}",
        [("kwx", means, None)], TOP_N))


@app.command("compare")
def compare_command(
    train: Annotated[Path, typer.Option(help="Labelled training pages (the paper's IA).")],
    test: Annotated[Path, typer.Option(help="Labelled test pages from other sites (MSN).")],
    recall: ChosenRecallOption = None,
    detector: DetectorOption = None,
    querylog: QuerylogOption = None,
    other_df: Annotated[Path | None, typer.Option(
        help="DF table of another collection for the other-DF row (default: the shipped "
        "one).", show_default=False)] = None,
    main_content: Annotated[Path | None, typer.Option(
        help="Main-content model for the DN-main rows (default: the shipped one; give one "
        "that never saw the test pages' site for a fair row).", show_default=False)] = None,
    as_json: JsonOption = False,
) -> None:
    """Kołcz & Yih's Tables 1 and 2: does removing templates help keyword extraction
    on pages of sites the ranker never saw?

    ORD trains and tests on pages as they are, DF from the training pages; DN
    removes the test pages' templates; DF takes document frequencies from training
    and test pages; DN-DF both; DN_both and DN-DF_both also de-noise the training
    pages; other-DF takes DF from another collection. `*` marks a significant
    difference from ORD (two-tailed paired t-test, 95%). Without `--recall` the
    detector's recall is chosen by cross-validation on the training pages alone.

    Example: kwx compare --train bench/train --test bench/test
    """
    err = Console(stderr=True)
    base = _load_detector(err, detector)
    try:
        tables = TableFile.load(querylog or shipped(DEFAULT_QUERYLOG),
                                ["query", "query_part"]).tables
        other = TableFile.load(other_df or shipped(DEFAULT_DF), ["documents"]).tables
    except DenoiseError as error:
        raise fail(err, error) from None
    labelled_train, labelled_test = _read_labelled(train, err), _read_labelled(test, err)
    if recall is None:
        recall = _chosen_recall(err, labelled_train, base, lambda pages: PhraseStatistics(
            document_frequencies(pages), tables["query"], tables["query_part"]), False)
    template = base.at_recall(recall)
    try:
        main = Cleaner(Mode.main, extractor=MainContentExtractor.load(detector, main_content))
    except DenoiseError as error:
        raise fail(err, error) from None
    train_pages = {"none": _prepare(labelled_train, err, None, "training pages"),
                   "page": _prepare(labelled_train, err, template, "training pages, de-noised"),
                   "main": _prepare(labelled_train, err, None, "training pages, main content",
                                    main)}
    test_pages = {"none": _prepare(labelled_test, err, None, "test pages"),
                  "page": _prepare(labelled_test, err, template, "test pages, de-noised"),
                  "main": _prepare(labelled_test, err, None, "test pages, main content", main)}
    try:
        results = compare(train_pages, test_pages, queries=tables["query"],
                          query_parts=tables["query_part"], other_df=other["documents"])
    except ValueError as error:  # training pages without a keyword among their candidates
        raise fail(err, f"{train}: {error}", 1) from None
    _print_comparison(results, len(train_pages["none"]), len(test_pages["none"]), as_json)


def _print_comparison(results: list[ConfigurationResult], n_train: int, n_test: int,
                      as_json: bool) -> None:
    if as_json:
        for result in results:
            sys.stdout.write(json.dumps({
                "configuration": result.configuration.name, "train_pages": n_train,
                "test_pages": n_test,
                **{f"top{n}": round(float(m), 4) for n, m in zip(TOP_N, result.means,
                                                                  strict=True)},
                **{f"p_top{n}": round(float(p), 5) for n, p in zip(TOP_N, result.p_values,
                                                                    strict=True)},
            }) + "\n")
        return
    names = [c.name for c in CONFIGURATIONS]
    first = [r for r in results if names.index(r.configuration.name) < 4]
    second = [r for r in results if names.index(r.configuration.name) >= 4]
    console = Console(width=100)
    for title, group in ((f"Table 1 ({n_train} training, {n_test} test pages; * = "
                          "significant against ORD)", first), ("Table 2", second)):
        if group:
            console.print(_score_table(title, [(r.configuration.name, r.means, r.p_values)
                                               for r in group], TOP_N))
    baseline = results[0].means
    gains = ", ".join(f"{r.configuration.name} {100 * (r.means[-1] / baseline[-1] - 1):+.1f}%"
                      for r in results[1:] if baseline[-1] > 0)
    console.print(f"Top10 relative to ORD: {gains}", markup=False, highlight=False)


@df_app.command("build")
def df_build_command(
    inputs: InputsArg,
    out: Annotated[Path, typer.Option("--out", "-o", callback=writable,
                                      help="Where to write the table (.npz).")],
    min_df: Annotated[int, typer.Option(min=1, help="Leave out phrases on fewer pages.")] = 1,
    denoise: Annotated[bool, typer.Option(
        "--denoise/--no-denoise", help="Count only the pages' content (templates removed).")
    ] = False,
    recall: FixedRecallOption = None,
    detector: DetectorOption = None,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Count on how many pages each candidate phrase occurs.

    Stores 64-bit phrase hashes and counts only (no text): about 12 bytes a phrase.

    Example: kwx df build pages/ --out df.npz --min-df 2
    """
    err = Console(stderr=True)
    template = _base_detector(err, denoise, detector, recall)
    if template is not None:
        template = template.at_recall(recall or DEFAULT_RECALL)
    skipped: list[Skipped | PageError] = []
    started = time.process_time()
    with progress_bar(err) as progress:
        task = progress.add_task("counting phrases", total=None)
        table = document_frequency(read_inputs(inputs, max_bytes, skipped, err), detector=template,
                                   min_df=min_df, on_page=lambda _: progress.advance(task),
                                   on_error=skipper(skipped, err))
    if not table.total:
        say(err, "error: no pages read")
        raise typer.Exit(1)
    try:
        save_tables(out, {"documents": table}, {"inputs": [str(i) for i in inputs],
                                                "min_df": min_df, "denoise": denoise})
    except OSError as error:
        raise fail(err, _named(error, out), 1) from None
    say(err, f"table written to {out}: {len(table)} phrases over {table.total} pages, "
         f"{len(skipped)} skipped, {time.process_time() - started:.1f} CPU seconds")


@querylog_app.command("build")
def querylog_build_command(
    files: Annotated[list[Path], typer.Argument(
        help="Query logs: `id:query`, `id<TAB>query` or `query<TAB>answers` lines.",
        show_default=False)],
    out: Annotated[Path, typer.Option("--out", "-o", callback=writable,
                                      help="Where to write the table (.npz).")],
    min_count: Annotated[int, typer.Option(min=1, help="Leave out rarer phrases.")] = 1,
) -> None:
    """Count how often each phrase is a whole query, and in how many queries it occurs.

    A log sampled with repeats (TREC Terabyte 2005) gives real query frequencies.

    Example: kwx querylog build trec-terabyte05-efficiency.txt --out queries.npz
    """
    err = Console(stderr=True)
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise typer.BadParameter(f"no such file: {', '.join(missing)}")

    def queries() -> Iterator[str]:
        for path in files:
            yield from read_queries(path)

    started = time.process_time()
    with progress_bar(err) as progress:
        progress.add_task("counting queries", total=None)
        whole, parts = query_frequency(queries(), min_count=min_count)
    if not whole.total:
        say(err, "error: no queries read")
        raise typer.Exit(1)
    try:
        save_tables(out, {"query": whole, "query_part": parts},
                    {"files": [f.name for f in files], "min_count": min_count})
    except OSError as error:
        raise fail(err, _named(error, out), 1) from None
    say(err, f"table written to {out}: {whole.total} queries, {len(whole)} distinct, "
         f"{len(parts)} phrases, {time.process_time() - started:.1f} CPU seconds")


app.command("version")(version_command)
