"""WebKB "4 Universities" (Craven et al. 1998): the classic cross-site page classification set.

``webkb.tar.xz`` holds ``webkb/manifest.tsv`` (file, class, university, URL, bytes,
content type) and 8,281 raw pages under ``webkb/pages/<class>/<university>/NNNN.http``,
each an HTTP response header, a blank line and the body, as crawled in 1996-97 (a few
pages crawled by FTP or from files have no header). The archive is read as a stream,
manifest first, never unpacked: 8 MB, about two seconds.

Choices where the data is ambiguous:

- **Site.** ``Page.site`` is the university (``cornell``, ``texas``, ``washington``,
  ``wisconsin``): the pages of one department's crawl are the unit whose repeated blocks
  the site-level detector looks for, whatever server inside it they came from. The
  ``misc`` pages come from many other departments: their site is the URL's host.
- **The header.** Lines before the first blank line are an HTTP header when the first
  one looks like ``Name: value`` (``Date:``, ``MIME-Version:``, also the crawler's
  ``WWW Alert:``); its ``Content-Type`` charset goes to the decoder. A body declared
  ``text/plain`` is still read as HTML when it holds tags (most do); one without tags
  is skipped, as the toolkit's reader skips tag-less input.
- **A URL under two classes** (7 URLs, all ``misc``, each with the same bytes under
  both, e.g. a page filed as ``faculty`` and as ``staff``): both copies are dropped by
  :func:`drop_conflicting_urls`. Keeping one would need a rule for which label is right,
  and the data gives none. URLs are compared as written: looser matching (a trailing
  ``/``, ``.../home.html`` for ``.../``) pairs 10 more cross-class pages, but their
  bodies differ (another crawl, a redirect notice): different documents, kept.
"""

from __future__ import annotations

import csv
import io
import re
import tarfile
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from corpora.locate import corpus_path
from denoise.decode import charset_from_header, decode_html
from denoise.errors import PageError
from denoise.page import Page, site_of
from denoise.reader import Skipped

ARCHIVE = "webkb.tar.xz"
#: Every class of the manifest.
CLASSES = ("course", "department", "faculty", "other", "project", "staff", "student")
#: The four classes of the usual experiments (Craven et al., Nigam et al.).
MAIN_CLASSES = ("course", "faculty", "project", "student")
#: The four universities; ``misc`` pages come from many other departments.
UNIVERSITIES = ("cornell", "texas", "washington", "wisconsin")
MISC = "misc"

_HEADER_LINE = re.compile(rb"\A[A-Za-z][A-Za-z0-9-]*(?: [A-Za-z][A-Za-z0-9-]*)?:[ \t]")
_BLANK_LINE = re.compile(rb"\r?\n[ \t]*\r?\n")


@dataclass(frozen=True, slots=True, kw_only=True)
class WebKBPage:
    """One labelled WebKB page.

    ``page.id`` is the file's path inside the archive (``pages/course/cornell/0001.http``),
    ``page.site`` the university (the URL host for ``misc``).
    """

    page: Page
    label: str
    university: str


def split_http(data: bytes) -> tuple[dict[str, str], bytes]:
    """An HTTP response's header fields (names lower-cased) and its body.

    Data that does not start with a header line is all body (an empty header).
    """
    if not _HEADER_LINE.match(data):
        return {}, data
    end = _BLANK_LINE.search(data)
    if end is None:  # a header and no body
        head, body = data, b""
    else:
        head, body = data[:end.start()], data[end.end():]
    fields: dict[str, str] = {}
    for line in head.decode("latin-1").splitlines():
        name, colon, value = line.partition(":")
        if colon:
            fields.setdefault(name.strip().lower(), value.strip())
    return fields, body


def read_webkb(
    archive: Path | None = None,
    *,
    classes: Iterable[str] | None = None,
    universities: Iterable[str] | None = None,
    skipped: list[Skipped] | None = None,
) -> list[WebKBPage]:
    """The pages of ``classes`` (default all) from ``universities`` (default all, with
    ``misc``), in manifest order.

    A page that cannot be decoded (no HTML tags, binary, empty) is appended to
    ``skipped`` when given and left out. Duplicates are kept: see
    :func:`drop_conflicting_urls`.
    """
    wanted_classes = set(CLASSES if classes is None else classes)
    wanted_sites = set((*UNIVERSITIES, MISC) if universities is None else universities)
    unknown = (wanted_classes - set(CLASSES)) | (wanted_sites - {*UNIVERSITIES, MISC})
    if unknown:
        raise ValueError(f"unknown WebKB class or university: {', '.join(sorted(unknown))}")
    archive = archive or corpus_path(ARCHIVE)
    rows: dict[str, dict[str, str]] | None = None
    found: dict[str, WebKBPage] = {}
    with tarfile.open(archive, "r|*") as tar:
        for member in tar:
            if not member.isfile():
                continue
            path = PurePosixPath(member.name)
            stream = tar.extractfile(member)
            if stream is None:
                continue
            if path.name == "manifest.tsv":
                text = stream.read().decode("utf-8")
                rows = {row["file"]: row for row in csv.DictReader(io.StringIO(text),
                                                                   delimiter="\t")}
                continue
            if rows is None:
                raise ValueError(f"{archive}: the pages come before manifest.tsv")
            file = PurePosixPath(*path.parts[1:]).as_posix()  # without the top folder
            row = rows.get(file)
            if row is None or row["class"] not in wanted_classes \
                    or row["university"] not in wanted_sites:
                continue
            item = _page(stream.read(), file, row)
            if isinstance(item, Skipped):
                if skipped is not None:
                    skipped.append(item)
            else:
                found[file] = item
    if rows is None:
        raise ValueError(f"{archive}: no manifest.tsv")
    return [found[file] for file in rows if file in found]


def _page(data: bytes, file: str, row: dict[str, str]) -> WebKBPage | Skipped:
    fields, body = split_http(data)
    url = row.get("url") or None
    university = row["university"]
    try:
        html = decode_html(body, file,
                           header_charset=charset_from_header(fields.get("content-type")))
    except PageError as error:
        return Skipped(file, error.reason)
    site = university if university != MISC else (site_of(url) or MISC)
    return WebKBPage(page=Page(id=file, html=html, url=url, site=site), label=row["class"],
                     university=university)


def drop_conflicting_urls(pages: Iterable[WebKBPage]) -> tuple[list[WebKBPage], list[WebKBPage]]:
    """The pages without any URL filed under two classes, and the pages dropped.

    Every copy of a URL with two labels is dropped; a URL repeated under one label
    (none is, in the archive) keeps its first copy. Pages without a URL are kept.
    """
    pages = list(pages)
    labels: dict[str, set[str]] = {}
    for item in pages:
        if item.page.url:
            labels.setdefault(item.page.url.strip(), set()).add(item.label)
    kept, dropped, seen = [], [], set()
    for item in pages:
        key = (item.page.url or "").strip()
        if key and (len(labels[key]) > 1 or key in seen):
            dropped.append(item)
            continue
        seen.add(key)
        kept.append(item)
    return kept, dropped


def with_site(item: WebKBPage, site: str) -> WebKBPage:
    """``item`` with its page moved to ``site``."""
    return replace(item, page=replace(item.page, site=site))
