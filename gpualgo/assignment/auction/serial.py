"""The serial auction (the report's Algorithm 1), compiled with numba.

Rounds are Jacobi rounds, exactly as in the report: every unassigned person bids
against the prices at the start of the round; each object that received bids goes
to the highest bid (ties to the lowest person index) and its price rises by that bid;
the previous owner becomes unassigned.  A person's best object is the first one with
the highest profit (ties to the lowest object index).  The GPU variants follow the
same rules, so the deterministic ones reproduce this function bit for bit.

All arithmetic is on ``int64`` in the scaled units of :mod:`.problem`.
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from ... import gpu, guards
from .. import problem
from ..result import make_result

__all__ = ["auction_rounds", "auction", "phase", "auction_eps_scaling", "eps_schedule", "NEG"]

#: below every reachable profit (prices stay far below 2**61)
NEG = -(1 << 62)
_MISSING = np.int32(np.iinfo(np.int32).min)
_NO_WALK = np.zeros(0, np.int64)         # auction_rounds' walk, not counted


@njit(cache=True)
def _person_bid(raw, i, scale, price, eps, cap):
    """(object, increment) of person i's bid: best profit g1 minus second best g2 plus eps."""
    n = raw.shape[1]
    g1 = NEG
    g2 = NEG
    best = -1
    for j in range(n):
        a = raw[i, j]
        if a == _MISSING:
            continue
        profit = np.int64(a) * scale - price[j]
        if profit > g1:
            g2 = g1
            g1 = profit
            best = j
        elif profit > g2:
            g2 = profit
    if g2 == NEG:  # one edge only: the report bids +inf; a finite cap keeps int64 safe
        inc = cap
    else:
        inc = min(g1 - g2 + eps, cap)
    return best, inc


@njit(cache=True)
def auction_rounds(raw, scale, eps, cap, price, person_obj, obj_owner, max_rounds, active, stop=0, walk=_NO_WALK):
    """Run Jacobi rounds until every person is assigned (until at most ``stop`` are not:
    :mod:`.tails` hands the rest to other methods); prices and matching are updated in place.

    ``active`` is a preallocated int64 array that receives the number of bidders of
    each round (as many as fit); ``walk``, unless empty, one entry per person, counts the
    rounds in which that person was the only bidder (:func:`.tails.walks`).  Returns the
    number of rounds, or -1 when ``max_rounds`` is reached first.
    """
    m, n = raw.shape
    bid_inc = np.zeros(n, np.int64)
    bid_from = np.full(n, -1, np.int64)
    touched = np.empty(n, np.int64)
    bidders = np.empty(m, np.int64)
    nb = 0
    for i in range(m):
        if person_obj[i] < 0:
            bidders[nb] = i
            nb += 1
    nxt = np.empty(m, np.int64)
    rounds = 0
    while nb > stop:
        if rounds >= max_rounds:
            return -1
        if rounds < active.shape[0]:
            active[rounds] = nb
        if nb == 1 and walk.shape[0] > 0:
            walk[bidders[0]] += 1
        rounds += 1
        # bidding phase: everybody sees the same prices (Jacobi)
        nt = 0
        for k in range(nb):
            i = bidders[k]
            j, inc = _person_bid(raw, i, scale, price, eps, cap)
            if bid_from[j] < 0:
                touched[nt] = j
                nt += 1
                bid_inc[j] = inc
                bid_from[j] = i
            elif inc > bid_inc[j] or (inc == bid_inc[j] and i < bid_from[j]):
                bid_inc[j] = inc
                bid_from[j] = i
        # assignment phase
        nn = 0
        for t in range(nt):
            j = touched[t]
            winner = bid_from[j]
            prev = obj_owner[j]
            if prev >= 0:
                person_obj[prev] = -1
                nxt[nn] = prev
                nn += 1
            price[j] += bid_inc[j]
            obj_owner[j] = winner
            person_obj[winner] = j
            bid_from[j] = -1
            bid_inc[j] = 0
        for k in range(nb):
            i = bidders[k]
            if person_obj[i] < 0:
                nxt[nn] = i
                nn += 1
        bidders, nxt = nxt, bidders
        nb = nn
    return rounds


#: the default divisor of eps from one eps-scaling phase to the next (the ``eps_factor`` sweep of
#: :mod:`.bench` is the evidence for it)
EPS_FACTOR = 3


