"""Pages back as HTML: without their template blocks, or with them shaded for a person.

Both re-parse the page (the scoring path keeps arrays, not the tree) and find the
scored blocks' elements by their index in the walk, which the same parse gives.
"""

from __future__ import annotations

import html as html_escape

from lxml import etree

from denoise.detector import PageScores
from denoise.html import DROPPED_TAGS, parse_html, remove_keeping_tail, settable

_SHADE = ("outline: 2px solid rgba(200, 0, 0, 0.9) !important; "
          "background-color: rgba(255, 60, 60, 0.28) !important;")
_CONTENT = "outline: 1px dashed rgba(0, 140, 0, 0.8) !important;"
_LEGEND = (
    '<div style="position: sticky; top: 0; z-index: 2147483647; padding: 6px 10px; '
    'font: 13px/1.4 sans-serif; color: #000; background: #ffd; border-bottom: 1px solid #aa8;">'
    '<b>denoise</b>: <span style="{shade}">template</span> (score &ge; {threshold:.2f}), '
    '<span style="{content}">content</span>; {template} of {blocks} scored blocks template. '
    'Hover a block for its score.</div>'
)


_POLICY = "script-src 'none'; object-src 'none'; frame-src 'none'; base-uri 'self' *"
_URL_ATTRIBUTES = ("href", "src", "action", "formaction", "data", "srcdoc")
_EMBEDS = frozenset({"iframe", "frame", "object", "embed", "applet"})


def _defuse(elements: list[etree._Element]) -> None:
    """Make the page inert without moving any element (their walk positions matter)."""
    for element in elements:
        attrib = element.attrib
        for name in [n for n in attrib if n.lower().startswith("on")]:
            del attrib[name]
        for name in _URL_ATTRIBUTES:
            value = attrib.get(name)
            if value is not None and (element.tag in _EMBEDS or name == "srcdoc"
                                      or value.strip().lower().startswith(("javascript:",
                                                                           "data:text/html"))):
                attrib[name] = "about:blank" if name != "href" else "#"
        if element.tag == "meta" and attrib.get("http-equiv", "").lower() == "refresh":
            del attrib["http-equiv"]


def _topmost_template(scores: PageScores) -> list[int]:
    """Elements (walk indices) of template blocks whose enclosing block is not template."""
    blocks = scores.features.blocks
    template = scores.block_scores >= scores.threshold
    parents = blocks.parents
    parent_template = (parents >= 0) & template[parents]
    chosen = template & ~parent_template & (blocks.elements >= 0)
    return blocks.elements[chosen].tolist()


def clean_html(scores: PageScores) -> str:
    """The page as HTML without its template blocks (scripts and styles dropped too)."""
    page = scores.features.blocks.page
    root = parse_html(page.html, page.id, undrawn_text=True)
    elements = list(root.iter(etree.Element))
    for index in _topmost_template(scores):
        remove_keeping_tail(elements[index])
    return etree.tostring(root, method="html", encoding="unicode")


def shaded_html(scores: PageScores, url: str | None = None) -> str:
    """The page with template blocks shaded and every scored block's score as a tooltip.

    The page is for looking at, so nothing in it runs: scripts are removed, and so
    are event-handler attributes, ``javascript:`` URLs, embedded frames' sources and
    meta refreshes; a Content-Security-Policy forbids scripts, plugins and frames on
    top. Styles and stylesheet links stay, so it looks like the page. ``url`` becomes
    a ``<base>`` so relative links, images and styles resolve.
    """
    page = scores.features.blocks.page
    # parsed as the walk's tree was (the same markup cap and depth), styles kept for the
    # look; the walk saw no <style>: leave them out of the index so positions match
    root = parse_html(page.html, page.id, undrawn_text=True,
                      dropped=tuple(t for t in DROPPED_TAGS if t != "style"))
    elements = [e for e in root.iter(etree.Element) if e.tag != "style"]
    _defuse(elements)
    blocks = scores.features.blocks
    template = scores.template
    for node, block in enumerate(scores.features.nodes.tolist()):
        element = elements[blocks.elements[block]]
        look = _SHADE if template[node] else _CONTENT
        element.set("style", settable(f"{element.get('style', '')};{look}".lstrip(";")))
        element.set("title", f"template score {scores.scores[node]:.2f} "
                    f"(classifier {scores.raw[node]:.2f})")
    head = root.find("head")
    if head is None:
        head = etree.Element("head")
        root.insert(0, head)
    head.insert(0, etree.Element("meta", charset="utf-8"))
    head.insert(1, etree.Element("meta", {"http-equiv": "Content-Security-Policy",
                                          "content": _POLICY}))
    if url:
        head.insert(2, etree.Element("base", href=url))
    body = root.find("body")
    if body is None:
        body = root
    legend = etree.fromstring(_LEGEND.format(
        shade=_SHADE, content=_CONTENT, threshold=scores.threshold,
        template=int(template.sum()), blocks=len(template)), etree.HTMLParser()).find(".//div")
    body.insert(0, legend)
    title = html_escape.escape(page.id).replace("--", "- -")
    return f"<!DOCTYPE html>\n<!-- denoise show: {title} -->\n" + etree.tostring(
        root, method="html", encoding="unicode")
