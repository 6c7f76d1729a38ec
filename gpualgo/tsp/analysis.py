"""What notebook 04 reads off the TSP benchmark rows (:mod:`gpualgo.tsp.bench`): the CPU
peers' rows for a same-run comparison, the best brute-force rate per size, the heuristic
peers' largest gaps to the optimum and the performance goals' verdicts. Rows are those of a
preset, measured now or read back from ``data/results/tsp`` (plain dicts with the columns of
:func:`gpualgo.bench.row` and the TSP counters ``permutations``, ``perms_per_s``, ``states``).

>>> rows = [dict(variant="gpu_unrank", n=10, perms_per_s=1e9), dict(variant="gpu_unrank", n=10, perms_per_s=3e9),
...         dict(variant="gpu_unrank", n=11, perms_per_s=4e9)]
>>> best_rates(rows)
{'gpu_unrank': ([10, 11], [3000000000.0, 4000000000.0])}
>>> largest_gaps([dict(variant="ortools_routing", gap=0.02), dict(variant="ortools_routing", gap=0.05)])
{'ortools_routing': 0.05}
>>> print(targets_report([dict(variant="gpu_shared_incremental", n=13, symmetric=True, total_ms=300.0,
...                            perms_per_s=2.5e10, permutations=1)]))
gpu_shared_incremental   n=13 halved      300.0 ms     2.5e+10 orders/s
goal at least 2e10 orders/s: met (lowest 2.5e+10)
goal at least 3e11 orders/s at n = 14 and 15: not measured
goal n=16 exact in under 120 s: not measured
goal GPU Held-Karp at least 50x numba: not measured
"""

from __future__ import annotations

import statistics
from typing import NamedTuple

from ..guards import gib


__all__ = ["best_rates", "rate_at", "halving_gains", "largest_lines", "phase_lines", "LARGEST_GOAL_S", "CLUSTER_GOAL", "host_bound", "duration", "largest_gaps", "targets_report",
           "RATE_GOAL", "FULL_RATE_GOAL", "FULL_RATE_SIZES", "EXACT_GOAL_S", "HK_SPEEDUP_GOAL", "YEAR_S", "Step", "TUNING_STEPS", "TUNING_OPTIONS",
           "tuning_table", "tuning_lines", "cores_lines"]

#: the goals of the ``targets`` preset: orders per second of the fastest brute force at
#: n = 13..15, seconds to solve n = 16 exactly by brute force, GPU over numba Held-Karp at n = 22
RATE_GOAL = 2e10
EXACT_GOAL_S = 120
HK_SPEEDUP_GOAL = 50
#: the brute force's rate goal at the sizes that fill the GPU: at least this many orders per second
#: at each of these n, every tour and each tour once alike
FULL_RATE_GOAL, FULL_RATE_SIZES = 3e11, (14, 15)
#: the goal of the ``largest`` preset: n = 17 (symmetric) exact by brute force on one GPU, in seconds
LARGEST_GOAL_S = 60
#: the goal of brute force across workers (the ``multigpu`` preset): at least this speed-up of the
#: most workers over one, at every n measured on both
CLUSTER_GOAL = 1.8
#: seconds in a (Julian) year, for extrapolated run times
YEAR_S = 365.25 * 86400


def _sci(x: float) -> str:
    return f"{x:.0e}".replace("e+", "e")       # 2e10


def best_rates(rows, typical: bool = False) -> dict:
    """``{variant: ([n, ...], [orders/s at its best block size, ...])}`` of the ``report``
    rows, n ascending: the best of every repetition and block size, or with ``typical`` the
    median of the repetitions at each block size, then the best block size.

    >>> rows = [dict(variant="v", n=10, block=32, perms_per_s=r) for r in (1.0, 2.0, 9.0)]
    >>> best_rates(rows), best_rates(rows, typical=True)
    ({'v': ([10], [9.0])}, {'v': ([10], [2.0])})
    """
    runs: dict = {}
    for r in rows:
        runs.setdefault((r["variant"], int(r["n"]), r.get("block")), []).append(float(r["perms_per_s"]))
    best: dict = {}
    for (v, n, _), rates in runs.items():
        value = statistics.median(rates) if typical else max(rates)
        best[(v, n)] = max(best.get((v, n), 0.0), value)
    out: dict = {}
    for (v, n) in sorted(best):
        ns, rates = out.setdefault(v, ([], []))
        ns.append(n)
        rates.append(best[(v, n)])
    return out


