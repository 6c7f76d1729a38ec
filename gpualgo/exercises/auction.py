"""Exercises on the auction's kernels (``kernels/auction.cu``)."""
from __future__ import annotations

import numpy as np

from .. import gpu
from ..assignment import problem
from ..assignment.auction.gpu import CACHE_K, COUNTERS, defines
from .core import Case, Exercise, Failure, blocks, first_mismatch, padded, padded_fill, register, seeded, unpad

DEFINES = defines()         # the compile-time constants of auction.cu, as the solver passes them
KEY_BITS = problem.KEY_BITS
KEY_MASK = (1 << KEY_BITS) - 1
MISSING = np.int32(-2**31)
NEG_PROFIT = -(1 << 62)
NO_INDEX = 0x7FFFFFFF


def _benefits(m, n, key, missing=0.0, low=1, high=50):
    rng = seeded("auction", m, n, key)
    raw = rng.integers(low, high, size=(m, n)).astype(np.int32)
    if missing:
        raw[rng.random((m, n)) < missing] = MISSING
    return raw, rng


def _top2_reference(raw, scale, price):
    """Per person: (best, second, idx) of the profits raw * scale - price over its edges;
    ties to the lowest object; the second best of equal profits is that profit."""
    out = []
    for row in raw:
        js = np.flatnonzero(row != MISSING)
        p = row[js].astype(np.int64) * scale - price[js]
        if js.size == 0:
            out.append((NEG_PROFIT, NEG_PROFIT, NO_INDEX))
            continue
        k = int(np.argmax(p))  # first maximum: the lowest index
        rest = np.delete(p, k)
        out.append((int(p[k]), int(rest.max()) if rest.size else NEG_PROFIT, int(js[k])))
    return out


def _increment(best, second, eps, cap):
    return cap if second == NEG_PROFIT else min(best - second + eps, cap)


# ------------------------------------------------------------------ auction.top2 (tier 1)

TOP2_DRIVER = r"""
// One thread per person folds its row with top2_push (the check's driver).
extern "C" __global__ void exercise_top2_kernel(const int* raw, long long scale, const long long* price,
                                                int m, int n, long long* best, long long* second, int* idx) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    long long b = NEG_PROFIT, s = NEG_PROFIT;
    int x = NO_INDEX;
    for (int j = 0; j < n; ++j) {
        int a = raw[(size_t)i * n + j];
        if (a != MISSING_EDGE) top2_push((long long)a * scale - price[j], j, b, s, x);
    }
    best[i] = b; second[i] = s; idx[i] = x;
}
"""


def _top2_cases(quick):
    out = []
    for m, n, missing, what in [(4, 6, 0.0, "4 persons, 6 objects"),
                                (6, 9, 0.0, "ties: several objects with the best profit"),
                                (5, 8, 0.6, "missing edges (one person has a single edge)"),
                                (40, 300, 0.1, "40 persons, 300 objects, in the report's bid_kernel")]:
        raw, rng = _benefits(m, n, what, missing, high=6 if "ties" in what else 50)
        if "single" in what:
            raw[0] = MISSING
            raw[0, 3] = 9
        price = rng.integers(0, 5, size=n).astype(np.int64)
        out.append(Case(what, dict(raw=raw, price=price, scale=m + 1, eps=1, cap=10**6,
                                   bid_kernel="bid_kernel" in what)))
    return out


