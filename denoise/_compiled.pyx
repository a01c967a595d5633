# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The one walk over a parsed page, compiled: the per-page hot loop of the toolkit.

Reads libxml2's nodes under an lxml element directly (lxml's public C API) and
returns the same arrays as the pure-Python walk in ``denoise.blocks``; the tests
check the two agree. Element tags, text and tails are read as lxml reads them:
an element's text is its leading text children, its tail the text siblings that
follow it, up to the next element.

Other packages' kernels are their own extensions: ``kwx._kernels``, ``mining._kernels``,
``engine._kernels``.
"""

import numpy as np

cimport numpy as cnp
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.ref cimport PyObject
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
from libc.string cimport memcpy, memset, strcmp, strlen, strncmp, strstr

cdef extern from "<strings.h>" nogil:
    int strncasecmp(const char* a, const char* b, size_t n)

cimport lxml.includes.etreepublic as cetree
from lxml.includes.tree cimport (
    xmlAttr, xmlNode, XML_CDATA_SECTION_NODE, XML_ELEMENT_NODE, XML_TEXT_NODE,
    XML_XINCLUDE_END, XML_XINCLUDE_START,
)

cnp.import_array()

# denoise.texthash.Q, and its inverse modulo 2**64
cdef cnp.uint64_t Q = 0x9E3779B97F4A7C15ULL
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
    bint apart              # since the last chunk: a break, so a space before the next
    bint link_ended         # since the last chunk: an <a> ended (another one breaks)
    Py_ssize_t chunk_start  # character offset where the open chunk began
    Py_ssize_t chunk_byte   # byte offset where the open chunk began


cdef inline void _empty_buffer(TextBuffer* buffer) noexcept nogil:
    buffer.data = NULL
    buffer.size = buffer.capacity = buffer.chars = buffer.chunk_start = buffer.chunk_byte = 0
    buffer.in_chunk = buffer.pending = buffer.apart = buffer.link_ended = False


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


cdef inline bint _case_break(unsigned char before, unsigned char c) noexcept nogil:
    """An ASCII lower-case letter or digit, then an ASCII capital: chunks stay apart."""
    return 65 <= c <= 90 and (97 <= before <= 122 or 48 <= before <= 57)


cdef inline void _open_chunk(TextBuffer* buffer, unsigned char c) noexcept nogil:
    """Start a chunk (one space after the last one when they are apart, else glued to
    it), or pay a pending space inside one, before writing a character whose first
    byte is ``c``."""
    if not buffer.in_chunk:
        if buffer.size and (buffer.apart or _case_break(buffer.data[buffer.size - 1], c)):
            buffer.data[buffer.size] = 32
            buffer.size += 1
            buffer.chars += 1
        buffer.in_chunk = True
        buffer.pending = buffer.apart = buffer.link_ended = False
        buffer.chunk_start = buffer.chars
        buffer.chunk_byte = buffer.size
    elif buffer.pending:
        buffer.data[buffer.size] = 32
        buffer.size += 1
        buffer.chars += 1
        buffer.pending = False


cdef int _append(TextBuffer* buffer, const unsigned char* s) except -1:
    """Append one text node, collapsing whitespace runs into single spaces; whitespace
    outside a chunk parts the chunks around it. Soft hyphens are left out.

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
            _open_chunk(buffer, c)
            memcpy(buffer.data + buffer.size, s + i, run - i)
            buffer.size += run - i
            buffer.chars += run - i
            i = run
            continue
        if c == 0xC2 and i + 1 < n and s[i + 1] == 0xAD:  # a soft hyphen: not text
            i += 2
            continue
        width = _space_at(s, i, n)
        if width:
            if buffer.in_chunk:
                buffer.pending = True
            else:
                buffer.apart = True
            i += width
            continue
        _open_chunk(buffer, c)
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
    TextBuffer* buffer, Py_ssize_t n_chunks, int holder, bint link, int* owner,
    cnp.npy_bool* in_link, long long* chunk_first, long long* chunk_last,
    long long* byte_first, long long* byte_last,
) noexcept nogil:
    """Record the chunk just written (held by element ``holder``); return the new count.
    Whitespace at its end (a pending space) parts it from the next chunk."""
    owner[n_chunks] = holder
    in_link[n_chunks] = link
    chunk_first[n_chunks] = buffer.chunk_start
    chunk_last[n_chunks] = buffer.chars
    byte_first[n_chunks] = buffer.chunk_byte
    byte_last[n_chunks] = buffer.size
    buffer.in_chunk = False
    buffer.apart = buffer.pending
    return n_chunks + 1


cdef class _Names:
    """Tag names to small ids; libxml2 interns names, so a pointer identifies a name.

    The first 64 names seen are also kept in a C array searched by pointer, which
    spares a dictionary lookup (and a boxed integer) per element on most pages.
    """
    cdef dict ids
    cdef dict by_name  # two pointers may carry one name (a name libxml2 did not intern)
    cdef list vocab
    cdef object inline_tags  # the names that do not break the text
    cdef cnp.uint8_t* inline  # per vocabulary entry: its name is one of inline_tags
    cdef Py_ssize_t inline_capacity
    cdef size_t seen[64]
    cdef int seen_ids[64]
    cdef int n_seen

    def __cinit__(self, inline_tags):
        self.ids = {}
        self.by_name = {}
        self.vocab = []
        self.inline_tags = inline_tags
        self.inline = NULL
        self.inline_capacity = 0
        self.n_seen = 0

    def __dealloc__(self):
        PyMem_Free(self.inline)

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
        index = self.by_name.setdefault(tag, len(self.vocab))
        if index == len(self.vocab):
            self._grow_inline(index + 1)
            self.inline[index] = tag in self.inline_tags
            self.vocab.append(tag)
        self.ids[key] = index
        return index

    cdef int _grow_inline(self, Py_ssize_t wanted) except -1:
        cdef Py_ssize_t size = max(wanted, 2 * self.inline_capacity, 64)
        cdef cnp.uint8_t* grown
        if wanted <= self.inline_capacity:
            return 0
        grown = <cnp.uint8_t*>PyMem_Realloc(self.inline, size)
        if grown is NULL:
            raise MemoryError()
        self.inline, self.inline_capacity = grown, size
        return 0


def walk(root, bint text_index=True, inline_tags=frozenset()):
    """Walk the elements under ``root`` in document order; see ``denoise.blocks.index_dom``
    (without ``text_index``, the chunk index is None). Elements named in ``inline_tags``
    (``denoise.blocks.INLINE_TAGS``) do not part the chunks around them; see the text
    model in ``denoise.blocks``."""
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
    cdef cnp.ndarray ids_a = np.empty(count, dtype=np.int32)
    cdef cnp.ndarray parents_a = np.empty(count, dtype=np.int32)
    cdef cnp.ndarray depths_a = np.empty(count, dtype=np.int32)
    cdef cnp.ndarray ends_a = np.empty(count, dtype=np.int32)
    cdef cnp.ndarray starts_c = np.empty(count, dtype=np.int32)
    cdef cnp.ndarray ends_c = np.empty(count, dtype=np.int32)
    cdef cnp.ndarray lines_a = np.empty(count, dtype=np.int32)
    cdef cnp.ndarray owner_a = np.empty(2 * count + 1, dtype=np.int32)
    cdef cnp.ndarray link_a = np.empty(2 * count + 1, dtype=np.bool_)
    cdef cnp.ndarray first_a = np.empty(2 * count + 1, dtype=np.int64)
    cdef cnp.ndarray last_a = np.empty(2 * count + 1, dtype=np.int64)
    cdef cnp.ndarray byte_first_a = np.empty(2 * count + 1, dtype=np.int64)
    cdef cnp.ndarray byte_last_a = np.empty(2 * count + 1, dtype=np.int64)
    # raw pointers into the fresh arrays: a typed memoryview costs a buffer request
    # and its release each (~0.1 us)
    cdef int* tag_ids = <int*>cnp.PyArray_DATA(ids_a)
    cdef int* parents = <int*>cnp.PyArray_DATA(parents_a)
    cdef int* depths = <int*>cnp.PyArray_DATA(depths_a)
    cdef int* subtree_ends = <int*>cnp.PyArray_DATA(ends_a)
    cdef int* chunk_starts = <int*>cnp.PyArray_DATA(starts_c)
    cdef int* chunk_ends = <int*>cnp.PyArray_DATA(ends_c)
    cdef int* lines = <int*>cnp.PyArray_DATA(lines_a)
    cdef int* owner = <int*>cnp.PyArray_DATA(owner_a)
    cdef cnp.npy_bool* in_link = <cnp.npy_bool*>cnp.PyArray_DATA(link_a)
    cdef long long* chunk_first = <long long*>cnp.PyArray_DATA(first_a)
    cdef long long* chunk_last = <long long*>cnp.PyArray_DATA(last_a)
    cdef long long* byte_first = <long long*>cnp.PyArray_DATA(byte_first_a)
    cdef long long* byte_last = <long long*>cnp.PyArray_DATA(byte_last_a)
    cdef _Names names = _Names(inline_tags)
    cdef int[256] stack
    cdef list deep_stack = []
    cdef int depth = 0
    cdef int index = 0
    cdef int current
    cdef int links_open = 0
    cdef bint is_link
    cdef Py_ssize_t n_chunks = 0
    cdef TextBuffer buffer
    _empty_buffer(&buffer)
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
            is_link = node.name[0] == 97 and node.name[1] == 0  # <a>
            links_open += is_link
            if not names.inline[tag_ids[current]] or (is_link and buffer.link_ended):
                buffer.apart = True  # a break, or a link right after a link
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
                    buffer.link_ended = True
                if not names.inline[tag_ids[current]]:
                    buffer.apart = True
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
                                   byte_first_a[:n_chunks].copy(),
                                   byte_last_a[:n_chunks].copy()) if text_index else None
    finally:
        PyMem_Free(buffer.data)
    return (ids_a, names.vocab, parents_a, depths_a, ends_a, starts_c, ends_c, lines_a, text,
            first_a[:n_chunks].copy(), last_a[:n_chunks].copy(), link_a[:n_chunks].copy(),
            owner_a[:n_chunks].copy(), chunk_index)


cdef inline void _hash_bytes(const unsigned char* data, Py_ssize_t start, Py_ssize_t stop,
                             cnp.uint64_t* prefix, cnp.uint64_t* power,
                             long long* spaces) noexcept nogil:
    """Add ``data[start:stop]`` to the running prefix hash and space count.

    Four bytes a step: their terms use fixed powers of ``Q_INV``, so the products are
    independent and only one multiplication a step waits on the last (a byte at a time,
    every step waits on the last)."""
    cdef cnp.uint64_t q2 = Q_INV * Q_INV
    cdef cnp.uint64_t q3 = q2 * Q_INV
    cdef cnp.uint64_t q4 = q3 * Q_INV
    cdef cnp.uint64_t p = power[0], h = prefix[0]
    cdef long long blanks = spaces[0]
    cdef Py_ssize_t i = start
    cdef unsigned char a, b, c, d
    while i + 4 <= stop:
        a, b, c, d = data[i], data[i + 1], data[i + 2], data[i + 3]
        h += (<cnp.uint64_t>a + <cnp.uint64_t>b * Q_INV + <cnp.uint64_t>c * q2
              + <cnp.uint64_t>d * q3) * p
        p *= q4
        blanks += (a == 32) + (b == 32) + (c == 32) + (d == 32)
        i += 4
    while i < stop:
        h += <cnp.uint64_t>data[i] * p
        p *= Q_INV
        blanks += data[i] == 32
        i += 1
    power[0], prefix[0], spaces[0] = p, h, blanks


