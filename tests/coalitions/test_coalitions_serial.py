"""Serial DP (with IDP and ODP) against brute force, split counts, ties, rebuild."""
import math

import numpy as np
import pytest

from gpualgo import coalitions as co
from gpualgo import gpu
from gpualgo.coalitions import serial


def _agrees(v, r, best):
    co.check_partition(r.partition, len(v).bit_length() - 1)
    tol = (1e-4 if v.dtype == np.float32 else 1e-9) * max(1.0, abs(best))
    assert abs(r.value - best) <= tol, (r.value, best)
    assert abs(co.partition_value(v, r.partition) - r.value) <= tol


@pytest.mark.parametrize("dist", sorted(co.DISTRIBUTIONS))
def test_serial_rules_match_brute_force(dist, rng):
    for n in list(range(1, 10)) + [11]:
        dtype = np.float32 if rng.random() < 0.5 else np.float64
        v = co.random_values(n, dist, seed=int(rng.integers(1 << 31)), dtype=dtype)
        best = co.brute_force(v)[0]
        for variant, opts in [("serial", {}), ("serial", {"rule": "idp"}), ("serial", {"rule": "odp"}),
                              ("serial_odp", {})]:
            _agrees(v, co.solve(v, variant=variant, **opts), best)


@pytest.mark.parametrize("n", [1, 2, 3, 6, 10, 13])
def test_split_counts(n):
    v = co.random_values(n, seed=n)
    dp = co.solve(v, variant="serial").stats
    assert dp["splits"] == co.total_splits(n, "dp")
    assert dp["splits"] == sum(math.comb(n, s) * (2 ** (s - 1) - 1) for s in range(2, n + 1))
    idp = co.solve(v, variant="serial", rule="idp").stats["splits"]
    odp = co.solve(v, variant="serial_odp").stats["splits"]
    assert odp == co.total_splits(n, "odp") and idp == co.total_splits(n, "idp")
    assert odp <= idp <= dp["splits"]
    assert sorted(dp["ms_per_level"]) == list(range(2, n + 1))
    if n >= 10:   # ODP evaluates about a third of DP's splits
        assert odp < 0.45 * dp["splits"]


def test_odp_fraction_at_large_n():
    for n in (20, 25, 29):
        assert 0.3 < co.total_splits(n, "odp") / co.total_splits(n, "dp") < 0.4
        assert abs(co.total_splits(n, "dp") / (3 ** n / 2) - 1) < 1e-3


def test_ties_give_an_optimal_partition(rng):
    for n in (4, 7, 9):
        for v in (np.zeros(1 << n), co.popcounts(n).astype(float),
                  rng.integers(0, 3, 1 << n).astype(np.float32)):
            v[0] = 0
            best = co.brute_force(v)[0]
            for variant in ("serial", "serial_odp"):
                _agrees(v, co.solve(v, variant=variant), best)


def test_additive_values_any_partition_is_optimal():
    # v(C) = sum of agent weights: every partition has the same value
    n = 8
    w = np.arange(1, n + 1, dtype=float)
    masks = np.arange(1 << n)
    v = np.array([w[[i for i in range(n) if m >> i & 1]].sum() for m in masks])
    r = co.solve(v, variant="serial")
    assert r.value == w.sum() and r.partition == [(1 << n) - 1]


def test_rebuild_refuses_a_wrong_table():
    v = co.random_values(6, seed=2)
    f, _ = serial.dp(v, 6, "dp")
    f2 = f.copy()
    f2[-1] += 1.0
    with pytest.raises(RuntimeError, match="not a DP table"):
        serial.rebuild(v, f2, 6)


