"""Max-flow benchmark presets for ``python -m gpualgo.bench maxflow --preset NAME``.

- ``report``: the source report's experiments: time against vertices (log-log) for
  directed and undirected G(n, 2 ln n / n) up to n = 100,000 and beyond, every version
  where it fits (serial only up to ``serial_max``, the matrix only up to ``matrix_max``),
  and n = 1000 with density 0.1 ... 1.0; ``reps`` repetitions; preparation / execution / total.
- ``peers``: genrmf, Washington RLG and vision-grid instances up to millions of vertices:
  our GPU versions and the serial one against scipy (dinic, edmonds_karp), networkx
  (preflow_push), python-igraph and OR-tools, each up to its size cap (``cap_<variant>``); time
  split into push/relabel sweeps and global relabels.
- ``targets``: genrmf a = b = 64 and a = b = 128, every peer in the same run, and the
  ratios of the vertex-centric version to the fastest CPU library.
- ``tuning``: the vertex-centric version's options on genrmf, each configuration in full.
- ``local_levels``: the vertex-centric version's BFS with several values of ``local_levels``
  (1 is the BFS by levels) on genrmf, Washington RLG and a vision grid: the evidence for the
  default, :data:`gpualgo.maxflow.gpu.LOCAL_LEVELS` (:func:`gpualgo.maxflow.analysis.local_levels_lines`).
- ``levels``: what one BFS level of the vertex-centric version costs against how wide it is:
  every level of every global relabel timed on the GPU clock (``time_levels``), grouped by
  the frontier it expanded (:data:`LEVEL_BUCKETS`), beside a bare grid barrier measured in
  the same run (:func:`gpualgo.gpu.grid_barrier_us`).
- ``cpu``: serial against the CPU peers on small instances (no GPU needed).
- ``serial_heuristics``: the serial version with and without its two heuristics (the global
  relabel and the gap), on the report's G(n, p) and on genrmf, and the minimum-cut step timed
  on its own three ways (no GPU needed): :func:`serial_heuristics_rows`.
- ``host_memory``: versions (a) and (b) with the network uploaded from pageable, page-locked
  and mapped host memory (and the default), setup / transfer / execution apart, on the report's
  directed G(n, 2 ln n / n); and (b) with its global relabel on the host and on the GPU, there
  and on genrmf (:func:`measure_configs`, the column ``config``).
- ``reverse_arcs``: (b) with the reverse arc found by the stored index and by the report's
  linear scan and binary search, on the report's G(n, 2 ln n / n).
- ``matrix_large``: the matrix version against BCSR and vertex-centric at n = 10,000 and
  31,623 (directed G(n, 2 ln n / n)), where the report's memory limit lay.

Each preset's ``quick`` values are its tiny sizes (CI, headless notebooks). Every row has the
columns of :func:`gpualgo.bench.row`: ``variant`` (one of ours, or a CPU peer of
:data:`PEERS`), ``objective`` (the flow value), the times (a peer's ``prepare_ms`` is building
its graph, its ``exec_ms`` its max-flow call), ``verified``; then the counters, ``certified``
(ours: the returned (pre)flow is feasible and the returned cut has the same capacity, which
proves both optimal on their own: :func:`gpualgo.maxflow.checks.certify`) and
``reference_value`` (:func:`case_reference`). ``verified`` is True for one of ours when it is
certified and equals the reference, for a peer when it equals the reference (another solver's
value, never its own); None when nothing independent ran.
"""
from __future__ import annotations

import functools
import importlib.metadata
import math

from .. import bench, gpu, peers
from ..bench import Case, Preset
from ..gpu import cpu_label
from . import checks, instances, serial
from .analysis import parse_options, parse_size
from .gpu import BLOCK, LOCAL_LEVELS, REV_SEARCH, UPLOADS, default_tile
from .solve import VARIANTS, solve
from .solve import check as check_solve

GPU_VARIANTS = tuple(v for v in VARIANTS if v.startswith("gpu_"))
PEERS = ("scipy_dinic", "scipy_edmonds_karp", "networkx_preflow_push", "igraph", "ortools")

#: peer -> (its function in gpualgo.peers, the distribution whose version the row names)
_PEER_CALLS = {
    "scipy_dinic": (functools.partial(peers.scipy_max_flow, method="dinic"), "scipy"),
    "scipy_edmonds_karp": (functools.partial(peers.scipy_max_flow, method="edmonds_karp"), "scipy"),
    "networkx_preflow_push": (peers.networkx_max_flow, "networkx"),
    "igraph": (peers.igraph_max_flow, "igraph"),
    "ortools": (peers.ortools_max_flow, "ortools"),
}


# ------------------------------------------------------------------------------ rows

def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def peer_available(name: str) -> bool:
    """True when the CPU peer ``name`` (one of :data:`PEERS`) can run here."""
    if name == "igraph":
        return peers.available("igraph")
    if name == "ortools":
        return peers.available("ortools_graph")
    return True


