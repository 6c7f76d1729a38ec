"""Every GPU variant against scipy, and the deterministic ones against their serial twins."""
import numpy as np
import pytest

from gpualgo import assignment as A
from sanitize import TOOLS, sanitize
from gpualgo.assignment.auction.gpu import PERSISTENT, TAIL_MAX

pytestmark = pytest.mark.gpu

GPU_VARIANTS = A.VARIANTS["auction"][1:]


def instances(rng, count):
    """Varied sizes, shapes, densities and benefit ranges (ties included)."""
    shapes = [(1, 1, 1.0, 9), (5, 9, 0.5, 3), (40, 40, 1.0, 10000), (64, 100, 0.1, 1000), (100, 100, 0.3, 5),
              (129, 129, 1.0, 2), (200, 260, 0.1, 10000), (300, 300, 1.0, 10000), (33, 1000, 0.05, 50)]
    for k in range(count):
        m, n, d, lim = shapes[k % len(shapes)]
        yield A.report_instance(m, n, d, seed=rng, limit=lim)


@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_variant_exact_against_scipy(variant, rng):
    for B in instances(rng, 54):
        r = A.solve(B, variant=variant)
        A.check_assignment(B, r.assignment)
        assert r.objective == A.reference_objective(B), (variant, B.shape)
        assert r.variant == variant and r.stats["rounds"] >= 1


@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_variant_eps_bound(variant, rng):
    for B in instances(rng, 18):
        m = B.shape[0]
        opt = A.reference_objective(B)
        r = A.solve(B, variant=variant, eps=2.5)
        A.check_assignment(B, r.assignment)
        assert opt - m * 2.5 <= r.objective <= opt


def test_deterministic_equals_serial(rng):
    for B in instances(rng, 27):
        for eps in (None, 1.0):
            s = A.solve(B, variant="serial", eps=eps)
            g = A.solve(B, variant="gpu_deterministic", eps=eps)
            assert np.array_equal(s.assignment, g.assignment)
            assert np.array_equal(s.prices, g.prices)
            assert s.stats["rounds"] == g.stats["rounds"]


@pytest.mark.parametrize("variant", ["gpu_eps_scaling", "gpu_sparse"])
def test_eps_scaling_equals_serial_twin(variant, rng):
    for B in instances(rng, 27):
        s = A.solve(B, variant="serial", scaling=True)
        g = A.solve(B, variant=variant)
        assert np.array_equal(s.assignment, g.assignment)
        assert np.array_equal(s.prices, g.prices)
        assert s.stats["rounds_per_phase"] == g.stats["rounds_per_phase"]


def test_eps_scaling_larger_exact(rng):
    for n, lim in [(1000, 10000), (1500, 1500), (777, 3)]:
        B = A.uniform_instance(n, n, 1, lim, seed=rng)
        r = A.solve(B, variant="gpu_eps_scaling")
        A.check_assignment(B, r.assignment)
        assert r.objective == A.reference_objective(B)
    B = A.report_instance(1200, 1200, 0.1, seed=rng)
    r = A.solve(B, variant="gpu_sparse")
    assert r.objective == A.reference_objective(B)


@pytest.mark.parametrize("opts", [dict(bid_threads=64), dict(bid_threads=1024, assign_threads=128),
                                  dict(grid_factor=1), dict(rounds_per_graph=2)])
def test_launch_options(opts, rng):
    B = A.report_instance(150, 170, 0.5, seed=rng, limit=100)
    r = A.solve(B, variant="gpu_graph", **opts)
    assert r.objective == A.reference_objective(B)


def test_bad_input_on_gpu():
    for v in GPU_VARIANTS:
        with pytest.raises(ValueError, match="Hall"):
            A.solve(np.array([[1, -np.inf], [2, -np.inf]]), variant=v)
    with pytest.raises(ValueError, match="rounds_per_check"):
        A.solve(np.ones((4, 4)), variant="gpu_eps_scaling", rounds_per_check=3)


