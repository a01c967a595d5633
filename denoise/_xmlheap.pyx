# cython: language_level=3
"""The slab allocator's C functions for :mod:`denoise.xmlheap` (``xmlheap_slabs.c``)."""

cdef extern from "xmlheap_slabs.h":
    int xmlheap_reserve()
    void xmlheap_free(void* block)
    void* xmlheap_malloc(size_t size)
    void* xmlheap_realloc(void* block, size_t size)
    char* xmlheap_strdup(const char* text)
    void xmlheap_counts(size_t* carved, size_t* shared_free)


def reserve():
    """Reserve the slabs' address range (once); whether it is reserved."""
    return xmlheap_reserve() == 0


def hooks():
    """The addresses of the free, malloc, realloc and strdup functions, in the order
    libxml2's ``xmlMemSetup`` takes them."""
    return (<size_t>&xmlheap_free, <size_t>&xmlheap_malloc, <size_t>&xmlheap_realloc,
            <size_t>&xmlheap_strdup)


def counts():
    """Slabs carved so far (64 KiB each), and slabs on the shared list of empty ones."""
    cdef size_t carved = 0, shared_free = 0
    xmlheap_counts(&carved, &shared_free)
    return carved, shared_free
