"""TSP benchmark presets for ``python -m gpualgo.bench tsp --preset NAME``.

- ``report``: the source report's measurement: orders (permutations) per second of each GPU
  brute-force version for 10..12 cities and beyond, every block size 32..1024, 20
  repetitions, all (n-1)! orders counted as the report does.
- ``scaling``: exact solve time against n: GPU brute force up to n = 16, GPU Held-Karp up to
  n = 25, against the numba serial versions (the brute force on one core and on every core,
  ``cpu_prange``) and the CPU peers: python-tsp's exact dynamic
  programme (when installed) and OR-tools routing (the heuristic people use: its tour length
  and gap to the exact optimum, local search alone and guided local search for ``gls_ms``).
- ``targets``: the performance goals: orders/s at n = 13..15, n = 16 solved exactly, GPU
  Held-Karp against numba Held-Karp at n = 22 (:func:`gpualgo.tsp.analysis.targets_report` says
  which are met).
- ``largest``: the largest exact solves on one GPU: the brute force at n = 17 and GPU
  Held-Karp at n = 26..30, where its table (2^(n-1) x (n-1) entries) nears the GPU's memory.
- ``phase``: version (c) over ranges of chunks of several lengths: as built, with its last
  four cities stepped instead of scored from registers, and with its threads' ranges out of
  phase as well (:func:`gpualgo.tsp.gpu.in_phase`).
- ``cpu``: the CPU versions only (numba brute force on one core and on all, numba Held-Karp, the peers): runs
  anywhere, for the notebook's same-run comparison.
- ``tuning``: the report's tuning steps (Sec. 2.1 and 2.2) at n = 12, one choice changed at a
  time from each version as built (:data:`gpualgo.tsp.analysis.TUNING_STEPS`): orders/s,
  kernel and transfer times, every run checked against Held-Karp.
- ``cpu_cores``: the numba brute force on one core and on every core of the machine at
  n = 10..13 (the CPU side of the report's device comparison), with the core count.

Every preset has tiny sizes for CI and headless notebooks (``quick=True``, its
``Preset.quick``). Every row is written by :func:`gpualgo.bench.row` (a peer's by
:func:`gpualgo.bench.peer_row`), then the TSP counters (``permutations``, ``perms_per_s``,
``states``, ``cost_dtype``); ``verified`` is True where the row's length was checked in the
same run against the other exact algorithm (brute force against Held-Karp and back,
:func:`gpualgo.tsp.checks.check_result`), None where that reference was not run.

What the notebook prints from these rows is computed in :mod:`gpualgo.tsp.analysis`.
"""

from __future__ import annotations

import json
import os

import numba
import numpy as np

from .. import bench, gpu
from ..timing import timed
from ..bench import Case, Preset
from . import checks, instances
from .analysis import EXACT_GOAL_S, HK_SPEEDUP_GOAL, LARGEST_GOAL_S, RATE_GOAL, TUNING_OPTIONS, TUNING_STEPS, _sci
from .solve import check as check_solve
from .solve import solve

__all__ = ["PRESETS", "report_instance", "peer_rows"]

GPU_BRUTE = ("gpu_host_chunks", "gpu_unrank", "gpu_shared_incremental")
BLOCKS = (32, 64, 128, 256, 512, 1024)



def peer_rows(inst, optimum, gls_ms: int, rep: int = 0, **fields) -> list[dict]:
    """The CPU peers on ``inst`` (:func:`gpualgo.tsp.checks.peer_tour`), one row each that
    is installed: python-tsp's exact dynamic programme (``python_tsp_dp``, verified: its
    length must be ``optimum``) and OR-tools routing, local search alone
    (``ortools_routing``) and guided local search for ``gls_ms`` ms (``ortools_routing_gls``),
    with ``gap``, how much longer than the optimum their tour is.
    """
    common = dict(algorithm="tsp", n=inst.n, **fields, optimum=optimum)
    rows = []
    out, ms = timed(checks.peer_tour, inst, "python_tsp")
    if out is not None:
        if out[1] != optimum:
            raise RuntimeError(f"python-tsp: length {out[1]}, Held-Karp: {optimum}")
        rows.append(dict(bench.peer_row("python_tsp_dp", out[1], ms, rep=rep, verified=True,
                                        device=gpu.cpu_label(engine="python-tsp"), **common), gap=0.0))
    for variant, limit in (("ortools_routing", 0), ("ortools_routing_gls", gls_ms)):
        out, ms = timed(checks.peer_tour, inst, "ortools_routing", limit)
        if out is None:
            break
        rows.append(dict(bench.peer_row(variant, out[1], ms, rep=rep, device=gpu.cpu_label(engine="OR-tools"),
                                        **common), gap=_gap(out[1], optimum), time_limit_ms=limit))
    return rows


