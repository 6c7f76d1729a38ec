"""Serial versions against each other and python-tsp; the enumeration; solve()'s guards."""
import importlib
import itertools
import math

import numpy as np
import pytest

from gpualgo import peers, tsp
from gpualgo.tsp import enumeration
from gpualgo.tsp import gpu as tsp_gpu

solve_mod = importlib.import_module("gpualgo.tsp.solve")


def _every_tour_length(inst):
    """Independent reference: try every order of the cities after 0 (itertools)."""
    best = math.inf
    for perm in itertools.permutations(range(1, inst.n)):
        best = min(best, tsp.tour_length(inst, (0,) + perm))
    return best


def _instances(rng, n):
    s = int(rng.integers(2**31))
    return [tsp.random_euclidean(n, seed=s), tsp.random_graph(n, density=0.5, seed=s),
            tsp.random_graph(n, density=0.6, seed=s, symmetric=False),
            tsp.random_asymmetric(n, seed=s, high=20)]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7])
def test_serial_versions_against_itertools(n, rng):
    for inst in _instances(rng, n):
        want = _every_tour_length(inst)
        for variant in ("serial_bruteforce", "cpu_prange", "held_karp"):
            r = tsp.solve(inst, variant=variant)
            assert r.length == want
            assert r.feasible == (want != math.inf)
            if r.feasible:
                assert tsp.tour_length(inst, r.tour) == want and r.tour[0] == 0
            else:
                assert r.tour is None


@pytest.mark.parametrize("n", [8, 9, 10])
def test_brute_force_against_held_karp_and_python_tsp(n, rng):
    # python-tsp is an optional peer (see gpualgo.peers): compared with where it is installed
    python_tsp = peers.load("python_tsp")
    for inst in _instances(rng, n):
        bf = tsp.solve(inst, variant="serial_bruteforce")
        hk = tsp.solve(inst, variant="held_karp")
        assert bf.length == hk.length
        if not hk.feasible or python_tsp is None:
            continue
        big = 10**7        # python-tsp has no missing edges: give them a huge weight
        d = np.where(inst.missing, big, inst.dist).astype(float)
        _, dist = python_tsp.solve_tsp_dynamic_programming(d)
        assert dist == hk.length


@pytest.mark.parametrize("symmetric", [False, True])
@pytest.mark.parametrize("max_free", [1, 2, 4, 20])
def test_chunking_does_not_change_the_answer(symmetric, max_free, rng):
    inst = tsp.random_euclidean(8, seed=int(rng.integers(2**31)))
    ref = tsp.solve(inst, variant="serial_bruteforce", symmetric=symmetric)
    r = tsp.solve(inst, variant="serial_bruteforce", symmetric=symmetric, max_free=max_free)
    assert r.length == ref.length
    np.testing.assert_array_equal(r.tour, ref.tour)     # same order, same first best


@pytest.mark.parametrize("n, symmetric, max_free", [(2, False, 20), (3, True, 20), (6, True, 20),
                                                    (7, False, 3), (8, True, 2), (7, True, 1)])
def test_enumeration_visits_every_tour_once(n, symmetric, max_free):
    plan = enumeration.make_plan(n, symmetric, max_free)
    tours = [tuple(plan.tour_of_rank(g)) for g in range(plan.total)]
    assert len(set(tours)) == len(tours) == enumeration.count_tours(n, symmetric)
    cycles = {min(t[1:], t[:0:-1]) if plan.symmetric else t[1:] for t in tours}
    assert len(cycles) == len(tours)          # no tour and its reverse both
    # chunks follow each other in rank order, and local order is lexicographic
    for g in range(1, plan.total):
        c0, c1 = divmod(g - 1, plan.kfact)[0], divmod(g, plan.kfact)[0]
        if c0 == c1:
            assert tours[g] > tours[g - 1]


