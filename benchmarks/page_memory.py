"""Peak memory per page: every per-page command on adversarial pages near the size cap.

Run: python benchmarks/page_memory.py [--size-mb 19.9] [--kinds links,nested]
                                      [--commands kwx,apply-text] [--source page.html]

Builds, in a temporary folder, one page of each kind below from real text, each
filled to ``--size-mb`` of UTF-8 (the default page cap,
``denoise.decode.DEFAULT_MAX_BYTES``, is 20 MiB), then runs each command on each page
in a subprocess of its own, one at a time, and prints a table of peak resident memory
(``ru_maxrss`` of the command's process and those it waited for, as ``/usr/bin/time
-v`` reports it) against page kind and size, marking runs over ``--limit-mb``. The
first rows run every command on a small ordinary page (``examples/shop``): the fixed
cost of the models and tables, which the goal of issue 28 (600 MB a process at the
default cap) includes. The code measured is the one Python imports: run with
``PYTHONPATH=/a/copy`` to measure another.

The kinds (the text is the source page's, by default a long Wikipedia article of
the content-dev corpus, else the shop examples):

- ``article``: the source page's body repeated until the page is full (its
  characters as they are: the default article has some past U+FFFF, so Python holds
  its text at four bytes a character);
- ``prose``: the source page's paragraphs, repeated: text that is all content;
- ``vocabulary``: paragraphs of 100 words, each a word of the source text with a
  number to it, so that nearly every word of the page is new (the costs that grow
  with a page's vocabulary, not its length);
- ``links``: links with one word of anchor text each (~20 bytes a link);
- ``nested``: ``<div><span>word</span></div>`` repeated;
- ``textnode``: one paragraph of one text node of 9.9 MB (libxml2, as lxml runs it,
  without its "huge" option, stops reading a page at a text node past 10 MB);
- ``table``: one table, rows of ten cells of a word each;
- ``longattrs``: elements whose ``class``, ``style``, ``title`` and ``href`` values
  are 64 KB each;
- ``manyattrs``: elements with eight short attributes each.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from html import escape
from pathlib import Path

from lxml import etree

ROOT = Path(__file__).resolve().parent.parent
SHOP = ROOT / "examples" / "shop"
#: The long article the pages are made of, inside content-dev (1 MB of HTML).
SOURCE_MEMBER = "content-dev/readability/test/test-pages/wikipedia-2/source.html"
KINDS = ("article", "prose", "vocabulary", "links", "nested", "textnode", "table",
         "longattrs", "manyattrs")
#: Length of one long attribute value of the ``longattrs`` kind.
ATTRIBUTE_CHARS = 64 * 1024


def _program(package: str) -> list[str]:
    """The command line of one of the toolkit's programs, run by this interpreter (so
    ``PYTHONPATH`` picks the copy of the code that runs)."""
    return [sys.executable, "-c", f"from commands.{package} import main; main()"]


#: name -> (program, its arguments): ``{page}`` is the page, ``{folder}`` its folder (it
#: and the shop pages: a site), ``{shop}`` the shop pages, ``{model}`` a topic model.
COMMANDS: dict[str, tuple[str, list[str]]] = {
    "apply-text": ("denoise", ["apply", "{page}", "--jobs", "1"]),
    "apply-main": ("denoise", ["apply", "{page}", "--format", "main", "--jobs", "1"]),
    "apply-html": ("denoise", ["apply", "{page}", "--format", "html", "--jobs", "1"]),
    "apply-blocks": ("denoise", ["apply", "{page}", "--format", "blocks", "--jobs", "1"]),
    "kwx": ("kwx", ["extract", "{page}", "--json", "--jobs", "1"]),
    "dedup-none": ("mining", ["dedup", "{page}", "{shop}", "--jobs", "1"]),
    "dedup-page": ("mining", ["dedup", "{page}", "{shop}", "--denoise", "page", "--jobs", "1"]),
    "dedup-main": ("mining", ["dedup", "{page}", "{shop}", "--denoise", "main", "--jobs", "1"]),
    "dedup-site": ("mining", ["dedup", "{folder}", "--denoise", "site"]),
    "classify": ("mining", ["classify", "predict", "{page}", "--model", "{model}"]),
    "site": ("denoise", ["site", "{folder}"]),
}


def words_of(html: str) -> list[str]:
    """The visible words of a page (its body's text, scripts and styles left out)."""
    parser = etree.HTMLParser(remove_comments=True, recover=True)
    root = etree.fromstring(html.encode("utf-8"), parser)
    etree.strip_elements(root, "script", "style", "noscript", with_tail=False)
    body = root.find("body")
    return "".join((body if body is not None else root).itertext()).split()


def source_html(path: Path | None) -> tuple[str, str]:
    """The page the adversarial pages are made of, and where it is from: ``path``, else
    the content-dev article, else the shop examples one after another."""
    if path is not None:
        return path.read_text(encoding="utf-8", errors="replace"), str(path)
    try:
        from corpora.locate import corpus_path

        archive_path = corpus_path("content-dev.tar.xz")
        with tarfile.open(archive_path) as archive:
            for member in archive:
                if member.name == SOURCE_MEMBER:
                    data = archive.extractfile(member)
                    if data is not None:
                        return (data.read().decode("utf-8", errors="replace"),
                                f"{archive_path}:{SOURCE_MEMBER}")
    except FileNotFoundError:
        pass
    return ("\n".join(p.read_text(encoding="utf-8") for p in sorted(SHOP.glob("*.html"))),
            f"{SHOP}/*.html (no corpora found)")


def _cycle(items: list[str]) -> Iterator[str]:
    while True:
        yield from items


class _Page:
    """A page being written, with its size in UTF-8 bytes."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0

    def write(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text.encode("utf-8"))

    def fill(self, size: int, pieces: Iterator[str]) -> int:
        """Write ``pieces`` while the page stays within ``size`` bytes; how many."""
        count = 0
        for piece in pieces:
            length = len(piece.encode("utf-8"))
            if self.size + length > size:
                return count
            self.parts.append(piece)
            self.size += length
            count += 1
        return count


_HEAD = ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{title}</title>'
         '<meta name="description" content="{title}"></head><body>\n')
_TAIL = "\n</body></html>\n"
#: libxml2 (without its "huge" option, as lxml parses by default) stops reading a page
#: at a text node past 10 MB: the ``textnode`` page holds one it keeps.
TEXT_NODE_BYTES = 9_900_000


def _paragraphs(html: str) -> list[str]:
    """The text of the page's paragraphs (at least one, of all its words, without any)."""
    root = etree.fromstring(html.encode("utf-8"), etree.HTMLParser(recover=True))
    found = [" ".join("".join(p.itertext()).split()) for p in root.iter("p")]
    return [escape(p, quote=False) for p in found if p] or [" ".join(words_of(html))]


def build_page(kind: str, size: int, html: str) -> tuple[str, str]:
    """An adversarial page of ``kind`` of at most ``size`` bytes made of ``html``'s text,
    and what it holds."""
    words = [escape(w) for w in words_of(html)]
    title = " ".join(words[:8])
    page = _Page()
    page.write(_HEAD.format(title=title))
    room = size - len(_TAIL)
    if kind == "article":
        lower = html.lower()
        start, end = lower.find("<body"), lower.rfind("</body>")
        start = lower.find(">", start) + 1 if start >= 0 else 0
        body = html[start:end if end > start else len(html)]
        what = f"{page.fill(room, _cycle([body]))} copies of the article's body"
    elif kind == "prose":
        pieces = (f"<p>{p}</p>\n" for p in _cycle(_paragraphs(html)))
        what = f"{page.fill(room, pieces):,} paragraphs"
    elif kind == "vocabulary":
        tokens = (f"{w}{n * 7919 % 1_000_003:x}" for n, w in enumerate(_cycle(words)))
        pieces = (f"<p>{' '.join(next(tokens) for _ in range(100))}</p>\n"
                  for _ in iter(int, 1))
        what = f"{page.fill(room, pieces) * 100:,} words, nearly all distinct"
    elif kind == "links":
        pieces = (f'<a href="/{n:x}">{w}</a>\n' for n, w in enumerate(_cycle(words)))
        what = f"{page.fill(room, pieces):,} links"
    elif kind == "nested":
        pieces = (f"<div><span>{w}</span></div>" for w in _cycle(words))
        what = f"{page.fill(room, pieces):,} div/span pairs"
    elif kind == "textnode":
        page.write("<p>")
        count = page.fill(min(room, TEXT_NODE_BYTES) - 4, (w + " " for w in _cycle(words)))
        what = f"one text node of {count:,} words"
        page.write("</p>")
    elif kind == "table":
        page.write("<table>\n")
        cells = _cycle(words)
        rows = ("<tr>" + "".join(f"<td>{next(cells)}</td>" for _ in range(10)) + "</tr>\n"
                for _ in iter(int, 1))
        what = f"{page.fill(room - 9, rows):,} rows of 10 cells"
        page.write("</table>")
    elif kind == "manyattrs":
        pieces = (f'<i class="{w}" id="w{n:x}" lang="en" dir="ltr" data-a="1" data-b="2" '
                  f'data-c="3" title="{w}">{w}</i>\n' for n, w in enumerate(_cycle(words)))
        what = f"{page.fill(room, pieces):,} elements with 8 attributes each"
    elif kind == "longattrs":
        text = " ".join(words).replace("&", "and")
        value = (text * (ATTRIBUTE_CHARS // max(len(text), 1) + 1))[:ATTRIBUTE_CHARS]
        piece = (f'<div class="{value}" style="{value}"><a title="{value}" '
                 f'href="http://example.com/{value.replace(" ", "/")}">{title}</a></div>\n')
        what = f"{page.fill(room, _cycle([piece])):,} elements with 64 KB attributes"
    else:
        raise ValueError(f"unknown page kind {kind!r}; choose from {', '.join(KINDS)}")
    page.write(_TAIL)
    return "".join(page.parts), what


@dataclass(frozen=True)
class Run:
    """One command on one page."""

    peak_mb: float
    seconds: float
    status: int
    output_bytes: int


#: Run by a fresh interpreter between this process and the command: a child shares
#: its parent's memory until it executes the command (vfork), and the kernel counts
#: that in the child's peak; this small process is the parent whose memory counts.
_WAIT = """
import os, subprocess, sys
process = subprocess.Popen(sys.argv[1:], stdout=sys.stdout, stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(process.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, file=sys.stderr)
"""


def measure(argv: list[str], env: dict[str, str] | None = None) -> Run:
    """Run ``argv`` and report its peak resident memory: ``wait4``'s ``ru_maxrss``, the
    largest of the child's and of the processes it waited for (what ``time -v`` says)."""
    with tempfile.TemporaryFile() as sink:
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", _WAIT, *argv], stdout=sink,
                              stderr=subprocess.PIPE, env=env, check=True, text=True)
        seconds = time.perf_counter() - started
        status, peak_kb = done.stderr.split()[-2:]
        sink.seek(0, os.SEEK_END)
        return Run(int(peak_kb) / 1024, seconds, int(status), sink.tell())


def topic_model(folder: Path) -> Path:
    """A small Naive Bayes topic model from the shop pages, for ``mining classify``."""
    labels = folder / "labels.tsv"
    labels.write_text("".join(f"{SHOP / p.name}\t{'home' if i % 2 else 'tools'}\n"
                              for i, p in enumerate(sorted(SHOP.glob("*.html")))))
    model = folder / "topics.npz"
    subprocess.run([*_program("mining"), "classify", "train", str(labels), "--out", str(model)],
                   check=True, capture_output=True)
    return model


def arguments(name: str, page: Path, model: Path) -> list[str]:
    """The command line of ``name`` on ``page``."""
    program, args = COMMANDS[name]
    fill = {"{page}": str(page), "{folder}": str(page.parent), "{model}": str(model),
            "{shop}": str(SHOP)}
    return [*_program(program), *(fill.get(a, a) for a in args)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Each command runs with --jobs 1 where it has the option, so the page is "
        "worked in the measured process. Pages are made in a temporary folder and removed.")
    parser.add_argument("--size-mb", type=float, default=19.9,
                        help="bytes of each page, in millions (default 19.9)")
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help=f"comma-separated page kinds (default: all of {', '.join(KINDS)})")
    parser.add_argument("--commands", default=",".join(COMMANDS),
                        help=f"comma-separated commands (default: all of {', '.join(COMMANDS)})")
    parser.add_argument("--source", type=Path, default=None,
                        help="HTML page whose text fills the pages (default: a long article "
                        "of the content-dev corpus, or the shop examples without it)")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the row of each command on a small ordinary page")
    parser.add_argument("--keep", type=Path, default=None,
                        help="write the pages into this folder and keep them")
    parser.add_argument("--limit-mb", type=float, default=600.0,
                        help="mark runs whose peak is over this (default 600: issue 28's goal)")
    args = parser.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    names = [c for c in args.commands.split(",") if c]
    for name in names:
        if name not in COMMANDS:
            parser.error(f"unknown command {name!r}; choose from {', '.join(COMMANDS)}")
    for kind in kinds:
        if kind not in KINDS:
            parser.error(f"unknown page kind {kind!r}; choose from {', '.join(KINDS)}")
    html, origin = source_html(args.source)
    print(f"text from {origin}")
    if not words_of(html):
        parser.error("the source page has no words")
    size = int(args.size_mb * 1_000_000)
    with tempfile.TemporaryDirectory(prefix="page-memory-") as temporary:
        work = Path(temporary)
        folder = args.keep or work
        model = topic_model(work)
        print(f"{'page':<12} {'MB':>6} {'command':<13} {'peak MB':>8} {'s':>6} "
              f"{'out MB':>7}  holds")
        rows: list[tuple[str, Path, str]] = []
        if not args.no_baseline:
            rows.append(("shop", SHOP / "oak-shelf.html", "an ordinary page"))
        for kind in kinds:
            page_html, what = build_page(kind, size, html)
            page = folder / kind / f"{kind}.html"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(page_html, encoding="utf-8")
            for shop_page in SHOP.glob("*.html"):  # its site, for the site-level commands
                (page.parent / shop_page.name).write_bytes(shop_page.read_bytes())
            del page_html
            rows.append((kind, page, what))
        worst: dict[str, tuple[float, str]] = {}
        for kind, page, what in rows:
            for name in names:
                if kind == "shop" and name in ("dedup-site", "site"):
                    continue  # the shop folder is the site itself: same as dedup-none
                run = measure(arguments(name, page, model))
                notes = [f"exit {run.status}"] * (run.status != 0) + \
                    [f"OVER {args.limit_mb:.0f} MB"] * (run.peak_mb > args.limit_mb)
                print(f"{kind:<12} {page.stat().st_size / 1e6:>6.1f} {name:<13} "
                      f"{run.peak_mb:>8.0f} {run.seconds:>6.1f} {run.output_bytes / 1e6:>7.2f}"
                      f"  {what}" + (f" ({', '.join(notes)})" if notes else ""), flush=True)
                if run.peak_mb > worst.get(name, (0.0, ""))[0]:
                    worst[name] = (run.peak_mb, kind)
        print("\nworst page per command: " + ", ".join(
            f"{name} {peak:.0f} MB ({kind})" for name, (peak, kind) in worst.items()))


if __name__ == "__main__":
    main()
