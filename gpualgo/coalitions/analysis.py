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

import statistics

from .solve import VARIANTS

__all__ = ["REPORT", "num", "median_ms", "largest_n", "speedups_over_serial", "shared_splits_gain",
           "report_lines", "copy_bandwidth_of", "bandwidth_at_largest", "bandwidth_lines", "target_lines",
           "best_speedup"]

#: the source report's results the notebook compares with: 29 agents in about 2 hours on a
#: GTX 660 Ti, 40x one CPU core, shared splits 40 % faster
REPORT = {"n": 29, "gpu_seconds": 7200.0, "speedup": 40.0, "shared_gain": 0.40}


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


def report_lines(rows, variants=None) -> list[str]:
    """The sentences printed below the report's figure: each version's largest n and its
    median time, the speed-ups over the serial DP, the gain of shared splits and the time
    at the report's n, each next to the report's result."""
    largest = largest_n(rows, variants)
    lines = [f"{v:18s} up to n={n}: {median_ms(rows, v, n) / 1e3:9.3f} s" for v, n in largest.items()]
    lines += [f"{v} at n={n}: {num(x)}x the serial DP" for v, (n, x) in speedups_over_serial(rows, variants).items()]
    gain = shared_splits_gain(rows)
    if gain is not None:
        n, g = gain
        lines.append(f"shared splits at n={n}: {abs(g):.0%} {'faster' if g >= 0 else 'slower'} than without "
                     f"them (the report: {REPORT['shared_gain']:.0%} faster)")
    t = median_ms(rows, "gpu_odp", REPORT["n"])
    if t:
        lines.append(f"n={REPORT['n']} with gpu_odp: {t / 1e3:.1f} s, against about "
                     f"{REPORT['gpu_seconds'] / 3600:.0f} hours in the report ({num(REPORT['gpu_seconds'] / (t / 1e3))}x)")
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


def target_lines(rows) -> list[str]:
    """A sentence per measured row of the ``targets`` preset (its time, its goal, the speed-up,
    whether the goal was met, the bytes per second against the copy bandwidth), then the best
    speed-up over the numba serial DP against the goal of 100x."""
    lines = []
    for r in rows:
        if r["variant"] == "device_copy":
            continue
        notes = [r.get("goal") or ""]
        if _present(r.get("speedup_vs_serial")):
            notes.append(f"speed-up {num(r['speedup_vs_serial'])}x")
        if _present(r.get("speedup_vs_serial_odp")):   # pruned against pruned, in the same run
            notes.append(f"{num(r['speedup_vs_serial_odp'])}x the serial pruned DP")
        if _present(r.get("met")):
            notes.append("met" if r["met"] else "NOT met")
        if _present(r.get("fraction_of_copy")):
            notes.append(f"{num(r['bytes_per_s'] / 1e9)} GB/s requested ({r['fraction_of_copy']:.0%} of the copy "
                         f"bandwidth), {num(r['logical_bytes_per_s'] / 1e9)} GB/s logical")
        lines.append(f"{r['variant']:10s} n={r['n']:2d}: {r['total_ms'] / 1e3:8.3f} s  "
                     + ";  ".join(t for t in notes if t))
    best = best_speedup(rows)
    if best is not None:
        lines.append(f"best speed-up over the numba serial DP: {num(best)}x (goal: at least 100x)")
    return lines


def multigpu_lines(rows) -> list[str]:
    """Sentences on the DP on several GPUs (the ``multigpu`` preset): the speed-up of each
    GPU count over the fewest at each n, whether the answers agree, the runs on the most GPUs
    alone, and the largest n the GPUs hold (computed from their memory, not run)."""
    from ..guards import gib
    lines = []
    runs = [r for r in rows if r.get("measured") is not False]
    for n in sorted({r["n"] for r in runs}):
        at = sorted((r for r in runs if r["n"] == n), key=lambda r: r["devices"])
        if len(at) > 1:
            parts = [f"{r['devices']} GPU(s) {r['total_ms'] / 1e3:.2f} s" for r in at]
            same = all(r.get("matches_fewest_gpus") for r in at)
            lines.append(f"n = {n}: " + "; ".join(parts) + f": {at[0]['total_ms'] / at[-1]['total_ms']:.2f}x "
                         f"on {at[-1]['devices']} GPUs ({'the same partition and DP value' if same else 'ANSWERS DIFFER'};"
                         f" merging the tables took {at[-1].get('exchange_ms', 0) / 1e3:.2f} s)")
        else:
            r = at[0]
            lines.append(f"n = {n} on {r['devices']} GPU(s): {r['total_ms'] / 1e3:.1f} s, exact (the partition's "
                         f"value equals the DP's)")
    for r in rows:
        if r.get("measured") is False:
            lines.append(f"the largest n the {r['devices']} GPUs hold: n = {r['n']}, {gib(r['bytes_per_gpu'])} on each "
                         f"of {gib(r['usable_bytes_per_gpu'])} usable (computed from the memory, not run)")
    return lines
