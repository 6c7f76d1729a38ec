"""The flow network every max-flow version reads: a CSR of arcs with reverse-arc indices.

Each ordered pair of vertices joined in either direction gets exactly two stored arcs,
``u -> v`` and ``v -> u``, adjacent to each other through ``rev``; the capacity of a
direction that was not given is 0.  Parallel arcs are merged (capacities added), self
loops dropped (they never carry flow), and an undirected edge becomes two arcs of the same
capacity.  Arcs of a vertex are sorted by head, which is the report's BCSR layout: the
outgoing and incoming neighbours of a vertex sit together, and the reverse arc of
``u -> v`` is found by a lookup instead of a search.
"""
from __future__ import annotations

import functools
import numbers
import operator
from dataclasses import dataclass

import numba
import numpy as np

from .. import guards, hostcopy, textfile

__all__ = ["FlowNetwork", "check_network", "from_edges", "from_networkx", "network_bytes", "MAX_CAPACITY", "INT32_MAX",
           "CapacityOverflow"]

INT32_MAX = 2**31 - 1
#: the largest int64
INT64_MAX = 2**63 - 1
#: capacities are int64; no capacity and no total (sum of the capacities leaving the
#: source, which bounds every excess and the flow value) may exceed this, and the two
#: directions of a pair may not add up to more than :data:`INT64_MAX` (the residual capacity
#: of an arc reaches that sum), so that no intermediate sum of a solver can overflow int64
MAX_CAPACITY = 2**62


class CapacityOverflow(ValueError):
    """The refusal of capacities adding up beyond what the solvers can hold: a ValueError that
    also says, 0-based, which arcs it is about, so that a file's reader can name them as its
    file does (its own ids, the line where the sum passed its bound).

    ``kind``: ``"merged"`` (the parallel arcs ``tail -> head``, merged into one), ``"pair"``
    (``tail -> head`` and ``head -> tail`` together: the residual capacity of one reaches their
    sum) or ``"source"`` (the arcs leaving the source ``tail``; ``head`` None); ``limit``: the
    bound their sum passed (:data:`MAX_CAPACITY` or :data:`INT64_MAX`).
    """

    def __init__(self, message: str, kind: str = "", tail: int = -1, head: int | None = None, limit: int = 0):
        super().__init__(message)
        self.kind, self.tail, self.limit = kind, int(tail), int(limit)
        self.head = None if head is None else int(head)


@dataclass(frozen=True)
class FlowNetwork:
    """A directed flow network in CSR form.

    Attributes:
        n: number of vertices (ids 0..n-1).
        source, sink: the terminals (different vertices).
        offsets: int64 (n + 1,), arcs of vertex u are ``offsets[u]:offsets[u+1]``.
        heads: int32 (m,), head of each stored arc, increasing within a vertex.
        capacity: int64 (m,), capacity of each stored arc (0 for a pure reverse arc).
        rev: (m,), index of the reverse arc (``heads[rev[a]]`` is the tail of a); int32 when
            m < 2**31 (what the GPU kernels read), else int64.
    """

    n: int
    source: int
    sink: int
    offsets: np.ndarray
    heads: np.ndarray
    capacity: np.ndarray
    rev: np.ndarray

    @property
    def m(self) -> int:
        """Number of stored arcs (twice the number of joined vertex pairs)."""
        return int(self.heads.size)

    @property
    def tails(self) -> np.ndarray:
        """int32 (m,), tail of each stored arc."""
        return np.repeat(np.arange(self.n, dtype=np.int32), np.diff(self.offsets.astype(np.int64)))

    @property
    def n_input_arcs(self) -> int:
        """Number of stored arcs with positive capacity (the arcs of the input, merged)."""
        return int(np.count_nonzero(self.capacity))

    def source_capacity(self) -> int:
        """Sum of the capacities leaving the source: an upper bound of the flow value."""
        s = self.source
        return int(self.capacity[self.offsets[s]:self.offsets[s + 1]].sum())

    def fits_int32(self) -> bool:
        """True when every excess and every residual capacity fits int32.

        Excesses are bounded by :meth:`source_capacity`; the residual capacity of an
        arc by the sum of the capacities of its two directions.
        """
        return self._fits_int32

    @functools.cached_property
    def _fits_int32(self) -> bool:
        # the network is immutable: computed once
        if self.source_capacity() > INT32_MAX:
            return False
        cap = self.capacity.astype(np.int64)        # a hand-made network may hold narrower types
        return self.m == 0 or int((cap + cap[self.rev]).max()) <= INT32_MAX

    def arcs(self):
        """(tails, heads, capacities) of the arcs with positive capacity."""
        keep = self.capacity > 0
        return self.tails[keep], self.heads[keep], self.capacity[keep]

    def __repr__(self) -> str:
        return (f"FlowNetwork(n={self.n}, arcs={self.n_input_arcs}, stored={self.m}, "
                f"source={self.source}, sink={self.sink})")


