"""The findings of notebook 04's source report (*Traveling Salesman Problem*, an OpenCL brute
force, 2022, in Italian), each tested against the TSP result sets (:mod:`gpualgo.findings`).

The report measures permutations (orders) per second on graphs of 10 to 12 cities with an
RTX 3080. Its three versions are rebuilt here as (a) ``gpu_host_chunks``, (b) ``gpu_unrank``
(its "procedural version") and (c) ``gpu_shared_incremental`` (ours: the matrix in shared
memory, contiguous ranges, incremental costs); the sets are ``tsp/report`` (the report's
measurement), ``tsp/scaling`` (solve time against n, with the numba serial versions) and
``tsp/targets``. Rates are the median of the repetitions at the best block size
(:func:`gpualgo.tsp.analysis.rate_at`). Run times the report states for sizes nobody runs
are extrapolated from measured rates, and say so.

The report's tuning steps (8-bit indices, buffer kinds, the matrix in shared memory, the
layout of the orders) and the three changes of (c) over (b) are measured one at a time by the
``tsp/tuning`` set (:data:`gpualgo.tsp.analysis.TUNING_STEPS`, the medians of
:func:`gpualgo.tsp.analysis.tuning_table`); the CPU side of the device comparison by
``tsp/cpu_cores`` (the numba brute force on one core and on every core). Until a set is
recorded, its findings cannot be tested and say which run they need.

>>> from gpualgo import findings
>>> [v.verdict for v in findings.evaluate(FINDINGS, {})][:2]
['cannot be tested here', 'cannot be tested here']
"""

from __future__ import annotations

import statistics

import math

from .. import findings as F
from .analysis import YEAR_S, duration, rate_at, tuning_table

__all__ = ["FINDINGS", "A", "B", "C", "SERIAL", "PARALLEL", "limit_verdict", "REPORT_N", "REPORT_YEARS",
           "REPORT_TUNED_GAIN", "SLIGHT", "NOISE"]

A, B, C, SERIAL = "gpu_host_chunks", "gpu_unrank", "gpu_shared_incremental", "serial_bruteforce"
PARALLEL = "cpu_prange"
#: the report's size: 12 cities, 11! = 39,916,800 orders
REPORT_N = 12
#: "a graph of 20 vertices would take more than 21 years"
REPORT_YEARS = 21
#: "~250% of the initial performance": the tuned first version over the initial one
REPORT_TUNED_GAIN = 2.5
#: a change of the rate within this fraction is noise, not a change (two runs of a step differ
#: by about 1%)
NOISE = 0.02
#: "a degradation, though minimal": the rate falls by more than NOISE and by at most 15%
SLIGHT = 0.15


def _rate(rows, variant, n=None, name="tsp/report"):
    got = rate_at(rows, variant, n)
    if got is None:
        raise F.Missing(f"no rows of {name} for {variant}" + (f" at n = {n}" if n else ""))
    return got



# ------------------------------------------------------------ Sec. 2.1: the tuning steps

def _tuning(data, *steps):
    """The ``tsp/tuning`` medians by step (:func:`gpualgo.tsp.analysis.tuning_table`); Missing,
    naming the run it needs, unless every one of ``steps`` was recorded."""
    table = {t["step"]: t for t in tuning_table(data.get("tsp/tuning") or [])}
    lacking = [s for s in steps if s not in table]
    if lacking:
        raise F.Missing(f"needs the steps {', '.join(lacking)} of tsp/tuning (python -m gpualgo.bench tsp "
                        f"--preset tuning), not recorded")
    return table


def _ms(t, key):
    return "-" if t[key] is None else f"{t[key]:.3g}"


def _times(t) -> str:
    return f"kernel {_ms(t, 'kernel_ms')} ms, copies {_ms(t, 'transfer_ms')} ms, host writing {_ms(t, 'host_ms')} ms"


def _host_sets_the_rate(t) -> str:
    return (f"the host's writing of the orders ({_ms(t, 'host_ms')} ms of a {_ms(t, 'total_ms')} ms run) sets the "
            f"rate; the kernel takes {_ms(t, 'kernel_ms')} ms and the copies {_ms(t, 'transfer_ms')} ms")


