"""The phase clocks and the launch options of the report's kernels, without a GPU: the
-DPHASE_CLOCKS build compiles, its constants agree with the host's, the options are refused
before a GPU is asked for, the presets' cases check their sizes, the analysis reads the rows."""
import pathlib
import re
import shutil
import subprocess

import pytest

from gpualgo import bench
from gpualgo import coalitions as co
from gpualgo.coalitions import analysis
from gpualgo.coalitions import bench as coal_bench
from gpualgo.coalitions import gpu as co_gpu
from gpualgo.coalitions.solve import check as check_solve

KERNELS = pathlib.Path(co_gpu.__file__).resolve().parents[1] / "kernels"


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("defines", [["-DPHASE_CLOCKS=1"], ["-DPHASE_CLOCKS=1", "-DVALUE_T=double"],
                                     ["-DVALUE_T=double"], ["-DPHASE_CLOCKS=1", "-DPHASE_BATCH=3", "-DSHARE_MAX=5"]],
                         ids=lambda d: " ".join(d))
def test_the_define_variants_compile(defines, arch, tmp_path):
    cmd = ["nvcc", "-std=c++17", f"-arch={arch}", f"-I{KERNELS}", *defines, "-Werror", "all-warnings",
           "-c", "-x", "cu", str(KERNELS / "coalitions.cu"), "-o", str(tmp_path / "o.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_defines_and_phase_slots_agree_with_the_kernel():
    cu = (KERNELS / "coalitions.cu").read_text()
    for key, value in co_gpu.defines().items():
        assert re.search(rf"#ifndef {key}\n#define {key} {value}\n", cu), key
    slots = {name: int(i) for name, i in re.findall(r"#define PHASE_(\w+) (\d+)", cu) if name not in ("BATCH",)}
    assert [slots[p.upper()] for p in co_gpu.PHASES] == list(range(len(co_gpu.PHASES)))
    assert slots["TOTAL"] == len(co_gpu.PHASES) and slots["SLOTS"] == len(co_gpu.PHASES) + 1


def test_the_default_build_has_no_clock():
    """Every clock read and the counters sit inside #ifdef PHASE_CLOCKS blocks."""
    depth, inside = 0, []
    for line in (KERNELS / "coalitions.cu").read_text().splitlines():
        if line.startswith("#ifdef PHASE_CLOCKS"):
            depth += 1
        elif line.startswith("#if"):
            depth += 1 if depth else 0
        elif line.startswith("#endif") and depth:
            depth -= 1
        elif line.startswith("#else") and depth == 1:
            depth = 0
        elif not depth and ("clock" in line and not line.lstrip().startswith("//")):
            inside.append(line)
    assert inside == []


def test_phase_summary():
    got = co_gpu.phase_summary([10, 60, 10, 20, 125])
    assert got["phase_cycles"] == dict(setup=10, fetch=60, evaluate=10, reduce=20, total=125)
    assert got["phase_shares"] == dict(setup=0.1, fetch=0.6, evaluate=0.1, reduce=0.2)
    assert got["phase_coverage"] == 0.8
    assert co_gpu.phase_summary([0] * 5)["phase_shares"]["fetch"] == 0.0
    with pytest.raises(ValueError, match="expected 5 counters"):
        co_gpu.phase_summary([1, 2, 3])


@pytest.mark.parametrize("bad", [0, -1, 4097, 2.0, True, "8"])
@pytest.mark.parametrize("variant", ["gpu_report", "gpu_shared_splits"])
def test_coalitions_per_thread_is_checked_before_a_gpu(variant, bad):
    with pytest.raises(ValueError, match="coalitions_per_thread must be an integer in 1..4096"):
        check_solve(10, variant, coalitions_per_thread=bad)
    check_solve(10, variant, coalitions_per_thread=32)


def test_coalitions_per_thread_is_no_option_of_the_tiles():
    with pytest.raises(ValueError, match="coalitions_per_thread"):
        check_solve(10, "gpu_odp", coalitions_per_thread=4)


def test_phase_clocks_refuses_other_variants_without_a_gpu():
    v = co.random_values(6, seed=1)
    with pytest.raises(ValueError, match="variant must be 'gpu_report' or 'gpu_shared_splits'"):
        co_gpu.phase_clocks(v, "gpu_odp")


def test_launch_config_with_visits():
    base = co_gpu.launch_config("report_kernel", block=256, coalitions=100, size=10, per_thread=2)
    walked = co_gpu.launch_config("report_kernel", block=256, coalitions=100, size=10, per_thread=2, visits=32)
    assert base["group_log2"] == walked["group_log2"] == 8
    assert base["grid"] == 100 and walked["grid"] == 4      # a group of 256 threads per 32 coalitions
    sh = co_gpu.launch_config("shared_splits_kernel", block=256, coalitions=100, size=10, per_thread=2, share=8)
    sh32 = co_gpu.launch_config("shared_splits_kernel", block=256, coalitions=100, size=10, per_thread=2, share=8,
                                visits=32)
    assert sh["grid"] == 13 and sh32["grid"] == 4


def test_launch_configs_sweep_each_parameter_around_the_reports():
    p = coal_bench.PRESETS["launch"].params
    rep = list(coal_bench._launch_configs("gpu_report", p))
    assert rep[0] == ("report", dict(block=256, per_thread=2, coalitions_per_thread=32))
    assert {s for s, _ in rep} == {"report", "block", "per_thread", "coalitions_per_thread"}
    assert len(rep) == 1 + 4 + 6 + 6 and len({tuple(sorted(o.items())) for _, o in rep}) == len(rep)
    sh = list(coal_bench._launch_configs("gpu_shared_splits", p))
    assert sh[0] == ("report", dict(block=256, per_thread=2, share=8, coalitions_per_thread=32))
    assert [o["share"] for s, o in sh if s == "share"] == [2, 3, 4, 5, 6, 7]
    for swept, opts in sh[1:]:
        assert sum(opts[k] != sh[0][1][k] for k in opts) == 1 and swept in opts


@pytest.mark.parametrize("preset", ["phases", "launch"])
@pytest.mark.parametrize("quick", [False, True])
def test_the_presets_cases_check_without_a_gpu(preset, quick):
    pr = coal_bench.PRESETS[preset]
    cases = list(pr.cases(dict(pr.params, **(pr.quick if quick else {}))))
    assert cases and all(c.check is not None for c in cases)
    for c in cases:
        c.check()


def test_a_bad_launch_is_refused_before_the_sweep():
    pr = coal_bench.PRESETS["launch"]
    with pytest.raises(ValueError, match="coalitions_per_thread"):
        bench.check_cases(list(pr.cases(dict(pr.params, coalitions_per_thread=0))))
    with pytest.raises(ValueError, match="per_thread must be a power of two"):
        bench.check_cases(list(pr.cases(dict(pr.params, per_threads=[1, 3]))))
    with pytest.raises(ValueError, match="share must be an integer in 2..8"):
        bench.check_cases(list(pr.cases(dict(pr.params, shares=[9]))))


# ------------------------------------------------------------------------ analysis

def _phase_row(variant, n, shares, coverage=0.9, verified=True):
    return dict(variant=variant, n=n, verified=verified, phase_coverage=coverage,
                **{f"share_{p}": x for p, x in zip(co_gpu.PHASES, shares)})


def test_phase_shares_and_lines():
    rows = [_phase_row("gpu_report", 20, (0.1, 0.5, 0.1, 0.3)), _phase_row("gpu_report", 22, (0.1, 0.6, 0.1, 0.2)),
            _phase_row("gpu_shared_splits", 22, (0.2, 0.4, 0.2, 0.2), verified=False)]
    assert analysis.phase_shares(rows, "gpu_report") == (22, dict(setup=0.1, fetch=0.6, evaluate=0.1, reduce=0.2))
    assert analysis.phase_shares(rows, "gpu_report", 20)[1]["fetch"] == 0.5
    assert analysis.phase_shares(rows, "gpu_odp") is None and analysis.phase_shares([], "gpu_report") is None
    lines = analysis.phase_lines(rows)
    assert lines[0].startswith("GPU: report kernel at n=22: setup 10%, fetch 60%, evaluate 10%, reduce 20% "
                               "(largest: fetch; the phases hold 90% of the threads' cycles; answer checked")
    assert lines[1].endswith("ANSWER NOT CHECKED)")
    assert analysis.phase_lines([]) == []


def _launch_row(swept, total_ms, n=22, variant="gpu_shared_splits", share=8, reads_saved=None, **opts):
    row = dict(variant=variant, n=n, swept=swept, report_config=swept == "report", total_ms=total_ms,
               block=256, per_thread=2, share=share if variant == "gpu_shared_splits" else None,
               coalitions_per_thread=32, splits=1000, splits_per_s=1e6 / total_ms, reads_saved=reads_saved)
    row.update(opts)
    return row


def launch_rows(avoided=(0.1, 0.2, 0.3), times=(30.0, 25.0, 20.0)):
    rows = [_launch_row("share", t, share=k, reads_saved=int(a * 2000)) for k, a, t in zip((2, 4), avoided, times)]
    rows.append(_launch_row("report", times[-1], reads_saved=int(avoided[-1] * 2000)))
    rows += [_launch_row("block", 15.0, block=128, reads_saved=1), _launch_row("block", 40.0, block=1024),
             _launch_row("default", 900.0, n=24, per_thread=16, coalitions_per_thread=4, share=4),
             _launch_row("report", 1500.0, n=24)]
    return rows


def test_launch_rows_and_lines():
    rows = launch_rows()
    at = analysis.launch_rows(rows, "gpu_shared_splits")
    assert [r["total_ms"] for r in at][:2] == [15.0, 20.0] and all(r["n"] == 22 for r in at)
    lines = analysis.launch_lines(rows)
    assert lines[0].startswith("GPU: reads reused in registers ('shared splits') at n=22: fastest block 128, "
                               "2 splits/thread, share 8, 32 coalitions/thread (15.0 ms); the report's")
    assert "1.33x it" in lines[0]
    assert "  block swept alone: fastest at 128 (15.0 ms)" in lines
    assert "  share swept alone: fastest at 8 (20.0 ms)" in lines
    assert lines[-1].startswith("  n=24: the report's configuration 1.50 s, the default (block 256, 16 splits/thread")
    assert analysis.launch_lines([]) == []


def test_reads_avoided_by_share():
    n, by = analysis.reads_avoided_by_share(launch_rows())
    assert n == 22 and sorted(by) == [2, 4, 8]
    assert by[2][0] == pytest.approx(0.1) and by[8][0] == pytest.approx(0.3)
    assert analysis.reads_avoided_by_share(launch_rows()[2:3]) is None


def test_the_copy_row_goes_through_bench_row(monkeypatch):
    monkeypatch.setattr(coal_bench, "_bandwidth", lambda nbytes: 2e12)
    monkeypatch.setattr(coal_bench.gpu, "device_name", lambda: "a GPU")
    (row,) = coal_bench._copy_case(1 << 30).run()
    keys = list(row)
    i = keys.index("variant")
    assert keys[:i] == ["algorithm", "n"] and tuple(keys[i:i + len(bench.ROW_COLUMNS)]) == bench.ROW_COLUMNS
    assert row["variant"] == "device_copy" and row["n"] == 0 and row["copy_bytes_per_s"] == 2e12
    assert row["device"] == "a GPU" and row["objective"] is None and row["verified"] is None
    assert row["total_ms"] == row["kernel_ms"] == pytest.approx(2 * (1 << 30) / 2e12 * 1e3)
    assert analysis.copy_bandwidth_of([row]) == 2e12


def test_a_row_computed_not_run_has_no_time():
    row = bench.row(coal_bench._Measurement("gpu_odp_multi", {"device": "2 GPUs"}), algorithm="coalitions", n=33)
    assert row["total_ms"] is None and row["kernel_ms"] is None and row["device"] == "2 GPUs"
