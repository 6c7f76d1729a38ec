"""``assignment.solve``: one entry point for every version of both algorithms."""
from __future__ import annotations

import time

from .. import variants
from . import auction, dgs, problem
from .result import AssignmentResult

__all__ = ["solve", "VARIANTS"]

#: algorithm -> its table of versions (see :mod:`gpualgo.variants`), in teaching order
ALGORITHMS = {"auction": auction.VARIANTS, "dgs": dgs.VARIANTS}

#: algorithm -> variant names, in the order they are taught
VARIANTS = {alg: tuple(table) for alg, table in ALGORITHMS.items()}


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
       ``bid_threads``; ``eps_factor`` for eps-scaling); an unknown one is a ValueError
       naming the options the variant takes.

    Raises ValueError for a bad matrix, a bad eps, an unknown variant or option, or an
    instance where no assignment of every person exists; GPUUnavailableError for a GPU
    variant without a GPU. The GPU variants refuse (ValueError with their estimate) an
    instance that would not fit in the GPU's memory unless ``force=True``.
    """
    started = time.perf_counter()           # the input's check counts in the solve's time
    if not isinstance(algorithm, str) or algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; known: {sorted(ALGORITHMS)}")
    problem.check_eps(eps)    # DGS ignores eps, but a negative or NaN one is refused all the same
    B = problem.as_matrix(B)  # the rest of the validation needs the algorithm's own form
    res = variants.call(ALGORITHMS[algorithm], variant, B, eps, what=algorithm, started=started, **options)
    res.algorithm = algorithm
    return res
