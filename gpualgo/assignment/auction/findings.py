"""The auction report's findings, tested against our data (notebook 01, section 9).

The source report (in Italian; its words are translated here) ran a serial auction and three
CUDA versions on a GeForce GTX 960 (8 SMs, 2014) and an i5-4460. Each :class:`Finding` below
is one of its conclusions, with the result sets that test it (``data/results/auction/<preset>``
or the same preset measured now) and a test that computes the verdict from the rows, so that a
rerun on another GPU updates the verdicts. The report's own numbers that a verdict compares
with (its Tables 2 and 3) are the constants below.

Variants: ``gpu_v1`` is the report's Algorithm 2 as written, ``gpu_queues`` its
non-deterministic version, ``gpu_deterministic`` and ``gpu_graph`` its other two versions.
"""
from __future__ import annotations

import statistics

from ... import findings as F
from . import analysis

__all__ = ["FINDINGS", "REPORT_GPU", "REPORT_TABLE"]

#: the report's GPU versions: Algorithm 2, and the three of its Section 3
REPORT_GPU = ("gpu_v1", "gpu_queues", "gpu_deterministic", "gpu_graph")
#: the three versions of the report's Table 2
TABLE_GPU = ("gpu_queues", "gpu_deterministic", "gpu_graph")
#: the report's Table 2 (mean ms) and Table 3 (mean rounds) at its largest size, m = n = 18000, eps = 1
REPORT_TABLE = {
    (1.0, "serial"): (5541.21, 8186.00), (1.0, "gpu_queues"): (687.58, 7145.13),
    (1.0, "gpu_deterministic"): (781.46, 8186.00), (1.0, "gpu_graph"): (680.20, 8258.53),
    (0.1, "serial"): (18053.06, 37676.67), (0.1, "gpu_queues"): (2228.96, 41501.73),
    (0.1, "gpu_deterministic"): (2220.35, 37676.67), (0.1, "gpu_graph"): (2021.77, 42904.80),
}
#: Table 3, eps = 1/(m+1), m = 3660, dense GPU: mean rounds and standard deviation
REPORT_SMALL_EPS_ROUNDS_3660 = (497157.07, 288563.89)
#: the size from which the report's GPU versions beat its serial one in Table 2 (both densities)
REPORT_CROSSOVER = 2458
#: the largest spread (slowest / fastest) between the three versions in the report's Table 2
REPORT_SPREAD = 1.5
DENSE, SPARSE = 1.0, 0.1
_NAMES = {DENSE: "dense", SPARSE: "sparse"}


def _report(data):
    return [r for r in F.need(data, "auction/report") if not r.get("timeout")]


def _us_per_round(ms, rounds):
    return 1000.0 * ms / rounds


# ----------------------------------------------------------------------------- Section 2

def _bidders(data):
    rows = F.need(data, "auction/active_bidders")
    falls, tails, tail_bidders, lengths = [], [], [], []
    for inst in sorted({r["instance"] for r in rows}):
        b = [r["active_bidders"] for r in sorted((r for r in rows if r["instance"] == inst), key=lambda r: r["round"])]
        if len(b) < 100:
            continue
        falls.append(b[0] / max(b[99], 1))
        lengths.append(len(b))
        tails.append((len(b) - 100) / len(b))
        tail_bidders.extend(b[100:])
    if not falls:
        return F.untestable("needs the bidders of at least 100 rounds per instance (the active_bidders preset)")
    n = rows[0]["n"]
    measured = (f"{n} persons: bidders fall {min(falls):.0f}x to {max(falls):.0f}x from round 1 to round 100 "
                f"({len(falls)} instances)")
    if min(falls) < 10:
        return F.fails(measured, "the bidders do not fall tenfold within the first 100 rounds")
    if max(tails) > 0.5:
        return F.caveat(measured + f"; then {min(lengths) - 100} to {max(lengths) - 100} more rounds "
                        f"({min(tails):.0%} to {max(tails):.0%} of all), with a median of "
                        f"{statistics.median(tail_bidders):g} bidders each",
                        "the fall is exponential only at first: Figure 1 stops at round 100, and most rounds come "
                        "after it, each with a handful of bidders (the tail that makes the end of an auction slow on "
                        "a GPU)")
    return F.holds(measured)


