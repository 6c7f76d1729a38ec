"""What the coalition notebook reads off its measurements, as numbers and sentences.

Every function takes result rows (those of :mod:`gpualgo.coalitions.bench`, measured now or
read from ``data/results/coalitions``): the largest size each version reached and its
median time, the speed-ups over the serial DP, the gain of shared splits, the fractions of
the copy bandwidth, the performance targets. Times are the rows' ``total_ms``.

>>> rows = [dict(variant="serial", n=20, total_ms=4000.0), dict(variant="gpu_odp", n=20, total_ms=8.0),
...         dict(variant="gpu_odp", n=20, total_ms=12.0), dict(variant="gpu_odp", n=29, total_ms=13800.0)]
>>> largest_n(rows)
{'serial': 20, 'gpu_odp': 29}
>>> speedups_over_serial(rows)
{'gpu_odp': (20, 400.0)}
>>> for line in report_lines(rows):
...     print(line)
serial             up to n=20:     4.000 s
gpu_odp            up to n=29:    13.800 s
gpu_odp at n=20: 400x the serial DP
n=29 with gpu_odp: 13.8 s, against about 2 hours in the report (522x)
"""
from __future__ import annotations

import json
import math
import statistics

from ..guards import gib
from .gpu import PHASES, odp_splits
from .serial import RULES
from .solve import VARIANTS, table_need, total_splits

__all__ = ["REPORT", "LABELS", "L2_BYTES", "num", "median_ms", "largest_n", "speedups_over_serial",
           "shared_splits_gain", "seconds_at", "headline", "speedup_parts", "NO_BOUND", "against_report", "speedups_by_n",
           "growth_per_agent", "outside_kernels", "largest_n_in_l2", "SECTOR_BYTES", "traffic", "traffic_lines",
           "report_lines", "copy_bandwidth_of",
           "bandwidth_at_largest", "bandwidth_lines", "target_lines", "best_speedup", "PHASES", "phase_shares",
           "phase_lines", "launch_rows", "launch_lines", "reads_avoided_by_share", "MULTIGPU_GOAL", "multigpu_lines", "FAST_GOALS",
           "part_use", "part_use_lines"]

#: the source report's results the notebook compares with: 29 agents in about 2 hours on a
#: GTX 660 Ti, 40x one CPU core, shared splits 40 % faster
REPORT = {"n": 29, "gpu_seconds": 7200.0, "cpu_seconds": 83 * 3600.0, "speedup": 40.0, "shared_gain": 0.40}

#: what each version is, for legends and tables (the keys are the names recorded in the CSVs).
#: gpu_shared_splits keeps the report's name, but it uses no ``__shared__`` memory: a thread
#: keeps the subsets it has just read, and their values, in registers, and reuses them for the
#: same counter of the next coalitions
LABELS = {"serial": "serial DP", "serial_odp": "serial ODP", "gpu_report": "GPU: report kernel",
          "gpu_shared_splits": "GPU: reads reused in registers ('shared splits')",
          "gpu_odp": "GPU: ODP, shared-memory tiles", "gpu_odp_multi": "GPUs: ODP split over every GPU"}

#: bytes a global-memory read fetches at the least (one sector of a cache line)
SECTOR_BYTES = 32

#: L2 cache of the GPUs the results were recorded on (bytes): the H100 SXM's 50 MB
L2_BYTES = {"NVIDIA H100 80GB HBM3": 50 * 10**6}


def num(x: float) -> str:
    """A number for a sentence: ``2,216`` rather than ``2.22e+03``; below 10 (quick runs),
    two significant digits.

    >>> num(2216.4), num(3.14159)
    ('2,216', '3.1')
    """
    return f"{x:,.0f}" if abs(x) >= 10 else f"{x:.2g}"


def _present(value) -> bool:
    return value not in (None, "")


def median_ms(rows, variant: str, n: int, key: str = "total_ms") -> float | None:
    """Median of ``key`` over the rows of ``variant`` at ``n`` agents; None when there are none."""
    times = [r[key] for r in rows if r["variant"] == variant and r["n"] == n and _present(r.get(key))]
    return float(statistics.median(times)) if times else None


