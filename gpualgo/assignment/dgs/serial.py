"""Deep Greedy Switching (DGS): a fast local-search heuristic for the assignment problem.

DGS starts from a full assignment (random for a seed, or greedy) and keeps moving in
the 2-exchange neighbourhood:

* **agent difference evaluation** (ADE): for agent ``i`` the best change of jobs
  with another agent, or the best move to a free job when ``m < n``;
* **job difference evaluation** (JDE): for job ``j`` the best other agent to take it
  (the two agents swap jobs; a free job simply receives the agent);
* **switching**: apply the exchange with the largest gain, re-evaluate only the two
  agents and two jobs it touched, repeat while a stored gain is positive; then a new
  pass evaluates everything again, until a pass changes nothing.

The gain of giving job ``y`` to the holder of job ``x`` and job ``x`` to the holder of
``y`` is ``g(x->y) + g(y->x)`` with ``g(x->y) = B[holder(x), y] - B[holder(x), x]`` (zero
for a free job).  Every version (serial, the GPU kernels) adds the two gains in this
way, so the same exchange has bit for bit the same gain wherever it is computed.

The result is *exchange-optimal*: no swap of jobs between two agents and no move of an
agent to a free job gains more than ``tol`` (0 for integer benefits).  It is not the
optimum in general; :mod:`gpualgo.assignment.dgs.bench` measures the gap.

Serial code is numba ``njit``; the switching step (:func:`pick_and_apply`) is shared by
the serial solver and by the GPU versions that keep the serial order.
"""
from __future__ import annotations

import ctypes
import time

import numpy as np
from numba import njit

from .. import problem
from ..result import AssignmentResult
from ..checks import objective

__all__ = ["prepare", "initial_assignment", "dgs", "full_de", "ade_row", "jde_row", "pick_and_apply",
           "switch_phase", "record_trace", "pair_row", "parallel_rounds", "exchange_gains", "solve_serial",
           "new_trace", "check_trace_capacity", "parse_time_limit", "trace_arrays", "make_dgs_result"]

NEG = -np.inf
#: the largest matrix (entries) accepted without ``force=True``: A and its transpose in float64
MAX_ENTRIES = 2**28

# A monotonic clock callable from numba code, for the anytime trace (about 30 ns a call).
_libc = ctypes.CDLL(None)
_clock_gettime = _libc.clock_gettime
_clock_gettime.restype = ctypes.c_int
_clock_gettime.argtypes = [ctypes.c_int, ctypes.c_void_p]
_CLOCK_MONOTONIC = getattr(time, "CLOCK_MONOTONIC", 1)  # the platform's id (1 on Linux, 6 on macOS)


@njit(cache=False)  # calls a ctypes function: numba cannot cache it
def now_us(buf):
    """Microseconds of the monotonic clock (``buf``: an int64[2] scratch array)."""
    _clock_gettime(_CLOCK_MONOTONIC, buf.ctypes.data)
    return buf[0] * 1e6 + buf[1] * 1e-3


def _now_us() -> float:
    return time.clock_gettime(time.CLOCK_MONOTONIC) * 1e6


# --------------------------------------------------------------------------- input


def prepare(B, force: bool = False, transpose: bool = True):
    """Validate ``B`` for DGS; returns ``(A, AT, tol)`` (``AT`` is None without ``transpose``).

    ``A``: ``(m, n)`` float64 copy of ``B``; ``AT`` its transpose (C-contiguous, so that
    a column of ``A`` is a row of ``AT``); ``tol``: the gain an exchange must exceed to
    count as an improvement (0 for integer benefits, else ``64 * eps64 * max|B|``, so that
    rounding cannot make DGS cycle).

    Raises ValueError for a non-numeric or non-2-D matrix, ``m > n``, NaN or ``+inf``,
    missing edges (``-inf``: DGS needs a complete matrix), integer dtypes with ``|b| >= 2**50``
    (too large for exact float64 sums), and (without ``force``) matrices above
    :data:`MAX_ENTRIES` entries.
    """
    M = problem.as_matrix(B)
    m, n = M.shape
    if m * n > MAX_ENTRIES and not force:
        raise ValueError(f"B has {m * n} entries: DGS keeps B and its transpose in float64, about "
                         f"{16 * m * n / 2**30:.1f} GiB; pass force=True to run it anyway")
    A = np.ascontiguousarray(M, dtype=np.float64)
    if M.dtype.kind == "f":
        bad = np.isnan(A)
        if bad.any():
            i, j = (int(v) for v in np.argwhere(bad)[0])
            raise ValueError(f"B contains NaN (first at agent {i}, job {j})")
        if np.isposinf(A).any():
            i, j = (int(v) for v in np.argwhere(np.isposinf(A))[0])
            raise ValueError(f"B contains +inf (first at agent {i}, job {j})")
        miss = np.isneginf(A)
        if miss.any():
            i, j = (int(v) for v in np.argwhere(miss)[0])
            count = int(miss.sum())
            raise ValueError(f"DGS needs a complete matrix, but B has {count} missing edge{'s' * (count > 1)} "
                             f"(-inf), the first at agent {i}, job {j}: give those pairs a finite (very low) "
                             "benefit, or use the auction, which handles missing edges")
    big = float(np.abs(A).max())
    if M.dtype.kind in "iu" and big >= 2.0**50:
        raise ValueError(f"integer benefits must satisfy |b| < 2**50 for exact float64 sums, got {big:g}")
    # whole-numbered floats below 2**50 add up exactly, like integers; larger floats get a tolerance
    integer = M.dtype.kind in "iu" or (big < 2.0**50 and bool(np.array_equal(A, np.rint(A))))
    tol = 0.0 if integer else 64 * np.finfo(np.float64).eps * big
    AT = np.ascontiguousarray(A.T) if transpose else None
    return A, AT, float(tol)


