"""Any input to a stream of pages: the one reader every command uses.

``read_pages`` takes paths and yields a ``Page`` for every HTML page it finds, or a
``Skipped`` for every item it cannot use, and goes on. What a path holds is decided
by what it is:

- a directory: every ``.html``, ``.htm``, ``.html.gz``, ``.htm.gz`` file under it,
  in sorted order, leaving out folders whose name starts with ``_`` or ``.`` (gold
  text, caches) and hidden files;
- a tar archive (``.tar``, ``.tar.gz``, ``.tgz``, ``.tar.xz``, ``.tar.bz2``): the
  same rules over its member names, read as a stream, never unpacked to disk;
- a WARC file (``.warc``, ``.warc.gz`` or anything starting with ``WARC/``): the
  HTML responses in it;
- JSON lines (``.jsonl``, ``.ndjson``, optionally gzipped): one
  ``{"url": ..., "html": ...}`` object a line;
- ``-``: standard input, sniffed (gzip, WARC, JSON lines or one HTML page);
- any other file: one HTML page (sniffed first like standard input).

A page's id is its path inside a folder or archive, the path as given for a single
file, and its URL (or ``id``) in WARC and JSON lines. When several inputs are read, a
folder's or archive's pages are named with the input as given before that path
(``crawl-a/index.html``, ``crawl-b/index.html``), as ``grep`` names files only when it
reads several: two crawls of the same site would otherwise give their pages the same
ids, and a near-duplicate pair or a search hit could not say which page it is.

Gzip is recognised by its magic bytes wherever it occurs. No single bad item
(empty, binary, too large, truncated, unreadable, missing) raises: it becomes a
``Skipped`` that names it. Damage inside a WARC costs the records it touches, not the
rest of the file: a damaged gzip member becomes a ``Skipped`` named ``file@offset``
(its byte offset) and reading goes on at the next member that starts a record; a
record warcio cannot parse is skipped up to the next line starting ``WARC/1.``.
"""

from __future__ import annotations

import gzip
import io
import json
import lzma
import os
import re
import stat
import sys
import tarfile
import zlib
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, BinaryIO

from warcio.archiveiterator import ArchiveIterator
from warcio.recordloader import ArcWarcRecord

from denoise.decode import DEFAULT_MAX_BYTES, charset_from_header, clean_text, decode_html
from denoise.errors import PageError
from denoise.page import Page, site_of

if TYPE_CHECKING:
    from denoise.fetch import Fetcher

__all__ = ["Skipped", "read_file_bytes", "read_pages"]

_HTML_SUFFIXES = (".html", ".htm", ".html.gz", ".htm.gz")
_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tbz")
_WARC_SUFFIXES = (".warc", ".warc.gz")
_JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz")
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_GZIP_MAGIC = b"\x1f\x8b"
_SNIFF_BYTES = 64
_CHUNK = 1 << 16
_LINE_BREAKS = re.compile(r"\s*[\r\n]+\s*")


@dataclass(frozen=True, slots=True)
class Skipped:
    """An input item that could not be read; a batch counts it and goes on.

    ``source`` names the item: a path, ``archive:member``, ``file.warc.gz#record N``
    or ``file.jsonl:LINE``; ``reason`` says why it was left out.
    """

    source: str
    reason: str

    def __str__(self) -> str:
        return _LINE_BREAKS.sub(" ", f"{self.source}: {self.reason}")


class _Truncated(Exception):  # internal signal, never escapes the module
    """Compressed input ended before its end marker.

    Raised instead of ``EOFError``, which warcio takes for a clean end of the file.
    """


class _GzipStream(gzip.GzipFile):
    """A gzip reader for damaged files.

    Its truncation error cannot be mistaken for end of file, and ``read`` first
    returns every byte that could be decompressed, raising at the next call.
    """

    _pending: _Truncated | None = None

    def read(self, size: int | None = -1) -> bytes:
        if self._pending is not None:
            raise self._pending
        if size is None or size < 0:
            try:
                return super().read()
            except EOFError as error:
                raise _Truncated(str(error)) from None
        parts: list[bytes] = []
        while size > 0:
            try:
                data = super().read1(size)
            except EOFError as error:
                if not parts:
                    raise _Truncated(str(error)) from None
                self._pending = _Truncated(str(error))
                break
            if not data:
                break
            parts.append(data)
            size -= len(data)
        return b"".join(parts)

    def read1(self, size: int = -1) -> bytes:
        if self._pending is not None:
            raise self._pending
        try:
            return super().read1(size)
        except EOFError as error:
            raise _Truncated(str(error)) from None

    def readline(self, size: int | None = -1) -> bytes:
        if self._pending is not None:
            raise self._pending
        try:
            return super().readline(size)
        except EOFError as error:
            raise _Truncated(str(error)) from None


