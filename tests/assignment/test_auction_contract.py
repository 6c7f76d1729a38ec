"""The auction on the shared contract, without a GPU: the result type, the stats names, the
option messages, the GPU module's tables and defines, the bench presets and their rows."""
import inspect
import json
import re

import numpy as np
import pytest

from gpualgo import bench, gpu, result, results, variants
from gpualgo import assignment as A
from gpualgo.assignment.auction import analysis as auction_analysis
from gpualgo.assignment.auction import bench as auction_bench
from gpualgo.assignment.auction import gpu as auction_gpu

CU = gpu.kernel_source("auction")


def test_result_inherits_result_and_names_its_objective():
    r = A.solve(A.report_instance(12, seed=3), variant="serial")
    assert isinstance(r, result.Result) and isinstance(r, A.AssignmentResult)
    assert r.objective_name == "total benefit"
    assert r.summary().startswith(f"serial: total benefit {r.objective:,}; ")
    assert r.summary().endswith(f"on {gpu.cpu_label()}")


def test_serial_stats_use_the_times_names():
    r = A.solve(A.report_instance(40, density=0.5, seed=1), variant="serial", eps=1.0)
    s = r.stats
    for name in ("total_ms", "prepare_ms", "exec_ms"):
        assert name in result.TIMES and s[name] >= 0
    assert s["prepare_ms"] + s["exec_ms"] <= s["total_ms"]
    assert s["device"] == gpu.cpu_label()
    assert "solve_ms" not in s and "kernel_ms" not in s


