"""Benchmark presets of the auction (``python -m gpualgo.bench auction --preset NAME``).

``report``          the report's sweep: m = n in 10 geometric sizes, densities 10% and
                    100%, 3 instances each, eps = 1, every variant against the serial one.
``small_eps``       the same with eps = 1/(m+1) (exact, and slow: the report's runs timed
                    out), up to a size limit.
``exact``           beyond the report: exact gpu_eps_scaling against scipy's
                    linear_sum_assignment and lap in the same run, every result checked.
``threads``         threads per block of the bidding kernel (64/256/1024), gpu_queues.
``graph_tuning``    gpu_graph over both kernels' threads and grid = 1x / 2x the SMs.
``active_bidders``  bidders in every round (1108 persons, density 1; the report's Figure 1
                    drew the first 100); serial (the deterministic GPU variant has the same
                    rounds), no GPU.
``scaling``         the serial auction at eps = 1/(m+1) against its eps-scaling twin on the
                    report's instances (the same ones both ways), every answer certified
                    optimal; serial, no GPU.
``timeline``        the report's Figure 2: gpu_queues' first rounds timed step by step with
                    CUDA events on its two streams (rows of ``kind`` "span": ``round``,
                    ``stream``, ``step``, ``start_us``, ``end_us``), beside the solve's row.
``targets``         the performance goals: the exact gpu_eps_scaling from an int32 and from
                    an int64 host array (numpy's default integer) alike, at n = 16384 (GPU
                    only, certified by the dual bound) and against scipy and lap at n = 8192
                    on benefits in [0, 999] and on geometric ones (``dtype``, ``range``).
``tail``            where gpu_eps_scaling's time goes: each instance solved as it is and
                    with the tail kernel's clock (``time_tail``): the rounds the single-block
                    tail runs, its time in them and in their row scans, against the kernel
                    time (rows with ``time_tail`` 0 and 1).
``persistent``      gpu_eps_scaling's rounds before the tail run as a CUDA graph of launches
                    (``persistent`` 0, the default) and as one cooperative launch with grid
                    barriers (1), alternately on the same instances, every answer certified.
``eps_factor``      gpu_eps_scaling with each divisor of eps between phases (``eps_factor``)
                    on the same instances (uniform benefits in two ranges, geometric ones),
                    every answer certified by the dual bound: the evidence for the default
                    (:data:`serial.EPS_FACTOR`, :func:`analysis.factor_summary`).
``warps``           the same sweep over the warps per block of the bidding kernel
                    (``warps_per_block``), on the same instances: the evidence for
                    :data:`gpu.WARPS_PER_BLOCK`.

Every preset takes ``quick=True`` (its ``Preset.quick`` sizes, for notebooks in CI and tests).

Rows (:func:`gpualgo.bench.row`): the case's columns (``algorithm``, ``n``, ``density`` or
``range``, ``seed``, ``instance``: which of the size's instances), then ``variant``, ``rep``,
``total_ms``, ``prepare_ms``, ``exec_ms``, ``kernel_ms``, ``objective``, ``verified``,
``device``, then the auction's ``rounds`` (and the tail block's counters). ``verified`` says
how each answer was checked in the same run, named by ``verified_by``: ``"scipy"`` (the
``exact`` preset: the objective equals scipy's optimum, computed there anyway as the peer
it is timed against), or ``"dual bound"`` (the other presets, where scipy would take longer
than the whole sweep: the answer's prices give an upper bound on the optimum by weak
duality, :func:`gpualgo.assignment.checks.certify`, which must be within m*eps of the
objective; for eps < 1/m that proves the optimum). scipy's own row is the reference:
``verified`` None. A run stopped by its round limit (the report's time-outs) is a row with
``timeout`` 1 and no time.
"""
from __future__ import annotations

import functools

import numpy as np

from ... import bench, gpu, peers
from .. import checks, instances
from ..solve import solve
from . import serial

__all__ = ["PRESETS", "REPORT_SIZES"]

