"""Blocks: the segments of a page that template detectors label.

A page is parsed once and walked once (:func:`index_dom`); every segmentation is
then a selection over that walk, so switching scheme costs no second parse.

Text model. The walk collects the visible text of the page as *chunks* (each text
node and tail, whitespace-collapsed, empty ones dropped) in document order; every
element covers a contiguous range of chunks, and so does every block
(``Block.span``). The page text is the chunks in order, each apart from the one before
by one space or by nothing, and a block's text is its slice of it.

Two neighbouring chunks are *glued* (nothing between them) when the page shows them
as one run of text, and one space apart otherwise. They are glued when

(a) every element that starts or ends between them is one of :data:`INLINE_TAGS`
    (phrasing markup: ``<a>``, ``<b>``, ``<i>``, ``<span>``, ``<sup>``...);
(b) their source has no whitespace where they meet: the first chunk's text does not
    end with whitespace, the next one's does not begin with it, and no
    whitespace-only text lies between;
(c) no link ends between them for another to begin (``<a>Home</a><a>News</a>``); and
(d) it is not an ASCII lower-case letter or digit followed by an ASCII capital.

So markup inside a word keeps the word whole (``re<i>sea</i>rchers`` is
``researchers``, a drop cap ``<span>W</span>hale`` is ``Whale``, ``Apple</a>'s`` is
``Apple's``, ``km<sup>2</sup>`` is ``km2``, ``[<a>Reply</a>]`` is ``[Reply]``), while the
words of separate boxes stay apart: every other element breaks, ``<br>``, ``<img>``,
block and table elements, form controls and unknown tags alike (``<li>a</li><li>b</li>``
is ``a b``, and so is ``a<br>b``). Chunk boundaries and owners do not depend on these
rules, only what the text puts between chunks.

Soft hyphens (U+00AD, ``&shy;``) are not text: a browser may break a long word there,
and shows a hyphen only at the end of a line. Pages that hyphenate their text put one
between every syllable (``Mit&shy;tel&shy;al&shy;ter``), and read as characters they
split the word in the page text, its tokens and shingles. Both walks leave them out.

Unicode. The text is in normalization form C (:func:`normalize_text`): one character
may be written as one code point or as a letter and combining marks (``é`` as U+00E9 or
``e`` + U+0301; the Bengali ``য়`` as U+09DF or U+09AF U+09BC), which look the same and
mean the same, but compare, hash and tokenize apart. Pages mix both, and so do the texts
they are compared with (a query, a gold text, another site's copy of the story); NFC is
what web text is expected in (W3C's character model), and what trafilatura returns.
Each chunk is normalized alone, so a combining mark that opens a chunk glued to the one
before (``caf<b>e</b>&#x301;``) stays apart from its letter: rare, and it keeps every
chunk's place.

Why (c) and (d): a style sheet may set inline elements apart (``display: block``,
margins), which the walk cannot see. On the first 300 pages of content-dev's dragnet
set, (a) and (b) glue 7,666 of 110,000 chunk junctions, nearly all of them
punctuation against a word (``Apple's``, ``[Reply]``, ``(Score:2)``, ``2012,``); of
the few hundred between two letters or digits, the 257 of a lower-case letter or
digit before a capital were all but one styled boxes (``About<span>How I got
here</span>``, ``<span>01</span><a>Phelps wins...``, ``408<span>Facebook Likes``),
and (d) keeps them apart at the price of a word like ``H<sub>2</sub>O`` (``H2 O``);
(c) keeps 218 more apart, menus and tag lists of links. What is left glued wrongly
(``99<span>comments``) looks like the right glue (``1<sup>st</sup>``) to the walk.

``<small>`` is phrasing markup in HTML but breaks here: it is one of Kołcz & Yih's
:data:`BLOCK_TAGS`, so keeping it a break keeps every block boundary of the
``blocks``, ``regions`` and ``layout`` schemes a break of the text too (a block's text
never ends inside a glued word, and glued chunks always share such a block); where it
matters it is a subtitle or a byline beside a heading (``<h1>Title<small>sub</small>``),
rarely part of a word.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property, partial

import numpy as np
from lxml import etree

from denoise.arguments import expect_page
from denoise.arrays import sorted_unique
from denoise.html import parse_html
from denoise.page import Page
from denoise.texthash import ChunkIndex, index_chunks
from denoise.treeops import fill_down

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
#: The regions a page-level detector scores: Kołcz & Yih's block tags, Chen's layout
#: tags, and the other elements that hold a page's prose or a site's furniture
#: (paragraphs, HTML5 sections, forms). ``body`` is one, so every visible text lies
#: in some region, and ``<p>`` is one, so an article made of bare paragraphs has
#: blocks to keep.
REGION_TAGS = BLOCK_TAGS | LAYOUT_TAGS | frozenset(
    "p address figure figcaption menu fieldset caption".split()
)
#: Elements that do not break the text: two chunks with only these starting or ending
#: between them, and no whitespace, are glued (see the module notes). HTML's phrasing
#: elements that mark up a run of text; ``small`` (a block tag), form controls, images
#: and embedded content are left out. A ruby's annotations (``rt``, ``rp``, ``rtc``) are
#: in: the parser empties them (:data:`denoise.html.RUBY_ANNOTATIONS`), and the
#: characters they stood between are one word (``<ruby>子<rt>こ</rt></ruby>ども`` is
#: ``子ども``).
INLINE_TAGS = frozenset(
    "a abbr acronym b bdi bdo big cite code data del dfn em font i ins kbd label mark nobr "
    "q rb rp rt rtc ruby s samp span strike strong sub sup time tt u var wbr".split()
)
#: Two chunks otherwise glued stay apart between these (ASCII) characters, the second a
#: capital: ``About<span>How I got here</span>``, ``01</span><a>Phelps wins``.
_LOWER_OR_DIGIT = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_CAPITALS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
#: Ma et al. 3: text chunks lie between the closest table tags; image maps also bound
#: them. TD/TR are not delimiters: the paper rejects them as too small a unit.
CHUNK_DELIMITER_TAGS = frozenset({"table", "map"})
#: Bar-Yossef & Rajagopalan's pagelets: no child holds this many links.
PAGELET_LINKS = 3
#: Attributes that describe an element's look (Chen's "HTML elements' attributes").
STYLE_ATTRIBUTES = ("id", "class", "align", "bgcolor", "width", "height", "border", "style")


@dataclass(frozen=True)
class DomIndex:
    """One walk over a parsed page: per element (preorder) and per text chunk arrays."""

    root: etree._Element | None  # None once let go (:meth:`without_tree`)
    tag_ids: np.ndarray  # int32 per element, an index into ``vocab``
    vocab: list[str]  # the page's tag names
    parents: np.ndarray  # int32, -1 for the root
    depths: np.ndarray  # int32, root = 0
    subtree_ends: np.ndarray  # int32, preorder index after the last descendant
    chunk_starts: np.ndarray  # int32, first chunk inside the element
    chunk_ends: np.ndarray  # int32, one past the last chunk inside the element
    lines: np.ndarray  # int32, source line of the element (0 when unknown, at most 65535)
    text: str  # the visible text: whitespace-collapsed chunks, glued or one space apart
    chunk_first: np.ndarray  # int64, offset of each chunk in ``text``
    chunk_last: np.ndarray  # int64, offset one past each chunk's end
    chunk_in_link: np.ndarray  # bool, chunk is anchor text
    chunk_owner: np.ndarray  # int32, innermost element holding the chunk
    chunk_index: ChunkIndex | None = None  # made by the compiled walk, else on demand

    @cached_property
    def tags(self) -> list[str]:
        """Tag name per element."""
        vocab = self.vocab
        return [vocab[i] for i in self.tag_ids.tolist()]

    @cached_property
    def chunks(self) -> list[str]:
        """The visible text pieces, in document order."""
        text = self.text
        return [text[a:b] for a, b in zip(self.chunk_first.tolist(), self.chunk_last.tolist(),
                                          strict=True)]

    def has_tag(self, names: frozenset[str]) -> np.ndarray:
        """Bool per element: its tag is one of ``names``."""
        return tags_among(self.vocab, self.tag_ids, names)

    def elements(self) -> list[etree._Element]:
        """The lxml elements in walk order (made on demand: most callers need none)."""
        if self.root is None:
            raise ValueError("this page's parsed tree was let go (DomIndex.without_tree)")
        return list(self.root.iter(etree.Element))

    def without_tree(self) -> DomIndex:
        """This index without the parsed tree, which is freed then if nothing else holds
        it: the arrays are what every segmentation but ``layout`` reads. Freeing a tree
        walks all its nodes, so it is done right after the walks that read them, while
        they are still in the caches, rather than once the page is scored."""
        return replace(self, root=None)


def _walk_python(root: etree._Element) -> tuple:
    """The walk in Python: what ``denoise._compiled.walk`` computes, where it is not built."""
    vocab: dict[str, int] = {}
    tag_ids: list[int] = []
    parents: list[int] = []
    depths: list[int] = []
    subtree_ends: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    lines: list[int] = []
    chunks: list[str] = []
    spaced: list[bool] = []  # per chunk: one space before it in the text (else glued)
    in_link: list[bool] = []
    owner: list[int] = []
    stack: list[int] = []
    links_open = 0
    # since the last chunk: a break (a non-inline element, whitespace), a link's end
    apart, link_ended = False, False
    inline = INLINE_TAGS
    for event, element in etree.iterwalk(root, events=("start", "end")):
        tag = element.tag
        if not isinstance(tag, str):  # entities and other non-elements
            continue
        if event == "start":
            index = len(tag_ids)
            tag_ids.append(vocab.setdefault(tag, len(vocab)))
            parents.append(stack[-1] if stack else -1)
            depths.append(len(stack))
            subtree_ends.append(0)
            ends.append(0)
            starts.append(len(chunks))
            lines.append(min(element.sourceline or 0, 65535))
            stack.append(index)
            if tag == "a":
                links_open += 1
                apart = apart or link_ended  # a link right after a link
            if tag not in inline:
                apart = True
            text = element.text
            holder = index
        else:
            index = stack.pop()
            ends[index] = len(chunks)
            subtree_ends[index] = len(tag_ids)
            if tag == "a":
                links_open -= 1
                link_ended = True
            if tag not in inline:
                apart = True
            text = element.tail if stack else None
            holder = stack[-1] if stack else -1
        if text and "\u00ad" in text:
            text = text.replace("\u00ad", "")
        if not text:
            continue
        words = text.split()
        if not words:
            apart = True
            continue
        spaced.append(apart or text[0].isspace() or (
            bool(chunks) and words[0][0] in _CAPITALS and chunks[-1][-1] in _LOWER_OR_DIGIT))
        chunks.append(" ".join(words))
        in_link.append(links_open > 0)
        owner.append(holder)
        apart, link_ended = text[-1].isspace(), False
    lengths = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
    gaps = np.array(spaced, dtype=np.int64)
    if len(gaps):
        gaps[0] = 0  # nothing before the first chunk
    last = np.cumsum(lengths + gaps)
    text = "".join([" " + chunk if space else chunk
                    for chunk, space in zip(chunks, gaps.tolist(), strict=True)])
    as32 = partial(np.array, dtype=np.int32)
    return (as32(tag_ids), list(vocab), as32(parents), as32(depths), as32(subtree_ends),
            as32(starts), as32(ends), as32(lines), text, last - lengths, last,
            np.array(in_link, dtype=bool), as32(owner), None)


try:
    from denoise import _compiled
    from denoise._compiled import walk as _walk_compiled
except ImportError:  # the compiled walk is optional
    _compiled = _walk_compiled = None

#: Which walk this installation runs: "compiled" or "python".
WALK = "compiled" if _walk_compiled is not None else "python"


def tags_among(vocab: list[str], tag_ids: np.ndarray, names: frozenset[str]) -> np.ndarray:
    """Bool per ``tag_ids`` entry: its tag (in ``vocab``) is one of ``names``; each name
    of the vocabulary is looked up once."""
    wanted = np.fromiter((name in names for name in vocab), dtype=bool, count=len(vocab))
    return wanted[tag_ids]


def index_dom(root: etree._Element, *, compiled: bool | None = None,
              text_index: bool = True) -> DomIndex:
    """Walk the tree once and gather everything the segmentations need.

    ``root`` is a tree from :func:`denoise.html.parse_html`, which has no comments or
    processing instructions (the two walks would cut text around them differently).
    ``compiled`` forces the compiled walk (True) or the Python one (False); by
    default the compiled one runs where it was built. Both give the same arrays.
    ``text_index=False`` spares the compiled walk the chunk index of block digests and
    word counts (a loop over every byte of the text) for a caller that reads the text
    alone; :attr:`PageBlocks.text_index` makes it on demand then, as after the Python walk.
    """
    use_compiled = _walk_compiled is not None if compiled is None else compiled
    if use_compiled and _walk_compiled is None:
        raise RuntimeError("the compiled walk (denoise._compiled) is not built here")
    if use_compiled:
        *parts, chunk_arrays = _walk_compiled(root, text_index, INLINE_TAGS)
    else:
        *parts, chunk_arrays = _walk_python(root)
    dom = DomIndex(root, *parts, ChunkIndex(*chunk_arrays) if chunk_arrays else None)
    return normalize_text(dom)


def normalize_text(dom: DomIndex) -> DomIndex:
    """``dom`` with each chunk of its text in Unicode normalization form C (module notes),
    normalized alone so that every chunk keeps its place; the same ``dom`` when its text
    is in NFC already (a check of the text's characters, most pages' case: ASCII text
    costs nothing, and the check is some 0.3% of the main-content time of a page in
    German). Its chunk index, made from the walk's bytes, is then made again on demand."""
    text = dom.text
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return dom
    pieces: list[str] = []
    first: list[int] = []
    last: list[int] = []
    done = length = 0  # characters of ``text`` read, and of the new text made
    for start, end in zip(dom.chunk_first.tolist(), dom.chunk_last.tolist(), strict=True):
        chunk = unicodedata.normalize("NFC", text[start:end])
        pieces += (text[done:start], chunk)  # what lies between chunks: a space or nothing
        length += start - done
        first.append(length)
        length += len(chunk)
        last.append(length)
        done = end
    pieces.append(text[done:])
    return replace(dom, text="".join(pieces), chunk_first=np.array(first, dtype=np.int64),
                   chunk_last=np.array(last, dtype=np.int64), chunk_index=None)


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


