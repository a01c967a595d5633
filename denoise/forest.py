"""A scikit-learn random forest as plain arrays: flattened once after fitting, checked
when read from a file, and walked by a compiled kernel (or numpy) to score rows.

The template and main-content models (:mod:`denoise.model`) and the keyword ranker's
second stage (:mod:`kwx.ranker`) keep their forests this way: a model file holds
numbers only, and a crafted one cannot make a walk run forever or read out of bounds.
"""

from __future__ import annotations

import numpy as np

try:
    from denoise import _compiled
except ImportError:  # the compiled extension is optional
    _compiled = None


def flatten_forest(model) -> dict[str, np.ndarray]:
    """A fitted scikit-learn forest as five flat arrays (all trees end to end)."""
    feature, threshold, left, right, value, roots = [], [], [], [], [], []
    offset = 0
    for estimator in model.estimators_:
        tree = estimator.tree_
        roots.append(offset)
        leaf = tree.children_left < 0
        feature.append(np.where(leaf, -1, tree.feature))
        threshold.append(tree.threshold)
        left.append(np.where(leaf, np.arange(tree.node_count), tree.children_left) + offset)
        right.append(np.where(leaf, np.arange(tree.node_count), tree.children_right) + offset)
        counts = tree.value[:, 0, :]
        value.append((counts[:, 1] / np.maximum(counts.sum(axis=1), 1e-12)).astype(np.float32))
        offset += tree.node_count
    return {"feature": np.concatenate(feature).astype(np.int32),
            "threshold": np.concatenate(threshold), "left": np.concatenate(left).astype(np.int32),
            "right": np.concatenate(right).astype(np.int32), "value": np.concatenate(value),
            "roots": np.array(roots, dtype=np.int32),
            "depth": np.array([max(e.tree_.max_depth for e in model.estimators_)], np.int32)}


def checked_forest(forest: dict[str, np.ndarray], width: int) -> dict[str, np.ndarray]:
    """The forest arrays of a model file, validated and in the types prediction uses.

    A crafted file must not make a walk run forever or read out of bounds: index
    arrays must hold integers, every child must come after its parent (so each walk
    ends), leaf values must be probabilities, and the depth is measured, not read.
    """
    needed = ("feature", "threshold", "left", "right", "value", "roots")
    missing = [k for k in needed if k not in forest]
    if missing:
        raise ValueError(f"forest arrays missing: {missing}")
    for key in ("feature", "left", "right", "roots"):
        if forest[key].ndim != 1 or not np.issubdtype(forest[key].dtype, np.integer):
            raise ValueError(f"forest {key} must be a vector of integers")
    out = {key: forest[key].astype(np.int32) for key in ("feature", "left", "right", "roots")}
    out["threshold"] = forest["threshold"].astype(np.float64)
    out["value"] = forest["value"].astype(np.float32)
    size = len(out["feature"])
    if not all(out[k].shape == (size,) for k in ("threshold", "left", "right", "value")):
        raise ValueError("forest arrays differ in length")
    if not len(out["roots"]):
        raise ValueError("forest has no trees")
    for key in ("left", "right", "roots"):
        if out[key].min() < 0 or out[key].max() >= size:
            raise ValueError(f"forest {key} out of range")
    if out["feature"].max(initial=-1) >= width:
        raise ValueError("forest uses features the model does not have")
    if not np.isfinite(out["value"]).all() or (out["value"] < 0).any() or (out["value"] > 1).any():
        raise ValueError("forest leaf values must be probabilities")
    internal = np.flatnonzero(out["feature"] >= 0)
    if (out["left"][internal] <= internal).any() or (out["right"][internal] <= internal).any():
        raise ValueError("forest children must come after their parents")  # walks must end
    depth, level = 0, out["roots"]
    while len(level):  # each step goes to larger indices, so this ends within size steps
        level = level[out["feature"][level] >= 0]
        level = np.concatenate((out["left"][level], out["right"][level]))
        depth += 1
        if depth > size + 1:
            raise ValueError("forest trees are not trees")
    out["depth"] = np.array([depth], dtype=np.int32)
    return out


