"""Bytes to text: the one forgiving entry point for raw page bytes.

Order of evidence: a byte-order mark; then bytes that are valid UTF-8 are read as
UTF-8, whatever is declared; then the charset of the HTTP ``Content-Type`` header
or a ``<meta>`` charset in the first 4 KiB; the last resort is windows-1252 with
replacement characters, which never fails. Declared charsets are often wrong (see
the corpora README), and the commonest error is UTF-8 labelled Latin-1; text in a
single-byte charset with non-ASCII letters is almost never valid UTF-8, so trying
UTF-8 first costs nothing in the other direction. A UTF-16/32 declaration is
honoured only where the bytes hold NULs, as such text must; undeclared UTF-16 without
a byte-order mark is recognised by its NULs, one in every other byte (see
:func:`_undeclared_utf16`). Latin-1 labels are read as windows-1252, as the WHATWG
encoding standard prescribes.

Binary data is refused by its first bytes (the signature of an image, PDF, archive or
executable) or by the share of control characters in the first 4,096 characters of the
text: more than one in 32 (and at least four) means binary. Random or compressed bytes
hold about one control character in nine, executables and images far more, while a
text page holds a handful at most; so stray control characters, NUL included, are
removed from a page rather than taken for a reason to refuse it.
"""

from __future__ import annotations

import codecs
import re

from denoise.errors import PageError

DEFAULT_MAX_BYTES = 20 * 1024 * 1024

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)""", re.I)
_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?([a-zA-Z0-9_.:-]+)""", re.I)
_TAG = re.compile(r"<\s*[a-zA-Z!?/]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
#: The bytes of :data:`_CONTROL`'s characters, for a quick look at raw bytes first.
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0B, *range(0x0E, 0x20), 0x7F])
#: The same characters, mapped to None for ``str.translate``.
_CONTROL_DELETE = dict.fromkeys(_CONTROL_BYTES)
#: A page is binary when more than one in this many of its first characters are controls
#: (and at least :data:`_BINARY_MIN_CONTROLS` are: a share of a few characters says little).
_BINARY_CONTROL_SHARE = 32
_BINARY_MIN_CONTROLS = 4
_SNIFF_CHARS = 4096
#: First bytes of binary formats a crawl or a folder of pages can hold by mistake.
_BINARY_SIGNATURES = (
    b"\x89PNG\r\n\x1a\n", b"GIF87a", b"GIF89a", b"\xff\xd8\xff", b"%PDF-", b"\x1f\x8b",
    b"PK\x03\x04", b"\x7fELF", b"\xfd7zXZ\x00", b"7z\xbc\xaf\x27\x1c", b"wOFF", b"wOF2",
    b"OggS",
)
#: Codecs that read every byte below 0x80 as that ASCII character and use none of them
#: inside another character: their text holds a control character where its bytes do.
_ASCII_TRANSPARENT = frozenset({"utf-8", "cp1252"})
_WAYBACK_TOOLBAR = re.compile(
    r"<!--\s*BEGIN WAYBACK TOOLBAR INSERT\s*-->.*?<!--\s*END WAYBACK TOOLBAR INSERT\s*-->",
    re.S | re.I,
)
_ALIASES = {"iso-8859-1": "cp1252", "latin-1": "cp1252", "latin1": "cp1252", "ascii": "cp1252",
            "us-ascii": "cp1252", "x-sjis": "shift_jis", "unicode": "utf-16"}


def charset_from_header(content_type: str | None) -> str | None:
    """The charset named by an HTTP ``Content-Type`` value, if any."""
    if not content_type:
        return None
    match = _HEADER_CHARSET.search(content_type)
    return match.group(1) if match else None


#: Codecs Python knows that no web page is written in: they fail on every input
#: (``undefined``), read backslashes as escapes, or are UTF-7, which browsers refuse
#: (it hides markup from filters). A page declaring one is decoded as if undeclared.
_NOT_PAGE_CODECS = frozenset({"undefined", "unicode-escape", "raw-unicode-escape",
                              "punycode", "idna", "utf-7", "mbcs", "oem"})


def _codec(label: str | None) -> str | None:
    """The Python codec of a declared charset label; None for an unknown label, a
    transform (``base64``, ``rot13``) or a codec no page is written in."""
    if not label:
        return None
    label = label.strip().lower()
    label = _ALIASES.get(label, label)
    try:
        info = codecs.lookup(label)
    except LookupError:
        return None
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_PAGE_CODECS:
        return None
    return info.name