def check_network(net: FlowNetwork) -> None:
    """Check that ``net``'s arrays are a network :func:`from_edges` could have built, in
    O(n + m), so that a hand-made :class:`FlowNetwork` cannot send a solver out of its
    arrays. ValueError naming the first inconsistency."""
    if not isinstance(net, FlowNetwork):
        raise ValueError(f"expected a FlowNetwork (see maxflow.from_edges), got {type(net).__name__}")
    try:
        if any(isinstance(x, (bool, np.bool_)) for x in (net.n, net.source, net.sink)):
            raise TypeError
        n, s, t = (operator.index(x) for x in (net.n, net.source, net.sink))
    except TypeError:
        raise ValueError(f"FlowNetwork: n, source and sink must be integers, got {net.n!r}, {net.source!r}, "
                         f"{net.sink!r}") from None
    if not (2 <= n <= INT32_MAX and 0 <= s < n and 0 <= t < n and s != t):
        raise ValueError(f"FlowNetwork: need 2 <= n <= {INT32_MAX} and distinct terminals in 0..n-1, got "
                         f"n={n}, source={s}, sink={t}")
    arrays = dict(offsets=net.offsets, heads=net.heads, capacity=net.capacity, rev=net.rev)
    for name, a in arrays.items():
        if not isinstance(a, np.ndarray) or a.ndim != 1 or a.dtype.kind not in "iu":
            raise ValueError(f"FlowNetwork: {name} must be a 1-D integer array, got "
                             f"{getattr(a, 'dtype', type(a).__name__)} {getattr(a, 'shape', '')}")
    m = net.heads.size
    off = net.offsets
    if off.size != n + 1 or off[0] != 0 or off[-1] != m:
        raise ValueError(f"FlowNetwork: offsets must be {n + 1} non-decreasing values from 0 to m={m}")
    if net.capacity.size != m or net.rev.size != m:
        raise ValueError(f"FlowNetwork: heads, capacity and rev differ in length ({m}, {net.capacity.size}, "
                         f"{net.rev.size})")
    # the rest in one compiled pass over the arrays (by threads, each a range of vertices), with
    # no temporary of m entries: the solve's time includes this check. The errors in this order:
    off64 = off.astype(np.int64, copy=False)
    bad = _BAD_OFFSETS if np.any(off64[1:] < off64[:-1]) else 0
    cap_max = 0
    if not bad:
        # the arcs split evenly among threads, at vertex boundaries
        heads, capacity, rev = (a if a.dtype.isnative else a.astype(a.dtype.newbyteorder("="))
                                for a in (net.heads, net.capacity, net.rev))     # numba reads native order
        parts = hostcopy.in_chunks(_scan_arcs, m, n, off64, heads, capacity, rev, MAX_CAPACITY,
                                   cuts=lambda b: [0, *np.minimum(np.searchsorted(off64, b[1:-1]), n).tolist(), n])
        for part_bad, part_max in parts:
            bad |= part_bad
            cap_max = max(cap_max, int(part_max))
    if bad & _BAD_OFFSETS:
        raise ValueError(f"FlowNetwork: offsets must be {n + 1} non-decreasing values from 0 to m={m}")
    if bad & _BAD_HEADS:
        raise ValueError(f"FlowNetwork: heads out of range 0..{n - 1}")
    if bad & _BAD_REV:
        raise ValueError(f"FlowNetwork: rev out of range 0..{m - 1}")
    if bad & _BAD_PAIRS:
        raise ValueError("FlowNetwork: rev must pair every arc u -> v with an arc v -> u")
    if bad & _BAD_CAPACITY:
        raise ValueError(f"FlowNetwork: capacities must be in 0..{MAX_CAPACITY}")
    if sum(net.capacity[off[s]:off[s + 1]].tolist()) > MAX_CAPACITY:
        raise ValueError(f"FlowNetwork: the capacities leaving the source add up to more than {MAX_CAPACITY}")
    if 2 * cap_max > INT64_MAX:
        _check_pairs(net.capacity, net.rev.astype(np.int64), lambda: net.tails, net.heads, "FlowNetwork: ")


