"""The README's "at a glance" table, written from the recorded results and checked against them.

Every figure in the table is computed here from ``data/results`` (never typed by hand), says how
many runs it is the median of (or that it is one run), and every ratio compares like with like
from one run: the same instance, whole solve against whole solve, the same family of algorithm
(where a pruned GPU algorithm is set against an unpruned serial one, the pruned serial one is
shown too, labelled).

``python -m gpualgo.glance`` prints the table; ``python -m gpualgo.glance --write`` puts it into
README.md between its markers; ``tests/test_glance.py`` fails when README and data disagree.
"""
from __future__ import annotations

import pathlib
import statistics
import sys

from . import results
from .guards import gib

__all__ = ["rows", "table", "readme_path", "write_readme", "START", "END", "UNCHECKED"]

START = "<!-- at-a-glance: written by python -m gpualgo.glance --write; do not edit by hand -->"
END = "<!-- end of at-a-glance -->"
#: the mark of a figure whose solve's own check of its input was not timed
UNCHECKED = "(†)"


def _ms(x: float) -> str:
    return f"{x:.1f} ms" if x < 1000 else f"{x:.0f} ms"


def _runs(values) -> str:
    return "1 run" if len(values) == 1 else f"median of {len(values)} runs"


def _median(rows, **match) -> tuple[float, int]:
    """(median total_ms, number of runs) of the rows matching every ``key=value``."""
    vals = [float(r["total_ms"]) for r in rows if all(r.get(k) == v for k, v in match.items())]
    if not vals:
        raise LookupError(f"no recorded row matches {match}")
    return statistics.median(vals), len(vals)


def _timed(rows, label: str, **match) -> tuple[float, str]:
    t, k = _median(rows, **match)
    return t, f"{label} {_ms(t)} ({_runs(range(k))})"


def _gpu_name(*recs) -> str:
    names = {(r.meta.get("device") or {}).get("gpu") for r in recs}
    return ", ".join(sorted(n for n in names if n))


def _dates(*recs) -> set:
    out = set()
    for r in recs:
        for part in r.meta.get("parts") or [r.meta]:
            out.add(str(part.get("date", "?"))[:10])
    return out