def decode_html(
    data: bytes,
    source: str,
    *,
    header_charset: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> str:
    """Decode raw page bytes to clean HTML text, or raise ``PageError`` naming ``source``.

    Rejects empty, oversized, binary and tag-less input; strips the Wayback Machine
    toolbar and control characters that the HTML parser would choke on.
    """
    _check_size(data, source, max_bytes)
    _check_signature(data, source)
    text, codec = _decode(data, header_charset)
    return _cleaned(text, source, data if codec in _ASCII_TRANSPARENT else None)


def clean_text(html: str, source: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """Page text that is already decoded (JSON lines), checked and cleaned as
    :func:`decode_html` does its UTF-8 bytes, without decoding them again."""
    try:
        data = html.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: decode_html reads them as "?"
        return decode_html(html.encode("utf-8", errors="replace"), source,
                           header_charset="utf-8", max_bytes=max_bytes)
    _check_size(data, source, max_bytes)
    _check_signature(data, source)
    if data.startswith(codecs.BOM_UTF8):  # decode_html drops a byte-order mark
        html = html[1:]
    return _cleaned(html, source, data)


def _check_size(data: bytes, source: str, max_bytes: int) -> None:
    if len(data) > max_bytes:
        raise PageError(
            source, f"too large: {len(data):,} bytes (limit {max_bytes:,}; see --max-bytes)"
        )
    if not data or data.isspace():
        raise PageError(source, "empty file")


def _check_signature(data: bytes, source: str) -> None:
    if data.startswith(_BINARY_SIGNATURES):
        raise PageError(source, "binary data, not HTML")


def _cleaned(text: str, source: str, data: bytes | None) -> str:
    """``text`` checked for HTML and cleaned; ``data``, when given, are bytes that hold a
    control character where ``text`` does (its bytes in an ASCII-transparent codec), and
    are looked at first: scanning bytes costs a fraction of the regex over the text."""
    head = text[:_SNIFF_CHARS]
    clean = data is not None and len(data.translate(None, _CONTROL_BYTES)) == len(data)
    if not clean:
        controls = len(head) - len(head.translate(_CONTROL_DELETE))
        if controls >= _BINARY_MIN_CONTROLS and controls * _BINARY_CONTROL_SHARE > len(head):
            raise PageError(source, "binary data, not HTML")
    if head.count("\ufffd") > 64:
        raise PageError(source, "binary data, not HTML")
    if not _TAG.search(text, 0, 65536):
        raise PageError(source, "no HTML tags: not an HTML page")
    text = _WAYBACK_TOOLBAR.sub("", text)
    return text if clean else _CONTROL.sub("", text)


def _decode(data: bytes, header_charset: str | None = None) -> tuple[str, str]:
    """The text, and the codec that read it."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(name, errors="replace"), name
    declared = _codec(header_charset)
    if declared is None:
        match = _META_CHARSET.search(data[:4096])
        declared = _codec(match.group(1).decode("ascii")) if match else None
    wide = declared is not None and declared.startswith(("utf-16", "utf-32"))
    if wide and b"\x00" not in data[:_SNIFF_CHARS]:
        declared = None
    if not wide and (sniffed := _undeclared_utf16(data[:_SNIFF_CHARS])):
        return data.decode(sniffed, errors="replace"), sniffed
    for name in ((declared, "utf-8") if wide else ("utf-8", declared)):
        if name is None:
            continue
        try:
            return data.decode(name), name
        except (UnicodeDecodeError, LookupError):
            continue
    return data.decode("cp1252", errors="replace"), "cp1252"


def _undeclared_utf16(head: bytes) -> str | None:
    """``utf-16-le`` or ``utf-16-be`` when ``head`` looks like UTF-16 text without a
    byte-order mark, else None.

    Markup is ASCII, and an ASCII character in UTF-16 is a NUL and its byte: NULs fill
    most of one byte parity (at least a third of it: pages in other scripts hold fewer)
    and almost none of the other (characters U+xx00 are rare). Binary data, whose NULs
    fall on both parities, does not look so; nor does text in any 8-bit codec.
    """
    pairs = len(head) // 2
    if pairs < 8 or b"\x00" not in head:
        return None
    even = head[0:2 * pairs:2].count(0)  # high bytes of UTF-16-BE
    odd = head[1:2 * pairs:2].count(0)  # high bytes of UTF-16-LE
    many, few = max(even, odd), min(even, odd)
    if many * 3 < pairs or few * 20 > many:
        return None
    return "utf-16-le" if odd > even else "utf-16-be"