@njit(cache=True)
def _greedy(A):
    """Agents in index order, each takes its best free job (ties to the lowest job)."""
    m, n = A.shape
    taken = np.zeros(n, dtype=np.bool_)
    tau = np.empty(m, dtype=np.int64)
    for i in range(m):
        best, bj = NEG, -1
        for j in range(n):
            if not taken[j] and (bj < 0 or A[i, j] > best):
                best, bj = A[i, j], j
        tau[i] = bj
        taken[bj] = True
    return tau


def initial_assignment(A, init="random", seed=0) -> np.ndarray:
    """The start of DGS: ``"random"`` (a random injective map, from ``seed``), ``"greedy"``
    (agents in order take their best free job), or an explicit int array of ``m`` distinct
    jobs.  Returns int64 ``tau`` (the job of each agent)."""
    m, n = A.shape
    if isinstance(init, str):
        if init == "random":
            try:
                rng = np.random.default_rng(seed)
            except (TypeError, ValueError):
                raise ValueError(f"seed must be a non-negative integer (or a numpy Generator), got {seed!r}") from None
            return rng.permutation(n)[:m].astype(np.int64)
        if init == "greedy":
            return _greedy(A)
        raise ValueError(f"init must be 'random', 'greedy' or an assignment array, got {init!r}")
    tau = np.asarray(init)
    if tau.shape != (m,) or tau.dtype.kind not in "iu":
        raise ValueError(f"an initial assignment must be {m} integers, got shape {tau.shape}, dtype {tau.dtype}")
    if m and (tau.min() < 0 or tau.max() >= n or np.unique(tau).size != m):
        raise ValueError(f"the initial assignment must give the {m} agents distinct jobs in [0, {n})")
    return tau.astype(np.int64)


# ---------------------------------------------------------------- difference evaluation


@njit(cache=True)
def ade_row(A, AT, tau, holder, cur, i):
    """Agent difference evaluation: ``(best gain, job)`` over every job ``j' != tau[i]``:
    a swap with its holder, or a move when ``j'`` is free; ties to the lowest job."""
    n = A.shape[1]
    x = tau[i]
    ci = cur[x]
    best, bj = NEG, -1
    for y in range(n):
        if y == x:
            continue
        k = holder[y]
        g = A[i, y] - ci
        d = g + (AT[x, k] - cur[y] if k >= 0 else 0.0)
        if d > best:
            best, bj = d, y
    return best, bj


@njit(cache=True)
def jde_row(A, AT, tau, holder, cur, x):
    """Job difference evaluation: ``(best gain, agent)`` over every agent ``i' != holder[x]``
    taking job ``x`` (its holder, if any, takes ``tau[i']``); ties to the lowest agent."""
    m = A.shape[0]
    hx = holder[x]
    cx = cur[x]
    best, bi = NEG, -1
    for k in range(m):
        if k == hx:
            continue
        y = tau[k]
        gx = A[hx, y] - cx if hx >= 0 else 0.0
        d = gx + (AT[x, k] - cur[y])
        if d > best:
            best, bi = d, k
    return best, bi


@njit(cache=True)
def full_de(A, AT, tau, holder, cur, ad, aj, jd, ji):
    """ADE for every agent and JDE for every job (the O(m n) pass)."""
    m, n = A.shape
    for i in range(m):
        ad[i], aj[i] = ade_row(A, AT, tau, holder, cur, i)
    for x in range(n):
        jd[x], ji[x] = jde_row(A, AT, tau, holder, cur, x)