class _Prefixed:
    """``head`` (bytes already read) followed by the rest of ``stream``, unbuffered.

    Not an ``io.BufferedReader``: that one drops the bytes it has gathered when a
    read fails half-way, and a truncated gzip file fails exactly there.
    """

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        self._head = head
        self._stream = stream

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def read(self, size: int | None = -1) -> bytes:
        if not self._head:
            return self._stream.read(size)
        if size is None or size < 0:
            data, self._head = self._head + self._stream.read(), b""
            return data
        data, self._head = self._head[:size], self._head[size:]
        return data

    def readline(self, size: int | None = -1) -> bytes:
        if not self._head:
            return self._stream.readline(size)
        limit = len(self._head) if size is None or size < 0 else min(size, len(self._head))
        end = self._head.find(b"\n", 0, limit)
        if end >= 0 or limit == size:
            cut = end + 1 if end >= 0 else limit
            data, self._head = self._head[:cut], self._head[cut:]
            return data
        data, self._head = self._head, b""
        rest = size - len(data) if size is not None and size >= 0 else -1
        return data + self._stream.readline(rest)


#: Decompressed bytes of one gzip member held, its checksum verified, before any is served.
_MEMBER_BUFFER = 16 << 20
#: Decompressed bytes one call to zlib may give: bounds what a small bomb makes at once,
#: and what zlib drops of the good data before a damage (it raises, keeping none of it).
_INFLATE_STEP = _CHUNK // 4
#: WARC bytes served that are kept, to go back to after a record warcio cannot parse.
_RESYNC_WINDOW = 1 << 18
_MEMBER_MAGIC = b"\x1f\x8b\x08"  # the gzip magic and its one compression method, deflate
_RECORD_START = b"WARC/"
_RECORD_LINE = b"\nWARC/1."


class _Corrupt(Exception):  # internal signal, never escapes the module
    """Damaged gzip data was given up.

    ``lost`` holds the file offset and a reason for each damaged member (or stretch of
    bytes where a member should start); ``resumed`` says whether reading goes on at a
    later member that starts a WARC record; ``detail`` is what was wrong with the first.
    """

    def __init__(self, lost: list[tuple[int, str]], *, resumed: bool, detail: str) -> None:
        super().__init__(lost[0][1])
        self.lost = lost
        self.resumed = resumed
        self.detail = detail

    def skipped(self, source: str) -> Iterator[Skipped]:
        for offset, reason in self.lost:
            yield Skipped(f"{source}@{offset}", reason)


