# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The dynamic program of regularized tree isotonic regression, compiled.

Chakrabarti, Kumar & Punera 2007, section 4 (BUILDERROR, then ISOTONESMOOTH). The
inputs are checked and prepared by ``denoise.smooth``, which also holds the pure-Python
version of the same program (same visiting order, same sums, same ties, hence the same
output); the tests check the two agree.
"""

import numpy as np

cimport numpy as cnp
from libc.math cimport INFINITY, fabs, rint
from libc.stdint cimport uint64_t

cnp.import_array()

cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    static inline int denoise_lowest_bit(unsigned long long v) {
        unsigned long i; _BitScanForward64(&i, v); return (int)i;
    }
    #else
    static inline int denoise_lowest_bit(unsigned long long v) { return __builtin_ctzll(v); }
    #endif
    """
    int lowest_bit "denoise_lowest_bit"(unsigned long long v) noexcept nogil


def page_grid(const double[::1] x, const int[::1] parents, const double[::1] weights,
              const double[::1] areas, double c, double page, double min_area_share,
              Py_ssize_t grid):
    """``denoise.smooth.smooth_page``'s checks and inputs in one pass over a page's
    nodes: None when the page is not what the program trusts (a score outside [0, 1],
    a parent not before its child or below -1, a weight or an area below 0; NaN fails
    each); else the scores rounded to the grid (``rint(x * grid) / grid``), the area
    penalties (``c * page / max(area, min_area_share * page)``, ``c`` when ``page`` is
    not above 0) and the grid's values that occur, in order. The same operations as
    the numpy steps they replace, so the same doubles."""
    cdef Py_ssize_t n = x.shape[0], i, k, found = 0
    cdef double step, cost = c * page, floor = min_area_share * page
    if parents.shape[0] != n or weights.shape[0] != n or areas.shape[0] != n or grid < 1:
        raise ValueError("one parent, weight and area a score, and a grid of 1 or more")
    for i in range(n):
        if not (0.0 <= x[i] <= 1.0) or parents[i] < -1 or parents[i] >= i \
                or not weights[i] >= 0.0 or not areas[i] >= 0.0:
            return None
    on_grid_a = np.empty(n, dtype=np.float64)
    gamma_a = np.empty(n, dtype=np.float64)
    seen_a = np.zeros(grid + 1, dtype=np.uint8)
    cdef double[::1] on_grid = on_grid_a, gamma = gamma_a
    cdef cnp.uint8_t[::1] seen = seen_a
    for i in range(n):
        step = rint(x[i] * grid)
        seen[<Py_ssize_t>step] = 1
        on_grid[i] = step / grid
        if page <= 0.0:
            gamma[i] = c
        else:
            gamma[i] = cost / (areas[i] if areas[i] >= floor else floor)
    for k in range(grid + 1):
        found += seen[k]
    values_a = np.empty(found, dtype=np.float64)
    cdef double* values = <double*>cnp.PyArray_DATA(<cnp.ndarray>values_a)
    found = 0
    for k in range(grid + 1):
        if seen[k]:
            values[found] = <double>k / grid
            found += 1
    return on_grid_a, gamma_a, values_a


