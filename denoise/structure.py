"""The main content with its structure kept: Markdown and XML (issue 30).

Plain text (one line a block) is what the toolkit's own uses read; a search index or a
language model is better fed the article's headings, paragraphs, lists, tables, quotes
and code as such. The main-content mode chooses which text is kept
(:class:`denoise.main_content.MainContentExtractor`); this module re-parses the page (the
same parse, so the scored blocks' walk indices find their elements, as
:mod:`denoise.render` does), removes every block none of whose text is kept (and the
stray text of blocks kept only for what they hold), and writes what is left:

- :func:`structure_of` reads the pruned tree into a few kinds of :class:`Node` (heading,
  paragraph, list, table, quote, code), their text as runs (:class:`Run`: plain, bold,
  italic, code, link, image);
- :func:`to_markdown` writes CommonMark (pipe tables as GitHub's), :func:`to_xml` an XML
  document of the same nodes (``<main>`` of ``<head rend="h2">``, ``<p>``, ``<list>`` /
  ``<item>``, ``<table>`` / ``<row>`` / ``<cell role="head">``, ``<quote>``, ``<code>``,
  ``<hi rend="#b">``, ``<ref target>``, ``<graphic src alt>``), the element names
  trafilatura's XML uses, so that a reader of one reads the other.

Links and images are left out unless asked for (``links``, ``images``): most readers of
an article's text want neither.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

import numpy as np
from lxml import etree

from denoise.features import PageFeatures
from denoise.html import parse_html, remove_keeping_tail

__all__ = ["Node", "Run", "kept_tree", "structure_of", "to_markdown", "to_xml"]

_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_BLOCKS = frozenset(
    "address article aside blockquote body center dd details div dl dt fieldset figcaption "
    "figure footer form h1 h2 h3 h4 h5 h6 header hr html li main nav ol p pre section "
    "summary table tbody td tfoot th thead tr ul".split())
_BOLD, _ITALIC, _CODE = frozenset({"b", "strong"}), frozenset({"i", "em"}), frozenset(
    {"code", "kbd", "samp", "tt"})
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Run:
    """A stretch of inline text: ``kind`` is text, bold, italic, code, link or image
    (``target``: the link's or image's address)."""

    kind: str
    text: str
    target: str = ""


@dataclass
class Node:
    """One block of the structure: ``kind`` heading (``level``), paragraph, list
    (``ordered``, ``items``: each a list of nodes), table (``rows`` of cells, ``head``:
    whether the first row is a header), quote (``children``) or code (``code``)."""

    kind: str
    runs: list[Run] = field(default_factory=list)
    level: int = 0
    ordered: bool = False
    items: list[list[Node]] = field(default_factory=list)
    rows: list[list[list[Run]]] = field(default_factory=list)
    head: bool = False
    children: list[Node] = field(default_factory=list)
    code: str = ""


# -- the kept part of the page --------------------------------------------------------
def kept_tree(features: PageFeatures, keep: np.ndarray) -> etree._Element:
    """The page re-parsed, without the blocks none of whose text ``keep`` (a bool per
    chunk) keeps, and without the own text of blocks kept only for their kept
    descendants."""
    blocks = features.blocks
    page = blocks.page
    root = parse_html(page.html, page.id)
    elements = list(root.iter(etree.Element))
    count = len(blocks.elements)
    own = np.zeros(count, dtype=bool)
    chunks = blocks.chunk_block
    own[chunks[(chunks >= 0) & keep]] = True
    held = own.copy()
    parents = blocks.parents
    for block in range(count - 1, -1, -1):  # a block's descendants come after it
        if held[block] and parents[block] >= 0:
            held[parents[block]] = True
    block_ids = {id(elements[e]) for e in blocks.elements.tolist() if 0 <= e < len(elements)}
    for block in range(count):
        index = int(blocks.elements[block])
        if index < 0 or index >= len(elements):
            continue
        element = elements[index]
        parent = parents[block]
        if not held[block] and (parent < 0 or held[parent]):
            _remove(element, keep_tail=parent >= 0 and bool(own[parent]))
        elif held[block] and not own[block]:
            _strip_own_text(element, block_ids)
    return root


def _remove(element: etree._Element, *, keep_tail: bool) -> None:
    parent = element.getparent()
    if parent is None:
        element.clear()
        return
    if keep_tail:
        remove_keeping_tail(element)
    else:
        parent.remove(element)


def _strip_own_text(element: etree._Element, block_ids: set[int]) -> None:
    """Remove a block's own text: its text, its inline children, their tails
    (``block_ids``: the ``id`` of every scored block's element, alive in the caller)."""
    element.text = None
    for child in list(element):
        if id(child) in block_ids or not isinstance(child.tag, str):
            child.tail = None
            continue
        child.tail = None
        if child.tag not in _BLOCKS:
            element.remove(child)


# -- the structure --------------------------------------------------------------------
def structure_of(root: etree._Element) -> list[Node]:
    """The block nodes of a (pruned) page's ``<body>``."""
    body = root.find(".//body")
    nodes: list[Node] = []
    _blocks(body if body is not None else root, nodes)
    return [node for node in nodes if _has_content(node)]


def _blocks(element: etree._Element, out: list[Node]) -> None:
    """The nodes of ``element``'s content: its text and inline children as paragraphs,
    its block children each as what it is."""
    runs: list[Run] = []

    def flush() -> None:
        text_runs = _tidy(runs)
        if text_runs:
            out.append(Node("paragraph", text_runs))
        runs.clear()

    _text_run(element.text, runs)
    for child in element:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag in _BLOCKS:
            flush()
            _block(child, out)
        elif tag == "br":
            flush()
        elif tag:
            runs.extend(_inline(child))
        _text_run(child.tail, runs)
    flush()


def _block(element: etree._Element, out: list[Node]) -> None:
    tag = element.tag
    if tag in _HEADINGS:
        runs = _tidy(_inline_content(element))
        if runs:
            out.append(Node("heading", runs, level=_HEADINGS[tag]))
    elif tag in ("ul", "ol"):
        items = []
        for child in element:
            if child.tag == "li":
                item: list[Node] = []
                _blocks(child, item)
                if item:
                    items.append(item)
        if items:
            out.append(Node("list", ordered=tag == "ol", items=items))
    elif tag == "table":
        rows = []
        head = False
        for row in element.iter("tr"):
            cells = [_tidy(_inline_content(cell)) for cell in row if cell.tag in ("td", "th")]
            if any(cells):
                if not rows:
                    head = all(cell.tag == "th" for cell in row if cell.tag in ("td", "th"))
                rows.append(cells)
        if rows:
            out.append(Node("table", rows=rows, head=head))
    elif tag == "blockquote":
        children: list[Node] = []
        _blocks(element, children)
        if children:
            out.append(Node("quote", children=children))
    elif tag == "pre":
        code = unicodedata.normalize("NFC", "".join(element.itertext()).strip("\n"))
        if code.strip():
            out.append(Node("code", code=code))
    elif tag == "hr":
        return
    else:
        _blocks(element, out)


def _text_run(text: str | None, runs: list[Run]) -> None:
    if text:
        runs.append(Run("text", text))


def _inline_content(element: etree._Element) -> list[Run]:
    runs: list[Run] = []
    _text_run(element.text, runs)
    for child in element:
        if isinstance(child.tag, str):
            runs.extend(_inline(child))
        _text_run(child.tail, runs)
    return runs


def _inline(element: etree._Element) -> list[Run]:
    """An inline element as runs (block elements inside it read as text)."""
    tag = element.tag
    if tag == "img":
        return [Run("image", element.get("alt") or "", element.get("src") or "")]
    text = _SPACES.sub(" ", "".join(element.itertext()))
    if not text.strip():
        return [Run("text", " ")] if text else []
    if tag == "a" and element.get("href"):
        return [Run("link", text, element.get("href") or "")]
    for kind, tags in (("bold", _BOLD), ("italic", _ITALIC), ("code", _CODE)):
        if tag in tags:
            return [Run(kind, text)]
    return _inline_content(element)


def _tidy(runs: list[Run]) -> list[Run]:
    """Runs with their spaces collapsed, soft hyphens left out and their text in Unicode's
    form C (as the page text, :mod:`denoise.blocks`), the ends trimmed; none when there
    is no text."""
    out = [Run(r.kind, unicodedata.normalize("NFC", _SPACES.sub(" ", r.text.replace(
        "\u00ad", ""))), r.target) for r in runs if r.text or r.kind == "image"]
    while out and out[0].kind == "text" and not out[0].text.strip():
        out.pop(0)
    while out and out[-1].kind == "text" and not out[-1].text.strip():
        out.pop()
    if out and out[0].kind == "text":
        out[0] = Run("text", out[0].text.lstrip())
    if out and out[-1].kind == "text":
        out[-1] = Run("text", out[-1].text.rstrip())
    return out if any(r.text.strip() or r.kind == "image" for r in out) else []


def _has_content(node: Node) -> bool:
    return bool(node.runs or node.items or node.rows or node.children or node.code)


# -- Markdown -------------------------------------------------------------------------
def to_markdown(nodes: list[Node], *, links: bool = False, images: bool = False) -> str:
    """CommonMark of the nodes (tables as GitHub's pipe tables)."""
    return "\n\n".join(_md_node(node, links, images) for node in nodes
                       if _md_node(node, links, images)).strip()


def _md_runs(runs: list[Run], links: bool, images: bool) -> str:
    parts = []
    for run in runs:
        text = run.text
        if run.kind == "bold" and text.strip():
            parts.append(f"**{text.strip()}**")
        elif run.kind == "italic" and text.strip():
            parts.append(f"*{text.strip()}*")
        elif run.kind == "code" and text.strip():
            parts.append(f"`{text.strip()}`")
        elif run.kind == "link":
            parts.append(f"[{text.strip()}]({run.target})" if links else text)
        elif run.kind == "image":
            parts.append(f"![{text}]({run.target})" if images else "")
        else:
            parts.append(text)
    return _SPACES.sub(" ", "".join(parts)).strip()


def _md_node(node: Node, links: bool, images: bool, indent: str = "") -> str:
    if node.kind == "heading":
        return f"{'#' * node.level} {_md_runs(node.runs, links, images)}"
    if node.kind == "paragraph":
        return _md_runs(node.runs, links, images)
    if node.kind == "code":
        return f"```\n{node.code}\n```"
    if node.kind == "quote":
        inner = "\n\n".join(_md_node(child, links, images) for child in node.children)
        return "\n".join(f"> {line}" if line else ">" for line in inner.splitlines())
    if node.kind == "list":
        lines = []
        for number, item in enumerate(node.items, 1):
            marker = f"{number}. " if node.ordered else "- "
            first, *rest = item
            lines.append(f"{indent}{marker}{_md_node(first, links, images, indent + '  ')}")
            for child in rest:
                text = _md_node(child, links, images, indent + "  ")
                lines.append(text if child.kind == "list" else f"{indent}  {text}")
        return "\n".join(lines)
    if node.kind == "table":
        width = max(len(row) for row in node.rows)
        cells = [[_md_runs(cell, links, images).replace("|", "\\|") for cell in row]
                 + [""] * (width - len(row)) for row in node.rows]
        head, body = (cells[0], cells[1:]) if node.head else ([""] * width, cells)
        lines = [f"| {' | '.join(head)} |", f"|{'|'.join(['---'] * width)}|"]
        lines += [f"| {' | '.join(row)} |" for row in body]
        return "\n".join(lines)
    return ""


# -- XML ------------------------------------------------------------------------------
def to_xml(nodes: list[Node], *, links: bool = False, images: bool = False,
           attributes: dict[str, str] | None = None) -> str:
    """An XML document, ``<doc>`` (with ``attributes``: the page's metadata) holding a
    ``<main>`` of the nodes."""
    attrs = "".join(f' {name}="{escape(value, {chr(34): "&quot;"})}"'
                    for name, value in (attributes or {}).items() if value)
    body = "".join(_xml_node(node, links, images) for node in nodes)
    return f"<doc{attrs}><main>{body}</main></doc>"


def _xml_runs(runs: list[Run], links: bool, images: bool) -> str:
    parts = []
    for run in runs:
        text = escape(run.text)
        if run.kind == "bold":
            parts.append(f'<hi rend="#b">{text}</hi>')
        elif run.kind == "italic":
            parts.append(f'<hi rend="#i">{text}</hi>')
        elif run.kind == "code":
            parts.append(f"<code>{text}</code>")
        elif run.kind == "link" and links:
            parts.append(f'<ref target="{escape(run.target, {chr(34): "&quot;"})}">{text}</ref>')
        elif run.kind == "image":
            if images:
                src = escape(run.target, {chr(34): "&quot;"})
                alt = escape(run.text, {chr(34): "&quot;"})
                parts.append(f'<graphic src="{src}" alt="{alt}"/>')
        else:
            parts.append(text)
    return "".join(parts)


def _xml_node(node: Node, links: bool, images: bool) -> str:
    if node.kind == "heading":
        return f'<head rend="h{node.level}">{_xml_runs(node.runs, links, images)}</head>'
    if node.kind == "paragraph":
        return f"<p>{_xml_runs(node.runs, links, images)}</p>"
    if node.kind == "code":
        return f"<code>{escape(node.code)}</code>"
    if node.kind == "quote":
        return f"<quote>{''.join(_xml_node(c, links, images) for c in node.children)}</quote>"
    if node.kind == "list":
        kind = "ordered" if node.ordered else "unordered"
        items = "".join(f"<item>{''.join(_xml_node(c, links, images) for c in item)}</item>"
                        for item in node.items)
        return f'<list rend="{kind}">{items}</list>'
    if node.kind == "table":
        rows = []
        for number, row in enumerate(node.rows):
            role = ' role="head"' if node.head and number == 0 else ""
            cells = "".join(f"<cell{role}>{_xml_runs(cell, links, images)}</cell>"
                            for cell in row)
            rows.append(f"<row>{cells}</row>")
        return f"<table>{''.join(rows)}</table>"
    return ""
