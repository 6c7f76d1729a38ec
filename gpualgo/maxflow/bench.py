"""Max-flow benchmark presets for ``python -m gpualgo.bench maxflow --preset NAME``.

- ``report``: the source report's experiments: time against vertices (log-log) for
  directed and undirected G(n, 2 ln n / n) up to n = 100,000 and beyond, every version
  where it fits (serial only up to ``serial_max``, the matrix only up to ``matrix_max``),
  and n = 1000 with density 0.1 ... 1.0; ``reps`` repetitions; init / execution / total.
- ``peers``: genrmf, Washington RLG and vision-grid instances up to millions of vertices:
  our GPU versions and the serial one against scipy (dinic, edmonds_karp), networkx
  (preflow_push), python-igraph and OR-tools, each up to its size cap (``cap_<solver>``); time
  split into push/relabel sweeps and global relabels.
- ``targets``: genrmf a = b = 64 and a = b = 128, every peer in the same run, and the
  ratios of the vertex-centric version to the fastest CPU library.
- ``cpu``: serial against the CPU peers on small instances (no GPU needed).

Every preset takes ``quick`` (tiny sizes, for CI and headless notebooks). Every row is
verified: the flow value equals the case's reference (:func:`case_reference`: scipy dinic
where it ran, else the first peer's) and, for our versions, the returned (pre)flow is
feasible and the returned cut has the same capacity, which proves both optimal on its own
(``certified``).
"""
from __future__ import annotations

import importlib.metadata
import math
import time

import numpy as np

from .. import peers
from ..bench import Case, Preset
from . import checks, instances
from .solve import VARIANTS, solve

GPU_VARIANTS = tuple(v for v in VARIANTS if v.startswith("gpu_"))
PEERS = ("scipy_dinic", "scipy_edmonds_karp", "networkx_preflow_push", "igraph", "ortools")


# ------------------------------------------------------------------------------ peers

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


def run_peer(name: str, net) -> dict:
    """Solve ``net`` with a CPU library; returns value, init_ms (building its graph),
    exec_ms (the solve call) and total_ms."""
    u, v, c = net.arcs()
    t0 = time.perf_counter()
    if name.startswith("scipy_"):
        from scipy.sparse.csgraph import maximum_flow
        g = checks.scipy_matrix(net)
        t1 = time.perf_counter()
        value = maximum_flow(g, net.source, net.sink, method=name[len("scipy_"):]).flow_value
        version = _version("scipy")
    elif name == "networkx_preflow_push":
        import networkx as nx
        g = nx.DiGraph()
        g.add_nodes_from(range(net.n))
        g.add_weighted_edges_from(zip(u.tolist(), v.tolist(), c.tolist()), weight="capacity")
        t1 = time.perf_counter()
        r = nx.algorithms.flow.preflow_push(g, net.source, net.sink, capacity="capacity", value_only=True)
        value = r.graph["flow_value"]
        version = _version("networkx")
    elif name == "igraph":
        ig = peers.load("igraph")
        g = ig.Graph(n=net.n, edges=np.c_[u, v], directed=True)
        caps = c.tolist()
        t1 = time.perf_counter()
        value = g.maxflow_value(net.source, net.sink, capacity=caps)
        version = _version("igraph")
    elif name == "ortools":
        mf = peers.load("ortools_graph")
        smf = mf.SimpleMaxFlow()
        smf.add_arcs_with_capacity(u.astype(np.int64), v.astype(np.int64), c.astype(np.int64))
        t1 = time.perf_counter()
        status = smf.solve(net.source, net.sink)
        if status != smf.OPTIMAL:
            raise RuntimeError(f"OR-tools SimpleMaxFlow returned status {status}")
        value = smf.optimal_flow()
        version = _version("ortools")
    else:
        raise ValueError(f"unknown peer {name!r}; known: {PEERS}")
    t2 = time.perf_counter()
    return dict(flow_value=int(round(value)), init_ms=(t1 - t0) * 1e3, exec_ms=(t2 - t1) * 1e3,
                total_ms=(t2 - t0) * 1e3, device=f"CPU ({name} {version})")


# ---------------------------------------------------------------------------- a case