def _gap(length, optimum) -> float:
    """A heuristic tour's relative gap to the optimum (0 where both are 0: one city, zero roads)."""
    return (length - optimum) / optimum if optimum else (0.0 if length == optimum else float("inf"))


#: the report's kind of instance: random graphs of this density and these weights
_REPORT_GRAPH = dict(density=0.8, low=1, high=100)


def report_instance(n: int, seed: int):
    """The report's kind of instance: a random graph with missing edges (a tour exists)."""
    return instances.random_graph(n, seed=seed, plant_tour=True, **_REPORT_GRAPH)


def _check_euclidean(n, *solves):
    """A case's check (:class:`gpualgo.bench.Case`): the refusals of random Euclidean cities
    (:func:`gpualgo.tsp.instances.check_random_euclidean`), then those of each solve the case
    makes, in its order: ``(variant, options)`` pairs for :func:`gpualgo.tsp.solve.check`
    (``force`` where the case insists)."""
    def check():
        instances.check_random_euclidean(n)
        for variant, options in solves:
            check_solve(n, variant, **options)
    return check


def _warm(variants, **options) -> None:
    # compile (numba / NVRTC) outside the timed runs
    bench.warm_up(solve, instances.random_euclidean(6, seed=0), variants, **options)


def _row(r, inst, reference=None, rep: int = 0, **fields) -> dict:
    """One measured row (:func:`gpualgo.bench.row`), verified against ``reference`` (a
    result of the other exact algorithm on ``inst``, an optimal length known otherwise, or
    None), then the TSP counters."""
    verified = None
    if reference is not None:
        checks.check_result(r, inst, reference)      # a wrong answer stops the sweep
        verified = True
    s = r.stats
    row = bench.row(r, rep=rep, verified=verified, algorithm="tsp", n=inst.n, **fields)
    row.update(permutations=int(s.get("permutations", 0)), perms_per_s=float(s.get("perms_per_s", 0.0)),
               states=int(s.get("states", 0)), cost_dtype=s.get("cost_dtype"))
    return row


# ----------------------------------------------------------------------------- report

def _report_cases(p):
    for variant in p["variants"]:
        ns = list(p["sizes"]) + ([] if variant == "gpu_host_chunks" else list(p["beyond"]))
        for n in ns:
            for block in p["blocks"]:
                def run(variant=variant, n=n, block=block):
                    _warm([variant], block=block)
                    inst = report_instance(n, p["seed"])
                    ref = solve(inst, variant="held_karp")
                    return [_row(solve(inst, variant=variant, block=block, symmetric=False), inst, ref, rep=rep,
                                 block=block, seed=p["seed"])
                            for rep in range(p["reps"])]

                def check(variant=variant, n=n, block=block):
                    instances.check_random_graph(n, **_REPORT_GRAPH)
                    check_solve(n, "held_karp")
                    check_solve(n, variant, symmetric=False, block=block)
                yield Case(f"{variant} n={n} block={block}", run, check)


# ----------------------------------------------------------------------------- tuning

#: the times version (a) splits, kept in its ``tuning`` rows
_HOST_TIMES = ("host_ms", "wait_ms", "upload_ms", "download_ms", "transfer_ms")


def _tuning_case(step, p):
    """``step`` of :data:`~gpualgo.tsp.analysis.TUNING_STEPS` on the report's instance at
    ``n``, all (n-1)! orders: ``host_reps`` runs of version (a) (about a second each), ``reps``
    of (b) and (c), each checked against Held-Karp."""
    spec, n = TUNING_STEPS[step], p["n"]
    reps = p["host_reps"] if spec.variant == "gpu_host_chunks" else p["reps"]

    def run():
        _warm([spec.variant], **spec.options)
        inst = report_instance(n, p["seed"])
        ref = solve(inst, variant="held_karp")
        rows = []
        for rep in range(reps):
            r = solve(inst, variant=spec.variant, symmetric=False, **spec.options)
            row = _row(r, inst, ref, rep=rep, step=step, **{k: r.stats.get(k) for k in TUNING_OPTIONS},
                       seed=p["seed"])
            rows.append(dict(row, **{k: r.stats.get(k) for k in _HOST_TIMES}))
        return rows

    def check():
        instances.check_random_graph(n, **_REPORT_GRAPH)
        check_solve(n, "held_karp")
        check_solve(n, spec.variant, symmetric=False, **spec.options)
    return Case(f"{step} n={n}", run, check)


