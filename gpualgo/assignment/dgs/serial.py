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
optimum in general; :mod:`gpualgo.assignment.dgs.bench` measures the gap, and
:mod:`gpualgo.assignment.dgs.checks` checks the promise independently.

One loop runs every version that keeps the serial order (:func:`dgs`): its passes call a
difference evaluation (:class:`CpuEvaluation` here, the GPU kernels in
:mod:`gpualgo.assignment.dgs.gpu`), its switching phase runs compiled
(:func:`switch_phase`) or one step at a time from Python (:func:`switch_steps`, where the
evaluation of the touched rows is the GPU's, or where :func:`walk` reports every step).
The serial numba building blocks (:func:`full_de`, :func:`ade_row`, :func:`jde_row`,
:func:`pick_and_apply`, :func:`reevaluate`) are the same in all of them.

>>> import numpy as np
>>> from gpualgo.assignment.dgs import serial
>>> tau, events = serial.walk(np.array([[5, 1, 0], [1, 5, 0]]), init=np.array([1, 0]))
>>> [e["kind"] for e in events]
['start', 'pass', 'switch', 'pass']
>>> tau.tolist(), events[2]["gain"]
([0, 1], 8.0)
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from ... import gpu, guards
from .. import problem
from ..result import AssignmentResult
from .clock import host_us, new_clock, now_us, parse_time_limit
from .trace import check_trace_capacity, make_dgs_result, new_trace, record_trace, trace_arrays

__all__ = ["prepare", "check_size", "initial_assignment", "start_state", "ade_row", "jde_row", "full_de", "reevaluate",
           "CpuEvaluation", "pick_and_apply", "switch_phase", "switch_steps", "dgs", "walk", "pair_row",
           "mutual_pairs", "check_conflicts", "parallel_rounds", "solve_serial"]

NEG = -np.inf


# --------------------------------------------------------------------------- input


def check_size(m: int, n: int, force: bool = False, transpose: bool = True) -> None:
    """Refuse (ValueError with the estimate, unless ``force``) an ``m x n`` matrix whose float64
    copies in :func:`prepare` (``A``, and ``AT`` with ``transpose``) would not fit in the host's
    memory (:func:`gpualgo.guards.memory`); needs only the shape."""
    copies = 2 if transpose else 1
    guards.memory(8 * copies * m * n, f"DGS on a {m} x {n} matrix ({'B and its transpose' if transpose else 'B'} "
                  "in float64)", force, where="host")


def prepare(B, force: bool = False, transpose: bool = True):
    """Validate ``B`` for DGS; returns ``(A, AT, tol)`` (``AT`` is None without ``transpose``).

    ``A``: ``(m, n)`` float64 copy of ``B``; ``AT`` its transpose (C-contiguous, so that
    a column of ``A`` is a row of ``AT``); ``tol``: the gain an exchange must exceed to
    count as an improvement (0 for integer benefits, else ``64 * eps64 * max|B|``, so that
    rounding cannot make DGS cycle).

    Raises ValueError for a non-numeric or non-2-D matrix, ``m > n``, NaN or ``+inf``,
    missing edges (``-inf``: DGS needs a complete matrix), integer dtypes with ``|b| >= 2**50``
    (too large for exact float64 sums) and floats so large that sums of ``4n`` of them
    overflow (both by :func:`~gpualgo.assignment.problem.check_range`, the auction's rule), and, before anything is allocated, a matrix whose
    float64 copies (``A``, and ``AT`` with ``transpose``) would not fit in the host's memory
    (:func:`gpualgo.guards.memory`; ``force=True`` insists).
    """
    M = problem.as_matrix(B)
    m, n = M.shape
    check_size(m, n, force, transpose)
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
    if M.dtype.kind in "iu":
        problem.check_range(big, 2.0**50, "for exact float64 sums (integer benefits)")
    else:  # a gain adds four benefits and the objective m: both must stay finite
        problem.check_float_range(big, n)
    # whole-numbered floats below 2**50 add up exactly, like integers; larger floats get a tolerance
    integer = M.dtype.kind in "iu" or (big < 2.0**50 and bool(np.array_equal(A, np.rint(A))))
    tol = 0.0 if integer else 64 * np.finfo(np.float64).eps * big
    AT = np.ascontiguousarray(A.T) if transpose else None
    return A, AT, float(tol)


@njit(cache=True)
def _greedy(A):
    """The greedy start: agents in index order, each takes its best free job (ties to the
    lowest job); ``O(m n)``, the cost of one full difference evaluation."""
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
    jobs.  Returns int64 ``tau`` (the job of each agent).

    The paper (Sec. 3.1) offers both starts, a random one and "a greedy initial assignment
    where the benefit is taken into account", without saying which greedy rule; ``"greedy"``
    is the simplest one (:func:`_greedy`). It found no clear advantage to either and kept
    the random start, the greedy one taking a bit longer; the ``serial_phases`` preset of
    :mod:`gpualgo.assignment.dgs.bench` measures both on the same instances."""
    m, n = A.shape
    if isinstance(init, str):
        if init == "random":
            return guards.rng(seed).permutation(n)[:m].astype(np.int64)
        if init == "greedy":
            return _greedy(A)
        raise ValueError(f"init must be 'random', 'greedy' or an assignment array, got {init!r}")
    tau = np.asarray(init)
    if tau.shape != (m,) or tau.dtype.kind not in "iu":
        raise ValueError(f"an initial assignment must be {m} integers, got shape {tau.shape}, dtype {tau.dtype}")
    if m and (tau.min() < 0 or tau.max() >= n or np.unique(tau).size != m):
        raise ValueError(f"the initial assignment must give the {m} agents distinct jobs in [0, {n})")
    return tau.astype(np.int64)


def start_state(A, tau):
    """``(holder, cur)`` of the assignment ``tau``: ``holder[j]`` the agent of job ``j`` (-1
    when free), ``cur[j]`` that agent's benefit for it (0 when free)."""
    m, n = A.shape
    holder = np.full(n, -1, dtype=np.int64)
    holder[tau] = np.arange(m)
    cur = np.zeros(n)
    cur[tau] = A[np.arange(m), tau]
    return holder, cur


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


@njit(cache=True)
def reevaluate(A, AT, tau, holder, cur, ad, aj, jd, ji, a, k, x, y):
    """After a switch (agent ``a`` from job ``x`` to ``y``, agent ``k`` from ``y`` to ``x``, or
    ``k = -1`` for a move to a free job): ADE of its agents and JDE of its two jobs, the
    only rows whose best exchange may have been the switch itself."""
    ad[a], aj[a] = ade_row(A, AT, tau, holder, cur, a)
    if k >= 0:
        ad[k], aj[k] = ade_row(A, AT, tau, holder, cur, k)
    jd[x], ji[x] = jde_row(A, AT, tau, holder, cur, x)
    jd[y], ji[y] = jde_row(A, AT, tau, holder, cur, y)


class CpuEvaluation:
    """The difference evaluation on the CPU (numba), called as every evaluation of
    :func:`dgs` is: ``evaluate(tau, holder, cur, ad, aj, jd, ji, agents=None, jobs=None)``
    evaluates the rows ``agents`` and ``jobs`` (None: all, a full pass) into ``ad, aj, jd,
    ji``. The GPU's evaluation (:mod:`gpualgo.assignment.dgs.gpu`) is called the same way."""

    def __init__(self, A, AT):
        self.A, self.AT = A, AT
        self.calls = 0

    def __call__(self, tau, holder, cur, ad, aj, jd, ji, agents=None, jobs=None):
        self.calls += 1
        if agents is None and jobs is None:
            full_de(self.A, self.AT, tau, holder, cur, ad, aj, jd, ji)
            return
        for i in agents or ():
            ad[i], aj[i] = ade_row(self.A, self.AT, tau, holder, cur, i)
        for x in jobs or ():
            jd[x], ji[x] = jde_row(self.A, self.AT, tau, holder, cur, x)


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


@njit(cache=False)
def switch_phase(A, AT, tau, holder, cur, ad, aj, jd, ji, tol, state, trace, tr_meta, clk, t_end, phases):
    """Switch while a stored gain exceeds ``tol``, re-evaluating the touched agents and jobs
    on the CPU.  ``state = [objective, switches, steps, t0_us]`` is updated in place.
    Returns the number of switches applied (stops early when the clock passes ``t_end``).

    ``phases``: an empty float64 array, or ``[evaluation_us, switching_us, reevaluation_us]``
    (see :func:`dgs`), whose last entry then gains the time of the re-evaluations (one more
    clock reading per switch: the one after it is the trace's)."""
    out = np.empty(4, dtype=np.int64)
    applied = 0
    timed = phases.size == 3
    t_re = 0.0
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
        if timed:
            t_re = now_us(clk)
        reevaluate(A, AT, tau, holder, cur, ad, aj, jd, ji, out[0], out[1], out[2], out[3])
        t = now_us(clk)
        if timed:
            phases[2] += t - t_re
        record_trace(trace[0], trace[1], trace[2], tr_meta, np.int64(state[1]), state[0], t - state[3])
        if t > t_end:
            break
    return applied


def switch_steps(A, tau, holder, cur, ad, aj, jd, ji, tol, state, trace, tr_meta, clk, t_end, evaluate,
                 report=None):
    """:func:`switch_phase` one step at a time from Python: the same steps, with the touched
    agents and jobs re-evaluated by ``evaluate`` (see :class:`CpuEvaluation`; on the GPU for
    ``gpu_de_global`` and ``gpu_de_shared``), and every step told to ``report(kind, **what)``
    when given (``"stale"``: a stored gain no longer improved; ``"switch"``: ``agent`` moved
    from ``old_job`` to ``new_job``, ``other`` the other way or -1, ``gain``, ``objective``).
    Returns the number of switches applied."""
    out = np.empty(4, dtype=np.int64)
    applied = 0
    while True:
        r = pick_and_apply(A, tau, holder, cur, ad, aj, jd, ji, tol, out)
        if r == 0.0:
            break
        state[2] += 1
        if r == 1.0:
            if report is not None:
                report("stale")
            continue
        state[0] += r - 2.0
        state[1] += 1
        applied += 1
        a, k, x, y = (int(v) for v in out)
        evaluate(tau, holder, cur, ad, aj, jd, ji, agents=[a] if k < 0 else [a, k], jobs=[x, y])
        if report is not None:
            report("switch", agent=a, other=k, old_job=x, new_job=y, gain=r - 2.0, objective=float(state[0]))
        t = now_us(clk)
        record_trace(trace[0], trace[1], trace[2], tr_meta, np.int64(state[1]), state[0], t - state[3])
        if t > t_end:
            break
    return applied


def dgs(A, AT, tau, tol, trace, tr_meta, state, time_limit_us, evaluate=None, python_steps=False, report=None,
        phases=None):
    """The DGS loop (the paper's Algorithm 1) on ``tau`` (modified in place): a full
    difference evaluation, then a switching phase, until a pass applies nothing.

    ``evaluate``: the difference evaluation (:class:`CpuEvaluation` when None; the GPU
    versions pass theirs); ``python_steps``: switch with :func:`switch_steps` (the touched
    rows re-evaluated by ``evaluate``, every step told to ``report``) rather than the
    compiled :func:`switch_phase`; ``report(kind, **what)`` also hears ``"pass"`` (its
    ``number`` and the stored ``agent_gains`` and ``job_gains``). ``state = [objective,
    switches, steps, t0_us]`` is updated in place; the run stops after the pass during which
    the clock passed ``t0_us + time_limit_us``. Returns ``(passes, converged)``.

    ``phases``: None, or a float64 array of three zeros that receives the microseconds spent
    in the full difference evaluations (the paper's Sec. 3.2), in the switching phases (Sec.
    3.3: picking, applying and re-evaluating the touched rows) and, within the switching, in
    those re-evaluations (compiled switching only). Three clock readings per pass, and one per
    switch; without it, nothing is read."""
    holder, cur = start_state(A, tau)
    m, n = A.shape
    evaluate = CpuEvaluation(A, AT) if evaluate is None else evaluate
    ad, aj = np.empty(m), np.empty(m, dtype=np.int64)
    jd, ji = np.empty(n), np.empty(n, dtype=np.int64)
    clk = new_clock()
    t_end = state[3] + time_limit_us
    ph = np.empty(0) if phases is None else phases
    passes = 0
    while True:
        passes += 1
        if phases is not None:
            t_a = now_us(clk)
        evaluate(tau, holder, cur, ad, aj, jd, ji)
        if phases is not None:
            ph[0] += now_us(clk) - t_a
        if report is not None:
            report("pass", number=passes, agent_gains=ad.copy(), job_gains=jd.copy())
        if phases is not None:
            t_b = now_us(clk)
        if python_steps:
            applied = switch_steps(A, tau, holder, cur, ad, aj, jd, ji, tol, state, trace, tr_meta, clk, t_end,
                                   evaluate, report)
        else:
            applied = switch_phase(A, AT, tau, holder, cur, ad, aj, jd, ji, tol, state, trace, tr_meta, clk, t_end,
                                   ph)
        if phases is not None:
            ph[1] += now_us(clk) - t_b
        # a pass that applied nothing ran to its end (the clock stops a phase only after a
        # switch): the assignment is exchange-optimal, even when the limit has passed meanwhile
        if applied == 0:
            return passes, True
        if now_us(clk) > t_end:
            return passes, False


def walk(B, init="random", seed=0):
    """Serial DGS on a small ``B`` with every step reported, to read the algorithm one
    switch at a time: the same loop as :func:`solve_serial` (:func:`dgs`, switching from
    Python, so the same assignment).

    Returns ``(tau, events)``: the final job of each agent, and the events in order, each a
    dict with its ``kind``: ``"start"`` (``jobs``, ``free_jobs``, ``objective``), ``"pass"``
    (``number``, ``agent_gains``, ``job_gains``: what the full evaluation stored), ``"stale"``
    and ``"switch"`` (see :func:`switch_steps`)."""
    A, AT, tol = prepare(B)
    tau = initial_assignment(A, init, seed)
    holder, _ = start_state(A, tau)
    start_obj = float(A[np.arange(A.shape[0]), tau].sum())
    events = [dict(kind="start", jobs=tau.tolist(), free_jobs=np.flatnonzero(holder < 0).tolist(),
                   objective=start_obj)]

    def report(kind, **what):
        events.append(dict(kind=kind, **what))

    trace, meta = new_trace(16)
    state = np.array([start_obj, 0.0, 0.0, host_us()])
    dgs(A, AT, tau, tol, trace, meta, state, np.inf, python_steps=True, report=report)
    return tau, events


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
def _apply_pair(A, tau, holder, cur, x, p):
    """Exchange jobs ``x`` and ``p``: their holders swap (a free job's holder is -1)."""
    hx, hp = holder[x], holder[p]
    holder[x], holder[p] = hp, hx
    cur[x] = A[hp, x] if hp >= 0 else 0.0
    cur[p] = A[hx, p] if hx >= 0 else 0.0
    if hx >= 0:
        tau[hx] = p
    if hp >= 0:
        tau[hp] = x


@njit(cache=True)
def mutual_pairs(best_d, best_p, tol):
    """The rows ``x`` of the *mutual* best pairs with a gain above ``tol``
    (``best_p[best_p[x]] == x``, ``x`` the lower job of the pair)."""
    n = best_d.size
    keep = np.empty(n // 2 + 1, dtype=np.int64)
    k = 0
    for x in range(n):
        p = best_p[x]
        if best_d[x] > tol and x < p and best_p[p] == x:
            keep[k] = x
            k += 1
    return keep[:k]


@njit(cache=True)
def check_conflicts(tau, holder, best_d, best_p, tol):
    """The paper's Check-Conflicts (Sec. 5, Algorithm 4), on job rows: the agents in index
    order (agent ``i``'s row ``tau[i]``), then the free jobs in index order; a candidate with a
    gain above ``tol`` is kept when neither of its two jobs is reserved by a kept one, and then
    reserves both; otherwise it is dropped (conflicting) for this round.  Returns ``(rows kept,
    candidates dropped)``; see ``check_conflicts`` in ``gpualgo/kernels/dgs.cu`` for the
    reading of the paper."""
    m, n = tau.size, holder.size
    reserved = np.zeros(n, dtype=np.bool_)
    keep = np.empty(n // 2 + 1, dtype=np.int64)
    k = 0
    dropped = 0
    for c in range(m + n):
        x = tau[c] if c < m else c - m
        if (c >= m and holder[x] >= 0) or not best_d[x] > tol:
            continue
        p = best_p[x]
        if reserved[x] or reserved[p]:
            dropped += 1
            continue
        reserved[x] = reserved[p] = True
        keep[k] = x
        k += 1
    return keep[:k], dropped


@njit(cache=True)
def parallel_rounds(A, AT, tau, tol, max_rounds, conflicts=False):
    """The rule of the full-GPU version, run serially (its twin for the tests): every round
    evaluates every job's best exchange, then applies at once the exchanges a selection
    picks: the *mutual* best pairs (``best_p[best_p[x]] == x``, :func:`mutual_pairs`) or,
    with ``conflicts=True``, those the paper's Check-Conflicts keeps (:func:`check_conflicts`).
    Either picks exchanges that share no job, so their gains add up exactly; either picks
    one at least while an exchange gains more than ``tol`` (the largest gain is always
    mutual; Check-Conflicts keeps its first candidate), so a round that applies nothing
    means no exchange improves.  Returns ``(rounds, switches, objective, dropped)``, the last
    the candidates Check-Conflicts dropped over the run (0 for mutual pairs)."""
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
    rounds = switches = dropped = 0
    while rounds < max_rounds:
        rounds += 1
        for x in range(n):
            pair_row(A, AT, holder, cur, x, best_d, best_p)
        if conflicts:
            keep, d = check_conflicts(tau, holder, best_d, best_p, tol)
            dropped += d
        else:
            keep = mutual_pairs(best_d, best_p, tol)
        for x in keep:
            _apply_pair(A, tau, holder, cur, x, best_p[x])
            obj += best_d[x]
        switches += keep.size
        if keep.size == 0:
            break
    return rounds, switches, obj, dropped


# ------------------------------------------------------------------------------ solver


def solve_serial(B, eps=None, init="random", seed=0, time_limit=None, trace_capacity: int = 4096,
                 force: bool = False, phases: bool = False) -> AssignmentResult:
    """Serial DGS (numba).  ``init``: ``"random"`` (from ``seed``), ``"greedy"`` or an
    assignment array; ``time_limit``: seconds, after which the best assignment so far (the
    current one: DGS only ever improves it) is returned with ``stats["converged"] = False``.
    ``eps`` is not used (DGS is a heuristic); it is accepted for ``solve``'s signature.

    Maximises, like the auction; to minimise costs ``C`` pass ``-C`` (or ``C.max() - C``):
    every gain is a difference of benefits, so both give the same run.

    Stats: the times of :data:`gpualgo.result.TIMES` (``prepare_ms``: validation, the float64
    copies and the start; ``exec_ms``: the DGS loop), ``switches`` applied, ``steps`` (switch
    attempts, stale ones included), ``passes`` (full evaluations), ``converged``, ``tol``,
    the start's objective and the anytime trace (``trace_switches``, ``trace_objective``,
    ``trace_ms``), ``start_ms`` (the start's own time, within ``prepare_ms``). With
    ``phases=True`` also the phases of ``exec_ms`` (see :func:`dgs`): ``eval_ms`` (the full
    difference evaluations), ``switch_ms`` (the switching phases) and ``reeval_ms`` (the
    re-evaluations of the touched rows, part of ``switch_ms``); their sum stays below
    ``exec_ms``, the rest being the loop's own work.

    Raises ValueError for a bad matrix (see :func:`prepare`, which also refuses a matrix too
    large for the host's memory unless ``force``), a bad ``init`` or ``seed``, a negative or
    NaN ``time_limit`` and a ``trace_capacity`` below 1 (or one whose trace would not fit in
    the host's memory, unless ``force``)."""
    t0 = time.perf_counter()
    phases = guards.flag(phases, "phases")
    limit_us = parse_time_limit(time_limit)
    # the trace's three float64 arrays, before they are allocated (the default's 96 KiB are
    # never refused: the matrix's own guard, in prepare, speaks for the run)
    if check_trace_capacity(trace_capacity) > 4096:
        guards.memory(24 * trace_capacity, f"a trace of {trace_capacity} points", force,
                      where="host", hint="use a smaller trace_capacity")
    trace, meta = new_trace(trace_capacity)
    A, AT, tol = prepare(B, force)
    ts = time.perf_counter()
    tau = initial_assignment(A, init, seed)
    start_ms = (time.perf_counter() - ts) * 1e3
    start_obj = float(A[np.arange(A.shape[0]), tau].sum())
    ph = np.zeros(3) if phases else None
    t1 = time.perf_counter()
    state = np.array([start_obj, 0.0, 0.0, host_us()])
    passes, converged = dgs(A, AT, tau, tol, trace, meta, state, limit_us, phases=ph)
    t2 = time.perf_counter()
    exec_ms = (t2 - t1) * 1e3
    sw, ob, ms = trace_arrays(trace, meta, start_obj, (int(state[1]), state[0], exec_ms))
    stats = {"prepare_ms": (t1 - t0) * 1e3, "exec_ms": exec_ms, "device": gpu.cpu_label(),
             "switches": int(state[1]), "steps": int(state[2]), "passes": int(passes), "converged": bool(converged),
             "tol": tol, "init": init if isinstance(init, str) else "given", "start_ms": start_ms}
    if phases:
        stats.update(eval_ms=float(ph[0]) / 1e3, switch_ms=float(ph[1]) / 1e3, reeval_ms=float(ph[2]) / 1e3)
    return make_dgs_result(B, tau, "serial", stats, t0, start_obj, sw, ob, ms)
