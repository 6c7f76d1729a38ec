"""The max-flow benchmark suite's own logic, on the CPU."""
import numpy as np
import pytest

from gpualgo import bench
from gpualgo import maxflow as mf
from gpualgo.maxflow import bench as mfbench
from gpualgo.maxflow import maxflow_gpu


def test_warm_up_builds_the_module_the_case_uses(monkeypatch):
    # the vertex-centric kernel is compiled per tile width: a warm-up with another width
    # leaves the compilation inside the first timed run
    calls = []
    monkeypatch.setattr(mfbench, "solve", lambda net, variant, **opts: calls.append((net, variant, opts)))
    for net in (mf.genrmf(8, 8, seed=1), mf.random_gnp(300, 0.2, seed=1)):
        calls.clear()
        mfbench._warm("gpu_vertex_centric", net)
        (tiny, variant, opts), = calls
        assert variant == "gpu_vertex_centric" and opts["tile"] == maxflow_gpu.default_tile(net)
        assert tiny.fits_int32() == net.fits_int32()
    assert maxflow_gpu.default_tile(mf.genrmf(8, 8, seed=1)) != maxflow_gpu.default_tile(mf.genrmf(2, 2, seed=0))
    calls.clear()
    big = mf.from_edges(3, [0, 1], [1, 2], [2**40, 2**40])
    mfbench._warm("serial", big)
    assert not calls[0][0].fits_int32() and calls[0][2] == {}


def test_case_reference_prefers_scipy_then_peers():
    rows = [dict(solver="serial", flow_value=5), dict(solver="igraph", flow_value=6),
            dict(solver="scipy_dinic", flow_value=7)]
    assert mfbench.case_reference(rows) == 7
    assert mfbench.case_reference(rows[:2]) == 6
    assert mfbench.case_reference(rows[:1]) == 5
    assert mfbench.case_reference([]) is None


def test_cpu_preset_quick_rows_are_verified():
    rows = bench.run_preset("maxflow", "cpu", quick=True, progress=False)
    assert rows and all(r["verified"] for r in rows)
    for label in {(r["family"], r["size"]) for r in rows}:
        sel = [r for r in rows if (r["family"], r["size"]) == label]
        net = mfbench.family_instance(sel[0]["family"], mfbench.parse_size(sel[0]["size"]), sel[0]["seed"])
        assert {r["flow_value"] for r in sel} == {mf.reference_value(net)}
        assert {r["reference_value"] for r in sel} == {mf.reference_value(net)}
        assert "serial" in {r["solver"] for r in sel}


def test_targets_cases_on_the_cpu_check_every_row_against_one_reference():
    # the targets preset needs a GPU; its cases with gpu=False run the serial version instead
    p = dict(mfbench.PRESETS["targets"].params, quick=True, gpu=False)
    for case in mfbench._targets_cases(p):
        rows = case.run()
        ref = mf.reference_value(mf.genrmf(*mfbench.parse_size(rows[0]["size"]), seed=p["seed"]))
        assert rows[0]["solver"] == "serial" and all(r["verified"] for r in rows)
        assert {r["reference_value"] for r in rows} == {r["flow_value"] for r in rows} == {ref}
        assert [r["rep"] for r in rows if r["solver"] == "serial"] == [0]
        peers = [r for r in rows if r["kind"] == "peer"]
        assert all(r["fastest_peer_ms"] == min(x["exec_ms"] for x in peers) for r in rows) if peers else True


def test_tuning_lists_the_defaults_first_and_every_option_of_solve():
    import inspect
    from gpualgo.maxflow import maxflow_gpu
    from gpualgo.maxflow.solve import _OPTIONS
    defaults = {k: p.default for k, p in inspect.signature(maxflow_gpu._vertex_centric).parameters.items()
                if p.default is not inspect.Parameter.empty}
    defaults["tile"] = maxflow_gpu.default_tile(mf.genrmf(8, 8, seed=1))   # tile=None: from the degree
    configs = [mfbench._options(c) for c in mfbench.TUNING_CONFIGS]
    first = configs[0]
    assert first and all(defaults[k] == v for k, v in first.items()), (first, defaults)
    assert len(set(map(str, configs))) == len(configs)           # no configuration twice
    varied = {k for c in configs for k, v in c.items() if first.get(k, defaults[k]) != v}
    assert varied <= _OPTIONS["gpu_vertex_centric"]
    assert {"gr_alpha", "gr_max_iters", "async_bfs", "early_stop", "block", "ops", "tile"} <= varied
