"""What notebook 01 reads off the auction's benchmark rows (:mod:`gpualgo.assignment.auction.bench`):
how the answers were checked in their run, the tables of mean times and rounds per size, the
speed-ups of the exact GPU auction over scipy and one line per ``exact`` instance. Rows are
those of a preset, measured now or read back from ``data/results/auction`` (plain dicts with
the columns of :func:`gpualgo.bench.row`, ``verified_by``, ``rounds``...; a run stopped by its
round limit has ``timeout`` 1).

>>> rows = [dict(variant="gpu_eps_scaling", n=1024, range="0-n", rep=0, total_ms=20.0, verified=True,
...              verified_by="scipy", speedup_vs_scipy=5.0, tail_cache_hits=30, tail_scans=10),
...         dict(variant="gpu_eps_scaling", n=1024, range="0-n", rep=1, total_ms=25.0, verified=True,
...              verified_by="scipy", speedup_vs_scipy=4.0),
...         dict(variant="scipy", n=1024, range="0-n", rep=0, total_ms=100.0, verified=None)]
>>> print(verdict(rows))
2 of 3 answers verified in their run (scipy); 1 without a check in their run (1 of them scipy's, the reference).
>>> speedups(rows)
{(1024, '0-n'): (4.5, 2, True)}
>>> print(exact_lines(rows)[0])
n=  1024      0-n:     20.0 ms,   5.0x scipy, 75% of the tail bids from caches
"""
from __future__ import annotations

import statistics

from ... import plots

__all__ = ["verdict", "mean_table", "speedups", "exact_lines"]


def verdict(rows) -> str:
    """One sentence on how the answers of ``rows`` were checked in their run: how many were
    verified (and by what), how many failed, and how many carry no check (the references
    themselves, or rows recorded without one)."""
    measured = [r for r in rows if not r.get("timeout")]
    ok = [r for r in measured if r.get("verified") is True]
    bad = [r for r in measured if r.get("verified") is False]
    unchecked = len(measured) - len(ok) - len(bad)
    how = sorted({r.get("verified_by") for r in ok if r.get("verified_by")})
    parts = [f"{len(ok)} of {len(measured)} answers verified in their run" + (f" ({', '.join(how)})" if how else "")]
    if bad:
        parts.append(f"{len(bad)} FAILED their check: " +
                     ", ".join(f"{r['variant']} n={r.get('n')}" for r in bad[:5]))
    if unchecked:
        refs = sum(1 for r in measured if r.get("verified") is None and r.get("variant") == "scipy")
        parts.append(f"{unchecked} without a check in their run" + (f" ({refs} of them scipy's, the reference)" if refs
                                                                     else " (rows recorded without a verified column)"))
    return "; ".join(parts) + "."


def mean_table(rows, value: str, title: str) -> str:
    """A Markdown table of the mean (standard deviation) of ``value`` per size ``n`` (rows) and
    per (variant, density) (columns)."""
    if not rows:
        return ""
    groups = plots.group(rows, ["variant", "density"], "n", value)
    cols = sorted(groups)
    sizes = sorted({r["n"] for r in rows})
    head = "| n | " + " | ".join(f"{v} d={d:g}" for v, d in cols) + " |\n" + "|---" * (len(cols) + 1) + "|\n"
    body = ""
    for s in sizes:
        cells = [f"{groups[c][s]['mean']:.1f} ({groups[c][s]['std']:.1f})" if s in groups[c] else "" for c in cols]
        body += f"| {s} | " + " | ".join(cells) + " |\n"
    return f"**{title}**, mean (standard deviation)\n\n" + head + body


def speedups(rows, variant: str = "gpu_eps_scaling") -> dict:
    """``{(n, range): (median speed-up over scipy, runs, verified)}`` of ``variant`` in the
    ``exact`` rows; ``verified``: True when every run's answer was checked against scipy's
    optimum in its run and passed, False when one failed, None when some were not checked."""
    found: dict = {}
    for r in rows:
        if r["variant"] == variant and r.get("speedup_vs_scipy") is not None:
            found.setdefault((r["n"], r["range"]), []).append(r)
    out = {}
    for key, rs in sorted(found.items()):
        checks_ = [r.get("verified") for r in rs]
        verified = False if False in checks_ else (True if all(c is True for c in checks_) else None)
        out[key] = (statistics.median(r["speedup_vs_scipy"] for r in rs), len(rs), verified)
    return out


def exact_lines(rows, variant: str = "gpu_eps_scaling") -> list:
    """One line per instance of the ``exact`` rows (its first repetition): time, speed-up over
    scipy, and the share of the tail block's bids its caches decided."""
    out = []
    for r in rows:
        if r["variant"] != variant or (r.get("rep") or 0) != 0:
            continue
        hits, scans = r.get("tail_cache_hits"), r.get("tail_scans")
        cached = f", {hits / (hits + scans):.0%} of the tail bids from caches" if hits is not None and hits + scans else ""
        out.append(f"n={r['n']:>6} {r['range']:>8}: {r['total_ms']:8.1f} ms, {r['speedup_vs_scipy']:5.1f}x scipy{cached}")
    return out
