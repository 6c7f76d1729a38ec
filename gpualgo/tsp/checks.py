"""Independent tour checks: validity, length, feasibility.

Written with plain numpy and no code shared with the solvers, so that a solver's answer can
be verified by something that does not repeat its logic.
"""

from __future__ import annotations

import math

import numpy as np

from .instances import NO_EDGE, as_instance


def check_tour(tour, n: int) -> np.ndarray:
    """Check that ``tour`` visits each of the n cities exactly once, starting at city 0.

    The return to city 0 is implied (the tour is a cycle), so ``tour`` has n entries.

    Returns:
        the tour as an int64 array.

    Raises:
        ValueError: wrong length, a city outside 0..n-1, a repeated city, or not starting at 0.
    """
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