def _top2_run(mod, case):
    cp = gpu.require()
    d = case.data
    raw, price = d["raw"], d["price"]
    m, n = raw.shape
    if not d["bid_kernel"]:
        b = padded(cp, np.full(m, padded_fill(np.int64), np.int64))
        s = padded(cp, np.full(m, padded_fill(np.int64), np.int64))
        x = padded(cp, np.full(m, padded_fill(np.int32), np.int32))
        mod.get_function("exercise_top2_kernel")((1,), (32,), (
            cp.asarray(raw), np.int64(d["scale"]), cp.asarray(price), np.int32(m), np.int32(n), b, s, x))
        return list(zip(unpad("best", b, m).tolist(), unpad("second", s, m).tolist(), unpad("idx", x, m).tolist()))
    # the report's bid kernel: 2 blocks of 64 threads per person, each thread a strided slice
    gx, threads = 2, 64
    null = np.uint64(0)
    bid_obj = padded(cp, np.full(m, -1, np.int32))
    bid_inc = padded(cp, np.zeros(m, np.int64))
    args = (cp.asarray(raw), np.int64(d["scale"]), cp.asarray(price), np.int32(m), np.int32(n),
            null, null, cp.full(m, -1, np.int32), np.int64(d["eps"]), np.int64(d["cap"]),
            cp.zeros(m * gx, np.int64), cp.zeros(m * gx, np.int64), cp.zeros(m * gx, np.int32),
            cp.zeros(m, np.uint32), bid_obj, bid_inc, cp.zeros(n, np.int32), null, null, null)
    mod.get_function("bid_kernel")((gx, m), (threads,), args)
    return list(zip(unpad("bid_obj", bid_obj, m).tolist(), unpad("bid_inc", bid_inc, m).tolist()))


def _top2_verify(case, got):
    d = case.data
    ref = _top2_reference(d["raw"], d["scale"], d["price"])
    if d["bid_kernel"]:
        ref = [(x, _increment(b, s, d["eps"], d["cap"])) for b, s, x in ref]
        names = "(object, increment)"
    else:
        names = "(best, second, idx)"
    for i, (e, g) in enumerate(zip(ref, got)):
        if tuple(e) != tuple(g):
            row = d["raw"][i]
            profits = [f"{j}:{int(row[j]) * d['scale'] - int(d['price'][j])}" for j in range(len(row))
                       if row[j] != MISSING][:12]
            raise Failure(f"person {i}: {names} expected {tuple(e)}, got {tuple(g)}; its profits "
                          f"(object:profit) {', '.join(profits)}{' ...' if len(profits) == 12 else ''}"
                          f" (NEG_PROFIT = {NEG_PROFIT}: no second best)")


register(Exercise(
    id="auction.top2", title="One person's best and second-best profit", tier=1,
    teaches="a thread's running state over its items, tie rules that match the serial scan",
    file="auction.cu", module="auction", defines=DEFINES, driver=TOP2_DRIVER,
    signature=("__device__ __forceinline__ void top2_push(long long profit, int j, long long& best,\n"
               "                                          long long& second, int& idx)"),
    stub=("    // TODO: fold the profit of object j into this thread's running best, second best and\n"
          "    // the index of the best. Objects arrive in increasing j; a tie keeps the lowest\n"
          "    // index, and two equal profits make the second best equal to the best.\n"),
    hints=(
        "A larger profit pushes the old best down to second; otherwise it may still beat the second.",
        "Strict `>` keeps the first (lowest) index on a tie; the tie then lands in `second`.",
    ),
    cases=_top2_cases, run=_top2_run, verify=_top2_verify,
    mistakes={
        "ties go to the last index (>= instead of >)": ((
            "    if (profit >= best) {\n        second = best;\n        best = profit;\n        idx = j;\n"
            "    } else if (profit > second) {\n        second = profit;\n    }\n"), "expected"),
    }))


# ------------------------------------------------------------------ auction.bid_key (tier 2)

def _bid_cases(quick):
    out = []
    for m, n, what in [(8, 8, "8 persons, 8 objects"),
                       (512, 16, "512 persons wanting the same object (same rows)"),
                       (300, 301, "300 persons, 301 objects, random"),
                       (1, 4, "one person")]:
        raw, rng = _benefits(m, n, what, 0.0, high=1000)
        if "same" in what:
            raw[:] = raw[0]
        price = rng.integers(0, 20, size=n).astype(np.int64)
        out.append(Case(what, dict(raw=raw, price=price, scale=m + 1, eps=1, cap=10**6)))
    return out


