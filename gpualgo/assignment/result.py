"""The result type shared by every assignment solver (the auction and DGS), and its builder."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..result import Result
from . import checks

__all__ = ["AssignmentResult", "make_result"]


@dataclass
class AssignmentResult(Result):
    """What every assignment solver returns.

    ``assignment[i]`` is the object of person ``i``; ``objective`` the total benefit in
    ``B``'s units (an int for integer ``B``); ``prices`` the final object prices in
    ``B``'s units (auction variants; None for DGS); ``stats``: the times every result has
    (``total_ms``, ``prepare_ms``, ``exec_ms``, ``kernel_ms`` on a GPU, ``device``: see
    :data:`gpualgo.result.TIMES`), then the algorithm's own entries: the auction's
    ``rounds``, ``eps`` used, ``exact``, ``active_bidders`` per round (serial),
    ``upload_ms`` and ``download_ms`` (GPU: the copies, the upload being part of
    ``prepare_ms``), the eps-scaling phases and the tail block's counters.
    """
    assignment: np.ndarray
    objective: object
    variant: str
    algorithm: str = "auction"
    stats: dict = field(default_factory=dict)
    prices: np.ndarray | None = None

    objective_name = "total benefit"


def make_result(B, prob, person_obj, price, variant, stats, t0, algorithm: str = "auction"):
    """Build an auction's result from its integer solution (an :class:`~.problem.IntProblem`
    ``prob``; the first ``prob.m`` persons: padding dummies dropped) and its prices in scaled
    units (converted to ``B``'s units: divided by the scale, times the rounding grid of
    non-integer benefits); ``t0`` is the ``time.perf_counter()`` of the call's start (``total_ms``)."""
    a = np.asarray(person_obj[:prob.m], dtype=np.int64)
    stats.update(eps=prob.eps_original, eps_scaled=prob.eps, scale=prob.scale, exact=prob.exact,
                 total_ms=(time.perf_counter() - t0) * 1e3)
    prices = np.asarray(price, dtype=np.float64) / prob.scale
    if prob.unit != 1.0:
        prices = prices * prob.unit
    return AssignmentResult(assignment=a, objective=checks.objective(B, a), variant=variant, algorithm=algorithm,
                            stats=stats, prices=prices)
