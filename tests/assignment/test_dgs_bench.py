"""The DGS presets, their rows, the recorded results and the verdict drawn from them."""
import inspect
import re

import numpy as np
import pytest

from gpualgo import assignment as A, bench, gpu, results
from gpualgo.assignment.dgs import analysis, bench as bench_dgs, checks as dgs_checks, gpu as dgs_gpu

PRESETS = bench_dgs.PRESETS


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_quick_values_are_applied(name):
    p = PRESETS[name]
    assert p.quick
    params = bench._params(p, {"quick": True})
    for key, value in p.quick.items():
        assert params[key] == value, key
    assert max(params["sizes"]) <= 256 and params["instances"] == 1
    assert bench._params(p, {"quick": True, "sizes": [32]})["sizes"] == [32]   # an override still wins


def test_no_case_function_branches_on_quick():
    source = inspect.getsource(bench_dgs)
    assert not re.search(r"""p\[["']quick["']\]""", source)


def test_rows_have_the_shared_schema(rng):
    B = bench_dgs.make_instance("uniform", 24, 5)
    r = A.solve(B, algorithm="dgs", variant="serial", seed=5)
    opt = A.reference_objective(B)
    row = bench_dgs.dgs_row(B, r, opt, 2, algorithm="dgs", family="uniform", n=24, seed=5)
    cols = list(row)
    assert cols[:4] == ["algorithm", "family", "n", "seed"]
    assert cols[4:4 + len(bench.ROW_COLUMNS)] == list(bench.ROW_COLUMNS)
    assert row["variant"] == "serial" and row["rep"] == 2 and row["verified"] is True
    assert row["total_ms"] == r.stats["total_ms"] and row["exec_ms"] == r.stats["exec_ms"]
    assert row["kernel_ms"] is None and row["device"] == gpu.cpu_label()
    assert row["gap"] == pytest.approx((opt - r.objective) / opt) and row["rounds"] == r.stats["passes"]
    assert "time_ms" not in row and "solve_ms" not in row
    ev = bench_dgs.evaluation_row("cpu", 1.5, 0, algorithm="dgs", family="geom", n=24, seed=5)
    assert set(bench.ROW_COLUMNS) <= set(ev) and ev["de_ms"] == 1.5 and ev["total_ms"] is None
    assert ev["variant"] == "de_cpu" and ev["device"] == gpu.cpu_label()


def test_a_row_is_only_written_for_a_checked_answer(rng):
    B = bench_dgs.make_instance("uniform", 20, 1)
    r = A.solve(B, algorithm="dgs", variant="serial", seed=1)
    start = np.arange(20)                         # not what DGS returned: not exchange-optimal
    assert max(dgs_checks.exchange_gains(B, start)) > 0
    r.assignment, r.objective = start, A.objective(B, start)
    with pytest.raises(ValueError, match="not exchange-optimal"):
        bench_dgs.dgs_row(B, r, None, 0, n=20)


def test_kernels_table_names_kernels_of_the_cu_file():
    src = gpu.kernel_source("dgs")
    defined = set(re.findall(r'extern "C" __global__ void (?:__launch_bounds__\([^)]*\)\s*)?(\w+)\s*\(', src))
    assert set(dgs_gpu.KERNELS) == set(A.VARIANTS["dgs"]) - {"serial"}
    for variant, names in dgs_gpu.KERNELS.items():
        assert names and set(names) <= defined, (variant, set(names) - defined)
    assert set().union(*dgs_gpu.KERNELS.values()) == defined     # every kernel is some version's


@pytest.mark.parametrize("name", sorted(set(PRESETS) - {"serial_phases"}))
def test_recorded_results_are_migrated(name):
    if not (results.RESULTS_DIR / "dgs" / f"{name}.csv").is_file():
        pytest.skip(f"dgs/{name} is not recorded yet")
    rec = results.read("dgs", name)
    cols = set().union(*(r.keys() for r in rec.rows))
    assert not cols & {"time_ms", "solve_ms", "solver"}
    assert {"variant", "total_ms", "objective"} <= cols
    assert rec.meta["seeds"] == [rec.meta["params"]["seed"]] and ("migrated" in rec.meta or "cases_recorded" in rec.meta)
    runs = [r for r in rec.rows if r.get("kind", "run") == "run" and not str(r["variant"]).startswith("de_")]
    assert runs and all(r["total_ms"] > 0 for r in runs)


