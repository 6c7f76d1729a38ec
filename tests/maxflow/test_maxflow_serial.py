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
    with pytest.raises(ValueError, match="int32"):
        mf.reference_value(net)


def test_solve_errors():
    net = mf.genrmf(2, 2, seed=1)
    with pytest.raises(ValueError, match="unknown variant"):
        mf.solve(net, "gpu_magic")
    with pytest.raises(ValueError, match="unknown option"):
        mf.solve(net, "serial", tile=4)
    with pytest.raises(ValueError, match="FlowNetwork"):
        mf.solve(np.eye(3), "serial")
    assert list(mf.VARIANTS) == ["serial", "gpu_matrix", "gpu_bcsr", "gpu_vertex_centric"]
