"""The source report's findings, each tested against the recorded or live rows.

The report (*Dynamic programming for coalition structure generation, CUDA*: the DP of
Rothkopf et al. on a GTX 660 Ti against one Xeon W3520 core) states the conclusions below.
Each test computes its verdict from rows of the presets of :mod:`gpualgo.coalitions.bench`
(``coalitions/report``, ``coalitions/bandwidth``, ``coalitions/phases``, ``coalitions/launch``),
with the computations of
:mod:`gpualgo.coalitions.analysis`; a rerun on another GPU updates every verdict. The
report's headline (29 agents) is recomputed on the report's own versions, the serial DP and
the report's kernel: where a version was not run that far (the serial DP would take a day),
its time is extrapolated from its measured time at its largest n by the count of splits, as
the report itself did for its CPU, and the measurement says so.

>>> from gpualgo import findings
>>> len(FINDINGS), all(isinstance(f, findings.Finding) for f in FINDINGS)
(11, True)
"""
from __future__ import annotations

from ..findings import Finding, Missing, caveat, fails, holds, median, need, ratio, untestable
from . import analysis
from .analysis import num

__all__ = ["FINDINGS", "REPORT_SET", "BANDWIDTH_SET", "PHASES_SET", "LAUNCH_SET", "SHARED_GAIN_FLOOR", "FAST_SHARE",
           "FETCH_BAND"]

REPORT_SET = "coalitions/report"
BANDWIDTH_SET = "coalitions/bandwidth"
PHASES_SET = "coalitions/phases"
LAUNCH_SET = "coalitions/launch"
LIMITS_SET = "coalitions/limits"       # the Nsight Compute profile (python -m gpualgo.limits)
#: shared splits "40 % faster": a gain of at least 30 % agrees, a smaller positive gain only in part
SHARED_GAIN_FLOOR = 0.30
#: a fraction of the copy bandwidth at or above which a kernel is taken as bandwidth-bound
FAST_SHARE = 0.8
#: below this fraction of the copy bandwidth, the effective bandwidth is "low"
LOW_SHARE = 0.5
#: "almost 60 % of the time fetching memory": the report read it off log-scale bars of its own
#: checkpoints, and our phases draw their borders a little differently (our fetch phase is its
#: checkpoint 4, split generation included, but the instrumented kernel batches the loads), so
#: a fetch share of the phases' cycles within 15 points of 60 % agrees
FETCH_BAND = (0.45, 0.75)


def _s(seconds: float) -> str:
    """A duration for a sentence: seconds, minutes or hours."""
    if seconds >= 3 * 3600:
        return f"{seconds / 3600:.0f} h"
    if seconds >= 120:
        return f"{seconds / 60:.1f} min"
    return f"{seconds:.3g} s"


def _known(value, what: str):
    """``value`` when it is a number other than zero; otherwise the finding cannot be tested
    (:class:`~gpualgo.findings.Missing`, naming ``what``)."""
    if value is None or value == 0:
        raise Missing(f"no {what} in the rows")
    return value


def _how(n_from: int, n: int) -> str:
    return "measured" if n_from == n else f"extrapolated from n = {n_from}"


# ------------------------------------------------------------------------ the headline

def headline(data):
    rows = need(data, REPORT_SET)
    need(data, REPORT_SET, variant="gpu_report")
    need(data, REPORT_SET, variant="serial")
    h = _known(analysis.headline(rows), "time of gpu_report or serial")
    _known(h["gpu_s"], "time of gpu_report")
    n = h["n"]
    measured = (f"the report's versions at n = {n}: report kernel {_s(h['gpu_s'])} ({_how(h['gpu_from'], n)}), "
                f"serial DP {_s(h['cpu_s'])} ({_how(h['cpu_from'], n)}): {num(h['factor'])}x "
                f"(report: 2 h against 83 h, {analysis.REPORT['cpu_seconds'] / analysis.REPORT['gpu_seconds']:.1f}x)")
    if h["factor"] <= analysis.REPORT["speedup"]:
        return fails(measured, f"the report's kernel is only {num(h['factor'])}x the serial DP here; likely a faster "
                               "CPU core relative to this GPU than in the report")
    if h["gpu_from"] != n:
        return caveat(measured, f"a factor far above 40, but the report's kernel was run only to n = {h['gpu_from']} "
                                f"(its time at {n} is scaled by the count of splits) and the serial DP to n = "
                                f"{h['cpu_from']}, as the report extrapolated its CPU; running the serial DP at {n} "
                                "would take most of a day")
    return holds(measured)


