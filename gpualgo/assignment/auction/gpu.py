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

Every variant takes ``(B, eps=None, **options)`` and returns an AssignmentResult built by
``make_result``. :data:`KERNELS` lists the kernels each one launches; launch configurations
are computed in :func:`launch_config` only; the compile-time constants (the counter slots
among them) are defined here and passed to auction.cu by :func:`defines`; uploads go
through ``gpu.to_device`` and memory refusals through ``guards.memory`` (``force=True``
insists). Importing this module needs no GPU.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ... import gpu, guards
from .. import problem
from ..result import make_result
from . import serial as auction_serial

__all__ = ["KERNELS", "COUNTERS", "CACHE_K", "TAIL_MAX", "WARPS_PER_BLOCK", "launch_config", "defines",
           "gpu_v1", "gpu_queues", "gpu_deterministic", "gpu_graph", "gpu_eps_scaling", "gpu_sparse"]

_NULL = np.uint64(0)          # a null pointer argument

#: the slots of the int32 ``counters`` array the kernels share, passed to auction.cu as
#: defines: the lengths of the person and object queues of the two round parities (the host
#: hands those to the kernels as pointers), then the counts the run reports
COUNTERS = {"C_PERSONS0": 0, "C_PERSONS1": 1, "C_OBJECTS0": 2, "C_OBJECTS1": 3,
            "C_MATCHED": 4, "C_ROUNDS": 5, "C_CACHE_HITS": 6, "C_TAIL_SCANS": 7, "C_TAIL_SOLO": 8}
_N_COUNTERS = len(COUNTERS)
_C_MATCHED, _C_ROUNDS, _C_CACHE_HITS, _C_TAIL_SCANS, _C_TAIL_SOLO = (
    COUNTERS[k] for k in ("C_MATCHED", "C_ROUNDS", "C_CACHE_HITS", "C_TAIL_SCANS", "C_TAIL_SOLO"))
TAIL_THREADS = 1024
CACHE_K = 256                 # entries of a person's bid cache
TAIL_MAX = 12                 # the single-block tail kernel takes over at this many bidders
WARPS_PER_BLOCK = 16          # warps per block of the bidding kernels (the ``warps`` sweep's evidence)
PERSISTENT = False            # the bulk rounds in one cooperative launch (True) or a CUDA graph of launches
PERSISTENT_PAIRS = 1 << 15    # the most pairs of rounds one bulk_rounds_kernel launch runs
NARROW_LIMIT = 2**30          # |raw| * scale below it: dense scans fold 32-bit profits (NARROW_SCANS; 0: never)

_REPORT_KERNELS = ("bid_kernel", "assign_kernel", "rebuild_queue_kernel")
#: the kernels each GPU version launches (auction.cu), in the order of a round
KERNELS = {
    "gpu_v1": ("bid_kernel", "assign_kernel"),
    "gpu_queues": _REPORT_KERNELS,
    "gpu_deterministic": _REPORT_KERNELS,
    "gpu_graph": _REPORT_KERNELS,
    "gpu_eps_scaling": ("phase_start_kernel", "bid_warp_kernel", "assign_winner_kernel", "tail_rounds_kernel",
                        "bulk_rounds_kernel"),
    "gpu_sparse": ("phase_start_kernel", "bid_warp_csr_kernel", "assign_winner_kernel", "tail_rounds_csr_kernel",
                   "bulk_rounds_csr_kernel"),
}


def launch_config(kind: str, n: int, sms: int, bid_threads: int = 128, assign_threads: int = 256,
                  grid_factor: int = 2, warps_per_block: int = WARPS_PER_BLOCK, blocks_per_sm: int = 4) -> dict:
    """Every grid and block size of the auction kernels, in one place.

    ``kind`` is ``"report"`` (bid_kernel / assign_kernel / rebuild_queue_kernel) or
    ``"fast"`` (the eps-scaling kernels).  Report defaults: 128 bidding threads, 256
    assignment threads, grids of ``grid_factor`` x the SM count (the report's best).

    >>> launch_config("report", n=18000, sms=132)["bid"]
    ((128, 264), (128,))
    """
    guards.threads(bid_threads, "bid_threads")
    guards.threads(assign_threads, "assign_threads")
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


