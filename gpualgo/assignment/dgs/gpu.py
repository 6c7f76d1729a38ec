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
                   many exchanges at once, rows re-evaluated incrementally, no host round
                   trip until the end; ``time_limit`` returns the best assignment so far.
                   ``selection="mutual"`` (the default) applies all mutually best pairs;
                   ``selection="check_conflicts"`` the exchanges the paper's Check-Conflicts
                   keeps (:data:`SELECTIONS`).

The first three run the serial loop (:func:`gpualgo.assignment.dgs.serial.dgs`) with
their evaluation on the GPU, so they follow the serial order exactly (same gains bit for
bit, same ties) and return the serial version's assignment.  ``gpu`` follows the parallel
rule of :func:`gpualgo.assignment.dgs.serial.parallel_rounds`, its serial twin.
:data:`KERNELS` names the kernels each version launches; launch configurations are
computed in :func:`launch_config` only.  Importing this module needs no GPU.

>>> from gpualgo.assignment.dgs import gpu
>>> gpu.KERNELS["gpu_de_global"]
('ade_global_kernel', 'jde_global_kernel')
>>> gpu.launch_config("cells", rows=100, cols=40)
((3, 7), (16, 16))
"""
from __future__ import annotations

import time

import numpy as np

from ... import gpu, guards
from .. import problem
from . import serial as dgs_serial
from .clock import host_us, parse_time_limit
from .trace import check_trace_capacity, make_dgs_result, new_trace, rounds_trace_arrays, trace_arrays

__all__ = ["KERNELS", "SELECTIONS", "launch_config", "check_selection", "gpu_de_global", "gpu_de_shared",
           "gpu_mixed", "gpu_full", "de_pass", "DeviceEvaluation"]

TILE = 16                       # cells per tile side (the paper's 16 x 16 blocks)
#: the counter slots of dgs_rounds_kernel, passed to dgs.cu as defines (its fallbacks agree)
COUNTERS = {"C_LIST": 0, "C_PAIRS": 2, "C_STOP": 4, "C_ROUNDS": 5, "C_FULL": 6, "C_STATE": 7, "C_CONFLICTS": 8}
_C_ROUNDS, _C_FULL, _C_STATE = COUNTERS["C_ROUNDS"], COUNTERS["C_FULL"], COUNTERS["C_STATE"]
#: how the full-GPU version picks a round's exchanges -> the code dgs_rounds_kernel gets (defines
#: SEL_MUTUAL, SEL_CHECK_CONFLICTS): "mutual", the mutually best pairs (ours); "check_conflicts",
#: the paper's Check-Conflicts (Sec. 5, Algorithm 4)
SELECTIONS = {"mutual": 0, "check_conflicts": 1}

_CELLS = ("ade_cells_kernel", "jde_cells_kernel", "row_max_kernel")
#: the kernels of ``gpualgo/kernels/dgs.cu`` each GPU version launches
KERNELS = {
    "gpu_de_global": ("ade_global_kernel", "jde_global_kernel"),
    "gpu_de_shared": _CELLS,
    "gpu_mixed": _CELLS,
    "gpu": ("dgs_rounds_kernel", "clock_kernel"),   # clock_kernel: only with a time limit
}


def launch_config(kind: str, rows: int = 0, cols: int = 0, sms: int = 132, threads: int = 256,
                  blocks_per_sm: int = 4) -> tuple:
    """``(grid, block)`` of a DGS kernel: ``"rows"`` (a thread per row), ``"cells"`` (a
    thread per cell of a ``rows x cols`` matrix in TILE x TILE blocks), ``"rounds"``
    (the cooperative kernel: ``blocks_per_sm`` blocks of 256 threads per SM, all resident)
    or ``"single"`` (one thread: the clock)."""
    if kind == "single":
        return (1,), (1,)
    if kind == "rows":
        return (max(1, -(-rows // threads)),), (threads,)
    if kind == "cells":
        return (max(1, -(-cols // TILE)), max(1, -(-rows // TILE))), (TILE, TILE)
    if kind == "rounds":
        guards.integer(blocks_per_sm, "blocks_per_sm (the kernel's launch bounds)", 1, 4)
        return (blocks_per_sm * sms,), (256,)
    raise ValueError(f"unknown kernel kind {kind!r}")


def check_selection(selection) -> int:
    """The kernel's code of a ``selection`` (:data:`SELECTIONS`); ValueError naming the option
    for any other value.

    >>> check_selection("check_conflicts")
    1
    """
    return SELECTIONS[guards.one_of(selection, "selection", tuple(SELECTIONS))]


#: the kernel's round counter is an int32
MAX_ROUNDS = 2**31 - 1


def check_options(blocks_per_sm=4, trace_capacity=4096, selection="mutual", time_limit=None, init="random", seed=0,
                  max_rounds=10**7, incremental=True, **_):
    """The options of the GPU versions, checked before a GPU is asked for
    (:class:`gpualgo.variants.Variant`'s ``checks``) and again where they are used: the
    launch options, and those the serial version checks too (``time_limit``; ``init`` when
    it names a start, with its ``seed``; an array ``init`` is checked against the matrix)."""
    guards.integer(blocks_per_sm, "blocks_per_sm (the kernel's launch bounds)", 1, 4)
    guards.flag(incremental, "incremental")
    check_trace_capacity(trace_capacity)
    check_selection(selection)
    guards.integer(max_rounds, "max_rounds", 1, MAX_ROUNDS)
    parse_time_limit(time_limit)
    if isinstance(init, str):
        dgs_serial.initial_assignment(np.zeros((1, 1)), init, seed)


def defines(cooperative: bool = True) -> dict:
    """The compile-time constants of dgs.cu: the tile, :data:`COUNTERS`, the codes of
    :data:`SELECTIONS` (``SEL_MUTUAL``...), and without the cooperative kernel
    ``DGS_NO_COOPERATIVE``."""
    codes = {f"SEL_{name.upper()}": code for name, code in SELECTIONS.items()}
    return {"TILE": TILE, **COUNTERS, **codes, **({} if cooperative else {"DGS_NO_COOPERATIVE": 1})}


def _module(cooperative: bool):
    return gpu.load_module("dgs", defines=defines(cooperative), enable_cooperative_groups=cooperative)


class DeviceEvaluation:
    """The difference evaluation of the serial-order versions on the GPU, called as the
    serial loop calls every evaluation (see :class:`gpualgo.assignment.dgs.serial.CpuEvaluation`):
    the matrix stays on the device; every call uploads the assignment and downloads the
    results. ``kind``: ``"global"`` (a thread per row) or ``"shared"`` (a thread per cell,
    then a row maximum)."""

    def __init__(self, cp, A, AT, kind: str):
        self.cp, self.kind = cp, kind
        self.m, self.n = A.shape
        self.A, self.AT = gpu.to_device(A), gpu.to_device(AT)
        mod = _module(False)
        self.k = {name: mod.get_function(name) for name in KERNELS["gpu_de_global"] + _CELLS}
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
        st = (gpu.to_device(tau), gpu.to_device(holder), gpu.to_device(cur))
        for side, rows in (("a", agents), ("j", jobs)):
            nrows = (m if side == "a" else n) if rows is None else len(rows)
            if nrows == 0:
                continue
            rows_d = None if rows is None else gpu.to_device(rows, np.int32)
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


def _start(B, init, seed, force):
    A, AT, tol = dgs_serial.prepare(B, force)
    tau = dgs_serial.initial_assignment(A, init, seed)
    return A, AT, tol, tau, float(A[np.arange(A.shape[0]), tau].sum())


def _serial_order(B, variant: str, init="random", seed=0, time_limit=None, trace_capacity: int = 4096,
                  force: bool = False):
    """gpu_de_global / gpu_de_shared / gpu_mixed: the serial loop, evaluation on the GPU."""
    cp = gpu.require()
    t0 = time.perf_counter()
    limit_us = parse_time_limit(time_limit)
    trace, meta = new_trace(trace_capacity)
    m, n = problem.as_matrix(B).shape
    # on the GPU: A and AT in float64, and the cell kernels' gain matrix (refused before
    # the host's copies are made, which prepare guards in turn)
    guards.memory(16 * m * n + (8 * m * n if variant != "gpu_de_global" else 0),
                  f"{variant} on a {m} x {n} matrix", force)
    A, AT, tol, tau, start_obj = _start(B, init, seed, force)
    de = DeviceEvaluation(cp, A, AT, "global" if variant == "gpu_de_global" else "shared")
    t1 = time.perf_counter()
    state = np.array([start_obj, 0.0, 0.0, host_us()])
    # gpu_mixed: full passes on the GPU, the compiled switching phase on the host; the two
    # others re-evaluate the touched rows on the GPU after every switch
    passes, converged = dgs_serial.dgs(A, AT, tau, tol, trace, meta, state, limit_us, evaluate=de,
                                       python_steps=variant != "gpu_mixed")
    t2 = time.perf_counter()
    exec_ms = (t2 - t1) * 1e3
    sw, ob, ms = trace_arrays(trace, meta, start_obj, (int(state[1]), state[0], exec_ms))
    stats = {"prepare_ms": (t1 - t0) * 1e3, "exec_ms": exec_ms, "device": gpu.device_name(),
             "switches": int(state[1]), "steps": int(state[2]), "passes": passes, "converged": converged,
             "tol": tol, "init": init if isinstance(init, str) else "given",
             "de_ms": de.ms, "de_calls": de.calls, "switch_ms": exec_ms - de.ms}
    return make_dgs_result(B, tau, variant, stats, t0, start_obj, sw, ob, ms)


def de_pass(B, kind: str, init="random", seed=0, reps: int = 3) -> dict:
    """Time one full difference evaluation (ADE of every agent + JDE of every job) of the
    start assignment: ``kind`` ``"cpu"`` (numba), ``"global"`` or ``"shared"`` (GPU,
    uploads of the assignment and downloads of the results included, as in the paper).
    Returns ``{"ms": median, "best": (ad, aj, jd, ji)}``; the results of every kind are
    identical."""
    if kind not in ("cpu", "global", "shared"):
        raise ValueError(f"kind must be 'cpu', 'global' or 'shared', got {kind!r}")
    A, AT, tol, tau, _ = _start(B, init, seed, False)
    holder, cur = dgs_serial.start_state(A, tau)
    m, n = A.shape
    res = (np.empty(m), np.empty(m, dtype=np.int64), np.empty(n), np.empty(n, dtype=np.int64))
    de = dgs_serial.CpuEvaluation(A, AT) if kind == "cpu" else DeviceEvaluation(gpu.require(), A, AT, kind)

    def run():
        de(tau, holder, cur, *res)
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
    # A and AT in float64, and the original while it is converted
    guards.memory(16 * m * n + M.dtype.itemsize * m * n, f"gpu on a {m} x {n} matrix", force)
    if M.dtype.kind in "iu":
        raw = gpu.to_device(M)
        # in float64: uint64 values of 2**63 or more would wrap negative as int64
        big = float(cp.abs(raw.astype(cp.float64)).max())
        if big >= 2**50:
            raise ValueError(f"integer benefits must satisfy |b| < 2**50 for exact float64 sums, got {big:.0f}")
        A_d = raw.astype(cp.float64)
        del raw
        return A_d, cp.ascontiguousarray(A_d.T), 0.0, None
    A, _, tol = dgs_serial.prepare(M, force=force, transpose=False)
    A_d = gpu.to_device(A)
    return A_d, cp.ascontiguousarray(A_d.T), tol, A


def gpu_full(B, eps=None, init="random", seed=0, time_limit=None, max_rounds: int = 10**7, incremental: bool = True,
             selection: str = "mutual", blocks_per_sm: int = 4, trace_capacity: int = 1 << 16, force: bool = False):
    """DGS entirely on the GPU (one cooperative launch; see ``dgs_rounds_kernel``).

    ``time_limit``: seconds from the launch; when the GPU clock passes it, the kernel
    stops after the current round and the assignment so far (always complete, never worse
    than the start) is returned with ``stats["converged"] = False``.  ``incremental=False``
    re-evaluates every row every round (for comparison).  ``selection``: how a round picks
    the exchanges it applies (:data:`SELECTIONS`); with ``"check_conflicts"``,
    ``stats["conflicts"]`` counts the candidates it dropped over the run.  Either selection
    stops on an exchange-optimal assignment; they differ in the exchanges they apply, so in
    the rounds, the time and the assignment they end on.  ``eps`` is not used."""
    code = check_selection(selection)
    max_rounds = guards.integer(max_rounds, "max_rounds", 1, MAX_ROUNDS)
    incremental = guards.flag(incremental, "incremental")
    cp = gpu.require()
    t0 = time.perf_counter()
    lim_us = parse_time_limit(time_limit)
    cap = check_trace_capacity(trace_capacity)
    A_d, AT_d, tol, A_host = _device_matrix(cp, B, force)
    m, n = A_d.shape
    if isinstance(init, str) and init == "greedy" and A_host is None:
        A_host = A_d.get()
    # random and given starts need only the shape
    tau_h = dgs_serial.initial_assignment(A_host if A_host is not None else np.broadcast_to(0.0, (m, n)), init, seed)
    tau = gpu.to_device(tau_h, np.int32)
    holder = cp.full(n, -1, dtype=cp.int32)
    holder[tau] = cp.arange(m, dtype=cp.int32)
    cur = cp.zeros(n)
    cur[tau] = A_d[cp.arange(m), tau]
    start_obj = float(cur.sum())
    best_d, best_p = cp.full(n, -np.inf), cp.full(n, -1, dtype=cp.int32)
    stamp = cp.full(n, -5, dtype=cp.int32)
    lists = cp.zeros(2 * n, dtype=cp.int32)
    counters = cp.zeros(max(COUNTERS.values()) + 1, dtype=cp.int32)
    objective = gpu.to_device(np.array([start_obj, 0.0]))
    trace = cp.zeros(3 * cap)
    mod = _module(True)
    kern = mod.get_function("dgs_rounds_kernel")
    grid, block = launch_config("rounds", sms=gpu.sm_count(), blocks_per_sm=blocks_per_sm)
    if not np.isfinite(lim_us):
        deadline = np.uint64(2**64 - 1)
    else:
        clock = cp.zeros(1, dtype=cp.uint64)
        mod.get_function("clock_kernel")(*launch_config("single"), (clock,))
        deadline = np.uint64(int(clock.get()[0]) + int(lim_us * 1e3))
    t1 = time.perf_counter()
    with gpu.CudaTimer() as timer:
        kern(grid, block, (A_d, AT_d, np.int32(m), np.int32(n), tau, holder, cur, best_d, best_p, stamp, lists,
                           counters, objective, np.float64(tol), deadline, np.int32(max_rounds),
                           np.int32(bool(incremental)), np.int32(code), trace, np.int32(cap)))
    t2 = time.perf_counter()
    a = tau.get().astype(np.int64)
    cnt = counters.get()
    rounds = int(cnt[_C_ROUNDS])
    tr = trace.get().reshape(-1, 3)[:min(rounds, cap)]
    obj_d = objective.get()
    stats = {"prepare_ms": (t1 - t0) * 1e3, "exec_ms": (t2 - t1) * 1e3, "kernel_ms": timer.ms,
             "device": gpu.device_name(), "download_ms": (time.perf_counter() - t2) * 1e3,
             "rounds": rounds, "switches": int(obj_d[1]), "converged": bool(cnt[_C_STATE] == 1),
             "full_row_scans": int(cnt[_C_FULL]), "tol": tol, "init": init if isinstance(init, str) else "given",
             "launch": {"rounds": (grid, block)}, "incremental": bool(incremental), "selection": selection}
    if selection == "check_conflicts":
        stats["conflicts"] = int(cnt[COUNTERS["C_CONFLICTS"]])
    sw, ob, ms = rounds_trace_arrays(tr, start_obj)
    return make_dgs_result(B, a, "gpu", stats, t0, start_obj, sw, ob, ms)


def gpu_de_global(B, eps=None, **options):
    """Serial DGS with every difference evaluation on the GPU, a thread per agent / job."""
    return _serial_order(B, "gpu_de_global", **options)


def gpu_de_shared(B, eps=None, **options):
    """Serial DGS with every evaluation on the GPU, a thread per cell (shared-memory tiles)."""
    return _serial_order(B, "gpu_de_shared", **options)


def gpu_mixed(B, eps=None, **options):
    """Full passes on the GPU (shared-memory kernels), switching on the host."""
    return _serial_order(B, "gpu_mixed", **options)