def speedup_grows(data):
    rows = need(data, REPORT_SET)
    ups = analysis.speedups_by_n(need(data, REPORT_SET, variant="gpu_report") + need(data, REPORT_SET, variant="serial"),
                                 "gpu_report")
    if len(ups) < 4:
        return untestable(f"the report's kernel and the serial DP share only {len(ups)} sizes")
    ns = sorted(ups)
    lo, hi = ns[-4], ns[-1]
    both = [r for r in rows if r["n"] <= hi]     # the sizes both ran: growth compared like with like
    g_gpu = _known(analysis.growth_per_agent(both, "gpu_report"), "gpu_report times at two consecutive sizes")
    g_cpu = _known(analysis.growth_per_agent(both, "serial"), "serial times at two consecutive sizes")
    rate = analysis.growth_per_agent(rows, "gpu_report", key="splits_per_s")
    measured = (f"report kernel over serial DP: {num(ups[lo])}x at n = {lo}, {num(ups[hi])}x at n = {hi}; time per "
                f"added agent at the largest sizes: report kernel x{g_gpu[1]:.2f} (n = {g_gpu[0]}), serial DP "
                f"x{g_cpu[1]:.2f} (n = {g_cpu[0]})")
    if ups[hi] <= ups[lo] or g_gpu[1] >= g_cpu[1]:
        return fails(measured, "the GPU's time grows as fast as the serial DP's at the largest sizes: both are "
                               "O(3^n) at a steady rate")
    if rate is not None and rate[1] <= 1.02:
        rates = {k: analysis.median_ms(rows, "gpu_report", k, "splits_per_s") for k in sorted({r["n"] for r in rows
                 if r["variant"] == "gpu_report"})}
        rates = {k: x for k, x in rates.items() if x}
        peak = max(rates.values())
        top = max(rates, key=rates.get)      # from here on the GPU is full (or its table leaves the L2)
        full = next(k for k in rates if all(rates[j] >= 0.9 * peak for j in rates if k <= j <= top))
        ser = ratio(analysis.median_ms(rows, "serial", hi, "splits_per_s"),
                    analysis.median_ms(rows, "serial", lo, "splits_per_s"))
        slows = (f" (its splits/s x{ser:.2f} from n = {lo} to {hi}, likely as its table leaves the CPU's caches)"
                 if ser is not None else "")
        after = max(rates)
        drop = (f"; past n = {top} they fall (x{rates[after] / peak:.2f} at n = {after}, its table far larger than "
                f"the L2)" if rates[after] < 0.9 * peak else "")
        return caveat(measured, f"it grows while the GPU fills up (its splits/s stay within 10 % of their peak from "
                                f"n = {full}{drop}); at the largest sizes the report kernel's splits/s no longer rise "
                                f"(x{rate[1]:.2f} from n = {rate[0] - 1} to {rate[0]}), so its time grows as 3^n too, "
                                f"and the factor grows only as the serial core slows{slows}")
    return holds(measured)


