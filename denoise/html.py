"""Parse HTML once, with lxml, into a tree without the parts nobody sees."""

from __future__ import annotations

from lxml import etree

from denoise.arguments import expect_text
from denoise.errors import PageError

#: Elements removed with their content before segmentation: never visible text.
DROPPED_TAGS = ("script", "style", "noscript", "template")


def _parser(*, ids: bool = False) -> etree.HTMLParser:
    # One parser per process: lxml parsers are cheap to reuse and not shared across threads.
    # Without a table of id attributes (collect_ids) by default: the per-page path never
    # looks an element up by its id, and building and freeing the table is work on
    # every page; XPath's id() needs it.
    return etree.HTMLParser(
        remove_comments=True, remove_pis=True, no_network=True, recover=True,
        encoding="utf-8", default_doctype=False, collect_ids=ids,
    )


_PARSER = _parser()
_PARSER_WITH_IDS = _parser(ids=True)


def parse_html(html: str, source: str = "<html>", *, ids: bool = False) -> etree._Element:
    """Parse ``html`` into an lxml element tree, or raise ``PageError`` naming ``source``;
    with ``ids``, the tree answers XPath's ``id()``.

    The text is handed to lxml as UTF-8 bytes so that an XML declaration in the page
    (common on XHTML sites) cannot make lxml refuse a ``str``.
    """
    data = expect_text(html, "html", "parse_html").encode("utf-8", errors="replace")
    try:
        root = etree.fromstring(data, _PARSER_WITH_IDS if ids else _PARSER)
    except etree.LxmlError as error:
        raise PageError(source, f"unparsable HTML ({error})") from None
    if root is None:
        raise PageError(source, "unparsable HTML (no element found)")
    etree.strip_elements(root, *DROPPED_TAGS, with_tail=False)
    return root
