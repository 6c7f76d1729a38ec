"""The max-flow benchmark suite's own logic, on the CPU."""
import pytest

from gpualgo import bench, gpu
from gpualgo import maxflow as mf
from gpualgo.maxflow import bench as mfbench
from gpualgo.maxflow import gpu as mfgpu


def test_warm_up_builds_the_module_the_case_uses(monkeypatch):
    # the vertex-centric kernel is compiled per tile width: a warm-up with another width
    # leaves the compilation inside the first timed run
    calls = []
    monkeypatch.setattr(mfbench, "solve", lambda net, variant, **opts: calls.append((net, variant, opts)))
    monkeypatch.setattr(gpu, "available", lambda: True)    # bench.warm_up skips GPU versions without one
    monkeypatch.setattr(gpu, "warm_uploads", lambda: 0.0)
    for net in (mf.genrmf(8, 8, seed=1), mf.random_gnp(300, 0.2, seed=1)):
        calls.clear()
        mfbench.warm("gpu_vertex_centric", net)
        (tiny, variant, opts), full = calls
        assert variant == "gpu_vertex_centric" and opts["tile"] == mfgpu.default_tile(net)
        assert tiny.fits_int32() == net.fits_int32() and tiny.n < net.n
        # then the case's own network once, with the same options: the memory pool at full size
        assert full == (net, "gpu_vertex_centric", opts)
        calls.clear()
        mfbench.warm("gpu_vertex_centric", net, tile=32)
        assert calls[0][2] == {"tile": 32} and calls[1] == (net, "gpu_vertex_centric", {"tile": 32})
    assert mfgpu.default_tile(mf.genrmf(8, 8, seed=1)) != mfgpu.default_tile(mf.genrmf(2, 2, seed=0))
    calls.clear()
    big = mf.from_edges(3, [0, 1], [1, 2], [2**40, 2**40])
    mfbench.warm("serial", big)
    (tiny, variant, opts), = calls               # a serial version: compiled, nothing to allocate
    assert not tiny.fits_int32() and opts == {}


def test_case_reference_prefers_scipy_then_peers_then_a_certified_value():
    rows = [dict(variant="serial", objective=5, certified=True), dict(variant="igraph", objective=6),
            dict(variant="scipy_dinic", objective=7)]
    assert mfbench.case_reference(rows) == 7
    assert mfbench.case_reference(rows[:2]) == 6
    assert mfbench.case_reference(rows[:1]) == 5
    assert mfbench.case_reference([]) is None
    # no row is its own reference
    assert mfbench.case_reference(rows, skip="scipy_dinic") == 6
    assert mfbench.case_reference(rows[:1], skip="serial") is None
    assert mfbench.case_reference([dict(variant="serial", objective=5, certified=False)]) is None


def test_verify_checks_every_row_against_another_solver():
    def ours(v, value, cert=True):
        return dict(variant=v, objective=value, certified=cert, kind="serial")

    def peer(v, value):
        return dict(variant=v, objective=value, kind="peer")
    rows = mfbench.verify([ours("serial", 7), peer("scipy_dinic", 7), peer("igraph", 7)])
    assert [r["verified"] for r in rows] == [True, True, True]
    assert rows[1]["reference_value"] == 7          # scipy against igraph, not against itself
    rows = mfbench.verify([ours("serial", 7), peer("scipy_dinic", 8)])
    assert [r["verified"] for r in rows] == [False, False]
    rows = mfbench.verify([ours("serial", 7, cert=False), peer("scipy_dinic", 7)])
    assert [r["verified"] for r in rows] == [False, None]     # an uncertified value is no reference
    assert mfbench.verify([peer("scipy_dinic", 7)])[0]["verified"] is None      # nothing to compare with
    assert mfbench.verify([ours("gpu_bcsr", 7)])[0]["verified"] is True          # its certificate alone


def test_cpu_preset_quick_rows_are_verified():
    rows = bench.run_preset("maxflow", "cpu", quick=True, progress=False)
    assert rows and all(r["verified"] for r in rows)
    for r in rows:
        assert set(bench.ROW_COLUMNS) <= set(r), set(bench.ROW_COLUMNS) - set(r)
        assert "solver" not in r and "flow_value" not in r
        if r["kind"] == "peer":   # the graph building and the solve call, apart
            assert r["prepare_ms"] >= 0 and r["exec_ms"] >= 0
            assert r["total_ms"] == pytest.approx(r["prepare_ms"] + r["exec_ms"])
        else:
            assert r["certified"] and r["device"] == gpu.cpu_label()
    for label in {(r["family"], r["size"]) for r in rows}:
        sel = [r for r in rows if (r["family"], r["size"]) == label]
        net = mfbench.family_instance(sel[0]["family"], mfbench.parse_size(sel[0]["size"]), sel[0]["seed"])
        assert {r["objective"] for r in sel} == {mf.reference_value(net)}
        assert {r["reference_value"] for r in sel} == {mf.reference_value(net)}
        assert "serial" in {r["variant"] for r in sel}


