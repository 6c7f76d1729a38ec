"""GPU versions against the serial ones on fresh random instances (run with -m gpu)."""
import math

import numpy as np
import pytest

from gpualgo import tsp
from gpualgo.tsp import gpu as tsp_gpu
from sanitize import TOOLS, sanitize

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


# ------------------------------------------------- the report's tuning steps, as options

#: version (a)'s steps one at a time, the report's starting point (int + pageable) and all at once
HOST_STEPS = [dict(index="int32"), dict(host_buffer="pageable"), dict(host_buffer="mapped"), dict(matrix="shared"),
              dict(layout="city"), dict(reduce="device"), dict(index="int32", host_buffer="pageable"),
              dict(index="int32", host_buffer="mapped", matrix="shared", layout="city", reduce="device")]
#: (b) and (c) with one of (c)'s changes over (b) made or undone, and two undone at once
DEVICE_STEPS = [("gpu_unrank", dict(matrix="shared")), ("gpu_shared_incremental", dict(matrix="global")),
                ("gpu_shared_incremental", dict(incremental=False)),
                ("gpu_shared_incremental", dict(matrix="global", incremental=False)),
                ("gpu_shared_incremental", dict(suffix="steps"))]


def _same_as_serial(inst, r, symmetric=None):
    ref = tsp.solve(inst, variant="serial_bruteforce", symmetric=symmetric)
    hk = tsp.solve(inst, variant="held_karp")
    assert r.feasible == ref.feasible == hk.feasible
    if not ref.feasible:
        assert r.tour is None and r.length == math.inf
        return
    assert r.length == ref.length == hk.length
    np.testing.assert_array_equal(r.tour, ref.tour)      # same enumeration, same tie rule
    assert tsp.tour_length(inst, r.tour) == r.length
    assert r.stats["permutations"] == ref.stats["permutations"]


@pytest.mark.parametrize("options", HOST_STEPS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_host_chunks_tuning_steps_match_serial(options, n, rng):
    for inst in _instances(rng, n):
        r = tsp.solve(inst, variant="gpu_host_chunks", **options)
        _same_as_serial(inst, r)
        for key, value in options.items():
            assert r.stats[key] == value
        assert r.stats["kernel_ms"] > 0 or n == 2
        assert r.stats["transfer_ms"] == pytest.approx(r.stats["upload_ms"] + r.stats["download_ms"])


@pytest.mark.parametrize("options", HOST_STEPS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_host_chunks_tuning_steps_over_many_batches_and_ties(options, rng):
    # 8! orders in batches of 777 (the last one short), chunks of 3! orders, many equal lengths:
    # the batches are collected in order and each keeps its first minimum
    inst = tsp.random_asymmetric(9, seed=int(rng.integers(2**31)), high=4)
    r = tsp.solve(inst, variant="gpu_host_chunks", symmetric=False, max_free=3, batch=777, block=64, **options)
    _same_as_serial(inst, r, symmetric=False)
    assert r.stats["batches"] == math.ceil(math.factorial(8) / 777)


@pytest.mark.parametrize("options", [dict(reduce="device"), dict(index="int32", layout="city", host_buffer="mapped")])
def test_host_chunks_tuning_steps_with_int64_costs(options, rng):
    inst = tsp.random_asymmetric(8, seed=int(rng.integers(2**31)), low=4 * 10**8, high=10**9)
    r = tsp.solve(inst, variant="gpu_host_chunks", **options)
    assert r.stats["cost_dtype"] == "int64"
    assert r.length == tsp.solve(inst, variant="held_karp").length > 2**31


@pytest.mark.parametrize("variant,options", DEVICE_STEPS, ids=lambda x: x if isinstance(x, str) else
                         ",".join(f"{k}={v}" for k, v in x.items()))
@pytest.mark.parametrize("n", [2, 4, 7, 9])
def test_device_versions_tuning_steps_match_serial(variant, options, n, rng):
    for inst in _instances(rng, n):
        _same_as_serial(inst, tsp.solve(inst, variant=variant, **options))


@pytest.mark.parametrize("variant,options", DEVICE_STEPS, ids=lambda x: x if isinstance(x, str) else
                         ",".join(f"{k}={v}" for k, v in x.items()))
def test_device_versions_tuning_steps_over_many_launches(variant, options, rng, monkeypatch):
    monkeypatch.setattr(tsp_gpu, "LAUNCH_ORDERS", 1000)
    inst = tsp.random_graph(10, density=0.7, seed=int(rng.integers(2**31)))
    r = tsp.solve(inst, variant=variant, symmetric=False, max_free=3, block=96, **options)
    _same_as_serial(inst, r, symmetric=False)
    int64 = tsp.random_asymmetric(8, seed=int(rng.integers(2**31)), low=4 * 10**8, high=10**9)
    assert tsp.solve(int64, variant=variant, **options).length == tsp.solve(int64, variant="held_karp").length


@pytest.mark.parametrize("span", [24, 48, 120])
@pytest.mark.parametrize("symmetric", [False, True])
def test_last_four_cities_in_registers(span, symmetric, rng, monkeypatch):
    """Version (c) scores the last four cities' 24 orders from registers where a thread's range
    is whole blocks of 4! orders (from about n = 13 on its own): here every range is made a
    multiple of ``span``, over chunks of 5! and 6! orders (a range crosses chunks), with ties,
    and the answer must be the serial tour, with or without the registers."""
    monkeypatch.setattr(tsp_gpu, "in_phase", lambda per_thread, k: -(-per_thread // span) * span)
    insts = [tsp.random_euclidean(n, seed=int(rng.integers(2**31))) for n in (8, 9, 10)]
    insts += [tsp.random_asymmetric(8, seed=int(rng.integers(2**31)), high=3),      # many ties
              tsp.random_graph(9, density=0.6, seed=int(rng.integers(2**31)))]      # missing edges
    equal = np.ones((9, 9), dtype=np.int64)
    np.fill_diagonal(equal, 0)
    for inst in insts + [tsp.TSPInstance(dist=equal, name="equal")]:
        if symmetric and not inst.symmetric:
            continue
        for max_free in (5, 6, 20):
            for suffix in ("registers", "steps"):
                r = tsp.solve(inst, variant="gpu_shared_incremental", symmetric=symmetric, max_free=max_free,
                              block=64, suffix=suffix)
                _same_as_serial(inst, r, symmetric=symmetric)
                assert r.stats["suffix"] == suffix


@pytest.mark.parametrize("tool", TOOLS)
def test_compute_sanitizer_clean(tool):
    """tsp_sanitizer_cases.py (every GPU version) under compute-sanitizer."""
    sanitize(tool, __file__, "tsp_sanitizer_cases.py")