#: the report's sizes: 10 geometric steps from 500 to 18000
REPORT_SIZES = [500, 744, 1108, 1650, 2458, 3660, 5451, 8117, 12087, 18000]
REPORT_VARIANTS = ["serial", "gpu_v1", "gpu_queues", "gpu_deterministic", "gpu_graph", "gpu_sparse"]


def _tiny():
    """The warm-up instance: small, with missing edges, solved in a few milliseconds."""
    return instances.report_instance(20, 20, 0.5, seed=0)


def _seed(base, n, k):
    return int(base) * 1_000_003 + int(n) * 101 + k


def _verified(check, *args, **kwargs) -> bool:
    """True when the check passes, False when it finds the answer wrong (ValueError)."""
    try:
        check(*args, **kwargs)
    except ValueError:
        return False
    return True


def _row(r, rep=0, verified=None, verified_by=None, **fields) -> dict:
    """bench.row, then how it was verified, then the auction's counters."""
    s = r.stats
    out = bench.row(r, rep=rep, verified=verified, **fields)
    out.update(verified_by=verified_by, rounds=s["rounds"])
    out.update({k: s[k] for k in ("tail_cache_hits", "tail_scans", "tail_solo_rounds") if k in s})
    return out


def _certified_row(B, r, asked, **fields) -> dict:
    """A row verified by the dual bound of the result's prices (see the module doc); ``asked``:
    the eps given to solve."""
    return _row(r, verified=_verified(checks.certify, B, r, eps=asked), verified_by="dual bound", **fields)


def _timeout_row(variant, **fields) -> dict:
    """The row of a run stopped at its round limit: the schema's columns, no time."""
    out = dict(fields)
    out.update({c: None for c in bench.ROW_COLUMNS})
    out.update(variant=variant, rep=0, total_ms=float("nan"),
               device=gpu.device_name() if variant.startswith("gpu") else gpu.cpu_label(),
               rounds=-1, timeout=1)
    return out


def _report_check(p, n, density):
    """The check of a case on the report's n x n instance of ``density`` (:class:`gpualgo.bench.Case`):
    its generator's refusals (the host memory of the instance). With the options the cases pass,
    the solvers refuse only GPU memory, which only the run can know."""
    return lambda: instances.check_report_instance(n, n, density, limit=p["limit"])


def _range(name: str, n: int) -> tuple[int, int]:
    """The benefits' range of the ``exact`` preset's ``ranges``: ``"1-10000"`` or ``"0-n"``."""
    return (1, 10000) if name == "1-10000" else (0, n - 1)


def _per_report_instance(p, eps_of, measure):
    """One case per size, density and instance of the report's generator: ``measure(B,
    common)`` returns the case's rows (``common``: the columns every row of the case has, its
    ``eps`` from ``eps_of(n)``)."""
    for n in p["sizes"]:
        for d in p["densities"]:
            for k in range(p["instances"]):
                def run(n=n, d=d, k=k):
                    seed = _seed(p["seed"], n, k)
                    B = instances.report_instance(n, n, d, seed=seed, limit=p["limit"])
                    return measure(B, dict(algorithm="auction", n=n, density=d, seed=seed, instance=k, eps=eps_of(n)))
                yield bench.Case(f"n={n} d={d} #{k}", run, _report_check(p, n, d))


def _report_cases(p, eps_of):
    def measure(B, common):
        eps = common["eps"]
        bench.warm_up(functools.partial(solve, eps=1.0), _tiny(), p["variants"])
        rows = []
        for v in p["variants"]:
            opts = {"scaling": False} if v == "gpu_sparse" else {}
            if v != "serial" and p["max_rounds"]:
                opts["max_rounds"] = p["max_rounds"]
            try:
                r = solve(B, variant=v, eps=eps, **opts)
            except RuntimeError:  # round limit: the report's timeouts
                rows.append(_timeout_row(v, **common))
                continue
            rows.append(dict(_certified_row(B, r, eps, **common), timeout=0))
        return rows
    return _per_report_instance(p, eps_of, measure)


