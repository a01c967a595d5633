"""JSON strings for output lines, as ``json.dumps(..., ensure_ascii=False)`` writes them.

An output line is put together from its fields' JSON forms rather than a dict through
``json.dumps``: a page's text is thousands of characters, and json's own encoder took
26.7 us a page where the compiled one, :func:`engine._kernels.json_string`, which
copies the runs between escapes whole, takes 7.9 (``benchmarks/references_ab.py``).
"""

from __future__ import annotations

from json.encoder import encode_basestring

try:
    from engine import _kernels
except ImportError:  # the compiled extension is optional
    _kernels = None

#: ``text`` as a quoted JSON string (the compiled encoder where built, else json's).
json_str = _kernels.json_string if _kernels is not None else encode_basestring

__all__ = ["json_str"]
