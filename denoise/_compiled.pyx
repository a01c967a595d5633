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
from cpython.unicode cimport (
    Py_UCS1,
    PyUnicode_1BYTE_DATA,
    PyUnicode_DATA,
    PyUnicode_DecodeUTF8,
    PyUnicode_KIND,
    PyUnicode_New,
    PyUnicode_READ,
)
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
    int feature  # 0 at a leaf (whose children are itself)
    float threshold  # go left when x <= threshold
    int left
    int right


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


# ---- the words of a page's text (denoise.features) and of a model's vocabulary ----------

cdef extern from *:
    """
    #define WEBDENOISE_FNV_OFFSET 14695981039346656037ULL
    #define WEBDENOISE_FNV_PRIME 1099511628211ULL
    """
    cnp.uint64_t FNV_OFFSET "WEBDENOISE_FNV_OFFSET"
    cnp.uint64_t FNV_PRIME "WEBDENOISE_FNV_PRIME"


cdef inline cnp.uint64_t _mix(cnp.uint64_t h, cnp.uint32_t c) noexcept nogil:
    """One step of FNV-1a over code points."""
    return (h ^ c) * FNV_PRIME


cdef inline cnp.uint32_t _lower_ascii(cnp.uint32_t c) noexcept nogil:
    return c + 32 if 65 <= c <= 90 else c


cdef cnp.uint64_t _str_hash(str s):
    """The hash ``_StringTable`` keys a string by: FNV-1a over its code points."""
    cdef int kind = PyUnicode_KIND(s)
    cdef void* data = PyUnicode_DATA(s)
    cdef Py_ssize_t k
    cdef cnp.uint64_t h = FNV_OFFSET
    for k in range(len(s)):
        h = _mix(h, PyUnicode_READ(kind, data, k))
    return h


cdef class _StringTable:
    """Distinct strings to ids in order of arrival: open addressing over 64-bit hashes,
    every hit confirmed character by character, so ids are exact, as a dict's would be.

    A probe can be made from a span of another string (lower-cased in ASCII on the fly),
    so a word is looked up before any Python string is made for it.
    """
    cdef list words
    cdef object hashes_a
    cdef cnp.uint64_t[:] hashes
    cdef object slots_a
    cdef int[:] slots
    cdef Py_ssize_t mask

    def __cinit__(self, Py_ssize_t capacity):
        cdef Py_ssize_t size = 8
        while size < 2 * capacity:
            size <<= 1
        self.words = []
        self.hashes_a = np.empty(max(capacity, 1), dtype=np.uint64)
        self.hashes = self.hashes_a
        self.slots_a = np.full(size, -1, dtype=np.int32)
        self.slots = self.slots_a
        self.mask = size - 1

    cdef Py_ssize_t find(self, int kind, void* data, Py_ssize_t start, Py_ssize_t length,
                         cnp.uint64_t h, bint lower, Py_ssize_t* slot_out):
        """The id of ``data[start:start + length]`` (ASCII-lowered if ``lower``), or -1
        with ``slot_out`` set to the free slot where it would go."""
        cdef Py_ssize_t slot = <Py_ssize_t>(h & <cnp.uint64_t>self.mask)
        cdef int e
        cdef Py_ssize_t k
        cdef str word
        cdef int wkind
        cdef void* wdata
        cdef cnp.uint32_t c
        while True:
            e = self.slots[slot]
            if e < 0:
                slot_out[0] = slot
                return -1
            if self.hashes[e] == h:
                word = <str>self.words[e]
                if len(word) == length:
                    wkind = PyUnicode_KIND(word)
                    wdata = PyUnicode_DATA(word)
                    k = 0
                    while k < length:
                        c = PyUnicode_READ(kind, data, start + k)
                        if lower:
                            c = _lower_ascii(c)
                        if c != PyUnicode_READ(wkind, wdata, k):
                            break
                        k += 1
                    if k == length:
                        return e
            slot = (slot + 1) & self.mask

    cdef Py_ssize_t add(self, str word, cnp.uint64_t h, Py_ssize_t slot):
        """Give ``word`` (not in the table; ``slot`` from ``find``) the next id."""
        cdef Py_ssize_t e = len(self.words)
        self.words.append(word)
        self.hashes[e] = h
        self.slots[slot] = <int>e
        return e

    cdef Py_ssize_t find_str(self, str word, cnp.uint64_t h, Py_ssize_t* slot_out):
        return self.find(PyUnicode_KIND(word), PyUnicode_DATA(word), 0, len(word), h, False,
                         slot_out)


