"""Training data for free (Kołcz & Yih 3; Chakrabarti et al. 5.1): site labels, page features.

Each site's pages are parsed once; the fingerprint method counts block digests
over the site and labels the blocks; each page keeps its features
(:mod:`denoise.features`) and, per scored block, the label and whether it is a
training example. The labeller is Kołcz & Yih's (template on >= 10% of the site's
pages, content on exactly one, topmost content only, no content block holding a
template or frequent one), over the page-level detector's ``regions``, with two
additions that give more and cleaner template examples: navigation bars matched by
structure, and containers with >= 85% of their text in template blocks
(Chakrabarti et al. 5.1).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from lxml import etree

from denoise.detector import DEFAULT_SMOOTHING, TemplateDetector
from denoise.errors import PageError
from denoise.evaluate import bag_of_words, xpath_main_text
from denoise.features import SCHEME, PageFeatures, extract
from denoise.model import TemplateModel
from denoise.page import Page
from denoise.site.base import Label
from denoise.site.counts import DigestCounts
from denoise.site.fingerprint import FingerprintMethod
from denoise.validation import (
    Curve,
    FamilyCurves,
    cross_site_predictions,
    pr_curve,
    site_family,
)

#: Labels of scored blocks: content, template, or no label (-1).
NO_LABEL = -1


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainingPage:
    """A page's features with the site-level label of each scored block."""

    site: str
    features: PageFeatures
    labels: np.ndarray  # int8 per node: 0 content, 1 template, -1 unlabelled
    example: np.ndarray  # bool per node: fit to train on

    @property
    def page(self) -> Page:
        """The page."""
        return self.features.blocks.page


def site_labeller(theta: float = 0.1, counts: DigestCounts | None = None) -> FingerprintMethod:
    """The site-level method whose labels train the page-level model.

    With stored ``counts`` (a :class:`~denoise.site.counts.SiteStore` site) structure
    matching is off: its keys depend on word counts at the time they are made.
    """
    return FingerprintMethod(theta=theta, structure=counts is None, contained=0.85,
                             counts=counts, scheme=SCHEME)


def training_pages(
    pages: Iterable[Page],
    *,
    theta: float = 0.1,
    min_pages: int = 10,
    on_error: Callable[[PageError], None] | None = None,
    on_page: Callable[[Page], None] | None = None,
) -> Iterator[TrainingPage]:
    """Label the pages of every site in ``pages`` and yield them with their features.

    Pages are grouped by ``Page.site``; a site with fewer than ``min_pages`` pages
    gives no labels worth training on (one repeated block is then "template" by
    accident) and is left out.
    """
    by_site: dict[str, list[PageFeatures]] = {}
    for page in pages:
        if on_page is not None:
            on_page(page)
        try:
            by_site.setdefault(page.site, []).append(extract(page))
        except PageError as error:
            if on_error is None:
                raise
            on_error(error)
    for site, features in by_site.items():
        if len(features) < min_pages:
            continue
        method = site_labeller(theta).fit([f.blocks for f in features])
        for page_features_ in features:
            labelled = method.label(page_features_.blocks)
            nodes = page_features_.nodes
            labels = labelled.labels[nodes].astype(np.int8)
            labels[labels == Label.UNKNOWN] = NO_LABEL
            yield TrainingPage(site=site, features=page_features_, labels=labels,
                               example=labelled.example[nodes] & (labels != NO_LABEL))


@dataclass(frozen=True, slots=True)
class CrossSiteReport:
    """Scores of every training example from a model that never saw its site."""

    sites: np.ndarray  # str per example
    labels: np.ndarray  # int8 per example: 1 template, 0 content
    raw: np.ndarray  # classifier scores
    smoothed: np.ndarray  # after smoothing (= raw without it)
    #: per page, every scored block's (raw, smoothed) scores, as a (2, nodes) array
    page_scores: tuple[np.ndarray, ...] = ()

    def curve(self, smoothed: bool = True, site: str | None = None) -> Curve:
        """Precision-recall curve, pooled or of one site."""
        scores = self.smoothed if smoothed else self.raw
        if site is None:
            return pr_curve(scores, self.labels)
        mask = self.sites == site
        return pr_curve(scores[mask], self.labels[mask])

    def per_site(self, precision: float = 0.9, smoothed: bool = True
                 ) -> list[tuple[str, int, int, float]]:
        """Per site: examples, template examples, recall at ``precision``."""
        rows = []
        for site in sorted(set(self.sites.tolist())):
            mask = self.sites == site
            template = int((self.labels[mask] == 1).sum())
            recall = self.curve(smoothed, site).recall_at(precision) if template else float("nan")
            rows.append((site, int(mask.sum()), template, recall))
        return rows

    def site_mean_recall(self, precision: float = 0.9, smoothed: bool = True) -> float:
        """Recall at ``precision`` averaged over sites that have template examples."""
        values = [r for *_, r in self.per_site(precision, smoothed) if r == r]
        return float(np.mean(values)) if values else 0.0


