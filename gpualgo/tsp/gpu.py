"""GPU versions of the exact TSP solvers (CuPy RawKernels from ``gpualgo/kernels/tsp.cu``).

In the order they are taught (the versions of :data:`gpualgo.tsp.VARIANTS`; :data:`KERNELS`
lists the kernels each one launches):

- :func:`host_chunks` (a): the host writes chunks of orders (1 byte per city) into pinned
  buffers, copies them in, one thread per order computes its cost, the host finds the
  minimum. Two buffers alternate, so the host fills one while the GPU works on the other.
- :func:`unrank` (b): each thread builds its orders from their ranks (factorial number
  system); the minimum is reduced on the device.
- :func:`shared_incremental` (c): matrix in shared memory, a contiguous range of orders per
  thread walked with next_permutation and an incremental cost, device reduction.
- :func:`held_karp` : dynamic programming by layers of subset size.

Each takes the instance and its options, prepares it as every version does
(:func:`gpualgo.tsp.serial.prepare`) and returns a :class:`~gpualgo.tsp.result.TSPResult`.
CuPy is imported only inside these functions (through :func:`gpualgo.gpu.require`), so this
module imports without a GPU. All brute-force versions walk the plan
(:class:`~gpualgo.tsp.enumeration.Plan`) and return its first best order, like the serial one.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from .. import gpu, guards
from .enumeration import MAX_FREE
from .instances import as_instance
from .result import TSPResult, make_result
from .serial import held_karp_bytes, next_permutation, prepare, single_city

__all__ = ["KERNELS", "launch_config", "host_chunks", "unrank", "shared_incremental", "held_karp",
           "held_karp_memory", "check_cities"]

#: the kernels each GPU version launches, in launch order
KERNELS = {
    "gpu_host_chunks": ("tour_cost_kernel",),
    "gpu_unrank": ("unrank_kernel", "reduce_best_kernel"),
    "gpu_shared_incremental": ("shared_incremental_kernel", "reduce_best_kernel"),
    "gpu_held_karp": ("held_karp_init_kernel", "held_karp_layer_kernel", "held_karp_backtrack_kernel"),
}

#: orders per launch of (b) and (c), so one launch lasts about a second and its rank
#: count stays far below 2^63
LAUNCH_ORDERS = 1 << 37
#: least orders per thread in (c): below this, unranking the start dominates
MIN_PER_THREAD = 256
#: orders per host batch in (a)
HOST_BATCH = 1 << 22
#: Held-Karp on the GPU: bit j of a 32-bit mask is city j + 1 (HK_MAXN in tsp.cu, also the
#: stride of its binomial table)
HK_MAX_N = 33
#: brute force on the GPU: a set of cities is a 32-bit mask (MAXN in tsp.cu)
BF_MAX_N = 32
#: the threads of the one block that reduces the blocks' bests, and of the one warp that
#: starts and ends Held-Karp (a lane per city)
REDUCE_BLOCK = 1024
WARP = 32


def _module(dtype):
    # the compile-time constants of tsp.cu, from here only
    defines = {"MAXN": BF_MAX_N, "MAXK": MAX_FREE, "HK_MAXN": HK_MAX_N}
    if np.dtype(dtype) == np.int64:
        defines["COST_INT64"] = 1
    return gpu.load_module("tsp", defines=defines)


def check_cities(n: int, held_karp: bool = False) -> None:
    """Refuse more cities than a GPU version handles: :data:`HK_MAX_N` for Held-Karp (the
    stride of its binomial table), :data:`BF_MAX_N` for brute force (a set of cities is a
    32-bit mask). Known before a GPU is asked for."""
    if held_karp and n > HK_MAX_N:
        raise ValueError(f"GPU Held-Karp handles at most {HK_MAX_N} cities, got n={n}")
    if not held_karp and n > BF_MAX_N:
        raise ValueError(f"GPU brute force handles at most {BF_MAX_N} cities, got n={n}")


def check_options(block=256, batch=HOST_BATCH, **_):
    """The launch options of every GPU version (``block``, and ``batch`` of (a)), checked
    before a GPU is asked for (:class:`gpualgo.variants.Variant`'s ``checks``)."""
    guards.threads(block)
    guards.integer(batch, "batch")


def launch_config(kernel, block: int, work: int | None = None, per_thread_min: int = 1):
    """The grid of a launch, computed in one place for every kernel. Returns (grid, per_thread).

    ``work`` items: one wave of resident blocks (from the kernel's register count), fewer when
    ``work`` items at ``per_thread_min`` per thread need fewer threads; kernels with a
    grid-stride loop ignore ``per_thread``. With ``per_thread_min > 1`` (version (c): each
    thread walks a contiguous range of ``per_thread`` orders) the grid keeps only the blocks
    that have a range. ``work=None``: a kernel whose one block does the whole job (the final
    reduction; the ends of Held-Karp): (1, 1).
    """
    if work is None:
        return 1, 1
    regs = max(int(getattr(kernel, "num_regs", 32)), 1)
    regs_per_block = ((regs + 7) // 8 * 8) * block
    per_sm = max(1, min(2048 // block, 65536 // regs_per_block, 32))
    resident = gpu.sm_count() * per_sm
    want = max(1, math.ceil(work / max(per_thread_min, 1) / block))
    grid = max(1, min(resident, want))
    per_thread = math.ceil(work / (grid * block))
    if per_thread_min > 1:
        grid = math.ceil(math.ceil(work / per_thread) / block)
    return grid, per_thread


def _times(t0, t1, t2, **stats) -> dict:
    """The times every GPU version reports: prepare (t0..t1: weights, plan, uploads) and
    exec (t1..t2: launches and the answer's download), with the version's counters."""
    return dict(prepare_ms=(t1 - t0) * 1e3, exec_ms=(t2 - t1) * 1e3, device=gpu.device_name(), **stats)


def _launches(plan, c_lo: int = 0, c_hi: int | None = None):
    """(first chunk, chunks) of each launch over the chunks ``c_lo .. c_hi - 1`` (default: all)."""
    c_hi = plan.n_chunks if c_hi is None else c_hi
    per = max(1, LAUNCH_ORDERS // plan.kfact)
    return [(c0, min(per, c_hi - c0)) for c0 in range(c_lo, c_hi, per)]


def _prepare_bruteforce(instance, symmetric, max_free, block):
    """The checks and the preparation of a GPU brute force: (prep, block, t0)."""
    t0 = time.perf_counter()
    block = guards.threads(block)
    inst = as_instance(instance)
    check_cities(inst.n)   # before the plan, whose chunks grow with n
    return prepare(inst, symmetric, max_free), block, t0


def _device_search(prep, variant, block, c_lo: int = 0, c_hi: int | None = None):
    """Versions (b) and (c) over the chunks ``c_lo .. c_hi - 1`` of the plan, on the current
    device: the orders built there, the minimum reduced there. Returns (best weighted length,
    global rank of the first best order, the time the uploads were done (perf_counter), the
    launches' stats)."""
    cp = gpu.require()
    W, plan, n = prep.W, prep.plan, prep.n
    mod = _module(W.dtype)
    kern = mod.get_function(KERNELS[variant][0])
    reduce_k = mod.get_function("reduce_best_kernel")
    dW = gpu.to_device(W)
    prefix, last = gpu.to_device(plan.prefix), gpu.to_device(plan.last)
    t_up = time.perf_counter()
    F = plan.prefix.shape[1]
    kfact = plan.kfact
    out_c = cp.empty(1, dtype=W.dtype)
    out_g = cp.empty(1, dtype=np.int64)
    best, best_rank = None, None
    kernel_ms = 0.0
    grid_max = 0
    contiguous = variant == "gpu_shared_incremental"
    launches = _launches(plan, c_lo, c_hi)
    for c0, cc in launches:
        total = cc * kfact
        grid, per_thread = launch_config(kern, block, total, MIN_PER_THREAD if contiguous else 1)
        extra = (np.int64(per_thread),) if contiguous else ()
        grid_max = max(grid_max, grid)
        bc = cp.empty(grid, dtype=W.dtype)
        bg = cp.empty(grid, dtype=np.int64)
        rgrid, _ = launch_config(reduce_k, REDUCE_BLOCK)
        with gpu.CudaTimer() as t:
            kern((grid,), (block,),
                 (dW, np.int32(n), prefix, np.int32(F), last, np.int32(plan.f),
                  np.int32(plan.k), np.int64(kfact), np.int64(c0), np.int64(total))
                 + extra + (bc, bg))
            reduce_k((rgrid,), (REDUCE_BLOCK,), (bc, bg, np.int32(grid), out_c, out_g))
        kernel_ms += t.ms
        cost, g = int(out_c.get()[0]), int(out_g.get()[0])
        if best is None or cost < best:
            best, best_rank = cost, c0 * kfact + g
    return best, best_rank, t_up, dict(kernel_ms=kernel_ms, launches=len(launches), grid=grid_max, block=block)


def _device_bruteforce(instance, symmetric, max_free, block, variant) -> TSPResult:
    """Versions (b) and (c): the orders built on the device, the minimum reduced there."""
    gpu.require()
    prep, block, t0 = _prepare_bruteforce(instance, symmetric, max_free, block)
    if prep.n == 1:
        return single_city(prep, variant, t0)
    best, best_rank, t1, launch_stats = _device_search(prep, variant, block)   # t1: the uploads done
    t2 = time.perf_counter()
    tour = prep.plan.tour_of_rank(best_rank)
    stats = _times(t0, t1, t2, **launch_stats)
    return make_result(prep, variant, best, tour, stats, t0)


def search_range(prep, variant: str, c_lo: int, c_hi: int, block: int = 256):
    """The GPU brute force (``gpu_unrank`` or ``gpu_shared_incremental``) over the chunks
    ``c_lo .. c_hi - 1`` of ``prep.plan``, on the current device: ``(best weighted length,
    global rank of the first best order)``, the rank in the plan's enumeration order. The
    pieces of a search split across GPUs (:func:`gpualgo.tsp.distributed.solve_on_cluster`)."""
    if variant not in ("gpu_unrank", "gpu_shared_incremental"):
        raise ValueError(f"a range of chunks is searched by gpu_unrank or gpu_shared_incremental, got {variant!r}")
    best, best_rank, _, _ = _device_search(prep, variant, guards.threads(block), c_lo, c_hi)
    return best, best_rank


def unrank(instance, symmetric=None, max_free: int = MAX_FREE, block: int = 256) -> TSPResult:
    """Version (b), ``gpu_unrank``: every thread unranks each of its orders."""
    return _device_bruteforce(instance, symmetric, max_free, block, "gpu_unrank")


def shared_incremental(instance, symmetric=None, max_free: int = MAX_FREE, block: int = 256) -> TSPResult:
    """Version (c), ``gpu_shared_incremental``: shared matrix, contiguous ranges, incremental cost."""
    return _device_bruteforce(instance, symmetric, max_free, block, "gpu_shared_incremental")


# ------------------------------------------------------------------ version (a): host chunks

@njit(cache=True)
def _fill_orders(n, prefix, last, f, k, chunk, local, count, out):
    # Write `count` orders (cities after 0, one byte each, m = n - 1 bytes per order) into
    # the flat buffer `out`, starting at order `local` of `chunk`; return where the next
    # batch starts.
    m = n - 1
    p = np.empty(k, dtype=np.uint8)
    used = np.zeros(n, dtype=np.bool_)
    fact = np.ones(k + 1, dtype=np.int64)
    for i in range(1, k + 1):
        fact[i] = fact[i - 1] * i
    start_new = True
    pos = 0
    lst = 0
    for _ in range(count):
        if start_new:
            used[:] = False
            used[0] = True
            for t in range(f):
                used[prefix[chunk, t]] = True
            lst = last[chunk]
            if lst >= 0:
                used[lst] = True
            # unrank `local` over the free cities (ascending)
            r = local
            for t in range(k):
                d = r // fact[k - 1 - t]
                r -= d * fact[k - 1 - t]
                city = 0
                for c in range(1, n):
                    if not used[c]:
                        if d == 0:
                            city = c
                            break
                        d -= 1
                p[t] = city
                used[city] = True
            start_new = False
        for t in range(f):
            out[pos + t] = prefix[chunk, t]
        for t in range(k):
            out[pos + f + t] = p[t]
        if lst >= 0:
            out[pos + m - 1] = lst
        pos += m
        local += 1
        if next_permutation(p, k) < 0:
            chunk += 1
            local = 0
            start_new = True
    return chunk, local


def host_chunks(instance, symmetric=None, max_free: int = MAX_FREE, block: int = 256,
                batch: int = HOST_BATCH) -> TSPResult:
    """Version (a), ``gpu_host_chunks``: orders written on the host, costs on the device,
    minimum on the host. Its stats split the time: ``host_ms`` writing the orders,
    ``wait_ms`` waiting for the device."""
    cp = gpu.require()
    guards.integer(batch, "batch")
    prep, block, t0 = _prepare_bruteforce(instance, symmetric, max_free, block)
    if prep.n == 1:
        return single_city(prep, "gpu_host_chunks", t0)
    W, plan, n = prep.W, prep.plan, prep.n
    m = n - 1
    kern = _module(W.dtype).get_function("tour_cost_kernel")
    dW = gpu.to_device(W)
    total = plan.total
    batch = int(min(batch, total))
    stream = cp.cuda.Stream(non_blocking=True)
    slots = []
    for _ in range(2):
        h_orders = np.frombuffer(cp.cuda.alloc_pinned_memory(batch * m), np.uint8, batch * m)
        h_costs = np.frombuffer(cp.cuda.alloc_pinned_memory(batch * W.itemsize), W.dtype, batch)
        slots.append(dict(h_orders=h_orders, h_costs=h_costs,
                          d_orders=cp.empty(batch * m, np.uint8),
                          d_costs=cp.empty(batch, W.dtype),
                          event=cp.cuda.Event(), count=0, first=0, pending=False))
    t1 = time.perf_counter()
    best, best_rank = None, None
    host_ms = 0.0
    wait_ms = 0.0
    grid_max = 0

    def consume(s):
        nonlocal best, best_rank, wait_ms
        tw = time.perf_counter()
        s["event"].synchronize()
        wait_ms += (time.perf_counter() - tw) * 1e3
        costs = s["h_costs"][:s["count"]]
        i = int(np.argmin(costs))        # first minimum: ties to the lowest rank
        if best is None or int(costs[i]) < best:
            best, best_rank = int(costs[i]), s["first"] + i
        s["pending"] = False

    chunk, local, done, b = 0, 0, 0, 0
    with stream:
        while done < total:
            s = slots[b % 2]
            if s["pending"]:
                consume(s)
            cnt = int(min(batch, total - done))
            th = time.perf_counter()
            chunk, local = _fill_orders(n, plan.prefix, plan.last, plan.f, plan.k,
                                        chunk, local, cnt, s["h_orders"])
            host_ms += (time.perf_counter() - th) * 1e3
            s["d_orders"][:cnt * m].set(s["h_orders"][:cnt * m], stream=stream)
            grid, _ = launch_config(kern, block, cnt)
            grid_max = max(grid_max, grid)
            kern((grid,), (block,), (s["d_orders"], np.int64(cnt), np.int32(n), dW, s["d_costs"]))
            s["d_costs"][:cnt].get(stream=stream, out=s["h_costs"][:cnt])
            s["event"].record(stream)
            s.update(count=cnt, first=done, pending=True)
            done += cnt
            b += 1
        for i in range(b, b + 2):     # the two last batches, in order
            s = slots[i % 2]
            if s["pending"]:
                consume(s)
    t2 = time.perf_counter()
    tour = plan.tour_of_rank(best_rank)
    stats = _times(t0, t1, t2, host_ms=host_ms, wait_ms=wait_ms, batches=b, batch=batch, grid=grid_max,
                   block=block)
    return make_result(prep, "gpu_host_chunks", best, tour, stats, t0)


# ------------------------------------------------------------------------- Held-Karp

def _binomials():
    # C(b, i) for b, i < HK_MAX_N: the table the layer kernel unranks its masks with
    B = np.zeros((HK_MAX_N, HK_MAX_N), dtype=np.uint32)
    for b in range(HK_MAX_N):
        for i in range(HK_MAX_N):
            B[b, i] = math.comb(b, i) if math.comb(b, i) < 2**32 else 0xFFFFFFFF
    return B


def held_karp_memory(n: int, dtype) -> int:
    """Bytes of GPU memory the GPU Held-Karp needs for n cities (its table dominates)."""
    return held_karp_bytes(n, dtype) + (1 << 20)


def held_karp(instance, block: int = 256, force: bool = False) -> TSPResult:
    """Version ``gpu_held_karp``: Held-Karp by layers of subset size, one launch per layer.

    Raises:
        ValueError: n > 33, or (unless ``force``) the table does not fit in the GPU memory
            that can be had now (:func:`gpualgo.guards.memory`, with the estimate).
    """
    cp = gpu.require()
    t0 = time.perf_counter()
    block = guards.threads(block)
    prep = prepare(instance, brute_force=False)
    n, W = prep.n, prep.W
    check_cities(n, held_karp=True)
    if n == 1:
        return single_city(prep, "gpu_held_karp", t0)
    guards.memory(held_karp_memory(n, W.dtype), f"GPU Held-Karp on n={n} cities (its table of 2^{n - 1} x {n - 1} "
                  f"{np.dtype(W.dtype).name} entries)", force, where="GPU")
    mod = _module(W.dtype)
    k_init = mod.get_function("held_karp_init_kernel")
    k_layer = mod.get_function("held_karp_layer_kernel")
    k_back = mod.get_function("held_karp_backtrack_kernel")
    m = n - 1
    dW = gpu.to_device(W)
    binom = gpu.to_device(_binomials())
    dp = cp.empty((1 << m) * m, dtype=W.dtype)
    tour = cp.empty(n, dtype=np.int32)
    length = cp.empty(1, dtype=W.dtype)
    t1 = time.perf_counter()
    one, _ = launch_config(k_init, WARP)
    with gpu.CudaTimer() as t:
        k_init((one,), (WARP,), (dp, dW, np.int32(n)))
        for s in range(2, m + 1):
            count = math.comb(m, s) * s
            grid, _ = launch_config(k_layer, block, count)
            k_layer((grid,), (block,), (dp, dW, np.int32(n), binom, np.int32(s), np.int64(count)))
        k_back((one,), (WARP,), (dp, dW, np.int32(n), tour, length))
    best = int(length.get()[0])
    tour_h = tour.get().astype(np.int64)
    t2 = time.perf_counter()
    del dp
    stats = _times(t0, t1, t2, kernel_ms=t.ms, layers=max(m - 1, 0), block=block,
                   table_bytes=held_karp_bytes(n, W.dtype))
    return make_result(prep, "gpu_held_karp", best, tour_h, stats, t0)