def defines(tail_max: int = TAIL_MAX, tail_clock: bool = False, narrow: bool = False) -> dict:
    """The compile-time constants of auction.cu: the tail's bidder limit, the bid cache's
    size, the person bits of a bid key (:data:`problem.KEY_BITS`), whether the tail kernel
    clocks itself (``TAIL_CLOCK``), whether dense scans fold 32-bit profits
    (``NARROW_SCANS``) and the counter slots (:data:`COUNTERS`)."""
    return {"TAIL_MAX": tail_max, "CACHE_K": CACHE_K, "KEY_BITS": problem.KEY_BITS, "TAIL_CLOCK": int(bool(tail_clock)),
            "NARROW_SCANS": int(bool(narrow)), **COUNTERS}


def _module(tail_max: int = TAIL_MAX, tail_clock: bool = False, narrow: bool = False, cooperative: bool = False):
    """auction.cu compiled with these constants; ``cooperative``: for ``persistent=True``, whose
    kernels CuPy then launches cooperatively (every block resident, grid barriers allowed)."""
    kwargs = {"enable_cooperative_groups": True} if cooperative else {}
    return gpu.load_module("auction", defines=defines(tail_max, tail_clock, narrow), **kwargs)


def narrow_scans(prob, sparse: bool) -> bool:
    """Whether the dense scans may fold 32-bit profits: every finite benefit's |raw| * scale is
    below :data:`NARROW_LIMIT` (then raw * scale - price fits int32 while the prices stay below
    2^30; a scan that reads a larger price stops the run, which starts again without them)."""
    return not sparse and prob.raw_max * prob.scale < NARROW_LIMIT


class _NarrowAbort(Exception):
    """A narrow scan read a price of 2^30 or more: the run must start again with 64-bit scans."""


def _kernels(names, tail_max: int = TAIL_MAX):
    mod = _module(tail_max)
    return {k: mod.get_function(k) for k in names}


def _i64(v):
    return np.int64(v)


def _i32(v):
    return np.int32(v)


def _slot(counters, name: str):
    """The one-element view of ``counters`` at the slot :data:`COUNTERS` names (a pointer to
    hand a kernel)."""
    t = COUNTERS[name]
    return counters[t:t + 1]


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


def _no_convergence(max_rounds):
    return RuntimeError(f"no convergence within max_rounds={max_rounds} rounds")


# ------------------------------------------------------------------ the report's kernels

def _report_bytes(m: int, n: int, gx: int) -> int:
    """GPU memory of the report's kernels: the int32 matrix, the per-block partials of the
    bidding reduction (two int64 and one int32 per person and block column), and the
    person and object arrays (bids, queues, prices, matching)."""
    return 4 * m * n + 20 * m * gx + 64 * (m + n)


