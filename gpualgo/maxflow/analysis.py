"""What notebook 02 reads off the benchmark rows (:mod:`gpualgo.maxflow.bench`): the time its
figures plot, the rankings, the split of the GPU versions' time, the tuning table and the
performance goal's verdict. Rows are those of a preset, measured now or read back from
``data/results/maxflow`` (numbers, or None where a column is empty).

>>> rows = [dict(variant="serial", n=10, directed=True, exec_ms=2.0, kernel_ms=None),
...         dict(variant="gpu_vertex_centric", n=10, directed=True, exec_ms=None, kernel_ms=0.5)]
>>> [algorithm_ms(r) for r in rows]
[2.0, 0.5]
>>> print(fastest_first(rows))
  directed   n=     10: gpu_vertex_centric 0.50 (kernel), serial 2.00
>>> medians(rows, ("variant",))
{('serial',): 2.0, ('gpu_vertex_centric',): 0.5}
"""
from __future__ import annotations

import ast
import math

from ..timing import summary

__all__ = ["algorithm_ms", "with_algorithm_ms", "medians", "verification", "time_split", "fastest_first",
           "time_shares", "sweep_counts", "levels_per_relabel", "level_latency", "level_widths",
           "level_flatness", "solo_lines", "tuning_table", "targets_verdict",
           "FAST_GOAL_MS",
           "instance_label", "heuristic_medians", "heuristics_table", "cut_medians", "cut_table", "parse_size",
           "parse_options", "UPLOAD_PARTS", "upload_split", "upload_table", "relabel_pairs", "relabel_statement",
           "rev_search_medians", "upload_bars"]



def parse_size(text: str) -> tuple[int, int]:
    """'64x32' -> (64, 32): instance sizes are strings so that every preset parameter is a
    plain value or a list of plain values."""
    try:
        a, b = (int(x) for x in str(text).lower().split("x"))
    except ValueError:
        raise ValueError(f"a size is written AxB (e.g. 64x64), got {text!r}") from None
    return a, b


def parse_options(text: str) -> dict:
    """'ops=8,tile=4' -> {'ops': 8, 'tile': 4} (values as Python literals; '' is the defaults)."""
    out = {}
    for item in filter(None, (t.strip() for t in str(text).split(","))):
        key, sep, val = item.partition("=")
        if not sep:
            raise ValueError(f"a tuning configuration is KEY=VALUE,...; got {text!r}")
        out[key.strip()] = ast.literal_eval(val.strip())
    return out

def _num(v) -> bool:
    return v is not None and v != "" and not (isinstance(v, float) and math.isnan(v))


def algorithm_ms(row: dict) -> float | None:
    """The time a figure shows as a version's execution: the kernels' CUDA-event time where
    it was measured (``kernel_ms``: the vertex-centric version, one launch), else the wall
    time of the algorithm (``exec_ms``: for versions (a) and (b) the host's loop, its BFS and
    the copies between launches included; for the serial version and the CPU libraries their
    solve call). None when neither was recorded."""
    for key in ("kernel_ms", "exec_ms"):
        if _num(row.get(key)):
            return float(row[key])
    return None


def medians(rows, by, value: str = "algorithm_ms") -> dict:
    """``{(the row's values of the columns `by`): median of `value`}`` over ``rows``, groups in
    the order they first appear; ``value="algorithm_ms"`` is :func:`algorithm_ms`. Groups with
    no number in ``value`` are left out."""
    groups: dict = {}
    for r in rows:
        v = algorithm_ms(r) if value == "algorithm_ms" else r.get(value)
        if _num(v):
            groups.setdefault(tuple(r.get(k) for k in by), []).append(float(v))
    return {k: summary(v)["median"] for k, v in groups.items()}


def with_algorithm_ms(rows) -> list[dict]:
    """Copies of ``rows`` with the column ``algorithm_ms`` (:func:`algorithm_ms`), to plot."""
    return [dict(r, algorithm_ms=algorithm_ms(r)) for r in rows]


def verification(rows) -> str:
    """One sentence: how many rows were verified in their run (``verified``: see
    :mod:`gpualgo.maxflow.bench`), and how many were not checked."""
    ok = sum(r.get("verified") is True for r in rows)
    unchecked = [r for r in rows if r.get("verified") is None]
    text = f"{ok} of {len(rows)} rows verified"
    if len(unchecked) < len(rows) - ok:
        text += f", {len(rows) - ok - len(unchecked)} FAILED their check"
    if unchecked:
        agree = [r for r in unchecked if r.get("value_and_cut_agree") is not None]
        text += f"; {len(unchecked)} not checked against a reference or certificate"
        if agree:
            text += (f" (recorded before the certificate was checked: in {sum(r['value_and_cut_agree'] is True for r in agree)}"
                     f" of {len(agree)} the flow value equals the first configuration's and its cut's capacity)")
    return text