@dataclass(frozen=True, slots=True)
class DomShape:
    """Tags and parents of every element: enough to name any element by its XPath."""

    tag_ids: np.ndarray
    vocab: list[str]
    parents: np.ndarray

    def paths(self, elements: np.ndarray) -> list[str]:
        """XPaths of the given elements, as lxml's ``getpath`` writes them for HTML."""
        tags = [self.vocab[i] for i in self.tag_ids.tolist()]
        parents = self.parents.tolist()
        rank = [1] * len(tags)
        seen: dict[tuple[int, str], int] = {}
        for index, (tag, parent) in enumerate(zip(tags, parents, strict=True)):
            key = (parent, tag)
            rank[index] = seen.get(key, 0) + 1
            seen[key] = rank[index]
        memo: dict[int, str] = {-1: ""}

        def path(index: int) -> str:
            # Climb to the nearest ancestor with a known path, then fill back down: a
            # loop, not recursion, so a page 2,000 elements deep has paths too.
            chain = []
            while index not in memo:
                chain.append(index)
                index = parents[index]
            for node in reversed(chain):
                step = tags[node]
                if seen[(parents[node], step)] > 1:
                    step = f"{step}[{rank[node]}]"
                memo[node] = f"{memo[parents[node]]}/{step}"
            return memo[chain[0]] if chain else memo[index]

        return [path(i) if i >= 0 else "" for i in elements.tolist()]