def _peer_rows(B, common: dict):
    """scipy's rows (its runs repeated below a minute: the optimum and the speed-up's base)
    and lap's, checked against scipy's optimum; returns ``(rows, optimum, scipy's median ms)``."""
    runs = bench.repeat(peers.scipy_assignment, B)
    opt = checks.objective(B, runs[0][0])
    rows = [dict(bench.peer_row("scipy", opt, ms, rep=i, **common), verified_by=None) for i, (_, ms) in enumerate(runs)]
    if peers.available("lap"):
        for i, (x, t_lap) in enumerate(bench.repeat(peers.lap_assignment, B)):
            ok = _verified(checks.check_result, B, x, optimum=opt)
            rows.append(dict(bench.peer_row("lap", checks.objective(B, x), t_lap, rep=i, verified=ok, **common),
                             verified_by="scipy"))
    return rows, opt, float(np.median([ms for _, ms in runs]))


def _exact_cases(p):
    for n in p["sizes"]:
        for rng_name in p["ranges"]:
            for k in range(p["instances"]):
                def run(n=n, rng_name=rng_name, k=k):
                    lo, hi = _range(rng_name, n)
                    seed = _seed(p["seed"], n, k)
                    B = instances.uniform_instance(n, n, lo, hi, seed=seed)
                    common = dict(algorithm="auction", n=n, range=rng_name, seed=seed, instance=k)
                    rows, opt, t_scipy = _peer_rows(B, common)
                    bench.warm_up(solve, B, p["variants"])  # full size: compilation and the memory pool
                    for v in p["variants"]:
                        for rep in range(p["reps"]):
                            r = solve(B, variant=v)
                            ok = _verified(checks.check_result, B, r, optimum=opt)
                            rows.append(dict(_row(r, rep=rep, verified=ok, verified_by="scipy", **common),
                                             speedup_vs_scipy=t_scipy / r.stats["total_ms"]))
                    return rows
                def check(n=n, rng_name=rng_name):
                    instances.check_uniform_instance(n, n, *_range(rng_name, n))
                yield bench.Case(f"n={n} {rng_name} #{k}", run, check)


def _targets_instance(family: str, n: int, seed: int) -> np.ndarray:
    """A ``targets`` instance, int64 as numpy draws it: ``"geom"`` (:func:`instances.geom_instance`)
    or a benefit range ``"lo-hi"`` (uniform)."""
    if family == "geom":
        return instances.geom_instance(n, n, seed=seed)
    lo, hi = (int(v) for v in family.split("-"))
    return instances.uniform_instance(n, n, lo, hi, seed=seed).astype(np.int64)


def _family_instance(p, n: int, family: str, k: int = 0):
    """Instance ``k`` of ``family`` at size ``n`` for a preset of seed ``p["seed"]`` (the
    ``targets``, ``tail`` and ``eps_factor`` presets): ``(B, the columns every row of it has)``."""
    seed = _seed(p["seed"], n, k)
    return _targets_instance(family, n, seed), dict(algorithm="auction", n=n, range=family, seed=seed, instance=k)


def _check_targets_instance(family: str, n: int):
    if family == "geom":
        return instances.check_geom_instance(n, n)
    lo, hi = (int(v) for v in family.split("-"))
    return instances.check_uniform_instance(n, n, lo, hi)


def _targets_case(p, n: int, family: str, peers_too: bool):
    """One ``targets`` case: gpu_eps_scaling from each of ``p["dtypes"]``, ``p["reps"]`` runs
    each; with ``peers_too``, scipy (the optimum every answer is checked against, and the
    speed-up's base) and lap first, else every answer certified by its prices' dual bound."""
    def run():
        B, common = _family_instance(p, n, family)
        rows, opt, t_scipy = _peer_rows(B, common) if peers_too else ([], None, None)
        for dtype in p["dtypes"]:
            Bd = np.ascontiguousarray(B, dtype=dtype)
            bench.warm_up(solve, Bd, ["gpu_eps_scaling"])
            for rep in range(p["reps"]):
                r = solve(Bd, variant="gpu_eps_scaling")
                if peers_too:
                    row = _row(r, rep=rep, verified=_verified(checks.check_result, B, r, optimum=opt),
                               verified_by="scipy", **common)
                    row["speedup_vs_scipy"] = t_scipy / r.stats["total_ms"]
                else:
                    row = _certified_row(B, r, None, rep=rep, **common)
                rows.append(dict(row, dtype=dtype))
        return rows
    return bench.Case(f"n={n} {family}", run, lambda: _check_targets_instance(family, n))


