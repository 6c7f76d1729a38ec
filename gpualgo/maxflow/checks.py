"""Checks that share no code with our solvers, and the scipy reference.

- :func:`check_flow`: capacities, antisymmetry and conservation of a (pre)flow.
- :func:`check_cut`: the cut separates source from sink and its capacity equals the flow.
- :func:`certify`: both on a solver's result: a feasible (pre)flow and a cut of the same
  capacity prove each other optimal (max-flow / min-cut duality), with no reference solver.
- :func:`reference_value`: the value from ``scipy.sparse.csgraph.maximum_flow`` (networkx's
  ``preflow_push`` for capacities beyond scipy's int32).
- :func:`check_result`: all of it on a result, in one sentence (what the notebook prints).
"""
from __future__ import annotations

import numpy as np

from .. import peers
from .network import INT32_MAX, MAX_CAPACITY, FlowNetwork

__all__ = ["check_flow", "check_cut", "cut_capacity", "certify", "reference_value", "check_result",
           "scipy_matrix", "residual_source_side"]


def check_flow(net: FlowNetwork, flow, value: int | None = None, preflow: bool = False) -> int:
    """Check a flow given as the net flow on every stored arc; return its value.

    Requires ``flow[a] == -flow[rev[a]]``, ``flow[a] <= capacity[a]``, and at every vertex
    other than source and sink a zero balance (``preflow=True``: inflow >= outflow, as a
    preflow at the end of push-relabel's first phase leaves it). The value is the net
    flow into the sink; with ``value`` given it must match.

    Raises ValueError naming the first violation.
    """
    f = np.asarray(flow)
    if f.dtype.kind == "f" and not np.all(np.isfinite(f) & (f == np.round(f))):
        raise ValueError("the flow has non-integer values (capacities are integers)")
    if f.dtype.kind not in "iuf":
        raise ValueError(f"the flow must be integers in the int64 range, got dtype {f.dtype}")
    # no capacity is above MAX_CAPACITY, so neither is a feasible flow on an arc or its reverse;
    # beyond it a negation or a sum below could wrap around int64 and pass for a balance
    size = np.abs(f.astype(np.float64))           # each arc's flow, in float64: no wrapping
    if f.size and size.max() > MAX_CAPACITY:
        raise ValueError(f"the flow has values beyond +-{MAX_CAPACITY}, more than any capacity: "
                         f"{f.flat[int(np.argmax(size))]}")
    f = f.astype(np.int64)
    if f.shape != (net.m,):
        raise ValueError(f"flow has shape {f.shape}, the network has {net.m} stored arcs")
    bad = np.flatnonzero(f != -f[net.rev])
    if bad.size:
        a = bad[0]
        raise ValueError(f"flow on arc {a} is {f[a]} but on its reverse {f[net.rev[a]]}")
    bad = np.flatnonzero(f > net.capacity)
    if bad.size:
        a = bad[0]
        raise ValueError(f"arc {a} ({net.tails[a]} -> {net.heads[a]}) carries {f[a]} > capacity {net.capacity[a]}")
    tails = net.tails
    mass = np.bincount(tails, weights=size, minlength=net.n)
    if mass.sum() < 2.0**52:   # every partial sum is an exact float64 integer
        balance = np.rint(np.bincount(tails, weights=f, minlength=net.n)).astype(np.int64)
    else:
        balance = np.zeros(net.n, dtype=np.int64)
        np.add.at(balance, tails, f)
        # a vertex whose arcs carry 2**62 or more in all: its int64 sum may have wrapped, so
        # sum it exactly; no feasible (pre)flow has a balance beyond the source's capacity
        for v in np.flatnonzero(mass >= 2.0**62).tolist():
            exact = sum(f[net.offsets[v]:net.offsets[v + 1]].tolist())
            if abs(exact) > MAX_CAPACITY:
                raise ValueError(f"vertex {v}: outflow - inflow = {exact}, more than the source's arcs "
                                 f"can carry")
            balance[v] = exact
    inner = np.ones(net.n, dtype=bool)
    inner[[net.source, net.sink]] = False
    wrong = (balance > 0) if preflow else (balance != 0)
    bad = np.flatnonzero(wrong & inner)
    if bad.size:
        v = bad[0]
        raise ValueError(f"vertex {v}: outflow - inflow = {balance[v]} "
                         f"({'must be <= 0' if preflow else 'must be 0'})")
    val = int(-balance[net.sink])
    if not preflow and int(balance[net.source]) != val:
        raise ValueError(f"source sends {balance[net.source]} but sink receives {val}")
    if value is not None and val != int(value):
        raise ValueError(f"the flow's value is {val}, reported {value}")
    return val


def cut_capacity(net: FlowNetwork, source_side) -> int:
    """Capacity of the arcs leaving the vertex set ``source_side`` (bool per vertex)."""
    side = np.asarray(source_side, dtype=bool)
    if side.shape != (net.n,):
        raise ValueError(f"source_side has shape {side.shape}, expected ({net.n},)")
    crossing = side[net.tails] & ~side[net.heads]
    caps = net.capacity[crossing]
    if float(caps.astype(np.float64).sum()) < 2.0**62:
        return int(caps.sum())
    return sum(caps.tolist())        # beyond int64: exact in Python integers


