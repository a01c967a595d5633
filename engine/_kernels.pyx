# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""engine's compiled step: JSON strings for output lines (``engine.jsonstr``)."""

from cpython.unicode cimport (
    Py_UCS1,
    PyUnicode_DATA,
    PyUnicode_KIND,
    PyUnicode_New,
    PyUnicode_READ,
)
from libc.string cimport memcpy

cdef extern from "Python.h":
    Py_UCS4 PyUnicode_MAX_CHAR_VALUE(object text)
    void PyUnicode_WRITE(int kind, void* data, Py_ssize_t index, Py_UCS4 value) nogil


cdef unsigned char _JSON_EXTRA[128]  # characters an ASCII character's JSON escape adds


cdef void _json_extra_table() noexcept:
    cdef int c
    for c in range(128):
        _JSON_EXTRA[c] = 5 if c < 32 else 0  # \u00XX
    for c in (8, 9, 10, 12, 13, 34, 92):  # \b \t \n \f \r \" \\
        _JSON_EXTRA[c] = 1


_json_extra_table()


cdef inline Py_ssize_t _json_extra(Py_UCS4 c) noexcept nogil:
    return _JSON_EXTRA[c] if c < 128 else 0


def json_string(str text not None):
    """``json.encoder.encode_basestring``, compiled: ``text`` as a JSON string, quoted,
    as ``json.dumps(text, ensure_ascii=False)`` writes it (a quote, a backslash and the
    control characters below U+0020 escaped, in json's forms; every other character as
    it is, lone surrogates too). One pass counts the escapes, a second copies the runs
    between them whole into a string of the text's own kind. json's encoder, which
    writes every character through a check of its kind, took 26.7 us for a page's text
    where this takes 7.9 (``benchmarks/references_ab.py``)."""
    cdef Py_ssize_t n = len(text), i, run, extra = 0, at = 1
    cdef int kind = PyUnicode_KIND(text)
    cdef const char* data = <const char*>PyUnicode_DATA(text)
    cdef const Py_UCS1* narrow = <const Py_UCS1*>data
    cdef Py_UCS4 c
    if kind == 1:
        for i in range(n):
            extra += _json_extra(narrow[i])
    else:
        for i in range(n):
            extra += _json_extra(PyUnicode_READ(kind, data, i))
    out = PyUnicode_New(n + extra + 2, PyUnicode_MAX_CHAR_VALUE(text))
    cdef char* out_data = <char*>PyUnicode_DATA(out)
    if PyUnicode_KIND(out) != kind:
        raise RuntimeError("json_string: the quoted text took another kind")
    PyUnicode_WRITE(kind, out_data, 0, 34)
    PyUnicode_WRITE(kind, out_data, n + extra + 1, 34)
    if extra == 0:
        memcpy(out_data + kind, data, n * kind)
        return out
    i = 0
    while i < n:
        run = i  # a run of characters written as they are, copied whole
        if kind == 1:
            while run < n and _json_extra(narrow[run]) == 0:
                run += 1
        else:
            while run < n and _json_extra(PyUnicode_READ(kind, data, run)) == 0:
                run += 1
        memcpy(out_data + at * kind, data + i * kind, (run - i) * kind)
        at += run - i
        if run == n:
            break
        c = PyUnicode_READ(kind, data, run)
        PyUnicode_WRITE(kind, out_data, at, 92)
        if _JSON_EXTRA[c] == 1:  # "btn?fr": the short escapes of U+0008 to U+000D
            PyUnicode_WRITE(kind, out_data, at + 1, c if c == 34 or c == 92 else
                            <Py_UCS4>b"btn?fr"[<int>c - 8])
            at += 2
        else:
            PyUnicode_WRITE(kind, out_data, at + 1, 117)  # u00XX
            PyUnicode_WRITE(kind, out_data, at + 2, 48)
            PyUnicode_WRITE(kind, out_data, at + 3, 48)
            PyUnicode_WRITE(kind, out_data, at + 4, b"0123456789abcdef"[<int>c >> 4])
            PyUnicode_WRITE(kind, out_data, at + 5, b"0123456789abcdef"[<int>c & 15])
            at += 6
        i = run + 1
    return out
