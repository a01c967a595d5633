"""The compiled tree loops must agree with their Python reference versions."""

import numpy as np
import pytest

from denoise import treeops


def random_tree(rng: np.random.Generator, n: int) -> np.ndarray:
    """Parents of a random tree in preorder: each node's parent is an earlier node."""
    parents = np.full(n, -1, dtype=np.int32)
    for index in range(1, n):
        parents[index] = rng.integers(-1, index) if rng.random() < 0.1 else index - 1 - int(
            rng.integers(0, min(index, 3)))
    return parents


@pytest.mark.skipif(treeops._compiled is None, reason="the compiled kernel is not built here")
@pytest.mark.parametrize("seed", range(20))
def test_compiled_tree_loops_agree_with_python(seed):
    rng = np.random.default_rng(seed)
    parents = random_tree(rng, int(rng.integers(1, 200)))
    flags = rng.random(len(parents)) < 0.4
    marks = np.where(flags, np.arange(len(parents)), -1).astype(np.int32)
    assert np.array_equal(treeops.fill_down(parents, marks),
                          treeops.fill_down_python(parents, marks))
    assert np.array_equal(treeops.and_down(parents, flags), treeops.and_down_python(parents, flags))
    assert np.array_equal(treeops.or_up(parents, flags), treeops.or_up_python(parents, flags))
    bits = rng.integers(0, 256, len(parents)).astype(np.uint8)
    assert np.array_equal(treeops.or_down(parents, bits), treeops.or_down_python(parents, bits))
    for compiled, python in zip(treeops.sibling_ranks(parents),
                                treeops.sibling_ranks_python(parents), strict=True):
        assert np.array_equal(compiled, python)


def test_python_tree_loops_on_a_small_tree():
    #      0
    #    1   3
    #    2
    parents = np.array([-1, 0, 1, 0], dtype=np.int32)
    flags = np.array([True, False, True, True])
    assert treeops.and_down_python(parents, flags).tolist() == [True, False, False, True]
    assert treeops.or_up_python(parents, flags).tolist() == [True, True, False, False]
    marks = np.array([-1, 7, -1, -1], dtype=np.int32)
    assert treeops.fill_down_python(parents, marks).tolist() == [-1, 7, 7, -1]


def test_new_python_tree_loops_on_a_small_tree():
    parents = np.array([-1, 0, 1, 0, -1], dtype=np.int32)
    bits = np.array([1, 2, 4, 8, 16], dtype=np.uint8)
    assert treeops.or_down_python(parents, bits).tolist() == [1, 3, 7, 9, 16]
    rank, size = treeops.sibling_ranks_python(parents)
    assert rank.tolist() == [0, 0, 0, 1, 1]  # roots 0 and 4 are siblings
    assert size.tolist() == [2, 2, 1, 2, 2]


@pytest.mark.parametrize("parents", [[0], [-1, 1], [-1, 0, 5], [-1, -2]])
def test_tree_loops_refuse_a_parent_array_that_is_not_preorder(parents):
    parents = np.array(parents, dtype=np.int32)
    with pytest.raises(ValueError, match="preorder"):
        treeops.or_down(parents, np.zeros(len(parents), dtype=np.uint8))
    with pytest.raises(ValueError, match="preorder"):
        treeops.fill_down(parents, np.zeros(len(parents), dtype=np.int32))