def shared_splits_faster(data):
    rows = need(data, REPORT_SET, variant="gpu_shared_splits") + need(data, REPORT_SET, variant="gpu_report")
    n, gain = _known(analysis.shared_splits_gain(rows), "times of both report kernels at a common size")
    ups = analysis.speedups_by_n(rows, "gpu_shared_splits", baseline="gpu_report")
    faster_from = next((k for k in sorted(ups) if all(ups[j] > 1 for j in ups if j >= k)), None)
    measured = (f"{abs(gain):.0%} {'faster' if gain >= 0 else 'slower'} at n = {n} "
                f"({analysis.median_ms(rows, 'gpu_report', n) / 1e3:.3g} s against "
                f"{analysis.median_ms(rows, 'gpu_shared_splits', n) / 1e3:.3g} s)"
                + (f"; faster at every n from {faster_from}" if faster_from is not None else ""))
    if gain <= 0:
        return fails(measured, "reusing the reads in registers costs more than the reads it saves here")
    if gain < SHARED_GAIN_FLOOR:
        return caveat(measured, "faster, but by less than the report's 40 %")
    if faster_from is not None and faster_from > min(ups):
        return holds(measured, f"below n = {faster_from} the launches, not the reads, set the time")
    return holds(measured)


# ---------------------------------------------------------------------- memory traffic

def _traffic(data, with_report: bool):
    bw_rows = need(data, BANDWIDTH_SET)
    rows = need(data, REPORT_SET, variant="gpu_report") if with_report else []
    t = analysis.traffic(bw_rows, rows)
    if t is None:
        raise Missing(f"no copy bandwidth or no gpu_report rows with bytes/s in {BANDWIDTH_SET}")
    return t


def bandwidth_bound(data):
    t = _traffic(data, with_report=True)
    measured = (f"report kernel at n = {t['n']}: {num(t['requested'] / 1e9)} GB/s requested, {t['share']:.0%} of the "
                f"{num(t['copy'] / 1e9)} GB/s copy")
    flat = None
    if t["out"] is not None:
        flat = t["out"] / t["in_l2"]
        measured += (f"; {num(t['in_l2'] / 1e9)} GB/s at n = {t['l2_n']} (table in the L2) and {num(t['out'] / 1e9)} "
                     f"GB/s at n = {t['out_n']} (table {(1 << t['out_n']) * t['itemsize'] / 2**20:,.0f} MiB)")
    if t["shared_gain"] is not None:
        measured += f"; shared splits: {t['shared_gain']:+.0%} splits/s at {t['shared_bytes']:.0%} of the bytes/s"
    profile = _profiled(data, "report_kernel")
    if profile is not None:
        measured += (f"; Nsight Compute, report kernel at n = 22: DRAM {num(profile['dram_gbs'])} GB/s "
                     f"({profile['dram_pct_of_peak']:.0f}% of its peak), L2 hit rate {profile['l2_hit_pct']:.0f}%, "
                     f"memory pipelines at {profile['memory_pct_of_peak']:.0f}% of their peak, compute at "
                     f"{profile['sm_pct_of_peak']:.0f}%")
    if t["share"] >= FAST_SHARE:
        return holds(measured)
    beyond = (f" (profiled at n = 22; at n = {t['out_n']}, its table far beyond the L2, the rate falls to x{flat:.2f}: "
              f"there the loads reach DRAM, yet the rate is {t['out'] / t['copy']:.0%} of the copy bandwidth)"
              if flat is not None and flat < 0.85 else "")
    if profile is not None and profile["dram_pct_of_peak"] < LOW_SHARE * 100:
        served = (f"its loads are served by the L1 and the L2 ({profile['l2_hit_pct']:.0f}% of the L2's sectors hit) "
                  "while DRAM is almost idle")
        if profile["sm_pct_of_peak"] >= LOW_SHARE * 100 and profile["sm_pct_of_peak"] > profile["memory_pct_of_peak"]:
            return fails(measured, f"Nsight Compute settles it: {served}, and the kernel is bound by its instructions "
                         f"(compute at {profile['sm_pct_of_peak']:.0f}% of the peak, above its memory pipelines' "
                         f"{profile['memory_pct_of_peak']:.0f}%): making each split and its two addresses, not "
                         "fetching them, is what limits it" + beyond)
        if profile["memory_pct_of_peak"] >= LOW_SHARE * 100:
            return fails(measured, f"Nsight Compute settles it: the kernel is bound by memory, but on chip: {served}, "
                         "and its memory pipelines are the busiest; what limits it is issuing scattered loads, not "
                         "DRAM bandwidth" + beyond)
    if t["share"] < LOW_SHARE and (flat is None or flat > 0.85):
        return fails(measured, f"the kernels request {t['share']:.0%} of the copy bandwidth, at a rate that "
                     + ("does not drop when the table leaves the L2 and " if flat is not None else "")
                     + ("that shared splits turn into more splits/s without moving more bytes" if t["shared_gain"]
                        else "that stays far from the copy")
                     + f": likely limited by issuing scattered {t['itemsize']}-byte loads, not by DRAM bandwidth (each "
                       f"load fetches a {analysis.SECTOR_BYTES}-byte sector: counted so, the traffic would be "
                       f"{t['sectors_share']:.0%} of the copy, so most are served by the caches); Nsight Compute's "
                       "DRAM and L2 throughput would settle it")
    return caveat(measured, "between the two: a profile of DRAM throughput (Nsight Compute) would decide")


