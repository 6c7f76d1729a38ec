"""GPU DGS: every version valid and exchange-optimal; serial-order versions equal serial;
the full-GPU version equals its serial twin (the same parallel rule run on the CPU)."""
import numpy as np
import pytest

from gpualgo import assignment as A, gpu
from gpualgo.assignment.dgs import checks as dgs_checks, gpu as dgs_gpu, serial as dgs_serial

pytestmark = pytest.mark.gpu

GPU_VARIANTS = A.VARIANTS["dgs"][1:]
SERIAL_ORDER = ("gpu_de_global", "gpu_de_shared", "gpu_mixed")


def best_exchange(B, a):
    """Largest gain of one swap between two agents or one move to a free job (numpy, independent)."""
    B = np.asarray(B, dtype=np.float64)
    m, n = B.shape
    c = B[np.arange(m), a]
    G = B[:, a] - c[:, None]
    D = G + G.T
    D[np.eye(m, dtype=bool)] = -np.inf
    free = np.ones(n, dtype=bool)
    free[a] = False
    return max(D.max(initial=-np.inf), (B[:, free] - c[:, None]).max(initial=-np.inf))


def instances(rng, count):
    """Square and rectangular, ties (benefits in {0, 1, 2}), GEOM, floats."""
    shapes = [(1, 1), (1, 4), (3, 3), (16, 16), (17, 30), (40, 40), (33, 70), (90, 90), (64, 65), (120, 150)]
    for k in range(count):
        m, n = shapes[k % len(shapes)]
        kind = k % 4
        if kind == 0:
            yield A.uniform_instance(m, n, 1, 10000, seed=rng)
        elif kind == 1:
            yield A.uniform_instance(m, n, 0, 2, seed=rng)
        elif kind == 2:
            yield A.geom_instance(m, n, seed=rng).astype(np.int32)
        else:
            yield rng.normal(size=(m, n)) * 100


@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_variant_exchange_optimal(variant, rng):
    for B in instances(rng, 52):
        r = A.solve(B, algorithm="dgs", variant=variant, seed=int(rng.integers(1000)))
        A.check_assignment(B, r.assignment)
        assert best_exchange(B, r.assignment) <= r.stats["tol"], (variant, B.shape)
        assert r.stats["converged"] and r.variant == variant
        assert r.objective >= r.stats["initial_objective"] - 1e-9


@pytest.mark.parametrize("variant", SERIAL_ORDER)
def test_serial_order_equals_serial(variant, rng):
    for B in instances(rng, 30):
        s = A.solve(B, algorithm="dgs", variant="serial", seed=5)
        g = A.solve(B, algorithm="dgs", variant=variant, seed=5)
        assert np.array_equal(s.assignment, g.assignment), (variant, B.shape)
        assert s.objective == g.objective
        assert (s.stats["switches"], s.stats["steps"], s.stats["passes"]) == \
               (g.stats["switches"], g.stats["steps"], g.stats["passes"])


@pytest.mark.parametrize("selection", ["mutual", "check_conflicts"])
@pytest.mark.parametrize("incremental", [True, False])
def test_full_gpu_equals_its_twin(incremental, selection, rng):
    for B in list(instances(rng, 20)) + [A.geom_instance(700, seed=rng).astype(np.int32),
                                         A.uniform_instance(500, 800, 0, 5, seed=rng),
                                         A.uniform_instance(1500, 1500, 1, 10000, seed=rng)]:
        Af, AT, tol = dgs_serial.prepare(B)
        tau = dgs_serial.initial_assignment(Af, "random", 11)
        rounds, switches, _, dropped = dgs_serial.parallel_rounds(Af, AT, tau, tol, 10**6,
                                                                  selection == "check_conflicts")
        g = A.solve(B, algorithm="dgs", variant="gpu", seed=11, incremental=incremental, selection=selection)
        assert g.stats["selection"] == selection
        if B.dtype.kind == "f":  # float gains: atomics may round differently; optimality is what counts
            assert best_exchange(B, g.assignment) <= tol
            continue
        assert np.array_equal(tau, g.assignment), (B.shape, selection)
        assert (rounds, switches) == (g.stats["rounds"], g.stats["switches"])
        assert g.stats.get("conflicts", 0) == dropped
        assert g.stats["trace_objective"][-1] == g.objective


