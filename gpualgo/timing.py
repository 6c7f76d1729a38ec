"""Wall-clock timing and the summary statistics every benchmark reports (of a list of values,
and of result rows grouped by their columns)."""
from __future__ import annotations

import math
import statistics
import time
from collections import defaultdict

__all__ = ["timed", "summary", "group", "human_seconds"]


def timed(fn, *args, **kwargs):
    """Call ``fn(*args, **kwargs)``; return ``(result, milliseconds)`` of wall-clock time."""
    t0 = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, (time.perf_counter() - t0) * 1e3


def summary(values) -> dict:
    """Median, mean, sample standard deviation, minimum and count of ``values``."""
    vals = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    if not vals:
        return {"median": math.nan, "mean": math.nan, "std": math.nan, "min": math.nan, "n": 0}
    return {
        "median": statistics.median(vals),
        "mean": statistics.fmean(vals),
        "std": statistics.stdev(vals) if len(vals) > 1 else 0.0,
        "min": min(vals),
        "n": len(vals),
    }


def _key(row: dict, by):
    if isinstance(by, (list, tuple)):
        return tuple(row.get(b) for b in by)
    return row.get(by)


def group(rows, by, x, y) -> dict:
    """``{group key: {x value: summary(y values)}}`` for the rows with a value of ``y``
    (``by``: a column, or a list of columns whose values make a tuple key).

    >>> group([{"v": "a", "n": 1, "t": 2.0}, {"v": "a", "n": 1, "t": 4.0}], "v", "n", "t")["a"][1]["median"]
    3.0
    """
    out: dict = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r.get(y) is None or r.get(x) is None:
            continue
        out[_key(r, by)][r[x]].append(r[y])
    return {g: {xv: summary(vs) for xv, vs in sorted(d.items())} for g, d in out.items()}


def human_seconds(secs: float) -> str:
    """A duration for a person: ``"45 s"``, ``"12 min"``, ``"3.5 h"``, ``"9 days"``, ``"1.2e+03 years"``."""
    if secs < 120:
        return f"{secs:.0f} s"
    if secs < 7200:
        return f"{secs / 60:.0f} min"
    if secs < 2 * 86400:
        return f"{secs / 3600:.1f} h"
    if secs < 2 * 365 * 86400:
        return f"{secs / 86400:.0f} days"
    return f"{secs / (365 * 86400):.3g} years"