def _tuning_cases(p):
    for step in p["steps"]:
        yield _tuning_case(step, p)


# ---------------------------------------------------------------------------- scaling

def _peer_case(n, seed, reps, gls_ms):
    """python-tsp (exact) and OR-tools routing (heuristic: length and gap to the optimum)."""
    def run():
        inst = instances.random_euclidean(n, seed=seed)
        opt = solve(inst, variant="held_karp").length
        return [row for rep in range(reps) for row in peer_rows(inst, opt, gls_ms, rep=rep, seed=seed)]
    return Case(f"peers n={n}", run, _check_euclidean(n, ("held_karp", {})))


def _solve_case(variant, n, seed, reps, reference):
    """``reps`` runs of ``variant`` on random Euclidean cities, verified against the
    ``reference`` version (None: not verified)."""
    def run():
        _warm([variant])
        inst = instances.random_euclidean(n, seed=seed)
        ref = solve(inst, variant=reference) if reference else None
        return [_row(solve(inst, variant=variant), inst, ref, rep=rep, seed=seed) for rep in range(reps)]
    return Case(f"{variant} n={n}", run, _check_euclidean(n, *[(v, {}) for v in (reference, variant) if v]))


def _cores_case(variant, n, seed, reps):
    """``reps`` runs of a numba brute force on random Euclidean cities with numba's threads at
    every core it may use (one for ``serial_bruteforce``), checked against Held-Karp; the rows
    say how many threads ran and how many cores the machine has."""
    def run():
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        _warm([variant])
        inst = instances.random_euclidean(n, seed=seed)
        ref = solve(inst, variant="held_karp")
        rows = []
        for rep in range(reps):
            r = solve(inst, variant=variant)
            rows.append(_row(r, inst, ref, rep=rep, seed=seed, threads=int(r.stats.get("threads", 1)),
                             cores=os.cpu_count()))
        return rows
    return Case(f"{variant} n={n}", run, _check_euclidean(n, ("held_karp", {}), (variant, {})))


def _cores_cases(p):
    for variant in ("serial_bruteforce", "cpu_prange"):
        for n in range(p["min_n"], p["max_n"] + 1):
            yield _cores_case(variant, n, p["seed"], p["reps"])


def _scaling_cases(p):
    seed = p["seed"]
    tops = {"gpu_shared_incremental": p["bf_max"], "serial_bruteforce": p["serial_bf_max"],
            "cpu_prange": p["serial_bf_max"], "gpu_held_karp": p["hk_max"], "held_karp": p["serial_hk_max"]}
    for variant, top in tops.items():
        if variant.startswith("gpu_") and not p["gpu"]:
            continue
        for n in range(p["min_n"], top + 1):
            # the other exact algorithm, where its serial version runs in this sweep
            if variant == "held_karp":
                ref = "serial_bruteforce" if n <= p["serial_bf_max"] else None
            else:
                ref = "held_karp" if n <= p["serial_hk_max"] else None
            yield _solve_case(variant, n, seed, p["reps"], ref)
    for n in range(p["peers_min"], p["peers_max"] + 1):
        yield _peer_case(n, seed, p["reps"], p["gls_ms"])


# ---------------------------------------------------------------------------- targets