def _median(rows, key):
    return summary([r[key] if key != "algorithm_ms" else algorithm_ms(r) for r in rows])["median"]


def _ms(v) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.1f}"


def time_split(size_rows) -> str:
    """A table of the median preparation, execution (wall), kernel and total times of
    every variant at the largest ``n`` of the ``report`` preset's size sweep, directed graphs."""
    if not size_rows:
        return ""
    largest = max(int(r["n"]) for r in size_rows)
    lines = [f"prepare / execution / kernel / total at n = {largest:,} (median ms, directed):"]
    for variant in sorted({r["variant"] for r in size_rows}):
        sel = [r for r in size_rows if r["variant"] == variant and int(r["n"]) == largest and r["directed"] is True]
        if sel:
            med = [_median(sel, k) for k in ("prepare_ms", "exec_ms", "kernel_ms", "total_ms")]
            lines.append(f"  {variant:22s}" + "".join(f"{_ms(v):>10s}" for v in med))
    return "\n".join(lines)


def fastest_first(size_rows, value: str = "algorithm_ms") -> str:
    """For each graph kind and size, the variants by median ``value``, fastest first: one line
    each. With the default, the execution time (:func:`algorithm_ms`): a time marked
    ``(kernel)`` is the kernels' CUDA-event time, every other the wall time of the algorithm
    (for versions (a) and (b) their host loop, copies and host BFS included); with
    ``value="total_ms"``, every version's whole ``solve`` call."""
    lines = []
    for directed in (True, False):
        for n in sorted({int(r["n"]) for r in size_rows if r["directed"] is directed}):
            sel = [r for r in size_rows if int(r["n"]) == n and r["directed"] is directed]
            med = {v: _median([r for r in sel if r["variant"] == v], value) for v in {r["variant"] for r in sel}}
            kernel = {r["variant"] for r in sel if value == "algorithm_ms" and _num(r.get("kernel_ms"))}
            ranked = ", ".join(f"{v} {ms:.2f}" + (" (kernel)" if v in kernel else "")
                               for v, ms in sorted(med.items(), key=lambda kv: kv[1]))
            lines.append(f"  {'directed' if directed else 'undirected':10s} n={n:>7,}: {ranked}")
    return "\n".join(lines)


def time_shares(rows):
    """Where the GPU versions spend their time: ``(labels, gr, pr)``, one entry per
    (variant, family, size) of the GPU rows that split their time, with the median
    milliseconds in global relabels (``gr_ms``) and in push/relabel sweeps (``pr_ms``); in the
    order variant, family, then size by its numbers (16x16 before 128x128).

    >>> rows = [dict(kind="gpu", variant="gpu_bcsr", family="genrmf", size=s, gr_ms=1.0, pr_ms=3.0)
    ...         for s in ("128x128", "16x16")]
    >>> time_shares(rows)[0]
    ['bcsr\\ngenrmf 16x16', 'bcsr\\ngenrmf 128x128']
    """
    split = [r for r in rows if r.get("kind") == "gpu" and _num(r.get("gr_ms"))]
    labels, gr, pr = [], [], []
    keys = {(r["variant"], r["family"], r["size"]) for r in split}
    for key in sorted(keys, key=lambda k: (k[0], k[1], parse_size(k[2]))):
        sel = [r for r in split if (r["variant"], r["family"], r["size"]) == key]
        labels.append(f"{key[0].replace('gpu_', '')}\n{key[1]} {key[2]}")
        gr.append(_median(sel, "gr_ms"))
        pr.append(_median(sel, "pr_ms"))
    return labels, gr, pr


def sweep_counts(rows, variant: str) -> dict:
    """What the counters of ``variant``'s rows say: ``{"global_relabels": (min, max),
    "sweeps": (min, max), "sweeps_per_relabel": (min, max)}`` over the rows (sweeps divided by
    global relabels, row by row), or ``{}`` when no row has the counters.

    >>> sweep_counts([dict(variant="v", sweeps=300, global_relabels=3),
    ...               dict(variant="v", sweeps=40, global_relabels=2)], "v")
    {'global_relabels': (2, 3), 'sweeps': (40, 300), 'sweeps_per_relabel': (20.0, 100.0)}
    """
    sel = [r for r in rows if r.get("variant") == variant and _num(r.get("sweeps"))
           and _num(r.get("global_relabels")) and r["global_relabels"] > 0]
    if not sel:
        return {}
    per = [r["sweeps"] / r["global_relabels"] for r in sel]
    return {"global_relabels": (min(r["global_relabels"] for r in sel), max(r["global_relabels"] for r in sel)),
            "sweeps": (min(r["sweeps"] for r in sel), max(r["sweeps"] for r in sel)),
            "sweeps_per_relabel": (min(per), max(per))}


