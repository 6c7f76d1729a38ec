"""Serial DGS: valid, exchange-optimal (checked by dense numpy algebra here), deterministic;
its guards, its trace, its step-by-step walk and the independent check of the notebook."""
import functools

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from gpualgo import assignment as A, gpu, guards, result as result_mod
from gpualgo.assignment.dgs import checks as dgs_checks, serial as dgs_serial, trace as dgs_trace


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
        # the independent helper of the notebook agrees, and so does its check
        assert max(dgs_checks.exchange_gains(B, r.assignment)) <= tol
        assert "valid" in dgs_checks.check_result(B, r)


def test_greedy_start_and_given_start(rng):
    B = A.uniform_instance(30, 45, 1, 100, seed=rng)
    g = A.solve(B, algorithm="dgs", variant="serial", init="greedy")
    assert best_exchange(B, g.assignment) <= 0
    start = rng.permutation(45)[:30]
    r = A.solve(B, algorithm="dgs", variant="serial", init=start)
    assert r.stats["initial_objective"] == A.objective(B, start)
    assert best_exchange(B, r.assignment) <= 0


@pytest.mark.parametrize("init", ["random", "greedy"])
def test_phases_are_timed_on_request_and_change_nothing(rng, init):
    B = A.uniform_instance(120, 130, 1, 1000, seed=rng)
    plain = A.solve(B, algorithm="dgs", variant="serial", seed=3, init=init)
    r = A.solve(B, algorithm="dgs", variant="serial", seed=3, init=init, phases=True)
    assert np.array_equal(r.assignment, plain.assignment) and r.stats["switches"] == plain.stats["switches"]
    assert not {"eval_ms", "switch_ms", "reeval_ms"} & set(plain.stats)          # off the default path
    s = r.stats
    assert all(isinstance(s[k], float) and s[k] >= 0 for k in ("eval_ms", "switch_ms", "reeval_ms", "start_ms"))
    assert s["eval_ms"] > 0 and s["reeval_ms"] <= s["switch_ms"]
    assert s["eval_ms"] + s["switch_ms"] <= s["exec_ms"] and s["start_ms"] <= s["prepare_ms"]


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


@pytest.mark.parametrize("conflicts", [False, True])
def test_parallel_rule_twin_is_exchange_optimal(conflicts, rng):
    # what holds for both selections (mutual pairs, Check-Conflicts): a valid assignment, no
    # exchange left that gains more than tol, the objective the assignment's, never below the
    # start, one exchange at least per round but the last
    for B in instances(rng, 24):
        Af, AT, tol = dgs_serial.prepare(B)
        tau = dgs_serial.initial_assignment(Af, "random", 3)
        start = A.objective(B, tau)
        rounds, switches, obj, dropped = dgs_serial.parallel_rounds(Af, AT, tau, tol, 10**6, conflicts)
        A.check_assignment(B, tau)
        assert best_exchange(B, tau) <= tol
        assert abs(obj - A.objective(B, tau)) <= 1e-6 * max(1.0, abs(obj))
        assert obj >= start - 1e-6 * max(1.0, abs(start)) and switches >= rounds - 1
        assert dropped >= 0 if conflicts else dropped == 0


def papers_check_conflicts(A_, AT, tau, holder, cur, tol):
    """Algorithm 4 (CC) in the paper's own terms, for the test: the agents in index order with
    their ADE (``ade_row``), then the free jobs with their JDE (``jde_row``); what an exchange
    reserves is its agents (and a free job); a candidate meeting a reservation is dropped.
    Returns the kept exchanges as sets of what they touch, and the count dropped."""
    m, n = A_.shape
    reserved, kept, dropped = set(), [], 0

    def consider(touches):
        nonlocal dropped
        if touches & reserved:
            dropped += 1
        else:
            reserved.update(touches)
            kept.append(frozenset(touches))
    for i in range(m):
        d, j = dgs_serial.ade_row(A_, AT, tau, holder, cur, i)
        if d > tol:
            consider({("agent", i), ("agent", holder[j]) if holder[j] >= 0 else ("job", j)})
    for j in range(n):
        if holder[j] < 0:
            d, k = dgs_serial.jde_row(A_, AT, tau, holder, cur, j)
            if d > tol:
                consider({("job", j), ("agent", k)})
    return kept, dropped


