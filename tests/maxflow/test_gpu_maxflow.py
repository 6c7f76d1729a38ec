"""The GPU versions against scipy on random graphs; the cut and the preflow checked each time."""
import itertools

import numpy as np
import networkx as nx
import pytest

from gpualgo import gpu
from gpualgo import maxflow as mf
from gpualgo.maxflow import gpu as mfgpu
from sanitize import TOOLS, sanitize
from test_maxflow_serial import random_cases

GPU_VARIANTS = [v for v in mf.VARIANTS if v.startswith("gpu_")]


def _reference(net):
    """scipy's value, or networkx's where a capacity is beyond scipy's int32 (parallel arcs summed)."""
    if net.fits_int32():
        return mf.reference_value(net)
    g = nx.DiGraph()
    for u, v, c in zip(*(a.tolist() for a in net.arcs())):
        cap = g.edges[u, v]["capacity"] + c if g.has_edge(u, v) else c
        g.add_edge(u, v, capacity=cap)
    return nx.maximum_flow_value(g, net.source, net.sink)


def _verify(net, r):
    ref = _reference(net)
    assert r.flow_value == ref, (r.variant, net)
    mf.check_flow(net, r.flow, r.flow_value, preflow=r.is_preflow)
    mf.check_cut(net, r.source_side, r.flow_value)


@pytest.mark.gpu
@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_gpu_against_scipy(variant, rng):
    kinds = set()
    for kind, net in random_cases(rng, 55):
        r = mf.solve(net, variant)
        _verify(net, r)
        kinds.add(kind)
    assert len(kinds) == 5


@pytest.mark.gpu
@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_gpu_families(variant):
    nets = [mf.genrmf(6, 5, seed=1), mf.washington_rlg(20, 12, seed=2), mf.vision_grid(24, 20, seed=3),
            mf.random_gnp(400, mf.report_density(400), seed=4), mf.random_gnp(300, 0.3, seed=5, directed=False)]
    for net in nets:
        _verify(net, mf.solve(net, variant))


@pytest.mark.gpu
@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_gpu_int64_capacities(variant):
    net = _int64_net()                      # beyond int32, so its reference comes from networkx
    r = mf.solve(net, variant)
    assert r.stats["cap_dtype"] == "int64"
    assert r.flow_value == _reference(net)
    mf.check_cut(net, r.source_side, r.flow_value)


@pytest.mark.gpu
@pytest.mark.parametrize("tile", [1, 4, 32])
def test_vertex_centric_options(tile):
    net = mf.genrmf(5, 6, seed=7)
    for alpha, its, ops in ((0.01, 1, 1), (0.5, 200, 4), (100.0, 100000, 64)):
        for inc in (False, True):
            r = mf.solve(net, "gpu_vertex_centric", tile=tile, gr_alpha=alpha, gr_max_iters=its, ops=ops,
                         incremental=inc)
            _verify(net, r)
        assert r.stats["global_relabels"] >= 1 and r.stats["tile"] == tile
    with pytest.raises(ValueError, match="tile"):
        mf.solve(net, "gpu_vertex_centric", tile=3)


@pytest.mark.gpu
@pytest.mark.parametrize("incremental", [False, True])
@pytest.mark.parametrize("bfs", ["levels", "levels_early_stop", "async", "local"])
def test_vertex_centric_queue_modes(incremental, bfs, rng):
    opts = dict(incremental=incremental, early_stop=bfs in ("levels_early_stop", "local"), async_bfs=bfs == "async",
                local_levels=mfgpu.LOCAL_LEVELS if bfs == "local" else 1)
    expanded = []
    for kind, net in random_cases(rng, 25):
        r = mf.solve(net, "gpu_vertex_centric", ops=1 + int(rng.integers(8)),
                     gr_alpha=float(rng.choice([0.01, 0.2, 2.0])), **opts)
        _verify(net, r)
        expanded.append(r.stats["bfs_expanded"])
    # the BFS by levels counts no expansions; the others do (none where every BFS ends at the sink's level)
    assert any(expanded) == (bfs in ("async", "local")) and (bfs in ("async", "local") or not any(expanded))
    big = mf.genrmf(12, 10, seed=int(rng.integers(1000)))
    _verify(big, mf.solve(big, "gpu_vertex_centric", **opts))


