"""Benchmark presets of Deep Greedy Switching (``python -m gpualgo.bench dgs --preset NAME``).

``report``   the paper's experiments on dense GEOM instances (points in a square, benefit =
             distance), averaged over seeds: one full difference evaluation on the CPU, the
             GPU global-memory kernel and the GPU shared-memory kernel (transfers included);
             total time of serial, mixed and full-GPU DGS against size; the exact GPU
             auction (gpu_eps_scaling) on the same instances, for the speed-up.
``gap``      beyond the paper: the optimality gap of every run against the exact optimum
             (gpu_eps_scaling, itself checked with scipy where n <= scipy_max), on four
             families (geom, uniform, the auction report's instances, ties); plus the anytime
             trace (objective against time) of serial and full-GPU DGS on one instance per
             family, beside the auction's time to the optimum.
``targets``  the goals: n = 4096 full GPU against serial (the ratio measured side by side),
             and sizes up to 16384 with each version's time and gap beside the exact GPU
             auction, scipy and lap (serial and mixed DGS up to ``cpu_max``, scipy up to
             ``scipy_max``, lap up to ``lap_max``: on GEOM instances both take seconds at
             n = 4096, see ``data/results/dgs/``).

Every preset takes ``quick=True`` (tiny sizes).  Rows: ``variant`` (serial, gpu_mixed, gpu,
gpu_eps_scaling, scipy, lap, or de_cpu / de_global / de_shared for evaluation timings),
``time_ms`` (the whole solve, uploads included), ``solve_ms`` (the solve alone, the matrix
already in place), ``objective``, ``optimum``, ``gap`` (relative, ``(opt - obj) / opt``),
``switches``, ``rounds`` (the full-GPU version's rounds; the full evaluation passes of the
others) and ``start_objective``.  The ``gap`` preset adds ``kind="trace"`` rows: one point of
the anytime trace each (``switches``, ``objective``, ``t_ms``, ``gap``).
"""
from __future__ import annotations

import functools

import numpy as np

from ... import bench, peers
from ...timing import timed
from .. import checks, instances
from ..solve import solve
from . import gpu as dgs_gpu

__all__ = ["PRESETS", "FAMILIES", "make_instance"]

FAMILIES = ("geom", "uniform", "report", "ties")


def make_instance(family: str, n: int, seed: int) -> np.ndarray:
    """A dense ``n x n`` int32 instance of a family: ``geom`` (distances between random points
    in a 1000 x 1000 square, rounded), ``uniform`` (integers in [1, 10000]), ``report`` (the
    auction report's generator at density 1), ``ties`` (integers in [0, 3]: many ties)."""
    if family == "geom":
        return instances.geom_instance(n, n, seed=seed).astype(np.int32)
    if family == "uniform":
        return instances.uniform_instance(n, n, 1, 10000, seed=seed)
    if family == "report":
        return instances.report_instance(n, n, 1.0, seed=seed)
    if family == "ties":
        return instances.uniform_instance(n, n, 0, 3, seed=seed)
    raise ValueError(f"unknown family {family!r}; known: {FAMILIES}")


@functools.lru_cache(maxsize=None)
def _warm_up() -> None:
    """Compile every kernel and numba function once, so that no measured case pays for it."""
    B = make_instance("uniform", 32, 0)
    for v in ("serial", "gpu_de_global", "gpu_de_shared", "gpu_mixed", "gpu"):
        solve(B, algorithm="dgs", variant=v)
    solve(B, variant="gpu_eps_scaling")
    for kind in ("cpu", "global", "shared"):
        dgs_gpu.de_pass(B, kind, reps=1)


def _seed(base, n, k):
    return int(base) * 1_000_003 + int(n) * 101 + k


def _gap(obj, opt):
    return float((opt - obj) / abs(opt)) if opt else float(opt - obj)


def _dgs_row(r, opt, **common):
    s = r.stats
    return dict(common, variant=r.variant, time_ms=s["total_ms"], solve_ms=s["solve_ms"], objective=r.objective,
                optimum=opt, gap=_gap(r.objective, opt) if opt is not None else np.nan, switches=s["switches"],
                rounds=s.get("rounds", s.get("passes")), start_objective=s["initial_objective"])


def _exact(B, common, check_scipy: bool):
    """Rows of the exact GPU auction (and scipy when asked); returns (rows, optimum)."""
    if B.shape[0] <= 4096:  # warm the allocator for this size (negligible against larger solves)
        solve(B, variant="gpu_eps_scaling")
    r = solve(B, variant="gpu_eps_scaling")
    checks.check_assignment(B, r.assignment)
    opt = r.objective
    rows = [dict(common, variant="gpu_eps_scaling", time_ms=r.stats["total_ms"], solve_ms=r.stats["kernel_ms"],
                 objective=opt, optimum=opt, gap=0.0)]
    if check_scipy:
        from scipy.optimize import linear_sum_assignment
        (rr, cc), t = timed(linear_sum_assignment, B, maximize=True)
        ref = int(B[rr, cc].astype(np.int64).sum())
        if ref != opt:
            raise RuntimeError(f"gpu_eps_scaling {opt} != scipy {ref} on {common}")
        rows.append(dict(common, variant="scipy", time_ms=t, objective=ref, optimum=opt, gap=0.0))
    return rows, opt


