"""``assignment.solve``: one entry point for every version of both algorithms."""
from __future__ import annotations

import time

from .. import variants
from . import problem
from .auction import serial as auction_serial
from .result import AssignmentResult, make_result

__all__ = ["solve", "VARIANTS"]


def _serial(B, eps=None, max_rounds: int = 10**9, record_rounds: int = 100_000, scaling: bool = False,
            eps_start=None, eps_factor: int = 8):
    """The report's serial Algorithm 1 (numba); ``scaling=True`` runs its eps-scaling twin."""
    t0 = time.perf_counter()
    prob = problem.prepare(B, eps, square=scaling)
    t1 = time.perf_counter()
    if scaling:
        person_obj, price, rounds, active, per_phase, sched = auction_serial.auction_eps_scaling(
            prob, eps_start, eps_factor, max_rounds, record_rounds)
        extra = {"rounds_per_phase": per_phase, "eps_schedule": sched, "phases": len(sched)}
    else:
        person_obj, price, rounds, active = auction_serial.auction(prob, max_rounds, record_rounds)
        extra = {}
    t2 = time.perf_counter()
    stats = {"rounds": int(rounds), "active_bidders": active, "prepare_ms": (t1 - t0) * 1e3,
             "solve_ms": (t2 - t1) * 1e3, "device": "cpu (numba, 1 thread)", **extra}
    return make_result(B, prob, person_obj, price, "serial", stats, t0)


def _gpu(name):
    def run(B, eps=None, **options):
        from .auction import gpu
        return gpu.VARIANT_FUNCS[name](B, eps, **options)
    run.__name__ = f"_{name}"
    run.__doc__ = f"GPU variant {name!r}: see :mod:`gpualgo.assignment.auction.gpu`."
    return run


def _dgs(name):
    def run(B, eps=None, **options):
        if name == "serial":
            from .dgs import serial
            return serial.solve_serial(B, eps, **options)
        from .dgs import gpu
        return gpu.VARIANT_FUNCS[name](B, eps, **options)
    run.__name__ = f"_dgs_{name}"
    run.__doc__ = f"DGS variant {name!r}: see :mod:`gpualgo.assignment.dgs`."
    return run


#: algorithm -> {variant name: solver}; the order is the teaching order
_SOLVERS = {
    "auction": {
        "serial": _serial,
        **{v: _gpu(v) for v in ("gpu_v1", "gpu_queues", "gpu_deterministic", "gpu_graph",
                                "gpu_eps_scaling", "gpu_sparse")},
    },
    # Deep Greedy Switching: a heuristic (exchange-optimal, not optimal); eps is ignored
    "dgs": {v: _dgs(v) for v in ("serial", "gpu_de_global", "gpu_de_shared", "gpu_mixed", "gpu")},
}

#: algorithm -> variant names, in the order they are taught
VARIANTS = {alg: tuple(v) for alg, v in _SOLVERS.items()}


def solve(B, algorithm: str = "auction", variant: str = "gpu_eps_scaling", eps=None, **options) -> AssignmentResult:
    """Solve the assignment problem ``max sum B[i, a[i]]`` over assignments of every person.

    Parameters
    ----------
    B: (m, n) benefits, ``m <= n``; missing edges are ``-inf`` (float) — integer arrays
       are accepted too.
    algorithm, variant: one of :data:`VARIANTS`.
    eps: ``None`` for the exact optimum (integer benefits; the variant uses an epsilon
       below ``1/m`` or scales down to it), or a positive number for an eps-optimal
       result (objective within ``m * eps`` of the optimum).
    options: variant options (e.g. ``max_rounds``; GPU tunables such as
       ``bid_threads``; ``eps_factor`` for eps-scaling).

    Raises ValueError for a bad matrix, a bad eps, or an instance where no assignment
    of every person exists; GPUUnavailableError for a GPU variant without a GPU.
    """
    if algorithm not in _SOLVERS:
        raise ValueError(f"unknown algorithm {algorithm!r}; known: {sorted(_SOLVERS)}")
    table = _SOLVERS[algorithm]
    variants.check(variant, table, what=algorithm)
    res = table[variant](B, eps, **options)
    res.algorithm = algorithm
    return res
