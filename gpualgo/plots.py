"""Plots the notebooks share, drawn from result rows (lists of flat dicts).

Each function draws on a matplotlib ``ax`` you pass and returns it; titles and
axis labels stay with the caller, who knows the units.
"""
from __future__ import annotations

from .timing import group

__all__ = ["group", "lines", "speedup", "new_axes", "log_x", "roofline", "timeline"]


def _label(key, by) -> str:
    if isinstance(by, (list, tuple)):
        return ", ".join(f"{b}={k}" if not isinstance(k, str) else k for b, k in zip(by, key))
    return str(key)


def new_axes(ncols: int = 1, width: float = 6.0, height: float = 4.0):
    """A figure with ``ncols`` side-by-side axes (returns fig, list of axes)."""
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, height), squeeze=False)
    return fig, list(axes[0])


def log_x(ax, values=()):
    """A log x axis whose labels never overlap: over less than two decades, with at most 8
    measured values, the ticks are those values written plainly; minor ticks go unlabelled."""
    from matplotlib.ticker import NullFormatter, ScalarFormatter
    ax.set_xscale("log")
    xs = sorted({float(v) for v in values if v is not None and float(v) > 0})
    if xs and len(xs) <= 8 and xs[-1] / xs[0] < 100:
        ax.set_xticks(xs)
        fmt = ScalarFormatter()
        fmt.set_scientific(False)
        ax.xaxis.set_major_formatter(fmt)
    ax.xaxis.set_minor_formatter(NullFormatter())
    return ax


def lines(ax, rows, x, y, by, logx=False, logy=False, err=True, order=None, marker="o"):
    """One line per distinct value of ``by``: mean of ``y`` at each ``x``, std as error bars.

    ``order`` lists the group keys in the order to draw them (others follow).
    """
    groups = group(rows, by, x, y)
    keys = list(order or []) + [k for k in groups if k not in (order or [])]
    for k in keys:
        if k not in groups:
            continue
        pts = groups[k]
        xs = list(pts)
        means = [pts[v]["mean"] for v in xs]
        stds = [pts[v]["std"] for v in xs] if err else None
        ax.errorbar(xs, means, yerr=stds, marker=marker, ms=4, capsize=3, label=_label(k, by))
    if logx:
        log_x(ax, [v for pts in groups.values() for v in pts])
    if logy:
        ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    if keys:
        ax.legend(fontsize="small")
    return ax


def speedup(ax, rows, x, time_key, by, baseline, logx=False, logy=True):
    """Speed-up of every group over the ``baseline`` group: median baseline time / median time, per ``x``."""
    groups = group(rows, by, x, time_key)
    if baseline not in groups:
        raise ValueError(f"baseline {baseline!r} not among {list(groups)}")
    base = groups[baseline]
    for k, pts in groups.items():
        if k == baseline:
            continue
        xs = [v for v in pts if v in base and pts[v]["median"] > 0]
        ax.plot(xs, [base[v]["median"] / pts[v]["median"] for v in xs], marker="o", ms=4,
                label=f"{_label(k, by)} vs {_label(baseline, by)}")
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    if logx:
        log_x(ax, [v for pts in groups.values() for v in pts])
    if logy:
        ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    return ax


def roofline(points: dict, bandwidth_gbs: float, peak_g: float, ax=None, work: str = "instructions",
             label: str = "roofline (measured peaks)"):
    """A roofline: the ceiling min(copy bandwidth x intensity, peak) from the device's measured
    peaks (``bandwidth_gbs`` GB/s, ``peak_g`` G ``work`` per second; ``label`` names it), and
    the kernels ``points = {label: (work per DRAM byte, G work per second)}``. Returns the axes."""
    import matplotlib.pyplot as plt
    import numpy as np
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    lo = min([1e-2] + [i / 10 for i, _ in points.values() if i > 0])
    hi = max([1e3] + [i * 10 for i, _ in points.values()])
    x = np.logspace(np.log10(lo), np.log10(hi), 200)
    ax.loglog(x, np.minimum(bandwidth_gbs * x, peak_g), "k-", label=label)
    for label, (intensity, rate) in points.items():
        ax.loglog([intensity], [rate], "o", label=label)
    ax.set_xlabel(f"intensity ({work} per DRAM byte)")
    ax.set_ylabel(f"G {work} per second")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    return ax


def timeline(ax, spans, lane: str = "stream", label: str = "step"):
    """Spans on lanes, as a profiler draws them: ``spans`` are rows with ``start_us`` and
    ``end_us``, one lane per value of ``lane``, one colour per value of ``label``. Returns
    the axes."""
    lanes = list(dict.fromkeys(r[lane] for r in spans))
    labels = list(dict.fromkeys(r[label] for r in spans))
    colours = {k: f"C{i}" for i, k in enumerate(labels)}
    shown = set()
    for i, name in enumerate(lanes):
        for k in labels:
            bars = [(r["start_us"], max(r["end_us"] - r["start_us"], 0.0)) for r in spans
                    if r[lane] == name and r[label] == k]
            if bars:
                ax.broken_barh(bars, (i - 0.35, 0.7), color=colours[k], label=None if k in shown else k)
                shown.add(k)
    ax.set_yticks(range(len(lanes)), lanes)
    ax.set_xlabel("time (µs)")
    ax.legend(fontsize=8, loc="upper right")
    return ax
