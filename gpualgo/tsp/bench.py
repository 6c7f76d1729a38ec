"""TSP benchmark presets for ``python -m gpualgo.bench tsp --preset NAME``.

- ``report``: the source report's measurement: orders (permutations) per second of each GPU
  brute-force version for 10..12 cities and beyond, every block size 32..1024, 20
  repetitions, all (n-1)! orders counted as the report does.
- ``scaling``: exact solve time against n: GPU brute force up to n = 16, GPU Held-Karp up to
  n = 25, against the numba serial versions and the CPU peers: python-tsp's exact dynamic
  programme (when installed) and OR-tools routing (the heuristic people use: its tour length
  and gap to the exact optimum, local search alone and guided local search for ``gls_ms``).
- ``targets``: the performance goals: orders/s at n = 13..15, n = 16 solved exactly, GPU
  Held-Karp against numba Held-Karp at n = 22.
- ``cpu``: the CPU versions only (numba brute force, numba Held-Karp, the peers): runs
  anywhere, for the notebook's same-run comparison.

Every preset takes ``quick`` (tiny sizes, for CI and headless notebooks).
"""

from __future__ import annotations

import math

import numpy as np

from .. import peers
from ..bench import Case, Preset
from ..timing import timed
from . import instances
from .checks import tour_length
from .solve import solve

GPU_BRUTE = ("gpu_host_chunks", "gpu_unrank", "gpu_shared_incremental")
BLOCKS = (32, 64, 128, 256, 512, 1024)


def report_instance(n: int, seed: int):
    """The report's kind of instance: a random graph with missing edges (a tour exists)."""
    return instances.random_graph(n, density=0.8, seed=seed, low=1, high=100, plant_tour=True)


def _row(r, inst, **extra) -> dict:
    s = r.stats
    row = dict(algorithm="tsp", variant=r.variant, n=inst.n, length=r.length,
               time_ms=float(s.get("total_ms")), kernel_ms=float(s.get("kernel_ms", float("nan"))),
               permutations=int(s.get("permutations", 0)),
               perms_per_s=float(s.get("perms_per_s", 0.0)),
               states=int(s.get("states", 0)), cost_dtype=s.get("cost_dtype"),
               device=str(s.get("device")))
    row.update(extra)
    return row


def _warm(variant, **opts):
    # compile (numba / NVRTC) outside the timed runs
    solve(instances.random_euclidean(6, seed=0), variant=variant, **opts)


# ----------------------------------------------------------------------------- report

def _report_cases(p):
    sizes = [5, 6] if p["quick"] else list(p["sizes"])
    beyond = [7] if p["quick"] else list(p["beyond"])
    blocks = [32, 256] if p["quick"] else list(p["blocks"])
    reps = 2 if p["quick"] else int(p["reps"])
    for variant in p["variants"]:
        ns = sizes + ([] if variant == "gpu_host_chunks" else beyond)
        for n in ns:
            inst = report_instance(n, p["seed"])
            for block in blocks:
                def run(variant=variant, inst=inst, block=block, n=n):
                    _warm(variant, block=block)
                    rows = []
                    for rep in range(reps):
                        r = solve(inst, variant=variant, block=block, symmetric=False)
                        rows.append(_row(r, inst, block=block, rep=rep, seed=p["seed"]))
                    return rows
                yield Case(f"{variant} n={n} block={block}", run)


# ---------------------------------------------------------------------------- scaling

def _peer_matrix(inst) -> np.ndarray:
    # the peers know no missing edges: a weight larger than any feasible tour keeps them out
    big = int(inst.dist.max()) * inst.n + 1
    return np.where(inst.missing, big, inst.dist).astype(np.int64)


def python_tsp_tour(inst):
    """python-tsp's exact dynamic programme on ``inst``.

    Returns ``(tour, length)`` (length by :func:`tour_length`, ``inf`` if the tour needs a
    missing edge), or None when python-tsp is not installed (see ``gpualgo.peers``).
    Raises RuntimeError when python-tsp's own length disagrees with its tour.
    """
    mod = peers.load("python_tsp")
    if mod is None:
        return None
    perm, dist = mod.solve_tsp_dynamic_programming(_peer_matrix(inst).astype(float))
    length = tour_length(inst, perm)
    if length != math.inf and length != int(round(dist)):
        raise RuntimeError(f"python-tsp reported {dist} for a tour of length {length}")
    return np.asarray(perm, dtype=np.int64), length