@dataclass(frozen=True, kw_only=True)
class PageBlocks:
    """A page cut into blocks: what every detector consumes and labels.

    Per-block numbers live in arrays aligned with the blocks; :attr:`blocks` builds
    :class:`Block` objects on first use, so a detector that needs only the arrays
    and :meth:`block_text` never pays for them.
    """

    page: Page
    scheme: str
    text: str  # the page's visible text: its chunks, glued or one space apart
    chunk_starts: np.ndarray  # int64, offset of each chunk in ``text``
    chunk_ends: np.ndarray  # int64
    chunk_in_link: np.ndarray  # bool per chunk
    chunk_block: np.ndarray  # int32 per chunk: innermost block covering it, -1 when none
    parents: np.ndarray  # int32 per block: the enclosing block, -1 when none
    spans: np.ndarray  # int32 (blocks, 2): range of chunks each block covers
    tag_ids: np.ndarray  # int32 per block, an index into ``vocab``
    vocab: list[str]  # the page's tag names
    depths: np.ndarray  # int32 per block
    lines: np.ndarray  # int32 per block
    elements: np.ndarray  # int32 per block: its element in the walk, -1 for text runs
    shape: DomShape
    attrs: tuple[str, ...] | None = None  # per block, for the layout scheme
    chunk_index: ChunkIndex | None = None  # made by the compiled walk, else on demand
    #: Arrays a method derived from the blocks and text (a site method's block keys),
    #: named by the method; like cached properties, but they travel with the page, from
    #: a worker and through a spill file, so they are never computed twice. A copy whose
    #: text or blocks differ must not keep them, but for :meth:`text_shares_only`, whose
    #: reduced page stands for this one.
    notes: dict[str, np.ndarray] = field(default_factory=dict, compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.tag_ids)

    @cached_property
    def tags(self) -> tuple[str, ...]:
        """Tag name per block."""
        vocab = self.vocab
        return tuple(vocab[i] for i in self.tag_ids.tolist())

    def has_tag(self, names: frozenset[str]) -> np.ndarray:
        """Bool per block: its tag is one of ``names``."""
        return tags_among(self.vocab, self.tag_ids, names)

    @cached_property
    def chunks(self) -> tuple[str, ...]:
        """The page's visible text pieces, in document order."""
        text = self.text
        return tuple(text[a:b] for a, b in zip(self.chunk_starts.tolist(),
                                                self.chunk_ends.tolist(), strict=True))

    @cached_property
    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Start and end offset of each block's text in :attr:`text` (int64; 0, 0 if empty)."""
        if not len(self.chunk_starts):
            zeros = np.zeros(len(self.spans), dtype=np.int64)
            return zeros, zeros
        if _compiled is not None:
            return _compiled.block_bounds(self.spans.astype(np.int32, copy=False),
                                          self.chunk_starts.astype(np.int64, copy=False),
                                          self.chunk_ends.astype(np.int64, copy=False))
        return self.bounds_numpy()

    def bounds_numpy(self) -> tuple[np.ndarray, np.ndarray]:
        """:attr:`bounds` by numpy steps (where the extension is not built; the tests'
        reference)."""
        first, stop = self.spans[:, 0], self.spans[:, 1]
        empty = first >= stop
        if not len(self.chunk_starts):
            zeros = np.zeros(len(first), dtype=np.int64)
            return zeros, zeros
        starts = np.where(empty, 0, self.chunk_starts[np.where(empty, 0, first)])
        ends = np.where(empty, 0, self.chunk_ends[np.where(empty, 0, stop - 1)])
        return starts.astype(np.int64), ends.astype(np.int64)

    @cached_property
    def text_index(self) -> ChunkIndex:
        """The page text indexed for block digests and word counts."""
        if self.chunk_index is not None:
            return self.chunk_index
        return index_chunks(self.text, self.chunk_starts, self.chunk_ends)

    def block_text(self, index: int) -> str:
        """Text of one block, cut from the page text without building the block."""
        starts, ends = self.bounds
        return self.text[starts[index]:ends[index]]

    def block_chars(self) -> np.ndarray:
        """Length of each block's text (int64)."""
        starts, ends = self.bounds
        return ends - starts

    def block_digests(self, kind: int = 0) -> np.ndarray:
        """A 64-bit digest of each block's text (see :mod:`denoise.texthash`)."""
        return self.text_index.digests(self.spans, kind)

    def chunk_chars(self) -> np.ndarray:
        """Characters per chunk (int64), the unit of every text-share measure."""
        return (self.chunk_ends - self.chunk_starts).astype(np.int64)

    def covered(self, selected: np.ndarray) -> np.ndarray:
        """Chunks inside any selected block (``selected`` is a bool mask over blocks)."""
        size = len(self.chunk_starts) + 1
        spans = self.spans[selected]
        marks = (np.bincount(spans[:, 0], minlength=size)
                 - np.bincount(spans[:, 1], minlength=size))
        return np.cumsum(marks[:-1]) > 0

    def text_shares_only(self) -> PageBlocks:
        """The page reduced to its blocks, their notes and how many characters each run
        of text between two block boundaries holds: what labelling by noted keys and the
        text-share measures (:meth:`chunk_chars`, :meth:`covered`, :attr:`chunk_block`)
        read, for a page that waits for the rest of its site when only its site's report
        is wanted (~13 KB instead of ~52 on the dev sites: ``benchmarks/site_hold.py``).
        Note what follows from the text (a site method's keys,
        :func:`denoise.site.base.page_key`'s digest) first.

        Its chunks are those runs (their offsets count characters, not into a text: it
        has none), so every chunk-level sum over blocks is the page's (and
        :meth:`block_chars` counts no spaces between chunks); it has no text, HTML, DOM
        shape or per-chunk link flags, and its per-block depths, lines, elements and
        attributes are gone (empty arrays, so that reading them fails loudly rather
        than finding zeros). Its notes are the page's."""
        offsets, chunk_block, spans = _text_shares(self)
        none = np.zeros(0, dtype=np.int32)
        return PageBlocks(
            page=self.page.without_html(),
            scheme=self.scheme, text="", chunk_starts=offsets[:-1], chunk_ends=offsets[1:],
            chunk_in_link=np.zeros(0, dtype=bool), chunk_block=chunk_block,
            parents=self.parents, spans=spans,
            tag_ids=self.tag_ids, vocab=self.vocab, depths=none, lines=none, elements=none,
            shape=DomShape(none, self.vocab, none), notes=self.notes)

    def chunks_text(self, chosen: np.ndarray) -> str:
        """The text of the ``chosen`` chunks (bool per chunk) in order: neighbours as the
        page text has them (glued or one space apart), chunks with others left out
        between them one space apart."""
        return chunk_runs_text(self.text, self.chunk_starts.tolist(), self.chunk_ends.tolist(),
                               np.flatnonzero(chosen).tolist())

    @cached_property
    def blocks(self) -> tuple[Block, ...]:
        """The blocks as objects, in document order."""
        paths = self.shape.paths(self.elements)
        text, starts, ends = self.text, self.chunk_starts.tolist(), self.chunk_ends.tolist()
        in_link = self.chunk_in_link.tolist()
        attrs = self.attrs or ("",) * len(self.tags)
        blocks = []
        for index, (parent, (start, end), tag, depth, line, path, look) in enumerate(zip(
            self.parents.tolist(), self.spans.tolist(), self.tags, self.depths.tolist(),
            self.lines.tolist(), paths, attrs, strict=True,
        )):
            link_text = chunk_runs_text(text, starts, ends,
                                        [c for c in range(start, end) if in_link[c]])
            blocks.append(Block(index=index, parent=parent, path=path, tag=tag,
                                text=self.block_text(index), link_text=link_text, line=line,
                                depth=depth, span=(start, end), attrs=look))
        return tuple(blocks)


