"""Serial versions (numba): brute force over the orders with city 0 fixed, and Held-Karp;
and the preparation every version shares (:func:`prepare`: weights, symmetric choice, plan).

:func:`solve_bruteforce` and :func:`solve_held_karp` are the versions ``serial_bruteforce``
and ``held_karp`` of :data:`gpualgo.tsp.VARIANTS`; :func:`solve_prange` (``cpu_prange``) is the
same brute force on every CPU core, the fair CPU side of a GPU comparison. Both return the best tour, not only its
length. They follow the same conventions as the GPU versions so that tours can be compared
exactly:

- brute force walks the chunks of :mod:`gpualgo.tsp.enumeration` in order and keeps the
  first best order it meets;
- Held-Karp closes the tour at the lowest-numbered best last city and, walking back, picks
  the lowest-numbered predecessor that explains each value.

Missing edges get the weight ``M = n * max_distance + 1``, longer than any feasible tour,
so a tour is infeasible exactly when its weighted length is >= M (see :func:`weights`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
import numba
from numba import njit, prange

from .. import gpu, guards
from .enumeration import MAX_FREE, Plan, make_plan, rank
from .instances import NO_EDGE, TSPInstance, as_instance
from .result import TSPResult, make_result

INT32_MAX = np.iinfo(np.int32).max


def weights(inst: TSPInstance):
    """Solver weights: (W, big, dtype).

    ``W`` is the distance matrix with missing edges replaced by ``big = n * max + 1`` (larger
    than any feasible tour) in the narrowest integer type that holds every partial sum the
    solvers form (at most n edges, each <= big): int32 when possible, since it halves memory
    traffic on the GPU and the Held-Karp table, else int64.
    """
    d = inst.dist
    n = inst.n
    finite = d[d != NO_EDGE]
    dmax = int(finite.max()) if finite.size else 0
    big = n * dmax + 1
    dtype = np.int32 if (n + 1) * big < INT32_MAX else np.int64
    W = np.where(d == NO_EDGE, big, d).astype(dtype)
    return W, big, dtype


# ------------------------------------------------------------------- the preparation

@dataclass(frozen=True)
class Prepared:
    """An instance as every version solves it (see :func:`prepare`).

    Attributes:
        inst: the instance.
        W: its solver weights (:func:`weights`), int32 or int64.
        big: the weight of a missing edge; a weighted length >= big means no feasible tour.
        symmetric: whether brute force enumerates each tour once.
        plan: the brute-force enumeration (:func:`~gpualgo.tsp.enumeration.make_plan`), or
            None for Held-Karp and for a single city.
    """

    inst: TSPInstance
    W: np.ndarray
    big: int
    symmetric: bool
    plan: Plan | None

    @property
    def n(self) -> int:
        return self.inst.n


def choose_symmetric(inst: TSPInstance, symmetric=None) -> bool:
    """Whether brute force enumerates each tour once: ``symmetric``, or by default whether the
    distances are symmetric. Raises ValueError for ``symmetric=True`` on asymmetric distances,
    and for anything but None, True and False."""
    if symmetric is not None:
        symmetric = guards.flag(symmetric, "symmetric")
    if symmetric and not inst.symmetric:
        raise ValueError("symmetric=True needs symmetric distances (dist == dist.T)")
    return inst.symmetric if symmetric is None else bool(symmetric)


def prepare(instance, symmetric=None, max_free: int = MAX_FREE, brute_force: bool = True) -> Prepared:
    """The one preparation of every version: the instance, its weights, the symmetric
    choice and, for brute force on n >= 2 cities, the plan of the enumeration."""
    inst = as_instance(instance, check=True)
    sym = choose_symmetric(inst, symmetric)
    W, big, _ = weights(inst)
    plan = make_plan(inst.n, sym, max_free) if brute_force and inst.n > 1 else None
    return Prepared(inst=inst, W=W, big=big, symmetric=sym, plan=plan)


def single_city(prep: Prepared, variant: str, t0: float) -> TSPResult:
    """The answer for one city, which every version gives without running: the tour [0]."""
    return make_result(prep, variant, 0, np.zeros(1, dtype=np.int64), {"prepare_ms": 0.0, "exec_ms": 0.0}, t0)


# ----------------------------------------------------------------------- brute force

@njit(cache=True, inline="always")
def next_permutation(p, k):
    """Step ``p[:k]`` to the next permutation in lexicographic order, in place.

    Returns the first position that changed (entries before it are untouched, which
    is what lets the callers update a tour's cost incrementally), or -1 when ``p`` was
    the last permutation (``p`` is then left as it was).
    """
    i = k - 2
    while i >= 0 and p[i] > p[i + 1]:
        i -= 1
    if i < 0:
        return -1
    j = k - 1
    while p[j] < p[i]:
        j -= 1
    tmp = p[i]
    p[i] = p[j]
    p[j] = tmp
    lo = i + 1
    hi = k - 1
    while lo < hi:
        tmp = p[lo]
        p[lo] = p[hi]
        p[hi] = tmp
        lo += 1
        hi -= 1
    return i


@njit(cache=True)
def bruteforce_chunks(W, prefix, last, f, k):
    """Walk every chunk of a plan (``prefix``, ``last``, ``f``, ``k``: see
    :class:`~gpualgo.tsp.enumeration.Plan`) in order, each through its ``k!`` orders with
    :func:`next_permutation`, re-adding only the suffix a step changed.

    Returns (best weighted length, its chunk, its free part): the first best order met.
    """
    n = W.shape[0]
    Wf = W.ravel().astype(np.int64)
    p = np.empty(k, dtype=np.int64)
    pc = np.empty(k, dtype=np.int64)       # pc[t]: cost of 0 -> prefix -> p[0..t]
    close = np.empty(n, dtype=np.int64)    # close[c]: cost of c -> (fixed last) -> 0
    best_perm = np.empty(k, dtype=np.int64)
    best = np.iinfo(np.int64).max
    best_chunk = -1
    used = np.zeros(n, dtype=np.bool_)
    for c in range(last.shape[0]):
        anchor = 0
        base = 0
        used[:] = False
        used[0] = True
        for t in range(f):
            city = prefix[c, t]
            base += Wf[anchor * n + city]
            anchor = city
            used[city] = True
        lst = last[c]
        if lst >= 0:
            used[lst] = True
        for city in range(n):
            close[city] = Wf[city * n + lst] + Wf[lst * n] if lst >= 0 else Wf[city * n]
        idx = 0
        for city in range(1, n):
            if not used[city]:
                p[idx] = city
                idx += 1
        pc[0] = base + Wf[anchor * n + p[0]]
        i = 1                               # first position whose prefix cost is stale
        while True:
            # incremental update: only the suffix changed by the last step is re-added
            acc = pc[i - 1]
            for t in range(i, k):
                acc += Wf[p[t - 1] * n + p[t]]
                pc[t] = acc
            cost = acc + close[p[k - 1]]
            if cost < best:
                best = cost
                best_chunk = c
                best_perm[:] = p
            i = next_permutation(p, k)
            if i < 0:
                break
            if i == 0:
                pc[0] = base + Wf[anchor * n + p[0]]
                i = 1
    return best, best_chunk, best_perm


@njit(cache=True, parallel=True)
def bruteforce_chunks_prange(W, prefix, last, f, k):
    """:func:`bruteforce_chunks` with the chunks shared among the CPU's cores (``prange``):
    each chunk is walked as in the serial version and keeps its first best order; the first
    chunk with the lowest cost wins, so the answer is the serial one."""
    nc = last.shape[0]
    bests = np.empty(nc, dtype=np.int64)
    perms = np.empty((nc, k), dtype=np.int64)
    for c in prange(nc):
        b, _, p = bruteforce_chunks(W, prefix[c:c + 1], last[c:c + 1], f, k)
        bests[c] = b
        perms[c, :] = p
    c = int(np.argmin(bests))          # the first of the lowest: the serial tie rule
    return bests[c], c, perms[c].copy()


def bruteforce(W, plan, parallel: bool = False):
    """Brute force over ``plan`` (on every core with ``parallel``); returns (weighted length, tour)."""
    walk = bruteforce_chunks_prange if parallel else bruteforce_chunks
    best, chunk, perm = walk(W, plan.prefix, plan.last, plan.f, plan.k)
    tour = [0] + [int(c) for c in plan.prefix[chunk, :plan.f]] + [int(c) for c in perm]
    if plan.last[chunk] >= 0:
        tour.append(int(plan.last[chunk]))
    return int(best), np.asarray(tour, dtype=np.int64)


def search_range(prep: Prepared, c_lo: int, c_hi: int):
    """Serial brute force over the chunks ``c_lo .. c_hi - 1`` of ``prep.plan`` (a slice of
    the plan's chunks is a plan of its own): ``(best weighted length, global rank of the
    first best order)``, the rank in the plan's enumeration order. The pieces of a search
    split across workers (:func:`gpualgo.tsp.distributed.solve_on_cluster`)."""
    plan = prep.plan
    if not 0 <= c_lo < c_hi <= plan.n_chunks:
        raise ValueError(f"chunk range {c_lo}..{c_hi} outside the plan's 0..{plan.n_chunks}")
    best, chunk, perm = bruteforce_chunks(prep.W, plan.prefix[c_lo:c_hi], plan.last[c_lo:c_hi], plan.f, plan.k)
    return int(best), (c_lo + int(chunk)) * plan.kfact + rank([int(c) for c in perm])


# ------------------------------------------------------------------------ Held-Karp

@njit(cache=True)
def held_karp_table(W, dp):
    """Fill the Held-Karp table ``dp`` (flat, 2^(n-1) * (n-1) entries) layer by layer and
    walk the tour back; returns (weighted length, tour)."""
    # dp[mask * m + j]: cheapest path 0 -> (all cities of mask) ending at city j + 1, where
    # bit j of mask stands for city j + 1. Masks grow numerically, so every sub-mask is done
    # before it is needed.
    n = W.shape[0]
    m = n - 1
    full = (1 << m) - 1
    bits = np.empty(m, dtype=np.int64)
    for j in range(m):
        dp[(1 << j) * m + j] = W[0, j + 1]
    for mask in range(1, full + 1):
        if mask & (mask - 1) == 0:
            continue
        s = 0
        for j in range(m):
            if (mask >> j) & 1:
                bits[s] = j
                s += 1
        for a in range(s):
            j = bits[a]
            prev = mask ^ (1 << j)
            best = np.iinfo(np.int64).max
            for b in range(s):
                if b != a:
                    kk = bits[b]
                    v = dp[prev * m + kk] + W[kk + 1, j + 1]
                    if v < best:
                        best = v
            dp[mask * m + j] = best
    best = np.iinfo(np.int64).max
    bj = -1
    for j in range(m):
        v = dp[full * m + j] + W[j + 1, 0]
        if v < best:
            best = v
            bj = j
    tour = np.zeros(n, dtype=np.int64)
    pos = n - 1
    mask = full
    j = bj
    while True:
        tour[pos] = j + 1
        pos -= 1
        prev = mask ^ (1 << j)
        if prev == 0:
            break
        target = dp[mask * m + j]
        kk = 0
        for kk in range(m):
            if (prev >> kk) & 1 and dp[prev * m + kk] + W[kk + 1, j + 1] == target:
                break
        mask = prev
        j = kk
    return best, tour


def held_karp_bytes(n: int, dtype) -> int:
    """Bytes of the Held-Karp table for n cities: 2^(n-1) * (n-1) entries."""
    m = n - 1
    return (1 << m) * m * np.dtype(dtype).itemsize


def check_table(n: int, dtype, force: bool = False) -> None:
    """Refuse (ValueError with the estimate, unless ``force``) serial Held-Karp on n >= 2 cities
    when its table (:func:`held_karp_bytes`, entries of ``dtype``: the weights') would not fit
    in the host memory that can be had now."""
    guards.memory(held_karp_bytes(n, dtype), f"serial Held-Karp on n={n} cities (its table of "
                  f"2^{n - 1} x {n - 1} {np.dtype(dtype).name} entries)", force, where="host", hint="use gpu_held_karp")


def held_karp_steps(n: int) -> int:
    """Inner steps of Held-Karp on n cities, as :func:`held_karp_table` and the GPU layers run
    them: one ``dp[prev][k] + W[k][j]`` per set S of the m = n - 1 other cities, last city j in
    S and previous city k in S minus j, so sum over |S| = s of C(m, s) s (s - 1), which is
    m (m - 1) 2^(m - 2) (n >= 3; 0 below).

    >>> held_karp_steps(4), held_karp_steps(22)
    (12, 220200960)
    """
    m = n - 1
    return m * (m - 1) << (m - 2) if m >= 2 else 0


def held_karp(W):
    """Serial Held-Karp on solver weights ``W`` (n >= 2); returns (weighted length, tour)."""
    n = W.shape[0]
    dp = np.empty((1 << (n - 1)) * (n - 1), dtype=W.dtype)
    best, tour = held_karp_table(W, dp)
    return int(best), tour


# ---------------------------------------------------------------------- the versions

def solve_bruteforce(instance, symmetric=None, max_free: int = MAX_FREE) -> TSPResult:
    """Version ``serial_bruteforce``: :func:`bruteforce` over the plan of :func:`prepare`."""
    t0 = time.perf_counter()
    prep = prepare(instance, symmetric, max_free)
    if prep.n == 1:
        return single_city(prep, "serial_bruteforce", t0)
    t1 = time.perf_counter()
    best, tour = bruteforce(prep.W, prep.plan)
    t2 = time.perf_counter()
    return make_result(prep, "serial_bruteforce", best, tour,
                       {"prepare_ms": (t1 - t0) * 1e3, "exec_ms": (t2 - t1) * 1e3}, t0)


#: chunks per core that :func:`parallel_plan` aims for, so that the cores finish together
CHUNKS_PER_CORE = 8


def parallel_plan(n: int, symmetric: bool, max_free: int = MAX_FREE, cores: int | None = None) -> Plan:
    """The plan of :func:`make_plan` with more leading cities fixed until there are at least
    :data:`CHUNKS_PER_CORE` chunks per core (or no city is left to fix): the same orders, in
    the same order, cut into pieces the cores can share."""
    cores = cores or numba.get_num_threads()
    plan = make_plan(n, symmetric, max_free)
    while plan.n_chunks < CHUNKS_PER_CORE * cores and plan.k > 1:
        plan = make_plan(n, symmetric, plan.k - 1)
    return plan


def solve_prange(instance, symmetric=None, max_free: int = MAX_FREE) -> TSPResult:
    """Version ``cpu_prange``: the serial brute force with its chunks shared among every CPU
    core (numba ``prange``, :func:`bruteforce_chunks_prange`); same orders, same tour."""
    t0 = time.perf_counter()
    prep = prepare(instance, symmetric, max_free)
    if prep.n == 1:
        return single_city(prep, "cpu_prange", t0)
    prep = replace(prep, plan=parallel_plan(prep.n, prep.symmetric, max_free))
    t1 = time.perf_counter()
    best, tour = bruteforce(prep.W, prep.plan, parallel=True)
    t2 = time.perf_counter()
    return make_result(prep, "cpu_prange", best, tour,
                       {"prepare_ms": (t1 - t0) * 1e3, "exec_ms": (t2 - t1) * 1e3,
                        "threads": numba.get_num_threads(),
                        "device": gpu.cpu_label(threads=numba.get_num_threads())}, t0)


def solve_held_karp(instance, force: bool = False) -> TSPResult:
    """Version ``held_karp``: :func:`held_karp` on the weights of :func:`prepare`.

    Refuses (ValueError, with the estimate) a table larger than the host memory that can be
    had now, unless ``force``.
    """
    t0 = time.perf_counter()
    prep = prepare(instance, brute_force=False)
    n = prep.n
    if n == 1:
        return single_city(prep, "held_karp", t0)
    check_table(n, prep.W.dtype, force)
    t1 = time.perf_counter()
    best, tour = held_karp(prep.W)
    t2 = time.perf_counter()
    return make_result(prep, "held_karp", best, tour,
                       {"prepare_ms": (t1 - t0) * 1e3, "exec_ms": (t2 - t1) * 1e3}, t0)