cdef tuple _chunk_index(const unsigned char* data, Py_ssize_t size, first_a, last_a):
    """What ``denoise.texthash.index_chunks`` computes, a chunk at a time: the chunks
    must be in order, apart, and inside the text's ``size`` bytes, as the walk writes
    them (checked: hashing from the last chunk's end on reads only those bytes)."""
    cdef const long long[:] first = first_a
    cdef const long long[:] last = last_a
    cdef Py_ssize_t n = first.shape[0]
    prefix_first_a = np.empty(n, dtype=np.uint64)
    prefix_last_a = np.empty(n, dtype=np.uint64)
    spaces_first_a = np.empty(n, dtype=np.int64)
    spaces_last_a = np.empty(n, dtype=np.int64)
    cdef cnp.uint64_t* prefix_first = <cnp.uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>prefix_first_a)
    cdef cnp.uint64_t* prefix_last = <cnp.uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>prefix_last_a)
    cdef long long* spaces_first = <long long*>cnp.PyArray_DATA(<cnp.ndarray>spaces_first_a)
    cdef long long* spaces_last = <long long*>cnp.PyArray_DATA(<cnp.ndarray>spaces_last_a)
    cdef cnp.uint64_t prefix = 0
    cdef cnp.uint64_t power = 1
    cdef long long spaces = 0
    cdef Py_ssize_t c, at = 0
    for c in range(n):
        if first[c] < at or last[c] < first[c] or last[c] > size:
            raise ValueError("a chunk lies out of order or outside the text")
        _hash_bytes(data, at, first[c], &prefix, &power, &spaces)
        prefix_first[c], spaces_first[c] = prefix, spaces
        _hash_bytes(data, first[c], last[c], &prefix, &power, &spaces)
        prefix_last[c], spaces_last[c] = prefix, spaces
        at = last[c]
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


def cut_blocks(const cnp.npy_bool[:] selected, const int[:] parents, const int[:] chunk_starts,
               const int[:] chunk_ends, const int[:] chunk_owner, const int[:] tag_ids,
               const int[:] depths, const int[:] lines):
    """``denoise.blocks.cut_elements_numpy`` in a few loops (over the elements to count
    the blocks and to cut them, then over the chunks) instead of some fifteen numpy
    calls; ``parents`` must be a preorder forest (checked here)."""
    cdef Py_ssize_t n = selected.shape[0], n_chunks = chunk_owner.shape[0]
    cdef Py_ssize_t e, c, k = 0, count = 0
    cdef int parent, owner
    if (parents.shape[0] != n or chunk_starts.shape[0] != n or chunk_ends.shape[0] != n
            or tag_ids.shape[0] != n or depths.shape[0] != n or lines.shape[0] != n):
        raise ValueError("cut_blocks: the per-element arrays disagree in size")
    for e in range(n):
        count += selected[e] != 0
    nearest_a = np.empty(n, dtype=np.int32)
    elements_a = np.empty(count, dtype=np.int32)
    parents_a = np.empty(count, dtype=np.int32)
    spans_a = np.empty((count, 2), dtype=np.int32)
    tags_a = np.empty(count, dtype=np.int32)
    depths_a = np.empty(count, dtype=np.int32)
    lines_a = np.empty(count, dtype=np.int32)
    chunk_block_a = np.empty(n_chunks, dtype=np.int32)
    cdef int* nearest = <int*>cnp.PyArray_DATA(<cnp.ndarray>nearest_a)
    cdef int* block_elements = <int*>cnp.PyArray_DATA(<cnp.ndarray>elements_a)
    cdef int* block_parents = <int*>cnp.PyArray_DATA(<cnp.ndarray>parents_a)
    cdef int[:, :] spans = spans_a
    cdef int* block_tags = <int*>cnp.PyArray_DATA(<cnp.ndarray>tags_a)
    cdef int* block_depths = <int*>cnp.PyArray_DATA(<cnp.ndarray>depths_a)
    cdef int* block_lines = <int*>cnp.PyArray_DATA(<cnp.ndarray>lines_a)
    cdef int* chunk_block = <int*>cnp.PyArray_DATA(<cnp.ndarray>chunk_block_a)
    for e in range(n):
        parent = parents[e]
        if parent >= e or parent < -1:
            raise ValueError("parents must precede their children (preorder), -1 for roots")
        if selected[e]:
            block_elements[k] = <int>e
            block_parents[k] = nearest[parent] if parent >= 0 else -1
            spans[k, 0], spans[k, 1] = chunk_starts[e], chunk_ends[e]
            block_tags[k], block_depths[k], block_lines[k] = tag_ids[e], depths[e], lines[e]
            nearest[e] = <int>k
            k += 1
        else:
            nearest[e] = nearest[parent] if parent >= 0 else -1
    for c in range(n_chunks):
        owner = chunk_owner[c]
        if owner >= n:
            raise ValueError("cut_blocks: a chunk's owner is not an element")
        chunk_block[c] = nearest[owner] if owner >= 0 else -1
    return elements_a, parents_a, spans_a, chunk_block_a, tags_a, depths_a, lines_a


def text_shares(const long long[:] chunk_starts, const long long[:] chunk_ends,
                const int[:, :] spans, const int[:] chunk_block):
    """``denoise.blocks.text_shares_numpy`` in three loops: the runs of chunks between
    block boundaries, as character offsets, each run's innermost block, and the spans
    in runs."""
    cdef Py_ssize_t n_chunks = chunk_starts.shape[0], n_blocks = spans.shape[0]
    cdef Py_ssize_t b, c, runs = 0
    cdef int start, end
    cdef long long total = 0
    if chunk_ends.shape[0] != n_chunks or chunk_block.shape[0] != n_chunks or (
            n_blocks and spans.shape[1] != 2):
        raise ValueError("text_shares: chunk bounds, chunk blocks and spans disagree")
    rank_a = np.zeros(n_chunks + 1, dtype=np.int32)
    cdef int[:] rank = rank_a  # 1 at a boundary, then each boundary's rank
    rank[0] = rank[n_chunks] = 1
    for b in range(n_blocks):
        start, end = spans[b, 0], spans[b, 1]
        if start < 0 or end > n_chunks or start > end:
            raise ValueError("text_shares: a block's chunks lie outside the page's")
        rank[start] = 1
        rank[end] = 1
    offsets_a = np.empty(n_chunks + 1, dtype=np.int64)
    blocks_a = np.empty(n_chunks + 1, dtype=np.int32)
    cdef long long* offsets = <long long*>cnp.PyArray_DATA(<cnp.ndarray>offsets_a)
    cdef int* run_block = <int*>cnp.PyArray_DATA(<cnp.ndarray>blocks_a)
    for c in range(n_chunks + 1):
        if rank[c]:
            rank[c] = <int>runs
            offsets[runs] = total
            if c < n_chunks:
                run_block[runs] = chunk_block[c]
            runs += 1
        if c < n_chunks:
            total += chunk_ends[c] - chunk_starts[c]
    spans_a = np.empty((n_blocks, 2), dtype=np.int32)
    cdef int[:, :] run_spans = spans_a
    for b in range(n_blocks):
        run_spans[b, 0] = rank[spans[b, 0]]
        run_spans[b, 1] = rank[spans[b, 1]]
    return offsets_a[:runs].copy(), blocks_a[:runs - 1].copy(), spans_a


cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object text)
    Py_UCS4 PyUnicode_MAX_CHAR_VALUE(object text)
    void PyUnicode_WRITE(int kind, void* data, Py_ssize_t index, Py_UCS4 value) nogil


def block_bounds(const int[:, :] spans, const cnp.int64_t[::1] chunk_starts,
                 const cnp.int64_t[::1] chunk_ends):
    """``PageBlocks.bounds``: per block (``spans``: its range of chunks), the start of
    its first chunk and the end of its last (int64), 0 and 0 for a block without
    chunks."""
    cdef Py_ssize_t n = spans.shape[0], chunks = chunk_starts.shape[0], i
    cdef int first, stop
    if spans.shape[1] != 2 or chunk_ends.shape[0] != chunks:
        raise ValueError("spans must be (blocks, 2), and chunk_ends as long as chunk_starts")
    starts_array = np.zeros(n, dtype=np.int64)
    ends_array = np.zeros(n, dtype=np.int64)
    cdef cnp.int64_t[::1] starts = starts_array, ends = ends_array
    for i in range(n):
        first, stop = spans[i, 0], spans[i, 1]
        if first >= stop:
            continue
        if first < 0 or stop > chunks:
            raise ValueError("a block's chunks are out of range")
        starts[i] = chunk_starts[first]
        ends[i] = chunk_ends[stop - 1]
    return starts_array, ends_array


def kept_text(str text not None, const long long[:] chunk_starts, const long long[:] chunk_ends,
              const int[:] chunk_block, const cnp.npy_bool[:] keep):
    """``denoise.detector.block_lines`` in two passes over the chunks: the kept chunks of
    ``text``, a run of neighbouring chunks of one block as its slice of the text, runs
    apart by a line break where the block changes, else a space. The first pass
    measures the result and its widest character (a string is made in the narrowest
    kind its characters fit), the second copies the slices into it."""
    cdef Py_ssize_t n = keep.shape[0], i, a, b, k, total = 0, size = len(text)
    cdef Py_ssize_t previous = -1
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4 c, widest = 127 if PyUnicode_IS_ASCII(text) else 0
    cdef Py_UCS4 ceiling = PyUnicode_MAX_CHAR_VALUE(text)
    if chunk_starts.shape[0] < n or chunk_ends.shape[0] < n or chunk_block.shape[0] < n:
        raise ValueError("chunk_starts, chunk_ends and chunk_block need an entry for every "
                         "chunk of keep")
    for i in range(n):  # each kept chunk: the text from where the last one ended, or
        if not keep[i]:  # a separator and the chunk
            continue
        if _continues(previous, i, chunk_block):
            a = chunk_ends[previous]
        else:
            a = chunk_starts[i]
            total += previous >= 0
        b = chunk_ends[i]
        if not (0 <= a <= b <= size):
            raise ValueError("the kept chunks must lie in order inside the text")
        total += b - a
        k = a
        while widest < ceiling and k < b:
            c = PyUnicode_READ(kind, data, k)
            if c > widest:
                widest = c
            k += 1
        previous = i
    out = PyUnicode_New(total, widest)
    cdef int out_kind = PyUnicode_KIND(out)
    cdef void* out_data = PyUnicode_DATA(out)
    cdef Py_ssize_t at = 0
    previous = -1
    for i in range(n):
        if not keep[i]:
            continue
        if _continues(previous, i, chunk_block):
            a = chunk_ends[previous]
        else:
            a = chunk_starts[i]
            if previous >= 0:
                PyUnicode_WRITE(out_kind, out_data, at,
                                10 if chunk_block[i] != chunk_block[previous] else 32)
                at += 1
        b = chunk_ends[i]
        if out_kind == kind:
            memcpy(<char*>out_data + at * kind, <char*>data + a * kind, (b - a) * kind)
        else:
            for k in range(a, b):
                PyUnicode_WRITE(out_kind, out_data, at + k - a, PyUnicode_READ(kind, data, k))
        at += b - a
        previous = i
    return out


