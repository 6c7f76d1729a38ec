import pytest

from gpualgo import nbtools


def _sample():
    """A docstring."""
    return 42


def test_kernel_text_extracts_one_function_with_its_comment():
    text = nbtools.kernel_text("common.cuh", "top2_merge")
    assert text.startswith("// Merge two (best, second, idx) triples")
    assert "__device__ __forceinline__ void top2_merge" in text
    assert text.rstrip().endswith("}") and "warp_top2" not in text


def test_kernel_text_unknown_kernel():
    with pytest.raises(ValueError, match="not defined"):
        nbtools.kernel_text("common.cuh", "no_such_kernel")


def test_show_source_of_python_function():
    code = nbtools.show_source(_sample)
    text = getattr(code, "data", code)
    assert "def _sample" in text and "return 42" in text


def test_banner_says_where_results_come_from():
    text = nbtools.banner_text()
    assert text.startswith("**GPU found") or "No GPU found" in text


def test_interact_off_prints_and_returns_none(capsys):
    assert nbtools.interact(lambda n: n, False, n=3) is None
    assert "Sliders are off" in capsys.readouterr().out


def test_gpu_version_without_gpu_shows_its_recorded_counters(monkeypatch, tmp_path, capsys):
    from gpualgo import gpu, results
    monkeypatch.setattr(gpu, "available", lambda: False)
    rows = [dict(variant="gpu_x", n=n, rep=k, total_ms=float(n + k), kernel_ms=1.0, rounds=10 * n + k)
            for n in (8, 16) for k in range(3)] + [dict(variant="gpu_x", n=8, rep=9, total_ms=1e9, timeout=1)]
    results.write(tmp_path / "demo", "sweep", rows, params={})
    monkeypatch.setattr(results, "RESULTS_DIR", tmp_path)

    def never(*a, **k):
        raise AssertionError("a GPU version ran without a GPU")
    assert nbtools.run_and_check(never, None, "gpu_x", never, show=("rounds",), recorded_in="demo/sweep") is None
    out = capsys.readouterr().out
    assert "gpu_x: no GPU here" in out
    # the smallest size by default, its median, the timed-out run left out
    assert "(demo/sweep, n=8; median of 3 runs): total_ms 9; kernel_ms 1; rounds 81" in out
    line = nbtools.recorded_line("demo/sweep", "gpu_x", ("rounds", "absent"), {"n": 16})
    assert line.endswith("(demo/sweep, n=16; median of 3 runs): total_ms 17; kernel_ms 1; rounds 161")
    assert "no recorded runs of gpu_y" in nbtools.recorded_line("demo/sweep", "gpu_y")
    assert "no recorded runs of gpu_x in demo/none" in nbtools.recorded_line("demo/none", "gpu_x")


def test_check_parameters_by_type_and_rule():
    from gpualgo import guards
    ns = {"__annotations__": {"n": int, "x": float, "on": bool, "name": str}, "n": 5, "x": 1, "on": True,
          "name": "geom"}
    nbtools.check_parameters(ns, n=(1, 5), x=(0, None))
    for key, bad, msg in [("n", "5", r"'n' is declared int, got '5' \(str\)"), ("n", True, "declared int, got True"),
                          ("n", 2.0, "declared int, got 2.0"), ("x", "1", "declared float"),
                          ("on", 1, "declared bool, got 1"), ("name", 3, "declared str")]:
        with pytest.raises(ValueError, match=msg):
            nbtools.check_parameters({**ns, key: bad})
    with pytest.raises(ValueError, match=r"parameter 'n' must be in 1..4, got 5"):
        nbtools.check_parameters(ns, n=(1, 4))
    with pytest.raises(ValueError, match=r"parameter 'n' must be at most 3, got 5"):
        nbtools.check_parameters(ns, n=(None, 3))
    with pytest.raises(ValueError, match=r"block must be a multiple of 32 in 32..1024, got 100"):
        nbtools.check_parameters({**ns, "block": 100}, block=guards.threads)
    nbtools.check_parameters({**ns, "block": 96}, block=guards.threads)