def test_check_conflicts_valid_and_exchange_optimal(rng):
    # what the tests above ask of every version, asked of the paper's selection: the answer
    # passes the DGS's own exchange check and the shared assignment checks
    for B in instances(rng, 52):
        r = A.solve(B, algorithm="dgs", variant="gpu", seed=int(rng.integers(1000)), selection="check_conflicts")
        A.check_assignment(B, r.assignment)
        assert "valid" in dgs_checks.check_result(B, r)
        assert best_exchange(B, r.assignment) <= r.stats["tol"] and r.stats["converged"]
        assert r.objective >= r.stats["initial_objective"] - 1e-9 and r.stats["conflicts"] >= 0


def test_check_conflicts_time_limit(rng):
    B = A.uniform_instance(2000, 2000, 1, 10000, seed=rng)
    r = A.solve(B, algorithm="dgs", variant="gpu", time_limit=0.0, selection="check_conflicts")
    A.check_assignment(B, r.assignment)
    assert not r.stats["converged"] and r.stats["rounds"] == 1
    assert r.objective > r.stats["initial_objective"]


def test_full_gpu_time_limit(rng):
    B = A.uniform_instance(2000, 2000, 1, 10000, seed=rng)
    r = A.solve(B, algorithm="dgs", variant="gpu", time_limit=0.0)
    A.check_assignment(B, r.assignment)
    assert not r.stats["converged"] and r.stats["rounds"] == 1
    assert r.objective >= r.stats["initial_objective"]
    full = A.solve(B, algorithm="dgs", variant="gpu")
    assert full.stats["converged"] and full.objective >= r.objective


def test_de_pass_kinds_agree(rng):
    B = A.uniform_instance(70, 90, 0, 3, seed=rng)
    res = {k: dgs_gpu.de_pass(B, k, reps=1)["best"] for k in ("cpu", "global", "shared")}
    for k in ("global", "shared"):
        for a, b in zip(res["cpu"], res[k]):
            assert np.array_equal(a, b), k


def test_bad_input_on_gpu():
    with pytest.raises(ValueError, match="complete matrix"):
        A.solve(np.array([[1.0, -np.inf], [2.0, 3.0]]), algorithm="dgs", variant="gpu")


@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_bad_options_on_gpu(variant):
    for B in (np.array([[1.0, np.nan], [2.0, 3.0]]), np.ones((3, 2))):
        with pytest.raises(ValueError):
            A.solve(B, algorithm="dgs", variant=variant)
    with pytest.raises(ValueError, match="seed"):
        A.solve(np.ones((2, 3)), algorithm="dgs", variant=variant, seed=-1)


@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_time_limit_on_an_exchange_optimal_start_reports_convergence(variant):
    # nothing can improve this start: converged, even though the limit (0 s) has passed
    B, start = np.array([[5, 1, 0], [1, 5, 0]]), np.array([0, 1])
    r = A.solve(B, algorithm="dgs", variant=variant, init=start, time_limit=0.0)
    assert r.stats["converged"] and r.stats["switches"] == 0 and np.array_equal(r.assignment, start)


@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_stats_names_and_the_notebook_check(variant, rng):
    B = A.uniform_instance(60, 70, 1, 100, seed=rng)
    s = A.solve(B, algorithm="dgs", variant="serial", seed=2)
    r = A.solve(B, algorithm="dgs", variant=variant, seed=2)
    for key in ("total_ms", "prepare_ms", "exec_ms"):
        assert r.stats[key] >= 0, key
    assert r.stats["device"] == gpu.device_name() and "solve_ms" not in r.stats
    if variant == "gpu":
        assert 0 < r.stats["kernel_ms"] <= r.stats["exec_ms"] + 1e-3
        assert "valid" in dgs_checks.check_result(B, r)
    else:
        assert r.stats["de_calls"] >= r.stats["passes"]
        assert "same assignment as serial" in dgs_checks.check_result(B, r, same_as=s)


@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_gpu_memory_guard_refuses_and_force_insists(variant, monkeypatch):
    B = A.uniform_instance(40, 40, 1, 100, seed=1)
    monkeypatch.setattr(gpu, "usable_bytes", lambda: 1000)
    with pytest.raises(ValueError, match=f"{variant} on a 40 x 40 matrix needs about .* of GPU memory.*force=True"):
        A.solve(B, algorithm="dgs", variant=variant)
    r = A.solve(B, algorithm="dgs", variant=variant, force=True)
    assert best_exchange(B, r.assignment) <= 0
