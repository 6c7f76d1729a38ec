"""The coalition report's findings (gpualgo.coalitions.findings): each computed verdict fed with
synthetic rows for which it is known, both ways, then the verdicts of the recorded data."""
import pytest

from gpualgo import findings as F
from gpualgo import nbtools
from gpualgo.coalitions import findings as cf
from gpualgo.coalitions.solve import total_splits

REP, BW, PH, LA = cf.REPORT_SET, cf.BANDWIDTH_SET, cf.PHASES_SET, cf.LAUNCH_SET
H100 = "NVIDIA H100 80GB HBM3"


def _row(variant, n, total_ms, **extra):
    rule = "odp" if variant.endswith("odp") else "dp"
    return dict(variant=variant, n=n, total_ms=total_ms, rule=rule, **extra)


def _verdict(finding, data):
    return F.evaluate([finding], data)[0]


def _finding(test):
    return next(f for f in cf.FINDINGS if f.test is test)


# ------------------------------------------------------------------------ the headline

def _headline_rows(gpu_n, gpu_ms):
    return [_row("serial", 22, 35_000.0), _row("gpu_report", gpu_n, gpu_ms)]


def test_headline_three_ways():
    f = _finding(cf.headline)
    # the report's kernel measured at 29: 200 s against ~21.7 h of serial DP scaled from n = 22
    v = _verdict(f, {REP: _headline_rows(29, 200_000.0)})
    assert v.verdict == F.HOLDS and "(measured)" in v.measured and "extrapolated from n = 22" in v.measured
    # only run to n = 27: the factor is still far above 40, with the extrapolation said
    v = _verdict(f, {REP: _headline_rows(27, 30_000.0)})
    assert v.verdict == F.CAVEAT and "extrapolated from n = 27" in v.measured and "run only to n = 27" in v.why
    # as slow as the report's GPU: about 11x, not over 40
    v = _verdict(f, {REP: _headline_rows(29, 7_200_000.0)})
    assert v.verdict == F.FAILS
    assert _verdict(f, {REP: [_row("serial", 22, 1.0)]}).verdict == F.UNTESTABLE


def test_headline_scales_by_the_count_of_splits():
    v = _verdict(_finding(cf.headline), {REP: _headline_rows(29, 200_000.0)})
    hours = 35.0 * total_splits(29) / total_splits(22) / 3600
    assert f"serial DP {hours:.0f} h" in v.measured


def _growth_rows(gpu_step, rates, top_step=None):
    """serial x3.2 per agent (n = 10..14), gpu_report x gpu_step (n = 10..16), splits/s as given."""
    rows = [_row("serial", n, 3.2 ** (n - 10)) for n in range(10, 15)]
    t = 0.01
    for n, rate in zip(range(10, 17), rates):
        rows.append(_row("gpu_report", n, t, splits_per_s=rate))
        t *= top_step if (top_step and n == 15) else gpu_step
    for r in rows:
        if r["variant"] == "serial":
            r["splits_per_s"] = 1e8
    return rows


def test_speedup_grows_three_ways():
    f = _finding(cf.speedup_grows)
    rising = [1e9 * 2 ** k for k in range(7)]
    assert _verdict(f, {REP: _growth_rows(2.5, rising)}).verdict == F.HOLDS
    flat = rising[:5] + [rising[4], rising[4] * 0.99]          # the GPU full from n = 14
    v = _verdict(f, {REP: _growth_rows(2.5, flat, top_step=3.0)})
    assert v.verdict == F.CAVEAT and "no longer rise" in v.why
    assert _verdict(f, {REP: _growth_rows(3.3, rising)}).verdict == F.FAILS


