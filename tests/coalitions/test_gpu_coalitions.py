"""GPU versions against the serial DP (and brute force where n is small); needs a GPU."""
import numpy as np
import pytest

from gpualgo import coalitions as co
from sanitize import TOOLS, sanitize

pytestmark = pytest.mark.gpu

GPU_VARIANTS = ("gpu_report", "gpu_shared_splits", "gpu_odp")


def _instances(rng, count, n_max=20):
    """Random value functions of every distribution, n from 1 to n_max, some with ties."""
    out = []
    for i in range(count):
        n = 1 + i % n_max if i < n_max else int(rng.integers(1, n_max + 1))
        dist = sorted(co.DISTRIBUTIONS)[i % len(co.DISTRIBUTIONS)]
        dtype = np.float32 if i % 3 else np.float64
        v = co.random_values(n, dist, seed=int(rng.integers(1 << 31)), dtype=dtype)
        if i % 4 == 0:   # ties: small integers, many equal partitions
            v = np.floor(v / max(1.0, float(np.abs(v).max())) * 4).astype(dtype)
            v[0] = 0
        out.append(v)
    return out


def _close(a, b, dtype):
    tol = (2e-5 if dtype == np.float32 else 1e-9) * max(1.0, abs(b))
    return abs(a - b) <= tol


def test_gpu_matches_serial_on_60_value_functions(rng):
    for v in _instances(rng, 60):
        n = len(v).bit_length() - 1
        ref = co.solve(v, variant="serial_odp" if n > 16 else "serial")
        for variant in GPU_VARIANTS:
            r = co.solve(v, variant=variant)
            co.check_partition(r.partition, n)
            assert _close(r.value, ref.value, v.dtype), (variant, n, r.value, ref.value)
            assert _close(r.stats["table_value"], ref.stats["table_value"], v.dtype)
            assert r.stats["splits"] > 0 or n == 1
            assert r.stats["kernel_ms"] >= 0 and r.stats["bytes_moved"] >= 0


@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_gpu_matches_brute_force(variant, rng):
    for n in range(1, 10):
        for dist in co.DISTRIBUTIONS:
            v = co.random_values(n, dist, seed=int(rng.integers(1 << 31)))
            assert _close(co.solve(v, variant=variant).value, co.brute_force(v)[0], v.dtype)


@pytest.mark.parametrize("opts", [dict(low_bits=1), dict(low_bits=3, tiles_per_block=1),
                                  dict(low_bits=5, block=32), dict(rule="dp"), dict(rule="idp"),
                                  dict(low_bits=8, block=1024, tiles_per_block=3)])
def test_odp_options(opts, rng):
    for n in (2, 5, 9, 13, 16):
        if opts.get("low_bits", 1) > n:
            continue
        v = co.random_values(n, "ndcs", seed=int(rng.integers(1 << 31)))
        ref = co.solve(v, variant="serial")
        assert _close(co.solve(v, variant="gpu_odp", **opts).value, ref.value, v.dtype)


@pytest.mark.parametrize("opts", [dict(per_thread=1), dict(per_thread=2, block=32),
                                  dict(per_thread=64, block=1024)])
@pytest.mark.parametrize("variant", ["gpu_report", "gpu_shared_splits"])
def test_report_options(variant, opts, rng):
    for n in (3, 8, 12, 15):
        v = co.random_values(n, "agent_based", seed=int(rng.integers(1 << 31)), dtype=np.float32)
        ref = co.solve(v, variant="serial")
        extra = {"share": 2 + n % 7} if variant == "gpu_shared_splits" else {}
        assert _close(co.solve(v, variant=variant, **opts, **extra).value, ref.value, v.dtype)


def test_all_negative_and_zero_values():
    n = 10
    squares = -co.popcounts(n).astype(np.float64) ** 2   # a coalition of k costs k*k
    for v in (-co.random_values(n, "uniform", seed=3), np.zeros(1 << n), squares):
        v[0] = 0
        ref = co.solve(v, variant="serial")
        for variant in GPU_VARIANTS:
            r = co.solve(v, variant=variant)
            assert _close(r.value, ref.value, v.dtype)
    # costs growing faster than the size: the singletons are the one optimum, for every version
    singletons = [1 << i for i in range(n)]
    assert sorted(ref.partition) == singletons and ref.value == -n
    for variant in GPU_VARIANTS:
        assert sorted(co.solve(squares, variant=variant).partition) == singletons, variant


