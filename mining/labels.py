"""Labelled pages from a TSV file: one ``path<TAB>label`` line a page.

Format: UTF-8 text; a path relative to the TSV's folder (or absolute) and a label,
separated by one tab. Blank lines and lines starting with ``#`` are skipped, and so
is a first line ``path<TAB>label`` (a header). Anything else that is not exactly two
non-empty fields is an error naming ``file:line``: a label file is written by hand or
by a script, and a broken line is better fixed than guessed at.

A path may name anything the toolkit's reader reads (a page, a folder of pages, an
archive): every page found there takes the line's label. A path that is missing or
holds no readable page is reported, counted and skipped; the batch goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from denoise.decode import DEFAULT_MAX_BYTES
from denoise.errors import LabelFileError
from denoise.page import Page
from denoise.reader import Skipped, read_pages


@dataclass(frozen=True, slots=True, kw_only=True)
class LabelLine:
    """One line of a label file: where the page is and its label."""

    path: Path  # resolved against the TSV's folder
    label: str
    line: int  # 1-based line number in the file

    def where(self, tsv: Path) -> str:
        """``file:line`` of this entry, for messages."""
        return f"{tsv}:{self.line}"


def read_label_file(tsv: str | Path) -> list[LabelLine]:
    """The entries of a label file; :class:`LabelFileError` for a missing or
    unreadable file or the first malformed line."""
    tsv = Path(tsv)
    try:
        data = tsv.read_bytes()
    except FileNotFoundError:
        raise LabelFileError(str(tsv), "no such label file") from None
    except IsADirectoryError:
        raise LabelFileError(str(tsv), "a folder, not a label file") from None
    except OSError as error:
        raise LabelFileError(str(tsv), f"cannot read ({error.strerror or error})") from None
    base = tsv.parent
    entries: list[LabelLine] = []
    for number, raw in enumerate(data.removeprefix(b"\xef\xbb\xbf").split(b"\n"), start=1):
        try:
            line = raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError:
            raise LabelFileError(str(tsv), "not UTF-8 text", number) from None
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        if not entries and [f.strip().lower() for f in fields] == ["path", "label"]:
            continue  # a header
        if len(fields) != 2:
            raise LabelFileError(str(tsv), f"expected path<TAB>label, got {len(fields)} "
                                 f"field{'s' if len(fields) != 1 else ''}", number)
        path, label = fields[0].strip(), fields[1].strip()
        if not path or not label:
            raise LabelFileError(str(tsv), f"empty {'path' if not path else 'label'}", number)
        entries.append(LabelLine(path=base / path, label=label, line=number))
    return entries


def labelled_pages(tsv: str | Path, entries: list[LabelLine], *,
                   max_bytes: int = DEFAULT_MAX_BYTES,
                   on_skip: Callable[[str], None] | None = None) -> Iterator[tuple[Page, str]]:
    """The pages the entries name, each with its label, in file order.

    An entry whose path is missing or holds no readable page, and every unreadable
    page under a folder or archive, goes to ``on_skip`` as one line naming the
    TSV line and the page.
    """
    for entry in entries:
        for item in read_pages([entry.path], max_bytes=max_bytes):
            if isinstance(item, Skipped):
                if on_skip is not None:
                    on_skip(f"{entry.where(Path(tsv))}: {item}")
                continue
            yield item, entry.label