def rate_at(rows, variant: str, n: int | None = None) -> tuple[int, float] | None:
    """``(n, orders/s)`` of ``variant`` in ``rows``: the median of its repetitions at its best
    block size (:func:`best_rates` with ``typical``), at ``n`` or, when ``n`` is None, at the
    largest n measured; None when there is no such row.

    >>> rate_at([dict(variant="v", n=n, perms_per_s=n * 1e6) for n in (10, 11)], "v")
    (11, 11000000.0)
    """
    got = best_rates([r for r in rows if r["variant"] == variant and r.get("perms_per_s")], typical=True)
    if variant not in got:
        return None
    ns, rates = got[variant]
    if n is None:
        return ns[-1], rates[-1]
    return (n, rates[ns.index(n)]) if n in ns else None


def halving_gains(rows) -> dict:
    """``{n: (ms enumerating all orders, ms with each tour once, their ratio)}`` of the
    ``targets`` rows that ran both ways (the column ``symmetric`` False and True).

    >>> halving_gains([dict(n=15, symmetric=False, total_ms=780.0), dict(n=15, symmetric=True, total_ms=600.0)])
    {15: (780.0, 600.0, 1.3)}
    """
    ms: dict = {}
    for r in rows:
        if r.get("symmetric") in (True, False):
            ms.setdefault(int(r["n"]), {})[r["symmetric"]] = float(r["total_ms"])
    return {n: (t[False], t[True], t[False] / t[True]) for n, t in sorted(ms.items()) if len(t) == 2}


def host_bound(rows, serial_rate: float, n: int, variant: str = "gpu_host_chunks",
               where: str = "one core") -> str:
    """One sentence: ``variant``'s orders per second at ``n`` (:func:`rate_at` of the
    ``report`` rows) against ``serial_rate``, the numba serial brute force on ``where``.

    >>> host_bound([dict(variant="gpu_host_chunks", n=12, perms_per_s=4.7e7)], 6e7, 12)
    'gpu_host_chunks: 4.7e+07 orders/s at n = 12, the numba serial version 6e+07 on one core: 1.3x slower.'
    """
    got = rate_at(rows, variant, n)
    if got is None:
        return f"no rows of {variant} at n = {n}."
    rate = got[1]
    x = serial_rate / rate if rate < serial_rate else rate / serial_rate
    how = (f"{x:.2g}" if x < 10 else f"{x:,.0f}") + ("x slower" if rate < serial_rate else "x faster")
    return (f"{variant}: {rate:.2g} orders/s at n = {n}, the numba serial version {serial_rate:.2g} "
            f"on {where}: {how}.")