@pytest.mark.parametrize("n, symmetric, max_free", [(6, True, 20), (7, False, 3), (8, True, 2)])
def test_host_order_generator_matches_the_plan(n, symmetric, max_free):
    # the generator of gpu_host_chunks runs on the CPU: check it, split in uneven batches
    plan = enumeration.make_plan(n, symmetric, max_free)
    out = np.zeros(plan.total * (n - 1), np.uint8)
    chunk = local = done = 0
    while done < plan.total:
        cnt = min(37, plan.total - done)
        chunk, local = tsp_gpu._fill_orders(n, plan.prefix, plan.last, plan.f, plan.k,
                                            chunk, local, cnt,
                                            out[done * (n - 1):(done + cnt) * (n - 1)].reshape(cnt, n - 1))
        done += cnt
    rows = out.reshape(plan.total, n - 1)
    for g in range(plan.total):
        assert rows[g].tolist() == plan.tour_of_rank(g)[1:].tolist()


def test_unrank_and_rank():
    items = [1, 3, 4, 7]
    perms = [enumeration.unrank(r, items) for r in range(24)]
    assert perms == [list(p) for p in itertools.permutations(items)]
    assert [enumeration.rank(p) for p in perms] == list(range(24))


def test_large_n_is_split_below_64_bits():
    plan = enumeration.make_plan(24, symmetric=False)
    assert plan.k == 20 and plan.total == math.factorial(23) > 2**64
    assert plan.kfact < 2**63


def test_size_guards():
    inst = tsp.random_euclidean(16, seed=0)
    with pytest.raises(ValueError, match="force=True") as exc:
        tsp.solve(inst, variant="serial_bruteforce")
    assert "orders" in str(exc.value) and "about" in str(exc.value)
    with pytest.raises(ValueError, match="force=True"):
        tsp.solve(tsp.random_euclidean(30, seed=0), variant="held_karp")
    assert tsp.estimate_seconds(20, "gpu_shared_incremental") > 3600


@pytest.mark.parametrize("n, variant", [(200, "serial_bruteforce"), (200, "gpu_shared_incremental"),
                                        (1000, "held_karp"), (1000, "gpu_held_karp"), (5000, "held_karp"),
                                        (10**6, "serial_bruteforce")])
def test_huge_sizes_get_an_estimate_not_an_overflow(n, variant):
    secs = tsp.estimate_seconds(n, variant)
    assert isinstance(secs, float) and secs > solve_mod.MAX_SECONDS
    work = solve_mod.estimate_work(n, variant)
    assert work == pytest.approx(secs * {**solve_mod.RATES, **solve_mod.HK_RATES}[variant])


def test_huge_sizes_are_refused_by_solve_with_the_estimate():
    # n = 1000 Held-Karp (about 1e297 s) and n = 200 brute force (more orders than a float
    # holds): refused with the estimate, not an OverflowError
    d = np.ones((1000, 1000), dtype=np.int64)
    with pytest.raises(ValueError, match=r"held_karp on n=1000 cities .* about .* years"):
        tsp.solve(d, variant="held_karp")
    with pytest.raises(ValueError, match=r"more than 1e308 orders"):
        tsp.solve(d[:200, :200], variant="serial_bruteforce")


def test_unknown_variant_and_options():
    d = tsp.random_euclidean(5, seed=0)
    with pytest.raises(ValueError, match="unknown variant"):
        tsp.solve(d, variant="nope")
    with pytest.raises(ValueError, match="unknown option"):
        tsp.solve(d, variant="held_karp", block=64)
    with pytest.raises(ValueError, match="symmetric"):
        tsp.solve(tsp.random_asymmetric(5, seed=0), variant="serial_bruteforce", symmetric=True)


def test_gpu_variants_without_gpu_raise():
    from gpualgo import gpu
    if gpu.available():
        pytest.skip("a GPU is present")
    for v in ("gpu_host_chunks", "gpu_unrank", "gpu_shared_incremental", "gpu_held_karp"):
        with pytest.raises(gpu.GPUUnavailableError):
            tsp.solve(tsp.random_euclidean(5, seed=0), variant=v)


def test_variants_registry():
    assert list(tsp.VARIANTS) == ["serial_bruteforce", "cpu_prange", "held_karp", "gpu_host_chunks", "gpu_unrank",
                                  "gpu_shared_incremental", "gpu_held_karp"]
    brute = {"symmetric", "max_free"}
    assert {v: set(e.options) for v, e in tsp.VARIANTS.items()} == {
        "serial_bruteforce": brute, "cpu_prange": brute, "held_karp": {"force"},
        "gpu_host_chunks": brute | {"block", "batch", "index", "host_buffer", "matrix", "layout", "reduce"},
        "gpu_unrank": brute | {"block", "matrix"}, "gpu_shared_incremental": brute | {"block", "matrix", "incremental", "suffix"},
        "gpu_held_karp": {"block", "force"}}
    assert [v for v, e in tsp.VARIANTS.items() if e.gpu] == [v for v in tsp.VARIANTS if v.startswith("gpu_")]