def test_unknown_option_names_the_options_the_variant_takes():
    B = np.ones((3, 3))
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['bid_threads'\] for serial; it takes \[.*'eps_factor'"):
        A.solve(B, variant="serial", bid_threads=64)
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['scaling'\] for gpu_v1"):
        A.solve(B, variant="gpu_v1", scaling=True)  # refused before a GPU is asked for
    with pytest.raises(ValueError, match="unknown variant 'gpu_nope' of auction"):
        A.solve(B, variant="gpu_nope")


def test_the_tail_clock_option_is_checked_before_a_gpu_is_asked_for():
    with pytest.raises(ValueError, match="time_tail must be one of False, True, got 1"):
        A.solve(np.ones((4, 4)), variant="gpu_eps_scaling", time_tail=1)
    assert auction_gpu.defines(tail_clock=True)["TAIL_CLOCK"] == 1 and auction_gpu.defines()["TAIL_CLOCK"] == 0
    for bad in ("yes", 1, None):
        with pytest.raises(ValueError, match="persistent must be one of False, True"):
            A.solve(np.ones((4, 4)), variant="gpu_sparse", persistent=bad)


def test_solve_checks_the_matrix_first():
    with pytest.raises(ValueError, match="m=3 persons > n=2"):
        A.solve(np.ones((3, 2)), variant="gpu_eps_scaling")  # before the GPU is asked for
    with pytest.raises(ValueError, match="2-D"):
        A.solve(np.ones(3), algorithm="dgs", variant="serial")


def test_every_gpu_variant_has_its_kernels_and_they_exist():
    table = A.solve.__globals__["ALGORITHMS"]["auction"]
    gpu_variants = [v for v, e in table.items() if e.gpu]
    assert list(auction_gpu.KERNELS) == gpu_variants
    defined = set(re.findall(r'extern "C" __global__ void(?: __launch_bounds__\([^)]*\))?\s+(\w+)\(', CU))
    for v, names in auction_gpu.KERNELS.items():
        assert names and set(names) <= defined, (v, set(names) - defined)
    assert set().union(*auction_gpu.KERNELS.values()) == defined  # and no kernel is left out


def test_defines_are_the_cu_files_names_and_its_fallbacks_agree():
    """The constants are defined in Python and passed as defines; the .cu file's fallbacks
    (which only let it compile alone) must not drift from them."""
    d = auction_gpu.defines()
    assert d["TAIL_MAX"] == auction_gpu.TAIL_MAX and d["CACHE_K"] == auction_gpu.CACHE_K
    assert d["KEY_BITS"] == A.problem.KEY_BITS
    for name, value in d.items():
        assert re.search(rf"\b{name}\b", CU), name
        fallback = re.search(rf"#define {name} (\d+)", CU)
        assert fallback and int(fallback.group(1)) == value, name
    assert "_check_memory" not in dir(auction_gpu) and "_to_device" not in dir(auction_gpu)


def test_launch_config_is_checked():
    assert auction_gpu.launch_config("report", n=100, sms=10)["bid"] == ((1, 20), (128,))
    with pytest.raises(ValueError, match="multiple of 32"):
        auction_gpu.launch_config("report", n=100, sms=10, bid_threads=100)
    with pytest.raises(ValueError, match="kernel family"):
        auction_gpu.launch_config("other", n=100, sms=10)


def test_memory_estimates_grow_with_the_instance():
    assert auction_gpu._fast_bytes(1000, ld=1000) == 4 * 1000 * 1000 + (64 + 8 * auction_gpu.CACHE_K) * 1000
    assert auction_gpu._fast_bytes(1000, nnz=10) < auction_gpu._fast_bytes(1000, ld=1000)
    assert auction_gpu._report_bytes(100, 200, 2) > 4 * 100 * 200


# ------------------------------------------------------------------------------- bench


def test_quick_values_are_preset_data_and_no_case_reads_quick():
    for name, p in auction_bench.PRESETS.items():
        assert p.quick, name
        params = bench._params(p, {"quick": True})
        for k, v in p.quick.items():
            assert params[k] == v
    assert 'p["quick"]' not in inspect.getsource(auction_bench)


def _run(preset, **over):
    p = auction_bench.PRESETS[preset]
    params = bench._params(p, dict(quick=True, **over))
    return [row for case in p.cases(params) for row in case.run()]


def test_report_rows_have_the_schema_and_are_certified():
    rows = _run("report", variants=["serial"])
    assert len(rows) == 2 * 2 * 2  # quick: two sizes, two densities, two instances
    for r in rows:
        for c in bench.ROW_COLUMNS:
            assert c in r, c
        assert "time_ms" not in r and r["timeout"] == 0
        assert r["verified"] is True and r["verified_by"] == "dual bound"
        assert r["exec_ms"] is not None and r["kernel_ms"] is None and r["device"] == gpu.cpu_label()
    cols = list(rows[0])
    assert cols.index("instance") < cols.index("variant") < cols.index("rounds")


def test_small_eps_rows_are_proved_optimal():
    rows = _run("small_eps", variants=["serial"], sizes=[40])
    for r in rows:
        B = A.report_instance(40, 40, r["density"], seed=r["seed"])
        assert r["verified"] is True and r["objective"] == A.reference_objective(B)


def test_exact_rows_checked_against_scipy():
    rows = _run("exact", variants=["serial"], sizes=[64], ranges=["0-n"], reps=2)
    by = {}
    for r in rows:
        by.setdefault(r["variant"], []).append(r)
    assert by["scipy"][0]["verified"] is None  # the reference itself
    assert [r["rep"] for r in by["serial"]] == [0, 1]
    assert all(r["verified"] is True and r["verified_by"] == "scipy" for r in by["serial"])
    assert all(r["objective"] == by["scipy"][0]["objective"] for r in by["serial"])
    if "lap" in by:
        assert by["lap"][0]["verified"] is True and by["lap"][0]["device"].endswith("(1 core, lap)")


def test_active_bidders_quick():
    rows = _run("active_bidders")
    assert {r["n"] for r in rows} == {60} and {r["instance"] for r in rows} == {0, 1, 2}


def test_verdict_and_tables():
    rows = [dict(variant="gpu_x", n=10, density=1.0, range="0-n", rep=0, total_ms=2.0, rounds=5, verified=True,
                 verified_by="scipy", speedup_vs_scipy=3.0, tail_cache_hits=3, tail_scans=1),
            dict(variant="gpu_x", n=10, density=1.0, range="0-n", rep=1, total_ms=4.0, rounds=5, verified=False,
                 speedup_vs_scipy=5.0),
            dict(variant="scipy", n=10, density=1.0, range="0-n", rep=0, total_ms=6.0, verified=None)]
    text = auction_analysis.verdict(rows)
    assert text.startswith("1 of 3 answers verified in their run (scipy)") and "1 FAILED" in text
    assert "scipy's, the reference" in text
    assert auction_analysis.speedups(rows, "gpu_x") == {(10, "0-n"): (4.0, 2, False)}
    assert auction_analysis.exact_lines(rows, "gpu_x") == ["n=    10      0-n:      3.0 ms (median of 2),   4.0x scipy, "
                                                           "75% of the tail bids from caches"]
    table = auction_analysis.mean_table(rows[:2], "total_ms", "Time")
    assert "| 10 | 3.0 (1.4) |" in table


def test_recorded_results_use_the_row_schema():
    for preset in ("report", "small_eps", "exact", "threads", "graph_tuning"):
        rec = results.read("auction", preset)
        cols = set(rec.rows[0])
        assert "total_ms" in cols and "instance" in cols and not cols & {"time_ms", "rep_time", "exact", "solver"}
        assert ("migrated" in rec.meta or "cases_recorded" in rec.meta)
        for r in rec.rows:
            if r["variant"] == "serial":
                assert r.get("kernel_ms") is None  # a CPU run has no kernel time
    exact = results.read("auction", "exact").rows
    assert all(r["verified"] is True for r in exact if r["variant"] != "scipy")
    assert json.loads((results.RESULTS_DIR / "auction" / "exact.json").read_text())["params"]["sizes"][0] == 1024


def test_variants_table_is_the_auctions():
    from gpualgo.assignment import auction
    assert isinstance(auction.VARIANTS["serial"], variants.Variant)
    assert list(auction.VARIANTS) == list(A.VARIANTS["auction"])


def test_timeline_rounds_are_checked_before_a_gpu_is_asked_for():
    B = A.report_instance(8, 8, 1.0, seed=1)
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="timeline_rounds"):
            A.solve(B, variant="gpu_queues", timeline_rounds=bad)
    with pytest.raises(ValueError, match="timeline_rounds"):      # an option gpu_graph does not take
        A.solve(B, variant="gpu_graph", timeline_rounds=3)
