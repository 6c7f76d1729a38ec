"""The numba serial push-relabel against scipy on random graphs of every kind."""
import numpy as np
import pytest

from gpualgo import maxflow as mf


def _verify(net, r):
    ref = mf.reference_value(net)
    assert r.flow_value == ref
    mf.check_flow(net, r.flow, r.flow_value, preflow=r.is_preflow)
    mf.check_cut(net, r.source_side, r.flow_value)


def random_cases(rng, count):
    """Random networks of the kinds the tests need: directed, undirected, zero capacities,
    parallel arcs, an unreachable sink."""
    for i in range(count):
        kind = i % 5
        n = int(rng.integers(2, 70))
        seed = int(rng.integers(1 << 30))
        if kind == 0:
            yield "directed", mf.random_gnp(n, float(rng.uniform(0.02, 0.4)), seed=seed)
        elif kind == 1:
            yield "undirected", mf.random_gnp(n, float(rng.uniform(0.02, 0.4)), seed=seed, directed=False)
        elif kind == 2:   # zero-capacity arcs and parallel arcs
            m = int(rng.integers(1, 4 * n))
            u, v = rng.integers(0, n, m), rng.integers(0, n, m)
            c = rng.integers(0, 6, m)
            u, v, c = np.r_[u, u[: m // 3]], np.r_[v, v[: m // 3]], np.r_[c, rng.integers(0, 6, m // 3)]
            yield "parallel+zero", mf.from_edges(n, u, v, c, 0, n - 1)
        elif kind == 3:   # the sink has no entering arc of positive capacity
            m = int(rng.integers(1, 4 * n))
            u, v = rng.integers(0, n, m), rng.integers(0, n - 1, m)
            yield "unreachable", mf.from_edges(n, u, v, rng.integers(1, 50, m), 0, n - 1)
        else:
            yield "genrmf", mf.genrmf(int(rng.integers(2, 5)), int(rng.integers(2, 5)), seed=seed)


def test_serial_against_scipy(rng):
    kinds = set()
    for kind, net in random_cases(rng, 60):
        r = mf.solve(net, "serial")
        _verify(net, r)
        kinds.add(kind)
        if kind == "unreachable":
            assert r.flow_value == 0
    assert len(kinds) == 5


@pytest.mark.parametrize("freq", [0.05, 1.0, 100.0])
def test_serial_relabel_frequency(freq):
    net = mf.genrmf(6, 5, seed=4)
    r = mf.solve(net, "serial", freq=freq)
    _verify(net, r)
    assert r.stats["global_relabels"] >= 1 and r.stats["pushes"] > 0


def test_serial_large_capacities():
    # int64 capacities beyond int32: checked with networkx (scipy is int32 only)
    import networkx as nx
    net = mf.from_edges(4, [0, 0, 1, 2], [1, 2, 3, 3], [2**40, 2**41, 2**40 + 5, 2**42])
    r = mf.solve(net, "serial")
    g = nx.DiGraph()
    u, v, c = net.arcs()
    g.add_weighted_edges_from(zip(u.tolist(), v.tolist(), c.tolist()), weight="capacity")
    assert r.flow_value == nx.maximum_flow_value(g, 0, 3)
    mf.check_cut(net, r.source_side, r.flow_value)
    assert mf.reference_value(net) == r.flow_value          # networkx, where scipy's int32 cannot
    from gpualgo import peers
    with pytest.raises(ValueError, match="int32"):
        peers.scipy_max_flow(net.n, *net.arcs(), net.source, net.sink)


def test_solve_errors():
    net = mf.genrmf(2, 2, seed=1)
    with pytest.raises(ValueError, match="unknown variant"):
        mf.solve(net, "gpu_magic")
    with pytest.raises(ValueError, match="unknown option"):
        mf.solve(net, "serial", tile=4)
    with pytest.raises(ValueError, match="FlowNetwork"):
        mf.solve(np.eye(3), "serial")
    assert list(mf.VARIANTS) == ["serial", "gpu_matrix", "gpu_bcsr", "gpu_vertex_centric"]


@pytest.mark.parametrize("global_relabel,gap", [(True, False), (False, True), (False, False)])
def test_serial_without_its_heuristics_stays_exact(rng, global_relabel, gap):
    # the textbook's push-relabel (both off) and each heuristic alone, against scipy
    kinds = set()
    for kind, net in random_cases(rng, 40):
        r = mf.solve(net, "serial", global_relabel=global_relabel, gap=gap)
        _verify(net, r)
        kinds.add(kind)
        assert r.stats["global_relabel"] is global_relabel and r.stats["gap"] is gap
        if not global_relabel:
            assert r.stats["global_relabels"] == 0
        if not gap:
            assert r.stats["gaps"] == 0
    assert len(kinds) == 5


def test_serial_default_keeps_both_heuristics():
    net = mf.random_gnp(300, 0.05, seed=2)
    r = mf.solve(net, "serial")
    assert r.stats["global_relabel"] is True and r.stats["gap"] is True and r.stats["global_relabels"] >= 1
    assert 0 <= r.stats["cut_ms"] <= r.stats["exec_ms"]
    plain = mf.solve(net, "serial", global_relabel=False, gap=False)
    assert plain.flow_value == r.flow_value and plain.stats["global_relabels"] == 0
    # the same cut: both are the vertices that cannot reach the sink in a maximum flow's residual graph
    assert (plain.source_side == r.source_side).all()


def test_plain_push_relabel_is_refused_when_it_would_run_too_long():
    from gpualgo.maxflow import serial
    net = mf.random_gnp(10000, mf.report_density(10000), seed=1)
    assert serial.estimate_plain_seconds(net) > serial.PLAIN_LIMIT_S
    for gap in (True, False):
        with pytest.raises(ValueError, match="without the global relabel.*force=True"):
            mf.solve(net, "serial", global_relabel=False, gap=gap)
    assert mf.solve(net, "serial", gap=False).stats["gaps"] == 0          # the global relabel on: no refusal
    small = mf.genrmf(3, 3, seed=1)
    assert serial.estimate_plain_seconds(small) < 1e-3
    assert mf.solve(small, "serial", global_relabel=False, gap=False, force=True).flow_value == \
        mf.reference_value(small)


@pytest.mark.parametrize("bad", [{"gap": "no"}, {"global_relabel": 0}, {"gap": None}])
def test_heuristic_switches_take_booleans(bad):
    with pytest.raises(ValueError, match="must be True or False"):
        mf.solve(mf.genrmf(2, 2, seed=1), "serial", **bad)


def test_the_three_cuts_have_the_flow_value_as_capacity(rng):
    # from the heights (O(n)), the BFS on the transposed residual graph (O(n + m)) and the
    # report's first search (O(n m)), on the final state of every kind of run
    from gpualgo.maxflow import serial
    for kind, net in random_cases(rng, 30):
        ref = mf.reference_value(net)
        heads, rev = net.heads.astype(np.int64), net.rev.astype(np.int64)
        for gr, gap in ((True, True), (False, False), (True, False)):
            res, value, _, h = serial.push_relabel(net.n, net.source, net.sink, net.offsets, heads, rev,
                                                   net.capacity, 1.0, gr, gap)
            assert value == ref, kind
            by_bfs = serial.cut_by_bfs(net.n, net.sink, net.offsets, heads, rev, res)
            by_scan = serial.cut_by_scan(net.n, net.sink, net.offsets, heads, res)
            by_heights = serial.cut_by_heights(net.n, h)
            assert (by_bfs == by_scan).all(), kind
            for side in (by_bfs, by_heights):
                assert mf.check_cut(net, side, ref) == ref, (kind, gr, gap)
    steps = serial.cut_steps(mf.genrmf(4, 3, seed=5))
    assert set(steps) == {"flow", *serial.CUT_METHODS}
    assert len({cap for _, cap in steps.values()}) == 1 and all(ms >= 0 for ms, _ in steps.values())
    with pytest.raises(ValueError, match="unknown cut method"):
        serial.cut_steps(mf.genrmf(2, 2, seed=1), ["dfs"])
