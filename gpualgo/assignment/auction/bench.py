"""Benchmark presets of the auction (``python -m gpualgo.bench auction --preset NAME``).

``report``          the report's sweep: m = n in 10 geometric sizes, densities 10% and
                    100%, 3 instances each, eps = 1, every variant against the serial one.
``small_eps``       the same with eps = 1/(m+1) (exact, and slow: the report's runs timed
                    out), up to a size limit.
``exact``           beyond the report: exact gpu_eps_scaling against scipy's
                    linear_sum_assignment and lap in the same run, every result checked.
``threads``         threads per block of the bidding kernel (64/256/1024), gpu_queues.
``graph_tuning``    gpu_graph over both kernels' threads and grid = 1x / 2x the SMs.
``active_bidders``  bidders per round for the first rounds (1108 persons, density 1);
                    serial (the deterministic GPU variant has the same rounds), no GPU.

Every preset takes ``quick=True`` (tiny sizes, for notebooks in CI and tests).
"""
from __future__ import annotations

import functools

import numpy as np

from ... import bench, peers
from ...timing import timed
from .. import checks, instances
from ..solve import solve

__all__ = ["PRESETS", "REPORT_SIZES"]

#: the report's sizes: 10 geometric steps from 500 to 18000
REPORT_SIZES = [500, 744, 1108, 1650, 2458, 3660, 5451, 8117, 12087, 18000]
REPORT_VARIANTS = ["serial", "gpu_v1", "gpu_queues", "gpu_deterministic", "gpu_graph", "gpu_sparse"]


@functools.lru_cache(maxsize=None)
def _warm_up(variants: tuple) -> None:
    """Compile and load every variant once, so that the first measured case is not slower."""
    B = instances.report_instance(20, 20, 0.5, seed=0)
    for v in variants:
        solve(B, variant=v, eps=1.0)


def _row(r, **common):
    s = r.stats
    extra = {k: s[k] for k in ("tail_cache_hits", "tail_scans") if k in s}
    return dict(common, variant=r.variant, time_ms=s["total_ms"], kernel_ms=s.get("kernel_ms", s.get("solve_ms")),
                rounds=s["rounds"], objective=r.objective, **extra)


def _seed(base, n, k):
    return int(base) * 1_000_003 + int(n) * 101 + k


def _report_cases(p, eps_of):
    sizes = [40, 80] if p["quick"] else p["sizes"]
    reps = 2 if p["quick"] else p["instances"]
    for n in sizes:
        for d in p["densities"]:
            for k in range(reps):
                def run(n=n, d=d, k=k):
                    seed = _seed(p["seed"], n, k)
                    B = instances.report_instance(n, n, d, seed=seed, limit=p["limit"])
                    _warm_up(tuple(p["variants"]))
                    rows = []
                    for v in p["variants"]:
                        opts = {"scaling": False} if v == "gpu_sparse" else {}
                        if v != "serial" and p.get("max_rounds"):
                            opts["max_rounds"] = p["max_rounds"]
                        try:
                            r = solve(B, variant=v, eps=eps_of(n), **opts)
                        except RuntimeError:  # round limit: the report's timeouts
                            rows.append(dict(algorithm="auction", variant=v, n=n, density=d, seed=seed, rep=k,
                                             eps=eps_of(n), time_ms=float("nan"), rounds=-1, timeout=1))
                            continue
                        checks.check_assignment(B, r.assignment)
                        rows.append(_row(r, algorithm="auction", n=n, density=d, seed=seed, rep=k, eps=eps_of(n),
                                         timeout=0))
                    return rows
                yield bench.Case(f"n={n} d={d} #{k}", run)


def _exact_cases(p):
    sizes = [64, 128] if p["quick"] else p["sizes"]
    for n in sizes:
        for rng_name in p["ranges"]:
            for k in range(1 if p["quick"] else p["instances"]):
                def run(n=n, rng_name=rng_name, k=k):
                    from scipy.optimize import linear_sum_assignment
                    lo, hi = (1, 10000) if rng_name == "1-10000" else (0, n - 1)
                    seed = _seed(p["seed"], n, k)
                    B = instances.uniform_instance(n, n, lo, hi, seed=seed)
                    common = dict(algorithm="auction", n=n, range=rng_name, seed=seed, rep=k)
                    rows = []
                    (rr, cc), t_scipy = timed(linear_sum_assignment, B, maximize=True)
                    opt = int(B[rr, cc].astype(np.int64).sum())
                    rows.append(dict(common, variant="scipy", time_ms=t_scipy, objective=opt, exact=1))
                    lap = peers.load("lap")
                    if lap is not None:
                        (_, x, _), t_lap = timed(lap.lapjv, (B.max() - B).astype(np.float64))  # lap minimises
                        obj_lap = checks.objective(B, x)
                        rows.append(dict(common, variant="lap", time_ms=t_lap, objective=obj_lap,
                                         exact=int(obj_lap == opt)))
                    for v in p["variants"]:
                        solve(B, variant=v)  # warm-up (compilation, allocator)
                        for rep in range(p["reps"]):
                            r = solve(B, variant=v)
                            checks.check_assignment(B, r.assignment)
                            rows.append(dict(_row(r, **common), rep_time=rep, exact=int(r.objective == opt),
                                             speedup_vs_scipy=t_scipy / r.stats["total_ms"]))
                    return rows
                yield bench.Case(f"n={n} {rng_name} #{k}", run)