def test_quick_values_are_the_presets_data():
    # every preset's tiny sizes are parameter values, applied by quick=True (an override still wins)
    for name, preset in mfbench.PRESETS.items():
        assert preset.quick, name
        params = bench._params(preset, {"quick": True})
        assert all(params[k] == v for k, v in preset.quick.items())
    assert bench._params(mfbench.PRESETS["report"], {"quick": True})["sizes"] == [50, 200]
    assert bench._params(mfbench.PRESETS["report"], {"quick": True, "reps": 3})["reps"] == 3
    cases = list(mfbench.PRESETS["peers"].cases(bench._params(mfbench.PRESETS["peers"], {"quick": True, "gpu": False})))
    assert [c.label for c in cases] == ["genrmf (4, 4)", "genrmf (6, 6)", "washington (16, 16)", "grid (16, 16)"]


def test_targets_cases_on_the_cpu_check_every_row_against_one_reference():
    # the targets preset needs a GPU; its cases with gpu=False run the serial version instead
    p = bench._params(mfbench.PRESETS["targets"], {"quick": True, "gpu": False})
    for case in mfbench._targets_cases(p):
        rows = case.run()
        ref = mf.reference_value(mf.genrmf(*mfbench.parse_size(rows[0]["size"]), seed=p["seed"]))
        assert rows[0]["variant"] == "serial" and all(r["verified"] for r in rows)
        assert {r["reference_value"] for r in rows} == {r["objective"] for r in rows} == {ref}
        assert [r["rep"] for r in rows if r["variant"] == "serial"] == [0]
        peers = [r for r in rows if r["kind"] == "peer"]
        assert all(r["fastest_peer_ms"] == min(x["exec_ms"] for x in peers) for r in rows) if peers else True


def test_run_peer_rows_name_the_library():
    net = mf.genrmf(3, 3, seed=2)
    row = mfbench.run_peer("scipy_dinic", net, rep=2, family="genrmf")
    assert row["variant"] == "scipy_dinic" and row["rep"] == 2 and row["objective"] == mf.reference_value(net)
    assert row["device"].startswith("CPU ") and "scipy" in row["device"] and row["kernel_ms"] is None
    with pytest.raises(ValueError, match="unknown peer"):
        mfbench.run_peer("scipy_magic", net)


def test_tuning_lists_the_defaults_first_and_every_option_of_solve():
    import inspect
    defaults = {k: p.default for k, p in inspect.signature(mfgpu.gpu_vertex_centric).parameters.items()
                if p.default is not inspect.Parameter.empty}
    defaults["tile"] = mfgpu.default_tile(mf.genrmf(8, 8, seed=1))   # tile=None: from the degree
    configs = [mfbench.parse_options(c) for c in mfbench.TUNING_CONFIGS]
    first = configs[0]
    assert first and all(defaults[k] == v for k, v in first.items()), (first, defaults)
    assert len(set(map(str, configs))) == len(configs)           # no configuration twice
    varied = {k for c in configs for k, v in c.items() if first.get(k, defaults[k]) != v}
    assert varied <= mf.VARIANTS["gpu_vertex_centric"].options
    assert {"gr_alpha", "gr_max_iters", "async_bfs", "early_stop", "block", "ops", "tile"} <= varied


@pytest.mark.parametrize("preset", ["report", "peers"])
def test_gpu_presets_quick_on_the_cpu_rows_are_verified(preset):
    # the GPU presets' cases with gpu=False: the serial version and the peers, on the quick sizes
    p = bench._params(mfbench.PRESETS[preset], {"quick": True, "gpu": False})
    rows = [r for case in mfbench.PRESETS[preset].cases(p) for r in case.run()]
    assert rows and all(r["verified"] is True for r in rows)
    assert {r["variant"] for r in rows} >= {"serial", "scipy_dinic"}
    assert {r["n"] for r in rows if r["family"] != "gnp" or r["experiment"] == "size"} <= \
        {50, 200, 4 * 4 * 4, 6 * 6 * 6, 16 * 16 + 2}
    for r in rows:
        assert list(r)[list(r).index("variant"):][:len(bench.ROW_COLUMNS)] == list(bench.ROW_COLUMNS)