def test_shared_splits_three_ways():
    f = _finding(cf.shared_splits_faster)

    def rows(shared_ms):
        return [_row("gpu_report", 27, 30.0), _row("gpu_shared_splits", 27, shared_ms)]
    v = _verdict(f, {REP: rows(20.0)})
    assert v.verdict == F.HOLDS and v.measured.startswith("50% faster at n = 27")
    assert _verdict(f, {REP: rows(27.0)}).verdict == F.CAVEAT
    assert _verdict(f, {REP: rows(36.0)}).verdict == F.FAILS
    # slower at small sizes, faster from n = 18 on: holds, and says from where
    mixed = rows(20.0) + [_row("gpu_report", 17, 1.0), _row("gpu_shared_splits", 17, 1.2),
                          _row("gpu_report", 18, 3.0), _row("gpu_shared_splits", 18, 2.5)]
    v = _verdict(f, {REP: mixed})
    assert v.verdict == F.HOLDS and "from 18" in v.measured and "below n = 18" in v.why


# ---------------------------------------------------------------------- memory traffic

def _bw_rows(report_share, copy=1e12, shared=True, odp_logical=3e12):
    rows = [dict(variant="device_copy", n=0, copy_bytes_per_s=copy),
            dict(variant="gpu_report", n=24, splits_per_s=1e11, bytes_per_s=report_share * copy,
                 logical_bytes_per_s=report_share * copy),
            dict(variant="gpu_odp", n=28, splits_per_s=1e12, bytes_per_s=0.1 * copy, logical_bytes_per_s=odp_logical)]
    if shared:
        rows.append(dict(variant="gpu_shared_splits", n=24, splits_per_s=1.43e11, bytes_per_s=0.98 * report_share * copy,
                         logical_bytes_per_s=1.4 * report_share * copy, reads_saved=30, splits=50))
    return rows


def _report_rows(rate_in_l2=1.05e12, rate_out=1.01e12):
    return [_row("gpu_report", 23, 1.0, bytes_per_s=rate_in_l2, device=H100),
            _row("gpu_report", 27, 9.0, bytes_per_s=rate_out, device=H100)]


def test_bandwidth_bound_three_ways():
    f = _finding(cf.bandwidth_bound)
    v = _verdict(f, {BW: _bw_rows(0.36), REP: _report_rows()})
    assert v.verdict == F.FAILS
    assert "36% of the 1,000 GB/s copy" in v.measured and "n = 23 (table in the L2)" in v.measured
    assert "+43% splits/s at 98% of the bytes/s" in v.measured and "leaves the L2" in v.why
    assert _verdict(f, {BW: _bw_rows(0.9), REP: _report_rows()}).verdict == F.HOLDS
    assert _verdict(f, {BW: _bw_rows(0.6), REP: _report_rows()}).verdict == F.CAVEAT
    # a request rate that halves when the table leaves the L2 is not the pattern of a load-issue limit
    assert _verdict(f, {BW: _bw_rows(0.36), REP: _report_rows(rate_out=0.5e12)}).verdict == F.CAVEAT
    assert _verdict(f, {REP: _report_rows()}).verdict == F.UNTESTABLE


def test_random_access_both_ways():
    f = _finding(cf.random_access_low_bandwidth)
    v = _verdict(f, {BW: _bw_rows(0.36)})
    assert v.verdict == F.HOLDS and "300% of it in values used" in v.measured
    assert _verdict(f, {BW: _bw_rows(0.7)}).verdict == F.FAILS
    assert _verdict(f, {BW: _bw_rows(0.36)[1:]}).verdict == F.UNTESTABLE     # no copy measured


def test_findings_without_data_say_what_is_missing():
    v = _verdict(_finding(cf.time_in_fetches), {})
    assert v.verdict == F.UNTESTABLE and "coalitions/phases" in v.why
    v = _verdict(_finding(cf.more_shared_fewer_fetches), {BW: _bw_rows(0.36)})
    assert v.verdict == F.UNTESTABLE and "coalitions/launch" in v.why


# ------------------------------------------------------------ clock cycles per phase

