"""Document-frequency counts of block digests for one site, in memory or in SQLite.

The counting methods only need, per site, how many pages were seen and on how
many of them each digest occurs. :class:`MemoryCounts` keeps that for one run;
:class:`SiteStore` keeps it in an SQLite file so a site's statistics accumulate
across runs, and a new page of a known site is labelled at once. A page is
counted once per store, however often it is fed in (it is keyed by its id).
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from itertools import repeat
from pathlib import Path
from typing import Protocol

import numpy as np

from denoise.arrays import sorted_unique
from denoise.errors import StoreError

STORE_FORMAT = 1
_LOOKUP_BATCH = 500


class DigestCounts(Protocol):
    """Per-site page and digest counts, separate for each ``kind`` of digest."""

    def add(self, page_key: str, keys: np.ndarray, kind: str = "text") -> bool:
        """Count the distinct ``keys`` of one page; False if that page was counted before."""
        ...

    def pages(self, kind: str = "text") -> int:
        """How many pages were counted."""
        ...

    def counted(self, page_key: str, kind: str = "text") -> bool:
        """Whether the page was counted."""
        ...

    def lookup(self, keys: np.ndarray, kind: str = "text") -> np.ndarray:
        """How many counted pages hold each key (int64, aligned with ``keys``)."""
        ...


class MemoryCounts:
    """:class:`DigestCounts` in a dictionary, for one run."""

    def __init__(self) -> None:
        self._counts: dict[str, Counter[int]] = {}
        self._seen: dict[str, set[str]] = {}

    def add(self, page_key: str, keys: np.ndarray, kind: str = "text") -> bool:
        seen = self._seen.setdefault(kind, set())
        if page_key in seen:
            return False
        seen.add(page_key)
        self._counts.setdefault(kind, Counter()).update(sorted_unique(keys).tolist())
        return True

    def pages(self, kind: str = "text") -> int:
        return len(self._seen.get(kind, ()))

    def counted(self, page_key: str, kind: str = "text") -> bool:
        return page_key in self._seen.get(kind, ())

    def lookup(self, keys: np.ndarray, kind: str = "text") -> np.ndarray:
        get = self._counts.get(kind, Counter()).get
        return np.fromiter(map(get, keys.tolist(), repeat(0)), dtype=np.int64, count=len(keys))


class SiteStore:
    """An SQLite file of digest counts for many sites, made for one method's settings.

    ``settings`` (the method and whatever changes its digests) are written on
    creation and checked on every later open: counts made with other settings
    would silently give wrong labels.
    """

    def __init__(self, path: str | Path, settings: dict[str, object]) -> None:
        self.path = Path(path)
        try:
            self._db = sqlite3.connect(self.path)
            self._db.executescript(
                """
                CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS seen (
                    site TEXT, kind TEXT, page TEXT, PRIMARY KEY (site, kind, page)
                ) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS df (
                    site TEXT, kind TEXT, digest INTEGER, n INTEGER NOT NULL,
                    PRIMARY KEY (site, kind, digest)
                ) WITHOUT ROWID;
                """
            )
            rows = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path}: not a fingerprint store ({error})") from None
        wanted = {"format": str(STORE_FORMAT), "settings": json.dumps(settings, sort_keys=True)}
        if not rows:
            self._db.executemany("INSERT INTO meta VALUES (?, ?)", wanted.items())
            self._db.commit()
        elif rows.get("format") != wanted["format"]:
            raise StoreError(
                f"{self.path}: store format {rows.get('format')!r}, this version reads "
                f"{STORE_FORMAT}"
            )
        elif rows.get("settings") != wanted["settings"]:
            raise StoreError(
                f"{self.path}: made with settings {rows.get('settings')}, "
                f"not the current {wanted['settings']}; use another --db file"
            )

    def counts(self, site: str) -> SiteCounts:
        """The counts of one site."""
        return SiteCounts(self._db, site)

    def sites(self) -> list[str]:
        """The sites with counts in the store."""
        return [row[0] for row in self._db.execute("SELECT DISTINCT site FROM seen ORDER BY site")]

    def commit(self) -> None:
        """Make the counts added so far durable."""
        try:
            self._db.commit()
        except sqlite3.Error as error:  # locked by another process, disk full
            raise StoreError(f"{self.path}: cannot save the counts ({error})") from None

    def close(self) -> None:
        """Commit and close the file."""
        self._db.commit()
        self._db.close()

    def __enter__(self) -> SiteStore:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if kind is not None:  # a run that failed midway leaves the store as it was
            self._db.rollback()
        self.close()


class SiteCounts:
    """:class:`DigestCounts` of one site, read from and written to a :class:`SiteStore`."""

    def __init__(self, db: sqlite3.Connection, site: str) -> None:
        self._db = db
        self._site = site

    def add(self, page_key: str, keys: np.ndarray, kind: str = "text") -> bool:
        inserted = self._db.execute(
            "INSERT OR IGNORE INTO seen VALUES (?, ?, ?)", (self._site, kind, page_key)
        ).rowcount
        if not inserted:
            return False
        self._db.executemany(
            "INSERT INTO df VALUES (?, ?, ?, 1) "
            "ON CONFLICT (site, kind, digest) DO UPDATE SET n = n + 1",
            ((self._site, kind, key) for key in sorted_unique(keys).tolist()),
        )
        return True

    def pages(self, kind: str = "text") -> int:
        row = self._db.execute(
            "SELECT COUNT(*) FROM seen WHERE site = ? AND kind = ?", (self._site, kind)
        ).fetchone()
        return int(row[0])

    def counted(self, page_key: str, kind: str = "text") -> bool:
        return self._db.execute(
            "SELECT 1 FROM seen WHERE site = ? AND kind = ? AND page = ?",
            (self._site, kind, page_key),
        ).fetchone() is not None

    def lookup(self, keys: np.ndarray, kind: str = "text") -> np.ndarray:
        wanted = sorted_unique(keys).tolist()
        found: dict[int, int] = {}
        for start in range(0, len(wanted), _LOOKUP_BATCH):
            batch = wanted[start:start + _LOOKUP_BATCH]
            marks = ",".join("?" * len(batch))
            found.update(self._db.execute(
                f"SELECT digest, n FROM df WHERE site = ? AND kind = ? AND digest IN ({marks})",
                (self._site, kind, *batch),
            ).fetchall())
        return np.fromiter((found.get(k, 0) for k in keys.tolist()), dtype=np.int64,
                           count=len(keys))