def test_bench_presets_quick_cpu():
    from gpualgo import bench
    rows = bench.run_preset("tsp", "cpu", progress=False, quick=True)
    by = {r["variant"] for r in rows}
    exact = {"serial_bruteforce", "cpu_prange", "held_karp"} | ({"python_tsp_dp"} if peers.available("python_tsp") else set())
    assert exact <= by
    if peers.available("ortools_routing"):
        assert {"ortools_routing", "ortools_routing_gls"} <= by
    for n in {r["n"] for r in rows}:
        lengths = {r["objective"] for r in rows if r["n"] == n and r["variant"] in exact}
        assert len(lengths) == 1, f"exact solvers disagree at n={n}: {lengths}"
        heuristic = [r for r in rows if r["n"] == n and r["variant"] not in exact]
        assert all(r["objective"] >= min(lengths) and r["gap"] >= 0 for r in heuristic)
    # the exact rows were checked against the other exact algorithm where its serial version
    # runs in this sweep (quick: brute force up to n = 7), the heuristic's rows never
    bf_max = bench.presets("tsp")["cpu"].quick["serial_bf_max"]
    for r in rows:
        want = None
        if r["variant"] in exact:
            want = True if r["variant"] != "held_karp" or r["n"] <= bf_max else None
        assert r["verified"] is want, r
    for name, p in bench.presets("tsp").items():
        assert list(p.cases(bench._params(p, {"quick": True}))), name


@pytest.mark.parametrize("n", [4, 6, 8, 9])
@pytest.mark.parametrize("symmetric", [None, False])
def test_prange_brute_force_finds_the_serial_tour(n, symmetric, rng):
    # the chunks shared among the cores, the same orders: the very same tour as the serial walk
    for inst in _instances(rng, n):
        sym = symmetric if inst.symmetric else False
        ref = tsp.solve(inst, variant="serial_bruteforce", symmetric=sym)
        for max_free in (20, 3):
            r = tsp.solve(inst, variant="cpu_prange", symmetric=sym, max_free=max_free)
            assert r.length == ref.length and r.stats["permutations"] == ref.stats["permutations"]
            assert (r.tour is None) == (ref.tour is None)
            if r.tour is not None:
                assert r.tour.tolist() == ref.tour.tolist()


@pytest.mark.parametrize("n, symmetric, cores", [(5, True, 2), (9, False, 2), (12, True, 16), (3, False, 64)])
def test_parallel_plan_cuts_the_same_orders_into_enough_chunks(n, symmetric, cores):
    from gpualgo.tsp import enumeration, serial
    plan = serial.parallel_plan(n, symmetric, cores=cores)
    assert plan.total == enumeration.count_tours(n, symmetric and n >= 4)
    assert plan.n_chunks >= serial.CHUNKS_PER_CORE * cores or plan.k == 1
    ranks = [plan.tour_of_rank(g).tolist() for g in range(min(plan.total, 200))]
    whole = enumeration.make_plan(n, symmetric)
    assert ranks == [whole.tour_of_rank(g).tolist() for g in range(min(whole.total, 200))]


def test_version_c_ranges_start_in_phase(rng):
    """Version (c)'s per-thread range (:func:`gpualgo.tsp.gpu.in_phase`): a multiple of the
    largest j! (j <= k) that costs under 1/PHASE_SLACK more orders per thread."""
    import math
    from gpualgo.tsp.gpu import PHASE_SLACK, in_phase
    for _ in range(200):
        k = int(rng.integers(1, 16))
        per = int(rng.integers(1, 10**9))
        got = in_phase(per, k)
        j = max(i for i in range(1, k + 1) if i == 1 or math.factorial(i) * PHASE_SLACK <= per)
        assert got % math.factorial(j) == 0 and per <= got < per + math.factorial(j)
        assert got - per < max(per / PHASE_SLACK, 1)