cdef inline bint _continues(Py_ssize_t previous, Py_ssize_t i, const int[:] chunk_block) noexcept:
    """Whether kept chunk ``i`` goes on the run of kept chunk ``previous``: its neighbour,
    in the same block."""
    return previous >= 0 and previous == i - 1 and chunk_block[i] == chunk_block[previous]


def fill_down(const int[:] parents, const int[:] marks):
    """Per node, the mark of its nearest marked ancestor-or-self (-1 where none); preorder."""
    cdef Py_ssize_t n = parents.shape[0]
    out_a = np.empty(n, dtype=np.int32)
    cdef int* out = <int*>cnp.PyArray_DATA(<cnp.ndarray>out_a)
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = marks[i]
        if out[i] < 0 and parents[i] >= 0:
            out[i] = out[parents[i]]
    return out_a


def content_chunks(const int[:] parents, const long long[:] nodes, const double[:] scores,
                   double threshold, const int[:] chunk_block):
    """``denoise.detector.PageScores.content_chunks`` in two passes instead of some ten
    numpy steps: per block (``parents``, preorder, checked here) the score of its
    nearest scored ancestor-or-self (``nodes[j]`` holds ``scores[j]``; a later node
    of a block wins; 0 under none), template where it is ``>= threshold``; per chunk
    whether it lies in a block (``chunk_block`` >= 0) that is not template."""
    cdef Py_ssize_t n = parents.shape[0], m = nodes.shape[0], k = chunk_block.shape[0]
    cdef Py_ssize_t i, j, b
    cdef int p
    cdef double score
    if scores.shape[0] != m:
        raise ValueError("content_chunks: one score a node, please")
    cdef int* node_of = <int*>PyMem_Malloc((n + 1) * sizeof(int))
    cdef unsigned char* template = <unsigned char*>PyMem_Malloc(n + 1)
    if node_of is NULL or template is NULL:
        PyMem_Free(node_of)
        PyMem_Free(template)
        raise MemoryError()
    out_a = np.empty(k, dtype=np.bool_)
    cdef cnp.npy_bool* out = <cnp.npy_bool*>cnp.PyArray_DATA(<cnp.ndarray>out_a)
    try:
        for i in range(n):
            node_of[i] = -1
        for j in range(m):
            b = nodes[j]
            if not 0 <= b < n:
                raise ValueError("content_chunks: a node is not a block")
            node_of[b] = <int>j
        for i in range(n):
            p = parents[i]
            if p >= i or p < -1:
                raise ValueError("parents must precede their children (preorder), -1 for roots")
            if node_of[i] < 0 and p >= 0:
                node_of[i] = node_of[p]
            score = scores[node_of[i]] if node_of[i] >= 0 else 0.0
            template[i] = score >= threshold
        for j in range(k):
            b = chunk_block[j]
            if b >= n:
                raise ValueError("content_chunks: a chunk's block is out of range")
            out[j] = b >= 0 and not template[b]
    finally:
        PyMem_Free(node_of)
        PyMem_Free(template)
    return out_a


def and_down(const int[:] parents, const cnp.npy_bool[:] flags):
    """Per node, whether it and all its ancestors are flagged; preorder."""
    cdef Py_ssize_t n = parents.shape[0]
    out_a = np.empty(n, dtype=np.bool_)
    cdef cnp.npy_bool* out = <cnp.npy_bool*>cnp.PyArray_DATA(<cnp.ndarray>out_a)
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = flags[i] and (parents[i] < 0 or out[parents[i]])
    return out_a


def or_up(const int[:] parents, const cnp.npy_bool[:] flags):
    """Per node, whether any proper descendant is flagged; preorder."""
    cdef Py_ssize_t n = parents.shape[0]
    out_a = np.zeros(n, dtype=np.bool_)
    cdef cnp.npy_bool* out = <cnp.npy_bool*>cnp.PyArray_DATA(<cnp.ndarray>out_a)
    cdef Py_ssize_t i
    for i in range(n - 1, -1, -1):
        if parents[i] >= 0 and (out[i] or flags[i]):
            out[parents[i]] = True
    return out_a


def counted_labels(const long long[:] df, long long pages, double theta,
                   const cnp.npy_bool[:] eligible, const int[:] parents, tuple codes):
    """``denoise.site.fingerprint``'s labels from digest counts, in three loops over the
    blocks instead of some forty numpy calls: Kołcz & Yih's rule (template on at least
    ``theta`` of ``pages`` and on two, content on one, unknown between, ``short`` where
    not eligible), a unique block holding a block found on more than one page demoted to
    unknown, and the training examples (template blocks, content blocks whose parent is
    not content). ``codes``: the label values (content, template, unknown) and reason
    codes (short, unique, frequent, text, holds-template). ``parents``: preorder, checked.
    """
    cdef Py_ssize_t n = df.shape[0], i
    if eligible.shape[0] != n or parents.shape[0] != n:
        raise ValueError("counted_labels: df, eligible and parents disagree in size")
    cdef signed char content = codes[0], template = codes[1], unknown = codes[2]
    cdef unsigned char short_ = codes[3], unique = codes[4], frequent = codes[5]
    cdef unsigned char text = codes[6], holds_template = codes[7]
    labels_a = np.empty(n, dtype=np.int8)
    reasons_a = np.empty(n, dtype=np.uint8)
    support_a = np.empty(n, dtype=np.float32)
    holds_a = np.zeros(n, dtype=np.bool_)
    example_a = np.empty(n, dtype=np.bool_)
    cdef signed char* labels = <signed char*>cnp.PyArray_DATA(<cnp.ndarray>labels_a)
    cdef unsigned char* reasons = <unsigned char*>cnp.PyArray_DATA(<cnp.ndarray>reasons_a)
    cdef float* support = <float*>cnp.PyArray_DATA(<cnp.ndarray>support_a)
    cdef cnp.npy_bool* holds = <cnp.npy_bool*>cnp.PyArray_DATA(<cnp.ndarray>holds_a)
    cdef cnp.npy_bool* example = <cnp.npy_bool*>cnp.PyArray_DATA(<cnp.ndarray>example_a)
    cdef double share, total = <double>(pages if pages > 1 else 1)
    cdef int parent
    for i in range(n):
        parent = parents[i]
        if parent >= i or parent < -1:
            raise ValueError("parents must precede their children (preorder), -1 for roots")
        share = df[i] / total
        support[i] = <float>share
        if not eligible[i]:
            labels[i], reasons[i] = unknown, short_
        elif share >= theta and df[i] >= 2:
            labels[i], reasons[i] = template, text
        elif df[i] == 1:
            labels[i], reasons[i] = content, unique
        else:
            labels[i], reasons[i] = unknown, frequent
    for i in range(n - 1, -1, -1):  # whether a block below is on more than one page
        parent = parents[i]
        if parent >= 0 and (holds[i] or (eligible[i] and df[i] > 1)):
            holds[parent] = True
    for i in range(n):
        if labels[i] == content and holds[i]:
            labels[i], reasons[i] = unknown, holds_template
        parent = parents[i]
        example[i] = labels[i] == template or (
            labels[i] == content and not (parent >= 0 and labels[parent] == content))
    return labels_a, reasons_a, support_a, example_a


cdef bint _distinct_words_at_least(int kind, void* data, Py_ssize_t start, Py_ssize_t end,
                                   int wanted) noexcept:
    """Whether ``text[start:end]`` (words apart by single spaces) has ``wanted`` (<= 8)
    distinct words."""
    cdef Py_ssize_t word_start[8]
    cdef Py_ssize_t word_end[8]
    cdef Py_ssize_t i = start, j, m, length
    cdef int found = 0, w
    cdef bint new
    while i < end and found < wanted:
        j = i
        while j < end and PyUnicode_READ(kind, data, j) != 32:
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
    return found >= wanted


def distinct_words(str text, const long long[:] starts, const long long[:] ends, int wanted):
    """Per span of ``text``, whether it has at least ``wanted`` (<= 8) distinct words.

    ``text`` is whitespace-collapsed, so words are separated by single spaces.
    """
    cdef Py_ssize_t n = starts.shape[0]
    out_a = np.zeros(n, dtype=np.bool_)
    cdef cnp.npy_bool* out = <cnp.npy_bool*>cnp.PyArray_DATA(<cnp.ndarray>out_a)
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t b
    if not 0 < wanted <= 8:
        raise ValueError(f"wanted must be in 1..8, got {wanted}")
    for b in range(n):
        out[b] = _distinct_words_at_least(kind, data, starts[b], ends[b], wanted)
    return out_a


cdef inline cnp.uint64_t _power(cnp.uint64_t base, cnp.int64_t exponent) noexcept nogil:
    cdef cnp.uint64_t result = 1
    while exponent > 0:
        if exponent & 1:
            result *= base
        base *= base
        exponent >>= 1
    return result


