"""Near-duplicate pages: sketches in an index, verified pairs, clusters, saved and checked.

Two rules decide what a duplicate is:

- ``lsh`` (default): MinHash signatures (``num_perm`` values, datasketch's
  permutations for ``seed``), candidate pairs from LSH banding with the bands and
  rows datasketch's ``MinHashLSH`` picks for ``threshold`` and ``num_perm`` (equal
  weights on false positives and negatives), then **verified**: a pair is reported
  when its estimated Jaccard similarity (the share of equal signature values) is at
  least ``threshold``. Banding alone would also report pairs well below it.
- ``paper``: Chakrabarti et al.'s rule, the 8 smallest distinct shingle hashes of a
  page, duplicates when at least 4 of them match. The paper says nothing of pages
  with fewer than 4 shingles; here a pair needs ``min(4, the larger sketch's size)``
  matches, so identical tiny pages are duplicates and a tiny page is never a
  duplicate of a long one that happens to contain it. The similarity reported is
  Broder's bottom-k estimate of the Jaccard similarity (the share of the 8 smallest
  hashes of the union that are in both), beside the number of matching hashes.

Pages with identical sketches in a batch are collapsed to their first before the
join, so a thousand copies of one page cost one sketch in the join, not half a
million candidate pairs. Clusters are the connected components of the duplicate
pairs (single linkage: two pages of a cluster can be less alike than the pairs that
link them); a cluster's similarity is the lowest of its linking pairs.

``mining dedup`` keeps a batch's sketches and keys on disk instead
(:mod:`mining.sketchfiles`) and matches them one bucket of keys at a time
(:mod:`mining.spill`) through the same join and verification
(:meth:`NearDuplicateIndex.pairs_of_keys`), so its memory does not grow with the batch.

An index saves the sketches and page ids with every parameter that shapes them
(:meth:`DedupConfig.parameters`), and refuses, naming the file, to be compared with
sketches made otherwise.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from enum import StrEnum

import numpy as np
from datasketch import MinHashLSH

from denoise.arrayfile import ModelError, read_arrays, write_arrays
from denoise.cleaning import DEFAULT_MODE, Mode, models_used
from mining.banding import (
    KeyTable,
    band_keys,
    equal_runs,
    flatten_keys,
    join_rows,
    subset_keys,
    whole_keys,
)
from mining.matches import Matches, Pairs
from mining.minhash import DEFAULT_NUM_PERM, DEFAULT_SEED, EMPTY, SCHEME, MinHasher, bottom_k
from mining.shingles import DEFAULT_SHINGLE, SHINGLE_HASH, TOKENS

__all__ = ["DEFAULT_THRESHOLD", "DedupConfig", "NearDuplicateIndex", "Rule", "identical_copies"]

KIND = "near-duplicate index"
FORMAT_VERSION = 1
DEFAULT_THRESHOLD = 0.8
PAPER_KEEP = 8
PAPER_MATCHES = 4
#: Most subset keys a page may have under the paper's rule (C(keep, matches); 70 for the
#: paper's 4 of 8): the join holds that many keys per page.
MAX_SUBSET_KEYS = 4096
_VERIFY_CHUNK = 1 << 15
#: Sketches keyed or compared at a time.
_ROWS_AT_ONCE = 1 << 14
_REBUILD = "make a new one with 'mining dedup ... --save-index'"


class Rule(StrEnum):
    """What makes two pages duplicates, by command-line name."""

    lsh = "lsh"
    paper = "paper"


@functools.cache
def _lsh_params(threshold: float, num_perm: int) -> tuple[int, int]:
    """The (bands, rows) datasketch's MinHashLSH picks for ``threshold`` and ``num_perm``."""
    try:
        lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    except ValueError as error:
        raise ValueError(f"threshold {threshold} with {num_perm} permutations: {error} "
                         "(use a lower threshold or more permutations)") from None
    return lsh.b, lsh.r


