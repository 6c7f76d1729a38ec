"""Coalition DP benchmark presets for ``python -m gpualgo.bench coalitions --preset NAME``.

- ``report``: the source report's experiment on today's GPU: solve time against the number
  of agents, serial (numba) against the GPU versions, with and without shared splits, and
  the pruned DP beyond.
- ``bandwidth``: splits per second and bytes per second of each GPU version against the
  GPU's device-to-device copy bandwidth, measured in the same run (gpu_odp without its bound:
  its tiles alone, every level; their rows say ``bound=False``).
- ``targets``: the performance goals: GPU against the numba serial DP at n = 22 (>= 100x),
  n = 27 in <= 15 s and n = 29 in <= 2 min with gpu_odp; each also without its bound
  (rows labelled :data:`~gpualgo.coalitions.analysis.NO_BOUND`), so that its share shows.
- ``phases``: the report's Figs. 2-3: the clock cycles the report's two kernels spend in each
  phase (setup, fetching, evaluating, reducing), from their -DPHASE_CLOCKS build.
- ``launch``: the report's launch configuration (threads per block, splits per thread,
  coalitions a thread evaluates together and in all) and each of its parameters swept alone.
- ``cpu``: the serial versions only (runs anywhere; the notebook's same-run comparison).

Every preset takes ``quick``: its ``Preset.quick`` values (tiny sizes, for CI and headless
notebooks) replace the defaults. Value functions are the uniform distribution in float32
unless a preset says otherwise. Every row comes from :func:`gpualgo.bench.row`
(``total_ms``, ``kernel_ms``, ``objective``: the partition's value...; the copy bandwidth and
the capacity computed from the GPUs' memory too) followed by this problem's counters (``splits``, ``bytes_moved``, their rates, ``parts``, ``ms_per_level``).
What the notebook prints from these rows is computed in :mod:`gpualgo.coalitions.analysis`.
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass

import numpy as np

from .. import bench, gpu
from ..bench import Case, Preset
from ..result import Result
from . import checks, values
from . import gpu as co_gpu
from .analysis import NO_BOUND
from .solve import VARIANTS, solve, table_need
from .solve import check as check_solve

__all__ = ["PRESETS", "GPU_VARIANTS"]

#: the versions on one GPU (gpu_odp_multi has its own preset, ``multigpu``)
GPU_VARIANTS = tuple(v for v in VARIANTS if VARIANTS[v].gpu and v != "gpu_odp_multi")



#: the values' dtype of every measured instance
_DTYPE = np.float32


def _instance(n, dist, seed):
    return values.random_values(n, dist, seed=seed, dtype=_DTYPE)


def _check(n, dist, *solves):
    """A case's check (:class:`gpualgo.bench.Case`): the refusals of its instance's generator
    (:func:`gpualgo.coalitions.values.check_random_values`), then those of each solve the case
    makes, in its order: ``(variant, options)`` pairs for :func:`gpualgo.coalitions.solve.check`
    (``force`` where the case insists; the GPU's memory only a run can know)."""
    def check():
        values.check_random_values(n, dist, _DTYPE)
        for variant, options in solves:
            check_solve(n, variant, _DTYPE, **options)
    return check


@functools.lru_cache(maxsize=1)
def _tiny():
    """What the warm-up solves: 8 agents, uniform, float32 (as every measured instance)."""
    return _instance(8, "uniform", 0)


def _warm(*variants_):
    bench.warm_up(solve, _tiny(), variants_)


def _row(r, n, dist, seed, rep=0, verified=None, **extra) -> dict:
    """bench.row's columns, then the counters of this problem, then ``extra``."""
    s = r.stats
    row = bench.row(r, rep=rep, verified=verified, algorithm="coalitions", n=n, distribution=dist,
                    dtype=s["dtype"], rule=s["rule"], seed=seed)
    busy = row["kernel_ms"] if row["kernel_ms"] is not None else row["exec_ms"]   # GPU: the kernels
    row.update(splits=int(s["splits"]), splits_per_s=s["splits"] / max(busy, 1e-9) * 1e3,
               bytes_moved=int(s["bytes_moved"]), bytes_per_s=s["bytes_moved"] / max(busy, 1e-9) * 1e3,
               parts=len(r.partition))
    if "reads_saved" in s:
        row["reads_saved"] = int(s["reads_saved"])
    if r.variant in ("gpu_odp", "gpu_odp_multi"):
        row.update(tiles_loaded=int(s["tiles_loaded"]), iterations=int(s["iterations"]),
                   low_bits=int(s["low_bits"]))
    if r.variant == "gpu_odp":   # the levels its bound left to report_kernel: {level: coalitions kept}
        row["bounded"] = json.dumps({str(k): int(c) for k, c in s.get("bounded", {}).items()})
    if r.variant == "gpu_odp_multi":
        row.update(devices=int(s["devices"]), peer_access=bool(s["peer_access"]), compute_ms=s["compute_ms"],
                   exchange_ms=s["exchange_ms"], exchanged_bytes=int(s["exchanged_bytes"]))
    row["ms_per_level"] = json.dumps({k: round(v, 3) for k, v in s["ms_per_level"].items()})
    row.update(extra)
    return row


def _with_bandwidth(row, r, itemsize, bw) -> dict:
    """``row`` with its bytes per second as fractions of the copy bandwidth ``bw``, and the
    logical traffic: the two table values per split a kernel without any reuse would read."""
    busy = row["kernel_ms"] if row["kernel_ms"] is not None else row["exec_ms"]
    logical = r.stats["splits"] * 2 * itemsize / max(busy, 1e-9) * 1e3
    row.update(copy_bytes_per_s=bw, fraction_of_copy=row["bytes_per_s"] / bw,
               logical_bytes_per_s=logical, logical_fraction_of_copy=logical / bw)
    return row


def _solve_rows(variant, n, dist, seed, reps, **extra):
    def run():
        _warm(variant)
        v = _instance(n, dist, seed)
        rows = [_row(solve(v, variant=variant, force=True), n, dist, seed, rep=rep, **extra)
                for rep in range(reps)]
        del v
        return rows
    return Case(f"{variant} n={n}", run, _check(n, dist, (variant, dict(force=True))))


@functools.lru_cache(maxsize=None)
def _measured_bandwidth(nbytes: int, device_id: int) -> float:
    return gpu.copy_bandwidth(nbytes)


def _bandwidth(nbytes: int) -> float:
    """The copy bandwidth of this process's GPU, measured at its first use and then kept: the
    cases that compare against it read the same figure as the preset's copy case, whichever
    order the cases run in (a sweep on a cluster runs them on several processes)."""
    cp = gpu.require()
    return _measured_bandwidth(int(nbytes), int(cp.cuda.Device().id))


@dataclass
class _Measurement(Result):
    """What :func:`gpualgo.bench.row` takes for a row that is no solve (the copy bandwidth, the
    capacity computed from the GPUs' memory): its ``stats`` hold what was timed, nothing where
    nothing ran, and it has no objective."""
    variant: str
    stats: dict
    objective: object = None


def _copy_case(nbytes):
    def copy():
        bw = _bandwidth(nbytes)
        ms = 2 * nbytes / bw * 1e3          # the median copy's CUDA-event time
        r = _Measurement("device_copy", {"total_ms": ms, "kernel_ms": ms, "device": gpu.device_name()})
        return [dict(bench.row(r, algorithm="coalitions", n=0), copy_bytes_per_s=bw)]
    return Case("device-to-device copy", copy)


def _verified(r, ref) -> bool:
    """Whether ``r``'s partition is one of the agents and its value equals ``ref``'s."""
    try:
        checks.check_against_serial(r, ref)
        return True
    except (AssertionError, ValueError):
        return False


def _reference(v, n, p):
    """The optimum a case checks its rows against: the serial DP up to ``serial_max`` agents,
    else gpu_odp (the pruned DP in tiles: another algorithm and another kernel)."""
    return solve(v, variant="serial" if n <= p["serial_max"] else "gpu_odp", force=True)


# ----------------------------------------------------------------------------- report

def _report_cases(p):
    top = {"serial": p["serial_max"], "serial_odp": p["serial_max"], "gpu_report": p["report_max"],
           "gpu_shared_splits": p["report_max"], "gpu_odp": p["odp_max"]}
    for variant in top:
        if VARIANTS[variant].gpu and not p["gpu"]:
            continue
        for n in range(p["n_min"], top[variant] + 1):
            yield _solve_rows(variant, n, p["distribution"], p["seed"],
                              int(p["reps"] if VARIANTS[variant].gpu else p["serial_reps"]))


# -------------------------------------------------------------------------- bandwidth

def _bandwidth_cases(p):
    yield _copy_case(p["copy_bytes"])
    for variant in GPU_VARIANTS:
        # gpu_odp without its bound, so that every level runs in the tiles whose traffic the rows
        # count (the bound decides which coalitions are evaluated, not how bytes move; ``targets`` times it)
        opts = co_gpu.TILES_ONLY.get(variant, {})
        for n in p["sizes"]:
            if variant != "gpu_odp" and n > p["report_max"]:
                continue

            def run(variant=variant, n=n, opts=opts):
                _warm(variant)
                v = _instance(n, p["distribution"], p["seed"])
                rows = []
                for rep in range(int(p["reps"])):
                    r = solve(v, variant=variant, force=True, **opts)
                    rows.append(_with_bandwidth(_row(r, n, p["distribution"], p["seed"], rep=rep, **opts), r,
                                                v.itemsize, _bandwidth(p["copy_bytes"])))
                return rows
            yield Case(f"{variant} n={n}", run, _check(n, p["distribution"], (variant, dict(force=True, **opts))))


# ---------------------------------------------------------------------------- targets

def _targets_cases(p):
    seed, dist = p["seed"], p["distribution"]
    yield _copy_case(p["copy_bytes"])

    def ratio():
        n = p["ratio_n"]
        _warm("gpu_odp", "serial", "serial_odp")
        v = _instance(n, dist, seed)
        gpu_results = [solve(v, variant="gpu_odp") for _ in range(3)]
        tile_results = [solve(v, variant="gpu_odp", bound=False) for _ in range(3)]   # its tiles alone
        # both serial baselines, each repeated (3 runs below a minute): the unpruned DP and the
        # pruned one, so that the pruned GPU DP is set against both in this run
        baselines = {b: [r for r, _ in bench.repeat(solve, v, variant=b, force=True)] for b in ("serial", "serial_odp")}
        ser = baselines["serial"][0]
        base_rows = [_row(r, n, dist, seed, rep=i, **({"speedup_vs_serial": 1.0} if b == "serial" else {}))
                     for b in baselines for i, r in enumerate(baselines[b])]
        ser_ms = float(np.median([r["total_ms"] for r in base_rows if r["variant"] == "serial"]))
        odp_ms = float(np.median([r["total_ms"] for r in base_rows if r["variant"] == "serial_odp"]))
        best = min(r.stats["total_ms"] for r in gpu_results)
        # each GPU answer against the serial DP's, in this run
        gpu_rows = [_row(r, n, dist, seed, rep=i, verified=_verified(r, ser), **label,
                         speedup_vs_serial=ser_ms / r.stats["total_ms"],
                         speedup_vs_serial_odp=odp_ms / r.stats["total_ms"])
                    for results, label in ((gpu_results, {"goal": "gpu_odp >= 100x the numba serial DP"}),
                                           (tile_results, {"variant": NO_BOUND}))
                    for i, r in enumerate(results)]
        gpu_rows[0]["best_speedup"] = ser_ms / best
        return gpu_rows + base_rows
    yield Case("ratio against serial", ratio, _check(p["ratio_n"], dist, ("gpu_odp", {}), ("gpu_odp", dict(bound=False)),
                                                     ("serial", dict(force=True)), ("serial_odp", dict(force=True))))

    for n, limit_s in ((p["n_fast"], p["fast_limit_s"]), (p["n_large"], p["large_limit_s"])):
        def big(n=n, limit_s=limit_s):
            _warm("gpu_odp")
            v = _instance(n, dist, seed)
            r = solve(v, variant="gpu_odp", force=True)
            row = _row(r, n, dist, seed, goal=f"n={n} in <= {limit_s:g} s", limit_s=limit_s,
                       met=r.stats["total_ms"] <= limit_s * 1e3)
            _with_bandwidth(row, r, v.itemsize, _bandwidth(p["copy_bytes"]))
            # the same instance in tiles alone (no bound), its answer against the bounded one's
            t = solve(v, variant="gpu_odp", force=True, bound=False)
            tiles = _with_bandwidth(_row(t, n, dist, seed, verified=_verified(t, r), variant=NO_BOUND), t,
                                    v.itemsize, _bandwidth(p["copy_bytes"]))
            del v
            return [row, tiles]
        yield Case(f"gpu_odp n={n}", big, _check(n, dist, ("gpu_odp", dict(force=True)),
                                                 ("gpu_odp", dict(force=True, bound=False))))


# ------------------------------------------------------------------------- several GPUs

def _multigpu_cases(p):
    """gpu_odp_multi on 1 and more GPUs at each n of ``scaling_n`` (each answer compared with
    the one-GPU answer of the same run: the same partition and DP value), then ``large_n`` on
    the most GPUs, then what the GPUs could hold (computed from their memory, not run)."""
    seed, dist = p["seed"], p["distribution"]
    top = max(p["devices"])
    for n in p["scaling_n"]:
        def run(n=n):
            _warm("gpu_odp")
            for d in p["devices"]:
                solve(_tiny(), variant="gpu_odp_multi", devices=d)      # warm every device
            v = _instance(n, dist, seed)
            rows, first = [], None
            for d in p["devices"]:
                r = solve(v, variant="gpu_odp_multi", devices=d, force=True)
                first = first or r
                same = r.partition == first.partition and r.stats["table_value"] == first.stats["table_value"]
                rows.append(_row(r, n, dist, seed, matches_fewest_gpus=same))
            base = rows[0]["total_ms"]
            for row in rows:
                row["speedup_vs_fewest"] = base / row["total_ms"]
            del v
            return rows
        yield Case(f"gpu_odp_multi n={n} on {p['devices']} GPU(s)", run,
                   _check(n, dist, *[("gpu_odp_multi", dict(devices=d, force=True)) for d in p["devices"]]))
    for n in p["large_n"]:
        def big(n=n):
            solve(_tiny(), variant="gpu_odp_multi", devices=top)
            v = _instance(n, dist, seed)
            row = _row(solve(v, variant="gpu_odp_multi", devices=top, force=True), n, dist, seed)
            row["bytes_per_gpu"] = table_need(n, v.dtype, "gpu_odp_multi")[0]
            del v
            return [row]
        yield Case(f"gpu_odp_multi n={n} on {top} GPU(s)", big,
                   _check(n, dist, ("gpu_odp_multi", dict(devices=top, force=True))))

    def capacity():
        from .. import guards
        from .gpu import device_ids
        cp = gpu.require()
        ids = device_ids(top)
        free = []
        for d in ids:
            with cp.cuda.Device(d):
                free.append(gpu.usable_bytes())
        n = 1
        while table_need(n + 1, np.float32, "gpu_odp_multi")[0] <= guards.MEMORY_FRACTION * min(free):
            n += 1
        need = table_need(n, np.float32, "gpu_odp_multi")[0]
        r = _Measurement("gpu_odp_multi", {"device": "; ".join(sorted({_device_of(cp, d) for d in ids}))})
        return [dict(bench.row(r, algorithm="coalitions", n=n), devices=len(ids), dtype="float32",
                     bytes_per_gpu=need, usable_bytes_per_gpu=min(free), measured=False,
                     note="the largest n whose table (and merge buffer) every GPU holds; computed, not run")]
    yield Case("the largest n the GPUs hold", capacity)


# ----------------------------------------------------------------------------- phases

#: the launch options of the report's kernels, as the rows of ``phases`` and ``launch`` name
#: them, and the ``launch`` preset's parameter that sweeps each
LAUNCH_OPTIONS = ("block", "per_thread", "share", "coalitions_per_thread")
_SWEEPS = {"block": "blocks", "per_thread": "per_threads", "share": "shares",
           "coalitions_per_thread": "coalitions_per_threads"}


def _launch_columns(r) -> dict:
    """The launch a row of the report's kernels ran with (share: None for gpu_report)."""
    s = r.stats
    return dict(block=int(s["block"]), per_thread=int(s["per_thread"]), share=s.get("share"),
                coalitions_per_thread=int(s["coalitions_per_thread"]))


def _phase_row(r, ref, n, p) -> dict:
    row = _row(r, n, p["distribution"], p["seed"], verified=_verified(r, ref), verified_by=ref.variant,
               **_launch_columns(r))
    for k, x in r.stats["phase_cycles"].items():
        row[f"cycles_{k}"] = int(x)
    for k, x in r.stats["phase_shares"].items():
        row[f"share_{k}"] = float(x)
    row["phase_coverage"] = float(r.stats["phase_coverage"])
    return row


def _phases_cases(p):
    """Each kernel at its default launch (the ``launch`` preset sweeps the launch)."""
    dist, opts = p["distribution"], {}
    for n in range(p["n_min"], p["n_max"] + 1):
        def run(n=n):
            _warm("gpu_odp", "serial")
            for variant in ("gpu_report", "gpu_shared_splits"):       # compile the clocked build
                co_gpu.phase_clocks(_tiny(), variant, **_options(variant, opts))
            v = _instance(n, dist, p["seed"])
            ref = _reference(v, n, p)
            rows = [_phase_row(co_gpu.phase_clocks(v, variant, **_options(variant, opts)), ref, n, p)
                    for variant in ("gpu_report", "gpu_shared_splits")]
            del v
            return rows
        ref_variant = "serial" if n <= p["serial_max"] else "gpu_odp"
        yield Case(f"phase clocks n={n}", run,
                   _check(n, dist, *[(variant, dict(force=True, **_options(variant, opts)))
                                     for variant in ("gpu_report", "gpu_shared_splits")], (ref_variant, dict(force=True))))


def _options(variant, opts) -> dict:
    """The options of ``opts`` (launch options, None where the default is meant) that
    ``variant`` takes."""
    return {k: x for k, x in opts.items() if x is not None and (k != "share" or variant == "gpu_shared_splits")}


# ----------------------------------------------------------------------------- launch

def _launch_configs(variant, p):
    """``(swept, options)`` pairs: the report's configuration (the parameters ``block``,
    ``per_thread``, ``share``, ``coalitions_per_thread``), then each of them swept alone around
    it over its list (``blocks``...; share only for gpu_shared_splits; the report's value is not
    repeated)."""
    base = _options(variant, {k: p[k] for k in LAUNCH_OPTIONS})
    yield "report", base
    for key in LAUNCH_OPTIONS:
        if key == "share" and variant != "gpu_shared_splits":
            continue
        for x in p[_SWEEPS[key]]:
            if x != base.get(key):
                yield key, dict(base, **{key: x})


def _launch_case(variant, n, configs, p):
    dist = p["distribution"]

    def run():
        _warm(variant, "gpu_odp")
        v = _instance(n, dist, p["seed"])
        ref = _reference(v, n, p)
        rows = []
        for swept, opts in configs:
            r = solve(v, variant=variant, force=True, **opts)
            rows.append(_row(r, n, dist, p["seed"], verified=_verified(r, ref), verified_by=ref.variant,
                             swept=swept, report_config=swept == "report", **_launch_columns(r)))
        del v
        return rows
    ref_variant = "serial" if n <= p["serial_max"] else "gpu_odp"
    return Case(f"{variant} launch n={n} ({', '.join(sorted({s for s, _ in configs}))})", run,
                _check(n, dist, *[(variant, dict(force=True, **o)) for _, o in configs], (ref_variant, dict(force=True))))


def _launch_cases(p):
    for variant in ("gpu_report", "gpu_shared_splits"):
        configs = list(_launch_configs(variant, p))
        for n in p["sizes"]:
            yield _launch_case(variant, n, configs, p)
        ours = _options(variant, {k: DEFAULT_LAUNCH[k] for k in LAUNCH_OPTIONS})
        for n in p["large"]:
            yield _launch_case(variant, n, [configs[0], ("default", ours)], p)


#: this package's default launch of the report's kernels (the ``launch`` preset's "default" rows)
DEFAULT_LAUNCH = {k: co_gpu.DEFAULTS[k] for k in LAUNCH_OPTIONS}


def _device_of(cp, d):
    with cp.cuda.Device(d):
        return gpu.device_name()


PRESETS = {
    "report": Preset(
        description="solve time against agents: numba serial DP and ODP against the report's GPU "
                    "kernel, with and without shared splits, and the GPU ODP beyond",
        params=dict(n_min=10, serial_max=22, report_max=27, odp_max=29, reps=2, serial_reps=3,
                    seed=1, distribution="uniform", gpu=True),
        quick=dict(n_min=4, serial_max=11, report_max=11, odp_max=11, reps=1, serial_reps=1),
        cases=_report_cases, needs_gpu=True, seeds=[1]),
    "bandwidth": Preset(
        description="splits/s and bytes/s of each GPU version against the measured "
                    "device-to-device copy bandwidth",
        params=dict(sizes=[20, 22, 24, 26, 28], report_max=24, reps=2, seed=2, distribution="uniform",
                    copy_bytes=1 << 30),
        quick=dict(sizes=[8, 10], report_max=10, reps=1, copy_bytes=1 << 24),
        cases=_bandwidth_cases, needs_gpu=True, seeds=[2]),
    "targets": Preset(
        description="goals: gpu_odp >= 100x numba serial DP at n = 22, n = 27 in <= 15 s, "
                    "n = 29 in <= 2 min",
        params=dict(ratio_n=22, n_fast=27, n_large=29, fast_limit_s=15.0, large_limit_s=120.0, seed=3,
                    distribution="uniform", copy_bytes=1 << 30),
        quick=dict(ratio_n=12, n_fast=14, n_large=15, copy_bytes=1 << 24),
        cases=_targets_cases, needs_gpu=True, seeds=[3]),
    "multigpu": Preset(
        description="gpu_odp_multi on 1 and 2 GPUs at n = 27 and 29 (same answer, speed-up), n = 31 on 2 "
                    "GPUs, and the largest n the GPUs hold",
        params=dict(scaling_n=[27, 29], devices=[1, 2], large_n=[31], seed=5, distribution="uniform"),
        quick=dict(scaling_n=[12], large_n=[14]),
        cases=_multigpu_cases, needs_gpu=True, seeds=[5]),
    "phases": Preset(
        description="the report's Figs. 2-3: clock cycles of each phase (setup, fetch, evaluate, reduce) of "
                    "gpu_report and gpu_shared_splits, n = 18..25, each answer checked against the optimum",
        params=dict(n_min=18, n_max=25, serial_max=18, seed=6, distribution="uniform"),
        quick=dict(n_min=6, n_max=8),
        cases=_phases_cases, needs_gpu=True, seeds=[6]),
    "launch": Preset(
        description="the report's launch configuration (256 threads, 2 splits per thread, 8 coalitions together, "
                    "32 in all) and each parameter swept alone at n = 22; the report's and the default "
                    "configuration at n = 24; each answer checked against the optimum",
        params=dict(sizes=[22], large=[24], serial_max=18, seed=7, distribution="uniform",
                    block=256, per_thread=2, share=8, coalitions_per_thread=32,
                    blocks=[64, 128, 256, 512, 1024], per_threads=[1, 2, 4, 8, 16, 32, 64],
                    shares=[2, 3, 4, 5, 6, 7, 8], coalitions_per_threads=[1, 2, 4, 8, 16, 32, 64]),
        quick=dict(sizes=[8], large=[9], blocks=[32, 256], per_threads=[1, 2], shares=[2, 8],
                   coalitions_per_threads=[1, 32]),
        cases=_launch_cases, needs_gpu=True, seeds=[7]),
    "cpu": Preset(
        description="serial versions only (numba DP and ODP)",
        params=dict(n_min=8, serial_max=18, report_max=0, odp_max=0, reps=2, serial_reps=3,
                    seed=1, distribution="uniform", gpu=False),
        quick=dict(n_min=4, serial_max=11, reps=1, serial_reps=1),
        cases=_report_cases, needs_gpu=False, seeds=[1]),
}
