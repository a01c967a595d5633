"""A page's title, meta keywords / description and declared language, read from its
parsed tree.

Keywords weigh words of the title and meta tags (Yih et al.), and weigh the declared
language against the page's text where the kept text does not tell its language; a
cleaned page carries them (:class:`denoise.cleaning.Cleaned`), so they are read in the
one parse.
"""

from __future__ import annotations

import unicodedata

from denoise.language import primary_subtag

try:
    from denoise import _compiled
except ImportError:  # the compiled extension is optional
    _compiled = None


def head_texts(root) -> tuple[str, str, str]:
    """The page's ``<title>`` (in its head: an inline SVG's title is not the page's)
    and its meta keywords and description (the first of each that is not empty): in
    one compiled pass over the tree where built (13.4 us a page on the scale input,
    against 41.4 for lxml's lookups, which make a Python proxy of every element they
    meet: ``benchmarks/references_ab.py``), else :func:`head_texts_python`, the
    tests' reference. In Unicode's form C, as the page text (:mod:`denoise.blocks`),
    which keywords match them against."""
    texts = _compiled.head_texts(root) if _compiled is not None else head_texts_python(root)
    if all(text.isascii() for text in texts):
        return texts
    title, keywords, description = (unicodedata.normalize("NFC", text) for text in texts)
    return title, keywords, description


def declared_language(root) -> str:
    """The language the page's ``<html>`` declares (``lang``, else ``xml:lang``), as its
    primary subtag: ``de`` of ``de-CH``; "" if none."""
    for name in ("lang", "xml:lang", "{http://www.w3.org/XML/1998/namespace}lang"):
        if primary := primary_subtag(root.get(name) or ""):
            return primary
    return ""


def head_texts_python(root) -> tuple[str, str, str]:
    """:func:`head_texts` by lxml's own lookups."""
    element = root.find("head/title") if root.tag == "html" else root.find(".//head/title")
    title = " ".join((element.text or "").split()) if element is not None else ""
    keywords = description = ""
    for meta in root.iter("meta"):
        name = (meta.get("name") or meta.get("property") or "").strip().lower()
        if name == "keywords" and not keywords:
            keywords = meta.get("content") or ""
        elif name in ("description", "og:description") and not description:
            description = meta.get("content") or ""
    return title, keywords, description