def _ours(variant, net, **opts) -> dict:
    r = solve(net, variant=variant, **opts)
    s = r.stats
    certified = True     # a feasible (pre)flow and a cut of the same value: both optimal
    try:
        checks.check_flow(net, r.flow, r.flow_value, preflow=r.is_preflow)
        checks.check_cut(net, r.source_side, r.flow_value)
    except ValueError as exc:
        print(f"WARNING: {variant}: {exc}")
        certified = False
    return dict(flow_value=r.flow_value, init_ms=s["init_ms"], exec_ms=s["exec_ms"], total_ms=s["total_ms"],
                gr_ms=s.get("gr_ms", math.nan), pr_ms=s.get("pr_ms", math.nan), pushes=s["pushes"],
                relabels=s["relabels"], global_relabels=s["global_relabels"], phases=s["phases"],
                sweeps=s.get("sweeps", 0), cap_dtype=s["cap_dtype"], device=s["device"], certified=certified)


def _warm(variant, net):
    # numba / NVRTC compilation outside the timed runs: the kernel module is built per
    # capacity type and, for the vertex-centric version, per tile width, so warm the ones
    # the case will use
    if variant in PEERS:
        return
    tiny = instances.genrmf(2, 2, seed=0)
    if not net.fits_int32():
        tiny = instances.vision_grid(2, 2, maxcap=2**40, seed=0)
    opts = {}
    if variant == "gpu_vertex_centric":
        from .maxflow_gpu import default_tile
        opts["tile"] = default_tile(net)
    solve(tiny, variant=variant, **opts)


def case_reference(rows: list[dict]):
    """The value every row of a case is checked against: scipy dinic's where it ran, else
    the first CPU peer's, else the first row's (ours, certified by its own flow and cut)."""
    for pick in (lambda r: r["solver"] == "scipy_dinic", lambda r: r["solver"] in PEERS, lambda r: True):
        for r in rows:
            if pick(r):
                return r["flow_value"]
    return None


def measure(family: str, params: dict, net, solvers, reps: int, seed, peer_reps: int | None = None,
            **extra) -> list[dict]:
    """Run each solver of ``solvers`` in turn on ``net``, ``reps`` times (the CPU peers
    ``peer_reps`` times, default ``reps``); rows with a ``verified`` column: the value equals
    :func:`case_reference` and, for ours, the cut is valid."""
    rows = []
    for solver in solvers:
        _warm(solver, net)
        for rep in range(peer_reps if solver in PEERS and peer_reps is not None else reps):
            row = run_peer(solver, net) if solver in PEERS else _ours(solver, net)
            row["verified"] = None
            row.update(algorithm="maxflow", family=family, solver=solver,
                       kind="peer" if solver in PEERS else ("gpu" if solver.startswith("gpu_") else "serial"),
                       n=net.n, arcs=net.n_input_arcs, reference_value=None, rep=rep, seed=seed, **params, **extra)
            rows.append(row)
    ref = case_reference(rows)
    for row in rows:
        row["reference_value"] = ref
        row["verified"] = bool(row["flow_value"] == ref and row.get("certified", True))
        if not row["verified"]:
            print(f"WARNING: {row['solver']} on {family} {params}: value {row['flow_value']}, reference {ref}, "
                  f"cut ok {row.get('certified')}")
    return rows


def _case(label, family, params, make, solvers, reps, seed, peer_reps=1, **extra):
    def run():
        return measure(family, params, make(), solvers, reps, seed, min(reps, peer_reps), **extra)
    return Case(label, run)


# ----------------------------------------------------------------------------- report

def _report_cases(p):
    q = p["quick"]
    reps = 1 if q else int(p["reps"])
    seed = p["seed"]
    sizes = [50, 200] if q else list(p["sizes"])
    variants = [v for v in p["variants"] if p["gpu"] or not v.startswith("gpu_")]
    nd = 60 if q else p["density_n"]          # the cheap sweep first, then sizes in increasing order
    for dens in ([0.1, 1.0] if q else p["densities"]):
        yield _case(f"density {dens}", "gnp", dict(density=dens, directed=True),
                    lambda d=dens: instances.random_gnp(nd, d, seed=seed, low=p["low"], high=p["high"]),
                    ["scipy_dinic"] + variants, reps, seed, p["peer_reps"], experiment="density")
    for n in sizes:
        for directed in (True, False):
            solvers = [v for v in variants
                       if not (v == "serial" and n > p["serial_max"]) and not (v == "gpu_matrix" and n > p["matrix_max"])
                       and not (v == "gpu_bcsr" and n > p["bcsr_max"])]
            solvers = (["scipy_dinic"] if n <= p["scipy_max"] else []) + solvers
            dens = instances.report_density(n)
            yield _case(f"{'directed' if directed else 'undirected'} n={n}", "gnp", dict(density=dens, directed=directed),
                        lambda n=n, d=dens, di=directed: instances.random_gnp(n, d, seed=seed, low=p["low"], high=p["high"],
                                                                              directed=di),
                        solvers, reps, seed, p["peer_reps"], experiment="size")


