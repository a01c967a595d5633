"""What a page-level model sees of a block: one feature row per scored block, from the HTML alone.

A page is parsed and walked once (:mod:`denoise.blocks`); a second, compiled pass
reads what the walk does not keep (markup bytes, link targets, class / id words).
Every per-block number is then a difference of running counts over the page's
elements, characters or words: no loop over blocks. Where the extension is built,
one compiled pass over the text gives the words and character classes and one
over the elements the rows (:func:`page_features`); the numpy steps beside them
are the fallback and the reference the tests hold them to.

Which blocks are scored: the ``regions`` of the page with at least 40 characters
and 3 distinct words under a block that has them too (Kołcz & Yih 4.1's rule,
which is also what the site-level labels cover). Smaller blocks are *hidden*
(Chakrabarti et al. 5.3): they take the score of their nearest scored ancestor,
and each adds one to that ancestor's weight in the smoothing.

The features, and where they come from:

- Kołcz & Yih 3 (the block in isolation): characters, words, word length,
  punctuation, digits, capitals, sentence marks, separators (``|``, ``>``); counts
  of tags inside the block, links and images apart, and shares of list items,
  paragraphs, line breaks, headings, form controls, table cells, inline formatting.
- Kołcz & Yih 3 (the block against the page): its share of the page's words and
  elements, and the KL divergence between its words and the rest of the page's.
- Kołcz & Yih 3 (position): source line, DOM depth, index among its siblings
  ("distance from the left-most sibling"), place in document order.
- Chakrabarti et al. 5.2: links per word, share of text in anchors, words per
  anchor, share of links that stay on the site, visible text over HTML size,
  overlap with the page title, closeness to the page's margins. Without a
  renderer the margins are approximated by the share of the page's text before
  and after the block (top and bottom), and a block's *area* (for the smoothing
  penalty) by its characters plus :data:`IMAGE_AREA` per image.
- Beyond the papers: the block's own tag, and words of its own and its ancestors'
  ``class`` / ``id`` attributes ("nav", "footer", "content", ...), grouped in eight
  cue families; the classifier learns what each is worth.

The text itself (its words) feeds the Naive Bayes stage of the model
(:mod:`denoise.model`) through :attr:`PageFeatures.words` and
:attr:`PageFeatures.token_ids`.

Known limits: words are split at spaces, so unspaced scripts (Chinese, Japanese,
Thai) give one "word" per run of text and the word features and the Naive Bayes
stage see little; capitals and digits are counted in ASCII only, sentence marks
are ``.!?``, and punctuation past U+2030 (CJK marks) is not counted.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from lxml import etree

from denoise.blocks import DomIndex, PageBlocks, index_dom, segment_dom, tags_among
from denoise.html import parse_html
from denoise.page import Page, site_of
from denoise.site.fingerprint import eligible_blocks
from denoise.treeops import fill_down, or_down, sibling_ranks

try:
    from denoise import _compiled
except ImportError:  # the compiled extension is optional
    _compiled = None

#: The segmentation a page-level model scores.
SCHEME = "regions"
#: Kołcz & Yih's least text for a block to be scored.
MIN_CHARS, MIN_UNIQUE_WORDS = 40, 3
#: Area of one image, in characters of text (a 100 x 100 picture against ~8 x 16
#: pixels a character is ~80).
IMAGE_AREA = 80
#: Tag families counted inside a block, each as a share of the block's elements.
TAG_FAMILIES = {
    "li": ("li",), "p": ("p",), "br": ("br",), "heading": ("h1", "h2", "h3", "h4", "h5", "h6"),
    "form": ("form", "input", "select", "option", "button", "textarea", "label"),
    "cell": ("td", "th"), "inline": ("b", "strong", "em", "i", "span", "font", "u"),
}
#: The block's own tag, one-hot, by family.
OWN_TAGS = {
    "div": ("div",), "cell": ("td", "th", "tr", "table"),
    "list": ("li", "ul", "ol", "dl", "dd", "dt"),
    "p": ("p",), "heading": ("h1", "h2", "h3", "h4", "h5", "h6"),
    "furniture": ("nav", "header", "footer", "aside", "menu", "form"),
    "section": ("article", "main", "section", "blockquote", "pre", "figure"),
    "body": ("body",),
}
#: Families of class / id words the compiled pass recognises (bit order).
CUES = ("navigation", "footer", "header", "sidebar", "promotion", "comments", "content", "search")
#: The cue bits past :data:`CUES` no model reads (:attr:`PageFeatures.block_cues`), each
#: for one rule of main-content mode: not feature columns, which would mean retraining
#: every model for what one rule does. Class / id words of a dialog laid over the page (a
#: cookie or consent notice, a pop-up, a modal);
DIALOG_BIT = len(CUES)
#: of a caption or a photo credit outside a ``<figcaption>`` ("wp-caption-text",
#: "image__caption", "photo-credit");
CAPTION_BIT = DIALOG_BIT + 1
#: of a box of links beside the article that is no landmark: related posts, tags
#: ("related-posts", "entry-tags");
ASIDE_BIT = CAPTION_BIT + 1
#: of comments ("comment", "commentlist", not "commentary"; the ``comments`` cue family
#: also holds a thread's replies): main-content mode's step 9.
COMMENT_BIT = ASIDE_BIT + 1
#: Not a class / id word: an ``<input>`` one types into (:data:`ENTRY_TYPES`), set on the
#: input itself by the page walk, and
FIELD_BIT = COMMENT_BIT + 1
#: a form to write in, set by :func:`page_features` (not the walk) and dropped by
#: main-content mode with its dialogs: a ``<form>`` holding a ``<textarea>`` (a comment,
#: a message), or :data:`FORM_FIELDS` of them or more and no ``<article>`` or ``<main>``
#: (a login, a sign-up, a contact form; an ASP.NET page's form wraps its article, and its
#: search and login boxes).
FILL_IN_BIT = FIELD_BIT + 1
#: A class / id word again: a paywall ("row paywall", "paywall-template-container": its
#: offer; Google's markup names the locked article text so too), which main-content mode
#: drops with its dialogs unless it holds a paragraph of the article;
PAYWALL_BIT = FILL_IN_BIT + 1
#: and the free part beside it in Google's markup ("non-paywall"), no paywall.
FREE_BIT = PAYWALL_BIT + 1
#: The ``type`` values of an ``<input>`` one types into ("" and none: text). Not hidden,
#: checkbox, radio, number or search inputs: a shop's quick-buy form, a listing's
#: filters, a quantity, a search box (one text box alone is one field, under
#: :data:`FORM_FIELDS`).
ENTRY_TYPES = frozenset({"text", "email", "password", "tel", "url", ""})
#: The fields of a form to fill in: a name and a password, a name and an e-mail address.
FORM_FIELDS = 2
_FORMS = frozenset({"form"})
_TEXT_BOXES = frozenset({"textarea"})
_ARTICLES = frozenset({"article", "main"})
#: Typographic marks beyond ASCII: guillemets, bullets, dashes, quotes, ellipsis.
_MARKS = "\u00ab\u00bb\u00b7\u2022\u2013\u2014\u201c\u201d\u2018\u2019\u2026"
_PUNCTUATION = frozenset(string.punctuation + _MARKS)
_SENTENCE = frozenset(".!?")
_SEPARATORS = frozenset("|>»/·•")
_TRIMMED = string.punctuation + _MARKS

FEATURE_NAMES: tuple[str, ...] = (
    "log_chars", "log_words", "word_chars", "punctuation", "digits", "capitals",
    "sentence_marks", "commas", "separators",
    "log_links", "log_images", "log_elements", "links_per_word", "anchor_text",
    "words_per_link", "intra_site_links", "text_to_html",
    *(f"tag_{name}" for name in TAG_FAMILIES),
    "word_share", "element_share", "kl_to_rest", "title_words",
    "line", "depth", "depth_share", "sibling_index", "siblings", "sibling_share",
    "text_before", "text_after", "element_position",
    *(f"own_{name}" for name in OWN_TAGS),
    *(f"cue_{name}" for name in CUES), *(f"inherited_{name}" for name in CUES),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class PageFeatures:
    """A page's scored blocks as a tree, with their feature rows and words.

    ``nodes`` index ``blocks`` (document order, so ``parents`` is a preorder tree);
    the smoothing works on ``parents``, ``weights`` and ``areas``.
    """

    blocks: PageBlocks
    nodes: np.ndarray  # int32: the scored blocks
    parents: np.ndarray  # int32 per node: parent node, -1 for a root
    weights: np.ndarray  # float64 per node: 1 + hidden blocks folded into it
    areas: np.ndarray  # float64 per node: approximate rendered area
    matrix: np.ndarray  # float32 (nodes, features), columns as in FEATURE_NAMES
    words: list[str]  # the page's distinct words: lower case, punctuation trimmed ("" too)
    token_ids: np.ndarray  # int64 per word of the page text, in order: index into ``words``
    token_spans: np.ndarray  # int64 (nodes, 2): each node's range of ``token_ids``
    block_cues: np.ndarray  # uint16 per *block*: its element's cue bits (markup_stats, FILL_IN_BIT)

    def __len__(self) -> int:
        return len(self.nodes)

    def node_of_block(self) -> np.ndarray:
        """Per block, the node whose score it takes: itself or its nearest scored ancestor."""
        marks = np.full(len(self.blocks), -1, dtype=np.int32)
        marks[self.nodes] = np.arange(len(self.nodes), dtype=np.int32)
        return fill_down(self.blocks.parents, marks)


def extract(page: Page) -> PageFeatures:
    """Parse ``page`` once and compute the features of its scored blocks."""
    return features_of(parse_blocks(page))


def features_of(parsed: tuple[DomIndex, PageBlocks, tuple[np.ndarray, ...]]) -> PageFeatures:
    """:func:`page_features` of what :func:`parse_blocks` gathered: the two as steps of
    a batch (:func:`denoise.steps.step_by_step`)."""
    return page_features(*parsed)


def parse_blocks(page: Page) -> tuple[DomIndex, PageBlocks, tuple[np.ndarray, ...]]:
    """Parse ``page`` once and gather what :func:`page_features` reads: the page's index,
    blocks and markup counts. The parsed tree is let go as soon as the walks that read
    it are done (:meth:`DomIndex.without_tree`)."""
    root = parse_html(page.html, page.id)
    dom = index_dom(root)
    markup = markup_stats(root)
    blocks = segment_dom(page, dom, SCHEME)
    del root
    return dom.without_tree(), blocks, markup  # the last hold on the tree: freed here


def markup_stats(root: etree._Element) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per element in walk order: markup bytes, link host hash, cue bits (``uint16``: of
    the class and id words, :data:`CUES` and the bits past them, :data:`DIALOG_BIT`...;
    :data:`FIELD_BIT` of an input one types into)."""
    if _compiled is not None:
        return _compiled.markup_stats(root)
    return markup_stats_python(root)