class _ReportAuction:
    """The device state of the report's kernels and one round of them (bid, assign,
    rebuild), for the versions gpu_v1 / gpu_queues / gpu_deterministic / gpu_graph."""

    def __init__(self, cp, prob, cfg, variant: str):
        m, n, gx = prob.m, prob.n, cfg["bid_x"]
        self.cp, self.cfg, self.m, self.n = cp, cfg, m, n
        self.k = _kernels(_REPORT_KERNELS)
        with gpu.CudaTimer() as upload:
            self.raw = gpu.to_device(prob.raw)
        self.upload_ms = upload.ms
        self.price = cp.zeros(n, dtype=cp.int64)
        self.person_obj = cp.full(m, -1, dtype=cp.int32)
        self.obj_owner = cp.full(n, -1, dtype=cp.int32)
        self.pb = cp.empty(m * gx, dtype=cp.int64)
        self.ps = cp.empty(m * gx, dtype=cp.int64)
        self.pi = cp.empty(m * gx, dtype=cp.int32)
        self.done = cp.zeros(m, dtype=cp.uint32)
        self.bid_obj = cp.full(m, -1, dtype=cp.int32)
        self.bid_inc = cp.zeros(m, dtype=cp.int64)
        self.obj_flag = cp.zeros(n, dtype=cp.int32)
        self.obj_queue = cp.zeros(n, dtype=cp.int32)
        self.queues = [cp.arange(m, dtype=cp.int32), cp.zeros(m, dtype=cp.int32)]
        self.counters = cp.zeros(_N_COUNTERS, dtype=cp.int32)
        self.counters[COUNTERS["C_PERSONS0"]] = m
        self.persons_len = [_slot(self.counters, "C_PERSONS0"), _slot(self.counters, "C_PERSONS1")]
        self.objects_len = _slot(self.counters, "C_OBJECTS0")     # one object queue: rebuilt every round
        self.scale, self.eps, self.cap = _i64(prob.scale), _i64(prob.eps), _i64(prob.cap)
        self.queued = variant != "gpu_v1"
        self.det = _i32(1 if variant == "gpu_deterministic" else 0)

    def round(self, p: int) -> None:
        """Bidding and assignment of one round; ``p`` is the round's parity (which queue is read)."""
        k, cfg, m, n = self.k, self.cfg, _i32(self.m), _i32(self.n)
        if not self.queued:
            k["bid_kernel"](cfg["bid"][0], cfg["bid"][1], (
                self.raw, self.scale, self.price, m, n, _NULL, _NULL, self.person_obj, self.eps, self.cap,
                self.pb, self.ps, self.pi, self.done, self.bid_obj, self.bid_inc, self.obj_flag, _NULL, _NULL, _NULL))
            k["assign_kernel"](cfg["assign"][0], cfg["assign"][1], (
                self.bid_obj, self.bid_inc, m, _NULL, _NULL, self.obj_flag, _NULL, _NULL, n,
                self.price, self.person_obj, self.obj_owner, self.counters, _NULL, _NULL, _NULL, _i32(1)))
            return
        c = self.counters
        q, nq = self.queues[p], self.queues[1 - p]
        ql, nql, ol = self.persons_len[p], self.persons_len[1 - p], self.objects_len
        k["bid_kernel"](cfg["bid"][0], cfg["bid"][1], (
            self.raw, self.scale, self.price, m, n, q, ql, self.person_obj, self.eps, self.cap,
            self.pb, self.ps, self.pi, self.done, self.bid_obj, self.bid_inc, self.obj_flag, self.obj_queue, ol, nql))
        k["assign_kernel"](cfg["assign"][0], cfg["assign"][1], (
            self.bid_obj, self.bid_inc, m, q, ql, self.obj_flag, self.obj_queue, ol, n,
            self.price, self.person_obj, self.obj_owner, c, nq, nql, _NULL, self.det))

    def rebuild(self, p: int) -> None:
        """The queue of the next round: the bidders of round parity ``p`` who won nothing."""
        self.k["rebuild_queue_kernel"](self.cfg["rebuild"][0], self.cfg["rebuild"][1], (
            self.queues[p], self.persons_len[p], self.person_obj, self.bid_obj, self.queues[1 - p],
            self.persons_len[1 - p], self.objects_len, self.counters))

    def matched_view(self):
        return self.counters[_C_MATCHED:_C_MATCHED + 1]

    def run_graph(self, main, pinned, rounds_per_graph: int, max_rounds: int) -> int:
        """gpu_graph: capture ``rounds_per_graph`` rounds in one CUDA graph, launch it until
        every person is matched; returns the rounds launched."""
        main.begin_capture()
        for r in range(rounds_per_graph):
            self.round(r % 2)
            self.rebuild(r % 2)
        graph = main.end_capture()
        launched = 0
        while True:
            graph.launch(main)
            pinned.copy_from(self.matched_view(), main)
            main.synchronize()
            launched += rounds_per_graph
            if pinned.value == self.m:
                return launched
            if launched > max_rounds:
                raise _no_convergence(max_rounds)

    def run_rounds(self, main, side, pinned, max_rounds: int, timeline_rounds: int = 0) -> tuple[int, list]:
        """One round at a time, the host reading the matched counter after each; with queues
        the counter's copy (side stream) overlaps the queue rebuild (main stream). Returns
        the rounds run and, for the first ``timeline_rounds`` rounds, each round's events
        (``(round, start, assigned, copy start, copied, rebuilt)``: the report's Figure 2),
        to be read once the streams are done (:func:`_timeline`)."""
        cp = self.cp
        rounds, p = 0, 0
        copied = cp.cuda.Event()
        marks = []
        while True:
            timed = self.queued and rounds < timeline_rounds
            if timed:
                start, copy_start, copy_end, rebuilt = (cp.cuda.Event() for _ in range(4))
                start.record(main)
            self.round(p)
            if self.queued:
                assigned = cp.cuda.Event()
                assigned.record(main)
                side.wait_event(assigned)
                if timed:
                    copy_start.record(side)
                pinned.copy_from(self.matched_view(), side)
                copied.record(side)
                self.rebuild(p)
                if timed:
                    copy_end.record(side)
                    rebuilt.record(main)
                    marks.append((rounds, start, assigned, copy_start, copy_end, rebuilt))
                copied.synchronize()
            else:
                pinned.copy_from(self.matched_view(), main)
                main.synchronize()
            rounds += 1
            p ^= 1
            if pinned.value == self.m:
                return rounds, marks
            if rounds > max_rounds:
                raise _no_convergence(max_rounds)


