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