def _phase_rows(report=(0.1, 0.6, 0.1, 0.2), shared=(0.15, 0.5, 0.15, 0.2)):
    rows = []
    for variant, shares in (("gpu_report", report), ("gpu_shared_splits", shared)):
        if shares is None:
            continue
        for n in (20, 22):
            rows.append(dict(variant=variant, n=n, verified=True, phase_coverage=0.9,
                             **{f"share_{p}": x for p, x in zip(("setup", "fetch", "evaluate", "reduce"), shares)}))
    return rows


def test_time_in_fetches_every_way():
    f = _finding(cf.time_in_fetches)
    v = _verdict(f, {PH: _phase_rows()})
    assert v.verdict == F.HOLDS and "report kernel at n = 22: setup 10%, fetch 60%" in v.measured
    assert "shared splits at n = 22: fetch 50%" in v.measured and "45%..75%" in v.measured
    v = _verdict(f, {PH: _phase_rows(report=(0.05, 0.9, 0.02, 0.03))})      # fetching, far above 60 %
    assert v.verdict == F.CAVEAT and "90%" in v.why
    assert _verdict(f, {PH: _phase_rows(shared=None)}).verdict == F.CAVEAT
    assert _verdict(f, {PH: _phase_rows(report=(0.1, 0.3, 0.1, 0.5))}).verdict == F.FAILS
    assert _verdict(f, {PH: _phase_rows(shared=(0.1, 0.3, 0.5, 0.1))}).verdict == F.FAILS
    assert _verdict(f, {PH: _phase_rows(report=None)}).verdict == F.UNTESTABLE
    assert _verdict(f, {PH: []}).verdict == F.UNTESTABLE


# --------------------------------------------------------------- the launch sweep

def _share_rows(avoided, rates):
    rows = []
    for k, a, rate in zip(range(2, 2 + len(avoided)), avoided, rates):
        rows.append(dict(variant="gpu_shared_splits", n=22, swept="report" if k == 8 else "share",
                         report_config=k == 8, total_ms=1e9 / rate, share=k, block=256, per_thread=2,
                         coalitions_per_thread=32, splits=10**6, reads_saved=int(a * 2 * 10**6), splits_per_s=rate))
    return rows


def test_more_shared_fewer_fetches_every_way():
    f = _finding(cf.more_shared_fewer_fetches)
    avoided = [0.2, 0.3, 0.35, 0.4, 0.42, 0.44, 0.45]
    v = _verdict(f, {LA: _share_rows(avoided, [1e9 + 1e8 * k for k in range(7)])})
    assert v.verdict == F.HOLDS and "share 2 20%" in v.measured and "share 8 45%" in v.measured
    assert "splits/s highest at share 8" in v.measured
    v = _verdict(f, {LA: _share_rows(avoided, [1e9, 2e9, 3e9, 2e9, 1e9, 1e9, 1e9])})
    assert v.verdict == F.CAVEAT and "peak at share 4" in v.why
    v = _verdict(f, {LA: _share_rows([0.2, 0.3, 0.25, 0.4, 0.42, 0.44, 0.45], [1e9] * 7)})
    assert v.verdict == F.FAILS
    assert _verdict(f, {LA: _share_rows([0.2], [1e9])}).verdict == F.UNTESTABLE
    assert _verdict(f, {LA: []}).verdict == F.UNTESTABLE


# ------------------------------------------------------------------- the DP and the GPU

def test_rebuild_three_ways():
    f = _finding(cf.rebuild_is_cheap)

    def rows(kernel_ms):
        return [_row("gpu_report", 27, 100.0, kernel_ms=kernel_ms)]
    v = _verdict(f, {REP: rows(99.0)})
    assert v.verdict == F.HOLDS and "1.0%" in v.measured
    assert _verdict(f, {REP: rows(90.0)}).verdict == F.CAVEAT
    assert _verdict(f, {REP: rows(50.0)}).verdict == F.FAILS