def text_keys(str text, const long long[:] chunk_starts, const long long[:] chunk_ends,
              index, const int[:, :] spans, const int[:] parents, int min_chars,
              int min_unique_words, int exact_words_up_to, cnp.uint64_t kind,
              bint digests=True):
    """``denoise.site.fingerprint.text_keys`` in one loop over the blocks: which blocks
    have enough text (``min_chars`` characters, ``min_unique_words`` (<= 8) distinct
    words, counted exactly up to ``exact_words_up_to`` words, and so does every block
    above them), and the digest of each such block's text (``ChunkIndex.digests``;
    0 elsewhere; all 0 without ``digests``). ``index`` is the page's ``ChunkIndex``;
    ``parents`` must be a preorder forest (checked here).
    """
    cdef Py_ssize_t n = spans.shape[0], chunks = chunk_starts.shape[0], b, first, last
    if parents.shape[0] != n or spans.shape[1] != 2 or chunk_ends.shape[0] != chunks:
        raise ValueError("text_keys: parents, spans and chunk bounds disagree in size")
    eligible_a = np.zeros(n, dtype=np.bool_)
    keys_a = np.zeros(n, dtype=np.int64)
    cdef cnp.npy_bool* eligible = <cnp.npy_bool*>cnp.PyArray_DATA(<cnp.ndarray>eligible_a)
    cdef cnp.uint64_t* keys = <cnp.uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>keys_a)  # its int64
    if not 0 < min_unique_words <= 8:
        raise ValueError(f"min_unique_words must be in 1..8, got {min_unique_words}")
    if chunks == 0:
        return eligible_a, keys_a
    cdef const long long[:] byte_first = index.byte_first
    cdef const long long[:] byte_last = index.byte_last
    cdef const cnp.uint64_t[:] prefix_first = index.prefix_first
    cdef const cnp.uint64_t[:] prefix_last = index.prefix_last
    cdef const long long[:] spaces_first = index.spaces_first
    cdef const long long[:] spaces_last = index.spaces_last
    cdef int text_kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef long long words, stop
    cdef cnp.uint64_t value
    cdef int parent
    for b in range(n):
        parent = parents[b]
        if parent >= b or parent < -1:
            raise ValueError("parents must precede their children (preorder), -1 for roots")
        first, last = spans[b, 0], spans[b, 1] - 1
        if first > last:
            continue
        if first < 0 or last >= chunks:
            raise ValueError("text_keys: a block's chunks lie outside the page's")
        if parent >= 0 and not eligible[parent]:
            continue
        if chunk_ends[last] - chunk_starts[first] < min_chars:
            continue
        words = spaces_last[last] - spaces_first[first] + 1
        if words < min_unique_words or (words <= exact_words_up_to and not
                _distinct_words_at_least(text_kind, data, chunk_starts[first],
                                         chunk_ends[last], min_unique_words)):
            continue
        eligible[b] = True
        if not digests:
            continue
        stop = byte_last[last]
        value = (prefix_last[last] - prefix_first[first]) * _power(Q, stop - 1 if stop > 0 else 0)
        value ^= <cnp.uint64_t>(stop - byte_first[first]) * 0xD6E8FEB86659FD93ULL
        value ^= kind
        value ^= value >> 30
        value *= 0xBF58476D1CE4E5B9ULL
        value ^= value >> 27
        value *= 0x94D049BB133111EBULL
        keys[b] = value ^ (value >> 31)
    return eligible_a, keys_a


# Class / id words that hint at a block's role, one bit a group (see denoise.features).
DEF N_CUES = 55  # noqa
cdef const char* _CUE_WORDS[N_CUES]
_CUE_WORDS[:] = [b"nav", b"menu", b"breadcrumb", b"toolbar", b"skip", b"pagination", b"pager", b"footer", b"copyright", b"legal", b"header", b"masthead", b"banner", b"logo", b"sidebar", b"aside", b"widget", b"related", b"rail", b"advert", b"sponsor", b"promo", b"social", b"share", b"subscribe", b"newsletter", b"cookie", b"comment", b"reply", b"content", b"article", b"main", b"post", b"entry", b"story", b"text", b"body", b"search", b"login", b"signin", b"cookie", b"consent", b"gdpr", b"dsgvo", b"popup", b"popover", b"modal", b"overlay", b"caption", b"credit", b"related", b"tags", b"paywall", b"non-paywall", b"comment"]
cdef int _CUE_BITS[N_CUES]
_CUE_BITS[:] = [0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 8, 9, 9, 10, 10, 14, 15, 11]
# A word's match does not count when these letters follow it ("commentary" is an
# opinion article, not readers' comments): "" for none (denoise.features._NOT_BEFORE).
cdef const char* _CUE_NOT[N_CUES]
_CUE_NOT[:] = [b""] * (N_CUES - 1) + [b"ary"]


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


# the cue words by first letter: words _BY_FIRST[_FIRST[c]:_FIRST[c + 1]] start with c
cdef int _CUE_LENGTHS[N_CUES]
cdef int _BY_FIRST[N_CUES]
cdef int _FIRST[257]


cdef void _index_cue_words() noexcept:
    cdef int k, c, q = 0
    for k in range(N_CUES):
        _CUE_LENGTHS[k] = <int>strlen(_CUE_WORDS[k])
    for c in range(256):
        _FIRST[c] = q
        for k in range(N_CUES):
            if <unsigned char>_CUE_WORDS[k][0] == c:
                _BY_FIRST[q] = k
                q += 1
    _FIRST[256] = q


_index_cue_words()


cdef inline bint _followed_by(const char* low, Py_ssize_t at, const char* tail) noexcept nogil:
    """Whether ``tail`` (not empty) is at ``low[at:]``."""
    cdef Py_ssize_t j = 0
    if tail[0] == 0:
        return False
    while tail[j] != 0:
        if low[at + j] != tail[j]:
            return False
        j += 1
    return True


# An <input> one types into: a form holding two is one to fill in (denoise.features).
DEF FIELD_BIT = 12  # noqa
cdef const char* _ENTRY_TYPES[6]
_ENTRY_TYPES[:] = [b"text", b"email", b"password", b"tel", b"url", b""]


cdef bint _entry_type(const unsigned char* value) noexcept nogil:
    """Whether an ``<input>`` of this ``type`` is typed into (denoise.features.ENTRY_TYPES)."""
    cdef Py_ssize_t n = strlen(<const char*>value)
    cdef int k
    for k in range(6):
        if (<Py_ssize_t>strlen(_ENTRY_TYPES[k]) == n
                and strncasecmp(<const char*>value, _ENTRY_TYPES[k], n) == 0):
            return True
    return False


cdef unsigned int _cues_of(const unsigned char* value) noexcept nogil:
    """The cue bits of one attribute value (matched in lower case, first 255 bytes).

    One pass over the value: at each byte, only the words starting with it are tried,
    letter by letter (a call to ``memcmp`` for each try cost more than the few letters
    most tries read: ``markup_stats`` 84 -> 76 us a page, ``benchmarks/kernels_ab.py
    --base 910f145``).
    """
    cdef char low[256]
    cdef Py_ssize_t i = 0, at, j, length
    cdef unsigned int bits = 0
    cdef unsigned char c
    cdef int k, q
    cdef const char* word
    while value[i] != 0 and i < 255:
        c = value[i]
        low[i] = <char>(c + 32 if 65 <= c <= 90 else c)
        i += 1
    low[i] = 0
    for at in range(i):
        c = <unsigned char>low[at]
        for q in range(_FIRST[c], _FIRST[c + 1]):
            k = _BY_FIRST[q]
            length = _CUE_LENGTHS[k]
            if (bits >> _CUE_BITS[k]) & 1 or at + length > i:
                continue
            word = _CUE_WORDS[k]
            j = 1
            while j < length and low[at + j] == word[j]:
                j += 1
            if j == length and not _followed_by(low, at + length, _CUE_NOT[k]):
                bits |= 1u << _CUE_BITS[k]
    return bits


cdef struct _Markup:
    int* sizes
    cnp.uint32_t* hosts
    cnp.uint16_t* cues
    Py_ssize_t capacity


cdef int _grow(_Markup* out, Py_ssize_t wanted) except -1:
    """Room for ``wanted`` elements in each array (doubling)."""
    cdef Py_ssize_t capacity = max(wanted, 2 * out.capacity, 256)
    cdef void* sizes = PyMem_Realloc(out.sizes, capacity * sizeof(int))
    if sizes is NULL:
        raise MemoryError()
    out.sizes = <int*>sizes
    cdef void* hosts = PyMem_Realloc(out.hosts, capacity * sizeof(cnp.uint32_t))
    if hosts is NULL:
        raise MemoryError()
    out.hosts = <cnp.uint32_t*>hosts
    cdef void* cues = PyMem_Realloc(out.cues, capacity * sizeof(cnp.uint16_t))
    if cues is NULL:
        raise MemoryError()
    out.cues = <cnp.uint16_t*>cues
    out.capacity = capacity
    return 0


def markup_stats(root):
    """Per element in walk order: bytes of its tags and attributes, the host hash of
    its ``href`` (``<a>`` only, 0 otherwise; see ``_host_hash``), and the cue bits of
    its ``id`` and ``class`` (an ``<input>`` one types into: ``FIELD_BIT``). A second
    pass over libxml2's nodes: no Python objects."""
    cdef cetree._Element top = <cetree._Element?>root
    cdef xmlNode* start = top._c_node
    cdef xmlNode* node
    cdef xmlAttr* attr
    cdef const unsigned char* value
    cdef Py_ssize_t index = 0
    cdef Py_ssize_t size, name_size
    cdef cnp.uint16_t cues
    cdef cnp.uint32_t host
    cdef bint field, typed
    cdef _Markup out
    out.sizes = NULL
    out.hosts = NULL
    out.cues = NULL
    out.capacity = 0
    try:
        node = start
        while node is not NULL:
            if index == out.capacity:
                _grow(&out, index + 1)
            name_size = strlen(<const char*>node.name)
            size = 2 * name_size + 5
            cues = 0
            host = 0
            field = name_size == 5 and strncmp(<const char*>node.name, "input", 6) == 0
            typed = False
            attr = node.properties
            while attr is not NULL:
                value = <const unsigned char*>b""
                if attr.children is not NULL and attr.children.content is not NULL:
                    value = <const unsigned char*>attr.children.content
                size += strlen(<const char*>attr.name) + strlen(<const char*>value) + 4
                if (strncmp(<const char*>attr.name, "class", 6) == 0
                        or strncmp(<const char*>attr.name, "id", 3) == 0):
                    cues |= <cnp.uint16_t>_cues_of(value)
                elif (name_size == 1 and node.name[0] == 97
                      and strncmp(<const char*>attr.name, "href", 5) == 0):
                    host = _host_hash(value)
                elif field and not typed and strncmp(<const char*>attr.name, "type", 5) == 0:
                    field = _entry_type(value)  # the first ``type``, as lxml's ``get``
                    typed = True
                attr = attr.next
            if field:
                cues |= <cnp.uint16_t>(1 << FIELD_BIT)
            out.sizes[index] = <int>min(size, 2147483647)
            out.hosts[index] = host
            out.cues[index] = cues
            index += 1
            node = _next_element(node, start)
        bytes_a = np.empty(index, dtype=np.int32)
        hosts_a = np.empty(index, dtype=np.uint32)
        cues_a = np.empty(index, dtype=np.uint16)
        if index:
            memcpy(cnp.PyArray_DATA(bytes_a), out.sizes, index * sizeof(int))
            memcpy(cnp.PyArray_DATA(hosts_a), out.hosts, index * sizeof(cnp.uint32_t))
            memcpy(cnp.PyArray_DATA(cues_a), out.cues, index * sizeof(cnp.uint16_t))
    finally:
        PyMem_Free(out.sizes)
        PyMem_Free(out.hosts)
        PyMem_Free(out.cues)
    return bytes_a, hosts_a, cues_a


# --- denoise.head: the page's title and meta keywords / description --------------------

cdef inline bint _is_element(xmlNode* node, const char* name) noexcept nogil:
    """Whether ``node`` is an element named ``name`` (the first letter tells most apart
    without a call)."""
    return (node.type == XML_ELEMENT_NODE and node.name[0] == name[0]
            and strcmp(<const char*>node.name, name) == 0)


