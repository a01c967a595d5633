# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The one walk over a parsed page, compiled: the per-page hot loop of the toolkit.

Reads libxml2's nodes under an lxml element directly (lxml's public C API) and
returns the same arrays as the pure-Python walk in ``denoise.blocks``; the tests
check the two agree. Element tags, text and tails are read as lxml reads them:
an element's text is its leading text children, its tail the text siblings that
follow it, up to the next element.
"""

import numpy as np

cimport numpy as cnp
from cpython.mem cimport PyMem_Free, PyMem_Realloc
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_DecodeUTF8, PyUnicode_KIND, PyUnicode_READ
from libc.math cimport log
from libc.string cimport memcpy, strlen, strncmp, strstr

cdef extern from "<strings.h>" nogil:
    int strncasecmp(const char* a, const char* b, size_t n)

cimport lxml.includes.etreepublic as cetree
from lxml.includes.tree cimport xmlAttr, xmlNode, XML_ELEMENT_NODE, XML_TEXT_NODE, XML_CDATA_SECTION_NODE

cnp.import_array()

# the inverse of denoise.texthash.Q modulo 2**64
cdef cnp.uint64_t Q_INV = 0xF1DE83E19937733DULL
cetree.import_lxml__etree()


cdef inline bint _is_text(xmlNode* node) noexcept nogil:
    return node.type == XML_TEXT_NODE or node.type == XML_CDATA_SECTION_NODE


cdef inline Py_ssize_t _space_at(const unsigned char* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """Bytes of the whitespace character at ``s[i]`` (0 if none): exactly the characters
    Python's ``str.split()`` splits on, in UTF-8."""
    cdef unsigned char c = s[i]
    if c == 32 or (9 <= c <= 13) or (28 <= c <= 31):
        return 1
    if c < 0xC2:
        return 0
    if c == 0xC2 and i + 1 < n and (s[i + 1] == 0x85 or s[i + 1] == 0xA0):
        return 2
    if i + 2 >= n:
        return 0
    if c == 0xE1 and s[i + 1] == 0x9A and s[i + 2] == 0x80:
        return 3
    if c == 0xE2 and s[i + 1] == 0x80 and (s[i + 2] <= 0x8A or s[i + 2] == 0xA8
                                           or s[i + 2] == 0xA9 or s[i + 2] == 0xAF):
        return 3 if s[i + 2] >= 0x80 else 0
    if c == 0xE2 and s[i + 1] == 0x81 and s[i + 2] == 0x9F:
        return 3
    if c == 0xE3 and s[i + 1] == 0x80 and s[i + 2] == 0x80:
        return 3
    return 0


cdef struct TextBuffer:
    char* data
    Py_ssize_t size
    Py_ssize_t capacity
    Py_ssize_t chars        # characters written so far
    bint in_chunk           # a chunk is open (a non-space character was written)
    bint pending            # a space is owed before the next character of this chunk
    Py_ssize_t chunk_start  # character offset where the open chunk began
    Py_ssize_t chunk_byte   # byte offset where the open chunk began


cdef int _reserve(TextBuffer* buffer, Py_ssize_t extra) except -1:
    cdef Py_ssize_t wanted = buffer.size + extra
    cdef char* grown
    if wanted <= buffer.capacity:
        return 0
    wanted = max(wanted, 2 * buffer.capacity)
    grown = <char*>PyMem_Realloc(buffer.data, wanted)
    if grown is NULL:
        raise MemoryError()
    buffer.data = grown
    buffer.capacity = wanted
    return 0


cdef inline void _open_chunk(TextBuffer* buffer) noexcept nogil:
    """Start a chunk, or pay a pending space inside one, before writing a character."""
    if not buffer.in_chunk:
        if buffer.size:
            buffer.data[buffer.size] = 32
            buffer.size += 1
            buffer.chars += 1
        buffer.in_chunk = True
        buffer.pending = False
        buffer.chunk_start = buffer.chars
        buffer.chunk_byte = buffer.size
    elif buffer.pending:
        buffer.data[buffer.size] = 32
        buffer.size += 1
        buffer.chars += 1
        buffer.pending = False