def levels_per_relabel(rows) -> dict:
    """``{size: median BFS levels per global relabel}`` over the rows that count them
    (``bfs_levels`` and ``global_relabels``: the ``tuning`` preset's vertex-centric rows).

    >>> levels_per_relabel([dict(size="64x64", bfs_levels=600, global_relabels=2)])
    {'64x64': 300.0}
    """
    return _ratio_by_size(rows, "bfs_levels", "global_relabels")


def _ratio_by_size(rows, num: str, den: str, scale: float = 1.0) -> dict:
    """``{size: median of scale * num / den}`` over the rows where both are numbers and den > 0."""
    per: dict = {}
    for r in rows:
        if _num(r.get(num)) and _num(r.get(den)) and r[den] > 0:
            per.setdefault(r.get("size"), []).append(scale * r[num] / r[den])
    return {k: summary(v)["median"] for k, v in per.items()}


def level_latency(rows) -> dict:
    """``{size: median microseconds per BFS level}``: each run's time in global relabels over
    the levels its BFS ran (``gr_ms`` / ``bfs_levels``, the ``tuning`` preset's vertex-centric
    rows by levels: ``local_levels`` 1, or none recorded, and without ``block_bfs``), the cost of
    one level: its grid barrier and the chain of dependent reads that expands its frontier.

    >>> level_latency([dict(size="64x64", gr_ms=6.0, bfs_levels=2000), dict(size="64x64", gr_ms=0.0, bfs_levels=0),
    ...                dict(size="64x64", gr_ms=2.0, bfs_levels=2000, local_levels=8)])
    {'64x64': 3.0}
    """
    return _ratio_by_size([r for r in rows if not r.get("block_bfs") and _by_levels(r)], "gr_ms", "bfs_levels",
                          scale=1e3)


def _by_levels(row) -> bool:
    """Whether a vertex-centric row ran the BFS by levels, a grid barrier every level: its
    ``local_levels`` is 1, or it has none (recorded before the option existed)."""
    v = row.get("local_levels")
    return not _num(v) or float(v) == 1


def level_widths(rows) -> list[str]:
    """The ``levels`` preset as lines: per size, for each frontier width, the share of the
    timed BFS levels that expanded one that wide, their time, and the median microseconds of
    a level (the median over the runs of each bucket's median), then the bare grid barrier
    measured in the same run and the widest frontier the grid's tiles take in one pass.

    >>> rows = [dict(size="8x8", rep=0, frontier_lo=1, frontier_hi=64, levels=90, share=0.9, ms=0.3, median_us=3.4,
    ...              barrier_us=1.1, tiles=4224),
    ...         dict(size="8x8", rep=0, frontier_lo=65, frontier_hi=256, levels=10, share=0.1, ms=0.04, median_us=3.6,
    ...              barrier_us=1.1, tiles=4224)]
    >>> print("\\n".join(level_widths(rows)))
    genrmf 8x8: a grid barrier alone 1.10 us; the grid's 4,224 tiles take a frontier of up to 4,224 vertices in one pass
      frontier      1-64        :  90.0% of levels,     0.3 ms, 3.40 us a level (median)
      frontier     65-256       :  10.0% of levels,     0.0 ms, 3.60 us a level (median)
    """
    lines = []
    for size in dict.fromkeys(r["size"] for r in rows):
        sel = [r for r in rows if r["size"] == size]
        barrier = summary([r["barrier_us"] for r in sel])["median"]
        tiles = int(sel[0]["tiles"])
        lines.append(f"genrmf {size}: a grid barrier alone {barrier:.2f} us; the grid's {tiles:,} tiles take a frontier "
                     f"of up to {tiles:,} vertices in one pass")
        for lo, hi in dict.fromkeys((r["frontier_lo"], r["frontier_hi"]) for r in sel):
            b = [r for r in sel if (r["frontier_lo"], r["frontier_hi"]) == (lo, hi)]
            share, ms, us = (summary([r[k] for r in b])["median"] for k in ("share", "ms", "median_us"))
            lines.append(f"  frontier {lo:>6}-{hi:<10}: {100 * share:5.1f}% of levels, {ms:7.1f} ms, {us:.2f} us a level "
                         "(median)")
    return lines


