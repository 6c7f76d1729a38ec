"""The CPU solvers people pick, compared against in the notebooks and benchmarks.

They are optional: ``pip install -e '.[peers]'`` installs lap, OR-tools and igraph
(``make run`` and ``make test`` do); python-tsp is added by hand (see :data:`PEERS`).  Every caller goes through :func:`load`, so a missing peer is a
sentence in the notebook, never an ImportError that stops it.

>>> from gpualgo import peers
>>> peers.load("no_such_peer")
Traceback (most recent call last):
...
ValueError: unknown peer 'no_such_peer'; known: ['igraph', 'lap', 'ortools_graph', 'ortools_routing', 'python_tsp']
"""
from __future__ import annotations

import importlib

import numpy as np

__all__ = ["PEERS", "load", "available", "missing_text", "note", "scipy_assignment", "lap_assignment",
           "python_tsp_tour", "ortools_tour"]

#: peer name -> (module to import, pip requirement, what it is used for)
PEERS = {
    "lap": ("lap", "lap", "Jonker-Volgenant assignment (lap.lapjv)"),
    "ortools_graph": ("ortools.graph.python.max_flow", "ortools",
                      "OR-tools max flow (SimpleMaxFlow)"),
    "ortools_routing": ("ortools.constraint_solver.pywrapcp", "ortools",
                        "OR-tools routing (TSP heuristic)"),
    "igraph": ("igraph", "igraph", "python-igraph max flow (Graph.maxflow)"),
    # not in the peers extra: its tsplib95 dependency pins networkx below 3, and its exact
    # solver needs only numpy, so it is installed without its dependencies
    "python_tsp": ("python_tsp.exact", "--no-deps python-tsp",
                   "python-tsp dynamic programming (pure Python)"),
}

#: pip requirements of the ``peers`` extra (pyproject.toml), which installs them all at once
_IN_PEERS_EXTRA = {"lap", "ortools", "igraph"}


def _entry(name: str):
    if name not in PEERS:
        raise ValueError(f"unknown peer {name!r}; known: {sorted(PEERS)}")
    return PEERS[name]


def load(name: str):
    """The peer's module, or None when it is not installed (see :func:`missing_text`)."""
    module, _, _ = _entry(name)
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def available(name: str) -> bool:
    """True when :func:`load` finds the peer."""
    return load(name) is not None


def missing_text(name: str) -> str:
    """One sentence: which package is missing and how to install it."""
    _, pip_name, what = _entry(name)
    extra = " (or `pip install -e '.[peers]'`, all the peers)" if pip_name in _IN_PEERS_EXTRA else ""
    return (f"{what} is not installed here, so it is left out of this comparison: "
            f"`pip install {pip_name}`{extra} adds it.")


def note(name: str):
    """The module when installed; else print :func:`missing_text` and return None.

    For notebook cells: ``lap = peers.note("lap")`` then ``if lap: ...``.
    """
    mod = load(name)
    if mod is None:
        print(missing_text(name))
    return mod


# The calls of the peers, one function each, taking plain arrays (no problem's own types,
# so that this module stays below the problem packages). Each returns None when its peer is
# not installed.

# ----------------------------------------------------------------------------- assignment

def scipy_assignment(B):
    """scipy's ``linear_sum_assignment`` (a shortest augmenting path method; scipy is a
    dependency, so always there) on the dense benefits ``B`` (m x n, m <= n), maximised.
    Returns the object of each person (int64, length m), as :func:`lap_assignment` does."""
    from scipy.optimize import linear_sum_assignment
    B = np.asarray(B)
    rows, cols = linear_sum_assignment(B, maximize=True)
    x = np.empty(B.shape[0], dtype=np.int64)
    x[rows] = cols
    return x


def lap_assignment(B):
    """lap's Jonker-Volgenant (``lap.lapjv``) on the dense benefits ``B`` (m x n, m <= n),
    maximised: lap minimises, so it is given ``max(B) - B``. Returns the object of each
    person (int64, length m), or None when lap is not installed."""
    lap = load("lap")
    if lap is None:
        return None
    B = np.asarray(B)
    _, x, _ = lap.lapjv((B.max() - B).astype(np.float64), extend_cost=B.shape[0] != B.shape[1])
    return np.asarray(x[:B.shape[0]], dtype=np.int64)

# ------------------------------------------------------------------------------- max flow

# Each takes the arcs as plain arrays (``tails``, ``heads``, ``capacities``: one entry per arc,
# parallel arcs allowed) on vertices ``0..n-1``, and returns the maximum flow value from
# ``source`` to ``sink`` as an int. With ``times`` (a dict), each fills in ``build_ms`` (building
# the library's graph) and ``solve_ms`` (its max-flow call).

def _timed(times, build, solve):
    """``solve(build())``, timing both parts into ``times`` when it is a dict."""
    import time
    t0 = time.perf_counter()
    graph = build()
    t1 = time.perf_counter()
    value = solve(graph)
    t2 = time.perf_counter()
    if times is not None:
        times.update(build_ms=(t1 - t0) * 1e3, solve_ms=(t2 - t1) * 1e3)
    return int(round(value))


