"""The TSP on the shared contract: result type, version table, guards, GPU module, kernels,
bench rows and quick values, the notebook's checks, the peers."""
import importlib
import math
import re

import numpy as np
import pytest

from gpualgo import bench, gpu, guards, peers, result, results, tsp
from gpualgo.tsp import checks, serial
from gpualgo.tsp.result import InconsistentTour
from gpualgo.tsp import analysis as tsp_analysis
from gpualgo.tsp import gpu as tsp_gpu

solve_mod = importlib.import_module("gpualgo.tsp.solve")


def test_result_inherits_the_common_result():
    inst = tsp.random_euclidean(7, seed=3)
    r = tsp.solve(inst, variant="held_karp")
    assert isinstance(r, result.Result) and isinstance(r, tsp.TSPResult)
    assert r.objective == r.length and tsp.TSPResult.objective_name == "length"
    assert {"total_ms", "prepare_ms", "exec_ms", "device", "states", "cost_dtype"} <= set(r.stats)
    assert r.stats["device"] == gpu.cpu_label()
    assert r.summary().startswith(f"held_karp: length {r.length:,}; ") and gpu.cpu_label() in r.summary()
    bf = tsp.solve(inst, variant="serial_bruteforce")
    assert bf.stats["permutations"] == math.factorial(6) // 2 and bf.stats["perms_per_s"] > 0
    assert bf.stats["total_ms"] >= bf.stats["exec_ms"]


def test_make_result_checks_the_reported_length_and_the_infeasible_case():
    inst = tsp.random_euclidean(6, seed=1)
    prep = serial.prepare(inst, brute_force=False)
    tour = np.arange(6)
    good = tsp.make_result(prep, "x", tsp.tour_length(inst, tour), tour, {}, 0.0)
    assert good.feasible and good.length == tsp.tour_length(inst, tour)
    with pytest.raises(InconsistentTour, match="reported length"):
        tsp.make_result(prep, "x", good.length + 1, tour, {}, 0.0)
    assert issubclass(InconsistentTour, RuntimeError)
    none = tsp.make_result(prep, "x", prep.big, tour, {}, 0.0)
    assert not none.feasible and none.tour is None and none.objective == math.inf


def test_unknown_option_names_what_the_version_takes():
    d = tsp.random_euclidean(5, seed=0)
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['batch'\] for gpu_unrank; it takes "
                                         r"\['block', 'matrix', 'max_free', 'symmetric'\]"):
        tsp.solve(d, variant="gpu_unrank", batch=5)
    with pytest.raises(ValueError, match=r"unknown variant 'serial'; known: \['serial_bruteforce'"):
        tsp.solve(d, variant="serial")


def test_time_guard_refuses_with_its_estimate_and_force_insists(monkeypatch):
    monkeypatch.setattr(solve_mod, "MAX_SECONDS", 1e-12)
    inst = tsp.random_euclidean(6, seed=2)
    for variant in ("serial_bruteforce", "held_karp"):
        with pytest.raises(ValueError, match=r"on n=6 cities .* about 0 s \(limit 0 s\); .*force=True"):
            tsp.solve(inst, variant=variant)
        assert tsp.solve(inst, variant=variant, force=True).feasible


def test_host_memory_guard_of_held_karp(monkeypatch):
    monkeypatch.setattr(guards, "host_bytes", lambda: 1000)
    inst = tsp.random_euclidean(10, seed=2)       # a table of 2^9 * 9 int32 entries: 18 KiB
    with pytest.raises(ValueError, match=r"serial Held-Karp on n=10 cities \(its table .*\) needs about 18.0 KiB of "
                                         r"host memory and 1.0 KiB can be had now; use gpu_held_karp, or pass force"):
        tsp.solve(inst, variant="held_karp")
    assert tsp.solve(inst, variant="held_karp", force=True).length == tsp.solve(inst, variant="serial_bruteforce").length
    # brute force keeps no table: no memory guard
    tsp.solve(inst, variant="serial_bruteforce")


def test_gpu_module_imports_without_a_gpu_and_names_its_kernels():
    assert set(tsp_gpu.KERNELS) == {v for v, e in tsp.VARIANTS.items() if e.gpu}
    source = gpu.kernel_source("tsp")
    defined = set(re.findall(r'extern "C" __global__ void (\w+)\(', source))
    launched = {k for ks in (*tsp_gpu.KERNELS.values(), *tsp_gpu.OPTION_KERNELS.values()) for k in ks}
    assert launched == defined, "every kernel is launched by a version, and every launched kernel exists"
    assert set(tsp_gpu.OPTION_KERNELS) <= set(tsp_gpu.KERNELS)
    for name in tsp.VARIANTS:
        fn = tsp.VARIANTS[name].function()
        assert fn.__module__ == ("gpualgo.tsp.gpu" if name.startswith("gpu") else "gpualgo.tsp.serial")