def run_peer(name: str, net, rep: int = 0, **fields) -> dict:
    """Solve ``net`` with the CPU library ``name`` (one of :data:`PEERS`, called through
    :mod:`gpualgo.peers`) and return its row (:func:`gpualgo.bench.peer_row`): ``prepare_ms``
    is building the library's graph, ``exec_ms`` its max-flow call, ``total_ms`` both."""
    if name not in _PEER_CALLS:
        raise ValueError(f"unknown peer {name!r}; known: {PEERS}")
    call, dist = _PEER_CALLS[name]
    times = {}
    value = call(net.n, *net.arcs(), net.source, net.sink, times=times)
    if value is None:
        raise ValueError(peers.missing_text("ortools_graph" if name == "ortools" else name))
    return bench.peer_row(name, value, times["build_ms"] + times["solve_ms"], rep=rep,
                          device=cpu_label(engine=f"{dist} {_version(dist)}"), prepare_ms=times["build_ms"], **fields)


def certified(result) -> bool:
    """True when the result's (pre)flow is feasible and its cut has the same capacity
    (:func:`gpualgo.maxflow.checks.certify`); prints the violation otherwise."""
    try:
        checks.certify(result)
    except ValueError as exc:
        print(f"WARNING: {result.variant}: {exc}")
        return False
    return True


#: the times of versions (a) and (b) a :func:`measure_configs` row keeps: the setup and the
#: transfer (together prepare_ms), the launches' GPU time and the copies back (inside exec_ms)
SPLIT = ("setup_ms", "transfer_ms", "launch_ms", "download_ms")


def run_ours(variant: str, net, rep: int = 0, options: dict | None = None, **fields) -> dict:
    """Solve ``net`` with one of our versions (and ``options``) and return its row
    (:func:`gpualgo.bench.row`, then the counters and ``certified``); ``verified`` is set by
    :func:`verify`."""
    r = solve(net, variant=variant, **(options or {}))
    s = r.stats
    row = bench.row(r, rep=rep, verified=None, **fields)
    row.update(gr_ms=s.get("gr_ms"), pr_ms=s.get("pr_ms"), pushes=s["pushes"], relabels=s["relabels"],
               global_relabels=s["global_relabels"], phases=s["phases"], sweeps=s.get("sweeps", 0),
               cap_dtype=s["cap_dtype"], certified=certified(r))
    if options:
        row.update({k: s.get(k) for k in SPLIT + ("bfs_levels",)})
    return row


def warm(variant: str, net, **options) -> None:
    """Pay before the timed runs of ``variant`` on ``net`` what a process pays once: the
    compilation (numba's serial version, or the kernel module, which is built per capacity type
    (a tiny instance of ``net``'s) and, for the vertex-centric version and (b)'s GPU relabel,
    per tile width (``net``'s default unless ``options`` name one), for the vertex-centric
    version per block size, and with (b)'s reverse-arc search as a define (``options``); see
    :func:`gpualgo.bench.warm_up`), and for a GPU version one untimed solve of ``net`` itself,
    so that CuPy's memory pool holds blocks of its arrays' sizes, as the auction's benchmarks
    warm up at full size: the first timed run then allocates no more than the others."""
    tiny = instances.genrmf(2, 2, seed=0)
    if not net.fits_int32():
        tiny = instances.vision_grid(2, 2, maxcap=2**40, seed=0)
    if variant == "gpu_vertex_centric" or (variant == "gpu_bcsr" and options.get("relabel") == "gpu"):
        options.setdefault("tile", default_tile(net))
    bench.warm_up(solve, tiny, [variant], **options)
    if variant.startswith("gpu_") and gpu.available():
        solve(net, variant=variant, **options)


def case_reference(rows: list[dict], skip: str | None = None):
    """The value the rows of a case are checked against: scipy dinic's where it ran, else
    another CPU peer's, else one that one of our versions certified (a feasible (pre)flow
    and a cut of the same capacity); rows of the variant ``skip`` are left out, so that no
    row is its own reference. None when no row qualifies."""
    for pick in (lambda r: r["variant"] == "scipy_dinic", lambda r: r["variant"] in PEERS,
                 lambda r: r.get("certified") is True):
        for r in rows:
            if r["variant"] != skip and pick(r):
                return r["objective"]
    return None


def verify(rows: list[dict]) -> list[dict]:
    """Set ``reference_value`` and ``verified`` of every row of one case (see the module doc)."""
    for row in rows:
        ref = case_reference(rows, skip=row["variant"])
        row["reference_value"] = ref
        if row["variant"] in PEERS:
            row["verified"] = None if ref is None else bool(row["objective"] == ref)
        else:
            row["verified"] = bool(row["certified"] and (ref is None or row["objective"] == ref))
        if row["verified"] is False:
            print(f"WARNING: {row['variant']} on {row.get('family')} n={row.get('n')}: value {row['objective']}, "
                  f"reference {ref}, certified {row.get('certified')}")
    return rows


def measure(family: str, params: dict, net, variants, reps: int, seed, peer_reps: int | None = None,
            **extra) -> list[dict]:
    """Run each of ``variants`` (ours or :data:`PEERS`) in turn on ``net``, ``reps`` times
    (the CPU peers ``peer_reps`` times, default ``reps``, and at least
    :data:`gpualgo.bench.REPEAT_MIN` times when a run takes less than
    :data:`gpualgo.bench.REPEAT_BELOW_S`), and :func:`verify` the rows."""
    rows = []
    for variant in variants:
        peer = variant in PEERS
        if not peer:
            warm(variant, net)
        wanted = peer_reps if peer and peer_reps is not None else reps
        fields = dict(algorithm="maxflow", family=family,
                      kind="peer" if peer else ("gpu" if variant.startswith("gpu_") else "serial"),
                      n=net.n, arcs=net.n_input_arcs, seed=seed, **params, **extra)
        first, rep = None, 0
        while rep < wanted or (peer and first is not None and rep < bench.REPEAT_MIN
                                and first < bench.REPEAT_BELOW_S * 1e3):
            rows.append(run_peer(variant, net, rep, **fields) if peer else run_ours(variant, net, rep, **fields))
            first = rows[-1]["total_ms"] if first is None else first
            rep += 1
    return verify(rows)


