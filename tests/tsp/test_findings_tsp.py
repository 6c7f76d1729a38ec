"""The TSP report's findings (gpualgo.tsp.findings): each computed verdict on synthetic rows
for which it is known, both ways, and every finding on the recorded data."""
import pytest

from gpualgo import findings as F
from gpualgo import nbtools
from gpualgo.tsp import analysis
from gpualgo.tsp import findings as tf

A, B, C, S = tf.A, tf.B, tf.C, tf.SERIAL


def finding(where_part: str, claim_part: str = "") -> F.Finding:
    got = [f for f in tf.FINDINGS if where_part in f.where and claim_part in f.claim]
    assert len(got) == 1, [f.claim for f in got]
    return got[0]


def verdict(f: F.Finding, data) -> F.Verdict:
    return F.evaluate([f], data)[0]


def report(rates: dict, ms: float = 0.5) -> list[dict]:
    """``{variant: {n: orders/s}}`` as report rows: two blocks, three runs each."""
    return [dict(variant=v, n=n, block=block, perms_per_s=rate * (1 + 0.01 * rep), total_ms=ms, rep=rep)
            for v, by_n in rates.items() for n, rate in by_n.items() for block in (32, 256) for rep in range(3)]


def scaling(serial_rate=6e7, hk=None, c_rate=None) -> list[dict]:
    rows = [dict(variant=S, n=n, perms_per_s=serial_rate, total_ms=1.0) for n in (12, 13)]
    for v, (n, ms) in (hk or {}).items():
        rows.append(dict(variant=v, n=n, perms_per_s=0.0, total_ms=ms))
    if c_rate:
        rows.append(dict(variant=C, n=16, perms_per_s=c_rate, total_ms=7000.0))
    return rows


TODAY = {A: {10: 4.5e7, 11: 4.5e7, 12: 4.8e7}, B: {10: 1.5e9, 11: 1e10, 12: 2.4e10, 13: 2.6e10, 14: 2.2e10},
         C: {10: 1.2e9, 11: 1.2e10, 12: 6.6e10, 13: 1.35e11, 14: 1.2e11}}


def test_procedural_gain_of_about_150_percent():
    f = finding("Sec. 2.2, last figure")
    v = verdict(f, {"tsp/report": report({A: {10: 4e7, 11: 4e7, 12: 4e7}, B: {12: 1e8}})})
    assert v.verdict == F.HOLDS and "x2" in v.measured
    v = verdict(f, {"tsp/report": report(TODAY)})
    assert v.verdict == F.CAVEAT and "held back by the host" in v.why
    v = verdict(f, {"tsp/report": report({A: {12: 4e7}, B: {12: 3e7}})})
    assert v.verdict == F.FAILS


def test_saturation():
    f = finding("Sec. 3", "saturation")
    still_rising = {C: {10: 1e9, 11: 1e10, 12: 6e10, 13: 1.2e11, 14: 2e11}}
    assert verdict(f, {"tsp/report": report(still_rising)}).verdict == F.HOLDS
    v = verdict(f, {"tsp/report": report(TODAY, ms=0.6)})
    assert v.verdict == F.CAVEAT and "peak at n = 13" in v.measured and "0.6 ms" in v.why
    flat = {C: {10: 5e10, 11: 5.1e10, 12: 5e10}}
    assert verdict(f, {"tsp/report": report(flat)}).verdict == F.FAILS


def test_hundreds_of_millions_per_second():
    f = finding("Sec. 4", "hundreds of millions")
    assert verdict(f, {"tsp/report": report(TODAY)}).verdict == F.HOLDS
    assert verdict(f, {"tsp/report": report({B: {12: 5e7}, C: {12: 9e7}})}).verdict == F.FAILS


def test_the_64_bit_limit_is_one_city_further_than_the_report_says():
    assert tf.limit_verdict(21, 64).verdict == F.FAILS
    assert tf.limit_verdict(22, 64).verdict == F.HOLDS
    v = verdict(finding("Sec. 4", "2^64"), {})
    assert v.verdict == F.FAILS and "22 cities" in v.measured