def _option_cases(p, option: str, values: str):
    """A sweep of one option of gpu_eps_scaling (``eps_factor``, ``warps_per_block``): every
    value of ``p[values]`` on each instance, one after the other, a column ``option`` in each
    row (geometric instances only up to ``geom_max_n``: scipy-free, but their auctions take
    seconds each)."""
    for n in p["sizes"]:
        for family in p["families"]:
            if family == "geom" and n > p["geom_max_n"]:
                continue
            for k in range(p["instances"]):
                def run(n=n, family=family, k=k):
                    B, common = _family_instance(p, n, family, k)
                    bench.warm_up(solve, B[:64, :64].copy(), ["gpu_eps_scaling"])
                    rows = []
                    for v in p[values]:
                        r = solve(B, variant="gpu_eps_scaling", **{option: v})
                        rows.append(dict(_certified_row(B, r, None, **common), **{option: v}))
                    return rows
                yield bench.Case(f"n={n} {family} #{k}", run,
                                 lambda n=n, family=family: _check_targets_instance(family, n))


def _tail_cases(p):
    """The ``tail`` preset: each instance solved plainly (``reps`` runs) and then with the tail's
    clock, every answer certified."""
    for n in p["sizes"]:
        for family in p["families"]:
            def run(n=n, family=family):
                B, common = _family_instance(p, n, family)
                bench.warm_up(solve, B[:64, :64].copy(), ["gpu_eps_scaling"])
                bench.warm_up(solve, B[:64, :64].copy(), ["gpu_eps_scaling"], time_tail=True)
                rows = []
                for rep in range(p["reps"]):
                    r = solve(B, variant="gpu_eps_scaling")
                    rows.append(dict(_certified_row(B, r, None, rep=rep, **common), time_tail=0))
                r = solve(B, variant="gpu_eps_scaling", time_tail=True)
                rows.append(dict(_certified_row(B, r, None, **common), time_tail=1,
                                 **{k: r.stats[k] for k in ("tail_ms", "tail_scan_ms", "tail_rounds")}))
                return rows
            yield bench.Case(f"n={n} {family}", run, lambda n=n, family=family: _check_targets_instance(family, n))


def _persistent_cases(p):
    """The ``persistent`` preset: gpu_eps_scaling with its bulk rounds in a CUDA graph of
    launches and in one cooperative launch, alternately on the same int32 instance, ``reps``
    runs each, every answer certified (geometric instances only up to ``geom_max_n``)."""
    for n in p["sizes"]:
        for family in p["families"]:
            if family == "geom" and n > p["geom_max_n"]:
                continue
            def run(n=n, family=family):
                B, common = _family_instance(p, n, family)
                B = np.ascontiguousarray(B, dtype=np.int32)
                for mode in (False, True):       # at full size, as targets: the first large allocations too
                    bench.warm_up(solve, B, ["gpu_eps_scaling"], persistent=mode)
                rows = []
                for rep in range(p["reps"]):
                    for mode in (False, True):
                        r = solve(B, variant="gpu_eps_scaling", persistent=mode)
                        rows.append(dict(_certified_row(B, r, None, rep=rep, **common), persistent=int(mode)))
                return rows
            yield bench.Case(f"n={n} {family}", run, lambda n=n, family=family: _check_targets_instance(family, n))


def _targets_cases(p):
    for family in p["big_families"]:
        yield _targets_case(p, p["big_n"], family, peers_too=False)
    for family in p["families"]:
        yield _targets_case(p, p["n"], family, peers_too=True)