def test_check_conflicts_is_the_papers_walk(rng):
    # distinct gains (floats) or square instances: one tie rule for ADE, JDE and the job rows
    shapes = [(6, 6), (40, 40), (30, 45), (64, 65), (9, 30), (1, 3)]
    for k in range(24):
        m, n = shapes[k % len(shapes)]
        B = rng.normal(size=(m, n)) * 100 if k % 2 or m != n else A.uniform_instance(m, n, 0, 3, seed=rng)
        Af, AT, tol = dgs_serial.prepare(B)
        tau = dgs_serial.initial_assignment(Af, "random", k)
        holder, cur = dgs_serial.start_state(Af, tau)
        best_d, best_p = np.empty(n), np.empty(n, dtype=np.int64)
        for x in range(n):
            dgs_serial.pair_row(Af, AT, holder, cur, x, best_d, best_p)
        rows, dropped = dgs_serial.check_conflicts(tau, holder, best_d, best_p, tol)
        ours = [frozenset(("agent", holder[y]) if holder[y] >= 0 else ("job", y) for y in (x, best_p[x]))
                for x in rows]
        want, want_dropped = papers_check_conflicts(Af, AT, tau, holder, cur, tol)
        assert ours == want and dropped == want_dropped, (m, n, k)
        touched = np.concatenate([rows, best_p[rows]])
        assert np.unique(touched).size == touched.size          # no job in two kept exchanges
        assert (rows.size > 0) == (best_d.max(initial=-np.inf) > tol)  # one kept while one improves


def test_selection_is_checked_without_a_gpu():
    for bad in ("greedy", "", None, 1):
        with pytest.raises(ValueError, match="selection must be one of 'mutual', 'check_conflicts'"):
            A.solve(np.ones((3, 3)), algorithm="dgs", variant="gpu", selection=bad)
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['selection'\] for serial"):
        A.solve(np.ones((2, 2)), algorithm="dgs", variant="serial", selection="mutual")


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


def test_memory_guard_refuses_before_allocating():
    # 2**40 entries: A and its transpose in float64 would take 16 TiB. The input is a
    # broadcast view of one int32, so only a refusal before any copy can answer at all.
    huge = np.broadcast_to(np.int32(1), (1, 2**40))
    with pytest.raises(ValueError, match=r"DGS on a 1 x 1099511627776 matrix .* needs about 16\.0 TiB") as err:
        A.solve(huge, algorithm="dgs", variant="serial")
    assert "host memory" in str(err.value) and "force=True" in str(err.value)


def test_memory_guard_counts_a_and_its_transpose_and_force_insists(monkeypatch, rng):
    B = A.uniform_instance(40, 50, 1, 100, seed=rng)
    need = 16 * 40 * 50                      # A and its transpose in float64
    monkeypatch.setattr(guards, "host_bytes", lambda: int(need / guards.MEMORY_FRACTION) - 8)
    with pytest.raises(ValueError, match="DGS on a 40 x 50 matrix .*31.2 KiB of host memory.*force=True"):
        A.solve(B, algorithm="dgs", variant="serial")
    forced = A.solve(B, algorithm="dgs", variant="serial", force=True)
    assert dgs_checks.exchange_gains(B, forced.assignment)[0] <= 0
    monkeypatch.setattr(guards, "host_bytes", lambda: int(need / guards.MEMORY_FRACTION) + 8)
    A.solve(B, algorithm="dgs", variant="serial")   # just fits: no refusal
    # without the transpose (the full-GPU version's host copy of a float matrix) half as much
    monkeypatch.setattr(guards, "host_bytes", lambda: int(need / 2 / guards.MEMORY_FRACTION) + 8)
    Af, AT, _ = dgs_serial.prepare(B.astype(np.float64) + 0.5, transpose=False)
    assert AT is None and Af.dtype == np.float64


def test_unknown_option_names_the_options():
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['max_rounds'\] for serial; it takes "
                                         r"\['force', 'init', 'phases', 'seed', 'time_limit', 'trace_capacity'\]"):
        A.solve(np.ones((2, 2)), algorithm="dgs", variant="serial", max_rounds=3)


def test_result_stats_use_the_shared_names(rng):
    B = A.uniform_instance(20, 25, 1, 50, seed=rng)
    r = A.solve(B, algorithm="dgs", variant="serial", seed=1)
    s = r.stats
    for key in ("total_ms", "prepare_ms", "exec_ms"):
        assert isinstance(s[key], float) and s[key] >= 0, key
    assert s["total_ms"] >= s["exec_ms"] and "solve_ms" not in s
    assert s["device"] == gpu.cpu_label()
    assert r.algorithm == "dgs" and r.variant == "serial" and r.objective == A.objective(B, r.assignment)


def test_result_is_the_shared_result(rng):
    assert issubclass(A.AssignmentResult, result_mod.Result)
    r = A.solve(A.uniform_instance(10, 10, seed=rng), algorithm="dgs", variant="serial")
    assert isinstance(r, result_mod.Result)
    assert r.summary().startswith("serial: ") and "ms in all" in r.summary()


def test_walk_is_the_serial_run_step_by_step(rng):
    for B in instances(rng, 16):
        seed = int(rng.integers(1000))
        r = A.solve(B, algorithm="dgs", variant="serial", seed=seed)
        tau, events = dgs_serial.walk(B, seed=seed)
        assert np.array_equal(tau, r.assignment), B.shape
        kinds = [e["kind"] for e in events]
        assert kinds[0] == "start" and kinds.count("pass") == r.stats["passes"]
        assert kinds.count("switch") == r.stats["switches"]
        assert kinds.count("switch") + kinds.count("stale") == r.stats["steps"]
        switches = [e for e in events if e["kind"] == "switch"]
        assert all(e["gain"] > r.stats["tol"] for e in switches)
        objs = [events[0]["objective"]] + [e["objective"] for e in switches]
        assert np.allclose(np.diff(objs), [e["gain"] for e in switches])
        assert np.isclose(objs[-1], r.objective)


