# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""mining's compiled step: the word hashes of a page's kept text in one pass over its
characters (``mining.shingles.word_hashes``, whose numpy steps stay beside it as the
reference; the tests check the two agree)."""

import numpy as np

cimport numpy as cnp
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_KIND, PyUnicode_READ

cnp.import_array()


ctypedef unsigned long long u64


#: mining.shingles.LONE: the word table's flag of a character that is a word by itself.
cdef unsigned int _LONE = 0x80000000


cdef inline u64 _fmix64(u64 value) nogil:
    value ^= value >> 33
    value *= 0xFF51AFD7ED558CCDULL
    value ^= value >> 33
    value *= 0xC4CEB9FE1A85EC53ULL
    value ^= value >> 33
    return value


def span_word_hashes(str text, const long long[:] starts, const long long[:] ends,
                     const unsigned int[:] table, u64 base):
    """The hash of every word inside the spans ``starts[i]:ends[i]`` of ``text`` (sorted,
    not overlapping), as mining.shingles.word_hashes makes it: a word is a run of code
    points that ``table`` maps to non-zero (the lower-cased code point), or one whose
    code has the LONE bit (a Han character or kana: a word by itself), hashed as the
    sum of its codes times ``base`` to the power of their place in the word, mixed with
    fmix64; two spans that touch make one run. None for a text with code points past
    the Basic Multilingual Plane (``table`` covers that plane only)."""
    cdef int kind = PyUnicode_KIND(text)
    if kind == 4:
        return None
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t n_spans = starts.shape[0], length = len(text)
    cdef Py_ssize_t capacity = 1, count = 0, s, i, start, end, last_end = -1
    cdef u64 h = 0, power = 1
    cdef unsigned int code
    cdef bint inside = False
    for s in range(n_spans):
        if starts[s] < last_end or starts[s] > ends[s] or starts[s] < 0 or ends[s] > length:
            raise ValueError("spans must be sorted, apart and inside the text")
        capacity += ends[s] - starts[s] + 1  # at most a word a character (lone ones)
        last_end = ends[s]
    cdef cnp.ndarray[cnp.uint64_t, ndim=1] result = np.empty(capacity, dtype=np.uint64)
    cdef u64* out = <u64*> cnp.PyArray_DATA(result)
    last_end = -1
    for s in range(n_spans):
        start, end = starts[s], ends[s]
        if start != last_end and inside:  # a gap between spans ends a word
            out[count] = _fmix64(h)
            count += 1
            inside = False
        for i in range(start, end):
            code = table[PyUnicode_READ(kind, data, i)]
            if code & _LONE:
                if inside:
                    out[count] = _fmix64(h)
                    count += 1
                    inside = False
                out[count] = _fmix64(code & ~_LONE)
                count += 1
            elif code:
                if not inside:
                    inside = True
                    h = 0
                    power = 1
                h += code * power
                power *= base
            elif inside:
                out[count] = _fmix64(h)
                count += 1
                inside = False
        last_end = end
    if inside:
        out[count] = _fmix64(h)
        count += 1
    return result[:count].copy()