def chunk_runs_text(text: str, starts: list[int], ends: list[int], chosen: list[int]) -> str:
    """:meth:`PageBlocks.chunks_text` of the chunks numbered ``chosen`` (ascending): each
    run of neighbours is one slice of ``text``, runs one space apart."""
    if not chosen:
        return ""
    pieces: list[str] = []
    first = previous = chosen[0]
    for chunk in chosen[1:]:
        if chunk != previous + 1:
            pieces.append(text[starts[first]:ends[previous]])
            first = chunk
        previous = chunk
    pieces.append(text[starts[first]:ends[previous]])
    return " ".join(pieces)


def text_shares_numpy(blocks: PageBlocks) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The runs of chunks between block boundaries of ``blocks``: where each starts in
    characters (and where the last ends), each run's innermost block, and each block's
    span in runs (what :meth:`PageBlocks.text_shares_only` keeps); in numpy, the
    reference of the compiled loops. A boundary's rank among the boundaries is the
    running count of a mask of them, which spares a sort."""
    n_chunks = len(blocks.chunk_starts)
    boundary = np.zeros(n_chunks + 1, dtype=bool)
    boundary[blocks.spans.ravel()] = True
    boundary[0] = boundary[n_chunks] = True
    cuts = np.flatnonzero(boundary)
    rank = np.cumsum(boundary, dtype=np.int32)
    rank -= 1
    offsets = np.zeros(n_chunks + 1, dtype=np.int64)
    np.cumsum(blocks.chunk_chars(), out=offsets[1:])
    return (offsets[cuts], blocks.chunk_block[cuts[:-1]].astype(np.int32, copy=False),
            rank[blocks.spans].reshape(-1, 2))


def _text_shares(blocks: PageBlocks) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`text_shares_numpy`, compiled where available (three loops instead of a
    dozen numpy calls)."""
    if _compiled is None:
        return text_shares_numpy(blocks)
    return _compiled.text_shares(blocks.chunk_starts.astype(np.int64, copy=False),
                                 blocks.chunk_ends.astype(np.int64, copy=False),
                                 blocks.spans.astype(np.int32, copy=False).reshape(-1, 2),
                                 blocks.chunk_block.astype(np.int32, copy=False))