def _case(label, family, params, make, variants, reps, seed, peer_reps=1, check=None, **extra):
    def run():
        return measure(family, params, make(), variants, reps, seed, min(reps, peer_reps), **extra)
    return Case(label, run, _check(check, variants))


def _check(check_instance, variants, **options):
    """A case's check (:class:`gpualgo.bench.Case`): ``check_instance`` (its generator's check,
    which refuses the network's host memory), then :func:`gpualgo.maxflow.solve.check` for each
    of ``variants`` that is one of ours (with ``options``; the CPU peers have no refusal)."""
    def check():
        check_instance()
        for v in variants:
            if v not in PEERS:
                check_solve(v, **options)
    return check


# ----------------------------------------------------------------------------- report

def _report_cases(p):
    reps = int(p["reps"])
    seed = p["seed"]
    variants = [v for v in p["variants"] if p["gpu"] or not v.startswith("gpu_")]
    nd = p["density_n"]          # the cheap sweep first, then sizes in increasing order
    for dens in p["densities"]:
        yield _case(f"density {dens}", "gnp", dict(density=dens, directed=True),
                    lambda d=dens: instances.random_gnp(nd, d, seed=seed, low=p["low"], high=p["high"]),
                    ["scipy_dinic"] + variants, reps, seed, p["peer_reps"], experiment="density",
                    check=lambda d=dens: instances.check_random_gnp(nd, d, low=p["low"], high=p["high"]))
    for n in p["sizes"]:
        for directed in (True, False):
            use = [v for v in variants
                   if not (v == "serial" and n > p["serial_max"]) and not (v == "gpu_matrix" and n > p["matrix_max"])
                   and not (v == "gpu_bcsr" and n > p["bcsr_max"])]
            use = (["scipy_dinic"] if n <= p["scipy_max"] else []) + use
            dens = instances.report_density(n)
            yield _case(f"{'directed' if directed else 'undirected'} n={n}", "gnp", dict(density=dens, directed=directed),
                        lambda n=n, d=dens, di=directed: instances.random_gnp(n, d, seed=seed, low=p["low"], high=p["high"],
                                                                              directed=di),
                        use, reps, seed, p["peer_reps"], experiment="size",
                        check=lambda n=n, d=dens, di=directed: instances.check_random_gnp(n, d, low=p["low"],
                                                                                          high=p["high"], directed=di))


# ------------------------------------------------------------------------------ peers

def caps_of(p: dict) -> dict:
    """{variant: largest n} from a preset's ``cap_<variant>`` parameters."""
    return {k[4:]: v for k, v in p.items() if k.startswith("cap_")}


#: family -> (its generator, the generator's check), each taking the two numbers of a size
_FAMILIES = {"genrmf": (instances.genrmf, instances.check_genrmf),
             "washington": (instances.washington_rlg, instances.check_washington_rlg),
             "grid": (instances.vision_grid, instances.check_vision_grid)}


def _family(family: str):
    if family not in _FAMILIES:
        raise ValueError(f"unknown family {family!r}")
    return _FAMILIES[family]


def family_instance(family: str, size, seed):
    """genrmf (a, b), washington (rows, levels) or grid (height, width)."""
    return _family(family)[0](size[0], size[1], seed=seed)


def check_family(family: str, size) -> tuple[int, int]:
    """The refusals :func:`family_instance` would make (its generator's check), drawing nothing;
    returns the network's ``(n, arcs)``."""
    return _family(family)[1](size[0], size[1])


def _size_n(family, size):
    return size[0] * size[1] * (1 if family == "grid" or family == "washington" else size[0]) + \
        (2 if family != "genrmf" else 0)


def _peers_cases(p):
    reps = int(p["reps"])
    seed = p["seed"]
    caps = caps_of(p)
    every = [v for v in list(p["variants"]) + [x for x in PEERS if peer_available(x)]
             if p["gpu"] or not v.startswith("gpu_")]
    for family in ("genrmf", "washington", "grid"):
        for size in map(parse_size, p[family]):
            n = _size_n(family, size)
            use = [v for v in every if n <= caps.get(v, math.inf)]
            yield _case(f"{family} {size}", family, dict(size="x".join(map(str, size))),
                        lambda f=family, sz=tuple(size): family_instance(f, sz, seed), use, reps, seed,
                        p["peer_reps"], check=lambda f=family, sz=tuple(size): check_family(f, sz))


# ---------------------------------------------------------------------------- targets