def _report_cases(p):
    sizes = [64, 128] if p["quick"] else p["sizes"]
    reps = 1 if p["quick"] else p["instances"]
    for n in sizes:
        for k in range(reps):
            def run(n=n, k=k):
                _warm_up()
                seed = _seed(p["seed"], n, k)
                B = make_instance("geom", n, seed)
                common = dict(algorithm="dgs", family="geom", n=n, seed=seed, rep=k)
                rows = []
                for kind in ("cpu", "global", "shared"):
                    if kind != "cpu" and n > p["de_gpu_max"]:
                        continue
                    rows.append(dict(common, variant=f"de_{kind}", de_ms=dgs_gpu.de_pass(B, kind, seed=seed)["ms"]))
                exact, opt = _exact(B, common, False)
                rows += exact
                for v in p["variants"]:
                    r = solve(B, algorithm="dgs", variant=v, seed=seed)
                    checks.check_assignment(B, r.assignment)
                    rows.append(_dgs_row(r, opt, **common))
                return rows
            yield bench.Case(f"geom n={n} #{k}", run)


def _gap_cases(p):
    sizes = [64, 128] if p["quick"] else p["sizes"]
    reps = 1 if p["quick"] else p["instances"]
    for fam in p["families"]:
        for n in sizes:
            for k in range(reps):
                def run(fam=fam, n=n, k=k):
                    _warm_up()
                    seed = _seed(p["seed"], n, k)
                    B = make_instance(fam, n, seed)
                    common = dict(algorithm="dgs", family=fam, n=n, seed=seed, rep=k, kind="run")
                    rows, opt = _exact(B, common, n <= p["scipy_max"])
                    for v in p["variants"]:
                        if v in ("gpu_de_global", "gpu_de_shared") and n > p["de_variants_max"]:
                            continue
                        r = solve(B, algorithm="dgs", variant=v, seed=seed)
                        checks.check_assignment(B, r.assignment)
                        rows.append(_dgs_row(r, opt, **common))
                        if k == 0 and n == max(sizes) and v in ("serial", "gpu"):
                            s = r.stats
                            for sw, ob, ms in zip(s["trace_switches"], s["trace_objective"], s["trace_ms"]):
                                rows.append(dict(algorithm="dgs", family=fam, n=n, seed=seed, rep=k, kind="trace",
                                                 variant=v, switches=int(sw), objective=float(ob), t_ms=float(ms),
                                                 optimum=opt, gap=_gap(ob, opt)))
                    return rows
                yield bench.Case(f"{fam} n={n} #{k}", run)


def _targets_cases(p):
    sizes = [128, 256] if p["quick"] else p["sizes"]
    reps = 1 if p["quick"] else p["instances"]
    lap = peers.load("lap")
    for fam in p["families"]:
        for n in sizes:
            for k in range(reps):
                def run(fam=fam, n=n, k=k):
                    _warm_up()
                    seed = _seed(p["seed"], n, k)
                    B = make_instance(fam, n, seed)
                    cpu_ok = n <= (512 if p["quick"] else p["cpu_max"])
                    common = dict(algorithm="dgs", family=fam, n=n, seed=seed, rep=k)
                    rows, opt = _exact(B, common, cpu_ok and n <= p["scipy_max"])
                    if lap is not None and cpu_ok and n <= p["lap_max"]:
                        (_, x, _), t = timed(lap.lapjv, (B.max() - B).astype(np.float64))  # lap minimises
                        rows.append(dict(common, variant="lap", time_ms=t, objective=checks.objective(B, x),
                                         optimum=opt, gap=_gap(checks.objective(B, x), opt)))
                    for v in p["variants"]:
                        if v != "gpu" and not cpu_ok:
                            continue
                        r = solve(B, algorithm="dgs", variant=v, seed=seed)
                        checks.check_assignment(B, r.assignment)
                        rows.append(_dgs_row(r, opt, **common))
                    return rows
                yield bench.Case(f"{fam} n={n} #{k}", run)


PRESETS = {
    "report": bench.Preset(
        "the paper's experiments on dense GEOM instances: evaluation time CPU / GPU global / GPU shared, "
        "total time of serial, mixed and full-GPU DGS, the exact GPU auction for the speed-up",
        dict(sizes=[512, 1024, 2048, 4096, 8192], instances=3, seed=2010, de_gpu_max=8192,
             variants=["serial", "gpu_mixed", "gpu"]),
        _report_cases),
    "gap": bench.Preset(
        "optimality gap of every version against the exact optimum (gpu_eps_scaling, checked with scipy), "
        "four families, and the anytime trace",
        dict(sizes=[256, 1024, 4096], families=list(FAMILIES), instances=3, seed=2011, scipy_max=4096,
             de_variants_max=256, variants=["serial", "gpu_de_global", "gpu_de_shared", "gpu_mixed", "gpu"]),
        _gap_cases),
    "targets": bench.Preset(
        "n = 4096 full GPU vs serial, and sizes up to 16384: every version's time and gap beside the exact "
        "GPU auction, scipy and lap",
        dict(sizes=[1024, 2048, 4096, 8192, 16384], families=["geom", "uniform"], instances=1, seed=2012,
             cpu_max=8192, scipy_max=2048, lap_max=4096, variants=["serial", "gpu_mixed", "gpu"]),
        _targets_cases),
}