cdef int _append(TextBuffer* buffer, const unsigned char* s) except -1:
    """Append one text node, collapsing whitespace runs into single spaces.

    Runs of printable ASCII are copied whole; other bytes go one at a time.
    """
    cdef Py_ssize_t n = strlen(<const char*>s)
    cdef Py_ssize_t i = 0
    cdef Py_ssize_t run
    cdef Py_ssize_t width
    cdef unsigned char c
    _reserve(buffer, n + 2)
    while i < n:
        c = s[i]
        if 32 < c < 128:
            run = i + 1
            while run < n and 32 < s[run] < 128:
                run += 1
            _open_chunk(buffer)
            memcpy(buffer.data + buffer.size, s + i, run - i)
            buffer.size += run - i
            buffer.chars += run - i
            i = run
            continue
        width = _space_at(s, i, n)
        if width:
            if buffer.in_chunk:
                buffer.pending = True
            i += width
            continue
        _open_chunk(buffer)
        buffer.data[buffer.size] = <char>c
        buffer.size += 1
        if (c & 0xC0) != 0x80:
            buffer.chars += 1
        i += 1
    return 0


cdef xmlNode* _text_run(TextBuffer* buffer, xmlNode* node) except? NULL:
    """Append the text nodes from ``node`` up to the next element; return that element."""
    while node is not NULL and node.type != XML_ELEMENT_NODE:
        if _is_text(node) and node.content is not NULL:
            _append(buffer, <const unsigned char*>node.content)
        node = node.next
    return node


cdef inline Py_ssize_t _close_chunk(
    TextBuffer* buffer, Py_ssize_t n_chunks, int holder, bint link, int[:] owner,
    cnp.npy_bool[:] in_link, long long[:] chunk_first, long long[:] chunk_last,
    long long[:] byte_first, long long[:] byte_last,
) noexcept:
    """Record the chunk just written (held by element ``holder``); return the new count."""
    owner[n_chunks] = holder
    in_link[n_chunks] = link
    chunk_first[n_chunks] = buffer.chunk_start
    chunk_last[n_chunks] = buffer.chars
    byte_first[n_chunks] = buffer.chunk_byte
    byte_last[n_chunks] = buffer.size
    buffer.in_chunk = False
    return n_chunks + 1


cdef class _Names:
    """Tag names to small ids; libxml2 interns names, so a pointer identifies a name.

    The first 64 names seen are also kept in a C array searched by pointer, which
    spares a dictionary lookup (and a boxed integer) per element on most pages.
    """
    cdef dict ids
    cdef list vocab
    cdef size_t seen[64]
    cdef int seen_ids[64]
    cdef int n_seen

    def __cinit__(self):
        self.ids = {}
        self.vocab = []
        self.n_seen = 0

    cdef inline int lookup(self, const char* name) except -1:
        cdef int i
        for i in range(self.n_seen):
            if self.seen[i] == <size_t>name:
                return self.seen_ids[i]
        found = self._lookup(name)
        if self.n_seen < 64:
            self.seen[self.n_seen] = <size_t>name
            self.seen_ids[self.n_seen] = found
            self.n_seen += 1
        return found

    cdef int _lookup(self, const char* name) except -1:
        key = <Py_ssize_t>name
        found = self.ids.get(key)
        if found is not None:
            return found
        tag = PyUnicode_DecodeUTF8(name, strlen(name), "replace")
        try:
            index = self.vocab.index(tag)
        except ValueError:
            index = len(self.vocab)
            self.vocab.append(tag)
        self.ids[key] = index
        return index