def scipy_max_flow(n, tails, heads, capacities, source, sink, method="dinic", times=None) -> int:
    """``scipy.sparse.csgraph.maximum_flow`` (``method``: ``"dinic"`` or ``"edmonds_karp"``).

    scipy works in int32: ValueError when a capacity, or the total leaving the source, is
    above 2**31 - 1.
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import maximum_flow
    u, v = np.asarray(tails, dtype=np.int64), np.asarray(heads, dtype=np.int64)
    c = np.asarray(capacities, dtype=np.int64)
    limit = 2**31 - 1
    if c.size and (int(c.max()) > limit or int(c[u == source].sum()) > limit):
        raise ValueError("scipy's maximum_flow works in int32: these capacities are too large")

    def build():
        return sp.csr_array((c.astype(np.int32), (u, v)), shape=(n, n))
    return _timed(times, build, lambda g: maximum_flow(g, source, sink, method=method).flow_value)


def networkx_max_flow(n, tails, heads, capacities, source, sink, times=None) -> int:
    """networkx's ``preflow_push`` (pure Python), value only."""
    import networkx as nx
    # a DiGraph keeps one edge per pair: parallel arcs are merged first (capacities added)
    u, v = np.asarray(tails, dtype=np.int64), np.asarray(heads, dtype=np.int64)
    keys, inverse = np.unique(u * n + v, return_inverse=True)
    caps = np.zeros(keys.size, dtype=np.int64)
    np.add.at(caps, inverse, np.asarray(capacities, dtype=np.int64))

    def build():
        g = nx.DiGraph()
        g.add_nodes_from(range(n))
        g.add_weighted_edges_from(zip((keys // n).tolist(), (keys % n).tolist(), caps.tolist()), weight="capacity")
        return g
    return _timed(times, build, lambda g: nx.algorithms.flow.preflow_push(
        g, source, sink, capacity="capacity", value_only=True).graph["flow_value"])


def igraph_max_flow(n, tails, heads, capacities, source, sink, times=None) -> int | None:
    """python-igraph's ``Graph.maxflow_value``; None when igraph is not installed."""
    ig = load("igraph")
    if ig is None:
        return None
    caps = np.asarray(capacities).tolist()
    return _timed(times, lambda: ig.Graph(n=n, edges=np.c_[tails, heads], directed=True),
                  lambda g: g.maxflow_value(source, sink, capacity=caps))


def ortools_max_flow(n, tails, heads, capacities, source, sink, times=None) -> int | None:
    """OR-tools' ``SimpleMaxFlow``; None when OR-tools is not installed. RuntimeError when
    it does not report an optimal flow."""
    mf = load("ortools_graph")
    if mf is None:
        return None

    def build():
        smf = mf.SimpleMaxFlow()
        smf.add_arcs_with_capacity(np.asarray(tails, dtype=np.int64), np.asarray(heads, dtype=np.int64),
                                   np.asarray(capacities, dtype=np.int64))
        return smf

    def solve(smf):
        status = smf.solve(source, sink)
        if status != smf.OPTIMAL:
            raise RuntimeError(f"OR-tools SimpleMaxFlow returned status {status}")
        return smf.optimal_flow()
    return _timed(times, build, solve)


# ------------------------------------------------------------------------------------ TSP

def python_tsp_tour(D):
    """python-tsp's exact dynamic programme (``solve_tsp_dynamic_programming``, pure Python)
    on the distance matrix ``D`` (n x n, no missing edges). Returns ``(tour, length)``: the
    tour from city 0 (int64) and the length python-tsp reports; None when python-tsp is not
    installed."""
    mod = load("python_tsp")
    if mod is None:
        return None
    perm, length = mod.solve_tsp_dynamic_programming(np.asarray(D, dtype=np.float64))
    return np.asarray(perm, dtype=np.int64), length


def ortools_tour(D, time_limit_ms: int = 0):
    """OR-tools routing, the TSP heuristic people use, on the integer distance matrix ``D``
    (n x n, no missing edges).

    ``time_limit_ms=0``: a path-cheapest-arc first tour improved by local search until no move
    helps (a local optimum, fast); ``time_limit_ms > 0``: guided local search for that many
    milliseconds (closer to the optimum, never proven). Returns ``(tour, length)``: the tour
    from city 0 (int64) and the cost OR-tools reports; None when OR-tools is not installed.
    Raises RuntimeError when OR-tools finds no tour.
    """
    pywrapcp = load("ortools_routing")
    if pywrapcp is None:
        return None
    from ortools.constraint_solver import routing_enums_pb2 as enums
    D = np.asarray(D, dtype=np.int64)
    manager = pywrapcp.RoutingIndexManager(D.shape[0], 1, 0)
    model = pywrapcp.RoutingModel(manager)
    # a matrix registered in C++: no Python callback per arc, so the peer runs at full speed
    cost = model.RegisterTransitMatrix(D.tolist())
    model.SetArcCostEvaluatorOfAllVehicles(cost)
    params = pywrapcp.DefaultRoutingSearchParameters()
    params.first_solution_strategy = enums.FirstSolutionStrategy.PATH_CHEAPEST_ARC
    if time_limit_ms > 0:
        params.local_search_metaheuristic = enums.LocalSearchMetaheuristic.GUIDED_LOCAL_SEARCH
        params.time_limit.FromMilliseconds(int(time_limit_ms))
    else:
        params.local_search_metaheuristic = enums.LocalSearchMetaheuristic.GREEDY_DESCENT
    sol = model.SolveWithParameters(params)
    if sol is None:
        raise RuntimeError(f"OR-tools routing found no tour of these {D.shape[0]} cities")
    tour, index = [], model.Start(0)
    while not model.IsEnd(index):
        tour.append(manager.IndexToNode(index))
        index = sol.Value(model.NextVar(index))
    return np.asarray(tour, dtype=np.int64), sol.ObjectiveValue()
