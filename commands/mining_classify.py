"""``mining classify train / predict / evaluate``: Naive Bayes page classification."""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from commands.common import (
    DEFAULT_PAGE_TIMEOUT,
    Engine,
    EngineOption,
    InputsArg,
    JobsOption,
    MaxBytesOption,
    OutOption,
    PageTimeoutOption,
    ResumeOption,
    SparkMasterOption,
    cannot_write,
    fail,
    fraction,
    progress_bar,
    read_inputs,
    run_pages,
    say,
    skipper,
    writable,
)
from commands.mining import app
from denoise.cleaning import DEFAULT_MODE, PAGE_RECALL, Mode, models_digest
from denoise.decode import DEFAULT_MAX_BYTES
from denoise.detector import TemplateDetector
from denoise.errors import DenoiseError, ModelError, PageError
from denoise.output import atomic_text
from denoise.page import Page
from denoise.reader import Skipped
from denoise.steps import step_by_step
from mining.accuracy import ClassificationReport
from mining.labels import labelled_pages, read_label_file

if TYPE_CHECKING:  # imported where used: scikit-learn loads only for these commands
    from mining.classify import PageClassifier

classify_app = typer.Typer(help="Naive Bayes page classification.", no_args_is_help=True,
                           rich_markup_mode="markdown")
app.add_typer(classify_app, name="classify")

LabelsArg = Annotated[Path, typer.Argument(
    help="Labelled pages: a TSV of `path<TAB>label` lines, paths relative to its folder.",
    show_default=False)]
ModelOption = Annotated[Path, typer.Option(
    "--model", "-m", help="A classifier from 'mining classify train' (.npz).",
    show_default=False)]
DetectorOption = Annotated[Path | None, typer.Option(
    help="Template model for `--denoise page` (default: the shipped one); a classifier "
    "trained with one is used with it again.", show_default=False)]


def _load(err: Console, model: Path, detector: Path | None
          ) -> tuple[PageClassifier, dict[str, object]]:
    """The classifier in ``model``. Without a ``detector`` of the user's, its pages' texts
    are made by this version's shipped models: refused when 'mining classify train'
    recorded a detector file or other models, a warning when nothing is recorded (a
    classifier saved from Python, or before the record)."""
    from mining.classify import PageClassifier

    try:
        loaded = PageClassifier.load(model)
    except DenoiseError as error:
        raise fail(err, error) from None
    training = loaded.header_.get("training")
    training = training if isinstance(training, dict) else {}
    if detector is None and training.get("detector"):
        raise fail(err, f"{model}: trained on texts of the detector {training['detector']}: "
                   "give it with --detector")
    current = models_digest(loaded.denoise) if detector is None else None
    made_with = training.get("models")
    if current is not None and made_with != current:
        if made_with is not None:
            raise fail(err, f"{model}: trained on texts of other models ({made_with}) than "
                       f"this version's ({current}): retrain it with 'mining classify train'")
        recall = (f", mode page at recall {PAGE_RECALL:g}"
                  if loaded.denoise == Mode.page and loaded.recall is None else "")
        say(err, f"warning: {model}: records no models (this version's: {current}{recall}); "
            "retrain it if its texts were made with others")
    return loaded, loaded.header_


def _detector(err: Console, classifier: PageClassifier,
              detector: Path | None) -> TemplateDetector | None:
    """The template detector ``classifier`` needs (None unless it reads ``page`` text)."""
    if classifier.denoise != Mode.page:
        if detector is not None:
            raise typer.BadParameter("--detector is for a classifier of `--denoise page` text")
        return None
    try:
        return TemplateDetector.load(detector)
    except DenoiseError as error:
        raise fail(err, error) from None


def _labelled(err: Console, labels: Path, max_bytes: int,
              skipped: list[Skipped | PageError | str]) -> list[tuple[Page, str]]:
    """The pages a label file names, with their labels; bad lines stop, bad pages skip."""
    try:
        entries = read_label_file(labels)
    except DenoiseError as error:
        raise fail(err, error) from None

    def skip(line: str) -> None:
        skipped.append(line)
        say(err, f"skipped {line}")

    with progress_bar(err) as progress:
        task = progress.add_task("reading pages", total=len(entries))
        found = []
        for entry in entries:
            found.extend(labelled_pages(labels, [entry], max_bytes=max_bytes, on_skip=skip))
            progress.advance(task)
    return found


