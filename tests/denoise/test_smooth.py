"""Regularized tree isotonic regression: optimal against brute force, both kernels agree."""

import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression

from denoise import smooth
from denoise.smooth import MIN_AREA_SHARE, area_penalties, isotonic_smooth

KERNELS = [
    pytest.param(True, id="compiled", marks=pytest.mark.skipif(
        smooth._isotonic is None, reason="the compiled kernel is not built here")),
    pytest.param(False, id="python"),
]


def random_forest(rng: np.random.Generator, n: int, root_share: float = 0.0) -> np.ndarray:
    """Parents of a random forest in preorder: each node hangs under the previous node
    or one of its ancestors, or (with probability ``root_share``) starts a new tree."""
    parents = np.full(n, -1, dtype=np.int64)
    path: list[int] = []
    for node in range(n):
        if path and rng.random() >= root_share:
            depth = int(rng.integers(0, len(path)))
            parents[node] = path[depth]
            path = path[:depth + 1]
        else:
            path = []
        path.append(node)
    return parents


def random_scores(rng: np.random.Generator, n: int) -> np.ndarray:
    """Continuous scores, or scores on a coarse grid (many ties, flat L1 optima)."""
    if rng.random() < 0.5:
        return rng.random(n)
    return rng.integers(0, 5, n) / 4


def cost(y, x, parents, weights, penalties) -> float:
    """The objective: weighted L1 distance plus the penalty of every non-root section."""
    y, x, parents = np.asarray(y), np.asarray(x), np.asarray(parents)
    child = parents >= 0
    starts = child.copy()
    starts[child] = y[child] != y[parents[child]]
    return float((weights * np.abs(x - y)).sum() + (penalties * starts).sum())


def is_isotonic(y, parents) -> bool:
    """Constraint (1): no node above any of its children."""
    child = parents >= 0
    return bool((y[parents[child]] <= y[child]).all())


def brute_force_cost(x, parents, weights, penalties, candidates) -> float:
    """The least cost over every isotonic assignment of ``candidates`` to the nodes."""
    candidates = np.asarray(candidates, dtype=float)
    rows = np.zeros((1, 0))
    for parent in parents:
        grown = np.repeat(rows, len(candidates), axis=0)
        value = np.tile(candidates, len(rows))
        if parent >= 0:
            keep = value >= grown[:, parent]
            grown, value = grown[keep], value[keep]
        rows = np.column_stack([grown, value])
    costs = (weights * np.abs(rows - x)).sum(axis=1)
    for node, parent in enumerate(parents):
        if parent >= 0:
            costs += penalties[node] * (rows[:, node] != rows[:, parent])
    return float(costs.min())


def l1_chain_cost(x, weights) -> float:
    """Exact L1 isotonic regression of a sequence (non-decreasing), by a forward program:
    f_k(v) = w_k |x_k - v| + min over u <= v of f_(k-1)(u), over the distinct values."""
    values = np.unique(x)
    best = np.zeros(len(values))
    for score, weight in zip(x, weights, strict=True):
        best = np.minimum.accumulate(best) + weight * np.abs(score - values)
    return float(best.min())


def random_problem(rng, n, root_share=0.2):
    parents = random_forest(rng, n, root_share)
    x = random_scores(rng, n)
    weights = rng.integers(0, 4, n).astype(float) if rng.random() < 0.5 else rng.random(n) * 3
    scale = rng.choice([0.0, 0.1, 0.5, 2.0])
    penalties = rng.random(n) * scale
    return parents, x, weights, penalties


# (a) exact: the least cost over all assignments, on small random trees and forests


@pytest.mark.slow
@pytest.mark.parametrize("compiled", KERNELS)
def test_optimal_against_brute_force_on_small_trees(compiled):
    rng = np.random.default_rng(11)
    for _ in range(300):
        n = int(rng.integers(1, 8))
        parents, x, weights, penalties = random_problem(rng, n)
        y = isotonic_smooth(x, parents, weights=weights, penalties=penalties, compiled=compiled)
        assert y.dtype == np.float64 and y.shape == (n,)
        assert is_isotonic(y, parents)
        assert np.isin(y, x).all()
        ours = cost(y, x, parents, weights, penalties)
        best = brute_force_cost(x, parents, weights, penalties, np.unique(x))
        assert ours == pytest.approx(best, abs=1e-9), (parents, x, weights, penalties)


