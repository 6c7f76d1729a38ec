import sys
import types

import pytest

from gpualgo import bench, gpu, results


@pytest.fixture
def toy_suite(monkeypatch):
    """A CPU-only suite registered under the name 'toy'."""
    mod = types.ModuleType("toy_suite")

    def cases(p):
        for n in p["sizes"]:
            yield bench.Case(f"n={n}", lambda n=n: [{"n": n, "square": n * n, "quick": p["quick"]}])

    mod.PRESETS = {
        "squares": bench.Preset("squares of sizes", {"sizes": [1, 2, 3]}, cases, needs_gpu=False),
        "needs": bench.Preset("needs a GPU", {"sizes": [1]}, cases, needs_gpu=True),
    }
    monkeypatch.setitem(sys.modules, "toy_suite", mod)
    monkeypatch.setitem(bench.SUITES, "toy", "toy_suite")
    return mod


def test_run_preset_with_overrides(toy_suite, tmp_path):
    rows = bench.run_preset("toy", "squares", out=tmp_path, progress=False, sizes=[4, 5], quick=True)
    assert rows == [{"n": 4, "square": 16, "quick": True}, {"n": 5, "square": 25, "quick": True}]
    rec = results.read(tmp_path, "squares")
    assert rec.rows == rows and rec.meta["params"]["sizes"] == [4, 5]
    assert rec.meta["progress"] == {"cases_done": 2, "cases": 2, "complete": True}


def test_interrupted_sweep_keeps_its_rows(toy_suite, tmp_path):
    def cases(p):
        yield bench.Case("ok", lambda: [{"n": 1}])
        yield bench.Case("boom", lambda: 1 / 0)
    toy_suite.PRESETS["boom"] = bench.Preset("fails half way", {}, cases, needs_gpu=False)
    with pytest.raises(ZeroDivisionError):
        bench.run_preset("toy", "boom", out=tmp_path, progress=False)
    rec = results.read(tmp_path, "boom")
    assert rec.rows == [{"n": 1}] and rec.meta["progress"]["complete"] is False
    assert "[partial: 1 of 2 cases]" in rec.source()


def test_unknown_names_are_clear_errors(toy_suite):
    with pytest.raises(ValueError, match="unknown algorithm 'nope'"):
        bench.run_preset("nope", "squares")
    with pytest.raises(ValueError, match="unknown preset 'cubes'"):
        bench.run_preset("toy", "cubes")
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['size'\]"):
        bench.run_preset("toy", "squares", size=3)


def test_cli_writes_results(toy_suite, tmp_path, capsys):
    rc = bench.main(["toy", "--preset", "squares", "--out", str(tmp_path), "--set", "sizes=7,8"])
    assert rc == 0
    assert [r["square"] for r in results.read(tmp_path, "squares").rows] == [49, 64]
    assert bench.main(["toy", "--preset", "squares", "--set", "bad=1"]) == 2
    assert "unknown parameter" in capsys.readouterr().err


@pytest.mark.skipif(gpu.available(), reason="checks the no-GPU path")
def test_live_or_recorded_without_gpu(toy_suite, tmp_path, monkeypatch):
    rows, src = bench.live_or_recorded("toy", "squares", progress=False)
    assert len(rows) == 3 and "measured now" in src  # needs no GPU: runs live
    monkeypatch.setattr(results, "RESULTS_DIR", tmp_path)
    rows, src = bench.live_or_recorded("toy", "needs")
    assert rows == [] and "no recorded GPU results yet" in src
    results.write(tmp_path / "toy", "needs", [{"n": 1, "square": 1}], {"sizes": [1]})
    rows, src = bench.live_or_recorded("toy", "needs")
    assert rows == [{"n": 1, "square": 1}] and src.startswith("No GPU found here: these results were recorded on")
    with pytest.raises(gpu.GPUUnavailableError):
        bench.run_preset("toy", "needs", progress=False)


def test_every_registered_suite_imports_and_has_presets():
    for algo, module in bench.SUITES.items():
        try:
            table = bench.presets(algo)
        except ModuleNotFoundError as exc:  # a suite whose package is not written yet
            assert exc.name and exc.name.startswith("gpualgo."), exc
            continue
        assert table, algo
        for name, p in table.items():
            assert isinstance(p, bench.Preset) and p.description


def test_overrides_take_the_type_of_the_default(toy_suite):
    toy_suite.PRESETS["typed"] = bench.Preset("typed", dict(sizes=[1, 2], dens=[0.5, 1.0], reps=3, eps=0.5,
                                                            gpu=True, name="a", names=["x"]),
                                              lambda p: [], needs_gpu=False)
    p = bench._params(toy_suite.PRESETS["typed"], dict(sizes=8192, dens=1, reps=4.0, eps=2, gpu="no",
                                                      name="b", names="y", quick=1))
    assert p == dict(sizes=[8192], dens=[1.0], reps=4, eps=2.0, gpu=False, name="b", names=["y"], quick=True)
    assert type(p["eps"]) is float and type(p["reps"]) is int and type(p["dens"][0]) is float
    for flag, want in (("True", True), ("off", False), (0, False), ("YES", True)):
        assert bench._params(toy_suite.PRESETS["typed"], {"gpu": flag})["gpu"] is want
    for name, value in (("sizes", "abc"), ("sizes", [1, "a"]), ("sizes", 2.5), ("reps", [1, 2]), ("reps", "3"),
                        ("reps", True), ("eps", "x"), ("gpu", "maybe"), ("gpu", 2), ("name", 1), ("names", [1])):
        with pytest.raises(ValueError, match=f"parameter '{name}' takes"):
            bench._params(toy_suite.PRESETS["typed"], {name: value})