def test_shared_splits_saves_reads():
    v = co.random_values(14, seed=1, dtype=np.float32)
    a = co.solve(v, variant="gpu_report").stats
    b = co.solve(v, variant="gpu_shared_splits", share=8).stats
    assert b["reads_saved"] > 0 and b["bytes_moved"] < a["bytes_moved"]


def test_bad_gpu_options():
    v = co.random_values(6, seed=1)
    for variant, opts in [("gpu_odp", dict(low_bits=7)), ("gpu_odp", dict(block=48)),
                          ("gpu_report", dict(per_thread=3)), ("gpu_shared_splits", dict(share=9)),
                          ("gpu_report", dict(rule="odp")), ("gpu_odp", dict(tiles_per_block=0))]:
        with pytest.raises(ValueError):
            co.solve(v, variant=variant, **opts)


@pytest.mark.parametrize("low_bits", [3, 7, 10, 12])
def test_odp_top_levels_walk_the_allowed_sizes(low_bits, rng):
    """The top ODP levels, where a tile allows only some sizes of the low parts and the lanes skip
    the others' reads: fresh value functions (ties too) of n = 17 to 19, against the serial DP."""
    for i, n in enumerate((17, 18, 19)):
        dist = sorted(co.DISTRIBUTIONS)[int(rng.integers(len(co.DISTRIBUTIONS)))]
        v = co.random_values(n, dist, seed=int(rng.integers(1 << 31)), dtype=np.float32)
        if i == 1:
            v = np.floor(v / max(1.0, float(np.abs(v).max())) * 4).astype(np.float32)
            v[0] = 0
        ref = co.solve(v, variant="serial_odp")
        r = co.solve(v, variant="gpu_odp", low_bits=low_bits)
        co.check_partition(r.partition, n)
        assert _close(r.value, ref.value, v.dtype), (n, low_bits, r.value, ref.value)
        assert _close(float(sum(v[c] for c in r.partition)), ref.value, v.dtype)


@pytest.mark.parametrize("tool", TOOLS)
def test_compute_sanitizer_clean(tool):
    """coalitions_sanitizer_cases.py (every kernel, the ODP tiles' options) under compute-sanitizer."""
    sanitize(tool, __file__, "coalitions_sanitizer_cases.py")


def test_gpu_results_on_the_shared_contract():
    from gpualgo import gpu
    from gpualgo.result import Result
    v = co.random_values(12, "normal", seed=5, dtype=np.float32)
    ref = co.solve(v, variant="serial")
    for variant in GPU_VARIANTS:
        r = co.solve(v, variant=variant)
        assert isinstance(r, Result) and r.variant == variant and r.objective == r.value
        s = r.stats
        assert 0 <= s["kernel_ms"] <= s["exec_ms"] <= s["total_ms"] and s["prepare_ms"] >= 0
        assert s["device"] == gpu.device_name() and "upload_ms" not in s
        assert co.check_against_serial(r, ref).startswith("value equal to the serial DP's")


def test_gpu_memory_refusal_counts_the_pool(monkeypatch):
    from gpualgo import gpu
    v = co.random_values(10, seed=1, dtype=np.float32)
    monkeypatch.setattr(gpu, "usable_bytes", lambda: 1024)
    with pytest.raises(ValueError, match=r"n=10 agents as float32 needs about 4.0 KiB of GPU memory"):
        co.solve(v, variant="gpu_odp")
    assert _close(co.solve(v, variant="gpu_odp", force=True).value, co.solve(v, variant="serial").value, v.dtype)


@pytest.mark.parametrize("opts", [dict(), dict(coalitions_per_thread=32, per_thread=2), dict(coalitions_per_thread=3),
                                  dict(coalitions_per_thread=7, block=32, per_thread=1),
                                  dict(coalitions_per_thread=64, block=1024, per_thread=64)])
@pytest.mark.parametrize("variant", ["gpu_report", "gpu_shared_splits"])
def test_coalitions_per_thread(variant, opts, rng):
    """A group walking several coalitions in turn (share at a time, the last step partial
    where share does not divide it) finds the serial DP's optimum."""
    for n in (2, 5, 9, 13, 16):
        v = co.random_values(n, "normal", seed=int(rng.integers(1 << 31)), dtype=np.float32)
        ref = co.solve(v, variant="serial")
        extra = {"share": 2 + n % 7} if variant == "gpu_shared_splits" else {}
        r = co.solve(v, variant=variant, **opts, **extra)
        assert _close(r.value, ref.value, v.dtype), (variant, opts, n)
        co.check_partition(r.partition, n)
        want = opts.get("coalitions_per_thread") or extra.get("share", 1)
        assert r.stats["coalitions_per_thread"] == want