@pytest.mark.parametrize("compiled", KERNELS)
def test_no_value_outside_the_scores_does_better(compiled):
    # Lemma 3 checked, not assumed: brute force also tries midpoints and the ends of [0, 1].
    rng = np.random.default_rng(12)
    for _ in range(120):
        n = int(rng.integers(1, 6))
        parents, x, weights, penalties = random_problem(rng, n)
        values = np.unique(x)
        wider = np.unique(np.concatenate([values, (values[1:] + values[:-1]) / 2, [0.0, 1.0]]))
        y = isotonic_smooth(x, parents, weights=weights, penalties=penalties, compiled=compiled)
        best = brute_force_cost(x, parents, weights, penalties, wider)
        assert cost(y, x, parents, weights, penalties) == pytest.approx(best, abs=1e-9)


def test_a_hand_solved_tree():
    # root 0.875 over children 0.125 (weight 3) and 0.25. Without penalty the root comes
    # down to 0.125 (cost 0.75), the second child keeping its own 0.25; raising the root
    # and the heavy child to 0.25 instead would cost 0.625 + 3 * 0.125 = 1.0.
    x, parents, weights = np.array([0.875, 0.125, 0.25]), np.array([-1, 0, 0]), np.array(
        [1.0, 3.0, 1.0])
    zeros, halves = np.zeros(3), np.full(3, 0.5)
    assert brute_force_cost(x, parents, weights, zeros, x) == 0.75
    assert isotonic_smooth(x, parents, weights=weights).tolist() == [0.125, 0.125, 0.25]
    # a section of its own now costs the child 0.5: joining its parent costs it 0.125
    assert brute_force_cost(x, parents, weights, halves, x) == 0.875
    assert isotonic_smooth(x, parents, weights=weights, penalties=0.5).tolist() == [0.125] * 3


# (b) chains: plain L1 isotonic regression of a sequence


@pytest.mark.parametrize("compiled", KERNELS)
def test_chains_match_exact_l1_isotonic_regression(compiled):
    rng = np.random.default_rng(13)
    for n in [*range(1, 8), 50, 200]:
        for _ in range(10):
            x = random_scores(rng, n)
            weights = rng.integers(1, 4, n).astype(float)
            chain = np.arange(n) - 1
            y = isotonic_smooth(x, chain, weights=weights, compiled=compiled)
            assert (np.diff(y) >= 0).all()
            ours = cost(y, x, chain, weights, 0.0)
            assert ours == pytest.approx(l1_chain_cost(x, weights), abs=1e-9)
            if n <= 7:
                assert ours == pytest.approx(
                    brute_force_cost(x, chain, weights, np.zeros(n), np.unique(x)), abs=1e-9)
            fitted = IsotonicRegression().fit_transform(np.arange(n), x, sample_weight=weights)
            assert ours <= cost(fitted, x, chain, weights, 0.0) + 1e-9


def test_l1_beats_the_l2_fit_on_an_outlier():
    # L2 pools 1, 0, 0 to 1/3 (L1 cost 4/3); the L1 optimum drops the outlier (cost 1)
    x = np.array([0.0, 1.0, 0.0, 0.0])
    chain = np.arange(4) - 1
    y = isotonic_smooth(x, chain)
    assert y.tolist() == [0.0, 0.0, 0.0, 0.0]
    fitted = IsotonicRegression().fit_transform(np.arange(4), x)
    assert cost(fitted, x, chain, 1.0, 0.0) == pytest.approx(4 / 3)


# (c) the compiled kernel and the Python one give the same output


@pytest.mark.skipif(smooth._isotonic is None, reason="the compiled kernel is not built here")
@pytest.mark.parametrize("seed", range(12))
def test_compiled_and_python_agree(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(300, 700))
    parents, x, weights, penalties = random_problem(rng, n, root_share=0.01 * (seed % 3))
    levels = None if seed % 2 else 100
    both = [isotonic_smooth(x, parents, weights=weights, penalties=penalties, levels=levels,
                            compiled=compiled) for compiled in (True, False)]
    assert np.array_equal(both[0], both[1])
    assert is_isotonic(both[0], parents)


@pytest.mark.skipif(smooth._isotonic is None, reason="the compiled kernel is not built here")
@pytest.mark.parametrize("seed", range(6))
def test_compiled_and_python_break_ties_alike(seed):
    # dyadic scores, weights and penalties: costs add up exactly, so optima tie often
    rng = np.random.default_rng(100 + seed)
    n = 500
    parents = random_forest(rng, n, root_share=0.02)
    x = rng.integers(0, 5, n) / 4
    weights = rng.integers(1, 4, n).astype(float)
    penalties = rng.integers(0, 3, n) / 4 if seed % 2 else 0.0
    both = [isotonic_smooth(x, parents, weights=weights, penalties=penalties, compiled=compiled)
            for compiled in (True, False)]
    assert np.array_equal(both[0], both[1])