def _tuning_cases(p, variant, settings):
    """One case per instance: ``variant`` at eps = 1 once per setting.

    ``settings`` is a list of (solver options, extra row columns) pairs.
    """
    sizes = [60, 120] if p["quick"] else p["sizes"]
    for n in sizes:
        for k in range(1 if p["quick"] else p["instances"]):
            def run(n=n, k=k):
                seed = _seed(p["seed"], n, k)
                B = instances.report_instance(n, n, p["density"], seed=seed, limit=p["limit"])
                _warm_up((variant,))
                return [dict(_row(solve(B, variant=variant, eps=1.0, **opts), algorithm="auction", n=n, seed=seed,
                                  rep=k), **cols)
                        for opts, cols in settings]
            yield bench.Case(f"n={n} #{k}", run)


def _threads_cases(p):
    return _tuning_cases(p, "gpu_queues", [({"bid_threads": t}, {"bid_threads": t}) for t in p["bid_threads"]])


def _graph_cases(p):
    settings = []
    for bt in p["bid_threads"]:
        for at in p["assign_threads"]:
            for g in p["grid_factors"]:
                opts = dict(bid_threads=bt, assign_threads=at, grid_factor=g)
                settings.append((opts, dict(opts, config=f"bid {bt} / assign {at} / grid {g}x SMs")))
    return _tuning_cases(p, "gpu_graph", settings)


def _active_cases(p):
    n = 60 if p["quick"] else p["n"]
    for k in range(p["instances"]):
        def run(k=k):
            seed = _seed(p["seed"], n, k)
            B = instances.report_instance(n, n, p["density"], seed=seed, limit=p["limit"])
            r = solve(B, variant="serial", eps=1.0, record_rounds=p["rounds"])
            act = r.stats["active_bidders"][:p["rounds"]]
            return [dict(algorithm="auction", variant="serial", n=n, seed=seed, rep=k, round=t + 1,
                         active_bidders=int(a)) for t, a in enumerate(act)]
        yield bench.Case(f"n={n} #{k}", run)


PRESETS = {
    "report": bench.Preset(
        "the report's sweep: sizes 500..18000, density 0.1 and 1, 3 instances, eps=1, every variant",
        dict(sizes=REPORT_SIZES, densities=[0.1, 1.0], instances=3, limit=10000, seed=2022,
             variants=REPORT_VARIANTS, max_rounds=10**7),
        lambda p: _report_cases(p, lambda n: 1.0)),
    "small_eps": bench.Preset(
        "eps = 1/(m+1) (exact without scaling), sizes up to 3660 as far as the report got",
        dict(sizes=REPORT_SIZES[:6], densities=[0.1, 1.0], instances=3, limit=10000, seed=2022,
             variants=["serial", "gpu_queues"], max_rounds=2 * 10**6),
        lambda p: _report_cases(p, lambda n: 1.0 / (n + 1))),
    "exact": bench.Preset(
        "exact gpu_eps_scaling vs scipy linear_sum_assignment and lap, dense uniform benefits",
        dict(sizes=[1024, 2048, 4096, 8192, 16384], ranges=["1-10000", "0-n"], instances=1, reps=3, seed=7,
             variants=["gpu_eps_scaling"]),
        _exact_cases),
    "threads": bench.Preset(
        "bidding threads per block 64/256/1024 (gpu_queues, density 0.5, eps=1)",
        dict(sizes=REPORT_SIZES[:8], bid_threads=[64, 256, 1024], density=0.5, instances=3, limit=10000,
             seed=2022),
        _threads_cases),
    "graph_tuning": bench.Preset(
        "gpu_graph over bidding/assignment threads and grid = 1x or 2x the SM count (density 0.5, eps=1)",
        dict(sizes=REPORT_SIZES[:8], bid_threads=[64, 128, 256], assign_threads=[128, 256],
             grid_factors=[1, 2], density=0.5, instances=3, limit=10000, seed=2022),
        _graph_cases),
    "active_bidders": bench.Preset(
        "bidders per round, first 100 rounds, 1108 persons, density 1 (serial Jacobi rounds)",
        dict(n=1108, rounds=100, density=1.0, instances=3, limit=10000, seed=2022),
        _active_cases, needs_gpu=False),
}