def test_shared_splits_saves_the_same_reads_whatever_the_walk():
    """The reads avoided depend on which coalitions a thread evaluates together, not on how
    many groups of them it walks in turn."""
    v = co.random_values(14, seed=2, dtype=np.float32)
    one = co.solve(v, variant="gpu_shared_splits", share=8).stats["reads_saved"]
    assert co.solve(v, variant="gpu_shared_splits", share=8, coalitions_per_thread=32).stats["reads_saved"] == one


@pytest.mark.parametrize("opts", [dict(), dict(block=256, per_thread=2, share=8, coalitions_per_thread=32),
                                  dict(per_thread=1, block=32), dict(per_thread=64, share=3, coalitions_per_thread=5)])
@pytest.mark.parametrize("variant", ["gpu_report", "gpu_shared_splits"])
def test_phase_clocks_solve_and_count(variant, opts, rng):
    """The clocked build gives the serial DP's optimum (float32 and float64) and counts cycles
    in every phase; the phases' shares sum to one and fit in the threads' total."""
    from gpualgo.coalitions import gpu as co_gpu
    opts = {k: x for k, x in opts.items() if k != "share" or variant == "gpu_shared_splits"}
    for n, dtype in ((3, np.float64), (9, np.float32), (14, np.float32), (15, np.float64)):
        v = co.random_values(n, "uniform", seed=int(rng.integers(1 << 31)), dtype=dtype)
        ref = co.solve(v, variant="serial")
        r = co_gpu.phase_clocks(v, variant, **opts)
        assert r.variant == variant and _close(r.value, ref.value, dtype), (variant, opts, n)
        co.check_partition(r.partition, n)
        cyc, shares = r.stats["phase_cycles"], r.stats["phase_shares"]
        assert set(cyc) == set(co_gpu.PHASES) | {"total"}
        assert all(cyc[p] > 0 for p in co_gpu.PHASES), cyc
        assert sum(cyc[p] for p in co_gpu.PHASES) <= cyc["total"]
        assert abs(sum(shares.values()) - 1) < 1e-9 and 0 < r.stats["phase_coverage"] <= 1
    plain = co.solve(v, variant=variant, **opts)        # the default build is untouched by the clocked one
    assert "phase_cycles" not in plain.stats and _close(plain.value, ref.value, dtype)
    if variant == "gpu_shared_splits":
        assert r.stats["reads_saved"] == plain.stats["reads_saved"]


def test_phase_clocks_are_zeroed_between_runs():
    from gpualgo.coalitions import gpu as co_gpu
    v = co.random_values(12, seed=3, dtype=np.float32)
    a = co_gpu.phase_clocks(v, "gpu_report").stats["phase_cycles"]
    b = co_gpu.phase_clocks(v, "gpu_report").stats["phase_cycles"]
    assert 0.5 < b["total"] / a["total"] < 2      # the same work, counted from zero each time


@pytest.mark.parametrize("n, low_bits, pin_bytes", [(14, 8, 0), (22, None, None)])
def test_odp_starts_while_the_table_is_uploaded(n, low_bits, pin_bytes, rng, monkeypatch):
    """gpu_odp evaluates the coalitions without the top agents while the rest of the table is
    uploaded, here for small tables too (n = 22: 16 MiB, staged; n = 14 staged too, with the
    threshold lowered), against the report's kernel on small integer values, whose sums are
    exact in any order."""
    from gpualgo import gpu
    from gpualgo.coalitions import gpu as co_gpu
    monkeypatch.setattr(co_gpu, "LEAD_BYTES", 0)
    if pin_bytes is not None:
        monkeypatch.setattr(gpu, "PIN_BYTES", pin_bytes)
    firsts, upload = [], gpu.to_device_in_two
    monkeypatch.setattr(gpu, "to_device_in_two",
                        lambda a, first, **kw: firsts.append((len(a), first)) or upload(a, first, **kw))
    v = np.floor(co.random_values(n, "uniform", seed=int(rng.integers(1 << 31)), dtype=np.float32) * 50)
    v = v.astype(np.float32)
    v[0] = 0
    r = co.solve(v, variant="gpu_odp", low_bits=low_bits)
    assert (len(v), len(v) >> co_gpu.LEAD) in firsts   # the table: its first eighth, then the rest
    ref = co.solve(v, variant="gpu_report")
    co.check_partition(r.partition, n)
    assert r.value == ref.value and float(sum(v[c] for c in r.partition)) == ref.value
    levels = r.stats["ms_per_level"]        # a level's two parts add up to one entry
    assert n in levels and set(levels) <= set(range(2, n + 1))
    assert all(0 < ms <= 2 * r.stats["kernel_ms"] + 0.01 for ms in levels.values())