def _fig2(data):
    spans = [r for r in F.need(data, "auction/timeline") if r.get("kind") == "span"]
    by = {}
    for r in spans:
        by.setdefault((r.get("instance"), r["round"]), {})[r["step"]] = (r["start_us"], r["end_us"])
    rounds = [v for v in by.values() if {"copy of the matched counter", "queue rebuild", "bid + assign"} <= set(v)]
    if not rounds:
        raise F.Missing("no round with its three spans in auction/timeline")
    copy = [v["copy of the matched counter"] for v in rounds]
    rebuild = [v["queue rebuild"] for v in rounds]
    both = sum(1 for c, b in zip(copy, rebuild) if min(c[1], b[1]) - max(c[0], b[0]) > 0)
    med = {k: statistics.median(v[k][1] - v[k][0] for v in rounds) for k in rounds[0]}
    measured = (f"{both} of {len(rounds)} timed rounds run the copy of the matched counter (side stream) while the "
                f"queue rebuild runs (main stream); median µs per round: " +
                ", ".join(f"{k} {x:.1f}" for k, x in med.items()))
    if both == 0:
        return F.fails(measured, "the copy never overlaps the rebuild here")
    if 2 * both < len(rounds):
        return F.caveat(measured, "they overlap in fewer than half of the rounds")
    return F.holds(measured)


def _graph(data):
    m = analysis.means(_report(data), "total_ms", "density", "n", "variant")
    r = analysis.means(_report(data), "rounds", "density", "n", "variant")
    keys = sorted({(d, n) for d, n, v in m if (d, n, "gpu_graph") in m and (d, n, "gpu_queues") in m})
    if not keys:
        raise F.Missing("no gpu_graph and gpu_queues rows of auction/report")
    faster = sum(m[(d, n, "gpu_graph")] < m[(d, n, "gpu_queues")] for d, n in keys)
    per = {v: statistics.median(_us_per_round(m[(d, n, v)], r[(d, n, v)]) for d, n in keys)
           for v in ("gpu_graph", "gpu_queues")}
    measured = (f"gpu_graph faster than gpu_queues at {faster} of {len(keys)} sizes and densities; median time per "
                f"round {per['gpu_graph']:.0f} us against {per['gpu_queues']:.0f} us")
    if faster >= 0.8 * len(keys):
        return F.holds(measured)
    return F.fails(measured, "the graph's saving on launches does not show at most sizes")


# ----------------------------------------------------------------------------- Section 3: tuning

def _tuning_rows(data):
    return [r for r in F.need(data, "auction/graph_tuning") if r.get("kernel_ms") is not None]


def _instances_note(rows):
    k = len({(r["n"], r["instance"]) for r in rows}) / max(len({r["n"] for r in rows}), 1)
    return "" if k >= 3 else (f" ({k:g} instances per size here, 3 in the report; the rerun with 3 is not recorded "
                              "yet)")


def _rounds_spread(rows):
    spread = []
    for key in {(r["n"], r["instance"]) for r in rows}:
        rs = [r["rounds"] for r in rows if (r["n"], r["instance"]) == key and r.get("rounds")]
        if rs:
            spread.append(max(rs) / min(rs))
    return max(spread) if spread else 1.0


def _threads(data):
    rows = _tuning_rows(data)
    m = analysis.means(rows, "kernel_ms", "n", "bid_threads", "assign_threads")
    sizes = sorted({n for n, _, _ in m})
    best = {n: min(((b, a) for nn, b, a in m if nn == n), key=lambda ba: m[(n, *ba)]) for n in sizes}
    if not any((n, 128, 256) in m for n in sizes):
        raise F.Missing("no rows of auction/graph_tuning with 128 bidding and 256 assignment threads")
    near = [n for n in sizes if (n, 128, 256) in m and m[(n, 128, 256)] <= 1.05 * m[(n, *best[n])]]
    measured = (f"GPU time of gpu_graph, mean over both grids: 128/256 within 5% of the best pair at {len(near)} of "
                f"{len(sizes)} sizes; best: " + ", ".join(f"{b}/{a} at {n}" for n, (b, a) in best.items()))
    if len(near) * 2 >= len(sizes):
        return F.holds(measured)
    return F.fails(measured, f"the same instance needs up to {_rounds_spread(rows):.1f}x more rounds under one "
                   "configuration than under another (ties are settled by timing), which outweighs the thread "
                   "counts" + _instances_note(rows))


