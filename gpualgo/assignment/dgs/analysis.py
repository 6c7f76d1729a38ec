"""What the DGS measurements say: gaps, tables, the goals and the verdict, from result rows.

The functions read the rows of the ``dgs`` presets (:mod:`gpualgo.assignment.dgs.bench`,
recorded under ``data/results/dgs/`` or measured now), as plain dicts with the columns of
:data:`gpualgo.bench.ROW_COLUMNS` (``variant``, ``total_ms``...) and the DGS columns
(``family``, ``n``, ``seed``, ``gap``, ``optimum``; ``kind`` ``"run"`` or ``"trace"`` in the
``gap`` preset). Each returns sentences (or a Markdown table) for the notebook to show, and
says nothing where the rows hold nothing to judge.

>>> from gpualgo.assignment.dgs import analysis
>>> rows = [dict(family="geom", n=4096, seed=1, variant="gpu", total_ms=40.0, gap=0.0002),
...         dict(family="geom", n=4096, seed=1, variant="serial", total_ms=1200.0, gap=0.0002),
...         dict(family="geom", n=4096, seed=1, variant="gpu_eps_scaling", total_ms=400.0, gap=0.0)]
>>> analysis.verdict(rows)
['**geom**, n = 4096: full-GPU DGS is 10.0x faster than the exact GPU auction (median times over 1 instance) for a gap of 0.020%, 30.0x faster than serial DGS.']
>>> analysis.goal(rows)
['goal (gpu >= 10x serial at n = 4096), geom: 30.0x, met']
"""
from __future__ import annotations

import numpy as np

from ...timing import summary

__all__ = ["GAP_FLOOR", "DGS_VARIANTS", "gap", "runs", "families", "median_of", "sizes", "speedup", "speedups",
           "speedup_lines", "speedup_by_set", "growth", "extrapolate", "evaluation_times", "mean_table", "target_lines",
           "goal", "verdict", "against_the_paper", "takeaways", "phase_shares", "start_pairs", "start_table",
           "phase_lines", "SELECTION_ORDER", "selection_cells", "selection_table", "selection_lines"]

#: a gap of 0 (the optimum) is drawn at this floor on the log axes
GAP_FLOOR = 1e-7
#: the DGS versions among the rows' variants (the others are the exact solvers)
DGS_VARIANTS = ("serial", "gpu_de_global", "gpu_de_shared", "gpu_mixed", "gpu")
#: the paper's claim: DGS within 0.6% of the optimum
PAPER_GAP = 0.006


def gap(obj, opt, floor: float | None = None):
    """The relative gap ``(opt - obj) / |opt|`` (``opt - obj`` when ``opt`` is 0), for numbers
    or arrays; with ``floor``, raised to at least ``floor`` (for log axes)."""
    obj = np.asarray(obj, dtype=float)
    out = (opt - obj) / abs(opt) if opt else opt - obj
    if floor is not None:
        out = np.maximum(out, floor)
    return float(out) if np.ndim(out) == 0 else out


def runs(rows) -> list[dict]:
    """The rows of whole runs (not trace points, not evaluation timings) that have a time."""
    return [r for r in rows if r.get("kind", "run") == "run" and r.get("total_ms") is not None]


def families(rows) -> list[str]:
    """The families of ``rows`` in the order they first appear."""
    return list(dict.fromkeys(r["family"] for r in rows if r.get("family") is not None))


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and not np.isnan(v)


def _median(rows, family, n, variant, key):
    vals = [r[key] for r in rows if r.get("family") == family and r.get("n") == n and r.get("variant") == variant
            and r.get("kind", "run") == "run" and _number(r.get(key))]
    return float(np.median(vals)) if vals else None


def median_of(rows, family, n, variant, key: str = "total_ms") -> float | None:
    """The median of ``key`` over the runs of ``variant`` on ``family`` at size ``n`` (one
    per instance), or None: the one statistic every time and ratio of the notebook uses.

    >>> median_of([dict(family="geom", n=8, variant="gpu", total_ms=t) for t in (3.0, 1.0, 2.0)], "geom", 8, "gpu")
    2.0
    """
    return _median(rows, family, n, variant, key)


