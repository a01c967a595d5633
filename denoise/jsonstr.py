"""JSON strings for output lines, as ``json.dumps(..., ensure_ascii=False)`` writes them.

An output line is put together from its fields' JSON forms rather than a dict through
``json.dumps``: a page's text is thousands of characters, and json's own encoder took
26.7 us a page where the compiled one, :func:`denoise._compiled.json_string`, which
copies the runs between escapes whole, takes 7.9 (``benchmarks/references_ab.py``).
"""

from __future__ import annotations

from json.encoder import encode_basestring

try:
    from denoise._compiled import json_string as _compiled_json_string
except ImportError:  # the compiled extension is optional
    _compiled_json_string = None

#: ``text`` as a quoted JSON string (the compiled encoder where built, else json's).
json_str = _compiled_json_string if _compiled_json_string is not None else encode_basestring

__all__ = ["json_str"]
