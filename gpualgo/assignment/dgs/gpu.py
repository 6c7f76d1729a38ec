"""The GPU versions of Deep Greedy Switching, in the paper's order (kernels: ``gpualgo/kernels/dgs.cu``).

``gpu_de_global``  every difference evaluation (the full passes and the re-evaluation of
                   the two agents and two jobs after each switch) on the GPU, a thread
                   per agent / per job scanning its row in global memory; the assignment
                   goes up and the results come down at every evaluation, as in the
                   paper's measurements.  Switching on the host.
``gpu_de_shared``  the same with a thread per (row, column) cell in 16 x 16 tiles (the
                   row and column data staged in shared memory), then a row-max kernel.
``gpu_mixed``      the paper's "mixed GPU-CPU" solver: the full passes on the GPU
                   (shared-memory kernels, the matrix stays on the device), switching and
                   its small re-evaluations on the host (numba).
``gpu``            everything on the GPU in one cooperative kernel: every round applies
                   all mutually best exchanges at once (the parallel Check-Conflicts),
                   rows re-evaluated incrementally, no host round trip until the end;
                   ``time_limit`` returns the best assignment so far.

The first three follow the serial order exactly (same gains bit for bit, same ties):
they return the serial version's assignment.  ``gpu`` follows the parallel rule of
:func:`dgs_serial.parallel_rounds`, its serial twin.
Launch configurations are computed in :func:`launch_config` only.
"""
from __future__ import annotations

import time

import numpy as np

from ... import gpu
from .. import problem
from ..auction.gpu import _check_memory, _to_device
from . import serial as dgs_serial

__all__ = ["launch_config", "gpu_de_global", "gpu_de_shared", "gpu_mixed", "gpu_full",
           "de_pass"]

TILE = 16                       # cells per tile side (the paper's 16 x 16 blocks)
_C_ROUNDS, _C_FULL, _C_STATE = 5, 6, 7   # counter slots of dgs_rounds_kernel (dgs.cu)