def _profiled(data, kernel: str):
    """The Nsight Compute summary of ``kernel`` in the recorded profile (``coalitions/limits``,
    :mod:`gpualgo.limits`), or None where none is recorded."""
    rows = [r for r in data.get(LIMITS_SET) or [] if r.get("kernel") == kernel]
    out = {c: median(r.get(c) for r in rows) for c in ("dram_gbs", "dram_pct_of_peak", "l2_hit_pct",
                                                        "memory_pct_of_peak", "sm_pct_of_peak")}
    return out if all(v is not None for v in out.values()) else None


def random_access_low_bandwidth(data):
    t = _traffic(data, with_report=False)
    measured = f"report kernel (scattered reads) at n = {t['n']}: {t['share']:.0%} of the copy bandwidth"
    if t["odp_logical_share"] is not None:
        measured += (f"; gpu_odp (contiguous segments, reused from shared memory) at n = {t['odp_n']}: "
                     f"{t['odp_logical_share']:.0%} of it in values used")
    if t["share"] >= LOW_SHARE:
        return fails(measured, "the scattered reads reach most of the copy bandwidth on this GPU")
    return holds(measured)


def time_in_fetches(data):
    need(data, PHASES_SET, variant="gpu_report")
    rows = need(data, PHASES_SET)
    got = {v: analysis.phase_shares(rows, v) for v in ("gpu_report", "gpu_shared_splits")}
    n, rep = _known(got["gpu_report"], "phase shares of gpu_report")
    lo, hi = FETCH_BAND
    measured = (f"report kernel at n = {n}: " + ", ".join(f"{p} {x:.0%}" for p, x in rep.items())
                + f" of the cycles between checkpoints (agrees within {lo:.0%}..{hi:.0%})")
    shared = got["gpu_shared_splits"]
    if shared is not None:
        measured += f"; shared splits at n = {shared[0]}: fetch {shared[1]['fetch']:.0%}"
    if max(rep, key=rep.get) != "fetch":
        return fails(measured, f"the report kernel's threads spend most of their cycles in "
                               f"{max(rep, key=rep.get)}, not in fetching")
    if shared is None:
        return caveat(measured, "the shared-splits kernel's phases are not recorded")
    if max(shared[1], key=shared[1].get) != "fetch":
        return fails(measured, "with shared splits the threads no longer spend most of their cycles fetching")
    if not lo <= rep["fetch"] <= hi:
        return caveat(measured, f"fetching is the largest phase of both kernels, but {rep['fetch']:.0%} of the report "
                                f"kernel's cycles, outside {lo:.0%}..{hi:.0%}")
    return holds(measured)


