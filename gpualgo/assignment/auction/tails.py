"""The last rounds of each eps-scaling phase, and seven ways to shorten them that do not pay.

On the GPU most of ``gpu_eps_scaling``'s time goes to the few persons left at the end of each
phase (the single-block tail of :mod:`.gpu`): each round waits for the one before, so what
counts is the length of that chain of dependent steps, not the work in it. This module runs
the serial eps-scaling auction of :mod:`.serial` (numba) up to the point where ``tail_max``
bidders are left in a phase, finishes each phase by one of :data:`METHODS`, and counts the
steps of the chain each method needs, so the comparison holds for any machine:

``jacobi``          what the GPU does: rounds in which every unassigned person bids against the
                    same prices (one step per round, the bidders of a round in parallel);
``gauss_seidel``    one bid at a time against the latest prices (one step per bid);
``shortest_paths``  each unassigned person is matched by a shortest augmenting path in the
                    reduced costs (Dijkstra, as in the Hungarian method), which keeps
                    eps-complementary slackness (a row scan per step: the next row to scan is
                    the closest column found so far);
``stop_early``      every phase but the last stops with ``tail_max`` persons unassigned (the
                    next phase starts with everybody unassigned anyway); the last one runs
                    Jacobi rounds to the end;
``coarse_eps``      every phase but the last finishes its tail with the previous phase's eps
                    (``eps_factor`` times larger, so larger bids); the last one with its own;
``stop_guarded``    ``stop_early`` held back: every phase but the last runs at most ``guard``
                    Jacobi rounds of its tail, then stops with whoever is left unassigned;
``keep_assigned``   every phase after the first starts from the last one's assignment, less the
                    pairs that break its eps-complementary slackness (a row scan per person:
                    :func:`keep_slack`), instead of with everybody unassigned; Jacobi rounds then
                    run it to the end.
``forward_reverse`` Bertsekas' forward-reverse auction (:func:`forward_reverse`): forward rounds
                    until one more pair is assigned, then rounds in which the unassigned objects
                    bid for persons by lowering their prices, until one more is, and so on (one
                    step a round either way).

Every method ends with the last phase complete at the final eps, so every answer is optimal
(the tests check it against scipy); they differ in the prices they hand to later phases, and
so in the rounds with more bidders (``bulk``) too.

:func:`endings` asks how much the chain depends on the epsilons themselves: from the state the
early phases leave, it runs the last phases with their first eps scaled, and counts their rounds.

>>> import numpy as np
>>> B = np.array([[7, 3, 1], [6, 5, 2], [4, 4, 9]])
>>> rows = alternatives(B, tail_max=1)
>>> [r["method"] for r in rows] == list(METHODS), {r["objective"] for r in rows}
(True, {21})
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ... import guards
from .. import checks, problem
from . import serial

__all__ = ["METHODS", "alternatives", "shortest_paths", "gauss_seidel", "forward_reverse", "keep_slack", "table",
           "verdict", "ENDING_SCALES", "endings", "endings_lines", "walks", "walks_lines"]

#: the ways of finishing a phase's last rounds that :func:`alternatives` compares
METHODS = ("jacobi", "gauss_seidel", "shortest_paths", "stop_early", "coarse_eps", "stop_guarded", "keep_assigned",
           "forward_reverse")
_NO_RECORD = np.zeros(0, np.int64)
_FAR = 1 << 62


@njit(cache=True)
def gauss_seidel(raw, scale, eps, cap, price, person_obj, obj_owner):
    """Finish a phase one bid at a time: the unassigned persons in a queue, each bidding
    against the latest prices (the rules of :func:`.serial.auction_rounds`); an outbid owner
    joins the queue. Returns the bids made."""
    m = raw.shape[0]
    queue = np.empty(m, np.int64)
    head = tail = 0
    for i in range(m):
        if person_obj[i] < 0:
            queue[tail % m] = i
            tail += 1
    bids = 0
    while head < tail:
        i = queue[head % m]
        head += 1
        j, inc = serial._person_bid(raw, i, scale, price, eps, cap)
        bids += 1
        prev = obj_owner[j]
        if prev >= 0:
            person_obj[prev] = -1
            queue[tail % m] = prev
            tail += 1
        price[j] += inc
        obj_owner[j] = i
        person_obj[i] = j
    return bids


@njit(cache=True)
def _best_profit(raw, i, scale, price):
    n = raw.shape[1]
    best = serial.NEG
    for k in range(n):
        if raw[i, k] != serial._MISSING:
            p = np.int64(raw[i, k]) * scale - price[k]
            if p > best:
                best = p
    return best


@njit(cache=True)
def shortest_paths(raw, scale, price, person_obj, obj_owner):
    """Match every unassigned person by a shortest augmenting path (Dijkstra on reduced
    costs, the Hungarian method's step) and raise the prices of the columns it settled.

    Person i's reduced cost of object k is ``pi_i - (raw[i, k] * scale - price[k]) >= 0`` with
    ``pi_i`` its best profit; an owned object counts 0 back to its owner (its true reduced cost
    lies in [0, eps] under eps-complementary slackness). After the price update every edge of
    the new path is tight and no reduced cost is negative, so eps-complementary slackness holds
    again, with one more person matched. A missing edge is never used. Returns
    ``(augmentations, rows scanned)``: each scan waits for the one before (the next row is the
    owner of the closest column not yet settled)."""
    m, n = raw.shape
    dist = np.empty(n, np.int64)
    settled = np.zeros(n, np.bool_)
    pred = np.empty(n, np.int64)
    order = np.empty(n, np.int64)
    augmentations = scans = 0
    for i0 in range(m):
        if person_obj[i0] >= 0:
            continue
        augmentations += 1
        pi = _best_profit(raw, i0, scale, price)
        for k in range(n):
            settled[k] = False
            pred[k] = i0
            dist[k] = _FAR if raw[i0, k] == serial._MISSING else pi - (np.int64(raw[i0, k]) * scale - price[k])
        done = 0
        while True:
            j, d = -1, _FAR
            for k in range(n):
                if not settled[k] and dist[k] < d:
                    j, d = k, dist[k]
            if j < 0:                      # cannot happen for a feasible problem
                return -1, scans
            if obj_owner[j] < 0:
                break
            settled[j] = True
            order[done] = j
            done += 1
            i = obj_owner[j]
            scans += 1
            pi = _best_profit(raw, i, scale, price)
            for k in range(n):
                if not settled[k] and raw[i, k] != serial._MISSING:
                    nd = d + pi - (np.int64(raw[i, k]) * scale - price[k])
                    if nd < dist[k]:
                        dist[k] = nd
                        pred[k] = i
        for t in range(done):
            k = order[t]
            price[k] += d - dist[k]
        while True:                          # augment along the path that ends at column j
            i = pred[j]
            prev = person_obj[i]
            person_obj[i] = j
            obj_owner[j] = i
            if i == i0:
                break
            j = prev
    return augmentations, scans


@njit(cache=True)
def _column_top2(raw, j, scale, profit):
    """(person, best, second) of object j's reverse bid: the largest and second largest
    ``raw[i, j] * scale - profit[i]`` over the persons with an edge to j."""
    m = raw.shape[0]
    b1 = serial.NEG
    b2 = serial.NEG
    best = -1
    for i in range(m):
        if raw[i, j] == serial._MISSING:
            continue
        v = np.int64(raw[i, j]) * scale - profit[i]
        if v > b1:
            b2 = b1
            b1 = v
            best = i
        elif v > b2:
            b2 = v
    return best, b1, b2


@njit(cache=True)
def forward_reverse(raw, scale, eps, cap, price, person_obj, obj_owner, max_rounds):
    """Finish a phase by Bertsekas' forward-reverse auction, Jacobi rounds both ways: forward
    rounds (:func:`.serial.auction_rounds`, one at a time) until one more
    pair is assigned, then reverse rounds until one more is, and so on. In a reverse round
    every unassigned object j bids for the person i with the largest ``raw[i, j] * scale -
    profit[i]`` (``profit``: each person's profit; the best one's value beta, the second's
    omega): its price falls to ``omega - eps``, so that i gains at least eps by taking it, and
    a person with several offers takes the best one (ties to the lowest object); the object i
    leaves becomes unassigned. Both directions keep eps-complementary slackness between the
    profits and the prices. Returns the steps: the rounds both ways, plus one row scan a
    switch to reverse rounds takes (each unassigned person's profit is its best one then), or
    -1 after ``max_rounds`` rounds."""
    m, n = raw.shape
    profit = np.empty(m, np.int64)
    for i in range(m):
        j = person_obj[i]
        profit[i] = np.int64(raw[i, j]) * scale - price[j] if j >= 0 else _best_profit(raw, i, scale, price)
    offer = np.full(m, serial.NEG, np.int64)
    no_record = np.zeros(0, np.int64)        # (a global array would be read-only here)
    offer_from = np.full(m, -1, np.int64)
    offer_price = np.zeros(m, np.int64)
    unassigned = 0
    for i in range(m):
        unassigned += person_obj[i] < 0
    steps = rounds = 0
    forward = True
    start = unassigned
    while unassigned > 0:
        if rounds >= max_rounds:
            return -1
        rounds += 1
        steps += 1
        if forward:                              # one Jacobi round, by the serial auction's rules
            serial.auction_rounds(raw, scale, eps, cap, price, person_obj, obj_owner, np.int64(1), no_record, 0)
            unassigned = 0
            for i in range(m):                   # an assigned person's profit: its object's
                j = person_obj[i]
                if j >= 0:
                    profit[i] = np.int64(raw[i, j]) * scale - price[j]
                else:
                    unassigned += 1
            if unassigned < start and unassigned > 0:
                for i in range(m):               # the persons left: their best profit, a row scan each
                    if person_obj[i] < 0:
                        profit[i] = _best_profit(raw, i, scale, price)
                steps += 1
                forward = False
                start = unassigned
        else:
            for j in range(n):
                if obj_owner[j] >= 0:
                    continue
                i, b1, b2 = _column_top2(raw, j, scale, profit)
                if i < 0:
                    continue
                new_price = (b2 if b2 != serial.NEG else b1 - cap) - eps
                gain = np.int64(raw[i, j]) * scale - new_price
                if gain > offer[i] or (gain == offer[i] and j < offer_from[i]):
                    offer[i] = gain
                    offer_from[i] = j
                    offer_price[i] = new_price
            for i in range(m):
                j = offer_from[i]
                if j < 0:
                    continue
                prev = person_obj[i]
                if prev >= 0:
                    obj_owner[prev] = -1
                else:
                    unassigned -= 1
                price[j] = offer_price[i]
                obj_owner[j] = i
                person_obj[i] = j
                profit[i] = offer[i]
                offer[i] = serial.NEG
                offer_from[i] = -1
            if unassigned < start:
                forward = True
                start = unassigned
    return steps


@njit(cache=True)
def keep_slack(raw, scale, eps, price, person_obj, obj_owner):
    """Unassign every person whose object's profit is more than ``eps`` below its best profit
    (its pair breaks eps-complementary slackness at the new ``eps``); the others keep their
    objects. Returns how many kept theirs."""
    m = raw.shape[0]
    kept = 0
    for i in range(m):
        j = person_obj[i]
        if j < 0:
            continue
        if np.int64(raw[i, j]) * scale - price[j] >= _best_profit(raw, i, scale, price) - eps:
            kept += 1
        else:
            person_obj[i] = -1
            obj_owner[j] = -1
    return kept


def _finish(method, prob, eps, last, eps_factor, price, person_obj, obj_owner, guard) -> int:
    """The steps of the chain that finishes one phase by ``method`` (see :data:`METHODS`)."""
    raw, scale = prob.raw, np.int64(prob.scale)
    if method == "stop_early" and not last:
        return 0
    if method == "stop_guarded" and not last:
        rounds = serial.auction_rounds(raw, scale, np.int64(eps), np.int64(max(prob.cap, eps)), price, person_obj,
                                       obj_owner, np.int64(guard), _NO_RECORD, 0)
        return guard if rounds < 0 else int(rounds)
    if method == "coarse_eps" and not last:
        eps = min(eps * eps_factor, prob.cap)
    cap = np.int64(max(prob.cap, eps))
    if method == "gauss_seidel":
        return int(gauss_seidel(raw, scale, np.int64(eps), cap, price, person_obj, obj_owner))
    if method == "shortest_paths":
        aug, scans = shortest_paths(raw, scale, price, person_obj, obj_owner)
        if aug < 0:
            raise RuntimeError("no augmenting path: the problem has no complete assignment")
        return int(scans)
    if method == "forward_reverse":
        steps = forward_reverse(raw, scale, np.int64(eps), cap, price, person_obj, obj_owner,
                                np.int64(serial.MAX_ROUNDS))
        if steps < 0:
            raise RuntimeError(f"forward_reverse did not finish a phase in {serial.MAX_ROUNDS} rounds")
        return int(steps)
    return int(serial.auction_rounds(raw, scale, np.int64(eps), cap, price, person_obj, obj_owner,
                                     np.int64(serial.MAX_ROUNDS), _NO_RECORD, 0))


def alternatives(B, tail_max: int = 8, methods=METHODS, eps_factor: int = serial.EPS_FACTOR,
                 guard: int = 256) -> list[dict]:
    """The serial eps-scaling auction on ``B`` once per method of ``methods``: Jacobi rounds
    while more than ``tail_max`` persons are unassigned, then the method finishes the phase
    (``guard``: the most tail rounds of an early phase under ``stop_guarded``).
    One dict per method: ``method``, ``bulk`` (rounds with more than ``tail_max`` bidders,
    all phases), ``chain`` (the steps of the finishing chains, all phases: rounds, bids or
    row scans), ``last_chain`` (those of the last phase), ``phases`` and ``objective`` (of
    the final assignment, in B's units)."""
    tail_max = guards.integer(tail_max, "tail_max", lo=0)
    guard = guards.integer(guard, "guard", lo=0)
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"unknown method {unknown[0]!r}; known: {list(METHODS)}")
    prob = problem.prepare(B, None, square=True)
    sched = serial.eps_schedule(prob.span, prob.eps, None, eps_factor)
    out = []
    for method in methods:
        n = prob.n
        price = np.zeros(n, np.int64)
        person_obj = np.full(n, -1, np.int64)
        obj_owner = np.full(n, -1, np.int64)
        bulk = chain = last_chain = 0
        for p, eps in enumerate(sched):
            if method == "keep_assigned" and p > 0:
                keep_slack(prob.raw, np.int64(prob.scale), np.int64(eps), price, person_obj, obj_owner)
            else:
                person_obj[:] = -1
                obj_owner[:] = -1
            bulk += int(serial.auction_rounds(prob.raw, np.int64(prob.scale), np.int64(eps),
                                              np.int64(max(prob.cap, eps)), price, person_obj, obj_owner,
                                              np.int64(serial.MAX_ROUNDS), _NO_RECORD, tail_max))
            last = p == len(sched) - 1
            last_chain = _finish(method, prob, eps, last, eps_factor, price, person_obj, obj_owner, guard)
            chain += last_chain
        out.append(dict(method=method, bulk=bulk, chain=chain, last_chain=last_chain, phases=len(sched),
                        objective=checks.objective(B, person_obj[:prob.m])))
    return out


def table(results: dict) -> str:
    """A text table of :func:`alternatives`' rows for several instances (``{name: rows}``):
    per instance and method the bulk rounds, the chain's steps (all phases, and the last
    phase's) and the chain against Jacobi rounds'."""
    head = f"{'instance':<22} {'method':<15} {'bulk rounds':>12} {'chain steps':>12} {'last phase':>11} {'x jacobi':>9}"
    lines = [head, "-" * len(head)]
    for name, rows in results.items():
        base = next((r["chain"] for r in rows if r["method"] == "jacobi"), None)
        for r in rows:
            ratio = f"{r['chain'] / base:.2f}" if base else "-"
            lines.append(f"{name:<22} {r['method']:<15} {r['bulk']:>12,} {r['chain']:>12,} {r['last_chain']:>11,} "
                         f"{ratio:>9}")
    return "\n".join(lines)


def verdict(results: dict) -> str:
    """One sentence: on which instances Jacobi rounds (the GPU's tail) make the shortest chain,
    which method beats them where they do not, and each other method's worst chain against
    Jacobi rounds' over all the instances.

    >>> rows = lambda j, g: [dict(method="jacobi", chain=j), dict(method="gauss_seidel", chain=g)]
    >>> verdict({"a": rows(10, 30), "b": rows(10, 5)})
    'Jacobi rounds make the shortest chain on 1 of 2 instances (a); elsewhere: gauss_seidel on b (0.50x). At worst: gauss_seidel 3.00x.'
    """
    wins, others, worst = [], [], {}
    for name, rows in results.items():
        base = next(r["chain"] for r in rows if r["method"] == "jacobi")
        best = min(rows, key=lambda r: (r["chain"], r["method"] != "jacobi"))
        if best["method"] == "jacobi" or best["chain"] == base:
            wins.append(name)
        else:
            others.append(f"{best['method']} on {name} ({best['chain'] / base:.2f}x)")
        for r in rows:
            if r["method"] != "jacobi" and base:
                worst[r["method"]] = max(worst.get(r["method"], 0.0), r["chain"] / base)
    text = f"Jacobi rounds make the shortest chain on {len(wins)} of {len(results)} instances"
    text += f" ({', '.join(wins)})" if wins else ""
    text += f"; elsewhere: {'; '.join(others)}." if others else "."
    if worst:
        text += " At worst: " + ", ".join(f"{m} {x:.2f}x" for m, x in worst.items()) + "."
    return text


#: the factors :func:`endings` applies to the first eps of the last phases (besides 1, their own)
ENDING_SCALES = (0.5, 0.7, 0.85, 1.2, 1.5, 2.0)


def endings(B, last: int = 4, scales=ENDING_SCALES, eps_factor: int = serial.EPS_FACTOR) -> list[dict]:
    """How the rounds of the last ``last`` phases depend on their epsilons. The serial eps-scaling
    auction (Jacobi rounds, as the GPU runs them) runs every phase of its schedule but the last
    ``last`` on ``B``; from the state they leave, each ending starts at ``scale`` times the first
    eps of those phases and divides it by ``eps_factor`` down to the final eps. The first row is
    the schedule's own ending (scale 1), then one per factor of ``scales``. Each row: ``scale``,
    ``schedule`` (the ending's epsilons, scaled units), ``rounds`` (of all its phases), ``ratio``
    (against the first row's) and ``objective`` (in B's units: every ending is exact)."""
    last = guards.integer(last, "last")
    scales = tuple(scales)
    for f in scales:
        if isinstance(f, bool) or not isinstance(f, (int, float, np.integer, np.floating)) or not 0 < f < np.inf:
            raise ValueError(f"scales must be positive finite numbers, got {f!r}")
    prob = problem.prepare(B, None, square=True)
    sched = serial.eps_schedule(prob.span, prob.eps, None, eps_factor)
    head, own = sched[:-last], sched[-last:]
    n = prob.n
    price, person_obj, obj_owner = np.zeros(n, np.int64), np.full(n, -1, np.int64), np.full(n, -1, np.int64)
    for eps in head:
        serial.phase(prob, eps, price, person_obj, obj_owner)
    out = []
    for f in (1.0,) + scales:
        end = own if f == 1.0 else serial.eps_schedule(prob.span, prob.eps, max(prob.eps, int(own[0] * f)),
                                                        eps_factor)
        p, po, oo = price.copy(), person_obj.copy(), obj_owner.copy()
        rounds = sum(serial.phase(prob, eps, p, po, oo) for eps in end)
        out.append(dict(scale=float(f), schedule=list(end), rounds=rounds,
                        objective=checks.objective(B, po[:prob.m])))
    for r in out:
        r["ratio"] = r["rounds"] / out[0]["rounds"] if out[0]["rounds"] else float("nan")
    return out


def endings_lines(results: dict) -> list[str]:
    """:func:`endings`' rows for several instances (``{name: rows}``): a line per instance (its own
    ending's epsilons and rounds, and every scaled ending's rounds against them), then one line
    with the range of those ratios over all instances and how often the schedule's own ending
    took the fewest rounds.

    >>> rows = lambda a, b: [dict(scale=1.0, schedule=[9, 3, 1], rounds=a, ratio=1.0),
    ...                      dict(scale=0.5, schedule=[4, 1], rounds=b, ratio=b / a)]
    >>> print("\\n".join(endings_lines({"x": rows(100, 50), "y": rows(100, 150)})))
    x: the last phases (eps 9, 3, 1) in 100 rounds; from the same state with their first eps times 0.5: 0.50x
    y: the last phases (eps 9, 3, 1) in 100 rounds; from the same state with their first eps times 0.5: 1.50x
    the same endings took 0.50x to 1.50x the rounds of the schedule's own; it took the fewest on 1 of 2 instances
    """
    lines, ratios, own_best = [], [], 0
    for name, rows in results.items():
        own, others = rows[0], rows[1:]
        lines.append(f"{name}: the last phases (eps {', '.join(map(str, own['schedule']))}) in {own['rounds']:,} "
                     f"rounds; from the same state with their first eps times "
                     + ", ".join(f"{r['scale']:g}: {r['ratio']:.2f}x" for r in others))
        ratios += [r["ratio"] for r in others]
        own_best += all(own["rounds"] <= r["rounds"] for r in others)
    if ratios:
        lines.append(f"the same endings took {min(ratios):.2f}x to {max(ratios):.2f}x the rounds of the schedule's "
                     f"own; it took the fewest on {own_best} of {len(results)} instances")
    return lines


def walks(B, eps_factor: int = serial.EPS_FACTOR) -> list[dict]:
    """What the chain is made of: the serial eps-scaling auction (Jacobi rounds, as the GPU runs
    them) on ``B``, and in each phase the rounds in which one person alone bids. Such a round
    ends at a free object or displaces its owner, who bids alone next, so in a phase they form one
    walk: the last unassigned person's, until it reaches the last free object. One dict per
    phase: ``phase``, ``eps``, ``rounds`` (all of the phase's), ``walk`` (its rounds with one
    bidder), ``persons`` (how many persons bid in them) and ``per_person`` (walk / persons: above
    1 the walk comes back to the same persons, who outbid each other by small steps).
    """
    prob = problem.prepare(B, None, square=True)
    sched = serial.eps_schedule(prob.span, prob.eps, None, eps_factor)
    n = prob.n
    price, person_obj, obj_owner = np.zeros(n, np.int64), np.full(n, -1, np.int64), np.full(n, -1, np.int64)
    out = []
    for p, eps in enumerate(sched):
        walk = np.zeros(n, np.int64)
        person_obj[:] = -1
        obj_owner[:] = -1
        rounds = serial.auction_rounds(prob.raw, np.int64(prob.scale), np.int64(eps), np.int64(max(prob.cap, eps)),
                                       price, person_obj, obj_owner, np.int64(serial.MAX_ROUNDS), _NO_RECORD, 0,
                                       walk)
        steps, persons = int(walk.sum()), int((walk > 0).sum())
        out.append(dict(phase=p, eps=int(eps), rounds=int(rounds), walk=steps, persons=persons,
                        per_person=steps / persons if persons else 0.0))
    return out


def walks_lines(results: dict, last: int = 4) -> list[str]:
    """:func:`walks`' phases for several instances (``{name: (n, rows)}``, ``n`` the matrix's
    size): per instance the share of the rounds that the walks take, the longest walk against
    ``n``, and in the last ``last`` phases how often each person of a walk bid in it.

    >>> rows = [dict(phase=0, eps=3, rounds=10, walk=4, persons=4, per_person=1.0),
    ...         dict(phase=1, eps=1, rounds=30, walk=20, persons=5, per_person=4.0)]
    >>> print("\\n".join(walks_lines({"x": (16, rows)}, last=1)))
    x: 24 of 40 rounds (60%) had one bidder; the longest walk 20 rounds (1.25 n); in the last 1 phases a person of the walk bid 4.0 times in it
    """
    lines = []
    for name, (n, rows) in results.items():
        total, alone = sum(r["rounds"] for r in rows), sum(r["walk"] for r in rows)
        longest = max((r["walk"] for r in rows), default=0)
        tail = rows[-last:]
        persons = sum(r["persons"] for r in tail)
        per = sum(r["walk"] for r in tail) / persons if persons else 0.0
        share = f" ({100 * alone / total:.0f}%)" if total else ""
        lines.append(f"{name}: {alone:,} of {total:,} rounds{share} had one bidder; the longest walk {longest:,} "
                     f"rounds ({longest / n:.2f} n); in the last {len(tail)} phases a person of the walk bid "
                     f"{per:.1f} times in it")
    return lines