# ---------------------------------------------------------------------------- switching


@njit(cache=True)
def pick_and_apply(A, tau, holder, cur, ad, aj, jd, ji, tol, out):
    """One switching step of the serial order (the paper's Algorithm 1).

    Takes the largest stored gain (agents' ``ad`` against jobs' ``jd``; the job wins a
    tie, the lowest index wins within each array), clears it, recomputes the gain of
    that exchange on the current assignment (a stored gain may be stale) and applies
    it when it exceeds ``tol``.  ``out`` receives ``(agent a, agent k or -1, job x,
    job y)``: agent ``a`` moved from ``x`` to ``y``, ``k`` (the holder of ``y``) to ``x``.

    Returns 0 when no stored gain exceeds ``tol`` (the phase is over), 1 when the stale
    exchange did not improve (nothing changed), else the gain applied as ``2 + gain``.
    """
    ia = np.argmax(ad)
    jb = np.argmax(jd)
    va = ad[ia]
    vb = jd[jb]
    if max(va, vb) <= tol:
        return 0.0
    if va > vb:
        ad[ia] = NEG
        a = ia
        y = aj[ia]
    else:
        jd[jb] = NEG
        y = jb
        a = ji[jb]
    x = tau[a]
    k = holder[y]
    d = (A[a, y] - cur[x]) + (A[k, x] - cur[y] if k >= 0 else 0.0)
    if not d > tol:
        return 1.0
    tau[a] = y
    holder[y] = a
    cur[y] = A[a, y]
    if k >= 0:
        tau[k] = x
        holder[x] = k
        cur[x] = A[k, x]
    else:
        holder[x] = -1
        cur[x] = 0.0
    out[0], out[1], out[2], out[3] = a, k, x, y
    return 2.0 + d


@njit(cache=True)
def record_trace(tr_sw, tr_obj, tr_t, tr_meta, switches, obj, t):
    """Append a trace point; when the buffer is full keep every other point and record
    half as often (``tr_meta = [count, stride]``), so any run fits a fixed buffer."""
    if switches % tr_meta[1] != 0:
        return
    c = tr_meta[0]
    if c == tr_sw.size:
        h = c // 2
        for q in range(h):
            tr_sw[q], tr_obj[q], tr_t[q] = tr_sw[2 * q + 1], tr_obj[2 * q + 1], tr_t[2 * q + 1]
        c = h
        tr_meta[1] *= 2
        if switches % tr_meta[1] != 0:
            tr_meta[0] = c
            return
    tr_sw[c], tr_obj[c], tr_t[c] = switches, obj, t
    tr_meta[0] = c + 1


@njit(cache=False)
def switch_phase(A, AT, tau, holder, cur, ad, aj, jd, ji, tol, state, trace, tr_meta, clk, t_end):
    """Switch while a stored gain exceeds ``tol``, re-evaluating the touched agents and jobs
    on the CPU.  ``state = [objective, switches, steps, t0_us]`` is updated in place.
    Returns the number of switches applied (stops early when the clock passes ``t_end``)."""
    out = np.empty(4, dtype=np.int64)
    applied = 0
    while True:
        r = pick_and_apply(A, tau, holder, cur, ad, aj, jd, ji, tol, out)
        if r == 0.0:
            break
        state[2] += 1
        if r == 1.0:
            continue
        state[0] += r - 2.0
        state[1] += 1
        applied += 1
        a, k, x, y = out[0], out[1], out[2], out[3]
        ad[a], aj[a] = ade_row(A, AT, tau, holder, cur, a)
        if k >= 0:
            ad[k], aj[k] = ade_row(A, AT, tau, holder, cur, k)
        jd[x], ji[x] = jde_row(A, AT, tau, holder, cur, x)
        jd[y], ji[y] = jde_row(A, AT, tau, holder, cur, y)
        t = now_us(clk)
        record_trace(trace[0], trace[1], trace[2], tr_meta, np.int64(state[1]), state[0], t - state[3])
        if t > t_end:
            break
    return applied