def largest_n(rows, variants=None) -> dict:
    """``{variant: the largest n it has rows for}``, in the order of ``variants`` (default:
    :data:`~gpualgo.coalitions.VARIANTS`), leaving out those without rows."""
    out = {}
    for v in variants or tuple(VARIANTS):
        ns = [r["n"] for r in rows if r["variant"] == v]
        if ns:
            out[v] = max(ns)
    return out


def speedups_over_serial(rows, variants=None) -> dict:
    """``{variant: (n, median serial time / median time of variant)}`` at the largest n the
    serial DP reached, for every other version measured there (same run, same instances)."""
    n_ser = largest_n(rows, ["serial"]).get("serial")
    out = {}
    if n_ser is None:
        return out
    ser = median_ms(rows, "serial", n_ser)
    for v in variants or tuple(VARIANTS):
        t = median_ms(rows, v, n_ser)
        if v != "serial" and t:
            out[v] = (n_ser, ser / t)
    return out


def shared_splits_gain(rows) -> tuple[int, float] | None:
    """``(n, gain)``: how much faster gpu_shared_splits is than gpu_report at the largest n
    both reached (0.4 is 40 % faster, a negative gain is slower); None without both."""
    top = largest_n(rows, ["gpu_report", "gpu_shared_splits"])
    if len(top) < 2:
        return None
    n = min(top.values())
    a, b = median_ms(rows, "gpu_report", n), median_ms(rows, "gpu_shared_splits", n)
    return (n, a / b - 1) if a and b else None


def _rule_of(rows, variant: str) -> str:
    rules = {r.get("rule") for r in rows if r["variant"] == variant and r.get("rule")}
    return rules.pop() if len(rules) == 1 else ("odp" if variant.endswith("odp") else "dp")


def seconds_at(rows, variant: str, n: int) -> tuple[float, int] | None:
    """``(seconds, n_from)``: the median time of ``variant`` at ``n`` agents (``n_from == n``),
    or, where it was not run that far, its median time at the largest n it reached scaled by
    the splits its rule evaluates (``total_splits(n) / total_splits(n_from)``, about 3 per
    agent): an extrapolation at the rate measured last. None without rows.

    >>> rows = [dict(variant="serial", n=20, total_ms=4000.0, rule="dp")]
    >>> s, n_from = seconds_at(rows, "serial", 21)
    >>> n_from, round(s, 2)
    (20, 12.0)
    """
    t = median_ms(rows, variant, n)
    if t is not None:
        return t / 1e3, n
    top = largest_n(rows, [variant]).get(variant)
    if top is None:
        return None
    rule = _rule_of(rows, variant)
    return median_ms(rows, variant, top) / 1e3 * total_splits(n, rule) / total_splits(top, rule), top


def headline(rows, gpu: str = "gpu_report", cpu: str = "serial") -> dict | None:
    """The report's headline on its own versions today: the time of the report's kernel and of
    the serial DP at the report's n (29 agents), each measured or extrapolated by
    :func:`seconds_at`, and their ratio: ``{"n", "gpu_s", "gpu_from", "cpu_s", "cpu_from",
    "factor"}``; None without rows of both (or a GPU time of zero)."""
    n = REPORT["n"]
    g, c = seconds_at(rows, gpu, n), seconds_at(rows, cpu, n)
    if g is None or c is None or not g[0]:
        return None
    return {"n": n, "gpu_s": g[0], "gpu_from": g[1], "cpu_s": c[0], "cpu_from": c[1], "factor": c[0] / g[0]}


#: the label of ``gpu_odp``'s rows run without its bound (``bound=False``) beside it, in the
#: ``targets`` preset: the same version, so that the bound's share can be taken apart
NO_BOUND = "gpu_odp bound=False"


def speedup_parts(rows, n: int | None = None) -> dict | None:
    """gpu_odp's speed-up over the serial DP taken apart, at ``n`` (default: the largest n
    the three versions share): ``pruning`` = serial DP / serial ODP (the algorithm, on one
    core), ``gpu`` = serial ODP / gpu_odp (pruned against pruned), ``total`` their product;
    where the rows hold gpu_odp without its bound at n too (:data:`NO_BOUND`), ``gpu`` is
    serial ODP / that, and ``bound`` = that / gpu_odp. ``{"n", "total", "pruning", "gpu"}``
    (and ``"bound"``), None where one is missing."""
    names = ("serial", "serial_odp", "gpu_odp")
    if n is None:
        top = largest_n(rows, names)
        if len(top) < 3:
            return None
        n = min(top.values())
    ser, sodp, godp = (median_ms(rows, v, n) for v in names)
    if not (ser and sodp and godp):
        return None
    out = {"n": n, "total": ser / godp, "pruning": ser / sodp, "gpu": sodp / godp}
    tiles = median_ms(rows, NO_BOUND, n)
    if tiles:
        out.update(gpu=sodp / tiles, bound=tiles / godp)
    return out


