"""Each problem's best kernels measured against the GPU's own limits (run on a GPU machine).

``python -m gpualgo.limits profile [TARGET ...] --out DIR`` measures the device's peaks (the
copy bandwidth and the integer multiply-add rate, :func:`gpualgo.gpu.copy_bandwidth` and
:func:`gpualgo.gpu.int_throughput`) and then profiles each target's kernels with Nsight
Compute (``ncu``): one run of the target's solve per kernel, after an untimed warm-up, with
the profiler started only around the timed solve and a few of the kernel's launches
profiled (``skip`` launches in, where its work is typical). It writes
``DIR/<algo>/limits.csv`` + ``.json`` (:func:`gpualgo.results.write`, the peaks in the
metadata): one row per profiled launch with what the notebooks read from it
(:data:`COLUMNS`): time, DRAM bytes and their rate, the L2 hit rate, the achieved occupancy,
the compute (SM) and memory throughput as percentages of the device's peak, the
instructions executed, and the three largest stall reasons.

``python -m gpualgo.limits drive TARGET`` is what ``ncu`` runs: the warm-up, then the solve
between ``cudaProfilerStart`` and ``cudaProfilerStop``. Nothing here needs a GPU to import;
:func:`parse_ncu_csv`, :func:`summary` and :func:`roofline_points` are plain functions of
rows, tested on synthetic ones.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from . import gpu, results

__all__ = ["TARGETS", "METRICS", "COLUMNS", "Target", "parse_ncu_csv", "summary", "roofline_points", "table", "diagnosis",
           "ncu_command", "profile", "main"]

#: the Nsight Compute sections collected for every launch, and metrics named beside them
SECTIONS = ("SpeedOfLight", "Occupancy", "MemoryWorkloadAnalysis", "WarpStateStats", "LaunchStats")
#: raw metric -> row column (units with ``--print-units base``: ns, bytes, %, counts)
METRICS = {
    "gpu__time_duration.sum": "duration_ns",
    "dram__bytes_read.sum": "dram_read_bytes",
    "dram__bytes_write.sum": "dram_write_bytes",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram_pct_of_peak",
    "lts__t_sector_hit_rate.pct": "l2_hit_pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved_occupancy_pct",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "sm_pct_of_peak",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": "memory_pct_of_peak",
    "smsp__thread_inst_executed.sum": "thread_instructions",
    "smsp__inst_executed.sum": "warp_instructions",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "shared_load_passes",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "shared_load_conflicts",
}
_STALL = re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$")
#: the columns of a row, in order
COLUMNS = ("target", "algorithm", "variant", "kernel", "launch", "grid", "block", *METRICS.values(),
           "dram_bytes", "dram_gbs", "instructions_per_s", "shared_conflict_pct", "stalls")


@dataclass(frozen=True)
class Target:
    """One best GPU version to profile: ``setup()`` returns ``(make, solve)``, how to build its
    input (``make(seed)``) and solve it (``solve(input)``); ``kernels`` the kernels profiled,
    each as ``(name, skip, count)``: the launches skipped after the profiler starts (to reach
    typical work; an int, or a function that counts them on the GPU when the target is
    profiled), and the launches profiled."""
    algorithm: str
    variant: str
    what: str
    setup: object
    kernels: tuple


def _auction():
    from .assignment import solve, uniform_instance
    return (lambda seed: uniform_instance(4096, 4096, 1, 10000, seed=seed),
            lambda B: solve(B, variant="gpu_eps_scaling"))


def _auction_middle() -> int:
    """The auction target's launch of bid_warp_kernel (and of assign_winner_kernel) halfway
    through its solve.  Each host check launches a graph of ``rounds_per_check`` of each, and
    the number of checks depends on the instance and on the version, so it is counted on the
    GPU (the same input as :func:`drive`'s)."""
    make, solve = _auction()
    stats = solve(make(1)).stats
    return stats["host_checks"] * stats["rounds_per_check"] // 2


def _maxflow():
    from .maxflow import genrmf, solve
    return lambda seed: genrmf(64, 64, seed=seed), lambda net: solve(net, variant="gpu_vertex_centric")


def _dgs():
    from .assignment import geom_instance, solve
    return (lambda seed: geom_instance(4096, 4096, seed=seed),
            lambda B: solve(B, algorithm="dgs", variant="gpu"))


def _tsp(variant: str, n: int):
    from .tsp import random_euclidean, solve
    return lambda seed: random_euclidean(n, seed=seed), lambda inst: solve(inst, variant=variant)


def _coalitions(variant: str, n: int):
    from .coalitions import random_values, solve
    from .coalitions.gpu import TILES_ONLY
    import numpy as np
    opts = TILES_ONLY.get(variant, {})     # gpu_odp without its bound: the profile is of its tiles, at every level
    return (lambda seed: random_values(n, seed=seed, dtype=np.float32),
            lambda v: solve(v, variant=variant, **opts))


def _odp_launch(n: int, s: int, h: int) -> int:
    """Where gpu_odp's launch for level s and high-part size h comes in its launch order, for
    float32 values (its default tiles), in the table's last part (the whole table, or the
    coalitions with a top agent when it comes in two: :func:`gpualgo.coalitions.gpu.odp_plan`)."""
    import numpy as np
    from .coalitions import gpu as cg
    b = cg.LOW_BITS[np.dtype(np.float32)]
    plan = list(cg.odp_plan(n, b, 2, cg.in_two_parts(n, b, 4)))
    return next(i for i, p in enumerate(plan) if p[0] == plan[-1][0] and p[1:3] == (s, h))


#: the best GPU version of each problem (and the report kernels the coalitions notebook
#: weighs), with the kernels whose launches are profiled
TARGETS = {
    "auction": Target("auction", "gpu_eps_scaling", "dense 4096 x 4096, benefits in [1, 10000]", _auction,
                      (("bid_warp_kernel", _auction_middle, 3), ("assign_winner_kernel", _auction_middle, 3),
                       ("tail_rounds_kernel", 4, 2))),
    "maxflow": Target("maxflow", "gpu_vertex_centric", "genrmf a = 64, b = 64", _maxflow,
                      (("vertex_centric_kernel", 0, 1),)),
    "dgs": Target("dgs", "gpu", "GEOM 4096 x 4096", _dgs, (("dgs_rounds_kernel", 0, 1),)),
    "tsp": Target("tsp", "gpu_shared_incremental", "random Euclidean, n = 13",
                  lambda: _tsp("gpu_shared_incremental", 13), (("shared_incremental_kernel", 0, 1),)),
    "tsp_held_karp": Target("tsp", "gpu_held_karp", "random Euclidean, n = 22", lambda: _tsp("gpu_held_karp", 22),
                            (("held_karp_layer_kernel", 10, 2),)),
    "coalitions": Target("coalitions", "gpu_odp", "uniform values, n = 24", lambda: _coalitions("gpu_odp", 24),
                         (("odp_tile_kernel", _odp_launch(24, 15, 7), 3),)),
    "coalitions_report": Target("coalitions", "gpu_report", "uniform values, n = 22",
                                lambda: _coalitions("gpu_report", 22), (("report_kernel", 14, 2),)),
    "coalitions_shared": Target("coalitions", "gpu_shared_splits", "uniform values, n = 22",
                                lambda: _coalitions("gpu_shared_splits", 22), (("shared_splits_kernel", 14, 2),)),
}


def drive(name: str, seed: int = 1) -> None:
    """What ``ncu`` runs for target ``name``: the solve once untimed (compilation, the memory
    pool), then again between cudaProfilerStart and cudaProfilerStop."""
    make, solve = TARGETS[name].setup()
    data = make(seed)
    solve(data)
    cp = gpu.require()
    cp.cuda.runtime.deviceSynchronize()
    cp.cuda.profiler.start()
    solve(data)
    cp.cuda.runtime.deviceSynchronize()
    cp.cuda.profiler.stop()


def ncu_command(name: str, kernel: str, skip: int, count: int, log: str) -> list[str]:
    """The ``ncu`` command line that profiles ``count`` launches of ``kernel`` after ``skip``
    while target ``name`` is driven (the clocks left alone, as on a shared machine)."""
    cmd = ["ncu", "--clock-control", "none", "--profile-from-start", "off", "--target-processes", "all",
           "--kernel-name", kernel, "--launch-skip", str(skip), "--launch-count", str(count)]
    for s in SECTIONS:
        cmd += ["--section", s]
    cmd += ["--metrics", ",".join(METRICS), "--csv", "--page", "raw", "--print-units", "base",
            "--log-file", log, sys.executable, "-m", "gpualgo.limits", "drive", name]
    return cmd


def _number(text: str):
    """A value of ncu's CSV as a float (thousands separators dropped), None if not a number."""
    try:
        return float(text.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def parse_ncu_csv(text: str) -> list[dict]:
    """The launches of ncu's ``--csv --page raw`` output: one dict per launch with its
    ``Kernel Name``, ``Grid Size``, ``Block Size`` and every metric as a float (the line of
    units after the header is skipped; lines before the header, ncu's own, are ignored).
    Raises ValueError when no header is found (ncu failed: its log says why)."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID",')), None)
    if start is None:
        raise ValueError("no launch in ncu's output: " + " | ".join(lines[-5:]))
    reader = csv.reader(io.StringIO("\n".join(lines[start:])))
    header = next(reader)
    out = []
    for rec in reader:
        if len(rec) != len(header) or not rec[0].strip().isdigit():
            continue    # the units line, or anything that is not a launch
        launch = dict(zip(header, rec))
        out.append({k: (v if k in ("Kernel Name", "Grid Size", "Block Size") else _number(v))
                    for k, v in launch.items()})
    return out


def _row(target: str, t: Target, launch: dict, index: int) -> dict:
    """One launch as a row of :data:`COLUMNS`: the metrics, DRAM bytes and rates, stalls."""
    row = dict(target=target, algorithm=t.algorithm, variant=t.variant,
               kernel=str(launch.get("Kernel Name", "")).split("(")[0], launch=index,
               grid=launch.get("Grid Size"), block=launch.get("Block Size"))
    row.update({col: launch.get(metric) for metric, col in METRICS.items()})
    ns = row["duration_ns"]
    read, write = row["dram_read_bytes"], row["dram_write_bytes"]
    row["dram_bytes"] = None if read is None or write is None else read + write
    row["dram_gbs"] = row["dram_bytes"] / ns if row["dram_bytes"] is not None and ns else None
    inst = row["thread_instructions"]
    row["instructions_per_s"] = inst / ns * 1e9 if inst is not None and ns else None
    # the passes (wavefronts) of shared-memory loads that bank conflicts added: a load whose lanes
    # ask several addresses of one bank takes one pass more for each
    passes, conflicts = row["shared_load_passes"], row["shared_load_conflicts"]
    row["shared_conflict_pct"] = 100.0 * conflicts / passes if passes and conflicts is not None else None
    stalls = {m.group(1): v for k, v in launch.items() if (m := _STALL.match(k)) and v is not None}
    top = sorted(((v, k) for k, v in stalls.items() if k != "selected"), reverse=True)[:3]
    row["stalls"] = json.dumps({k: round(v, 2) for v, k in top})
    return row


def profile(names, out, log_dir=None) -> list[dict]:
    """Measure the peaks, profile each target of ``names``' kernels, and write
    ``out/<algo>/limits.csv`` per algorithm (its rows: :func:`_row`). Returns every row."""
    cp = gpu.require()
    peaks = {"copy_bytes_per_s": gpu.copy_bandwidth(), "imad_per_s": gpu.int_throughput(),
             "device": gpu.device_name(), "sms": gpu.sm_count()}
    cp.get_default_memory_pool().free_all_blocks()
    by_algo: dict[str, list[dict]] = {}
    launches_of = {}
    counted = {}    # a skip function shared by several kernels (the auction's) runs its solve once
    log_dir = log_dir or tempfile.mkdtemp(prefix="ncu-")
    for name in names:
        t = TARGETS[name]
        for kernel, skip, count in t.kernels:
            if callable(skip):
                if skip not in counted:
                    counted[skip] = skip()
                skip = counted[skip]
            launches_of.setdefault(name, []).append([kernel, skip, count])
            log = os.path.join(log_dir, f"{name}-{kernel}.csv")
            run = subprocess.run(ncu_command(name, kernel, skip, count, log), capture_output=True, text=True)
            text = open(log).read() if os.path.exists(log) else ""
            try:
                launches = parse_ncu_csv(text)
            except ValueError as exc:
                raise RuntimeError(f"ncu on {name}/{kernel} (rc {run.returncode}): {exc}; "
                                   f"stderr: {run.stderr[-800:]}") from None
            rows = [_row(name, t, launch, i) for i, launch in enumerate(launches)]
            by_algo.setdefault(t.algorithm, []).extend(rows)
            print(f"{name} {kernel}: {len(rows)} launches profiled", flush=True)
    params = {"targets": list(names), "sections": list(SECTIONS),
              "kernels": launches_of,
              "inputs": {n: TARGETS[n].what for n in names}}
    for algo, rows in by_algo.items():
        results.write(os.path.join(out, algo), "limits", rows, params, seeds=[1], extra={"peaks": peaks})
    return [r for rows in by_algo.values() for r in rows]


def summary(rows) -> list[dict]:
    """One line per (target, kernel): the medians over its launches of time, DRAM rate,
    L2 hit rate, occupancy, the SM and memory throughput percentages, the instruction rate
    and the share of its shared-memory load passes that bank conflicts added (None for a
    kernel with no shared-memory load, or a profile made before it was measured), and the
    stall reasons of its first launch."""
    out = []
    for key in dict.fromkeys((r["target"], r["kernel"]) for r in rows):
        mine = [r for r in rows if (r["target"], r["kernel"]) == key]
        line = dict(target=key[0], kernel=key[1], launches=len(mine), variant=mine[0]["variant"])
        for col in ("duration_ns", "dram_gbs", "l2_hit_pct", "achieved_occupancy_pct", "sm_pct_of_peak",
                    "memory_pct_of_peak", "dram_pct_of_peak", "instructions_per_s", "thread_instructions",
                    "dram_bytes", "shared_conflict_pct"):
            vals = [float(r[col]) for r in mine if r.get(col) is not None and not _nan(r[col])]
            line[col] = statistics.median(vals) if vals else None
        stalls = mine[0].get("stalls")
        line["stalls"] = json.loads(stalls) if isinstance(stalls, str) and stalls else {}
        out.append(line)
    return out


def _nan(v) -> bool:
    return isinstance(v, float) and math.isnan(v)


def roofline_points(lines) -> dict:
    """``{"target: kernel": (thread instructions per DRAM byte, G instructions per second)}``
    of :func:`summary`'s lines, for :func:`gpualgo.plots.roofline`; a kernel that moved no
    DRAM byte is left out (its intensity is unbounded: it lives in the caches)."""
    points = {}
    for ln in lines:
        inst, nbytes, rate = ln.get("thread_instructions"), ln.get("dram_bytes"), ln.get("instructions_per_s")
        if inst and nbytes and rate:
            points[f"{ln['target']}: {ln['kernel']}"] = (inst / nbytes, rate / 1e9)
    return points


def _pct(x) -> str:
    return "" if x is None else f"{x:.0f}%"


def table(lines, peaks: dict) -> str:
    """A Markdown table of :func:`summary`'s lines against the measured ``peaks`` (the
    metadata of a limits file): each kernel's time, its DRAM rate and that rate as a share of
    the measured copy bandwidth, the L2 hit rate, the achieved occupancy, the SM and memory
    throughput as ncu's percentages of the device's peak, its instruction rate and that rate
    as a share of the measured integer multiply-add rate (simpler instructions issue faster,
    so a kernel can pass it), the share of its shared-memory load passes that bank conflicts
    added (blank: none measured), and its largest stall reasons (cycles per issued instruction)."""
    copy, imad = peaks.get("copy_bytes_per_s"), peaks.get("imad_per_s")
    head = ("| kernel | time (ms) | DRAM GB/s (of copy) | L2 hit | occupancy | SM % of peak | memory % of peak "
            "| G instr./s (of IMAD rate) | shared-load passes from bank conflicts | largest stalls |\n"
            + "|---" * 10 + "|\n")
    body = ""
    for ln in lines:
        dram = ln["dram_gbs"]
        dram_txt = "" if dram is None else f"{dram:,.0f}" + (f" ({dram * 1e9 / copy:.0%})" if copy else "")
        ips = ln["instructions_per_s"]
        ips_txt = "" if ips is None else f"{ips / 1e9:,.0f}" + (f" ({ips / imad:.0%})" if imad else "")
        ms = "" if ln["duration_ns"] is None else f"{ln['duration_ns'] / 1e6:.3g}"
        stalls = ", ".join(f"{k.replace('_', ' ')} {v:.1f}" for k, v in ln["stalls"].items())
        body += (f"| {ln['target']}: `{ln['kernel']}` ({ln['launches']}) | {ms} | {dram_txt} | {_pct(ln['l2_hit_pct'])} "
                 f"| {_pct(ln['achieved_occupancy_pct'])} | {_pct(ln['sm_pct_of_peak'])} "
                 f"| {_pct(ln['memory_pct_of_peak'])} | {ips_txt} | {_pct(ln.get('shared_conflict_pct'))} "
                 f"| {stalls} |\n")
    return head + body


#: a throughput at or above this percentage of the device's peak names the kernel's limit
BOUND_PCT = 60.0
#: a memory-bound kernel whose bank conflicts add at least this share of its shared-memory load
#: passes has them named in its diagnosis
CONFLICT_PCT = 20.0


def diagnosis(line) -> str:
    """One sentence on what limits a kernel (a :func:`summary` line), from ncu's throughput
    percentages: memory-bound or compute-bound when one is at least :data:`BOUND_PCT` of
    the peak (the larger one when both are), otherwise latency-bound, with the stall its
    warps spend most cycles in (what it waits on)."""
    mem, sm = line.get("memory_pct_of_peak"), line.get("sm_pct_of_peak")
    stalls = line.get("stalls") or {}
    top = next(iter(stalls), None)
    waits = f"; its warps wait most on {top.replace('_', ' ')}" if top else ""
    name = f"{line['target']}: {line['kernel']}"
    if mem is None or sm is None:
        return f"{name}: not profiled"
    if max(mem, sm) >= BOUND_PCT:
        kind = "memory" if mem >= sm else "compute"
        dram = line.get("dram_pct_of_peak")
        where = ""
        if kind == "memory" and dram is not None and dram < BOUND_PCT / 3:
            where = (f", on chip (L1 and shared memory, or L2: DRAM is at {dram:.0f}% of its peak, so the data "
                     "lives in the caches)")
        conflicts = line.get("shared_conflict_pct")
        if kind == "memory" and conflicts is not None and conflicts >= CONFLICT_PCT:
            where += (f"; bank conflicts add {conflicts:.0f}% of its shared-memory load passes (a pass serves "
                      "one address per bank)")
        return f"{name} is {kind}-bound: {max(mem, sm):.0f}% of the peak {kind} throughput{where}{waits}"
    return (f"{name} is latency-bound: memory at {mem:.0f}% and compute at {sm:.0f}% of their peaks, "
            f"neither near it{waits}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpualgo.limits", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("profile", help="measure the peaks and profile the targets' kernels with ncu")
    p.add_argument("targets", nargs="*", help=f"any of {sorted(TARGETS)} (default: all)")
    p.add_argument("--out", default=os.path.join("build", "results"), help="folder of the <algo>/ folders")
    d = sub.add_parser("drive", help="run one target's solve for ncu (the profiler on around it)")
    d.add_argument("target", choices=sorted(TARGETS))
    args = ap.parse_args(argv)
    if args.cmd == "drive":
        drive(args.target)
        return 0
    unknown = [t for t in args.targets if t not in TARGETS]
    if unknown:
        ap.error(f"unknown target(s) {unknown}: any of {sorted(TARGETS)}")
    profile(args.targets or list(TARGETS), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
