"""Seeded instance generators: the report's random graphs and standard DIMACS families.

Every generator takes ``seed``: None, a non-negative integer or a numpy Generator
(:func:`gpualgo.guards.rng`); its integer parameters are integers, not bools, and its real
ones real numbers, not bools (:func:`gpualgo.guards.is_real`); anything else is a ValueError
naming the parameter."""
from __future__ import annotations

import math
import operator

import numpy as np

from .. import guards, textfile
from .network import INT32_MAX, MAX_CAPACITY, FlowNetwork, _index, from_edges, guard_network

__all__ = ["random_gnp", "report_density", "genrmf", "washington_rlg", "vision_grid", "check_random_gnp",
           "check_genrmf", "check_washington_rlg", "check_vision_grid"]

#: random_gnp refuses graphs expected to have more arcs than this (the GPU versions index
#: arcs with int32, and building one takes about 150 bytes per arc)
MAX_RANDOM_ARCS = INT32_MAX // 2


def _ints(**values) -> list[int]:
    """Integer parameters as Python ints (a bool is none), each at least its stated minimum."""
    out = []
    for name, (value, least) in values.items():
        v = _index(value, name)
        if v < least:
            raise ValueError(f"need {name} >= {least}, got {textfile.quote(v)}")
        out.append(v)
    return out


def _checked(*values) -> list[int]:
    """Integer parameters a generator's check has accepted, as Python ints."""
    return [operator.index(v) for v in values]


def _cap_range(low: int, high: int, what: str) -> None:
    if not 0 <= low <= high <= MAX_CAPACITY:
        raise ValueError(f"need 0 <= {what} <= {MAX_CAPACITY}, got {low}..{high}")


def report_density(n: int) -> float:
    """The report's density for the size sweep: p = 2 ln(n) / n (connected w.h.p.)."""
    (n,) = _ints(n=(n, 2))
    return min(1.0, 2.0 * math.log(n) / n)


def check_random_gnp(n: int, p: float, low: int = 1, high: int = 100, directed: bool = True,
                     force: bool = False) -> tuple[int, int]:
    """The refusals of :func:`random_gnp` with these parameters, without drawing anything (see
    there; ``force=True`` insists on the memory). Returns ``(n, arcs)``: the vertices and the
    input arcs expected (an undirected edge counted as two arcs, the connecting path's included)."""
    n, low, high = _ints(n=(n, 2), low=(low, 0), high=(high, 0))
    guards.flag(directed, "directed")
    if not guards.is_real(p) or not 0.0 <= p <= 1.0:
        raise ValueError(f"density p must be a number in [0, 1], got {textfile.quote(p)}")
    _cap_range(low, high, "low <= high")
    # an arc and the connecting path's on the same pair merge (2 high), and the source has n - 1 pairs
    if 2 * max(n - 1, 2) * high > MAX_CAPACITY:
        raise ValueError(f"high={high}: the capacities leaving the source could add up to 2 (n - 1) high = "
                         f"{textfile.quote(2 * max(n - 1, 2) * high)} > {MAX_CAPACITY} (MAX_CAPACITY); use a smaller high")
    arcs = p * n * (n - 1) / (1 if directed else 2) + 2 * n
    if arcs > MAX_RANDOM_ARCS:
        raise ValueError(f"G({textfile.quote(n)}, {p}) would have about {arcs:.3g} arcs (about {arcs * 150 / 2**30:.0f} GiB "
                         f"to build); at most {MAX_RANDOM_ARCS} are generated")
    pairs = n * (n - 1) // (1 if directed else 2)
    if n <= 3000:
        extra = 9 * n * n                     # the (n, n) uniforms and the mask
    elif 2 * p * pairs > pairs:
        extra = 41 * pairs                    # every pair (mask, ids, keys) and the set difference
    else:
        extra = int(72 * p * pairs)           # sampled pairs, their keys and the sort
    arcs = int(arcs)
    guard_network(n, arcs * (1 if directed else 2), f"G({n}, {p})", force,
                  extra=extra + 48 * arcs + 24 * n)
    return n, arcs * (1 if directed else 2)