def against_report(rows) -> dict | None:
    """gpu_odp at the report's n against the report's GPU time (about 2 hours), taken apart:
    ``hardware`` = the report's time / the report's own kernel today (same algorithm, today's
    GPU; extrapolated where gpu_report did not reach n), ``pruning`` = the splits of the DP /
    those of ODP, ``tiles`` = the rest (splits per second of the tiles over the report's
    kernel); ``{"n", "total", "hardware", "pruning", "tiles", "report_from", "odp_s"}``, None
    without gpu_odp at n or without gpu_report rows."""
    n = REPORT["n"]
    t = median_ms(rows, "gpu_odp", n)
    rep = seconds_at(rows, "gpu_report", n)
    if not t or rep is None or not rep[0]:
        return None
    odp_s = t / 1e3
    pruning = total_splits(n, "dp") / total_splits(n, _rule_of(rows, "gpu_odp"))
    return {"n": n, "total": REPORT["gpu_seconds"] / odp_s, "hardware": REPORT["gpu_seconds"] / rep[0],
            "pruning": pruning, "tiles": rep[0] / odp_s / pruning, "report_from": rep[1], "odp_s": odp_s}


def speedups_by_n(rows, variant: str, baseline: str = "serial") -> dict:
    """``{n: median baseline time / median time of variant}`` at every n both were run at."""
    out = {}
    for n in sorted({r["n"] for r in rows if r["variant"] == variant}):
        a, b = median_ms(rows, baseline, n), median_ms(rows, variant, n)
        if a and b:
            out[n] = a / b
    return out


def growth_per_agent(rows, variant: str, key: str = "total_ms") -> tuple[int, float] | None:
    """``(n, ratio)``: the median ``key`` of ``variant`` at its largest n over the one at
    n - 1 (time: about 3 for an O(3**n) run at a steady rate; ``splits_per_s``: 1 once the
    rate no longer rises); None without both sizes."""
    top = largest_n(rows, [variant]).get(variant)
    if top is None:
        return None
    a, b = median_ms(rows, variant, top, key), median_ms(rows, variant, top - 1, key)
    return (top, a / b) if a and b else None


def outside_kernels(rows, variant: str) -> tuple[int, float] | None:
    """``(n, fraction)``: the share of ``variant``'s whole call spent outside its DP kernels
    (``1 - kernel_ms / total_ms``: the rebuild, the uploads, the coalition lists) at its
    largest n; an upper bound on the rebuild's share. None without kernel times."""
    runs = [r for r in rows if r["variant"] == variant and _present(r.get("kernel_ms"))]
    top = largest_n(runs, [variant]).get(variant)
    total = median_ms(runs, variant, top) if top is not None else None
    if not total:
        return None
    return top, 1 - median_ms(runs, variant, top, "kernel_ms") / total


def largest_n_in_l2(device: str, itemsize: int = 4) -> int | None:
    """The largest n whose DP table (``2**n`` values of ``itemsize`` bytes) fits in the L2
    cache of ``device`` (:data:`L2_BYTES`); None for a GPU not listed.

    >>> largest_n_in_l2("NVIDIA H100 80GB HBM3")
    23
    """
    l2 = L2_BYTES.get(device)
    if l2 is None:
        return None
    n = 0
    while (1 << (n + 1)) * itemsize <= l2:
        n += 1
    return n


