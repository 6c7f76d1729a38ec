"""Serial push-relabel compiled with numba: the report's CPU baseline.

FIFO selection of active vertices with the two heuristics that make push-relabel
practical: *global relabel* (a backward BFS from the sink in the residual graph sets every
height to its exact distance, run after about ``freq * (n + m)`` units of work) and *gap*
(when no vertex is left at some height k < n, every vertex above k can no longer reach the
sink and is lifted to n + 1 at once; the vertices are scanned for it only when some height
between k and the highest one below n still holds a vertex). Vertices of height >= n keep
being discharged, back towards the source, so the result is a flow (not only a preflow).
"""
from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from .. import guards
from .network import FlowNetwork, from_edges
from .result import MaxFlowResult, make_result

__all__ = ["solve_serial", "push_relabel", "reverse_bfs", "cut_by_bfs", "cut_by_heights", "cut_by_scan",
           "cut_steps", "estimate_plain_seconds", "check_plain", "PLAIN_RATE", "PLAIN_LIMIT_S", "CUT_METHODS"]


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
def _top_below(n, h):
    """The highest height below n that a vertex holds (0 when none)."""
    top = 0
    for v in range(n):
        if top < h[v] < n:
            top = h[v]
    return top


@njit(cache=True)
def _plain_start(n, s, t, h, excess, count, fifo, inq):
    """The textbook's start, without a global relabel: every height 0 but the source's (n);
    the active vertices (the heads of the source's arcs) in the FIFO."""
    for v in range(n):
        h[v] = 0
    h[s] = n
    for k in range(2 * n + 1):
        count[k] = 0
    count[0] = n - 1
    count[n] = 1
    qt = 0
    for v in range(n):
        if v != s and v != t and excess[v] > 0:
            fifo[qt] = v
            inq[v] = True
            qt += 1
    return qt


@njit(cache=True)
def push_relabel(n, s, t, offsets, heads, rev, capacity, freq, global_relabel=True, gap=True):
    """FIFO push-relabel, with the global relabel (at the start, then after about
    ``freq * (n + m)`` units of work) and the gap heuristic unless they are turned off.
    Returns ``(residual, flow value, stats array [pushes, relabels, global relabels, gaps,
    discharges], final heights)``."""
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
    if global_relabel:
        qt = _global_relabel(n, s, t, offsets, heads, rev, res, h, excess, count, current, queue, fifo, inq)
        stats[2] += 1
        budget = freq * (n + m)
    else:
        qt = _plain_start(n, s, t, h, excess, count, fifo, inq)
        budget = np.inf                          # never a global relabel
    # at least the highest height below n that a vertex holds: a gap scans the vertices only
    # when a height between the gap and this one still holds some (a scan of all n vertices
    # at every gap made a run with many gaps quadratic in n)
    top = _top_below(n, h)
    qh = 0
    size = qt
    cap = n + 1
    work = 0
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
                if gap and old < n and count[old] == 0:
                    # gap: nobody is left at height old, so nothing above it reaches t
                    stats[3] += 1
                    while top > old and count[top] == 0:
                        top -= 1
                    if top > old:
                        for v in range(n):
                            if old < h[v] < n:
                                count[h[v]] -= 1
                                h[v] = n + 1
                                count[n + 1] += 1
                                current[v] = offsets[v]
                    top = old - 1                  # no vertex is left at old or above it, below n
                    new = max(new, n + 1)
                h[u] = new
                if top < new < n:
                    top = new
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
            top = _top_below(n, h)
            qh = 0
            stats[2] += 1
            work = 0
    return res, excess[t], stats, h


# ------------------------------------------------------------------------ the minimum cut

@njit(cache=True)
def cut_by_bfs(n, t, offsets, heads, rev, res):
    """The source side of a minimum cut: the vertices that cannot reach ``t`` in the residual
    graph, found by a BFS from ``t`` along residual arcs walked backwards (the transposed
    residual graph: the reverse of arc x -> y is stored next to it, ``rev``). O(n + m)."""
    dist = np.full(n, 2 * n, dtype=np.int64)
    dist[t] = 0
    queue = np.empty(n, dtype=np.int64)
    reverse_bfs(n, t, offsets, heads, rev, res, dist, queue, 2 * n)
    return dist == 2 * n


