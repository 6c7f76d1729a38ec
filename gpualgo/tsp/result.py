"""What every TSP version returns: :class:`TSPResult`, built by :func:`make_result`.

Every version (serial or GPU) ends with ``make_result(prep, variant, best, tour, stats, t0)``,
which checks the version's own claim (the weighted length it reports is the length of the
tour it returns: an internal error otherwise, never an input error), turns a weighted length
at or above ``prep.big`` into "no feasible tour", and adds the statistics every version
shares (the enumeration's counts, the Held-Karp states, the times).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..result import Result
from .checks import tour_length

__all__ = ["TSPResult", "InconsistentTour", "make_result"]


class InconsistentTour(RuntimeError):
    """A version reported a length that its own tour does not have (a bug in the version or in
    a kernel being written: an exercise turns it into a failed case with a hint)."""


@dataclass
class TSPResult(Result):
    """The answer of :func:`gpualgo.tsp.solve`.

    Attributes:
        tour: int64 array of the n cities in visiting order, starting at city 0 (the
            return to 0 is implied); None when no feasible tour exists.
        length: the tour's length (int); ``math.inf`` when no feasible tour exists. It is
            also the result's ``objective``.
        feasible: False when every tour uses a missing edge.
        variant: the version that ran.
        stats: the times of :data:`gpualgo.result.TIMES` in ms (``total_ms`` the whole
            call, ``prepare_ms`` weights, plan and uploads, ``exec_ms`` the search,
            ``kernel_ms`` GPU time from CUDA events), ``device``, ``permutations`` (orders
            evaluated), ``perms_per_s``, ``states`` (Held-Karp), ``cost_dtype``, and
            version-specific counters (``launches``, ``grid``, ``block``, ``batches``...).
    """

    tour: np.ndarray | None
    length: int | float
    feasible: bool
    variant: str
    stats: dict = field(default_factory=dict)

    objective_name = "length"

    @property
    def objective(self):
        """The tour's length (``math.inf`` when there is no feasible tour)."""
        return self.length


def make_result(prep, variant: str, best: int, tour, stats: dict, t0: float) -> TSPResult:
    """The result of a version that found the weighted length ``best`` with ``tour``.

    prep: the :class:`~gpualgo.tsp.serial.Prepared` instance the version solved (its
        weights, missing-edge weight ``big`` and, for brute force, its plan).
    stats: the version's own statistics; ``total_ms`` (from ``t0``, the version's start,
        unless the version measured it), ``cost_dtype``, the plan's counts
        (``permutations``, ``chunks``, ``free_cities``, ``symmetric``) or the Held-Karp
        ``states``, and ``perms_per_s`` are added.

    Raises :class:`InconsistentTour` (a RuntimeError) when the tour's length is not the
    reported one.
    """
    stats = dict(stats)
    stats.setdefault("total_ms", (time.perf_counter() - t0) * 1e3)
    stats["cost_dtype"] = np.dtype(prep.W.dtype).name
    n = prep.n
    if n == 1:
        stats["permutations"] = 1
    elif prep.plan is not None:
        plan = prep.plan
        stats.update(permutations=plan.total, chunks=plan.n_chunks, free_cities=plan.k, symmetric=plan.symmetric)
    else:
        stats["states"] = (1 << (n - 1)) * (n - 1)
    if "permutations" in stats:
        stats["perms_per_s"] = stats["permutations"] / max(stats["total_ms"], 1e-9) * 1e3
    if best >= prep.big:
        return TSPResult(tour=None, length=math.inf, feasible=False, variant=variant, stats=stats)
    length = tour_length(prep.inst, tour)
    if length != best:
        raise InconsistentTour(f"{variant}: reported length {best} but the tour {np.asarray(tour).tolist()} "
                           f"has length {length}")
    return TSPResult(tour=np.asarray(tour, dtype=np.int64), length=int(length), feasible=True,
                     variant=variant, stats=stats)