def sizes(rows, family, *variants, key: str = "total_ms") -> list[int]:
    """The sizes at which every one of ``variants`` has a run of ``family`` with ``key``."""
    have = [{r["n"] for r in rows if r.get("family") == family and r.get("variant") == v
             and r.get("kind", "run") == "run" and _number(r.get(key))} for v in variants]
    return sorted(set.intersection(*have)) if have else []


def speedup(rows, family, n, variant: str = "gpu", baseline: str = "gpu_eps_scaling",
            key: str = "total_ms") -> float | None:
    """How many times faster ``variant`` is than ``baseline`` on ``family`` at size ``n``:
    the median time of ``baseline`` over the median time of ``variant`` (each over the
    instances of ``rows``), or None where either did not run. Every speed-up the notebook
    states is this ratio, so that a figure, a table and a sentence on the same rows agree.

    >>> rows = [dict(family="geom", n=8, variant="gpu", total_ms=2.0),
    ...         dict(family="geom", n=8, variant="gpu_eps_scaling", total_ms=30.0)]
    >>> speedup(rows, "geom", 8)
    15.0
    """
    base, t = _median(rows, family, n, baseline, key), _median(rows, family, n, variant, key)
    return base / t if base is not None and t else None


def speedups(rows, family, variant: str = "gpu", baseline: str = "gpu_eps_scaling",
             key: str = "total_ms") -> dict[int, float]:
    """:func:`speedup` at every size where both ran, ``{n: ratio}`` in increasing ``n``."""
    return {s: speedup(rows, family, s, variant, baseline, key) for s in sizes(rows, family, variant, baseline, key=key)}


def speedup_lines(rows, variant: str = "gpu", baseline: str = "gpu_eps_scaling") -> list[str]:
    """A line per family: :func:`speedup` of ``variant`` over ``baseline`` at every size.

    >>> rows = [dict(family="geom", n=n, variant=v, total_ms=t) for n, v, t in
    ...         [(8, "gpu", 1.0), (8, "gpu_eps_scaling", 20.0), (16, "gpu", 4.0), (16, "gpu_eps_scaling", 30.0)]]
    >>> speedup_lines(rows)
    ['geom: gpu_eps_scaling time / gpu time (medians over instances): 20.0x at n = 8, 7.5x at n = 16']
    """
    out = []
    for fam in families(runs(rows)):
        ratios = speedups(rows, fam, variant, baseline)
        if ratios:
            out.append(f"{fam}: {baseline} time / {variant} time (medians over instances): "
                       + ", ".join(f"{x:.1f}x at n = {s}" if x >= 1 else f"{x:.2f}x at n = {s}"
                                   for s, x in ratios.items()))
    return out


def speedup_by_set(sets: dict, family: str, n: int, variant: str = "gpu", baseline: str = "gpu_eps_scaling") -> str:
    """One sentence: :func:`speedup` at ``family``, ``n`` in each result set of ``sets``
    (``{name: rows}``), with the number of instances and the range of the baseline's and of
    the variant's times over all of them (what makes the sets differ); '' where none ran.

    >>> a = [dict(family="geom", n=8, seed=1, variant="gpu", total_ms=2.0),
    ...      dict(family="geom", n=8, seed=1, variant="gpu_eps_scaling", total_ms=20.0)]
    >>> b = [dict(r, seed=2, total_ms=r["total_ms"] * (2 if r["variant"] != "gpu" else 1)) for r in a]
    >>> speedup_by_set({"report": a, "gap": b}, "geom", 8)
    'geom, n = 8: 10.0x (report, 1 instance), 20.0x (gap, 1 instance); gpu_eps_scaling took 20.0 to 40.0 ms over these 2 instances, gpu 2.0 to 2.0 ms'
    """
    parts, base, var = [], [], []
    for name, rows in sets.items():
        x = speedup(rows, family, n, variant, baseline)
        if x is None:
            continue
        pick = [r for r in runs(rows) if r.get("family") == family and r.get("n") == n and _number(r.get("total_ms"))]
        base += [r["total_ms"] for r in pick if r["variant"] == baseline]
        var += [r["total_ms"] for r in pick if r["variant"] == variant]
        k = len({r.get("seed") for r in pick if r["variant"] == baseline})
        parts.append(f"{x:.1f}x ({name}, {k} instance{'s' if k != 1 else ''})")
    if not parts:
        return ""
    return (f"{family}, n = {n}: " + ", ".join(parts) + f"; {baseline} took {min(base):.1f} to {max(base):.1f} ms "
            f"over these {len(base)} instances, {variant} {min(var):.1f} to {max(var):.1f} ms")