def _style_attrs(element: etree._Element) -> str:
    attrib = element.attrib
    if not attrib:
        return ""
    return ";".join(f"{name}={attrib[name]}" for name in STYLE_ATTRIBUTES if name in attrib)


def _by_tags(tags: frozenset[str]) -> Callable[[DomIndex], np.ndarray]:
    def select(dom: DomIndex) -> np.ndarray:
        return dom.has_tag(tags)

    return select


def _every_element(dom: DomIndex) -> np.ndarray:
    return np.ones(len(dom.tag_ids), dtype=bool)


def _pagelets(dom: DomIndex) -> np.ndarray:
    """Bar-Yossef & Rajagopalan: topmost elements none of whose children holds k links."""
    n = len(dom.tag_ids)
    is_link = dom.has_tag(frozenset({"a"})).astype(np.int64)
    before = np.concatenate(([0], np.cumsum(is_link)))
    links = before[dom.subtree_ends] - before[np.arange(n)]
    parents = dom.parents
    heavy = (links >= PAGELET_LINKS) & (parents >= 0)
    heavy_child = np.zeros(n, dtype=bool)
    heavy_child[parents[heavy]] = True
    candidate = (~heavy_child).tolist()
    selected = [False] * n
    covered = [False] * n
    for index, parent in enumerate(parents.tolist()):
        if parent >= 0 and (covered[parent] or selected[parent]):
            covered[index] = True
        elif candidate[index]:
            selected[index] = True
    return np.array(selected, dtype=bool)