_BAD_OFFSETS, _BAD_HEADS, _BAD_REV, _BAD_PAIRS, _BAD_CAPACITY = 1, 2, 4, 8, 16


@numba.njit(nogil=True, cache=True)
def _scan_arcs(n, offsets, heads, capacity, rev, max_cap, u0, u1):
    """What :func:`check_network` finds wrong in the arcs of vertices ``u0:u1`` (the offsets
    already checked), as the bits ``_BAD_*``, and their largest capacity. Values are read as
    int64 (a huge unsigned one becomes negative, and so out of range too); an arc's pairing is
    checked when its rev is in range."""
    m = heads.size
    bad = 0
    cap_max = 0
    for u in range(u0, u1):
        for a in range(offsets[u], offsets[u + 1]):
            h = np.int64(heads[a])
            if h < 0 or h >= n:
                bad |= _BAD_HEADS
            c = np.int64(capacity[a])
            if c < 0 or c > max_cap:
                bad |= _BAD_CAPACITY
            elif c > cap_max:
                cap_max = c
            r = np.int64(rev[a])
            if r < 0 or r >= m:
                bad |= _BAD_REV
            elif np.int64(rev[r]) != a or np.int64(heads[r]) != u:
                bad |= _BAD_PAIRS
    return bad, cap_max


def _check_pairs(cap: np.ndarray, rev: np.ndarray, tails, heads, prefix: str = "") -> None:
    """ValueError when an arc and its reverse have capacities (each at most
    :data:`MAX_CAPACITY`) adding up to more than :data:`INT64_MAX`: the residual capacity of the
    reverse arc, its own capacity plus the flow pushed, would overflow int64. ``tails()`` gives
    the arcs' tails, asked for only to name such a pair."""
    if not cap.size or 2 * int(cap.max()) <= INT64_MAX:   # one reduction clears every network but
        return                                            # those with capacities of 2**62
    cap = cap.astype(np.int64)
    bad = np.flatnonzero(cap > INT64_MAX - cap[rev])
    if bad.size:
        a = bad[0]
        t = tails()
        raise CapacityOverflow(f"{prefix}arcs {t[a]} -> {heads[a]} and {heads[a]} -> {t[a]} have capacities "
                               f"adding up to {int(cap[a]) + int(cap[rev[a]])} > {INT64_MAX}: a residual capacity "
                               "could overflow int64", "pair", t[a], heads[a], INT64_MAX)


def _index(x, what: str) -> int:
    """``x`` as a Python int; ValueError for anything that is not an integer (2.5, "3", True)."""
    try:
        if isinstance(x, (bool, np.bool_)):
            raise TypeError
        return operator.index(x)
    except TypeError:
        raise ValueError(f"{what} must be an integer, got {x!r}") from None


def _as_int_array(x, what: str) -> np.ndarray:
    if np.ma.is_masked(x):
        raise ValueError(f"{what} have masked entries: every arc needs its value (fill them)")
    try:
        a = np.asarray(x)
    except (ValueError, TypeError) as exc:      # ragged nested lists, odd objects
        raise ValueError(f"{what} must be a flat sequence of integers ({exc})") from None
    if a.size == 0:
        return np.zeros(0, dtype=np.int64)
    if a.dtype.kind == "O":
        # Python integers beyond int64 (a list, a networkx graph's attributes) give an object
        # array: name their range rather than the dtype
        values = a.ravel().tolist()
        if all(isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_)) for x in values):
            if any(abs(x) > MAX_CAPACITY for x in values):
                raise ValueError(f"{what} exceed {MAX_CAPACITY} (int64 range of the solvers)")
            a = np.array(values, dtype=np.int64)
    if a.dtype.kind == "f":
        if not np.all(np.isfinite(a)) or np.any(a != np.round(a)):
            raise ValueError(f"{what} must be integers; got non-integer values")
        if np.any(np.abs(a) > MAX_CAPACITY):
            raise ValueError(f"{what} exceed {MAX_CAPACITY} (int64 range of the solvers)")
        a = a.astype(np.int64)
    elif a.dtype.kind == "u":
        if np.any(a > MAX_CAPACITY):
            raise ValueError(f"{what} exceed {MAX_CAPACITY} (int64 range of the solvers)")
        a = a.astype(np.int64)
    elif a.dtype.kind not in "i":
        raise ValueError(f"{what} must be integers; got dtype {a.dtype}")
    return a.astype(np.int64).ravel()


