import numpy as np
import pytest

from denoise.arrays import sorted_unique


@pytest.mark.parametrize("dtype", [np.uint64, np.int64, np.int32])
@pytest.mark.parametrize("size", [0, 1, 2, 7, 1000])
def test_sorted_unique_is_numpys_unique(dtype, size):
    rng = np.random.default_rng(size)
    values = rng.integers(0, max(size // 3, 1), size).astype(dtype)
    got = sorted_unique(values)
    assert got.dtype == dtype
    assert got.tolist() == np.unique(values).tolist()
    wide = rng.integers(0, 2**62, (size, 2)).astype(dtype)  # flattened, as np.unique does
    assert sorted_unique(wide).tolist() == np.unique(wide).tolist()
