"""The Nsight Compute side of gpualgo.limits, on synthetic ncu output (no GPU, no ncu)."""
import json

import pytest

from gpualgo import limits, plots

STALLS = ("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
          "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio",
          "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
          "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
          "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio")


def _csv(launches):
    """ncu's --csv --page raw --print-units base output: its own lines, the header, the units, the launches."""
    head = ["ID", "Process ID", "Process Name", "Kernel Name", "Grid Size", "Block Size", *limits.METRICS, *STALLS]
    lines = ['==PROF== Connected to process 1 (python3)', ",".join(f'"{h}"' for h in head),
             ",".join('""' if i < 6 else '"unit"' for i in range(len(head)))]
    for i, (name, ns, read, write, inst, stalls) in enumerate(launches):
        values = {"gpu__time_duration.sum": ns, "dram__bytes_read.sum": read, "dram__bytes_write.sum": write,
                  "dram__throughput.avg.pct_of_peak_sustained_elapsed": 40.5,
                  "lts__t_sector_hit_rate.pct": 88.0, "sm__warps_active.avg.pct_of_peak_sustained_active": 61.2,
                  "sm__throughput.avg.pct_of_peak_sustained_elapsed": 75.0,
                  "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": 52.0,
                  "smsp__thread_inst_executed.sum": inst, "smsp__inst_executed.sum": inst / 32,
                  "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": inst / 8,
                  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": inst / 32}
        row = [str(i), "1", "python3", f"{name}(int*, int)", "(264, 1, 1)", "(256, 1, 1)"]
        row += [f"{values[m]:,}" for m in limits.METRICS] + [str(v) for v in stalls]
        lines.append(",".join(f'"{v}"' for v in row))
    return "\n".join(lines) + "\n==PROF== Disconnected\n"


LAUNCHES = [("odp_tile_kernel", 2_000_000, 3.0e9, 1.0e9, 8.0e9, (9.5, 1.0, 0.5, 2.0, 0.1)),
            ("odp_tile_kernel", 4_000_000, 6.0e9, 2.0e9, 16.0e9, (7.5, 1.0, 0.5, 2.5, 0.1)),
            ("odp_tile_kernel", 3_000_000, 4.5e9, 1.5e9, 12.0e9, (8.0, 1.0, 0.6, 2.0, 0.1))]


def test_parse_reads_every_launch_and_skips_ncu_lines_and_units():
    launches = limits.parse_ncu_csv(_csv(LAUNCHES))
    assert len(launches) == 3
    assert launches[0]["Kernel Name"] == "odp_tile_kernel(int*, int)"
    assert launches[1]["gpu__time_duration.sum"] == 4_000_000.0      # "4,000,000" read as a number
    with pytest.raises(ValueError, match="no launch in ncu's output"):
        limits.parse_ncu_csv("==PROF== ERROR: failed to profile\n")


def test_rows_summary_and_roofline_points():
    t = limits.TARGETS["coalitions"]
    rows = [limits._row("coalitions", t, launch, i) for i, launch in enumerate(limits.parse_ncu_csv(_csv(LAUNCHES)))]
    assert [c for c in limits.COLUMNS] == list(rows[0])
    first = rows[0]
    assert first["kernel"] == "odp_tile_kernel" and first["dram_bytes"] == 4.0e9
    assert first["dram_gbs"] == pytest.approx(2000.0)                    # 4e9 bytes in 2 ms
    assert first["instructions_per_s"] == pytest.approx(4.0e12)
    assert first["shared_conflict_pct"] == pytest.approx(25.0)          # a quarter of the passes
    assert json.loads(first["stalls"]) == {"long_scoreboard": 9.5, "wait": 2.0, "barrier": 0.5}   # not "selected"
    (line,) = limits.summary(rows)
    assert line["launches"] == 3 and line["duration_ns"] == 3_000_000 and line["dram_gbs"] == pytest.approx(2000.0)
    points = limits.roofline_points([line])
    assert points == {"coalitions: odp_tile_kernel": (pytest.approx(2.0), pytest.approx(4000.0))}
    text = limits.table([line], {"copy_bytes_per_s": 4.0e12, "imad_per_s": 8.0e12})
    assert "| coalitions: `odp_tile_kernel` (3) | 3 | 2,000 (50%) | 88% | 61% | 75% | 52% | 4,000 (50%) | 25% |" in text
    old = dict(line, shared_conflict_pct=None)                           # a profile from before the metric
    assert "| 4,000 (50%) |  | long scoreboard" in limits.table([old], {"copy_bytes_per_s": 4.0e12, "imad_per_s": 8.0e12})
    assert "long scoreboard 9.5" in text
    ax = plots.roofline(points, 4000.0, 8000.0)
    assert ax.get_ylabel() == "G instructions per second"


def test_a_kernel_without_dram_traffic_has_no_roofline_point():
    line = dict(target="tsp", kernel="k", thread_instructions=1e9, dram_bytes=0.0, instructions_per_s=1e12)
    assert limits.roofline_points([line]) == {}


def test_the_ncu_command_profiles_one_kernel_of_one_target_with_the_clocks_left_alone():
    cmd = limits.ncu_command("tsp", "shared_incremental_kernel", 0, 1, "/tmp/x.csv")
    assert cmd[:3] == ["ncu", "--clock-control", "none"] and "--profile-from-start" in cmd
    assert cmd[cmd.index("--kernel-name") + 1] == "shared_incremental_kernel"
    assert cmd[-3:] == ["gpualgo.limits", "drive", "tsp"]


def test_every_target_profiles_kernels_its_version_launches():
    from gpualgo.assignment.auction import gpu as auction_gpu
    from gpualgo.assignment.dgs import gpu as dgs_gpu
    from gpualgo.coalitions import gpu as coal_gpu
    from gpualgo.maxflow import gpu as maxflow_gpu
    from gpualgo.tsp import gpu as tsp_gpu
    tables = {"auction": auction_gpu.KERNELS, "dgs": dgs_gpu.KERNELS, "coalitions": coal_gpu.KERNELS,
              "maxflow": maxflow_gpu.KERNELS, "tsp": tsp_gpu.KERNELS}
    for name, t in limits.TARGETS.items():
        for kernel, skip, count in t.kernels:
            assert kernel in tables[t.algorithm][t.variant], (name, kernel)
            assert (callable(skip) or skip >= 0) and count >= 1


def test_the_command_line_refuses_an_unknown_target():
    with pytest.raises(SystemExit):
        limits.main(["profile", "nosuch"])


def test_show_limits_reads_a_recorded_profile_or_says_there_is_none(tmp_path, monkeypatch, capsys):
    import matplotlib
    matplotlib.use("Agg")
    from gpualgo import nbtools, results
    monkeypatch.setattr(results, "RESULTS_DIR", tmp_path)
    assert nbtools.show_limits("coalitions") == []
    assert "no profile of the coalitions kernels is recorded yet" in capsys.readouterr().out
    t = limits.TARGETS["coalitions"]
    rows = [limits._row("coalitions", t, launch, i) for i, launch in enumerate(limits.parse_ncu_csv(_csv(LAUNCHES)))]
    results.write(tmp_path / "coalitions", "limits", rows, {"targets": ["coalitions"]},
                  extra={"peaks": {"copy_bytes_per_s": 4.0e12, "imad_per_s": 8.0e12}})
    (line,) = nbtools.show_limits("coalitions")
    out = capsys.readouterr().out
    assert "measured peaks: copy 4,000 GB/s, integer multiply-adds 8.0 T/s" in out
    assert line["launches"] == 3 and line["dram_gbs"] == pytest.approx(2000.0)


def test_diagnosis_names_the_limit_both_ways():
    base = dict(target="t", kernel="k", stalls={"long_scoreboard": 9.0, "wait": 1.0})
    assert limits.diagnosis(dict(base, memory_pct_of_peak=85.0, sm_pct_of_peak=30.0)) == (
        "t: k is memory-bound: 85% of the peak memory throughput; its warps wait most on long scoreboard")
    assert limits.diagnosis(dict(base, memory_pct_of_peak=85.0, sm_pct_of_peak=30.0, dram_pct_of_peak=1.0)) == (
        "t: k is memory-bound: 85% of the peak memory throughput, on chip (L1 and shared memory, or L2: DRAM is at "
        "1% of its peak, so the data lives in the caches); its warps wait most on long scoreboard")
    assert limits.diagnosis(dict(base, memory_pct_of_peak=98.0, sm_pct_of_peak=47.0, dram_pct_of_peak=3.5,
                                 shared_conflict_pct=51.0)) == (
        "t: k is memory-bound: 98% of the peak memory throughput, on chip (L1 and shared memory, or L2: DRAM is at "
        "4% of its peak, so the data lives in the caches); bank conflicts add 51% of its shared-memory load passes "
        "(a pass serves one address per bank); its warps wait most on long scoreboard")
    assert "bank conflicts" not in limits.diagnosis(dict(base, memory_pct_of_peak=98.0, sm_pct_of_peak=47.0,
                                                         shared_conflict_pct=5.0))
    assert limits.diagnosis(dict(base, memory_pct_of_peak=70.0, sm_pct_of_peak=90.0)).startswith(
        "t: k is compute-bound: 90%")
    assert limits.diagnosis(dict(base, memory_pct_of_peak=20.0, sm_pct_of_peak=35.0)) == (
        "t: k is latency-bound: memory at 20% and compute at 35% of their peaks, neither near it; "
        "its warps wait most on long scoreboard")
    assert limits.diagnosis(dict(target="t", kernel="k", memory_pct_of_peak=None, sm_pct_of_peak=None)) == \
        "t: k: not profiled"