def markup_stats_python(root: etree._Element) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What ``denoise._compiled.markup_stats`` computes, where it is not built."""
    sizes, hosts, cues = [], [], []
    for element in root.iter(etree.Element):
        size = 2 * len(element.tag.encode()) + 5
        bits, host = 0, 0
        for name, value in element.attrib.items():
            size += len(name.encode()) + len(value.encode()) + 4
            if name in ("class", "id"):
                bits |= cue_bits(value)
            elif name == "href" and element.tag == "a":
                host = link_host_hash(value)
        if element.tag == "input" and element.get("type", "text").lower() in ENTRY_TYPES:
            bits |= 1 << FIELD_BIT
        sizes.append(size)
        hosts.append(host)
        cues.append(bits)
    return (np.array(sizes, dtype=np.int32), np.array(hosts, dtype=np.uint32),
            np.array(cues, dtype=np.uint16))


_CUE_WORDS = (
    (0, "nav"), (0, "menu"), (0, "breadcrumb"), (0, "toolbar"), (0, "skip"),
    (0, "pagination"), (0, "pager"), (1, "footer"), (1, "copyright"), (1, "legal"),
    (2, "header"), (2, "masthead"), (2, "banner"), (2, "logo"), (3, "sidebar"),
    (3, "aside"), (3, "widget"), (3, "related"), (3, "rail"), (4, "advert"),
    (4, "sponsor"), (4, "promo"), (4, "social"), (4, "share"), (4, "subscribe"),
    (4, "newsletter"), (4, "cookie"), (5, "comment"), (5, "reply"), (6, "content"),
    (6, "article"), (6, "main"), (6, "post"), (6, "entry"), (6, "story"),
    (6, "text"), (6, "body"), (7, "search"), (7, "login"), (7, "signin"),
    (8, "cookie"), (8, "consent"), (8, "gdpr"), (8, "dsgvo"), (8, "popup"), (8, "popover"),
    (8, "modal"), (8, "overlay"), (9, "caption"), (9, "credit"), (10, "related"), (10, "tags"),
    (14, "paywall"), (15, "non-paywall"), (11, "comment"),
)


def _fill_in_forms(dom: DomIndex, cues: np.ndarray) -> np.ndarray:
    """``cues`` with :data:`FILL_IN_BIT` set on each form to write in: a ``<form>``
    holding a ``<textarea>``, or :data:`FORM_FIELDS` inputs one types into or more and no
    ``<article>`` or ``<main>``."""
    field = cues & (1 << FIELD_BIT)
    boxed = "textarea" in dom.vocab
    if not boxed and np.count_nonzero(field) < FORM_FIELDS:  # most pages
        return cues
    forms = np.flatnonzero(tags_among(dom.vocab, dom.tag_ids, _FORMS))
    ends = dom.subtree_ends[forms]

    def held(flags: np.ndarray) -> np.ndarray:  # per form: flagged elements inside it
        sums = np.concatenate(([0], np.cumsum(flags)))
        return sums[ends] - sums[forms]

    filled = (held(field > 0) >= FORM_FIELDS) & (
        held(tags_among(dom.vocab, dom.tag_ids, _ARTICLES)) == 0)
    if boxed:
        filled |= held(tags_among(dom.vocab, dom.tag_ids, _TEXT_BOXES)) > 0
    filled = forms[filled]
    if not len(filled):
        return cues
    cues = cues.copy()
    cues[filled] |= 1 << FILL_IN_BIT
    return cues


def _block_cues(cues: np.ndarray, elements: np.ndarray) -> np.ndarray:
    """Per element of ``elements`` (-1, a run of text: none), its ``cues``."""
    if not len(elements):
        return np.zeros(0, dtype=np.uint16)
    return np.where(elements >= 0, cues[np.maximum(elements, 0)], 0).astype(np.uint16)


#: A cue word's match does not count when these letters follow it: "commentary" is an
#: opinion article, not readers' comments (the compiled pass's ``_CUE_NOT``).
_NOT_BEFORE = {(COMMENT_BIT, "comment"): b"ary"}


def cue_bits(value: str) -> int:
    """Cue-family bits of one ``class`` or ``id`` value (substrings, lower case): the
    :data:`CUES` families' and the bits past them (:data:`DIALOG_BIT`...)."""
    low = value.encode("utf-8", "replace")[:255].lower()
    bits = 0
    for bit, word in _CUE_WORDS:
        found, tail = word.encode(), _NOT_BEFORE.get((bit, word))
        at = low.find(found)
        while tail is not None and at >= 0 and low.startswith(tail, at + len(found)):
            at = low.find(found, at + 1)
        if at >= 0:
            bits |= 1 << bit
    return bits


