"""Loops over a tree given as a preorder parent array, compiled where built.

Each runs once per page over every element or block, so it is compiled
(``denoise._compiled``) where the extension was built; the Python versions here are
the fallback and the reference the tests compare against.
"""

from __future__ import annotations

import numpy as np

try:
    from denoise import _compiled
except ImportError:  # the compiled extension is optional
    _compiled = None


def fill_down_python(parents: np.ndarray, marks: np.ndarray) -> np.ndarray:
    """Per node, the mark of its nearest marked (>= 0) ancestor-or-self, -1 where none."""
    out = marks.tolist()
    for index, parent in enumerate(parents.tolist()):
        if out[index] < 0 and parent >= 0:
            out[index] = out[parent]
    return np.array(out, dtype=np.int32)


def and_down_python(parents: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """Per node, whether it and every ancestor are flagged."""
    out = flags.tolist()
    for index, parent in enumerate(parents.tolist()):
        if parent >= 0 and not out[parent]:
            out[index] = False
    return np.array(out, dtype=bool)


def or_up_python(parents: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """Per node, whether any proper descendant is flagged."""
    out = [False] * len(parents)
    flag = flags.tolist()
    parent_of = parents.tolist()
    for index in range(len(out) - 1, -1, -1):
        parent = parent_of[index]
        if parent >= 0 and (out[index] or flag[index]):
            out[parent] = True
    return np.array(out, dtype=bool)


def _preorder(parents: np.ndarray) -> np.ndarray:
    """``parents`` as int32, checked to be a preorder forest (every parent before its
    child, ``-1`` for a root): the compiled loops index with it unchecked."""
    parents = parents.astype(np.int32, copy=False)
    if len(parents) and ((parents >= np.arange(len(parents))) | (parents < -1)).any():
        raise ValueError("parents must precede their children (preorder), -1 for roots")
    return parents


def fill_down(parents: np.ndarray, marks: np.ndarray) -> np.ndarray:
    """:func:`fill_down_python`, compiled where available."""
    if _compiled is None:
        return fill_down_python(parents, marks)
    return _compiled.fill_down(_preorder(parents),
                               marks.astype(np.int32, copy=False))


def and_down(parents: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """:func:`and_down_python`, compiled where available."""
    if _compiled is None:
        return and_down_python(parents, flags)
    return _compiled.and_down(_preorder(parents),
                              flags.astype(bool, copy=False))


def or_up(parents: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """:func:`or_up_python`, compiled where available."""
    if _compiled is None:
        return or_up_python(parents, flags)
    return _compiled.or_up(_preorder(parents), flags.astype(bool, copy=False))


def or_down_python(parents: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """Per node, the bitwise OR of its own and all its ancestors' bits."""
    out = bits.tolist()
    for index, parent in enumerate(parents.tolist()):
        if parent >= 0:
            out[index] |= out[parent]
    return np.array(out, dtype=np.uint8)


def sibling_ranks_python(parents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per node, its index among its parent's children (roots count as siblings), and
    how many they are."""
    seen: dict[int, int] = {}
    rank = []
    for parent in parents.tolist():
        rank.append(seen.get(parent, 0))
        seen[parent] = rank[-1] + 1
    size = [seen[parent] for parent in parents.tolist()]
    return np.array(rank, dtype=np.float64), np.array(size, dtype=np.float64)


def or_down(parents: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """:func:`or_down_python`, compiled where available."""
    if _compiled is None:
        return or_down_python(parents, bits)
    return _compiled.or_down(_preorder(parents),
                             bits.astype(np.uint8, copy=False))


def sibling_ranks(parents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`sibling_ranks_python`, compiled where available."""
    if _compiled is None:
        return sibling_ranks_python(parents)
    return _compiled.sibling_ranks(_preorder(parents))