cdef xmlNode* _title_child(xmlNode* head) noexcept nogil:
    """The first ``title`` child element of ``head``, NULL when it has none."""
    cdef xmlNode* child = head.children
    while child is not NULL and not _is_element(child, "title"):
        child = child.next
    return child


cdef str _collapsed_text(xmlNode* element):
    """``" ".join((element.text or "").split())``: lxml's text of an element (its
    leading text and CDATA nodes, XInclude markers skipped), whitespace runs collapsed
    as ``str.split`` finds them (:func:`_append`)."""
    cdef TextBuffer buffer
    _empty_buffer(&buffer)
    cdef xmlNode* node = element.children
    try:
        while node is not NULL:
            if _is_text(node):
                if node.content is not NULL:
                    _append(&buffer, <const unsigned char*>node.content)
            elif node.type != XML_XINCLUDE_START and node.type != XML_XINCLUDE_END:
                break
            node = node.next
        return PyUnicode_DecodeUTF8(buffer.data, buffer.size, NULL) if buffer.size else ""
    finally:
        PyMem_Free(buffer.data)


cdef xmlAttr* _attribute_node(xmlNode* node, const char* name) noexcept nogil:
    """The attribute ``name`` of ``node`` without a namespace (what lxml's ``get``
    reads), NULL when there is none. libxml2's own lookup is not exported by lxml."""
    cdef xmlAttr* attr = node.properties
    while attr is not NULL and (attr.ns is not NULL
                                or strcmp(<const char*>attr.name, name) != 0):
        attr = attr.next
    return attr


cdef bytes _attribute_value(xmlAttr* attr):
    """An attribute's value as UTF-8 bytes: its text children joined, as libxml2 gives
    it to lxml (b"" for an attribute without a value)."""
    cdef xmlNode* child = attr.children
    if child is not NULL and child.next is NULL and child.content is not NULL:
        return <bytes>(<const char*>child.content)
    value = b""
    while child is not NULL:
        if child.content is not NULL:
            value += <bytes>(<const char*>child.content)
        child = child.next
    return value


cdef str _attribute(xmlNode* node, const char* name):
    """``node.get(name) or ""``."""
    cdef xmlAttr* attr = _attribute_node(node, name)
    return "" if attr is NULL else _attribute_value(attr).decode("utf-8")


cdef int _meta_role(xmlNode* meta) except -1:
    """What a ``meta`` element's ``name`` (else ``property``), stripped and lower-cased,
    names: 1 keywords, 2 a description, 0 anything else. ASCII values are compared
    here; others go through ``str.strip`` and ``str.lower``, as Python would."""
    cdef xmlAttr* attr = _attribute_node(meta, "name")
    value = _attribute_value(attr) if attr is not NULL else b""
    if not value:
        attr = _attribute_node(meta, "property")
        if attr is NULL:
            return 0
        value = _attribute_value(attr)
    cdef const unsigned char* s = value
    cdef Py_ssize_t n = len(value), a = 0, b = n, k
    for k in range(n):
        if s[k] >= 128:
            name = value.decode("utf-8").strip().lower()
            return 1 if name == "keywords" else 2 if name in ("description",
                                                              "og:description") else 0
    while a < b and _space_at(s, a, n):
        a += 1
    while b > a and _space_at(s, b - 1, n):
        b -= 1
    if b - a == 8 and strncasecmp(<const char*>s + a, "keywords", 8) == 0:
        return 1
    if (b - a == 11 and strncasecmp(<const char*>s + a, "description", 11) == 0) or (
            b - a == 14 and strncasecmp(<const char*>s + a, "og:description", 14) == 0):
        return 2
    return 0


def head_texts(root):
    """``denoise.head.head_texts`` in one pass over libxml2's nodes: the page's
    ``<title>`` (``head/title`` under an ``<html>`` root, else the first ``head``'s
    anywhere below), whitespace collapsed, and the first non-empty ``content`` of a
    meta keywords and of a meta description (or og:description)."""
    cdef cetree._Element top = <cetree._Element?>root
    cdef xmlNode* start = top._c_node
    cdef xmlNode* node
    cdef xmlNode* title = NULL
    cdef int role
    keywords = description = ""
    if _is_element(start, "html"):
        node = start.children
        while node is not NULL and title is NULL:
            if _is_element(node, "head"):
                title = _title_child(node)
            node = node.next
    else:
        node = _next_element(start, start)
        while node is not NULL and title is NULL:
            if _is_element(node, "head"):
                title = _title_child(node)
            node = _next_element(node, start)
    node = start
    while node is not NULL and not (keywords and description):
        if _is_element(node, "meta"):
            role = _meta_role(node)
            if role == 1 and not keywords:
                keywords = _attribute(node, "content")
            elif role == 2 and not description:
                description = _attribute(node, "content")
        node = _next_element(node, start)
    return _collapsed_text(title) if title is not NULL else "", keywords, description


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
    float value  # the threshold (go left when x <= it); at a leaf, the leaf's value
    cnp.uint8_t feature  # 0 at a leaf
    cnp.uint8_t inner  # 1, 0 at a leaf: how far on the left child is
    cnp.uint16_t right  # how far on the right child is, 0 at a leaf


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
    cdef double* rank = <double*>cnp.PyArray_DATA(<cnp.ndarray>rank_a)
    cdef double* size = <double*>cnp.PyArray_DATA(<cnp.ndarray>size_a)
    cdef long long* children = <long long*>cnp.PyArray_DATA(<cnp.ndarray>children_a)
    cdef Py_ssize_t i, p
    for i in range(n):
        p = parents[i] if parents[i] >= 0 else n  # roots share a slot
        rank[i] = children[p]
        children[p] += 1
    for i in range(n):
        size[i] = children[parents[i] if parents[i] >= 0 else n]
    return rank_a, size_a


#: log(k) for k = 0, 1, 2... (log 0 taken as 0; never read), grown as pages need, up to
#: _MAX_KEPT_LOGS entries (8 MB); a page that needs more gets a table of its own
_LOGS = np.zeros(1)
DEF _MAX_KEPT_LOGS = 1 << 20  # noqa


cdef object _log_table(Py_ssize_t n):
    """The logarithms of the integers up to ``n``, as a float64 array."""
    global _LOGS
    if _LOGS.shape[0] > n:
        return _LOGS
    size = max(n + 1, min(2 * _LOGS.shape[0], _MAX_KEPT_LOGS))  # doubling, up to the cap
    with np.errstate(divide="ignore"):
        logs = np.log(np.arange(size, dtype=np.float64))
    logs[0] = 0.0
    if size <= _MAX_KEPT_LOGS:
        _LOGS = logs
    return logs


def node_kl(const long long[::1] ids, const long long[:, ::1] spans, Py_ssize_t vocab_size):
    """Per span of ``ids``: KL divergence from its word distribution to the rest of the
    page's, add-one smoothed (see ``denoise.features._kl_python``).

    Every probability is a ratio of counts, so each term's logarithm is a sum of
    logarithms of integers, read from a table (a ``log`` call for each distinct word of
    each span took most of the time); the sums round differently from the log of the
    ratio, in the last bits."""
    cdef Py_ssize_t n = spans.shape[0]
    cdef Py_ssize_t total = ids.shape[0]
    out_a = np.zeros(n, dtype=np.float64)
    page_a = np.zeros(vocab_size + 1, dtype=np.int64)
    here_a = np.zeros(vocab_size + 1, dtype=np.int64)
    cdef double* out = <double*>cnp.PyArray_DATA(out_a)
    cdef long long* page = <long long*>cnp.PyArray_DATA(page_a)
    cdef long long* here = <long long*>cnp.PyArray_DATA(here_a)
    cdef const long long* word = &ids[0] if total else NULL
    logs_a = _log_table(total + max(vocab_size, 1))
    cdef const double* logs = <const double*>cnp.PyArray_DATA(logs_a)
    cdef Py_ssize_t i, j, start, end, length
    cdef long long w
    cdef double kl, outside

    for j in range(total):
        if not 0 <= word[j] < vocab_size:
            raise ValueError("word ids must be in [0, vocab_size)")
        page[word[j]] += 1
    for i in range(n):
        start, end = spans[i, 0], spans[i, 1]
        length = end - start
        if length <= 0:
            continue
        if start < 0 or end > total:
            raise ValueError("spans must lie within the ids")
        for j in range(start, end):
            here[word[j]] += 1
        # p_block = here / length, p_rest = (page - here + 1) / (total - length + vocab)
        outside = logs[total - length + vocab_size] - logs[length]
        kl = 0.0
        for j in range(start, end):
            w = word[j]
            if here[w] > 0:  # first sight of the word in this span: its term, once
                kl += here[w] / <double>length * (
                    logs[here[w]] - logs[page[w] - here[w] + 1] + outside)
                here[w] = 0  # done, and clean for the next span
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


cdef packed struct _VocabSlot:  # 32 bytes: a lookup reads one cache line
    cnp.uint64_t hash
    double weight
    cnp.int32_t index  # -1: an empty slot
    cnp.int32_t length  # code points; the top bit set when ``head`` holds the word itself
    cnp.uint8_t head[8]  # the word (up to 8 code points below 256), else where it is in ``_text``


DEF _INLINE = 0x40000000  # noqa


