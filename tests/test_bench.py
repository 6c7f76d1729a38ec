import re
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


def test_repetitions_have_an_upper_bound(toy_suite, tmp_path, capsys):
    # before: --set reps=10**9 was taken, and the sweep ran for ever
    toy_suite.PRESETS["reps"] = bench.Preset("with reps", {"sizes": [1, 2], "reps": 2, "peer_reps": 1, "seed": 0},
                                             toy_suite.PRESETS["squares"].cases, needs_gpu=False)
    for bad, match in ((dict(reps=1001), r"parameter 'reps' counts runs: it must be an integer in 1\.\.1000, got 1001"),
                       (dict(reps=10**9), r"'reps' counts runs: it must be an integer in 1\.\.1000, got 1000000000"),
                       (dict(peer_reps=5000), r"'peer_reps' counts runs: it must be an integer in 1\.\.1000, got 5000"),
                       (dict(reps=10**300), r"in 1\.\.1000, got 1000000000\d*\.\.\. \(301 characters\)$")):
        with pytest.raises(ValueError, match=match):
            bench.run_preset("toy", "reps", out=tmp_path, progress=False, **bad)
    assert not any(tmp_path.iterdir())          # nothing written
    assert bench.main(["toy", "--preset", "reps", "--out", str(tmp_path), "--set", "reps=1001"]) == 2
    assert "in 1..1000, got 1001" in capsys.readouterr().err
    assert bench._params(toy_suite.PRESETS["reps"], dict(reps=bench.MAX_REPS))["reps"] == 1000


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


def test_an_out_folder_is_used_as_it_is_named(toy_suite, tmp_path, monkeypatch):
    """A relative --out that does not exist yet is a new folder where the command runs, never the
    project's own data/results/<out> (whose file would have been taken for an earlier run's)."""
    monkeypatch.setattr(results, "RESULTS_DIR", tmp_path / "records")
    bench.run_preset("toy", "squares", out=tmp_path / "records" / "tsp", progress=False, sizes=[1, 2, 3, 4])
    monkeypatch.chdir(tmp_path)
    assert bench.main(["toy", "--preset", "squares", "--out", "tsp", "--set", "sizes=5"]) == 0
    assert [r["n"] for r in results.read_folder(tmp_path / "tsp", "squares").rows] == [5]
    assert len(results.read_folder(tmp_path / "records" / "tsp", "squares").rows) == 4


def test_an_out_where_nothing_can_be_written_is_refused_before_any_case(toy_suite, tmp_path, capsys):
    (tmp_path / "afile").write_text("keep")
    assert bench.main(["toy", "--preset", "squares", "--out", str(tmp_path / "afile" / "sub")]) == 2
    assert "cannot make this folder" in capsys.readouterr().err and not (tmp_path / "afile").is_dir()
    (tmp_path / "o" / "squares.csv").mkdir(parents=True)
    assert bench.main(["toy", "--preset", "squares", "--out", str(tmp_path / "o")]) == 2
    assert "squares.csv there is a folder" in capsys.readouterr().err


def test_a_corrupt_earlier_file_is_named(toy_suite, tmp_path, capsys):
    (tmp_path / "squares.csv").write_text("n\n1\n")
    (tmp_path / "squares.json").write_text("{bad")
    assert bench.main(["toy", "--preset", "squares", "--out", str(tmp_path)]) == 2
    assert f"{tmp_path / 'squares.json'}: not a results file" in capsys.readouterr().err
    (tmp_path / "squares.json").write_text("{}")
    (tmp_path / "squares.csv").write_bytes(b"n\n\xff\n")
    assert bench.main(["toy", "--preset", "squares", "--out", str(tmp_path)]) == 2
    assert f"{tmp_path / 'squares.csv'}: not a results file" in capsys.readouterr().err