def test_dp_growth_both_ways():
    f = _finding(cf.dp_is_3_to_the_n)
    v = _verdict(f, {REP: [_row("serial", n, 3.0 ** n) for n in range(10, 20)]})
    assert v.verdict == F.HOLDS and "x3.00 per added agent" in v.measured and "n = 15..19" in v.measured
    assert _verdict(f, {REP: [_row("serial", n, 2.0 ** n) for n in range(10, 20)]}).verdict == F.FAILS


def test_gpu_beneficial_three_ways():
    f = _finding(cf.gpu_beneficial)

    def rows(factor):
        return [_row("serial", 20, 1000.0), _row("gpu_report", 20, 1000.0 / factor)]
    assert _verdict(f, {REP: rows(100)}).verdict == F.HOLDS
    assert _verdict(f, {REP: rows(5)}).verdict == F.CAVEAT
    assert _verdict(f, {REP: rows(0.5)}).verdict == F.FAILS
    v = _verdict(f, {REP: rows(100) + [_row("serial", 10, 0.1), _row("gpu_report", 10, 0.8)]})
    assert v.verdict == F.HOLDS and "faster from n = 20" in v.measured and "0.8 ms at n = 10" in v.why


def test_fewer_fetches_both_ways():
    f = _finding(cf.fewer_fetches_raise_performance)

    def rows(odp_rate):
        return [_row("gpu_shared_splits", 27, 1.0, splits_per_s=1.9e11, bytes_per_s=1.0e12),
                _row("gpu_odp", 27, 1.0, splits_per_s=odp_rate, bytes_per_s=5e11),
                _row("gpu_odp", 29, 1.0, splits_per_s=odp_rate, bytes_per_s=5e11)]
    v = _verdict(f, {REP: rows(1e12)})
    assert v.verdict == F.HOLDS and v.measured.startswith("at n = 27")
    assert _verdict(f, {REP: rows(2e11)}).verdict == F.FAILS


# ------------------------------------------------------------------ the recorded data

EXPECTED = {
    cf.headline: F.HOLDS,                        # the report's kernel recorded at n = 29 (250 s)
    cf.speedup_grows: F.FAILS,                   # x3.45 a further agent against the serial DP's x3.35 at n = 22
    cf.shared_splits_faster: F.CAVEAT,           # 29 % at n = 29, below the report's 40 %
    cf.bandwidth_bound: F.FAILS,                 # 54 % of the copy at n = 24, its loads served on chip
    cf.random_access_low_bandwidth: F.FAILS,     # the scattered reads request 54 % of the copy at n = 24
    cf.time_in_fetches: F.HOLDS,                 # Figs. 2-3: fetch 73% of the report kernel's cycles at n = 25
    cf.more_shared_fewer_fetches: F.HOLDS,       # reads avoided grow with share, 21% to 36%
    cf.rebuild_is_cheap: F.HOLDS,
    cf.dp_is_3_to_the_n: F.HOLDS,
    cf.gpu_beneficial: F.HOLDS,
    cf.fewer_fetches_raise_performance: F.HOLDS,
}


def test_every_finding_is_tested_on_the_recorded_data():
    assert {f.test for f in cf.FINDINGS} == set(EXPECTED)
    rows, sources = nbtools.findings_data(cf.FINDINGS)
    assert set(rows) == {REP, BW, PH, LA, cf.LIMITS_SET} and "coalitions/report.csv" in sources[REP]
    verdicts = F.evaluate(cf.FINDINGS, rows)
    assert all(isinstance(v, F.Verdict) for v in verdicts)
    assert {f.test: v.verdict for f, v in zip(cf.FINDINGS, verdicts)} == EXPECTED
    table = F.table(cf.FINDINGS, verdicts, sources)
    assert table.splitlines()[-1] == "11 findings. holds: 7; holds with a caveat: 1; does not hold: 3."
    assert "nan" not in table.lower()