@pytest.mark.skipif(smooth._isotonic is None, reason="the compiled kernel is not built here")
@pytest.mark.parametrize("shape", ["chain", "star", "caterpillar"])
def test_compiled_and_python_agree_on_extreme_shapes(shape):
    n = 2000
    rng = np.random.default_rng(5)
    if shape == "chain":
        parents = np.arange(n) - 1
    elif shape == "star":
        parents = np.zeros(n, dtype=int)
        parents[0] = -1
    else:
        parents = preorder_caterpillar(n // 2)
    x = rng.random(len(parents))
    penalties = rng.random(len(parents)) * 0.05
    both = [isotonic_smooth(x, parents, penalties=penalties, levels=50, compiled=compiled)
            for compiled in (True, False)]
    assert np.array_equal(both[0], both[1])


def preorder_caterpillar(spine: int) -> np.ndarray:
    """A chain s0 > s1 > ... whose nodes each also carry a leaf, in preorder: the leaves
    all come after the spine (the shape that keeps many partial sums live in reverse
    preorder)."""
    parents = list(range(-1, spine - 1))  # s0 .. s(k-1), a chain
    for depth in range(spine - 1, -1, -1):  # leaves come back up the spine
        parents.append(depth)
    return np.array(parents)


# (d) bad input names what is wrong


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"parents": [-1, 1]}, r"parents\[1\] = 1"),
    ({"parents": [-1, 2, 0], "scores": [0.1, 0.2, 0.3]}, r"parents\[1\] = 2"),
    ({"parents": [-1, -2]}, r"parents\[1\] = -2"),
    ({"parents": [-1.0, 0.0]}, "integers"),
    ({"parents": [-1, 0, 0]}, "one entry per node"),
    ({"scores": [0.5, np.nan]}, "finite"),
    ({"scores": [[0.5, 0.5]]}, "1-D"),
    ({"scores": ["a", "b"]}, "array of numbers"),
    ({"weights": [1.0, -1.0]}, "weights must be >= 0"),
    ({"weights": [1.0, 1.0, 1.0]}, "one entry per node"),
    ({"penalties": -0.5}, "penalties must be >= 0"),
    ({"penalties": [0.1, np.inf]}, "finite"),
    ({"levels": 0}, "levels must be a positive integer"),
    ({"levels": True}, "levels must be a positive integer"),
    ({"levels": 2.5}, "levels must be a positive integer"),
    ({"levels": 10, "scores": [0.5, 1.5]}, r"in \[0, 1\]"),
])
def test_validation_errors(kwargs, message):
    arguments = {"scores": [0.2, 0.4], "parents": [-1, 0], **kwargs}
    scores, parents = arguments.pop("scores"), arguments.pop("parents")
    with pytest.raises(ValueError, match=message):
        isotonic_smooth(scores, parents, **arguments)


def test_the_table_bound_is_enforced(monkeypatch):
    x = np.linspace(0, 1, 1000)
    parents = np.arange(1000) - 1
    monkeypatch.setattr(smooth, "MAX_TABLE_BYTES", 1 << 16)
    with pytest.raises(ValueError, match="pass levels"):
        isotonic_smooth(x, parents)
    assert len(isotonic_smooth(x, parents, levels=100)) == 1000  # 101 values: 16 bytes a node


def test_asking_for_a_missing_kernel_fails(monkeypatch):
    monkeypatch.setattr(smooth, "_isotonic", None)
    with pytest.raises(RuntimeError, match="not built"):
        isotonic_smooth([0.5], [-1], compiled=True)
    assert isotonic_smooth([0.5], [-1]).tolist() == [0.5]


def test_empty_input():
    assert isotonic_smooth([], []).shape == (0,)
    assert isotonic_smooth(np.array([]), np.array([], dtype=int), levels=10).dtype == np.float64


# (e) levels: the one approximation, as documented


@pytest.mark.parametrize("compiled", KERNELS)
def test_levels_solve_the_rounded_problem_exactly(compiled):
    rng = np.random.default_rng(14)
    for levels in (1, 3, 10, 100):
        for _ in range(20):
            n = int(rng.integers(1, 120))
            parents, x, weights, penalties = random_problem(rng, n)
            y = isotonic_smooth(x, parents, weights=weights, penalties=penalties, levels=levels,
                                compiled=compiled)
            assert np.array_equal(y, np.rint(y * levels) / levels)  # on the grid k / levels
            rounded = np.rint(x * levels) / levels
            assert np.abs(rounded - x).max() <= 0.5 / levels + 1e-12
            assert np.array_equal(y, isotonic_smooth(rounded, parents, weights=weights,
                                                     penalties=penalties, compiled=compiled))
            # within sum(weights) / levels of the exact optimum, in the original scores
            exact = isotonic_smooth(x, parents, weights=weights, penalties=penalties)
            gap = cost(y, x, parents, weights, penalties) - cost(exact, x, parents, weights,
                                                                  penalties)
            assert -1e-9 <= gap <= weights.sum() / levels + 1e-9