def _ratio(t, base, key="rate"):
    return t[key] / base[key] if t[key] and base[key] else float("nan")


def _char_and_mapping(data):
    t = _tuning(data, "a", "a+int32+pageable", "a+int32", "a+pageable")
    a, start = t["a"], t["a+int32+pageable"]
    gain = _ratio(a, start)
    measured = (f"(a) uint8 + pinned {a['rate']:.3g} orders/s against int32 + pageable (the report's start) "
                f"{start['rate']:.3g} at n = {REPORT_N}: x{gain:.2f} (the report ~x{REPORT_TUNED_GAIN}; holds within "
                f"x1.5..x4); alone: uint8 x{_ratio(a, t['a+int32']):.2f}, pinned x{_ratio(a, t['a+pageable']):.2f}; "
                f"tuned {_times(a)}; start {_times(start)}")
    if 1.5 <= gain <= 4:
        return F.holds(measured)
    if gain > 4:
        return F.caveat(measured, "the direction holds, by more than the report's")
    if gain > 1 + NOISE:
        return F.caveat(measured, f"a gain, smaller than the report's: {_host_sets_the_rate(a)}")
    return F.fails(measured, f"no gain: {_host_sets_the_rate(a)}")


def _buffer_kinds(data):
    t = _tuning(data, "a", "a+pageable", "a+mapped")
    pinned, pageable, mapped = t["a"], t["a+pageable"], t["a+mapped"]
    write, close = _ratio(pinned, pageable), _ratio(mapped, pinned)
    measured = (f"orders/s with pinned buffers copied by DMA (the report's write) {pinned['rate']:.3g}, pageable ones "
                f"staged by the driver (re-created from the host array) {pageable['rate']:.3g}, mapped zero-copy ones "
                f"(read by the kernel over the bus) {mapped['rate']:.3g}: pinned x{write:.2f} pageable, mapped "
                f"x{close:.2f} pinned (holds: pinned at least x{1 + 2 * NOISE:g} pageable and mapped at least x0.8 "
                f"pinned); copies {_ms(pinned, 'transfer_ms')} / {_ms(pageable, 'transfer_ms')} / "
                f"{_ms(mapped, 'transfer_ms')} ms, kernel {_ms(pinned, 'kernel_ms')} / {_ms(pageable, 'kernel_ms')} / "
                f"{_ms(mapped, 'kernel_ms')} ms")
    wins, near = write >= 1 + 2 * NOISE, close >= 0.8
    if wins and near:
        return F.holds(measured)
    if wins:
        return F.caveat(measured, f"writing wins, but mapped memory stays at x{close:.2f} of it: its kernel reads "
                                  f"every order over the bus")
    if near:
        return F.caveat(measured, f"mapping comes close to writing, but writing hardly beats re-creating here: "
                                  f"{_host_sets_the_rate(pinned)}")
    return F.fails(measured, f"neither: {_host_sets_the_rate(pinned)}")


def _device_step(t, base, label, report_slower: bool):
    """The verdict of a device-side step that the report found slower: on the rate first (the
    report's metric), then on the kernel's time where the host hides it."""
    r, kr = _ratio(t, base), _ratio(t, base, "kernel_ms")
    measured = (f"(a) {label} {t['rate']:.3g} against {base['rate']:.3g} orders/s at n = {REPORT_N}: x{r:.3f} "
                f"(slower: below x{1 - NOISE:g}{f', slightly: not below x{1 - SLIGHT:g}' if report_slower else ''}); "
                f"kernel {_ms(t, 'kernel_ms')} against {_ms(base, 'kernel_ms')} ms (x{kr:.2f}), host writing "
                f"{_ms(t, 'host_ms')} against {_ms(base, 'host_ms')} ms")
    if r < 1 - NOISE:
        if report_slower and r < 1 - SLIGHT:
            return F.caveat(measured, "slower, by more than slightly")
        return F.holds(measured)
    if kr > 1 + NOISE:
        return F.caveat(measured, f"the kernel is slower (x{kr:.2f} its time), as the report found, but the rate "
                                  f"does not move: {_host_sets_the_rate(base)}")
    return F.fails(measured, f"neither the rate nor the kernel is slower (kernel x{kr:.2f}): "
                             f"{_host_sets_the_rate(base)}")