def growth(rows, family, variant, key: str = "total_ms", last: bool = False) -> tuple[int, int, float] | None:
    """``(n0, n1, k)``: the time of ``variant`` grows as ``n**k`` from size ``n0`` to ``n1``
    (medians; the smallest and the largest size it ran at, or with ``last`` its two largest).

    >>> growth([dict(family="g", n=n, variant="v", total_ms=n * n / 100) for n in (8, 16, 32)], "g", "v")
    (8, 32, 2.0)
    """
    ns = sizes(rows, family, variant, key=key)
    if len(ns) < 2:
        return None
    n0, n1 = (ns[-2], ns[-1]) if last else (ns[0], ns[-1])
    t0, t1 = _median(rows, family, n0, variant, key), _median(rows, family, n1, variant, key)
    if not t0 or not t1:
        return None
    return n0, n1, float(np.log(t1 / t0) / np.log(n1 / n0))


def extrapolate(rows, family, variant, n: int, key: str = "total_ms") -> tuple[float, int, float] | None:
    """``(ms, n1, k)``: the time ``variant`` would take at size ``n``, extrapolated from its
    median at its largest measured size ``n1`` with the growth ``n**k`` of its last doubling
    (:func:`growth`); for a run too long to make (serial DGS at n = 16384). None with fewer
    than two sizes.

    >>> extrapolate([dict(family="g", n=n, variant="v", total_ms=n * n / 100) for n in (8, 16)], "g", "v", 64)
    (40.96, 16, 2.0)
    """
    g = growth(rows, family, variant, key, last=True)
    if g is None:
        return None
    _, n1, k = g
    return _median(rows, family, n1, variant, key) * (n / n1) ** k, n1, k


def evaluation_times(rows, family: str = "geom") -> dict[int, dict[str, float]]:
    """The median time of one full difference evaluation (``de_ms`` of the ``de_cpu``,
    ``de_global`` and ``de_shared`` rows of the ``report`` preset), ``{n: {kind: ms}}``."""
    out: dict[int, dict[str, float]] = {}
    for r in rows:
        v = str(r.get("variant", ""))
        if v.startswith("de_") and r.get("family") == family and _number(r.get("de_ms")):
            out.setdefault(r["n"], {}).setdefault(v[3:], []).append(r["de_ms"])
    return {n: {k: float(np.median(v)) for k, v in d.items()} for n, d in sorted(out.items())}


def mean_table(rows, value: str, title: str, variants, factor: float = 1.0, stat: str = "mean") -> str:
    """A Markdown table of the mean (or with ``stat="median"`` the median) of ``value`` over
    seeds, a line per size ``n`` and a column per variant (times ``factor``: 100 for a gap in
    percent)."""
    sizes = sorted({r["n"] for r in rows})
    head = "| n | " + " | ".join(variants) + " |\n" + "|---" * (len(variants) + 1) + "|\n"
    body = ""
    for s in sizes:
        cells = []
        for v in variants:
            vals = [r[value] for r in rows if r["n"] == s and r["variant"] == v and r.get(value) is not None]
            cells.append(f"{factor * summary(vals)[stat]:.3g}" if vals else "")
        body += f"| {s} | " + " | ".join(cells) + " |\n"
    return f"**{title}** ({stat} over seeds)\n\n" + head + body