def tail_expected(serial_result, opts: dict) -> bool:
    """Whether the tail kernel runs, read from the serial twin's bidders per round. With the
    CUDA graph it is tried after each batch of rounds_per_check rounds of a phase; with
    persistent=True before each pair of rounds, the first included; it runs when 1 to
    tail_max persons are left. (Benefits with many ties can leave more bidders than that
    until the phase ends at once.)"""
    tail_max = opts.get("tail_max", TAIL_MAX)
    step = 2 if opts.get("persistent", PERSISTENT) else opts.get("rounds_per_check", 16)
    first = 0 if opts.get("persistent", PERSISTENT) else step
    active, start = serial_result.stats["active_bidders"], 0
    for rounds in serial_result.stats["rounds_per_phase"]:
        assert start + rounds <= len(active), "record_rounds too small for this instance"
        for r in range(first, rounds, step):
            if 1 <= active[start + r] <= tail_max:
                return True
        start += rounds
    return False


def test_tail_expected_reads_the_batches():
    """The prediction on a hand-made record: two phases (5 and 4 rounds), tail_max 3 to 5."""
    class R:
        stats = {"active_bidders": np.array([9, 8, 7, 5, 4, 3, 6, 4, 2]), "rounds_per_phase": [5, 4]}
    graph = dict(persistent=False, rounds_per_check=2)
    assert not tail_expected(R, dict(graph, tail_max=3))    # rounds 2, 4 of phase 1: 7, 4; round 2 of phase 2: 4
    assert tail_expected(R, dict(graph, tail_max=4))
    assert tail_expected(R, dict(graph, rounds_per_check=3, tail_max=5))   # phase 1, round 3: 5
    assert tail_expected(R, dict(persistent=True, tail_max=3))   # phase 2, round 0: 3
    assert not tail_expected(R, dict(graph, tail_max=3, rounds_per_check=4))


@pytest.mark.parametrize("opts", [{}, dict(tail_shared=False), dict(warps_per_block=32, blocks_per_sm=1),
                                  dict(warps_per_block=1), dict(tail_max=4), dict(tail_max=32),
                                  dict(rounds_per_check=2), dict(persistent=True), dict(persistent=False),
                                  dict(persistent=True, tail_max=4, warps_per_block=32, blocks_per_sm=1),
                                  dict(persistent=True, tail_shared=False, warps_per_block=1)])
def test_eps_scaling_options_equal_serial_twin(opts, rng):
    """Launch shapes, the tail's state in shared or global memory and its bid caches change no result."""
    for n, lim in [(700, 10000), (1024, 3), (1500, 1500)]:
        B = A.uniform_instance(n, n, 1, lim, seed=rng)
        s = A.solve(B, variant="serial", scaling=True)
        g = A.solve(B, variant="gpu_eps_scaling", **opts)
        assert np.array_equal(s.assignment, g.assignment)
        assert np.array_equal(s.prices, g.prices)
        assert s.stats["rounds_per_phase"] == g.stats["rounds_per_phase"]
        tail_ran = g.stats["tail_cache_hits"] + g.stats["tail_scans"] >= 1
        assert tail_ran == tail_expected(s, opts)
    B = A.report_instance(1200, 1200, 0.1, seed=rng)
    s = A.solve(B, variant="serial", scaling=True)
    g = A.solve(B, variant="gpu_sparse", **opts)
    assert np.array_equal(s.assignment, g.assignment) and np.array_equal(s.prices, g.prices)


def test_one_bidder_rounds_run_by_one_warp_change_no_result(rng):
    """The tail's rounds with a single bidder whose cache decides run in tail_solo (one warp, no
    block barrier), a cache miss handed back to the block's scan: prices, answer and rounds per
    phase equal the serial twin's, and the rounds run that way are never more than the serial
    twin's rounds with one bidder, all decided by a cache, and some, except on four distinct values
    (where a cache seldom decides: its best ties with what lies outside it)."""
    cases = [(A.uniform_instance(n, n, 1, lim, seed=rng), lim > 4) for n, lim in ((1100, 10000), (900, 4))]
    cases.append((A.geom_instance(700, 700, seed=rng), True))
    for B, some in cases:
        s = A.solve(B, variant="serial", scaling=True, record_rounds=10**7)
        g = A.solve(B, variant="gpu_eps_scaling")
        assert np.array_equal(s.assignment, g.assignment) and np.array_equal(s.prices, g.prices), B.shape
        assert s.stats["rounds_per_phase"] == g.stats["rounds_per_phase"]
        ones = int((s.stats["active_bidders"] == 1).sum())
        solo = g.stats["tail_solo_rounds"]
        assert solo <= min(ones, g.stats["tail_cache_hits"]), (solo, ones, g.stats["tail_cache_hits"])
        assert solo > 0 or not some, (solo, ones)
    B = A.report_instance(1200, 1200, 0.1, seed=rng)
    s = A.solve(B, variant="serial", scaling=True, record_rounds=10**7)
    g = A.solve(B, variant="gpu_sparse")
    assert np.array_equal(s.assignment, g.assignment) and np.array_equal(s.prices, g.prices)
    assert 0 < g.stats["tail_solo_rounds"] <= int((s.stats["active_bidders"] == 1).sum())