def _targets_cases(p):
    seed = p["seed"]
    for n in p["rate_sizes"]:
        def run(n=n):
            _warm(["gpu_shared_incremental"])
            inst = instances.random_euclidean(n, seed=seed)
            ref = solve(inst, variant="held_karp")
            return [_row(solve(inst, variant="gpu_shared_incremental", symmetric=sym, force=True), inst, ref,
                         symmetric=sym, seed=seed, goal=f"orders/s >= {_sci(RATE_GOAL)}")
                    for sym in (False, True)]
        yield Case(f"rate n={n}", run, _check_euclidean(n, ("held_karp", {}), *[
            ("gpu_shared_incremental", dict(symmetric=sym, force=True)) for sym in (False, True)]))

    def exact():
        n = p["exact_n"]
        inst = instances.random_euclidean(n, seed=seed)
        r = solve(inst, variant="gpu_shared_incremental", force=True)
        hk = solve(inst, variant="gpu_held_karp")
        return [_row(r, inst, hk, seed=seed, goal=f"n={n} exact in < {EXACT_GOAL_S} s")]
    yield Case(f"exact n={p['exact_n']}", exact, _check_euclidean(
        p["exact_n"], ("gpu_shared_incremental", dict(force=True)), ("gpu_held_karp", {})))

    def hk_ratio():
        n = p["hk_n"]
        _warm(["gpu_held_karp", "held_karp"])
        inst = instances.random_euclidean(n, seed=seed)
        gpu_results = [solve(inst, variant="gpu_held_karp") for _ in range(3)]
        # the serial baseline is repeated too (3 runs below a minute): no ratio rests on one run
        sers = [r for r, _ in bench.repeat(solve, inst, variant="held_karp", force=True)]
        ser = sers[0]
        gpu_rows = [_row(r, inst, ser, seed=seed, rep=i) for i, r in enumerate(gpu_results)]
        ser_rows = [_row(s, inst, None, seed=seed, rep=i) for i, s in enumerate(sers)]
        ser_ms = float(np.median([r["total_ms"] for r in ser_rows]))
        for r in gpu_rows:
            r.update(goal=f"gpu_held_karp >= {HK_SPEEDUP_GOAL}x held_karp", speedup_vs_serial=ser_ms / r["total_ms"])
        for r in ser_rows:
            r["speedup_vs_serial"] = 1.0
        gpu_rows[0]["best_speedup"] = ser_ms / min(r["total_ms"] for r in gpu_rows)
        return gpu_rows + ser_rows
    yield Case("held-karp ratio", hk_ratio, _check_euclidean(
        p["hk_n"], ("gpu_held_karp", {}), ("held_karp", dict(force=True))))


def _largest_cases(p):
    """The largest exact solves on one GPU: the brute force at ``bf_n`` (symmetric, checked
    against GPU Held-Karp), then GPU Held-Karp at each of ``hk_sizes`` on a planted instance
    (:func:`gpualgo.tsp.instances.planted_optimum`: its length must be n), with the table's memory."""
    seed = p["seed"]

    def brute():
        n = p["bf_n"]
        _warm(["gpu_shared_incremental", "gpu_held_karp"])
        inst = instances.random_euclidean(n, seed=seed)
        hk = solve(inst, variant="gpu_held_karp")
        r = solve(inst, variant="gpu_shared_incremental", force=True)
        return [_row(r, inst, hk, seed=seed, goal=f"n={n} symmetric exact in < {p['bf_goal_s']} s")]
    yield Case(f"gpu_shared_incremental n={p['bf_n']}", brute, _check_euclidean(
        p["bf_n"], ("gpu_held_karp", {}), ("gpu_shared_incremental", dict(force=True))))

    for n in p["hk_sizes"]:
        def held_karp(n=n):
            _warm(["gpu_held_karp"])
            inst = instances.planted_optimum(n, seed)
            r = solve(inst, variant="gpu_held_karp")
            row = _row(r, inst, n, seed=seed, planted_optimum=n)     # verified: the planted length
            row["table_bytes"] = int(r.stats["table_bytes"])
            return [row]

        def check(n=n):
            instances.check_planted_optimum(n)
            check_solve(n, "gpu_held_karp")
        yield Case(f"gpu_held_karp n={n}", held_karp, check)


def _phase_cases(p):
    """Version (c) over ranges of chunks of several lengths (n = ``n``, each tour once): as
    built (its threads' ranges in phase, :func:`gpualgo.tsp.gpu.in_phase`, and the last four
    cities in registers), with the last four stepped (``suffix="steps"``), and with those
    steps out of phase as well (how (c) first ran): the first ``lengths`` chunks, then the
    whole enumeration. Each range gives the same best and rank all three ways; the whole one is
    verified against GPU Held-Karp."""
    from .gpu import search_range
    from .serial import prepare

    def run():
        _warm(["gpu_shared_incremental", "gpu_held_karp"])
        inst = instances.random_euclidean(p["n"], seed=p["seed"])
        prep = prepare(inst, True)
        optimum = solve(inst, variant="gpu_held_karp").length
        device = gpu.device_name()
        rows = []
        for lo, hi in [(0, min(c, prep.plan.n_chunks)) for c in p["lengths"]] + [(0, prep.plan.n_chunks)]:
            found = {}
            orders = (hi - lo) * prep.plan.kfact
            whole = (lo, hi) == (0, prep.plan.n_chunks)
            for phase, suffix in ((True, "registers"), (True, "steps"), (False, "steps")):
                (best, rank), ms = timed(search_range, prep, "gpu_shared_incremental", lo, hi, phase=phase,
                                         suffix=suffix)
                found[phase, suffix] = (best, rank)
                if whole and best != optimum:
                    raise RuntimeError(f"gpu_shared_incremental n={inst.n}: best {best}, Held-Karp {optimum}")
                rows.append(dict(algorithm="tsp", n=inst.n, seed=p["seed"], variant="gpu_shared_incremental",
                                 rep=0, total_ms=ms, prepare_ms=None, exec_ms=ms, kernel_ms=None, objective=best,
                                 verified=True if whole else None, device=device, first_chunk=lo, end_chunk=hi,
                                 chunks=hi - lo, phase=phase, suffix=suffix, permutations=orders,
                                 perms_per_s=orders / ms * 1e3, cost_dtype=str(prep.W.dtype)))
            if len(set(found.values())) != 1:
                raise RuntimeError(f"chunks {lo}..{hi}: the (best, rank) differ: {found}")
        return rows
    yield Case(f"ranges of chunks, n={p['n']}", run, _check_euclidean(
        p["n"], ("gpu_held_karp", {}), ("gpu_shared_incremental", dict(force=True))))