def ortools_tour(inst, time_limit_ms: int = 0):
    """OR-tools routing, the TSP heuristic people use, on ``inst``.

    ``time_limit_ms=0``: a path-cheapest-arc first tour improved by local search until no move
    helps (a local optimum, fast); ``time_limit_ms > 0``: guided local search for that many
    milliseconds (closer to the optimum, never proven).  Returns ``(tour, length)`` with the
    tour starting at city 0 (length ``inf`` if it needs a missing edge), or None when
    OR-tools is not installed.  Raises RuntimeError when OR-tools finds no tour.
    """
    pywrapcp = peers.load("ortools_routing")
    if pywrapcp is None:
        return None
    from ortools.constraint_solver import routing_enums_pb2 as enums
    manager = pywrapcp.RoutingIndexManager(inst.n, 1, 0)
    model = pywrapcp.RoutingModel(manager)
    # a matrix registered in C++: no Python callback per arc, so the peer runs at full speed
    cost = model.RegisterTransitMatrix(_peer_matrix(inst).tolist())
    model.SetArcCostEvaluatorOfAllVehicles(cost)
    params = pywrapcp.DefaultRoutingSearchParameters()
    params.first_solution_strategy = enums.FirstSolutionStrategy.PATH_CHEAPEST_ARC
    if time_limit_ms > 0:
        params.local_search_metaheuristic = enums.LocalSearchMetaheuristic.GUIDED_LOCAL_SEARCH
        params.time_limit.FromMilliseconds(int(time_limit_ms))
    else:
        params.local_search_metaheuristic = enums.LocalSearchMetaheuristic.GREEDY_DESCENT
    sol = model.SolveWithParameters(params)
    if sol is None:
        raise RuntimeError(f"OR-tools routing found no tour for {inst!r}")
    tour, index = [], model.Start(0)
    while not model.IsEnd(index):
        tour.append(manager.IndexToNode(index))
        index = sol.Value(model.NextVar(index))
    return np.asarray(tour, dtype=np.int64), tour_length(inst, tour)


def _peer_case(n, seed, reps, gls_ms):
    """python-tsp (exact) and OR-tools routing (heuristic: length and gap to the optimum)."""
    def run():
        inst = instances.random_euclidean(n, seed=seed)
        opt = solve(inst, variant="held_karp").length
        common = dict(algorithm="tsp", n=n, seed=seed, optimum=opt)
        rows = []
        for rep in range(reps):
            out, ms = timed(python_tsp_tour, inst)
            if out is not None:
                if out[1] != opt:
                    raise RuntimeError(f"python-tsp: length {out[1]}, Held-Karp: {opt}")
                rows.append(dict(common, variant="python_tsp_dp", length=out[1], time_ms=ms, rep=rep,
                                 gap=0.0, device="CPU (python-tsp)"))
            for variant, limit in (("ortools_routing", 0), ("ortools_routing_gls", gls_ms)):
                out, ms = timed(ortools_tour, inst, limit)
                if out is None:
                    break
                rows.append(dict(common, variant=variant, length=out[1], time_ms=ms, rep=rep,
                                 gap=(out[1] - opt) / opt, time_limit_ms=limit, device="CPU (OR-tools)"))
        return rows
    return Case(f"peers n={n}", run)


def _solve_case(variant, n, seed, reps, **opts):
    def run():
        _warm(variant, **opts)
        inst = instances.random_euclidean(n, seed=seed)
        return [_row(solve(inst, variant=variant, **opts), inst, rep=rep, seed=seed, **opts)
                for rep in range(reps)]
    return Case(f"{variant} n={n}", run)