def _deep_networks(rng):
    """Fresh networks whose BFS is deep (genrmf), wide at the sink (a vision grid) and by levels (RLG)."""
    return [mf.genrmf(16, 12, seed=int(rng.integers(1000))), mf.vision_grid(40, 30, seed=int(rng.integers(1000))),
            mf.washington_rlg(30, 40, seed=int(rng.integers(1000)))]


@pytest.mark.gpu
@pytest.mark.parametrize("width", [1, 32, 256, 1024])
def test_vertex_centric_block_bfs(width, rng):
    # narrow BFS levels run by the first block alone, with and without the early stop, after an
    # overflowing asynchronous BFS too: the same flows and cuts as scipy's
    for kind, net in random_cases(rng, 20):
        opts = dict(early_stop=bool(rng.integers(2)), async_bfs=bool(rng.integers(2)),
                    block=int(rng.choice([256, 512, 1024])), incremental=bool(rng.integers(2)))
        r = mf.solve(net, "gpu_vertex_centric", block_bfs=width, local_levels=1, gr_alpha=float(rng.choice([0.01, 0.2])),
                     **opts)
        _verify(net, r)
        assert r.stats["block_bfs"] == width
    deep = _deep_networks(rng)
    for net in deep:
        for early in (True, False):
            r = mf.solve(net, "gpu_vertex_centric", block_bfs=width, local_levels=1, early_stop=early)
            _verify(net, r)
            assert 0 < r.stats["bfs_solo_levels"] <= r.stats["bfs_levels"]
    off = mf.solve(deep[0], "gpu_vertex_centric", block_bfs=0, local_levels=1)
    assert off.stats["bfs_solo_levels"] == 0
    for bad in (-1, mfgpu.SOLO_CAP + 1, 2.5, True):
        with pytest.raises(ValueError, match="block_bfs"):
            mf.solve(deep[0], "gpu_vertex_centric", block_bfs=bad, local_levels=1)


@pytest.mark.gpu
@pytest.mark.parametrize("levels", [2, 3, 8, 64])
def test_vertex_centric_local_levels(levels, rng, monkeypatch):
    # several BFS levels a block between grid barriers (labels lowered with atomicMin, a lowered
    # vertex expanded again): the same flows and cuts as scipy's, with every other option drawn
    for kind, net in random_cases(rng, 20):
        opts = dict(early_stop=bool(rng.integers(2)), async_bfs=bool(rng.integers(2)),
                    block=int(rng.choice([256, 512, 1024])), incremental=bool(rng.integers(2)),
                    tile=int(rng.choice([1, 4, 8, 32])))
        r = mf.solve(net, "gpu_vertex_centric", local_levels=levels, gr_alpha=float(rng.choice([0.01, 0.2])), **opts)
        _verify(net, r)
        assert r.stats["local_levels"] == levels
    deep = _deep_networks(rng)
    for net, early in itertools.product(deep, (True, False)):
        r = mf.solve(net, "gpu_vertex_centric", local_levels=levels, early_stop=early)
        _verify(net, r)
        assert r.stats["bfs_expanded"] > 0 and r.stats["bfs_levels"] > 0
    # time_levels: one (frontier, time) pair per grid step, each of up to `levels` levels
    r = mf.solve(deep[0], "gpu_vertex_centric", local_levels=levels, time_levels=True)
    _verify(deep[0], r)
    s = r.stats
    assert 0 < s["levels_clocked"] == s["levels_timed"] == len(s["level_us"]) <= s["bfs_levels"]
    assert (s["level_frontier"] >= 1).all() and (s["level_us"] > 0).all()
    # a global queue of 3 entries overflows at once: every relabel falls back to the BFS by levels
    monkeypatch.setattr(mfgpu, "_local_capacity", lambda q: 3)
    for net in deep:
        _verify(net, mf.solve(net, "gpu_vertex_centric", local_levels=levels))
    monkeypatch.undo()
    for bad in (0, -1, mfgpu.MAX_LOCAL_LEVELS + 1, 2.5, True):
        with pytest.raises(ValueError, match="local_levels"):
            mf.solve(deep[0], "gpu_vertex_centric", local_levels=bad)
    with pytest.raises(ValueError, match="block_bfs"):
        mf.solve(deep[0], "gpu_vertex_centric", local_levels=levels, block_bfs=64)