def smooth_indices(const int[:] parents, const double[:] scores, const double[:] weights,
                   const double[:] penalties, const double[:] values):
    """Per node, the index into ``values`` (sorted, distinct) of its smoothed score.

    ``parents`` is in topological order (``parents[i] < i``, -1 for roots). A node's
    children are summed heavy child first (its buffer becomes the parent's), so at most
    log2(n) + 1 rows of ``len(values)`` doubles are live at once; backtracking keeps two
    bits per node and candidate value.
    """
    cdef Py_ssize_t n = parents.shape[0]
    cdef Py_ssize_t m = values.shape[0]
    cdef Py_ssize_t words = (m + 63) >> 6
    cdef Py_ssize_t i, j, k, p, end, top, word_at, root
    cdef int max_light = 0
    cdef bint on_path
    cdef double a, s, t, g, w, x
    cdef double* row
    cdef double* into
    cdef uint64_t* keep
    cdef uint64_t* record
    cdef uint64_t word, keep_word, record_word

    # the children of each node (CSR, in index order), subtree sizes, heavy children
    start_a = np.zeros(n + 1, dtype=np.int32)
    cdef int* start = <int*>cnp.PyArray_DATA(<cnp.ndarray>start_a)
    cdef int[::1] kids = np.empty(n, dtype=np.int32)
    cdef int[::1] fill = np.empty(n, dtype=np.int32)
    cdef int[::1] size = np.ones(n, dtype=np.int32)
    cdef int[::1] heavy = np.full(n, -1, dtype=np.int32)
    cdef int[::1] light = np.zeros(n, dtype=np.int32)
    for i in range(n):
        if parents[i] >= 0:
            start[parents[i] + 1] += 1
    for i in range(n):
        start[i + 1] += start[i]
        fill[i] = start[i]
    for i in range(n):
        p = parents[i]
        if p >= 0:
            kids[fill[p]] = <int>i
            fill[p] += 1
    for i in range(n - 1, -1, -1):
        if parents[i] >= 0:
            size[parents[i]] += size[i]
    for i in range(n):
        p = parents[i]
        if p >= 0 and (heavy[p] < 0 or size[i] > size[heavy[p]]):
            heavy[p] = <int>i
    # light depth: light edges above a node; the row of the buffer it works in
    for i in range(n):
        p = parents[i]
        if p >= 0:
            light[i] = light[p] + (heavy[p] != i)
            if light[i] > max_light:
                max_light = light[i]

    cdef double[:, ::1] buffers = np.empty((max_light + 1, max(m, 1)), dtype=np.float64)
    cdef uint64_t[:, ::1] keeps = np.empty((n, words), dtype=np.uint64)  # roots' rows unused
    cdef uint64_t[:, ::1] records = np.empty((n, words), dtype=np.uint64)
    index_a = np.zeros(n, dtype=np.int32)
    cdef int* index = <int*>cnp.PyArray_DATA(<cnp.ndarray>index_a)
    cdef int[::1] stack = np.empty(n, dtype=np.int32)
    cdef int[::1] next_kid = np.empty(n, dtype=np.int32)

    with nogil:
        for root in range(n):
            if parents[root] >= 0:
                continue
            # post-order, heavy child first, then the others in index order
            top = 0
            stack[0] = <int>root
            next_kid[0] = -1
            while top >= 0:
                i = stack[top]
                if next_kid[top] < 0:
                    next_kid[top] = start[i]
                    if heavy[i] >= 0:
                        top += 1
                        stack[top] = heavy[i]
                        next_kid[top] = -1
                        continue
                j = next_kid[top]
                end = start[i + 1]
                while j < end and kids[j] == heavy[i]:
                    j += 1
                if j < end:
                    next_kid[top] = <int>(j + 1)
                    top += 1
                    stack[top] = kids[j]
                    next_kid[top] = -1
                    continue
                top -= 1

                # BUILDERROR for node i: its row holds the sum of its children's err
                row = &buffers[light[i], 0]
                if heavy[i] < 0:
                    for k in range(m):
                        row[k] = 0.0
                w = weights[i]
                x = scores[i]
                p = parents[i]
                if p < 0:
                    # a root: the best err'(i, k); its own penalty is a constant
                    for k in range(m):
                        row[k] += w * fabs(x - values[k])
                    j = 0
                    for k in range(1, m):
                        if row[k] < row[j]:
                            j = k
                    index[i] = <int>j
                    continue
                # err'(i, k) less the penalty is a = row[k] + w |x - values[k]|; err(i, k)
                # for a parent at values[k]: continue at k (a), or start a section at the
                # best value >= k, the suffix minimum s, paying the penalty (s + g)
                g = penalties[i]
                keep = &keeps[i, 0]
                record = &records[i, 0]
                on_path = heavy[p] == i  # then the row becomes the parent's
                into = &buffers[light[p], 0]
                s = INFINITY
                # right to left, one 64-bit word of each table at a time, branch-free
                # where the way depends on the data
                for word_at in range(words - 1, -1, -1):
                    keep_word = 0
                    record_word = 0
                    for k in range(min(m, (word_at + 1) << 6) - 1, (word_at << 6) - 1, -1):
                        a = row[k] + w * fabs(x - values[k])
                        record_word |= (<uint64_t>(a <= s)) << (k & 63)
                        s = a if a < s else s
                        t = s + g
                        keep_word |= (<uint64_t>(a <= t)) << (k & 63)
                        if on_path:
                            row[k] = a if a <= t else t
                        else:
                            into[k] += a if a <= t else t
                    keep[word_at] = keep_word
                    record[word_at] = record_word

        # ISOTONESMOOTH: top-down, each node from its parent's value
        for i in range(n):
            p = parents[i]
            if p < 0:
                continue
            k = index[p]
            if (keeps[i, k >> 6] >> (k & 63)) & 1:
                index[i] = <int>k
                continue
            # a new section: the smallest suffix-minimum position above k (one exists)
            k += 1
            word_at = k >> 6
            word = 0
            if word_at < words:
                word = records[i, word_at] & ((~(<uint64_t>0)) << (k & 63))
            while word == 0 and word_at + 1 < words:
                word_at += 1
                word = records[i, word_at]
            if word == 0:  # cannot happen (not continuing means a smaller value lies above)
                index[i] = <int>(k - 1)
            else:
                index[i] = <int>((word_at << 6) + lowest_bit(word))
    return index_a