# --------------------------------------------------------------------- the verdict


def _rows(gpu_ms, auction_ms, serial_ms, gpu_gap, family="uniform", n=4096, seeds=(1, 2, 3)):
    rows = []
    for s in seeds:
        rows += [dict(family=family, n=n, seed=s, kind="run", variant="gpu", total_ms=gpu_ms, gap=gpu_gap),
                 dict(family=family, n=n, seed=s, kind="run", variant="gpu_eps_scaling", total_ms=auction_ms, gap=0.0,
                      optimum=3 * n),
                 dict(family=family, n=n, seed=s, kind="run", variant="serial", total_ms=serial_ms, gap=gpu_gap),
                 dict(family=family, n=n, seed=s, kind="trace", variant="gpu", t_ms=0.1, gap=0.5)]
    return rows


def test_verdict_when_dgs_is_worth_it():
    lines = analysis.verdict(_rows(10.0, 60.0, 900.0, 0.005) + _rows(5.0, 4.0, 50.0, 0.0, family="ties", n=256))
    assert lines == [
        "**uniform**, n = 4096: full-GPU DGS is 6.0x faster than the exact GPU auction (median times over 3 "
        "instances) for a gap of 0.500%, "
        "90.0x faster than serial DGS.",
        "**ties**, n = 256: full-GPU DGS reaches the optimum, but the exact auction is as fast or faster, "
        "10.0x faster than serial DGS."]


def test_verdict_when_dgs_is_not_worth_it():
    lines = analysis.verdict(_rows(80.0, 40.0, 20.0, 0.02, n=128))
    assert lines == ["**uniform**, n = 128: full-GPU DGS is slower than the exact GPU auction (0.50x, median times "
                     "over 3 instances) and still "
                     "2.000% from the optimum: not worth it, slower than serial DGS (0.25x) at this small size."]
    assert analysis.verdict([]) == [] and analysis.verdict(_rows(1, 2, 3, 0.0)[1:2]) == []


def test_against_the_paper_and_the_goal():
    rows = _rows(10.0, 60.0, 900.0, 0.005) + _rows(20.0, 40.0, 100.0, 0.0, family="ties", n=512)
    said = analysis.against_the_paper(rows)
    assert said[0].startswith("The paper saw DGS within 0.6% of the optimum: here 12 of 12 runs are")
    assert "2.0x to 6.0x faster than the exact eps-scaling GPU auction (median times" in said[1]
    assert said[2].startswith("ties: on 3 of 3 instances the optimum is 3n")
    worse = analysis.against_the_paper(_rows(10.0, 60.0, 900.0, 0.01))
    assert "here 0 of 6 runs are; the worst gap is 1.00%" in worse[0]
    assert analysis.goal(rows) == ["goal (gpu >= 10x serial at n = 4096), uniform: 90.0x, met",
                                   "goal (gpu >= 10x serial at n = 4096), ties: no run at n = 4096 in these results"]
    assert analysis.goal(_rows(10.0, 60.0, 50.0, 0.0)) == ["goal (gpu >= 10x serial at n = 4096), uniform: 5.0x, NOT met"]


