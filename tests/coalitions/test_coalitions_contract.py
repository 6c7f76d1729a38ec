"""The coalition problem on the shared contract: result, versions table, guards, GPU module
(importable without a GPU), kernels named, bench presets and rows, the checks, the analysis."""
import importlib
import inspect
import math
import json
import re

import numpy as np
import pytest

from gpualgo import bench, gpu, guards, results
from gpualgo import coalitions as co
from gpualgo.coalitions import analysis, checks, serial
from gpualgo.coalitions import gpu as co_gpu
from gpualgo.result import TIMES, Result

solve_mod = importlib.import_module("gpualgo.coalitions.solve")
coal_bench = importlib.import_module("gpualgo.coalitions.bench")


# --------------------------------------------------------------------------- result

def test_result_inherits_result_and_names_its_objective():
    v = co.random_values(7, "ndcs", seed=2)
    r = co.solve(v, variant="serial")
    assert isinstance(r, co.CoalitionResult) and isinstance(r, Result)
    assert r.objective == r.value and co.CoalitionResult.objective_name == "value"
    assert r.summary().startswith(f"serial: value {r.value:.6g}; ") and gpu.cpu_label() in r.summary()
    assert set(TIMES) - {"kernel_ms", "prepare_ms"} <= set(r.stats)


def test_make_result_checks_the_table_value_by_dtype():
    v32 = co.random_values(6, seed=1, dtype=np.float32)
    f, _ = serial.dp(v32, 6, "dp")
    parts = serial.rebuild(v32, f, 6)
    r = co.make_result(v32, parts, f[-1] * np.float32(1 + 1e-6), "serial", {})   # float32 rounding: accepted
    assert r.stats["dtype"] == "float32" and r.stats["n"] == 6 and r.stats["rule"] == "dp"
    with pytest.raises(RuntimeError, match="differs from the value"):
        co.make_result(v32, parts, f[-1] * 1.01, "serial", {})
    v64 = v32.astype(np.float64)
    with pytest.raises(RuntimeError, match="differs from the value"):
        co.make_result(v64, parts, float(co.partition_value(v64, parts)) * (1 + 1e-6), "serial", {})
    with pytest.raises(ValueError, match="no coalition"):
        co.make_result(v64, parts[1:], f[-1], "serial", {})


# ------------------------------------------------------------------- versions table

def test_unknown_variant_and_option_messages():
    v = co.random_values(3, seed=1)
    with pytest.raises(ValueError, match=r"unknown variant 'nope'; known: \['serial', 'serial_odp', "):
        co.solve(v, variant="nope")
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['block'\] for serial; it takes \['rule'\]"):
        co.solve(v, variant="serial", block=32)
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['rule'\] for serial_odp; it takes none"):
        co.solve(v, variant="serial_odp", rule="dp")
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['rule'\] for gpu_report; it takes "
                                         r"\['block', 'coalitions_per_thread', 'per_thread'\]"):
        co.solve(v, variant="gpu_report", rule="odp")


def test_default_rules_of_the_estimates_are_the_versions_own():
    assert inspect.signature(serial.solve_dp).parameters["rule"].default == "dp"
    assert inspect.signature(co_gpu.odp).parameters["rule"].default == solve_mod._DEFAULT_RULE["gpu_odp"] == "odp"
    v = co.random_values(9, seed=3)
    assert co.solve(v, variant="serial_odp").stats["rule"] == solve_mod._DEFAULT_RULE["serial_odp"]
    assert co.solve(v, variant="serial").stats["rule"] == "dp"


def test_each_version_is_its_function():
    v = co.random_values(8, "agent_based", seed=4)
    direct = serial.solve_dp(v, rule="idp")
    assert direct.variant == "serial" and direct.stats["rule"] == "idp" and direct.stats["total_ms"] > 0
    assert serial.solve_odp(v).variant == "serial_odp"
    assert abs(direct.value - co.brute_force(v)[0]) < 1e-9


# --------------------------------------------------------------------------- guards

