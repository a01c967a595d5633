"""What every site-level method shares: labels, labelled pages, and the method contract.

A site-level method sees many pages of one site. ``fit`` gathers statistics over
them; ``label`` then says of each block of a page whether it is template, content,
or unknown, with the evidence that decided it. The statistics are counts; the
batch driver (``denoise.site.batch``) keeps a site's segmented pages between fitting
and labelling, in memory up to a budget and on disk past it.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import IntEnum
from typing import ClassVar, Self, TypeAlias

import numpy as np

from denoise.blocks import PageBlocks, segment
from denoise.errors import not_fitted
from denoise.page import Page
from denoise.site.counts import DigestCounts


class Label(IntEnum):
    """A block's label. Unknown blocks are neither confidently template nor content."""

    CONTENT = 0
    TEMPLATE = 1
    UNKNOWN = 2

    def __str__(self) -> str:
        return self.name.lower()


#: Why a block got its label; stored per block as an index into this tuple.
REASONS = (
    "short",  # below the minimum text: not labelled
    "unique",  # on exactly one page of the site
    "frequent",  # on more than one page, below the template threshold
    "text",  # its text digest is on >= theta of the pages
    "structure",  # its masked structure is on >= theta of the pages
    "contained",  # >= 85% of its text lies in template blocks (Chakrabarti 5.1)
    "holds-template",  # unique, but holds a template or frequent block
    "offset",  # >= 0.8 of its words are template words (Chen et al.)
    "few-template-words",  # under 0.8 of its words are template words (Chen et al.)
)
REASON = {name: code for code, name in enumerate(REASONS)}

#: Label values as plain ints: numpy compares an array with an ``IntEnum`` member
#: through a slow path (several times a plain int's cost), which per-page steps avoid.
TEMPLATE, CONTENT, UNKNOWN = int(Label.TEMPLATE), int(Label.CONTENT), int(Label.UNKNOWN)


@dataclass(frozen=True, slots=True, kw_only=True)
class LabeledPage:
    """A segmented page with one label, one piece of evidence and one reason per block.

    ``support`` is the method's evidence: the share of the site's pages the block
    is on for the counting methods, the template-word ratio for ``style-offset``.
    ``example`` marks the blocks fit to train a page-level model on (Kołcz & Yih 3:
    template blocks, and only the topmost of nested unique blocks).
    """

    blocks: PageBlocks
    labels: np.ndarray  # int8, Label values
    support: np.ndarray  # float32
    reasons: np.ndarray  # uint8, indices into REASONS
    example: np.ndarray  # bool
    #: A block's label covers only its own text, not that of the blocks inside it
    #: (Chen et al.'s blocks are disjoint units; the counting methods label subtrees).
    own_text_only: bool = False

    @property
    def page(self) -> Page:
        """The labelled page."""
        return self.blocks.page

    def template_chunks(self) -> np.ndarray:
        """Text chunks labelled template (bool per chunk of the page)."""
        template = self.labels == TEMPLATE
        if self.own_text_only:
            # a chunk outside every block (owner -1) picks the appended False
            return np.append(template, False)[self.blocks.chunk_block]
        return self.blocks.covered(template)

    def template_share(self) -> tuple[int, int]:
        """Characters of template text and of all text on the page."""
        chars = self.blocks.chunk_chars()
        return int(chars @ self.template_chunks()), int(chars.sum())


def digest(text: str, kind: bytes = b"t") -> int:
    """A stable signed 64-bit digest of ``text`` (BLAKE2b), namespaced by ``kind``.

    Python's ``hash`` changes between processes, so it cannot be stored or compared
    across runs; BLAKE2b is stable and fast.
    """
    value = hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=8, person=kind).digest()
    return int.from_bytes(value, "little", signed=True)


#: What a counting method's ``fit`` reads of a page: its :func:`page_key` and the
#: digests it counts there (int64), by kind.
PageKeys: TypeAlias = tuple[str, dict[str, np.ndarray]]


@dataclass(frozen=True)
class Segmenter:
    """Parse a page and cut it into the blocks of ``scheme`` (picklable, comparable)."""

    scheme: str

    def __call__(self, page: Page) -> PageBlocks:
        return segment(page, self.scheme)


