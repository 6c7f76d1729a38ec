"""Checks that share no logic with the solvers: validity, objective, scipy's optimum, Hall.

These functions are the independent referees of the tests and notebooks: a solver's
assignment is accepted only if :func:`check_assignment` passes and its objective
equals :func:`reference_objective` (scipy's ``linear_sum_assignment``, a shortest
augmenting path method, nothing like an auction).
"""
from __future__ import annotations

import numpy as np

__all__ = ["missing_mask", "check_assignment", "is_valid_assignment", "objective",
           "reference", "reference_objective", "max_matching_size", "check_feasible"]


def missing_mask(B) -> np.ndarray:
    """Boolean mask of the missing edges (``-inf`` entries; none in an integer array)."""
    B = np.asarray(B)
    if B.dtype.kind == "f":
        return np.isneginf(B)
    return np.zeros(B.shape, dtype=bool)


def check_assignment(B, assignment) -> None:
    """Raise ValueError unless ``assignment`` gives every person one distinct, existing edge."""
    B = np.asarray(B)
    a = np.asarray(assignment)
    m, n = B.shape
    if a.shape != (m,):
        raise ValueError(f"assignment has shape {a.shape}, expected ({m},)")
    if a.dtype.kind not in "iu":
        raise ValueError(f"assignment must hold integers, got {a.dtype}")
    if m and (a.min() < 0 or a.max() >= n):
        bad = int(np.flatnonzero((a < 0) | (a >= n))[0])
        raise ValueError(f"person {bad} has object {int(a[bad])}, outside [0, {n})")
    counts = np.bincount(a, minlength=n)
    if counts.max(initial=0) > 1:
        j = int(np.argmax(counts))
        raise ValueError(f"object {j} is given to {int(counts[j])} persons")
    miss = missing_mask(B)[np.arange(m), a]
    if miss.any():
        i = int(np.flatnonzero(miss)[0])
        raise ValueError(f"person {i} uses the missing edge to object {int(a[i])}")


def is_valid_assignment(B, assignment) -> bool:
    """True when :func:`check_assignment` passes."""
    try:
        check_assignment(B, assignment)
    except ValueError:
        return False
    return True


def objective(B, assignment):
    """Total benefit of an assignment (exact int for integer matrices, else float)."""
    B = np.asarray(B)
    vals = B[np.arange(B.shape[0]), np.asarray(assignment)]
    if B.dtype.kind in "iu":
        return int(vals.astype(np.int64).sum())
    total = float(np.sum(vals))
    return int(total) if np.isfinite(total) and total == np.rint(total) and abs(total) < 2**53 else total


def reference(B):
    """scipy's optimal assignment ``(assignment, objective)``; maximises, ``-inf`` forbidden.

    Raises ValueError when no assignment of every person exists.
    """
    from scipy.optimize import linear_sum_assignment

    B = np.asarray(B)
    m, n = B.shape
    if m > n:
        raise ValueError(f"m={m} > n={n}")
    cost = -np.asarray(B, dtype=np.float64)
    cost[np.isposinf(cost)] = np.inf  # missing edge -inf becomes a forbidden +inf cost
    rows, cols = linear_sum_assignment(cost)
    a = np.empty(m, dtype=np.int64)
    a[rows] = cols
    return a, objective(B, a)


def reference_objective(B):
    """The optimal objective according to scipy (see :func:`reference`)."""
    return reference(B)[1]


def max_matching_size(B) -> int:
    """Size of a maximum matching on the existing edges (scipy's Hopcroft-Karp)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    present = ~missing_mask(B)
    if present.size == 0:
        return 0
    match = maximum_bipartite_matching(csr_matrix(present.astype(np.int8)), perm_type="column")
    return int((match >= 0).sum())


def check_feasible(B) -> None:
    """Raise ValueError unless every person can be assigned at once (Hall's condition).

    Names the first person without any edge when there is one; otherwise reports how
    many persons a maximum matching covers.
    """
    present = ~missing_mask(B)
    m = present.shape[0]
    empty = np.flatnonzero(~present.any(axis=1))
    if empty.size:
        raise ValueError(f"person {int(empty[0])} has no edge ({empty.size} such persons): "
                         "no assignment of every person exists")
    k = max_matching_size(B)
    if k < m:
        raise ValueError(f"no assignment of every person exists (Hall's condition fails): "
                         f"a maximum matching covers only {k} of {m} persons")