def test_twenty_cities_in_more_than_21_years():
    f = finding("Sec. 4", "21 years")
    v = verdict(f, {"tsp/report": report(TODAY), "tsp/scaling": scaling()})
    assert v.verdict == F.FAILS and "days" in v.measured and "numba, one core" in v.measured
    slow = {A: {12: 4e7}, B: {12: 1e8}, C: {12: 1.5e8}}      # 19! / 1e8 per s: 38 years
    v = verdict(f, {"tsp/report": report(slow)})
    assert v.verdict == F.HOLDS and "years" in v.measured


def test_only_hardware_moves_the_time_limit():
    f = finding("Sec. 4", "more powerful hardware")
    fast_hk = scaling(hk={"held_karp": (22, 800.0), "gpu_held_karp": (25, 17.0)}, c_rate=9e10)
    v = verdict(f, {"tsp/scaling": fast_hk})
    assert v.verdict == F.FAILS and "n = 25" in v.measured
    small_hk = scaling(hk={"held_karp": (16, 10.0)}, c_rate=9e10)       # Held-Karp never past 20 cities
    assert verdict(f, {"tsp/scaling": small_hk}).verdict == F.HOLDS
    # the brute force's rate may come from tsp/report when tsp/scaling has no GPU rows
    v = verdict(f, {"tsp/scaling": scaling(hk={"held_karp": (22, 800.0)}), "tsp/report": report(TODAY)})
    assert v.verdict == F.FAILS
    assert verdict(f, {"tsp/scaling": scaling()}).verdict == F.UNTESTABLE


def test_gpu_against_cpu():
    f = finding("Sec. 3, device figures")
    v = verdict(f, {"tsp/report": report(TODAY), "tsp/scaling": scaling()})
    assert v.verdict == F.CAVEAT and "one core" in v.why and "slower than even one core" in v.why
    v = verdict(f, {"tsp/report": report({A: {12: 4e7}, C: {12: 5e7, 13: 5e7}}), "tsp/scaling": scaling(6e7)})
    assert v.verdict == F.FAILS
    # with the brute force on every core in the same set, the comparison is fair: holds or not
    on_all = scaling() + [dict(variant=tf.PARALLEL, n=13, perms_per_s=9e8, total_ms=1.0)]
    v = verdict(f, {"tsp/report": report(TODAY), "tsp/scaling": on_all})
    assert v.verdict == F.HOLDS and "every core" in v.measured
    on_all = scaling() + [dict(variant=tf.PARALLEL, n=13, perms_per_s=2e11, total_ms=1.0)]
    assert verdict(f, {"tsp/report": report(TODAY), "tsp/scaling": on_all}).verdict == F.FAILS


def test_shared_matrix_is_untestable_but_shows_the_ratio():
    v = verdict(finding("Sec. 2.2", "sliding"), {"tsp/report": report(TODAY)})
    assert v.verdict == F.UNTESTABLE and "x5.5" in v.measured and "three things" in v.why


def test_every_finding_on_the_recorded_data():
    rows, _ = nbtools.findings_data(tf.FINDINGS)
    verdicts = F.evaluate(tf.FINDINGS, rows)
    assert len(verdicts) == len(tf.FINDINGS) == 13
    got = {f.where + " | " + f.claim[:30]: v.verdict for f, v in zip(tf.FINDINGS, verdicts)}
    expected = [F.FAILS, F.CAVEAT, F.HOLDS, F.CAVEAT,          # the tuning steps of (a): tsp/tuning
                F.CAVEAT, F.FAILS, F.CAVEAT, F.CAVEAT, F.HOLDS, F.HOLDS, F.FAILS, F.FAILS, F.FAILS]
    assert list(got.values()) == expected, got
    for f, v in zip(tf.FINDINGS, verdicts):
        if v.verdict == F.UNTESTABLE:
            assert "needs" in v.why.lower() or "there is no" in v.why, (f.claim, v.why)


@pytest.mark.parametrize("f", tf.FINDINGS, ids=lambda f: f.where)
def test_missing_sets_make_a_finding_untestable_not_an_error(f):
    assert verdict(f, {}).verdict in (F.UNTESTABLE, F.FAILS)    # the 2^64 limit needs no rows