def _timeline(marks) -> list[dict]:
    """The spans of :meth:`_ReportAuction.run_rounds`' events, in microseconds from the first
    round's start: per round, bid + assign and the queue rebuild on the main stream, the matched
    counter's copy on the side stream."""
    cp = gpu.require()
    if not marks:
        return []
    t0 = marks[0][1]

    def us(event):
        return cp.cuda.get_elapsed_time(t0, event) * 1e3
    spans = []
    for r, start, assigned, copy_start, copy_end, rebuilt in marks:
        spans += [dict(round=r, stream="main", step="bid + assign", start_us=us(start), end_us=us(assigned)),
                  dict(round=r, stream="side", step="copy of the matched counter", start_us=us(copy_start),
                       end_us=us(copy_end)),
                  dict(round=r, stream="main", step="queue rebuild", start_us=us(assigned), end_us=us(rebuilt))]
    return spans


def _report_family(B, eps, variant: str, bid_threads: int = 128, assign_threads: int = 256,
                   grid_factor: int = 2, rounds_per_graph: int = 16, max_rounds: int = 10**8,
                   timeline_rounds: int = 0, force: bool = False):
    """gpu_v1 / gpu_queues / gpu_deterministic / gpu_graph (the report's kernels).
    ``timeline_rounds``: the queue versions time the streams' steps of their first rounds with
    CUDA events (``stats["timeline"]``, :func:`_timeline`: the report's Figure 2)."""
    check_report_options(bid_threads, assign_threads, grid_factor, rounds_per_graph, timeline_rounds, max_rounds)
    if timeline_rounds and variant not in ("gpu_queues", "gpu_deterministic"):
        raise ValueError(f"timeline_rounds is for gpu_queues and gpu_deterministic (their two streams), "
                         f"not {variant}")
    cp = gpu.require()
    t0 = time.perf_counter()
    prob = problem.prepare(B, eps, force=force)
    cfg = launch_config("report", prob.n, gpu.sm_count(), bid_threads, assign_threads, grid_factor)
    guards.memory(_report_bytes(prob.m, prob.n, cfg["bid_x"]), f"{variant} on a {prob.m} x {prob.n} matrix", force)
    auction = _ReportAuction(cp, prob, cfg, variant)
    main = cp.cuda.Stream(non_blocking=True)
    side = cp.cuda.Stream(non_blocking=True)
    pinned = _Pinned(cp)
    cp.cuda.Device().synchronize()
    t1 = time.perf_counter()
    with main, gpu.CudaTimer(main) as timer:
        if variant == "gpu_graph":
            launched = auction.run_graph(main, pinned, rounds_per_graph, max_rounds)
        else:
            launched, marks = auction.run_rounds(main, side, pinned, max_rounds, timeline_rounds)
    rounds = int(auction.counters[_C_ROUNDS].get()) if auction.queued else launched
    t2 = time.perf_counter()
    a = auction.person_obj.get()
    pr = auction.price.get()
    t3 = time.perf_counter()
    stats = {"prepare_ms": (t1 - t0) * 1e3, "exec_ms": (t2 - t1) * 1e3, "kernel_ms": timer.ms,
             "device": gpu.device_name(), "rounds": rounds, "upload_ms": auction.upload_ms,
             "download_ms": (t3 - t2) * 1e3, "launch": dict(cfg)}
    if variant == "gpu_graph":
        stats["rounds_launched"] = launched
    if timeline_rounds:
        stats["timeline"] = _timeline(marks)
    return make_result(B, prob, a, pr, variant, stats, t0)


# ------------------------------------------------------------ the eps-scaling kernels

def _fast_bytes(N: int, ld: int | None = None, nnz: int | None = None) -> int:
    """GPU memory of the eps-scaling kernels on N persons = objects: the rows (a dense int32
    matrix of pitch ``ld``, or ``nnz`` CSR entries at 16 bytes, counted generously), and per
    person the prices, matching, bid keys, lists and a bid cache of CACHE_K entries."""
    rows = 16 * nnz if nnz is not None else 4 * N * ld
    return rows + (64 + 8 * CACHE_K) * N


def _even(value, name: str) -> int:
    if guards.integer(value, name, lo=2) % 2:
        raise ValueError(f"{name} must be even and >= 2, got {value!r}")
    return int(value)