def level_flatness(rows) -> dict:
    """``{size: (narrowest, widest one-pass)}``: the median microseconds of a level whose
    frontier is in the narrowest bucket recorded, and in the widest bucket whose frontiers all
    fit the grid's tiles in one pass (the ``levels`` rows). Close together, they say a level's
    cost does not grow with its work up to there: it is latency.

    >>> level_flatness([dict(size="8x8", frontier_lo=1, frontier_hi=64, median_us=3.4, tiles=4224),
    ...                 dict(size="8x8", frontier_lo=1025, frontier_hi=4096, median_us=3.7, tiles=4224),
    ...                 dict(size="8x8", frontier_lo=4097, frontier_hi=16384, median_us=6.0, tiles=4224)])
    {'8x8': (3.4, 3.7)}
    """
    out = {}
    for size in dict.fromkeys(r["size"] for r in rows):
        sel = [r for r in rows if r["size"] == size]
        one_pass = [r for r in sel if r["frontier_hi"] <= r["tiles"]]
        if not one_pass:
            continue
        lo = min(r["frontier_lo"] for r in one_pass)
        hi = max(r["frontier_lo"] for r in one_pass)
        pick = lambda at: summary([r["median_us"] for r in one_pass if r["frontier_lo"] == at])["median"]
        out[size] = (pick(lo), pick(hi))
    return out


def solo_lines(rows) -> list[str]:
    """What the BFS's grid barriers cost, from the ``tuning`` rows: per size, the BFS by levels
    (the first rows without ``block_bfs`` that ran it, :func:`_by_levels`: ``local_levels=1``, or
    any in rows recorded before that option) against the same with its narrow levels run by the first block
    alone (``block_bfs``: no grid barrier for them), each as its median time in global relabels,
    the share of levels the one block ran, and the time per level.  When one block without
    barriers takes as long per level as the whole grid with them, a level's cost is its chain
    of dependent reads, not the barrier.

    >>> rows = [dict(size="8x8", config="a=1", gr_ms=4.0, bfs_levels=1000, bfs_solo_levels=0, block_bfs=0),
    ...         dict(size="8x8", config="a=1,block_bfs=64", gr_ms=4.2, bfs_levels=1000, bfs_solo_levels=400,
    ...              block_bfs=64)]
    >>> print("\\n".join(solo_lines(rows)))
    genrmf 8x8: BFS by the grid:       4.0 ms in global relabels,   0% of levels by one block, 4.0 us per level
    genrmf 8x8: block_bfs=64:          4.2 ms in global relabels,  40% of levels by one block, 4.2 us per level
    """
    lines = []
    for size in dict.fromkeys(r["size"] for r in rows):
        sel = [r for r in rows if r["size"] == size]
        plain = [r for r in sel if _by_levels(r) and not r.get("block_bfs")]
        base = parse_options((plain or sel)[0]["config"])
        for cfg in dict.fromkeys(r["config"] for r in sel):
            opts = parse_options(cfg)
            width = opts.pop("block_bfs", 0)
            if opts != {k: v for k, v in base.items() if k != "block_bfs"}:
                continue
            rs = [r for r in sel if r["config"] == cfg and _num(r.get("bfs_levels")) and r["bfs_levels"] > 0]
            if not rs:
                continue
            gr = _median(rs, "gr_ms")
            share = _ratio_by_size(rs, "bfs_solo_levels", "bfs_levels").get(size, 0.0)
            per = _ratio_by_size(rs, "gr_ms", "bfs_levels", scale=1e3)[size]
            name = f"block_bfs={width}:" if width else "BFS by the grid:"
            lines.append(f"genrmf {size}: {name:19s} {gr:6.1f} ms in global relabels, {100 * share:3.0f}% of levels "
                         f"by one block, {per:.1f} us per level")
    return lines


#: how far above the best setting's median whole solve the default ``local_levels`` may be, on
#: every instance of the ``local_levels`` preset, and still count as a tie with it
LOCAL_TIE = 0.05


