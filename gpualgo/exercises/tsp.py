"""Exercises on the travelling salesman's kernels (``kernels/tsp.cu``, ``common.cuh``)."""
from __future__ import annotations

import itertools
import math

import numpy as np

from .. import gpu
from ..tsp import checks as tsp_checks
from ..tsp import instances as tsp_instances
from ..tsp import serial as tsp_serial
from .core import Case, Exercise, Failure, blocks, first_mismatch, padded, padded_fill, register, seeded, unpad

# the compile-time constants of tsp.cu, as gpualgo/tsp/gpu.py passes them
DEFINES = {"MAXN": 32, "MAXK": 20, "HK_MAXN": 33}
HK_MAXN = DEFINES["HK_MAXN"]


def _weights(n: int, key, missing: float = 0.0) -> np.ndarray:
    """An n x n int32 matrix with a zero diagonal; ``missing``: the share of edges replaced by
    the solvers' large weight (as the host does for missing edges)."""
    rng = seeded("tsp", n, key)
    W = rng.integers(1, 100, size=(n, n)).astype(np.int32)
    if missing:
        W[rng.random((n, n)) < missing] = n * 100 + 1
    np.fill_diagonal(W, 0)
    return W


# ------------------------------------------------------------------ tsp.tour_cost (tier 1)

def _tour_cost_cases(quick):
    out = []
    for n, count, block, grid, missing, what in [
        (5, 24, 32, None, 0.0, "n=5, all 24 orders, one block of 32 (8 threads have no order)"),
        (7, 100, 64, None, 0.3, "n=7, 100 orders, missing edges, 2 blocks of 64"),
        (2, 1, 32, None, 0.0, "n=2, one order"),
        (9, 1000, 64, 2, 0.0, "n=9, 1000 orders on only 2 blocks of 64 (each thread takes several)"),
    ]:
        rng = seeded("tour", n, count)
        orders = np.array([rng.permutation(np.arange(1, n)) for _ in range(count)], dtype=np.uint8)
        out.append(Case(what, dict(n=n, W=_weights(n, count, missing), orders=orders, block=block,
                                   grid=grid or blocks(count, block))))
    return out


def _tour_cost_run(mod, case):
    cp = gpu.require()
    d = case.data
    n, count, block, grid = d["n"], len(d["orders"]), d["block"], d["grid"]
    m = n - 1
    orders = padded(cp, d["orders"].ravel(), pad=(block * grid + 1) * max(m, 1), fill=0)  # safe reads past the end
    W = cp.asarray(d["W"].ravel())
    costs = padded(cp, np.full(count, padded_fill(np.int32), dtype=np.int32))
    mod.get_function("tour_cost_kernel")((grid,), (block,), (orders, np.int64(count), np.int32(n), W, costs))
    return unpad("costs", costs, count)


def _tour_cost_expected(d):
    W, orders = d["W"].astype(np.int64), d["orders"].astype(np.int64)
    full = np.concatenate([np.zeros((len(orders), 1), np.int64), orders, np.zeros((len(orders), 1), np.int64)], 1)
    return W[full[:, :-1], full[:, 1:]].sum(axis=1)


def _tour_cost_verify(case, got):
    exp = _tour_cost_expected(case.data)
    o = case.data["orders"]
    k = int(np.argmax(exp != got)) if (exp != got).any() else 0
    hint = f"order {k} is 0 -> {' -> '.join(map(str, o[k]))} -> 0"
    if (exp != got).any() and got[k] == padded_fill(np.int32):
        hint += "; its cost was never written: does every order get a thread (a loop over i += stride)?"
    first_mismatch("costs", exp, got, ["i"], hint)