def traffic(bw_rows, rows=()) -> dict | None:
    """What the ``bandwidth`` rows (and the ``report`` rows ``rows``, for the sizes beyond)
    say about the report's kernels' memory traffic, as numbers:

    - ``copy``, ``itemsize``, ``n``, ``requested``, ``share``: the copy bandwidth, the bytes of a
      table value, gpu_report's largest n
      and the bytes per second it requests there, as a fraction of the copy;
    - ``sectors_share``: the same if every read of an ``itemsize``-byte value fetched a whole
      :data:`SECTOR_BYTES` sector from DRAM (above 1: most reads are served by the caches);
    - ``shared_gain``, ``shared_bytes``: gpu_shared_splits at the same n, its splits per second
      over gpu_report's minus 1, and its bytes per second over gpu_report's;
    - ``odp_n``, ``odp_logical_share``: gpu_odp's largest n and the values it uses per second
      (two per split) as a fraction of the copy;
    - ``l2_n``, ``in_l2``, ``out_n``, ``out``: the largest n whose table fits the GPU's L2
      (:data:`L2_BYTES`), gpu_report's requested bytes per second there and at its largest n
      in ``rows`` beyond it.

    Keys without data are None; None when there is no copy row or no gpu_report row."""
    copy = copy_bandwidth_of(bw_rows)
    top = bandwidth_at_largest(bw_rows, ["gpu_report", "gpu_shared_splits", "gpu_odp"])
    rep = top.get("gpu_report")
    if not copy or not rep or not rep["bytes_per_s"]:
        return None
    itemsize = 8 if any(r.get("dtype") == "float64" for r in bw_rows if r["variant"] == "gpu_report") else 4
    out = {"copy": copy, "itemsize": itemsize, "n": rep["n"], "requested": rep["bytes_per_s"], "share": rep["bytes_per_s"] / copy,
           "sectors_share": rep["bytes_per_s"] / copy * SECTOR_BYTES / itemsize, "shared_gain": None,
           "shared_bytes": None, "odp_n": None, "odp_logical_share": None, "l2_n": None, "in_l2": None,
           "out_n": None, "out": None}
    sh = top.get("gpu_shared_splits")
    if sh and sh["n"] == rep["n"] and sh["splits_per_s"] and rep["splits_per_s"]:
        out["shared_gain"] = sh["splits_per_s"] / rep["splits_per_s"] - 1
        out["shared_bytes"] = sh["bytes_per_s"] / rep["bytes_per_s"]
    odp = top.get("gpu_odp")
    if odp and odp["logical_bytes_per_s"]:
        out["odp_n"], out["odp_logical_share"] = odp["n"], odp["logical_bytes_per_s"] / copy
    reps = [r for r in rows if r["variant"] == "gpu_report"]
    device = next((r.get("device") for r in reps + list(bw_rows) if r.get("device")), "")
    l2_n = largest_n_in_l2(device, itemsize)
    out["l2_n"] = l2_n
    if l2_n is not None and reps:
        top_n = max(r["n"] for r in reps)
        a, b = median_ms(reps, "gpu_report", l2_n, "bytes_per_s"), median_ms(reps, "gpu_report", top_n, "bytes_per_s")
        if top_n > l2_n and a and b:
            out.update(in_l2=a, out_n=top_n, out=b)
    return out


def traffic_lines(bw_rows, rows=()) -> list[str]:
    """:func:`traffic` as sentences, for the notebook's section on the hardware limit."""
    t = traffic(bw_rows, rows)
    if t is None:
        return []
    lines = [f"gpu_report at n={t['n']} requests {num(t['requested'] / 1e9)} GB/s, {t['share']:.0%} of the copy "
             f"bandwidth; counted in {SECTOR_BYTES}-byte sectors instead of values it would be {t['sectors_share']:.0%}: "
             f"{'more than the copy, so most reads are served by the caches' if t['sectors_share'] > 1 else 'below the copy'}"]
    if t["out"] is not None:
        lines.append(f"the DP table fits this GPU's L2 up to n={t['l2_n']}: gpu_report requests "
                     f"{num(t['in_l2'] / 1e9)} GB/s there and {num(t['out'] / 1e9)} GB/s at n={t['out_n']} "
                     f"({(1 << t['out_n']) * t['itemsize'] / 2**20:,.0f} MiB table)")
    if t["shared_gain"] is not None:
        lines.append(f"shared splits (reads reused in registers) at n={t['n']}: {t['shared_gain']:+.0%} splits/s at "
                     f"{t['shared_bytes']:.0%} of gpu_report's bytes/s")
    if t["odp_logical_share"] is not None:
        lines.append(f"gpu_odp at n={t['odp_n']}: the values it uses per second are {t['odp_logical_share']:.0%} "
                     f"of the copy bandwidth")
    return lines