class _GzipMembers:
    """A gzip stream read member by member, able to step over damaged members.

    ``gzip.GzipFile`` ends the whole file at its first damaged member. Here each member
    is decompressed and its checksum verified before any of it is served (up to
    ``_MEMBER_BUFFER`` bytes; a longer one is served as it comes), so a damaged member
    is given up, not served garbled. With ``resync`` (for WARC), reading then goes on
    at the next member that decompresses to ``WARC/``: WARC writers put every record in
    a member of its own, so one damaged member costs one record (of a member holding
    several, the whole records before the damage are served: see ``_salvage``). The
    damage is raised once, as ``_Corrupt``, when every byte before it has been read; a
    file that ends inside a member raises ``_Truncated`` after the bytes that could be
    decompressed. Compressed bytes are read as needed: the file is never held whole.
    """

    def __init__(self, raw: BinaryIO, *, resync: bool) -> None:
        self.resync = resync
        self._raw = raw
        self._input = b""  # compressed bytes read, not yet decompressed
        self._offset = 0  # the file offset of _input[0]
        self._member: zlib._Decompress | None = None  # the member being decompressed
        self._member_start = 0
        self._member_raw: list[bytes] | None = None  # its compressed bytes, while it is held
        self._output = b""  # decompressed bytes being served
        self._position = 0  # how many of them were served
        self._suspect = False  # whether they are unverified (a long or damaged member)
        self._pending: _Corrupt | _Truncated | None = None
        self._done = False  # no member after the current output

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            return self._gather(None, line=False)
        if size == 0 or not self._ready():
            return b""
        return self._take(size)

    def readline(self, size: int | None = -1) -> bytes:
        return self._gather(size if size is not None and size >= 0 else None, line=True)

    def _gather(self, limit: int | None, *, line: bool) -> bytes:
        """Bytes up to ``limit`` (None: all), or up to a line break with ``line``."""
        parts: list[bytes] = []
        try:
            while (limit is None or limit > 0) and self._ready():
                end = len(self._output)
                if line:
                    newline = self._output.find(b"\n", self._position)
                    end = newline + 1 if newline >= 0 else end
                if limit is not None:
                    end = min(end, self._position + limit)
                    limit -= end - self._position
                part = self._take(end - self._position)
                parts.append(part)
                if line and part.endswith(b"\n"):
                    break
        except (_Corrupt, _Truncated) as error:
            if not parts:
                raise
            self._pending = error  # raised at the next read, after these bytes
        return b"".join(parts)

    def _take(self, size: int) -> bytes:
        start = self._position
        self._position = min(start + size, len(self._output))
        if start == 0 and self._position == len(self._output):
            return self._output
        return self._output[start:self._position]

    def _ready(self) -> bool:
        """Whether bytes wait to be served; raises the damage met before them, if any."""
        while self._position >= len(self._output):
            if self._pending is not None:
                error = self._pending
                if isinstance(error, _Corrupt) and error.resumed:
                    self._pending = None  # reported once; reading goes on after it
                raise error
            if self._done:
                return False
            self._fill()
        return True

    def _fill(self) -> None:
        """Decompress the next member, or the next part of a long one, into ``_output``."""
        parts: list[bytes] = []
        size = 0
        verified = False
        while True:
            member = self._member or self._begin_member()
            if member is None:
                break
            if not self._input:
                self._input = self._raw.read(_CHUNK)
            if not self._input:  # the file ends: the member is whole only if zlib says so
                try:
                    parts.append(member.flush())
                except zlib.error as error:
                    parts = self._salvage(parts)
                    self._damaged(str(error), salvaged=bool(parts))
                    break
                self._member = self._member_raw = None
                if not member.eof:  # unverified, maybe garbled: served as a damaged one's
                    parts = self._salvage(parts)
                    self._pending = _Truncated("the file ends inside a gzip member")
                    self._done = True
                break
            data = self._input
            try:
                out = member.decompress(data, _INFLATE_STEP)
            except zlib.error as error:  # bad deflate data, checksum or length
                parts = self._salvage(parts)
                self._damaged(str(error), salvaged=bool(parts))
                break
            rest = member.unused_data if member.eof else member.unconsumed_tail
            if self._member_raw is not None:
                self._member_raw.append(data[: len(data) - len(rest)] if rest else data)
            self._offset += len(data) - len(rest)
            self._input = rest
            if out:
                parts.append(out)
                size += len(out)
            if member.eof:  # whole, and its checksum and length verified by zlib
                self._member = self._member_raw = None
                if size:
                    verified = True
                    break
            elif self._member_raw is None:
                if size >= _CHUNK:
                    break
            elif size > _MEMBER_BUFFER:  # too long to hold: served as it comes from here
                self._member_raw = None
                break
        self._output = parts[0] if len(parts) == 1 else b"".join(parts)
        self._position = 0
        self._suspect = not verified

    def _begin_member(self) -> zlib._Decompress | None:
        """Start the member at ``_input``; None at the end of the data or at damage."""
        while True:
            while len(self._input) < len(_MEMBER_MAGIC):
                more = self._raw.read(_CHUNK)
                if not more:
                    break
                self._input += more
            body = self._input.lstrip(b"\0")  # gzip files may be padded with NULs
            if len(body) == len(self._input):
                break
            self._offset += len(self._input) - len(body)
            self._input = body
        if not self._input:
            self._done = True
            return None
        if not self._input.startswith(_MEMBER_MAGIC):
            self._damaged(None)
            return None
        self._member = zlib.decompressobj(31)  # 31: a gzip member, header and trailer checked
        self._member_start = self._offset
        self._member_raw = []
        return self._member

    @property
    def unverified(self) -> bool:
        """Whether the bytes being served are unverified: those of a member too long to
        be verified first, or those before the damage in a damaged one."""
        return self._suspect

    def give_up_member(self) -> None:
        """Drop the rest of the unverified bytes being served and, if the damage is not
        known yet, go on at the next member that starts a WARC record (with ``resync``);
        the next read raises the damage."""
        self._output, self._position = b"", 0
        if self._pending is None and self._member is not None:
            self._damaged(None, reason="WARC records that cannot be parsed in a gzip member "
                                       "too long to verify first: the rest of it given up")

    def _salvage(self, parts: list[bytes]) -> list[bytes]:
        """What to serve of a damaged or truncated member's output not yet served.

        Without ``resync``, all of it, as ``gzip.GzipFile`` does: the lines of JSON or
        the page before the damage are still read. With it, the whole WARC records in it
        (the member holds several only when a writer did not give each its own): the
        record that the damage cuts, and any after it, are lost.
        """
        if not self.resync:
            return parts
        data = b"".join(parts)
        end = data.rfind(b"\r\n\r\n" + _RECORD_LINE[1:])
        return [data[:end + 4]] if end >= 0 else []

    def _damaged(
        self, detail: str | None, *, salvaged: bool = False, reason: str | None = None
    ) -> None:
        """Give up damaged data and, with ``resync``, go on at the next member that starts
        a WARC record; ``detail`` is zlib's error, None for bytes that are no member.
        ``salvaged``: records before the damage in the same member are served, and the
        damage is reported near where zlib found it rather than at the member's start;
        ``reason`` replaces what is said of the first data given up."""
        held = self._member_raw
        if held is not None:  # the whole member is at hand: look for the next one in it
            start, scan, look = self._member_start, b"".join(held) + self._input, 1
        else:
            start, scan, look = self._offset, self._input, 0
        where = self._offset if salvaged else start
        self._member = self._member_raw = None
        what = detail or "bytes that are no gzip member"
        if not self.resync:
            self._pending = _Corrupt([(where, f"corrupt gzip data ({what})")], resumed=False,
                                     detail=what)
            self._input, self._done = b"", True
            return
        extra: list[tuple[int, str]] = []
        base = start  # the file offset of scan[0]
        resumed = None
        while resumed is None:
            found = scan.find(_MEMBER_MAGIC, look)
            if found < 0:
                keep = len(_MEMBER_MAGIC) - 1
                base += max(len(scan) - keep, 0)
                scan, look = scan[-keep:], 0
                more = self._raw.read(_CHUNK)
                if not more:
                    break
                scan += more
                continue
            verdict, scan = self._starts_record(scan, found)
            if verdict is True:
                resumed = found
            else:
                if verdict:  # a sound header, then damaged data: another record lost
                    extra.append((base + found, _lost_member(verdict)))
                look = found + 1
        if resumed is None:
            self._input, self._done = b"", True
            self._offset = base + len(scan)
            end = f"no WARC record in the {self._offset - where:,} bytes to the end of the file"
        else:
            self._input = scan[resumed:]
            self._offset = base + resumed
            end = f"{self._offset - where:,} bytes skipped"
        if reason:
            first = f"{reason}; {end}"
        else:
            first = _lost_member(detail) if detail else f"not gzip data: {end}"
            if detail and resumed is None and not extra:
                first += f"; {end}"
        self._pending = _Corrupt([(where, first), *extra], resumed=resumed is not None,
                                 detail=what)

    def _starts_record(self, scan: bytes, found: int) -> tuple[bool | str | None, bytes]:
        """Whether the member that seems to start at ``scan[found]`` decompresses to a WARC
        record: True, or zlib's error if its header is sound but its data is not, else
        None; and ``scan`` with any bytes read to tell."""
        member = zlib.decompressobj(31)
        head = b""
        data = scan[found:]
        while True:
            try:
                head += member.decompress(data, len(_RECORD_START) - len(head))
            except zlib.error as error:
                return (None if "header" in str(error) else str(error)), scan
            if len(head) >= len(_RECORD_START) or member.eof:
                return (head == _RECORD_START or None), scan
            data = member.unconsumed_tail
            if not data:
                data = self._raw.read(_CHUNK)
                if not data:
                    return None, scan
                scan += data