def target_lines(rows) -> list[str]:
    """One line per family and size of the ``targets`` preset: each solver's time (and the
    gap of the DGS versions; medians over seeds), and the serial / full-GPU ratio where both
    ran."""
    done = runs(rows)
    out = []
    for fam in families(done):
        for size in sorted({r["n"] for r in done if r["family"] == fam}):
            t = {v: _median(done, fam, size, v, "total_ms") for v in ("serial", "gpu_mixed", "gpu", "gpu_eps_scaling",
                                                                       "scipy", "lap")}
            parts = [f"{v} {ms:.1f} ms" + (f" (gap {_median(done, fam, size, v, 'gap'):.3%})" if v in DGS_VARIANTS else "")
                     for v, ms in t.items() if ms is not None]
            ratio = f"; serial / gpu = {t['serial'] / t['gpu']:.1f}x" if t["serial"] and t["gpu"] else ""
            out.append(f"{fam} n={size}: " + ", ".join(parts) + ratio)
    return out


def goal(rows, size: int = 4096, factor: float = 10.0) -> list[str]:
    """The performance goal, a line per family: full-GPU DGS at least ``factor`` times as
    fast as serial DGS at n = ``size`` (medians over seeds), met or not."""
    out = []
    for fam in families(rows):
        ser, g = _median(rows, fam, size, "serial", "total_ms"), _median(rows, fam, size, "gpu", "total_ms")
        head = f"goal (gpu >= {factor:g}x serial at n = {size}), {fam}: "
        if ser is None or g is None:
            out.append(head + f"no run at n = {size} in these results")
        else:
            out.append(head + f"{ser / g:.1f}x, {'met' if ser / g >= factor else 'NOT met'}")
    return out


def verdict(rows) -> list[str]:
    """A sentence per family, on its largest size: is full-GPU DGS worth it against the
    exact GPU auction (its speed-up and the gap it costs), and against serial DGS."""
    done = runs(rows)
    lines = []
    for fam in families(done):
        size = max(r["n"] for r in done if r["family"] == fam)
        g_gap = _median(done, fam, size, "gpu", "gap")
        g_t = _median(done, fam, size, "gpu", "total_ms")
        a_t = _median(done, fam, size, "gpu_eps_scaling", "total_ms")
        s_t = _median(done, fam, size, "serial", "total_ms")
        if g_gap is None or g_t is None or a_t is None:
            continue
        speed = a_t / g_t
        k = len({r.get("seed") for r in done if r["family"] == fam and r["n"] == size and r["variant"] == "gpu"})
        over = f"median times over {k} instance{'s' if k != 1 else ''}"
        ratio = None if s_t is None else s_t / g_t
        ser = ("" if ratio is None else f", {ratio:.1f}x faster than serial DGS" if ratio >= 1
               else f", slower than serial DGS ({ratio:.2f}x) at this small size")
        if g_gap == 0:
            word = "reaches the optimum" + (" and is faster than the exact auction" if speed > 1
                                            else ", but the exact auction is as fast or faster")
        elif speed > 1:
            word = f"is {speed:.1f}x faster than the exact GPU auction ({over}) for a gap of {g_gap:.3%}"
        else:
            word = (f"is slower than the exact GPU auction ({speed:.2f}x, {over}) and still {g_gap:.3%} from the "
                    "optimum: not worth it")
        lines.append(f"**{fam}**, n = {size}: full-GPU DGS {word}{ser}.")
    return lines