def random_gnp(n: int, p: float, seed=None, low: int = 1, high: int = 100,
               directed: bool = True, connected: bool = True, force: bool = False) -> FlowNetwork:
    """The report's Erdos-Renyi G(n, p) with integer capacities in [low, high].

    Each of the n(n-1) ordered pairs (directed) or n(n-1)/2 pairs (undirected) is an arc
    with probability p; for large n the number of arcs is drawn from the binomial and the
    pairs sampled without repetition (the same distribution). ``connected`` adds a random
    path through all vertices in both directions, as the report made every instance
    connected. Source 0, sink n-1.

    Raises:
        ValueError: n < 2, p outside [0, 1], a seed that is not None, a non-negative integer or
            a numpy Generator (:func:`gpualgo.guards.rng`), a capacity range outside 0..MAX_CAPACITY,
            more than :data:`MAX_RANDOM_ARCS` expected arcs (with the estimate), or arrays
            that would not fit in host memory (with the estimate; ``force=True`` insists).
    """
    n, _ = check_random_gnp(n, p, low, high, directed, force)
    connected = guards.flag(connected, "connected")
    low, high = _checked(low, high)
    rng = guards.rng(seed)
    if n <= 3000:
        mask = rng.random((n, n)) < p
        np.fill_diagonal(mask, False)
        if not directed:
            mask = np.triu(mask, 1)
        u, v = np.nonzero(mask)
    else:
        pairs = n * (n - 1) // (1 if directed else 2)
        m = int(rng.binomial(pairs, p))
        if 2 * m <= pairs:
            keys = _distinct_pairs(rng, n, m, directed)
        else:
            # most pairs are arcs: drawing them would crawl (the last missing pairs are
            # rarely hit), so draw the pairs that are not arcs and keep the others
            a, b = np.nonzero(~np.eye(n, dtype=bool)) if directed else np.triu_indices(n, 1)
            every = a.astype(np.int64) * n + b
            keys = np.setdiff1d(every, _distinct_pairs(rng, n, pairs - m, directed), assume_unique=True)
        u, v = keys // n, keys % n
    c = rng.integers(low, high + 1, size=u.size)
    if connected:
        perm = rng.permutation(n)
        pu, pv = perm[:-1], perm[1:]
        pc = rng.integers(low, high + 1, size=pu.size)
        u, v, c = np.r_[u, pu], np.r_[v, pv], np.r_[c, pc]
        if directed:  # the path both ways, so that every vertex reaches and is reached
            pc2 = rng.integers(low, high + 1, size=pu.size)
            u, v, c = np.r_[u, pv], np.r_[v, pu], np.r_[c, pc2]
    return from_edges(n, u, v, c, 0, n - 1, directed=directed, force=True)


def _sorted_unique(x: np.ndarray) -> np.ndarray:
    """``np.unique(x)`` by a sort (numpy 2.4's hash-based unique is many times slower on
    millions of int64 keys)."""
    x = np.sort(x)
    return x[np.r_[True, x[1:] != x[:-1]]] if x.size else x


def _distinct_pairs(rng, n: int, m: int, directed: bool) -> np.ndarray:
    """m distinct keys ``a * n + b`` of vertex pairs (a != b; a < b when undirected),
    uniformly at random; fast while m is at most half of the pairs."""
    keys = np.zeros(0, dtype=np.int64)
    while keys.size < m:     # sample, drop loops and repeats, top up
        k = m - keys.size
        a = rng.integers(0, n, size=int(k * 1.1) + 16)
        b = rng.integers(0, n, size=a.size)
        ok = a != b
        a, b = a[ok], b[ok]
        if not directed:
            a, b = np.minimum(a, b), np.maximum(a, b)
        keys = _sorted_unique(np.r_[keys, a.astype(np.int64) * n + b])
    return rng.permutation(keys)[:m]


def check_genrmf(a: int, b: int, c1: int = 1, c2: int = 1000, force: bool = False) -> tuple[int, int]:
    """The refusals of :func:`genrmf` with these parameters, without drawing anything (``force=True``
    insists on the memory). Returns ``(n, arcs)``: the network's vertices and input arcs."""
    a, b, c1, c2 = _ints(a=(a, 1), b=(b, 2), c1=(c1, 0), c2=(c2, 0))
    _cap_range(c1, c2, "c1 <= c2")
    if c2 * a * a > MAX_CAPACITY:
        raise ValueError(f"the frame arcs' capacity c2 * a * a = {textfile.quote(c2 * a * a)} exceeds {MAX_CAPACITY}")
    # the source (a corner of the first frame) has two frame arcs when a > 1 and one arc of
    # at least c1 to the next frame: from_edges would refuse their total after the drawing
    least = (2 * c2 * a * a if a > 1 else 0) + c1
    if least > MAX_CAPACITY:
        raise ValueError(f"the source's arcs add up to at least 2 * c2 * a * a + c1 = {least}, above {MAX_CAPACITY}")
    f = a * a
    n = f * b
    arcs = 4 * a * (a - 1) * b + f * (b - 1)
    # the generator's own arrays: per arc (tail, head, capacity) and their concatenation;
    # per inter-frame arc the uniforms and their argsort
    guard_network(n, arcs, f"genrmf(a={textfile.quote(a)}, b={textfile.quote(b)})", force,
                  extra=48 * arcs + 16 * f * (b - 1))
    return n, arcs