def test_the_headline_on_the_recorded_data():
    rows = nbtools.findings_data(cf.FINDINGS)[0]
    v = _verdict(_finding(cf.headline), rows)
    assert v.verdict == F.HOLDS and "report kernel 4.2 min (measured)" in v.measured
    assert "serial DP 24 h (extrapolated from n = 22): 349x" in v.measured


@pytest.mark.parametrize("name", [REP, BW, PH, LA])
def test_every_finding_survives_an_empty_set(name):
    verdicts = F.evaluate(cf.FINDINGS, {name: []})
    assert all(v.verdict == F.UNTESTABLE for v in verdicts)


def _degenerate_sets():
    """Rows a quick run or a damaged file could give: one size, zero times, missing counters."""
    names = ("serial", "serial_odp", "gpu_report", "gpu_shared_splits", "gpu_odp")
    one = [_row(v, 4, 1.0) for v in names]
    zeros = [_row(v, n, 0.0, kernel_ms=0.0, splits_per_s=0.0, bytes_per_s=0.0) for v in names for n in (4, 5, 6, 7, 8)]
    bare = [dict(variant=v, n=n, total_ms=1.0 + n) for v in names for n in (4, 5, 6, 7, 8)]
    copy = [dict(variant="device_copy", n=0, copy_bytes_per_s=0.0)]
    phases = [dict(r, share_setup=0.0, share_fetch=0.0, share_evaluate=0.0, share_reduce=0.0) for r in zeros]
    launch = [dict(r, swept="share", share=k, reads_saved=0, splits=0) for k, r in enumerate(zeros)]
    return [{REP: one, BW: copy + one, PH: one, LA: one}, {REP: zeros, BW: copy + zeros, PH: phases, LA: launch},
            {REP: bare, BW: bare, PH: bare, LA: bare},
            {REP: bare + zeros, BW: [dict(variant="device_copy", n=0, copy_bytes_per_s=1e12)] + bare}]


@pytest.mark.parametrize("data", _degenerate_sets())
def test_degenerate_rows_give_a_verdict_not_an_error(data):
    verdicts = F.evaluate(cf.FINDINGS, data)
    assert len(verdicts) == len(cf.FINDINGS) and all(isinstance(v, F.Verdict) for v in verdicts)


def test_the_bandwidth_verdict_reads_the_nsight_compute_profile_when_there_is_one():
    data = nbtools.findings_data(cf.FINDINGS)[0]
    on_chip = [dict(kernel="report_kernel", dram_gbs=0.8, dram_pct_of_peak=0.1, l2_hit_pct=99.7,
                    memory_pct_of_peak=89.0, sm_pct_of_peak=60.0)]
    v = cf.bandwidth_bound(dict(data, **{cf.LIMITS_SET: on_chip}))
    assert v.verdict == F.FAILS and "Nsight Compute settles it" in v.why and "L2 hit rate 100%" in v.measured
    assert "bound by memory, but on chip" in v.why and "compute at 60%" in v.measured
    # the same loads from the caches, but the instructions busier than the memory pipelines
    busy = [dict(on_chip[0], memory_pct_of_peak=68.0, sm_pct_of_peak=84.0)]
    v = cf.bandwidth_bound(dict(data, **{cf.LIMITS_SET: busy}))
    assert v.verdict == F.FAILS and "bound by its instructions (compute at 84% of the peak" in v.why
    assert "bound by memory" not in v.why
    # a profile with DRAM busy decides nothing by itself
    dram = [dict(on_chip[0], dram_pct_of_peak=70.0)]
    v = cf.bandwidth_bound(dict(data, **{cf.LIMITS_SET: dram}))
    assert "settles it" not in v.why
    v = cf.bandwidth_bound({k: r for k, r in data.items() if k != cf.LIMITS_SET})
    assert "Nsight Compute" not in v.measured and "settles it" not in v.why