def walk(root):
    """Walk the elements under ``root`` in document order; see ``denoise.blocks.index_dom``."""
    cdef cetree._Element top = <cetree._Element?>root
    cdef xmlNode* start = top._c_node
    cdef xmlNode* node
    cdef xmlNode* child
    cdef Py_ssize_t count = 0
    # first pass: count the elements to size the arrays
    node = start
    while node is not NULL:
        count += 1
        child = node.children
        while child is not NULL and child.type != XML_ELEMENT_NODE:
            child = child.next
        if child is not NULL:
            node = child
            continue
        while node is not NULL:
            if node is start:
                node = NULL
                break
            child = node.next
            while child is not NULL and child.type != XML_ELEMENT_NODE:
                child = child.next
            if child is not NULL:
                node = child
                break
            node = node.parent
    ids_a = np.empty(count, dtype=np.int32)
    parents_a = np.empty(count, dtype=np.int32)
    depths_a = np.empty(count, dtype=np.int32)
    ends_a = np.empty(count, dtype=np.int32)
    starts_c = np.empty(count, dtype=np.int32)
    ends_c = np.empty(count, dtype=np.int32)
    lines_a = np.empty(count, dtype=np.int32)
    owner_a = np.empty(2 * count + 1, dtype=np.int32)
    link_a = np.empty(2 * count + 1, dtype=np.bool_)
    first_a = np.empty(2 * count + 1, dtype=np.int64)
    last_a = np.empty(2 * count + 1, dtype=np.int64)
    byte_first_a = np.empty(2 * count + 1, dtype=np.int64)
    byte_last_a = np.empty(2 * count + 1, dtype=np.int64)
    cdef int[:] tag_ids = ids_a
    cdef int[:] parents = parents_a
    cdef int[:] depths = depths_a
    cdef int[:] subtree_ends = ends_a
    cdef int[:] chunk_starts = starts_c
    cdef int[:] chunk_ends = ends_c
    cdef int[:] lines = lines_a
    cdef int[:] owner = owner_a
    cdef cnp.npy_bool[:] in_link = link_a
    cdef long long[:] chunk_first = first_a
    cdef long long[:] chunk_last = last_a
    cdef long long[:] byte_first = byte_first_a
    cdef long long[:] byte_last = byte_last_a
    cdef _Names names = _Names()
    cdef int[256] stack
    cdef list deep_stack = []
    cdef int depth = 0
    cdef int index = 0
    cdef int current
    cdef int links_open = 0
    cdef Py_ssize_t n_chunks = 0
    cdef TextBuffer buffer
    buffer.data = NULL
    buffer.size = buffer.capacity = buffer.chars = buffer.chunk_start = buffer.chunk_byte = 0
    buffer.in_chunk = buffer.pending = False
    node = start
    try:
        while True:
            # enter node
            current = index
            index += 1
            tag_ids[current] = names.lookup(<const char*>node.name)
            parents[current] = _top(stack, deep_stack, depth)
            depths[current] = depth
            lines[current] = node.line
            chunk_starts[current] = n_chunks
            _push(stack, deep_stack, depth, current)
            depth += 1
            if node.name[0] == 97 and node.name[1] == 0:  # <a>
                links_open += 1
            child = _text_run(&buffer, node.children)
            if buffer.in_chunk:
                n_chunks = _close_chunk(&buffer, n_chunks, current, links_open > 0, owner,
                                        in_link, chunk_first, chunk_last, byte_first, byte_last)
            if child is not NULL:
                node = child
                continue
            # leave nodes until one has a next element sibling
            while True:
                depth -= 1
                current = _top(stack, deep_stack, depth + 1)
                _pop(deep_stack, depth)
                chunk_ends[current] = n_chunks
                subtree_ends[current] = index
                if node.name[0] == 97 and node.name[1] == 0:  # </a>
                    links_open -= 1
                if node is start:
                    break
                child = _text_run(&buffer, node.next)
                if buffer.in_chunk:
                    n_chunks = _close_chunk(&buffer, n_chunks, _top(stack, deep_stack, depth),
                                            links_open > 0, owner, in_link, chunk_first,
                                            chunk_last, byte_first, byte_last)
                if child is not NULL:
                    node = child
                    break
                node = node.parent
            if node is start and depth == 0:
                break
        text = PyUnicode_DecodeUTF8(buffer.data, buffer.size, "replace")
        chunk_index = _chunk_index(<const unsigned char*>buffer.data, buffer.size,
                                   byte_first_a[:n_chunks].copy(), byte_last_a[:n_chunks].copy())
    finally:
        PyMem_Free(buffer.data)
    return (ids_a, names.vocab, parents_a, depths_a, ends_a, starts_c, ends_c, lines_a, text,
            first_a[:n_chunks].copy(), last_a[:n_chunks].copy(), link_a[:n_chunks].copy(),
            owner_a[:n_chunks].copy(), chunk_index)


