"""Serial DGS: valid, exchange-optimal (checked by dense numpy algebra here), deterministic."""
import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from gpualgo import assignment as A
from gpualgo.assignment.dgs import serial as dgs_serial


def best_exchange(B, a):
    """Largest gain of one swap between two agents or one move to a free job (numpy, independent)."""
    B = np.asarray(B, dtype=np.float64)
    m, n = B.shape
    c = B[np.arange(m), a]
    G = B[:, a] - c[:, None]            # G[i, k]: gain of agent i taking agent k's job
    D = G + G.T
    D[np.eye(m, dtype=bool)] = -np.inf
    free = np.ones(n, dtype=bool)
    free[a] = False
    moves = B[:, free] - c[:, None]
    return max(D.max(initial=-np.inf), moves.max(initial=-np.inf))


def instances(rng, count):
    """Square and rectangular, wide and narrow benefit ranges (many ties), GEOM and floats."""
    shapes = [(1, 1), (1, 5), (2, 2), (7, 7), (12, 20), (40, 40), (33, 70), (90, 90), (64, 65)]
    for k in range(count):
        m, n = shapes[k % len(shapes)]
        kind = k % 4
        if kind == 0:
            yield A.uniform_instance(m, n, 1, 10000, seed=rng)
        elif kind == 1:
            yield A.uniform_instance(m, n, 0, 2, seed=rng)      # ties everywhere
        elif kind == 2:
            yield A.geom_instance(m, n, seed=rng)
        else:
            yield rng.normal(size=(m, n)) * 100


def test_serial_exchange_optimal(rng):
    for B in instances(rng, 60):
        r = A.solve(B, algorithm="dgs", variant="serial", seed=int(rng.integers(1000)))
        A.check_assignment(B, r.assignment)
        tol = r.stats["tol"]
        assert best_exchange(B, r.assignment) <= tol, B.shape
        assert r.stats["converged"] and r.algorithm == "dgs" and r.variant == "serial"
        opt = A.reference_objective(B)
        assert r.objective <= opt + 1e-9 * max(1.0, abs(opt))
        assert r.objective >= r.stats["initial_objective"] - 1e-9
        # the independent helper of the notebook agrees
        assert max(dgs_serial.exchange_gains(B, r.assignment)) <= tol


def test_greedy_start_and_given_start(rng):
    B = A.uniform_instance(30, 45, 1, 100, seed=rng)
    g = A.solve(B, algorithm="dgs", variant="serial", init="greedy")
    assert best_exchange(B, g.assignment) <= 0
    start = rng.permutation(45)[:30]
    r = A.solve(B, algorithm="dgs", variant="serial", init=start)
    assert r.stats["initial_objective"] == A.objective(B, start)
    assert best_exchange(B, r.assignment) <= 0


def test_deterministic_for_a_seed(rng):
    B = A.uniform_instance(50, 60, 1, 20, seed=rng)
    r1 = A.solve(B, algorithm="dgs", variant="serial", seed=7)
    r2 = A.solve(B, algorithm="dgs", variant="serial", seed=7)
    assert np.array_equal(r1.assignment, r2.assignment)
    assert r1.stats["switches"] == r2.stats["switches"] and r1.stats["steps"] == r2.stats["steps"]


def test_trace_is_monotone_and_ends_at_the_result(rng):
    B = A.geom_instance(120, seed=rng)
    r = A.solve(B, algorithm="dgs", variant="serial", seed=1, trace_capacity=16)
    sw, ob, ms = (r.stats[k] for k in ("trace_switches", "trace_objective", "trace_ms"))
    assert len(sw) == len(ob) == len(ms) and len(sw) <= 18
    assert sw[0] == 0 and ob[0] == r.stats["initial_objective"]
    assert np.all(np.diff(sw) > 0) and np.all(np.diff(ob) > 0) and np.all(np.diff(ms) >= 0)
    assert sw[-1] == r.stats["switches"] and ob[-1] == r.objective


def test_time_limit_returns_a_valid_assignment(rng):
    B = A.uniform_instance(300, 300, 1, 10000, seed=rng)
    r = A.solve(B, algorithm="dgs", variant="serial", time_limit=0.0)
    A.check_assignment(B, r.assignment)
    assert not r.stats["converged"] and r.objective >= r.stats["initial_objective"]


def test_time_limit_on_an_exchange_optimal_start_reports_convergence():
    # nothing can improve these starts, so the run is converged even though the limit passed
    for B, start in ((np.ones((1, 1)), np.array([0])), (np.array([[5, 1], [1, 5]]), np.array([0, 1])),
                     (np.array([[1, 9, 2], [9, 1, 2]]), np.array([1, 0]))):
        r = A.solve(B, algorithm="dgs", variant="serial", init=start, time_limit=0.0)
        assert r.stats["converged"] and r.stats["switches"] == 0 and np.array_equal(r.assignment, start)