def test_cpu_evaluation_of_some_rows_equals_the_full_pass(rng):
    B = A.uniform_instance(30, 37, 0, 4, seed=rng)
    Af, AT, _ = dgs_serial.prepare(B)
    tau = dgs_serial.initial_assignment(Af, "random", 2)
    holder, cur = dgs_serial.start_state(Af, tau)
    full = (np.empty(30), np.empty(30, dtype=np.int64), np.empty(37), np.empty(37, dtype=np.int64))
    part = tuple(np.full_like(a, -7) for a in full)
    ev = dgs_serial.CpuEvaluation(Af, AT)
    ev(tau, holder, cur, *full)
    ev(tau, holder, cur, *part, agents=[3, 29], jobs=[0, 36])
    for f, p in zip(full, part):
        idx = [3, 29] if f.size == 30 else [0, 36]
        assert np.array_equal(f[idx], p[idx])
    assert ev.calls == 2


def test_check_result_fails_on_wrong_answers(rng):
    B = A.uniform_instance(12, 15, 1, 1000, seed=rng)
    r = A.solve(B, algorithm="dgs", variant="serial", seed=3)
    said = dgs_checks.check_result(B, r, same_as=r)
    assert "valid" in said and "same assignment as serial" in said
    check = functools.partial(dgs_checks.check_result, B)     # how the notebook passes it
    assert check(r) == dgs_checks.check_result(B, r)
    bad = A.AssignmentResult(assignment=r.assignment.copy(), objective=r.objective, variant="gpu", algorithm="dgs",
                             stats=dict(r.stats))
    bad.assignment[0] = bad.assignment[1]                     # two agents on one job
    with pytest.raises(ValueError, match="given to 2"):
        check(bad)
    start = np.arange(12)                                     # a start, not exchange-optimal
    worse = A.AssignmentResult(assignment=start, objective=A.objective(B, start), variant="gpu", algorithm="dgs",
                               stats=dict(r.stats))
    assert max(dgs_checks.exchange_gains(B, start)) > 0     # (a random 12 x 15 matrix: all but certain)
    with pytest.raises(ValueError, match="not exchange-optimal"):
        check(worse)
    lying = A.AssignmentResult(assignment=r.assignment, objective=r.objective + 1, variant="gpu", algorithm="dgs",
                               stats=dict(r.stats))
    with pytest.raises(ValueError, match="objective"):
        check(lying)
    reference = A.AssignmentResult(assignment=r.assignment[::-1].copy(), objective=A.objective(B, r.assignment[::-1]),
                                   variant="twin", algorithm="dgs", stats=dict(r.stats))
    with pytest.raises(ValueError, match="serial: 12 agents' jobs differ from the twin version's"):
        dgs_checks.check_result(B, r, same_as=reference)
    other = A.solve(B, algorithm="dgs", variant="serial", seed=4)
    if not np.array_equal(other.assignment, r.assignment):   # another local optimum: valid, but not the same
        with pytest.raises(ValueError, match="differ from the serial version's"):
            dgs_checks.check_result(B, other, same_as=r)


def test_exchange_gains_finds_a_planted_exchange():
    B = np.array([[1, 9, 0, 0], [9, 1, 0, 0], [0, 0, 5, 7]])
    swap, move = dgs_checks.exchange_gains(B, np.array([0, 1, 2]))
    assert swap == 16.0 and move == 2.0                      # swap agents 0 and 1; agent 2 to job 3
    assert dgs_checks.exchange_gains(B, np.array([1, 0, 3])) == (-16.0, -2.0)   # agent 2 back to job 2


def test_trace_buffer_thins_evenly_and_refuses_a_bad_capacity():
    buf, meta = dgs_trace.new_trace(8)
    for s in range(1, 1001):
        dgs_trace.record_trace(buf[0], buf[1], buf[2], meta, s, float(s), float(s))
    sw, ob, ms = dgs_trace.trace_arrays(buf, meta, 0.0, final=(1000, 1000.0, 1.0))
    assert sw[0] == 0 and sw[-1] == 1000 and len(sw) <= 10
    assert np.all(np.diff(sw) > 0) and len(set(np.diff(sw[1:-1]))) == 1   # evenly spaced
    for bad in (0, -1, 2.5, True, "8"):
        with pytest.raises(ValueError, match="trace_capacity"):
            dgs_trace.new_trace(bad)
    sw, ob, ms = dgs_trace.rounds_trace_arrays([[3, 10.0, 2e6], [5, 12.0, 4e6]], 7.0)
    assert sw.tolist() == [0, 3, 5] and ob.tolist() == [7.0, 10.0, 12.0] and ms.tolist() == [0.0, 2.0, 4.0]