# ---------------------------------------------------------------------- on several workers

def _cluster_cases(p):
    """Brute force on 1, 2... workers of a local cluster (:func:`gpualgo.tsp.solve_on_cluster`),
    each length checked against Held-Karp: ``sizes`` on every worker count (``reps`` runs), ``exact_n``
    once on the most workers. GPU versions get one worker per GPU, ``serial_bruteforce`` CPU workers;
    every worker is warmed first (:func:`gpualgo.tsp.distributed.warm`). Each row adds the tasks'
    longest time and each worker's busy time (``busy_ms``): what an uneven cut costs."""
    from .. import cluster
    from .distributed import solve_on_cluster, warm
    variant, seed = p["variant"], p["seed"]
    kind = "local-cpu" if variant == "serial_bruteforce" else "local"
    reference = "held_karp" if variant == "serial_bruteforce" else "gpu_held_karp"
    top = max(p["workers"])
    runs = [(w, n) for n in p["sizes"] for w in p["workers"]] + [(top, n) for n in [p["exact_n"]] if n]
    for w, n in runs:
        def run(w=w, n=n):
            inst = instances.random_euclidean(n, seed=seed)
            ref = solve(inst, variant=reference)
            rows = []
            with cluster.session(kind, n_workers=w) as c:
                warm(c, variant)
                for rep in range(p["reps"] if n in p["sizes"] else 1):
                    r = solve_on_cluster(inst, c, variant=variant, force=True)
                    row = _row(r, inst, ref, rep=rep, seed=seed, workers=w)
                    busy: dict = {}
                    for t in r.stats["where"]:
                        key = t["worker"] if t["worker_gpu"] is None else f"{t['worker_host']} GPU {t['worker_gpu']}"
                        busy[key] = busy.get(key, 0.0) + t["ms"]
                    row.update(tasks=r.stats["tasks"], task_ms=r.stats["task_ms"], workers_used=r.stats["workers"],
                               task_ms_max=max((t["ms"] for t in r.stats["where"]), default=0.0),
                               busy_ms=json.dumps({k: round(v, 1) for k, v in sorted(busy.items())}))
                    rows.append(row)
            return rows
        # solve_on_cluster refuses what the variant's own solve refuses but the time (forced here)
        yield Case(f"{variant} n={n} on {w} worker(s)", run, _check_euclidean(
            n, (reference, {}), (variant, dict(force=True))))


def _sweep_cases(p):
    return _report_cases(p)


#: the tiny sizes of ``scaling`` and ``cpu``: brute force n = 5..7, Held-Karp n = 5..9
_SCALING_QUICK = dict(min_n=5, bf_max=7, serial_bf_max=7, hk_max=9, serial_hk_max=9, peers_min=5, peers_max=7,
                      gls_ms=50, reps=1)