def cross_validate(
    pages: Sequence[TrainingPage],
    make_detector: Callable[[Sequence[TrainingPage]], TemplateDetector],
    n_folds: int = 10,
    on_fold: Callable[[int], None] | None = None,
) -> CrossSiteReport:
    """Fit a detector on all site families but a fold's, score that fold; every fold.

    The detector's own smoothing decides the smoothed scores; raw ones are kept to
    compare (Basic vs Smooth, in Chakrabarti et al.'s words).
    """
    def fit_and_score(train: list[TrainingPage], test: list[TrainingPage]) -> list[np.ndarray]:
        detector = make_detector(train)
        out = []
        for page in test:
            raw = detector.model.predict_proba(page.features)
            out.append(np.stack((raw, detector.smooth(page.features, raw))))
        return out

    scored = cross_site_predictions(pages, n_folds, fit_and_score, on_fold)
    sites, labels, raw, smoothed = [], [], [], []
    for page, scores in zip(pages, scored, strict=True):
        keep = page.example
        sites.append(np.full(int(keep.sum()), page.site, dtype=object))
        labels.append(page.labels[keep])
        raw.append(scores[0][keep])
        smoothed.append(scores[1][keep])
    return CrossSiteReport(np.concatenate(sites).astype(str), np.concatenate(labels),
                           np.concatenate(raw), np.concatenate(smoothed), tuple(scored))


def gold_chunks(chunks: Sequence[str], main_text: str) -> np.ndarray:
    """Per text chunk: inside the gold main text (most of its words are still left in the
    gold's bag of words, taken in document order)."""
    left = bag_of_words(main_text)
    out = np.zeros(len(chunks), dtype=bool)
    for index, chunk in enumerate(chunks):
        words = bag_of_words(chunk)
        if not words:
            continue
        found = words & left
        left -= found
        out[index] = found.total() * 2 >= words.total()
    return out


def gold_labels(features: PageFeatures, main_text: str, *, content: float = 0.8,
                boilerplate: float = 0.2) -> np.ndarray:
    """Per scored block (``features.nodes``), its label from a gold main text: content (0)
    with at least ``content`` of its characters in the main text, boilerplate (1) with at
    most ``boilerplate``, else :data:`NO_LABEL`."""
    blocks = features.blocks
    chars = blocks.chunk_chars()
    inside = chars * gold_chunks(blocks.chunks, main_text)
    total = np.concatenate(([0], np.cumsum(chars)))
    gold = np.concatenate(([0], np.cumsum(inside)))
    spans = blocks.spans[features.nodes]
    share = (gold[spans[:, 1]] - gold[spans[:, 0]]) / np.maximum(
        total[spans[:, 1]] - total[spans[:, 0]], 1)
    labels = np.full(len(features.nodes), NO_LABEL, dtype=np.int8)
    labels[share >= content] = 0
    labels[share <= boilerplate] = 1
    return labels


def gold_training_page(page: Page, main_text: str, *, content: float = 0.8,
                       boilerplate: float = 0.2) -> TrainingPage:
    """Labels from a gold main text (:func:`gold_labels`). Every labelled block is an
    example: a main-content model must score blocks at every depth."""
    features = extract(page)
    labels = gold_labels(features, main_text, content=content, boilerplate=boilerplate)
    return TrainingPage(site=page.site, features=features, labels=labels,
                        example=labels != NO_LABEL)


def with_main_text(page: TrainingPage, main_text: str, *, content: float = 0.8,
                   boilerplate: float = 0.2) -> TrainingPage:
    """``page`` relabelled where a known main text decides (:func:`gold_labels`): a
    block inside it is content and one outside it template, whatever repetition says;
    the site-level label stays elsewhere, and the examples are the site labeller's.

    Repetition and region disagree on documentation sites. An API reference repeats
    its inherited members, trait implementations and parameter boilerplate inside every
    page's main content (template by repetition), and a page's own breadcrumbs and
    "Next / Up" bars are content by repetition: on the 17 dev documentation sites with a
    main-content XPath, 45% of the site labeller's template examples have 80% of their
    text in the main content. A detector trained on repetition alone cuts such members
    out of API references it never saw (``benchmarks/template_heldout.py``'s region
    truth)."""
    gold = gold_labels(page.features, main_text, content=content, boilerplate=boilerplate)
    labels = np.where(gold != NO_LABEL, gold, page.labels).astype(np.int8)
    return TrainingPage(site=page.site, features=page.features, labels=labels,
                        example=page.example & (labels != NO_LABEL))