def _timeline_cases(p):
    """One case per instance: gpu_queues at eps = 1 with its first ``p["rounds"]`` rounds timed;
    the solve's row (certified by the dual bound), then one row per timed span."""
    def measure(B, common):
        bench.warm_up(functools.partial(solve, eps=1.0), _tiny(), ["gpu_queues"])
        r = solve(B, variant="gpu_queues", eps=1.0, timeline_rounds=p["rounds"])
        run = dict(_certified_row(B, r, 1.0, **common), kind="run")
        return [run] + [dict(common, kind="span", variant="gpu_queues", **span) for span in r.stats["timeline"]]
    return _per_report_instance(p, lambda n: 1.0, measure)


def _tuning_cases(p, variant, settings):
    """One case per instance: ``variant`` at eps = 1 once per setting.

    ``settings`` is a list of (solver options, extra row columns) pairs.
    """
    for n in p["sizes"]:
        for k in range(p["instances"]):
            def run(n=n, k=k):
                seed = _seed(p["seed"], n, k)
                B = instances.report_instance(n, n, p["density"], seed=seed, limit=p["limit"])
                bench.warm_up(functools.partial(solve, eps=1.0), _tiny(), [variant])
                common = dict(algorithm="auction", n=n, seed=seed, instance=k)
                return [dict(_certified_row(B, solve(B, variant=variant, eps=1.0, **opts), 1.0, **common), **cols)
                        for opts, cols in settings]
            yield bench.Case(f"n={n} #{k}", run, _report_check(p, n, p["density"]))


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


def _scaling_cases(p):
    """One case per instance: the plain serial auction at eps = 1/(m+1) (the report's exact
    setting, Figure 10) and serial eps-scaling, on the same instance, both certified optimal."""
    def measure(B, common):
        for scaling in (False, True):   # compile both, untimed
            solve(_tiny(), variant="serial", scaling=scaling)
        return [dict(_certified_row(B, solve(B, variant="serial", scaling=scaling), None, **common), method=method)
                for method, scaling in (("plain", False), ("eps-scaling", True))]
    return _per_report_instance(p, lambda n: 1.0 / (n + 1), measure)


def _active_cases(p):
    n = p["n"]
    for k in range(p["instances"]):
        def run(k=k):
            seed = _seed(p["seed"], n, k)
            B = instances.report_instance(n, n, p["density"], seed=seed, limit=p["limit"])
            r = solve(B, variant="serial", eps=1.0, record_rounds=p["rounds"])
            act = r.stats["active_bidders"][:p["rounds"]]
            return [dict(algorithm="auction", variant="serial", n=n, seed=seed, instance=k, round=t + 1,
                         active_bidders=int(a)) for t, a in enumerate(act)]

        def check():
            _report_check(p, n, p["density"])()
            serial.check_limits(record_rounds=p["rounds"])     # the record the serial run keeps
        yield bench.Case(f"n={n} #{k}", run, check)


_REPORT_QUICK = dict(sizes=[40, 80], instances=2)
_TUNING_QUICK = dict(sizes=[60, 120], instances=1)

