"""Regularized tree isotonic regression: smooth per-node templateness scores over a DOM tree.

Chakrabarti, Kumar & Punera 2007, "Page-level template detection via isotonic
smoothing", section 4 (the problem, Lemma 3, algorithms BUILDERROR and ISOTONESMOOTH)
and section 5.3 (penalties from areas, folding of hidden tiny nodes into weights).

Given scores ``x`` and a tree, find ``y`` with ``y[parent] <= y[child]`` (the paper's
constraint (1): a node is no more template than its least-template child) minimising::

    sum_i weights[i] * |x[i] - y[i]|  +  sum over non-root i with y[i] != y[parent[i]] of gamma[i]

A maximal connected run of equal ``y`` is a *section*; each section but the one at a
root pays its top node's penalty (a root's penalty is a constant, so it is ignored).

Choices, and why:

- **L1 distance**, as the paper: robust to a classifier's outlying scores.
- **Candidate values** are the distinct scores (Lemma 3: an optimal section value is a
  weighted median of its scores, so it is one of them). The dynamic program is exact.
- **levels=L** first rounds every score to the grid ``k/L``; this is the one
  approximation. The exact candidate set grows with the page (m ~ n distinct classifier
  outputs), making the program O(n^2) time; on the grid m <= L + 1, so it is O(n L).
  Rounding moves a score by at most 1/(2L), so the result is optimal for the rounded
  scores and within ``sum(weights) / L`` of the exact optimum's cost.
- **Forests**: every root is solved on its own (its section pays nothing; no constraint
  crosses trees). One candidate set serves all trees, a superset of each tree's own.
- **Memory**: backtracking keeps two bits per node and candidate (whether the node
  continues its parent's value there; whether that value is a suffix minimum), i.e.
  ``n * ceil(m / 64) * 16`` bytes, refused above :data:`MAX_TABLE_BYTES` (ValueError:
  pass ``levels``). Children are summed heavy child first, so at most
  ``floor(log2 n) + 1`` rows of ``m`` doubles of partial errors are live at once.

The program runs compiled (``denoise._isotonic``) where the extension was built; the
Python version here runs the same steps in the same order and gives the same output.
"""

from __future__ import annotations

import math
import operator

import numpy as np

try:
    from denoise import _isotonic
except ImportError:  # the compiled extension is optional
    _isotonic = None

#: Which kernel this installation runs: "compiled" or "python".
KERNEL = "compiled" if _isotonic is not None else "python"

#: The largest backtracking table (bytes) :func:`isotonic_smooth` allocates: 256 MiB,
#: e.g. 32,768 nodes with as many distinct scores. Beyond it, pass ``levels``.
MAX_TABLE_BYTES = 1 << 28

#: A zero area counts as this share of the page's in :func:`area_penalties`.
MIN_AREA_SHARE = 1e-6