def local_levels_lines(rows, default: int | None = None, tie: float = LOCAL_TIE) -> list[str]:
    """The ``local_levels`` preset: per instance, the median whole solve (and in brackets its
    global relabels) for each number of levels a block runs between grid barriers, the fastest
    setting, and whether ``default`` (:data:`gpualgo.maxflow.gpu.LOCAL_LEVELS`) is within ``tie``
    of it; the last line says whether it is on every instance.

    >>> rows = [dict(family="genrmf", size="8x8", config=f"local_levels={k}", total_ms=t, gr_ms=g)
    ...         for k, t, g in ((1, 100.0, 70.0), (1, 110.0, 72.0), (8, 80.0, 40.0), (8, 82.0, 41.0))]
    >>> print("\\n".join(local_levels_lines(rows, default=8)))
    genrmf 8x8: 1: 105.0 ms (71.0), 8: 81.0 ms (40.5); fastest 8, the default 8 within 5% of it: True
    the default local_levels=8 is within 5% of the fastest on every instance: True
    """
    if default is None:
        from .gpu import LOCAL_LEVELS as default
    lines, every = [], True
    for key in dict.fromkeys((r["family"], r["size"]) for r in rows):
        sel = [r for r in rows if (r["family"], r["size"]) == key]
        per = {}
        for r in sel:
            per.setdefault(int(parse_options(r["config"])["local_levels"]), []).append(r)
        med = {k: _median(v, "total_ms") for k, v in sorted(per.items())}
        best = min(med, key=med.get)
        ok = default in med and med[default] <= (1 + tie) * med[best]
        every = every and ok
        cells = ", ".join(f"{k}: {t:.1f} ms ({_median(per[k], 'gr_ms'):.1f})" for k, t in med.items())
        lines.append(f"{key[0]} {key[1]}: {cells}; fastest {best}, the default {default} within "
                     f"{100 * tie:.0f}% of it: {ok}")
    if lines:
        lines.append(f"the default local_levels={default} is within {100 * tie:.0f}% of the fastest on every "
                     f"instance: {every}")
    return lines


def tuning_table(rows) -> str:
    """The ``tuning`` preset as a table: for every size and configuration, the runs and the
    median total, BFS and sweep times, and the options that differ from the first
    configuration's (the defaults)."""
    lines = []
    for size in dict.fromkeys(r["size"] for r in rows):
        sel = [r for r in rows if r["size"] == size]
        base = parse_options(sel[0]["config"])
        lines.append(f"genrmf {size}: median ms   total     BFS   sweeps  options (first line: the defaults)")
        for cfg in dict.fromkeys(r["config"] for r in sel):
            rs = [r for r in sel if r["config"] == cfg]
            med = [_median(rs, k) for k in ("total_ms", "gr_ms", "pr_ms")]
            diff = ", ".join(f"{k}={v}" for k, v in parse_options(cfg).items() if base.get(k) != v)
            lines.append(f"  {len(rs)} runs {med[0]:13.1f} {med[1]:7.1f} {med[2]:8.1f}  {diff or '-'}")
    return "\n".join(lines)


#: the second performance goal at genrmf 128 x 128: the whole solve call under this (ms)
FAST_GOAL_MS = 1000.0


def targets_verdict(rows, ours: str = "gpu_vertex_centric", limit_ms: float = 2100.0) -> str:
    """The ``targets`` preset's verdict, per size: ``ours``' whole ``solve`` call over its
    runs (best to worst), its kernel time and the share of it in global relabels, every CPU
    library's solve call against it, and whether the goals hold (faster than the fastest
    library in every run; under ``limit_ms`` at 128 x 128, in the best run and in every run;
    and the second goal, under :data:`FAST_GOAL_MS` there)."""
    lines = []
    for size in dict.fromkeys(r["size"] for r in rows):
        sel = [r for r in rows if r["size"] == size]
        mine = [r for r in sel if r["variant"] == ours]
        if not mine:
            continue
        tot = [float(r["total_ms"]) for r in mine]
        ker = [algorithm_ms(r) for r in mine]
        gr_share = summary([float(r["gr_ms"]) / algorithm_ms(r) for r in mine if _num(r.get("gr_ms"))])["median"]
        peer_ms = {r["variant"]: float(r["exec_ms"]) for r in sel if r["kind"] == "peer"}
        lines.append(f"genrmf {size}: {ours} total {min(tot):.1f}-{max(tot):.1f} ms over {len(tot)} runs "
                     f"(kernel {min(ker):.1f}-{max(ker):.1f} ms, {100 * gr_share:.0f}% of it in global relabels)")
        for name, ms in sorted(peer_ms.items(), key=lambda kv: kv[1]):
            lines.append(f"    {name:22s} {ms:10.1f} ms  ({ms / min(tot):.1f}x our best, {ms / max(tot):.1f}x our worst)")
        if peer_ms:
            lines.append(f"    faster than the fastest CPU library in every run: {max(tot) < min(peer_ms.values())}")
        if size == "128x128":
            lines.append(f"    under {limit_ms:,.0f} ms: best run {min(tot) < limit_ms}, every run {max(tot) < limit_ms}")
            lines.append(f"    the second goal, under {FAST_GOAL_MS:,.0f} ms: {min(tot):.1f} ms in the best run, "
                         f"{max(tot):.1f} ms in the worst: {'met' if max(tot) < FAST_GOAL_MS else 'missed'}")
    return "\n".join(lines)