cdef tuple _chunk_index(const unsigned char* data, Py_ssize_t size, first_a, last_a):
    """What ``denoise.texthash.index_chunks`` computes, in one loop over the text's bytes."""
    cdef long long[:] first = first_a
    cdef long long[:] last = last_a
    cdef Py_ssize_t n = first.shape[0]
    prefix_first_a = np.empty(n, dtype=np.uint64)
    prefix_last_a = np.empty(n, dtype=np.uint64)
    spaces_first_a = np.empty(n, dtype=np.int64)
    spaces_last_a = np.empty(n, dtype=np.int64)
    cdef cnp.uint64_t[:] prefix_first = prefix_first_a
    cdef cnp.uint64_t[:] prefix_last = prefix_last_a
    cdef long long[:] spaces_first = spaces_first_a
    cdef long long[:] spaces_last = spaces_last_a
    cdef cnp.uint64_t prefix = 0
    cdef cnp.uint64_t power = 1
    cdef long long spaces = 0
    cdef Py_ssize_t i, f = 0, l = 0
    for i in range(size + 1):
        # prefix and spaces now cover the bytes before i
        while f < n and first[f] == i:
            prefix_first[f] = prefix
            spaces_first[f] = spaces
            f += 1
        while l < n and last[l] == i:
            prefix_last[l] = prefix
            spaces_last[l] = spaces
            l += 1
        if i < size:
            prefix = prefix + <cnp.uint64_t>data[i] * power
            power = power * Q_INV
            spaces += data[i] == 32
    return (first_a, last_a, prefix_first_a, prefix_last_a, spaces_first_a, spaces_last_a)


cdef inline int _top(int* stack, list deep_stack, int depth):
    """The element open at ``depth - 1`` (-1 at the top)."""
    if depth <= 0:
        return -1
    if depth <= 256:
        return stack[depth - 1]
    return deep_stack[depth - 257]


cdef inline void _push(int* stack, list deep_stack, int depth, int value):
    if depth < 256:
        stack[depth] = value
    else:
        deep_stack.append(value)


cdef inline void _pop(list deep_stack, int depth):
    if depth >= 256:
        deep_stack.pop()


def fill_down(const int[:] parents, const int[:] marks):
    """Per node, the mark of its nearest marked ancestor-or-self (-1 where none); preorder."""
    cdef Py_ssize_t n = parents.shape[0]
    out_a = np.empty(n, dtype=np.int32)
    cdef int[:] out = out_a
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = marks[i]
        if out[i] < 0 and parents[i] >= 0:
            out[i] = out[parents[i]]
    return out_a


def and_down(const int[:] parents, const cnp.npy_bool[:] flags):
    """Per node, whether it and all its ancestors are flagged; preorder."""
    cdef Py_ssize_t n = parents.shape[0]
    out_a = np.empty(n, dtype=np.bool_)
    cdef cnp.npy_bool[:] out = out_a
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = flags[i] and (parents[i] < 0 or out[parents[i]])
    return out_a


def or_up(const int[:] parents, const cnp.npy_bool[:] flags):
    """Per node, whether any proper descendant is flagged; preorder."""
    cdef Py_ssize_t n = parents.shape[0]
    out_a = np.zeros(n, dtype=np.bool_)
    cdef cnp.npy_bool[:] out = out_a
    cdef Py_ssize_t i
    for i in range(n - 1, -1, -1):
        if parents[i] >= 0 and (out[i] or flags[i]):
            out[parents[i]] = True
    return out_a