def rows(where=None) -> tuple[list[tuple[str, str]], str]:
    """``([(what, measured), ...], heading)`` from the recorded results (``where``: the results
    folder, default :data:`gpualgo.results.RESULTS_DIR`)."""
    base = pathlib.Path(where) if where else results.RESULTS_DIR

    def read(algo, preset):
        return results.read(base / algo, preset)
    exact, tsp_t, mf_t, dgs_t, co_t = (read("auction", "exact"), read("tsp", "targets"), read("maxflow", "targets"),
                                       read("dgs", "targets"), read("coalitions", "targets"))
    out = []

    def add(rec, row):
        """A row measured in ``rec``: (what, measured, the GPU it names); marked when the record
        is of a problem whose solve checks a large input before its version runs, and was made
        before the solve's time counted that check (its rows have no ``check_ms``)."""
        what, measured = row
        if rec in (mf_t, co_t) and not any("check_ms" in r for r in rec.rows):
            measured += f" {UNCHECKED}"
        out.append((what, measured, _gpu_name(rec)))

    for n in (8192, 16384):
        rs = [r for r in exact.rows if r["n"] == n and r["range"] == "1-10000"]
        g, gtext = _timed(rs, "GPU eps-scaling auction", variant="gpu_eps_scaling")
        s, stext = _timed(rs, "scipy", variant="scipy")
        lp, ltext = _timed(rs, "lap", variant="lap")
        add(exact, (f"exact assignment, n = {n}, dense benefits in [1, 10000], whole solve",
                    f"{gtext}; {stext}; {ltext}: {s / g:.1f}x scipy, {lp / g:.1f}x lap"))

    au_t = read("auction", "targets")
    rs = [r for r in au_t.rows if r["n"] == 16384]
    _, t32 = _timed(rs, "from an int32 array", variant="gpu_eps_scaling", dtype="int32")
    _, t64 = _timed(rs, "from the same matrix as int64 (numpy's default integer)", variant="gpu_eps_scaling",
                    dtype="int64")
    add(au_t, ("exact assignment, n = 16384, dense benefits in [1, 10000], GPU eps-scaling auction, whole solve",
                f"{t32}; {t64}"))
    for family, what in (("0-999", "benefits in [0, 999]"), ("geom", "geometric benefits (GEOM)")):
        rs = [r for r in au_t.rows if r["n"] == 8192 and r["range"] == family]
        g, gtext = _timed(rs, "GPU eps-scaling auction", variant="gpu_eps_scaling", dtype="int64")
        s, stext = _timed(rs, "scipy", variant="scipy")
        parts, ratios = [gtext, stext], [f"{s / g:.1f}x scipy"]
        if any(r["variant"] == "lap" for r in rs):
            lp, ltext = _timed(rs, "lap", variant="lap")
            parts.append(ltext)
            ratios.append(f"{lp / g:.1f}x lap")
        add(au_t, (f"exact assignment, n = 8192, {what}, int64 input, whole solve",
                    "; ".join(parts) + ": " + ", ".join(ratios)))

    bf = [r for r in tsp_t.rows if r["variant"] == "gpu_shared_incremental" and 13 <= r["n"] <= 15]
    rates = [float(r["perms_per_s"]) for r in bf]
    add(tsp_t, ("brute-force TSP on the GPU, orders scored per second, n = 13 to 15 (all orders and "
                "each tour once)", f"{min(rates):.2g} to {max(rates):.2g} ({len(rates)} runs, 1 each)"))
    t16, k16 = _median([r for r in tsp_t.rows if r["n"] == 16], variant="gpu_shared_incremental")
    add(tsp_t, ("brute-force TSP, n = 16, exact", f"{t16 / 1000:.1f} s ({_runs(range(k16))})"))
    tsp_l = read("tsp", "largest")
    t17, k17 = _median([r for r in tsp_l.rows if r["variant"] == "gpu_shared_incremental"])
    n17 = tsp_l.rows[0]["n"]
    add(tsp_l, (f"brute-force TSP, n = {n17} (symmetric: each tour once), exact, one GPU",
                f"{t17 / 1000:.1f} s ({_runs(range(k17))})"))
    top = max((r for r in tsp_l.rows if r["variant"] == "gpu_held_karp"), key=lambda r: r["n"])
    add(tsp_l, (f"GPU Held-Karp, n = {top['n']}, exact (an instance whose optimum is known), whole solve",
                f"{_ms(float(top['total_ms']))} (1 run); its table {gib(int(top['table_bytes']))}"))
    hk = [float(r["total_ms"]) for r in tsp_t.rows if r["variant"] == "gpu_held_karp" and r["n"] == 22]
    ser, kser = _median(tsp_t.rows, variant="held_karp", n=22)
    add(tsp_t, ("Held-Karp, n = 22: GPU against the numba serial Held-Karp, whole solve",
                f"GPU {min(hk):.1f} to {max(hk):.1f} ms ({len(hk)} runs); serial {_ms(ser)} ({_runs(range(kser))}): "
                f"{ser / max(hk):.0f}x to {ser / min(hk):.0f}x"))

    for size, peers in (("64x64", ("ortools", "igraph", "scipy_dinic")), ("128x128", ("ortools", "igraph"))):
        rs = [r for r in mf_t.rows if r["size"] == size]
        g, gtext = _timed(rs, "GPU vertex-centric push-relabel", variant="gpu_vertex_centric")
        parts, fastest = [gtext], None
        for p in peers:
            t, text = _timed(rs, p.replace("_", " "), variant=p)
            parts.append(text)
            fastest = t if fastest is None else min(fastest, t)
        a = int(size.split("x")[0])
        add(mf_t, (f"max flow, genrmf a = b = {a} ({a ** 3:,} vertices), whole solve",
                    "; ".join(parts) + f": {fastest / g:.1f}x the fastest CPU library"))

    rs = [r for r in dgs_t.rows if r["family"] == "geom" and r["n"] == 4096]
    g, gtext = _timed(rs, "full-GPU DGS", variant="gpu")
    s, stext = _timed(rs, "serial DGS", variant="serial")
    a, atext = _timed(rs, "exact GPU auction", variant="gpu_eps_scaling")
    gap = [float(r["gap"]) for r in rs if r["variant"] == "gpu"]
    add(dgs_t, ("assignment by DGS, GEOM n = 4096, whole solve; DGS's gap to the optimum",
                f"{gtext}; {stext}; {atext}: {s / g:.0f}x serial DGS; gap {100 * statistics.median(gap):.3f} %"))

    from .coalitions.analysis import NO_BOUND
    for n in (27, 29):
        t, k = _median(co_t.rows, variant="gpu_odp", n=n)
        text = f"{_ms(t)} ({_runs(range(k))})"
        if any(r["variant"] == NO_BOUND and r["n"] == n for r in co_t.rows):
            u, j = _median(co_t.rows, variant=NO_BOUND, n=n)
            text += f"; without its bound (tiles alone) {_ms(u)} ({_runs(range(j))})"
        add(co_t, (f"coalition structures, n = {n}, GPU pruned DP (float32, uniform values)", text))
    g, gtext = _timed(co_t.rows, "GPU pruned DP", variant="gpu_odp", n=22)
    s, stext = _timed(co_t.rows, "serial unpruned DP", variant="serial", n=22)
    s2, s2text = _timed(co_t.rows, "serial pruned DP", variant="serial_odp", n=22)
    pruned = f"{gtext}; {s2text}: {s2 / g:.0f}x"
    if any(r["variant"] == NO_BOUND and r["n"] == 22 for r in co_t.rows):
        u, utext = _timed(co_t.rows, "the GPU's tiles alone", variant=NO_BOUND, n=22)
        pruned += f" ({utext}: {s2 / u:.0f}x without the bound)"
    add(co_t, ("coalition structures, n = 22: pruned against pruned (one run of the targets preset)", pruned))
    add(co_t, ("coalition structures, n = 22: the GPU's pruned DP against the unpruned serial DP "
                "(the same run; pruning and GPU together)", f"{gtext}; {stext}: {s / g:.0f}x"))
    recs = (exact, au_t, tsp_t, tsp_l, mf_t, dgs_t, co_t)
    dates = sorted(_dates(*recs))
    when = dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}"
    # the GPU most rows were measured on goes in the heading; a row from another names its own
    gpus = [g for _, _, g in out]
    main = max(sorted(set(gpus)), key=gpus.count)
    heading = f"### At a glance (recorded on {main}, {when})"
    if len(set(gpus)) > 1:
        heading = f"### At a glance (recorded on {main} unless a row names another GPU, {when})"
    return [(what, measured if g == main else f"{measured} (on {g})") for what, measured, g in out], heading