def test_result_fields():
    v = co.random_values(8, "agent_based", seed=4, dtype=np.float32)
    r = co.solve(v, variant="serial")
    assert r.variant == "serial" and isinstance(r.partition, list) and all(isinstance(p, int) for p in r.partition)
    s = r.stats
    assert s["dtype"] == "float32" and s["n"] == 8 and s["bytes_moved"] > 0 and s["total_ms"] > 0
    assert abs(s["table_value"] - r.value) < 1e-3
    assert 0 < s["exec_ms"] <= s["total_ms"] and s["device"] == gpu.cpu_label() and s["rule"] == "dp"
    assert r.objective == r.value and "kernel_ms" not in s


def test_variants_registry_order():
    assert tuple(co.VARIANTS) == ("serial", "serial_odp", "gpu_report", "gpu_shared_splits", "gpu_odp",
                                  "gpu_odp_multi")
    assert [v for v in co.VARIANTS if co.VARIANTS[v].gpu] == ["gpu_report", "gpu_shared_splits", "gpu_odp",
                                                              "gpu_odp_multi"]


def test_gpu_variants_without_gpu_raise():
    if gpu.available():
        pytest.skip("a GPU is present")
    v = co.random_values(4, seed=1)
    for variant in list(co.VARIANTS)[2:]:
        with pytest.raises(gpu.GPUUnavailableError):
            co.solve(v, variant=variant)


@pytest.mark.parametrize("dist", sorted(co.DISTRIBUTIONS))
def test_negative_and_mixed_values_match_brute_force(dist, rng):
    # every coalition costs (the singletons need not win), or values of both signs
    for n in range(1, 11):
        base = co.random_values(n, dist, seed=int(rng.integers(1 << 31)))
        for v in (-np.abs(base) - rng.random(1 << n), base - np.median(base)):
            v[0] = 0
            best = co.brute_force(v)[0]
            for variant, opts in [("serial", {}), ("serial", {"rule": "idp"}), ("serial_odp", {})]:
                _agrees(v, co.solve(v, variant=variant, **opts), best)


def test_refusal_estimates_not_optimistic_against_the_recorded_runs():
    # at each version's largest recorded n, where a refusal matters
    from gpualgo import results
    rows = results.read("coalitions", "report").rows
    for variant in co.VARIANTS:
        if not any(r["variant"] == variant for r in rows):
            continue      # not in the recorded report (gpu_odp_multi: its own preset)
        top = max(r["n"] for r in rows if r["variant"] == variant)
        measured_s = min(r["total_ms"] for r in rows if r["variant"] == variant and r["n"] == top) / 1e3
        estimate = co.estimate_seconds(top, variant)
        assert estimate >= 0.75 * measured_s, (variant, top, estimate, measured_s)


def test_odp_launches_of_the_gpu_versions():
    """gpu_odp and gpu_odp_multi launch the same kernels from one plan: with every split
    (rule dp) a launch per size h of the high part, each loading a tile per high split (2**(h-1)
    of them, one for h = 0); with ODP's rule, fewer splits and never a launch the dp plan lacks."""
    from gpualgo.coalitions import gpu as co_gpu
    dp, odp = serial.RULES.index("dp"), serial.RULES.index("odp")
    for n, b in ((6, 3), (9, 4), (12, 6)):
        for s in range(2, n + 1):
            plan = co_gpu.odp_launches(n, b, s, dp)
            assert [h for h, *_ in plan] == list(range(max(0, s - b), min(n - b, s) + 1))
            for h, t, ok, its in plan:
                assert t == s - h and ok == (2 ** (h - 1) if h else 1)
                assert its == math.comb(n - b, h) * ok * math.comb(b, t) * 2 ** t
            pruned = {h: ok for h, _, ok, _ in co_gpu.odp_launches(n, b, s, odp)}
            full = {h: ok for h, _, ok, _ in plan}
            assert set(pruned) <= set(full) and all(pruned[h] <= full[h] for h in pruned)
            if s == n:
                assert pruned == full          # the last level merges into the grand coalition: every split