def _matrix_in_shared(data):
    t = _tuning(data, "a", "a+shared_matrix")
    return _device_step(t["a+shared_matrix"], t["a"], "matrix in shared memory", report_slower=True)


def _contiguous_orders(data):
    t = _tuning(data, "a", "a+city_major")
    return _device_step(t["a+city_major"], t["a"], "orders city-major (coalesced)", report_slower=False)


# ----------------------------------------------------------------- Sec. 2.2: (b) over (a)

def _procedural_gain(data):
    rows = F.need(data, "tsp/report")
    _, a = _rate(rows, A, REPORT_N)
    _, b = _rate(rows, B, REPORT_N)
    a_rates = [r for _, r in (rate_at(rows, A, n) or (0, None) for n in (10, 11, 12)) if r]
    gain = b / a
    measured = (f"(b) {b:.2g} against (a) {a:.2g} orders/s at n = {REPORT_N} (median of the runs, "
                f"best block): x{gain:,.0f}, the report's ~150% being x2.5")
    if gain <= 1:
        return F.fails(measured, "(b) builds every order from its index with divisions, which costs more than "
                                 "reading the host's orders here")
    if gain <= 5:
        return F.holds(measured)
    return F.caveat(measured, f"the direction holds, by far more: on this GPU (a) is held back by the host, which "
                              f"writes n-1 bytes per order ((a) stays at {min(a_rates):.2g}..{max(a_rates):.2g} "
                              f"orders/s for n = 10..12 and every block size), while (b) copies in only the matrix")


# ------------------------------------------------------------ Sec. 2.2: the shared matrix

def _shared_matrix(data):
    try:
        t = _tuning(data, "b", "b+shared_matrix", "c", "c+global_matrix", "c+full_cost")
    except F.Missing as lacking:
        rows = F.need(data, "tsp/report")
        n, b = _rate(rows, B)
        _, c = _rate(rows, C, n)
        return F.untestable(
            "(c) changes three things at once (the matrix in shared memory, contiguous ranges, about three "
            "additions per order instead of rebuilding each order with divisions, as (b) does); the likelier "
            f"cause is the last. Each alone {lacking}",
            measured=f"(c) {c:.2g} against (b) {b:.2g} orders/s at n = {n}: x{c / b:.1f}")
    alone = {"the matrix in shared memory": _ratio(t["c"], t["c+global_matrix"]),
             "contiguous ranges walked with next_permutation instead of unranking every order":
                 _ratio(t["c+full_cost"], t["b+shared_matrix"]),
             "incremental costs": _ratio(t["c"], t["c+full_cost"])}
    shared = alone["the matrix in shared memory"]
    largest = max(alone, key=alone.get)
    measured = (f"(c) over (b) at n = {REPORT_N}: x{_ratio(t['c'], t['b']):.1f}; each change alone: "
                + "; ".join(f"{k} x{v:.2f}" for k, v in alone.items())
                + f"; the matrix in shared memory in (b) x{_ratio(t['b+shared_matrix'], t['b']):.2f} "
                  f"(holds: shared memory alone at least x1.1 in (c))")
    most = f"most of (c)'s gain comes from {largest}"
    if shared >= 1.1:
        return F.holds(measured, "" if largest == "the matrix in shared memory" else f"it pays, but {most}")
    if shared > 1 + NOISE:
        return F.caveat(measured, f"shared memory pays little; {most}")
    return F.fails(measured, f"reading the {REPORT_N} x {REPORT_N} matrix from global memory (it stays in the "
                             f"cache) is as fast; {most}")


# ------------------------------------------------------------------ Sec. 3: saturation