def launch_config(kind: str, rows: int = 0, cols: int = 0, sms: int = 132, threads: int = 256,
                  blocks_per_sm: int = 4) -> tuple:
    """``(grid, block)`` of a DGS kernel: ``"rows"`` (a thread per row), ``"cells"`` (a
    thread per cell of a ``rows x cols`` matrix in TILE x TILE blocks) or ``"rounds"``
    (the cooperative kernel: ``blocks_per_sm`` blocks of 256 threads per SM, all resident)."""
    if kind == "rows":
        return (max(1, -(-rows // threads)),), (threads,)
    if kind == "cells":
        return (max(1, -(-cols // TILE)), max(1, -(-rows // TILE))), (TILE, TILE)
    if kind == "rounds":
        if not 1 <= blocks_per_sm <= 4:
            raise ValueError(f"blocks_per_sm must be in [1, 4] (the kernel's launch bounds), got {blocks_per_sm}")
        return (blocks_per_sm * sms,), (256,)
    raise ValueError(f"unknown kernel kind {kind!r}")


def _module(cooperative: bool):
    if cooperative:
        return gpu.load_module("dgs", defines={"TILE": TILE}, enable_cooperative_groups=True)
    return gpu.load_module("dgs", defines={"TILE": TILE, "DGS_NO_COOPERATIVE": 1})


class _DeviceDE:
    """The difference evaluation of the serial-order versions on the GPU: the matrix stays
    on the device; every call uploads the assignment and downloads the results."""

    def __init__(self, cp, A, AT, kind: str):
        self.cp, self.kind = cp, kind
        self.m, self.n = A.shape
        self.A, self.AT = _to_device(cp, A), _to_device(cp, AT)
        mod = _module(False)
        self.k = {name: mod.get_function(name) for name in
                  ("ade_global_kernel", "jde_global_kernel", "ade_cells_kernel", "jde_cells_kernel", "row_max_kernel")}
        self.out = [cp.empty(self.m), cp.empty(self.m, dtype=cp.int64),
                    cp.empty(self.n), cp.empty(self.n, dtype=cp.int64)]
        self.D = cp.empty(self.m * self.n) if kind == "shared" else None
        self.ms = 0.0
        self.calls = 0

    def __call__(self, tau, holder, cur, ad, aj, jd, ji, agents=None, jobs=None):
        """Evaluate ``agents`` and ``jobs`` (int lists; None: all) into the host arrays."""
        cp = self.cp
        t = time.perf_counter()
        m, n = self.m, self.n
        st = (cp.asarray(tau), cp.asarray(holder), cp.asarray(cur))
        for side, rows in (("a", agents), ("j", jobs)):
            nrows = (m if side == "a" else n) if rows is None else len(rows)
            if nrows == 0:
                continue
            rows_d = None if rows is None else cp.asarray(np.asarray(rows, dtype=np.int32))
            rows_arg = rows_d if rows_d is not None else np.uint64(0)
            d_out, i_out = (self.out[0], self.out[1]) if side == "a" else (self.out[2], self.out[3])
            common = (self.A, self.AT, np.int32(m), np.int32(n)) + st + (rows_arg, np.int32(nrows))
            if self.kind == "global":
                grid, block = launch_config("rows", nrows)
                kern = self.k["ade_global_kernel" if side == "a" else "jde_global_kernel"]
                kern(grid, block, common + (d_out, i_out))
            else:
                cols = n if side == "a" else m
                grid, block = launch_config("cells", nrows, cols)
                self.k["ade_cells_kernel" if side == "a" else "jde_cells_kernel"](grid, block, common + (self.D,))
                grid, block = launch_config("rows", nrows)
                self.k["row_max_kernel"](grid, block, (self.D, np.int32(nrows), np.int32(cols), rows_arg, d_out, i_out))
            hd, hi = (ad, aj) if side == "a" else (jd, ji)
            if rows is None:
                d_out.get(out=hd)
                i_out.get(out=hi)
            else:
                idx = np.asarray(rows)
                hd[idx] = d_out[rows_d].get()
                hi[idx] = i_out[rows_d].get()
        self.ms += (time.perf_counter() - t) * 1e3
        self.calls += 1


def _start(B, init, seed, force, transpose=True):
    A, AT, tol = dgs_serial.prepare(B, force, transpose)
    tau = dgs_serial.initial_assignment(A, init, seed)
    m, n = A.shape
    holder = np.full(n, -1, dtype=np.int64)
    holder[tau] = np.arange(m)
    cur = np.zeros(n)
    cur[tau] = A[np.arange(m), tau]
    return A, AT, tol, tau, holder, cur, float(cur.sum())


def _serial_order(B, variant: str, init="random", seed=0, time_limit=None, trace_capacity: int = 4096,
                  force: bool = False):
    """gpu_de_global / gpu_de_shared / gpu_mixed: the serial algorithm, evaluation on the GPU."""
    cp = gpu.require()
    t0 = time.perf_counter()
    limit_us = dgs_serial.parse_time_limit(time_limit)
    trace, meta = dgs_serial.new_trace(trace_capacity)
    A, AT, tol, tau, holder, cur, start_obj = _start(B, init, seed, force)
    m, n = A.shape
    _check_memory(cp, 16 * m * n + (8 * m * n if variant != "gpu_de_global" else 0), force)
    de = _DeviceDE(cp, A, AT, "global" if variant == "gpu_de_global" else "shared")
    t1 = time.perf_counter()
    ad, aj, jd, ji = np.empty(m), np.empty(m, dtype=np.int64), np.empty(n), np.empty(n, dtype=np.int64)
    clk = np.zeros(2, dtype=np.int64)
    state = np.array([start_obj, 0.0, 0.0, dgs_serial.now_us(clk)])
    t_end = state[3] + limit_us
    out = np.empty(4, dtype=np.int64)
    passes, converged = 0, False
    while True:
        passes += 1
        de(tau, holder, cur, ad, aj, jd, ji)
        if variant == "gpu_mixed":
            applied = dgs_serial.switch_phase(A, AT, tau, holder, cur, ad, aj, jd, ji, tol, state, trace, meta,
                                              clk, t_end)
        else:
            applied = 0
            while True:
                r = dgs_serial.pick_and_apply(A, tau, holder, cur, ad, aj, jd, ji, tol, out)
                if r == 0.0:
                    break
                state[2] += 1
                if r == 1.0:
                    continue
                state[0] += r - 2.0
                state[1] += 1
                applied += 1
                a, k, x, y = (int(v) for v in out)
                de(tau, holder, cur, ad, aj, jd, ji, agents=[a] if k < 0 else [a, k], jobs=[x, y])
                now = dgs_serial.now_us(clk)
                dgs_serial.record_trace(trace[0], trace[1], trace[2], meta, np.int64(state[1]), state[0],
                                        now - state[3])
                if now > t_end:
                    break
        if applied == 0:   # nothing improves: converged, even if the time limit has passed
            converged = True
            break
        if dgs_serial.now_us(clk) > t_end:
            break
    t2 = time.perf_counter()
    solve_ms = (t2 - t1) * 1e3
    sw, ob, ms = dgs_serial.trace_arrays(trace, meta, start_obj, (int(state[1]), state[0], solve_ms))
    stats = {"switches": int(state[1]), "steps": int(state[2]), "passes": passes, "converged": converged,
             "tol": tol, "init": init if isinstance(init, str) else "given", "prepare_ms": (t1 - t0) * 1e3,
             "solve_ms": solve_ms, "de_ms": de.ms, "de_calls": de.calls, "switch_ms": solve_ms - de.ms,
             "device": gpu.device_name()}
    return dgs_serial.make_dgs_result(B, tau, variant, stats, t0, start_obj, sw, ob, ms)


def de_pass(B, kind: str, init="random", seed=0, reps: int = 3) -> dict:
    """Time one full difference evaluation (ADE of every agent + JDE of every job) of the
    start assignment: ``kind`` ``"cpu"`` (numba), ``"global"`` or ``"shared"`` (GPU,
    uploads of the assignment and downloads of the results included, as in the paper).
    Returns ``{"ms": median, "best": (ad, aj, jd, ji)}``; the results of every kind are
    identical."""
    A, AT, tol, tau, holder, cur, _ = _start(B, init, seed, False)
    m, n = A.shape
    res = (np.empty(m), np.empty(m, dtype=np.int64), np.empty(n), np.empty(n, dtype=np.int64))
    if kind == "cpu":
        def run():
            dgs_serial.full_de(A, AT, tau, holder, cur, *res)
    elif kind in ("global", "shared"):
        cp = gpu.require()
        de = _DeviceDE(cp, A, AT, kind)

        def run():
            de(tau, holder, cur, *res)
    else:
        raise ValueError(f"kind must be 'cpu', 'global' or 'shared', got {kind!r}")
    run()  # warm-up: compilation and allocations
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        run()
        times.append((time.perf_counter() - t) * 1e3)
    return {"ms": float(np.median(times)), "best": res}


def _device_matrix(cp, B, force: bool):
    """Upload ``B`` as float64 with its transpose: integer matrices are converted on the GPU
    (one upload of the original, no host pass); returns ``(A_d, AT_d, tol, A_host or None)``."""
    M = problem.as_matrix(B)
    m, n = M.shape
    if m * n > dgs_serial.MAX_ENTRIES and not force:
        raise ValueError(f"B has {m * n} entries: the GPU keeps B and its transpose in float64, about "
                         f"{16 * m * n / 2**30:.1f} GiB; pass force=True to run it anyway")
    _check_memory(cp, 16 * m * n + M.dtype.itemsize * m * n, force)
    if M.dtype.kind in "iu":
        raw = _to_device(cp, M)
        # in float64: uint64 values of 2**63 or more would wrap negative as int64
        big = float(cp.abs(raw.astype(cp.float64)).max())
        if big >= 2**50:
            raise ValueError(f"integer benefits must satisfy |b| < 2**50 for exact float64 sums, got {big:.0f}")
        A_d = raw.astype(cp.float64)
        del raw
        return A_d, cp.ascontiguousarray(A_d.T), 0.0, None
    A, _, tol = dgs_serial.prepare(M, force=True, transpose=False)
    A_d = _to_device(cp, A)
    return A_d, cp.ascontiguousarray(A_d.T), tol, A


def gpu_full(B, eps=None, init="random", seed=0, time_limit=None, max_rounds: int = 10**7, incremental: bool = True,
             blocks_per_sm: int = 4, trace_capacity: int = 1 << 16, force: bool = False):
    """DGS entirely on the GPU (one cooperative launch; see ``dgs_rounds_kernel``).

    ``time_limit``: seconds from the launch; when the GPU clock passes it, the kernel
    stops after the current round and the assignment so far (always complete, never worse
    than the start) is returned with ``stats["converged"] = False``.  ``incremental=False``
    re-evaluates every row every round (for comparison).  ``eps`` is not used."""
    cp = gpu.require()
    t0 = time.perf_counter()
    lim_us = dgs_serial.parse_time_limit(time_limit)
    cap = dgs_serial.check_trace_capacity(trace_capacity)
    A_d, AT_d, tol, A_host = _device_matrix(cp, B, force)
    m, n = A_d.shape
    if isinstance(init, str) and init == "greedy" and A_host is None:
        A_host = A_d.get()
    # random and given starts need only the shape
    tau_h = dgs_serial.initial_assignment(A_host if A_host is not None else np.broadcast_to(0.0, (m, n)), init, seed)
    tau = cp.asarray(tau_h.astype(np.int32))
    holder = cp.full(n, -1, dtype=cp.int32)
    holder[tau] = cp.arange(m, dtype=cp.int32)
    cur = cp.zeros(n)
    cur[tau] = A_d[cp.arange(m), tau]
    start_obj = float(cur.sum())
    best_d, best_p = cp.full(n, -np.inf), cp.full(n, -1, dtype=cp.int32)
    stamp = cp.full(n, -5, dtype=cp.int32)
    lists = cp.zeros(2 * n, dtype=cp.int32)
    counters = cp.zeros(8, dtype=cp.int32)
    objective = cp.asarray([start_obj, 0.0])
    trace = cp.zeros(3 * cap)
    mod = _module(True)
    kern = mod.get_function("dgs_rounds_kernel")
    grid, block = launch_config("rounds", sms=gpu.sm_count(), blocks_per_sm=blocks_per_sm)
    if not np.isfinite(lim_us):
        deadline = np.uint64(2**64 - 1)
    else:
        clock = cp.zeros(1, dtype=cp.uint64)
        mod.get_function("clock_kernel")((1,), (1,), (clock,))
        deadline = np.uint64(int(clock.get()[0]) + int(lim_us * 1e3))
    t1 = time.perf_counter()
    with gpu.CudaTimer() as timer:
        kern(grid, block, (A_d, AT_d, np.int32(m), np.int32(n), tau, holder, cur, best_d, best_p, stamp, lists,
                           counters, objective, np.float64(tol), deadline, np.int32(max_rounds),
                           np.int32(bool(incremental)), trace, np.int32(cap)))
    t2 = time.perf_counter()
    a = tau.get().astype(np.int64)
    cnt = counters.get()
    rounds = int(cnt[_C_ROUNDS])
    tr = trace.get().reshape(-1, 3)[:min(rounds, cap)]
    obj_d = objective.get()
    stats = {"rounds": rounds, "switches": int(obj_d[1]), "converged": bool(cnt[_C_STATE] == 1),
             "full_row_scans": int(cnt[_C_FULL]), "tol": tol, "init": init if isinstance(init, str) else "given",
             "kernel_ms": timer.ms, "prepare_ms": (t1 - t0) * 1e3, "download_ms": (time.perf_counter() - t2) * 1e3,
             "solve_ms": timer.ms, "device": gpu.device_name(), "launch": {"rounds": (grid, block)},
             "incremental": bool(incremental)}
    sw = np.concatenate([[0], tr[:, 0]]).astype(np.int64)
    ob = np.concatenate([[start_obj], tr[:, 1]])
    ms = np.concatenate([[0.0], tr[:, 2] / 1e6])
    return dgs_serial.make_dgs_result(B, a, "gpu", stats, t0, start_obj, sw, ob, ms)


def gpu_de_global(B, eps=None, **options):
    """Serial DGS with every difference evaluation on the GPU, a thread per agent / job."""
    return _serial_order(B, "gpu_de_global", **options)


def gpu_de_shared(B, eps=None, **options):
    """Serial DGS with every evaluation on the GPU, a thread per cell (shared-memory tiles)."""
    return _serial_order(B, "gpu_de_shared", **options)


def gpu_mixed(B, eps=None, **options):
    """Full passes on the GPU (shared-memory kernels), switching on the host."""
    return _serial_order(B, "gpu_mixed", **options)