def test_metadata_names_the_code_the_cpu_and_the_seed(toy_suite, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUALGO_COMMIT", "abc123")
    monkeypatch.setenv("GPUALGO_DIRTY", "0")
    toy_suite.PRESETS["seeded"] = bench.Preset("seeded", {"sizes": [1], "seed": 7}, toy_suite.PRESETS[
        "squares"].cases, needs_gpu=False)
    bench.run_preset("toy", "seeded", out=tmp_path, progress=False)
    meta = results.read(tmp_path, "seeded").meta
    assert meta["code"] == {"commit": "abc123", "dirty": False}
    assert meta["seeds"] == [7] and meta["host"]["cpu"] == gpu.cpu_model()


# --------------------------------------------------------------- checks before the first case

def test_a_refused_case_stops_the_sweep_before_any_case_runs(toy_suite, tmp_path, capsys):
    ran, checked = [], []

    def cases(p):
        for n in p["sizes"]:
            def check(n=n):
                checked.append(n)
                if n > 100:
                    raise ValueError(f"n={n} needs about {n} GiB; pass force=True to try anyway")
            yield bench.Case(f"n={n}", lambda n=n: ran.append(n) or [{"n": n}], check)
        yield bench.Case("unchecked", lambda: ran.append("unchecked") or [{"n": 0}])

    toy_suite.PRESETS["checked"] = bench.Preset("checked", {"sizes": [1, 2]}, cases, needs_gpu=False)
    assert len(bench.run_preset("toy", "checked", out=tmp_path / "ok", progress=False)) == 3
    assert ran == [1, 2, "unchecked"] and checked == [1, 2]          # every check, before the first run
    ran.clear(), checked.clear()
    with pytest.raises(ValueError) as err:
        bench.run_preset("toy", "checked", out=tmp_path / "o", progress=False, sizes=[1, 500, 7, 900])
    assert str(err.value) == ("toy/checked with sizes=[1, 500, 7, 900]: case 'n=500' is refused before the sweep "
                              "starts: n=500 needs about 500 GiB; pass force=True to try anyway")
    assert ran == [] and checked == [1, 500] and not (tmp_path / "o").exists()
    # the command line: one line, no traceback, nothing run or written
    rc = bench.main(["toy", "--preset", "checked", "--out", str(tmp_path / "c"), "--set", "sizes=3,200"])
    err = capsys.readouterr().err
    assert rc == 2 and ran == [] and not (tmp_path / "c").exists()
    assert err.splitlines() == ["error: toy/checked with sizes=[3, 200]: case 'n=200' is refused before the sweep "
                                "starts: n=200 needs about 200 GiB; a preset cannot insist: give smaller sizes "
                                "with --set (from Python, the solver takes force=True)"]


def test_a_refused_case_is_named_before_the_gpu_is_asked_for(toy_suite):
    def cases(p):
        def refuse():
            raise ValueError("too large")
        yield bench.Case("big", lambda: [], refuse)
    toy_suite.PRESETS["gpu_big"] = bench.Preset("needs a GPU", {}, cases, needs_gpu=True)
    with pytest.raises(ValueError, match="case 'big' is refused before the sweep starts: too large"):
        bench.run_preset("toy", "gpu_big", progress=False)


def test_a_range_without_end_stops_at_its_first_refused_case(toy_suite, tmp_path):
    """Cases are checked as they are listed: a sweep whose sizes go on for ever (as --set max_n=1e9
    does) is refused at its first refused case, not after listing them all."""
    import itertools

    def cases(p):
        for n in itertools.count(1):
            def check(n=n):
                if n >= 5:
                    raise ValueError(f"n={n} would take a year")
            yield bench.Case(f"n={n}", lambda n=n: [{"n": n}], check)
    toy_suite.PRESETS["endless"] = bench.Preset("endless", {"sizes": [1]}, cases, needs_gpu=False)
    with pytest.raises(ValueError, match="case 'n=5' is refused before the sweep starts: n=5 would take a year"):
        bench.run_preset("toy", "endless", out=tmp_path / "e", progress=False)
    assert not (tmp_path / "e").exists()


def test_a_resumed_sweep_checks_only_the_cases_it_still_has_to_run(toy_suite, tmp_path):
    state = {"fail": 2, "refuse": set()}
    ran, checked = [], []

    def cases(p):
        for n in p["sizes"]:
            def run(n=n):
                ran.append(n)
                if n == state["fail"]:
                    raise RuntimeError("fails on purpose")
                return [{"n": n}]

            def check(n=n):
                checked.append(n)
                if n in state["refuse"]:
                    raise ValueError(f"n={n} refused")
            yield bench.Case(f"n={n}", run, check)

    toy_suite.PRESETS["resume"] = bench.Preset("resumable", {"sizes": [1, 2, 3]}, cases, needs_gpu=False)
    with pytest.raises(RuntimeError):
        bench.run_preset("toy", "resume", out=tmp_path, progress=False)
    assert ran == [1, 2] and checked == [1, 2, 3]
    ran.clear(), checked.clear()
    state.update(fail=None, refuse={1, 3})      # case n=1 is recorded: its check is not called again
    with pytest.raises(ValueError, match="case 'n=3' is refused"):
        bench.run_preset("toy", "resume", out=tmp_path, progress=False)
    assert ran == [] and checked == [2, 3]
    assert [r["n"] for r in results.read(tmp_path, "resume").rows] == [1]     # the unfinished file is kept
    state["refuse"] = {1}
    assert [r["n"] for r in bench.run_preset("toy", "resume", out=tmp_path, progress=False)] == [1, 2, 3]
    assert ran == [2, 3]
    # the file names both runs as its parts: which cases each measured, with its command and code
    first, second = results.read(tmp_path, "resume").meta["parts"]
    assert (first["cases"], first["rows"], second["cases"], second["rows"]) == (["n=1"], 1, ["n=2", "n=3"], 2)
    assert all(set(part) >= {"date", "command", "code"} for part in (first, second))


def _spied(monkeypatch, algo: str, preset: str) -> list:
    """The labels of the cases of ``algo/preset`` whose run was called (each run replaced by one
    that records its label and returns no row; the checks left as they are)."""
    p = bench.presets(algo)[preset]
    original, calls = p.cases, []

    def cases(params):
        for c in original(params):
            yield bench.Case(c.label, lambda label=c.label: calls.append(label) or [], c.check)

    monkeypatch.setattr(p, "cases", cases)
    monkeypatch.setattr(gpu, "require", lambda: None)      # the runs are the spy's: they need no GPU
    return calls


#: an absurd size for each problem, given as on the command line, and the case refused
ABSURD = {
    "auction": ("report", ["sizes=500,2000000"], "n=2000000 d=0.1 #0", "the report generator on a 2000000 x 2000000"),
    "dgs": ("report", ["sizes=64,1000000"], "geom n=1000000 #0", "the geom generator on a 1000000 x 1000000"),
    "tsp": ("report", ["sizes=10,40"], "gpu_host_chunks n=40 block=32", "held_karp on n=40 cities"),
    "maxflow": ("cpu", ["genrmf=8x8,512x512"], "genrmf (512, 512)", "genrmf(a=512, b=512)"),
    "coalitions": ("targets", ["n_large=45"], "gpu_odp n=45", "n (agents) must be an integer in 1..31, got 45"),
}


@pytest.mark.parametrize("algo", sorted(ABSURD))
def test_an_absurd_size_is_refused_before_the_first_case_of_every_problem(algo, monkeypatch, tmp_path, capsys,
                                                                           host16):
    preset, sets, label, says = ABSURD[algo]
    calls = _spied(monkeypatch, algo, preset)
    bench.run_preset(algo, preset, progress=False, quick=True)        # the spy sees the runs it is given
    assert calls and len(calls) == len(list(bench.presets(algo)[preset].cases(
        bench._params(bench.presets(algo)[preset], {"quick": True}))))
    calls.clear()
    argv = [algo, "--preset", preset, "--out", str(tmp_path / "out")] + [a for s in sets for a in ("--set", s)]
    assert bench.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err and "pass force=True" not in err   # no option of a preset
    assert err.startswith(f"error: {algo}/{preset} with {sets[0].split('=')[0]}=")
    assert f"case {label!r} is refused before the sweep starts: " in err and says in err
    assert calls == [] and not (tmp_path / "out").exists()
    overrides = {s.split("=")[0]: bench._value(s.split("=", 1)[1]) for s in sets}
    with pytest.raises(ValueError, match=re.escape(f"case {label!r} is refused")):
        bench.run_preset(algo, preset, out=tmp_path / "out", progress=False, **overrides)
    assert calls == [] and not (tmp_path / "out").exists()


#: the cases without a check: they measure the GPU itself (its copy bandwidth, its memory)
GPU_ONLY = {"device-to-device copy", "the largest n the GPUs hold"}


def test_every_preset_passes_its_checks_without_a_gpu(monkeypatch, host16):
    """The defaults and the quick values of every preset pass every check of their cases on a
    16 GiB host, and no check asks for a GPU (nor for its free memory)."""
    def no_gpu(*_, **__):
        raise AssertionError("a check asked for the GPU")
    for name in ("require", "available", "usable_bytes", "device_name"):
        monkeypatch.setattr(gpu, name, no_gpu)
    checked = 0
    for algo in sorted(bench.SUITES):
        for name, preset in bench.presets(algo).items():
            for quick in (False, True):
                cases = list(preset.cases(bench._params(preset, {"quick": quick})))
                bench.check_cases(cases, f"{algo}/{name}")
                unchecked = {c.label for c in cases if c.check is None}
                assert unchecked <= GPU_ONLY, (algo, name, unchecked)
                checked += len(cases) - len(unchecked)
    assert checked > 500


# the generators' and solvers' checks are the refusals of the calls they stand for

def _refusal(call):
    with pytest.raises(ValueError) as err:
        call()
    return str(err.value)


def test_each_generator_check_refuses_what_its_generator_refuses(small_host):
    from gpualgo.assignment import instances as ai
    from gpualgo.coalitions import values as cv
    from gpualgo.maxflow import instances as mi
    from gpualgo.tsp import instances as ti
    pairs = [  # (generator, its check, arguments that fit, arguments too large, a bad argument)
        (ai.report_instance, ai.check_report_instance, (30, 40, 0.5), (9000, 9000, 0.5), (30, 40, 1.5)),
        (ai.uniform_instance, ai.check_uniform_instance, (30, 40), (9000, 9000), (50, 40)),
        (ai.geom_instance, ai.check_geom_instance, (30, 40), (9000, 9000), (0, 40)),
        (ti.random_euclidean, ti.check_random_euclidean, (20,), (5000,), (0,)),
        (ti.random_graph, ti.check_random_graph, (20, 0.5), (5000, 0.5), (20, 1.5)),
        (ti.random_asymmetric, ti.check_random_asymmetric, (20,), (5000,), (-3,)),
        (mi.random_gnp, mi.check_random_gnp, (50, 0.2), (4000, 0.9), (1, 0.2)),
        (mi.genrmf, mi.check_genrmf, (4, 3), (100, 100), (4, 1)),
        (mi.washington_rlg, mi.check_washington_rlg, (8, 5), (4000, 4000), (0, 5)),
        (mi.vision_grid, mi.check_vision_grid, (9, 7), (8000, 8000), (9, 7, 0)),
        (cv.random_values, cv.check_random_values, (10,), (28,), (32,)),
    ]
    for make, check, fits, big, bad in pairs:
        check(*fits)                 # nothing to refuse (and nothing drawn)
        make(*fits)
        for args in (big, bad):
            assert _refusal(lambda: check(*args)) == _refusal(lambda: make(*args)), (make.__name__, args)
        check(*big, force=True)      # insisting lifts the memory refusal, as it does for the generator


def test_a_maxflow_check_gives_the_size_of_the_network_it_stands_for():
    from gpualgo import maxflow as mf
    from gpualgo.maxflow import instances as mi
    # genrmf: exactly its arcs; washington (parallel arcs merged) and grids (a terminal arc or
    # none per pixel): at most; G(n, p): about the expected number
    for make, check, args, fits in (
            (mf.genrmf, mi.check_genrmf, (5, 3), lambda got, arcs: got == arcs),
            (mf.washington_rlg, mi.check_washington_rlg, (6, 4), lambda got, arcs: 0.8 * arcs <= got <= arcs),
            (mf.vision_grid, mi.check_vision_grid, (7, 9), lambda got, arcs: 0.8 * arcs <= got <= arcs),
            (mf.random_gnp, mi.check_random_gnp, (300, 0.05), lambda got, arcs: abs(got - arcs) <= 0.1 * arcs)):
        net = make(*args, seed=1)
        n, arcs = check(*args)
        assert n == net.n and fits(net.n_input_arcs, arcs), (make.__name__, net.n_input_arcs, arcs)


def test_each_solve_check_refuses_what_its_solve_refuses(monkeypatch):
    import numpy as np
    from gpualgo import coalitions, guards, maxflow as mf, tsp
    from gpualgo.coalitions.solve import check as coalitions_check
    from gpualgo.maxflow.solve import check as maxflow_check
    from gpualgo.tsp.solve import check as tsp_check
    monkeypatch.setattr(guards, "host_bytes", lambda: 256 * 2**20)
    # the time of a brute force; serial Held-Karp's table on the host; the GPU's largest n, forced or not
    assert _refusal(lambda: tsp.solve(tsp.random_euclidean(15, seed=1), "serial_bruteforce")) == \
        _refusal(lambda: tsp_check(15, "serial_bruteforce"))
    assert "host memory" in _refusal(lambda: tsp.solve(tsp.random_euclidean(23, seed=1), "held_karp")) == \
        _refusal(lambda: tsp_check(23, "held_karp"))
    tsp_check(22, "held_karp")
    assert _refusal(lambda: tsp_check(33, "gpu_unrank", force=True)) == \
        "GPU brute force handles at most 32 cities, got n=33"
    tsp_check(33, "gpu_held_karp")
    # the coalitions' DP tables on the host
    monkeypatch.setattr(guards, "host_bytes", lambda: 8 * 2**20)
    v = coalitions.random_values(19, seed=1)
    assert "host memory" in _refusal(lambda: coalitions.solve(v, "serial")) == \
        _refusal(lambda: coalitions_check(19, "serial", np.float64))
    coalitions_check(19, "serial", np.float64, force=True)
    coalitions_check(19, "gpu_odp", np.float64)          # the GPU's memory: not known without one
    # push-relabel without the global relabel, on the network's own size
    path = np.arange(99_999)
    net = mf.from_edges(100_000, path, path + 1, np.ones(path.size, dtype=np.int64))    # 200,000 stored arcs
    assert "without the global relabel" in _refusal(lambda: mf.solve(net, "serial", global_relabel=False)) == \
        _refusal(lambda: maxflow_check("serial", n=net.n, arcs=net.m, global_relabel=False))
    maxflow_check("serial", n=net.n, arcs=net.m, global_relabel=False, force=True)
    maxflow_check("serial", n=net.n, arcs=net.m)
    assert "tile must be" in _refusal(lambda: maxflow_check("gpu_vertex_centric", tile=3))


def test_list_names_the_presets_of_the_algorithm_asked_for(capsys):
    assert bench.main(["maxflow", "--list"]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "--preset" in ln]
    assert lines and all(ln.startswith("maxflow --preset ") for ln in lines)
    assert {ln.split()[2].rstrip(":") for ln in lines} == set(bench.presets("maxflow"))
    assert bench.main(["--list"]) == 0
    every = capsys.readouterr().out
    assert all(f"{algo} --preset " in every for algo in bench.SUITES)
    with pytest.raises(SystemExit):
        bench.main(["nosuch", "--list"])
    assert "unknown algorithm 'nosuch'" in capsys.readouterr().err