@pytest.mark.parametrize("cache_k", [64, 256])
def test_bid_caches_of_any_size_change_no_result(cache_k, rng, monkeypatch):
    """Each scanning thread offers its best two objects, above the largest third best of all
    threads.  On geometric costs (near ties everywhere) and on few distinct benefits, a cache
    of 64 slots overflows often and one of 256 seldom; neither may change a bid."""
    from gpualgo.assignment.auction import gpu as auction_gpu
    monkeypatch.setattr(auction_gpu, "CACHE_K", cache_k)
    cases = [A.geom_instance(n, n, seed=rng) for n in (300, 1100)]
    cases += [A.uniform_instance(900, 900, 0, 4, seed=rng), A.uniform_instance(1300, 1300, 1, 10000, seed=rng)]
    for B in cases:
        s = A.solve(B, variant="serial", scaling=True)
        g = A.solve(B, variant="gpu_eps_scaling")
        assert np.array_equal(s.assignment, g.assignment) and np.array_equal(s.prices, g.prices), B.shape
        assert s.stats["rounds_per_phase"] == g.stats["rounds_per_phase"]
        assert g.stats["tail_cache_hits"] >= 1 and g.objective == A.reference_objective(B)


def test_narrow_scans_change_no_result(rng, monkeypatch):
    """With every |raw| * scale < 2^30 the dense scans fold 32-bit profits (NARROW_SCANS); a
    price that passes 2^30 stops the run, which starts again with 64-bit scans.  Either way the
    answers, the prices and the rounds of every phase equal those of 64-bit scans only
    (NARROW_LIMIT = 0): on benefits close to the limit whose prices pass 2^30 (the run starts
    again), and on benefits far below it."""
    from gpualgo.assignment.auction import gpu as auction_gpu
    n = 700
    top = (2**30 - 1) // (n + 1)     # raw * scale just below 2^30 (scale n + 1)
    B = A.uniform_instance(n, n, -top, 5000 - top, seed=rng)
    B[:, 0], B[:, 1] = top, top - 1000     # everybody wants these two most: their prices pass 2^30
    cases = [B, A.uniform_instance(n, n, -top, top, seed=rng), A.uniform_instance(900, 900, 1, 10000, seed=rng),
             A.geom_instance(600, 600, seed=rng)]
    for k, B in enumerate(cases):
        prob = A.problem.prepare(B, None, square=True)
        assert auction_gpu.narrow_scans(prob, sparse=False), B.shape
        g = A.solve(B, variant="gpu_eps_scaling")
        with monkeypatch.context() as m:
            m.setattr(auction_gpu, "NARROW_LIMIT", 0)
            w = A.solve(B, variant="gpu_eps_scaling")
        assert not w.stats["narrow_scans"] and not w.stats["narrow_aborted"]
        assert np.array_equal(g.assignment, w.assignment) and np.array_equal(g.prices, w.prices), k
        assert g.stats["rounds_per_phase"] == w.stats["rounds_per_phase"], k
        assert g.objective == A.reference_objective(B)
        if k == 0:
            assert np.max(g.prices) * prob.scale >= 2**30
            assert g.stats["narrow_aborted"] and not g.stats["narrow_scans"]
            p = A.solve(B, variant="gpu_eps_scaling", persistent=not g.stats["persistent"])   # the other bulk rounds
            assert p.stats["narrow_aborted"] and np.array_equal(p.prices, w.prices)
            assert np.array_equal(p.assignment, w.assignment)
        if k >= 2:
            assert g.stats["narrow_scans"] and not g.stats["narrow_aborted"]
    S = A.report_instance(300, 300, 0.2, seed=rng)
    assert not A.solve(S, variant="gpu_sparse").stats["narrow_scans"]    # CSR rows: 64-bit scans