def check_report_options(bid_threads=128, assign_threads=256, grid_factor=2, rounds_per_graph=16,
                         timeline_rounds=0, max_rounds=10**8, **_):
    """The options of the report's versions, checked before a GPU is asked for
    (:class:`gpualgo.variants.Variant`'s ``checks``) and again by the versions."""
    guards.integer(max_rounds, "max_rounds", 1, auction_serial.MAX_ROUNDS)
    guards.integer(timeline_rounds, "timeline_rounds", 0, 10**4)
    guards.threads(bid_threads, "bid_threads")
    guards.threads(assign_threads, "assign_threads")
    guards.integer(grid_factor, "grid_factor")
    _even(rounds_per_graph, "rounds_per_graph")


def check_fast_options(warps_per_block=WARPS_PER_BLOCK, blocks_per_sm=4, rounds_per_check=16, tail_max=TAIL_MAX, time_tail=False,
                       max_rounds=10**8, eps_start=None, eps_factor=auction_serial.EPS_FACTOR, persistent=PERSISTENT,
                       scaling=True, tail_shared=True, **_):
    """The options of the eps-scaling versions, checked before a GPU is asked for and again
    by the versions (the schedule's as the serial twin checks them)."""
    guards.integer(max_rounds, "max_rounds", 1, auction_serial.MAX_ROUNDS)
    auction_serial.eps_schedule(2, 1, eps_start, eps_factor)
    guards.integer(warps_per_block, "warps_per_block", 1, 32)
    guards.integer(blocks_per_sm, "blocks_per_sm")
    _even(rounds_per_check, "rounds_per_check")
    guards.integer(tail_max, "tail_max", 1, 32)
    guards.one_of(time_tail, "time_tail", (False, True))
    guards.one_of(persistent, "persistent", (False, True))
    guards.flag(scaling, "scaling")
    guards.flag(tail_shared, "tail_shared")


def _direct_upload(B, sparse: bool) -> bool:
    """Whether ``B`` goes to the device as it is (see :func:`_fast_layout`): a dense layout of
    a square C-contiguous integer numpy matrix with n % 4 == 0 (the kernels' row pitch)."""
    return (not sparse and isinstance(B, np.ndarray) and B.dtype.kind in "iu" and B.dtype.isnative and B.ndim == 2
            and B.shape[0] == B.shape[1] and B.shape[0] % 4 == 0 and B.flags.c_contiguous)


@dataclass
class _Rows:
    """The benefit rows on the device, as the bidding kernels take them."""
    args: tuple            # kernel arguments: (raw, ld) dense, or (indptr, cols, vals) CSR
    n_price: int           # prices to allocate: the dense pitch ld (padding included), or N
    upload_ms: float


