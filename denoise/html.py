"""Parse HTML once, with lxml, into a tree without the parts nobody sees.

Memory. A parsed tree costs far more than its HTML: libxml2 spends some 120 bytes on
an element, 150 on a text node and 250 on an attribute with a value, so a page of small
elements (``<a href="/x">word</a>`` a link, ``<td>word</td>`` a cell) grows 20 to 50
times over when parsed: the 19.9 MB pages of ``benchmarks/page_memory.py`` made trees
of 400 to 520 MB, and took the commands up to 1 GB. A page is therefore parsed up to
its :data:`MAX_MARKUP`-th tag or attribute value, which bounds its tree (and every
per-element and per-chunk array made from it); the rest of its HTML is left out, as
if the page ended there.

Depth. libxml2 nests elements at most 256 deep by default, and a page that opens more
(300 unclosed ``<font>`` tags before its article) loses everything past that depth:
the parser stops there with a fatal error that recovery turns into a short tree, and
the article is gone. The parser is therefore made with lxml's ``huge_tree``, which
lifts libxml2's depth limit to 2,048 and its other safety limits (the size of a text
node, of a name, of the parser's dictionary); :data:`MAX_MARKUP` is the size guard
here instead, bounding the tree whatever the page, and the readers' byte limit
(``denoise.decode.DEFAULT_MAX_BYTES``) the size of any text in it. Past 2,048 open
elements libxml2 (2.14) still stops, with an "Excessive depth" error: the page is
parsed up to the element that would open a 2,049th level, and that element and the
rest of the HTML are left out, as past :data:`MAX_MARKUP`; no exception is raised and
nothing crashes (a 5,000-deep page comes out with the text before that element). The
walk of the tree and the loops over its blocks (tree operations, smoothing, features,
kept text, block paths, the HTML written back) keep stacks of their own rather than
recurse, compiled or not, so a tree 2,048 deep goes through them
(``tests/denoise/test_deep_pages.py``).
"""

from __future__ import annotations

import re

import numpy as np
from lxml import etree

from denoise.arguments import expect_text
from denoise.errors import PageError

#: Elements removed with their content before segmentation: never visible text. A
#: drop-down (``<select>``) shows one of its options, chosen at display, and a
#: ``<datalist>`` none: their options are a menu's entries, not text on the page (a blog's
#: archive of 500 months, a country picker), and read as text they outweighed a short
#: article in its page's main content.
DROPPED_TAGS = ("script", "style", "noscript", "template", "select", "datalist")
#: Modal dialogs (WAI-ARIA's ``role="dialog"`` or ``"alertdialog"``, not declared
#: non-modal, or ``aria-modal="true"``), removed with their content like
#: :data:`DROPPED_TAGS`: a cookie-consent or privacy-settings box, a login form, a
#: newsletter sign-up, a menu that flies in; hidden until opened, they are not the page's
#: text, and their paragraphs of legal prose outweighed short articles in main content.
#: A non-modal one (``aria-modal="false"``: a product page's "Description" sheet) stays.
#: Held out (``benchmarks/RESULTS.md``): WCXB's development split +0.6 F1, trafilatura's
#: set +0.2, the others unchanged. So are the elements HTML itself keeps hidden until a
#: button or a script shows them: those with a ``popover`` attribute (an app's install
#: prompt, a menu) and a ``<dialog>`` without ``open`` (one with it is shown, and stays).
#: The look at the bytes that spares most pages the search is case-sensitive: a
#: ``<DIV POPOVER>`` on a page with no lower-case "popover", "dialog" or "aria-modal"
#: stays. Held out: WCXB +0.06 (forums +0.8: an Invision forum's install prompt had won
#: over its thread; products -0.06), the other sets unchanged (none of their pages has
#: either); 11 pages better, 5 worse by at most 0.05; the models, trained on these pages
#: parsed without it, not retrained. Elements hidden by ``display: none`` or ``hidden``
#: go only when they are no prose (:func:`_remove_hidden`): React streams a page's
#: content in ``<div hidden>`` parts that its script moves into place, and removing every
#: hidden element cost WCXB 0.6 (an ad hoc comparison, ``RESULTS.md``).
_DIALOGS = etree.XPath(
    "//*[@aria-modal='true' or ((@role='dialog' or @role='alertdialog')"
    " and not(@aria-modal='false')) or @popover or self::dialog[not(@open)]]"
    "[not(self::html or self::body)]")