def _targets_cases(p):
    seed = p["seed"]
    caps = caps_of(p)
    for size in p["sizes"]:
        a, b = parse_size(size)
        n = a * a * b
        use = ["gpu_vertex_centric"] + [x for x in PEERS if peer_available(x) and n <= caps.get(x, math.inf)]
        if not p["gpu"]:
            use = ["serial"] + use[1:]

        def run(a=a, b=b, use=use):
            net = instances.genrmf(a, b, seed=seed)
            rows = measure("genrmf", dict(size=f"{a}x{b}"), net, use, p["reps"], seed, p["peer_reps"])
            # the peers' solve calls alone (their graph building excluded), against our total
            best_peer, best_peer_name = min(((r["exec_ms"], r["variant"]) for r in rows if r["kind"] == "peer"),
                                            default=(math.nan, None))
            for r in rows:
                r["fastest_peer"] = best_peer_name
                r["fastest_peer_ms"] = best_peer
                r["speedup_vs_fastest_peer"] = best_peer / r["total_ms"]
                r["goal"] = "faster than the fastest peer" + (" and < 2100 ms" if (a, b) == (128, 128) else "")
            return rows
        yield Case(f"genrmf {a}x{b}", run, _check(lambda a=a, b=b: instances.check_genrmf(a, b), use))


# ----------------------------------------------------------------------------- tuning

#: the counters and options a tuning row keeps from the result's stats
_TUNING_STATS = ("tile", "block", "gr_alpha", "gr_max_iters", "gr_balance", "ops", "incremental", "early_stop",
                 "async_bfs", "block_bfs", "local_levels", "gr_ms", "pr_ms", "sweeps", "global_relabels", "bfs_levels",
                 "bfs_solo_levels", "bfs_expanded", "pushes", "relabels")


def _option_rows(net, family: str, size, configs, reps: int, seed) -> list[dict]:
    """The vertex-centric version on ``net`` with each option set of ``configs`` in turn, ``reps``
    times over: a row a run, with its options (``config``, written out in full), the counters of
    :data:`_TUNING_STATS` and the launch, certified (:func:`certified`)."""
    for tile, block in sorted({(c.get("tile", default_tile(net)), c.get("block", BLOCK)) for c in configs}):
        warm("gpu_vertex_centric", net, tile=tile, block=block)
    rows = []
    for rep in range(int(reps)):
        for opts in configs:
            r = solve(net, "gpu_vertex_centric", **opts)
            s = r.stats
            row = bench.row(r, rep=rep, verified=certified(r), algorithm="maxflow", family=family,
                            size=f"{size[0]}x{size[1]}", n=net.n,
                            config=",".join(f"{k}={v}" for k, v in opts.items()), seed=seed)
            row.update({k: s[k] for k in _TUNING_STATS})
            row.update(blocks=s["launch"]["blocks"], blocks_per_sm=s["launch"]["blocks_per_sm"])
            rows.append(row)
            print({k: (round(v, 1) if isinstance(v, float) else v) for k, v in row.items()
                   if k not in ("algorithm", "family", "variant", "device", "seed")})
    return rows


def _tuning_cases(p):
    seed = p["seed"]
    configs = [parse_options(c) for c in p["configs"]]
    for size in p["sizes"]:
        def run(size=parse_size(size)):
            return _option_rows(instances.genrmf(size[0], size[1], seed=seed), "genrmf", size, configs, p["reps"], seed)

        def check(size=parse_size(size)):
            instances.check_genrmf(size[0], size[1])
            for opts in configs:
                check_solve("gpu_vertex_centric", **opts)
        yield Case(f"tuning genrmf {size}", run, check)


def _local_levels_cases(p):
    seed = p["seed"]
    configs = [dict(local_levels=int(k)) for k in p["levels"]]
    for item in p["instances"]:
        family, size = item.split()
        size = parse_size(size)

        def run(family=family, size=size):
            return _option_rows(family_instance(family, size, seed), family, size, configs, p["reps"], seed)

        def check(family=family, size=size):
            check_family(family, size)
            for opts in configs:
                check_solve("gpu_vertex_centric", **opts)
        yield Case(f"local_levels {item}", run, check)


# ----------------------------------------------------------------------------- levels

#: the frontier widths the ``levels`` preset groups BFS levels by: (lowest, highest) vertices
LEVEL_BUCKETS = ((1, 64), (65, 256), (257, 1024), (1025, 4096), (4097, 16384), (16385, 65536), (65537, 2**31 - 1))


