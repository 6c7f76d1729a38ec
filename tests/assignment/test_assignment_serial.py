"""The serial auction (and its eps-scaling twin) against scipy, plus input validation."""
import numpy as np
import pytest

from gpualgo import assignment as A
from gpualgo.assignment import problem

SHAPES = [  # (m, n, density, limit): square, rectangular, sparse, tie-heavy
    (40, 40, 1.0, 10000), (25, 60, 1.0, 1000), (50, 50, 0.1, 10000), (30, 45, 0.2, 100),
    (40, 40, 1.0, 3), (35, 35, 0.3, 2), (1, 1, 1.0, 5), (1, 7, 0.5, 9), (60, 60, 1.0, 1),
]


@pytest.mark.parametrize("scaling", [False, True])
@pytest.mark.parametrize("m,n,density,limit", SHAPES)
def test_serial_exact_against_scipy(m, n, density, limit, scaling, rng):
    for _ in range(3):
        B = A.report_instance(m, n, density, seed=rng, limit=limit)
        r = A.solve(B, variant="serial", scaling=scaling)
        A.check_assignment(B, r.assignment)
        assert r.objective == A.reference_objective(B)
        assert r.stats["exact"] and r.stats["rounds"] >= 1
        assert r.stats["eps"] * m < 1


def test_serial_rounds_and_active_bidders(rng):
    B = A.report_instance(60, 60, 1.0, seed=rng)
    r = A.solve(B, variant="serial", eps=1)
    act = r.stats["active_bidders"]
    assert len(act) == r.stats["rounds"] and act[0] == 60
    assert np.all(np.diff(act) <= 0)  # the number of bidders never grows
    assert r.stats["eps"] == 1.0


@pytest.mark.parametrize("eps", [1.0, 5.0, 37.5, 0.3])
def test_explicit_eps_bound(eps, rng):
    for density in (1.0, 0.2):
        B = A.report_instance(50, 60, density, seed=rng, limit=1000)
        opt = A.reference_objective(B)
        for scaling in (False, True):
            r = A.solve(B, variant="serial", eps=eps, scaling=scaling)
            A.check_assignment(B, r.assignment)
            assert opt - 50 * eps <= r.objective <= opt
            assert r.stats["eps"] <= eps


def test_non_integer_benefits_with_eps(rng):
    B = rng.uniform(0, 10, size=(30, 40))
    B[rng.random(B.shape) < 0.5] = -np.inf
    B[np.arange(30), rng.permutation(40)[:30]] = rng.uniform(0, 10, 30)
    opt = A.reference_objective(B)
    for eps in (0.5, 0.01):
        r = A.solve(B, variant="serial", eps=eps)
        A.check_assignment(B, r.assignment)
        assert opt - 30 * eps <= r.objective <= opt + 1e-9
    with pytest.raises(ValueError, match="integer"):
        A.solve(B, variant="serial")


def test_float32_benefits_keep_the_eps_bound(rng):
    # float32 neighbours about 1.6e-2 apart: rounded to the eps grid in float32 (whose quotients
    # near 2**30 are 64 steps apart) they tied, and the lower one was taken, 15 eps below
    B = np.array([[176330.64, 176330.66]], dtype=np.float32)
    assert B[0, 1] > B[0, 0]
    assert A.solve(B, variant="serial", eps=1e-3).assignment.tolist() == [1]
    for b in rng.uniform(1.5e5, 2.6e5, size=200).astype(np.float32):
        B = np.array([[b, np.nextafter(b, np.float32(np.inf)), b - 1]], dtype=np.float32)
        r = A.solve(B, variant="serial", eps=1e-3)
        assert r.objective >= A.reference_objective(B) - 1e-3


def test_float32_objective_is_summed_in_float64():
    B = np.array([[2**24, 0], [0, 1]], dtype=np.float32)    # float32 adds 2**24 + 1 as 2**24
    for alg in ("auction", "dgs"):
        r = A.solve(B, algorithm=alg, variant="serial")
        assert r.objective == 2**24 + 1 == A.reference_objective(B)