# ------------------------------------------------------------------ the serial_heuristics preset

def _instance(row) -> tuple:
    return (row.get("family"), row.get("experiment"), row.get("directed"), int(row["n"]),
            row.get("density") if row.get("experiment") == "density" else None, row.get("size"))


def instance_label(key: tuple) -> str:
    """A readable name for an instance of ``serial_heuristics`` (:func:`heuristic_medians`' keys).

    >>> instance_label(("gnp", "size", True, 3162, None, None)), instance_label(("genrmf", "genrmf", True, 4096, None, "16x16"))
    ('gnp n = 3,162 directed', 'genrmf 16x16 (n = 4,096)')
    >>> instance_label(("gnp", "density", True, 1000, 0.5, None))
    'gnp n = 1,000 p = 0.5'
    """
    family, experiment, directed, n, density, size = key
    if family == "genrmf":
        return f"genrmf {size} (n = {n:,})"
    if experiment == "density":
        return f"gnp n = {n:,} p = {density}"
    return f"gnp n = {n:,} {'directed' if directed else 'undirected'}"


def heuristic_medians(rows) -> dict:
    """``{instance: {heuristics: {"ms": .., "relabels": .., "pushes": ..}}}`` over the ``step="flow"``
    rows of ``serial_heuristics``: the medians of the serial version's execution time (``exec_ms``)
    and counters, per instance (:func:`instance_label`) and set of heuristics, instances in the
    order they first appear.

    >>> rows = [dict(step="flow", family="gnp", experiment="size", directed=True, n=100, heuristics=h,
    ...              exec_ms=ms, relabels=k, pushes=k) for h, ms, k in (("none", 8.0, 900), ("gap", 1.0, 90))]
    >>> heuristic_medians(rows)[("gnp", "size", True, 100, None, None)]["none"]
    {'ms': 8.0, 'relabels': 900.0, 'pushes': 900.0}
    """
    groups: dict = {}
    for r in rows:
        if r.get("step") == "flow" and _num(r.get("exec_ms")):
            groups.setdefault(_instance(r), {}).setdefault(r["heuristics"], []).append(r)
    return {k: {h: {"ms": _median(rs, "exec_ms"), "relabels": _median(rs, "relabels"), "pushes": _median(rs, "pushes")}
                for h, rs in hs.items()} for k, hs in groups.items()}


def _ms_text(v) -> str:
    if v is None:
        return "-"
    return f"{v:,.0f}" if v >= 100 else (f"{v:.1f}" if v >= 1 else f"{v:.3f}")


def heuristics_table(rows, order=("global relabel + gap", "global relabel", "gap", "none")) -> str:
    """The serial version with and without its heuristics, one line per instance: the median
    execution time (ms) and relabels of each set of heuristics (``-`` where it did not run: the
    preset runs those without the global relabel only up to ``plain_max`` vertices), and how
    many times slower the plain version (``none``) was than with both."""
    med = heuristic_medians(rows)
    head = "".join(f"{h:>24s}" for h in order)
    lines = [f"median ms (relabels)            {head}   none / both", ]
    for key, m in med.items():
        cells = "".join(f"{_ms_text(m[h]['ms']) + ' (' + format(int(m[h]['relabels']), ',') + ')' if h in m else '-':>24s}"
                        for h in order)
        ratio = f"{m['none']['ms'] / m[order[0]]['ms']:,.0f}x" if "none" in m and order[0] in m else "-"
        lines.append(f"  {instance_label(key):30s}{cells}   {ratio:>10s}")
    return "\n".join(lines)


def cut_medians(rows) -> dict:
    """``{instance: {"flow": ms, method: ms}}`` over the ``step="cut"`` rows of
    ``serial_heuristics``: the median time of the push-relabel run the cut was read from, and
    of each way of reading it (``heights``, ``bfs``, ``scan``: the row's variant ``cut_<method>``).

    >>> rows = [dict(step="cut", family="gnp", experiment="size", directed=True, n=100, variant=f"cut_{m}",
    ...              exec_ms=ms, flow_ms=2.0) for m, ms in (("bfs", 0.1), ("scan", 40.0))]
    >>> cut_medians(rows)[("gnp", "size", True, 100, None, None)]
    {'flow': 2.0, 'bfs': 0.1, 'scan': 40.0}
    """
    groups: dict = {}
    for r in rows:
        if r.get("step") == "cut" and _num(r.get("exec_ms")):
            g = groups.setdefault(_instance(r), {})
            g.setdefault("flow", []).append(r)
            g.setdefault(r["variant"].removeprefix("cut_"), []).append(r)
    return {k: {m: _median(rs, "flow_ms" if m == "flow" else "exec_ms") for m, rs in g.items()}
            for k, g in groups.items()}


