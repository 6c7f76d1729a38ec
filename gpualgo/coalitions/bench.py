"""Coalition DP benchmark presets for ``python -m gpualgo.bench coalitions --preset NAME``.

- ``report``: the source report's experiment on today's GPU: solve time against the number
  of agents, serial (numba) against the GPU versions, with and without shared splits, and
  the pruned DP beyond.
- ``bandwidth``: splits per second and bytes per second of each GPU version against the
  GPU's device-to-device copy bandwidth, measured in the same run.
- ``targets``: the performance goals: GPU against the numba serial DP at n = 22 (>= 100x),
  n = 27 in <= 15 s and n = 29 in <= 2 min with gpu_odp.
- ``cpu``: the serial versions only (runs anywhere; the notebook's same-run comparison).

Every preset takes ``quick`` (tiny sizes, for CI and headless notebooks). Value functions
are the uniform distribution in float32 unless a preset says otherwise.
"""
from __future__ import annotations

import json

import numpy as np

from .. import gpu
from ..bench import Case, Preset
from . import values
from .solve import solve

GPU_VARIANTS = ("gpu_report", "gpu_shared_splits", "gpu_odp")


def copy_bandwidth(nbytes: int = 1 << 30, reps: int = 5) -> float:
    """Device-to-device copy bandwidth in bytes per second (read + write counted), the
    median of ``reps`` copies of ``nbytes``."""
    cp = gpu.require()
    a = cp.ones(nbytes // 4, dtype=cp.float32)
    b = cp.empty_like(a)
    b[...] = a   # warm-up
    times = []
    for _ in range(reps):
        with gpu.CudaTimer() as t:
            b[...] = a
        times.append(t.ms)
    del a, b
    return 2 * nbytes / (float(np.median(times)) / 1e3)


def _instance(n, dist, seed, dtype=np.float32):
    return values.random_values(n, dist, seed=seed, dtype=dtype)


def _row(r, n, dist, seed, **extra) -> dict:
    s = r.stats
    kernel_ms = float(s.get("kernel_ms", s["total_ms"]))
    row = dict(algorithm="coalitions", variant=r.variant, n=n, distribution=dist, dtype=s["dtype"],
               rule=s["rule"], time_ms=float(s["total_ms"]), kernel_ms=kernel_ms,
               splits=int(s["splits"]), splits_per_s=s["splits"] / max(kernel_ms, 1e-9) * 1e3,
               bytes_moved=int(s["bytes_moved"]),
               bytes_per_s=s["bytes_moved"] / max(kernel_ms, 1e-9) * 1e3,
               value=r.value, parts=len(r.partition), device=str(s.get("device")), seed=seed)
    if "reads_saved" in s:
        row["reads_saved"] = int(s["reads_saved"])
    if r.variant == "gpu_odp":
        row.update(tiles_loaded=int(s["tiles_loaded"]), iterations=int(s["iterations"]),
                   low_bits=int(s["low_bits"]))
    row["ms_per_level"] = json.dumps({k: round(v, 3) for k, v in s["ms_per_level"].items()})
    row.update(extra)
    return row


def _warm(variant):
    # compile (numba / NVRTC) outside the timed runs
    solve(_instance(8, "uniform", 0), variant=variant)


def _solve_rows(variant, n, dist, seed, reps, **extra):
    def run():
        _warm(variant)
        v = _instance(n, dist, seed)
        rows = [_row(solve(v, variant=variant, force=True), n, dist, seed, rep=rep, **extra)
                for rep in range(reps)]
        del v
        return rows
    return Case(f"{variant} n={n}", run)


# ----------------------------------------------------------------------------- report

def _report_cases(p):
    q = p["quick"]
    reps = 1 if q else int(p["reps"])
    serial_reps = 1 if q else int(p["serial_reps"])
    ranges = {
        "serial": range(4, 12) if q else range(p["n_min"], p["serial_max"] + 1),
        "serial_odp": range(4, 12) if q else range(p["n_min"], p["serial_max"] + 1),
        "gpu_report": range(4, 12) if q else range(p["n_min"], p["report_max"] + 1),
        "gpu_shared_splits": range(4, 12) if q else range(p["n_min"], p["report_max"] + 1),
        "gpu_odp": range(4, 12) if q else range(p["n_min"], p["odp_max"] + 1),
    }
    for variant, ns in ranges.items():
        if variant.startswith("gpu_") and not p["gpu"]:
            continue
        for n in ns:
            yield _solve_rows(variant, n, p["distribution"], p["seed"],
                              reps if variant.startswith("gpu_") else serial_reps)


# -------------------------------------------------------------------------- bandwidth

def _bandwidth_cases(p):
    q = p["quick"]
    state = {}

    def copy():
        bw = copy_bandwidth(1 << 24 if q else 1 << 30)
        state["bw"] = bw
        return [dict(algorithm="coalitions", variant="device_copy", n=0, copy_bytes_per_s=bw,
                     device=gpu.device_name())]
    yield Case("device-to-device copy", copy)
    sizes = [8, 10] if q else list(p["sizes"])
    for variant in GPU_VARIANTS:
        for n in sizes:
            if variant != "gpu_odp" and n > (10 if q else p["report_max"]):
                continue

            def run(variant=variant, n=n):
                _warm(variant)
                v = _instance(n, p["distribution"], p["seed"])
                rows = []
                for rep in range(1 if q else int(p["reps"])):
                    r = solve(v, variant=variant, force=True)
                    row = _row(r, n, p["distribution"], p["seed"], rep=rep)
                    # what the same splits would read from the table without any reuse
                    logical = r.stats["splits"] * 2 * v.itemsize
                    row.update(copy_bytes_per_s=state["bw"],
                               fraction_of_copy=row["bytes_per_s"] / state["bw"],
                               logical_bytes_per_s=logical / max(row["kernel_ms"], 1e-9) * 1e3,
                               logical_fraction_of_copy=logical / max(row["kernel_ms"], 1e-9) * 1e3 / state["bw"])
                    rows.append(row)
                return rows
            yield Case(f"{variant} n={n}", run)


# ---------------------------------------------------------------------------- targets

def _targets_cases(p):
    q = p["quick"]
    seed, dist = p["seed"], p["distribution"]
    state = {}

    def copy():
        state["bw"] = copy_bandwidth(1 << 24 if q else 1 << 30)
        return [dict(algorithm="coalitions", variant="device_copy", n=0,
                     copy_bytes_per_s=state["bw"], device=gpu.device_name())]
    yield Case("device-to-device copy", copy)

    def ratio():
        n = 12 if q else p["ratio_n"]
        _warm("gpu_odp")
        _warm("serial")
        v = _instance(n, dist, seed)
        gpu_rows = [_row(solve(v, variant="gpu_odp"), n, dist, seed, rep=i) for i in range(3)]
        ser = solve(v, variant="serial", force=True)
        ser_row = _row(ser, n, dist, seed, rep=0, speedup_vs_serial=1.0)
        best = min(r["time_ms"] for r in gpu_rows)
        for r in gpu_rows:
            r.update(goal="gpu_odp >= 100x the numba serial DP",
                     speedup_vs_serial=ser_row["time_ms"] / r["time_ms"],
                     same_value=abs(r["value"] - ser_row["value"]) <= 1e-4 * abs(ser_row["value"]))
        gpu_rows[0]["best_speedup"] = ser_row["time_ms"] / best
        return gpu_rows + [ser_row]
    yield Case("ratio against serial", ratio)

    for n, limit_s in ([(14, 15.0), (15, 120.0)] if q else [(p["n_fast"], 15.0), (p["n_large"], 120.0)]):
        def big(n=n, limit_s=limit_s):
            _warm("gpu_odp")
            v = _instance(n, dist, seed)
            r = solve(v, variant="gpu_odp", force=True)
            row = _row(r, n, dist, seed, goal=f"n={n} in <= {limit_s:g} s", limit_s=limit_s,
                       met=r.stats["total_ms"] <= limit_s * 1e3, copy_bytes_per_s=state["bw"])
            row["fraction_of_copy"] = row["bytes_per_s"] / state["bw"]
            logical = r.stats["splits"] * 2 * v.itemsize / max(row["kernel_ms"], 1e-9) * 1e3
            row.update(logical_bytes_per_s=logical, logical_fraction_of_copy=logical / state["bw"])
            del v
            return [row]
        yield Case(f"gpu_odp n={n}", big)


PRESETS = {
    "report": Preset(
        description="solve time against agents: numba serial DP and ODP against the report's GPU "
                    "kernel, with and without shared splits, and the GPU ODP beyond",
        params=dict(n_min=10, serial_max=22, report_max=27, odp_max=29, reps=2, serial_reps=1,
                    seed=1, distribution="uniform", gpu=True),
        cases=_report_cases, needs_gpu=True, seeds=[1]),
    "bandwidth": Preset(
        description="splits/s and bytes/s of each GPU version against the measured "
                    "device-to-device copy bandwidth",
        params=dict(sizes=[20, 22, 24, 26, 28], report_max=24, reps=2, seed=2, distribution="uniform"),
        cases=_bandwidth_cases, needs_gpu=True, seeds=[2]),
    "targets": Preset(
        description="goals: gpu_odp >= 100x numba serial DP at n = 22, n = 27 in <= 15 s, "
                    "n = 29 in <= 2 min",
        params=dict(ratio_n=22, n_fast=27, n_large=29, seed=3, distribution="uniform"),
        cases=_targets_cases, needs_gpu=True, seeds=[3]),
    "cpu": Preset(
        description="serial versions only (numba DP and ODP)",
        params=dict(n_min=8, serial_max=18, report_max=0, odp_max=0, reps=2, serial_reps=2,
                    seed=1, distribution="uniform", gpu=False),
        cases=_report_cases, needs_gpu=False, seeds=[1]),
}
