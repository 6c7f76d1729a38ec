"""The ways of finishing an eps-scaling phase (auction.tails): every one ends optimal, the
shortest augmenting paths and the one-at-a-time bids keep eps-complementary slackness, and
bad arguments are refused."""
import numpy as np
import pytest

from gpualgo import assignment as A
from gpualgo.assignment import problem
from gpualgo.assignment.auction import serial, tails

SHAPES = [(40, 40, 1.0, 10000), (30, 30, 1.0, 3), (25, 50, 1.0, 1000), (40, 40, 0.3, 100), (1, 1, 1.0, 5)]


@pytest.mark.parametrize("m,n,density,limit", SHAPES)
@pytest.mark.parametrize("tail_max", [0, 1, 8])
def test_every_method_ends_optimal(m, n, density, limit, tail_max, rng):
    for _ in range(2):
        B = A.report_instance(m, n, density, seed=rng, limit=limit)
        rows = tails.alternatives(B, tail_max=tail_max)
        assert [r["method"] for r in rows] == list(tails.METHODS)
        best = A.reference_objective(B)
        for r in rows:
            assert r["objective"] == best, r
            assert r["bulk"] >= 0 and r["chain"] >= r["last_chain"] >= 0
        stop = next(r for r in rows if r["method"] == "stop_early")
        assert stop["chain"] == stop["last_chain"]      # only the last phase is finished
        guarded = next(r for r in rows if r["method"] == "stop_guarded")
        assert guarded["chain"] - guarded["last_chain"] <= 256 * (guarded["phases"] - 1)
        if tail_max == 0:                                # nothing left to finish
            assert all(r["chain"] == 0 for r in rows)


def _phase_to_tail(B, eps, tail_max):
    """One phase of eps-scaling from zero prices, stopped with tail_max persons unassigned."""
    prob = problem.prepare(B, None, square=True)
    n = prob.n
    price, po, oo = np.zeros(n, np.int64), np.full(n, -1, np.int64), np.full(n, -1, np.int64)
    serial.auction_rounds(prob.raw, np.int64(prob.scale), np.int64(eps), np.int64(max(prob.cap, eps)), price, po, oo,
                          np.int64(serial.MAX_ROUNDS), np.zeros(0, np.int64), tail_max)
    return prob, price, po, oo


def _slack(prob, price, po):
    """The largest amount by which a person's own object falls short of its best profit."""
    profit = prob.raw.astype(np.int64) * prob.scale - price[None, :]
    profit[prob.raw == problem.MISSING] = serial.NEG
    return int((profit.max(axis=1) - profit[np.arange(len(po)), po]).max())