def _lost_member(detail: str) -> str:
    return f"corrupt gzip member ({detail}), 1 record lost"


class _WarcInput:
    """The WARC bytes warcio reads, the last of them kept so that reading can go on at
    the next record after one warcio cannot parse (see ``resync``); ``members`` is the
    gzip layer below, if any."""

    def __init__(self, stream: BinaryIO, members: _GzipMembers | None = None) -> None:
        self._stream = stream
        self._members = members
        self._replay = b""  # bytes to serve again before reading on
        self._kept: deque[bytes] = deque()  # the last bytes served, about _RESYNC_WINDOW
        self._kept_size = 0
        self._position = 0  # the offset of the next byte served

    def tell(self) -> int:
        return self._position

    def read(self, size: int | None = -1) -> bytes:
        if self._replay:
            cut = len(self._replay) if size is None or size < 0 else size
            data, self._replay = self._replay[:cut], self._replay[cut:]
        else:
            data = self._stream.read(size)
        if data:
            self._position += len(data)
            self._kept.append(data)
            self._kept_size += len(data)
            while self._kept_size - len(self._kept[0]) >= _RESYNC_WINDOW:
                self._kept_size -= len(self._kept.popleft())
        return data

    def resync(self, after: int) -> int | None:
        """Go on at the first line starting ``WARC/1.`` after offset ``after`` (or after
        the oldest byte kept): its offset, or None when the data ends first.

        Not in a gzip member too long to be verified first: its bytes after a damage that
        zlib did not notice are garbled, records found in them too. There the rest of the
        member is given up, and the gzip layer raises ``_Corrupt`` having found the next.
        """
        base = self._position - self._kept_size  # the offset of scan[0]
        scan = b"".join(self._kept) + self._replay
        self._kept.clear()
        self._kept_size = 0
        self._replay = b""
        if self._members is not None and self._members.unverified:
            self._members.give_up_member()  # the next read raises where it went on
            base, scan, after = base + len(scan), b"", 0  # nothing kept is to be trusted
        look = max(after - base, 0)
        while (found := scan.find(_RECORD_LINE, look)) < 0:
            keep = len(_RECORD_LINE) - 1
            base += max(len(scan) - keep, 0)
            scan, look = scan[-keep:], 0
            self._position = base + len(scan)
            more = self._stream.read(_CHUNK)  # _Corrupt: the gzip layer found the next record
            if not more:
                return None
            scan += more
        self._position = base + found + 1
        self._replay = scan[found + 1:]
        return self._position


#: What a single bad item can raise while it is read; each becomes a ``Skipped``.
_ITEM_ERRORS = (
    OSError, EOFError, ValueError, zlib.error, lzma.LZMAError, tarfile.TarError, _Truncated,
    _Corrupt,
)


#: A URL's scheme ("ftp://"): a name starting so that is no file is a URL not fetched.
_SCHEME = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://")


def is_url(name: str) -> bool:
    """Whether an input names a web page (``http://`` or ``https://``): it is fetched."""
    return name[:8].lower().startswith(("http://", "https://"))


def read_pages(
    inputs: Sequence[str | Path],
    *,
    site: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    fetcher: Fetcher | None = None,
    named: bool | None = None,
) -> Iterator[Page | Skipped]:
    """Yield a ``Page`` for every HTML page in ``inputs``, a ``Skipped`` for every bad item.

    ``site``, when given, is the site of every page; otherwise a page's site is its
    folder (directories, archives), its URL's host (WARC, JSON lines, ``http(s)://``
    inputs) or ``stdin``. Pages over ``max_bytes`` bytes (after decompression) are
    skipped. An ``http://`` or ``https://`` input is fetched by ``fetcher`` (default: a
    :class:`denoise.fetch.Fetcher` with ``max_bytes``, public addresses only). ``named``:
    a folder's or archive's page ids begin with the input as given (default: when
    ``inputs`` are several; the module notes). The result is a lazy iterator: pages are
    read one at a time, as they are asked for.
    """
    if isinstance(inputs, str | os.PathLike):
        inputs = [inputs]  # one path, not a sequence of one-letter paths
    if max_bytes < 1:
        raise ValueError(f"max_bytes must be positive, not {max_bytes}")
    inputs = list(inputs)
    return _pages(inputs, site or None, max_bytes, fetcher,
                  len(inputs) > 1 if named is None else named)