def test_held_karp_steps_count_the_loops_of_the_code():
    # one step per (set S, last j in S, previous k in S minus j): the figure of section 8
    from gpualgo.tsp import serial
    for n in range(2, 12):
        m = n - 1
        loops = sum(bin(s).count("1") * (bin(s).count("1") - 1) for s in range(1 << m))
        assert serial.held_karp_steps(n) == loops


def test_analysis_sentences_from_rows():
    from gpualgo.tsp import analysis
    rows = report(TODAY)
    assert analysis.host_bound(rows, 6e7, 12).endswith("on one core: 1.2x slower.")
    assert analysis.host_bound(rows, 6e7, 12, variant=C, where="all").endswith("on all: 1,111x faster.")
    assert analysis.host_bound(rows, 6e7, 9) == "no rows of gpu_host_chunks at n = 9."
    gains = analysis.halving_gains([dict(n=15, symmetric=False, total_ms=790.0), dict(n=15, symmetric=True, total_ms=610.0),
                                    dict(n=16, symmetric=None, total_ms=7000.0)])
    assert list(gains) == [15] and gains[15][2] == pytest.approx(1.295, abs=1e-3)


# ---------------------------------------------------------------- the tuning steps (tsp/tuning)

def tuning(steps: dict, runs: int = 3) -> list[dict]:
    """``{step: (orders/s, kernel ms, copies ms, host ms)}`` as tsp/tuning rows, a few runs each."""
    return [dict(step=step, variant="v", n=12, rep=rep, perms_per_s=rate * (1 + 0.001 * rep), kernel_ms=kernel,
                 transfer_ms=copies, host_ms=host, total_ms=39916800 / rate * 1e3, verified=True)
            for step, (rate, kernel, copies, host) in steps.items() for rep in range(runs)]


#: (a) as it is on today's GPU: host-bound, every step within noise of the others
HOST_BOUND = {"a": (4.7e7, 20.0, 30.0, 800.0), "a+int32+pageable": (4.65e7, 60.0, 200.0, 820.0),
              "a+int32": (4.6e7, 60.0, 120.0, 810.0), "a+pageable": (4.65e7, 20.0, 90.0, 800.0),
              "a+mapped": (4.7e7, 45.0, 0.01, 800.0), "a+shared_matrix": (4.7e7, 23.0, 30.0, 800.0),
              "a+city_major": (4.7e7, 15.0, 30.0, 800.0)}


def test_char_and_mapping_gain():
    f = finding("Sec. 2.1.1, first figure")
    v = verdict(f, {"tsp/tuning": tuning(HOST_BOUND)})
    assert v.verdict == F.FAILS and "host's writing" in v.why and "x1.01" in v.measured
    like_report = dict(HOST_BOUND, **{"a+int32+pageable": (1.9e7, 60.0, 200.0, 800.0)})
    assert verdict(f, {"tsp/tuning": tuning(like_report)}).verdict == F.HOLDS
    some = dict(HOST_BOUND, **{"a+int32+pageable": (4.0e7, 60.0, 200.0, 800.0)})
    assert verdict(f, {"tsp/tuning": tuning(some)}).verdict == F.CAVEAT
    v = verdict(f, {})
    assert v.verdict == F.UNTESTABLE and "needs the steps a, a+int32+pageable" in v.why


def test_buffer_kinds():
    f = finding("Sec. 2.1.1, second to fourth")
    v = verdict(f, {"tsp/tuning": tuning(HOST_BOUND)})
    assert v.verdict == F.CAVEAT and "hardly beats re-creating" in v.why
    faster = dict(HOST_BOUND, **{"a+pageable": (3.0e7, 20.0, 90.0, 800.0)})
    assert verdict(f, {"tsp/tuning": tuning(faster)}).verdict == F.HOLDS
    slow_map = dict(faster, **{"a+mapped": (2.0e7, 900.0, 0.01, 800.0)})
    v = verdict(f, {"tsp/tuning": tuning(slow_map)})
    assert v.verdict == F.CAVEAT and "over the bus" in v.why
    neither = dict(HOST_BOUND, **{"a+mapped": (2.0e7, 900.0, 0.01, 800.0)})
    assert verdict(f, {"tsp/tuning": tuning(neither)}).verdict == F.FAILS
    assert verdict(f, {"tsp/tuning": tuning({"a": HOST_BOUND["a"]})}).verdict == F.UNTESTABLE