#: Elements hidden where they stand (:func:`_remove_hidden`): a ``hidden`` attribute or
#: an inline style of ``display: none`` or ``visibility: hidden``; the page shows them
#: only when a script or a click does. The path finds the attributes in C (a style's
#: words written in lower case, upper case or capitalized; a path over every element's
#: attributes costs as much as the parse), the pattern confirms a style's
#: (not "overflow: hidden", "list-style: none", "backface-visibility: hidden").
_HIDDEN = etree.XPath(
    "//@hidden | //@style[contains(., 'none') or contains(., 'hidden') or contains(., 'None')"
    " or contains(., 'Hidden') or contains(., 'NONE') or contains(., 'HIDDEN')]")
_HIDDEN_STYLE = re.compile(r"(?<![\w-])(?:display\s*:\s*none|visibility\s*:\s*hidden)",
                           re.IGNORECASE)
#: Characters of text outside links from which a hidden element is prose (with links
#: under half its text), and stays: what a click reveals in place, a tab's or an
#: accordion's panel, a FAQ's answer, a "read more"; and React's streamed parts, sent in
#: hidden ``<div>``\ s that its script moves into place.
HIDDEN_PROSE = 200
#: An ASCII word longer than this is no word of prose: encoded data (a consent manager's
#: hidden placeholders held 7,000 characters of base64 each), a URL.
LONGEST_WORD = 30
#: The parts of an inline SVG drawing never drawn where they stand: a tooltip's title, a
#: description, metadata, and definitions drawn only where a ``<use>`` places them (an
#: icon sprite's symbols). Their text is emptied at parsing: a shop page's sprite of
#: icons opened its text with their names ("add arrow-down arrow-left ... youtube").
#: What a drawing shows (``<text>``: a chart's labels, a syntax diagram's words) stays.
UNDRAWN = ("title", "desc", "metadata", "defs", "symbol")
#: A ruby's annotations: the reading set in small type above the characters it reads
#: (``<rt>``, Japanese furigana, Chinese pinyin) and the brackets shown around it where
#: ruby is not drawn (``<rp>``). Their text is emptied at parsing, as trafilatura and a
#: reader's copy of the text leave it out: a Japanese news page for learners gave
#: "子 こ どもへの体罰 たいばつ", each word beside its reading, and not one of its gold
#: sentences matched. The text after them (the ruby's next characters) stays. Their
#: container (``<rtc>``) goes with them. libxml2 does not close an unclosed ``<rt>`` at
#: the next ``<rb>`` or ``<rp>`` as browsers do, so such markup (rare) loses the base text
#: it swallows.
RUBY_ANNOTATIONS = ("rt", "rp", "rtc")
#: A MathML formula's other encodings, which a browser never renders: the TeX source
#: (``<annotation encoding="application/x-tex">``) or content markup beside the
#: presentation it draws. Their text is emptied at parsing: Wikipedia writes each formula
#: three ways (MathML, that TeX, and an image whose alternative text is the TeX), and its
#: pages' text held each formula's TeX after its symbols ("A Hermitian ⟺ a i j = a j i ¯
#: {\displaystyle A{\text{ Hermitian}}...}"). What the formula shows stays.
MATH_ANNOTATIONS = ("annotation", "annotation-xml")
#: Characters lxml's parser can leave in a tree (from references such as ``&#x0b;``) that
#: its setters refuse, as XML 1.0 has no place for them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: A ``<noscript>`` with less text than this is dropped without a second look.
NOSCRIPT_CHARS = 200
#: The most markup of a page that is parsed, counted as the ``<`` and ``=`` characters of
#: its HTML: one a tag (start or end tag, comment), one an attribute value, and the few
#: in scripts, URLs and text; as many as the elements, text nodes and valued attributes
#: of its tree, or more. A page with more is parsed up to the tag holding the one past
#: the limit, which bounds its tree to some 200 MB (``benchmarks/page_memory.py``: pages
#: of links, of cells, of attributes with values). The pages of the corpora have up to
#: 39,002 (content-dev) and 290,872 (a 5.3 MB manual on one page, a documentation site's).
MAX_MARKUP = 750_000
#: Bytes of HTML looked at per step when finding where the markup runs out.
_SCAN_BYTES = 1 << 20
_MARKUP = b"<="


