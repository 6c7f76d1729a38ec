"""The GPU auction variants, in the order they are taught (kernels: ``gpualgo/kernels/auction.cu``).

``gpu_v1``            the report's bidding kernel (2-D grid, two-stage top-2 reduction,
                      last block found with an atomic counter) and assignment kernel
                      (one block per object); the host reads the matched count every round.
``gpu_queues``        + queues of unassigned persons and of objects that got a bid, the
                      kernel that rebuilds the person queue, two streams and events so
                      that copying the matched counter overlaps that kernel; ties between
                      equal bids go to whoever the atomics queued first.
``gpu_deterministic`` the same, ties to the lowest person: equals the serial version.
``gpu_graph``         the queue version, several rounds captured in one CUDA graph.
``gpu_eps_scaling``   beyond the report: eps-scaling (phases with decreasing eps, prices
                      kept), bidding by groups of warps (one to a block per bidder,
                      from the number of bidders) with a 64-bit atomicMax per object,
                      per-person bid caches that decide most bids without a row scan,
                      and a single-block kernel that finishes each phase once few
                      bidders remain, its state in shared memory.  Deterministic:
                      equals the serial eps-scaling twin.
``gpu_sparse``        the same on CSR rows (for the 10% density instances).

Every variant takes ``(B, eps=None, **options)`` and returns an AssignmentResult.
Launch configurations are computed in :func:`launch_config` only.
"""
from __future__ import annotations

import time

import numpy as np

from ... import gpu
from .. import problem
from ..result import make_result
from . import serial as auction_serial

__all__ = ["launch_config", "gpu_v1", "gpu_queues", "gpu_deterministic", "gpu_graph",
           "gpu_eps_scaling", "gpu_sparse"]

_NULL = np.uint64(0)          # a null pointer argument
_C_MATCHED, _C_ROUNDS, _C_CACHE_HITS, _C_TAIL_SCANS = 4, 5, 6, 7  # counter slots (see auction.cu)
TAIL_THREADS = 1024
CACHE_K = 64                  # entries of a person's bid cache (auction.cu)
TAIL_MAX = 8                  # the single-block tail kernel takes over at this many bidders