#: bytes per input arc that :func:`from_edges` holds at its peak: the arc and its reverse
#: as (tail, head, capacity, key) int64 (64), the sort and inverse of np.unique (32), and per
#: stored arc (two per input arc at most) the merged capacity in float64 and int64, the
#: tails, heads, reverse keys and ``rev`` (about 44 each, 88)
BYTES_PER_ARC = 184
#: bytes per vertex: ``offsets`` and the per-vertex count it is summed from (int64 each)
BYTES_PER_VERTEX = 16


def network_bytes(n: int, arcs: int) -> int:
    """Bytes :func:`from_edges` allocates at its peak for ``n`` vertices and ``arcs`` input
    arcs (after an undirected edge became two), counted from the arrays it builds."""
    return BYTES_PER_VERTEX * (int(n) + 1) + BYTES_PER_ARC * int(arcs)


def guard_network(n: int, arcs: int, what: str, force: bool = False, extra: int = 0) -> None:
    """Refuse, before anything is allocated, to build a network of ``n`` vertices and about
    ``arcs`` input arcs: ValueError when n is beyond int32 vertex ids, or (with the
    estimate, unless ``force``) when :func:`network_bytes` plus the caller's own ``extra``
    bytes would not fit in the host memory available now (nothing below
    :data:`gpualgo.guards.ALWAYS_FITS` is refused)."""
    if n > INT32_MAX:
        raise ValueError(f"{what}: n={textfile.quote(n)} vertices, but vertex ids are stored as int32, at most "
                         f"{INT32_MAX} vertices")
    need = network_bytes(n, arcs) + int(extra)
    guards.memory(need, f"{what} (n={n} vertices, {arcs} arcs)", force, where="host", floor=guards.ALWAYS_FITS)