def report_lines(rows, variants=None) -> list[str]:
    """The sentences printed below the report's figure: each version's largest n and its
    median time, the speed-ups over the serial DP, the gain of shared splits and the time
    at the report's n, each next to the report's result."""
    largest = largest_n(rows, variants)
    lines = [f"{v:18s} up to n={n}: {median_ms(rows, v, n) / 1e3:9.3f} s" for v, n in largest.items()]
    parts = speedup_parts(rows)
    for v, (n, x) in speedups_over_serial(rows, variants).items():
        line = f"{v} at n={n}: {num(x)}x the serial DP"
        if v == "gpu_odp" and parts and parts["n"] == n:   # the pruned GPU DP against the unpruned serial
            line += (f" = {parts['pruning']:.1f}x from pruning (serial ODP) x {num(parts['gpu'])}x from the GPU "
                     f"(pruned against pruned)")
            if "bound" in parts:
                line += f" x {num(parts['bound'])}x from its bound"
        lines.append(line)
    gain = shared_splits_gain(rows)
    if gain is not None:
        n, g = gain
        lines.append(f"shared splits at n={n}: {abs(g):.0%} {'faster' if g >= 0 else 'slower'} than without "
                     f"them (the report: {REPORT['shared_gain']:.0%} faster)")
    t = median_ms(rows, "gpu_odp", REPORT["n"])
    if t:
        line = (f"n={REPORT['n']} with gpu_odp: {t / 1e3:.1f} s, against about "
                f"{REPORT['gpu_seconds'] / 3600:.0f} hours in the report ({num(REPORT['gpu_seconds'] / (t / 1e3))}x")
        a = against_report(rows)
        if a:
            how = "measured" if a["report_from"] == a["n"] else f"extrapolated from n={a['report_from']}"
            line += (f" = {num(a['hardware'])}x for the report's own kernel on today's GPU ({how}) x "
                     f"{a['pruning']:.1f}x fewer splits (ODP) x {a['tiles']:.1f}x more splits/s (tiles)")
        lines.append(line + ")")
    return lines


def copy_bandwidth_of(rows) -> float | None:
    """The device-to-device copy bandwidth measured in the same run (bytes per second, read
    and write counted): the ``device_copy`` row's, None without one."""
    copies = [r["copy_bytes_per_s"] for r in rows if r["variant"] == "device_copy"]
    return float(copies[0]) if copies else None


def bandwidth_at_largest(rows, variants=None) -> dict:
    """``{variant: {"n", "splits_per_s", "bytes_per_s", "logical_bytes_per_s"}}``: the
    medians at each GPU version's largest n."""
    runs = [r for r in rows if r["variant"] != "device_copy"]
    out = {}
    for v, n in largest_n(runs, variants or [v for v in VARIANTS if VARIANTS[v].gpu]).items():
        out[v] = {"n": n, **{k: median_ms(runs, v, n, key=k)
                             for k in ("splits_per_s", "bytes_per_s", "logical_bytes_per_s")}}
    return out


def bandwidth_lines(rows, variants=None) -> list[str]:
    """The measured copy bandwidth, then for each GPU version at its largest n: splits per
    second, bytes per second requested from global memory and logical (two values per
    split), each as a fraction of the copy bandwidth. Empty without a copy row."""
    bw = copy_bandwidth_of(rows)
    if bw is None:
        return []
    lines = [f"measured copy bandwidth: {num(bw / 1e9)} GB/s (bytes read + written)"]
    for v, top in bandwidth_at_largest(rows, variants).items():
        lines.append(f"{v:18s} n={top['n']}: {top['splits_per_s']:.3g} splits/s; "
                     f"{num(top['bytes_per_s'] / 1e9):>5s} GB/s requested ({top['bytes_per_s'] / bw:4.0%} of the copy), "
                     f"{num(top['logical_bytes_per_s'] / 1e9):>5s} GB/s logical "
                     f"({top['logical_bytes_per_s'] / bw:4.0%})")
    return lines


def best_speedup(rows) -> float | None:
    """The largest ``speedup_vs_serial`` of a GPU row of the ``targets`` preset, or None."""
    ups = [r["speedup_vs_serial"] for r in rows
           if r["variant"] not in ("serial", "device_copy") and _present(r.get("speedup_vs_serial"))]
    return max(ups) if ups else None


