"""GPU versions against the serial ones on fresh random instances (run with -m gpu)."""
import math

import numpy as np
import pytest

from gpualgo import tsp
from gpualgo.tsp import gpu as tsp_gpu

pytestmark = pytest.mark.gpu

BRUTE = ("gpu_host_chunks", "gpu_unrank", "gpu_shared_incremental")


def _instances(rng, n):
    s = int(rng.integers(2**31))
    return [
        tsp.random_euclidean(n, seed=s),
        tsp.random_graph(n, density=0.6, seed=s + 1),                  # missing edges
        tsp.random_graph(n, density=0.5, seed=s + 2, symmetric=False),
        tsp.random_asymmetric(n, seed=s + 3, high=30),                  # many ties
    ]


@pytest.mark.parametrize("variant", BRUTE)
@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 9])
def test_brute_force_matches_serial(variant, n, rng):
    for inst in _instances(rng, n):
        ref = tsp.solve(inst, variant="serial_bruteforce")
        hk = tsp.solve(inst, variant="held_karp")
        r = tsp.solve(inst, variant=variant)
        assert r.feasible == ref.feasible == hk.feasible
        if not ref.feasible:
            assert r.tour is None and r.length == math.inf
            continue
        assert r.length == ref.length == hk.length
        # same enumeration, same tie rule: the very same tour
        np.testing.assert_array_equal(r.tour, ref.tour)
        assert tsp.tour_length(inst, r.tour) == r.length
        assert r.stats["permutations"] == ref.stats["permutations"]


@pytest.mark.parametrize("variant", BRUTE)
@pytest.mark.parametrize("block", [32, 96, 1024])
def test_block_sizes_and_full_enumeration(variant, block, rng):
    inst = tsp.random_graph(10, density=0.7, seed=int(rng.integers(2**31)))
    ref = tsp.solve(inst, variant="serial_bruteforce", symmetric=False)
    r = tsp.solve(inst, variant=variant, block=block, symmetric=False)
    assert r.length == ref.length
    if r.feasible:
        np.testing.assert_array_equal(r.tour, ref.tour)
    assert r.stats["permutations"] == math.factorial(9)


@pytest.mark.parametrize("variant", BRUTE)
@pytest.mark.parametrize("symmetric", [False, True])
def test_split_into_many_chunks_and_launches(variant, symmetric, rng, monkeypatch):
    # chunks of 3! orders, and launches of a few chunks: the path that counts past 2^64
    monkeypatch.setattr(tsp_gpu, "LAUNCH_ORDERS", 1000)
    inst = tsp.random_euclidean(9, seed=int(rng.integers(2**31)))
    ref = tsp.solve(inst, variant="serial_bruteforce", symmetric=symmetric)
    r = tsp.solve(inst, variant=variant, symmetric=symmetric, max_free=3,
                  **({"batch": 777} if variant == "gpu_host_chunks" else {}))
    assert r.length == ref.length
    np.testing.assert_array_equal(r.tour, ref.tour)
    assert r.stats["free_cities"] == 3


@pytest.mark.parametrize("variant", BRUTE + ("gpu_held_karp",))
def test_int64_costs(variant, rng):
    inst = tsp.random_asymmetric(8, seed=int(rng.integers(2**31)), low=4 * 10**8, high=10**9)
    ref = tsp.solve(inst, variant="held_karp")
    r = tsp.solve(inst, variant=variant)
    assert r.stats["cost_dtype"] == "int64"
    assert r.length == ref.length > 2**31


@pytest.mark.parametrize("variant", BRUTE + ("gpu_held_karp",))
def test_no_feasible_tour(variant):
    d = np.full((6, 6), np.inf)
    d[0, 1] = d[1, 0] = 3.0
    r = tsp.solve(d, variant=variant)
    assert not r.feasible and r.tour is None and r.length == math.inf


@pytest.mark.parametrize("n", [2, 3, 4, 8, 12, 15, 17])
def test_gpu_held_karp_matches_serial(n, rng):
    for inst in _instances(rng, n):
        ref = tsp.solve(inst, variant="held_karp")
        r = tsp.solve(inst, variant="gpu_held_karp", block=128)
        assert r.feasible == ref.feasible
        if ref.feasible:
            assert r.length == ref.length
            np.testing.assert_array_equal(r.tour, ref.tour)   # same tie rule


def test_gpu_held_karp_against_brute_force(rng):
    for inst in _instances(rng, 10):
        a = tsp.solve(inst, variant="gpu_held_karp")
        b = tsp.solve(inst, variant="gpu_shared_incremental")
        assert a.length == b.length


def test_gpu_held_karp_refuses_what_does_not_fit():
    with pytest.raises(ValueError, match="GiB"):
        tsp.solve(tsp.random_euclidean(33, seed=0), variant="gpu_held_karp")
    with pytest.raises(ValueError, match="at most 33"):
        tsp.solve(tsp.random_euclidean(34, seed=0), variant="gpu_held_karp")


def test_bad_block():
    with pytest.raises(ValueError, match="block"):
        tsp.solve(tsp.random_euclidean(6, seed=0), variant="gpu_unrank", block=100)
