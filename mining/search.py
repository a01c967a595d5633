"""BM25 search over what a de-noising mode keeps of each page (issue 32).

The indexing half of two of the papers: Ma, Goharian & Chowdhury remove table text
chunks before indexing and measure BM25 with and without them; Chen, Ye & Li detect
templates *while* indexing, the site statistics growing as pages arrive. A
:class:`SearchIndex` takes pages, removes what a mode calls template
(:func:`denoise.cleaning.clean_pages`: ``none`` is FULLTEXT; ``site`` one of the
papers' site-level methods; ``page`` the page-level detector at a recall; ``main`` the
main content), and indexes the rest; :meth:`SearchIndex.search` ranks pages by BM25.

Choices, and why:

- **tantivy underneath** (Rust, its own files on disk, no pickle): of the three
  candidates measured on our pages (``benchmarks/bm25_libraries.py``) it indexed and
  answered fastest, kept its index on disk and takes more pages into it later, and its
  scores are Lucene's BM25 (k1 = 1.2, b = 0.75, lengths stored in one byte as Lucene
  does). bm25s computes the exact formula with settable k1 and b, but builds an index
  once, in memory; SQLite's FTS5 answers an order of magnitude slower and its idf goes
  negative on common words.
- **Words**: tantivy's ``en_stem`` analyzer (runs of letters and digits, lower-cased,
  Snowball's English stemmer, words over 40 bytes dropped). A query is those words,
  any of them matching (OR), as BM25 is defined; no query syntax, so no user query is
  a syntax error.
- **What is indexed**: the mode's kept text (one line per block); the page's id, URL
  and site are stored beside it, and the text too, for snippets. A page whose id is
  already in the index replaces it.
- **Site statistics accumulate** (mode ``site``): the fingerprint and shingle methods
  keep their per-site counts in ``sites.sqlite`` inside the index
  (:class:`denoise.site.counts.SiteStore`), so a page added later is judged against
  every page of its site seen so far, as in Chen's setting; the pages indexed earlier
  keep what they were indexed with. The table-chunk and style-offset methods fit on
  the pages of each :meth:`SearchIndex.add` call (they have no stored counts).
- **Safe to reopen**: ``webdenoise-index.json`` beside tantivy's files holds the
  format version, the settings and the digest of the models the pages were read with;
  :meth:`SearchIndex.open` checks them, and pages are never added with other settings.
  Each :meth:`SearchIndex.add` commits once at its end (and every
  :data:`COMMIT_PAGES` pages): an interrupted call leaves the index as its last commit.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from denoise.arguments import expect_pages
from denoise.cleaning import (
    PAGE_RECALL,
    SITE_METHODS,
    STORED_SITE_METHODS,
    Cleaned,
    Mode,
    SiteMethods,
    clean_pages,
    models_digest,
)
from denoise.detector import TemplateDetector
from denoise.errors import PageError, SearchIndexError
from denoise.output import atomic_text
from denoise.page import Page

__all__ = ["COMMIT_PAGES", "INDEX_FORMAT", "AddReport", "Hit", "IndexSettings", "SearchIndex",
           "query_words"]

#: The version of the index folder's layout and manifest; another is refused.
INDEX_FORMAT = 1
MANIFEST = "webdenoise-index.json"
SITE_STORE = "sites.sqlite"
#: Pages between commits of a long :meth:`SearchIndex.add` (each commit is durable).
COMMIT_PAGES = 10_000
ANALYZER = "en_stem"
SNIPPET_CHARS = 200
_WORD = re.compile(r"[^\W_]+")
_WRITER_HEAP = 128 << 20


def query_words(query: str) -> list[str]:
    """The words of a query as the index splits them (before stemming)."""
    return _WORD.findall(query.lower())


@dataclass(frozen=True)
class IndexSettings:
    """What an index removes from pages before indexing them.

    ``denoise`` is the mode; ``method`` the site-level method of mode ``site`` (any
    of :data:`denoise.cleaning.SITE_METHODS`; the fingerprint method by default), ``recall`` the
    page-level detector's operating point in mode ``page`` (default
    :data:`~denoise.cleaning.PAGE_RECALL`). Each is None where its mode does not use it.
    """

    denoise: Mode = Mode.main
    method: str | None = None
    recall: float | None = None

    def __post_init__(self) -> None:
        mode = Mode(self.denoise)
        object.__setattr__(self, "denoise", mode)
        if mode is Mode.site:
            method = self.method or "fingerprint"
            if method not in SITE_METHODS:
                raise ValueError(f"unknown site-level method {method!r}: one of "
                                 f"{', '.join(SITE_METHODS)}")
            object.__setattr__(self, "method", method)
        elif self.method is not None:
            raise ValueError(f"a site-level method is for --denoise site, not {mode.value}")
        if mode is Mode.page:
            recall = PAGE_RECALL if self.recall is None else float(self.recall)
            if not 0 < recall <= 1:
                raise ValueError(f"recall must be in (0, 1], not {recall}")
            object.__setattr__(self, "recall", recall)
        elif self.recall is not None:
            raise ValueError(f"a recall is for --denoise page, not {mode.value}")

    def as_dict(self) -> dict[str, object]:
        return {"denoise": self.denoise.value, "method": self.method, "recall": self.recall}

    @property
    def name(self) -> str:
        """A short name: ``main``, ``page@0.9``, ``site:table-chunk``."""
        if self.denoise is Mode.site:
            return f"site:{self.method}"
        if self.denoise is Mode.page:
            return f"page@{self.recall:g}"
        return self.denoise.value


@dataclass(frozen=True, slots=True)
class Hit:
    """One page found for a query: its rank (from 1), BM25 score and a snippet."""

    query: str
    rank: int
    page: str
    url: str | None
    score: float
    snippet: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class AddReport:
    """What one :meth:`SearchIndex.add` did: pages indexed (of them, ids that replaced
    a page already there), pages skipped (could not be parsed), and pages whose mode
    kept no text (indexed all the same, so that the count adds up and an id search
    finds them)."""

    added: int = 0
    replaced: int = 0
    skipped: int = 0
    empty: int = 0


class SearchIndex:
    """A BM25 index of de-noised pages in a folder: :meth:`create` or :meth:`open` it,
    :meth:`add` pages, :meth:`search`."""

    def __init__(self, path: Path, settings: IndexSettings, manifest: dict[str, Any],
                 index: Any) -> None:
        self.path = path
        self.settings = settings
        self._manifest = manifest
        self._index = index
        self._searcher: Any = None

    # -- opening ------------------------------------------------------------------
    @classmethod
    def create(cls, path: str | os.PathLike[str], settings: IndexSettings | None = None
               ) -> SearchIndex:
        """A new, empty index in folder ``path`` (made if missing; an existing folder
        must be empty)."""
        tantivy = _tantivy()
        folder = Path(path)
        settings = settings or IndexSettings()
        if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
            raise SearchIndexError(f"{folder}: exists and is not an empty folder; give a new "
                                   "folder, or open the index there")
        folder.mkdir(parents=True, exist_ok=True)
        manifest = {"format": INDEX_FORMAT, "library": f"tantivy {_tantivy_version()}",
                    "analyzer": ANALYZER, "settings": settings.as_dict(),
                    "models": _models(settings), "pages": 0}
        try:
            index = tantivy.Index(_schema(tantivy), path=str(folder))
        except (ValueError, OSError) as error:
            raise SearchIndexError(f"{folder}: cannot make an index ({error})") from None
        _write_manifest(folder, manifest)
        return cls(folder, settings, manifest, index)

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> SearchIndex:
        """The index in folder ``path``, its manifest checked."""
        tantivy = _tantivy()
        folder = Path(path)
        manifest_path = folder / MANIFEST
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise SearchIndexError(f"{folder}: not a search index (no {MANIFEST})") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise SearchIndexError(f"{manifest_path}: unreadable ({error})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != INDEX_FORMAT:
            found = manifest.get("format") if isinstance(manifest, dict) else None
            raise SearchIndexError(f"{folder}: index format {found!r}, this version reads "
                                   f"{INDEX_FORMAT}")
        try:
            settings = IndexSettings(**manifest["settings"])
        except (KeyError, TypeError, ValueError) as error:
            raise SearchIndexError(f"{manifest_path}: damaged settings ({error})") from None
        if manifest.get("models") != _models(settings):
            raise SearchIndexError(
                f"{folder}: its pages were read with other models ({manifest.get('models')}) "
                f"than this installation's ({_models(settings)}); index them again")
        try:
            index = tantivy.Index.open(str(folder))
        except (ValueError, OSError) as error:
            raise SearchIndexError(f"{folder}: damaged index ({error})") from None
        return cls(folder, settings, manifest, index)

    @classmethod
    def open_or_create(cls, path: str | os.PathLike[str],
                       settings: IndexSettings | None = None) -> SearchIndex:
        """The index at ``path`` if there is one (its settings must be ``settings``,
        when given), else a new one with ``settings``."""
        if (Path(path) / MANIFEST).exists():
            index = cls.open(path)
            if settings is not None and settings != index.settings:
                raise SearchIndexError(
                    f"{path}: indexed with {index.settings.name}, not {settings.name}; "
                    "leave out the option, or give another folder")
            return index
        return cls.create(path, settings)

    def __len__(self) -> int:
        return int(self._manifest["pages"])

    def __repr__(self) -> str:
        return f"SearchIndex({str(self.path)!r}, {self.settings.name}, {len(self)} pages)"

    # -- adding -------------------------------------------------------------------
    def add(self, pages: Iterable[Page], *,
            on_error: Callable[[PageError], None] | None = None,
            on_page: Callable[[Cleaned], None] | None = None) -> AddReport:
        """De-noise ``pages`` with the index's settings and index what is kept.

        A page that cannot be parsed goes to ``on_error`` (raised without one) and is
        counted as skipped; ``on_page`` sees each page's :class:`Cleaned` as it is
        indexed (progress). Commits at the end and every :data:`COMMIT_PAGES` pages."""
        pages = expect_pages(pages, "SearchIndex.add")
        report = AddReport()

        def skipped(error: PageError) -> None:
            report.skipped += 1
            if on_error is None:
                raise error
            on_error(error)

        with self._writer() as writer, self._site_methods() as methods:
            for cleaned in clean_pages(pages, self.settings.denoise, on_error=skipped,
                                       **self._cleaning(methods)):
                report.replaced += writer.put(cleaned.page, cleaned.text)
                report.added += 1
                report.empty += not cleaned.text.strip()
                if on_page is not None:
                    on_page(cleaned)
                if writer.pending >= COMMIT_PAGES:
                    self._commit(writer, methods)
        self._count_pages()
        return report

    def add_texts(self, items: Iterable[tuple[Page, str]]) -> AddReport:
        """Index texts made elsewhere (one per page; a benchmark's gold text, say) as
        they are, with no de-noising: the caller answers for them matching the
        index's settings."""
        report = AddReport()
        with self._writer() as writer:
            for page, text in items:
                report.replaced += writer.put(page, text)
                report.added += 1
                report.empty += not text.strip()
                if writer.pending >= COMMIT_PAGES:
                    self._commit(writer, None)
        self._count_pages()
        return report

    def _cleaning(self, methods: SiteMethods | None) -> dict[str, Any]:
        if self.settings.denoise is Mode.page:
            return {"detector": _detector(self.settings.recall)}
        return {} if methods is None else {"site_method": methods}

    def _site_methods(self) -> _Context:
        """The site-level methods of mode ``site``, their counts in the index's store
        when they keep counts; none for the other modes."""
        method = self.settings.method
        if self.settings.denoise is not Mode.site or method is None:
            return _Context(None, lambda: None)
        store = self.path / SITE_STORE if method in STORED_SITE_METHODS else None
        methods = SiteMethods(method, store)
        return _Context(methods, methods.close)

    def _writer(self) -> _Writer:
        try:
            writer = self._index.writer(heap_size=_WRITER_HEAP, num_threads=1)
        except ValueError as error:
            raise SearchIndexError(f"{self.path}: cannot write to the index ({error}); is "
                                   "another process adding pages?") from None
        return _Writer(writer, self._searcher_now())

    def _commit(self, writer: _Writer, methods: SiteMethods | None) -> None:
        """Make the pages added so far durable (the site counts first: a page in the
        index always has its counts)."""
        if methods is not None:
            methods.commit()
        writer.commit()
        self._count_pages()

    def _count_pages(self) -> None:
        """The manifest's page count from the index as last committed."""
        self._index.reload()
        self._searcher = None
        self._manifest["pages"] = int(self._searcher_now().num_docs)
        _write_manifest(self.path, self._manifest)

    # -- searching ----------------------------------------------------------------
    def _searcher_now(self) -> Any:
        if self._searcher is None:
            self._searcher = self._index.searcher()
        return self._searcher

    def search(self, query: str, k: int = 10, *, snippets: bool = True) -> list[Hit]:
        """The ``k`` best pages for ``query`` by BM25 (any word matching), best first.
        A query with no words finds nothing."""
        if k < 1:
            raise ValueError(f"k must be at least 1, not {k}")
        words = query_words(query)
        if not words:
            return []
        tantivy = _tantivy()
        searcher = self._searcher_now()
        parsed = self._index.parse_query(" ".join(f'"{word}"' for word in words), ["text"])
        found = searcher.search(parsed, k).hits
        snippet_of = None
        if snippets and found:
            generator = tantivy.SnippetGenerator.create(searcher, parsed, self._index.schema,
                                                        "text")
            generator.set_max_num_chars(SNIPPET_CHARS)
            snippet_of = generator.snippet_from_doc
        hits = []
        for rank, (score, address) in enumerate(found, 1):
            doc = searcher.doc(address)
            snippet = " ".join(snippet_of(doc).fragment().split()) if snippet_of else ""
            url = doc.get_first("url") or None
            hits.append(Hit(query=query, rank=rank, page=doc.get_first("page"), url=url,
                            score=float(score), snippet=snippet))
        return hits

    def search_many(self, queries: Iterable[str], k: int = 10, *,
                    snippets: bool = True) -> Iterable[Hit]:
        """Each query's hits in turn (:meth:`search`)."""
        for query in queries:
            yield from self.search(query, k, snippets=snippets)


@dataclass
class _Context:
    value: Any
    close: Callable[[], None]

    def __enter__(self) -> Any:
        return self.value

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Writer:
    """tantivy's writer, rolled back unless its block ends without error, and with a
    page id looked up before each page goes in (a page already there is replaced)."""

    def __init__(self, writer: Any, searcher: Any) -> None:
        self._writer = writer
        self._searcher = searcher
        self._ids: set[str] = set()  # added by this writer (the searcher predates them)
        self.pending = 0

    def put(self, page: Page, text: str) -> bool:
        """Index ``text`` as ``page``; whether it replaced a page with its id."""
        tantivy = _tantivy()
        replaced = page.id in self._ids or bool(self._searcher.doc_freq("page", page.id))
        if replaced:
            self._writer.delete_documents_by_term("page", page.id)
        self._writer.add_document(tantivy.Document(
            page=page.id, url=page.url or "", site=page.site, text=text))
        self._ids.add(page.id)
        self.pending += 1
        return replaced

    def commit(self) -> None:
        self._writer.commit()
        self.pending = 0

    def __enter__(self) -> _Writer:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if kind is None:
            self._writer.commit()
            self._writer.wait_merging_threads()
        else:
            self._writer.rollback()


def _schema(tantivy: Any) -> Any:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("page", stored=True, tokenizer_name="raw")
    builder.add_text_field("url", stored=True, index_option="basic", tokenizer_name="raw")
    builder.add_text_field("site", stored=True, tokenizer_name="raw")
    builder.add_text_field("text", stored=True, tokenizer_name=ANALYZER)
    return builder.build()


def _write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    with atomic_text(folder / MANIFEST) as stream:
        stream.write(json.dumps(manifest, indent=1) + "\n")


def _models(settings: IndexSettings) -> str | None:
    """The digest of the shipped models the mode reads pages with (the recall is in
    the settings)."""
    return models_digest(settings.denoise)


_DETECTORS: dict[float, TemplateDetector] = {}


def _detector(recall: float | None) -> TemplateDetector:
    """The shipped detector at ``recall``, loaded once a process."""
    assert recall is not None  # noqa: S101 (IndexSettings sets it in mode page)
    if recall not in _DETECTORS:
        _DETECTORS[recall] = TemplateDetector.load().at_recall(recall)
    return _DETECTORS[recall]


def _tantivy() -> Any:
    try:
        import tantivy
    except ImportError:  # a dependency; only a broken installation lacks it
        raise SearchIndexError("search needs tantivy: pip install tantivy") from None
    return tantivy


def _tantivy_version() -> str:
    from importlib.metadata import version

    return version("tantivy")
