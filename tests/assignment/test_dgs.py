"""Serial DGS: valid, exchange-optimal (checked by dense numpy algebra here), deterministic."""
import numpy as np
import pytest

from gpualgo import assignment as A
from gpualgo.assignment import dgs_serial


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


def test_registry():
    assert A.VARIANTS["dgs"] == ("serial", "gpu_de_global", "gpu_de_shared", "gpu_mixed", "gpu")