def against_the_paper(rows) -> list[str]:
    """The paper's two claims held against the rows: DGS within 0.6% of the optimum, and far
    faster than a GPU auction (here the exact eps-scaling one; :func:`speedup` per family and
    size); and what a gap of 0 means on the ``ties`` family."""
    done = runs(rows)
    dgs = [r for r in done if r["variant"] in DGS_VARIANTS and r.get("gap") is not None]
    if not dgs:
        return []
    worst = max(dgs, key=lambda r: r["gap"])
    within = sum(r["gap"] <= PAPER_GAP for r in dgs)
    speed = [x for fam in families(done) for x in speedups(done, fam).values()]
    ties = [r for r in done if r["family"] == "ties" and r["variant"] == "gpu_eps_scaling"]
    out = [f"The paper saw DGS within {PAPER_GAP:.1%} of the optimum: here {within} of {len(dgs)} runs are; "
           f"the worst gap is {worst['gap']:.2%} ({worst['family']}, n = {worst['n']}, {worst['variant']})."]
    if speed:
        out.append(f"The paper measured up to 400x over an early GPU auction; full-GPU DGS here is "
                   f"{min(speed):.1f}x to {max(speed):.1f}x faster than the exact eps-scaling GPU auction (median "
                   "times per family and size).")
    if ties:
        top = sum(r["optimum"] == 3 * r["n"] for r in ties)
        out.append(f"ties: on {top} of {len(ties)} instances the optimum is 3n, the largest value possible (every "
                   "agent on a job worth 3), so a gap of 0 there means that DGS found such a job for every agent.")
    return out


def takeaways(report_rows, gap_rows, target_rows) -> list[str]:
    """The numbers behind the notebook's closing section, from the three presets' rows: how
    much faster the GPU evaluates, what the per-switch round trips cost, the range of gaps
    per family, and the full-GPU version against the exact auction on the largest sizes."""
    out = []
    de = [r for r in report_rows if str(r.get("variant", "")).startswith("de_") and r.get("de_ms") is not None]
    if de:
        size = max(r["n"] for r in de)
        cpu = _median(de, "geom", size, "de_cpu", "de_ms")
        shared = _median(de, "geom", size, "de_shared", "de_ms")
        if cpu and shared:
            out.append(f"One full difference evaluation at n = {size}: {cpu:.1f} ms on one CPU core, {shared:.1f} ms "
                       f"with the shared-memory kernels ({cpu / shared:.0f}x), transfers included.")
    done = runs(gap_rows)
    small = [r for r in done if r["variant"] in ("gpu_de_global", "serial")]
    if small:
        size = min(r["n"] for r in small)
        fam = small[0]["family"]
        g, s = _median(done, fam, size, "gpu_de_global", "total_ms"), _median(done, fam, size, "serial", "total_ms")
        if g and s:
            out.append(f"A GPU evaluation after every switch does not pay: gpu_de_global takes {g:.0f} ms where serial "
                       f"DGS takes {s:.1f} ms ({fam}, n = {size}); the round trips cost more than the scans they save.")
    spans = []
    for fam in families(done):
        gaps = [r["gap"] for r in done if r["family"] == fam and r["variant"] in DGS_VARIANTS and r.get("gap") is not None]
        if gaps:
            spans.append(f"{fam} always 0" if max(gaps) == 0 else f"{fam} {min(gaps):.3%} to {max(gaps):.3%}")
    if spans:
        out.append("Gaps to the optimum of every DGS run: " + "; ".join(spans) + ".")
    tgt = runs(target_rows)
    for fam in families(tgt):
        size = max(r["n"] for r in tgt if r["family"] == fam)
        g, a = _median(tgt, fam, size, "gpu", "total_ms"), _median(tgt, fam, size, "gpu_eps_scaling", "total_ms")
        gp = _median(tgt, fam, size, "gpu", "gap")
        if g and a and gp is not None:
            out.append(f"{fam}, n = {size}: full-GPU DGS {g:.0f} ms for a gap of {gp:.3%}, the exact GPU auction "
                       f"{a:.0f} ms ({a / g:.1f}x longer) for the optimum.")
    return out


# ------------------------------------------------ serial DGS: its start and its phases


