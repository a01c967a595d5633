# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""kwx's compiled steps: a page's kept chunks, the words of its text from the chunk
cache, token rows, shapes and cuts, phrase occurrences, per-candidate counts and the
best candidates. Each replaces steps in Python or numpy that stay beside it as the
reference (used where this extension is not built); the tests check the two agree.
"""

import numpy as np

cimport numpy as cnp
from cpython.ref cimport PyObject
from cpython.unicode cimport (
    Py_UCS1,
    PyUnicode_1BYTE_DATA,
    PyUnicode_DATA,
    PyUnicode_KIND,
    PyUnicode_New,
    PyUnicode_READ,
)
from libc.math cimport isnan
from libc.string cimport memset

cnp.import_array()


# --- kwx.document: a page's kept chunks ---------------------------------------------------

def kept_chunks(const int[::1] chunk_block, const cnp.int64_t[::1] chunk_starts,
                const cnp.int64_t[::1] chunk_ends, const cnp.npy_bool[::1] chunk_in_link,
                const cnp.npy_bool[::1] chunk_keep, const double[::1] block_scores,
                const cnp.npy_bool[::1] block_heading):
    """``kwx.document.kept_document``'s chunk arrays in one pass over a page's chunks.

    A chunk is kept when ``chunk_keep`` says so and it is in a block (``chunk_block``
    >= 0); with no scores (``block_scores`` empty) a kept chunk's template score is 0.
    Returns per chunk whether it is kept, and per kept chunk its offset in the kept
    text (``denoise.detector.block_lines``: the chunks before it, each followed by what
    the page text has between it and the next when that one is kept and of its block,
    nothing or a space, else by one separator), whether it is anchor text, whether its
    block is a heading (``block_heading``) and its block's score; and the characters of
    the chunks in blocks that were not kept."""
    cdef Py_ssize_t n = chunk_block.shape[0], blocks = block_heading.shape[0], i, k = 0
    cdef Py_ssize_t kept_count = 0, previous = -1
    cdef int b
    cdef bint scored = block_scores.shape[0] > 0
    cdef cnp.int64_t at = 0, removed = 0, length
    if (chunk_starts.shape[0] != n or chunk_ends.shape[0] != n or chunk_in_link.shape[0] != n
            or chunk_keep.shape[0] != n):
        raise ValueError("the chunk arrays must have one entry a chunk")
    if scored and block_scores.shape[0] != blocks:
        raise ValueError("block_scores must be empty or have one score a block")
    keep_array = np.zeros(n, dtype=np.bool_)
    cdef cnp.npy_bool* keep = <cnp.npy_bool*>cnp.PyArray_DATA(<cnp.ndarray>keep_array)
    for i in range(n):
        b = chunk_block[i]
        if b >= blocks or b < -1:
            raise ValueError("a chunk's block is out of range")
        if b >= 0 and chunk_keep[i]:
            keep[i] = True
            kept_count += 1
    offsets_array = np.empty(kept_count, dtype=np.int64)
    link_array = np.empty(kept_count, dtype=np.bool_)
    heading_array = np.empty(kept_count, dtype=np.bool_)
    template_array = np.empty(kept_count, dtype=np.float64)
    cdef cnp.int64_t* offsets = <cnp.int64_t*>cnp.PyArray_DATA(<cnp.ndarray>offsets_array)
    cdef cnp.npy_bool* link = <cnp.npy_bool*>cnp.PyArray_DATA(<cnp.ndarray>link_array)
    cdef cnp.npy_bool* heading = <cnp.npy_bool*>cnp.PyArray_DATA(<cnp.ndarray>heading_array)
    cdef double* template = <double*>cnp.PyArray_DATA(<cnp.ndarray>template_array)
    for i in range(n):
        b = chunk_block[i]
        length = chunk_ends[i] - chunk_starts[i]
        if not keep[i]:
            if b >= 0:
                removed += length
            continue
        if previous >= 0:  # the separator after the last kept chunk
            if previous == i - 1 and chunk_block[previous] == b:
                at += chunk_starts[i] - chunk_ends[previous]
            else:
                at += 1
        offsets[k] = at
        at += length
        previous = i
        link[k] = chunk_in_link[i]
        heading[k] = block_heading[b]
        template[k] = block_scores[b] if scored else 0.0
        k += 1
    return keep_array, offsets_array, link_array, heading_array, template_array, removed


# ---- the words of a text from kwx's chunk cache (kwx.text._ChunkTokens) ---------------

cdef extern from "Python.h":
    object PyUnicode_Substring(object text, Py_ssize_t start, Py_ssize_t end)
    PyObject* PyList_GET_ITEM(object list, Py_ssize_t index)


# The chunk table's hash: FNV-1a over code points, as denoise._compiled's word tables
# hash (the tables need not agree: a hash only picks a chunk's slot).
cdef extern from *:
    """
    #define KWX_FNV_OFFSET 14695981039346656037ULL
    #define KWX_FNV_PRIME 1099511628211ULL
    """
    cnp.uint64_t FNV_OFFSET "KWX_FNV_OFFSET"
    cnp.uint64_t FNV_PRIME "KWX_FNV_PRIME"


cdef inline cnp.uint64_t _mix(cnp.uint64_t h, cnp.uint32_t c) noexcept nogil:
    """One step of FNV-1a over code points."""
    return (h ^ c) * FNV_PRIME


cdef cnp.uint64_t _str_hash(str s):
    """The hash ``ChunkTable`` keys a chunk by: FNV-1a over its code points."""
    cdef int kind = PyUnicode_KIND(s)
    cdef void* data = PyUnicode_DATA(s)
    cdef Py_ssize_t k
    cdef cnp.uint64_t h = FNV_OFFSET
    for k in range(len(s)):
        h = _mix(h, PyUnicode_READ(kind, data, k))
    return h


DEF _INLINE = 0x40000000  # noqa


cdef packed struct _ChunkSlot:  # 32 bytes: a lookup reads one cache line
    cnp.uint64_t hash
    cnp.int32_t number  # -1: an empty slot
    cnp.int32_t length  # code points; _INLINE set when ``head`` holds the chunk itself
    cnp.uint8_t head[16]  # the chunk, when it has up to 16 code points below 256


cdef class ChunkTable:
    """Space-free chunks of text to numbers 0, 1, 2... in the order they were added
    (``kwx.text``'s chunk cache): what a dict of them would answer, exactly.

    An open-addressing table of 32-byte slots holding a chunk's hash, number and (up to
    16 Latin-1 characters, most chunks) the chunk itself, so a lookup reads one cache
    line however cold the table is, and is confirmed code point by code point (longer
    chunks against the kept string). :meth:`split` looks up every chunk of a text
    straight from its characters: a dict needed a new string of each chunk, and its
    hash, before the lookup (~100 ns a chunk, the most of kwx's per-chunk work).
    """
    cdef list keys  # number -> chunk
    cdef object slots_a
    cdef _ChunkSlot* slots
    cdef Py_ssize_t mask

    def __cinit__(self):
        self.keys = []
        self._allocate(1024)

    cdef void _allocate(self, Py_ssize_t size):
        self.slots_a = np.zeros(32 * size + 64, dtype=np.uint8)
        cdef size_t start = <size_t>cnp.PyArray_DATA(self.slots_a)
        self.slots = <_ChunkSlot*>((start + 63) & ~(<size_t>63))  # no slot spans two lines
        self.mask = size - 1
        cdef Py_ssize_t i
        for i in range(size):
            self.slots[i].number = -1

    def __len__(self):
        return len(self.keys)

    def __contains__(self, chunk):
        return type(chunk) is str and self._find_str(chunk).number >= 0

    cdef _ChunkSlot* _find(self, int kind, void* data, Py_ssize_t start, Py_ssize_t length,
                           cnp.uint64_t h) noexcept:
        """The slot of ``data[start:start + length]``: its own, or the empty one where it
        would go."""
        cdef _ChunkSlot* slot = &self.slots[h & <cnp.uint64_t>self.mask]
        cdef Py_ssize_t k
        cdef str kept
        cdef int kept_kind
        cdef void* kept_data
        while slot.number >= 0:
            if slot.hash == h and (slot.length & ~_INLINE) == length:
                if slot.length & _INLINE:
                    k = 0
                    while k < length and PyUnicode_READ(kind, data, start + k) == slot.head[k]:
                        k += 1
                else:
                    kept = <str><object>PyList_GET_ITEM(self.keys, slot.number)
                    kept_kind = PyUnicode_KIND(kept)
                    kept_data = PyUnicode_DATA(kept)
                    k = 0
                    while k < length and PyUnicode_READ(kind, data, start + k) == PyUnicode_READ(
                            kept_kind, kept_data, k):
                        k += 1
                if k == length:
                    return slot
            slot = &self.slots[(slot - self.slots + 1) & self.mask]
        return slot

    cdef _ChunkSlot* _find_str(self, str chunk) except NULL:
        if chunk is None:
            raise TypeError("a chunk must be a str, not None")
        return self._find(PyUnicode_KIND(chunk), PyUnicode_DATA(chunk), 0, len(chunk),
                          _str_hash(chunk))

    def __getitem__(self, str chunk not None):
        cdef _ChunkSlot* slot = self._find_str(chunk)
        if slot.number < 0:
            raise KeyError(chunk)
        return slot.number

    def get(self, str chunk not None, default=None):
        """The number of ``chunk``, ``default`` when it is not in the table."""
        cdef _ChunkSlot* slot = self._find_str(chunk)
        return slot.number if slot.number >= 0 else default

    def add(self, list chunks):
        """Number ``chunks`` (none in the table yet, each once) from ``len(self)`` on."""
        cdef str chunk
        cdef _ChunkSlot* slot
        cdef Py_ssize_t k, n, size = self.mask + 1
        cdef int kind
        cdef void* data
        cdef cnp.uint64_t h
        if len(self.keys) + len(chunks) >= 2**31:
            raise ValueError("too many chunks to number")
        while 2 * (len(self.keys) + len(chunks)) > size:
            size *= 2
        if size != self.mask + 1:
            self._grow(size)
        for chunk in chunks:
            n = len(chunk)
            if n >= _INLINE:
                raise ValueError("a chunk is too long to number")
            kind = PyUnicode_KIND(chunk)
            data = PyUnicode_DATA(chunk)
            h = _str_hash(chunk)
            slot = self._find(kind, data, 0, n, h)
            if slot.number >= 0:
                raise ValueError(f"chunk {chunk!r} is numbered already")
            slot.hash = h
            slot.number = <cnp.int32_t>len(self.keys)
            slot.length = <cnp.int32_t>n
            if n <= 16 and kind == 1:
                slot.length |= _INLINE
                for k in range(n):
                    slot.head[k] = <cnp.uint8_t>PyUnicode_READ(kind, data, k)
            self.keys.append(chunk)

    cdef void _grow(self, Py_ssize_t size):
        """Move every slot to a table of ``size`` slots (a power of two)."""
        old_a = self.slots_a
        cdef _ChunkSlot* old = self.slots
        cdef Py_ssize_t i, old_size = self.mask + 1
        cdef _ChunkSlot* slot
        self._allocate(size)
        for i in range(old_size):
            if old[i].number >= 0:
                slot = &self.slots[old[i].hash & <cnp.uint64_t>self.mask]
                while slot.number >= 0:
                    slot = &self.slots[(slot - self.slots + 1) & self.mask]
                slot[0] = old[i]

    def numbers(self, list chunks):
        """Per chunk, its number, -1 when it is not in the table (int64)."""
        out_a = np.empty(len(chunks), dtype=np.int64)
        cdef cnp.int64_t[::1] out = out_a
        cdef Py_ssize_t i
        for i in range(len(chunks)):
            out[i] = self._find_str(<str?>chunks[i]).number
        return out_a

    def split(self, str text not None):
        """Cut ``text`` at spaces and line breaks into chunks: each chunk's number (-1
        when absent), its start, whether a line break precedes it, and the positions and
        strings of the absent ones. None when a chunk would be empty (two separators
        together, or one at either end)."""
        cdef Py_ssize_t n = len(text), i, start = 0, k = 0, chunks = 1
        cdef int kind = PyUnicode_KIND(text)
        cdef void* data = PyUnicode_DATA(text)
        cdef Py_UCS4 c
        cdef bint line_break = False
        cdef cnp.uint64_t h = FNV_OFFSET
        cdef _ChunkSlot* slot
        if n == 0:
            return None
        for i in range(n):
            c = PyUnicode_READ(kind, data, i)
            if c == 32 or c == 10:
                chunks += 1
        numbers_array = np.empty(chunks, dtype=np.int64)
        starts_array = np.empty(chunks, dtype=np.int64)
        lines_array = np.zeros(chunks, dtype=np.uint8)
        cdef cnp.int64_t[::1] numbers = numbers_array, starts = starts_array
        cdef cnp.uint8_t[::1] lines = lines_array
        missing_at = []
        missing = []
        for i in range(n + 1):
            c = PyUnicode_READ(kind, data, i) if i < n else 32
            if c != 32 and c != 10:
                h = _mix(h, c)
                continue
            if i == start:
                return None
            slot = self._find(kind, data, start, i - start, h)
            numbers[k] = slot.number
            if slot.number < 0:
                missing_at.append(k)
                missing.append(PyUnicode_Substring(text, start, i))
            starts[k] = start
            lines[k] = line_break
            line_break = c == 10
            k += 1
            start = i + 1
            h = FNV_OFFSET
        return numbers_array, starts_array, lines_array, missing_at, missing


def assemble_words(const cnp.int64_t[::1] numbers, const cnp.int64_t[::1] chunk_starts,
                   const cnp.uint8_t[::1] lines, const cnp.int64_t[::1] first,
                   const cnp.int64_t[::1] count, const cnp.uint64_t[:, ::1] table):
    """The words of chunks whose token rows are ``table[first[k]:first[k] + count[k]]``
    (columns as kwx.text's: id, 7 flags, offset, length, space after), as the arrays of
    ``kwx.text.Words``: what ``_token_table`` then ``words`` compute with numpy."""
    cdef Py_ssize_t chunks = numbers.shape[0], rows = table.shape[0], total = 0, k, r, t
    cdef Py_ssize_t kept = 0, end_row
    cdef cnp.int64_t number, run = 0
    if table.shape[1] != 11:
        raise ValueError("token rows must have 11 columns")
    for k in range(chunks):
        number = numbers[k]
        if number < 0 or number >= first.shape[0] or number >= count.shape[0]:
            raise ValueError("a chunk number is out of range")
        if first[number] < 0 or count[number] < 0 or first[number] + count[number] > rows:
            raise ValueError("a chunk's rows are out of range")
        total += count[number]
    # per token, as numpy scratch arrays (freed with them, whatever is raised below)
    cdef cnp.uint8_t[::1] state = np.empty(total, dtype=np.uint8)
    cdef cnp.int64_t[::1] row_of = np.empty(total, dtype=np.int64)
    cdef cnp.int64_t[::1] start_of = np.empty(total, dtype=np.int64)
    # state bits: 1 word-like, 2 glued to the next token, 4 a line break before it
    cdef bint pending_line = False
    t = 0
    for k in range(chunks):
        number = numbers[k]
        pending_line = pending_line or lines[k] != 0
        end_row = first[number] + count[number]
        for r in range(first[number], end_row):
            state[t] = 0
            if table[r, 1] == 0 and table[r, 2] == 0 and table[r, 6] != 0:
                state[t] |= 1
            if table[r, 10] == 0 and r + 1 < end_row:
                state[t] |= 2
            if pending_line:
                state[t] |= 4
                pending_line = False
            row_of[t] = r
            start_of[t] = chunk_starts[k] + <cnp.int64_t>table[r, 8]
            if state[t] & 1:
                kept += 1
            t += 1
    ids_array = np.empty(kept, dtype=np.uint64)
    runs_array = np.empty(kept, dtype=np.int64)
    stop_array = np.empty(kept, dtype=bool)
    capitalized_array = np.empty(kept, dtype=bool)
    upper_array = np.empty(kept, dtype=bool)
    starts_array = np.empty(kept, dtype=np.int64)
    ends_array = np.empty(kept, dtype=np.int64)
    cdef cnp.uint64_t* ids = <cnp.uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>ids_array)
    cdef cnp.int64_t* runs = <cnp.int64_t*>cnp.PyArray_DATA(<cnp.ndarray>runs_array)
    cdef cnp.int64_t* starts = <cnp.int64_t*>cnp.PyArray_DATA(<cnp.ndarray>starts_array)
    cdef cnp.int64_t* ends = <cnp.int64_t*>cnp.PyArray_DATA(<cnp.ndarray>ends_array)
    cdef cnp.npy_bool* stop = <cnp.npy_bool*>cnp.PyArray_DATA(<cnp.ndarray>stop_array)
    cdef cnp.npy_bool* capitalized = <cnp.npy_bool*>cnp.PyArray_DATA(<cnp.ndarray>capitalized_array)
    cdef cnp.npy_bool* upper = <cnp.npy_bool*>cnp.PyArray_DATA(<cnp.ndarray>upper_array)
    cdef Py_ssize_t w = 0
    cdef bint before, after, joiner
    for t in range(total):
        r = row_of[t]
        if state[t] & 1:
            run += (state[t] & 4) != 0
            ids[w] = table[r, 0]
            runs[w] = run
            stop[w] = table[r, 3] != 0
            capitalized[w] = table[r, 4] != 0 or table[r, 5] != 0
            upper[w] = table[r, 5] != 0 and table[r, 9] >= 2
            starts[w] = start_of[t]
            ends[w] = start_of[t] + <cnp.int64_t>table[r, 9]
            w += 1
            continue
        # a joiner glued between two words is dropped without a break
        before = t > 0 and (state[t - 1] & 3) == 3
        after = t + 1 < total and (state[t + 1] & 1) != 0
        joiner = before and (state[t] & 2) != 0 and after and table[r, 7] != 0
        run += (not joiner) + ((state[t] & 4) != 0)
    return ids_array, runs_array, stop_array, capitalized_array, upper_array, starts_array, ends_array


# --- kwx.spacy_rules (imitates spaCy's tokenizer): a chunk's token cuts from its shape ---
# (ShapeCuts; switched off with the rest of kwx.spacy_rules where spaCy's rules differ)

cdef extern from "Python.h":
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)

DEF _MAX_SHAPED = 64  # at least kwx.spacy_rules.MAX_CHARS


def shape_cuts(str chunk not None, dict shapes not None, specials, Py_ssize_t max_chars):
    """``kwx.spacy_rules.ShapeCuts.cuts`` in one pass (``shapes`` and ``specials`` are its
    own): the chunk's shape (:func:`shape_of`), its known cuts; None when the chunk has
    no shape, an unknown or refused one, or holds a special case at one of its shape's
    places. ``tests/test_spacy_rules.py`` compares it with the Python steps."""
    return _shape_cuts(chunk, shapes, specials, max_chars)


def shape_of(str chunk not None, Py_ssize_t max_chars):
    """``kwx.spacy_rules.shape``: the chunk's shape and the chunk written out, or None. Its
    ASCII letters written x / X, a possessive's "s" kept, runs of one case cut to two in
    the shape; with a digit, "$" or "°" and no letter, its digits written 0 and the rest
    as it is; with digits and letters, digits 0 and the letters as without digits but
    for each run of letters a unit may be made of (``spacy_rules.UNIT_RUNS_AFTER_DIGIT``
    after a digit, ``UNIT_RUNS_AFTER_SLASH`` after a slash), kept as it is (and not
    cut). None when the chunk is longer than ``max_chars``, or has a digit, "$" or "°"
    and a character from U+00A1 on or three dots, or letters and "$"."""
    cdef Py_UCS4 written[_MAX_SHAPED]
    cdef Py_UCS4 key[_MAX_SHAPED]
    cdef Py_ssize_t k = _shape(chunk, max_chars, written, key)
    if k < 0:
        return None
    return (PyUnicode_FromKindAndData(4, key, k),  # 4: PyUnicode_4BYTE_KIND
            PyUnicode_FromKindAndData(4, written, len(chunk)))


cdef object _shape_cuts(str chunk, dict shapes, specials, Py_ssize_t max_chars):
    cdef Py_UCS4 written[_MAX_SHAPED]
    cdef Py_UCS4 key[_MAX_SHAPED]
    cdef Py_ssize_t k = _shape(chunk, max_chars, written, key)
    if k < 0:
        return None
    return _known_cuts(chunk, written, len(chunk), shapes.get(
        PyUnicode_FromKindAndData(4, key, k)), specials)


# kwx.spacy_rules.UNIT_RUNS_AFTER_DIGIT and UNIT_RUNS_AFTER_SLASH, each run between bars
# (tests/test_spacy_rules.py checks the compiled shapes keep the same runs)
cdef const char* _UNIT_RUNS_AFTER_DIGIT = (
    b"|km|m|dm|cm|mm|ha|nm|yd|in|ft|kg|g|mg|t|lb|oz|kmh|mph|hPa|Pa|mbar|mb|MB|kb|KB|gb|GB"
    b"|tb|TB|T|G|M|K|")
cdef const char* _UNIT_RUNS_AFTER_SLASH = b"|s|h|"


cdef inline bint _is_ascii_letter(Py_UCS4 c) noexcept nogil:
    return (97 <= c <= 122) or (65 <= c <= 90)


cdef bint _unit_run(int kind, void* data, Py_ssize_t start, Py_ssize_t stop,
                    const char* runs) noexcept:
    """Whether the ASCII letters ``data[start:stop]`` are one of ``runs`` (each between
    bars; NULL: none)."""
    cdef const char* at = runs
    cdef Py_ssize_t i
    if runs is NULL:
        return False
    while at[0] != 0 and at[1] != 0:  # at: a bar, the first of a run's
        at += 1
        i = 0
        while start + i < stop and at[i] == <char>PyUnicode_READ(kind, data, start + i):
            i += 1
        if start + i == stop and at[i] == 124:  # "|"
            return True
        while at[0] != 124:
            at += 1
    return False


cdef Py_ssize_t _shape(str chunk, Py_ssize_t max_chars, Py_UCS4* written,
                       Py_UCS4* key) noexcept:
    """Fill ``written`` (the chunk's length) and ``key`` (returns its length) with the
    chunk written out and its shape (:func:`shape_of`); -1 when it has none."""
    cdef Py_ssize_t n = len(chunk), i, k = 0
    cdef int kind = PyUnicode_KIND(chunk)
    cdef void* data = PyUnicode_DATA(chunk)
    cdef Py_UCS4 c, last = 0
    cdef bint as_is[_MAX_SHAPED]
    cdef int run = 0, dots = 0
    cdef Py_ssize_t j, k2
    cdef bint numeric = False, letters = False, wide = False, dollar = False
    if n > max_chars or max_chars > _MAX_SHAPED:
        return -1
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        numeric = numeric or (48 <= c <= 57) or c == 36 or c == 0xB0  # a digit, "$", "°"
        letters = letters or (97 <= c <= 122) or (65 <= c <= 90)
        wide = wide or c >= 0xA1
        dollar = dollar or c == 36
        dots += c == 46
    if numeric and (wide or dots >= 3 or (letters and dollar)):
        return -1
    if numeric and not letters:  # digits written 0, the rest as it is
        for i in range(n):
            c = PyUnicode_READ(kind, data, i)
            written[i] = key[i] = 48 if 48 <= c <= 57 else c
        return n
    for i in range(n):  # letters x, X; digits 0 (there are none without letters here)
        c = PyUnicode_READ(kind, data, i)
        written[i] = 120 if 97 <= c <= 122 else (88 if 65 <= c <= 90 else (
            48 if 48 <= c <= 57 else c))
        as_is[i] = False
    i = 0
    while i + 1 < n:  # a possessive: ' or ’ then s or S, left to right, not overlapping
        c = PyUnicode_READ(kind, data, i)
        if (c == 39 or c == 0x2019) and PyUnicode_READ(kind, data, i + 1) in (115, 83):
            written[i + 1] = PyUnicode_READ(kind, data, i + 1)
            i += 2
        else:
            i += 1
    if numeric:  # with letters: a run a unit may be made of kept as it is
        i = 1
        while i < n:
            last = PyUnicode_READ(kind, data, i - 1)
            j = i
            while j < n and _is_ascii_letter(PyUnicode_READ(kind, data, j)):
                j += 1
            if j > i and not _is_ascii_letter(last) and _unit_run(
                    kind, data, i, j, _UNIT_RUNS_AFTER_DIGIT if 48 <= last <= 57 else (
                        _UNIT_RUNS_AFTER_SLASH if last == 47 else NULL)):
                for k2 in range(i, j):
                    written[k2] = PyUnicode_READ(kind, data, k2)
                    as_is[k2] = True
            i = j + 1
        last = 0
    for i in range(n):  # a run of x (or X) keeps its first two
        c = written[i]
        run = run + 1 if (c == last and (c == 120 or c == 88) and not as_is[i]) else 1
        last = 0 if as_is[i] else c
        if run <= 2:
            key[k] = c
            k += 1
    return k


cdef object _known_cuts(str chunk, Py_UCS4* written, Py_ssize_t n, object known, specials):
    """The cuts of a shape ``known`` (cuts and places, each a bytes of (start, end)
    segment pairs, or None) in ``chunk``, written out as ``written``; None when a place
    holds a special case."""
    cdef Py_ssize_t at[_MAX_SHAPED + 1]
    cdef Py_ssize_t i = 0, j, segments = 0
    cdef Py_UCS4 c
    cdef bytes cuts, places
    cdef const unsigned char* pairs
    cdef Py_ssize_t a, b
    if known is None:
        return None
    cuts, places = known
    if len(cuts) % 2 or len(places) % 2:
        raise ValueError("a shape's cuts and places are (start, end) pairs")
    while i < n:  # segments: a run of x, a run of X, or any other character
        at[segments] = i
        segments += 1
        c = written[i]
        j = i + 1
        if c == 120 or c == 88:
            while j < n and written[j] == c:
                j += 1
        i = j
    at[segments] = n
    pairs = places
    for i in range(0, len(places), 2):
        a, b = pairs[i], pairs[i + 1]
        if a > segments or b > segments:
            raise ValueError("a shape's place is past the chunk's segments")
        if PyUnicode_Substring(chunk, at[a], at[b]) in specials:
            return None
    pairs = cuts
    found = []
    for i in range(0, len(cuts), 2):
        a, b = pairs[i], pairs[i + 1]
        if a > segments or b > segments:
            raise ValueError("a shape's cut is past the chunk's segments")
        found.append((at[a], at[b]))
    return tuple(found)


# places: the runs of tokens, up to n(n+1)/2 of them, and fewer than n inside tokens
DEF _MAX_PLACES = 2144  # _MAX_SHAPED + _MAX_SHAPED * (_MAX_SHAPED + 1) / 2


def learnt_shape(str chunk not None, str written not None, tuple cuts not None, specials,
                 Py_ssize_t max_tokens):
    """``kwx.spacy_rules.ShapeCuts.learnt_python`` in one pass: what a shape learns from
    spaCy's ``cuts`` of ``chunk`` (written out as ``written``, by ``shape_of``): False
    when a special case is at one of the places spaCy may have looked up; None when
    there are more than ``max_tokens`` cuts or a cut or place falls inside a run of
    letters; else the cuts and the places as bytes of (start, end) segment numbers;
    NotImplemented (left to the Python steps) when a cut ends past the chunk.
    ``tests/kwx/test_spacy_rules.py`` compares it with the Python steps."""
    cdef Py_ssize_t n = len(chunk), count = len(cuts), i, j, k, places = 0, segments = 0
    cdef Py_ssize_t starts[_MAX_SHAPED], ends[_MAX_SHAPED]
    cdef Py_ssize_t keys[_MAX_PLACES]
    cdef Py_ssize_t segment_of[_MAX_SHAPED + 1]
    cdef char out[2 * (_MAX_SHAPED + _MAX_PLACES)]
    cdef Py_ssize_t a, b, key, width
    cdef Py_UCS4 c
    cdef bint letter
    cdef int kind = PyUnicode_KIND(chunk), written_kind = PyUnicode_KIND(written)
    cdef void* data = PyUnicode_DATA(chunk)
    cdef void* written_data = PyUnicode_DATA(written)
    if n > _MAX_SHAPED or len(written) != n:
        raise ValueError("a shaped chunk is at most 64 characters, written out as long")
    if count > max_tokens:
        return None
    if count > _MAX_SHAPED:
        raise ValueError("more cuts than a shaped chunk has characters")
    width = n + 1
    for i in range(count):
        a, b = cuts[i]
        if not 0 <= a <= b:
            raise ValueError("a cut ends before it starts, or starts before its chunk")
        if b > n:  # spaCy's row of a lone whitespace may end past it
            return NotImplemented
        starts[i], ends[i] = a, b
    for i in range(count):  # the runs of tokens, then the inside of tokens without letters
        for j in range(i, count):
            keys[places] = starts[i] * width + ends[j]
            places += 1
    for i in range(count):
        a, b = starts[i], ends[i]
        if b - a <= 1:
            continue
        letter = False
        for k in range(a, b):
            if _is_ascii_letter(PyUnicode_READ(kind, data, k)):
                letter = True
                break
        if not letter:
            for k in range(a + 1, b):
                keys[places] = a * width + k
                places += 1
    for i in range(1, places):  # sorted (a few dozen keys), then distinct
        key = keys[i]
        j = i - 1
        while j >= 0 and keys[j] > key:
            keys[j + 1] = keys[j]
            j -= 1
        keys[j + 1] = key
    k = 0
    for i in range(places):
        if k == 0 or keys[i] != keys[k - 1]:
            keys[k] = keys[i]
            k += 1
    places = k
    for i in range(places):
        if PyUnicode_Substring(chunk, keys[i] // width, keys[i] % width) in specials:
            return False
    for i in range(n + 1):
        segment_of[i] = -1
    i = 0
    while i < n:  # segments: a run of x, a run of X, or any other character
        segment_of[i] = segments
        segments += 1
        c = PyUnicode_READ(written_kind, written_data, i)
        i += 1
        if c == 120 or c == 88:
            while i < n and PyUnicode_READ(written_kind, written_data, i) == c:
                i += 1
    segment_of[n] = segments
    for i in range(places):
        if segment_of[keys[i] // width] < 0 or segment_of[keys[i] % width] < 0:
            return None
    for i in range(count):
        out[2 * i] = <char>segment_of[starts[i]]
        out[2 * i + 1] = <char>segment_of[ends[i]]
    k = 2 * count
    for i in range(places):
        out[k] = <char>segment_of[keys[i] // width]
        out[k + 1] = <char>segment_of[keys[i] % width]
        k += 2
    return (out[:2 * count], out[2 * count:k])


# --- kwx.spacy_rules (imitates spaCy's lexemes): token rows of ASCII tokens ---------------
# (Imitation.lexeme_rows and chunk_rows; used only where kwx.spacy_rules is active and the
# rows agree with spaCy's lexeme functions on its probe)

cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object text)

# ASCII characters of Unicode category P* (spaCy's is_punct), and str.isspace's
cdef bytes _PUNCT_ASCII = b"!\"#%&'()*,-./:;?@[\\]_{}"
cdef bytes _SPACE_ASCII = b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f "


cdef struct _AsciiClasses:
    unsigned char punct[128]
    unsigned char space[128]


cdef void _ascii_classes(_AsciiClasses* classes) noexcept:
    cdef Py_ssize_t i
    memset(classes, 0, sizeof(_AsciiClasses))
    for i in range(len(_PUNCT_ASCII)):
        classes.punct[<unsigned char>_PUNCT_ASCII[i]] = 1
    for i in range(len(_SPACE_ASCII)):
        classes.space[<unsigned char>_SPACE_ASCII[i]] = 1


cdef cnp.uint64_t _murmur64(const unsigned char* data, Py_ssize_t length,
                            cnp.uint64_t seed) noexcept nogil:
    """MurmurHash64A (Appleby) of ``data[:length]``, eight bytes read little-endian at
    a time: the hash spaCy gives a string (its UTF-8 bytes, seed 1). ``kwx.spacy_rules``
    checks it against ``spacy.strings.get_string_id`` before trusting it."""
    cdef cnp.uint64_t m = 0xC6A4A7935BD1E995ULL
    cdef cnp.uint64_t h = seed ^ (<cnp.uint64_t>length * m)
    cdef cnp.uint64_t k
    cdef Py_ssize_t i, j, blocks = length // 8
    for i in range(blocks):
        k = 0
        for j in range(8):
            k |= (<cnp.uint64_t>data[8 * i + j]) << (8 * j)
        k *= m
        k ^= k >> 47
        k *= m
        h ^= k
        h *= m
    if length & 7:
        for j in range((length & 7) - 1, -1, -1):
            h ^= (<cnp.uint64_t>data[8 * blocks + j]) << (8 * j)
        h *= m
    h ^= h >> 47
    h *= m
    h ^= h >> 47
    return h


def spacy_string_id(str text not None, dict symbols not None):
    """``spacy.strings.get_string_id`` of an ASCII ``text`` (``symbols``: spaCy's
    ``spacy.symbols.IDS``), compiled; None for text that is not ASCII."""
    if not PyUnicode_IS_ASCII(text):
        return None
    return _string_id(text, symbols)


cdef inline cnp.uint64_t _string_id(str ascii_text, dict symbols) except? 0:
    cdef Py_ssize_t n = len(ascii_text)
    if n == 0:
        return 0
    symbol = symbols.get(ascii_text)
    if symbol is not None:
        return symbol
    return _murmur64(PyUnicode_1BYTE_DATA(ascii_text), n, 1)


cdef packed struct _LexiconSlot:
    cnp.uint64_t hash  # _murmur64 of the word, as its spaCy id is made
    cnp.uint64_t symbol  # the word's fixed id when it is a symbol's name
    cnp.int32_t offset  # where the word's bytes start in ``text``; -1: an empty slot
    cnp.int32_t length
    cnp.uint8_t is_symbol
    cnp.uint8_t is_stop


DEF _LOWERED_ON_STACK = 64  # noqa


cdef class AsciiLexicon:
    """spaCy's stop words and symbol names (``spacy.symbols.IDS``), those in ASCII,
    looked up from a token's lower-cased bytes: a token's row needs no Python string of
    it (making one and looking it up in a set and a dict was most of a new token's
    cost). Words are confirmed byte by byte; the answers are the set's and the dict's.
    """
    cdef object slots_a
    cdef _LexiconSlot* slots
    cdef Py_ssize_t mask
    cdef bytes text

    def __cinit__(self, stops, dict symbols not None):
        words = {}  # word -> [a stop word, its symbol id or None]
        for word in stops:
            if isinstance(word, str) and word.isascii():
                words.setdefault(word, [False, None])[0] = True
        for word, symbol in symbols.items():
            if isinstance(word, str) and word.isascii():
                words.setdefault(word, [False, None])[1] = symbol
        cdef Py_ssize_t size = 16, at = 0
        while size < 2 * len(words):
            size <<= 1
        self.slots_a = np.zeros(size * sizeof(_LexiconSlot), dtype=np.uint8)
        self.slots = <_LexiconSlot*>cnp.PyArray_DATA(self.slots_a)
        self.mask = size - 1
        cdef Py_ssize_t i
        for i in range(size):
            self.slots[i].offset = -1
        self.text = "".join(words).encode("ascii")
        cdef const unsigned char* text = self.text
        cdef _LexiconSlot* slot
        cdef cnp.uint64_t h
        for word, (stop, symbol) in words.items():
            h = _murmur64(text + at, len(word), 1)
            slot = &self.slots[h & <cnp.uint64_t>self.mask]
            while slot.offset >= 0:
                slot = &self.slots[(slot - self.slots + 1) & self.mask]
            slot.hash, slot.offset, slot.length = h, <cnp.int32_t>at, <cnp.int32_t>len(word)
            slot.is_stop = stop
            slot.is_symbol = symbol is not None
            slot.symbol = symbol if symbol is not None else 0
            at += len(word)

    cdef const _LexiconSlot* find(self, const Py_UCS1* word, Py_ssize_t length,
                                  cnp.uint64_t h) noexcept:
        """The slot of ``word[:length]`` (hashed to ``h``), NULL when it is neither."""
        cdef const _LexiconSlot* slot = &self.slots[h & <cnp.uint64_t>self.mask]
        cdef const unsigned char* text = self.text
        cdef Py_ssize_t k
        while slot.offset >= 0:
            if slot.hash == h and slot.length == length:
                k = 0
                while k < length and text[slot.offset + k] == word[k]:
                    k += 1
                if k == length:
                    return slot
            slot = &self.slots[(slot - self.slots + 1) & self.mask]
        return NULL


cdef int _ascii_row(const Py_UCS1* s, Py_ssize_t length, cnp.uint64_t* row,
                    const _AsciiClasses* classes, AsciiLexicon lexicon) except -1:
    """The row of the ASCII token ``s[:length]``, at offset 0 and with "no space after"
    0 (the caller sets those). A token up to 64 bytes is lowered on the stack, a longer
    one into a string made for it."""
    cdef Py_ssize_t i
    cdef unsigned char c
    cdef bint punct = True, space = length > 0  # as spaCy's is_punct and str.isspace say of ""
    cdef bint upper_seen = False, lower_seen = False, after_cased = False, alnum = False
    cdef bint title = True
    cdef Py_UCS1 on_stack[_LOWERED_ON_STACK]
    cdef Py_UCS1* low = on_stack
    cdef cnp.uint64_t h
    cdef const _LexiconSlot* slot
    lowered = None
    if length > _LOWERED_ON_STACK:
        lowered = PyUnicode_New(length, 127)  # filled below, before anyone sees it
        low = PyUnicode_1BYTE_DATA(lowered)
    for i in range(length):
        c = s[i]
        punct = punct and classes.punct[c]
        space = space and classes.space[c]
        if 65 <= c <= 90:  # str.istitle: upper case only after an uncased character
            title = title and not after_cased
            upper_seen = after_cased = alnum = True
            c += 32
        elif 97 <= c <= 122:  # and lower case only after a cased one
            title = title and after_cased
            lower_seen = after_cased = alnum = True
        else:
            after_cased = False
            alnum = alnum or (48 <= c <= 57)
        low[i] = c
    h = _murmur64(low, length, 1) if length else 0  # spaCy's id of "" is 0
    slot = lexicon.find(low, length, h)
    row[0] = slot.symbol if slot is not NULL and slot.is_symbol else h
    row[1] = punct
    row[2] = space
    row[3] = slot is not NULL and slot.is_stop
    row[4] = title and (upper_seen or lower_seen)
    row[5] = upper_seen and not lower_seen
    row[6] = alnum
    row[7] = length == 1 and (s[0] == 45 or s[0] == 47 or s[0] == 38 or s[0] == 39)
    row[8] = 0
    row[9] = length
    row[10] = 0
    return 0


def ascii_token_rows(list tokens, AsciiLexicon lexicon not None):
    """kwx.text's token rows (11 columns: id, punct, space, stop, title, upper, letter or
    digit, joiner, offset 0, length, no space after) of the ASCII tokens among
    ``tokens``, what spaCy's English lexeme getters give (``lexicon``: its stop words,
    and the strings whose id is not their hash, ``spacy.symbols.IDS``); and the indices
    of the others, whose rows are left 0 for the Python getters."""
    cdef Py_ssize_t n = len(tokens), t
    cdef _AsciiClasses classes
    rows_array = np.zeros((n, 11), dtype=np.uint64)
    cdef cnp.uint64_t[:, ::1] rows = rows_array
    _ascii_classes(&classes)
    others = []
    for t in range(n):
        token = tokens[t]
        if not PyUnicode_IS_ASCII(token):
            others.append(t)
            continue
        _ascii_row(PyUnicode_1BYTE_DATA(token), len(<str>token), &rows[t, 0], &classes,
                   lexicon)
    return rows_array, others


cdef inline bint _one_ascii_token(const Py_UCS1* s, Py_ssize_t n) noexcept:
    """Whether ``s[:n]`` is ASCII letters only or ASCII digits only (kwx.spacy_rules._SIMPLE)."""
    cdef Py_ssize_t i
    cdef bint letters = True, digits = True
    cdef Py_UCS1 c
    for i in range(n):
        c = s[i]
        letters = letters and (65 <= c <= 90 or 97 <= c <= 122)
        digits = digits and 48 <= c <= 57
    return n > 0 and (letters or digits)


def chunk_rows(list chunks, exceptions, ChunkTable previous, previous_first, previous_count,
               previous_table, dict shapes not None, specials, Py_ssize_t max_chars,
               AsciiLexicon lexicon not None):
    """The token rows (kwx.text's 11 columns) of the chunks that need no spaCy call, in
    one pass: a chunk of ASCII letters only or digits only that is not among
    ``exceptions`` (one token, "no space after" set, as ``Imitation.plain_rows`` makes
    it), a chunk numbered in ``previous`` (its rows copied from ``previous_table``), an
    ASCII chunk whose shape gives its cuts (``ShapeCuts``: rows as
    ``Imitation.cut_rows`` makes them). Returns the rows, chunk after chunk, and each
    chunk's number of rows, -1 for a chunk left to the caller (spaCy, or the getters for
    a token that is not ASCII). Its caller, ``kwx.spacy_rules.Imitation.chunk_rows``, is
    called only where the shortcuts are on and the compiled rows agree with the getters."""
    cdef Py_ssize_t n = len(chunks), i, j, k, used = 0, length, first = 0, count
    cdef int way  # 0: one token, 1: the previous table's rows, 2: its shape's cuts
    cdef bint ascii
    cdef _AsciiClasses classes
    cdef const Py_UCS1* s
    cdef const cnp.int64_t[::1] old_first, old_count
    cdef const cnp.uint64_t[:, ::1] old_table
    cdef cnp.uint64_t[:, ::1] rows
    cdef cnp.int64_t[::1] counts
    cdef _ChunkSlot* slot
    cdef str chunk
    _ascii_classes(&classes)
    if previous is not None:
        old_first, old_count, old_table = previous_first, previous_count, previous_table
    rows_array = np.zeros((2 * n + 16, 11), dtype=np.uint64)
    rows = rows_array
    counts_array = np.full(n, -1, dtype=np.int64)
    counts = counts_array
    for i in range(n):
        chunk = <str?>chunks[i]
        length = len(chunk)
        ascii = PyUnicode_IS_ASCII(chunk)
        cuts = None
        if ascii and _one_ascii_token(PyUnicode_1BYTE_DATA(chunk), length) and \
                chunk not in exceptions:
            way, count = 0, 1
        else:
            slot = previous._find_str(chunk) if previous is not None else NULL
            if slot != NULL and slot.number >= 0:
                if slot.number >= old_first.shape[0] or slot.number >= old_count.shape[0]:
                    raise ValueError("the previous table numbers more chunks than it has rows")
                way, first, count = 1, old_first[slot.number], old_count[slot.number]
                if first < 0 or count < 0 or first + count > old_table.shape[0]:
                    raise ValueError("the previous table's rows are out of its range")
            elif ascii:
                cuts = _shape_cuts(chunk, shapes, specials, max_chars)
                if cuts is None:
                    continue
                way, count = 2, len(cuts)
            else:
                continue
        if used + count > rows.shape[0]:
            grown = np.zeros((2 * (used + count), 11), dtype=np.uint64)
            grown[:used] = rows_array[:used]
            rows_array = grown
            rows = rows_array
        counts[i] = count
        if way == 0:
            _ascii_row(PyUnicode_1BYTE_DATA(chunk), length, &rows[used, 0], &classes, lexicon)
            rows[used, 10] = 1
        elif way == 1:
            for k in range(count):
                for j in range(11):
                    rows[used + k, j] = old_table[first + k, j]
        else:
            s = PyUnicode_1BYTE_DATA(chunk)
            for k, (a, b) in enumerate(cuts):
                if not 0 <= a <= b <= length:
                    raise ValueError("a shape's cut is outside its chunk")
                _ascii_row(s + <Py_ssize_t>a, <Py_ssize_t>b - <Py_ssize_t>a, &rows[used + k, 0],
                           &classes, lexicon)
                rows[used + k, 8] = a
        used += count
    return rows_array[:used].copy(), counts_array


# --- kwx.text: candidate phrase occurrences -----------------------------------------------

def phrase_occurrences(const cnp.uint64_t[::1] ids, const cnp.int64_t[::1] runs,
                       const cnp.npy_bool[::1] stop, Py_ssize_t max_words, cnp.uint64_t mix):
    """``kwx.text.occurrences`` in one pass per length: every run of 1 to ``max_words``
    words within one run number, neither starting nor ending with a stop word, as
    (hash, first word, length) arrays in the numpy steps' order (by length, then by
    first word). The hash folds the word ids as ``h = h * mix ^ id``."""
    cdef Py_ssize_t m = ids.shape[0], n, i, k = 0, last, total = 0
    if runs.shape[0] != m or stop.shape[0] != m:
        raise ValueError("ids, runs and stop must have one entry a word")
    for n in range(1, max_words + 1):  # an upper bound: every start of every length
        if m - n + 1 > 0:
            total += m - n + 1
    hashes_array = np.empty(total, dtype=np.uint64)
    first_array = np.empty(total, dtype=np.int64)
    lengths_array = np.empty(total, dtype=np.int64)
    rolling_array = np.empty(m, dtype=np.uint64)
    cdef cnp.uint64_t* hashes = <cnp.uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>hashes_array)
    cdef cnp.uint64_t* rolling = <cnp.uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>rolling_array)
    cdef cnp.int64_t* first = <cnp.int64_t*>cnp.PyArray_DATA(<cnp.ndarray>first_array)
    cdef cnp.int64_t* lengths = <cnp.int64_t*>cnp.PyArray_DATA(<cnp.ndarray>lengths_array)
    for i in range(m):
        rolling[i] = ids[i]
    for n in range(1, max_words + 1):
        if m - n + 1 <= 0:
            break
        for i in range(m - n + 1):
            last = i + n - 1
            if n > 1:
                rolling[i] = (rolling[i] * mix) ^ ids[last]
            if runs[i] == runs[last] and not stop[i] and not stop[last]:
                hashes[k] = rolling[i]
                first[k] = i
                lengths[k] = n
                k += 1
    return hashes_array[:k].copy(), first_array[:k].copy(), lengths_array[:k].copy()


# --- kwx.extractor: the best candidates ---------------------------------------------------

cdef inline bint _ranks_before(double a, cnp.int64_t first_a, Py_ssize_t i, double b,
                               cnp.int64_t first_b, Py_ssize_t j) noexcept nogil:
    """Whether score ``a`` (first word ``first_a``, index ``i``) ranks before ``b``: the
    higher score, then the earlier first word, then the lower index; NaN last."""
    if isnan(a) != isnan(b):
        return isnan(b)
    if not isnan(a) and a != b:
        return a > b
    return first_a < first_b or (first_a == first_b and i < j)


def best_indices(const double[::1] scores, const cnp.int64_t[::1] first, Py_ssize_t n):
    """The indices of the ``n`` best ``scores``, best first, ties by ``first`` then by
    index: ``np.lexsort((first, -scores))[:n]``, by one pass that keeps the best ``n``
    so far in order (a page wants ten of its thousands of candidates)."""
    cdef Py_ssize_t m = scores.shape[0], i, j, kept = 0
    if first.shape[0] != m:
        raise ValueError("scores and first must have one entry a candidate")
    if n < 0:
        raise ValueError("n must not be negative")
    n = min(n, m)
    best_a = np.empty(n, dtype=np.int64)
    cdef cnp.int64_t[::1] best = best_a
    for i in range(m):
        if kept == n and (n == 0 or not _ranks_before(
                scores[i], first[i], i, scores[best[n - 1]], first[best[n - 1]], best[n - 1])):
            continue
        j = kept if kept < n else n - 1
        while j > 0 and _ranks_before(scores[i], first[i], i, scores[best[j - 1]],
                                      first[best[j - 1]], best[j - 1]):
            best[j] = best[j - 1]
            j -= 1
        best[j] = i
        if kept < n:
            kept += 1
    return best_a


# --- kwx.candidates: per-candidate counts over its occurrences ----------------------------

def candidate_spans(const cnp.int64_t[::1] first_index, const cnp.int64_t[::1] occ_first,
                    const cnp.int64_t[::1] occ_lengths, const cnp.int64_t[::1] word_starts,
                    const cnp.int64_t[::1] word_ends, const cnp.npy_bool[::1] stop):
    """Per candidate, from its first occurrence (``first_index``, among the occurrences
    ``occ_first`` / ``occ_lengths``): its first word, its length in words, the characters
    of that occurrence ((n, 2): the first word's start, the last word's end) and whether
    a stop word is among its words (``kwx.candidates._candidate_spans``' numpy steps, in
    one pass)."""
    cdef Py_ssize_t n = first_index.shape[0], m = occ_first.shape[0]
    cdef Py_ssize_t words = word_starts.shape[0], i, k, a, b, w
    cdef bint inside
    if occ_lengths.shape[0] != m:
        raise ValueError("occ_first and occ_lengths must have one entry an occurrence")
    if word_ends.shape[0] != words or stop.shape[0] != words:
        raise ValueError("word_starts, word_ends and stop must have one entry a word")
    first_array = np.empty(n, dtype=np.int64)
    lengths_array = np.empty(n, dtype=np.int64)
    spans_array = np.empty((n, 2), dtype=np.int64)
    inside_array = np.empty(n, dtype=np.bool_)
    cdef cnp.int64_t* first = <cnp.int64_t*>cnp.PyArray_DATA(<cnp.ndarray>first_array)
    cdef cnp.int64_t* lengths = <cnp.int64_t*>cnp.PyArray_DATA(<cnp.ndarray>lengths_array)
    cdef cnp.int64_t[:, ::1] spans = spans_array
    cdef cnp.npy_bool* stop_inside = <cnp.npy_bool*>cnp.PyArray_DATA(<cnp.ndarray>inside_array)
    for i in range(n):
        k = first_index[i]
        if not 0 <= k < m:
            raise ValueError("a candidate's first occurrence is outside the occurrences")
        a = occ_first[k]
        b = a + occ_lengths[k] - 1
        if a < 0 or b < a or b >= words:
            raise ValueError("an occurrence is outside the words")
        first[i] = a
        lengths[i] = b - a + 1
        spans[i, 0] = word_starts[a]
        spans[i, 1] = word_ends[b]
        inside = False
        for w in range(a, b + 1):
            if stop[w]:
                inside = True
                break
        stop_inside[i] = inside
    return first_array, lengths_array, spans_array, inside_array


def phrase_structure(const cnp.int64_t[::1] occ_first, const cnp.int64_t[::1] occ_lengths,
                     const cnp.int64_t[::1] inverse, const cnp.int64_t[::1] tf,
                     const cnp.int64_t[::1] first_word, const cnp.int64_t[::1] lengths,
                     Py_ssize_t n_words):
    """``kwx.candidates.phrase_structure``: per candidate its cohesion and the largest
    share of its occurrences inside one candidate a word longer, from the occurrences
    (``occ_first`` / ``occ_lengths``, each one's candidate ``inverse``) and the
    candidates (``tf``, ``first_word``, ``lengths``) of a text of ``n_words`` words.

    Each occurrence is filed by (length, first word), so an occurrence's two children
    (a word shorter, at its first word and the next) are looked up, not searched for;
    the (child, parent) pairs are counted by one sort."""
    cdef Py_ssize_t m = occ_first.shape[0], n = tf.shape[0], width = n_words + 1
    cdef Py_ssize_t i, k, o, c, f, longest = 0, pairs = 0, run, child
    cdef cnp.int64_t t, total, counted
    if occ_lengths.shape[0] != m or inverse.shape[0] != m:
        raise ValueError("occ_first, occ_lengths and inverse must have one entry an occurrence")
    if first_word.shape[0] != n or lengths.shape[0] != n:
        raise ValueError("tf, first_word and lengths must have one entry a candidate")
    for o in range(m):
        if occ_lengths[o] < 1 or occ_first[o] < 0 or occ_first[o] + occ_lengths[o] > n_words:
            raise ValueError("an occurrence is outside the words")
        if not 0 <= inverse[o] < n:
            raise ValueError("an occurrence's candidate is out of range")
        if occ_lengths[o] > longest:
            longest = occ_lengths[o]
    for c in range(n):
        if lengths[c] < 1 or first_word[c] < 0 or first_word[c] + lengths[c] > n_words:
            raise ValueError("a candidate is outside the words")
    at_array = np.full(longest * width, -1, dtype=np.int64)
    word_tf_array = np.zeros(width, dtype=np.int64)
    cohesion_array = np.empty(n, dtype=np.float64)
    contained_array = np.zeros(n, dtype=np.float64)
    keys_array = np.empty(2 * m, dtype=np.uint64)
    cdef cnp.int64_t[::1] at = at_array
    cdef cnp.int64_t[::1] word_tf = word_tf_array
    cdef double[::1] cohesion = cohesion_array
    cdef double[::1] contained = contained_array
    cdef cnp.uint64_t[::1] keys = keys_array
    for o in range(m):
        at[(occ_lengths[o] - 1) * width + occ_first[o]] = o
    for i in range(n_words):
        o = at[i]
        if o >= 0:
            word_tf[i] = tf[inverse[o]]
    for c in range(n):
        total = counted = 0
        for k in range(lengths[c]):
            t = word_tf[first_word[c] + k]
            if t > 0:
                total += t
                counted += 1
        cohesion[c] = <double>(counted * tf[c]) / (total if total > 0 else 1)
    for o in range(m):
        if occ_lengths[o] < 2:
            continue
        f = (occ_lengths[o] - 2) * width + occ_first[o]
        for k in range(2):
            child = at[f + k]
            if child >= 0:
                keys[pairs] = <cnp.uint64_t>inverse[child] * <cnp.uint64_t>n + \
                    <cnp.uint64_t>inverse[o]
                pairs += 1
    if pairs:
        ordered_array = np.sort(keys_array[:pairs])
        keys = ordered_array
        run = 1
        for i in range(1, pairs + 1):
            if i < pairs and keys[i] == keys[i - 1]:
                run += 1
                continue
            c = <Py_ssize_t>(keys[i - 1] // <cnp.uint64_t>n)
            if run > contained[c]:
                contained[c] = run
            run = 1
        for c in range(n):
            contained[c] /= tf[c]
    return cohesion_array, contained_array


def occurrence_shares(const cnp.int64_t[::1] first, const cnp.int64_t[::1] lengths,
                      const cnp.int64_t[::1] inverse, const cnp.int64_t[::1] tf,
                      const cnp.int64_t[::1] word_starts, const cnp.int64_t[::1] chunk_starts,
                      const cnp.npy_bool[::1] capitalized, const cnp.npy_bool[::1] upper,
                      const cnp.npy_bool[::1] chunk_link, const cnp.npy_bool[::1] chunk_heading,
                      const double[::1] chunk_template):
    """``kwx.candidates``' shares in one pass over the occurrences (occurrence ``i``:
    words ``first[i]`` to ``first[i] + lengths[i] - 1``, candidate ``inverse[i]``, which
    has ``tf`` of them): per candidate, the share of its occurrences with every word
    capitalized, every word in ALL CAPS, every word in anchor text, every word in a
    heading (4 x candidates), and the mean template score of their first words' chunks,
    summed in occurrence order (what ``np.bincount`` adds). Each share is a count over
    ``max(tf, 1)``, divided as numpy divides int64 arrays (both as doubles). A word's
    chunk is the last one starting at or before it (the first when none does), as
    ``KeywordDocument.chunk_of`` finds it."""
    cdef Py_ssize_t m = first.shape[0], words = word_starts.shape[0], candidates = tf.shape[0]
    cdef Py_ssize_t chunks = chunk_starts.shape[0], i, w, c = 0, a, b
    cdef bint all_capitalized, all_upper, all_link, all_heading
    if lengths.shape[0] != m or inverse.shape[0] != m:
        raise ValueError("first, lengths and inverse must have one entry an occurrence")
    if capitalized.shape[0] != words or upper.shape[0] != words:
        raise ValueError("the word flags must have one entry a word")
    if chunk_link.shape[0] != chunks or chunk_heading.shape[0] != chunks or \
            chunk_template.shape[0] != chunks:
        raise ValueError("the chunk arrays must have one entry a chunk")
    if words and not chunks:
        raise ValueError("words without chunks")
    chunk_of_array = np.empty(words, dtype=np.int64)
    cdef cnp.int64_t[::1] chunk_of = chunk_of_array
    for w in range(words):  # both in order: walk the chunks along
        while c + 1 < chunks and chunk_starts[c + 1] <= word_starts[w]:
            c += 1
        chunk_of[w] = c
    counts_array = np.zeros((4, candidates), dtype=np.int64)
    template_array = np.zeros(candidates, dtype=np.float64)
    cdef cnp.int64_t[:, ::1] counts = counts_array
    cdef double* template = <double*>cnp.PyArray_DATA(<cnp.ndarray>template_array)
    for i in range(m):
        a = first[i]
        b = a + lengths[i]
        if a < 0 or lengths[i] < 1 or b > words or not 0 <= inverse[i] < candidates:
            raise ValueError("an occurrence is outside the words or the candidates")
        all_capitalized = all_upper = all_link = all_heading = True
        for w in range(a, b):
            all_capitalized = all_capitalized and capitalized[w]
            all_upper = all_upper and upper[w]
            all_link = all_link and chunk_link[chunk_of[w]]
            all_heading = all_heading and chunk_heading[chunk_of[w]]
        counts[0, inverse[i]] += all_capitalized
        counts[1, inverse[i]] += all_upper
        counts[2, inverse[i]] += all_link
        counts[3, inverse[i]] += all_heading
        template[inverse[i]] += chunk_template[chunk_of[a]]
    shares_array = np.empty((4, candidates), dtype=np.float64)
    cdef double[:, ::1] shares = shares_array
    cdef double occurrences
    for i in range(candidates):
        occurrences = <double>max(tf[i], 1)
        for w in range(4):
            shares[w, i] = <double>counts[w, i] / occurrences
        template[i] = template[i] / occurrences
    return shares_array, template_array
