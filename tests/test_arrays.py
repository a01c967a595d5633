import numpy as np
import pytest

from denoise.arrays import ragged_arange, sorted_unique


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


@pytest.mark.parametrize("counts", [[], [0], [3], [2, 0, 4], [0, 0, 1, 0], [5, 1, 0, 0, 2]])
def test_ragged_arange_lays_the_ranges_end_to_end(counts):
    for starts in (np.arange(len(counts)) * 7 + 3, np.arange(len(counts))[::-1] * 5):
        expected = [v for start, count in zip(starts.tolist(), counts, strict=True)
                    for v in range(start, start + count)]
        got = ragged_arange(starts, np.array(counts, dtype=np.int64))
        assert got.dtype == np.int64
        assert got.tolist() == expected