def _pages(inputs: list[str | Path], site: str | None, max_bytes: int,
           fetcher: Fetcher | None, named: bool) -> Iterator[Page | Skipped]:
    for given in inputs:
        name = os.fspath(given)
        if name == "-":
            yield from _read_stdin(site, max_bytes)
            continue
        if isinstance(given, str) and is_url(name):
            if fetcher is None:
                from denoise.fetch import Fetcher

                fetcher = Fetcher(max_bytes=max_bytes)
            yield fetcher.page(name, site)
            continue
        path = Path(name)
        try:
            info = path.stat()
        except (OSError, ValueError) as error:
            unfetched = isinstance(error, FileNotFoundError) and _SCHEME.match(name)
            yield Skipped(name, "a URL not fetched (only http and https ones are)"
                          if unfetched else _reason(error))
            continue
        lower = path.name.lower()
        prefix = Path(name).as_posix() + "/" if named else ""
        if stat.S_ISDIR(info.st_mode):
            yield from _read_directory(path, name, site, max_bytes, prefix)
        elif lower.endswith(_TAR_SUFFIXES):
            yield from _read_tar(path, name, site, max_bytes, prefix)
        else:
            size = info.st_size if stat.S_ISREG(info.st_mode) else None
            yield from _read_file(path, name, site, max_bytes, size)


# --- directories and archives --------------------------------------------------------


def _read_directory(
    root: Path, name: str, site: str | None, max_bytes: int, prefix: str
) -> Iterator[Page | Skipped]:
    top = _folder_name(root)
    found = False
    for item in _walk(root, PurePosixPath()):
        if isinstance(item, Skipped):
            yield item
            continue
        found = True
        path = root / item
        yield _read_html_file(
            path, str(path), page_id=prefix + item.as_posix(),
            site=site or _folder_site(item, top),
            max_bytes=max_bytes,
        )
    if not found:
        yield Skipped(name, "no .html or .htm files in this folder")


def _walk(root: Path, folder: PurePosixPath) -> Iterator[PurePosixPath | Skipped]:
    """HTML files under ``root / folder`` in sorted order, as paths relative to ``root``."""
    try:
        with os.scandir(root / folder) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
    except OSError as error:
        yield Skipped(str(root / folder), _reason(error))
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        # An entry named as a page that cannot be read as one is counted, not ignored.
        page = entry.name.lower().endswith(_HTML_SUFFIXES)
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
            is_file = not is_dir and entry.is_file()
        except OSError as error:  # a symbolic link loop, a folder that may not be searched
            if page:
                yield Skipped(str(root / folder / entry.name), _reason(error))
            continue
        if is_dir:
            if not entry.name.startswith("_"):
                yield from _walk(root, folder / entry.name)
        elif is_file and page:
            yield folder / entry.name
        elif page:
            yield Skipped(str(root / folder / entry.name), _not_a_file(entry))


def _not_a_file(entry: os.DirEntry[str]) -> str:
    """Why an entry named as a page, neither a folder nor a file to read, is left out."""
    if entry.is_symlink():
        try:
            target = Path(entry.path).stat()
        except FileNotFoundError:
            return "dangling symbolic link"
        except OSError as error:
            return f"unreadable symbolic link ({_reason(error)})"
        if stat.S_ISDIR(target.st_mode):
            return "symbolic link to a folder, not followed"
    return "not a regular file"


def _read_tar(path: Path, name: str, site: str | None, max_bytes: int,
              prefix: str) -> Iterator[Page | Skipped]:
    top = _archive_stem(path.name)
    found = False
    try:
        with path.open("rb") as raw, tarfile.open(fileobj=raw, mode="r|*") as tar:
            while (member := tar.next()) is not None:
                # A stream-mode TarFile remembers every member; forget them to stay flat.
                tar.members = []
                member_path = PurePosixPath(member.name)
                if not member.isfile() or not _wanted_member(member_path):
                    continue
                found = True
                member_id = member_path.as_posix()
                source = f"{name}:{member_id}"
                if member.size > max_bytes:
                    yield Skipped(source, _too_large(max_bytes, member.size))
                    continue
                member_file = tar.extractfile(member)
                # Errors reading these bytes are the archive's: they end it (outer except).
                data = member_file.read() if member_file is not None else b""
                yield _read_html_item(
                    io.BytesIO(data), source, page_id=prefix + member_id,
                    site=site or _folder_site(member_path, top), max_bytes=max_bytes,
                    size=len(data),
                )
    except _ITEM_ERRORS as error:
        yield Skipped(name, _reason(error))
        return
    if not found:
        yield Skipped(name, "no .html or .htm files in this archive")