SELECTORS: dict[str, Callable[[DomIndex], np.ndarray]] = {
    "blocks": _by_tags(BLOCK_TAGS),
    "nodes": _every_element,
    "layout": _by_tags(LAYOUT_TAGS),
    "pagelets": _pagelets,
    "regions": _by_tags(REGION_TAGS),
}
#: The segmentations, by name: Kołcz & Yih's block tags, every element node
#: (Chakrabarti et al.), Chen et al.'s layout blocks, Bar-Yossef's pagelets, the
#: regions the page-level detector scores, and Ma et al.'s table text chunks.
SCHEMES = (*SELECTORS, "table-chunks")


def _table_chunk_spans(dom: DomIndex) -> tuple[np.ndarray, np.ndarray]:
    """Ma et al.: runs of text between consecutive table / image-map tags, and their owners."""
    n_chunks = len(dom.chunk_first)
    delimiters = np.flatnonzero(dom.has_tag(CHUNK_DELIMITER_TAGS))
    bounds = sorted_unique(np.concatenate((
        [0, n_chunks], dom.chunk_starts[delimiters], dom.chunk_ends[delimiters])))
    spans = np.stack((bounds[:-1], bounds[1:]), axis=1).astype(np.int32)
    spans = spans[spans[:, 0] < spans[:, 1]]
    # a run is named after its innermost enclosing delimiter (or the root)
    marks = np.where(dom.has_tag(CHUNK_DELIMITER_TAGS), np.arange(len(dom.tag_ids)), -1)
    enclosing = fill_down(dom.parents, marks)
    owners = dom.chunk_owner[spans[:, 0]] if len(spans) else np.zeros(0, dtype=np.int32)
    containers = enclosing[owners]
    return spans, np.where(containers >= 0, containers, 0).astype(np.int32)