def _fnv(data: bytes) -> int:
    h = 2166136261
    for byte in data.lower():
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h if h > 1 else h + 2


def host_hash(host: str) -> int:
    """The hash links to ``host`` get (``www.`` dropped), as the compiled pass makes it."""
    data = host.encode("utf-8", "replace")
    if data.lower().startswith(b"www."):
        data = data[4:]
    return _fnv(data)


def link_host_hash(href: str) -> int:
    """0 for a relative link, 1 for one going nowhere, else the hash of its host."""
    value = href.lstrip(" \t\r\n")
    if not value or value.startswith("#") or value.lower().startswith(
            ("javascript:", "mailto:", "tel:")):
        return 1
    raw = value.encode("utf-8", "replace")
    at = raw.find(b"/web/")
    if at >= 0:
        inner = raw.find(b"://", at)
        if inner < 0:
            return 0
        host = raw[inner + 3:]
    else:
        at = raw.find(b"//")
        if at < 0 or (at > 0 and raw[at - 1:at] != b":"):
            return 0
        host = raw[at + 2:]
    end = len(host)  # the authority ends at /, ? or #; user information ends at @
    for stop in b"/?#":
        found = host.find(bytes([stop]))
        if 0 <= found < end:
            end = found
    host = host[:end].rsplit(b"@", 1)[-1]
    if host[:4].lower() == b"www.":
        host = host[4:]
    host = host.split(b":", 1)[0]
    return _fnv(host) if host else 0