def level_rows(result, **fields) -> list[dict]:
    """The rows of one timed run (``time_levels=True``): per frontier bucket of
    :data:`LEVEL_BUCKETS` that holds a level, how many levels (``levels``, ``share`` of those
    timed), their time (``ms``) and the median and mean microseconds of one (``median_us``,
    ``mean_us``); each row also carries the run's times and counters and ``fields``."""
    import numpy as np
    s = result.stats
    width, us = s["level_frontier"], s["level_us"]
    base = bench.row(result, **fields)
    base.update(gr_ms=s["gr_ms"], pr_ms=s["pr_ms"], bfs_levels=s["bfs_levels"], global_relabels=s["global_relabels"],
                levels_timed=s["levels_timed"], levels_clocked=s["levels_clocked"],
                tiles=s["launch"]["blocks"] * s["launch"]["threads"] // s["tile"])
    rows = []
    for lo, hi in LEVEL_BUCKETS:
        sel = us[(width >= lo) & (width <= hi)]
        if sel.size:
            rows.append(dict(base, frontier_lo=lo, frontier_hi=hi, levels=int(sel.size), share=sel.size / max(us.size, 1),
                             ms=float(sel.sum()) / 1e3, median_us=float(np.median(sel)), mean_us=float(sel.mean())))
    return rows


def _levels_cases(p):
    seed = p["seed"]
    for size in p["sizes"]:
        def run(size=parse_size(size)):
            from ..gpu import grid_barrier_us
            net = instances.genrmf(size[0], size[1], seed=seed)
            warm("gpu_vertex_centric", net, time_levels=True, local_levels=1)
            rows, barrier = [], None
            for rep in range(int(p["reps"])):
                r = solve(net, "gpu_vertex_centric", time_levels=True, local_levels=1)
                if barrier is None:  # a bare barrier with the solve's own launch
                    launch = r.stats["launch"]
                    barrier = grid_barrier_us(threads=launch["threads"], blocks_per_sm=launch["blocks_per_sm"])
                for row in level_rows(r, rep=rep, verified=certified(r), algorithm="maxflow", family="genrmf",
                                      size=f"{size[0]}x{size[1]}", n=net.n, seed=seed):
                    rows.append(dict(row, barrier_us=barrier))
            return rows
        yield Case(f"levels genrmf {size}", run, lambda size=parse_size(size): instances.check_genrmf(*size))


# -------------------------------------------------------------------------------- cpu

def _cpu_cases(p):
    reps = int(p["reps"])
    seed = p["seed"]
    use = ["serial"] + [x for x in PEERS if peer_available(x)]
    for family, size in [("genrmf", parse_size(s)) for s in p["genrmf"]] + [("grid", parse_size(s)) for s in p["grid"]]:
        n = _size_n(family, size)
        here = [v for v in use if n <= caps_of(p).get(v, math.inf)]
        yield _case(f"{family} {size}", family, dict(size="x".join(map(str, size))),
                    lambda f=family, sz=size: family_instance(f, sz, seed), here, reps, seed, reps,
                    check=lambda f=family, sz=size: check_family(f, sz))


# ---------------------------------------------------------------------- serial_heuristics

#: the serial version's heuristics in the ``serial_heuristics`` preset: label -> (global_relabel, gap)
HEURISTICS = {"global relabel + gap": (True, True), "global relabel": (True, False), "gap": (False, True),
              "none": (False, False)}


def _heuristics(n: int, plain_max: int) -> list:
    """``(label, (global_relabel, gap))`` of :data:`HEURISTICS` run on n vertices: those without
    the global relabel only up to ``plain_max``."""
    return [(label, (gr, gap)) for label, (gr, gap) in HEURISTICS.items() if gr or n <= plain_max]


def serial_heuristics_rows(net, reps: int, plain_max: int, scan_max: int, **fields) -> list[dict]:
    """The rows of one instance of ``serial_heuristics``, every one checked against scipy's
    value on the same network:

    - ``step="flow"``: the serial version with each set of :data:`HEURISTICS` (the columns
      ``heuristics``, ``global_relabel``, ``gap``), ``reps`` times; those without the global
      relabel only up to ``plain_max`` vertices. Counters: pushes, relabels, global relabels,
      gaps. ``verified``: the flow equals scipy's and its certificate holds.
    - ``step="cut"``: the minimum-cut step on its own (:func:`gpualgo.maxflow.serial.cut_steps`),
      ``variant`` ``cut_<method>``: from the heights, by the BFS on the transposed residual
      graph, and by the report's first search (a scan of every arc per vertex, only up to
      ``scan_max`` vertices); ``exec_ms`` the step (best of 3 calls), ``flow_ms`` the push-relabel
      run it read, ``objective`` the cut's capacity, ``verified`` when it equals scipy's flow.
    """
    ref = checks.reference_value(net)
    fields = dict(algorithm="maxflow", n=net.n, arcs=net.n_input_arcs, **fields)
    rows = []
    for label, (gr, gap) in _heuristics(net.n, plain_max):
        bench.warm_up(solve, instances.genrmf(2, 2, seed=0), ["serial"], global_relabel=gr, gap=gap)
        for rep in range(int(reps)):
            r = solve(net, "serial", global_relabel=gr, gap=gap)
            s = r.stats
            row = bench.row(r, rep=rep, verified=bool(r.flow_value == ref and certified(r)), step="flow",
                            heuristics=label, global_relabel=gr, gap=gap, **fields)
            row.update(pushes=s["pushes"], relabels=s["relabels"], global_relabels=s["global_relabels"],
                       gaps=s["gaps"], cut_ms=s["cut_ms"], reference_value=ref)
            rows.append(row)
    methods = [m for m in serial.CUT_METHODS if m != "scan" or net.n <= scan_max]
    for rep in range(int(reps)):
        steps = serial.cut_steps(net, methods)
        flow_ms, value = steps["flow"]
        for m in methods:
            ms, capacity = steps[m]
            rows.append(bench.peer_row(f"cut_{m}", capacity, ms, rep=rep, verified=bool(capacity == ref == value),
                                       device=cpu_label(), step="cut", heuristics="global relabel + gap",
                                       global_relabel=True, gap=True, **fields)
                        | dict(flow_ms=flow_ms, reference_value=ref))
    return rows


def _serial_heuristics_cases(p):
    seed = p["seed"]
    caps = dict(reps=int(p["reps"]), plain_max=int(p["plain_max"]), scan_max=int(p["scan_max"]))

    def case(label, make, check_instance, **fields):
        def check():
            n, arcs = check_instance()
            for _, (gr, gap) in _heuristics(n, caps["plain_max"]):
                check_solve("serial", n=n, arcs=arcs, global_relabel=gr, gap=gap)
        return Case(label, lambda: serial_heuristics_rows(make(), seed=seed, **caps, **fields), check)

    for n in p["sizes"]:
        for directed in (True, False):
            d = instances.report_density(n)
            yield case(f"{'directed' if directed else 'undirected'} n={n}",
                       lambda n=n, d=d, di=directed: instances.random_gnp(n, d, seed=seed, directed=di),
                       lambda n=n, d=d, di=directed: instances.check_random_gnp(n, d, directed=di),
                       family="gnp", experiment="size", density=d, directed=directed, size=None)
    nd = p["density_n"]
    for dens in p["densities"]:
        yield case(f"density {dens}", lambda d=dens: instances.random_gnp(nd, d, seed=seed),
                   lambda d=dens: instances.check_random_gnp(nd, d),
                   family="gnp", experiment="density", density=dens, directed=True, size=None)
    for size in p["genrmf"]:
        a, b = parse_size(size)
        yield case(f"genrmf {size}", lambda a=a, b=b: instances.genrmf(a, b, seed=seed),
                   lambda a=a, b=b: instances.check_genrmf(a, b),
                   family="genrmf", experiment="genrmf", density=None, directed=True, size=f"{a}x{b}")


# --------------------------------------------- host_memory, reverse_arcs, matrix_large

def config_label(variant: str, options: dict) -> str:
    """A configuration's name in the ``config`` column: ``"gpu_bcsr upload=pinned,relabel=host"``."""
    return " ".join([variant] + ([",".join(f"{k}={v}" for k, v in options.items())] if options else []))


def measure_configs(family: str, params: dict, net, configs, reps: int, seed, reference: bool = True,
                    **extra) -> list[dict]:
    """Each ``(variant, options)`` of ``configs`` on ``net``, ``reps`` times (rows with the
    columns ``config`` and the options' own, and :data:`SPLIT`'s times), then scipy's dinic once
    when ``reference``, and :func:`verify` the rows: every configuration against scipy."""
    rows = []
    fields = dict(algorithm="maxflow", family=family, n=net.n, arcs=net.n_input_arcs, seed=seed, **params, **extra)
    for variant, options in configs:
        warm(variant, net, **options)
        for rep in range(int(reps)):
            rows.append(run_ours(variant, net, rep, options=dict(options), kind="gpu",
                                 config=config_label(variant, options), **options, **fields))
    if reference:
        rows.append(run_peer("scipy_dinic", net, 0, kind="peer", config="scipy_dinic", **fields))
    return verify(rows)


def _configs(p, n):
    """The ``host_memory`` configurations at n vertices: (b) with every upload and both relabels,
    (a) with every upload up to ``matrix_max``."""
    out = [("gpu_bcsr", dict(upload=u, relabel="host")) for u in p["uploads"]]
    out += [("gpu_bcsr", dict(upload="auto", relabel="gpu"))]
    if n <= p["matrix_max"]:
        out += [("gpu_matrix", dict(upload=u)) for u in p["uploads"]]
    return out


def _gnp_case(p, label, n, configs, directed=True, **extra):
    """A case on the report's G(n, 2 ln n / n) (capacities low..high, seed), measured by
    :func:`measure_configs`."""
    d = instances.report_density(n)

    def make():
        return instances.random_gnp(n, d, seed=p["seed"], low=p["low"], high=p["high"], directed=directed)

    def run():
        return measure_configs("gnp", dict(density=d, directed=directed), make(), configs, p["reps"], p["seed"],
                               experiment="size", **extra)

    def check():
        instances.check_random_gnp(n, d, low=p["low"], high=p["high"], directed=directed)
        for variant, options in configs:
            check_solve(variant, **options)
    return Case(label, run, check)


def _host_memory_cases(p):
    for n in p["sizes"]:
        yield _gnp_case(p, f"directed n={n}", n, _configs(p, n))
    for size in p["genrmf"]:
        a, b = parse_size(size)
        configs = [("gpu_bcsr", dict(upload="auto", relabel=r)) for r in ("host", "gpu")]

        def run(a=a, b=b, configs=configs):
            return measure_configs("genrmf", dict(size=f"{a}x{b}"), instances.genrmf(a, b, seed=p["seed"]), configs,
                                   p["reps"], p["seed"], experiment="genrmf")
        yield Case(f"genrmf {size}", run, _check(lambda a=a, b=b: instances.check_genrmf(a, b), ["gpu_bcsr"]))


def _reverse_arcs_cases(p):
    configs = [("gpu_bcsr", dict(rev_search=r)) for r in p["searches"]]
    for n in p["sizes"]:
        for directed in (True, False):
            yield _gnp_case(p, f"{'directed' if directed else 'undirected'} n={n}", n, configs, directed)


def _matrix_large_cases(p):
    configs = [(v, {}) for v in ("gpu_matrix", "gpu_bcsr", "gpu_vertex_centric")]
    for n in p["sizes"]:
        yield _gnp_case(p, f"directed n={n}", n, configs)


#: the largest n each solver gets in ``peers`` and ``cpu`` (the genrmf 128 x 128 peers run in ``targets``)
PEER_CAPS = {"serial": 300_000, "gpu_matrix": 5_000, "gpu_bcsr": 300_000, "scipy_dinic": 300_000,
             "scipy_edmonds_karp": 20_000, "networkx_preflow_push": 20_000,
             "igraph": 1_100_000, "ortools": 1_100_000}

def _caps(table: dict, **changes) -> dict:
    """``cap_<variant>`` parameters from {variant: largest n}."""
    return {f"cap_{k}": int(v) for k, v in dict(table, **changes).items()}


_BASE = "tile=8,ops=32,blocks_per_sm=1,incremental=True,block=512"
_LEVELS = "async_bfs=False,early_stop=True"
_DEF = "gr_alpha=0.1,gr_max_iters=150"
_ONCE = "gr_alpha=100.0,gr_max_iters=1000000"     # the relabel frequency left to gr_balance alone
#: the ``tuning`` preset's configurations, the defaults first: when to relabel, the BFS's levels
#: a block runs between grid barriers (local_levels; 1: the BFS by levels), the BFS by levels
#: with and without the early stop against the asynchronous one and with its narrow levels run
#: by one block (block_bfs), the block size, the sweep's options, and last the report's sweep
#: (one push or relabel, a full scan)
TUNING_CONFIGS = [f"{_BASE},{c}" for c in (
    f"{_LEVELS},{_DEF}",
    f"{_LEVELS},{_DEF},local_levels=1",
    f"{_LEVELS},{_DEF},local_levels=4",
    f"{_LEVELS},{_DEF},local_levels=16",
    f"{_LEVELS},gr_alpha=0.1,gr_max_iters=200",
    f"{_LEVELS},gr_alpha=0.2,gr_max_iters=100",
    f"{_LEVELS},gr_alpha=0.2,gr_max_iters=150",
    f"{_LEVELS},gr_alpha=0.2,gr_max_iters=300",     # the earlier defaults
    f"async_bfs=False,early_stop=False,{_DEF}",
    f"async_bfs=True,{_DEF}",
    f"async_bfs=True,{_ONCE},gr_balance=1.0",
    f"{_LEVELS},{_ONCE},gr_balance=1.0",
    f"{_LEVELS},{_DEF},local_levels=1,block_bfs=128",
    f"{_LEVELS},{_DEF},local_levels=1,block_bfs=256",
    f"{_LEVELS},{_DEF},local_levels=1,block_bfs=1024",
)] + [f"{c},{_LEVELS},{_DEF}" for c in (
    "tile=8,ops=32,blocks_per_sm=1,incremental=True,block=1024",
    "tile=8,ops=32,blocks_per_sm=1,incremental=True,block=256",     # the default before 512
    "tile=8,ops=8,blocks_per_sm=1,incremental=True,block=512",
    "tile=4,ops=32,blocks_per_sm=1,incremental=True,block=512",
    "tile=8,ops=32,blocks_per_sm=2,incremental=True,block=256",     # two blocks of 512 do not fit an SM
)] + [f"tile=8,ops=1,blocks_per_sm=1,incremental=False,block=512,async_bfs=False,early_stop=False,{_DEF}"]

PRESETS = {
    "report": Preset(
        description="the report's sweeps: time vs vertices for directed and undirected G(n, 2 ln n / n), "
                    "and n = 1000 with density 0.1..1.0; every version where it fits; prepare/exec/total",
        params=dict(variants=list(VARIANTS), gpu=True,
                    sizes=[100, 316, 1000, 3162, 10000, 31623, 100000, 316228],
                    serial_max=31623, matrix_max=3162, bcsr_max=100000, scipy_max=100000,
                    density_n=1000, densities=[round(0.1 * k, 1) for k in range(1, 11)],
                    low=1, high=100, reps=10, peer_reps=3, seed=7),
        cases=_report_cases, needs_gpu=True, seeds=[7],
        quick=dict(sizes=[50, 200], density_n=60, densities=[0.1, 1.0], reps=1, peer_reps=1)),
    "peers": Preset(
        description="genrmf, Washington RLG and vision grids up to millions of vertices: GPU versions and "
                    "serial against scipy, networkx, igraph and OR-tools, each up to its size cap",
        params=dict(variants=["serial", "gpu_bcsr", "gpu_vertex_centric"], gpu=True,
                    genrmf=["16x16", "32x32", "64x64", "128x128"],
                    washington=["256x256", "1024x1024", "2048x1024"],
                    grid=["256x256", "1024x1024", "1448x1448"],
                    **_caps(PEER_CAPS, scipy_dinic=70_000, gpu_bcsr=70_000), reps=3, peer_reps=1, seed=1),
        cases=_peers_cases, needs_gpu=True, seeds=[1],
        quick=dict(genrmf=["4x4", "6x6"], washington=["16x16"], grid=["16x16"], reps=1)),
    "targets": Preset(
        description="genrmf 64x64 and 128x128: vertex-centric GPU against every CPU peer in the same run "
                    "(goal: faster than the fastest, and < 2.1 s at 128x128)",
        params=dict(sizes=["64x64", "128x128"], reps=3, peer_reps=1, gpu=True,
                    **_caps(dict(scipy_dinic=300_000, scipy_edmonds_karp=0, networkx_preflow_push=0,
                                 igraph=3_000_000, ortools=3_000_000)), seed=1),
        cases=_targets_cases, needs_gpu=True, seeds=[1],
        quick=dict(sizes=["4x4", "5x5"], reps=1, peer_reps=1)),
    "tuning": Preset(
        description="vertex-centric options on genrmf (solve's options: async_bfs, block, gr_balance, "
                    "gr_max_iters, early_stop, blocks_per_sm, ops, tile, incremental), each configuration "
                    "written out in full so that the rows keep their meaning when the defaults change",
        params=dict(sizes=["64x64", "128x128"], reps=2, configs=TUNING_CONFIGS, seed=1),
        cases=_tuning_cases, needs_gpu=True, seeds=[1],
        quick=dict(sizes=["4x4"], reps=1, configs=["tile=4,ops=4,blocks_per_sm=1,async_bfs=True"])),
    "local_levels": Preset(
        description="the vertex-centric version's BFS with 1 (by levels), 4, 6, 8 and 16 levels a block between "
                    "grid barriers, on genrmf, Washington RLG and a vision grid: the evidence for the default "
                    "(gpu.LOCAL_LEVELS)",
        params=dict(instances=["genrmf 128x128", "genrmf 96x80", "washington 512x512", "washington 1024x1024",
                               "grid 1024x1024"], levels=[1, 4, 6, 8, 16], reps=2, seed=1),
        cases=_local_levels_cases, needs_gpu=True, seeds=[1],
        quick=dict(instances=["genrmf 4x4", "washington 8x8"], levels=[1, LOCAL_LEVELS], reps=1)),
    "levels": Preset(
        description="the vertex-centric BFS on genrmf, every level timed on the GPU clock and grouped by the "
                    "frontier it expanded, beside a bare grid barrier measured in the same run",
        params=dict(sizes=["64x64", "128x128"], reps=2, seed=1),
        cases=_levels_cases, needs_gpu=True, seeds=[1],
        quick=dict(sizes=["8x8"], reps=1)),
    "cpu": Preset(
        description="serial push-relabel against the CPU peers on genrmf and grids (no GPU needed)",
        params=dict(genrmf=["8x8", "16x16"], grid=["64x64", "128x128"], **_caps(PEER_CAPS), reps=3, seed=1),
        cases=_cpu_cases, needs_gpu=False, seeds=[1],
        quick=dict(genrmf=["4x4"], grid=["12x12"], reps=1)),
    "serial_heuristics": Preset(
        description="serial push-relabel with and without the global relabel and the gap heuristic on the "
                    "report's G(n, p) and on genrmf, and the minimum-cut step timed on its own: from the heights, "
                    "by a BFS on the transposed residual graph, by the report's first search (no GPU needed)",
        params=dict(sizes=[100, 316, 1000, 3162, 10000], density_n=1000, densities=[0.1, 0.5, 1.0],
                    genrmf=["6x6", "8x8", "11x11", "16x16", "32x32"], plain_max=5000, scan_max=40000, reps=3,
                    seed=7),
        cases=_serial_heuristics_cases, needs_gpu=False, seeds=[7],
        quick=dict(sizes=[30, 60], density_n=40, densities=[0.5], genrmf=["3x3", "4x4"], reps=1)),
    "host_memory": Preset(
        description="versions (a) and (b) with the network uploaded from pageable, page-locked (pinned) and mapped "
                    "(zero-copy) host memory, and the default: setup / transfer / execution, on the report's directed "
                    "G(n, 2 ln n / n); and (b) with its global relabel on the host and on the GPU, there and on genrmf",
        params=dict(sizes=[100, 316, 1000, 3162, 10000, 31623, 100000], matrix_max=1000,
                    uploads=list(UPLOADS), genrmf=["16x16", "32x32"], low=1, high=100, reps=3, seed=7),
        cases=_host_memory_cases, needs_gpu=True, seeds=[7],
        quick=dict(sizes=[50, 200], matrix_max=60, genrmf=["4x4"], reps=1)),
    "reverse_arcs": Preset(
        description="version (b) with the reverse arc of a push found by the stored index and by the report's "
                    "linear scan and binary search (REV_SEARCH), on the report's G(n, 2 ln n / n)",
        params=dict(sizes=[100, 316, 1000, 3162, 10000, 31623, 100000], searches=list(REV_SEARCH), low=1, high=100,
                    reps=3, seed=7),
        cases=_reverse_arcs_cases, needs_gpu=True, seeds=[7],
        quick=dict(sizes=[50, 200], reps=1)),
    "matrix_large": Preset(
        description="the matrix version against BCSR and vertex-centric at n = 10,000 and 31,623 (directed "
                    "G(n, 2 ln n / n)), up to where the report's GPU ran out of memory; each checked against scipy",
        params=dict(sizes=[10000, 31623], low=1, high=100, reps=3, seed=7),
        cases=_matrix_large_cases, needs_gpu=True, seeds=[7],
        quick=dict(sizes=[60, 200], reps=1)),
}
