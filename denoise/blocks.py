"""Blocks: the segments of a page that template detectors label.

A page is parsed once and walked once (:func:`index_dom`); every segmentation is
then a selection over that walk, so switching scheme costs no second parse.

Text model. The walk collects the visible text of the page as *chunks* (each text
node and tail, whitespace-collapsed, empty ones dropped) in document order; every
element covers a contiguous range of chunks, and so does every block
(``Block.span``). A block's text is its chunks joined by one space. Joining with a
space, rather than nothing, keeps words of adjacent blocks apart (``<li>a</li><li>b</li>``
gives ``a b``) at the price of splitting the rare word broken by inline markup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
from lxml import etree

from denoise.html import parse_html
from denoise.page import Page

#: Kołcz & Yih 4.1: tags "typically rendered in the form of a visual block".
BLOCK_TAGS = frozenset(
    "blockquote dd div dl dt h1 h2 h3 h4 h5 h6 li ol pre small table td th tr ul".split()
)
#: Chen, Ye & Li 3.1: layout tags that bound blocks, TD and TR omitted. Their list is
#: open-ended ("e.g. TABLE, TD, TR, P, UL"); we add the other block-level containers
#: of HTML (and its HTML5 sectioning elements) so modern pages segment as well.
LAYOUT_TAGS = frozenset(
    "table p ul ol dl div form h1 h2 h3 h4 h5 h6 blockquote pre center section article "
    "nav header footer aside main body".split()
)
#: Ma et al. 3: text chunks lie between the closest table tags; image maps also bound
#: them. TD/TR are not delimiters: the paper rejects them as too small a unit.
CHUNK_DELIMITER_TAGS = frozenset({"table", "map"})
#: Bar-Yossef & Rajagopalan's pagelets: no child holds this many links.
PAGELET_LINKS = 3
#: Attributes that describe an element's look (Chen's "HTML elements' attributes").
STYLE_ATTRIBUTES = ("id", "class", "align", "bgcolor", "width", "height", "border", "style")


@dataclass(frozen=True, slots=True)
class DomIndex:
    """One walk over a parsed page: per element (preorder) and per text chunk arrays."""

    root: etree._Element
    elements: list[etree._Element]
    tags: list[str]
    parents: np.ndarray  # int32, -1 for the root
    depths: np.ndarray  # int32, root = 0
    subtree_ends: np.ndarray  # int32, preorder index after the last descendant
    chunk_starts: np.ndarray  # int32, first chunk inside the element
    chunk_ends: np.ndarray  # int32, one past the last chunk inside the element
    chunks: list[str]
    chunk_in_link: np.ndarray  # bool, chunk is anchor text
    chunk_owner: np.ndarray  # int32, innermost element holding the chunk


def index_dom(root: etree._Element) -> DomIndex:
    """Walk the tree once and gather everything the segmentations need."""
    elements: list[etree._Element] = []
    tags: list[str] = []
    parents: list[int] = []
    depths: list[int] = []
    subtree_ends: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    chunks: list[str] = []
    in_link: list[bool] = []
    owner: list[int] = []
    stack: list[int] = []
    links_open = 0
    for event, element in etree.iterwalk(root, events=("start", "end")):
        tag = element.tag
        if not isinstance(tag, str):  # entities and other non-elements
            continue
        if event == "start":
            index = len(elements)
            elements.append(element)
            tags.append(tag)
            parents.append(stack[-1] if stack else -1)
            depths.append(len(stack))
            subtree_ends.append(0)
            ends.append(0)
            starts.append(len(chunks))
            stack.append(index)
            if tag == "a":
                links_open += 1
            text = element.text
            if text and not text.isspace():
                chunks.append(" ".join(text.split()))
                in_link.append(links_open > 0)
                owner.append(index)
        else:
            index = stack.pop()
            ends[index] = len(chunks)
            subtree_ends[index] = len(elements)
            if tag == "a":
                links_open -= 1
            tail = element.tail
            if tail and stack and not tail.isspace():
                chunks.append(" ".join(tail.split()))
                in_link.append(links_open > 0)
                owner.append(stack[-1])
    return DomIndex(
        root=root,
        elements=elements,
        tags=tags,
        parents=np.array(parents, dtype=np.int32),
        depths=np.array(depths, dtype=np.int32),
        subtree_ends=np.array(subtree_ends, dtype=np.int32),
        chunk_starts=np.array(starts, dtype=np.int32),
        chunk_ends=np.array(ends, dtype=np.int32),
        chunks=chunks,
        chunk_in_link=np.array(in_link, dtype=bool),
        chunk_owner=np.array(owner, dtype=np.int32),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Block:
    """One block of a page: a DOM element (or, for table chunks, a run of text)."""

    index: int  # position in PageBlocks.blocks (document order)
    parent: int  # index of the enclosing block, -1 when none
    path: str  # XPath of the element, e.g. /html/body/div[2]/ul
    tag: str
    text: str  # visible text, trimmed and whitespace-collapsed
    link_text: str  # the part of ``text`` inside <a> elements
    line: int  # source line of the element (0 when unknown)
    depth: int  # DOM depth of the element, <html> = 0
    span: tuple[int, int]  # range of the page's chunks the block covers
    attrs: str = ""  # the element's look-describing attributes, ``name=value`` joined by ``;``


@dataclass(frozen=True, slots=True, kw_only=True)
class PageBlocks:
    """A page cut into blocks: what every detector consumes and labels."""

    page: Page
    scheme: str
    blocks: tuple[Block, ...]
    chunks: tuple[str, ...]  # the page's visible text pieces, in document order
    chunk_in_link: np.ndarray  # bool per chunk
    chunk_block: np.ndarray  # int32 per chunk: innermost block covering it, -1 when none

    @property
    def parents(self) -> np.ndarray:
        """Parent block index per block, as an int32 array."""
        return np.fromiter((b.parent for b in self.blocks), dtype=np.int32, count=len(self.blocks))

    def chunk_chars(self) -> np.ndarray:
        """Characters per chunk (int64), the unit of every text-share measure."""
        return np.fromiter(map(len, self.chunks), dtype=np.int64, count=len(self.chunks))

    def covered(self, selected: np.ndarray) -> np.ndarray:
        """Chunks inside any selected block (``selected`` is a bool mask over blocks)."""
        marks = np.zeros(len(self.chunks) + 1, dtype=np.int32)
        for block in (b for b, keep in zip(self.blocks, selected, strict=True) if keep):
            start, end = block.span
            marks[start] += 1
            marks[end] -= 1
        return np.cumsum(marks[:-1]) > 0


def _style_attrs(element: etree._Element) -> str:
    attrib = element.attrib
    if not attrib:
        return ""
    return ";".join(f"{name}={attrib[name]}" for name in STYLE_ATTRIBUTES if name in attrib)


def _element_blocks(dom: DomIndex, selected: np.ndarray) -> tuple[list[Block], np.ndarray]:
    """Blocks for the selected elements, and per element its nearest selected ancestor-or-self.

    A block's parent is the block of its nearest selected proper ancestor.
    """
    block_of = np.where(selected, np.cumsum(selected) - 1, -1).astype(np.int32)
    nearest = _nearest_selected(dom.parents.tolist(), block_of.tolist())
    tree = dom.root.getroottree()
    chunks = dom.chunks
    in_link = dom.chunk_in_link
    blocks: list[Block] = []
    for element_index in np.flatnonzero(selected).tolist():
        parent_element = int(dom.parents[element_index])
        start, end = int(dom.chunk_starts[element_index]), int(dom.chunk_ends[element_index])
        element = dom.elements[element_index]
        link_text = ""
        if in_link[start:end].any():
            link_text = " ".join(
                c for c, link in zip(chunks[start:end], in_link[start:end], strict=True) if link
            )
        blocks.append(Block(
            index=len(blocks),
            parent=nearest[parent_element] if parent_element >= 0 else -1,
            path=tree.getpath(element),
            tag=dom.tags[element_index],
            text=" ".join(chunks[start:end]),
            link_text=link_text,
            line=element.sourceline or 0,
            depth=int(dom.depths[element_index]),
            span=(start, end),
            attrs=_style_attrs(element),
        ))
    return blocks, np.array(nearest, dtype=np.int32)


def _nearest_selected(parents: list[int], block_of: list[int]) -> list[int]:
    """Per element, the block of its nearest selected ancestor-or-self (-1 when none)."""
    nearest = block_of[:]
    for index, parent in enumerate(parents):  # preorder: a parent comes before its children
        if nearest[index] < 0 and parent >= 0:
            nearest[index] = nearest[parent]
    return nearest


def _by_tags(tags: frozenset[str]) -> Callable[[DomIndex], np.ndarray]:
    def select(dom: DomIndex) -> np.ndarray:
        return np.fromiter((t in tags for t in dom.tags), dtype=bool, count=len(dom.tags))

    return select


def _every_element(dom: DomIndex) -> np.ndarray:
    return np.ones(len(dom.elements), dtype=bool)


def _pagelets(dom: DomIndex) -> np.ndarray:
    """Bar-Yossef & Rajagopalan: topmost elements none of whose children holds k links."""
    n = len(dom.elements)
    is_link = np.fromiter((t == "a" for t in dom.tags), dtype=np.int64, count=n)
    before = np.concatenate(([0], np.cumsum(is_link)))
    links = before[dom.subtree_ends] - before[np.arange(n)]
    heavy_child = np.zeros(n, dtype=bool)
    parents = dom.parents
    has_parent = parents >= 0
    heavy = (links >= PAGELET_LINKS) & has_parent
    heavy_child[parents[heavy]] = True
    candidate = ~heavy_child
    selected = np.zeros(n, dtype=bool)
    covered = np.zeros(n, dtype=bool)
    for index in range(n):
        parent = parents[index]
        if parent >= 0 and (covered[parent] or selected[parent]):
            covered[index] = True
        elif candidate[index]:
            selected[index] = True
    return selected


SELECTORS: dict[str, Callable[[DomIndex], np.ndarray]] = {
    "blocks": _by_tags(BLOCK_TAGS),
    "nodes": _every_element,
    "layout": _by_tags(LAYOUT_TAGS),
    "pagelets": _pagelets,
}
#: The segmentations, by name: Kołcz & Yih's block tags, every element node
#: (Chakrabarti et al.), Chen et al.'s layout blocks, Bar-Yossef's pagelets, and Ma et
#: al.'s table text chunks.
SCHEMES = (*SELECTORS, "table-chunks")


def _table_chunks(dom: DomIndex) -> tuple[list[Block], np.ndarray]:
    """Ma et al.: the text between consecutive table / image-map tags, one block a run."""
    tree = dom.root.getroottree()
    n_chunks = len(dom.chunks)
    delimiters = [i for i, tag in enumerate(dom.tags) if tag in CHUNK_DELIMITER_TAGS]
    bounds = sorted({0, n_chunks, *dom.chunk_starts[delimiters].tolist(),
                     *dom.chunk_ends[delimiters].tolist()})
    enclosing = np.full(len(dom.elements), -1, dtype=np.int32)  # innermost delimiter ancestor
    for index in range(len(dom.elements)):
        parent = dom.parents[index]
        enclosing[index] = index if dom.tags[index] in CHUNK_DELIMITER_TAGS else (
            enclosing[parent] if parent >= 0 else -1)
    blocks: list[Block] = []
    chunk_block = np.full(n_chunks, -1, dtype=np.int32)
    for start, end in pairwise(bounds):
        if start >= end:
            continue
        owner = int(dom.chunk_owner[start])
        container = int(enclosing[owner])
        anchor = dom.elements[container if container >= 0 else 0]
        texts = dom.chunks[start:end]
        links = dom.chunk_in_link[start:end]
        index = len(blocks)
        chunk_block[start:end] = index
        blocks.append(Block(
            index=index,
            parent=-1,
            path=f"{tree.getpath(anchor)}#{start}",
            tag=dom.tags[container] if container >= 0 else "#text",
            text=" ".join(texts),
            link_text=" ".join(t for t, link in zip(texts, links, strict=True) if link),
            line=dom.elements[owner].sourceline or 0,
            depth=int(dom.depths[owner]),
            span=(start, end),
        ))
    return blocks, chunk_block


def segment_dom(page: Page, dom: DomIndex, scheme: str = "blocks") -> PageBlocks:
    """Cut an indexed page into the blocks of ``scheme`` (one of :data:`SCHEMES`)."""
    if scheme == "table-chunks":
        blocks, chunk_block = _table_chunks(dom)
    else:
        try:
            select = SELECTORS[scheme]
        except KeyError:
            raise ValueError(f"unknown segmentation {scheme!r}; choose from {SCHEMES}") from None
        blocks, nearest = _element_blocks(dom, select(dom))
        chunk_block = nearest[dom.chunk_owner] if len(dom.chunks) else np.zeros(0, np.int32)
    return PageBlocks(
        page=page,
        scheme=scheme,
        blocks=tuple(blocks),
        chunks=tuple(dom.chunks),
        chunk_in_link=dom.chunk_in_link,
        chunk_block=chunk_block.astype(np.int32, copy=False),
    )


def segment(page: Page, scheme: str = "blocks") -> PageBlocks:
    """Parse ``page`` once and cut it into the blocks of ``scheme``."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown segmentation {scheme!r}; choose from {SCHEMES}")
    return segment_dom(page, index_dom(parse_html(page.html, page.id)), scheme)