def test_one_speedup_statistic_everywhere():
    # three instances: the auction's median over the full-GPU median, never a mean or a per-instance ratio
    rows = [dict(r, total_ms=r["total_ms"] * (1, 1, 4)[r["seed"] - 1]) if r["variant"] == "gpu_eps_scaling" else r
            for r in _rows(10.0, 60.0, 900.0, 0.005)]
    assert analysis.speedup(rows, "uniform", 4096) == 6.0 and analysis.speedup(rows, "uniform", 4096, "serial") == 60 / 900
    assert analysis.speedup(rows, "uniform", 512) is None and analysis.speedups(rows, "uniform") == {4096: 6.0}
    assert analysis.verdict(rows)[0].startswith("**uniform**, n = 4096: full-GPU DGS is 6.0x faster")
    assert "6.0x to 6.0x" in analysis.against_the_paper(rows)[1]
    table = analysis.mean_table(analysis.runs(rows), "total_ms", "t", ["gpu_eps_scaling"], stat="median")
    assert "(median over seeds)" in table and "| 4096 | 60 |" in table
    assert analysis.mean_table(analysis.runs(rows), "total_ms", "t", ["gpu_eps_scaling"]).count("| 4096 | 120 |") == 1
    other = _rows(10.0, 40.0, 900.0, 0.005, seeds=(7,))
    said = analysis.speedup_by_set({"report": rows, "gap": other}, "uniform", 4096)
    assert said == ("uniform, n = 4096: 6.0x (report, 3 instances), 4.0x (gap, 1 instance); gpu_eps_scaling took "
                    "40.0 to 240.0 ms over these 4 instances, gpu 10.0 to 10.0 ms")
    assert analysis.speedup_by_set({"x": []}, "uniform", 4096) == ""
    assert analysis.speedup_lines(rows + _rows(20.0, 80.0, 900.0, 0.005, n=8192)) == [
        "uniform: gpu_eps_scaling time / gpu time (medians over instances): 6.0x at n = 4096, 4.0x at n = 8192"]


def test_growth_extrapolation_and_evaluation_times():
    rows = [dict(family="geom", n=n, seed=s, variant="serial", total_ms=(n / 1024) ** 2 * 100 * s) for n in (1024, 2048, 4096)
            for s in (1, 2, 3)]
    assert analysis.growth(rows, "geom", "serial") == (1024, 4096, pytest.approx(2.0))
    assert analysis.growth(rows, "geom", "serial", last=True) == (2048, 4096, pytest.approx(2.0))
    ms, n1, k = analysis.extrapolate(rows, "geom", "serial", 16384)
    assert ms == pytest.approx(200 * 256) and n1 == 4096 and k == pytest.approx(2.0)
    assert analysis.growth(rows[:3], "geom", "serial") is None and analysis.extrapolate(rows[:3], "geom", "serial", 8) is None
    assert analysis.sizes(rows, "geom", "serial", "gpu") == [] and analysis.sizes(rows, "geom", "serial") == [1024, 2048, 4096]
    ev = [dict(family="geom", n=512, variant=f"de_{k}", de_ms=ms) for k, ms in (("cpu", 8.0), ("shared", 1.0), ("cpu", 6.0))]
    assert analysis.evaluation_times(ev + [dict(family="geom", n=512, variant="gpu", de_ms=None)]) == {
        512: {"cpu": 7.0, "shared": 1.0}}
    assert analysis.median_of([dict(family="geom", n=8, variant="gpu", total_ms=float("nan"))], "geom", 8, "gpu") is None


def test_tables_and_takeaways():
    rows = [dict(r, total_ms=r["total_ms"] + r["seed"]) for r in analysis.runs(_rows(10.0, 60.0, 900.0, 0.005))]
    table = analysis.mean_table(rows, "total_ms", "Total time (ms)", ["serial", "gpu", "lap"])
    assert "| 4096 | 902 | 12 |  |" in table
    assert analysis.target_lines(rows)[0].startswith("uniform n=4096: serial 902.0 ms (gap 0.500%), gpu 12.0 ms")
    report = [dict(family="geom", n=1024, seed=1, variant="de_cpu", de_ms=30.0),
              dict(family="geom", n=1024, seed=1, variant="de_shared", de_ms=1.5)]
    gap_rows = _rows(10.0, 60.0, 900.0, 0.005) + [
        dict(family="uniform", n=4096, seed=1, kind="run", variant="gpu_de_global", total_ms=9000.0, gap=0.005)]
    said = analysis.takeaways(report, gap_rows, rows)
    assert said[0] == ("One full difference evaluation at n = 1024: 30.0 ms on one CPU core, 1.5 ms with the "
                       "shared-memory kernels (20x), transfers included.")
    assert "gpu_de_global takes 9000 ms where serial DGS takes 900.0 ms" in said[1]
    assert said[2] == "Gaps to the optimum of every DGS run: uniform 0.500% to 0.500%."
    assert said[3] == ("uniform, n = 4096: full-GPU DGS 12 ms for a gap of 0.500%, the exact GPU auction 62 ms "
                       "(5.2x longer) for the optimum.")
    assert analysis.takeaways([], [], []) == []
    assert analysis.gap(95, 100) == pytest.approx(0.05) and analysis.gap([100, 99], 100, floor=1e-7).tolist() == [1e-7, 0.01]