register(Exercise(
    id="tsp.tour_cost", title="The cost of one tour per thread", tier=1,
    teaches="one thread per item, its global index, the bounds guard and the grid-stride loop",
    file="tsp.cu", module="tsp", defines=DEFINES,
    signature=("extern \"C\" __global__ void tour_cost_kernel(const unsigned char* orders, long long count,\n"
               "                                            int n, const COST_T* W, COST_T* costs)"),
    stub=("    // TODO: order i (i < count) is orders[i * (n - 1)] ... orders[i * (n - 1) + n - 2], the\n"
          "    // cities after city 0. Write to costs[i] the cost of the closed tour\n"
          "    // W[0][o0] + W[o0][o1] + ... + W[o_last][0]   (W is row-major: W[a][b] = W[a * n + b]).\n"
          "    // The grid may hold fewer threads than orders.\n"),
    hints=(
        "Your global index: `blockIdx.x * (long long)blockDim.x + threadIdx.x`; the total number of "
        "threads: `gridDim.x * blockDim.x`. A `for` loop from the one, stepping by the other, while `i < count`, "
        "is both the guard and the grid-stride loop.",
        "Keep the previous city in a variable that starts at 0, and close the tour with `W[prev * n + 0]`.",
    ),
    cases=_tour_cost_cases, run=_tour_cost_run, verify=_tour_cost_verify,
    mistakes={
        "missing bounds guard": ((
            "    const int m = n - 1;\n"
            "    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
            "    const unsigned char* o = orders + i * m;\n"
            "    int prev = 0;\n"
            "    COST_T cost = 0;\n"
            "    for (int t = 0; t < m; ++t) {\n"
            "        cost += W[prev * n + o[t]];\n"
            "        prev = o[t];\n"
            "    }\n"
            "    costs[i] = cost + W[prev * n];\n"), "bounds guard"),
        "the closing edge back to city 0 forgotten": ((
            "    const int m = n - 1;\n"
            "    const long long stride = (long long)gridDim.x * blockDim.x;\n"
            "    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += stride) {\n"
            "        const unsigned char* o = orders + i * m;\n"
            "        int prev = 0;\n"
            "        COST_T cost = 0;\n"
            "        for (int t = 0; t < m; ++t) {\n"
            "            cost += W[prev * n + o[t]];\n"
            "            prev = o[t];\n"
            "        }\n"
            "        costs[i] = cost;\n"
            "    }\n"), "expected"),
    }))


# ------------------------------------------------------------------ tsp.block_argmin (tier 2)

_NO_RANK = np.int64(0x7FFFFFFFFFFFFFFF)
_COST_MAX = np.int32(0x7FFFFFFF)


