"""Small cases for compute-sanitizer: every GPU variant and the vertex-centric options."""
import numpy as np
from gpualgo import maxflow as mf
from gpualgo.maxflow import gpu as mfgpu
nets = [mf.genrmf(3, 3, seed=1), mf.random_gnp(40, 0.2, seed=2), mf.random_gnp(30, 0.3, seed=3, directed=False),
        mf.vision_grid(6, 5, seed=4)]
for net in nets:
    ref = mf.reference_value(net)
    for v in ("gpu_matrix", "gpu_bcsr"):
        for upload in mfgpu.UPLOADS:
            assert mf.solve(net, v, upload=upload, cycle=4).flow_value == ref
    for opts in (dict(rev_search="linear"), dict(rev_search="binary"), dict(relabel="gpu"),
                 dict(relabel="gpu", tile=32, cycle=2)):
        assert mf.solve(net, "gpu_bcsr", **opts).flow_value == ref, opts
    for opts in (dict(), dict(async_bfs=True), dict(async_bfs=False, early_stop=True), dict(block=1024, async_bfs=True),
                 dict(gr_balance=1.0, async_bfs=True, incremental=False, ops=1), dict(tile=32, async_bfs=True),
                 dict(block_bfs=256, local_levels=1), dict(block_bfs=1, early_stop=False, local_levels=1),
                 dict(block_bfs=1024, block=512, local_levels=1), dict(time_levels=True, local_levels=1),
                 dict(time_levels=True, block_bfs=8, early_stop=False, local_levels=1), dict(local_levels=2),
                 dict(local_levels=3, early_stop=False, tile=4), dict(local_levels=64, block=1024),
                 dict(local_levels=8, async_bfs=True), dict(time_levels=True, local_levels=5)):
        r = mf.solve(net, "gpu_vertex_centric", **opts)
        assert r.flow_value == ref, (opts, r.flow_value, ref)
        mf.check_cut(net, r.source_side, r.flow_value)
mfgpu._async_capacity = lambda n: 3
r = mf.solve(nets[0], "gpu_vertex_centric", async_bfs=True)
assert r.flow_value == mf.reference_value(nets[0])
mfgpu._local_capacity = lambda q: 2       # the BFS with local levels gives way to the BFS by levels
for net in nets:
    assert mf.solve(net, "gpu_vertex_centric").flow_value == mf.reference_value(net)
print("sanitizer cases ok")