def launch_config(kind: str, n: int, sms: int, bid_threads: int = 128, assign_threads: int = 256,
                  grid_factor: int = 2, warps_per_block: int = 8, blocks_per_sm: int = 4) -> dict:
    """Every grid and block size of the auction kernels, in one place.

    ``kind`` is ``"report"`` (bid_kernel / assign_kernel / rebuild_queue_kernel) or
    ``"fast"`` (the eps-scaling kernels).  Report defaults: 128 bidding threads, 256
    assignment threads, grids of ``grid_factor`` x the SM count (the report's best).
    """
    for name, t in (("bid_threads", bid_threads), ("assign_threads", assign_threads)):
        if t % 32 or not 32 <= t <= 1024:
            raise ValueError(f"{name} must be a multiple of 32 in [32, 1024], got {t}")
    if kind == "report":
        gx = max(1, min(-(-n // bid_threads), bid_threads))  # the last block reduces gx partials
        gy = max(1, grid_factor * sms)
        return {"bid": ((gx, gy), (bid_threads,)), "assign": ((gy,), (assign_threads,)),
                "rebuild": ((gy,), (256,)), "bid_x": gx}
    if kind == "fast":
        threads = 32 * warps_per_block
        return {"bid": ((blocks_per_sm * sms,), (threads,)), "assign": ((2 * sms,), (256,)),
                "tail": ((1,), (TAIL_THREADS,)), "phase": ((4 * sms,), (256,))}
    raise ValueError(f"unknown kernel family {kind!r}")


def _kernels(names, tail_max: int = TAIL_MAX):
    mod = gpu.load_module("auction", defines={"TAIL_MAX": tail_max, "CACHE_K": CACHE_K})
    return {k: mod.get_function(k) for k in names}


def _check_memory(cp, nbytes: int, force: bool):
    free, _total = cp.cuda.runtime.memGetInfo()
    if nbytes > 0.9 * free and not force:
        raise ValueError(f"this instance needs about {nbytes / 2**30:.1f} GiB of GPU memory, "
                         f"{free / 2**30:.1f} GiB are free; pass force=True to try anyway")


def _to_device(cp, a):
    """Copy a host array to the GPU.  A large one is page-locked for the copy, which is
    about twice as fast as copying from pageable memory, and released afterwards."""
    a = np.ascontiguousarray(a)
    if a.nbytes < (16 << 20):
        return cp.asarray(a)
    d = cp.empty(a.shape, a.dtype)
    try:
        cp.cuda.runtime.hostRegister(a.ctypes.data, a.nbytes, 0)
    except cp.cuda.runtime.CUDARuntimeError:  # e.g. already page-locked elsewhere
        d.set(a)
        return d
    try:
        cp.cuda.runtime.memcpy(d.data.ptr, a.ctypes.data, a.nbytes, cp.cuda.runtime.memcpyHostToDevice)
    finally:
        cp.cuda.runtime.hostUnregister(a.ctypes.data)
    return d


def _i64(v):
    return np.int64(v)


def _i32(v):
    return np.int32(v)


class _Pinned:
    """One page-locked int32 counter copied from the device without blocking the stream."""

    def __init__(self, cp):
        self.cp = cp
        self.mem = cp.cuda.alloc_pinned_memory(4)
        self.host = np.frombuffer(self.mem, dtype=np.int32, count=1)

    def copy_from(self, dev_view, stream):
        self.cp.cuda.runtime.memcpyAsync(self.host.ctypes.data, dev_view.data.ptr, 4, 2, stream.ptr)

    @property
    def value(self) -> int:
        return int(self.host[0])


def _report_family(B, eps, variant: str, bid_threads: int = 128, assign_threads: int = 256,
                   grid_factor: int = 2, rounds_per_graph: int = 16, max_rounds: int = 10**8,
                   force: bool = False):
    """gpu_v1 / gpu_queues / gpu_deterministic / gpu_graph (the report's kernels)."""
    cp = gpu.require()
    t0 = time.perf_counter()
    prob = problem.prepare(B, eps)
    m, n = prob.m, prob.n
    cfg = launch_config("report", n, gpu.sm_count(), bid_threads, assign_threads, grid_factor)
    gx = cfg["bid_x"]
    _check_memory(cp, 4 * m * n + 20 * m * gx + 64 * (m + n), force)
    k = _kernels(("bid_kernel", "assign_kernel", "rebuild_queue_kernel"))
    t1 = time.perf_counter()
    with gpu.CudaTimer() as upload:
        raw = _to_device(cp, prob.raw)
    price = cp.zeros(n, dtype=cp.int64)
    person_obj = cp.full(m, -1, dtype=cp.int32)
    obj_owner = cp.full(n, -1, dtype=cp.int32)
    pb = cp.empty(m * gx, dtype=cp.int64)
    ps = cp.empty(m * gx, dtype=cp.int64)
    pi = cp.empty(m * gx, dtype=cp.int32)
    done = cp.zeros(m, dtype=cp.uint32)
    bid_obj = cp.full(m, -1, dtype=cp.int32)
    bid_inc = cp.zeros(m, dtype=cp.int64)
    obj_flag = cp.zeros(n, dtype=cp.int32)
    obj_queue = cp.zeros(n, dtype=cp.int32)
    queues = [cp.arange(m, dtype=cp.int32), cp.zeros(m, dtype=cp.int32)]
    counters = cp.zeros(8, dtype=cp.int32)
    counters[0] = m
    scale, e, cap = _i64(prob.scale), _i64(prob.eps), _i64(prob.cap)
    queued = variant != "gpu_v1"
    det = _i32(1 if variant == "gpu_deterministic" else 0)

    def one_round(p):
        q, nq = queues[p], queues[1 - p]
        ql, nql = counters[p:p + 1], counters[1 - p:2 - p]
        ol = counters[2:3]
        if not queued:
            k["bid_kernel"](cfg["bid"][0], cfg["bid"][1], (
                raw, scale, price, _i32(m), _i32(n), _NULL, _NULL, person_obj, e, cap,
                pb, ps, pi, done, bid_obj, bid_inc, obj_flag, _NULL, _NULL, _NULL))
            k["assign_kernel"](cfg["assign"][0], cfg["assign"][1], (
                bid_obj, bid_inc, _i32(m), _NULL, _NULL, obj_flag, _NULL, _NULL, _i32(n),
                price, person_obj, obj_owner, counters, _NULL, _NULL, _NULL, _i32(1)))
            return
        k["bid_kernel"](cfg["bid"][0], cfg["bid"][1], (
            raw, scale, price, _i32(m), _i32(n), q, ql, person_obj, e, cap,
            pb, ps, pi, done, bid_obj, bid_inc, obj_flag, obj_queue, ol, nql))
        k["assign_kernel"](cfg["assign"][0], cfg["assign"][1], (
            bid_obj, bid_inc, _i32(m), q, ql, obj_flag, obj_queue, ol, _i32(n),
            price, person_obj, obj_owner, counters, nq, nql, _NULL, det))

    def rebuild(p):
        k["rebuild_queue_kernel"](cfg["rebuild"][0], cfg["rebuild"][1], (
            queues[p], counters[p:p + 1], person_obj, bid_obj, queues[1 - p], counters[1 - p:2 - p],
            counters[2:3], counters))

    main = cp.cuda.Stream(non_blocking=True)
    side = cp.cuda.Stream(non_blocking=True)
    pinned = _Pinned(cp)
    host_rounds = 0
    cp.cuda.Device().synchronize()
    with main, gpu.CudaTimer(main) as timer:
        if variant == "gpu_graph":
            if rounds_per_graph < 2 or rounds_per_graph % 2:
                raise ValueError(f"rounds_per_graph must be even and >= 2, got {rounds_per_graph}")
            main.begin_capture()
            for r in range(rounds_per_graph):
                one_round(r % 2)
                rebuild(r % 2)
            graph = main.end_capture()
            while True:
                graph.launch(main)
                pinned.copy_from(counters[_C_MATCHED:_C_MATCHED + 1], main)
                main.synchronize()
                host_rounds += rounds_per_graph
                if pinned.value == m:
                    break
                if host_rounds > max_rounds:
                    raise RuntimeError(f"no convergence within max_rounds={max_rounds} rounds")
        else:
            p = 0
            copied = cp.cuda.Event()
            while True:
                one_round(p)
                if queued:
                    # the counter copy (side stream) overlaps the queue rebuild (main stream)
                    assigned = cp.cuda.Event()
                    assigned.record(main)
                    side.wait_event(assigned)
                    pinned.copy_from(counters[_C_MATCHED:_C_MATCHED + 1], side)
                    copied.record(side)
                    rebuild(p)
                    copied.synchronize()
                else:
                    pinned.copy_from(counters[_C_MATCHED:_C_MATCHED + 1], main)
                    main.synchronize()
                host_rounds += 1
                p ^= 1
                if pinned.value == m:
                    break
                if host_rounds > max_rounds:
                    raise RuntimeError(f"no convergence within max_rounds={max_rounds} rounds")
    rounds = host_rounds if not queued else int(counters[_C_ROUNDS].get())
    t2 = time.perf_counter()
    a = person_obj.get()
    pr = price.get()
    t3 = time.perf_counter()
    stats = {"rounds": rounds, "kernel_ms": timer.ms, "upload_ms": upload.ms,
             "download_ms": (t3 - t2) * 1e3, "prepare_ms": (t1 - t0) * 1e3,
             "device": gpu.device_name(), "launch": {k_: v for k_, v in cfg.items()}}
    stats["transfer_ms"] = stats["upload_ms"] + stats["download_ms"]
    if variant == "gpu_graph":
        stats["rounds_launched"] = host_rounds
    return make_result(B, prob, a, pr, variant, stats, t0)


def _fast_family(B, eps, sparse: bool, scaling: bool = True, eps_start=None, eps_factor: int = 8,
                 warps_per_block: int = 8, blocks_per_sm: int = 4, rounds_per_check: int = 16,
                 tail_max: int = TAIL_MAX, tail_shared: bool = True, max_rounds: int = 10**8, force: bool = False):
    """gpu_eps_scaling (dense) and gpu_sparse (CSR): the kernels of family 2 in auction.cu.

    ``tail_shared``: the single-block tail keeps prices and owners in shared memory when
    they fit (the default); False keeps them in global memory (for comparison).
    """
    cp = gpu.require()
    t0 = time.perf_counter()
    upload = gpu.CudaTimer()
    # A square C-contiguous int32 matrix with n % 4 == 0 is used as it is: upload it
    # first and take its range on the device (two host passes cost more than that).
    direct = (not sparse and isinstance(B, np.ndarray) and B.dtype == np.int32 and B.ndim == 2
              and B.shape[0] == B.shape[1] and B.shape[0] % 4 == 0 and B.flags.c_contiguous)
    value_range, upload_host_s = None, 0.0
    if direct:
        _check_memory(cp, 4 * B.size + (64 + 8 * CACHE_K) * B.shape[0], force)
        tu = time.perf_counter()
        with upload:
            raw_d = _to_device(cp, B)
        value_range = (int(raw_d.min()), int(raw_d.max()))
        upload_host_s = time.perf_counter() - tu
    prob = problem.prepare(B, eps, square=True, value_range=value_range)
    N = prob.n  # persons after padding = objects
    if N >= (1 << problem.KEY_BITS):
        raise ValueError(f"at most {(1 << problem.KEY_BITS) - 1} persons, got {N}")
    if prob.scale >= 2**31:
        raise ValueError(f"eps={eps} needs a benefit scale of {prob.scale} >= 2**31, beyond these kernels; "
                         "eps=None gives the exact optimum")
    if not 1 <= tail_max <= 32:
        raise ValueError(f"tail_max must be in [1, 32], got {tail_max}")
    if rounds_per_check < 2 or rounds_per_check % 2:
        raise ValueError(f"rounds_per_check must be even and >= 2, got {rounds_per_check}")
    sched = auction_serial.eps_schedule(prob.span, prob.eps, eps_start if scaling else prob.eps, eps_factor)
    cfg = launch_config("fast", N, gpu.sm_count(), warps_per_block=warps_per_block, blocks_per_sm=blocks_per_sm)
    if sparse:
        present = prob.raw != problem.MISSING
        nnz = int(present.sum())
        _check_memory(cp, 16 * nnz + (64 + 8 * CACHE_K) * N, force)
        indptr_h = np.zeros(N + 1, dtype=np.int64)
        np.cumsum(present.sum(axis=1), out=indptr_h[1:])
        rows_h, cols_h = np.nonzero(present)  # row-major: columns ascending in each row
        vals_h = prob.raw[rows_h, cols_h]
        names = ("phase_start_kernel", "bid_warp_csr_kernel", "assign_winner_kernel", "tail_rounds_csr_kernel")
    else:
        ld = -(-N // 4) * 4
        if not direct:
            _check_memory(cp, 4 * N * ld + (64 + 8 * CACHE_K) * N, force)
        raw_h = prob.raw
        if ld != N:
            raw_h = np.full((N, ld), problem.MISSING, dtype=np.int32)
            raw_h[:, :N] = prob.raw
        names = ("phase_start_kernel", "bid_warp_kernel", "assign_winner_kernel", "tail_rounds_kernel")
    k = _kernels(names, tail_max)
    bid_k, tail_k = k[names[1]], k[names[3]]
    n_price = N if sparse else ld
    tail_smem = 8 * n_price + 4 * N
    tail_limit = cp.cuda.Device().attributes["MaxSharedMemoryPerBlockOptin"] - tail_k.attributes["shared_size_bytes"]
    tail_shared = bool(tail_shared) and tail_smem <= tail_limit
    if tail_shared and tail_k.max_dynamic_shared_size_bytes < tail_smem:
        tail_k.max_dynamic_shared_size_bytes = tail_smem
    t1 = time.perf_counter()
    if sparse:
        with upload:
            rows_args = tuple(_to_device(cp, a) for a in (indptr_h, cols_h.astype(np.int32), vals_h))
    elif direct:
        rows_args = (raw_d, _i32(ld))
    else:
        with upload:
            rows_args = (_to_device(cp, raw_h), _i32(ld))
    # dense scans load the prices of whole int4 groups, padding columns included
    price = cp.zeros(n_price, dtype=cp.int64)
    person_obj = cp.full(N, -1, dtype=cp.int32)
    obj_owner = cp.full(N, -1, dtype=cp.int32)
    obj_key = cp.zeros(N, dtype=cp.uint64)
    cache = (cp.empty(2 * CACHE_K * N, dtype=cp.int32), cp.zeros(N, dtype=cp.int32), cp.empty(N, dtype=cp.int64))
    lists = [cp.zeros(2 * N, dtype=cp.int32), cp.zeros(2 * N, dtype=cp.int32)]
    objq = [cp.zeros(N, dtype=cp.int32), cp.zeros(N, dtype=cp.int32)]
    counters = cp.zeros(8, dtype=cp.int32)
    c = [counters[t:t + 1] for t in range(4)]
    scale = _i32(prob.scale)
    stream = cp.cuda.Stream(non_blocking=True)
    pinned = _Pinned(cp)
    per_phase, checks_done = [], 0
    cp.cuda.Device().synchronize()
    with stream, gpu.CudaTimer(stream) as timer:
        for eps_phase in sched:
            e, cap = _i64(eps_phase), _i64(max(prob.cap, eps_phase))
            k["phase_start_kernel"](cfg["phase"][0], cfg["phase"][1],
                                    (_i32(N), _i32(N), person_obj, obj_owner, lists[0], counters))
            # one CUDA graph per phase: rounds_per_check rounds (an even number, so the
            # lists are back at parity 0) and the tail kernel, launched with one call
            stream.begin_capture()
            for p in (0, 1) * (rounds_per_check // 2):
                bid_k(cfg["bid"][0], cfg["bid"][1], rows_args + (
                    scale, price, lists[p], c[p], person_obj, e, cap, obj_key, objq[p], c[2 + p],
                    lists[1 - p], c[1 - p], c[3 - p]) + cache)
                k["assign_winner_kernel"](cfg["assign"][0], cfg["assign"][1], (
                    objq[p], c[2 + p], obj_key, price, person_obj, obj_owner, counters,
                    lists[1 - p], c[1 - p], c[p]))
            tail_k(cfg["tail"][0], cfg["tail"][1], rows_args + (
                scale, price, _i32(N), lists[0], c[0], person_obj, obj_owner, e, cap, counters) + cache + (
                _i32(tail_shared),), shared_mem=tail_smem if tail_shared else 0)
            batch = stream.end_capture()
            while True:
                batch.launch(stream)
                pinned.copy_from(counters[_C_MATCHED:_C_MATCHED + 1], stream)
                stream.synchronize()
                checks_done += 1
                if pinned.value == N:
                    break
                if checks_done * rounds_per_check > max_rounds:
                    raise RuntimeError(f"no convergence within max_rounds={max_rounds} rounds")
            total = int(counters[_C_ROUNDS].get())
            per_phase.append(total - sum(per_phase))
    t2 = time.perf_counter()
    a = person_obj.get()
    pr = price[:N].get()
    t3 = time.perf_counter()
    stats = {"rounds": int(sum(per_phase)), "rounds_per_phase": per_phase, "eps_schedule": sched,
             "phases": len(sched), "kernel_ms": timer.ms, "upload_ms": upload.ms,
             "download_ms": (t3 - t2) * 1e3, "prepare_ms": (t1 - t0 - upload_host_s) * 1e3,
             "host_checks": checks_done,
             "device": gpu.device_name(), "launch": cfg, "tail_shared": tail_shared}
    hits, scans = (int(v) for v in counters[_C_CACHE_HITS:_C_TAIL_SCANS + 1].get())
    stats.update(tail_cache_hits=hits, tail_scans=scans)
    stats["transfer_ms"] = stats["upload_ms"] + stats["download_ms"]
    return make_result(B, prob, a, pr, "gpu_sparse" if sparse else "gpu_eps_scaling", stats, t0)


def gpu_v1(B, eps=None, **options):
    """The report's first GPU version (no queues); options: bid_threads, assign_threads, grid_factor."""
    return _report_family(B, eps, "gpu_v1", **options)


def gpu_queues(B, eps=None, **options):
    """Queues of unassigned persons and of objects with a bid, streams and events."""
    return _report_family(B, eps, "gpu_queues", **options)


def gpu_deterministic(B, eps=None, **options):
    """The queue version with ties to the lowest person: the serial version's result exactly."""
    return _report_family(B, eps, "gpu_deterministic", **options)


def gpu_graph(B, eps=None, **options):
    """The queue version driven by a CUDA graph of ``rounds_per_graph`` rounds."""
    return _report_family(B, eps, "gpu_graph", **options)


def gpu_eps_scaling(B, eps=None, **options):
    """Exact eps-scaling auction on a dense matrix (options: eps_start, eps_factor, scaling, ...)."""
    return _fast_family(B, eps, sparse=False, **options)


def gpu_sparse(B, eps=None, **options):
    """The eps-scaling auction on CSR rows (only the existing edges are scanned)."""
    return _fast_family(B, eps, sparse=True, **options)