def test_cli_single_value_for_a_list_and_a_bad_value(toy_suite, tmp_path, capsys):
    assert bench.main(["toy", "--preset", "squares", "--out", str(tmp_path), "--set", "sizes=7"]) == 0
    assert [r["square"] for r in results.read(tmp_path, "squares").rows] == [49]
    assert bench.main(["toy", "--preset", "squares", "--set", "sizes=seven"]) == 2
    assert "parameter 'sizes' takes a list of int" in capsys.readouterr().err


def _valid_and_invalid(default):
    """A valid single value with what it must become, and a value of the wrong type."""
    kind = bench._kind(default)
    if kind.startswith("list of "):
        return default[0], [default[0]], ("maybe" if kind != "list of str" else 3.5)
    if kind == "bool":
        return (not default), (not default), "maybe"
    if kind == "float":
        return int(default), float(int(default)), "abc"
    if kind == "int":
        return default, default, [default, default]
    if kind == "str":
        return default, default, [1.5]
    raise AssertionError(f"a default without a checkable type: {default!r} ({kind})")


@pytest.mark.parametrize("algo", sorted(bench.SUITES))
def test_every_preset_parameter_takes_a_single_value_and_rejects_a_wrong_type(algo):
    table = bench.presets(algo)
    for preset_name, preset in table.items():
        for name, default in dict(preset.params, quick=False).items():
            single, want, wrong = _valid_and_invalid(default)
            where = f"{algo}/{preset_name} {name}={single!r}"
            got = bench._params(preset, {name: single})[name]
            assert got == want and type(got) is type(want), where
            with pytest.raises(ValueError, match=f"parameter '{name}' takes"):
                bench._params(preset, {name: wrong})
            assert bench._params(preset, {name: default})[name] == (list(default) if isinstance(default, tuple) else default)


def test_bad_counts_and_negative_values_are_refused_before_anything_runs(toy_suite, tmp_path):
    toy_suite.PRESETS["reps"] = bench.Preset("with reps", {"sizes": [1, 2], "reps": 2, "seed": 0}, toy_suite.PRESETS[
        "squares"].cases, needs_gpu=False)
    for bad, match in ((dict(reps=-1), "'reps' counts runs"), (dict(reps=0), "'reps' counts runs"),
                       (dict(sizes=[4, -4]), "'sizes' must not be negative"), (dict(seed=-1), "'seed' must not")):
        with pytest.raises(ValueError, match=match):
            bench.run_preset("toy", "reps", out=tmp_path, progress=False, **bad)
    assert not any(tmp_path.iterdir())          # nothing written
    assert bench.main(["toy", "--preset", "reps", "--out", str(tmp_path), "--set", "reps=-1"]) == 2


def test_a_run_never_replaces_results_with_fewer_rows_unless_asked(toy_suite, tmp_path, capsys):
    bench.run_preset("toy", "squares", out=tmp_path, progress=False, sizes=[1, 2, 3])
    bench.run_preset("toy", "squares", out=tmp_path, progress=False, sizes=[9])
    assert [r["n"] for r in results.read(tmp_path, "squares").rows] == [1, 2, 3]
    assert [r["n"] for r in results.read(tmp_path, "squares.new").rows] == [9]
    assert "pass --replace" in capsys.readouterr().out
    bench.run_preset("toy", "squares", out=tmp_path, progress=False, sizes=[4, 5, 6, 7])   # more rows: replaces
    assert [r["n"] for r in results.read(tmp_path, "squares").rows] == [4, 5, 6, 7]
    assert bench.main(["toy", "--preset", "squares", "--out", str(tmp_path), "--set", "sizes=8", "--replace"]) == 0
    assert [r["n"] for r in results.read(tmp_path, "squares").rows] == [8]


def test_no_case_and_out_naming_a_file_are_errors(toy_suite, tmp_path):
    with pytest.raises(ValueError, match="no case"):
        bench.run_preset("toy", "squares", out=tmp_path / "o", progress=False, sizes=[])
    afile = tmp_path / "f.csv"
    afile.write_text("keep")
    assert bench.main(["toy", "--preset", "squares", "--out", str(afile)]) == 2
    assert afile.read_text() == "keep"


def test_metadata_names_the_code_the_cpu_and_the_seed(toy_suite, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUALGO_COMMIT", "abc123")
    monkeypatch.setenv("GPUALGO_DIRTY", "0")
    toy_suite.PRESETS["seeded"] = bench.Preset("seeded", {"sizes": [1], "seed": 7}, toy_suite.PRESETS[
        "squares"].cases, needs_gpu=False)
    bench.run_preset("toy", "seeded", out=tmp_path, progress=False)
    meta = results.read(tmp_path, "seeded").meta
    assert meta["code"] == {"commit": "abc123", "dirty": False}
    assert meta["seeds"] == [7] and meta["host"]["cpu"] == gpu.cpu_model()