def test_levels_move_monotone_scores_to_the_nearest_grid_point():
    x = np.array([0.0, 0.14, 0.16, 0.5, 0.74, 0.76, 1.0])
    y = isotonic_smooth(x, np.arange(7) - 1, levels=10)
    assert y.tolist() == [0.0, 0.1, 0.2, 0.5, 0.7, 0.8, 1.0]
    assert isotonic_smooth(x, np.arange(7) - 1, levels=1).tolist() == [0, 0, 0, 0, 1, 1, 1]


# (f) the two ends of the penalty


@pytest.mark.parametrize("compiled", KERNELS)
def test_a_large_penalty_leaves_one_section_at_the_weighted_median(compiled):
    rng = np.random.default_rng(15)
    for _ in range(50):
        n = int(rng.integers(1, 300))
        parents = random_forest(rng, n, root_share=0.02)
        x = random_scores(rng, n)
        weights = rng.integers(1, 5, n).astype(float)
        # any second section costs more than moving every score the whole way
        y = isotonic_smooth(x, parents, weights=weights, penalties=weights.sum() + 1,
                            compiled=compiled)
        tree = np.zeros(n, dtype=int)
        for node, parent in enumerate(parents):
            tree[node] = node if parent < 0 else tree[parent]
        for root in np.unique(tree):
            members = tree == root
            value = y[root]
            assert (y[members] == value).all()
            # a weighted median: at most half the weight on either side of it
            total = weights[members].sum()
            assert weights[members & (x < value)].sum() <= total / 2
            assert weights[members & (x > value)].sum() <= total / 2


@pytest.mark.parametrize("compiled", KERNELS)
def test_isotonic_scores_come_back_unchanged_without_penalty(compiled):
    rng = np.random.default_rng(16)
    for _ in range(30):
        n = int(rng.integers(1, 400))
        parents = random_forest(rng, n, root_share=0.05)
        x = rng.random(n)
        for node, parent in enumerate(parents):  # raise each node to at least its parent
            if parent >= 0:
                x[node] = max(x[node], x[parent])
        assert np.array_equal(isotonic_smooth(x, parents, compiled=compiled), x)


def test_a_weight_stands_for_hidden_children_with_the_same_score():
    # section 5.3: a node with k hidden children acts as k + 1 nodes with its score
    rng = np.random.default_rng(17)
    for _ in range(40):
        n = int(rng.integers(2, 40))
        parents = random_forest(rng, n)
        x = random_scores(rng, n)
        hidden = rng.integers(0, 3, n)
        penalties = rng.random(n) * 0.3
        folded = isotonic_smooth(x, parents, weights=hidden + 1.0, penalties=penalties)
        # unfold: after each node, its hidden children as leaves that must not split off
        new_parents, new_x, new_penalties, original = [], [], [], []
        for node in range(n):
            original.append(len(new_parents))
            parent = parents[node]
            new_parents.append(original[parent] if parent >= 0 else -1)
            new_x.append(x[node])
            new_penalties.append(penalties[node])
            for _ in range(hidden[node]):
                new_parents.append(original[node])
                new_x.append(x[node])
                new_penalties.append(1e6)
        new_parents = np.array(new_parents)
        unfolded = isotonic_smooth(new_x, new_parents, penalties=new_penalties)
        assert cost(folded, x, parents, hidden + 1.0, penalties) == pytest.approx(
            cost(unfolded, new_x, new_parents, 1.0, np.array(new_penalties)), abs=1e-9)


def test_a_scalar_penalty_is_the_same_penalty_everywhere():
    rng = np.random.default_rng(18)
    parents, x = random_forest(rng, 200, 0.02), rng.random(200)
    assert np.array_equal(isotonic_smooth(x, parents, penalties=0.3),
                          isotonic_smooth(x, parents, penalties=np.full(200, 0.3)))


# area penalties (section 5.3)


