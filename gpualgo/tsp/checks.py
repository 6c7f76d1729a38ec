"""Independent tour checks: validity, length, feasibility; a version's answer against a
reference; the CPU peers on an instance.

Written with plain numpy and no code shared with the solvers, so that a solver's answer can
be verified by something that does not repeat its logic.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import guards, peers
from .instances import NO_EDGE, as_instance

__all__ = ["check_tour", "tour_length", "is_feasible", "check_result", "against", "peer_matrix", "peer_tour"]


def check_tour(tour, n: int) -> np.ndarray:
    """Check that ``tour`` visits each of the n cities exactly once, starting at city 0.

    The return to city 0 is implied (the tour is a cycle), so ``tour`` has n entries.

    Returns:
        the tour as an int64 array.

    Raises:
        ValueError: n not a number of cities (an integer >= 1, as every instance has), wrong
            length, a city outside 0..n-1, a repeated city, or not starting at 0.
    """
    n = guards.integer(n, "n (the number of cities)", lo=1)
    t = np.asarray(tour)
    if t.ndim != 1 or t.shape[0] != n:
        raise ValueError(f"a tour of {n} cities has {n} entries, got shape {t.shape}")
    if t.dtype.kind not in "iu":
        raise ValueError(f"tour entries must be integers, got dtype {t.dtype}")
    t = t.astype(np.int64)
    if t.min() < 0 or t.max() >= n:
        raise ValueError(f"tour has a city outside 0..{n - 1}: {t.tolist()}")
    counts = np.bincount(t, minlength=n)
    if (counts != 1).any():
        c = int(np.argmax(counts != 1))
        raise ValueError(f"city {c} appears {int(counts[c])} times in the tour {t.tolist()}")
    if t[0] != 0:
        raise ValueError(f"a tour starts at city 0, got {t.tolist()}")
    return t


def tour_length(instance_or_matrix, tour) -> float | int:
    """Length of the closed tour (back to the first city); ``math.inf`` if it uses a missing edge.

    Raises:
        ValueError: the tour is not valid (see :func:`check_tour`).
    """
    inst = as_instance(instance_or_matrix)
    t = check_tour(tour, inst.n)
    if inst.n == 1:
        return 0
    w = inst.dist[t, np.roll(t, -1)]
    if (w == NO_EDGE).any():
        return math.inf
    return int(w.sum())


def is_feasible(instance_or_matrix, tour) -> bool:
    """True when ``tour`` is a valid tour that uses no missing edge."""
    return tour_length(instance_or_matrix, tour) != math.inf


def check_result(result, instance, reference, same_tour: bool = False) -> str:
    """Verify a version's answer against a reference, and say what was verified.

    result: a :class:`~gpualgo.tsp.result.TSPResult`; instance: what it solved.
    reference: the result of another, independent version (or an optimal length, ``math.inf``
        when no feasible tour exists).
    same_tour: also require the very tour of ``reference`` (versions that walk the same
        enumeration with the same tie rule return the same tour).

    The tour must visit every city once from city 0, have the length the result reports,
    and that length must be the reference's. Returns a sentence; raises AssertionError on a
    mismatch (ValueError for a tour that is not a tour).
    """
    inst = as_instance(instance)
    want = getattr(reference, "length", reference)
    name = getattr(reference, "variant", "the reference")
    if want == math.inf:
        if result.feasible or result.tour is not None or result.length != math.inf:
            raise AssertionError(f"{result.variant} found a tour of length {result.length}, but {name} finds none")
        return f"verified: no feasible tour, as {name} finds"
    if not result.feasible or result.tour is None:
        raise AssertionError(f"{result.variant} found no feasible tour, but {name} finds one of length {want}")
    length = tour_length(inst, result.tour)
    if length != result.length:
        raise AssertionError(f"{result.variant} reports length {result.length} for a tour of length {length}")
    if length != want:
        raise AssertionError(f"{result.variant} finds length {length}, {name} {want}")
    text = f"verified: a valid tour of length {length}, the optimum {name} finds"
    if same_tour:
        if not np.array_equal(result.tour, reference.tour):
            raise AssertionError(f"{result.variant} returns the tour {result.tour.tolist()}, "
                                 f"{name} {reference.tour.tolist()}")
        text += ", and the very same tour"
    return text


def against(instance, reference, same_tour: bool = False):
    """The check ``check(result) -> sentence`` of :func:`check_result` on ``instance``
    against ``reference`` (for :func:`gpualgo.nbtools.run_and_check`)."""
    return functools.partial(check_result, instance=instance, reference=reference, same_tour=same_tour)


# ------------------------------------------------------------------------ the CPU peers

def peer_matrix(instance_or_matrix) -> np.ndarray:
    """The distances as the peers take them: they know no missing edges, so a missing edge
    gets a weight larger than any feasible tour (``n * max + 1``), which keeps it out of
    every tour that can avoid it."""
    inst = as_instance(instance_or_matrix)
    big = int(inst.dist.max()) * inst.n + 1
    return np.where(inst.missing, big, inst.dist).astype(np.int64)


def peer_tour(instance_or_matrix, peer: str, time_limit_ms: int = 0):
    """Run a CPU peer of :mod:`gpualgo.peers` on an instance: ``"python_tsp"`` (exact) or
    ``"ortools_routing"`` (heuristic; ``time_limit_ms`` as in
    :func:`gpualgo.peers.ortools_tour`).

    Returns ``(tour, length)``, the length recomputed here (``math.inf`` if the tour needs a
    missing edge), or None when the peer is not installed. Raises RuntimeError when the
    length the peer reports is not its tour's.
    """
    inst = as_instance(instance_or_matrix)
    D = peer_matrix(inst)
    if peer == "python_tsp":
        out = peers.python_tsp_tour(D)
    elif peer == "ortools_routing":
        out = peers.ortools_tour(D, time_limit_ms)
    else:
        raise ValueError(f"unknown TSP peer {peer!r}; known: ['python_tsp', 'ortools_routing']")
    if out is None:
        return None
    tour, reported = out
    length = tour_length(inst, tour)
    if length != math.inf and length != int(round(reported)):
        raise RuntimeError(f"{peer} reported {reported} for a tour of length {length}")
    return tour, length