def _argmin_cases(quick):
    out = []
    for count, threads, what in [
        (1, 32, "one candidate, one warp"),
        (5, 256, "5 candidates, 256 threads (most threads hold none)"),
        (1000, 64, "1000 candidates, 2 warps, ties on the minimum"),
        (3000, 1024, "3000 candidates, 32 warps, the minimum only in the last warp"),
        (777, 96, "777 candidates, 3 warps, ties"),
    ]:
        rng = seeded("argmin", count, threads)
        cost = rng.integers(50, 1000, size=count).astype(np.int32)
        rank = rng.permutation(np.arange(count, dtype=np.int64) * 3 + 5)
        if "ties" in what:
            tie = rng.choice(count, size=min(4, count), replace=False)
            cost[tie] = 7
        if "last warp" in what:
            # only threads of the last warp see the minimum (thread t reads t, t + threads, ...)
            pos = [t for t in range(count) if (t % threads) // 32 == threads // 32 - 1][:3]
            cost[pos] = 3
        out.append(Case(what, dict(cost=cost, rank=rank, threads=threads)))
    return out


def _argmin_run(mod, case):
    cp = gpu.require()
    d = case.data
    out_cost = padded(cp, np.full(1, padded_fill(np.int32), np.int32))
    out_rank = padded(cp, np.full(1, padded_fill(np.int64), np.int64))
    mod.get_function("reduce_best_kernel")((1,), (d["threads"],), (
        cp.asarray(d["cost"]), cp.asarray(d["rank"]), np.int32(len(d["cost"])), out_cost, out_rank))
    return int(unpad("out_cost", out_cost, 1)[0]), int(unpad("out_rank", out_rank, 1)[0])


def _argmin_verify(case, got):
    d = case.data
    c, r = d["cost"], d["rank"]
    best = int(c.min())
    exp = (best, int(r[c == best].min()))
    if got == exp:
        return
    hint = ""
    threads = d["threads"]
    warp0 = np.array([i for i in range(len(c)) if (i % threads) < 32])
    if warp0.size and got[0] == int(c[warp0].min()) and got[0] != best:
        hint = " That is the minimum of the first warp's candidates only: combine the warps' results."
    elif got[0] == best:
        hint = " The cost is right, the rank is not: ties go to the lowest rank."
    raise Failure(f"(cost, rank) expected {exp}, got {got}.{hint}")


register(Exercise(
    id="tsp.block_argmin", title="A block's argmin of tour costs", tier=2,
    teaches="warp shuffles, one shared slot per warp, __syncthreads, a second pass by one warp",
    file="common.cuh", module="tsp", defines=DEFINES,
    signature=("template <bool Max, class T, class I>\n"
               "__device__ void block_arg_extreme(T& v, I& idx, T identity, I no_index)"),
    stub=("    // TODO: every thread of the block holds a candidate (v, idx); afterwards every thread\n"
          "    // must hold the block's smallest v (Max == false; the largest when Max), ties to the\n"
          "    // lowest idx. warp_arg_extreme<Max>(v, idx) does it for one warp (all 32 lanes call\n"
          "    // it). blockDim.x is a multiple of 32, at most 1024; identity and no_index fill the\n"
          "    // slots of warps that do not exist.\n"),
    hints=(
        "First `warp_arg_extreme<Max>(v, idx)` in every warp; then lane 0 of each warp writes its pair to "
        "`__shared__` arrays of 32 entries.",
        "A `__syncthreads()` between the writes and the reads; then warp 0 reduces the slots (`lane < nw` "
        "? slot : identity / no_index), writes the result to slot 0, a barrier, and everybody reads slot "
        "0.",
    ),
    cases=_argmin_cases, run=_argmin_run, verify=_argmin_verify,
    mistakes={
        "only the first warp reduced (wrong reduction width)": (
            "    warp_arg_extreme<Max>(v, idx);\n", "first warp"),
    }))


# ------------------------------------------------------------------ tsp.held_karp_layer (tier 3)

def _binomials() -> np.ndarray:
    B = np.zeros((HK_MAXN, HK_MAXN), dtype=np.uint32)
    for b in range(HK_MAXN):
        for i in range(min(b, HK_MAXN - 1) + 1):
            B[b, i] = math.comb(b, i)
    return B.ravel()


def _hk_cases(quick):
    out = []
    for n, block, missing, what in [(4, 32, 0.0, "n=4"), (7, 64, 0.3, "n=7, missing edges"),
                                    (10, 128, 0.0, "n=10, asymmetric")]:
        out.append(Case(what, dict(W=_weights(n, "hk", missing), block=block)))
    return out


def _hk_reference(W: np.ndarray) -> np.ndarray:
    """The whole table, by the recurrence, in plain Python (n <= 10)."""
    n = len(W)
    m = n - 1
    dp = np.full((1 << m, m), padded_fill(np.int32), dtype=np.int64)
    for j in range(m):
        dp[1 << j, j] = W[0, j + 1]
    for s in range(2, m + 1):
        for combo in itertools.combinations(range(m), s):
            mask = sum(1 << b for b in combo)
            for j in combo:
                prev = mask & ~(1 << j)
                dp[mask, j] = min(dp[prev, k] + W[k + 1, j + 1] for k in combo if k != j)
    return dp


def _hk_run(mod, case):
    cp = gpu.require()
    W = case.data["W"]
    block = case.data["block"]
    n = len(W)
    m = n - 1
    dp = padded(cp, np.full((1 << m) * m, padded_fill(np.int32), np.int32))
    Wd, B = cp.asarray(W.ravel()), cp.asarray(_binomials())
    mod.get_function("held_karp_init_kernel")((1,), (32,), (dp, Wd, np.int32(n)))
    layer = mod.get_function("held_karp_layer_kernel")
    for s in range(2, m + 1):
        count = math.comb(m, s) * s
        layer((blocks(count, block),), (block,), (dp, Wd, np.int32(n), B, np.int32(s), np.int64(count)))
    return unpad("dp", dp, (1 << m) * m).reshape(1 << m, m)


def _hk_verify(case, got):
    exp = _hk_reference(case.data["W"])
    m = exp.shape[1]
    for s in range(1, m + 1):  # layer by layer: the first wrong layer is the one to look at
        rows = [mask for mask in range(1 << m) if bin(mask).count("1") == s]
        for mask in rows:
            for j in range(m):
                if exp[mask, j] != got[mask, j]:
                    cities = [k + 1 for k in range(m) if mask >> k & 1]
                    if not mask >> j & 1:
                        raise Failure(f"dp[mask={mask}][j={j}] was written, but city {j + 1} is not in the "
                                      f"set {cities}: only (mask, j) with j in mask exist")
                    shown = "never written" if got[mask, j] == padded_fill(np.int32) else int(got[mask, j])
                    raise Failure(f"layer s={s}: dp[mask={mask}][j={j}] (the cheapest path from 0 through "
                                  f"{cities} ending at city {j + 1}) expected {int(exp[mask, j])}, got {shown}")


register(Exercise(
    id="tsp.held_karp_layer", title="One Held-Karp layer", tier=3,
    teaches="a dynamic programme by layers: one launch per layer, one thread per (subset, end city)",
    file="tsp.cu", module="tsp", defines=DEFINES,
    signature=("extern \"C\" __global__ void held_karp_layer_kernel(COST_T* dp, const COST_T* W, int n,\n"
               "                                                  const unsigned* binom, int s, long long count)"),
    stub=("        // TODO: this thread has its subset `mask` (s cities; bit k is city k + 1) and\n"
          "        // `which`: its end city j is the which-th set bit of mask (nth_bit). Write to\n"
          "        // dp[mask * m + j] the cheapest path 0 -> ... -> j + 1 through exactly mask: the\n"
          "        // minimum over k in mask without j of dp[(mask without j) * m + k] + W[k + 1][j + 1]\n"
          "        // (sW is W in shared memory: sW[a * n + b]; COST_MAX is the largest cost).\n"),
    hints=(
        "`int j = nth_bit(mask, which); unsigned prev = mask & ~(1u << j);` and the row `dp + prev * m`.",
        "Walk the bits of prev with `bits &= bits - 1u` and `__ffs(bits) - 1`; start from `COST_MAX`.",
    ),
    cases=_hk_cases, run=_hk_run, verify=_hk_verify,
    mistakes={
        "the end city left in the predecessor set": ((
            "        int j = nth_bit(mask, which);\n"
            "        unsigned prev = mask;\n"
            "        const COST_T* row = dp + (unsigned long long)prev * m;\n"
            "        COST_T best = COST_MAX;\n"
            "        for (unsigned bits = prev; bits; bits &= bits - 1u) {\n"
            "            int kk = __ffs(bits) - 1;\n"
            "            COST_T v = row[kk] + sW[(kk + 1) * n + j + 1];\n"
            "            best = v < best ? v : best;\n"
            "        }\n"
            "        dp[(unsigned long long)mask * m + j] = best;\n"), "expected"),
    }))


# ------------------------------------------------------------------ tsp.shared_matrix (tier 4)

def _shared_cases(quick):
    return [
        Case("n=9 euclidean, blocks of 64 (81 matrix entries)", dict(inst=tsp_instances.random_euclidean(9, seed=1),
                                                                   block=64)),
        Case("n=10 with missing edges, blocks of 32", dict(inst=tsp_instances.random_graph(10, 0.6, seed=2), block=32)),
        Case("n=8 asymmetric, blocks of 256", dict(inst=tsp_instances.random_asymmetric(8, seed=3), block=256)),
    ]


_SHARED_HINT = "(the tour is scored from sW: is every entry of W loaded, and loaded before any thread reads it?)"


def _shared_run(mod, case):
    from ..tsp import gpu as tsp_gpu
    from ..tsp.result import InconsistentTour
    with gpu.source_override("tsp", mod.text):
        try:
            return tsp_gpu.shared_incremental(case.data["inst"], block=case.data["block"])
        except InconsistentTour as exc:  # the kernel's best length is not its tour's: sW is wrong
            raise Failure(f"the GPU brute force with your kernel: {exc} {_SHARED_HINT}") from None


def _shared_verify(case, got):
    inst = case.data["inst"]
    ref = tsp_serial.solve_held_karp(inst)
    try:
        tsp_checks.check_result(got, inst, ref)
    except (AssertionError, ValueError) as exc:
        raise Failure(f"the GPU brute force with your kernel: {exc} {_SHARED_HINT}") from None


def _shared_speed(student, suite, quick):
    from ..tsp import gpu as tsp_gpu
    inst = tsp_instances.random_euclidean(11 if quick else 12, seed=5)
    times = {}
    for label, text in (("yours", student.text), ("the suite's", suite.text)):
        with gpu.source_override("tsp", text):
            tsp_gpu.shared_incremental(inst, block=256)  # warm-up
            times[label] = min(tsp_gpu.shared_incremental(inst, block=256).stats["kernel_ms"] for _ in range(3))
    tsp_gpu.unrank(inst, block=256)
    times["without shared memory (gpu_unrank)"] = min(tsp_gpu.unrank(inst, block=256).stats["kernel_ms"]
                                                      for _ in range(3))
    return f"n = {inst.n}, kernel time: " + "; ".join(f"{k} {v:.2f} ms" for k, v in times.items())


register(Exercise(
    id="tsp.shared_matrix", title="The distance matrix in shared memory", tier=4,
    teaches="a block-wide cooperative load into shared memory and the barrier after it; the speed-up",
    file="tsp.cu", module="tsp", defines=DEFINES,
    signature=("extern \"C\" __global__ void shared_incremental_kernel(const COST_T* W, int n, ...)\n"
               "    __shared__ COST_T sW[MAXN * MAXN];   // declared just above your code"),
    stub=("    // TODO: copy the n x n matrix W (row-major, n * n entries) into sW with all the\n"
          "    // threads of the block (blockDim.x may be smaller than n * n), and make sure that\n"
          "    // no thread reads sW before the whole copy is there.\n"),
    hints=(
        "`for (int i = threadIdx.x; i < n * n; i += blockDim.x) sW[i] = W[i];`: a block-stride loop, so "
        "any block size loads the whole matrix.",
        "One `__syncthreads()` after the loop, before the first read.",
    ),
    cases=_shared_cases, run=_shared_run, verify=_shared_verify, speed=_shared_speed,
    mistakes={
        "one entry per thread, no loop": (
            "    if (threadIdx.x < n * n) sW[threadIdx.x] = W[threadIdx.x];\n    __syncthreads();\n", "loaded"),
    }))