def _parser(*, ids: bool = False) -> etree.HTMLParser:
    # One parser per process: lxml parsers are cheap to reuse and not shared across threads.
    # Without a table of id attributes (collect_ids) by default: the per-page path never
    # looks an element up by its id, and building and freeing the table is work on
    # every page; XPath's id() needs it.
    return etree.HTMLParser(
        remove_comments=True, remove_pis=True, no_network=True, recover=True,
        encoding="utf-8", default_doctype=False, collect_ids=ids, huge_tree=True,
    )


_PARSER = _parser()
_PARSER_WITH_IDS = _parser(ids=True)


def _markup_count(data: bytes, start: int = 0, end: int | None = None) -> int:
    return sum(data.count(bytes([char]), start, end) for char in _MARKUP)


def within_markup(data: bytes, limit: int) -> bytes:
    """``data`` up to the tag that holds its ``limit + 1``-th ``<`` or ``=`` (cut before
    that character when no ``<`` comes before it): all of it when it has no more than
    ``limit``. A count first, at memory speed (none for a page of no more than ``limit``
    bytes: nearly all); past the limit, one step of :data:`_SCAN_BYTES` at a time to
    the step where the markup runs out."""
    if len(data) <= limit or _markup_count(data) <= limit:
        return data
    left = limit
    for start in range(0, len(data), _SCAN_BYTES):
        found = _markup_count(data, start, start + _SCAN_BYTES)
        if found > left:
            step = np.frombuffer(data, np.uint8, min(_SCAN_BYTES, len(data) - start), start)
            at = start + int(np.flatnonzero((step == _MARKUP[0]) | (step == _MARKUP[1]))[left])
            tag = data.rfind(b"<", 0, at + 1)
            return data[:tag if tag >= 0 else at]
        left -= found
    return data  # not reached: the count said there were more


def settable(text: str) -> str:
    """``text`` without the characters an lxml setter refuses."""
    return _NOT_XML.sub("", text)


def remove_keeping_tail(element: etree._Element) -> None:
    """Remove ``element`` and its subtree; the text after it stays in the page."""
    parent = element.getparent()
    if parent is None:
        return
    tail = element.tail
    if tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = settable((previous.tail or "") + tail)
        else:
            parent.text = settable((parent.text or "") + tail)
    parent.remove(element)


def _empty_inside(element: etree._Element) -> None:
    """Empty the text of ``element`` and of all it holds, its own tail aside."""
    element.text = None
    for inner in element.iterdescendants():
        inner.text = inner.tail = None


