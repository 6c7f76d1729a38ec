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
n=  1024      0-n:     22.5 ms (median of 2),   4.5x scipy, 75% of the tail bids from caches
"""
from __future__ import annotations

import statistics

from ...timing import group

__all__ = ["verdict", "mean_table", "speedups", "peer_speedups", "exact_lines", "means", "loglog_slope",
           "wins_from", "per_instance", "factor_summary", "factor_table", "tail_lines",
           "BIG_GOAL_MS", "SPEEDUP_GOAL", "BIG_GOAL_N", "SPEEDUP_GOAL_N", "targets_lines"]


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
    groups = group(rows, ["variant", "density"], "n", value)
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


def peer_speedups(rows, peer: str, variant: str = "gpu_eps_scaling") -> dict:
    """``{(n, range): (peer's median time / variant's median time, variant's runs)}`` in the
    ``exact`` rows: the speed-up of ``variant`` over a CPU peer (``"scipy"``, ``"lap"``) timed
    on the same instance in the same run; below 1 the peer is faster."""
    times: dict = {}
    for r in rows:
        if r["variant"] in (peer, variant) and r.get("total_ms") is not None:
            times.setdefault((r["n"], r["range"]), {}).setdefault(r["variant"], []).append(r["total_ms"])
    return {key: (statistics.median(t[peer]) / statistics.median(t[variant]), len(t[variant]))
            for key, t in sorted(times.items()) if peer in t and variant in t}


def exact_lines(rows, variant: str = "gpu_eps_scaling") -> list:
    """One line per instance of the ``exact`` rows: the median time of ``variant`` over its
    runs, its speed-up over scipy (the same median as :func:`speedups`) and over lap where lap
    ran, and the share of the tail block's bids its caches decided (first run)."""
    sp, lap = speedups(rows, variant), peer_speedups(rows, "lap", variant)
    out = []
    for (n, rng), (s, runs, _) in sp.items():
        mine = [r for r in rows if r["variant"] == variant and r["n"] == n and r["range"] == rng]
        ms = statistics.median(r["total_ms"] for r in mine)
        first = min(mine, key=lambda r: r.get("rep") or 0)
        hits, scans = first.get("tail_cache_hits"), first.get("tail_scans")
        cached = f", {hits / (hits + scans):.0%} of the tail bids from caches" if hits is not None and hits + scans else ""
        vs_lap = f", {lap[(n, rng)][0]:5.1f}x lap" if (n, rng) in lap else ""
        out.append(f"n={n:>6} {rng:>8}: {ms:8.1f} ms (median of {runs}), {s:5.1f}x scipy{vs_lap}{cached}")
    return out


def means(rows, value: str, *keys) -> dict:
    """``{(key values...): mean of value}`` over the rows that have a number in ``value``
    (a run stopped at its round limit has none), as the report's tables average instances."""
    groups: dict = {}
    for r in rows:
        v = r.get(value)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and not r.get("timeout"):
            groups.setdefault(tuple(r[k] for k in keys), []).append(float(v))
    return {k: statistics.fmean(v) for k, v in sorted(groups.items())}


def loglog_slope(points) -> float:
    """The least-squares slope of log(y) against log(x) over ``[(x, y), ...]``: how a time
    grows with the size (1: linearly, 2: as its square)."""
    import math
    xs = [math.log(x) for x, _ in points]
    ys = [math.log(y) for _, y in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def wins_from(fast: dict, slow: dict):
    """The smallest size from which ``fast[n] < slow[n]`` at every larger size too (both
    ``{n: time}``), or None when ``fast`` is not faster at the largest size."""
    sizes = sorted(set(fast) & set(slow))
    start = None
    for n in reversed(sizes):
        if fast[n] < slow[n]:
            start = n
        else:
            break
    return start


def per_instance(rows, *match_keys, value: str = "rounds", by: str = "variant") -> dict:
    """``{(n, density, instance): {rows[by]: rows[value]}}``: one instance's values side by
    side (the same instance measured by several variants, methods or sweeps)."""
    out: dict = {}
    for r in rows:
        if r.get("timeout") or r.get(value) is None:
            continue
        key = tuple(r.get(k) for k in ("n", "density", "instance") + match_keys)
        out.setdefault(key, {})[r[by]] = r[value]
    return out


#: divisors whose geometric means (:func:`factor_summary`) are within this fraction of the best
#: one are tied: run-to-run noise of the kernel times is of that order, so the sweep cannot order them
FACTOR_TIE = 0.01


def factor_summary(rows, value: str = "kernel_ms", option: str = "eps_factor") -> dict:
    """A sweep of one option (the ``eps_factor`` sweep by default, or ``warps_per_block``'s),
    value by value: ``{value of the option: (geometric mean of value / the instance's best,
    instances where it was the best, its worst ratio)}``, over the instances (``n``,
    ``range``, ``seed``) that ran every value; sorted best first.

    >>> rows = [dict(n=64, range="0-999", seed=1, eps_factor=f, kernel_ms=t) for f, t in ((4, 2.0), (8, 4.0))]
    >>> rows += [dict(n=64, range="geom", seed=2, eps_factor=f, kernel_ms=t) for f, t in ((4, 3.0), (8, 2.0))]
    >>> {f: (round(g, 3), w, round(x, 2)) for f, (g, w, x) in factor_summary(rows).items()}
    {4: (1.225, 1, 1.5), 8: (1.414, 1, 2.0)}
    """
    by = {}
    for r in rows:
        if r.get(option) is not None and r.get(value) is not None and not r.get("timeout"):
            by.setdefault((r["n"], r["range"], r["seed"]), {})[r[option]] = float(r[value])
    factors = sorted({f for d in by.values() for f in d})
    full = [(d, min(d.values())) for d in by.values() if len(d) == len(factors)]
    out = {}
    for f in factors:
        ratios = [d[f] / best for d, best in full]
        if ratios:
            out[f] = (statistics.geometric_mean(ratios), sum(1 for d, best in full if d[f] == best), max(ratios))
    return dict(sorted(out.items(), key=lambda kv: kv[1][0]))


def factor_table(rows, default=None, value: str = "kernel_ms", option: str = "eps_factor") -> str:
    """:func:`factor_summary` as a Markdown table, best first; ``default`` marks the value the
    library uses.

    >>> rows = [dict(n=64, range="0-999", seed=1, eps_factor=f, kernel_ms=t) for f, t in ((4, 2.0), (8, 4.0))]
    >>> print(factor_table(rows, default=4))
    | eps_factor | time / the instance's fastest (geometric mean) | fastest on | worst ratio |
    |---|---|---|---|
    | 4 (the default) | 1.000 | 1 of 1 | 1.00 |
    | 8 | 2.000 | 0 of 1 | 2.00 |
    """
    summary = factor_summary(rows, value, option)
    if not summary:
        return ""
    total = len({(r["n"], r["range"], r["seed"]) for r in rows if r.get(option) is not None})
    lines = [f"| {option} | time / the instance's fastest (geometric mean) | fastest on | worst ratio |",
             "|---|---|---|---|"]
    lines += [f"| {f}{' (the default)' if f == default else ''} | {g:.3f} | {w} of {total} | {x:.2f} |"
              for f, (g, w, x) in summary.items()]
    return "\n".join(lines)


def tail_lines(rows) -> list[str]:
    """One line per instance of the ``tail`` preset: the median kernel time of the plain runs,
    and from the clocked run the rounds the single-block tail ran (and, in records that count
    them, how many of those one warp ran alone), its time in them (in row scans, and per round)
    against its own kernel time, and the time per round of the others (two kernel launches
    each, in CUDA graphs with a host check every few rounds).

    >>> rows = [dict(n=64, range="0-999", time_tail=0, kernel_ms=10.0, rounds=1000),
    ...         dict(n=64, range="0-999", time_tail=1, kernel_ms=10.5, rounds=1000, tail_rounds=900,
    ...              tail_ms=6.0, tail_scan_ms=1.5, tail_solo_rounds=600)]
    >>> print(tail_lines(rows)[0])
    n = 64, 0-999: kernel 10.0 ms (median of 1); the tail block ran 900 of the 1000 rounds (90%; 600 of them, 67%, by one warp alone) in 6.0 ms of 10.5 ms (57%), 6.7 us per round, 1.5 ms of it in row scans; the other 100 rounds took 45.0 us each
    """
    out = []
    for key in sorted({(r["n"], r["range"]) for r in rows}):
        plain = [r["kernel_ms"] for r in rows if (r["n"], r["range"]) == key and not r.get("time_tail")]
        timed = [r for r in rows if (r["n"], r["range"]) == key and r.get("time_tail")]
        if not plain or not timed:
            continue
        t = timed[0]
        rounds, tr = int(t["rounds"]), int(t["tail_rounds"])
        solo = t.get("tail_solo_rounds")
        solo = "" if solo in (None, "") else f"; {int(solo)} of them, {int(solo) / max(tr, 1):.0%}, by one warp alone"
        line = (f"n = {key[0]}, {key[1]}: kernel {statistics.median(plain):.1f} ms (median of {len(plain)}); "
                f"the tail block ran {tr} of the {rounds} rounds ({tr / rounds:.0%}{solo}) in {t['tail_ms']:.1f} ms of "
                f"{t['kernel_ms']:.1f} ms ({t['tail_ms'] / t['kernel_ms']:.0%}), "
                f"{1e3 * t['tail_ms'] / max(tr, 1):.1f} us per round, {t['tail_scan_ms']:.1f} ms of it in row scans")
        if rounds > tr:
            line += (f"; the other {rounds - tr} rounds took "
                     f"{1e3 * (t['kernel_ms'] - t['tail_ms']) / (rounds - tr):.1f} us each")
        out.append(line)
    return out


#: the goals of the ``targets`` preset: the whole solve at its large size under this (ms), from
#: an int32 and from an int64 array alike, and at least this speed-up over scipy at its smaller
#: size, int64 input, on every family
BIG_GOAL_MS = 250.0
SPEEDUP_GOAL = 40.0
#: the sizes the goals are set at (a quick run's tiny sizes are measured, not judged)
BIG_GOAL_N, SPEEDUP_GOAL_N = 16384, 8192


def persistent_lines(rows) -> list[str]:
    """The ``persistent`` preset: per instance, the medians of the whole solve and of the kernel
    time with the rounds before the tail in a CUDA graph of launches (``persistent`` 0) and in
    one cooperative launch (1), and their ratio; then one line over every instance: the range
    of the kernel-time ratios and whether both ran the same rounds everywhere.

    >>> rows = [dict(n=64, range="0-999", persistent=p, total_ms=t, kernel_ms=k, rounds=50)
    ...         for p, t, k in [(0, 12.0, 10.0), (1, 11.0, 9.0), (0, 12.5, 10.2), (1, 11.5, 9.2)]]
    >>> for line in persistent_lines(rows): print(line)
    n = 64, 0-999: whole solve 12.2 ms in graphs, 11.2 ms in one launch (0.92x); kernel 10.1 ms and 9.1 ms (0.90x); 2 runs each, 50 rounds both ways
    one launch against graphs, kernel time: 0.90x to 0.90x over 1 instance(s) (below 1: the one launch is faster); the same rounds everywhere: True
    """
    out, ratios, same = [], [], True
    for key in sorted({(r["n"], r["range"]) for r in rows}):
        mine = [r for r in rows if (r["n"], r["range"]) == key]
        by = {p: [r for r in mine if int(r["persistent"]) == p] for p in (0, 1)}
        if not by[0] or not by[1]:
            continue
        tot = [statistics.median(float(r["total_ms"]) for r in by[p]) for p in (0, 1)]
        ker = [statistics.median(float(r["kernel_ms"]) for r in by[p]) for p in (0, 1)]
        rounds = {int(r["rounds"]) for r in mine}
        same = same and len(rounds) == 1
        ratios.append(ker[1] / ker[0])
        out.append(f"n = {key[0]}, {key[1]}: whole solve {tot[0]:.1f} ms in graphs, {tot[1]:.1f} ms in one launch "
                   f"({tot[1] / tot[0]:.2f}x); kernel {ker[0]:.1f} ms and {ker[1]:.1f} ms ({ratios[-1]:.2f}x); "
                   f"{min(len(by[0]), len(by[1]))} runs each, "
                   + (f"{rounds.pop()} rounds both ways" if len(rounds) == 1 else f"rounds differ: {sorted(rounds)}"))
    if ratios:
        out.append(f"one launch against graphs, kernel time: {min(ratios):.2f}x to {max(ratios):.2f}x over "
                   f"{len(ratios)} instance(s) (below 1: the one launch is faster); the same rounds everywhere: {same}")
    return out


def targets_lines(rows) -> list[str]:
    """The ``targets`` preset against its goals, one line per case: the GPU's whole solve calls
    (range over the runs, per input dtype) and, where scipy ran in the same run, the speed-ups
    over it; at the goals' sizes (:data:`BIG_GOAL_N`, :data:`SPEEDUP_GOAL_N`) each line ends with
    "met" or "missed" (every run counts), at other sizes with "not the goal's size".

    >>> rows = [dict(n=16384, range="1-10000", variant="gpu_eps_scaling", dtype=d, total_ms=t) for d, t in
    ...         (("int32", 200.0), ("int64", 300.0))]
    >>> rows += [dict(n=8192, range="0-999", variant="gpu_eps_scaling", dtype="int64", total_ms=1.0,
    ...               speedup_vs_scipy=s) for s in (39.0, 45.0)]
    >>> rows += [dict(n=64, range="geom", variant="gpu_eps_scaling", dtype="int64", total_ms=1.0, speedup_vs_scipy=0.1)]
    >>> print("\\n".join(targets_lines(rows)))
    n = 16384, 1-10000, whole solve from int32 200.0-200.0 ms, from int64 300.0-300.0 ms; goal under 250 ms: missed
    n = 8192, 0-999, int64 input: 39.0x-45.0x scipy in the same run; goal 40x: missed
    n = 64, geom, int64 input: 0.1x-0.1x scipy in the same run; not the goal's size
    """
    gpu_rows = [r for r in rows if r.get("variant") == "gpu_eps_scaling" and r.get("total_ms") is not None]
    out = []
    for n, family in dict.fromkeys((r["n"], r["range"]) for r in gpu_rows):
        mine = [r for r in gpu_rows if (r["n"], r["range"]) == (n, family)]
        sp = [float(r["speedup_vs_scipy"]) for r in mine if r.get("speedup_vs_scipy") is not None
              and r.get("dtype") == "int64"]
        if sp:
            verdict = (f"goal {SPEEDUP_GOAL:.0f}x: {'met' if min(sp) >= SPEEDUP_GOAL else 'missed'}"
                       if n == SPEEDUP_GOAL_N else "not the goal's size")
            out.append(f"n = {n}, {family}, int64 input: {min(sp):.1f}x-{max(sp):.1f}x scipy in the same run; {verdict}")
            continue
        by = {d: [float(r["total_ms"]) for r in mine if r.get("dtype") == d] for d in ("int32", "int64")}
        parts = [f"from {d} {min(t):.1f}-{max(t):.1f} ms" for d, t in by.items() if t]
        worst = max(max(t) for t in by.values() if t)
        verdict = (f"goal under {BIG_GOAL_MS:.0f} ms: {'met' if worst < BIG_GOAL_MS else 'missed'}"
                   if n == BIG_GOAL_N else "not the goal's size")
        out.append(f"n = {n}, {family}, whole solve " + ", ".join(parts) + f"; {verdict}")
    return out