def table(where=None) -> str:
    """The heading and the Markdown table, between the README's markers."""
    body, heading = rows(where)
    lines = [START, heading, "", "| what | measured |", "| --- | --- |"]
    lines += [f"| {what} | {measured} |" for what, measured in body]
    lines += ["", "Every figure is computed from the files under `data/results/` by `gpualgo/glance.py`; "
              "each says how many runs it is the median of."]
    if any(UNCHECKED in measured for _, measured in body):
        lines += ["", f"{UNCHECKED} Recorded before a solve's time counted its own check of the input (one pass "
                  "over the network's arrays or the table of values, now part of `total_ms` as `check_ms`): "
                  "the whole call took that much longer than the figure."]
    lines += [END]
    return "\n".join(lines)


def readme_path() -> pathlib.Path:
    return pathlib.Path(__file__).resolve().parent.parent / "README.md"


def write_readme(path=None) -> bool:
    """Put :func:`table` into README.md between the markers; True when it changed."""
    path = pathlib.Path(path) if path else readme_path()
    text = path.read_text()
    if START not in text or END not in text:
        raise ValueError(f"{path} has no at-a-glance markers")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    new = head + table() + tail
    if new != text:
        path.write_text(new)
    return new != text


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--write"]:
        print("README.md updated" if write_readme() else "README.md already up to date")
        return 0
    if argv:
        print("usage: python -m gpualgo.glance [--write]", file=sys.stderr)
        return 2
    print(table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