def parse_html(html: str, source: str = "<html>", *, ids: bool = False,
               dropped: tuple[str, ...] = DROPPED_TAGS,
               undrawn_text: bool = False, hidden_elements: bool = False) -> etree._Element:
    """Parse ``html`` into an lxml element tree, or raise ``PageError`` naming ``source``;
    with ``ids``, the tree answers XPath's ``id()``. A page of more than
    :data:`MAX_MARKUP` tags and attribute values is parsed up to the last of them, and
    one nested more than 2,048 elements deep up to the element past that depth (see the
    module notes). The elements named in ``dropped``, modal dialogs, the dialogs and
    popovers HTML hides until shown (:data:`_DIALOGS`) and, unless ``hidden_elements``,
    the hidden elements that are no prose (:func:`_remove_hidden`) are removed with their
    content, and an ``<iframe>`` is emptied: the parser reads its content as text (the
    fallback of browsers without frames, or an ad's script written out), which no
    browser shows. So is a ``<textarea>``: its text is a form field's value, what a
    reader would type or copy (an embed code, a comment box's prompt), or markup a
    script keeps there as a template (a news site's hidden search box held 1,100
    characters of ``<div class=...>``); a licence shown in a read-only box is lost with
    them, a choice. The element stays for the form rule
    (:data:`~denoise.features.FILL_IN_BIT`), unless it is hidden: emptied, it goes with
    the hidden elements that are no prose. So is the text SVG drawings never draw in place
    (:data:`UNDRAWN`), a ruby's readings (:data:`RUBY_ANNOTATIONS`) and a formula's other
    encodings (:data:`MATH_ANNOTATIONS`), unless ``undrawn_text``; the elements stay, and
    this comes last, so a page parsed either way has the same elements.

    The text is handed to lxml as UTF-8 bytes so that an XML declaration in the page
    (common on XHTML sites) cannot make lxml refuse a ``str``.
    """
    data = within_markup(expect_text(html, "html", "parse_html").encode(
        "utf-8", errors="replace"), MAX_MARKUP)
    try:
        root = etree.fromstring(data, _PARSER_WITH_IDS if ids else _PARSER)
    except etree.LxmlError as error:
        raise PageError(source, f"unparsable HTML ({error})") from None
    if root is None:
        raise PageError(source, "unparsable HTML (no element found)")
    etree.strip_elements(root, *(tag for tag in dropped if tag != "noscript"), with_tail=False)
    # one walk in C, which finds "<IFrame>" too (a look at the bytes would not)
    for element in root.iter("iframe", "textarea"):
        if element.tag == "iframe":  # its content is raw text no browser shows
            element.text = None
        else:  # a form field's value, not the page's text
            _empty_inside(element)
    # a look at the bytes spares the walk
    if b"dialog" in data or b"aria-modal" in data or b"popover" in data:
        for element in _DIALOGS(root):
            remove_keeping_tail(element)
    if not hidden_elements:
        _remove_hidden(root)
    if "noscript" in dropped:
        if _content_in_noscript(root):
            etree.strip_tags(root, "noscript")
        else:
            etree.strip_elements(root, "noscript", with_tail=False)
    # after the noscript step, which counts text: both parses keep the same elements
    if not undrawn_text:  # one walk of the tree in C, cheaper than a look at all the bytes
        for element in root.iter("svg", "math", *RUBY_ANNOTATIONS):
            if element.tag == "svg":
                for part in element.iter(*UNDRAWN):
                    _empty_inside(part)
            elif element.tag == "math":
                for part in element.iter(*MATH_ANNOTATIONS):
                    _empty_inside(part)
            else:
                _empty_inside(element)
    return root


def _remove_hidden(root: etree._Element) -> None:
    """Remove the hidden elements (:data:`_HIDDEN`) that are no prose
    (:data:`HIDDEN_PROSE`), no ARIA panel (``role="tabpanel"`` or ``"region"``, or
    labelled by a tab or a heading: ``aria-labelledby``) and hold less than half the
    page's text (a page hiding its body until a script shows it), with their content: a
    menu's drop-down, a hover layer of retailers' links, a share-by-e-mail form and its
    error messages, a tooltip, the copy of a formula kept for screen readers beside its
    picture. Their words were kept as the page's text, and weighed in the choice of its
    main region: a short post lost to a sidebar. ``hidden="until-found"`` is no hiding:
    the browser's search shows it (a FAQ's answers).

    Innermost first, each on what it shows (:func:`_shown`): the hidden parts inside it
    that went are no text of its (a form's error messages are no prose of the form's),
    and one holding hidden parts that stay stays with them (a React part holding the
    panels of a product's specifications)."""
    hidden = list(dict.fromkeys(  # in document order, an element once
        value.getparent() for value in _HIDDEN(root)
        if (value.strip().lower() != "until-found" if value.attrname == "hidden"
            else _HIDDEN_STYLE.search(value))
        and value.getparent().tag not in ("html", "body")))
    if not hidden:
        return
    held: dict[etree._Element, int] = dict.fromkeys(hidden, 0)  # the characters each holds
    page = -1  # the page's characters as _shown counts them, counted when first needed
    for element in reversed(hidden):
        chars, linked, held[element] = _shown(element, held)
        if (held[element] > chars  # hidden parts kept inside it would go with it
                or element.get("role") in ("tabpanel", "region")
                or element.get("aria-labelledby") is not None
                or (chars - linked >= HIDDEN_PROSE and 2 * linked < chars)):
            continue
        if chars:  # (an empty one goes without counting the page)
            if page < 0:
                page = _page_chars(root)
            if 2 * chars >= page:
                continue
            page -= chars
        remove_keeping_tail(element)


