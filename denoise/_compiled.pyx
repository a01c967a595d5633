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
from libc.string cimport memcpy, strlen

cimport lxml.includes.etreepublic as cetree
from lxml.includes.tree cimport xmlNode, XML_ELEMENT_NODE, XML_TEXT_NODE, XML_CDATA_SECTION_NODE

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