def covered_chunks(dom: DomIndex, scheme: str) -> np.ndarray:
    """Which chunks lie in some block of ``scheme`` (``chunk_block >= 0`` of
    :func:`segment_dom`), without cutting the page into blocks: for a caller that only
    keeps the covered text (a page's full text for near-duplicates)."""
    try:
        select = SELECTORS[scheme]
    except KeyError:
        raise ValueError(f"not a nested-element segmentation: {scheme!r}") from None
    marks = np.where(select(dom), 0, -1).astype(np.int32)
    return fill_down(dom.parents, marks)[dom.chunk_owner] >= 0 if len(dom.chunk_owner) \
        else np.zeros(0, dtype=bool)


def cut_elements_numpy(dom: DomIndex, selected: np.ndarray) -> tuple[np.ndarray, ...]:
    """The blocks of the ``selected`` elements (bool per element): their elements,
    parents (the nearest selected ancestor), chunk spans, tags, depths and lines, and
    each chunk's innermost block; in numpy, the reference of the compiled loop."""
    elements = np.flatnonzero(selected).astype(np.int32)
    block_of = np.where(selected, np.cumsum(selected) - 1, -1)
    nearest = fill_down(dom.parents, block_of)
    element_parents = dom.parents[elements]
    parents = np.where(element_parents >= 0, nearest[element_parents], -1).astype(np.int32)
    spans = np.stack((dom.chunk_starts[elements], dom.chunk_ends[elements]), axis=1)
    chunk_block = (nearest[dom.chunk_owner] if len(dom.chunk_owner)
                   else np.zeros(0, dtype=np.int32))
    return (elements, parents, spans.astype(np.int32).reshape(-1, 2),
            chunk_block.astype(np.int32, copy=False), dom.tag_ids[elements],
            dom.depths[elements], dom.lines[elements])


