"""The page: the unit every package of the toolkit reads."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from denoise.arguments import expect_text

_WAYBACK = re.compile(r"^/web/\d+[a-z_]*/(?P<inner>.+)$")


@dataclass(frozen=True, slots=True, kw_only=True)
class Page:
    """One decoded HTML page.

    ``id`` names the page in every output: the path relative to the input folder
    or archive, or the URL for WARC and JSON lines input. ``site`` groups pages for
    site-level statistics: the URL's host unless the caller says otherwise.
    """

    id: str
    html: str
    url: str | None = None
    site: str = ""

    def __post_init__(self) -> None:
        expect_text(self.id, "id", "Page")
        expect_text(self.html, "html", "Page")
        expect_text(self.url, "url", "Page", optional=True)
        expect_text(self.site, "site", "Page")

    def without_html(self) -> Page:
        """The page without its HTML, once it is segmented and only its blocks are read
        (itself when it has none: a page kept waiting is reduced once)."""
        return replace(self, html="") if self.html else self


def site_of(url: str | None) -> str:
    """Host of ``url`` in lower case, empty when there is none.

    A Wayback Machine capture (``web.archive.org/web/<time>/<url>``) belongs to the
    site it captured, not to the archive.
    """
    if not url:
        return ""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:  # a malformed URL has no host we can trust
        return ""
    if host == "web.archive.org":
        match = _WAYBACK.match(parts.path)
        if match:
            inner = match["inner"]
            return site_of(inner if "://" in inner else "http://" + inner)
    return host
