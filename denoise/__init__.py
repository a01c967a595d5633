"""denoise: find the template blocks of web pages (navigation, footers, boilerplate).

The page model every package of the toolkit shares (:class:`Page`, its
:class:`PageBlocks` and their :class:`Block`), the readers that turn any input into
pages, and the site-level detectors in :mod:`denoise.site`.
"""

from denoise.blocks import SCHEMES, Block, PageBlocks, segment
from denoise.decode import decode_html
from denoise.errors import DenoiseError, PageError, StoreError
from denoise.html import parse_html
from denoise.page import Page, site_of
from denoise.reader import Skipped, read_pages

__all__ = [
    "SCHEMES",
    "Block",
    "DenoiseError",
    "Page",
    "PageBlocks",
    "PageError",
    "Skipped",
    "StoreError",
    "decode_html",
    "parse_html",
    "read_pages",
    "segment",
    "site_of",
]