def genrmf(a: int, b: int, c1: int = 1, c2: int = 1000, seed=None, force: bool = False) -> FlowNetwork:
    """The DIMACS genrmf family (Goldfarb and Grigoriadis): b frames of a x a grids.

    Inside a frame every vertex is joined to its grid neighbours in both directions with
    capacity ``c2 * a * a``; each vertex of frame k has one arc to a vertex of frame k + 1
    (a random permutation per frame) with capacity uniform in [c1, c2]. The source is the
    first vertex of the first frame, the sink the last vertex of the last frame.
    n = a*a*b vertices, 4 a (a - 1) b + a*a (b - 1) arcs. ValueError for sizes whose arrays
    would not fit in host memory (with the estimate; ``force=True`` insists).
    """
    n, _ = check_genrmf(a, b, c1, c2, force)
    a, b, c1, c2 = _checked(a, b, c1, c2)
    f = a * a
    rng = guards.rng(seed)
    big = c2 * f
    idx = np.arange(f).reshape(a, a)
    right = np.c_[idx[:, :-1].ravel(), idx[:, 1:].ravel()]
    down = np.c_[idx[:-1, :].ravel(), idx[1:, :].ravel()]
    grid = np.r_[right, down]                                    # undirected pairs of a frame
    grid = np.r_[grid, grid[:, ::-1]]                             # both directions
    base = (np.arange(b, dtype=np.int64) * f)[:, None]
    gu = (grid[:, 0][None, :] + base).ravel()
    gv = (grid[:, 1][None, :] + base).ravel()
    gc = np.full(gu.size, big, dtype=np.int64)
    perms = np.argsort(rng.random((b - 1, f)), axis=1)            # one permutation per frame
    iu = (np.arange(f)[None, :] + base[:-1]).ravel()
    iv = (perms + base[1:]).ravel()
    ic = rng.integers(c1, c2 + 1, size=iu.size)
    return from_edges(n, np.r_[gu, iu], np.r_[gv, iv], np.r_[gc, ic], 0, n - 1, force=True)


def check_washington_rlg(rows: int, levels: int, degree: int = 3, maxcap: int = 10000,
                         force: bool = False) -> tuple[int, int]:
    """The refusals of :func:`washington_rlg` with these parameters, without drawing anything
    (``force=True`` insists on the memory). Returns ``(n, arcs)``: the network's vertices and
    input arcs."""
    rows, levels, degree, maxcap = _ints(rows=(rows, 1), levels=(levels, 1), degree=(degree, 1),
                                         maxcap=(maxcap, 1))
    if maxcap * degree > MAX_CAPACITY:
        raise ValueError(f"the terminal arcs' capacity maxcap * degree = {textfile.quote(maxcap * degree)} exceeds "
                         f"{MAX_CAPACITY}")
    if rows * maxcap * degree > MAX_CAPACITY:
        raise ValueError(f"the source's arcs add up to rows * maxcap * degree = {textfile.quote(rows * maxcap * degree)}, "
                         f"above "
                         f"{MAX_CAPACITY}")
    n = rows * levels + 2
    arcs = (levels - 1) * rows * degree + 2 * rows
    # the generator's own (tail, head, capacity) per arc, and their concatenation
    sizes = f"rows={textfile.quote(rows)}, levels={textfile.quote(levels)}, degree={textfile.quote(degree)}"
    guard_network(n, arcs, f"washington_rlg({sizes})", force, extra=48 * arcs)
    return n, arcs


