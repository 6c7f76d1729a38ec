"""GPU versions of the exact TSP solvers (CuPy RawKernels from ``gpualgo/kernels/tsp.cu``).

In the order they are taught (the versions of :data:`gpualgo.tsp.VARIANTS`; :data:`KERNELS`
lists the kernels each one launches):

- :func:`host_chunks` (a): the host writes chunks of orders (1 byte per city) into pinned
  buffers, copies them in, one thread per order computes its cost, the host finds the
  minimum. Two buffers alternate, so the host fills one while the GPU works on the other.
- :func:`unrank` (b): each thread builds its orders from their ranks (factorial number
  system); the minimum is reduced on the device.
- :func:`shared_incremental` (c): matrix in shared memory, a contiguous range of orders per
  thread walked with next_permutation and an incremental cost, device reduction; beyond the
  report, the last four cities' 24 orders scored from 20 edge costs held in registers.
- :func:`held_karp` : dynamic programming by layers of subset size.

The report's tuning steps are options of these versions (:data:`TUNING`), each set one at a
time by the ``tuning`` bench preset: (a) takes ``index``, ``host_buffer``, ``matrix``,
``layout`` and ``reduce`` (the report's Sec. 2.1), (b) and (c) take ``matrix`` and (c)
``incremental`` (the three changes of (c) over (b), measured one by one) and ``suffix``
(``"steps"``: the last four cities stepped like the others, as before the registers). An option that
changes a kernel sets one of the flags :data:`TUNING_DEFINES` of ``tsp.cu``; without options
every version runs exactly as it is recorded.

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

__all__ = ["KERNELS", "OPTION_KERNELS", "TUNING", "TUNING_DEFINES", "launch_config", "in_phase", "host_chunks", "unrank", "shared_incremental", "held_karp",
           "held_karp_memory", "check_cities"]

#: the kernels each GPU version launches, in launch order
KERNELS = {
    "gpu_host_chunks": ("tour_cost_kernel",),
    "gpu_unrank": ("unrank_kernel", "reduce_best_kernel"),
    "gpu_shared_incremental": ("shared_incremental_kernel", "reduce_best_kernel"),
    "gpu_held_karp": ("held_karp_init_kernel", "held_karp_layer_kernel", "held_karp_backtrack_kernel"),
}
#: the kernels a version launches instead when its options ask for a tuning step: (a) with a
#: kernel option scores with the tuned kernel, with ``reduce="device"`` it reduces on the device
OPTION_KERNELS = {"gpu_host_chunks": ("tour_cost_tuned_kernel", "tour_best_kernel", "reduce_best_kernel")}

#: the report's tuning steps as options, with the values each takes; the defaults are those of
#: each version's signature (the matrix: global memory in (a) and (b), shared memory in (c))
TUNING = {"index": ("uint8", "int32"), "host_buffer": ("pinned", "pageable", "mapped"),
          "matrix": ("global", "shared"), "layout": ("order", "city"), "reduce": ("host", "device"),
          "incremental": (True, False), "suffix": ("registers", "steps")}
#: the flags of tsp.cu the options set to 1 (at 0, their fallback, each kernel is as recorded)
TUNING_DEFINES = ("A_INT32_ORDERS", "A_CITY_MAJOR", "A_SHARED_MATRIX", "B_SHARED_MATRIX", "C_GLOBAL_MATRIX",
                  "C_FULL_COST", "C_STEP_SUFFIX")

#: orders per launch of (b) and (c), so one launch lasts about a second and its rank
#: count stays far below 2^63
LAUNCH_ORDERS = 1 << 37
#: least orders per thread in (c): below this, unranking the start dominates
MIN_PER_THREAD = 256
#: in (c), a thread's range is rounded up by less than 1/PHASE_SLACK to start in phase (:func:`in_phase`)
PHASE_SLACK = 16
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


def _module(dtype, flags=()):
    # the compile-time constants of tsp.cu, from here only; `flags`: tuning steps set to 1
    defines = {"MAXN": BF_MAX_N, "MAXK": MAX_FREE, "HK_MAXN": HK_MAX_N}
    if np.dtype(dtype) == np.int64:
        defines["COST_INT64"] = 1
    for flag in flags:
        if flag not in TUNING_DEFINES:
            raise ValueError(f"unknown tuning flag {flag!r}; known: {list(TUNING_DEFINES)}")
        defines[flag] = 1
    return gpu.load_module("tsp", defines=defines)


def check_cities(n: int, held_karp: bool = False) -> None:
    """Refuse more cities than a GPU version handles: :data:`HK_MAX_N` for Held-Karp (the
    stride of its binomial table), :data:`BF_MAX_N` for brute force (a set of cities is a
    32-bit mask). Known before a GPU is asked for."""
    if held_karp and n > HK_MAX_N:
        raise ValueError(f"GPU Held-Karp handles at most {HK_MAX_N} cities, got n={n}")
    if not held_karp and n > BF_MAX_N:
        raise ValueError(f"GPU brute force handles at most {BF_MAX_N} cities, got n={n}")


def check_options(block=256, batch=HOST_BATCH, **tuning):
    """The launch options of every GPU version (``block``, and ``batch`` of (a)) and the
    tuning steps' (:data:`TUNING`), checked before a GPU is asked for
    (:class:`gpualgo.variants.Variant`'s ``checks``; each version's table entry says which
    it takes).

    >>> check_options(host_buffer="zero-copy")
    Traceback (most recent call last):
    ...
    ValueError: host_buffer must be one of 'pinned', 'pageable', 'mapped', got 'zero-copy'
    """
    guards.threads(block)
    guards.integer(batch, "batch")
    for name, value in tuning.items():
        if name in TUNING:
            guards.one_of(value, name, TUNING[name])


def in_phase(per_thread: int, k: int) -> int:
    """``per_thread`` rounded up to a multiple of j! (the largest j <= k with j! at most
    1/:data:`PHASE_SLACK` of it): the length of version (c)'s per-thread ranges.

    A thread's next_permutation step changes the last positions of its order; how many
    depends on where the order stands in the cycle of its last j positions, that is on its
    rank modulo j!. Ranges that all start at a multiple of j! keep the 32 threads of a warp in
    the same phase, so they take the same branch and re-add the same number of costs at every
    step, instead of each waiting for the slowest; rounding up adds under 1/PHASE_SLACK to a
    range, so the grid shrinks by as little.

    >>> in_phase(100_000, 13), in_phase(100_000, 13) % 720, in_phase(5000, 3)
    (100800, 0, 5004)
    """
    j, f = 1, 1
    while j < k and f * (j + 1) * PHASE_SLACK <= per_thread:
        j += 1
        f *= j
    return -(-per_thread // f) * f


def launch_config(kernel, block: int, work: int | None = None, per_thread_min: int = 1, phase: int = 0):
    """The grid of a launch, computed in one place for every kernel. Returns (grid, per_thread).

    ``work`` items: one wave of resident blocks (from the kernel's register count), fewer when
    ``work`` items at ``per_thread_min`` per thread need fewer threads; kernels with a
    grid-stride loop ignore ``per_thread``. With ``per_thread_min > 1`` (version (c): each
    thread walks a contiguous range of ``per_thread`` orders) the grid keeps only the blocks
    that have a range; ``phase=k`` (the enumeration's free positions) makes every range start
    in the same phase of the permutation cycle (:func:`in_phase`). ``work=None``: a kernel
    whose one block does the whole job (the final reduction; the ends of Held-Karp): (1, 1).
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
        if phase > 1:
            per_thread = in_phase(per_thread, phase)
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


def _device_search(prep, variant, block, c_lo: int = 0, c_hi: int | None = None, flags=(), phase: bool = True):
    """Versions (b) and (c) over the chunks ``c_lo .. c_hi - 1`` of the plan, on the current
    device: the orders built there, the minimum reduced there (``flags``: the tuning steps'
    defines; ``phase=False``: version (c)'s ranges not rounded to start in phase, how it ran
    before :func:`in_phase`). Returns (best weighted length, global rank of the first best order,
    the time the uploads were done (perf_counter), the launches' stats)."""
    cp = gpu.require()
    W, plan, n = prep.W, prep.plan, prep.n
    mod = _module(W.dtype, flags)
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
        grid, per_thread = launch_config(kern, block, total, MIN_PER_THREAD if contiguous else 1,
                                         phase=plan.k if phase else 0)
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


def _device_bruteforce(instance, symmetric, max_free, block, variant, flags=(), **tuning) -> TSPResult:
    """Versions (b) and (c): the orders built on the device, the minimum reduced there;
    ``flags`` the tuning steps' defines, ``tuning`` the options that set them (into the stats)."""
    gpu.require()
    prep, block, t0 = _prepare_bruteforce(instance, symmetric, max_free, block)
    if prep.n == 1:
        return single_city(prep, variant, t0)
    best, best_rank, t1, launch_stats = _device_search(prep, variant, block, flags=flags)   # t1: uploads done
    t2 = time.perf_counter()
    tour = prep.plan.tour_of_rank(best_rank)
    stats = _times(t0, t1, t2, **launch_stats, **tuning)
    return make_result(prep, variant, best, tour, stats, t0)


def search_range(prep, variant: str, c_lo: int, c_hi: int, block: int = 256, phase: bool = True,
                 suffix: str = "registers"):
    """The GPU brute force (``gpu_unrank`` or ``gpu_shared_incremental``) over the chunks
    ``c_lo .. c_hi - 1`` of ``prep.plan``, on the current device: ``(best weighted length,
    global rank of the first best order)``, the rank in the plan's enumeration order. The
    pieces of a search split across GPUs (:func:`gpualgo.tsp.distributed.solve_on_cluster`).
    ``phase=False`` leaves version (c)'s ranges as they were before :func:`in_phase`, and
    ``suffix="steps"`` steps its last four cities (to measure what each costs)."""
    if variant not in ("gpu_unrank", "gpu_shared_incremental"):
        raise ValueError(f"a range of chunks is searched by gpu_unrank or gpu_shared_incremental, got {variant!r}")
    guards.one_of(phase, "phase", (True, False))
    flags = _c_flags(suffix=suffix) if variant == "gpu_shared_incremental" else ()
    best, best_rank, _, _ = _device_search(prep, variant, guards.threads(block), c_lo, c_hi, flags, phase=phase)
    return best, best_rank


def unrank(instance, symmetric=None, max_free: int = MAX_FREE, block: int = 256, matrix: str = "global") -> TSPResult:
    """Version (b), ``gpu_unrank``: every thread unranks each of its orders. ``matrix="shared"``
    (a tuning step) reads the matrix from a copy in shared memory, as (c) does."""
    guards.one_of(matrix, "matrix", TUNING["matrix"])
    flags = ("B_SHARED_MATRIX",) if matrix == "shared" else ()
    return _device_bruteforce(instance, symmetric, max_free, block, "gpu_unrank", flags, matrix=matrix)


def shared_incremental(instance, symmetric=None, max_free: int = MAX_FREE, block: int = 256,
                       matrix: str = "shared", incremental: bool = True, suffix: str = "registers") -> TSPResult:
    """Version (c), ``gpu_shared_incremental``: shared matrix, contiguous ranges, incremental cost.
    Two tuning steps undo one of its changes over (b) each: ``matrix="global"`` reads the matrix
    from global memory, ``incremental=False`` adds up every order's whole cost (its ranges
    and next_permutation stay; the last four cities are then stepped too). ``suffix="steps"``
    steps the last four cities like the others instead of scoring their 24 orders from
    registers (how (c) ran before)."""
    flags = _c_flags(matrix, incremental, suffix)
    return _device_bruteforce(instance, symmetric, max_free, block, "gpu_shared_incremental", flags,
                              matrix=matrix, incremental=incremental, suffix=suffix)


def _c_flags(matrix: str = "shared", incremental: bool = True, suffix: str = "registers") -> tuple:
    """The tsp.cu flags of version (c)'s options, each checked against :data:`TUNING`."""
    guards.one_of(matrix, "matrix", TUNING["matrix"])
    guards.one_of(incremental, "incremental", TUNING["incremental"])
    guards.one_of(suffix, "suffix", TUNING["suffix"])
    return ((("C_GLOBAL_MATRIX",) if matrix == "global" else ()) + (() if incremental else ("C_FULL_COST",))
            + (("C_STEP_SUFFIX",) if suffix == "steps" else ()))


# ------------------------------------------------------------------ version (a): host chunks

@njit(cache=True)
def _fill_orders(n, prefix, last, f, k, chunk, local, count, out):
    # Write `count` orders (the cities after 0, m = n - 1 per order) into out[j, 0..m-1],
    # starting at order `local` of `chunk`; return where the next batch starts.  `out` is a
    # (count, m) view: C-contiguous when the orders are laid out order-major, the transpose of
    # an (m, count) array when city-major (numba compiles each layout and index type apart).
    m = n - 1
    p = np.empty(k, dtype=np.uint8)
    used = np.zeros(n, dtype=np.bool_)
    fact = np.ones(k + 1, dtype=np.int64)
    for i in range(1, k + 1):
        fact[i] = fact[i - 1] * i
    start_new = True
    lst = 0
    for j in range(count):
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
            out[j, t] = prefix[chunk, t]
        for t in range(k):
            out[j, f + t] = p[t]
        if lst >= 0:
            out[j, m - 1] = lst
        local += 1
        if next_permutation(p, k) < 0:
            chunk += 1
            local = 0
            start_new = True
    return chunk, local


def _host_kernels(dtype, opts: dict):
    """(scoring kernel, reducing kernel or None) of version (a) with its options: the plain
    ``tour_cost_kernel`` without any, else the tuned kernels compiled with their flags."""
    flags = tuple(flag for flag, on in (("A_INT32_ORDERS", opts["index"] == "int32"),
                                        ("A_CITY_MAJOR", opts["layout"] == "city"),
                                        ("A_SHARED_MATRIX", opts["matrix"] == "shared")) if on)
    mod = _module(dtype, flags)
    if opts["reduce"] == "device":
        return mod.get_function("tour_best_kernel"), mod.get_function("reduce_best_kernel")
    return mod.get_function("tour_cost_tuned_kernel" if flags else "tour_cost_kernel"), None


def _slot(cp, buffers_of: gpu.HostBuffers, batch: int, m: int, cost_dtype, opts: dict, grid: int) -> dict:
    """One of (a)'s two alternating batches: the orders on the host (in ``buffers_of``, the
    memory kind of ``host_buffer``: :class:`gpualgo.gpu.HostBuffers`) and where the kernel reads
    them (a device copy, or the mapped host memory itself), what comes back (every cost, or with
    ``reduce="device"`` one cost and one rank, after the blocks' bests), and the four events
    that time its upload, kernels and download."""
    order_dtype = np.int32 if opts["index"] == "int32" else np.uint8
    buffers = {"orders": (batch * m, order_dtype)}
    if opts["reduce"] == "host":
        buffers["costs"] = (batch, cost_dtype)
    else:
        buffers.update(cost=(1, cost_dtype), rank=(1, np.int64))
    s = dict(batch=batch, count=0, first=0, pending=False, mapped=opts["host_buffer"] == "mapped",
             events=[cp.cuda.Event() for _ in range(4)])
    kind = opts["host_buffer"]
    for name, (size, dtype) in buffers.items():
        host = buffers_of.empty(size, dtype, kind)
        s["h_" + name], s["d_" + name] = host, (buffers_of.device(host, kind) if kind == "mapped"
                                                 else cp.empty(size, dtype))
    if opts["reduce"] == "device":
        s["block_cost"], s["block_rank"] = cp.empty(grid, cost_dtype), cp.empty(grid, np.int64)
    return s


def _submit(s: dict, cnt: int, kernels, dW, n: int, block: int, stream) -> int:
    """Send one batch of ``cnt`` orders on ``stream``: copy them in (unless mapped), score
    them, copy back the costs or the minimum (unless mapped), an event before and after each
    step. Returns the grid."""
    m = n - 1
    score, reduce_k = kernels
    e = s["events"]
    e[0].record(stream)
    if not s["mapped"]:
        s["d_orders"][:cnt * m].set(s["h_orders"][:cnt * m], stream=stream)
    e[1].record(stream)
    grid, _ = launch_config(score, block, cnt)
    if reduce_k is None:
        score((grid,), (block,), (s["d_orders"], np.int64(cnt), np.int32(n), dW, s["d_costs"]))
        back = (("costs", cnt),)
    else:
        score((grid,), (block,), (s["d_orders"], np.int64(cnt), np.int32(n), dW, s["block_cost"], s["block_rank"]))
        one, _ = launch_config(reduce_k, REDUCE_BLOCK)
        reduce_k((one,), (REDUCE_BLOCK,), (s["block_cost"], s["block_rank"], np.int32(grid), s["d_cost"], s["d_rank"]))
        back = (("cost", 1), ("rank", 1))
    e[2].record(stream)
    if not s["mapped"]:
        for name, size in back:
            s["d_" + name][:size].get(stream=stream, out=s["h_" + name][:size])
    e[3].record(stream)
    return grid


def _collect(cp, s: dict, times: dict) -> tuple[int, int]:
    """Wait for a batch, add its waiting, copy and kernel times to ``times``, and return its
    (least weighted length, the plan rank of its first order of that length)."""
    e = s["events"]
    tw = time.perf_counter()
    e[3].synchronize()
    times["wait_ms"] += (time.perf_counter() - tw) * 1e3
    for key, a, b in (("upload_ms", 0, 1), ("kernel_ms", 1, 2), ("download_ms", 2, 3)):
        times[key] += cp.cuda.get_elapsed_time(e[a], e[b])
    s["pending"] = False
    if "h_costs" in s:
        costs = s["h_costs"][:s["count"]]
        i = int(np.argmin(costs))        # first minimum: ties to the lowest rank
        return int(costs[i]), s["first"] + i
    return int(s["h_cost"][0]), s["first"] + int(s["h_rank"][0])


def _pipeline(cp, prep, slots, kernels, dW, block: int, city_major: bool):
    """Version (a)'s loop: the host writes the next batch into one slot while the device works
    on the other; batches are collected in order, so ties go to the lowest rank. Returns
    (best weighted length, its rank, the times, the batches, the largest grid)."""
    plan, n = prep.plan, prep.n
    m = n - 1
    stream = cp.cuda.Stream(non_blocking=True)
    times = dict(host_ms=0.0, wait_ms=0.0, upload_ms=0.0, kernel_ms=0.0, download_ms=0.0)
    best, best_rank = None, None
    chunk, local, done, b, grid_max = 0, 0, 0, 0, 0
    with stream:
        while done < plan.total or any(s["pending"] for s in slots):
            s = slots[b % 2]
            if s["pending"]:
                cost, rank = _collect(cp, s, times)
                if best is None or cost < best:
                    best, best_rank = cost, rank
            if done >= plan.total:      # the last batches, collected in order
                b += 1
                continue
            cnt = int(min(s["batch"], plan.total - done))
            th = time.perf_counter()
            flat = s["h_orders"][:cnt * m]
            view = flat.reshape(m, cnt).T if city_major else flat.reshape(cnt, m)
            chunk, local = _fill_orders(n, plan.prefix, plan.last, plan.f, plan.k, chunk, local, cnt, view)
            times["host_ms"] += (time.perf_counter() - th) * 1e3
            grid_max = max(grid_max, _submit(s, cnt, kernels, dW, n, block, stream))
            s.update(count=cnt, first=done, pending=True)
            done += cnt
            b += 1
    return best, best_rank, times, grid_max


def host_chunks(instance, symmetric=None, max_free: int = MAX_FREE, block: int = 256, batch: int = HOST_BATCH,
                index: str = "uint8", host_buffer: str = "pinned", matrix: str = "global", layout: str = "order",
                reduce: str = "host") -> TSPResult:
    """Version (a), ``gpu_host_chunks``: orders written on the host, costs on the device,
    minimum on the host. Its stats split the time: ``host_ms`` writing the orders, ``wait_ms``
    waiting for the device and, on the device (CUDA events), ``upload_ms``, ``kernel_ms`` and
    ``download_ms`` (``transfer_ms``: the two copies).

    The report's tuning steps (Sec. 2.1), each against what (a) does without it:
    ``index="int32"`` (4-byte city indices: the report's int before char), ``host_buffer``
    ``"pageable"`` (plain memory, staged by the driver at each copy) or ``"mapped"`` (zero-copy:
    the kernel reads the orders and writes its results in host memory), ``matrix="shared"``
    (each block copies the matrix into shared memory), ``layout="city"`` (city t of every order
    in one row: a warp's reads are coalesced), ``reduce="device"`` (the minimum found on the
    device: two numbers come back per batch instead of a cost per order).
    """
    cp = gpu.require()
    guards.integer(batch, "batch")
    opts = dict(index=index, host_buffer=host_buffer, matrix=matrix, layout=layout, reduce=reduce)
    check_options(**opts)
    prep, block, t0 = _prepare_bruteforce(instance, symmetric, max_free, block)
    if prep.n == 1:
        return single_city(prep, "gpu_host_chunks", t0)
    W, plan = prep.W, prep.plan
    kernels = _host_kernels(W.dtype, opts)
    dW = gpu.to_device(W)
    batch = int(min(batch, plan.total))
    grid, _ = launch_config(kernels[0], block, batch)
    with gpu.HostBuffers() as buffers_of:      # page-locked memory freed once the device is done
        slots = [_slot(cp, buffers_of, batch, prep.n - 1, W.dtype, opts, grid) for _ in range(2)]
        t1 = time.perf_counter()
        best, best_rank, times, grid_max = _pipeline(cp, prep, slots, kernels, dW, block, layout == "city")
        t2 = time.perf_counter()
    tour = plan.tour_of_rank(best_rank)
    stats = _times(t0, t1, t2, **times, transfer_ms=times["upload_ms"] + times["download_ms"],
                   batches=math.ceil(plan.total / batch), batch=batch, grid=grid_max, block=block, **opts)
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
