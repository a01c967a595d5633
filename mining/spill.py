"""The matches of a batch held on disk (:class:`~mining.sketchfiles.SketchFiles`), one
bucket of keys in memory at a time.

The same steps as :meth:`NearDuplicateIndex.match`, by bucket: copies of a sketch are
found from the whole keys' buckets and collapsed to their first row (nothing is
collapsed when a 64-bit key collision joins different sketches, as in memory); then
each bucket of band (or subset) keys, copies left out, goes through the index's own
join and verification (:meth:`NearDuplicateIndex.pairs_of_keys`) against a memmap of
the sketches. A pair sharing keys in several buckets is found in each and kept once,
so the pairs are those of one join of every key, in the same order.
"""

from __future__ import annotations

import numpy as np

from mining.dedup import NearDuplicateIndex, identical_copies
from mining.matches import Matches, Pairs, merge_pairs
from mining.sketchfiles import SketchFiles

__all__ = ["match_files", "sketch_files"]


def sketch_files(index: NearDuplicateIndex) -> SketchFiles:
    """Empty sketch files for pages to be matched with ``index`` (its sketches, its keys)."""
    return SketchFiles(index.width, index.dtype, index.join_keys)


def match_files(index: NearDuplicateIndex, files: SketchFiles) -> Matches:
    """The duplicate pairs of the pages in ``files``: among them and against ``index``."""
    copies, firsts = _copies(files)
    batch: list[Pairs] = []
    indexed: list[Pairs] = []
    for keys, rows in files.bands.buckets():
        if copies.size:
            kept = ~np.isin(rows, copies)
            keys, rows = keys[kept], rows[kept]
        found = index.pairs_of_keys(keys, rows, files.sketches())
        batch.append(found[0])
        indexed.append(found[1])
    return Matches.of_rows(copies, firsts, merge_pairs(batch), merge_pairs(indexed),
                           lambda rows: index.filled(files.sketches()[rows]), len(index))


def _copies(files: SketchFiles) -> tuple[np.ndarray, np.ndarray]:
    """Rows whose sketch an earlier row has, and that first row."""
    copies, firsts = [np.empty(0, dtype=np.int64)], [np.empty(0, dtype=np.int64)]
    for keys, rows in files.wholes.buckets():
        found = identical_copies(keys, rows, files.sketches())
        if found is None:  # a key collision: collapse nothing, as in memory
            return copies[0], firsts[0]
        copies.append(found[0])
        firsts.append(found[1])
    return np.concatenate(copies), np.concatenate(firsts)