def washington_rlg(rows: int, levels: int, degree: int = 3, maxcap: int = 10000,
                   seed=None, force: bool = False) -> FlowNetwork:
    """Washington random level graph (RLG), as the DIMACS 'washington' generator makes it.

    ``levels`` levels of ``rows`` vertices; every vertex has ``degree`` arcs to random
    vertices of the next level, capacities uniform in [1, maxcap]. The source has an arc
    to every vertex of the first level and every vertex of the last level one to the
    sink, of capacity ``maxcap * degree`` (so the level arcs decide the cut).
    n = rows * levels + 2; source n-2, sink n-1. ValueError for sizes whose arrays would not
    fit in host memory (with the estimate; ``force=True`` insists).
    """
    n, _ = check_washington_rlg(rows, levels, degree, maxcap, force)
    rows, levels, degree, maxcap = _checked(rows, levels, degree, maxcap)
    rng = guards.rng(seed)
    s, t = n - 2, n - 1
    lv = np.arange(levels - 1, dtype=np.int64)[:, None, None] * rows
    u = (np.arange(rows)[None, :, None] + lv + np.zeros((1, 1, degree), dtype=np.int64)).ravel()
    v = (rng.integers(0, rows, size=(levels - 1, rows, degree)) + lv + rows).ravel()
    c = rng.integers(1, maxcap + 1, size=u.size)
    first = np.arange(rows)
    last = np.arange(rows) + (levels - 1) * rows
    big = maxcap * degree
    u = np.r_[u, np.full(rows, s), last]
    v = np.r_[v, first, np.full(rows, t)]
    c = np.r_[c, np.full(2 * rows, big)]
    return from_edges(n, u, v, c, s, t, force=True)


def check_vision_grid(height: int, width: int, maxcap: int = 100, terminal_fraction: float = 0.3,
                      force: bool = False) -> tuple[int, int]:
    """The refusals of :func:`vision_grid` with these parameters, without drawing anything
    (``force=True`` insists on the memory). Returns ``(n, arcs)``: the network's vertices and
    its input arcs at most (a pixel has one terminal arc or none)."""
    height, width, maxcap = _ints(height=(height, 1), width=(width, 1), maxcap=(maxcap, 1))
    if not guards.is_real(terminal_fraction) or not 0.0 <= terminal_fraction <= 0.5:
        raise ValueError(f"terminal_fraction must be in [0, 0.5] (a pixel has a source arc, a sink arc "
                         f"or neither), got {textfile.quote(terminal_fraction)}")
    if 2 * maxcap > MAX_CAPACITY:
        raise ValueError(f"the terminal arcs' capacity 2 * maxcap = {textfile.quote(2 * maxcap)} exceeds {MAX_CAPACITY}")
    npx = height * width
    n = npx + 2
    arcs = 2 * (height * (width - 1) + (height - 1) * width) + npx   # at most one terminal arc a pixel
    # the generator's own arrays: ids and uniforms per pixel, (tail, head, capacity) per arc
    guard_network(n, arcs, f"vision_grid({textfile.quote(height)} x {textfile.quote(width)})", force,
                  extra=48 * arcs + 24 * npx)
    if terminal_fraction > 0 and 2 * maxcap * npx > MAX_CAPACITY:
        raise ValueError(f"maxcap={maxcap}: the source's arcs to {npx} pixels could add up to 2 maxcap x pixels = "
                         f"{2 * maxcap * npx} > {MAX_CAPACITY} (MAX_CAPACITY); use a smaller maxcap")
    return n, arcs


def vision_grid(height: int, width: int, maxcap: int = 100, terminal_fraction: float = 0.3,
                seed=None, force: bool = False) -> FlowNetwork:
    """A 2-D image-segmentation graph: 4-connected pixels plus source and sink terminals.

    Neighbouring pixels are joined both ways with one capacity in [1, maxcap] (the
    smoothness term); a pixel gets a source arc with probability ``terminal_fraction``,
    else a sink arc with the same probability, capacities in [1, 2 * maxcap]
    (the data term). n = height * width + 2; source n-2, sink n-1. ValueError for sizes whose
    arrays would not fit in host memory (with the estimate; ``force=True`` insists).
    """
    n, _ = check_vision_grid(height, width, maxcap, terminal_fraction, force)
    height, width, maxcap = _checked(height, width, maxcap)
    npx = height * width
    rng = guards.rng(seed)
    s, t = n - 2, n - 1
    idx = np.arange(npx).reshape(height, width)
    pu = np.r_[idx[:, :-1].ravel(), idx[:-1, :].ravel()]
    pv = np.r_[idx[:, 1:].ravel(), idx[1:, :].ravel()]
    pc = rng.integers(1, maxcap + 1, size=pu.size)
    r = rng.random(npx)
    src = np.flatnonzero(r < terminal_fraction)
    snk = np.flatnonzero(r > 1 - terminal_fraction)
    u = np.r_[pu, pv, np.full(src.size, s), snk]
    v = np.r_[pv, pu, src, np.full(snk.size, t)]
    c = np.r_[pc, pc, rng.integers(1, 2 * maxcap + 1, size=src.size + snk.size)]
    return from_edges(n, u, v, c, s, t, force=True)