def _serial(rows, init=None) -> list[dict]:
    """The serial DGS runs of the ``serial_phases`` preset (from ``init``, or any start)."""
    return [r for r in runs(rows) if r.get("variant") == "serial" and r.get("init") is not None
            and (init is None or r["init"] == init)]


def phase_shares(rows, init: str = "random") -> dict[tuple[str, int], dict[str, float]]:
    """``{(family, n): shares}``: the median over the instances of each phase's share of the
    DGS loop (``exec_ms``) of serial DGS from ``init`` (the ``serial_phases`` preset):
    ``eval`` the full difference evaluations (the paper's Sec. 3.2), ``switch`` the switching
    phases (Sec. 3.3: picking, applying and re-evaluating the touched rows), ``reeval`` those
    re-evaluations, ``all_eval`` every evaluation (``eval + reeval``); and ``exec_ms``.

    >>> phase_shares([dict(family="geom", n=8, variant="serial", init="random", total_ms=12.0, exec_ms=10.0,
    ...                    eval_ms=6.0, switch_ms=3.5, reeval_ms=2.0)])[("geom", 8)]["switch"]
    0.35
    """
    cells: dict = {}
    for r in _serial(rows, init):
        if all(_number(r.get(k)) for k in ("exec_ms", "eval_ms", "switch_ms", "reeval_ms")) and r["exec_ms"] > 0:
            cells.setdefault((r["family"], r["n"]), []).append(r)
    out = {}
    for key in sorted(cells, key=lambda k: (families(rows).index(k[0]), k[1])):
        rs = cells[key]
        share = {p: float(np.median([r[f"{p}_ms"] / r["exec_ms"] for r in rs])) for p in ("eval", "switch", "reeval")}
        share["all_eval"] = float(np.median([(r["eval_ms"] + r["reeval_ms"]) / r["exec_ms"] for r in rs]))
        share["exec_ms"] = float(np.median([r["exec_ms"] for r in rs]))
        out[key] = share
    return out


def start_pairs(rows, a: str = "random", b: str = "greedy") -> list[tuple[dict, dict]]:
    """The runs of serial DGS from start ``a`` and from start ``b`` on the same instance
    (family, size, seed), as pairs ``(run from a, run from b)``."""
    by = {(r["family"], r["n"], r.get("seed"), r["init"]): r for r in _serial(rows)}
    return [(ra, by[(f, n, s, b)]) for (f, n, s, i), ra in by.items() if i == a and (f, n, s, b) in by]


def start_table(rows) -> str:
    """A Markdown table, a line per family and size: the medians of serial DGS's gap, whole
    time (``total_ms``), start time (``start_ms``) and switches from a random and from a greedy
    start on the same instances ('' without such pairs)."""
    pairs = start_pairs(rows)
    if not pairs:
        return ""
    cells: dict = {}
    for ra, rb in pairs:
        cells.setdefault((ra["family"], ra["n"]), []).append((ra, rb))
    lines = ["| family | n | gap random | gap greedy | total ms random | total ms greedy | start ms random | "
             "start ms greedy | switches random | switches greedy |", "|---" * 10 + "|"]
    for (fam, n), ps in cells.items():
        def med(k, side):
            return float(np.median([p[side][k] for p in ps]))
        lines.append(f"| {fam} | {n} | {med('gap', 0):.3%} | {med('gap', 1):.3%} | {med('total_ms', 0):.1f} | "
                     f"{med('total_ms', 1):.1f} | {med('start_ms', 0):.2f} | {med('start_ms', 1):.2f} | "
                     f"{med('switches', 0):.0f} | {med('switches', 1):.0f} |")
    return "\n".join(lines)


def phase_lines(rows) -> list[str]:
    """A line per family: the share of the loop's time serial DGS spends in each phase, from a
    random start (:func:`phase_shares`), at every size."""
    shares = phase_shares(rows)
    out = []
    for fam in dict.fromkeys(f for f, _ in shares):
        parts = [f"n = {n}: evaluation {s['eval']:.0%} (with the re-evaluations {s['all_eval']:.0%}), switching "
                 f"{s['switch']:.0%}" for (f, n), s in shares.items() if f == fam]
        out.append(f"{fam}, serial DGS from a random start, share of its loop's time: " + "; ".join(parts))
    return out