def cut_table(rows) -> str:
    """The minimum-cut step on its own, one line per instance: the median time (ms) of the
    push-relabel run and of each way of reading its cut: from the heights (O(n)), the BFS on
    the transposed residual graph (O(n + m)) and the report's first search (a scan of every arc
    for each vertex that reaches the sink), and the scan's time over push-relabel's."""
    lines = [f"median ms                       {'push-relabel':>14s}{'heights':>10s}{'BFS':>10s}{'scan':>10s}"
             "   scan / push-relabel"]
    for key, m in cut_medians(rows).items():
        ratio = f"{m['scan'] / m['flow']:,.1f}x" if "scan" in m and m.get("flow") else "-"
        lines.append(f"  {instance_label(key):30s}{_ms_text(m.get('flow')):>14s}" +
                     "".join(f"{_ms_text(m.get(k)):>10s}" for k in ("heights", "bfs", "scan")) + f"   {ratio:>19s}")
    return "\n".join(lines)


# ------------------------------------------ host_memory, reverse_arcs, matrix_large

#: the parts of a host_memory row's whole call, in the order the stacked bars draw them:
#: the setup on the host, the transfer, the execution's kernels, copies back and the rest
#: (the host BFS, the height uploads, the launches' overhead)
UPLOAD_PARTS = ("setup_ms", "transfer_ms", "launch_ms", "download_ms", "other_ms")


def _median_of(rows, key):
    """The median of the numbers in column ``key`` of ``rows`` (empty cells skipped), or None."""
    vals = [float(r[key]) for r in rows if _num(r.get(key))]
    return summary(vals)["median"] if vals else None


def upload_split(rows, variant: str = "gpu_bcsr") -> dict:
    """``{(n, upload): {part: median ms}}`` of the ``host_memory`` rows of ``variant`` with the
    global relabel on the host (:data:`UPLOAD_PARTS`; ``other_ms`` is exec_ms less the launches
    and the copies back), sizes in order, the uploads in the order they first appear.

    >>> r = dict(variant="gpu_bcsr", relabel="host", upload="pinned", n=10, setup_ms=1.0, transfer_ms=2.0,
    ...          exec_ms=10.0, launch_ms=6.0, download_ms=1.0, total_ms=13.0)
    >>> upload_split([r])[(10, "pinned")]["other_ms"]
    3.0
    """
    sel = [r for r in rows if r.get("variant") == variant and r.get("relabel", "host") in ("host", None, "")
           and _num(r.get("exec_ms")) and r.get("upload")]
    out: dict = {}
    for key in sorted(dict.fromkeys((r["n"], r["upload"]) for r in sel), key=lambda k: k[0]):
        group = [r for r in sel if (r["n"], r["upload"]) == key]
        parts = {p: _median_of(group, p) for p in UPLOAD_PARTS[:-1]}
        parts["other_ms"] = max(_median_of(group, "exec_ms") - (parts["launch_ms"] or 0)
                                - (parts["download_ms"] or 0), 0.0)
        parts["total_ms"] = _median_of(group, "total_ms")
        out[key] = parts
    return out


def upload_table(rows) -> str:
    """One line per (version, n, upload) of ``host_memory``: the medians of
    :func:`upload_split` and the whole call."""
    lines = []
    for variant in ("gpu_matrix", "gpu_bcsr"):
        for (n, upload), p in upload_split(rows, variant).items():
            lines.append(f"{variant:11s} n={n:>7,} {upload:9s} " + "  ".join(
                f"{k[:-3]} {_ms(p[k]):>6s} ms" for k in UPLOAD_PARTS + ("total_ms",)))
    return "\n".join(lines)