@pytest.mark.gpu
def test_vertex_centric_time_levels(rng):
    # the level clock: one (frontier, time) pair per level the grid ran, the same flows and cuts
    for net in [mf.genrmf(12, 10, seed=int(rng.integers(1000))), mf.vision_grid(30, 20, seed=int(rng.integers(1000)))] + \
            [n for _, n in random_cases(rng, 10)]:
        for width in (0, 64):
            r = mf.solve(net, "gpu_vertex_centric", time_levels=True, block_bfs=width, local_levels=1,
                         early_stop=bool(rng.integers(2)))
            _verify(net, r)
            s = r.stats
            assert s["levels_clocked"] == s["levels_timed"] == s["bfs_levels"] - s["bfs_solo_levels"]
            assert len(s["level_frontier"]) == len(s["level_us"]) == s["levels_timed"]
            assert (s["level_frontier"] >= 1).all() and (s["level_us"] > 0).all()
            assert s["level_us"].sum() <= 1e3 * s["kernel_ms"]
            if width == 0:
                assert s["level_frontier"][0] == 1            # every BFS starts from the sink alone
    plain = mf.solve(mf.genrmf(5, 5, seed=1), "gpu_vertex_centric")
    assert "level_us" not in plain.stats
    with pytest.raises(ValueError, match="time_levels"):
        mf.solve(mf.genrmf(5, 5, seed=1), "gpu_vertex_centric", time_levels=1)


@pytest.mark.gpu
def test_grid_barrier_microbenchmark():
    us = gpu.grid_barrier_us(iters=2000, reps=3)
    assert 0.05 < us < 100.0
    assert gpu.grid_barrier_us(threads=512, blocks_per_sm=2, iters=2000, reps=3) > 0


@pytest.mark.gpu
@pytest.mark.parametrize("block", [256, 512, 1024])
def test_vertex_centric_blocks_and_balance(block, rng):
    for kind, net in random_cases(rng, 10):
        for balance in (0.0, 0.3, 3.0):
            r = mf.solve(net, "gpu_vertex_centric", block=block, gr_balance=balance,
                         async_bfs=bool(rng.integers(2)), gr_max_iters=100000, gr_alpha=100.0)
            _verify(net, r)
            assert r.stats["launch"]["threads"] == block
    with pytest.raises(ValueError, match="block"):
        mf.solve(mf.genrmf(3, 3, seed=1), "gpu_vertex_centric", block=128)