def test_compile_time_constants_come_from_the_host(monkeypatch):
    seen = []
    monkeypatch.setattr(gpu, "load_module", lambda name, defines=None, **kw: seen.append((name, defines)))
    tsp_gpu._module(np.int32)
    tsp_gpu._module(np.int64)
    assert seen[0] == ("tsp", {"MAXN": tsp_gpu.BF_MAX_N, "MAXK": tsp.enumeration.MAX_FREE,
                               "HK_MAXN": tsp_gpu.HK_MAX_N})
    assert seen[1][1]["COST_INT64"] == 1
    source = gpu.kernel_source("tsp")
    for name in ("MAXN", "MAXK", "HK_MAXN"):     # in the .cu only as the default of a standalone compile
        assert re.search(rf"#ifndef {name}\n#define {name} \d+", source), name
    assert tsp_gpu._binomials().shape == (tsp_gpu.HK_MAX_N, tsp_gpu.HK_MAX_N)


def test_kernel_banners_follow_the_readme():
    lines = gpu.kernel_source("tsp").splitlines()
    rule = "// " + "-" * 84
    starts = [i for i, line in enumerate(lines) if line == rule and i + 2 < len(lines) and lines[i + 2] == rule]
    assert len(starts) >= 4
    for i in starts:
        assert lines[i + 1].startswith("// ") and not lines[i + 1].startswith("// -")
    assert all(line == rule or not line.startswith("// ---") for line in lines), "one rule length"


def test_launch_config_is_the_one_place_for_grids(monkeypatch):
    monkeypatch.setattr(gpu, "sm_count", lambda: 100)

    class K:
        num_regs = 32
    assert tsp_gpu.launch_config(K, 256, None) == (1, 1)
    assert tsp_gpu.launch_config(K, 256, 1000) == (4, 1)                 # fewer blocks than a wave
    grid, per = tsp_gpu.launch_config(K, 256, 10**9)                     # one wave, grid-stride
    assert grid == 100 * 8 and per == math.ceil(10**9 / (grid * 256))
    grid, per = tsp_gpu.launch_config(K, 256, 300 * 256 * 256 + 1, tsp_gpu.MIN_PER_THREAD)
    assert grid * 256 * per >= 300 * 256 * 256 + 1 and (grid - 1) * 256 * per < 300 * 256 * 256 + 1


def test_quick_values_are_data_and_applied():
    for name, p in bench.presets("tsp").items():
        assert p.quick, name
        params = bench._params(p, {"quick": True})
        assert all(params[k] == v for k, v in p.quick.items()), name
        assert list(p.cases(params)), name
    scaling = bench._params(bench.presets("tsp")["scaling"], {"quick": True})
    labels = [c.label for c in bench.presets("tsp")["scaling"].cases(scaling)]
    assert "serial_bruteforce n=5" in labels and "serial_bruteforce n=8" not in labels
    assert "held_karp n=9" in labels and "peers n=7" in labels


def test_rows_have_the_shared_schema():
    rows = bench.run_preset("tsp", "cpu", progress=False, quick=True, peers_max=5)
    for r in rows:
        cols = list(r)
        i = cols.index("variant")
        assert tuple(cols[i:i + len(bench.ROW_COLUMNS)]) == bench.ROW_COLUMNS, cols
        assert "time_ms" not in r and "length" not in r and "solver" not in r
    solver_rows = [r for r in rows if r["variant"] in tsp.VARIANTS]
    assert solver_rows and all({"permutations", "perms_per_s", "states", "cost_dtype"} <= set(r) for r in solver_rows)


def test_checks_pass_a_right_answer_and_fail_a_wrong_one():
    inst = tsp.random_graph(8, density=0.7, seed=5, plant_tour=True)
    hk = tsp.solve(inst, variant="held_karp")
    bf = tsp.solve(inst, variant="serial_bruteforce")
    assert "verified" in checks.against(inst, hk)(bf) and str(hk.length) in checks.check_result(bf, inst, hk)
    assert "the very same tour" in checks.check_result(bf, inst, bf, same_tour=True)
    wrong = tsp.TSPResult(tour=bf.tour, length=bf.length + 1, feasible=True, variant="bad")
    with pytest.raises(AssertionError, match="reports length"):
        checks.check_result(wrong, inst, hk)
    other = tsp.TSPResult(tour=np.arange(8), length=tsp.tour_length(inst, np.arange(8)), feasible=True, variant="bad")
    assert other.length > hk.length       # a valid tour, honestly measured, but not the optimum
    with pytest.raises(AssertionError, match="finds length"):
        checks.check_result(other, inst, hk)
    back = np.r_[0, bf.tour[:0:-1]]        # the same cycle walked the other way: same length
    rev = tsp.TSPResult(tour=back, length=tsp.tour_length(inst, back), feasible=True, variant="rev")
    assert "verified" in checks.check_result(rev, inst, bf)
    with pytest.raises(AssertionError, match="returns the tour"):
        checks.check_result(rev, inst, bf, same_tour=True)
    with pytest.raises(AssertionError, match="no feasible tour"):
        checks.check_result(tsp.TSPResult(None, math.inf, False, "none"), inst, hk)
    with pytest.raises(ValueError, match="appears"):
        checks.check_result(tsp.TSPResult(np.zeros(8, dtype=np.int64), 0, True, "bad"), inst, hk)
    d = np.full((5, 5), np.inf)
    none = tsp.solve(d, variant="held_karp")
    assert "no feasible tour" in checks.check_result(tsp.solve(d, variant="serial_bruteforce"), d, none)
    with pytest.raises(AssertionError, match="finds none"):
        checks.check_result(hk, inst, none)