def _wanted_member(path: PurePosixPath) -> bool:
    *folders, file_name = path.parts or ("",)
    return (
        file_name.lower().endswith(_HTML_SUFFIXES)
        and not file_name.startswith(".")
        and not any(folder.startswith(("_", ".")) for folder in folders if folder != "/")
    )


def _folder_site(relative: PurePosixPath, top: str) -> str:
    parent = relative.parent.as_posix()
    return top if parent in (".", "/") else parent


def _folder_name(path: Path) -> str:
    return Path(os.path.normpath(path.absolute())).name


def _archive_stem(file_name: str) -> str:
    lower = file_name.lower()
    for suffix in sorted(_TAR_SUFFIXES, key=len, reverse=True):
        if lower.endswith(suffix):
            return file_name[: -len(suffix)]
    return file_name


# --- single files and standard input -------------------------------------------------


def _read_file(
    path: Path, name: str, site: str | None, max_bytes: int, size: int | None
) -> Iterator[Page | Skipped]:
    lower = path.name.lower()
    default_site = _folder_name(path.parent) if path.name else ""
    if lower.endswith(_HTML_SUFFIXES):
        yield _read_html_file(
            path, name, page_id=name, site=site or default_site, max_bytes=max_bytes
        )
        return
    kind = (
        "warc" if lower.endswith(_WARC_SUFFIXES)
        else "jsonl" if lower.endswith(_JSONL_SUFFIXES)
        else None
    )
    try:
        stream = path.open("rb")
    except OSError as error:
        yield Skipped(name, _reason(error))
        return
    with stream:
        yield from _read_stream(
            stream, name, kind=kind, site=site, default_site=default_site,
            max_bytes=max_bytes, size=size,
        )


def read_file_bytes(
    name: str, data: bytes, *, site: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES
) -> Iterator[Page | Skipped]:
    """The pages of one file's bytes, read as ``read_pages`` reads a file called ``name``.

    For bytes fetched from elsewhere (a Hadoop filesystem, object storage): ``name`` (a
    path or URI) decides the kind by its suffix (HTML, WARC or JSON lines; anything else
    is sniffed), names the pages and skipped items, and its folder is the default site.
    Directories and tar archives are not files of pages here.
    """
    if max_bytes < 1:
        raise ValueError(f"max_bytes must be positive, not {max_bytes}")
    path = PurePosixPath(name.rstrip("/"))
    lower = path.name.lower()
    kind = (
        "html" if lower.endswith(_HTML_SUFFIXES)
        else "warc" if lower.endswith(_WARC_SUFFIXES)
        else "jsonl" if lower.endswith(_JSONL_SUFFIXES)
        else None
    )
    yield from _read_stream(
        io.BytesIO(data), name, kind=kind, site=site or None, default_site=path.parent.name,
        max_bytes=max_bytes, size=len(data),
    )


def _read_stdin(site: str | None, max_bytes: int) -> Iterator[Page | Skipped]:
    stdin = getattr(sys.stdin, "buffer", None)
    if stdin is None:
        yield Skipped("-", "standard input is closed or cannot be read as bytes")
        return
    yield from _read_stream(
        stdin, "-", kind=None, site=site, default_site="stdin", max_bytes=max_bytes, size=None
    )


def _read_stream(
    stream: BinaryIO,
    source: str,
    *,
    kind: str | None,
    site: str | None,
    default_site: str,
    max_bytes: int,
    size: int | None,
) -> Iterator[Page | Skipped]:
    """Read a WARC, JSON lines or HTML stream, gzipped or not; ``kind`` None = sniff."""
    members = None
    try:
        head, stream = _peek(stream, _SNIFF_BYTES)
        # A .warc.gz whose very first bytes are damaged is still read member by member.
        damaged_start = kind == "warc" and source.lower().endswith(".gz") and b"WARC/" not in head
        if head.startswith(_GZIP_MAGIC) or damaged_start:
            members = _GzipMembers(stream, resync=kind in (None, "warc"))
            size = None
            while True:
                try:
                    head, stream = _peek(members, _SNIFF_BYTES)  # type: ignore[arg-type]
                    break
                except _Corrupt as damage:
                    if not members.resync:
                        raise
                    if kind is None and not damage.resumed:  # no WARC anywhere: say no more
                        yield Skipped(source, f"corrupt gzip data ({damage.detail})")
                        return
                    yield from damage.skipped(source)
                    if not damage.resumed:
                        return
                    kind = "warc"  # it went on at a member that starts a WARC record
    except _ITEM_ERRORS as error:
        yield Skipped(source, _reason(error))
        return
    if kind is None:
        kind = _sniff_kind(head)
    if members is not None and kind != "warc":
        members.resync = False  # the next WARC record is no place to go on in other data
    if kind == "warc":
        yield from _read_warc(stream, source, site, max_bytes, members)
    elif kind == "jsonl":
        yield from _read_jsonl(stream, source, site, max_bytes)
    else:
        yield _read_html_item(
            stream, source, page_id=source, site=site or default_site, max_bytes=max_bytes,
            size=size,
        )


def _sniff_kind(head: bytes) -> str:
    if head.startswith(b"WARC/"):
        return "warc"
    if head.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(b"{"):
        return "jsonl"
    return "html"


# --- one HTML page ---------------------------------------------------------------------