#: the pruned GPU DP's time goals on one GPU, in seconds for the whole solve, beside the
#: ``targets`` preset's own limits: ``{n: seconds}``
FAST_GOALS = {27: 1.0, 29: 7.0}


def target_lines(rows) -> list[str]:
    """A sentence per version and size of the ``targets`` preset (the median of its runs: its
    time, its goal, the speed-ups, whether the goal was met, the bytes per second against the
    copy bandwidth, and for ``gpu_odp`` at the sizes of :data:`FAST_GOALS` that goal, met or
    missed), then the best speed-up over the numba serial DP against the goal of 100x."""
    groups: dict = {}
    for r in rows:
        if r["variant"] != "device_copy":
            groups.setdefault((r["variant"], r["n"]), []).append(r)
    lines = []
    for (variant, n), rs in groups.items():
        def med(col):
            vals = [float(r[col]) for r in rs if _present(r.get(col))]
            return float(statistics.median(vals)) if vals else None
        notes = [rs[0].get("goal") or ""]
        if med("speedup_vs_serial") is not None:
            notes.append(f"speed-up {num(med('speedup_vs_serial'))}x")
        if med("speedup_vs_serial_odp") is not None:   # pruned against pruned, in the same run
            notes.append(f"{num(med('speedup_vs_serial_odp'))}x the serial pruned DP")
        met = [r["met"] for r in rs if _present(r.get("met"))]
        if met:
            notes.append("met" if all(met) else "NOT met")
        if variant == "gpu_odp" and n in FAST_GOALS:
            notes.append(f"goal under {FAST_GOALS[n]:g} s: {'met' if med('total_ms') < FAST_GOALS[n] * 1e3 else 'missed'}")
        if med("fraction_of_copy") is not None:
            notes.append(f"{num(med('bytes_per_s') / 1e9)} GB/s requested ({med('fraction_of_copy'):.0%} of the copy "
                         f"bandwidth), {num(med('logical_bytes_per_s') / 1e9)} GB/s logical")
        runs = f" (median of {len(rs)} runs)" if len(rs) > 1 else ""
        lines.append((f"{variant:10s} n={n:2d}: {med('total_ms') / 1e3:8.3f} s{runs}  "
                      + ";  ".join(t for t in notes if t)).rstrip())
    best = best_speedup(rows)
    if best is not None:
        lines.append(f"best speed-up over the numba serial DP: {num(best)}x (goal: at least 100x)")
    return lines


def part_use(n: int, b: int, rule: str = "odp") -> dict:
    """``{s: (parts, useful)}``: per level of ``gpu_odp`` (``b`` low bits), the parts x its lanes
    walk (each x of a task's core, one step of the walk, counted once per low coalition and high
    split of a loaded tile) and those of them that give a split the rule allows (|x| or its
    complement's size in the tile's range, :func:`~gpualgo.coalitions.gpu.odp_splits`).  Below
    the top ODP levels every part is useful; at the top ones, where the rule leaves a tile one or
    two sizes, most parts are walked for nothing (the lanes skip their reads, not the step).

    >>> use = part_use(27, 12)
    >>> round(use[18][1] / use[18][0], 3), round(use[15][1] / use[15][0], 3)
    (0.34, 1.0)
    """
    r = RULES.index(rule)
    out = {}
    for s in range(2, n + 1):
        parts = useful = 0
        for h, t, _, jlo, jhi, splits in odp_splits(n, b, s, r):
            tiles = math.comb(n - b, h) * splits * math.comb(b, t)
            if t == 0:
                parts, useful = parts + tiles, useful + tiles
                continue
            parts += tiles << (t - 1)
            useful += tiles * sum(math.comb(t - 1, j) for j in range(t) if jlo <= j <= jhi or jlo <= t - j <= jhi)
        if parts:
            out[s] = (parts, useful)
    return out