def test_narrow_scan_of_a_large_price_stops_the_run(rng):
    """bid_warp_kernel built with NARROW_SCANS: its bids equal the 64-bit build's while every price
    is below 2^30, and a price at or above it sets narrow_abort."""
    import cupy as cp
    from gpualgo.assignment.auction.gpu import _module
    from gpualgo.exercises.auction import _bid_run     # the bid exercise's launch of bid_warp_kernel
    from gpualgo.exercises.core import Case
    m, n = 96, 1000
    raw = rng.integers(0, 1000, size=(m, n)).astype(np.int32)
    wide, narrow = _module(), _module(narrow=True)
    abort = cp.ndarray((1,), cp.int32, narrow.get_global("narrow_abort"))
    for high, stops in ((2**30, False), (2**31, True)):
        price = rng.integers(0, high, size=n).astype(np.int64)
        case = Case(f"prices below {high}", dict(raw=raw, price=price, scale=m + 1, eps=1, cap=10**12))
        abort[:] = 0
        keys = [_bid_run(mod, case)[0] for mod in (narrow, wide)]
        assert int(abort.get()[0]) == int(stops), high
        assert keys[1].any() and (stops or np.array_equal(keys[0], keys[1])), high


def test_eps_scaling_upload_paths_agree(rng):
    """A square integer matrix goes up with no host pass of its own: int32 as it is, its range
    taken on the GPU; another integer type converted to int32 by the upload's threads, which take
    its range as given while they copy. Other inputs go through the host."""
    B = A.uniform_instance(512, 512, 0, 511, seed=rng).astype(np.int32)
    direct = A.solve(B, variant="gpu_eps_scaling")
    others = (B.astype(np.int64), B.astype(np.uint16), B.astype(np.int16), B.astype(np.uint64),
              np.asfortranarray(B), B.astype(np.float64), B.astype(">i8"))
    for other in others:
        r = A.solve(other, variant="gpu_eps_scaling")
        assert np.array_equal(r.assignment, direct.assignment) and np.array_equal(r.prices, direct.prices), other.dtype
    assert direct.objective == A.reference_objective(B)
    assert "proves the optimum" in A.checks.certify(B.astype(np.int64), direct)
    for big in (np.int32, np.int64):
        C = B.astype(big)
        C[3, 7] = 2**30
        with pytest.raises(ValueError, match="2\\*\\*30"):
            A.solve(C, variant="gpu_eps_scaling")
    C = B.astype(np.int64)
    C[5, 1] = -(2**40)                     # would wrap in int32: refused, by the range taken before it
    with pytest.raises(ValueError, match="range"):
        A.solve(C, variant="gpu_eps_scaling")
    # large enough for the staged upload (its threads convert and take the range chunk by chunk)
    from gpualgo import gpu
    n = 2048
    assert n * n * 4 >= gpu.PIN_BYTES
    B = A.uniform_instance(n, n, 1, 10000, seed=rng)
    want = A.solve(B.astype(np.int32), variant="gpu_eps_scaling")
    for other in (B.astype(np.int64), B.astype(np.uint16)):
        r = A.solve(other, variant="gpu_eps_scaling")
        assert np.array_equal(r.assignment, want.assignment) and r.objective == want.objective, other.dtype
    assert want.objective == A.reference_objective(B)
    for where, value in (((n - 1, n - 1), 2**33 + 5), ((1234, 17), -(2**31) - 1), ((0, 0), 2**30)):
        C = B.astype(np.int64)
        C[where] = value                   # in the last, a middle or the first chunk
        with pytest.raises(ValueError, match="range"):
            A.solve(C, variant="gpu_eps_scaling")