def distinct_words(str text, const long long[:] starts, const long long[:] ends, int wanted):
    """Per span of ``text``, whether it has at least ``wanted`` (<= 8) distinct words.

    ``text`` is whitespace-collapsed, so words are separated by single spaces.
    """
    cdef Py_ssize_t n = starts.shape[0]
    out_a = np.zeros(n, dtype=np.bool_)
    cdef cnp.npy_bool[:] out = out_a
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t word_start[8]
    cdef Py_ssize_t word_end[8]
    cdef Py_ssize_t b, i, j, m, length
    cdef int found, w
    cdef bint new
    if not 0 < wanted <= 8:
        raise ValueError(f"wanted must be in 1..8, got {wanted}")
    for b in range(n):
        i = starts[b]
        found = 0
        while i < ends[b] and found < wanted:
            j = i
            while j < ends[b] and PyUnicode_READ(kind, data, j) != 32:
                j += 1
            length = j - i
            new = True
            for w in range(found):
                if word_end[w] - word_start[w] != length:
                    continue
                m = 0
                while m < length and (PyUnicode_READ(kind, data, word_start[w] + m)
                                      == PyUnicode_READ(kind, data, i + m)):
                    m += 1
                if m == length:
                    new = False
                    break
            if new and length:
                word_start[found] = i
                word_end[found] = j
                found += 1
            i = j + 1
        out[b] = found >= wanted
    return out_a


# Class / id words that hint at a block's role, one bit a group (see denoise.features).
DEF N_CUES = 40  # noqa
cdef const char* _CUE_WORDS[N_CUES]
_CUE_WORDS[:] = [b"nav", b"menu", b"breadcrumb", b"toolbar", b"skip", b"pagination", b"pager", b"footer", b"copyright", b"legal", b"header", b"masthead", b"banner", b"logo", b"sidebar", b"aside", b"widget", b"related", b"rail", b"advert", b"sponsor", b"promo", b"social", b"share", b"subscribe", b"newsletter", b"cookie", b"comment", b"reply", b"content", b"article", b"main", b"post", b"entry", b"story", b"text", b"body", b"search", b"login", b"signin"]
cdef int _CUE_BITS[N_CUES]
_CUE_BITS[:] = [0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7]