@pytest.mark.parametrize("method", ["shortest_paths", "gauss_seidel", "forward_reverse"])
def test_finishing_keeps_eps_complementary_slackness(method, rng):
    for limit, density in ((10000, 1.0), (5, 1.0), (1000, 0.4)):
        B = A.report_instance(60, 60, density, seed=rng, limit=limit)
        prob0 = problem.prepare(B, None, square=True)
        eps = max(1, prob0.span // 50)
        prob, price, po, oo = _phase_to_tail(B, eps, 6)
        left = int((po < 0).sum())
        assert 0 < left <= 6 or left == 0
        before = price.copy()
        cap = np.int64(max(prob.cap, eps))
        if method == "shortest_paths":
            aug, scans = tails.shortest_paths(prob.raw, np.int64(prob.scale), price, po, oo)
            assert aug == left and scans >= 0
        elif method == "gauss_seidel":
            assert tails.gauss_seidel(prob.raw, np.int64(prob.scale), np.int64(eps), cap, price, po, oo) >= left
        else:
            steps = tails.forward_reverse(prob.raw, np.int64(prob.scale), np.int64(eps), cap, price, po, oo,
                                          np.int64(serial.MAX_ROUNDS))
            assert steps >= min(left, 1)                 # rounds: one may match several persons
        assert (po >= 0).all() and sorted(po) == list(range(prob.n))
        assert (oo[po] == np.arange(prob.n)).all()
        if method != "forward_reverse":                  # reverse rounds lower prices
            assert (price >= before).all()               # forward ones never do
        assert _slack(prob, price, po) <= eps


def test_forward_reverse_stops_at_its_round_limit():
    B = A.report_instance(60, 60, 1.0, seed=7, limit=10000)
    prob, price, po, oo = _phase_to_tail(B, 1, 6)
    assert (po < 0).any()
    assert tails.forward_reverse(prob.raw, np.int64(prob.scale), np.int64(1), np.int64(prob.cap), price, po, oo,
                                 np.int64(0)) == -1


def test_table_and_verdict_name_every_instance(rng):
    B = A.report_instance(30, 30, 1.0, seed=rng, limit=100)
    results = {"first": tails.alternatives(B, tail_max=4), "second": tails.alternatives(B.T.copy(), tail_max=4)}
    text = tails.table(results)
    body = text.splitlines()[2:]
    assert len(body) == 2 * len(tails.METHODS) and text.splitlines()[0].endswith("x jacobi")
    assert [line.split()[1] for line in body] == 2 * list(tails.METHODS)
    sentence = tails.verdict(results)
    assert sentence.startswith("Jacobi rounds make the shortest chain on ") and "of 2 instances" in sentence


@pytest.mark.parametrize("bad", [-1, 1.5, True, "8"])
def test_bad_tail_max_is_refused(bad):
    with pytest.raises(ValueError, match="tail_max"):
        tails.alternatives(np.eye(3, dtype=int), tail_max=bad)


def test_unknown_method_is_refused():
    with pytest.raises(ValueError, match="unknown method 'hungarian'"):
        tails.alternatives(np.eye(3, dtype=int), methods=("jacobi", "hungarian"))


def test_the_guard_bounds_the_early_phases_and_its_ends_are_the_other_methods(rng):
    """stop_guarded with guard 0 is stop_early; with a guard no early tail reaches, it is jacobi;
    in between, every early phase's tail runs at most guard rounds, and the answer is optimal."""
    for limit in (10000, 50):
        B = A.report_instance(80, 80, 1.0, seed=rng, limit=limit)
        best = A.reference_objective(B)
        by = lambda rows: {r["method"]: r for r in rows}
        base = by(tails.alternatives(B, tail_max=8, methods=("jacobi", "stop_early")))
        zero = by(tails.alternatives(B, tail_max=8, methods=("stop_guarded",), guard=0))["stop_guarded"]
        wide = by(tails.alternatives(B, tail_max=8, methods=("stop_guarded",), guard=10**9))["stop_guarded"]
        assert {k: zero[k] for k in ("bulk", "chain")} == {k: base["stop_early"][k] for k in ("bulk", "chain")}
        assert {k: wide[k] for k in ("bulk", "chain")} == {k: base["jacobi"][k] for k in ("bulk", "chain")}
        for guard in (1, 3, 10):
            r = by(tails.alternatives(B, tail_max=8, methods=("stop_guarded",), guard=guard))["stop_guarded"]
            assert r["objective"] == best
            assert r["chain"] - r["last_chain"] <= guard * (r["phases"] - 1)


@pytest.mark.parametrize("bad", [-1, 2.5, "64"])
def test_bad_guard_is_refused(bad):
    with pytest.raises(ValueError, match="guard"):
        tails.alternatives(np.eye(3, dtype=int), guard=bad)


def test_keep_slack_keeps_exactly_the_pairs_within_eps(rng):
    """keep_slack unassigns the persons whose pair breaks eps-complementary slackness at the new
    eps and only those; the matching stays consistent both ways."""
    partial = 0
    for _ in range(3):
        B = A.report_instance(40, 40, 0.6, seed=rng, limit=1000)
        prob, price, po, oo = _phase_to_tail(B, eps=64, tail_max=0)
        before = po.copy()
        eps = 8
        kept = tails.keep_slack(prob.raw, np.int64(prob.scale), np.int64(eps), price, po, oo)
        raw, scale = prob.raw.astype(np.int64), np.int64(prob.scale)
        profit = np.where(prob.raw == serial._MISSING, serial.NEG, raw * scale - price[None, :])
        best = profit.max(axis=1)
        within = np.array([j >= 0 and profit[i, j] >= best[i] - eps for i, j in enumerate(before)])
        assert kept == within.sum()
        partial += 0 < kept < prob.n
        assert np.array_equal(po >= 0, within) and np.array_equal(po[within], before[within])
        assert all(oo[j] == i for i, j in enumerate(po) if j >= 0)
        assert np.count_nonzero(oo >= 0) == kept
    assert partial > 0      # some pairs kept and some let go, on at least one instance


def test_endings_are_exact_and_the_first_is_the_schedules_own(rng):
    """tails.endings: every ending's answer is scipy's optimum; its first row is the twin's own last
    phases (the same epsilons and rounds as serial.auction_eps_scaling), the others start at the
    scaled eps and end at the final one."""
    for limit, last in ((10000, 3), (100, 2), (5, 10)):
        B = A.report_instance(60, 60, 1.0, seed=rng, limit=limit)
        rows = tails.endings(B, last=last, scales=(0.5, 2.0))
        assert [r["scale"] for r in rows] == [1.0, 0.5, 2.0]
        best = A.reference_objective(B)
        assert all(r["objective"] == best for r in rows)
        prob = problem.prepare(B, None, square=True)
        *_, per_phase, sched = serial.auction_eps_scaling(prob)
        assert rows[0]["schedule"] == sched[-last:] and rows[0]["rounds"] == sum(per_phase[-last:])
        assert rows[0]["ratio"] == 1.0
        for r in rows[1:]:
            first = min(max(prob.eps, int(sched[-last:][0] * r["scale"])), max(prob.span, prob.eps))
            assert r["schedule"][0] == first and r["schedule"][-1] == prob.eps
            assert all(a > b for a, b in zip(r["schedule"], r["schedule"][1:]))
            assert r["ratio"] == r["rounds"] / rows[0]["rounds"]


@pytest.mark.parametrize("kw,match", [(dict(last=0), "last"), (dict(scales=(0.5, -1)), "scales"),
                                      (dict(scales=(float("nan"),)), "scales"), (dict(scales=(True,)), "scales"),
                                      (dict(scales=("2",)), "scales")])
def test_bad_endings_arguments_are_refused(kw, match):
    with pytest.raises(ValueError, match=match):
        tails.endings(np.eye(3, dtype=int), **kw)


def test_endings_lines_name_every_instance(rng):
    B = A.report_instance(40, 40, 1.0, seed=rng, limit=1000)
    results = {"first": tails.endings(B, scales=(0.7, 1.5)), "second": tails.endings(B.T.copy(), scales=(0.7, 1.5))}
    lines = tails.endings_lines(results)
    assert len(lines) == 3 and lines[0].startswith("first: ") and lines[1].startswith("second: ")
    ratios = [r["ratio"] for rows in results.values() for r in rows[1:]]
    assert lines[2].startswith(f"the same endings took {min(ratios):.2f}x to {max(ratios):.2f}x")
    assert lines[2].endswith("of 2 instances")


@pytest.mark.parametrize("limit, density", [(10000, 1.0), (3, 1.0), (100, 0.5)])
def test_walks_are_the_rounds_with_one_bidder(limit, density, rng):
    B = A.report_instance(50, 50, density, seed=rng, limit=limit)
    rows = tails.walks(B)
    prob = problem.prepare(B, None, square=True)
    _, _, total, active, per_phase, sched = serial.auction_eps_scaling(prob, record_rounds=10**6)
    assert [r["rounds"] for r in rows] == per_phase and [r["eps"] for r in rows] == sched
    assert sum(r["walk"] for r in rows) == int((active == 1).sum())     # the bidders each round recorded
    for r in rows:
        assert 0 <= r["persons"] <= r["walk"] <= r["rounds"]
        assert (r["persons"] == 0) == (r["walk"] == 0)
        assert r["per_person"] == (r["walk"] / r["persons"] if r["persons"] else 0.0)
    line, = tails.walks_lines({"x": (prob.n, rows)})
    assert line.startswith(f"x: {sum(r['walk'] for r in rows):,} of {total:,} rounds")