def _bid_run(mod, case):
    cp = gpu.require()
    d = case.data
    raw, price = d["raw"], d["price"]
    m, n = raw.shape
    ld = -(-n // 4) * 4
    raw_p = np.full((m, ld), MISSING, np.int32)
    raw_p[:, :n] = raw
    price_p = np.zeros(ld, np.int64)
    price_p[:n] = price
    obj_key = cp.zeros(n, np.uint64)
    obj_queue = padded(cp, np.full(n, -1, np.int32))
    obj_len = cp.zeros(1, np.int32)
    args = (cp.asarray(raw_p), np.int32(ld), np.int32(d["scale"]), cp.asarray(price_p),
            cp.arange(m, dtype=np.int32), cp.asarray(np.array([m], np.int32)), cp.full(m, -1, np.int32),
            np.int64(d["eps"]), np.int64(d["cap"]), obj_key, obj_queue, obj_len,
            cp.zeros(m, np.int32), cp.zeros(1, np.int32), cp.zeros(1, np.int32),
            cp.zeros(m * CACHE_K * 2, np.int32), cp.zeros(m, np.int32), cp.zeros(m, np.int64))
    mod.get_function("bid_warp_kernel")((4,), (256,), args)
    length = int(obj_len.get()[0])
    if not 0 <= length <= n:
        raise Failure(f"obj_len is {length}: at most one entry per object ({n} objects) was expected")
    return obj_key.get(), unpad("obj_queue", obj_queue, n)[:length]


def _bid_verify(case, got):
    d = case.data
    key, queue = got
    ref = _top2_reference(d["raw"], d["scale"], d["price"])
    winners = {}
    for i, (b, s, x) in enumerate(ref):
        inc = _increment(b, s, d["eps"], d["cap"])
        if x not in winners or inc > winners[x][1]:  # persons in increasing order: ties keep the lowest
            winners[x] = (i, inc)
    q = list(map(int, queue))
    dup = sorted({j for j in q if q.count(j) > 1})
    if dup:
        raise Failure(f"object {dup[0]} is {q.count(dup[0])} times in obj_queue: only its first bidder may "
                      "queue it (the value the atomic returns says who was first)")
    if sorted(q) != sorted(winners):
        missing = sorted(set(winners) - set(q))
        raise Failure(f"obj_queue holds objects {sorted(q)[:10]}, expected {sorted(winners)[:10]}"
                      + (f" (object {missing[0]} got a bid but was not queued)" if missing else ""))
    for j, (i, inc) in sorted(winners.items()):
        k = int(key[j])
        g_person, g_inc = KEY_MASK - (k & KEY_MASK), k >> KEY_BITS
        if (g_person, g_inc) != (i, inc):
            raise Failure(f"object {j}: winner (person, increment) expected ({i}, {inc}), got ({g_person}, {g_inc}) "
                          f"from obj_key[{j}] = {k:#x}; the largest increment wins, ties to the lowest person, "
                          "whatever order the threads arrive in")


register(Exercise(
    id="auction.bid_key", title="The winning bid with one 64-bit atomicMax", tier=2,
    teaches="packing (value, tie-break) into one 64-bit key so that a single atomicMax picks the winner",
    file="auction.cu", module="auction", defines=DEFINES,
    signature=("template <class Rows> __device__ void bid_groups(...)   // inside, for the group's leader:\n"
               "    const int j = t.idx;   // the object person i bids for"),
    stub=("            // TODO: person i bids for object j with increment\n"
          "            // bid_increment(t.best, t.second, eps, cap). The largest increment must end in\n"
          "            // obj_key[j] (an unsigned long long, 0 when no bid yet), ties to the lowest\n"
          "            // person, whatever order the threads arrive in: the increment in the high\n"
          "            // 64 - KEY_BITS bits, KEY_MASK - i in the low KEY_BITS bits. The first bidder of\n"
          "            // j appends j to obj_queue (obj_len counts the entries).\n"),
    hints=(
        "`key = ((unsigned long long)inc << KEY_BITS) | (KEY_MASK - (unsigned long long)i)`: a larger key "
        "is a larger increment, then a lower person.",
        "`atomicMax(&obj_key[j], key)` returns the old value: 0 means you were the first bidder, so you "
        "queue j with `obj_queue[atomicAdd(obj_len, 1)] = j`.",
    ),
    cases=_bid_cases, run=_bid_run, verify=_bid_verify,
    mistakes={
        "race on the shared maximum (a read, a compare, a plain store)": ((
            "            const long long inc = bid_increment(t.best, t.second, eps, cap);\n"
            "            const unsigned long long key = ((unsigned long long)inc << KEY_BITS) | (KEY_MASK - (unsigned long long)i);\n"
            "            const unsigned long long old = obj_key[j];\n"
            "            if (key > old) {\n"
            "                obj_key[j] = key;\n"
            "                if (old == 0ULL) obj_queue[atomicAdd(obj_len, 1)] = j;\n"
            "            }\n"), "object"),
        "the person left out of the key": ((
            "            const long long inc = bid_increment(t.best, t.second, eps, cap);\n"
            "            const unsigned long long key = (unsigned long long)inc << KEY_BITS;\n"
            "            if (atomicMax(&obj_key[j], key) == 0ULL) obj_queue[atomicAdd(obj_len, 1)] = j;\n"),
         "winner"),
    }))


# ------------------------------------------------------------------ auction.assign_winner (tier 3)

def _assign_cases(quick):
    out = []
    for m, n, owned, what in [(5, 5, 0.0, "5 objects, all free"),
                              (300, 300, 0.5, "300 objects, half of them owned (displaced owners)"),
                              (1, 1, 1.0, "one object, owned"),
                              (2000, 2000, 0.0, "2000 free objects (the matched counter)")]:
        rng = seeded("assign", m, n, what)
        bid_objs = np.sort(rng.choice(n, size=max(1, n // 2 if n > 5 else n), replace=False)).astype(np.int32)
        rng.shuffle(bid_objs)
        k = len(bid_objs)
        # owners: distinct persons; winners: distinct persons that own nothing
        persons = rng.permutation(m + k + n)  # more persons than objects: winners and owners apart
        owner = np.full(n, -1, np.int32)
        own = rng.random(n) < owned
        owner[own] = persons[:own.sum()]
        winners = persons[own.sum():own.sum() + k].astype(np.int32)
        incs = rng.integers(1, 1000, size=k).astype(np.int64)
        out.append(Case(what, dict(P=m + k + n, n=n, owner=owner, objs=bid_objs, winners=winners, incs=incs,
                                   price=rng.integers(0, 100, size=n).astype(np.int64))))
    return out


def _assign_run(mod, case):
    cp = gpu.require()
    d = case.data
    P, n = d["P"], d["n"]
    person_obj = np.full(P, -1, np.int32)
    for j, o in enumerate(d["owner"]):
        if o >= 0:
            person_obj[o] = j
    key = np.zeros(n, np.uint64)
    key[d["objs"]] = (d["incs"].astype(np.uint64) << np.uint64(KEY_BITS)) | (KEY_MASK - d["winners"].astype(np.uint64))
    obj_key = cp.asarray(key)
    price, po, owner = cp.asarray(d["price"]), cp.asarray(person_obj), cp.asarray(d["owner"])
    counters = cp.zeros(8, np.int32)
    next_list = padded(cp, np.full(P, -1, np.int32))
    next_len = cp.zeros(1, np.int32)
    k = len(d["objs"])
    mod.get_function("assign_winner_kernel")((blocks(k, 128),), (128,), (
        cp.asarray(d["objs"]), cp.asarray(np.array([k], np.int32)), obj_key, price, po, owner, counters,
        next_list, next_len, cp.zeros(1, np.int32)))
    length = int(next_len.get()[0])
    if not 0 <= length <= P:
        raise Failure(f"next_len is {length}, more than there are persons ({P})")
    return dict(price=price.get(), person_obj=po.get(), owner=owner.get(), counters=counters.get(),
                key=obj_key.get(), next=unpad("next_list", next_list, P)[:length])


def _assign_verify(case, got):
    d = case.data
    price, owner = d["price"].copy(), d["owner"].copy()
    person_obj = np.full(d["P"], -1, np.int32)
    for j, o in enumerate(owner):
        if o >= 0:
            person_obj[o] = j
    displaced, matched = [], 0
    for j, w, inc in zip(d["objs"], d["winners"], d["incs"]):
        prev = owner[j]
        if prev < 0:
            matched += 1
        else:
            person_obj[prev] = -1
            displaced.append(int(prev))
        price[j] += inc
        owner[j] = w
        person_obj[w] = j
    first_mismatch("price", price, got["price"], ["j"], "the price rises by the winner's increment (key >> KEY_BITS)")
    first_mismatch("obj_owner", owner, got["owner"], ["j"], "the winner is KEY_MASK - (key & KEY_MASK)")
    first_mismatch("person_obj", person_obj, got["person_obj"], ["person"],
                   "the winner gets the object; the previous owner gets -1")
    if sorted(map(int, got["next"])) != sorted(displaced):
        raise Failure(f"next_list holds {sorted(map(int, got['next']))[:10]}, expected the displaced owners "
                      f"{sorted(displaced)[:10]} (each once)")
    if int(got["counters"][COUNTERS["C_MATCHED"]]) != matched:
        raise Failure(f"counters[C_MATCHED] expected {matched} (objects that were free), got "
                      f"{int(got['counters'][COUNTERS['C_MATCHED']])}: many threads add to it at once")
    if got["key"][d["objs"]].any():
        j = int(d["objs"][np.flatnonzero(got["key"][d["objs"]])[0]])
        raise Failure(f"obj_key[{j}] is still set: clear the key for the next round")


register(Exercise(
    id="auction.assign_winner", title="Each object goes to its winner", tier=3,
    teaches="one step of the auction: decode the key, raise the price, move the object, requeue the loser",
    file="auction.cu", module="auction", defines=DEFINES,
    signature=("extern \"C\" __global__ void assign_winner_kernel(const int* obj_queue, const int* obj_len,\n"
               "    unsigned long long* obj_key, long long* price, int* person_obj, int* obj_owner, int* counters,\n"
               "    int* next_list, int* next_len, int* reset_len)\n"
               "    // inside: for (int k = ...; k < count; k += ...) { your code }"),
    stub=("        // TODO: j = obj_queue[k] got bids; obj_key[j] holds the winner's key (increment <<\n"
          "        // KEY_BITS | KEY_MASK - person). Clear the key, raise price[j] by the increment,\n"
          "        // give j to the winner (obj_owner, person_obj). A previous owner loses j\n"
          "        // (person_obj = -1) and is appended to next_list (next_len counts); an object that\n"
          "        // was free adds 1 to counters[C_MATCHED].\n"),
    hints=(
        "`winner = KEY_MASK - (key & KEY_MASK)`, the increment is `key >> KEY_BITS`.",
        "Counters and queues shared by all threads need `atomicAdd`.",
    ),
    cases=_assign_cases, run=_assign_run, verify=_assign_verify,
    mistakes={
        "race on the matched counter (a plain += 1)": ((
            "        const int j = obj_queue[k];\n"
            "        const unsigned long long key = obj_key[j];\n"
            "        obj_key[j] = 0ULL;\n"
            "        const int winner = (int)(KEY_MASK - (key & KEY_MASK));\n"
            "        const int prev = obj_owner[j];\n"
            "        if (prev < 0) {\n"
            "            counters[C_MATCHED] += 1;\n"
            "        } else {\n"
            "            person_obj[prev] = -1;\n"
            "            next_list[atomicAdd(next_len, 1)] = prev;\n"
            "        }\n"
            "        price[j] += (long long)(key >> KEY_BITS);\n"
            "        obj_owner[j] = winner;\n"
            "        person_obj[winner] = j;\n"), "C_MATCHED"),
    }))