def read_main_xpaths(path: str | os.PathLike[str]) -> dict[str, str]:
    """Site -> XPath of its main content, from a tab-separated file of a site and an
    XPath a line (more columns are ignored; so are blank lines, ``#`` comments, a first
    line (after those) whose first column is ``site``, and ``-`` for a site with no
    single XPath, as in ``sites-dev-docs-main-xpath.tsv``). Raises ``ValueError`` naming
    the file (and line) of a file that is not UTF-8 text, a line without a site and an
    XPath that selects elements, or a site given twice."""
    name = os.fspath(path)
    probe = etree.fromstring("<html><body/></html>")
    found: dict[str, str] = {}
    try:
        with Path(path).open(encoding="utf-8-sig") as stream:
            lines = stream.read().splitlines()
    except UnicodeDecodeError:
        raise ValueError(f"{name}: not UTF-8 text") from None
    except OSError as error:
        raise ValueError(f"{name}: cannot read ({error.strerror})") from None
    first = True
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        site, _, rest = (part.strip() for part in line.partition("\t"))
        xpath = rest.split("\t", 1)[0].strip()
        header, first = first and site.lower() == "site", False
        if header or xpath == "-":
            continue
        try:
            selected = etree.XPath(xpath)(probe) if site else None
        except (etree.XPathError, TypeError):
            selected = None
        if not isinstance(selected, list):
            raise ValueError(f"{name}:{number}: not a site and an XPath that selects "
                             f"elements: {line.strip()[:80]!r}")
        if site in found:
            raise ValueError(f"{name}:{number}: {site} is given twice")
        found[site] = xpath
    return found


def read_main_xpath_tables(paths: Iterable[str | os.PathLike[str]]) -> dict[str, str]:
    """The sites' XPaths of every table in ``paths`` (each read by :func:`read_main_xpaths`;
    a table given twice is read once). Raises ``ValueError`` naming both tables of a site
    given in two: which one to believe is the caller's to say."""
    xpaths: dict[str, str] = {}
    origin: dict[str, str] = {}
    for path in dict.fromkeys(os.fspath(path) for path in paths):
        for site, xpath in read_main_xpaths(path).items():
            if site in xpaths:
                raise ValueError(f"{path}: {site} is given in {origin[site]} too")
            xpaths[site], origin[site] = xpath, path
    return xpaths


def with_main_xpaths(pages: Iterable[TrainingPage], xpaths: Mapping[str, str]
                     ) -> Iterator[TrainingPage]:
    """``pages``, those of a site with an XPath in ``xpaths`` relabelled by the main
    content it selects (:func:`with_main_text`). A page where it selects nothing, or
    elements without a word (a page whose article a script fills in), keeps its
    site-level labels: an empty main text would call every block template."""
    for page in pages:
        xpath = xpaths.get(page.site)
        main = xpath_main_text(page.page.html, xpath) if xpath is not None else None
        yield page if main is None or not bag_of_words(main) else with_main_text(page, main)