def eps_schedule(span: int, eps_final: int, eps_start=None, factor: int = EPS_FACTOR) -> list[int]:
    """The epsilons of eps-scaling, in scaled units: ``eps_start``, divided by ``factor``, ..., ``eps_final``.

    The default start is ``span / 8`` (an eighth of the benefit range), never below
    the final epsilon and never above the range (a bid needs ``eps <= cap``).
    """
    factor = _count(factor, "eps_factor", 2)
    start = max(span // 8, eps_final) if eps_start is None else _count(eps_start, "eps_start", 1)
    start = max(min(start, max(span, eps_final)), eps_final)
    out = [start]
    while out[-1] > eps_final:
        out.append(max(eps_final, out[-1] // factor))
    return out


#: the largest round limit (a round count is an int64 in the compiled loop)
MAX_ROUNDS = 2**62
#: the serial versions' defaults: the round limit and the rounds whose bidders are recorded
DEFAULT_MAX_ROUNDS = 10**9
DEFAULT_RECORD_ROUNDS = 100_000


def _count(value, name: str, low: int, high: int | None = None) -> int:
    """``value`` as an int in ``low..high``; ValueError naming ``name`` and the value otherwise
    (bools, floats with a fraction, NaN and infinities included)."""
    if isinstance(value, (bool, np.bool_)):
        ok = False
    elif isinstance(value, (int, np.integer)):
        ok = True
    else:
        ok = isinstance(value, (float, np.floating)) and np.isfinite(value) and value == int(value)
    if not ok or not low <= int(value) <= (int(value) if high is None else high):
        shown = repr(value) if len(repr(value)) < 40 else f"an integer of {len(str(value))} digits"
        top = "2**62" if high == MAX_ROUNDS else str(high)
        bounds = f"{low} or more" if high is None else f"in {low}..{top}"
        raise ValueError(f"{name} must be an integer {bounds}, got {shown}")
    return int(value)


def check_limits(max_rounds=DEFAULT_MAX_ROUNDS, record_rounds=DEFAULT_RECORD_ROUNDS,
                 force: bool = False) -> tuple[int, int]:
    """``(max_rounds, record_rounds)`` checked before any run: ``max_rounds`` in
    ``1..MAX_ROUNDS``, ``record_rounds`` (rounds whose bidder counts are kept, 8 bytes each)
    ``>= 0`` and within the host's memory (:func:`gpualgo.guards.memory`, unless ``force``)."""
    max_rounds = _count(max_rounds, "max_rounds", 1, MAX_ROUNDS)
    record_rounds = _count(record_rounds, "record_rounds", 0)
    guards.memory(8 * min(record_rounds, max_rounds), f"recording the bidders of {record_rounds} rounds", force,
                  where="host", hint="use a smaller record_rounds")
    return max_rounds, record_rounds


def auction(prob, max_rounds: int = DEFAULT_MAX_ROUNDS, record_rounds: int = DEFAULT_RECORD_ROUNDS):
    """Serial auction on an :class:`~.problem.IntProblem` with its final epsilon.

    Returns ``(person_obj, price, rounds, active_bidders)``; raises RuntimeError after
    ``max_rounds`` rounds (an eps far below the benefit scale can need billions).
    """
    m, n = prob.raw.shape
    price = np.zeros(n, np.int64)
    person_obj = np.full(m, -1, np.int64)
    obj_owner = np.full(n, -1, np.int64)
    active = np.zeros(min(record_rounds, max_rounds), np.int64)
    rounds = auction_rounds(prob.raw, np.int64(prob.scale), np.int64(prob.eps), np.int64(prob.cap),
                            price, person_obj, obj_owner, np.int64(max_rounds), active)
    if rounds < 0:
        raise RuntimeError(f"no convergence within max_rounds={max_rounds} rounds: without eps-scaling, price "
                           "wars can take about (the benefits' range / eps) rounds; scaling=True ends them "
                           "in far fewer")
    return person_obj, price, rounds, active[:min(rounds, record_rounds)].copy()


#: no bidders recorded (an ``active`` array of length 0)
_NO_RECORD = np.zeros(0, np.int64)


def phase(prob, eps: int, price, person_obj, obj_owner, max_rounds: int = MAX_ROUNDS, active=_NO_RECORD) -> int:
    """One eps-scaling phase on ``prob`` (square): everybody unassigned, the prices kept, Jacobi
    rounds (:func:`auction_rounds`, ``active`` recording their bidders) until all are assigned.
    Returns its rounds, or -1 once ``max_rounds`` are reached first."""
    person_obj[:] = -1
    obj_owner[:] = -1
    return int(auction_rounds(prob.raw, np.int64(prob.scale), np.int64(eps), np.int64(max(prob.cap, eps)),
                              price, person_obj, obj_owner, np.int64(max_rounds), active))


def auction_eps_scaling(prob, eps_start=None, eps_factor: int = EPS_FACTOR, max_rounds: int = DEFAULT_MAX_ROUNDS,
                        record_rounds: int = DEFAULT_RECORD_ROUNDS):
    """Serial eps-scaling auction: phases with decreasing eps, prices kept, all persons unassigned.

    The same Jacobi rules as :func:`auction` in every phase; it is the serial twin of
    the ``gpu_eps_scaling`` and ``gpu_sparse`` variants (which must reproduce it).
    ``prob`` must be square (``problem.prepare(B, square=True)`` pads it).  Returns
    ``(person_obj, price, rounds, active_bidders, rounds_per_phase, schedule)``.
    """
    m, n = prob.raw.shape
    if m != n:
        raise ValueError("eps-scaling needs a square problem (pad it first)")
    sched = eps_schedule(prob.span, prob.eps, eps_start, eps_factor)
    price = np.zeros(n, np.int64)
    person_obj = np.full(m, -1, np.int64)
    obj_owner = np.full(n, -1, np.int64)
    active = np.zeros(min(record_rounds, max_rounds), np.int64)
    per_phase, total, filled = [], 0, []
    for eps in sched:
        r = phase(prob, eps, price, person_obj, obj_owner, max_rounds - total, active)
        if r < 0:
            raise RuntimeError(f"no convergence within max_rounds={max_rounds} rounds")
        filled.append(active[:min(r, record_rounds)].copy())
        per_phase.append(r)
        total += r
    return person_obj, price, total, np.concatenate(filled), per_phase, sched


def solve_serial(B, eps=None, max_rounds: int = DEFAULT_MAX_ROUNDS, record_rounds: int = DEFAULT_RECORD_ROUNDS,
                 scaling: bool = False, eps_start=None, eps_factor: int = EPS_FACTOR, force: bool = False):
    """The report's serial Algorithm 1 (numba); ``scaling=True`` runs its eps-scaling twin.

    Stats: ``prepare_ms`` (validation and the integer form), ``exec_ms`` (the rounds),
    ``rounds``, ``active_bidders`` per round (the first ``record_rounds``), and with
    scaling ``rounds_per_phase``, ``eps_schedule`` and ``phases``.

    Raises ValueError, before any round, for a bad matrix or eps (:func:`~..problem.prepare`),
    ``max_rounds`` outside ``1..2**62``, a negative ``record_rounds`` (or one whose record
    would not fit in the host's memory, unless ``force``), a matrix whose integer form would
    not fit in it (a wide one padded to ``n x n`` by ``scaling``; unless ``force``),
    ``eps_start < 1`` (scaled units) or ``eps_factor < 2``; RuntimeError when ``max_rounds``
    is reached."""
    t0 = time.perf_counter()
    scaling = guards.flag(scaling, "scaling")
    max_rounds, record_rounds = check_limits(max_rounds, record_rounds, force)
    if eps_start is not None:
        _count(eps_start, "eps_start", 1)
    _count(eps_factor, "eps_factor", 2)
    prob = problem.prepare(B, eps, square=scaling, force=force)
    t1 = time.perf_counter()
    if scaling:
        person_obj, price, rounds, active, per_phase, sched = auction_eps_scaling(
            prob, eps_start, eps_factor, max_rounds, record_rounds)
        extra = {"rounds_per_phase": per_phase, "eps_schedule": sched, "phases": len(sched)}
    else:
        person_obj, price, rounds, active = auction(prob, max_rounds, record_rounds)
        extra = {}
    t2 = time.perf_counter()
    stats = {"prepare_ms": (t1 - t0) * 1e3, "exec_ms": (t2 - t1) * 1e3, "device": gpu.cpu_label(),
             "rounds": int(rounds), "active_bidders": active, **extra}
    return make_result(B, prob, person_obj, price, "serial", stats, t0)