def test_large_float_benefits_use_a_tolerance(rng):
    # every value is a whole number above 2**53: a float matrix, not an integer one
    B = rng.normal(size=(25, 30)) * 1e20
    r = A.solve(B, algorithm="dgs", variant="serial", seed=2)
    A.check_assignment(B, r.assignment)
    assert r.stats["tol"] > 0 and best_exchange(B, r.assignment) <= r.stats["tol"]
    with pytest.raises(ValueError, match="2\\*\\*50"):   # integer dtypes stay exact or are refused
        A.solve(np.array([[2**60, 1], [1, 1]], dtype=np.int64), algorithm="dgs", variant="serial")


def test_minimising_through_negated_or_shifted_costs(rng):
    # the notebook's recipe: B = -C or B = C.max() - C gives the same run (gains are differences)
    C = A.uniform_instance(30, 40, 1, 500, seed=rng).astype(np.int64)
    r1 = A.solve(-C, algorithm="dgs", variant="serial", seed=4)
    r2 = A.solve(C.max() - C, algorithm="dgs", variant="serial", seed=4)
    assert np.array_equal(r1.assignment, r2.assignment)
    assert best_exchange(-C, r1.assignment) <= 0       # no swap or move lowers the cost
    rows, cols = linear_sum_assignment(C)
    assert C[np.arange(30), r1.assignment].sum() >= C[rows, cols].sum()


def test_parallel_rule_twin_is_exchange_optimal(rng):
    for B in instances(rng, 24):
        Af, AT, tol = dgs_serial.prepare(B)
        tau = dgs_serial.initial_assignment(Af, "random", 3)
        rounds, switches, obj = dgs_serial.parallel_rounds(Af, AT, tau, tol, 10**6)
        A.check_assignment(B, tau)
        assert best_exchange(B, tau) <= tol
        assert abs(obj - A.objective(B, tau)) <= 1e-6 * max(1.0, abs(obj))


def test_bad_input():
    with pytest.raises(ValueError, match="complete matrix"):
        A.solve(np.array([[1.0, -np.inf], [2.0, 3.0]]), algorithm="dgs", variant="serial")
    with pytest.raises(ValueError, match="NaN"):
        A.solve(np.array([[1.0, np.nan]]), algorithm="dgs", variant="serial")
    with pytest.raises(ValueError, match="persons"):
        A.solve(np.ones((3, 2)), algorithm="dgs", variant="serial")
    with pytest.raises(ValueError, match="init"):
        A.solve(np.ones((2, 2)), algorithm="dgs", variant="serial", init="best")
    with pytest.raises(ValueError, match="distinct"):
        A.solve(np.ones((2, 3)), algorithm="dgs", variant="serial", init=np.array([1, 1]))
    with pytest.raises(ValueError, match="force"):
        dgs_serial.prepare(np.broadcast_to(np.int32(1), (1, dgs_serial.MAX_ENTRIES + 1)))
    with pytest.raises(ValueError, match="unknown variant"):
        A.solve(np.ones((2, 2)), algorithm="dgs", variant="gpu_v1")
    with pytest.raises(ValueError, match="\\+inf"):
        A.solve(np.array([[1.0, np.inf]]), algorithm="dgs", variant="serial")
    with pytest.raises(ValueError, match="empty"):
        A.solve(np.zeros((0, 3)), algorithm="dgs", variant="serial")
    with pytest.raises(ValueError, match="2-D"):
        A.solve(np.ones(4), algorithm="dgs", variant="serial")
    with pytest.raises(ValueError, match="numeric"):
        A.solve(np.ones((2, 2), dtype=bool), algorithm="dgs", variant="serial")


@pytest.mark.parametrize("option, match", [
    (dict(seed=-1), "seed"), (dict(seed="abc"), "seed"), (dict(seed=1.5), "seed"),
    (dict(time_limit=-1.0), "time_limit"), (dict(time_limit=float("nan")), "time_limit"),
    (dict(time_limit="soon"), "time_limit"),
    (dict(trace_capacity=0), "trace_capacity"), (dict(trace_capacity=2.5), "trace_capacity"),
])
def test_bad_options(option, match):
    with pytest.raises(ValueError, match=match):
        A.solve(np.arange(6).reshape(2, 3), algorithm="dgs", variant="serial", **option)


def test_registry():
    assert A.VARIANTS["dgs"] == ("serial", "gpu_de_global", "gpu_de_shared", "gpu_mixed", "gpu")


def test_bench_instance_families():
    from gpualgo.assignment.dgs import bench as bench_dgs
    for fam in bench_dgs.FAMILIES:
        B = bench_dgs.make_instance(fam, 16, 3)
        assert B.shape == (16, 16) and B.dtype.kind == "i", fam
        assert np.array_equal(B, bench_dgs.make_instance(fam, 16, 3)), fam   # seeded
    assert set(np.unique(bench_dgs.make_instance("ties", 64, 1))) <= {0, 1, 2, 3}
    with pytest.raises(ValueError, match="unknown family"):
        bench_dgs.make_instance("sparse", 16, 0)