def test_time_guard_states_the_estimate_and_yields_to_force(monkeypatch):
    v = co.random_values(8, seed=1)
    monkeypatch.setattr(solve_mod, "MAX_SECONDS", 1e-9)
    secs = co.estimate_seconds(8, "serial")
    with pytest.raises(ValueError, match=r"serial on n=8 agents evaluates 3.02e\+03 splits: about 0 s "
                                         r"\(limit 0 s\); use gpu_odp, or pass force=True"):
        co.solve(v, variant="serial")
    assert secs == co.total_splits(8) / co.RATES["serial"]
    assert abs(co.solve(v, variant="serial", force=True).value - co.brute_force(v)[0]) < 1e-9


def test_memory_guard_states_the_estimate_and_yields_to_force(monkeypatch):
    v = co.random_values(12, seed=1, dtype=np.float32)
    need, where = solve_mod.table_need(12, v.dtype, "serial")
    assert (need, where) == (co.table_bytes(12, np.float32, tables=2), "host") == (32768, "host")
    monkeypatch.setattr(guards, "host_bytes", lambda: need)      # 90 % of it is too little
    with pytest.raises(ValueError, match=r"n=12 agents as float32 needs about 32.0 KiB of host memory and "
                                         r"32.0 KiB can be had now; pass force=True to try anyway"):
        co.solve(v, variant="serial")
    assert co.solve(v, variant="serial", force=True).stats["n"] == 12
    with pytest.raises(ValueError, match="of host memory"):
        co.random_values(12, seed=1)
    assert co.random_values(12, seed=1, force=True).shape == (4096,)


def test_gpu_tables_are_counted_on_the_gpu(monkeypatch):
    assert solve_mod.table_need(20, np.float32, "gpu_odp") == (co.table_bytes(20, np.float32, tables=1), "GPU")
    assert solve_mod.table_need(20, np.float64, "gpu_report") == (co.table_bytes(20, np.float64, tables=2), "GPU")
    # the GPU's memory as the guard sees it (no GPU needed to check the refusal)
    monkeypatch.setattr(gpu, "require", lambda: None)
    monkeypatch.setattr(gpu, "usable_bytes", lambda: 1 << 20)
    with pytest.raises(ValueError, match=r"n=18 agents as float32 needs about 1.0 MiB of GPU memory and 1.0 MiB"):
        co.solve(np.zeros(1 << 18, dtype=np.float32), variant="gpu_odp")


# ------------------------------------------------------------ GPU module and kernels

def test_gpu_module_imports_without_a_gpu_and_names_its_kernels():
    src = gpu.kernel_source("coalitions")
    defined = set(re.findall(r'extern "C" __global__ void (\w+)\(', src))
    assert set(co_gpu.KERNELS) == {v for v in co.VARIANTS if co.VARIANTS[v].gpu}
    launched = {k for ks in co_gpu.KERNELS.values() for k in ks}
    assert launched == defined, (launched, defined)
    for name in launched:   # launch_config sizes every launch
        assert f'"{name}"' in co_gpu.launch_config.__doc__


def test_kernel_banners_follow_the_readme():
    lines = gpu.kernel_source("coalitions").splitlines()
    rule = "// " + "-" * 84
    starts = [i for i, ln in enumerate(lines) if ln == rule]
    assert len(starts) == 14 and all(lines[i + 2] == rule for i in starts[::2])
    titles = [lines[i + 1] for i in starts[::2]]
    assert [t.split(":")[0] for t in titles] == ["// Every version",
                                                 "// Phase clocks (-DPHASE_CLOCKS)",
                                                 "// Version gpu_report (the report's kernel)",
                                                 "// Version gpu_shared_splits",
                                                 "// Version gpu_odp (beyond the report)",
                                                 "// Version gpu_odp, its bound",
                                                 "// Every version, the rebuild (Algorithm 2)"]
    assert all(len(t) <= len(rule) for t in titles)
    # shared splits reuse values in registers: no __shared__ memory in that kernel
    body = "\n".join(lines[starts[6]:starts[8]])
    assert "__shared__" not in body and "registers" in body


def test_share_max_is_one_define():
    assert "defines()" in inspect.getsource(co_gpu._module) and co_gpu.defines()["SHARE_MAX"] == co_gpu.SHARE_MAX
    assert re.search(r"#ifndef SHARE_MAX\n#define SHARE_MAX 8\n", gpu.kernel_source("coalitions"))
    assert co_gpu.SHARE_MAX == 8


