"""Generators and the independent checks."""
import numpy as np
import pytest

from gpualgo import maxflow as mf


def test_gnp_sizes_and_seeds():
    a = mf.random_gnp(200, 0.05, seed=3)
    b = mf.random_gnp(200, 0.05, seed=3)
    assert np.array_equal(a.capacity, b.capacity) and np.array_equal(a.heads, b.heads)
    expected = 200 * 199 * 0.05
    assert 0.8 * expected < a.n_input_arcs < 1.2 * expected + 2 * 199
    u = mf.random_gnp(200, 0.05, seed=3, directed=False)
    uu, vv, cc = u.arcs()
    m = {(x, y): c for x, y, c in zip(uu.tolist(), vv.tolist(), cc.tolist())}
    assert all(m.get((y, x)) is not None for (x, y) in m)     # symmetric support
    big = mf.random_gnp(5000, mf.report_density(5000), seed=1)   # sampled-pairs branch
    assert big.n == 5000 and big.n_input_arcs > 0.8 * 5000 * 4999 * mf.report_density(5000)
    with pytest.raises(ValueError):
        mf.random_gnp(10, 1.5)


def test_gnp_connected():
    import scipy.sparse.csgraph as cg
    for directed in (True, False):
        net = mf.random_gnp(300, 0.001, seed=5, directed=directed)
        k, _ = cg.connected_components(mf.scipy_matrix(net), directed=True, connection="strong")
        assert k == 1


def test_family_sizes():
    g = mf.genrmf(4, 3, seed=1)
    assert g.n == 48 and g.n_input_arcs == 4 * 4 * 3 * 3 + 16 * 2
    assert g.source == 0 and g.sink == 47
    w = mf.washington_rlg(5, 4, seed=1)
    assert w.n == 22 and w.source == 20 and w.sink == 21
    v = mf.vision_grid(6, 7, seed=1)
    assert v.n == 44
    with pytest.raises(ValueError):
        mf.genrmf(3, 1)


@pytest.mark.parametrize("make", [lambda s: mf.genrmf(5, 4, seed=s), lambda s: mf.washington_rlg(8, 6, seed=s),
                                  lambda s: mf.vision_grid(9, 8, seed=s)])
def test_families_against_networkx(make):
    import networkx as nx
    net = make(2)
    g = nx.DiGraph()
    u, v, c = net.arcs()
    g.add_weighted_edges_from(zip(u.tolist(), v.tolist(), c.tolist()), weight="capacity")
    val = nx.maximum_flow_value(g, net.source, net.sink)
    assert val == mf.reference_value(net) == mf.reference_value(net, "edmonds_karp")
    assert mf.solve(net, "serial").flow_value == val


def test_checks_catch_wrong_answers():
    net = mf.from_edges(4, [0, 0, 1, 2], [1, 2, 3, 3], [3, 2, 2, 3])
    r = mf.solve(net, "serial")
    assert mf.check_flow(net, r.flow) == 4
    assert mf.check_cut(net, r.source_side, 4) == 4
    bad = r.flow.copy()
    a = int(np.flatnonzero(net.capacity > 0)[0])
    bad[a] += 1
    with pytest.raises(ValueError, match="reverse"):
        mf.check_flow(net, bad)
    bad[net.rev[a]] -= 1
    with pytest.raises(ValueError):
        mf.check_flow(net, bad)
    with pytest.raises(ValueError, match="reported"):
        mf.check_flow(net, r.flow, value=5)
    side = np.zeros(4, dtype=bool)
    side[0] = True
    assert mf.cut_capacity(net, side) == 5
    with pytest.raises(ValueError, match="capacity 5"):
        mf.check_cut(net, side, 4)
    with pytest.raises(ValueError, match="contains the sink"):
        mf.check_cut(net, np.ones(4, dtype=bool), 0)
    with pytest.raises(ValueError, match="does not contain the source"):
        mf.check_cut(net, np.zeros(4, dtype=bool), 0)
    # a preflow with excess left at vertex 1 passes only as a preflow
    pre = np.zeros(net.m, dtype=np.int64)
    a01 = int(np.flatnonzero((net.tails == 0) & (net.heads == 1))[0])
    pre[a01], pre[net.rev[a01]] = 3, -3
    with pytest.raises(ValueError, match="vertex 1"):
        mf.check_flow(net, pre)
    assert mf.check_flow(net, pre, preflow=True) == 0
    assert np.array_equal(mf.residual_source_side(net, r.flow), r.source_side)