@njit(cache=False)
def dgs(A, AT, tau, tol, trace, tr_meta, state, time_limit_us):
    """The serial DGS loop (the paper's Algorithm 1) on ``tau`` (modified in place).

    Returns ``(passes, converged)``; ``state`` holds objective, switches, steps, t0."""
    m, n = A.shape
    holder = np.full(n, -1, dtype=np.int64)
    cur = np.zeros(n)
    for i in range(m):
        holder[tau[i]] = i
        cur[tau[i]] = A[i, tau[i]]
    ad = np.empty(m)
    aj = np.empty(m, dtype=np.int64)
    jd = np.empty(n)
    ji = np.empty(n, dtype=np.int64)
    clk = np.zeros(2, dtype=np.int64)
    t_end = state[3] + time_limit_us
    passes = 0
    while True:
        passes += 1
        full_de(A, AT, tau, holder, cur, ad, aj, jd, ji)
        applied = switch_phase(A, AT, tau, holder, cur, ad, aj, jd, ji, tol, state, trace, tr_meta, clk, t_end)
        # a pass that applied nothing ran to its end (the clock stops a phase only after a
        # switch): the assignment is exchange-optimal, even when the limit has passed meanwhile
        if applied == 0:
            return passes, True
        if now_us(clk) > t_end:
            return passes, False


# ------------------------------------------------------- the parallel rule, serially


@njit(cache=True)
def pair_row(A, AT, holder, cur, x, best_d, best_p):
    """Job ``x``'s best exchange with any other job ``y`` (swap of holders, or a move when
    one of them is free; two free jobs are skipped): stored in ``best_d[x], best_p[x]``,
    ties to the lowest ``y``.  Covers ADE (``x`` assigned) and JDE (``x`` free) at once."""
    m, n = A.shape
    hx = holder[x]
    cx = cur[x]
    best, bp = NEG, -1
    for y in range(n):
        hy = holder[y]
        if y == x or (hx < 0 and hy < 0):
            continue
        gx = A[hx, y] - cx if hx >= 0 else 0.0
        gy = AT[x, hy] - cur[y] if hy >= 0 else 0.0
        d = gx + gy
        if d > best:
            best, bp = d, y
    best_d[x], best_p[x] = best, bp


@njit(cache=True)
def parallel_rounds(A, AT, tau, tol, max_rounds):
    """The rule of the full-GPU version, run serially (its twin for the tests): every round
    evaluates every job's best exchange, then applies at once all *mutual* best pairs
    (``best_p[best_p[x]] == x``) with a gain above ``tol``.  Mutual pairs share no job, so
    their gains add up exactly; the largest gain is always mutual, so a round without a
    pair means no exchange improves.  Returns ``(rounds, switches, objective)``."""
    m, n = A.shape
    holder = np.full(n, -1, dtype=np.int64)
    cur = np.zeros(n)
    obj = 0.0
    for i in range(m):
        holder[tau[i]] = i
        cur[tau[i]] = A[i, tau[i]]
        obj += cur[tau[i]]
    best_d = np.empty(n)
    best_p = np.empty(n, dtype=np.int64)
    rounds = 0
    switches = 0
    while rounds < max_rounds:
        rounds += 1
        for x in range(n):
            pair_row(A, AT, holder, cur, x, best_d, best_p)
        applied = 0
        for x in range(n):
            p = best_p[x]
            if best_d[x] > tol and x < p and best_p[p] == x:
                hx, hp = holder[x], holder[p]
                holder[x], holder[p] = hp, hx
                cur[x] = A[hp, x] if hp >= 0 else 0.0
                cur[p] = A[hx, p] if hx >= 0 else 0.0
                if hx >= 0:
                    tau[hx] = p
                if hp >= 0:
                    tau[hp] = x
                obj += best_d[x]
                applied += 1
        switches += applied
        if applied == 0:
            break
    return rounds, switches, obj


# ------------------------------------------------------------------------- the trace


def check_trace_capacity(capacity) -> int:
    """``capacity`` (trace points kept) as an int; ValueError unless it is a positive integer
    (the trace writers do no bounds checks, so 0 is refused)."""
    if isinstance(capacity, (bool, np.bool_)) or not isinstance(capacity, (int, np.integer)) or capacity < 1:
        raise ValueError(f"trace_capacity must be a positive integer, got {capacity!r}")
    return int(capacity)


def new_trace(capacity: int = 4096):
    """Empty trace buffers ``(arrays (3, capacity), meta [count, stride])``; see
    :func:`check_trace_capacity`."""
    return np.zeros((3, check_trace_capacity(capacity))), np.array([0, 1], dtype=np.int64)


def parse_time_limit(time_limit) -> float:
    """``time_limit`` (seconds, or None for none) in microseconds; ValueError unless it is
    None or a number ``>= 0`` (0 stops after the first switch)."""
    if time_limit is None:
        return np.inf
    try:
        t = float(time_limit)
    except (TypeError, ValueError):
        raise ValueError(f"time_limit must be None or a number of seconds >= 0, got {time_limit!r}") from None
    if not t >= 0:  # also refuses NaN
        raise ValueError(f"time_limit must be None or a number of seconds >= 0, got {time_limit!r}")
    return t * 1e6