def test_area_penalties():
    areas = np.array([1000.0, 500.0, 10.0, 0.0])
    parents = np.array([-1, 0, 1, 1])
    penalties = area_penalties(areas, parents=parents)
    assert penalties[:3] == pytest.approx([0.01, 0.02, 1.0])
    assert penalties[3] == pytest.approx(0.01 / MIN_AREA_SHARE)  # tiny, not infinite
    assert np.array_equal(area_penalties(areas), penalties)  # the largest area is the page
    # a forest: the page is every root together
    forest = area_penalties(np.array([300.0, 100.0, 100.0]), c=0.1, parents=[-1, 0, -1])
    assert forest == pytest.approx([0.1 * 400 / 300, 0.4, 0.4])
    assert area_penalties(np.zeros(3)).tolist() == [0.01] * 3  # no layout at all
    assert area_penalties([]).shape == (0,)


@pytest.mark.parametrize(("areas", "kwargs", "message"), [
    ([1.0, -1.0], {}, "areas must be >= 0"),
    ([1.0, np.nan], {}, "finite"),
    ([1.0, 1.0], {"c": -1.0}, "c must be"),
    ([1.0, 1.0], {"parents": [-1, 5]}, r"parents\[1\] = 5"),
])
def test_area_penalty_validation(areas, kwargs, message):
    with pytest.raises(ValueError, match=message):
        area_penalties(areas, **kwargs)


def test_a_page_is_smoothed_as_the_checked_functions_smooth_it(dev_site_pages):
    from denoise.detector import SMOOTHING_LEVELS, TemplateDetector
    from denoise.features import extract
    from denoise.smooth import smooth_page

    detector = TemplateDetector.load()
    rng = np.random.default_rng(7)
    for page in dev_site_pages[:40]:
        features = extract(page)
        raw = detector.model.predict_proba(features)
        for scores in (raw, rng.random(len(raw)), np.round(rng.random(len(raw)), 1)):
            for c in (detector.smoothing, 0.0, 1.0):
                want = isotonic_smooth(
                    scores, features.parents, weights=features.weights, levels=SMOOTHING_LEVELS,
                    penalties=area_penalties(features.areas, c, parents=features.parents))
                got = smooth_page(scores, features.parents, features.weights, features.areas,
                                  c, SMOOTHING_LEVELS)
                assert got.dtype == want.dtype and np.array_equal(got, want), page.id
    parents = np.array([-1, 0, 0], dtype=np.int32)
    weights, areas = np.ones(3), np.array([0.0, 0.0, 0.0])  # a page without area
    for scores in (np.array([0.2, 0.9, 0.4]), np.zeros(0)):
        n = len(scores)
        assert np.array_equal(
            smooth_page(scores, parents[:n], weights[:n], areas[:n], 0.01, 100),
            isotonic_smooth(scores, parents[:n], weights=weights[:n], levels=100,
                            penalties=area_penalties(areas[:n], 0.01, parents=parents[:n])))
    with pytest.raises(ValueError, match="finite"):  # bad scores go to the checked path
        smooth_page(np.array([0.2, np.nan, 0.4]), parents, weights, areas, 0.01, 100)


@pytest.mark.parametrize(("change", "message"), [
    ({"weights": np.ones(1)}, "weights"),  # too short: refused, never read past its end
    ({"parents": np.array([-1, 5, 0], dtype=np.int32)}, "preorder"),
    ({"parents": np.array([-1, 0, 0])}, None),  # int64 parents: the checked path, fine
    ({"c": float("nan")}, "finite"),
    ({"areas": np.array([1.0, -1.0, 1.0])}, ">= 0"),
    ({"weights": np.array([1.0, -1.0, 1.0])}, "weights must be >= 0"),
    ({"parents": np.array([-2, 0, 0], dtype=np.int32)}, "preorder"),
    ({"scores": np.array([0.2, 1.5, 0.4])}, r"lie in \[0, 1\]"),
    ({"weights": np.ones(6)[::2]}, None),  # not contiguous: the checked path, fine
])
def test_a_page_the_fast_path_cannot_trust_goes_to_the_checked_functions(change, message):
    from denoise.smooth import smooth_page

    args = {"scores": np.array([0.2, 0.9, 0.4]), "parents": np.array([-1, 0, 0], np.int32),
            "weights": np.ones(3), "areas": np.ones(3), "c": 0.01, "levels": 100}
    args.update(change)
    if message is None:  # the same scores as the fast path's, from its own arrays
        assert np.array_equal(smooth_page(**args), smooth_page(
            **{**args, "parents": args["parents"].astype(np.int32),
               "weights": np.ascontiguousarray(args["weights"])}))
        return
    with pytest.raises(ValueError, match=message):
        smooth_page(**args)
