"""Instances, input validation and the independent tour checks."""
import math

import numpy as np
import pytest

from gpualgo import tsp


def test_generators_shapes_and_properties(rng):
    s = int(rng.integers(2**31))
    e = tsp.random_euclidean(10, seed=s, scale=500)
    assert e.dist.dtype == np.int64 and e.symmetric and e.coords.shape == (10, 2)
    assert (np.diag(e.dist) == 0).all() and not e.has_missing
    diff = e.coords[:, None] - e.coords[None]
    assert np.abs(e.dist - np.sqrt((diff ** 2).sum(-1))).max() <= 0.5
    g = tsp.random_graph(12, density=0.3, seed=s)
    assert g.symmetric and g.has_missing
    ga = tsp.random_graph(12, density=0.5, seed=s, symmetric=False)
    assert not ga.symmetric
    a = tsp.random_asymmetric(8, seed=s)
    assert not a.symmetric and a.kind == "ATSP"
    # the same seed gives the same instance
    np.testing.assert_array_equal(tsp.random_graph(12, density=0.3, seed=s).dist, g.dist)


def test_planted_tour_is_feasible(rng):
    for _ in range(5):
        g = tsp.random_graph(9, density=0.05, seed=int(rng.integers(2**31)), plant_tour=True)
        assert tsp.solve(g, variant="held_karp").feasible


def test_planted_optimum_is_the_optimum(rng):
    """The check of GPU Held-Karp at n = 28 and 30 (``tsp/largest``): the planted cycle of
    weight-1 edges is the optimum, as brute force and Held-Karp find on fresh seeds."""
    for n in (3, 5, 8, 10):
        inst = tsp.planted_optimum(n, seed=int(rng.integers(2**31)))
        assert inst.symmetric and not inst.has_missing and inst.meta["planted_optimum"] == n
        for variant in ("serial_bruteforce", "held_karp"):
            r = tsp.solve(inst, variant=variant)
            assert r.length == n
            assert all(inst.dist[a, b] == 1 for a, b in zip(r.tour, np.roll(r.tour, -1)))
    for bad in (2, 0, -1, 2.5):
        with pytest.raises(ValueError):
            tsp.planted_optimum(bad)


@pytest.mark.parametrize("bad, match", [
    (np.zeros((2, 3)), "square"),
    (np.zeros(4), "square"),
    (np.zeros((0, 0)), "empty"),
    (np.array([[0, np.nan], [1, 0]]), "NaN"),
    (np.array([[0, -np.inf], [1, 0]]), "-inf"),
    (np.array([[0, -3], [1, 0]]), "negative"),
    (np.array([[0.0, -2.0], [1.0, 0.0]]), "negative"),
    (np.array([[0, 1.5], [1, 0]]), "integers"),
    (np.array([[0, 2**45], [1, 0]]), "exceeds"),
    (np.array([["a", "b"], ["c", "d"]]), "numeric"),
])
def test_bad_matrices_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        tsp.solve(bad, variant="held_karp")


@pytest.mark.parametrize("coords, match", [
    (np.zeros((3, 3)), r"one row \(x, y\) per city: shape \(3, 2\), got \(3, 3\)"),
    (np.zeros(6), r"shape \(3, 2\), got \(6,\)"),
    ([[0, 0], [1, np.nan], [2, 2]], r"coords of city 1 are not finite"),
    ([[0, 0], [1, 1], [np.inf, 2]], r"coords of city 2 are not finite"),
    ([["a", "b"]] * 3, r"coords must be numbers"),
])
def test_bad_coordinates_refused(coords, match):
    # such coordinates were kept, and write_tsplib then failed or wrote a file it could not read
    with pytest.raises(ValueError, match=match):
        tsp.TSPInstance(dist=np.zeros((3, 3)), coords=coords)


@pytest.mark.parametrize("change, match", [
    (lambda inst: inst.dist.__setitem__((0, 1), -7), r"negative distance -7 at \(0, 1\)"),
    (lambda inst: inst.dist.__setitem__((slice(None), slice(None)), 2**62), r"distance 4611686018427387904 .*exceeds"),
    (lambda inst: setattr(inst, "dist", np.full((5, 5), 0.5)), r"distances must be integers, got 0.5"),
])
@pytest.mark.parametrize("variant", list(tsp.VARIANTS))
def test_an_instance_changed_after_it_was_made_is_checked_again(change, match, variant):
    # it was solved as it stood: with a negative distance, or overflowing
    inst = tsp.random_euclidean(5, seed=3)
    change(inst)
    with pytest.raises(ValueError, match=match):       # a GPU version too, before asking for a GPU
        tsp.solve(inst, variant=variant)


def test_missing_edges_from_inf_or_sentinel():
    d = np.array([[0, 1, np.inf], [1, 0, 2], [np.inf, 2, 0]])
    inst = tsp.as_instance(d)
    assert inst.dist[0, 2] == tsp.NO_EDGE and inst.has_missing
    di = np.array([[0, 1, -1], [1, 0, 2], [-1, 2, 0]])
    np.testing.assert_array_equal(tsp.as_instance(di).dist, inst.dist)
    # the diagonal is ignored, even when it says "missing"
    np.fill_diagonal(d, np.inf)
    assert (np.diag(tsp.as_instance(d).dist) == 0).all()


def test_check_tour():
    assert tsp.check_tour([0, 2, 1], 3).tolist() == [0, 2, 1]
    for bad, match in [([0, 1], "entries"), ([0, 1, 1], "appears"), ([1, 0, 2], "starts"),
                       ([0, 1, 3], "outside"), ([0.0, 1.0, 2.0], "integers")]:
        with pytest.raises(ValueError, match=match):
            tsp.check_tour(bad, 3)


def test_tour_length_and_feasibility(rng):
    d = rng.integers(1, 100, size=(6, 6))
    t = np.array([0, 3, 1, 5, 2, 4])
    want = sum(int(d[t[i], t[(i + 1) % 6]]) for i in range(6))
    assert tsp.tour_length(d, t) == want
    d2 = d.astype(float)
    d2[5, 2] = np.inf
    assert tsp.tour_length(d2, t) == math.inf and not tsp.is_feasible(d2, t)
    assert tsp.is_feasible(d2, [0, 1, 2, 3, 4, 5])
    assert tsp.tour_length(np.zeros((1, 1)), [0]) == 0