@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_stats_names_and_the_memory_guard(variant, rng, monkeypatch):
    from gpualgo import gpu
    shapes = [A.report_instance(64, 72, 0.5, seed=rng), A.uniform_instance(64, 64, 1, 100, seed=rng)]  # int32 square
    for B in shapes:
        r = A.solve(B, variant=variant)
        s = r.stats
        for k in ("total_ms", "prepare_ms", "exec_ms", "kernel_ms", "upload_ms", "download_ms"):
            assert s[k] >= 0, k
        assert s["kernel_ms"] <= s["exec_ms"] + 0.1 and s["prepare_ms"] + s["exec_ms"] <= s["total_ms"]
        assert s["device"] == gpu.device_name() and not {"solve_ms", "transfer_ms"} & set(s)
        with monkeypatch.context() as mp:
            mp.setattr(gpu, "usable_bytes", lambda: 1000)
            with pytest.raises(ValueError, match=f"{variant} on a {B.shape[0]} x {B.shape[1]} matrix needs about "
                                                 ".* of GPU memory .* pass force=True"):
                A.solve(B, variant=variant)
            assert A.solve(B, variant=variant, force=True).objective == r.objective


@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_answers_pass_the_public_checks(variant, rng):
    """What the notebook and the benchmarks use: scipy's optimum, and the prices' dual bound."""
    for B in instances(rng, 9):
        for eps in (None, 1.0):
            r = A.solve(B, variant=variant, eps=eps)
            A.check_result(B, r, eps=eps)
            A.certify(B, r, eps=eps)


def test_targets_quick_preset_checks_every_answer_from_both_dtypes():
    from gpualgo import bench
    rows = bench.run_preset("auction", "targets", progress=False, quick=True)
    gpu_rows = [r for r in rows if r["variant"] == "gpu_eps_scaling"]
    cases = {(r["n"], r["range"]) for r in gpu_rows}
    assert cases == {(96, "1-10000"), (64, "0-999"), (64, "geom")}
    for n, family in cases:
        mine = [r for r in gpu_rows if (r["n"], r["range"]) == (n, family)]
        assert sorted((r["dtype"], r["rep"]) for r in mine) == [(d, k) for d in ("int32", "int64") for k in range(3)]
        assert all(r["verified"] is True for r in mine) and len({r["objective"] for r in mine}) == 1
        scipy = [r for r in rows if r["variant"] == "scipy" and (r["n"], r["range"]) == (n, family)]
        if n == 64:
            assert len(scipy) == 3 and scipy[0]["objective"] == mine[0]["objective"]
            assert all(r["verified_by"] == "scipy" and r["speedup_vs_scipy"] > 0 for r in mine)
        else:
            assert not scipy and all(r["verified_by"] == "dual bound" for r in mine)


@pytest.mark.parametrize("persistent", [False, True])
def test_round_limit_of_the_eps_scaling_versions(persistent, rng):
    """max_rounds ends a run that has not finished with RuntimeError, in graphs of rounds and
    in the cooperative launch alike; a generous limit changes nothing."""
    B = A.uniform_instance(600, 600, 1, 10000, seed=rng)
    for variant in ("gpu_eps_scaling", "gpu_sparse"):
        with pytest.raises(RuntimeError, match="no convergence within max_rounds=2 rounds"):
            A.solve(B, variant=variant, persistent=persistent, max_rounds=2)
        r = A.solve(B, variant=variant, persistent=persistent, max_rounds=10**6)
        assert r.objective == A.reference_objective(B) and r.stats["persistent"] == persistent


def test_tail_clock_counts_the_tail_rounds_and_changes_no_result(rng):
    for lim in (10000, 3):
        B = A.uniform_instance(700, 700, 1, lim, seed=rng)
        plain = A.solve(B, variant="gpu_eps_scaling")
        timed = A.solve(B, variant="gpu_eps_scaling", time_tail=True)
        assert np.array_equal(plain.assignment, timed.assignment) and np.array_equal(plain.prices, timed.prices)
        s = timed.stats
        assert s["rounds"] == plain.stats["rounds"] and "tail_ms" not in plain.stats
        assert 0 < s["tail_rounds"] <= s["rounds"]
        assert 0 <= s["tail_scan_ms"] <= s["tail_ms"] <= s["kernel_ms"]
        assert (s["tail_scan_ms"] > 0) == (s["tail_scans"] > 0)