@pytest.mark.gpu
def test_async_bfs_on_a_full_grid_of_blocks():
    # every block of the cooperative grid busy at once: after the asynchronous BFS the sweeps
    # gather into the queue straight away, so nothing else may write it then
    for seed in (1, 2):
        net = mf.genrmf(64, 20, seed=seed)   # more vertices than the grid has threads (132 SMs x 512)
        r = mf.solve(net, "gpu_vertex_centric", async_bfs=True)
        assert r.stats["launch"]["blocks"] == min(gpu.sm_count(), -(-net.n // mfgpu.BLOCK)) == gpu.sm_count()
        _verify(net, r)


@pytest.mark.gpu
def test_async_bfs_overflow_falls_back_to_levels(monkeypatch, rng):
    monkeypatch.setattr(mfgpu, "_async_capacity", lambda n: 3)   # the list overflows at once
    for i, net in enumerate([mf.genrmf(8, 6, seed=5), mf.vision_grid(20, 16, seed=6)] +
                            [n for _, n in random_cases(rng, 10)]):
        r = mf.solve(net, "gpu_vertex_centric", async_bfs=True)
        _verify(net, r)
        if i < 2:   # these sinks have many residual in-arcs: the list overflowed, levels ran
            assert r.stats["bfs_levels"] > 0


@pytest.mark.gpu
def test_thread_centric_short_cycles():
    net = mf.genrmf(4, 5, seed=2)
    for variant in ("gpu_matrix", "gpu_bcsr"):
        r = mf.solve(net, variant, cycle=1)
        _verify(net, r)
        assert r.stats["phases"] > 1


@pytest.mark.gpu
def test_launch_stays_coresident():
    kern = mfgpu._module(np.int32, 8).get_function("vertex_centric_kernel")
    blocks, threads, per_sm = mfgpu.launch_config(kern, 256, 10**9)
    assert blocks == per_sm * gpu.sm_count() and threads == 256
    assert mfgpu.launch_config(kern, 256, 10**9, 1)[0] == gpu.sm_count()
    net = mf.genrmf(5, 5, seed=3)
    for b in (1, 3):
        r = mf.solve(net, "gpu_vertex_centric", blocks_per_sm=b)
        _verify(net, r)
        assert r.stats["launch"]["blocks_per_sm"] <= b


def _int64_net():
    net = mf.from_edges(5, [0, 0, 1, 2, 3, 1], [1, 2, 3, 3, 4, 4], [2**40, 2**41, 2**40 + 5, 2**42, 2**43, 7])
    assert not net.fits_int32()
    return net


@pytest.mark.gpu
@pytest.mark.parametrize("upload", mfgpu.UPLOADS)
@pytest.mark.parametrize("variant", ["gpu_matrix", "gpu_bcsr"])
def test_host_memory_uploads(variant, upload, rng):
    # every kind of host memory, mapped included (the kernels then read and update the
    # residuals in host memory), gives scipy's value with a valid preflow and cut
    nets = [net for _, net in random_cases(rng, 20)] + [mf.genrmf(5, 4, seed=3), _int64_net()]
    for net in nets:
        r = mf.solve(net, variant, upload=upload)
        _verify(net, r)
        s = r.stats
        assert s["upload"] == upload and min(s["setup_ms"], s["transfer_ms"], s["launch_ms"], s["download_ms"]) >= 0
        assert s["prepare_ms"] == pytest.approx(s["setup_ms"] + s["transfer_ms"])
        assert s["launch_ms"] + s["download_ms"] <= 1.01 * s["exec_ms"] + 0.05
    r = mf.solve(mf.genrmf(4, 5, seed=2), variant, upload=upload, cycle=1)
    assert r.stats["phases"] > 1 and r.stats["launch_ms"] > 0


@pytest.mark.gpu
@pytest.mark.parametrize("rev_search", list(mfgpu.REV_SEARCH))
def test_reverse_arc_searches(rev_search, rng):
    nets = [net for _, net in random_cases(rng, 25)] + [
        mf.genrmf(5, 4, seed=3), mf.random_gnp(500, mf.report_density(500), seed=4, directed=False), _int64_net()]
    for net in nets:
        for cycle in (None, 3):
            r = mf.solve(net, "gpu_bcsr", rev_search=rev_search, cycle=cycle)
            _verify(net, r)
            assert r.stats["rev_search"] == rev_search


@pytest.mark.gpu
@pytest.mark.parametrize("tile", [None, 1, 32])
def test_bcsr_global_relabel_on_the_gpu(tile, rng):
    nets = [net for _, net in random_cases(rng, 25)] + [mf.genrmf(6, 5, seed=1), mf.washington_rlg(20, 12, seed=2),
                                                        _int64_net()]
    for net in nets:
        for cycle in (None, 1, 7):
            r = mf.solve(net, "gpu_bcsr", relabel="gpu", tile=tile, cycle=cycle)
            _verify(net, r)
            assert r.stats["relabel"] == "gpu" and r.stats["global_relabels"] >= 1
    r = mf.solve(mf.genrmf(4, 5, seed=2), "gpu_bcsr", relabel="gpu", tile=tile, cycle=1)
    assert r.stats["global_relabels"] > 1 and r.stats["bfs_levels"] >= r.stats["global_relabels"]


@pytest.mark.gpu
def test_bcsr_options_together(rng):
    for _, net in random_cases(rng, 15):
        for upload in ("pinned", "mapped"):
            _verify(net, mf.solve(net, "gpu_bcsr", upload=upload, relabel="gpu", rev_search="binary", cycle=5))


def test_matrix_refuses_large_graphs_with_estimate(monkeypatch):
    # the guard compares the estimate with the memory the GPU can give: 16 GiB here
    monkeypatch.setattr(gpu, "usable_bytes", lambda: 16 * 2**30)
    net = mf.random_gnp(70000, 1e-5, seed=1)
    need = mfgpu.gpu_bytes(net, "gpu_matrix")
    with pytest.raises(ValueError, match=rf"gpu_matrix on n=70,000 .* needs about {need / 2**30:.1f} GiB of GPU "
                                         r"memory and 16.0 GiB can be had now; .*gpu_bcsr.*force=True"):
        mfgpu.memory_guard(net, "gpu_matrix")
    mfgpu.memory_guard(net, "gpu_matrix", force=True)              # insisted: no refusal
    mfgpu.memory_guard(net, "gpu_bcsr")                            # O(n + m): fits


def test_gpu_bytes_estimates():
    small, big = mf.genrmf(8, 4, seed=1), mf.genrmf(16, 4, seed=1)
    for v in GPU_VARIANTS:
        assert 0 < mfgpu.gpu_bytes(small, v) < mfgpu.gpu_bytes(big, v)
    # the vertex-centric queues hold one (first, end) pair per arc: 16 bytes per arc for the two
    extra = mfgpu.gpu_bytes(big, "gpu_vertex_centric") - mfgpu.gpu_bytes(big, "gpu_bcsr")
    assert extra >= 16 * big.m
    assert mfgpu.gpu_bytes(big, "gpu_vertex_centric", async_bfs=True) >= \
        mfgpu.gpu_bytes(big, "gpu_vertex_centric") + 4 * 2 * big.n
    assert mfgpu.gpu_bytes(big, "gpu_matrix") == mfgpu.matrix_bytes(big) >= 4 * big.n ** 2
    # (b)'s GPU relabel adds the two BFS queues of (c)
    assert mfgpu.gpu_bytes(big, "gpu_bcsr", relabel="gpu") - mfgpu.gpu_bytes(big, "gpu_bcsr") >= 16 * big.m


@pytest.mark.gpu
@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_refused_when_the_gpu_memory_is_too_small(variant, monkeypatch):
    monkeypatch.setattr(mfgpu, "gpu_bytes", lambda net, v, *args, **kwargs: 2**50)
    net = mf.genrmf(3, 3, seed=1)
    with pytest.raises(ValueError, match=rf"{variant} on n=.* needs about 1\.0 PiB of GPU memory and .* GiB can be "
                                         r"had now; .*pass force=True"):
        mf.solve(net, variant)
    # force=True insists: the run then goes ahead on the real (small) arrays
    r = mf.solve(net, variant, force=True)
    _verify(net, r)


def test_gpu_variants_without_gpu():
    if gpu.available():
        pytest.skip("a GPU is present")
    net = mf.genrmf(2, 2, seed=1)
    for v in GPU_VARIANTS:
        with pytest.raises(gpu.GPUUnavailableError):
            mf.solve(net, v)


@pytest.mark.gpu
@pytest.mark.parametrize("tool", TOOLS)
def test_compute_sanitizer_clean(tool):
    sanitize(tool, __file__, "maxflow_sanitizer_cases.py")