@dataclass(frozen=True, slots=True)
class TrainedDetector:
    """A detector trained on all the pages, at the threshold its cross-site curve gives
    for the asked precision, with the cross-site report that curve came from."""

    detector: TemplateDetector
    report: CrossSiteReport
    training: dict[str, object]  # what it was trained on, for the model's header
    #: the site families' curves the operating curve came from (None: the pooled curve)
    families: FamilyCurves | None = None

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the detector with its training record (:meth:`TemplateDetector.save`)."""
        self.detector.save(path, training=self.training)


#: How the operating curve treats site families (:class:`~denoise.validation.FamilyCurves`):
#: at each threshold, the precision that this share of the families reach (None: the
#: pooled curve, each block counting once). See :func:`train_detector`.
CALIBRATION_QUANTILE: float | None = 0.25


def train_detector(pages: Sequence[TrainingPage], *, classifier: str = "forest",
                   folds: int = 10, smoothing: float | None = DEFAULT_SMOOTHING,
                   precision: float = 0.9, theta: float = 0.1,
                   quantile: float | None = CALIBRATION_QUANTILE,
                   excluded_families: Iterable[str] = (),
                   main_xpaths: Mapping[str, str] | None = None,
                   calibration: Sequence[TrainingPage] = (),
                   calibration_xpaths: Mapping[str, str] | None = None,
                   on_fold: Callable[[int], None] | None = None) -> TrainedDetector:
    """Cross-validate by site on ``pages`` (``folds`` folds, never a site in training
    and test), then train on them all and cut where the cross-site precision is
    ``precision``: the operating point a detector promises on a site it never saw.

    The promise is about *a* new site, so the operating curve counts each site family
    once: at each threshold its precision is the ``quantile`` of the families'
    precisions (the lower quartile by default: three new sites in four get at least
    the precision the curve gives); its recall stays pooled over all template blocks,
    so ``--recall`` keeps its meaning. The pooled
    curve (``quantile=None``), where each block counts once, is carried by the sites
    with the most blocks: its 90% was 75% on new sites (``benchmarks/template_heldout.py``
    measures both, each family's threshold chosen without it).

    ``calibration``: labelled pages of site families *not* trained on, scored by the
    final model and counted as families of the curve beside the held-out folds (recall
    stays pooled over the training sites): the dev sites are mostly news, and their
    quartile promised 90% on three documentation sites in four but kept it on one in
    two; calibrated on unseen documentation families too, the promise covers both kinds.

    ``theta``, ``excluded_families``, ``main_xpaths`` (the sites whose pages were
    labelled by their main content, :func:`with_main_xpaths`, and its XPath) and
    ``calibration_xpaths`` (the same for calibration sites) are recorded only (the pages
    were labelled and filtered before). Raises ``ValueError``
    when fewer sites than folds have labels, or when a calibration page's family is
    trained on.
    """
    sites = sorted({page.site for page in pages if page.example.any()})
    if len(sites) < folds:
        raise ValueError(f"{len(sites)} sites with labels; cross-site validation needs at "
                         f"least one a fold ({folds})")

    def make(train: Sequence[TrainingPage]) -> TemplateDetector:
        return TemplateDetector(TemplateModel(classifier=classifier).fit(train),
                                smoothing=smoothing)

    trained_families = {site_family(site) for site in sites}
    overlap = sorted({site_family(page.site) for page in calibration} & trained_families)
    if overlap:
        raise ValueError(f"calibration sites must be of families not trained on: "
                         f"{', '.join(overlap)}")
    if calibration and quantile is None:
        raise ValueError("calibration sites need a curve of site families (a quantile)")
    report = cross_validate(pages, make, folds, on_fold=on_fold)
    smoothed = smoothing is not None
    detector = make(pages)
    families = None
    if quantile is None:
        curve = report.curve(smoothed=smoothed)
    else:
        families = _family_curves(report, detector, calibration, smoothed)
        curve = families.operating_curve(quantile)
    detector = TemplateDetector(detector.model, curve=curve, smoothing=smoothing,
                                threshold=min(curve.threshold_for_precision(precision),
                                              1.0 + 1e-6))
    training = {"sites": len(sites), "pages": len(pages), "folds": folds, "theta": theta,
                "recall_at_90": report.curve(smoothed=smoothed).recall_at(0.9),
                "curve": "pooled" if quantile is None else
                f"site families' {quantile:g} quantile of precision, pooled recall",
                "excluded_families": sorted(set(excluded_families))}
    if main_xpaths:
        training["main_xpaths"] = dict(sorted(main_xpaths.items()))
    if calibration:
        training["calibration"] = {
            "pages": len(calibration), "sites": len({page.site for page in calibration}),
            "families": len({site_family(page.site) for page in calibration})}
        if calibration_xpaths:
            training["calibration"]["main_xpaths"] = dict(sorted(calibration_xpaths.items()))
    return TrainedDetector(detector, report, training, families)


def _family_curves(report: CrossSiteReport, detector: TemplateDetector,
                   calibration: Sequence[TrainingPage], smoothed: bool) -> FamilyCurves:
    """The families' curves of the held-out folds' scores and of ``calibration``'s
    examples scored by ``detector`` (the final model, which never saw them)."""
    scores = [report.smoothed if smoothed else report.raw]
    labels, sites = [report.labels], [report.sites]
    for page in calibration:
        page_scores = detector.score_features(page.features)
        scores.append((page_scores.scores if smoothed else page_scores.raw)[page.example])
        labels.append(page.labels[page.example])
        sites.append(np.full(int(page.example.sum()), page.site, dtype=object))
    trained = np.zeros(sum(len(part) for part in labels), dtype=bool)
    trained[:len(report.labels)] = True
    return FamilyCurves.of(np.concatenate(scores), np.concatenate(labels),
                           np.concatenate(sites).astype(str), pooled=trained)
