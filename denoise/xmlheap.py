"""libxml2's small blocks from slabs of their own, for processes that parse page after page.

lxml's parser makes a tree of many small blocks (elements, attributes, text), one
``malloc`` each, and frees them all with the tree. In a long batch the C library's heap
fills with what the other steps leave behind (arrays, strings, spaCy's tables), and a
page's nodes land in its scattered holes: after 3,000 pages of ``kwx extract``, parsing,
walking and freeing a page took 713 / 139 / 101 us against 628 / 127 / 93 in a fresh
process (ad hoc). :func:`install` hands libxml2 an allocator (``xmlheap_slabs.c``) that
cuts blocks of up to 512 bytes in order from 64 KiB slabs, each thread from its own,
and cuts a slab again from its start once every block in it is freed. A page's tree
then lies in the slabs the page before it emptied, in parse order, still in cache:
parsing and freeing a page take 508 / 62 us where even a fresh process's heap gives
664 / 98 (ad hoc). ``benchmarks/scale.py`` measures bare parsing both ways (1.23x at
100,000 pages) and ``benchmarks/ab.py`` the commands (kwx 0.889, apply 0.844 of their
time before, the same output bytes).

The price is memory at a parse's peak: a block freed while its slab is still in use
(a buffer that grew, a parse's scratch) is not reused until the whole slab empties, so
a tree takes more room than in the C library's heap: bare parsing of 10,000 pages
peaked at 97 MB against 81, the largest page's tree at 576 slabs (36 MiB).

Installed by :func:`denoise.batch.ready_for_pages`, so in every process of a batch
command, before its loop over pages, and never by importing the toolkit: a library
changes no process-wide allocator unasked. ``WEBDENOISE_XML_HEAP=system`` keeps the C
library's allocator. The slabs come from one reserved address range (16 GiB of address
space, memory committed 1 MiB at a time), so a block made before installation is told
apart by its address and goes back to ``free``. A thread keeps up to 4 MiB of empty
slabs; the rest give their pages back to the system. Blocks a thread frees from
another's slab are counted atomically and taken back by the owner; a thread that ends
hands its slabs on.

Install before other threads use lxml: libxml2 takes the four functions one by one.
"""

from __future__ import annotations

import ctypes
import os

from lxml import etree

try:
    from denoise import _xmlheap
except ImportError:  # the compiled allocator is optional
    _xmlheap = None

#: Set to ``system`` to keep the C library's allocator for libxml2.
ENV = "WEBDENOISE_XML_HEAP"

_installed = False


def install() -> bool:
    """Give libxml2 (lxml's copy) the slab allocator, once per process; whether it has
    it. False, changing nothing, where the allocator is not built, ``WEBDENOISE_XML_HEAP``
    is ``system``, lxml does not export ``xmlMemSetup`` or the range cannot be reserved."""
    global _installed  # once per process (a forked child inherits it with the hooks)
    if _installed:
        return True
    if _xmlheap is None or os.environ.get(ENV, "").strip().lower() == "system":
        return False
    library = ctypes.CDLL(etree.__file__)
    setup = getattr(library, "xmlMemSetup", None)
    get = getattr(library, "xmlMemGet", None)
    if setup is None or get is None or not _xmlheap.reserve():
        return False
    wanted = _xmlheap.hooks()
    if setup(*map(ctypes.c_void_p, wanted)) != 0:
        return False
    found = [ctypes.c_void_p() for _ in wanted]
    if get(*map(ctypes.byref, found)) != 0 or [f.value for f in found] != list(wanted):
        return False
    _installed = True
    return True


def installed() -> bool:
    """Whether libxml2 allocates from the slabs in this process."""
    return _installed


def slab_counts() -> tuple[int, int]:
    """Slabs carved so far (64 KiB each) and slabs on the shared list of empty ones;
    (0, 0) where the allocator is not built."""
    return _xmlheap.counts() if _xmlheap is not None else (0, 0)