def _scaling_cases(p):
    q = p["quick"]
    reps = 1 if q else int(p["reps"])
    seed = p["seed"]
    ranges = {
        "gpu_shared_incremental": range(5, 8) if q else range(8, p["bf_max"] + 1),
        "serial_bruteforce": range(5, 8) if q else range(8, p["serial_bf_max"] + 1),
        "gpu_held_karp": range(5, 10) if q else range(8, p["hk_max"] + 1),
        "held_karp": range(5, 10) if q else range(8, p["serial_hk_max"] + 1),
    }
    for variant, ns in ranges.items():
        if variant.startswith("gpu_") and not p["gpu"]:
            continue
        for n in ns:
            yield _solve_case(variant, n, seed, reps)
    for n in (range(5, 8) if q else range(6, p["peers_max"] + 1)):
        yield _peer_case(n, seed, reps, 50 if q else int(p["gls_ms"]))


# ---------------------------------------------------------------------------- targets

def _targets_cases(p):
    q = p["quick"]
    seed = p["seed"]
    for n in ([6, 7] if q else p["rate_sizes"]):
        def run(n=n):
            _warm("gpu_shared_incremental")
            inst = instances.random_euclidean(n, seed=seed)
            rows = []
            for sym in (False, True):
                r = solve(inst, variant="gpu_shared_incremental", symmetric=sym, force=True)
                rows.append(_row(r, inst, symmetric=sym, seed=seed, goal="orders/s >= 2e10"))
            return rows
        yield Case(f"rate n={n}", run)

    def exact16():
        n = 7 if q else p["exact_n"]
        inst = instances.random_euclidean(n, seed=seed)
        r = solve(inst, variant="gpu_shared_incremental", force=True)
        hk = solve(inst, variant="gpu_held_karp")
        return [_row(r, inst, seed=seed, goal=f"n={n} exact in < 120 s",
                     matches_held_karp=r.length == hk.length)]
    yield Case("exact n=16", exact16)

    def hk_ratio():
        n = 10 if q else p["hk_n"]
        _warm("gpu_held_karp")
        _warm("held_karp")
        inst = instances.random_euclidean(n, seed=seed)
        gpu_rows = [_row(solve(inst, variant="gpu_held_karp"), inst, seed=seed, rep=i)
                    for i in range(3)]
        ser = solve(inst, variant="held_karp", force=True)
        ser_row = _row(ser, inst, seed=seed, rep=0)
        best_gpu = min(r["time_ms"] for r in gpu_rows)
        for r in gpu_rows:
            r.update(goal="gpu_held_karp >= 50x held_karp",
                     speedup_vs_serial=ser_row["time_ms"] / r["time_ms"],
                     same_tour_length=r["length"] == ser_row["length"])
        ser_row["speedup_vs_serial"] = 1.0
        gpu_rows[0]["best_speedup"] = ser_row["time_ms"] / best_gpu
        return gpu_rows + [ser_row]
    yield Case("held-karp ratio", hk_ratio)


PRESETS = {
    "report": Preset(
        description="orders/s of each GPU brute-force version, n = 10..12 and beyond, "
                    "block sizes 32..1024, 20 repetitions (the source report's measurement)",
        params=dict(variants=list(GPU_BRUTE), sizes=[10, 11, 12], beyond=[13, 14],
                    blocks=list(BLOCKS), reps=20, seed=1),
        cases=_report_cases, needs_gpu=True, seeds=[1]),
    "scaling": Preset(
        description="exact solve time against n: GPU brute force and Held-Karp against the "
                    "numba serial versions, python-tsp and OR-tools routing",
        params=dict(bf_max=16, serial_bf_max=13, hk_max=25, serial_hk_max=22, peers_max=12, gls_ms=1000,
                    reps=3, seed=2, gpu=True),
        cases=_scaling_cases, needs_gpu=True, seeds=[2]),
    "targets": Preset(
        description="performance goals: orders/s at n = 13..15, n = 16 exact, GPU Held-Karp "
                    "vs numba at n = 22",
        params=dict(rate_sizes=[13, 14, 15], exact_n=16, hk_n=22, seed=3),
        cases=_targets_cases, needs_gpu=True, seeds=[3]),
    "cpu": Preset(
        description="CPU versions only: numba brute force and Held-Karp, python-tsp, OR-tools routing",
        params=dict(bf_max=11, serial_bf_max=11, hk_max=0, serial_hk_max=16, peers_max=10, gls_ms=200,
                    reps=2, seed=2, gpu=False),
        cases=_scaling_cases, needs_gpu=False, seeds=[2]),
}
