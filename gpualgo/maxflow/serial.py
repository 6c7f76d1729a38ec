"""Serial push-relabel compiled with numba: the report's CPU baseline.

FIFO selection of active vertices with the two heuristics that make push-relabel
practical: *global relabel* (a backward BFS from the sink in the residual graph sets every
height to its exact distance, run after about ``freq * (n + m)`` units of work) and *gap*
(when no vertex is left at some height k < n, every vertex above k can no longer reach the
sink and is lifted to n + 1 at once). Vertices of height >= n keep being discharged, back
towards the source, so the result is a flow (not only a preflow).
"""
from __future__ import annotations

import math
import numbers
import time

import numpy as np
from numba import njit

from .network import FlowNetwork
from .result import MaxFlowResult, make_result

__all__ = ["solve_serial", "push_relabel", "reverse_bfs"]


@njit(cache=True)
def reverse_bfs(n, start, offsets, heads, rev, res, dist, queue, limit):
    """Distances to ``start`` along residual arcs, for vertices still at ``limit`` (unlabelled).

    ``dist`` holds ``limit`` for unvisited vertices; visited ones get ``dist[start] + k``.
    Returns the number of vertices labelled.
    """
    qh = 0
    qt = 0
    queue[qt] = start
    qt += 1
    while qh < qt:
        x = queue[qh]
        qh += 1
        d = dist[x] + 1
        for a in range(offsets[x], offsets[x + 1]):
            y = heads[a]
            # y -> x is residual when the reverse of x -> y has capacity left
            if dist[y] == limit and res[rev[a]] > 0:
                dist[y] = d
                queue[qt] = y
                qt += 1
    return qt


@njit(cache=True)
def _global_relabel(n, s, t, offsets, heads, rev, res, h, excess, count, current, queue, fifo, inq):
    big = 2 * n
    for v in range(n):
        h[v] = big
    h[t] = 0
    reverse_bfs(n, t, offsets, heads, rev, res, h, queue, big)
    h[s] = n
    reverse_bfs(n, s, offsets, heads, rev, res, h, queue, big)
    for k in range(2 * n + 1):
        count[k] = 0
    for v in range(n):
        count[h[v]] += 1
        current[v] = offsets[v]
        inq[v] = False
    # rebuild the FIFO with the active vertices, lowest first is not needed: any order
    qt = 0
    for v in range(n):
        if v != s and v != t and excess[v] > 0 and h[v] < big:
            fifo[qt] = v
            inq[v] = True
            qt += 1
    return qt


@njit(cache=True)
def push_relabel(n, s, t, offsets, heads, rev, capacity, freq):
    """FIFO push-relabel with global relabel and gap. Returns
    ``(residual, flow value, stats array [pushes, relabels, global relabels, gaps,
    discharges], source side)``."""
    m = heads.size
    res = capacity.copy()
    h = np.zeros(n, dtype=np.int64)
    excess = np.zeros(n, dtype=np.int64)
    count = np.zeros(2 * n + 1, dtype=np.int64)
    current = offsets[:n].copy()
    queue = np.empty(n, dtype=np.int64)
    fifo = np.empty(n + 1, dtype=np.int64)     # ring buffer of active vertices
    inq = np.zeros(n, dtype=np.bool_)
    stats = np.zeros(5, dtype=np.int64)
    for a in range(offsets[s], offsets[s + 1]):
        d = res[a]
        if d > 0:
            res[a] = 0
            res[rev[a]] += d
            excess[heads[a]] += d
            excess[s] -= d
    qt = _global_relabel(n, s, t, offsets, heads, rev, res, h, excess, count, current, queue, fifo, inq)
    stats[2] += 1
    qh = 0
    size = qt
    cap = n + 1
    work = 0
    budget = freq * (n + m)
    while size > 0:
        u = fifo[qh]
        qh = (qh + 1) % cap
        size -= 1
        inq[u] = False
        if h[u] >= 2 * n:
            continue
        stats[4] += 1
        while excess[u] > 0:
            a = current[u]
            if a == offsets[u + 1]:
                # relabel: one above the lowest residual neighbour
                old = h[u]
                lo = 2 * n
                for b in range(offsets[u], offsets[u + 1]):
                    if res[b] > 0 and h[heads[b]] < lo:
                        lo = h[heads[b]]
                new = min(lo + 1, 2 * n)
                stats[1] += 1
                work += offsets[u + 1] - offsets[u] + 12
                count[old] -= 1
                if old < n and count[old] == 0:
                    # gap: nobody is left at height old, so nothing above it reaches t
                    stats[3] += 1
                    for v in range(n):
                        if old < h[v] < n:
                            count[h[v]] -= 1
                            h[v] = n + 1
                            count[n + 1] += 1
                            current[v] = offsets[v]
                    new = max(new, n + 1)
                h[u] = new
                count[new] += 1
                current[u] = offsets[u]
                if new >= 2 * n:
                    break
                if work > budget:
                    break
                continue
            v = heads[a]
            if res[a] > 0 and h[u] == h[v] + 1:
                d = min(excess[u], res[a])
                res[a] -= d
                res[rev[a]] += d
                excess[u] -= d
                excess[v] += d
                stats[0] += 1
                if v != s and v != t and not inq[v]:
                    fifo[(qh + size) % cap] = v
                    size += 1
                    inq[v] = True
            else:
                current[u] = a + 1
        if excess[u] > 0 and h[u] < 2 * n and not inq[u]:
            fifo[(qh + size) % cap] = u
            size += 1
            inq[u] = True
        if work > budget:
            size = _global_relabel(n, s, t, offsets, heads, rev, res, h, excess, count, current,
                                   queue, fifo, inq)
            qh = 0
            stats[2] += 1
            work = 0
    # min cut: the vertices that cannot reach t in the residual graph
    dist = np.full(n, 2 * n, dtype=np.int64)
    dist[t] = 0
    reverse_bfs(n, t, offsets, heads, rev, res, dist, queue, 2 * n)
    side = dist == 2 * n
    return res, excess[t], stats, side


def solve_serial(net: FlowNetwork, freq: float = 1.0) -> MaxFlowResult:
    """The ``serial`` version: :func:`push_relabel` on ``net``'s arrays; ``freq`` scales the
    work between global relabels (see :func:`gpualgo.maxflow.solve`): a positive, finite
    number, else ValueError."""
    if isinstance(freq, bool) or not isinstance(freq, numbers.Real) or not (math.isfinite(freq) and freq > 0):
        raise ValueError(f"freq (work between global relabels, in units of n + m) must be a positive "
                         f"finite number, got {freq!r}")
    t0 = time.perf_counter()
    args = (net.n, net.source, net.sink, net.offsets, net.heads.astype(np.int64), net.rev.astype(np.int64),
            net.capacity)
    t1 = time.perf_counter()
    res, value, st, side = push_relabel(*args, float(freq))
    t2 = time.perf_counter()
    stats = dict(prepare_ms=(t1 - t0) * 1e3, exec_ms=(t2 - t1) * 1e3, total_ms=(t2 - t0) * 1e3,
                 pushes=int(st[0]), relabels=int(st[1]), global_relabels=int(st[2]), gaps=int(st[3]),
                 phases=int(st[2]), cap_dtype="int64")
    return make_result(net, "serial", value, side, res, is_preflow=False, stats=stats)