PRESETS = {
    "report": Preset(
        description="orders/s of each GPU brute-force version, n = 10..12 and beyond, "
                    "block sizes 32..1024, 20 repetitions (the source report's measurement)",
        params=dict(variants=list(GPU_BRUTE), sizes=[10, 11, 12], beyond=[13, 14],
                    blocks=list(BLOCKS), reps=20, seed=1),
        cases=_report_cases, needs_gpu=True, seeds=[1],
        quick=dict(sizes=[5, 6], beyond=[7], blocks=[32, 256], reps=2)),
    "scaling": Preset(
        description="exact solve time against n: GPU brute force and Held-Karp against the "
                    "numba serial versions, python-tsp and OR-tools routing",
        params=dict(min_n=8, bf_max=16, serial_bf_max=13, hk_max=25, serial_hk_max=22, peers_min=6, peers_max=12,
                    gls_ms=1000, reps=3, seed=2, gpu=True),
        cases=_scaling_cases, needs_gpu=True, seeds=[2], quick=_SCALING_QUICK),
    "targets": Preset(
        description="performance goals: orders/s at n = 13..15, n = 16 exact, GPU Held-Karp "
                    "vs numba at n = 22",
        params=dict(rate_sizes=[13, 14, 15], exact_n=16, hk_n=22, seed=3),
        cases=_targets_cases, needs_gpu=True, seeds=[3],
        quick=dict(rate_sizes=[6, 7], exact_n=7, hk_n=10)),
    "largest": Preset(
        description="the largest exact solves on one GPU: brute force n = 17 (symmetric), GPU Held-Karp "
                    "n = 26, 28 and 30 on planted instances (optimum known), with the table's memory",
        params=dict(bf_n=17, bf_goal_s=LARGEST_GOAL_S, hk_sizes=[26, 28, 30], seed=7),
        cases=_largest_cases, needs_gpu=True, seeds=[7],
        quick=dict(bf_n=8, hk_sizes=[7, 9])),
    "phase": Preset(
        description="version (c) over the first 1 to 26 chunks and all 105 at n = 16 (each tour once): as "
                    "built, with its last four cities stepped, and stepped out of phase: orders/s of each",
        params=dict(n=16, lengths=[1, 7, 13, 17, 22, 26], seed=4),
        cases=_phase_cases, needs_gpu=True, seeds=[4],
        quick=dict(n=9, lengths=[1, 3])),
    "multigpu": Preset(
        description="brute force across GPUs: n = 16 on 1 and 2 GPUs (one Dask worker each), n = 17 on all",
        params=dict(sizes=[16], exact_n=17, workers=[1, 2], variant="gpu_shared_incremental", reps=3, seed=4),
        cases=_cluster_cases, needs_gpu=True, seeds=[4],
        quick=dict(sizes=[9], exact_n=10, reps=2)),
    "cluster_cpu": Preset(
        description="numba brute force across CPU workers of a local Dask cluster: 1 and 2 workers",
        params=dict(sizes=[11], exact_n=0, workers=[1, 2], variant="serial_bruteforce", reps=1, seed=4),
        cases=_cluster_cases, needs_gpu=False, seeds=[4],
        quick=dict(sizes=[9])),
    "sweep": Preset(
        description="a sweep of GPU cases that takes minutes on one GPU (the report's measurement, two "
                    "versions, n = 12..15, 2 repetitions): to time one GPU against every GPU of a cluster",
        params=dict(variants=["gpu_unrank", "gpu_shared_incremental"], sizes=[12, 13], beyond=[14, 15],
                    blocks=list(BLOCKS), reps=2, seed=1),
        cases=_sweep_cases, needs_gpu=True, seeds=[1],
        quick=dict(sizes=[6], beyond=[7], blocks=[32, 256], reps=1)),
    "tuning": Preset(
        description="the report's tuning steps at n = 12, one choice changed at a time: (a) int32 vs uint8, "
                    "pageable/pinned/mapped buffers, matrix in shared memory, city-major orders, minimum on "
                    "the device; (c)'s three changes over (b) one by one",
        params=dict(steps=list(TUNING_STEPS), n=12, reps=20, host_reps=7, seed=1),
        cases=_tuning_cases, needs_gpu=True, seeds=[1],
        quick=dict(n=7, reps=2, host_reps=2)),
    "cpu_cores": Preset(
        description="numba brute force on one core and on every core, n = 10..13, 3 runs each",
        params=dict(min_n=10, max_n=13, reps=3, seed=2),
        cases=_cores_cases, needs_gpu=False, seeds=[2],
        quick=dict(min_n=6, max_n=8, reps=1)),
    "cpu": Preset(
        description="CPU versions only: numba brute force and Held-Karp, python-tsp, OR-tools routing",
        params=dict(min_n=8, bf_max=11, serial_bf_max=11, hk_max=0, serial_hk_max=16, peers_min=6, peers_max=10,
                    gls_ms=200, reps=2, seed=2, gpu=False),
        cases=_scaling_cases, needs_gpu=False, seeds=[2], quick=_SCALING_QUICK),
}