def _texts(err: Console, classifier: PageClassifier, pages: Iterable[Page],
           detector: TemplateDetector | None, skipped: list[Skipped | PageError | str],
           total: int | None = None) -> Iterator[tuple[Page, str]]:
    """The classifier's text of each page, with a progress bar; unparsable pages skipped."""
    what = {"none": "reading text", "site": "removing site templates",
            "page": "removing page templates",
            "main": "extracting main content"}[str(classifier.denoise)]
    with progress_bar(err) as progress:
        task = progress.add_task(what, total=total)
        for page, text in classifier.texts(pages, detector=detector,
                                           on_error=skipper(skipped, err)):
            progress.advance(task)
            yield page, text


def _labelled_texts(err: Console, classifier: PageClassifier, pages: list[tuple[Page, str]],
                    detector: TemplateDetector | None,
                    skipped: list[Skipped | PageError | str]) -> Iterator[tuple[str, str]]:
    """Each readable page's label and text, in input order. Pages are matched by id
    (``--denoise site`` hands back its own copies of them), a repeated id's labels in
    turn."""
    labels: dict[str, deque[str]] = defaultdict(deque)
    for page, label in pages:
        labels[page.id].append(label)
    for page, text in _texts(err, classifier, (p for p, _ in pages), detector, skipped,
                             len(pages)):
        yield labels[page.id].popleft(), text