def _not_saturated(data):
    rows = F.need(data, "tsp/report")
    ns, rates = [], []
    for n in sorted({int(r["n"]) for r in rows if r["variant"] == C}):
        ns.append(n)
        rates.append(_rate(rows, C, n)[1])
    if len(ns) < 2:
        raise F.Missing("tsp/report has (c) at fewer than two sizes")
    in_report = [(n, r) for n, r in zip(ns, rates) if n <= REPORT_N]
    rising = len(in_report) >= 2 and in_report[-1][1] > 1.2 * in_report[-2][1]
    peak = ns[rates.index(max(rates))]
    measured = ("(c): " + ", ".join(f"{r:.2g}" for r in rates) + f" orders/s at n = {ns[0]}..{ns[-1]}; "
                f"peak at n = {peak}")
    c12 = [float(r["total_ms"]) for r in rows if r["variant"] == C and int(r["n"]) == in_report[-1][0]]
    if rising and peak == ns[-1]:
        return F.holds(measured)
    if rising:
        return F.caveat(measured, f"true of the report's sizes, where a whole run lasts about "
                                  f"{F.median(c12):.2g} ms and the launches dominate; from n = {peak} the "
                                  f"GPU is busy and the rate stops growing: saturation waited for larger "
                                  f"instances, not for new hardware")
    return F.fails(measured, f"the rate no longer grows from n = {in_report[-2][0]} to {in_report[-1][0]}: "
                             f"this GPU is saturated at the report's sizes")


# --------------------------------------------------- Sec. 4: the rate, the limit, the time

def _hundreds_of_millions(data):
    rows = F.need(data, "tsp/report")
    n_b, b = _rate(rows, B)
    best = max(((rate_at(rows, C, n) or (n, 0.0)) for n in {int(r["n"]) for r in rows}), key=lambda t: t[1])
    measured = (f"the report's procedural version (b) {b:.2g} orders/s (n = {n_b}), (c) up to "
                f"{best[1]:.2g} (n = {best[0]})")
    if b >= 1e8:
        return F.holds(measured)
    return F.fails(measured, "below 1e8 orders/s")


def limit_verdict(cities: int = 21, bits: int = 64) -> F.Verdict:
    """Whether the orders of ``cities`` cities with city 0 fixed, (cities-1)!, outnumber 2^bits
    (the report: 21 vertices exceed 2^64)."""
    orders = math.factorial(cities - 1)
    first = next(c for c in range(2, 200) if math.factorial(c - 1) > 2 ** bits)
    measured = (f"{cities} cities: {cities - 1}! = {orders:.2g} orders, 2^{bits} = {2 ** bits:.2g}; "
                f"the first count above 2^{bits} is {first - 1}! ({first} cities)")
    if orders > 2 ** bits:
        return F.holds(measured)
    return F.fails(measured, f"the report counts (n-1)! orders (11! for 12 cities), and {cities - 1}! fits even in "
                             f"63 bits; gpualgo.tsp.enumeration goes past 64 bits by fixing more leading cities")


def _twenty_cities(data):
    rows = F.need(data, "tsp/report")
    orders = math.factorial(20 - 1)
    parts, years = [], {}
    for label, v in (("(c)", C), ("(b)", B), ("(a)", A)):
        n, r = _rate(rows, v)
        years[v] = orders / r / YEAR_S
        parts.append(f"{label} {r:.2g}/s (n = {n}): {duration(orders / r)}")
    serial = [r for r in (data.get("tsp/scaling") or []) if r["variant"] == SERIAL]
    if serial:
        n, r = _rate(serial, SERIAL, name="tsp/scaling")
        parts.append(f"numba, one core, {r:.2g}/s (n = {n}): {duration(orders / r)}")
    implied = orders / (REPORT_YEARS * YEAR_S)
    measured = f"19! = {orders:.2g} orders, extrapolated from measured rates: " + "; ".join(parts)
    if years[B] > REPORT_YEARS:
        return F.holds(measured)
    return F.fails(measured, f"21 years imply {implied:.2g} orders/s, the report's hardware of 2022; this GPU runs the "
                             f"report's own procedural version {REPORT_YEARS / years[B]:,.0f}x faster. Still, "
                             f"that buys a city or two: each city more multiplies the work by n")