cdef class WordTable:
    """A model's vocabulary (word -> index) for :meth:`lookup`, made once per model."""
    cdef _StringTable table
    cdef readonly list words

    def __cinit__(self, list words):
        cdef Py_ssize_t slot
        cdef cnp.uint64_t h
        self.words = list(words)
        self.table = _StringTable(len(self.words))
        for word in self.words:
            h = _str_hash(word)
            if self.table.find_str(word, h, &slot) >= 0:
                raise ValueError(f"word {word!r} is in the vocabulary twice")
            self.table.add(word, h, slot)

    def __reduce__(self):
        return (WordTable, (self.words,))

    def __len__(self):
        return len(self.words)

    def lookup(self, list words):
        """Per word, its index in the vocabulary, -1 when not in it (int64)."""
        cdef Py_ssize_t n = len(words)
        cdef Py_ssize_t i, slot
        out_a = np.empty(n, dtype=np.int64)
        cdef long long[:] out = out_a
        cdef str word
        for i in range(n):
            word = <str?>words[i]
            out[i] = self.table.find_str(word, _str_hash(word), &slot)
        return out_a


def page_words(str text, const long long[:] positions, const cnp.uint8_t[:] classes,
               str trimmed, marked):
    """One pass over a page's text: its words and character classes.

    Returns what ``denoise.features`` computes in Python (``_tokens``,
    ``_char_class_counts``, the title words): the distinct words (lower case,
    ``trimmed`` characters stripped, in order of first use), per word of
    ``text.split(" ")`` its index among them, per position of ``positions`` (sorted)
    the counts of each of the six class bits of ``classes`` (indexed by code point,
    capped at its last entry) and of spaces before it, and per distinct word whether
    it is in ``marked``. ASCII words are lowered and trimmed here; a word with other
    characters goes through ``str.lower`` and ``str.strip``, as Python would.
    """
    cdef Py_ssize_t n = len(text)
    cdef Py_ssize_t m = positions.shape[0]
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef cnp.uint32_t cap = <cnp.uint32_t>(classes.shape[0] - 1)
    counts_a = np.zeros((m, 7), dtype=np.int64)
    cdef long long[:, :] counts = counts_a
    if n == 0:
        return [], np.zeros(0, dtype=np.int64), counts_a, np.zeros(0, dtype=np.bool_)
    cdef Py_ssize_t tokens = 1
    cdef Py_ssize_t i, j, k, a, b, p = 0, t = 0, slot, raw_slot, length, n_raw = 0
    cdef Py_ssize_t raw_size = 8
    cdef cnp.uint32_t c
    cdef cnp.uint8_t bits
    cdef cnp.uint64_t h, th
    cdef bint ascii, found
    cdef long long id_
    cdef long long running[7]
    cdef str word
    cdef Py_UCS1* out
    for k in range(7):
        running[k] = 0
    for i in range(n):
        if PyUnicode_READ(kind, data, i) == 32:
            tokens += 1
    while raw_size < 2 * tokens:
        raw_size <<= 1
    ids_a = np.empty(tokens, dtype=np.int64)
    cdef long long[:] ids = ids_a
    # the distinct raw words (spans of the text) with their word's id
    raw_slots_a = np.full(raw_size, -1, dtype=np.int32)
    raw_a = np.empty((tokens, 3), dtype=np.int64)  # start, length, id
    raw_hash_a = np.empty(tokens, dtype=np.uint64)
    cdef int[:] raw_slots = raw_slots_a
    cdef long long[:, :] raw = raw_a
    cdef cnp.uint64_t[:] raw_hash = raw_hash_a
    cdef Py_ssize_t raw_mask = raw_size - 1
    cdef int e
    cdef _StringTable table = _StringTable(tokens)
    i = 0
    while True:
        # one word: [i, j)
        h = FNV_OFFSET
        ascii = True
        j = i
        while j < n:
            while p < m and positions[p] <= j:
                for k in range(7):
                    counts[p, k] = running[k]
                p += 1
            c = PyUnicode_READ(kind, data, j)
            if c == 32:
                break
            bits = classes[c if c < cap else cap]
            if bits:
                for k in range(6):
                    running[k] += (bits >> k) & 1
            h = _mix(h, c)
            ascii = ascii and c < 128
            j += 1
        length = j - i
        # seen this raw word before?
        slot = <Py_ssize_t>(h & <cnp.uint64_t>raw_mask)
        found = False
        while True:
            e = raw_slots[slot]
            if e < 0:
                break
            if raw_hash[e] == h and raw[e, 1] == length:
                k = 0
                while k < length and (PyUnicode_READ(kind, data, raw[e, 0] + k)
                                      == PyUnicode_READ(kind, data, i + k)):
                    k += 1
                if k == length:
                    found = True
                    id_ = raw[e, 2]
                    break
            slot = (slot + 1) & raw_mask
        if not found:
            raw_slot = slot
            if ascii:
                a, b = i, j
                while a < b and classes[PyUnicode_READ(kind, data, a)] & 1:
                    a += 1
                while b > a and classes[PyUnicode_READ(kind, data, b - 1)] & 1:
                    b -= 1
                th = FNV_OFFSET
                for k in range(a, b):
                    th = _mix(th, _lower_ascii(PyUnicode_READ(kind, data, k)))
                id_ = table.find(kind, data, a, b - a, th, True, &slot)
                if id_ < 0:
                    word = PyUnicode_New(b - a, 127)
                    out = PyUnicode_1BYTE_DATA(word)
                    for k in range(a, b):
                        out[k - a] = <Py_UCS1>_lower_ascii(PyUnicode_READ(kind, data, k))
                    id_ = table.add(word, th, slot)
            else:
                word = text[i:j].lower().strip(trimmed)
                th = _str_hash(word)
                id_ = table.find_str(word, th, &slot)
                if id_ < 0:
                    id_ = table.add(word, th, slot)
            raw[n_raw, 0] = i
            raw[n_raw, 1] = length
            raw[n_raw, 2] = id_
            raw_hash[n_raw] = h
            raw_slots[raw_slot] = <int>n_raw
            n_raw += 1
        ids[t] = id_
        t += 1
        if j >= n:
            break
        while p < m and positions[p] <= j:  # the space at j
            for k in range(7):
                counts[p, k] = running[k]
            p += 1
        bits = classes[32]
        for k in range(6):
            running[k] += (bits >> k) & 1
        running[6] += 1
        i = j + 1
    while p < m:
        for k in range(7):
            counts[p, k] = running[k]
        p += 1
    flags_a = np.zeros(len(table.words), dtype=np.bool_)
    cdef cnp.npy_bool[:] flags = flags_a
    for word in marked:
        id_ = table.find_str(word, _str_hash(word), &slot)
        if id_ >= 0:
            flags[id_] = True
    return table.words, ids_a, counts_a, flags_a