@dataclass(frozen=True, slots=True, kw_only=True)
class DedupConfig:
    """Every choice that shapes a sketch or a verdict.

    ``threshold``, ``num_perm``, ``seed``, ``bands`` and ``rows`` belong to the ``lsh``
    rule, ``keep`` and ``matches`` to the ``paper`` rule. ``bands`` and ``rows``
    default to what ``MinHashLSH`` picks for the threshold.

    The defaults are the best configuration ``benchmarks/dedup.py`` measures on sites no
    model saw (held-out models): the paper's rule over the main content found 97.0% of
    the articles copied across sites and kept 100% of the distinct pairs apart, where
    LSH at 0.8 over the main content found 87.3%, and over the whole text 5.7%.
    """

    shingle: int = DEFAULT_SHINGLE
    rule: Rule = Rule.paper
    denoise: Mode = DEFAULT_MODE
    threshold: float = DEFAULT_THRESHOLD
    num_perm: int = DEFAULT_NUM_PERM
    seed: int = DEFAULT_SEED
    bands: int | None = None
    rows: int | None = None
    keep: int = PAPER_KEEP
    matches: int = PAPER_MATCHES

    def __post_init__(self) -> None:
        object.__setattr__(self, "rule", Rule(self.rule))
        object.__setattr__(self, "denoise", Mode(self.denoise))
        for name in ("shingle", "num_perm", "seed", "bands", "rows", "keep", "matches"):
            value = getattr(self, name)
            if (value is not None or name not in ("bands", "rows")) and (
                    not isinstance(value, int) or isinstance(value, bool)):
                raise ValueError(f"{name} must be a whole number, not {value!r}")
        if not isinstance(self.threshold, int | float) or isinstance(self.threshold, bool):
            raise ValueError(f"threshold must be a number, not {self.threshold!r}")
        if self.shingle < 1:
            raise ValueError(f"a shingle needs at least one word, not {self.shingle}")
        if self.rule is Rule.paper:
            if not 1 <= self.matches <= self.keep:
                raise ValueError(f"matches must be in 1..keep ({self.keep}), not {self.matches}")
            if math.comb(self.keep, self.matches) > MAX_SUBSET_KEYS:
                raise ValueError(f"{self.matches} of {self.keep} hashes make "
                                 f"{math.comb(self.keep, self.matches)} keys a page, more "
                                 f"than {MAX_SUBSET_KEYS}")
            return
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], not {self.threshold}")
        if self.num_perm < 2:
            raise ValueError(f"num_perm must be at least 2, not {self.num_perm}")
        if not 0 <= self.seed < 2**32:  # what datasketch's numpy generator accepts
            raise ValueError(f"seed must be in 0..{2**32 - 1}, not {self.seed}")
        if (self.bands is None) != (self.rows is None):
            raise ValueError("give both bands and rows, or neither")
        if self.bands is None:
            bands, rows = _lsh_params(self.threshold, self.num_perm)
            object.__setattr__(self, "bands", bands)
            object.__setattr__(self, "rows", rows)
        elif self.bands < 1 or self.rows < 1 or self.bands * self.rows > self.num_perm:
            raise ValueError(f"{self.bands} bands of {self.rows} rows do not fit "
                             f"{self.num_perm} permutations")

    def parameters(self) -> dict[str, object]:
        """What an index must have been made with to be compared with this config."""
        common: dict[str, object] = {
            "rule": str(self.rule), "shingle": self.shingle, "denoise": str(self.denoise),
            "denoise_models": models_used(self.denoise),
            "tokens": TOKENS, "shingle_hash": SHINGLE_HASH,
        }
        if self.rule is Rule.paper:
            return {**common, "keep": self.keep, "matches": self.matches}
        return {**common, "threshold": self.threshold, "num_perm": self.num_perm,
                "seed": self.seed, "bands": self.bands, "rows": self.rows, "scheme": SCHEME}

    def describe(self) -> str:
        """The parameters in a few words, for a summary line."""
        if self.rule is Rule.paper:
            rule = f"paper rule: {self.matches} of the {self.keep} smallest hashes"
        else:
            rule = (f"threshold {self.threshold}, {self.num_perm} permutations, "
                    f"{self.bands} bands x {self.rows} rows")
        return f"{self.shingle}-word shingles, denoise {self.denoise}, {rule}"

    @classmethod
    def from_parameters(cls, parameters: object, source: str) -> DedupConfig:
        """The config a saved index's parameters describe (``ModelError`` naming ``source``
        when they are incomplete, invalid or made by another tokenization or hash)."""
        if not isinstance(parameters, dict):
            raise ModelError(source, f"not a complete {KIND} (no parameters)")
        try:
            models = models_used(parameters.get("denoise", Mode.none))
        except ValueError:
            raise ModelError(source, f"invalid parameters (denoise "
                             f"{parameters.get('denoise')!r})") from None
        for name, current in (("tokens", TOKENS), ("shingle_hash", SHINGLE_HASH),
                              ("denoise_models", models)):
            if parameters.get(name) != current:
                raise ModelError(source, f"made with {name} {parameters.get(name)!r}; this "
                                 f"version uses {current!r}: {_REBUILD}")
        if parameters.get("rule") == Rule.lsh and parameters.get("scheme") != SCHEME:
            raise ModelError(source, f"made with MinHash scheme {parameters.get('scheme')!r}; "
                             f"this version uses {SCHEME!r}: {_REBUILD}")
        known = {f.name for f in fields(cls)}
        given = {k: v for k, v in parameters.items() if k in known}
        try:
            config = cls(**given)
        except (TypeError, ValueError) as error:
            raise ModelError(source, f"invalid parameters ({error})") from None
        missing = set(config.parameters()) - set(parameters)
        if missing:
            raise ModelError(source, f"not a complete {KIND} (no {', '.join(sorted(missing))})")
        return config