@njit(cache=True)
def cut_by_heights(n, h):
    """The source side of a minimum cut from the final heights of push-relabel alone, O(n):
    the vertices at or above the lowest empty height k in 1..n-1. One exists (n - 2 vertices
    besides source and sink, n - 1 heights), and no residual arc goes down by more than one
    height, so none leaves the set: its capacity is the flow value. (With the gap heuristic
    on, or after a final global relabel, k is the first height above the sink's distances and
    the set is ``h >= n``, which is how the GPU versions read their cut.)"""
    seen = np.zeros(n, dtype=np.bool_)
    for v in range(n):
        if h[v] < n:
            seen[h[v]] = True
    k = 1
    while k < n - 1 and seen[k]:
        k += 1
    return h >= k


@njit(cache=True)
def cut_by_scan(n, t, offsets, heads, res):
    """The report's first serial search for the cut (its Listing 5, ``findMinCutSetFromSink``):
    a BFS from ``t`` in which every vertex taken from the queue scans all the arcs of the graph
    for residual arcs into it, O(n m). The same set as :func:`cut_by_bfs`."""
    reach = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int64)
    reach[t] = True
    queue[0] = t
    qh = 0
    qt = 1
    while qh < qt:
        u = queue[qh]
        qh += 1
        for v in range(n):
            for a in range(offsets[v], offsets[v + 1]):
                if heads[a] == u and res[a] > 0 and not reach[v]:
                    reach[v] = True
                    queue[qt] = v
                    qt += 1
    return ~reach


#: the ways of reading the cut :func:`cut_steps` times, cheapest first
CUT_METHODS = ("heights", "bfs", "scan")


def cut_steps(net: FlowNetwork, methods=CUT_METHODS, reps: int = 3) -> dict:
    """Solve ``net`` with the serial version (its defaults) and time the minimum-cut step on
    its own, by each of ``methods`` (:data:`CUT_METHODS`) on the same final residual graph
    and heights: ``{method: (best of reps ms, cut capacity)}``, with ``"flow"``: (the
    push-relabel time in ms, the flow value). Everything is compiled first, on a network of
    two vertices, untimed."""
    unknown = [m for m in methods if m not in CUT_METHODS]
    if unknown:
        raise ValueError(f"unknown cut method(s) {unknown}; known: {CUT_METHODS}")
    from .checks import cut_capacity

    def run(g, timed):
        heads, rev = g.heads.astype(np.int64), g.rev.astype(np.int64)
        t0 = time.perf_counter()
        res, value, _, h = push_relabel(g.n, g.source, g.sink, g.offsets, heads, rev, g.capacity, 1.0, True, True)
        out = {"flow": ((time.perf_counter() - t0) * 1e3, int(value))}
        calls = {"heights": lambda: cut_by_heights(g.n, h),
                 "bfs": lambda: cut_by_bfs(g.n, g.sink, g.offsets, heads, rev, res),
                 "scan": lambda: cut_by_scan(g.n, g.sink, g.offsets, heads, res)}
        for m in methods:
            best, side = math.inf, None
            for _ in range(max(1, int(reps)) if timed else 1):
                t0 = time.perf_counter()
                side = calls[m]()
                best = min(best, (time.perf_counter() - t0) * 1e3)
            out[m] = (best, cut_capacity(g, side))
        return out

    run(from_edges(2, [0], [1], [1], 0, 1), False)
    return run(net, True)


# ------------------------------------------------------------------------ the version

#: push-relabel without the global relabel: arc visits per second on one core, measured on the
#: ``serial_heuristics`` preset's graphs (its slowest runs: about 1.5e8 to 3e8 per second)
PLAIN_RATE = 1.0e8
#: the longest estimated run without the global relabel that :func:`solve_serial` starts (seconds)
PLAIN_LIMIT_S = 60.0