def duration(seconds: float) -> str:
    """A run time in the unit a reader thinks in: ms, s, minutes, hours, days or years.

    >>> [duration(s) for s in (0.0123, 75, 5e5, 2e9)]
    ['12.3 ms', '1.2 min', '5.8 days', '63 years']
    """
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    for unit, size in (("years", YEAR_S), ("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.2g} {unit}" if seconds / size < 100 else f"{seconds / size:,.0f} {unit}"
    return f"{seconds:.3g} s"


def largest_gaps(rows) -> dict:
    """``{heuristic peer: its largest gap to the optimum}`` over the rows that have a gap."""
    worst: dict = {}
    for r in rows:
        if r.get("gap") not in (None, "") and r["variant"].startswith("ortools"):
            worst[r["variant"]] = max(worst.get(r["variant"], 0.0), float(r["gap"]))
    return worst


def largest_lines(rows) -> list[str]:
    """Sentences on the largest exact solves on one GPU (the ``largest`` preset): the brute
    force's time and rate against :data:`LARGEST_GOAL_S`, and each GPU Held-Karp run with its
    table's memory and the planted optimum it had to find."""
    lines = []
    for r in sorted(rows, key=lambda r: (r["variant"] != "gpu_shared_incremental", r["n"])):
        s = float(r["total_ms"]) / 1e3
        checked = "verified" if r.get("verified") else "NOT verified"
        if r["variant"] == "gpu_shared_incremental":
            met = "met" if s < LARGEST_GOAL_S else "missed"
            lines.append(f"brute force, n = {r['n']}, each tour once: {s:.1f} s at {float(r['perms_per_s']):.3g} "
                         f"orders/s, length {r['objective']} ({checked} against GPU Held-Karp); goal under "
                         f"{LARGEST_GOAL_S} s: {met}")
        else:
            n = r["n"]
            lines.append(f"GPU Held-Karp, n = {n}: {s:.2f} s, its table {gib(int(r['table_bytes']))} "
                         f"(2^{n - 1} x {n - 1} {r['cost_dtype']}); length {r['objective']}, the planted optimum "
                         f"{r.get('planted_optimum')} ({checked})")
    return lines


def phase_lines(rows) -> list[str]:
    """Sentences on the ``phase`` preset: for each range of chunks, version (c)'s rate as built
    (ranges in phase, the last four cities in registers), with the last four stepped, and with
    those steps out of phase, and what each change gives. Rows without ``suffix`` (recorded
    before the registers) stepped every city."""
    by: dict = {}
    for r in rows:
        key = (bool(r["phase"]), r.get("suffix") or "steps")
        by.setdefault((r["first_chunk"], r["end_chunk"]), {})[key] = float(r["perms_per_s"])
    lines = []
    for (lo, hi), rate in sorted(by.items(), key=lambda kv: (kv[0][1] - kv[0][0], kv[0][0])):
        built, stepped, out = rate.get((True, "registers")), rate.get((True, "steps")), rate.get((False, "steps"))
        if stepped is None or (built is None and out is None):
            continue
        parts, gains = [], []
        if built is not None:
            parts.append(f"as built {built:.3g} orders/s")
            gains.append(f"registers {built / stepped:.2f}x")
        parts.append(f"last four stepped {stepped:.3g}")
        if out is not None:
            parts.append(f"stepped out of phase {out:.3g}")
            gains.append(f"phase {stepped / out:.2f}x")
        lines.append(f"chunks {lo}..{hi} ({hi - lo}): " + ", ".join(parts) + ": " + ", ".join(gains))
    return lines


def targets_report(rows) -> str:
    """The ``targets`` rows as a table, then one verdict per goal (met, missed, or not
    measured): the lowest brute-force rate against :data:`RATE_GOAL`, the lowest at
    :data:`FULL_RATE_SIZES` against :data:`FULL_RATE_GOAL`, the exact run
    against :data:`EXACT_GOAL_S`, the best GPU Held-Karp speed-up against
    :data:`HK_SPEEDUP_GOAL`."""
    lines = []
    for r in rows:
        extra = ""
        if r.get("speedup_vs_serial") not in (None, "", 1.0):
            extra = f"  speed-up vs numba {float(r['speedup_vs_serial']):.0f}x"
        sym = r.get("symmetric")
        work = (f"{float(r['perms_per_s']):10.3g} orders/s" if int(r.get("permutations") or 0)
                else f"{int(r.get('states') or 0):10,} states")
        lines.append(f"{r['variant']:24s} n={int(r['n']):2d} {'' if sym in (None, '') else ('halved' if sym else 'all   ')} "
                     f"{float(r['total_ms']):10.1f} ms  {work}{extra}")
    rate = [float(r["perms_per_s"]) for r in rows if r.get("symmetric") not in (None, "")]
    exact = [r for r in rows if r["variant"] == "gpu_shared_incremental" and r.get("symmetric") in (None, "")]
    speedup = [float(r["best_speedup"]) for r in rows if r.get("best_speedup") not in (None, "")]

    def verdict(goal, measured, met):
        return f"goal {goal}: " + (("met" if met else "missed") + f" ({measured})" if measured else "not measured")

    lines.append(verdict(f"at least {_sci(RATE_GOAL)} orders/s", rate and f"lowest {min(rate):.3g}",
                         rate and min(rate) >= RATE_GOAL))
    full = [float(r["perms_per_s"]) for r in rows
            if r.get("symmetric") not in (None, "") and int(r["n"]) in FULL_RATE_SIZES]
    sizes = " and ".join(str(n) for n in FULL_RATE_SIZES)
    lines.append(verdict(f"at least {_sci(FULL_RATE_GOAL)} orders/s at n = {sizes}", full and f"lowest {min(full):.3g}",
                         full and min(full) >= FULL_RATE_GOAL))
    lines.append(verdict(f"n={exact[0]['n'] if exact else '16'} exact in under {EXACT_GOAL_S} s",
                         exact and f"{float(exact[0]['total_ms']) / 1e3:.1f} s",
                         exact and float(exact[0]["total_ms"]) < EXACT_GOAL_S * 1e3))
    lines.append(verdict(f"GPU Held-Karp at least {HK_SPEEDUP_GOAL}x numba", speedup and f"best {speedup[0]:.0f}x",
                         speedup and speedup[0] >= HK_SPEEDUP_GOAL))
    return "\n".join(lines)


def cluster_lines(rows) -> list[str]:
    """Sentences on brute force across workers (the ``multigpu`` and ``cluster_cpu`` presets):
    at each n, the time on each number of workers and the speed-up over one worker; each
    length verified against Held-Karp where the row says so."""
    lines = []
    for n in sorted({r["n"] for r in rows}):
        at = [r for r in rows if r["n"] == n]
        ms = {w: statistics.median([r["total_ms"] for r in at if r["workers"] == w])
              for w in sorted({r["workers"] for r in at})}
        runs = {w: sum(r["workers"] == w for r in at) for w in ms}
        parts = []
        for w, t in ms.items():
            part = f"{w} worker(s) {t / 1e3:.2f} s" + (f" (median of {runs[w]})" if runs[w] > 1 else "")
            if 1 in ms and w != 1:
                part += f" ({ms[1] / t:.2f}x one)"
            parts.append(part)
        checked = "verified against Held-Karp" if all(r.get("verified") for r in at) else "not verified"
        goal = ""
        if 1 in ms and len(ms) > 1:
            top = max(ms)
            goal = f"; goal {CLUSTER_GOAL}x on {top}: {'met' if ms[1] / ms[top] >= CLUSTER_GOAL else 'missed'}"
        lines.append(f"n = {n}: " + "; ".join(parts) + f" [{at[0]['device']}...; {checked}{goal}]")
    return lines


# ------------------------------------------------------------------ the report's tuning steps

class Step(NamedTuple):
    """One row of the ``tuning`` preset: a version with one choice changed from ``base`` (the
    step it is compared with), and ``report``: the report's rate of this step over ``base``
    where it gives a number (None where it gives only a direction)."""
    variant: str
    options: dict
    base: str | None
    report: float | None
    label: str


#: the ``tuning`` preset's steps in the report's order (Sec. 2.1, then 2.2): version (a) as
#: built, the report's starting point (int indices, buffers re-created from plain memory:
#: "~250%" is the tuned form over it), one choice of (a) changed at a time, then (b) ("~150%
#: more" than (a): x2.5) and (c), each of (c)'s changes over (b) made or undone alone
TUNING_STEPS = {
    "a": Step("gpu_host_chunks", {}, None, None, "(a) as built: uint8, pinned"),
    "a+int32+pageable": Step("gpu_host_chunks", {"index": "int32", "host_buffer": "pageable"}, "a", 1 / 2.5,
                             "(a) int32 + pageable: the report's start"),
    "a+int32": Step("gpu_host_chunks", {"index": "int32"}, "a", None, "(a) int32 orders"),
    "a+pageable": Step("gpu_host_chunks", {"host_buffer": "pageable"}, "a", None, "(a) pageable buffers"),
    "a+mapped": Step("gpu_host_chunks", {"host_buffer": "mapped"}, "a", None, "(a) mapped (zero-copy)"),
    "a+shared_matrix": Step("gpu_host_chunks", {"matrix": "shared"}, "a", None, "(a) matrix in shared"),
    "a+city_major": Step("gpu_host_chunks", {"layout": "city"}, "a", None, "(a) city-major orders"),
    "a+device_min": Step("gpu_host_chunks", {"reduce": "device"}, "a", None, "(a) minimum on the device"),
    "b": Step("gpu_unrank", {}, "a", 2.5, "(b) unrank"),
    "b+shared_matrix": Step("gpu_unrank", {"matrix": "shared"}, "b", None, "(b) matrix in shared"),
    "c": Step("gpu_shared_incremental", {}, "b", None, "(c) shared incremental"),
    "c+global_matrix": Step("gpu_shared_incremental", {"matrix": "global"}, "c", None, "(c) matrix in global"),
    "c+full_cost": Step("gpu_shared_incremental", {"incremental": False}, "c", None, "(c) whole cost per order"),
}
#: the option columns of a ``tuning`` row (empty where the version does not take the option)
TUNING_OPTIONS = ("index", "host_buffer", "matrix", "layout", "reduce", "incremental")


def _mid(rows, key):
    vals = [float(r[key]) for r in rows if r.get(key) not in (None, "")]
    return statistics.median(vals) if vals else None


def tuning_table(rows) -> list[dict]:
    """One dict per step of the ``tuning`` rows, in :data:`TUNING_STEPS`' order: the median
    over its runs of orders/s (``rate``), ``kernel_ms``, ``transfer_ms``, ``host_ms`` and
    ``total_ms``; ``vs_base``, its rate over its base step's (None without that step);
    ``report``, the report's ratio where it gives one; ``runs`` and ``verified`` (every run).

    >>> rows = [dict(step="a", perms_per_s=4e7, kernel_ms=20.0, verified=True),
    ...         dict(step="a+int32", perms_per_s=3e7, kernel_ms=30.0, verified=True)]
    >>> [(t["step"], t["vs_base"], t["kernel_ms"]) for t in tuning_table(rows)]
    [('a', None, 20.0), ('a+int32', 0.75, 30.0)]
    """
    by_step: dict = {}
    for r in rows:
        by_step.setdefault(r.get("step"), []).append(r)
    table = {}
    for step, spec in TUNING_STEPS.items():
        got = by_step.get(step)
        if not got:
            continue
        table[step] = dict(step=step, label=spec.label, variant=spec.variant, rate=_mid(got, "perms_per_s"),
                           **{k: _mid(got, k) for k in ("kernel_ms", "transfer_ms", "host_ms", "total_ms")},
                           report=spec.report, runs=len(got), verified=all(r.get("verified") is True for r in got))
    for t in table.values():
        base = table.get(TUNING_STEPS[t["step"]].base)
        t["vs_base"] = t["rate"] / base["rate"] if base and base["rate"] else None
    return list(table.values())


def tuning_lines(rows) -> list[str]:
    """The ``tuning`` rows as lines of text: each step's orders/s, its rate over its base step
    (and the report's, where it gives one), the kernel, transfer and host times."""
    def ms(v):
        return "-" if v is None else f"{v:.3g}"
    lines = []
    for t in tuning_table(rows):
        ratio = "" if t["vs_base"] is None else f"x{t['vs_base']:.2f} vs {TUNING_STEPS[t['step']].base}"
        if t["report"] is not None:
            ratio += f" (report: x{t['report']:.2g})"
        lines.append(f"{t['label']:34s} {t['rate']:9.3g} orders/s {ratio:28s} kernel {ms(t['kernel_ms'])} ms, "
                     f"transfer {ms(t['transfer_ms'])} ms, host {ms(t['host_ms'])} ms ({t['runs']} runs"
                     f"{', verified' if t['verified'] else ''})")
    return lines


def cores_lines(rows) -> list[str]:
    """The ``cpu_cores`` rows as one line per n: the numba brute force on one core and on every
    core (orders/s, the median of the runs) and the speed-up of all cores over one.

    >>> print(cores_lines([dict(variant="serial_bruteforce", n=12, perms_per_s=7e7, threads=1, cores=16),
    ...                    dict(variant="cpu_prange", n=12, perms_per_s=7e8, threads=16, cores=16)])[0])
    n = 12: one core 7e+07 orders/s, 16 threads 7e+08 orders/s: x10.0 (16 cores)
    """
    lines = []
    for n in sorted({int(r["n"]) for r in rows}):
        at = [r for r in rows if int(r["n"]) == n]
        one = _mid([r for r in at if r["variant"] == "serial_bruteforce"], "perms_per_s")
        par_rows = [r for r in at if r["variant"] == "cpu_prange"]
        par = _mid(par_rows, "perms_per_s")
        if one is None or par is None:
            continue
        threads = int(_mid(par_rows, "threads") or 0)
        cores = at[0].get("cores")
        lines.append(f"n = {n}: one core {one:.3g} orders/s, {threads} threads {par:.3g} orders/s: x{par / one:.1f}"
                     + (f" ({cores} cores)" if cores not in (None, "") else ""))
    return lines
