"""Page-level scores with the evidence of the other pages of the same site.

By default every page is scored on its own. Given a batch (or a ``--db`` store of
fingerprint counts), pages of one site can also contribute what the site-level
fingerprint method finds: blocks repeated on at least ``theta`` of the site's pages
are pushed towards template (:func:`denoise.detector.add_site_evidence`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from denoise.detector import PageScores, TemplateDetector
from denoise.errors import PageError
from denoise.features import PageFeatures, extract
from denoise.page import Page
from denoise.site.base import Label
from denoise.site.counts import DigestCounts
from denoise.site.fingerprint import FingerprintMethod
from denoise.training import site_labeller


def score_with_site_evidence(
    detector: TemplateDetector,
    pages: Iterable[Page],
    *,
    theta: float = 0.1,
    counts_for: Callable[[str], DigestCounts] | None = None,
    on_error: Callable[[PageError], None] | None = None,
) -> Iterator[PageScores]:
    """Score ``pages`` with their site's evidence; results come in input order.

    The whole batch is held (a site's statistics need all its pages before any is
    labelled). ``counts_for(site)`` binds each site to stored counts (a
    :class:`~denoise.site.counts.SiteStore`), so earlier runs count too; structure
    matching is then off, as in ``denoise site --db``.
    """
    held: list[tuple[str, PageFeatures]] = []
    for page in pages:
        try:
            held.append((page.site, extract(page)))
        except PageError as error:
            if on_error is None:
                raise
            on_error(error)
    by_site: dict[str, list[PageFeatures]] = {}
    for site, features in held:
        by_site.setdefault(site, []).append(features)
    methods: dict[str, FingerprintMethod] = {}
    for site, site_pages in by_site.items():
        counts = counts_for(site) if counts_for is not None else None
        methods[site] = site_labeller(theta, counts).fit([f.blocks for f in site_pages])
    for site, features in held:
        labels = methods[site].label(features.blocks).labels[features.nodes]
        yield detector.score_features(features, labels == Label.TEMPLATE)