def from_edges(n: int, tails, heads, capacities, source: int = 0, sink: int | None = None,
               directed: bool = True, force: bool = False) -> FlowNetwork:
    """Build a :class:`FlowNetwork` from arc arrays.

    Args:
        n: number of vertices (>= 2).
        tails, heads: vertex ids in 0..n-1, one per arc.
        capacities: non-negative integers, one per arc.
        source, sink: terminal ids (sink defaults to n - 1).
        directed: False makes every edge two arcs of the same capacity.
        force: build even when the arrays (:func:`network_bytes`) would not fit in the host
            memory available now.

    Raises:
        ValueError: n < 2, s == t, ids out of range, negative or non-integer capacities,
            a capacity above :data:`MAX_CAPACITY`, arrays of different lengths, a network too
            large for host memory (with the estimate; ``force=True`` insists); a
            :class:`CapacityOverflow` for capacities that add up beyond the solvers' range
            (parallel arcs merged or the source's arcs above :data:`MAX_CAPACITY`, the two
            directions of a pair above int64).
    """
    n = _index(n, "n")
    directed = guards.flag(directed, "directed")
    if n < 2:
        raise ValueError(f"a flow network needs at least 2 vertices (a source and a sink); got n={textfile.quote(n)}")
    if n > INT32_MAX:
        raise ValueError(f"n={textfile.quote(n)} vertices: vertex ids are stored as int32, at most {INT32_MAX} vertices")
    sink = n - 1 if sink is None else _index(sink, "sink")
    source = _index(source, "source")
    for name, v in (("source", source), ("sink", sink)):
        if not 0 <= v < n:
            raise ValueError(f"{name} {v} is out of range 0..{n - 1}")
    if source == sink:
        raise ValueError(f"source and sink are the same vertex ({source})")
    u = _as_int_array(tails, "tails")
    v = _as_int_array(heads, "heads")
    c = _as_int_array(capacities, "capacities")
    if not (u.size == v.size == c.size):
        raise ValueError(f"tails, heads and capacities differ in length ({u.size}, {v.size}, {c.size})")
    guard_network(n, u.size * (1 if directed else 2), "building the flow network", force)
    for name, a in (("tail", u), ("head", v)):
        bad = np.flatnonzero((a < 0) | (a >= n))
        if bad.size:
            raise ValueError(f"arc {bad[0]} has {name} {a[bad[0]]} out of range 0..{n - 1}")
    bad = np.flatnonzero(c < 0)
    if bad.size:
        raise ValueError(f"arc {bad[0]} ({u[bad[0]]} -> {v[bad[0]]}) has negative capacity {c[bad[0]]}")
    if not directed:
        u, v, c = np.r_[u, v], np.r_[v, u], np.r_[c, c]
    keep = u != v                       # a self loop never carries flow
    u, v, c = u[keep], v[keep], c[keep]
    # every arc and its reverse (capacity 0), then merge equal (tail, head) pairs
    tt = np.r_[u, v]
    hh = np.r_[v, u]
    cc = np.r_[c, np.zeros_like(c)]
    key = tt * n + hh
    uniq, inv = np.unique(key, return_inverse=True)
    cap = np.zeros(uniq.size, dtype=np.float64)
    # sum in float64 first, only to rule out int64 overflow (its rounding is far below the
    # 1.5x margin), then exactly in int64 and compare exactly
    np.add.at(cap, inv, cc.astype(np.float64))
    capi = np.zeros(uniq.size, dtype=np.int64)
    if cap.size and cap.max() <= 1.5 * MAX_CAPACITY:
        np.add.at(capi, inv, cc)
    if cap.size and (cap.max() > 1.5 * MAX_CAPACITY or int(capi.max()) > MAX_CAPACITY):
        a = int(np.argmax(cap if cap.max() > 1.5 * MAX_CAPACITY else capi))   # exact where it was summed
        raise CapacityOverflow(f"arc {uniq[a] // n} -> {uniq[a] % n} (parallel arcs merged) has capacity "
                               f"{cap[a]:.4g} > {MAX_CAPACITY}", "merged", uniq[a] // n, uniq[a] % n, MAX_CAPACITY)
    t_sorted = (uniq // n).astype(np.int64)
    h_sorted = (uniq % n).astype(np.int32)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(t_sorted, minlength=n), out=offsets[1:])
    rev = np.searchsorted(uniq, h_sorted.astype(np.int64) * n + t_sorted)
    rev = rev.astype(np.int32 if rev.size < INT32_MAX else np.int64)
    _check_pairs(capi, rev, lambda: t_sorted, h_sorted)
    net = FlowNetwork(n=n, source=source, sink=sink, offsets=offsets, heads=h_sorted,
                      capacity=capi, rev=rev)
    out = capi[offsets[source]:offsets[source + 1]]
    total = float(out.astype(np.float64).sum())
    if total > 1.5 * MAX_CAPACITY or (total > 0.5 * MAX_CAPACITY and sum(out.tolist()) > MAX_CAPACITY):
        raise CapacityOverflow(f"the capacities leaving the source add up to {total:.4g} > {MAX_CAPACITY}: "
                               "a flow value or an excess could overflow int64", "source", source, None, MAX_CAPACITY)
    return net


def from_networkx(graph, source, sink, capacity: str = "capacity") -> FlowNetwork:
    """Build a network from a networkx (Di)Graph whose edges carry ``capacity``.

    Nodes are numbered in ``graph.nodes`` order; an undirected graph gives two arcs per
    edge. Raises ValueError for a missing capacity attribute or terminals not in the graph.
    """
    nodes = list(graph.nodes)
    index = {x: i for i, x in enumerate(nodes)}
    for name, x in (("source", source), ("sink", sink)):
        if x not in index:
            raise ValueError(f"{name} {x!r} is not a node of the graph")
    us, vs, cs = [], [], []
    for a, b, data in graph.edges(data=True):
        if capacity not in data:
            raise ValueError(f"edge ({a!r}, {b!r}) has no {capacity!r} attribute")
        us.append(index[a])
        vs.append(index[b])
        cs.append(data[capacity])
    return from_edges(len(nodes), us, vs, cs, index[source], index[sink],
                      directed=graph.is_directed())