def _prefix(values: np.ndarray) -> np.ndarray:
    """Prefix sums with a leading zero, so ``p[b] - p[a]`` sums ``values[a:b]``."""
    out = np.zeros(len(values) + 1, dtype=np.float64)
    np.cumsum(values, out=out[1:])
    return out


def _family_index(families: dict[str, tuple[str, ...]]) -> dict[str, int]:
    """Tag name -> index of its family (each tag is in one family at most)."""
    return {tag: family for family, tags in enumerate(families.values()) for tag in tags}


_TAG_FAMILY = _family_index(TAG_FAMILIES)
_OWN_FAMILY = _family_index(OWN_TAGS)


def _family_lut(vocab: list[str], families: str) -> np.ndarray:
    """Per tag of ``vocab``, its index in ``families`` ("tag": TAG_FAMILIES, "own":
    OWN_TAGS), or -1, with one more -1 at the end. Shared and read-only: a site's pages
    have the same few tag vocabularies."""
    return _cached_family_lut(tuple(vocab), families)


@lru_cache(maxsize=4096)
def _cached_family_lut(vocab: tuple[str, ...], families: str) -> np.ndarray:
    family_of = _TAG_FAMILY if families == "tag" else _OWN_FAMILY
    lut = np.array([family_of.get(tag, -1) for tag in vocab] + [-1], dtype=np.int32)
    lut.flags.writeable = False
    return lut


