"""denoise: find the template blocks of web pages (navigation, footers, boilerplate).

The page model every package of the toolkit shares (:class:`Page`, its
:class:`PageBlocks` and their :class:`Block`), the readers that turn any input into
pages, the site-level detectors in :mod:`denoise.site`, the page-level detector
(:class:`TemplateDetector`, :func:`main_text`) that needs no other page of the site,
and the one de-noising step the applications read pages through (:func:`clean`: a
:class:`Mode` in, a :class:`Cleaned` page out).
"""

from denoise.blocks import SCHEMES, Block, PageBlocks, segment
from denoise.cleaning import Cleaned, Cleaner, Mode, clean, clean_pages
from denoise.decode import decode_html
from denoise.detector import PageScores, TemplateDetector
from denoise.errors import (
    DenoiseError,
    LabelFileError,
    ModelError,
    NotGroupedError,
    PageError,
    ResumeError,
    SparkJobError,
    SparkUnavailable,
    StoreError,
)
from denoise.html import parse_html
from denoise.language import detect_language
from denoise.main_content import MainContentExtractor, main_markdown, main_text, main_xml
from denoise.metadata import Metadata, extract_metadata
from denoise.page import Page, site_of
from denoise.reader import Skipped, read_pages

__all__ = [
    "SCHEMES",
    "Block",
    "Cleaned",
    "Cleaner",
    "DenoiseError",
    "LabelFileError",
    "MainContentExtractor",
    "Metadata",
    "Mode",
    "ModelError",
    "NotGroupedError",
    "Page",
    "PageBlocks",
    "PageError",
    "PageScores",
    "ResumeError",
    "Skipped",
    "SparkJobError",
    "SparkUnavailable",
    "StoreError",
    "TemplateDetector",
    "clean",
    "clean_pages",
    "decode_html",
    "detect_language",
    "extract_metadata",
    "main_markdown",
    "main_text",
    "main_xml",
    "parse_html",
    "read_pages",
    "segment",
    "site_of",
]