cdef class WordTable:
    """A model's vocabulary (word -> index and weight), made once per model.

    An open-addressing table of 32-byte slots, each holding a word's hash, weight,
    index and (short Latin-1 words) the word itself, so a page's word costs one cache
    line however cold the table is; every hit is confirmed code point by code point,
    so the indices are exactly a dict's.
    """
    cdef readonly list words
    cdef object weights_a
    cdef object slots_a
    cdef _VocabSlot* slots
    cdef Py_ssize_t mask
    cdef object text_a  # the code points of the words that do not fit a slot
    cdef cnp.uint32_t* text

    def __cinit__(self, list words, weights=None):
        cdef Py_ssize_t n = len(words)
        cdef Py_ssize_t size = 16, i, k, length, at = 0
        cdef cnp.uint64_t h
        cdef _VocabSlot* slot
        cdef str word
        cdef int kind
        cdef void* data
        cdef bint inline
        cdef cnp.int32_t offset
        self.words = list(words)
        self.weights_a = np.zeros(n) if weights is None else np.array(weights, dtype=np.float64)
        if self.weights_a.shape != (n,):
            raise ValueError("one weight a word, please")
        cdef const double[:] weight = self.weights_a
        while size < 2 * n:
            size <<= 1
        self.slots_a = np.zeros(32 * size, dtype=np.uint8)
        self.slots = <_VocabSlot*>cnp.PyArray_DATA(self.slots_a)
        self.mask = size - 1
        for i in range(size):
            self.slots[i].index = -1
        self.text_a = np.empty(sum(len(w) for w in self.words if not _fits_slot(w)) + 1,
                               dtype=np.uint32)
        self.text = <cnp.uint32_t*>cnp.PyArray_DATA(self.text_a)
        for i in range(n):
            word = <str?>self.words[i]
            length = len(word)
            if length >= _INLINE:
                raise ValueError("vocabulary word too long")
            h = _str_hash(word)
            kind = PyUnicode_KIND(word)
            data = PyUnicode_DATA(word)
            if self._find(kind, data, length, h) is not NULL:
                raise ValueError(f"word {word!r} is in the vocabulary twice")
            slot = &self.slots[h & <cnp.uint64_t>self.mask]
            while slot.index >= 0:
                slot = &self.slots[(slot - self.slots + 1) & self.mask]
            slot.hash = h
            slot.weight = weight[i]
            slot.index = <cnp.int32_t>i
            inline = _fits_slot(word)
            slot.length = <cnp.int32_t>(length | (_INLINE if inline else 0))
            if inline:
                for k in range(length):
                    slot.head[k] = <cnp.uint8_t>PyUnicode_READ(kind, data, k)
            else:
                offset = <cnp.int32_t>at
                memcpy(slot.head, &offset, 4)
                for k in range(length):
                    self.text[at + k] = PyUnicode_READ(kind, data, k)
                at += length

    cdef const _VocabSlot* _find(self, int kind, void* data, Py_ssize_t length,
                                 cnp.uint64_t h) noexcept:
        """The slot of the word ``data[:length]``, NULL when it is not in the table."""
        cdef Py_ssize_t at = <Py_ssize_t>(h & <cnp.uint64_t>self.mask)
        cdef const _VocabSlot* slot
        cdef Py_ssize_t k
        cdef cnp.int32_t offset
        cdef const cnp.uint32_t* stored
        while True:
            slot = &self.slots[at]
            if slot.index < 0:
                return NULL
            if slot.hash == h and (slot.length & ~_INLINE) == length:
                if slot.length & _INLINE:
                    k = 0
                    while k < length and PyUnicode_READ(kind, data, k) == slot.head[k]:
                        k += 1
                else:
                    memcpy(&offset, slot.head, 4)
                    stored = self.text + offset
                    k = 0
                    while k < length and PyUnicode_READ(kind, data, k) == stored[k]:
                        k += 1
                if k == length:
                    return slot
            at = (at + 1) & self.mask

    cdef const _VocabSlot* _find_str(self, str word) noexcept:
        return self._find(PyUnicode_KIND(word), PyUnicode_DATA(word), len(word), _str_hash(word))

    def __reduce__(self):
        return (WordTable, (self.words, self.weights_a))

    def __len__(self):
        return len(self.words)

    def lookup(self, list words):
        """Per word, its index in the vocabulary, -1 when not in it (int64)."""
        cdef Py_ssize_t n = len(words)
        cdef Py_ssize_t i
        cdef const _VocabSlot* slot
        out_a = np.empty(n, dtype=np.int64)
        cdef long long* out = <long long*>cnp.PyArray_DATA(<cnp.ndarray>out_a)
        for i in range(n):
            slot = self._find_str(<str?>words[i])
            out[i] = slot.index if slot is not NULL else -1
        return out_a

    def weigh(self, list words):
        """Per word, its weight (0 when not in the vocabulary) and whether it is in it."""
        cdef Py_ssize_t n = len(words)
        cdef Py_ssize_t i
        cdef const _VocabSlot* slot
        weights_a = np.zeros(n, dtype=np.float64)
        known_a = np.zeros(n, dtype=np.bool_)
        cdef double* weights = <double*>cnp.PyArray_DATA(weights_a)
        cdef cnp.npy_bool* known = <cnp.npy_bool*>cnp.PyArray_DATA(known_a)
        for i in range(n):
            slot = self._find_str(<str?>words[i])
            if slot is not NULL:
                weights[i] = slot.weight
                known[i] = True
        return weights_a, known_a


cdef bint _fits_slot(str word):
    """Whether ``word`` is short and Latin-1 enough to sit in its slot."""
    return len(word) <= 8 and PyUnicode_KIND(word) == 1


ctypedef fused _chars:
    cnp.uint8_t
    cnp.uint16_t
    cnp.uint32_t


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
    cdef Py_ssize_t tokens = 1, i, slot
    cdef long long id_
    counts_a = np.zeros((m, 7), dtype=np.int64)
    if n == 0:
        return [], np.zeros(0, dtype=np.int64), counts_a, np.zeros(0, dtype=np.bool_)
    if kind == 1:
        tokens += _count_spaces(<const cnp.uint8_t*>data, n)
    elif kind == 2:
        tokens += _count_spaces(<const cnp.uint16_t*>data, n)
    else:
        tokens += _count_spaces(<const cnp.uint32_t*>data, n)
    ids_a = np.empty(tokens, dtype=np.int64)
    cdef _StringTable table = _StringTable(tokens)
    cdef _Scan scan
    scan.text = <PyObject*>text
    scan.trimmed = <PyObject*>trimmed
    scan.positions = &positions[0] if m else NULL
    scan.m = m
    scan.classes = &classes[0]
    scan.cap = <cnp.uint32_t>(classes.shape[0] - 1)
    scan.counts = <long long*>cnp.PyArray_DATA(counts_a)
    scan.ids = <long long*>cnp.PyArray_DATA(ids_a)
    if kind == 1:
        _scan_words(<const cnp.uint8_t*>data, n, kind, data, &scan, table, tokens)
    elif kind == 2:
        _scan_words(<const cnp.uint16_t*>data, n, kind, data, &scan, table, tokens)
    else:
        _scan_words(<const cnp.uint32_t*>data, n, kind, data, &scan, table, tokens)
    flags_a = np.zeros(len(table.words), dtype=np.bool_)
    cdef cnp.npy_bool* flags = <cnp.npy_bool*>cnp.PyArray_DATA(<cnp.ndarray>flags_a)
    for word in marked:
        id_ = table.find_str(word, _str_hash(word), &slot)
        if id_ >= 0:
            flags[id_] = True
    return table.words, ids_a, counts_a, flags_a


cdef struct _Scan:
    PyObject* text
    PyObject* trimmed
    const long long* positions
    Py_ssize_t m
    const cnp.uint8_t* classes
    cnp.uint32_t cap
    long long* counts  # (m, 7), C order
    long long* ids