def check_cut(net: FlowNetwork, source_side, value: int) -> int:
    """Check that ``source_side`` holds the source, not the sink, and has capacity ``value``.

    By max-flow/min-cut duality a cut whose capacity equals a feasible flow's value proves
    both optimal. Returns the cut capacity; raises ValueError otherwise.
    """
    side = np.asarray(source_side, dtype=bool)
    cap = cut_capacity(net, side)
    if not side[net.source]:
        raise ValueError("the cut's source side does not contain the source")
    if side[net.sink]:
        raise ValueError("the cut's source side contains the sink")
    if cap != int(value):
        raise ValueError(f"the cut has capacity {cap}, the flow value is {value}")
    return cap


def scipy_matrix(net: FlowNetwork):
    """The network as the CSR matrix of capacities scipy's ``maximum_flow`` takes (int32)."""
    import scipy.sparse as sp
    u, v, c = net.arcs()
    if not _fits_int32(net, c):
        raise ValueError("scipy's maximum_flow works in int32: these capacities are too large")
    return sp.csr_array((c.astype(np.int32), (u, v)), shape=(net.n, net.n))


def _fits_int32(net: FlowNetwork, c: np.ndarray) -> bool:
    """Whether scipy's int32 ``maximum_flow`` can take the network whose arc capacities are ``c``:
    each capacity, and those leaving the source together, at most 2**31 - 1."""
    return not c.size or (int(c.max()) <= INT32_MAX and net.source_capacity() <= INT32_MAX)


def reference_value(net: FlowNetwork, method: str = "dinic") -> int:
    """Maximum flow value from ``scipy.sparse.csgraph.maximum_flow`` (``dinic`` or
    ``edmonds_karp``; see :func:`gpualgo.peers.scipy_max_flow`). Capacities that do not fit
    scipy's int32 (one above 2**31 - 1, or those leaving the source together) go to networkx's
    ``preflow_push`` instead, exact on Python integers and much slower."""
    u, v, c = net.arcs()
    if not _fits_int32(net, c):
        return int(peers.networkx_max_flow(net.n, u, v, c, net.source, net.sink))
    return peers.scipy_max_flow(net.n, u, v, c, net.source, net.sink, method=method)


def certify(result) -> int:
    """Check a solver's result on its own network with no reference solver: its (pre)flow
    is feasible (:func:`check_flow`, a preflow where ``result.is_preflow``) and carries
    ``result.flow_value``, and its cut has that capacity (:func:`check_cut`). A feasible flow
    and a cut of equal capacity prove each other optimal. Returns the flow value; raises
    ValueError naming the first violation.
    """
    net = result.network
    check_flow(net, result.flow, result.flow_value, preflow=result.is_preflow)
    return check_cut(net, result.source_side, result.flow_value)


def check_result(result, reference: int | None = None) -> str:
    """Check a :class:`~gpualgo.maxflow.result.MaxFlowResult` against scipy and by its own
    certificate, and say so in a sentence.

    The flow value must equal ``reference`` (default: :func:`reference_value`, scipy's
    dinic on the same network), the (pre)flow must be feasible and the cut must have the
    same capacity (:func:`certify`). Raises ValueError on a mismatch.

    >>> from gpualgo import maxflow
    >>> net = maxflow.from_edges(3, [0, 1], [1, 2], [5, 3])
    >>> maxflow.check_result(maxflow.solve(net, variant="serial"))
    "flow value 3 = scipy's; the flow is feasible and a cut of capacity 3 proves it maximum"
    >>> maxflow.check_result(maxflow.solve(net, variant="serial"), reference=4)
    Traceback (most recent call last):
    ...
    ValueError: serial: flow value 3, but the reference's is 4
    """
    who = "scipy's" if reference is None else "the reference's"
    ref = reference_value(result.network) if reference is None else int(reference)
    if result.flow_value != ref:
        raise ValueError(f"{result.variant}: flow value {result.flow_value}, but {who} is {ref}")
    cut = certify(result)
    what = "preflow" if result.is_preflow else "flow"
    return (f"flow value {result.flow_value:,} = {who}; the {what} is feasible and a cut of capacity "
            f"{cut:,} proves it maximum")


def residual_source_side(net: FlowNetwork, flow) -> np.ndarray:
    """Vertices that cannot reach the sink in the residual graph of ``flow`` (scipy BFS).

    For a maximum (pre)flow this is the source side of a minimum cut.
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import breadth_first_order
    res = net.capacity - np.asarray(flow, dtype=np.int64)
    keep = res > 0
    # reversed residual arcs: from the sink backwards
    g = sp.csr_array((np.ones(int(keep.sum()), dtype=np.int8), (net.heads[keep], net.tails[keep])),
                     shape=(net.n, net.n))
    reach = breadth_first_order(g, net.sink, directed=True, return_predecessors=False)
    side = np.ones(net.n, dtype=bool)
    side[reach] = False
    return side