def _only_hardware(data):
    rows = F.need(data, "tsp/scaling")
    hk = [r for r in rows if r["variant"] in ("held_karp", "gpu_held_karp")]
    if not hk:
        raise F.Missing("no Held-Karp rows in tsp/scaling")
    c = rate_at(rows, C) or rate_at(data.get("tsp/report") or [], C)
    if c is None:
        raise F.Missing(f"no rows of {C} in tsp/scaling or tsp/report")
    parts, beats = [], False
    for v, label in (("held_karp", "numba Held-Karp, one core"), ("gpu_held_karp", "GPU Held-Karp")):
        got = [r for r in hk if r["variant"] == v]
        if not got:
            continue
        n = max(int(r["n"]) for r in got)
        secs = F.median(float(r["total_ms"]) for r in got if int(r["n"]) == n) / 1e3
        brute = math.factorial(n - 1) / 2 / c[1]
        beats = beats or (n > 20 and secs < brute)
        parts.append(f"{label}: n = {n} in {duration(secs)} (brute force (c), each tour once: {duration(brute)})")
    measured = "; ".join(parts)
    if not beats:
        return F.holds(measured)
    return F.fails(measured, "an algorithm with less work, not hardware, moves the limit: Held-Karp does "
                             "(n-1)(n-2) 2^(n-3) steps instead of (n-1)!/2 orders")


# --------------------------------------------------------------------- Sec. 3: GPU vs CPU

def _cpu_rows(data, variant, prefer):
    """``variant``'s rows from the first of the sets ``prefer`` that has any, and its name."""
    for name in prefer:
        got = [r for r in (data.get(name) or []) if r["variant"] == variant]
        if got:
            return got, name
    return [], None


def _gpu_vs_cpu(data):
    rows = F.need(data, "tsp/report")
    # one core and every core from the same run where tsp/cpu_cores is recorded
    serial, where = _cpu_rows(data, SERIAL, ("tsp/cpu_cores", "tsp/scaling"))
    if not serial:
        raise F.Missing(f"no rows of {SERIAL} in tsp/cpu_cores or tsp/scaling")
    n, s = _rate(serial, SERIAL, name=where)
    got = rate_at(rows, C, n) or _rate(rows, C)
    _, a = _rate(rows, A, REPORT_N)
    s12 = (rate_at(serial, SERIAL, REPORT_N) or (n, s))[1]
    measured = (f"(c) {got[1]:.2g} orders/s (n = {got[0]}) against numba on one core {s:.2g} (n = {n}, {where}): "
                f"x{got[1] / s:,.0f}; (a) {a:.2g} against one core {s12:.2g} at n = {REPORT_N}")
    par_rows, par_where = _cpu_rows(data, PARALLEL, ("tsp/cpu_cores", "tsp/scaling"))
    par = rate_at(par_rows, PARALLEL)
    if par is not None:
        threads = F.median(r.get("threads") for r in par_rows if int(r["n"]) == par[0])
        on = f"{threads:.0f} threads, " if threads else ""
        measured += (f"; numba on every core ({PARALLEL}, {on}{par_where}) {par[1]:.2g} (n = {par[0]}): "
                     f"x{got[1] / par[1]:,.0f}")
    if got[1] <= (par[1] if par else s):
        return F.fails(measured, "the GPU version is no faster than the CPU")
    if par is not None:
        return F.holds(measured)
    return F.caveat(measured, f"against one core and a different program (the report ran its OpenCL kernel on all "
                              f"the CPU's cores); the brute force on every core ({PARALLEL}, tsp/cpu_cores) is not "
                              f"in these rows" +
                              ("; and the host-bound version (a) is slower than even one core" if a < s12 else ""))


def _spread(rows, key="perms_per_s") -> tuple[float, int] | None:
    """The median over (variant, n, block) groups of two runs or more of their coefficient of
    variation (standard deviation / mean) of ``key``, and the most runs a group has."""
    groups: dict = {}
    for r in rows:
        if r.get(key):
            groups.setdefault((r["variant"], r["n"], r.get("block")), []).append(float(r[key]))
    cvs = [statistics.stdev(v) / statistics.mean(v) for v in groups.values() if len(v) >= 2]
    return (statistics.median(cvs), max(len(v) for v in groups.values())) if cvs else None


