"""The result type shared by every assignment solver."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from . import checks

__all__ = ["AssignmentResult", "make_result"]


@dataclass
class AssignmentResult:
    """What every assignment solver returns.

    ``assignment[i]`` is the object of person ``i``; ``objective`` the total benefit in
    ``B``'s units (an int for integer ``B``); ``prices`` the final object prices in
    ``B``'s units (auction variants); ``stats``: ``rounds``, ``total_ms`` and its split
    (``kernel_ms``, ``transfer_ms``, ``host_ms`` where measured), ``eps`` used, ``exact``,
    ``device`` and variant-specific entries (e.g. ``active_bidders`` per round).
    """
    assignment: np.ndarray
    objective: object
    variant: str
    algorithm: str = "auction"
    stats: dict = field(default_factory=dict)
    prices: np.ndarray | None = None


def make_result(B, prob, person_obj, price, variant, stats, t0):
    """Build the result from the integer solution (first ``prob.m`` persons: dummies dropped)."""
    a = np.asarray(person_obj[:prob.m], dtype=np.int64)
    stats.update(eps=prob.eps_original, eps_scaled=prob.eps, scale=prob.scale, exact=prob.exact,
                 total_ms=(time.perf_counter() - t0) * 1e3)
    return AssignmentResult(assignment=a, objective=checks.objective(B, a), variant=variant,
                            stats=stats, prices=np.asarray(price, dtype=np.float64) / prob.scale)