#: Elements whose text :func:`_shown` never counts: what a drawing or a formula does not
#: draw (:data:`UNDRAWN`, :data:`MATH_ANNOTATIONS`), a ruby's readings, a formula's
#: symbols, read one by one ("a i j = a j i ¯"), never prose; and styles, which one of
#: the parses keeps (:func:`denoise.render.shaded_html`): both must remove the same
#: elements.
_UNCOUNTED = frozenset((*UNDRAWN, *MATH_ANNOTATIONS, *RUBY_ANNOTATIONS, "math", "style"))


def _page_chars(root: etree._Element) -> int:
    """The characters of the page's body as :func:`_shown` counts them (its
    :data:`_UNCOUNTED` elements left out): what half the page is."""
    body = root.find("body")
    body = root if body is None else body
    chars = _words_chars(" ".join(body.itertext()))
    left_out: set[etree._Element] = set()
    for element in body.iter(*_UNCOUNTED):
        if not any(parent in left_out for parent in element.iterancestors()):
            left_out.add(element)
            chars -= _words_chars(" ".join(element.itertext()))
    return chars


def _shown(element: etree._Element, held: dict[etree._Element, int]) -> tuple[int, int, int]:
    """The characters :func:`_words_chars` counts in the text ``element`` shows, of those
    in links, and of what it holds with the hidden elements kept inside it (keys of
    ``held``, judged before it: not shown, they add what they hold); :data:`_UNCOUNTED`
    is left out. One walk of the elements it shows: nested hidden elements are each
    read once."""
    chars = linked = inside = 0
    stack = [(element, element.tag == "a")]
    while stack:
        node, in_link = stack.pop()
        count = _words_chars(node.text)
        for child in node:  # those removed already are no children
            if child in held:
                inside += held[child]
            elif isinstance(child.tag, str) and child.tag not in _UNCOUNTED:
                stack.append((child, in_link or child.tag == "a"))
            count += _words_chars(child.tail)  # a child's tail is its parent's text
        chars += count
        linked += count if in_link else 0
    return chars, linked, chars + inside


def _words_chars(text: str | None) -> int:
    """The characters of the words of ``text``, a space after each; an ASCII word longer
    than :data:`LONGEST_WORD` left out (encoded data, a URL; a sentence of Chinese or
    Japanese, written without spaces, counts)."""
    if not text:
        return 0
    words = text.split()
    count = len("".join(words)) + len(words)  # in C: most texts have no long word
    if words and max(map(len, words)) > LONGEST_WORD:
        count -= sum(len(word) + 1 for word in words
                     if len(word) > LONGEST_WORD and word.isascii())
    return count


def _content_in_noscript(root: etree._Element) -> bool:
    """Whether the page's ``<noscript>`` elements hold more text than the rest of it.

    Usually a ``noscript`` holds an "enable JavaScript" notice or a tracking pixel, and
    is dropped. A page drawn by its scripts may put its content there instead, for
    readers without them (Discourse forums do; 12 of WCXB's development pages came out
    empty for want of it): then the ``noscript`` is the page, and its content stays in
    place. Only pages with :data:`NOSCRIPT_CHARS` or more of text in a ``noscript`` are
    counted through (after scripts and styles are gone). A ``noscript`` whose content is
    one text starting with ``<`` holds markup written as text (``&lt;div ...&gt;``: a
    page saved from a browser running its scripts, which reads a ``noscript`` as text,
    then serialised with its tracking pixels' tags escaped; a Yahoo! News page had 21 of
    them, 9,500 characters of tags against a 3,000-character article): its characters
    are not text of the page, and it does not count.
    """
    hidden = [node for node in root.iter("noscript")
              if next(node.iterancestors("noscript"), None) is None
              and (len(node) or not (node.text or "").lstrip().startswith("<"))]
    if not hidden:
        return False
    inside = sum(len(text.strip()) for node in hidden for text in node.itertext())
    if inside < NOSCRIPT_CHARS:
        return False
    return inside > sum(len(text.strip()) for text in root.itertext()) - inside
