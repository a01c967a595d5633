"""``denoise train / apply / evaluate / show``: the page-level detector on the command line."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
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
    Noting,
    OutOption,
    PageInputsArg,
    PageNote,
    PageTimeoutOption,
    ResumeOption,
    SiteOption,
    SparkMasterOption,
    UrlsOption,
    cannot_write,
    fraction,
    one_page,
    page_fetcher,
    progress_bar,
    read_inputs,
    run_pages,
    say,
    skipper,
    web_inputs,
    writable,
)
from commands.denoise import app
from denoise.decode import DEFAULT_MAX_BYTES
from denoise.detector import DEFAULT_SMOOTHING, PageScores, TemplateDetector, block_lines
from denoise.errors import DenoiseError, PageError
from denoise.features import SCHEME, features_of, parse_blocks
from denoise.main_content import MainContentExtractor
from denoise.metadata import extract_metadata
from denoise.output import atomic_text
from denoise.page import Page
from denoise.reader import Skipped
from denoise.render import clean_html, shaded_html
from denoise.site import SiteStore
from denoise.site_evidence import score_with_site_evidence
from denoise.steps import step_by_step
from denoise.structure import kept_tree, structure_of, to_markdown, to_xml
from denoise.training import (
    CALIBRATION_QUANTILE,
    CrossSiteReport,
    TrainingPage,
    read_main_xpath_tables,
    train_detector,
    training_pages,
    with_main_xpaths,
)
from denoise.validation import FamilyCurves, site_family
from engine.batch import BatchSummary
from engine.bulk import action_line, check_index_name
from engine.jsonstr import json_str as _json_str


class Classifier(StrEnum):
    """Second-stage classifiers, by command-line name."""

    forest = "forest"
    logistic = "logistic"
    naive_bayes = "naive-bayes"


class Format(StrEnum):
    """What ``denoise apply`` writes per page."""

    text = "text"
    main = "main"
    json = "json"
    markdown = "markdown"
    xml = "xml"
    html = "html"
    blocks = "blocks"


ModelOption = Annotated[Path | None, typer.Option(
    "--model", "-m", help="A model from 'denoise train' (default: the template model shipped "
    "with the package, trained on 110 documentation, news and shop sites; apply's "
    "main-content formats mix the one given, or by default their own, trained on 45 of "
    "those sites' repetition alone).", show_default=False,
)]
RecallOption = Annotated[float | None, typer.Option(
    callback=fraction, help="Cut where the model expects to find this share of the template "
    "blocks of an unseen site (e.g. 0.5); precision follows from the model's curve.",
    show_default=False,
)]
PrecisionOption = Annotated[float | None, typer.Option(
    callback=fraction, help="Cut where the model expects this precision of template calls "
    "(default: the operating point stored in the model).", show_default=False,
)]
SmoothingOption = Annotated[float, typer.Option(
    min=0.0, help="Penalty constant c of the tree smoothing (Chakrabarti et al.: "
    "gamma_i = c * A / A_i); 0 turns smoothing off.",
)]


def _detector(model: Path | None, recall: float | None, precision: float | None,
              err: Console) -> TemplateDetector:
    if recall is not None and precision is not None:
        raise typer.BadParameter("give --recall or --precision, not both")
    try:
        detector = TemplateDetector.load(model)
        if recall is not None:
            detector = detector.at_recall(recall)
        elif precision is not None:
            detector = detector.at_precision(precision)
    except DenoiseError as error:
        say(err, f"error: {error}")
        raise typer.Exit(2) from None
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None
    expected = detector.expected()
    if (recall is not None or precision is not None) and expected is not None:
        if detector.curve is not None and detector.threshold > detector.curve.thresholds[0]:
            say(err, "warning: no threshold reaches that precision on the model's cross-site "
                 "curve: nothing will be called template")
        else:
            say(err, f"operating point {detector.threshold:.3f}: expected precision "
                 f"{expected[0]:.1%}, recall {expected[1]:.1%} (cross-site validation)")
    return detector


@app.command("train")
def train_command(
    inputs: InputsArg,
    out: Annotated[Path, typer.Option("--out", "-o", callback=writable,
                                      help="Where to write the model (.npz).")],
    classifier: Annotated[Classifier, typer.Option(
        help="The model over the non-word features, fed the Naive Bayes word score: a "
        "random forest or logistic regression; naive-bayes: the word score alone.",
    )] = Classifier.forest,
    folds: Annotated[int, typer.Option(
        min=2, help="Cross-site folds for the report and the operating curve.")] = 10,
    smoothing: SmoothingOption = DEFAULT_SMOOTHING,
    precision: Annotated[float, typer.Option(
        callback=fraction, help="The model's default operating point: the threshold "
        "where the operating curve's precision (see --site-quantile) is this.")] = 0.9,
    site_quantile: Annotated[float, typer.Option(
        callback=fraction, help="The operating curve promises precision on a new site: at "
        "each threshold, the precision that all but this share of the held-out site families "
        "reach (0.25: three sites in four); recall stays pooled.")] = CALIBRATION_QUANTILE,
    pooled_curve: Annotated[bool, typer.Option(
        "--pooled-curve", help="Pool the held-out blocks into one curve instead (each block "
        "counts once: the sites with the most blocks carry it).")] = False,
    theta: Annotated[float, typer.Option(
        callback=fraction, help="Site-level labels: a block on at least this share of its "
        "site's pages is template.")] = 0.1,
    min_pages: Annotated[int, typer.Option(
        min=2, help="Sites with fewer pages give no labels.")] = 10,
    report: Annotated[Path | None, typer.Option(
        callback=writable,
        help="Also write the cross-site report (per-site recall, curve) as JSON here.",
    )] = None,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
    exclude_site: Annotated[list[str] | None, typer.Option(
        "--exclude-site", metavar="HOST", help="Leave out the pages of this site's whole "
        "family (the same publisher in every corpus and era, e.g. entertainment.msn.com "
        "drops every msn site), for a detector that has never seen it. Repeatable.",
        show_default=False)] = None,
    main_xpaths: Annotated[list[Path] | None, typer.Option(
        "--main-xpaths", metavar="TSV", help="Sites whose main content you can point at: a "
        "site and an XPath a line, tab-separated. Their pages' blocks are labelled by it "
        "(inside: content, outside: template) rather than by repetition, which calls an API "
        "reference's repeated members template and a page's own breadcrumbs content; "
        "calibration pages too, so the promise is kept against where their content lies. "
        "Repeatable.", show_default=False)] = None,
    calibrate_on: Annotated[list[str] | None, typer.Option(
        "--calibrate-on", metavar="INPUT", help="Pages of other site families, not trained "
        "on: the final model scores them and each of their families joins the operating "
        "curve beside the held-out folds, so the promise holds for sites like them too "
        "(e.g. documentation sites when training on news). Repeatable.",
        show_default=False)] = None,
) -> None:
    """Train a site-independent template detector on many sites' pages.

    Site-level statistics label blocks for free (repeated = template, unique =
    content), or, for the sites given --main-xpaths, where their main content lies
    (outside = template); a classifier learns them from page-level features; 10-fold
    cross-site validation (never a site in training and test) gives the
    precision-recall curve stored in the model, from which --recall / --precision
    pick thresholds later. Sites come from folders (one folder a site) or URL hosts.

    Example: denoise train sites/ --out model.npz
    """
    err = Console(stderr=True)
    started = time.process_time()
    skipped: list[Skipped | PageError] = []
    excluded: dict[str, int] = {}
    left_out = {site_family(host) for host in exclude_site or ()}

    try:
        xpaths = read_main_xpath_tables(main_xpaths or [])
    except ValueError as error:
        say(err, f"error: {error}")
        raise typer.Exit(2) from None
    on_error = skipper(skipped, err)
    read = read_inputs(inputs, max_bytes, skipped, err)
    if exclude_site:
        read = _without_families(read, left_out, excluded)

    with progress_bar(err) as progress:
        task = progress.add_task("reading and labelling pages", total=None)
        pages = list(training_pages(read, theta=theta,
                                    min_pages=min_pages, on_error=on_error,
                                    on_page=lambda _: progress.advance(task)))
    pages, used_xpaths, moved = _by_region(pages, xpaths)
    calibration: list[TrainingPage] = []
    calibrated_xpaths: dict[str, str] = {}
    if calibrate_on:
        with progress_bar(err) as progress:
            task = progress.add_task("reading and labelling calibration pages", total=None)
            extra = read_inputs(calibrate_on, max_bytes, skipped, err)
            if exclude_site:
                extra = _without_families(extra, left_out, excluded)
            calibration = list(training_pages(extra, theta=theta, min_pages=min_pages,
                                              on_error=on_error,
                                              on_page=lambda _: progress.advance(task)))
        calibration, calibrated_xpaths, calibrated = _by_region(calibration, xpaths)
        calibration = [page for page in calibration if page.example.any()]
        moved += calibrated
    if xpaths:
        labelled_by = used_xpaths.keys() | calibrated_xpaths.keys()
        say(err, f"{moved} pages of {len(labelled_by)} site(s) labelled by their main "
             "content")
        unmatched = sorted(site for site in set(xpaths) - labelled_by
                           if site_family(site) not in left_out)
        if unmatched:
            say(err, f"warning: no page's main content found for {len(unmatched)} site(s) "
                 f"of {', '.join(map(str, main_xpaths or []))}: {', '.join(unmatched[:5])}"
                 + (" ..." if len(unmatched) > 5 else ""))
    if exclude_site:
        say(err, f"excluded {sum(excluded.values())} pages of "
             f"{len(excluded)} site(s) in the families of {', '.join(exclude_site)}"
             + (f": {', '.join(sorted(excluded))}" if excluded else ""))
    labelled = len({page.site for page in pages if page.example.any()})
    if labelled < folds:
        say(err, f"error: {labelled} sites with labels (of >= {min_pages} pages each); "
            f"cross-site validation needs at least --folds {folds}")
        raise typer.Exit(1)
    c = smoothing if smoothing > 0 else None
    try:
        with progress_bar(err) as progress:
            task = progress.add_task("cross-site validation", total=folds)
            trained = train_detector(
                pages, classifier=str(classifier), folds=folds, smoothing=c,
                precision=precision, theta=theta,
                quantile=None if pooled_curve else site_quantile,
                excluded_families=left_out,
                main_xpaths=used_xpaths, calibration=calibration,
                calibration_xpaths=calibrated_xpaths,
                on_fold=lambda _: progress.advance(task))
        _print_cross_site(trained.report, c is not None, sys.stdout)
        if trained.families is not None:
            _print_held_out_promise(trained.families, precision, site_quantile,
                                    {site_family(page.site) for page in calibration})
        trained.save(out)
    except (ValueError, OSError) as error:
        say(err, f"error: {error}")
        raise typer.Exit(1) from None
    result, detector = trained.report, trained.detector
    threshold, sites = detector.threshold, trained.training["sites"]
    expected_precision, expected_recall = detector.expected() or (0.0, 0.0)
    if report is not None:
        try:
            with atomic_text(report) as stream:
                json.dump(_report_data(result, c is not None), stream)
        except OSError as error:  # the model is written: say so, and what was not
            say(err, f"model written to {out}; error: {cannot_write(report, error)}")
            raise typer.Exit(1) from None
    promise = ("cross-site precision" if pooled_curve else
               f"precision on {1 - site_quantile:.0%} of new sites at least")
    say(err, f"model written to {out}: operating point {threshold:.3f} ({promise} "
         f"{expected_precision:.1%}, recall {expected_recall:.1%}); {len(pages)} pages, "
         f"{sites} sites, {len(skipped)} skipped, "
         f"{time.process_time() - started:.0f} CPU seconds")


def _by_region(pages: list[TrainingPage], xpaths: dict[str, str]
               ) -> tuple[list[TrainingPage], dict[str, str], int]:
    """``pages`` with those of the sites in ``xpaths`` labelled by their main content, the
    XPaths that labelled a page, and how many pages they labelled."""
    by_region = list(with_main_xpaths(pages, xpaths)) if xpaths else pages
    moved = [new.site for old, new in zip(pages, by_region, strict=True) if new is not old]
    return by_region, {site: xpaths[site] for site in sorted(set(moved))}, len(moved)


def _without_families(pages: Iterator[Page], families: set[str],
                      excluded: dict[str, int]) -> Iterator[Page]:
    """The pages whose site family is none of ``families``; the others are counted in
    ``excluded`` by site (a held-out detector must never see the test site)."""
    for page in pages:
        if site_family(page.site) in families:
            excluded[page.site] = excluded.get(page.site, 0) + 1
        else:
            yield page


def _report_data(result: CrossSiteReport, smoothed: bool) -> dict[str, object]:
    return {
        "pooled": {"raw": result.curve(False).recall_at(0.9),
                   "smoothed": result.curve(True).recall_at(0.9)},
        "site_mean": {"raw": result.site_mean_recall(0.9, False),
                      "smoothed": result.site_mean_recall(0.9, True)},
        "per_site": [{"site": s, "examples": n, "template": t, "recall_at_90": r}
                     for s, n, t, r in result.per_site(0.9, smoothed)],
        "curve": result.curve(smoothed).sampled().as_dict(),
    }


def _print_cross_site(result: CrossSiteReport, smoothed: bool, stream) -> None:
    table = Table(title="Cross-site validation: template recall at 90% precision",
                  title_justify="left")
    for column in ("site", "examples", "template", "recall"):
        table.add_column(column, justify="left" if column == "site" else "right")
    for site, n, template, recall in result.per_site(0.9, smoothed):
        table.add_row(site, str(n), str(template), "-" if recall != recall else f"{recall:.1%}")
    pooled_raw, pooled = result.curve(False).recall_at(0.9), result.curve(True).recall_at(0.9)
    table.add_row("pooled (basic / smooth)", str(len(result.labels)),
                  str(int((result.labels == 1).sum())), f"{pooled_raw:.1%} / {pooled:.1%}")
    table.add_row("mean over sites", "", "", f"{result.site_mean_recall(0.9, smoothed):.1%}")
    Console(file=stream, width=120).print(table)


def _print_held_out_promise(families: FamilyCurves, precision: float, quantile: float,
                            calibration: set[str]) -> None:
    """Whether the promise holds on a new site: each family's threshold chosen on the
    *other* families, and how many of them reach ``precision`` there."""
    _, reached, _ = families.held_out(precision, quantile)
    table = Table(title=f"The operating point on a new site: each family's threshold "
                  f"chosen without it; families reaching {precision:.0%} precision",
                  title_justify="left")
    for column in ("families", "reaching", "share"):
        table.add_column(column, justify="left" if column == "families" else "right")
    calibrating = np.array([name in calibration for name in families.families.tolist()])
    for name, mask in (("trained on (held-out folds)", ~calibrating),
                       ("calibration only", calibrating), ("all", np.ones_like(calibrating))):
        if mask.any():
            hits = int((reached[mask] >= precision).sum())
            table.add_row(name, f"{hits} of {int(mask.sum())}", f"{hits / mask.sum():.1%}")
    Console(file=sys.stdout, width=120).print(table)


#: How the closing summary names the pages that fell back.
FELL_BACK = "fell back to their least template-like blocks"
#: How it names the pages with no text at all to keep (a page of images, scripts or
#: frames): their output is empty, and no cut made it so (a cut falls back first).
NO_TEXT = "had no text"
#: The formats of the main content (main-content mode's model and operating point).
_MAIN_FORMATS = (Format.main, Format.json, Format.markdown, Format.xml)
#: What a page's JSON line says when it fell back (no string inside a JSON line holds
#: it: their quotes are escaped).
_FALLBACK = '"fallback": true'


def _page_body(scores: PageScores, output: Format, extractor: MainContentExtractor | None,
               links: bool = False, images: bool = False) -> tuple[str, bool]:
    """The page's text, Markdown, XML or HTML, and whether it fell back: the cut would
    have left it (next to) no text, so its least template-like blocks were kept
    (:meth:`~denoise.detector.PageScores.or_fallback`; ``scores`` are the fallback's
    then; with ``extractor``, main-content mode's own fallback). ``links`` and
    ``images`` are written in Markdown and XML."""
    if extractor is not None:  # reuses the template model's scores of the page
        mixed = extractor.scores(scores.features, template_raw=scores.raw)
        keep, fallback = extractor.kept(mixed)
        if output in (Format.markdown, Format.xml):
            nodes = structure_of(kept_tree(scores.features, keep))
            write = to_markdown if output is Format.markdown else to_xml
            return write(nodes, links=links, images=images), fallback
        return block_lines(scores.features.blocks, keep), fallback
    if output is Format.html:
        return clean_html(scores), scores.fallback
    return scores.content_text(), scores.fallback


def _page_line(scores: PageScores, output: Format, extractor: MainContentExtractor | None,
               links: bool = False, images: bool = False) -> tuple[str, bool]:
    """A page's JSON line, ``{"page", "url" (when known), "fallback": true (when it fell
    back), "text" or "html"}``, as ``json.dumps(record, ensure_ascii=False)`` writes it,
    put together from its fields' JSON strings (:mod:`engine.jsonstr`: the page's text
    is most of the line); and whether it fell back. ``--format json`` puts the page's
    metadata (:func:`denoise.metadata.extract_metadata`, a parse of its own that keeps
    the scripts for their JSON-LD; the language told by the text written) before the
    text; its ``url`` (the canonical URL, else the page's) is then the line's only one."""
    page = scores.features.blocks.page
    url = f', "url": {_json_str(page.url)}' if page.url and output is not Format.json else ""
    key = output.value if output in (Format.html, Format.markdown, Format.xml) else "text"
    text, fallback = _page_body(scores, output, extractor, links, images)
    said = f", {_FALLBACK}" if fallback else ""
    about = ""
    if output is Format.json:
        about = "".join(f', "{name}": {_json_str(value)}'
                        for name, value in extract_metadata(page, text).as_dict().items())
    return (f'{{"page": {_json_str(page.id)}{url}{said}{about}, "{key}": {_json_str(text)}}}\n',
            fallback)


def _block_lines(scores: PageScores) -> list[str]:
    """``--format blocks``: per scored block, ``{"page", "path", "tag", "text", "score",
    "raw_score", "template"}`` as ``json.dumps(record, ensure_ascii=False)`` writes it,
    put together from the page's arrays with json's own string encoder (a dict per block
    through ``json.dumps`` took a tenth of a whole run). A list of lines, never joined:
    a page's lines repeat nested blocks' text, and one character past U+FFFF would make
    the joined string four bytes a character (170 MB for a 19.9 MB page)."""
    blocks = scores.features.blocks
    nodes = scores.features.nodes
    text, tags = blocks.text, blocks.tags
    starts, ends = blocks.bounds
    head = f'{{"page": {_json_str(blocks.page.id)}, "path": '
    return [
        f'{head}{_json_str(path)}, "tag": {_json_str(tags[block])}, '
        f'"text": {_json_str(text[a:b])}, "score": {round(score, 4)!r}, '
        f'"raw_score": {round(raw, 4)!r}, "template": {"true" if template else "false"}}}\n'
        for path, block, a, b, score, raw, template in zip(
            blocks.shape.paths(blocks.elements[nodes]), nodes.tolist(),
            starts[nodes].tolist(), ends[nodes].tolist(), scores.scores.tolist(),
            scores.raw.tolist(), scores.template.tolist(), strict=True)]


@dataclass
class ApplyJob:
    """``denoise apply``'s work on one page (sent to worker processes: models load there)."""

    model: Path | None
    recall: float | None
    precision: float | None
    output: Format
    single: bool  # one HTML file: the page's text as it is, not a JSON line
    bulk: str | None = None  # an index name: each line after its bulk action line
    links: bool = False  # markdown, xml: links written
    images: bool = False  # markdown, xml: images written
    detector: TemplateDetector | None = field(default=None, repr=False)
    extractor: MainContentExtractor | None = field(default=None, repr=False)
    fell_back: bool = field(default=False, repr=False)  # the last page this process worked
    empty: bool = field(default=False, repr=False)  # its text, Markdown or XML was empty

    def settings(self) -> dict[str, object]:
        """What shapes the output (a resumed run must have the same)."""
        return {"model": str(self.model), "recall": self.recall, "precision": self.precision,
                "format": str(self.output), "single": self.single, "bulk": self.bulk,
                "links": self.links, "images": self.images}

    def setup(self) -> None:
        if self.detector is not None:
            return
        if self.output in _MAIN_FORMATS:
            self.extractor = MainContentExtractor.load(template=self.model)
            self.detector = self.extractor.detector
            return
        detector = TemplateDetector.load(self.model)
        if self.recall is not None:
            detector = detector.at_recall(self.recall)
        elif self.precision is not None:
            detector = detector.at_precision(self.precision)
        self.detector = detector

    def __getstate__(self) -> dict[str, object]:
        return {**self.__dict__, "detector": None, "extractor": None}  # workers load their own

    def __call__(self, page: Page) -> list[str]:
        assert self.detector is not None  # noqa: S101 - setup() ran
        return self._lines(self.detector.score(page))

    def many(self, pages: list[Page]) -> list[list[str] | Exception]:
        """The lines of each page, worked step by step over the batch
        (:func:`denoise.steps.step_by_step`: the same scores as one page at a time)."""
        assert self.detector is not None  # noqa: S101 - setup() ran
        return step_by_step(pages, [parse_blocks, features_of,
                                    self.detector.score_features, self._lines])

    def _lines(self, scores: PageScores) -> list[str]:
        if self.output is Format.blocks:  # every block's score and call at the operating point
            return _block_lines(scores)
        if self.extractor is None:
            scores = scores.or_fallback()
        if self.single:
            text, self.fell_back = _page_body(scores, self.output, self.extractor,
                                              self.links, self.images)
            self.empty = not text
            return [text + "\n"]
        line, self.fell_back = _page_line(scores, self.output, self.extractor, self.links,
                                          self.images)
        if self.bulk is not None:  # one string: a page's output is written in one piece
            page = scores.features.blocks.page
            return [action_line(self.bulk, page.id) + line]
        return [line]

    def noted(self, output: str) -> bool:
        """Whether a page's output (its one line, as written) says the page fell back: a
        JSON line's ``"fallback": true``; a single page's text has no record, so for it
        what this job saw when it worked the page (in this process:
        :class:`commands.common.PageNote`)."""
        return self.fell_back if self.single else _FALLBACK in output

    def said_nothing(self, output: str) -> bool:
        """Whether a page's output (as :meth:`noted` reads it) is empty: a JSON line's
        text, Markdown or XML is "" (:func:`_says_nothing`)."""
        return self.empty if self.single else _says_nothing(output)

    def notes(self) -> tuple[PageNote, ...]:
        """What the closing summary counts apart: pages that fell back, and pages with no
        text (not in HTML, which keeps the page's markup; block lines say neither)."""
        if self.output is Format.blocks:
            return ()
        fell_back = PageNote(FELL_BACK, self.noted)
        return (fell_back,) if self.output is Format.html else (
            fell_back, PageNote(NO_TEXT, self.said_nothing))


def _says_nothing(line: str) -> bool:
    """Whether a page's JSON line ends with an empty text, Markdown or XML (the last
    field: :func:`_page_line`)."""
    return line.endswith('": ""}\n')


@app.command("apply")
def apply_command(
    inputs: PageInputsArg = None,
    model: ModelOption = None,
    recall: RecallOption = None,
    precision: PrecisionOption = None,
    output: Annotated[Format, typer.Option(
        "--format", "-f", help="text: the page's text without its template blocks; main: "
        "the article alone (main-content mode: also drops link lists and text outside the "
        "main region); json: the article with the page's title, author, date, site_name, "
        "language, url (canonical) and description, one JSON object a page; markdown, xml: "
        "the article with its headings, paragraphs, lists, tables, quotes and code; html: "
        "the page with template blocks removed; blocks: one JSON line per scored block "
        "(page, path, tag, text, score, template).")] = Format.text,
    blocks: Annotated[bool, typer.Option(
        "--blocks", help="Same as --format blocks.")] = False,
    links: Annotated[bool, typer.Option(
        "--links", help="--format markdown or xml: write the article's links too.")] = False,
    images: Annotated[bool, typer.Option(
        "--images", help="--format markdown or xml: write the article's images too.")] = False,
    bulk: Annotated[str | None, typer.Option(
        help="Write the JSON lines as the bulk NDJSON of OpenSearch and Elasticsearch: "
        "before each page's line, an action line indexing it into this index, with the "
        "page's id as the document's (--format text, main or html).",
        show_default=False)] = None,
    out: OutOption = Path("-"),
    site_evidence: Annotated[bool, typer.Option(
        help="Let pages of the same site in the batch add their site-level evidence "
        "(blocks repeated on >= 10% of the site's pages lean template). Holds the batch.",
    )] = False,
    db: Annotated[Path | None, typer.Option(
        help="With --site-evidence: fingerprint counts kept in this SQLite file (as "
        "'denoise site --db' makes), so earlier runs' pages count too.")] = None,
    site: SiteOption = None,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
    jobs: JobsOption = None,
    resume: ResumeOption = False,
    engine: EngineOption = Engine.EMBEDDED,
    spark_master: SparkMasterOption = None,
    page_timeout: PageTimeoutOption = DEFAULT_PAGE_TIMEOUT,
    urls: UrlsOption = None,
    allow_private: AllowPrivateOption = False,
) -> None:
    """Remove the template blocks of pages, each page scored on its own.

    One HTML file in: its text without template blocks (--format main: the article
    alone; --format html: the clean HTML) out. Several pages in
    (folders, archives, WARC, JSON lines of {url, html}, - for standard input): one
    JSON line per page, {page, url, text} or {page, url, html}, in input order, as
    they are done (--jobs worker processes; --resume continues an interrupted -o run).
    With --blocks: one JSON line per scored block. With --site-evidence, pages of the
    same site also lend each other their site-level statistics.

    A page the cut would leave with (next to) no text (under 1% of it kept) keeps its
    least template-like blocks instead: its line says "fallback": true and the closing
    summary counts it (--blocks gives every block's call at the operating point). A
    page with no text at all (images, scripts) gives an empty text, counted too.

    With --bulk NAME the lines are OpenSearch's and Elasticsearch's bulk NDJSON: each
    page's line after an action line that indexes it into NAME (POST the file to _bulk).

    Example: denoise apply page.html;  cat pages.jsonl | denoise apply - > clean.jsonl;
    denoise apply crawl.warc.gz --format main --bulk pages -o pages.ndjson;
    denoise apply https://example.com/news/story.html --format json
    """
    err = Console(stderr=True)
    inputs = web_inputs(err, inputs, urls)
    fetcher = page_fetcher(max_bytes, allow_private)
    if db is not None and not site_evidence:
        raise typer.BadParameter("--db needs --site-evidence")
    output = Format.blocks if blocks else output
    if bulk is not None:
        if output is Format.blocks or site_evidence:
            raise typer.BadParameter("--bulk writes one document a page: not with --blocks "
                                     "or --site-evidence")
        try:
            check_index_name(bulk)
        except ValueError as error:
            raise typer.BadParameter(str(error), param_hint="--bulk") from None
    extractor = None
    if (links or images) and output not in (Format.markdown, Format.xml):
        raise typer.BadParameter("--links and --images are for --format markdown or xml")
    if output in _MAIN_FORMATS:
        if recall is not None or precision is not None or site_evidence:
            raise typer.BadParameter(
                "--format main has its own operating point (stored with the main-content "
                "model); --recall, --precision and --site-evidence apply to the other formats")
        try:
            extractor = MainContentExtractor.load(template=model)
        except DenoiseError as error:
            say(err, f"error: {error}")
            raise typer.Exit(2) from None
        detector = extractor.detector
    else:
        detector = _detector(model, recall, precision, err)
    single = bulk is None and output is not Format.json and one_page(inputs)
    job = ApplyJob(model=model, recall=recall, precision=precision, output=output,
                   single=single, bulk=bulk, links=links, images=images,
                   detector=detector, extractor=extractor)
    if not site_evidence:
        run_pages(err, inputs, job, out=out, jobs=jobs, resume=resume,
                  settings={"command": "denoise apply", **job.settings()},
                  max_bytes=max_bytes, site=site, what="scoring pages", quiet_single=single,
                  engine=engine, spark_master=spark_master, page_timeout=page_timeout,
                  fetcher=fetcher, notes=job.notes())
        return
    if jobs is not None or resume or engine is not Engine.EMBEDDED:
        raise typer.BadParameter("--site-evidence holds the whole batch in one process: "
                                 "--jobs, --resume and --engine do not apply")
    skipped: list[Skipped | PageError] = []
    summary = BatchSummary()

    on_error = skipper(skipped, err)

    def scored() -> Iterator[PageScores]:
        yield from score_with_site_evidence(
            detector, read_inputs(inputs, max_bytes, skipped, err, site, fetcher=fetcher),
            counts_for=store.counts if store is not None else None, on_error=on_error)
    store = None
    noting = None
    try:
        if db is not None:
            store = SiteStore(db, {"method": "fingerprint", "scheme": SCHEME})
        with atomic_text(out) as stream, progress_bar(err) as progress:
            task = progress.add_task("scoring pages", total=None)
            noting = Noting(stream, job.notes())  # the same lines and notes as run_pages'
            for scores in scored():
                summary.written += 1
                progress.advance(task)
                noting.write("".join(job._lines(scores)))
    except BrokenPipeError:  # a reader like `head` left: not an error
        sys.stderr.close()
        raise typer.Exit(0) from None
    except DenoiseError as error:
        say(err, f"error: {error}")
        raise typer.Exit(2) from None
    finally:
        if store is not None:
            store.close()
    summary.count(skipped)
    said = noting.said() if noting is not None else ""
    if len(inputs) != 1 or not single or skipped or said:
        say(err, summary.line() + said)
    if not summary.written:
        raise typer.Exit(1)


@app.command("evaluate")
def evaluate_command(
    inputs: InputsArg,
    model: ModelOption = None,
    recall: RecallOption = None,
    precision: PrecisionOption = None,
    theta: Annotated[float, typer.Option(
        callback=fraction, help="Site-level labels: a block on at least this share of its "
        "site's pages is template.")] = 0.1,
    min_pages: Annotated[int, typer.Option(min=2, help="Sites with fewer pages are left out.")
                         ] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines.")] = False,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Measure a model on sites it was not trained on, against their site-level labels.

    The pages' sites are labelled from their own statistics (as 'denoise train'
    does); the model scores every page on its own; per site and pooled: precision
    and recall at the operating point, and recall at 90% precision, basic and
    smoothed.

    Example: denoise evaluate other-sites/ --model model.npz
    """
    err = Console(stderr=True)
    detector = _detector(model, recall, precision, err)
    skipped: list[Skipped | PageError] = []

    on_error = skipper(skipped, err)

    rows = []
    sites, labels, raw, smoothed = [], [], [], []
    with progress_bar(err) as progress:
        task = progress.add_task("labelling and scoring pages", total=None)
        for page in training_pages(read_inputs(inputs, max_bytes, skipped, err), theta=theta,
                                   min_pages=min_pages, on_error=on_error,
                                   on_page=lambda _: progress.advance(task)):
            keep = page.example
            scored = detector.score_features(page.features)
            sites.extend([page.site] * int(keep.sum()))
            labels.append(page.labels[keep])
            raw.append(scored.raw[keep])
            smoothed.append(scored.scores[keep])
    if not sum(len(y) for y in labels):
        say(err, "error: no site gave labelled blocks (each needs >= --min-pages pages "
             "with blocks of >= 40 characters)")
        raise typer.Exit(1)
    result = CrossSiteReport(np.array(sites), np.concatenate(labels), np.concatenate(raw),
                             np.concatenate(smoothed))
    threshold = detector.threshold
    for site in [*sorted(set(sites)), None]:
        mask = np.ones(len(result.labels), bool) if site is None else result.sites == site
        y, s = result.labels[mask], result.smoothed[mask]
        called = s >= threshold
        hits = int((called & (y == 1)).sum())
        positives = int((y == 1).sum())
        rows.append({  # None where a share has nothing to be a share of
            "site": site or "pooled", "examples": int(mask.sum()), "template": positives,
            "precision": hits / int(called.sum()) if called.any() else None,
            "recall": hits / positives if positives else None,
            "recall_at_90_basic": result.curve(False, site).recall_at(0.9) if positives else None,
            "recall_at_90_smooth": result.curve(True, site).recall_at(0.9) if positives else None,
        })
    if as_json:
        for row in rows:
            sys.stdout.write(json.dumps(row) + "\n")
    else:
        table = Table(title=f"Template detection against site-level labels "
                      f"(threshold {threshold:.3f})", title_justify="left")
        for column in ("site", "examples", "template", "precision", "recall",
                       "recall@90 basic", "recall@90 smooth"):
            table.add_column(column, justify="left" if column == "site" else "right")
        for row in rows:
            table.add_row(str(row["site"]), str(row["examples"]), str(row["template"]),
                          *("-" if row[k] is None else f"{row[k]:.1%}"
                            for k in ("precision", "recall", "recall_at_90_basic",
                                      "recall_at_90_smooth")))
        Console(file=sys.stdout, width=140).print(table)
    say(err, f"{len(set(sites))} sites, {len(skipped)} skipped")


@app.command("show")
def show_command(
    page_file: Annotated[Path, typer.Argument(help="One HTML page.", show_default=False)],
    out: Annotated[Path, typer.Option("--out", "-o", callback=writable,
                                      help="Where to write the shaded page.")],
    model: ModelOption = None,
    recall: RecallOption = None,
    precision: PrecisionOption = None,
    url: Annotated[str | None, typer.Option(
        help="The page's URL, so its relative links, images and styles load.")] = None,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Write the page with its template blocks shaded red and their scores shown, for a
    person to look at in a browser (content blocks get a green outline).

    Example: denoise show page.html -o shaded.html
    """
    err = Console(stderr=True)
    detector = _detector(model, recall, precision, err)
    skipped: list[Skipped | PageError] = []
    pages = list(read_inputs([str(page_file)], max_bytes, skipped, err))
    if len(pages) != 1:
        if pages or not skipped:  # else the reader has said why it read none
            say(err, f"error: {page_file}: expected one HTML page, found {len(pages)}")
        raise typer.Exit(1)
    page = pages[0]
    if url is not None:
        page = Page(id=page.id, html=page.html, url=url, site=page.site)
    try:
        scores = detector.score(page)
    except PageError as error:
        say(err, f"error: {error}")
        raise typer.Exit(1) from None
    try:
        with atomic_text(out) as stream:
            stream.write(shaded_html(scores, url=url))
    except OSError as error:
        say(err, f"error: {cannot_write(out, error)}")
        raise typer.Exit(1) from None
    template = int(scores.template.sum())
    say(err, f"{out}: {template} of {len(scores.raw)} scored blocks shaded as template "
         f"(threshold {detector.threshold:.3f})")