def test_deterministic_prices_and_ties():
    B = np.ones((5, 5), dtype=np.int64)
    r = A.solve(B, variant="serial")
    # all ties: round 1 every person bids on object 0 and person 0 wins; and so on
    assert list(r.assignment) == [0, 1, 2, 3, 4]
    assert r.objective == 5


def test_float_integer_valued_matrix_is_exact(rng):
    B = A.report_instance(30, 30, 0.3, seed=rng).astype(np.float32).astype(np.float64)
    assert A.solve(B, variant="serial").objective == A.reference_objective(B)


@pytest.mark.parametrize("B,match", [
    (np.ones((3, 2)), "m=3 persons > n=2"),
    (np.ones(4), "2-D"),
    (np.zeros((0, 3)), "empty"),
    (np.array([[1.0, np.nan], [1, 2]]), "NaN"),
    (np.array([[1.0, np.inf], [1, 2]]), r"\+inf"),
    (np.array([[1.5, 2.0], [1, 2]]), "integer"),
    (np.array([["a", "b"]]), "numeric"),
    (np.array([[1, -np.inf], [2, -np.inf]]), "Hall"),
    (np.array([[-np.inf, -np.inf], [1, 2]]), "no edge"),
    (np.array([[2**31, 1], [1, 2]]), "2\\*\\*30"),
])
def test_bad_input(B, match):
    with pytest.raises(ValueError, match=match):
        A.solve(B, variant="serial")


@pytest.mark.parametrize("eps", [0, -1, np.nan, np.inf, "x", True, np.True_, "0.5"])
def test_bad_eps(eps):
    with pytest.raises(ValueError, match="eps"):
        A.solve(np.ones((2, 2)), variant="serial", eps=eps)


def test_unknown_names():
    with pytest.raises(ValueError, match="variant"):
        A.solve(np.ones((2, 2)), variant="nope")
    with pytest.raises(ValueError, match="algorithm"):
        A.solve(np.ones((2, 2)), algorithm="nope")


def test_registry_order():
    assert A.VARIANTS["auction"] == ("serial", "gpu_v1", "gpu_queues", "gpu_deterministic", "gpu_graph",
                                     "gpu_eps_scaling", "gpu_sparse")


def test_integer_form():
    B = np.array([[3, 1], [2, 2]])
    p = problem.prepare(B)
    assert p.scale == 3 and p.eps == 1 and p.exact
    p = problem.prepare(B, eps=1)
    assert p.eps == 3 and p.eps_original == 1.0 and not p.exact
    p = problem.prepare(B, eps=0.01)
    assert p.eps == 1 and p.scale == 100 and p.exact
    p = problem.prepare(np.array([[3, 1, 0]]), square=True)
    assert p.raw.shape == (3, 3) and p.scale == 4


def test_gpu_variants_need_a_gpu():
    from gpualgo import gpu
    if gpu.available():
        pytest.skip("a GPU is present")
    with pytest.raises(gpu.GPUUnavailableError):
        A.solve(np.ones((2, 2)), variant="gpu_eps_scaling")


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint16])
def test_prepare_without_the_host_matrix_agrees_with_it(dtype, rng):
    """host_raw=False (the GPU makes the int32 matrix): the same grid, no host copy, the same refusals."""
    B = rng.integers(0, 5000, size=(64, 64)).astype(dtype)
    full = problem.prepare(B, square=True)
    lean = problem.prepare(B, square=True, value_range=(int(B.min()), int(B.max())), host_raw=False)
    assert lean.raw is None and np.array_equal(full.raw, B.astype(np.int32))
    assert (lean.scale, lean.eps, lean.cap, lean.span, lean.exact) == (full.scale, full.eps, full.cap, full.span,
                                                                       full.exact)
    with pytest.raises(ValueError, match="2\\*\\*30"):
        problem.prepare(B, square=True, value_range=(0, 2**40), host_raw=False)
    for bad in (np.ones((3, 4), dtype), B.astype(np.float64)):
        with pytest.raises(ValueError, match="host_raw=False needs a square integer matrix"):
            problem.prepare(bad, square=True, host_raw=False)