def _tokens(text: str) -> tuple[list[str], np.ndarray]:
    """The page's distinct words (lower case, punctuation trimmed; "" for a word of
    punctuation) and, per word of the text, its index among them.

    Python touches each distinct word once; the per-word work is C-level ``map``.
    """
    if not text:
        return [], np.zeros(0, dtype=np.int64)
    raw = text.lower().split(" ")
    word_of: dict[str, int] = dict.fromkeys(raw, 0)
    words: dict[str, int] = {}
    for word in word_of:  # trimmed, "|" becomes "", not nothing: the count stays
        word_of[word] = words.setdefault(word.strip(_TRIMMED), len(words))
    ids = np.fromiter(map(word_of.__getitem__, raw), dtype=np.int64, count=len(raw))
    return list(words), ids


def _class_table() -> np.ndarray:
    """Character classes as bits by code point (capped at U+2030): punctuation, digit,
    capital, sentence mark, comma, separator."""
    table = np.zeros(0x2031, dtype=np.uint8)
    for char in _PUNCTUATION:
        if ord(char) <= 0x2030:
            table[ord(char)] |= 1
    table[ord("0"):ord("9") + 1] |= 2
    table[ord("A"):ord("Z") + 1] |= 4
    for bit, chars in ((8, _SENTENCE), (16, ","), (32, _SEPARATORS)):
        for char in chars:
            table[ord(char)] |= bit
    return table


_CLASSES = _class_table()