def test_odp_finds_optima_of_two_equal_parts():
    """Optima of parts of x, y and y agents (x < y, ``paired.paired_values``): ODP's merges of
    such a partition end with a split whose larger part holds as many agents as the rest, the
    edge of its rule; serial_odp against brute force (or the unpruned DP above 11 agents)."""
    from paired import paired_classes, paired_values
    tried = 0
    for n in range(5, 17):
        for x, y in paired_classes(n):
            v = paired_values(n, x, y, seed=100 * n + y)
            best = co.brute_force(v)[0] if n <= co.BRUTE_FORCE_MAX else co.solve(v, variant="serial").value
            r = co.solve(v, variant="serial_odp")
            _agrees(v, r, best)
            assert sorted(int(co.popcounts(n)[c]) for c in r.partition) == [x, y, y]
            tried += 1
    assert tried == 16


def _set_partitions(agents):
    """Every set partition of the list ``agents``, as lists of bitmasks (recursively: the
    first agent joins a block of a partition of the others, or stands alone)."""
    if not agents:
        yield []
        return
    first, rest = agents[0], agents[1:]
    for p in _set_partitions(rest):
        for k in range(len(p)):
            yield p[:k] + [p[k] | 1 << first] + p[k + 1:]
        yield p + [1 << first]


def _draw(kind, n, rng):
    size = co.popcounts(n).astype(float)
    if kind == "uniform":
        v = rng.random(1 << n) * size
    elif kind == "normal":
        v = rng.normal(0.0, 1.0, 1 << n) * size
    elif kind == "negative":
        v = -rng.random(1 << n) * 10
    elif kind == "integer_ties":
        v = rng.integers(-3, 4, 1 << n)
    else:   # float32, values growing with the size squared, of both signs
        v = (rng.normal(0.0, 1.0, 1 << n) * size ** 2).astype(np.float32)
    v[0] = 0
    return v


@pytest.mark.parametrize("kind", ["uniform", "normal", "negative", "integer_ties", "float32"])
def test_every_serial_version_matches_an_enumeration_of_partitions(kind, rng):
    for n in range(1, 10):
        v = _draw(kind, n, rng)
        w = np.asarray(v, dtype=np.float64)
        best = max(sum(float(w[m]) for m in p) for p in _set_partitions(list(range(n))))
        tol = co.tolerance(np.float32 if kind == "float32" else np.float64) * n * max(1.0, float(np.abs(w).sum()))
        for variant in co.VARIANTS:
            if co.VARIANTS[variant].gpu:
                continue
            for opts in ([{"rule": r} for r in co.RULES] if "rule" in co.VARIANTS[variant].options else [{}]):
                r = co.solve(v, variant=variant, **opts)
                masks = r.partition
                assert all(isinstance(m, int) and m > 0 for m in masks) and masks == sorted(masks)
                assert sum(masks) == (1 << n) - 1 and sum(bin(m).count("1") for m in masks) == n, masks
                assert r.value == sum(float(w[m]) for m in masks)
                assert abs(r.value - best) <= tol, (variant, opts, n, r.value, best)
                if kind == "integer_ties":
                    assert r.value == best


@pytest.mark.parametrize("dtype, big", [(np.float32, 2.0**24), (np.float64, 2.0**53)])
def test_values_that_cancel_are_solved(dtype, big):
    # the singletons are best (value 3); the DP adds 2**24 + 3 in float32 (2**53 + 3 in
    # float64), which rounds to + 4: its table says 4, the partition's exact value is 3
    v = np.full(8, -1e8 if dtype == np.float32 else -1e18, dtype=dtype)
    v[0], v[1], v[2], v[4] = 0, big, -big, 3
    assert co.brute_force(v)[:2] == (3.0, [1, 2, 4])
    for variant, opts in [("serial", {}), ("serial", {"rule": "idp"}), ("serial_odp", {})]:
        r = co.solve(v, variant=variant, **opts)
        assert r.partition == [1, 2, 4] and r.value == 3.0 and r.stats["table_value"] == 4.0