PRESETS = {
    "report": bench.Preset(
        "the report's sweep: sizes 500..18000, density 0.1 and 1, 3 instances, eps=1, every variant",
        dict(sizes=REPORT_SIZES, densities=[0.1, 1.0], instances=3, limit=10000, seed=2022,
             variants=REPORT_VARIANTS, max_rounds=10**7),
        lambda p: _report_cases(p, lambda n: 1.0), quick=_REPORT_QUICK),
    "small_eps": bench.Preset(
        "eps = 1/(m+1) (exact without scaling), sizes up to 3660 as far as the report got",
        dict(sizes=REPORT_SIZES[:6], densities=[0.1, 1.0], instances=3, limit=10000, seed=2022,
             variants=["serial", "gpu_queues"], max_rounds=2 * 10**6),
        lambda p: _report_cases(p, lambda n: 1.0 / (n + 1)), quick=_REPORT_QUICK),
    "exact": bench.Preset(
        "exact gpu_eps_scaling vs scipy linear_sum_assignment and lap, dense uniform benefits",
        dict(sizes=[1024, 2048, 4096, 8192, 16384], ranges=["1-10000", "0-n"], instances=1, reps=3, seed=7,
             variants=["gpu_eps_scaling"]),
        _exact_cases, quick=dict(sizes=[64, 128], instances=1)),
    "threads": bench.Preset(
        "bidding threads per block 64/256/1024 (gpu_queues, density 0.5, eps=1)",
        dict(sizes=REPORT_SIZES[:8], bid_threads=[64, 256, 1024], density=0.5, instances=3, limit=10000,
             seed=2022),
        _threads_cases, quick=_TUNING_QUICK),
    "graph_tuning": bench.Preset(
        "gpu_graph over bidding/assignment threads and grid = 1x or 2x the SM count (density 0.5, eps=1)",
        dict(sizes=REPORT_SIZES[:8], bid_threads=[64, 128, 256], assign_threads=[128, 256],
             grid_factors=[1, 2], density=0.5, instances=3, limit=10000, seed=2022),
        _graph_cases, quick=_TUNING_QUICK),
    "active_bidders": bench.Preset(
        "bidders in every round, 1108 persons, density 1 (serial Jacobi rounds; the report drew the first 100)",
        dict(n=1108, rounds=100_000, density=1.0, instances=3, limit=10000, seed=2022),
        _active_cases, needs_gpu=False, quick=dict(n=60)),
    "timeline": bench.Preset(
        "the report's Figure 2: gpu_queues' streams in its first rounds (CUDA events), 1108 persons, density 1",
        dict(sizes=[1108], densities=[1.0], instances=3, limit=10000, seed=2022, rounds=12),
        _timeline_cases, quick=dict(sizes=[40], instances=1, rounds=4)),
    "targets": bench.Preset(
        "goals: exact gpu_eps_scaling from int32 and int64 input at n = 16384, and against scipy and lap at "
        "n = 8192 on benefits in [0, 999] and geometric ones",
        dict(big_n=16384, big_families=["1-10000"], n=8192, families=["0-999", "geom"],
             dtypes=["int32", "int64"], reps=3, seed=19),
        _targets_cases, quick=dict(big_n=96, n=64)),
    "persistent": bench.Preset(
        "gpu_eps_scaling's rounds before the tail: a CUDA graph of launches against one cooperative launch "
        "with grid barriers, alternately on the same instances (the targets' instances among them)",
        dict(sizes=[8192, 16384], families=["1-10000", "0-999", "geom"], geom_max_n=8192, reps=3, seed=19),
        _persistent_cases, quick=dict(sizes=[64, 96], reps=1, geom_max_n=96)),
    "tail": bench.Preset(
        "where gpu_eps_scaling's time goes: the single-block tail's rounds, clocked inside the kernel",
        dict(sizes=[4096, 8192, 16384], families=["1-10000", "0-999"], reps=3, seed=37),
        _tail_cases, quick=dict(sizes=[64, 128], reps=1)),
    "eps_factor": bench.Preset(
        "gpu_eps_scaling with each divisor of eps between phases, on the same instances (the default's evidence)",
        dict(sizes=[2048, 4096, 8192, 16384], families=["1-10000", "0-999", "geom"], geom_max_n=8192,
             factors=[3, 4, 5, 6, 8, 10], instances=3, seed=31),
        lambda p: _option_cases(p, "eps_factor", "factors"), quick=dict(sizes=[64, 96], instances=1, geom_max_n=96)),
    "warps": bench.Preset(
        "gpu_eps_scaling with each number of warps per block of its bidding kernel, on the eps_factor sweep's "
        "instances (the default's evidence)",
        dict(sizes=[2048, 4096, 8192, 16384], families=["1-10000", "0-999", "geom"], geom_max_n=8192,
             warps=[4, 8, 16, 32], instances=3, seed=31),
        lambda p: _option_cases(p, "warps_per_block", "warps"), quick=dict(sizes=[64, 96], instances=1, geom_max_n=96)),
    "scaling": bench.Preset(
        "serial auction at eps = 1/(m+1) against serial eps-scaling, same instances (density 0.1 and 1)",
        dict(sizes=REPORT_SIZES[:6], densities=[0.1, 1.0], instances=3, limit=10000, seed=2022),
        _scaling_cases, needs_gpu=False, quick=dict(sizes=[40, 80], instances=1)),
}