def test_level_rows_group_the_timed_levels_by_frontier():
    import numpy as np

    class Timed:          # a vertex-centric result's stats with the level clock
        variant, objective = "gpu_vertex_centric", 7
        stats = dict(total_ms=5.0, prepare_ms=1.0, exec_ms=4.0, kernel_ms=3.9, device="GPU", gr_ms=2.0, pr_ms=1.9,
                     bfs_levels=6, global_relabels=2, levels_timed=6, levels_clocked=6, tile=8,
                     launch=dict(blocks=132, threads=256, blocks_per_sm=1),
                     level_frontier=np.array([1, 70, 70, 2000, 5000, 1]), level_us=np.array([3.0, 3.5, 3.3, 4.0, 6.0, 2.9]))
    rows = mfbench.level_rows(Timed(), rep=0, verified=True, size="8x8")
    assert [(r["frontier_lo"], r["levels"]) for r in rows] == [(1, 2), (65, 2), (1025, 1), (4097, 1)]
    assert sum(r["levels"] for r in rows) == 6 and abs(sum(r["share"] for r in rows) - 1) < 1e-12
    assert rows[1]["median_us"] == 3.4 and rows[0]["ms"] == (3.0 + 2.9) / 1e3
    assert all(r["tiles"] == 132 * 256 // 8 and r["size"] == "8x8" and r["verified"] for r in rows)
    from gpualgo.maxflow import analysis
    lines = analysis.level_widths([dict(r, barrier_us=1.1) for r in rows])
    assert len(lines) == 1 + len(rows) and "1.10 us" in lines[0]
    assert analysis.level_flatness(rows) == {"8x8": (2.95, 4.0)}
    assert mfbench.PRESETS["levels"].needs_gpu and mfbench.LEVEL_BUCKETS[0][0] == 1
    with pytest.raises(ValueError, match="time_levels"):          # refused before a GPU is asked for
        mfbench.check_solve("gpu_vertex_centric", time_levels="yes")
    assert all(a[1] + 1 == b[0] for a, b in zip(mfbench.LEVEL_BUCKETS, mfbench.LEVEL_BUCKETS[1:]))


def test_serial_heuristics_quick_rows_are_verified_and_capped():
    p = bench._params(mfbench.PRESETS["serial_heuristics"], {"quick": True})
    assert not mfbench.PRESETS["serial_heuristics"].needs_gpu
    rows = [r for case in mfbench.PRESETS["serial_heuristics"].cases(dict(p, plain_max=50, scan_max=50))
            for r in case.run()]
    assert rows and all(r["verified"] is True for r in rows)
    flow = [r for r in rows if r["step"] == "flow"]
    cut = [r for r in rows if r["step"] == "cut"]
    assert {r["heuristics"] for r in flow} == set(mfbench.HEURISTICS)
    assert {r["variant"] for r in cut} == {"cut_heights", "cut_bfs", "cut_scan"}
    assert all(r["n"] <= 50 for r in flow if not r["global_relabel"])       # plain_max caps the runs without it
    assert all(r["n"] <= 50 for r in cut if r["variant"] == "cut_scan")
    assert {r["family"] for r in rows} == {"gnp", "genrmf"} and {r["experiment"] for r in rows} >= {"size", "density"}
    for r in rows:
        assert r["objective"] == r["reference_value"] and r["device"] == gpu.cpu_label()
        assert list(r)[list(r).index("variant"):][:len(bench.ROW_COLUMNS)] == list(bench.ROW_COLUMNS)


def test_serial_heuristics_refuses_a_plain_run_too_long_before_the_first_case(monkeypatch, host16):
    calls = []
    p = mfbench.PRESETS["serial_heuristics"]
    original = p.cases
    monkeypatch.setattr(p, "cases", lambda params: [bench.Case(c.label, lambda c=c: calls.append(c.label) or [],
                                                               c.check) for c in original(params)])
    # the plain runs (no global relabel) are refused at n = 100,000 (about 80 min), not the others
    with pytest.raises(ValueError, match=r"case 'directed n=100000' is refused before the sweep starts: "
                                         r"push-relabel without the global relabel on n=100,000, m=\d"):
        bench.run_preset("maxflow", "serial_heuristics", progress=False, sizes=[100, 100_000], plain_max=10**6)
    assert calls == []
    bench.run_preset("maxflow", "serial_heuristics", progress=False, sizes=[100, 100_000], densities=[0.5],
                     genrmf=["4x4"])
    assert calls[:4] == ["directed n=100", "undirected n=100", "directed n=100000", "undirected n=100000"]
    # the generators' own limits, before any case: vertex ids are int32
    calls.clear()
    with pytest.raises(ValueError, match=r"case 'genrmf 2048x2048' is refused .* vertex ids are stored as int32"):
        bench.run_preset("maxflow", "serial_heuristics", progress=False, genrmf=["4x4", "2048x2048"])
    assert calls == []


@pytest.mark.parametrize("preset", ["host_memory", "reverse_arcs", "matrix_large"])
def test_new_presets_cases_are_checked_and_bad_options_refused(preset):
    p = mfbench.PRESETS[preset]
    for quick in (False, True):
        params = dict(p.params, **(p.quick if quick else {}))
        cases = list(p.cases(params))
        assert cases and len({c.label for c in cases}) == len(cases)
        for c in cases:
            c.check()
    if preset == "host_memory":
        bad = dict(p.params, uploads=["pageable", "zero-copy"])
        with pytest.raises(ValueError, match="upload must be one of"):
            next(iter(p.cases(bad))).check()
    if preset == "reverse_arcs":
        with pytest.raises(ValueError, match="rev_search must be one of"):
            next(iter(p.cases(dict(p.params, searches=["hash"])))).check()


def test_host_memory_configurations():
    p = mfbench.PRESETS["host_memory"].params
    small, large = mfbench._configs(p, 100), mfbench._configs(p, 10000)
    assert [c for c in large if c[0] == "gpu_matrix"] == []
    assert {o["upload"] for v, o in small if v == "gpu_matrix"} == set(mfgpu.UPLOADS)
    assert ("gpu_bcsr", {"upload": "auto", "relabel": "gpu"}) in large
    assert {o["upload"] for v, o in large if o.get("relabel") == "host"} == set(mfgpu.UPLOADS)
    assert mfbench.config_label("gpu_bcsr", {"upload": "pinned", "relabel": "host"}) == \
        "gpu_bcsr upload=pinned,relabel=host"
    assert mfbench.config_label("gpu_matrix", {}) == "gpu_matrix"


def test_measure_configs_rows_are_checked_against_scipy(monkeypatch):
    # the GPU run replaced by the serial one with the split times a GPU run reports
    def fake_solve(net, variant, **options):
        r = mf.solve(net, "serial")
        r.stats.update(setup_ms=0.1, transfer_ms=0.2, launch_ms=0.3, download_ms=0.05, bfs_levels=None)
        return r
    monkeypatch.setattr(mfbench, "solve", fake_solve)
    monkeypatch.setattr(mfbench, "warm", lambda *a, **k: None)
    net = mf.random_gnp(80, 0.1, seed=2)
    configs = [("gpu_bcsr", {"upload": "pinned", "relabel": "host"}), ("gpu_matrix", {"upload": "mapped"})]
    rows = mfbench.measure_configs("gnp", dict(density=0.1, directed=True), net, configs, 2, 2)
    assert [r["config"] for r in rows] == ["gpu_bcsr upload=pinned,relabel=host"] * 2 + \
        ["gpu_matrix upload=mapped"] * 2 + ["scipy_dinic"]
    assert all(r["verified"] for r in rows) and {r["reference_value"] for r in rows} == {mf.reference_value(net)}
    assert rows[0]["upload"] == "pinned" and rows[0]["relabel"] == "host" and rows[0]["transfer_ms"] == 0.2
    assert [r["rep"] for r in rows[:4]] == [0, 1, 0, 1]


def test_relabel_statement_and_upload_table():
    from gpualgo.maxflow import analysis

    def rows(host_ms, gpu_ms):
        return [dict(variant="gpu_bcsr", upload="auto", relabel=r, family="genrmf", size="16x16", n=4096,
                     exec_ms=ms, gr_ms=g, global_relabels=4) for r, ms, g in (("host", host_ms, 2.0),
                                                                              ("gpu", gpu_ms, 0.5))]
    fast = analysis.relabel_statement(rows(40.0, 10.0))
    assert "genrmf 16x16: 40.0 ms with the host BFS (5% in 4 global relabels), 10.0 ms with the GPU BFS" in fast
    assert fast.endswith("speeds the same sweeps up 4.00x.")
    assert analysis.relabel_statement(rows(40.0, 38.0)).endswith("by less than 1.5x (1.05x).")
    both = rows(40.0, 10.0) + [dict(r, size="32x32") for r in rows(40.0, 50.0)]
    assert analysis.relabel_statement(both).endswith("on some instances only (0.80x to 4.00x).")
    assert analysis.relabel_statement(rows(40.0, 38.0)[:1]) == ""
    split = [dict(variant=v, upload=u, n=100, setup_ms=1.0, transfer_ms=2.0, launch_ms=3.0, download_ms=0.5,
                  exec_ms=5.0, total_ms=8.0) for v in ("gpu_matrix", "gpu_bcsr") for u in ("pageable", "mapped")]
    table = analysis.upload_table(split).splitlines()
    assert len(table) == 4 and table[0].startswith("gpu_matrix  n=    100 pageable")
    assert "other    1.5 ms" in table[0] and "total    8.0 ms" in table[0]