class SiteMethod(ABC):
    """A site-level template detector: ``fit`` on one site's pages, then ``label`` them.

    Subclasses follow scikit-learn's contract: ``__init__`` only stores its keyword
    arguments, ``fit`` validates them and returns ``self``, fitted state ends in ``_``.
    """

    #: Name used on the command line.
    name: ClassVar[str]
    #: The segmentation the method works on (see ``denoise.blocks.SCHEMES``).
    scheme: ClassVar[str]
    #: What ``LabeledPage.support`` measures for this method.
    support_name: ClassVar[str] = "page_share"

    def segment(self, page: Page) -> PageBlocks:
        """Parse and segment ``page`` the way this method needs."""
        return self.segmenter()(page)

    def segmenter(self, *, shares_only: bool = False) -> Callable[[Page], PageBlocks]:
        """:meth:`segment` as a function that pickles (worker processes run it), so
        whatever a method notes of a page when it is segmented is noted there too; two
        methods that segment alike give equal segmenters.

        ``shares_only`` is for a caller that reads only labels and text shares (a
        per-site report): a method that labels from its :meth:`page_keys` may then give
        each page reduced to them (:meth:`PageBlocks.text_shares_only`), reduced while
        the page is fresh in the caches, as the fingerprint method does; this default
        gives whole pages."""
        return Segmenter(self.scheme)

    @abstractmethod
    def fit(self, pages: Iterable[PageBlocks]) -> Self:
        """Gather the site statistics of ``pages`` (all from one site)."""

    @abstractmethod
    def label(self, page: PageBlocks) -> LabeledPage:
        """Label every block of ``page`` with the fitted statistics."""

    def page_keys(self, page: PageBlocks) -> PageKeys | None:
        """What :meth:`fit` counts of ``page``, if that is all it reads of it (then
        :meth:`fit_keys` fits from these alone); None if it reads more (the default).

        The batch driver keeps them beside a page it spills to disk, so that fitting a
        site reads them and not the whole page: a spilled page is read back only once,
        to be labelled. A method that has them must also :meth:`label` a page from its
        notes and block tree alone (noted keys, parents, spans, characters per chunk):
        when only a report is wanted, its :meth:`segmenter` reduces pages to those
        (``shares_only``)."""
        return None

    def fit_keys(self, keys: Iterable[PageKeys]) -> Self:
        """:meth:`fit`, from the :meth:`page_keys` of each page."""
        raise NotImplementedError(f"{type(self).__name__} fits from whole pages only")

    def _check_fitted(self) -> None:
        if not hasattr(self, "pages_"):
            raise not_fitted(self)


def page_key(page: PageBlocks) -> str:
    """What a page is counted under: its id and a digest of its text.

    A store counts a page once however often it comes; a page whose text changed
    (the same URL crawled again) is a new page.
    """
    text_digest = page.notes.get("page.text_digest")  # noted once: a spilled page has it
    if text_digest is None:
        text_digest = page.notes["page.text_digest"] = np.array(
            [digest(page.text, b"p") & 0xFFFFFFFFFFFF], dtype=np.int64)
    return f"{page.page.id}#{int(text_digest[0]):012x}"


def page_frequencies(counts: DigestCounts, page_id: str, keys: np.ndarray,
                     kind: str) -> tuple[np.ndarray, int]:
    """Pages holding each key, and pages in all, counting the page itself if it was not.

    A page labelled without having been fitted (a new page of a known site) holds
    its own digests once: a digest found nowhere else is unique, not unseen.
    """
    df = counts.lookup(keys, kind)
    pages = counts.pages(kind)
    if not counts.counted(page_id, kind):
        return df + 1, pages + 1
    return df, pages


def rule_labels(df: np.ndarray, n_pages: int, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """Kołcz & Yih's counting rule: template at >= theta of the pages, content if unique.

    A block also needs to be on at least two pages to be template, so that on a site
    of fewer than 1/theta pages a unique block is not called template.
    """
    share = df / max(n_pages, 1)
    labels = np.full(len(df), Label.UNKNOWN, dtype=np.int8)
    reasons = np.full(len(df), REASON["frequent"], dtype=np.uint8)
    template = (share >= theta) & (df >= 2)
    labels[template] = Label.TEMPLATE
    reasons[template] = REASON["text"]
    labels[df == 1] = Label.CONTENT
    reasons[df == 1] = REASON["unique"]
    return labels, reasons


def check_fraction(name: str, value: float) -> None:
    """Raise ``ValueError`` unless ``0 < value <= 1``."""
    if not 0.0 < value <= 1.0:
        raise ValueError(f"{name} must be in (0, 1], got {value!r}")