def estimate_plain_seconds(net: FlowNetwork) -> float:
    """A rough run time of push-relabel without the global relabel on ``net``, in seconds:
    2 n m / :data:`PLAIN_RATE`. Each vertex is relabelled up to 2n times, and each relabel
    scans its arcs twice (for the lowest neighbour, then for pushes), so 2 n m arc visits is
    the bound on that work; on the report's graphs plain runs reached about half of it."""
    return _plain_seconds(net.n, net.m)


def _plain_seconds(n: int, m: int) -> float:
    return 2.0 * float(n) * float(m) / PLAIN_RATE


def check_plain(n: int, m: int, force: bool = False) -> None:
    """Refuse (ValueError with the estimate, unless ``force``) push-relabel without the global
    relabel on ``n`` vertices and ``m`` stored arcs when :func:`estimate_plain_seconds` is above
    :data:`PLAIN_LIMIT_S`. Before a network is built, its input arcs stand for ``m``: each
    distinct input arc is stored, and its reverse too where that is not an input arc, so they
    are a lower bound but for parallel arcs (merged) and the expected counts of random graphs."""
    guards.time(_plain_seconds(n, m), f"push-relabel without the global relabel on n={n:,}, m={m:,}",
                PLAIN_LIMIT_S, force, hint="keep global_relabel=True")


def check_options(freq: float = 1.0, global_relabel: bool = True, gap: bool = True, force: bool = False, **_):
    """The ``serial`` version's options, checked before it runs (and by :func:`gpualgo.maxflow.solve.check`
    for a sweep): ``(freq, global_relabel, gap, force)``, or ValueError naming the bad one."""
    if not (guards.is_real(freq) and math.isfinite(freq) and freq > 0):
        raise ValueError(f"freq (work between global relabels, in units of n + m) must be a positive "
                         f"finite number, got {freq!r}")
    return freq, guards.flag(global_relabel, "global_relabel"), guards.flag(gap, "gap"), guards.insist(force)


def solve_serial(net: FlowNetwork, freq: float = 1.0, global_relabel: bool = True, gap: bool = True,
                 force: bool = False) -> MaxFlowResult:
    """The ``serial`` version: :func:`push_relabel` on ``net``'s arrays, then the cut by
    :func:`cut_by_bfs` (timed apart: ``cut_ms``, inside ``exec_ms``). ``freq`` scales the work
    between global relabels (see :func:`gpualgo.maxflow.solve`): a positive, finite number;
    ``global_relabel`` and ``gap`` (True or False) turn the heuristics off. Without the global
    relabel the run is refused when :func:`estimate_plain_seconds` is above
    :data:`PLAIN_LIMIT_S`, unless ``force``. ValueError for a bad option."""
    freq, global_relabel, gap, force = check_options(freq, global_relabel, gap, force)
    if not global_relabel:
        check_plain(net.n, net.m, force)
    t0 = time.perf_counter()
    # int64 throughout: a hand-made network may hold narrower or unsigned types, in which the
    # residual capacity of a reverse arc (its own plus the flow pushed) would wrap
    args = (net.n, net.source, net.sink, net.offsets.astype(np.int64), net.heads.astype(np.int64),
            net.rev.astype(np.int64), net.capacity.astype(np.int64))
    t1 = time.perf_counter()
    res, value, st, _ = push_relabel(*args, float(freq), global_relabel, gap)
    t2 = time.perf_counter()
    side = cut_by_bfs(net.n, net.sink, args[3], args[4], args[5], res)
    t3 = time.perf_counter()
    stats = dict(prepare_ms=(t1 - t0) * 1e3, exec_ms=(t3 - t1) * 1e3, total_ms=(t3 - t0) * 1e3,
                 cut_ms=(t3 - t2) * 1e3, pushes=int(st[0]), relabels=int(st[1]), global_relabels=int(st[2]),
                 gaps=int(st[3]), phases=int(st[2]), cap_dtype="int64", global_relabel=global_relabel, gap=gap)
    return make_result(net, "serial", value, side, res, is_preflow=False, stats=stats)