def _grid(data):
    rows = _tuning_rows(data)
    m = analysis.means(rows, "kernel_ms", "n", "grid_factor")
    sizes = sorted({n for n, _ in m if (n, 1) in m and (n, 2) in m})
    if not sizes:
        raise F.Missing("no rows of auction/graph_tuning with both grid factors")
    one = [n for n in sizes if m[(n, 2)] > 1.05 * m[(n, 1)]]
    big = sizes[len(sizes) // 2:]
    measured = ("GPU time of gpu_graph, mean over the thread pairs, grid 2x / 1x the SMs: " +
                ", ".join(f"{m[(n, 2)] / m[(n, 1)]:.2f} at {n}" for n in sizes))
    if not any(n in one for n in big):
        return F.holds(measured)
    return F.fails(measured, f"1x the SMs is over 5% faster at {', '.join(map(str, one))}; likely because today's GPU has "
                   f"many more SMs (the report's had 8), so even 1x launches more blocks than a round has bidders"
                   + _instances_note(rows))


# ----------------------------------------------------------------------------- Section 3: eps = 1

def _scale(data):
    m = analysis.means(_report(data), "total_ms", "density", "variant", "n")
    slopes = {}
    for d in (DENSE, SPARSE):
        for v in ("serial",) + REPORT_GPU:
            pts = [(n, t) for (dd, vv, n), t in m.items() if dd == d and vv == v]
            if len(pts) >= 3:
                slopes[(d, v)] = analysis.loglog_slope(pts)
    if not any(v == "serial" for _, v in slopes):
        raise F.Missing("no serial rows of auction/report")
    parts, ok = [], True
    for d in (DENSE, SPARSE):
        if (d, "serial") not in slopes:
            continue
        gpu = {v: s for (dd, v), s in slopes.items() if dd == d and v != "serial"}
        ok &= all(s < slopes[(d, "serial")] for s in gpu.values())
        parts.append(f"{_NAMES[d]}: serial {slopes[(d, 'serial')]:.2f}, GPU versions "
                     f"{min(gpu.values()):.2f} to {max(gpu.values()):.2f}")
    measured = "time ~ n^k, k fitted over the sizes: " + "; ".join(parts)
    if ok:
        return F.holds(measured)
    return F.fails(measured, "some GPU version's time grows as fast as the serial one's")


def _dense(data):
    m = analysis.means(_report(data), "total_ms", "variant", "n", "density")
    versions = ("serial",) + TABLE_GPU
    pairs = [(v, n) for v, n, d in m if d == DENSE and (v, n, SPARSE) in m and v in versions]
    if not pairs:
        raise F.Missing("no rows of auction/report at both densities")
    dense_faster = sum(m[(v, n, DENSE)] < m[(v, n, SPARSE)] for v, n in pairs)
    top = max(n for _, n in pairs)
    ratio = {v: m[(v, top, SPARSE)] / m[(v, top, DENSE)] for v in versions if (v, top, DENSE) in m}
    rep = REPORT_TABLE[(SPARSE, "serial")][0] / REPORT_TABLE[(DENSE, "serial")][0]
    gpu = [x for v, x in ratio.items() if v != "serial"]
    measured = (f"dense faster at {dense_faster} of {len(pairs)} (version, size); sparse / dense time at {top}: "
                f"serial {ratio.get('serial', float('nan')):.1f}x, GPU versions {min(gpu):.1f}x to {max(gpu):.1f}x "
                f"(report's Table 2: serial {rep:.1f}x)")
    if dense_faster < len(pairs):
        return F.fails(measured, "sparse instances are not always slower")
    if ratio.get("serial", 0) >= max(gpu):
        return F.holds(measured)
    r = analysis.means(_report(data), "rounds", "variant", "n", "density")
    per = {v: (m[(v, top, SPARSE)] / r[(v, top, SPARSE)]) / (m[(v, top, DENSE)] / r[(v, top, DENSE)])
           for v in ratio if (v, top, SPARSE) in r and (v, top, DENSE) in r}
    gpu_round = max((x for k, x in per.items() if k != "serial"), default=float("nan"))
    return F.caveat(measured, f"dense instances are faster for every version, but the GPU versions lose more on "
                    f"sparse ones than the serial one: at n = {top} a sparse round costs "
                    f"{per.get('serial', float('nan')):.1f}x a dense one in the serial version, up to {gpu_round:.1f}x "
                    "in the GPU versions; the bidders per round of sparse instances, which would say why, are not "
                    "recorded")


def _rounds_density(data):
    m = analysis.means(_report(data), "rounds", "variant", "n", "density")
    pairs = [(v, n) for v, n, d in m if d == DENSE and (v, n, SPARSE) in m]
    if not pairs:
        raise F.Missing("no rows of auction/report at both densities")
    fewer = sum(m[(v, n, DENSE)] < m[(v, n, SPARSE)] for v, n in pairs)
    top = max(n for _, n in pairs)
    s = ("serial", top)
    measured = (f"denser instances needed fewer rounds at {fewer} of {len(pairs)} (version, size)" +
                (f"; serial at {top}: {m[(*s, DENSE)]:.0f} dense, {m[(*s, SPARSE)]:.0f} sparse" if s in pairs else ""))
    if fewer == len(pairs):
        return F.holds(measured)
    if fewer >= 0.8 * len(pairs):
        return F.caveat(measured, "not at every size: the rounds of one size vary widely between instances")
    return F.fails(measured, "denser instances do not need fewer rounds here")


def _best_gpu_speedups(m, versions):
    """{density: (best version, serial / its time)} at the largest size both were measured."""
    out = {}
    for d in (DENSE, SPARSE):
        sizes = [n for dd, v, n in m if dd == d and v == "serial"]
        if not sizes:
            continue
        top = max(sizes)
        times = {v: m[(d, v, top)] for v in versions if (d, v, top) in m}
        if times:
            v = min(times, key=times.get)
            out[d] = (top, v, m[(d, "serial", top)] / times[v])
    return out


def _crossover(data):
    m = analysis.means(_report(data), "total_ms", "density", "variant", "n")
    parts, every, best = [], [], []
    for d in (DENSE, SPARSE):
        serial = {n: t for (dd, v, n), t in m.items() if dd == d and v == "serial"}
        if not serial:
            continue
        starts = {v: analysis.wins_from({n: t for (dd, vv, n), t in m.items() if dd == d and vv == v}, serial)
                  for v in REPORT_GPU if any(k[:2] == (d, v) for k in m)}
        ok = [s is not None and s <= REPORT_CROSSOVER for s in starts.values()]
        every.append(all(ok))
        best.append(any(ok))
        parts.append(f"{_NAMES[d]}: " + ", ".join(f"{v} " + (f"from {s}" if s else "never") for v, s in starts.items()))
    if not parts:
        raise F.Missing("no serial rows of auction/report")
    sp = _best_gpu_speedups(m, REPORT_GPU)
    measured = ("GPU faster than serial at every larger size: " + "; ".join(parts) + "; at the largest size the best "
                "is " + ", ".join(f"{s:.1f}x ({_NAMES[d]}, {v})" for d, (_, v, s) in sp.items()))
    if all(every):
        return F.holds(measured)
    why = (f"in the report they win from n = {REPORT_CROSSOVER}; here the serial version (numba on a current CPU "
           "core) keeps up longer, while every GPU round pays kernel launches and a host synchronisation "
           "whatever its size (see the speed-up at 18000 below)")
    return F.caveat(measured, why) if all(best) else F.fails(measured, why)


def _headline(data):
    m = analysis.means(_report(data), "total_ms", "density", "variant", "n")
    r = analysis.means(_report(data), "rounds", "density", "variant", "n")
    sp = _best_gpu_speedups(m, TABLE_GPU)
    if not sp:
        raise F.Missing("no serial rows of auction/report")
    theirs = {d: max(REPORT_TABLE[(d, "serial")][0] / REPORT_TABLE[(d, v)][0] for v in TABLE_GPU) for d in sp}
    measured = "; ".join(f"{_NAMES[d]} n = {top}: {s:.1f}x ({v}), report {theirs[d]:.1f}x"
                         for d, (top, v, s) in sp.items())
    if all(s >= theirs[d] * 2 / 3 for d, (_, _, s) in sp.items()):
        return F.holds(measured)
    per = []
    for d, (top, v, _) in sp.items():
        if top != 18000 or (d, v, top) not in r:
            continue
        rs, rt = REPORT_TABLE[(d, "serial")], REPORT_TABLE[(d, v)]
        per.append(f"{_NAMES[d]}: serial {_us_per_round(m[(d, 'serial', top)], r[(d, 'serial', top)]):.0f} us "
                   f"(report {_us_per_round(*rs):.0f}), {v} {_us_per_round(m[(d, v, top)], r[(d, v, top)]):.0f} us "
                   f"(report {_us_per_round(*rt):.0f})")
    return F.fails(measured, "the serial rounds got faster on today's CPU (relative to the report's), the GPU rounds "
                   "did not on today's GPU" + ("; time per round, " + "; ".join(per) if per else "") +
                   "; likely the GPU rounds are bound by launches and synchronisation, which a newer GPU barely "
                   "shortens; why the sparse GPU rounds are slower than the report's is not known from these data")


def _versions(data):
    m = analysis.means(_report(data), "total_ms", "density", "n", "variant")
    r = analysis.means(_report(data), "rounds", "density", "n", "variant")
    keys = sorted({(d, n) for d, n, v in m if all((d, n, x) in m for x in TABLE_GPU)})
    if not keys:
        raise F.Missing("no rows of the report's three GPU versions in auction/report")
    spread = {k: max(m[(*k, v)] for v in TABLE_GPU) / min(m[(*k, v)] for v in TABLE_GPU) for k in keys}
    worst = max(spread, key=spread.get)
    measured = (f"slowest / fastest of {', '.join(TABLE_GPU)}: median {statistics.median(spread.values()):.1f}x, "
                f"up to {spread[worst]:.1f}x ({_NAMES.get(worst[0], worst[0])}, n = {worst[1]}); report's Table 2: "
                f"below {REPORT_SPREAD}x")
    if spread[worst] <= REPORT_SPREAD:
        return F.holds(measured)
    per = {v: _us_per_round(m[(*worst, v)], r[(*worst, v)]) for v in TABLE_GPU if (*worst, v) in r}
    return F.fails(measured, "gpu_graph checks the host once per graph of several rounds where the others "
                   "synchronise every round, and on today's GPU that is likely most of a round: " +
                   ", ".join(f"{v} {t:.0f} us" for v, t in per.items()) + " per round there")


def _unlucky(data):
    pairs = analysis.per_instance(_report(data))
    both = [v for v in pairs.values() if "gpu_queues" in v and "gpu_deterministic" in v]
    if not both:
        raise F.Missing("no gpu_queues and gpu_deterministic rows of auction/report")
    more = sum(v["gpu_queues"] > v["gpu_deterministic"] for v in both)
    fewer = sum(v["gpu_queues"] < v["gpu_deterministic"] for v in both)
    worst = max(v["gpu_queues"] / v["gpu_deterministic"] for v in both)
    best = min(v["gpu_queues"] / v["gpu_deterministic"] for v in both)
    measured = (f"rounds of gpu_queues against gpu_deterministic (= the serial rounds) on the same instance: more on "
                f"{more}, fewer on {fewer} of {len(both)}; from {best:.2f}x to {worst:.2f}x")
    if fewer > more:
        return F.holds(measured)
    return F.fails(measured, "settling ties by timing does not avoid long auctions here: the non-deterministic "
                   "version needs more rounds than the deterministic one as often or more often")


# ----------------------------------------------------------------------------- Section 3: eps = 1/(m+1)

def _small_eps_slow(data):
    every = F.need(data, "auction/small_eps")
    small = [r for r in every if not r.get("timeout")]
    stopped = len(every) - len(small)
    eps1 = {(r["n"], r["density"], r["instance"], r["variant"]): r for r in _report(data)}
    ratios = {}
    for r in small:
        base = eps1.get((r["n"], r["density"], r["instance"], r["variant"]))
        if base and base.get("total_ms"):
            ratios.setdefault(r["variant"], []).append(r["total_ms"] / base["total_ms"])
    if not ratios:
        raise F.Missing("no instance of auction/small_eps also in auction/report")
    top = max(r["n"] for r in small)
    inst = len({r["instance"] for r in small})
    measured = ("time at eps = 1/(m+1) / time at eps = 1, same instances, median: " +
                ", ".join(f"{v} {statistics.median(x):.1f}x" for v, x in ratios.items()) +
                f" (n <= {top}, {inst} instances per size)" +
                (f"; {stopped} more stopped at the round limit (the report's time-out)" if stopped else ""))
    if any(statistics.median(x) <= 1.5 for x in ratios.values()):
        return F.fails(measured, "a small eps does not slow both versions down here")
    if top < 3660 or inst < 3:
        return F.caveat(measured, "the GPU sweep stops at n = {} with {} instances (the report went to 3660 before "
                        "its time-out); the rerun to 3660 with 3 instances is not recorded yet".format(top, inst))
    return F.holds(measured)


def _plain_against_eps1(data):
    """{(n, density, instance): (rounds at eps = 1/(m+1), rounds at eps = 1)} of the serial version."""
    plain = analysis.per_instance([r for r in F.need(data, "auction/scaling") if r.get("method") == "plain"])
    eps1 = analysis.per_instance([r for r in _report(data) if r["variant"] == "serial"])
    return {k: (v["serial"], eps1[k]["serial"]) for k, v in plain.items() if k in eps1 and "serial" in v}


def _explode(data):
    both = _plain_against_eps1(data)
    if not both:
        raise F.Missing("no instance of auction/scaling also in auction/report")
    sizes = sorted({k[0] for k in both})
    ratio = {n: statistics.median(a / b for k, (a, b) in both.items() if k[0] == n) for n in sizes}
    rounds = {n: statistics.median(a for k, (a, _) in both.items() if k[0] == n) for n in sizes}
    measured = ("serial rounds at eps = 1/(m+1) (the deterministic GPU version has the same), median: " +
                ", ".join(f"{rounds[n]:,.0f} at {n}" for n in sizes) + "; that is " +
                ", ".join(f"{ratio[n]:.0f}x" for n in sizes) + " the rounds at eps = 1")
    if sizes[-1] < 3660:
        return F.untestable(f"the recorded sweep stops at n = {sizes[-1]}; it needs the sizes to 3660, where the "
                            "report's rounds grew", measured)
    if ratio[sizes[-1]] >= 10 and ratio[sizes[-1]] > ratio[sizes[0]]:
        return F.holds(measured)
    return F.fails(measured, "the rounds at eps = 1/(m+1) do not grow much faster than at eps = 1")


def _invert(data):
    plain = [r for r in F.need(data, "auction/scaling") if r.get("method") == "plain"]
    m = analysis.means(plain, "total_ms", "n", "density")
    big = [n for n in sorted({n for n, _ in m}) if n >= REPORT_CROSSOVER and (n, DENSE) in m and (n, SPARSE) in m]
    if not big:
        return F.untestable(f"needs the plain eps = 1/(m+1) sweep at n >= {REPORT_CROSSOVER} (the scaling preset)")
    inverted = [n for n in big if m[(n, DENSE)] > m[(n, SPARSE)]]
    measured = ("serial time at eps = 1/(m+1), sparse / dense: " +
                ", ".join(f"{m[(n, SPARSE)] / m[(n, DENSE)]:.1f}x at {n}" for n in big))
    if len(inverted) == len(big):
        return F.holds(measured)
    spread = []
    for key in {(r["n"], r["density"]) for r in plain}:
        rs = [r["rounds"] for r in plain if (r["n"], r["density"]) == key]
        spread.append(max(rs) / min(rs))
    mean, sd = REPORT_SMALL_EPS_ROUNDS_3660
    return F.fails(measured, f"dense instances stay faster, as at eps = 1; the rounds of one size and density vary up "
                   f"to {max(spread):.0f}x between instances here (in the report's Table 3 the standard deviation is "
                   f"{sd / mean:.0%} of the mean at 3660 dense), so a few instances decide the direction, likely here "
                   "as in the report")


# ----------------------------------------------------------------------------- Section 4

def _compromise(data):
    opt = analysis.per_instance([r for r in F.need(data, "auction/scaling") if r.get("verified") is True],
                                value="objective", by="method")
    eps1 = analysis.per_instance([r for r in _report(data) if r["variant"] == "serial"], value="objective")
    gaps = [(k[0], o["plain"] - eps1[k]["serial"], (o["plain"] - eps1[k]["serial"]) / o["plain"])
            for k, o in opt.items() if "plain" in o and k in eps1]
    if not gaps:
        raise F.Missing("no certified-optimal instance of auction/scaling also in auction/report")
    rounds = _plain_against_eps1(data)
    top = max(k[0] for k in rounds)
    fewer = statistics.median(a / b for k, (a, b) in rounds.items() if k[0] == top)
    worst = max(gaps, key=lambda g: g[2])
    measured = (f"eps = 1 answers below the optimum by a median of {statistics.median(g[1] for g in gaps):.0f} "
                f"(bound m), at most {worst[2]:.1e} of it ({len(gaps)} instances), with {fewer:.0f}x fewer rounds "
                f"at n = {top}")
    if worst[2] <= 1e-3 and fewer > 1:
        return F.holds(measured)
    return F.fails(measured, "eps = 1 answers are further from the optimum than a compromise allows")


def _scaling(data):
    rows = F.need(data, "auction/scaling")
    t = analysis.means(rows, "total_ms", "density", "n", "method")
    r = analysis.means(rows, "rounds", "density", "n", "method")
    keys = sorted({(d, n) for d, n, x in t if (d, n, "plain") in t and (d, n, "eps-scaling") in t})
    if not keys:
        raise F.Missing("no plain and eps-scaling rows of auction/scaling")
    speed = {k: t[(*k, "plain")] / t[(*k, "eps-scaling")] for k in keys}
    fewer = {k: r[(*k, "plain")] / r[(*k, "eps-scaling")] for k in keys}
    top = max(n for _, n in keys)
    measured = (f"serial eps-scaling against the plain auction at eps = 1/(m+1), same instances: "
                f"{min(fewer.values()):.0f}x to {max(fewer.values()):.0f}x fewer rounds, time "
                f"{min(speed.values()):.1f}x to {max(speed.values()):.1f}x faster; at n = {top}: " +
                ", ".join(f"{speed[(d, top)]:.1f}x ({_NAMES.get(d, d)})" for d, n in keys if n == top))
    slower = [k for k in keys if speed[k] < 1]
    if any(speed[(d, top)] <= 1 for d, n in keys if n == top):
        return F.fails(measured, "eps-scaling is not faster at the largest size")
    if slower:
        return F.caveat(measured, "not faster at " + ", ".join(f"n = {n} ({_NAMES.get(d, d)})" for d, n in slower) +
                        ": every phase restarts with all persons unassigned, so its rounds carry more bidders; the "
                        "rounds fall far more than the time, and the gain grows with the size")
    return F.holds(measured)


def _overlap(data):
    rows = [r for r in F.need(data, "auction/exact") if r.get("tail_cache_hits") is not None]
    if not rows:
        raise F.Missing("no rows of auction/exact with the tail block's counters")
    hits = sum(r["tail_cache_hits"] for r in rows)
    scans = sum(r["tail_scans"] for r in rows)
    measured = (f"gpu_eps_scaling's bid caches (profits of objects whose price did not change) decided "
                f"{hits / (hits + scans):.0%} of the tail block's bids ({len(rows)} runs, n = "
                f"{min(r['n'] for r in rows)} to {max(r['n'] for r in rows)})")
    return F.caveat(measured, "the idea is built and used, but no run with the caches turned off is recorded, so its "
                    "gain in time is not measured")


FINDINGS = [
    F.Finding("The number of bidders tends to fall exponentially as the rounds proceed, so each object chooses "
              "among fewer and fewer candidates", "Sec. 2, Fig. 1 (first 100 rounds, 1108 persons, density 1)",
              ["auction/active_bidders"], _bidders),
    F.Finding("The copy of the matched counter to the host runs in parallel with the kernel that completes the "
              "queue, on several streams synchronised by events", "Sec. 2, Fig. 2", ["auction/timeline"], _fig2),
    F.Finding("A variant with CUDA graphs reduces the overhead of launching the kernels", "Sec. 2; Fig. 8",
              ["auction/report"], _graph),
    F.Finding("Best configuration: 128 threads for the bidding kernel and 256 for the assignment kernel",
              "Sec. 3, Figs. 3-4", ["auction/graph_tuning"], _threads),
    F.Finding("Best configuration: the grids' y size twice the number of SMs", "Sec. 3, Fig. 4",
              ["auction/graph_tuning"], _grid),
    F.Finding("The serial version's times grow faster than those of the parallel versions, which scale better as "
              "the instance grows", "Sec. 3, Figs. 5-8, Table 2", ["auction/report"], _scale),
    F.Finding("In both cases performance is better on dense graphs, with a large difference for the serial version "
              "(about 7 times worse on the largest instance)",
              "Sec. 3, Figs. 5-8 (its Table 2 gives 3.3x at 18000)", ["auction/report"], _dense),
    F.Finding("Denser instances always need fewer rounds to reach the final assignment, which lowers the time",
              "Sec. 3, Fig. 9, Table 3 (the text says 'lower density'; its table and argument mean denser)",
              ["auction/report"], _rounds_density),
    F.Finding("The parallel implementation always beats the serial version, except on the smallest instances",
              "Sec. 4; Table 2", ["auction/report"], _crossover),
    F.Finding("At the largest size, m = n = 18000, the GPU is about 8x (dense) and 9x (sparse) faster than the "
              "serial version", "Table 2 (recomputed: serial / best GPU version)", ["auction/report"], _headline),
    F.Finding("The practical differences between the parallel versions are minimal", "Sec. 4; Fig. 8",
              ["auction/report"], _versions),
    F.Finding("The non-deterministic versions are preferable, being less likely to fall into 'unlucky' cases",
              "Sec. 4", ["auction/report"], _unlucky),
    F.Finding("With eps = 1/(m+1), which guarantees the optimum, the times of both algorithms rise significantly "
              "(the report's runs hit their time-out)", "Sec. 3, Fig. 10; Sec. 4",
              ["auction/small_eps", "auction/report"], _small_eps_slow),
    F.Finding("With eps = 1/(m+1) the growth of the rounds becomes exponential, degrading the times",
              "Sec. 3, Figs. 9-10, Table 3", ["auction/scaling", "auction/report"], _explode),
    F.Finding("With eps = 1/(m+1) the trend with density is inverted (denser instances become slower)",
              "Sec. 3, Fig. 10", ["auction/scaling"], _invert),
    F.Finding("eps = 1 can be a good compromise when a sub-optimal solution is acceptable", "Sec. 4",
              ["auction/scaling", "auction/report"], _compromise),
    F.Finding("One could start from a larger eps and lower it until the result is satisfactory", "Sec. 4",
              ["auction/scaling"], _scaling),
    F.Finding("Structures that limit the bidding work could help, since the profits of objects not changed by the "
              "assignment phase stay as in the previous round", "Sec. 4", ["auction/exact"], _overlap),
]