def _char_class_counts(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Per span ``[starts, ends)`` of the page's characters, how many fall in each class
    of :func:`_class_table` (float64, one column a class). Positions and binary search,
    not prefix sums: memory stays a byte per character on huge pages."""
    bits = _CLASSES[np.minimum(codes, 0x2030)]
    counts = np.empty((len(starts), 6), dtype=np.float64)
    for column in range(6):
        where = np.flatnonzero(bits & (1 << column))
        counts[:, column] = np.searchsorted(where, ends) - np.searchsorted(where, starts)
    return counts


def _sorted_positions(*arrays: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``arrays`` end to end as one sorted int64 vector, and the order that sorts them (a
    compiled pass records running counts as it reaches each position)."""
    positions = np.concatenate(arrays).astype(np.int64, copy=False)
    order = np.argsort(positions, kind="stable")
    return positions[order], order


def _unsorted(counts: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Rows recorded at sorted positions, back in the order the positions were given."""
    out = np.empty_like(counts)
    out[order] = counts
    return out


def _text_stats(text: str, starts: np.ndarray, ends: np.ndarray, title: set[str],
                ) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The page's distinct words and per word of the text its index among them (see
    :func:`_tokens`), each span's range of words and its counts of each character class
    (see :func:`_char_class_counts`), and per distinct word whether ``title`` has it.

    Compiled, one pass over the text does it all; the Python steps are the reference.
    """
    n = len(starts)
    if _compiled is not None:
        positions, order = _sorted_positions(starts, ends)
        words, ids, counts, in_title = _compiled.page_words(
            text, positions, _CLASSES, _TRIMMED, title)
        counts = _unsorted(counts, order)
        first_token = counts[:n, 6]
        token_spans = np.stack((first_token, np.maximum(counts[n:, 6] + 1, first_token)), axis=1)
        return words, ids, token_spans, (counts[n:, :6] - counts[:n, :6]).astype(
            np.float64), in_title
    words, ids = _tokens(text)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    spaces = np.flatnonzero(codes == 32)
    first_token = np.searchsorted(spaces, starts)
    token_spans = np.stack((first_token, np.maximum(np.searchsorted(spaces, ends) + 1,
                                                    first_token)), axis=1)
    in_title = np.array([word in title for word in words], dtype=bool)
    return words, ids, token_spans, _char_class_counts(codes, starts, ends), in_title


def _scored_tree(eligible: np.ndarray, block_parents: np.ndarray,
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The scored blocks (``eligible``) of a page as a tree: their indices, each one's
    nearest scored ancestor as a node (-1 for none), and its weight, 1 plus the hidden
    blocks whose nearest scored ancestor it is."""
    if _compiled is not None:
        return _compiled.scored_tree(eligible.astype(bool, copy=False),
                                     block_parents.astype(np.int32, copy=False))
    nodes = np.flatnonzero(eligible).astype(np.int32)
    n = len(nodes)
    marks = np.where(eligible, np.cumsum(eligible) - 1, -1).astype(np.int32)
    nearest = fill_down(block_parents, marks)
    parents = block_parents[nodes]
    parents = np.where(parents >= 0, nearest[np.maximum(parents, 0)], -1).astype(np.int32)
    hidden = ~eligible & (nearest >= 0)
    weights = 1.0 + np.bincount(nearest[hidden], minlength=n)[:n].astype(np.float64)
    return nodes, parents, weights


#: The columns of FEATURE_NAMES that are the logarithm of a count (``log1p``).
_LOG_COLUMNS = [FEATURE_NAMES.index(name) for name in (
    "log_chars", "log_words", "log_links", "log_images", "log_elements", "sibling_index",
    "siblings")]


def page_features(dom: DomIndex, blocks: PageBlocks,
                  markup: tuple[np.ndarray, np.ndarray, np.ndarray]) -> PageFeatures:
    """Features of the scored blocks of ``blocks`` (a segmentation of ``dom``).

    Every count is a difference of running counts over the page's elements, characters
    or words at the nodes' bounds, so nothing loops over blocks; the counting passes
    and the rows are compiled where the extension is built (the same numbers as the
    Python steps, which are the reference).
    """
    nodes, parents, weights = _scored_tree(eligible_blocks(blocks, MIN_CHARS, MIN_UNIQUE_WORDS),
                                           blocks.parents)
    n = len(nodes)

    text = blocks.text
    starts, ends = blocks.bounds
    starts, ends = starts[nodes], ends[nodes]
    # words, and characters: punctuation, digits, capitals, sentence marks, commas, separators
    words_list, token_ids, token_spans, in_chars, in_title = _text_stats(
        text, starts, ends, _title_words(dom))
    # words: title overlap and KL divergence to the rest of the page
    title_words, kl = _word_features(len(words_list), token_ids, token_spans, in_title)
    page_host = _page_host(blocks.page, dom, markup)
    stats = _TextStats(starts=starts, ends=ends, token_spans=token_spans, n_tokens=len(token_ids),
                       in_chars=in_chars, kl=kl, title_words=title_words)
    rows = _rows_compiled(dom, blocks, markup, nodes, stats, page_host) if (
        _compiled is not None and n) else None
    if rows is None:  # no extension, no nodes, or blocks that are not nested elements
        rows = _rows_python(dom, blocks, markup, nodes, stats, page_host)
    matrix, images = rows
    areas = (ends - starts).astype(np.float64) + IMAGE_AREA * images
    return PageFeatures(blocks=blocks, nodes=nodes, parents=parents,
                        weights=weights, areas=areas, matrix=matrix, words=words_list,
                        token_ids=token_ids, token_spans=token_spans.astype(np.int64),
                        block_cues=_block_cues(_fill_in_forms(dom, markup[2]), blocks.elements))


@dataclass(frozen=True, slots=True, kw_only=True)
class _TextStats:
    """What the rows take from the page's text, per node."""

    starts: np.ndarray  # int64: where the node's text starts in the page text
    ends: np.ndarray  # int64
    token_spans: np.ndarray  # int64 (nodes, 2)
    n_tokens: int  # words of the page
    in_chars: np.ndarray  # float64 (nodes, 6): characters of each class
    kl: np.ndarray  # float64
    title_words: np.ndarray  # float64


def _rows_compiled(dom: DomIndex, blocks: PageBlocks,
                   markup: tuple[np.ndarray, np.ndarray, np.ndarray], nodes: np.ndarray,
                   stats: _TextStats, page_host: int) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`_rows_python`, in one compiled pass over the elements (numpy takes the
    logarithms, so they are the same to the last bit); None for blocks that are not
    distinct elements nested in document order (any segmentation but ``regions``)."""
    markup_bytes, link_hosts, cues = markup
    vocab = dom.vocab
    int32 = np.int32
    done = _compiled.node_rows(
        stats.starts, stats.ends, stats.token_spans, stats.in_chars, stats.kl,
        stats.title_words, blocks.elements[nodes].astype(int32),
        blocks.spans[nodes].astype(int32).ravel(), dom.subtree_ends.astype(int32, copy=False),
        dom.tag_ids.astype(int32, copy=False), dom.parents.astype(int32, copy=False),
        dom.depths.astype(int32, copy=False), dom.lines.astype(int32, copy=False),
        markup_bytes.astype(int32, copy=False), link_hosts.astype(np.uint32, copy=False),
        (cues & 0xFF).astype(np.uint8), _family_lut(vocab, "tag"),
        _family_lut(vocab, "own"), vocab.index("a") if "a" in vocab else -1,
        vocab.index("img") if "img" in vocab else -1, page_host,
        blocks.chunk_starts.astype(np.int64, copy=False),
        blocks.chunk_ends.astype(np.int64, copy=False),
        blocks.chunk_in_link.astype(bool, copy=False), stats.n_tokens,
        max(len(blocks.text), 1))
    if done is None:
        return None
    rows, logs, images = done
    rows[:, _LOG_COLUMNS] = np.log1p(logs).T
    return rows, images


def _rows_python(dom: DomIndex, blocks: PageBlocks,
                 markup: tuple[np.ndarray, np.ndarray, np.ndarray], nodes: np.ndarray,
                 stats: _TextStats, page_host: int) -> tuple[np.ndarray, np.ndarray]:
    """The feature rows of the nodes (float32, columns as in FEATURE_NAMES) and their
    images. Per-element indicators are stacked into one matrix, so a single prefix sum
    and one pair of lookups give every node's counts."""
    markup_bytes, link_hosts, cues = markup
    n = len(nodes)
    starts, ends, token_spans = stats.starts, stats.ends, stats.token_spans
    chars = (ends - starts).astype(np.float64)
    words = (token_spans[:, 1] - token_spans[:, 0]).astype(np.float64)
    safe_words = np.maximum(words, 1.0)
    safe_chars = np.maximum(chars, 1.0)
    per_char = stats.in_chars[:, :3] / safe_chars[:, None]
    per_word = stats.in_chars[:, 3:] / safe_words[:, None]

    # chunks: anchor text characters
    anchor_chars = _prefix(blocks.chunk_chars() * blocks.chunk_in_link)
    spans = blocks.spans[nodes]
    anchor = anchor_chars[spans[:, 1]] - anchor_chars[spans[:, 0]]

    # elements: links, images, markup, link targets, tag families, in one prefix sum
    elements = blocks.elements[nodes]
    element_ends = dom.subtree_ends[elements]
    n_elements = len(dom.tag_ids)
    vocab, tag_ids = dom.vocab, dom.tag_ids
    is_link = tag_ids == (vocab.index("a") if "a" in vocab else -1)
    is_image = tag_ids == (vocab.index("img") if "img" in vocab else -1)
    real_links = is_link & (link_hosts != 1)
    family = _family_lut(vocab, "tag")[tag_ids]
    indicators = np.zeros((n_elements, 5 + len(TAG_FAMILIES) + 1), dtype=np.float64)
    indicators[:, 0] = is_link
    indicators[:, 1] = is_image
    indicators[:, 2] = markup_bytes
    indicators[:, 3] = real_links
    indicators[:, 4] = real_links & ((link_hosts == 0) | (link_hosts == page_host))
    family_column = np.where(family >= 0, 5 + family, indicators.shape[1] - 1)  # -1: spare
    indicators[np.arange(n_elements), family_column] = 1.0
    summed = np.zeros((n_elements + 1, indicators.shape[1]))
    np.cumsum(indicators, axis=0, out=summed[1:])
    inside = summed[element_ends] - summed[elements]
    links, images, html_bytes, target_links, intra_links = inside[:, :5].T
    element_count = (element_ends - elements).astype(np.float64)
    tag_shares = inside[:, 5:-1] / element_count[:, None]
    own_family = _family_lut(vocab, "own")[tag_ids[elements]]
    own = np.eye(len(OWN_TAGS) + 1)[own_family][:, :-1]  # family -1: no column set
    cues = (cues & 0xFF).astype(np.uint8)  # the CUES families: the bits past them are no column
    cue_bits_ = np.stack((cues[elements], or_down(dom.parents, cues)[elements]), axis=1)
    cue_columns = np.unpackbits(cue_bits_[:, :, None], axis=2, bitorder="little")
    cue_columns = cue_columns[:, :, : len(CUES)].reshape(n, 2 * len(CUES))

    # position
    page_chars = max(len(blocks.text), 1)
    max_line = max(int(dom.lines.max()) if n_elements else 1, 1)
    depths = dom.depths[elements].astype(np.float64)
    max_depth = max(float(dom.depths.max()) if n_elements else 1.0, 1.0)
    sibling_index, siblings = sibling_ranks(dom.parents)
    sibling_index, siblings = sibling_index[elements], siblings[elements]

    columns = [
        np.log1p(chars), np.log1p(words), chars / safe_words, per_char, per_word,
        np.log1p(links), np.log1p(images), np.log1p(element_count), links / safe_words,
        anchor / safe_chars, words * anchor / safe_chars / np.maximum(links, 1.0),
        np.where(target_links > 0, intra_links / np.maximum(target_links, 1.0), 0.5),
        chars / np.maximum(chars + html_bytes, 1.0), tag_shares,
        words / max(stats.n_tokens, 1), element_count / max(n_elements, 1), stats.kl,
        stats.title_words, dom.lines[elements] / max_line, depths, depths / max_depth,
        np.log1p(sibling_index), np.log1p(siblings), sibling_index / np.maximum(siblings, 1),
        starts / page_chars, (page_chars - ends) / page_chars, elements / max(n_elements, 1),
        own, cue_columns,
    ]
    matrix = np.column_stack(columns).astype(np.float32) if n else np.zeros(
        (0, len(FEATURE_NAMES)), dtype=np.float32)
    return matrix, images


def _page_host(page: Page, dom: DomIndex,
               markup: tuple[np.ndarray, np.ndarray, np.ndarray]) -> int:
    """The page's own host hash: from its URL, else its commonest link host."""
    own = site_of(page.url)
    if own:
        if _compiled is not None:
            return int(_compiled.host_hash(own.encode("utf-8", "replace")))
        return host_hash(own)
    link_hosts = markup[1]
    is_link = dom.tag_ids == (dom.vocab.index("a") if "a" in dom.vocab else -1)
    hosts = link_hosts[is_link & (link_hosts > 1)]
    if not len(hosts):
        return 0
    values, counts = np.unique(hosts, return_counts=True)
    return int(values[np.argmax(counts)])


def _word_features(vocab_size: int, ids: np.ndarray, token_spans: np.ndarray,
                   in_title: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per node: share of its words that are in the page title (``in_title``: per
    distinct word), and the KL divergence (add-one smoothed) from its word
    distribution to that of the rest of the page."""
    n = len(token_spans)
    if not n or not len(ids):
        return np.zeros(n), np.zeros(n)
    lengths = token_spans[:, 1] - token_spans[:, 0]
    if _compiled is not None:
        title_count = _compiled.token_sums(np.zeros(len(in_title)), in_title, ids,
                                           token_spans)[1]
        kl = _compiled.node_kl(ids, token_spans, vocab_size)
    else:
        title_prefix = _prefix(in_title.astype(np.float64)[ids])
        title_count = title_prefix[token_spans[:, 1]] - title_prefix[token_spans[:, 0]]
        kl = _kl_python(ids, token_spans, vocab_size)
    return title_count / np.maximum(lengths, 1), kl


def span_members(spans: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every position inside every span ``[start, end)``, flattened: the span each
    belongs to and the position itself (nested spans repeat positions)."""
    lengths = spans[:, 1] - spans[:, 0]
    total = int(lengths.sum())
    rows = np.repeat(np.arange(len(spans)), lengths)
    offsets = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return rows, np.repeat(spans[:, 0], lengths) + offsets


def _kl_python(ids: np.ndarray, token_spans: np.ndarray, vocab_size: int) -> np.ndarray:
    """What ``denoise._compiled.node_kl`` computes: (node, word) counts over every word
    of every node, then each node's sum over its distinct words."""
    n = len(token_spans)
    lengths = token_spans[:, 1] - token_spans[:, 0]
    node_of, positions = span_members(token_spans)
    word_of = ids[positions]
    keys, counts = np.unique(node_of * vocab_size + word_of, return_counts=True)
    key_node, key_word = keys // vocab_size, keys % vocab_size
    page_counts = np.bincount(ids, minlength=vocab_size).astype(np.float64)
    rest_total = len(ids) - lengths  # words outside each node
    block_p = counts / lengths[key_node]
    rest_p = (page_counts[key_word] - counts + 1.0) / (rest_total[key_node] + vocab_size)
    return np.bincount(key_node, weights=block_p * np.log(block_p / rest_p), minlength=n)


def _title_words(dom: DomIndex) -> set[str]:
    """Words of the page's ``<title>`` (lower case, punctuation trimmed)."""
    if "title" not in dom.vocab:
        return set()
    title = np.flatnonzero(dom.tag_ids == dom.vocab.index("title"))[:1]
    first, last = dom.chunk_starts[title[0]], dom.chunk_ends[title[0]]
    if first >= last:
        return set()
    words = dom.text[dom.chunk_first[first]:dom.chunk_last[last - 1]].lower().split()
    return {w.strip(_TRIMMED) for w in words} - {""}