def _old_report_grid(count, s, per_thread, share, block):
    group_log2 = max(0, (s - 1) - int(math.log2(per_thread)))
    return max(1, -(-((-(-count // share)) << group_log2) // block)), group_log2


def test_the_default_visits_fit_every_level():
    """A report kernel whose caller gives no coalitions_per_thread takes, the same at every level,
    as many coalitions a group as it needs for every level's grid to fit the hardware's limit
    (1 for gpu_report, ``share`` for shared splits, wherever that fits)."""
    assert co_gpu.fitting_visits("report_kernel", 24, 256, 4) == 1
    assert co_gpu.fitting_visits("report_kernel", 28, 256, 4) == 1
    assert co_gpu.fitting_visits("report_kernel", 29, 256, 4) == 4
    assert co_gpu.fitting_visits("report_kernel", 29, 256, 16) == 1
    assert co_gpu.fitting_visits("shared_splits_kernel", 29, 256, 16, 4, 4) == 4
    for n in (20, 28, 29, 30):
        visits = co_gpu.fitting_visits("report_kernel", n, 256, co_gpu.PER_THREAD["gpu_report"])
        for s in range(2, n + 1):   # every level fits, and half as many coalitions a group would not fit some level
            co_gpu.launch_config("report_kernel", block=256, coalitions=math.comb(n, s), size=s,
                                 per_thread=co_gpu.PER_THREAD["gpu_report"], visits=visits)
        if visits > 1:
            with pytest.raises(ValueError, match="raise per_thread"):
                for s in range(2, n + 1):
                    co_gpu.launch_config("report_kernel", block=256, coalitions=math.comb(n, s), size=s,
                                         per_thread=co_gpu.PER_THREAD["gpu_report"], visits=visits // 2)
    assert co_gpu.check_options(per_thread=None)["per_thread"] is None    # resolved per version


@pytest.mark.parametrize("kernel, share", [("report_kernel", 1), ("shared_splits_kernel", 3)])
def test_launch_config_of_the_report_kernels(kernel, share):
    for n in (5, 12, 20):
        for s in range(2, n + 1):
            for per_thread in (1, 16, 1024):
                count = math.comb(n, s)
                cfg = co_gpu.launch_config(kernel, block=256, coalitions=count, size=s, per_thread=per_thread,
                                           share=share)
                assert (cfg["grid"], cfg["group_log2"]) == _old_report_grid(count, s, per_thread, share, 256)
                # enough threads: every counter of every coalition (group) has a thread
                threads = cfg["grid"] * cfg["block"]
                assert threads >= -(-count // share) * max(1, (1 << (s - 1)) // per_thread)
    with pytest.raises(ValueError, match="grid limit; raise per_thread"):
        co_gpu.launch_config("report_kernel", block=32, coalitions=2**31, size=16, per_thread=1)


def test_launch_config_of_the_tiles_and_the_rebuild():
    for h in range(0, 20):
        for t in range(0, 13):
            cfg = co_gpu.launch_config("odp_tile_kernel", block=256, highs=math.comb(19, min(h, 19)), h=h, t=t,
                                       low_bits=12, tiles=16, itemsize=4)
            nx = 1 << (h - 1) if h else 1
            assert cfg["chunks"] * cfg["per"] >= nx and cfg["grid"] <= 2**31 - 1
            g = cfg["group"]
            assert g & (g - 1) == 0 and 1 <= g <= 32 and g <= 1 << t
            assert cfg["shared_bytes"] == (2 * 4096 + math.comb(12, t)) * 4
    for highs, h in ((2**25, 30), (math.comb(30, 15), 15)):   # grids past the hardware limit: fewer chunks
        huge = co_gpu.launch_config("odp_tile_kernel", block=256, highs=highs, h=h, t=1, low_bits=1, tiles=16,
                                    itemsize=4)
        assert huge["grid"] <= 2**31 - 1 and huge["chunks"] * huge["per"] >= 1 << (h - 1)
    assert co_gpu.launch_config("find_split_kernel", splits=8, sms=132) == {"grid": 1, "block": co_gpu.REBUILD_BLOCK}
    assert co_gpu.launch_config("find_split_kernel", splits=2**29, sms=132)["grid"] == 8 * 132
    with pytest.raises(ValueError, match="unknown kernel 'nope'"):
        co_gpu.launch_config("nope")


# ------------------------------------------------------------------------- checks

def test_check_against_serial_scales_by_the_magnitudes():
    """Values that cancel: the optimum is small, its coalitions' values are not; a rounding
    difference of their size passes, a difference of ten times the tolerance does not."""
    v = np.full(8, -1e9)                                        # every larger coalition far worse
    v[0], v[0b001], v[0b010], v[0b100] = 0.0, 3e8, -3e8 + 7.0, 1.0   # singletons: sum 8, magnitude 6e8 + 1
    ref = co.solve(v, variant="serial")
    assert ref.value == 8.0 and ref.stats["magnitude"] == 6e8 - 6
    near = co.CoalitionResult(partition=ref.partition, value=ref.value + 1e-9 * 3e8, variant="gpu_odp",
                              stats=dict(ref.stats))
    assert co.check_against_serial(near, ref).startswith("value equal to the serial DP's within 0.6")
    far = co.CoalitionResult(partition=ref.partition, value=ref.value + 1e-8 * 6e8, variant="gpu_odp",
                             stats=dict(ref.stats))
    with pytest.raises(AssertionError, match="tolerance 0.6"):
        co.check_against_serial(far, ref)


def test_check_against_serial_passes_and_fails():
    v = co.random_values(9, "modified_uniform", seed=6)
    ref = co.solve(v, variant="serial")
    ok = co.solve(v, variant="serial_odp")
    assert co.check_against_serial(ok, ref) == (f"value equal to the serial DP's within {1e-9 * ref.value:.1g}; "
                                                f"its {len(ok.partition)} coalitions hold each of the 9 agents once")
    worse = co.CoalitionResult(partition=[(1 << 9) - 1], value=float(v[-1]), variant="gpu_odp", stats={})
    if abs(worse.value - ref.value) > 1e-9 * ref.value:
        with pytest.raises(AssertionError, match="gpu_odp: value .*, the serial DP found"):
            co.check_against_serial(worse, ref)
    off = co.CoalitionResult(partition=ok.partition, value=ref.value * (1 + 1e-6), variant="gpu_odp", stats={})
    with pytest.raises(AssertionError, match="tolerance"):
        co.check_against_serial(off, ref)
    missing = co.CoalitionResult(partition=ok.partition[1:], value=ref.value, variant="gpu_odp", stats={})
    with pytest.raises(ValueError, match="in no coalition"):
        co.check_against_serial(missing, ref)
    twice = co.CoalitionResult(partition=ok.partition + [1], value=ref.value, variant="gpu_odp", stats={})
    with pytest.raises(ValueError, match="in two coalitions"):
        co.check_against_serial(twice, ref)


def test_float32_tolerance():
    assert checks.tolerance(np.float32) == 1e-4 and checks.tolerance("float64") == 1e-9


# -------------------------------------------------------------------------- bench

def test_quick_values_are_parameters_and_no_case_reads_quick():
    for name, preset in coal_bench.PRESETS.items():
        p = bench._params(preset, {"quick": True})
        assert p == {**preset.params, "quick": True, **preset.quick}, name
        assert preset.quick and set(preset.quick) <= set(preset.params)
    src = inspect.getsource(coal_bench)
    assert '["quick"]' not in src and "'quick'" not in src
    report = bench._params(coal_bench.PRESETS["report"], {"quick": True})
    labels = [c.label for c in coal_bench.PRESETS["report"].cases(report)]
    assert labels[0] == "serial n=4" and labels[-1] == "gpu_odp n=11" and len(labels) == 5 * 8


def test_quick_targets_and_bandwidth_cases():
    t = bench._params(coal_bench.PRESETS["targets"], {"quick": True})
    assert [c.label for c in coal_bench.PRESETS["targets"].cases(t)] == [
        "device-to-device copy", "ratio against serial", "gpu_odp n=14", "gpu_odp n=15"]
    b = bench._params(coal_bench.PRESETS["bandwidth"], {"quick": True})
    assert [c.label for c in coal_bench.PRESETS["bandwidth"].cases(b)][1:] == [
        "gpu_report n=8", "gpu_report n=10", "gpu_shared_splits n=8", "gpu_shared_splits n=10",
        "gpu_odp n=8", "gpu_odp n=10"]
    full = bench._params(coal_bench.PRESETS["bandwidth"], {})
    assert len(list(coal_bench.PRESETS["bandwidth"].cases(full))) == 1 + 3 + 3 + 5


def test_rows_follow_the_shared_schema():
    rows = bench.run_preset("coalitions", "cpu", progress=False, quick=True)
    assert {r["variant"] for r in rows} == {"serial", "serial_odp"} and len(rows) == 2 * 8
    for r in rows:
        keys = list(r)
        i = keys.index("variant")
        assert tuple(keys[i:i + len(bench.ROW_COLUMNS)]) == bench.ROW_COLUMNS
        assert keys[:i] == ["algorithm", "n", "distribution", "dtype", "rule", "seed"]
        assert keys[i + len(bench.ROW_COLUMNS):][:5] == ["splits", "splits_per_s", "bytes_moved", "bytes_per_s", "parts"]
        assert "time_ms" not in r and "value" not in r and r["verified"] is None and r["kernel_ms"] is None
        assert r["exec_ms"] <= r["total_ms"] and r["device"] == gpu.cpu_label()
        v = co.random_values(r["n"], r["distribution"], seed=r["seed"], dtype=np.dtype(r["dtype"]))
        assert abs(r["objective"] - co.brute_force(v)[0]) <= 1e-9 * r["objective"]


def test_recorded_results_have_the_new_columns():
    for preset in ("report", "bandwidth", "targets"):
        rec = results.read("coalitions", preset)
        assert ("migrated" in rec.meta or "cases_recorded" in rec.meta)
        for r in rec.rows:
            assert "time_ms" not in r and "value" not in r and "same_value" not in r
            if r["variant"] != "device_copy":
                assert r["total_ms"] > 0 and r["objective"] > 0
            if r["variant"].startswith("serial"):
                assert r["kernel_ms"] is None and 0 < r["exec_ms"] <= r["total_ms"]
        assert set(rec.meta["params"]) - {"quick"} == set(coal_bench.PRESETS[preset].params)


# ----------------------------------------------------------------------- analysis

def _rows():
    """Synthetic rows: two agents sizes, serial slower, shared splits 25 % faster."""
    out = []
    for n, ser, rep_, sh, odp in ((10, 100.0, 2.0, 1.6, 1.0), (12, 900.0, 10.0, 8.0, 2.0)):
        out += [dict(variant="serial", n=n, total_ms=ser), dict(variant="gpu_report", n=n, total_ms=rep_),
                dict(variant="gpu_shared_splits", n=n, total_ms=sh), dict(variant="gpu_odp", n=n, total_ms=odp),
                dict(variant="gpu_odp", n=n, total_ms=3 * odp)]
    return out


def test_analysis_of_the_report_rows():
    rows = _rows()
    assert analysis.median_ms(rows, "gpu_odp", 12) == 4.0 and analysis.median_ms(rows, "gpu_odp", 99) is None
    assert analysis.largest_n(rows) == {"serial": 12, "gpu_report": 12, "gpu_shared_splits": 12, "gpu_odp": 12}
    assert analysis.speedups_over_serial(rows) == {"gpu_report": (12, 90.0), "gpu_shared_splits": (12, 112.5),
                                                   "gpu_odp": (12, 225.0)}
    n, gain = analysis.shared_splits_gain(rows)
    assert n == 12 and abs(gain - 0.25) < 1e-12
    lines = analysis.report_lines(rows)
    assert lines[0] == "serial             up to n=12:     0.900 s"
    assert "gpu_odp at n=12: 225x the serial DP" in lines
    assert lines[-1] == "shared splits at n=12: 25% faster than without them (the report: 40% faster)"
    slower = [dict(r, total_ms=r["total_ms"] * 2) if r["variant"] == "gpu_shared_splits" else r for r in rows]
    assert analysis.report_lines(slower)[-1].startswith("shared splits at n=12: 38% slower")
    assert analysis.report_lines([]) == [] and analysis.shared_splits_gain(rows[:1]) is None


def test_analysis_of_bandwidth_and_targets_rows():
    bw = [dict(variant="device_copy", n=0, copy_bytes_per_s=2e12)]
    for rep in range(2):
        bw += [dict(variant="gpu_odp", n=n, splits_per_s=1e11 * n, bytes_per_s=1e11 * (rep + 1),
                    logical_bytes_per_s=4e12) for n in (20, 22)]
    assert analysis.copy_bandwidth_of(bw) == 2e12 and analysis.copy_bandwidth_of(bw[1:]) is None
    assert analysis.bandwidth_at_largest(bw) == {"gpu_odp": {"n": 22, "splits_per_s": 2.2e12, "bytes_per_s": 1.5e11,
                                                             "logical_bytes_per_s": 4e12}}
    lines = analysis.bandwidth_lines(bw)
    assert lines == ["measured copy bandwidth: 2,000 GB/s (bytes read + written)",
                     "gpu_odp            n=22: 2.2e+12 splits/s;   150 GB/s requested (  8% of the copy),"
                     " 4,000 GB/s logical (200%)"]
    assert analysis.bandwidth_lines(bw[1:]) == []
    tg = [bw[0], dict(variant="gpu_odp", n=22, total_ms=20.0, goal="gpu_odp >= 100x", speedup_vs_serial=150.0),
          dict(variant="gpu_odp", n=22, total_ms=25.0, goal="gpu_odp >= 100x", speedup_vs_serial=120.0),
          dict(variant="serial", n=22, total_ms=3000.0, speedup_vs_serial=1.0),
          dict(variant="gpu_odp", n=27, total_ms=16000.0, goal="n=27 in <= 15 s", met=False, bytes_per_s=2e11,
               fraction_of_copy=0.1, logical_bytes_per_s=3e12)]
    assert analysis.best_speedup(tg) == 150.0 and analysis.best_speedup(bw) is None
    lines = analysis.target_lines(tg)
    # one line per version and size: the median of its runs
    assert lines[0] == "gpu_odp    n=22:    0.022 s (median of 2 runs)  gpu_odp >= 100x;  speed-up 135x"
    assert lines[1] == "serial     n=22:    3.000 s  speed-up 1x"
    assert lines[2] == ("gpu_odp    n=27:   16.000 s  n=27 in <= 15 s;  NOT met;  goal under 1 s: missed;  "
                        "200 GB/s requested (10% of the copy bandwidth), 3,000 GB/s logical")
    fast = analysis.target_lines([dict(variant="gpu_odp", n=29, total_ms=6999.0), dict(variant="gpu_odp", n=28,
                                                                                       total_ms=1.0)])
    assert fast[0].endswith("goal under 7 s: met") and "goal under" not in fast[1]
    assert lines[-1] == "best speed-up over the numba serial DP: 150x (goal: at least 100x)"


def test_analysis_of_the_recorded_results_has_no_gaps():
    report = results.read("coalitions", "report").rows
    lines = analysis.report_lines(report)
    assert len(lines) == 5 + 4 + 2 and not any("nan" in ln.lower() for ln in lines)
    assert lines[-1].startswith("n=29 with gpu_odp: ")
    bw = analysis.bandwidth_lines(results.read("coalitions", "bandwidth").rows)
    assert len(bw) == 4 and not any("nan" in ln.lower() for ln in bw)
    tg = analysis.target_lines(results.read("coalitions", "targets").rows)
    assert len(tg) == 9 and tg[-1].startswith("best speed-up over the numba serial DP")
    assert all("median of 3 runs" in ln for ln in tg if " n=22:" in ln)
    # recorded on an H200 at 9aa810d, the whole solve with its check of the values (check_ms): 183.3 ms
    # and 1136 ms, and in tiles alone (bound=False, the same instances in the same run) 976.8 ms and
    # 8173 ms (an H100 at d5d3e6c, without the check in the time: 146.7, 1057.7, 941.3 and 8152.4 ms)
    assert tg[4].startswith("gpu_odp    n=27:") and "0.183 s" in tg[4] and "goal under 1 s: met" in tg[4]
    assert tg[5].startswith(analysis.NO_BOUND + " n=27:") and "0.977 s" in tg[5]
    assert tg[6].startswith("gpu_odp    n=29:") and "1.136 s" in tg[6] and "goal under 7 s: met" in tg[6]
    assert tg[7].startswith(analysis.NO_BOUND + " n=29:") and "8.173 s" in tg[7]
    assert all(r["check_ms"] > 0 for r in results.read("coalitions", "targets").rows if r["variant"] == "gpu_odp")


def test_analysis_takes_the_speedups_apart():
    rows = [dict(variant="serial", n=22, total_ms=3000.0), dict(variant="serial_odp", n=22, total_ms=1500.0),
            dict(variant="gpu_odp", n=22, total_ms=2.0, rule="odp"), dict(variant="gpu_odp", n=29, total_ms=10_000.0,
                                                                          rule="odp"),
            dict(variant="gpu_report", n=27, total_ms=30_000.0, rule="dp")]
    assert analysis.speedup_parts(rows) == {"n": 22, "total": 1500.0, "pruning": 2.0, "gpu": 750.0}
    s, n_from = analysis.seconds_at(rows, "gpu_report", 29)
    assert n_from == 27 and s == pytest.approx(30.0 * co.total_splits(29) / co.total_splits(27))
    assert analysis.seconds_at(rows, "gpu_report", 27) == (30.0, 27) and analysis.seconds_at(rows, "nope", 3) is None
    a = analysis.against_report(rows)
    assert a["total"] == pytest.approx(720.0) and a["report_from"] == 27
    assert a["hardware"] * a["pruning"] * a["tiles"] == pytest.approx(a["total"])
    assert a["pruning"] == pytest.approx(co.total_splits(29, "dp") / co.total_splits(29, "odp"))
    lines = analysis.report_lines(rows)
    assert "gpu_odp at n=22: 1,500x the serial DP = 2.0x from pruning (serial ODP) x 750x from the GPU" in lines[-2]
    assert "(extrapolated from n=27)" in lines[-1] and lines[-1].endswith("(tiles))")
    h = analysis.headline(rows)
    assert h["gpu_from"] == 27 and h["cpu_from"] == 22 and h["factor"] == pytest.approx(h["cpu_s"] / h["gpu_s"])
    assert analysis.speedups_by_n(rows, "gpu_odp") == {22: 1500.0}
    assert analysis.growth_per_agent(rows, "gpu_odp") is None
    assert analysis.outside_kernels(rows, "gpu_odp") is None
    assert analysis.outside_kernels([dict(variant="gpu_odp", n=9, total_ms=4.0, kernel_ms=3.0)], "gpu_odp") == (9, 0.25)
    assert analysis.largest_n_in_l2("NVIDIA H100 80GB HBM3", 8) == 22 and analysis.largest_n_in_l2("other") is None
    assert set(analysis.LABELS) == set(co.VARIANTS)


@pytest.mark.parametrize("bad", [1, "yes", None])
def test_bound_must_be_a_bool(bad):
    with pytest.raises(ValueError, match="bound"):
        solve_mod.check(5, "gpu_odp", bound=bad)     # what solve checks first, with or without a GPU
    solve_mod.check(5, "gpu_odp", bound=False)


def test_the_bound_is_taken_apart_from_the_gpu():
    rows = [dict(variant="serial", n=22, total_ms=3000.0), dict(variant="serial_odp", n=22, total_ms=1500.0),
            dict(variant="gpu_odp", n=22, total_ms=2.0, rule="odp"),
            dict(variant=analysis.NO_BOUND, n=22, total_ms=8.0, rule="odp")]
    parts = analysis.speedup_parts(rows)
    assert parts == {"n": 22, "total": 1500.0, "pruning": 2.0, "gpu": 187.5, "bound": 4.0}
    assert parts["pruning"] * parts["gpu"] * parts["bound"] == pytest.approx(parts["total"])
    # part_use_lines reads the runs in tiles alone where there are some, else skips the bounded levels
    ms = json.dumps({"18": 200.0, "17": 240.0, "16": 190.0})
    both = [dict(variant="gpu_odp", n=27, low_bits=12, ms_per_level=ms, bounded=json.dumps({"18": 5, "17": 9})),
            dict(variant=analysis.NO_BOUND, n=27, low_bits=12, ms_per_level=ms, bounded="{}")]
    assert [ln.split(":")[0] for ln in analysis.part_use_lines(both)] == ["n = 27, level 17", "n = 27, level 18",
                                                                         "n = 27, level 16"]
    assert [ln.split(":")[0] for ln in analysis.part_use_lines(both[:1])] == ["n = 27, level 16"]