# ------------------------------------------------------------------------------ peers

def parse_size(text: str) -> tuple[int, int]:
    """'64x32' -> (64, 32): instance sizes are strings so that every preset parameter is a
    plain value or a list of plain values."""
    try:
        a, b = (int(x) for x in str(text).lower().split("x"))
    except ValueError:
        raise ValueError(f"a size is written AxB (e.g. 64x64), got {text!r}") from None
    return a, b


def caps_of(p: dict) -> dict:
    """{solver: largest n} from a preset's ``cap_<solver>`` parameters."""
    return {k[4:]: v for k, v in p.items() if k.startswith("cap_")}


def family_instance(family: str, size, seed):
    """genrmf (a, b), washington (rows, levels) or grid (height, width)."""
    if family == "genrmf":
        return instances.genrmf(size[0], size[1], seed=seed)
    if family == "washington":
        return instances.washington_rlg(size[0], size[1], seed=seed)
    if family == "grid":
        return instances.vision_grid(size[0], size[1], seed=seed)
    raise ValueError(f"unknown family {family!r}")


def _size_n(family, size):
    return size[0] * size[1] * (1 if family == "grid" or family == "washington" else size[0]) + \
        (2 if family != "genrmf" else 0)


def _peers_cases(p):
    q = p["quick"]
    reps = 1 if q else int(p["reps"])
    seed = p["seed"]
    fams = ({"genrmf": ["4x4", "6x6"], "washington": ["16x16"], "grid": ["16x16"]} if q else
            {f: p[f] for f in ("genrmf", "washington", "grid")})
    caps = caps_of(p)
    solvers_all = [s for s in list(p["variants"]) + [x for x in PEERS if peer_available(x)]
                   if p["gpu"] or not s.startswith("gpu_")]
    for family, sizes in fams.items():
        for size in map(parse_size, sizes):
            n = _size_n(family, size)
            solvers = [s for s in solvers_all if n <= caps.get(s, math.inf)]
            yield _case(f"{family} {size}", family, dict(size="x".join(map(str, size))),
                        lambda f=family, sz=tuple(size): family_instance(f, sz, seed), solvers, reps, seed,
                        p["peer_reps"])


# ---------------------------------------------------------------------------- targets

def _targets_cases(p):
    q = p["quick"]
    seed = p["seed"]
    caps = caps_of(p)
    for size in (["4x4", "5x5"] if q else p["sizes"]):
        a, b = parse_size(size)
        n = a * a * b
        solvers = ["gpu_vertex_centric"] + [x for x in PEERS if peer_available(x) and n <= caps.get(x, math.inf)]
        if not p["gpu"]:
            solvers = ["serial"] + solvers[1:]

        def run(a=a, b=b, solvers=solvers):
            net = instances.genrmf(a, b, seed=seed)
            rows = measure("genrmf", dict(size=f"{a}x{b}"), net, solvers, 1 if q else p["reps"], seed,
                           1 if q else p["peer_reps"])
            # the peers' solve calls alone (their graph building excluded), against our total
            best_peer, best_peer_name = min(((r["exec_ms"], r["solver"]) for r in rows if r["kind"] == "peer"),
                                            default=(math.nan, None))
            for r in rows:
                r["fastest_peer"] = best_peer_name
                r["fastest_peer_ms"] = best_peer
                r["speedup_vs_fastest_peer"] = best_peer / r["total_ms"]
                r["goal"] = "faster than the fastest peer" + (" and < 2100 ms" if (a, b) == (128, 128) else "")
            return rows
        yield Case(f"genrmf {a}x{b}", run)


# ----------------------------------------------------------------------------- tuning

