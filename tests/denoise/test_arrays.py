import numpy as np
import pytest

import denoise.arrays as arrays
from denoise.arrays import SortedKeys, ragged_arange, sorted_unique, unique_groups


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


@pytest.mark.parametrize("dtype", [np.uint64, np.int64])
@pytest.mark.parametrize("size", [0, 1, 2, 9, 5000])
def test_unique_groups_is_numpys_unique_with_everything(dtype, size):
    rng = np.random.default_rng(size)
    values = rng.integers(0, 2**62, max(size // 4, 1)).astype(dtype)[
        rng.integers(0, max(size // 4, 1), size)]  # repeats in no particular order
    got = unique_groups(values)
    expected = np.unique(values, return_index=True, return_inverse=True, return_counts=True)
    assert [g.tolist() for g in got] == [e.tolist() for e in expected]
    assert got[0].dtype == dtype


@pytest.mark.parametrize("compiled", [True, False])
def test_unique_groups_of_badly_mixed_keys_compiled_or_not(compiled, monkeypatch):
    # keys alike in their low bits, or in their high bits, or at both ends of the range:
    # the compiled grouping hashes them into its table, and must still find every group
    if compiled and arrays._compiled is None:
        pytest.skip("the compiled extension is not built")
    if not compiled:
        monkeypatch.setattr(arrays, "_compiled", None)
    rng = np.random.default_rng(7)
    base = np.concatenate([np.arange(3000, dtype=np.uint64) << np.uint64(40),
                           np.arange(3000, dtype=np.uint64),
                           np.array([0, 2**64 - 1, 2**63], dtype=np.uint64)])
    values = base[rng.integers(0, len(base), 20_000)]
    got = unique_groups(values)
    expected = np.unique(values, return_index=True, return_inverse=True, return_counts=True)
    assert [g.tolist() for g in got] == [e.tolist() for e in expected]
    assert [g.dtype for g in got] == [np.uint64, np.int64, np.int64, np.int64]


def _shuffled_hashes(rng, size):
    """Table keys and needles: present ones, absent ones, both ends of the range."""
    keys = sorted_unique(rng.integers(0, 2**64 - 1, size, dtype=np.uint64, endpoint=True))
    extremes = np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64)
    needles = np.concatenate([keys, rng.integers(0, 2**64 - 1, size, dtype=np.uint64,
                                                 endpoint=True), extremes])
    rng.shuffle(needles)
    return keys, needles


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("size", [0, 1, 3, 1000, 70_000])
def test_sorted_keys_find_what_a_binary_search_finds(size, compiled, monkeypatch):
    if compiled and arrays._compiled is None:
        pytest.skip("the compiled extension is not built")
    if not compiled:
        monkeypatch.setattr(arrays, "_compiled", None)
    rng = np.random.default_rng(size)
    keys, needles = _shuffled_hashes(rng, size)
    if size == 3:  # keys of one bucket, and the largest keys there are
        keys = np.array([2**64 - 3, 2**64 - 2, 2**64 - 1], dtype=np.uint64)
        needles = np.concatenate([needles, keys])
    found = SortedKeys(keys).positions(needles)
    expected = np.searchsorted(keys, needles)
    hit = expected < len(keys)
    hit[hit] = keys[expected[hit]] == needles[hit]
    assert found.dtype == np.int64
    assert found.tolist() == np.where(hit, expected, -1).tolist()


@pytest.mark.parametrize("size", [0, 1, 2, 1000, 70_000, "ends"])
def test_sorted_keys_presence_bits_are_set_exactly_for_the_keys_top_bits(size):
    rng = np.random.default_rng(7)
    if size == "ends":  # keys at both ends of the range, needles beside them
        keys = np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64)
        needles = np.array([2, 2**58 - 1, 2**58, 2**63 - 1, 2**63 + 1, 2**64 - 2],
                           dtype=np.uint64)
        assert SortedKeys(keys).positions(keys).tolist() == [0, 1, 2, 3]
        assert (SortedKeys(keys).positions(needles) == -1).all()
    else:
        keys, needles = _shuffled_hashes(rng, size)
    found = SortedKeys(keys)
    # the words' bits in order: bit p of word w is bit 64 w + p (a little-endian machine)
    bits = np.unpackbits(found.present.view(np.uint8), bitorder="little").astype(bool)
    tops = np.unique(keys >> np.uint64(found.present_shift)).astype(np.int64)
    assert np.flatnonzero(bits).tolist() == tops.tolist()
    # a needle whose bit is set but is not a key (a false positive) is still absent
    shared = needles[bits[(needles >> np.uint64(found.present_shift)).astype(np.int64)]]
    absent = shared[~np.isin(shared, keys)]
    assert len(absent) or size in (0, 1, 2, "ends")
    assert (found.positions(absent) == -1).all()


def test_sorted_keys_refuse_keys_out_of_order():
    for keys in ([3, 1], [1, 1, 2]):
        with pytest.raises(ValueError, match="ascending"):
            SortedKeys(np.array(keys, dtype=np.uint64))
