"""denoise: find the template blocks of web pages (navigation, footers, boilerplate).

The page model every package of the toolkit shares (:class:`Page`, its
:class:`PageBlocks` and their :class:`Block`), the readers that turn any input into
pages, the site-level detectors in :mod:`denoise.site`, and the page-level detector
(:class:`TemplateDetector`, :func:`main_text`) that needs no other page of the site.
"""

from denoise.blocks import SCHEMES, Block, PageBlocks, segment
from denoise.decode import decode_html
from denoise.detector import PageScores, TemplateDetector
from denoise.errors import DenoiseError, PageError, StoreError
from denoise.html import parse_html
from denoise.main_content import MainContentExtractor, main_text
from denoise.page import Page, site_of
from denoise.reader import Skipped, read_pages

__all__ = [
    "SCHEMES",
    "Block",
    "DenoiseError",
    "MainContentExtractor",
    "Page",
    "PageBlocks",
    "PageError",
    "PageScores",
    "Skipped",
    "StoreError",
    "TemplateDetector",
    "decode_html",
    "main_text",
    "parse_html",
    "read_pages",
    "segment",
    "site_of",
]