def relabel_pairs(rows) -> dict:
    """``{instance label: {"host": medians, "gpu": medians}}`` of the ``host_memory`` rows of
    (b) with the default upload and the global relabel on the host and on the GPU; medians of
    ``exec_ms``, ``gr_ms`` (the global relabels: BFS and heights, or the BFS kernel) and
    ``global_relabels``. Only instances with both.

    >>> rows = [dict(variant="gpu_bcsr", upload="auto", relabel=r, family="genrmf", size="4x4", n=64,
    ...              exec_ms=ms, gr_ms=g, global_relabels=3) for r, ms, g in (("host", 9.0, 4.0), ("gpu", 6.0, 1.0))]
    >>> relabel_pairs(rows)["genrmf 4x4"]["gpu"]["exec_ms"]
    6.0
    """
    out: dict = {}
    for r in rows:
        if r.get("variant") != "gpu_bcsr" or r.get("upload") != "auto" or r.get("relabel") not in ("host", "gpu"):
            continue
        label = f"genrmf {r['size']}" if r.get("family") == "genrmf" else f"G(n, p) n = {r['n']:,}"
        out.setdefault(label, {}).setdefault(r["relabel"], []).append(r)
    return {label: {k: {c: _median_of(g, c) for c in ("exec_ms", "gr_ms", "global_relabels")} for k, g in d.items()}
            for label, d in out.items() if set(d) == {"host", "gpu"}}


def relabel_statement(rows) -> str:
    """What the ``host_memory`` rows say about the global relabel's place for the same sweeps
    (version (b)'s kernel): at each instance, the execution with the BFS on the host and on the
    GPU, the BFS's share of the host version, and the ratio; '' without such rows."""
    pairs = relabel_pairs(rows)
    if not pairs:
        return ""
    parts, ratios = [], []
    for label, d in pairs.items():
        h, g = d["host"], d["gpu"]
        ratios.append(h["exec_ms"] / g["exec_ms"])
        share = 100 * (h["gr_ms"] or 0) / h["exec_ms"] if h["exec_ms"] else 0
        parts.append(f"{label}: {_ms_text(h['exec_ms'])} ms with the host BFS ({share:.0f}% in "
                     f"{h['global_relabels']:.0f} global relabels), {_ms_text(g['exec_ms'])} ms with the GPU BFS "
                     f"({ratios[-1]:.2f}x)")
    lo, hi = min(ratios), max(ratios)
    span = f"{lo:.2f}x" if lo == hi else f"{lo:.2f}x to {hi:.2f}x"
    verdict = (f"moving the BFS to the GPU speeds the same sweeps up {span}" if lo >= 1.5 else
               f"moving the BFS to the GPU speeds the same sweeps up 1.5x or more on some instances only ({span})"
               if hi >= 1.5 else f"the BFS's place changes the time of the same sweeps by less than 1.5x ({span})")
    return "version (b), the same sweep kernel: " + "; ".join(parts) + f". So {verdict}."


def rev_search_medians(rows) -> dict:
    """``{(directed, n): {rev_search: median launch_ms}}`` of the ``reverse_arcs`` rows: the
    kernels' GPU time, where the lookup runs."""
    out: dict = {}
    for (d, n, how), ms in medians([r for r in rows if r.get("rev_search")], ("directed", "n", "rev_search"),
                                   "launch_ms").items():
        out.setdefault((d, n), {})[how] = ms
    return dict(sorted(out.items(), key=lambda kv: (not kv[0][0], kv[0][1])))


def upload_bars(rows, variant: str) -> tuple[list, dict, list]:
    """The stacked bars of the ``host_memory`` figure for ``variant``: (labels ``"n\\nupload"``,
    {part of :data:`UPLOAD_PARTS`: heights}, whole calls in ms), every height relative to the
    pageable upload's whole call at the same n (a linear axis keeps the stacked parts honest
    across sizes a thousand times apart); sizes without a pageable run are left out.

    >>> r = dict(variant="gpu_bcsr", upload="pageable", n=10, setup_ms=1.0, transfer_ms=1.0,
    ...          exec_ms=2.0, launch_ms=1.0, download_ms=1.0, total_ms=4.0)
    >>> labels, parts, totals = upload_bars([r, dict(r, upload="mapped", total_ms=8.0, setup_ms=3.0)], "gpu_bcsr")
    >>> labels, parts["setup_ms"], totals
    (['10\\npageable', '10\\nmapped'], [0.25, 0.75], [4.0, 8.0])
    """
    split = upload_split(rows, variant)
    labels, parts, totals = [], {p: [] for p in UPLOAD_PARTS}, []
    for (n, upload), p in split.items():
        base = split.get((n, "pageable"), {}).get("total_ms")
        if not base:
            continue
        labels.append(f"{n:,}\n{upload}")
        totals.append(p["total_ms"])
        for k in UPLOAD_PARTS:
            parts[k].append((p[k] or 0.0) / base)
    return labels, parts, totals
