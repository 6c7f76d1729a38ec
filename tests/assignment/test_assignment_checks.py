"""The independent checks: validity, objective, scipy reference, Hall's condition."""
import itertools

import numpy as np
import pytest

from gpualgo import assignment as A


def brute_force(B):
    m, n = B.shape
    best = -np.inf
    for objs in itertools.permutations(range(n), m):
        v = sum(B[i, j] for i, j in enumerate(objs))
        best = max(best, v)
    return best


@pytest.mark.parametrize("m,n,density", [(4, 4, 1.0), (3, 6, 0.6), (5, 5, 0.5), (6, 6, 1.0)])
def test_reference_matches_brute_force(m, n, density, rng):
    for _ in range(5):
        B = A.report_instance(m, n, density, seed=rng, limit=20)
        a, obj = A.reference(B)
        A.check_assignment(B, a)
        assert obj == brute_force(B)


def test_check_assignment_errors():
    B = np.array([[1.0, -np.inf, 3.0], [4.0, 5.0, 6.0]])
    A.check_assignment(B, np.array([0, 1]))
    bad = {"shape": np.array([0]), "range": np.array([0, 3]), "twice": np.array([2, 2]),
           "missing": np.array([1, 0]), "float": np.array([0.0, 1.0])}
    for name, a in bad.items():
        with pytest.raises(ValueError):
            A.check_assignment(B, a)
        assert not A.is_valid_assignment(B, a)
    assert A.objective(B, np.array([2, 1])) == 8


def test_objective_of_64_bit_integers_is_exact():
    # the int64 sum wrapped: two benefits of 2**63 - 1 were worth -2
    a = np.array([0, 1])
    assert A.objective(np.diag(np.full(2, 2**63 - 1, dtype=np.int64)), a) == 2**64 - 2
    assert A.objective(np.diag(np.full(2, 2**64 - 1, dtype=np.uint64)), a) == 2**65 - 2
    assert A.objective(np.diag(np.full(2, -2**63, dtype=np.int64)), a) == -2**64
    assert A.objective(np.array([[2**40, 3], [-5, 2**40]], dtype=np.int64), a) == 2**41


def test_feasibility():
    B = np.full((3, 3), -np.inf)
    B[0, 0] = B[1, 0] = B[2, 2] = 1  # persons 0 and 1 both only like object 0: Hall fails
    assert A.max_matching_size(B) == 2
    with pytest.raises(ValueError, match="Hall"):
        A.check_feasible(B)
    B[1, :] = -np.inf
    with pytest.raises(ValueError, match="person 1 has no edge"):
        A.check_feasible(B)
    A.check_feasible(np.ones((2, 3)))


# ------------------------------------------------------------ check_result and certify


def _shapes(rng):
    yield A.report_instance(30, 30, 1.0, seed=rng, limit=1000)
    yield A.report_instance(20, 35, 0.3, seed=rng, limit=100)
    yield A.report_instance(25, 25, 1.0, seed=rng, limit=3)  # many ties


def _worse(B, a):
    """A valid assignment worth less than ``a`` (two persons swap their objects), or None."""
    m = len(a)
    for i in range(m):
        for k in range(i + 1, m):
            b = a.copy()
            b[i], b[k] = a[k], a[i]
            if A.is_valid_assignment(B, b) and A.objective(B, b) < A.objective(B, a):
                return b
    return None


def test_check_result_accepts_the_optimum_and_the_eps_bound(rng):
    for B in _shapes(rng):
        a, opt = A.reference(B)
        assert "exact" in A.check_result(B, a)
        r = A.solve(B, variant="serial", eps=5.0)
        text = A.check_result(B, r, eps=5.0, optimum=opt)
        assert "within m*eps" in text and f"{opt:,}" in text
        assert "exact" in A.check_result(B, A.solve(B, variant="serial"))


def test_check_result_rejects_wrong_answers(rng):
    B = A.report_instance(30, 30, 1.0, seed=rng, limit=1000)
    a, opt = A.reference(B)
    worse = _worse(B, a)
    gap = opt - A.objective(B, worse)
    with pytest.raises(ValueError, match="not scipy's optimum"):
        A.check_result(B, worse)
    with pytest.raises(ValueError, match="more than m\\*eps"):
        A.check_result(B, worse, eps=(gap - 0.5) / 30)
    A.check_result(B, worse, eps=gap / 30)  # within the bound it asked for
    with pytest.raises(ValueError, match="given to 30 persons"):
        A.check_result(B, np.zeros(30, dtype=np.int64))

    class Claim:  # a result whose objective is not its assignment's worth
        assignment, objective = a, opt + 1
    with pytest.raises(ValueError, match="claims objective"):
        A.check_result(B, Claim())
    with pytest.raises(ValueError, match="eps"):
        A.check_result(B, a, eps=-1)