def part_use_lines(rows, top: int = 3) -> list[str]:
    """For ``gpu_odp``'s ``targets`` runs at the sizes of :data:`FAST_GOALS`: its ``top`` most
    expensive levels in tiles, each with its recorded time, its parts walked per nanosecond and the
    share of them that give no allowed split (:func:`part_use`): what the tiles cost where every
    level runs in them (the runs without the bound, :data:`NO_BOUND`, where the rows hold them;
    otherwise the levels the bound did not take)."""
    lines = []
    label = NO_BOUND if any(r.get("variant") == NO_BOUND for r in rows) else "gpu_odp"
    for r in rows:
        if r.get("variant") != label or r.get("n") not in FAST_GOALS or not _present(r.get("ms_per_level")):
            continue
        bounded = {int(k) for k in json.loads(r.get("bounded") or "{}")}
        ms = {int(k): float(v) for k, v in json.loads(r["ms_per_level"]).items() if int(k) not in bounded}
        use = part_use(int(r["n"]), int(r["low_bits"]), r.get("rule") or "odp")
        for s in sorted((s for s in ms if s in use), key=lambda s: -ms[s])[:top]:
            parts, useful = use[s]
            lines.append(f"n = {r['n']}, level {s:2d}: {ms[s]:7.1f} ms, {parts / ms[s] / 1e6:5.2f} parts walked per ns, "
                         f"{1 - useful / parts:4.0%} of them give no split the rule allows")
    return lines


#: the goal of the ``multigpu`` preset: (n, at least this speed-up of the most GPUs over one)
MULTIGPU_GOAL = (29, 1.6)


def multigpu_lines(rows) -> list[str]:
    """Sentences on the DP on several GPUs (the ``multigpu`` preset): the speed-up of each
    GPU count over the fewest at each n, whether the answers agree, the runs on the most GPUs
    alone, and the largest n the GPUs hold (computed from their memory, not run)."""
    lines = []
    runs = [r for r in rows if r.get("measured") is not False]
    for n in sorted({r["n"] for r in runs}):
        at = sorted((r for r in runs if r["n"] == n), key=lambda r: r["devices"])
        if len(at) > 1:
            parts = [f"{r['devices']} GPU(s) {r['total_ms'] / 1e3:.2f} s" for r in at]
            same = all(r.get("matches_fewest_gpus") for r in at)
            speedup = at[0]["total_ms"] / at[-1]["total_ms"]
            goal = (f"; goal {MULTIGPU_GOAL[1]}x: {'met' if speedup >= MULTIGPU_GOAL[1] else 'missed'}"
                    if n == MULTIGPU_GOAL[0] else "")
            lines.append(f"n = {n}: " + "; ".join(parts) + f": {speedup:.2f}x "
                         f"on {at[-1]['devices']} GPUs ({'the same partition and DP value' if same else 'ANSWERS DIFFER'};"
                         f" merging the tables took {at[-1].get('exchange_ms', 0) / 1e3:.2f} s{goal})")
        else:
            r = at[0]
            need = r.get("bytes_per_gpu") or table_need(n, r.get("dtype") or "float32", "gpu_odp_multi")[0]
            lines.append(f"n = {n} on {r['devices']} GPU(s): {r['total_ms'] / 1e3:.1f} s, exact (the partition's "
                         f"value equals the DP's); {gib(need)} of tables on each GPU (what the code allocates)")
    for r in rows:
        if r.get("measured") is False:
            lines.append(f"the largest n the {r['devices']} GPUs hold: n = {r['n']}, {gib(r['bytes_per_gpu'])} on each "
                         f"of {gib(r['usable_bytes_per_gpu'])} usable (computed from the memory, not run)")
    return lines


# ------------------------------------------------------------------ phases and launches

def phase_shares(rows, variant: str, n: int | None = None) -> tuple[int, dict] | None:
    """``(n, {phase: share})`` of ``variant`` in the ``phases`` rows: the median share of each
    phase of :data:`PHASES` (of the phases' sum of cycles) at ``n``, by default the largest n
    with shares; None without such rows.

    >>> rows = [dict(variant="gpu_report", n=20, share_setup=0.1, share_fetch=0.6, share_evaluate=0.1,
    ...              share_reduce=0.2)]
    >>> phase_shares(rows, "gpu_report")
    (20, {'setup': 0.1, 'fetch': 0.6, 'evaluate': 0.1, 'reduce': 0.2})
    """
    have = [r for r in rows if r["variant"] == variant and all(_present(r.get(f"share_{p}")) for p in PHASES)
            and sum(r[f"share_{p}"] for p in PHASES) > 0]
    if n is None and have:
        n = max(r["n"] for r in have)
    at = [r for r in have if r["n"] == n]
    if not at:
        return None
    return n, {p: float(statistics.median(r[f"share_{p}"] for r in at)) for p in PHASES}


