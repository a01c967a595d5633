"""Labelled pages on disk: ``NAME.html`` beside ``NAME.key`` (one keyword a line), the
convention of the keyphrase corpora. Pages without a key file are not labelled and
are left out; a page or key file that cannot be read is reported and left out.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from denoise.decode import decode_html
from denoise.errors import PageError
from denoise.page import Page
from denoise.reader import Skipped

_PAGE_SUFFIXES = (".html", ".htm")


@dataclass(frozen=True, slots=True)
class LabelledPage:
    """A page and the keywords a person chose for it."""

    page: Page
    keys: tuple[str, ...]


def read_labelled(folder: str | os.PathLike[str],
                  on_skip: Callable[[Skipped], None] | None = None) -> Iterator[LabelledPage]:
    """The labelled pages of ``folder`` (and its subfolders), in name order.

    Raises ``FileNotFoundError`` when ``folder`` is not a folder; a bad page is passed
    to ``on_skip`` (or ignored) and the rest go on.
    """
    root = Path(folder)
    if not root.is_dir():
        raise FileNotFoundError(f"{folder}: not a folder of NAME.html + NAME.key files")
    for path in sorted(p for p in root.rglob("*") if p.suffix.lower() in _PAGE_SUFFIXES):
        name = path.relative_to(root).as_posix()
        key_file = path.with_suffix(".key")
        if not key_file.is_file():
            continue
        try:
            keys = tuple(line.strip() for line in key_file.read_text(
                encoding="utf-8", errors="replace").splitlines() if line.strip())
            if not keys:
                raise PageError(str(key_file), "no keywords in the key file")
            html = decode_html(path.read_bytes(), str(path))
        except (OSError, PageError) as error:
            if on_skip is not None:
                reason = error.reason if isinstance(error, PageError) else (
                    error.strerror or str(error))
                on_skip(Skipped(str(getattr(error, "source", path)), reason))
            continue
        yield LabelledPage(Page(id=name, html=html, site=root.name), keys)