# ------------------------------------------------------------------------ on a GPU


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(PRESETS))
def test_quick_presets_run_and_check_every_row(name):
    rows = bench.run_preset("dgs", name, progress=False, quick=True)
    runs = [r for r in rows if r.get("kind", "run") == "run" and not r["variant"].startswith("de_")]
    assert runs and all(set(bench.ROW_COLUMNS) <= set(r) for r in runs)
    dgs = [r for r in runs if r["variant"] in A.VARIANTS["dgs"]]
    assert dgs and all(r["verified"] is True and r["gap"] >= 0 for r in dgs)
    assert all(r["device"] for r in runs)
    if name == "targets":   # every solver repeated (reps=2 in the quick set), the reps numbered from 0
        for key in {(r["family"], r["n"], r["variant"]) for r in runs}:
            assert sorted(r["rep"] for r in runs if (r["family"], r["n"], r["variant"]) == key) == [0, 1], key
    if name == "selection":   # both selections, each run twice, beside the certified optimum
        for key in {(r["family"], r["n"]) for r in runs}:
            got = sorted((r["selection"], r["rep"]) for r in dgs if (r["family"], r["n"]) == key)
            assert got == [("check_conflicts", 0), ("check_conflicts", 1), ("mutual", 0), ("mutual", 1)], key
            assert [r["verified_by"] for r in runs if (r["family"], r["n"]) == key and
                    r["variant"] == "gpu_eps_scaling"] == ["dual bound"]
        assert all((r["conflicts"] is None) == (r["selection"] == "mutual") for r in dgs)


# ------------------------------------------------------- serial DGS's start and phases (CPU)


def test_serial_phases_runs_on_the_cpu_and_checks_every_row():
    assert not PRESETS["serial_phases"].needs_gpu
    rows = bench.run_preset("dgs", "serial_phases", progress=False, quick=True, sizes=[24], families=["uniform"])
    ref, *dgs = rows
    assert ref["variant"] == "scipy" and ref["optimum"] == A.reference_objective(
        bench_dgs.make_instance("uniform", 24, ref["seed"]))
    assert ref["verified"] is (ref["verified_by"] == "lap")
    assert [r["init"] for r in dgs] == ["random", "greedy"]
    for r in dgs:
        assert r["verified"] is True and r["gap"] >= 0 and r["optimum"] == ref["optimum"]
        assert all(r[c] >= 0 for c in bench_dgs.PHASE_COLUMNS)
        assert r["eval_ms"] + r["switch_ms"] <= r["exec_ms"] and r["reeval_ms"] <= r["switch_ms"]


def test_recorded_serial_phases():
    rec = results.read("dgs", "serial_phases")
    assert rec.meta["progress"]["complete"] and rec.meta["device"]["gpu"] is None    # a CPU recorded it
    runs = [r for r in rec.rows if r["variant"] == "serial"]
    assert {r["init"] for r in runs} == {"random", "greedy"} and all(r["verified"] for r in rec.rows)
    assert all(r["eval_ms"] + r["switch_ms"] <= r["exec_ms"] for r in runs)
    assert {(r["family"], r["n"]) for r in runs} == {(f, n) for f in ("geom", "uniform") for n in (256, 512, 1024, 2048)}