def test_matrix_in_shared_memory_slightly_slower():
    f = finding("Sec. 2.1.2, first figure")
    v = verdict(f, {"tsp/tuning": tuning(HOST_BOUND)})      # kernel x1.15, rate unchanged
    assert v.verdict == F.CAVEAT and "kernel is slower (x1.15" in v.why
    slight = dict(HOST_BOUND, **{"a+shared_matrix": (4.4e7, 23.0, 30.0, 800.0)})
    assert verdict(f, {"tsp/tuning": tuning(slight)}).verdict == F.HOLDS
    much = dict(HOST_BOUND, **{"a+shared_matrix": (3.0e7, 50.0, 30.0, 800.0)})
    assert "more than slightly" in verdict(f, {"tsp/tuning": tuning(much)}).why
    none = dict(HOST_BOUND, **{"a+shared_matrix": (4.7e7, 19.0, 30.0, 800.0)})
    assert verdict(f, {"tsp/tuning": tuning(none)}).verdict == F.FAILS
    assert verdict(f, {}).verdict == F.UNTESTABLE


def test_contiguous_orders_slower():
    f = finding("Sec. 2.1.2, second figure")
    v = verdict(f, {"tsp/tuning": tuning(HOST_BOUND)})      # coalesced: kernel faster, rate unchanged
    assert v.verdict == F.FAILS and "kernel x0.75" in v.why
    slower = dict(HOST_BOUND, **{"a+city_major": (3.0e7, 15.0, 30.0, 1300.0)})
    v = verdict(f, {"tsp/tuning": tuning(slower)})
    assert v.verdict == F.HOLDS and "host writing 1.3e+03 against 800 ms" in v.measured
    hidden = dict(HOST_BOUND, **{"a+city_major": (4.7e7, 30.0, 30.0, 800.0)})
    assert verdict(f, {"tsp/tuning": tuning(hidden)}).verdict == F.CAVEAT
    assert verdict(f, {}).verdict == F.UNTESTABLE


def test_shared_matrix_in_c_measured_change_by_change():
    f = finding("Sec. 2.2", "sliding")
    steps = {"b": (2.4e10, 1.6, None, None), "b+shared_matrix": (2.45e10, 1.6, None, None),
             "c": (6.6e10, 0.6, None, None), "c+global_matrix": (6.5e10, 0.6, None, None),
             "c+full_cost": (3.0e10, 1.3, None, None)}
    v = verdict(f, {"tsp/tuning": tuning(steps), "tsp/report": report(TODAY)})
    assert v.verdict == F.FAILS and "most of (c)'s gain comes from incremental costs" in v.why
    assert "x2.8" in v.measured
    pays = dict(steps, **{"c+global_matrix": (5.0e10, 0.8, None, None)})
    v = verdict(f, {"tsp/tuning": tuning(pays)})
    assert v.verdict == F.HOLDS and "incremental costs" in v.why
    little = dict(steps, **{"c+global_matrix": (6.3e10, 0.62, None, None)})
    assert verdict(f, {"tsp/tuning": tuning(little)}).verdict == F.CAVEAT
    # without tsp/tuning: the report's ratio, and which run it needs
    v = verdict(f, {"tsp/report": report(TODAY)})
    assert v.verdict == F.UNTESTABLE and "x5.5" in v.measured and "needs the steps b," in v.why


def test_gpu_against_every_core_from_cpu_cores():
    f = finding("Sec. 3, device figures")
    cores = [dict(variant=v, n=13, perms_per_s=rate, total_ms=1.0, threads=t, cores=16)
             for v, rate, t in ((S, 7e7, 1), (tf.PARALLEL, 9e8, 16))]
    v = verdict(f, {"tsp/report": report(TODAY), "tsp/cpu_cores": cores})
    assert v.verdict == F.HOLDS and "16 threads, tsp/cpu_cores" in v.measured and "n = 13, tsp/cpu_cores" in v.measured
    # tsp/cpu_cores wins over tsp/scaling's every-core rows
    fast_scal = scaling() + [dict(variant=tf.PARALLEL, n=13, perms_per_s=2e11, total_ms=1.0)]
    v = verdict(f, {"tsp/report": report(TODAY), "tsp/scaling": fast_scal, "tsp/cpu_cores": cores})
    assert v.verdict == F.HOLDS
    beats = [dict(r, perms_per_s=2e11) if r["variant"] == tf.PARALLEL else r for r in cores]
    assert verdict(f, {"tsp/report": report(TODAY), "tsp/cpu_cores": beats}).verdict == F.FAILS
    assert verdict(f, {"tsp/cpu_cores": cores}).verdict == F.UNTESTABLE