def _read_html_file(
    path: Path, source: str, *, page_id: str, site: str, max_bytes: int
) -> Page | Skipped:
    try:
        with path.open("rb") as stream:
            info = os.fstat(stream.fileno())
            size = info.st_size if stat.S_ISREG(info.st_mode) else None
            return _read_html_item(
                stream, source, page_id=page_id, site=site, max_bytes=max_bytes, size=size
            )
    except _ITEM_ERRORS as error:  # opening it, mostly: reading errors are caught below
        return Skipped(source, _reason(error))


def _read_html_item(
    stream: BinaryIO, source: str, *, page_id: str, site: str, max_bytes: int,
    size: int | None,
) -> Page | Skipped:
    """One HTML page from ``stream`` (gzipped or not), ``size`` bytes long if known."""
    try:
        head, stream = _peek(stream, 2)
        if head == _GZIP_MAGIC:
            stream = _GzipStream(fileobj=stream)
            size = None
        if size is not None and size > max_bytes:
            raise PageError(source, _too_large(max_bytes, size))
        data = _read_at_most(stream, max_bytes + 1)
        if len(data) > max_bytes:
            raise PageError(source, _too_large(max_bytes))
        html = decode_html(data, source, max_bytes=max_bytes)
    except _ITEM_ERRORS as error:
        return Skipped(source, _reason(error))
    return Page(id=page_id, html=html, url=None, site=site)


# --- WARC ------------------------------------------------------------------------------


def _read_warc(
    stream: BinaryIO, source: str, site: str | None, max_bytes: int,
    members: _GzipMembers | None = None,
) -> Iterator[Page | Skipped]:
    """HTML responses of a WARC stream (already decompressed: see ``_read_stream``).

    Damage costs the records it touches, not the rest of the file: a record warcio
    cannot parse is skipped and reading goes on at the next line starting ``WARC/1.``,
    and a damaged gzip member (reported by ``_GzipMembers`` as ``_Corrupt``, already
    stepped over) ends one pass of warcio, and the next starts after it.
    """
    warc = _WarcInput(stream, members)
    records = ArchiveIterator(warc)
    number = 0
    while True:
        where = f"{source}#record {number + 1}"
        damage: _Corrupt | None = None
        broken: str | None = None  # why warcio could not read this record
        try:
            record = next(records)
        except StopIteration:
            # warcio takes a record header cut short for the end of the file.
            offset = getattr(records, "offset", None)  # where the last whole record ended
            if isinstance(offset, int) and offset < warc.tell():
                yield Skipped(where, "truncated: the file ends inside a record header")
            elif number == 0:
                yield Skipped(source, "empty file: no WARC records")
            return
        except _Corrupt as error:
            damage = error
        except _Truncated as error:
            yield Skipped(where, _reason(error))
            return
        # warcio signals a broken file with many exception types (ArchiveLoadFailed,
        # StatusAndHeadersParserException, plain Exception...): none may escape.
        except Exception as error:
            broken = _reason(error)
            number += 1
        else:
            number += 1
            if record.format != "warc":  # warcio also reads ARC, and takes odd text for ARC
                broken = "not a valid WARC (an ARC file, or not an archive at all)"
            else:
                try:
                    item = _warc_item(record, where, site, max_bytes)
                except _Truncated as error:  # the rest of the file is gone
                    yield Skipped(where, _reason(error))
                    return
                except _Corrupt as error:
                    damage = error
                    number -= 1  # this record is the first of those it lost
                except Exception as error:  # one bad record: go on with the next
                    item = Skipped(where, _reason(error))
                if damage is None:
                    if item is not None:
                        yield item
                    continue
        if broken is not None:
            offset = records.offset
            try:
                resumed = warc.resync(offset)
            except _Corrupt as error:  # the gzip layer went on at the next record itself
                yield Skipped(where, broken)
                damage = error
            except _ITEM_ERRORS as error:
                yield Skipped(where, broken)
                yield Skipped(f"{source}#record {number + 1}", _reason(error))
                return
            else:
                if resumed is None:
                    yield Skipped(where, f"{broken}; no WARC record after it")
                    return
                yield Skipped(where, f"{broken}; {resumed - offset:,} bytes skipped to the "
                                     "next record")
        if damage is not None:
            yield from damage.skipped(source)
            number += len(damage.lost)
            if not damage.resumed:
                return
        records = ArchiveIterator(warc)


def _warc_item(
    record: ArcWarcRecord, where: str, site: str | None, max_bytes: int
) -> Page | Skipped | None:
    """The page of one WARC record, a ``Skipped``, or None for a record that is no page."""
    content_type = record.http_headers.get_header("Content-Type") if record.http_headers else None
    wanted = (
        record.rec_type == "response"
        and record.http_headers is not None
        and _is_html_type(content_type)
    )
    data = _read_at_most(record.content_stream(), max_bytes + 1) if wanted else b""
    missing = _drain(record.raw_stream)
    if not record.rec_headers.get_header("Content-Length"):
        return Skipped(where, "truncated or malformed record header: no Content-Length")
    if not record.rec_type:  # every WARC record names its type: its header is garbled
        return Skipped(where, "malformed record header: no WARC-Type")
    if missing:
        plural = "s" if missing != 1 else ""
        return Skipped(where, f"truncated record: the file ends {missing:,} byte{plural} early")
    if not wanted:
        return None
    if len(data) > max_bytes:
        return Skipped(where, _too_large(max_bytes))
    url = (record.rec_headers.get_header("WARC-Target-URI") or "").strip("<> ") or None
    try:
        html = decode_html(
            data, where, header_charset=charset_from_header(content_type), max_bytes=max_bytes
        )
    except PageError as error:
        return Skipped(where, f"{error.reason} ({url})" if url else error.reason)
    return Page(id=url or where, html=html, url=url, site=site or _site_of(url))