def _tuning_cases(p):
    q = p["quick"]
    seed = p["seed"]
    for size in (["4x4"] if q else p["sizes"]):
        def run(size=parse_size(size)):
            net = instances.genrmf(size[0], size[1], seed=seed)
            _warm("gpu_vertex_centric", net)
            ref = None
            rows = []
            configs = [dict(tile=4, ops=4, blocks_per_sm=1, async_bfs=True)] if q else [_options(c) for c in p["configs"]]
            for opts, rep in [(o, r) for r in range(1 if q else int(p["reps"])) for o in configs]:
                t0 = time.perf_counter()
                r = solve(net, "gpu_vertex_centric", **opts)
                wall = (time.perf_counter() - t0) * 1e3
                ref = r.flow_value if ref is None else ref
                s = r.stats
                cut = checks.cut_capacity(net, r.source_side)
                row = dict(algorithm="maxflow", family="genrmf", size=f"{size[0]}x{size[1]}", n=net.n,
                           solver="gpu_vertex_centric", flow_value=r.flow_value, total_ms=wall)
                row.update({k: s[k] for k in ("tile", "block", "gr_alpha", "gr_max_iters", "gr_balance", "ops",
                                              "incremental", "early_stop", "async_bfs", "exec_ms", "gr_ms", "pr_ms",
                                              "sweeps", "global_relabels", "bfs_levels", "bfs_expanded",
                                              "pushes", "relabels", "device")})
                row.update(config=",".join(f"{k}={v}" for k, v in opts.items()), rep=rep,
                           blocks=s["launch"]["blocks"], blocks_per_sm=s["launch"]["blocks_per_sm"],
                           verified=r.flow_value == ref == cut, seed=seed)
                rows.append(row)
                print({k: (round(v, 1) if isinstance(v, float) else v) for k, v in row.items()
                       if k not in ("algorithm", "family", "solver", "device", "seed")})
            return rows
        yield Case(f"tuning genrmf {size}", run)


def _options(text: str) -> dict:
    """'ops=8,tile=4' -> {'ops': 8, 'tile': 4} (values as Python literals; '' is the defaults)."""
    import ast
    out = {}
    for item in filter(None, (t.strip() for t in str(text).split(","))):
        key, sep, val = item.partition("=")
        if not sep:
            raise ValueError(f"a tuning configuration is KEY=VALUE,...; got {text!r}")
        out[key.strip()] = ast.literal_eval(val.strip())
    return out


# -------------------------------------------------------------------------------- cpu

def _cpu_cases(p):
    q = p["quick"]
    reps = 1 if q else int(p["reps"])
    seed = p["seed"]
    solvers = ["serial"] + [x for x in PEERS if peer_available(x)]
    for family, size in ([("genrmf", (4, 4)), ("grid", (12, 12))] if q else
                         [("genrmf", parse_size(s)) for s in p["genrmf"]] + [("grid", parse_size(s)) for s in p["grid"]]):
        n = _size_n(family, size)
        use = [s for s in solvers if n <= caps_of(p).get(s, math.inf)]
        yield _case(f"{family} {size}", family, dict(size="x".join(map(str, size))),
                    lambda f=family, sz=size: family_instance(f, sz, seed), use, reps, seed, reps)


#: the largest n each solver gets in ``peers`` and ``cpu`` (the genrmf 128 x 128 peers run in ``targets``)
PEER_CAPS = {"serial": 300_000, "gpu_matrix": 5_000, "gpu_bcsr": 300_000, "scipy_dinic": 300_000,
             "scipy_edmonds_karp": 20_000, "networkx_preflow_push": 20_000,
             "igraph": 1_100_000, "ortools": 1_100_000}

def _caps(table: dict, **changes) -> dict:
    """``cap_<solver>`` parameters from {solver: largest n}."""
    return {f"cap_{k}": int(v) for k, v in dict(table, **changes).items()}