def element_counts(const int[:] tag_ids, const int[:] markup_bytes,
                   const cnp.uint32_t[:] hosts, const int[:] family_of_tag, int n_families,
                   int link_tag, int image_tag, cnp.uint32_t page_host,
                   const long long[:] positions):
    """Per position of ``positions`` (sorted), running counts over the elements before it:
    links, images, markup bytes, links going somewhere, of those the ones staying on
    the site (relative or to ``page_host``), then elements per tag family
    (``family_of_tag``: per tag id, its family or -1). What ``denoise.features`` sums
    with one prefix sum over a matrix of indicators, without the matrix."""
    cdef Py_ssize_t n = tag_ids.shape[0]
    cdef Py_ssize_t m = positions.shape[0]
    cdef Py_ssize_t width = 5 + n_families
    counts_a = np.zeros((m, width), dtype=np.int64)
    cdef long long[:, :] counts = counts_a
    running_a = np.zeros(width, dtype=np.int64)
    cdef long long[:] running = running_a
    cdef Py_ssize_t i, k, p = 0
    cdef int tag, family
    cdef cnp.uint32_t host
    for i in range(n + 1):
        while p < m and positions[p] <= i:
            for k in range(width):
                counts[p, k] = running[k]
            p += 1
        if i == n:
            break
        tag = tag_ids[i]
        if tag == link_tag:
            running[0] += 1
            host = hosts[i]
            if host != 1:
                running[3] += 1
                if host == 0 or host == page_host:
                    running[4] += 1
        elif tag == image_tag:
            running[1] += 1
        running[2] += markup_bytes[i]
        family = family_of_tag[tag]
        if family >= 0:
            running[5 + family] += 1
    while p < m:
        for k in range(width):
            counts[p, k] = running[k]
        p += 1
    return counts_a