def _fast_layout(cp, B, eps, sparse: bool, force: bool, variant: str):
    """Validate ``B`` (its integer form, square), refuse what would not fit, lay its rows
    out for the kernels (CSR, or dense with a pitch that is a multiple of 4) and upload
    them. Returns ``(prob, rows)``.

    A square C-contiguous integer matrix with n % 4 == 0 (int32, or numpy's default int64,
    or any other integer type) goes to the device with no host pass of its own (host passes
    over the matrix cost more than the upload): an int32 one as it is, its range then taken on
    the device; another converted to int32 by the upload's threads, which take its range as
    given while they copy (``gpu.to_device(..., value_range=True)``), so that
    :func:`problem.prepare` refuses what the conversion would not have kept.
    """
    direct = _direct_upload(B, sparse)
    hint = "" if sparse else "gpu_sparse keeps only the existing edges"
    value_range, raw_d, upload = None, None, gpu.CudaTimer()
    if direct:
        guards.memory(_fast_bytes(B.shape[0], ld=B.shape[0]),
                      f"{variant} on a {B.shape[0]} x {B.shape[1]} matrix", force, hint=hint)
        with upload:
            if B.dtype == np.int32:
                raw_d = gpu.to_device(B)
            else:
                raw_d, value_range = gpu.to_device(B, np.int32, value_range=True)
        if value_range is None:
            value_range = (int(raw_d.min()), int(raw_d.max()))
    prob = problem.prepare(B, eps, square=True, value_range=value_range, host_raw=not direct, force=force)
    N = prob.n  # persons after padding = objects
    what = f"{variant} on a {prob.m} x {prob.n} matrix"
    if N >= (1 << problem.KEY_BITS):
        raise ValueError(f"at most {(1 << problem.KEY_BITS) - 1} persons, got {N}")
    if prob.scale >= 2**31:
        raise ValueError(f"eps={eps} needs a benefit scale of {prob.scale} >= 2**31, beyond these kernels; "
                         "eps=None gives the exact optimum")
    if sparse:
        present = prob.raw != problem.MISSING
        nnz = int(present.sum())
        guards.memory(_fast_bytes(N, nnz=nnz), what, force)
        indptr_h = np.zeros(N + 1, dtype=np.int64)
        np.cumsum(present.sum(axis=1), out=indptr_h[1:])
        rows_h, cols_h = np.nonzero(present)  # row-major: columns ascending in each row
        vals_h = prob.raw[rows_h, cols_h]
        with upload:
            args = tuple(gpu.to_device(a) for a in (indptr_h, cols_h.astype(np.int32), vals_h))
        return prob, _Rows(args, N, upload.ms)
    ld = -(-N // 4) * 4
    if not direct:
        guards.memory(_fast_bytes(N, ld=ld), what, force, hint=hint)
        raw_h = prob.raw
        if ld != N:
            raw_h = np.full((N, ld), problem.MISSING, dtype=np.int32)
            raw_h[:, :N] = prob.raw
        with upload:
            raw_d = gpu.to_device(raw_h)
    return prob, _Rows((raw_d, _i32(ld)), ld, upload.ms)


class _FastAuction:
    """The device state of the eps-scaling kernels and one phase of them: a CUDA graph of
    ``rounds_per_check`` rounds (bid, assign) and the tail kernel, launched until every
    person is matched."""

    def __init__(self, cp, prob, rows: _Rows, cfg, names, tail_max: int, tail_shared: bool,
                 rounds_per_check: int, max_rounds: int, time_tail: bool = False, narrow: bool = False,
                 stream=None, persistent: bool = False):
        N = prob.n
        self.cp, self.prob, self.rows, self.cfg, self.N = cp, prob, rows, cfg, N
        self.rounds_per_check, self.max_rounds = rounds_per_check, max_rounds
        mod = _module(tail_max, time_tail, narrow, cooperative=persistent)
        self.phase_k, self.bid_k, self.assign_k, self.tail_k = (mod.get_function(name) for name in names[:4])
        # persistent: one cooperative launch runs the bulk rounds; its grid is the bid kernel's,
        # less what cannot be resident at once
        self.bulk_k = self.bulk_blocks = None
        if persistent:
            self.bulk_k = mod.get_function(names[4])
            self.bulk_blocks = min(cfg["bid"][0][0], gpu.resident_blocks(self.bulk_k, cfg["bid"][1][0]))
        # NARROW_SCANS: set by a scan that read a price of 2^30 or more (the run is then void)
        self.narrow, self.abort = narrow, None
        if narrow:
            self.abort = cp.ndarray((1,), cp.int32, mod.get_global("narrow_abort"))
            self.abort[:] = 0
        # the tail kernel's clock (TAIL_CLOCK): ns in its rounds, ns in their scans, rounds
        self.clock = None
        if time_tail:
            self.clock = cp.ndarray((3,), cp.uint64, mod.get_global("tail_clock"))
            self.clock[:] = 0
        self.tail_shared, self.tail_smem = self._tail_memory(tail_shared)
        # dense scans load the prices of whole int4 groups, padding columns included
        self.price = cp.zeros(rows.n_price, dtype=cp.int64)
        self.person_obj = cp.full(N, -1, dtype=cp.int32)
        self.obj_owner = cp.full(N, -1, dtype=cp.int32)
        self.obj_key = cp.zeros(N, dtype=cp.uint64)
        self.cache = (cp.empty(2 * CACHE_K * N, dtype=cp.int32), cp.zeros(N, dtype=cp.int32),
                      cp.empty(N, dtype=cp.int64))
        self.lists = [cp.zeros(2 * N, dtype=cp.int32), cp.zeros(2 * N, dtype=cp.int32)]
        self.objq = [cp.zeros(N, dtype=cp.int32), cp.zeros(N, dtype=cp.int32)]
        self.counters = cp.zeros(_N_COUNTERS, dtype=cp.int32)
        # the queue lengths by round parity, as pointers the kernels take
        self.persons_len = [_slot(self.counters, "C_PERSONS0"), _slot(self.counters, "C_PERSONS1")]
        self.objects_len = [_slot(self.counters, "C_OBJECTS0"), _slot(self.counters, "C_OBJECTS1")]
        self.scale = _i32(prob.scale)
        self.stream = stream or cp.cuda.Stream(non_blocking=True)
        self.pinned = _Pinned(cp)
        self.checks_done = self.launched = 0

    def _tail_memory(self, wanted: bool):
        """(in shared memory?, dynamic shared bytes): the tail keeps the prices and owners in
        shared memory when asked and when they fit in what a block may opt in to."""
        smem = 8 * self.rows.n_price + 4 * self.N
        limit = (self.cp.cuda.Device().attributes["MaxSharedMemoryPerBlockOptin"]
                 - self.tail_k.attributes["shared_size_bytes"])
        shared = bool(wanted) and smem <= limit
        if shared and self.tail_k.max_dynamic_shared_size_bytes < smem:
            self.tail_k.max_dynamic_shared_size_bytes = smem
        return shared, smem

    def _capture(self, e, cap):
        """The CUDA graph of a phase: rounds_per_check rounds (an even number, so the lists
        are back at parity 0) and the tail kernel, launched with one call."""
        cfg, stream = self.cfg, self.stream
        pl, ol = self.persons_len, self.objects_len
        rows = self.rows.args
        stream.begin_capture()
        for p in (0, 1) * (self.rounds_per_check // 2):
            self.bid_k(cfg["bid"][0], cfg["bid"][1], rows + (
                self.scale, self.price, self.lists[p], pl[p], self.person_obj, e, cap, self.obj_key, self.objq[p],
                ol[p], self.lists[1 - p], pl[1 - p], ol[1 - p]) + self.cache)
            self.assign_k(cfg["assign"][0], cfg["assign"][1], (
                self.objq[p], ol[p], self.obj_key, self.price, self.person_obj, self.obj_owner, self.counters,
                self.lists[1 - p], pl[1 - p], pl[p]))
        self._tail(e, cap)
        return stream.end_capture()

    def _tail(self, e, cap):
        """The tail kernel, on the lists of parity 0 (it returns at once with more than
        tail_max bidders left, or none)."""
        self.tail_k(self.cfg["tail"][0], self.cfg["tail"][1], self.rows.args + (
            self.scale, self.price, _i32(self.N), self.lists[0], self.persons_len[0], self.person_obj,
            self.obj_owner, e, cap, self.counters) + self.cache + (_i32(self.tail_shared),),
            shared_mem=self.tail_smem if self.tail_shared else 0)

    def _bulk(self, e, cap, pairs: int):
        """persistent=True: bulk_rounds_kernel runs up to ``pairs`` pairs of rounds, then the
        tail kernel (both on the stream, no graph: CuPy launches them cooperatively)."""
        self.bulk_k((self.bulk_blocks,), self.cfg["bid"][1], self.rows.args + (
            self.scale, self.price, _i32(self.N), self.lists[0], self.lists[1], self.objq[0], self.objq[1],
            self.person_obj, self.obj_owner, e, cap, self.obj_key, self.counters) + self.cache + (_i32(pairs),))
        self._tail(e, cap)

    def run(self, sched) -> list[int]:
        """Every phase of the eps schedule: the rounds of each."""
        per_phase = []
        for eps_phase in sched:
            per_phase.append(self.phase(eps_phase) - sum(per_phase))
        return per_phase

    def phase(self, eps_phase: int) -> int:
        """One eps phase (prices kept, everybody unassigned first); returns the rounds run
        so far, all phases together."""
        e, cap = _i64(eps_phase), _i64(max(self.prob.cap, eps_phase))
        cfg, N, stream, pinned = self.cfg, self.N, self.stream, self.pinned
        self.phase_k(cfg["phase"][0], cfg["phase"][1],
                     (_i32(N), _i32(N), self.person_obj, self.obj_owner, self.lists[0], self.counters))
        batch = None if self.bulk_k is not None else self._capture(e, cap)
        pairs = min(PERSISTENT_PAIRS, -(-self.max_rounds // 2))
        while True:
            if batch is None:
                self._bulk(e, cap, pairs)
            else:
                batch.launch(stream)
                self.launched += self.rounds_per_check
            pinned.copy_from(self.counters[_C_MATCHED:_C_MATCHED + 1], stream)
            stream.synchronize()
            self.checks_done += 1
            if pinned.value == N:
                break
            # the rounds so far, every phase: launched in graphs, or run (a bulk launch that
            # returns with the phase unfinished ran all its pairs)
            done = self.launched if batch is not None else int(self.counters[_C_ROUNDS].get())
            if done > self.max_rounds:
                raise _no_convergence(self.max_rounds)
        if self.narrow and int(self.abort.get()[0]):
            raise _NarrowAbort()
        return int(self.counters[_C_ROUNDS].get())


def _fast_family(B, eps, sparse: bool, scaling: bool = True, eps_start=None,
                 eps_factor: int = auction_serial.EPS_FACTOR,
                 warps_per_block: int = WARPS_PER_BLOCK, blocks_per_sm: int = 4, rounds_per_check: int = 16,
                 tail_max: int = TAIL_MAX, tail_shared: bool = True, max_rounds: int = 10**8, force: bool = False,
                 time_tail: bool = False, persistent: bool = PERSISTENT):
    """gpu_eps_scaling (dense) and gpu_sparse (CSR): the eps-scaling kernels of auction.cu.

    ``tail_shared``: the single-block tail keeps prices and owners in shared memory when
    they fit (the default); False keeps them in global memory (for comparison).
    ``time_tail``: the tail kernel is compiled with its clock (``TAIL_CLOCK``) and the stats
    add ``tail_ms`` (its time in rounds), ``tail_scan_ms`` (in their row scans) and
    ``tail_rounds`` (the rounds it ran): where the time of the last rounds goes.
    ``persistent``: the rounds before the tail run in one cooperative launch of
    ``bulk_rounds_kernel`` per phase, with grid barriers where the default's CUDA graph has
    kernel boundaries and with no copy to the host until the tail is done
    (``rounds_per_check`` then has no effect); the rounds, and so the answer and the prices,
    are the same.
    """
    cp = gpu.require()
    check_fast_options(warps_per_block, blocks_per_sm, rounds_per_check, tail_max, time_tail, max_rounds, eps_start,
                       eps_factor, persistent, scaling, tail_shared)
    variant = "gpu_sparse" if sparse else "gpu_eps_scaling"
    t0 = time.perf_counter()
    prob, rows = _fast_layout(cp, B, eps, sparse, force, variant)
    sched = auction_serial.eps_schedule(prob.span, prob.eps, eps_start if scaling else prob.eps, eps_factor)
    cfg = launch_config("fast", prob.n, gpu.sm_count(), warps_per_block=warps_per_block, blocks_per_sm=blocks_per_sm)
    narrow = narrow_scans(prob, sparse)
    auction = _FastAuction(cp, prob, rows, cfg, KERNELS[variant], tail_max, tail_shared, rounds_per_check,
                           max_rounds, bool(time_tail), narrow, persistent=persistent)
    cp.cuda.Device().synchronize()
    t1 = time.perf_counter()
    aborted = False
    with auction.stream, gpu.CudaTimer(auction.stream) as timer:
        try:
            per_phase = auction.run(sched)
        except _NarrowAbort:     # a price passed 2^30: the whole run again, with 64-bit scans
            aborted = True
            auction = _FastAuction(cp, prob, rows, cfg, KERNELS[variant], tail_max, tail_shared, rounds_per_check,
                                   max_rounds, bool(time_tail), False, stream=auction.stream, persistent=persistent)
            per_phase = auction.run(sched)
    t2 = time.perf_counter()
    a = auction.person_obj.get()
    pr = auction.price[:prob.n].get()
    t3 = time.perf_counter()
    counts = auction.counters.get()
    hits, scans, solo = (int(counts[k]) for k in (_C_CACHE_HITS, _C_TAIL_SCANS, _C_TAIL_SOLO))
    stats = {"prepare_ms": (t1 - t0) * 1e3, "exec_ms": (t2 - t1) * 1e3, "kernel_ms": timer.ms,
             "device": gpu.device_name(), "rounds": int(sum(per_phase)), "rounds_per_phase": per_phase,
             "eps_schedule": sched, "phases": len(sched), "host_checks": auction.checks_done,
             "rounds_per_check": rounds_per_check, "persistent": persistent,
             "upload_ms": rows.upload_ms, "download_ms": (t3 - t2) * 1e3, "launch": cfg,
             "tail_shared": auction.tail_shared, "tail_cache_hits": hits, "tail_scans": scans,
             "tail_solo_rounds": solo, "narrow_scans": auction.narrow, "narrow_aborted": aborted}
    if persistent:
        stats["bulk_blocks"] = auction.bulk_blocks
    if time_tail:
        ns_rounds, ns_scans, tail_rounds = (int(v) for v in auction.clock.get())
        stats.update(tail_ms=ns_rounds / 1e6, tail_scan_ms=ns_scans / 1e6, tail_rounds=tail_rounds)
    return make_result(B, prob, a, pr, variant, stats, t0)


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