class NearDuplicateIndex:
    """Page ids and their sketches under one :class:`DedupConfig`; matches new batches.

    A batch is sketched (:meth:`sketch`), matched against itself and the index
    (:meth:`match`), and added when it should be remembered (:meth:`add`).
    """

    def __init__(self, config: DedupConfig) -> None:
        self.config = config
        self._ids: list[str] = []
        self._parts: list[np.ndarray] = []
        self._table: KeyTable | None = None
        self._hasher = MinHasher(config.num_perm, config.seed) \
            if config.rule is Rule.lsh else None

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def ids(self) -> list[str]:
        """The indexed pages' ids, by row."""
        return self._ids

    @property
    def width(self) -> int:
        """Values in a sketch."""
        return self.config.num_perm if self._hasher is not None else self.config.keep

    @property
    def dtype(self) -> type[np.unsignedinteger]:
        """The sketches' value type: uint32 MinHash values, uint64 shingle hashes."""
        return np.uint32 if self._hasher is not None else np.uint64

    @property
    def sketches(self) -> np.ndarray:
        """All sketches, one row a page."""
        if len(self._parts) != 1:
            joined = np.concatenate(self._parts) if self._parts else \
                np.empty((0, self.width), dtype=self.dtype)
            self._parts = [joined]
        return self._parts[0]

    @property
    def nbytes(self) -> int:
        """Memory held by the sketches and the sorted key table (page ids aside)."""
        table = self._table.nbytes if self._table is not None else 0
        return int(self.sketches.nbytes) + table

    def sketch(self, shingle_sets: Sequence[np.ndarray]) -> np.ndarray:
        """The sketches of pages' shingle hashes (each page at least one shingle)."""
        if self._hasher is not None:
            return self._hasher.signatures(shingle_sets)
        if any(len(s) == 0 for s in shingle_sets):
            raise ValueError("a page without shingles has no sketch")
        return bottom_k(shingle_sets, self.config.keep)[0]

    def add(self, ids: Sequence[str], sketches: np.ndarray) -> None:
        """Remember pages: their ids and sketches, row for row."""
        self._check_sketches(sketches, len(ids))
        self._ids.extend(ids)
        self._parts.append(sketches)
        self._table = None

    def match(self, sketches: np.ndarray) -> Matches:
        """The duplicate pairs of a batch: within it and against the index."""
        self._check_sketches(sketches)
        n = len(sketches)
        representative = self._representatives(sketches)
        reps = np.flatnonzero(representative == np.arange(n))
        keys, rows = flatten_keys(*self._keys_of(sketches, reps), reps)
        batch, index = self.pairs_of_keys(keys, rows, sketches)
        return Matches(representative, batch, index, self.filled(sketches), len(self))

    def pairs_of_keys(self, keys: np.ndarray, rows: np.ndarray, sketches: np.ndarray
                      ) -> tuple[Pairs, Pairs]:
        """The verified pairs among the batch rows of flat (key, row) entries (all of a
        batch's, or one bucket of them: :mod:`mining.spill`), and between them and the
        index. ``sketches`` holds the batch's sketches by row (an array or a memmap)."""
        a, b = join_rows(keys, rows)
        batch = self.verified(a, b, sketches, sketches, indexed=False)
        if len(self):
            if self._table is None:
                self._table = KeyTable(*self._keys_of(self.sketches, np.arange(len(self))))
            a, b = self._table.join_rows(keys, rows)
            return batch, self.verified(a, b, sketches, self.sketches, indexed=True)
        none = np.empty(0, dtype=np.int64)
        return batch, self.verified(none, none, sketches, sketches, indexed=True)

    def filled(self, sketches: np.ndarray) -> np.ndarray:
        """What ``shared`` is for a pair of copies of each sketch: every MinHash value,
        or the bottom-k sketch's real hashes."""
        if self._hasher is not None:
            return np.full(len(sketches), self.config.num_perm)
        return (sketches != EMPTY).sum(axis=1)

    def _check_sketches(self, sketches: np.ndarray, rows: int | None = None) -> None:
        if sketches.ndim != 2 or sketches.shape[1] != self.width or sketches.dtype != self.dtype:
            raise ValueError(f"sketches must be a (pages, {self.width}) "
                             f"{np.dtype(self.dtype).name} array, not {sketches.shape} "
                             f"{sketches.dtype}")
        if rows is not None and len(sketches) != rows:
            raise ValueError(f"{rows} ids for {len(sketches)} sketches")

    @staticmethod
    def _representatives(sketches: np.ndarray) -> np.ndarray:
        """Each row's first row with an identical sketch."""
        representative = np.arange(len(sketches))
        found = identical_copies(whole_keys(sketches), representative, sketches)
        if found is not None:
            representative[found[0]] = found[1]
        return representative

    def _keys_of(self, sketches: np.ndarray, rows: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray | None]:
        """The keys of ``sketches[rows]``, made :data:`_ROWS_AT_ONCE` rows at a time (a
        crawl's sketches are not copied whole, nor their keys' temporaries)."""
        if len(rows) <= _ROWS_AT_ONCE:
            return self.join_keys(sketches[rows])
        parts = [self.join_keys(sketches[rows[low:low + _ROWS_AT_ONCE]])
                 for low in range(0, len(rows), _ROWS_AT_ONCE)]
        keys = np.concatenate([k for k, _ in parts])
        valid = None if parts[0][1] is None else np.concatenate([v for _, v in parts])
        return keys, valid

    def join_keys(self, sketches: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The keys two sketches must share to be compared: their LSH band keys, or
        (paper rule) their subset keys and whole key, with which are real (None: all)."""
        if self._hasher is not None:
            return band_keys(sketches, self.config.bands, self.config.rows), None
        keys, valid = subset_keys(sketches, self.config.matches)
        # identical sketches too small for a subset of `matches` meet on the whole key
        keys = np.column_stack([keys, whole_keys(sketches)])
        valid = np.column_stack([valid, np.ones(len(sketches), dtype=bool)])
        return keys, valid

    def verified(self, a: np.ndarray, b: np.ndarray, left: np.ndarray, right: np.ndarray,
                 *, indexed: bool) -> Pairs:
        """The candidate pairs (rows of ``left``, rows of ``right``) the rule accepts."""
        keep_parts, similarity_parts, shared_parts = [], [], []
        for low in range(0, max(len(a), 1), _VERIFY_CHUNK):
            x, y = left[a[low:low + _VERIFY_CHUNK]], right[b[low:low + _VERIFY_CHUNK]]
            if self._hasher is not None:
                shared = (x == y).sum(axis=1)
                similarity = shared / self.config.num_perm
                keep = shared >= self.config.threshold * self.config.num_perm - 1e-9
            else:
                shared, similarity, needed = _bottom_k_match(x, y, self.config.matches)
                keep = shared >= needed
            keep_parts.append(keep)
            similarity_parts.append(similarity)
            shared_parts.append(shared)
        keep = np.concatenate(keep_parts)
        return Pairs(a[keep], b[keep], np.full(int(keep.sum()), indexed),
                     np.concatenate(similarity_parts)[keep], np.concatenate(shared_parts)[keep])

    # --- saving and loading ------------------------------------------------------------

    def save(self, path: str | os.PathLike[str], extra: Mapping[str, object] | None = None
             ) -> None:
        """Write the index (atomically) with its parameters; ``extra`` goes in the header."""
        encoded = [page_id.encode("utf-8", errors="surrogatepass") for page_id in self._ids]
        ends = np.cumsum([len(e) for e in encoded], dtype=np.int64)
        header = {"kind": KIND, "format_version": FORMAT_VERSION,
                  "parameters": self.config.parameters(), "pages": len(self), **(extra or {})}
        write_arrays(path, header, {
            "sketches": self.sketches,
            "id_bytes": np.frombuffer(b"".join(encoded), dtype=np.uint8),
            "id_ends": ends.reshape(-1),
        })

    @classmethod
    def load(cls, path: str | os.PathLike[str],
             expect: Mapping[str, object] | None = None) -> NearDuplicateIndex:
        """A saved index; ``ModelError`` naming the file when it is not a usable index, or
        when ``expect`` (parameter name -> value) asks for other parameters than it has."""
        source = str(path)
        header, arrays = read_arrays(path, KIND, FORMAT_VERSION, what=KIND, rebuild=_REBUILD)
        config = DedupConfig.from_parameters(header.get("parameters"), source)
        pages = header.get("pages")
        try:
            sketches, id_bytes, id_ends = (arrays[name] for name in
                                           ("sketches", "id_bytes", "id_ends"))
        except KeyError as error:
            raise ModelError(source, f"not a complete {KIND} (no {error.args[0]})") from None
        # the sketches' width before the MinHash permutations (num_perm of them) are made
        width = config.num_perm if config.rule is Rule.lsh else config.keep
        if sketches.ndim != 2 or sketches.shape[1] != width:
            raise ModelError(source, f"damaged {KIND} (sketches of shape {sketches.shape}, "
                             f"not (pages, {width}))")
        index = cls(config)
        if not isinstance(pages, int) or id_ends.shape != (pages,) or \
                id_ends.dtype.kind not in "iu" or id_bytes.dtype != np.uint8 or \
                id_bytes.ndim != 1:
            raise ModelError(source, f"damaged {KIND} (page ids do not match the page count)")
        try:
            index._check_sketches(sketches, pages)
        except ValueError as error:
            raise ModelError(source, f"damaged {KIND} ({error})") from None
        starts = np.r_[0, id_ends[:-1]] if pages else id_ends
        if pages and (np.any(id_ends < starts) or int(starts[0]) < 0
                      or int(id_ends[-1]) != id_bytes.size):
            raise ModelError(source, f"damaged {KIND} (page id offsets out of order)")
        if index._hasher is not None and np.any(np.all(sketches == np.iinfo(np.uint32).max,
                                                       axis=1)):
            raise ModelError(source, f"damaged {KIND} (a signature of an empty page)")
        if index._hasher is None and pages and (np.any(np.diff(sketches, axis=1) < 0)
                                                or np.any(sketches[:, 0] == EMPTY)):
            raise ModelError(source, f"damaged {KIND} (sketches not ascending or empty)")
        blob = id_bytes.tobytes()
        try:
            ids = [blob[s:e].decode("utf-8", errors="surrogatepass")
                   for s, e in zip(starts.tolist(), id_ends.tolist(), strict=True)]
        except UnicodeDecodeError:
            raise ModelError(source, f"damaged {KIND} (page ids are not UTF-8)") from None
        index.add(ids, sketches)
        if expect is not None:
            index.check(expect, source)
        return index

    def check(self, expect: Mapping[str, object], source: str) -> None:
        """Refuse (``ModelError`` naming ``source``) when ``expect`` asks for parameter
        values the index was not made with."""
        have = self.config.parameters()
        wrong = []
        for name, value in expect.items():
            if name not in have:
                wrong.append(f"its rule ({have['rule']}) has no {name}")
            elif str(have[name]) != str(value) and have[name] != value:
                wrong.append(f"{name} {have[name]}, not {value}")
        if wrong:
            raise ModelError(source, f"made with other parameters: {'; '.join(wrong)} "
                             "(compare like with like: use the index's parameters, or "
                             "build a new one)")


def identical_copies(keys: np.ndarray, rows: np.ndarray, sketches: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray] | None:
    """Rows whose sketch is an earlier row's (by their :func:`whole_keys`, all of a
    batch's or one bucket of them), and that first row; None when a 64-bit key collision
    joins different sketches (then nothing is collapsed: the join still finds them)."""
    later, first = equal_runs(keys, rows)
    for low in range(0, len(later), _ROWS_AT_ONCE):  # no copy of them all
        part = slice(low, low + _ROWS_AT_ONCE)
        if not np.array_equal(sketches[later[part]], sketches[first[part]]):
            return None
    return later, first


def _bottom_k_match(x: np.ndarray, y: np.ndarray, matches: int) -> tuple[np.ndarray,
                                                                        np.ndarray,
                                                                        np.ndarray]:
    """Matching hashes of bottom-k sketch pairs, Broder's Jaccard estimate, and the
    matches each pair needs: ``min(matches, larger sketch size)``."""
    k = x.shape[1]
    real_x, real_y = x != EMPTY, y != EMPTY
    equal = (x[:, :, None] == y[:, None, :]) & real_x[:, :, None]
    in_y = equal.any(axis=2)  # x's values that y has
    in_x = equal.any(axis=1)  # y's values that x has
    shared = in_y.sum(axis=1)
    # the k smallest of the union, and which of them both sketches hold
    union = np.sort(np.concatenate([x, np.where(in_x, EMPTY, y)], axis=1), axis=1)[:, :k]
    both = np.where(in_y, x, EMPTY)
    union_in_both = (union[:, :, None] == both[:, None, :]).any(axis=2) & (union != EMPTY)
    size = np.maximum((union != EMPTY).sum(axis=1), 1)
    needed = np.minimum(matches, np.maximum(real_x.sum(axis=1), real_y.sum(axis=1)))
    return shared, union_in_both.sum(axis=1) / size, needed