def test_persistent_quick_preset_runs_both_ways_on_each_instance():
    from gpualgo import bench
    rows = bench.run_preset("auction", "persistent", progress=False, quick=True)
    cases = {(r["n"], r["range"]) for r in rows}
    assert cases == {(n, f) for n in (64, 96) for f in ("1-10000", "0-999", "geom")}
    assert all(r["verified"] is True for r in rows)
    for case in cases:
        mine = [r for r in rows if (r["n"], r["range"]) == case]
        assert sorted(r["persistent"] for r in mine) == [0, 1]
        assert len({r["objective"] for r in mine}) == 1 and len({r["rounds"] for r in mine}) == 1


def test_tail_quick_preset_clocks_one_run_per_instance():
    from gpualgo import bench
    from gpualgo.assignment.auction import analysis
    rows = bench.run_preset("auction", "tail", progress=False, quick=True)
    cases = {(r["n"], r["range"]) for r in rows}
    assert cases == {(n, f) for n in (64, 128) for f in ("1-10000", "0-999")}
    assert all(r["verified"] is True for r in rows)
    for case in cases:
        mine = [r for r in rows if (r["n"], r["range"]) == case]
        assert sorted(r["time_tail"] for r in mine) == [0, 1] and len({r["objective"] for r in mine}) == 1
        timed = [r for r in mine if r["time_tail"]][0]
        assert 0 < timed["tail_rounds"] <= timed["rounds"] and timed["tail_ms"] <= timed["kernel_ms"]
    assert len(analysis.tail_lines(rows)) == len(cases)


def test_eps_factor_quick_preset_runs_every_factor_on_the_same_instances():
    from gpualgo import bench
    from gpualgo.assignment.auction import analysis, bench as auction_bench
    p = auction_bench.PRESETS["eps_factor"]
    factors = p.params["factors"]
    rows = bench.run_preset("auction", "eps_factor", progress=False, quick=True)
    cases = {(r["n"], r["range"], r["seed"]) for r in rows}
    assert {(n, f) for n, f, _ in cases} == {(n, f) for n in (64, 96) for f in ("1-10000", "0-999", "geom")}
    for case in cases:
        mine = [r for r in rows if (r["n"], r["range"], r["seed"]) == case]
        assert sorted(r["eps_factor"] for r in mine) == sorted(factors)
        assert all(r["verified"] is True and r["verified_by"] == "dual bound" for r in mine)
        assert len({r["objective"] for r in mine}) == 1      # every factor is exact: one optimum
    summary = analysis.factor_summary(rows)
    assert sorted(summary) == sorted(factors)
    assert sum(w for _, w, _ in summary.values()) >= len(cases)  # ties may share a win
    assert all(g >= 1.0 and worst >= g for g, _, worst in summary.values())


@pytest.mark.parametrize("variant", ["gpu_queues", "gpu_deterministic"])
def test_timeline_of_the_first_rounds(variant, rng):
    B = A.report_instance(300, 300, 1.0, seed=rng)
    plain = A.solve(B, variant=variant, eps=1.0)
    r = A.solve(B, variant=variant, eps=1.0, timeline_rounds=5)
    assert "timeline" not in plain.stats and A.checks.certify(B, r, eps=1.0)
    if variant == "gpu_deterministic":
        assert np.array_equal(r.assignment, plain.assignment)
    spans = r.stats["timeline"]
    assert len(spans) == 3 * min(5, r.stats["rounds"]) and spans[0]["start_us"] == 0.0
    for k in range(min(5, r.stats["rounds"])):
        step = {s["step"]: s for s in spans if s["round"] == k}
        bid, copy, rebuild = step["bid + assign"], step["copy of the matched counter"], step["queue rebuild"]
        assert all(s["start_us"] <= s["end_us"] for s in (bid, copy, rebuild))
        assert rebuild["start_us"] == bid["end_us"] and copy["start_us"] >= bid["end_us"] - 1e-3   # after the event
        assert copy["stream"] == "side" and bid["stream"] == rebuild["stream"] == "main"


@pytest.mark.parametrize("tool", TOOLS)
def test_compute_sanitizer_clean(tool):
    """assignment_sanitizer_cases.py (every GPU version of the auction and of DGS) under compute-sanitizer."""
    sanitize(tool, __file__, "assignment_sanitizer_cases.py")