def test_tuning_table_and_lines():
    from gpualgo.tsp import analysis
    rows = tuning(HOST_BOUND, runs=2) + [dict(step="b", perms_per_s=1.2e10, kernel_ms=3.0, verified=True)]
    table = {t["step"]: t for t in analysis.tuning_table(rows)}
    assert list(table)[:2] == ["a", "a+int32+pageable"] and table["a"]["runs"] == 2 and table["a"]["verified"]
    assert table["a+int32"]["vs_base"] == pytest.approx(4.6 / 4.7, rel=1e-3)
    assert table["b"]["vs_base"] == pytest.approx(1.2e10 / 4.7e7, rel=1e-3) and table["b"]["report"] == 2.5
    lines = analysis.tuning_lines(rows)
    assert len(lines) == 8 and "(report: x0.4)" in lines[1] and "transfer - ms" in lines[-1]
    assert analysis.tuning_table([]) == [] and analysis.cores_lines([]) == []


def test_the_cpu_spread_against_the_gpu_spread_both_ways():
    f = next(f for f in tf.FINDINGS if "measurements vary more" in f.claim)

    def rows(variant, spread, runs, n=12):
        return [dict(variant=variant, n=n, block=None, perms_per_s=1e8 * (1 + spread * (k % 2 * 2 - 1)))
                for k in range(runs)]
    gpu_rows = rows("gpu_shared_incremental", 0.01, 20)
    v = verdict(f, {"tsp/report": gpu_rows, "tsp/cpu_cores": rows("cpu_prange", 0.1, 3)})
    assert v.verdict == F.CAVEAT and "3 runs each" in v.measured and "20 runs each" in v.measured
    assert verdict(f, {"tsp/report": gpu_rows, "tsp/cpu_cores": rows("cpu_prange", 0.01, 3)}).verdict == F.FAILS
    assert verdict(f, {"tsp/report": gpu_rows}).verdict == F.UNTESTABLE


def test_largest_and_phase_lines():
    from gpualgo import results
    lines = analysis.largest_lines(results.read("tsp", "largest").rows)
    assert lines[0].startswith("brute force, n = 17") and "(verified against GPU Held-Karp)" in lines[0]
    assert lines[0].endswith("goal under 60 s: met")          # 6.9 s recorded on an H100
    assert len(lines) == 4 and all("the planted optimum" in ln and "(verified)" in ln for ln in lines[1:])
    assert "n = 30" in lines[-1] and "58.0 GiB" in lines[-1]
    recorded = analysis.phase_lines(results.read("tsp", "phase").rows)     # H100, n = 16, each tour once
    assert len(recorded) == 7 and recorded[0].startswith("chunks 0..1 (1): as built 1.42e+12 orders/s")
    assert recorded[2].startswith("chunks 0..13 (13)") and recorded[2].endswith("registers 12.64x, phase 2.25x")
    assert recorded[-1].startswith("chunks 0..105 (105)") and recorded[-1].endswith("registers 12.52x, phase 1.40x")
    rows = [dict(first_chunk=0, end_chunk=13, phase=p, suffix=s, perms_per_s=r)
            for p, s, r in ((True, "registers", 3.6e11), (True, "steps", 1.2e11), (False, "steps", 6e10))]
    rows.append(dict(first_chunk=0, end_chunk=1, phase=True, suffix="steps", perms_per_s=1e11))   # alone: no line
    assert analysis.phase_lines(rows) == [
        "chunks 0..13 (13): as built 3.6e+11 orders/s, last four stepped 1.2e+11, stepped out of phase 6e+10: "
        "registers 3.00x, phase 2.00x"]