_BASE = "tile=8,ops=32,blocks_per_sm=1,incremental=True,block=256"
_LEVELS = "async_bfs=False,early_stop=True"
_DEF = "gr_alpha=0.1,gr_max_iters=150"
_ONCE = "gr_alpha=100.0,gr_max_iters=1000000"     # the relabel frequency left to gr_balance alone
#: the ``tuning`` preset's configurations, the defaults first: when to relabel, the BFS by
#: levels with and without the early stop against the asynchronous one, the block size, the
#: sweep's options, and last the report's sweep (one push or relabel, a full scan)
TUNING_CONFIGS = [f"{_BASE},{c}" for c in (
    f"{_LEVELS},{_DEF}",
    f"{_LEVELS},gr_alpha=0.1,gr_max_iters=200",
    f"{_LEVELS},gr_alpha=0.2,gr_max_iters=100",
    f"{_LEVELS},gr_alpha=0.2,gr_max_iters=150",
    f"{_LEVELS},gr_alpha=0.2,gr_max_iters=300",     # the earlier defaults
    f"async_bfs=False,early_stop=False,{_DEF}",
    f"async_bfs=True,{_DEF}",
    f"async_bfs=True,{_ONCE},gr_balance=1.0",
    f"{_LEVELS},{_ONCE},gr_balance=1.0",
)] + [f"{c},{_LEVELS},{_DEF}" for c in (
    "tile=8,ops=32,blocks_per_sm=1,incremental=True,block=1024",
    "tile=8,ops=8,blocks_per_sm=1,incremental=True,block=256",
    "tile=4,ops=32,blocks_per_sm=1,incremental=True,block=256",
    "tile=8,ops=32,blocks_per_sm=2,incremental=True,block=256",
)] + [f"tile=8,ops=1,blocks_per_sm=1,incremental=False,block=256,async_bfs=False,early_stop=False,{_DEF}"]

PRESETS = {
    "report": Preset(
        description="the report's sweeps: time vs vertices for directed and undirected G(n, 2 ln n / n), "
                    "and n = 1000 with density 0.1..1.0; every version where it fits; init/exec/total",
        params=dict(variants=list(VARIANTS), gpu=True,
                    sizes=[100, 316, 1000, 3162, 10000, 31623, 100000, 316228],
                    serial_max=31623, matrix_max=3162, bcsr_max=100000, scipy_max=100000,
                    density_n=1000, densities=[round(0.1 * k, 1) for k in range(1, 11)],
                    low=1, high=100, reps=10, peer_reps=3, seed=7),
        cases=_report_cases, needs_gpu=True, seeds=[7]),
    "peers": Preset(
        description="genrmf, Washington RLG and vision grids up to millions of vertices: GPU versions and "
                    "serial against scipy, networkx, igraph and OR-tools, each up to its size cap",
        params=dict(variants=["serial", "gpu_bcsr", "gpu_vertex_centric"], gpu=True,
                    genrmf=["16x16", "32x32", "64x64", "128x128"],
                    washington=["256x256", "1024x1024", "2048x1024"],
                    grid=["256x256", "1024x1024", "1448x1448"],
                    **_caps(PEER_CAPS, scipy_dinic=70_000, gpu_bcsr=70_000), reps=3, peer_reps=1, seed=1),
        cases=_peers_cases, needs_gpu=True, seeds=[1]),
    "targets": Preset(
        description="genrmf 64x64 and 128x128: vertex-centric GPU against every CPU peer in the same run "
                    "(goal: faster than the fastest, and < 2.1 s at 128x128)",
        params=dict(sizes=["64x64", "128x128"], reps=3, peer_reps=1, gpu=True,
                    **_caps(dict(scipy_dinic=300_000, scipy_edmonds_karp=0, networkx_preflow_push=0,
                                 igraph=3_000_000, ortools=3_000_000)), seed=1),
        cases=_targets_cases, needs_gpu=True, seeds=[1]),
    "tuning": Preset(
        description="vertex-centric options on genrmf (solve's options: async_bfs, block, gr_balance, "
                    "gr_max_iters, early_stop, blocks_per_sm, ops, tile, incremental), each configuration "
                    "written out in full so that the rows keep their meaning when the defaults change",
        params=dict(sizes=["64x64", "128x128"], reps=2, configs=TUNING_CONFIGS, seed=1),
        cases=_tuning_cases, needs_gpu=True, seeds=[1]),
    "cpu": Preset(
        description="serial push-relabel against the CPU peers on genrmf and grids (no GPU needed)",
        params=dict(genrmf=["8x8", "16x16"], grid=["64x64", "128x128"], **_caps(PEER_CAPS), reps=3, seed=1),
        cases=_cpu_cases, needs_gpu=False, seeds=[1]),
}