def more_shared_fewer_fetches(data):
    rows = need(data, LAUNCH_SET, variant="gpu_shared_splits")
    n, by = _known(analysis.reads_avoided_by_share(rows), "sweep of share in the report's configuration")
    shares = sorted(by)
    avoided = [by[k][0] for k in shares]
    rates = {k: by[k][1] for k in shares if by[k][1]}
    measured = (f"report's configuration at n = {n}: " + ", ".join(f"share {k} {by[k][0]:.0%}" for k in shares)
                + " of the table reads avoided")
    if any(b < a for a, b in zip(avoided, avoided[1:])) or avoided[-1] <= avoided[0]:
        return fails(measured, "evaluating more coalitions together does not avoid more reads at every step")
    if rates:
        fastest = max(rates, key=rates.get)
        measured += f"; splits/s highest at share {fastest}"
        if rates[shares[-1]] < 0.95 * rates[fastest]:
            return caveat(measured, f"fewer reads at every step, but the splits per second peak at share {fastest}: "
                                    "past it, evaluating more coalitions together costs more (registers, a longer "
                                    "walk per thread) than the reads it avoids")
    return holds(measured)


# ------------------------------------------------------------------- the DP and the GPU

def rebuild_is_cheap(data):
    rows = need(data, REPORT_SET, variant="gpu_report")
    n, frac = _known(analysis.outside_kernels(rows, "gpu_report"), "kernel_ms of gpu_report")
    measured = (f"everything outside the DP's kernels (rebuild, uploads, lists of coalitions): {frac:.1%} of the "
                f"report kernel's call at n = {n}")
    if frac <= 0.05:
        return holds(measured)
    if frac <= 0.2:
        return caveat(measured, "an upper bound: the rows do not time the rebuild alone")
    return fails(measured, "the time outside the kernels is not small; the rows do not say how much is the rebuild")


