"""Parse HTML once, with lxml, into a tree without the parts nobody sees."""

from __future__ import annotations

from lxml import etree

from denoise.errors import PageError

#: Elements removed with their content before segmentation: never visible text.
DROPPED_TAGS = ("script", "style", "noscript", "template")


def _parser() -> etree.HTMLParser:
    # One parser per process: lxml parsers are cheap to reuse and not shared across threads.
    # No table of id attributes (collect_ids): nothing looks an element up by its id, and
    # building and freeing the table is work on every page.
    return etree.HTMLParser(
        remove_comments=True, remove_pis=True, no_network=True, recover=True,
        encoding="utf-8", default_doctype=False, collect_ids=False,
    )


_PARSER = _parser()


def parse_html(html: str, source: str = "<html>") -> etree._Element:
    """Parse ``html`` into an lxml element tree, or raise ``PageError`` naming ``source``.

    The text is handed to lxml as UTF-8 bytes so that an XML declaration in the page
    (common on XHTML sites) cannot make lxml refuse a ``str``.
    """
    data = html.encode("utf-8", errors="replace")
    try:
        root = etree.fromstring(data, _PARSER)
    except etree.LxmlError as error:
        raise PageError(source, f"unparsable HTML ({error})") from None
    if root is None:
        raise PageError(source, "unparsable HTML (no element found)")
    etree.strip_elements(root, *DROPPED_TAGS, with_tail=False)
    return root