cdef Py_ssize_t _count_spaces(const _chars* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, spaces = 0
    for i in range(n):
        spaces += s[i] == 32
    return spaces


cdef int _scan_words(const _chars* s, Py_ssize_t n, int kind, void* data, _Scan* scan,
                     _StringTable table, Py_ssize_t tokens) except -1:
    """The loop of ``page_words``, for one width of characters."""
    cdef Py_ssize_t i = 0, j, k, a, b, p = 0, t = 0, slot, raw_slot, length, n_raw = 0
    cdef Py_ssize_t raw_size = 8
    cdef Py_ssize_t m = scan.m
    cdef const long long* positions = scan.positions
    cdef const cnp.uint8_t* classes = scan.classes
    cdef cnp.uint32_t cap = scan.cap
    cdef long long* counts = scan.counts
    cdef cnp.uint32_t c
    cdef cnp.uint8_t bits
    cdef cnp.uint64_t h, th
    cdef bint ascii, found
    cdef long long id_
    cdef long long running[7]
    cdef str word
    cdef Py_UCS1* out
    cdef int e
    for k in range(7):
        running[k] = 0
    while raw_size < 2 * tokens:
        raw_size <<= 1
    # the distinct raw words (spans of the text) with their word's id
    raw_slots_a = np.full(raw_size, -1, dtype=np.int32)
    raw_a = np.empty((tokens, 3), dtype=np.int64)  # start, length, id
    raw_hash_a = np.empty(tokens, dtype=np.uint64)
    cdef int* raw_slots = <int*>cnp.PyArray_DATA(raw_slots_a)
    cdef long long* raw = <long long*>cnp.PyArray_DATA(raw_a)
    cdef cnp.uint64_t* raw_hash = <cnp.uint64_t*>cnp.PyArray_DATA(raw_hash_a)
    cdef Py_ssize_t raw_mask = raw_size - 1
    while True:
        # one word: [i, j)
        h = FNV_OFFSET
        ascii = True
        j = i
        while j < n:
            while p < m and positions[p] <= j:
                for k in range(7):
                    counts[7 * p + k] = running[k]
                p += 1
            c = s[j]
            if c == 32:
                break
            bits = classes[c if c < cap else cap]
            if bits:
                for k in range(6):
                    running[k] += (bits >> k) & 1
            h = _mix(h, c)
            ascii = ascii & (c < 128)
            j += 1
        length = j - i
        # seen this raw word before?
        slot = <Py_ssize_t>(h & <cnp.uint64_t>raw_mask)
        found = False
        while True:
            e = raw_slots[slot]
            if e < 0:
                break
            if raw_hash[e] == h and raw[3 * e + 1] == length:
                k = 0
                a = raw[3 * e]
                while k < length and s[a + k] == s[i + k]:
                    k += 1
                if k == length:
                    found = True
                    id_ = raw[3 * e + 2]
                    break
            slot = (slot + 1) & raw_mask
        if not found:
            raw_slot = slot
            if ascii:
                a, b = i, j
                while a < b and classes[s[a]] & 1:
                    a += 1
                while b > a and classes[s[b - 1]] & 1:
                    b -= 1
                th = FNV_OFFSET
                for k in range(a, b):
                    th = _mix(th, _lower_ascii(s[k]))
                id_ = table.find(kind, data, a, b - a, th, True, &slot)
                if id_ < 0:
                    word = PyUnicode_New(b - a, 127)
                    out = PyUnicode_1BYTE_DATA(word)
                    for k in range(a, b):
                        out[k - a] = <Py_UCS1>_lower_ascii(s[k])
                    id_ = table.add(word, th, slot)
            else:
                word = (<str>scan.text)[i:j].lower().strip(<str>scan.trimmed)
                th = _str_hash(word)
                id_ = table.find_str(word, th, &slot)
                if id_ < 0:
                    id_ = table.add(word, th, slot)
            raw[3 * n_raw] = i
            raw[3 * n_raw + 1] = length
            raw[3 * n_raw + 2] = id_
            raw_hash[n_raw] = h
            raw_slots[raw_slot] = <int>n_raw
            n_raw += 1
        scan.ids[t] = id_
        t += 1
        if j >= n:
            break
        while p < m and positions[p] <= j:  # the space at j
            for k in range(7):
                counts[7 * p + k] = running[k]
            p += 1
        bits = classes[32]
        for k in range(6):
            running[k] += (bits >> k) & 1
        running[6] += 1
        i = j + 1
    while p < m:
        for k in range(7):
            counts[7 * p + k] = running[k]
        p += 1
    return 0


def node_rows(
    const long long[:] starts, const long long[:] ends, const long long[:, :] token_spans,
    const double[:, :] in_chars, const double[:] kl, const double[:] title,
    const int[:] elements, const int[:] block_spans,
    const int[:] subtree_ends, const int[:] tag_ids, const int[:] parents, const int[:] depths,
    const int[:] lines, const int[:] markup_bytes, const cnp.uint32_t[:] hosts,
    const cnp.uint8_t[:] cues, const int[:] tag_family, const int[:] own_family,
    int link_tag, int image_tag, cnp.uint32_t page_host,
    const long long[:] chunk_starts, const long long[:] chunk_ends,
    const cnp.npy_bool[:] chunk_in_link, Py_ssize_t n_tokens, Py_ssize_t page_chars,
):
    """The feature rows of a page's scored blocks (``denoise.features.FEATURE_NAMES``),
    given their text bounds, words and character counts, KL divergence and title share.

    One pass over the page's elements keeps running counts (links, images, markup
    bytes, link targets, tag families), sibling ranks and inherited class / id cues;
    since the blocks are subtrees in document order, a stack of the open ones gives
    each its counts when the pass leaves it. ``block_spans`` holds each block's chunk
    range, flattened. Returns the rows (float32), the arguments of the seven
    ``log1p`` columns (float64, a row each; numpy takes the logarithms, so they are
    its to the last bit) and the images per block; None when the blocks are not
    distinct elements, nested and in document order (the ``regions`` always are).
    Every other column is the Python steps' arithmetic, operation for operation.
    """
    cdef Py_ssize_t n = elements.shape[0]
    cdef Py_ssize_t n_el = tag_ids.shape[0]
    cdef Py_ssize_t n_chunks = chunk_starts.shape[0]
    cdef Py_ssize_t i, k, k2, b, top = 0, next_node = 0
    rows_a = np.zeros((n, 61), dtype=np.float32)
    logs_a = np.empty((7, n), dtype=np.float64)
    images_a = np.empty(n, dtype=np.float64)
    cdef float[:, :] rows = rows_a
    cdef double[:, :] logs = logs_a
    cdef double* images = <double*>cnp.PyArray_DATA(<cnp.ndarray>images_a)
    if n == 0:
        return rows_a, logs_a, images_a
    if not (starts.shape[0] == ends.shape[0] == token_spans.shape[0] == in_chars.shape[0]
            == kl.shape[0] == title.shape[0] == n and block_spans.shape[0] == 2 * n
            and in_chars.shape[1] >= 6 and token_spans.shape[1] >= 2):
        raise ValueError("one row of text statistics a block, please")
    if not (subtree_ends.shape[0] == parents.shape[0] == depths.shape[0] == lines.shape[0]
            == markup_bytes.shape[0] == hosts.shape[0] == cues.shape[0] == n_el):
        raise ValueError("one entry a page element in each element array, please")
    for i in range(n_el):  # what the pass indexes with: checked, not trusted
        if not (-1 <= parents[i] < i and 0 <= tag_ids[i] < tag_family.shape[0]
                and tag_ids[i] < own_family.shape[0]):
            raise ValueError("element parents must precede them; tag ids must be known")
    for i in range(2 * n):
        if not 0 <= block_spans[i] <= n_chunks:
            raise ValueError("block chunk ranges out of range")
    if chunk_ends.shape[0] != n_chunks or chunk_in_link.shape[0] != n_chunks:
        raise ValueError("one entry a chunk in each chunk array, please")
    # scratch: running counts at each block's start, counts inside each block (links,
    # images, bytes, targets, intra-site targets, seven tag families), the stack of
    # open blocks, children seen per parent, each block's rank among its siblings,
    # anchor characters before each chunk; and the inherited cue bits per element
    cdef long long* scratch = <long long*>PyMem_Malloc(
        (26 * n + n_el + 1 + n_chunks + 1) * sizeof(long long) + n_el)
    if scratch is NULL:
        raise MemoryError()
    cdef long long* at_start = scratch
    cdef long long* inside = at_start + 12 * n
    cdef long long* stack = inside + 12 * n
    cdef long long* rank = stack + n
    cdef long long* children = rank + n
    cdef long long* anchor_prefix = children + n_el + 1
    cdef cnp.uint8_t* inherited = <cnp.uint8_t*>(anchor_prefix + n_chunks + 1)
    memset(children, 0, (n_el + 1) * sizeof(long long))
    cdef long long running[12]
    cdef int tag, family, parent
    cdef cnp.uint32_t host
    cdef double chars, words, safe_chars, safe_words, links, element_count, anchor
    cdef double targets, depth, siblings, max_line = 1.0, max_depth = 1.0
    cdef double tokens = <double>(n_tokens if n_tokens > 1 else 1)
    cdef double elements_total = <double>(n_el if n_el > 1 else 1)
    cdef int e, c
    cdef cnp.uint8_t own, up
    try:
        for k in range(12):
            running[k] = 0
        for i in range(n_el + 1):
            while top > 0 and subtree_ends[elements[stack[top - 1]]] <= i:
                top -= 1
                b = stack[top]
                for k in range(12):
                    inside[12 * b + k] = running[k] - at_start[12 * b + k]
            if i == n_el:
                break
            parent = parents[i]
            inherited[i] = cues[i] | (inherited[parent] if parent >= 0 else 0)
            k = parent if parent >= 0 else n_el  # roots share a slot
            if next_node < n and elements[next_node] == i:
                rank[next_node] = children[k]
                if top > 0 and subtree_ends[i] > subtree_ends[elements[stack[top - 1]]]:
                    return None  # not nested
                for k2 in range(12):
                    at_start[12 * next_node + k2] = running[k2]
                stack[top] = next_node
                top += 1
                next_node += 1
            children[k] += 1
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
            family = tag_family[tag]
            if family >= 0:
                running[5 + family] += 1
        if next_node < n:
            return None  # not elements of the page in document order
        anchor_prefix[0] = 0
        for i in range(n_chunks):
            anchor_prefix[i + 1] = anchor_prefix[i] + (
                chunk_ends[i] - chunk_starts[i] if chunk_in_link[i] else 0)

        for i in range(n_el):
            if lines[i] > max_line:
                max_line = lines[i]
            if depths[i] > max_depth:
                max_depth = depths[i]
        for b in range(n):
            e = elements[b]
            chars = <double>(ends[b] - starts[b])
            words = <double>(token_spans[b, 1] - token_spans[b, 0])
            safe_chars = chars if chars > 1.0 else 1.0
            safe_words = words if words > 1.0 else 1.0
            links = <double>inside[12 * b]
            element_count = <double>(subtree_ends[e] - e)
            anchor = <double>(anchor_prefix[block_spans[2 * b + 1]]
                              - anchor_prefix[block_spans[2 * b]])
            targets = <double>inside[12 * b + 3]
            depth = <double>depths[e]
            parent = parents[e]
            siblings = <double>children[parent if parent >= 0 else n_el]
            logs[0, b] = chars
            logs[1, b] = words
            logs[2, b] = links
            logs[3, b] = <double>inside[12 * b + 1]
            logs[4, b] = element_count
            logs[5, b] = <double>rank[b]
            logs[6, b] = siblings
            images[b] = <double>inside[12 * b + 1]
            rows[b, 2] = <float>(chars / safe_words)
            for k in range(3):
                rows[b, 3 + k] = <float>(in_chars[b, k] / safe_chars)
                rows[b, 6 + k] = <float>(in_chars[b, 3 + k] / safe_words)
            rows[b, 12] = <float>(links / safe_words)
            rows[b, 13] = <float>(anchor / safe_chars)
            rows[b, 14] = <float>(words * anchor / safe_chars / (links if links > 1.0 else 1.0))
            rows[b, 15] = <float>(<double>inside[12 * b + 4] / (targets if targets > 1.0 else 1.0)
                                  if targets > 0 else 0.5)
            rows[b, 16] = <float>(chars / max(chars + <double>inside[12 * b + 2], 1.0))
            for k in range(7):
                rows[b, 17 + k] = <float>(<double>inside[12 * b + 5 + k] / element_count)
            rows[b, 24] = <float>(words / tokens)
            rows[b, 25] = <float>(element_count / elements_total)
            rows[b, 26] = <float>kl[b]
            rows[b, 27] = <float>title[b]
            rows[b, 28] = <float>(<double>lines[e] / max_line)
            rows[b, 29] = <float>depth
            rows[b, 30] = <float>(depth / max_depth)
            rows[b, 33] = <float>(<double>rank[b] / (siblings if siblings > 1.0 else 1.0))
            rows[b, 34] = <float>(<double>starts[b] / <double>page_chars)
            rows[b, 35] = <float>(<double>(page_chars - ends[b]) / <double>page_chars)
            rows[b, 36] = <float>(<double>e / elements_total)
            c = own_family[tag_ids[e]]
            if c >= 0:
                rows[b, 37 + c] = 1.0
            own = cues[e]
            up = inherited[e]
            for k in range(8):
                rows[b, 45 + k] = <float>((own >> k) & 1)
                rows[b, 53 + k] = <float>((up >> k) & 1)
    finally:
        PyMem_Free(scratch)
    return rows_a, logs_a, images_a


def token_sums(const double[:] word_weights, const cnp.npy_bool[:] word_known,
               const long long[:] token_ids, const long long[:, :] spans):
    """Per span of tokens: the sum of its words' weights (per distinct word of the
    page: ``word_weights``, counted where ``word_known``) and how many are known.

    Sums are differences of a running sum in token order, as ``np.cumsum`` makes them,
    so they equal ``denoise.model``'s numpy path to the last bit.
    """
    cdef Py_ssize_t n = token_ids.shape[0]
    cdef Py_ssize_t m = spans.shape[0]
    prefix_a = np.empty(n + 1, dtype=np.float64)
    known_a = np.empty(n + 1, dtype=np.int64)
    cdef double* prefix = <double*>cnp.PyArray_DATA(prefix_a)
    cdef long long* known = <long long*>cnp.PyArray_DATA(known_a)
    total_a = np.empty(m, dtype=np.float64)
    words_a = np.empty(m, dtype=np.float64)
    cdef double* total = <double*>cnp.PyArray_DATA(total_a)
    cdef double* words = <double*>cnp.PyArray_DATA(words_a)
    cdef Py_ssize_t i
    cdef long long w
    if word_known.shape[0] != word_weights.shape[0]:
        raise ValueError("one weight and one flag a word, please")
    for i in range(n):
        if not 0 <= token_ids[i] < word_weights.shape[0]:
            raise ValueError("token ids out of range")
    for i in range(m):
        if not 0 <= spans[i, 0] <= n or not 0 <= spans[i, 1] <= n:
            raise ValueError("spans must lie within the tokens")
    prefix[0] = 0.0
    known[0] = 0
    for i in range(n):
        w = token_ids[i]
        prefix[i + 1] = prefix[i] + (word_weights[w] if word_known[w] else 0.0)
        known[i + 1] = known[i] + (word_known[w] != 0)
    for i in range(m):
        total[i] = prefix[spans[i, 1]] - prefix[spans[i, 0]]
        words[i] = <double>(known[spans[i, 1]] - known[spans[i, 0]])
    return total_a, words_a


def forest_proba(const TreeNode[::1] nodes, const int[::1] roots, const int[::1] steps,
                 const float[:, ::1] X):
    """Mean leaf value over the trees for each row of ``X`` (see ``denoise.model``).

    A node is 8 bytes: threshold (or a leaf's value), feature and where its children
    are (the left one next, a leaf its own child). So with
    ``steps[t]`` tree ``t``'s depth every walk takes the same number of steps without
    a test for leaves, a step picks the child by masks rather than a branch (a
    conditional expression compiled to a branch, and ran 2.5x slower), eight
    rows go down a tree together so their loads overlap, and one tree at a time stays
    in the cache. Each row sums the trees in order.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t trees = roots.shape[0]
    out_a = np.zeros(n, dtype=np.float64)
    cdef double* out = <double*>cnp.PyArray_DATA(<cnp.ndarray>out_a)
    if n == 0:
        return out_a
    cdef Py_ssize_t i, t, k
    cdef int s, root
    cdef cnp.uint32_t go, right
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
                    go = 0u - <cnp.uint32_t>(row[k][node.feature] <= node.value)
                    right = node.right
                    at[k] += <int>(right ^ ((node.inner ^ right) & go))
            for k in range(min(8, n - i)):
                out[i + k] += tree[at[k]].value
            i += 8
    if trees:
        for i in range(n):
            out[i] = out[i] / trees
    return out_a


def scored_tree(const cnp.npy_bool[:] eligible, const int[:] parents):
    """The scored blocks of a page as a tree: their indices, each one's nearest scored
    ancestor (as a node, -1 for none) and its weight, 1 plus the unscored blocks
    whose nearest scored ancestor it is (see ``denoise.features.page_features``)."""
    cdef Py_ssize_t n = eligible.shape[0]
    cdef Py_ssize_t i, count = 0
    cdef int parent
    for i in range(n):
        count += eligible[i] != 0
    nearest_a = np.empty(n, dtype=np.int32)
    nodes_a = np.empty(count, dtype=np.int32)
    node_parents_a = np.empty(count, dtype=np.int32)
    weights_a = np.ones(count, dtype=np.float64)
    cdef int* nearest = <int*>cnp.PyArray_DATA(nearest_a)
    cdef int* nodes = <int*>cnp.PyArray_DATA(nodes_a)
    cdef int* node_parents = <int*>cnp.PyArray_DATA(node_parents_a)
    cdef double* weights = <double*>cnp.PyArray_DATA(weights_a)
    cdef int node = 0
    for i in range(n):
        parent = parents[i]
        if parent >= i or parent < -1:
            raise ValueError("parents must precede their children (preorder), -1 for roots")
        if eligible[i]:
            nodes[node] = <int>i
            node_parents[node] = nearest[parent] if parent >= 0 else -1
            nearest[i] = node
            node += 1
        else:
            nearest[i] = nearest[parent] if parent >= 0 else -1
            if nearest[i] >= 0:
                weights[nearest[i]] += 1.0
    return nodes_a, node_parents_a, weights_a


# ---- finding hashes in a sorted table (denoise.arrays.SortedKeys) --------------------

def radix_positions(const cnp.uint64_t[::1] keys, const cnp.int64_t[::1] directory,
                    int shift, const cnp.uint64_t[::1] present, int present_shift,
                    const cnp.uint64_t[::1] needles):
    """Each needle's index in the sorted ``keys``, -1 when absent: the keys whose top
    bits equal the needle's lie in ``directory[b]:directory[b + 1]``. Bit ``p`` of
    ``present`` (64-bit words, ``2 ** (58 - present_shift)`` of them: ``present_shift``
    from 0 to 58) is set when a key's top ``64 - present_shift`` bits are ``p``: a
    needle whose bit is clear is absent without a look at the directory or the keys."""
    cdef Py_ssize_t n = needles.shape[0], buckets = directory.shape[0] - 1, i, k, end
    cdef cnp.uint64_t needle, bucket, bit
    if shift < 1 or shift > 63 or buckets != (<Py_ssize_t>1) << (64 - shift):
        raise ValueError("directory does not match the shift")
    if directory[0] != 0 or directory[buckets] != keys.shape[0]:
        raise ValueError("directory does not cover the keys")
    if present_shift < 0 or present_shift > 58 or \
            present.shape[0] != (<Py_ssize_t>1) << (58 - present_shift):
        raise ValueError("the presence bits do not match their shift")
    out = np.empty(n, dtype=np.int64)
    cdef cnp.int64_t[::1] found = out
    with nogil:
        for i in range(n):
            needle = needles[i]
            bit = needle >> present_shift
            if not (present[bit >> 6] >> (bit & 63)) & 1:
                found[i] = -1
                continue
            bucket = needle >> shift
            k = directory[bucket]
            end = directory[bucket + 1]
            while k < end and keys[k] < needle:
                k += 1
            found[i] = k if k < end and keys[k] == needle else -1
    return out


cdef packed struct _GroupSlot:
    cnp.uint64_t value
    cnp.int64_t group  # -1: an empty slot


def unique_groups(const cnp.uint64_t[::1] values):
    """``np.unique(values, return_index=True, return_inverse=True, return_counts=True)``
    of 64-bit keys (``denoise.arrays.unique_groups``), by grouping, then sorting.

    One pass over an open-addressing table numbers the distinct values in order of
    first appearance (so a group's first position is where it was numbered) and counts
    them; only the distinct values are sorted then, each carrying its group
    (``_bucket_sort``; numpy's sort, and a second lookup of each in the table, where the
    values crowd). A page's
    phrase occurrences are ~1.6 for each distinct one (~3,600 and ~2,300 on the
    enciphered scale pages, ~1,300 and ~750 on real ones, ad hoc), and the argsort of
    all of them, with its gathers, was most of the candidates' grouping.
    """
    cdef Py_ssize_t n = values.shape[0], size = 16, i, j, groups = 0
    cdef int shift = 60
    cdef cnp.int64_t g
    while size < 2 * n:
        size *= 2
        shift -= 1
    slots_a = np.empty(size * sizeof(_GroupSlot), dtype=np.uint8)
    cdef _GroupSlot* slots = <_GroupSlot*>cnp.PyArray_DATA(slots_a)
    for i in range(size):
        slots[i].group = -1
    distinct_a = np.empty(n, dtype=np.uint64)
    first_a = np.empty(n, dtype=np.int64)
    counts_a = np.zeros(n, dtype=np.int64)
    inverse_a = np.empty(n, dtype=np.int64)
    cdef cnp.uint64_t[::1] distinct = distinct_a
    cdef cnp.int64_t[::1] first = first_a, counts = counts_a, inverse = inverse_a
    cdef _GroupSlot* slot
    for i in range(n):
        slot = _group_slot(slots, size, shift, values[i])
        g = slot.group
        if g < 0:
            g = groups
            groups += 1
            slot.value = values[i]
            slot.group = g
            distinct[g] = values[i]
            first[g] = i
        counts[g] += 1
        inverse[i] = g  # the group for now; its rank below
    ordered_a = np.empty(groups, dtype=np.uint64)
    group_of_a = np.empty(groups, dtype=np.int64)
    cdef cnp.uint64_t[::1] ordered = ordered_a
    cdef cnp.int64_t[::1] group_of = group_of_a
    if groups and not _bucket_sort(&distinct[0], groups, &ordered[0], &group_of[0]):
        ordered_a = np.sort(distinct_a[:groups])
        ordered = ordered_a
        for j in range(groups):
            group_of[j] = _group_slot(slots, size, shift, ordered[j]).group
    rank_a = np.empty(groups, dtype=np.int64)
    first_out_a = np.empty(groups, dtype=np.int64)
    counts_out_a = np.empty(groups, dtype=np.int64)
    cdef cnp.int64_t[::1] rank = rank_a, first_out = first_out_a, counts_out = counts_out_a
    for j in range(groups):
        g = group_of[j]
        rank[g] = j
        first_out[j] = first[g]
        counts_out[j] = counts[g]
    for i in range(n):
        inverse[i] = rank[inverse[i]]
    return ordered_a, first_out_a, inverse_a, counts_out_a


#: The most values one bucket of ``_bucket_sort`` may get before it gives up.
DEF _MOST_IN_BUCKET = 32  # noqa


cdef bint _bucket_sort(const cnp.uint64_t* values, Py_ssize_t n, cnp.uint64_t* out,
                       cnp.int64_t* index) except -1:
    """``values[:n]`` (distinct, ``n`` >= 1) in ascending order into ``out``, each one's
    index in ``values`` into ``index``; False, and ``out`` and ``index`` unfinished,
    where too many values crowd one bucket.

    Hashes spread evenly over their range, so cut into a bucket a value by where they
    lie in it, they come out sorted but for the few sharing a bucket, which an insertion
    sort puts in order: linear time instead of a comparison sort's. Values that crowd
    (small integers, a bad hash) go back to numpy's sort.
    """
    cdef cnp.uint64_t lo = values[0], hi = values[0], v
    cdef Py_ssize_t i, j, k, buckets = 1
    cdef int shift = 0
    for i in range(n):
        v = values[i]
        lo = v if v < lo else lo
        hi = v if v > hi else hi
    while buckets < n:
        buckets <<= 1
    while ((hi - lo) >> shift) >= <cnp.uint64_t>buckets:
        shift += 1
    starts_a = np.zeros(buckets + 1, dtype=np.int64)
    cdef cnp.int64_t* starts = <cnp.int64_t*>cnp.PyArray_DATA(starts_a)
    for i in range(n):
        k = <Py_ssize_t>((values[i] - lo) >> shift) + 1
        starts[k] += 1
        if starts[k] > _MOST_IN_BUCKET:
            return False
    for k in range(buckets):
        starts[k + 1] += starts[k]
    for i in range(n):
        k = <Py_ssize_t>((values[i] - lo) >> shift)
        j = starts[k]
        starts[k] = j + 1
        out[j] = values[i]
        index[j] = i
    cdef cnp.int64_t moved
    for i in range(1, n):  # each value is at most a bucket away from its place
        v = out[i]
        moved = index[i]
        j = i
        while j > 0 and out[j - 1] > v:
            out[j] = out[j - 1]
            index[j] = index[j - 1]
            j -= 1
        out[j] = v
        index[j] = moved
    return True


cdef inline _GroupSlot* _group_slot(_GroupSlot* slots, Py_ssize_t size, int shift,
                                    cnp.uint64_t value) noexcept nogil:
    """The slot of ``value``: its own, or the empty one where it would go (the top bits
    of a multiplicative hash pick the first: keys need not be well mixed)."""
    cdef Py_ssize_t at = <Py_ssize_t>((value * 0x9E3779B97F4A7C15ULL) >> shift)
    while slots[at].group >= 0 and slots[at].value != value:
        at = (at + 1) & (size - 1)
    return &slots[at]