def trace_arrays(trace, meta, start_obj, final=None):
    """``(switches, objective, ms)`` of a trace, starting with the initial point (0, obj, 0)
    and ending with ``final = (switches, obj, ms)`` when given."""
    c = int(meta[0])
    sw = np.concatenate([[0], trace[0, :c]]).astype(np.int64)
    ob = np.concatenate([[start_obj], trace[1, :c]])
    ms = np.concatenate([[0.0], trace[2, :c] / 1e3])
    if final is not None and sw[-1] != final[0]:
        sw, ob, ms = np.append(sw, final[0]), np.append(ob, final[1]), np.append(ms, final[2])
    return sw, ob, ms


def make_dgs_result(B, tau, variant, stats, t0, start_obj, trace_sw, trace_obj, trace_ms):
    """The AssignmentResult of a DGS run (``algorithm="dgs"``, no prices)."""
    a = np.asarray(tau, dtype=np.int64)
    stats.update(initial_objective=start_obj, trace_switches=trace_sw, trace_objective=trace_obj,
                 trace_ms=trace_ms, total_ms=(time.perf_counter() - t0) * 1e3)
    return AssignmentResult(assignment=a, objective=objective(B, a), variant=variant, algorithm="dgs",
                            stats=stats)


# -------------------------------------------------------------------- independent check


def exchange_gains(B, assignment):
    """The largest gain of any single exchange on ``assignment``, computed with dense numpy
    algebra (no loop shared with the solvers): ``(best swap gain between two agents, best
    move gain to a free job)``; ``-inf`` where there is none.  An exchange-optimal
    assignment has both ``<= tol``."""
    A = np.asarray(B, dtype=np.float64)
    a = np.asarray(assignment)
    m, n = A.shape
    c = A[np.arange(m), a]
    P = A[:, a]                         # P[i, k]: agent i's benefit for agent k's job
    G = P - c[:, None]                  # gain of agent i taking k's job
    D = G + G.T
    np.fill_diagonal(D, -np.inf)
    swap = float(D.max()) if m > 1 else -np.inf
    free = np.setdiff1d(np.arange(n), a)
    move = float((A[:, free] - c[:, None]).max()) if free.size else -np.inf
    return swap, move


# ------------------------------------------------------------------------------ solver


def solve_serial(B, eps=None, init="random", seed=0, time_limit=None, trace_capacity: int = 4096,
                 force: bool = False) -> AssignmentResult:
    """Serial DGS (numba).  ``init``: ``"random"`` (from ``seed``), ``"greedy"`` or an
    assignment array; ``time_limit``: seconds, after which the best assignment so far (the
    current one: DGS only ever improves it) is returned with ``stats["converged"] = False``.
    ``eps`` is not used (DGS is a heuristic); it is accepted for ``solve``'s signature.

    Maximises, like the auction; to minimise costs ``C`` pass ``-C`` (or ``C.max() - C``):
    every gain is a difference of benefits, so both give the same run.

    Stats: ``switches`` applied, ``steps`` (switch attempts, stale ones included),
    ``passes`` (full evaluations), ``converged``, ``tol``, the start's objective and
    the anytime trace (``trace_switches``, ``trace_objective``, ``trace_ms``).

    Raises ValueError for a bad matrix (see :func:`prepare`), a bad ``init`` or ``seed``,
    a negative or NaN ``time_limit`` and a ``trace_capacity`` below 1."""
    t0 = time.perf_counter()
    limit_us = parse_time_limit(time_limit)
    trace, meta = new_trace(trace_capacity)
    A, AT, tol = prepare(B, force)
    tau = initial_assignment(A, init, seed)
    start_obj = float(A[np.arange(A.shape[0]), tau].sum())
    t1 = time.perf_counter()
    state = np.array([start_obj, 0.0, 0.0, _now_us()])
    passes, converged = dgs(A, AT, tau, tol, trace, meta, state, limit_us)
    t2 = time.perf_counter()
    solve_ms = (t2 - t1) * 1e3
    sw, ob, ms = trace_arrays(trace, meta, start_obj, (int(state[1]), state[0], solve_ms))
    stats = {"switches": int(state[1]), "steps": int(state[2]), "passes": int(passes), "converged": bool(converged),
             "tol": tol, "init": init if isinstance(init, str) else "given", "prepare_ms": (t1 - t0) * 1e3,
             "solve_ms": solve_ms, "device": "cpu (numba, 1 thread)"}
    return make_dgs_result(B, tau, "serial", stats, t0, start_obj, sw, ob, ms)