# ------------------------------------------------ the full-GPU version's two selections

#: the selections of the ``selection`` preset: ours, then the paper's Check-Conflicts
SELECTION_ORDER = ("mutual", "check_conflicts")


def selection_cells(rows) -> dict[tuple[str, int], dict[str, dict[str, float]]]:
    """``{(family, n): {selection: medians}}`` over the full-GPU runs of the ``selection``
    preset, where both selections ran: the medians of ``total_ms``, ``gap``, ``rounds``,
    ``switches``, of the exchanges per round (``per_round``) and of ``conflicts`` (the
    candidates Check-Conflicts dropped; None for the mutual pairs)."""
    out: dict = {}
    for r in runs(rows):
        if r.get("variant") == "gpu" and r.get("selection") in SELECTION_ORDER:
            out.setdefault((r["family"], r["n"]), {}).setdefault(r["selection"], []).append(r)
    cells = {}
    for key, by in out.items():
        if set(by) != set(SELECTION_ORDER):
            continue
        cells[key] = {}
        for sel, rs in by.items():
            def med(k, rs=rs):
                vals = [r[k] for r in rs if _number(r.get(k))]
                return float(np.median(vals)) if vals else None
            per = [r["switches"] / r["rounds"] for r in rs if _number(r.get("switches")) and r.get("rounds")]
            cells[key][sel] = dict(total_ms=med("total_ms"), gap=med("gap"), rounds=med("rounds"),
                                   switches=med("switches"), conflicts=med("conflicts"),
                                   per_round=float(np.median(per)) if per else None)
    return cells


def selection_table(rows) -> str:
    """A Markdown table, a line per family and size: each selection's median time, gap,
    rounds and exchanges per round, and the time of Check-Conflicts over the mutual pairs'
    ('' without both selections)."""
    cells = selection_cells(rows)
    if not cells:
        return ""
    lines = ["| family | n | ms mutual | ms Check-Conflicts | time CC / mutual | gap mutual | gap CC | rounds mutual | "
             "rounds CC | exchanges per round mutual | per round CC | dropped by CC |", "|---" * 12 + "|"]
    for (fam, n), c in cells.items():
        mu, cc = c["mutual"], c["check_conflicts"]
        lines.append(f"| {fam} | {n} | {mu['total_ms']:.1f} | {cc['total_ms']:.1f} | "
                     f"{cc['total_ms'] / mu['total_ms']:.2f}x | {mu['gap']:.3%} | {cc['gap']:.3%} | "
                     f"{mu['rounds']:.0f} | {cc['rounds']:.0f} | {mu['per_round']:.1f} | {cc['per_round']:.1f} | "
                     f"{cc['conflicts'] or 0:.0f} |")
    return "\n".join(lines)


def selection_lines(rows) -> list[str]:
    """A sentence per family: how Check-Conflicts compares with the mutual pairs over the
    sizes (time ratio of the medians, gaps, rounds)."""
    cells = selection_cells(rows)
    out = []
    for fam in dict.fromkeys(f for f, _ in cells):
        cs = {n: c for (f, n), c in cells.items() if f == fam}
        ratios = ", ".join(f"{c['check_conflicts']['total_ms'] / c['mutual']['total_ms']:.2f}x at n = {n}"
                           for n, c in cs.items())
        gaps = ", ".join(f"{c['check_conflicts']['gap']:.3%} against {c['mutual']['gap']:.3%} at n = {n}"
                         for n, c in cs.items())
        rounds = ", ".join(f"{c['check_conflicts']['rounds']:.0f} against {c['mutual']['rounds']:.0f}"
                           for c in cs.values())
        out.append(f"{fam}: Check-Conflicts time / mutual pairs time {ratios}; gap {gaps}; rounds {rounds}.")
    return out