cdef inline unsigned int _fnv(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    cdef unsigned int h = 2166136261u
    cdef Py_ssize_t i
    cdef unsigned char c
    for i in range(n):
        c = s[i]
        if 65 <= c <= 90:
            c += 32
        h = (h ^ c) * 16777619u
    return h if h > 1 else h + 2


cdef unsigned int _host_hash(const unsigned char* href) noexcept nogil:
    """0 for a relative link, 1 for one that goes nowhere (#, javascript:, mailto:),
    else a hash of the host (``www.`` dropped; a Wayback capture's inner host)."""
    cdef const unsigned char* s = href
    cdef const unsigned char* inner
    cdef const unsigned char* host
    cdef Py_ssize_t n, port
    while s[0] == 32 or s[0] == 9 or s[0] == 10 or s[0] == 13:
        s += 1
    if s[0] == 0 or s[0] == 35:  # empty or #fragment
        return 1
    if (strncasecmp(<const char*>s, "javascript:", 11) == 0
            or strncasecmp(<const char*>s, "mailto:", 7) == 0
            or strncasecmp(<const char*>s, "tel:", 4) == 0):
        return 1
    inner = <const unsigned char*>strstr(<const char*>s, "/web/")
    if inner is not NULL:
        inner = <const unsigned char*>strstr(<const char*>inner, "://")
        if inner is NULL:
            return 0
        host = inner + 3
    else:
        host = <const unsigned char*>strstr(<const char*>s, "//")
        if host is NULL:
            return 0
        if host != s and (host - 1)[0] != 58:  # "//" not after a scheme's colon: a path
            return 0
        host += 2
    n = 0  # the authority ends at /, ? or #; user information ends at @
    while host[n] != 0 and host[n] != 47 and host[n] != 63 and host[n] != 35:
        if host[n] == 64:
            host += n + 1
            n = 0
            continue
        n += 1
    if n >= 4 and strncasecmp(<const char*>host, "www.", 4) == 0:
        host += 4
        n -= 4
    port = 0
    while port < n and host[port] != 58:
        port += 1
    return _fnv(host, port) if port else 0


def host_hash(bytes host):
    """The hash ``markup_stats`` gives links to ``host`` (``www.`` dropped)."""
    cdef const unsigned char* s = host
    if host.lower().startswith(b"www."):
        s += 4
    return _fnv(s, strlen(<const char*>s))


cdef unsigned int _cues_of(const unsigned char* value) noexcept nogil:
    """The cue bits of one attribute value (matched in lower case, first 255 bytes)."""
    cdef char low[256]
    cdef Py_ssize_t i = 0
    cdef unsigned int bits = 0
    cdef unsigned char c
    cdef int k
    while value[i] != 0 and i < 255:
        c = value[i]
        low[i] = <char>(c + 32 if 65 <= c <= 90 else c)
        i += 1
    low[i] = 0
    if i == 0:
        return 0
    for k in range(N_CUES):
        if not (bits >> _CUE_BITS[k]) & 1 and strstr(low, _CUE_WORDS[k]) is not NULL:
            bits |= 1u << _CUE_BITS[k]
    return bits


def markup_stats(root):
    """Per element in walk order: bytes of its tags and attributes, the host hash of
    its ``href`` (``<a>`` only, 0 otherwise; see ``_host_hash``), and the cue bits of
    its ``id`` and ``class``. A second pass over libxml2's nodes: no Python objects."""
    cdef cetree._Element top = <cetree._Element?>root
    cdef xmlNode* start = top._c_node
    cdef xmlNode* node
    cdef xmlNode* child
    cdef xmlAttr* attr
    cdef const unsigned char* value
    cdef Py_ssize_t count = 0
    cdef Py_ssize_t index = 0
    cdef Py_ssize_t size, name_size
    cdef unsigned int hashed
    node = start
    while node is not NULL:  # count, as the walk does
        count += 1
        node = _next_element(node, start)
    bytes_a = np.empty(count, dtype=np.int32)
    hosts_a = np.zeros(count, dtype=np.uint32)
    cues_a = np.zeros(count, dtype=np.uint8)
    cdef int[:] markup = bytes_a
    cdef cnp.uint32_t[:] hosts = hosts_a
    cdef cnp.uint8_t[:] cues = cues_a
    node = start
    while node is not NULL:
        name_size = strlen(<const char*>node.name)
        size = 2 * name_size + 5
        attr = node.properties
        while attr is not NULL:
            value = <const unsigned char*>b""
            if attr.children is not NULL and attr.children.content is not NULL:
                value = <const unsigned char*>attr.children.content
            size += strlen(<const char*>attr.name) + strlen(<const char*>value) + 4
            if strncmp(<const char*>attr.name, "class", 6) == 0 or strncmp(<const char*>attr.name, "id", 3) == 0:
                cues[index] |= _cues_of(value)
            elif (name_size == 1 and node.name[0] == 97
                  and strncmp(<const char*>attr.name, "href", 5) == 0):
                hosts[index] = _host_hash(value)
            attr = attr.next
        markup[index] = <int>min(size, 2147483647)
        index += 1
        node = _next_element(node, start)
    return bytes_a, hosts_a, cues_a


cdef inline xmlNode* _next_element(xmlNode* node, xmlNode* start) noexcept nogil:
    """The element after ``node`` in document order, staying under ``start``."""
    cdef xmlNode* child = node.children
    while child is not NULL and child.type != XML_ELEMENT_NODE:
        child = child.next
    if child is not NULL:
        return child
    while node is not NULL:
        if node is start:
            return NULL
        child = node.next
        while child is not NULL and child.type != XML_ELEMENT_NODE:
            child = child.next
        if child is not NULL:
            return child
        node = node.parent
    return NULL


cdef packed struct TreeNode:
    int feature  # -1 at a leaf
    float threshold  # go left when x <= threshold
    int left
    int right


def forest_proba(const TreeNode[:] nodes, const float[:] value, const int[:] roots,
                 const float[:, :] X):
    """Mean leaf value over the trees for each row of ``X`` (see ``denoise.model``).

    Nodes are packed one struct each (16 bytes), so a step down a tree touches one
    cache line. The model loader has checked that every child index is larger than
    its parent's, so each walk ends.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t trees = roots.shape[0]
    out_a = np.zeros(n, dtype=np.float64)
    cdef double[:] out = out_a
    cdef Py_ssize_t i, t
    cdef int node
    cdef double total
    for i in range(n):
        total = 0.0
        for t in range(trees):
            node = roots[t]
            while nodes[node].feature >= 0:
                if X[i, nodes[node].feature] <= nodes[node].threshold:
                    node = nodes[node].left
                else:
                    node = nodes[node].right
            total += value[node]
        out[i] = total / trees if trees else 0.0
    return out_a


def or_down(const int[:] parents, const cnp.uint8_t[:] bits):
    """Per node, the OR of its own and all its ancestors' bits; preorder."""
    cdef Py_ssize_t n = parents.shape[0]
    out_a = np.empty(n, dtype=np.uint8)
    cdef cnp.uint8_t[:] out = out_a
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = bits[i] | (out[parents[i]] if parents[i] >= 0 else 0)
    return out_a


def sibling_ranks(const int[:] parents):
    """Per node, its index among its parent's children, and their number; preorder."""
    cdef Py_ssize_t n = parents.shape[0]
    rank_a = np.empty(n, dtype=np.float64)
    size_a = np.empty(n, dtype=np.float64)
    children_a = np.zeros(n + 1, dtype=np.int64)
    cdef double[:] rank = rank_a
    cdef double[:] size = size_a
    cdef long long[:] children = children_a
    cdef Py_ssize_t i, p
    for i in range(n):
        p = parents[i] if parents[i] >= 0 else n  # roots share a slot
        rank[i] = children[p]
        children[p] += 1
    for i in range(n):
        size[i] = children[parents[i] if parents[i] >= 0 else n]
    return rank_a, size_a


def node_kl(const long long[:] ids, const long long[:, :] spans, Py_ssize_t vocab_size):
    """Per span of ``ids``: KL divergence from its word distribution to the rest of the
    page's, add-one smoothed (see ``denoise.features._kl_python``)."""
    cdef Py_ssize_t n = spans.shape[0]
    cdef Py_ssize_t total = ids.shape[0]
    out_a = np.zeros(n, dtype=np.float64)
    page_a = np.zeros(vocab_size + 1, dtype=np.int64)
    here_a = np.zeros(vocab_size + 1, dtype=np.int64)
    cdef double[:] out = out_a
    cdef long long[:] page = page_a
    cdef long long[:] here = here_a
    cdef Py_ssize_t i, j, length
    cdef long long w
    cdef double p_block, p_rest, rest, kl

    for j in range(total):
        page[ids[j]] += 1
    for i in range(n):
        length = spans[i, 1] - spans[i, 0]
        if length <= 0:
            continue
        rest = <double>(total - length) + vocab_size
        for j in range(spans[i, 0], spans[i, 1]):
            here[ids[j]] += 1
        kl = 0.0
        for j in range(spans[i, 0], spans[i, 1]):
            w = ids[j]
            if here[w] > 0:  # first sight of the word in this span: its term, once
                p_block = here[w] / <double>length
                p_rest = (page[w] - here[w] + 1.0) / rest
                kl += p_block * log(p_block / p_rest)
                here[w] = -here[w]
        for j in range(spans[i, 0], spans[i, 1]):
            here[ids[j]] = 0
        out[i] = kl
    return out_a
