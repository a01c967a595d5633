"""What a batch of pages matched: duplicate pairs, spelled out, and clusters.

:meth:`mining.dedup.NearDuplicateIndex.match` verifies pairs between *distinct*
sketches only (copies of one sketch are collapsed to the first); :class:`Matches`
spells the copies back out (:meth:`Matches.pairs`) or joins everything into
connected components (:meth:`Matches.clusters`) without listing every pair of a big
group of copies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from denoise.arrays import sorted_unique
from mining.banding import run_pairs

__all__ = ["Cluster", "Matches", "Pairs", "iter_pairs", "merge_pairs"]


@dataclass(frozen=True, slots=True)
class Pairs:
    """Duplicate pairs: batch row ``a`` with batch row ``b`` (``indexed`` False, a < b) or
    with row ``b`` of the index (``indexed`` True); ``shared`` is the number of matching
    hashes (the paper's rule) or equal signature values (LSH)."""

    a: np.ndarray
    b: np.ndarray
    indexed: np.ndarray
    similarity: np.ndarray
    shared: np.ndarray

    def __len__(self) -> int:
        return len(self.a)


@dataclass(frozen=True, slots=True)
class Cluster:
    """Pages that are duplicates of each other, directly or through other pages."""

    rows: np.ndarray  # rows of the batch, ascending
    indexed: np.ndarray  # rows of the index, ascending
    similarity: float  # the lowest similarity of the pairs that link it

    @property
    def size(self) -> int:
        """How many pages it holds."""
        return len(self.rows) + len(self.indexed)


@dataclass(frozen=True, slots=True)
class Matches:
    """What a batch matched: pairs between distinct sketches, and identical sketches.

    ``representative[i]`` is the first batch row with the same sketch as row i
    (row i itself when none comes before); ``batch`` pairs representatives with
    each other, ``index`` pairs representatives with rows of the index.
    ``identical_shared[i]`` is what ``shared`` is for a pair of copies of row i.
    ``rows``, when given, is the batch row each of these rows stands for (ascending:
    :meth:`of_rows` keeps only the rows that matched something); :meth:`pairs` and
    :meth:`clusters` answer in batch rows.
    """

    representative: np.ndarray
    batch: Pairs
    index: Pairs
    identical_shared: np.ndarray
    index_size: int
    rows: np.ndarray | None = None

    @classmethod
    def of_rows(cls, copies: np.ndarray, firsts: np.ndarray, batch: Pairs, index: Pairs,
                filled: Callable[[np.ndarray], np.ndarray], index_size: int) -> Matches:
        """The matches of a batch held on disk, over the batch rows that matched
        something only (so they cost memory by what was found, not by the batch):
        ``copies`` have the sketch of row ``firsts`` (the first with it), ``batch`` and
        ``index`` pair distinct sketches; ``filled(rows)`` gives ``identical_shared``."""
        rows = sorted_unique(np.concatenate([copies, firsts, batch.a, batch.b, index.a]))
        representative = np.arange(len(rows))
        representative[np.searchsorted(rows, copies)] = np.searchsorted(rows, firsts)
        batch = Pairs(np.searchsorted(rows, batch.a), np.searchsorted(rows, batch.b),
                      batch.indexed, batch.similarity, batch.shared)
        index = Pairs(np.searchsorted(rows, index.a), index.b, index.indexed,
                      index.similarity, index.shared)
        return cls(representative, batch, index, filled(rows), index_size, rows)

    def pairs(self) -> Pairs:
        """Every duplicate pair, the copies of a sketch spelled out, ordered by ``a``,
        then batch pairs before index pairs, then ``b``."""
        members, starts, sizes = self._groups()
        parts = [self._copies(members, starts, sizes),
                 _expand(self.batch, members, starts, sizes, expand_b=True),
                 _expand(self.index, members, starts, sizes, expand_b=False)]
        a, b, indexed, similarity, shared = (np.concatenate(column) for column in zip(
            *((p.a, p.b, p.indexed, p.similarity, p.shared) for p in parts), strict=True))
        order = np.lexsort((b, indexed, a))
        a, b, indexed = a[order], b[order], indexed[order]
        if self.rows is not None:  # ascending: the order stays
            a, b = self.rows[a], b.copy()
            b[~indexed] = self.rows[b[~indexed]]
        return Pairs(a, b, indexed, similarity[order], shared[order])

    def clusters(self) -> list[Cluster]:
        """The connected components of the duplicate pairs, by their first batch row."""
        n = len(self.representative)
        copies = np.flatnonzero(self.representative != np.arange(n))
        left = np.concatenate([copies, self.batch.a, self.index.a])
        right = np.concatenate([self.representative[copies], self.batch.b,
                                n + self.index.b])
        similarity = np.concatenate([np.ones(copies.size), self.batch.similarity,
                                     self.index.similarity])
        nodes = n + self.index_size
        graph = coo_matrix((np.ones(left.size, dtype=np.int8), (left, right)),
                           shape=(nodes, nodes))
        _, labels = connected_components(graph, directed=False)
        lowest = np.ones(labels.max() + 1 if labels.size else 0)
        np.minimum.at(lowest, labels[left], similarity)
        linked = np.zeros(nodes, dtype=bool)
        linked[left] = linked[right] = True
        clusters: dict[int, list[int]] = {}
        for node in np.flatnonzero(linked).tolist():
            clusters.setdefault(int(labels[node]), []).append(node)
        result = []
        for label, group in clusters.items():
            rows = np.array(group)
            batch = rows[rows < n] if self.rows is None else self.rows[rows[rows < n]]
            result.append(Cluster(batch, rows[rows >= n] - n, float(lowest[label])))
        result.sort(key=lambda cluster: int(cluster.rows[0]))
        return result

    def _groups(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Batch rows grouped by representative: members, and each representative's
        start and size in ``members`` (indexed by representative row)."""
        n = len(self.representative)
        members = np.argsort(self.representative, kind="stable")
        sizes = np.bincount(self.representative, minlength=n)
        starts = np.zeros(n, dtype=np.intp)
        np.cumsum(sizes[:-1], out=starts[1:])
        return members, starts, sizes

    def _copies(self, members: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> Pairs:
        """Every pair of batch rows with identical sketches."""
        reps = np.flatnonzero(sizes > 1)
        left, right = run_pairs(starts[reps], sizes[reps])
        a, b = members[left], members[right]
        return Pairs(np.minimum(a, b), np.maximum(a, b), np.zeros(a.size, dtype=bool),
                     np.ones(a.size), self.identical_shared[self.representative[a]])


def _expand(pairs: Pairs, members: np.ndarray, starts: np.ndarray, sizes: np.ndarray,
            *, expand_b: bool) -> Pairs:
    """Representative pairs as pairs of every copy (of ``b`` too when ``expand_b``)."""
    size_a = sizes[pairs.a]
    size_b = sizes[pairs.b] if expand_b else np.ones(len(pairs), dtype=np.intp)
    counts = size_a * size_b
    which = np.repeat(np.arange(len(pairs)), counts)
    t = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    a = members[starts[pairs.a[which]] + t // size_b[which]]
    if expand_b:
        b = members[starts[pairs.b[which]] + t % size_b[which]]
        a, b = np.minimum(a, b), np.maximum(a, b)
    else:
        b = pairs.b[which]
    return Pairs(a, b, pairs.indexed[which], pairs.similarity[which], pairs.shared[which])


def merge_pairs(parts: Sequence[Pairs]) -> Pairs:
    """The pairs of several buckets (a pair sharing keys in two buckets is in both),
    once each, sorted by ``a`` then ``b`` as one join of all the keys sorts them."""
    if not parts:
        raise ValueError("no pairs to merge (not even an empty bucket's)")
    if len(parts) == 1:
        return parts[0]
    columns = [np.concatenate(column) for column in zip(
        *((p.a, p.b, p.indexed, p.similarity, p.shared) for p in parts), strict=True)]
    order = np.lexsort((columns[1], columns[0]))
    a, b = columns[0][order], columns[1][order]
    first = order[np.r_[True, (a[1:] != a[:-1]) | (b[1:] != b[:-1])]] if a.size else order
    return Pairs(*(column[first] for column in columns))


def iter_pairs(pairs: Pairs) -> Iterator[tuple[int, int, bool, float, int]]:
    """The pairs one by one, as Python numbers (for writing them out)."""
    yield from zip(pairs.a.tolist(), pairs.b.tolist(), pairs.indexed.tolist(),
                   pairs.similarity.tolist(), pairs.shared.tolist(), strict=True)