def test_gpu_odp_finds_optima_of_two_equal_parts():
    """Optima of parts of x, y and y agents (x < y, ``paired.paired_values``), at the edge of
    ODP's rule: gpu_odp against the unpruned serial DP (the numba ODP at 20 agents), float32 and
    float64, and with the table in two parts (n = 26: the optimum's sizes, and its value)."""
    from paired import paired_classes, paired_values
    for n in (7, 11, 14, 17, 20):
        for x, y in paired_classes(n):
            for dtype in (np.float32, np.float64):
                v = paired_values(n, x, y, seed=n * 31 + y, dtype=dtype)
                ref = co.solve(v, variant="serial" if n <= 17 else "serial_odp")
                r = co.solve(v, variant="gpu_odp")
                co.check_partition(r.partition, n)
                assert _close(r.value, ref.value, dtype), (n, x, y, r.value, ref.value)
                assert sorted(int(co.popcounts(n)[c]) for c in r.partition) == [x, y, y]
    v = paired_values(26, 6, 10, seed=7, dtype=np.float32)
    r = co.solve(v, variant="gpu_odp", force=True)
    assert sorted(int(co.popcounts(26)[c]) for c in r.partition) == [6, 10, 10]
    assert _close(r.value, co.partition_value(v, r.partition), np.float32)


def test_the_bound_leaves_the_answer_alone(rng):
    """gpu_odp with its bound (the default) against without it and the serial DP, on value
    functions where it takes levels (uniform values) and where it rarely can (negative values);
    the levels it took evaluate fewer splits, and every run gives an optimal partition."""
    took = 0
    for i in range(24):
        n = 14 + i % 7
        dist = ("uniform", "normal", "ndcs")[i % 3]
        dtype = np.float32 if i % 2 else np.float64
        v = co.random_values(n, dist, seed=int(rng.integers(1 << 31)), dtype=dtype)
        ref = co.solve(v, variant="serial_odp" if n > 16 else "serial")
        a = co.solve(v, variant="gpu_odp")
        b = co.solve(v, variant="gpu_odp", bound=False)
        for r in (a, b):
            co.check_partition(r.partition, n)
            assert _close(r.value, ref.value, dtype), (n, dist, r.value, ref.value)
            assert _close(co.partition_value(v, r.partition), r.value, dtype)
        assert b.stats["bounded"] == {}
        if a.stats["bounded"]:
            took += 1
            assert all(n // 2 < s < n for s in a.stats["bounded"])
            assert a.stats["splits"] < b.stats["splits"]
    assert took >= 4       # uniform values: the bound takes their top levels
    # the other rules never bound (their levels are read by larger coalitions)
    v = co.random_values(15, "uniform", seed=5)
    assert co.solve(v, variant="gpu_odp", rule="dp").stats["bounded"] == {}


def test_the_bound_on_values_built_against_it(rng):
    """Optima the bound must not lose: one large coalition (a top level's, kept whole), a top
    coalition whose own best is a split (two parts of six agents inside twelve), values scaled
    far up and down (its rounding tolerance scales with them), and near-ties at the optimum."""
    n = 18
    pop = co.popcounts(n)
    cases = []
    v = co.random_values(n, "uniform", seed=11) * 0.5          # one coalition of 13 agents wins
    big = int(rng.choice(np.flatnonzero(pop == 13)))
    v[big] = 13.0
    cases.append(("one coalition of 13", v))
    v = np.zeros(1 << n)                                        # parts of 6 agents are worth most
    v[pop == 6] = 6.5 + 0.01 * rng.random(int((pop == 6).sum()))
    v[pop == 1] = 1.0
    cases.append(("parts of six", v))
    base = co.random_values(n, "uniform", seed=12)
    for scale in (1e6, 1e-6):
        cases.append((f"uniform x {scale:g}", base * scale))
    v = np.round(co.random_values(n, "uniform", seed=13), 2)   # many partitions within 0.01
    v[0] = 0.0
    cases.append(("rounded to 0.01", v))
    for what, v in cases:
        for dtype in (np.float32, np.float64):
            w = v.astype(dtype)
            ref = co.solve(w, variant="serial")
            r = co.solve(w, variant="gpu_odp")
            co.check_partition(r.partition, n)
            assert _close(r.value, ref.value, dtype), (what, dtype, r.value, ref.value, r.stats["bounded"])
            assert _close(co.partition_value(w, r.partition), ref.value, dtype), (what, dtype)