def dp_is_3_to_the_n(data):
    rows = need(data, REPORT_SET, variant="serial")
    ns = sorted({r["n"] for r in rows})[-5:]
    steps = [ratio(analysis.median_ms(rows, "serial", b), analysis.median_ms(rows, "serial", a))
             for a, b in zip(ns, ns[1:])]
    steps = [s for s in steps if s]
    if not steps:
        return untestable("the serial DP was run at one size only")
    per = sorted(steps)[len(steps) // 2]
    measured = (f"serial DP: time x{per:.2f} per added agent (median, n = {ns[0]}..{ns[-1]}); "
                f"{analysis.median_ms(rows, 'serial', ns[-1]) / 1e3:.3g} s at n = {ns[-1]}")
    if 2.5 <= per <= 3.6:
        return holds(measured)
    return fails(measured, "the time does not grow about threefold per agent")


def gpu_beneficial(data):
    rows = need(data, REPORT_SET, variant="gpu_report") + need(data, REPORT_SET, variant="serial")
    ups = analysis.speedups_by_n(rows, "gpu_report")
    if not ups:
        return untestable("the report's kernel and the serial DP share no size")
    top = max(ups)
    faster_from = next((k for k in sorted(ups) if all(ups[j] > 1 for j in ups if j >= k)), None)
    measured = (f"report kernel over serial DP: {num(ups[top])}x at n = {top}"
                + (f"; faster from n = {faster_from}" if faster_from is not None else "; never faster"))
    if ups[top] < 1:
        return fails(measured, "the serial DP is faster at every size run here")
    if ups[top] < 10:
        return caveat(measured, "faster, but by less than ten times")
    if faster_from is not None and faster_from > min(ups):
        low = min(ups)
        return holds(measured, f"below n = {faster_from} the GPU's fixed costs (the whole call takes "
                               f"{analysis.median_ms(rows, 'gpu_report', low):.2g} ms at n = {low}) exceed the serial "
                               "DP's time")
    return holds(measured)


def fewer_fetches_raise_performance(data):
    rows = need(data, REPORT_SET, variant="gpu_odp") + need(data, REPORT_SET, variant="gpu_shared_splits")
    n = min(analysis.largest_n(rows, ["gpu_odp", "gpu_shared_splits"]).values())
    what = f"splits/s and bytes/s of gpu_odp and gpu_shared_splits at n = {n}"
    sh = _known(analysis.median_ms(rows, "gpu_shared_splits", n, "splits_per_s"), what)
    od = _known(analysis.median_ms(rows, "gpu_odp", n, "splits_per_s"), what)
    b_sh = _known(analysis.median_ms(rows, "gpu_shared_splits", n, "bytes_per_s"), what) / sh
    b_od = _known(analysis.median_ms(rows, "gpu_odp", n, "bytes_per_s"), what) / od
    measured = (f"at n = {n}: tiles in shared memory (gpu_odp) {od:.2e} splits/s, {b_od:.2g} bytes requested per "
                f"split; shared splits {sh:.2e} splits/s, {b_sh:.2g} bytes per split")
    if od >= 2 * sh and b_od < b_sh:
        return holds(measured)
    return fails(measured, "fewer bytes per split did not buy proportionally more splits per second here")


FINDINGS = [
    Finding("For 29 agents it solves it in 2 hours while the CPU bound algorithm was extrapolated to take up to "
            "83 hours: a speed factor of over 40 (abstract: a speedup factor of 40 with 29 agents)",
            "Abstract; Sec. 4, Fig. 4", [REPORT_SET], headline),
    Finding("The speed factor would grow with the number of agents, the GPU implementation having a smaller growth",
            "Sec. 4, Fig. 4", [REPORT_SET], speedup_grows),
    Finding("The GPU implementation with internal sharing of splittings is 40% faster than the variant without; "
            "sharing splittings makes a significant impact on the overall performance",
            "Sec. 4, Figs. 3-4", [REPORT_SET], shared_splits_faster),
    Finding("The algorithm is bandwidth bound: the majority of time is spent fetching data from memory and the "
            "arithmetic overhead is low", "Sec. 2.4; Sec. 4", [BANDWIDTH_SET, REPORT_SET, LIMITS_SET], bandwidth_bound),
    Finding("The not aligned random access makes the effective bandwidth low (reads not coalesced within a warp "
            "drop the effective bandwidth)", "Sec. 4; Sec. 2.3", [BANDWIDTH_SET], random_access_low_bandwidth),
    Finding("Checkpoint 4 (generating the splittings and fetching them) is where the algorithm spends most of its "
            "time: almost 60% of the time fetching memory; with shared splittings it still spends most of the time "
            "fetching memory", "Sec. 4, Figs. 2-3", [PHASES_SET], time_in_fetches),
    Finding("The more splittings evaluated at the same time and checked against each other, the fewer redundant "
            "memory fetches", "Sec. 2.4.2, Algorithm 6", [LAUNCH_SET], more_shared_fewer_fetches),
    Finding("Rebuilding the splittings from f alone (Algorithm 2, no table O) costs an insignificant overhead: at "
            "most n - 1 coalitions against the exponential number of evaluations", "Sec. 2.2, Algorithm 2",
            [REPORT_SET], rebuild_is_cheap),
    Finding("The DP grows exponentially, with a time complexity of O(3^n)", "Sec. 2.2", [REPORT_SET],
            dp_is_3_to_the_n),
    Finding("Solving the problem on the GPU is highly beneficial, a much viable option: the difference with the CPU "
            "is substantial", "Sec. 4, Fig. 4; Sec. 5", [REPORT_SET], gpu_beneficial),
    Finding("Removing redundant fetches from memory further (constructing the coalitions bottom up, memory "
            "compression) would raise performance", "Abstract; Sec. 6", [REPORT_SET], fewer_fetches_raise_performance),
]