def _cpu_varies_more(data):
    cpu = _spread(F.need(data, "tsp/cpu_cores"))
    gpu_ = _spread([r for r in F.need(data, "tsp/report") if r["variant"] in ("gpu_unrank", "gpu_shared_incremental")])
    if cpu is None or gpu_ is None:
        raise F.Missing("no repeated runs to take a spread from")
    measured = (f"coefficient of variation of orders/s (median over sizes): numba on the CPU {cpu[0]:.1%} "
                f"(tsp/cpu_cores, one core and every core, {cpu[1]} runs each), the GPU's versions (b) and (c) "
                f"{gpu_[0]:.1%} (tsp/report, {gpu_[1]} runs each)")
    if cpu[0] > 1.5 * gpu_[0]:
        return F.caveat(measured, f"the CPU's runs spread more, as the report found, but over {cpu[1]} runs per size "
                                  f"against the GPU's {gpu_[1]}, on numba instead of the report's OpenCL CPU device")
    return F.fails(measured, "the CPU's runs spread no more than the GPU's here")


FINDINGS = [
    F.Finding("Host side: mapping the costs buffer and one byte (char) per city in the orders instead of an int "
              "gave ~250% of the initial performance (12 vertices, 39,916,800 permutations, 20 runs)",
              "Sec. 2.1.1, first figure", ["tsp/tuning"], _char_and_mapping),
    F.Finding("Writing the buffer (WriteBuffer) beats re-creating it from the host array; mapping is slow when "
              "the kernel runs repeatedly, until CL_MAP_WRITE_INVALIDATE_REGION and a smaller mapped range "
              "bring it almost to the level of writing",
              "Sec. 2.1.1, second to fourth figures", ["tsp/tuning"], _buffer_kinds),
    F.Finding("Moving the adjacency matrix to local (in CUDA: shared) memory in the first version degraded "
              "performance slightly: each work-group (block) loads the whole matrix, as many reads as it saves",
              "Sec. 2.1.2, first figure", ["tsp/tuning"], _matrix_in_shared),
    F.Finding("Making the accesses to the permutation array contiguous had the opposite effect (slower)",
              "Sec. 2.1.2, second figure", ["tsp/tuning"], _contiguous_orders),
    F.Finding("The procedural version (each work-item builds its permutation from its global id, the minimum "
              "found on the device) cuts kernel launches and device reads and writes: a ~150% increase over "
              "the previous version",
              "Sec. 2.2, last figure", ["tsp/report"], _procedural_gain),
    F.Finding("With one work-group sliding over all permutations, the adjacency matrix in local (CUDA: shared) "
              "memory pays, since it is loaded once and used for all permutations",
              "Sec. 2.2", ["tsp/report", "tsp/tuning"], _shared_matrix),
    F.Finding("Both GPUs seem not to have reached saturation, although pushed to the most work-items they "
              "handle: a further gain from hardware is conceivable",
              "Sec. 3 (analysis on several devices)", ["tsp/report"], _not_saturated),
    F.Finding("On the CPU the measurements vary more, probably because the device also runs the operating "
              "system",
              "Sec. 3 (analysis on several devices)", ["tsp/report", "tsp/cpu_cores"], _cpu_varies_more),
    F.Finding("The GPU is the device for this search: the report measures the same code on an RTX 3080, an "
              "Intel UHD Graphics and an i7-10710U CPU",
              "Sec. 3, device figures", ["tsp/report", "tsp/scaling", "tsp/cpu_cores"], _gpu_vs_cpu),
    F.Finding("An almost 100% parallel algorithm that processes hundreds of millions of permutations per second",
              "Sec. 4", ["tsp/report"], _hundreds_of_millions),
    F.Finding("At most 20 vertices: with 21 the number of permutations exceeds 2^64, so it cannot be sent in "
              "one kernel launch, and the permutation ids would need more than 64 bits",
              "Sec. 4", [], lambda data: limit_verdict(21, 64)),
    F.Finding("Processing a graph of 20 vertices would take more than 21 years",
              "Sec. 4", ["tsp/report", "tsp/scaling"], _twenty_cities),
    F.Finding("Splitting the permutations over several launches would go past 20 vertices, but the time limit "
              "cannot be overcome except by more powerful hardware",
              "Sec. 4", ["tsp/scaling", "tsp/report"], _only_hardware),
]