_PACKED_NODE = np.dtype([("value", "<f4"), ("feature", "u1"), ("inner", "u1"),
                         ("right", "<u2")])


def _float32_floor(values: np.ndarray) -> np.ndarray:
    """The largest float32 at or below each value: for a float32 ``x``,
    ``x <= t`` holds exactly when ``x <= floor32(t)``."""
    rounded = values.astype(np.float32)
    above = rounded.astype(np.float64) > values
    rounded[above] = np.nextafter(rounded[above], np.float32(-np.inf))
    return rounded


def _tree_steps(forest: dict[str, np.ndarray]) -> np.ndarray:
    """Per tree, its depth: the steps from its root that reach every leaf."""
    feature, left, right = forest["feature"], forest["left"], forest["right"]
    steps = np.zeros(len(forest["roots"]), dtype=np.int32)
    level, tree, depth = forest["roots"], np.arange(len(steps)), 0
    while len(level):  # children come after their parents (checked on load): this ends
        inner = feature[level] >= 0
        level, tree = level[inner], tree[inner]
        depth += 1
        steps[tree] = depth
        level, tree = np.concatenate((left[level], right[level])), np.concatenate((tree, tree))
    return steps


def _packed(forest: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
    """The forest as the compiled walk takes it (made once per model), and each tree's
    depth: 8 bytes a node, its threshold (a leaf: its value), feature and how far on
    its children are, the left one being the next node as scikit-learn lays trees
    out. Small nodes keep more of the forest in the cache between pages. None for a
    forest that does not fit (another layout, over 256 features, a right child 65,536
    nodes on or more): numpy walks it."""
    if "_packed" not in forest:
        feature, left, right = forest["feature"], forest["left"], forest["right"]
        leaf = feature < 0
        index = np.arange(len(leaf), dtype=np.int64)
        inner = ~leaf
        delta = np.where(leaf, 0, right.astype(np.int64) - index)
        fits = (bool((left[inner] == index[inner] + 1).all()) and feature.max(initial=0) < 256
                and delta.max(initial=0) < 2**16)
        packed = None
        if fits:
            packed = np.empty(len(leaf), dtype=_PACKED_NODE)
            packed["value"] = np.where(leaf, forest["value"].astype(np.float32),
                                       _float32_floor(forest["threshold"].astype(np.float64)))
            packed["feature"] = np.where(leaf, 0, feature)
            packed["inner"] = inner
            packed["right"] = delta
        forest["_packed"] = packed
        forest["_steps"] = _tree_steps(forest)
    if forest["_packed"] is None:
        return None
    return forest["_packed"], forest["_steps"]


def forest_proba(forest: dict[str, np.ndarray], X: np.ndarray) -> np.ndarray:
    """Mean leaf probability over the trees (compiled where built)."""
    packed = _packed(forest) if _compiled is not None else None
    if packed is not None:
        nodes, steps = packed
        return _compiled.forest_proba(nodes, np.ascontiguousarray(forest["roots"], dtype=np.int32),
                                      steps, np.ascontiguousarray(X, dtype=np.float32))
    return forest_proba_python(forest, X)


def forest_proba_python(forest: dict[str, np.ndarray], X: np.ndarray) -> np.ndarray:
    """Mean leaf probability over the trees, all trees and rows stepped together: the
    compiled walk's twin to the bit. Rows are read as float32, as scikit-learn and the
    compiled walk read them (a float64 value just above a threshold can round onto it
    and go left), and leaf values as float32, summed tree by tree in the roots' order."""
    X = np.asarray(X, dtype=np.float32)
    feature, threshold = forest["feature"], forest["threshold"]
    left, right = forest["left"], forest["right"]
    node = np.repeat(forest["roots"][:, None], len(X), axis=1)
    rows = np.arange(len(X))[None, :]
    for _ in range(int(forest["depth"][0])):
        feat = feature[node]
        go_left = X[rows, np.maximum(feat, 0)] <= threshold[node]
        node = np.where(go_left, left[node], right[node])
    values = forest["value"].astype(np.float32).astype(np.float64)[node]
    total = np.zeros(len(X), dtype=np.float64)
    for tree in values:  # in order, as the compiled walk adds them
        total += tree
    return total / len(values) if len(values) else total