def _is_html_type(content_type: str | None) -> bool:
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    return not media_type or media_type in _HTML_TYPES


def _drain(stream: BinaryIO) -> int:
    """Read ``stream`` (a warcio LimitReader) to its end; the bytes it still lacked."""
    while stream.read(_CHUNK):
        pass
    return max(getattr(stream, "limit", 0) or 0, 0)


# --- JSON lines ------------------------------------------------------------------------


def _read_jsonl(
    stream: BinaryIO, source: str, site: str | None, max_bytes: int
) -> Iterator[Page | Skipped]:
    # JSON escaping can make the page up to six times longer (\u003c for "<").
    line_limit = 6 * max_bytes + _CHUNK
    number = 0
    while True:
        try:
            line = stream.readline(line_limit)
            overlong = len(line) >= line_limit and not line.endswith(b"\n")
            if overlong:
                while (rest := stream.readline(line_limit)) and not rest.endswith(b"\n"):
                    pass
        except _ITEM_ERRORS as error:  # a truncated or corrupt file: nothing more to read
            yield Skipped(f"{source}:{number + 1}", _reason(error))
            return
        if not line:
            return
        number += 1
        where = f"{source}:{number}"
        if overlong:
            yield Skipped(where, _too_large(max_bytes))
        elif line.strip():
            yield _jsonl_item(line, where, site, max_bytes)


def _jsonl_item(line: bytes, where: str, site: str | None, max_bytes: int) -> Page | Skipped:
    try:
        entry = json.loads(line)
    except ValueError as error:
        return Skipped(where, f"not JSON ({error})")
    if not isinstance(entry, dict):
        return Skipped(where, f"not a JSON object but {type(entry).__name__}")
    html = entry.get("html")
    if not isinstance(html, str):
        what = "no" if html is None else f"a {type(html).__name__}, not a string, as"
        return Skipped(where, f'{what} "html" field')
    url = entry.get("url")
    url = url.strip() or None if isinstance(url, str) else None
    given_id = entry.get("id")
    page_id = str(given_id) if given_id not in (None, "") else url or where
    try:
        # The text is already decoded: it stays as it is, whatever a <meta> says.
        text = clean_text(html, where, max_bytes=max_bytes)
    except PageError as error:
        return Skipped(where, error.reason)
    return Page(id=page_id, html=text, url=url, site=site or _site_of(url))


# --- helpers ---------------------------------------------------------------------------


def _peek(stream: BinaryIO, count: int) -> tuple[bytes, BinaryIO]:
    """The first ``count`` bytes of ``stream``, and a stream that still starts with them."""
    position = None
    if not isinstance(stream, gzip.GzipFile):  # its seek() re-reads the whole file
        try:
            position = stream.tell() if stream.seekable() else None
        except (OSError, ValueError):
            position = None
    head = _read_at_most(stream, count)
    if position is not None:
        stream.seek(position)
        return head, stream
    return head, _Prefixed(head, stream)  # type: ignore[return-value]


def _read_at_most(stream: BinaryIO, limit: int) -> bytes:
    """Up to ``limit`` bytes of ``stream``: all of it when shorter."""
    parts = []
    while limit > 0:
        data = stream.read(min(limit, _CHUNK))
        if not data:
            break
        parts.append(data)
        limit -= len(data)
    return b"".join(parts)


def _too_large(max_bytes: int, size: int | None = None) -> str:
    amount = f"{size:,} bytes" if size is not None else f"over {max_bytes:,} bytes"
    return f"too large: {amount} (limit {max_bytes:,}; see --max-bytes)"


def _site_of(url: str | None) -> str:
    try:
        return site_of(url)
    except ValueError:  # a malformed URL, such as "http://[::1"
        return ""


def _reason(error: BaseException) -> str:
    """One line saying why an item could not be read."""
    if isinstance(error, PageError):
        return error.reason
    if isinstance(error, _Truncated | EOFError):
        return "truncated: the compressed data ends early"
    if isinstance(error, _Corrupt):
        return str(error)
    if isinstance(error, FileNotFoundError):
        return "no such file or directory"
    if isinstance(error, PermissionError):
        return "cannot read: permission denied"
    if isinstance(error, gzip.BadGzipFile | zlib.error):
        return f"corrupt gzip data ({error})"
    if isinstance(error, lzma.LZMAError):
        return f"corrupt xz data ({error})"
    if isinstance(error, tarfile.TarError):
        return f"unreadable tar archive ({error})"
    if isinstance(error, OSError):
        return f"cannot read: {error.strerror or error}"
    name = type(error).__name__
    message = str(error)
    if name == "ArchiveLoadFailed":
        return f"not a valid WARC ({message.strip()})"
    return f"{name}: {message}" if message else name
