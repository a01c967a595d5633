"""Bulk NDJSON for OpenSearch and Elasticsearch: an action line before each document.

Their ``_bulk`` API reads newline-delimited JSON, each document preceded by an action
line naming the operation, the index and the document's id (``{"index": {"_index": ...,
"_id": ...}}``), the body ending with a newline. ``denoise apply --bulk NAME`` writes its
JSON lines that way, from the embedded and the Spark engine alike, so that a crawl team
loads the de-noised pages into the engine it runs (``curl -H 'Content-Type:
application/x-ndjson' --data-binary @pages.ndjson HOST/_bulk``, in parts under the
engine's request size limit).

Choices: the ``index`` action (a page indexed again replaces its document); the id is
the page's id (its URL or path), or, past the engines' 512-byte limit, ``sha256:`` and
its digest; index names are checked against the rules both engines share (lower case,
no ``\\ / * ? " < > | , #``, space or ``:``, not starting with ``-``, ``_`` or ``+``,
not ``.`` or ``..``, at most 255 bytes).
"""

from __future__ import annotations

import hashlib

from engine.jsonstr import json_str

__all__ = ["MAX_ID_BYTES", "action_line", "check_index_name", "document_id"]

MAX_ID_BYTES = 512
_FORBIDDEN = set('\\/*?"<>|, #:')


def check_index_name(name: str) -> str:
    """``name`` if OpenSearch and Elasticsearch take it as an index name, else
    ``ValueError`` saying why."""
    bad = sorted(set(name) & _FORBIDDEN)
    if not name or name in (".", ".."):
        raise ValueError(f"{name!r} is not an index name")
    if name != name.lower():
        raise ValueError(f"index names are lower case, not {name!r}")
    if bad:
        raise ValueError(f"index name {name!r} holds {' '.join(bad)!r}, which the engines "
                         "refuse")
    if name[0] in "-_+":
        raise ValueError(f"index name {name!r} starts with {name[0]!r}")
    if len(name.encode()) > 255:
        raise ValueError(f"index name {name[:20]!r}... is over 255 bytes")
    return name


def document_id(page_id: str) -> str:
    """The page's id, or ``sha256:<digest>`` of it when over :data:`MAX_ID_BYTES`."""
    raw = page_id.encode("utf-8", "surrogatepass")
    return page_id if len(raw) <= MAX_ID_BYTES else f"sha256:{hashlib.sha256(raw).hexdigest()}"


def action_line(index: str, page_id: str) -> str:
    """The action line (with its newline) that indexes a page's document."""
    doc = json_str(document_id(page_id))
    return f'{{"index": {{"_index": {json_str(index)}, "_id": {doc}}}}}\n'