def test_start_and_phase_analysis():
    def run(init, gap, ms, seed=1, **more):
        return dict(dict(family="geom", n=64, seed=seed, kind="run", variant="serial", init=init, gap=gap,
                         total_ms=ms, exec_ms=ms - 1, start_ms=0.1, switches=10), **more)
    rows = [run("random", 0.02, 11.0, eval_ms=5.0, switch_ms=4.0, reeval_ms=2.0),
            run("greedy", 0.01, 6.0, eval_ms=3.0, switch_ms=1.0, reeval_ms=0.5),
            dict(family="geom", n=64, seed=1, kind="run", variant="scipy", total_ms=3.0, gap=0.0)]
    assert analysis.phase_shares(rows) == {("geom", 64): dict(eval=0.5, switch=0.4, reeval=0.2, all_eval=0.7,
                                                               exec_ms=10.0)}
    assert [(a["init"], b["init"]) for a, b in analysis.start_pairs(rows)] == [("random", "greedy")]
    assert "| geom | 64 | 2.000% | 1.000% | 11.0 | 6.0 |" in analysis.start_table(rows)
    assert analysis.phase_lines(rows) == ["geom, serial DGS from a random start, share of its loop's time: n = 64: "
                                          "evaluation 50% (with the re-evaluations 70%), switching 40%"]
    assert analysis.start_table(rows[2:]) == "" and analysis.phase_lines([]) == []


def test_a_case_check_refuses_the_instance_and_the_host_copies_as_the_run_would(monkeypatch):
    from gpualgo import guards
    from gpualgo.assignment.dgs import serial as dgs_serial
    monkeypatch.setattr(guards, "host_bytes", lambda: 2**20)      # 1 MiB: a 256 x 256 uniform instance fits
    B = bench_dgs.make_instance("uniform", 256, 1)                # (256 KiB), its float64 copies do not (1 MiB)
    refused = str(pytest.raises(ValueError, dgs_serial.solve_serial, B).value)
    assert refused.startswith("DGS on a 256 x 256 matrix (B and its transpose in float64) needs about 1.0 MiB")
    for variants, cpu_pass in ((["serial"], False), (["gpu", "gpu_mixed"], False), (["gpu"], True)):
        check = bench_dgs._case_check("uniform", 256, variants, cpu_pass)
        assert str(pytest.raises(ValueError, check).value) == refused, variants
    bench_dgs._case_check("uniform", 256, ["gpu"])()              # the full-GPU version copies nothing on the host
    for fam in bench_dgs.FAMILIES:                                # each family's check is its generator's
        made = str(pytest.raises(ValueError, bench_dgs.make_instance, fam, 2000, 1).value)
        assert str(pytest.raises(ValueError, bench_dgs.check_instance, fam, 2000).value) == made, fam
        assert str(pytest.raises(ValueError, bench_dgs._case_check(fam, 2000, ["gpu"])).value) == made, fam
    with pytest.raises(ValueError, match="unknown family 'rings'"):
        bench_dgs.check_instance("rings", 10)


def test_a_rerun_is_checked_unless_it_returned_the_checked_assignment(monkeypatch):
    B = bench_dgs.make_instance("uniform", 20, 1)
    first = A.solve(B, algorithm="dgs", variant="serial", seed=1)
    again = A.solve(B, algorithm="dgs", variant="serial", seed=1)
    checked = []
    monkeypatch.setattr(bench_dgs, "check_result", lambda B, r: checked.append(r) or dgs_checks.check_result(B, r))
    assert bench_dgs.dgs_row(B, again, None, 1, same_as=first, n=20)["verified"] is True and not checked
    other = A.solve(B, algorithm="dgs", variant="serial", seed=2)
    bench_dgs.dgs_row(B, other, None, 1, same_as=first, n=20)
    assert checked == ([other] if not np.array_equal(other.assignment, first.assignment) else [])
    start = np.arange(20)                                   # not exchange-optimal: refused
    again.assignment, again.objective = start, A.objective(B, start)
    with pytest.raises(ValueError, match="not exchange-optimal"):
        bench_dgs.dgs_row(B, again, None, 2, same_as=first, n=20)