def token_sums(const long long[:] word_ids, const long long[:] token_ids,
               const double[:] weights, const long long[:, :] spans):
    """Per span of tokens: the sum of its words' ``weights`` (``word_ids``: per distinct
    word of the page, its index in ``weights`` or -1 for none) and how many have one.

    Sums are differences of a running sum in token order, as ``np.cumsum`` makes them,
    so they equal ``denoise.model``'s numpy path to the last bit.
    """
    cdef Py_ssize_t n = token_ids.shape[0]
    cdef Py_ssize_t m = spans.shape[0]
    prefix_a = np.empty(n + 1, dtype=np.float64)
    known_a = np.empty(n + 1, dtype=np.int64)
    cdef double[:] prefix = prefix_a
    cdef long long[:] known = known_a
    total_a = np.empty(m, dtype=np.float64)
    words_a = np.empty(m, dtype=np.float64)
    cdef double[:] total = total_a
    cdef double[:] words = words_a
    cdef Py_ssize_t i
    cdef long long w
    prefix[0] = 0.0
    known[0] = 0
    for i in range(n):
        w = word_ids[token_ids[i]]
        prefix[i + 1] = prefix[i] + (weights[w] if w >= 0 else 0.0)
        known[i + 1] = known[i] + (w >= 0)
    for i in range(m):
        total[i] = prefix[spans[i, 1]] - prefix[spans[i, 0]]
        words[i] = <double>(known[spans[i, 1]] - known[spans[i, 0]])
    return total_a, words_a


def forest_proba(const TreeNode[::1] nodes, const float[::1] value, const int[::1] roots,
                 const int[::1] steps, const float[:, ::1] X):
    """Mean leaf value over the trees for each row of ``X`` (see ``denoise.model``).

    Nodes are packed one struct each (16 bytes), and leaves loop onto themselves
    (feature 0, both children the leaf), so with ``steps[t]`` tree ``t``'s depth every
    walk takes the same number of steps without a test for leaves, a step picks a
    child by a mask rather than a branch, and eight rows go down a tree together so
    their loads overlap; one tree at a time stays in the cache. Each row sums the
    trees in order.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t width = X.shape[1]
    cdef Py_ssize_t trees = roots.shape[0]
    out_a = np.zeros(n, dtype=np.float64)
    cdef double[:] out = out_a
    if n == 0:
        return out_a
    cdef Py_ssize_t i, t, k
    cdef int s, root, go
    cdef int at[8]
    cdef const float* row[8]
    cdef const TreeNode* tree = &nodes[0]
    cdef const TreeNode* node
    for t in range(trees):
        root = roots[t]
        i = 0
        while i < n:
            for k in range(8):  # past the last row, walk it again and drop the result
                row[k] = &X[min(i + k, n - 1), 0]
                at[k] = root
            for s in range(steps[t]):
                for k in range(8):
                    node = tree + at[k]
                    go = -<int>(row[k][node.feature] <= node.threshold)
                    at[k] = node.right ^ ((node.left ^ node.right) & go)
            for k in range(min(8, n - i)):
                out[i + k] += value[at[k]]
            i += 8
    if trees:
        for i in range(n):
            out[i] = out[i] / trees
    return out_a