def _cut_elements(dom: DomIndex, selected: np.ndarray) -> tuple[np.ndarray, ...]:
    """:func:`cut_elements_numpy`, compiled where available: a page's blocks in a few
    loops, not some fifteen numpy calls, each of which costs more than its work here."""
    if _compiled is None:
        return cut_elements_numpy(dom, selected)
    return _compiled.cut_blocks(selected.astype(bool, copy=False), dom.parents,
                                dom.chunk_starts, dom.chunk_ends, dom.chunk_owner,
                                dom.tag_ids, dom.depths, dom.lines)


def segment_dom(page: Page, dom: DomIndex, scheme: str = "blocks") -> PageBlocks:
    """Cut an indexed page into the blocks of ``scheme`` (one of :data:`SCHEMES`)."""
    n_chunks = len(dom.chunk_first)
    if scheme == "table-chunks":
        spans, elements = _table_chunk_spans(dom)
        parents = np.full(len(spans), -1, dtype=np.int32)
        chunk_block = np.full(n_chunks, -1, dtype=np.int32)
        for index, (start, end) in enumerate(spans.tolist()):
            chunk_block[start:end] = index
        owners = dom.chunk_owner[spans[:, 0]] if len(spans) else np.zeros(0, np.int32)
        depths, lines = dom.depths[owners], dom.lines[owners]
        tag_ids = dom.tag_ids[elements] if len(dom.tag_ids) else np.zeros(0, dtype=np.int32)
    else:
        try:
            select = SELECTORS[scheme]
        except KeyError:
            raise ValueError(f"unknown segmentation {scheme!r}; choose from {SCHEMES}") from None
        elements, parents, spans, chunk_block, tag_ids, depths, lines = _cut_elements(
            dom, select(dom))
    attrs = None
    if scheme == "layout":
        all_elements = dom.elements()
        attrs = tuple(_style_attrs(all_elements[e]) for e in elements.tolist())
    if scheme == "table-chunks":
        elements = np.where(len(dom.tag_ids) > 0, elements, -1).astype(np.int32)
    return PageBlocks(
        page=page,
        scheme=scheme,
        text=dom.text,
        chunk_starts=dom.chunk_first,
        chunk_ends=dom.chunk_last,
        chunk_in_link=dom.chunk_in_link,
        chunk_block=chunk_block.astype(np.int32, copy=False),
        parents=parents,
        spans=spans.astype(np.int32, copy=False).reshape(-1, 2),
        tag_ids=tag_ids,
        vocab=dom.vocab,
        depths=depths.astype(np.int32, copy=False),
        lines=lines.astype(np.int32, copy=False),
        elements=elements,
        shape=DomShape(dom.tag_ids, dom.vocab, dom.parents),
        attrs=attrs,
        chunk_index=dom.chunk_index,
    )


def segment(page: Page, scheme: str = "blocks") -> PageBlocks:
    """Parse ``page`` once and cut it into the blocks of ``scheme``."""
    expect_page(page, "segment")
    if scheme not in SCHEMES:
        raise ValueError(f"unknown segmentation {scheme!r}; choose from {SCHEMES}")
    return segment_dom(page, index_dom(parse_html(page.html, page.id)), scheme)