def test_peers_take_plain_matrices_and_are_checked_on_the_tsp_side(monkeypatch):
    inst = tsp.random_graph(7, density=0.6, seed=4, plant_tour=True)
    opt = tsp.solve(inst, variant="held_karp").length
    D = checks.peer_matrix(inst)
    assert D.dtype == np.int64 and (D[inst.missing] > opt).all()
    if peers.available("ortools_routing"):
        tour, length = peers.ortools_tour(D)
        assert tour[0] == 0 and sorted(tour.tolist()) == list(range(7)) and length >= opt
        assert checks.peer_tour(inst, "ortools_routing")[1] >= opt
    else:
        assert peers.ortools_tour(D) is None and checks.peer_tour(inst, "ortools_routing") is None
    if peers.available("python_tsp"):
        assert checks.peer_tour(inst, "python_tsp")[1] == opt
    else:
        assert peers.python_tsp_tour(D) is None
    # a peer whose reported length is not its tour's is caught
    monkeypatch.setattr(peers, "python_tsp_tour", lambda D: (np.arange(D.shape[0]), -1.0))
    with pytest.raises(RuntimeError, match="reported -1.0"):
        checks.peer_tour(tsp.random_euclidean(5, seed=0), "python_tsp")
    with pytest.raises(ValueError, match="unknown TSP peer"):
        checks.peer_tour(inst, "lap")


def test_what_the_figures_read():
    rows = [dict(variant="gpu_unrank", n=10, perms_per_s=1.0), dict(variant="gpu_unrank", n=10, perms_per_s=3.0),
            dict(variant="gpu_unrank", n=9, perms_per_s=2.0), dict(variant="gpu_x", n=9, perms_per_s=5.0)]
    assert tsp_analysis.best_rates(rows) == {"gpu_unrank": ([9, 10], [2.0, 3.0]), "gpu_x": ([9], [5.0])}
    gaps = [dict(variant="ortools_routing", gap=0.01), dict(variant="ortools_routing", gap=0.03),
            dict(variant="ortools_routing_gls", gap=0.0), dict(variant="held_karp", gap=None)]
    assert tsp_analysis.largest_gaps(gaps) == {"ortools_routing": 0.03, "ortools_routing_gls": 0.0}


def test_targets_report_gives_a_verdict_per_goal():
    # measured now on a GPU, else the recorded rows
    if gpu.available():
        rows = bench.run_preset("tsp", "targets", progress=False, quick=True)
    else:
        rows = results.read("tsp", "targets").rows
    text = tsp_analysis.targets_report(rows)
    assert text.count("goal ") == 4 and text.count("not measured") == (1 if gpu.available() else 0)  # quick: n <= 7
    assert re.search(r"goal at least 2e10 orders/s: (met|missed) \(lowest ", text)
    assert tsp_analysis.targets_report([]).count("not measured") == 4
    slow = [dict(variant="gpu_shared_incremental", n=13, symmetric=True, total_ms=1.0, perms_per_s=1e9)]
    assert "orders/s: missed (lowest 1e+09)" in tsp_analysis.targets_report(slow)
    assert "goal at least 3e11 orders/s at n = 14 and 15: not measured" in tsp_analysis.targets_report(slow)
    assert "goal n=16 exact in under 120 s: not measured" in tsp_analysis.targets_report(slow)
    full = [dict(variant="gpu_shared_incremental", n=n, symmetric=s, total_ms=1.0, perms_per_s=r)
            for n, s, r in ((13, True, 1e9), (14, False, 4e11), (15, True, 2.9e11))]
    assert "at n = 14 and 15: missed (lowest 2.9e+11)" in tsp_analysis.targets_report(full)
    full[2]["perms_per_s"] = 3e11                       # n = 13's low rate does not count
    assert "at n = 14 and 15: met (lowest 3e+11)" in tsp_analysis.targets_report(full)
    if not gpu.available():                             # the recorded H100 run
        assert "at n = 14 and 15: met" in text
