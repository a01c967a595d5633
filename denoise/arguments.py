"""Checks of what a caller passed to a public function: a ``TypeError`` that says what
to pass, instead of an ``AttributeError`` from deep inside (``main_text(b"...")``,
``extract("<html>...")``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from denoise.page import Page

_PAGE_HINT = "a denoise.Page (Page(id=..., html=...), or from denoise.read_pages)"


def _kind(value: object) -> str:
    return type(value).__name__


def expect_page(value: object, where: str) -> Page:
    """``value`` if it is a :class:`~denoise.page.Page`; else a ``TypeError`` naming
    ``where`` (the function) and what it takes."""
    from denoise.page import Page

    if not isinstance(value, Page):
        hint = " (wrap HTML text as Page(id=..., html=text))" if isinstance(
            value, str | bytes) else ""
        raise TypeError(f"{where} takes {_PAGE_HINT}, not {_kind(value)}{hint}")
    return value


def expect_pages(values: Iterable[object], where: str) -> Iterator[Page]:
    """Each of ``values`` checked by :func:`expect_page`, lazily (a stream stays one)."""
    if isinstance(values, str | bytes):
        raise TypeError(f"{where} takes pages (an iterable of {_PAGE_HINT}), not "
                        f"{_kind(values)}")
    for value in values:
        yield expect_page(value, where)


def expect_text(value: object, name: str, where: str, *, optional: bool = False) -> str:
    """``value`` if it is a ``str`` (or None when ``optional``); else a ``TypeError``
    naming the argument. Bytes get a hint: the toolkit decodes them with
    :func:`denoise.decode_html`."""
    if isinstance(value, str) or (optional and value is None):
        return value  # type: ignore[return-value]
    hint = (" (decode bytes first: denoise.decode_html(data, source))"
            if isinstance(value, bytes | bytearray) else "")
    wanted = "str or None" if optional else "str"
    raise TypeError(f"{where}: {name} must be {wanted}, not {_kind(value)}{hint}")
