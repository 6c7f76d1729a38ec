"""Checks that share no logic with the solvers: validity, objective, scipy's optimum, Hall,
and the duality certificate of a priced answer.

These functions are the independent referees of the tests, notebooks and benchmarks: a
solver's assignment is accepted only if :func:`check_assignment` passes and its objective
equals :func:`reference_objective` (scipy's ``linear_sum_assignment``, a shortest
augmenting path method, nothing like an auction), or is within the promised distance of
it (:func:`check_result`). Where scipy would take longer than the solver itself, an
answer that comes with prices is checked by weak duality instead (:func:`certify`):
any prices give an upper bound on the optimum, so a small enough gap between that bound
and the answer proves the answer good without solving the problem again.

>>> import numpy as np
>>> B = np.array([[7, 3], [5, 4]])
>>> check_result(B, np.array([0, 1]))
"valid; exact: scipy's optimum 11"
>>> check_result(B, np.array([1, 0]))
Traceback (most recent call last):
...
ValueError: objective 8 is not scipy's optimum 11 (gap 3)
>>> certify(B, np.array([0, 1]), prices=np.array([1.0, 0.0]))
"valid; exact: the prices' dual bound 11 proves the optimum (gap 0 < 1)"
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__ = ["missing_mask", "check_assignment", "is_valid_assignment", "objective",
           "reference", "reference_objective", "max_matching_size", "check_feasible",
           "check_result", "dual_bound", "certify"]


def missing_mask(B) -> np.ndarray:
    """Boolean mask of the missing edges (``-inf`` entries; none in an integer array)."""
    B = np.asarray(B)
    if B.dtype.kind == "f":
        return np.isneginf(B)
    return np.zeros(B.shape, dtype=bool)


def _objects(B: np.ndarray, assignment) -> np.ndarray:
    """``assignment`` as an array of one object per row (person) of ``B``, each in ``0..n-1``;
    ValueError naming the lengths, the dtype or the first object out of range otherwise (numpy
    would broadcast an answer of one entry, raise IndexError, or read -1 as the last object)."""
    a = np.asarray(assignment)
    m, n = B.shape
    if a.ndim != 1:
        raise ValueError(f"assignment has shape {a.shape}, expected ({m},): one object per person")
    if a.shape[0] != m:
        k = a.shape[0]
        raise ValueError(f"assignment has {k} entr{'y' if k == 1 else 'ies'} but B has {m} rows (persons): "
                         "one object per person")
    if a.dtype.kind not in "iu":
        raise ValueError(f"assignment must hold integers, got {a.dtype}")
    if m and (a.min() < 0 or a.max() >= n):
        bad = int(np.flatnonzero((a < 0) | (a >= n))[0])
        raise ValueError(f"person {bad} has object {int(a[bad])}, outside [0, {n})")
    return a


def check_assignment(B, assignment) -> None:
    """Raise ValueError unless ``assignment`` gives every person one distinct, existing edge."""
    B = np.asarray(B)
    a = _objects(B, assignment)
    m, n = B.shape
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
    """Total benefit of an assignment (exact int for integer matrices, else float).

    Integer sums that could leave int64 are added as Python integers; float benefits are added
    in float64 at least (a float32 sum stops counting units beyond 2**24). ValueError for an
    assignment that is not one object in ``0..n-1`` per row (person) of ``B``, naming the lengths
    when they differ."""
    B = np.asarray(B)
    vals = B[np.arange(B.shape[0]), _objects(B, assignment)]
    if B.dtype.kind in "iu":
        if vals.size and max(-int(vals.min()), int(vals.max())) * vals.size >= 2**63:
            return sum(vals.tolist())
        return int(vals.astype(np.int64).sum())
    total = float(np.sum(vals, dtype=np.promote_types(vals.dtype, np.float64)))
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


def _answer(result):
    """(assignment, claimed objective or None, prices or None) of a result or a bare array."""
    if hasattr(result, "assignment"):
        return np.asarray(result.assignment), getattr(result, "objective", None), getattr(result, "prices", None)
    return np.asarray(result), None, None


def _is_integer(B) -> bool:
    B = np.asarray(B)
    if B.dtype.kind in "iu":
        return True
    finite = B[np.isfinite(B)]
    return bool(np.array_equal(finite, np.rint(finite)))


def _num(v) -> str:
    return f"{v:,}" if isinstance(v, int) else f"{v:.6g}"


def _valid_objective(B, assignment, claimed):
    """Raise unless the assignment is valid and ``claimed`` (if any) is its total benefit."""
    check_assignment(B, assignment)
    obj = objective(B, assignment)
    if claimed is not None and not np.isclose(float(claimed), float(obj), rtol=1e-12, atol=1e-9):
        raise ValueError(f"the result claims objective {claimed}, but its assignment is worth {obj}")
    return obj


def check_result(B, result, eps=None, optimum=None, heuristic: bool = False) -> str:
    """Check an assignment solver's answer against scipy's optimum; return a sentence saying
    what was verified, raise ValueError when the answer is wrong.

    result: the solver's result (``.assignment``, and ``.objective`` when it has one, which
        must then be the assignment's total benefit), or a bare assignment array.
    eps: the guarantee the solver was asked for (the ``eps`` given to ``solve``): the objective
        must be within ``m * eps`` of the optimum. None asks for the optimum itself; so does
        any ``eps < 1/m`` on integer benefits, and the sentence then says "exact".
    optimum: scipy's optimal objective when the caller has it already (else computed here).
    heuristic: no guarantee to check (a heuristic such as Deep Greedy Switching): only that
        the answer is valid and not above the optimum; the sentence gives its gap.
    """
    B = np.asarray(B)
    a, claimed, _ = _answer(result)
    obj = _valid_objective(B, a, claimed)
    opt = reference_objective(B) if optimum is None else optimum
    m = B.shape[0]
    tol = 1e-9 * max(1.0, abs(float(opt)))
    gap = opt - obj
    if gap < -tol:
        raise ValueError(f"objective {obj} is above scipy's optimum {opt}: the checks disagree")
    if heuristic:
        share = f"{obj / opt:.2%} of " if opt > 0 else ""
        return f"valid; {share}scipy's optimum {_num(opt)} (gap {_num(gap)})"
    if eps is not None and not (np.isfinite(float(eps)) and float(eps) > 0):
        raise ValueError(f"eps must be a positive number or None, got {eps!r}")
    exact = eps is None or (_is_integer(B) and m * float(eps) < 1)
    if exact:
        if gap > tol:
            raise ValueError(f"objective {obj} is not scipy's optimum {opt} (gap {_num(gap)})")
        return f"valid; exact: scipy's optimum {_num(opt)}"
    bound = m * float(eps)
    if gap > bound + tol:
        raise ValueError(f"objective {obj} is {_num(gap)} below scipy's optimum {opt}, more than m*eps = {bound:.6g}")
    return f"valid; within m*eps = {bound:.6g} of scipy's optimum {_num(opt)} (gap {_num(gap)})"


def dual_bound(B, prices) -> float:
    """An upper bound on the optimal total benefit of ``B`` from any object prices (weak duality).

    For every assignment ``x`` and every prices ``p``: ``sum_i B[i, x_i] = sum_i (B[i, x_i] -
    p[x_i]) + sum_i p[x_i] <= sum_i max_j (B[i, j] - p[j]) + (the m largest prices)``; so that
    sum bounds the optimum. Missing edges (``-inf``) are never a person's best. The rows are
    taken in blocks, so the temporary arrays stay small.

    The bound is exact: a row's best ``B[i, j] - p[j]``, taken in float64, is exact up to the
    rounding of that one subtraction (rounding keeps the order, so no other object's exact
    value lies above it unless it ties in float64), and that rounding error is recovered
    exactly (Knuth's two-sum; for every object tied with the best in float64 where there are ties);
    the rows and the prices are added as fractions and the total rounded up to a float. So a
    bound that proves an integer optimum rests on no tolerance (a relative one of 1e-9 would
    be 254 units at a bound of 1.27e11, far more than the one unit it proves).
    """
    B = np.asarray(B)
    p = np.asarray(prices, dtype=np.float64)
    m, n = B.shape
    if p.shape != (n,):
        raise ValueError(f"prices have shape {p.shape}, expected ({n},)")
    if not np.isfinite(p).all():
        raise ValueError("prices must be finite")
    rows = max(1, (1 << 22) // n)
    best, slack = np.empty(m, dtype=np.float64), np.empty(m, dtype=np.float64)
    # integers past 2**53 lose their last bits as floats: each row may then be off by an ulp of the largest
    lost = 0.0 if B.dtype.kind == "f" or not B.size or int(np.abs(B).max()) <= 2**53 else float(np.spacing(2.0**64))
    with np.errstate(invalid="ignore"):                  # a row of missing edges: -inf, no two-sum
        for r in range(0, m, rows):
            a = B[r:r + rows].astype(np.float64)
            d = a - p
            at = np.arange(a.shape[0])
            k = d.argmax(axis=1)
            top, ak, pk = d[at, k], a[at, k], p[k]
            err = _rounding(ak, pk, top)
            tied = np.flatnonzero((d == top[:, None]).sum(axis=1) > 1)
            if tied.size:                                # the same for every object tied with the best
                each = _rounding(a[tied], p, d[tied])
                err[tied] = np.where(d[tied] == top[tied, None], each, -np.inf).max(axis=1)
            best[r:r + rows] = top
            slack[r:r + rows] = np.where(np.isfinite(err), err, 0.0) + lost
    total = (sum(map(Fraction, best.tolist())) + sum(map(Fraction, slack.tolist()))
             + sum(map(Fraction, np.sort(p)[n - m:].tolist())))
    up = float(total)
    return up if Fraction(up) >= total else math.nextafter(up, math.inf)


def _rounding(a, p, d):
    """The rounding error of ``d = a - p`` in float64, exactly (Knuth's two-sum): ``d + error ==
    a - p`` in exact arithmetic."""
    back = d - a
    return (a - (d - back)) + (-p - back)


def certify(B, result, eps=None, prices=None) -> str:
    """Check a priced answer (the auction's: its ``prices``) by its duality gap, without
    solving the problem again; return a sentence, raise ValueError when the check fails.

    The answer's objective is at most the optimum, which is at most :func:`dual_bound` of
    its prices. The check asks that bound minus the objective to be at most ``m * eps``
    (``eps``: the guarantee asked of the solver, as in :func:`check_result`), which proves
    the answer within ``m * eps`` of the optimum. ``eps=None`` asks for the optimum: on
    integer benefits a gap below 1 proves it (the objective and the optimum are integers).
    Raises ValueError also when the answer is invalid, has no prices, or when ``eps=None``
    on non-integer benefits (no gap can prove the optimum there).
    """
    B = np.asarray(B)
    a, claimed, own = _answer(result)
    p = own if prices is None else prices
    if p is None:
        raise ValueError("certify needs the answer's prices (an auction result, or prices=...)")
    obj = _valid_objective(B, a, claimed)
    upper = dual_bound(B, p)            # rounded up: a bound in exact arithmetic
    m = B.shape[0]
    integer = _is_integer(B)
    # an integer objective is exact, so the gap is too (Fraction); a float one was summed in float64
    exact = Fraction(upper) - obj if integer else None
    gap = float(exact) if integer else upper - float(obj)
    tol = 0.0 if integer else 1e-9 * max(1.0, abs(upper) + abs(float(obj)))
    if gap < -tol:
        raise ValueError(f"objective {obj} is above the dual bound {upper:.6g}: the bound or the objective is wrong")
    if eps is not None and not (np.isfinite(float(eps)) and float(eps) > 0):
        raise ValueError(f"eps must be a positive number or None, got {eps!r}")
    if eps is None or (integer and m * float(eps) < 1):
        if not integer:
            raise ValueError("eps=None asks for the optimum, which a dual bound proves only for integer benefits")
        if exact >= 1:
            raise ValueError(f"dual bound {upper:.6g} - objective {obj} = {gap:.6g}: the optimum is not proved "
                             "(a gap below 1 would prove it)")
        return f"valid; exact: the prices' dual bound {upper:.10g} proves the optimum (gap {gap:.3g} < 1)"
    bound = m * float(eps)
    if gap > bound + tol:
        raise ValueError(f"dual bound {upper:.6g} - objective {obj} = {gap:.6g} > m*eps = {bound:.6g}")
    return (f"valid; within m*eps = {bound:.6g} of the optimum: the prices' dual bound {upper:.10g} "
            f"(gap {gap:.6g})")