@classify_app.command("train")
def train_command(
    labels: LabelsArg,
    out: Annotated[Path, typer.Option("--out", "-o", callback=writable,
                                      help="Where to write the classifier (.npz).")],
    denoise: Annotated[Mode, typer.Option(
        help="What is removed from each page first: none (FULLTEXT), site (what recurs on "
        "the other pages of its site in the file: SITELEVEL) or page (what the page-level "
        "detector calls template: PAGELEVEL) or main (all but the page's main content: on "
        "pages inside templates of sites no model saw, 81.0% accuracy against 55.2% for "
        "none; on WebKB's template-free pages 80.7% against 81.5%, benchmarks/webkb*.py). "
        "Stored in the classifier: predict and evaluate do the same.")] = DEFAULT_MODE,
    recall: Annotated[float | None, typer.Option(
        callback=fraction, help="With `--denoise page`: the detector's operating point, "
        f"the share of an unseen site's template blocks to remove (default: {PAGE_RECALL:g}, "
        "chosen by the mining benchmarks; the stored 90%-precision point leaves more "
        "template in). Stored in the classifier.",
        show_default=False)] = None,
    detector: DetectorOption = None,
    alpha: Annotated[float, typer.Option(
        min=1e-9, help="Additive smoothing of the word counts (1: Laplace).")] = 1.0,
    min_df: Annotated[int, typer.Option(
        min=1, help="Leave out words on fewer training pages.")] = 1,
    prior: Annotated[bool, typer.Option(
        "--prior/--no-prior", help="Class priors from the training counts, or uniform.")
    ] = True,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Train a Naive Bayes page classifier on labelled pages.

    Each page's text (templates removed first with `--denoise`) is split into
    lower-cased words; a multinomial Naive Bayes learns the labels from their
    counts. A line naming a page that cannot be read is reported and skipped.

    Example: mining classify train labels.tsv --out topics.npz --denoise page
    """
    err = Console(stderr=True)
    if recall is not None and denoise != Mode.page:
        raise typer.BadParameter("--recall needs --denoise page")
    from mining.classify import PageClassifier

    if recall is None and denoise == Mode.page:
        recall = PAGE_RECALL  # stored, so that a later default does not move it
    classifier = PageClassifier(alpha=alpha, fit_prior=prior, min_df=min_df,
                                denoise=str(denoise), recall=recall)
    template = _detector(err, classifier, detector)
    started = time.process_time()
    skipped: list[Skipped | PageError | str] = []
    pages = _labelled(err, labels, max_bytes, skipped)
    texts, targets = [], []
    for label, text in _labelled_texts(err, classifier, pages, template, skipped):
        texts.append(text)
        targets.append(label)
    if not texts:
        raise fail(err, f"{labels}: no readable pages", 1)
    try:
        classifier.fit(texts, targets)
    except ValueError as error:
        raise fail(err, f"{labels}: {error}", 1) from None
    try:
        classifier.save(out, extra={"training": {
            "pages": len(texts), "labels": str(labels), "skipped": len(skipped),
            "detector": str(detector) if detector is not None else None,
            "models": models_digest(denoise) if detector is None else None}})
    except OSError as error:
        raise fail(err, cannot_write(out, error), 1) from None
    counts = ", ".join(f"{label} {int(n)}" for label, n in zip(
        classifier.classes_, classifier.class_count_, strict=True))
    say(err, f"classifier written to {out}: {len(texts)} pages ({counts}), "
         f"{len(classifier.vocabulary_):,} words, {len(skipped)} skipped, "
         f"{time.process_time() - started:.1f} CPU seconds")


@classify_app.command("predict")
def predict_command(
    inputs: InputsArg,
    model: ModelOption,
    detector: DetectorOption = None,
    out: OutOption = Path("-"),
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
    jobs: JobsOption = None,
    resume: ResumeOption = False,
    engine: EngineOption = Engine.EMBEDDED,
    spark_master: SparkMasterOption = None,
    page_timeout: PageTimeoutOption = DEFAULT_PAGE_TIMEOUT,
) -> None:
    """Label pages with a trained classifier.

    Prints one JSON line per page, in input order: `{"page", "url", "label", "score",
    "scores"}`, `score` being the posterior of the label (Naive Bayes posteriors are
    overconfident: use them to rank, not as calibrated probabilities). The page's
    text is made as the classifier's training text was (its `--denoise`); with
    `site`, the pages of a site in this batch are compared with each other.

    Example: mining classify predict pages/ --model topics.npz > labels.jsonl
    """
    err = Console(stderr=True)
    classifier, _ = _load(err, model, detector)
    template = _detector(err, classifier, detector)
    if classifier.denoise != Mode.site:
        job = PredictJob(model=model, detector_path=detector, classifier=classifier,
                         detector=template, models=models_digest(classifier.denoise)
                         if detector is None else None)
        run_pages(err, inputs, job, out=out, jobs=jobs, resume=resume,
                  settings={"command": "mining classify predict", "model": str(model),
                            "detector": str(detector)},
                  max_bytes=max_bytes, what="classifying pages",
                  engine=engine, spark_master=spark_master, page_timeout=page_timeout)
        return
    if jobs is not None or resume or engine is not Engine.EMBEDDED:
        raise typer.BadParameter("a classifier of `--denoise site` text compares the pages of "
                                 "a site with each other in one process: --jobs, --resume and "
                                 "--engine do not apply")
    skipped: list[Skipped | PageError | str] = []
    done = 0
    started = time.process_time()
    try:
        with atomic_text(out) as stream:
            for page, text in _texts(err, classifier, read_inputs(inputs, max_bytes, skipped, err),
                                     template, skipped):
                stream.write(_prediction(classifier, page, text))
                done += 1
    except BrokenPipeError:  # a reader like `head` left: not an error
        sys.stderr.close()
        raise typer.Exit(0) from None
    except OSError as error:
        raise fail(err, cannot_write(out, error), 1) from None
    say(err, f"{done + len(skipped)} pages read, {done} written, {len(skipped)} skipped, "
         f"{time.process_time() - started:.1f} CPU seconds")
    if not done:
        raise typer.Exit(1)


def _prediction(classifier: PageClassifier, page: Page, text: str) -> str:
    """One page's JSON line: its label, the label's posterior, every posterior."""
    probabilities = classifier.predict_proba([text])[0]
    best = int(np.argmax(probabilities))
    return json.dumps({
        "page": page.id, "url": page.url, "label": str(classifier.classes_[best]),
        "score": round(float(probabilities[best]), 6),
        "scores": {str(label): round(float(p), 6) for label, p in zip(
            classifier.classes_, probabilities, strict=True)},
    }, ensure_ascii=False) + "\n"


@dataclass
class PredictJob:
    """``mining classify predict``'s work on a page or a batch (for ``none``, ``page`` and
    ``main`` text; sent to worker processes, where the models load)."""

    model: Path
    detector_path: Path | None
    classifier: PageClassifier | None = field(default=None, repr=False)
    detector: TemplateDetector | None = field(default=None, repr=False)
    #: the digest of the shipped models the classifier was checked against (None: a
    #: detector of the user's): a worker whose installation makes other texts refuses
    models: str | None = None

    def setup(self) -> None:
        if self.classifier is None:
            from mining.classify import PageClassifier

            classifier = PageClassifier.load(self.model)
            if self.models is not None:
                here = models_digest(classifier.denoise)
                if here != self.models:
                    raise ModelError(str(self.model), f"this worker's shipped models ({here}) "
                                     f"are not those it was checked against ({self.models})")
            self.classifier = classifier
            if classifier.denoise == Mode.page:
                self.detector = TemplateDetector.load(self.detector_path)

    def __getstate__(self) -> dict[str, object]:
        return {**self.__dict__, "classifier": None, "detector": None}

    def __call__(self, page: Page) -> list[str]:
        assert self.classifier is not None  # noqa: S101 - setup() ran
        (page, text), = self.classifier.texts([page], detector=self.detector)
        return [_prediction(self.classifier, page, text)]

    def many(self, pages: list[Page]) -> list[list[str] | Exception]:
        """Each page's line, worked step by step over the batch (the classifier's
        :meth:`~mining.classify.PageClassifier.text_steps`: the same texts as one page at
        a time)."""
        classifier = self.classifier
        assert classifier is not None  # noqa: S101 - setup() ran
        texts = step_by_step(pages, classifier.text_steps(self.detector))

        def lines(pair: tuple[Page, str | Exception]) -> list[str]:
            page, text = pair
            if isinstance(text, Exception):
                raise text  # this page's, kept in its place
            return [_prediction(classifier, page, text)]

        return step_by_step(list(zip(pages, texts, strict=True)), [lines])


@classify_app.command("evaluate")
def evaluate_command(
    labels: LabelsArg,
    model: ModelOption,
    detector: DetectorOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on standard "
                                          "output: accuracy, per-class figures, confusion.")
                       ] = False,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Accuracy of a classifier on labelled pages, per-class figures and the confusion
    matrix (rows: true labels, columns: predicted).

    A label the classifier does not know counts as an error on every page.

    Example: mining classify evaluate test.tsv --model topics.npz
    """
    err = Console(stderr=True)
    classifier, _ = _load(err, model, detector)
    template = _detector(err, classifier, detector)
    started = time.process_time()
    skipped: list[Skipped | PageError | str] = []
    pages = _labelled(err, labels, max_bytes, skipped)
    truth, texts = [], []
    for label, text in _labelled_texts(err, classifier, pages, template, skipped):
        truth.append(label)
        texts.append(text)
    if not texts:
        raise fail(err, f"{labels}: no readable pages", 1)
    report = ClassificationReport.of(truth, classifier.predict(texts).tolist())
    if as_json:
        sys.stdout.write(json.dumps({"denoise": str(classifier.denoise), **report.as_dict()},
                                    ensure_ascii=False) + "\n")
    else:
        _print_report(report)
    say(err, f"{report.total} pages, {len(skipped)} skipped, "
         f"{time.process_time() - started:.1f} CPU seconds")


def _print_report(report: ClassificationReport) -> None:
    console = Console(width=120)
    console.print(f"accuracy {report.accuracy:.4f} ({report.correct} of {report.total} pages)",
                  markup=False, highlight=False)
    figures = Table(title="Per class", title_justify="left")
    for column in ("class", "precision", "recall", "F1", "pages"):
        figures.add_column(column, justify="left" if column == "class" else "right")
    for label, p, r, f, n in zip(report.labels, report.precision(), report.recall(),
                                 report.f1(), report.support(), strict=True):
        figures.add_row(label, f"{p:.3f}", f"{r:.3f}", f"{f:.3f}", str(int(n)))
    console.print(figures)
    console.print("Confusion: rows are true labels, columns predicted ones", markup=False,
                  highlight=False)
    confusion = Table()
    confusion.add_column("")
    for label in report.labels:
        confusion.add_column(label, justify="right")
    for label, row in zip(report.labels, report.confusion, strict=True):
        confusion.add_row(label, *(str(int(n)) for n in row))
    console.print(confusion)