def phase_lines(rows) -> list[str]:
    """A sentence per report kernel: its phases' shares at its largest n, the largest phase,
    and what the instrumented run checked (the optimum) and covered (the phases' share of the
    threads' cycles)."""
    lines = []
    for variant in ("gpu_report", "gpu_shared_splits"):
        got = phase_shares(rows, variant)
        if got is None:
            continue
        n, shares = got
        at = [r for r in rows if r["variant"] == variant and r["n"] == n]
        cover = [r["phase_coverage"] for r in at if _present(r.get("phase_coverage"))]
        checked = all(r.get("verified") is True for r in at)
        lines.append(f"{LABELS[variant]} at n={n}: " + ", ".join(f"{p} {x:.0%}" for p, x in shares.items())
                     + f" (largest: {max(shares, key=shares.get)}"
                     + (f"; the phases hold {statistics.median(cover):.0%} of the threads' cycles" if cover else "")
                     + ("; answer checked against the optimum)" if checked else "; ANSWER NOT CHECKED)"))
    return lines


def launch_rows(rows, variant: str, n: int | None = None) -> list[dict]:
    """The ``launch`` rows of ``variant`` at ``n`` (default: the smallest n, the one swept),
    each with its ``splits_per_s``, fastest first."""
    at = [r for r in rows if r["variant"] == variant]
    if not at:
        return []
    n = min(r["n"] for r in at) if n is None else n
    return sorted((r for r in at if r["n"] == n and _present(r.get("total_ms"))), key=lambda r: r["total_ms"])


def _launch_text(r) -> str:
    parts = [f"block {r['block']}", f"{r['per_thread']} splits/thread"]
    if _present(r.get("share")):
        parts.append(f"share {r['share']}")
    parts.append(f"{r['coalitions_per_thread']} coalitions/thread")
    return ", ".join(parts)


def launch_lines(rows) -> list[str]:
    """For each report kernel in the ``launch`` rows: at the swept size, the report's
    configuration's time, the fastest configuration and its gain over the report's, and the
    best value of each swept parameter; at each larger size, the report's against the default."""
    lines = []
    for variant in ("gpu_report", "gpu_shared_splits"):
        at = launch_rows(rows, variant)
        if not at:
            continue
        n = at[0]["n"]
        rep = next((r for r in at if r.get("report_config") is True), None)
        best = at[0]
        head = f"{LABELS[variant]} at n={n}: fastest {_launch_text(best)} ({best['total_ms']:.1f} ms)"
        if rep is not None:
            head += f"; the report's ({_launch_text(rep)}) {rep['total_ms']:.1f} ms, {rep['total_ms'] / best['total_ms']:.2f}x it"
        lines.append(head)
        for key in ("block", "per_thread", "share", "coalitions_per_thread"):
            swept = [r for r in at if r.get("swept") in (key, "report")]
            if len({r.get(key) for r in swept}) > 1:
                fastest = swept[0]
                lines.append(f"  {key} swept alone: fastest at {fastest[key]} ({fastest['total_ms']:.1f} ms)")
        for m in sorted({r["n"] for r in rows if r["variant"] == variant and r["n"] > n}):
            big = {r.get("swept"): r for r in launch_rows(rows, variant, m)}
            if "report" in big and "default" in big:
                lines.append(f"  n={m}: the report's configuration {big['report']['total_ms'] / 1e3:.2f} s, "
                             f"the default ({_launch_text(big['default'])}) {big['default']['total_ms'] / 1e3:.2f} s")
    return lines


def reads_avoided_by_share(rows) -> tuple[int, dict] | None:
    """``(n, {share: (fraction of the two reads per split avoided, splits per second)})`` of
    gpu_shared_splits in the ``launch`` rows where only ``share`` differs from the report's
    configuration, at the swept size; None without two shares."""
    at = [r for r in launch_rows(rows, "gpu_shared_splits") if r.get("swept") in ("share", "report")
          and _present(r.get("reads_saved")) and _present(r.get("splits")) and r["splits"]]
    out = {}
    for r in at:
        out.setdefault(int(r["share"]), (r["reads_saved"] / (2 * r["splits"]), r.get("splits_per_s")))
    return (at[0]["n"], dict(sorted(out.items()))) if len(out) >= 2 else None