def test_check_result_for_a_heuristic(rng):
    B = A.report_instance(20, 20, 1.0, seed=rng, limit=100)
    a, opt = A.reference(B)
    worse = _worse(B, a)
    text = A.check_result(B, worse, heuristic=True)
    assert "% of scipy's optimum" in text and f"gap {opt - A.objective(B, worse)}" in text


def test_dual_bound_bounds_the_optimum_for_any_prices(rng):
    for B in _shapes(rng):
        opt = A.reference_objective(B)
        for _ in range(5):
            p = rng.uniform(-50, 500, B.shape[1])
            assert A.dual_bound(B, p) >= opt - 1e-6
    with pytest.raises(ValueError, match="prices"):
        A.dual_bound(np.ones((2, 3)), np.zeros(2))


@pytest.mark.parametrize("scaling", [False, True])
def test_certify_accepts_the_auctions_answers(scaling, rng):
    for B in _shapes(rng):
        assert "exact" in A.certify(B, A.solve(B, variant="serial", scaling=scaling))
        for eps in (1.0, 7.5):
            r = A.solve(B, variant="serial", eps=eps, scaling=scaling)
            A.certify(B, r, eps=eps)


def test_certify_on_non_integer_benefits(rng):
    B = rng.uniform(0, 10, size=(25, 30))
    for eps in (0.5, 0.02):
        A.certify(B, A.solve(B, variant="serial", eps=eps), eps=eps)
    with pytest.raises(ValueError, match="integer"):
        A.certify(B, A.solve(B, variant="serial", eps=0.5))


def test_certify_rejects_what_it_cannot_prove(rng):
    B = A.report_instance(30, 30, 1.0, seed=rng, limit=1000)
    r = A.solve(B, variant="serial")
    worse = _worse(B, r.assignment)
    with pytest.raises(ValueError, match="not proved"):
        A.certify(B, worse, prices=r.prices)           # the optimum's prices do not prove a worse answer
    with pytest.raises(ValueError, match="not proved"):
        A.certify(B, r.assignment, prices=np.zeros(30))  # prices far from the auction's prove nothing
    r1 = A.solve(B, variant="serial", eps=40.0)
    with pytest.raises(ValueError, match="m\\*eps"):
        A.certify(B, r1, eps=0.1)                       # a loose answer is not within a tight bound
    with pytest.raises(ValueError, match="needs the answer's prices"):
        A.certify(B, r.assignment)


@pytest.mark.parametrize("limit", [10**6, 10**7, 2**30 - 1])
def test_certify_proves_optima_of_large_benefits(limit, rng):
    # the gap that proves an optimum is below 1 unit, at any size of the bound: a relative
    # tolerance (1e-9 of a bound of 1e11 is 100 units) refused every optimum past about 1e9
    from fractions import Fraction
    B = A.report_instance(64, 64, 1.0, seed=rng, limit=limit)
    r = A.solve(B, variant="serial", scaling=True)
    assert r.objective == A.reference_objective(B)
    assert A.certify(B, r).startswith("valid; exact")
    exact = sum(max(Fraction(int(b)) - Fraction(float(q)) for b, q in zip(row, r.prices)) for row in B) \
        + sum(Fraction(float(q)) for q in np.sort(r.prices)[64 - 64:])
    assert Fraction(A.dual_bound(B, r.prices)) >= exact       # rounded up: a bound in exact arithmetic
    worse = r.assignment.copy()
    i, j = 0, 1
    worse[[i, j]] = worse[[j, i]]
    if A.checks.objective(B, worse) < r.objective:                 # one unit or more below the optimum
        with pytest.raises(ValueError, match="the optimum is not proved"):
            A.certify(B, worse, prices=r.prices)


def test_dual_bound_is_the_exact_bound_rounded_up(rng):
    # against the bound in fractions: never below it, and at most one float step above it, with
    # float rounding, ties between objects and missing edges
    from fractions import Fraction
    for trial in range(600):
        m = int(rng.integers(1, 6))
        n = int(rng.integers(max(m, 2), 7))
        if trial % 3 == 0:
            B = rng.integers(-10**6, 10**6, (m, n))
            p = rng.integers(0, 10, n) * rng.normal() * 10.0 ** rng.integers(0, 10)
        elif trial % 3 == 1:                                       # many ties
            B, p = rng.integers(0, 3, (m, n)), rng.integers(0, 3, n) / 3.0
        else:
            B, p = rng.normal(size=(m, n)) * 10.0 ** rng.integers(0, 12), rng.normal(size=n) * 10.0 ** rng.integers(0, 12)
            B[0, 0] = -np.inf
        rows = [max(Fraction(b.item()) - Fraction(float(q)) for b, q in zip(row, p) if np.isfinite(b)) for row in B]
        exact = sum(rows) + sum(Fraction(float(q)) for q in np.sort(p)[n - m:])
        got = A.dual_bound(B, p)
        assert exact <= Fraction(got) <= exact + Fraction(float(np.spacing(abs(float(exact))))), (B, p)