def isotonic_smooth(
    scores: np.ndarray,
    parents: np.ndarray,
    *,
    weights: np.ndarray | None = None,
    penalties: np.ndarray | float | None = None,
    levels: int | None = None,
    compiled: bool | None = None,
) -> np.ndarray:
    """Smoothed scores (float64), one per node, under ``y[parent] <= y[child]``.

    Args:
        scores: per node, the classifier's templateness, finite (in [0, 1] with ``levels``).
        parents: per node, its parent's index, -1 for a root; ``parents[i] < i``
            (preorder). Several roots make a forest, each tree solved on its own.
        weights: per node L1 weight, >= 0 (default 1). A node standing for itself and
            ``k`` hidden tiny children (section 5.3) weighs ``k + 1``.
        penalties: gamma per node (array) or for all (scalar), >= 0: the cost of the
            node starting a section of its own. Default 0: plain L1 tree isotonic
            regression. :func:`area_penalties` gives the paper's choice.
        levels: round scores to the grid ``k / levels`` first (module docstring): O(n
            levels) time instead of O(n m) with m distinct scores.
        compiled: force the compiled (True) or Python (False) kernel; default the
            compiled one where it was built. Both give the same output.

    Raises:
        ValueError: on malformed input (naming it), or when the backtracking table
            would exceed :data:`MAX_TABLE_BYTES`.
    """
    x = _as_vector(scores, "scores")
    n = len(x)
    parent_of = _as_parents(parents, n)
    w = _per_node(weights, n, "weights", 1.0)
    gamma = _per_node(penalties, n, "penalties", 0.0)
    if levels is not None:
        grid = _as_levels(levels)
        if n and (x.min() < 0.0 or x.max() > 1.0):
            raise ValueError("scores must lie in [0, 1] when levels is given, found "
                             f"{x.min():g} .. {x.max():g}")
        x = np.rint(x * grid) / grid
    if n == 0:
        return np.empty(0, dtype=np.float64)
    values = np.unique(x)
    table = 2 * n * (-(-len(values) // 64)) * 8
    if table > MAX_TABLE_BYTES:
        raise ValueError(
            f"{n} nodes x {len(values)} distinct scores need a {table >> 20} MiB backtracking "
            f"table, over the {MAX_TABLE_BYTES >> 20} MiB bound; pass levels (e.g. 100) to "
            "round the scores to a grid")
    use_compiled = _isotonic is not None if compiled is None else compiled
    if use_compiled and _isotonic is None:
        raise RuntimeError("the compiled kernel (denoise._isotonic) is not built here")
    kernel = _isotonic.smooth_indices if use_compiled else smooth_indices_python
    return values[kernel(parent_of, x, w, gamma, values)]


def smooth_page(scores: np.ndarray, parents: np.ndarray, weights: np.ndarray,
                areas: np.ndarray, c: float, levels: int) -> np.ndarray:
    """``isotonic_smooth(scores, parents, weights=weights, penalties=area_penalties(areas,
    c, parents=parents), levels=levels)``, the same output (``tests/denoise/test_smooth.py``
    compares them), for a page's tree of scored blocks as
    :func:`denoise.features.page_features` makes it: int32 parents in preorder, weights
    of at least 1, finite areas of at least 0.

    The checked functions convert and check every input again, which on a page of ~100
    blocks took as long as the compiled program. Here the types and lengths are checked
    in Python, and one compiled pass (:func:`denoise._isotonic.page_grid`) checks what
    the program must trust (parents before children, weights and areas of at least 0,
    scores in [0, 1]) as it rounds the scores to the grid, finds the values that occur
    and the penalties; a page that fails a check goes to the checked functions, and
    their errors.
    """
    x = np.asarray(scores, dtype=np.float64)
    n = len(x)
    prepared = None
    if (_isotonic is not None and n and _page_arrays(parents, weights, areas, n)
            and math.isfinite(c)):
        page = float(areas[parents < 0].sum())  # numpy's summation, as area_penalties'
        prepared = _isotonic.page_grid(np.ascontiguousarray(x), parents, weights, areas,
                                       float(c), page, MIN_AREA_SHARE, _as_levels(levels))
    if prepared is None:
        return isotonic_smooth(x, parents, weights=weights, levels=levels,
                               penalties=area_penalties(areas, c, parents=parents))
    on_grid, gamma, values = prepared
    return values[_isotonic.smooth_indices(parents, on_grid, weights, gamma, values)]


def _page_arrays(parents: np.ndarray, weights: np.ndarray, areas: np.ndarray, n: int) -> bool:
    """Whether ``parents``, ``weights`` and ``areas`` are arrays of the types and length
    :func:`smooth_page`'s compiled pass reads (int32, float64, contiguous)."""
    return (all(isinstance(a, np.ndarray) and a.shape == (n,) and a.flags.c_contiguous
                for a in (parents, weights, areas))
            and parents.dtype == np.int32 and weights.dtype == areas.dtype == np.float64)


def area_penalties(
    areas: np.ndarray, c: float = 0.01, *, parents: np.ndarray | None = None
) -> np.ndarray:
    """The paper's penalties (section 5.3): ``gamma_i = c * A / A_i``.

    Small nodes pay much to start a section of their own (their scores are unreliable),
    large ones little. ``A`` is the page's area: the roots' areas summed when
    ``parents`` is given, else the largest area (a single tree's root). A zero area
    counts as :data:`MIN_AREA_SHARE` of the page (a large, finite penalty). When the
    page itself has no area, every node pays ``c``.
    """
    area = _as_vector(areas, "areas")
    if (area < 0).any():
        raise ValueError(f"areas must be >= 0, found {area.min():g}")
    if not (np.isfinite(c) and c >= 0):
        raise ValueError(f"c must be a finite number >= 0, not {c!r}")
    if parents is not None:
        page = float(area[_as_parents(parents, len(area)) < 0].sum())
    else:
        page = float(area.max()) if len(area) else 0.0
    return _penalties(area, c, page)


def _penalties(area: np.ndarray, c: float, page: float) -> np.ndarray:
    """:func:`area_penalties` of checked ``area`` and ``c`` on a page of area ``page``."""
    if page <= 0.0:
        return np.full(len(area), float(c))
    return c * page / np.maximum(area, MIN_AREA_SHARE * page)


def smooth_indices_python(
    parents: np.ndarray, scores: np.ndarray, weights: np.ndarray, penalties: np.ndarray,
    values: np.ndarray,
) -> np.ndarray:
    """The dynamic program in Python: per node, the index into ``values`` of its score.

    The reference for ``denoise._isotonic.smooth_indices`` and its fallback: same order
    of visits and sums, same tie-breaking (continue the parent's value; else the
    smallest best value), so the same result bit for bit.
    """
    n, m = len(parents), len(values)
    parent_of = parents.tolist()
    children: list[list[int]] = [[] for _ in range(n)]
    for node, parent in enumerate(parent_of):
        if parent >= 0:
            children[parent].append(node)
    size = [1] * n
    for node in range(n - 1, -1, -1):
        if parent_of[node] >= 0:
            size[parent_of[node]] += size[node]
    heavy = [max(kids, key=size.__getitem__) if kids else -1 for kids in children]

    keeps = np.zeros((n, -(-m // 8)), dtype=np.uint8)
    records = np.zeros_like(keeps)
    index = np.zeros(n, dtype=np.int32)
    partial: dict[int, np.ndarray] = {}  # node -> sum of its finished children's err
    for node in _heavy_first_postorder(parent_of, children, heavy):
        own = weights[node] * np.abs(scores[node] - values)
        row = partial.pop(node) + own if heavy[node] >= 0 else 0.0 + own
        parent = parent_of[node]
        if parent < 0:
            index[node] = int(np.argmin(row))
            continue
        gamma = penalties[node]
        suffix = np.minimum.accumulate(row[::-1])[::-1]
        keeps[node] = np.packbits(row <= suffix + gamma, bitorder="little")
        records[node] = np.packbits(row <= np.append(suffix[1:], np.inf), bitorder="little")
        err = np.minimum(row, suffix + gamma)
        if heavy[parent] == node:
            partial[parent] = err
        else:
            partial[parent] += err

    for node, parent in enumerate(parent_of):
        if parent < 0:
            continue
        k = int(index[parent])
        if keeps[node, k >> 3] >> (k & 7) & 1:
            index[node] = k
        else:
            after = np.unpackbits(records[node], count=m, bitorder="little")[k + 1:]
            index[node] = k + 1 + int(np.argmax(after))
    return index


def _heavy_first_postorder(
    parent_of: list[int], children: list[list[int]], heavy: list[int]
) -> list[int]:
    """Children before parents; of siblings the heavy one first, then by index."""
    order: list[int] = []
    for root, parent in enumerate(parent_of):
        if parent >= 0:
            continue
        stack = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            stack.append((node, True))
            stack.extend((kid, False) for kid in reversed(children[node]) if kid != heavy[node])
            if heavy[node] >= 0:
                stack.append((heavy[node], False))
    return order


def _as_vector(values: object, name: str) -> np.ndarray:
    """A 1-D finite float64 array, or ValueError naming the input."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be an array of numbers: {error}") from None
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D, not of shape {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite, found {array[~np.isfinite(array)][0]}")
    return array


def _as_parents(parents: object, n: int) -> np.ndarray:
    """``parents`` as int32, checked to be a forest in preorder over ``n`` nodes."""
    array = np.asarray(parents)
    if array.ndim != 1 or len(array) != n:
        raise ValueError(f"parents must be 1-D with one entry per node ({n}), "
                         f"not of shape {array.shape}")
    if n == 0:
        return np.empty(0, dtype=np.int32)
    if array.dtype.kind not in "iu":
        raise ValueError(f"parents must be integers, not {array.dtype}")
    if n >= 2**31 - 1:
        raise ValueError(f"too many nodes: {n}")
    bad = np.flatnonzero((array < -1) | (array >= np.arange(n)))
    if len(bad):
        node = int(bad[0])
        raise ValueError(f"parents must be -1 (a root) or an earlier node (preorder): "
                         f"parents[{node}] = {int(array[node])}")
    return array.astype(np.int32)


def _per_node(values: object, n: int, name: str, default: float) -> np.ndarray:
    """A scalar or per-node array as n finite float64s >= 0."""
    if values is None:
        return np.full(n, default)
    array = _as_vector(np.broadcast_to(values, (n,)) if np.ndim(values) == 0 else values, name)
    if len(array) != n:
        raise ValueError(f"{name} must have one entry per node ({n}), not {len(array)}")
    if (array < 0).any():
        raise ValueError(f"{name} must be >= 0, found {array.min():g}")
    return array


def _as_levels(levels: object) -> int:
    """``levels`` as a positive int."""
    if isinstance(levels, bool):
        raise ValueError(f"levels must be a positive integer, not {levels!r}")
    try:
        grid = operator.index(levels)
    except TypeError:
        raise ValueError(f"levels must be a positive integer, not {levels!r}") from None
    if grid < 1:
        raise ValueError(f"levels must be a positive integer, not {grid}")
    return grid
